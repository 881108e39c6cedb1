#include <cstdlib>
#include <cstring>

#include "kernels.h"

namespace turbofno {
namespace cpu {
namespace {

CpuKernels selectKernels() {
    const char* cap = std::getenv("TURBOFNO_CPU_ISA");
    const bool allow512 = !cap || std::strcmp(cap, "avx512") == 0;
    const bool allow2 = allow512 || std::strcmp(cap, "avx2") == 0;
#if defined(__x86_64__) || defined(_M_X64)
    __builtin_cpu_init();
    if (allow512 && __builtin_cpu_supports("avx512f")) return avx512Kernels();
    if (allow2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return avx2Kernels();
#else
    (void)allow2;
#endif
    return portableKernels();
}

}  // namespace

const CpuKernels& cpuKernels() {
    static const CpuKernels kernels = selectKernels();
    return kernels;
}

}  // namespace cpu
}  // namespace turbofno
