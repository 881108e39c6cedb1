// SpectralConv on ORT's CPUExecutionProvider: float32 and float16 tensors, calls core::runCpu.
#pragma once

#include <onnxruntime_c_api.h>

namespace turbofno {
namespace ort {

// The CPU op (a static object, valid for the life of the library).
const OrtCustomOp* cpuCustomOp();

}  // namespace ort
}  // namespace turbofno
