// AVX2 + FMA + F16C kernels (x86-64 CPUs without AVX-512). Same structure as kernels_avx512.cpp with
// 8-wide vectors; every function carries its own target attribute.
#include "kernels.h"

#if TURBOFNO_CPU_X86_SIMD

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "activation.h"
#include "gelu_avx2.h"
#include "half.h"
#include "kernels.h"

#define TFNO_AVX2 __attribute__((target("avx2,fma,f16c")))

namespace turbofno {
namespace cpu {
namespace {

constexpr int kMr = 6;   // rows per register tile: 12 accumulators + 2 B + 1 A of 16 ymm
constexpr int kNr = 16;  // columns per register tile (two ymm)
constexpr int64_t kWeightPrefetch = 256;  // floats, see kernels_avx512.cpp

// Lane mask for the first n (0..8) of 8 floats.
TFNO_AVX2 inline __m256i firstLanes(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<int64_t>(n, 8))),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <bool MASKED>
TFNO_AVX2 inline __m256 load(const float* p, __m256i m) {
    return MASKED ? _mm256_maskload_ps(p, m) : _mm256_loadu_ps(p);
}

template <bool MASKED>
TFNO_AVX2 inline void store(float* p, __m256i m, __m256 v, bool stream = false) {
    if (MASKED)
        _mm256_maskstore_ps(p, m, v);
    else if (stream && (reinterpret_cast<uintptr_t>(p) & 31) == 0)
        _mm256_stream_ps(p, v);  // non-temporal: see SgemmFn streamC
    else
        _mm256_storeu_ps(p, v);
}

// acc[r] += A[r, 0..K) * B[0..K, 8 NV columns) for r < MR: the register tile's multiply-adds (one broadcast of
// A per row and step, B's row loaded once per step; masked loads where MASKED). PAIR: A's operand at step p is
// the pair A[r, 2p..2p+1] broadcast as (a, b, a, b, ..) (the pair product, kernels.h PairPanelFn).
template <int MR, int NV, bool MASKED, bool PAIR = false>
TFNO_AVX2 inline void tileProducts(int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, __m256i m0, __m256i m1,
                                   __m256 (&acc0)[MR], __m256 (&acc1)[MR]) {
    for (int64_t p = 0; p < K; ++p) {
        const float* b = B + p * ldb;
        const __m256 b0 = load<MASKED>(b, m0);
        const __m256 b1 = NV == 2 ? load<MASKED>(b + 8, m1) : _mm256_setzero_ps();
#pragma GCC unroll 6
        for (int r = 0; r < MR; ++r) {
            const __m256 a = PAIR ? _mm256_castpd_ps(_mm256_broadcast_sd(reinterpret_cast<const double*>(A + r * lda + 2 * p)))
                                  : _mm256_broadcast_ss(A + r * lda + p);
            acc0[r] = _mm256_fmadd_ps(a, b0, acc0[r]);
            if (NV == 2) acc1[r] = _mm256_fmadd_ps(a, b1, acc1[r]);
        }
    }
}

// C[MR, <=8*NV] = A[MR, K] * B[K, ..] (+ rowBias); masks only on the last column panel.
template <int MR, int NV, bool MASKED>
TFNO_AVX2 inline void tile(int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc,
                           __m256i m0, __m256i m1, const float* rowBias, bool stream, bool acc) {
    __m256 acc0[MR], acc1[MR];
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
        acc0[r] = rowBias ? _mm256_set1_ps(rowBias[r]) : _mm256_setzero_ps();
        acc1[r] = acc0[r];
        if (acc) {
            acc0[r] = _mm256_add_ps(acc0[r], load<MASKED>(C + r * ldc, m0));
            if (NV == 2) acc1[r] = _mm256_add_ps(acc1[r], load<MASKED>(C + r * ldc + 8, m1));
        }
    }
    tileProducts<MR, NV, MASKED>(K, A, lda, B, ldb, m0, m1, acc0, acc1);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
        store<MASKED>(C + r * ldc, m0, acc0[r], stream);
        if (NV == 2) store<MASKED>(C + r * ldc + 8, m1, acc1[r], stream);
    }
}

