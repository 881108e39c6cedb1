// The execution-provider-independent part of the ORT SpectralConv op: attribute reading, validation,
// input/output plumbing and the OrtCustomOp callbacks every EP shares. op_cpu.cc and op_cuda.cc add
// only their kernel call. Errors are returned as OrtStatus* (ORT_INVALID_ARGUMENT) formatted
// "SpectralConv node '<name>': <problem>"; nothing here throws across the C API.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <onnxruntime_c_api.h>

#include "turbofno/core.h"

namespace turbofno {
namespace ort {

// The ORT C API version this library requests and declares in OrtCustomOp::version. 17 is the
// first with CreateKernelV2/KernelComputeV2 (16) and InferOutputShapeFn (17): ONNX Runtime >= 1.17.
constexpr uint32_t kOrtApiVersion = 17;

// The OrtApi handed to RegisterCustomOps (set once there, read by every callback).
const OrtApi* api();
void setApi(const OrtApi* api);

// Node-level state built at kernel creation (attributes read and validated).
struct NodeState {
    std::string name;
    core::SpectralConvAttrs attrs;
};

// ORT_INVALID_ARGUMENT status "SpectralConv node '<node>': <problem>".
OrtStatus* nodeError(const std::string& node, const std::string& problem);
OrtStatus* nodeError(const std::string& node, const std::string& problem, OrtErrorCode code);

// Reads the node name and the attributes modes_low, modes_high, norm, separable, activation from
// `info` and runs core::validateAttrs.
OrtStatus* readNode(const OrtKernelInfo* info, NodeState* node);

// One run's inputs and output, resolved and validated.
struct RunTensors {
    core::SpectralConvParams params;    // shape, dtype and data pointers filled
    ONNXTensorElementDataType onnxType = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
};

// Bit mask of the element types a kernel supports (kSupportFloat | ...).
enum : unsigned { kSupportFloat = 1u, kSupportFloat16 = 2u, kSupportBFloat16 = 4u };

// Reads x, weight and the optional bias and skip_weight from `ctx`, checks dtypes against `supported` (`epName`
// names the kernel in the message), runs core::inferShape and allocates the output.
OrtStatus* prepareRun(OrtKernelContext* ctx, const NodeState& node, unsigned supported, const char* epName,
                      RunTensors* run);

// Fills the EP-independent OrtCustomOp callbacks: name, 4 inputs (bias and skip_weight optional) and
// 1 output of any tensor type (checked at run time, so a bad dtype gets a clear error), output shape
// inference, versions kOpMinVersion..kOpVersion. The caller sets GetExecutionProviderType, CreateKernelV2, KernelComputeV2, KernelDestroy,
// then registers the result through makeTypedOps.
void fillCommonOp(OrtCustomOp* op);

// An op whose weight and bias have a declared element type; x and y stay dynamically typed.
struct SpectralConvOp : OrtCustomOp {
    ONNXTensorElementDataType paramType = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
};

// Copies `prototype` (filled by fillCommonOp + the EP callbacks) once per weight element type.
// Why: ONNX Runtime before ~1.2x accepts a dynamically typed output only when exactly one input is
// dynamically typed, so x is the dynamic one and weight/bias are declared per registered type. A
// bad x dtype or x/weight mismatch still reaches prepareRun and gets our message. The ops live for
// the life of the library.
std::vector<const OrtCustomOp*> makeTypedOps(const OrtCustomOp& prototype,
                                             std::initializer_list<ONNXTensorElementDataType> paramTypes);

}  // namespace ort
}  // namespace turbofno
