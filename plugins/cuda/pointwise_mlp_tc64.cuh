// The small-grid PointwiseMLP tensor-core kernel (3xTF32, mma_tf32.cuh): 64- or 32-point x
// 64-channel blocks, for N * P of 256 to 16k points, where its small tiles give more blocks than
// pointwise_mlp_tc.cuh's 128-point tiles (measured at f75427d, tests/gpu/logs/mlp_tc_f75427d: 64/128/1
// projection on 4096 points 19.3 us vs 28.1 with the FMA kernel; the 128-point TC kernel takes 32.4
// there). Included by pointwise_mlp.cu after MlpArgs, load4 / store4 / prefetchL2 (it uses them);
// also run on the CPU by tests/gpu/mlp_host_emu.
//
//   h[n, j, s] = hact( sum_i W1[j, i] x[n, i, s] + b1[j] )                    j < Ch
//   y[n, o, s] = act( sum_j W2[o, j] h[n, j, s] + b2[o] + g[o] r[n, o, s] )    o < Cout
//
// A block of 256 threads owns TP consecutive points of one batch item and kM = 64 output channels
// (Cout > 64: more blocks, each recomputing h). Its 8 warps: TP = 64: 2 along the rows x 4 along the
// points, a warp 32 x 16 = 2 x 2 mma tiles of 16 x 8; TP = 32: 4 x 2, a warp 16 x 16 = 1 x 2 tiles.
// The 32-point tile is for grids that give fewer than two 64-point blocks per SM (the run is then
// latency-bound: twice the warps per SM, each with half the serial chain). The hidden layer goes in
// chunks of kM = 64 channels:
//   0. TP = 32: the chunk's W2 block W2[o0.., h0..] into registers (its latency hides behind GEMM1;
//      TP = 64 loads it in step 2, having no registers to spare);
//   1. GEMM1 Hc[64, TP] = W1[h0.., :] X[:, p0..], K = Cin in steps of kK = 1024 / TP (16 or 32,
//      one x quad per thread): the W1 and x step tiles are converted to float into shared memory
//      while the next step's global loads are in flight in registers (as skip_gemm_tc.cuh); zero
//      past Cin / Ch / P.
//   2. h = hact(Hc + b1) into shared memory Hs (fp32, rows past Ch exactly 0); the W2 registers
//      into W2s[o][j] (zero past Cout / Ch).
//   3. GEMM2 acc[64, TP] += W2s Hs, K = the chunk's hidden channels rounded up to 8.
// Each k8 product goes into fresh registers (three mma: lo hi, hi lo, hi hi) and is then added to
// the fp32 accumulators with an ordinary add (fixed order: deterministic, no atomics). Warp tiles
// entirely past Ch (GEMM1) or Cout (GEMM2) skip their mma (warp-uniform branches); a K half past Cin
// is skipped too (lifting, Cin = 3).
// Epilogue: the C fragments go through shared memory (the Hs area) and leave along the points:
// + b2 + g r (each thread reads its own r elements before writing the same y elements: y may alias
// r), act, 16-byte (fp32) / 8-byte (fp16, bf16) vectors where P % 4 == 0 and the bases are aligned,
// else element-wise with bounds checks.
// Padded strides (floats, rows 16-byte aligned), all conflict-free: W1 step [64][kK + 4] (A fragment
// reads, row g, column t: banks 20 g + t or 4 g + t) and W2 [64][68] (4 g + t); x step, Hs and C
// tiles [.][TP + 8] (B fragment reads, row t, column g: 8 t + g; C fragment float2 stores, row g,
// columns 2 t, +1: 8 g + 2 t within each half warp). 44.5 KB (TP = 64) / 41 KB static shared memory.
#pragma once

#include "common.cuh"
#include "mma_tf32.cuh"
#include "pdl.cuh"
#include "sm_count.h"

