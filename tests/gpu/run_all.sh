#!/usr/bin/env bash
# Everything the GPU machine verifies, in one device call: the CUDA suite (both truncated-DFT paths,
# compute-sanitizer, benchmark with BENCH=1) and the TensorRT plugin harness (+ sanitizers).
# Runs on a clean source tree (git archive of a commit, see tests/gpu/README.md), writes a single
# archive $OUT/gpu_logs.tgz plus the headline files (the device tool returns at most 8 files).
#   OUT=/some/dir BENCH=1 bash tests/gpu/run_all.sh
#   PARTS=kernel ... then PARTS=ort ...: the suite in two calls (run_suite.sh PARTS; the TensorRT
#   harness runs with the kernel part), each under the device's 10-minute limit
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out/gpu-all}
mkdir -p "$OUT/suite" "$OUT/trt"
export PYTHONUNBUFFERED=1 JOBS=${JOBS:-16}
t0=$SECONDS
# both builds at once (16 cores), then the runs one after the other (timings must not overlap)
bash tests/gpu/build.sh > "$OUT/suite/build.log" 2>&1 & b1=$!
( cmake -S . -B build-trt-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_FLAGS=-lineinfo -DTURBOFNO_USE_CUDA=ON -DTURBOFNO_BUILD_TRT=ON -DTURBOFNO_BUILD_ORT=OFF \
    -DTURBOFNO_BUILD_TESTS=ON && cmake --build build-trt-gpu -j 8 --target turbofno_trt trt_harness ) \
  > "$OUT/trt/prebuild.log" 2>&1 & b2=$!
wait $b1; echo "build-gpu rc=$? ($((SECONDS - t0)) s)"
wait $b2; echo "build-trt-gpu rc=$? ($((SECONDS - t0)) s)"
export PARTS=${PARTS:-kernel ort}
OUT=$OUT/suite timeout ${SUITE_TIMEOUT:-330} bash tests/gpu/run_suite.sh > "$OUT/suite/console.log" 2>&1
suite_rc=$?; echo "suite rc=$suite_rc ($((SECONDS - t0)) s)"
trt_rc=0
if [[ " $PARTS " == *" kernel "* ]]; then
    OUT=$OUT/trt BUILD_DIR=build-trt-gpu timeout ${TRT_TIMEOUT:-200} bash tests/gpu/run_trt_harness.sh > "$OUT/trt/console.log" 2>&1
    trt_rc=$?; echo "trt harness rc=$trt_rc ($((SECONDS - t0)) s)"
fi
grep -E "^=== .*rc=|suite done" "$OUT/suite/gpu_suite.log" 2>/dev/null
cat "$OUT/trt/summary.txt" 2>/dev/null
cp "$OUT/suite/gpu_suite.log" "$OUT/trt/summary.txt" "$OUT/" 2>/dev/null
cp "$OUT/suite/gpu_bench.md" "$OUT/suite/gpu_bench.json" "$OUT/suite/gpu_bench.png" "$OUT/" 2>/dev/null
tar -czf "$OUT/gpu_logs.tgz" -C "$OUT" suite trt && rm -rf "$OUT/suite" "$OUT/trt"
exit $(( suite_rc + trt_rc ))
