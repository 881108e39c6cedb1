// Kernel 2 of 3: per-mode complex channel mixing, Y[n, o, m] = sum_i X[n, i, m] * W[i, o, m]
// (separable: Y[n, c, m] = X[n, c, m] * W[c, 0, m]).
//
// Lanes run over consecutive modes m (coalesced weight and spectrum reads), warps over output
// channels. Every weight element is read once per kMixBatch batch items (once in total for N <= 8):
// the weights, as large as the activations at typical sizes, stream through memory about once.
// The forward row-split partials are summed here while staging X.
#pragma once

#include "common.cuh"
#include "plan.h"

namespace turbofno {
namespace cuda {

// Dense mixing tile: a block owns 32 consecutive modes (lanes) and kMixOutPerBlock output channels
// (kMixOut per warp); the spectrum of kMixBatch batch items x kMixIn input channels is staged in
// shared memory (read once per block, partials summed), and each thread loads all kMixIn x kMixOut
// weights of the chunk before any arithmetic, so many independent weight loads are in flight.
constexpr int kMixThreads = 256;
constexpr int kMixOut = 2;                                  // output channels per thread
constexpr int kMixOutPerBlock = kMixOut * (kMixThreads / 32);
constexpr int kMixIn = 8;                                   // input channels per staged chunk
constexpr int kMixBatch = 8;                                // batch items per staged chunk

template <typename T>
__global__ void __launch_bounds__(kMixThreads, 2) spectralMixKernel(Geometry g, const float2* __restrict__ specIn,
                                                                  const T* __restrict__ w, float2* __restrict__ specOut) {
    __shared__ float2 xs[kMixBatch][kMixIn][32];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int mTiles = (g.Kall + 31) / 32;
    const int mTile = blockIdx.x % mTiles;
    const int oTile = blockIdx.x / mTiles;
    const int m = mTile * 32 + lane;
    const bool mOk = m < g.Kall;
    const size_t K = static_cast<size_t>(g.Kall);
    const size_t partStride = static_cast<size_t>(g.N) * g.Cin * K;
    const int o0 = oTile * kMixOutPerBlock + warp * kMixOut;

    if (g.separable) {
        // Cout == Cin; this thread owns channels o0, o0 + 1; no shared memory, no barriers.
        if (!mOk) return;
#pragma unroll
        for (int q = 0; q < kMixOut; ++q) {
            const int c = o0 + q;
            if (c >= g.Cout) break;
            const float2 wv = loadComplex<T>(w + (static_cast<size_t>(c) * K + m) * 2);
            for (int n = 0; n < g.N; ++n) {
                const float2* p = specIn + (static_cast<size_t>(n) * g.Cin + c) * K + m;
                float2 xv = p[0];
                for (int s = 1; s < g.split; ++s) {
                    xv.x += p[s * partStride].x;
                    xv.y += p[s * partStride].y;
                }
                float2 r = make_float2(0.f, 0.f);
                cmac(r, xv, wv);
                specOut[(static_cast<size_t>(n) * g.Cout + c) * K + m] = r;
            }
        }
        return;
    }

    for (int n0 = 0; n0 < g.N; n0 += kMixBatch) {
        const int nb = min(kMixBatch, g.N - n0);
        float2 acc[kMixBatch][kMixOut];
#pragma unroll
        for (int b = 0; b < kMixBatch; ++b)
#pragma unroll
            for (int q = 0; q < kMixOut; ++q) acc[b][q] = make_float2(0.f, 0.f);

        for (int i0 = 0; i0 < g.Cin; i0 += kMixIn) {
            const int ni = min(kMixIn, g.Cin - i0);
            // weights of this chunk first (independent loads, all in flight together)
            float2 wv[kMixIn][kMixOut];
#pragma unroll
            for (int ii = 0; ii < kMixIn; ++ii)
#pragma unroll
                for (int q = 0; q < kMixOut; ++q) {
                    const int o = o0 + q;
                    wv[ii][q] = (mOk && ii < ni && o < g.Cout)
                                    ? loadComplex<T>(w + ((static_cast<size_t>(i0 + ii) * g.Cout + o) * K + m) * 2)
                                    : make_float2(0.f, 0.f);
                }
            __syncthreads();  // previous chunk's xs consumed
#pragma unroll 4
            for (int e = threadIdx.x; e < kMixBatch * kMixIn * 32; e += kMixThreads) {
                const int l = e % 32, ii = (e / 32) % kMixIn, b = e / (32 * kMixIn);
                const int mm = mTile * 32 + l;
                float2 v = make_float2(0.f, 0.f);
                if (b < nb && ii < ni && mm < g.Kall) {
                    const float2* p = specIn + (static_cast<size_t>(n0 + b) * g.Cin + i0 + ii) * K + mm;
                    v = p[0];
                    for (int s = 1; s < g.split; ++s) {
                        v.x += p[s * partStride].x;
                        v.y += p[s * partStride].y;
                    }
                }
                xs[b][ii][l] = v;
            }
            __syncthreads();
#pragma unroll
            for (int ii = 0; ii < kMixIn; ++ii) {
#pragma unroll
                for (int b = 0; b < kMixBatch; ++b) {
                    const float2 xv = xs[b][ii][lane];
#pragma unroll
                    for (int q = 0; q < kMixOut; ++q) cmac(acc[b][q], xv, wv[ii][q]);
                }
            }
        }
        if (mOk) {
#pragma unroll
            for (int b = 0; b < kMixBatch; ++b) {
                if (b >= nb) break;
#pragma unroll
                for (int q = 0; q < kMixOut; ++q) {
                    const int o = o0 + q;
                    if (o < g.Cout) specOut[(static_cast<size_t>(n0 + b) * g.Cout + o) * K + m] = acc[b][q];
                }
            }
        }
    }
}

}  // namespace cuda
}  // namespace turbofno
