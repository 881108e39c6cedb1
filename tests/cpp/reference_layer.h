// Float64 reference for SpectralConv by direct DFT over the kept modes (docs/op.md), independent of
// the core's kernels, plus host fp16/bf16 conversions. Small sizes only (O(N·C·K·S)).
// Shared by the C++ tests: test_cpu_kernel and the TensorRT harness.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace turbofno_test {

struct RefProblem {
    int rank = 0;
    int64_t n = 0, cin = 0, cout = 0;
    int64_t s[3] = {};
    int32_t modesLow[3] = {}, modesHigh[3] = {};
    bool separable = false;
    bool hasBias = false;
    int64_t t[3] = {};  // output_size T_j; 0 = same as s[j]
    int32_t norm = 0;   // 0 backward, 1 forward, 2 ortho: the scale when T != S
    bool hasSkip = false;  // 1x1 skip weight [Cout, Cin] (op version 2; needs T == S)
    int activation = 0;    // core::Activation value (op version 2)
};

// The fused layer's activations in float64 (torch's formulas, docs/op.md), written without
// cancellation for large negative v: 1 + erf(v/sqrt2) = erfc(-v/sqrt2), 1 + tanh(u) = 2 / (1 + e^{-2u}).
inline double referenceActivation(double v, int activation) {
    switch (activation) {
        case 1: return 0.5 * v * std::erfc(-v / std::sqrt(2.0));
        case 2: return v / (1.0 + std::exp(-2.0 * std::sqrt(2.0 / std::acos(-1.0)) * (v + 0.044715 * v * v * v)));
        case 3: return v > 0.0 ? v : 0.0;
        case 4: return v / (1.0 + std::exp(-v));
        case 5: return std::tanh(v);
        default: return v;
    }
}

