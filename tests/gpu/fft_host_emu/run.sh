#!/usr/bin/env bash
# Runs the FFT passes' own source (plugins/cuda/fft_pass.cuh, fft_radix.cuh) on CPU threads (no
# GPU): fft_pass.cuh, fft_radix.cuh and common.cuh are compiled as host C++ with the stand-ins here (shim.h: keywords, threadIdx,
# __syncthreads as a std::barrier, __brev, sincospif; pdl.cuh: launchKernel runs the grid block by
# block, 256 threads each, NaN-filled shared memory), with the planner (plan_separable.cpp) making the
# passes; main.cpp checks the results against float64.
#   bash tests/gpu/fft_host_emu/run.sh [--quick] [--mixed] [--tiny]
#   TSAN=1: under ThreadSanitizer (shared-memory races; with --tiny, the full set is too slow there)
# CXX (default g++) and CUDA_INC (default /usr/local/cuda/include) as needed; ctest runs it as
# cuda_fft_host_emu (--quick; tests/cpp/CMakeLists.txt), no GPU needed.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cp tests/gpu/fft_host_emu/{shim.h,pdl.cuh,smem_limit.h} "$D"/
cp plugins/cuda/{common.cuh,dft_pass.h,fft_pass.cuh,fft_pass_long.cuh,fft_pass_radix2.cuh,fft_pass_static.cuh,fft_plane.cuh,fft_radix.cuh,mixing_c2r.cuh,plan.h,plan_separable.h} "$D"/
FLAGS="-O2"
[ "${TSAN:-0}" = 1 ] && FLAGS="-O1 -g -fsanitize=thread"
${CXX:-g++} -std=c++20 $FLAGS -c -Iplugins/include plugins/cuda/plan_separable.cpp -o "$D"/plan_separable.o
${CXX:-g++} -std=c++20 $FLAGS -c -Iplugins/include plugins/cuda/plan.cpp -o "$D"/plan.o
${CXX:-g++} -std=c++20 $FLAGS -w -include "$D"/shim.h -I"$D" -Iplugins/include -I"$CUDA_INC" \
    tests/gpu/fft_host_emu/main.cpp "$D"/plan_separable.o "$D"/plan.o -pthread -o "$D"/fft_host_emu
"$D"/fft_host_emu "$@"
