// The PointwiseMLP kernel on tensor cores in fp32 accuracy (3xTF32, mma_tf32.cuh), included by
// pointwise_mlp.cu after MlpArgs, load4 / store4 / prefetchL2 (it uses them). Also run on the CPU by
// tests/gpu/mlp_host_emu (TFNO_MLP_HOST_EMU: its host mma_tf32.cuh emulates the warp's mma).
//
//   h[n, j, s] = hact( sum_i W1[j, i] x[n, i, s] + b1[j] )                    j < Ch
//   y[n, o, s] = act( sum_j W2[o, j] h[n, j, s] + b2[o] + g[o] r[n, o, s] )    o < Cout
//
// A block of 256 threads (8 warps) owns kTP = 128 consecutive points of one batch item n and a tile of
// BM = 16, 32 or 64 output channels (from Cout; Cout > 64: more blocks, each recomputing h). Both
// layers are GEMMs with the points as the N dimension:
//   1. The x tile [Cin][128] is staged once in shared memory (fp32, zero past P and up to a multiple
//      of 8 channels) and stays resident for all hidden chunks when Cin <= kKX = 64; larger Cin goes
//      in chunks of 64 channels, re-read (from L2) per hidden chunk.
//   2. The hidden layer goes in chunks of HC = 32 or 64 channels (from Ch): GEMM1 Hc[HC][128] =
//      W1[h0.., :] X, then h = hact(Hc + b1) into shared memory Hs (rows past Ch exactly 0).
//   3. GEMM2 acc[BM][128] += W2[o0.., h0..] Hs, the accumulators staying in registers across chunks.
// Warp tiling of an M x 128 product (WarpGrid<M>): M = 64 -> 2 x 4 warps of 32 x 32 (2 x 4 mma tiles
// of 16 x 8), M = 32 -> 1 x 8 warps of 32 x 16, M = 16 -> 1 x 8 warps of 16 x 16. Warp m-tiles past
// Ch (GEMM1) or Cout (GEMM2) skip their mma (warp-uniform).
// 3xTF32: each operand split into hi = tf32(v) and lo = v - hi on the fly from fp32 shared memory;
// each k8 step's three products go into fresh registers and are then added to the fp32 accumulators
// with an ordinary add (the tensor cores' internal accumulation is not round-to-nearest: short chains
// keep fp32 accuracy). Fixed summation order: deterministic, no atomics.
// Epilogue straight from the C fragments (no shared-memory round trip): a thread owns points
// (2t, 2t + 1) of 8-point groups of rows g, g + 8: + b2 + g r (the thread reads its own r elements
// before it writes the same y elements: y may alias r), act, 8-byte (fp32) / 4-byte (fp16, bf16)
// pairs where P is even and r / y are aligned to 2 elements, else element-wise with bounds checks; a
// quad of lanes writes 32 consecutive bytes of a row (whole sectors for fp32).
// Shared memory (floats): Xs [kx][136], W1s [HC][kx + 4], Hs [HC][136], W2s [BM][HC + 4]; the strides
// make every fragment read conflict-free (136 = 8 mod 32: B reads at bank 8 t + g; kx + 4 and HC + 4
// = 4 mod 8: A reads at 4 g + t) and the Hs float2 stores too (8 g + 2 t per half warp). At Cin = 64,
// HC = 64, BM = 64: 104 KB (2 blocks per SM); HC = 32: 70 KB (3 blocks per SM).
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
constexpr int kPS = kTP + 8;   // row stride of Xs and Hs
constexpr size_t kSmemMax = 112 * 1024;  // opt-in limit of the largest variant (104 KB)

// Warps of an M x kTP product: MT m16 tiles per warp, WM x WN warps, NT n8 tiles per warp.
template <int M>
struct WarpGrid {
    static constexpr int MT = M >= 32 ? 2 : 1;
    static constexpr int WM = M / (16 * MT);
    static constexpr int WN = kTcThreads / 32 / WM;
    static constexpr int NT = kTP / (8 * WN);
    static_assert(WM * WN * 32 == kTcThreads && NT * 8 * WN == kTP, "warp grid");
};

