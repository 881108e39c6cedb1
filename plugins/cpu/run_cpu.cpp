// runCpu: forward truncated DFT -> per-mode channel mixing -> inverse truncated DFT, each stage a
// parallel loop over independent tasks, every DFT a small GEMM against precomputed tables.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

#include "convert.h"
#include "kernels.h"
#include "last_axis.h"
#include "plan.h"
#include "stage_times.h"
#include "table_cache.h"
#include "transforms.h"
#include "turbofno/cpu.h"
#include "twiddle.h"

namespace turbofno {
namespace core {
namespace {

using cpu::CpuPlan;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

double msSince(std::chrono::steady_clock::time_point& t) {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
    return ms;
}

int resolveThreads(int numThreads) { return numThreads > 0 ? std::min(numThreads, 1024) : defaultCpuThreads(); }

struct Run {
    const CpuPlan& plan;
    const SpectralConvParams& params;
    const cpu::CpuKernels& kern;
    const float* tab;  // aligned DFT tables (plan.tableFloats)
    float* base;       // aligned work region (plan.workFloats)

    const float* tables() const { return tab; }
    float* xs() const { return base + plan.offXs; }
    float* ys() const { return base + plan.offYs; }
    float* thread(int worker) const { return base + plan.offThreads + worker * plan.threadFloats; }
    cpu::AxisScratch axisScratch(int worker) const {
        float* t = thread(worker);
        return {t + plan.tBufA, t + plan.tBufB, t + plan.tProd};
    }

    // Task: channels [c0, c0 + count) of batch n -> their kept spectrum in Xs.
    void forward(int64_t task, int worker) const {
        const int64_t blocks = ceilDiv(plan.cin, plan.fwdBlock);
        const int64_t n = task / blocks, c0 = (task % blocks) * plan.fwdBlock;
        const int64_t count = std::min(plan.fwdBlock, plan.cin - c0);
        const int64_t first = (n * plan.cin + c0) * plan.points;  // element offset into x
        const int64_t cols = 2 * plan.k;
        float* t = thread(worker);
        const float* x;
        if (plan.convert) {
            cpu::loadAsFloat(static_cast<const uint16_t*>(params.x) + first, params.dtype, count * plan.points,
                             t + plan.tConv);
            x = t + plan.tConv;
        } else {
            x = static_cast<const float*>(params.x) + first;
        }
        float* spec = xs() + (n * plan.cin + c0) * plan.specStride;
        if (plan.rank == 2) {  // [S_1][count][2k], then one axis-1 GEMM for the block
            float* lastAxis = t + plan.tBig;
            for (int64_t c = 0; c < count; ++c)
                cpu::forwardLastAxis(plan, kern, tables() + plan.offFwdLast, x + c * plan.points, plan.rows,
                                     lastAxis + c * cols, count * cols, t + plan.tLast);
            cpu::forwardAxis2dBlock(plan, kern, tables(), lastAxis, count, spec, plan.specStride, axisScratch(worker).prod);
            return;
        }
        // [count][R][2k]; rank 1: straight into the spectrum (one row per channel)
        float* lastAxis = plan.rank == 1 ? spec : t + plan.tBig;
        const int64_t ldLast = plan.rank == 1 ? plan.specStride : cols;
        cpu::forwardLastAxis(plan, kern, tables() + plan.offFwdLast, x, count * plan.rows, lastAxis, ldLast,
                             t + plan.tLast);
        if (plan.rank == 1) return;
        for (int64_t c = 0; c < count; ++c)
            cpu::forwardAxes(plan, kern, tables(), lastAxis + c * plan.rows * cols, spec + c * plan.specStride,
                             axisScratch(worker));
    }

