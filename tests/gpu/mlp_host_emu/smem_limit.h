// Host stand-in for plugins/cuda/smem_limit.h (tests/gpu/mlp_host_emu): nothing to opt into.
#pragma once
#include <atomic>
#include <cstddef>
namespace turbofno {
namespace cuda {
constexpr size_t kSmemBudget = 96 * 1024;  // as plugins/cuda/plan.h
template <typename Kernel>
cudaError_t allowSmem(Kernel, size_t, std::atomic<unsigned long long>&, size_t = kSmemBudget) { return cudaSuccess; }
}  // namespace cuda
}  // namespace turbofno
