// The erf-GELU on AVX-512 registers (gelu_table.h), shared by the activation (kernels_avx512.cpp)
// and skip-epilogue (skip_avx512.cpp) kernels. Include only from files whose functions carry
// AVX-512 targets.
#pragma once

#include <immintrin.h>

#include "gelu_table.h"

#define TFNO_GELU512 __attribute__((target("avx512f,avx2,fma"), always_inline)) inline

namespace turbofno {
namespace cpu {

constexpr int kGeluRegs512 = 2 * (kGeluBodyDegree + 1);

// The body table in registers: tab[2j], tab[2j + 1] = coefficient j on intervals 0..15, 16..31.
TFNO_GELU512 void loadGeluTable512(__m512* tab) {
    const GeluTable& t = geluTable();
    for (int j = 0; j <= kGeluBodyDegree; ++j) {
        tab[2 * j] = _mm512_load_ps(t.body[j]);
        tab[2 * j + 1] = _mm512_load_ps(t.body[j] + 16);
    }
}

// gelu(v) for v < -kGeluBody: v Phi(-a), a = |v|, Phi(-a) = e^{-a^2/2} g(a) (tail table). e^{-a^2/2}
// (a <= 15.99: 0 in fp32 past 14) = e^{x + x_lo}: x = -(a a)/2, x_lo = -(rounding error of a a)/2
// (exact by fma; without it the relative error grows like a^2 ulp); x = n ln2 + r, Cephes' expf
// polynomial on r + x_lo, 2^n by scalef (0 below 2^-149).
TFNO_GELU512 __m512 geluTail16(__m512 v) {
    const GeluTable& t = geluTable();
    const __m512 ac = _mm512_min_ps(_mm512_abs_ps(v), _mm512_set1_ps(15.99f));  // NaN -> 15.99
    const __m512i idx = _mm512_cvttps_epi32(_mm512_mul_ps(ac, _mm512_set1_ps(1.0f / kGeluTailWidth)));
    const __m512 u = _mm512_sub_ps(ac, _mm512_fmadd_ps(_mm512_cvtepi32_ps(idx), _mm512_set1_ps(kGeluTailWidth),
                                                       _mm512_set1_ps(0.5f * kGeluTailWidth)));
    __m512 g = _mm512_permutex2var_ps(_mm512_load_ps(t.tail[kGeluTailDegree]), idx,
                                      _mm512_load_ps(t.tail[kGeluTailDegree] + 16));
    for (int j = kGeluTailDegree - 1; j >= 0; --j)
        g = _mm512_fmadd_ps(g, u, _mm512_permutex2var_ps(_mm512_load_ps(t.tail[j]), idx, _mm512_load_ps(t.tail[j] + 16)));
    const __m512 aa = _mm512_mul_ps(ac, ac);
    const __m512 aaLo = _mm512_fmsub_ps(ac, ac, aa);
    const __m512 x = _mm512_mul_ps(aa, _mm512_set1_ps(-0.5f));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    r = _mm512_fnmadd_ps(aaLo, _mm512_set1_ps(0.5f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    const __m512 e = _mm512_scalef_ps(_mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f)), n);
    return _mm512_mul_ps(v, _mm512_mul_ps(g, e));
}

// erf-GELU of 16 values: v Phi(v), Phi from the body polynomial (coefficients picked per lane by a
// two-register permute) at v clamped to [-5.5, 5.49] (Phi(5.49) = 1 - 2e-8: the clamp is the "1
// above"); lanes below -5.5 (rare: a branch per vector) from geluTail16. Relative error <= 3e-7
// wherever |gelu| > 1e-30 (measured against float64 over [-30, 30]); NaN in, NaN out (the clamp
// maps NaN to 5.49, v keeps it); +-inf as torch (inf, NaN).
TFNO_GELU512 __m512 geluErf16(__m512 v, const __m512* tab) {
    constexpr float w = 2.0f * kGeluBody / kGeluIntervals;  // 11/32
    const __m512 vc = _mm512_max_ps(_mm512_min_ps(v, _mm512_set1_ps(5.49f)), _mm512_set1_ps(-kGeluBody));
    const __m512i idx = _mm512_cvttps_epi32(_mm512_fmadd_ps(vc, _mm512_set1_ps(1.0f / w), _mm512_set1_ps(kGeluBody / w)));
    const __m512 u = _mm512_sub_ps(vc, _mm512_fmadd_ps(_mm512_cvtepi32_ps(idx), _mm512_set1_ps(w),
                                                       _mm512_set1_ps(0.5f * w - kGeluBody)));
    __m512 phi = _mm512_permutex2var_ps(tab[2 * kGeluBodyDegree], idx, tab[2 * kGeluBodyDegree + 1]);
#pragma GCC unroll 8
    for (int j = kGeluBodyDegree - 1; j >= 0; --j)
        phi = _mm512_fmadd_ps(phi, u, _mm512_permutex2var_ps(tab[2 * j], idx, tab[2 * j + 1]));
    __m512 y = _mm512_mul_ps(v, phi);
    const __mmask16 low = _mm512_cmp_ps_mask(v, _mm512_set1_ps(-kGeluBody), _CMP_LT_OQ);
    if (low) y = _mm512_mask_mov_ps(y, low, geluTail16(v));
    return y;
}

}  // namespace cpu
}  // namespace turbofno
