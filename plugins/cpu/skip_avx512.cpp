// AVX-512 skip epilogue (kernels.h, SkipEpilogueFn): Y = act(C or bias + L F + W X) on a chunk of
// points. Per 32-column panel: X's K x 32 block copied into a contiguous panel (a later panel
// prefetched into L2), then per 8-row tile the 16 accumulators start from C or the bias, take the
// K2 + K multiply-adds, and leave through a 1 KB tile buffer: the erf-GELU (or identity) on 16
// values at a time and a store (non-temporal when asked) of Y while the next tile computes; other
// activations store the sums and run applyActivation on the panel's rows.
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

// How a tile's sums leave: through the GELU or unchanged to Y (then final), or unchanged to Y for
// applyActivation on the panel's rows.
enum class Exit { kGelu, kCopy, kRaw };

struct Tile {
    int64_t K;  // W X
    const float* W;
    int64_t ldw;
    const float* P;  // the packed X panel, K x kNr
    int64_t K2;  // L F (the folded inverse)
    const float* L;
    int64_t ldl;
    const float* F;  // this panel's first column of F (unpadded: masked loads)
    int64_t ldf;
    const float* C;  // initial sums, or nullptr: bias
    int64_t ldc;
    const float* bias;  // bias of the tile's first row, or nullptr
    float* Y;
    int64_t ldy;
    Exit exit;
    bool stream;
    const __m512* tab;  // GELU table (kGelu)
};

template <int MR, int NV>
TFNO_AVX512 inline void skipTile(const Tile& t, __mmask16 m0, __mmask16 m1) {
    __m512 acc0[MR], acc1[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
        if (t.C) {
            acc0[r] = _mm512_maskz_loadu_ps(m0, t.C + r * t.ldc);
            acc1[r] = NV == 2 ? _mm512_maskz_loadu_ps(m1, t.C + r * t.ldc + 16) : _mm512_setzero_ps();
        } else {
            acc0[r] = t.bias ? _mm512_set1_ps(t.bias[r]) : _mm512_setzero_ps();
            acc1[r] = acc0[r];
        }
    }
    for (int64_t p = 0; p < t.K2; ++p) {
        const __m512 b0 = _mm512_maskz_loadu_ps(m0, t.F + p * t.ldf);
        const __m512 b1 = NV == 2 ? _mm512_maskz_loadu_ps(m1, t.F + p * t.ldf + 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
            const __m512 a = _mm512_set1_ps(t.L[r * t.ldl + p]);
            acc0[r] = _mm512_fmadd_ps(a, b0, acc0[r]);
            if (NV == 2) acc1[r] = _mm512_fmadd_ps(a, b1, acc1[r]);
        }
    }
    for (int64_t p = 0; p < t.K; ++p) {
        const __m512 b0 = _mm512_load_ps(t.P + p * kNr);
        const __m512 b1 = NV == 2 ? _mm512_load_ps(t.P + p * kNr + 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
            const __m512 a = _mm512_set1_ps(t.W[r * t.ldw + p]);
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
            if (t.exit == Exit::kGelu) y = geluErf16(y, t.tab);
            float* dst = t.Y + r * t.ldy + 16 * v;
            if (t.stream && m == 0xffff && (reinterpret_cast<uintptr_t>(dst) & 63) == 0)
                _mm512_stream_ps(dst, y);
            else
                _mm512_mask_storeu_ps(dst, m, y);
        }
    }
}

template <int NV>
TFNO_AVX512 void skipTileRows(int rows, const Tile& t, __mmask16 m0, __mmask16 m1) {
    switch (rows) {
        case 8: skipTile<8, NV>(t, m0, m1); break;
        case 7: skipTile<7, NV>(t, m0, m1); break;
        case 6: skipTile<6, NV>(t, m0, m1); break;
        case 5: skipTile<5, NV>(t, m0, m1); break;
        case 4: skipTile<4, NV>(t, m0, m1); break;
        case 3: skipTile<3, NV>(t, m0, m1); break;
        case 2: skipTile<2, NV>(t, m0, m1); break;
        default: skipTile<1, NV>(t, m0, m1); break;
    }
}

}  // namespace

TFNO_AVX512 void skipEpilogueAvx512(const SkipEpilogueArgs& a) {
    float* panel = gemmPackBuffer(a.K * kNr);
    Exit exit = Exit::kRaw;
    if (a.activation == static_cast<int32_t>(core::Activation::kGeluErf)) exit = Exit::kGelu;
    if (a.activation == static_cast<int32_t>(core::Activation::kIdentity)) exit = Exit::kCopy;
    __m512 tab[kGeluRegs512];
    if (exit == Exit::kGelu) loadGeluTable512(tab);
    Tile t{a.K, nullptr, a.ldw, panel, a.K2, nullptr, a.ldl, nullptr, a.ldf, nullptr, a.ldc, nullptr, nullptr, a.ldy,
           exit, a.streamY && exit != Exit::kRaw, tab};
    for (int64_t j0 = 0; j0 < a.N; j0 += kNr) {
        const int64_t cols = std::min<int64_t>(kNr, a.N - j0);
        const __mmask16 m0 = lanes(cols), m1 = lanes(cols - 16);
        for (int64_t p = 0; p < a.K; ++p) {  // zero-padded past column N
            const float* src = a.X + p * a.ldx + j0;
            _mm512_store_ps(panel + p * kNr, _mm512_maskz_loadu_ps(m0, src));
            _mm512_store_ps(panel + p * kNr + 16, _mm512_maskz_loadu_ps(m1, src + 16));
            // 4 panels ahead into L2 (L1 holds W and this panel); never faults
            _mm_prefetch(reinterpret_cast<const char*>(src + 4 * kNr), _MM_HINT_T1);
            _mm_prefetch(reinterpret_cast<const char*>(src + 4 * kNr + 16), _MM_HINT_T1);
        }
        for (int64_t i0 = 0; i0 < a.M; i0 += kMr) {
            const int rows = static_cast<int>(std::min<int64_t>(kMr, a.M - i0));
            t.W = a.W + i0 * a.ldw;
            t.L = a.K2 > 0 ? a.L + i0 * a.ldl : nullptr;
            t.F = a.K2 > 0 ? a.F + j0 : nullptr;
            t.C = a.C ? a.C + i0 * a.ldc + j0 : nullptr;
            t.bias = a.bias ? a.bias + i0 : nullptr;
            t.Y = a.Y + i0 * a.ldy + j0;
            if (cols > 16)
                skipTileRows<2>(rows, t, m0, m1);
            else
                skipTileRows<1>(rows, t, m0, m1);
        }
        if (exit == Exit::kRaw)
            for (int64_t o = 0; o < a.M; ++o) applyActivation(a.Y + o * a.ldy + j0, a.Y + o * a.ldy + j0, cols, a.activation);
    }
    if (t.stream) _mm_sfence();
}

}  // namespace cpu
}  // namespace turbofno

#endif
