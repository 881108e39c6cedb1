// Plain C++ kernels: the fallback on any CPU, and the reference the SIMD kernels are tested against.
#include "activation.h"
#include "half.h"
#include "kernels.h"

namespace turbofno {
namespace cpu {
namespace {

void sgemmPortable(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B, int64_t ldb,
                   float* C, int64_t ldc, const float* bias, int64_t rowsPerBias, bool /*streamC*/,
                   bool accumulate) {
    for (int64_t i = 0; i < M; ++i) {
        float* __restrict c = C + i * ldc;
        const float b0 = bias ? bias[i / rowsPerBias] : 0.0f;
        for (int64_t j = 0; j < N; ++j) c[j] = (accumulate ? c[j] : 0.0f) + b0;
        for (int64_t p = 0; p < K; ++p) {
            const float a = A[i * lda + p];
            const float* __restrict b = B + p * ldb;
            for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
        }
    }
}

void pairPanelPortable(int64_t M, int64_t w, int64_t K, const float* A, int64_t lda, const float* B, float* C,
                       int64_t ldc, bool accumulate) {
    for (int64_t i = 0; i < M; ++i) {
        float* __restrict c = C + i * ldc;
        if (!accumulate)
            for (int64_t j = 0; j < w; ++j) c[j] = 0.0f;
        for (int64_t p = 0; p < K; ++p) {
            const float a = A[i * lda + 2 * p], b = A[i * lda + 2 * p + 1];
            const float* __restrict row = B + p * w;
            for (int64_t j = 0; j < w; j += 2) {
                c[j] += a * row[j];
                c[j + 1] += b * row[j + 1];
            }
        }
    }
}

void pairFoldPortable(const float* x, int64_t S, int64_t lo, int64_t hi, float* out) {
    for (int64_t t = lo; t < hi; ++t) {
        const float p = x[t], q = x[S - t];
        out[2 * (t - lo)] = p + q;
        out[2 * (t - lo) + 1] = p - q;
    }
}

void pairUnfoldPortable(const float* ab, int64_t S, int64_t lo, int64_t hi, float bias, float* y) {
    for (int64_t t = lo; t < hi; ++t) {
        const float a = ab[2 * (t - lo)], b = ab[2 * (t - lo) + 1];
        y[t] = a + b + bias;
        y[S - t] = a - b + bias;
    }
}

void quadFoldPortable(const float* x, int64_t S, int64_t lo, int64_t hi, float* even, float* odd) {
    const int64_t L = S / 2;
    for (int64_t t = lo; t < hi; ++t) {
        const float a = x[t], b = x[S - t], c = x[L - t], d = x[L + t];
        const float p = a + b, q = a - b, r = c + d, s = c - d;
        even[2 * (t - lo)] = p + r;
        even[2 * (t - lo) + 1] = q - s;
        odd[2 * (t - lo)] = p - r;
        odd[2 * (t - lo) + 1] = q + s;
    }
}

void quadUnfoldPortable(const float* even, const float* odd, int64_t S, int64_t lo, int64_t hi, float bias,
                        float* y) {
    const int64_t L = S / 2;
    for (int64_t t = lo; t < hi; ++t) {
        const float ae = even[2 * (t - lo)], be = even[2 * (t - lo) + 1];
        const float ao = odd[2 * (t - lo)], bo = odd[2 * (t - lo) + 1];
        const float a = ae + ao + bias, b = be + bo, a2 = ae - ao + bias, b2 = bo - be;
        y[t] = a + b;
        y[S - t] = a - b;
        y[L - t] = a2 + b2;
        y[L + t] = a2 - b2;
    }
}

void complexMacPortable(float* y, int64_t yStride, const float* const* x, int64_t xStride, const float* const* w,
                        int rows, int64_t batch, int64_t count) {
    for (int64_t n = 0; n < batch; ++n) {
        float* __restrict yn = y + n * yStride;
        for (int r = 0; r < rows; ++r) {
            const float* __restrict xn = x[r] + n * xStride;
            const float* __restrict wr_ = w[r];
            for (int64_t c = 0; c < count; ++c) {
                const float xr = xn[2 * c], xi = xn[2 * c + 1], wr = wr_[2 * c], wi = wr_[2 * c + 1];
                yn[2 * c] += xr * wr - xi * wi;
                yn[2 * c + 1] += xr * wi + xi * wr;
            }
        }
    }
}

void halfToFloatPortable(const uint16_t* src, int64_t count, float* dst) {
    for (int64_t i = 0; i < count; ++i) dst[i] = halfToFloat(src[i]);
}

void floatToHalfPortable(const float* src, int64_t count, uint16_t* dst) {
    for (int64_t i = 0; i < count; ++i) dst[i] = floatToHalf(src[i]);
}

void activationPortable(const float* src, float* dst, int64_t count, int32_t activation) {
    applyActivation(src, dst, count, activation);
}

void skipEpiloguePortable(const SkipEpilogueArgs& a) {
    for (int64_t o = 0; o < a.M; ++o) {  // init
        float* y = a.Y + o * a.ldy;
        if (a.C) {
            if (a.C != a.Y)
                for (int64_t j = 0; j < a.N; ++j) y[j] = a.C[o * a.ldc + j];
        } else {
            for (int64_t j = 0; j < a.N; ++j) y[j] = a.bias ? a.bias[o] : 0.0f;
        }
    }
    if (a.K2 > 0) sgemmPortable(a.M, a.N, a.K2, a.L, a.ldl, a.F, a.ldf, a.Y, a.ldy, nullptr, 1, false, true);
    sgemmPortable(a.M, a.N, a.K, a.W, a.ldw, a.X, a.ldx, a.Y, a.ldy, nullptr, 1, false, true);
    for (int64_t o = 0; o < a.M; ++o) applyActivation(a.Y + o * a.ldy, a.Y + o * a.ldy, a.N, a.activation);
}

}  // namespace

CpuKernels portableKernels() {
    return {"portable",          sgemmPortable,        pairPanelPortable,   pairFoldPortable,
            pairUnfoldPortable,  quadFoldPortable,     quadUnfoldPortable,  complexMacPortable,
            halfToFloatPortable, floatToHalfPortable,  activationPortable,  skipEpiloguePortable};
}

}  // namespace cpu
}  // namespace turbofno
