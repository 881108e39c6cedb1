// Tensor-core helpers of the d = 2 DFT kernels (tc_forward.cuh, tc_inverse.cuh): a warp-level
// 16x16 tile GEMM on fp32 shared-memory operands through wmma TF32 (m16n16k8), and the fill of
// DFT matrices from a twiddle table.
//
// fp32 (kSplit): error-compensated 3xTF32, a = hi + lo with hi = tf32(a), lo = tf32(a - hi), and
// a*b ~ hi*hi' + hi*lo' + lo*hi' (the lo*lo' term is below fp32 rounding), so the DFTs keep fp32
// accuracy. fp16 / bf16 layers: one TF32 product (10-bit mantissa, like the inputs), fp32 accumulate.
#pragma once

#include <mma.h>

#include <type_traits>

#include "common.cuh"

namespace turbofno {
namespace cuda {

namespace wmma = nvcuda::wmma;
using TcFragA = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using TcFragB = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using TcAcc = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;

// acc += A[16 x K] * B[K x 16]; A, B row-major fp32 in shared memory, K a multiple of 8, lda / ldb
// multiples of 4 and every tile start 32-byte aligned (the plan's layouts guarantee it).
template <bool kSplit>
__device__ __forceinline__ void tcTileMma(TcAcc& acc, const float* A, int lda, const float* B, int ldb, int K) {
    for (int kk = 0; kk < K; kk += 8) {
        TcFragA aHi;
        TcFragB bHi;
        wmma::load_matrix_sync(aHi, A + kk, lda);
        wmma::load_matrix_sync(bHi, B + static_cast<size_t>(kk) * ldb, ldb);
        if constexpr (kSplit) {
            TcFragA aLo;
            TcFragB bLo;
#pragma unroll
            for (int i = 0; i < aHi.num_elements; ++i) {
                const float v = aHi.x[i];
                const float h = wmma::__float_to_tf32(v);
                aHi.x[i] = h;
                aLo.x[i] = wmma::__float_to_tf32(v - h);
            }
#pragma unroll
            for (int i = 0; i < bHi.num_elements; ++i) {
                const float v = bHi.x[i];
                const float h = wmma::__float_to_tf32(v);
                bHi.x[i] = h;
                bLo.x[i] = wmma::__float_to_tf32(v - h);
            }
            wmma::mma_sync(acc, aLo, bHi, acc);  // small terms first
            wmma::mma_sync(acc, aHi, bLo, acc);
        } else {
#pragma unroll
            for (int i = 0; i < aHi.num_elements; ++i) aHi.x[i] = wmma::__float_to_tf32(aHi.x[i]);
#pragma unroll
            for (int i = 0; i < bHi.num_elements; ++i) bHi.x[i] = wmma::__float_to_tf32(bHi.x[i]);
        }
        wmma::mma_sync(acc, aHi, bHi, acc);
    }
}

// (a * b) mod S for a, b >= 0: 32-bit remainder when the product fits (the common case), else 64-bit.
__device__ __forceinline__ int mulModFast(int a, int b, int S) {
    const unsigned long long prod = static_cast<unsigned long long>(static_cast<unsigned>(a)) * static_cast<unsigned>(b);
    return prod <= 0xffffffffull ? static_cast<int>(static_cast<unsigned>(prod) % static_cast<unsigned>(S))
                                 : static_cast<int>(prod % static_cast<unsigned long long>(S));
}

// One column (or row) of a DFT matrix: twiddle index (mult * position) mod S and which component
// to store: 0 cos, 1 -sin, 2 +sin, -1 a zero column (padding / modes outside the tile).
struct DftLine {
    int mult;
    int sel;
};

// M[i * walkStride + j * fixStride] = component(tab[(line(j).mult * (walkBase + i)) mod S]) for
// i < nWalk, j < nFix; zero where i >= walkValid. Each thread walks i with a running index (no
// division in the loop); blockDim / nFix threads share a line.
template <class LineFn>
__device__ __forceinline__ void fillDft(float* M, int walkStride, int fixStride, int nWalk, int walkValid, int walkBase,
                                        int nFix, int S, const float2* tab, LineFn line) {
    const int walkers = max(1, static_cast<int>(blockDim.x) / nFix);
    for (int e = threadIdx.x; e < nFix * walkers; e += blockDim.x) {
        const int j = e % nFix, i0 = e / nFix;
        const DftLine L = line(j);
        int idx = mulModFast(L.mult, walkBase + i0, S);
        const int step = mulModFast(L.mult, walkers, S);
        float* col = M + static_cast<size_t>(j) * fixStride;
        for (int i = i0; i < nWalk; i += walkers) {
            float v = 0.f;
            if (L.sel >= 0 && i < walkValid) {
                const float2 w = tab[idx];
                v = L.sel == 0 ? w.x : (L.sel == 1 ? -w.y : w.y);
            }
            col[static_cast<size_t>(i) * walkStride] = v;
            idx = addMod(idx, step, S);
        }
    }
}

}  // namespace cuda
}  // namespace turbofno
