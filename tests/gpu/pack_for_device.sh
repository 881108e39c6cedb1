#!/usr/bin/env bash
# Packs what a device session carries into pieces that each fit one call (a call carries at most 64 MiB, the
# tracked tree included), then prints the pieces and a grouping into calls. Run here after building build-gpu/
# (tests/gpu/build.sh); on the device each call starts with `bash tests/gpu/device_unpack.sh`.
#   bash tests/gpu/pack_for_device.sh [FILE...]
# 1. onnxruntime-gpu (the wheel in ~/.cache/turbofno-device, see ../shared/device, or WHEEL=...): unpacked, its
#    CUDA provider reduced to the sm_90 cubins (fatbin_sm90_only.py), the TensorRT provider dropped, tar.xz
#    (~69 MB instead of 256 MB) split into .xfer/ort-gpu.tar.xz.IofN. Skipped when those parts exist;
#    ORT_TARXZ=FILE splits such a tarball made before instead.
# 2. build-gpu's ORT library, ctypes shim and build info into .device/, its test binaries into .device_tests/,
#    build-trt-gpu's TensorRT plugin library and harness (where built: tests/gpu/README) into .device_trt/,
#    stripped, PTX zeroed, gzipped.
# 3. every FILE given (e.g. a wheel the device lacks, such as scipy's for the demo) split into .xfer/NAME.IofN.
# Folders of small wheels (.whl*/, e.g. neuraloperator and its pure-Python dependencies for cp312) are carried as
# they are. The grouping printed at the end is first-fit by size; carry each group in one call, one call after
# the other within the device's idle limit.
set -euo pipefail
cd "$(dirname "$0")/../.."
LIMIT=${CARRY_LIMIT:-$((64 * 1024 * 1024))}  # bytes one device call carries
# the device tool counts the tree's disk usage (whole blocks), ~7 % more than its apparent size here; only the
# tracked files present count (tests/gpu/device_tree.sh lean moves ~25 MB of them aside), summed over every du batch
TREE=$(git ls-files -z | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
    xargs -0 -r du -c -B1 | awk '$2 == "total" {t += $1} END {print t + 0}')
ROOM=$((LIMIT - TREE - 1024 * 1024))  # what one call can carry besides the tree (1 MiB to spare)
mkdir -p .xfer .device .device_tests .device_trt

split_for_device() {  # split_for_device FILE NAME: .xfer/NAME.IofN, each part <= ROOM bytes
    local size n i
    size=$(stat -c %s "$1")
    n=$(((size + ROOM - 1) / ROOM))
    rm -f .xfer/"$2".*of*
    for i in $(seq 1 "$n"); do
        dd if="$1" of=".xfer/$2.${i}of$n" bs=1M iflag=skip_bytes,count_bytes skip=$(((i - 1) * ROOM)) count="$ROOM" \
            status=none
    done
}

WHEEL=${WHEEL:-$(ls ~/.cache/turbofno-device/onnxruntime_gpu-1.31.1-*.whl 2> /dev/null | head -1)}
if [ -n "${ORT_TARXZ:-}" ]; then  # a reduced tarball made before (step 1's ort.tar.xz)
    split_for_device "$ORT_TARXZ" ort-gpu.tar.xz
elif ! ls .xfer/ort-gpu.tar.xz.1of* > /dev/null 2>&1 && [ -n "$WHEEL" ]; then
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    (cd "$T" && python3 -m zipfile -e "$WHEEL" tree)
    rm -f "$T"/tree/onnxruntime/capi/libonnxruntime_providers_tensorrt.so
    python3 tests/gpu/fatbin_sm90_only.py "$T"/tree/onnxruntime/capi/libonnxruntime_providers_cuda.so
    tar -C "$T"/tree -cf - . | xz -9 -T2 > "$T"/ort.tar.xz
    split_for_device "$T"/ort.tar.xz ort-gpu.tar.xz
fi