    // Task: Y[:, o0..o1, m0..m1] = sum_i X[:, i, m0..m1] * W[i, o, m0..m1]. Input channels go in
    // groups of kMaxMacRows so y is read and written once per group; the loop over o inside a group
    // reads W[i, o0..o1, ..] in address order.
    void mix(int64_t task, int worker) const {
        const int64_t modeBlocks = ceilDiv(plan.modes, plan.mixModes);
        const int64_t m0 = (task % modeBlocks) * plan.mixModes;
        const int64_t o0 = (task / modeBlocks) * plan.mixOutBlock;
        const int64_t mc = std::min(plan.mixModes, plan.modes - m0);
        const int64_t oEnd = std::min(plan.cout, o0 + plan.mixOutBlock);
        float* wBuf = thread(worker) + plan.tWeight;
        auto yAt = [&](int64_t n, int64_t o) { return ys() + (n * plan.cout + o) * plan.specStride + m0 * 2; };
        auto xAt = [&](int64_t n, int64_t i) -> const float* { return xs() + (n * plan.cin + i) * plan.specStride + m0 * 2; };
        // Weight row (i, o) restricted to this mode block, as fp32 (converted into slot r if needed).
        auto wAt = [&](int64_t i, int64_t o, int r) -> const float* {
            const int64_t off = ((i * (plan.separable ? 1 : plan.cout) + (plan.separable ? 0 : o)) * plan.modes + m0) * 2;
            if (!plan.convert) return static_cast<const float*>(params.weight) + off;
            float* dst = wBuf + r * 2 * plan.mixModes;
            cpu::loadAsFloat(static_cast<const uint16_t*>(params.weight) + off, params.dtype, 2 * mc, dst);
            return dst;
        };
        for (int64_t n = 0; n < plan.batch; ++n)
            for (int64_t o = o0; o < oEnd; ++o) std::fill(yAt(n, o), yAt(n, o) + 2 * mc, 0.0f);
        const int64_t yStride = plan.cout * plan.specStride, xStride = plan.cin * plan.specStride;  // per batch
        const float* xp[cpu::kMaxMacRows];
        const float* wp[cpu::kMaxMacRows];
        if (plan.separable) {
            for (int64_t o = o0; o < oEnd; ++o) {
                wp[0] = wAt(o, 0, 0);
                xp[0] = xAt(0, o);
                kern.complexMac(yAt(0, o), yStride, xp, xStride, wp, 1, plan.batch, mc);
            }
            return;
        }
        for (int64_t i0 = 0; i0 < plan.cin; i0 += cpu::kMaxMacRows) {
            const int rows = static_cast<int>(std::min<int64_t>(cpu::kMaxMacRows, plan.cin - i0));
            for (int64_t o = o0; o < oEnd; ++o) {
                for (int r = 0; r < rows; ++r) {
                    wp[r] = wAt(i0 + r, o, r);
                    xp[r] = xAt(0, i0 + r);
                }
                kern.complexMac(yAt(0, o), yStride, xp, xStride, wp, rows, plan.batch, mc);
            }
        }
    }

    // Task: output channels [o0, o0 + count) of batch n from their spectrum in Ys, bias added.
    void inverse(int64_t task, int worker) const {
        const int64_t blocks = ceilDiv(plan.cout, plan.invBlock);
        const int64_t n = task / blocks, o0 = (task % blocks) * plan.invBlock;
        const int64_t count = std::min(plan.invBlock, plan.cout - o0);
        const int64_t first = (n * plan.cout + o0) * plan.pointsOut;
        const int64_t cols = 2 * plan.k;
        float* t = thread(worker);
        const float* spec = ys() + (n * plan.cout + o0) * plan.specStride;
        const float* bias = nullptr;
        if (params.shape.hasBias)
            bias = (plan.convert ? base + plan.offBias : static_cast<const float*>(params.bias)) + o0;
        float* out = plan.convert ? t + plan.tConv : static_cast<float*>(params.y) + first;
        const int32_t act = static_cast<int32_t>(params.attrs.activation);
        const int64_t Td = plan.T[plan.rank - 1];
        if (plan.blockInverseAxis) {  // one axis-1 GEMM for the block into [T_1][count][2k], then per channel
            float* lastAxis = t + plan.tBig;
            cpu::inverseAxis2dBlock(plan, kern, tables(), spec, plan.specStride, count, lastAxis, count * cols,
                                    axisScratch(worker).prod);
            for (int64_t o = 0; o < count; ++o)
                cpu::inverseLastAxis(plan, kern, tables() + plan.offInvLast, lastAxis + o * cols, count * cols,
                                     plan.rowsOut, out + o * plan.pointsOut, Td, bias ? bias + o : nullptr,
                                     plan.rowsOut, !plan.convert && act == 0, t + plan.tLast);
        } else {
            const float* lastAxis = spec;  // [count][R][2k]; rank 1: the spectrum itself, one row per channel
            int64_t ldLast = plan.specStride;
            if (plan.rank > 1) {
                for (int64_t o = 0; o < count; ++o)
                    cpu::inverseAxes(plan, kern, tables(), spec + o * plan.specStride,
                                     t + plan.tBig + o * plan.rowsOut * cols, axisScratch(worker));
                lastAxis = t + plan.tBig;
                ldLast = cols;
            }
            cpu::inverseLastAxis(plan, kern, tables() + plan.offInvLast, lastAxis, ldLast, count * plan.rowsOut, out,
                                 Td, bias, plan.rowsOut, !plan.convert && act == 0, t + plan.tLast);
        }
        if (act != 0) kern.activation(out, out, count * plan.pointsOut, act);  // the block is still in cache
        if (plan.convert)
            cpu::storeFromFloat(out, params.dtype, count * plan.pointsOut, static_cast<uint16_t*>(params.y) + first);
    }

