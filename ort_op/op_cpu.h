// SpectralConv on ORT's CPUExecutionProvider: float32 and float16 tensors, calls core::runCpu.
#pragma once

#include <vector>

#include <onnxruntime_c_api.h>

namespace turbofno {
namespace ort {

// The CPU ops, one per weight type (float32 and float16 run; bfloat16 and float64 report a clear
// error); static, valid for the life of the library.
std::vector<const OrtCustomOp*> cpuCustomOps();

}  // namespace ort
}  // namespace turbofno
