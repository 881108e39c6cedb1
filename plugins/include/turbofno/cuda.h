// CUDA kernel entry point (plugins/cuda/). No ORT/TRT types. Header usable from plain C++.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "turbofno/core.h"
#include "turbofno/pointwise_mlp.h"

namespace turbofno {
namespace core {

// Enqueues the fused layer on `stream` (no host synchronisation, no allocation).
// `params` must come from a successful inferShape; pointers are device pointers.
// `workspace` must hold cudaWorkspaceBytes(params.shape, params.dtype) bytes (16-byte aligned).
// Returns the first CUDA error met (e.g. cudaErrorInvalidValue for a null pointer).
cudaError_t launchCuda(const SpectralConvParams& params, void* workspace, size_t workspaceBytes, cudaStream_t stream);

// Enqueues a PointwiseMLP (pointwise_mlp.h) on `stream`; `params` from a successful inferMlpShape,
// device pointers, workspace of mlpCudaWorkspaceBytes bytes.
cudaError_t launchMlpCuda(const PointwiseMlpParams& params, void* workspace, size_t workspaceBytes,
                          cudaStream_t stream);

}  // namespace core
}  // namespace turbofno
