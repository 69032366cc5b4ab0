#!/bin/bash
# Rangefinder against today's PyTorch (2.x from PyPI) and Debian's PyTorch
# 1.13, one training step per encoder, on the ListOps benchmark
# configuration (data/configs/listops-full.ini: dim 64, ff 128, 8 heads, 2
# layers, length 2000, batch 32, AdamW, clip 1.0) with random tokens (vocab
# 20, 10 classes). Full attention runs at batch 8 (at batch 32 it does not
# fit). Encoder settings: ls w 8 r 32 (DualLN), talk lmax = rmax = 31 (GLU),
# maelre blocks 1,1, blrp segment = latent = 100. The PyTorch models are
# bench/torch_models.py.
#
# PyTorch 2.x runs three ways, and the best of them is the bar:
#   eager     the models as written;
#   SDPA      attention through F.scaled_dot_product_attention, PyTorch's
#             fused CPU kernel (the encoders that use dot-product attention:
#             full, maelre, blrp);
#   compiled  torch.compile of the SDPA model (compilation happens in two
#             untimed warm-up steps).
# It lives in a virtual environment outside the tree, made on first use
# (`pip install torch`: the Linux wheels carry CUDA libraries, about 5 GB):
# TORCH2_VENV (default ~/.cache/rangefinder-bench/torch2-venv); TORCH2=0
# leaves PyTorch 2.x out. PyTorch 1.13 is Debian's python3-torch
# (PY113=/usr/bin/python3; TORCH113=0 leaves it out).
#
# Both run with their best CPU settings: OMP_WAIT_POLICY=PASSIVE and
# jemalloc (LD_PRELOAD of Debian's libjemalloc2, when installed:
# `apt-get install libjemalloc2`); TORCH_ENV replaces them (TORCH_ENV= for
# none).
#
# Prints two markdown tables:
#   1. per encoder at N = 2000: ours s/step and FLOP efficiency (of this
#      CPU's cached f32 matrix-product peak, `bench --json`), ours with
#      train.precision = bf16 and its speed-up over ours in f32 (on CPUs
#      with AVX512-BF16 or AMX-BF16; BF16=0 leaves it out), PyTorch 2.x
#      eager, SDPA and compiled s/step, the best of them divided by ours,
#      and PyTorch 1.13 divided by ours. Each encoder's runs repeat ROUNDS
#      times (default 2) in turn, ours then PyTorch's, so that a slow
#      phase of the machine falls on both sides: a cell is the median of
#      the rounds' medians with their range in brackets, and a ratio is
#      taken within each round (that round's best PyTorch 2 over ours),
#      its median and range likewise;
#   2. ours only at N = 8192, batch 4: ls, talk, blrp against full attention
#      (full plans about 16 GiB there: `rangefinder memory --seq 8192`).
#
# Usage, from the repository root after building:
#   bench/compare.sh                          # everything (takes a long while)
#   ENCODERS="ls talk" bench/compare.sh       # a subset (both tables)
#   LONG=0 bench/compare.sh                   # only the first table
# Other knobs: THREADS (2), STEPS (3 timed, after the warm-up), ROUNDS, RF (the
# rangefinder binary), LOGDIR (raw outputs), and for a quick smoke test of
# the script itself the sizes SEQ (2000), BATCH (32), FULL_BATCH (8),
# LONG_SEQ (8192), LONG_BATCH (4), e.g.
#   SEQ=256 BATCH=2 FULL_BATCH=2 LONG_SEQ=512 LONG_BATCH=1 STEPS=1 bench/compare.sh
set -u
cd "$(dirname "$0")/.." || exit 1

ENCODERS=${ENCODERS:-full ls talk linear maelre blrp}
THREADS=${THREADS:-2}
STEPS=${STEPS:-3}
ROUNDS=${ROUNDS:-2}
ROUND=1                                   # the round running (log names)
LONG=${LONG:-1}
SEQ=${SEQ:-2000}
BATCH=${BATCH:-32}
FULL_BATCH=${FULL_BATCH:-8}
LONG_SEQ=${LONG_SEQ:-8192}
LONG_BATCH=${LONG_BATCH:-4}
RF=${RF:-./build/rangefinder}
PY=/usr/bin/python3                       # for the script's own JSON and arithmetic
PY113=${PY113:-/usr/bin/python3}
TORCH113=${TORCH113:-1}
TORCH2=${TORCH2:-1}
BF16=${BF16:-1}
grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo || BF16=0   # elsewhere train.precision = bf16 is refused
TORCH2_VENV=${TORCH2_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rangefinder-bench/torch2-venv}
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

