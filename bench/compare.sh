#!/bin/bash
# Rangefinder against PyTorch 1.13, one training step per encoder, on the
# ListOps benchmark configuration (data/configs/listops-full.ini: dim 64,
# ff 128, 8 heads, 2 layers, length 2000, batch 32, AdamW, clip 1.0) with
# random tokens (vocab 20, 10 classes). Full attention runs at batch 8 (as
# issue 2 specifies; at batch 32 it does not fit). Encoder settings: ls
# w 8 r 32 (DualLN), talk lmax = rmax = 31 (GLU), maelre blocks 1,1, blrp
# segment = latent = 100. The PyTorch models are bench/torch_models.py.
#
# PyTorch runs with its best CPU settings (issue 14 item 4):
# OMP_WAIT_POLICY=PASSIVE and jemalloc (LD_PRELOAD of Debian's
# libjemalloc2, when installed: `apt-get install libjemalloc2`); TORCH_ENV
# replaces them (TORCH_ENV= for none).
#
# Prints two markdown tables:
#   1. per encoder at N = 2000: ours s/step and FLOP efficiency (of this
#      CPU's cached f32 matrix-product peak, `bench --json`), torch s/step,
#      speed-up (torch / ours) and issue 14's target for it;
#   2. ours only at N = 8192, batch 4: ls, talk, blrp against full attention
#      (full plans about 16 GiB there: `rangefinder memory --seq 8192`).
#
# Usage, from the repository root after building:
#   bench/compare.sh                          # everything (takes a long while)
#   ENCODERS="ls talk" bench/compare.sh       # a subset (both tables)
#   LONG=0 bench/compare.sh                   # only the first table
# Other knobs: THREADS (2), STEPS (3 timed, after 1 warm-up), RF (the
# rangefinder binary), PY (a python with torch), LOGDIR (raw outputs), and
# for a quick smoke test of the script itself the sizes SEQ (2000), BATCH
# (32), FULL_BATCH (8), LONG_SEQ (8192), LONG_BATCH (4), e.g.
#   SEQ=256 BATCH=2 FULL_BATCH=2 LONG_SEQ=512 LONG_BATCH=1 STEPS=1 bench/compare.sh
set -u
cd "$(dirname "$0")/.." || exit 1

ENCODERS=${ENCODERS:-full ls talk linear maelre blrp}
THREADS=${THREADS:-2}
STEPS=${STEPS:-3}
LONG=${LONG:-1}
SEQ=${SEQ:-2000}
BATCH=${BATCH:-32}
FULL_BATCH=${FULL_BATCH:-8}
LONG_SEQ=${LONG_SEQ:-8192}
LONG_BATCH=${LONG_BATCH:-4}
RF=${RF:-./build/rangefinder}
PY=${PY:-/usr/bin/python3}
LOGDIR=${LOGDIR:-$(mktemp -d /tmp/rf-compare.XXXXXX)}
mkdir -p "$LOGDIR" || exit 1
JEMALLOC=${JEMALLOC:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2}
if [ -z "${TORCH_ENV+set}" ]; then
    TORCH_ENV="OMP_WAIT_POLICY=PASSIVE"
    if [ -f "$JEMALLOC" ]; then
        TORCH_ENV="$TORCH_ENV LD_PRELOAD=$JEMALLOC"
    else
        echo "note: $JEMALLOC not found (apt-get install libjemalloc2): PyTorch runs on glibc's malloc" >&2
    fi
fi

# Issue 14's speed-up targets against PyTorch's best CPU settings.
target() {
    case $1 in
        ls | full) echo "5x" ;;
        blrp) echo "10x" ;;
        *) echo "3x" ;;
    esac
}

# The --set options that select an encoder's benchmark settings.
encoder_sets() {
    case $1 in
        ls) echo "--set model.window=8 --set model.rank=32 --set model.dual_ln=on" ;;
        talk) echo "--set model.lmax=31 --set model.rmax=31 --set model.glu=on" ;;
        maelre) echo "--set model.blocks=1,1" ;;
        blrp) echo "--set model.segment=100 --set model.latent=100" ;;
    esac
}

# field KEY < json-lines: KEY of the last JSON line, or nothing.
field() {
    "$PY" -c '
import json, sys
lines = [l for l in sys.stdin.read().splitlines() if l.startswith("{")]
v = json.loads(lines[-1]).get(sys.argv[1]) if lines else None
print("" if v is None else v)' "$1" 2>/dev/null
}

