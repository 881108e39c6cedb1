// core::launchMlpCuda: the PointwiseMLP op (turbofno/pointwise_mlp.h) in one kernel launch.
//
//   h[n, j, s] = hact( sum_i W1[j, i] x[n, i, s] + b1[j] )                    j < Ch
//   y[n, o, s] = act( sum_j W2[o, j] h[n, j, s] + b2[o] + g[o] r[n, o, s] )    o < Cout
//
// Design. A block (256 threads = 8 warps) owns kMlpTP = 128 consecutive points of one batch item n
// and a tile of CT = 8 * OM output channels (OM = 1, 2, 4 or 8 rows per thread, from Cout, smaller
// where the grid would not fill the GPU: chooseMlpRows); Cout > CT gives more blocks, each
// recomputing h. The hidden layer is produced in chunks of kMlpHC = 32 channels:
//   1. GEMM1  Hc[32, 128] = W1[h0:h0+32, :] . X[:, 128]: the x tile is staged in shared memory in
//      chunks of up to kMlpKX = 64 input channels (fp32, zero past P, zero rows up to a multiple of 4)
//      together with the matching W1 block ([j][k], read coalesced along k, zero-padded); each thread
//      accumulates an 8 x 2 register tile (hidden rows 8 (warp % 4) .. +7, points 64 (warp / 4) +
//      2 lane, +1) in k steps of 4 (one float4 weight broadcast per row and step): per k a warp
//      costs 4 shared-memory wavefronts for 16 FMAs, which balances the two pipes. When Cin <= 64
//      the x tile is loaded once per block and stays resident for all hidden chunks; otherwise it is
//      re-read (from L2) per chunk.
//   2. h = hact(Hc + b1) goes to shared memory, with the W2 block [o][j] of this chunk (coalesced
//      along j, zero-padded past Cout and to a multiple of 4 hidden channels).
//   3. GEMM2  acc[CT, 128] += W2[o0:o0+CT, h0:h0+32] . h: each thread keeps OM x 4 outputs
//      (rows OM * warp .. +OM-1, points 4 * lane .. +3) in registers across all hidden chunks.
//      OM = 1 (Cout <= 8: projections) skips the h round trip, whose reads would bound it (each h
//      value read for one FMA): each thread multiplies its own 8 x 2 h values by W2 (broadcasts) into
//      8 x 2 partial sums; after the last chunk the 4 row groups' partials are added through shared
//      memory in a fixed order.
// Epilogue: + b2 + g * r (all r loads issued before any y store: y may alias r; the r tile is
// prefetched into L2 at the block start, overlapping its DRAM reads with the GEMMs), act, store.
// Every warp reads / writes 128 consecutive points of one channel row (4 per lane, 16-byte vectors,
// 8-byte for fp16 / bf16, where P % 4 == 0 and the pointers are aligned, else element-wise with
// bounds checks). Shared-memory reads: x rows as float2 and h rows as float4 over the lanes
// (conflict-free), weights as warp-wide broadcasts. fp32 FMA throughout (fixed summation order:
// deterministic, no atomics), fp32 h.
//
// Cost per point: 2 (Cin Ch + Ch Cout) flops (+ recomputed GEMM1 per extra Cout tile); bytes
// (Cin + Cout (+ Cout with r)) * sizeof(T). Darcy channel MLP N=32, Cin=Cout=64, Ch=32, P=4096, fp32
// with r: 1.07 GFLOP, x + r + y = 100.7 MB -> memory floor 24.5 us at 4.11 TB/s; the FMA floor is
// ~16 us at the H200's 67 TFLOP/s fp32, so the kernel is near the ridge there. Lifting (Cin=3, Ch=128,
// Cout=64) and projection (Cin=64, Ch=128, Cout=1) are compute-bound (~64 flop/byte).
//
// Shared memory: kxRows * (128 + 32) + 32 * 128 + 32 * CT floats, kxRows = min(Cin rounded up to 4,
// 64): 64 KB at Cin = 64, CT = 64. 2 blocks/SM (registers bound it: ptxas -v for sm_90, no spills:
// OM 8: 116, OM 4: 103-104, OM 2: 91-92, OM 1: 107). Above 48 KB the kernel is opted in once per
// device (allowSmem).
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>

#include "common.cuh"
#include "pdl.cuh"
#include "sm_count.h"
#include "smem_limit.h"
#include "static_switch.h"
#include "turbofno/cuda.h"

