// The erf-GELU on AVX2 registers (the activation.h formula: erfc by Numerical Recipes' Chebyshev fit,
// e^x by Cody-Waite and Cephes' degree-6 polynomial, Horner's scheme as there), shared by the
// activation / skip-epilogue kernels (kernels_avx2.cpp) and PointwiseMLP (pointwise_mlp.cpp). Include
// only from files whose functions carry AVX2 + FMA targets.
//
// Evaluated on N vectors at a time, each step for all N before the next: one vector's formula is a
// ~130-cycle chain of dependent operations (a division, the degree-9 erfc polynomial, the exp), and
// the out-of-order window alone overlapped too little of it. 2304 values on the 2-vCPU EPYC (ns per
// value): one vector at a time 1.47; N = 4 0.94, N = 8 0.85 (Estrin's scheme: 0.92 at N = 4, 0.87 at
// N = 6, it adds multiplications and the FMA pipes are then the bound). Operations saved against
// the one-vector version: 0.5 is folded into the power of two (2^(n-1) built from the
// rounding shifter's bits, no conversion); x clamped to -87.3 gives n = -126, whose 2^(n-1) has a
// zero exponent field, i.e. is 0, so no mask for "e^x = 0 below -87.3" (this also sets e^x to 0 for
// x in (-87.7, -87.3], |gelu| < 3e-38 there); NaN propagates without a final blend (max maps it to
// -87.3, but t is NaN and NaN * 0 is NaN); the sign selects by blendv on v itself (no compare);
// e^r by plain Horner ending in two FMAs (Cephes adds r and 1 separately: one operation more, results
// differ by fp32 rounding). These three: 0.86 -> 0.80 ns per value (N = 8), same worst error
// (1.38e-6 relative, test_cpu_kernel's activation check, the negative tail's argument rounding).
#pragma once

#include <immintrin.h>

#define TFNO_GELU_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

namespace turbofno {
namespace cpu {

constexpr int kGeluAvx2Group = 8;  // vectors per geluErf8x call in the loops (see above)

// v[i] = 0.5 v (1 + erf(v / sqrt 2)) for i < N; NaN in, NaN out; +inf -> +inf, -inf -> NaN (as before).
template <int N>
TFNO_GELU_AVX2 void geluErf8x(__m256* v) {
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

TFNO_GELU_AVX2 __m256 geluErf8(__m256 v) {
    geluErf8x<1>(&v);
    return v;
}

}  // namespace cpu
}  // namespace turbofno
