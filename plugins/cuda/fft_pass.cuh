// The Stockham FFT kernels of the separable algorithm (DftPass::fft, chosen by planSeparable):
//  - row FFTs, fftPassKernel: the last-axis R2C (forward) and C2R (inverse) passes on plain contiguous
//    lines (line g's sample t at g * b/c.innerStride + t * rowStride), no resampling, for even lengths
//    kFftMinLen <= S <= kFftMaxLen (8..8192) with S / 2 = 2^a 3^b 5^c (small power-of-two blocks run
//    fft_pass_radix2.cuh instead: DftPass::fftRadices 0);
//  - column FFTs, fftColumnPassKernel (further below): a 2D layer's complex leading-axis passes.
// They compute exactly what dftPassKernel computes (same layouts, signs, C2R weights, scale, bias, skip,
// activation) with O(S log S) work per line instead of O(S * kept). The row FFTs:
//
// A block of 256 threads owns L lines (DftPass::fftLines, L * S <= kFftLineBudget = 8192 reals, and
// fftSmemBytes(S, L) <= 48 KB; a block of one long line opts in to more, fftSmemAllowed: about 84 KB at 8192
// points). Line l's S reals are N2 = S / 2 complex values z[j] = (v[2j], v[2j+1]);
// a complex FFT of length N2 runs over every line as Stockham autosort stages (natural order in and
// out) of radix R = 2, 3, 4, 5, 8 or 16 (DftPass::fftRadices, fft_radix.cuh): with p = the product of
// the earlier radices and M = N2 / R, unit i < M of a line reads z[i + r M] (r < R) into registers,
// multiplies by the twiddles w_P^{r k} (P = p R, k = i mod p; conjugated for the forward transform),
// runs an R-point DFT in registers and writes z[(i - k) R + k + m p] (m < R). Each thread holds its
// units across a barrier, so the stages run in place in shared memory (at most 4096 values per block:
// 1 unit of 16 per thread, 2 of 8, ..., 8 of 2).
//  - DftPass::fftDirect: the R2C's first stage reads its units straight from x (coalesced along t:
//    consecutive units are consecutive complex values; float2 / half2 loads where the line is contiguous
//    and aligned), the C2R's last stage (p R = N2, so it writes z[k + m p]) applies the epilogue and
//    writes y directly. Otherwise x is staged into shared memory by a plain coalesced loop first and y
//    written by one after the last stage.
//  - Shared memory: value e of the block (e = l * N2 + j) sits at fftPad(e) = e + (e >> 4) where the
//    first radix is even (powers of two: the stride-R writes of the p = 1 stage and the stride-8 ones
//    of p = 8 are then conflict-free), at e otherwise (odd radices first: their p = 1 writes are
//    conflict-free unpadded).
//  - Tables (shared memory, filled before the grid-dependency wait; then, C2R, each line's bias): stage twiddles
//    tw[p - 1 + (r - 1) p + k] = e^{+2 pi i r k / P} (N2 - 1 entries in all) and roots
//    root[k] = e^{+2 pi i k / S}, k <= N2 / 2, each from an exact integer fraction (fftRoot).
//  R2C: X[k] = (Z[k] + conj Z[N2-k]) / 2 + e^{-2 pi i k / S} (Z[k] - conj Z[N2-k]) / (2i) for the kept
//       bins k < kd (indices mod N2; e^{-2 pi i k / S} = -root[N2 - k] for k > N2 / 2). No scale.
//  C2R: Z'[k] = (X[k] + conj X[N2-k]) + i e^{+2 pi i k / S} (X[k] - conj X[N2-k]) for every k < N2
//       (pairs k, N2 - k from the units k <= N2 / 2; bins >= K = DftPass::K zero, imaginary parts of DC
//       and Nyquist ignored), the unnormalized inverse FFT (z[j] = y[2j] + i y[2j+1] = sum_k c_k
//       Re(X[k] e^{2 pi i k t / S}) with the C2R weights c_k), then act(scale * v + bias [+ y]).
// Index divisions by run-time sizes use fftDiv (a float reciprocal, exact below 2^21). Deterministic
// (fixed operation order, no atomics); no host synchronisation; 32-bit offsets (planner limits).
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "common.cuh"
#include "dft_pass.h"
#include "fft_pass_radix2.cuh"
#include "fft_pass_static.cuh"
#include "fft_radix.cuh"
#include "pdl.cuh"
#include "smem_limit.h"

