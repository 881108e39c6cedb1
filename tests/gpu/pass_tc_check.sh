#!/usr/bin/env bash
# One-call check of the separable passes on tensor cores (3xTF32) against fp32 FMA, logs under $OUT:
# test_cuda_kernel and verify_kernel --quick with each forced, racecheck + memcheck of the tensor-core
# passes, tune_variants --set tc (fused plane / separable FMA / separable TC / planner, every config
# shape), ncu per kernel at two shapes. Expects build-gpu/ built (tests/gpu/build.sh) unless BUILD=1.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-tests/gpu/logs/latest}
L=$OUT/logs
mkdir -p "$L"
S=$OUT/summary.log
export PYTHONUNBUFFERED=1
t0=$SECONDS
note() { echo "== $* ($((SECONDS - t0)) s)" | tee -a "$S"; }
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')  commit: ${TFNO_COMMIT:-$(git rev-parse --short HEAD)}" > "$S"
if [ "${BUILD:-0}" = 1 ]; then JOBS=${JOBS:-16} timeout 240 bash tests/gpu/build.sh > "$L/build.log" 2>&1; note "build rc=$?"; fi
for tc in 1 0; do
    TFNO_TEST_ALGO=separable TFNO_TEST_PASS_TC=$tc timeout 60 build-gpu/tests/cpp/test_cuda_kernel > "$L/test_cuda_kernel_tc$tc.log" 2>&1
    note "test_cuda_kernel separable tc=$tc rc=$?"
    grep -E "FAIL|PASSED" "$L/test_cuda_kernel_tc$tc.log" | head -20 >> "$S"
done
timeout 120 python3 tests/gpu/verify_kernel.py --quick --paths separable-tc,separable-fma > "$L/verify_quick.log" 2>&1
note "verify_kernel --quick separable-tc,separable-fma rc=$?"
grep -E "FAIL|passed" "$L/verify_quick.log" | head -40 >> "$S"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck memcheck; do
    TFNO_TEST_ALGO=separable TFNO_TEST_PASS_TC=1 timeout 150 "$CS" --tool $tool --error-exitcode 9 build-gpu/tests/cpp/test_cuda_kernel > "$L/${tool}_tc.log" 2>&1
    note "$tool separable tc=1 rc=$?"
    tail -2 "$L/${tool}_tc.log" >> "$S"
done
timeout ${TUNE_TIMEOUT:-240} python3 tests/gpu/tune_variants.py --set tc --out "$L" > "$L/tune.log" 2>&1
note "tune_variants --set tc rc=$?"
cat "$L/tune_variants.md" >> "$S" 2>/dev/null || tail -20 "$L/tune.log" >> "$S"
IFS=';' read -ra shapes <<< "${NCU_SHAPES:-8 64 128x128 32;4 32 65536 64;2 32 48x48x48 12}"
for shape in "${shapes[@]}"; do
    for path in separable-fma separable-tc; do
        tag=$(echo $shape | tr ' ' _)_$path
        timeout 30 ncu --clock-control none -k regex:Kernel -c 12 --metrics gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed \
            python3 tests/gpu/profile_one.py $shape f32 $path > "$L/ncu_$tag.log" 2>&1
        note "ncu $shape $path rc=$?"
        grep -E "Kernel|gpu__time|pct" "$L/ncu_$tag.log" | sed -E 's/\(turbofno::cuda::DftPass.*//' | head -30 >> "$S"
    done
done
note "done"
(cd "$OUT" && tar -czf pass_tc_logs.tgz logs && rm -rf logs)
