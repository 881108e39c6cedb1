// Host stand-in for plugins/cuda/pdl.cuh (tests/gpu/one_kernel_host_emu): launchKernel runs the grid on
// CPU threads, block after block, one std::thread per CUDA thread, sharing one dynamic shared-memory
// buffer (oneKernelSmem4) that is filled with NaN before each block (a read of an unwritten value
// poisons the output); the dynamic shared-memory size is checked against the opted-in limit.
#pragma once

#include "smem_limit.h"

#include <limits>
#include <thread>
#include <vector>

namespace turbofno {
namespace cuda {

alignas(16) inline float4 oneKernelSmem4[112 * 1024 / 16];  // the kernel's `extern __shared__ float4 oneKernelSmem4[]`
inline long long gEmuBlocks = 0;

inline void gridDependencyWait() {}
inline void allowDependentLaunch() {}
inline bool pdlEnabled() { return false; }

template <typename... Params, typename... Args>
cudaError_t launchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smemBytes, cudaStream_t, Args... args) {
    if (smemBytes > sizeof(oneKernelSmem4) || smemBytes > gEmuSmemOptIn || grid.y != 1 || grid.z != 1 || block.y != 1 ||
        block.z != 1)
        return cudaErrorInvalidConfiguration;
    float* sm = reinterpret_cast<float*>(oneKernelSmem4);
    for (unsigned b = 0; b < grid.x; ++b) {
        blockIdx = make_uint3(b, 0, 0);
        blockDim = block;
        std::fill(sm, sm + sizeof(oneKernelSmem4) / sizeof(float), std::numeric_limits<float>::quiet_NaN());
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