namespace turbofno {
namespace cuda {

__device__ __forceinline__ int fftPad(int e, int padShift) { return e + (e >> padShift); }

// v, opaque to the optimizer: index math that depends on it stays inside the loop iteration that uses it.
__device__ __forceinline__ int fftOpaque(int v) {
    asm volatile("" : "+r"(v));
    return v;
}

// The block's lines in shared memory: a stage's source and destination. Value j of line l at
// fftPad(l * pitch + j, padShift).
struct FftSmemLines {
    static constexpr bool kGlobal = false;
    float2* buf;
    int pitch, padShift;
    __device__ __forceinline__ float2& at(int l, int j) const { return buf[fftPad(l * pitch + j, padShift)]; }
    // v[r] = z_l[i + r * stride]
    template <int R> __device__ __forceinline__ void load(int l, int i, int stride, float2 (&v)[R]) const {
        const int base = l * pitch + i;
#pragma unroll
        for (int r = 0; r < R; ++r) v[r] = buf[fftPad(base + r * stride, padShift)];
    }
    // z_l[d + m * stride] = v[m]
    template <int R> __device__ __forceinline__ void store(int l, int d, int stride, const float2 (&v)[R]) const {
        const int base = l * pitch + d;
#pragma unroll
        for (int m = 0; m < R; ++m) buf[fftPad(base + m * stride, padShift)] = v[m];
    }
};

// The R2C's input x as the first stage's source: complex value j of line l = reals 2j, 2j + 1.
template <typename T> struct FftInputLines {
    static constexpr bool kGlobal = true;
    const T* x;
    int line0, lineStride, pointStride;
    bool pairs;  // pointStride 1, even lineStride, x aligned to 2 elements: one 2-element load per value
    template <int R> __device__ __forceinline__ void load(int l, int i, int stride, float2 (&v)[R]) const {
        const T* line = x + (line0 + l) * lineStride;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int j = i + r * stride;
            v[r] = pairs ? loadComplex<T>(line + 2 * j)
                         : make_float2(toFloat(line[2 * j * pointStride]), toFloat(line[(2 * j + 1) * pointStride]));
        }
    }
    // fftStageStatic's form: a compile-time stride
    template <int R, int STRIDE> __device__ __forceinline__ void loadS(int l, int i, float2 (&v)[R]) const { load<R>(l, i, STRIDE, v); }
};

// The C2R epilogue of two output values: act(scale * v + b [+ old]) (old read only where addY).
struct FftC2REpilogue {
    float scale;
    int addY, activation;
    __device__ __forceinline__ float2 operator()(float2 v, float b, float2 old) const {
        float a0 = fmaf(v.x, scale, b), a1 = fmaf(v.y, scale, b);
        if (addY) {
            a0 += old.x;
            a1 += old.y;
        }
        return make_float2(applyActivation(a0, activation), applyActivation(a1, activation));
    }
};

// The C2R's output y as the last stage's destination, with the epilogue act(scale * v + bias [+ y])
// (lineBias: the block's per-line bias values in shared memory, looked up once per line).
template <typename T> struct FftOutputLines {
    static constexpr bool kGlobal = true;
    T* y;
    const float* lineBias;
    int line0, lineStride, pointStride;
    bool pairs;
    FftC2REpilogue finish;
    template <int R> __device__ __forceinline__ void store(int l, int d, int stride, const float2 (&v)[R]) const {
        const int g = line0 + l;
        const float b = lineBias[l];
        T* line = y + g * lineStride;
#pragma unroll
        for (int m = 0; m < R; ++m) {
            const int j = d + m * stride;
            if (pairs) {
                const float2 old = finish.addY ? loadComplex<T>(line + 2 * j) : make_float2(0.f, 0.f);
                storeComplex<T>(line + 2 * j, finish(v[m], b, old));
            } else {
                T* p0 = line + 2 * j * pointStride;
                T* p1 = line + (2 * j + 1) * pointStride;
                const float2 old = finish.addY ? make_float2(toFloat(*p0), toFloat(*p1)) : make_float2(0.f, 0.f);
                const float2 o = finish(v[m], b, old);
                *p0 = fromFloat<T>(o.x);
                *p1 = fromFloat<T>(o.y);
            }
        }
    }
};

// A complex pass's columns (DftPass::b / c views of one outer index): the column FFT's first-stage
// source (forward) or last-stage destination (inverse). Line l = column c0 + l, value j = row j.
struct FftColumnsIn {
    static constexpr bool kGlobal = true;
    const float2* src;  // + o * outerStride + c0 * innerStride
    int colStride, rowStride;
    template <int R> __device__ __forceinline__ void load(int l, int i, int stride, float2 (&v)[R]) const {
#pragma unroll
        for (int r = 0; r < R; ++r) v[r] = src[l * colStride + (i + r * stride) * rowStride];
    }
};
struct FftColumnsOut {
    static constexpr bool kGlobal = true;
    float2* dst;
    int colStride, rowStride;
    template <int R> __device__ __forceinline__ void store(int l, int d, int stride, const float2 (&v)[R]) const {
#pragma unroll
        for (int m = 0; m < R; ++m) dst[l * colStride + (d + m * stride) * rowStride] = v[m];
    }
};

// One Stockham stage of radix R over `lines` lines of N2 values, p = product of the earlier radices,
// tw = this stage's table (tw[(r - 1) p + k] = e^{+2 pi i r k / (p R)}): every thread loads its units
// from `in`, transforms them, and (after a barrier where SYNC_MID: in and out are the same shared
// lines) stores them to `out`. The caller places the barrier after the stores. Unit u is (line l,
// unit i of the line): consecutive u run along i (rows: coalesced along a line), or along l where
// LINE_FAST (columns: consecutive threads read consecutive columns, coalesced across lines).
template <bool LINE_FAST>
__device__ __forceinline__ void fftUnit(int u, int M, float invM, int lines, float invLines, int& l, int& i) {
    if constexpr (LINE_FAST) {
        i = fftDiv(u, invLines);
        l = u - i * lines;
    } else {
        l = fftDiv(u, invM);
        i = u - l * M;
    }
}

template <int R, bool INV, bool SYNC_MID, bool LINE_FAST, int THREADS = kFftThreads, class In, class Out>
__device__ __forceinline__ void fftStage(const float2* tw, int N2, int lines, int p, const In& in, const Out& out) {
    constexpr int kMaxUnits = (kFftMaxPoints / R + THREADS - 1) / THREADS;
    const int M = N2 / R, units = lines * M;
    const float invM = 1.f / static_cast<float>(M), invP = 1.f / static_cast<float>(p);
    const float invLines = 1.f / static_cast<float>(lines);
    // initialized: registers written only under `u < units` would count as live around the stage
    // loop in every radix's copy
    float2 v[kMaxUnits][R] = {};
    // every unit's loads first (all in flight together), then the twiddles and DFTs
#pragma unroll
    for (int j = 0; j < kMaxUnits; ++j) {
        const int u = static_cast<int>(threadIdx.x) + j * THREADS;
        if (u < units) {
            int l, i;
            fftUnit<LINE_FAST>(u, M, invM, lines, invLines, l, i);
            in.load(l, i, M, v[j]);
        }
    }
#pragma unroll
    for (int j = 0; j < kMaxUnits; ++j) {
        const int u = static_cast<int>(threadIdx.x) + j * THREADS;
        if (u < units) {
            if (p > 1) {  // the first stage's twiddles are all 1
                int l, i;
                fftUnit<LINE_FAST>(u, M, invM, lines, invLines, l, i);
                const int k = i - fftDiv(i, invP) * p;
#pragma unroll
                for (int r = 1; r < R; ++r) v[j][r] = fftTw<INV>(v[j][r], tw[(r - 1) * p + k]);
            }
            fftDft<R, INV>(v[j]);
        }
    }
    if constexpr (SYNC_MID) __syncthreads();
    // unit u's outputs: line l, positions (i - k) R + k + m p (indices recomputed: fewer live registers)
#pragma unroll
    for (int j = 0; j < kMaxUnits; ++j) {
        const int u = static_cast<int>(threadIdx.x) + j * THREADS;
        if (u < units) {
            int l, i;
            fftUnit<LINE_FAST>(u, M, invM, lines, invLines, l, i);
            const int q = fftDiv(i, invP), k = i - q * p;
            out.store(l, q * p * R + k, p, v[j]);
        }
    }
}

template <bool INV, bool SYNC_MID, bool LINE_FAST, int THREADS = kFftThreads, class In, class Out>
__device__ __forceinline__ void fftStageRadix(int R, const float2* tw, int N2, int lines, int p, const In& in, const Out& out) {
    switch (R) {
        case 2: fftStage<2, INV, SYNC_MID, LINE_FAST, THREADS>(tw, N2, lines, p, in, out); break;
        case 3: fftStage<3, INV, SYNC_MID, LINE_FAST, THREADS>(tw, N2, lines, p, in, out); break;
        case 4: fftStage<4, INV, SYNC_MID, LINE_FAST, THREADS>(tw, N2, lines, p, in, out); break;
        case 5: fftStage<5, INV, SYNC_MID, LINE_FAST, THREADS>(tw, N2, lines, p, in, out); break;
        case 8: fftStage<8, INV, SYNC_MID, LINE_FAST, THREADS>(tw, N2, lines, p, in, out); break;
        default: fftStage<16, INV, SYNC_MID, LINE_FAST, THREADS>(tw, N2, lines, p, in, out); break;
    }
}

// FFT (forward: e^{-2 pi i jk / N2}; INV: e^{+...}, unnormalized) of `lines` lines, natural order in
// and out: the first stage reads from `first` (x for the R2C, else the shared lines), the last writes
// to `last` (y for the C2R, else the shared lines), every other stage runs in place on `lines_`.
// Ends with a barrier unless the last stage writes global memory.
template <bool INV, bool LINE_FAST, class First, class Last>
__device__ __forceinline__ void fftTransform(const float2* tw, int N2, int lines, unsigned radices, const First& first,
                                             const FftSmemLines& sm, const Last& last) {
    int p = 1;
    for (bool isFirst = true; radices != 0; radices >>= 4, isFirst = false) {
        const int R = fftRadixOf(radices & 15u);
        const bool isLast = (radices >> 4) == 0;
        const float2* t = tw + (p - 1);
        // each radix's per-unit index math (a function of N2 alone) would otherwise be hoisted out of
        // the loop and kept live across it, all radices at once
        N2 = fftOpaque(N2);
        if (First::kGlobal && isFirst) {
            fftStageRadix<INV, false, LINE_FAST>(R, t, N2, lines, p, first, sm);
            __syncthreads();
        } else if (Last::kGlobal && isLast) {
            fftStageRadix<INV, false, LINE_FAST>(R, t, N2, lines, p, sm, last);
        } else {
            fftStageRadix<INV, true, LINE_FAST>(R, t, N2, lines, p, sm, sm);
            __syncthreads();
        }
        p *= R;
    }
}

// fftTransform (LINE_FAST columns) for a radix list known at compile time: only its radices' stages are
// instantiated (the run-time list's switch over all six radices holds the registers of the largest).
template <unsigned RADICES, int P, bool INV, bool IS_FIRST, int THREADS = kFftThreads, class First, class Last>
__device__ __forceinline__ void fftTransformFixed(const float2* tw, int lines, const First& first, const FftSmemLines& sm,
                                                  const Last& last) {
    constexpr int R = fftRadixOf(RADICES & 15u);
    constexpr bool kIsLast = (RADICES >> 4) == 0;
    constexpr int kN2 = P * fftRadicesProduct(RADICES);
    const float2* t = tw + (P - 1);
    if constexpr (First::kGlobal && IS_FIRST) {
        fftStage<R, INV, false, true, THREADS>(t, kN2, lines, P, first, sm);
        __syncthreads();
    } else if constexpr (Last::kGlobal && kIsLast) {
        fftStage<R, INV, false, true, THREADS>(t, kN2, lines, P, sm, last);
    } else {
        fftStage<R, INV, true, true, THREADS>(t, kN2, lines, P, sm, sm);
        __syncthreads();
    }
    if constexpr (!kIsLast) fftTransformFixed<(RADICES >> 4), P * R, INV, false, THREADS>(tw, lines, first, sm, last);
}

// The column transform (LINE_FAST) of n-point lines: RADICES != 0 its compile-time list (fftColumnPassKernel,
// the long-axis kernels), else the run-time list `radices`.
template <unsigned RADICES, bool INV, int THREADS = kFftThreads, class First, class Last>
__device__ __forceinline__ void fftColumnTransform(const float2* tw, int n, int lines, unsigned radices, const First& first,
                                                   const FftSmemLines& sm, const Last& last) {
    if constexpr (RADICES != 0) fftTransformFixed<RADICES, 1, INV, true, THREADS>(tw, lines, first, sm, last);
    else fftTransform<INV, true>(tw, n, lines, radices, first, sm, last);
}

// The R2C's kept bin X[k] (k <= N2) of a line whose complex FFT Z (N2 points of the paired reals) is done, from
// a = Z[k mod N2] and bc = Z[(N2 - k) mod N2]: (Z[k] + conj Z[N2-k]) / 2 + e^{-2 pi i k / S} (Z[k] - conj Z[N2-k]) / (2i),
// root[j] = e^{+2 pi i j / S} for j <= N2 / 2.
__device__ __forceinline__ float2 fftR2CBin(float2 a, float2 bc, int k, int N2, const float2* root) {
    const float2 b = make_float2(bc.x, -bc.y);                                // conj Z[N2 - k]
    const float2 ev = make_float2(0.5f * (a.x + b.x), 0.5f * (a.y + b.y));   // (Z[k] + conj Z[N2-k]) / 2
    const float2 d = make_float2(0.5f * (a.x - b.x), 0.5f * (a.y - b.y));
    const float2 od = make_float2(d.y, -d.x);                                 // d / i
    float2 w;                                                                 // e^{-2 pi i k / S}
    if (2 * k <= N2) {
        w = root[k];
        w.y = -w.y;
    } else {
        w = root[N2 - k];
        w.x = -w.x;
        w.y = -w.y;
    }
    return fftAdd(ev, cmul(w, od));
}

// The C2R's pack of unit k <= N2 / 2 from xa = X[k], xb = X[N2 - k] (zero where not kept): zk = Z'[k] and, where
// `partner` (k > 0 and 2k != N2), zp = Z'[N2 - k] = (X + conj X~) + i e^{+2 pi i j / S} (X - conj X~); DC and Nyquist
// (k == 0) take real parts only, as the DFT pass's C2R. w = root[k] = e^{+2 pi i k / S}.
__device__ __forceinline__ bool fftC2RPack(float2 xa, float2 xb, int k, int N2, float2 w, float2& zk, float2& zp) {
    if (k == 0) {
        xa.y = 0.f;
        xb.y = 0.f;
    }
    {
        const float2 s = make_float2(xa.x + xb.x, xa.y - xb.y);  // X[k] + conj X[N2-k]
        const float2 dw = cmul(make_float2(xa.x - xb.x, xa.y + xb.y), w);
        zk = make_float2(s.x - dw.y, s.y + dw.x);  // s + i dw
    }
    const bool partner = k > 0 && 2 * k != N2;  // k = N2 / 2 of an even N2 is its own partner
    if (partner) {
        const float2 w2 = make_float2(-w.x, w.y);  // e^{+2 pi i (N2 - k) / S} = -conj(w)
        const float2 s = make_float2(xb.x + xa.x, xb.y - xa.y);
        const float2 dw = cmul(make_float2(xb.x - xa.x, xb.y + xa.y), w2);
        zp = make_float2(s.x - dw.y, s.y + dw.x);
    }
    return partner;
}

// Spectrum index of kept row m: the low block's rows m < kP stay, the high block's move up by kOff (the column
// passes' gather of the kept rows on the forward, their scatter on the inverse).
__device__ __forceinline__ int fftKeptRowIndex(int m, int kP, int kOff) { return m < kP ? m : m + kOff; }

// The inverse column pass's input: the K kept rows of `lines` columns (column l, row k at src[l * colStride + k *
// rowStride]) written to spectrum index k (k < kP) or k + kOff (the high block) of the zeroed shared columns, dropped
// at or beyond kLimit; 4 loads in flight per thread. invLines = 1 / lines.
template <int THREADS = kFftThreads>
__device__ __forceinline__ void fftScatterKeptRows(const float2* src, int colStride, int rowStride, int K, int lines, float invLines,
                                                   int kP, int kOff, int kLimit, const FftSmemLines& sm) {
    constexpr int kBatch = 4;  // rows per thread whose loads are in flight together
    const int tid = static_cast<int>(threadIdx.x);
    for (int e0 = tid; e0 < K * lines; e0 += kBatch * THREADS) {
        float2 v[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int e = e0 + b * THREADS;
            const int k = fftDiv(e, invLines), l = e - k * lines;
            v[b] = e < K * lines ? src[l * colStride + k * rowStride] : make_float2(0.f, 0.f);
        }
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
            const int e = e0 + b * THREADS;
            const int k = fftDiv(e, invLines), l = e - k * lines;
            const int f = fftKeptRowIndex(k, kP, kOff);
            if (e < K * lines && f < kLimit) sm.at(l, f) = v[b];
        }
    }
}