    // --- With a skip weight the inverse runs in two passes, so that the skip GEMM sees all Cout
    // output channels of a chunk of points at once (x is read once, y written once):
    // 1. inverseLast (d > 1): Ys -> Last[n][r][o][2k], the spectra before the last-axis inverse,
    //    output channel innermost so that one last-axis inverse covers every channel of a row;
    // 2. skipEpilogue: per chunk, y = act(bias + the last-axis inverse of Last + W_skip x), converted
    //    and stored; the inverse either folded into the skip GEMM (plan.skipFold) or computed first
    //    into the chunk's sums (paired when the chunk holds whole rows).

    // Task: output channels [o0, o0 + count) of batch n (d == 2: blocks of plan.lastBlock, one GEMM;
    // else one channel per task).
    void inverseLast(int64_t task, int worker) const {
        const int64_t block = plan.rank == 2 ? plan.lastBlock : 1, blocks = ceilDiv(plan.cout, block);
        const int64_t n = task / blocks, o0 = (task % blocks) * block, count = std::min(block, plan.cout - o0);
        const int64_t cols = 2 * plan.k;
        float* last = base + plan.offLast + (n * plan.rows * plan.cout + o0) * cols;  // rows Cout * 2k apart
        const float* spec = ys() + (n * plan.cout + o0) * plan.specStride;
        if (plan.rank == 2)
            cpu::inverseAxis2dBlock(plan, kern, tables(), spec, plan.specStride, count, last, plan.cout * cols,
                                    axisScratch(worker).prod);
        else
            cpu::inverseAxes(plan, kern, tables(), spec, last, axisScratch(worker), plan.cout * cols);
    }

