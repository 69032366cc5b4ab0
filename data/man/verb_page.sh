#!/usr/bin/env bash
# rangefinder(1) or rangefinder-VERB(1), made by help2man from the built
# program's own --help, so the page cannot drift from it. The verb's
# one-line summary comes from `rangefinder --help`'s list of verbs, and
# paths that name this build (the source tree's data/, the user's home)
# become the installed ones.
#
#   verb_page.sh RANGEFINDER VERB|"" VERSION BUILD_DATADIR INSTALLED_DATADIR OUT
set -euo pipefail
rf=$1 verb=$2 version=$3 build_data=$4 installed_data=$5 out=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The program's help as a user sees it: UTF-8, home in ~, no leak report.
export LC_ALL=C.UTF-8 HOME=/rf-man-home ASAN_OPTIONS=detect_leaks=0
unset XDG_DATA_HOME

verbs=$("$rf" --help | sed -nE 's/^  ([a-z][a-z-]*) {2,}.*/\1/p')
see_also="rangefinder-config(5)"
if [ -z "$verb" ]; then
    page=rangefinder
    summary=$("$rf" --help | sed -n '/^$/{n;p;q}' | sed -E 's/^A (.*)\.$/\1/')
    pages=""
    for v in $verbs; do pages+="rangefinder-$v(1), "; done
    see_also=$pages$see_also
    # help2man runs PROGRAM --help and --version through the shell.
    program=$rf
else
    page=rangefinder-$verb
    summary=$("$rf" --help | sed -nE "s/^  $verb {2,}(.*)/\1/p")
    [ -n "$summary" ] || { echo "$0: rangefinder --help lists no verb '$verb'" >&2; exit 1; }
    see_also="rangefinder(1), $see_also"
    # A program named like the page, so that help2man titles it so.
    printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$rf" "$verb" >"$tmp/$page"
    chmod +x "$tmp/$page"
    program=$tmp/$page
fi
printf '[SEE ALSO]\n%s\n' "$see_also" >"$tmp/include"
help2man --no-info --no-discard-stderr --locale=C.UTF-8 --version-string="$version" --name="$summary" \
    --source="Rangefinder $version" --include="$tmp/include" --output="$tmp/page" "$program"
# Characters beyond ASCII as groff escapes (preconv), which every man
# reads; the paths as help2man wrote them, with each - as \-.
troff_path() { sed 's/-/\\\\-/g' <<<"$1"; }
preconv -e utf-8 "$tmp/page" |
    sed -e '/^\.lf /d' -e "s|$(troff_path "$build_data")|$(troff_path "$installed_data")|g" \
        -e 's|/rf\\-man\\-home/|~/|g' -e "s|$(troff_path "$tmp")/||g" >"$out"
