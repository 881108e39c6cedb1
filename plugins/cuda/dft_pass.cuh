// The separable algorithm's one kernel: a truncated DFT along one axis as a batched GEMM
// C[m, col] = sum_k Tw(m, k) B[k, col] (see dft_pass.h for the three kinds and the strided views).
// The real passes pair samples t and S - t (cos is even, sin odd): R2C sums over t = 0..S/2 only,
// C2R computes rows t = 0..S/2 and writes y[t] and y[S - t] from the same two sums.
//
// A block of 256 threads owns a BM x BN tile of C (BM * BN = 4096, each thread a 4 x 4 register
// tile) and walks the k range of its split in steps of kBK: the twiddle tile Tw[m0.., k0..] is
// generated into shared memory (sincospif of an exact integer phase index, kept incrementally per
// thread where the column map is the identity), the B tile is loaded from memory (coalesced along
// whichever of k / col is contiguous), then 4 x 4 x kBK multiply-adds. No atomics: a split writes its
// own partial (summed by the consumer), so results are bitwise repeatable.
#pragma once

#include <type_traits>

#include "common.cuh"
#include "dft_pass.h"
#include "pdl.cuh"

namespace turbofno {
namespace cuda {

constexpr int kPassThreads = 256;
constexpr int kBK = 16;

template <int BM>
struct PassTile {
    static constexpr int TM = BM / 4;                 // threads along m
    static constexpr int TN = kPassThreads / TM;      // threads along columns
    static constexpr int BN = TN * 4;                 // tile columns
    static constexpr int RB = kBK * BN / kPassThreads;  // B elements per thread per step
    static constexpr int RA = kBK * BM / kPassThreads;  // twiddles per thread per step (>= 1)
    static_assert(BM >= 16 && BM <= 256 && kPassThreads % BM == 0, "tile");
};

// Twiddle index map of dft_pass.h: v < p ? v : v + off.
__device__ __forceinline__ int passMap(int v, int p, int off) { return v < p ? v : v + off; }

// (cos, sin)(2 pi j / S) for 0 <= j < S, argument reduced to [-pi, pi] first.
__device__ __forceinline__ float2 unitRoot(int j, int S) {
    const int jj = j > S / 2 ? j - S : j;
    float s, c;
    sincospif(2.0f * static_cast<float>(jj) / static_cast<float>(S), &s, &c);
    return make_float2(c, s);
}

__device__ __forceinline__ int viewOffset(const StridedView& v, int col) {
    const int outer = static_cast<int>(static_cast<unsigned>(col) / static_cast<unsigned>(v.inner));
    return outer * v.outerStride + (col - outer * v.inner) * v.innerStride;
}

template <PassKind KIND, int BM, typename T>
__global__ void __launch_bounds__(kPassThreads, 2) dftPassKernel(DftPass p, const void* __restrict__ src,
                                                              void* __restrict__ dst, const T* __restrict__ bias) {
    using Tile = PassTile<BM>;
    constexpr int TM = Tile::TM, TN = Tile::TN, BN = Tile::BN;
    // R2C: B holds (x[t] + x[S-t], x[t] - x[S-t]) for t = 0..S/2 (half the terms of a direct real DFT)
    __shared__ __align__(16) float2 As[kBK][BM];
    __shared__ __align__(16) float2 Bs[kBK][BN + 2];  // rows 16-byte aligned (float4 reads); +2 spreads k-major stores

    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM;
    const int n0 = static_cast<int>(blockIdx.x) * BN;
    const int kBegin = blockIdx.z * p.kPerSplit;
    const int kEnd = min(p.K, kBegin + p.kPerSplit);

    // ---- twiddle generator state: this thread fills As[kk][ma] for kk = ka0 + r * (256 / BM) ----
    const int ma = tid % BM;
    const int ka0 = tid / BM;
    const bool mOk = m0 + ma < p.M;
    const int fm = mOk ? passMap(m0 + ma, p.mP, p.mOff) : 0;
    // phase indices advance by fm * kBK per step, plus fm * kOff where k crosses from the low into the
    // high block of a mapped column index (both exact, modulo S)
    const int phaseStep = static_cast<int>((static_cast<int64_t>(fm) * kBK) % p.S);
    const int seamStep = static_cast<int>((static_cast<int64_t>(fm) * p.kOff) % p.S);
    int phase[Tile::RA];
#pragma unroll
    for (int r = 0; r < Tile::RA; ++r) {
        const int k = kBegin + ka0 + r * (kPassThreads / BM);
        phase[r] = static_cast<int>((static_cast<int64_t>(fm) * passMap(k, p.kP, p.kOff)) % p.S);
    }

    // ---- B loader: k-contiguous views are linear in the column (R2C / C2R lines, planner rule);
    // column-contiguous views give every thread one fixed column ----
    const T* xB = static_cast<const T*>(src);
    const float2* zB = static_cast<const float2*>(src);
    const int bCol = n0 + tid % BN;
    const bool bColOk = !p.bKContig && bCol < p.N;
    const int bBase = bColOk ? viewOffset(p.b, bCol) : 0;

    // ---- compute mapping: thread (tm, tn) owns rows mRow(i) and columns nCol(j), i, j < 4 ----
    const int tm = p.mFast ? tid % TM : tid / TN;
    const int tn = p.mFast ? tid / TM : tid % TN;
    auto mRow = [&](int i) { return 2 * tm + (i & 1) + 2 * TM * (i >> 1); };
    auto nCol = [&](int j) { return 2 * tn + (j & 1) + 2 * TN * (j >> 1); };
    // R2C: acc = (sum P cos, -sum M sin) = X[k]. C2R: acc = (sum c_k Re Z cos, sum c_k Im Z sin), so
    // y[t] = acc.x - acc.y and y[S - t] = acc.x + acc.y. C2C: acc = the complex sum.
    float2 acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = make_float2(0.f, 0.f);

    // B tile element r of the step at k0: raw values, converted when stored to shared memory, so the
    // next step's loads are in flight while this step computes (register double buffering).
    struct RawPair {
        T a, b;
    };
    using Raw = typename std::conditional<KIND == PassKind::kR2C, RawPair, float2>::type;
    auto bSlot = [&](int r, int& kk, int& nn) {
        if (p.bKContig) {
            kk = tid % kBK;
            nn = tid / kBK + r * (kPassThreads / kBK);
        } else {
            kk = tid / BN + r * (kPassThreads / BN);
            nn = tid % BN;
        }
    };
    auto loadB = [&](int k0, int r) -> Raw {
        int kk, nn;
        bSlot(r, kk, nn);
        const int k = k0 + kk;
        bool ok;
        int off;
        if (p.bKContig) {
            const int col = n0 + nn;
            ok = col < p.N && k < kEnd;
            off = col * p.b.innerStride + k * p.b.rowStride;
        } else {
            ok = bColOk && k < kEnd;
            off = bBase + k * p.b.rowStride;
        }
        if constexpr (KIND == PassKind::kR2C) {
            // x[line, t] and its partner x[line, S - t] (none for t = 0 and t = S/2)
            RawPair v{fromFloat<T>(0.f), fromFloat<T>(0.f)};
            if (ok) {
                v.a = xB[off];
                if (k > 0 && 2 * k != p.S) v.b = xB[off + (p.S - 2 * k) * p.b.rowStride];
            }
            return v;
        } else {
            return ok ? zB[off] : make_float2(0.f, 0.f);
        }
    };
    gridDependencyWait();  // everything above is index set-up: overlaps the previous kernel's tail (pdl.cuh)
    Raw pre[Tile::RB];
#pragma unroll
    for (int r = 0; r < Tile::RB; ++r) pre[r] = loadB(kBegin, r);

    for (int k0 = kBegin; k0 < kEnd; k0 += kBK) {
        __syncthreads();  // previous step's tiles consumed
#pragma unroll
        for (int r = 0; r < Tile::RA; ++r) {
            const int kk = ka0 + r * (kPassThreads / BM);
            const int k = k0 + kk;
            float2 w = make_float2(0.f, 0.f);
            if (mOk && k < kEnd && passMap(k, p.kP, p.kOff) < p.kLimit) {
                w = unitRoot(phase[r], p.S);
                if (!p.inverse) w.y = -w.y;
                if constexpr (KIND == PassKind::kC2R) {
                    const float ck = (k == 0 || k == p.nyquist) ? 1.f : 2.f;
                    w.x *= ck;
                    w.y *= ck;
                }
            }
            As[kk][ma] = w;
            phase[r] = addMod(phase[r], phaseStep, p.S);
            if (k < p.kP && k + kBK >= p.kP) phase[r] = addMod(phase[r], seamStep, p.S);
        }
#pragma unroll
        for (int r = 0; r < Tile::RB; ++r) {
            int kk, nn;
            bSlot(r, kk, nn);
            if constexpr (KIND == PassKind::kR2C) {
                const float a = toFloat(pre[r].a), b = toFloat(pre[r].b);
                Bs[kk][nn] = make_float2(a + b, a - b);  // (P, M) of the pair
            } else {
                Bs[kk][nn] = pre[r];
            }
        }
        __syncthreads();
        if (k0 + kBK < kEnd) {
#pragma unroll
            for (int r = 0; r < Tile::RB; ++r) pre[r] = loadB(k0 + kBK, r);
        }
#pragma unroll
        for (int kk = 0; kk < kBK; ++kk) {
            // rows mRow(i) and columns nCol(j): two adjacent pairs each, read as float4
            float2 a[4], b[4];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float4 av = *reinterpret_cast<const float4*>(&As[kk][2 * tm + 2 * TM * h]);
                const float4 bv = *reinterpret_cast<const float4*>(&Bs[kk][2 * tn + 2 * TN * h]);
                a[2 * h] = make_float2(av.x, av.y);
                a[2 * h + 1] = make_float2(av.z, av.w);
                b[2 * h] = make_float2(bv.x, bv.y);
                b[2 * h + 1] = make_float2(bv.z, bv.w);
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    if constexpr (KIND == PassKind::kC2C) {
                        cmac(acc[i][j], a[i], b[j]);
                    } else {
                        acc[i][j].x = fmaf(a[i].x, b[j].x, acc[i][j].x);
                        acc[i][j].y = fmaf(a[i].y, b[j].y, acc[i][j].y);
                    }
                }
        }
    }

