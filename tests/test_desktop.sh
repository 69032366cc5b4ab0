#!/usr/bin/env bash
# The desktop integration files (TAP): the launcher passes
# desktop-file-validate and the AppStream metadata appstreamcli validate
# --no-net, each with no error and no warning (hints and pedantic notes are
# shown, not failed); the icons the launcher and metadata name exist.
#
#   tests/test_desktop.sh DESKTOP_FILE METAINFO_FILE ICONS_DIR GUI_FIT_TEST
set -u
desktop=$1
metainfo=$2
icons=$3
gui_fit=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count=0
failed=0
# ok STATUS NAME: one TAP line, with the tool's output as comments.
ok() {
    count=$((count + 1))
    if [ "$1" -eq 0 ]; then echo "ok $count - $2"; else failed=$((failed + 1)); echo "not ok $count - $2"; fi
    sed 's/^/# /' "$tmp/out" 2>/dev/null
    : >"$tmp/out"
}
skip() {
    count=$((count + 1))
    echo "ok $count - $1 # SKIP $2"
}

if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$desktop" >"$tmp/out" 2>&1
    status=$?
    ! grep -qiE ': (error|warning): ' "$tmp/out" && [ $status -eq 0 ]
    ok $? "$(basename "$desktop") passes desktop-file-validate with no error or warning"
else
    skip "$(basename "$desktop") passes desktop-file-validate" "desktop-file-validate is not installed (Debian: desktop-file-utils)"
fi

if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net --pedantic "$metainfo" >"$tmp/out" 2>&1
    status=$?
    ! grep -qE '^[EW]: ' "$tmp/out" && [ $status -eq 0 ]
    ok $? "$(basename "$metainfo") passes appstreamcli validate --no-net with no error or warning"
else
    skip "$(basename "$metainfo") passes appstreamcli validate" "appstreamcli is not installed (Debian: appstream)"
fi

id=$(sed -n 's/^Icon=//p' "$desktop")
[ -f "$icons/scalable/apps/$id.svg" ] && [ -f "$icons/symbolic/apps/$id-symbolic.svg" ] &&
    grep -q "<id>$id</id>" "$metainfo" && grep -q "<launchable type=\"desktop-id\">$(basename "$desktop")</launchable>" "$metainfo"
ok $? "the launcher's icon $id has a scalable and a symbolic SVG, and the metadata names the same id and launcher"

# The display size the metadata asks for is the smallest window every view
# fits (the first size tests/test_gui_fit.c sets).
need=$(sed -n 's/.*<display_length compare="ge">\([0-9]*\)<.*/\1/p' "$metainfo")
fits=$(sed -n 's/.*static const int sizes\[\]\[2\] = {{\([0-9]*\), \([0-9]*\)}.*/\2/p' "$gui_fit")
[ -n "$need" ] && [ "$need" = "$fits" ]
ok $? "the metadata asks for a display of $need pixels or more on its short side, the smallest height every view fits ($fits)"

echo "1..$count"
[ "$failed" -eq 0 ]
