// The erf-GELU on AVX2 registers, shared by the activation / skip-epilogue kernels (kernels_avx2.cpp)
// and PointwiseMLP (pointwise_mlp.cpp). Include only from files whose functions carry AVX2 + FMA
// targets.
//
// geluErf8x<N>: v Phi(v) from the piecewise polynomial of Phi(-a), a = |v| (gelu_table.h, `neg`: 8
// intervals on [0, 5.5), degree 9, coefficients picked per lane by one vpermps each), Phi(v) = 1 -
// Phi(-a) for v >= 0 (Phi(-5.5) = 1.9e-8: above 5.5 the result is v). Vectors with a lane below -5.5
// (rare: one branch per call) take those lanes from geluErfFormula8x. About 13 FMA-pipe operations
// and 10 permutes per 8 values, against about 30 and a division for the formula: as fast in bulk
// (~0.62 ns per value on a 2-vCPU Xeon), faster beside the skip GEMM, which keeps the FMA pipes busy
// (see plugins/cpu/README.md); worst relative error 4.1e-7 (was 1.38e-6).
//
// geluErfFormula8x<N>: the activation.h formula (erfc by Numerical Recipes' Chebyshev fit, e^x by
// Cody-Waite and Cephes' degree-6 polynomial, Horner's scheme as there), each step for N vectors
// before the next (one vector's formula is a ~130-cycle chain of dependent operations: a division, the
// degree-9 erfc polynomial, the exp). Operations saved against the scalar form: 0.5 is folded into the
// power of two (2^(n-1) built from the rounding shifter's bits, no conversion); x clamped to -87.3
// gives n = -126, whose 2^(n-1) has a zero exponent field, i.e. is 0, so no mask for "e^x = 0 below
// -87.3" (this also sets e^x to 0 for x in (-87.7, -87.3], |gelu| < 3e-38 there); NaN propagates
// without a final blend (max maps it to -87.3, but t is NaN and NaN * 0 is NaN); the sign selects by
// blendv on v itself (no compare); e^r by plain Horner ending in two FMAs. Worst relative error
// 1.38e-6 (the negative tail's argument rounding).
#pragma once

#include <immintrin.h>

#include "gelu_table.h"

#define TFNO_GELU_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

namespace turbofno {
namespace cpu {

constexpr int kGeluAvx2Group = 8;  // vectors per geluErf8x call in the loops (see above)

// v[i] = 0.5 v (1 + erf(v / sqrt 2)) for i < N; NaN in, NaN out; +inf -> +inf, -inf -> NaN.
template <int N>
TFNO_GELU_AVX2 void geluErfFormula8x(__m256* v) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 z[N], t[N], p[N];
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) {
        z[i] = _mm256_mul_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v[i]), _mm256_set1_ps(0.70710678118654752f));
        t[i] = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.5f), z[i], one));
    }
    // erfc(z) = t e^{P(t) - z^2} (activation.h's erfcNonNeg)
    constexpr float c[10] = {0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
                             -0.18628806f, 0.09678418f, 0.37409196f, 1.00002368f, -1.26551223f};
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) p[i] = _mm256_set1_ps(c[0]);
#pragma GCC unroll 10
    for (int j = 1; j < 10; ++j) {
#pragma GCC unroll 8
        for (int i = 0; i < N; ++i) p[i] = _mm256_fmadd_ps(p[i], t[i], _mm256_set1_ps(c[j]));
    }
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) {
        // e^x, x = P - z^2 (x <= 1 here, no upper clamp needed); x = n ln2 + r, n = round(x / ln2)
        // by the shifter 1.5 * 2^23, whose sum's bits are 0x4B400000 + n
        const __m256 x = _mm256_max_ps(_mm256_fnmadd_ps(z[i], z[i], p[i]), _mm256_set1_ps(-87.3f));
        const __m256 shifter = _mm256_set1_ps(12582912.0f);
        const __m256 ns = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), shifter);
        const __m256 n = _mm256_sub_ps(ns, shifter);
        __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
        r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
        __m256 q = _mm256_set1_ps(1.9875691500e-4f);
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(1.3981999507e-3f));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(8.3334519073e-3f));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(4.1665795894e-2f));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(1.6666665459e-1f));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(5.0000001201e-1f));
        q = _mm256_fmadd_ps(q, r, one);
        const __m256 e = _mm256_fmadd_ps(q, r, one);  // 1 + r + r^2 q (Cephes: (q r) r + r, then + 1)
        // 2^(n - 1): exponent field n + 126 in 0..127 (n >= -126 as x >= -87.3)
        const __m256i bits =
            _mm256_slli_epi32(_mm256_add_epi32(_mm256_castps_si256(ns), _mm256_set1_epi32(126 - 0x4B400000)), 23);
        const __m256 hc = _mm256_mul_ps(_mm256_mul_ps(t[i], e), _mm256_castsi256_ps(bits));  // erfc(z) / 2
        // v (v >= 0 ? 1 - hc : hc), the blend on v's sign bit (-0: hc = 1/2 either way)
        v[i] = _mm256_mul_ps(v[i], _mm256_blendv_ps(_mm256_sub_ps(one, hc), hc, v[i]));
    }
}