namespace turbofno {
namespace cuda {

constexpr int kMlpThreads = 256;  // 8 warps
constexpr int kMlpTP = 128;       // points per block (32 lanes x 4)
constexpr int kMlpHC = 32;        // hidden channels per chunk (8 warps x 4)
constexpr int kMlpKX = 64;        // input channels per staged x chunk (8 warps x 8 passes)

struct MlpArgs {
    const void* x;
    const void* w1;
    const void* b1;  // nullable
    const void* w2;
    const void* b2;  // nullable
    const void* r;   // nullable; may equal y
    const void* g;   // nullable (only with r)
    void* y;
    int cin, ch, cout, P;
    int tilesP, coutTiles;  // blocks: N * tilesP * coutTiles (Cout tile fastest: neighbours share x in L2)
    int items;              // the persistent TC kernel's work items: N * tilesP
    int points;             // the per-point kernel's points: N * P
    int kxRows;             // min(Cin rounded up to 4, kMlpKX)
    int hact, act;          // core::Activation values
    int vec;                // 1: P % 4 == 0 and x, r, y aligned to 4 elements
    int vec2;               // 1: P % 2 == 0 and r, y aligned to 2 elements (the TC kernel's epilogue)
    int wconst;             // 1: w1, w2 constant (PointwiseMlpParams::weightsConstant): staged before the PDL wait
};

__host__ __device__ constexpr size_t mlpSmemFloats(int kxRows, int ct) {
    return static_cast<size_t>(kxRows) * (kMlpTP + kMlpHC) + kMlpHC * kMlpTP + kMlpHC * ct;
}

// 4 consecutive elements starting at p, of which `count` (may be <= 0) are in bounds; zero past them.
template <typename T>
__device__ __forceinline__ float4 load4(const T* p, int count, bool vec) {
    if (vec && count >= 4) {
        if constexpr (sizeof(T) == 4) {
            return *reinterpret_cast<const float4*>(p);
        } else {
            const uint2 u = *reinterpret_cast<const uint2*>(p);
            const T* e = reinterpret_cast<const T*>(&u);
            return make_float4(toFloat(e[0]), toFloat(e[1]), toFloat(e[2]), toFloat(e[3]));
        }
    }
    float v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = i < count ? toFloat(p[i]) : 0.f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

template <typename T>
__device__ __forceinline__ void store4(T* p, float4 v, int count, bool vec) {
    if (vec && count >= 4) {
        if constexpr (sizeof(T) == 4) {
            *reinterpret_cast<float4*>(p) = v;
        } else {
            uint2 u;
            T* e = reinterpret_cast<T*>(&u);
            e[0] = fromFloat<T>(v.x);
            e[1] = fromFloat<T>(v.y);
            e[2] = fromFloat<T>(v.z);
            e[3] = fromFloat<T>(v.w);
            *reinterpret_cast<uint2*>(p) = u;
        }
        return;
    }
    const float f[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
        if (i < count) p[i] = fromFloat<T>(f[i]);
}

__device__ __forceinline__ void prefetchL2(const void* p) {
#if defined(__CUDA_ARCH__)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
    (void)p;  // host compilation (tests/gpu/mlp_host_emu: the kernel run on CPU threads)
#endif
}

}  // namespace cuda
}  // namespace turbofno
#include "pointwise_mlp_tc.cuh"  // pointwiseMlpTcKernel, launchMlpTc: the 3xTF32 tensor-core variant
#include "pointwise_mlp_tc_persistent.cuh"  // its persistent, weights-resident form
#include "pointwise_mlp_tc64.cuh"  // pointwiseMlpTc64Kernel, launchMlpTc64: the small-grid TC kernel
#include "pointwise_mlp_thread.cuh"  // pointwiseMlpThreadKernel, launchMlpThread: one point per thread (Cin, Cout <= 64)
#include "pointwise_mlp_small.cuh"  // pointwiseMlpSmallKernel, launchMlpSmall: small grids, weights resident, FMA
namespace turbofno {
namespace cuda {

__device__ __forceinline__ void fma2(float (&acc)[2], float a, float2 b) {
    acc[0] = fmaf(a, b.x, acc[0]);
    acc[1] = fmaf(a, b.y, acc[1]);
}

__device__ __forceinline__ void fma4(float (&acc)[4], float a, float4 b) {
    acc[0] = fmaf(a, b.x, acc[0]);
    acc[1] = fmaf(a, b.y, acc[1]);
    acc[2] = fmaf(a, b.z, acc[2]);
    acc[3] = fmaf(a, b.w, acc[3]);
}

// grid (N * tilesP * coutTiles), 256 threads, dynamic shared memory mlpSmemFloats(kxRows, 8 * OM) floats.
template <typename T, int OM>
__global__ void __launch_bounds__(kMlpThreads, 2) pointwiseMlpKernel(const MlpArgs a) {
    constexpr int CT = 8 * OM;  // output channels per block
    constexpr bool kRegGemm2 = OM == 1;  // GEMM2 from registers (see below) instead of through Hs
    static_assert(!kRegGemm2 || 4 * CT <= kMlpHC, "the OM = 1 reduction reuses the Hs area");
    extern __shared__ __align__(16) float smem[];
    float* Xs = smem;                      // [kxRows][kMlpTP]  x chunk
    float* W1s = Xs + a.kxRows * kMlpTP;   // [kMlpHC][kxRows]  W1 block
    float* Hs = W1s + a.kxRows * kMlpHC;   // [kMlpHC][kMlpTP]  h chunk
    float* W2s = Hs + kMlpHC * kMlpTP;     // [CT][kMlpHC]      W2 block

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int b = blockIdx.x;
    const int ct = b % a.coutTiles;
    b /= a.coutTiles;
    const int tile = b % a.tilesP, n = b / a.tilesP;
    const int o0 = ct * CT;
    const int pt = tile * kMlpTP + 4 * lane;  // this thread's first point
    const int left = a.P - pt;                // points of this thread's 4 in bounds (may be <= 0)
    const bool vec = a.vec != 0;
    const T* __restrict__ x = static_cast<const T*>(a.x) + static_cast<size_t>(n) * a.cin * a.P + pt;
    const T* __restrict__ w1 = static_cast<const T*>(a.w1);
    const T* __restrict__ w2 = static_cast<const T*>(a.w2);
    const T* __restrict__ b1 = static_cast<const T*>(a.b1);
    const bool resident = a.cin <= a.kxRows;

    float acc[OM][4];
#pragma unroll
    for (int i = 0; i < OM; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;

    const size_t rowBase = static_cast<size_t>(n) * a.cout * a.P + pt;  // y / r offset of (n, o = 0, pt)
    const T* r = static_cast<const T*>(a.r);

    gridDependencyWait();  // x, weights and r may come from the previous kernel (pdl.cuh)
    // The epilogue's r tile is fetched into L2 now, so that its DRAM traffic overlaps the GEMMs (a hint:
    // no register or shared-memory cost, no effect on the results).
    if (r && left > 0) {
#pragma unroll
        for (int i = 0; i < OM; ++i) {
            const int o = o0 + OM * warp + i;
            if (o < a.cout) prefetchL2(r + rowBase + static_cast<size_t>(o) * a.P);
        }
    }
    // GEMM1 thread tile: hidden rows hr .. hr+7 x points hp, hp+1 of the tile (warps 0-3 / 4-7: the two
    // halves of the points), so that a warp's x read (256 B) and weight broadcasts cost the shared
    // memory as many wavefronts as its FMAs take issue slots
    const int hr = 8 * (warp & 3), hp = 64 * (warp >> 2) + 2 * lane;
    float part[kRegGemm2 ? CT : 1][2];  // OM = 1: this thread's share of out[o0 + o][hp, hp + 1] (its 8 hidden rows)
#pragma unroll
    for (int o = 0; o < (kRegGemm2 ? CT : 1); ++o) part[o][0] = part[o][1] = 0.f;
    for (int h0 = 0; h0 < a.ch; h0 += kMlpHC) {
        float hacc[8][2];
#pragma unroll
        for (int i = 0; i < 8; ++i) hacc[i][0] = hacc[i][1] = 0.f;
        for (int k0 = 0; k0 < a.cin; k0 += a.kxRows) {
            const int kc = min(a.kxRows, a.cin - k0), kc4 = (kc + 3) & ~3;  // k steps of 4, zero-padded
            __syncthreads();  // the previous readers of Xs / W1s (and of Hs / W2s) are done
            if (!resident || h0 == 0) {
                // x rows k0 .. k0+kc (zero rows up to kc4): warp w loads rows w, w+8, ...; all loads in
                // flight before the stores
                float4 v[kMlpKX / 8];
#pragma unroll
                for (int q = 0; q < kMlpKX / 8; ++q) {
                    const int row = warp + 8 * q;
                    v[q] = row < kc ? load4(x + static_cast<size_t>(k0 + row) * a.P, left, vec) : make_float4(0.f, 0.f, 0.f, 0.f);
                }
#pragma unroll
                for (int q = 0; q < kMlpKX / 8; ++q) {
                    const int row = warp + 8 * q;
                    if (row < kc4) *reinterpret_cast<float4*>(&Xs[row * kMlpTP + 4 * lane]) = v[q];
                }
            }
            // W1s[j][k] = W1[h0 + j, k0 + k] (zero past Ch and for k >= kc): consecutive threads along k,
            // which is contiguous in W1 (coalesced)
            for (int e = threadIdx.x; e < kc4 * kMlpHC; e += kMlpThreads) {
                const int k = e % kc4, j = e / kc4;
                W1s[j * a.kxRows + k] = (h0 + j < a.ch && k < kc) ? toFloat(w1[static_cast<size_t>(h0 + j) * a.cin + k0 + k]) : 0.f;
            }
            __syncthreads();
#pragma unroll 1
            for (int k = 0; k < kc4; k += 4) {
                float2 xv[4];
#pragma unroll
                for (int kk = 0; kk < 4; ++kk) xv[kk] = *reinterpret_cast<const float2*>(&Xs[(k + kk) * kMlpTP + hp]);
#pragma unroll
                for (int i = 0; i < 8; ++i) {  // W1[h0 + hr + i, k0 + k .. +3]: a warp-wide broadcast
                    const float4 w = *reinterpret_cast<const float4*>(&W1s[(hr + i) * a.kxRows + k]);
                    fma2(hacc[i], w.x, xv[0]);
                    fma2(hacc[i], w.y, xv[1]);
                    fma2(hacc[i], w.z, xv[2]);
                    fma2(hacc[i], w.w, xv[3]);
                }
            }
        }
        const int hc = min(kMlpHC, a.ch - h0), hc4 = (hc + 3) & ~3;
        if constexpr (kRegGemm2) {
            // OM = 1 (Cout tile 8): GEMM2 straight from the GEMM1 registers. W2s[o][j] for all 32 j of
            // the chunk (zero past Cout and hc; the barrier at the top of the k loop separated the last
            // reads), then each thread adds its 8 hidden rows' share to part[o][2]
            for (int e = threadIdx.x; e < kMlpHC * CT; e += kMlpThreads) {
                const int j = e % kMlpHC, o = e / kMlpHC;
                W2s[e] = (o0 + o < a.cout && j < hc) ? toFloat(w2[static_cast<size_t>(o0 + o) * a.ch + h0 + j]) : 0.f;
            }
            float hv[8][2];
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int j = h0 + hr + i;
                const float bias = (b1 && j < a.ch) ? toFloat(b1[j]) : 0.f;
                hv[i][0] = applyActivation(hacc[i][0] + bias, a.hact);
                hv[i][1] = applyActivation(hacc[i][1] + bias, a.hact);
            }
            __syncthreads();
#pragma unroll
            for (int o = 0; o < CT; ++o) {  // W2[o0 + o, h0 + hr .. +7]: two warp-wide broadcasts
                const float4 wa = *reinterpret_cast<const float4*>(&W2s[o * kMlpHC + hr]);
                const float4 wb = *reinterpret_cast<const float4*>(&W2s[o * kMlpHC + hr + 4]);
                const float w[8] = {wa.x, wa.y, wa.z, wa.w, wb.x, wb.y, wb.z, wb.w};
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    part[o][0] = fmaf(w[i], hv[i][0], part[o][0]);
                    part[o][1] = fmaf(w[i], hv[i][1], part[o][1]);
                }
            }
        } else {
            // h chunk to shared memory (the barrier at the top of the k loop separated the last GEMM2 reads)
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int j = h0 + hr + i;
                const float bias = (b1 && j < a.ch) ? toFloat(b1[j]) : 0.f;
                const float2 hv = make_float2(applyActivation(hacc[i][0] + bias, a.hact), applyActivation(hacc[i][1] + bias, a.hact));
                *reinterpret_cast<float2*>(&Hs[(hr + i) * kMlpTP + hp]) = hv;
            }
            // W2s[o][j] = W2[o0 + o, h0 + j] (zero past Cout and for j >= hc; Hs rows past Ch hold
            // hact(0) = 0): consecutive threads along j, contiguous in W2 (coalesced)
            for (int e = threadIdx.x; e < hc4 * CT; e += kMlpThreads) {
                const int j = e % hc4, o = e / hc4;
                W2s[o * kMlpHC + j] = (o0 + o < a.cout && j < hc) ? toFloat(w2[static_cast<size_t>(o0 + o) * a.ch + h0 + j]) : 0.f;
            }
            __syncthreads();
#pragma unroll 2
            for (int j = 0; j < hc4; j += 4) {
                float4 hv[4];
#pragma unroll
                for (int jj = 0; jj < 4; ++jj) hv[jj] = *reinterpret_cast<const float4*>(&Hs[(j + jj) * kMlpTP + 4 * lane]);
#pragma unroll
                for (int i = 0; i < OM; ++i) {  // W2[o0 + OM warp + i, h0 + j .. +3]: a warp-wide broadcast
                    const float4 w = *reinterpret_cast<const float4*>(&W2s[(OM * warp + i) * kMlpHC + j]);
                    fma4(acc[i], w.x, hv[0]);
                    fma4(acc[i], w.y, hv[1]);
                    fma4(acc[i], w.z, hv[2]);
                    fma4(acc[i], w.w, hv[3]);
                }
            }
        }
    }
    if constexpr (kRegGemm2) {
        // the four row groups' partial sums of each point (warps w, w + 1, .. share points): through
        // the (unused) Hs area, then added in a fixed order into the epilogue's mapping (row o0 + warp,
        // points 4 lane .. +3)
        float* red = Hs;  // [4 row groups][CT][kMlpTP]
#pragma unroll
        for (int o = 0; o < CT; ++o)
            *reinterpret_cast<float2*>(&red[((warp & 3) * CT + o) * kMlpTP + hp]) = make_float2(part[o][0], part[o][1]);
        __syncthreads();
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const float4 v = *reinterpret_cast<const float4*>(&red[(q * CT + warp) * kMlpTP + 4 * lane]);
            acc[0][0] += v.x;
            acc[0][1] += v.y;
            acc[0][2] += v.z;
            acc[0][3] += v.w;
        }
    }
    allowDependentLaunch();

