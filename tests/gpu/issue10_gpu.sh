#!/usr/bin/env bash
# Issue 10 on the GPU machine: fused-layer tests on the CUDA EP, the CUDA demo, the whole-model and
# fused-layer benchmarks. Needs build-gpu/ (tests/gpu/build.sh), onnxruntime-gpu on PYTHONPATH
# (../shared/device/README.md: /tmp/ortgpu) and, for the demo and the model benchmark,
# neuraloperator (+ matplotlib) importable. Each STEP fits one device call (< 10 min):
#   STEP=tests  OUT=$OUT bash tests/gpu/issue10_gpu.sh   # pytest: fused layer, TF32 default, export after CUDA forward, ORT CUDA
#   STEP=demo   OUT=$OUT bash tests/gpu/issue10_gpu.sh   # turbofno demo --device cuda (log, plots, summary.json)
#   STEP=bench  OUT=$OUT bash tests/gpu/issue10_gpu.sh   # bench/model_bench.py (MODELS="..." to split, COMPILE=0 to skip torch.compile)
#   STEP=fused  OUT=$OUT bash tests/gpu/issue10_gpu.sh   # bench/fused_layer_bench.py --device cuda
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out/issue10}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 TURBOFNO_LIB_DIR=$PWD/build-gpu PYTHONPATH=$PWD/python:${PYTHONPATH:-}
[ -f build-gpu/ort_op/libturbofno_ort.so ] || bash tests/gpu/build.sh > "$OUT/build.log" 2>&1 || { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }
python3 -c "import onnxruntime as o; o.preload_dlls(); assert 'CUDAExecutionProvider' in o.get_available_providers()" \
  || { echo "onnxruntime-gpu not importable (PYTHONPATH=/tmp/ortgpu?)"; exit 1; }
case "${STEP:-tests}" in
  tests)
    python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_fused_layer.py tests/python/test_session_tf32.py \
      tests/python/test_export_devices.py tests/python/test_ort_cuda.py 2>&1 | tee "$OUT/pytest_issue10.log" | tail -40 ;;
  demo)
    python3 -m turbofno demo --device cuda --batch 8 --out "$OUT/demo" 2>&1 | tee "$OUT/demo.log" | tail -40 ;;
  bench)
    extra=(); [ "${COMPILE:-1}" = 0 ] && extra+=(--skip-compile); [ -n "${MODELS:-}" ] && extra+=(--models $MODELS)
    python3 bench/model_bench.py --device cuda --out "$OUT/model-bench" "${extra[@]}" 2>&1 | tee "$OUT/model_bench.log" | tail -40 ;;
  fused)
    python3 bench/fused_layer_bench.py --device cuda --out "$OUT/fused-cuda" 2>&1 | tee "$OUT/fused_layer.log" | tail -20 ;;
  *) echo "unknown STEP=$STEP"; exit 2 ;;
esac
exit ${PIPESTATUS[0]}