template <int NV, bool MASKED>
TFNO_AVX2 void tileRows(int rows, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                        int64_t ldc, __m256i m0, __m256i m1, const float* rowBias, bool stream, bool acc) {
    switch (rows) {
        case 6: tile<6, NV, MASKED>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 5: tile<5, NV, MASKED>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 4: tile<4, NV, MASKED>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 3: tile<3, NV, MASKED>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        case 2: tile<2, NV, MASKED>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
        default: tile<1, NV, MASKED>(K, A, lda, B, ldb, C, ldc, m0, m1, rowBias, stream, acc); break;
    }
}

TFNO_AVX2 void sgemmAvx2(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                         float* C, int64_t ldc, const float* bias, int64_t rowsPerBias, bool streamC,
                         bool accumulate) {
    float rowBias[kMr];
    // Several column panels of a small B whose row stride is a multiple of 1 KB (rows alias in the
    // L1 cache): copy B into contiguous K x kNr panels (zero-padded) first. Large B is used in
    // place (the copy would cost about as much as the product).
    const bool pack = N > kNr && ldb % 256 == 0 && K * N <= 65536;
    float* packed = nullptr;
    if (pack) {
        const int64_t panels = (N + kNr - 1) / kNr;
        packed = gemmPackBuffer(panels * K * kNr);
        // Row by row (each B row read in address order: prefetch-friendly), zero-padded past column N.
        for (int64_t p = 0; p < K; ++p) {
            for (int64_t pnl = 0; pnl < panels; ++pnl) {
                const int64_t j0 = pnl * kNr, cols = std::min<int64_t>(kNr, N - j0);
                const __m256i m0 = firstLanes(cols), m1 = firstLanes(cols > 8 ? cols - 8 : 0);
                float* dst = packed + (pnl * K + p) * kNr;
                _mm256_store_ps(dst, _mm256_maskload_ps(B + p * ldb + j0, m0));
                _mm256_store_ps(dst + 8, _mm256_maskload_ps(B + p * ldb + j0 + 8, m1));
            }
        }
    }
    // Column panels outermost: one K x kNr panel of B stays in L1 while A streams past it.
    for (int64_t j0 = 0; j0 < N; j0 += kNr) {
        const int64_t cols = std::min<int64_t>(kNr, N - j0);
        const __m256i m0 = firstLanes(cols), m1 = firstLanes(cols > 8 ? cols - 8 : 0);
        const float* b = pack ? packed + (j0 / kNr) * K * kNr : B + j0;
        const int64_t ldbPanel = pack ? kNr : ldb;
        for (int64_t i0 = 0; i0 < M; i0 += kMr) {
            const int rows = static_cast<int>(std::min<int64_t>(kMr, M - i0));
            if (bias)
                for (int r = 0; r < rows; ++r) rowBias[r] = bias[(i0 + r) / rowsPerBias];
            const float* rb = bias ? rowBias : nullptr;
            const float* a = A + i0 * lda;
            float* c = C + i0 * ldc + j0;
            if (cols == kNr)
                tileRows<2, false>(rows, K, a, lda, b, ldbPanel, c, ldc, m0, m1, rb, streamC, accumulate);
            else if (cols > 8)
                tileRows<2, true>(rows, K, a, lda, b, ldbPanel, c, ldc, m0, m1, rb, streamC, accumulate);
            else
                tileRows<1, true>(rows, K, a, lda, b, ldbPanel, c, ldc, m0, m1, rb, streamC, accumulate);
        }
    }
    if (streamC) _mm_sfence();
}

// Pair product tile (kernels.h, PairPanelFn): as tile() with each A operand a broadcast (a, b) pair.
template <int MR, int NV, bool MASKED, bool ACC>
TFNO_AVX2 inline void pairTile(int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                               int64_t ldc, __m256i m0, __m256i m1) {
    __m256 acc0[MR], acc1[MR];
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
        acc0[r] = ACC ? load<MASKED>(C + r * ldc, m0) : _mm256_setzero_ps();
        acc1[r] = ACC && NV == 2 ? load<MASKED>(C + r * ldc + 8, m1) : _mm256_setzero_ps();
    }
    tileProducts<MR, NV, MASKED, true>(K, A, lda, B, ldb, m0, m1, acc0, acc1);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
        store<MASKED>(C + r * ldc, m0, acc0[r]);
        if (NV == 2) store<MASKED>(C + r * ldc + 8, m1, acc1[r]);
    }
}

