#!/usr/bin/env bash
# The `rangefinder` command line end to end (TAP): a tiny training run and
# what it writes, resume, eval, bench, memory, inspect, make-dataset,
# config, Ctrl-C, and bad input that must give one clear error line and exit
# 1 (2 for usage errors), never a crash. Every command's exit status is checked.
#
#   tests/test_cli.sh PATH/TO/rangefinder [SCRATCH_PARENT_DIR]
set -u

rf=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
configs=$here/../data/configs
tmp=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/rf-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cwd=$tmp/cwd     # commands run here, so relative outputs (runs/...) can be checked
mkdir "$cwd"
# bench caches this CPU's matrix-product peak here, not in the user's cache
export XDG_CACHE_HOME=$tmp/cache

. "$here/cli_tap.sh"

# check NAME COMMAND...: ok if COMMAND succeeds.
check() {
    local name=$1
    shift
    "$@"
    ok $? "$name"
}

# The last stdout line has "key": for every KEY.
json_has() {
    local line
    line=$(tail -n 1 "$tmp/out")
    [[ $line == \{*\} ]] || return 1
    for key in "$@"; do
        [[ $line == *"\"$key\":"* ]] || return 1
    done
}

# skip NAME REASON: a TAP line for a check this machine cannot make.
skip() {
    count=$((count + 1))
    echo "ok $count - $1 # SKIP $2"
}

# numpy for .npy checks: /usr/bin/python3 when it has it.
py=/usr/bin/python3
have_numpy=0
"$py" -c 'import numpy' 2>/dev/null && have_numpy=1

# npy_check NAME PYTHON-CODE: run it with numpy as np and `a` the array in
# the file $npy (skipped without numpy).
npy_check() {
    local name=$1 code=$2
    if [ "$have_numpy" -eq 0 ]; then
        skip "$name" "numpy is not installed for $py"
        return
    fi
    last_cmd="python3 check of $npy"
    "$py" -c "import numpy as np, sys; a = np.load(sys.argv[1]); $code" "$npy" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    ok $rc "$name"
}

# An .npy header without numpy: magic, version 1.0, '<f4', data aligned to 64 bytes.
npy_header_ok() {
    [ "$(head -c 8 "$1" | od -An -t x1 | tr -d ' \n')" = 934e554d50590100 ] || return 1
    local len
    len=$(od -An -t u2 -j 8 -N 2 "$1" | tr -d ' ')
    [ $(((10 + len) % 64)) -eq 0 ] && head -c $((10 + len)) "$1" | grep -q "'descr': '<f4'"
}

# failed_cleanly RC PATTERN...: the last command exited RC (1: failed, 2:
# usage error) with one line "rangefinder: ..." on stderr containing every
# PATTERN (fixed strings).
failed_cleanly() {
    [ "$rc" -eq "$1" ] || return 1
    shift
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || return 1
    grep -q '^rangefinder: ' "$tmp/err" || return 1
    for pattern in "$@"; do
        grep -qF -- "$pattern" "$tmp/err" || return 1
    done
}

# expect_error RC NAME 'PATTERN|PATTERN' ARGS...: rangefinder ARGS exits RC
# and fails cleanly.
expect_error() {
    local want=$1 name=$2 patterns=$3
    shift 3
    run "$@"
    IFS='|' read -r -a list <<<"$patterns"
    failed_cleanly "$want" "${list[@]}"
    ok $? "$name"
}

rows() {   # rows FILE SPLIT: number of rows of that split
    grep -c ",$2," "$1"
}

cat >"$tmp/tiny.ini" <<'EOF'
# A tiny ListOps job for the CLI tests.
[data]
task = listops

[train]
seed = 3
EOF
tiny=(--set data.max_len=60 --set data.min_len=10 --set data.train_size=64 --set data.val_size=16
      --set data.test_size=16 --set data.batch=4 --set model.dim=16 --set model.heads=2 --set model.ff=32
      --set train.steps=6 --set train.eval_every=3 --set train.checkpoint_every=3 --set train.log_every=2
      --set train.threads=1)
dir=$tmp/run
header='step,split,loss,accuracy,lr,seconds'

# --- version, help and usage -----------------------------------------------
# --version: `rangefinder VERSION (git REVISION)` in a git checkout, where
# REVISION is HEAD's (git describe: a tag and count, then the abbreviated
# hash; "-dirty" with uncommitted changes), `rangefinder VERSION` outside one;
# then the CPU the timed choices are kept under and RF_TILES.
run --version
expect_rc 0 "--version exits 0"
version=$(sed -n "s/^  version: '\(.*\)',$/\1/p" "$here/../meson.build")
version_ok() {
    local line
    line=$(head -n 1 "$tmp/out")
    [ "$(wc -l <"$tmp/out")" -eq 2 ] && sed -n 2p "$tmp/out" | grep -q '^CPU .*; attention tiles RF_TILES = ' || return 1
    if [ -e "$here/../.git" ] && command -v git >/dev/null; then
        local head hash
        head=$(git -C "$here/.." rev-parse HEAD) || return 1
        [[ $line =~ ^rangefinder\ ([0-9]+\.[0-9]+\.[0-9]+)\ \(git\ (.*-g)?([0-9a-f]{12})(-dirty)?\)$ ]] || return 1
        hash=${BASH_REMATCH[3]}
        [ "${BASH_REMATCH[1]}" = "$version" ] && [ "${head#"$hash"}" != "$head" ]
    else
        [ "$line" = "rangefinder $version" ]
    fi
}
check "--version prints \"rangefinder $version (git REVISION)\" naming HEAD's revision (the version alone outside a git checkout), then the CPU" version_ok
run --help
expect_rc 0 "--help exits 0"
missing=0
for verb in train eval bench memory config inspect predict make-dataset; do grep -q "^  $verb " "$tmp/out" || missing=1; done
ok $missing "--help lists train, eval, bench, memory, config, inspect, predict, make-dataset"
run train --help
expect_rc 0 "train --help exits 0"
check "train --help describes --resume" grep -q -- '--resume' "$tmp/out"
run gui --help
expect_rc 0 "gui --help exits 0"
check "gui --help describes --runs and the default runs folder" grep -q -- '--runs DIR.*rangefinder/runs' <(tr '\n' ' ' <"$tmp/out")
expect_error 2 "gui with an unknown argument is a usage error" "unexpected argument '--frobnicate'" gui --runs "$tmp" --frobnicate
expect_error 2 "an unknown verb is a usage error" "unknown verb 'frobnicate'" frobnicate
# The exit checks can fail. In a subshell (its TAP line captured, not
# counted) expect_rc 0 after this exit-2 command must say "not ok" and show
# the output, expect_rc 2 "ok"; failed_cleanly must refuse exit 1.
mismatch=$(expect_rc 0 "self-test")
[[ $mismatch == "not ok "*"exit 2 (expected 0)"*"unknown verb"* && $(expect_rc 2 "self-test") == "ok "* ]] &&
    ! failed_cleanly 1 "unknown verb"
ok $? "expect_rc and failed_cleanly report a wrong exit status"
expect_error 2 "gui with a file that is not there names it" "gui: $tmp/missing.safetensors: no such file or folder" \
    gui "$tmp/missing.safetensors"
expect_error 2 "train without --config is a usage error" "--config" train
expect_error 2 "an unknown option is a usage error" "--frobnicate" train --frobnicate

# --- a tiny run --------------------------------------------------------------
run train --config "$tmp/tiny.ini" "${tiny[@]}" --out "$dir"
expect_rc 0 "a tiny training run exits 0"
check "metrics.csv starts with the header" test "$(head -n 1 "$dir/metrics.csv")" = "$header"
check "metrics.csv has train rows every log_every steps" test "$(rows "$dir/metrics.csv" train)" -eq 3
check "metrics.csv has val rows at each evaluation" test "$(rows "$dir/metrics.csv" val)" -eq 2
check "metrics.csv ends with the test row at step 6" grep -q '^6,test,' "$dir/metrics.csv"
keys=$("$rf" config --list | wc -l)
check "config.ini holds every key" test "$(grep -c '^[a-z_0-9]*=' "$dir/config.ini")" -eq "$keys"
check "config.ini holds the overrides" grep -qx 'dim=16' "$dir/config.ini"
check "checkpoint.safetensors is written" test -s "$dir/checkpoint.safetensors"
check "baselines.ini holds the validation split's two baselines (token data)" \
    grep -Eq '^first_token=(0(\.[0-9]+)?|1)$' "$dir/baselines.ini"
check "the last line is the JSON summary" json_has status steps train_loss val_accuracy test_accuracy \
    test_loss seconds checkpoint planned_bytes peak_engine_bytes peak_rss_bytes
check "the summary says finished after 6 steps" grep -q '"status":"finished","steps":6,' "$tmp/out"
check "plain progress lines when stdout is not a terminal" \
    grep -q '^step 2/6 loss [0-9.]* acc [0-9.]* lr ' "$tmp/out"
check "a small run's baselines are measured without a word about them" \
    test "$(grep -c 'measuring the data' "$tmp/out")" -eq 0

# Baselines over 2 billion training tokens take seconds to minutes: a line
# says so before the wait (62,000 random samples of 32,768 tokens) ...
long_data=(--set data.max_len=32768 --set data.min_len=0 --set data.train_size=62000 --set data.val_size=2
           --set data.test_size=2 --set data.batch=1 --set model.encoder=linear --set train.steps=1
           --set train.warmup=0)
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set data.task=random "${long_data[@]}" --out "$tmp/long-baselines"
expect_rc 0 "a random-task run of 32,768 tokens trains a step"
check "and said it was measuring its baselines first" \
    grep -q '^measuring the data.s baselines (baselines.ini) on 62000 training samples of up to 32768 tokens$' \
    "$tmp/out"
