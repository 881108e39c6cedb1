// SpectralConv on ORT's CUDAExecutionProvider: float32, float16 and bfloat16 device tensors; calls
// core::launchCuda on ORT's compute stream with scratch from ORT's allocator (no host sync).
#pragma once

#include <vector>

#include <onnxruntime_c_api.h>

namespace turbofno {
namespace ort {

// The CUDA op(s) (static objects, valid for the life of the library).
std::vector<const OrtCustomOp*> cudaCustomOps();

}  // namespace ort
}  // namespace turbofno
