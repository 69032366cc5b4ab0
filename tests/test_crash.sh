#!/usr/bin/env bash
# `rangefinder train` under crashes and unwritable places (TAP):
#
#  1. SIGKILL at random moments (delays from a seeded sequence), at least
#     RF_CRASH_KILLS times (default 100), each followed by --resume. After
#     every kill the checkpoint loads and metrics.csv holds the training
#     steps 1..n exactly once (n the checkpoint's step, or one more: the row
#     of the step being checkpointed); every run, resumed to its end, has the
#     metrics of an uninterrupted run (step, split, loss, accuracy, lr).
#     Then the same for a curriculum of three stages, RF_CRASH_CURRICULUM_KILLS
#     times (default 40).
#  2. --resume cuts rows past the checkpoint and a row cut short, and
#     removes the temporary files of killed writes (and nothing else).
#  3. The metrics are fsync'd before every checkpoint rename, and none is
#     written after the last one (strace).
#  4. Checksums: a damaged checkpoint is refused, one without crc32 loads
#     with a warning.
#  5. A read-only folder, a missing parent, a 1 MB tmpfs: one error line,
#     the previous checkpoint intact, no temporary file left.
#
#   tests/test_crash.sh PATH/TO/rangefinder
set -u

rf=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rf-crash.XXXXXX")
mounts=()
cleanup() {
    for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
    chmod -R u+w "$tmp" 2>/dev/null
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

skip() {
    count=$((count + 1))
    echo "ok $count - $1 # SKIP $2"
}

# run ARGS...: rangefinder ARGS, output in $tmp/out and $tmp/err, exit in $rc.
rc=0
run() {
    "$rf" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# failed_cleanly PATTERN...: the last command exited 1 with one line
# "rangefinder: ..." on stderr containing every PATTERN (fixed strings).
failed_cleanly() {
    [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^rangefinder: ' "$tmp/err" || return 1
    for pattern in "$@"; do
        grep -qF -- "$pattern" "$tmp/err" || return 1
    done
}

temp_files() {   # temp_files DIR: the temporary files of killed or failed writes in DIR
    find "$1" -maxdepth 1 -name '*.tmp-*' 2>/dev/null
}

# The checkpoint's step from `eval --json` (which loads and verifies it).
checkpoint_step() {
    run eval --checkpoint "$1/checkpoint.safetensors" --json
    [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] || return 1
    grep -o '"step":[0-9]*' "$tmp/out" | cut -d: -f2
}

rows_of() {   # rows_of FILE: step,split,loss,accuracy,lr of every row (seconds differ run to run)
    cut -d, -f1-5 "$1"
}

# A tiny ListOps model: ~2 ms a step (plus the fsyncs), a checkpoint every step.
cat >"$tmp/crash.ini" <<'EOF'
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
steps = 200
eval_every = 25
eval_batches = 1
checkpoint_every = 1
log_every = 1
threads = 1
seed = 5
EOF

# --- 1. SIGKILL at random moments ---------------------------------------------
# check_after_kill DIR: empty output if the run folder is consistent, else what is wrong.
check_after_kill() {
    local dir=$1 step=0 steps
    if [ -e "$dir/checkpoint.safetensors" ]; then
        step=$(checkpoint_step "$dir") || { echo "the checkpoint does not load: $(head -c 300 "$tmp/err")"; return; }
    fi
    [ -e "$dir/metrics.csv" ] || { [ "$step" -eq 0 ] || echo "metrics.csv is missing at step $step"; return; }
    if [ -n "$(cut -d, -f1,2 "$dir/metrics.csv" | sort | uniq -d)" ]; then
        echo "metrics.csv repeats a row: $(cut -d, -f1,2 "$dir/metrics.csv" | sort | uniq -d | head -n 3 | tr '\n' ' ')"
        return
    fi
    steps=$(awk -F, '$2 == "train" { if ($1 != ++n) { print "gap"; exit } } END { print n + 0 }' "$dir/metrics.csv")
    case $steps in
        gap) echo "metrics.csv skips a training step (checkpoint at step $step)" ;;
        "$step" | "$((step + 1))") ;;
        *) echo "metrics.csv has training steps 1..$steps but the checkpoint is at step $step" ;;
    esac
}

