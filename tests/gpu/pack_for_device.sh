#!/usr/bin/env bash
# Packs what a device session carries, small enough for few calls (each call carries <= 64 MiB with the
# ~24 MB tracked tree). Run here after building (tests/gpu/build.sh):
#   bash tests/gpu/pack_for_device.sh [WHEEL]
# 1. WHEEL (default: ~/.cache/turbofno-device/onnxruntime_gpu-1.31.1-*.whl, see ../shared/device): unpacked,
#    its CUDA provider reduced to the sm_90 cubins (fatbin_sm90_only.py), the TensorRT provider dropped,
#    tar.xz (~69 MB instead of 256 MB) split into .xfer/ortx0 (40 MB) and .xfer/ortx1: two calls instead of
#    seven. Skipped when .xfer/ortx0 exists.
# 2. build-gpu's ORT library, ctypes shim and test binaries, stripped, PTX zeroed, gzipped into .device/.
# On the device (one call each, within 30 s of each other; PYTHONPATH=/tmp/ortgpu afterwards):
#   carry .xfer/ortx0:  mkdir -p /tmp/parts && mv .xfer/ortx0 /tmp/parts/
#   carry .xfer/ortx1:  mv .xfer/ortx1 /tmp/parts/ && mkdir -p /tmp/ortgpu && cat /tmp/parts/ortx? | xz -dc | tar -C /tmp/ortgpu -xf -
#   carry .device:      mkdir -p build-gpu/ort_op build-gpu/tests/cpp && gunzip -c .device/libturbofno_ort.so.gz > build-gpu/ort_op/libturbofno_ort.so ...
#                       and cp .device/turbofno_build_info.json build-gpu/ort_op/ (else the CUDA-EP tests skip)
set -euo pipefail
cd "$(dirname "$0")/../.."
WHEEL=${1:-$(ls ~/.cache/turbofno-device/onnxruntime_gpu-1.31.1-*.whl 2>/dev/null | head -1)}
mkdir -p .xfer .device
if [ ! -f .xfer/ortx0 ] && [ -n "$WHEEL" ]; then
  T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
  (cd "$T" && python3 -m zipfile -e "$WHEEL" tree)
  rm -f "$T"/tree/onnxruntime/capi/libonnxruntime_providers_tensorrt.so
  python3 tests/gpu/fatbin_sm90_only.py "$T"/tree/onnxruntime/capi/libonnxruntime_providers_cuda.so
  tar -C "$T"/tree -cf - . | xz -9 -T2 > "$T"/ort.tar.xz
  head -c 40000000 "$T"/ort.tar.xz > .xfer/ortx0
  tail -c +40000001 "$T"/ort.tar.xz > .xfer/ortx1
fi
for f in ort_op/libturbofno_ort.so libtfno_capi.so tests/cpp/test_cuda_kernel tests/cpp/test_cuda_mlp; do
  [ -f build-gpu/$f ] || continue
  n=$(basename $f); cp build-gpu/$f /tmp/pack_$n; strip /tmp/pack_$n
  python3 tests/gpu/fatbin_sm90_only.py /tmp/pack_$n > /dev/null
  gzip -9 -c /tmp/pack_$n > .device/$n.gz; rm /tmp/pack_$n
done
# the ORT library's build info (the CUDA-EP tests run only where it says the library has CUDA ops)
cp build-gpu/ort_op/turbofno_build_info.json .device/
ls -la .xfer .device
