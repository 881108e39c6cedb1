#!/usr/bin/env bash
# GPU check of the PointwiseMLP CUDA kernel (plugins/cuda/pointwise_mlp.cu). Run from the repository
# root on the GPU machine:
#
#   bash tests/gpu/mlp_check.sh            # build, emulation, full test, bench, sanitizers
#   bash tests/gpu/mlp_check.sh --quick    # build, emulation, quick test, sanitizers (no bench)
#
# 0. build build-gpu/ (tests/gpu/build.sh, incremental; JOBS sets the parallel jobs);
# 1. on the CPU: the NumPy emulations of the kernels' loops (emulate_pointwise_mlp.py; skipped without
#    scipy) and the kernel's own source run on CPU threads, under ThreadSanitizer (mlp_host_emu/);
# 2. test_cuda_mlp: float64 reference, all shapes / activations / optional inputs / dtypes, in place,
#    NaN-poisoned outputs, bitwise repeatability, graph replay, bad calls (--quick: a few cases);
# 3. test_cuda_mlp --bench: us per launch of the typical shapes, N = 1 and 32, vs the memory floor;
# 4. compute-sanitizer memcheck and racecheck on test_cuda_mlp --quick.
# Exit status 0 only when every step passed; the failed steps are named at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
QUICK=0
for a in "$@"; do
    case "$a" in
        --quick) QUICK=1 ;;
        *) echo "usage: $0 [--quick]"; exit 2 ;;
    esac
done
PY=${PYTHON:-python3}
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T=build-gpu/tests/cpp/test_cuda_mlp
failed=()
step() { echo; echo "=== mlp_check [$(date +%T)] $*"; }

step "0/4 build (tests/gpu/build.sh)"
bash tests/gpu/build.sh "${ARCHS:-90}" || { echo "mlp_check: FAILED: build"; exit 2; }
[ -x "$T" ] || { echo "mlp_check: FAILED: $T was not built"; exit 2; }

step "1/4 CPU emulation of the kernel's indexing"
if "$PY" -c "import numpy, scipy" 2>/dev/null; then
    timeout 300 "$PY" tests/gpu/emulate_pointwise_mlp.py || failed+=("1 emulation (emulate_pointwise_mlp.py)")
else
    echo "skipped: numpy / scipy not installed"
fi
step "1/4 the kernel's source on CPU threads, ThreadSanitizer (mlp_host_emu/run.sh --quick)"
TSAN=1 timeout 600 bash tests/gpu/mlp_host_emu/run.sh --quick || failed+=("1 host emulation (mlp_host_emu, TSAN)")

step "2/4 test_cuda_mlp$([ $QUICK = 1 ] && echo ' --quick') vs float64"
rc=0
if [ $QUICK = 1 ]; then timeout 300 "$T" --quick || rc=$?; else timeout 900 "$T" || rc=$?; fi
if [ $rc = 77 ]; then
    echo "mlp_check: FAILED: no CUDA device (test_cuda_mlp skipped)"; exit 2
elif [ $rc != 0 ]; then
    failed+=("2 accuracy (test_cuda_mlp, exit $rc)")
fi

if [ $QUICK = 0 ]; then
    step "3/4 timing (test_cuda_mlp --bench)"
    timeout 300 "$T" --bench || failed+=("3 timing (test_cuda_mlp --bench)")
else
    step "3/4 timing: skipped (--quick)"
fi

step "4/4 compute-sanitizer memcheck (test_cuda_mlp --quick)"
timeout 600 "$CS" --tool memcheck --leak-check no --error-exitcode 9 "$T" --quick ||
    failed+=("4 memcheck (compute-sanitizer --tool memcheck)")
step "4/4 compute-sanitizer racecheck (test_cuda_mlp --quick)"
timeout 600 "$CS" --tool racecheck --racecheck-report all --error-exitcode 9 "$T" --quick ||
    failed+=("4 racecheck (compute-sanitizer --tool racecheck)")

echo
if [ ${#failed[@]} -gt 0 ]; then
    echo "mlp_check: FAILED steps:"
    printf '  %s\n' "${failed[@]}"
    exit 1
fi
echo "mlp_check: all steps passed"
