#!/usr/bin/env bash
# `rangefinder sweep` end to end (TAP): a grid of tiny ListOps trials with
# median-rule early stopping, the results table, the trials as run folders,
# budget_runs, a run again skipping every ended trial, a sweep killed
# (SIGKILL) and run again going on without training an ended trial twice,
# a bad sweep file refused before anything is written, and
# `plot --parallel` of the sweep.
#
#   tests/test_sweep_cli.sh PATH/TO/rangefinder
set -u
rf=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rf-sweep-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
TAP_DETAIL=$tmp/err
runs=$tmp/runs

# sweep_file NAME STEPS KEYS...: a grid sweep file of tiny ListOps trials.
sweep_file() {
    local name=$1 steps=$2
    shift 2
    {
        printf '[sweep]\nmethod = grid\nmetric = val_loss\nearly_stop = median\nmin_evaluations = 1\n'
        printf '[data]\ntask = listops\nmax_len = 60\nmin_len = 10\ntrain_size = 64\nval_size = 16\n'
        printf 'test_size = 16\nbatch = 4\n[model]\ndim = 16\nheads = 2\nff = 32\n'
        printf '[train]\nsteps = %s\neval_every = 2\nlog_every = 2\ncheckpoint_every = 4\nthreads = 1\n' "$steps"
        printf '[keys]\n'
        printf '%s\n' "$@"
    } >"$tmp/$name.ini"
}

# --- a grid with early stopping ---
# The third trial does not learn at all (lr 0): its validation loss at step
# 4 lies above the median of the first two there, so the rule stops it.
sweep_file lr 8 'train.lr = 0.01, 0.005, 0'
"$rf" sweep "$tmp/lr.ini" --list >"$tmp/out" 2>"$tmp/err"
printf 'trial 1: train.lr=0.01\ntrial 2: train.lr=0.005\ntrial 3: train.lr=0\n' | cmp -s - "$tmp/out"
ok $? "--list prints the grid's trials in the file's order" "$tmp/out"
"$rf" sweep "$tmp/lr.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
ok $? "a sweep of three tiny trials runs" "$tmp/out" "$tmp/err"
table=$runs/lr/sweep.csv
head -1 "$table" | grep -qx 'trial,train.lr,status,reason,best_val_loss,final_val_loss,steps,seconds,folder'
ok $? "sweep.csv has a column per swept key and the results" "$table"
test "$(grep -c ',finished,' "$table")" = 2
ok $? "two trials finished" "$table"
stopped=$(grep '^3,0,stopped early,' "$table")
ok $? "the trial that does not learn is stopped early" "$table"
# its reason: "stopped early at step S: val_loss V above the median M of 2 trials", V > M, S < 8
echo "$stopped" | awk -F, '{ print $4 }' |
    sed -n 's/^stopped early at step \([0-9]*\): val_loss \([0-9.]*\) above the median \([0-9.]*\) of 2 trials$/\1 \2 \3/p' |
    awk '{ exit !($1 < 8 && $2 > $3) }'
ok $? "its reason names the step, its loss above the median of the 2 others ($stopped)" "$table"
test "$(echo "$stopped" | awk -F, '{ print $7 }')" -lt 8
ok $? "it stopped before the last step" "$table"
grep -q '"status":"stopped early"' "$runs/lr/sweep.json" && grep -q '"key":"train.lr","kind":"list"' "$runs/lr/sweep.json"
ok $? "sweep.json holds the same table and the keys' kinds" "$runs/lr/sweep.json"
grep -qx 'lr=0.005' "$runs/lr/trial-002/config.ini" && test -f "$runs/lr/trial-002/checkpoint.safetensors"
ok $? "each trial is a run folder with its config and checkpoint" "$runs/lr/trial-002/config.ini"
"$rf" plot "$runs/lr/trial-001" --out "$tmp/trial.png" >"$tmp/out" 2>"$tmp/err"
ok $? "plot draws a trial like any run"

# --- run again: nothing to do ---
cp "$table" "$tmp/before.csv"
"$rf" sweep "$tmp/lr.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
ok $? "the same command again succeeds" "$tmp/err"
! grep -q '^training\|^resuming' "$tmp/out"
ok $? "and trains nothing: every trial had ended" "$tmp/out"
cut -d, -f1-7 "$tmp/before.csv" | cmp -s - <(cut -d, -f1-7 "$table")
ok $? "the table is the same" "$table"

