#!/usr/bin/env bash
# Rangefinder's set-up: install what is missing (Debian 12, as root), build,
# then run the workbench or the whole test suite.
#
#   ./setup.sh run     install, build, open the workbench; without a display, train
#                      the default config into the runs folder (arguments go to rangefinder)
#   ./setup.sh test    install, build (plain and with ASan/UBSan), run every
#                      test, end with the line "N passed, M failed, K skipped"
#                      (checks; with CI=true a skipped GUI or *_torch test fails)
#   ./setup.sh mutate  install, then put deliberate bugs into the engine one at a
#                      time in a scratch copy and check that the tests catch
#                      each (tests/mutate.sh, arguments go to it; not in test)
#   ./setup.sh tsan    install, build with ThreadSanitizer (build-tsan), run the
#                      tests of the threaded code (minutes: not in test)
#   ./setup.sh package install, build the Debian packages (debian/) in build-deb,
#                      check them with lintian, install them with apt and run
#                      the installed program (minutes: not in test)
set -euo pipefail
cd "$(dirname "$0")"

# webp-pixbuf-loader and librsvg2-common are gdk-pixbuf's WebP and SVG
# loaders, which image_folder reads through (docs/data-formats.md); Open MPI
# runs training across processes (parallel/, docs/scaling.md); help2man and
# groff-base's preconv make the man pages from the program's help (data/man);
# protobuf-c encodes the runs' TensorBoard event files (config/tensorboard).
build_packages=(build-essential meson ninja-build pkg-config libglib2.0-dev libopenblas-dev libdnnl-dev
                libprotobuf-c-dev protobuf-c-compiler
                libjansson-dev zlib1g-dev libgdk-pixbuf-2.0-dev libwebp-dev libsndfile1-dev libsamplerate0-dev
                libfftw3-dev libcairo2-dev libgtk-4-dev libadwaita-1-dev espeak-ng dataset-fashion-mnist
                webp-pixbuf-loader librsvg2-common libopenmpi-dev openmpi-bin help2man groff-base)
# xvfb runs the GUI tests without a screen; fonts make their text measurable;
# strace checks that metrics are synced before each checkpoint (tests/test_crash.sh);
# clang and its runtime (libFuzzer, sanitizers) build the fuzz targets (tests/fuzz);
# qemu-user runs the kernel tests on emulated CPUs without AVX-512 and without AVX
# (suite `portable`, docs/testing.md); man-db renders the man pages (tests/test_man.sh);
# dbus-daemon and x11-utils let tests/test_install.sh see the installed workbench's
# window and quit it; desktop-file-utils and appstream validate the launcher and
# the AppStream metadata (tests/test_desktop.sh).
# debhelper and dpkg-dev build the Debian packages, lintian checks them.
package_packages=(debhelper dpkg-dev lintian)
# python3-venv makes build/tb-venv, TensorBoard from PyPI for tests/check_tensorboard.py.
test_packages=(python3 python3-venv python3-numpy python3-torch sox xvfb xauth fonts-dejavu-core strace
               clang libclang-rt-14-dev qemu-user man-db dbus-daemon x11-utils desktop-file-utils appstream)

install_missing() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup: installing ${missing[*]}"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

build() {   # build DIR [meson options...]
    local dir=$1; shift
    if [ -f "$dir/build.ninja" ]; then
        meson configure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
    ninja -C "$dir" >/dev/null
}

# TensorBoard from PyPI in build/tb-venv, for tests/check_tensorboard.py
# (test tensorboard_interop) to check our event files against TensorBoard's
# own reader and writer. Without PyPI that test skips with the reason (a
# failure under CI=true).
tensorboard_venv() {
    local venv=build/tb-venv
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import tensorboard' 2>/dev/null; then
        return 0
    fi
    rm -rf "$venv"
    if ! { /usr/bin/python3 -m venv "$venv" && "$venv/bin/pip" install -q tensorboard; } >/dev/null 2>&1; then
        echo "setup: could not install tensorboard from PyPI into $venv: tensorboard_interop will skip"
        rm -rf "$venv"
    fi
}

# The OpenBLAS kernel sets (OPENBLAS_CORETYPE) this CPU can execute.
blas_coretypes() {
    local flags
    flags=$(grep -m1 '^flags' /proc/cpuinfo)
    echo Prescott
    [[ $flags == *" avx2 "* ]] && echo Haswell Zen
    [[ $flags == *" avx512f "* && $flags == *" avx512bw "* ]] && echo SkylakeX
    return 0
}

# Count the test programs and their TAP checks from testlog.json files,
# listing every skip with its reason (see tests/summarise.py).
summarise() {
    /usr/bin/python3 tests/summarise.py "$@"
}

case "${1:-}" in
run)
    install_missing "${build_packages[@]}"
    build build -Dbuildtype=release
    shift
    exec ./build/rangefinder "$@"
    ;;
