#!/usr/bin/env bash
# One-call development check after a kernel change, logs under $OUT:
# build -> planner unit test -> test_cuda_kernel (auto, fused, separable) -> verify_kernel --quick (same
# paths) -> quick benchmark of every config shape (no torch.compile / ORT) -> racecheck of $ALGO ->
# ncu per-kernel times. Every step has its own time limit, so a slow step still leaves the earlier
# logs. Step logs are packed into $OUT/dev_logs.tgz; summary.log has the gist.
#   ALGO=separable|fused     the algorithm under work: racecheck and ncu run on it (default separable)
#   NCU_SHAPES="8 64 128x128 32;4 32 65536 64"   shapes profiled with ncu (B C S m; ';'-separated)
#   BENCH_SHAPES="0,2,9"     config shape indices for the quick benchmark (default: all)
#   RACECHECK=0              skip the racecheck step; ALGOS="auto separable": test_cuda_kernel paths
#   TUNE=1                   also time the tuning switches (tune_variants.py); PROBE=1: the PyTorch fp32 probe
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-tests/gpu/logs/latest}
L=$OUT/logs
mkdir -p "$L"
S=$OUT/summary.log
ALGO=${ALGO:-separable}
NCU_SHAPES=${NCU_SHAPES:-"8 64 128x128 32;4 32 65536 64;2 32 48x48x48 12"}
export PYTHONUNBUFFERED=1
t0=$SECONDS
note() { echo "== $* ($((SECONDS - t0)) s)" | tee -a "$S"; }
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')  commit: ${TFNO_COMMIT:-$(cat COMMIT 2>/dev/null || git rev-parse --short HEAD)}"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
} > "$S"
JOBS=${JOBS:-16} timeout 200 bash tests/gpu/build.sh > "$L/build.log" 2>&1
note "build rc=$?"
tail -5 "$L/build.log" >> "$S"
timeout 20 build-gpu/tests/cpp/test_cuda_plan > "$L/test_cuda_plan.log" 2>&1
note "test_cuda_plan rc=$?"
tail -3 "$L/test_cuda_plan.log" >> "$S"
for algo in ${ALGOS:-auto fused separable}; do
    TFNO_TEST_ALGO=$algo timeout 40 build-gpu/tests/cpp/test_cuda_kernel > "$L/test_cuda_kernel_$algo.log" 2>&1
    note "test_cuda_kernel $algo rc=$?"
    grep -E "FAIL|PASSED" "$L/test_cuda_kernel_$algo.log" | head -20 >> "$S"
done
timeout 90 python3 tests/gpu/verify_kernel.py --quick --paths auto,fused,separable > "$L/verify_quick.log" 2>&1
note "verify_kernel --quick rc=$?"
grep -E "FAIL|passed" "$L/verify_quick.log" | head -40 >> "$S"
python3 - "$L/bench_quick_config.json" <<'PY'
import json, sys
cfg = json.load(open("bench/configs/gpu.json"))
cfg.update(iters=30, warmup=5)
json.dump(cfg, open(sys.argv[1], "w"))
PY
timeout 150 python3 bench/gpu_bench.py --no-compile --no-ort --config "$L/bench_quick_config.json" ${BENCH_SHAPES:+--shapes $BENCH_SHAPES} --out "$L" > "$L/bench.log" 2>&1
note "bench rc=$?"
cat "$L/gpu_bench.md" >> "$S" 2>/dev/null || tail -20 "$L/bench.log" >> "$S"
if [ "${PROBE:-0}" = 1 ]; then
    timeout 60 python3 tests/gpu/fft_fp32_probe.py > "$L/fft_fp32_probe.log" 2>&1
    note "fft_fp32_probe rc=$?"
    cat "$L/fft_fp32_probe.log" >> "$S"
fi
if [ "${TUNE:-0}" = 1 ]; then
    timeout 240 python3 tests/gpu/tune_variants.py --out "$L" > "$L/tune.log" 2>&1
    note "tune_variants rc=$?"
    cat "$L/tune_variants.md" >> "$S" 2>/dev/null || tail -20 "$L/tune.log" >> "$S"
fi
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ "${RACECHECK:-1}" = 0 ] || TFNO_TEST_ALGO=$ALGO timeout 150 "$CS" --tool racecheck --racecheck-report all --error-exitcode 9 build-gpu/tests/cpp/test_cuda_kernel > "$L/racecheck_$ALGO.log" 2>&1
note "racecheck $ALGO rc=$?"
tail -3 "$L/racecheck_$ALGO.log" >> "$S"
IFS=';' read -ra shapes <<< "$NCU_SHAPES"
for shape in "${shapes[@]}"; do
    tag=$(echo $shape | tr ' ' _)
    timeout 25 ncu --clock-control none -k regex:Kernel -c 12 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed \
        python3 tests/gpu/profile_one.py $shape f32 $ALGO > "$L/ncu_$tag.log" 2>&1
    note "ncu $shape rc=$?"
    grep -E "Kernel|gpu__time|throughput" "$L/ncu_$tag.log" | head -24 >> "$S"
done
note "done"
(cd "$OUT" && tar -czf dev_logs.tgz logs && rm -rf logs)
