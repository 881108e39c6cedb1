// The PointwiseMLP kernel on tensor cores in fp32 accuracy (3xTF32, mma_tf32.cuh), included by
// pointwise_mlp.cu after MlpArgs, load4 / store4 / prefetchL2 (it uses them). Also run on the CPU by
// tests/gpu/mlp_host_emu (TFNO_MLP_HOST_EMU: its host mma_tf32.cuh emulates the warp's mma).
//
//   h[n, j, s] = hact( sum_i W1[j, i] x[n, i, s] + b1[j] )                    j < Ch
//   y[n, o, s] = act( sum_j W2[o, j] h[n, j, s] + b2[o] + g[o] r[n, o, s] )    o < Cout
//
// A block of 256 threads (8 warps) owns kTP = 128 consecutive points of one batch item n and a tile of
// BM = 16, 32 or 64 output channels (from Cout, halved while the grid would not fill the GPU; Cout > 64:
// more blocks, each recomputing h). Both layers are GEMMs with the points as the N dimension:
//   1. The x tile [Cin][128] is staged once in shared memory by cp.async (fp32, aligned, P % 4 == 0;
//      else through registers with conversion / bounds), zero past P and up to a multiple of 8
//      channels, and stays resident for all hidden chunks when Cin <= kKX = 64; larger Cin goes in
//      chunks of 64 channels, re-read (from L2) per hidden chunk.
//   2. The hidden layer goes in chunks of kHC = 32 channels: GEMM1 Hc[32][128] = W1[h0.., :] X, then
//      h = hact(Hc + b1) into shared memory Hs (rows past Ch exactly 0).
//   3. GEMM2 acc[BM][128] += W2[o0.., h0..] Hs, the accumulators staying in registers across chunks.
// Warp tiling of an M x 128 product (WarpGrid<M>): M = 64 -> 2 x 4 warps of 32 x 32 (2 x 4 mma tiles
// of 16 x 8), M = 32 -> 1 x 8 warps of 32 x 16, M = 16 -> 1 x 8 warps of 16 x 16. Warp m-tiles past
// Ch (GEMM1) or Cout (GEMM2) skip their mma (warp-uniform).
// 3xTF32 (mma_tf32.cuh): the weight blocks are split into tf32 hi / lo parts once, when staged (rounded
// split); the point operands (x, h) are split where they are read (truncating split: 2 instructions,
// each element is used by one warp). Each k8 step's three products go into fresh registers and are
// then added to the fp32 accumulators with an ordinary add (the tensor cores' internal accumulation is
// not round-to-nearest: short chains keep fp32 accuracy). Fixed summation order: deterministic, no
// atomics. The weight blocks' loads are all in flight together (8 per thread at a time) and W2's are
// issued with GEMM1's operands: one at a time, their L2 round trips dominated a block.
// Epilogue straight from the C fragments (no shared-memory round trip): a thread owns points
// (2t, 2t + 1) of 8-point groups of rows g, g + 8. First + b2 + g r with every r load issued (y may
// alias r: a store in between would order each load after it), then act and the stores: 8-byte
// (fp32) / 4-byte (fp16, bf16) pairs where P is even and r / y are aligned to 2 elements, else
// element-wise with bounds checks; a quad of lanes writes 32 consecutive bytes of a row.
// Shared memory (floats): Xs [kx][136], W1 hi and lo [32][kx + 4], Hs [32][136], W2 hi and lo
// [BM][36]; the strides make every fragment read conflict-free (136 = 8 mod 32: B reads at bank
// 8 t + g; kx + 4 and 36 = 4 mod 8: A reads at 4 g + t) and the Hs float2 stores too (8 g + 2 t per
// half warp). At Cin = 64: 88 KB (BM 64) down to 74 KB (BM 16); 2 blocks per SM.
// Cost per point: 2 (Cin Ch + Ch Cout) flops (3 tf32 mma each), bytes (Cin + Cout (+ Cout with r))
// * sizeof(T): darcy's channel MLP at N = 32 (32/16/32, 4096 points, with r) is 0.27 GFLOP on 50 MB.
#pragma once

#include "common.cuh"
#include "mma_tf32.cuh"
#include "pdl.cuh"

