// The erf-GELU on AVX-512 registers (gelu_table.h), shared by the activation and skip-epilogue
// kernels of kernels_avx512.cpp. Include only from a file whose functions carry AVX-512 targets.
#pragma once

#include <immintrin.h>

#include "gelu_table.h"

namespace turbofno {
namespace cpu {

constexpr int kGeluRegs512 = 2 * (kGeluDegree + 1);

// The table in registers: tab[2j], tab[2j + 1] = coefficient j on intervals 0..15, 16..31.
__attribute__((target("avx512f,avx2,fma"), always_inline)) inline void loadGeluTable512(__m512* tab) {
    const GeluTable& t = geluTable();
    for (int j = 0; j <= kGeluDegree; ++j) {
        tab[2 * j] = _mm512_load_ps(t.coef[j]);
        tab[2 * j + 1] = _mm512_load_ps(t.coef[j] + 16);
    }
}

// erf-GELU of 16 values: gelu(v) = v Phi(v), Phi(-a) = e^{-a^2/2} g(a) with a = |v| and g the
// piecewise polynomial of gelu_table.h, its coefficients picked per lane by a two-register permute
// (tab[2j], tab[2j+1]: coefficient j on intervals 0..15, 16..31). Relative error <= 2.3e-7 wherever
// |gelu| > 1e-30 (measured against float64 over [-30, 30]); NaN in, NaN out (through v); +-inf as
// torch (inf, NaN).
__attribute__((target("avx512f,avx2,fma"), always_inline)) inline __m512 geluErf16(__m512 v, const __m512* tab) {
    const __m512 a = _mm512_abs_ps(v);
    const __m512 ac = _mm512_min_ps(a, _mm512_set1_ps(15.99f));  // NaN -> 15.99
    const __m512i idx = _mm512_cvttps_epi32(_mm512_mul_ps(ac, _mm512_set1_ps(1.0f / kGeluWidth)));
    const __m512 u = _mm512_sub_ps(ac, _mm512_fmadd_ps(_mm512_cvtepi32_ps(idx), _mm512_set1_ps(kGeluWidth),
                                                       _mm512_set1_ps(0.5f * kGeluWidth)));
    __m512 g = _mm512_permutex2var_ps(tab[2 * kGeluDegree], idx, tab[2 * kGeluDegree + 1]);
#pragma GCC unroll 8
    for (int j = kGeluDegree - 1; j >= 0; --j)
        g = _mm512_fmadd_ps(g, u, _mm512_permutex2var_ps(tab[2 * j], idx, tab[2 * j + 1]));
    // e^{-a^2/2} (with a <= 15.99: 0 in fp32 past 14) = e^{x + x_lo}: x = -(a a)/2, x_lo = -(rounding
    // error of a a)/2 (exact by fma; without it the tail's relative error grows like a^2 ulp);
    // x = n ln2 + r, Cephes' expf polynomial on r + x_lo, 2^n by scalef (0 below 2^-149)
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
    const __m512 q = _mm512_mul_ps(g, e);  // Phi(-a)
    const __mmask16 pos = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GE_OQ);
    return _mm512_mul_ps(v, _mm512_mask_sub_ps(q, pos, _mm512_set1_ps(1.0f), q));
}

}  // namespace cpu
}  // namespace turbofno
