// Kernel 2 of 3: per-mode complex channel mixing, Y[n, o, m] = sum_i X[n, i, m] * W[i, o, m]
// (separable: Y[n, c, m] = X[n, c, m] * W[c, 0, m]).
//
// Lanes run over consecutive modes m (coalesced weight and spectrum reads), warps over output
// channels. Every weight element is read once per g.mixBatch batch items (once in total for N <= 8):
// the weights, as large as the activations at typical sizes, stream through memory about once.
// The forward row-split partials are summed here while staging X.
#pragma once

#include <atomic>

#include "common.cuh"
#include "pdl.cuh"
#include "plan.h"
#include "smem_limit.h"
#include "mixing_flat.cuh"

namespace turbofno {
namespace cuda {

// Dense mixing tile: a block owns 32 consecutive modes (lanes), kMixOut * g.mixWarps output
// channels (kMixOut per warp; g.mixWarps warps, fewer for small problems so that more blocks run)
// and one chunk of g.mixBatch batch items (grid: mode tiles x output tiles x batch chunks).
// The spectrum of g.mixBatch batch items x g.mixIn input channels is staged in shared memory per
// step (partials summed); weights stream from global memory in the unrolled channel loop, each read
// once per g.mixBatch batch items (once in total for N <= 8).
//
// Latency: a staging step of one partial spectrum copies the whole chunk with cp.async (every copy in
// flight at once); with row-split partials to add, and in the separable path, each thread keeps kMixLoads
// independent loads in flight (addresses clamped in range instead of branches, so the loads issue back to
// back); a serial load -> store chain per element (and per forward partial) made staging the bulk of the time.
constexpr int kMixMaxThreads = 256;
constexpr int kMixOut = 2;        // output channels per thread
constexpr int kMixMaxBatch = 8;   // register accumulators per output
constexpr int kMixLoads = 8;      // staged rows per thread per round (loads in flight)
static_assert(kMixOut == 2, "mixRingBytes (plan.h) counts two output channels per thread");

// Weight ring (g.mixRing): each thread copies its own weights of input channel i + kMixRingDepth - 1 into
// shared memory (cp.async, no registers held) while it computes channel i, so the weight stream runs
// continuously across the X staging barriers instead of stalling once per unrolled group. Only the
// thread that copies a slot reads it, so no barrier guards the ring.

// 2 * sizeof(T) bytes from global to shared memory, zero-filled when !valid (src stays a valid address).
template <typename T>
__device__ __forceinline__ void copyComplexAsync(T* dstShared, const T* src, bool valid) {
    constexpr int kBytes = 2 * sizeof(T);
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(dstShared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(kBytes), "r"(valid ? kBytes : 0)
                 : "memory");
}
__device__ __forceinline__ void commitAsync() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void waitAsync() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// A block's tile in both mixing kernels (grid: mode tiles x output tiles x batch chunks): lanes over 32
// consecutive modes, kMixOut output channels per warp, one chunk of g.mixBatch batch items.
struct MixTile {
    int lane, warp, nWarps;
    int m;       // this lane's mode (may be >= g.Kall in the last mode tile)
    int o0;      // this warp's first output channel
    int nBegin;  // the chunk's first batch item
};
__device__ __forceinline__ MixTile mixTile(const Geometry& g) {
    MixTile t;
    t.lane = threadIdx.x % 32;
    t.warp = threadIdx.x / 32;
    t.nWarps = blockDim.x / 32;
    const int mTiles = (g.Kall + 31) / 32;
    const int oTiles = (g.Cout + kMixOut * t.nWarps - 1) / (kMixOut * t.nWarps);
    t.m = (blockIdx.x % mTiles) * 32 + t.lane;
    t.o0 = (((blockIdx.x / mTiles) % oTiles) * t.nWarps + t.warp) * kMixOut;
    t.nBegin = (blockIdx.x / mTiles / oTiles) * g.mixBatch;
    return t;
}

// The separable weights (Cout == Cin): Y[n, c, m] = X[n, c, m] * W[c, 0, m]. Same grid as the dense
// kernel; this thread owns channels o0, o0 + 1 of mode m; no shared memory, no barriers.
template <typename T>
__global__ void __launch_bounds__(kMixMaxThreads) spectralMixSeparableKernel(Geometry g, const float2* __restrict__ specIn,
                                                                            const T* __restrict__ w, float2* __restrict__ specOut) {
    const MixTile t = mixTile(g);
    const int m = t.m, o0 = t.o0, nBegin = t.nBegin;
    const int nEnd = min(g.N, nBegin + g.mixBatch);
    const size_t K = static_cast<size_t>(g.Kall);
    const size_t partStride = static_cast<size_t>(g.N) * g.Cin * K;
    gridDependencyWait();  // the spectrum comes from the previous kernel (pdl.cuh)
    if (m >= g.Kall) return;
#pragma unroll
    for (int q = 0; q < kMixOut; ++q) {
        const int c = o0 + q;
        if (c >= g.Cout) break;
        const float2 wv = loadComplex<T>(w + (static_cast<size_t>(c) * K + m) * 2);
        for (int n0 = nBegin; n0 < nEnd; n0 += kMixLoads) {
            float2 xv[kMixLoads];
#pragma unroll
            for (int j = 0; j < kMixLoads; ++j) {
                const int n = min(n0 + j, nEnd - 1);
                xv[j] = specIn[(static_cast<size_t>(n) * g.Cin + c) * K + m];
            }
#pragma unroll 2
            for (int s = 1; s < g.split; ++s) {
#pragma unroll
                for (int j = 0; j < kMixLoads; ++j) {
                    const int n = min(n0 + j, nEnd - 1);
                    const float2 v = specIn[s * partStride + (static_cast<size_t>(n) * g.Cin + c) * K + m];
                    xv[j].x += v.x;
                    xv[j].y += v.y;
                }
            }
#pragma unroll
            for (int j = 0; j < kMixLoads; ++j) {
                if (n0 + j >= nEnd) break;
                float2 r = make_float2(0.f, 0.f);
                cmac(r, xv[j], wv);
                specOut[(static_cast<size_t>(n0 + j) * g.Cout + c) * K + m] = r;
            }
        }
    }
}

// The dense weights. NB: batch accumulators per thread, a power of two >= g.mixBatch, so that the
// channel loop has no per-item branches: it reads all NB staged values, then runs the 4 NB complex
// multiply-adds (items past the chunk's end read a clamped row and are never stored). Branching per
// item serialised a shared-memory load and its multiply-adds eight times per channel (ncu at
// 8x64x128x128 m32: 147 instructions per channel, 6.3 cycles per issued instruction).
template <typename T, bool RING, int NB>
__global__ void __launch_bounds__(kMixMaxThreads, 2) spectralMixKernel(Geometry g, const float2* __restrict__ specIn,
                                                                     const T* __restrict__ w, float2* __restrict__ specOut) {
    static_assert(NB >= 1 && NB <= kMixMaxBatch && (NB & (NB - 1)) == 0, "NB: a power of two <= kMixMaxBatch");
    static_assert((kMixRingDepth & (kMixRingDepth - 1)) == 0, "the ring slot is i % kMixRingDepth");
    extern __shared__ float4 mixSmem[];
    float2* xs = reinterpret_cast<float2*>(mixSmem);  // [nb][ni][32] of the current step
    const MixTile t = mixTile(g);
    const int lane = t.lane, warp = t.warp, nWarps = t.nWarps, m = t.m, o0 = t.o0, nBegin = t.nBegin;
    const int nb = min(g.N - nBegin, g.mixBatch);  // 1 <= nb <= NB
    const bool mOk = m < g.Kall;
    const int mc = mOk ? m : g.Kall - 1;  // clamped: loads stay in range, results of idle lanes unused
    const size_t K = static_cast<size_t>(g.Kall);
    const size_t partStride = static_cast<size_t>(g.N) * g.Cin * K;
    gridDependencyWait();  // the spectrum comes from the previous kernel (pdl.cuh)

    const bool oOk0 = mOk && o0 < g.Cout, oOk1 = mOk && o0 + 1 < g.Cout;
    // weight ring (RING): slot s of this thread holds input channel s's two weights (kMixOut == 2)
    T* ringBase = reinterpret_cast<T*>(xs + static_cast<size_t>(g.mixBatch) * g.mixIn * 32) + threadIdx.x * 2;
    const int ringStride = blockDim.x * 2;  // T elements between a thread's slots
    const size_t wStep = static_cast<size_t>(g.Cout) * K * 2;  // next input channel
    const T* wRing = w + ((static_cast<size_t>(min(o0, g.Cout - 1))) * K + mc) * 2;
    const size_t wSecond = (static_cast<size_t>(min(o0 + 1, g.Cout - 1)) - min(o0, g.Cout - 1)) * K * 2;
    auto ringSlot = [&](int i, int q) { return ringBase + ((i & (kMixRingDepth - 1)) * kMixOut + q) * ringStride; };
    auto issueRing = [&](int i) {  // always one commit group per call, so wait counts stay uniform
        if (i < g.Cin) {
            const T* src = wRing + static_cast<size_t>(i) * wStep;
            copyComplexAsync(ringSlot(i, 0), src, oOk0);
            copyComplexAsync(ringSlot(i, 1), src + wSecond, oOk1);
        }
        commitAsync();
    };
    if constexpr (RING) {
        for (int i = 0; i < kMixRingDepth - 1; ++i) issueRing(i);
    }
    float2 acc[NB][kMixOut];
#pragma unroll
    for (int b = 0; b < NB; ++b)
#pragma unroll
        for (int q = 0; q < kMixOut; ++q) acc[b][q] = make_float2(0.f, 0.f);

    for (int i0 = 0; i0 < g.Cin; i0 += g.mixIn) {
        const int ni = min(g.mixIn, g.Cin - i0);
        const int rows = nb * ni;  // staged row r = b * ni + ii, 32 modes each
        __syncthreads();  // previous step's xs consumed
        if (g.split == 1) {
            // one partial: the whole chunk as cp.async copies, all in flight at once (one L2 round trip
            // instead of rows / (kMixLoads * nWarps) of them); idle lanes' copies zero-fill their slot
            for (int b = 0; b < nb; ++b)
                for (int ii = warp; ii < ni; ii += nWarps)
                    copyComplexAsync(reinterpret_cast<float*>(xs + (b * ni + ii) * 32 + lane),
                                     reinterpret_cast<const float*>(specIn + (static_cast<size_t>(nBegin + b) * g.Cin + i0 + ii) * K + mc),
                                     mOk);
            commitAsync();
            waitAsync<0>();  // also the ring's copies issued so far: they are older
        } else {
            // row-split partials: summed in registers, kMixLoads rows in flight per thread
            for (int r0 = warp; r0 < rows; r0 += kMixLoads * nWarps) {
                size_t off[kMixLoads];
                float2 v[kMixLoads];
#pragma unroll
                for (int j = 0; j < kMixLoads; ++j) {
                    const int r = min(r0 + j * nWarps, rows - 1);
                    const int b = r / ni, ii = r - b * ni;
                    off[j] = (static_cast<size_t>(nBegin + b) * g.Cin + i0 + ii) * K + mc;
                    v[j] = specIn[off[j]];
                }
#pragma unroll 2
                for (int s = 1; s < g.split; ++s) {
#pragma unroll
                    for (int j = 0; j < kMixLoads; ++j) {
                        const float2 p = specIn[s * partStride + off[j]];
                        v[j].x += p.x;
                        v[j].y += p.y;
                    }
                }
#pragma unroll
                for (int j = 0; j < kMixLoads; ++j) {
                    const int r = r0 + j * nWarps;
                    if (r < rows) xs[r * 32 + lane] = mOk ? v[j] : make_float2(0.f, 0.f);
                }
            }
        }
        __syncthreads();
        const float2* xsRow[NB];  // item b's staged row of channel i0 (clamped to the chunk's last item)
#pragma unroll
        for (int b = 0; b < NB; ++b) xsRow[b] = xs + min(b, nb - 1) * ni * 32 + lane;
        const T* wp = w + ((static_cast<size_t>(i0) * g.Cout + o0) * K + mc) * 2;
#pragma unroll 8
        for (int ii = 0; ii < ni; ++ii, wp += wStep) {
            float2 w0, w1;
            if constexpr (RING) {
                issueRing(i0 + ii + kMixRingDepth - 1);
                waitAsync<kMixRingDepth - 1>();  // channel i0 + ii has landed
                w0 = loadComplex<T>(ringSlot(i0 + ii, 0));
                w1 = loadComplex<T>(ringSlot(i0 + ii, 1));
            } else {
                w0 = oOk0 ? loadComplex<T>(wp) : make_float2(0.f, 0.f);
                w1 = oOk1 ? loadComplex<T>(wp + K * 2) : make_float2(0.f, 0.f);
            }
            float2 xv[NB];
#pragma unroll
            for (int b = 0; b < NB; ++b) xv[b] = xsRow[b][ii * 32];
#pragma unroll
            for (int b = 0; b < NB; ++b) {
                cmac(acc[b][0], xv[b], w0);
                cmac(acc[b][1], xv[b], w1);
            }
        }
    }
    allowDependentLaunch();
    if (mOk) {
#pragma unroll
        for (int b = 0; b < NB; ++b) {
            if (b >= nb) break;
#pragma unroll
            for (int q = 0; q < kMixOut; ++q) {
                const int o = o0 + q;
                if (o < g.Cout) specOut[(static_cast<size_t>(nBegin + b) * g.Cout + o) * K + m] = acc[b][q];
            }
        }
    }
}

template <typename T, int NB>
cudaError_t launchMixingDense(const Plan& plan, dim3 grid, dim3 block, const float2* specIn, const T* weight, float2* specOut,
                              cudaStream_t stream) {
    static std::atomic<unsigned long long> doneDirect{0}, doneRing{0};
    cudaError_t err;
    if (plan.g.mixRing) {
        if ((err = allowSmem(spectralMixKernel<T, true, NB>, plan.mixSmem, doneRing)) != cudaSuccess) return err;
        return launchKernel(spectralMixKernel<T, true, NB>, grid, block, plan.mixSmem, stream, plan.g, specIn, weight, specOut);
    }
    if ((err = allowSmem(spectralMixKernel<T, false, NB>, plan.mixSmem, doneDirect)) != cudaSuccess) return err;
    return launchKernel(spectralMixKernel<T, false, NB>, grid, block, plan.mixSmem, stream, plan.g, specIn, weight, specOut);
}

// The mixing launch of both algorithms: specIn [N][Cin][Kall] (g.split partials) -> specOut.
template <typename T>
cudaError_t launchMixing(const Plan& plan, const float2* specIn, const T* weight, float2* specOut, cudaStream_t stream) {
    const Geometry& g = plan.g;
    if (g.mixFlatOmWarps) return launchMixingFlat<T>(plan, specIn, weight, specOut, stream);
    const int mixOutPerBlock = kMixOut * g.mixWarps;
    const int64_t mixBlocks = static_cast<int64_t>((g.Kall + 31) / 32) * ((g.Cout + mixOutPerBlock - 1) / mixOutPerBlock) *
                              ((g.N + g.mixBatch - 1) / g.mixBatch);  // mode tiles x output tiles x batch chunks
    if (mixBlocks > 2147483647LL) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>(mixBlocks)), block(32 * g.mixWarps);
    if (g.separable) return launchKernel(spectralMixSeparableKernel<T>, grid, block, 0, stream, g, specIn, weight, specOut);
    // NB: the batch chunk rounded up to a power of two
    if (g.mixBatch <= 1) return launchMixingDense<T, 1>(plan, grid, block, specIn, weight, specOut, stream);
    if (g.mixBatch <= 2) return launchMixingDense<T, 2>(plan, grid, block, specIn, weight, specOut, stream);
    if (g.mixBatch <= 4) return launchMixingDense<T, 4>(plan, grid, block, specIn, weight, specOut, stream);
    return launchMixingDense<T, 8>(plan, grid, block, specIn, weight, specOut, stream);
}

}  // namespace cuda
}  // namespace turbofno
