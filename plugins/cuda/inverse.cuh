// Kernel 3 of 3: inverse transform of the mixed kept spectrum, bias, and the output write (for the
// fused layer: + the skip already in y, then the activation).
// A block owns one (n, o) plane and iRows consecutive rows of it:
//  (a) leading-axis inverse: Z[r][k] = sum_kl Y[kl][k] * w(kl, row r) for the block's rows, each
//      thread a 4 rows x 4 modes register tile (LEAD == 0: Z = Y);
//  (b) C2R along the last axis: each thread produces outputs t = u and Sd - u from one pair of
//      sums A = sum c_k Re Z cos, B = sum c_k Im Z sin (y[u] = A - B, y[Sd-u] = A + B), the
//      Nyquist column separately. Imaginary parts of DC / Nyquist drop out as in torch's C2R.
// The scale 1/prod(S) and the C2R weights c_k (1 for DC and Nyquist, else 2) are folded into Z.
#pragma once

#include <type_traits>

#include "common.cuh"
#include "pdl.cuh"
#include "plan.h"

namespace turbofno {
namespace cuda {

template <typename T, int LEAD, class Tw0, class Tw1, class TwD>
__device__ __forceinline__ void inverseBody(const Geometry& g, const float2* __restrict__ specOut,
                                            const T* __restrict__ bias, T* __restrict__ y, float2* ys, float2* zs,
                                            float2* ctw, Tw0 tw0, Tw1 tw1, TwD twd) {
    // With tables, the C2R stage reads a per-block table ctw[k][u] (kd x 64 positions at a time).
    constexpr bool kTables = std::is_same<TwD, TableTwiddle>::value;
    const int tid = threadIdx.x;
    const int chunks = (g.A + g.iRows - 1) / g.iRows;
    const int plane = blockIdx.x / chunks;  // n * Cout + o
    const int rowBegin = (blockIdx.x - plane * chunks) * g.iRows;
    const int nrows = min(g.iRows, g.A - rowBegin);
    const int kd = g.kd, Sd = g.Sd;
    const float2* Y = specOut + static_cast<size_t>(plane) * g.Kall;

    // ---- (a) Z = leading-axis inverse of Y at rows rowBegin .. rowBegin + nrows - 1 ----
    const int zg = tid % g.iGk3;
    const int rg = tid / g.iGk3;
    const int grz = kThreads / g.iGk3;
    if (LEAD == 1 && g.pairLead) {
        // Frequencies +f and -f share one twiddle: Y(+f) e^{i t} + Y(-f) e^{-i t} = P cos t + M sin t with
        // P = Y(+f) + Y(-f), M = i (Y(+f) - Y(-f)): half the multiply-adds, no low/high seam.
        const int G = g.pairSlots, p = g.p[0], K = g.K[0], q = K - p;
        float2* P = ys;
        float2* M = ys + static_cast<size_t>(G) * kd;
        for (int e = tid; e < G * kd; e += kThreads) {
            const int f = e / kd, k = e - f * kd;
            const float2 yp = f < p ? Y[static_cast<size_t>(f) * kd + k] : make_float2(0.f, 0.f);
            const float2 ym = (f >= 1 && f <= q) ? Y[static_cast<size_t>(K - f) * kd + k] : make_float2(0.f, 0.f);
            P[e] = make_float2(yp.x + ym.x, yp.y + ym.y);
            M[e] = make_float2(ym.y - yp.y, yp.x - ym.x);
        }
        __syncthreads();
        for (int kBase = 0; kBase < kd; kBase += kTile * g.iGk3) {
            for (int rBase = 0; rBase < nrows; rBase += kTile * grz) {
                int kk[kTile], rr[kTile], step[kTile], idx[kTile];
#pragma unroll
                for (int j = 0; j < kTile; ++j) kk[j] = min(kBase + zg + g.iGk3 * j, kd - 1);
#pragma unroll
                for (int i = 0; i < kTile; ++i) {
                    rr[i] = rBase + rg + grz * i;
                    step[i] = min(rowBegin + rr[i], g.A - 1);  // row coordinate a: index (f * a) mod S
                    idx[i] = 0;
                }
                float2 acc[kTile][kTile];
#pragma unroll
                for (int i = 0; i < kTile; ++i)
#pragma unroll
                    for (int j = 0; j < kTile; ++j) acc[i][j] = make_float2(0.f, 0.f);
                for (int f = 0; f < G; ++f) {
                    float2 pv[kTile], mv[kTile];
#pragma unroll
                    for (int j = 0; j < kTile; ++j) {
                        pv[j] = P[f * kd + kk[j]];
                        mv[j] = M[f * kd + kk[j]];
                    }
#pragma unroll
                    for (int i = 0; i < kTile; ++i) {
                        const float2 w = tw0(idx[i], g.S[0]);
                        idx[i] = addMod(idx[i], step[i], g.S[0]);
#pragma unroll
                        for (int j = 0; j < kTile; ++j) {
                            acc[i][j].x = fmaf(pv[j].x, w.x, fmaf(mv[j].x, w.y, acc[i][j].x));
                            acc[i][j].y = fmaf(pv[j].y, w.x, fmaf(mv[j].y, w.y, acc[i][j].y));
                        }
                    }
                }
#pragma unroll
                for (int i = 0; i < kTile; ++i) {
                    if (rr[i] >= nrows) continue;
#pragma unroll
                    for (int j = 0; j < kTile; ++j) {
                        const int k = kBase + zg + g.iGk3 * j;
                        if (k >= kd) continue;
                        const float c = (k == 0 || 2 * k == Sd) ? g.scale : 2.f * g.scale;
                        zs[rr[i] * kd + k] = make_float2(acc[i][j].x * c, acc[i][j].y * c);
                    }
                }
            }
        }
    } else {
        const bool single = g.iKlChunk >= g.KL;
        auto stageY = [&](int klBase, int klc) {
            const float2* src = Y + static_cast<size_t>(klBase) * kd;
            for (int e = tid; e < klc * kd; e += blockDim.x) ys[e] = src[e];
        };
        if (single) {
            stageY(0, g.KL);
            __syncthreads();
        }
        for (int kBase = 0; kBase < kd; kBase += kTile * g.iGk3) {
            for (int rBase = 0; rBase < nrows; rBase += kTile * grz) {
                int kk[kTile], rr[kTile];
    #pragma unroll
                for (int j = 0; j < kTile; ++j) kk[j] = kBase + zg + g.iGk3 * j;
    #pragma unroll
                for (int i = 0; i < kTile; ++i) rr[i] = rBase + rg + grz * i;
                float2 acc[kTile][kTile];
    #pragma unroll
                for (int i = 0; i < kTile; ++i)
    #pragma unroll
                    for (int j = 0; j < kTile; ++j) acc[i][j] = make_float2(0.f, 0.f);

                // coordinates of this thread's rows and running twiddle indices (f(kl) * a) mod S
                // (r1: index at leading-2 mode 0, whose frequency is S-K when p == 0)
                // (s0 / s1: index at the first high-block mode, where the frequency jumps from p-1 to S-K+p)
                int c0[kTile], c1[kTile], i0[kTile], i1[kTile], r1[kTile], s0[kTile], s1[kTile];
    #pragma unroll
                for (int i = 0; i < kTile; ++i) {
                    const int a = min(rowBegin + rr[i], g.A - 1);
                    c0[i] = LEAD == 2 ? a / g.S[1] : a;
                    c1[i] = LEAD == 2 ? a - c0[i] * g.S[1] : 0;
                    i0[i] = LEAD >= 1 ? mulMod(leadFreq(0, g.p[0], g.K[0], g.S[0]), c0[i], g.S[0]) : 0;
                    s0[i] = LEAD >= 1 ? mulMod(g.S[0] - g.K[0] + g.p[0], c0[i], g.S[0]) : 0;
                    r1[i] = LEAD == 2 ? mulMod(leadFreq(0, g.p[1], g.K[1], g.S[1]), c1[i], g.S[1]) : 0;
                    s1[i] = LEAD == 2 ? mulMod(g.S[1] - g.K[1] + g.p[1], c1[i], g.S[1]) : 0;
                    i1[i] = r1[i];
                }
                int m0 = 0, m1 = 0;  // leading mode indices of kl (uniform)
                for (int klBase = 0; klBase < g.KL; klBase += g.iKlChunk) {
                    const int klc = min(g.iKlChunk, g.KL - klBase);
                    if (!single) {
                        __syncthreads();
                        stageY(klBase, klc);
                        __syncthreads();
                    }
                    for (int kl = 0; kl < klc; ++kl) {
                        float2 yv[kTile];
    #pragma unroll
                        for (int j = 0; j < kTile; ++j)
                            yv[j] = kk[j] < kd ? ys[kl * kd + kk[j]] : make_float2(0.f, 0.f);
                        if constexpr (LEAD == 0) {
    #pragma unroll
                            for (int j = 0; j < kTile; ++j) acc[0][j] = yv[j];
                        } else {
    #pragma unroll
                            for (int i = 0; i < kTile; ++i) {
                                float2 w = tw0(i0[i], g.S[0]);
                                if (LEAD == 2) w = cmul(w, tw1(i1[i], g.S[1]));
    #pragma unroll
                                for (int j = 0; j < kTile; ++j) cmac(acc[i][j], yv[j], w);
                            }
                        }
                        // advance to the next kl: the frequency steps by one except at the low/high block seam
                        if (LEAD == 1) {
                            ++m0;
    #pragma unroll
                            for (int i = 0; i < kTile; ++i)
                                i0[i] = (m0 == g.p[0]) ? s0[i] : addMod(i0[i], c0[i], g.S[0]);
                        } else if (LEAD == 2) {
                            if (++m1 == g.K[1]) {
                                m1 = 0;
                                ++m0;
    #pragma unroll
                                for (int i = 0; i < kTile; ++i) {
                                    i1[i] = r1[i];
                                    i0[i] = (m0 == g.p[0]) ? s0[i] : addMod(i0[i], c0[i], g.S[0]);
                                }
                            } else {
    #pragma unroll
                                for (int i = 0; i < kTile; ++i)
                                    i1[i] = (m1 == g.p[1]) ? s1[i] : addMod(i1[i], c1[i], g.S[1]);
                            }
                        }
                    }
                }
    #pragma unroll
                for (int i = 0; i < kTile; ++i) {
                    if (rr[i] >= nrows || (LEAD == 0 && i > 0)) continue;
    #pragma unroll
                    for (int j = 0; j < kTile; ++j) {
                        if (kk[j] >= kd) continue;
                        const float c = (kk[j] == 0 || 2 * kk[j] == Sd) ? g.scale : 2.f * g.scale;
                        zs[rr[i] * kd + kk[j]] = make_float2(acc[i][j].x * c, acc[i][j].y * c);
                    }
                }
            }
        }
    }
    __syncthreads();

    // ---- (b) C2R rows: y[r][u] = A - B, y[r][Sd - u] = A + B ----
    const float b = (g.hasBias && bias) ? toFloat(bias[plane % g.Cout]) : 0.f;
    T* out = y + (static_cast<size_t>(plane) * g.A + rowBegin) * Sd;
    // y = act(sum + bias [+ the fused layer's skip, already in y: skip_gemm.cuh]); each element once
    auto store = [&](size_t o, float v) {
        v += b;
        if (g.addY) v += toFloat(out[o]);
        out[o] = fromFloat<T>(applyActivation(v, g.activation));
    };
    const int lane = tid % 32, warp = tid / 32;
    const int U = (Sd + 1) / 2;  // positions u = 0..U-1 (u >= 1 also yields Sd - u)
    if constexpr (kTables) {
        // per 64-position chunk: ctw[k][uu] = w((k * u) mod Sd); each warp owns 8 rows per pass
        constexpr int kRows = 8;
        for (int uBase = 0; uBase < U; uBase += 64) {
            __syncthreads();  // previous chunk's ctw consumed
            {  // column uu walks k with a running index (k * u) mod Sd; 2 threads per column
                const int uu = tid % 64, k0 = tid / 64, u = uBase + uu;
                const int uc = u < U ? u : 0;
                int idx = mulMod(k0, uc, Sd);
                const int step = mulMod(2, uc, Sd);
                for (int k = k0; k < kd; k += 2) {
                    ctw[k * 64 + uu] = u < U ? twd(idx, Sd) : make_float2(0.f, 0.f);
                    idx = addMod(idx, step, Sd);
                }
            }
            __syncthreads();
            for (int rBase = warp * kRows; rBase < nrows; rBase += kRows * (kThreads / 32)) {
                float sa[kRows][2], sb[kRows][2];
#pragma unroll
                for (int i = 0; i < kRows; ++i) sa[i][0] = sa[i][1] = sb[i][0] = sb[i][1] = 0.f;
                const float2* zr[kRows];
#pragma unroll
                for (int i = 0; i < kRows; ++i) zr[i] = zs + min(rBase + i, nrows - 1) * kd;
                for (int k = 0; k < kd; ++k) {
                    const float2 w0 = ctw[k * 64 + lane], w1 = ctw[k * 64 + 32 + lane];
#pragma unroll
                    for (int i = 0; i < kRows; ++i) {
                        const float2 z = zr[i][k];
                        sa[i][0] = fmaf(z.x, w0.x, sa[i][0]);
                        sb[i][0] = fmaf(z.y, w0.y, sb[i][0]);
                        sa[i][1] = fmaf(z.x, w1.x, sa[i][1]);
                        sb[i][1] = fmaf(z.y, w1.y, sb[i][1]);
                    }
                }
#pragma unroll
                for (int i = 0; i < kRows; ++i) {
                    const int r = rBase + i;
                    if (r >= nrows) break;
#pragma unroll
                    for (int q = 0; q < 2; ++q) {
                        const int u = uBase + lane + 32 * q;
                        if (u >= U) continue;
                        store(static_cast<size_t>(r) * Sd + u, sa[i][q] - sb[i][q]);
                        if (u > 0) store(static_cast<size_t>(r) * Sd + Sd - u, sa[i][q] + sb[i][q]);
                    }
                }
            }
        }
    } else {
        constexpr int kRowsPerWarp = 4;
        for (int rBase = warp * kRowsPerWarp; rBase < nrows; rBase += kRowsPerWarp * (kThreads / 32)) {
            for (int uBase = 0; uBase < U; uBase += 64) {
                int idx[2], step[2];
                float sa[kRowsPerWarp][2], sb[kRowsPerWarp][2];
    #pragma unroll
                for (int q = 0; q < 2; ++q) {
                    const int u = uBase + lane + 32 * q;
                    step[q] = u < U ? u : 0;
                    idx[q] = 0;
    #pragma unroll
                    for (int i = 0; i < kRowsPerWarp; ++i) sa[i][q] = sb[i][q] = 0.f;
                }
                for (int k = 0; k < kd; ++k) {
                    float2 z[kRowsPerWarp];
    #pragma unroll
                    for (int i = 0; i < kRowsPerWarp; ++i) z[i] = zs[min(rBase + i, nrows - 1) * kd + k];
    #pragma unroll
                    for (int q = 0; q < 2; ++q) {
                        const float2 w = twd(idx[q], Sd);
    #pragma unroll
                        for (int i = 0; i < kRowsPerWarp; ++i) {
                            sa[i][q] = fmaf(z[i].x, w.x, sa[i][q]);
                            sb[i][q] = fmaf(z[i].y, w.y, sb[i][q]);
                        }
                        idx[q] = addMod(idx[q], step[q], Sd);
                    }
                }
    #pragma unroll
                for (int i = 0; i < kRowsPerWarp; ++i) {
                    const int r = rBase + i;
                    if (r >= nrows) break;
    #pragma unroll
                    for (int q = 0; q < 2; ++q) {
                        const int u = uBase + lane + 32 * q;
                        if (u >= U) continue;
                        store(static_cast<size_t>(r) * Sd + u, sa[i][q] - sb[i][q]);
                        if (u > 0) store(static_cast<size_t>(r) * Sd + Sd - u, sa[i][q] + sb[i][q]);
                    }
                }
            }
        }
    }
    if (Sd % 2 == 0) {  // Nyquist column t = Sd/2: cos(pi k) = (-1)^k, sin = 0
        for (int r = tid; r < nrows; r += blockDim.x) {
            float v = 0.f;
            for (int k = 0; k < kd; ++k) v += (k & 1) ? -zs[r * kd + k].x : zs[r * kd + k].x;
            store(static_cast<size_t>(r) * Sd + Sd / 2, v);
        }
    }
}

template <typename T, int LEAD>
__global__ void __launch_bounds__(kThreads) spectralInverseKernel(Geometry g, const float2* __restrict__ specOut,
                                                                   const T* __restrict__ bias, T* __restrict__ y) {
    extern __shared__ float4 smemRaw[];
    float2* base = reinterpret_cast<float2*>(smemRaw);
    float2* tab0 = base;
    float2* tab1 = tab0 + (LEAD >= 1 ? g.S[0] : 0);
    float2* tabd = tab1 + (LEAD >= 2 ? g.S[1] : 0);
    float2* ctw = tabd + g.Sd;
    float2* ys = g.twTables ? ctw + static_cast<size_t>(g.kd) * 64 : base;
    // ys holds iKlChunk staged rows of Y, or the 2 * pairSlots rows of the paired P / M tables
    const int ysRows = g.pairLead ? max(g.iKlChunk, 2 * g.pairSlots) : g.iKlChunk;
    float2* zs = ys + static_cast<size_t>(ysRows) * g.kd;
    if (g.twTables) {
        if (LEAD >= 1) fillTwiddleTable(tab0, g.S[0]);
        if (LEAD >= 2) fillTwiddleTable(tab1, g.S[1]);
        fillTwiddleTable(tabd, g.Sd);
        __syncthreads();
        gridDependencyWait();  // the tables above overlap the previous kernel's tail (pdl.cuh)
        inverseBody<T, LEAD>(g, specOut, bias, y, ys, zs, ctw, TableTwiddle{tab0}, TableTwiddle{tab1}, TableTwiddle{tabd});
    } else {
        gridDependencyWait();
        inverseBody<T, LEAD>(g, specOut, bias, y, ys, zs, nullptr, ComputedTwiddle{}, ComputedTwiddle{}, ComputedTwiddle{});
    }
}

}  // namespace cuda
}  // namespace turbofno
