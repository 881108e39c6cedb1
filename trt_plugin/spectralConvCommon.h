// The part both TensorRT plugin interfaces share: creator fields, attribute parsing, the V2 byte
// format, type/format support, and the launch. It only translates between TensorRT types and the
// core API (plugins/include/turbofno): validation, shapes, workspace and the kernel live there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <NvInferRuntime.h>

#include "pluginCommon.h"
#include "turbofno/core.h"

namespace turbofno {
namespace trt {

// Plugin name == ONNX op_type; version "1" == the ONNX node's plugin_version attribute.
constexpr char const* kPLUGIN_NAME = core::kOpType;
constexpr char const* kPLUGIN_VERSION = core::kPluginVersion;
// The V2 creator's version: kLEGACY_PLUGIN_VERSION (pluginCommon.h).
constexpr int32_t kMIN_INPUTS = 2;  // x, weight
constexpr int32_t kMAX_INPUTS = 4;  // x, weight, bias, skip_weight (a skip weight needs the bias input:
                                    // TensorRT inputs are positional, pass zeros for no bias)
// "expected 2 to 4 inputs (x, weight[, bias[, skip_weight]]), got <n>"
std::string inputCountMessage(int32_t nbInputs);

// For catch blocks: "SpectralConv '<layer>': <what>: <reason>" (pluginCommon.h's logCaught).
inline void logCaught(char const* layerName, char const* what) noexcept { logCaught(kPLUGIN_NAME, layerName, what); }

// The creator's field list: modes_low, modes_high, norm, separable, output_size, activation, output_size (all kINT32; output_size
// optional, absent = output size of the input).
nvinfer1::PluginFieldCollection const* creatorFieldNames() noexcept;

// Attributes from fields as TensorRT's ONNX parser passes them (INT -> one int32, INTS -> int32
// array; absent attribute -> absent field) or as getFieldsToSerialize wrote them. kINT64 fields
// are also accepted (range-checked). Missing norm/separable take their defaults. Throws
// PluginError naming the problem; the result has passed core::validateAttrs.
// `state` (optional) receives kBUILD_STATE_FIELD when present (zeros otherwise).
core::SpectralConvAttrs attrsFromFields(nvinfer1::PluginFieldCollection const* fc, BuildState* state = nullptr);

// Owns the field array that describes one attribute set (for getFieldsToSerialize).
class AttrFields {
public:
    void assign(core::SpectralConvAttrs const& attrs, BuildState const& state = {});
    nvinfer1::PluginFieldCollection const* collection() const noexcept { return &mCollection; }

private:
    int32_t mModesLow[core::kMaxRank] = {};
    int32_t mModesHigh[core::kMaxRank] = {};
    int32_t mOutputSize[core::kMaxRank] = {};
    int32_t mNorm = 0;
    int32_t mSeparable = 0;
    int32_t mActivation = 0;
    BuildStateStorage mState;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

// V2 serialization: a fixed-size blob with magic, format version, the attributes, the input count
// seen by configurePlugin (0 = not configured yet, 2 to 4), the workspace bound, output_size (rank + 3
// values), the activation (format 3) and a checksum. deserializeAttrs also reads the shorter
// format-1 (no output_size) and format-2 (no activation) blobs.
constexpr size_t kSERIALIZED_BYTES = 4 + 4 + 4 * (1 + 2 * core::kMaxRank + 2 + 1) + 8 + 4 * (1 + core::kMaxRank) + 4 + 4;
void serializeAttrs(core::SpectralConvAttrs const& attrs, int32_t nbInputs, size_t workspaceBound, void* buffer);
// Throws PluginError on a wrong length, magic, version, checksum or invalid attributes.
core::SpectralConvAttrs deserializeAttrs(void const* data, size_t length, int32_t* nbInputs, size_t* workspaceBound);

// supportsFormatCombination for both interfaces: LINEAR everywhere, one supported type for all
// inputs and the output. Decides from inOut[0..pos] only, as TensorRT requires.
bool supportsCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept;
// The same for V3's DynamicPluginTensorDesc array.
bool supportsCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept;

// core::inferShape on TensorRT dims (x, weight, optional bias); throws PluginError with its message.
core::SpectralConvShape inferShape(core::SpectralConvAttrs const& attrs, nvinfer1::Dims const* inputDims, int32_t nbInputs);

// Validation at build time: every fully known dims set (desc, min, opt, max) must pass inferShape
// and core::cudaCheckSupported (throws PluginError with the core's message, naming the set); the
// element type must be supported.
void checkBuildShapes(core::SpectralConvAttrs const& attrs, nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs);

// The workspace of a profile: core::cudaWorkspaceBound of its max shape (the core's workspace need
// not be monotone in the shape, its bound is). Throws when min/max are not concrete, min > max or the
// max shape is invalid. enqueue still refuses any shape needing more than was reserved.
size_t workspaceBound(core::SpectralConvAttrs const& attrs, nvinfer1::Dims const* minDims,
                      nvinfer1::Dims const* maxDims, int32_t nbInputs, nvinfer1::DataType type);
// The same over a DynamicPluginTensorDesc profile (min/max; the network dims when those are unset).
size_t workspaceForProfile(core::SpectralConvAttrs const& attrs, nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs);
// The bytes one concrete call needs.
size_t workspaceForDims(core::SpectralConvAttrs const& attrs, nvinfer1::PluginTensorDesc const* in, int32_t nbInputs);

// Output dims as expressions: [N, Cout, S_1..S_d] from x and weight. When every input extent is a
// constant they come from core::inferShape / core::outputDims (so bad shapes fail here already).
void outputShapeExprs(core::SpectralConvAttrs const& attrs, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
                      nvinfer1::DimsExprs& output, nvinfer1::IExprBuilder& exprBuilder);

// Validates descriptors against the core, fills the params and calls core::launchCuda.
// `workspaceBound`: the bytes reserved at build time (0: unknown); a call needing more fails
// instead of overrunning TensorRT's workspace. Throws PluginError on bad shapes/types, too little
// workspace or a CUDA error.
void launch(core::SpectralConvAttrs const& attrs, nvinfer1::PluginTensorDesc const* inputDesc, int32_t nbInputs,
            nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
            void* workspace, size_t workspaceBound, cudaStream_t stream);

}  // namespace trt
}  // namespace turbofno
