#!/usr/bin/env bash
# One-call GPU check of the FFT R2C / C2R passes (fft_pass.cuh: S = 2 * 2^a 3^b 5^c, powers of two
# included) against the DFT-as-GEMM passes, logs under $OUT: fft_pass_bench (each pass
# alone: FFT vs DFT output, repeatability, us per pass vs the memory floor),
# racecheck + synccheck of fft_pass_bench --quick (small cases, both kinds of radix lists), test_cuda_kernel and
# verify_kernel --quick with TFNO_TEST_FFT_PASS / --fft-pass 1,0, racecheck + memcheck + synccheck of
# the FFT passes in test_cuda_kernel, tune_variants --set fft (every config shape: separable with DFT
# passes / with FFT passes / planner; TUNE_CONFIG=bench/configs/gpu_tune_fft_mixed.json for the
# mixed-radix shapes), ncu per kernel at three shapes. Expects
# build-gpu/ built (tests/gpu/build.sh) unless BUILD=1. The CPU-side check is
# tests/gpu/fft_host_emu/run.sh (the kernel source on CPU threads).
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
if [ "${BUILD:-0}" = 1 ]; then JOBS=${JOBS:-16} timeout 300 bash tests/gpu/build.sh > "$L/build.log" 2>&1; note "build rc=$?"; fi
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
timeout 240 "$NVCC" -std=c++17 -O3 -arch=sm_90 -Iplugins/cuda -Iplugins/include tests/gpu/fft_pass_bench.cu \
    plugins/cuda/pdl.cpp plugins/cuda/plan_separable.cpp -o build-gpu/fft_pass_bench > "$L/fft_pass_bench_build.log" 2>&1
note "fft_pass_bench build rc=$?"
timeout 120 build-gpu/fft_pass_bench > "$L/fft_pass_bench.log" 2>&1
note "fft_pass_bench rc=$?"
cat "$L/fft_pass_bench.log" >> "$S"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck synccheck; do
    timeout 120 "$CS" --tool $tool --error-exitcode 9 build-gpu/fft_pass_bench --quick > "$L/${tool}_fft_pass_bench.log" 2>&1
    note "$tool fft_pass_bench --quick rc=$?"
    tail -2 "$L/${tool}_fft_pass_bench.log" >> "$S"
done
for fft in 1 0; do
    TFNO_TEST_ALGO=separable TFNO_TEST_FFT_PASS=$fft timeout 120 build-gpu/tests/cpp/test_cuda_kernel > "$L/test_cuda_kernel_fft$fft.log" 2>&1
    note "test_cuda_kernel separable fft=$fft rc=$?"
    grep -E "FAIL|PASSED" "$L/test_cuda_kernel_fft$fft.log" | head -20 >> "$S"
done
timeout 120 build-gpu/tests/cpp/test_cuda_kernel > "$L/test_cuda_kernel_auto.log" 2>&1
note "test_cuda_kernel auto rc=$?"
grep -E "FAIL|PASSED" "$L/test_cuda_kernel_auto.log" | head -20 >> "$S"
timeout 300 python3 tests/gpu/verify_kernel.py --quick --paths auto,separable --fft-pass 1,0 > "$L/verify_quick.log" 2>&1
note "verify_kernel --quick auto,separable --fft-pass 1,0 rc=$?"
grep -E "FAIL|passed" "$L/verify_quick.log" | head -40 >> "$S"
for tool in racecheck synccheck memcheck; do
    TFNO_TEST_ALGO=separable TFNO_TEST_FFT_PASS=1 timeout 200 "$CS" --tool $tool --error-exitcode 9 build-gpu/tests/cpp/test_cuda_kernel > "$L/${tool}_fft.log" 2>&1
    note "$tool separable fft=1 rc=$?"
    tail -2 "$L/${tool}_fft.log" >> "$S"
done
timeout ${TUNE_TIMEOUT:-300} python3 tests/gpu/tune_variants.py --set fft --config "${TUNE_CONFIG:-bench/configs/gpu.json}" --out "$L" > "$L/tune.log" 2>&1
note "tune_variants --set fft rc=$?"
cat "$L/tune_variants.md" >> "$S" 2>/dev/null || tail -20 "$L/tune.log" >> "$S"
IFS=';' read -ra shapes <<< "${NCU_SHAPES:-8 64 128x128 32;4 64 250x180 40;2 128 384x384 48}"
for shape in "${shapes[@]}"; do
    for fft in 1 0; do
        tag=$(echo $shape | tr ' ' _)_fft$fft
        TFNO_PROFILE_FFT_PASS=$fft timeout 40 ncu --clock-control none -k regex:Kernel -c 12 --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
            python3 tests/gpu/profile_one.py $shape f32 separable > "$L/ncu_$tag.log" 2>&1
        note "ncu $shape separable fft=$fft rc=$?"
        grep -E "Kernel|gpu__time|pct|conflicts" "$L/ncu_$tag.log" | sed -E 's/\(turbofno::cuda::DftPass.*//' | head -30 >> "$S"
    done
done
note "done"
(cd "$OUT" && tar -czf fft_pass_logs.tgz logs && rm -rf logs)