# ... but long_match gives each sample's first token and label alone, at once
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set data.task=long_match "${long_data[@]}" \
    --out "$tmp/long-match-baselines"
expect_rc 0 "a long_match run of 32,768 tokens trains a step"
check "and measured its baselines without a word about them" \
    sh -c "grep -q '^first_token=' '$tmp/long-match-baselines/baselines.ini' && ! grep -q 'measuring the data' '$tmp/out'"

expect_error 1 "a second run into the same directory is refused" "--resume" \
    train --config "$tmp/tiny.ini" "${tiny[@]}" --out "$dir"

# --- resume ------------------------------------------------------------------
cp "$dir/metrics.csv" "$tmp/metrics.before"
expect_error 1 "resume refuses a change of model.dim" "model.dim" train --resume "$dir" --set model.dim=32
expect_error 1 "resume refuses a change of the data" "data.train_size" \
    train --resume "$dir" --set data.train_size=128 --set train.steps=9
check "a refused resume leaves metrics.csv alone" cmp -s "$dir/metrics.csv" "$tmp/metrics.before"
expect_error 1 "resume of a finished run asks for more steps" "train.steps" train --resume "$dir"

run train --resume "$dir" --set train.steps=9
expect_rc 0 "resume to 9 steps exits 0"
check "resume keeps one header" test "$(grep -c '^step,' "$dir/metrics.csv")" -eq 1
check "resume appends rows up to step 9" grep -q '^9,test,' "$dir/metrics.csv"
check "rows before the resume are kept" grep -q '^6,test,' "$dir/metrics.csv"
check "the summary says 9 steps" grep -q '"steps":9,' "$tmp/out"
check "config.ini records the new train.steps" grep -qx 'steps=9' "$dir/config.ini"
check "a resumed run's engine peak is within its plan (the checkpoint is read a tensor at a time, outside it)" \
    python3 -c 'import json, sys; s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); assert s["peak_engine_bytes"] <= s["planned_bytes"], s' "$tmp/out"
# --- a new run from a checkpoint's weights (--init) ---------------------------
expect_error 2 "--init with --resume is a usage error" "--init" \
    train --resume "$dir" --init "$dir/checkpoint.safetensors"
expect_error 1 "--init from a model of another width names a tensor that differs" "checkpoint.safetensors|shape" \
    train --config "$tmp/tiny.ini" "${tiny[@]}" --set model.dim=32 --init "$dir/checkpoint.safetensors" \
    --out "$tmp/init-wide"
check "a refused --init writes no run folder" test ! -e "$tmp/init-wide/metrics.csv"
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set train.steps=3 --init "$dir/checkpoint.safetensors" \
    --out "$tmp/init-run"
expect_rc 0 "a run started from a checkpoint's weights (--init) exits 0"
check "--init starts at step 0 (the checkpoint's is 9): its rows run from step 2 to 3" \
    test "$(sed -n 2p "$tmp/init-run/metrics.csv" | cut -d, -f1)" = 2 -a -n "$(grep '^3,test,' "$tmp/init-run/metrics.csv")"
check "init.ini names the source checkpoint by its absolute path" \
    grep -qx "checkpoint=$(realpath "$dir/checkpoint.safetensors")" "$tmp/init-run/init.ini"
check "init.ini records the step the source checkpoint had reached (9)" grep -qx 'step=9' "$tmp/init-run/init.ini"
check "a run not started with --init has no init.ini" test ! -e "$dir/init.ini"
# --- a curriculum (train.curriculum, core/curriculum.h) -----------------------
# Two short stages, then the run's own config: the same as three runs
# chained with --init, with the steps counting on across them.
stage1=(--set data.min_len=3 --set data.max_len=20 --set train.steps=4 --set train.lr=1e-3)
stage2=(--set data.min_len=8 --set data.max_len=40 --set data.batch=2 --set train.steps=4)
curriculum="data.min_len=3 data.max_len=20 train.steps=4 train.lr=1e-3; data.min_len=8 data.max_len=40 data.batch=2 train.steps=4"
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set "train.curriculum=$curriculum" --out "$tmp/curriculum"
expect_rc 0 "a run with a curriculum of three stages exits 0"
check "each stage's start names what it changes and where its steps begin" \
    grep -qF "stage 1 of 3 (data.max_len=20 data.min_len=3 train.steps=4 train.lr=0.001), listops" "$tmp/out"
check "the second stage begins at step 4" grep -qF "stage 2 of 3 (data.batch=2 data.max_len=40 data.min_len=8 train.steps=4), listops" "$tmp/out"
check "the last stage is the run's own config, steps 8 -> 14" grep -q "stage 3 of 3, listops.*steps 8 -> 14$" "$tmp/out"
check "the summary counts the steps of all three (14)" grep -q '"status":"finished","steps":14,' "$tmp/out"
check "config.ini records the stage the run ended in" grep -qx 'stage=2' "$tmp/curriculum/config.ini"
check "a curriculum run's engine peak is within its plan (the weights carried into a stage counted)" \
    python3 -c 'import json, sys; s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); assert s["peak_engine_bytes"] <= s["planned_bytes"], s' "$tmp/out"
check "a later stage's start says what the weights carried over add to its plan" \
    grep -qE "stage 2 of 3 .*planned memory [0-9.]+ [KMG]?i?B \(\+[0-9.]+ [KMG]?i?B of weights carried over while it is built\)" "$tmp/out"
run train --config "$tmp/tiny.ini" "${tiny[@]}" "${stage1[@]}" --out "$tmp/chain1"
expect_rc 0 "the chain's first run"
run train --config "$tmp/tiny.ini" "${tiny[@]}" "${stage2[@]}" --init "$tmp/chain1/checkpoint.safetensors" --out "$tmp/chain2"
expect_rc 0 "the chain's second run, from the first's weights"
run train --config "$tmp/tiny.ini" "${tiny[@]}" --init "$tmp/chain2/checkpoint.safetensors" --out "$tmp/chain3"
expect_rc 0 "the chain's third run, from the second's weights"
# the chain's rows, steps shifted by where each stage begins; seconds dropped
chained() {
    { tail -n +2 "$tmp/chain1/metrics.csv"
      tail -n +2 "$tmp/chain2/metrics.csv" | awk -F, -v OFS=, '{ $1 += 4; print }'
      tail -n +2 "$tmp/chain3/metrics.csv" | awk -F, -v OFS=, '{ $1 += 8; print }'; } | cut -d, -f1-5
}
check "its metrics equal the chain of three --init runs, row for row (step, split, loss, accuracy, lr)" \
    cmp -s <(tail -n +2 "$tmp/curriculum/metrics.csv" | cut -d, -f1-5) <(chained)
run eval --checkpoint "$tmp/curriculum/checkpoint.safetensors" --json
expect_rc 0 "eval of the curriculum's checkpoint exits 0"
check "eval gives the checkpoint's step among the run's (14)" grep -q '"step":14' "$tmp/out"
run inspect --checkpoint "$tmp/curriculum/checkpoint.safetensors" --sample 0 --probe layer0.attn.probs \
    --out "$tmp/curriculum-probs.npy"
check "inspect names the same step" grep -q ' at step 14: ' "$tmp/out"
check "its baselines are measured on the run's own data, the last stage's" \
    cmp -s "$tmp/curriculum/baselines.ini" "$tmp/chain3/baselines.ini"
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set "train.curriculum=$curriculum" --set train.stage=2 \
    --init "$tmp/chain2/checkpoint.safetensors" --out "$tmp/curriculum-from-2"
expect_rc 0 "train.stage = 2 with --init starts at the last stage"
check "its rows begin at step 10 (the stage's first row, after 8 steps of the stages before)" \
    test "$(sed -n 2p "$tmp/curriculum-from-2/metrics.csv" | cut -d, -f1)" = 10
expect_error 1 "a stage that changes the model is refused, naming the stage and the key" \
    "train.curriculum, stage 1: model.dim cannot change" \
    train --config "$tmp/tiny.ini" "${tiny[@]}" --set "train.curriculum=model.dim=32 train.steps=3" --out "$tmp/bad-curriculum"
expect_error 1 "a stage without train.steps is refused" "stage 2: name its length with train.steps" \
    train --config "$tmp/tiny.ini" "${tiny[@]}" --set "train.curriculum=train.steps=2; data.max_len=30" --out "$tmp/bad-curriculum"
check "a refused curriculum writes no run folder" test ! -e "$tmp/bad-curriculum"
expect_error 1 "a curriculum cannot change on resume" "train.curriculum cannot change" \
    train --resume "$tmp/curriculum" --set train.steps=20 --set "train.curriculum=train.steps=3"
run train --resume "$tmp/curriculum" --set train.steps=9
expect_rc 0 "a finished curriculum resumes in its last stage to more steps"
check "its rows go on from step 14 to 17" grep -q '^17,test,' "$tmp/curriculum/metrics.csv"
# a resumed run may switch its products to bf16 (on a CPU that has it)
cp -r "$dir" "$tmp/run-to-bf16"
if grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo; then
    run train --resume "$tmp/run-to-bf16" --set train.steps=10 --set train.precision=bf16
    expect_rc 0 "resume may switch train.precision to bf16"
    check "config.ini records train.precision = bf16" grep -qx 'precision=bf16' "$tmp/run-to-bf16/config.ini"
