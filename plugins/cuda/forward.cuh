// Kernel 1 of 3: forward truncated DFT of the kept modes only, one (n, c) plane per block.
//
// A block streams rows of its plane (fGk3/fGkl decide its mode tile) through shared memory:
//  (a) row stage: the real DFT of each staged row at the tile's last-axis modes, using the
//      x[t] +- x[Sd-t] pairing (half the multiply-adds of a direct real DFT);
//  (b) accumulate stage: each thread owns a 4x4 register tile of (leading mode, last-axis mode)
//      accumulators and adds row * conj(twiddle of the row's leading coordinates).
// Only the kept spectrum (Kall complex values per plane) is written, to the workspace; with a
// row split each split writes its own partial, summed by the mixing kernel.
#pragma once

#include <type_traits>

#include "common.cuh"
#include "pdl.cuh"
#include "plan.h"

namespace turbofno {
namespace cuda {

// Copies rows [0, nrows) of length Sd from global (type T) into shared fp32 rows of stride Sd + 1.
template <typename T>
__device__ __forceinline__ void stageRows(float* xs, const T* __restrict__ src, int nrows, int Sd) {
    constexpr int kVec = 16 / sizeof(T);
    const int stride = Sd + 1;
    if (Sd % kVec == 0 && (reinterpret_cast<uintptr_t>(src) % 16) == 0) {
        const int vpr = Sd / kVec;  // 16-byte vectors per row
        const int total = nrows * vpr;
        const uint4* v = reinterpret_cast<const uint4*>(src);
#pragma unroll 4
        for (int e = threadIdx.x; e < total; e += blockDim.x) {
            const uint4 raw = __ldg(v + e);
            const int r = e / vpr;
            const int c = (e - r * vpr) * kVec;
            const T* vals = reinterpret_cast<const T*>(&raw);
            float* dst = xs + r * stride + c;
#pragma unroll
            for (int q = 0; q < kVec; ++q) dst[q] = toFloat(vals[q]);
        }
    } else {
        for (int r = 0; r < nrows; ++r) {
            for (int t = threadIdx.x; t < Sd; t += blockDim.x) xs[r * stride + t] = toFloat(src[static_cast<size_t>(r) * Sd + t]);
        }
    }
}

template <typename T, int LEAD, class Tw0, class Tw1, class TwD>
__device__ __forceinline__ void forwardBody(const Geometry& g, const T* __restrict__ x, float2* __restrict__ specIn,
                                            float* xs, float2* ts, const float2* rtw, Tw0 tw0, Tw1 tw1, TwD twd) {
    // With tables, the row stage reads rtw[(t-1) * bk3 + col] = w(k_col * t) filled by the caller.
    constexpr bool kTables = std::is_same<TwD, TableTwiddle>::value;
    const int tid = threadIdx.x;
    const int tiles = g.fTilesK3 * g.fTilesKL;
    const int plane = blockIdx.x / tiles;  // n * Cin + c
    const int tile = blockIdx.x - plane * tiles;
    const int tileK3 = tile % g.fTilesK3;
    const int tileKL = tile / g.fTilesK3;
    const int split = blockIdx.y;
    const int rowBegin = split * g.rowsPerSplit;
    const int rowEnd = min(g.A, rowBegin + g.rowsPerSplit);
    const int bk3 = kTile * g.fGk3;
    const int kg = tid % g.fGk3;
    const int lg = tid / g.fGk3;
    const int Sd = g.Sd;
    const int xsStride = Sd + 1;

    // Last-axis modes of this thread (the same in both stages): k_j = base + kg + fGk3 * j.
    int kk[kTile], kStep[kTile];
#pragma unroll
    for (int j = 0; j < kTile; ++j) {
        kk[j] = tileK3 * bk3 + kg + g.fGk3 * j;
        kStep[j] = kk[j] < g.kd ? kk[j] : 0;
    }
    // Leading modes of this thread: kl_i = base + lg + fGkl * i, their frequencies and the running
    // twiddle indices (f * a) mod S for the current row a.
    int kl[kTile], f0[kTile], f1[kTile], i0[kTile], i1[kTile];
    int a1 = 0;  // LEAD == 2: current coordinate on the second leading axis
#pragma unroll
    for (int i = 0; i < kTile; ++i) {
        kl[i] = tileKL * kTile * g.fGkl + lg + g.fGkl * i;
        const bool ok = kl[i] < g.KL;
        f0[i] = f1[i] = i0[i] = i1[i] = 0;
        if (LEAD == 1) {
            f0[i] = ok ? leadFreq(kl[i], g.p[0], g.K[0], g.S[0]) : 0;
            i0[i] = mulMod(f0[i], rowBegin, g.S[0]);
        } else if (LEAD == 2) {
            const int m0 = kl[i] / g.K[1], m1 = kl[i] - m0 * g.K[1];
            f0[i] = ok ? leadFreq(m0, g.p[0], g.K[0], g.S[0]) : 0;
            f1[i] = ok ? leadFreq(m1, g.p[1], g.K[1], g.S[1]) : 0;
            i0[i] = mulMod(f0[i], rowBegin / g.S[1], g.S[0]);
            i1[i] = mulMod(f1[i], rowBegin % g.S[1], g.S[1]);
        }
    }
    if (LEAD == 2) a1 = rowBegin % g.S[1];

    float2 acc[kTile][kTile];
#pragma unroll
    for (int i = 0; i < kTile; ++i)
#pragma unroll
        for (int j = 0; j < kTile; ++j) acc[i][j] = make_float2(0.f, 0.f);

    const int pairs = (Sd - 1) / 2;  // t and Sd - t for t = 1..pairs
    const bool nyquist = (Sd % 2) == 0;
    const T* planeX = x + static_cast<size_t>(plane) * g.A * Sd;

    for (int chunk = rowBegin; chunk < rowEnd; chunk += g.fRows) {
        const int nrows = min(g.fRows, rowEnd - chunk);
        __syncthreads();  // previous chunk's xs / ts fully consumed
        stageRows<T>(xs, planeX + static_cast<size_t>(chunk) * Sd, nrows, Sd);
        __syncthreads();

        // (a) row stage: T[r][k] for the chunk's rows and the tile's last-axis modes.
        if constexpr (kTables) {
            // in place: xs[r][t] = x[t] + x[Sd-t], xs[r][Sd-t] = x[Sd-t] - x[t] (t = 1..pairs)
            for (int e = tid; e < nrows * pairs; e += kThreads) {
                const int r = e / pairs, t = e - r * pairs + 1;
                float* row = xs + r * xsStride;
                const float a = row[t], b = row[Sd - t];
                row[t] = a + b;
                row[Sd - t] = b - a;
            }
            __syncthreads();
            // register tile: kRT rows x 4 modes per thread, twiddles from the per-block table rtw[t-1][col]
            constexpr int kRT = 2;
            for (int tile = tid; tile < ((nrows + kRT - 1) / kRT) * g.fGk3; tile += kThreads) {
                const int kq = tile % g.fGk3;
                const int r0 = (tile / g.fGk3) * kRT;
                const float* rows[kRT];
#pragma unroll
                for (int i = 0; i < kRT; ++i) rows[i] = xs + min(r0 + i, nrows - 1) * xsStride;
                float re[kRT][kTile], im[kRT][kTile];
#pragma unroll
                for (int i = 0; i < kRT; ++i) {
                    const float x0 = rows[i][0];
                    const float xn = nyquist ? rows[i][Sd / 2] : 0.f;
#pragma unroll
                    for (int j = 0; j < kTile; ++j) {
                        re[i][j] = ((kq + g.fGk3 * j + tileK3 * bk3) & 1) ? x0 - xn : x0 + xn;
                        im[i][j] = 0.f;
                    }
                }
                const float2* tw = rtw + kq;
                for (int t = 1; t <= pairs; ++t, tw += bk3) {
                    float sv[kRT], dv[kRT];
#pragma unroll
                    for (int i = 0; i < kRT; ++i) {
                        sv[i] = rows[i][t];
                        dv[i] = rows[i][Sd - t];
                    }
#pragma unroll
                    for (int j = 0; j < kTile; ++j) {
                        const float2 w = tw[g.fGk3 * j];
#pragma unroll
                        for (int i = 0; i < kRT; ++i) {
                            re[i][j] = fmaf(sv[i], w.x, re[i][j]);
                            im[i][j] = fmaf(dv[i], w.y, im[i][j]);
                        }
                    }
                }
#pragma unroll
                for (int i = 0; i < kRT; ++i) {
                    if (r0 + i >= nrows) break;
#pragma unroll
                    for (int j = 0; j < kTile; ++j) ts[(r0 + i) * bk3 + kq + g.fGk3 * j] = make_float2(re[i][j], im[i][j]);
                }
            }
        } else {
            for (int r0 = 2 * lg; r0 < nrows; r0 += 2 * g.fGkl) {
                const bool has1 = r0 + 1 < nrows;
                const float* xa = xs + r0 * xsStride;
                const float* xb = has1 ? xa + xsStride : xa;
                float re[2][kTile], im[2][kTile];
                int idx[kTile];
    #pragma unroll
                for (int j = 0; j < kTile; ++j) {
                    re[0][j] = xa[0];
                    re[1][j] = xb[0];
                    im[0][j] = im[1][j] = 0.f;
                    idx[j] = 0;
                }
                for (int t = 1; t <= pairs; ++t) {
                    const float pa = xa[t], qa = xa[Sd - t], pb = xb[t], qb = xb[Sd - t];
                    const float sa = pa + qa, da = pa - qa, sb = pb + qb, db = pb - qb;
    #pragma unroll
                    for (int j = 0; j < kTile; ++j) {
                        idx[j] = addMod(idx[j], kStep[j], Sd);
                        const float2 w = twd(idx[j], Sd);
                        re[0][j] = fmaf(sa, w.x, re[0][j]);
                        im[0][j] = fmaf(-da, w.y, im[0][j]);
                        re[1][j] = fmaf(sb, w.x, re[1][j]);
                        im[1][j] = fmaf(-db, w.y, im[1][j]);
                    }
                }
                if (nyquist) {
                    const float na = xa[Sd / 2], nb = xb[Sd / 2];
    #pragma unroll
                    for (int j = 0; j < kTile; ++j) {
                        const float sgn = (kk[j] & 1) ? -1.f : 1.f;
                        re[0][j] = fmaf(sgn, na, re[0][j]);
                        re[1][j] = fmaf(sgn, nb, re[1][j]);
                    }
                }
    #pragma unroll
                for (int j = 0; j < kTile; ++j) {
                    const int col = kg + g.fGk3 * j;
                    ts[r0 * bk3 + col] = make_float2(re[0][j], im[0][j]);
                    if (has1) ts[(r0 + 1) * bk3 + col] = make_float2(re[1][j], im[1][j]);
                }
            }
        }
        __syncthreads();

        // (b) accumulate stage: acc[i][j] += T[row][k_j] * conj(w(kl_i, row)).
        for (int r = 0; r < nrows; ++r) {
            float2 tv[kTile];
#pragma unroll
            for (int j = 0; j < kTile; ++j) tv[j] = ts[r * bk3 + kg + g.fGk3 * j];
            if (LEAD == 0) {
#pragma unroll
                for (int j = 0; j < kTile; ++j) {
                    acc[0][j].x += tv[j].x;
                    acc[0][j].y += tv[j].y;
                }
            } else {
#pragma unroll
                for (int i = 0; i < kTile; ++i) {
                    float2 w = tw0(i0[i], g.S[0]);
                    if (LEAD == 2) w = cmul(w, tw1(i1[i], g.S[1]));
#pragma unroll
                    for (int j = 0; j < kTile; ++j) cmacConj(acc[i][j], tv[j], w);
                }
                // advance every running index to the next row
                if (LEAD == 1) {
#pragma unroll
                    for (int i = 0; i < kTile; ++i) i0[i] = addMod(i0[i], f0[i], g.S[0]);
                } else {
                    if (++a1 == g.S[1]) {
                        a1 = 0;
#pragma unroll
                        for (int i = 0; i < kTile; ++i) {
                            i1[i] = 0;
                            i0[i] = addMod(i0[i], f0[i], g.S[0]);
                        }
                    } else {
#pragma unroll
                        for (int i = 0; i < kTile; ++i) i1[i] = addMod(i1[i], f1[i], g.S[1]);
                    }
                }
            }
        }
    }

    float2* out = specIn + (static_cast<size_t>(split) * g.N * g.Cin + plane) * static_cast<size_t>(g.Kall);
#pragma unroll
    for (int i = 0; i < kTile; ++i) {
        if (kl[i] >= g.KL || (LEAD == 0 && i > 0)) continue;
#pragma unroll
        for (int j = 0; j < kTile; ++j) {
            if (kk[j] < g.kd) out[static_cast<size_t>(kl[i]) * g.kd + kk[j]] = acc[i][j];
        }
    }
}

template <typename T, int LEAD>
__global__ void __launch_bounds__(kThreads) spectralForwardKernel(Geometry g, const T* __restrict__ x,
                                                                   float2* __restrict__ specIn) {
    extern __shared__ float4 smemRaw[];
    const int bk3 = kTile * g.fGk3;
    const int pairs = (g.Sd - 1) / 2;
    float2* base = reinterpret_cast<float2*>(smemRaw);
    float2* tab0 = base;
    float2* tab1 = tab0 + (LEAD >= 1 ? g.S[0] : 0);
    float2* tabd = tab1 + (LEAD >= 2 ? g.S[1] : 0);
    float2* rtw = tabd + g.Sd;
    float2* ts = g.twTables ? rtw + static_cast<size_t>(pairs) * bk3 : base;
    float* xs = reinterpret_cast<float*>(ts + static_cast<size_t>(g.fRows) * bk3);
    if (g.twTables) {
        if (LEAD >= 1) fillTwiddleTable(tab0, g.S[0]);
        if (LEAD >= 2) fillTwiddleTable(tab1, g.S[1]);
        fillTwiddleTable(tabd, g.Sd);
        __syncthreads();
        // row-stage table for this block's last-axis modes: rtw[t-1][col] = w((k_col * t) mod Sd)
        const int tile = blockIdx.x % (g.fTilesK3 * g.fTilesKL);
        const int k3Base = (tile % g.fTilesK3) * bk3;
        // column col (mode k) walks t with a running index (k * t) mod Sd; kThreads/bk3 threads share a column
        const int lanesPerCol = max(1, kThreads / bk3);
        for (int c = threadIdx.x; c < bk3 * lanesPerCol && pairs > 0; c += kThreads) {
            const int col = c % bk3, t0 = 1 + c / bk3, k = k3Base + col;
            int idx = mulMod(k % g.Sd, t0, g.Sd);
            const int step = mulMod(k % g.Sd, lanesPerCol, g.Sd);
            for (int t = t0; t <= pairs; t += lanesPerCol) {
                rtw[(t - 1) * bk3 + col] = k < g.kd ? tabd[idx] : make_float2(0.f, 0.f);
                idx = addMod(idx, step, g.Sd);
            }
        }
        // the first __syncthreads in forwardBody orders these writes before any read
        gridDependencyWait();  // the tables above overlap the previous kernel's tail (pdl.cuh)
        forwardBody<T, LEAD>(g, x, specIn, xs, ts, rtw, TableTwiddle{tab0}, TableTwiddle{tab1}, TableTwiddle{tabd});
    } else {
        gridDependencyWait();
        forwardBody<T, LEAD>(g, x, specIn, xs, ts, nullptr, ComputedTwiddle{}, ComputedTwiddle{}, ComputedTwiddle{});
    }
}

}  // namespace cuda
}  // namespace turbofno
