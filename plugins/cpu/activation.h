// The fused layer's pointwise activations (core::Activation), in fp32, branch-free so that the
// compiler vectorizes the loops inside each ISA's target function (kernels_*.cpp call
// applyActivation). Accuracy (fp32): relative error about 3e-7 for exp-based terms; the formulas
// avoid cancellation (1 + tanh(u) = 2 / (1 + e^{-2u}) for u >= 0, 1 + erf(-x) = erfc(x)).
// NaN in, NaN out (as torch).
#pragma once

#include <cstdint>
#include <cstring>

#include "turbofno/params.h"

namespace turbofno {
namespace cpu {
namespace act {

// e^x: 0 below -87.3 (where e^x is subnormal), e^88.3 above 88.3 (callers only divide by it), a
// NaN argument gives 0 (the caller restores NaN). Cody-Waite reduction x = n ln2 + r, degree-6
// polynomial (Cephes expf).
__attribute__((always_inline)) inline float expClamped(float x) {
    const bool under = !(x > -87.3f);
    x = x > -87.3f ? x : -87.3f;
    x = x < 88.3f ? x : 88.3f;
    const float shifter = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer (nearest)
    const float n = (x * 1.44269504088896341f + shifter) - shifter;
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float e = p * r * r + r + 1.0f;
    const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, 4);
    return under ? 0.0f : e * scale;
}

// erfc(z) for z >= 0, fractional error < 1.2e-7 in exact arithmetic (Numerical Recipes' erfcc,
// a Chebyshev fit).
__attribute__((always_inline)) inline float erfcNonNeg(float z) {
    const float t = 1.0f / (1.0f + 0.5f * z);
    float p = 0.17087277f;
    p = p * t - 0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t - 1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t - 0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    p = p * t - 1.26551223f;
    return t * expClamped(p - z * z);
}

__attribute__((always_inline)) inline float absf(float v) { return v < 0.0f ? -v : v; }

// 0.5 v (1 + erf(v / sqrt 2))
__attribute__((always_inline)) inline float geluErf(float v) {
    const float c = erfcNonNeg(absf(v) * 0.70710678118654752f);
    return 0.5f * v * (v >= 0.0f ? 2.0f - c : c);
}

// 0.5 v (1 + tanh(u)), u = sqrt(2/pi) (v + 0.044715 v^3); with t = e^{-2|u|}:
// 1 + tanh(u) = 2 / (1 + t) for u >= 0 and 2 t / (1 + t) for u < 0.
__attribute__((always_inline)) inline float geluTanh(float v) {
    const float u = 0.79788456080286536f * (v + 0.044715f * v * v * v);
    const float t = expClamped(-2.0f * absf(u));
    return v * (u >= 0.0f ? 1.0f : t) / (1.0f + t);
}

__attribute__((always_inline)) inline float relu(float v) { return v < 0.0f ? 0.0f : v; }

// v sigmoid(v), sigmoid(v) = 1 / (1 + t) for v >= 0 and t / (1 + t) below, t = e^{-|v|} <= 1.
__attribute__((always_inline)) inline float silu(float v) {
    const float t = expClamped(-absf(v));
    return v * (v >= 0.0f ? 1.0f : t) / (1.0f + t);
}

// tanh: odd Taylor polynomial near 0 (relative accuracy), (1 - t) / (1 + t), t = e^{-2|v|}, elsewhere.
__attribute__((always_inline)) inline float tanhf(float v) {
    const float a = absf(v);
    const float t = expClamped(-2.0f * a);
    const float big = (1.0f - t) / (1.0f + t);
    const float v2 = a * a;
    const float small = a * (1.0f + v2 * (-0.333333333f + v2 * (0.133333333f + v2 * -0.0539682540f)));
    const float r = a < 0.125f ? small : big;
    return v < 0.0f ? -r : r;
}

}  // namespace act

// dst[i] = act(src[i]); one loop per activation so each vectorizes on its own.
__attribute__((always_inline)) inline void applyActivation(const float* src, float* dst, int64_t count,
                                                           int32_t activation) {
#define TFNO_ACT_LOOP(F)                                        \
    for (int64_t i = 0; i < count; ++i) {                       \
        const float v = src[i];                                 \
        const float r = F(v);                                   \
        dst[i] = v == v ? r : v;                                \
    }
    switch (static_cast<core::Activation>(activation)) {
        case core::Activation::kGeluErf: TFNO_ACT_LOOP(act::geluErf) break;
        case core::Activation::kGeluTanh: TFNO_ACT_LOOP(act::geluTanh) break;
        case core::Activation::kRelu: TFNO_ACT_LOOP(act::relu) break;
        case core::Activation::kSilu: TFNO_ACT_LOOP(act::silu) break;
        case core::Activation::kTanh: TFNO_ACT_LOOP(act::tanhf) break;
        case core::Activation::kIdentity:
            if (src != dst) std::memcpy(dst, src, static_cast<size_t>(count) * sizeof(float));
            break;
    }
#undef TFNO_ACT_LOOP
}

}  // namespace cpu
}  // namespace turbofno
