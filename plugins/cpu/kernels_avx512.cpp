// AVX-512F kernels. Every function carries its own target attribute (no -m flags for this file),
// so nothing here runs unless cpuKernels() found AVX-512F at run time.
#include "kernels.h"

#if TURBOFNO_CPU_X86_SIMD

#include <immintrin.h>

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // gcc 12 false positive inside avx512fintrin.h

#include <algorithm>
#include <cstdint>

#include "activation.h"
#include "gelu_avx512.h"
#include "skip_kernels.h"
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

// Column widths of a register tile: NV = 1 (16 columns, one zmm), 2 (32, two zmm) or 3 (24: a zmm
// and a ymm; on CPUs that split 512-bit operations in two 256-bit halves, a 17..24-column tail then
// costs 3/4 of two zmm). The ymm half's lane mask comes from m1 (its lanes 0..7).
TFNO_AVX512 inline __m256i halfMask(__mmask16 m1) { return _mm512_castsi512_si256(_mm512_maskz_set1_epi32(m1, -1)); }

template <int MR, int NV>
TFNO_AVX512 inline void tile(int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                             int64_t ldc, __mmask16 m0, __mmask16 m1, const float* rowBias, bool stream, bool acc) {
    __m512 acc0[MR], acc1[MR];
    __m256 acch[MR];
    const __m256i mh = halfMask(m1);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        acc0[r] = rowBias ? _mm512_set1_ps(rowBias[r]) : _mm512_setzero_ps();
        acc1[r] = acc0[r];
        acch[r] = _mm512_castps512_ps256(acc0[r]);
        if (acc) {
            acc0[r] = _mm512_add_ps(acc0[r], _mm512_maskz_loadu_ps(m0, C + r * ldc));
            if (NV == 2) acc1[r] = _mm512_add_ps(acc1[r], _mm512_maskz_loadu_ps(m1, C + r * ldc + 16));
            if (NV == 3) acch[r] = _mm256_add_ps(acch[r], _mm256_maskload_ps(C + r * ldc + 16, mh));
        }
    }
    for (int64_t p = 0; p < K; ++p) {
        const float* b = B + p * ldb;
        const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
        const __m512 b1 = NV == 2 ? _mm512_maskz_loadu_ps(m1, b + 16) : _mm512_setzero_ps();
        const __m256 bh = NV == 3 ? _mm256_maskload_ps(b + 16, mh) : _mm256_setzero_ps();
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
            const __m512 a = _mm512_set1_ps(A[r * lda + p]);
            acc0[r] = _mm512_fmadd_ps(a, b0, acc0[r]);
            if (NV == 2) acc1[r] = _mm512_fmadd_ps(a, b1, acc1[r]);
            if (NV == 3) acch[r] = _mm256_fmadd_ps(_mm512_castps512_ps256(a), bh, acch[r]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        storeC(C + r * ldc, m0, acc0[r], stream);
        if (NV == 2) storeC(C + r * ldc + 16, m1, acc1[r], stream);
        if (NV == 3) _mm256_maskstore_ps(C + r * ldc + 16, mh, acch[r]);
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
        // Row by row (each B row read in address order: prefetch-friendly), zero-padded past column N.
        for (int64_t p = 0; p < K; ++p) {
            for (int64_t pnl = 0; pnl < panels; ++pnl) {
                const int64_t j0 = pnl * kNr, cols = std::min<int64_t>(kNr, N - j0);
                const __mmask16 m0 = firstLanes(cols), m1 = firstLanes(cols > 16 ? cols - 16 : 0);
                float* dst = packed + (pnl * K + p) * kNr;
                _mm512_store_ps(dst, _mm512_maskz_loadu_ps(m0, B + p * ldb + j0));
                _mm512_store_ps(dst + 16, _mm512_maskz_loadu_ps(m1, B + p * ldb + j0 + 16));
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
            if (cols > 24)
                tileRows<2>(rows, K, A + i0 * lda, lda, b, ldbPanel, C + i0 * ldc + j0, ldc, m0, m1, rb, streamC,
                             accumulate);
            else if (cols > 16)
                tileRows<3>(rows, K, A + i0 * lda, lda, b, ldbPanel, C + i0 * ldc + j0, ldc, m0, m1, rb, streamC,
                             accumulate);
            else
                tileRows<1>(rows, K, A + i0 * lda, lda, b, ldbPanel, C + i0 * ldc + j0, ldc, m0, m1, rb, streamC,
                             accumulate);
        }
    }
    if (streamC) _mm_sfence();  // order the non-temporal stores before the caller signals completion
}

// Pair product tile (kernels.h, PairPanelFn): as tile() with each A operand a broadcast (a, b) pair,
// so even columns take a and odd columns b. NV as in tile().
template <int MR, int NV, bool ACC>
TFNO_AVX512 inline void pairTile(int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                                 int64_t ldc, __mmask16 m0, __mmask16 m1) {
    __m512 acc0[MR], acc1[MR];
    __m256 acch[MR];
    const __m256i mh = halfMask(m1);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        acc0[r] = ACC ? _mm512_maskz_loadu_ps(m0, C + r * ldc) : _mm512_setzero_ps();
        acc1[r] = ACC && NV == 2 ? _mm512_maskz_loadu_ps(m1, C + r * ldc + 16) : _mm512_setzero_ps();
        acch[r] = ACC && NV == 3 ? _mm256_maskload_ps(C + r * ldc + 16, mh) : _mm256_setzero_ps();
    }
    for (int64_t p = 0; p < K; ++p) {
        const float* b = B + p * ldb;
        const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
        const __m512 b1 = NV == 2 ? _mm512_maskz_loadu_ps(m1, b + 16) : _mm512_setzero_ps();
        const __m256 bh = NV == 3 ? _mm256_maskload_ps(b + 16, mh) : _mm256_setzero_ps();
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
            const __m512 a = _mm512_castpd_ps(
                _mm512_broadcastsd_pd(_mm_load_sd(reinterpret_cast<const double*>(A + r * lda + 2 * p))));
            acc0[r] = _mm512_fmadd_ps(a, b0, acc0[r]);
            if (NV == 2) acc1[r] = _mm512_fmadd_ps(a, b1, acc1[r]);
            if (NV == 3) acch[r] = _mm256_fmadd_ps(_mm512_castps512_ps256(a), bh, acch[r]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        _mm512_mask_storeu_ps(C + r * ldc, m0, acc0[r]);
        if (NV == 2) _mm512_mask_storeu_ps(C + r * ldc + 16, m1, acc1[r]);
        if (NV == 3) _mm256_maskstore_ps(C + r * ldc + 16, mh, acch[r]);
    }
}

template <int NV, bool ACC>
TFNO_AVX512 void pairTileRows(int rows, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                              int64_t ldc, __mmask16 m0, __mmask16 m1) {
    switch (rows) {
        case 8: pairTile<8, NV, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 7: pairTile<7, NV, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 6: pairTile<6, NV, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 5: pairTile<5, NV, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 4: pairTile<4, NV, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 3: pairTile<3, NV, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        case 2: pairTile<2, NV, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
        default: pairTile<1, NV, ACC>(K, A, lda, B, ldb, C, ldc, m0, m1); break;
    }
}

TFNO_AVX512 void pairPanelAvx512(int64_t M, int64_t w, int64_t K, const float* A, int64_t lda, const float* B,
                                 float* C, int64_t ldc, bool accumulate) {
    const __mmask16 m0 = firstLanes(w), m1 = firstLanes(w - 16 > 0 ? w - 16 : 0);
    for (int64_t i0 = 0; i0 < M; i0 += kMr) {
        const int rows = static_cast<int>(std::min<int64_t>(kMr, M - i0));
        const float* a = A + i0 * lda;
        float* c = C + i0 * ldc;
        if (w > 24) {
            if (accumulate) pairTileRows<2, true>(rows, K, a, lda, B, w, c, ldc, m0, m1);
            else pairTileRows<2, false>(rows, K, a, lda, B, w, c, ldc, m0, m1);
        } else if (w > 16) {
            if (accumulate) pairTileRows<3, true>(rows, K, a, lda, B, w, c, ldc, m0, m1);
            else pairTileRows<3, false>(rows, K, a, lda, B, w, c, ldc, m0, m1);
        } else {
            if (accumulate) pairTileRows<1, true>(rows, K, a, lda, B, w, c, ldc, m0, m1);
            else pairTileRows<1, false>(rows, K, a, lda, B, w, c, ldc, m0, m1);
        }
    }
}

// Sample pairing (kernels.h): 16 t at a time, x[S-t] read as a reversed vector; scalar tail.
TFNO_AVX512 void pairFoldAvx512(const float* x, int64_t S, int64_t lo, int64_t hi, float* out) {
    const __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i il0 = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i il1 = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    for (int64_t t = lo; t < hi; t += 16) {
        const int64_t n = std::min<int64_t>(16, hi - t);
        const __mmask16 m = firstLanes(n), top = static_cast<__mmask16>(m << (16 - n));  // lanes 16-n .. 15
        const __m512 p = _mm512_maskz_loadu_ps(m, x + t);
        // q[i] = x[S - t - i] (i < n): the top n lanes of the vector ending at x[S - t], reversed
        const __m512 q = _mm512_permutexvar_ps(rev, _mm512_maskz_loadu_ps(top, x + S - t - 15));
        const __m512 u = _mm512_add_ps(p, q), v = _mm512_sub_ps(p, q);
        float* o = out + 2 * (t - lo);
        _mm512_mask_storeu_ps(o, firstLanes(2 * n), _mm512_permutex2var_ps(u, il0, v));
        if (n > 8) _mm512_mask_storeu_ps(o + 16, firstLanes(2 * n - 16), _mm512_permutex2var_ps(u, il1, v));
    }
}

TFNO_AVX512 void pairUnfoldAvx512(const float* ab, int64_t S, int64_t lo, int64_t hi, float bias, float* y) {
    const __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512 bv = _mm512_set1_ps(bias);
    for (int64_t t = lo; t < hi; t += 16) {
        const int64_t n = std::min<int64_t>(16, hi - t);
        const __mmask16 m = firstLanes(n), top = static_cast<__mmask16>(m << (16 - n));
        const float* s = ab + 2 * (t - lo);
        const __m512 s0 = _mm512_maskz_loadu_ps(firstLanes(2 * n), s);
        const __m512 s1 = n > 8 ? _mm512_maskz_loadu_ps(firstLanes(2 * n - 16), s + 16) : _mm512_setzero_ps();
        const __m512 a = _mm512_add_ps(_mm512_permutex2var_ps(s0, even, s1), bv);
        const __m512 b = _mm512_permutex2var_ps(s0, odd, s1);
        _mm512_mask_storeu_ps(y + t, m, _mm512_add_ps(a, b));
        _mm512_mask_storeu_ps(y + S - t - 15, top, _mm512_permutexvar_ps(rev, _mm512_sub_ps(a, b)));  // y[S - t - i]
    }
}

// Second fold (kernels.h, QuadFoldFn): 16 t at a time; x[S-t] and x[L-t] read as reversed vectors.
TFNO_AVX512 void quadFoldAvx512(const float* x, int64_t S, int64_t lo, int64_t hi, float* even, float* odd) {
    const __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i il0 = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i il1 = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const int64_t L = S / 2;
    for (int64_t t = lo; t < hi; t += 16) {
        const int64_t n = std::min<int64_t>(16, hi - t);
        const __mmask16 m = firstLanes(n), top = static_cast<__mmask16>(m << (16 - n));
        const __m512 a = _mm512_maskz_loadu_ps(m, x + t);
        const __m512 b = _mm512_permutexvar_ps(rev, _mm512_maskz_loadu_ps(top, x + S - t - 15));  // x[S - t - i]
        const __m512 c = _mm512_permutexvar_ps(rev, _mm512_maskz_loadu_ps(top, x + L - t - 15));  // x[L - t - i]
        const __m512 d = _mm512_maskz_loadu_ps(m, x + L + t);
        const __m512 p = _mm512_add_ps(a, b), q = _mm512_sub_ps(a, b), r = _mm512_add_ps(c, d), s = _mm512_sub_ps(c, d);
        const __m512 ue = _mm512_add_ps(p, r), ve = _mm512_sub_ps(q, s), uo = _mm512_sub_ps(p, r), vo = _mm512_add_ps(q, s);
        float* oe = even + 2 * (t - lo);
        float* oo = odd + 2 * (t - lo);
        const __mmask16 s0 = firstLanes(2 * n), s1 = firstLanes(2 * n - 16 > 0 ? 2 * n - 16 : 0);
        _mm512_mask_storeu_ps(oe, s0, _mm512_permutex2var_ps(ue, il0, ve));
        _mm512_mask_storeu_ps(oo, s0, _mm512_permutex2var_ps(uo, il0, vo));
        if (n > 8) {
            _mm512_mask_storeu_ps(oe + 16, s1, _mm512_permutex2var_ps(ue, il1, ve));
            _mm512_mask_storeu_ps(oo + 16, s1, _mm512_permutex2var_ps(uo, il1, vo));
        }
    }
}

TFNO_AVX512 void quadUnfoldAvx512(const float* even, const float* odd, int64_t S, int64_t lo, int64_t hi, float bias,
                                  float* y) {
    const __m512i rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512 bv = _mm512_set1_ps(bias);
    const int64_t L = S / 2;
    for (int64_t t = lo; t < hi; t += 16) {
        const int64_t n = std::min<int64_t>(16, hi - t);
        const __mmask16 m = firstLanes(n), top = static_cast<__mmask16>(m << (16 - n));
        const __mmask16 s0 = firstLanes(2 * n), s1 = firstLanes(2 * n - 16 > 0 ? 2 * n - 16 : 0);
        const float* se = even + 2 * (t - lo);
        const float* so = odd + 2 * (t - lo);
        const __m512 e0 = _mm512_maskz_loadu_ps(s0, se), e1 = _mm512_maskz_loadu_ps(s1, se + 16);
        const __m512 o0 = _mm512_maskz_loadu_ps(s0, so), o1 = _mm512_maskz_loadu_ps(s1, so + 16);
        const __m512 ae = _mm512_permutex2var_ps(e0, ev, e1), be = _mm512_permutex2var_ps(e0, od, e1);
        const __m512 ao = _mm512_permutex2var_ps(o0, ev, o1), bo = _mm512_permutex2var_ps(o0, od, o1);
        const __m512 a = _mm512_add_ps(_mm512_add_ps(ae, ao), bv), b = _mm512_add_ps(be, bo);
        const __m512 a2 = _mm512_add_ps(_mm512_sub_ps(ae, ao), bv), b2 = _mm512_sub_ps(bo, be);
        _mm512_mask_storeu_ps(y + t, m, _mm512_add_ps(a, b));
        _mm512_mask_storeu_ps(y + S - t - 15, top, _mm512_permutexvar_ps(rev, _mm512_sub_ps(a, b)));  // y[S - t - i]
        _mm512_mask_storeu_ps(y + L - t - 15, top, _mm512_permutexvar_ps(rev, _mm512_add_ps(a2, b2)));  // y[L - t - i]
        _mm512_mask_storeu_ps(y + L + t, m, _mm512_sub_ps(a2, b2));
    }
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

TFNO_AVX512 void geluErfAvx512(const float* src, float* dst, int64_t count) {
    __m512 tab[kGeluRegs512];
    loadGeluTable512(tab);
    int64_t i = 0;
    for (; i + 16 <= count; i += 16) _mm512_storeu_ps(dst + i, geluErf16(_mm512_loadu_ps(src + i), tab));
    if (i < count) {
        const __mmask16 m = firstLanes(count - i);
        _mm512_mask_storeu_ps(dst + i, m, geluErf16(_mm512_maskz_loadu_ps(m, src + i), tab));
    }
}

TFNO_AVX512 void activationAvx512(const float* src, float* dst, int64_t count, int32_t activation) {
    if (activation == static_cast<int32_t>(core::Activation::kGeluErf))
        geluErfAvx512(src, dst, count);
    else
        applyActivation(src, dst, count, activation);
}

}  // namespace

CpuKernels avx512Kernels() {
    return {"avx512",          sgemmAvx512,        pairPanelAvx512,   pairFoldAvx512,
            pairUnfoldAvx512,  quadFoldAvx512,     quadUnfoldAvx512,  complexMacAvx512,
            halfToFloatAvx512, floatToHalfAvx512,  activationAvx512,  skipEpilogueAvx512};
}

}  // namespace cpu
}  // namespace turbofno

#endif
