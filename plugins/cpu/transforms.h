// Truncated DFTs along the full complex axes (1..d-1) of one channel, as small GEMMs.
#pragma once

#include "kernels.h"
#include "plan.h"

namespace turbofno {
namespace cpu {

// Scratch of one thread for the axis transforms (sizes from the plan).
struct AxisScratch {
    float* bufA;  // ping-pong intermediates
    float* bufB;
    float* prod;  // forward: GEMM output [2K, cols] before the complex combine; inverse: [Z; iZ]
};

// src [S_1..S_{d-1}, 2k] (last axis already transformed) -> dst [K_1..K_{d-1}, k, 2].
// Axis j: per leading index, [2K_j, S_j] x [S_j, cols] then (re, im) recombination.
void forwardAxes(const CpuPlan& plan, const CpuKernels& kern, const float* tables, const float* src, float* dst,
                 const AxisScratch& scratch);

// src [K_1..K_{d-1}, k, 2] -> dst [T_1..T_{d-1}, 2k] (output sizes; still truncated along the last axis),
// rows of 2k values ldd floats apart (0: contiguous, ldd = 2k).
void inverseAxes(const CpuPlan& plan, const CpuKernels& kern, const float* tables, const float* src, float* dst,
                 const AxisScratch& scratch, int64_t ldd = 0);

// d == 2, `count` channels in one GEMM: src [S_1, count * 2k] (channel c in columns c * 2k ..) ->
// channel c's spectrum at dst + c * dstStride ([K_1, k, 2]). prod: 2 K_1 count 2k floats.
void forwardAxis2dBlock(const CpuPlan& plan, const CpuKernels& kern, const float* tables, const float* src,
                        int64_t count, float* dst, int64_t dstStride, float* prod);

// d == 2, `count` channels in one GEMM (2k columns each is narrow for the register tiles): channel c's
// spectrum at src + c * srcStride ([K_1, k, 2]) -> dst [T_1, count * 2k], rows ldd floats apart,
// channel c in columns c * 2k .. (the skip layer's Last layout). stacked: 2 K_1 count 2k floats.
void inverseAxis2dBlock(const CpuPlan& plan, const CpuKernels& kern, const float* tables, const float* src,
                        int64_t srcStride, int64_t count, float* dst, int64_t ldd, float* stacked);

}  // namespace cpu
}  // namespace turbofno
