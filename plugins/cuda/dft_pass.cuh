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
// TC = true runs the products on tensor cores instead (3xTF32 mma, fp32 accuracy: mma_tf32.cuh), with
// the same tiles in shared memory, the same loaders and, through a shared-memory transpose of the
// result fragments, the same epilogue (DftPass::tensorCores, chosen by the planner).
#pragma once

#include <type_traits>

#include "common.cuh"
#include "dft_pass.h"
#include "mma_tf32.cuh"
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

// Tensor-core variant (TC): the 8 warps tile the block's BM x BN outputs as warpsM x warpsN warp
// tiles of WM x WN, each MT x NT mma tiles of 16 x 8 (mma_tf32.cuh).
template <int BM>
struct PassTcTile {
    static constexpr int BN = PassTile<BM>::BN;
    static constexpr int WM = BM < 32 ? BM : 32;
    static constexpr int warpsM = BM / WM, warpsN = kPassThreads / 32 / warpsM;
    static constexpr int WN = BN / warpsN;
    static constexpr int MT = WM / 16, NT = WN / 8;
    static_assert(WM % 16 == 0 && WN % 8 == 0 && warpsM * warpsN * 32 == kPassThreads, "tensor-core tile");
};

// Shared memory of one pass block. The FMA variant reads As / Bs rows as float4 (+2 on Bs spreads
// its k-major stores); the TC variant pads both rows to 8 words mod 32 (conflict-free fragment
// loads) and stages its result tile Cs[col][m] over them for the epilogue.
template <int BM, bool TC>
struct PassSmem {
    static constexpr int BN = PassTile<BM>::BN;
    struct Tiles {
        float2 As[kBK][BM + (TC ? 4 : 0)];
        float2 Bs[kBK][BN + (TC ? 4 : 2)];
    };
    static constexpr size_t kCsBytes = TC ? sizeof(float2) * BN * (BM + 1) : 0;
    static constexpr size_t kBytes = sizeof(Tiles) > kCsBytes ? sizeof(Tiles) : kCsBytes;
};

// One k step (kBK) of the TC variant for this warp, one mma row tile at a time: its products over
// the step (two k8 slices of 3xTF32 mma) go to fresh fragments, which are then added to acc with
// ordinary fp32 adds (short tensor-core accumulation chains; fewer live registers than all row
// tiles at once, at the price of splitting the B fragments once per row tile).
// C2C: acc.x += Ax Bx - Ay By, acc.y += Ax By + Ay Bx; R2C / C2R: acc.x += Ax Bx, acc.y += Ay By.
template <PassKind KIND, int BM>
__device__ __forceinline__ void passTcStep(const typename PassSmem<BM, true>::Tiles& sm,
                                           float (&acc)[PassTcTile<BM>::MT][PassTcTile<BM>::NT][2][4]) {
    using TcT = PassTcTile<BM>;
    constexpr int NT = TcT::NT;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int mW = (warp / TcT::warpsN) * TcT::WM, nW = (warp % TcT::warpsN) * TcT::WN;
#pragma unroll
    for (int mt = 0; mt < TcT::MT; ++mt) {
        float part[NT][2][4];
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
            for (int r = 0; r < 8; ++r) part[nt][r / 4][r % 4] = 0.f;
#pragma unroll
        for (int k8 = 0; k8 < kBK; k8 += 8) {
            Tf32Pair ax[4], ay[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const float2 w = sm.As[k8 + t + 4 * (r >> 1)][mW + mt * 16 + g + 8 * (r & 1)];
                ax[r] = splitTf32(w.x);
                ay[r] = splitTf32(w.y);
            }
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) {
                Tf32Pair bx[2], by[2];
#pragma unroll
                for (int r = 0; r < 2; ++r) {
                    const float2 v = sm.Bs[k8 + t + 4 * r][nW + nt * 8 + g];
                    bx[r] = splitTf32(v.x);
                    by[r] = splitTf32(v.y);
                }
                mma3xTf32(part[nt][0], ax, bx);
                if constexpr (KIND == PassKind::kC2C) {
                    const Tf32Pair nby[2] = {negate(by[0]), negate(by[1])};
                    mma3xTf32(part[nt][0], ay, nby);
                    mma3xTf32(part[nt][1], ax, by);
                    mma3xTf32(part[nt][1], ay, bx);
                } else {
                    mma3xTf32(part[nt][1], ay, by);
                }
            }
        }
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
            for (int r = 0; r < 8; ++r) acc[mt][nt][r / 4][r % 4] += part[nt][r / 4][r % 4];
    }
}

template <PassKind KIND, int BM, typename T, bool TC>
__global__ void __launch_bounds__(kPassThreads, 2) dftPassKernel(DftPass p, const void* __restrict__ src,
                                                              void* __restrict__ dst, const T* __restrict__ bias) {
    using Tile = PassTile<BM>;
    using Smem = PassSmem<BM, TC>;
    constexpr int TM = Tile::TM, TN = Tile::TN, BN = Tile::BN;
    // R2C: B holds (x[t] + x[S-t], x[t] - x[S-t]) for t = 0..S/2 (half the terms of a direct real DFT)
    __shared__ __align__(16) unsigned char smem[Smem::kBytes];
    auto& As = reinterpret_cast<typename Smem::Tiles*>(smem)->As;
    auto& Bs = reinterpret_cast<typename Smem::Tiles*>(smem)->Bs;

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

    // TC: tcAcc[mt][nt][0 / 1][r] are acc.x / acc.y of the warp's mma tiles (fragment layout C)
    constexpr int kMT = PassTcTile<BM>::MT, kNT = PassTcTile<BM>::NT;
    float tcAcc[TC ? kMT : 1][TC ? kNT : 1][2][4];
#pragma unroll
    for (int mt = 0; mt < (TC ? kMT : 1); ++mt)
#pragma unroll
        for (int nt = 0; nt < (TC ? kNT : 1); ++nt)
#pragma unroll
            for (int r = 0; r < 8; ++r) tcAcc[mt][nt][r / 4][r % 4] = 0.f;

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
        if constexpr (TC) {
            passTcStep<KIND, BM>(*reinterpret_cast<const typename Smem::Tiles*>(smem), tcAcc);
        } else {
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
    }

    allowDependentLaunch();
    if constexpr (TC) {
        // fragments -> Cs[col][m] -> the FMA variant's acc[i][j] mapping, so one epilogue serves both
        using TcT = PassTcTile<BM>;
        auto& Cs = *reinterpret_cast<float2(*)[BN][BM + 1]>(smem);
        const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
        const int mW = (warp / TcT::warpsN) * TcT::WM, nW = (warp % TcT::warpsN) * TcT::WN;
        __syncthreads();  // As / Bs are dead
#pragma unroll
        for (int mt = 0; mt < TcT::MT; ++mt)
#pragma unroll
            for (int nt = 0; nt < TcT::NT; ++nt)
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    Cs[nW + nt * 8 + 2 * t + (r & 1)][mW + mt * 16 + g + 8 * (r >> 1)] =
                        make_float2(tcAcc[mt][nt][0][r], tcAcc[mt][nt][1][r]);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j] = Cs[nCol(j)][mRow(i)];
    }
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
