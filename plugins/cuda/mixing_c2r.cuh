// The channel mixing computed inside the inverse's C2R pass (Plan::mixInC2R; DftPass::mixCin > 0): for
// a block of L lines g = n * Cout + o (one batch item n, Cout % L == 0), the L x K input bins
//     Z[l, k] = sum_i X[n, i, k] W[i, o0 + l, k]        (separable weights: X[n, o, k] W[o, 0, k])
// are computed into shared memory from the forward spectrum X and the weights, and the C2R reads them
// from there instead of from a mixed spectrum in global memory.
//
// Why: in a small 1D layer (the bundled Burgers model: 64 channels, 256 points, 17 bins) the mixing is a
// few microseconds of latency-bound work (mixing_flat.cuh) between two latency-bound FFT kernels; as its
// own kernel it costs its run time, a launch gap and a round trip of the mixed spectrum. Here its loads
// overlap the C2R's bias / skip loads and only X and W (both L2-resident at these sizes) are read.
//
// The block first copies what it needs into shared memory with coalesced loads that are all in flight at once:
// its weight rows W[i, o0 .. o0 + L - 1, :] (Cin rows of Q = L * K complex values, contiguous in memory; separable
// weights: one row) and the spectrum X[n, :, :] (Cin * K values; separable: the block's Q). Per-thread chains of
// global loads instead (a first version) cost as much as the mixing kernel they replace at batch 32. Then thread
// t computes output q = t % Q over the input channels i = t / Q + G j (G = p.mixGroups groups, G * Q <= the block's
// threads when G > 1), and the G partial sums are added in a fixed order (bitwise-repeatable). No atomics.
#pragma once

#include "common.cuh"
#include "dft_pass.h"

namespace turbofno {
namespace cuda {

// Z[l * K + k] for the block's lines line0 .. line0 + L - 1 (every line of the block exists: the planner's
// N * Cout % L == 0), into smem = [zmix: Q][partial sums: Q * G if G > 1][weights][spectrum] (float2;
// mixC2RSmemBytes). Call after the grid-dependency wait (X comes from the previous kernel) with every thread of
// the block; returns zmix, ends with a barrier.
template <typename T, int THREADS>
__device__ __forceinline__ float2* mixBinsForLines(const DftPass& p, const float2* __restrict__ specIn, const T* __restrict__ w,
                                                   int line0, float2* __restrict__ smem) {
    const int L = p.fftLines, K = p.K, Q = L * K, G = p.mixGroups;
    const int cin = p.mixCin, cout = p.mixCout;
    const bool sep = p.mixSeparable != 0;
    const int rows = sep ? 1 : cin;  // weight rows staged
    float2* zmix = smem;
    float2* red = zmix + Q;
    float2* wS = red + (G > 1 ? Q * G : 0);
    float2* xS = wS + static_cast<size_t>(rows) * Q;
    const int n = line0 / cout, o0 = line0 - n * cout;  // the block's lines share n (the planner: Cout % L == 0)
    // K == the spectrum's bins per line (the planner), so rows of W and of X are contiguous
    const T* wSrc = w + static_cast<size_t>(o0) * K * 2;
    const size_t wRow = static_cast<size_t>(cout) * K * 2;  // elements between input channels
    const float2* xSrc = specIn + static_cast<size_t>(n) * cin * K + (sep ? static_cast<size_t>(o0) * K : 0);
    const int xCount = sep ? Q : cin * K;
#pragma unroll 4
    for (int e = threadIdx.x; e < rows * Q; e += THREADS) {
        const int i = e / Q, q = e - i * Q;
        wS[e] = loadComplex<T>(wSrc + static_cast<size_t>(i) * wRow + static_cast<size_t>(q) * 2);
    }
#pragma unroll 4
    for (int e = threadIdx.x; e < xCount; e += THREADS) xS[e] = __ldg(xSrc + e);
    __syncthreads();
    for (int t = threadIdx.x; t < Q * G; t += THREADS) {
        const int gi = t / Q, q = t - gi * Q;
        const int k = q - (q / K) * K;
        float2 acc = make_float2(0.f, 0.f);
        if (sep) {
            if (gi == 0) cmac(acc, xS[q], wS[q]);
        } else {
            for (int i = gi; i < cin; i += G) cmac(acc, xS[i * K + k], wS[i * Q + q]);
        }
        if (G == 1) zmix[q] = acc;
        else red[t] = acc;
    }
    if (G > 1) {
        __syncthreads();
        for (int q = threadIdx.x; q < Q; q += THREADS) {  // fixed order over the groups
            float2 acc = red[q];
            for (int j = 1; j < G; ++j) {
                const float2 v = red[j * Q + q];
                acc.x += v.x;
                acc.y += v.y;
            }
            zmix[q] = acc;
        }
    }
    __syncthreads();
    return zmix;
}

}  // namespace cuda
}  // namespace turbofno
