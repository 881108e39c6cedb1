// Row FFT stages for a radix list known at compile time (fftPassKernel<..., RADICES != 0>, fft_pass.cuh):
// the same Stockham stages as fftStage / fftTransform, with the line length N2, every stage's radix R, p
// and M = N2 / R as constants. Index divisions then become shifts (or a multiply-high), the twiddles of a
// unit are loads at constant offsets, and each unit's R shared-memory values sit at constant offsets
// from one address (the padding below is linear along them). The row FFT kernels are bound by their
// instruction issue, much of it index math (plugins/cuda/README.md); the lengths of the common layers
// run this way (kFftStaticRadices), every other length on the run-time kernel.
#pragma once

#include "dft_pass.h"
#include "fft_radix.cuh"

namespace turbofno {
namespace cuda {

// floor(a / C) for 0 <= a < 2^21: an unsigned division by the constant C > 0, else (C == 0) fftDiv by the
// run-time divisor whose reciprocal is inv.
template <int C> __device__ __forceinline__ int fftDivBy(int a, float inv) {
    if constexpr (C > 0) return static_cast<int>(static_cast<unsigned>(a) / static_cast<unsigned>(C));
    else return fftDiv(a, inv);
}

// The block's lines in shared memory for a compile-time N2: FftSmemLines' layout (value j of line l at
// fftPad(l * N2 + j, 4) where PAD, at l * N2 + j otherwise), with loads / stores whose R offsets are
// constants. PAD needs N2 % 16 == 0 (then l * N2 shifts the padding by whole slots).
template <int N2, bool PAD> struct FftSmemStatic {
    static_assert(!PAD || N2 % 16 == 0, "padded lines: N2 a multiple of 16");
    static constexpr bool kGlobal = false;
    float2* buf;
    static __device__ __forceinline__ int pad(int e) { return PAD ? e + (e >> 4) : e; }
    // e + m * STRIDE padded, as offset(e) + constant(m), for e = (a multiple of 16) + x with x < STRIDE
    // where STRIDE < 16 (a power of two dividing 16: x + m STRIDE stays below the next multiple of 16
    // after m STRIDE), any e where STRIDE % 16 == 0.
    template <int STRIDE> static __device__ __forceinline__ constexpr int step(int m) {
        return PAD ? m * STRIDE + ((m * STRIDE) >> 4) : m * STRIDE;
    }
    __device__ __forceinline__ float2& at(int l, int j) const { return buf[pad(l * N2 + j)]; }
    // v[r] = z_l[i + r * STRIDE] (i < STRIDE)
    template <int R, int STRIDE> __device__ __forceinline__ void loadS(int l, int i, float2 (&v)[R]) const {
        const float2* b = buf + (STRIDE % 16 == 0 || !PAD ? pad(l * N2 + i) : pad(l * N2) + i);
#pragma unroll
        for (int r = 0; r < R; ++r) v[r] = b[step<STRIDE>(r)];
    }
    // z_l[q0 + k + m * STRIDE] = v[m] (k < STRIDE, q0 a multiple of STRIDE * R)
    template <int R, int STRIDE> __device__ __forceinline__ void storeS(int l, int q0, int k, const float2 (&v)[R]) const {
        if constexpr (PAD && STRIDE % 16 != 0 && (STRIDE * R) % 16 != 0) {  // q0 not a multiple of 16: plain
#pragma unroll
            for (int m = 0; m < R; ++m) buf[pad(l * N2 + q0 + k + m * STRIDE)] = v[m];
        } else {
            float2* b = buf + (STRIDE % 16 == 0 || !PAD ? pad(l * N2 + q0 + k) : pad(l * N2 + q0) + k);
#pragma unroll
            for (int m = 0; m < R; ++m) b[step<STRIDE>(m)] = v[m];
        }
    }
};

// One stage (fftStage's contract) with compile-time R, P (the earlier radices' product) and N2.
template <int R, int P, int N2, bool INV, bool SYNC_MID, int THREADS = kFftThreads, class In, class Out>
__device__ __forceinline__ void fftStageStatic(const float2* tw, int lines, const In& in, const Out& out) {
    constexpr unsigned M = N2 / R;
    constexpr int kMaxUnits = (kFftMaxPoints / R + THREADS - 1) / THREADS;
    const unsigned units = static_cast<unsigned>(lines) * M;
    float2 v[kMaxUnits][R] = {};
#pragma unroll
    for (int j = 0; j < kMaxUnits; ++j) {
        const unsigned u = threadIdx.x + j * THREADS;
        if (u < units) in.template loadS<R, M>(static_cast<int>(u / M), static_cast<int>(u % M), v[j]);
    }
#pragma unroll
    for (int j = 0; j < kMaxUnits; ++j) {
        const unsigned u = threadIdx.x + j * THREADS;
        if (u < units) {
            if constexpr (P > 1) {
                const float2* t = tw + (u % M) % P;
#pragma unroll
                for (int r = 1; r < R; ++r) v[j][r] = fftTw<INV>(v[j][r], t[(r - 1) * P]);
            }
            fftDft<R, INV>(v[j]);
        }
    }
    if constexpr (SYNC_MID) __syncthreads();
#pragma unroll
    for (int j = 0; j < kMaxUnits; ++j) {
        const unsigned u = threadIdx.x + j * THREADS;
        if (u < units) {
            const unsigned i = u % M, q = i / P;
            out.template storeS<R, P>(static_cast<int>(u / M), static_cast<int>(q * P * R), static_cast<int>(i - q * P), v[j]);
        }
    }
}

// fftTransform (rows) for the compile-time list RADICES from its stage at P on; the last stage writes the
// shared lines (no direct C2R).
template <unsigned RADICES, int P, int N2, bool INV, bool IS_FIRST, int THREADS = kFftThreads, class First, class Sm, class Last>
__device__ __forceinline__ void fftTransformStatic(const float2* tw, int lines, const First& first, const Sm& sm,
                                                   const Last& last) {
    // the compile-time kernels run the planner's stage variant, whose C2R writes y after the last stage
    static_assert(!Last::kGlobal, "the last stage writes the shared lines (fftDirectDefault: the C2R staged)");
    constexpr int R = fftRadixOf(RADICES & 15u);
    constexpr bool kIsLast = (RADICES >> 4) == 0;
    const float2* t = tw + (P - 1);
    if constexpr (First::kGlobal && IS_FIRST) {
        fftStageStatic<R, P, N2, INV, false, THREADS>(t, lines, first, sm);
        __syncthreads();
    } else {
        fftStageStatic<R, P, N2, INV, true, THREADS>(t, lines, sm, sm);
        __syncthreads();
    }
    if constexpr (!kIsLast) fftTransformStatic<(RADICES >> 4), P * R, N2, INV, false, THREADS>(tw, lines, first, sm, last);
}

}  // namespace cuda
}  // namespace turbofno
