// Kernel 1 of 3, tensor-core variant (d = 2 only; selected by plan.useTensorCores): the forward
// truncated DFT of one (n, c) plane [S1 rows][W] as two GEMMs per chunk of R rows, on tensor cores:
//   row stage      T[R][2BN]    = x[R][Wp] * Fw[Wp][2BN]          Fw = [cos | -sin](k t)  (k in the tile)
//   leading stage  P[2BM][2BN] += G[2BM][R] * T[R][2BN]           G  = [cos ; -sin](f a)  (f in the tile)
// and at the end X = (P00 - P11) + i (P01 + P10), i.e. sum_a T[a] e^{-i f a} with T = Re T + i Im T.
// Padding rows / columns of every operand are zero, so odd and non-power-of-two sizes stay exact.
// Grid (N*Cin*tTilesKL*tTilesK3, tSplit); each split writes its own partial spectrum (summed by the
// mixing kernel, as in the FMA path).
#pragma once

#include "plan.h"
#include "tc_common.cuh"

namespace turbofno {
namespace cuda {

template <typename T>
__global__ void __launch_bounds__(kTcThreads) tcForwardKernel(Geometry g, const T* __restrict__ x,
                                                              float2* __restrict__ specIn) {
    constexpr bool kSplit = std::is_same<T, float>::value;
    extern __shared__ __align__(128) float tcSmemF[];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int BM = g.tBM, BN = g.tBN, R = g.tR, Wp = g.tWp;
    const int S1 = g.S[0], W = g.Sd, K1 = g.K[0], p = g.p[0];
    const int ldF = 2 * BN + 4, ldX = Wp + 4, ldG = R + 4, ldT = 2 * BN + 4, ldO = 2 * BN + 4;
    float2* tabH = reinterpret_cast<float2*>(tcSmemF);
    float2* tabW = tabH + S1;
    float* Fw = tcSmemF + g.tfOff[0];
    float* xs = tcSmemF + g.tfOff[1];
    float* G = tcSmemF + g.tfOff[2];
    float* Ts = tcSmemF + g.tfOff[3];
    float* O = Fw;  // output staging after the last chunk

    const int tiles = g.tTilesKL * g.tTilesK3;
    const int plane = blockIdx.x / tiles;  // n * Cin + c
    const int tile = blockIdx.x - plane * tiles;
    const int k0 = (tile % g.tTilesK3) * BN;
    const int kl0 = (tile / g.tTilesK3) * BM;
    const int rowBegin = blockIdx.y * g.tRowsPerSplit;
    const int rowEnd = min(g.A, rowBegin + g.tRowsPerSplit);

    fillTwiddleTable(tabH, S1);
    fillTwiddleTable(tabW, W);
    __syncthreads();
    // Fw[t][c] = cos / -sin (2 pi k t / W), column c: mode k0 + c % BN
    fillDft(Fw, ldF, 1, Wp, W, 0, 2 * BN, W, tabW, [&](int c) {
        const int k = k0 + c % BN;
        return k < g.kd ? DftLine{k % W, c < BN ? 0 : 1} : DftLine{0, -1};
    });

    const int tnN = 2 * BN / 16;
    const int nAcc = (2 * BM / 16) * tnN;
    const int per = (nAcc + kTcThreads / 32 - 1) / (kTcThreads / 32);
    TcAcc acc[kTcMaxAcc];
#pragma unroll
    for (int q = 0; q < kTcMaxAcc; ++q) wmma::fill_fragment(acc[q], 0.f);

    const T* planeX = x + static_cast<size_t>(plane) * g.A * W;
    for (int chunk = rowBegin; chunk < rowEnd; chunk += R) {
        const int nrows = min(R, rowEnd - chunk);
        __syncthreads();  // previous chunk's xs, G, T consumed (and Fw written, first time)
        // a warp per row, lanes along it: kU independent loads in flight per thread, no divisions
        constexpr int kU = 8;
        for (int r = warp; r < R; r += kTcThreads / 32) {
            const bool rowOk = r < nrows;
            const T* src = planeX + static_cast<size_t>(chunk + (rowOk ? r : 0)) * W;
            float* dst = xs + r * ldX;
            for (int t0 = lane; t0 < Wp; t0 += 32 * kU) {
                float v[kU];
#pragma unroll
                for (int u = 0; u < kU; ++u) {
                    const int t = t0 + 32 * u;
                    v[u] = (rowOk && t < W) ? toFloat(src[t]) : 0.f;
                }
#pragma unroll
                for (int u = 0; u < kU; ++u) {
                    const int t = t0 + 32 * u;
                    if (t < Wp) dst[t] = v[u];
                }
            }
        }
        // G[i][r] = cos / -sin (2 pi f a / S1), row i: leading mode kl0 + i % BM, a = chunk + r
        fillDft(G, 1, ldG, R, nrows, chunk, 2 * BM, S1, tabH, [&](int i) {
            const int kl = kl0 + i % BM;
            return kl < K1 ? DftLine{leadFreq(kl, p, K1, S1), i < BM ? 0 : 1} : DftLine{0, -1};
        });
        __syncthreads();
        // row stage: one 16x16 tile of T per warp and step
        for (int t = warp; t < (R / 16) * tnN; t += kTcThreads / 32) {
            const int tm = t / tnN, tn = t - tm * tnN;
            TcAcc c;
            wmma::fill_fragment(c, 0.f);
            tcTileMma<kSplit>(c, xs + tm * 16 * ldX, ldX, Fw + tn * 16, ldF, Wp);
            wmma::store_matrix_sync(Ts + tm * 16 * ldT + tn * 16, c, ldT, wmma::mem_row_major);
        }
        __syncthreads();
        // leading stage: this warp's accumulator tiles
#pragma unroll
        for (int q = 0; q < kTcMaxAcc; ++q) {
            const int t = warp * per + q;
            if (q < per && t < nAcc) {
                const int tm = t / tnN, tn = t - tm * tnN;
                tcTileMma<kSplit>(acc[q], G + tm * 16 * ldG, ldG, Ts + tn * 16, ldT, R);
            }
        }
    }
    __syncthreads();  // every warp done reading Fw / xs / G / T: O reuses them
#pragma unroll
    for (int q = 0; q < kTcMaxAcc; ++q) {
        const int t = warp * per + q;
        if (q < per && t < nAcc) {
            const int tm = t / tnN, tn = t - tm * tnN;
            wmma::store_matrix_sync(O + tm * 16 * ldO + tn * 16, acc[q], ldO, wmma::mem_row_major);
        }
    }
    __syncthreads();
    float2* out = specIn + (static_cast<size_t>(blockIdx.y) * g.N * g.Cin + plane) * static_cast<size_t>(g.Kall);
    for (int e = tid; e < BM * BN; e += kTcThreads) {
        const int i = e / BN, j = e - i * BN;
        const int kl = kl0 + i, k = k0 + j;
        if (kl < K1 && k < g.kd) {
            const float* top = O + i * ldO;
            const float* bot = O + (BM + i) * ldO;
            out[static_cast<size_t>(kl) * g.kd + k] = make_float2(top[j] - bot[BN + j], top[BN + j] + bot[j]);
        }
    }
}

}  // namespace cuda
}  // namespace turbofno
