#!/usr/bin/env bash
# One libFuzzer target for a bounded time, reported as one TAP check (meson
# test, suite fuzz; tests/fuzz/run.sh runs them all).
#
#   fuzz_one.sh TARGET SEEDS CORPUS FINDINGS
#
# SEEDS is the committed seed corpus (only read); CORPUS the working corpus,
# kept between runs (the inputs libFuzzer adds go there); FINDINGS where an
# input that crashes, leaks, trips a sanitizer or a check, runs too long or
# allocates too much is saved, with the log (TARGET.log).
#
# Limits per input (environment, with defaults): RF_FUZZ_SECONDS=20 for the
# whole run; RF_FUZZ_TIMEOUT=5 seconds per input (inputs are at most
# RF_FUZZ_MAX_LEN=262144 bytes, and the budget is one second per megabyte:
# the rest is headroom for ASan and a loaded machine); RF_FUZZ_RSS_MB=2048
# for the process and RF_FUZZ_MALLOC_MB=512 for any one allocation.
set -u
exe=$1 seeds=$2 corpus=$3 findings=$4
name=$(basename "$exe")
seconds=${RF_FUZZ_SECONDS:-20}
mkdir -p "$corpus" "$findings"
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
work=$(mktemp -d "$shm/rf-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$findings/$name.log
here=$(dirname "$0")
cat "$here/../lsan.supp" "$here/lsan.supp" >"$work/lsan.supp"
echo "1..1"
TMPDIR=$work \
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
LSAN_OPTIONS=suppressions=$work/lsan.supp \
    "$exe" -max_total_time="$seconds" -timeout="${RF_FUZZ_TIMEOUT:-5}" -max_len="${RF_FUZZ_MAX_LEN:-262144}" \
    -rss_limit_mb="${RF_FUZZ_RSS_MB:-2048}" -malloc_limit_mb="${RF_FUZZ_MALLOC_MB:-512}" \
    -print_final_stats=1 -artifact_prefix="$findings/$name-" "$corpus" "$seeds" >"$log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
inputs=$(find "$corpus" -type f | wc -l)
if [ $rc -eq 0 ]; then
    echo "ok 1 - $name: ${execs:-?} executions in ${seconds} s, no finding (corpus $inputs inputs)"
    exit 0
fi
what=$(grep -m1 -E '^(SUMMARY: |==[0-9]+== ?ERROR: )|fuzz check failed|libFuzzer: (out-of-memory|timeout|deadly signal)|malloc\(' "$log")
saved=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
echo "not ok 1 - $name: finding after ${execs:-?} executions: ${what:-exit status $rc}"
echo "# input: ${saved:-(not saved)}; log: $log; reproduce: $exe ${saved:-INPUT}"
tail -n 40 "$log" | sed 's/^/# /'
exit 1
