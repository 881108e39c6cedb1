#include "plan.h"

#include <algorithm>

#include "kernels.h"
#include "last_axis.h"

namespace turbofno {
namespace cpu {
namespace {

int64_t align16(int64_t n) { return (n + 15) / 16 * 16; }
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Channels per task: enough rows to keep the GEMM busy, yet at least ~2 tasks per thread.
int64_t channelBlock(int64_t batch, int64_t channels, int64_t rows, int threads) {
    int64_t block = std::min<int64_t>(channels, std::max<int64_t>(1, ceilDiv(256, rows)));
    while (block > 1 && batch * ceilDiv(channels, block) < 2 * static_cast<int64_t>(threads)) block = ceilDiv(block, 2);
    return block;
}

}  // namespace

CpuPlan makeCpuPlan(const core::SpectralConvShape& shape, bool separable, core::DataType dtype, int numThreads) {
    CpuPlan p;
    p.rank = shape.rank;
    p.batch = shape.batch;
    p.cin = shape.inChannels;
    p.cout = shape.outChannels;
    p.separable = separable;
    p.convert = dtype != core::DataType::kFloat32;
    p.skip = shape.hasSkip;
    p.threads = std::max(1, numThreads);
    const int d = p.rank;
    p.rows = 1;
    p.points = 1;
    p.rowsOut = 1;
    p.pointsOut = 1;
    p.modes = 1;
    for (int j = 0; j < d; ++j) {
        p.S[j] = shape.spatial[j];
        p.T[j] = core::outSize(shape, j);
        p.K[j] = shape.kept[j];
        p.points *= p.S[j];
        p.pointsOut *= p.T[j];
        p.modes *= p.K[j];
        if (j < d - 1) {
            p.rows *= p.S[j];
            p.rowsOut *= p.T[j];
        }
    }
    p.k = p.K[d - 1];
    p.specStride = align16(2 * p.modes);
    if ((p.specStride / 16) % 2 == 0) p.specStride += 16;

    p.fwdBlock = channelBlock(p.batch, p.cin, p.rows, p.threads);
    p.invBlock = channelBlock(p.batch, p.cout, p.rowsOut, p.threads);
    // d == 2: the forward's axis-1 GEMM always covers its block of channels (2k columns alone fill
    // the register tiles poorly); the inverse's only where one channel's last 16-column vector is at
    // most half full (2k = 17..24, 33..40, ..: measured faster; 2k = 14 measured 5% slower, the
    // per-channel last-axis calls that follow cost more than the fuller tiles save).
    p.blockInverseAxis = d == 2 && (2 * p.k) % 16 != 0 && (2 * p.k) % 16 <= 8;
    p.streamSkipOut = p.skip && !p.convert && p.batch * p.cout * p.pointsOut * 4 > kStreamOutBytes;
    // Mixing: a task owns the outputs Y[:, o0..o1, m0..m1] (kept in L2 while every input channel
    // is added in) and streams W[i, o0..o1, m0..m1], contiguous when the block spans all modes.
    const int64_t budget = 512 * 1024 / 8;  // complex values of Y per task
    p.mixModes = std::min<int64_t>(p.modes, std::max<int64_t>(64, budget / p.batch));
    p.mixOutBlock = std::min<int64_t>(p.cout, std::max<int64_t>(1, budget / (p.batch * p.mixModes)));
    auto mixTasks = [&p] { return ceilDiv(p.modes, p.mixModes) * ceilDiv(p.cout, p.mixOutBlock); };
    while (p.mixOutBlock > 1 && mixTasks() < 2 * static_cast<int64_t>(p.threads)) p.mixOutBlock = ceilDiv(p.mixOutBlock, 2);
    while (p.mixModes > 64 && mixTasks() < static_cast<int64_t>(p.threads)) p.mixModes = ceilDiv(p.mixModes, 2);

    // Skip epilogue chunks: [Cout][chunk] sums (L2) of about 128 KB, whole rows where they fit.
    if (p.skip) {
        const int64_t Sd = p.S[d - 1];
        const int64_t target = std::max<int64_t>(64, 32768 / p.cout);
        if (Sd <= target) {
            p.chunkCols = Sd;
            p.chunkRows = std::min(p.rows, std::max<int64_t>(1, target / Sd));
        } else {
            p.chunkCols = (target + 31) / 32 * 32;
            p.chunkRows = 1;
        }
        auto chunkTasks = [&p, Sd] { return p.batch * ceilDiv(p.rows, p.chunkRows) * ceilDiv(Sd, p.chunkCols); };
        while (p.chunkRows > 1 && chunkTasks() < 2 * static_cast<int64_t>(p.threads)) p.chunkRows = ceilDiv(p.chunkRows, 2);
        // Axis-1 inverse of d == 2: ~64 GEMM columns (a few channels of 2k) per task, >= 2 tasks per thread.
        if (d == 2) {
            p.lastBlock = std::min(p.cout, std::max<int64_t>(1, ceilDiv(64, 2 * p.k)));
            while (p.lastBlock > 1 && p.batch * ceilDiv(p.cout, p.lastBlock) < 2 * static_cast<int64_t>(p.threads))
                p.lastBlock = ceilDiv(p.lastBlock, 2);
        }
    }

    // The DFT tables grow like S_j * K_j: refuse (rather than overflow) absurd sizes. The rule is the
    // documented bound (docs/op.md), kept although the paired last-axis tables need about half of it.
    double tableFloats = 2.0 * static_cast<double>(p.S[d - 1] + p.T[d - 1]) * static_cast<double>(p.k);
    for (int j = 0; j + 1 < d; ++j)
        tableFloats += 2.0 * static_cast<double>(p.S[j] + p.T[j]) * static_cast<double>(p.K[j]);
    if (tableFloats > kMaxPlanFloats) {  // checked first: these products could overflow int64 bytes
        p.tooLarge = true;
        return p;
    }

    int64_t off = 0;
    auto take = [&off](int64_t n) { const int64_t at = off; off += align16(n); return at; };
    p.pairFwd = pairedForward(p.S[d - 1], p.k);
    // Skip layers with k <= 10 fold the plain last-axis inverse into the skip GEMM (2k more
    // multiply-adds per point, no pair product, unfold or sums pass: measured 2-4% faster at k = 7
    // and 9 on 32 channels, 1.5% slower at k = 13 on 64; with the AVX2 kernels 3% faster at k = 7,
    // equal at 9, 4% slower at 13). Otherwise the epilogue pairs its chunks' rows when they are whole
    // rows; column chunks of long rows read the plain table.
    constexpr int kFoldMaxModes = 10;
    p.skipFold = p.skip && p.k <= kFoldMaxModes;
    p.pairInv = pairedInverse(p.T[d - 1], p.k) && (!p.skip || (!p.skipFold && p.chunkCols == p.S[d - 1]));
    // The second fold (last_axis.h) on top of the pairing, where its rule (or the test override) says.
    p.quadFwd = p.pairFwd && quadForward(p.S[d - 1], p.k);
    p.quadInv = p.pairInv && quadInverse(p.T[d - 1], p.k);
    p.offFwdLast = take((p.quadFwd ? quadCount(p.S[d - 1]) : p.pairFwd ? pairCount(p.S[d - 1]) : p.S[d - 1]) * 2 * p.k);
    for (int j = 0; j + 1 < d; ++j) p.offFwdAxis[j] = take(2 * p.K[j] * p.S[j]);
    for (int j = 0; j + 1 < d; ++j) p.offInvAxis[j] = take(2 * p.T[j] * p.K[j]);
    p.offInvLast = take((p.quadInv  ? 2 * quadCount(p.T[d - 1])
                         : p.pairInv ? 2 * inversePairs(p.T[d - 1]) + 1
                                     : 2 * p.T[d - 1]) * p.k);
    p.tableFloats = off;

    off = 0;
    p.offXs = take(p.batch * p.cin * p.specStride);
    p.offYs = take(p.batch * p.cout * p.specStride);
    p.offBias = take(p.convert ? p.cout : 0);
    p.offLast = take(p.skip && d > 1 ? p.batch * p.rows * p.cout * 2 * p.k : 0);
    p.offSkipW = take(p.skip && p.convert ? p.cout * p.cin : 0);

    // Per-thread scratch.
    // The largest intermediate of one channel: forward [S_1..S_j, K_{j+1}..K_{d-1}, 2k] <= [S_1..S_{d-1}, 2k]
    // (K_j <= S_j); inverse [T_1..T_j, K_{j+1}..K_{d-1}, 2k], which can exceed both [S.., 2k] and
    // [T.., 2k] when an axis is upsampled (T_i > S_i) while a later one keeps more modes than it outputs
    // (K_j > T_j).
    int64_t inverseRows = 0;
    for (int j = 0; j + 1 < d; ++j) {
        int64_t r = 1;
        for (int i = 0; i + 1 < d; ++i) r *= i <= j ? p.T[i] : p.K[i];
        inverseRows = std::max(inverseRows, r);
    }
    const int64_t slab = std::max({p.rows, p.rowsOut, inverseRows}) * 2 * p.k;
    const int64_t block = std::max(p.fwdBlock, p.invBlock);
    int64_t t = 0;
    auto takeT = [&t](int64_t n) { const int64_t at = t; t += align16(n); return at; };
    p.tConv = takeT(p.convert ? block * std::max(p.points, p.pointsOut) : 0);
    p.tBig = takeT(block * slab);
    p.tBufA = takeT(slab);
    p.tBufB = takeT(slab);
    // d == 2: the axis-1 GEMMs cover a block of channels (forward, inverse, skip layer's inverse)
    const int64_t axisBlock = std::max({p.fwdBlock, p.invBlock, p.skip ? p.lastBlock : 1});
    p.tProd = takeT(std::max(2 * slab, d == 2 ? 2 * p.K[0] * axisBlock * 2 * p.k : 0));
    p.tWeight = takeT(p.convert ? kMaxMacRows * 2 * p.mixModes : 0);
    const int64_t chunk = p.chunkRows * p.chunkCols;
    p.tOut = takeT(p.skip && (!p.skipFold || p.convert) ? p.cout * sumsStride(chunk) : 0);
    p.tXc = takeT(p.skip && p.convert ? p.cin * chunk : 0);
    p.tLast = takeT(p.quadFwd || p.quadInv ? quadScratchFloats(p.k) : p.pairFwd || p.pairInv ? kLastScratchFloats : 0);
    p.threadFloats = align16(t);
    p.offThreads = off;
    p.workFloats = off + p.threadFloats * p.threads;
    if (static_cast<double>(p.workFloats) + static_cast<double>(p.tableFloats) > kMaxPlanFloats) p.tooLarge = true;
    return p;
}

}  // namespace cpu
}  // namespace turbofno
