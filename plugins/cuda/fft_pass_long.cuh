// Long last axes of 1D layers as a four-step truncated FFT (DftPass::fftLongCols > 0, chosen by
// planSeparable): the R2C and C2R passes over lines of S = Na * Nb real samples with kd <= Na / 2 kept
// bins, any S the row FFTs (fft_pass.cuh, one line in shared memory, S <= 8192) cannot take or take
// slowly. Sample t of a line is t = b + Nb a: column b < Nb (contiguous in memory), row a < Na.
//   forward: X[k] = sum_b e^{-2 pi i b k / S} Y_b[k],  Y_b[k] = sum_a x[b + Nb a] e^{-2 pi i a k / Na}
//            (k < kd <= Na / 2: only k mod Na enters the inner DFT, no k1 digit);
//   inverse: y[b + Nb a] = Re sum_{k < K} c_k X[k] e^{2 pi i b k / S} e^{2 pi i a k / Na}   (c_k = 2, c_0 = 1).
// A block of 256 threads takes one line g and W = 2 H consecutive columns c0 .. c0 + W - 1 (H =
// DftPass::fftLines; grid N * Nb / W). Columns c0 + l and c0 + l + H share complex shared line l
// (real and imaginary part), so one complex Na-point column FFT (fft_pass.cuh's fftTransform, lines at
// an odd pitch, consecutive threads on consecutive lines: every global access is coalesced along b)
// transforms two real columns:
//   forward: the first stage reads x; then for each kept k the two columns' Y_b[k] are unpacked from
//     Z[k] and conj Z[Na - k], twiddled by e^{-2 pi i b k / S} and summed over the block's W columns in a
//     fixed order; the block writes that partial sum to partial spectrum `tile` (c0 / W) at
//     tile * cSplitStride, and sumPartialsKernel (dft_c2c.cu) adds the Nb / W partials before mixing.
//   inverse: the shared line l holds Q[j] = H_l[j] + i H_{l+H}[j], the two columns' Hermitian spectra
//     (H_b[j] = X[j] e^{2 pi i b j / S} for 0 < j < K, conj of that at Na - j, Re X[0] at 0, zero between:
//     K <= Na / 2, so no bin meets its mirror); the unnormalized inverse FFT gives y_l + i y_{l+H}, and
//     the last stage writes both columns with the C2R epilogue act(scale * v + bias [+ y]).
// The column twiddles e^{±2 pi i (c0 + l) k / S} are products of exact roots: rootB[k] = e^{2 pi i c0 k / S}
// per block, e^{2 pi i j / S} = lo[j % 64] hi[j / 64] for j = l k < H kd <= kFftMaxPoints, and rootH[k] =
// e^{2 pi i H k / S} for the second column of a line (3 sincospif per kept bin and 128 per block instead of
// one per column and bin; within a few ulp).
// Deterministic (fixed order, no atomics); no host synchronisation; 32-bit offsets (planner limits).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "dft_pass.h"
#include "fft_pass.cuh"

