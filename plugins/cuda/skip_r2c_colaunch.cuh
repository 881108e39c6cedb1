// The fused layer's skip GEMM and its first forward pass as one grid (Plan::skipCoLaunch, plan.cpp).
//
// Why: both read only x and are independent, and on small 1D layers (the bundled Burgers model: 32 x 64
// x 256, the R2C on the radix-2 kernel) each is a latency-bound kernel of a few microseconds that
// leaves most of the GPU idle; launched one after the other they cost the sum. One grid whose first
// blocks run skipGemmTcBlock (skip_gemm_tc.cuh) and whose remaining blocks run fftRadix2PassBlock
// (fft_pass_radix2.cuh, R2C) runs them side by side. The skip blocks come first: they are the longer
// ones. Both bodies keep their own grid-dependency wait and trigger (pdl.cuh), so the next kernel
// (mixing) still waits for all of them. Same arithmetic as the two kernels: results are bitwise equal.
// Registers: the larger body's (the skip GEMM's, <= 128 at 2 blocks per SM).
#pragma once

#include <algorithm>

#include "fft_pass_radix2.cuh"
#include "skip_gemm_tc.cuh"

namespace turbofno {
namespace cuda {

// Blocks [0, skipBlocks): skip GEMM tile (blockP, blockO, n) in that order (the skip grid linearized);
// [skipBlocks, skipBlocks + R2C blocks): R2C block b - skipBlocks.
template <typename T, bool VEC, int NP>
__global__ void __launch_bounds__(skiptc::kTcThreads, 2)
    skipAndR2cKernel(DftPass p, const T* __restrict__ x, float2* __restrict__ spec, const T* __restrict__ w, T* __restrict__ y,
                     int Cin, int Cout, int P, unsigned skipBlocksP, unsigned skipBlocksO, unsigned skipBlocks) {
    static_assert(skiptc::kTcThreads == kFftRadix2Threads, "one block size for both bodies");
    extern __shared__ __align__(16) float fftSmem[];
    const unsigned b = blockIdx.x;
    if (b >= skipBlocks) {
        fftRadix2PassBlock<PassKind::kR2C, T>(p, x, spec, nullptr, static_cast<int>(b - skipBlocks), fftSmem);
        return;
    }
    const unsigned bo = b / skipBlocksP;
    skipGemmTcBlock<T, VEC, NP>(x, w, y, Cin, Cout, P, static_cast<int>(b % skipBlocksP), static_cast<int>(bo % skipBlocksO),
                                static_cast<int>(bo / skipBlocksO), fftSmem);
}

// The launch (Plan::skipCoLaunch): p is the radix-2 R2C pass of x into spec, the skip GEMM writes
// y[n, o, :] = W[o, :] x[n, :, :] as launchSkipGemmTc would. cudaErrorInvalidConfiguration where the
// pass or the grid does not fit (the planner only co-launches where both do).
template <typename T>
cudaError_t launchSkipAndR2c(const DftPass& p, const T* x, float2* spec, const T* w, T* y, int N, int Cin, int Cout, int64_t P,
                             cudaStream_t stream) {
    if (!fftRadix2PassFits(p)) return cudaErrorInvalidConfiguration;
    SkipTcConfig c;
    if (const cudaError_t err = skipTcConfig(x, y, N, Cout, P, &c); err != cudaSuccess) return err;
    const int64_t skipBlocks = int64_t{c.grid.x} * c.grid.y * c.grid.z;
    const int64_t r2cBlocks = (static_cast<int64_t>(p.N) + p.fftLines - 1) / p.fftLines;
    if (skipBlocks + r2cBlocks > 2147483647LL) return cudaErrorInvalidConfiguration;
    const size_t skipSmem = (c.np == 32 ? skiptc::Tile<32>::kSmemFloats : skiptc::Tile<128>::kSmemFloats) * sizeof(float);
    const size_t smem = std::max(skipSmem, fftRadix2SmemBytes(p.S, p.fftLines));  // <= 40 KB: no opt-in
    auto kernel = c.np == 32 ? (c.vec ? skipAndR2cKernel<T, true, 32> : skipAndR2cKernel<T, false, 32>)
                             : (c.vec ? skipAndR2cKernel<T, true, 128> : skipAndR2cKernel<T, false, 128>);
    return launchKernel(kernel, dim3(static_cast<unsigned>(skipBlocks + r2cBlocks)), dim3(skiptc::kTcThreads), smem, stream, p, x,
                        spec, w, y, Cin, Cout, static_cast<int>(P), c.grid.x, c.grid.y, static_cast<unsigned>(skipBlocks));
}

}  // namespace cuda
}  // namespace turbofno
