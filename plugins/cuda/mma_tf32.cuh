// Error-compensated tensor-core products in fp32 accuracy ("3xTF32"): a float x is split into
// hi = tf32(x) and lo = x - hi, and a * b is computed as a.lo * b.hi + a.hi * b.lo + a.hi * b.hi on
// tf32 tensor cores (mma.sync m16n8k8, sm_80+), dropping only lo * lo (~2^-22 relative). Callers
// keep the chains short (a few mma per fp32 accumulator, then an ordinary add), because the tensor
// cores' internal accumulation is not round-to-nearest. Every CUDA target we build is sm_80 or newer
// (cmake/TurboFnoCuda.cmake).
//
// Fragment layouts of mma.m16n8k8 .tf32 (PTX ISA), lane = 4 * g + t (g = lane / 4, t = lane % 4):
//   A (16 x 8, row-major):  a[r] = A[g + 8 * (r & 1)][t + 4 * (r >> 1)],   r = 0..3
//   B (8 x 8, column):      b[r] = B[t + 4 * r][g],                         r = 0..1
//   C (16 x 8, fp32):       c[r] = C[g + 8 * (r >> 1)][2 * t + (r & 1)],   r = 0..3
#pragma once

#include <cstdint>

namespace turbofno {
namespace cuda {

struct Tf32Pair {
    uint32_t hi, lo;
};

__device__ __forceinline__ Tf32Pair splitTf32(float x) {
    uint32_t hi;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(x));
    // x - hi is exact in fp32; the tensor core reads only its top 19 bits (error ~2^-22 |x|)
    return Tf32Pair{hi, __float_as_uint(x - __uint_as_float(hi))};
}

// The cheaper split for operands that are used once (2 instructions; sm_90 has no hardware
// cvt.rna.tf32, splitTf32 costs ~5): hi = x truncated to tf32, lo = x - hi exactly (|lo| < 2^-10 |x|;
// the tensor core reads lo's top 19 bits: error < 2^-20 |x|, vs 2^-21 for the rounded split).
__device__ __forceinline__ Tf32Pair splitTf32Trunc(float x) {
    const uint32_t hi = __float_as_uint(x) & 0xffffe000u;
    return Tf32Pair{hi, __float_as_uint(x - __uint_as_float(hi))};
}

__device__ __forceinline__ Tf32Pair negate(Tf32Pair p) { return Tf32Pair{p.hi ^ 0x80000000u, p.lo ^ 0x80000000u}; }

// d += a * b for one m16n8k8 tile in tf32 (one tensor-core instruction).
__device__ __forceinline__ void mmaTf32(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                        uint32_t b1) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// d += a * b in fp32 accuracy: three tf32 products, small terms first.
__device__ __forceinline__ void mma3xTf32(float (&d)[4], const Tf32Pair (&a)[4], const Tf32Pair (&b)[2]) {
    mmaTf32(d, a[0].lo, a[1].lo, a[2].lo, a[3].lo, b[0].hi, b[1].hi);
    mmaTf32(d, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b[0].lo, b[1].lo);
    mmaTf32(d, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b[0].hi, b[1].hi);
}

}  // namespace cuda
}  // namespace turbofno
