// Truncated-DFT matrices (computed in double, stored as float) for every stage of one call.
#pragma once

#include "plan.h"
#include "turbofno/params.h"

namespace turbofno {
namespace cpu {

// Fills the table region described by `plan` (plan.tableFloats floats at `base`, 64-byte aligned):
//   forward last axis  F   [S_d][2k]      F[t][2m] = cos(2pi m t/S), F[t][2m+1] = -sin(..); paired
//                                        (plan.pairFwd): rows t <= S/2 only, in column panels (last_axis.h)
//   forward axis j     T_j [2K_j][S_j]    rows m: cos(2pi f_m t/S_j), rows K_j+m: sin(..)
//   inverse axis j     G_j [T_j][2K_j]    G[t][m] = cos(2pi f_m t/T_j), G[t][K_j+m] = sin(..); 0 if f_m >= T_j
//   inverse last axis  Fi  [2k][T_d]      row 2m: c_m cos(2pi m t/T) a, row 2m+1: -c_m sin(..) a; paired
//                                        (plan.pairInv): [k][2 ceil(T/2)], Fi[m][2t] = c_m cos(..) a,
//                                        Fi[m][2t+1] = -c_m sin(..) a, in column panels (last_axis.h), then
//                                        for even T [k]: c_m (-1)^m a, the weights of y[T/2]
// The second fold (plan.quadFwd / quadInv, last_axis.h) keeps t <= S/4 (T/4) only, the even modes'
// panels first, then the odd modes' (forward [S/4+1][2ke] + [S/4+1][2ko], inverse [ke][2(T/4+1)] +
// [ko][2(T/4+1)], no y[T/2] row: t = 0 gives it).
// with f_m the kept spectrum index of mode index m (input layout), T the output sizes, c_m the C2R
// weight of the output axis (1 for DC and Nyquist of T_d, else 2; 0 for m > T_d/2) and a the norm's
// combined scale (1/prod(S) when T == S).
void buildTwiddles(const CpuPlan& plan, const core::SpectralConvAttrs& attrs, float* base);

}  // namespace cpu
}  // namespace turbofno
