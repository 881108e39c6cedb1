// Kernel 2 of 3: per-mode complex channel mixing, Y[n, o, m] = sum_i X[n, i, m] * W[i, o, m]
// (separable: Y[n, c, m] = X[n, c, m] * W[c, 0, m]).
//
// Lanes run over consecutive modes m (coalesced weight and spectrum reads), warps over output
// channels; each thread keeps kMixOut outputs x kMaxMixBatch batch items in registers, so every
// weight element is read once per kMaxMixBatch batch items (once in total for N <= 4) and the
// weights, as large as the activations at typical sizes, stream through memory about once.
// The forward row-split partials are summed here while reading X.
#pragma once

#include "common.cuh"
#include "plan.h"

namespace turbofno {
namespace cuda {

constexpr int kMixOut = 4;                           // output channels per thread
constexpr int kMixOutPerBlock = kMixOut * (kThreads / 32);

template <typename T>
__global__ void __launch_bounds__(kThreads) spectralMixKernel(Geometry g, const float2* __restrict__ specIn,
                                                               const T* __restrict__ w, float2* __restrict__ specOut) {
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int mTiles = (g.Kall + 31) / 32;
    const int mTile = blockIdx.x % mTiles;
    const int oTile = blockIdx.x / mTiles;
    const int m = mTile * 32 + lane;
    if (m >= g.Kall) return;  // no barriers below
    const size_t K = static_cast<size_t>(g.Kall);
    const size_t partStride = static_cast<size_t>(g.N) * g.Cin * K;
    const int o0 = oTile * kMixOutPerBlock + warp * kMixOut;

    auto loadX = [&](int n, int i) {
        const float2* p = specIn + (static_cast<size_t>(n) * g.Cin + i) * K + m;
        float2 v = p[0];
        for (int s = 1; s < g.split; ++s) {
            const float2 q = p[s * partStride];
            v.x += q.x;
            v.y += q.y;
        }
        return v;
    };

    if (g.separable) {
        // Cout == Cin; this thread owns channels o0..o0+kMixOut-1.
#pragma unroll
        for (int q = 0; q < kMixOut; ++q) {
            const int c = o0 + q;
            if (c >= g.Cout) break;
            const float2 wv = loadComplex<T>(w + (static_cast<size_t>(c) * K + m) * 2);
            for (int n = 0; n < g.N; ++n) {
                float2 r = make_float2(0.f, 0.f);
                cmac(r, loadX(n, c), wv);
                specOut[(static_cast<size_t>(n) * g.Cout + c) * K + m] = r;
            }
        }
        return;
    }

    for (int n0 = 0; n0 < g.N; n0 += kMaxMixBatch) {
        float2 acc[kMaxMixBatch][kMixOut];
#pragma unroll
        for (int b = 0; b < kMaxMixBatch; ++b)
#pragma unroll
            for (int q = 0; q < kMixOut; ++q) acc[b][q] = make_float2(0.f, 0.f);

        for (int i = 0; i < g.Cin; ++i) {
            float2 wv[kMixOut];
#pragma unroll
            for (int q = 0; q < kMixOut; ++q) {
                const int o = o0 + q;
                wv[q] = o < g.Cout ? loadComplex<T>(w + ((static_cast<size_t>(i) * g.Cout + o) * K + m) * 2)
                                   : make_float2(0.f, 0.f);
            }
#pragma unroll
            for (int b = 0; b < kMaxMixBatch; ++b) {
                const int n = n0 + b;
                if (n >= g.N) break;
                const float2 xv = loadX(n, i);
#pragma unroll
                for (int q = 0; q < kMixOut; ++q) cmac(acc[b][q], xv, wv[q]);
            }
        }
#pragma unroll
        for (int b = 0; b < kMaxMixBatch; ++b) {
            const int n = n0 + b;
            if (n >= g.N) break;
#pragma unroll
            for (int q = 0; q < kMixOut; ++q) {
                const int o = o0 + q;
                if (o < g.Cout) specOut[(static_cast<size_t>(n) * g.Cout + o) * K + m] = acc[b][q];
            }
        }
    }
}

}  // namespace cuda
}  // namespace turbofno
