// Building blocks of the FFT passes (fft_pass.cuh): in-register R-point DFTs (R = 2, 3, 4, 5, 8, 16;
// exponent sign - for the forward transform, + for INV, unnormalized), exact roots of unity, and the
// float-reciprocal index division the kernel uses for run-time sizes.
#pragma once

#include "common.cuh"

namespace turbofno {
namespace cuda {

constexpr int kFftThreads = 256;
constexpr int kFftMaxPoints = 4096;  // complex values per block at most (L * S <= kFftLineBudget = 8192 reals)
constexpr int kFftMaxStages = 7;     // N2 <= 2048: e.g. 1458 = 2 * 3^6

// floor(a / d) for 0 <= a < 2^21, 1 <= d, given inv = 1.f / d: (a + 1/2) / d is at least 1 / (2d) from
// an integer and the two roundings move it by at most (a + 1/2) / d * 2^-23 < 1 / (2d).
__device__ __forceinline__ int fftDiv(int a, float inv) {
    return static_cast<int>((static_cast<float>(a) + 0.5f) * inv);
}

// e^{+2 pi i n / P} for 0 <= n < P < 2^28: 4n = a P + b gives the quadrant a exactly, the rest is
// sincospif of b / (2P) reduced to [-1/4, 1/4] (0, i, -1, -i exact).
__device__ __forceinline__ float2 fftRoot(int n, int P) {
    int a = (4 * n) / P;
    int b = 4 * n - a * P;
    if (2 * b > P) {
        ++a;
        b -= P;
    }
    float s, c;
    sincospif(static_cast<float>(b) / static_cast<float>(2 * P), &s, &c);
    switch (a & 3) {
        case 0: return make_float2(c, s);
        case 1: return make_float2(-s, c);
        case 2: return make_float2(-c, -s);
        default: return make_float2(s, -c);
    }
}

__device__ __forceinline__ float2 fftAdd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 fftSub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 fftScale(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
// (INV ? +i : -i) * d: the sign of the transform's exponent
template <bool INV> __device__ __forceinline__ float2 fftJ(float2 d) {
    return INV ? make_float2(-d.y, d.x) : make_float2(d.y, -d.x);
}
// a * w (inverse) or a * conj(w) (forward)
template <bool INV> __device__ __forceinline__ float2 fftTw(float2 a, float2 w) {
    return INV ? cmul(a, w) : make_float2(a.x * w.x + a.y * w.y, a.y * w.x - a.x * w.y);
}

// e^{+2 pi i m / 16} for the m = n2 * k1 the radix-16 DFT needs (compile-time m after unrolling).
__device__ __forceinline__ constexpr float2 fftW16(int m) {
    constexpr float c1 = 0.923879532511286756f, s1 = 0.382683432365089772f, h = 0.707106781186547524f;
    switch (m) {
        case 1: return {c1, s1};
        case 2: return {h, h};
        case 3: return {s1, c1};
        case 4: return {0.f, 1.f};
        case 6: return {-h, h};
        case 9: return {-c1, -s1};
        default: return {1.f, 0.f};
    }
}

template <bool INV> __device__ __forceinline__ void fftDft4(float2& a0, float2& a1, float2& a2, float2& a3) {
    const float2 s02 = fftAdd(a0, a2), d02 = fftSub(a0, a2);
    const float2 s13 = fftAdd(a1, a3), d13 = fftJ<INV>(fftSub(a1, a3));
    a0 = fftAdd(s02, s13);
    a2 = fftSub(s02, s13);
    a1 = fftAdd(d02, d13);
    a3 = fftSub(d02, d13);
}

// In-place R-point DFT of a.
template <int R, bool INV> __device__ __forceinline__ void fftDft(float2 (&a)[R]) {
    if constexpr (R == 2) {
        const float2 t = a[1];
        a[1] = fftSub(a[0], t);
        a[0] = fftAdd(a[0], t);
    } else if constexpr (R == 3) {
        constexpr float kS3 = 0.866025403784438647f;  // sin(2 pi / 3)
        const float2 t = fftAdd(a[1], a[2]);
        const float2 m = make_float2(fmaf(-0.5f, t.x, a[0].x), fmaf(-0.5f, t.y, a[0].y));
        const float2 d = fftJ<INV>(fftScale(fftSub(a[1], a[2]), kS3));
        a[0] = fftAdd(a[0], t);
        a[1] = fftAdd(m, d);
        a[2] = fftSub(m, d);
    } else if constexpr (R == 4) {
        fftDft4<INV>(a[0], a[1], a[2], a[3]);
    } else if constexpr (R == 5) {
        constexpr float kC1 = 0.309016994374947424f;   // cos(2 pi / 5)
        constexpr float kC2 = -0.809016994374947424f;  // cos(4 pi / 5)
        constexpr float kS1 = 0.951056516295153572f;   // sin(2 pi / 5)
        constexpr float kS2 = 0.587785252292473129f;   // sin(4 pi / 5)
        const float2 b1 = fftAdd(a[1], a[4]), b2 = fftAdd(a[2], a[3]);
        const float2 d1 = fftSub(a[1], a[4]), d2 = fftSub(a[2], a[3]);
        const float2 m1 = make_float2(fmaf(kC2, b2.x, fmaf(kC1, b1.x, a[0].x)), fmaf(kC2, b2.y, fmaf(kC1, b1.y, a[0].y)));
        const float2 m2 = make_float2(fmaf(kC1, b2.x, fmaf(kC2, b1.x, a[0].x)), fmaf(kC1, b2.y, fmaf(kC2, b1.y, a[0].y)));
        const float2 n1 = fftJ<INV>(make_float2(fmaf(kS2, d2.x, kS1 * d1.x), fmaf(kS2, d2.y, kS1 * d1.y)));
        const float2 n2 = fftJ<INV>(make_float2(fmaf(-kS1, d2.x, kS2 * d1.x), fmaf(-kS1, d2.y, kS2 * d1.y)));
        a[0] = fftAdd(a[0], fftAdd(b1, b2));
        a[1] = fftAdd(m1, n1);
        a[4] = fftSub(m1, n1);
        a[2] = fftAdd(m2, n2);
        a[3] = fftSub(m2, n2);
    } else if constexpr (R == 8) {
        // n = 2 n1 + n2, k = k1 + 4 k2: 4-point DFTs of the even and odd samples, twiddles
        // e^{-+2 pi i n2 k1 / 8}, then 2-point DFTs
        fftDft4<INV>(a[0], a[2], a[4], a[6]);
        fftDft4<INV>(a[1], a[3], a[5], a[7]);
        const float2 e0 = a[0], e1 = a[2], e2 = a[4], e3 = a[6];
        const float2 o0 = a[1], o1 = fftTw<INV>(a[3], fftW16(2)), o2 = fftJ<INV>(a[5]), o3 = fftTw<INV>(a[7], fftW16(6));
        a[0] = fftAdd(e0, o0);
        a[4] = fftSub(e0, o0);
        a[1] = fftAdd(e1, o1);
        a[5] = fftSub(e1, o1);
        a[2] = fftAdd(e2, o2);
        a[6] = fftSub(e2, o2);
        a[3] = fftAdd(e3, o3);
        a[7] = fftSub(e3, o3);
    } else {
        static_assert(R == 16, "radices 2, 3, 4, 5, 8, 16");
        // n = 4 n1 + n2, k = k1 + 4 k2: four 4-point DFTs over n1 (b[n2][k1] at a[n2 + 4 k1]),
        // twiddles e^{-+2 pi i n2 k1 / 16}, then four 4-point DFTs over n2 (into a[k1 + 4 k2])
#pragma unroll
        for (int n2 = 0; n2 < 4; ++n2) fftDft4<INV>(a[n2], a[n2 + 4], a[n2 + 8], a[n2 + 12]);
#pragma unroll
        for (int n2 = 1; n2 < 4; ++n2)
#pragma unroll
            for (int k1 = 1; k1 < 4; ++k1) a[n2 + 4 * k1] = fftTw<INV>(a[n2 + 4 * k1], fftW16(n2 * k1));
        float2 b[16];
#pragma unroll
        for (int e = 0; e < 16; ++e) b[e] = a[e];
#pragma unroll
        for (int k1 = 0; k1 < 4; ++k1) {
            float2 c0 = b[4 * k1], c1 = b[1 + 4 * k1], c2 = b[2 + 4 * k1], c3 = b[3 + 4 * k1];
            fftDft4<INV>(c0, c1, c2, c3);
            a[k1] = c0;
            a[k1 + 4] = c1;
            a[k1 + 8] = c2;
            a[k1 + 12] = c3;
        }
    }
}

}  // namespace cuda
}  // namespace turbofno
