// Mixing for small weight tensors (g.mixFlatOmWarps > 0, plan.cpp): Y[n, o, m] = sum_i X[n, i, m] W[i, o, m] with
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

// NB: batch accumulators per thread (>= g.mixBatch, a power of two); the channel loop keeps 8 / NB input
// channels' loads in flight per thread (all-L2 traffic: latency, not bandwidth, bounds it).
template <typename T, int NB>
__global__ void __launch_bounds__(kMixFlatThreads) spectralMixFlatKernel(Geometry g, const float2* __restrict__ specIn,
                                                                         const T* __restrict__ w,
                                                                         float2* __restrict__ specOut) {
    constexpr int kU = NB >= 8 ? 1 : 8 / NB;                 // input channels per unrolled step
    __shared__ float2 red[kMixFlatThreads * NB];             // partial sums of the input-channel groups
    const int omWarps = g.mixFlatOmWarps;                    // warps along om
    const int groups = (kMixFlatThreads / 32) / omWarps;     // input-channel groups
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
    const size_t batchStride = static_cast<size_t>(g.Cin) * K;
    const float2* xBase = specIn + static_cast<size_t>(nBegin) * batchStride + m;
    const T* wBase = w + omc * 2;
    gridDependencyWait();  // the spectrum comes from the previous kernel (pdl.cuh)

    float2 acc[NB];
#pragma unroll
    for (int b = 0; b < NB; ++b) acc[b] = make_float2(0.f, 0.f);
    for (int i0 = group; i0 < g.Cin; i0 += groups * kU) {
        float2 wv[kU], xv[kU][NB];
#pragma unroll
        for (int u = 0; u < kU; ++u) {  // every load of the step first: kU * (NB + 1) in flight
            const int i = i0 + u * groups;
            const bool iOk = i < g.Cin;
            const int ic = iOk ? i : g.Cin - 1;
            wv[u] = iOk ? loadComplex<T>(wBase + static_cast<size_t>(ic) * omCount * 2) : make_float2(0.f, 0.f);
#pragma unroll
            for (int b = 0; b < NB; ++b) {
                const size_t off = static_cast<size_t>(min(b, nb - 1)) * batchStride + static_cast<size_t>(ic) * K;
                xv[u][b] = __ldg(xBase + off);
                for (int s = 1; s < g.split; ++s) {  // forward row-split partials (fused-plane algorithm)
                    const float2 p = __ldg(xBase + s * partStride + off);
                    xv[u][b].x += p.x;
                    xv[u][b].y += p.y;
                }
            }
        }
#pragma unroll
        for (int u = 0; u < kU; ++u)
#pragma unroll
            for (int b = 0; b < NB; ++b) cmac(acc[b], xv[u][b], wv[u]);  // wv = 0 past Cin
    }
    allowDependentLaunch();
    if (groups > 1) {
#pragma unroll
        for (int b = 0; b < NB; ++b) red[b * kMixFlatThreads + threadIdx.x] = acc[b];
        __syncthreads();
        if (group != 0) return;
        for (int q = 1; q < groups; ++q) {  // fixed order: bitwise-repeatable
#pragma unroll
            for (int b = 0; b < NB; ++b) {
                const float2 v = red[b * kMixFlatThreads + q * omWarps * 32 + threadIdx.x];
                acc[b].x += v.x;
                acc[b].y += v.y;
            }
        }
    }
    if (!ok) return;
#pragma unroll
    for (int b = 0; b < NB; ++b)
        if (b < nb) specOut[static_cast<size_t>(nBegin + b) * omCount + om] = acc[b];
}

template <typename T>
cudaError_t launchMixingFlat(const Plan& plan, const float2* specIn, const T* weight, float2* specOut, cudaStream_t stream) {
    const Geometry& g = plan.g;
    const int64_t omCount = static_cast<int64_t>(g.Cout) * g.Kall;
    const int64_t blocks = ((omCount + 32 * g.mixFlatOmWarps - 1) / (32 * g.mixFlatOmWarps)) *
                           ((g.N + g.mixBatch - 1) / g.mixBatch);
    if (blocks > 2147483647LL) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>(blocks)), block(kMixFlatThreads);
    if (g.mixBatch <= 1) return launchKernel(spectralMixFlatKernel<T, 1>, grid, block, 0, stream, g, specIn, weight, specOut);
    if (g.mixBatch <= 2) return launchKernel(spectralMixFlatKernel<T, 2>, grid, block, 0, stream, g, specIn, weight, specOut);
    if (g.mixBatch <= 4) return launchKernel(spectralMixFlatKernel<T, 4>, grid, block, 0, stream, g, specIn, weight, specOut);
    return launchKernel(spectralMixFlatKernel<T, 8>, grid, block, 0, stream, g, specIn, weight, specOut);
}

}  // namespace cuda
}  // namespace turbofno