    // epilogue: + b2 + g r (every r load before any y store: y may alias r), act, store
    const T* b2 = static_cast<const T*>(a.b2);
    const T* g = static_cast<const T*>(a.g);
    T* y = static_cast<T*>(a.y);
#pragma unroll
    for (int i = 0; i < OM; ++i) {
        const int o = o0 + OM * warp + i;
        if (o >= a.cout) continue;
        const float bias = b2 ? toFloat(b2[o]) : 0.f;
        float4 v = make_float4(acc[i][0] + bias, acc[i][1] + bias, acc[i][2] + bias, acc[i][3] + bias);
        if (r && left > 0) {
            const float gate = g ? toFloat(g[o]) : 1.f;
            const float4 rv = load4(r + rowBase + static_cast<size_t>(o) * a.P, left, vec);
            v.x = fmaf(gate, rv.x, v.x);
            v.y = fmaf(gate, rv.y, v.y);
            v.z = fmaf(gate, rv.z, v.z);
            v.w = fmaf(gate, rv.w, v.w);
        }
        acc[i][0] = v.x;
        acc[i][1] = v.y;
        acc[i][2] = v.z;
        acc[i][3] = v.w;
    }
    if (left <= 0) return;
#pragma unroll
    for (int i = 0; i < OM; ++i) {
        const int o = o0 + OM * warp + i;
        if (o >= a.cout) continue;
        const float4 v = make_float4(applyActivation(acc[i][0], a.act), applyActivation(acc[i][1], a.act),
                                     applyActivation(acc[i][2], a.act), applyActivation(acc[i][3], a.act));
        store4(y + rowBase + static_cast<size_t>(o) * a.P, v, left, vec);
    }
}

template <typename T, int OM>
cudaError_t launchMlp(MlpArgs a, int64_t batch, cudaStream_t stream) {
    constexpr int CT = 8 * OM;
    static std::atomic<unsigned long long> smemOptIn{0};  // per instantiation, bit per device
    const int64_t tilesP = (a.P + kMlpTP - 1) / kMlpTP, coutTiles = (a.cout + CT - 1) / CT;
    const int64_t blocks = batch * tilesP * coutTiles;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;  // not reachable for < 2^31-element tensors
    a.tilesP = static_cast<int>(tilesP);
    a.coutTiles = static_cast<int>(coutTiles);
    const size_t smem = mlpSmemFloats(a.kxRows, CT) * sizeof(float);
    cudaError_t err = allowSmem(pointwiseMlpKernel<T, OM>, smem, smemOptIn);
    if (err != cudaSuccess) return err;
    return launchKernel(pointwiseMlpKernel<T, OM>, dim3(static_cast<unsigned>(blocks)), dim3(kMlpThreads), smem, stream, a);
}

// Test hook (tests/cpp/test_cuda_mlp.cu): 0 automatic, 1 / 2 / 4 / 8 forces OM (rows per thread).
std::atomic<int> gMlpRowsOverride{0};
void setMlpRowsOverride(int om) { gMlpRowsOverride.store(om == 1 || om == 2 || om == 4 || om == 8 ? om : 0); }

// Rows per thread OM (Cout tile 8 OM). The largest that Cout needs, unless the grid is then too small
// to fill the GPU: a smaller OM gives more Cout tiles (more blocks) at the price of recomputing h in
// each. Chosen by a model of the critical path, ceil(blocks / SMs) x the cost of a block, counted in
// issue slots of an SM: GEMM1 32 per 4 input channels (FMA and shared-memory wavefronts balance),
// GEMM2 per 4 hidden channels the larger of its FMAs (8 OM) and wavefronts (2 (16 + OM): every warp
// reads the h rows of its points; OM = 1 works from registers: 8). OM = 2, 4, 8 give bitwise the same
// results (each output's sums run in the same order); OM = 1 sums per row group first (deterministic
// too). Untimed: test_cuda_mlp --bench prints every variant's time.
int chooseMlpRows(int64_t batch, int cin, int ch, int cout, int P, int smCount) {
    const int forced = gMlpRowsOverride.load();
    if (forced) return forced;
    const int need = cout <= 8 ? 1 : cout <= 16 ? 2 : cout <= 32 ? 4 : 8;
    const int64_t tilesP = (P + kMlpTP - 1) / kMlpTP, sms = smCount > 0 ? smCount : 132;
    const int64_t chunks = (ch + kMlpHC - 1) / kMlpHC, cin4 = (cin + 3) / 4 * 4, ch4 = (ch + 3) / 4 * 4;
    int best = need;
    double bestCost = 0;
    for (int om = need; om >= 1; om /= 2) {
        const int64_t blocks = batch * tilesP * ((cout + 8 * om - 1) / (8 * om));
        const double perBlock = 8.0 * cin4 * chunks + 0.25 * (om == 1 ? 8 : std::max(8 * om, 2 * (16 + om))) * ch4;
        const double cost = static_cast<double>((blocks + sms - 1) / sms) * perBlock;
        if (om == need || cost < 0.9 * bestCost) {  // a smaller tile must win clearly
            best = om;
            bestCost = cost;
        }
    }
    return best;
}

constexpr int64_t kMlpTc64FromPoints = 256, kMlpTc64UpToPoints = 16384;  // N * P range of the small-grid TC kernel
constexpr int64_t kMlpTcFromPoints = 32768;                                // N * P from which the 128-point one runs
constexpr int kMlpThMaxBuckets = 68;  // the per-point kernel's Cin + Cout buckets (4/64, 32/32, 64/4 and smaller)
enum class MlpKernel { kFma = 0, kTc = 1, kTc64 = 2, kThread = 3, kSmall = 4 };
// Test hook (tests/cpp/test_cuda_mlp.cu): -1 automatic, 0 forces the FMA kernel, 1 the tensor-core
// kernel (pointwise_mlp_tc.cuh), 2 the small-grid tensor-core kernel (pointwise_mlp_tc64.cuh), 3 the
// per-point kernel (pointwise_mlp_thread.cuh), 4 the small-grid FMA kernel (pointwise_mlp_small.cuh);
// where a forced 3 or 4 cannot take the call, the automatic choice.
std::atomic<int> gMlpTcOverride{-1};
void setMlpTcOverride(int mode) { gMlpTcOverride.store(mode >= 0 && mode <= 4 ? mode : -1); }
void setMlpTcTileOverride(int bm) { gMlpTcTileOverride.store(bm == 16 || bm == 32 || bm == 64 ? bm : 0); }
void setMlpTcPersistOverride(int mode) { gMlpTcPersistOverride.store(mode == 0 ? 0 : -1); }

// Which kernel, by N * P:
//  - fewer than 32768 points, Cin and Cout <= 64 and the weights + tiles within the shared-memory
//    budget: the small-grid FMA kernel (pointwise_mlp_small.cuh). Measured at 07fc934
//    (tests/gpu/logs/mlp_small_s16/mlp_bench_07fc934.log, us, its best tile vs the 3xTF32 small-grid
//    kernel pointwise_mlp_tc64.cuh): 1 x 256 points (burgers b1) 64/32/64 5.6 vs 7.6, lifting 2/128/64
//    6.9 vs 10.8, projection 64/128/1 7.1 vs 12.5; 32 x 256 points 64/32/64 8.1 vs 8.9, lifting 10.5 vs
//    14.4, projection 10.9 vs 16.2; 4096 points darcy 32/16/32 5.4 vs 5.7, 3/64/32 6.5 vs 6.1 (the one
//    loss), 32/64/1 6.2 vs 6.4, 64/128/1 8.6 vs 12.8; 16384 points 64/32/64 11.0 vs 14.2. 16k..32k
//    points: untimed (between the last two measured regimes).
//  - >= 32768 points with Cin and Cout buckets (pointwise_mlp_thread.cuh: 4, 16, 32, 64) adding up to
//    <= 68 and the weights within 48 KB: the per-point kernel. Measured at e4606da
//    (tests/gpu/logs/mlp_thread_s11, us at N = 32 x 4096 points, per-point vs the best other kernel):
//    darcy channel MLP 32/16/32 35.6 vs 45.0, lifting 3/64/32 36.8 vs 56.8, projection 32/64/1 34.8
//    vs 52.6, lifting 3/128/64 123.8 vs 128.4, projection 64/128/1 117.2 vs 141.1; not taken at 64/32/64
//    (89.8 vs 87.7) nor on small grids (4096 points: 8.4 vs 7.2, 1D 8192 points 64/32/64: 18.1 vs 12.8),
//    where one thread's serial chain of GEMMs and GELUs is longer than the other kernels' whole run.
//  - otherwise >= 32768 points: the 128-point TC kernel (3xTF32, pointwise_mlp_tc.cuh, persistent where it fits),
//    except a projection (Cout <= 8) that the persistent form does not take (FMA). Measured at 1ab507e
//    (tests/gpu/logs/mlp_tc_1ab507e/mlp_bench.log, us, TC vs FMA) at N = 32 x 4096 points: darcy
//    channel MLP 32/16/32 44.0 vs 48.2, lifting 3/64/32 56.1 vs 58.5, projection 32/64/1 52.0 vs
//    55.1, lifting 3/128/64 123.5 vs 145.7, 64/256/64 382 vs 423, 64/32/64 90.1 vs 89.1, projection
//    64/128/1 150.4 vs 141.0.
//  - small grids the small-grid FMA kernel cannot take (Cin or Cout > 64, large weights): 256..16384
//    points the small-grid TC kernel (pointwise_mlp_tc64.cuh; 32-point tiles where 64-point ones give
//    fewer than two blocks per SM; 1 x 4096 points 64/256/64 26.4 us in the 07fc934 log above),
//    else the FMA kernel (untimed).
MlpKernel chooseMlpKernel(const MlpArgs& a, int64_t batch, size_t elemBytes) {
    const int forced = gMlpTcOverride.load();
    const bool forcedFits = forced == static_cast<int>(MlpKernel::kThread) ? mlpThreadFits(a)
                            : forced == static_cast<int>(MlpKernel::kSmall) ? mlpSmallFits(a)
                                                                             : true;
    if (forced >= 0 && forcedFits) return static_cast<MlpKernel>(forced);
    const int64_t points = batch * a.P;
    if (points < kMlpTcFromPoints && mlpSmallFits(a)) return MlpKernel::kSmall;
    if (points >= kMlpTcFromPoints && mlpThreadFits(a) && mlpThBucket(a.cin) + mlpThBucket(a.cout) <= kMlpThMaxBuckets) return MlpKernel::kThread;
    if (points >= kMlpTcFromPoints) return (a.cout > 8 || (elemBytes == 4 && mlpTcPersistentFits(a))) ? MlpKernel::kTc : MlpKernel::kFma;
    if (points >= kMlpTc64FromPoints && points <= kMlpTc64UpToPoints) return MlpKernel::kTc64;
    return MlpKernel::kFma;
}

template <typename T>
cudaError_t launchMlpTyped(const MlpArgs& a, int64_t batch, cudaStream_t stream) {
    int smCount = 0;
    if (const cudaError_t err = currentSmCount(&smCount); err != cudaSuccess) return err;
    const MlpKernel kernel = chooseMlpKernel(a, batch, sizeof(T));
    if (kernel == MlpKernel::kTc) return launchMlpTc<T>(a, batch, smCount, stream);
    if (kernel == MlpKernel::kTc64) return launchMlpTc64<T>(a, batch, smCount, stream);
    if (kernel == MlpKernel::kThread) return launchMlpThread<T>(a, batch, smCount, stream);
    if (kernel == MlpKernel::kSmall) return launchMlpSmall<T>(a, batch, smCount, stream);
    switch (chooseMlpRows(batch, a.cin, a.ch, a.cout, a.P, smCount)) {
        case 1: return launchMlp<T, 1>(a, batch, stream);
        case 2: return launchMlp<T, 2>(a, batch, stream);
        case 4: return launchMlp<T, 4>(a, batch, stream);
        default: return launchMlp<T, 8>(a, batch, stream);
    }
}

static_assert(mlpSmemFloats(kMlpKX, 64) * sizeof(float) <= kSmemBudget, "PointwiseMLP tile exceeds the shared-memory budget");

}  // namespace cuda

