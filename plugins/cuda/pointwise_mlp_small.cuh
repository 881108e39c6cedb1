// The small-grid PointwiseMLP FMA kernel: all weights resident in shared memory, 16-, 32- or 64-point
// blocks, for grids of up to 16k points (Burgers' 1 x 256 and 32 x 256 points) where the tensor-core
// kernels' per-block instruction chain is the run time. Included by pointwise_mlp.cu after MlpArgs,
// load4 / store4 / prefetchL2 (it uses them); also run on the CPU by tests/gpu/mlp_host_emu.
//
//   h[n, j, s] = hact( sum_i W1[j, i] x[n, i, s] + b1[j] )                    j < Ch
//   y[n, o, s] = act( sum_j W2[o, j] h[n, j, s] + b2[o] + g[o] r[n, o, s] )    o < Cout
//
// Why: ncu of the 3xTF32 small-grid kernel (pointwise_mlp_tc64.cuh) at Burgers' channel MLP
// (64/32/64, 8192 points, tests/gpu/logs/mlp_tc64_tp32/ncu.log) shows ~16k warp instructions per
// 32-point block (the hi / lo splits, fragment shuffles and staging around 384 mma) issued at 8 cycles
// each: the block's serial chain, not the arithmetic, is its 8-11 us. In plain fp32 FMA the same
// block is 32 x 4096 = 131k FMA = 4096 warp FMAs plus one shared-memory wavefront per 8 of them.
//
// A block of 256 threads (8 warps) owns TP consecutive points of one batch item and every channel:
//   0. stage W1 transposed [Cin][ChP + 4], W2 transposed [Ch][CoutP + 4] (or, for Cout <= 4, W2 as
//      [Cout][ChP]) and the x tile [Cin][TP] in shared memory (fp32; zero past Ch / Cout / P; the
//      global reads are 4-element vectors along the contiguous axis, all in flight before the stores);
//   1. GEMM1: warp tiles of RW hidden rows x TP points, dealt round-robin to the 8 warps; a lane owns
//      4 rows x 4 points (16 accumulators) and per input channel reads one float4 of W1 (the kLR
//      row lanes: contiguous) and one of x (the kLP point lanes: contiguous), 2 wavefronts per 16 FMA;
//      h = hact(acc + b1) goes to Hs [Ch][TP];
//   2. GEMM2 the same way over output rows (K = Ch) into registers, then the epilogue: + b2 + g r
//      (each thread reads its own r elements, then writes the same y elements: y may alias r), act,
//      store (16-byte vectors for fp32, 8-byte for fp16 / bf16 where P % 4 == 0 and the bases are
//      aligned, else element-wise with bounds checks).
//   Cout <= 4 (projections): no Hs round trip; each GEMM1 lane multiplies its 4 x 4 h values by W2
//   into Cout x 4 partial sums, added across the row lanes by shuffles and across the warps through
//   shared memory, both in a fixed order.
// Lane l = rl * kLP + pl: pl = 0..kLP-1 along the points, rl = 0..kLR-1 along the rows (kLP = TP / 4,
// kLR = 32 / kLP, RW = 4 kLR rows per warp tile: TP 16 -> 32 rows, 32 -> 16, 64 -> 8).
// fp32 FMA throughout, fixed summation order (deterministic, no atomics), fp32 h.
// Shared memory (floats): Cin (ChP + 4) + Ch (CoutP + 4) + Cin TP + Ch TP (Cout <= 4: Cin (ChP + 4) +
// Cout ChP + Cin TP + 8 Cout TP); 28 KB at 64/32/64 TP 32, 50 KB lifting 2/128/64, 41 KB projection
// 64/128/1. Limits: Cin, Cout <= 64 and the layout within kSmemBudget (mlpSmallFits).
#pragma once

#include "common.cuh"
#include "pdl.cuh"
#include "sm_count.h"
#include "smem_limit.h"

