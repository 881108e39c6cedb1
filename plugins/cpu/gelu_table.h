// The table of the vectorized erf-GELU (kernels_avx512.cpp): gelu(v) = v Phi(v), and with a = |v|,
// Phi(-a) = e^{-a^2/2} g(a), g(a) = erfc(a / sqrt 2) e^{a^2/2} / 2, a smooth function (0.5 at 0,
// ~1 / (a sqrt(2 pi)) for large a). g is a piecewise polynomial: kGeluIntervals intervals of width
// kGeluWidth on [0, kGeluIntervals kGeluWidth), degree kGeluDegree in u = a - (centre of the
// interval), interpolated at the Chebyshev nodes of each interval in double. Relative error of g
// about 1e-8 (below fp32 rounding); e^{-a^2/2} is under 2^-126 before a reaches the end, so past it
// Phi(-a) is 0 in fp32 whatever g is.
#pragma once

namespace turbofno {
namespace cpu {

constexpr int kGeluIntervals = 32;   // one AVX-512 two-register permute selects among 32
constexpr float kGeluWidth = 0.5f;
constexpr int kGeluDegree = 6;

struct GeluTable {
    // coef[j][i]: coefficient of u^j on interval i (a in [i w, (i + 1) w), u = a - (i + 1/2) w).
    alignas(64) float coef[kGeluDegree + 1][kGeluIntervals];
};

// Built once (thread-safe), on first use.
const GeluTable& geluTable();

}  // namespace cpu
}  // namespace turbofno
