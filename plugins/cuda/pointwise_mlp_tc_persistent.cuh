// The persistent variant of the PointwiseMLP tensor-core kernel (pointwise_mlp_tc.cuh, whose helpers,
// tiling and arithmetic it shares), included after it by pointwise_mlp.cu. For the common case (fp32,
// P % 4 == 0 with aligned tensors, Cin <= 64, Cout <= 64, the split weights and two x tiles within
// kPersistSmemMax): the non-persistent kernel spends most of a block on fixed costs (staging and
// splitting the weights, the x tile's DRAM latency with nothing to overlap it: ncu at 9 cycles per
// issued instruction with 4 warps per scheduler). Here:
//   - a block stages all of W1 and W2 (split into tf32 hi / lo) once and keeps them in shared memory;
//   - it then loops over work items (batch item, 128-point tile) with stride gridDim.x, the grid being
//     2 blocks per SM (or fewer items);
//   - the next item's x tile is copied by cp.async into the second buffer while the current one is
//     computed (one commit group per item; wait_group 1 waits for the current one only), and the next
//     item's r rows are prefetched into L2.
// Per item the arithmetic is exactly the non-persistent kernel's (same chunks of 32 hidden channels,
// same warp tiles and k order, same epilogue): the same operations in the same order.
// Shared memory (floats): Xs 2 x [kx][136], W1 hi / lo [Ch rounded up to 32][kx + 4], Hs [32][136],
// W2 hi / lo [BM][chPad + 4] (chPad = Ch rounded up to 8: the strides stay 4 mod 8, conflict-free A
// reads). A test hook (setMlpTcPersistOverride, pointwise_mlp.cu) turns it off.
#pragma once

#include "pointwise_mlp_tc.cuh"

