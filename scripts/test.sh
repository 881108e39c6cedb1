#!/usr/bin/env bash
# TurboFNO test suite: builds the C++ (with CUDA when nvcc is found) through `pip install .[test]`
# into a persistent build folder, runs the C++ tests (ctest) and the Python tests (pytest).
#
#   bash scripts/test.sh                      # everything
#   TURBOFNO_SANITIZE=1 bash scripts/test.sh  # also: ASan+UBSan build of the host code, C++ tests and
#                                             # the ORT CPU tests under it
# Environment: TURBOFNO_VENV (default .venv), TURBOFNO_USE_CUDA (AUTO|ON|OFF), ONNXRUNTIME_INCLUDE_DIR
# (use these ORT headers instead of the cached download), PYTEST_ARGS (extra pytest arguments).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
VENV=${TURBOFNO_VENV:-$ROOT/.venv}
PY=$VENV/bin/python
BUILD_DIR=$ROOT/build/ci
START=$(date +%s)
unset TURBOFNO_LIB_DIR  # test the installed package, not a dev build

step() { echo; echo "=== [test.sh +$(( $(date +%s) - START ))s] $*"; }

# pytest exit 5 means "no tests collected": that is a failure here, never a silent pass.
run_pytest() {
  local rc=0
  "$PY" -m pytest "$@" || rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests ($*): failing" >&2
    return 1
  fi
  return "$rc"
}

step "Python environment: $VENV"
say() { step "$*"; }
# shellcheck source=install_env.sh
source "$ROOT/scripts/install_env.sh"
turbofno_prepare_venv
"$PY" -m pip --version

step "pip install .[test] (C++ build in $BUILD_DIR, CUDA: ${TURBOFNO_USE_CUDA:-AUTO})"
turbofno_install test "$BUILD_DIR" -v --config-settings=cmake.define.TURBOFNO_BUILD_TESTS=ON \
  --config-settings=build.verbose=true

# PhysicsNeMo's layers for the exporter tests: the wheel installs without its dependencies (the package
# import needs warp-lang, a large binary; the tests load its spectral_layers.py directly).
step "pip install --no-deps nvidia-physicsnemo==2.2.2 (exporter tests against its real layer code)"
"$PY" -m pip install -q --no-deps nvidia-physicsnemo==2.2.2 jaxtyping==0.3.11 wadler_lindig==0.1.8

step "turbofno info"
"$VENV/bin/turbofno" info

step "C++ tests (ctest)"
ctest --test-dir "$BUILD_DIR" --output-on-failure

step "Python tests (pytest tests/python)"
# `import turbofno` resolves to the installed package (the checkout keeps it under python/).
FAILED=0
run_pytest "$ROOT/tests/python" -ra --rootdir "$ROOT" ${PYTEST_ARGS:-} || FAILED=1

if [ "${TURBOFNO_SANITIZE:-0}" = "1" ]; then
  ASAN_DIR=$ROOT/build/asan
  step "ASan+UBSan build of the host code in $ASAN_DIR"
  CMAKE_ARGS=(-S "$ROOT" -B "$ASAN_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTURBOFNO_SANITIZE=ON
              -DTURBOFNO_BUILD_TESTS=ON -DTURBOFNO_USE_CUDA=OFF -DTURBOFNO_BUILD_TRT=OFF)
  if [ -n "${ONNXRUNTIME_INCLUDE_DIR:-}" ]; then CMAKE_ARGS+=(-DONNXRUNTIME_INCLUDE_DIR="$ONNXRUNTIME_INCLUDE_DIR"); fi
  cmake "${CMAKE_ARGS[@]}"
  cmake --build "$ASAN_DIR" -j2

  step "C++ tests under ASan+UBSan"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$ASAN_DIR" --output-on-failure

  step "ORT CPU tests under ASan+UBSan (libasan preloaded into Python)"
  TURBOFNO_LIB_DIR=$ASAN_DIR "$PY" -c 'import turbofno; print("library under test:", turbofno.get_library_path())'
  # libstdc++ is preloaded too: ASan's __cxa_throw interceptor needs it present at start-up (python
  # itself does not link it), else the first C++ exception inside onnxruntime aborts.
  PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so.6)"
  # Leak checking is off for the Python process (the interpreter itself never frees everything).
  TURBOFNO_LIB_DIR=$ASAN_DIR LD_PRELOAD=$PRELOAD \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_pytest "$ROOT/tests/python/test_ort_cpu.py" "$ROOT/tests/python/test_ort_errors.py" -ra --rootdir "$ROOT" -p no:cacheprovider \
    || FAILED=1
fi

if [ "$FAILED" -ne 0 ]; then
  step "FAILED (see the pytest summaries above)"
  exit 1
fi
step "all tests passed"
