#!/usr/bin/env bash
# GPU check of the tiled (dense-weight) mixing kernel (plugins/cuda/mixing.cuh: spectralMixKernel<T, RING, NB>,
# the batch accumulators NB a compile-time power of two) and the separable-weight kernel beside it:
#
#   OUT=DIR [PREV=other/libtfno_capi.so] [STEPS=12345] bash tests/gpu/mix_dense_check.sh
#
# test_cuda_kernel with the tiled kernel forced (TFNO_TEST_MIX_FLAT=0) without and with the weight ring, on the
# planner's and the separable algorithm (batches 1..20: NB = 1, 2, 4, 8, partial chunks); verify_kernel with the
# tiled and the flat kernel; the four sanitizers with the ring forced on; ncu at a 2D, a 1D and a 3D shape; the
# benchmark shapes against PREV's build and tune_variants --set ring (tests/gpu/kernel_check.sh runs the steps).
CHECK=mix_dense_check \
TEST_RUNS="ALGO=auto ALGO=auto,MIX_FLAT=0,MIX_RING=0 ALGO=auto,MIX_FLAT=0,MIX_RING=1 ALGO=separable,MIX_FLAT=0,MIX_RING=1" \
VERIFY_ARGS="--paths auto,separable --mix-flat 0,1" \
SAN_ENV="ALGO=auto,MIX_FLAT=0,MIX_RING=1" SAN_FILTER="${SAN_FILTER:-2d }" \
NCU_SHAPES="8 64 128x128 32;8 256 1024 256;2 32 48x48x48 12" TUNE_SETS="${TUNE_SETS-ring}" \
exec bash "$(dirname "$0")/kernel_check.sh"