// As geluErfFormula8x, from the `neg` table (see the top of this file); same NaN / inf behaviour.
template <int N>
TFNO_GELU_AVX2 void geluErf8x(__m256* v) {
    const GeluTable& tab = geluTable();
    constexpr float w = kGeluBody / kGeluNegIntervals;  // 11/16, exact
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256i idx[N];
    __m256 u[N], p[N];
    int low = 0;
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) {
        // a clamped to 5.5 (NaN -> 5.5: v keeps the NaN); interval idx (5.5 -> 7), u = a - its centre
        const __m256 a = _mm256_min_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v[i]), _mm256_set1_ps(kGeluBody));
        idx[i] = _mm256_min_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(a, _mm256_set1_ps(1.0f / w))),
                                  _mm256_set1_epi32(kGeluNegIntervals - 1));
        u[i] = _mm256_sub_ps(a, _mm256_fmadd_ps(_mm256_cvtepi32_ps(idx[i]), _mm256_set1_ps(w), _mm256_set1_ps(0.5f * w)));
        p[i] = _mm256_permutevar8x32_ps(_mm256_load_ps(tab.neg[kGeluNegDegree]), idx[i]);
        low |= _mm256_movemask_ps(_mm256_cmp_ps(v[i], _mm256_set1_ps(-kGeluBody), _CMP_LT_OQ));
    }
#pragma GCC unroll 10
    for (int j = kGeluNegDegree - 1; j >= 0; --j) {
#pragma GCC unroll 8
        for (int i = 0; i < N; ++i)
            p[i] = _mm256_fmadd_ps(p[i], u[i], _mm256_permutevar8x32_ps(_mm256_load_ps(tab.neg[j]), idx[i]));
    }
    __m256 y[N];
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) y[i] = _mm256_mul_ps(v[i], _mm256_blendv_ps(_mm256_sub_ps(one, p[i]), p[i], v[i]));
    if (low) {  // some lane below -5.5 (or -inf): those lanes from the formula
#pragma GCC unroll 8
        for (int i = 0; i < N; ++i) {
            const __m256 m = _mm256_cmp_ps(v[i], _mm256_set1_ps(-kGeluBody), _CMP_LT_OQ);
            if (_mm256_movemask_ps(m)) {
                __m256 f = v[i];
                geluErfFormula8x<1>(&f);
                y[i] = _mm256_blendv_ps(y[i], f, m);
            }
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) v[i] = y[i];
}

TFNO_GELU_AVX2 __m256 geluErf8(__m256 v) {
    geluErf8x<1>(&v);
    return v;
}

}  // namespace cpu
}  // namespace turbofno