namespace turbofno {
namespace cuda {
namespace mlpsmall {

constexpr int kThreads = 256;  // 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kMaxChannels = 64;  // Cin and Cout
constexpr int kRegOutMax = 4;     // Cout up to this: GEMM2 from the GEMM1 registers

// The lane geometry of TP points per block.
template <int TP>
struct Geo {
    static_assert(TP == 16 || TP == 32 || TP == 64, "16-, 32- or 64-point tiles");
    static constexpr int kLP = TP / 4;    // lanes along the points (4 points each)
    static constexpr int kLR = 32 / kLP;  // lanes along the rows (4 rows each)
    static constexpr int kRW = 4 * kLR;   // rows per warp tile
};

__host__ __device__ constexpr int roundUp(int v, int m) { return (v + m - 1) / m * m; }
__host__ __device__ constexpr int rowsPerWarpTile(int tp) { return 4 * (32 / (tp / 4)); }

// The kernel's shared memory in floats (see the header).
__host__ __device__ constexpr size_t smemFloats(int cin, int ch, int cout, int tp) {
    const int rw = rowsPerWarpTile(tp), chP = roundUp(ch, rw);
    if (cout <= kRegOutMax) {
        return static_cast<size_t>(cin) * (chP + 4) + static_cast<size_t>(cout) * chP + static_cast<size_t>(cin) * tp +
               static_cast<size_t>(kWarps) * cout * tp;
    }
    const int coutP = roundUp(cout, rw);
    return static_cast<size_t>(cin) * (chP + 4) + static_cast<size_t>(ch) * (coutP + 4) + static_cast<size_t>(cin) * tp +
           static_cast<size_t>(ch) * tp;
}

}  // namespace mlpsmall

// Whether the small-grid FMA kernel takes the call (every tile's layout within the budget).
inline bool mlpSmallFits(const MlpArgs& a) {
    if (a.cin > mlpsmall::kMaxChannels || a.cout > mlpsmall::kMaxChannels) return false;
    for (int tp : {16, 32, 64})
        if (mlpsmall::smemFloats(a.cin, a.ch, a.cout, tp) * sizeof(float) > kSmemBudget) return false;
    return true;
}

// Stages src[rows][cols] (global, row-major, T) into shared memory as dst[c * ldT + r] (transposed,
// trans = true) or dst[r * ldT + c]: 4-element vector reads along the contiguous axis (all of a
// thread's reads of a round before its stores), scattered stores. Padding is written by the caller.
template <typename T>
__device__ __forceinline__ void mlpSmallStage(float* dst, const T* __restrict__ src, int rows, int cols, int ldT, bool trans,
                                              bool aligned) {
    constexpr int kRound = 8;  // vectors in flight per thread
    const int total = rows * cols;
    for (int base = 4 * threadIdx.x; base < total; base += 4 * mlpsmall::kThreads * kRound) {
        float4 v[kRound];
#pragma unroll
        for (int u = 0; u < kRound; ++u) {
            const int e = base + 4 * mlpsmall::kThreads * u;
            v[u] = e < total ? load4(src + e, total - e, aligned) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < kRound; ++u) {
            const int e0 = base + 4 * mlpsmall::kThreads * u;
            const float f[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int e = e0 + i;
                if (e >= total) break;
                const int r = e / cols, c = e - r * cols;
                dst[trans ? c * ldT + r : r * ldT + c] = f[i];
            }
        }
    }
}

// grid (N * tilesP), 256 threads, dynamic shared memory mlpsmall::smemFloats(Cin, Ch, Cout, TP) floats.
template <typename T, int TP, bool REGOUT>
__global__ void __launch_bounds__(mlpsmall::kThreads) pointwiseMlpSmallKernel(const MlpArgs a) {
    using G = mlpsmall::Geo<TP>;
    constexpr int kRW = G::kRW;
    extern __shared__ __align__(16) float smem[];
    const int chP = mlpsmall::roundUp(a.ch, kRW), chS = chP + 4;
    const int coutP = mlpsmall::roundUp(a.cout, kRW), coS = coutP + 4;
    float* W1t = smem;                                                // [Cin][chS]
    float* W2s = W1t + a.cin * chS;                                   // REGOUT: [Cout][chP], else [Ch][coS]
    float* Xs = W2s + (REGOUT ? a.cout * chP : a.ch * coS);           // [Cin][TP]
    float* Hs = Xs + a.cin * TP;                                      // REGOUT: [8 warps][Cout][TP], else [Ch][TP]

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int pl = lane % G::kLP, rl = lane / G::kLP;
    const int tile = blockIdx.x % a.tilesP, n = blockIdx.x / a.tilesP;
    const int p0 = tile * TP;
    const bool vec = a.vec != 0;
    const T* __restrict__ x = static_cast<const T*>(a.x) + static_cast<size_t>(n) * a.cin * a.P + p0;
    const T* __restrict__ r = static_cast<const T*>(a.r);
    const size_t rowBase = static_cast<size_t>(n) * a.cout * a.P + p0;  // y / r offset of (n, o = 0, p0)

    gridDependencyWait();  // x, weights and r may come from the previous kernel (pdl.cuh)
    if (r) {  // the epilogue's r rows into L2 now (a hint: overlaps their DRAM reads with the GEMMs)
        for (int o = threadIdx.x; o < a.cout; o += mlpsmall::kThreads) prefetchL2(r + rowBase + static_cast<size_t>(o) * a.P);
    }
    // 0. staging (the weight reads are vectors where T's 4-element groups are aligned)
    const bool w1Aligned = (reinterpret_cast<uintptr_t>(a.w1) % (4 * sizeof(T))) == 0;
    const bool w2Aligned = (reinterpret_cast<uintptr_t>(a.w2) % (4 * sizeof(T))) == 0;
    {
        // x tile: TP / 4 vectors per channel row; a pass covers 256 / (TP / 4) rows
        constexpr int kRowsPerPass = mlpsmall::kThreads / G::kLP;
        const int q = threadIdx.x % G::kLP, row0 = threadIdx.x / G::kLP;
        const int left = a.P - p0 - 4 * q;
        for (int k = row0; k < a.cin; k += kRowsPerPass * 2) {
            const int k2 = k + kRowsPerPass;
            const float4 v0 = load4(x + static_cast<size_t>(k) * a.P + 4 * q, left, vec);
            const float4 v1 = k2 < a.cin ? load4(x + static_cast<size_t>(k2) * a.P + 4 * q, left, vec) : make_float4(0.f, 0.f, 0.f, 0.f);
            *reinterpret_cast<float4*>(&Xs[k * TP + 4 * q]) = v0;
            if (k2 < a.cin) *reinterpret_cast<float4*>(&Xs[k2 * TP + 4 * q]) = v1;
        }
    }
    mlpSmallStage(W1t, static_cast<const T*>(a.w1), a.ch, a.cin, chS, true, w1Aligned);  // W1t[k][j] = W1[j][k]
    for (int e = threadIdx.x; e < a.cin * (chS - a.ch); e += mlpsmall::kThreads) {      // zero columns j >= Ch
        const int k = e / (chS - a.ch), j = a.ch + e % (chS - a.ch);
        W1t[k * chS + j] = 0.f;
    }
    if constexpr (REGOUT) {
        mlpSmallStage(W2s, static_cast<const T*>(a.w2), a.cout, a.ch, chP, false, w2Aligned);  // W2s[o][j] = W2[o][j]
        for (int e = threadIdx.x; e < a.cout * (chP - a.ch); e += mlpsmall::kThreads) {
            const int o = e / (chP - a.ch), j = a.ch + e % (chP - a.ch);
            W2s[o * chP + j] = 0.f;
        }
    } else {
        mlpSmallStage(W2s, static_cast<const T*>(a.w2), a.cout, a.ch, coS, true, w2Aligned);  // W2s[j][o] = W2[o][j]
        for (int e = threadIdx.x; e < a.ch * (coS - a.cout); e += mlpsmall::kThreads) {
            const int j = e / (coS - a.cout), o = a.cout + e % (coS - a.cout);
            W2s[j * coS + o] = 0.f;
        }
    }
    __syncthreads();

    const T* __restrict__ b1 = static_cast<const T*>(a.b1);
    const T* __restrict__ b2 = static_cast<const T*>(a.b2);
    const T* __restrict__ g = static_cast<const T*>(a.g);
    T* y = static_cast<T*>(a.y);
    const int left = a.P - p0 - 4 * pl;  // this lane's points in bounds (may be <= 0)

    // 1. GEMM1 (+ GEMM2 from registers for REGOUT)
    float part[REGOUT ? mlpsmall::kRegOutMax : 1][4];
#pragma unroll
    for (int o = 0; o < (REGOUT ? mlpsmall::kRegOutMax : 1); ++o) part[o][0] = part[o][1] = part[o][2] = part[o][3] = 0.f;
    for (int row0 = warp * kRW; row0 < chP; row0 += mlpsmall::kWarps * kRW) {
        const int j0 = row0 + 4 * rl;
        float acc[4][4] = {};
#pragma unroll 4
        for (int k = 0; k < a.cin; ++k) {
            const float4 w = *reinterpret_cast<const float4*>(&W1t[k * chS + j0]);
            const float4 xv = *reinterpret_cast<const float4*>(&Xs[k * TP + 4 * pl]);
            const float wv[4] = {w.x, w.y, w.z, w.w}, xq[4] = {xv.x, xv.y, xv.z, xv.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int q = 0; q < 4; ++q) acc[i][q] = fmaf(wv[i], xq[q], acc[i][q]);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int j = j0 + i;
            const float bias = (b1 && j < a.ch) ? toFloat(b1[j]) : 0.f;
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[i][q] += bias;
            applyActivationAll(acc[i], a.hact);
        }
        if constexpr (REGOUT) {
            // rows past Ch meet zero W2 columns
#pragma unroll
            for (int o = 0; o < mlpsmall::kRegOutMax; ++o) {
                if (o >= a.cout) break;
                const float4 w = *reinterpret_cast<const float4*>(&W2s[o * chP + j0]);
                const float wv[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int q = 0; q < 4; ++q) part[o][q] = fmaf(wv[i], acc[i][q], part[o][q]);
            }
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i)
                if (j0 + i < a.ch) *reinterpret_cast<float4*>(&Hs[(j0 + i) * TP + 4 * pl]) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        }
    }