    allowDependentLaunch();
    // ---- epilogue ----
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int col = n0 + nCol(j);
        if (col >= p.N) continue;
        const int cBase = viewOffset(p.c, col) + static_cast<int>(blockIdx.z) * p.cSplitStride;
        float biasV = 0.f;
        if constexpr (KIND == PassKind::kC2R) {
            if (bias) biasV = toFloat(bias[(static_cast<unsigned>(col) / static_cast<unsigned>(p.biasDiv)) % static_cast<unsigned>(p.biasMod)]);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int m = m0 + mRow(i);
            if (m >= p.M) continue;
            const int off = cBase + m * p.c.rowStride;
            if constexpr (KIND == PassKind::kC2R) {
                // y[t] (and the mirrored sample y[S - t]) = act(scale * sum + bias [+ skip already in y])
                T* out = static_cast<T*>(dst);
                auto finish = [&](int o, float v) {
                    v = fmaf(v, p.scale, biasV);
                    if (p.addY) v += toFloat(out[o]);
                    out[o] = fromFloat<T>(applyActivation(v, p.activation));
                };
                finish(off, acc[i][j].x - acc[i][j].y);
                if (m > 0 && 2 * m != p.S) finish(off + (p.S - 2 * m) * p.c.rowStride, acc[i][j].x + acc[i][j].y);
            } else {
                static_cast<float2*>(dst)[off] = acc[i][j];
            }
        }
    }
}

}  // namespace cuda
}  // namespace turbofno
