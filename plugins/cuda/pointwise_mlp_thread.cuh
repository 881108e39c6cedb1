// The per-point PointwiseMLP kernel: one point per thread (or 4 on small grids), for Cin, Cout <= 64 (the channel MLPs,
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
// hidden layer runs in chunks of 4 channels per thread (Ch rounded up to 4 G; 8 needed more registers).
// Shared memory per block, staged once (zero-padded, so padded inputs, hidden channels and outputs
// contribute exact zeros):
//   W1s [Ch][CINB (+4)]   W1[j, i]          h chunk: h[jj] += W1s[j][i..i+3] . x[i..i+3]
//   W2t [Ch][COUTB (+4)]  W2[o, j] (transposed)   acc[o..o+3] += W2t[j][o..o+3] h[j]
//   B1s [Ch], B2s [COUTB], Gs [COUTB] (b1 / b2 zero and g one where absent)
// G threads per point (a template parameter): G = 1 for large grids; G = 4 for small grids, where one
// thread's serial chain of GEMMs and activations would be the whole kernel's run time: the 4 lanes of a
// point split the hidden rows (the rows a warp reads at once are then 4 different ones, hence the +4
// padding: different banks), their partial output sums are added with shuffles, and each lane writes a
// quarter of the outputs. A block of 128 threads loops over the points with stride gridDim.x * 128 / G
// (grid: the blocks that fit on the GPU at once, or fewer), so the weights are staged once per block.
// Consecutive lanes (lane groups) take consecutive points: every x, r and y access of a warp is one
// coalesced row segment per channel. Epilogue: all r loads of a thread before its y stores (y may alias
// r: a thread reads r[n, o, s] before writing y[n, o, s], nothing else touches them). fp32 FMA in a
// fixed order: deterministic.
#pragma once

#include "common.cuh"
#include "pdl.cuh"