# ours ENCODER BATCH SEQ [PRECISION]: rangefinder bench's JSON line (log in
# $LOGDIR), in f32 or PRECISION.
ours() {
    local precision=${4:-f32}
    local log="$LOGDIR/ours-$1-b$2-n$3-$precision-r$ROUND.log"
    # shellcheck disable=SC2046  # encoder_sets is a list of words
    "$RF" bench --config data/configs/listops-full.ini \
        --set data.task=random --set data.vocab=20 --set data.train_size=200 \
        --set data.min_len=1 --set data.max_len="$3" --set data.batch="$2" --set train.threads="$THREADS" \
        --set model.encoder="$1" $(encoder_sets "$1") --set train.precision="$precision" \
        --steps "$STEPS" --warmup 1 --json >"$log" 2>&1
    cat "$log"
}

# torch PYTHON TAG ENCODER BATCH SEQ [FLAGS]: torch_reference.py's JSON line
# (log in $LOGDIR).
torch_ref() {
    local py=$1 tag=$2 enc=$3 batch=$4 seq=$5
    shift 5
    local log="$LOGDIR/torch$tag-$enc-b$batch-n$seq-r$ROUND.log"
    # shellcheck disable=SC2086  # TORCH_ENV is a list of NAME=VALUE words
    env $TORCH_ENV "$py" bench/torch_reference.py --encoder "$enc" --batch "$batch" --seq "$seq" \
        --threads "$THREADS" --steps "$STEPS" "$@" >"$log" 2>&1
    cat "$log"
}

# Uses dot-product attention, so SDPA can replace it.
has_sdpa() { case $1 in full | maelre | blrp) return 0 ;; *) return 1 ;; esac; }

# PyTorch 2.x's interpreter, making its virtual environment on first use.
torch2_python() {
    local py="$TORCH2_VENV/bin/python"
    if ! "$py" -c 'import torch, sys; sys.exit(int(torch.__version__.split(".")[0]) < 2)' 2>/dev/null; then
        echo "making $TORCH2_VENV with PyTorch 2.x from PyPI (about 5 GB, once)" >&2
        /usr/bin/python3 -m venv "$TORCH2_VENV" >&2 &&
            "$TORCH2_VENV/bin/pip" install -q "torch>=2,<3" numpy >&2 || return 1
    fi
    echo "$py"
}

best() {    # best A B C...: the smallest number among them, or "-" when none
    "$PY" -c 'import sys; v = [float(a) for a in sys.argv[1:] if a not in ("", "-")]; print(min(v) if v else "-")' "$@"
}

# cell KIND VALUES...: the rounds' values as one cell, KIND s (seconds to
# three decimals), pct (a fraction as a percentage) or x (a ratio, two
# decimals): the median, then with two or more the range in brackets;
# "-" when all are "-" (left out), "failed" when any is empty or "n/a".
cell() {
    "$PY" -c '
import statistics, sys
kind, vals = sys.argv[1], sys.argv[2:]
fmt = {"s": "{:.3f}", "pct": "{:.1%}", "x": "{:.2f}x"}[kind]
if all(v == "-" for v in vals):
    print("-")
elif any(v in ("", "n/a") for v in vals):
    print("failed")
else:
    v = [float(a) for a in vals if a != "-"]
    out = fmt.format(statistics.median(v))
    print(out if len(v) < 2 else f"{out} ({fmt.format(min(v))}-{fmt.format(max(v))})")' "$@"
}

quotient() {   # quotient A B: A / B; "-" when either was left out, "n/a" when either failed
    if [ "$1" = - ] || [ "$2" = - ]; then
        echo "-"
    elif [ -n "$1" ] && [ -n "$2" ]; then
        "$PY" -c 'import sys; print(float(sys.argv[1]) / float(sys.argv[2]))' "$1" "$2"
    else
        echo "n/a"
    fi
}

ratio() {   # ratio A B: A / B to two decimals, or "n/a"
    if [ -n "$1" ] && [ -n "$2" ] && [ "$1" != - ]; then
        "$PY" -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.2f}x")' "$1" "$2"
    else
        echo "n/a"
    fi
}

