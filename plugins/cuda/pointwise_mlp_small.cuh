// The small-grid PointwiseMLP FMA kernel: all weights resident in shared memory, 16-, 32- or 64-point
// blocks, for grids below 32k points (Burgers' 1 x 256 and 32 x 256 points) where the tensor-core
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
//   0. stage W1 [Ch][ld1], W2 [Cout][ld2] and the x tile [Cin4][TP] in shared memory, row-major as in
//      memory (4-element vector reads and 16-byte stores, zero past Cin / Ch / P up to a multiple of 4;
//      a thread's reads of a round are all in flight before its stores); the weights before the
//      grid-dependency wait when the caller says they are constant (MlpArgs::wconst);
//   1. GEMM1 Hc[Ch, TP] = W1 X, 2. GEMM2 Y[Cout, TP] = W2 H, each in warp tiles of RW rows x TP
//      points: a lane owns 4 rows (rl, rl + kLR, ..: consecutive rows across the lanes, so that the
//      row-major weight reads are conflict-free with ld = 4 mod 32) x 4 points and per 4 k reads 4
//      float4 of W and 4 of x / h for 64 FMA. With fewer tiles than warps, the K range is split across
//      warps (S slices) whose partial tiles are added through shared memory in a fixed order; rows past
//      Ch / Cout read the last row (clamped) and are dropped;
//   1'. h = hact(Hc + b1) into Hs [Ch4][TP] (rows Ch..Ch4 zero);
//   2'. the epilogue: + b2 + g r (each thread reads its own r elements, then writes the same y
//      elements: y may alias r), act, store (16-byte vectors for fp32, 8-byte for fp16 / bf16 where
//      P % 4 == 0 and the bases are aligned, else element-wise with bounds checks).
// Lane l = rl * kLP + pl: pl = 0..kLP-1 along the points, rl = 0..kLR-1 along the rows (kLP = TP / 4,
// kLR = 32 / kLP, RW = 4 kLR rows per warp tile: TP 16 -> 32 rows, 32 -> 16, 64 -> 8; RW x TP = 512).
// fp32 FMA throughout, fixed summation order (deterministic, no atomics), fp32 h.
// Shared memory (floats): Ch ld1 + Cout ld2 + Cin4 TP + Ch4 TP + 8 x 512 (the slices' partials);
// ld = 4 for 4 channels, else the channels rounded up to 32, + 4. Limits: Cin, Cout <= 64 and the
// layout within kSmemBudget (mlpSmallTileFits; the launcher falls back to a smaller tile).
#pragma once

#include "common.cuh"
#include "pdl.cuh"
#include "smem_limit.h"