template <int NV, bool MASKED, bool ACC>
TFNO_AVX2 void pairTileRows(int rows, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                            int64_t ldc, __m256i m0, __m256i m1) {
    switch (rows) {
        case 6: pairTile<6, NV, MASKED, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 5: pairTile<5, NV, MASKED, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 4: pairTile<4, NV, MASKED, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 3: pairTile<3, NV, MASKED, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 2: pairTile<2, NV, MASKED, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        default: pairTile<1, NV, MASKED, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
    }
}

template <bool ACC>
TFNO_AVX2 void pairPanelAvx2Acc(int64_t M, int64_t w, int64_t K, const float* A, int64_t lda, const float* B, float* C,
                                int64_t ldc) {
    for (int64_t j0 = 0; j0 < w; j0 += kNr) {  // a panel of up to 32 columns: two 16-column halves
        const int64_t cols = std::min<int64_t>(kNr, w - j0);
        const __m256i m0 = firstLanes(cols), m1 = firstLanes(cols > 8 ? cols - 8 : 0);
        for (int64_t i0 = 0; i0 < M; i0 += kMr) {
            const int rows = static_cast<int>(std::min<int64_t>(kMr, M - i0));
            const float* a = A + i0 * lda;
            float* c = C + i0 * ldc + j0;
            if (cols == kNr)
                pairTileRows<2, false, ACC>(rows, K, a, lda, B + j0, w, c, ldc, m0, m1);
            else if (cols > 8)
                pairTileRows<2, true, ACC>(rows, K, a, lda, B + j0, w, c, ldc, m0, m1);
            else
                pairTileRows<1, true, ACC>(rows, K, a, lda, B + j0, w, c, ldc, m0, m1);
        }
    }
}

TFNO_AVX2 void pairPanelAvx2(int64_t M, int64_t w, int64_t K, const float* A, int64_t lda, const float* B, float* C,
                             int64_t ldc, bool accumulate) {
    if (accumulate) pairPanelAvx2Acc<true>(M, w, K, A, lda, B, C, ldc);
    else pairPanelAvx2Acc<false>(M, w, K, A, lda, B, C, ldc);
}

// Sample pairing (kernels.h): 8 t at a time, x[S-t] read as a reversed vector; scalar tail.
TFNO_AVX2 void pairFoldAvx2(const float* x, int64_t S, int64_t lo, int64_t hi, float* out) {
    const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    for (int64_t t = lo; t < hi; t += 8) {
        const int64_t n = std::min<int64_t>(8, hi - t);
        const __m256i m = firstLanes(n), top = _mm256_permutevar8x32_epi32(m, rev);  // lanes 8-n .. 7
        const __m256 p = _mm256_maskload_ps(x + t, m);
        // q[i] = x[S - t - i] (i < n): the top n lanes of the vector ending at x[S - t], reversed
        const __m256 q = _mm256_permutevar8x32_ps(_mm256_maskload_ps(x + S - t - 7, top), rev);
        const __m256 u = _mm256_add_ps(p, q), v = _mm256_sub_ps(p, q);
        const __m256 lo4 = _mm256_unpacklo_ps(u, v), hi4 = _mm256_unpackhi_ps(u, v);
        float* o = out + 2 * (t - lo);
        _mm256_maskstore_ps(o, firstLanes(2 * n), _mm256_permute2f128_ps(lo4, hi4, 0x20));
        if (n > 4) _mm256_maskstore_ps(o + 8, firstLanes(2 * n - 8), _mm256_permute2f128_ps(lo4, hi4, 0x31));
    }
}

