#!/usr/bin/env bash
# Quick development check of both truncated-DFT paths in one device call (logs under $OUT):
# build -> test_cuda_kernel (fma, tc) -> benchmark of both paths (no torch.compile / ORT, few
# iterations) -> verify_kernel --quick (both paths) -> racecheck on the tc path -> ncu per-kernel times.
# Every step has its own time limit so that a slow step still leaves the earlier logs.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-tests/gpu/logs/latest}
mkdir -p "$OUT"
S=$OUT/summary.log
export PYTHONUNBUFFERED=1
t0=$SECONDS
note() { echo "== $* ($((SECONDS - t0)) s)" | tee -a "$S"; }
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')  commit: ${TFNO_COMMIT:-$(cat COMMIT 2>/dev/null || git rev-parse --short HEAD)}"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
} > "$S"
JOBS=${JOBS:-16} timeout 80 bash tests/gpu/build.sh > "$OUT/build.log" 2>&1
note "build rc=$?"
tail -5 "$OUT/build.log" >> "$S"
for dft in fma tc; do
    TURBOFNO_CUDA_DFT=$dft timeout 30 build-gpu/tests/cpp/test_cuda_kernel > "$OUT/test_cuda_kernel_$dft.log" 2>&1
    note "test_cuda_kernel $dft rc=$?"
    grep -E "^FAIL|PASSED|FAILED" "$OUT/test_cuda_kernel_$dft.log" | head -20 >> "$S"
done
printf '{"shapes": [[1,32,64,64,16],[1,64,128,128,32],[8,64,128,128,32],[16,32,256,256,32],[32,64,128,128,16],[4,64,256,256,64]],
 "fp16": true, "iters": 30, "warmup": 5}\n' > "$OUT/bench_quick_config.json"
timeout 50 python3 bench/gpu_bench.py --no-compile --no-ort --dft fma,tc --config "$OUT/bench_quick_config.json" --out "$OUT" > "$OUT/bench.log" 2>&1
note "bench rc=$?"
grep -A12 "Per truncated-DFT path" "$OUT/gpu_bench.md" >> "$S" 2>/dev/null
timeout 40 python3 tests/gpu/verify_kernel.py --quick --dft both > "$OUT/verify_quick.log" 2>&1
note "verify_kernel --quick rc=$?"
grep -E "^FAIL|passed" "$OUT/verify_quick.log" | head -40 >> "$S"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
TURBOFNO_CUDA_DFT=tc timeout 40 "$CS" --tool racecheck --racecheck-report all --error-exitcode 9 build-gpu/tests/cpp/test_cuda_kernel > "$OUT/racecheck_tc.log" 2>&1
note "racecheck tc rc=$?"
tail -3 "$OUT/racecheck_tc.log" >> "$S"
for dft in fma tc; do
    TURBOFNO_CUDA_DFT=$dft timeout 15 ncu --clock-control none -k regex:Kernel -c 3 --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
        python3 tests/gpu/profile_one.py 8 64 128 128 32 > "$OUT/ncu_$dft.log" 2>&1
    note "ncu $dft rc=$?"
    grep -E "Kernel|gpu__time|throughput" "$OUT/ncu_$dft.log" | head -12 >> "$S"
done
note "done"
# the device tool returns a limited number of files: pack the step logs into one archive
(cd "$OUT" && tar -czf dev_logs.tgz build.log bench.log test_cuda_kernel_*.log verify_quick.log racecheck_tc.log ncu_*.log 2>/dev/null &&
    rm -f build.log bench.log test_cuda_kernel_*.log verify_quick.log racecheck_tc.log ncu_*.log)
