#!/usr/bin/env bash
# GPU check of the compile-time column FFT kernels (fftColumnPassKernel<INV, RADICES>, kFftColumnStaticRadices in
# plugins/cuda/dft_pass.h):
#
#   OUT=DIR [PREV=other/libtfno_capi.so] [STEPS=12345] bash tests/gpu/col_static_check.sh
#
# test_cuda_kernel with the planner's choice and with the separable algorithm forced (every 2D case then runs its
# column FFTs); verify_kernel --paths auto,separable; the four sanitizers on the 2D cases, separable; ncu at
# 1x32x64x64 m16 and 8x64x128x128 m32; the benchmark shapes against PREV's build (tests/gpu/kernel_check.sh).
CHECK=col_static_check TEST_RUNS="ALGO=auto ALGO=separable" VERIFY_ARGS="--paths auto,separable" \
SAN_ENV="ALGO=separable" SAN_FILTER="2d " NCU_SHAPES="1 32 64x64 16;8 64 128x128 32" \
exec bash "$(dirname "$0")/kernel_check.sh"
