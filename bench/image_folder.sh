#!/usr/bin/env bash
# Issue 17's speed targets for image_folder: how long `rangefinder memory`
# (the cheapest verb that opens the data: it plans, trains nothing) takes to
# open
#   small:  60,000 PNGs of 28x28 in 10 class folders (target: under 10 s)
#   photos: 1,000 JPEGs of 4000x3000 (12 MP), resized to 64x64 (under 30 s)
# The folders are written once by bench/make_images (about 30 s and 3 GB)
# and kept; the first open after writing them reads from the page cache.
#
#   bench/image_folder.sh [BUILD]     default build; folders in $RF_BENCH_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dir=${RF_BENCH_DIR:-/tmp/rf-bench-images}
ninja -C "$build" rangefinder bench/make_images >/dev/null
[ -d "$dir/small" ] || "$build/bench/make_images" "$dir/small" 60000 28 28 png 10
[ -d "$dir/photos" ] || "$build/bench/make_images" "$dir/photos" 1000 4000 3000 jpeg 10

open_folder() {   # open_folder NAME PATH SIDE
    echo "== $1: $("$build/rangefinder" --version 2>/dev/null | head -1)"
    /usr/bin/time -f "$1: %e s wall, %U s user, %S s sys, %M KiB peak" \
        "$build/rangefinder" memory -c data/configs/default.ini --set data.task=image_folder \
        --set data.path="$2" --set data.image_size="$3" --set data.channels=rgb --seq 784 2>&1 >/dev/null
}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
open_folder small "$dir/small" 28
open_folder photos "$dir/photos" 64
