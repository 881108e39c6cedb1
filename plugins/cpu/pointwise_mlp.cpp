// PointwiseMLP on the host (pointwise_mlp.h, runMlpCpu in cpu.h). One task = one batch entry n and a
// block of kBlock points: x's block is copied (and converted) into a zero-padded [Cin][kBlock] tile,
// the hidden tile [Ch][kBlock] is computed and activated while it is in L1, then each group of output
// rows is computed, gets the gated residual and the activation, and is stored. Points are the inner
// (vector) dimension everywhere, so no transposes are needed for the [N, C, *S] layout.
//
// The register tiles use GCC vector extensions inside always_inline templates; each ISA gets its own
// entry function with a target attribute (same run-time choice as the SpectralConv kernels:
// cpuKernels().name, capped by TURBOFNO_CPU_ISA), so no -march flag is needed.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "convert.h"
#include "kernels.h"
#include "turbofno/cpu.h"
#include "turbofno/pointwise_mlp.h"

#if TURBOFNO_CPU_X86_SIMD
#include <immintrin.h>

#include "gelu_avx2.h"
#endif

namespace turbofno {
namespace cpu {
namespace {

using core::DataType;
using core::PointwiseMlpParams;

constexpr int64_t kBlock = 64;  // points per task: a [Cin][64] x tile and [Ch][64] hidden tile stay in L1/L2

// fp32 views of the parameters (converted once per call for fp16 / bf16) and the tensor pointers.
struct MlpRun {
    const PointwiseMlpParams* p = nullptr;
    int64_t cin = 0, ch = 0, cout = 0, points = 0, blocksPerBatch = 0;
    const float* w1 = nullptr;
    const float* b1 = nullptr;
    const float* w2 = nullptr;
    const float* b2 = nullptr;
    const float* gate = nullptr;
    float* scratch = nullptr;  // per worker: scratchFloats floats, 64-byte aligned
    int64_t scratchFloats = 0;
    int32_t hact = 0, act = 0;
    // The ISA table's activation: on AVX2 / AVX-512 its erf-GELU is hand-vectorized (kernels_avx2.cpp,
    // gelu_avx512.h), faster than the compiler's loop over activation.h, and GELU is a large part of
    // this op's time (one evaluation per hidden and per output value).
    ActivationFn activation = nullptr;
};

// C[r][p] = bias[r] + sum_k W[r][k] X[k][p] for r < R, p < kBlock. X and C rows are kBlock floats,
// 64-byte aligned; W rows have leading dimension ldw. R x NV vectors of L lanes stay in registers.
template <int L, int NV, int R>
__attribute__((always_inline)) inline void gemmTile(int64_t K, const float* W, int64_t ldw, const float* bias,
                                                    const float* X, float* C) {
    typedef float V __attribute__((vector_size(4 * L)));
    for (int64_t p0 = 0; p0 < kBlock; p0 += NV * L) {
        V acc[R][NV];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const float b = bias ? bias[r] : 0.0f;
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) acc[r][v] = V{} + b;
        }
        for (int64_t k = 0; k < K; ++k) {
            const V* xr = reinterpret_cast<const V*>(X + k * kBlock + p0);
            V xv[NV];
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) xv[v] = xr[v];
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                const float w = W[r * ldw + k];
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) acc[r][v] += w * xv[v];
            }
        }
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            V* cr = reinterpret_cast<V*>(C + r * kBlock + p0);
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) cr[v] = acc[r][v];
        }
    }
}

// rows (1..MR) rows of the product: full MR-row tiles, the remainder by its own instantiation.
template <int L, int NV, int MR>
__attribute__((always_inline)) inline void gemmRows(int rows, int64_t K, const float* W, int64_t ldw,
                                                    const float* bias, const float* X, float* C) {
    switch (rows) {
// A tile of R <= MR / 2 rows spans 2 NV vectors per row instead (as many accumulators, e.g. 32 % 6 =
// 2 hidden rows: 8 instead of 4 independent sums per k step, which the FMA latency would otherwise bound).
#define TFNO_MLP_ROWS(R)                                                                      \
    case R:                                                                                   \
        if (R <= MR / 2 && (kBlock % (2 * NV * L)) == 0)                                      \
            gemmTile<L, 2 * NV, (R <= MR ? R : 1)>(K, W, ldw, bias, X, C);                    \
        else if (R <= MR)                                                                     \
            gemmTile<L, NV, (R <= MR ? R : 1)>(K, W, ldw, bias, X, C);                        \
        break;
        TFNO_MLP_ROWS(1)
        TFNO_MLP_ROWS(2)
        TFNO_MLP_ROWS(3)
        TFNO_MLP_ROWS(4)
        TFNO_MLP_ROWS(5)
        TFNO_MLP_ROWS(6)
#undef TFNO_MLP_ROWS
        default: break;
    }
}

