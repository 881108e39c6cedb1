#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels.h"

namespace turbofno {
namespace cpu {
namespace {

CpuKernels selectKernels() {
    const char* cap = std::getenv("TURBOFNO_CPU_ISA");
    const bool allow512 = !cap || std::strcmp(cap, "avx512") == 0;
    const bool allow2 = allow512 || std::strcmp(cap, "avx2") == 0;
#if TURBOFNO_CPU_X86_SIMD
    __builtin_cpu_init();
    if (allow512 && __builtin_cpu_supports("avx512f")) return avx512Kernels();
    if (allow2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("f16c"))
        return avx2Kernels();
#else
    (void)allow2;
#endif
    return portableKernels();
}

}  // namespace

float* gemmPackBuffer(int64_t floats) {
    thread_local std::vector<float> buffer;
    const size_t need = static_cast<size_t>(floats) + 16;
    if (buffer.size() < need) buffer.resize(need);
    const uintptr_t raw = reinterpret_cast<uintptr_t>(buffer.data());
    return buffer.data() + ((64 - raw % 64) % 64) / sizeof(float);
}

const CpuKernels& cpuKernels() {
    static const CpuKernels kernels = selectKernels();
    return kernels;
}

}  // namespace cpu
}  // namespace turbofno
