#include "last_axis.h"

namespace turbofno {
namespace cpu {

void forwardLastAxis(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* x, int64_t M,
                     float* dst, int64_t ldd, float* scratch) {
    const int64_t S = plan.S[plan.rank - 1], H = pairCount(S), N = 2 * plan.k;
    if (!plan.pairFwd) {
        kern.sgemm(M, N, S, x, S, table, N, dst, ldd, nullptr, 1, false, false);
        return;
    }
    const int64_t proper = (S + 1) / 2;  // t in [1, proper) pairs with S - t != t
    for (int64_t t0 = 0; t0 < H; t0 += kLastPairs) {
        const int64_t nt = std::min(kLastPairs, H - t0);
        const int64_t lo = std::max<int64_t>(t0, 1), hi = std::min(t0 + nt, proper);
        for (int64_t r0 = 0; r0 < M; r0 += kLastRows) {
            const int64_t mr = std::min(kLastRows, M - r0);
            for (int64_t r = 0; r < mr; ++r) {
                const float* __restrict xr = x + (r0 + r) * S;
                float* __restrict a = scratch + r * kLastLd;  // pair t at a[2 (t - t0)]
                for (int64_t t = t0; t < lo; ++t) {  // t = 0
                    a[2 * (t - t0)] = xr[t];
                    a[2 * (t - t0) + 1] = 0.0f;
                }
                if (lo < hi) kern.pairFold(xr, S, lo, hi, a + 2 * (lo - t0));
                for (int64_t t = std::max(hi, lo); t < t0 + nt; ++t) {  // t = S/2, S even
                    a[2 * (t - t0)] = xr[t];
                    a[2 * (t - t0) + 1] = 0.0f;
                }
            }
            for (int64_t q = 0; q < panelCount(N); ++q) {
                const int64_t w = panelWidth(N, q);
                kern.pairPanel(mr, w, nt, scratch, kLastLd, table + kPairPanel * q * H + t0 * w,
                               dst + r0 * ldd + kPairPanel * q, ldd, t0 > 0);
            }
        }
    }
}

void inverseLastAxis(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* src, int64_t lds,
                     int64_t M, float* y, int64_t ldy, const float* bias, int64_t rowsPerBias, bool streamY,
                     float* scratch) {
    const int64_t S = plan.T[plan.rank - 1], H = inversePairs(S), N = 2 * H, k = plan.k;  // output length
    if (!plan.pairInv) {
        kern.sgemm(M, S, 2 * k, src, lds, table, S, y, ldy, bias, rowsPerBias, streamY, false);
        return;
    }
    constexpr int64_t kBlockPanels = 2 * kLastPairs / kPairPanel;
    for (int64_t q0 = 0; q0 < panelCount(N); q0 += kBlockPanels) {
        const int64_t q1 = std::min(q0 + kBlockPanels, panelCount(N));
        const int64_t t0 = kPairPanel * q0 / 2, t1 = std::min(H, kPairPanel * q1 / 2);
        const int64_t lo = std::max<int64_t>(t0, 1);  // every t in [1, H) has its mirror S - t != t
        for (int64_t r0 = 0; r0 < M; r0 += kLastRows) {
            const int64_t mr = std::min(kLastRows, M - r0);
            for (int64_t q = q0; q < q1; ++q)
                kern.pairPanel(mr, panelWidth(N, q), k, src + r0 * lds, lds, table + kPairPanel * q * k,
                               scratch + kPairPanel * (q - q0), kLastLd, false);
            for (int64_t r = 0; r < mr; ++r) {
                const float* ab = scratch + r * kLastLd;  // (A_t, B_t) at ab[2 (t - t0)]
                float* yr = y + (r0 + r) * ldy;
                const float b0 = bias ? bias[(r0 + r) / rowsPerBias] : 0.0f;
                if (t0 == 0) yr[0] = ab[0] + ab[1] + b0;
                if (lo < t1) kern.pairUnfold(ab + 2 * (lo - t0), S, lo, t1, b0, yr);
            }
        }
    }
    if (S % 2 == 0) {  // y[S/2]: the weights c_m (-1)^m / P follow the panels
        const float* nyq = table + N * k;
        for (int64_t i = 0; i < M; ++i) {
            const float* z = src + i * lds;
            float acc = bias ? bias[i / rowsPerBias] : 0.0f;
            for (int64_t m = 0; m < k; ++m) acc += nyq[m] * z[2 * m];
            y[i * ldy + S / 2] = acc;
        }
    }
}

}  // namespace cpu
}  // namespace turbofno
