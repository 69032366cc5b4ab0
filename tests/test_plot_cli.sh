#!/usr/bin/env bash
# `rangefinder plot --size/--dpi/--font-size` end to end (TAP): sizes in
# pixels, inches, centimetres and points, a PNG's pixels and recorded dpi
# read back from the file, SVG and PDF page sizes in points, the text size
# in the SVG following --font-size, and one clear sentence (exit 2) for each
# bad value, naming the option.
#
#   tests/test_plot_cli.sh PATH/TO/rangefinder
set -u
rf=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rf-plot-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
TAP_DETAIL=$tmp/err

# plot ARGS...: rangefinder plot of the tiny run; status kept in $rc.
plot() {
    "$rf" plot "$run" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# png_u32 FILE OFFSET: the big-endian 32-bit number at OFFSET.
png_u32() {
    od -An -tu1 -j"$2" -N4 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }'
}

# The pixels per metre of FILE's pHYs chunk (empty when it has none).
png_per_metre() {
    local at
    at=$(grep -obUaP 'pHYs' "$1" | head -1 | cut -d: -f1)
    [ -n "$at" ] && png_u32 "$1" $((at + 4))
}

# The sizes in points of FILE's <text> elements: font-size times the
# transform's scale, one per line, to two decimals.
svg_text_points() {
    sed -n 's/.*<text transform="matrix(\([0-9.]*\) .*font-size="\([0-9.]*\)".*/\1 \2/p' "$1" |
        awk '{ printf "%.2f\n", $1 * $2 }'
}

# A tiny ListOps run to draw.
run=$tmp/run
printf '[data]\ntask = listops\n' >"$tmp/tiny.ini"
"$rf" train --config "$tmp/tiny.ini" --set data.max_len=60 --set data.min_len=10 --set data.train_size=64 \
    --set data.val_size=16 --set data.test_size=16 --set data.batch=4 --set model.dim=16 --set model.heads=2 \
    --set model.ff=32 --set train.steps=6 --set train.eval_every=3 --set train.log_every=2 \
    --set train.threads=1 --out "$run" >"$tmp/out" 2>"$tmp/err"
ok $? "a tiny run to plot"

# --- sizes and resolution ---
plot --out "$tmp/a.png" --size 6x4in --dpi 300
ok $rc "--size 6x4in --dpi 300 writes a PNG"
test "$(png_u32 "$tmp/a.png" 16)x$(png_u32 "$tmp/a.png" 20)" = 1800x1200
ok $? "6x4in at 300 dpi is 1800 x 1200 pixels ($(png_u32 "$tmp/a.png" 16)x$(png_u32 "$tmp/a.png" 20))"
test "$(png_per_metre "$tmp/a.png")" = 11811
ok $? "the PNG records 300 dpi in its pHYs chunk (11811 pixels per metre)"
grep -q "1800x1200 pixels at 300 dpi" "$tmp/out"
ok $? "plot says what it wrote: $(cat "$tmp/out")" "$tmp/out"

plot --out "$tmp/b.png" --size 1600x1000
test "$rc" -eq 0 && test "$(png_u32 "$tmp/b.png" 16)x$(png_u32 "$tmp/b.png" 20)" = 1600x1000 &&
    test "$(png_per_metre "$tmp/b.png")" = 3780
ok $? "plain 1600x1000 is pixels, at 96 dpi (3780 pixels per metre)"

plot --out "$tmp/c.png" --size 15x10cm --dpi 200
test "$rc" -eq 0 && test "$(png_u32 "$tmp/c.png" 16)x$(png_u32 "$tmp/c.png" 20)" = 1181x787
ok $? "15x10cm at 200 dpi is 1181 x 787 pixels"

plot --out "$tmp/d.svg" --size 400x300pt
test "$rc" -eq 0 && grep -q 'width="400pt" height="300pt"' "$tmp/d.svg"
ok $? "an SVG of 400x300pt is 400 x 300 pt" "$tmp/err"
plot --out "$tmp/e.pdf" --size 6x4in
test "$rc" -eq 0 && grep -aq "/MediaBox \[ 0 0 432 288 \]" "$tmp/e.pdf"
ok $? "a PDF of 6x4in is 432 x 288 pt" "$tmp/err"
plot --out "$tmp/f.svg" --size 960x480 --dpi 192
test "$rc" -eq 0 && grep -q 'width="360pt" height="180pt"' "$tmp/f.svg"
ok $? "in an SVG, pixels convert at --dpi: 960x480 at 192 dpi is 360 x 180 pt" "$tmp/err"

# --- font size ---
plot --out "$tmp/g.svg" --size 6x4in --font-size 10
test "$rc" -eq 0 && test "$(svg_text_points "$tmp/g.svg" | sort | uniq -c | sort -rn | head -1 | awk '{ print $2 }')" = 10.00
ok $? "--font-size 10: the tick labels are 10 pt" "$tmp/err"
test "$(svg_text_points "$tmp/g.svg" | sort -n | tail -1)" = 11.82
ok $? "and the titles grow with them (13/11 of it: $(svg_text_points "$tmp/g.svg" | sort -n | tail -1) pt)"
plot --out "$tmp/h.svg" --size 6x4in
test "$rc" -eq 0 && test "$(svg_text_points "$tmp/h.svg" | sort | uniq -c | sort -rn | head -1 | awk '{ print $2 }')" = 8.25
ok $? "without --font-size the tick labels are 8.25 pt (11 pixels at 96 dpi, as on screen)"
plot --out "$tmp/i.png" --size 6x4in --dpi 300 --font-size 14
ok $rc "--font-size 14 in a PNG at 300 dpi"
cmp -s "$tmp/a.png" "$tmp/i.png"
ok $((! $?)) "draws a different PNG from the default font size"

# --- bad values: one sentence naming the option, exit 2 ---
# bad EXPECTED-TEXT ARGS...
bad() {
    local want=$1
    shift
    plot --out "$tmp/x.png" "$@"
    test "$rc" -eq 2 && grep -qF -- "$want" "$tmp/err" && test "$(wc -l <"$tmp/err")" -eq 1 && test ! -e "$tmp/x.png"
    ok $? "$* is refused with one line naming $want ($(head -1 "$tmp/err"))"
}
bad "--size '6x4ft'" --size 6x4ft
bad "--size '6x4': each side" --size 6x4
bad "--size '10x'" --size 10x
bad "--size '1.5x2'" --size 1.5x2
bad "--dpi 'abc'" --dpi abc
bad "--dpi '5'" --dpi 5
bad "--dpi '0'" --dpi 0
bad "--font-size '0'" --font-size 0
bad "--font-size 'big'" --font-size big
bad "--font-size '100'" --font-size 100
bad "--size '100x100in': each side must come to 16..16384 pixels at 300 dpi" --size 100x100in --dpi 300
bad "--size '0.1x0.1in'" --size 0.1x0.1in
tap_end
