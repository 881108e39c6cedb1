// Host stand-in for plugins/cuda/pdl.cuh (tests/gpu/fft_host_emu): launchKernel runs the grid on CPU
// threads, block after block, 256 std::threads per block sharing one dynamic shared-memory buffer
// (fftSmem) that is filled with NaN before each block (a read of an unwritten value poisons the
// output), and checks the dynamic shared-memory size against the 48 KB no-opt-in limit, or the limit
// a kernel opted in to (smem_limit.h here).
#pragma once

#include "smem_limit.h"

#include <cstring>
#include <limits>
#include <thread>
#include <vector>

namespace turbofno {
namespace cuda {

alignas(16) inline float fftSmem[96 * 1024 / 4];  // the kernel's `extern __shared__ float fftSmem[]`
inline long long gEmuBlocks = 0;
inline size_t gEmuLastSmem = 0;

inline void gridDependencyWait() {}
inline void allowDependentLaunch() {}
inline bool pdlEnabled() { return false; }

template <typename... Params, typename... Args>
cudaError_t launchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smemBytes, cudaStream_t, Args... args) {
    if (smemBytes > sizeof(fftSmem) || smemBytes > gEmuSmemOptIn || grid.y != 1 || grid.z != 1 || block.y != 1 || block.z != 1) return cudaErrorInvalidConfiguration;
    gEmuLastSmem = smemBytes;
    for (unsigned b = 0; b < grid.x; ++b) {
        blockIdx = make_uint3(b, 0, 0);
        blockDim = block;
        std::fill(fftSmem, fftSmem + sizeof(fftSmem) / sizeof(float), std::numeric_limits<float>::quiet_NaN());
        std::barrier<> bar(block.x);
        gBlockBarrier = &bar;
        std::vector<std::thread> threads;
        threads.reserve(block.x);
        for (unsigned t = 0; t < block.x; ++t)
            threads.emplace_back([&, t] {
                threadIdx = make_uint3(t, 0, 0);
                kernel(static_cast<Params>(args)...);
            });
        for (auto& th : threads) th.join();
        ++gEmuBlocks;
    }
    return cudaSuccess;
}

}  // namespace cuda
}  // namespace turbofno
