# Sourced by scripts/demo.sh and scripts/test.sh: the virtual environment and the package install they share.
# Needs: PY (the venv's python), VENV, a function `say MESSAGE` for progress lines.
# Environment: TURBOFNO_USE_CUDA (AUTO|ON|OFF), ONNXRUNTIME_INCLUDE_DIR (use these ORT headers instead of
# the cached download).

# Creates $VENV if needed and installs torch (pinned) and the build requirements.
turbofno_prepare_venv() {
  if [ ! -x "$PY" ]; then
    say "creating the virtual environment $VENV"
    python3 -m venv "$VENV"
  fi
  # torch first, pinned: the CPU build of 2.13.0 lies on disk on these machines; resolving it from the
  # extras later could pull a multi-GB CUDA build instead.
  if ! "$PY" -c "import sys, torch; sys.exit(0 if torch.__version__.split('+')[0] == '2.13.0' else 1)" 2>/dev/null; then
    say "pip install torch==2.13.0"
    "$PY" -m pip install torch==2.13.0
  fi
  say "pip install build requirements"
  "$PY" -m pip install -q "scikit-build-core>=0.10" ninja
}

# turbofno_install EXTRA BUILD_DIR [pip arguments...]: pip install ".[EXTRA]", building the C++ (and
# CUDA, when nvcc is found) in BUILD_DIR with the current build environment.
turbofno_install() {
  local extra=$1 build_dir=$2
  shift 2
  local args=(--no-build-isolation --config-settings=build-dir="$build_dir"
              --config-settings=cmake.define.TURBOFNO_USE_CUDA="${TURBOFNO_USE_CUDA:-AUTO}")
  if [ -n "${ONNXRUNTIME_INCLUDE_DIR:-}" ]; then
    args+=(--config-settings=cmake.define.ONNXRUNTIME_INCLUDE_DIR="$ONNXRUNTIME_INCLUDE_DIR")
  fi
  "$PY" -m pip install "${args[@]}" "$@" ".[$extra]"
}
