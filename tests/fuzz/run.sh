#!/usr/bin/env bash
# Build the libFuzzer targets (tests/fuzz/fuzz_*.c) with clang, ASan and
# UBSan, then run each for a bounded time; fails on any finding.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]       default 20
#
# The build folder is $RF_FUZZ_BUILD (default build-fuzz); targets run two
# at a time ($RF_FUZZ_JOBS). New inputs collect in BUILD/tests/fuzz/corpus/
# (kept between runs, so a long run picks up where the last stopped);
# findings and each target's log in BUILD/tests/fuzz/findings/. Per-input
# limits: see fuzz_one.sh. One target alone, for hours:
#   RF_FUZZ_SECONDS=14400 meson test -C build-fuzz --no-rebuild --suite fuzz fuzz_safetensors
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
dir=${RF_FUZZ_BUILD:-build-fuzz}
if ! command -v clang >/dev/null; then
    echo "run.sh: needs clang with libFuzzer (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
fi
options=(-Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dgui=disabled -Dcuda=disabled)
if [ -f "$dir/build.ninja" ]; then
    meson configure "$dir" "${options[@]}" >/dev/null
else
    CC=clang CXX=clang++ meson setup "$dir" "${options[@]}" >/dev/null
fi
ninja -C "$dir" fuzz >/dev/null
RF_FUZZ_SECONDS=$seconds meson test -C "$dir" --no-rebuild --suite fuzz --print-errorlogs \
    --num-processes "${RF_FUZZ_JOBS:-2}"