namespace turbofno {
namespace cuda {
namespace mlptc {

constexpr int kTcThreads = 256;
constexpr int kTP = 128;       // points per block
constexpr int kKX = 64;        // input channels staged at once
constexpr int kHC = 32;        // hidden channels per chunk
constexpr int kPS = kTP + 8;   // row stride of Xs and Hs
constexpr int kW2Stride = kHC + 4;
constexpr size_t kSmemMax = 96 * 1024;  // opt-in limit (the largest variant: 88 KB)

// Warps of an M x kTP product: MT m16 tiles per warp, WM x WN warps, NT n8 tiles per warp.
template <int M>
struct WarpGrid {
    static constexpr int MT = M >= 32 ? 2 : 1;
    static constexpr int WM = M / (16 * MT);
    static constexpr int WN = kTcThreads / 32 / WM;
    static constexpr int NT = kTP / (8 * WN);
    static_assert(WM * WN * 32 == kTcThreads && NT * 8 * WN == kTP, "warp grid");
};

// Xs [kx][kPS], W1 hi / lo [kHC][kx + 4] each, Hs [kHC][kPS], W2 hi / lo [BM][kW2Stride] each.
__host__ __device__ constexpr size_t smemFloats(int kx, int bm) {
    return static_cast<size_t>(kx) * kPS + 2 * static_cast<size_t>(kHC) * (kx + 4) + static_cast<size_t>(kHC) * kPS +
           2 * static_cast<size_t>(bm) * kW2Stride;
}

// acc[MT][NT] += A B for one warp: A given pre-split (hi / lo bits, row-major, stride lda; the warp's
// rows 16 mi + (g, g + 8)), B rows k of Bs (fp32, stride ldb, the warp's 8 NT columns from Bs[0]),
// split here (truncating split: each B element is used by this warp only), K a multiple of 8. Only
// the first mtValid m tiles (warp-uniform) are computed. Each k8 step's three products go into fresh
// registers, then an fp32 add.
template <int MT, int NT>
__device__ __forceinline__ void warpGemm3xTf32(float (&acc)[MT][NT][4], const float* Ahi, const float* Alo, int lda, const float* Bs,
                                               int ldb, int K, int mtValid, int g, int t) {
#pragma unroll 1
    for (int k = 0; k < K; k += 8) {
        Tf32Pair af[MT][4];
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const int e = (16 * mi + g + 8 * (r & 1)) * lda + k + t + 4 * (r >> 1);
                af[mi][r] = Tf32Pair{__float_as_uint(Ahi[e]), __float_as_uint(Alo[e])};
            }
#pragma unroll
        for (int ni = 0; ni < NT; ++ni) {
            Tf32Pair bf[2];
#pragma unroll
            for (int r = 0; r < 2; ++r) bf[r] = splitTf32Trunc(Bs[(k + t + 4 * r) * ldb + 8 * ni + g]);
#pragma unroll
            for (int mi = 0; mi < MT; ++mi) {
                if (mi >= mtValid) continue;  // warp-uniform
                float d[4] = {0.f, 0.f, 0.f, 0.f};
                mma3xTf32(d, af[mi], bf);
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[mi][ni][r] += d[r];
            }
        }
    }
}

// 16 bytes global -> shared without registers (cp.async, sm_80+), zero-filled past `validBytes`
// (0 or 16; src stays a valid address). Host compilation (tests/gpu/mlp_host_emu): a plain copy.
__device__ __forceinline__ void copy16Async(float* dstShared, const float* src, int validBytes) {
#if defined(__CUDA_ARCH__)
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(dstShared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(validBytes) : "memory");
#else
    for (int i = 0; i < 4; ++i) dstShared[i] = 4 * i < validBytes ? src[i] : 0.f;
#endif
}
__device__ __forceinline__ void waitAllAsync() {
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
#endif
}

// A weight block split for the tensor cores once per block: hi[i][j] / lo[i][j] (row stride
// dstStride) = splitTf32(src[i * srcStride + j]) for i < rows, j < cols (zero where i >= validRows or
// j >= validCols), by the whole block. Loads go in batches of 8 per thread, all in flight before the
// first is used (one at a time they would serialize into microseconds of L2 round trips).
template <typename T>
__device__ __forceinline__ void stageSplit(float* hi, float* lo, int dstStride, const T* src, int srcStride, int rows, int cols,
                                           int validRows, int validCols) {
    const int total = rows * cols;
    for (int e0 = threadIdx.x; e0 < total; e0 += 8 * kTcThreads) {
        float v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            const int e = e0 + u * kTcThreads, i = e / cols, j = e % cols;
            v[u] = (e < total && i < validRows && j < validCols) ? toFloat(src[static_cast<size_t>(i) * srcStride + j]) : 0.f;
        }
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            const int e = e0 + u * kTcThreads;
            if (e >= total) continue;
            const Tf32Pair p = splitTf32(v[u]);
            const int d = (e / cols) * dstStride + e % cols;
            hi[d] = __uint_as_float(p.hi);
            lo[d] = __uint_as_float(p.lo);
        }
    }
}