test)
    install_missing "${build_packages[@]}" "${test_packages[@]}"
    # each phase's end, in seconds from here: where the run's time goes
    phase() { echo "setup: $1 at $SECONDS s"; }
    SECONDS=0
    # the build type said each time: `run` may have left `build` in release
    build build -Dbuildtype=debugoptimized -Dwerror=true
    phase "plain build done"
    # The sanitised build has no CUDA kernels: nvcc's objects are the longest
    # jobs of a build, no GPU test runs without a GPU, and the emulated
    # backend (tests/cuda_emu) is built and checked in both trees anyway.
    # -g1 (line tables, no variable records): the sanitizers' reports still
    # name file and line, and the build takes two thirds of the time (the
    # vectorised kernels' full debug records under ASan and UBSan were its
    # longest jobs: core/cpu/small_head.c 93 s against 28 s).
    build build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false -Dcuda=disabled \
        -Dc_args=-g1 -Dcpp_args=-g1
    phase "sanitised build done"
    tensorboard_venv
    status=0
    # Two tests a core: the GUI tests spend most of their time waiting for
    # the window (gui_walkthrough: 54 s, 16 s of it on a CPU).
    jobs=$((2 * $(nproc)))
    meson test -C build --print-errorlogs --num-processes "$jobs" || status=1
    phase "plain tests done"
    meson test -C build-asan --print-errorlogs --num-processes "$jobs" || status=1
    phase "sanitised tests done"
    logs=(build/meson-logs/testlog.json build-asan/meson-logs/testlog.json)
    # Every OpenBLAS kernel set this CPU can run: the numeric tests' bounds
    # must hold whatever the summation order (tests/tolerance.h).
    for coretype in $(blas_coretypes); do
        OPENBLAS_CORETYPE=$coretype meson test -C build --no-rebuild --print-errorlogs --num-processes "$jobs" \
            --suite grad --suite mechanisms --logbase "coretype-$coretype" >/dev/null || status=1
        logs+=("build/meson-logs/coretype-$coretype.json")
    done
    phase "kernel sets done"
    # Every fuzz target (tests/fuzz) for 10 s, two at a time, in a clang
    # build with ASan and UBSan: a finding fails (one check per target).
    rm -f build-fuzz/meson-logs/testlog.json
    tests/fuzz/run.sh 10 >/dev/null || status=1
    if [ -f build-fuzz/meson-logs/testlog.json ]; then logs+=(build-fuzz/meson-logs/testlog.json); fi
    phase "fuzzing done"
    summarise "${logs[@]}" || status=1
    exit $status
    ;;
mutate)
    install_missing "${build_packages[@]}" "${test_packages[@]}"
    shift
    exec tests/mutate.sh "$@"
    ;;
tsan)
    install_missing "${build_packages[@]}" "${test_packages[@]}"
    build build-tsan -Dwerror=true -Db_sanitize=thread -Db_lundef=false
    # The engine's pool (ops, model, mechanisms), the batcher (train), the
    # data sets' loader threads (data_audio, data_formats; make-dataset in cli) and the
    # session's worker thread and message queue (session, figures_*).
    status=0
    meson test -C build-tsan --print-errorlogs --num-processes 2 --timeout-multiplier 3 \
        ops_basic ops_products ops_norm ops_conv_attn model train special_values checkpoint mech_ls mech_linear \
        mech_talk mech_blrp data_audio data_formats data_augment session figures_data figures_inspect robustness cli ||
        status=1
    summarise build-tsan/meson-logs/testlog.json || status=1
    exit $status
    ;;
package)
    install_missing "${build_packages[@]}" "${package_packages[@]}"
    # dpkg-buildpackage writes its packages next to the tree it builds: build
    # in a copy of this one (what git tracks or would track) below build-deb.
    rm -rf build-deb
    mkdir -p build-deb/rangefinder
    git ls-files -z --cached --others --exclude-standard |
        tar --null --files-from=- --ignore-failed-read -c | tar -x -C build-deb/rangefinder
    # Without nvcc there is no CUDA module: leave rangefinder-cuda out.
    profiles=()
    if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
        profiles=(-Ppkg.rangefinder.nocuda)
    fi
    # nocheck: the whole suite takes far longer than the package's build
    # (./setup.sh test runs it).
    (cd build-deb/rangefinder &&
        DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b "${profiles[@]}")
    # No error and no warning that debian/*.lintian-overrides does not justify.
    lintian --fail-on error,warning build-deb/rangefinder_*.changes
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    debs=()
    for deb in build-deb/rangefinder_*.deb build-deb/rangefinder-cuda_*.deb; do
        if [ -e "$deb" ]; then debs+=("./$deb"); fi
    done
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --reinstall "${debs[@]}"
    # The installed program, away from this tree and without a display:
    # its version and 20 steps of its default config.
    tmp=$(mktemp -d)
    (cd "$tmp" && /usr/bin/rangefinder --version &&
        env -u DISPLAY -u WAYLAND_DISPLAY /usr/bin/rangefinder --runs "$tmp/runs" \
            --set train.steps=20 --set train.warmup=5 >"$tmp/train.log")
    tail -n 3 "$tmp/train.log"
    grep -q '"status":"finished","steps":20,' "$tmp/train.log" || { echo "setup: the installed rangefinder did not finish 20 steps" >&2; exit 1; }
    rm -rf "$tmp"
    ;;
*)
    echo "usage: $0 run|test|mutate|tsan|package" >&2
    exit 2
    ;;
esac
