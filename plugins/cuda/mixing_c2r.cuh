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
// Threads: output q = (l, k) of the block's Q = L * K, input channels split over G = p.mixGroups groups
// (G * Q <= the block's threads when G > 1); each thread keeps 8 loads in flight; the G partial sums are
// added in a fixed order (bitwise-repeatable). Deterministic, no atomics. The prologue sits on every block's
// critical path, so the planner takes it only where a thread sums few channels (plan.cpp, planMixInC2R): it
// wins at batch 1 and loses from batch 32 (22 channels per thread). Tried and not kept (7919267): staging the
// block's weight rows and spectrum in shared memory first (coalesced, all loads in flight, then the sums from
// shared memory); slower everywhere (us per layer vs these per-thread loads' version: 1x64x256 m17 7.2 vs 6.2,
// 32x64x256 m17 18.7 vs 17.0, 64x64x256 m17 39.0 vs 29.2; tests/gpu/logs/mix_c2r_s17).
#pragma once

#include "common.cuh"
#include "dft_pass.h"

namespace turbofno {
namespace cuda {

// One mixed bin's partial sum over the input channels gi, gi + G, ... < cin: acc += sum_i X[n, i, k] W[i, o, k]
// (xn = X[n]; kall bins per channel, wStrideI weight elements between input channels), 8 loads in flight per
// thread; separable weights: group 0 alone adds X[n, o, k] W[o, 0, k]. Used by the inverse plane kernel
// (fft_plane.cuh). mixBinsForLines below keeps its own copy of this loop on purpose: calling this function
// there changed the 1D kernel's code generation (58 -> 51 registers) and cost 14 % at 4x64x512 m33 on the H200
// (10.1 vs 8.9 us, two alternating runs); the copy keeps that kernel's code exactly as measured.
template <typename T>
__device__ __forceinline__ void mixBinPartial(bool separable, const float2* xn, const T* __restrict__ w, int o, int k, int gi,
                                              int G, int cin, size_t kall, size_t wStrideI, float2& acc) {
    constexpr int kU = 8;  // loads in flight per thread
    if (separable) {
        if (gi == 0) cmac(acc, __ldg(xn + static_cast<size_t>(o) * kall + k), loadComplex<T>(w + (static_cast<size_t>(o) * kall + k) * 2));
        return;
    }
    const float2* xp = xn + k;
    const T* wp = w + (static_cast<size_t>(o) * kall + k) * 2;
    for (int i0 = gi; i0 < cin; i0 += kU * G) {
        float2 xv[kU], wv[kU];
#pragma unroll
        for (int u = 0; u < kU; ++u) {  // every load of the step first (clamped in range)
            const int i = i0 + u * G;
            const bool ok = i < cin;
            const int ic = ok ? i : gi;
            xv[u] = __ldg(xp + static_cast<size_t>(ic) * kall);
            wv[u] = ok ? loadComplex<T>(wp + static_cast<size_t>(ic) * wStrideI) : make_float2(0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < kU; ++u) cmac(acc, xv[u], wv[u]);  // wv = 0 past cin
    }
}

// The channel groups' sum (G > 1), in a fixed order (deterministic): red[j * Q + q] holds group j's partial sum of
// bin q; put(q, sum) for every q < Q. Starts with a barrier (the other threads' partial sums); call with every
// thread of the block.
template <int THREADS, class Put>
__device__ __forceinline__ void sumChannelGroups(const float2* __restrict__ red, int Q, int G, Put put) {
    __syncthreads();
    for (int q = threadIdx.x; q < Q; q += THREADS) {
        float2 acc = red[q];
        for (int j = 1; j < G; ++j) {
            const float2 v = red[j * Q + q];
            acc.x += v.x;
            acc.y += v.y;
        }
        put(q, acc);
    }
}

// Z[l * K + k] for the block's lines line0 .. line0 + L - 1 (lines past p.N: zero); zmix / red in shared
// memory (mixC2RSmemBytes). Call after the grid-dependency wait (X comes from the previous kernel) with
// every thread of the block; ends with a barrier.
template <typename T, int THREADS>
__device__ __forceinline__ void mixBinsForLines(const DftPass& p, const float2* __restrict__ specIn, const T* __restrict__ w,
                                                int line0, float2* __restrict__ zmix, float2* __restrict__ red) {
    constexpr int kU = 8;  // loads in flight per thread
    const int L = p.fftLines, K = p.K, Q = L * K, G = p.mixGroups;
    const int cin = p.mixCin, cout = p.mixCout;
    const size_t kall = static_cast<size_t>(p.mixKall);
    const int n = line0 / cout, o0 = line0 - n * cout;  // the block's lines share n (the planner: Cout % L == 0)
    const float2* xn = specIn + static_cast<size_t>(n) * cin * kall;
    const size_t wStrideI = static_cast<size_t>(cout) * kall * 2;  // elements between input channels
    for (int t = threadIdx.x; t < Q * G; t += THREADS) {
        const int gi = t / Q, q = t - gi * Q;
        const int l = q / K, k = q - l * K, o = o0 + l;
        float2 acc = make_float2(0.f, 0.f);
        if (line0 + l < p.N) {
            if (p.mixSeparable) {
                if (gi == 0) cmac(acc, __ldg(xn + static_cast<size_t>(o) * kall + k), loadComplex<T>(w + (static_cast<size_t>(o) * kall + k) * 2));
            } else {
                const float2* xp = xn + k;
                const T* wp = w + (static_cast<size_t>(o) * kall + k) * 2;
                for (int i0 = gi; i0 < cin; i0 += kU * G) {
                    float2 xv[kU], wv[kU];
#pragma unroll
                    for (int u = 0; u < kU; ++u) {  // every load of the step first (clamped in range)
                        const int i = i0 + u * G;
                        const bool ok = i < cin;
                        const int ic = ok ? i : gi;
                        xv[u] = __ldg(xp + static_cast<size_t>(ic) * kall);
                        wv[u] = ok ? loadComplex<T>(wp + static_cast<size_t>(ic) * wStrideI) : make_float2(0.f, 0.f);
                    }
#pragma unroll
                    for (int u = 0; u < kU; ++u) cmac(acc, xv[u], wv[u]);  // wv = 0 past cin
                }
            }
        }
        if (G == 1) zmix[q] = acc;
        else red[t] = acc;
    }
    if (G > 1) sumChannelGroups<THREADS>(red, Q, G, [&](int q, float2 v) { zmix[q] = v; });
    __syncthreads();
}

}  // namespace cuda
}  // namespace turbofno
