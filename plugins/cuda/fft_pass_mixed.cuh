// Mixed-radix variant of the FFT passes (fft_pass.cuh; launchFftPass runs it when DftPass::fftRadices
// != 0): the last-axis R2C and C2R passes for even lengths S = 2 N2, N2 = 2^a 3^b 5^c not a power of
// two, 10 <= S <= kFftMaxLen (plan_separable.h), with the contract of the radix-2 kernel (same layouts,
// signs, C2R weights, scale, bias, skip, activation as dftPassKernel<kR2C / kC2R>):
//
// A block of 256 threads owns L lines (DftPass::fftLines, L * S <= kFftLineBudget = 8192 reals, and
// fftMixedSmemBytes(S, L) <= 48 KB). Line l's S reals sit in shared memory as N2 complex values
// z[j] = (v[2j], v[2j+1]) at buf[l * N2 + j] (plain layout: real e of the block is fbuf[e], so loads
// and stores are coalesced, conflict-free and need no swizzle). A complex FFT of length N2 runs over
// every line as Stockham autosort stages (natural order in and out), one radix-R stage (R = 2, 3, 4, 5;
// the planner's order: 3s, 5s, 4s, a last 2) per pair of barriers: with p = the product of the earlier
// radices and M = N2 / R, unit i < M of a line reads z[i + r M] (r < R), multiplies by the twiddles
// w_P^{r k} (P = p R, k = i mod p; conjugated for the forward transform), runs an R-point DFT, and
// writes z[(i - k) R + k + m p] (m < R). Each thread holds its units' values in registers across a
// barrier, so the stage runs in place (L * N2 <= 4096 values: at most 8 units of 2, 6 of 3, 4 of 4 or 5
// per thread). After the last stage the line holds Z[k] in natural order. Reads are contiguous; writes
// are contiguous from p >= 16 on and at most ~3-way conflicted before (odd radices first keep the
// stride-R writes of p = 1 conflict-free).
// Tables (shared memory, filled before the grid-dependency wait): stage twiddles tw[p - 1 + (r - 1) p + k]
// = e^{+2 pi i r k / P} (N2 - 1 entries in all) and roots root[k] = e^{+2 pi i k / S}, k <= N2 / 2, each
// from an exact integer fraction n / P (fftMixRoot: quadrant in integers, sincospif of |x| <= 1/4).
//  R2C: X[k] = (Z[k] + conj Z[N2-k]) / 2 + e^{-2 pi i k / S} (Z[k] - conj Z[N2-k]) / (2i) for the kept
//       bins k < kd (indices mod N2; e^{-2 pi i k / S} = -root[N2 - k] for k > N2 / 2).
//  C2R: Z'[k] = (X[k] + conj X[N2-k]) + i e^{+2 pi i k / S} (X[k] - conj X[N2-k]) for every k < N2
//       (pairs k, N2 - k from the units k <= N2 / 2; bins >= K zero, imaginary parts of DC / Nyquist
//       ignored), the unnormalized inverse FFT, then the DFT pass's epilogue act(scale * v + bias [+ y]).
// Index divisions by run-time sizes use fftMixDiv (a float reciprocal, exact below 2^21).
// Deterministic (fixed operation order, no atomics); no host synchronisation; 32-bit offsets.
#pragma once

#include "common.cuh"
#include "dft_pass.h"
#include "pdl.cuh"