TFNO_AVX2 void pairUnfoldAvx2(const float* ab, int64_t S, int64_t lo, int64_t hi, float bias, float* y) {
    const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    const __m256 bv = _mm256_set1_ps(bias);
    for (int64_t t = lo; t < hi; t += 8) {
        const int64_t n = std::min<int64_t>(8, hi - t);
        const __m256i m = firstLanes(n), top = _mm256_permutevar8x32_epi32(m, rev);
        const float* s = ab + 2 * (t - lo);
        const __m256 s0 = _mm256_maskload_ps(s, firstLanes(2 * n));
        const __m256 s1 = n > 4 ? _mm256_maskload_ps(s + 8, firstLanes(2 * n - 8)) : _mm256_setzero_ps();
        const __m256 a = _mm256_add_ps(
            _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(s0, s1, 0x88)), 0xD8)), bv);
        const __m256 b =
            _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(s0, s1, 0xDD)), 0xD8));
        _mm256_maskstore_ps(y + t, m, _mm256_add_ps(a, b));
        _mm256_maskstore_ps(y + S - t - 7, top, _mm256_permutevar8x32_ps(_mm256_sub_ps(a, b), rev));  // y[S - t - i]
    }
}

// Interleaves u, v lane by lane into out[0 .. 2n) (n <= 8).
TFNO_AVX2 inline void storeInterleaved(float* out, int64_t n, __m256 u, __m256 v) {
    const __m256 lo4 = _mm256_unpacklo_ps(u, v), hi4 = _mm256_unpackhi_ps(u, v);
    _mm256_maskstore_ps(out, firstLanes(2 * n), _mm256_permute2f128_ps(lo4, hi4, 0x20));
    if (n > 4) _mm256_maskstore_ps(out + 8, firstLanes(2 * n - 8), _mm256_permute2f128_ps(lo4, hi4, 0x31));
}

// The even and odd floats of in[0 .. 2n) (n <= 8) as two vectors.
TFNO_AVX2 inline void loadDeinterleaved(const float* in, int64_t n, __m256& u, __m256& v) {
    const __m256 s0 = _mm256_maskload_ps(in, firstLanes(2 * n));
    const __m256 s1 = n > 4 ? _mm256_maskload_ps(in + 8, firstLanes(2 * n - 8)) : _mm256_setzero_ps();
    u = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(s0, s1, 0x88)), 0xD8));
    v = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(s0, s1, 0xDD)), 0xD8));
}

// Second fold (kernels.h, QuadFoldFn): 8 t at a time; x[S-t] and x[L-t] read as reversed vectors.
TFNO_AVX2 void quadFoldAvx2(const float* x, int64_t S, int64_t lo, int64_t hi, float* even, float* odd) {
    const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    const int64_t L = S / 2;
    for (int64_t t = lo; t < hi; t += 8) {
        const int64_t n = std::min<int64_t>(8, hi - t);
        const __m256i m = firstLanes(n), top = _mm256_permutevar8x32_epi32(m, rev);
        const __m256 a = _mm256_maskload_ps(x + t, m);
        const __m256 b = _mm256_permutevar8x32_ps(_mm256_maskload_ps(x + S - t - 7, top), rev);  // x[S - t - i]
        const __m256 c = _mm256_permutevar8x32_ps(_mm256_maskload_ps(x + L - t - 7, top), rev);  // x[L - t - i]
        const __m256 d = _mm256_maskload_ps(x + L + t, m);
        const __m256 p = _mm256_add_ps(a, b), q = _mm256_sub_ps(a, b), r = _mm256_add_ps(c, d), s = _mm256_sub_ps(c, d);
        storeInterleaved(even + 2 * (t - lo), n, _mm256_add_ps(p, r), _mm256_sub_ps(q, s));
        storeInterleaved(odd + 2 * (t - lo), n, _mm256_sub_ps(p, r), _mm256_add_ps(q, s));
    }
}

TFNO_AVX2 void quadUnfoldAvx2(const float* even, const float* odd, int64_t S, int64_t lo, int64_t hi, float bias,
                              float* y) {
    const __m256i rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    const __m256 bv = _mm256_set1_ps(bias);
    const int64_t L = S / 2;
    for (int64_t t = lo; t < hi; t += 8) {
        const int64_t n = std::min<int64_t>(8, hi - t);
        const __m256i m = firstLanes(n), top = _mm256_permutevar8x32_epi32(m, rev);
        __m256 ae, be, ao, bo;
        loadDeinterleaved(even + 2 * (t - lo), n, ae, be);
        loadDeinterleaved(odd + 2 * (t - lo), n, ao, bo);
        const __m256 a = _mm256_add_ps(_mm256_add_ps(ae, ao), bv), b = _mm256_add_ps(be, bo);
        const __m256 a2 = _mm256_add_ps(_mm256_sub_ps(ae, ao), bv), b2 = _mm256_sub_ps(bo, be);
        _mm256_maskstore_ps(y + t, m, _mm256_add_ps(a, b));
        _mm256_maskstore_ps(y + S - t - 7, top, _mm256_permutevar8x32_ps(_mm256_sub_ps(a, b), rev));  // y[S - t - i]
        _mm256_maskstore_ps(y + L - t - 7, top, _mm256_permutevar8x32_ps(_mm256_add_ps(a2, b2), rev));  // y[L - t - i]
        _mm256_maskstore_ps(y + L + t, m, _mm256_sub_ps(a2, b2));
    }
}