// Stage twiddles: stage s (earlier radices' product p, radix R, P = p R) at tw[p - 1 ..], (R - 1) p
// entries tw[p - 1 + (r - 1) p + k] = e^{+2 pi i r k / P}; then, unless root is null, root[k] =
// e^{+2 pi i k / (2 N2)}, k <= N2 / 2.
template <int THREADS = kFftThreads>
__device__ __forceinline__ void fftFillTables(float2* tw, float2* root, int N2, unsigned radices) {
    int p = 1;
    for (; radices != 0; radices >>= 4) {
        const int R = fftRadixOf(radices & 15u), P = p * R;
        for (int e = static_cast<int>(threadIdx.x); e < (R - 1) * p; e += THREADS) {
            const int r = e / p + 1, k = e - (r - 1) * p;
            tw[p - 1 + e] = fftRoot(r * k, P);
        }
        p = P;
    }
    if (root)
        for (int k = static_cast<int>(threadIdx.x); k <= N2 / 2; k += THREADS) root[k] = fftRoot(k, 2 * N2);
}

// The same tables for long lines (N2 >= kFftTwoLevelFrom, fftTwoLevelValues): every entry is a 2 N2-th
// root of unity e^{2 pi i J / (2 N2)}, here the product of two exact roots base[J % 64] and
// base[64 + J / 64] (within 2 ulp), so a block of one 8192-point line computes 192 sincospif, not 6144.
// Not inlined: it keeps the short lines' kernel as it was (fftFillTables, 80 registers).
inline __device__ __noinline__ void fftFillTablesTwoLevel(float2* tw, float2* root, int N2, unsigned radices, float2* base) {
    const int tid = static_cast<int>(threadIdx.x);
    const int n = fftTwoLevelValues(N2);
    for (int e = tid; e < n; e += kFftThreads) base[e] = fftRoot(e < 64 ? e : 64 * (e - 64), 2 * N2);
    __syncthreads();
    int p = 1;
    for (; radices != 0; radices >>= 4) {
        const int R = fftRadixOf(radices & 15u), P = p * R;
        const int up = 2 * (N2 / P);  // e^{2 pi i j / P} = e^{2 pi i (j up) / (2 N2)}
        for (int e = tid; e < (R - 1) * p; e += kFftThreads) {
            const int r = e / p + 1, k = e - (r - 1) * p, J = r * k * up;
            tw[p - 1 + e] = cmul(base[J & 63], base[64 + (J >> 6)]);
        }
        p = P;
    }
    for (int k = tid; k <= N2 / 2; k += kFftThreads) root[k] = cmul(base[k & 63], base[64 + (k >> 6)]);
}

