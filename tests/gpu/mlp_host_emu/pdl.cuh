// Host stand-in for plugins/cuda/pdl.cuh (tests/gpu/mlp_host_emu): launchKernel runs the grid on CPU
// threads, block after block, 256 std::threads per block sharing one shared-memory buffer that is
// filled with NaN before each block (a read of an unwritten value poisons the output).
#pragma once

#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

namespace turbofno {
namespace cuda {

inline BlockBarrier* gWarpBarrier[32];  // mma_tf32.cuh (host stand-in): the warps' barriers

alignas(16) inline float smem[112 * 1024 / 4];  // the kernel's `extern __shared__ float smem[]`
inline long long gEmuBlocks = 0;               // blocks run (for the harness's report)

inline void gridDependencyWait() {}
inline void allowDependentLaunch() {}
inline bool pdlEnabled() { return false; }
inline void setPdlOverride(int) {}

template <typename... Params, typename... Args>
cudaError_t launchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smemBytes, cudaStream_t, Args... args) {
    if (smemBytes > sizeof(smem) || grid.y != 1 || grid.z != 1 || block.y != 1 || block.z != 1) return cudaErrorInvalidConfiguration;
    for (unsigned b = 0; b < grid.x; ++b) {
        blockIdx = make_uint3(b, 0, 0);
        blockDim = block;
        gridDim = grid;
        std::fill(smem, smem + sizeof(smem) / sizeof(float), std::numeric_limits<float>::quiet_NaN());
        BlockBarrier bar(block.x);
        gBlockBarrier = &bar;
        std::vector<std::unique_ptr<BlockBarrier>> warpBars;  // mma_tf32.cuh (host): one barrier per warp
        for (unsigned w = 0; w < block.x / 32 && w < 32; ++w) {
            warpBars.emplace_back(new BlockBarrier(32));
            gWarpBarrier[w] = warpBars.back().get();
        }
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
