// The plane FFT kernels of the separable algorithm (SeparablePlan::plane, chosen by planSeparable): a small 2D
// layer's two forward passes, the last-axis R2C and the leading-axis column FFT, as one kernel, and its two
// inverse passes, the column inverse FFT and the C2R, as another. A block owns one (n, c) plane of S1 x S2
// points, which stays in shared memory between the two axes: the intermediate spectrum [N, C, S1, kd] never
// touches global memory, and a small layer runs three kernels (plane forward, mixing, plane inverse) instead of
// five latency-bound ones. Same arithmetic and order as the row and column kernels (fft_pass.cuh), whose
// Stockham stages, tables and C2R pack these kernels reuse; the passes' DftPass structs give the views,
// kept-mode maps, scale, bias, skip and activation.
//
// Forward (fftPlaneForwardKernel): x's plane is copied into S1 shared lines of N2 = S2 / 2 complex values
// (coalesced, the lines are contiguous), the row FFT runs over all S1 lines, the kd kept bins of every line are
// unpacked (as the R2C does) into kd columns of S1 values at an odd pitch, the column FFT runs over them, and
// the kept rows (low block, then the high block ending at S1 - 1) are written to the spectrum.
// Inverse (fftPlaneInverseKernel): the kept rows of the mixed spectrum are scattered into zeroed columns, the
// inverse column FFT runs, the C2R pack builds each line's half-length spectrum from the columns, the inverse
// row FFT runs, and y is written with the C2R epilogue (scale, bias, the fused layer's skip, activation).
// Plane sizes: the pairs of kFftPlaneShapes (dft_pass.h), stage lists at compile time; blocks of 256 threads, or
// of 1024 on grids of fewer planes than SMs (one block per SM: four times the warps to hide each stage's latency). Deterministic, no host
// synchronisation, 32-bit offsets (planner limits).
#pragma once

#include <cstdint>
#include <type_traits>

#include "common.cuh"
#include "dft_pass.h"
#include "fft_pass.cuh"
#include "fft_pass_static.cuh"
#include "fft_radix.cuh"
#include "mixing_c2r.cuh"
#include "pdl.cuh"