// Whether a view's lines allow the 2-element loads / stores: unit point stride, an even line stride,
// the base aligned to 2 elements.
template <typename T> __device__ __forceinline__ bool fftPairs(const void* base, const StridedView& v) {
    return v.rowStride == 1 && (v.innerStride & 1) == 0 && (reinterpret_cast<uintptr_t>(base) % (2 * sizeof(T))) == 0;
}

// KIND = kR2C: src = x (T, lines of S samples), dst = the spectrum (float2, kd = p.M bins per line),
// bias unused. KIND = kC2R: src = the spectrum (float2, p.K bins read per line), dst = y (T), bias
// per line (biasDiv / biasMod) or null. Grid: ceil(p.N / p.fftLines) blocks of kFftThreads.
// DIRECT (DftPass::fftDirect): the R2C's first stage reads x and the C2R's last stage writes y straight
// from / to global memory; else x is first copied into the shared lines (coalesced, 4 loads in flight
// per thread) and the C2R's result leaves them in a final coalesced loop: one more pass through
// shared memory, but plain streaming loops (which one wins depends on the radices, plan_separable.cpp).
// RADICES != 0: the kernel of one radix list (p.fftRadices == RADICES), sizes known at compile time
// (fft_pass_static.cuh); 0: any list.
template <PassKind KIND, typename T, bool DIRECT, unsigned RADICES>
__global__ void __launch_bounds__(kFftThreads) fftPassKernel(DftPass p, const void* __restrict__ src,
                                                             void* __restrict__ dst, const T* __restrict__ bias) {
    static_assert(KIND == PassKind::kR2C || KIND == PassKind::kC2R, "FFT passes are the real last-axis passes");
    extern __shared__ __align__(16) float fftSmem[];
    constexpr int kN2 = fftRadicesProduct(RADICES);  // 0: run-time
    const int N2 = kN2 ? kN2 : p.S >> 1;
    const unsigned radices = RADICES ? RADICES : static_cast<unsigned>(p.fftRadices);
    const int L = p.fftLines;
    float2* buf = reinterpret_cast<float2*>(fftSmem);
    float2* tw = buf + fftBufValues(static_cast<size_t>(L) * N2);
    float2* root = tw + (N2 - 1);
    float2* base = root + (N2 / 2 + 1);                                     // fftTwoLevelValues(N2) values
    float* lineBias = reinterpret_cast<float*>(base + fftTwoLevelValues(N2));  // C2R: L values
    const int tid = static_cast<int>(threadIdx.x);
    const int line0 = static_cast<int>(blockIdx.x) * L;
    const int lines = min(L, p.N - line0);  // lines of this block (the last block may have fewer)
    // padded for powers of two (first radix even)
    using Smem = std::conditional_t<RADICES != 0, FftSmemStatic<kN2, (fftRadixOf(RADICES & 15u) & 1) == 0>, FftSmemLines>;
    const Smem sm = [&] {
        if constexpr (RADICES != 0) return Smem{buf};
        else return Smem{buf, N2, (fftRadixOf(radices & 15u) & 1) ? 31 : 4};
    }();
    // the transform (forward / INV) from `first` through the shared lines to `last`
    auto transform = [&](auto inv, const auto& first, const auto& last) {
        if constexpr (RADICES != 0) fftTransformStatic<RADICES, 1, kN2, decltype(inv)::value, true>(tw, lines, first, sm, last);
        else fftTransform<decltype(inv)::value, false>(tw, N2, lines, radices, first, sm, last);
    };

    // before the wait: overlaps the previous kernel's tail (pdl.cuh)
    if (fftTwoLevelValues(N2)) fftFillTablesTwoLevel(tw, root, N2, radices, base);
    else fftFillTables(tw, root, N2, radices);
    gridDependencyWait();

    if constexpr (KIND == PassKind::kR2C) {
        const FftInputLines<T> in{static_cast<const T*>(src), line0, p.b.innerStride, p.b.rowStride, fftPairs<T>(src, p.b)};
        if constexpr (DIRECT) {
            transform(std::false_type{}, in, sm);  // ends with a barrier (tables too)
        } else {
            const float invN2 = 1.f / static_cast<float>(N2);
#pragma unroll 4
            for (int e = tid; e < lines * N2; e += kFftThreads) {
                const int l = fftDivBy<kN2>(e, invN2), j = e - l * N2;
                float2 v[1];
                in.template load<1>(l, j, 0, v);
                sm.at(l, j) = v[0];
            }
            __syncthreads();
            transform(std::false_type{}, sm, sm);  // ends with a barrier
        }
        allowDependentLaunch();
        // kept bins k < kd (<= N2 + 1) of each line, from Z[k] and Z[N2 - k] (natural order)
        const int kd = p.M;
        const float invKd = 1.f / static_cast<float>(kd);
        float2* out = static_cast<float2*>(dst);
        for (int i = tid; i < lines * kd; i += kFftThreads) {
            const int l = fftDiv(i, invKd), k = i - l * kd;
            out[(line0 + l) * p.c.innerStride + k * p.c.rowStride] =
                fftR2CBin(sm.at(l, k == N2 ? 0 : k), sm.at(l, k == 0 ? 0 : N2 - k), k, N2, root);
        }
    } else {
        const float2* zin = static_cast<const float2*>(src);
        for (int l = tid; l < lines; l += kFftThreads)
            lineBias[l] = bias ? toFloat(bias[(static_cast<unsigned>(line0 + l) / static_cast<unsigned>(p.biasDiv)) %
                                              static_cast<unsigned>(p.biasMod)])
                               : 0.f;
        __syncthreads();                 // the pack below reads root[] (written by other threads), the epilogue lineBias[]
        const int K = p.K;               // bins read per line (min(kd, S/2 + 1))
        const int half = N2 / 2 + 1;     // units k = 0..N2/2, each packing Z'[k] and Z'[N2 - k]
        const float invHalf = 1.f / static_cast<float>(half);
        constexpr int kBatch = 4;        // units per thread whose loads are in flight together
        for (int i0 = tid; i0 < lines * half; i0 += kBatch * kFftThreads) {
            float2 xa[kBatch], xb[kBatch];  // X[k], X[N2 - k]
#pragma unroll
            for (int b = 0; b < kBatch; ++b) {
                const int i = i0 + b * kFftThreads;
                const int l = fftDivBy<kN2 ? kN2 / 2 + 1 : 0>(i, invHalf), k = i - l * half;
                const int base = (line0 + l) * p.b.innerStride;
                xa[b] = xb[b] = make_float2(0.f, 0.f);
                if (i < lines * half) {
                    if (k < K) xa[b] = zin[base + k * p.b.rowStride];
                    if (N2 - k < K) xb[b] = zin[base + (N2 - k) * p.b.rowStride];
                }
            }
#pragma unroll
            for (int b = 0; b < kBatch; ++b) {
                const int i = i0 + b * kFftThreads;
                if (i >= lines * half) break;
                const int l = fftDivBy<kN2 ? kN2 / 2 + 1 : 0>(i, invHalf), k = i - l * half;
                float2 zk, zp;
                const bool partner = fftC2RPack(xa[b], xb[b], k, N2, root[k], zk, zp);
                sm.at(l, k) = zk;
                if (partner) sm.at(l, N2 - k) = zp;
            }
        }
        allowDependentLaunch();
        __syncthreads();
        const FftOutputLines<T> out{static_cast<T*>(dst), lineBias, line0, p.c.innerStride, p.c.rowStride, fftPairs<T>(dst, p.c),
                                    FftC2REpilogue{p.scale, p.addY, p.activation}};
        if constexpr (DIRECT) {
            transform(std::true_type{}, sm, out);
        } else {
            transform(std::true_type{}, sm, sm);  // ends with a barrier
            const float invN2 = 1.f / static_cast<float>(N2);
#pragma unroll 4
            for (int e = tid; e < lines * N2; e += kFftThreads) {
                const int l = fftDivBy<kN2>(e, invN2), j = e - l * N2;
                const float2 v[1] = {sm.at(l, j)};
                out.template store<1>(l, j, 0, v);
            }
        }
    }
}