else
    expect_error 1 "resume to bf16 on a CPU without it is refused" "train.precision = bf16" \
        train --resume "$tmp/run-to-bf16" --set train.steps=10 --set train.precision=bf16
    skip "config.ini records train.precision = bf16" "this CPU has no bf16"
fi

# AdamW with beta2 = eps = 0 divides by a zero second moment wherever a
# gradient is 0: non-finite weights at step 10, a NaN loss at step 11.
# (A checkpoint with NaN weights is refused on load: test_checkpoint.c.)
cp -r "$dir" "$tmp/nan"
expect_error 1 "a non-finite loss fails, naming the last good checkpoint" "NaN|checkpoint.safetensors (step 9)" \
    train --resume "$tmp/nan" --set train.steps=12 --set train.beta2=0 --set train.eps=0
check "a failed run reports status failed" grep -q '"status":"failed"' "$tmp/out"

# --- eval --------------------------------------------------------------------
run eval --checkpoint "$dir/checkpoint.safetensors" --json
expect_rc 0 "eval --json exits 0"
check "eval --json prints split, loss, accuracy, samples, step" json_has split loss accuracy samples step
check "eval counts the whole test split" grep -q '"samples":16,"step":9' "$tmp/out"
# the same checkpoint as if trained on a GPU (its saved config says cuda)
python3 - "$dir/checkpoint.safetensors" "$tmp/gpu-trained.safetensors" <<'PY'
import json, struct, sys
b = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', b[:8])[0]
h = json.loads(b[8:8 + n])
cfg = json.loads(h['__metadata__']['config'])
cfg['train.device'] = 'cuda'
h['__metadata__']['config'] = json.dumps(cfg)
t = json.dumps(h).encode()
t += b' ' * (-len(t) % 8)
open(sys.argv[2], 'wb').write(struct.pack('<Q', len(t)) + t + b[8 + n:])
PY
cpu_accuracy=$(grep -o '"accuracy":[0-9.e-]*' "$tmp/out")
if nvidia-smi -L >/dev/null 2>&1; then
    skip "a GPU-trained checkpoint evaluates on the CPU where no GPU is usable" "this machine has a GPU"
    skip "an explicit --set train.device=cuda still fails where no GPU is usable" "this machine has a GPU"
else
    run eval --checkpoint "$tmp/gpu-trained.safetensors" --json
    check "a GPU-trained checkpoint evaluates on the CPU where no GPU is usable, saying so, to the same accuracy" \
        eval '[ "$rc" -eq 0 ] && [ -n "$cpu_accuracy" ] && grep -q "running it on the CPU instead" "$tmp/err" && grep -qF "$cpu_accuracy" "$tmp/out"'
    expect_error 1 "an explicit --set train.device=cuda still fails where no GPU is usable" "train.device = cuda" \
        eval --checkpoint "$tmp/gpu-trained.safetensors" --set train.device=cuda
fi
run eval --checkpoint "$dir/checkpoint.safetensors" --split val
expect_rc 0 "eval --split val exits 0"
check "eval prints one readable line" grep -q '^val loss [0-9.]* accuracy [0-9.]* (16 samples)$' "$tmp/out"
expect_error 1 "eval refuses a model change" "model.heads" \
    eval --checkpoint "$dir/checkpoint.safetensors" --set model.heads=4
expect_error 1 "eval of a missing checkpoint" "$tmp/nothing.safetensors" \
    eval --checkpoint "$tmp/nothing.safetensors"
head -c 100 "$dir/checkpoint.safetensors" >"$tmp/truncated.safetensors"
expect_error 1 "eval of a truncated checkpoint fails cleanly" "truncated.safetensors" \
    eval --checkpoint "$tmp/truncated.safetensors"
head -c 4096 /dev/urandom >"$tmp/random.safetensors"
expect_error 1 "eval of random bytes fails cleanly" "random.safetensors" eval --checkpoint "$tmp/random.safetensors"
: >"$tmp/empty.safetensors"
expect_error 1 "eval of an empty file fails cleanly" "empty.safetensors" eval --checkpoint "$tmp/empty.safetensors"
expect_error 2 "--split accepts only test or val" "--split" \
    eval --checkpoint "$dir/checkpoint.safetensors" --split train

# --- the default run directory ----------------------------------------------
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set train.steps=2
expect_rc 0 "a run without --out exits 0"
check "a run without --out goes to runs/<config name>" test -s "$cwd/runs/tiny/checkpoint.safetensors"
before=$(ls -R "$cwd")

# --- the first run without a display: rangefinder without a verb -----------
# run_headless ARGS...: rangefinder ARGS with DISPLAY and WAYLAND_DISPLAY
# unset and XDG_DATA_HOME=$xdg (so the default runs folder is $xdg/rangefinder/runs).
xdg=$tmp/xdg
run_headless() {
    last_cmd="rangefinder $* (no DISPLAY or WAYLAND_DISPLAY, XDG_DATA_HOME=$xdg)"
    (cd "$cwd" && exec env -u DISPLAY -u WAYLAND_DISPLAY XDG_DATA_HOME="$xdg" "$rf" "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
# With no arguments at all it trains the 1,000-step default config; a runs
# folder that cannot be made (under a file) stops it before the first step.
xdg=/dev/null/xdg run_headless
failed_cleanly 1 "cannot create the runs folder /dev/null/xdg/rangefinder/runs: Not a directory" &&
    grep -q "^no display: training /.*/data/configs/default.ini from the command line instead" "$tmp/out"
ok $? "rangefinder with no arguments and no display trains default.ini into \$XDG_DATA_HOME/rangefinder/runs"
first=("${tiny[@]}" --set train.warmup=0)
run_headless "${first[@]}"
expect_rc 0 "rangefinder --set ... (no verb, no display) trains the default config and exits 0"
runs=$xdg/rangefinder/runs
first_run=$(find "$runs" -mindepth 1 -maxdepth 1)
check "it makes one run folder named from the date, time and config" \
    grep -qxE "$runs/[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{6}-default" <<<"$first_run"
check "the run folder has config.ini, metrics.csv up to the test row and the checkpoint" \
    eval 'grep -qx "dim=16" "$first_run/config.ini" && grep -q "^6,test," "$first_run/metrics.csv" &&
          test -s "$first_run/checkpoint.safetensors"'
check "it prints the progress lines and the summary" \
    eval 'grep -q "^step 2/6 loss" "$tmp/out" && grep -q "\"status\":\"finished\",\"steps\":6," "$tmp/out"'
check "it ends with where the run is and how to plot it, open it in the workbench and train on" \
    eval 'tail -n 4 "$tmp/out" | diff - <(printf "%s\n" \
        "The run is in $first_run (config.ini, metrics.csv, checkpoint.safetensors)." \
        "Plot its curves: $rf plot $first_run --out $first_run/curves.png" \
        "Open it in the workbench: $rf gui --config $first_run/config.ini, then Open Checkpoint (Ctrl+Shift+O) $first_run/checkpoint.safetensors" \
        "Train on: $rf train --resume $first_run --set train.steps=N")'
run plot "$first_run" --out "$first_run/curves.png"
expect_rc 0 "the printed plot command draws the run"
cp "$first_run/metrics.csv" "$tmp/first.csv"
run_headless "${first[@]}" --runs "$tmp/runs-b"
expect_rc 0 "--runs DIR puts the run in DIR"
run_headless "${first[@]}" --runs "$tmp/runs-b"
expect_rc 0 "a second run into the same runs folder exits 0"
check "two runs make two complete folders in the --runs folder" \
    test "$(find "$tmp/runs-b" -mindepth 2 -name checkpoint.safetensors | wc -l)" -eq 2
check "the first run's folder is left alone" cmp -s "$first_run/metrics.csv" "$tmp/first.csv"
expect_error 2 "rangefinder without a verb refuses a stray argument" "unexpected argument 'extra'" --runs "$tmp/r" extra
expect_error 2 "train --runs with --out is a usage error" "--out|--runs" \
    train --config "$tmp/tiny.ini" --runs "$tmp/runs-c" --out "$tmp/run-c"

# --- bench and memory --------------------------------------------------------
run bench --config "$tmp/tiny.ini" "${tiny[@]}" --steps 3 --warmup 1 --json
expect_rc 0 "bench --json exits 0"
check "bench --json has the timing and memory keys" json_has step_s_median tokens_per_s peak_rss_bytes \
    planned_bytes peak_engine_bytes params data_wait_fraction encoder seq batch threads blas_kernels
check "bench --json has the FLOP keys" json_has flops_per_step flops_ran_per_step gflops_per_s peak_gflops efficiency
json_num() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p" "$tmp/out" | tail -n 1; }
awk -v f="$(json_num flops_per_step)" -v r="$(json_num gflops_per_s)" -v p="$(json_num peak_gflops)" \
    -v e="$(json_num efficiency)" 'BEGIN { exit !(f > 0 && r > 0 && p > 0 && e > 0 && e < 1.5) }'
ok $? "bench --json: FLOPs per step, GFLOP/s and the peak are positive, efficiency in (0, 1.5) ($(json_num efficiency))"
awk -v f="$(json_num flops_per_step)" -v r="$(json_num flops_ran_per_step)" 'BEGIN { exit !(r > 0 && r <= f) }'
ok $? "bench --json: the FLOPs a step ran ($(json_num flops_ran_per_step)) are at most those planned"
awk -v m="$(json_num step_s_median)" -v f="$(json_num step_s_min)" 'BEGIN { exit !(f > 0 && f <= m) }'
ok $? "bench --json: the fastest step ($(json_num step_s_min) s) is positive and no slower than the median"
check "bench --json names the products' library mode and precision" json_has gemm precision
check "bench cached the matrix-product peak under \$XDG_CACHE_HOME/rangefinder" \
    sh -c "ls '$tmp'/cache/rangefinder/peak-gflops-*.txt >/dev/null"
# OpenBLAS 0.3.21 falls back to SSE3 "Prescott" kernels on CPUs it does not
# know; rangefinder then executes itself with OPENBLAS_CORETYPE set.
kernels=$(sed -n 's/.*"blas_kernels":"\([^"]*\)".*/\1/p' "$tmp/out")
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx2 /proc/cpuinfo; then
    case ${kernels,,} in prescott | core2 | penryn | dunnington | nehalem | atom | sandybridge | barcelona | opteron | "") r=1 ;; *) r=0 ;; esac
    ok $r "bench runs on AVX2-or-better BLAS kernels on an AVX2 CPU (got '$kernels')"
