#!/usr/bin/env bash
# Builds what the GPU suite needs into build-gpu/ (skipped when already built from the same sources):
# turbofno_core + libturbofno_ort.so (CPU + CUDA ops), tests/cpp (test_cuda_kernel), and the ctypes
# shim libtfno_capi.so used by tests/gpu/verify_kernel.py and bench/gpu_bench.py.
# Usage: bash tests/gpu/build.sh [archs]   (default archs: 90; ORT headers from .deps/ort-1.29.0/include)
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCHS=${1:-90}
B=${BUILD_DIR:-build-gpu}   # BUILD_DIR / CMAKE_EXTRA: a second build, e.g. CMAKE_EXTRA=-DTURBOFNO_PDL_TRIGGER_AT_START=ON
ORT_INC=${ORT_INC:-$PWD/.deps/ort-1.29.0/include}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
# a build folder configured elsewhere (another source path) cannot be reused: start it afresh
if [ -f $B/CMakeCache.txt ] && ! grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$PWD\$" $B/CMakeCache.txt; then rm -rf $B; fi
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=$NVCC -DCMAKE_CUDA_ARCHITECTURES="$ARCHS" \
  -DTURBOFNO_USE_CUDA=ON -DTURBOFNO_BUILD_TESTS=ON -DTURBOFNO_BUILD_TRT=OFF -DONNXRUNTIME_INCLUDE_DIR="$ORT_INC" ${CMAKE_EXTRA:-} >/dev/null
cmake --build $B -j "${JOBS:-$(nproc)}"
CUDA_HOME=$(dirname "$(dirname "$NVCC")")
g++ -std=c++17 -O2 -shared -fPIC -Iplugins/include -I"$CUDA_HOME/include" tests/gpu/tfno_capi.cpp \
  $B/plugins/libturbofno_core.a -L"$CUDA_HOME/lib64" -lcudart_static -ldl -lrt -lpthread -o $B/libtfno_capi.so
echo "built: $B"
