"""Shrinks a CUDA shared library for carrying to the GPU machine (an H200, sm_90): in every embedded
fatbin that holds an sm_90 cubin, the payload of each other entry (cubins for other GPUs, PTX) is
overwritten with zeros, headers kept. The loader then picks the sm_90 cubin as before, and the zeros
compress away (onnxruntime-gpu's CUDA provider: 284 MB with 141 MB of other GPUs' cubins; our
libraries: ~10 MB of PTX). For device transfers only: the file no longer runs on other GPUs.

    python3 tests/gpu/fatbin_sm90_only.py LIB.so [LIB.so ...]     (edits in place)
"""
import mmap
import struct
import sys

MAGIC = struct.pack("<I", 0xBA55ED50)  # fatbin header: magic, u16 version, u16 header size, u64 body size
CUBIN = 2                              # entry kind 2: ELF cubin (1: PTX); u32 arch at entry offset 28


def shrink(path):
    with open(path, "r+b") as f, mmap.mmap(f.fileno(), 0) as d:
        i, zeroed, kept = 0, 0, 0
        while (i := d.find(MAGIC, i)) >= 0:
            _, hs, size = struct.unpack_from("<HHQ", d, i + 4)
            j, end, entries = i + hs, i + hs + size, []
            while j < end:
                kind, _, ehs, esize = struct.unpack_from("<HHIQ", d, j)
                entries.append((j + ehs, esize, kind, struct.unpack_from("<I", d, j + 28)[0]))
                j += ehs + esize
            if any(k == CUBIN and a == 90 for _, _, k, a in entries):
                for off, esize, kind, arch in entries:
                    if kind == CUBIN and arch == 90:
                        kept += esize
                    else:
                        d[off:off + esize] = bytes(esize)
                        zeroed += esize
            i = end
        d.flush()
    print(f"{path}: sm_90 cubins {kept / 1e6:.1f} MB kept, {zeroed / 1e6:.1f} MB zeroed")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        shrink(p)
