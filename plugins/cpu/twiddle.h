// Truncated-DFT matrices (computed in double, stored as float) for every stage of one call.
#pragma once

#include "plan.h"
#include "turbofno/params.h"

namespace turbofno {
namespace cpu {

// Fills the table region of the workspace described by `plan` (offFwdLast .. offXs):
//   forward last axis  F   [S_d][2k]      F[t][2m] = cos(2pi m t/S), F[t][2m+1] = -sin(..)
//   forward axis j     T_j [2K_j][S_j]    rows m: cos(2pi f_m t/S_j), rows K_j+m: sin(..)
//   inverse axis j     G_j [S_j][2K_j]    G[t][m] = cos(2pi f_m t/S_j), G[t][K_j+m] = sin(..)
//   inverse last axis  Fi  [2k][S_d]      row 2m: c_m cos(2pi m t/S)/prod(S), row 2m+1: -c_m sin(..)/prod(S)
// with f_m the kept frequency of mode index m and c_m the C2R weight (1 for DC and Nyquist, else 2).
void buildTwiddles(const CpuPlan& plan, const core::SpectralConvAttrs& attrs, float* base);

}  // namespace cpu
}  // namespace turbofno
