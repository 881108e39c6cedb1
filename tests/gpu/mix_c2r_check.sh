#!/usr/bin/env bash
# GPU check of the mixing inside the radix-2 C2R (plugins/cuda/mixing_c2r.cuh, Plan::mixInC2R). Run from the
# repository root on the GPU machine after build-gpu/ is built (tests/gpu/build.sh) or carried in:
#
#   OUT=DIR bash tests/gpu/mix_c2r_check.sh
#
# 1. test_cuda_kernel (float64 oracle, NaN-poisoned outputs, every dtype) with the planner's choice, the mixing
#    inside the C2R forced on (also on the separable algorithm) and forced off;
# 2. verify_kernel.py --quick --mix-c2r 1,0 (PyTorch float64 oracle, the fused layer's skip + activation,
#    CUDA-graph capture);
# 3. compute-sanitizer memcheck, racecheck, synccheck, initcheck on test_cuda_kernel's mixing-in-C2R cases;
# 4. timing: tune_variants.py --set mix_c2r (bench/configs/gpu_tune_mix_c2r.json): mixing kernel vs in the C2R.
# Logs in $OUT; exit status 0 only when every step passed (the failed steps are named at the end).
set -uo pipefail
cd "$(dirname "$0")/../.."
CHECK=mix_c2r_check
source tests/gpu/check_env.sh
last() { grep -E "$2" "$1" | tail -"${3:-2}"; }

step "1/4 test_cuda_kernel: planner, mixing in C2R forced on (auto, separable), forced off"
for v in auto:auto auto:1 separable:1 auto:0; do
  a=${v%%:*} m=${v##*:} log="$OUT/test_cuda_kernel_${a}_mix$m.log"
  env TFNO_TEST_ALGO=$a TFNO_TEST_MIX_C2R=$m timeout 150 $T > "$log" 2>&1 || failed+=("1 test_cuda_kernel algo=$a mix_c2r=$m")
  echo "algo=$a mix_c2r=$m: $(tail -1 "$log")"
done

step "2/4 verify_kernel.py --quick --paths auto,separable --mix-c2r 1,0"
timeout 300 "$PY" tests/gpu/verify_kernel.py --quick --paths auto,separable --mix-c2r 1,0 > "$OUT/verify_kernel.log" 2>&1 ||
  failed+=("2 verify_kernel --mix-c2r 1,0")
grep -E "^FAIL" "$OUT/verify_kernel.log" | head -5; tail -1 "$OUT/verify_kernel.log"

step "3/4 compute-sanitizer on test_cuda_kernel's mixing-in-C2R cases (forced on)"
for tool in memcheck racecheck synccheck initcheck; do
  env TFNO_TEST_MIX_C2R=1 TFNO_TEST_FILTER="in C2R" timeout 150 "$CS" --tool $tool --error-exitcode 9 $T > "$OUT/san_$tool.log" 2>&1 ||
    failed+=("3 $tool")
  echo "$tool: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/san_$tool.log" | tail -1) / $(grep -E "checks|failures" "$OUT/san_$tool.log" | tail -1)"
done

step "4/4 timing: tune_variants.py --set mix_c2r"
timeout 200 "$PY" tests/gpu/tune_variants.py --set mix_c2r --config bench/configs/gpu_tune_mix_c2r.json --out "$OUT" \
  > "$OUT/tune_mix_c2r.log" 2>&1 || failed+=("4 tune_variants --set mix_c2r")
tail -9 "$OUT/tune_mix_c2r.log"

finish_checks
