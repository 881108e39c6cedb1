#!/usr/bin/env bash
# One-call development check after a kernel change, logs under $OUT:
# build -> test_cuda_kernel (fma, tc) -> quick benchmark (no torch.compile / ORT) -> verify_kernel --quick
# (both paths) -> racecheck of the path under work -> ncu per-kernel times. Every step has its own time
# limit, so a slow step still leaves the earlier logs. Step logs go to $OUT/logs and are packed into
# $OUT/dev_logs.tgz at the end (the device tool returns at most 8 files); summary.log has the gist.
#   DFT=fma|tc          the truncated-DFT path under work: racecheck and ncu run on it (default fma)
#   BENCH_DFT=fma,tc    extra per-path benchmark table ('' = default path only, the default)
#   NCU_SHAPES="8 64 128 128 32;1 32 64 64 16"   shapes profiled with ncu (B C H W modes; ';'-separated)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-tests/gpu/logs/latest}
L=$OUT/logs
mkdir -p "$L"
S=$OUT/summary.log
DFT=${DFT:-fma}
BENCH_DFT=${BENCH_DFT:-}
NCU_SHAPES=${NCU_SHAPES:-"8 64 128 128 32;1 32 64 64 16"}
export PYTHONUNBUFFERED=1
t0=$SECONDS
note() { echo "== $* ($((SECONDS - t0)) s)" | tee -a "$S"; }
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')  commit: ${TFNO_COMMIT:-$(cat COMMIT 2>/dev/null || git rev-parse --short HEAD)}"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
} > "$S"
JOBS=${JOBS:-16} timeout 70 bash tests/gpu/build.sh > "$L/build.log" 2>&1
note "build rc=$?"
tail -5 "$L/build.log" >> "$S"
for dft in fma tc; do
    TURBOFNO_CUDA_DFT=$dft timeout 20 build-gpu/tests/cpp/test_cuda_kernel > "$L/test_cuda_kernel_$dft.log" 2>&1
    note "test_cuda_kernel $dft rc=$?"
    grep -E "FAIL|PASSED" "$L/test_cuda_kernel_$dft.log" | head -20 >> "$S"
done
printf '{"shapes": [[1,32,64,64,16],[1,64,128,128,32],[8,64,128,128,32],[16,32,256,256,32],[32,64,128,128,16],[4,64,256,256,64]],
 "fp16": true, "iters": 30, "warmup": 5}\n' > "$L/bench_quick_config.json"
timeout 40 python3 bench/gpu_bench.py --no-compile --no-ort --dft "$BENCH_DFT" --config "$L/bench_quick_config.json" --out "$L" > "$L/bench.log" 2>&1
note "bench rc=$?"
cat "$L/gpu_bench.md" >> "$S" 2>/dev/null
timeout 30 python3 tests/gpu/verify_kernel.py --quick --dft both > "$L/verify_quick.log" 2>&1
note "verify_kernel --quick rc=$?"
grep -E "FAIL|passed" "$L/verify_quick.log" | head -40 >> "$S"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
TURBOFNO_CUDA_DFT=$DFT timeout 35 "$CS" --tool racecheck --racecheck-report all --error-exitcode 9 build-gpu/tests/cpp/test_cuda_kernel > "$L/racecheck_$DFT.log" 2>&1
note "racecheck $DFT rc=$?"
tail -3 "$L/racecheck_$DFT.log" >> "$S"
IFS=';' read -ra shapes <<< "$NCU_SHAPES"
for shape in "${shapes[@]}"; do
    tag=$(echo $shape | tr ' ' x)
    TURBOFNO_CUDA_DFT=$DFT timeout 12 ncu --clock-control none -k regex:Kernel -c 3 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active \
        python3 tests/gpu/profile_one.py $shape > "$L/ncu_$tag.log" 2>&1
    note "ncu $shape rc=$?"
    grep -E "Kernel|gpu__time|throughput|warps_active" "$L/ncu_$tag.log" | head -12 >> "$S"
done
note "done"
(cd "$OUT" && tar -czf dev_logs.tgz logs && rm -rf logs)