    if constexpr (REGOUT) {
        // the row lanes' partial sums (xor tree over the rl bits), then the warps' through shared memory
#pragma unroll
        for (int off = G::kLP; off < 32; off *= 2)
#pragma unroll
            for (int o = 0; o < mlpsmall::kRegOutMax; ++o)
#pragma unroll
                for (int q = 0; q < 4; ++q) part[o][q] += __shfl_xor_sync(0xffffffffu, part[o][q], off);
        if (rl == 0) {
#pragma unroll
            for (int o = 0; o < mlpsmall::kRegOutMax; ++o)
                if (o < a.cout) *reinterpret_cast<float4*>(&Hs[(warp * a.cout + o) * TP + 4 * pl]) = make_float4(part[o][0], part[o][1], part[o][2], part[o][3]);
        }
        __syncthreads();
        allowDependentLaunch();
        for (int e = threadIdx.x; e < a.cout * G::kLP; e += mlpsmall::kThreads) {
            const int o = e / G::kLP, q = e % G::kLP, lft = a.P - p0 - 4 * q;
            if (lft <= 0) continue;
            float v[4] = {0.f, 0.f, 0.f, 0.f};
            for (int w = 0; w < mlpsmall::kWarps; ++w) {
                const float4 s = *reinterpret_cast<const float4*>(&Hs[(w * a.cout + o) * TP + 4 * q]);
                v[0] += s.x;
                v[1] += s.y;
                v[2] += s.z;
                v[3] += s.w;
            }
            const float bias = b2 ? toFloat(b2[o]) : 0.f;
            const size_t off = rowBase + static_cast<size_t>(o) * a.P + 4 * q;
            float4 rv = make_float4(0.f, 0.f, 0.f, 0.f);
            if (r) rv = load4(r + off, lft, vec);
            const float gate = (r && g) ? toFloat(g[o]) : 1.f;
            float out[4] = {v[0] + bias + gate * rv.x, v[1] + bias + gate * rv.y, v[2] + bias + gate * rv.z, v[3] + bias + gate * rv.w};
            applyActivationAll(out, a.act);
            store4(y + off, make_float4(out[0], out[1], out[2], out[3]), lft, vec);
        }
        return;
    } else {
        __syncthreads();
        allowDependentLaunch();
        // 2. GEMM2 and the epilogue
        for (int row0 = warp * kRW; row0 < coutP; row0 += mlpsmall::kWarps * kRW) {
            const int o0 = row0 + 4 * rl;
            float acc[4][4] = {};
#pragma unroll 4
            for (int j = 0; j < a.ch; ++j) {
                const float4 w = *reinterpret_cast<const float4*>(&W2s[j * coS + o0]);
                const float4 hv = *reinterpret_cast<const float4*>(&Hs[j * TP + 4 * pl]);
                const float wv[4] = {w.x, w.y, w.z, w.w}, hq[4] = {hv.x, hv.y, hv.z, hv.w};
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int q = 0; q < 4; ++q) acc[i][q] = fmaf(wv[i], hq[q], acc[i][q]);
            }
            if (left <= 0) continue;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int o = o0 + i;
                if (o >= a.cout) break;
                const float bias = b2 ? toFloat(b2[o]) : 0.f;
                const size_t off = rowBase + static_cast<size_t>(o) * a.P + 4 * pl;
                float4 rv = make_float4(0.f, 0.f, 0.f, 0.f);
                if (r) rv = load4(r + off, left, vec);
                const float gate = (r && g) ? toFloat(g[o]) : 1.f;
                float out[4] = {acc[i][0] + bias + gate * rv.x, acc[i][1] + bias + gate * rv.y, acc[i][2] + bias + gate * rv.z,
                                acc[i][3] + bias + gate * rv.w};
                applyActivationAll(out, a.act);
                store4(y + off, make_float4(out[0], out[1], out[2], out[3]), left, vec);
            }
        }
    }
}

