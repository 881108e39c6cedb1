// The real <-> one-sided truncated DFTs along the last axis (length S, k kept modes), with the
// samples t and S-t paired so that every multiply-add serves two samples:
//   forward  X[m] = sum_{t <= S/2} (x[t] + x[S-t]) cos(2 pi m t/S) - i (x[t] - x[S-t]) sin(..)
//   inverse y[t] = A_t + B_t and y[S-t] = A_t - B_t, with A_t = sum_m c_m Re Y_m cos(..) / P and
//            B_t = -sum_m c_m Im Y_m sin(..) / P (c_m the C2R weight, P = prod(S))
// (t = 0 and, for even S, t = S/2 pair with themselves; the inverse computes y[S/2] = sum_m
// c_m (-1)^m Re Y_m / P as a dot product, which keeps the pair product's width at S, not S + 2). Both are "pair products" (kernels.h,
// PairPanelFn) against panel-major tables (twiddle.h), blocked so that the operands stay in L1/L2
// for any S.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels.h"
#include "plan.h"

namespace turbofno {
namespace cpu {

// When the pairing pays (measured, README "Last axis"): the forward pair product of 2k <= 16 columns
// runs half-empty register tiles and no faster than the plain product, which streams x once; the
// inverse of a short axis is dominated by the unfolding. Otherwise the plain GEMMs of the
// unpaired tables are used: x[M, S] x F[S, 2k] and Y[M, 2k] x Fi[2k, S].
inline bool pairedForward(int64_t /*S*/, int64_t k) { return k > 8; }
inline bool pairedInverse(int64_t T, int64_t /*k*/) { return T >= 64; }  // T: output length

// The second fold ("quad", kernels.h QuadFoldFn): for an even length n = 2L the pair sums of t and
// L - t differ only by (-1)^m, cos(2pi m (L-t)/n) = (-1)^m cos(..t..), sin(..(L-t)..) = -(-1)^m sin(..t..),
// so the even modes and the odd modes are each a pair product over t = 0 .. n/4 only: half the
// multiply-adds of the paired product. Tables: the even modes' columns, then the odd modes'.
//   forward  (pe, qe) = (p_t + p_{L-t}, q_t - q_{L-t}), (po, qo) = (p_t - p_{L-t}, q_t + q_{L-t})
//            (t = 0: p_0 = x[0], q_0 = 0 and p_L = x[L], q_L = 0; t = L/2 of an even L pairs with itself:
//            (p, q) in both)
//   inverse  (Ae, Be), (Ao, Bo) the even / odd modes' pair sums at t: y[t] = A + B, y[n-t] = A - B,
//            y[L-t] = A' + B', y[L+t] = A' - B' with A = Ae + Ao, B = Be + Bo, A' = Ae - Ao, B' = Bo - Be
//            (t = 0 gives y[0] and y[L]; t = L/2 of an even L gives y[L/2] and y[3L/2] from A, B)
// Used where it was measured to pay (README "Last axis", 1 thread, pair vs quad per stage): length >= 128
// and k >= 16. AVX2: 1.1-1.8x on the forward and the inverse from S = 128, k = 12; AVX-512: 1.05-1.6x
// from k = 20, k = 16 even (0.98-1.15x), S = 96 and 64 slower (0.7-0.9x: the per-row fold, parity
// reordering and unfold outweigh the few t values). TURBOFNO_CPU_LAST_FOLD=pair|quad overrides the
// rule (tests: quad wherever the folding applies; pair: never), read once per process.
enum class FoldOverride { kAuto, kPair, kQuad };
FoldOverride foldOverride();
inline bool quadApplies(int64_t n, int64_t k) { return n % 2 == 0 && n >= 8 && k >= 2; }
inline bool quadRule(int64_t n, int64_t k) { return n >= 128 && k >= 16; }
inline bool quadForward(int64_t S, int64_t k) {
    const FoldOverride o = foldOverride();
    return quadApplies(S, k) && (o == FoldOverride::kQuad || (o == FoldOverride::kAuto && quadRule(S, k)));
}
inline bool quadInverse(int64_t T, int64_t k) { return quadForward(T, k); }  // T: output length
inline int64_t quadCount(int64_t n) { return n / 4 + 1; }  // t = 0 .. n/4
inline int64_t evenModes(int64_t k) { return (k + 1) / 2; }
inline int64_t oddModes(int64_t k) { return k / 2; }

inline int64_t pairCount(int64_t S) { return S / 2 + 1; }    // forward: t = 0 .. S/2
inline int64_t inversePairs(int64_t S) { return (S + 1) / 2; }  // inverse: t = 0 .. (S-1)/2; y[S/2] of an
                                                                 // even S comes from its own row of weights
inline int64_t panelCount(int64_t N) { return (N + kPairPanel - 1) / kPairPanel; }
inline int64_t panelWidth(int64_t N, int64_t q) { return std::min<int64_t>(kPairPanel, N - kPairPanel * q); }

constexpr int64_t kLastRows = 32;      // rows per block
constexpr int64_t kLastPairs = 512;    // t values per block
constexpr int64_t kLastLd = 2 * kLastPairs + 16;  // scratch row stride (floats; not a multiple of 1 KB)
constexpr int64_t kLastScratchFloats = kLastRows * kLastLd;
// quad: the even and the odd operands / sums, then the inverse's [kLastRows][2k] spectra in mode
// parity order (the forward's row of 2k for its reordering)
inline int64_t quadScratchFloats(int64_t k) { return 2 * kLastScratchFloats + (kLastRows * 2 * k + 15) / 16 * 16; }

// x: M rows of S samples (row stride S) -> dst: M rows of k interleaved complex values (row stride
// ldd). table: plan.offFwdLast's table (quad, paired or plain: plan.quadFwd, plan.pairFwd).
// scratch: kLastScratchFloats floats (quadScratchFloats(k) with plan.quadFwd).
void forwardLastAxis(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* x, int64_t M,
                     float* dst, int64_t ldd, float* scratch);

// src: M rows of k interleaved complex values (row stride lds) -> y: M rows of T samples (T = the
// output length plan.T[d-1], S unless output_size is set; row stride ldy >= T), plus
// bias[i / rowsPerBias] on row i when bias != nullptr. table: plan.offInvLast's (plan.quadInv, plan.pairInv).
// streamY: y is the layer output (non-temporal stores where the kernel can).
void inverseLastAxis(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* src, int64_t lds,
                     int64_t M, float* y, int64_t ldy, const float* bias, int64_t rowsPerBias, bool streamY,
                     float* scratch);

}  // namespace cpu
}  // namespace turbofno
