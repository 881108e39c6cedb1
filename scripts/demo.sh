#!/usr/bin/env bash
# TurboFNO main job: set up a virtual environment, install the package (builds the op library) with the
# demo extra, and run `turbofno demo` on the bundled models (CPU here; CUDA where onnxruntime-gpu and a
# CUDA PyTorch are installed).
#
#   bash scripts/demo.sh                         # all bundled models, plots in ./turbofno-demo-out
#   bash scripts/demo.sh --model darcy --out /tmp/demo --threads 2
# Arguments are passed to `turbofno demo` (see `turbofno demo --help`).
# Environment: TURBOFNO_VENV (default .venv), TURBOFNO_USE_CUDA (AUTO|ON|OFF), ONNXRUNTIME_INCLUDE_DIR
# (use these ORT headers instead of the cached download), TURBOFNO_SKIP_INSTALL=1 (reuse the installed package).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
VENV=${TURBOFNO_VENV:-$ROOT/.venv}
PY=$VENV/bin/python
BUILD_DIR=$ROOT/build/demo
unset TURBOFNO_LIB_DIR TURBOFNO_CHECKPOINT_DIR  # run the installed package and its bundled checkpoints

say() { echo "=== [demo.sh] $*"; }

if [ ! -x "$PY" ]; then
  say "creating the virtual environment $VENV"
  python3 -m venv "$VENV"
fi

if [ "${TURBOFNO_SKIP_INSTALL:-0}" != "1" ]; then
  # torch first, pinned: the CPU build of 2.13.0 lies on disk on these machines; resolving it from the
  # extras later could pull a multi-GB CUDA build instead.
  if ! "$PY" -c "import sys, torch; sys.exit(0 if torch.__version__.split('+')[0] == '2.13.0' else 1)" 2>/dev/null; then
    say "pip install torch==2.13.0"
    "$PY" -m pip install torch==2.13.0
  fi
  say "pip install build requirements"
  "$PY" -m pip install -q "scikit-build-core>=0.10" ninja
  say "pip install .[demo] (builds the op library in $BUILD_DIR; takes a few minutes the first time)"
  PIP_ARGS=(--no-build-isolation --config-settings=build-dir="$BUILD_DIR"
            --config-settings=cmake.define.TURBOFNO_USE_CUDA="${TURBOFNO_USE_CUDA:-AUTO}")
  if [ -n "${ONNXRUNTIME_INCLUDE_DIR:-}" ]; then
    PIP_ARGS+=(--config-settings=cmake.define.ONNXRUNTIME_INCLUDE_DIR="$ONNXRUNTIME_INCLUDE_DIR")
  fi
  "$PY" -m pip install -q "${PIP_ARGS[@]}" ".[demo]"
fi

say "turbofno demo $*"
# The console script imports the installed package (site-packages), not python/turbofno.
exec "$VENV/bin/turbofno" demo "$@"
