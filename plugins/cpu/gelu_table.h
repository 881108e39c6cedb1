// The tables of the vectorized erf-GELU (gelu_avx512.h): gelu(v) = v Phi(v), Phi the standard
// normal CDF, as two piecewise polynomials, each over 32 intervals (one AVX-512 two-register
// permute selects among 32), interpolated at the Chebyshev nodes of each interval in double:
//  - body: Phi(v) itself on [-kGeluBody, kGeluBody), degree kGeluBodyDegree in u = v - (centre of
//    the interval); relative error ~1e-7 there. Above the range Phi(v) = 1 in fp32.
//  - tail: for v < -kGeluBody, Phi(-a) = e^{-a^2/2} g(a) with a = |v| and g(a) = erfc(a / sqrt 2)
//    e^{a^2/2} / 2, a smooth function (0.5 at 0, ~1 / (a sqrt(2 pi)) for large a), on [0, 16) in
//    intervals of width kGeluTailWidth, degree kGeluTailDegree in u = a - (centre); relative error of
//    g ~1e-8. e^{-a^2/2} is under 2^-126 before a reaches 16, so past it Phi(-a) is 0 in fp32.
// And for AVX2 (gelu_avx2.h), whose permute selects among 8:
//  - neg: Phi(-a) on a in [0, kGeluBody), 8 intervals (width 11/16), degree kGeluNegDegree in u = a -
//    (centre); Phi(v) = 1 - Phi(-v) for v >= 0. Relative error of the GELU <= 4.1e-7 (fp32 Horner).
#pragma once

namespace turbofno {
namespace cpu {

constexpr int kGeluIntervals = 32;
constexpr float kGeluBody = 5.5f;            // body range [-5.5, 5.5): interval width 11/32 (exact)
constexpr int kGeluBodyDegree = 7;
constexpr float kGeluTailWidth = 0.5f;       // tail range [0, 16)
constexpr int kGeluTailDegree = 6;
constexpr int kGeluNegIntervals = 8;         // AVX2 table: Phi(-a), a in [0, 5.5): width 11/16 (exact)
constexpr int kGeluNegDegree = 9;

struct GeluTable {
    // body[j][i]: coefficient of u^j on body interval i (v in [-5.5 + i w, -5.5 + (i + 1) w), w = 11/32)
    alignas(64) float body[kGeluBodyDegree + 1][kGeluIntervals];
    // tail[j][i]: coefficient of u^j on tail interval i (a in [i w, (i + 1) w), w = kGeluTailWidth)
    alignas(64) float tail[kGeluTailDegree + 1][kGeluIntervals];
    // neg[j][i]: coefficient of u^j on AVX2 interval i (a = -v in [i w, (i + 1) w), w = 11/16)
    alignas(64) float neg[kGeluNegDegree + 1][kGeluNegIntervals];
};

// Built once (thread-safe), on first use.
const GeluTable& geluTable();

}  // namespace cpu
}  // namespace turbofno