    // Task: points [r * S_d + c0, + cc) for r in [r0, r1) of batch n, every output channel.
    void skipEpilogue(int64_t task, int worker) const {
        const int64_t Sd = plan.S[plan.rank - 1], cols = 2 * plan.k;
        const int64_t colChunks = ceilDiv(Sd, plan.chunkCols), rowChunks = ceilDiv(plan.rows, plan.chunkRows);
        const int64_t n = task / (rowChunks * colChunks);
        const int64_t r0 = (task / colChunks % rowChunks) * plan.chunkRows;
        const int64_t c0 = (task % colChunks) * plan.chunkCols;
        const int64_t nr = std::min(plan.chunkRows, plan.rows - r0), cc = std::min(plan.chunkCols, Sd - c0);
        const int64_t len = nr * cc, p0 = r0 * Sd + c0;  // a contiguous span of points (cc == S_d or nr == 1)
        float* t = thread(worker);
        float* sums = t + plan.tOut;  // [Cout][len], row stride ldSums
        const int64_t ldSums = cpu::sumsStride(len);
        const float* xb;
        int64_t ldx;
        const float* skipW;
        const float* bias = nullptr;
        if (plan.convert) {
            float* xc = t + plan.tXc;
            const uint16_t* x16 = static_cast<const uint16_t*>(params.x) + n * plan.cin * plan.points + p0;
            for (int64_t i = 0; i < plan.cin; ++i) cpu::loadAsFloat(x16 + i * plan.points, params.dtype, len, xc + i * len);
            xb = xc;
            ldx = len;
            skipW = base + plan.offSkipW;
            if (params.shape.hasBias) bias = base + plan.offBias;
        } else {
            xb = static_cast<const float*>(params.x) + n * plan.cin * plan.points + p0;
            ldx = plan.points;
            skipW = static_cast<const float*>(params.skipWeight);
            if (params.shape.hasBias) bias = static_cast<const float*>(params.bias);
        }
        const int32_t act = static_cast<int32_t>(params.attrs.activation);
        const int64_t y0 = n * plan.cout * plan.points + p0;
        cpu::SkipEpilogueArgs e;
        e.M = plan.cout;
        e.K = plan.cin;
        e.W = skipW;
        e.ldw = plan.cin;
        e.ldx = ldx;
        e.activation = act;
        e.streamY = plan.streamSkipOut;
        // Converted outputs go through the sums, then to fp16 / bf16.
        float* yf = plan.convert ? sums : static_cast<float*>(params.y) + y0;
        e.ldy = plan.convert ? ldSums : plan.points;
        // Last[n][r] (rank 1: the spectra Ys[n]) holds the Cout rows of 2k values of row r.
        auto lastRow = [&](int64_t r) {
            return plan.rank == 1 ? ys() + n * plan.cout * plan.specStride
                                  : base + plan.offLast + (n * plan.rows + r) * plan.cout * cols;
        };
        const int64_t ldLast = plan.rank == 1 ? plan.specStride : cols;
        if (plan.skipFold) {
            // y = act(bias + Last[r] Fi[:, c0..] + W_skip x), row by row: one GEMM with two products
            e.N = cc;
            e.K2 = cols;
            e.ldl = ldLast;
            e.F = tables() + plan.offInvLast + c0;
            e.ldf = Sd;
            e.bias = bias;
            for (int64_t r = r0; r < r0 + nr; ++r) {
                e.X = xb + (r - r0) * cc;
                e.L = lastRow(r);
                e.Y = yf + (r - r0) * cc;
                kern.skipEpilogue(e);
            }
        } else {
            // sums = last-axis inverse + bias, per row over all channels (paired on whole rows), then
            // y = act(sums + W_skip x) over the chunk
            for (int64_t r = r0; r < r0 + nr; ++r) {
                float* dst = sums + (r - r0) * cc;
                if (plan.pairInv)  // whole rows (cc == S_d)
                    cpu::inverseLastAxis(plan, kern, tables() + plan.offInvLast, lastRow(r), ldLast, plan.cout, dst,
                                         ldSums, bias, 1, false, t + plan.tLast);
                else
                    kern.sgemm(plan.cout, cc, cols, lastRow(r), ldLast, tables() + plan.offInvLast + c0, Sd, dst,
                               ldSums, bias, 1, false, false);
            }
            e.N = len;
            e.X = xb;
            e.C = sums;
            e.ldc = ldSums;
            e.Y = yf;
            kern.skipEpilogue(e);
        }
        if (plan.convert)
            for (int64_t o = 0; o < plan.cout; ++o)
                cpu::storeFromFloat(sums + o * ldSums, params.dtype, len,
                                    static_cast<uint16_t*>(params.y) + y0 + o * plan.points);
    }
};

// One stage: `workers` loops pulling task indices from a shared counter; worker w uses scratch slot w.
struct Stage {
    const Run* run;
    void (Run::*task)(int64_t, int) const;
    int64_t numTasks;
    std::atomic<int64_t> next{0};
};

void stageWorker(void* ctx, int worker) {
    Stage& s = *static_cast<Stage*>(ctx);
    for (int64_t t = s.next.fetch_add(1); t < s.numTasks; t = s.next.fetch_add(1)) (s.run->*s.task)(t, worker);
}

Status runStage(ParallelFor& parallel, int workers, const Run& run, void (Run::*task)(int64_t, int) const,
                int64_t numTasks) {
    Stage stage{&run, task, numTasks};
    const int64_t w = std::min<int64_t>(workers, numTasks);
    if (w <= 1) {  // no thread hand-off for one loop
        stageWorker(&stage, 0);
        return Status::success();
    }
    return parallel.run(static_cast<int>(w), stageWorker, &stage);
}

// The message for a plan over kMaxPlanFloats, with the numbers that decide it (docs/op.md, "CPU limits").
std::string tooLargeMessage(const SpectralConvShape& s, int workers) {
    double tables = 0;
    for (int j = 0; j < s.rank; ++j)
        tables += 2.0 * static_cast<double>(s.spatial[j] + outSize(s, j)) * static_cast<double>(s.kept[j]);
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "runCpu: shape too large for the CPU kernel: its truncated-DFT tables need %.4g floats "
                  "(2 x sum over the axes of (S_j + T_j) x K_j) and with the spectra and the scratch of "
                  "%d worker(s) the total exceeds the limit of 2^32 floats (16 GiB); keep fewer modes or split the axis",
                  tables, workers);
    return buf;
}

Status checkParams(const SpectralConvParams& params) {
    const SpectralConvShape& s = params.shape;
    if (s.rank < 1 || s.rank > kMaxRank) return Status::error("runCpu: spatial rank must be 1, 2 or 3");
    if (s.batch <= 0 || s.inChannels <= 0 || s.outChannels <= 0) return Status::error("runCpu: empty tensor");
    if (params.attrs.separable && s.inChannels != s.outChannels)
        return Status::error("runCpu: separable layer needs Cout == Cin");
    for (int j = 0; j < s.rank; ++j)
        if (s.spatial[j] <= 0 || s.kept[j] <= 0 || s.outSpatial[j] < 0)
            return Status::error("runCpu: spatial sizes and kept modes must be > 0");
    if (!params.x || !params.weight || !params.y) return Status::error("runCpu: null x, weight or y pointer");
    if (s.hasBias && !params.bias) return Status::error("runCpu: shape has a bias but the bias pointer is null");
    if (s.hasSkip && !params.skipWeight)
        return Status::error("runCpu: shape has a skip weight but the skip_weight pointer is null");
    if (s.hasSkip && resamples(s)) return Status::error("runCpu: a skip weight needs output size == input size");
    if (!activationName(params.attrs.activation)) return Status::error("runCpu: invalid activation");
    if (params.dtype != DataType::kFloat32 && params.dtype != DataType::kFloat16 &&
        params.dtype != DataType::kBFloat16)
        return Status::error("runCpu: unsupported dtype");
    return Status::success();
}

}  // namespace
}  // namespace core

