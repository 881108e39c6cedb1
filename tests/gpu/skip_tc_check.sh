#!/usr/bin/env bash
# GPU check of the fused layer's skip GEMM on tensor cores (plugins/cuda/skip_gemm_tc.cuh, 3xTF32)
# against the fp32 FMA kernel (skip_gemm.cuh). Run from the repository root on the GPU machine after
# `JOBS=16 bash tests/gpu/build.sh` has built build-gpu/ (about 2-3 minutes):
#
#   bash tests/gpu/skip_tc_check.sh
#
# 0. the CPU emulation of the kernel's indexing (emulate_skip_gemm.py);
# 1. accuracy: verify_kernel.py --skip-gemm 1,2,3,0 --skip-colaunch 1,0: the layer with a skip weight vs
#    float64, tensor cores forced on and off, each with and without the co-launch beside a radix-2 R2C
#    (skip_r2c_colaunch.cuh), fp32 / fp16 / bf16, odd sizes, NaN-poisoned outputs (fp32 rel-L2 <= 1e-5,
#    half types <= 1e-2 vs the float64 result of the rounded inputs); prints the max rel-L2 per case;
# 2. timing: skip_tc_bench.py at the two large 2D shapes and the bundled models' layers (layer and skip
#    kernel, the FMA kernel and both tensor-core tiles, the co-launch on / off, cuDNN's fp32 1x1 conv for scale);
# 3. compute-sanitizer memcheck and racecheck on the quick accuracy run with tensor cores on.
# Exit status 0 only when every step passed; the failed steps are named at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -f build-gpu/libtfno_capi.so ]; then
    echo "skip_tc_check: FAILED: build-gpu/libtfno_capi.so is missing (run JOBS=16 bash tests/gpu/build.sh first)"
    exit 2
fi
failed=()
step() { echo; echo "=== skip_tc_check [$(date +%T)] $*"; }

step "0/3 CPU emulation of the tensor-core kernel's indexing"
timeout 60 "$PY" tests/gpu/emulate_skip_gemm.py || failed+=("0 emulation (emulate_skip_gemm.py)")

step "1/3 accuracy: skip GEMM with tensor cores on (skip_tc=1; 2 / 3: 32- / 128-point tile) and off (skip_tc=0) vs float64"
timeout 400 "$PY" tests/gpu/verify_kernel.py --skip-gemm 1,2,3,0 --skip-colaunch 1,0 ||
    failed+=("1 accuracy (verify_kernel.py --skip-gemm 1,2,3,0 --skip-colaunch 1,0)")

step "2/3 timing: FMA vs tensor cores (both tiles)"
timeout 180 "$PY" tests/gpu/skip_tc_bench.py || failed+=("2 timing (skip_tc_bench.py)")

# one cudaMalloc per tensor, so that memcheck sees accesses past a tensor's end
export PYTORCH_NO_CUDA_MEMORY_CACHING=1
step "3/3 compute-sanitizer memcheck, tensor cores on"
timeout 300 "$CS" --tool memcheck --leak-check no --error-exitcode 9 "$PY" tests/gpu/verify_kernel.py --skip-gemm 2,3 --skip-colaunch 1,0 --quick ||
    failed+=("3 memcheck (compute-sanitizer --tool memcheck)")
step "3/3 compute-sanitizer racecheck, tensor cores on"
timeout 300 "$CS" --tool racecheck --racecheck-report all --error-exitcode 9 "$PY" tests/gpu/verify_kernel.py --skip-gemm 2,3 --skip-colaunch 1,0 --quick ||
    failed+=("3 racecheck (compute-sanitizer --tool racecheck)")
unset PYTORCH_NO_CUDA_MEMORY_CACHING

echo
if [ ${#failed[@]} -gt 0 ]; then
    echo "skip_tc_check: FAILED steps:"
    printf '  %s\n' "${failed[@]}"
    exit 1
fi
echo "skip_tc_check: all steps passed"
