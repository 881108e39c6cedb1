#!/usr/bin/env bash
# One device session's verification and benchmarks, one STEP per device call (each < 10 min), all
# logs under $OUT (the device tool returns at most 8 files: each step writes a few, the rest goes
# into a tarball). Needs onnxruntime-gpu on PYTHONPATH for the ort / models / demo steps and
# neuraloperator (+ its pure-Python dependencies) for the models / demo steps (../shared/device).
#   STEP=kernel  the kernel suite (run_suite.sh PARTS=kernel, quick verify, fewer sanitizer runs unless SAN_RUNS)
#                and the TensorRT harness (incl. its GPU enqueue)
#   STEP=ort     run_suite.sh PARTS=ort (ORT CUDA EP tests, PointwiseMLP, MLP fusion, stress)
#   STEP=models  bench/model_bench.py (+ the kernel-level model profile; COMPILE=0 without torch.compile, FP16=1 with
#                the fp16 rows, MODELS to choose, PROFILE=0 without the profile)
#   STEP=pdl     the TURBOFNO_PDL_TRIGGER_AT_START experiment: model bench (MODELS, default burgers darcy)
#                on the default build and on build-gpu-early
#   PREBUILT=1   skip the builds (build-gpu, build-gpu-early carried in, built elsewhere)
#   TRT=0        STEP=kernel without the TensorRT harness (it builds its own library on the device)
#   STEP=ab      model bench of build-gpu and of AB_DIR (AB_LABEL) in one run (MODELS), + the burgers profile
#   STEP=mlp     test_cuda_mlp full, memcheck + racecheck (--quick), --bench (and MLP_OLD --bench: same run)
#   STEP=ncu     tests/gpu/ncu_model.sh for NCU_MODELS (default: burgers 32 burgers 1)
#   STEP=skip    tests/gpu/skip_tc_check.sh (skip GEMM tiles and the skip / R2C co-launch: accuracy, timing,
#                memcheck, racecheck)
#   STEP=layers  bench/gpu_bench.py (BENCH_PATHS, BENCH_CONFIG, BENCH_ARGS) and the fused-layer benchmark, one layer per
#                run (FUSED=0: skipped)
#   STEP=fused   the fused-layer benchmark with 10 chained layers per run as well (its float64 references of 10
#                layers take most of a call)
#   STEP=demo    turbofno demo --device cuda
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out/session}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 TURBOFNO_LIB_DIR=$PWD/build-gpu PYTHONPATH=$PWD/python:${PYTHONPATH:-}
export TFNO_COMMIT=${TFNO_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export TURBOFNO_COMMIT=${TURBOFNO_COMMIT:-$TFNO_COMMIT}
# PREBUILT=1: build-gpu (and for STEP=pdl build-gpu-early) already hold the libraries, built elsewhere
if [ "${PREBUILT:-0}" != 1 ]; then
  JOBS=${JOBS:-16} bash tests/gpu/build.sh > "$OUT/build_${STEP:-kernel}.log" 2>&1 || { echo "build failed"; tail -30 "$OUT/build_${STEP:-kernel}.log"; exit 1; }
fi
rc=0
# bench_lib LABEL FOLDER MODEL..: the model bench (no torch.compile) with the library in FOLDER; report in
# $OUT/model-bench-LABEL, its table printed
bench_lib() {
  local v=$1 lib=$2; shift 2
  TURBOFNO_LIB_DIR=$PWD/$lib python3 bench/model_bench.py --device cuda --skip-compile --models "$@" \
    --out "$OUT/model-bench-$v" > "$OUT/model_bench_$v.log" 2>&1 || rc=$?
  echo "== $v ($lib)"; grep -E "^\| [a-z]" "$OUT/model_bench_$v.log" | cut -d'|' -f2-12
}
# profile_models MODEL BATCH ..: kernel_profile_model.py into $OUT/kernel_profile.log (PROFILE=0: skipped)
profile_models() {
  [ "${PROFILE:-1}" = 1 ] || return 0
  timeout 150 python3 tests/gpu/kernel_profile_model.py "$@" > "$OUT/kernel_profile.log" 2>&1
  grep -E "^==|kernels," "$OUT/kernel_profile.log"
}
case "${STEP:-kernel}" in
  kernel)
    mkdir -p "$OUT/suite"
    PARTS=kernel VERIFY_ARGS="--quick --paths auto,fused,separable" SAN_RUNS="${SAN_RUNS:-separable:memcheck racecheck;auto:memcheck racecheck}" \
      OUT=$OUT/suite timeout 420 bash tests/gpu/run_suite.sh > "$OUT/suite/console.log" 2>&1 || rc=$?
    grep -E "^=== .*rc=|suite done|passed|FAIL" "$OUT/suite/gpu_suite.log" | grep -v "^ok" | tail -40
    mkdir -p "$OUT/trt"  # builds build-trt-gpu, runs the harness (CPU + GPU enqueue of both ops) and its sanitizers (TRT=0: skipped)
    if [ "${TRT:-1}" = 1 ]; then
      OUT=$OUT/trt timeout 240 bash tests/gpu/run_trt_harness.sh > "$OUT/trt/console.log" 2>&1 || rc=$((rc + 1))
      tail -15 "$OUT/trt/console.log"
    fi
    timeout 120 build-gpu/tests/cpp/test_cuda_mlp --bench > "$OUT/mlp_bench.log" 2>&1 || rc=$((rc + 1))
    cp "$OUT/suite/gpu_suite.log" "$OUT/" 2>/dev/null
    tar -czf "$OUT/kernel_logs.tgz" -C "$OUT" suite trt && rm -rf "$OUT/suite" "$OUT/trt" ;;
  ort)
    mkdir -p "$OUT/suite"
    PARTS=ort STRESS_RACECHECK=0 STRESS_MEMCHECK=${STRESS_MEMCHECK:-0} OUT=$OUT/suite timeout 560 bash tests/gpu/run_suite.sh > "$OUT/suite/console.log" 2>&1 || rc=$?
    grep -E "^=== .*rc=|suite done|passed|failed|FAILED|Error" "$OUT/suite/gpu_suite.log" | tail -40
    cp "$OUT/suite/gpu_suite.log" "$OUT/ort_suite.log"; rm -rf "$OUT/suite" ;;
  models)
    extra=(); [ "${COMPILE:-1}" = 0 ] && extra+=(--skip-compile); [ -n "${MODELS:-}" ] && extra+=(--models $MODELS)
    [ "${FP16:-0}" = 1 ] && extra+=(--fp16)  # fp16 rows: PyTorch half and our float16 export in ORT
    python3 bench/model_bench.py --device cuda --out "$OUT/model-bench" "${extra[@]}" > "$OUT/model_bench.log" 2>&1 || rc=$?
    tail -20 "$OUT/model_bench.log"
    profile_models burgers 32 darcy 32 ;;
  pdl)  # the TURBOFNO_PDL_TRIGGER_AT_START experiment (pdl.cuh): the model bench on the default build and on one with it
    if [ "${PREBUILT:-0}" != 1 ]; then
      BUILD_DIR=build-gpu-early CMAKE_EXTRA=-DTURBOFNO_PDL_TRIGGER_AT_START=ON bash tests/gpu/build.sh > "$OUT/build_early.log" 2>&1 ||
        { echo "early build failed"; tail -20 "$OUT/build_early.log"; exit 1; }
    fi
    bench_lib default build-gpu ${MODELS_DEFAULT:-${MODELS:-burgers darcy}}  # MODELS_DEFAULT / MODELS: default burgers darcy
    bench_lib early build-gpu-early ${MODELS:-burgers darcy}
    profile_models burgers 32 burgers 1 darcy 32
    # at most 8 files come back: the early build's report and the build logs go into one tarball
    (cd "$OUT" && tar -czf pdl_extra.tgz model-bench-early $(ls build_early.log "build_${STEP}.log" 2>/dev/null) &&
      rm -rf model-bench-early build_early.log "build_${STEP}.log") ;;
  ab)  # model bench of build-gpu against another library folder (AB_DIR, label AB_LABEL, default "before"), same run
    B=${AB_LABEL:-before}
    bench_lib this build-gpu ${MODELS:-burgers darcy}
    bench_lib "$B" "$AB_DIR" ${MODELS:-burgers darcy}
    profile_models burgers 32 burgers 1
    (cd "$OUT" && tar -czf ab_extra.tgz "model-bench-$B" && rm -rf "model-bench-$B") ;;
  mlp)  # test_cuda_mlp: full test, compute-sanitizer memcheck + racecheck on --quick, bench (and MLP_OLD's bench, same run)
    T=build-gpu/tests/cpp/test_cuda_mlp
    timeout 240 $T > "$OUT/mlp_test.log" 2>&1 || rc=$((rc + 1)); tail -2 "$OUT/mlp_test.log"
    for tool in memcheck racecheck; do
      timeout 200 compute-sanitizer --tool $tool $T --quick > "$OUT/mlp_$tool.log" 2>&1 || rc=$((rc + 1))
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/mlp_$tool.log" | tail -2
    done
    timeout 150 $T --bench > "$OUT/mlp_bench.log" 2>&1 || rc=$((rc + 1))
    [ -n "${MLP_OLD:-}" ] && { timeout 150 $MLP_OLD --bench > "$OUT/mlp_bench_old.log" 2>&1 || rc=$((rc + 1)); }
    grep -E "burgers|1D 256" "$OUT/mlp_bench.log" | cut -c1-60; [ -n "${MLP_OLD:-}" ] && grep -E "burgers|1D 256" "$OUT/mlp_bench_old.log" | cut -c1-60 ;;
  ncu)  # each kernel of burgers' forward timed alone (tests/gpu/ncu_model.sh): against the replay, the launch gaps
    set -- ${NCU_MODELS:-burgers 32 burgers 1}
    while [ $# -ge 2 ]; do timeout 200 bash tests/gpu/ncu_model.sh "$1" "$2" >> "$OUT/ncu_model.log" 2>&1 || rc=$((rc + 1)); shift 2; done
    grep -E "^==|  sum" "$OUT/ncu_model.log" ;;
  skip)
    PYTHONPATH=$PWD/python:$PWD/tests/gpu:$PYTHONPATH timeout 560 bash tests/gpu/skip_tc_check.sh > "$OUT/skip_tc_check.log" 2>&1 || rc=$?
    grep -E "^=== |max rel_l2|layer ms|passed|FAILED|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/skip_tc_check.log" | tail -60 ;;
  layers)
    python3 bench/gpu_bench.py --out "$OUT/gpu-bench" --paths "${BENCH_PATHS-fused,separable}" ${BENCH_CONFIG:+--config $BENCH_CONFIG} \
      ${BENCH_ARGS:-} > "$OUT/gpu_bench.log" 2>&1 || rc=$?
    tail -12 "$OUT/gpu_bench.log"
    [ "${FUSED:-1}" = 1 ] && timeout 200 python3 bench/fused_layer_bench.py --device cuda --depth 1 --out "$OUT/fused-cuda" > "$OUT/fused_layer.log" 2>&1
    tail -12 "$OUT/fused_layer.log" 2>/dev/null ;;
  fused)
    timeout 540 python3 bench/fused_layer_bench.py --device cuda --out "$OUT/fused-cuda" > "$OUT/fused_layer.log" 2>&1 || rc=$?
    tail -20 "$OUT/fused_layer.log" ;;
  demo)
    python3 -m turbofno demo --device cuda --batch 8 --out "$OUT/demo" > "$OUT/demo_cuda.log" 2>&1 || rc=$?
    tail -40 "$OUT/demo_cuda.log" ;;
  *) echo "unknown STEP=$STEP"; exit 2 ;;
esac
echo "session_steps $STEP: rc=$rc"
exit $rc
