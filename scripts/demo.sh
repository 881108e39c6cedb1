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

# shellcheck source=install_env.sh
source "$ROOT/scripts/install_env.sh"
if [ "${TURBOFNO_SKIP_INSTALL:-0}" != "1" ]; then
  turbofno_prepare_venv
  say "pip install .[demo] (builds the op library in $BUILD_DIR; takes a few minutes the first time)"
  turbofno_install demo "$BUILD_DIR" -q
elif [ ! -x "$PY" ]; then
  say "creating the virtual environment $VENV"
  python3 -m venv "$VENV"
fi

say "turbofno demo $*"
# The console script imports the installed package (site-packages), not python/turbofno.
exec "$VENV/bin/turbofno" demo "$@"
