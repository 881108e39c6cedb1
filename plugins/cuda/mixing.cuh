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
// (kMixOut per warp). The spectrum of g.mixBatch batch items x g.mixIn input channels is staged in
// shared memory in one go (all loads in flight, partials summed); weights stream from global memory
// in the unrolled channel loop, each read once per g.mixBatch batch items (once in total for N <= 8).
constexpr int kMixThreads = 256;
constexpr int kMixOut = 2;                                  // output channels per thread
constexpr int kMixOutPerBlock = kMixOut * (kMixThreads / 32);
constexpr int kMixMaxBatch = 8;                             // register accumulators per output

template <typename T>
__global__ void __launch_bounds__(kMixThreads, 2) spectralMixKernel(Geometry g, const float2* __restrict__ specIn,
                                                                  const T* __restrict__ w, float2* __restrict__ specOut) {
    extern __shared__ float4 mixSmem[];
    float2* xs = reinterpret_cast<float2*>(mixSmem);  // [mixBatch][mixIn][32]
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

    const bool oOk0 = mOk && o0 < g.Cout, oOk1 = mOk && o0 + 1 < g.Cout;
    for (int n0 = 0; n0 < g.N; n0 += g.mixBatch) {
        const int nb = min(g.mixBatch, g.N - n0);
        float2 acc[kMixMaxBatch][kMixOut];
#pragma unroll
        for (int b = 0; b < kMixMaxBatch; ++b)
#pragma unroll
            for (int q = 0; q < kMixOut; ++q) acc[b][q] = make_float2(0.f, 0.f);

        for (int i0 = 0; i0 < g.Cin; i0 += g.mixIn) {
            const int ni = min(g.mixIn, g.Cin - i0);
            __syncthreads();  // previous chunk's xs consumed
#pragma unroll 8
            for (int e = threadIdx.x; e < nb * ni * 32; e += kMixThreads) {
                const int l = e % 32, rest = e / 32;
                const int ii = rest % ni, b = rest / ni;
                const int mm = mTile * 32 + l;
                float2 v = make_float2(0.f, 0.f);
                if (mm < g.Kall) {
                    const float2* p = specIn + (static_cast<size_t>(n0 + b) * g.Cin + i0 + ii) * K + mm;
                    v = p[0];
                    for (int s = 1; s < g.split; ++s) {
                        v.x += p[s * partStride].x;
                        v.y += p[s * partStride].y;
                    }
                }
                xs[(b * g.mixIn + ii) * 32 + l] = v;
            }
            __syncthreads();
            const T* wp = w + ((static_cast<size_t>(i0) * g.Cout + o0) * K + m) * 2;
            const size_t wStep = static_cast<size_t>(g.Cout) * K * 2;  // next input channel
#pragma unroll 8
            for (int ii = 0; ii < ni; ++ii, wp += wStep) {
                const float2 w0 = oOk0 ? loadComplex<T>(wp) : make_float2(0.f, 0.f);
                const float2 w1 = oOk1 ? loadComplex<T>(wp + K * 2) : make_float2(0.f, 0.f);
#pragma unroll
                for (int b = 0; b < kMixMaxBatch; ++b) {
                    if (b < nb) {
                        const float2 xv = xs[(b * g.mixIn + ii) * 32 + lane];
                        cmac(acc[b][0], xv, w0);
                        cmac(acc[b][1], xv, w1);
                    }
                }
            }
        }
        if (mOk) {
#pragma unroll
            for (int b = 0; b < kMixMaxBatch; ++b) {
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