// 2 consecutive elements starting at p, of which `count` (may be <= 0) are in bounds.
template <typename T>
__device__ __forceinline__ float2 load2(const T* p, int count, bool vec) {
    if (vec && count >= 2) {
        if constexpr (sizeof(T) == 4) {
            return *reinterpret_cast<const float2*>(p);
        } else {
            const uint32_t u = *reinterpret_cast<const uint32_t*>(p);
            const T* e = reinterpret_cast<const T*>(&u);
            return make_float2(toFloat(e[0]), toFloat(e[1]));
        }
    }
    return make_float2(count > 0 ? toFloat(p[0]) : 0.f, count > 1 ? toFloat(p[1]) : 0.f);
}

template <typename T>
__device__ __forceinline__ void store2(T* p, float2 v, int count, bool vec) {
    if (vec && count >= 2) {
        if constexpr (sizeof(T) == 4) {
            *reinterpret_cast<float2*>(p) = v;
        } else {
            uint32_t u;
            T* e = reinterpret_cast<T*>(&u);
            e[0] = fromFloat<T>(v.x);
            e[1] = fromFloat<T>(v.y);
            *reinterpret_cast<uint32_t*>(p) = u;
        }
        return;
    }
    if (count > 0) p[0] = fromFloat<T>(v.x);
    if (count > 1) p[1] = fromFloat<T>(v.y);
}

// The output tile (channels per block) that Cout needs: 16, 32 or 64 (larger Cout: tiles of 64).
__host__ __device__ constexpr int tileForCout(int cout) { return cout <= 16 ? 16 : cout <= 32 ? 32 : 64; }

template <int MT, int NT>
__device__ __forceinline__ void zeroAcc(float (&acc)[MT][NT][4]) {
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < NT; ++ni)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[mi][ni][r] = 0.f;
}

// h = hact(Hc + b1) of one hidden chunk (hc valid rows; b1 from the chunk's first row, nullable) from
// a warp's GEMM1 fragments into Hs (stride kPS; rows past hc exactly 0).
template <typename T, int MT, int NT>
__device__ __forceinline__ void storeHiddenChunk(const float (&hacc)[MT][NT][4], float* Hs, const T* b1, int hc, int hact, int r1,
                                                 int c1, int g, int t) {
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            const int row = r1 + 16 * mi + g + 8 * hh;
            const bool in = row < hc;
            const float bias = (b1 && in) ? toFloat(b1[row]) : 0.f;
#pragma unroll
            for (int ni = 0; ni < NT; ++ni) {
                const float v0 = in ? applyActivation(hacc[mi][ni][2 * hh] + bias, hact) : 0.f;
                const float v1 = in ? applyActivation(hacc[mi][ni][2 * hh + 1] + bias, hact) : 0.f;
                *reinterpret_cast<float2*>(&Hs[row * kPS + c1 + 8 * ni + 2 * t]) = make_float2(v0, v1);
            }
        }
}

