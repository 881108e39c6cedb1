// What every op's TensorRT plugin shares, independent of the op: the error type, logging through
// TensorRT's logger, reading integer creator fields, the serialized build state, element types and
// LINEAR-only format support, and the little-endian byte helpers of the V2 blobs. Op-specific
// code lives in spectralConvCommon.{h,cpp} and pointwiseMlpCommon.{h,cpp}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <NvInferRuntime.h>

#include "turbofno/core.h"

namespace turbofno {
namespace trt {

// TensorRT's registry keys creators by (name, version, namespace), so an op's V2 creator cannot
// share version "1" with its V3 one when both are registered (TensorRT 10+). Before TensorRT 10 only
// V2 exists and it takes version "1". Every op of the library uses these two versions (V3:
// core::kPluginVersion, "1", the exporter's plugin_version attribute).
#if NV_TENSORRT_MAJOR >= 10
constexpr char const* kLEGACY_PLUGIN_VERSION = "1-legacy";
#else
constexpr char const* kLEGACY_PLUGIN_VERSION = "1";
#endif

// Thrown inside the library only; every noexcept TensorRT entry point catches it.
class PluginError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};
void pluginCheck(bool condition, std::string const& message);

// Logging through the logger TensorRT passes to setLoggerFinder (stderr when there is none).
void setLoggerFinder(nvinfer1::ILoggerFinder* finder) noexcept;
void logError(std::string const& message) noexcept;
void logWarning(std::string const& message) noexcept;
// For catch blocks: "<op> '<layer>': <what>: <reason>" (rethrows the exception being handled).
void logCaught(char const* opName, char const* layerName, char const* what) noexcept;

// ---- creator fields -------------------------------------------------------------------------------
// Reads a kINT32 / kINT64 field into int32 values (at most `maxCount`; the true length is returned).
// kINT64 values must fit int32. Any other type, a negative length or null data throws PluginError.
int32_t readIntField(nvinfer1::PluginField const& field, int32_t* out, int32_t maxCount);
// A field that must hold exactly one integer (ONNX INT attribute).
int32_t readIntScalar(nvinfer1::PluginField const& field);
// Throws "field '<name>' given twice" when `seen` is already set; sets it.
void markFieldOnce(bool& seen, std::string const& name);
// True when the collection pointer and its array are usable (throws otherwise).
void checkFieldCollection(nvinfer1::PluginFieldCollection const* fc);

// What configurePlugin learned at build time and V3 serializes next to the attributes.
struct BuildState {
    size_t workspaceBound = 0;  // bytes reserved (0: unknown)
    int32_t nbInputs = 0;       // input count (0: unknown)
};
// Not a creator field: V3's serialized build state (kINT32 x3: workspace lo, hi, input count).
constexpr char const* kBUILD_STATE_FIELD = "turbofno_build_state";
// Parses a kBUILD_STATE_FIELD field; the input count must be 0 or in [minInputs, maxInputs].
BuildState readBuildState(nvinfer1::PluginField const& field, int32_t minInputs, int32_t maxInputs);
// Storage for the field getFieldsToSerialize writes (the three int32 parts).
struct BuildStateStorage {
    int32_t parts[3] = {};
    // True (and `field` filled) when there is anything to store.
    bool fill(BuildState const& state, nvinfer1::PluginField& field) noexcept;
};

// ---- element types and formats ---------------------------------------------------------------------
// Element types the CUDA kernels implement (fp32, fp16, bf16 where TensorRT has it).
bool isSupportedType(nvinfer1::DataType type) noexcept;
core::DataType toCoreType(nvinfer1::DataType type);  // throws PluginError
char const* typeName(nvinfer1::DataType type) noexcept;

// supportsFormatCombination for both interfaces: LINEAR everywhere, one supported type for all
// inputs and the output, nbInputs in [minInputs, maxInputs], one output. Decides from inOut[0..pos]
// only, as TensorRT requires.
bool supportsLinearSameType(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs,
                            int32_t minInputs, int32_t maxInputs) noexcept;
bool supportsLinearSameType(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
                            int32_t nbOutputs, int32_t minInputs, int32_t maxInputs) noexcept;

// configurePlugin's type checks: one output, every input and the output of one supported type.
// `countMessage` is thrown when nbInputs is outside [minInputs, maxInputs].
void checkConfigureTypes(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
                         nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs, int32_t minInputs,
                         int32_t maxInputs, std::string const& countMessage);
// enqueue's descriptor checks: LINEAR and one type for inputs 0..nbInputs-1 and the output.
void checkLaunchDescs(nvinfer1::PluginTensorDesc const* inputDesc, int32_t nbInputs,
                      nvinfer1::PluginTensorDesc const* outputDesc);

// True when every extent is known (no -1 wildcard).
bool isConcrete(nvinfer1::Dims const& dims) noexcept;
// The profile bounds of one input: min/max when they are concrete and of the network rank, the
// network dims otherwise (e.g. runtime calls, where the bounds are unset).
void profileBounds(nvinfer1::DynamicPluginTensorDesc const& in, nvinfer1::Dims& lo, nvinfer1::Dims& hi) noexcept;

// The dims sets configurePlugin sees (network dims, profile min, opt, max): calls
// fn(Dims const* dims, char const* label) for each set in which every input is fully known (wildcards
// and unset bounds are skipped). A PluginError thrown by fn is rethrown prefixed with the label.
template <typename Fn>
void forEachKnownDimsSet(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs, Fn&& fn) {
    char const* const kWhich[] = {"network dims", "profile min", "profile opt", "profile max"};
    nvinfer1::Dims dims[nvinfer1::Dims::MAX_DIMS];
    pluginCheck(in != nullptr && nbInputs >= 0 && nbInputs <= nvinfer1::Dims::MAX_DIMS, "bad input descriptors");
    for (int which = 0; which < 4; ++which) {
        bool concrete = true;
        for (int32_t i = 0; i < nbInputs; ++i) {
            nvinfer1::DynamicPluginTensorDesc const& d = in[i];
            dims[i] = which == 0 ? d.desc.dims : which == 1 ? d.min : which == 2 ? d.opt : d.max;
            concrete = concrete && isConcrete(dims[i]) && dims[i].nbDims == d.desc.dims.nbDims;
        }
        if (!concrete) continue;  // wildcards (network dims) or an unset bound (runtime calls)
        try {
            fn(static_cast<nvinfer1::Dims const*>(dims), kWhich[which]);
        } catch (PluginError const& e) {
            throw PluginError(std::string(kWhich[which]) + ": " + e.what());
        }
    }
}

// Shape expressions: checks that no expression is null and, when every extent of every input is a
// constant, fills `dims` with them and returns true.
bool constantDims(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::Dims* dims);
// output = constants values[0..n) from the builder (throws when it returns null).
void constantExprs(int64_t const* values, int32_t n, nvinfer1::DimsExprs& output, nvinfer1::IExprBuilder& exprBuilder);
// enqueue: the output dims must equal `expected` (rank `rank`); `layout` names it in the message.
void checkOutputDims(nvinfer1::Dims const& y, int64_t const* expected, int32_t rank, char const* layout);
// enqueue: a call needing `bytes` of workspace gets a non-null pointer and fits the build-time bound
// (0: unknown). Returns the pointer to pass on (null when no bytes are needed).
void* checkWorkspace(size_t bytes, void* workspace, size_t workspaceBound);
// enqueue: a launch's CUDA status (throws "CUDA launch failed: <name>: <text>").
void checkLaunched(cudaError_t err);

// ---- V2 byte format helpers ------------------------------------------------------------------------
uint32_t fnv1a(unsigned char const* data, size_t n) noexcept;
inline void put32(unsigned char*& p, uint32_t v) noexcept {
    for (int i = 0; i < 4; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
}
inline uint32_t get32(unsigned char const*& p) noexcept {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(*p++) << (8 * i);
    return v;
}
inline void put64(unsigned char*& p, uint64_t v) noexcept {
    put32(p, static_cast<uint32_t>(v));
    put32(p, static_cast<uint32_t>(v >> 32));
}
inline uint64_t get64(unsigned char const*& p) noexcept {
    uint64_t const lo = get32(p);
    uint64_t const hi = get32(p);
    return (hi << 32) | lo;
}

}  // namespace trt
}  // namespace turbofno