template <int ROWS, bool MASKED>
TFNO_AVX2 inline void complexMacStep(float* y, int64_t yStride, const float* const* x, int64_t xStride,
                                     const float* const* w, int64_t batch, int64_t i, __m256i m) {
    const __m256 ones = _mm256_set1_ps(1.0f);
    __m256 wv[ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; ++r) {
        wv[r] = load<MASKED>(w[r] + i, m);
        _mm_prefetch(reinterpret_cast<const char*>(w[r] + i + kWeightPrefetch), _MM_HINT_T0);
    }
    for (int64_t n = 0; n < batch; ++n) {
        float* yn = y + n * yStride + i;
        __m256 acc1 = load<MASKED>(yn, m);
        __m256 acc2 = _mm256_setzero_ps();
#pragma GCC unroll 4
        for (int r = 0; r < ROWS; ++r) {
            const __m256 xv = load<MASKED>(x[r] + n * xStride + i, m);
            acc1 = _mm256_fmadd_ps(_mm256_moveldup_ps(xv), wv[r], acc1);
            acc2 = _mm256_fmadd_ps(_mm256_movehdup_ps(xv), wv[r], acc2);
        }
        store<MASKED>(yn, m, _mm256_fmaddsub_ps(ones, acc1, _mm256_permute_ps(acc2, 0xB1)));
    }
}

// See complexMacAvx512: acc1 = (xr*wr, xr*wi), acc2 = (xi*wr, xi*wi), y += acc1 + (-acc2_im, acc2_re).
template <int ROWS>
TFNO_AVX2 void complexMacRows(float* y, int64_t yStride, const float* const* x, int64_t xStride, const float* const* w,
                              int64_t batch, int64_t count) {
    const int64_t n2 = 2 * count;
    int64_t i = 0;
    for (; i + 8 <= n2; i += 8) complexMacStep<ROWS, false>(y, yStride, x, xStride, w, batch, i, firstLanes(8));
    if (i < n2) complexMacStep<ROWS, true>(y, yStride, x, xStride, w, batch, i, firstLanes(n2 - i));
}

TFNO_AVX2 void complexMacAvx2(float* y, int64_t yStride, const float* const* x, int64_t xStride, const float* const* w,
                              int rows, int64_t batch, int64_t count) {
    switch (rows) {
        case 4: complexMacRows<4>(y, yStride, x, xStride, w, batch, count); break;
        case 3: complexMacRows<3>(y, yStride, x, xStride, w, batch, count); break;
        case 2: complexMacRows<2>(y, yStride, x, xStride, w, batch, count); break;
        default: complexMacRows<1>(y, yStride, x, xStride, w, batch, count); break;
    }
}

TFNO_AVX2 void halfToFloatAvx2(const uint16_t* src, int64_t count, float* dst) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    for (; i < count; ++i) dst[i] = halfToFloat(src[i]);
}

TFNO_AVX2 void floatToHalfAvx2(const float* src, int64_t count, uint16_t* dst) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < count; ++i) dst[i] = floatToHalf(src[i]);
}

