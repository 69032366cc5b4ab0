#!/bin/sh
# train.precision = bf16 against f32 (issue 14 item 6): the same run twice,
# once per precision, on a 1,000-step ListOps run (LS) and on the shipped
# Fashion-MNIST config, then each run's test accuracy and wall time.
#
#   bench/bf16_accuracy.sh [OUT_DIR]      (default /tmp/rf-bf16)
#
# RF (default ./build/rangefinder) is the binary. Takes about 1 h on 2 cores.
set -eu
RF=${RF:-./build/rangefinder}
OUT=${1:-/tmp/rf-bf16}
mkdir -p "$OUT"

run() {   # name config precision [--set ...]
    name=$1 config=$2 precision=$3
    shift 3
    dir="$OUT/$name-$precision"
    if [ -f "$dir/metrics.csv" ] && grep -q ',test,' "$dir/metrics.csv"; then
        return 0   # finished earlier
    fi
    rm -rf "$dir"
    "$RF" train --config "$config" --set train.precision="$precision" "$@" --out "$dir" >"$OUT/$name-$precision.log" 2>&1
}

for p in f32 bf16; do
    run listops-ls data/configs/listops-ls.ini "$p" --set train.steps=1000 --set train.eval_every=250
done
for p in f32 bf16; do
    run fashion-mnist data/configs/fashion-mnist-full.ini "$p"
done

printf '%-16s %-5s %10s %10s %10s\n' run precision "test acc" "val acc" seconds
for name in listops-ls fashion-mnist; do
    for p in f32 bf16; do
        m="$OUT/$name-$p/metrics.csv"
        test=$(grep ',test,' "$m" | tail -1 | cut -d, -f4)
        val=$(grep ',val,' "$m" | tail -1 | cut -d, -f4)
        secs=$(tail -1 "$m" | cut -d, -f6)
        printf '%-16s %-5s %10s %10s %10s\n' "$name" "$p" "$test" "$val" "$secs"
    done
done
