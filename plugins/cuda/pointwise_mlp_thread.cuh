// The per-point PointwiseMLP kernel: one point per thread, for Cin, Cout <= 64 (the channel MLPs,
// liftings and projections of the FNOs we ship). Included by pointwise_mlp.cu after MlpArgs; also run
// on the CPU by tests/gpu/mlp_host_emu.
//
//   h[n, j, s] = hact( sum_i W1[j, i] x[n, i, s] + b1[j] )                    j < Ch
//   y[n, o, s] = act( sum_j W2[o, j] h[n, j, s] + b2[o] + g[o] r[n, o, s] )    o < Cout
//
// Why: the tiled kernels stage x tiles, barriers and GEMM phases one after another per 128-point tile
// and stayed latency-bound at 3-12x their memory floor (darcy-size MLPs at 32 x 4096 points: 44-56 us
// against floors of 4-12 us). Here a thread keeps its point's Cin inputs and Cout accumulators in
// registers: no barrier after the weights are staged, every x / r load of a thread independent (Cin or
// Cout loads in flight), and per 4 FMAs one shared-memory float4 that all lanes read at the same
// address (a broadcast). So it runs at the issue rate of its FMAs: 2 (Cin Ch + Ch Cout) flops per
// point and ~1.25 issue slots per FMA.
//
// Layout. Cin and Cout are rounded up to a bucket (4, 16, 32, 64: compile-time register arrays); the
// hidden layer runs in chunks of 4 channels (Ch rounded up to 4; 8 needed more registers). Shared memory per block, staged once
// (zero-padded, so padded inputs, hidden channels and outputs contribute exact zeros):
//   W1s [Ch4][CINB]   W1[j, i]          h chunk: h[jj] += W1s[j][i..i+3] . x[i..i+3]
//   W2t [Ch4][COUTB]  W2[o, j] (transposed)   acc[o..o+3] += W2t[j][o..o+3] h[j]
//   B1s [Ch4], B2s [COUTB], Gs [COUTB] (b1 / b2 zero and g one where absent)
// A block of 128 threads loops over the N * P points with stride gridDim.x * 128 (grid: the blocks that
// fit on the GPU at once, or fewer), so the weights are staged once per block. Lanes are consecutive
// points: every x, r and y access of a warp is one coalesced row segment per channel. Epilogue: all r
// loads of a thread before its y stores (y may alias r: a thread reads r[n, o, s] before writing
// y[n, o, s], nothing else touches them). fp32 FMA in a fixed order: deterministic.
#pragma once

#include "common.cuh"
#include "pdl.cuh"
#include "static_switch.h"

