// The fused layer's 1x1 skip GEMM (skip_gemm.cuh) on tensor cores in fp32 accuracy (3xTF32,
// mma_tf32.cuh): y[n, o, p] = sum_c W[o, c] x[n, c, p], a GEMM with M = Cout, N = P, K = Cin.
//
// A block of 256 threads owns a 64 x NP tile of y[n]: NP = 128 points (8 warps: 2 along o x 4 along
// p, a warp 32 x 32 = 2 x 4 mma tiles of 16 x 8), or NP = 32 where 128-point tiles give fewer than two
// blocks per SM (small grids, latency-bound: 4 x 2 warps of 16 x 16). It walks the input channels in
// steps of 16 (NP = 128) or 32: the W and x
// tiles are converted to float into shared memory while the next step's global loads are in flight
// in registers (as dft_pass.cuh). Each k8 product goes into fresh registers and is then added to the
// fp32 accumulators with an ordinary add: tensor-core accumulation is not round-to-nearest, so its
// chains stay three mma long. The C tile leaves through shared memory, stores coalesced along p.
#pragma once

#include "common.cuh"
#include "mma_tf32.cuh"
#include "pdl.cuh"
#include "plan.h"
#include "sm_count.h"

namespace turbofno {
namespace cuda {
namespace skiptc {

constexpr int kTcThreads = 256;
constexpr int kM = 64;   // output channels per block

// The block's tile geometry for NP = 128 or 32 points per block. The x step is kXQuads quads (4
// points) per thread, so the step's input channels kK = 16 (NP = 128) or 32 (NP = 32); the 8 warps are
// kWarpsP along the points x 8 / kWarpsP along o, a warp kMI x kNI mma tiles of 16 x 8.
// Padded row strides in floats (rows stay 16-byte aligned). W tile [o][c]: A fragment lane (g, t)
// reads row g, column t: bank 20 g + t or 4 g + t, distinct over the warp. x tile [c][p] and C tile
// [o][p]: B fragment reads row t, column g: bank 8 t + g; C fragment float2 stores row g, columns 2 t,
// 2 t + 1: banks 8 g + 2 t (+1), distinct within each half warp. Both need a stride of 8 mod 32.
template <int NP>
struct Tile {
    static_assert(NP == 128 || NP == 32, "128- or 32-point tiles");
    static constexpr int kN = NP;                            // points per block
    static constexpr int kK = NP == 128 ? 16 : 32;           // input channels per step
    static constexpr int kWarpsP = NP == 128 ? 4 : 2;
    static constexpr int kMI = kM * kWarpsP / 8 / 16;        // 2 / 1
    static constexpr int kNI = NP / kWarpsP / 8;             // 4 / 2
    static constexpr int kWStride = kK + 4;
    static constexpr int kXStride = kN + 8;
    static constexpr int kStageFloats = kM * kWStride + kK * kXStride;
    static constexpr int kCFloats = kM * kXStride;
    static constexpr int kSmemFloats = kStageFloats > kCFloats ? kStageFloats : kCFloats;
    static constexpr int kQuadsPerRow = kN / 4;                      // 4-point groups per tile row
    static constexpr int kRowsPerPass = kTcThreads / kQuadsPerRow;  // tile rows covered by one group per thread (8 / 32)
    static constexpr int kXQuads = kK / kRowsPerPass;               // x groups per thread per step (2 / 1)
    static constexpr int kWElems = kM * kK / kTcThreads;            // W elements per thread per step (4 / 8)
    static constexpr int kCQuads = kM / kRowsPerPass;               // C groups per thread in the epilogue (8 / 2)
    static_assert(kXQuads >= 1 && kXQuads * kRowsPerPass == kK, "whole x quads per thread");
};

// Four consecutive elements, one vector access (P % 4 == 0 and aligned bases: launchSkipGemmTc).
template <typename T>
struct alignas(4 * sizeof(T)) Quad {
    T v[4];
};

}  // namespace skiptc

// One block's tile: points blockP * NP.., output channels blockO * 64.., batch item n, 256 threads;
// smem: Tile<NP>::kSmemFloats floats, 16-byte aligned. VEC: x and y rows are accessed four elements at a
// time (P % 4 == 0, aligned bases). P = prod(S) < 2^31 (validated tensors); channel offsets are 64-bit.
// The kernel below runs it on its grid; skip_r2c_colaunch.cuh runs it beside another pass's blocks.
template <typename T, bool VEC, int NP>
__device__ __forceinline__ void skipGemmTcBlock(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, int Cin,
                                                int Cout, int P, int blockP, int blockO, int n, float* __restrict__ smem) {
    using namespace skiptc;
    using L = Tile<NP>;
    constexpr int kN = L::kN, kK = L::kK, kMI = L::kMI, kNI = L::kNI, kWStride = L::kWStride, kXStride = L::kXStride;
    constexpr int kQuadsPerRow = L::kQuadsPerRow, kRowsPerPass = L::kRowsPerPass, kXQuads = L::kXQuads;
    constexpr int kWElems = L::kWElems, kCQuads = L::kCQuads;
    float* Ws = smem;                   // [kM][kWStride], this step's W[o0.., c0..]
    float* Xs = smem + kM * kWStride;   // [kK][kXStride], this step's x[n, c0.., p0..]
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int wo = (warp / L::kWarpsP) * (16 * kMI), wp = (warp % L::kWarpsP) * (8 * kNI);  // the warp's tile
    const int p0 = blockP * kN, o0 = blockO * kM;
    const T* xn = x + static_cast<size_t>(n) * Cin * P;
    // x and C tiles: this thread's element (q, j), j < 4, q < kXQuads (x) or kCQuads (C). VEC: row
    // qRow + kRowsPerPass q, points qCol + j (one vector access); else row qRow + kRowsPerPass q +
    // jRow j, point qCol, so that a warp's scalar accesses still cover 32 consecutive points
    const int qRow = VEC ? tid / kQuadsPerRow : tid / kN, qCol = VEC ? 4 * (tid % kQuadsPerRow) : tid % kN;
    constexpr int jRow = VEC ? 0 : kTcThreads / kN;
    const int qp = p0 + qCol;
    const T zero = fromFloat<T>(0.f);

    // raw elements of a step, converted when stored to shared memory (register double buffering)
    T xr[kXQuads][4], wr[kWElems];
    // running pointers: x row qRow of the step, W element (o0 + tid / kK, tid % kK) of the step
    const T* xq = xn + static_cast<size_t>(qRow) * P + qp;
    const size_t xRowsStep = static_cast<size_t>(kRowsPerPass) * P;
    const int wo0 = o0 + tid / kK, wc0 = tid % kK;
    const T* wq = w + static_cast<size_t>(wo0) * Cin + wc0;
    const size_t wRowsStep = static_cast<size_t>(kTcThreads / kK) * Cin;
    auto load = [&](int c0) {
#pragma unroll
        for (int q = 0; q < kXQuads; ++q) {
            const int c = c0 + qRow + kRowsPerPass * q;  // + jRow * j
            const T* src = xq + q * xRowsStep;
            if constexpr (VEC) {
                const Quad<T> v = (c < Cin && qp < P) ? *reinterpret_cast<const Quad<T>*>(src) : Quad<T>{{zero, zero, zero, zero}};
#pragma unroll
                for (int j = 0; j < 4; ++j) xr[q][j] = v.v[j];
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    xr[q][j] = (c + jRow * j < Cin && qp < P) ? src[static_cast<size_t>(jRow * j) * P] : zero;
            }
        }
#pragma unroll
        for (int r = 0; r < kWElems; ++r)  // consecutive threads along c (W rows are contiguous in c)
            wr[r] = (c0 + wc0 < Cin && wo0 + (kTcThreads / kK) * r < Cout) ? wq[r * wRowsStep] : zero;
        xq += kK * static_cast<size_t>(P);
        wq += kK;
    };
    auto store = [&]() {
#pragma unroll
        for (int q = 0; q < kXQuads; ++q) {
            float* dst = &Xs[(qRow + kRowsPerPass * q) * kXStride + qCol];
            if constexpr (VEC) {
                *reinterpret_cast<float4*>(dst) = make_float4(toFloat(xr[q][0]), toFloat(xr[q][1]), toFloat(xr[q][2]), toFloat(xr[q][3]));
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) dst[jRow * j * kXStride] = toFloat(xr[q][j]);
            }
        }
#pragma unroll
        for (int r = 0; r < kWElems; ++r) {
            const int e = tid + kTcThreads * r;
            Ws[(e / kK) * kWStride + e % kK] = toFloat(wr[r]);
        }
    };