namespace turbofno {
namespace cuda {
namespace mlptc64 {

constexpr int kTcThreads = 256;
constexpr int kM = 64;                                // hidden channels per chunk = output channels per block
constexpr int kW2Stride = kM + 4;                     // W2 chunk [kM][kW2Stride]
constexpr int kW2Elems = kM * kM / kTcThreads;        // 16 W2 elements staged per thread and chunk

// The block's tile geometry for TP = 64 or 32 points per block. The x step tile is one quad
// (4 points) per thread, so the step's input channels kK = 1024 / TP (16 or 32); the 8 warps are
// kWarpsP along the points (16 each) x 8 / kWarpsP along the rows (kMI m16 tiles each).
template <int TP>
struct Tile {
    static_assert(TP == 64 || TP == 32, "64- or 32-point tiles");
    static constexpr int kTP = TP;
    static constexpr int kK = 1024 / TP;                    // input channels per GEMM1 step
    static constexpr int kWStride = kK + 4;                 // W1 step tile [kM][kWStride]: 20 / 36
    static constexpr int kPStride = TP + 8;                 // x step [kK][.], Hs / C tile [kM][.]: 72 / 40
    static constexpr int kWarpsP = TP / 16;                 // 4 / 2
    static constexpr int kWarpRows = kM * kWarpsP / 8;      // 32 / 16
    static constexpr int kMI = kWarpRows / 16;              // 2 / 1
    static constexpr int kXsOff = kM * kWStride;
    static constexpr int kHsOff = kXsOff + kK * kPStride;
    static constexpr int kW2Off = kHsOff + kM * kPStride;
    static constexpr int kSmemFloats = kW2Off + kM * kW2Stride;  // 11392 / 10496
    static constexpr int kQuadsPerRow = TP / 4;
    static constexpr int kRowsPerPass = kTcThreads / kQuadsPerRow;  // C tile rows per pass: 16 / 32
    static constexpr int kW1Elems = kM * kK / kTcThreads;           // 4 / 8
    static constexpr int kCQuads = kM / kRowsPerPass;               // 4 / 2
    static_assert(kRowsPerPass == kK, "the x step tile is one quad per thread");
    static_assert(kSmemFloats * 4 <= 48 * 1024, "static shared memory");
};

}  // namespace mlptc64

// grid (N * tilesP * coutTiles) with tilesP = ceil(P / TP), coutTiles = ceil(Cout / 64) (Cout tile
// fastest), 256 threads. VEC: P % 4 == 0 and x, r, y aligned to 4 elements (a.vec).
template <typename T, bool VEC, int TP>
__global__ void __launch_bounds__(mlptc64::kTcThreads, 2) pointwiseMlpTc64Kernel(const MlpArgs a) {
    using namespace mlptc64;
    using L = Tile<TP>;
    constexpr int kTP = L::kTP, kK = L::kK, kWStride = L::kWStride, kPStride = L::kPStride, kMI = L::kMI;
    constexpr int kQuadsPerRow = L::kQuadsPerRow, kRowsPerPass = L::kRowsPerPass, kW1Elems = L::kW1Elems;
    constexpr int kXsOff = L::kXsOff, kHsOff = L::kHsOff, kW2Off = L::kW2Off;
    constexpr bool kW2Early = TP == 32;  // the 64-point tile has no registers to spare for it (ptxas: spills)
#ifndef TFNO_MLP_HOST_EMU
    __shared__ __align__(16) float smem[L::kSmemFloats];
#endif  // tests/gpu/mlp_host_emu: the emulator's block-wide smem buffer (pdl.cuh there)
    float* W1s = smem;            // [kM][kWStride]  this step's W1[h0.., c0..]
    float* Xs = smem + kXsOff;    // [kK][kPStride]  this step's x[n, c0.., p0..]
    float* Hs = smem + kHsOff;    // [kM][kPStride]  h chunk; the C tile in the epilogue
    float* W2s = smem + kW2Off;   // [kM][kW2Stride] W2[o0.., h0..]

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wo = (warp / L::kWarpsP) * L::kWarpRows, wp = (warp % L::kWarpsP) * 16;  // the warp's kWarpRows x 16 tile
    int b = blockIdx.x;
    const int ct = b % a.coutTiles;
    b /= a.coutTiles;
    const int tile = b % a.tilesP, n = b / a.tilesP;
    const int o0 = ct * kM, p0 = tile * kTP;
    const int cin = a.cin, ch = a.ch, cout = a.cout, P = a.P;

    const T* __restrict__ xn = static_cast<const T*>(a.x) + static_cast<size_t>(n) * cin * P;
    const T* __restrict__ w1 = static_cast<const T*>(a.w1);
    const T* __restrict__ w2 = static_cast<const T*>(a.w2);
    const T* __restrict__ b1 = static_cast<const T*>(a.b1);
    // x step / C tile element of this thread: VEC row qRow (+ kRowsPerPass q), points qCol .. +3; else
    // row qRow + jRow j (+ kRowsPerPass q), point qCol, so that a warp's scalar accesses cover 32
    // consecutive points
    const int qRow = VEC ? tid / kQuadsPerRow : tid / kTP, qCol = VEC ? 4 * (tid % kQuadsPerRow) : tid % kTP;
    constexpr int jRow = VEC ? 0 : kTcThreads / kTP;  // 4 / 8
    const int qp = p0 + qCol;
    const int wr0 = tid / kK, wc0 = tid % kK;  // W1 step element (wr0 + (256 / kK) r, wc0)

    float xr[4], wr[kW1Elems];  // the next step's elements, converted on load
    auto load = [&](int h0, int c0) {
        const T* src = xn + static_cast<size_t>(c0 + qRow) * P + qp;
        if constexpr (VEC) {
            const float4 v = (c0 + qRow < cin && qp < P) ? load4(src, 4, true) : make_float4(0.f, 0.f, 0.f, 0.f);
            xr[0] = v.x;
            xr[1] = v.y;
            xr[2] = v.z;
            xr[3] = v.w;
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j)
                xr[j] = (c0 + qRow + jRow * j < cin && qp < P) ? toFloat(src[static_cast<size_t>(jRow * j) * P]) : 0.f;
        }
#pragma unroll
        for (int r = 0; r < kW1Elems; ++r) {  // consecutive threads along c (W1 rows are contiguous in c)
            const int j = h0 + wr0 + (kTcThreads / kK) * r, c = c0 + wc0;
            wr[r] = (j < ch && c < cin) ? toFloat(w1[static_cast<size_t>(j) * cin + c]) : 0.f;
        }
    };
    auto store = [&]() {
        if constexpr (VEC) {
            *reinterpret_cast<float4*>(&Xs[qRow * kPStride + qCol]) = make_float4(xr[0], xr[1], xr[2], xr[3]);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) Xs[(qRow + jRow * j) * kPStride + qCol] = xr[j];
        }
#pragma unroll
        for (int r = 0; r < kW1Elems; ++r) W1s[(wr0 + (kTcThreads / kK) * r) * kWStride + wc0] = wr[r];
    };

