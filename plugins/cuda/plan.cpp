// Host-side launch planning (see plan.h). Pure C++, no CUDA calls: the result depends on the shape only.
#include "plan.h"

#include <algorithm>
#include <atomic>

namespace turbofno {
namespace cuda {
namespace {

int ceilDiv(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }

// Smallest power of two >= ceil(k / kTile), at most 32: thread groups along a kept-mode axis.
int modeGroups(int k) {
    int g = 1;
    while (g < 32 && g * kTile < k) g *= 2;
    return g;
}

size_t align256(size_t v) { return (v + 255) / 256 * 256; }

std::atomic<int> gAlgoOverride{-1};
std::atomic<int> gMixRingOverride{-1};
std::atomic<int> gMixFlatOverride{-1};
std::atomic<int> gMixFlatBatchOverride{0}, gMixFlatWarpsOverride{0};
std::atomic<int> gPassTcOverride{-1};
std::atomic<int> gSkipTcOverride{-1};
std::atomic<int> gSkipCoLaunchOverride{-1};
std::atomic<int> gMixInC2ROverride{-1};

void planFlatMixing(Geometry& g) {
    // Small weight tensors (1D layers, Darcy-size 2D layers, small problems): lanes over o * Kall + m
    // (mixing_flat.cuh). The weights then sit in L2, so re-reading them per batch chunk is cheap, and
    // the warps along om (down to 2), the batch chunk, then the warps shrink until the grid has ~kTargetBlocks blocks.
    const size_t weightBytes = static_cast<size_t>(g.Cin) * g.Cout * g.Kall * 8;
    const int forced = gMixFlatOverride.load(std::memory_order_relaxed);
    // Measured at e7c7b40 (tests/gpu/logs/mix_flat_e7c7b40): flat wins with few kept modes (1D layers:
    // 32x64x256 m17 0.064 -> 0.042 ms per layer) and with few batch items and moderate spectra (1x64x64x64
    // m6 0.036 -> 0.026); it loses 3-8 % to the tiled kernel with many batch items and >= 84 modes
    // (32x64x64x64 m6) or very many modes (1x16x96x96x64 m16).
    const bool fits = weightBytes < kMixFlatMaxWeightBytes && (g.Kall <= 32 || (g.N <= 8 && g.Kall <= 1024));
    const bool flat = !g.separable && (forced >= 0 ? forced == 1 : fits);
    g.mixFlatOmWarps = 0;
    if (!flat) return;
    const int64_t omCount = static_cast<int64_t>(g.Cout) * g.Kall;
    auto blocks = [&](int omWarps, int nb) { return int64_t{ceilDiv(omCount, int64_t{32} * omWarps)} * ceilDiv(g.N, nb); };
    // Fewer warps along om first (down to 2), then fewer batch items per thread, then 1 warp. Measured at
    // 657c8d5 (tests/gpu/logs/s13_657c8d5/tune_mix.log, ms per layer, (items, warps) forced): 32x64x256 m17
    // (Burgers, batch 32) 0.0189 with (1, 4), the previous rule's choice, 0.0165 with (2, 2); 32x64x64x64 m6
    // (72 modes) 0.1126 with (1, 4), 0.1104 with (2, 2); batch 1 unchanged (1, 1).
    int nb = std::min(g.N, kMixMaxFlatBatch), omWarps = 8;
    while (omWarps > 2 && blocks(omWarps, nb) < kTargetBlocks) omWarps /= 2;
    while (nb > 1 && blocks(omWarps, nb) < kTargetBlocks) nb = static_cast<int>(ceilDiv(nb, 2));
    while (omWarps > 1 && blocks(omWarps, nb) < kTargetBlocks) omWarps /= 2;
    if (const int fb = gMixFlatBatchOverride.load(std::memory_order_relaxed); fb > 0) nb = std::min(fb, kMixMaxFlatBatch);
    if (const int fw = gMixFlatWarpsOverride.load(std::memory_order_relaxed); fw > 0) omWarps = fw;
    g.mixFlatOmWarps = omWarps;
    g.mixBatch = nb;
}

// The mixing inside the C2R (mixing_c2r.cuh): a 1D layer whose only inverse pass is a radix-2 C2R reading
// the mixed spectrum, whose blocks hold lines of one batch item (Cout % L == 0) and whose weights the flat
// mixing kernel would take (small, L2-resident: every batch item's blocks re-read their rows) or are
// separable. Input channels split over G thread groups so that G * L * K fills the block's 256 threads; taken
// only where each thread then sums at most kMixInC2RMaxChain channels (the prologue is on every block's
// critical path). Measured at bcf7acd (tests/gpu/logs/mix_c2r_s17, us per layer, CUDA graph of 10 calls,
// mixing kernel / in the C2R, channels per thread): 1x64x256 m17 6.9 / 6.2 (5), 8x64x256 m17 9.7 / 9.5 (5),
// 4x64x512 m33 9.2 / 8.7 (10), 16x32x1024 m16 22.6 / 22.6 (2); 32x64x256 m17 16.7 / 17.0 (22), 64x64x256 m17
// 26.9 / 29.2 (64).
// A 2D layer on the plane kernels: the inverse plane computes its own mixed bins (fft_plane.cuh,
// mixPlaneIntoColumns) from the forward spectrum, input channels split over as many thread groups as the block's
// threads allow (partial sums in the plane's row buffer): two kernels instead of three, but every output plane's
// block re-reads its input channels' spectra and weights, so only while the whole mixing is small
// (kMixInPlaneMaxMacs). Measured on the H200 (2026-12-05, tests/gpu/logs/plane_mix_s22, us per layer, CUDA graph
// of 10 calls, mixing kernel / inside, complex MACs of the mixing): 1x8x48x48 m12 13.8 / 11.6 (0.07M),
// 1x32x64x64 m16 14.4 / 12.6 (0.5M), 1x32x32x32 m8 11.0 / 8.6 (0.13M), 8x32x64x64 m8 21.4 / 17.0 (1.0M),
// 4x32x48x48 m12 19.8 / 18.2 (1.2M), 1x64x64x64 m16 17.6 / 16.7 (2.1M), 16x32x32x32 m8 24.3 / 19.5 (2.1M),
// 32x32x64x64 m6 46.3 / 46.3 (2.4M), 32x64x64x64 m6 85.3 / 85.2 (9.4M), 8x64x64x64 m16 37.5 / 52.6 (16.8M).
void planMixInPlane(Plan& plan) {
    const Geometry& g = plan.g;
    SeparablePlan& sp = plan.sep;
    if (plan.algo != Algorithm::kSeparable || !plan.supported || sp.nInv != 2 || sp.inv[0].src != Buffer::kSpecOut) return;
    DftPass &col = sp.inv[0].pass, &c = sp.inv[1].pass;
    const int q = col.K * col.b.inner;
    if (q != g.Kall || g.N * g.Cout != col.N / col.b.inner) return;
    int groups = g.separable ? 1 : std::max(1, std::min(g.Cin, sp.plane / q));
    while (groups > 1 && !fftPlaneMixGroupsFit(col.S, c.S, q, groups)) --groups;
    const int64_t macs = static_cast<int64_t>(g.N) * g.Cout * (g.separable ? 1 : g.Cin) * q;
    const int forced = gMixInC2ROverride.load(std::memory_order_relaxed);
    if (!(forced >= 0 ? forced == 1 : macs <= kMixInPlaneMaxMacs)) return;
    plan.mixInC2R = true;
    c.mixCin = g.Cin;
    c.mixCout = g.Cout;
    c.mixKall = q;
    c.mixSeparable = g.separable;
    c.mixGroups = groups;
    sp.inv[0].src = Buffer::kSpecIn;
}

void planMixInC2R(Plan& plan) {
    const Geometry& g = plan.g;
    SeparablePlan& sp = plan.sep;
    plan.mixInC2R = false;
    if (sp.plane) return planMixInPlane(plan);
    if (plan.algo != Algorithm::kSeparable || !plan.supported || sp.nInv != 1) return;
    PassStep& st = sp.inv[0];
    DftPass& c = st.pass;
    if (st.kind != PassKind::kC2R || st.src != Buffer::kSpecOut || !fftRadix2KernelRuns(c) || g.lead != 0 || c.K > g.Kall ||
        g.Cout % c.fftLines != 0 || c.N != g.N * g.Cout)
        return;
    const int q = c.fftLines * c.K;
    int groups = std::max(1, std::min(g.Cin, 256 / q));
    if (g.separable) groups = 1;
    if (fftRadix2SmemBytes(c.S, c.fftLines) + mixC2RSmemBytes(c.fftLines, c.K, groups) > kFftSmemLimit) return;
    const int forced = gMixInC2ROverride.load(std::memory_order_relaxed);
    const bool shortChain = g.separable || (g.Cin + groups - 1) / groups <= kMixInC2RMaxChain;  // separable: one product
    const bool wanted = forced >= 0 ? forced == 1 : (kMixInC2RDefault && shortChain && (g.separable || g.mixFlatOmWarps > 0));
    if (!wanted) return;
    plan.mixInC2R = true;
    c.mixCin = g.Cin;
    c.mixCout = g.Cout;
    c.mixKall = g.Kall;
    c.mixSeparable = g.separable;
    c.mixGroups = groups;
    st.src = Buffer::kSpecIn;
}

}  // namespace

Plan makePlan(const core::SpectralConvShape& shape, const core::SpectralConvAttrs* attrs) {
    Plan plan;
    Geometry& g = plan.g;
    const int d = shape.rank;
    g.lead = d - 1;
    double prodS = 1.0;
    for (int j = 0; j < g.lead; ++j) {
        g.S[j] = static_cast<int>(shape.spatial[j]);
        g.K[j] = static_cast<int>(shape.kept[j]);
        g.p[j] = attrs ? attrs->modesLow[j] : g.K[j];
        prodS *= static_cast<double>(g.S[j]);
    }
    g.Sd = static_cast<int>(shape.spatial[d - 1]);
    g.kd = static_cast<int>(shape.kept[d - 1]);
    prodS *= static_cast<double>(g.Sd);
    g.A = 1;
    g.KL = 1;
    for (int j = 0; j < g.lead; ++j) {
        g.A *= g.S[j];
        g.KL *= g.K[j];
    }
    g.Kall = g.KL * g.kd;
    g.N = static_cast<int>(shape.batch);
    g.Cin = static_cast<int>(shape.inChannels);
    g.Cout = static_cast<int>(shape.outChannels);
    g.separable = attrs ? attrs->separable : 0;
    g.hasBias = shape.hasBias ? 1 : 0;
    g.scale = static_cast<float>(1.0 / prodS);

    size_t tableBytes = static_cast<size_t>(g.Sd) * 8;
    for (int j = 0; j < g.lead; ++j) tableBytes += static_cast<size_t>(g.S[j]) * 8;

    // Forward: a block owns one plane, a 4*fGkl x 4*fGk3 tile of (leading, last-axis) modes and a row
    // range. Leading modes are covered by one tile where possible (a second leading tile would redo
    // the row stage); the last axis is tiled instead (each tile's row stage computes only its modes).
    g.fGkl = 1;
    while (g.fGkl < kThreads && g.fGkl * kTile < g.KL) g.fGkl *= 2;
    g.fGk3 = 1;
    while (g.fGk3 < kThreads / g.fGkl && g.fGk3 * kTile < g.kd) g.fGk3 *= 2;
    g.fGkl = kThreads / g.fGk3;
    g.fTilesK3 = ceilDiv(g.kd, kTile * g.fGk3);
    g.fTilesKL = ceilDiv(g.KL, kTile * g.fGkl);
    g.fRows = std::min(g.A, 2 * g.fGkl);  // the row stage's 2-row x 4-mode tiles: one pass
    const size_t pairs = static_cast<size_t>((g.Sd - 1) / 2);
    auto fwdSmem = [&](bool tables, int rows) {
        const size_t bk3 = static_cast<size_t>(kTile) * g.fGk3;
        return (tables ? tableBytes + pairs * bk3 * 8 : 0) + static_cast<size_t>(rows) * bk3 * 8 +
               static_cast<size_t>(rows) * (g.Sd + 1) * 4;
    };
    // Inverse: a block owns one output plane and iRows rows of it.
    g.iGk3 = modeGroups(g.kd);
    const int rowsPerPass = kTile * (kThreads / g.iGk3);
    g.iRows = std::min(g.A, rowsPerPass);
    const int64_t outPlanes = static_cast<int64_t>(g.N) * g.Cout;
    if (outPlanes * ceilDiv(g.A, g.iRows) < kTargetBlocks) {
        const int wanted = ceilDiv(kTargetBlocks, outPlanes);
        g.iRows = std::max(1, std::min(g.iRows, ceilDiv(g.A, wanted)));
    }
    g.iKlChunk = g.KL;
    auto invSmem = [&](bool tables, int klChunk, int rows) {
        return (tables ? tableBytes + static_cast<size_t>(g.kd) * 64 * 8 : 0) + static_cast<size_t>(klChunk) * g.kd * 8 +
               static_cast<size_t>(rows) * g.kd * 8;
    };

    // Shrink to the budget: drop the twiddle tables first (huge axes), then rows / staged modes.
    g.twTables = (fwdSmem(true, std::min(g.fRows, 4)) <= kSmemBudget && invSmem(true, 1, 1) <= kSmemBudget) ? 1 : 0;
    while (g.fRows > 1 && fwdSmem(g.twTables, g.fRows) > kSmemBudget) g.fRows = std::max(1, g.fRows / 2);
    while (g.iKlChunk > 1 && invSmem(g.twTables, g.iKlChunk, g.iRows) > kSmemBudget) g.iKlChunk = (g.iKlChunk + 1) / 2;
    while (g.iRows > 1 && invSmem(g.twTables, g.iKlChunk, g.iRows) > kSmemBudget) g.iRows = std::max(1, g.iRows / 2);
    plan.fwdSmem = fwdSmem(g.twTables, g.fRows);
    plan.invSmem = invSmem(g.twTables, g.iKlChunk, g.iRows);
    // d == 2 with the whole spectrum staged: the paired inverse needs 2 * pairSlots rows instead of KL
    if (g.lead == 1 && g.twTables && g.iKlChunk == g.KL) {
        const int p = attrs ? attrs->modesLow[0] : g.K[0];
        g.pairSlots = std::max(p, g.K[0] - p + 1);
        const size_t pairedSmem = invSmem(true, 2 * g.pairSlots, g.iRows);
        if (pairedSmem <= kSmemBudget) {
            g.pairLead = 1;
            plan.invSmem = std::max(plan.invSmem, pairedSmem);
        }
    }
    plan.fusedSupported = plan.fwdSmem <= kSmemBudget && plan.invSmem <= kSmemBudget;

    // Forward row split: small problems get more blocks; partial spectra are summed by the mixing kernel.
    const int64_t fwdBlocks = static_cast<int64_t>(g.N) * g.Cin * g.fTilesK3 * g.fTilesKL;
    g.split = 1;
    if (fwdBlocks < kTargetBlocks) g.split = static_cast<int>(std::min<int64_t>(kMaxSplit, ceilDiv(kTargetBlocks, fwdBlocks)));
    g.split = std::max(1, std::min(g.split, g.A / 4));  // keep at least ~4 rows per split
    g.rowsPerSplit = ceilDiv(g.A, g.split);
    g.split = ceilDiv(g.A, g.rowsPerSplit);
    g.fRows = std::min(g.fRows, g.rowsPerSplit);

    // Mixing: stage as many batch items (<= 8, the register accumulators) x input channels as fit in
    // 64 KB (two blocks per SM): a batch chunk of N reads every weight once.
    constexpr size_t kMixSmem = 64 * 1024;
    g.mixIn = std::min(g.Cin, 256);
    g.mixBatch = static_cast<int>(std::min<size_t>({static_cast<size_t>(g.N), 8, kMixSmem / (static_cast<size_t>(g.mixIn) * 32 * 8)}));
    if (g.mixBatch < 1) g.mixBatch = 1;
    if (g.mixBatch < std::min(g.N, 8)) {  // many channels: fewer channels per stage, full batch chunk
        g.mixBatch = std::min(g.N, 8);
        g.mixIn = static_cast<int>(std::max<size_t>(1, kMixSmem / (static_cast<size_t>(g.mixBatch) * 32 * 8)));
        g.mixIn = std::min(g.mixIn, g.Cin);
    }
    plan.mixSmem = static_cast<size_t>(g.mixBatch) * g.mixIn * 32 * 8;
    // The grid has one block per (mode tile, output tile, batch chunk of mixBatch items).
    // Small problems: fewer warps (output channels) per block, so that about one block per SM runs
    // (1x32x64x64 m16: 32 blocks of 8 warps -> 128 blocks of 2). Only while each warp stages at most
    // 16 rows per step: every block stages the whole spectrum chunk, so with large chunks more,
    // smaller blocks multiply the staging (measured: 32x64x128x128 m16 0.513 -> 0.550 ms).
    const int64_t mixTiles = static_cast<int64_t>(ceilDiv(g.Kall, 32)) * ceilDiv(g.N, g.mixBatch);  // x batch chunks
    const int64_t mixRows = static_cast<int64_t>(g.mixBatch) * g.mixIn;
    // Tiny spectra (1D layers: a few dozen modes) restage cheaply from L2 however many blocks read
    // them: there the limit is the total staged bytes (<= 16 MB), not the rows per warp. (Measured
    // slower at 8x256x1024 m256, where the weights dominate: halving there, 131 -> 154 us; reading the
    // spectrum from global memory without staging, 131 -> 303 us.)
    const size_t specBytes = static_cast<size_t>(g.N) * g.Cin * g.Kall * 8;
    g.mixWarps = 8;
    while (g.mixWarps > 2 && mixTiles * ceilDiv(g.Cout, 2 * g.mixWarps) < kTargetBlocks / 2) {
        const size_t staged = specBytes * ceilDiv(g.Cout, g.mixWarps);  // after halving
        if (!(mixRows <= 16 * (g.mixWarps / 2) || staged <= (16u << 20))) break;
        g.mixWarps /= 2;
    }
    planFlatMixing(g);
    if (g.mixFlatOmWarps) plan.mixSmem = 0;  // the flat kernel's shared memory is static
    const int ringForced = gMixRingOverride.load(std::memory_order_relaxed);
    // The weight ring pays once a thread has enough multiply-add steps (batch items x input channels) to
    // amortise its prologue. Measured at 70e8083 (tests/gpu/logs/mix_ring_s19, ms per layer, no ring / ring):
    // 1x64x128x128 m32 (64 steps) 0.0500 / 0.0522; from 128 steps about equal or faster with the ring:
    // 4x32x128x128 m32 0.0348 / 0.0342, 8x64x128x128 m32 0.0980 / 0.0935, 8x256x1024 m256 0.108 / 0.080
    // (4x256x1024 m256 the exception: 0.080 / 0.090). A 16-deep ring was never faster than the 8-deep one.
    const bool ringPays = static_cast<int64_t>(g.mixBatch) * g.Cin >= 128;
    g.mixRing = (g.separable || g.mixFlatOmWarps) ? 0 : (ringForced >= 0 ? ringForced : (ringPays ? 1 : 0));
    if (g.mixRing) plan.mixSmem += mixRingBytes(32 * g.mixWarps);
    // the skip GEMM: tensor cores (3xTF32) unless a test forces the FMA kernel
    plan.skipTc = gSkipTcOverride.load(std::memory_order_relaxed) != 0;

    const size_t kall = static_cast<size_t>(g.Kall);
    plan.specInOffset = 0;
    plan.specInBytes = static_cast<size_t>(g.split) * g.N * g.Cin * kall * 8;
    plan.specOutOffset = align256(plan.specInBytes);
    plan.specOutBytes = static_cast<size_t>(g.N) * g.Cout * kall * 8;
    const size_t fusedBytes = plan.specOutOffset + align256(plan.specOutBytes);

    // Both algorithms share the workspace (only one runs per launch): it fits either, so that the
    // test / benchmark override never needs another size.
    plan.sep = planSeparable(shape, attrs);
    if (const int tcForced = gPassTcOverride.load(std::memory_order_relaxed); tcForced >= 0) {
        for (int i = 0; i < plan.sep.nFwd; ++i) plan.sep.fwd[i].pass.tensorCores = tcForced;
        for (int i = 0; i < plan.sep.nInv; ++i) plan.sep.inv[i].pass.tensorCores = tcForced;
    }
    // the fused plane writes y at the input size; a fused layer's skip goes to y first (skip GEMM),
    // the inverse adds the spectral part, the bias and the activation
    if (core::resamples(shape)) plan.fusedSupported = false;
    g.addY = shape.hasSkip ? 1 : 0;
    g.activation = attrs ? static_cast<int>(attrs->activation) : 0;
    plan.workspaceBytes = std::max(plan.fusedSupported ? fusedBytes : 0, plan.sep.supported ? plan.sep.bytes : 0);
    const int forced = gAlgoOverride.load(std::memory_order_relaxed);
    Algorithm algo = forced < 0 ? chooseAlgorithm(shape, &plan.sep) : static_cast<Algorithm>(forced);
    if (algo == Algorithm::kFusedPlane && !plan.fusedSupported) algo = Algorithm::kSeparable;
    if (algo == Algorithm::kSeparable && !plan.sep.supported) algo = Algorithm::kFusedPlane;
    plan.algo = algo;
    plan.supported = algo == Algorithm::kFusedPlane ? plan.fusedSupported : plan.sep.supported;
    plan.whyNot = plan.supported ? "" : plan.sep.whyNot;
    if (algo == Algorithm::kSeparable) plan.g.split = 1;  // separable partials are summed before mixing
    // A fused layer's skip GEMM reads only x, as does the first forward pass: where that pass is a
    // radix-2 R2C (small 1D layers, e.g. Burgers), both run as one grid (skip_r2c_colaunch.cuh), two
    // latency-bound kernels side by side instead of one after the other.
    const SeparablePlan& sp = plan.sep;
    const bool coLaunchable = algo == Algorithm::kSeparable && plan.supported && plan.skipTc && sp.skipPoints > 0 &&
                              !sp.plane && sp.nFwd > 0 && sp.fwd[0].kind == PassKind::kR2C && sp.fwd[0].src == Buffer::kX &&
                              fftRadix2KernelRuns(sp.fwd[0].pass);
    const int coForced = gSkipCoLaunchOverride.load(std::memory_order_relaxed);
    plan.skipCoLaunch = coLaunchable && (coForced >= 0 ? coForced == 1 : kSkipCoLaunchDefault);
    planMixInC2R(plan);
    return plan;
}

Algorithm chooseAlgorithm(const core::SpectralConvShape& shape, const SeparablePlan* sep) {
    // Measured on the H200 (bench/results/, plugins/cuda/README.md): the fused plane kernels win only
    // for 2D planes of moderate size and modes; 1D (one row per block) and 3D (joint leading-axis
    // accumulation) always run separable.
    if (shape.rank != 2) return Algorithm::kSeparable;
    const int64_t plane = shape.spatial[0] * shape.spatial[1];
    const int64_t kd = shape.kept[1];
    if (kd >= kSeparableFromModes || plane > kSeparableFromPlane) return Algorithm::kSeparable;
    // With FFT last-axis passes (plan_separable.h) and the compile-time column FFTs the separable algorithm
    // wins everywhere but on tiny problems. Measured at 446e389 (tests/gpu/logs/algo_s18/tune_2d_algo_446e389.md,
    // ms, fused / separable): 1x8x48x48 m12 (384 rows) 0.0173 / 0.0196; separable from 1x16x64x64 m16 (1024 rows,
    // 0.0206 / 0.0145) on, e.g. 4x32x48x48 m12 0.0303 / 0.0259, 4x64x64x64 m12 0.0504 / 0.0397, 8x32x64x64 m16
    // 0.0454 / 0.0360, 8x32x96x96 m24 0.0775 / 0.0663, 32x32x96x96 m8 0.1625 / 0.1485; 4x64x64x64 m6 0.0345 /
    // 0.0331 and 8x32x96x96 m8 0.0488 / 0.0482 (the previous rule's other fused-plane shapes) about equal.
    // The plane kernels (fft_plane.cuh) took the last of those, 1x8x48x48 m12, from 0.0167 (fused plane) to 0.0133 ms
    // (tests/gpu/logs/plane_s20): shapes they take run separable.
    if (lastAxisUsesFft(shape)) {
        const int64_t rows = shape.batch * shape.inChannels * shape.spatial[0];
        if (rows > kFftFusedMaxRows) return Algorithm::kSeparable;
        if ((sep ? sep->plane : planSeparable(shape, nullptr).plane) != 0) return Algorithm::kSeparable;
    }
    return Algorithm::kFusedPlane;
}

void setAlgorithmOverride(int mode) { gAlgoOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }
void setMixRingOverride(int mode) { gMixRingOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }
void setMixInC2ROverride(int mode) { gMixInC2ROverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }
void setMixFlatOverride(int mode) { gMixFlatOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }
void setMixFlatGeometryOverride(int batch, int omWarps) {
    gMixFlatBatchOverride.store(batch == 1 || batch == 2 || batch == 4 || batch == 8 ? batch : 0);
    gMixFlatWarpsOverride.store(omWarps == 1 || omWarps == 2 || omWarps == 4 || omWarps == 8 ? omWarps : 0);
}
void setPassTcOverride(int mode) { gPassTcOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }
void setSkipTcOverride(int mode) { gSkipTcOverride.store(mode < 0 ? -1 : (mode >= 1 && mode <= 3 ? mode : 0)); }
void setSkipCoLaunchOverride(int mode) { gSkipCoLaunchOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }
int skipTcTileOverride() {
    const int mode = gSkipTcOverride.load(std::memory_order_relaxed);
    return mode == 2 ? 32 : mode == 3 ? 128 : 0;
}

size_t workspaceBound(const core::SpectralConvShape& maxShape) {
    // Every buffer is a product of sizes except the forward row split, which is at most kMaxSplit.
    size_t kall = 1;
    for (int j = 0; j < maxShape.rank; ++j) kall *= static_cast<size_t>(maxShape.kept[j]);
    const size_t n = static_cast<size_t>(maxShape.batch);
    const size_t fused = align256(static_cast<size_t>(kMaxSplit) * n * maxShape.inChannels * kall * 8) +
                         align256(n * maxShape.outChannels * kall * 8);
    return std::max(fused, separableWorkspaceBytes(maxShape));
}

}  // namespace cuda
}  // namespace turbofno