namespace turbofno {
namespace cuda {

// The shared-memory layout of a plane block (fftPlaneSmemBytes in dft_pass.h sizes the same pieces).
template <int S1, int S2, unsigned ROW> struct FftPlaneSmem {
    static constexpr int kN2 = S2 / 2, kPitch = fftColumnPitch(S1);
    static constexpr bool kPad = (fftRadixOf(ROW & 15u) & 1) == 0;  // padded lines where the first radix is even
    float2 *rowTw, *root, *colTw, *rows, *cols;
    float* lineBias;
    __device__ __forceinline__ explicit FftPlaneSmem(float* smem, int kd) {
        rowTw = reinterpret_cast<float2*>(smem);
        root = rowTw + (kN2 - 1);
        colTw = root + (kN2 / 2 + 1);
        rows = colTw + (S1 - 1);
        cols = rows + fftBufValues(static_cast<size_t>(S1) * kN2);
        lineBias = reinterpret_cast<float*>(cols + kd * kPitch);
    }
};

// The inverse plane's input with the mixing inside (Plan::mixInC2R on a plane): the mixed
// kept bins of output plane `plane` = n * Cout + o, bin q = m * kd + k of the K x kd kept rows, scattered as
// fftScatterKeptRows does (row m to column entry m, or m + kOff in the high block; dropped at kLimit) into the
// zeroed columns. The input-channel sum runs in p.mixGroups thread groups whose partial sums wait in `red`
// (mixGroups * K * kd values; the plane's row buffer, unused until the C2R pack), added in a fixed order. p: the
// C2R pass with the mixing fields (mixKall = K * kd). Call after the grid-dependency wait with every thread;
// ends with a barrier.
template <typename T, int THREADS>
__device__ __forceinline__ void mixPlaneIntoColumns(const DftPass& p, const float2* __restrict__ specIn, const T* __restrict__ w,
                                                    int plane, int K, int kd, int kP, int kOff, int kLimit, float2* __restrict__ red,
                                                    const FftSmemLines& cols) {
    const int Q = K * kd, G = p.mixGroups, cin = p.mixCin;
    const int n = plane / p.mixCout, o = plane - n * p.mixCout;
    const size_t kall = static_cast<size_t>(p.mixKall);
    const size_t wStrideI = static_cast<size_t>(p.mixCout) * kall * 2;  // elements between input channels
    const float2* xn = specIn + static_cast<size_t>(n) * cin * kall;
    auto put = [&](int q, float2 v) {
        const int m = q / kd, k = q - m * kd;
        const int f = fftKeptRowIndex(m, kP, kOff);
        if (f < kLimit) cols.at(k, f) = v;
    };
    for (int t = threadIdx.x; t < Q * G; t += THREADS) {
        const int gi = t / Q, q = t - gi * Q;
        float2 acc = make_float2(0.f, 0.f);
        mixBinPartial<T>(p.mixSeparable, xn, w, o, q, gi, G, cin, kall, wStrideI, acc);
        if (G == 1) put(q, acc);
        else red[t] = acc;
    }
    if (G > 1) sumChannelGroups<THREADS>(red, Q, G, put);
    __syncthreads();
}

// The forward plane: src = x (T), dst = the kept spectrum (float2, the column pass's c view). Grid: one block per
// plane (col.N / col.b.inner), THREADS threads, fftPlaneSmemBytes(S1, S2, kd) of dynamic shared memory.
template <typename T, int S1, int S2, unsigned ROW, unsigned COL, int THREADS>
__global__ void __launch_bounds__(THREADS) fftPlaneForwardKernel(DftPass r2c, DftPass col, const T* __restrict__ x,
                                                                     float2* __restrict__ spec) {
    extern __shared__ __align__(16) float fftSmem[];
    using L = FftPlaneSmem<S1, S2, ROW>;
    constexpr int N2 = L::kN2;
    const int kd = r2c.M;
    const L s(fftSmem, kd);
    const FftSmemStatic<N2, L::kPad> rows{s.rows};
    const FftSmemLines cols{s.cols, L::kPitch, 31};
    const int tid = static_cast<int>(threadIdx.x), plane = static_cast<int>(blockIdx.x);

    fftFillTables<THREADS>(s.rowTw, s.root, N2, ROW);  // before the wait: overlaps the previous kernel's tail (pdl.cuh)
    fftFillTables<THREADS>(s.colTw, nullptr, S1, COL);
    gridDependencyWait();

    // the plane's S1 lines (contiguous: line stride S2, unit point stride), 4 loads in flight per thread
    const int line0 = plane * S1;
    const FftInputLines<T> in{x, line0, r2c.b.innerStride, r2c.b.rowStride, fftPairs<T>(x, r2c.b)};
#pragma unroll 4
    for (int e = tid; e < S1 * N2; e += THREADS) {
        const int l = e / N2, j = e - l * N2;
        float2 v[1];
        in.template load<1>(l, j, 0, v);
        rows.at(l, j) = v[0];
    }
    __syncthreads();  // the lines and the tables
    fftTransformStatic<ROW, 1, N2, false, false, THREADS>(s.rowTw, S1, rows, rows, rows);  // ends with a barrier

    // the kept bins k < kd of every line (fftPassKernel's R2C unpack) into column k, row l
    const float invKd = 1.f / static_cast<float>(kd);
    for (int i = tid; i < S1 * kd; i += THREADS) {
        const int l = fftDiv(i, invKd), k = i - l * kd;
        cols.at(k, l) = fftR2CBin(rows.at(l, k == N2 ? 0 : k), rows.at(l, k == 0 ? 0 : N2 - k), k, N2, s.root);
    }
    __syncthreads();
    fftColumnTransform<COL, false, THREADS>(s.colTw, S1, kd, COL, cols, cols, cols);  // ends with a barrier
    allowDependentLaunch();

    // the kept rows m < col.M of every column, from spectrum index m (low block) or m + mOff (high block)
    float2* out = spec + plane * col.c.outerStride;
    for (int e = tid; e < col.M * kd; e += THREADS) {
        const int m = fftDiv(e, invKd), k = e - m * kd;
        out[k * col.c.innerStride + m * col.c.rowStride] = cols.at(k, fftKeptRowIndex(m, col.mP, col.mOff));
    }
}

// The inverse plane: src = the mixed spectrum (float2, the column pass's b view), dst = y (T), bias per line
// (c2r.biasDiv / biasMod) or null. MIX (c2r.mixCin > 0): src is the forward spectrum and w the layer's weights,
// the plane's mixed bins are computed in the block (mixPlaneIntoColumns). Grid: one block per plane (col.N /
// col.b.inner).
template <typename T, int S1, int S2, unsigned ROW, unsigned COL, int THREADS, bool MIX>
__global__ void __launch_bounds__(THREADS) fftPlaneInverseKernel(DftPass col, DftPass c2r, const float2* __restrict__ spec,
                                                                     const T* __restrict__ w, T* __restrict__ y,
                                                                     const T* __restrict__ bias) {
    extern __shared__ __align__(16) float fftSmem[];
    using L = FftPlaneSmem<S1, S2, ROW>;
    constexpr int N2 = L::kN2;
    const int kd = col.b.inner;
    const L s(fftSmem, kd);
    const FftSmemStatic<N2, L::kPad> rows{s.rows};
    const FftSmemLines cols{s.cols, L::kPitch, 31};
    const int tid = static_cast<int>(threadIdx.x), plane = static_cast<int>(blockIdx.x);

    fftFillTables<THREADS>(s.rowTw, s.root, N2, ROW);  // before the wait (pdl.cuh)
    fftFillTables<THREADS>(s.colTw, nullptr, S1, COL);
    for (int e = tid; e < kd * L::kPitch; e += THREADS) s.cols[e] = make_float2(0.f, 0.f);
    gridDependencyWait();

    const int line0 = plane * S1;
    for (int l = tid; l < S1; l += THREADS)
        s.lineBias[l] = bias ? toFloat(bias[(static_cast<unsigned>(line0 + l) / static_cast<unsigned>(c2r.biasDiv)) %
                                            static_cast<unsigned>(c2r.biasMod)])
                             : 0.f;
    __syncthreads();  // the zeroed columns before the scatter
    // the K kept rows of every column to spectrum index k (low block) or k + kOff (high block), dropped at kLimit
    if constexpr (MIX) {  // ends with a barrier
        mixPlaneIntoColumns<T, THREADS>(c2r, spec, w, plane, col.K, kd, col.kP, col.kOff, col.kLimit, s.rows, cols);
    } else {
        fftScatterKeptRows<THREADS>(spec + plane * col.b.outerStride, col.b.innerStride, col.b.rowStride, col.K, kd,
                                    1.f / static_cast<float>(kd), col.kP, col.kOff, col.kLimit, cols);
        __syncthreads();
    }
    fftColumnTransform<COL, true, THREADS>(s.colTw, S1, kd, COL, cols, cols, cols);  // ends with a barrier

    // the C2R pack (fftPassKernel's): line l's bins k < K from column k, Z'[k] and Z'[N2 - k] per unit k <= N2 / 2
    const int K = c2r.K;
    constexpr int kHalf = N2 / 2 + 1;
    for (int i = tid; i < S1 * kHalf; i += THREADS) {
        const int l = i / kHalf, k = i - l * kHalf;
        const float2 xa = k < K ? cols.at(k, l) : make_float2(0.f, 0.f);            // X[k]
        const float2 xb = N2 - k < K ? cols.at(N2 - k, l) : make_float2(0.f, 0.f);  // X[N2 - k]
        float2 zk, zp;
        const bool partner = fftC2RPack(xa, xb, k, N2, s.root[k], zk, zp);
        rows.at(l, k) = zk;
        if (partner) rows.at(l, N2 - k) = zp;
    }
    allowDependentLaunch();
    __syncthreads();
    fftTransformStatic<ROW, 1, N2, true, false, THREADS>(s.rowTw, S1, rows, rows, rows);  // ends with a barrier
    const FftOutputLines<T> out{y, s.lineBias, line0, c2r.c.innerStride, c2r.c.rowStride, fftPairs<T>(y + line0 * c2r.c.innerStride, c2r.c),
                                FftC2REpilogue{c2r.scale, c2r.addY, c2r.activation}};
#pragma unroll 4
    for (int e = tid; e < S1 * N2; e += THREADS) {
        const int l = e / N2, j = e - l * N2;
        const float2 v[1] = {rows.at(l, j)};
        out.template store<1>(l, j, 0, v);
    }
}

// Launches of the plane kernels for the pass pairs planSeparable marked (SeparablePlan::plane: the threads per block,
// kFftPlaneThreads or kFftPlaneWideThreads): the forward's R2C + column pass, the inverse's column pass + C2R.
// cudaErrorInvalidConfiguration where the passes are not a plane of kFftPlaneShapes (fftPlaneShapeIndex), the
// block size is neither, or the shared memory would exceed 48 KB.
template <typename T, bool INV, size_t I = 0>
cudaError_t launchFftPlaneListed(int index, int threads, const DftPass& a, const DftPass& b, const void* src, const T* w, void* dst,
                                 const T* bias, cudaStream_t stream) {
    if constexpr (I >= kFftPlaneCount) {
        return cudaErrorInvalidConfiguration;
    } else {
        if (index != static_cast<int>(I))
            return launchFftPlaneListed<T, INV, I + 1>(index, threads, a, b, src, w, dst, bias, stream);
        constexpr FftPlaneShape P = kFftPlaneShapes[I];
        const DftPass& col = INV ? a : b;
        const int kd = col.b.inner;
        const size_t smem = fftPlaneSmemBytes(P.S1, P.S2, kd);
        if (kd < 1 || kd > P.S2 / 2 + 1 || smem > kFftSmemLimit || col.N % kd != 0) return cudaErrorInvalidConfiguration;
        const dim3 grid(static_cast<unsigned>(col.N / kd));
        auto launch = [&](auto block) {
            constexpr int B = decltype(block)::value;
            if constexpr (INV) {
                if (b.mixCin > 0)
                    return launchKernel(fftPlaneInverseKernel<T, P.S1, P.S2, P.row, P.col, B, true>, grid, dim3(B), smem, stream, a,
                                        b, static_cast<const float2*>(src), w, static_cast<T*>(dst), bias);
                return launchKernel(fftPlaneInverseKernel<T, P.S1, P.S2, P.row, P.col, B, false>, grid, dim3(B), smem, stream, a, b,
                                    static_cast<const float2*>(src), w, static_cast<T*>(dst), bias);
            } else
                return launchKernel(fftPlaneForwardKernel<T, P.S1, P.S2, P.row, P.col, B>, grid, dim3(B), smem, stream, a, b,
                                    static_cast<const T*>(src), static_cast<float2*>(dst));
        };
        if (threads == kFftPlaneThreads) return launch(std::integral_constant<int, kFftPlaneThreads>{});
        if (threads == kFftPlaneWideThreads) return launch(std::integral_constant<int, kFftPlaneWideThreads>{});
        return cudaErrorInvalidConfiguration;
    }
}

template <typename T>
cudaError_t launchFftPlaneForward(int threads, const DftPass& r2c, const DftPass& col, const T* x, float2* spec, cudaStream_t stream) {
    if (r2c.M != col.b.inner || col.inverse) return cudaErrorInvalidConfiguration;
    return launchFftPlaneListed<T, false>(fftPlaneShapeIndex(col.S, r2c.S), threads, r2c, col, x, nullptr, spec, nullptr, stream);
}

// spec: the mixed spectrum, or with c2r.mixCin > 0 the forward spectrum, mixed in the kernel with the weights w
// (mixGroups * K * kd partial sums must fit the plane's row buffer: fftPlaneMixGroupsFit).
template <typename T>
cudaError_t launchFftPlaneInverse(int threads, const DftPass& col, const DftPass& c2r, const float2* spec, const T* w, T* y,
                                  const T* bias, cudaStream_t stream) {
    if (c2r.K > col.b.inner || !col.inverse || col.M != col.S) return cudaErrorInvalidConfiguration;
    if (c2r.mixCin > 0 && (w == nullptr || c2r.mixKall != col.K * col.b.inner || c2r.mixGroups < 1 ||
                           !fftPlaneMixGroupsFit(col.S, c2r.S, col.K * col.b.inner, c2r.mixGroups)))
        return cudaErrorInvalidConfiguration;
    return launchFftPlaneListed<T, true>(fftPlaneShapeIndex(col.S, c2r.S), threads, col, c2r, spec, w, y, bias, stream);
}

}  // namespace cuda
}  // namespace turbofno
