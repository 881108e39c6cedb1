// Host stand-in for plugins/cuda/mma_tf32.cuh (tests/gpu/mlp_host_emu): the same Tf32Pair / splitTf32 /
// mma3xTf32 interface, with cvt.rna.tf32.f32 done on the bits (round to nearest, ties away from zero, 10
// mantissa bits) and mma.m16n8k8 done collectively by the warp's 32 CPU threads: each lane posts its
// fragments in the warp's exchange area, a warp barrier, each lane gathers the 16 x 8 A and 8 x 8 B tiles
// by the PTX layouts (documented in the real header) and adds its own C elements, a second barrier.
// The tensor core reads the top 19 bits of an operand (the lo parts are not tf32-rounded): modelled by
// truncation. Products of two tf32 values are exact in fp32; the 8-term sum is done in double and
// rounded once (the hardware's accumulation order and rounding differ slightly: the test's tolerance
// covers that).
#pragma once

#include <cstdint>

namespace turbofno {
namespace cuda {

struct Tf32Pair {
    uint32_t hi, lo;
};

// bit casts: __float_as_uint / __uint_as_float of shim.h (force-included before this header)
inline Tf32Pair splitTf32(float x) {
    uint32_t u = __float_as_uint(x);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;  // rna to 10 mantissa bits
    return Tf32Pair{u, __float_as_uint(x - __uint_as_float(u))};
}

inline Tf32Pair splitTf32Trunc(float x) {
    const uint32_t hi = __float_as_uint(x) & 0xffffe000u;
    return Tf32Pair{hi, __float_as_uint(x - __uint_as_float(hi))};
}

inline Tf32Pair negate(Tf32Pair p) { return Tf32Pair{p.hi ^ 0x80000000u, p.lo ^ 0x80000000u}; }

struct WarpMmaExchange {
    float a[32][4], b[32][2];
};
inline WarpMmaExchange gWarpMma[32];

inline void mmaTf32(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1) {
    const unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
    WarpMmaExchange& ex = gWarpMma[w];
    const uint32_t a[4] = {a0, a1, a2, a3}, b[2] = {b0, b1};
    for (int r = 0; r < 4; ++r) ex.a[lane][r] = __uint_as_float(a[r] & 0xffffe000u);
    for (int r = 0; r < 2; ++r) ex.b[lane][r] = __uint_as_float(b[r] & 0xffffe000u);
    gWarpBarrier[w]->arriveAndWait();
    float A[16][8], B[8][8];
    for (int l = 0; l < 32; ++l) {
        const int g = l / 4, t = l % 4;
        for (int r = 0; r < 4; ++r) A[g + 8 * (r & 1)][t + 4 * (r >> 1)] = ex.a[l][r];
        for (int r = 0; r < 2; ++r) B[t + 4 * r][g] = ex.b[l][r];
    }
    const int g = lane / 4, t = lane % 4;
    for (int r = 0; r < 4; ++r) {
        const int row = g + 8 * (r >> 1), col = 2 * t + (r & 1);
        double s = d[r];
        for (int k = 0; k < 8; ++k) s += static_cast<double>(A[row][k]) * B[k][col];
        d[r] = static_cast<float>(s);
    }
    gWarpBarrier[w]->arriveAndWait();  // the exchange area is reused by the next call
}

inline void mma3xTf32(float (&d)[4], const Tf32Pair (&a)[4], const Tf32Pair (&b)[2]) {
    mmaTf32(d, a[0].lo, a[1].lo, a[2].lo, a[3].lo, b[0].hi, b[1].hi);
    mmaTf32(d, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b[0].lo, b[1].lo);
    mmaTf32(d, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b[0].hi, b[1].hi);
}

}  // namespace cuda
}  // namespace turbofno
