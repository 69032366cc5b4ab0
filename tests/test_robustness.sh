#!/usr/bin/env bash
# Bad input and diverging runs through the `rangefinder` command line (TAP,
# issue 10 items 2 and 5): a config file that is not text is refused before
# any training starts; an empty one is all defaults; a run that diverges
# stops at the NaN guard with exit 1 and, in the sanitizer build, without a
# sanitizer report on the way (UBSan's "runtime error:" lines).
#
#   tests/test_robustness.sh PATH/TO/rangefinder
set -u

rf=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rf-robust.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
count=0
failed=0

# check NAME COMMAND...: one TAP line, ok if COMMAND succeeds; on failure the
# last run's exit status and output.
check() {
    local name=$1
    shift
    count=$((count + 1))
    if "$@"; then
        echo "ok $count - $name"
    else
        failed=$((failed + 1))
        echo "not ok $count - $name"
        echo "# last command: $last_cmd, exit $rc"
        sed 's/^/# stdout: /' "$tmp/out" | tail -n 10
        sed 's/^/# stderr: /' "$tmp/err" | tail -n 10
    fi
}

# run ARGS...: rangefinder with ARGS in $tmp; output and exit status kept.
run() {
    last_cmd="rangefinder $*"
    (cd "$tmp" && exec "$rf" "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

no_sanitizer_report() { ! grep -q 'runtime error:\|Sanitizer' "$tmp/err"; }

# --- a config that is not text (the bytes issue 10 found accepted) ----------
printf '\000\001\002garbage\377\376' >"$tmp/garbage.ini"
# (the --set keys keep the run that an accepted file would start tiny)
run train --config "$tmp/garbage.ini" --out "$tmp/garbage-run" --set data.max_len=60 --set data.min_len=10 \
    --set data.train_size=64 --set model.dim=16 --set train.steps=1
check "train --config with a binary file exits 1" test "$rc" -eq 1
check "the error names the file and the NUL byte" \
    grep -q "^rangefinder: $tmp/garbage.ini:1:1: a NUL byte" "$tmp/err"
check "no run was started" test ! -e "$tmp/garbage-run"

printf '[model]\ndim = 3\351\n' >"$tmp/latin1.ini"
run config --show --config "$tmp/latin1.ini"
check "a Latin-1 config exits 1 naming the place" \
    eval '[ "$rc" -eq 1 ] && grep -q "latin1.ini:2:8: byte 0xe9 is not UTF-8 text" "$tmp/err"'

# --- empty configs are all defaults -------------------------------------------
: >"$tmp/empty.ini"
printf '# only a comment\n\n   \n' >"$tmp/comments.ini"
for f in empty comments; do
    run config --show --config "$tmp/$f.ini"
    check "config --show of the $f config exits 0 with the defaults" \
        eval '[ "$rc" -eq 0 ] && grep -qx "steps=5000" "$tmp/out" && grep -qx "encoder=full" "$tmp/out"'
done

# --- a diverging run ------------------------------------------------------------
# lr 10 with beta2 = 0.5 and a negligible eps: AdamW's steps stay near the
# full lr however small the gradient, the weights grow until attention scores
# lie millions apart (where rf_expf's integer arithmetic once overflowed),
# and the loss turns NaN after about 130 steps.
cat >"$tmp/tiny.ini" <<'EOF'
[data]
max_len = 60
min_len = 10
train_size = 64
val_size = 16
test_size = 16
batch = 4
[model]
dim = 16
heads = 2
ff = 32
[train]
steps = 300
lr = 10
beta2 = 0.5
eps = 1e-30
log_every = 50
eval_every = 0
checkpoint_every = 0
EOF
run train --config "$tmp/tiny.ini" --out "$tmp/diverged"
check "a diverging run exits 1" test "$rc" -eq 1
check "it stops at the NaN guard, naming the step" \
    grep -Eq "^rangefinder: step [0-9]+: the (loss|gradient norm) is (NaN|infinite)" "$tmp/err"
check "no sanitizer report on the way" no_sanitizer_report

echo "1..$count"
[ "$failed" -eq 0 ]