# kill_runs CONFIG KILLS WHAT: an uninterrupted run of CONFIG, then runs of
# it killed KILLS times in all at random moments and resumed to the end.
kill_runs() {
    local config=$1 want_kills=$2 what=$3 name
    name=$(basename "$config" .ini)
    run train --config "$config" --out "$tmp/$name-ref"
    ok "$rc" "an uninterrupted run of $what (the reference)"
    rows_of "$tmp/$name-ref/metrics.csv" >"$tmp/$name-ref.rows"

    RANDOM=10   # the kill delays: 0-149 ms after each start, the same every time
    local kills=0 episodes=0 stale=0 problem= dir episode_kills args delay pid
    while [ "$kills" -lt "$want_kills" ] && [ -z "$problem" ]; do
        episodes=$((episodes + 1))
        dir=$tmp/$name-run$episodes
        episode_kills=0
        while [ -z "$problem" ]; do
            if [ -e "$dir/checkpoint.safetensors" ]; then
                args=(train --resume "$dir")
            else
                args=(train --config "$config" --out "$dir")
            fi
            if [ "$kills" -ge "$want_kills" ]; then   # enough: let this run finish
                run "${args[@]}"
                [ "$rc" -eq 0 ] || grep -q "has finished" "$tmp/err" ||
                    problem="the last resume exited $rc: $(head -c 300 "$tmp/err")"
                break
            fi
            delay=$(printf '0.%03d' $((RANDOM % 150)))
            {
                "$rf" "${args[@]}" >"$tmp/out" 2>"$tmp/err" &
                pid=$!
                sleep "$delay"
                kill -KILL "$pid"
                wait "$pid"
                rc=$?
            } 2>/dev/null
            [ "$rc" -eq 0 ] && break   # it finished before the kill
            # killed after its last checkpoint but before it exited: the run is
            # complete, and resuming it says so (exit 1)
            [ "$rc" -eq 1 ] && grep -q "has finished" "$tmp/err" && break
            if [ "$rc" -ne 137 ]; then
                problem="'rangefinder ${args[*]}' exited $rc: $(head -c 300 "$tmp/err")"
                break
            fi
            kills=$((kills + 1))
            episode_kills=$((episode_kills + 1))
            [ -n "$(temp_files "$dir")" ] && stale=$((stale + 1))
            problem=$(check_after_kill "$dir")
            [ -n "$problem" ] && problem="after kill $kills ($delay s into '${args[*]}'): $problem"
        done
        if [ -z "$problem" ]; then
            if ! rows_of "$dir/metrics.csv" | cmp -s - "$tmp/$name-ref.rows"; then
                problem="run $episodes: metrics.csv differs from the uninterrupted run's:
$(rows_of "$dir/metrics.csv" | diff - "$tmp/$name-ref.rows" | head -n 6)"
            elif [ -n "$(temp_files "$dir")" ]; then
                problem="run $episodes: temporary files left at the end: $(temp_files "$dir")"
            fi
        fi
        [ -z "$problem" ] && echo "# run $episodes: $episode_kills SIGKILLs, then resumed to the end: the uninterrupted run's metrics"
    done
    [ -z "$problem" ]
    ok $? "$what: $kills SIGKILLs at random moments over $episodes runs: every checkpoint loads, no training row \
lost or repeated, every run's metrics equal the uninterrupted run's" "$problem"
    echo "# $stale kills left a temporary file; each was gone after the next start"
}

kill_runs "$tmp/crash.ini" "${RF_CRASH_KILLS:-100}" "a tiny ListOps model"

# A curriculum (core/curriculum.h): three stages whose steps count on in
# metrics.csv, each from the last one's weights; kills also land at the
# stage boundaries, where the checkpoint on disk is the last stage's end.
sed 's/^steps = 200$/steps = 60/' "$tmp/crash.ini" >"$tmp/crash-curriculum.ini"
echo "curriculum = data.min_len=3 data.max_len=15 train.steps=50 train.lr=1e-3; data.min_len=6 data.max_len=25 data.batch=3 train.steps=40" \
    >>"$tmp/crash-curriculum.ini"