    float acc[kMI][2][4];  // GEMM2 accumulators [m tile][n tile][C fragment]
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[mi][ni][r] = 0.f;

    gridDependencyWait();  // x, weights and r may come from the previous kernel (pdl.cuh)
    if (a.r && tid < kM && o0 + tid < cout && p0 < P) {  // the epilogue's r rows into L2 (a hint)
        const T* rr = static_cast<const T*>(a.r) + (static_cast<size_t>(n) * cout + o0 + tid) * P + p0;
        prefetchL2(rr);
        if (p0 + 128 / static_cast<int>(sizeof(T)) < P) prefetchL2(rr + 128 / sizeof(T));
    }
    for (int h0 = 0; h0 < ch; h0 += kM) {
        // ---- GEMM1: H chunk = W1[h0.., :] x
        float hacc[kMI][2][4];
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
            for (int ni = 0; ni < 2; ++ni)
#pragma unroll
                for (int r = 0; r < 4; ++r) hacc[mi][ni][r] = 0.f;
        const bool rows1 = h0 + wo < ch;  // this warp has hidden rows in range (warp-uniform)
        const int hc = min(kM, ch - h0), hc8 = (hc + 7) & ~7;
        auto w2At = [&](int r) {  // consecutive threads along j (contiguous in W2)
            const int e = tid + kTcThreads * r, o = e / kM, j = e % kM;
            return (o0 + o < cout && j < hc) ? toFloat(w2[static_cast<size_t>(o0 + o) * ch + h0 + j]) : 0.f;
        };
        float w2r[kW2Early ? kW2Elems : 1];  // the chunk's W2 block, loaded now: its latency hides behind GEMM1
        if constexpr (kW2Early) {
#pragma unroll
            for (int r = 0; r < kW2Elems; ++r) w2r[r] = w2At(r);
        }
        load(h0, 0);
        for (int c0 = 0; c0 < cin; c0 += kK) {
            __syncthreads();  // the previous step's (or chunk's) tiles are consumed
            store();
            __syncthreads();
            if (c0 + kK < cin) load(h0, c0 + kK);
            if (!rows1) continue;
#pragma unroll 1
            for (int kk = 0; kk < kK; kk += 8) {
                if (c0 + kk >= cin) break;  // an all-zero K half
                Tf32Pair af[kMI][4];
#pragma unroll
                for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
                    for (int r = 0; r < 4; ++r)
                        af[mi][r] = splitTf32(W1s[(wo + 16 * mi + g + 8 * (r & 1)) * kWStride + kk + t + 4 * (r >> 1)]);
#pragma unroll
                for (int ni = 0; ni < 2; ++ni) {
                    Tf32Pair bf[2];
#pragma unroll
                    for (int r = 0; r < 2; ++r) bf[r] = splitTf32(Xs[(kk + t + 4 * r) * kPStride + wp + 8 * ni + g]);
#pragma unroll
                    for (int mi = 0; mi < kMI; ++mi) {
                        if (h0 + wo + 16 * mi >= ch) continue;  // warp-uniform
                        float d[4] = {0.f, 0.f, 0.f, 0.f};
                        mma3xTf32(d, af[mi], bf);
#pragma unroll
                        for (int r = 0; r < 4; ++r) hacc[mi][ni][r] += d[r];
                    }
                }
            }
        }
        // ---- h = hact(H + b1) -> Hs (rows past Ch: 0); W2 block -> W2s. The barrier at the top of the
        // k loop separated the previous chunk's GEMM2 reads of Hs / W2s.
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
                const int row = wo + 16 * mi + g + 8 * hh, j = h0 + row;
                const bool in = j < ch;
                const float bias = (b1 && in) ? toFloat(b1[j]) : 0.f;
#pragma unroll
                for (int ni = 0; ni < 2; ++ni) {
                    const float v0 = in ? applyActivation(hacc[mi][ni][2 * hh] + bias, a.hact) : 0.f;
                    const float v1 = in ? applyActivation(hacc[mi][ni][2 * hh + 1] + bias, a.hact) : 0.f;
                    *reinterpret_cast<float2*>(&Hs[row * kPStride + wp + 8 * ni + 2 * t]) = make_float2(v0, v1);
                }
            }
        if constexpr (kW2Early) {
#pragma unroll
            for (int r = 0; r < kW2Elems; ++r) {
                const int e = tid + kTcThreads * r;
                W2s[(e / kM) * kW2Stride + e % kM] = w2r[r];
            }
        } else {
#pragma unroll 4
            for (int r = 0; r < kW2Elems; ++r) {
                const int e = tid + kTcThreads * r;
                W2s[(e / kM) * kW2Stride + e % kM] = w2At(r);
            }
        }
        __syncthreads();
        // ---- GEMM2: acc += W2s Hs
        if (o0 + wo < cout) {
#pragma unroll 1
            for (int k = 0; k < hc8; k += 8) {
                Tf32Pair af[kMI][4];
#pragma unroll
                for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
                    for (int r = 0; r < 4; ++r)
                        af[mi][r] = splitTf32(W2s[(wo + 16 * mi + g + 8 * (r & 1)) * kW2Stride + k + t + 4 * (r >> 1)]);
#pragma unroll
                for (int ni = 0; ni < 2; ++ni) {
                    Tf32Pair bf[2];
#pragma unroll
                    for (int r = 0; r < 2; ++r) bf[r] = splitTf32(Hs[(k + t + 4 * r) * kPStride + wp + 8 * ni + g]);
#pragma unroll
                    for (int mi = 0; mi < kMI; ++mi) {
                        if (o0 + wo + 16 * mi >= cout) continue;  // warp-uniform
                        float d[4] = {0.f, 0.f, 0.f, 0.f};
                        mma3xTf32(d, af[mi], bf);
#pragma unroll
                        for (int r = 0; r < 4; ++r) acc[mi][ni][r] += d[r];
                    }
                }
            }
        }
    }
    allowDependentLaunch();

    // ---- epilogue: C fragments -> Hs area -> rows of y along the points
    __syncthreads();  // the last GEMM2 reads of Hs are done
    float* Cs = Hs;   // [kM][kPStride]
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
#pragma unroll
            for (int hh = 0; hh < 2; ++hh)
                *reinterpret_cast<float2*>(&Cs[(wo + 16 * mi + g + 8 * hh) * kPStride + wp + 8 * ni + 2 * t]) =
                    make_float2(acc[mi][ni][2 * hh], acc[mi][ni][2 * hh + 1]);
    __syncthreads();
    const T* b2 = static_cast<const T*>(a.b2);
    const T* gt = static_cast<const T*>(a.g);
    const T* rp = static_cast<const T*>(a.r);
    T* y = static_cast<T*>(a.y);
    const size_t base = static_cast<size_t>(n) * cout * P + qp;  // (n, o = 0, qp)