    float acc[kMI][kNI][4] = {};  // [m tile][n tile][C fragment]
    gridDependencyWait();     // x and y may belong to the previous kernel (pdl.cuh)
    load(0);
    for (int c0 = 0; c0 < Cin; c0 += kK) {
        __syncthreads();  // the previous step's tiles are consumed
        store();
        __syncthreads();
        if (c0 + kK < Cin) load(c0 + kK);
#pragma unroll 1  // unrolled, the two k8 halves need > 128 registers (spills at 2 blocks per SM)
        for (int kk = 0; kk < kK; kk += 8) {
            Tf32Pair a[kMI][4];
#pragma unroll
            for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    a[mi][r] = splitTf32(Ws[(wo + 16 * mi + g + 8 * (r & 1)) * kWStride + kk + t + 4 * (r >> 1)]);
#pragma unroll
            for (int ni = 0; ni < kNI; ++ni) {
                Tf32Pair b[2];
#pragma unroll
                for (int r = 0; r < 2; ++r) b[r] = splitTf32(Xs[(kk + t + 4 * r) * kXStride + wp + 8 * ni + g]);
#pragma unroll
                for (int mi = 0; mi < kMI; ++mi) {
                    float d[4] = {0.f, 0.f, 0.f, 0.f};
                    mma3xTf32(d, a[mi], b);
#pragma unroll
                    for (int r = 0; r < 4; ++r) acc[mi][ni][r] += d[r];
                }
            }
        }
    }
    allowDependentLaunch();

