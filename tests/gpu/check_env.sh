# Shared set-up of the GPU check scripts (tests/gpu/*_check.sh), sourced after `cd` to the repository root
# with CHECK set to the script's name: PY, OUT (default out/$CHECK), the Python paths and library folder,
# compute-sanitizer (CS), the kernel test binary (T), the failed-step list and its report.
PY=${PYTHON:-python3}
OUT=${OUT:-out/$CHECK}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/python:$PWD/tests/gpu:${PYTHONPATH:-} TURBOFNO_LIB_DIR=$PWD/build-gpu
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T=build-gpu/tests/cpp/test_cuda_kernel
failed=()
step() { echo "=== $CHECK [$(date +%T)] $*"; }
# exit status 0 only when no step failed (the failed ones are named)
finish_checks() {
  if [ ${#failed[@]} -gt 0 ]; then
    echo "$CHECK: FAILED steps:"; printf '  %s\n' "${failed[@]}"; exit 1
  fi
  echo "$CHECK: all steps passed"
}