#pragma unroll
    for (int q = 0; q < L::kCQuads; ++q) {
        if constexpr (VEC) {
            const int row = qRow + kRowsPerPass * q, o = o0 + row;
            if (o >= cout || qp >= P) continue;
            const float bias = b2 ? toFloat(b2[o]) : 0.f;
            float4 v = *reinterpret_cast<const float4*>(&Cs[row * kPStride + qCol]);
            v.x += bias;
            v.y += bias;
            v.z += bias;
            v.w += bias;
            const size_t off = base + static_cast<size_t>(o) * P;
            if (rp) {
                const float gate = gt ? toFloat(gt[o]) : 1.f;
                const float4 rv = load4(rp + off, 4, true);
                v.x = fmaf(gate, rv.x, v.x);
                v.y = fmaf(gate, rv.y, v.y);
                v.z = fmaf(gate, rv.z, v.z);
                v.w = fmaf(gate, rv.w, v.w);
            }
            v = make_float4(applyActivation(v.x, a.act), applyActivation(v.y, a.act), applyActivation(v.z, a.act),
                            applyActivation(v.w, a.act));
            store4(y + off, v, 4, true);
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int row = qRow + jRow * j + kRowsPerPass * q, o = o0 + row;
                if (o >= cout || qp >= P) continue;
                float v = Cs[row * kPStride + qCol] + (b2 ? toFloat(b2[o]) : 0.f);
                const size_t off = base + static_cast<size_t>(o) * P;
                if (rp) v = fmaf(gt ? toFloat(gt[o]) : 1.f, toFloat(rp[off]), v);
                y[off] = fromFloat<T>(applyActivation(v, a.act));
            }
        }
    }
}

