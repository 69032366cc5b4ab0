#!/bin/bash
# Pack a CUDA build to run on a GPU machine that lacks this Debian's
# libraries: the program, the *_gpu tests, every library they load except
# glibc's and CUDA's own, and Open MPI (relocatable with OPAL_PREFIX), into
# .gpu/bundle.tar.xz (about 26 MB). bench/gpu/run.sh unpacks and uses it there.
#   bench/gpu/pack.sh [BUILD_DIR]     (default build-gpu, made if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build-gpu}
if [ ! -d "$B" ]; then
    meson setup "$B" -Dcuda=enabled -Dgui=disabled -Dmpi=enabled --buildtype=release
fi
ninja -C "$B" rangefinder kernels/librfcuda.so tests/test_cuda_backend_gpu tests/test_cuda_kernels_gpu tests/test_cuda_linalg_gpu \
    tests/test_cuda_mechanisms_gpu
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
mkdir -p "$S/bin" "$S/lib" "$S/cudart" "$S/ompi" "$S/debs"
bins="$B/rangefinder $(ls "$B"/tests/test_cuda_*_gpu)"
cp $bins "$S/bin/"
# the CUDA backend module, where the program looks for it: kernels/ beside it
mkdir -p "$S/bin/kernels"
cp "$B/kernels/librfcuda.so" "$S/bin/kernels/"
# glibc's libraries and CUDA's (the machine has its own, matching its driver) stay behind
ldd $bins "$B/kernels/librfcuda.so" | awk '/=>/ {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libcuda|libcublas|libcublasLt|libnccl|libcudart)\.so' |
    xargs -I{} cp -L {} "$S/lib/"
cp -L /usr/local/cuda/lib64/libcudart.so.13 "$S/cudart/"
(cd "$S/debs" && apt-get download -q openmpi-bin libopenmpi3 libpmix2 openmpi-common libhwloc15 \
    libevent-core-2.1-7 libevent-pthreads-2.1-7 >/dev/null)
for f in "$S"/debs/*.deb; do dpkg -x "$f" "$S/ompi"; done
rm -rf "$S/debs"
mkdir -p .gpu
tar -C "$S" -cf - . | xz -T0 -6 > .gpu/bundle.tar.xz
ls -la .gpu/bundle.tar.xz
