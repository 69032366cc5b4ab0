#!/usr/bin/env bash
# The man pages (data/man), made from the program's own help (TAP): each
# renders with no groff warning (-ww) and no man-db warning; every verb
# `rangefinder --help` lists has its rangefinder-VERB(1) page, showing the
# options of `rangefinder VERB --help`; rangefinder-config(5) lists every
# key of `rangefinder config --list`.
#
#   tests/test_man.sh RANGEFINDER PAGE...
set -u
rf=$1
shift
if [ $# -eq 0 ]; then
    echo "1..0 # SKIP this build made no man pages (help2man not found; Debian: apt-get install help2man)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
declare -A page_of
for page in "$@"; do
    page_of[$(basename "$page")]=$page
    groff -ww -z -man "$page" >"$tmp/warnings" 2>&1 && [ ! -s "$tmp/warnings" ]
    ok $? "$(basename "$page") renders without a groff warning" "$tmp/warnings"
    MANWIDTH=80 man --warnings -l "$page" 2>"$tmp/warnings" >"$tmp/text" && [ ! -s "$tmp/warnings" ]
    ok $? "$(basename "$page") renders without a man warning" "$tmp/warnings"
done

[ -n "${page_of[rangefinder.1]:-}" ]
ok $? "rangefinder(1) is made"

verbs=$("$rf" --help | sed -nE 's/^  ([a-z][a-z-]*) {2,}.*/\1/p')
[ -n "$verbs" ]
ok $? "rangefinder --help lists verbs"
for verb in $verbs; do
    page=${page_of[rangefinder-$verb.1]:-}
    # Each long option of the verb's help, as the page shows it once rendered.
    : >"$tmp/missing"
    if [ -n "$page" ]; then
        LC_ALL=C MANWIDTH=1000 man -l "$page" >"$tmp/text" 2>/dev/null
        for option in $("$rf" "$verb" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
            grep -qF -- "$option" "$tmp/text" || echo "$option" >>"$tmp/missing"
        done
    else
        echo "no page rangefinder-$verb.1" >"$tmp/missing"
    fi
    [ ! -s "$tmp/missing" ]
    ok $? "rangefinder-$verb(1) is made and shows every option of rangefinder $verb --help" "$tmp/missing"
done

config=${page_of[rangefinder-config.5]:-}
: >"$tmp/missing"
if [ -n "$config" ]; then
    "$rf" config --list | awk '{print $1}' | while read -r key; do
        grep -qxF ".B $key" "$config" || echo "$key" >>"$tmp/missing"
    done
else
    echo "no page rangefinder-config.5" >"$tmp/missing"
fi
[ ! -s "$tmp/missing" ]
ok $? "rangefinder-config(5) lists every key of rangefinder config --list" "$tmp/missing"

tap_end