TFNO_AVX2 void activationAvx2(const float* src, float* dst, int64_t count, int32_t activation) {
    if (activation != static_cast<int32_t>(core::Activation::kGeluErf)) {
        applyActivation(src, dst, count, activation);
        return;
    }
    // geluErf8x (gelu_avx2.h): kGeluAvx2Group vectors at a time; the activation.h formula in intrinsics
    // (GCC 12 vectorizes applyActivation's loop only with -fno-trapping-math, and slower).
    constexpr int G = kGeluAvx2Group;
    int64_t i = 0;
    for (; i + 8 * G <= count; i += 8 * G) {
        __m256 v[G];
#pragma GCC unroll 8
        for (int j = 0; j < G; ++j) v[j] = _mm256_loadu_ps(src + i + 8 * j);
        geluErf8x<G>(v);
#pragma GCC unroll 8
        for (int j = 0; j < G; ++j) _mm256_storeu_ps(dst + i + 8 * j, v[j]);
    }
    for (; i + 16 <= count; i += 16) {  // e.g. the skip epilogue's 16-column panel rows
        __m256 v[2] = {_mm256_loadu_ps(src + i), _mm256_loadu_ps(src + i + 8)};
        geluErf8x<2>(v);
        _mm256_storeu_ps(dst + i, v[0]);
        _mm256_storeu_ps(dst + i + 8, v[1]);
    }
    for (; i + 8 <= count; i += 8) _mm256_storeu_ps(dst + i, geluErf8(_mm256_loadu_ps(src + i)));
    if (i < count) {
        const __m256i m = firstLanes(count - i);
        _mm256_maskstore_ps(dst + i, m, geluErf8(_mm256_maskload_ps(src + i, m)));
    }
}

// Skip epilogue (kernels.h, SkipEpilogueFn), as skip_avx512.cpp with 8-wide vectors: per 16-column
// panel, X into a contiguous K x 16 panel (next panel prefetched); per 6-row tile the 12 accumulators
// start from C or the bias, take the K2 + K multiply-adds, and leave through a tile buffer: the
// erf-GELU (or identity) two rows at a time and one store of Y; other activations store the sums and
// run the activation on the panel's rows.
// One row of a tile: full panels with plain (or, for a large Y, non-temporal) stores, the last panel masked.
template <int NV>
TFNO_AVX2 inline void storeTileRow(float* dst, __m256 lo, __m256 hi, __m256i m0, __m256i m1, bool full, bool stream) {
    if (full) {
        store<false>(dst, m0, lo, stream);
        store<false>(dst + 8, m1, hi, stream);
    } else {
        store<true>(dst, m0, lo);
        if (NV == 2) store<true>(dst + 8, m1, hi);
    }
}

template <int MR, int NV>
TFNO_AVX2 inline void skipTileAvx2(const SkipEpilogueArgs& a, int64_t i0, int64_t j0, const float* panel, __m256i m0,
                                   __m256i m1, bool full, int exit) {
    __m256 acc0[MR], acc1[MR];
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
        if (a.C) {
            acc0[r] = _mm256_maskload_ps(a.C + (i0 + r) * a.ldc + j0, m0);
            acc1[r] = NV == 2 ? _mm256_maskload_ps(a.C + (i0 + r) * a.ldc + j0 + 8, m1) : _mm256_setzero_ps();
        } else {
            acc0[r] = a.bias ? _mm256_set1_ps(a.bias[i0 + r]) : _mm256_setzero_ps();
            acc1[r] = acc0[r];
        }
    }
    // the folded inverse (L F, F's columns unpadded: masked), then W X (the packed panel)
    if (a.K2 > 0) tileProducts<MR, NV, true>(a.K2, a.L + i0 * a.ldl, a.ldl, a.F + j0, a.ldf, m0, m1, acc0, acc1);
    tileProducts<MR, NV, false>(a.K, a.W + i0 * a.ldw, a.ldw, panel, kNr, m0, m1, acc0, acc1);
    float* Y = a.Y + i0 * a.ldy + j0;
    const bool stream = a.streamY && exit != 2;
    auto put = [&](float* dst, const __m256& lo, const __m256& hi) { storeTileRow<NV>(dst, lo, hi, m0, m1, full, stream); };
    if (exit != 1) {  // sums straight to Y (identity: final; other activations: applied per panel)
#pragma GCC unroll 6
        for (int r = 0; r < MR; ++r) put(Y + r * a.ldy, acc0[r], acc1[r]);
        return;
    }
    alignas(32) float buf[MR][kNr];
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {  // both halves even for NV == 1 (acc1 then holds C's zeros or the bias): the GELU
        _mm256_store_ps(buf[r], acc0[r]);  // below reads them, never uninitialised memory; only the first is stored
        _mm256_store_ps(buf[r] + 8, acc1[r]);
    }
    int r = 0;
    for (; r + 2 <= MR; r += 2) {  // two rows (4 vectors) per GELU call; not unrolled: the GELU is long
        __m256 v[4] = {_mm256_load_ps(buf[r]), _mm256_load_ps(buf[r] + 8), _mm256_load_ps(buf[r + 1]),
                       _mm256_load_ps(buf[r + 1] + 8)};
        geluErf8x<4>(v);
        put(Y + r * a.ldy, v[0], v[1]);
        put(Y + (r + 1) * a.ldy, v[2], v[3]);
    }
    if (r < MR) {
        __m256 v[2] = {_mm256_load_ps(buf[r]), _mm256_load_ps(buf[r] + 8)};
        geluErf8x<2>(v);
        put(Y + r * a.ldy, v[0], v[1]);
    }
}