namespace core {

// mlpCudaWorkspaceBytes (0: no workspace) is defined with the validation, plugins/src/validate_mlp.cpp,
// so that it exists in builds without CUDA too.

cudaError_t launchMlpCuda(const PointwiseMlpParams& params, void* /*workspace*/, size_t /*workspaceBytes*/,
                          cudaStream_t stream) {
    const PointwiseMlpShape& s = params.shape;
    if (s.batch < 1 || s.inChannels < 1 || s.hiddenChannels < 1 || s.outChannels < 1 || s.points < 1) return cudaErrorInvalidValue;
    if (!params.x || !params.w1 || !params.w2 || !params.y) return cudaErrorInvalidValue;
    if ((s.hasB1 && !params.b1) || (s.hasB2 && !params.b2) || (s.hasResidual && !params.residual) ||
        (s.hasGate && (!params.gate || !s.hasResidual))) {
        return cudaErrorInvalidValue;
    }
    if (params.y == params.x) return cudaErrorInvalidValue;  // y may alias the residual only
    const int hact = static_cast<int>(params.attrs.hiddenActivation), act = static_cast<int>(params.attrs.activation);
    if (hact < 0 || hact >= kActivationCount || act < 0 || act >= kActivationCount) return cudaErrorInvalidValue;
    constexpr int64_t kLimit = int64_t{1} << 31;             // every tensor < 2^31 elements (32-bit indices)
    if (s.batch * s.inChannels * s.points >= kLimit || s.batch * s.outChannels * s.points >= kLimit ||
        s.hiddenChannels * s.inChannels >= kLimit || s.outChannels * s.hiddenChannels >= kLimit) {
        return cudaErrorInvalidValue;
    }
    if (s.points > INT32_MAX - cuda::kMlpTP) return cudaErrorNotSupported;  // 32-bit point indices (+ one tile)
    if (params.dtype != DataType::kFloat32 && params.dtype != DataType::kFloat16 && params.dtype != DataType::kBFloat16) {
        return cudaErrorInvalidValue;
    }
    const uintptr_t elem = params.dtype == DataType::kFloat32 ? 4 : 2;
    const void* ptrs[] = {params.x, params.w1, params.b1, params.w2, params.b2, params.residual, params.gate, params.y};
    for (const void* p : ptrs)
        if (reinterpret_cast<uintptr_t>(p) % elem != 0) return cudaErrorMisalignedAddress;
    cuda::MlpArgs a{};
    a.x = params.x;
    a.w1 = params.w1;
    a.b1 = s.hasB1 ? params.b1 : nullptr;
    a.w2 = params.w2;
    a.b2 = s.hasB2 ? params.b2 : nullptr;
    a.r = s.hasResidual ? params.residual : nullptr;
    a.g = s.hasResidual && s.hasGate ? params.gate : nullptr;
    a.y = params.y;
    a.cin = static_cast<int>(s.inChannels);
    a.ch = static_cast<int>(s.hiddenChannels);
    a.cout = static_cast<int>(s.outChannels);
    a.P = static_cast<int>(s.points);
    const int64_t cin4 = (s.inChannels + 3) / 4 * 4;
    a.kxRows = static_cast<int>(cin4 < cuda::kMlpKX ? cin4 : cuda::kMlpKX);
    a.hact = hact;
    a.act = act;
    a.wconst = params.weightsConstant ? 1 : 0;
    const uintptr_t vbytes = 4 * elem;
    a.vec = (s.points % 4 == 0 && reinterpret_cast<uintptr_t>(a.x) % vbytes == 0 && reinterpret_cast<uintptr_t>(a.y) % vbytes == 0 &&
             reinterpret_cast<uintptr_t>(a.r) % vbytes == 0)
                ? 1
                : 0;
    a.vec2 = (s.points % 2 == 0 && reinterpret_cast<uintptr_t>(a.y) % (2 * elem) == 0 && reinterpret_cast<uintptr_t>(a.r) % (2 * elem) == 0) ? 1 : 0;
    return TFNO_DTYPE_SWITCH(params.dtype, cudaErrorInvalidValue, [&] { return cuda::launchMlpTyped<elem_t>(a, s.batch, stream); });
}

}  // namespace core
}  // namespace turbofno
