#!/usr/bin/env bash
# GPU check of the mixing inside the inverse plane kernel (fft_plane.cuh mixPlaneIntoColumns, plan.cpp
# planMixInPlane, by default up to kMixInPlaneMaxMacs) and of the 1D mix-in-C2R kernel beside it:
#
#   OUT=DIR [STEPS=1235] bash tests/gpu/plane_mix_check.sh
#   OUT=DIR STEPS=5 TUNE_CONFIG=bench/configs/gpu_tune_mix_c2r.json PREV=main's/libtfno_capi.so bash tests/gpu/plane_mix_check.sh
#
# test_cuda_kernel with the planner's choice, and on the separable algorithm with the plane kernels (1024 / 256
# threads) and the mixing inside forced on, and forced off; verify_kernel with it on / off; the four sanitizers on
# the plane cases with it forced on; tune_variants --set mix_c2r on the plane shapes (bench/configs/
# gpu_tune_plane.json: mixing kernel / mixing inside / planner). The second form times the 1D mix-in-C2R shapes
# against another build's library (PREV). Logs of the first run: tests/gpu/logs/plane_mix_s22.
CHECK=plane_mix_check \
TEST_RUNS="ALGO=auto ALGO=separable,FFT_PLANE=1024,MIX_C2R=1 ALGO=separable,FFT_PLANE=256,MIX_C2R=1 ALGO=separable,FFT_PLANE=1,MIX_C2R=0" \
VERIFY_ARGS="--paths auto,separable --fft-plane 256,1024 --mix-c2r 1,0" \
SAN_ENV="ALGO=separable,FFT_PLANE=${SAN_PLANE:-1024},MIX_C2R=1" SAN_FILTER="${SAN_FILTER:-plane}" \
STEPS="${STEPS:-1235}" \
TUNE_CONFIG="${TUNE_CONFIG:-bench/configs/gpu_tune_plane.json}" TUNE_SETS="${TUNE_SETS-mix_c2r}" \
exec bash "$(dirname "$0")/kernel_check.sh"
