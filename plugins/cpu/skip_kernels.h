// The skip-epilogue primitives (kernels.h, SkipEpilogueFn) that live in files of their own.
#pragma once

#include <cstdint>

#include "kernels.h"

namespace turbofno {
namespace cpu {

#if TURBOFNO_CPU_X86_SIMD
void skipEpilogueAvx512(const SkipEpilogueArgs& args);
#endif

}  // namespace cpu
}  // namespace turbofno
