#include "twiddle.h"

#include <cmath>
#include <vector>

#include "last_axis.h"

namespace turbofno {
namespace cpu {
namespace {

// cos / sin of 2*pi*r/S for r in [0, S). Angles are reduced as integers (f*t mod S) by the
// callers, so every table entry is accurate to double rounding.
struct UnitCircle {
    std::vector<double> c, s;
    explicit UnitCircle(int64_t n) : c(n), s(n) {
        const double twoPi = 6.283185307179586476925286766559;
        for (int64_t r = 0; r < n; ++r) {
            c[r] = std::cos(twoPi * static_cast<double>(r) / static_cast<double>(n));
            s[r] = std::sin(twoPi * static_cast<double>(r) / static_cast<double>(n));
        }
        s[0] = 0.0;
        if (n % 2 == 0) {  // exact Nyquist: sin(pi) = 0, cos(pi) = -1
            s[n / 2] = 0.0;
            c[n / 2] = -1.0;
        }
    }
};

// Kept frequency of mode index m on a full complex axis (docs/op.md, "Kept modes").
int64_t keptFrequency(int64_t m, int64_t low, int64_t kept, int64_t size) { return m < low ? m : size - kept + m; }

// Product of the rfftn and irfftn(s = T) scales of `norm` (docs/op.md, "Output size"):
// backward 1/prod(T), forward 1/prod(S), ortho 1/sqrt(prod(S) prod(T)); all 1/prod(S) when T == S.
double outputScale(const CpuPlan& plan, core::FftNorm norm) {
    const double in = static_cast<double>(plan.points), out = static_cast<double>(plan.pointsOut);
    switch (norm) {
        case core::FftNorm::kForward: return 1.0 / in;
        case core::FftNorm::kOrtho: return 1.0 / std::sqrt(in * out);
        default: return 1.0 / out;
    }
}

}  // namespace

void buildTwiddles(const CpuPlan& plan, const core::SpectralConvAttrs& attrs, float* base) {
    const int d = plan.rank;
    const int64_t S = plan.S[d - 1], T = plan.T[d - 1];
    const int64_t k = plan.k;
    {  // last axis (last_axis.h): pair tables in column panels, or the plain tables
        const UnitCircle u(S), v(T);
        const double scale = outputScale(plan, attrs.norm);
        // C2R weight of mode m on the output axis; irfft with n = T reads bins 0..T//2 only: a kept
        // bin above that does not reach the output.
        auto weight = [&](int64_t m) {
            if (m > T / 2) return 0.0;
            return (m == 0 || (T % 2 == 0 && m == T / 2) ? 1.0 : 2.0) * scale;
        };
        float* F = base + plan.offFwdLast;
        if (plan.quadFwd) {  // even modes [Q][2ke], then odd modes [Q][2ko]: (cos, -sin) of m t, t <= S/4
            const int64_t Q = quadCount(S);
            float* classBase = F;
            for (int64_t parity = 0; parity < 2; ++parity) {
                const int64_t Nc = 2 * (parity ? oddModes(k) : evenModes(k));
                for (int64_t q = 0; q < panelCount(Nc); ++q) {
                    const int64_t w = panelWidth(Nc, q);
                    float* panel = classBase + kPairPanel * q * Q;
                    for (int64_t t = 0; t < Q; ++t)
                        for (int64_t j = 0; j < w; ++j) {
                            const int64_t col = kPairPanel * q + j, m = 2 * (col / 2) + parity, r = m * t % S;
                            panel[t * w + j] = static_cast<float>(col % 2 ? -u.s[r] : u.c[r]);
                        }
                }
                classBase += Q * Nc;
            }
        } else if (plan.pairFwd) {  // [H][2k]: (cos, -sin) of m t, t <= S/2
            const int64_t H = pairCount(S);
            for (int64_t q = 0; q < panelCount(2 * k); ++q) {
                const int64_t w = panelWidth(2 * k, q);
                float* panel = F + kPairPanel * q * H;
                for (int64_t t = 0; t < H; ++t)
                    for (int64_t j = 0; j < w; ++j) {
                        const int64_t col = kPairPanel * q + j, r = (col / 2) * t % S;
                        panel[t * w + j] = static_cast<float>(col % 2 ? -u.s[r] : u.c[r]);
                    }
            }
        } else {  // [S][2k]
            for (int64_t t = 0; t < S; ++t)
                for (int64_t m = 0; m < k; ++m) {
                    const int64_t r = m * t % S;
                    F[t * 2 * k + 2 * m] = static_cast<float>(u.c[r]);
                    F[t * 2 * k + 2 * m + 1] = static_cast<float>(-u.s[r]);
                }
        }
        float* Fi = base + plan.offInvLast;
        if (plan.quadInv) {  // even modes [ke][2Q], then odd modes [ko][2Q]: c_m (cos, -sin) of m t, t <= T/4
            const int64_t N = 2 * quadCount(T);
            float* classBase = Fi;
            for (int64_t parity = 0; parity < 2; ++parity) {
                const int64_t kc = parity ? oddModes(k) : evenModes(k);
                for (int64_t q = 0; q < panelCount(N); ++q) {
                    const int64_t w = panelWidth(N, q);
                    float* panel = classBase + kPairPanel * q * kc;
                    for (int64_t i = 0; i < kc; ++i) {
                        const int64_t m = 2 * i + parity;
                        for (int64_t j = 0; j < w; ++j) {
                            const int64_t col = kPairPanel * q + j, r = m * (col / 2) % T;
                            panel[i * w + j] =
                                static_cast<float>(col % 2 ? -weight(m) * v.s[r] : weight(m) * v.c[r]);
                        }
                    }
                }
                classBase += kc * N;
            }
        } else if (plan.pairInv) {  // [k][2 ceil(T/2)]: c_m (cos, -sin) of m t on the output axis
            const int64_t N = 2 * inversePairs(T);
            for (int64_t q = 0; q < panelCount(N); ++q) {
                const int64_t w = panelWidth(N, q);
                float* panel = Fi + kPairPanel * q * k;
                for (int64_t m = 0; m < k; ++m)
                    for (int64_t j = 0; j < w; ++j) {
                        const int64_t col = kPairPanel * q + j, r = m * (col / 2) % T;
                        panel[m * w + j] = static_cast<float>(col % 2 ? -weight(m) * v.s[r] : weight(m) * v.c[r]);
                    }
            }
            if (T % 2 == 0)  // y[T/2] = sum_m c_m (-1)^m Re Y_m
                for (int64_t m = 0; m < k; ++m) Fi[N * k + m] = static_cast<float>(m % 2 ? -weight(m) : weight(m));
        } else {  // [2k][T]
            for (int64_t m = 0; m < k; ++m)
                for (int64_t t = 0; t < T; ++t) {
                    const int64_t r = m * t % T;
                    Fi[2 * m * T + t] = static_cast<float>(weight(m) * v.c[r]);
                    Fi[(2 * m + 1) * T + t] = static_cast<float>(-weight(m) * v.s[r]);
                }
        }
    }
    for (int j = 0; j + 1 < d; ++j) {
        const int64_t Sj = plan.S[j], Tj = plan.T[j];
        const int64_t Kj = plan.K[j];
        const UnitCircle u(Sj), v(Tj);
        float* T_ = base + plan.offFwdAxis[j];
        float* G = base + plan.offInvAxis[j];
        for (int64_t m = 0; m < Kj; ++m) {
            const int64_t f = keptFrequency(m, attrs.modesLow[j], Kj, Sj);
            for (int64_t t = 0; t < Sj; ++t) {
                const int64_t r = (f * t) % Sj;
                T_[m * Sj + t] = static_cast<float>(u.c[r]);
                T_[(Kj + m) * Sj + t] = static_cast<float>(u.s[r]);
            }
            // ifft with n = T_j keeps spectrum index f where it is (truncating or zero-padding the end):
            // index f >= T_j is cut off.
            for (int64_t t = 0; t < Tj; ++t) {
                const int64_t r = (f * t) % Tj;
                G[t * 2 * Kj + m] = f < Tj ? static_cast<float>(v.c[r]) : 0.0f;
                G[t * 2 * Kj + Kj + m] = f < Tj ? static_cast<float>(v.s[r]) : 0.0f;
            }
        }
    }
}

}  // namespace cpu
}  // namespace turbofno
