// The fused layer's 1x1 skip (docs/op.md, op version 2): y[n, o, p] = sum_c W[o, c] x[n, c, p],
// written to y before the layer's last kernel (the C2R pass, or the fused plane's inverse), whose
// epilogue adds the spectral part, the bias and the activation in place (so x is read once for the skip
// and y written twice, instead of ORT's Conv + Add + activation chain of separate tensors).
// Two kernels: the tensor-core one (skip_gemm_tc.cuh, 3xTF32, the default) and the plain fp32 FMA
// one below, kept as a reference for tests and timing (Plan::skipTc, setSkipTcOverride in plan.h).
#pragma once

#include "common.cuh"
#include "pdl.cuh"
#include "skip_gemm_tc.cuh"

namespace turbofno {
namespace cuda {

constexpr int kSkipTile = 64;  // outputs (o) x points (p) per block
constexpr int kSkipK = 16;     // input channels per step

// grid (ceil(P / 64), ceil(Cout / 64), N), 256 threads; each thread 4 x 4 outputs (o = ty + 16 i,
// p = tx + 16 j), fp32 accumulation. P = prod(S) < 2^31 (validated tensors).
template <typename T>
__global__ void __launch_bounds__(256) skipGemmKernel(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y,
                                                      int Cin, int Cout, int P) {
    __shared__ float Ws[kSkipK][kSkipTile + 1];
    __shared__ float Xs[kSkipK][kSkipTile];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int p0 = blockIdx.x * kSkipTile, o0 = blockIdx.y * kSkipTile, n = blockIdx.z;
    const T* xn = x + static_cast<size_t>(n) * Cin * P;
    float acc[4][4] = {};
    gridDependencyWait();  // x and y may belong to the previous kernel (pdl.cuh)
    for (int c0 = 0; c0 < Cin; c0 += kSkipK) {
        __syncthreads();
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int e = threadIdx.x + 256 * r;
            // W tile: consecutive threads along c (W rows are contiguous in c)
            const int cc = e % kSkipK, oo = e / kSkipK;
            const int c = c0 + cc, o = o0 + oo;
            Ws[cc][oo] = (c < Cin && o < Cout) ? toFloat(w[static_cast<size_t>(o) * Cin + c]) : 0.f;
            // x tile: consecutive threads along p
            const int pp = e % kSkipTile, cx = e / kSkipTile;
            const int p = p0 + pp, c2 = c0 + cx;
            Xs[cx][pp] = (c2 < Cin && p < P) ? toFloat(xn[static_cast<size_t>(c2) * P + p]) : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kSkipK; ++k) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = Ws[k][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Xs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    }
    allowDependentLaunch();
    T* yn = y + static_cast<size_t>(n) * Cout * P;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int o = o0 + ty + 16 * i;
        if (o >= Cout) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int p = p0 + tx + 16 * j;
            if (p < P) yn[static_cast<size_t>(o) * P + p] = fromFloat<T>(acc[i][j]);
        }
    }
}

template <typename T>
cudaError_t launchSkipGemm(const void* x, const void* w, void* y, int N, int Cin, int Cout, int64_t P, bool tensorCores,
                           cudaStream_t stream) {
    if (tensorCores)
        return launchSkipGemmTc<T>(static_cast<const T*>(x), static_cast<const T*>(w), static_cast<T*>(y), N, Cin, Cout, P, stream);
    if (N > 65535 || (Cout + kSkipTile - 1) / kSkipTile > 65535) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>((P + kSkipTile - 1) / kSkipTile), static_cast<unsigned>((Cout + kSkipTile - 1) / kSkipTile),
                    static_cast<unsigned>(N));
    return launchKernel(skipGemmKernel<T>, grid, dim3(256), 0, stream, static_cast<const T*>(x), static_cast<const T*>(w),
                        static_cast<T*>(y), Cin, Cout, static_cast<int>(P));
}

}  // namespace cuda
}  // namespace turbofno
