#!/usr/bin/env bash
# Runs the one-kernel 1D layer's own source (plugins/cuda/one_kernel_1d.cuh) on CPU threads (no GPU),
# with the planner's plan (plan.cpp), against float64: one_kernel_1d.cuh and common.cuh compiled as host
# C++ with the stand-ins of ../fft_host_emu (shim.h: keywords, threadIdx, __syncthreads as a
# std::barrier, sincospif; smem_limit.h) and pdl.cuh here (NaN-filled shared memory per block).
#   bash tests/gpu/one_kernel_host_emu/run.sh [--quick]
#   TSAN=1: under ThreadSanitizer (shared-memory races between the barriers)
# ctest runs it as cuda_one_kernel_host_emu (--quick; tests/cpp/CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/../../.."
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cp tests/gpu/fft_host_emu/{shim.h,smem_limit.h} tests/gpu/one_kernel_host_emu/pdl.cuh "$D"/
cp plugins/cuda/{common.cuh,one_kernel_1d.cuh,plan.h,plan_separable.h,dft_pass.h} "$D"/
FLAGS="-O2"
[ "${TSAN:-0}" = 1 ] && FLAGS="-O1 -g -fsanitize=thread"
for f in plan plan_separable; do
    ${CXX:-g++} -std=c++20 $FLAGS -c -Iplugins/include plugins/cuda/$f.cpp -o "$D"/$f.o
done
${CXX:-g++} -std=c++20 $FLAGS -w -include "$D"/shim.h -I"$D" -Iplugins/include -I"$CUDA_INC" \
    tests/gpu/one_kernel_host_emu/main.cpp "$D"/plan.o "$D"/plan_separable.o -pthread -o "$D"/one_kernel_host_emu
"$D"/one_kernel_host_emu "$@"
