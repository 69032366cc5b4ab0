#!/usr/bin/env bash
# The layers' arrows point one way (issue 12 item 15): the workbench (ui/)
# uses nothing of the command line (app/), and core/ stays free of GLib.
# Three checks over the source tree:
#   - no ui/ source includes a file of app/, by a relative path or by a bare
#     name only app/ has (which would come through app/'s include folder);
#   - no ui/ meson.build names app/'s library or files outside a comment;
#   - no core/ source includes GLib, GIO or GTK.
# Each failure lists the offending lines.
# Usage: check_layers.sh SOURCE_ROOT
root=$1
cd "$root" || { echo "Bail out! $root: no such folder"; exit 1; }
n=0
fail=0

# report NAME OFFENDERS: ok when OFFENDERS is empty, else not ok and the lines.
report() {
    n=$((n + 1))
    if [ -z "$2" ]; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        sed 's/^/# /' <<<"$2"
        fail=1
    fi
}

# ui_includes_of_app: "FILE:LINE: #include ..." for every include of app/.
ui_includes_of_app() {
    grep -rnE --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' ui |
        while IFS= read -r hit; do
            file=${hit%%:*}
            name=$(sed -E 's/.*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"${hit#*:*:}")
            resolved=$(realpath -m "$(dirname "$file")/$name")
            if [[ $resolved == "$PWD/app/"* ]] || { [ ! -e "$resolved" ] && [ -e "app/$name" ]; }; then
                echo "$hit"
            fi
        done
}

report "no ui/ source includes a file of app/ (the command line)" "$(ui_includes_of_app)"
report "no ui/ meson.build links or compiles app/ (rfapp, app/ files)" \
    "$(find ui -name meson.build -print0 | xargs -0 grep -nE '^[^#]*(rfapp|app/)' /dev/null)"
report "no core/ source includes GLib, GIO or GTK" \
    "$(grep -rnE --include='*.c' --include='*.h' '#[[:space:]]*include[[:space:]]*<(glib|gio|gtk|gdk)' core)"
echo "1..$n"
exit $fail
