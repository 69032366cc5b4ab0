#!/usr/bin/env bash
# Install anywhere, run from there (TAP). `meson install` into a scratch
# DESTDIR, the installed tree moved to a prefix the build never named, and
# the source and build trees hidden from it: tmpfs mounted over both in a
# private mount namespace (`unshare -m`, as root; `unshare -rm` otherwise),
# which only this test's processes see, so tests running in parallel still
# find them. From the installed files alone: `rangefinder --version`, 20
# steps of the default config without a display, and the workbench under
# Xvfb (it shows its window and quits).
#
#   tests/test_install.sh BUILD_DIR SOURCE_ROOT PREFIX BINDIR DATADIR
set -u
build=$(realpath "$1")
src=$(realpath "$2")
prefix=$3
bindir=$4
datadir=$5
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rf-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case "$tmp/" in
"$src/"* | "$build/"*)
    echo "Bail out! the scratch folder $tmp is inside the source or build tree, which this test hides: set TMPDIR"
    exit 1
    ;;
esac

# The build tree is hidden from the installed program: caches go here.
export XDG_CACHE_HOME=$tmp/cache
. "$(dirname "$0")/tap.sh"
# on a failure, the last command's output
TAP_DETAIL=$tmp/out
skip() {
    count=$((count + 1))
    echo "ok $count - $1 # SKIP $2"
}

meson install -C "$build" --no-rebuild --destdir "$tmp/stage" >"$tmp/out" 2>&1
ok $? "meson install --destdir installs the build"

root=$tmp/elsewhere
mkdir -p "$root" && mv "$tmp/stage$prefix"/* "$root"/ 2>"$tmp/out" && rm -rf "$tmp/stage"
ok $? "the installed tree moves from $prefix to a prefix the build never named"

# Every file meson installs is in the moved tree (the CUDA module in a CUDA build).
meson introspect "$build" --installed >"$tmp/installed.json" &&
    /usr/bin/python3 - "$tmp/installed.json" "$prefix" "$root" >"$tmp/out" 2>&1 <<'PY'
import json, os, sys
installed, prefix, root = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
missing = [d for d in installed.values() if not os.path.exists(root + d[len(prefix):])]
print("\n".join("missing: " + m for m in missing))
sys.exit(1 if missing or not installed else 0)
PY
ok $? "every file the build installs is in the moved tree"

diff -r "$src/data/configs" "$root/$datadir/rangefinder/configs" >"$tmp/out" 2>&1
ok $? "the shipped configs are installed in $datadir/rangefinder/configs"

# meson compiles the schemas at install, but not into a DESTDIR (a
# package's trigger does it there): as the trigger would.
glib-compile-schemas --strict "$root/$datadir/glib-2.0/schemas" >"$tmp/out" 2>&1 &&
    [ -f "$root/$datadir/glib-2.0/schemas/gschemas.compiled" ]
ok $? "the preferences schema is installed in $datadir/glib-2.0/schemas and compiles"

[ -f "$root/$datadir/doc/rangefinder/README.md" ] && [ -d "$root/$datadir/doc/rangefinder/docs" ]
ok $? "the user guide (Help → User Guide) is installed in $datadir/doc/rangefinder"

rf=$root/$bindir/rangefinder
! grep -qF "$src/data" "$rf" 2>"$tmp/out"
ok $? "no path of the source tree's data/ is compiled into the program"

# hidden COMMAND...: COMMAND with the build and source trees out of reach.
hidden=(unshare -m --)
[ "$(id -u)" -eq 0 ] || hidden=(unshare -rm --)
# shellcheck disable=SC2016
hide_trees='mount -t tmpfs -o size=64k rf-hidden "$1" && mount -t tmpfs -o size=64k rf-hidden "$2" && shift 2 && exec "$@"'
hidden+=(bash -c "$hide_trees" hide "$build" "$src")
if ! "${hidden[@]}" test ! -e "$src/data/configs/default.ini" >"$tmp/out" 2>&1; then
    skip "the source and build trees are hidden" "no private mount namespace here: $(head -n 1 "$tmp/out")"
    hidden=()
else
    ok 0 "the source and build trees are hidden"
fi

"${hidden[@]}" "$rf" --version >"$tmp/out" 2>&1 && grep -qE '^rangefinder [0-9]+\.[0-9]+' "$tmp/out"
ok $? "rangefinder --version runs from the installed files"

"${hidden[@]}" "$rf" --help >"$tmp/out" 2>&1 && grep -qF "$root/$datadir/rangefinder/configs/default.ini" "$tmp/out"
ok $? "rangefinder --help names the installed default config"

(cd "$tmp" && exec env -u DISPLAY -u WAYLAND_DISPLAY "${hidden[@]}" "$rf" --runs "$tmp/runs" \
    --set train.steps=20 --set train.warmup=5) >"$tmp/out" 2>&1 &&
    tail -n 5 "$tmp/out" | grep -q '"status":"finished","steps":20,' &&
    [ -f "$(echo "$tmp"/runs/*-default/checkpoint.safetensors)" ]
ok $? "rangefinder without a display trains 20 steps of the installed default config"

if ! command -v Xvfb >/dev/null || ! command -v dbus-run-session >/dev/null || ! command -v xwininfo >/dev/null; then
    skip "the installed workbench opens its window and quits" "needs Xvfb, dbus-run-session and xwininfo"
else
    # The check itself runs from the scratch folder: tests/ is hidden.
    cp "$here/workbench_opens.sh" "$here/xvfb_run.sh" "$tmp/"
    (cd "$tmp" && exec env GTK_A11Y=none ASAN_OPTIONS=detect_leaks=0 GSETTINGS_BACKEND=memory "${hidden[@]}" \
        "$tmp/xvfb_run.sh" 1600x1000x24 dbus-run-session -- \
        "$tmp/workbench_opens.sh" "$rf" --runs "$tmp/runs-gui") >"$tmp/out" 2>&1
    ok $? "the installed workbench opens its window with the default config and quits"
fi

tap_end