pack() {  # pack FOLDER FILE: stripped, PTX zeroed, gzipped into FOLDER
    local n; n=$(basename "$2")
    cp "$2" "/tmp/pack_$n"
    strip "/tmp/pack_$n"
    python3 tests/gpu/fatbin_sm90_only.py "/tmp/pack_$n" > /dev/null
    gzip -9 -c "/tmp/pack_$n" > "$1/$n.gz"
    rm "/tmp/pack_$n"
}
for f in ort_op/libturbofno_ort.so libtfno_capi.so; do
    [ -f "build-gpu/$f" ] && pack .device "build-gpu/$f"
done
# the ORT library's build info (the CUDA-EP tests run only where it says the library has CUDA ops)
cp build-gpu/ort_op/turbofno_build_info.json .device/
# which commit the libraries were packed at (-dirty: the sources differed from it; rebuild build-gpu first)
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- plugins ort_op trt_plugin CMakeLists.txt || echo -dirty)," \
     "libraries built $(date -u -r build-gpu/ort_op/libturbofno_ort.so +%FT%TZ)" > .device/packed_at
for f in test_cuda_kernel test_cuda_mlp; do
    [ -f "build-gpu/tests/cpp/$f" ] && pack .device_tests "build-gpu/tests/cpp/$f"
done
for f in build-trt-gpu/trt_plugin/libturbofno_trt.so build-trt-gpu/tests/cpp/trt_harness; do
    [ -f "$f" ] && pack .device_trt "$f"
done
for f in "$@"; do
    split_for_device "$f" "$(basename "$f")"
done
# parts split for another tree size split again: too large for a call now (the tree grew), or more parts than
# needed (a lean tree leaves more room per call)
for first in .xfer/*.1of[0-9]*; do
    [ -e "$first" ] || continue
    name=${first%.1of*} n=${first##*.1of}
    parts=()
    for i in $(seq 1 "$n"); do parts+=("$name.${i}of$n"); done
    total=$(stat -c %s "${parts[@]}" | awk '{t += $1} END {print t}')
    if [ "$(stat -c %s "${parts[@]}" | sort -n | tail -1)" -gt "$ROOM" ] || [ "$n" -gt $(((total + ROOM - 1) / ROOM)) ]; then
        cat "${parts[@]}" > /tmp/pack_resplit && split_for_device /tmp/pack_resplit "$(basename "$name")"
        rm -f /tmp/pack_resplit
        echo "split again: $(basename "$name")"
    fi
done

# the pieces, largest first, and a first-fit grouping into calls
echo "tracked tree $((TREE / 1000000)) MB; each call carries up to $((ROOM / 1000000)) MB more"
[ "$(bash tests/gpu/device_tree.sh status)" = whole ] && echo "(bash tests/gpu/device_tree.sh lean first: larger parts, fewer calls)"
pieces=$(for p in .device .device_tests .device_trt .whl*/ .xfer/*of[0-9]*; do
    [ -e "$p" ] && echo "$(du -cb "$p" | tail -1 | cut -f1) ${p%/}"
done | sort -rn)
echo "$pieces" | awk -v room="$ROOM" '
    {size[NR] = $1; name[NR] = $2}
    END {
        for (i = 1; i <= NR; ++i) {
            if (size[i] > room)
                printf "WARNING: %s (%d MB) does not fit one call: pass its file(s) as FILE to split them\n", name[i], size[i] / 1000000
            for (c = 1; c <= calls && used[c] + size[i] > room; ++c) {}
            if (c > calls) calls = c
            used[c] += size[i]; items[c] = items[c] " \"" name[i] "\""
        }
        for (c = 1; c <= calls; ++c) printf "call %d (%d MB): carry [%s]\n", c, used[c] / 1000000, substr(items[c], 2)
    }' | sed 's/" "/", "/g'
echo "each call: bash tests/gpu/device_unpack.sh && export PYTHONPATH=/tmp/ortgpu:/tmp/pydeps && ..."