// The activations and the output rows' epilogue, through the ISA table (portable, AVX-512).
struct EpilogueTable {
    // h[0, count) = hact(h) in place
    __attribute__((always_inline)) static void hidden(const MlpRun& run, float* h, int64_t count) {
        run.activation(h, h, count, run.hact);
    }
    // dst[q] = act(row[q] + g res[q]) (no residual term without res) for q < count; dst may be row,
    // or alias res (each element is read before it is written).
    __attribute__((always_inline)) static void out(const MlpRun& run, const float* row, const float* res, float g,
                                                   int64_t count, float* dst) {
        if (res)
            for (int64_t q = 0; q < count; ++q) dst[q] = row[q] + g * res[q];
        else if (dst != row)
            std::memcpy(dst, row, static_cast<size_t>(count) * sizeof(float));
        run.activation(dst, dst, count, run.act);
    }
};

#if TURBOFNO_CPU_X86_SIMD
#define TFNO_MLP_AVX2 __attribute__((target("avx2,fma,f16c"), noinline))
// AVX2: the erf-GELU inlined (gelu_avx2.h, kGeluAvx2Group vectors at a time) and the output row's
// residual, activation and store in one pass. Not inlined (mlpBlock has no target attribute); one
// call per 64-point row or hidden tile.
struct EpilogueAvx2 {
    TFNO_MLP_AVX2 static __m256i lanes(int64_t n) {
        return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }
    TFNO_MLP_AVX2 static void hidden(const MlpRun& run, float* h, int64_t count) {  // count: a multiple of 32
        if (run.hact != static_cast<int32_t>(core::Activation::kGeluErf)) {
            run.activation(h, h, count, run.hact);
            return;
        }
        constexpr int G = kGeluAvx2Group;
        for (int64_t i = 0; i < count; i += 8 * G) {
            __m256 v[G];
#pragma GCC unroll 8
            for (int j = 0; j < G; ++j) v[j] = _mm256_load_ps(h + i + 8 * j);
            geluErf8x<G>(v);
#pragma GCC unroll 8
            for (int j = 0; j < G; ++j) _mm256_store_ps(h + i + 8 * j, v[j]);
        }
    }
    TFNO_MLP_AVX2 static void out(const MlpRun& run, const float* row, const float* res, float g, int64_t count,
                                  float* dst) {
        if (run.act != static_cast<int32_t>(core::Activation::kGeluErf)) {
            EpilogueTable::out(run, row, res, g, count, dst);
            return;
        }
        constexpr int G = kGeluAvx2Group;
        const __m256 gv = _mm256_set1_ps(g);
        int64_t i = 0;
        for (; i + 8 * G <= count; i += 8 * G) {
            __m256 v[G];
#pragma GCC unroll 8
            for (int j = 0; j < G; ++j) {
                v[j] = _mm256_load_ps(row + i + 8 * j);
                if (res) v[j] = _mm256_fmadd_ps(gv, _mm256_loadu_ps(res + i + 8 * j), v[j]);
            }
            geluErf8x<G>(v);
#pragma GCC unroll 8
            for (int j = 0; j < G; ++j) _mm256_storeu_ps(dst + i + 8 * j, v[j]);
        }
        for (; i < count; i += 8) {
            const __m256i m = lanes(count - i);
            __m256 v = _mm256_load_ps(row + i);
            if (res) v = _mm256_fmadd_ps(gv, _mm256_maskload_ps(res + i, m), v);
            _mm256_maskstore_ps(dst + i, m, geluErf8(v));
        }
    }
};
#undef TFNO_MLP_AVX2
#endif