// The epilogue from a warp's GEMM2 fragments: rows o0 + r2 + 16 mi + g (+ 8), points p0 + c2 + 8 ni
// + 2 t (+ 1) of batch item n. First + b2 + g r into the accumulators with every r load issued (y may
// alias r: a store in between would order each load after it), then act and the stores.
template <typename T, int MT, int NT>
__device__ __forceinline__ void storeOutputTile(float (&acc)[MT][NT][4], const MlpArgs& a, int n, int o0, int p0, int r2, int c2, int g,
                                                int t) {
    const T* b2 = static_cast<const T*>(a.b2);
    const T* gt = static_cast<const T*>(a.g);
    const T* rp = static_cast<const T*>(a.r);
    T* y = static_cast<T*>(a.y);
    const int cout = a.cout, P = a.P;
    const bool vec2 = a.vec2 != 0;
    const int pBase = p0 + c2 + 2 * t;
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            const int o = o0 + r2 + 16 * mi + g + 8 * hh;
            if (o >= cout) continue;
            const float bias = b2 ? toFloat(b2[o]) : 0.f;
            const float gate = gt ? toFloat(gt[o]) : 1.f;
            const T* rrow = rp ? rp + (static_cast<size_t>(n) * cout + o) * P : nullptr;
#pragma unroll
            for (int ni = 0; ni < NT; ++ni) {
                const int p = pBase + 8 * ni;
                float2 rv = make_float2(0.f, 0.f);
                if (rrow && p < P) rv = load2(rrow + p, P - p, vec2);
                acc[mi][ni][2 * hh] = fmaf(gate, rv.x, acc[mi][ni][2 * hh] + bias);
                acc[mi][ni][2 * hh + 1] = fmaf(gate, rv.y, acc[mi][ni][2 * hh + 1] + bias);
            }
        }
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            const int o = o0 + r2 + 16 * mi + g + 8 * hh;
            if (o >= cout) continue;
            T* yrow = y + (static_cast<size_t>(n) * cout + o) * P;
#pragma unroll
            for (int ni = 0; ni < NT; ++ni) {
                const int p = pBase + 8 * ni;
                if (p >= P) continue;
                store2(yrow + p, make_float2(applyActivation(acc[mi][ni][2 * hh], a.act), applyActivation(acc[mi][ni][2 * hh + 1], a.act)),
                       P - p, vec2);
            }
        }
}

}  // namespace mlptc

