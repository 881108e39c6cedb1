#include "twiddle.h"

#include <cmath>
#include <vector>

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

}  // namespace

void buildTwiddles(const CpuPlan& plan, const core::SpectralConvAttrs& attrs, float* base) {
    const int d = plan.rank;
    const int64_t S = plan.S[d - 1];
    const int64_t k = plan.k;
    {
        const UnitCircle u(S);
        float* F = base + plan.offFwdLast;
        float* Fi = base + plan.offInvLast;
        const double scale = 1.0 / static_cast<double>(plan.points);
        for (int64_t m = 0; m < k; ++m) {
            const bool single = m == 0 || (S % 2 == 0 && m == S / 2);
            const double w = (single ? 1.0 : 2.0) * scale;
            for (int64_t t = 0; t < S; ++t) {
                const int64_t r = (m * t) % S;
                F[t * 2 * k + 2 * m] = static_cast<float>(u.c[r]);
                F[t * 2 * k + 2 * m + 1] = static_cast<float>(-u.s[r]);
                Fi[(2 * m) * S + t] = static_cast<float>(w * u.c[r]);
                Fi[(2 * m + 1) * S + t] = static_cast<float>(-w * u.s[r]);
            }
        }
    }
    for (int j = 0; j + 1 < d; ++j) {
        const int64_t Sj = plan.S[j];
        const int64_t Kj = plan.K[j];
        const UnitCircle u(Sj);
        float* T = base + plan.offFwdAxis[j];
        float* G = base + plan.offInvAxis[j];
        for (int64_t m = 0; m < Kj; ++m) {
            const int64_t f = keptFrequency(m, attrs.modesLow[j], Kj, Sj);
            for (int64_t t = 0; t < Sj; ++t) {
                const int64_t r = (f * t) % Sj;
                T[m * Sj + t] = static_cast<float>(u.c[r]);
                T[(Kj + m) * Sj + t] = static_cast<float>(u.s[r]);
                G[t * 2 * Kj + m] = static_cast<float>(u.c[r]);
                G[t * 2 * Kj + Kj + m] = static_cast<float>(u.s[r]);
            }
        }
    }
}

}  // namespace cpu
}  // namespace turbofno
