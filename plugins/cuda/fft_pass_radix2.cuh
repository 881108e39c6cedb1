// The radix-2 FFT pass kernel for small power-of-two blocks (DftPass::fft with fftRadices == 0, chosen
// by planSeparable where a block holds fewer than 2048 complex values: 1D layers with few lines, e.g. the
// bundled Burgers model): the last-axis R2C and C2R passes with the contract of fft_pass.cuh's Stockham
// kernel. Where blocks are that small the Stockham kernel's few large units left most threads idle and
// measured up to 2x slower (tests/gpu/logs/fft_col_cd71e63/fft_pass_bench_1cde047.log against
// fft_mixed_ab5b1c1/fft_pass_bench.log: 1x64x256 m17 C2R 7.1 vs 3.2 us, 16x32x1024 m129 13.0 vs 6.1 us).
//
// A block of 256 threads owns L lines (DftPass::fftLines, a power of two, L * S <= 8192 reals). A
// line of S reals is held in shared memory as S/2 complex values z[j] = (v[2j], v[2j+1]) (so the
// reals' natural order is the complex array's memory order: loads and stores stay coalesced), and a
// complex FFT of length N2 = S/2 runs in place over it, radix 2 with two stages fused per thread
// (radix 4: one barrier per two stages). Twiddles: one table per pair of stages (tw[q - 1 + pos] =
// e^{2 pi i pos / (4q)}, pos < q, for q = 1, 2, 4, .. N2/4: N2/2 - 1 entries in all), built with
// sincospif of exact arguments before the grid-dependency wait; a 4-point unit reads one entry w and
// uses w, i w (exact) and w^2. Complex value i of the block lives at fftSwz(i) (an XOR swizzle of the
// low 4 bits): with it every stage's accesses and the coalesced loads / stores are free of shared-memory
// bank conflicts, the bit-reversed accesses at most 2-way.
//  R2C: natural-order input, decimation in frequency (bit-reversed output); the kept bins are unpacked
//       from Z[k] and Z[N2 - k] as in fft_pass.cuh.
//  C2R: the kept bins are packed into bit-reversed order as in fft_pass.cuh, an unnormalized inverse FFT
//       by decimation in time (natural-order output), then act(scale * v + bias [+ y]); the first 4
//       values per thread have their bias and y loaded before the pack.
//  C2R with the mixing prologue (fftRadix2MixC2RKernel, Plan::mixInC2R): the block's input bins are
//       mixed from the forward spectrum and the weights (mixing_c2r.cuh) instead of read.
// Shared memory: L * S floats + S/4 float2 twiddles (<= 40 KB; + the mixed bins with the prologue).
// Deterministic; no host synchronisation.
#pragma once

#include "common.cuh"
#include "dft_pass.h"
#include "fft_radix.cuh"
#include "mixing_c2r.cuh"
#include "pdl.cuh"