template <int NV>
TFNO_AVX2 void skipTileRowsAvx2(int rows, const SkipEpilogueArgs& a, int64_t i0, int64_t j0, const float* panel,
                                __m256i m0, __m256i m1, bool full, int exit) {
    switch (rows) {
        case 6: skipTileAvx2<6, NV>(a, i0, j0, panel, m0, m1, full, exit); break;
        case 5: skipTileAvx2<5, NV>(a, i0, j0, panel, m0, m1, full, exit); break;
        case 4: skipTileAvx2<4, NV>(a, i0, j0, panel, m0, m1, full, exit); break;
        case 3: skipTileAvx2<3, NV>(a, i0, j0, panel, m0, m1, full, exit); break;
        case 2: skipTileAvx2<2, NV>(a, i0, j0, panel, m0, m1, full, exit); break;
        default: skipTileAvx2<1, NV>(a, i0, j0, panel, m0, m1, full, exit); break;
    }
}

TFNO_AVX2 void skipEpilogueAvx2(const SkipEpilogueArgs& a) {
    float* panel = gemmPackBuffer(a.K * kNr);
    // exit: 1 the erf-GELU per tile, 0 identity, 2 the sums stored, then the activation per panel
    const int exit = a.activation == static_cast<int32_t>(core::Activation::kGeluErf)    ? 1
                     : a.activation == static_cast<int32_t>(core::Activation::kIdentity) ? 0
                                                                                         : 2;
    for (int64_t j0 = 0; j0 < a.N; j0 += kNr) {
        const int64_t cols = std::min<int64_t>(kNr, a.N - j0);
        const __m256i m0 = firstLanes(cols), m1 = firstLanes(cols > 8 ? cols - 8 : 0);
        for (int64_t p = 0; p < a.K; ++p) {  // zero-padded past column N
            const float* src = a.X + p * a.ldx + j0;
            _mm256_store_ps(panel + p * kNr, _mm256_maskload_ps(src, m0));
            _mm256_store_ps(panel + p * kNr + 8, _mm256_maskload_ps(src + 8, m1));
            _mm_prefetch(reinterpret_cast<const char*>(src + kNr), _MM_HINT_T0);  // never faults
        }
        for (int64_t i0 = 0; i0 < a.M; i0 += kMr) {
            const int rows = static_cast<int>(std::min<int64_t>(kMr, a.M - i0));
            if (cols > 8)
                skipTileRowsAvx2<2>(rows, a, i0, j0, panel, m0, m1, cols == kNr, exit);
            else
                skipTileRowsAvx2<1>(rows, a, i0, j0, panel, m0, m1, false, exit);
        }
        if (exit == 2)
            for (int64_t o = 0; o < a.M; ++o) activationAvx2(a.Y + o * a.ldy + j0, a.Y + o * a.ldy + j0, cols, a.activation);
    }
    if (a.streamY) _mm_sfence();
}

}  // namespace

CpuKernels avx2Kernels() {
    return {"avx2",          sgemmAvx2,        pairPanelAvx2,   pairFoldAvx2,
            pairUnfoldAvx2,  quadFoldAvx2,     quadUnfoldAvx2,  complexMacAvx2,
            halfToFloatAvx2, floatToHalfAvx2,  activationAvx2,  skipEpilogueAvx2};
}

}  // namespace cpu
}  // namespace turbofno

#endif
