// Kernel 3 of 3, tensor-core variant (d = 2 only; selected by plan.useTensorCores): inverse of the
// mixed kept spectrum Y [K1][kd] of one (n, o) plane for BR output rows a0.. , bias, output in T.
//   leading stage  Q[2BR][2kdp] = sum over 32-mode chunks of L[2BR][32] * Yc[32][2kdp]
//                  L = [cos ; sin](f a), Yc = [Re Y | Im Y];  Z = (Q00 - Q11) + i (Q01 + Q10)
//   C2R stage      y[BR][64]    = Zs[BR][2kdp] * Fi[2kdp][64] per 64 output columns,
//                  Zs = c_k [Re Z | Im Z] (c_k = scale, 2 scale off DC / Nyquist), Fi = [cos ; -sin](k t)
// sin(0) = sin(pi t) = 0 drops the imaginary parts of DC and Nyquist, as torch's C2R does.
// Grid N*Cout*ceil(S1 / BR).
#pragma once

#include "plan.h"
#include "tc_common.cuh"

namespace turbofno {
namespace cuda {

template <typename T>
__global__ void __launch_bounds__(kTcThreads) tcInverseKernel(Geometry g, const float2* __restrict__ specOut,
                                                              const T* __restrict__ bias, T* __restrict__ y) {
    constexpr bool kSplit = std::is_same<T, float>::value;
    constexpr int KC = kTcKlChunk, WC = kTcWc;
    extern __shared__ __align__(128) float tcSmemI[];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int BR = g.tBR, kdp = g.tKdp, kd = g.kd;
    const int S1 = g.S[0], W = g.Sd, K1 = g.K[0], p = g.p[0];
    const int ld = 2 * kdp + 4, ldL = KC + 4, ldy = WC + 4;
    float2* tabH = reinterpret_cast<float2*>(tcSmemI);
    float2* tabW = tabH + S1;
    float* Yc = tcSmemI + g.tiOff[0];
    float* L = Yc + ((KC * ld + 7) / 8) * 8;
    float* Q = tcSmemI + g.tiOff[0];   // after the leading stage
    float* yo = tcSmemI + g.tiOff[0];  // after Zs is built
    float* Zs = tcSmemI + g.tiOff[1];
    float* Fi = tcSmemI + g.tiOff[2];

    const int chunks = (g.A + BR - 1) / BR;
    const int plane = blockIdx.x / chunks;  // n * Cout + o
    const int a0 = (blockIdx.x - plane * chunks) * BR;
    const int nrows = min(BR, g.A - a0);
    const float2* Y = specOut + static_cast<size_t>(plane) * g.Kall;

    fillTwiddleTable(tabH, S1);
    fillTwiddleTable(tabW, W);

    const int tnN = 2 * kdp / 16;
    const int nAcc = (2 * BR / 16) * tnN;
    const int per = (nAcc + kTcThreads / 32 - 1) / (kTcThreads / 32);
    TcAcc acc[kTcMaxAcc];
#pragma unroll
    for (int q = 0; q < kTcMaxAcc; ++q) wmma::fill_fragment(acc[q], 0.f);

    for (int kc = 0; kc < K1; kc += KC) {
        __syncthreads();  // tables written (first chunk) / previous chunk's Yc, L consumed
        // a warp per staged mode row, lanes along [Re | Im]: kU independent loads in flight, no divisions
        constexpr int kU = 4;
        for (int j = warp; j < KC; j += kTcThreads / 32) {
            const int kl = kc + j;
            const bool rowOk = kl < K1;
            const float* src = reinterpret_cast<const float*>(Y + static_cast<size_t>(rowOk ? kl : 0) * kd);  // (re, im) pairs
            float* dst = Yc + j * ld;
            for (int c0 = lane; c0 < 2 * kdp; c0 += 32 * kU) {
                float v[kU];
#pragma unroll
                for (int u = 0; u < kU; ++u) {
                    const int c = c0 + 32 * u;
                    const int k = c < kdp ? c : c - kdp;
                    v[u] = (rowOk && c < 2 * kdp && k < kd) ? src[2 * k + (c < kdp ? 0 : 1)] : 0.f;
                }
#pragma unroll
                for (int u = 0; u < kU; ++u) {
                    const int c = c0 + 32 * u;
                    if (c < 2 * kdp) dst[c] = v[u];
                }
            }
        }
        // L[r][j] = cos (top) / sin (bottom) (2 pi f a / S1), a = a0 + r, f the frequency of mode kc + j
        auto line = [&](int sel) {
            return [=](int j) {
                const int kl = kc + j;
                return kl < K1 ? DftLine{leadFreq(kl, p, K1, S1), sel} : DftLine{0, -1};
            };
        };
        fillDft(L, ldL, 1, BR, nrows, a0, KC, S1, tabH, line(0));
        fillDft(L + BR * ldL, ldL, 1, BR, nrows, a0, KC, S1, tabH, line(2));
        __syncthreads();
#pragma unroll
        for (int q = 0; q < kTcMaxAcc; ++q) {
            const int t = warp * per + q;
            if (q < per && t < nAcc) {
                const int tm = t / tnN, tn = t - tm * tnN;
                tcTileMma<kSplit>(acc[q], L + tm * 16 * ldL, ldL, Yc + tn * 16, ld, KC);
            }
        }
    }
    __syncthreads();  // Yc / L consumed: Q reuses them
#pragma unroll
    for (int q = 0; q < kTcMaxAcc; ++q) {
        const int t = warp * per + q;
        if (q < per && t < nAcc) {
            const int tm = t / tnN, tn = t - tm * tnN;
            wmma::store_matrix_sync(Q + tm * 16 * ld + tn * 16, acc[q], ld, wmma::mem_row_major);
        }
    }
    __syncthreads();
    for (int e = tid; e < BR * kdp; e += kTcThreads) {
        const int r = e / kdp, k = e - r * kdp;
        float re = 0.f, im = 0.f;
        if (k < kd) {
            const float c = (k == 0 || 2 * k == W) ? g.scale : 2.f * g.scale;
            const float* top = Q + r * ld;
            const float* bot = Q + (BR + r) * ld;
            re = c * (top[k] - bot[kdp + k]);
            im = c * (top[kdp + k] + bot[k]);
        }
        Zs[r * ld + k] = re;
        Zs[r * ld + kdp + k] = im;
    }
    // (the barrier after the first Fi fill also orders these Q reads before yo overwrites Q)

    const float b = (g.hasBias && bias) ? toFloat(bias[plane % g.Cout]) : 0.f;
    T* out = y + (static_cast<size_t>(plane) * g.A + a0) * W;
    for (int t0 = 0; t0 < W; t0 += WC) {
        // Fi[k][j] = cos (top) / -sin (bottom) (2 pi k t / W), t = t0 + j
        fillDft(Fi, ldy, 1, kdp, kd, 0, WC, W, tabW, [&](int j) {
            const int t = t0 + j;
            return t < W ? DftLine{t, 0} : DftLine{0, -1};
        });
        fillDft(Fi + kdp * ldy, ldy, 1, kdp, kd, 0, WC, W, tabW, [&](int j) {
            const int t = t0 + j;
            return t < W ? DftLine{t, 1} : DftLine{0, -1};
        });
        __syncthreads();
        for (int t = warp; t < (BR / 16) * (WC / 16); t += kTcThreads / 32) {
            const int tm = t / (WC / 16), tn = t - tm * (WC / 16);
            TcAcc c;
            wmma::fill_fragment(c, 0.f);
            tcTileMma<kSplit>(c, Zs + tm * 16 * ld, ld, Fi + tn * 16, ldy, 2 * kdp);
            wmma::store_matrix_sync(yo + tm * 16 * ldy + tn * 16, c, ldy, wmma::mem_row_major);
        }
        __syncthreads();
        for (int e = tid; e < nrows * WC; e += kTcThreads) {
            const int r = e / WC, j = e - r * WC;
            if (t0 + j < W) out[static_cast<size_t>(r) * W + t0 + j] = fromFloat<T>(yo[r * ldy + j] + b);
        }
        __syncthreads();  // yo and Fi consumed before the next step overwrites them
    }
}

}  // namespace cuda
}  // namespace turbofno