// One task: batch entry n, points [s0, s0 + count) with count <= kBlock.
template <int L, int NV, int MR, class Epilogue>
__attribute__((always_inline)) inline void mlpBlock(const MlpRun& run, int64_t task, int worker) {
    static_assert(MR <= 6, "gemmRows instantiates up to 6 rows");
    const PointwiseMlpParams& p = *run.p;
    const int64_t n = task / run.blocksPerBatch;
    const int64_t s0 = (task % run.blocksPerBatch) * kBlock;
    const int64_t count = std::min(kBlock, run.points - s0);
    const int64_t esize = elementBytes(p.dtype);
    float* xb = run.scratch + worker * run.scratchFloats;  // [Cin][kBlock]
    float* hb = xb + run.cin * kBlock;                      // [Ch][kBlock]
    float* ob = hb + run.ch * kBlock;                       // [MR][kBlock]
    float* rb = ob + MR * kBlock;                           // [kBlock] converted residual row

    // x tile, zero-padded past `count` so the tiles need no masks (padded columns are never stored).
    // Copied even for full fp32 blocks: reading x in place (rows P floats apart, e.g. 16 KiB) measured
    // ~1.5x slower for the whole op at P = 4096, the strided rows alias in L1 (bench/mlp_microbench.cpp).
    const char* x = static_cast<const char*>(p.x) + (n * run.cin * run.points + s0) * esize;
    for (int64_t i = 0; i < run.cin; ++i) {
        float* row = xb + i * kBlock;
        loadAsFloat(x + i * run.points * esize, p.dtype, count, row);
        for (int64_t q = count; q < kBlock; ++q) row[q] = 0.0f;
    }

    for (int64_t j0 = 0; j0 < run.ch; j0 += MR) {
        const int rows = static_cast<int>(std::min<int64_t>(MR, run.ch - j0));
        gemmRows<L, NV, MR>(rows, run.cin, run.w1 + j0 * run.cin, run.cin, run.b1 ? run.b1 + j0 : nullptr, xb,
                            hb + j0 * kBlock);
    }
    Epilogue::hidden(run, hb, run.ch * kBlock);

    const int64_t outOffset = (n * run.cout * run.points + s0) * esize;
    for (int64_t o0 = 0; o0 < run.cout; o0 += MR) {
        const int rows = static_cast<int>(std::min<int64_t>(MR, run.cout - o0));
        gemmRows<L, NV, MR>(rows, run.ch, run.w2 + o0 * run.ch, run.ch, run.b2 ? run.b2 + o0 : nullptr, hb, ob);
        for (int r = 0; r < rows; ++r) {
            const int64_t o = o0 + r;
            float* row = ob + r * kBlock;
            const int64_t at = outOffset + o * run.points * esize;
            // The residual is read before y is written: y may alias it (same elements, same task).
            const float* res = nullptr;
            if (p.residual) {
                const char* src = static_cast<const char*>(p.residual) + at;
                if (p.dtype == DataType::kFloat32) {
                    res = reinterpret_cast<const float*>(src);
                } else {
                    loadAsFloat(src, p.dtype, count, rb);
                    res = rb;
                }
            }
            const float g = run.gate ? run.gate[o] : 1.0f;
            if (p.dtype == DataType::kFloat32) {  // straight into y
                Epilogue::out(run, row, res, g, count, reinterpret_cast<float*>(static_cast<char*>(p.y) + at));
            } else {
                Epilogue::out(run, row, res, g, count, row);
                storeFromFloat(row, p.dtype, count, static_cast<char*>(p.y) + at);
            }
        }
    }
}

// Per-ISA task loops; the tile shapes keep R * NV accumulators + NV x vectors within the register file.
using TaskFn = void (*)(const MlpRun&, int64_t, int);

void mlpTaskPortable(const MlpRun& run, int64_t task, int worker) { mlpBlock<4, 2, 4, EpilogueTable>(run, task, worker); }
#if TURBOFNO_CPU_X86_SIMD
__attribute__((target("avx2,fma,f16c"))) void mlpTaskAvx2(const MlpRun& run, int64_t task, int worker) {
    mlpBlock<8, 2, 6, EpilogueAvx2>(run, task, worker);  // 12 + 2 + 1 of 16 ymm
}
__attribute__((target("avx512f,avx2,fma"))) void mlpTaskAvx512(const MlpRun& run, int64_t task, int worker) {
    mlpBlock<16, 2, 6, EpilogueTable>(run, task, worker);  // 12 + 2 + 1 of 32 zmm, two column groups per block
}
#endif

TaskFn pickTask() {
    const char* isa = cpuKernels().name;
#if TURBOFNO_CPU_X86_SIMD
    if (std::strcmp(isa, "avx512") == 0) return mlpTaskAvx512;
    if (std::strcmp(isa, "avx2") == 0) return mlpTaskAvx2;
#endif
    (void)isa;
    return mlpTaskPortable;
}

struct MlpStage {
    const MlpRun* run;
    TaskFn fn;
    int64_t numTasks;
    std::atomic<int64_t> next{0};
};

void mlpWorker(void* ctx, int worker) {
    MlpStage& s = *static_cast<MlpStage*>(ctx);
    for (int64_t t = s.next.fetch_add(1); t < s.numTasks; t = s.next.fetch_add(1)) s.fn(*s.run, t, worker);
}