namespace turbofno {
namespace cuda {

constexpr int kMlpThThreads = 128;
constexpr int kMlpThHC = 4;                        // hidden channels per chunk
constexpr int kMlpThMaxChannels = 64;              // largest Cin / Cout bucket
constexpr size_t kMlpThSmemLimit = 48 * 1024;      // no opt-in: larger weight sets go to the tiled kernels

__host__ __device__ constexpr int mlpThBucket(int c) { return c <= 4 ? 4 : c <= 16 ? 16 : c <= 32 ? 32 : c <= 64 ? 64 : 0; }
// Hidden channels rounded up to the chunks of the G threads of a point.
__host__ __device__ constexpr int mlpThHidden(int ch, int g) { return (ch + g * kMlpThHC - 1) / (g * kMlpThHC) * (g * kMlpThHC); }
// Row stride of W1s / W2t: the bucket, plus 4 floats with G > 1 (the G rows a warp reads at once then
// fall into different banks).
__host__ __device__ constexpr int mlpThStride(int bucket, int g) { return bucket + (g > 1 ? 4 : 0); }
__host__ __device__ constexpr size_t mlpThSmemFloats(int ch, int cinB, int coutB, int g) {
    return static_cast<size_t>(mlpThHidden(ch, g)) * (mlpThStride(cinB, g) + mlpThStride(coutB, g) + 1) + 2 * static_cast<size_t>(coutB);
}

// Whether the per-point kernel takes this call with G threads per point (Cin, Cout <= 64, weights
// within 48 KB of shared memory).
inline bool mlpThreadFits(const MlpArgs& a, int g = 1) {
    return a.cin <= kMlpThMaxChannels && a.cout <= kMlpThMaxChannels &&
           mlpThSmemFloats(a.ch, mlpThBucket(a.cin), mlpThBucket(a.cout), g) * sizeof(float) <= kMlpThSmemLimit;
}

// v[i] = applyActivation(v[i], act) with the switch outside the loop.
template <int N>
__device__ __forceinline__ void applyActivationAll(float (&v)[N], int act) {
    switch (act) {
#define TFNO_MLP_ACT_CASE(K) \
    case K:                  \
        _Pragma("unroll") for (int i = 0; i < N; ++i) v[i] = applyActivation(v[i], K); \
        break;
        TFNO_MLP_ACT_CASE(1)
        TFNO_MLP_ACT_CASE(2)
        TFNO_MLP_ACT_CASE(3)
        TFNO_MLP_ACT_CASE(4)
        TFNO_MLP_ACT_CASE(5)
#undef TFNO_MLP_ACT_CASE
        default: break;  // identity
    }
}

#ifndef TFNO_MLP_HOST_EMU
// v of lane (this lane ^ m); every lane of the warp takes part (tests/gpu/mlp_host_emu: pdl.cuh there).
__device__ __forceinline__ float mlpThShflXor(float v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
#endif

// x[n, 0..CINB, s] of point q = n P + s into registers (zero past Cin, and all zero when !valid).
template <typename T, int CINB>
__device__ __forceinline__ void mlpThLoadX(float (&xv)[CINB], const T* __restrict__ x, unsigned q, bool valid, const MlpArgs& a) {
    const unsigned n = q / static_cast<unsigned>(a.P), s = q - n * static_cast<unsigned>(a.P);
    const T* xp = x + static_cast<size_t>(n) * a.cin * a.P + s;
#pragma unroll
    for (int i = 0; i < CINB; ++i) xv[i] = (valid && i < a.cin) ? toFloat(xp[static_cast<size_t>(i) * a.P]) : 0.f;
}

// Blocks per SM the register budget aims at (ptxas -v, sm_90, no spills): the x and accumulator arrays,
// the epilogue's Cout r loads in flight and the weight broadcasts the compiler schedules early.
// With G > 1 (small grids: few blocks per SM anyway) 2.
template <int CINB, int COUTB, int G>
constexpr int mlpThMinBlocks() {
    return (G > 1 || CINB + COUTB > 96 || (COUTB == 64 && CINB >= 16)) ? 2 : CINB + COUTB > 64 ? 3 : 4;
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

// grid min(ceil(G N P / 128), resident blocks), 128 threads, dynamic shared memory mlpThSmemFloats floats.
// G = 1: one thread per point. G = 4 (small grids): the 4 lanes 4 p' .. 4 p' + 3 of a warp share point
// p' and split the hidden chunks (lane t takes hidden rows j0 + 4 jj + t of each 16-row chunk j0); their
// partial Cout sums are added by a butterfly of shuffles (every lane ends with the same sums: a + b is
// exact in either order), and lane t writes the outputs o = t mod 4.
template <typename T, int CINB, int COUTB, int G>
__global__ void __launch_bounds__(kMlpThThreads, (mlpThMinBlocks<CINB, COUTB, G>())) pointwiseMlpThreadKernel(const MlpArgs a) {
    static_assert(G == 1 || G == 2 || G == 4, "threads per point");
    constexpr int SI = mlpThStride(CINB, G), SO = mlpThStride(COUTB, G);
    extern __shared__ __align__(16) float smem[];
    const int chPad = mlpThHidden(a.ch, G);
    float* W1s = smem;                // [chPad][SI]  W1[j, i]
    float* W2t = W1s + chPad * SI;    // [chPad][SO]  W2[o, j]
    float* B1s = W2t + chPad * SO;    // [chPad]
    float* B2s = B1s + chPad;         // [COUTB]
    float* Gs = B2s + COUTB;          // [COUTB]
    const T* __restrict__ x = static_cast<const T*>(a.x);
    const T* __restrict__ w1 = static_cast<const T*>(a.w1);
    const T* __restrict__ w2 = static_cast<const T*>(a.w2);
    const T* b1 = static_cast<const T*>(a.b1);
    const T* b2 = static_cast<const T*>(a.b2);
    const T* g = static_cast<const T*>(a.g);
    const T* r = static_cast<const T*>(a.r);
    T* y = static_cast<T*>(a.y);
    const unsigned total = static_cast<unsigned>(a.points), stride = gridDim.x * (kMlpThThreads / G);
    const unsigned lane = threadIdx.x & 31, t = lane % G;
    // this lane's point; the loop runs while the warp's first point is in range (every lane of the warp
    // takes every trip: the shuffles need them all), lanes past the end compute on zeros and store nothing
    unsigned q = (blockIdx.x * kMlpThThreads + threadIdx.x) / G;
    const unsigned lanePoint = lane / G;

    gridDependencyWait();  // x, weights and r may come from the previous kernel (pdl.cuh)
    float xv[CINB];
    mlpThLoadX(xv, x, q, q < total, a);  // in flight while the weights are staged
    mlpThStage(W1s, chPad * SI, [&](int e) {  // W1s[j][i] = W1[j, i]
        const int j = e / SI, i = e % SI;
        return (j < a.ch && i < a.cin) ? toFloat(w1[static_cast<size_t>(j) * a.cin + i]) : 0.f;
    });
    mlpThStage(W2t, chPad * SO, [&](int e) {  // W2t[j][o] = W2[o, j]
        const int j = e / SO, o = e % SO;
        return (j < a.ch && o < a.cout) ? toFloat(w2[static_cast<size_t>(o) * a.ch + j]) : 0.f;
    });
    mlpThStage(B1s, chPad, [&](int e) { return (b1 && e < a.ch) ? toFloat(b1[e]) : 0.f; });
    mlpThStage(B2s, COUTB, [&](int e) { return (b2 && e < a.cout) ? toFloat(b2[e]) : 0.f; });
    mlpThStage(Gs, COUTB, [&](int e) { return (g && e < a.cout) ? toFloat(g[e]) : 1.f; });
    __syncthreads();  // the only barrier: below, the warps are independent

    for (; q - lanePoint < total; q += stride) {
        const unsigned next = q + stride;  // < 2^32: q, stride < 2^31
        // the epilogue's r values and the next point's x into L2 now (hints: they overlap the GEMMs)
        if (r && q < total) {
            const unsigned n = q / static_cast<unsigned>(a.P), s = q - n * static_cast<unsigned>(a.P);
            const size_t base = static_cast<size_t>(n) * a.cout * a.P + s;
#pragma unroll
            for (int o = 0; o < COUTB; ++o)
                if (o % G == static_cast<int>(t) && o < a.cout) prefetchL2(r + base + static_cast<size_t>(o) * a.P);
        }
        if (next < total && t == 0) {
            const unsigned nn = next / static_cast<unsigned>(a.P), ns = next - nn * static_cast<unsigned>(a.P);
#pragma unroll
            for (int i = 0; i < CINB; ++i)
                if (i < a.cin) prefetchL2(x + (static_cast<size_t>(nn) * a.cin + i) * a.P + ns);
        }
        float acc[COUTB];
#pragma unroll
        for (int o = 0; o < COUTB; ++o) acc[o] = 0.f;
#pragma unroll 1
        for (int j0 = 0; j0 < chPad; j0 += G * kMlpThHC) {
            float h[kMlpThHC];
            if constexpr (G == 1) {
                const float4 b = *reinterpret_cast<const float4*>(&B1s[j0]);
                h[0] = b.x, h[1] = b.y, h[2] = b.z, h[3] = b.w;
            } else {
#pragma unroll
                for (int jj = 0; jj < kMlpThHC; ++jj) h[jj] = B1s[j0 + G * jj + t];
            }
#pragma unroll
            for (int i = 0; i < CINB; i += 4) {
#pragma unroll
                for (int jj = 0; jj < kMlpThHC; ++jj) {  // W1[j, i .. i+3]: a broadcast to the warp (G = 1) or its G rows
                    const float4 w = *reinterpret_cast<const float4*>(&W1s[(j0 + G * jj + t) * SI + i]);
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
                for (int o = 0; o < COUTB; o += 4) {  // W2[o .. o+3, j]
                    const float4 w = *reinterpret_cast<const float4*>(&W2t[(j0 + G * jj + t) * SO + o]);
                    acc[o] = fmaf(w.x, h[jj], acc[o]);
                    acc[o + 1] = fmaf(w.y, h[jj], acc[o + 1]);
                    acc[o + 2] = fmaf(w.z, h[jj], acc[o + 2]);
                    acc[o + 3] = fmaf(w.w, h[jj], acc[o + 3]);
                }
            }
        }
        if constexpr (G > 1) {
#pragma unroll
            for (int m = 1; m < G; m *= 2)
#pragma unroll
                for (int o = 0; o < COUTB; ++o) acc[o] += mlpThShflXor(acc[o], m);
        }
        mlpThLoadX(xv, x, next, next < total, a);  // in flight during the epilogue
        if (q < total) {
            const unsigned n = q / static_cast<unsigned>(a.P), s = q - n * static_cast<unsigned>(a.P);
            const size_t base = static_cast<size_t>(n) * a.cout * a.P + s;  // (n, o = 0, s) of y and r
            // this lane's outputs o = G k + t (selects: a register array takes no run-time index)
            constexpr int OWN = COUTB / G;
            float v[OWN];
#pragma unroll
            for (int k = 0; k < OWN; ++k) {
                float sel = acc[G * k];
#pragma unroll
                for (int u = 1; u < G; ++u) sel = t == static_cast<unsigned>(u) ? acc[G * k + u] : sel;
                v[k] = sel + B2s[G * k + t];
            }
            if (r) {  // every r load before any y store (y may alias r)
#pragma unroll
                for (int k = 0; k < OWN; ++k) {
                    const int o = G * k + t;
                    if (o < a.cout) v[k] = fmaf(Gs[o], toFloat(r[base + static_cast<size_t>(o) * a.P]), v[k]);
                }
            }
            applyActivationAll(v, a.act);
#pragma unroll
            for (int k = 0; k < OWN; ++k) {
                const int o = G * k + t;
                if (o < a.cout) y[base + static_cast<size_t>(o) * a.P] = fromFloat<T>(v[k]);
            }
        }
    }
    allowDependentLaunch();
}

template <typename T, int CINB, int COUTB, int G>
cudaError_t launchMlpThreadFixed(const MlpArgs& a, int smCount, cudaStream_t stream) {
    auto kernel = pointwiseMlpThreadKernel<T, CINB, COUTB, G>;
    const size_t smem = mlpThSmemFloats(a.ch, CINB, COUTB, G) * sizeof(float);
    // resident blocks per SM (registers / shared memory), asked once per kernel: it only sizes the grid
    static std::atomic<int> perSm{0};
    int resident = perSm.load(std::memory_order_relaxed);
    if (resident == 0) {
        cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kMlpThThreads, smem);
        if (err != cudaSuccess) return err;
        resident = resident > 0 ? resident : 1;
        perSm.store(resident, std::memory_order_relaxed);
    }
    const int64_t tiles = (static_cast<int64_t>(a.points) * G + kMlpThThreads - 1) / kMlpThThreads;
    const int64_t cap = static_cast<int64_t>(smCount > 0 ? smCount : 132) * resident;
    const int64_t blocks = tiles < cap ? tiles : cap;
    return launchKernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(kMlpThThreads), smem, stream, a);
}

template <typename T, int CINB, int G>
cudaError_t launchMlpThreadCin(const MlpArgs& a, int smCount, cudaStream_t stream) {
    switch (mlpThBucket(a.cout)) {
        case 4: return launchMlpThreadFixed<T, CINB, 4, G>(a, smCount, stream);
        case 16: return launchMlpThreadFixed<T, CINB, 16, G>(a, smCount, stream);
        case 32: return launchMlpThreadFixed<T, CINB, 32, G>(a, smCount, stream);
        default: return launchMlpThreadFixed<T, CINB, 64, G>(a, smCount, stream);
    }
}

// G threads per point (1 or 4). The caller checked mlpThreadFits(a, G) and set a.points = N * P.
template <typename T, int G>
cudaError_t launchMlpThread(const MlpArgs& a, int smCount, cudaStream_t stream) {
    switch (mlpThBucket(a.cin)) {
        case 4: return launchMlpThreadCin<T, 4, G>(a, smCount, stream);
        case 16: return launchMlpThreadCin<T, 16, G>(a, smCount, stream);
        case 32: return launchMlpThreadCin<T, 32, G>(a, smCount, stream);
        default: return launchMlpThreadCin<T, 64, G>(a, smCount, stream);
    }
}

}  // namespace cuda
}  // namespace turbofno