// Tile: the largest of 64 / 32 points that gives at least two blocks per SM, else 16 (sm_count.h).
// Test hook: gMlpTcTileOverride 16 / 32 / 64 forces it.
inline int chooseMlpSmallTile(int64_t batch, int P, int smCount) {
    const int forced = gMlpTcTileOverride.load();
    if (forced == 16 || forced == 32 || forced == 64) return forced;
    for (int tp : {64, 32})
        if (!underTwoBlocksPerSm(batch * ((P + tp - 1) / tp), smCount)) return tp;
    return 16;
}

template <typename T, int TP, bool REGOUT>
cudaError_t launchMlpSmallFixed(const MlpArgs& a, int64_t blocks, cudaStream_t stream) {
    static std::atomic<unsigned long long> smemOptIn{0};  // per instantiation, bit per device
    const size_t smem = mlpsmall::smemFloats(a.cin, a.ch, a.cout, TP) * sizeof(float);
    const cudaError_t err = allowSmem(pointwiseMlpSmallKernel<T, TP, REGOUT>, smem, smemOptIn);
    if (err != cudaSuccess) return err;
    return launchKernel(pointwiseMlpSmallKernel<T, TP, REGOUT>, dim3(static_cast<unsigned>(blocks)), dim3(mlpsmall::kThreads), smem,
                        stream, a);
}

// The caller checked mlpSmallFits(a).
template <typename T>
cudaError_t launchMlpSmall(MlpArgs a, int64_t batch, int smCount, cudaStream_t stream) {
    const int tp = chooseMlpSmallTile(batch, a.P, smCount);
    const int64_t tilesP = (a.P + tp - 1) / tp, blocks = batch * tilesP;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    a.tilesP = static_cast<int>(tilesP);
    const bool regOut = a.cout <= mlpsmall::kRegOutMax;
    if (tp == 16) return regOut ? launchMlpSmallFixed<T, 16, true>(a, blocks, stream) : launchMlpSmallFixed<T, 16, false>(a, blocks, stream);
    if (tp == 32) return regOut ? launchMlpSmallFixed<T, 32, true>(a, blocks, stream) : launchMlpSmallFixed<T, 32, false>(a, blocks, stream);
    return regOut ? launchMlpSmallFixed<T, 64, true>(a, blocks, stream) : launchMlpSmallFixed<T, 64, false>(a, blocks, stream);
}

}  // namespace cuda
}  // namespace turbofno