# --- a changed file into the same sweep folder is refused ---
sweep_file lr 8 'train.lr = 0.005, 0.02'
"$rf" sweep "$tmp/lr.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
test $? -ne 0 && grep -q 'was begun with another sweep file' "$tmp/err"
ok $? "another sweep file into the same folder is refused: $(cat "$tmp/err")"

# --- budget_runs ---
sweep_file budget 4 'train.lr = 0.005, 0.01, 0.02' 'model.encoder = full, linear'
sed -i 's/^method = grid$/method = grid\nbudget_runs = 2/' "$tmp/budget.ini"
"$rf" sweep "$tmp/budget.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
ok $? "a sweep with budget_runs = 2 runs" "$tmp/err"
test "$(ls -d "$runs"/budget/trial-* | wc -l)" = 2 && test "$(tail -n +2 "$runs/budget/sweep.csv" | wc -l)" = 2
ok $? "budget_runs = 2 trains the first 2 of the 6 combinations" "$runs/budget/sweep.csv"
grep -q '^2,0.005,linear,' "$runs/budget/sweep.csv"
ok $? "the second is the grid's second combination (the last key changes fastest)" "$runs/budget/sweep.csv"

# --- a failed trial, and a time budget ---
# Trials 1 and 2 cannot open their data and fail (with the reason); trial 3
# trains and spends the 0.6 ms budget, so trial 4 never starts.
sweep_file budget_time 4 'data.task = lra_tsv, listops' 'train.lr = 0.001, 0.002'
sed -i 's|^method = grid$|method = grid\nbudget_minutes = 0.00001|; s|^\[data\]$|[data]\npath = /nonexistent/listops|' \
    "$tmp/budget_time.ini"
"$rf" sweep "$tmp/budget_time.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
ok $? "a sweep with failing trials goes on and ends well" "$tmp/out" "$tmp/err"
test "$(grep -c '^[12],lra_tsv,.*,failed,"/nonexistent/listops: neither basic_train.tsv' "$runs/budget_time/sweep.csv")" = 2
ok $? "the failed trials are in the table with the error" "$runs/budget_time/sweep.csv"
grep -q '^3,listops,0.001,finished,' "$runs/budget_time/sweep.csv" && test "$(tail -n +2 "$runs/budget_time/sweep.csv" | wc -l)" = 3 &&
    grep -q 'the time budget of 1e-05 minutes is spent' "$tmp/out"
ok $? "the time budget spent by trial 3, trial 4 does not start" "$runs/budget_time/sweep.csv" "$tmp/out"

# --- killed and run again ---
# Killed while trial 2 trains, after its first checkpoint: run again, trial
# 1 is skipped, trial 2 resumed from its checkpoint, trial 3 trained.
sweep_file killed 200 'train.lr = 0.004, 0.005, 0.006'
sed -i 's/^early_stop = median$/early_stop = off/' "$tmp/killed.ini"
"$rf" sweep "$tmp/killed.ini" --runs "$runs" >"$tmp/killed1.out" 2>&1 &
pid=$!
for _ in $(seq 1 1000); do
    [ -f "$runs/killed/trial-002/checkpoint.safetensors" ] && break
    sleep 0.01
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
test -f "$runs/killed/trial-001/trial.ini" && test ! -f "$runs/killed/trial-002/trial.ini" &&
    test -f "$runs/killed/trial-002/checkpoint.safetensors"
ok $? "the sweep was killed (SIGKILL) in trial 2, after its first checkpoint" "$tmp/killed1.out"
md5sum "$runs/killed/trial-001/metrics.csv" >"$tmp/sums"
"$rf" sweep "$tmp/killed.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
ok $? "the same command again finishes the sweep" "$tmp/out" "$tmp/err"
! grep -q "^training $runs/killed/trial-001:" "$tmp/out" && md5sum -c --quiet "$tmp/sums" >/dev/null 2>&1
ok $? "trial 1, which had ended, is not trained again (its metrics.csv unchanged)" "$tmp/out"
grep -q "^resuming $runs/killed/trial-002:" "$tmp/out"
ok $? "trial 2 is resumed from its checkpoint" "$tmp/out"
test "$(grep -c ',finished,' "$runs/killed/sweep.csv")" = 3 && grep -q '^2,0.005,finished,,.*,200,' "$runs/killed/sweep.csv"
ok $? "all 3 trials finished, trial 2 at its last step" "$runs/killed/sweep.csv"
for t in 1 2 3; do
    awk -F, '$2 == "train" { print $1 }' "$runs/killed/trial-00$t/metrics.csv" | sort -n | uniq -d