// Whether `radices` (DftPass::fftRadices) is a valid stage list for n points: radices 2, 3, 4, 5, 8, 16,
// product n, 1..kFftMaxStages stages.
inline bool fftStagesValid(unsigned radices, int n) {
    int prod = 1, stages = 0;
    for (; radices != 0; radices >>= 4, ++stages) {
        const int R = fftRadixOf(radices & 15u);
        if (R != 2 && R != 3 && R != 4 && R != 5 && R != 8 && R != 16) return false;
        prod *= R;
    }
    return stages >= 1 && stages <= kFftMaxStages && prod == n;
}

// err = launch(std::integral_constant<unsigned, R>) for the entry R of LIST (a radix-list array) equal to
// `radices`; false (err untouched) where LIST has no such entry.
template <const auto& LIST, class Launch, size_t... I>
bool fftLaunchListed(unsigned radices, const Launch& launch, cudaError_t& err, std::index_sequence<I...>) {
    return ((radices == LIST[I] && (err = launch(std::integral_constant<unsigned, LIST[I]>{}), true)) || ...);
}

// Launch of one FFT pass (DftPass::fft): the radix-2 kernel where p.fftRadices == 0 (fft_pass_radix2.cuh),
// else this file's Stockham kernel: ceil(N / fftLines) blocks, fftSmemBytes of dynamic shared memory
// (<= 48 KB, a one-line block up to fftSmemAllowed), programmatic dependent launch (pdl.cuh). The radix
// lists of kFftStaticRadices with the planner's stage variant (fftDirectDefault) run their compile-time
// kernel.
template <PassKind KIND, typename T>
cudaError_t launchFftPass(const DftPass& p, const void* src, void* dst, const T* bias, cudaStream_t stream) {
    if (p.fftRadices == 0) return launchFftRadix2Pass<KIND, T>(p, src, dst, bias, stream);  // small power-of-two blocks
    if (p.fftLines < 1 || p.S < 8 || p.S % 2 != 0 || !fftStagesValid(static_cast<unsigned>(p.fftRadices), p.S / 2) ||
        static_cast<int64_t>(p.fftLines) * p.S > 2 * static_cast<int64_t>(kFftMaxPoints) ||
        fftSmemBytes(p.S, p.fftLines) > fftSmemAllowed(p.fftLines))
        return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>((static_cast<int64_t>(p.N) + p.fftLines - 1) / p.fftLines));
    const size_t smem = fftSmemBytes(p.S, p.fftLines);
    // one-line blocks of long lines need more than the 48 KB default (opt-in once per device and kernel)
    auto launch = [&](auto kernel, std::atomic<unsigned long long>& optedIn) {
        const cudaError_t err = allowSmem(kernel, smem, optedIn, kFftSmemMax);
        return err != cudaSuccess ? err : launchKernel(kernel, grid, dim3(kFftThreads), smem, stream, p, src, dst, bias);
    };
    static std::atomic<unsigned long long> optedInDirect{0}, optedInStaged{0}, optedInStatic{0};
    // the compile-time kernel of radix list R (<= 1024 points per line: never over 48 KB, optedInStatic unused)
    auto launchStatic = [&](auto radices) {
        constexpr unsigned R = decltype(radices)::value;
        constexpr bool kDirect = fftDirectDefault(KIND == PassKind::kC2R, 2 * fftRadicesProduct(R));
        return launch(fftPassKernel<KIND, T, kDirect, R>, optedInStatic);
    };
    if (fftStaticKernelRuns(p, KIND == PassKind::kC2R)) {
        cudaError_t err = cudaErrorInvalidConfiguration;
        fftLaunchListed<kFftStaticRadices>(static_cast<unsigned>(p.fftRadices), launchStatic, err,
                                           std::make_index_sequence<kFftStaticCount>{});
        return err;
    }
    return p.fftDirect ? launch(fftPassKernel<KIND, T, true, 0>, optedInDirect)
                       : launch(fftPassKernel<KIND, T, false, 0>, optedInStaged);
}