# ours ENCODER BATCH SEQ: rangefinder bench's JSON line (log in $LOGDIR).
ours() {
    local log="$LOGDIR/ours-$1-b$2-n$3.log"
    # shellcheck disable=SC2046  # encoder_sets is a list of words
    "$RF" bench --config data/configs/listops-full.ini \
        --set data.task=random --set data.vocab=20 --set data.train_size=200 \
        --set data.min_len=1 --set data.max_len="$3" --set data.batch="$2" --set train.threads="$THREADS" \
        --set model.encoder="$1" $(encoder_sets "$1") \
        --steps "$STEPS" --warmup 1 --json >"$log" 2>&1
    cat "$log"
}

# torch ENCODER BATCH SEQ: torch_reference.py's JSON line (log in $LOGDIR).
torch_ref() {
    local log="$LOGDIR/torch-$1-b$2-n$3.log"
    # shellcheck disable=SC2086  # TORCH_ENV is a list of NAME=VALUE words
    env $TORCH_ENV "$PY" bench/torch_reference.py --encoder "$1" --batch "$2" --seq "$3" \
        --threads "$THREADS" --steps "$STEPS" >"$log" 2>&1
    cat "$log"
}

ratio() {   # ratio A B: A / B to two decimals, or "n/a"
    if [ -n "$1" ] && [ -n "$2" ]; then
        "$PY" -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.2f}x")' "$1" "$2"
    else
        echo "n/a"
    fi
}

secs() {    # seconds to three decimals, or "failed"
    if [ -n "$1" ]; then printf '%.3f' "$1"; else echo "failed"; fi
}

gib() {     # bytes to GiB, two decimals, or "-"
    if [ -n "$1" ]; then "$PY" -c 'import sys; print(f"{int(sys.argv[1]) / 2**30:.2f}")' "$1"; else echo "-"; fi
}

pct() {      # a fraction as a percentage, or "-"
    if [ -n "$1" ]; then "$PY" -c 'import sys; print(f"{100 * float(sys.argv[1]):.1f}%")' "$1"; else echo "-"; fi
}

echo "Training step, N = $SEQ, $THREADS threads, median of $STEPS steps after 1 warm-up (logs: $LOGDIR)"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); PyTorch environment: ${TORCH_ENV:-none}"
echo
echo "| encoder | batch | ours s/step | efficiency | torch s/step | speed-up | target |"
echo "|---|---|---|---|---|---|---|"
for enc in $ENCODERS; do
    batch=$BATCH
    [ "$enc" = full ] && batch=$FULL_BATCH
    out=$(ours "$enc" "$batch" "$SEQ")
    a=$(echo "$out" | field step_s_median)
    eff=$(echo "$out" | field efficiency)
    b=$(torch_ref "$enc" "$batch" "$SEQ" | field step_s_median)
    echo "| $enc | $batch | $(secs "$a") | $(pct "$eff") | $(secs "$b") | $(ratio "$b" "$a") | $(target "$enc") |"
done

[ "$LONG" = 0 ] && exit 0
echo
echo "Ours only, N = $LONG_SEQ, batch $LONG_BATCH: the long-range encoders against full attention"
echo
echo "| encoder | s/step | tokens/s | planned GiB | peak RSS GiB | speed-up vs full |"
echo "|---|---|---|---|---|---|"
full_s=""
long=""
for enc in full ls talk blrp; do   # full first: the others are measured against it
    case " $ENCODERS " in *" $enc "*) long="$long $enc" ;; esac
done
for enc in $long; do
    out=$(ours "$enc" "$LONG_BATCH" "$LONG_SEQ")
    s=$(echo "$out" | field step_s_median)
    tps=$(echo "$out" | field tokens_per_s)
    plan=$(echo "$out" | field planned_bytes)
    rss=$(echo "$out" | field peak_rss_bytes)
    [ "$enc" = full ] && full_s=$s
    [ -n "$tps" ] && tps=$(printf '%.0f' "$tps")
    echo "| $enc | $(secs "$s") | ${tps:-"-"} | $(gib "$plan") | $(gib "$rss") | $(ratio "$full_s" "$s") |"
done
