#!/usr/bin/env bash
# Full TensorRT-plugin harness on a GPU machine (no TensorRT needed, no network needed):
#   1. configure + build libturbofno_trt.so and trt_harness from this checkout (cmake + nvcc),
#   2. run the harness: CPU checks + build -> serialize -> runtime -> enqueue of both plugin
#      interfaces vs the float64 reference (--require-gpu: a missing GPU is a failure here),
#   3. the ONNX-node -> parser-fields -> plugin -> enqueue tests (pytest), when python has numpy+onnx,
#   4. the harness again under compute-sanitizer memcheck, racecheck, synccheck and initcheck.
# Logs go to $OUT (default: out/trt-harness). Exit status: 0 only if every step passed.
#
# TensorRT headers: TENSORRT_INCLUDE_DIR, a TensorRT install, or .deps/tensorrt-10.14.1/include in
# this checkout (create it on a machine with network: python cmake/fetch_tensorrt_headers.py
# .deps/tensorrt-10.14.1/include, and copy the folder along).
# Environment: OUT, BUILD_DIR (default build-trt-gpu), CUDA_ARCH (default 90), JOBS, PYTHON; PREBUILT=1 skips
# steps 1's configure and build (BUILD_DIR already holds libturbofno_trt.so and trt_harness, e.g. built elsewhere and
# carried in with tests/gpu/pack_for_device.sh / device_unpack.sh).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out/trt-harness}
BUILD_DIR=${BUILD_DIR:-$ROOT/build-trt-gpu}
CUDA_ARCH=${CUDA_ARCH:-90}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
PYTHON=${PYTHON:-python3}
export PATH="$PATH:/usr/local/cuda/bin"  # nvcc, compute-sanitizer
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
FAILED=0

step() {  # step NAME LOGFILE COMMAND... : runs, logs, records PASS/FAIL
  local name=$1 log=$2
  shift 2
  echo "=== $name (log: $log)"
  local t0=$(date +%s) rc=0
  "$@" > "$log" 2>&1 || rc=$?
  local dt=$(( $(date +%s) - t0 ))
  tail -n 5 "$log"
  if [ "$rc" -eq 0 ]; then
    echo "PASS  $name (${dt}s)" | tee -a "$SUMMARY"
  else
    echo "FAIL  $name (exit $rc, ${dt}s)" | tee -a "$SUMMARY"
    FAILED=1
  fi
  return "$rc"
}

{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown) $(git status --porcelain 2>/dev/null | wc -l) local changes"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  nvcc --version 2>&1 | tail -n 2 || true
  compute-sanitizer --version 2>&1 | head -n 2 || true
} > "$OUT/environment.txt"
cat "$OUT/environment.txt"

GENERATOR=()
command -v ninja > /dev/null && GENERATOR=(-G Ninja)
CMAKE_ARGS=(-S "$ROOT" -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
            -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" -DCMAKE_CUDA_FLAGS=-lineinfo
            -DTURBOFNO_USE_CUDA=ON -DTURBOFNO_BUILD_TRT=ON -DTURBOFNO_BUILD_ORT=OFF -DTURBOFNO_BUILD_TESTS=ON)
if [ -n "${TENSORRT_INCLUDE_DIR:-}" ]; then CMAKE_ARGS+=(-DTENSORRT_INCLUDE_DIR="$TENSORRT_INCLUDE_DIR"); fi

LIB=$BUILD_DIR/trt_plugin/libturbofno_trt.so
HARNESS=$BUILD_DIR/tests/cpp/trt_harness
if [ "${PREBUILT:-0}" = 1 ]; then
  [ -x "$LIB" ] && [ -x "$HARNESS" ] || { echo "PREBUILT=1 but $LIB or $HARNESS is missing"; exit 1; }
  echo "PREBUILT=1: using $LIB and $HARNESS as they are" | tee -a "$SUMMARY"
else
  step "configure" "$OUT/configure.log" cmake "${CMAKE_ARGS[@]}" || { echo "configure failed"; exit 1; }
  step "build" "$OUT/build.log" cmake --build "$BUILD_DIR" -j "$JOBS" --target turbofno_trt trt_harness \
    || { echo "build failed"; exit 1; }
fi
nm -D --defined-only "$LIB" > "$OUT/exported_symbols.txt" 2>&1 || true

step "harness (CPU checks + GPU enqueue vs float64 reference)" "$OUT/harness.log" \
  "$HARNESS" --lib "$LIB" --require-gpu

if "$PYTHON" -c "import numpy, onnx, pytest" > /dev/null 2>&1; then
  step "pytest: ONNX node -> parser fields -> plugin -> enqueue" "$OUT/pytest_onnx_fields.log" \
    env PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" TURBOFNO_LIB_DIR="$BUILD_DIR" TURBOFNO_TRT_HARNESS="$HARNESS" \
    TURBOFNO_TRT_REQUIRE_GPU=1 \
    "$PYTHON" -m pytest "$ROOT/tests/python/test_trt_onnx_fields.py" -v -ra -p no:cacheprovider
else
  echo "SKIP  pytest ONNX-field tests ($PYTHON lacks numpy/onnx/pytest)" | tee -a "$SUMMARY"
fi

if command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck synccheck initcheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    step "compute-sanitizer $tool" "$OUT/sanitizer_$tool.log" \
      compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 "$HARNESS" --lib "$LIB" --require-gpu
  done
else
  echo "FAIL  compute-sanitizer not found" | tee -a "$SUMMARY"
  FAILED=1
fi

echo
echo "=== summary ($SUMMARY)"
cat "$SUMMARY"
exit "$FAILED"
