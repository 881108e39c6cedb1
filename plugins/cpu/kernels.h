// The two compute primitives of the CPU kernel, in one table per instruction set.
// The table is picked once at run time (cpuKernels()); no code here needs -march flags.
#pragma once

#include <cstdint>

namespace turbofno {
namespace cpu {

// C[M,N] = A[M,K] * B[K,N] (+ bias[i / rowsPerBias] on row i when bias != nullptr), or with
// accumulate: C[M,N] += A * B (+ bias). Row-major with leading dimensions lda, ldb, ldc (in floats).
// C must not alias A or B. streamC: C is not read again soon (the layer output): aligned full
// vectors are written with non-temporal stores, which saves the read-for-ownership traffic of a
// cold destination.
using SgemmFn = void (*)(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                         float* C, int64_t ldc, const float* bias, int64_t rowsPerBias, bool streamC,
                         bool accumulate);

// One column panel of a "pair" product, the kernel of the last-axis real DFTs (last_axis.h):
// C[i][j] (+)= sum_{p<K} A[i][2p + j%2] * B[p][j] for i < M, j < w (w even, at most kPairPanel).
// A rows hold K (a, b) pairs, so each output pair (even, odd column) takes its own operand from the
// pair; B is one panel, row-major [K][w] (leading dimension w). accumulate: add to C, else overwrite.
// With a = x[t] + x[S-t], b = x[t] - x[S-t] (or a spectrum's (re, im)) this is half the work of the
// plain product over all t (or over re and im separately).
constexpr int kPairPanel = 32;
using PairPanelFn = void (*)(int64_t M, int64_t w, int64_t K, const float* A, int64_t lda, const float* B, float* C,
                             int64_t ldc, bool accumulate);

// The sample pairing around the pair products, for 0 < lo <= t < hi with t < S - t:
//   fold:   out[2(t-lo)] = x[t] + x[S-t], out[2(t-lo)+1] = x[t] - x[S-t]
//   unfold: y[t] = ab[2(t-lo)] + ab[2(t-lo)+1] + bias, y[S-t] = ab[2(t-lo)] - ab[2(t-lo)+1] + bias
using PairFoldFn = void (*)(const float* x, int64_t S, int64_t lo, int64_t hi, float* out);
using PairUnfoldFn = void (*)(const float* ab, int64_t S, int64_t lo, int64_t hi, float bias, float* y);

// The second fold (last_axis.h, "quad"): samples t, S-t, L-t and L+t (L = S/2, S even) together, for
// 0 < lo <= t < hi with t < L - t. With p = x[t] + x[S-t], q = x[t] - x[S-t], r = x[L-t] + x[L+t],
// s = x[L-t] - x[L+t]:
//   fold:   even[2(t-lo)] = p + r, even[2(t-lo)+1] = q - s   (the operands of the even modes)
//           odd[2(t-lo)]  = p - r, odd[2(t-lo)+1]  = q + s   (the odd modes)
//   unfold: with (Ae, Be) = even[2(t-lo)..], (Ao, Bo) = odd[2(t-lo)..], A = Ae + Ao, B = Be + Bo,
//           A' = Ae - Ao, B' = Bo - Be: y[t] = A + B, y[S-t] = A - B, y[L-t] = A' + B',
//           y[L+t] = A' - B' (each + bias)
using QuadFoldFn = void (*)(const float* x, int64_t S, int64_t lo, int64_t hi, float* even, float* odd);
using QuadUnfoldFn = void (*)(const float* even, const float* odd, int64_t S, int64_t lo, int64_t hi, float bias,
                              float* y);

// For each batch entry n < batch: y_n[c] += sum_r x_n[r][c] * w[r][c] over r < rows (1..kMaxMacRows)
// and c < count, where y_n = y + n * yStride and x_n[r] = x[r] + n * xStride. Complex numbers are
// interleaved (re, im). Several rows per call cut the read-modify-write traffic on y; the weight
// rows are loaded once for the whole batch.
constexpr int kMaxMacRows = 4;
using ComplexMacFn = void (*)(float* y, int64_t yStride, const float* const* x, int64_t xStride,
                              const float* const* w, int rows, int64_t batch, int64_t count);

// IEEE fp16 <-> fp32 arrays (round to nearest even on the way back).
using HalfToFloatFn = void (*)(const uint16_t* src, int64_t count, float* dst);
using FloatToHalfFn = void (*)(const float* src, int64_t count, uint16_t* dst);

// dst[i] = act(src[i]) for i < count (src == dst allowed); `activation` is a core::Activation value.
// Same arithmetic on every ISA (activation.h), vectorized by the compiler per table.
using ActivationFn = void (*)(const float* src, float* dst, int64_t count, int32_t activation);

// The skip layer's epilogue on a chunk of points (run_cpu.cpp, skipEpilogue): for o < M, j < N
//   Y[o][j] = act(init[o][j] + sum_{i<K} W[o][i] X[i][j] + sum_{m<K2} L[o][m] F[m][j])
// init = C[o][j] (the spectral part plus bias, computed beforehand) when C != nullptr, else bias[o]
// (0 without a bias); the K2 terms fold the plain last-axis inverse (L: the spectra, F: columns of
// the inverse table) into the same sums. Row-major with leading dimensions; Y may equal C.
// `activation` is a core::Activation value. The SIMD versions go column panel by column panel (X
// copied into a contiguous panel, every register tile, the activation while the panel is in L1), so
// X is read once and Y written once, non-temporally with streamY (full aligned vectors).
struct SkipEpilogueArgs {
    int64_t M = 0, N = 0;
    int64_t K = 0;
    const float* W = nullptr;
    int64_t ldw = 0;
    const float* X = nullptr;
    int64_t ldx = 0;
    int64_t K2 = 0;
    const float* L = nullptr;
    int64_t ldl = 0;
    const float* F = nullptr;
    int64_t ldf = 0;
    const float* C = nullptr;
    int64_t ldc = 0;
    const float* bias = nullptr;
    float* Y = nullptr;
    int64_t ldy = 0;
    int32_t activation = 0;
    bool streamY = false;
};
using SkipEpilogueFn = void (*)(const SkipEpilogueArgs& args);

struct CpuKernels {
    const char* name;  // "avx512", "avx2" or "portable"
    SgemmFn sgemm;
    PairPanelFn pairPanel;
    PairFoldFn pairFold;
    PairUnfoldFn pairUnfold;
    QuadFoldFn quadFold;
    QuadUnfoldFn quadUnfold;
    ComplexMacFn complexMac;
    HalfToFloatFn halfToFloat;
    FloatToHalfFn floatToHalf;
    ActivationFn activation;
    SkipEpilogueFn skipEpilogue;
};

// SIMD tables: x86-64 with GCC or Clang (per-function target attributes, __builtin_cpu_supports).
// -DTURBOFNO_CPU_X86_SIMD=0 builds the portable kernels only.
#ifndef TURBOFNO_CPU_X86_SIMD
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TURBOFNO_CPU_X86_SIMD 1
#else
#define TURBOFNO_CPU_X86_SIMD 0
#endif
#endif

CpuKernels portableKernels();
#if TURBOFNO_CPU_X86_SIMD
CpuKernels avx2Kernels();
CpuKernels avx512Kernels();
#endif

// Thread-local scratch of at least `floats` floats, 64-byte aligned, reused across calls: the SIMD
// GEMMs copy B into contiguous column panels there (strided B rows alias in the L1 cache).
float* gemmPackBuffer(int64_t floats);

// Best table the CPU supports; TURBOFNO_CPU_ISA=portable|avx2|avx512 caps the choice (for tests).
const CpuKernels& cpuKernels();

}  // namespace cpu
}  // namespace turbofno
