#!/bin/bash
# Training at long lengths, up to a million tokens: `rangefinder bench` for
# every encoder (data/configs/listops-ENC.ini on the random task, so no data
# set is opened; data.batch = 1) at each length, printing step time,
# tokens/s, planned memory, the engine's measured peak and the process's
# peak RSS (the 24 GiB target is on RSS). Full attention stops at 131,072
# tokens (its flash kernel is quadratic in time); BLRP runs with
# train.recompute = segments from 65,536 tokens on, where its stored
# activations would not fit (docs/configuration.md). One JSON line per
# run goes to $OUT (default bench/million.jsonl) as it finishes, so an
# interrupted sweep keeps what it measured. DEVICE=cuda runs them on the GPU
# (peak_device_bytes is then the device's measured peak); TIMEOUT=S stops a
# run after S seconds.
#   [RF=build-rel/rangefinder] [ENCODERS="ls linear ..."] [STEPS=3] [DEVICE=cpu] [TIMEOUT=S] bash bench/million.sh [N...]
set -eu
cd "$(dirname "$0")/.."
RF=${RF:-build-rel/rangefinder}
ENCODERS=${ENCODERS:-ls linear talk maelre blrp full}
STEPS=${STEPS:-3}
OUT=${OUT:-bench/million.jsonl}
LENGTHS=${*:-2048 16384 131072 1048576}
DEVICE=${DEVICE:-cpu}

grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name\s*: /CPU: /'
[ "$DEVICE" = cpu ] || echo "GPU: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader)"
printf '%-7s %8s %10s %10s %10s %10s %10s %9s\n' encoder seq recompute s/step tokens/s planned peak rss
for enc in $ENCODERS; do
    for n in $LENGTHS; do
        if [ "$enc" = full ] && [ "$n" -gt 131072 ]; then continue; fi
        recompute=off
        if [ "$enc" = blrp ] && [ "$n" -ge 65536 ]; then recompute=segments; fi
        line=$(${TIMEOUT:+timeout "$TIMEOUT"} "$RF" bench --config "data/configs/listops-$enc.ini" --set data.task=random --set data.batch=1 \
            --set data.max_len="$n" --set train.recompute="$recompute" --set train.device="$DEVICE" --steps "$STEPS" --warmup 1 --json) || {
            echo "$enc $n: bench failed" >&2
            continue
        }
        echo "$line" >> "$OUT"
        echo "$line" | python3 -c '
import json, sys
r = json.load(sys.stdin)
g = 1 << 30
peak = r.get("peak_device_bytes", r["peak_engine_bytes"])
print("%-7s %8d %10s %10.3f %10.0f %8.2f G %8.2f G %7.2f G" % (r["encoder"], r["seq"], r["recompute"],
      r["step_s_median"], r["tokens_per_s"], r["planned_bytes"] / g, peak / g, r["peak_rss_bytes"] / g))'
    done
done