namespace turbofno {
namespace cuda {
namespace mlpsmall {

constexpr int kThreads = 256;  // 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kMaxChannels = 64;  // Cin and Cout
constexpr int kTileElems = 512;   // RW x TP of one warp tile

// The lane geometry of TP points per block.
template <int TP>
struct Geo {
    static_assert(TP == 16 || TP == 32 || TP == 64, "16-, 32- or 64-point tiles");
    static constexpr int kLP = TP / 4;    // lanes along the points (4 points each)
    static constexpr int kLR = 32 / kLP;  // lanes along the rows (4 rows each)
    static constexpr int kRW = 4 * kLR;   // rows per warp tile
    static_assert(kRW * TP == kTileElems, "one warp tile is 512 outputs");
};

__host__ __device__ constexpr int roundUp(int v, int m) { return (v + m - 1) / m * m; }
// Row stride of a weight matrix with c columns: 4 mod 32 floats (conflict-free reads of consecutive rows).
__host__ __device__ constexpr int weightLd(int c) { return roundUp(c, 4) == 4 ? 4 : roundUp(c, 32) + 4; }

// The kernel's shared memory in floats (see the header).
__host__ __device__ constexpr size_t smemFloats(int cin, int ch, int cout, int tp) {
    return static_cast<size_t>(ch) * weightLd(cin) + static_cast<size_t>(cout) * weightLd(ch) + static_cast<size_t>(roundUp(cin, 4)) * tp +
           static_cast<size_t>(roundUp(ch, 4)) * tp + static_cast<size_t>(kWarps) * kTileElems;
}

// Warp tiles and K slices of a GEMM with `rows` output rows (tile height rw) and k4 / 4 steps of 4.
struct Split {
    int tiles, slices, stepsPerSlice;
};
__device__ __forceinline__ Split splitGemm(int rows, int rw, int k4) {
    Split s;
    s.tiles = (rows + rw - 1) / rw;
    s.slices = 1;
    while (s.tiles * s.slices * 2 <= kWarps && s.slices * 2 <= k4 / 4) s.slices *= 2;
    s.stepsPerSlice = (k4 / 4 + s.slices - 1) / s.slices;
    return s;
}

}  // namespace mlpsmall

inline bool mlpSmallTileFits(const MlpArgs& a, int tp) {
    return a.cin <= mlpsmall::kMaxChannels && a.cout <= mlpsmall::kMaxChannels &&
           mlpsmall::smemFloats(a.cin, a.ch, a.cout, tp) * sizeof(float) <= kSmemBudget;
}
// Whether the small-grid FMA kernel takes the call (with its smallest tile at least).
inline bool mlpSmallFits(const MlpArgs& a) { return mlpSmallTileFits(a, 16); }

// Copies src[rows][cols] (global, row-major, T) to dst[r * ld + c] (c < cols rounded up to 4; zero past
// cols): 4-element vector reads where rows start aligned, all of a thread's reads of a round before
// its stores.
template <typename T>
__device__ __forceinline__ void mlpSmallStageRows(float* dst, int ld, const T* __restrict__ src, int rows, int cols, bool aligned) {
    constexpr int kRound = 8;  // vectors in flight per thread
    const int groups = (cols + 3) / 4, total = rows * groups;
    const bool vec = aligned && cols % 4 == 0;
    for (int base = threadIdx.x; base < total; base += mlpsmall::kThreads * kRound) {
        float4 v[kRound];
        int off[kRound];
#pragma unroll
        for (int u = 0; u < kRound; ++u) {
            const int e = base + mlpsmall::kThreads * u;
            const int r = e / groups, c = 4 * (e - r * groups);
            off[u] = r * ld + c;
            v[u] = e < total ? load4(src + static_cast<size_t>(r) * cols + c, cols - c, vec) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < kRound; ++u)
            if (base + mlpsmall::kThreads * u < total) *reinterpret_cast<float4*>(&dst[off[u]]) = v[u];
    }
}

// One GEMM C[rows, TP] = A[rows, K4] B[K4, TP] of the block (A row-major with stride lda, rows clamped
// to rows - 1; B [K4][TP]), in warp tiles with the K range split across warps (mlpsmall::Split).
// `red` holds the slices' partials; finish(row, q, float4 of points 4q..4q+3) gets every output
// row < rowsP (rowsP = rows rounded up to the tile) exactly once, after a barrier where slices > 1.
// All threads of the block must call it (it has block barriers).
template <int TP, typename Finish>
__device__ __forceinline__ void mlpSmallGemm(const float* A, int lda, int rows, const float* B, int k4, float* red, Finish finish) {
    using G = mlpsmall::Geo<TP>;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int pl = lane % G::kLP, rl = lane / G::kLP;
    const mlpsmall::Split sp = mlpsmall::splitGemm(rows, G::kRW, k4);
    const int rowsP = sp.tiles * G::kRW;
    for (int w = warp; w < sp.tiles * sp.slices; w += mlpsmall::kWarps) {
        const int tile = w % sp.tiles, slice = w / sp.tiles;
        const int row0 = tile * G::kRW + rl;  // this lane's rows row0 + kLR i
        const float* Ar[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) Ar[i] = A + min(row0 + G::kLR * i, rows - 1) * lda;
        const int s0 = slice * sp.stepsPerSlice, s1 = min(k4 / 4, s0 + sp.stepsPerSlice);
        float acc[4][4] = {};
#pragma unroll 2
        for (int s = s0; s < s1; ++s) {
            const int k = 4 * s;
            float4 bv[4], av[4];
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) bv[kk] = *reinterpret_cast<const float4*>(&B[(k + kk) * TP + 4 * pl]);
#pragma unroll
            for (int i = 0; i < 4; ++i) av[i] = *reinterpret_cast<const float4*>(&Ar[i][k]);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const float a4[4] = {av[i].x, av[i].y, av[i].z, av[i].w};
#pragma unroll
                for (int kk = 0; kk < 4; ++kk) {
                    acc[i][0] = fmaf(a4[kk], bv[kk].x, acc[i][0]);
                    acc[i][1] = fmaf(a4[kk], bv[kk].y, acc[i][1]);
                    acc[i][2] = fmaf(a4[kk], bv[kk].z, acc[i][2]);
                    acc[i][3] = fmaf(a4[kk], bv[kk].w, acc[i][3]);
                }
            }
        }
        if (sp.slices == 1) {
#pragma unroll
            for (int i = 0; i < 4; ++i) finish(row0 + G::kLR * i, pl, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i)
                *reinterpret_cast<float4*>(&red[(slice * rowsP + row0 + G::kLR * i) * TP + 4 * pl]) =
                    make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        }
    }
    if (sp.slices == 1) return;
    __syncthreads();
    for (int e = threadIdx.x; e < rowsP * G::kLP; e += mlpsmall::kThreads) {
        const int row = e / G::kLP, q = e % G::kLP;
        float4 v = *reinterpret_cast<const float4*>(&red[row * TP + 4 * q]);
        for (int s = 1; s < sp.slices; ++s) {
            const float4 p = *reinterpret_cast<const float4*>(&red[(s * rowsP + row) * TP + 4 * q]);
            v.x += p.x;
            v.y += p.y;
            v.z += p.z;
            v.w += p.w;
        }
        finish(row, q, v);
    }
}