namespace turbofno {
namespace cuda {

constexpr int kFftMixThreads = 256;
constexpr int kFftMixMaxPoints = 4096;  // complex values per block at most (L * S <= kFftLineBudget = 8192 reals)
constexpr int kFftMixMaxStages = 7;     // N2 <= 2048: e.g. 1458 = 2 * 3^6

// floor(a / d) for 0 <= a < 2^21, 1 <= d, given inv = 1.f / d: (a + 1/2) / d is at least 1 / (2d) from
// an integer and the two roundings move it by at most (a + 1/2) / d * 2^-23 < 1 / (2d).
__device__ __forceinline__ int fftMixDiv(int a, float inv) {
    return static_cast<int>((static_cast<float>(a) + 0.5f) * inv);
}

// e^{+2 pi i n / P} for 0 <= n < P < 2^28: 4n = a P + b gives the quadrant a exactly, the rest is
// sincospif of b / (2P) reduced to [-1/4, 1/4] (0, i, -1, -i exact).
__device__ __forceinline__ float2 fftMixRoot(int n, int P) {
    int a = (4 * n) / P;
    int b = 4 * n - a * P;
    if (2 * b > P) {
        ++a;
        b -= P;
    }
    float s, c;
    sincospif(static_cast<float>(b) / static_cast<float>(2 * P), &s, &c);
    switch (a & 3) {
        case 0: return make_float2(c, s);
        case 1: return make_float2(-s, c);
        case 2: return make_float2(-c, -s);
        default: return make_float2(s, -c);
    }
}

__device__ __forceinline__ float2 fftMixAdd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 fftMixSub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 fftMixScale(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
// (INV ? +i : -i) * d: the sign of the transform's exponent
template <bool INV> __device__ __forceinline__ float2 fftMixJ(float2 d) {
    return INV ? make_float2(-d.y, d.x) : make_float2(d.y, -d.x);
}
// a * w (inverse) or a * conj(w) (forward)
template <bool INV> __device__ __forceinline__ float2 fftMixTw(float2 a, float2 w) {
    return INV ? cmul(a, w) : make_float2(a.x * w.x + a.y * w.y, a.y * w.x - a.x * w.y);
}

// In-place R-point DFT of a (exponent sign - forward, + inverse, unnormalized).
template <int R, bool INV> __device__ __forceinline__ void fftMixDft(float2 (&a)[R]) {
    if constexpr (R == 2) {
        const float2 t = a[1];
        a[1] = fftMixSub(a[0], t);
        a[0] = fftMixAdd(a[0], t);
    } else if constexpr (R == 3) {
        constexpr float kS3 = 0.866025403784438647f;  // sin(2 pi / 3)
        const float2 t = fftMixAdd(a[1], a[2]);
        const float2 m = make_float2(fmaf(-0.5f, t.x, a[0].x), fmaf(-0.5f, t.y, a[0].y));
        const float2 d = fftMixJ<INV>(fftMixScale(fftMixSub(a[1], a[2]), kS3));
        a[0] = fftMixAdd(a[0], t);
        a[1] = fftMixAdd(m, d);
        a[2] = fftMixSub(m, d);
    } else if constexpr (R == 4) {
        const float2 s02 = fftMixAdd(a[0], a[2]), d02 = fftMixSub(a[0], a[2]);
        const float2 s13 = fftMixAdd(a[1], a[3]), d13 = fftMixJ<INV>(fftMixSub(a[1], a[3]));
        a[0] = fftMixAdd(s02, s13);
        a[2] = fftMixSub(s02, s13);
        a[1] = fftMixAdd(d02, d13);
        a[3] = fftMixSub(d02, d13);
    } else {
        static_assert(R == 5, "radices 2, 3, 4, 5");
        constexpr float kC1 = 0.309016994374947424f;   // cos(2 pi / 5)
        constexpr float kC2 = -0.809016994374947424f;  // cos(4 pi / 5)
        constexpr float kS1 = 0.951056516295153572f;   // sin(2 pi / 5)
        constexpr float kS2 = 0.587785252292473129f;   // sin(4 pi / 5)
        const float2 b1 = fftMixAdd(a[1], a[4]), b2 = fftMixAdd(a[2], a[3]);
        const float2 d1 = fftMixSub(a[1], a[4]), d2 = fftMixSub(a[2], a[3]);
        const float2 m1 = make_float2(fmaf(kC2, b2.x, fmaf(kC1, b1.x, a[0].x)), fmaf(kC2, b2.y, fmaf(kC1, b1.y, a[0].y)));
        const float2 m2 = make_float2(fmaf(kC1, b2.x, fmaf(kC2, b1.x, a[0].x)), fmaf(kC1, b2.y, fmaf(kC2, b1.y, a[0].y)));
        const float2 n1 = fftMixJ<INV>(make_float2(fmaf(kS2, d2.x, kS1 * d1.x), fmaf(kS2, d2.y, kS1 * d1.y)));
        const float2 n2 = fftMixJ<INV>(make_float2(fmaf(-kS1, d2.x, kS2 * d1.x), fmaf(-kS1, d2.y, kS2 * d1.y)));
        a[0] = fftMixAdd(a[0], fftMixAdd(b1, b2));
        a[1] = fftMixAdd(m1, n1);
        a[4] = fftMixSub(m1, n1);
        a[2] = fftMixAdd(m2, n2);
        a[3] = fftMixSub(m2, n2);
    }
}

// One Stockham stage of radix R over the first `lines` lines of buf (N2 values each), p = product of
// the earlier radices, tw = this stage's table (tw[(r - 1) p + k] = e^{+2 pi i r k / (p R)}). Every
// thread reads and transforms its units, then (barrier) writes them back in place. Ends with a barrier.
template <int R, bool INV>
__device__ __forceinline__ void fftMixStage(float2* buf, const float2* tw, int N2, int lines, int p) {
    constexpr int kMaxUnits = (kFftMixMaxPoints / R + kFftMixThreads - 1) / kFftMixThreads;
    const int M = N2 / R, units = lines * M;
    const float invM = 1.f / static_cast<float>(M), invP = 1.f / static_cast<float>(p);
    // initialized: registers written only under `u < units` would count as live around the stage
    // loop in every radix's copy (ptxas: 216 registers instead of ~75)
    float2 v[kMaxUnits][R] = {};
    int dst[kMaxUnits] = {};
#pragma unroll
    for (int j = 0; j < kMaxUnits; ++j) {
        const int u = static_cast<int>(threadIdx.x) + j * kFftMixThreads;
        if (u < units) {
            const int l = fftMixDiv(u, invM), i = u - l * M;
            const int q = fftMixDiv(i, invP), k = i - q * p;
            const float2* src = buf + l * N2 + i;
#pragma unroll
            for (int r = 0; r < R; ++r) v[j][r] = src[r * M];
            if (p > 1) {  // the first stage's twiddles are all 1
#pragma unroll
                for (int r = 1; r < R; ++r) v[j][r] = fftMixTw<INV>(v[j][r], tw[(r - 1) * p + k]);
            }
            fftMixDft<R, INV>(v[j]);
            dst[j] = l * N2 + q * p * R + k;
        }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kMaxUnits; ++j) {
        const int u = static_cast<int>(threadIdx.x) + j * kFftMixThreads;
        if (u < units) {
#pragma unroll
            for (int r = 0; r < R; ++r) buf[dst[j] + r * p] = v[j][r];
        }
    }
    __syncthreads();
}

// v, opaque to the optimizer: index math that depends on it stays inside the loop iteration that uses it.
__device__ __forceinline__ int fftMixOpaque(int v) {
    asm volatile("" : "+r"(v));
    return v;
}

// FFT (forward: e^{-2 pi i jk / N2}; INV: e^{+...}, unnormalized) of the first `lines` lines of buf,
// natural order in and out; tw: fftMixFillTables. Ends with a barrier.
template <bool INV>
__device__ __forceinline__ void fftMixTransform(float2* buf, const float2* tw, int N2, int lines, unsigned radices) {
    int p = 1;
    for (; radices != 0; radices >>= 4) {
        const int R = static_cast<int>(radices & 15u);
        const float2* t = tw + (p - 1);
        // each radix's per-unit index math (a function of N2 alone) would otherwise be hoisted out of
        // the loop and kept live across it, all radices at once (ptxas: ~200 registers instead of ~75)
        N2 = fftMixOpaque(N2);
        switch (R) {
            case 2: fftMixStage<2, INV>(buf, t, N2, lines, p); break;
            case 3: fftMixStage<3, INV>(buf, t, N2, lines, p); break;
            case 4: fftMixStage<4, INV>(buf, t, N2, lines, p); break;
            default: fftMixStage<5, INV>(buf, t, N2, lines, p); break;
        }
        p *= R;
    }
}

// Stage twiddles: stage s (earlier radices' product p, radix R, P = p R) at tw[p - 1 ..], (R - 1) p
// entries tw[p - 1 + (r - 1) p + k] = e^{+2 pi i r k / P}; then root[k] = e^{+2 pi i k / (2 N2)}, k <= N2 / 2.
__device__ __forceinline__ void fftMixFillTables(float2* tw, float2* root, int N2, unsigned radices) {
    int p = 1;
    for (; radices != 0; radices >>= 4) {
        const int R = static_cast<int>(radices & 15u), P = p * R;
        for (int e = static_cast<int>(threadIdx.x); e < (R - 1) * p; e += kFftMixThreads) {
            const int r = e / p + 1, k = e - (r - 1) * p;
            tw[p - 1 + e] = fftMixRoot(r * k, P);
        }
        p = P;
    }
    for (int k = static_cast<int>(threadIdx.x); k <= N2 / 2; k += kFftMixThreads) root[k] = fftMixRoot(k, 2 * N2);
}

// KIND = kR2C: src = x (T, lines of S samples), dst = the spectrum (float2, kd = p.M bins per line),
// bias unused. KIND = kC2R: src = the spectrum (float2, p.K bins read per line), dst = y (T), bias
// per line (biasDiv / biasMod) or null. Grid: ceil(p.N / p.fftLines) blocks of kFftMixThreads.
template <PassKind KIND, typename T>
__global__ void __launch_bounds__(kFftMixThreads) fftMixedPassKernel(DftPass p, const void* __restrict__ src,
                                                                     void* __restrict__ dst, const T* __restrict__ bias) {
    static_assert(KIND == PassKind::kR2C || KIND == PassKind::kC2R, "FFT passes are the real last-axis passes");
    extern __shared__ __align__(16) float fftSmem[];
    const int S = p.S, N2 = S >> 1;
    const unsigned radices = static_cast<unsigned>(p.fftRadices);
    const int L = p.fftLines;
    float* fbuf = fftSmem;  // real e of the block (line e / S, sample e % S)
    float2* buf = reinterpret_cast<float2*>(fftSmem);
    float2* tw = buf + static_cast<size_t>(L) * N2;
    float2* root = tw + (N2 - 1);
    const int tid = static_cast<int>(threadIdx.x);
    const int line0 = static_cast<int>(blockIdx.x) * L;
    const int lines = min(L, p.N - line0);  // lines of this block (the last block may have fewer)
    const float invS = 1.f / static_cast<float>(S);

    fftMixFillTables(tw, root, N2, radices);  // before the wait: overlaps the previous kernel's tail (pdl.cuh)
    gridDependencyWait();

    if constexpr (KIND == PassKind::kR2C) {
        const T* x = static_cast<const T*>(src);
        // coalesced along t
#pragma unroll 4
        for (int e = tid; e < lines * S; e += kFftMixThreads) {
            const int l = fftMixDiv(e, invS), t = e - l * S;
            fbuf[e] = toFloat(x[(line0 + l) * p.b.innerStride + t * p.b.rowStride]);
        }
        allowDependentLaunch();
        __syncthreads();
        fftMixTransform<false>(buf, tw, N2, lines, radices);
        // kept bins k < kd (<= N2 + 1) of each line, from Z[k] and Z[N2 - k] (natural order)
        const int kd = p.M;
        const float invKd = 1.f / static_cast<float>(kd);
        float2* out = static_cast<float2*>(dst);
        for (int i = tid; i < lines * kd; i += kFftMixThreads) {
            const int l = fftMixDiv(i, invKd), k = i - l * kd;
            const float2* z = buf + l * N2;
            const float2 a = z[k == N2 ? 0 : k];
            const float2 bc = z[k == 0 ? 0 : N2 - k];
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
            out[(line0 + l) * p.c.innerStride + k * p.c.rowStride] = fftMixAdd(ev, cmul(w, od));
        }
    } else {
        const float2* zin = static_cast<const float2*>(src);
        __syncthreads();                 // the pack below reads root[] (written by other threads)
        const int K = p.K;               // bins read per line (min(kd, S/2 + 1))
        const int half = N2 / 2 + 1;     // units k = 0..N2/2, each packing Z'[k] and Z'[N2 - k]
        const float invHalf = 1.f / static_cast<float>(half);
        for (int i = tid; i < lines * half; i += kFftMixThreads) {
            const int l = fftMixDiv(i, invHalf), k = i - l * half;
            const int base = (line0 + l) * p.b.innerStride;
            float2 xa = make_float2(0.f, 0.f), xb = make_float2(0.f, 0.f);  // X[k], X[N2 - k]
            if (k < K) xa = zin[base + k * p.b.rowStride];
            if (N2 - k < K) xb = zin[base + (N2 - k) * p.b.rowStride];
            if (k == 0) {  // DC and Nyquist: real parts only (as the DFT pass's C2R)
                xa.y = 0.f;
                xb.y = 0.f;
            }
            float2* z = buf + l * N2;
            const float2 w = root[k];  // e^{+2 pi i k / S}
            {
                const float2 s = make_float2(xa.x + xb.x, xa.y - xb.y);   // X[k] + conj X[N2-k]
                const float2 dw = cmul(make_float2(xa.x - xb.x, xa.y + xb.y), w);
                z[k] = make_float2(s.x - dw.y, s.y + dw.x);               // s + i dw
            }
            if (k > 0 && 2 * k != N2) {  // Z'[N2 - k] (k = N2 / 2 of an even N2 is its own partner)
                const float2 w2 = make_float2(-w.x, w.y);                 // e^{+2 pi i (N2 - k) / S} = -conj(w)
                const float2 s = make_float2(xb.x + xa.x, xb.y - xa.y);
                const float2 dw = cmul(make_float2(xb.x - xa.x, xb.y + xa.y), w2);
                z[N2 - k] = make_float2(s.x - dw.y, s.y + dw.x);
            }
        }
        allowDependentLaunch();
        __syncthreads();
        fftMixTransform<true>(buf, tw, N2, lines, radices);
        // y[t] = act(scale * v + bias [+ y]), coalesced along t
        T* out = static_cast<T*>(dst);
#pragma unroll 4
        for (int e = tid; e < lines * S; e += kFftMixThreads) {
            const int l = fftMixDiv(e, invS), t = e - l * S, g = line0 + l;
            float biasV = 0.f;
            if (bias)
                biasV = toFloat(bias[(static_cast<unsigned>(g) / static_cast<unsigned>(p.biasDiv)) % static_cast<unsigned>(p.biasMod)]);
            const int o = g * p.c.innerStride + t * p.c.rowStride;
            float v = fmaf(fbuf[e], p.scale, biasV);
            if (p.addY) v += toFloat(out[o]);
            out[o] = fromFloat<T>(applyActivation(v, p.activation));
        }
    }
}

// Whether p.fftRadices is a valid stage list for N2 = p.S / 2 (radices 2..5, product N2, at most
// kFftMixMaxStages stages).
inline bool fftMixRadicesValid(const DftPass& p) {
    int prod = 1, stages = 0;
    for (unsigned r = static_cast<unsigned>(p.fftRadices); r != 0; r >>= 4, ++stages) {
        const int R = static_cast<int>(r & 15u);
        if (R < 2 || R > 5) return false;
        prod *= R;
    }
    return stages >= 1 && stages <= kFftMixMaxStages && p.S % 2 == 0 && prod == p.S / 2;
}

// Launch of one mixed-radix FFT pass: ceil(N / fftLines) blocks, fftMixedSmemBytes of dynamic shared
// memory (<= 48 KB), programmatic dependent launch (pdl.cuh).
template <PassKind KIND, typename T>
cudaError_t launchFftMixedPass(const DftPass& p, const void* src, void* dst, const T* bias, cudaStream_t stream) {
    if (p.fftLines < 1 || p.S < 8 || !fftMixRadicesValid(p) ||
        static_cast<int64_t>(p.fftLines) * p.S > 2 * static_cast<int64_t>(kFftMixMaxPoints) ||
        fftMixedSmemBytes(p.S, p.fftLines) > kFftSmemLimit)
        return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>((static_cast<int64_t>(p.N) + p.fftLines - 1) / p.fftLines));
    return launchKernel(fftMixedPassKernel<KIND, T>, grid, dim3(kFftMixThreads), fftMixedSmemBytes(p.S, p.fftLines), stream, p,
                        src, dst, bias);
}

}  // namespace cuda
}  // namespace turbofno
