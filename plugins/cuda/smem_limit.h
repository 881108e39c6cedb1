// Opting a kernel into more than 48 KB of dynamic shared memory, once per device.
#pragma once

#include <cuda_runtime.h>

#include <atomic>

#include "plan.h"

namespace turbofno {
namespace cuda {

// Raises a kernel's dynamic shared-memory limit to `limit` (default: the plan budget) once per device
// (the first call, outside any graph capture when callers warm up first, as ORT and TensorRT do).
template <typename Kernel>
cudaError_t allowSmem(Kernel kernel, size_t bytes, std::atomic<unsigned long long>& doneMask, size_t limit = kSmemBudget) {
    if (bytes <= 48 * 1024) return cudaSuccess;
    if (bytes > limit) return cudaErrorInvalidValue;
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    const unsigned long long bit = 1ull << (device & 63);
    if (doneMask.load(std::memory_order_acquire) & bit) return cudaSuccess;
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(limit));
    if (err == cudaSuccess) doneMask.fetch_or(bit, std::memory_order_acq_rel);
    return err;
}

}  // namespace cuda
}  // namespace turbofno