// grid (N * tilesP), 256 threads, dynamic shared memory mlpsmall::smemFloats(Cin, Ch, Cout, TP) floats.
template <typename T, int TP>
__global__ void __launch_bounds__(mlpsmall::kThreads) pointwiseMlpSmallKernel(const MlpArgs a) {
    using G = mlpsmall::Geo<TP>;
    extern __shared__ __align__(16) float smem[];
    const int cin4 = mlpsmall::roundUp(a.cin, 4), ch4 = mlpsmall::roundUp(a.ch, 4);
    const int ld1 = mlpsmall::weightLd(a.cin), ld2 = mlpsmall::weightLd(a.ch);
    float* W1s = smem;                   // [Ch][ld1]
    float* W2s = W1s + a.ch * ld1;       // [Cout][ld2]
    float* Xs = W2s + a.cout * ld2;      // [Cin4][TP]
    float* Hs = Xs + cin4 * TP;          // [Ch4][TP]
    float* red = Hs + ch4 * TP;          // [8][512]: the K slices' partial tiles

    const int tile = blockIdx.x % a.tilesP, n = blockIdx.x / a.tilesP;
    const int p0 = tile * TP;
    const bool vec = a.vec != 0;
    const T* __restrict__ x = static_cast<const T*>(a.x) + static_cast<size_t>(n) * a.cin * a.P + p0;
    const T* __restrict__ r = static_cast<const T*>(a.r);
    const size_t rowBase = static_cast<size_t>(n) * a.cout * a.P + p0;  // y / r offset of (n, o = 0, p0)

    // The weights first when they are constant (a.wconst): their staging then overlaps the previous
    // kernel's tail (pdl.cuh); x and r may come from the previous kernel, so they wait.
    const size_t al = 4 * sizeof(T);
    const auto stageWeights = [&] {
        mlpSmallStageRows(W1s, ld1, static_cast<const T*>(a.w1), a.ch, a.cin, reinterpret_cast<uintptr_t>(a.w1) % al == 0);
        mlpSmallStageRows(W2s, ld2, static_cast<const T*>(a.w2), a.cout, a.ch, reinterpret_cast<uintptr_t>(a.w2) % al == 0);
    };
    if (a.wconst) stageWeights();
    gridDependencyWait();
    if (r) {  // the epilogue's r rows into L2 now (a hint: overlaps their DRAM reads with the GEMMs)
        for (int o = threadIdx.x; o < a.cout; o += mlpsmall::kThreads) prefetchL2(r + rowBase + static_cast<size_t>(o) * a.P);
    }
    {  // 0. the x tile (rows Cin..Cin4 zero): TP / 4 vectors per row, 256 / (TP / 4) rows per pass
        constexpr int kRowsPerPass = mlpsmall::kThreads / G::kLP;
        constexpr int kPasses = (mlpsmall::kMaxChannels + kRowsPerPass - 1) / kRowsPerPass;
        const int q = threadIdx.x % G::kLP, k0 = threadIdx.x / G::kLP;
        const int left = a.P - p0 - 4 * q;
        float4 v[kPasses];
#pragma unroll
        for (int u = 0; u < kPasses; ++u) {
            const int k = k0 + kRowsPerPass * u;
            v[u] = k < a.cin ? load4(x + static_cast<size_t>(k) * a.P + 4 * q, left, vec) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
#pragma unroll
        for (int u = 0; u < kPasses; ++u) {
            const int k = k0 + kRowsPerPass * u;
            if (k < cin4) *reinterpret_cast<float4*>(&Xs[k * TP + 4 * q]) = v[u];
        }
    }
    if (!a.wconst) stageWeights();
    __syncthreads();

    // 1. GEMM1 and h = hact(Hc + b1) into Hs (rows Ch..Ch4 zero: GEMM2 reads them)
    const T* __restrict__ b1 = static_cast<const T*>(a.b1);
    const int ch = a.ch, hact = a.hact;
    mlpSmallGemm<TP>(W1s, ld1, a.ch, Xs, cin4, red, [&](int row, int q, float4 v) {
        if (row >= ch4) return;
        float h[4] = {0.f, 0.f, 0.f, 0.f};
        if (row < ch) {
            const float bias = b1 ? toFloat(b1[row]) : 0.f;
            h[0] = v.x + bias;
            h[1] = v.y + bias;
            h[2] = v.z + bias;
            h[3] = v.w + bias;
            applyActivationAll(h, hact);
        }
        *reinterpret_cast<float4*>(&Hs[row * TP + 4 * q]) = make_float4(h[0], h[1], h[2], h[3]);
    });
    __syncthreads();  // Hs complete; the partials area is free again
    allowDependentLaunch();

    // 2. GEMM2 and the epilogue
    const T* __restrict__ b2 = static_cast<const T*>(a.b2);
    const T* __restrict__ g = static_cast<const T*>(a.g);
    T* y = static_cast<T*>(a.y);
    const int cout = a.cout, act = a.act, P = a.P;
    mlpSmallGemm<TP>(W2s, ld2, a.cout, Hs, ch4, red, [&](int o, int q, float4 v) {
        const int left = P - p0 - 4 * q;
        if (o >= cout || left <= 0) return;
        const float bias = b2 ? toFloat(b2[o]) : 0.f;
        const size_t off = rowBase + static_cast<size_t>(o) * P + 4 * q;
        float4 rv = make_float4(0.f, 0.f, 0.f, 0.f);
        if (r) rv = load4(r + off, left, vec);
        const float gate = (r && g) ? toFloat(g[o]) : 1.f;
        float out[4] = {v.x + bias + gate * rv.x, v.y + bias + gate * rv.y, v.z + bias + gate * rv.z, v.w + bias + gate * rv.w};
        applyActivationAll(out, act);
        store4(y + off, make_float4(out[0], out[1], out[2], out[3]), left, vec);
    });
}

// Tile: 32 points, 16 where 32-point tiles give fewer than one block per two SMs, 64 from three
// 32-point blocks per SM on; the next smaller one beyond the shared-memory budget. Measured on the
// H200 (tests/gpu/logs/mlp_small_s16/mlp_bench_07fc934.log, us, TP 16 / 32 / 64): 256 points (Burgers
// b1) 64/32/64 5.6 / 6.3 / 8.3, projection 7.1 / 8.2 / 8.2; 8192 points (b32) 64/32/64 13.0 / 8.1 / 8.8,
// lifting 2/128/64 15.1 / 10.5 / 12.0, projection 16.8 / 10.9 / 10.9; 4096 points (darcy b1) 32/16/32
// 5.6 / 5.4 / 5.8; 16384 points 64/32/64 25.1 / 15.5 / 11.0. Test hook: gMlpTcTileOverride 16 / 32 / 64.
inline int chooseMlpSmallTile(const MlpArgs& a, int64_t batch, int smCount) {
    const int forced = gMlpTcTileOverride.load();
    int tp = 32;
    if (forced == 16 || forced == 32 || forced == 64) {
        tp = forced;
    } else {
        const int64_t blocks32 = batch * ((a.P + 31) / 32), sms = smCount > 0 ? smCount : 132;
        if (2 * blocks32 < sms) tp = 16;
        else if (blocks32 >= 3 * sms) tp = 64;
    }
    while (tp > 16 && !mlpSmallTileFits(a, tp)) tp /= 2;
    return tp;
}

template <typename T, int TP>
cudaError_t launchMlpSmallFixed(const MlpArgs& a, int64_t blocks, cudaStream_t stream) {
    static std::atomic<unsigned long long> smemOptIn{0};  // per instantiation, bit per device
    const size_t smem = mlpsmall::smemFloats(a.cin, a.ch, a.cout, TP) * sizeof(float);
    const cudaError_t err = allowSmem(pointwiseMlpSmallKernel<T, TP>, smem, smemOptIn);
    if (err != cudaSuccess) return err;
    return launchKernel(pointwiseMlpSmallKernel<T, TP>, dim3(static_cast<unsigned>(blocks)), dim3(mlpsmall::kThreads), smem, stream, a);
}

// The caller checked mlpSmallFits(a).
template <typename T>
cudaError_t launchMlpSmall(MlpArgs a, int64_t batch, int smCount, cudaStream_t stream) {
    const int tp = chooseMlpSmallTile(a, batch, smCount);
    const int64_t tilesP = (a.P + tp - 1) / tp, blocks = batch * tilesP;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    a.tilesP = static_cast<int>(tilesP);
    if (tp == 16) return launchMlpSmallFixed<T, 16>(a, blocks, stream);
    if (tp == 32) return launchMlpSmallFixed<T, 32>(a, blocks, stream);
    return launchMlpSmallFixed<T, 64>(a, blocks, stream);
}

}  // namespace cuda
}  // namespace turbofno