// x [N, Cin, S...], w [Cin, Cout|1, K..., 2], bias [Cout], skip [Cout, Cin] -> y [N, Cout, T...]
// (docs/op.md: irfftn(Y, s=T) of the spectrum in the input's layout: index f of a full axis stays f,
// cut off when f >= T_j; last-axis bins above T_d/2 are cut off), then the fused layer's
// y = act(... + bias + skip x) (a skip needs T == S).
inline std::vector<double> referenceSpectralConv(RefProblem const& p, std::vector<double> const& x,
                                                 std::vector<double> const& w, std::vector<double> const& bias,
                                                 std::vector<double> const& skip = {}) {
    int const d = p.rank;
    int64_t K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, T[3] = {1, 1, 1};
    int64_t sprod = 1, kprod = 1, tprod = 1;
    for (int j = 0; j < d; ++j) {
        K[j] = p.modesLow[j] + p.modesHigh[j];
        S[j] = p.s[j];
        T[j] = p.t[j] > 0 ? p.t[j] : p.s[j];
        sprod *= S[j];
        kprod *= K[j];
        tprod *= T[j];
    }
    // rfftn and irfftn(s=T) scales of the norm, combined
    double const scale = p.norm == 1 ? 1.0 / static_cast<double>(sprod)
                         : p.norm == 2 ? 1.0 / std::sqrt(static_cast<double>(sprod) * static_cast<double>(tprod))
                                       : 1.0 / static_cast<double>(tprod);
    double const twoPi = 2.0 * std::acos(-1.0);
    // freq of weight index m on axis j (low block first, then the high block in ascending frequency)
    auto freq = [&](int j, int64_t m) -> int64_t { return m < p.modesLow[j] ? m : S[j] - K[j] + m; };
    // unravel a flat index into per-axis indices
    auto unravel = [&](int64_t flat, int64_t const* extent, int64_t* idx) {
        for (int j = d - 1; j >= 0; --j) {
            idx[j] = flat % extent[j];
            flat /= extent[j];
        }
    };
    // phase[kk * sprod + ss] = sum_j freq_j(k) * s_j / S_j
    std::vector<double> phase(static_cast<size_t>(kprod * sprod));
    for (int64_t kk = 0; kk < kprod; ++kk) {
        int64_t ki[3];
        unravel(kk, K, ki);
        for (int64_t ss = 0; ss < sprod; ++ss) {
            int64_t si[3];
            unravel(ss, S, si);
            double ph = 0;
            for (int j = 0; j < d; ++j) ph += static_cast<double>((freq(j, ki[j]) * si[j]) % S[j]) / static_cast<double>(S[j]);
            phase[static_cast<size_t>(kk * sprod + ss)] = twoPi * ph;
        }
    }
    // forward DFT of the kept modes: X[n][i][kk]
    std::vector<double> Xr(static_cast<size_t>(p.n * p.cin * kprod)), Xi(Xr.size());
    for (int64_t n = 0; n < p.n; ++n)
        for (int64_t i = 0; i < p.cin; ++i)
            for (int64_t kk = 0; kk < kprod; ++kk) {
                double re = 0, im = 0;
                double const* xs = &x[static_cast<size_t>((n * p.cin + i) * sprod)];
                for (int64_t ss = 0; ss < sprod; ++ss) {
                    double const ph = phase[static_cast<size_t>(kk * sprod + ss)];
                    re += xs[ss] * std::cos(ph);
                    im -= xs[ss] * std::sin(ph);
                }
                Xr[static_cast<size_t>((n * p.cin + i) * kprod + kk)] = re;
                Xi[static_cast<size_t>((n * p.cin + i) * kprod + kk)] = im;
            }
    // channel mixing and the C2R inverse (imag of DC / Nyquist on the last axis ignored)
    int64_t const wout = p.separable ? 1 : p.cout;
    int64_t const td = T[d - 1];
    // output phase of each kept mode at each output point; `reaches` false for modes cut off by T
    std::vector<double> outPhase(static_cast<size_t>(kprod * tprod));
    std::vector<char> reaches(static_cast<size_t>(kprod));
    for (int64_t kk = 0; kk < kprod; ++kk) {
        int64_t ki[3];
        unravel(kk, K, ki);
        bool ok = ki[d - 1] <= td / 2;
        for (int j = 0; j + 1 < d; ++j) ok = ok && freq(j, ki[j]) < T[j];
        reaches[static_cast<size_t>(kk)] = ok;
        for (int64_t tt = 0; tt < tprod; ++tt) {
            int64_t ti[3];
            unravel(tt, T, ti);
            double ph = 0;
            for (int j = 0; j < d; ++j) ph += static_cast<double>((freq(j, ki[j]) * ti[j]) % T[j]) / static_cast<double>(T[j]);
            outPhase[static_cast<size_t>(kk * tprod + tt)] = twoPi * ph;
        }
    }
    std::vector<double> y(static_cast<size_t>(p.n * p.cout * tprod));
    for (int64_t n = 0; n < p.n; ++n)
        for (int64_t o = 0; o < p.cout; ++o) {
            std::vector<double> Yr(static_cast<size_t>(kprod)), Yi(Yr.size());
            for (int64_t kk = 0; kk < kprod; ++kk) {
                double re = 0, im = 0;
                int64_t const i0 = p.separable ? o : 0, i1 = p.separable ? o + 1 : p.cin;
                for (int64_t i = i0; i < i1; ++i) {
                    double const ar = Xr[static_cast<size_t>((n * p.cin + i) * kprod + kk)];
                    double const ai = Xi[static_cast<size_t>((n * p.cin + i) * kprod + kk)];
                    int64_t const wo = p.separable ? 0 : o;
                    double const br = w[static_cast<size_t>(((i * wout + wo) * kprod + kk) * 2)];
                    double const bi = w[static_cast<size_t>(((i * wout + wo) * kprod + kk) * 2 + 1)];
                    re += ar * br - ai * bi;
                    im += ar * bi + ai * br;
                }
                Yr[static_cast<size_t>(kk)] = re;
                Yi[static_cast<size_t>(kk)] = im;
            }
            for (int64_t tt = 0; tt < tprod; ++tt) {
                double acc = 0;
                for (int64_t kk = 0; kk < kprod; ++kk) {
                    if (!reaches[static_cast<size_t>(kk)]) continue;
                    int64_t const kd = kk % K[d - 1];
                    double const c = (kd == 0 || (td % 2 == 0 && kd == td / 2)) ? 1.0 : 2.0;
                    double const ph = outPhase[static_cast<size_t>(kk * tprod + tt)];
                    acc += c * (Yr[static_cast<size_t>(kk)] * std::cos(ph) - Yi[static_cast<size_t>(kk)] * std::sin(ph));
                }
                double v = acc * scale + (p.hasBias ? bias[static_cast<size_t>(o)] : 0.0);
                if (p.hasSkip)  // T == S (the op requires it), so output point tt is input point tt
                    for (int64_t i = 0; i < p.cin; ++i)
                        v += skip[static_cast<size_t>(o * p.cin + i)] * x[static_cast<size_t>((n * p.cin + i) * sprod + tt)];
                y[static_cast<size_t>((n * p.cout + o) * tprod + tt)] = referenceActivation(v, p.activation);
            }
        }
    return y;
}

// IEEE fp16 / bf16 <-> float on the host (round to nearest even).
inline uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t const sign = (x >> 16) & 0x8000u;
    int32_t exp = static_cast<int32_t>((x >> 23) & 0xFF) - 127 + 15;
    uint32_t mant = x & 0x7FFFFFu;
    if (((x >> 23) & 0xFF) == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mant ? 0x200u : 0));
    if (exp >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
    if (exp <= 0) {
        if (exp < -10) return static_cast<uint16_t>(sign);
        mant |= 0x800000u;
        uint32_t const shift = static_cast<uint32_t>(14 - exp);
        uint32_t half = mant >> shift;
        uint32_t const rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    uint32_t const rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;
    return static_cast<uint16_t>(half);
}

inline float halfToFloat(uint16_t h) {
    uint32_t const sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FFu;
    uint32_t x;
    if (exp == 0) {
        if (mant == 0) {
            x = sign;
        } else {
            exp = 127 - 15 + 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                --exp;
            }
            x = sign | (exp << 23) | ((mant & 0x3FFu) << 13);
        }
    } else if (exp == 31) {
        x = sign | 0x7F800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

inline uint16_t floatToBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu)) return static_cast<uint16_t>((x >> 16) | 0x40u);
    x += 0x7FFFu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

inline float bf16ToFloat(uint16_t b) {
    uint32_t const x = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

}  // namespace turbofno_test
