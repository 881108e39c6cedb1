#!/usr/bin/env bash
# The GPU suite, one command on the GPU machine (logs under $OUT, default tests/gpu/logs/latest):
#   build (tests/gpu/build.sh, skipped when build-gpu exists) -> test_cuda_kernel (C++, float64 reference)
#   -> verify_kernel.py (every dtype / rank / layout vs the NumPy float64 oracle, NaN-poisoned outputs,
#   CUDA-graph replay) -> compute-sanitizer memcheck + racecheck (+ synccheck) on test_cuda_kernel.
#   The C++ test and the sanitizers run once per kernel path (TFNO_TEST_ALGO=auto|fused|separable);
#   verify_kernel.py and the benchmark switch paths in-process (tfno_set_algo) and cover all.
#   -> pytest tests/python/test_ort_cuda.py and test_ort_cuda_stress.py (concurrent sessions and user
#   streams, bitwise equal to sequential runs), the stress test again under compute-sanitizer memcheck
#   and racecheck with few iterations (needs onnxruntime-gpu importable; skipped otherwise)
#   -> optionally the benchmark (BENCH=1).
# PARTS="kernel ort" (default both) runs the kernel steps (test_cuda_kernel, verify_kernel, sanitizers)
# and / or the ONNX Runtime steps, so that the suite can be split over two device calls.
# Exit code: number of failed steps.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-tests/gpu/logs/latest}
mkdir -p "$OUT"
LOG=$OUT/gpu_suite.log
fails=0
step() {  # step NAME CMD...
    local name=$1; shift
    echo "=== $name: $*" | tee -a "$LOG"
    local t0=$SECONDS
    "$@" 2>&1 | tee -a "$LOG"
    local rc=${PIPESTATUS[0]}
    echo "=== $name: rc=$rc ($((SECONDS - t0)) s)" | tee -a "$LOG"
    [ "$rc" -eq 0 ] || fails=$((fails + 1))
}
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "commit: ${TFNO_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)} $(git status --porcelain 2>/dev/null | grep -q . && echo '(+ uncommitted changes)')"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    /usr/local/cuda/bin/nvcc --version | tail -1
} | tee "$LOG"
# incremental: quick when build-gpu is up to date; PREBUILT=1: build-gpu holds binaries built elsewhere
[ "${PREBUILT:-0}" = 1 ] || step build bash tests/gpu/build.sh
export PYTHONUNBUFFERED=1
export TURBOFNO_TEST_SEED=${TURBOFNO_TEST_SEED:-random}  # fresh random inputs per run; every test prints its seed
# every kernel path: the planner's choice, the fused plane, the separable passes
PARTS=${PARTS:-kernel ort}
PATHS=("auto:TFNO_TEST_ALGO=auto" "fused:TFNO_TEST_ALGO=fused" "separable:TFNO_TEST_ALGO=separable")
[[ " $PARTS " == *" kernel "* ]] || PATHS=()
for p in "${PATHS[@]}"; do
    step "test_cuda_kernel_${p%%:*}" env ${p#*:} build-gpu/tests/cpp/test_cuda_kernel
done
# the separable passes once more with the DFT-as-GEMM last axis (the planner runs FFT passes where it can)
[[ " $PARTS " == *" kernel "* ]] && step test_cuda_kernel_separable_dft env TFNO_TEST_ALGO=separable TFNO_TEST_FFT_PASS=0 \
    build-gpu/tests/cpp/test_cuda_kernel
[[ " $PARTS " == *" kernel "* ]] && step verify_kernel python3 tests/gpu/verify_kernel.py ${VERIFY_ARGS:-}
# PointwiseMLP (pointwise_mlp.cu): float64 reference, every variant forced, then its sanitizers below
[[ " $PARTS " == *" kernel "* ]] && step test_cuda_mlp build-gpu/tests/cpp/test_cuda_mlp
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# sanitizers: every tool on the separable path, memcheck + racecheck on the planner's choice (the fused
# plane for most 2D cases); each run bounded by SAN_TIMEOUT seconds (a timeout fails the step)
SAN_TIMEOUT=${SAN_TIMEOUT:-200}
IFS=';' read -ra SAN_RUNS <<< "${SAN_RUNS:-separable:memcheck racecheck synccheck initcheck;auto:memcheck racecheck}"
[[ " $PARTS " == *" kernel "* ]] || SAN_RUNS=()
for run in "${SAN_RUNS[@]}"; do
    p="${run%%:*}"
    for tool in ${run#*:}; do
        extra=(); [ "$tool" = racecheck ] && extra=(--racecheck-report all)
        step "${tool}_$p" timeout "$SAN_TIMEOUT" env TFNO_TEST_ALGO=$p "$CS" --tool $tool "${extra[@]}" --error-exitcode 9 \
            build-gpu/tests/cpp/test_cuda_kernel
    done
done
if [[ " $PARTS " == *" kernel "* ]]; then
    for tool in memcheck racecheck; do
        step "${tool}_mlp" timeout "$SAN_TIMEOUT" "$CS" --tool $tool --error-exitcode 9 build-gpu/tests/cpp/test_cuda_mlp --quick
    done
fi
if [[ " $PARTS " != *" ort "* ]]; then
    echo "=== ort steps: not in PARTS=$PARTS" | tee -a "$LOG"
elif python3 -c "import onnxruntime as o; o.preload_dlls(); assert 'CUDAExecutionProvider' in o.get_available_providers()" 2>/dev/null; then
    export TURBOFNO_LIB_DIR=$PWD/build-gpu PYTHONPATH=$PWD/python:${PYTHONPATH:-}
    # the CUDA-EP tests skip themselves where conftest.cuda_skip_reason gives a reason (CPU builds, no GPU):
    # here that would only hide a wrong library (or a carried .so without its turbofno_build_info.json)
    step ort_cuda_tests_would_run python3 -c "import sys; sys.path.insert(0, 'tests/python'); import conftest; \
r = conftest.cuda_skip_reason(); print(r or 'the CUDA-EP tests run'); sys.exit(1 if r else 0)"
    step ort_cuda python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_ort_cuda.py
    # every other test with a CUDA-EP part (fused layer, resampling, TF32 default, devices, dynamic axes);
    # the exporter ones need neuraloperator importable
    step ort_cuda_features python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_fused_layer.py \
        tests/python/test_output_size.py tests/python/test_session_tf32.py tests/python/test_export_devices.py \
        tests/python/test_export_dynamic.py tests/python/test_session_input_shapes.py tests/python/test_pointwise_mlp.py \
        tests/python/test_export_fuse_mlp.py
    step ort_cuda_stress python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_ort_cuda_stress.py
    # Under the sanitizers: few iterations (each launch is slow there); any report fails the step.
    # racecheck instruments only our kernels (--kernel-name kns=turbofno, STRESS_RACECHECK_FILTER): with
    # every ORT kernel instrumented, one iteration ran past 280 s on the H200 (logs/final_8c31d89).
    for tool in memcheck racecheck; do
        [ "$tool" = racecheck ] && [ "${STRESS_RACECHECK:-1}" = 0 ] && continue
        [ "$tool" = memcheck ] && [ "${STRESS_MEMCHECK:-1}" = 0 ] && continue
        filter=(); [ "$tool" = racecheck ] && filter=(--kernel-name "${STRESS_RACECHECK_FILTER:-kns=turbofno}")
        step ort_cuda_stress_$tool timeout "$SAN_TIMEOUT" env TURBOFNO_STRESS_ITERS=${STRESS_SANITIZER_ITERS:-3} "$CS" --tool $tool \
            "${filter[@]}" --error-exitcode 9 python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_ort_cuda_stress.py
    done
else
    echo "=== ort_cuda: SKIPPED (onnxruntime-gpu not importable; see tests/gpu/README.md for staging it)" | tee -a "$LOG"
fi
if [ "${BENCH:-0}" = 1 ]; then
    step bench python3 bench/gpu_bench.py --out "$OUT" ${BENCH_ARGS:-}
fi
echo "=== suite done: $fails failed step(s)" | tee -a "$LOG"
exit $fails