core::Status checkMlpParams(const PointwiseMlpParams& params) {
    using core::Status;
    const core::PointwiseMlpShape& s = params.shape;
    if (s.batch <= 0 || s.inChannels <= 0 || s.hiddenChannels <= 0 || s.outChannels <= 0 || s.points <= 0)
        return Status::error("runMlpCpu: empty tensor (shape not from inferMlpShape?)");
    if (!params.x || !params.w1 || !params.w2 || !params.y) return Status::error("runMlpCpu: null x, w1, w2 or y pointer");
    if (s.hasB1 != (params.b1 != nullptr) || s.hasB2 != (params.b2 != nullptr) ||
        s.hasResidual != (params.residual != nullptr) || s.hasGate != (params.gate != nullptr))
        return Status::error("runMlpCpu: the optional-input pointers do not match the shape's flags");
    if (s.hasGate && !s.hasResidual) return Status::error("runMlpCpu: gate without residual");
    if (params.y == params.x) return Status::error("runMlpCpu: y must not alias x");
    const core::Status st = core::validateMlpAttrs(params.attrs);
    if (!st.ok) return Status::error("runMlpCpu: " + st.message);
    if (params.dtype != DataType::kFloat32 && params.dtype != DataType::kFloat16 &&
        params.dtype != DataType::kBFloat16)
        return Status::error("runMlpCpu: unsupported dtype");
    return Status::success();
}

float* align64(float* p) {
    const uintptr_t raw = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<float*>((raw + 63) / 64 * 64);
}

}  // namespace
}  // namespace cpu

namespace core {

Status runMlpCpu(const PointwiseMlpParams& params, void* /*workspace*/, size_t /*workspaceBytes*/,
                 const CpuRunOptions& options) {
    // mlpCpuWorkspaceBytes is 0: the (small) per-worker tiles are allocated here.
    try {
        Status st = cpu::checkMlpParams(params);
        if (!st.ok) return st;
        const PointwiseMlpShape& s = params.shape;
        cpu::MlpRun run;
        run.p = &params;
        run.cin = s.inChannels;
        run.ch = s.hiddenChannels;
        run.cout = s.outChannels;
        run.points = s.points;
        run.blocksPerBatch = (s.points + cpu::kBlock - 1) / cpu::kBlock;
        run.hact = static_cast<int32_t>(params.attrs.hiddenActivation);
        run.act = static_cast<int32_t>(params.attrs.activation);
        run.activation = cpu::cpuKernels().activation;
        const int64_t numTasks = s.batch * run.blocksPerBatch;
        const int workers = static_cast<int>(
            std::min<int64_t>(options.workers > 0 ? std::min(options.workers, 1024) : defaultCpuThreads(), numTasks));

        // fp32 parameters: used in place for fp32 tensors, converted once per call otherwise.
        std::vector<float> weights;
        if (params.dtype == DataType::kFloat32) {
            run.w1 = static_cast<const float*>(params.w1);
            run.w2 = static_cast<const float*>(params.w2);
            run.b1 = static_cast<const float*>(params.b1);
            run.b2 = static_cast<const float*>(params.b2);
            run.gate = static_cast<const float*>(params.gate);
        } else {
            weights.resize(static_cast<size_t>(run.ch * run.cin + run.cout * run.ch + run.ch + 2 * run.cout));
            float* w = weights.data();
            auto take = [&](const void* src, int64_t count) -> const float* {
                if (!src) return nullptr;
                cpu::loadAsFloat(src, params.dtype, count, w);
                const float* out = w;
                w += count;
                return out;
            };
            run.w1 = take(params.w1, run.ch * run.cin);
            run.w2 = take(params.w2, run.cout * run.ch);
            run.b1 = take(params.b1, run.ch);
            run.b2 = take(params.b2, run.cout);
            run.gate = take(params.gate, run.cout);
        }

        // Per worker: x tile, hidden tile, output rows (6 at most), residual row; rounded to 64 bytes.
        run.scratchFloats = ((run.cin + run.ch + 6 + 1) * cpu::kBlock + 15) / 16 * 16;
        // Not zero-filled (every tile element is written before it is read; ~53 KB at C = 64 per call).
        std::unique_ptr<float[]> scratch(new float[static_cast<size_t>(run.scratchFloats * workers + 16)]);
        run.scratch = cpu::align64(scratch.get());

        cpu::MlpStage stage{&run, cpu::pickTask(), numTasks};
        if (workers <= 1) {  // no thread hand-off for one loop
            cpu::mlpWorker(&stage, 0);
            return Status::success();
        }
        ParallelFor& parallel = options.parallel ? *options.parallel : ownCpuThreadPool();
        return parallel.run(workers, cpu::mlpWorker, &stage);
    } catch (const std::exception& e) {
        return Status::error(std::string("runMlpCpu: ") + e.what());
    } catch (...) {
        return Status::error("runMlpCpu: unknown error");
    }
}

}  // namespace core
}  // namespace turbofno
