// The two compute primitives of the CPU kernel, in one table per instruction set.
// The table is picked once at run time (cpuKernels()); no code here needs -march flags.
#pragma once

#include <cstdint>

namespace turbofno {
namespace cpu {

// C[M,N] = A[M,K] * B[K,N] (+ bias[i / rowsPerBias] on row i when bias != nullptr).
// Row-major with leading dimensions lda, ldb, ldc (in floats). C must not alias A or B.
using SgemmFn = void (*)(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                         float* C, int64_t ldc, const float* bias, int64_t rowsPerBias);

// y[c] += x[c] * w[c] for `count` complex numbers stored interleaved (re, im).
using ComplexMulAccFn = void (*)(float* y, const float* x, const float* w, int64_t count);

struct CpuKernels {
    const char* name;  // "avx512", "avx2" or "portable"
    SgemmFn sgemm;
    ComplexMulAccFn complexMulAcc;
};

CpuKernels portableKernels();
#if defined(__x86_64__) || defined(_M_X64)
CpuKernels avx2Kernels();
CpuKernels avx512Kernels();
#endif

// Best table the CPU supports; TURBOFNO_CPU_ISA=portable|avx2|avx512 caps the choice (for tests).
const CpuKernels& cpuKernels();

}  // namespace cpu
}  // namespace turbofno
