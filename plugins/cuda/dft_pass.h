// One pass of the separable algorithm: a truncated DFT along one axis, written as a batched GEMM
//     C[m, col] = sum_k Tw(m, k) * B[k, col]      (per split of the k range)
// whose left operand Tw is a DFT matrix generated on the fly (never stored) and whose right operand
// B and result C are strided views of tensors in memory. Host-only plain data, filled by the planner
// (plan.cpp) and passed by value to dftPassKernel (dft_pass.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

// The few size helpers below are also called by the FFT kernel (fft_pass.cuh).
#ifdef __CUDACC__
#define TURBOFNO_HOST_DEVICE __host__ __device__
#else
#define TURBOFNO_HOST_DEVICE
#endif

namespace turbofno {
namespace cuda {

// What one pass computes. Rows m of Tw are output positions (modes or samples), columns k inputs.
enum class PassKind : int {
    kR2C = 0,   // forward, last axis: real x[line, t] -> complex Z[line, mode], Tw = e^{-2 pi i mode t / S}
    kC2C = 1,   // leading axis, complex -> complex (forward or inverse, see DftPass::inverse)
    kC2R = 2,   // inverse, last axis: y[line, t] = Re sum_k c_k Z[line, k] e^{+2 pi i k t / S}, + bias
};

// A column index col of B / C is split as (outer, inner) = (col / inner, col % inner); the element
// offset is outer * outerStride + inner * innerStride + row * rowStride (+ split * splitStride for C).
// Every tensor a pass touches has < 2^31 elements (validated; the planner checks its own buffers),
// so offsets are 32-bit: the kernel's index arithmetic stays in cheap integer instructions.
struct StridedView {
    int32_t inner = 1;        // columns per outer step
    int32_t outerStride = 0;  // elements
    int32_t innerStride = 0;  // elements
    int32_t rowStride = 0;    // elements per k (B) or per m (C)
};

struct DftPass {
    int M = 1, N = 1, K = 1;  // GEMM sizes: N = number of columns (lines or line groups)
    int S = 1;                // transform length (twiddle period)
    // Twiddle index of row m / column k: v < p ? v : v + off (the kept low block, then the high
    // block ending at S - 1; identity when p >= the range).
    int mP = 0, mOff = 0;
    int kP = 0, kOff = 0;
    int kLimit = 0x7fffffff;  // columns whose mapped index is >= this contribute nothing (resampling)
    int inverse = 0;          // 0: e^{-i ...} (forward), 1: e^{+i ...}
    int kPerSplit = 1;        // k range of one blockIdx.z; gridDim.z = ceil(K / kPerSplit)
    int32_t cSplitStride = 0; // elements between the partial results of two splits
    int mFast = 0;            // 1: consecutive threads run along m (C is contiguous in m)
    int bKContig = 0;         // 1: B is contiguous along k (load tiles along k)
    StridedView b, c;
    // kC2R epilogue: y = scale * acc + bias[(col / biasDiv) % biasMod]; the C2R weights c_k are 1 for
    // k == 0 and k == nyquist (S even: S / 2, else -1) and 2 otherwise.
    float scale = 1.f;
    int nyquist = -1;
    int32_t biasDiv = 1;
    int biasMod = 1;
    int addY = 0;             // kC2R: add the value already in y (the fused layer's skip, skip_gemm.cuh)
    int activation = 0;       // kC2R: core::Activation applied last (0: identity)
    int tileM = 64;           // block tile rows (16, 32 or 64: passTileM; columns = 4096 / tileM)
    int tensorCores = 0;      // 1: the products run on tensor cores in 3xTF32 (mma_tf32.cuh), else fp32 FMA
    // 1 runs the pass as an in-shared-memory FFT (fft_pass.cuh) instead of the GEMM (tileM / tensorCores /
    // kPerSplit are then unused). kR2C / kC2R: S in [kFftMinLen, kFftMaxLen] with S / 2 = 2^a 3^b 5^c,
    // plain contiguous lines (line g's point t at g * innerStride + t * rowStride), no resampling and, for
    // R2C, no k split. kC2C (the column FFT): S = 2^a 3^b 5^c in [kFftMinLen, kFftColumnMaxLen], no
    // resampling, no split (plan_separable.h).
    int fft = 0;
    // The FFT's stages over N2 = S / 2 (R2C / C2R) or S (C2C) complex points: the code of stage s's radix in bits 4s..4s+3
    // (first stage in the lowest bits, 0 after the last; fftRadixOf decodes: 1 means 16, else the
    // radix 2, 3, 4, 5 or 8). 0 for an R2C / C2R: the radix-2 kernel (fft_pass_radix2.cuh, power-of-two S).
    int fftRadices = 0;
    int fftLines = 1;         // lines (R2C / C2R) or columns (C2C) per block, within kFftSmemLimit
    int fftDirect = 1;        // R2C / C2R: first / last stage straight from x / to y (else staged; fft_pass.cuh)
    // > 0: a long last axis of a 1D layer as a four-step FFT (fft_pass_long.cuh) over Nb = fftLongCols
    // columns of Na = S / Nb points (fftRadices: Na's stages, fftLines: column pairs per block); the R2C
    // writes one partial spectrum per Nb / (2 fftLines) columns (planSeparable's split).
    int fftLongCols = 0;
    // kC2R on the radix-2 kernel (Plan::mixInC2R, mixing_c2r.cuh): mixCin > 0 makes the pass compute its
    // input bins itself from the forward spectrum X [N][mixCin][mixKall] and the layer's weights instead of
    // reading a mixed spectrum: line g = n * mixCout + o takes sum_i X[n, i, k] W[i, o, k] (mixSeparable:
    // X[n, o, k] W[o, 0, k]), the input-channel sum split over mixGroups thread groups (fixed-order sum).
    int mixCin = 0, mixCout = 0, mixKall = 0, mixSeparable = 0, mixGroups = 1;
};

// The planner's stage variant of a row FFT (DftPass::fftDirect): the R2C reads x directly from 128 points
// on, the C2R always writes y through a final coalesced loop (measured at b349859, plan_separable.cpp).
TURBOFNO_HOST_DEVICE constexpr bool fftDirectDefault(bool inverse, int64_t S) { return !inverse && S >= 128; }

// The radix of one 4-bit stage code of DftPass::fftRadices (16 does not fit in 4 bits: code 1).
TURBOFNO_HOST_DEVICE constexpr int fftRadixOf(unsigned code) { return code == 1u ? 16 : static_cast<int>(code); }

// The radix lists (DftPass::fftRadices codes) with a compile-time row FFT kernel (fft_pass_static.cuh): what
// fftStages(S / 2) gives for full blocks (4096 values, radix 16) at S = 64, 128, 256, 512, 1024 (16 x 2 ..
// 16 x 16 x 2), at the benchmark's and models' other lengths S = 48 (3 x 4 x 2), 180 (3 x 3 x 5 x 2), 384
// (3 x 4 x 4 x 4), and for 2048-value blocks (grids too small for full blocks) of 64, 128 and 1024 points
// (8 x 4, 8 x 8, 8 x 8 x 8: 8x64x64x64, 2x64x128x128, 8x256x1024). tests/cpp/test_cuda_plan.cpp checks
// that the planner produces these codes there.
constexpr int kFftStaticCount = 11;
constexpr unsigned kFftStaticRadices[kFftStaticCount] = {0x21u, 0x41u, 0x81u, 0x11u, 0x211u, 0x243u, 0x2533u, 0x4443u, 0x888u,
                                                          0x48u, 0x88u};

// The radix lists (fftStages(n)) with a compile-time column FFT kernel (fftColumnPassKernel<INV, RADICES>): the
// leading-axis lengths of the benchmark's and models' 2D layers and the powers of two around them, n = 32, 48,
// 64, 96, 128, 180, 192, 250, 256, 384, 512. The run-time kernel's switch over six radices per stage made it
// bound by instruction fetch at small grids (ncu at 1x32x64x64 m16: 53 % of the stalls, 8.9 us per column
// pass; tests/gpu/logs/col_static_s18). Other lengths run the run-time kernel.
constexpr int kFftColumnStaticCount = 11;
constexpr unsigned kFftColumnStaticRadices[kFftColumnStaticCount] = {0x21u,   0x443u, 0x41u,  0x2443u, 0x81u,    0x4533u,
                                                                      0x4443u, 0x2555u, 0x11u, 0x24443u, 0x211u};

// N2 of a radix list: the product of its radices (0 for the empty list).
TURBOFNO_HOST_DEVICE constexpr int fftRadicesProduct(unsigned radices) {
    int n = radices ? 1 : 0;
    for (; radices != 0; radices >>= 4) n *= fftRadixOf(radices & 15u);
    return n;
}

// Whether a radix-list table (kFftStaticRadices, kFftColumnStaticRadices) holds `radices`.
template <size_t N> bool fftRadicesListed(const unsigned (&list)[N], int radices) {
    for (unsigned r : list)
        if (r == static_cast<unsigned>(radices)) return true;
    return false;
}

// Whether launchFftPass runs a row FFT pass (R2C, or C2R where `inverse`) on its compile-time kernel: a
// listed radix list with the planner's stage variant (fftDirectDefault; the other variant runs the
// run-time kernel).
inline bool fftStaticKernelRuns(const DftPass& p, bool inverse) {
    if (p.fftLongCols != 0) return false;  // fft_pass_long.cuh
    if (p.fftDirect != (fftDirectDefault(inverse, p.S) ? 1 : 0)) return false;
    return fftRadicesListed(kFftStaticRadices, p.fftRadices);
}

// Whether launchFftColumnPass runs a column FFT pass on its compile-time kernel (a listed radix list).
inline bool fftColumnStaticKernelRuns(const DftPass& p) { return fftRadicesListed(kFftColumnStaticRadices, p.fftRadices); }

// Whether a pass runs on the radix-2 row FFT kernel (fft_pass_radix2.cuh; launchFftPass's first branch).
inline bool fftRadix2KernelRuns(const DftPass& p) { return p.fft != 0 && p.fftLongCols == 0 && p.fftRadices == 0; }

// Shared-memory float2 slots of an FFT block's n = L * S / 2 complex values: one padding slot per 16
// (fft_pass.cuh, fftPad) and one spare.
TURBOFNO_HOST_DEVICE constexpr size_t fftBufValues(size_t n) { return n + n / 16 + 1; }

// Row FFTs of N2 >= kFftTwoLevelFrom complex points build their twiddle tables from two short tables of
// exact roots (fft_pass.cuh, fftFillTablesTwoLevel): 64 + ceil(N2 / 32) values instead of 1.5 N2 sincospif
// per block.
constexpr int kFftTwoLevelFrom = 1024;
TURBOFNO_HOST_DEVICE constexpr int fftTwoLevelValues(int N2) { return N2 >= kFftTwoLevelFrom ? 64 + (2 * N2 + 63) / 64 : 0; }

// Dynamic shared memory of one FFT pass block (fft_pass.cuh): L lines of S / 2 complex values (padded),
// S / 2 - 1 stage twiddles, S / 4 + 1 roots e^{2 pi i k / S} and fftTwoLevelValues(S / 2) base roots,
// 8 bytes each, then L floats (C2R: the lines' bias values).
constexpr size_t fftSmemBytes(int S, int L) {
    return (fftBufValues(static_cast<size_t>(L) * static_cast<size_t>(S / 2)) + static_cast<size_t>(S / 2 - 1) +
            static_cast<size_t>(S / 4 + 1) + static_cast<size_t>(fftTwoLevelValues(S / 2))) * 8 + static_cast<size_t>(L) * 4;
}

// The column FFT (a complex pass as an FFT over W = fftLines columns, fft_pass.cuh): column l's n
// values at l * pitch + j with an odd pitch (consecutive columns in different banks), then the n - 1
// stage twiddles.
TURBOFNO_HOST_DEVICE constexpr int fftColumnPitch(int n) { return n | 1; }
constexpr size_t fftColumnSmemBytes(int n, int W) {
    return (static_cast<size_t>(W) * static_cast<size_t>(fftColumnPitch(n)) + static_cast<size_t>(n - 1)) * 8;
}

// The four-step long-axis FFT block (fft_pass_long.cuh): H = fftLines lines of Na values at the odd pitch,
// Na - 1 stage twiddles, 128 root factors, 2 kd roots (rootB, rootH), then a scratch of max(kd, 256) values (the
// forward's group sums over 256 threads, the inverse's bins).
constexpr size_t fftLongSmemBytes(int Na, int H, int kd) {
    return (static_cast<size_t>(H) * static_cast<size_t>(fftColumnPitch(Na)) + static_cast<size_t>(Na - 1) + 128 +
            2 * static_cast<size_t>(kd) + static_cast<size_t>(kd > 256 ? kd : 256)) * 8;
}

// The plane FFT kernels (fft_plane.cuh, SeparablePlan::plane): a 2D layer's planes of S1 x S2 points with both
// axes' FFTs in one block, stage lists at compile time (row: over N2 = S2 / 2 complex points per line, as
// fftStages gives them with the radix capped by the block's S1 N2 values like the row kernels: 512 values radix 4,
// 2048 radix 8; column: fftStages(S1), as the column kernels' lists). The models' 64 x 64 layers (darcy,
// navier_stokes) and the benchmark's 48 x 48 one, and 32 x 32.
struct FftPlaneShape {
    int S1, S2;
    unsigned row, col;
};
// Threads per plane block: kFftPlaneThreads, or kFftPlaneWideThreads on small grids (SeparablePlan::plane).
constexpr int kFftPlaneThreads = 256;
constexpr int kFftPlaneWideThreads = 1024;
constexpr int kFftPlaneCount = 3;
constexpr FftPlaneShape kFftPlaneShapes[kFftPlaneCount] = {{32, 32, 0x44u, 0x21u}, {48, 48, 0x243u, 0x443u}, {64, 64, 0x48u, 0x41u}};
// The entry of kFftPlaneShapes for an S1 x S2 plane, -1 if none.
constexpr int fftPlaneShapeIndex(int S1, int S2) {
    for (int i = 0; i < kFftPlaneCount; ++i)
        if (kFftPlaneShapes[i].S1 == S1 && kFftPlaneShapes[i].S2 == S2) return i;
    return -1;
}
// Dynamic shared memory of one plane block (fft_plane.cuh, FftPlaneSmem): the row stage twiddles (N2 - 1), the
// R2C / C2R roots (N2 / 2 + 1), the column stage twiddles (S1 - 1), the S1 padded lines of N2 values, kd columns
// of S1 values at the odd column pitch (8 bytes each), then S1 floats (the lines' bias values).
TURBOFNO_HOST_DEVICE constexpr size_t fftPlaneSmemBytes(int S1, int S2, int kd) {
    return (static_cast<size_t>(S2 / 2 - 1) + static_cast<size_t>(S2 / 4 + 1) + static_cast<size_t>(S1 - 1) +
            fftBufValues(static_cast<size_t>(S1) * static_cast<size_t>(S2 / 2)) +
            static_cast<size_t>(kd) * static_cast<size_t>(fftColumnPitch(S1))) * 8 + static_cast<size_t>(S1) * 4;
}

// The inverse plane with the mixing inside (fft_plane.cuh, mixPlaneIntoColumns): G > 1 input-channel groups keep
// their G * Q partial sums (Q = K * kd mixed bins) in the plane's row buffer (S1 * S2 / 2 values at least).
TURBOFNO_HOST_DEVICE constexpr bool fftPlaneMixGroupsFit(int S1, int S2, int Q, int G) {
    return G == 1 || static_cast<size_t>(G) * static_cast<size_t>(Q) <= static_cast<size_t>(S1) * static_cast<size_t>(S2 / 2);
}

// Dynamic shared memory of one radix-2 FFT pass block (fft_pass_radix2.cuh): L * S reals + the N2/2 twiddles.
TURBOFNO_HOST_DEVICE constexpr size_t fftRadix2SmemBytes(int S, int L) {
    return static_cast<size_t>(L) * static_cast<size_t>(S) * 4 + static_cast<size_t>(S / 4) * 8;
}

// Shared memory of the C2R's mixing prologue (mixing_c2r.cuh): the L * K mixed bins and, with G > 1 input-channel
// groups, their partial sums.
TURBOFNO_HOST_DEVICE constexpr size_t mixC2RSmemBytes(int L, int K, int G) {
    return (static_cast<size_t>(L) * static_cast<size_t>(K) * (G > 1 ? 1 + static_cast<size_t>(G) : 1)) * 8;
}

// Shared memory of an FFT pass block at most: 48 KB (no opt-in) for blocks of several lines and for
// column FFTs; a block of one long line (8192 points: about 84 KB with its tables) opts in up to kFftSmemMax.
constexpr size_t kFftSmemLimit = 48 * 1024;
constexpr size_t kFftSmemMax = 96 * 1024;  // the plan's shared-memory budget (plan.h, kSmemBudget, asserted there)
constexpr size_t fftSmemAllowed(int lines) { return lines == 1 ? kFftSmemMax : kFftSmemLimit; }

}  // namespace cuda
}  // namespace turbofno