namespace cpu {
StageTimes& lastStageTimes() {
    thread_local StageTimes times;
    return times;
}
}  // namespace cpu

namespace core {

int defaultCpuThreads() {
    if (const char* env = std::getenv("TURBOFNO_NUM_THREADS")) {
        char* end = nullptr;
        const long v = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && v > 0) return static_cast<int>(std::min<long>(v, 1024));
    }
#if defined(__linux__)
    // CPUs this process may run on (taskset / container cpusets), not all CPUs of the machine.
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return std::min(CPU_COUNT(&set), 1024);
#endif
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(std::min<unsigned>(hw, 1024));
}

size_t cpuWorkspaceBytes(const SpectralConvShape& shape, const CpuRunOptions& options) {
    if (shape.rank < 1 || shape.rank > kMaxRank) return 0;
    // The dtype only adds conversion buffers; size for the larger (converting) case.
    const CpuPlan plan = cpu::makeCpuPlan(shape, false, DataType::kFloat16, resolveThreads(options.workers));
    return cpu::planBytes(plan, options.cache == nullptr);
}

size_t cpuWorkspaceBytes(const SpectralConvShape& shape, int numThreads) {
    CpuRunOptions options;
    options.workers = numThreads;
    return cpuWorkspaceBytes(shape, options);
}

