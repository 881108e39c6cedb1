#!/usr/bin/env bash
# The GPU check after a kernel change, parameterised by what the change varies (the *_check.sh scripts set
# the parameters and name the change). From the repository root on the GPU machine after build-gpu/ is built
# (tests/gpu/build.sh) or carried in:
#
#   CHECK=name OUT=DIR TEST_RUNS="ALGO=auto ALGO=separable,MIX_RING=1" VERIFY_ARGS="--paths auto,separable" \
#   SAN_ENV="ALGO=separable" SAN_FILTER="2d " NCU_SHAPES="1 32 64x64 16;8 64 128x128 32" \
#   [TUNE_CONFIG=bench/configs/gpu.json] [PREV=other/libtfno_capi.so] [TUNE_SETS="ring"] [STEPS=12345] \
#   bash tests/gpu/kernel_check.sh
#
# 1. test_cuda_kernel (float64 oracle, NaN-poisoned outputs, every dtype) once per TEST_RUNS entry: comma-
#    separated VAR=value pairs, each set as TFNO_TEST_VAR=value (tests/cpp/test_cuda_kernel.cu lists them);
# 2. verify_kernel.py --quick $VERIFY_ARGS (PyTorch float64 oracle, fused layer, CUDA-graph capture);
# 3. compute-sanitizer memcheck, racecheck, synccheck, initcheck on test_cuda_kernel's cases matching
#    SAN_FILTER, with SAN_ENV set as in TEST_RUNS;
# 4. ncu of the layer's kernels at NCU_SHAPES (';'-separated, tests/gpu/ncu_layer.sh);
# 5. timing: tune_variants.py --set planner on TUNE_CONFIG with this build and, where PREV names another
#    build's libtfno_capi.so, with that one (same run); then tune_variants.py --set S for each S in TUNE_SETS.
# STEPS picks the steps (default all: a device call is at most 10 minutes, so split the long ones).
# Logs in $OUT; exit status 0 only when every check (1-3) run passed (the failed steps are named at the end).
set -uo pipefail
cd "$(dirname "$0")/../.."
CHECK=${CHECK:-kernel_check}
source tests/gpu/check_env.sh
STEPS=${STEPS:-12345}
testEnv() { local p out=(); IFS=, read -ra p <<< "$1"; for kv in "${p[@]}"; do [ -n "$kv" ] && out+=("TFNO_TEST_$kv"); done; echo "${out[@]}"; }

if [[ $STEPS == *1* ]]; then
  step "1/5 test_cuda_kernel: ${TEST_RUNS:=ALGO=auto}"
  for run in $TEST_RUNS; do
    log="$OUT/test_cuda_kernel_$(echo "$run" | tr ',=' '__').log"
    env $(testEnv "$run") timeout 200 $T > "$log" 2>&1 || failed+=("1 test_cuda_kernel $run")
    echo "$run: $(tail -1 "$log")"
  done
fi

if [[ $STEPS == *2* ]]; then
  step "2/5 verify_kernel.py --quick ${VERIFY_ARGS:=}"
  timeout 300 "$PY" tests/gpu/verify_kernel.py --quick $VERIFY_ARGS > "$OUT/verify_kernel.log" 2>&1 || failed+=("2 verify_kernel")
  grep -E "^FAIL" "$OUT/verify_kernel.log" | head -5; tail -1 "$OUT/verify_kernel.log"
fi

if [[ $STEPS == *3* ]]; then
  step "3/5 compute-sanitizer on test_cuda_kernel (${SAN_ENV:=ALGO=auto}, filter '${SAN_FILTER:=}')"
  for tool in memcheck racecheck synccheck initcheck; do
    env $(testEnv "$SAN_ENV") TFNO_TEST_FILTER="$SAN_FILTER" timeout 200 "$CS" --tool $tool --error-exitcode 9 $T \
      > "$OUT/san_$tool.log" 2>&1 || failed+=("3 $tool")
    echo "$tool: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/san_$tool.log" | tail -1) / $(tail -1 "$OUT/san_$tool.log")"
  done
fi

if [[ $STEPS == *4* && -n ${NCU_SHAPES:-} ]]; then
  step "4/5 ncu: $NCU_SHAPES"
  IFS=';' read -ra shapes <<< "$NCU_SHAPES"
  OUT=$OUT/ncu timeout 300 bash tests/gpu/ncu_layer.sh "${shapes[@]}" > /dev/null 2>&1
  cat "$OUT/ncu/ncu_summary.txt"
fi

if [[ $STEPS == *5* ]]; then
  cfg=${TUNE_CONFIG:-bench/configs/gpu.json}
  step "5/5 timing: tune_variants.py --set planner --config $cfg, this build${PREV:+ and $PREV}${TUNE_SETS:+; sets $TUNE_SETS}"
  timeout 240 "$PY" tests/gpu/tune_variants.py --set planner --config "$cfg" --out "$OUT/this" > "$OUT/tune_this.log" 2>&1
  if [ -n "${PREV:-}" ]; then
    TFNO_CAPI=$PREV timeout 240 "$PY" tests/gpu/tune_variants.py --set planner --config "$cfg" --out "$OUT/prev" > "$OUT/tune_prev.log" 2>&1
  fi
  echo "this build:"; tail -22 "$OUT/this/tune_variants.md" 2>/dev/null
  [ -n "${PREV:-}" ] && { echo "previous build ($PREV):"; tail -22 "$OUT/prev/tune_variants.md" 2>/dev/null; }
  for set in ${TUNE_SETS:-}; do
    timeout 300 "$PY" tests/gpu/tune_variants.py --set "$set" --config "$cfg" --out "$OUT/set_$set" > "$OUT/tune_$set.log" 2>&1
    echo "set $set:"; tail -22 "$OUT/set_$set/tune_variants.md" 2>/dev/null
  done
fi

finish_checks
