#!/usr/bin/env bash
# The guide's reference page (docs/reference.md) is what the program prints
# (TAP): every verb's --help and `config --list`, made again by
# data/man/reference_page.sh and compared with the committed page.
#
#   tests/test_reference.sh RANGEFINDER SOURCE_ROOT
set -u
rf=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
TAP_DETAIL=$tmp/diff

"$src/data/man/reference_page.sh" "$rf" "$src/data" >"$tmp/reference.md" 2>"$tmp/diff"
ok $? "data/man/reference_page.sh makes the page"
diff -u "$src/docs/reference.md" "$tmp/reference.md" >"$tmp/diff"
ok $? "docs/reference.md is the program's help and key table (after a change: data/man/reference_page.sh build/rangefinder \"\$PWD/data\" > docs/reference.md)"
tap_end
