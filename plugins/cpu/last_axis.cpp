#include "last_axis.h"

#include <cstdlib>
#include <cstring>

namespace turbofno {
namespace cpu {

FoldOverride foldOverride() {
    static const FoldOverride value = [] {
        const char* env = std::getenv("TURBOFNO_CPU_LAST_FOLD");
        if (env && std::strcmp(env, "pair") == 0) return FoldOverride::kPair;
        if (env && std::strcmp(env, "quad") == 0) return FoldOverride::kQuad;
        return FoldOverride::kAuto;
    }();
    return value;
}

namespace {

// The forward products' blocking, shared by the paired and the quad fold: pairs [t0, t0 + nt) of `pairs`
// (kLastPairs at a time) times rows [r0, r0 + mr) (kLastRows at a time). foldRow(xr, r, t0, nt, lo, hi) writes
// row r's folded block into the scratch (t in [lo, hi) by the vector fold, the rest by hand), then
// products(r0, mr, t0, nt) accumulates the block's pair products into the output.
template <class FoldRow, class Products>
void forwardBlocks(const float* x, int64_t S, int64_t M, int64_t pairs, int64_t proper, FoldRow foldRow,
                   Products products) {
    for (int64_t t0 = 0; t0 < pairs; t0 += kLastPairs) {
        const int64_t nt = std::min(kLastPairs, pairs - t0);
        const int64_t lo = std::max<int64_t>(t0, 1), hi = std::min(t0 + nt, proper);
        for (int64_t r0 = 0; r0 < M; r0 += kLastRows) {
            const int64_t mr = std::min(kLastRows, M - r0);
            for (int64_t r = 0; r < mr; ++r) foldRow(x + (r0 + r) * S, r, t0, nt, lo, hi);
            products(r0, mr, t0, nt);
        }
    }
}

// dst[.., 0..N) (+)= folded rows [mr x nt pairs] * the forward table's block at t0: every kPairPanel-wide column
// panel (the table holds `pairs` pairs per panel, twiddle.cpp); the first block writes, later ones accumulate.
void forwardPanels(const CpuKernels& kern, int64_t mr, int64_t N, int64_t pairs, int64_t t0, int64_t nt,
                   const float* folded, const float* table, float* dst, int64_t ldd) {
    for (int64_t q = 0; q < panelCount(N); ++q) {
        const int64_t w = panelWidth(N, q);
        kern.pairPanel(mr, w, nt, folded, kLastLd, table + kPairPanel * q * pairs + t0 * w, dst + kPairPanel * q, ldd,
                       t0 > 0);
    }
}

// Forward with the second fold (last_axis.h): the even modes' product into dst columns [0, 2ke), the
// odd modes' into [2ke, 2k), then every row reordered to mode order.
void forwardQuad(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* x, int64_t M,
                 float* dst, int64_t ldd, float* scratch) {
    const int64_t S = plan.S[plan.rank - 1], L = S / 2, Q = quadCount(S), k = plan.k;
    const int64_t Ne = 2 * evenModes(k), No = 2 * oddModes(k);
    const float* tableE = table;
    const float* tableO = table + Q * Ne;
    float* scratchE = scratch;
    float* scratchO = scratch + kLastScratchFloats;
    const int64_t proper = (L + 1) / 2;  // t in [1, proper) has L - t != t
    auto foldRow = [&](const float* __restrict xr, int64_t r, int64_t t0, int64_t nt, int64_t lo, int64_t hi) {
        float* __restrict e = scratchE + r * kLastLd;  // t at e[2 (t - t0)]
        float* __restrict o = scratchO + r * kLastLd;
        if (t0 == 0) {  // p_0 = x[0], p_L = x[L], q_0 = q_L = 0
            e[0] = xr[0] + xr[L];
            o[0] = xr[0] - xr[L];
            e[1] = o[1] = 0.0f;
        }
        if (lo < hi) kern.quadFold(xr, S, lo, hi, e + 2 * (lo - t0), o + 2 * (lo - t0));
        for (int64_t t = std::max(hi, lo); t < t0 + nt; ++t) {  // t = L/2 (L even) pairs with itself
            const float p = xr[t] + xr[S - t], q = xr[t] - xr[S - t];
            e[2 * (t - t0)] = o[2 * (t - t0)] = p;
            e[2 * (t - t0) + 1] = o[2 * (t - t0) + 1] = q;
        }
    };
    forwardBlocks(x, S, M, Q, proper, foldRow, [&](int64_t r0, int64_t mr, int64_t t0, int64_t nt) {
        forwardPanels(kern, mr, Ne, Q, t0, nt, scratchE, tableE, dst + r0 * ldd, ldd);
        forwardPanels(kern, mr, No, Q, t0, nt, scratchO, tableO, dst + r0 * ldd + Ne, ldd);
    });
    float* row = scratch + 2 * kLastScratchFloats;
    for (int64_t i = 0; i < M; ++i) {  // [even modes | odd modes] -> mode order
        float* d = dst + i * ldd;
        std::memcpy(row, d, sizeof(float) * 2 * k);
        for (int64_t m = 0; m < k; ++m) {
            const float* src = row + (m % 2 ? Ne : 0) + 2 * (m / 2);
            d[2 * m] = src[0];
            d[2 * m + 1] = src[1];
        }
    }
}

// Inverse with the second fold: the spectra of a row block reordered by mode parity, the even and the
// odd modes' pair products, then quadUnfold (last_axis.h).
void inverseQuad(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* src, int64_t lds,
                 int64_t M, float* y, int64_t ldy, const float* bias, int64_t rowsPerBias, float* scratch) {
    const int64_t S = plan.T[plan.rank - 1], L = S / 2, Q = quadCount(S), N = 2 * Q, k = plan.k;  // output length
    const int64_t ke = evenModes(k), ko = oddModes(k);
    const float* tableE = table;
    const float* tableO = table + ke * N;
    float* scratchE = scratch;
    float* scratchO = scratch + kLastScratchFloats;
    float* spec = scratch + 2 * kLastScratchFloats;  // [kLastRows][2k]: even modes, then odd modes
    const int64_t proper = (L + 1) / 2;
    constexpr int64_t kBlockPanels = 2 * kLastPairs / kPairPanel;
    for (int64_t q0 = 0; q0 < panelCount(N); q0 += kBlockPanels) {
        const int64_t q1 = std::min(q0 + kBlockPanels, panelCount(N));
        const int64_t t0 = kPairPanel * q0 / 2, t1 = std::min(Q, kPairPanel * q1 / 2);
        const int64_t lo = std::max<int64_t>(t0, 1), hi = std::min(t1, proper);
        for (int64_t r0 = 0; r0 < M; r0 += kLastRows) {
            const int64_t mr = std::min(kLastRows, M - r0);
            for (int64_t r = 0; r < mr; ++r) {
                const float* z = src + (r0 + r) * lds;
                float* g = spec + r * 2 * k;
                for (int64_t m = 0; m < k; ++m) {
                    float* to = g + (m % 2 ? 2 * ke : 0) + 2 * (m / 2);
                    to[0] = z[2 * m];
                    to[1] = z[2 * m + 1];
                }
            }
            for (int64_t q = q0; q < q1; ++q) {
                const int64_t w = panelWidth(N, q);
                kern.pairPanel(mr, w, ke, spec, 2 * k, tableE + kPairPanel * q * ke, scratchE + kPairPanel * (q - q0),
                               kLastLd, false);
                if (ko > 0)
                    kern.pairPanel(mr, w, ko, spec + 2 * ke, 2 * k, tableO + kPairPanel * q * ko,
                                   scratchO + kPairPanel * (q - q0), kLastLd, false);
                else
                    for (int64_t r = 0; r < mr; ++r)
                        std::memset(scratchO + r * kLastLd + kPairPanel * (q - q0), 0, sizeof(float) * w);
            }
            for (int64_t r = 0; r < mr; ++r) {
                const float* e = scratchE + r * kLastLd;  // (Ae_t, Be_t) at e[2 (t - t0)]
                const float* o = scratchO + r * kLastLd;
                float* yr = y + (r0 + r) * ldy;
                const float b0 = bias ? bias[(r0 + r) / rowsPerBias] : 0.0f;
                if (t0 == 0) {  // B_0 = B_L = 0
                    yr[0] = e[0] + o[0] + b0;
                    yr[L] = e[0] - o[0] + b0;
                }
                if (lo < hi) kern.quadUnfold(e + 2 * (lo - t0), o + 2 * (lo - t0), S, lo, hi, b0, yr);
                for (int64_t t = std::max(hi, lo); t < t1; ++t) {  // t = L/2 (L even)
                    const float a = e[2 * (t - t0)] + o[2 * (t - t0)] + b0;
                    const float b = e[2 * (t - t0) + 1] + o[2 * (t - t0) + 1];
                    yr[t] = a + b;
                    yr[S - t] = a - b;
                }
            }
        }
    }
}

}  // namespace

void forwardLastAxis(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* x, int64_t M,
                     float* dst, int64_t ldd, float* scratch) {
    const int64_t S = plan.S[plan.rank - 1], H = pairCount(S), N = 2 * plan.k;
    if (plan.quadFwd) {
        forwardQuad(plan, kern, table, x, M, dst, ldd, scratch);
        return;
    }
    if (!plan.pairFwd) {
        kern.sgemm(M, N, S, x, S, table, N, dst, ldd, nullptr, 1, false, false);
        return;
    }
    const int64_t proper = (S + 1) / 2;  // t in [1, proper) pairs with S - t != t
    auto foldRow = [&](const float* __restrict xr, int64_t r, int64_t t0, int64_t nt, int64_t lo, int64_t hi) {
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
    };
    forwardBlocks(x, S, M, H, proper, foldRow, [&](int64_t r0, int64_t mr, int64_t t0, int64_t nt) {
        forwardPanels(kern, mr, N, H, t0, nt, scratch, table, dst + r0 * ldd, ldd);
    });
}

void inverseLastAxis(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* src, int64_t lds,
                     int64_t M, float* y, int64_t ldy, const float* bias, int64_t rowsPerBias, bool streamY,
                     float* scratch) {
    const int64_t S = plan.T[plan.rank - 1], H = inversePairs(S), N = 2 * H, k = plan.k;  // output length
    if (plan.quadInv) {
        inverseQuad(plan, kern, table, src, lds, M, y, ldy, bias, rowsPerBias, scratch);
        return;
    }
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
