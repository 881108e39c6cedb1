#!/usr/bin/env bash
# Runs the PointwiseMLP CUDA kernel's own source on CPU threads (no GPU): plugins/cuda/pointwise_mlp.cu
# and common.cuh are compiled as host C++ with the stand-ins here (shim.h: keywords, threadIdx,
# __syncthreads as a barrier; pdl.cuh: launchKernel runs the grid block by block, 256 threads
# each; smem_limit.h; mma_tf32.cuh: the tensor-core kernel's mma done by the warp's CPU threads;
# TFNO_MLP_HOST_EMU: the TC kernel uses the emulator's smem), then main.cpp checks both kernels against float64.
#   bash tests/gpu/mlp_host_emu/run.sh [--quick]        TSAN=1: under ThreadSanitizer (shared-memory races)
# CXX (default g++) and CUDA_INC (default /usr/local/cuda/include) as needed; ctest runs it as
# cuda_mlp_host_emu (tests/cpp/CMakeLists.txt), no GPU needed.
set -euo pipefail
cd "$(dirname "$0")/../../.."
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cp tests/gpu/mlp_host_emu/{shim.h,pdl.cuh,smem_limit.h,mma_tf32.cuh} "$D"/
cp plugins/cuda/common.cuh plugins/cuda/sm_count.h plugins/cuda/static_switch.h plugins/cuda/pointwise_mlp_tc.cuh plugins/cuda/pointwise_mlp_tc_persistent.cuh plugins/cuda/pointwise_mlp_tc64.cuh plugins/cuda/pointwise_mlp_thread.cuh plugins/cuda/pointwise_mlp_small.cuh "$D"/
cp plugins/cuda/pointwise_mlp.cu "$D"/pointwise_mlp.cpp
FLAGS="-O2 -DTFNO_MLP_HOST_EMU"
[ "${TSAN:-0}" = 1 ] && FLAGS="-O1 -g -fsanitize=thread -DTFNO_MLP_HOST_EMU"
${CXX:-g++} -std=c++17 $FLAGS -w -include "$D"/shim.h -I"$D" -Iplugins/include -I"$CUDA_INC" \
    tests/gpu/mlp_host_emu/main.cpp "$D"/pointwise_mlp.cpp -pthread -o "$D"/mlp_host_emu
"$D"/mlp_host_emu "$@"
