// The execution-provider-independent part of the ORT SpectralConv op: attribute reading, validation,
// input/output plumbing and the OrtCustomOp callbacks every EP shares. op_cpu.cc and op_cuda.cc add
// only their kernel call. Errors are returned as OrtStatus* (ORT_INVALID_ARGUMENT) formatted
// "SpectralConv node '<name>': <problem>"; nothing here throws across the C API.
#pragma once

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <string>
#include <vector>

#include <onnxruntime_c_api.h>

#include "turbofno/core.h"

namespace turbofno {
namespace ort {

// Symbolic dim names for an inferred output shape `dims`: "" where the size is known; x's name where
// it is unknown and x has one; else a fresh unique name. ORT stores an unnamed dim as a known size, so
// an unnamed -1 would become a "known" -1 (seen: ORT's constant folding aborted on a fixed-size
// model). `store` owns the names the returned pointers point to.
std::vector<const char*> outputDimNames(const std::vector<int64_t>& dims, const std::vector<std::string>& xNames,
                                        std::vector<std::string>* store);

// The ORT C API version this library needs and declares in OrtCustomOp::version. 17 is the first
// with CreateKernelV2/KernelComputeV2 (16), InferOutputShapeFn and KernelContext_ParallelFor (17):
// ONNX Runtime >= 1.17.
constexpr uint32_t kOrtApiVersion = 17;
// The newest API version any code path uses: KernelContext_GetScratchBuffer (stream-aware scratch
// memory) is version 18 (ONNX Runtime 1.18). RegisterCustomOps asks for it first.
constexpr uint32_t kOrtApiVersionScratch = 18;

// The OrtApi handed to RegisterCustomOps (set once there, read by every callback) and the version
// it was obtained for (kOrtApiVersion or kOrtApiVersionScratch): members newer than that version
// must not be read.
const OrtApi* api();
uint32_t apiVersion();
void setApi(const OrtApi* api, uint32_t version);

// Node-level state built at kernel creation (attributes read and validated).
struct NodeState {
    std::string name;
    core::SpectralConvAttrs attrs;
};

// Status "<opType> node '<node>': <problem>" (every op's errors look alike).
OrtStatus* opError(const char* opType, const std::string& node, const std::string& problem,
                   OrtErrorCode code = ORT_INVALID_ARGUMENT);

// ORT_INVALID_ARGUMENT status "SpectralConv node '<node>': <problem>".
OrtStatus* nodeError(const std::string& node, const std::string& problem);
OrtStatus* nodeError(const std::string& node, const std::string& problem, OrtErrorCode code);

// The node's name ("" when ORT has none).
std::string readNodeName(const OrtKernelInfo* info);

// An optional INT attribute (`dflt` when absent); errors are opError(opType, nodeName, ...).
OrtStatus* readIntAttribute(const OrtKernelInfo* info, const char* opType, const std::string& nodeName,
                            const char* name, int64_t dflt, int64_t* value);

// "float32", "float16", ... for messages.
const char* dtypeName(ONNXTensorElementDataType t);

// Shape and element type of one input tensor (value == nullptr: an omitted optional input).
struct InputDesc {
    const OrtValue* value = nullptr;
    ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    std::vector<int64_t> dims;
};
OrtStatus* describeInput(OrtKernelContext* ctx, const char* opType, const std::string& nodeName, size_t index,
                         const char* name, InputDesc* desc);

// Reads the node name and the attributes modes_low, modes_high, norm, separable, activation from
// `info` and runs core::validateAttrs.
OrtStatus* readNode(const OrtKernelInfo* info, NodeState* node);

// CreateKernelV2 / KernelDestroy for every EP: `Kernel` derives from NodeState (plus the EP's
// per-node state); creation reads and validates the node's attributes (readNode).
template <class Kernel>
OrtStatusPtr ORT_API_CALL createKernel(const OrtCustomOp*, const OrtApi*, const OrtKernelInfo* info, void** kernel) {
    *kernel = nullptr;
    try {
        auto* node = new Kernel();
        if (OrtStatus* st = readNode(info, node)) {
            delete node;
            return st;
        }
        *kernel = node;
        return nullptr;
    } catch (const std::exception& e) {
        return nodeError("?", std::string("kernel creation failed: ") + e.what(), ORT_FAIL);
    }
}

template <class Kernel>
void ORT_API_CALL destroyKernel(void* kernel) {
    delete static_cast<Kernel*>(kernel);
}

// Copies and releases an ORT status's message.
std::string takeMessage(OrtStatus* st);

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