namespace turbofno {
namespace cuda {

constexpr int kMlpThThreads = 128;
constexpr int kMlpThHC = 4;                        // hidden channels per chunk
constexpr int kMlpThMaxChannels = 64;              // largest Cin / Cout bucket
constexpr size_t kMlpThSmemLimit = 48 * 1024;      // no opt-in: larger weight sets go to the tiled kernels

__host__ __device__ constexpr int mlpThBucket(int c) { return c <= 4 ? 4 : c <= 16 ? 16 : c <= 32 ? 32 : c <= 64 ? 64 : 0; }
__host__ __device__ constexpr int mlpThHidden(int ch) { return (ch + kMlpThHC - 1) / kMlpThHC * kMlpThHC; }
__host__ __device__ constexpr size_t mlpThSmemFloats(int ch, int cinB, int coutB) {
    return static_cast<size_t>(mlpThHidden(ch)) * (cinB + coutB + 1) + 2 * static_cast<size_t>(coutB);
}

// Whether the per-point kernel takes this call (Cin, Cout <= 64, weights within 48 KB of shared memory).
inline bool mlpThreadFits(const MlpArgs& a) {
    return a.cin <= kMlpThMaxChannels && a.cout <= kMlpThMaxChannels &&
           mlpThSmemFloats(a.ch, mlpThBucket(a.cin), mlpThBucket(a.cout)) * sizeof(float) <= kMlpThSmemLimit;
}

// x[n, 0..CINB, s] of point q = n P + s into registers (zero past Cin).
template <typename T, int CINB>
__device__ __forceinline__ void mlpThLoadX(float (&xv)[CINB], const T* __restrict__ x, unsigned q, const MlpArgs& a) {
    const unsigned n = q / static_cast<unsigned>(a.P), s = q - n * static_cast<unsigned>(a.P);
    const T* xp = x + static_cast<size_t>(n) * a.cin * a.P + s;
#pragma unroll
    for (int i = 0; i < CINB; ++i) xv[i] = i < a.cin ? toFloat(xp[static_cast<size_t>(i) * a.P]) : 0.f;
}

// Blocks per SM the register budget aims at (ptxas -v, sm_90, no spills): the x and accumulator arrays,
// the epilogue's Cout r loads in flight and the weight broadcasts the compiler schedules early.
template <int CINB, int COUTB>
constexpr int mlpThMinBlocks() {
    return (CINB + COUTB > 96 || (COUTB == 64 && CINB >= 16)) ? 2 : CINB + COUTB > 64 ? 3 : 4;
}

// dst[e] = value(e) for e < count, by the block's threads with 8 loads in flight per thread (the
// weights come from L2; a load-store loop would wait for each one).
template <typename F>
__device__ __forceinline__ void mlpThStage(float* dst, int count, F value) {
    constexpr int U = 8;
    for (int e0 = threadIdx.x; e0 < count; e0 += U * kMlpThThreads) {
        float v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = e0 + u * kMlpThThreads < count ? value(e0 + u * kMlpThThreads) : 0.f;
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (e0 + u * kMlpThThreads < count) dst[e0 + u * kMlpThThreads] = v[u];
    }
}

// grid min(ceil(N P / 128), resident blocks), 128 threads, dynamic shared memory mlpThSmemFloats floats.
template <typename T, int CINB, int COUTB>
__global__ void __launch_bounds__(kMlpThThreads, (mlpThMinBlocks<CINB, COUTB>())) pointwiseMlpThreadKernel(const MlpArgs a) {
    extern __shared__ __align__(16) float smem[];
    const int chPad = mlpThHidden(a.ch);
    float* W1s = smem;                // [chPad][CINB]
    float* W2t = W1s + chPad * CINB;    // [chPad][COUTB]
    float* B1s = W2t + chPad * COUTB;   // [chPad]
    float* B2s = B1s + chPad;           // [COUTB]
    float* Gs = B2s + COUTB;          // [COUTB]
    const T* __restrict__ x = static_cast<const T*>(a.x);
    const T* __restrict__ w1 = static_cast<const T*>(a.w1);
    const T* __restrict__ w2 = static_cast<const T*>(a.w2);
    const T* b1 = static_cast<const T*>(a.b1);
    const T* b2 = static_cast<const T*>(a.b2);
    const T* g = static_cast<const T*>(a.g);
    const T* r = static_cast<const T*>(a.r);
    T* y = static_cast<T*>(a.y);
    const unsigned total = static_cast<unsigned>(a.points), stride = gridDim.x * kMlpThThreads;
    unsigned q = blockIdx.x * kMlpThThreads + threadIdx.x;

    gridDependencyWait();  // x, weights and r may come from the previous kernel (pdl.cuh)
    float xv[CINB];
    if (q < total) mlpThLoadX(xv, x, q, a);  // in flight while the weights are staged
    mlpThStage(W1s, chPad * CINB, [&](int e) {  // W1s[j][i] = W1[j, i]
        const int j = e / CINB, i = e % CINB;
        return (j < a.ch && i < a.cin) ? toFloat(w1[static_cast<size_t>(j) * a.cin + i]) : 0.f;
    });
    mlpThStage(W2t, chPad * COUTB, [&](int e) {  // W2t[j][o] = W2[o, j]
        const int j = e / COUTB, o = e % COUTB;
        return (j < a.ch && o < a.cout) ? toFloat(w2[static_cast<size_t>(o) * a.ch + j]) : 0.f;
    });
    mlpThStage(B1s, chPad, [&](int e) { return (b1 && e < a.ch) ? toFloat(b1[e]) : 0.f; });
    mlpThStage(B2s, COUTB, [&](int e) { return (b2 && e < a.cout) ? toFloat(b2[e]) : 0.f; });
    mlpThStage(Gs, COUTB, [&](int e) { return (g && e < a.cout) ? toFloat(g[e]) : 1.f; });
    __syncthreads();  // the only barrier: below, the threads are independent

    for (; q < total; q += stride) {
        const unsigned n = q / static_cast<unsigned>(a.P), s = q - n * static_cast<unsigned>(a.P);
        const size_t base = static_cast<size_t>(n) * a.cout * a.P + s;  // (n, o = 0, s) of y and r
        const unsigned next = q + stride;  // < 2^32: q, stride < 2^31
        // the epilogue's r values and the next point's x into L2 now (hints: they overlap the GEMMs)
        if (r) {
#pragma unroll
            for (int o = 0; o < COUTB; ++o)
                if (o < a.cout) prefetchL2(r + base + static_cast<size_t>(o) * a.P);
        }
        if (next < total) {
            const unsigned nn = next / static_cast<unsigned>(a.P), ns = next - nn * static_cast<unsigned>(a.P);
#pragma unroll
            for (int i = 0; i < CINB; ++i)
                if (i < a.cin) prefetchL2(x + (static_cast<size_t>(nn) * a.cin + i) * a.P + ns);
        }
        float acc[COUTB];
#pragma unroll
        for (int o = 0; o < COUTB; ++o) acc[o] = 0.f;
#pragma unroll 1
        for (int j0 = 0; j0 < chPad; j0 += kMlpThHC) {
            float h[kMlpThHC];
#pragma unroll
            for (int jj = 0; jj < kMlpThHC; jj += 4) {
                const float4 b = *reinterpret_cast<const float4*>(&B1s[j0 + jj]);
                h[jj] = b.x, h[jj + 1] = b.y, h[jj + 2] = b.z, h[jj + 3] = b.w;
            }
#pragma unroll
            for (int i = 0; i < CINB; i += 4) {
#pragma unroll
                for (int jj = 0; jj < kMlpThHC; ++jj) {  // W1[j0 + jj, i .. i+3]: a warp-wide broadcast
                    const float4 w = *reinterpret_cast<const float4*>(&W1s[(j0 + jj) * CINB + i]);
                    h[jj] = fmaf(w.x, xv[i], h[jj]);
                    h[jj] = fmaf(w.y, xv[i + 1], h[jj]);
                    h[jj] = fmaf(w.z, xv[i + 2], h[jj]);
                    h[jj] = fmaf(w.w, xv[i + 3], h[jj]);
                }
            }
            applyActivationAll(h, a.hact);
#pragma unroll
            for (int jj = 0; jj < kMlpThHC; ++jj) {
#pragma unroll
                for (int o = 0; o < COUTB; o += 4) {  // W2[o .. o+3, j0 + jj]: a warp-wide broadcast
                    const float4 w = *reinterpret_cast<const float4*>(&W2t[(j0 + jj) * COUTB + o]);
                    acc[o] = fmaf(w.x, h[jj], acc[o]);
                    acc[o + 1] = fmaf(w.y, h[jj], acc[o + 1]);
                    acc[o + 2] = fmaf(w.z, h[jj], acc[o + 2]);
                    acc[o + 3] = fmaf(w.w, h[jj], acc[o + 3]);
                }
            }
        }
        if (next < total) mlpThLoadX(xv, x, next, a);  // in flight during the epilogue
#pragma unroll
        for (int o = 0; o < COUTB; ++o) acc[o] += B2s[o];
        if (r) {  // every r load before any y store (y may alias r)
#pragma unroll
            for (int o = 0; o < COUTB; ++o)
                if (o < a.cout) acc[o] = fmaf(Gs[o], toFloat(r[base + static_cast<size_t>(o) * a.P]), acc[o]);
        }
        applyActivationAll(acc, a.act);
#pragma unroll
        for (int o = 0; o < COUTB; ++o)
            if (o < a.cout) y[base + static_cast<size_t>(o) * a.P] = fromFloat<T>(acc[o]);
    }
    allowDependentLaunch();
}

template <typename T, int CINB, int COUTB>
cudaError_t launchMlpThreadFixed(const MlpArgs& a, int smCount, cudaStream_t stream) {
    auto kernel = pointwiseMlpThreadKernel<T, CINB, COUTB>;
    const size_t smem = mlpThSmemFloats(a.ch, CINB, COUTB) * sizeof(float);
    // resident blocks per SM (registers / shared memory), asked once per kernel: it only sizes the grid
    static std::atomic<int> perSm{0};
    int resident = perSm.load(std::memory_order_relaxed);
    if (resident == 0) {
        cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kMlpThThreads, smem);
        if (err != cudaSuccess) return err;
        resident = resident > 0 ? resident : 1;
        perSm.store(resident, std::memory_order_relaxed);
    }
    const int64_t tiles = (static_cast<int64_t>(a.points) + kMlpThThreads - 1) / kMlpThThreads;
    const int64_t cap = static_cast<int64_t>(smCount > 0 ? smCount : 132) * resident;
    const int64_t blocks = tiles < cap ? tiles : cap;
    return launchKernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(kMlpThThreads), smem, stream, a);
}

// The caller checked mlpThreadFits(a).
template <typename T>
cudaError_t launchMlpThread(MlpArgs a, int64_t batch, int smCount, cudaStream_t stream) {
    a.points = static_cast<int>(batch * a.P);  // < 2^31: x has more elements
    return TFNO_MLP_BUCKET_SWITCH(mlpThBucket(a.cin), kCin, [&] {
        return TFNO_MLP_BUCKET_SWITCH(mlpThBucket(a.cout), kCout, [&] { return launchMlpThreadFixed<T, kCin, kCout>(a, smCount, stream); });
    });
}

}  // namespace cuda
}  // namespace turbofno
