// Host stand-in for plugins/cuda/smem_limit.h (tests/gpu/fft_host_emu): records the opt-in, so that the
// stand-in launchKernel (pdl.cuh here) accepts more than 48 KB of shared memory only after it.
#pragma once

#include <atomic>

namespace turbofno {
namespace cuda {

inline size_t gEmuSmemOptIn = 48 * 1024;

template <typename Kernel>
cudaError_t allowSmem(Kernel, size_t bytes, std::atomic<unsigned long long>&, size_t limit) {
    if (bytes <= 48 * 1024) return cudaSuccess;
    if (bytes > limit) return cudaErrorInvalidValue;
    gEmuSmemOptIn = std::max(gEmuSmemOptIn, limit);
    return cudaSuccess;
}

}  // namespace cuda
}  // namespace turbofno
