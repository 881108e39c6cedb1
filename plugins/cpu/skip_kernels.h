// The skip-epilogue primitives (kernels.h, SkipEpilogueFn) that live in files of their own.
#pragma once

#include <cstdint>

#include "kernels.h"

namespace turbofno {
namespace cpu {

#if TURBOFNO_CPU_X86_SIMD
void skipEpilogueAvx512(int64_t M, int64_t N, int64_t K, const float* W, int64_t ldw, const float* X, int64_t ldx,
                        float* C, int64_t ldc, float* Y, int64_t ldy, int32_t activation, bool streamY);
#endif

}  // namespace cpu
}  // namespace turbofno
