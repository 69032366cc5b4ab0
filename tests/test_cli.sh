#!/usr/bin/env bash
# The `rangefinder` command line end to end (TAP): a tiny training run and
# what it writes, resume, eval, bench, memory, config, Ctrl-C, and bad input
# that must give one clear error line and a non-zero exit, never a crash.
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

count=0
failed=0

# ok CONDITION-EXIT-CODE NAME: one TAP line; on failure, the last command's output.
ok() {
    count=$((count + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $count - $2"
    else
        failed=$((failed + 1))
        echo "not ok $count - $2"
        echo "# last command: ${last_cmd:-}, exit $rc"
        sed 's/^/# stdout: /' "$tmp/out" 2>/dev/null | tail -n 15
        sed 's/^/# stderr: /' "$tmp/err" 2>/dev/null | tail -n 15
    fi
}

# check NAME COMMAND...: ok if COMMAND succeeds.
check() {
    local name=$1
    shift
    "$@"
    ok $? "$name"
}

# run ARGS...: rangefinder with ARGS; stdout, stderr and exit code kept.
rc=0
run() {
    last_cmd="rangefinder $*"
    (cd "$cwd" && exec "$rf" "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
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

# A failed command: exit 1..127 (no signal), one line "rangefinder: ..."
# on stderr containing every PATTERN (fixed strings).
failed_cleanly() {
    [ "$rc" -gt 0 ] && [ "$rc" -lt 128 ] || return 1
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || return 1
    grep -q '^rangefinder: ' "$tmp/err" || return 1
    for pattern in "$@"; do
        grep -qF -- "$pattern" "$tmp/err" || return 1
    done
}

# expect_error NAME 'PATTERN|PATTERN' ARGS...: rangefinder ARGS fails cleanly.
expect_error() {
    local name=$1 patterns=$2
    shift 2
    run "$@"
    IFS='|' read -r -a list <<<"$patterns"
    failed_cleanly "${list[@]}"
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

# --- help and usage --------------------------------------------------------
run --help
missing=0
for verb in train eval bench memory config; do grep -q "^  $verb " "$tmp/out" || missing=1; done
ok $missing "--help lists train, eval, bench, memory, config"
run train --help
check "train --help describes --resume" grep -q -- '--resume' "$tmp/out"
expect_error "an unknown verb is a usage error" "unknown verb 'frobnicate'" frobnicate
[ "$rc" -eq 2 ]
ok $? "usage errors exit 2"
expect_error "train without --config is a usage error" "--config" train
expect_error "an unknown option is a usage error" "--frobnicate" train --frobnicate

# --- a tiny run --------------------------------------------------------------
run train --config "$tmp/tiny.ini" "${tiny[@]}" --out "$dir"
ok $? "a tiny training run exits 0"
check "metrics.csv starts with the header" test "$(head -n 1 "$dir/metrics.csv")" = "$header"
check "metrics.csv has train rows every log_every steps" test "$(rows "$dir/metrics.csv" train)" -eq 3
check "metrics.csv has val rows at each evaluation" test "$(rows "$dir/metrics.csv" val)" -eq 2
check "metrics.csv ends with the test row at step 6" grep -q '^6,test,' "$dir/metrics.csv"
keys=$("$rf" config --list | wc -l)
check "config.ini holds every key" test "$(grep -c '^[a-z_0-9]*=' "$dir/config.ini")" -eq "$keys"
check "config.ini holds the overrides" grep -qx 'dim=16' "$dir/config.ini"
check "checkpoint.safetensors is written" test -s "$dir/checkpoint.safetensors"
check "the last line is the JSON summary" json_has status steps train_loss val_accuracy test_accuracy \
    test_loss seconds checkpoint planned_bytes peak_engine_bytes peak_rss_bytes
check "the summary says finished after 6 steps" grep -q '"status":"finished","steps":6,' "$tmp/out"
check "plain progress lines when stdout is not a terminal" \
    grep -q '^step 2/6 loss [0-9.]* acc [0-9.]* lr ' "$tmp/out"

expect_error "a second run into the same directory is refused" "--resume" \
    train --config "$tmp/tiny.ini" "${tiny[@]}" --out "$dir"

# --- resume ------------------------------------------------------------------
cp "$dir/metrics.csv" "$tmp/metrics.before"
expect_error "resume refuses a change of model.dim" "model.dim" train --resume "$dir" --set model.dim=32
expect_error "resume refuses a change of the data" "data.train_size" \
    train --resume "$dir" --set data.train_size=128 --set train.steps=9
check "a refused resume leaves metrics.csv alone" cmp -s "$dir/metrics.csv" "$tmp/metrics.before"
expect_error "resume of a finished run asks for more steps" "train.steps" train --resume "$dir"

run train --resume "$dir" --set train.steps=9
ok $? "resume to 9 steps exits 0"
check "resume keeps one header" test "$(grep -c '^step,' "$dir/metrics.csv")" -eq 1
check "resume appends rows up to step 9" grep -q '^9,test,' "$dir/metrics.csv"
check "rows before the resume are kept" grep -q '^6,test,' "$dir/metrics.csv"
check "the summary says 9 steps" grep -q '"steps":9,' "$tmp/out"
check "config.ini records the new train.steps" grep -qx 'steps=9' "$dir/config.ini"

# A checkpoint whose first values are NaN: the first step's loss is not finite.
cp -r "$dir" "$tmp/nan"
header_len=$(od -An -t u8 -N 8 "$tmp/nan/checkpoint.safetensors" | tr -d ' ')
printf '\377%.0s' $(seq 4096) | dd of="$tmp/nan/checkpoint.safetensors" bs=1 seek=$((8 + header_len)) \
    conv=notrunc status=none
expect_error "a non-finite loss fails, naming the last good checkpoint" "NaN|checkpoint.safetensors (step 9)" \
    train --resume "$tmp/nan" --set train.steps=12
check "a failed run reports status failed" grep -q '"status":"failed"' "$tmp/out"

# --- eval --------------------------------------------------------------------
run eval --checkpoint "$dir/checkpoint.safetensors" --json
ok $? "eval --json exits 0"
check "eval --json prints split, loss, accuracy, samples, step" json_has split loss accuracy samples step
check "eval counts the whole test split" grep -q '"samples":16,"step":9' "$tmp/out"
run eval --checkpoint "$dir/checkpoint.safetensors" --split val
check "eval prints one readable line" grep -q '^val loss [0-9.]* accuracy [0-9.]* (16 samples)$' "$tmp/out"
expect_error "eval refuses a model change" "model.heads" \
    eval --checkpoint "$dir/checkpoint.safetensors" --set model.heads=4
expect_error "eval of a missing checkpoint" "$tmp/nothing.safetensors" \
    eval --checkpoint "$tmp/nothing.safetensors"
head -c 100 "$dir/checkpoint.safetensors" >"$tmp/truncated.safetensors"
expect_error "eval of a truncated checkpoint fails cleanly" "truncated.safetensors" \
    eval --checkpoint "$tmp/truncated.safetensors"
head -c 4096 /dev/urandom >"$tmp/random.safetensors"
expect_error "eval of random bytes fails cleanly" "random.safetensors" eval --checkpoint "$tmp/random.safetensors"
: >"$tmp/empty.safetensors"
expect_error "eval of an empty file fails cleanly" "empty.safetensors" eval --checkpoint "$tmp/empty.safetensors"
expect_error "--split accepts only test or val" "--split" \
    eval --checkpoint "$dir/checkpoint.safetensors" --split train

# --- the default run directory ----------------------------------------------
run train --config "$tmp/tiny.ini" "${tiny[@]}" --set train.steps=2
ok $? "a run without --out exits 0"
check "a run without --out goes to runs/<config name>" test -s "$cwd/runs/tiny/checkpoint.safetensors"
before=$(ls -R "$cwd")

# --- bench and memory --------------------------------------------------------
run bench --config "$tmp/tiny.ini" "${tiny[@]}" --steps 3 --warmup 1 --json
ok $? "bench --json exits 0"
check "bench --json has the timing and memory keys" json_has step_s_median tokens_per_s peak_rss_bytes \
    planned_bytes peak_engine_bytes params data_wait_fraction encoder seq batch threads

run memory --config "$tmp/tiny.ini" "${tiny[@]}" --seq 64,128,256 --json
ok $? "memory --json exits 0"
check "memory --json prints one line per length" test "$(grep -c '^{"encoder":' "$tmp/out")" -eq 3
planned=$(sed -n 's/.*"planned_bytes":\([0-9]*\).*/\1/p' "$tmp/out" | tr '\n' ' ')
read -r p1 p2 p3 <<<"$planned"
[ -n "${p3:-}" ] && [ "$p1" -lt "$p2" ] && [ "$p2" -lt "$p3" ]
ok $? "planned bytes grow with the length ($planned)"
run memory --config "$tmp/tiny.ini" --seq 512,1024
check "memory prints a table" grep -q '^ *1024 ' "$tmp/out"
expect_error "memory --seq rejects a bad length" "--seq" memory --config "$tmp/tiny.ini" --seq 64,abc
check "bench and memory write no files" test "$(ls -R "$cwd")" = "$before"

# --- config ------------------------------------------------------------------
run config --list
check "config --list lists data.task with its default and choices" \
    grep -q '^data.task  *listops  *listops|random' "$tmp/out"
for shipped in default listops-full; do
    run config --show --config "$configs/$shipped.ini"
    ok $? "the shipped $shipped.ini is valid"
done
run config --show --config "$tmp/tiny.ini" --set train.lr=1e-3
check "config --show prints the effective INI" grep -qx 'lr=0.001' "$tmp/out"

# --- bad input ---------------------------------------------------------------
printf '[model]\nfrobs = 3\n' >"$tmp/unknown.ini"
expect_error "an unknown key in an INI names the file, group and key" "unknown.ini: [model] frobs:" \
    train --config "$tmp/unknown.ini" --out "$tmp/bad-run"
printf '[model]\nheads = many\n' >"$tmp/badvalue.ini"
expect_error "a bad value in an INI names the key and the value" "badvalue.ini: [model] heads:|many" \
    config --show --config "$tmp/badvalue.ini"
expect_error "a bad value via --set names the key" "model.dim|abc" \
    train --config "$tmp/tiny.ini" "${tiny[@]}" --set model.dim=abc --out "$tmp/bad-run"
expect_error "--set without '=' is explained" "section.key=value" \
    config --show --config "$tmp/tiny.ini" --set model.dim
expect_error "inconsistent keys are caught by validation" "model.heads" \
    config --show --config "$tmp/tiny.ini" --set model.dim=30 --set model.heads=4
expect_error "a missing config file is named" "$tmp/missing.ini" train --config "$tmp/missing.ini"
printf '[model\ndim = 3\n' >"$tmp/syntax.ini"
expect_error "an INI syntax error names the file" "syntax.ini" \
    train --config "$tmp/syntax.ini" --out "$tmp/bad-run"
check "failed starts create no run directory" test ! -e "$tmp/bad-run"

# --- Ctrl-C ------------------------------------------------------------------
# env --default-signal: a background job of a script starts with SIGINT ignored.
long=$tmp/long
last_cmd="rangefinder train (interrupted)"
(cd "$cwd" && exec env --default-signal=INT "$rf" train --config "$tmp/tiny.ini" "${tiny[@]}" \
    --set train.steps=100000 --set train.eval_every=0 --set train.checkpoint_every=0 --out "$long") \
    >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 300); do
    [ "$(cat "$long/metrics.csv" 2>/dev/null | wc -l)" -ge 3 ] && break
    sleep 0.1
done
kill -INT "$pid" 2>/dev/null
for _ in $(seq 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
rc=$?
ok $((rc != 130)) "Ctrl-C stops the run with exit code 130"
check "Ctrl-C saves the checkpoint" test -s "$long/checkpoint.safetensors"
check "Ctrl-C reports status stopped" grep -q '"status":"stopped"' "$tmp/out"
run train --resume "$long" --set train.steps=1 --set train.warmup=0
failed_cleanly "train.steps"
ok $? "an interrupted run resumes only to a later step"

echo "1..$count"
[ "$failed" -eq 0 ]
