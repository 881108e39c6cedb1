#include "transforms.h"

namespace turbofno {
namespace cpu {
namespace {

// prod = [P; Q] with P = C*Z and Q = S*Z (each [rows, cols], cols = interleaved complex).
// Forward (multiply by e^{-i theta}): out = (P_r + Q_i, P_i - Q_r).
void combineForward(const float* __restrict prod, int64_t rows, int64_t cols, float* __restrict out) {
    const float* P = prod;
    const float* Q = prod + rows * cols;
    for (int64_t i = 0; i < rows * cols; i += 2) {
        out[i] = P[i] + Q[i + 1];
        out[i + 1] = P[i + 1] - Q[i];
    }
}

// Inverse operand: stacked = [Z; iZ] where iZ = (-Z_i, Z_r), so that [C | S] * stacked is the
// complex product (C + iS) Z in one GEMM written straight to its destination. The inverse output
// is larger than its input, so swapping the input is cheaper than recombining the output.
void stackWithTimesI(const float* __restrict z, int64_t rows, int64_t cols, float* __restrict stacked) {
    float* zi = stacked + rows * cols;
    for (int64_t i = 0; i < rows * cols; i += 2) {
        stacked[i] = z[i];
        stacked[i + 1] = z[i + 1];
        zi[i] = -z[i + 1];
        zi[i + 1] = z[i];
    }
}

}  // namespace

void forwardAxes(const CpuPlan& plan, const CpuKernels& kern, const float* tables, const float* src, float* dst,
                 const AxisScratch& scratch) {
    const int d = plan.rank;
    float* bufs[2] = {scratch.bufA, scratch.bufB};
    int which = 0;
    for (int j = d - 2; j >= 0; --j) {
        int64_t lead = 1, cols = 2 * plan.k;
        for (int i = 0; i < j; ++i) lead *= plan.S[i];
        for (int i = j + 1; i < d - 1; ++i) cols *= plan.K[i];
        const int64_t S = plan.S[j], K = plan.K[j];
        float* out = j == 0 ? dst : bufs[which];
        which ^= 1;
        for (int64_t a = 0; a < lead; ++a) {
            kern.sgemm(2 * K, cols, S, tables + plan.offFwdAxis[j], S, src + a * S * cols, cols, scratch.prod, cols,
                       nullptr, 1, false, false);
            combineForward(scratch.prod, K, cols, out + a * K * cols);
        }
        src = out;
    }
}

void inverseAxes(const CpuPlan& plan, const CpuKernels& kern, const float* tables, const float* src, float* dst,
                 const AxisScratch& scratch, int64_t ldd) {
    const int d = plan.rank;
    float* bufs[2] = {scratch.bufA, scratch.bufB};
    int which = 0;
    for (int j = 0; j <= d - 2; ++j) {
        int64_t lead = 1, cols = 2 * plan.k;
        for (int i = 0; i < j; ++i) lead *= plan.T[i];
        for (int i = j + 1; i < d - 1; ++i) cols *= plan.K[i];
        const int64_t S = plan.T[j], K = plan.K[j];  // output length of this axis
        const bool last = j == d - 2;
        float* out = last ? dst : bufs[which];
        const int64_t ldo = last && ldd > 0 ? ldd : cols;  // output row stride
        which ^= 1;
        for (int64_t a = 0; a < lead; ++a) {
            stackWithTimesI(src + a * K * cols, K, cols, scratch.prod);
            kern.sgemm(S, cols, 2 * K, tables + plan.offInvAxis[j], 2 * K, scratch.prod, cols, out + a * S * ldo, ldo,
                       nullptr, 1, false, false);
        }
        src = out;
    }
}

void inverseAxis2dBlock(const CpuPlan& plan, const CpuKernels& kern, const float* tables, const float* src,
                        int64_t srcStride, int64_t count, float* dst, int64_t ldd, float* stacked) {
    const int64_t cols = 2 * plan.k, K = plan.K[0], width = count * cols;
    for (int64_t c = 0; c < count; ++c) {  // [Z; iZ] of channel c in columns c * cols .. + cols
        const float* z = src + c * srcStride;
        for (int64_t m = 0; m < K; ++m) {
            float* re = stacked + m * width + c * cols;
            float* im = stacked + (K + m) * width + c * cols;
            for (int64_t i = 0; i < cols; i += 2) {
                re[i] = z[m * cols + i];
                re[i + 1] = z[m * cols + i + 1];
                im[i] = -z[m * cols + i + 1];
                im[i + 1] = z[m * cols + i];
            }
        }
    }
    kern.sgemm(plan.T[0], width, 2 * K, tables + plan.offInvAxis[0], 2 * K, stacked, width, dst, ldd, nullptr, 1, false,
               false);
}

void forwardAxis2dBlock(const CpuPlan& plan, const CpuKernels& kern, const float* tables, const float* src,
                        int64_t count, float* dst, int64_t dstStride, float* prod) {
    const int64_t cols = 2 * plan.k, K = plan.K[0], S = plan.S[0], width = count * cols;
    kern.sgemm(2 * K, width, S, tables + plan.offFwdAxis[0], S, src, width, prod, width, nullptr, 1, false, false);
    for (int64_t c = 0; c < count; ++c) {  // (P_r + Q_i, P_i - Q_r) of channel c's columns
        float* __restrict out = dst + c * dstStride;
        for (int64_t m = 0; m < K; ++m) {
            const float* __restrict P = prod + m * width + c * cols;
            const float* __restrict Q = prod + (K + m) * width + c * cols;
            for (int64_t i = 0; i < cols; i += 2) {
                out[m * cols + i] = P[i] + Q[i + 1];
                out[m * cols + i + 1] = P[i + 1] - Q[i];
            }
        }
    }
}

}  // namespace cpu
}  // namespace turbofno