__host__ __device__ constexpr size_t smemFloats(int kx, int hc, int bm) {
    return static_cast<size_t>(kx) * kPS + static_cast<size_t>(hc) * (kx + 4) + static_cast<size_t>(hc) * kPS +
           static_cast<size_t>(bm) * (hc + 4);
}

// acc[MT][NT] += A B for one warp: A rows 16 mi + (g, g + 8) of As (row-major, stride lda), B rows k of
// Bs (stride ldb, the warp's 8 NT columns from Bs[0]), K a multiple of 8. Only the first mtValid m tiles
// (warp-uniform) are computed.
template <int MT, int NT>
__device__ __forceinline__ void warpGemm3xTf32(float (&acc)[MT][NT][4], const float* As, int lda, const float* Bs, int ldb, int K,
                                               int mtValid, int g, int t) {
#pragma unroll 1
    for (int k = 0; k < K; k += 8) {
        Tf32Pair af[MT][4];
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
#pragma unroll
            for (int r = 0; r < 4; ++r) af[mi][r] = splitTf32(As[(16 * mi + g + 8 * (r & 1)) * lda + k + t + 4 * (r >> 1)]);
#pragma unroll
        for (int ni = 0; ni < NT; ++ni) {
            Tf32Pair bf[2];
#pragma unroll
            for (int r = 0; r < 2; ++r) bf[r] = splitTf32(Bs[(k + t + 4 * r) * ldb + 8 * ni + g]);
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
// 4 bytes global -> shared (cp.async), zero-filled when !valid (src stays a valid address).
__device__ __forceinline__ void copy4Async(float* dstShared, const float* src, bool valid) {
#if defined(__CUDA_ARCH__)
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(dstShared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 4 : 0) : "memory");
#else
    *dstShared = valid ? *src : 0.f;
#endif
}
__device__ __forceinline__ void waitAllAsync() {
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
#endif
}

// dst[i][j] (row stride dstStride) = src[i * srcStride + j] for i < rows, j < cols (zero where
// i >= validRows or j >= validCols), by the whole block; rows * cols <= 16 * kTcThreads. Every load is
// in flight before the first one is waited for (a weight block is ~16 loads per thread from L2: one at
// a time they would serialize into microseconds): cp.async for fp32, batches of 8 through registers
// for fp16 / bf16. The caller's barrier (and waitAllAsync for fp32) completes it.
template <typename T>
__device__ __forceinline__ void stageMatrix(float* dst, int dstStride, const T* src, int srcStride, int rows, int cols, int validRows,
                                            int validCols) {
    const int total = rows * cols;
    if constexpr (sizeof(T) == 4) {
        for (int e = threadIdx.x; e < total; e += kTcThreads) {
            const int i = e / cols, j = e % cols;
            const bool in = i < validRows && j < validCols;
            copy4Async(&dst[i * dstStride + j], reinterpret_cast<const float*>(in ? src + static_cast<size_t>(i) * srcStride + j : src), in);
        }
    } else {
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
                if (e < total) dst[(e / cols) * dstStride + e % cols] = v[u];
            }
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

}  // namespace mlptc

// grid (N * tilesP * coutTiles), tilesP = ceil(P / 128), coutTiles = ceil(Cout / BM) (Cout tile
// fastest: neighbours share x in L2), 256 threads, dynamic shared memory smemFloats(kxRows, HC, BM).
template <typename T, int HC, int BM>
__global__ void __launch_bounds__(mlptc::kTcThreads, 2) pointwiseMlpTcKernel(const MlpArgs a) {
    using namespace mlptc;
    using G1 = WarpGrid<HC>;
    using G2 = WarpGrid<BM>;
    extern __shared__ __align__(16) float smem[];
    const int kx = a.kxRows;  // a multiple of 8, <= kKX
    const int w1Stride = kx + 4;
    constexpr int w2Stride = HC + 4;
    float* Xs = smem;                   // [kx][kPS]        x[n, k0.., p0..]
    float* W1s = Xs + kx * kPS;         // [HC][w1Stride]   W1[h0.., k0..]
    float* Hs = W1s + HC * w1Stride;    // [HC][kPS]        h chunk
    float* W2s = Hs + HC * kPS;         // [BM][w2Stride]   W2[o0.., h0..]

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
#pragma unroll
    for (int mi = 0; mi < G2::MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < G2::NT; ++ni)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[mi][ni][r] = 0.f;

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
#pragma unroll
        for (int mi = 0; mi < G1::MT; ++mi)
#pragma unroll
            for (int ni = 0; ni < G1::NT; ++ni)
#pragma unroll
                for (int r = 0; r < 4; ++r) hacc[mi][ni][r] = 0.f;
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
            // W1s[j][k] = W1[h0 + j, k0 + k] (zero past Ch and for k >= kc): consecutive threads along k
            stageMatrix(W1s, w1Stride, w1 + static_cast<size_t>(h0) * cin + k0, cin, HC, kc8, hc, kc);
            // W2s[o][j] = W2[o0 + o, h0 + j] (zero past Cout and for j >= hc) for GEMM2, already now (the
            // barrier above ended the previous chunk's GEMM2), so that its loads overlap GEMM1
            if (k0 == 0) stageMatrix(W2s, w2Stride, w2 + static_cast<size_t>(o0) * ch + h0, ch, BM, HC, cout - o0, hc);
            waitAllAsync();  // this thread's x, W1 (and W2) copies (fp32)
            __syncthreads();
            if (mt1 > 0) warpGemm3xTf32<G1::MT, G1::NT>(hacc, W1s + r1 * w1Stride, w1Stride, Xs + c1, kPS, kc8, mt1, g, t);
        }
        // h = hact(Hc + b1) -> Hs (rows past Ch: 0). The barrier at the top of the k loop separated the
        // previous chunk's GEMM2 reads of Hs.
#pragma unroll
        for (int mi = 0; mi < G1::MT; ++mi)
#pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
                const int row = r1 + 16 * mi + g + 8 * hh;
                const bool in = row < hc;
                const float bias = (b1 && in) ? toFloat(b1[h0 + row]) : 0.f;
#pragma unroll
                for (int ni = 0; ni < G1::NT; ++ni) {
                    const float v0 = in ? applyActivation(hacc[mi][ni][2 * hh] + bias, a.hact) : 0.f;
                    const float v1 = in ? applyActivation(hacc[mi][ni][2 * hh + 1] + bias, a.hact) : 0.f;
                    *reinterpret_cast<float2*>(&Hs[row * kPS + c1 + 8 * ni + 2 * t]) = make_float2(v0, v1);
                }
            }
        __syncthreads();
        if (mt2 > 0) warpGemm3xTf32<G2::MT, G2::NT>(acc, W2s + r2 * w2Stride, w2Stride, Hs + c2, kPS, (hc + 7) & ~7, mt2, g, t);
    }
    allowDependentLaunch();

    // epilogue from the C fragments: rows r2 + 16 mi + g (+ 8), points c2 + 8 ni + 2 t (+ 1). First
    // + b2 + g r into the accumulators with every r load issued (y may alias r: a store in between
    // would serialize each load behind the previous store), then act and the stores.
    const T* b2 = static_cast<const T*>(a.b2);
    const T* gt = static_cast<const T*>(a.g);
    const T* rp = static_cast<const T*>(a.r);
    T* y = static_cast<T*>(a.y);
    const bool vec2 = a.vec2 != 0;
    const int pBase = p0 + c2 + 2 * t;