kill_runs "$tmp/crash-curriculum.ini" "${RF_CRASH_CURRICULUM_KILLS:-40}" "a curriculum of three stages"

# --- 2. --resume cuts rows past the checkpoint, removes stale temporary files -----
dir=$tmp/cut
run train --config "$tmp/crash.ini" --out "$dir" --set train.steps=3
ok "$rc" "a 3-step run"
printf '4,train,12345,0,0,1\n5,tr' >>"$dir/metrics.csv"   # a row past the checkpoint, a row cut short
touch "$dir/checkpoint.safetensors.tmp-Ab3dE9" "$dir/config.ini.tmp-zz9ZZ1" \
      "$dir/checkpoint.safetensors.tmp-notes" "$dir/metrics.csv.tmp-Ab3dE9"
run train --resume "$dir" --set train.steps=6
ok "$rc" "resumed to step 6"
steps=$(awk -F, '$2 == "train" { printf "%s ", $1 }' "$dir/metrics.csv")
[ "$steps" = "1 2 3 4 5 6 " ] && ! grep -q 12345 "$dir/metrics.csv" && ! grep -q '^5,tr$' "$dir/metrics.csv"
ok $? "resume cut the row past the checkpoint and the row cut short (training steps: $steps)"
[ ! -e "$dir/checkpoint.safetensors.tmp-Ab3dE9" ] && [ ! -e "$dir/config.ini.tmp-zz9ZZ1" ]
ok $? "resume removed the stale temporary files of checkpoint.safetensors and config.ini"
[ -e "$dir/checkpoint.safetensors.tmp-notes" ] && [ -e "$dir/metrics.csv.tmp-Ab3dE9" ]
ok $? "and left files that only look alike"

# --- 3. the metrics are on disk before each checkpoint is renamed into place -----
if ! strace -f -o /dev/null true 2>/dev/null; then
    skip "metrics.csv is fsync'd before every checkpoint rename" "strace is missing or cannot trace here"