// The column FFT: a complex pass (kC2C, a leading axis of n = p.S points, n = 2^a 3^b 5^c) as FFTs
// over W = p.fftLines columns per block. Block = (outer index o, columns c0 .. c0 + W - 1 of the view's
// `inner` columns); column l's n values sit in shared memory at l * pitch + j (pitch odd, so that the
// column-fast unit order below is free of bank conflicts), and the stages run with consecutive threads
// on consecutive columns (LINE_FAST): every global access is coalesced across columns.
//  forward (p.inverse = 0, K = n input rows): the first stage loads B's rows straight from global
//    memory; after the last stage the M kept rows m are written from spectrum index passMap(m, mP, mOff)
//    (low block, then the high block ending at n - 1).
//  inverse (p.inverse = 1, M = n output rows): the columns are zeroed, the K kept rows k scattered to
//    spectrum index passMap(k, kP, kOff) (dropped at or beyond kLimit), and the last stage writes C's
//    rows directly. No scale (as dftPassKernel<kC2C>).
// RADICES: the stage list at compile time (kFftColumnStaticRadices, the common lengths), else 0 (p.fftRadices).
template <bool INV, unsigned RADICES>
__global__ void __launch_bounds__(kFftThreads) fftColumnPassKernel(DftPass p, const float2* __restrict__ src,
                                                                   float2* __restrict__ dst) {
    extern __shared__ __align__(16) float fftSmem[];
    const int n = p.S, W = p.fftLines, pitch = fftColumnPitch(n);
    const unsigned radices = static_cast<unsigned>(p.fftRadices);
    float2* buf = reinterpret_cast<float2*>(fftSmem);
    float2* tw = buf + W * pitch;
    const int tid = static_cast<int>(threadIdx.x);
    const int inner = p.b.inner, tiles = (inner + W - 1) / W;
    const int o = static_cast<int>(blockIdx.x) / tiles, c0 = (static_cast<int>(blockIdx.x) - o * tiles) * W;
    const int lines = min(W, inner - c0);
    const float invLines = 1.f / static_cast<float>(lines);
    const FftSmemLines sm{buf, pitch, 31};
    const int bBase = o * p.b.outerStride + c0 * p.b.innerStride, cBase = o * p.c.outerStride + c0 * p.c.innerStride;

    fftFillTables(tw, nullptr, n, radices);  // before the wait: overlaps the previous kernel's tail (pdl.cuh)
    gridDependencyWait();

    if constexpr (!INV) {
        const FftColumnsIn in{src + bBase, p.b.innerStride, p.b.rowStride};
        fftColumnTransform<RADICES, false>(tw, n, lines, radices, in, sm, sm);  // ends with a barrier (tables too)
        allowDependentLaunch();
        for (int e = tid; e < p.M * lines; e += kFftThreads) {
            const int m = fftDiv(e, invLines), l = e - m * lines;
            dst[cBase + l * p.c.innerStride + m * p.c.rowStride] = sm.at(l, fftKeptRowIndex(m, p.mP, p.mOff));
        }
    } else {
        for (int e = tid; e < lines * pitch; e += kFftThreads) buf[e] = make_float2(0.f, 0.f);
        __syncthreads();
        fftScatterKeptRows(src + bBase, p.b.innerStride, p.b.rowStride, p.K, lines, invLines, p.kP, p.kOff, p.kLimit, sm);
        allowDependentLaunch();
        __syncthreads();
        const FftColumnsOut out{dst + cBase, p.c.innerStride, p.c.rowStride};
        fftColumnTransform<RADICES, true>(tw, n, lines, radices, sm, sm, out);
    }
}