else
    skip "bench runs on AVX2-or-better BLAS kernels on an AVX2 CPU" "no AVX2, or OPENBLAS_CORETYPE set by the caller"
fi
export RF_BF16=off   # the CPU counts as one without bf16
expect_error 1 "train.precision = bf16 on a CPU without bf16 is refused, naming the CPU" \
    "train.precision = bf16: this CPU|has neither AVX512-BF16 nor AMX-BF16" \
    train --config "$tmp/tiny.ini" --set train.precision=bf16 --out "$tmp/run-bf16"
unset RF_BF16
OPENBLAS_CORETYPE=Prescott run bench --config "$tmp/tiny.ini" "${tiny[@]}" --steps 1 --warmup 0 --json
expect_rc 0 "bench with OPENBLAS_CORETYPE=Prescott exits 0"
check "a user's OPENBLAS_CORETYPE is kept" grep -q '"blas_kernels":"Prescott"' "$tmp/out"
expect_error 1 "bench names a bad config value" "data.min_len = 10 must be below data.max_len" \
    bench --config "$tmp/tiny.ini" "${tiny[@]}" --set data.max_len=8 --steps 1
run bench --config "$tmp/tiny.ini" "${tiny[@]}" --steps 2 --warmup 1 --profile
expect_rc 0 "bench --profile exits 0"
check "bench --profile times the ops (attention, linear) and the total" \
    sh -c "grep -q '^attention ' '$tmp/err' && grep -q '^linear ' '$tmp/err' && grep -q '^total ' '$tmp/err'"
check "bench --profile gives each op kind's share of the FLOPs, its bytes and its share of its bound" \
    sh -c "grep -q '^op .* share .* flops .* GB .* bound s *% bound\$' '$tmp/err' && grep -q '^(optimizer) ' '$tmp/err'"
check "bench --profile measures the bounds (matrix-product peak, copy bandwidth) and the total against them" \
    sh -c "grep -q '^bounds: [0-9.]* GFLOP/s .*, [0-9.]* GB/s ' '$tmp/err' && grep -q '^total .* GB per step, [0-9.]* s bound ( *[0-9.]*%)' '$tmp/err'"
check "bench --profile names the library of each product shape" \
    grep -q '^[0-9]* x [0-9]* x [0-9]* ([NT][NT]), [0-9]*  *\(openblas\|onednn\) ' "$tmp/err"
expect_error 2 "bench --device-bounds wants two positive rates" "--device-bounds wants GFLOP/S,GB/S" \
    bench --config "$tmp/tiny.ini" "${tiny[@]}" --steps 1 --profile --device-bounds 67000
run bench --config "$tmp/tiny.ini" "${tiny[@]}" --steps 1 --warmup 0 --profile --device-bounds 1,1
check "bench --device-bounds is for a GPU: on the CPU the bounds are still measured" \
    sh -c "grep -q '^bounds: [0-9.]* GFLOP/s' '$tmp/err' && ! grep -q '^bounds: 1.0 GFLOP/s' '$tmp/err'"
RF_GEMM=onednn run bench --config "$tmp/tiny.ini" "${tiny[@]}" --steps 1 --warmup 0 --profile --json
check "bench with RF_GEMM=onednn runs every product on oneDNN" \
    sh -c "grep -q '\"gemm\":\"onednn\"' '$tmp/out' && ! grep -q '^[0-9].* openblas ' '$tmp/err' && grep -q '^[0-9].* onednn  *[0-9.]*  *-  *-  *forced' '$tmp/err'"

