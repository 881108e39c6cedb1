#!/usr/bin/env bash
# GPU check of the plane kernels (plugins/cuda/fft_plane.cuh, SeparablePlan::plane: a small 2D layer's R2C + column
# FFT and column inverse + C2R as one kernel each, one plane per block):
#
#   OUT=DIR [PREV=other/libtfno_capi.so] [STEPS=12345] bash tests/gpu/fft_plane_check.sh
#
# test_cuda_kernel with the planner's choice and on the separable algorithm with the plane kernels forced on (256- and
# 1024-thread blocks) / off
# (the plane cases: 32x32, 48x48, 64x64, every dtype, Nyquist, asymmetric blocks, separable weights); verify_kernel
# with them on (both block sizes) / off (the fused layer's skip + activation on 64x64 / 48x48); the four sanitizers on
# the plane cases (forced on, SAN_PLANE=1024 or 256 threads); ncu at 1x32x64x64 m16 and darcy's batch-32 layer; the plane shapes (bench/configs/gpu_tune_plane.json)
# with tune_variants --set plane: fused plane / separable passes / separable plane / planner
# (tests/gpu/kernel_check.sh runs the steps).
CHECK=fft_plane_check \
TEST_RUNS="ALGO=auto ALGO=separable,FFT_PLANE=256 ALGO=separable,FFT_PLANE=1024 ALGO=separable,FFT_PLANE=0 ALGO=auto,FFT_PLANE=1" \
VERIFY_ARGS="--paths auto,separable --fft-plane 256,1024,0" \
SAN_ENV="ALGO=separable,FFT_PLANE=${SAN_PLANE:-1024}" SAN_FILTER="${SAN_FILTER:-plane}" \
NCU_SHAPES="1 32 64x64 16;1 8 48x48 12 f32 separable;32 32 64x64 6" \
TUNE_CONFIG="${TUNE_CONFIG:-bench/configs/gpu_tune_plane.json}" TUNE_SETS="${TUNE_SETS-plane}" \
exec bash "$(dirname "$0")/kernel_check.sh"
