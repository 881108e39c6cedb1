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

inline int64_t pairCount(int64_t S) { return S / 2 + 1; }    // forward: t = 0 .. S/2
inline int64_t inversePairs(int64_t S) { return (S + 1) / 2; }  // inverse: t = 0 .. (S-1)/2; y[S/2] of an
                                                                 // even S comes from its own row of weights
inline int64_t panelCount(int64_t N) { return (N + kPairPanel - 1) / kPairPanel; }
inline int64_t panelWidth(int64_t N, int64_t q) { return std::min<int64_t>(kPairPanel, N - kPairPanel * q); }

constexpr int64_t kLastRows = 32;      // rows per block
constexpr int64_t kLastPairs = 512;    // t values per block
constexpr int64_t kLastLd = 2 * kLastPairs + 16;  // scratch row stride (floats; not a multiple of 1 KB)
constexpr int64_t kLastScratchFloats = kLastRows * kLastLd;

// x: M rows of S samples (row stride S) -> dst: M rows of k interleaved complex values (row stride
// ldd). table: plan.offFwdLast's table (paired or plain, plan.pairFwd). scratch: kLastScratchFloats floats.
void forwardLastAxis(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* x, int64_t M,
                     float* dst, int64_t ldd, float* scratch);

// src: M rows of k interleaved complex values (row stride lds) -> y: M rows of T samples (T = the
// output length plan.T[d-1], S unless output_size is set; row stride ldy >= T), plus
// bias[i / rowsPerBias] on row i when bias != nullptr. table: plan.offInvLast's (plan.pairInv).
// streamY: y is the layer output (non-temporal stores where the kernel can).
void inverseLastAxis(const CpuPlan& plan, const CpuKernels& kern, const float* table, const float* src, int64_t lds,
                     int64_t M, float* y, int64_t ldy, const float* bias, int64_t rowsPerBias, bool streamY,
                     float* scratch);

}  // namespace cpu
}  // namespace turbofno