run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 64,128,256 --json
expect_rc 0 "memory --json exits 0"
check "memory --json prints one line per length" test "$(grep -c '^{"encoder":' "$tmp/out")" -eq 3
planned=$(sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p' "$tmp/out" | tr '\n' ' ')
read -r p1 p2 p3 <<<"$planned"
[ -n "${p3:-}" ] && [ "$p1" -lt "$p2" ] && [ "$p2" -lt "$p3" ]
ok $? "planned bytes grow with the length ($planned)"
# Issue 14 item 5: the linear-memory encoders at their ListOps configs plan
# a 65,536-token training step of batch 1 within 24 GiB (the run itself is a
# benchmark: bench/RESULTS.md).
long_ok=0
for enc in ls linear talk maelre; do
    run memory --config "$configs/listops-$enc.ini" --set data.task=random --set data.batch=1 --seq 65536 --json
    bytes=$(sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p' "$tmp/out")
    [ "$rc" -eq 0 ] && [ -n "$bytes" ] && [ "$bytes" -lt $((24 * 1024 * 1024 * 1024)) ] || long_ok=1
done
ok $long_ok "ls, linear, talk and maelre plan N = 65,536, batch 1 within 24 GiB"
run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 128 --json
train_total=$(sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p' "$tmp/out")
run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 128 --json --inference
expect_rc 0 "memory --inference exits 0"
check "memory --inference plans no gradients or AdamW moments" \
    sh -c "grep -q '\"grads\":0,\"optimizer\":0,' '$tmp/out' && grep -q '\"job\":\"inference\"' '$tmp/out'"
infer_total=$(sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p' "$tmp/out")
[ -n "$infer_total" ] && [ -n "$train_total" ] && [ "$infer_total" -lt "$train_total" ]
ok $? "memory --inference plans less than training ($infer_total < $train_total bytes)"
run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 128 --json --set train.recompute=layers
expect_rc 0 "memory --json with train.recompute = layers exits 0"
check "memory --json with train.recompute = layers plans less, and the plan without it as before" python3 -c '
import json, sys; j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert j["recompute"] == "layers" and j["planned_bytes_recompute_off"] == int(sys.argv[2]), j
assert j["planned_bytes"] < j["planned_bytes_recompute_off"], j' "$tmp/out" "$train_total"
run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 128,512 --json --set model.encoder=blrp
check "memory --json counts the graph's own bytes outside the plan, more for BLRP's longer recurrence" python3 -c '
import json, sys; j = [json.loads(l) for l in open(sys.argv[1]).read().splitlines() if l.startswith("{")]
assert len(j) == 2 and 0 < j[0]["graph"] < j[1]["graph"], j
assert all(p["planned_bytes"] == p["params"] + p["grads"] + p["optimizer"] + p["activations"] + p["workspace"] for p in j), j' "$tmp/out"
run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 128 --set train.recompute=layers
check "memory with train.recompute = layers adds a recompute off column" \
    sh -c "grep -q 'with train.recompute = layers\$' '$tmp/out' && grep -q 'recompute off\$' '$tmp/out'"
run memory --config "$tmp/tiny.ini" --seq 512,1024 --inference
expect_rc 0 "memory --inference without --json exits 0"
check "memory --inference says it plans inference" grep -q ': inference, forward only$' "$tmp/out"
run bench --config "$tmp/tiny.ini" "${tiny[@]}" --steps 2 --warmup 1 --inference --json
expect_rc 0 "bench --inference --json exits 0"
check "bench --inference --json has the inference keys" json_has step_s_median train_samples_per_s \
    inference_samples_per_s inference_batch_s_median inference_speedup inference_planned_bytes \
    inference_peak_engine_bytes inference_padded_samples_per_s inference_padded_speedup inference_batches \
    inference_length_buckets inference_length_buckets_used
check "bench --inference uses length buckets inside the planned memory (ListOps lengths 10 to 60)" python3 -c '
import json, sys; j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert j["inference_length_buckets"] > 0 and j["inference_length_buckets_used"] > 0, j
assert j["inference_peak_engine_bytes"] == j["inference_planned_bytes"], j' "$tmp/out"
run memory --config "$tmp/tiny.ini" --seq 512,1024
expect_rc 0 "memory without --json exits 0"
check "memory prints a table" grep -q '^ *1024 ' "$tmp/out"
expect_error 2 "memory --seq rejects a bad length" "--seq" memory --config "$tmp/tiny.ini" --seq 64,abc
check "bench and memory write no files" test "$(ls -R "$cwd")" = "$before"

run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 256,4096 --encoders full,ls,linear,talk,blrp,maelre
expect_rc 0 "memory --encoders plans all six encoders"
check "memory --encoders prints one column per encoder" \
    grep -q '^ *seq  *full  *ls  *linear  *talk  *blrp  *maelre$' "$tmp/out"
check "memory --encoders prints the growth per encoder" grep -q '^ *growth\(  *[0-9.]*x\)\{6\}$' "$tmp/out"
check "memory calls no encoder quadratic (full attention keeps no N x N matrix)" \
    test "$(grep -c '^note: ' "$tmp/out")" -eq 0
run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 256,512 --encoders full,blrp --json
expect_rc 0 "memory --encoders --json exits 0"
check "memory --encoders --json prints one line per encoder and length" \
    test "$(grep -c '^{"encoder":"\(full\|blrp\)","seq":' "$tmp/out")" -eq 4
expect_error 2 "memory --encoders rejects an unknown encoder" "--encoders|bogus" \
    memory --config "$tmp/tiny.ini" --seq 64 --encoders full,bogus

# Only ListOps reads data.min_len: another task with a short max_len keeps
# ListOps' default (500) without an error.
run memory --config "$tmp/tiny.ini" --set data.task=random --set data.max_len=64 --seq 64
expect_rc 0 "a random task with data.max_len = 64 plans with the default data.min_len"

# The device's plan: a CUDA build plans for the GPU without one (its
# kernels' memory: full attention linear in the length); a build without
# the backend says so in one line.
run memory --config "$tmp/tiny.ini" --set model.encoder=full --set train.device=cuda --seq 512,2048 --json
if grep -q 'no CUDA backend' "$tmp/err"; then
    expect_rc 1 "memory on cuda in a build without the CUDA backend exits 1"
    check "and says in one line what to build" test "$(wc -l <"$tmp/err")" -eq 1
else
    expect_rc 0 "memory --set train.device=cuda plans the GPU's memory without a GPU"
    check "the GPU plan names its device and grows linearly with full attention (4x the length: at most 4.2x)" \
        awk -F'"planned_bytes":' '/"device":"cuda"/ { split($2, v, ","); b[n++] = v[1] }
                                  END { exit !(n == 2 && b[1] <= 4.2 * b[0]) }' "$tmp/out"
fi

# A CUDA build loads its backend module only when a CUDA device is asked
# for: a CPU run maps none of the CUDA libraries (core/device.h).
if [ -e "$(dirname "$rf")/kernels/librfcuda.so" ]; then
    LD_DEBUG=libs "$rf" memory --config "$tmp/tiny.ini" --seq 512 >/dev/null 2>"$tmp/ld"
    ! grep -q 'libcublas\|libcudart\|libnccl\|librfcuda' "$tmp/ld"
    ok $? "a CPU plan loads no CUDA library"
    LD_DEBUG=libs "$rf" memory --config "$tmp/tiny.ini" --set train.device=cuda --seq 512 >/dev/null 2>"$tmp/ld"
    grep -q 'calling init: .*librfcuda.so' "$tmp/ld" && grep -q 'calling init: .*libcublas' "$tmp/ld"
    ok $? "a CUDA plan loads the backend module and cuBLAS"
fi

# --- inspect -----------------------------------------------------------------
ckpt=$dir/checkpoint.safetensors
run inspect --checkpoint "$ckpt" --list
expect_rc 0 "inspect --list exits 0"
check "inspect --list shows the attention probabilities without the batch" \
    grep -q '^layer0\.attn\.probs  *\[2, 60, 60\]' "$tmp/out"
npy=$tmp/probs.npy
# one library for every product (train.gemm = auto may time another one
# faster for the batch-1 shapes below, whose sums round differently)
run inspect --checkpoint "$ckpt" --sample 5 --probe layer0.attn.probs --set train.gemm=openblas --out "$npy"
expect_rc 0 "inspect writes a probe"
check "inspect names the sample's batch and row" \
    grep -q '^test sample 5 (batch 1, row 1) at step 9: label [0-9]' "$tmp/out"
check "the probe is a float32 .npy file (version 1.0, 64-byte aligned)" npy_header_ok "$npy"
check "the probe holds 2 x 60 x 60 floats" test "$(stat -c %s "$npy")" -eq $((128 + 4 * 2 * 60 * 60))
npy_check "numpy loads the probe with shape (2, 60, 60)" \
    "assert a.shape == (2, 60, 60) and a.dtype == np.float32, a.shape"
npy_check "attention rows of a valid query sum to 1" \
    "assert np.allclose(a[:, 0, :].sum(-1), 1, atol=1e-4), a[:, 0, :].sum(-1)"
# --pool: the same map pooled, a window off the kernel's blocks
run inspect --checkpoint "$ckpt" --sample 5 --probe layer0.attn.probs --set train.gemm=openblas --pool mean \
    --cells 7x9 --rows 3:50 --columns 2: --out "$tmp/pooled.npy"
expect_rc 0 "inspect --pool mean writes a pooled probe"
check "inspect --pool names the pooled shape" grep -q '^layer0\.attn\.probs \[2, 7, 9\] -> ' "$tmp/out"
npy_check "the pooled cells are the means of the full map's rows 3-49 x columns 2-59" \
    "p = np.load('$tmp/pooled.npy'); a = a.astype(np.float64); e = lambda lo, hi, n, i: lo + i * (hi - lo) // n
w = np.array([[[a[h, e(3, 50, 7, i):e(3, 50, 7, i + 1), e(2, 60, 9, j):e(2, 60, 9, j + 1)].mean() for j in range(9)]
               for i in range(7)] for h in range(2)])
assert p.shape == (2, 7, 9) and np.allclose(p, w, rtol=1e-5, atol=1e-8), abs(p - w).max()"
expect_error 1 "--pool with a window past the map names the probe and the map" \
    "probe 'layer0.attn.probs': the window rows [0, 61) x columns [0, 60) is not inside its 60 x 60 map" \
    inspect --checkpoint "$ckpt" --probe layer0.attn.probs --pool max --rows 0:61 --out "$tmp/x.npy"
expect_error 2 "--cells without --pool is a usage error" "--pool max, mean or span" \
    inspect --checkpoint "$ckpt" --probe layer0.attn.probs --cells 5x5
expect_error 1 "--pool span of full attention's map (computed on demand) names the probe" \
    "probe 'layer0.attn.probs' is computed on demand: it pools by max or mean, not span" \
    inspect --checkpoint "$ckpt" --probe layer0.attn.probs --pool span --out "$tmp/x.npy"
run inspect --checkpoint "$ckpt" --sample 5 --probe layer0.attn.probs --set data.batch=1 --set train.gemm=openblas \
    --out "$tmp/probs-b1.npy"
expect_rc 0 "inspect with --set data.batch=1 exits 0"
check "a probe does not depend on the batch around the sample" cmp -s "$npy" "$tmp/probs-b1.npy"
run inspect --checkpoint "$ckpt" --split val --sample 2 --probe layer1.attn.probs
expect_rc 0 "inspect without --out exits 0"
check "inspect without --out writes ./NAME.npy" test -s "$cwd/layer1.attn.probs.npy"
rm -f "$cwd/layer1.attn.probs.npy"

blrp=$tmp/blrp
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set model.encoder=blrp --set model.segment=10 \
    --set model.latent=4 --set train.steps=2 --out "$blrp"
expect_rc 0 "a tiny BLRP run exits 0"
cp "$blrp/checkpoint.safetensors" "$tmp/blrp.before"
run inspect --checkpoint "$blrp/checkpoint.safetensors" --list
expect_rc 0 "inspect --list of a BLRP checkpoint exits 0"
check "inspect --list shows BLRP's latent blocks" grep -q '^blrp\.latent\.fwd\.1  *\[4, 16\]' "$tmp/out"
check "inspect --list shows BLRP's latent gradients" grep -q '^blrp\.latent\.fwd\.3\.grad  *\[4, 16\]' "$tmp/out"
run inspect --checkpoint "$blrp/checkpoint.safetensors" --split train --sample 9 \
    --probe blrp.latent.fwd.3.grad --probe blrp.latent.fwd.1 --out "$tmp/blrp-probes"
expect_rc 0 "inspect writes several probes (a gradient among them) into a directory"
check "each probe goes to DIR/NAME.npy" \
    test -s "$tmp/blrp-probes/blrp.latent.fwd.3.grad.npy" -a -s "$tmp/blrp-probes/blrp.latent.fwd.1.npy"
npy=$tmp/blrp-probes/blrp.latent.fwd.3.grad.npy
npy_check "backward fills the latent gradient: finite, not all zero" \
    "assert a.shape == (4, 16) and np.isfinite(a).all() and np.abs(a).max() > 0, a"
check "inspect changes nothing in the checkpoint" cmp -s "$blrp/checkpoint.safetensors" "$tmp/blrp.before"
expect_error 1 "inspect names an unknown probe and some known ones" "no probe named 'nope'|layer0.attn.probs" \
    inspect --checkpoint "$ckpt" --probe nope
expect_error 1 "inspect refuses a sample outside the split" "--sample 16|16 samples" \
    inspect --checkpoint "$ckpt" --probe layer0.attn.probs --sample 16
expect_error 1 "inspect of random bytes fails cleanly" "random.safetensors" \
    inspect --checkpoint "$tmp/random.safetensors" --list
expect_error 1 "inspect of a truncated checkpoint fails cleanly" "truncated.safetensors" \
    inspect --checkpoint "$tmp/truncated.safetensors" --probe layer0.attn.probs
expect_error 1 "inspect into a missing directory fails cleanly" "$tmp/no/such" \
    inspect --checkpoint "$ckpt" --probe layer0.attn.probs --out "$tmp/no/such/p.npy"
expect_error 2 "inspect needs --probe or --list" "--probe" inspect --checkpoint "$ckpt"
expect_error 2 "inspect takes --list or --probe, not both" "--list" \
    inspect --checkpoint "$ckpt" --list --probe layer0.attn.probs
expect_error 2 "inspect --split accepts test, val or train" "--split" \
    inspect --checkpoint "$ckpt" --probe layer0.attn.probs --split all
expect_error 1 "inspect refuses a model change" "model.dim" \
    inspect --checkpoint "$ckpt" --probe layer0.attn.probs --set model.dim=32

# --- your own inputs: inspect --input/--text and predict ----------------------
# run_json ARGS...: run, keeping its stdout for the json_checks after it.
run_json() {
    run "$@"
    cp "$tmp/out" "$tmp/json"
}
# json_check NAME PYTHON-CODE: run it with `lines` the last run_json's
# stdout lines parsed by json.loads (python3's standard library only).
json_check() {
    local name=$1 code=$2
    last_cmd="python3 check of the JSON lines"
    python3 -c "import json, sys; lines = [json.loads(l) for l in open(sys.argv[1])]; $code" "$tmp/json" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    ok $rc "$name"
}
probs_ok='all(abs(sum(l["probabilities"]) - 1) < 1e-4 and l["label"] == max(range(len(l["probabilities"])), key=lambda k: l["probabilities"][k]) for l in lines if "error" not in l)'

# an image folder of two classes, 8 x 8 PNGs written with the standard library
python3 - "$tmp/pics" <<'PY'
import os, struct, sys, zlib
def png(path, level):
    rows = b"".join(b"\0" + bytes((level + 9 * x + 5 * y) % 256 for x in range(8) for c in range(3)) for y in range(8))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
for name, base in (("dark", 10), ("light", 150)):
    os.makedirs(os.path.join(sys.argv[1], name))
    for k in range(8):
        png(os.path.join(sys.argv[1], name, "%d.png" % k), base + 3 * k)
PY
pics=$tmp/pics-run
run train --config "$tmp/tiny.ini" --set data.task=image_folder --set "data.path=$tmp/pics" --set data.image_size=8 \
    --set data.patch=2 --set data.val_size=2 --set data.test_size=2 --set data.batch=4 --set model.dim=16 \
    --set model.heads=2 --set model.ff=32 --set train.steps=3 --set train.threads=1 --out "$pics"
expect_rc 0 "a tiny image_folder run exits 0"
check "an image run gets no baselines.ini (token data only)" test ! -e "$pics/baselines.ini"
expect_error 1 "eval --by-first-token refuses image data, saying why" "needs token data" \
    eval --checkpoint "$pics/checkpoint.safetensors" --by-first-token
run_json predict --checkpoint "$pics/checkpoint.safetensors" "$tmp/pics/light/3.png" "text:[MAX 2 9 ]" \
    "$tmp/pics/dark/0.png"
expect_rc 1 "predict exits 1 when one of its inputs is refused"
check "predict names the refused input on stderr, one line" \
    failed_cleanly 1 "the text '[MAX 2 9 ]' is text, but this image_folder model takes an image file (8x8 gray)"
json_check "predict prints one JSON line per input, in order, the refused one with its error" \
    'assert [l["input"] for l in lines] == [sys.argv[1][:0] + a for a in ("'"$tmp"'/pics/light/3.png", "text:[MAX 2 9 ]", "'"$tmp"'/pics/dark/0.png")], lines; assert "error" in lines[1] and "is text" in lines[1]["error"], lines[1]'
json_check "an image's line has its label, class name and both class probabilities summing to 1" \
    'assert all(set(lines[i]) == {"input", "label", "class", "probabilities"} and len(lines[i]["probabilities"]) == 2 and lines[i]["class"] == ["dark", "light"][lines[i]["label"]] for i in (0, 2)), lines; assert '"$probs_ok"
run_json predict --checkpoint "$ckpt" "text:[MAX 2 9 [MIN 4 7 ] 0 ]" --text "[SM 1 2 ]" "text:( ( [MED 1 5 ) 3 ) ] )" \
    "text:[MIN 3 ]" "text:[MAX 0 1 ]" "text:[SM 9 9 9 ]"
expect_rc 0 "predict classifies six ListOps expressions (more than a batch of 4) and exits 0"
json_check "six lines in order (INPUTs, then --text), ten probabilities each summing to 1, label their argmax" \
    'assert [l["input"] for l in lines] == ["text:[MAX 2 9 [MIN 4 7 ] 0 ]", "text:( ( [MED 1 5 ) 3 ) ] )", "text:[MIN 3 ]", "text:[MAX 0 1 ]", "text:[SM 9 9 9 ]", "[SM 1 2 ]"], lines; assert all(len(l["probabilities"]) == 10 and l["class"] == str(l["label"]) for l in lines); assert '"$probs_ok"
cp "$tmp/json" "$tmp/six.json"
run_json predict --checkpoint "$ckpt" "text:[SM 9 9 9 ]" "text:[MAX 0 1 ]" "text:[MIN 3 ]" \
    "text:( ( [MED 1 5 ) 3 ) ] )" "text:[SM 1 2 ]" "text:[MAX 2 9 [MIN 4 7 ] 0 ]"
expect_rc 0 "predict classifies the six in reverse order"
json_check "each expression gets the same probabilities in either order (batched shortest first, printed as given)" \
    'a = {l["input"].removeprefix("text:"): l["probabilities"] for l in lines}; b = {l["input"].removeprefix("text:"): l["probabilities"] for l in map(json.loads, open("'"$tmp"'/six.json"))}; assert a.keys() == b.keys() and all(abs(x - y) < 1e-5 for k in a for x, y in zip(a[k], b[k])), (a, b); assert len(set(map(tuple, a.values()))) > 1, a'
run_json predict --checkpoint "$ckpt" "text:[MAX 2 9 ]" "$tmp/pics/dark/1.png" "text:[MAX 2"
expect_rc 1 "predict with an image for a ListOps model exits 1"
json_check "the image and the unclosed expression are refused by name, the good input still classified" \
    'assert "label" in lines[0] and "is an image (png), but this listops model takes text" in lines[1]["error"] and "dark/1.png" in lines[1]["error"] and "well-formed" in lines[2]["error"], lines'
# .npy inputs are the model's input itself: ListOps ids as int64, and a (2, 3) array a token model refuses
python3 - "$tmp/ids.npy" "$tmp/matrix.npy" <<'PY'
import struct, sys
def npy(path, descr, shape, payload):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + payload)
npy(sys.argv[1], "<i8", "(4,)", struct.pack("<4q", 2, 8, 15, 5))   # [MAX 2 9 ]
npy(sys.argv[2], "<f4", "(2, 3)", struct.pack("<6f", *range(6)))
PY
run_json predict --checkpoint "$ckpt" "$tmp/ids.npy" "text:[MAX 2 9 ]" "$tmp/matrix.npy"
expect_rc 1 "predict with a .npy the model cannot take exits 1"
json_check "a .npy of ListOps ids predicts as the same expression typed; a 2-D array is refused by name" \
    'assert lines[0]["probabilities"] == lines[1]["probabilities"], lines; assert "matrix.npy: shape (2, 3); this listops model takes a 1-D array of token ids" in lines[2]["error"], lines[2]'
expect_error 2 "predict without an input is a usage error" "INPUT" predict --checkpoint "$ckpt"
expect_error 1 "predict with a missing checkpoint names it" "$tmp/none.safetensors" \
    predict --checkpoint "$tmp/none.safetensors" "text:[MIN 1 ]"

run inspect --checkpoint "$ckpt" --text "[MAX 2 9 [MIN 4 7 ] 0 ]" --probe layer0.attn.probs --out "$tmp/own.npy"
expect_rc 0 "inspect --text writes a probe of an outside ListOps expression"
check "inspect --text names the input and its prediction" \
    grep -q "^input the text '\[MAX 2 9 \[MIN 4 7 \] 0 \]' at step 9: predicted [0-9] ([0-9]), probability 0\.[0-9]" "$tmp/out"
npy=$tmp/own.npy
npy_check "the outside input's attention: 2 heads over 60 positions, its 9 valid queries' rows sum to 1" \
    "assert a.shape == (2, 60, 60) and np.allclose(a[:, :9, :].sum(-1), 1, atol=1e-4) and np.abs(a[:, 0, 9:]).max() < 1e-6, a[:, 0, :12]"
run inspect --checkpoint "$pics/checkpoint.safetensors" --input "$tmp/pics/light/2.png" --probe logits \
    --out "$tmp/logits.npy"
expect_rc 0 "inspect --input writes a probe of an image file"
check "inspect --input names the file and its class" \
    grep -qE "^input $tmp/pics/light/2.png at step 3: predicted [01] \((dark|light)\)" "$tmp/out"
expect_error 1 "inspect --input refuses an image for a ListOps model" "dark/1.png is an image (png)" \
    inspect --checkpoint "$ckpt" --input "$tmp/pics/dark/1.png" --probe layer0.attn.probs
expect_error 1 "inspect --text refuses an unknown token by name" "unknown ListOps token 'foo'" \
    inspect --checkpoint "$ckpt" --text "[MAX foo ]" --probe layer0.attn.probs
expect_error 1 "inspect --text refuses a gradient probe (an outside input has no label)" "no label" \
    inspect --checkpoint "$blrp/checkpoint.safetensors" --text "[MAX 2 9 ]" --probe blrp.latent.fwd.3.grad
expect_error 2 "inspect --input takes no --sample" "--split or --sample" \
    inspect --checkpoint "$ckpt" --text "[MAX 2 9 ]" --sample 3 --probe layer0.attn.probs

# --- eval across data sets: ListOps from the generator and from LRA's files --------
# One token table (listops.h): a model trained on either source evaluates
# (and is inspected) on the other; any data set whose input and classes fit
# the model is taken, one that does not is refused naming what differs.
lra=$tmp/lra
mkdir -p "$lra"
for split in train val test; do
    printf 'Source\tTarget\n( ( ( [MAX 2 ) 3 ) ] )\t3\n( [MIN 4 ( [MAX 1 9 ] ) 0 ] )\t0\n[SM 1 2 3 4 5 ]\t5\n' \
        >"$lra/basic_$split.tsv"
done
run eval --checkpoint "$ckpt" --set data.task=lra_tsv --set "data.path=$lra" --json
expect_rc 0 "a listops model evaluates on LRA-format files"
check "eval on the files counts their 3 test rows" grep -q '"samples":3,"step":9' "$tmp/out"
# each row's operator is its class's only one; the classes 3, 0, 5 tie, so the majority rule answers 0
check "eval adds the baselines of token data: the first token's class rule right on all 3 rows" \
    grep -q '"baseline_first_token":1[,}]' "$tmp/out"
check "eval adds the baselines of token data: the majority class (ties: the lowest, 0) right on 1 of 3" \
    grep -q '"baseline_majority":0.3333' "$tmp/out"
run eval --checkpoint "$ckpt" --set data.task=lra_tsv --set "data.path=$lra"
check "eval's text says what the labels give without the model" \
    grep -q '^without the model: 0.333 answering the majority class, 1.000 answering' "$tmp/out"
run_json eval --checkpoint "$ckpt" --set data.task=lra_tsv --set "data.path=$lra" --by-first-token --json
expect_rc 0 "eval --by-first-token exits 0"
json_check "eval --by-first-token: one group per outermost operator, each of one row answered once" \
    'g = lines[0]["by_first_token"]; assert sorted(x["token"] for x in g) == ["[MAX", "[MIN", "[SM"], g; assert all(x["samples"] == 1 and sum(x["answers"]) == 1 for x in g), g'
json_check "eval --by-first-token: its groups (the predict path) agree with eval's accuracy (the evaluation path)" \
    'l = lines[0]; assert abs(sum(x["accuracy"] * x["samples"] for x in l["by_first_token"]) / 3 - l["accuracy"]) < 1e-9, l'
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set data.task=lra_tsv --set "data.path=$lra" --set train.steps=2 \
    --out "$tmp/lra-run"
expect_rc 0 "a tiny run on LRA-format files exits 0"
run eval --checkpoint "$tmp/lra-run/checkpoint.safetensors" --set data.task=listops --json
expect_rc 0 "an lra_tsv model evaluates on the listops generator"
check "eval on the generator counts its 16 test samples" grep -q '"samples":16,"step":2' "$tmp/out"
run inspect --checkpoint "$tmp/lra-run/checkpoint.safetensors" --set data.task=listops --sample 3 --probe logits \
    --out "$tmp/lra-logits.npy"
expect_rc 0 "an lra_tsv model is inspected on a generated sample"
expect_error 1 "a model of another input is refused, naming both inputs and class counts" \
    "data.task=image_folder|gives 16 positions of 4 features and 2 classes|the checkpoint's model takes tokens (vocabulary 16) and 10 classes" \
    eval --checkpoint "$ckpt" --set data.task=image_folder --set "data.path=$tmp/pics" --set data.image_size=8 \
    --set data.patch=2 --set data.val_size=2 --set data.test_size=2
expect_error 1 "a data set of other classes is refused, naming the counts" \
    "data.task=random data.classes=5 gives up to 60 tokens (vocabulary 16) and 5 classes|and 10 classes" \
    eval --checkpoint "$ckpt" --set data.task=random --set data.classes=5

# data.concat = K: the BLRP length test (SPEC §3) on a model trained on K = 1
run eval --checkpoint "$ckpt" --set data.concat=2 --json
expect_rc 0 "eval --set data.concat=2 runs on a model trained on single expressions"
check "eval with data.concat=2 counts the 16 test samples" grep -q '"samples":16,"step":9' "$tmp/out"
run eval --checkpoint "$ckpt" --set data.concat=4 --set data.task=lra_tsv --set "data.path=$lra"
expect_rc 0 "eval --set data.concat=4 runs on LRA-format files"
for k in 2 3 4; do
    run eval --checkpoint "$blrp/checkpoint.safetensors" --set data.concat=$k --json
    expect_rc 0 "a BLRP model (segment 10) evaluates at data.concat=$k ($((k * 60 + 2)) positions, not a multiple of 10)"
done
run inspect --checkpoint "$ckpt" --set data.concat=3 --list
expect_rc 0 "inspect --set data.concat=3 lists probes of the longer sequence"
check "with data.concat=3 the attention spans 3 x 60 + 2 positions" \
    grep -q '^layer0\.attn\.probs  *\[2, 182, 182\]' "$tmp/out"
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set model.pos=learned --set train.steps=1 --out "$tmp/learned"
expect_rc 0 "a tiny run with learned positions exits 0"
expect_error 1 "learned positions cannot take the longer sequence, and the error says so" \
    "data.concat=2 gives up to 122 tokens (vocabulary 16)|exactly 60 tokens (vocabulary 16; model.pos = learned)" \
    eval --checkpoint "$tmp/learned/checkpoint.safetensors" --set data.concat=2
expect_error 1 "data.concat on another task is refused in one sentence" \
    "data.concat = 2: only listops and lra_tsv" eval --checkpoint "$pics/checkpoint.safetensors" --set data.concat=2
expect_error 1 "data.concat beyond 512 is refused" "data.concat|1..512" eval --checkpoint "$ckpt" --set data.concat=513

# --- make-dataset --------------------------------------------------------------
run make-dataset --help
expect_rc 0 "make-dataset --help exits 0"
check "make-dataset --help lists spoken-digits" grep -q '^  spoken-digits ' "$tmp/out"
expect_error 2 "make-dataset without a kind is a usage error" "kind" make-dataset --out "$tmp/x"
expect_error 2 "make-dataset names an unknown kind" "unknown kind 'frobs'" make-dataset frobs --out "$tmp/x"
expect_error 2 "make-dataset spoken-digits needs --out" "--out" make-dataset spoken-digits
expect_error 2 "make-dataset checks --speeds" "--speeds" make-dataset spoken-digits --out "$tmp/x" --speeds 160,9
expect_error 2 "make-dataset checks --pitches" "--pitches" \
    make-dataset spoken-digits --out "$tmp/x" --pitches 50,abc
PATH=/nonexistent run make-dataset spoken-digits --out "$tmp/x"
failed_cleanly 1 "espeak-ng" "PATH"
ok $? "make-dataset without espeak-ng says so"
check "failed make-dataset runs create nothing" test ! -e "$tmp/x"

digits=$tmp/digits
if command -v espeak-ng >/dev/null; then
    run make-dataset spoken-digits --out "$digits" --max-voices 2 --test-groups 1 --variants 0 --speeds 160 \
        --pitches 50 --jobs 1
    expect_rc 0 "make-dataset spoken-digits makes a tiny set"
    check "make-dataset prints its progress" grep -q '^made 20/20 files (100%)$' "$tmp/out"
    check "make-dataset prints a summary" grep -q 'train and [0-9]* test clips from 2 voices' "$tmp/out"
    check "the set has train and test clips of every digit" \
        test "$(ls "$digits/train" | wc -l)" -eq 10 -a "$(ls "$digits/test" | wc -l)" -eq 10
    cat >"$tmp/digits.ini" <<EOF
[data]
task = audio_folder
path = $digits
val_size = 2
batch = 4
mel_bins = 16
max_frames = 64
[model]
dim = 16
heads = 2
ff = 32
[train]
steps = 2
eval_every = 2
checkpoint_every = 2
threads = 1
EOF
    run train --config "$tmp/digits.ini" --out "$tmp/digits-run"
    expect_rc 0 "a 2-step run on the spoken digits exits 0"
    check "the spoken digits run finishes" grep -q '"status":"finished","steps":2,' "$tmp/out"
    trained=$(sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p' "$tmp/out")
    run memory --config "$tmp/digits.ini" --seq 64 --json
    expect_rc 0 "memory plans an audio task"
    planned=$(sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p' "$tmp/out")
    [ -n "$planned" ] && [ "$planned" = "$trained" ]
    ok $? "memory plans audio features as the trainer does ($planned = $trained bytes)"
    run memory --config "$tmp/digits.ini" --seq 64,128
    expect_rc 0 "memory plans an audio task at two lengths"
    check "memory names the data set's features" \
        grep -q '^audio_folder: 16 features per position, 10 classes$' "$tmp/out"
else
    for name in "make-dataset spoken-digits makes a tiny set" "a 2-step run on the spoken digits" \
        "memory plans audio features as the trainer does"; do
        skip "$name" "espeak-ng is not installed"
    done
fi

# --- config ------------------------------------------------------------------
run config --list
expect_rc 0 "config --list exits 0"
check "config --list lists data.task with its default and choices" \
    grep -q '^data.task  *listops  *listops|random' "$tmp/out"
check "config --list lists data.concat with its default and range" grep -q '^data.concat  *1  *1\.\.512 ' "$tmp/out"
check "config --list lists train.gemm with its default and choices" \
    grep -q '^train.gemm  *auto  *auto|openblas|onednn ' "$tmp/out"
expect_error 1 "train.gemm refuses a library it does not have" "gemm|mkl" \
    config --show --config "$tmp/tiny.ini" --set train.gemm=mkl
for shipped in default listops-full; do
    run config --show --config "$configs/$shipped.ini"
    expect_rc 0 "the shipped $shipped.ini is valid"
done
run config --show --config "$tmp/tiny.ini" --set train.lr=1e-3
expect_rc 0 "config --show with --set exits 0"
check "config --show prints the effective INI" grep -qx 'lr=0.001' "$tmp/out"

# --- bad input ---------------------------------------------------------------
printf '[model]\nfrobs = 3\n' >"$tmp/unknown.ini"
expect_error 1 "an unknown key in an INI names the file, group and key" "unknown.ini: [model] frobs:" \
    train --config "$tmp/unknown.ini" --out "$tmp/bad-run"
printf '[model]\nheads = many\n' >"$tmp/badvalue.ini"
expect_error 1 "a bad value in an INI names the key and the value" "badvalue.ini: [model] heads:|many" \
    config --show --config "$tmp/badvalue.ini"
expect_error 1 "a bad value via --set names the key" "model.dim|abc" \
    train --config "$tmp/tiny.ini" "${tiny[@]}" --set model.dim=abc --out "$tmp/bad-run"
expect_error 1 "--set without '=' is explained" "section.key=value" \
    config --show --config "$tmp/tiny.ini" --set model.dim
expect_error 1 "inconsistent keys are caught by validation" "model.heads" \
    config --show --config "$tmp/tiny.ini" --set model.dim=30 --set model.heads=4
expect_error 1 "a missing config file is named" "$tmp/missing.ini" train --config "$tmp/missing.ini"
printf '[model\ndim = 3\n' >"$tmp/syntax.ini"
expect_error 1 "an INI syntax error names the file" "syntax.ini" \
    train --config "$tmp/syntax.ini" --out "$tmp/bad-run"
check "failed starts create no run directory" test ! -e "$tmp/bad-run"

# --- stopping a run: Ctrl-C, and SIGUSR1 for a run in the background ---------
# start_long SIGINT_MODE DIR: a long run into DIR in the background with
# SIGINT as `env --SIGINT_MODE=INT` leaves it (a background job of a script
# starts with SIGINT ignored, as under nohup); returns once it logged rows.
# Settings after DIR go last (slower steps, say).
start_long() {
    (cd "$cwd" && exec env --"$1"=INT "$rf" train --config "$tmp/tiny.ini" "${tiny[@]}" \
        --set train.steps=100000 --set train.eval_every=0 --set train.checkpoint_every=0 --out "$2" "${@:3}") \
        >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 300); do
        [ "$(cat "$2/metrics.csv" 2>/dev/null | wc -l)" -ge 3 ] && break
        sleep 0.1
    done
}
# stop_long SIGNAL: send it, wait up to 30 s for the run to end (then kill
# it); its exit code in rc.
stop_long() {
    kill -"$1" "$pid" 2>/dev/null
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
}

long=$tmp/long
last_cmd="rangefinder train (interrupted)"
start_long default-signal "$long"
stop_long INT
ok $((rc != 130)) "Ctrl-C stops the run with exit code 130"
check "Ctrl-C saves the checkpoint" test -s "$long/checkpoint.safetensors"
check "Ctrl-C reports status stopped" grep -q '"status":"stopped"' "$tmp/out"
run train --resume "$long" --set train.steps=1 --set train.warmup=0
failed_cleanly 1 "train.steps"
ok $? "an interrupted run resumes only to a later step"

# `timeout -s INT` signals the run and then its process group: one request
# sent twice. A second SIGINT within a second still saves (steps of about
# 0.3 s here, so the second comes mid-step).
twice=$tmp/twice
last_cmd="rangefinder train (SIGINT twice in 0.05 s)"
start_long default-signal "$twice" --set model.dim=192 --set model.ff=768 --set data.max_len=400 \
    --set data.min_len=300 --set data.batch=8
kill -INT "$pid" 2>/dev/null
sleep 0.05
stop_long INT
ok $((rc != 130)) "a SIGINT twice within a second stops the run with exit code 130 (was $rc)"
check "a SIGINT twice within a second still saves the checkpoint" test -s "$twice/checkpoint.safetensors"

usr1=$tmp/usr1
last_cmd="rangefinder train (SIGUSR1)"
start_long ignore-signal "$usr1"
kill -INT "$pid" 2>/dev/null   # ignored, as in a nohup job
sleep 0.3
kill -0 "$pid" 2>/dev/null
ok $? "a background run ignores SIGINT"
stop_long USR1
ok $((rc != 130)) "SIGUSR1 stops it with exit code 130 (was $rc)"
check "SIGUSR1 saves the checkpoint" test -s "$usr1/checkpoint.safetensors"
check "SIGUSR1 reports status stopped" grep -q '"status":"stopped"' "$tmp/out"

# --- plot: the workbench's figures of run directories, headless --------------
magic() {   # magic FILE TEXT: the file starts with TEXT
    [ "$(head -c ${#2} "$1")" = "$2" ]
}
run plot "$dir" "$long" --out "$tmp/runs.png" --size 800x500
expect_rc 0 "plot writes the training figure of two runs"
check "plot's PNG has the PNG signature" magic "$tmp/runs.png" $'\x89PNG'
check "plot's PNG is 800 x 500" test "$(od -An -tu1 -j16 -N8 "$tmp/runs.png" | tr -s ' ')" = " 0 0 3 32 0 0 1 244"
run plot "$dir" --figure memory --out "$tmp/memory.svg"
expect_rc 0 "plot writes the memory figure as SVG"
check "plot's SVG is XML" magic "$tmp/memory.svg" "<?xml"
run plot "$dir" --out "$tmp/runs.svg"
expect_rc 0 "plot writes the training figure as SVG"
check "its text is <text>, without the workbench's log buttons" \
    sh -c "grep -q '>Loss</text>' '$tmp/runs.svg' && ! grep -q '>log</text>' '$tmp/runs.svg'"
mkdir -p "$tmp/empty-run" && cp "$dir/config.ini" "$tmp/empty-run/" && head -1 "$dir/metrics.csv" >"$tmp/empty-run/metrics.csv"
expect_error 1 "plot refuses a run without rows with a sentence" "nothing to export" plot "$tmp/empty-run" --out "$tmp/x.png"
run plot "$dir" --out "$tmp/runs.pdf"
expect_rc 0 "plot writes a PDF"
check "plot's PDF has the PDF signature" magic "$tmp/runs.pdf" "%PDF"
expect_error 1 "plot of a missing run names it" "$tmp/none" plot "$tmp/none" --out "$tmp/x.png"
expect_error 2 "plot refuses an unknown format" ".jpg" plot "$dir" --out "$tmp/x.jpg"
expect_error 2 "plot refuses a bad size" "--size" plot "$dir" --out "$tmp/x.png" --size 10x
cp -r "$dir" "$tmp/broken" && echo "7,train,oops" >>"$tmp/broken/metrics.csv"
expect_error 1 "plot names the line of a malformed metrics.csv" "metrics.csv:" plot "$tmp/broken" --out "$tmp/x.png"

# --- text_folder and npy: three training steps each ---------------------------
text=$tmp/text
mkdir -p "$text/neg/older" "$text/pos"
for i in 1 2 3 4 5 6; do
    printf 'awful %s, left early\n' "$i" >"$text/neg/$i.txt"
    printf 'loved it \xff %s' "$i" >"$text/neg/older/$i.txt"
    printf 'a delight from start to end %s' "$i" >"$text/pos/$i.txt"
done
small=(--set data.max_len=32 --set data.min_len=0 --set data.val_size=2 --set data.test_size=2
       --set data.batch=4 --set model.dim=16 --set model.heads=2 --set model.ff=16 --set model.layers=1
       --set train.steps=3 --set train.eval_every=3 --set train.checkpoint_every=3 --set train.threads=1)
run train --config "$tmp/tiny.ini" --set data.task=text_folder --set data.path="$text" "${small[@]}" \
    --out "$tmp/text-run"
expect_rc 0 "train runs 3 steps on a text folder"
check "the text run finishes its 3 steps" grep -q '"status":"finished","steps":3' "$tmp/out"

# npy_u1 FILE SHAPE BYTES...: a uint8 .npy file (version 1.0, header padded to 128 bytes).
npy_u1() {
    local file=$1 shape=$2
    shift 2
    {
        printf '\x93NUMPY\x01\x00\x76\x00'
        printf '%-117s\n' "{'descr': '|u1', 'fortran_order': False, 'shape': $shape, }"
        for b in "$@"; do printf "\\x$(printf %02x "$b")"; done
    } >"$file"
}
arrays=$tmp/arrays
mkdir -p "$arrays"
tokens=()
labels=()
for r in 0 1 2 3 4 5 6 7; do
    tokens+=($((r % 5 + 1)) $((r % 3 + 1)) $((r % 2 + 1)) 0)
    labels+=($((r % 2)))
done
npy_u1 "$arrays/x.npy" "(8, 4)" "${tokens[@]}"
npy_u1 "$arrays/y.npy" "(8,)" "${labels[@]}"
run train --config "$tmp/tiny.ini" --set data.task=npy --set data.path="$arrays" "${small[@]}" --out "$tmp/npy-run"
expect_rc 0 "train runs 3 steps on x.npy + y.npy"
check "the npy run finishes its 3 steps" grep -q '"status":"finished","steps":3' "$tmp/out"
npy_u1 "$arrays/y.npy" "(7,)" 0 1 0 1 0 1 0
expect_error 1 "npy: 7 labels for 8 rows is one clear error naming y.npy" "y.npy: shape|8 rows" \
    train --config "$tmp/tiny.ini" --set data.task=npy --set data.path="$arrays" "${small[@]}" --out "$tmp/npy-bad"

tap_end
