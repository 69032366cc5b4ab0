#!/bin/bash
# How long the memory planner takes: `rangefinder memory` for every encoder
# (data/configs/listops-ENC.ini, on the random task so no data set is
# opened, data.batch = 1) at each length, one process per plan, printing
# the wall and CPU (user + system) seconds of each, its peak resident
# memory and the planned total; with RUNS > 1 each plan runs that many
# times and the least of each figure is printed (the machine may be
# shared). Target: every encoder plans at 1,048,576 tokens in under 10 s.
# RECOMPUTE sets train.recompute (off by default; with layers or segments
# `memory` plans the step both with and without it, and the time is of
# both).
#   [RF=build/rangefinder] [ENCODERS="full ls ..."] [RECOMPUTE=segments] [RUNS=3] bash bench/plan_time.sh [N...]
set -eu
cd "$(dirname "$0")/.."
RF=${RF:-build/rangefinder}
ENCODERS=${ENCODERS:-full ls linear talk blrp maelre}
RECOMPUTE=${RECOMPUTE:-off}
RUNS=${RUNS:-1}
LENGTHS=${*:-2000 65536 1048576}

grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name\s*: /CPU: /'
echo "train.recompute = $RECOMPUTE, least of $RUNS run(s), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %8s %8s %8s %9s %14s\n' encoder seq wall_s cpu_s rss_MiB planned
times=$(mktemp)
trap 'rm -f "$times"' EXIT
for enc in $ENCODERS; do
    for n in $LENGTHS; do
        best=""
        for _ in $(seq "$RUNS"); do
            planned=$(/usr/bin/time -o "$times" -f '%e %U %S %M' "$RF" memory --config "data/configs/listops-$enc.ini" \
                --set data.task=random --set data.batch=1 --set train.recompute="$RECOMPUTE" --seq "$n" --json |
                sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p')
            read -r wall user sys rss < "$times"
            best=$(awk -v b="$best" -v w="$wall" -v c="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" -v r="$rss" \
                'BEGIN { if (b == "") { print w, c, r; exit } split(b, x, " ");
                         print (w < x[1] ? w : x[1]), (c < x[2] ? c : x[2]), (r < x[3] ? r : x[3]) }')
        done
        read -r wall cpu rss <<< "$best"
        awk -v e="$enc" -v n="$n" -v w="$wall" -v c="$cpu" -v r="$rss" -v p="$planned" \
            'BEGIN { printf "%-8s %8d %8.2f %8.2f %9.0f %10.1f MiB\n", e, n, w, c, r / 1024, p / 1048576 }'
    done
done
