// The part both PointwiseMLP plugin interfaces share: creator fields, attribute parsing, the V2 byte
// format, shapes/workspace via the core, and the launch. It only translates between TensorRT types
// and the core API (plugins/include/turbofno/pointwise_mlp.h, launchMlpCuda in cuda.h); the
// op-independent helpers are pluginCommon.h's.
//
// Inputs are positional in TensorRT, so the plugin keeps the ONNX input order and reads the input
// count as "which optional inputs are there": a prefix of
//   0 x [N, Cin, *S], 1 W1 [Ch, Cin], 2 B1 [Ch], 3 W2 [Cout, Ch], 4 B2 [Cout], 5 R [N, Cout, *S], 6 G [Cout]
// of 4 to 7 inputs. B1 is always present (zeros for none); B2 is needed when R is given, R when G is.
// An input in a slot that does not fit (e.g. W2 arriving at slot 2 because an absent B1 was dropped)
// is rejected with a message that says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <NvInferRuntime.h>

#include "pluginCommon.h"
#include "turbofno/pointwise_mlp.h"

namespace turbofno {
namespace trt {

// Plugin name == ONNX op_type; V3 version "1" == the ONNX node's plugin_version attribute.
constexpr char const* kMLP_PLUGIN_NAME = core::kMlpOpType;
constexpr char const* kMLP_PLUGIN_VERSION = core::kPluginVersion;
constexpr int32_t kMLP_MIN_INPUTS = 4;  // x, W1, B1, W2 (B1 zeros for none: inputs are positional)
constexpr int32_t kMLP_MAX_INPUTS = core::kMlpInputCount;  // + B2, R, G
// "expected 4 to 7 inputs (x, W1, B1, W2[, B2[, R[, G]]]) ..., got <n>"
std::string mlpInputCountMessage(int32_t nbInputs);

// The creator's field list: hidden_activation, activation (kINT32, one value each; both optional).
nvinfer1::PluginFieldCollection const* mlpCreatorFieldNames() noexcept;

// Attributes from fields as TensorRT's ONNX parser passes them (INT -> one int32; absent attribute ->
// absent field, default hidden_activation 1 = gelu, activation 0 = identity) or as
// getFieldsToSerialize wrote them. kINT64 fields are accepted when they fit int32. Throws PluginError
// naming the problem; the result has passed core::validateMlpAttrs. `state` (optional) receives
// kBUILD_STATE_FIELD when present (zeros otherwise).
core::PointwiseMlpAttrs mlpAttrsFromFields(nvinfer1::PluginFieldCollection const* fc, BuildState* state = nullptr);

// Owns the field array that describes one attribute set (for getFieldsToSerialize).
class MlpAttrFields {
public:
    void assign(core::PointwiseMlpAttrs const& attrs, BuildState const& state = {});
    nvinfer1::PluginFieldCollection const* collection() const noexcept { return &mCollection; }

private:
    int32_t mHidden = 0;
    int32_t mActivation = 0;
    BuildStateStorage mState;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

// V2 serialization: magic "TFMP", format version 1, hidden_activation, activation, the input count
// seen by configurePlugin (0 = not configured yet, else 4 to 7), the workspace bound (uint64) and an
// FNV-1a checksum of everything before it; 32 bytes, little-endian.
constexpr size_t kMLP_SERIALIZED_BYTES = 4 * 5 + 8 + 4;
void serializeMlp(core::PointwiseMlpAttrs const& attrs, int32_t nbInputs, size_t workspaceBound, void* buffer);
// Throws PluginError on null data, a wrong length, magic, version, checksum, invalid attributes or an
// invalid input count.
core::PointwiseMlpAttrs deserializeMlp(void const* data, size_t length, int32_t* nbInputs, size_t* workspaceBound);

// supportsFormatCombination for both interfaces (LINEAR, one of fp32/fp16/bf16 for all tensors).
bool supportsMlpCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
                            int32_t nbOutputs) noexcept;
bool supportsMlpCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
                            int32_t nbOutputs) noexcept;

// core::inferMlpShape on TensorRT dims (slot k = input k); throws PluginError with its message.
core::PointwiseMlpShape mlpInferShape(nvinfer1::Dims const* inputDims, int32_t nbInputs);

// Build-time validation: every fully known dims set (desc, min, opt, max) must pass mlpInferShape.
void mlpCheckBuildShapes(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs);

// The workspace of a profile: the largest core::mlpCudaWorkspaceBytes of its min, opt and max shapes
// (the network dims when the bounds are unset). enqueue refuses any shape needing more than was
// reserved, so a non-monotone core size cannot overrun TensorRT's workspace.
size_t mlpWorkspaceForProfile(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs);
// The same from explicit per-input bounds (V2 keeps them from configurePlugin).
size_t mlpWorkspaceForBounds(nvinfer1::Dims const* lo, nvinfer1::Dims const* opt, nvinfer1::Dims const* hi,
                             int32_t nbInputs, nvinfer1::DataType type);
// The bytes one concrete call needs.
size_t mlpWorkspaceForDims(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs);

// Output dims as expressions: [N, Cout, *S] from x (batch, spatial) and W2 (dim 0). When every input
// extent is a constant they come from core::inferMlpShape / core::mlpOutputDims (bad shapes fail here).
void mlpOutputShapeExprs(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs& output,
                         nvinfer1::IExprBuilder& exprBuilder);

// Validates descriptors against the core, fills the params and calls core::launchMlpCuda.
// `workspaceBound`: bytes reserved at build time (0: unknown). Throws PluginError on bad shapes/types,
// too little workspace or a CUDA error.
void mlpLaunch(core::PointwiseMlpAttrs const& attrs, nvinfer1::PluginTensorDesc const* inputDesc, int32_t nbInputs,
               nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
               void* workspace, size_t workspaceBound, cudaStream_t stream);

}  // namespace trt
}  // namespace turbofno
