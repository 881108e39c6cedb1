#!/usr/bin/env bash
# On the device machine, first thing in every call: unpacks whatever this call carried (made here by
# tests/gpu/pack_for_device.sh) and says what is ready. Idempotent; the calls of one warm lease share /tmp and the
# ignored build-gpu/, so later calls find what earlier ones unpacked.
#   .device/*.gz        -> build-gpu/ (ORT library into ort_op/, ctypes shim) and the build info into build-gpu/ort_op/
#   .device_tests/*.gz  -> build-gpu/tests/cpp/
#   .device_trt/*.gz    -> build-trt-gpu/ (the TensorRT plugin library into trt_plugin/, trt_harness into tests/cpp/;
#                          run_trt_harness.sh with PREBUILT=1 uses them)
#   .xfer/NAME.IofN     -> /tmp/parts/; once all N parts of NAME are there: NAME (*.tar.xz) unpacked into
#                          /tmp/ortgpu (onnxruntime-gpu), NAME (*.whl) installed into /tmp/pydeps
#   .whl*/*.whl         -> installed into /tmp/pydeps (no index, no dependency resolution), once per wheel
# Use the result with: export PYTHONPATH=/tmp/ortgpu:/tmp/pydeps
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p build-gpu/ort_op build-gpu/tests/cpp /tmp/parts /tmp/pydeps/.done

unzip_into() {  # unzip_into FOLDER FILE.gz: FOLDER/FILE, executable
    local name; name=$(basename "$2" .gz)
    gunzip -c "$2" > "$1/$name"
    chmod +x "$1/$name"
}
for f in .device/*.gz; do
    [ -e "$f" ] || continue
    case $(basename "$f") in
        libturbofno_ort.so.gz) unzip_into build-gpu/ort_op "$f" ;;
        libtfno_capi.so.gz) unzip_into build-gpu "$f" ;;
        *) unzip_into build-gpu/tests/cpp "$f" ;;
    esac
done
[ -f .device/turbofno_build_info.json ] && cp .device/turbofno_build_info.json build-gpu/ort_op/
for f in .device_tests/*.gz; do
    [ -e "$f" ] && unzip_into build-gpu/tests/cpp "$f"
done
for f in .device_trt/*.gz; do
    [ -e "$f" ] || continue
    case $(basename "$f") in
        libturbofno_trt.so.gz) mkdir -p build-trt-gpu/trt_plugin && unzip_into build-trt-gpu/trt_plugin "$f" ;;
        *) mkdir -p build-trt-gpu/tests/cpp && unzip_into build-trt-gpu/tests/cpp "$f" ;;
    esac
done

for f in .xfer/*.[0-9]*of[0-9]*; do
    [ -e "$f" ] && mv "$f" /tmp/parts/
done
for first in /tmp/parts/*.1of[0-9]*; do
    [ -e "$first" ] || continue
    name=${first%.1of*} n=${first##*.1of}
    parts=()
    for i in $(seq 1 "$n"); do parts+=("$name.${i}of$n"); done
    have=0
    for p in "${parts[@]}"; do [ -f "$p" ] && have=$((have + 1)); done
    if [ "$have" -lt "$n" ]; then
        echo "$(basename "$name"): $have of $n parts here"
        continue
    fi
    case $name in
        *.tar.xz) mkdir -p /tmp/ortgpu && cat "${parts[@]}" | xz -dc | tar -C /tmp/ortgpu -xf - ;;
        *.whl) cat "${parts[@]}" > "/tmp/$(basename "$name")" &&
               python3 -m pip install -q --no-index --no-deps --target /tmp/pydeps "/tmp/$(basename "$name")" &&
               touch "/tmp/pydeps/.done/$(basename "$name")" ;;
        *) echo "$(basename "$name"): no rule to unpack it"; continue ;;
    esac
    rm -f "${parts[@]}"
    echo "$(basename "$name"): unpacked"
done

for w in .whl*/*.whl; do
    [ -e "$w" ] || continue
    [ -e "/tmp/pydeps/.done/$(basename "$w")" ] && continue
    python3 -m pip install -q --no-index --no-deps --target /tmp/pydeps "$w" && touch "/tmp/pydeps/.done/$(basename "$w")"
done

[ -f .device/packed_at ] && echo "libraries packed at $(cat .device/packed_at)"
echo "build-gpu: $(cd build-gpu && ls ort_op/libturbofno_ort.so libtfno_capi.so tests/cpp/* 2> /dev/null | tr '\n' ' ')"
[ -d build-trt-gpu ] && echo "build-trt-gpu: $(cd build-trt-gpu && ls trt_plugin/libturbofno_trt.so tests/cpp/trt_harness 2> /dev/null | tr '\n' ' ')"
[ -d /tmp/ortgpu/onnxruntime ] && echo "onnxruntime-gpu: /tmp/ortgpu"
echo "python packages in /tmp/pydeps: $(ls /tmp/pydeps/.done | wc -l) wheels"
