// Sizes, blocking and workspace layout of one CPU SpectralConv call. Shared by cpuWorkspaceBytes
// and runCpu so that both always agree.
//
// Data layouts (all fp32, complex values interleaved re,im):
//   spectrum  Xs [N][Cin][K_1..K_{d-1}][k][2], Ys [N][Cout][...] (same mode order as the weight)
//   per channel intermediates during the axis transforms: [dims..., 2k], each leading dim either
//   a spatial size S_j (not yet / already transformed) or a kept count K_j.
#pragma once

#include <cstddef>
#include <cstdint>

#include "turbofno/params.h"

namespace turbofno {
namespace cpu {

struct CpuPlan {
    int rank = 0;                 // d
    int64_t batch = 0, cin = 0, cout = 0;
    int64_t S[core::kMaxRank] = {};  // input spatial sizes
    int64_t T[core::kMaxRank] = {};  // output spatial sizes (== S unless output_size is set)
    int64_t K[core::kMaxRank] = {};
    int64_t k = 0;                // kept modes on the last axis (K[d-1])
    int64_t rows = 0;             // R = S_1 * .. * S_{d-1} (1 for d == 1)
    int64_t points = 0;           // prod(S)
    int64_t rowsOut = 0;          // T_1 * .. * T_{d-1}
    int64_t pointsOut = 0;        // prod(T)
    int64_t modes = 0;            // Kt = prod(K)
    int64_t specStride = 0;       // floats between channels in Xs / Ys: >= 2 Kt, an odd multiple of
                                  // 64 bytes so that channels never alias in the caches
    bool separable = false;
    bool convert = false;         // dtype != fp32: inputs / outputs go through fp32 scratch
    bool skip = false;            // 1x1 skip weight: the inverse runs in two passes (run_cpu.cpp)
    bool skipFold = false;        // skip: the plain last-axis inverse folded into the skip GEMM (run_cpu.cpp)
    bool pairFwd = false;         // last-axis forward / inverse with samples t, S-t paired (last_axis.h)
    bool pairInv = false;
    bool quadFwd = false;         // ... and with the second fold, t and S/2 - t (last_axis.h); implies pairFwd
    bool quadInv = false;         // implies pairInv

    int threads = 1;
    int64_t fwdBlock = 1;         // channels per forward task
    int64_t invBlock = 1;         // output channels per inverse task
    int64_t mixModes = 1;         // complex modes per mixing task
    int64_t mixOutBlock = 1;      // output channels per mixing task
    // Skip epilogue: a task owns the points [r * S_d + c0, + chunkCols) for rows r0..r0+chunkRows-1
    // of one batch entry, all Cout channels (chunkCols == S_d, or chunkRows == 1 on long rows).
    int64_t chunkRows = 1, chunkCols = 1;
    int64_t lastBlock = 1;        // skip, d == 2: output channels per axis-1 inverse GEMM (inverseAxis2dBlock)
    bool blockInverseAxis = false;  // d == 2 without skip: the inverse task's channels in one axis-1 GEMM
    bool streamSkipOut = false;   // skip: y written with non-temporal stores (fp32 outputs over kStreamOutBytes)

    // The DFT tables (twiddle.h): offsets in floats from the (64-byte aligned) table base. They
    // depend on S, T, the kept modes and the norm only, so a CpuTableCache can hold them.
    int64_t offFwdLast = 0;                  // paired: [S_d/2 + 1][2k] in column panels (last_axis.h),
                                             // quad: [S_d/4 + 1][2k] (even modes, then odd), else [S_d][2k]
    int64_t offFwdAxis[core::kMaxRank] = {}; // axis j < d-1: [2K_j][S_j]
    int64_t offInvAxis[core::kMaxRank] = {}; // axis j < d-1: [T_j][2K_j]
    int64_t offInvLast = 0;                  // paired: [k][2 ceil(T_d/2)] in column panels, then [k] for
                                             // y[T_d/2] (even T_d); quad: [k][2 (T_d/4 + 1)] (even modes,
                                             // then odd); else [2k][T_d]. C2R weights and the norm scale
                                             // folded in
    int64_t tableFloats = 0;                 // size of the table region (a multiple of 16)

    // The per-call buffers: offsets in floats from the (64-byte aligned) work base.
    int64_t offXs = 0, offYs = 0;
    int64_t offBias = 0;                     // [Cout] bias in fp32 (converted inputs only)
    int64_t offLast = 0;                     // skip, d > 1: [N][rows][Cout][2k] last-axis spectra
    int64_t offSkipW = 0;                    // skip, converted inputs: [Cout][Cin] in fp32
    int64_t offThreads = 0;
    int64_t threadFloats = 0;                // per-thread scratch, a multiple of 16
    // Offsets inside one thread's scratch.
    int64_t tConv = 0, tBig = 0, tBufA = 0, tBufB = 0, tProd = 0, tWeight = 0, tLast = 0;
    int64_t tOut = 0;                        // skip: [Cout][sumsStride(chunk)] sums before the activation
    int64_t tXc = 0;                         // skip, converted inputs: [Cin][chunk] x in fp32
    int64_t workFloats = 0;                  // size of the work region (a multiple of 16)
    bool tooLarge = false;                   // over kMaxPlanFloats: the kernel refuses the shape
};

// Row stride (floats) of the skip epilogue's [Cout][len] sums: len rounded up to an odd multiple of
// 16 floats (64 bytes), so that the rows of a register tile do not share L1 sets.
inline int64_t sumsStride(int64_t len) {
    const int64_t ld = (len + 15) / 16 * 16;
    return (ld / 16) % 2 == 0 ? ld + 16 : ld;
}

// Skip layers write y with non-temporal stores only when it is larger than this: a smaller y stays
// in the caches for its consumer (measured with the next read included, bench/fused_layer_bench.py:
// 512 KB outputs 4-6% faster with ordinary stores, 4-16 MB outputs 1-4% faster streamed).
constexpr int64_t kStreamOutBytes = int64_t{2} << 20;

// The kernel's size limit (docs/op.md, "CPU limits"): the tables, and the tables plus the per-call
// buffers, must each stay within 2^32 floats (16 GiB).
constexpr double kMaxPlanFloats = 4294967296.0;

// numThreads >= 1. The shape must have passed core::inferShape.
CpuPlan makeCpuPlan(const core::SpectralConvShape& shape, bool separable, core::DataType dtype, int numThreads);

// Bytes of workspace for the plan: the work region, plus the tables unless they come from a cache,
// plus slack for aligning the base pointer. SIZE_MAX when the plan was refused (no allocation can
// satisfy it).
inline size_t planBytes(const CpuPlan& plan, bool tablesInWorkspace) {
    if (plan.tooLarge) return SIZE_MAX;
    const int64_t floats = plan.workFloats + (tablesInWorkspace ? plan.tableFloats : 0);
    return static_cast<size_t>(floats) * 4 + 64;
}

}  // namespace cpu
}  // namespace turbofno