#pragma unroll
    for (int mi = 0; mi < G2::MT; ++mi)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            const int o = o0 + r2 + 16 * mi + g + 8 * hh;
            if (o >= cout) continue;
            const float bias = b2 ? toFloat(b2[o]) : 0.f;
            const float gate = gt ? toFloat(gt[o]) : 1.f;
            const T* rrow = rp ? rp + (static_cast<size_t>(n) * cout + o) * P : nullptr;
#pragma unroll
            for (int ni = 0; ni < G2::NT; ++ni) {
                const int p = pBase + 8 * ni;
                float2 rv = make_float2(0.f, 0.f);
                if (rrow && p < P) rv = load2(rrow + p, P - p, vec2);
                acc[mi][ni][2 * hh] = fmaf(gate, rv.x, acc[mi][ni][2 * hh] + bias);
                acc[mi][ni][2 * hh + 1] = fmaf(gate, rv.y, acc[mi][ni][2 * hh + 1] + bias);
            }
        }
#pragma unroll
    for (int mi = 0; mi < G2::MT; ++mi)
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            const int o = o0 + r2 + 16 * mi + g + 8 * hh;
            if (o >= cout) continue;
            T* yrow = y + (static_cast<size_t>(n) * cout + o) * P;
#pragma unroll
            for (int ni = 0; ni < G2::NT; ++ni) {
                const int p = pBase + 8 * ni;
                if (p >= P) continue;
                const float2 v = make_float2(applyActivation(acc[mi][ni][2 * hh], a.act), applyActivation(acc[mi][ni][2 * hh + 1], a.act));
                store2(yrow + p, v, P - p, vec2);
            }
        }
}