// grid (N * tilesP * coutTiles), tilesP = ceil(P / 128), coutTiles = ceil(Cout / BM) (Cout tile
// fastest: neighbours share x in L2), 256 threads, dynamic shared memory smemFloats(kxRows, BM).
template <typename T, int BM>
__global__ void __launch_bounds__(mlptc::kTcThreads, 2) pointwiseMlpTcKernel(const MlpArgs a) {
    using namespace mlptc;
    constexpr int HC = kHC;
    using G1 = WarpGrid<HC>;
    using G2 = WarpGrid<BM>;
    extern __shared__ __align__(16) float smem[];
    const int kx = a.kxRows;  // a multiple of 8, <= kKX
    const int w1Stride = kx + 4;
    constexpr int w2Stride = kW2Stride;
    float* Xs = smem;                    // [kx][kPS]        x[n, k0.., p0..]
    float* W1h = Xs + kx * kPS;          // [HC][w1Stride]   W1[h0.., k0..], tf32 hi
    float* W1l = W1h + HC * w1Stride;    //                  and lo parts
    float* Hs = W1l + HC * w1Stride;     // [HC][kPS]        h chunk
    float* W2h = Hs + HC * kPS;          // [BM][w2Stride]   W2[o0.., h0..], hi
    float* W2l = W2h + BM * w2Stride;    //                  and lo

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    int b = blockIdx.x;
    const int ct = b % a.coutTiles;
    b /= a.coutTiles;
    const int tile = b % a.tilesP, n = b / a.tilesP;
    const int o0 = ct * BM, p0 = tile * kTP;
    const int cin = a.cin, ch = a.ch, cout = a.cout, P = a.P;
    // the warps' tiles: GEMM1 hidden rows r1.. x points c1..; GEMM2 output rows r2.. x points c2..
    const int r1 = (warp / G1::WN) * 16 * G1::MT, c1 = (warp % G1::WN) * 8 * G1::NT;
    const int r2 = (warp / G2::WN) * 16 * G2::MT, c2 = (warp % G2::WN) * 8 * G2::NT;
    const int mt2 = max(0, min(G2::MT, (cout - o0 - r2 + 15) / 16));  // m tiles with outputs in range

    const T* __restrict__ xn = static_cast<const T*>(a.x) + static_cast<size_t>(n) * cin * P + p0;
    const T* __restrict__ w1 = static_cast<const T*>(a.w1);
    const T* __restrict__ w2 = static_cast<const T*>(a.w2);
    const T* __restrict__ b1 = static_cast<const T*>(a.b1);
    const bool vec = a.vec != 0, resident = cin <= kx;

    float acc[G2::MT][G2::NT][4];
    zeroAcc(acc);

    gridDependencyWait();  // x, weights and r may come from the previous kernel (pdl.cuh)
    if (a.r) {  // the epilogue's r tile into L2 (a hint): one 128-byte line per thread
        constexpr int kLines = kTP * static_cast<int>(sizeof(T)) / 128;
        const int row = tid / kLines, o = o0 + row, p = p0 + (tid % kLines) * (128 / static_cast<int>(sizeof(T)));
        if (row < BM && o < cout && p < P) prefetchL2(static_cast<const T*>(a.r) + (static_cast<size_t>(n) * cout + o) * P + p);
    }
    for (int h0 = 0; h0 < ch; h0 += HC) {
        const int hc = min(HC, ch - h0);
        const int mt1 = max(0, min(G1::MT, (hc - r1 + 15) / 16));
        float hacc[G1::MT][G1::NT][4];
        zeroAcc(hacc);
        for (int k0 = 0; k0 < cin; k0 += kx) {
            const int kc = min(kx, cin - k0), kc8 = (kc + 7) & ~7;
            __syncthreads();  // the previous readers of Xs / W1s (and of Hs / W2s) are done
            if ((!resident || h0 == 0) && sizeof(T) == 4 && vec) {
                // x rows k0 .. k0+kc (zero rows up to kc8, zero past P) by cp.async: a warp copies one
                // row's 128 points (16 bytes per lane); waited for before the barrier below
                for (int q = tid; q < kc8 * (kTP / 4); q += kTcThreads) {
                    const int row = q / (kTP / 4), col = 4 * (q % (kTP / 4));
                    const bool in = row < kc && p0 + col < P;  // P % 4 == 0: all 4 or none
                    const T* src = in ? xn + static_cast<size_t>(k0 + row) * P + col : xn;
                    copy16Async(&Xs[row * kPS + col], reinterpret_cast<const float*>(src), in ? 16 : 0);
                }
            } else if (!resident || h0 == 0) {
                // the same through registers with conversion (fp16 / bf16) or element-wise bounds
                // (unaligned, P % 4 != 0): 4 quads per thread in flight at a time
                for (int q0 = tid; q0 < kc8 * (kTP / 4); q0 += 4 * kTcThreads) {
                    float4 v[4];
#pragma unroll
                    for (int u = 0; u < 4; ++u) {
                        const int q = q0 + u * kTcThreads, row = q / (kTP / 4), col = 4 * (q % (kTP / 4));
                        v[u] = (row < kc) ? load4(xn + static_cast<size_t>(k0 + row) * P + col, P - p0 - col, vec)
                                          : make_float4(0.f, 0.f, 0.f, 0.f);
                    }
#pragma unroll
                    for (int u = 0; u < 4; ++u) {
                        const int q = q0 + u * kTcThreads, row = q / (kTP / 4), col = 4 * (q % (kTP / 4));
                        if (row < kc8) *reinterpret_cast<float4*>(&Xs[row * kPS + col]) = v[u];
                    }
                }
            }
            // W1[h0 + j, k0 + k] split (zero past Ch and for k >= kc): consecutive threads along k
            stageSplit(W1h, W1l, w1Stride, w1 + static_cast<size_t>(h0) * cin + k0, cin, HC, kc8, hc, kc);
            // W2[o0 + o, h0 + j] split (zero past Cout and for j >= hc) for GEMM2, already now (the
            // barrier above ended the previous chunk's GEMM2), so that it overlaps the x copies
            if (k0 == 0) stageSplit(W2h, W2l, w2Stride, w2 + static_cast<size_t>(o0) * ch + h0, ch, BM, HC, cout - o0, hc);
            waitAllAsync();  // this thread's x copies (fp32)
            __syncthreads();
            if (mt1 > 0)
                warpGemm3xTf32<G1::MT, G1::NT>(hacc, W1h + r1 * w1Stride, W1l + r1 * w1Stride, w1Stride, Xs + c1, kPS, kc8, mt1, g, t);
        }
        // h = hact(Hc + b1) -> Hs (rows past Ch: 0). The barrier at the top of the k loop separated the
        // previous chunk's GEMM2 reads of Hs.
        storeHiddenChunk(hacc, Hs, b1 ? b1 + h0 : b1, hc, a.hact, r1, c1, g, t);
        __syncthreads();
        if (mt2 > 0)
            warpGemm3xTf32<G2::MT, G2::NT>(acc, W2h + r2 * w2Stride, W2l + r2 * w2Stride, w2Stride, Hs + c2, kPS, (hc + 7) & ~7, mt2, g, t);
    }
    allowDependentLaunch();

    storeOutputTile<T>(acc, a, n, o0, p0, r2, c2, g, t);
}

