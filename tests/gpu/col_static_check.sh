#!/usr/bin/env bash
# GPU check of the compile-time column FFT kernels (fftColumnPassKernel<INV, RADICES>, kFftColumnStaticRadices in
# plugins/cuda/dft_pass.h). Run from the repository root on the GPU machine after build-gpu/ is built
# (tests/gpu/build.sh) or carried in:
#
#   OUT=DIR [PREV=other/libtfno_capi.so] bash tests/gpu/col_static_check.sh
#
# 1. test_cuda_kernel (float64 oracle, NaN-poisoned outputs, every dtype) with the planner's choice and with the
#    separable algorithm forced (every 2D case then runs its column FFTs);
# 2. verify_kernel.py --quick --paths auto,separable (PyTorch float64 oracle, fused layer, CUDA-graph capture);
# 3. compute-sanitizer memcheck, racecheck, synccheck, initcheck on test_cuda_kernel's 2D cases, separable;
# 4. ncu of the layer's kernels at 1x32x64x64 m16 and 8x64x128x128 m32 (tests/gpu/ncu_layer.sh);
# 5. timing: tune_variants.py --set planner on bench/configs/gpu.json with this build and, where PREV names
#    another build's libtfno_capi.so, with that one (same run).
# Logs in $OUT; exit status 0 only when every check (1-3) passed (the failed steps are named at the end).
set -uo pipefail
cd "$(dirname "$0")/../.."
CHECK=col_static_check
source tests/gpu/check_env.sh

step "1/5 test_cuda_kernel: planner, separable forced"
for a in auto separable; do
  log="$OUT/test_cuda_kernel_$a.log"
  env TFNO_TEST_ALGO=$a timeout 150 $T > "$log" 2>&1 || failed+=("1 test_cuda_kernel algo=$a")
  echo "algo=$a: $(tail -1 "$log")"
done

step "2/5 verify_kernel.py --quick --paths auto,separable"
timeout 300 "$PY" tests/gpu/verify_kernel.py --quick --paths auto,separable > "$OUT/verify_kernel.log" 2>&1 ||
  failed+=("2 verify_kernel")
grep -E "^FAIL" "$OUT/verify_kernel.log" | head -5; tail -1 "$OUT/verify_kernel.log"

step "3/5 compute-sanitizer on test_cuda_kernel's 2D cases (separable: column FFTs)"
for tool in memcheck racecheck synccheck initcheck; do
  env TFNO_TEST_ALGO=separable TFNO_TEST_FILTER="2d " timeout 200 "$CS" --tool $tool --error-exitcode 9 $T > "$OUT/san_$tool.log" 2>&1 ||
    failed+=("3 $tool")
  echo "$tool: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/san_$tool.log" | tail -1) / $(tail -1 "$OUT/san_$tool.log")"
done

step "4/5 ncu: 1x32x64x64 m16, 8x64x128x128 m32"
OUT=$OUT/ncu timeout 200 bash tests/gpu/ncu_layer.sh "1 32 64x64 16" "8 64 128x128 32" > /dev/null 2>&1
cat "$OUT/ncu/ncu_summary.txt"

step "5/5 timing: tune_variants.py --set planner, this build${PREV:+ and $PREV}"
timeout 150 "$PY" tests/gpu/tune_variants.py --set planner --out "$OUT/this" > "$OUT/tune_this.log" 2>&1
if [ -n "${PREV:-}" ]; then
  TFNO_CAPI=$PREV timeout 150 "$PY" tests/gpu/tune_variants.py --set planner --out "$OUT/prev" > "$OUT/tune_prev.log" 2>&1
fi
echo "this build:"
cat "$OUT/this/tune_variants.md" 2>/dev/null | tail -20
[ -n "${PREV:-}" ] && { echo "previous build ($PREV):"; cat "$OUT/prev/tune_variants.md" 2>/dev/null | tail -20; }

finish_checks
