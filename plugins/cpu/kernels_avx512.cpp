// AVX-512F kernels. Every function carries its own target attribute (no -m flags for this file),
// so nothing here runs unless cpuKernels() found AVX-512F at run time.
#include "kernels.h"

#if TURBOFNO_CPU_X86_SIMD

#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // gcc 12 false positive inside avx512fintrin.h

#include <algorithm>
#include <cstdint>

#include "activation.h"
#include "half.h"
#include "kernels.h"

#define TFNO_AVX512 __attribute__((target("avx512f,avx2,fma")))

namespace turbofno {
namespace cpu {
namespace {

constexpr int kMr = 8;   // rows per register tile
constexpr int kNr = 32;  // columns per register tile (two zmm)
// Software prefetch distance (floats) for the weight stream of the mixing kernel: the weights are
// read once per call from DRAM, and prefetching 1 KB ahead per row about halves the stall time.
constexpr int64_t kWeightPrefetch = 256;

// C[MR, <=16*NV] = A[MR, K] * B[K, ..] (+ rowBias). 2*MR accumulators live in registers;
// B rows are loaded once per k and reused by all MR rows, A values are broadcast.
// Masked store, or a non-temporal store when asked for and the vector is full and aligned.
TFNO_AVX512 inline void storeC(float* p, __mmask16 m, __m512 v, bool stream) {
    if (stream && m == 0xffff && (reinterpret_cast<uintptr_t>(p) & 63) == 0)
        _mm512_stream_ps(p, v);
    else
        _mm512_mask_storeu_ps(p, m, v);
}

template <int MR, int NV>
TFNO_AVX512 inline void tile(int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                             int64_t ldc, __mmask16 m0, __mmask16 m1, const float* rowBias, bool stream, bool acc) {
    __m512 acc0[MR], acc1[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        acc0[r] = rowBias ? _mm512_set1_ps(rowBias[r]) : _mm512_setzero_ps();
        acc1[r] = acc0[r];
        if (acc) {
            acc0[r] = _mm512_add_ps(acc0[r], _mm512_maskz_loadu_ps(m0, C + r * ldc));
            if (NV == 2) acc1[r] = _mm512_add_ps(acc1[r], _mm512_maskz_loadu_ps(m1, C + r * ldc + 16));
        }
    }
    for (int64_t p = 0; p < K; ++p) {
        const float* b = B + p * ldb;
        const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
        const __m512 b1 = NV == 2 ? _mm512_maskz_loadu_ps(m1, b + 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
            const __m512 a = _mm512_set1_ps(A[r * lda + p]);
            acc0[r] = _mm512_fmadd_ps(a, b0, acc0[r]);
            if (NV == 2) acc1[r] = _mm512_fmadd_ps(a, b1, acc1[r]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        storeC(C + r * ldc, m0, acc0[r], stream);
        if (NV == 2) storeC(C + r * ldc + 16, m1, acc1[r], stream);
    }
}

template <int NV>
TFNO_AVX512 void tileRows(int rows, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                          int64_t ldc, __mmask16 m0, __mmask16 m1, const float* rowBias, bool stream, bool acc) {
    switch (rows) {
        case 8: tile<8, NV>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 7: tile<7, NV>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 6: tile<6, NV>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 5: tile<5, NV>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 4: tile<4, NV>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 3: tile<3, NV>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 2: tile<2, NV>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        default: tile<1, NV>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
    }
}

TFNO_AVX512 __mmask16 firstLanes(int64_t n) {
    return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

TFNO_AVX512 void sgemmAvx512(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
                             int64_t ldb, float* C, int64_t ldc, const float* bias, int64_t rowsPerBias,
                             bool streamC, bool accumulate) {
    float rowBias[kMr];
    // Several column panels of a small B whose row stride is a multiple of 1 KB (rows alias in the
    // L1 cache): copy B into contiguous K x kNr panels (zero-padded) first. Large B is used in
    // place (the copy would cost about as much as the product).
    const bool pack = N > kNr && ldb % 256 == 0 && K * N <= 65536;
    float* packed = nullptr;
    if (pack) {
        const int64_t panels = (N + kNr - 1) / kNr;
        packed = gemmPackBuffer(panels * K * kNr);
        for (int64_t pnl = 0; pnl < panels; ++pnl) {
            const int64_t j0 = pnl * kNr, cols = std::min<int64_t>(kNr, N - j0);
            float* dst = packed + pnl * K * kNr;
            for (int64_t p = 0; p < K; ++p) {
                for (int64_t c = 0; c < cols; ++c) dst[p * kNr + c] = B[p * ldb + j0 + c];
                for (int64_t c = cols; c < kNr; ++c) dst[p * kNr + c] = 0.0f;
            }
        }
    }
    // Column panels outermost: one K x kNr panel of B stays in L1 while A streams past it.
    for (int64_t j0 = 0; j0 < N; j0 += kNr) {
        const int64_t cols = std::min<int64_t>(kNr, N - j0);
        const __mmask16 m0 = firstLanes(cols), m1 = firstLanes(cols - 16 > 0 ? cols - 16 : 0);
        const float* b = pack ? packed + (j0 / kNr) * K * kNr : B + j0;
        const int64_t ldbPanel = pack ? kNr : ldb;
        for (int64_t i0 = 0; i0 < M; i0 += kMr) {
            const int rows = static_cast<int>(std::min<int64_t>(kMr, M - i0));
            if (bias)
                for (int r = 0; r < rows; ++r) rowBias[r] = bias[(i0 + r) / rowsPerBias];
            const float* rb = bias ? rowBias : nullptr;
            if (cols > 16)
                tileRows<2>(rows, K, A + i0 * lda, lda, b, ldbPanel, C + i0 * ldc + j0, ldc, m0, m1, rb, streamC,
                             accumulate);
            else
                tileRows<1>(rows, K, A + i0 * lda, lda, b, ldbPanel, C + i0 * ldc + j0, ldc, m0, m1, rb, streamC,
                             accumulate);
        }
    }
    if (streamC) _mm_sfence();  // order the non-temporal stores before the caller signals completion
}

// y_n += sum_r x_n[r] * w[r] on interleaved complex. Per 8 complex values: acc1 gathers
// (xr*wr, xr*wi), acc2 (xi*wr, xi*wi); then y = acc1 + (-acc2_im, acc2_re), i.e. one swap per
// output vector instead of one per product.
template <int ROWS>
TFNO_AVX512 inline void complexMacRows(float* y, int64_t yStride, const float* const* x, int64_t xStride,
                                       const float* const* w, int64_t batch, int64_t count) {
    const int64_t n2 = 2 * count;
    const __m512 ones = _mm512_set1_ps(1.0f);
    for (int64_t i = 0; i < n2; i += 16) {
        const __mmask16 m = firstLanes(n2 - i);
        __m512 wv[ROWS];
#pragma GCC unroll 4
        for (int r = 0; r < ROWS; ++r) {
            wv[r] = _mm512_maskz_loadu_ps(m, w[r] + i);
            _mm_prefetch(reinterpret_cast<const char*>(w[r] + i + kWeightPrefetch), _MM_HINT_T0);  // never faults
        }
        for (int64_t n = 0; n < batch; ++n) {
            float* yn = y + n * yStride + i;
            __m512 acc1 = _mm512_maskz_loadu_ps(m, yn);
            __m512 acc2 = _mm512_setzero_ps();
#pragma GCC unroll 4
            for (int r = 0; r < ROWS; ++r) {
                const __m512 xv = _mm512_maskz_loadu_ps(m, x[r] + n * xStride + i);
                acc1 = _mm512_fmadd_ps(_mm512_moveldup_ps(xv), wv[r], acc1);
                acc2 = _mm512_fmadd_ps(_mm512_movehdup_ps(xv), wv[r], acc2);
            }
            _mm512_mask_storeu_ps(yn, m, _mm512_fmaddsub_ps(ones, acc1, _mm512_permute_ps(acc2, 0xB1)));
        }
    }
}

TFNO_AVX512 void complexMacAvx512(float* y, int64_t yStride, const float* const* x, int64_t xStride,
                                  const float* const* w, int rows, int64_t batch, int64_t count) {
    switch (rows) {
        case 4: complexMacRows<4>(y, yStride, x, xStride, w, batch, count); break;
        case 3: complexMacRows<3>(y, yStride, x, xStride, w, batch, count); break;
        case 2: complexMacRows<2>(y, yStride, x, xStride, w, batch, count); break;
        default: complexMacRows<1>(y, yStride, x, xStride, w, batch, count); break;
    }
}

// F16C-style conversions (AVX-512F has the 16-wide forms); scalar tails.
TFNO_AVX512 void halfToFloatAvx512(const uint16_t* src, int64_t count, float* dst) {
    int64_t i = 0;
    for (; i + 16 <= count; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
    for (; i < count; ++i) dst[i] = halfToFloat(src[i]);
}

TFNO_AVX512 void floatToHalfAvx512(const float* src, int64_t count, uint16_t* dst) {
    int64_t i = 0;
    for (; i + 16 <= count; i += 16)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < count; ++i) dst[i] = floatToHalf(src[i]);
}

TFNO_AVX512 void activationAvx512(const float* src, float* dst, int64_t count, int32_t activation) {
    applyActivation(src, dst, count, activation);
}

}  // namespace

CpuKernels avx512Kernels() {
    return {"avx512", sgemmAvx512, complexMacAvx512, halfToFloatAvx512, floatToHalfAvx512, activationAvx512};
}

}  // namespace cpu
}  // namespace turbofno

#endif