done >"$tmp/dups"
test ! -s "$tmp/dups"
ok $? "every trial's metrics.csv has each step once (the killed trial resumed, not doubled)" "$tmp/dups"

# --- asked to stop (SIGUSR1, what Ctrl-C does in a terminal) and run again ---
sweep_file asked 200 'train.lr = 0.004, 0.005'
sed -i 's/^early_stop = median$/early_stop = off/' "$tmp/asked.ini"
"$rf" sweep "$tmp/asked.ini" --runs "$runs" >"$tmp/asked.out" 2>&1 &
pid=$!
for _ in $(seq 1 1000); do
    [ -f "$runs/asked/trial-002/checkpoint.safetensors" ] && break
    sleep 0.01
done
kill -USR1 "$pid"
wait "$pid"
test $? = 130 && grep -q '^2,0.005,interrupted,' "$runs/asked/sweep.csv" &&
    grep -q 'sweep interrupted at trial 2; run the same command again to go on' "$tmp/asked.out"
ok $? "asked to stop, the sweep saves the trial, records it interrupted and exits 130" "$tmp/asked.out"
"$rf" sweep "$tmp/asked.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
test $? = 0 && grep -q "^resuming $runs/asked/trial-002:" "$tmp/out" && grep -q '^2,0.005,finished,' "$runs/asked/sweep.csv"
ok $? "run again, it resumes that trial and finishes it" "$tmp/out" "$runs/asked/sweep.csv"

# --- one process per sweep ---
sweep_file twice 200 'train.lr = 0.004, 0.005'
"$rf" sweep "$tmp/twice.ini" --runs "$runs" >"$tmp/twice.out" 2>&1 &
pid=$!
for _ in $(seq 1 1000); do
    [ -f "$runs/twice/trial-001/checkpoint.safetensors" ] && break
    sleep 0.01
done
"$rf" sweep "$tmp/twice.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
rc=$?
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
test $rc = 1 && grep -qx "rangefinder: $runs/twice is being trained by process $pid (rangefinder sweep); wait for it to finish or stop it" "$tmp/err"
ok $? "a second sweep of the same folder is refused, naming the first: $(cat "$tmp/err")"

# --- a bad sweep file: refused before anything is written ---
sweep_file bad 4 'train.lr = 0.005' 'model.heads = 2, 3'
"$rf" sweep "$tmp/bad.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
test $? -ne 0 && grep -q "bad.ini: trial 2 (train.lr=0.005, model.heads=3)" "$tmp/err" && test ! -e "$runs/bad"
ok $? "a trial whose config is invalid stops the sweep before any run: $(cat "$tmp/err")"
sweep_file bad 4 'model.encoder = ls, lstm'
"$rf" sweep "$tmp/bad.ini" --runs "$runs" >"$tmp/out" 2>"$tmp/err"
test $? -ne 0 && grep -q "bad.ini:[0-9]*: \[keys\] model.encoder: .*'lstm'" "$tmp/err" && test ! -e "$runs/bad"
ok $? "a bad value names the file and its line: $(cat "$tmp/err")"

# --- plot --parallel ---
"$rf" plot --parallel "$runs/lr" --out "$tmp/parallel.png" --size 1024x600 >"$tmp/out" 2>"$tmp/err"
test $? = 0 && test -s "$tmp/parallel.png" && grep -q 'parallel coordinates of 3 trials' "$tmp/out"
ok $? "plot --parallel draws the sweep: $(cat "$tmp/out")" "$tmp/err"
"$rf" plot --parallel "$runs/lr" --out "$tmp/parallel.svg" >"$tmp/out" 2>"$tmp/err"
grep -q '>train.lr<' "$tmp/parallel.svg" && grep -q 'val_loss<' "$tmp/parallel.svg"
ok $? "its SVG names the key's axis and the metric's" "$tmp/parallel.svg"
"$rf" plot --parallel "$runs/lr/trial-001" --out "$tmp/no.png" >"$tmp/out" 2>"$tmp/err"
test $? -ne 0 && grep -q 'not a sweep folder' "$tmp/err"
ok $? "a folder that is not a sweep's is refused: $(cat "$tmp/err")"

tap_end