// Launch of one column FFT pass (DftPass::fft on a kC2C pass): (N / inner) * ceil(inner / fftLines)
// blocks, fftColumnSmemBytes of dynamic shared memory (<= 48 KB); the compile-time kernel where the radix
// list is one of kFftColumnStaticRadices.
inline cudaError_t launchFftColumnPass(const DftPass& p, const void* src, void* dst, cudaStream_t stream) {
    const bool fwdOk = !p.inverse && p.K == p.S && p.M <= p.S;
    const bool invOk = p.inverse && p.M == p.S;
    if (p.fftLines < 1 || p.b.inner < 1 || p.N % p.b.inner != 0 || !fftStagesValid(static_cast<unsigned>(p.fftRadices), p.S) ||
        static_cast<int64_t>(p.fftLines) * p.S > kFftMaxPoints || (!fwdOk && !invOk) ||
        fftColumnSmemBytes(p.S, p.fftLines) > kFftSmemLimit)
        return cudaErrorInvalidConfiguration;
    const int64_t blocks = static_cast<int64_t>(p.N / p.b.inner) * ((p.b.inner + p.fftLines - 1) / p.fftLines);
    const size_t smem = fftColumnSmemBytes(p.S, p.fftLines);
    auto launch = [&](auto radices) {
        constexpr unsigned R = decltype(radices)::value;
        const auto* in = static_cast<const float2*>(src);
        auto* out = static_cast<float2*>(dst);
        return p.inverse ? launchKernel(fftColumnPassKernel<true, R>, dim3(static_cast<unsigned>(blocks)), dim3(kFftThreads), smem,
                                        stream, p, in, out)
                         : launchKernel(fftColumnPassKernel<false, R>, dim3(static_cast<unsigned>(blocks)), dim3(kFftThreads), smem,
                                        stream, p, in, out);
    };
    cudaError_t err = cudaSuccess;
    if (fftLaunchListed<kFftColumnStaticRadices>(static_cast<unsigned>(p.fftRadices), launch, err,
                                                 std::make_index_sequence<kFftColumnStaticCount>{}))
        return err;
    return launch(std::integral_constant<unsigned, 0>{});
}

}  // namespace cuda
}  // namespace turbofno
