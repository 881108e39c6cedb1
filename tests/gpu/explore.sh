#!/usr/bin/env bash
# One development call: build, correctness of the tuning variants (test_cuda_kernel per algorithm,
# verify --quick, racecheck / memcheck), the PyTorch TF32 probe, and tune_variants.py. Logs in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
L=$OUT
S=$L/summary.log
t0=$SECONDS
note() { echo "== $* ($((SECONDS - t0)) s)" | tee -a "$S"; }
echo "commit: ${TFNO_COMMIT:-?}  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" > "$S"
JOBS=16 timeout 200 bash tests/gpu/build.sh > "$L/build.log" 2>&1
note "build rc=$?"; tail -3 "$L/build.log" >> "$S"
for algo in auto fused separable; do
    TFNO_TEST_ALGO=$algo timeout 40 build-gpu/tests/cpp/test_cuda_kernel > "$L/tck_$algo.log" 2>&1
    note "test_cuda_kernel $algo rc=$?"; grep -E "FAIL|PASSED" "$L/tck_$algo.log" | head -10 >> "$S"
done
timeout 120 python3 tests/gpu/verify_kernel.py --quick --paths auto,fused,separable > "$L/verify.log" 2>&1
note "verify --quick rc=$?"; grep -E "FAIL|passed" "$L/verify.log" | head -20 >> "$S"
timeout 60 python3 tests/gpu/tf32_probe.py > "$L/tf32_probe.log" 2>&1
note "tf32 probe rc=$?"; cat "$L/tf32_probe.log" >> "$S"
timeout 240 python3 tests/gpu/tune_variants.py --out "$L" > "$L/tune.log" 2>&1
note "tune rc=$?"; cat "$L/tune_variants.md" >> "$S" 2>/dev/null || tail -20 "$L/tune.log" >> "$S"
CS=/usr/local/cuda/bin/compute-sanitizer
for algo in auto separable; do
    TFNO_TEST_ALGO=$algo timeout 120 $CS --tool racecheck --racecheck-report all --error-exitcode 9 build-gpu/tests/cpp/test_cuda_kernel > "$L/racecheck_$algo.log" 2>&1
    note "racecheck $algo rc=$?"; tail -2 "$L/racecheck_$algo.log" >> "$S"
done
TFNO_TEST_ALGO=auto timeout 120 $CS --tool memcheck --error-exitcode 9 build-gpu/tests/cpp/test_cuda_kernel > "$L/memcheck_auto.log" 2>&1
note "memcheck auto rc=$?"; tail -2 "$L/memcheck_auto.log" >> "$S"
TFNO_TEST_ALGO=separable timeout 120 $CS --tool initcheck --error-exitcode 9 build-gpu/tests/cpp/test_cuda_kernel > "$L/initcheck_sep.log" 2>&1
note "initcheck separable rc=$?"; tail -2 "$L/initcheck_sep.log" >> "$S"
(cd "$L" && tar -czf logs.tgz *.log && rm -f build.log tck_*.log verify.log racecheck_*.log memcheck_*.log initcheck_*.log tune.log)
note done
