// The erf-GELU on AVX2 registers (the activation.h formula: erfc by Numerical Recipes' Chebyshev fit,
// e^x by Cody-Waite and Cephes' degree-6 polynomial), shared by the activation / skip-epilogue kernels
// (kernels_avx2.cpp) and PointwiseMLP (pointwise_mlp.cpp). Include only from files whose functions
// carry AVX2 + FMA targets.
//
// Evaluated on N vectors at a time, each step for all N before the next: one vector's formula is a
// ~130-cycle chain of dependent operations (a division, the degree-9 erfc polynomial, the exp), and
// the out-of-order window alone overlapped too little of it (1.47 ns per value on the 2-vCPU EPYC).
// The polynomials are in Estrin form (shorter chains; same coefficients, so the result differs from
// Horner's by fp32 rounding only). Measured 1.0 ns per value at N = 4 (best of 2..8; N = 8 spills).
#pragma once

#include <immintrin.h>

#define TFNO_GELU_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

namespace turbofno {
namespace cpu {

constexpr int kGeluAvx2Group = 4;  // vectors per geluErf8x call in the loops (see above)

// v[i] = 0.5 v (1 + erf(v / sqrt 2)) for i < N; NaN in, NaN out.
template <int N>
TFNO_GELU_AVX2 void geluErf8x(__m256* v) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 z[N], t[N], p[N];
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) {
        z[i] = _mm256_mul_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v[i]), _mm256_set1_ps(0.70710678118654752f));
        t[i] = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.5f), z[i], one));
    }
    // erfc(z) = t e^{P(t) - z^2}, P(t) = sum c_j t^j (activation.h's erfcNonNeg), Estrin:
    // P = (c0 + c1 t) + t^2 (c2 + c3 t) + t^4 ((c4 + c5 t) + t^2 (c6 + c7 t)) + t^8 (c8 + c9 t)
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) {
        const __m256 tt = t[i], t2 = _mm256_mul_ps(tt, tt), t4 = _mm256_mul_ps(t2, t2), t8 = _mm256_mul_ps(t4, t4);
        const __m256 a01 = _mm256_fmadd_ps(_mm256_set1_ps(1.00002368f), tt, _mm256_set1_ps(-1.26551223f));
        const __m256 a23 = _mm256_fmadd_ps(_mm256_set1_ps(0.09678418f), tt, _mm256_set1_ps(0.37409196f));
        const __m256 a45 = _mm256_fmadd_ps(_mm256_set1_ps(0.27886807f), tt, _mm256_set1_ps(-0.18628806f));
        const __m256 a67 = _mm256_fmadd_ps(_mm256_set1_ps(1.48851587f), tt, _mm256_set1_ps(-1.13520398f));
        const __m256 a89 = _mm256_fmadd_ps(_mm256_set1_ps(0.17087277f), tt, _mm256_set1_ps(-0.82215223f));
        const __m256 a03 = _mm256_fmadd_ps(a23, t2, a01), a47 = _mm256_fmadd_ps(a67, t2, a45);
        p[i] = _mm256_fmadd_ps(a89, t8, _mm256_fmadd_ps(a47, t4, a03));
    }
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) {
        // e^x, x = P - z^2 (act::expClamped: 0 below -87.3; x <= 1 here, no upper clamp needed)
        __m256 x = _mm256_fnmadd_ps(z[i], z[i], p[i]);
        const __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_GT_OQ);
        x = _mm256_max_ps(x, _mm256_set1_ps(-87.3f));
        const __m256 shifter = _mm256_set1_ps(12582912.0f);
        const __m256 n = _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), shifter), shifter);
        __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
        r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
        // q = sum d_j r^j (Cephes expf), e = 1 + r + q r^2; Estrin: (d0 + d1 r) + r^2 ((d2 + d3 r) + r^2 (d4 + d5 r))
        const __m256 r2 = _mm256_mul_ps(r, r);
        const __m256 q01 = _mm256_fmadd_ps(_mm256_set1_ps(1.6666665459e-1f), r, _mm256_set1_ps(5.0000001201e-1f));
        const __m256 q23 = _mm256_fmadd_ps(_mm256_set1_ps(8.3334519073e-3f), r, _mm256_set1_ps(4.1665795894e-2f));
        const __m256 q45 = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
        const __m256 q = _mm256_fmadd_ps(_mm256_fmadd_ps(q45, r2, q23), r2, q01);
        const __m256 e = _mm256_add_ps(_mm256_fmadd_ps(q, r2, r), one);
        const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
        const __m256 c = _mm256_and_ps(keep, _mm256_mul_ps(_mm256_mul_ps(t[i], e), _mm256_castsi256_ps(bits)));
        // 0.5 v (v >= 0 ? 2 - c : c); NaN in, NaN out
        const __m256 pos = _mm256_cmp_ps(v[i], _mm256_setzero_ps(), _CMP_GE_OQ);
        const __m256 g = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v[i]),
                                       _mm256_blendv_ps(c, _mm256_sub_ps(_mm256_set1_ps(2.0f), c), pos));
        v[i] = _mm256_blendv_ps(v[i], g, _mm256_cmp_ps(v[i], v[i], _CMP_ORD_Q));
    }
}

TFNO_GELU_AVX2 __m256 geluErf8(__m256 v) {
    geluErf8x<1>(&v);
    return v;
}

}  // namespace cpu
}  // namespace turbofno