// The tile: 32 points where 64-point tiles give fewer than two blocks per SM (sm_count.h; burgers'
// 8192 points: 128 blocks of 64 or 256 of 32), else 64. Test hook: gMlpTcTileOverride 32 / 64 forces it.
inline int chooseMlpTc64Tile(int64_t batch, int P, int coutTiles, int smCount) {
    const int forced = gMlpTcTileOverride.load();
    if (forced == 32 || forced == 64) return forced;
    return underTwoBlocksPerSm(batch * ((P + 63) / 64) * coutTiles, smCount) ? 32 : 64;
}

template <typename T>
cudaError_t launchMlpTc64(MlpArgs a, int64_t batch, int smCount, cudaStream_t stream) {
    const int64_t coutTiles = (a.cout + mlptc64::kM - 1) / mlptc64::kM;
    const int tp = chooseMlpTc64Tile(batch, a.P, static_cast<int>(coutTiles), smCount);
    const int64_t tilesP = (a.P + tp - 1) / tp;
    const int64_t blocks = batch * tilesP * coutTiles;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    a.tilesP = static_cast<int>(tilesP);
    a.coutTiles = static_cast<int>(coutTiles);
    auto kernel = tp == 32 ? (a.vec ? pointwiseMlpTc64Kernel<T, true, 32> : pointwiseMlpTc64Kernel<T, false, 32>)
                           : (a.vec ? pointwiseMlpTc64Kernel<T, true, 64> : pointwiseMlpTc64Kernel<T, false, 64>);
    return launchKernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(mlptc64::kTcThreads), 0, stream, a);
}

}  // namespace cuda
}  // namespace turbofno
