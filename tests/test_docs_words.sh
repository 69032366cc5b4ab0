#!/usr/bin/env bash
# The user documentation speaks of the program, not of how it was made
# (TAP): no "second session" / "this session", "issue 14" / "issue #14",
# "item 3 of issue", "lent", "round of work", and no headings made of the
# dates work was done ("29 Nov, ninth session:", "### Results (2026-11-27)").
# One check per file, its offending lines as comments; a first check proves
# the patterns catch each kind of phrase.
#
#   tests/test_docs_words.sh SOURCE_ROOT
set -u
root=$1
. "$(dirname "$0")/tap.sh"

months='(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*'
date="([0-9]{1,2} $months|$months [0-9]{1,2}\\b|20[0-9]{2}-[0-9]{2}-[0-9]{2})"
ordinal='(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|this|last|previous|next|earlier|later)'
words="\\b$ordinal( [A-Za-z0-9-]+)? sessions?\\b|\\bissues? #?[0-9]+|\\bitems? [0-9]+ of (the )?issue|\\blent\\b|\\brounds? of work\\b"
# A date used as a heading: a Markdown heading with a date in it, or a
# short line that introduces a list ("27 Nov, second session:").
dated_heading="^#+ .*$date|^.{0,60}$date.{0,60}:\$"

# offending FILE: prints FILE:LINE: text for every hit. A phrase may wrap
# ("issue" at the end of a line, "14" on the next), so each line is read
# with the last two words of the line before it.
offending() {
    awk -v f="$1" '{ n = split(prev, w, " "); tail = (n >= 2 ? w[n-1] " " : "") (n >= 1 ? w[n] " " : "")
                     print f ":" NR ": " tail $0; prev = $0 }' "$1" | grep -iE "$words"
    grep -nHE "$dated_heading" "$1"
}

# The patterns themselves: each kind of phrase is caught, and plain
# program text is not.
sample=$(mktemp)
trap 'rm -f "$sample"' EXIT
caught=0
for phrase in 'in the seventh session we' 'This session adds' 'the second GPU session' \
              'see issue 14' 'issue #3 asks' 'item 4 of issue 12' 'one H200 lent for 15 minutes' \
              'another round of work' '29 Nov, ninth session (AMD EPYC):' '### Results (2026-11-27, ten runs)' \
              '## Fixes of 28 Nov' $'as issue\n14 asks'; do
    printf '%s\n' "$phrase" >"$sample"
    if [ -n "$(offending "$sample")" ]; then caught=$((caught + 1)); else echo "# not caught: $phrase"; fi
done
printf '%s\n' 'the session (worker thread) trains' 'equivalent to an excellent run' \
              'an issue with the file' 'Results, measured on 27 Nov: 12 ms' >"$sample"
false_hits=$(offending "$sample")
[ -n "$false_hits" ] && printf '%s\n' "$false_hits" | sed 's/^/# wrongly caught: /'
[ "$caught" -eq 12 ] && [ -z "$false_hits" ]
ok $? "the patterns catch all 12 kinds of phrase about how the program was made, and no program text"

for file in "$root/README.md" "$root/NEWS.md" "$root"/docs/*.md; do
    if [ ! -f "$file" ]; then ok 1 "${file#"$root"/} exists"; continue; fi
    hits=$(offending "$file")
    [ -n "$hits" ] && printf '%s\n' "$hits" | sed "s|^$root/||; s/^/# /"
    [ -z "$hits" ]
    ok $? "${file#"$root"/} speaks of the program only"
done

tap_end
