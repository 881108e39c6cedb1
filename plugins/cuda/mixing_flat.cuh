// Mixing for small weight tensors (g.mixFlat, plan.cpp): Y[n, o, m] = sum_i X[n, i, m] W[i, o, m] with
// lanes over the flattened index om = o * Kall + m instead of over m alone.
//
// Why: the tiled kernel (mixing.cuh) puts 32 consecutive modes on the lanes and streams every weight
// once per 8 batch items. With few kept modes (a 1D layer keeps ~16-32, Darcy-size 2D layers ~80) most
// lanes idle and the grid is a handful of blocks whose threads each run hundreds of dependent complex
// multiply-adds: 36 us per layer at 32x64x256 m17, where PyTorch's cgemm takes 5 us. For fixed i,
// W[i, :, :] is contiguous in om, and so is Y[n, :, :]: lanes over om read weights and write results
// fully coalesced whatever Kall is. X[n, i, om % Kall] is a broadcast-style read of one short row
// that every warp of the block shares (L1). The weights are small (the planner's condition), so
// re-reading them once per batch chunk costs L2 bandwidth only; the batch chunk and a split of the
// input-channel sum across warps (fixed-order reduction through shared memory: deterministic) are
// chosen so that the grid fills the GPU.
#pragma once

#include "common.cuh"
#include "pdl.cuh"
#include "plan.h"

namespace turbofno {
namespace cuda {

constexpr int kMixFlatThreads = 256;  // 8 warps: g.mixFlatOmWarps over om x (8 / that) over input channels

template <typename T>
__global__ void __launch_bounds__(kMixFlatThreads) spectralMixFlatKernel(Geometry g, const float2* __restrict__ specIn,
                                                                         const T* __restrict__ w,
                                                                         float2* __restrict__ specOut) {
    __shared__ float2 red[kMixFlatThreads * kMixMaxFlatBatch];  // partial sums of the input-channel groups
    const int omWarps = g.mixFlatOmWarps;                // warps along om
    const int groups = (kMixFlatThreads / 32) / omWarps;  // input-channel groups
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int omLocal = (warp % omWarps) * 32 + lane;
    const int group = warp / omWarps;
    const int64_t omCount = static_cast<int64_t>(g.Cout) * g.Kall;
    const int omTiles = static_cast<int>((omCount + 32 * omWarps - 1) / (32 * omWarps));
    const int omTile = blockIdx.x % omTiles;
    const int nBegin = (blockIdx.x / omTiles) * g.mixBatch;
    const int nb = min(g.mixBatch, g.N - nBegin);
    const int64_t om = static_cast<int64_t>(omTile) * 32 * omWarps + omLocal;
    const bool ok = om < omCount;
    const int64_t omc = ok ? om : omCount - 1;  // clamped: loads stay in range
    const int m = static_cast<int>(omc % g.Kall);
    const size_t K = static_cast<size_t>(g.Kall);
    const size_t partStride = static_cast<size_t>(g.N) * g.Cin * K;
    gridDependencyWait();  // the spectrum comes from the previous kernel (pdl.cuh)

    float2 acc[kMixMaxFlatBatch];
#pragma unroll
    for (int b = 0; b < kMixMaxFlatBatch; ++b) acc[b] = make_float2(0.f, 0.f);
    const size_t wStep = static_cast<size_t>(omCount) * 2;
    const T* wp = w + (static_cast<size_t>(group) * omCount + omc) * 2;
    const float2* xp = specIn + (static_cast<size_t>(nBegin) * g.Cin + group) * K + m;
#pragma unroll 2
    for (int i = group; i < g.Cin; i += groups, wp += wStep * groups, xp += K * groups) {
        const float2 wv = loadComplex<T>(wp);
#pragma unroll
        for (int b = 0; b < kMixMaxFlatBatch; ++b) {
            if (b < nb) {
                const size_t off = static_cast<size_t>(b) * g.Cin * K;
                float2 xv = __ldg(xp + off);
                for (int s = 1; s < g.split; ++s) {  // forward row-split partials (fused-plane algorithm)
                    const float2 p = __ldg(xp + s * partStride + off);
                    xv.x += p.x;
                    xv.y += p.y;
                }
                cmac(acc[b], xv, wv);
            }
        }
    }
    allowDependentLaunch();
    if (groups > 1) {
#pragma unroll
        for (int b = 0; b < kMixMaxFlatBatch; ++b)
            if (b < nb) red[b * kMixFlatThreads + threadIdx.x] = acc[b];
        __syncthreads();
        if (group != 0) return;
        for (int q = 1; q < groups; ++q) {  // fixed order: bitwise-repeatable
#pragma unroll
            for (int b = 0; b < kMixMaxFlatBatch; ++b) {
                if (b < nb) {
                    const float2 v = red[b * kMixFlatThreads + q * omWarps * 32 + threadIdx.x];
                    acc[b].x += v.x;
                    acc[b].y += v.y;
                }
            }
        }
    }
    if (!ok) return;
#pragma unroll
    for (int b = 0; b < kMixMaxFlatBatch; ++b)
        if (b < nb) specOut[static_cast<size_t>(nBegin + b) * omCount + om] = acc[b];
}

template <typename T>
cudaError_t launchMixingFlat(const Plan& plan, const float2* specIn, const T* weight, float2* specOut, cudaStream_t stream) {
    const Geometry& g = plan.g;
    const int64_t omCount = static_cast<int64_t>(g.Cout) * g.Kall;
    const int64_t blocks = ((omCount + 32 * g.mixFlatOmWarps - 1) / (32 * g.mixFlatOmWarps)) *
                           ((g.N + g.mixBatch - 1) / g.mixBatch);
    if (blocks > 2147483647LL) return cudaErrorInvalidConfiguration;
    return launchKernel(spectralMixFlatKernel<T>, dim3(static_cast<unsigned>(blocks)), dim3(kMixFlatThreads), 0, stream, g,
                        specIn, weight, specOut);
}

}  // namespace cuda
}  // namespace turbofno