namespace turbofno {
namespace cuda {
namespace mlptc {

constexpr size_t kPersistSmemMax = 113 * 1024;  // 2 blocks per SM

// W1's rows are padded to a multiple of kHC (every GEMM1 m tile reads inside W1), W2's columns to 8.
__host__ __device__ constexpr size_t persistSmemFloats(int kx, int chPad, int bm) {
    return 2 * static_cast<size_t>(kx) * kPS + 2 * static_cast<size_t>((chPad + kHC - 1) / kHC * kHC) * (kx + 4) +
           static_cast<size_t>(kHC) * kPS + 2 * static_cast<size_t>(bm) * (chPad + 4);
}

}  // namespace mlptc

// grid min(items, 2 x SMs), items = N * ceil(P / 128); 256 threads; dynamic shared memory
// persistSmemFloats(kx, chPad, BM). fp32 only, a.vec == 1, Cin <= kKX, Cout <= BM (one Cout tile).
template <int BM>
__global__ void __launch_bounds__(mlptc::kTcThreads, 2) pointwiseMlpTcPersistentKernel(const MlpArgs a) {
    using namespace mlptc;
    using T = float;
    constexpr int HC = kHC;
    using G1 = WarpGrid<HC>;
    using G2 = WarpGrid<BM>;
    extern __shared__ __align__(16) float smem[];
    const int kx = a.kxRows;                       // Cin rounded up to 8 (<= kKX)
    const int chPad = (a.ch + 7) & ~7, ch32 = (a.ch + kHC - 1) / kHC * kHC;
    const int w1Stride = kx + 4, w2Stride = chPad + 4;
    float* Xbuf = smem;                            // 2 x [kx][kPS]
    float* W1h = Xbuf + 2 * kx * kPS;              // [ch32][w1Stride]
    float* W1l = W1h + ch32 * w1Stride;
    float* Hs = W1l + ch32 * w1Stride;             // [HC][kPS]
    float* W2h = Hs + HC * kPS;                    // [BM][w2Stride]
    float* W2l = W2h + BM * w2Stride;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int cin = a.cin, ch = a.ch, cout = a.cout, P = a.P;
    const int items = a.items;
    const int r1 = (warp / G1::WN) * 16 * G1::MT, c1 = (warp % G1::WN) * 8 * G1::NT;
    const int r2 = (warp / G2::WN) * 16 * G2::MT, c2 = (warp % G2::WN) * 8 * G2::NT;
    const int mt2 = max(0, min(G2::MT, (cout - r2 + 15) / 16));
    const T* __restrict__ x = static_cast<const T*>(a.x);
    const T* __restrict__ b1 = static_cast<const T*>(a.b1);
    const T* rp = static_cast<const T*>(a.r);

    // x tile of item `it` into buffer `buf` (rows past Cin and points past P zero-filled), and its r
    // rows into L2; one commit group
    auto issueTile = [&](int it, int buf) {
        const int n = it / a.tilesP, p0 = (it % a.tilesP) * kTP;
        const T* xn = x + static_cast<size_t>(n) * cin * P + p0;
        float* Xs = Xbuf + buf * kx * kPS;
        for (int q = tid; q < kx * (kTP / 4); q += kTcThreads) {
            const int row = q / (kTP / 4), col = 4 * (q % (kTP / 4));
            const bool in = row < cin && p0 + col < P;
            copy16Async(&Xs[row * kPS + col], in ? xn + static_cast<size_t>(row) * P + col : xn, in ? 16 : 0);
        }
        if (rp) {
            const int row = tid / 4, p = p0 + (tid % 4) * 32;  // 128-byte lines of fp32
            if (row < BM && row < cout && p < P) prefetchL2(rp + (static_cast<size_t>(n) * cout + row) * P + p);
        }
#if defined(__CUDA_ARCH__)
        asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
    };

    gridDependencyWait();  // x, weights and r may come from the previous kernel (pdl.cuh)
    int item = blockIdx.x;
    if (item < items) issueTile(item, 0);
    stageSplit(W1h, W1l, w1Stride, static_cast<const T*>(a.w1), cin, ch32, kx, ch, cin);
    stageSplit(W2h, W2l, w2Stride, static_cast<const T*>(a.w2), ch, BM, chPad, cout, ch);
    for (int buf = 0; item < items; item += gridDim.x, buf ^= 1) {
        const int next = item + gridDim.x;
        if (next < items) issueTile(next, buf ^ 1);  // its buffer's last readers finished before the barriers below
#if defined(__CUDA_ARCH__)
        if (next < items) asm volatile("cp.async.wait_group 1;\n" ::: "memory");
        else asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
        __syncthreads();  // this item's x tile (and, first time, the weights) visible to all
        const float* Xs = Xbuf + buf * kx * kPS;
        const int n = item / a.tilesP, p0 = (item % a.tilesP) * kTP;

        float acc[G2::MT][G2::NT][4];
        zeroAcc(acc);
        for (int h0 = 0; h0 < ch; h0 += HC) {
            const int hc = min(HC, ch - h0);
            const int mt1 = max(0, min(G1::MT, (hc - r1 + 15) / 16));
            float hacc[G1::MT][G1::NT][4];
            zeroAcc(hacc);
            if (mt1 > 0)
                warpGemm3xTf32<G1::MT, G1::NT>(hacc, W1h + (h0 + r1) * w1Stride, W1l + (h0 + r1) * w1Stride, w1Stride, Xs + c1, kPS,
                                               kx, mt1, g, t);
            if (h0 > 0) __syncthreads();  // the previous chunk's GEMM2 reads of Hs are done
            storeHiddenChunk(hacc, Hs, b1 ? b1 + h0 : b1, hc, a.hact, r1, c1, g, t);
            __syncthreads();
            if (mt2 > 0)
                warpGemm3xTf32<G2::MT, G2::NT>(acc, W2h + r2 * w2Stride + h0, W2l + r2 * w2Stride + h0, w2Stride, Hs + c2, kPS,
                                               (hc + 7) & ~7, mt2, g, t);
        }
        storeOutputTile<T>(acc, a, n, 0, p0, r2, c2, g, t);
        __syncthreads();  // every warp is done with this item's Xs and Hs before they are refilled
    }
    allowDependentLaunch();
}

inline std::atomic<int> gMlpTcPersistOverride{-1};  // test hook: -1 automatic, 0 off

// Whether the persistent form takes these (fp32) arguments: aligned with P % 4 == 0, Cin <= 64,
// Cout <= 64, shared memory within kPersistSmemMax.
inline bool mlpTcPersistentFits(const MlpArgs& a) {
    using namespace mlptc;
    if (!a.vec || a.cin > kKX || a.cout > 64) return false;
    const int bm = tileForCout(a.cout);
    return persistSmemFloats((a.cin + 7) / 8 * 8, (a.ch + 7) / 8 * 8, bm) * sizeof(float) <= kPersistSmemMax;
}

// Launches the persistent variant and returns true where it applies (mlpTcPersistentFits, the hook not
// off); else returns false (the caller runs the non-persistent kernel).
inline bool launchMlpTcPersistent(MlpArgs a, int64_t batch, int smCount, cudaStream_t stream, cudaError_t* err) {
    using namespace mlptc;
    if (gMlpTcPersistOverride.load() == 0 || !mlpTcPersistentFits(a)) return false;
    const int bm = tileForCout(a.cout);
    const int kx = (a.cin + 7) / 8 * 8, chPad = (a.ch + 7) / 8 * 8;
    const size_t smem = persistSmemFloats(kx, chPad, bm) * sizeof(float);
    const int64_t tilesP = (a.P + kTP - 1) / kTP, items = batch * tilesP;
    if (items > 0x7fffffff) return false;
    a.tilesP = static_cast<int>(tilesP);
    a.items = static_cast<int>(items);
    a.coutTiles = 1;
    a.kxRows = kx;
    const int64_t blocks = std::min<int64_t>(items, 2 * static_cast<int64_t>(smCount > 0 ? smCount : 132));
    static std::atomic<unsigned long long> optIn16{0}, optIn32{0}, optIn64{0};
    auto go = [&](auto kernel, std::atomic<unsigned long long>& optIn) {
        cudaError_t e = allowSmem(kernel, smem, optIn, kPersistSmemMax);
        if (e == cudaSuccess) e = launchKernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(kTcThreads), smem, stream, a);
        return e;
    };
    *err = bm == 16 ? go(pointwiseMlpTcPersistentKernel<16>, optIn16)
                    : bm == 32 ? go(pointwiseMlpTcPersistentKernel<32>, optIn32) : go(pointwiseMlpTcPersistentKernel<64>, optIn64);
    return true;
}

}  // namespace cuda
}  // namespace turbofno