    // epilogue: fragments -> shared memory (reusing the stage) -> rows of y along p
    __syncthreads();
    float* Cs = smem;  // [kM][kXStride]
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
        for (int ni = 0; ni < kNI; ++ni)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                *reinterpret_cast<float2*>(&Cs[(wo + 16 * mi + g + 8 * h) * kXStride + wp + 8 * ni + 2 * t]) =
                    make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
    __syncthreads();
    T* yn = y + static_cast<size_t>(n) * Cout * P;
#pragma unroll
    for (int q = 0; q < kCQuads; ++q) {
        const int row = qRow + kRowsPerPass * q;
        const float* src = &Cs[row * kXStride + qCol];
        if constexpr (VEC) {
            const int o = o0 + row;
            if (o < Cout && qp < P) {
                const float4 v = *reinterpret_cast<const float4*>(src);
                *reinterpret_cast<Quad<T>*>(yn + static_cast<size_t>(o) * P + qp) =
                    Quad<T>{{fromFloat<T>(v.x), fromFloat<T>(v.y), fromFloat<T>(v.z), fromFloat<T>(v.w)}};
            }
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int o = o0 + row + jRow * j;
                if (o < Cout && qp < P) yn[static_cast<size_t>(o) * P + qp] = fromFloat<T>(src[jRow * j * kXStride]);
            }
        }
    }
}

// grid (ceil(P / NP), ceil(Cout / 64), N), 256 threads (skipGemmTcBlock).
template <typename T, bool VEC, int NP>
__global__ void __launch_bounds__(skiptc::kTcThreads, 2) skipGemmTcKernel(const T* __restrict__ x, const T* __restrict__ w,
                                                                       T* __restrict__ y, int Cin, int Cout, int P) {
    __shared__ __align__(16) float smem[skiptc::Tile<NP>::kSmemFloats];
    skipGemmTcBlock<T, VEC, NP>(x, w, y, Cin, Cout, P, blockIdx.x, blockIdx.y, blockIdx.z, smem);
}

// The tile: 32 points where 128-point tiles give fewer than two blocks per SM (sm_count.h), else 128.
// Test hook (plan.h setSkipTcOverride): 2 forces 32, 3 forces 128.
inline int chooseSkipTcTile(int N, int Cout, int64_t P, int smCount) {
    const int forced = skipTcTileOverride();
    if (forced) return forced;
    return underTwoBlocksPerSm(static_cast<int64_t>(N) * ((P + 127) / 128) * ((Cout + skiptc::kM - 1) / skiptc::kM), smCount) ? 32 : 128;
}

// The launch geometry of one skip GEMM: the tile, vector access, and the grid (ceil(P / np), ceil(Cout / 64), N).
struct SkipTcConfig {
    int np = 128;
    bool vec = false;
    dim3 grid;
};

template <typename T>
cudaError_t skipTcConfig(const T* x, const T* y, int N, int Cout, int64_t P, SkipTcConfig* cfg) {
    using namespace skiptc;
    if (N > 65535 || (Cout + kM - 1) / kM > 65535) return cudaErrorInvalidConfiguration;
    int smCount = 0;
    if (const cudaError_t err = currentSmCount(&smCount); err != cudaSuccess) return err;
    cfg->np = chooseSkipTcTile(N, Cout, P, smCount);
    constexpr uintptr_t kAlign = 4 * sizeof(T);
    cfg->vec = P % 4 == 0 && reinterpret_cast<uintptr_t>(x) % kAlign == 0 && reinterpret_cast<uintptr_t>(y) % kAlign == 0;
    cfg->grid = dim3(static_cast<unsigned>((P + cfg->np - 1) / cfg->np), static_cast<unsigned>((Cout + kM - 1) / kM),
                     static_cast<unsigned>(N));
    return cudaSuccess;
}

template <typename T>
cudaError_t launchSkipGemmTc(const T* x, const T* w, T* y, int N, int Cin, int Cout, int64_t P, cudaStream_t stream) {
    SkipTcConfig c;
    if (const cudaError_t err = skipTcConfig(x, y, N, Cout, P, &c); err != cudaSuccess) return err;
    auto kernel = c.np == 32 ? (c.vec ? skipGemmTcKernel<T, true, 32> : skipGemmTcKernel<T, false, 32>)
                             : (c.vec ? skipGemmTcKernel<T, true, 128> : skipGemmTcKernel<T, false, 128>);
    return launchKernel(kernel, c.grid, dim3(skiptc::kTcThreads), 0, stream, x, w, y, Cin, Cout, static_cast<int>(P));
}

}  // namespace cuda
}  // namespace turbofno