secs() {    # seconds to three decimals, "-" (left out) as it is, or "failed"
    case $1 in
        -) echo "-" ;;
        "") echo "failed" ;;
        *) printf '%.3f' "$1" ;;
    esac
}

gib() {     # bytes to GiB, two decimals, or "-"
    if [ -n "$1" ]; then "$PY" -c 'import sys; print(f"{int(sys.argv[1]) / 2**30:.2f}")' "$1"; else echo "-"; fi
}


PY2=""
if [ "$TORCH2" != 0 ]; then
    PY2=$(torch2_python) || { echo "no PyTorch 2.x: the environment could not be made (TORCH2=0 to go without)" >&2; exit 1; }
fi
v2=""; v113=""
[ -n "$PY2" ] && v2=$("$PY2" -c 'import torch; print(torch.__version__.split("+")[0])')
[ "$TORCH113" != 0 ] && v113=$("$PY113" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null)

echo "Training step, N = $SEQ, $THREADS threads, median of $STEPS steps after the warm-up, $ROUNDS rounds (logs: $LOGDIR)"
cpu_field() { grep -m1 "^$1" /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'; }
echo "CPU: $(cpu_field 'model name') (family $(cpu_field 'cpu family'), model $(cpu_field 'model\s*:')); PyTorch ${v2:-"2.x left out"} and ${v113:-"1.13 left out"}; PyTorch environment: ${TORCH_ENV:-none}"
echo
[ "$BF16" = 0 ] && printf '%s\n\n' "bf16 left out (BF16=0, or this CPU has neither AVX512-BF16 nor AMX-BF16)"
echo "| encoder | batch | ours s/step | efficiency | ours bf16 | bf16 speed-up | PyTorch 2 eager | PyTorch 2 SDPA | PyTorch 2 compiled | best PyTorch 2 ÷ ours | PyTorch 1.13 | 1.13 ÷ ours |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for enc in $ENCODERS; do
    batch=$BATCH
    [ "$enc" = full ] && batch=$FULL_BATCH
    ours_s=(); effs=(); bf16s=(); ups=(); eagers=(); sdpas=(); compileds=(); olds=(); ratios2=(); ratios113=()
    for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
        out=$(ours "$enc" "$batch" "$SEQ")
        a=$(echo "$out" | field step_s_median)
        eff=$(echo "$out" | field efficiency)
        a16=-
        [ "$BF16" != 0 ] && a16=$(ours "$enc" "$batch" "$SEQ" bf16 | field step_s_median)
        eager=-; sdpa=-; compiled=-; old=-
        if [ -n "$PY2" ]; then
            eager=$(torch_ref "$PY2" 2 "$enc" "$batch" "$SEQ" | field step_s_median)
            flags=""
            if has_sdpa "$enc"; then
                sdpa=$(torch_ref "$PY2" 2-sdpa "$enc" "$batch" "$SEQ" --sdpa | field step_s_median)
                flags=--sdpa
            fi
            # shellcheck disable=SC2086  # flags is empty or one word
            compiled=$(torch_ref "$PY2" 2-compile "$enc" "$batch" "$SEQ" --compile $flags | field step_s_median)
        fi
        [ -n "$v113" ] && old=$(torch_ref "$PY113" 113 "$enc" "$batch" "$SEQ" | field step_s_median)
        b=$(best "$eager" "$sdpa" "$compiled")
        ours_s+=("$a"); effs+=("${eff:--}"); bf16s+=("$a16"); ups+=("$(quotient "$a" "$a16")"); eagers+=("$eager"); sdpas+=("$sdpa"); compileds+=("$compiled"); olds+=("$old")
        ratios2+=("$(quotient "$b" "$a")"); ratios113+=("$(quotient "$old" "$a")")
    done
    echo "| $enc | $batch | $(cell s "${ours_s[@]}") | $(cell pct "${effs[@]}") | $(cell s "${bf16s[@]}") | $(cell x "${ups[@]}") | $(cell s "${eagers[@]}") | $(cell s "${sdpas[@]}") | $(cell s "${compileds[@]}") | $(cell x "${ratios2[@]}") | $(cell s "${olds[@]}") | $(cell x "${ratios113[@]}") |"
done
ROUND=1

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