Status runCpu(const SpectralConvParams& params, void* workspace, size_t workspaceBytes, const CpuRunOptions& options) {
    try {
        Status st = checkParams(params);
        if (!st.ok) return st;
        const int workers = resolveThreads(options.workers);
        const CpuPlan plan = cpu::makeCpuPlan(params.shape, params.attrs.separable != 0, params.dtype, workers);
        if (plan.tooLarge) return Status::error(tooLargeMessage(params.shape, workers));
        const size_t needed = cpuWorkspaceBytes(params.shape, options);
        if (!workspace || workspaceBytes < needed)
            return Status::error("runCpu: workspace too small (" + std::to_string(workspaceBytes) + " bytes given, " +
                                 std::to_string(needed) + " needed for " + std::to_string(workers) + " workers)");
        const uintptr_t raw = reinterpret_cast<uintptr_t>(workspace);
        float* aligned = reinterpret_cast<float*>((raw + 63) / 64 * 64);

        cpu::StageTimes& times = cpu::lastStageTimes();
        auto clock = std::chrono::steady_clock::now();
        std::shared_ptr<const cpu::TableSet> cached;
        const float* tables = aligned;
        float* work = aligned;
        if (options.cache) {
            cached = cpu::cachedTables(*options.cache, plan, params.attrs);
            if (!cached)
                return Status::error("runCpu: cannot allocate " + std::to_string(plan.tableFloats * 4) +
                                     " bytes for the DFT tables");
            tables = cached->data;
        } else {
            cpu::buildTwiddles(plan, params.attrs, aligned);
            work = aligned + plan.tableFloats;
        }
        const Run run{plan, params, cpu::cpuKernels(), tables, work};
        if (plan.convert && params.shape.hasBias)
            cpu::loadAsFloat(params.bias, params.dtype, plan.cout, work + plan.offBias);
        if (plan.convert && plan.skip)
            cpu::loadAsFloat(params.skipWeight, params.dtype, plan.cout * plan.cin, work + plan.offSkipW);
        times.tablesMs = msSince(clock);

        ParallelFor& parallel = options.parallel ? *options.parallel : ownCpuThreadPool();
        if (!(st = runStage(parallel, workers, run, &Run::forward, plan.batch * ceilDiv(plan.cin, plan.fwdBlock))).ok)
            return st;
        times.forwardMs = msSince(clock);
        const int64_t mixTasks = ceilDiv(plan.modes, plan.mixModes) * ceilDiv(plan.cout, plan.mixOutBlock);
        if (!(st = runStage(parallel, workers, run, &Run::mix, mixTasks)).ok) return st;
        times.mixMs = msSince(clock);
        if (plan.skip) {
            const int64_t lastTasks = plan.batch * ceilDiv(plan.cout, plan.rank == 2 ? plan.lastBlock : 1);
            if (plan.rank > 1 && !(st = runStage(parallel, workers, run, &Run::inverseLast, lastTasks)).ok) return st;
            const int64_t chunks = ceilDiv(plan.rows, plan.chunkRows) * ceilDiv(plan.S[plan.rank - 1], plan.chunkCols);
            if (!(st = runStage(parallel, workers, run, &Run::skipEpilogue, plan.batch * chunks)).ok) return st;
        } else if (!(st = runStage(parallel, workers, run, &Run::inverse, plan.batch * ceilDiv(plan.cout, plan.invBlock))).ok) {
            return st;
        }
        times.inverseMs = msSince(clock);
        return Status::success();
    } catch (const std::exception& e) {
        return Status::error(std::string("runCpu: ") + e.what());
    } catch (...) {
        return Status::error("runCpu: unknown error");
    }
}

Status runCpu(const SpectralConvParams& params, void* workspace, size_t workspaceBytes, int numThreads) {
    CpuRunOptions options;
    options.workers = numThreads;
    return runCpu(params, workspace, workspaceBytes, options);
}

}  // namespace core
}  // namespace turbofno
