#!/bin/bash
# How long the memory planner takes: `rangefinder memory` for every encoder
# (data/configs/listops-ENC.ini, on the random task so no data set is
# opened, data.batch = 1) at each length, one process per plan, printing
# the wall and CPU seconds of each and the planned total. Target: every
# encoder plans at 1,048,576 tokens in under 10 s. RECOMPUTE sets
# train.recompute (off by default; with layers or segments `memory` plans
# the step both with and without it, and the time is of both).
#   [RF=build/rangefinder] [ENCODERS="full ls ..."] [RECOMPUTE=segments] bash bench/plan_time.sh [N...]
set -eu
cd "$(dirname "$0")/.."
RF=${RF:-build/rangefinder}
ENCODERS=${ENCODERS:-full ls linear talk blrp maelre}
RECOMPUTE=${RECOMPUTE:-off}
LENGTHS=${*:-2000 65536 1048576}

grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name\s*: /CPU: /'
echo "train.recompute = $RECOMPUTE"
printf '%-8s %8s %8s %8s %14s\n' encoder seq wall_s cpu_s planned
times=$(mktemp)
trap 'rm -f "$times"' EXIT
for enc in $ENCODERS; do
    for n in $LENGTHS; do
        planned=$(/usr/bin/time -o "$times" -f '%e %U' "$RF" memory --config "data/configs/listops-$enc.ini" \
            --set data.task=random --set data.batch=1 --set train.recompute="$RECOMPUTE" --seq "$n" --json |
            sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p')
        read -r wall cpu < "$times"
        awk -v e="$enc" -v n="$n" -v w="$wall" -v c="$cpu" -v p="$planned" \
            'BEGIN { printf "%-8s %8d %8.2f %8.2f %10.1f MiB\n", e, n, w, c, p / 1048576 }'
    done
done