template <typename T, int HC, int BM>
cudaError_t launchMlpTcTile(const MlpArgs& a, int64_t blocks, cudaStream_t stream) {
    static std::atomic<unsigned long long> smemOptIn{0};  // per instantiation, bit per device
    const size_t smem = mlptc::smemFloats(a.kxRows, HC, BM) * sizeof(float);
    cudaError_t err = allowSmem(pointwiseMlpTcKernel<T, HC, BM>, smem, smemOptIn, mlptc::kSmemMax);
    if (err != cudaSuccess) return err;
    return launchKernel(pointwiseMlpTcKernel<T, HC, BM>, dim3(static_cast<unsigned>(blocks)), dim3(mlptc::kTcThreads), smem, stream, a);
}

// Test hook (tests/cpp/test_cuda_mlp.cu --bench): 0 automatic, 16 / 32 / 64 forces the output tile BM.
inline std::atomic<int> gMlpTcTileOverride{0};

// Output tile BM = 16 / 32 / 64 from Cout (Cout > 64: tiles of 64), halved (down to 16) while the grid
// has fewer blocks than the GPU has SMs: smaller tiles give more blocks, each recomputing GEMM1.
// Hidden chunk HC = 32 where Ch <= 32, else 64.
inline int chooseMlpTcTile(int64_t batch, int cout, int P, int smCount) {
    const int forced = gMlpTcTileOverride.load();
    if (forced == 16 || forced == 32 || forced == 64) return forced;
    int bm = cout <= 16 ? 16 : cout <= 32 ? 32 : 64;
    const int64_t tilesP = (P + mlptc::kTP - 1) / mlptc::kTP;
    while (bm > 16 && batch * tilesP * ((cout + bm - 1) / bm) < smCount) bm /= 2;
    return bm;
}

template <typename T>
cudaError_t launchMlpTc(MlpArgs a, int64_t batch, int smCount, cudaStream_t stream) {
    using namespace mlptc;
    const int bm = chooseMlpTcTile(batch, a.cout, a.P, smCount);
    const int64_t tilesP = (a.P + kTP - 1) / kTP, coutTiles = (a.cout + bm - 1) / bm;
    const int64_t blocks = batch * tilesP * coutTiles;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    a.tilesP = static_cast<int>(tilesP);
    a.coutTiles = static_cast<int>(coutTiles);
    a.kxRows = std::min((a.cin + 7) / 8 * 8, kKX);
    if (a.ch <= 32) {
        if (bm == 16) return launchMlpTcTile<T, 32, 16>(a, blocks, stream);
        if (bm == 32) return launchMlpTcTile<T, 32, 32>(a, blocks, stream);
        return launchMlpTcTile<T, 32, 64>(a, blocks, stream);
    }
    if (bm == 16) return launchMlpTcTile<T, 64, 16>(a, blocks, stream);
    if (bm == 32) return launchMlpTcTile<T, 64, 32>(a, blocks, stream);
    return launchMlpTcTile<T, 64, 64>(a, blocks, stream);
}

static_assert(mlptc::smemFloats(mlptc::kKX, 64, 64) * sizeof(float) <= mlptc::kSmemMax, "PointwiseMLP TC tile exceeds its shared-memory limit");

}  // namespace cuda
}  // namespace turbofno
