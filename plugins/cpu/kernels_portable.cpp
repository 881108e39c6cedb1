// Plain C++ kernels: the fallback on any CPU, and the reference the SIMD kernels are tested against.
#include "kernels.h"

namespace turbofno {
namespace cpu {
namespace {

void sgemmPortable(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                   float* C, int64_t ldc, const float* bias, int64_t rowsPerBias) {
    for (int64_t i = 0; i < M; ++i) {
        float* __restrict c = C + i * ldc;
        const float b0 = bias ? bias[i / rowsPerBias] : 0.0f;
        for (int64_t j = 0; j < N; ++j) c[j] = b0;
        for (int64_t p = 0; p < K; ++p) {
            const float a = A[i * lda + p];
            const float* __restrict b = B + p * ldb;
            for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
        }
    }
}

void complexMulAccPortable(float* y, const float* x, const float* w, int64_t count) {
    for (int64_t c = 0; c < count; ++c) {
        const float xr = x[2 * c], xi = x[2 * c + 1], wr = w[2 * c], wi = w[2 * c + 1];
        y[2 * c] += xr * wr - xi * wi;
        y[2 * c + 1] += xr * wi + xi * wr;
    }
}

}  // namespace

CpuKernels portableKernels() { return {"portable", sgemmPortable, complexMulAccPortable}; }

}  // namespace cpu
}  // namespace turbofno
