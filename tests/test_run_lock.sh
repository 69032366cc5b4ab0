#!/usr/bin/env bash
# One trainer per run folder (TAP): `rangefinder train` locks its run
# folder (config/run_lock.h) for as long as it runs.
#
#  1. A `train --resume` on a folder being trained is refused: exit 1, one
#     line naming the trainer's pid; the trainer goes on, and its
#     metrics.csv (every step once, in order, no stray line) and checkpoint
#     stay whole.
#  2. Two new runs started at once into one fresh folder: one trains, the
#     other is refused naming it.
#  3. Readers (eval, inspect, plot) work on a run being trained, which
#     stays locked meanwhile, and create no lock file where there is none.
#  4. A SIGKILLed trainer leaves no stale lock: the next --resume trains,
#     and holds the folder in turn.
#
#   tests/test_run_lock.sh PATH/TO/rangefinder
set -u

rf=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rf-lock.XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

count=0
failed=0

# ok STATUS NAME [DIAGNOSTIC]: one TAP line (STATUS 0 passes).
ok() {
    count=$((count + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $count - $2"
    else
        failed=$((failed + 1))
        echo "not ok $count - $2"
        [ -n "${3:-}" ] && echo "# $3"
        sed 's/^/# stderr: /' "$tmp/err" 2>/dev/null | tail -n 5
    fi
}

# run ARGS...: rangefinder ARGS (stopped with SIGINT, which saves, after 20 s:
# a trainer the lock failed to refuse ends too), output in $tmp/out and
# $tmp/err, exit in $rc.
rc=0
run() {
    timeout -s INT 20 "$rf" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# start NAME ARGS...: rangefinder ARGS in the background, output in
# $tmp/NAME.out and $tmp/NAME.err; its pid in $started.
started=
start() {
    local name=$1
    shift
    "$rf" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    started=$!
    pids+=("$started")
}

# stop PID: ask the trainer to stop and save (SIGUSR1); its exit in $rc.
stop() {
    kill -USR1 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    rc=$?
}

# wait_for_file FILE: up to 60 s.
wait_for_file() {
    for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done
    return 1
}

# refused_by PID DIR: the last command exited 1 with the one line that names PID.
refused_by() {
    [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        [ "$(cat "$tmp/err")" = "rangefinder: $2 is being trained by process $1 (rangefinder train); wait for it to finish or stop it" ]
}

# whole_run DIR: empty if DIR's metrics.csv has the header, then rows of six
# fields with the training steps 1..n each once and in order, n the step
# of the checkpoint, which loads; else what is wrong.
whole_run() {
    local dir=$1 step rows
    timeout 60 "$rf" eval --checkpoint "$dir/checkpoint.safetensors" --json >"$tmp/eval.out" 2>"$tmp/eval.err" ||
        { echo "the checkpoint does not load: $(head -c 300 "$tmp/eval.err")"; return; }
    step=$(grep -o '"step":[0-9]*' "$tmp/eval.out" | cut -d: -f2)
    [ "$(head -n 1 "$dir/metrics.csv")" = "step,split,loss,accuracy,lr,seconds" ] || { echo "no header"; return; }
    [ -z "$(tail -c 1 "$dir/metrics.csv")" ] || { echo "the last line is cut short"; return; }
    rows=$(awk -F, 'NR > 1 && NF != 6 { bad = "a line of " NF " fields: " $0; exit }
                    NR > 1 && $2 == "train" && $1 != ++n { bad = "training step " $1 " where " n " belongs"; exit }
                    END { print bad != "" ? bad : n + 0 }' "$dir/metrics.csv")
    [ -z "$(cut -d, -f1,2 "$dir/metrics.csv" | sort | uniq -d)" ] || { echo "a repeated row"; return; }
    [ "$rows" = "$step" ] || echo "training rows: $rows; checkpoint step: $step"
}

# A tiny ListOps model, a few ms a step, that trains until stopped.
cat >"$tmp/tiny.ini" <<'EOF'
[data]
task = listops
max_len = 40
min_len = 10
train_size = 256
val_size = 8
test_size = 8
batch = 2

[model]
dim = 8
heads = 2
ff = 16
layers = 1

[train]
steps = 1000000
eval_every = 50
eval_batches = 1
checkpoint_every = 10
log_every = 1
threads = 1
seed = 5
EOF

# --- 1. a second trainer on a folder being trained --------------------------------
dir=$tmp/run
start first train --config "$tmp/tiny.ini" --out "$dir"
first=$started
wait_for_file "$dir/checkpoint.safetensors"
ok $? "a run trains and writes its first checkpoint"
run train --resume "$dir" --set train.steps=2000000
refused_by "$first" "$dir"
ok $? "train --resume on it is refused: exit 1, one line naming process $first" "exit $rc"
run train --resume "$dir/" --set train.steps=2000000
[ "$rc" -eq 1 ] && grep -qF "is being trained by process $first (rangefinder train)" "$tmp/err"
ok $? "also when the folder is named another way ($dir/)"
sleep 0.3   # the first trains on past the refusals
stop "$first"
[ "$rc" -eq 130 ] && [ ! -s "$tmp/first.err" ]
ok $? "the first trainer goes on and stops cleanly when asked (exit $rc)" "$(head -c 300 "$tmp/first.err")"
problem=$(whole_run "$dir")
[ -z "$problem" ]
ok $? "its metrics.csv has every training step once, in order, up to its checkpoint's, which loads" "$problem"

# --- 2. two new runs racing into one fresh folder ------------------------------------
race=$tmp/race
# the checkpoint comes late, so neither is refused for finding one
start a train --config "$tmp/tiny.ini" --out "$race" --set train.checkpoint_every=100000
a=$started
start b train --config "$tmp/tiny.ini" --out "$race" --set train.checkpoint_every=100000
b=$started
winner=
for _ in $(seq 300); do
    if ! kill -0 "$a" 2>/dev/null; then winner=$b loser=$a; break; fi
    if ! kill -0 "$b" 2>/dev/null; then winner=$a loser=$b; break; fi
    sleep 0.1
done
if [ -z "$winner" ]; then
    ok 1 "of two new runs into one folder, one is refused" "both still train after 30 s"
    stop "$a"
    stop "$b"
else
    wait "$loser"
    rc=$?
    [ "$loser" = "$a" ] && cp "$tmp/a.err" "$tmp/err" || cp "$tmp/b.err" "$tmp/err"
    refused_by "$winner" "$race"
    ok $? "of two new runs into one folder, one is refused naming the other, process $winner" "exit $rc"
    sleep 0.3
    stop "$winner"
    [ "$rc" -eq 130 ] && problem=$(whole_run "$race") && [ -z "$problem" ]
    ok $? "the other trains, and its run is whole" "exit $rc; $problem"
fi

# --- 3. readers on a run being trained --------------------------------------------
start again train --resume "$dir" --set train.steps=2000000
again=$started
for _ in $(seq 600); do grep -q '^resuming ' "$tmp/again.out" && break; sleep 0.1; done
run eval --checkpoint "$dir/checkpoint.safetensors" --json
[ "$rc" -eq 0 ] && grep -q '"accuracy"' "$tmp/out"
ok $? "eval of a run being trained"
run inspect --checkpoint "$dir/checkpoint.safetensors" --list
[ "$rc" -eq 0 ] && [ -s "$tmp/out" ]
ok $? "inspect of a run being trained"
run plot "$dir" --out "$tmp/curves.png"
[ "$rc" -eq 0 ] && [ -s "$tmp/curves.png" ]
ok $? "plot of a run being trained"
run train --resume "$dir" --set train.steps=3000000
refused_by "$again" "$dir"
ok $? "and meanwhile the run stays locked by its trainer, process $again" "exit $rc"
stop "$again"
[ "$rc" -eq 130 ]
ok $? "which stops cleanly (exit $rc)" "$(head -c 300 "$tmp/again.err")"
copy=$tmp/copy
mkdir "$copy"
cp "$dir/checkpoint.safetensors" "$dir/metrics.csv" "$dir/config.ini" "$copy"
readers_rc=0
run eval --checkpoint "$copy/checkpoint.safetensors"
readers_rc=$((readers_rc | rc))
run plot "$copy" --out "$tmp/copy.png"
readers_rc=$((readers_rc | rc))
run inspect --checkpoint "$copy/checkpoint.safetensors" --list
readers_rc=$((readers_rc | rc))
[ "$readers_rc" -eq 0 ] && [ ! -e "$copy/.lock" ]
ok $? "readers create no lock file in a run folder without one"

# --- 4. a SIGKILLed trainer leaves no stale lock -----------------------------------
killed=$tmp/killed
start killed train --config "$tmp/tiny.ini" --out "$killed"
victim=$started
wait_for_file "$killed/checkpoint.safetensors"
sleep 0.2
kill -KILL "$victim"
wait "$victim" 2>/dev/null
start next train --resume "$killed" --set train.steps=2000000
next=$started
for _ in $(seq 600); do grep -q '^resuming ' "$tmp/next.out" && break; kill -0 "$next" 2>/dev/null || break; sleep 0.1; done
grep -q '^resuming ' "$tmp/next.out" && kill -0 "$next" 2>/dev/null
ok $? "after a SIGKILL of its trainer (process $victim) the next --resume trains" "$(head -c 300 "$tmp/next.err")"
run train --resume "$killed" --set train.steps=3000000
refused_by "$next" "$killed"
ok $? "and holds the folder in turn: another --resume is refused naming process $next" "exit $rc"
stop "$next"
[ "$rc" -eq 130 ] && problem=$(whole_run "$killed") && [ -z "$problem" ]
ok $? "the resumed run stops cleanly and is whole" "exit $rc; $problem"

echo "1..$count"
[ "$failed" -eq 0 ]