namespace turbofno {
namespace cuda {

// x's columns c0 + l and c0 + l + H of one line as the first stage's complex source: value a of line l.
template <typename T> struct FftLongIn {
    static constexpr bool kGlobal = true;
    const T* x;  // line g, column c0
    int Nb, H;
    template <int R> __device__ __forceinline__ void load(int l, int i, int stride, float2 (&v)[R]) const {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const T* p = x + (i + r * stride) * Nb + l;
            v[r] = make_float2(toFloat(p[0]), toFloat(p[H]));
        }
    }
};

// y's columns c0 + l (real part) and c0 + l + H (imaginary part) as the last stage's destination, with
// the C2R epilogue act(scale * v + bias [+ y]).
template <typename T> struct FftLongOut {
    static constexpr bool kGlobal = true;
    T* y;  // line g, column c0
    int Nb, H;
    float bias;
    FftC2REpilogue finish;
    template <int R> __device__ __forceinline__ void store(int l, int d, int stride, const float2 (&v)[R]) const {
#pragma unroll
        for (int m = 0; m < R; ++m) {
            T* p = y + (d + m * stride) * Nb + l;
            const float2 old = finish.addY ? make_float2(toFloat(p[0]), toFloat(p[H])) : make_float2(0.f, 0.f);
            const float2 o = finish(v[m], bias, old);
            p[0] = fromFloat<T>(o.x);
            p[H] = fromFloat<T>(o.y);
        }
    }
};

// The block's tables (shared memory after the H lines): Na - 1 stage twiddles, lo[64], hi[64], rootB[kd],
// rootH[kd] (then the forward's reduction scratch, kFftThreads values). Fills them; ends without a barrier.
struct FftLongTables {
    float2 *tw, *lo, *hi, *rootB, *rootH, *scratch;
    __device__ __forceinline__ FftLongTables(float2* after, int Na, int kd)
        : tw(after), lo(tw + (Na - 1)), hi(lo + 64), rootB(hi + 64), rootH(rootB + kd), scratch(rootH + kd) {}
    __device__ __forceinline__ void fill(int Na, unsigned radices, int S, int c0, int H, int kd) const {
        fftFillTables(tw, nullptr, Na, radices);
        // the products below stay under S * kd < 2^31 (planner limit): 32-bit remainders
        const unsigned uS = static_cast<unsigned>(S);
        for (int e = static_cast<int>(threadIdx.x); e < 128; e += kFftThreads)
            (e < 64 ? lo[e] : hi[e - 64]) = fftRoot(e < 64 ? e : static_cast<int>((64u * static_cast<unsigned>(e - 64)) % uS), S);
        for (int e = static_cast<int>(threadIdx.x); e < 2 * kd; e += kFftThreads) {
            const int k = e < kd ? e : e - kd;
            (e < kd ? rootB[k] : rootH[k]) = fftRoot(static_cast<int>((static_cast<unsigned>(e < kd ? c0 : H) * static_cast<unsigned>(k)) % uS), S);
        }
    }
    // e^{+2 pi i j / S}, j < 64 * 64
    __device__ __forceinline__ float2 root(int j) const { return cmul(lo[j & 63], hi[j >> 6]); }
};

// Forward (kR2C): src = x (T, p.N lines of S samples at b.innerStride), dst = the partial spectra (float2,
// kd = p.M bins per line at c.innerStride / c.rowStride, partial `tile` at tile * cSplitStride).
template <typename T, unsigned RADICES>
__global__ void __launch_bounds__(kFftThreads) fftLongR2CKernel(DftPass p, const T* __restrict__ x, float2* __restrict__ dst) {
    extern __shared__ __align__(16) float fftSmem[];
    const int Nb = p.fftLongCols, Na = p.S / Nb, H = p.fftLines, W = 2 * H, kd = p.M, tiles = Nb / W;
    const unsigned radices = static_cast<unsigned>(p.fftRadices);
    const int g = static_cast<int>(blockIdx.x) / tiles, tile = static_cast<int>(blockIdx.x) - g * tiles, c0 = tile * W;
    const int tid = static_cast<int>(threadIdx.x);
    float2* buf = reinterpret_cast<float2*>(fftSmem);
    const FftSmemLines sm{buf, fftColumnPitch(Na), 31};
    const FftLongTables tab(buf + H * fftColumnPitch(Na), Na, kd);
    tab.fill(Na, radices, p.S, c0, H, kd);  // before the wait: overlaps the previous kernel's tail (pdl.cuh)
    gridDependencyWait();

    const FftLongIn<T> in{x + g * p.b.innerStride + c0, Nb, H};
    fftColumnTransform<RADICES, false>(tab.tw, Na, H, radices, in, sm, sm);  // ends with a barrier (tables too)
    allowDependentLaunch();
    // G groups of threads per kept bin, each summing every G-th line, then the groups in order
    const int G = kd < kFftThreads ? kFftThreads / kd : 1;
    for (int e = tid; e < G * kd; e += kFftThreads) {
        const int grp = e / kd, k = e - grp * kd;
        const float2 wH = tab.rootH[k];
        float2 acc = make_float2(0.f, 0.f);
#pragma unroll 4
        for (int l = grp; l < H; l += G) {
            const float2 a = sm.at(l, k);
            const float2 bc = sm.at(l, k == 0 ? 0 : Na - k);
            // the two real columns' Y[k]: (Z[k] + conj Z[-k]) / 2 and (Z[k] - conj Z[-k]) / (2i), the second
            // twiddled by e^{-2 pi i H k / S}, both by e^{-2 pi i l k / S}
            const float2 ev = make_float2(0.5f * (a.x + bc.x), 0.5f * (a.y - bc.y));
            const float2 od = make_float2(0.5f * (a.y + bc.y), -0.5f * (a.x - bc.x));
            acc = fftAdd(acc, fftTw<false>(fftAdd(ev, fftTw<false>(od, wH)), tab.root(l * k)));
        }
        if (G > 1) tab.scratch[e] = acc;
        else dst[tile * p.cSplitStride + g * p.c.innerStride + k * p.c.rowStride] = fftTw<false>(acc, tab.rootB[k]);
    }
    if (G > 1) {
        __syncthreads();
        for (int k = tid; k < kd; k += kFftThreads) {
            float2 acc = tab.scratch[k];
            for (int grp = 1; grp < G; ++grp) acc = fftAdd(acc, tab.scratch[grp * kd + k]);
            dst[tile * p.cSplitStride + g * p.c.innerStride + k * p.c.rowStride] = fftTw<false>(acc, tab.rootB[k]);
        }
    }
}

// Inverse (kC2R): src = the spectrum (float2, p.K bins read per line at b.innerStride / b.rowStride),
// dst = y (T, lines of S samples at c.innerStride), bias per line (biasDiv / biasMod) or null.
template <typename T, unsigned RADICES>
__global__ void __launch_bounds__(kFftThreads) fftLongC2RKernel(DftPass p, const float2* __restrict__ z, T* __restrict__ y,
                                                                const T* __restrict__ bias) {
    extern __shared__ __align__(16) float fftSmem[];
    const int Nb = p.fftLongCols, Na = p.S / Nb, H = p.fftLines, W = 2 * H, K = p.K, tiles = Nb / W;
    const unsigned radices = static_cast<unsigned>(p.fftRadices);
    const int g = static_cast<int>(blockIdx.x) / tiles, c0 = (static_cast<int>(blockIdx.x) - g * tiles) * W;
    const int tid = static_cast<int>(threadIdx.x);
    float2* buf = reinterpret_cast<float2*>(fftSmem);
    const FftSmemLines sm{buf, fftColumnPitch(Na), 31};
    const FftLongTables tab(buf + H * fftColumnPitch(Na), Na, K);
    float2* X = tab.scratch;  // the line's K bins
    tab.fill(Na, radices, p.S, c0, H, K);
    gridDependencyWait();

    for (int k = tid; k < K; k += kFftThreads) {
        float2 v = z[g * p.b.innerStride + k * p.b.rowStride];
        if (k == 0) v.y = 0.f;  // DC: real part only
        X[k] = cmul(v, tab.rootB[k]);  // X[k] e^{2 pi i c0 k / S}
    }
    __syncthreads();
    // Q[j] of every line (consecutive threads on consecutive lines: the odd pitch keeps them in
    // different banks); every value is written, zeros included
    const float invH = 1.f / static_cast<float>(H);
#pragma unroll 4
    for (int e = tid; e < H * Na; e += kFftThreads) {
        const int j = fftDiv(e, invH), l = e - j * H;
        float2 q = make_float2(0.f, 0.f);
        if (j == 0) {
            q = make_float2(X[0].x, X[0].x);
        } else {
            const bool low = j < K, high = Na - j < K;
            if (low || high) {
                const int k = low ? j : Na - j;
                float2 a = cmul(X[k], tab.root(l * k)), b = cmul(a, tab.rootH[k]);
                if (high) {
                    a.y = -a.y;
                    b.y = -b.y;
                }
                q = make_float2(a.x - b.y, a.y + b.x);  // a + i b
            }
        }
        sm.at(l, j) = q;
    }
    allowDependentLaunch();
    __syncthreads();
    const float lineBias = bias ? toFloat(bias[(static_cast<unsigned>(g) / static_cast<unsigned>(p.biasDiv)) %
                                               static_cast<unsigned>(p.biasMod)])
                                : 0.f;
    const FftLongOut<T> out{y + g * p.c.innerStride + c0, Nb, H, lineBias, FftC2REpilogue{p.scale, p.addY, p.activation}};
    fftColumnTransform<RADICES, true>(tab.tw, Na, H, radices, sm, sm, out);
}

// The power-of-two column lengths Na = 32 .. 512 (fftStages: 16 2, 16 4, 16 8, 16 16, 16 16 2) have kernels with
// their stage list at compile time (fftTransformFixed); other lists run the run-time stages (RADICES 0).
constexpr int kFftLongStaticCount = 5;
constexpr unsigned kFftLongStaticRadices[kFftLongStaticCount] = {0x21u, 0x41u, 0x81u, 0x11u, 0x211u};

// Whether a long-axis pass is well formed (the planner's plans are; checked again at launch).
inline bool fftLongPassValid(const DftPass& p, bool inverse) {
    const int Nb = p.fftLongCols, H = p.fftLines;
    if (Nb < 2 || H < 1 || p.S % Nb != 0 || Nb % (2 * H) != 0) return false;
    const int Na = p.S / Nb, kd = inverse ? p.K : p.M;
    return fftStagesValid(static_cast<unsigned>(p.fftRadices), Na) && kd >= 1 && 2 * kd <= Na &&
           static_cast<int64_t>(p.S) * kd < (int64_t{1} << 31) &&
           static_cast<int64_t>(H) * Na <= kFftMaxPoints && fftLongSmemBytes(Na, H, kd) <= kFftSmemLimit && p.N >= 1 &&
           static_cast<int64_t>(p.N) * (Nb / (2 * H)) < (int64_t{1} << 31);
}

// Launch of one long-axis pass: N * Nb / (2 H) blocks of kFftThreads, fftLongSmemBytes (<= 48 KB),
// programmatic dependent launch (pdl.cuh).
template <PassKind KIND, typename T>
cudaError_t launchFftLongPass(const DftPass& p, const void* src, void* dst, const T* bias, cudaStream_t stream) {
    static_assert(KIND == PassKind::kR2C || KIND == PassKind::kC2R, "long-axis FFTs are the real last-axis passes");
    constexpr bool kInv = KIND == PassKind::kC2R;
    if (!fftLongPassValid(p, kInv)) return cudaErrorInvalidConfiguration;
    const int Na = p.S / p.fftLongCols;
    const dim3 grid(static_cast<unsigned>(static_cast<int64_t>(p.N) * (p.fftLongCols / (2 * p.fftLines))));
    const size_t smem = fftLongSmemBytes(Na, p.fftLines, kInv ? p.K : p.M);
    auto launch = [&](auto radices) {
        constexpr unsigned R = decltype(radices)::value;
        if constexpr (kInv)
            return launchKernel(fftLongC2RKernel<T, R>, grid, dim3(kFftThreads), smem, stream, p, static_cast<const float2*>(src),
                                static_cast<T*>(dst), bias);
        else
            return launchKernel(fftLongR2CKernel<T, R>, grid, dim3(kFftThreads), smem, stream, p, static_cast<const T*>(src),
                                static_cast<float2*>(dst));
    };
    cudaError_t err = cudaSuccess;
    if (fftLaunchListed<kFftLongStaticRadices>(static_cast<unsigned>(p.fftRadices), launch, err,
                                               std::make_index_sequence<kFftLongStaticCount>{}))
        return err;
    return launch(std::integral_constant<unsigned, 0>{});
}

}  // namespace cuda
}  // namespace turbofno
