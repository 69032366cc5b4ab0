#!/bin/bash
# The ListOps reproduction runs on this CPU, one after another, in the
# background while other work goes on: each NAME trains
# data/configs/listops-NAME.ini into bench/runs/listops-NAME, or continues
# it from its last checkpoint when it is committed part way there; a
# finished run (its last metrics row is the test row) is skipped. A BLRP
# run that finishes here also gets its length test (data.concat = 1..4,
# eval-concatK.json beside it). Logs go to $LOGS/listops-NAME.log (default
# /tmp). Stop it with SIGUSR1 or SIGTERM: the
# running run saves its checkpoint and the queue ends, ready to commit and
# to continue in the next sitting with the same command.
#   [THREADS=1] [RF=build/rangefinder] [LOGS=/tmp] bash bench/cpu_runs.sh NAME...
set -u
cd "$(dirname "$0")/.."
THREADS=${THREADS:-1}
LOGS=${LOGS:-/tmp}
# a copy, so that rebuilding the tree meanwhile leaves the runs alone
BIN=$(mktemp /tmp/rf-runs-XXXXXX)
cp "${RF:-build/rangefinder}" "$BIN" && chmod +x "$BIN" || exit 2
child=
stopped=
stop() { stopped=1; [ -n "$child" ] && kill -USR1 "$child" 2>/dev/null; }
trap stop USR1 TERM INT

finished() { tail -1 "$1/metrics.csv" 2>/dev/null | grep -q ',test,'; }

for name in "$@"; do
    [ -n "$stopped" ] && break
    dir=bench/runs/listops-$name
    log=$LOGS/listops-$name.log
    if finished "$dir"; then echo "$name: finished already"; continue; fi
    if [ -f "$dir/checkpoint.safetensors" ]; then
        how=(--resume "$dir")
    else
        how=(--config "data/configs/listops-$name.ini" --out "$dir" --set train.eval_every=250
             --set train.checkpoint_every=250)
    fi
    echo "$name: train ${how[*]} on $THREADS thread(s), $(date -u +%H:%M)"
    "$BIN" train "${how[@]}" --set train.threads="$THREADS" --set train.device=cpu >> "$log" 2>&1 &
    child=$!
    # wait returns early when a trapped signal arrives: wait again for the save
    while kill -0 "$child" 2>/dev/null; do wait "$child"; done
    child=
    echo "$name: $(tail -1 "$log")"
    if [[ $name == blrp* ]] && finished "$dir" && [ -z "$stopped" ]; then
        for k in 1 2 3 4; do
            "$BIN" eval --checkpoint "$dir/checkpoint.safetensors" --set data.concat=$k --set data.batch=8 \
                --set train.threads="$THREADS" --json > "$dir/eval-concat$k.json" 2>&1
            echo "$name concat $k: $(cat "$dir/eval-concat$k.json")"
        done
    fi
done
rm -f "$BIN"