else
    strace -f -y -e trace=write,fsync,fdatasync,rename,renameat,renameat2 -o "$tmp/trace" \
        "$rf" train --config "$tmp/crash.ini" --out "$tmp/traced" --set train.steps=5 >/dev/null 2>"$tmp/err"
    # a checkpoint renamed while a written row is not yet fsync'd is
    # "unsynced"; a row written after the last rename (the test row, say)
    # is "uncovered": a crash there could not be resumed to add it
    read -r renames unsynced uncovered < <(awk '
        /write\(.*metrics\.csv>/ { dirty = 1; late++ }
        /f(data)?sync\(.*metrics\.csv>/ { dirty = 0 }
        /rename.*"[^"]*\/checkpoint\.safetensors"/ { n++; bad += dirty; late = 0 }
        END { print n + 0, bad + 0, late + 0 }' "$tmp/trace")
    [ "$renames" -eq 5 ] && [ "$unsynced" -eq 0 ] && [ "$uncovered" -eq 0 ]
    ok $? "metrics.csv is fsync'd before every checkpoint rename, and the last checkpoint covers every row \
($renames renames, $unsynced unsynced, $uncovered rows after the last)"
fi

# --- 4. checksums -------------------------------------------------------------------
ckpt=$tmp/cut/checkpoint.safetensors
cp "$ckpt" "$tmp/nocrc.safetensors"
# the same header length: rename the key
perl -0777 -pi -e 's/"crc32":/"crc3x":/' "$tmp/nocrc.safetensors"
run eval --checkpoint "$tmp/nocrc.safetensors"
[ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^rangefinder: warning: .*crc32' "$tmp/err"
ok $? "a checkpoint without crc32 loads, with one warning line on stderr"

cp "$ckpt" "$tmp/damaged.safetensors"
size=$(stat -c %s "$tmp/damaged.safetensors")
byte=$(od -An -tu1 -j $((size - 4)) -N 1 "$tmp/damaged.safetensors" | tr -d ' ')
# the low mantissa byte of the last float: still finite, but different
printf "\\$(printf %03o $((byte ^ 1)))" | dd of="$tmp/damaged.safetensors" bs=1 seek=$((size - 4)) conv=notrunc 2>/dev/null
run eval --checkpoint "$tmp/damaged.safetensors"
failed_cleanly "damaged.safetensors" "checksum mismatch"
ok $? "a checkpoint with one changed byte is refused: checksum mismatch"

# --- 5. unwritable places -----------------------------------------------------------------
# read_only DIR: make DIR read-only for this process (a read-only bind mount
# as root, whom permissions do not stop; chmod otherwise).
read_only() {
    if [ "$(id -u)" -eq 0 ]; then
        mount --bind "$1" "$1" 2>/dev/null || return 1
        mounts=("$1" "${mounts[@]}")
        mount -o remount,bind,ro "$1" 2>/dev/null || return 1
    else
        chmod -R a-w "$1"
    fi
    ! touch "$1/probe" 2>/dev/null
}

ro=$tmp/ro
mkdir -p "$ro/empty"
run train --config "$tmp/crash.ini" --out "$ro/run" --set train.steps=2
cp "$ro/run/checkpoint.safetensors" "$tmp/ro-before.safetensors"
cp "$ro/run/metrics.csv" "$tmp/ro-before.csv"
if ! read_only "$ro"; then
    skip "train in a read-only folder" "cannot make a read-only folder here (no bind mount as root)"
else
    run train --config "$tmp/crash.ini" --out "$ro/new"
    failed_cleanly "$ro/new" && [ ! -e "$ro/new" ]
    ok $? "train --out in a read-only folder: one error line, nothing created"
    run train --config "$tmp/crash.ini" --out "$ro/empty"
    failed_cleanly "$ro/empty" && [ -z "$(ls -A "$ro/empty")" ]
    ok $? "train --out a read-only folder: one error line, no file left"
    run train --resume "$ro/run" --set train.steps=4
    failed_cleanly "$ro/run" && cmp -s "$ro/run/checkpoint.safetensors" "$tmp/ro-before.safetensors" &&
        cmp -s "$ro/run/metrics.csv" "$tmp/ro-before.csv" && [ -z "$(temp_files "$ro/run")" ]
    ok $? "train --resume of a read-only run: one error line, checkpoint and metrics untouched, no file left"
fi

touch "$tmp/a-file"
run train --config "$tmp/crash.ini" --out "$tmp/a-file/run"
failed_cleanly "cannot create $tmp/a-file/run" "Not a directory"
ok $? "train --out under a parent that is a file: one error line"

# The run folder disappears while training: the next checkpoint fails.
dir=$tmp/gone
"$rf" train --config "$tmp/crash.ini" --out "$dir" --set train.steps=100000 >/dev/null 2>"$tmp/err" &
pid=$!
for _ in $(seq 200); do [ -e "$dir/checkpoint.safetensors" ] && break; sleep 0.05; done
while [ -e "$dir" ]; do rm -rf "$dir" 2>/dev/null; done
for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
rc=$?
failed_cleanly "No such file or directory" && [ ! -e "$dir" ]
ok $? "the run folder removed while training: one error line at the next checkpoint, nothing recreated"

small=$tmp/small
mkdir "$small"
if [ "$(id -u)" -ne 0 ]; then
    skip "train on a full 1 MB tmpfs" "mounting a tmpfs needs root"
elif ! mount -t tmpfs -o size=1m tmpfs "$small" 2>/dev/null; then
    skip "train on a full 1 MB tmpfs" "mount -t tmpfs failed (no mount privilege here)"
else
    mounts=("$small" "${mounts[@]}")
    # an 840 KB checkpoint: the first fits, a second beside it does not
    run train --config "$tmp/crash.ini" --out "$small/run" --set model.dim=64 --set model.ff=128 \
        --set model.layers=2 --set train.steps=5
    failed_cleanly "No space left on device" "the last good checkpoint is kept at $small/run/checkpoint.safetensors (step 1)"
    ok $? "train on a 1 MB tmpfs: one error line when the disk fills, naming the last good checkpoint"
    [ "$(checkpoint_step "$small/run")" = 1 ]
    ok $? "the step-1 checkpoint is intact (it loads and its checksum matches)"
    [ -z "$(temp_files "$small/run")" ]
    ok $? "no partial file is left on the full disk"
fi

echo "1..$count"
[ "$failed" -eq 0 ]
