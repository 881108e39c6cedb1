// AVX-512 skip epilogue (kernels.h, SkipEpilogueFn): Y = act(C + W X) on a chunk of points.
// Per 32-column panel: X's K x 32 block copied into a contiguous panel (a later panel prefetched
// into L2), then per 8-row tile the 16 accumulators start from C, take the K multiply-adds, and
// leave through a 1 KB tile buffer: the erf-GELU (or identity) on 16 values at a time and a store
// (non-temporal when asked) of Y while the next tile computes; other activations store the sums
// to C and run applyActivation on the panel's rows.
#include "kernels.h"

#if TURBOFNO_CPU_X86_SIMD

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "activation.h"
#include "gelu_avx512.h"
#include "skip_kernels.h"

#define TFNO_AVX512 __attribute__((target("avx512f,avx2,fma")))

namespace turbofno {
namespace cpu {
namespace {

constexpr int kMr = 8;   // rows (output channels) per register tile
constexpr int kNr = 32;  // columns (points) per panel: two zmm

TFNO_AVX512 inline __mmask16 lanes(int64_t n) {
    return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (n > 0 ? n : 0)) - 1u);
}

// How a tile's sums leave: through the GELU or unchanged to Y, or unchanged back to C.
enum class Exit { kGelu, kCopy, kToC };

struct TileOut {
    Exit exit;
    float* Y;  // the panel's Y (row stride ldy); C's own panel for kToC
    int64_t ldy;
    bool stream;
    const __m512* tab;  // GELU table (kGelu)
};

template <int MR, int NV>
TFNO_AVX512 inline void skipTile(int64_t K, const float* W, int64_t ldw, const float* P, const float* C, int64_t ldc,
                                 __mmask16 m0, __mmask16 m1, const TileOut& out) {
    __m512 acc0[MR], acc1[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        acc0[r] = _mm512_maskz_loadu_ps(m0, C + r * ldc);
        acc1[r] = NV == 2 ? _mm512_maskz_loadu_ps(m1, C + r * ldc + 16) : _mm512_setzero_ps();
    }
    for (int64_t p = 0; p < K; ++p) {
        const __m512 b0 = _mm512_load_ps(P + p * kNr);
        const __m512 b1 = NV == 2 ? _mm512_load_ps(P + p * kNr + 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
            const __m512 a = _mm512_set1_ps(W[r * ldw + p]);
            acc0[r] = _mm512_fmadd_ps(a, b0, acc0[r]);
            if (NV == 2) acc1[r] = _mm512_fmadd_ps(a, b1, acc1[r]);
        }
    }
    alignas(64) float buf[MR][kNr];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        _mm512_store_ps(buf[r], acc0[r]);
        if (NV == 2) _mm512_store_ps(buf[r] + 16, acc1[r]);
    }
    for (int r = 0; r < MR; ++r) {  // not unrolled: the GELU is long
        for (int v = 0; v < NV; ++v) {
            const __mmask16 m = v == 0 ? m0 : m1;
            __m512 y = _mm512_load_ps(buf[r] + 16 * v);
            if (out.exit == Exit::kGelu) y = geluErf16(y, out.tab);
            float* dst = out.Y + r * out.ldy + 16 * v;
            if (out.stream && m == 0xffff && (reinterpret_cast<uintptr_t>(dst) & 63) == 0)
                _mm512_stream_ps(dst, y);
            else
                _mm512_mask_storeu_ps(dst, m, y);
        }
    }
}

template <int NV>
TFNO_AVX512 void skipTileRows(int rows, int64_t K, const float* W, int64_t ldw, const float* P, const float* C,
                              int64_t ldc, __mmask16 m0, __mmask16 m1, const TileOut& out) {
    switch (rows) {
        case 8: skipTile<8, NV>(K, W, ldw, P, C, ldc, m0, m1, out); break;
        case 7: skipTile<7, NV>(K, W, ldw, P, C, ldc, m0, m1, out); break;
        case 6: skipTile<6, NV>(K, W, ldw, P, C, ldc, m0, m1, out); break;
        case 5: skipTile<5, NV>(K, W, ldw, P, C, ldc, m0, m1, out); break;
        case 4: skipTile<4, NV>(K, W, ldw, P, C, ldc, m0, m1, out); break;
        case 3: skipTile<3, NV>(K, W, ldw, P, C, ldc, m0, m1, out); break;
        case 2: skipTile<2, NV>(K, W, ldw, P, C, ldc, m0, m1, out); break;
        default: skipTile<1, NV>(K, W, ldw, P, C, ldc, m0, m1, out); break;
    }
}

}  // namespace

TFNO_AVX512 void skipEpilogueAvx512(int64_t M, int64_t N, int64_t K, const float* W, int64_t ldw, const float* X,
                                    int64_t ldx, float* C, int64_t ldc, float* Y, int64_t ldy, int32_t activation,
                                    bool streamY) {
    float* panel = gemmPackBuffer(K * kNr);
    Exit exit = Exit::kToC;
    if (activation == static_cast<int32_t>(core::Activation::kGeluErf)) exit = Exit::kGelu;
    if (activation == static_cast<int32_t>(core::Activation::kIdentity)) exit = Exit::kCopy;
    if (!Y && exit == Exit::kCopy) exit = Exit::kToC;  // in place: nothing to do after the sums
    __m512 tab[kGeluRegs512];
    if (exit == Exit::kGelu) loadGeluTable512(tab);
    for (int64_t j0 = 0; j0 < N; j0 += kNr) {
        const int64_t cols = std::min<int64_t>(kNr, N - j0);
        const __mmask16 m0 = lanes(cols), m1 = lanes(cols - 16);
        for (int64_t p = 0; p < K; ++p) {  // zero-padded past column N
            const float* src = X + p * ldx + j0;
            _mm512_store_ps(panel + p * kNr, _mm512_maskz_loadu_ps(m0, src));
            _mm512_store_ps(panel + p * kNr + 16, _mm512_maskz_loadu_ps(m1, src + 16));
            // 4 panels ahead into L2 (L1 holds W and this panel); never faults
            _mm_prefetch(reinterpret_cast<const char*>(src + 4 * kNr), _MM_HINT_T1);
            _mm_prefetch(reinterpret_cast<const char*>(src + 4 * kNr + 16), _MM_HINT_T1);
        }
        for (int64_t i0 = 0; i0 < M; i0 += kMr) {
            const int rows = static_cast<int>(std::min<int64_t>(kMr, M - i0));
            TileOut out{exit, nullptr, 0, streamY && Y, tab};
            if (exit == Exit::kToC) {
                out.Y = C + i0 * ldc + j0;
                out.ldy = ldc;
                out.stream = false;
            } else {
                out.Y = (Y ? Y : C) + i0 * (Y ? ldy : ldc) + j0;
                out.ldy = Y ? ldy : ldc;
            }
            if (cols > 16)
                skipTileRows<2>(rows, K, W + i0 * ldw, ldw, panel, C + i0 * ldc + j0, ldc, m0, m1, out);
            else
                skipTileRows<1>(rows, K, W + i0 * ldw, ldw, panel, C + i0 * ldc + j0, ldc, m0, m1, out);
        }
        if (exit == Exit::kToC && activation != static_cast<int32_t>(core::Activation::kIdentity))
            for (int64_t o = 0; o < M; ++o)
                applyActivation(C + o * ldc + j0, (Y ? Y + o * ldy : C + o * ldc) + j0, cols, activation);
    }
    if (streamY && Y) _mm_sfence();
}

}  // namespace cpu
}  // namespace turbofno

#endif