template <typename T, int BM>
cudaError_t launchMlpTcTile(const MlpArgs& a, int64_t blocks, cudaStream_t stream) {
    static std::atomic<unsigned long long> smemOptIn{0};  // per instantiation, bit per device
    const size_t smem = mlptc::smemFloats(a.kxRows, BM) * sizeof(float);
    cudaError_t err = allowSmem(pointwiseMlpTcKernel<T, BM>, smem, smemOptIn, mlptc::kSmemMax);
    if (err != cudaSuccess) return err;
    return launchKernel(pointwiseMlpTcKernel<T, BM>, dim3(static_cast<unsigned>(blocks)), dim3(mlptc::kTcThreads), smem, stream, a);
}

// Test hook (tests/cpp/test_cuda_mlp.cu --bench): 0 automatic, 16 / 32 / 64 forces the output tile BM.
inline std::atomic<int> gMlpTcTileOverride{0};

// Output tile BM = 16 / 32 / 64 from Cout (Cout > 64: tiles of 64), halved (down to 16) while the grid
// has fewer blocks than the GPU has SMs: smaller tiles give more blocks, each recomputing GEMM1.
inline int chooseMlpTcTile(int64_t batch, int cout, int P, int smCount) {
    const int forced = gMlpTcTileOverride.load();
    if (forced == 16 || forced == 32 || forced == 64) return forced;
    int bm = mlptc::tileForCout(cout);
    const int64_t tilesP = (P + mlptc::kTP - 1) / mlptc::kTP;
    while (bm > 16 && batch * tilesP * ((cout + bm - 1) / bm) < smCount) bm /= 2;
    return bm;
}

inline bool launchMlpTcPersistent(MlpArgs a, int64_t batch, int smCount, cudaStream_t stream, cudaError_t* err);

template <typename T>
cudaError_t launchMlpTc(MlpArgs a, int64_t batch, int smCount, cudaStream_t stream) {
    using namespace mlptc;
    cudaError_t err = cudaSuccess;
    // the persistent form (pointwise_mlp_tc_persistent.cuh) where it applies, unless a tile is forced
    if (sizeof(T) == 4 && gMlpTcTileOverride.load() == 0 && launchMlpTcPersistent(a, batch, smCount, stream, &err)) return err;
    const int bm = chooseMlpTcTile(batch, a.cout, a.P, smCount);
    const int64_t tilesP = (a.P + kTP - 1) / kTP, coutTiles = (a.cout + bm - 1) / bm;
    const int64_t blocks = batch * tilesP * coutTiles;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    a.tilesP = static_cast<int>(tilesP);
    a.coutTiles = static_cast<int>(coutTiles);
    a.kxRows = std::min((a.cin + 7) / 8 * 8, kKX);
    if (bm == 16) return launchMlpTcTile<T, 16>(a, blocks, stream);
    if (bm == 32) return launchMlpTcTile<T, 32>(a, blocks, stream);
    return launchMlpTcTile<T, 64>(a, blocks, stream);
}

static_assert(mlptc::smemFloats(mlptc::kKX, 64) * sizeof(float) <= mlptc::kSmemMax, "PointwiseMLP TC tile exceeds its shared-memory limit");

}  // namespace cuda
}  // namespace turbofno