namespace turbofno {
namespace cuda {

constexpr int kFftRadix2Threads = 256;

__device__ __forceinline__ int fftBitRev(int v, int bits) {
    return static_cast<int>(__brev(static_cast<unsigned>(v)) >> (32 - bits));
}
// Shared-memory position of complex value i: only bits 0-3 change (a bijection on every aligned
// group of 16), XORed with bits 4-5 (into 0-1 and 2-3) and with bits 6-9 and 10-13. Every 4-point
// unit pattern of the stages keeps a half-warp within an aligned group of 64 (bits >= 6 constant),
// where bits 4-5 make it conflict-free; bits 6-13 make the bit-reversed accesses of consecutive bins
// (R2C unpack, C2R pack) at most 2-way for every N2 <= 4096.
__device__ __forceinline__ int fftSwz(int i) { return i ^ (((i >> 4) & 3) * 5) ^ (((i >> 6) ^ (i >> 10)) & 15); }
__device__ __forceinline__ float2 fftConj(float2 a) { return make_float2(a.x, -a.y); }

// Decimation-in-frequency butterfly: (a, b) <- (a + b, (a - b) w)
__device__ __forceinline__ void fftDif2(float2& a, float2& b, float2 w) {
    const float2 d = fftSub(a, b);
    a = fftAdd(a, b);
    b = cmul(d, w);
}
// Decimation-in-time butterfly: (a, b) <- (a + b w, a - b w)
__device__ __forceinline__ void fftDit2(float2& a, float2& b, float2 w) {
    const float2 bw = cmul(b, w);
    b = fftSub(a, bw);
    a = fftAdd(a, bw);
}

// Forward FFT (e^{-2 pi i jk / N2}) of each of the L lines of buf (N2 = 2^logN2 >= 4 complex values
// per line, value i at buf[fftSwz(i)]), natural order in, bit-reversed order out; tw: fftFillTable.
// Ends with a barrier.
__device__ __forceinline__ void fftForwardDif(float2* buf, const float2* tw, int logN2, int L) {
    const int tid = threadIdx.x;
    const int N2 = 1 << logN2;
    const int units = (L * N2) >> 2;  // 4-point units (two fused radix-2 stages) of the block
    int s = logN2 - 1;                // stage half-size h = 2^s, from N2 / 2 down to 1
    for (; s >= 1; s -= 2) {
        // stages h = 2q and h = q (q = 2^(s-1)) on points base + {0, q, 2q, 3q}
        const int logq = s - 1, q = 1 << logq;
        for (int u = tid; u < units; u += kFftRadix2Threads) {
            const int l = u >> (logN2 - 2), r = u & ((N2 >> 2) - 1);
            const int pos = r & (q - 1), grp = r >> logq;
            const int i0 = (l << logN2) + (grp << (logq + 2)) + pos;
            const int j0 = fftSwz(i0), j1 = fftSwz(i0 + q), j2 = fftSwz(i0 + 2 * q), j3 = fftSwz(i0 + 3 * q);
            float2 a0 = buf[j0], a1 = buf[j1], a2 = buf[j2], a3 = buf[j3];
            // stage h = 2q: e^{-2 pi i pos / (4q)} and e^{-2 pi i (pos + q) / (4q)} = -i times it;
            // stage h = q: e^{-2 pi i pos / (2q)} = its square
            const float2 w = fftConj(tw[q - 1 + pos]);
            fftDif2(a0, a2, w);
            fftDif2(a1, a3, make_float2(w.y, -w.x));
            const float2 w2 = cmul(w, w);
            fftDif2(a0, a1, w2);
            fftDif2(a2, a3, w2);
            buf[j0] = a0;
            buf[j1] = a1;
            buf[j2] = a2;
            buf[j3] = a3;
        }
        __syncthreads();
    }
    if (s == 0) {  // an odd number of stages: the last one (h = 1, twiddle 1) alone
        for (int u = tid; u < (L * N2) >> 1; u += kFftRadix2Threads) {
            const int j0 = fftSwz(2 * u), j1 = fftSwz(2 * u + 1);
            const float2 a0 = buf[j0], a1 = buf[j1];
            buf[j0] = fftAdd(a0, a1);
            buf[j1] = fftSub(a0, a1);
        }
        __syncthreads();
    }
}

// Inverse FFT (e^{+2 pi i jk / N2}, unnormalized) of each line, bit-reversed order in, natural order
// out; same table and layout. Ends with a barrier.
__device__ __forceinline__ void fftInverseDit(float2* buf, const float2* tw, int logN2, int L) {
    const int tid = threadIdx.x;
    const int N2 = 1 << logN2;
    const int units = (L * N2) >> 2;
    int s = 0;  // stage half-size h = 2^s, from 1 up to N2 / 2
    if (logN2 & 1) {  // an odd number of stages: the first one (h = 1, twiddle 1) alone
        for (int u = tid; u < (L * N2) >> 1; u += kFftRadix2Threads) {
            const int j0 = fftSwz(2 * u), j1 = fftSwz(2 * u + 1);
            const float2 a0 = buf[j0], a1 = buf[j1];
            buf[j0] = fftAdd(a0, a1);
            buf[j1] = fftSub(a0, a1);
        }
        __syncthreads();
        s = 1;
    }
    for (; s + 2 <= logN2; s += 2) {
        // stages h = q and h = 2q (q = 2^s) on points base + {0, q, 2q, 3q}
        const int q = 1 << s;
        for (int u = tid; u < units; u += kFftRadix2Threads) {
            const int l = u >> (logN2 - 2), r = u & ((N2 >> 2) - 1);
            const int pos = r & (q - 1), grp = r >> s;
            const int i0 = (l << logN2) + (grp << (s + 2)) + pos;
            const int j0 = fftSwz(i0), j1 = fftSwz(i0 + q), j2 = fftSwz(i0 + 2 * q), j3 = fftSwz(i0 + 3 * q);
            float2 a0 = buf[j0], a1 = buf[j1], a2 = buf[j2], a3 = buf[j3];
            // stage h = 2q: w = e^{2 pi i pos / (4q)} and e^{2 pi i (pos + q) / (4q)} = i w; stage h = q: w^2
            const float2 w = tw[q - 1 + pos];
            const float2 w2 = cmul(w, w);
            fftDit2(a0, a1, w2);
            fftDit2(a2, a3, w2);
            fftDit2(a0, a2, w);
            fftDit2(a1, a3, make_float2(-w.y, w.x));
            buf[j0] = a0;
            buf[j1] = a1;
            buf[j2] = a2;
            buf[j3] = a3;
        }
        __syncthreads();
    }
}

// The twiddles of the 4-point units: tw[q - 1 + pos] = e^{+2 pi i pos / (4q)} for pos < q and
// q = 1, 2, 4, .., N2 / 4 (N2 / 2 - 1 entries; exact sincospif arguments pos / (2q)).
__device__ __forceinline__ void fftFillTable(float2* tw, int N2) {
    for (int j = threadIdx.x; j < N2 / 2 - 1; j += kFftRadix2Threads) {
        const int q = 1 << (31 - __clz(j + 1)), pos = j + 1 - q;
        float s, c;
        sincospif(static_cast<float>(pos) / static_cast<float>(2 * q), &s, &c);
        tw[j] = make_float2(c, s);
    }
}

// KIND = kR2C: src = x (T, lines of S samples), dst = the spectrum (float2, kd = p.M bins per line),
// bias unused. KIND = kC2R: src = the spectrum (float2, p.K bins read per line), dst = y (T), bias
// per line (biasDiv / biasMod) or null; MIX (p.mixCin > 0): src = the forward spectrum X and mixW the
// layer's weights, the bins are mixed in the block (mixing_c2r.cuh). Block `block` of
// ceil(p.N / p.fftLines), kFftRadix2Threads threads, smem: fftRadix2SmemBytes (+ mixC2RSmemBytes with
// MIX; 16-byte aligned). The kernel below runs it on its grid; skip_r2c_colaunch.cuh runs the R2C
// beside the skip GEMM's blocks.
template <PassKind KIND, typename T, bool MIX = false>
__device__ __forceinline__ void fftRadix2PassBlock(const DftPass& p, const void* __restrict__ src, void* __restrict__ dst,
                                                   const T* __restrict__ bias, int block, float* __restrict__ smem,
                                                   const T* __restrict__ mixW = nullptr) {
    static_assert(KIND == PassKind::kR2C || KIND == PassKind::kC2R, "FFT passes are the real last-axis passes");
    static_assert(!MIX || KIND == PassKind::kC2R, "the mixing prologue belongs to the C2R");
    const int S = p.S, logS = 31 - __clz(S), N2 = S >> 1, logN2 = logS - 1;
    const int L = p.fftLines;
    // L lines of N2 complex values (value i at buf[fftSwz(i)]) = L lines of S reals (real e of the
    // block at fbuf[2 * fftSwz(e / 2) + e % 2]), then N2 / 2 - 1 twiddles
    float* fbuf = smem;
    float2* buf = reinterpret_cast<float2*>(smem);
    float2* tw = buf + static_cast<size_t>(L) * N2;
    const int tid = threadIdx.x;
    const int line0 = block * L;

    fftFillTable(tw, N2);   // before the wait: overlaps the previous kernel's tail (pdl.cuh)
    gridDependencyWait();

    if constexpr (KIND == PassKind::kR2C) {
        const T* x = static_cast<const T*>(src);
        // coalesced along t; lines past N load zeros (never stored)
#pragma unroll 4
        for (int e = tid; e < L * S; e += kFftRadix2Threads) {
            const int l = e >> logS, t = e & (S - 1), g = line0 + l;
            float v = 0.f;
            if (g < p.N) v = toFloat(x[g * p.b.innerStride + t * p.b.rowStride]);
            fbuf[2 * fftSwz(e >> 1) + (e & 1)] = v;
        }
        allowDependentLaunch();
        __syncthreads();
        fftForwardDif(buf, tw, logN2, L);
        // kept bins k < kd of each line, from Z[k] and Z[N2 - k] (bit-reversed positions)
        const int kd = p.M;
        float2* out = static_cast<float2*>(dst);
        for (int i = tid; i < L * kd; i += kFftRadix2Threads) {
            const int l = static_cast<int>(static_cast<unsigned>(i) / static_cast<unsigned>(kd));
            const int k = i - l * kd, g = line0 + l;
            if (g >= p.N) continue;
            const int row = l << logN2;
            const float2 a = buf[fftSwz(row + fftBitRev(k & (N2 - 1), logN2))];
            const float2 b = fftConj(buf[fftSwz(row + fftBitRev((N2 - k) & (N2 - 1), logN2))]);
            const float2 ev = make_float2(0.5f * (a.x + b.x), 0.5f * (a.y + b.y));   // (Z[k] + conj Z[N2-k]) / 2
            const float2 d = make_float2(0.5f * (a.x - b.x), 0.5f * (a.y - b.y));
            const float2 od = make_float2(d.y, -d.x);                                 // d / i
            const float2 w = fftConj(fftRoot(k, S));                                  // e^{-2 pi i k / S} (fft_radix.cuh)
            out[g * p.c.innerStride + k * p.c.rowStride] = fftAdd(ev, cmul(w, od));
        }
    } else {
        T* out = static_cast<T*>(dst);
        // The epilogue's first kPre values per thread: their bias and (fused layer) the skip GEMM's y,
        // loaded here so that the loads' latency overlaps the pack and the FFT instead of trailing
        // them (Burgers' blocks hold 4 values per thread, a batch-1 block 1)
        constexpr int kPre = 4;
        float preBias[kPre], preY[kPre];
#pragma unroll
        for (int j = 0; j < kPre; ++j) {
            const int e = tid + j * kFftRadix2Threads;
            const int l = e >> logS, t = e & (S - 1), g = line0 + l;
            preBias[j] = 0.f;
            preY[j] = 0.f;
            if (e < L * S && g < p.N) {
                if (bias)
                    preBias[j] = toFloat(bias[(static_cast<unsigned>(g) / static_cast<unsigned>(p.biasDiv)) % static_cast<unsigned>(p.biasMod)]);
                if (p.addY) preY[j] = toFloat(out[g * p.c.innerStride + t * p.c.rowStride]);
            }
        }
        const float2* zin = static_cast<const float2*>(src);
        const int K = p.K;               // bins read per line (min(kd, S/2 + 1))
        // MIX: the block's mixed bins [L][K] after the twiddles (then the partial sums)
        [[maybe_unused]] float2* zmix = tw + N2 / 2;
        if constexpr (MIX) mixBinsForLines<T, kFftRadix2Threads>(p, zin, mixW, line0, zmix, zmix + L * K);
        const int half = N2 / 2 + 1;     // units k = 0..N2/2, each packing Z'[k] and Z'[N2 - k]
        for (int i = tid; i < L * half; i += kFftRadix2Threads) {
            const int l = static_cast<int>(static_cast<unsigned>(i) / static_cast<unsigned>(half));
            const int k = i - l * half, g = line0 + l;
            float2 xa = make_float2(0.f, 0.f), xb = make_float2(0.f, 0.f);  // X[k], X[N2 - k]
            if constexpr (MIX) {  // zero past p.N (mixBinsForLines)
                if (k < K) xa = zmix[l * K + k];
                if (N2 - k < K) xb = zmix[l * K + N2 - k];
            } else if (g < p.N) {
                const int base = g * p.b.innerStride;
                if (k < K) xa = zin[base + k * p.b.rowStride];
                if (N2 - k < K) xb = zin[base + (N2 - k) * p.b.rowStride];
            }
            if (k == 0) {  // DC and Nyquist: real parts only (as the DFT pass's C2R)
                xa.y = 0.f;
                xb.y = 0.f;
            }
            const int row = l << logN2;
            const float2 w = fftRoot(k, S);  // e^{+2 pi i k / S}
            {
                const float2 s = fftAdd(xa, fftConj(xb)), dw = cmul(fftSub(xa, fftConj(xb)), w);
                buf[fftSwz(row + fftBitRev(k, logN2))] = make_float2(s.x - dw.y, s.y + dw.x);  // s + i dw
            }
            if (k > 0 && k < N2 / 2) {
                const float2 w2 = make_float2(-w.x, w.y);  // e^{+2 pi i (N2 - k) / S} = -conj(w)
                const float2 s = fftAdd(xb, fftConj(xa)), dw = cmul(fftSub(xb, fftConj(xa)), w2);
                buf[fftSwz(row + fftBitRev(N2 - k, logN2))] = make_float2(s.x - dw.y, s.y + dw.x);
            }
        }
        allowDependentLaunch();
        __syncthreads();
        fftInverseDit(buf, tw, logN2, L);
        // y[t] = act(scale * v + bias [+ y]), coalesced along t: the prefetched values, then the rest
#pragma unroll
        for (int j = 0; j < kPre; ++j) {
            const int e = tid + j * kFftRadix2Threads;
            const int l = e >> logS, t = e & (S - 1), g = line0 + l;
            if (e < L * S && g < p.N) {
                float v = fmaf(fbuf[2 * fftSwz(e >> 1) + (e & 1)], p.scale, preBias[j]);
                if (p.addY) v += preY[j];
                out[g * p.c.innerStride + t * p.c.rowStride] = fromFloat<T>(applyActivation(v, p.activation));
            }
        }
#pragma unroll 4
        for (int e = tid + kPre * kFftRadix2Threads; e < L * S; e += kFftRadix2Threads) {
            const int l = e >> logS, t = e & (S - 1), g = line0 + l;
            if (g >= p.N) continue;
            float biasV = 0.f;
            if (bias)
                biasV = toFloat(bias[(static_cast<unsigned>(g) / static_cast<unsigned>(p.biasDiv)) % static_cast<unsigned>(p.biasMod)]);
            const int o = g * p.c.innerStride + t * p.c.rowStride;
            float v = fmaf(fbuf[2 * fftSwz(e >> 1) + (e & 1)], p.scale, biasV);
            if (p.addY) v += toFloat(out[o]);
            out[o] = fromFloat<T>(applyActivation(v, p.activation));
        }
    }
}

// Grid: ceil(p.N / p.fftLines) blocks of kFftRadix2Threads (fftRadix2PassBlock).
template <PassKind KIND, typename T>
__global__ void __launch_bounds__(kFftRadix2Threads) fftRadix2PassKernel(DftPass p, const void* __restrict__ src,
                                                                         void* __restrict__ dst, const T* __restrict__ bias) {
    extern __shared__ __align__(16) float fftSmem[];
    fftRadix2PassBlock<KIND, T>(p, src, dst, bias, static_cast<int>(blockIdx.x), fftSmem);
}

// The C2R with the mixing prologue (p.mixCin > 0): specIn = the forward spectrum, w = the layer's weights.
template <typename T>
__global__ void __launch_bounds__(kFftRadix2Threads) fftRadix2MixC2RKernel(DftPass p, const float2* __restrict__ specIn,
                                                                           const T* __restrict__ w, T* __restrict__ y,
                                                                           const T* __restrict__ bias) {
    extern __shared__ __align__(16) float fftSmem[];
    fftRadix2PassBlock<PassKind::kC2R, T, true>(p, specIn, y, bias, static_cast<int>(blockIdx.x), fftSmem, w);
}


// Launch of one radix-2 FFT pass: ceil(N / fftLines) blocks (fftLines a power of two), fftRadix2SmemBytes
// of dynamic shared memory (<= 48 KB), programmatic dependent launch (pdl.cuh).
inline bool fftRadix2PassFits(const DftPass& p) {
    return p.fftLines >= 1 && (p.fftLines & (p.fftLines - 1)) == 0 && p.S >= 8 && (p.S & (p.S - 1)) == 0 &&
           static_cast<int64_t>(p.fftLines) * p.S <= 8192 && fftRadix2SmemBytes(p.S, p.fftLines) <= 48 * 1024;
}
// ... and with the mixing prologue: the mixed bins' shared memory too, the block's lines of one batch item,
// G * Q within the block's threads where the input channels are split.
inline size_t fftRadix2MixSmemBytes(const DftPass& p) {
    return fftRadix2SmemBytes(p.S, p.fftLines) + mixC2RSmemBytes(p.fftLines, p.K, p.mixGroups);
}
inline bool fftRadix2MixC2RFits(const DftPass& p) {
    const int64_t q = static_cast<int64_t>(p.fftLines) * p.K;
    return fftRadix2PassFits(p) && p.mixCin > 0 && p.mixCout > 0 && p.mixCout % p.fftLines == 0 && p.K >= 1 &&
           p.K <= p.mixKall && p.mixGroups >= 1 && (p.mixGroups == 1 || q * p.mixGroups <= kFftRadix2Threads) &&
           fftRadix2MixSmemBytes(p) <= 48 * 1024;
}

template <PassKind KIND, typename T>
cudaError_t launchFftRadix2Pass(const DftPass& p, const void* src, void* dst, const T* bias, cudaStream_t stream) {
    if (!fftRadix2PassFits(p)) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>((static_cast<int64_t>(p.N) + p.fftLines - 1) / p.fftLines));
    return launchKernel(fftRadix2PassKernel<KIND, T>, grid, dim3(kFftRadix2Threads), fftRadix2SmemBytes(p.S, p.fftLines), stream,
                        p, src, dst, bias);
}

template <typename T>
cudaError_t launchFftRadix2MixC2R(const DftPass& p, const float2* specIn, const T* weight, T* y, const T* bias, cudaStream_t stream) {
    if (!fftRadix2MixC2RFits(p)) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>((static_cast<int64_t>(p.N) + p.fftLines - 1) / p.fftLines));
    return launchKernel(fftRadix2MixC2RKernel<T>, grid, dim3(kFftRadix2Threads), fftRadix2MixSmemBytes(p), stream, p, specIn,
                        weight, y, bias);
}

}  // namespace cuda
}  // namespace turbofno
