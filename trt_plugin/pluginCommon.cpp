#include "pluginCommon.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>

namespace turbofno {
namespace trt {

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;
using nvinfer1::PluginTensorDesc;
using nvinfer1::TensorFormat;

void pluginCheck(bool condition, std::string const& message) {
    if (!condition) throw PluginError(message);
}

// ---------------------------------------------------------------------------------------------
// Logging

namespace {
std::atomic<nvinfer1::ILoggerFinder*> gLoggerFinder{nullptr};

void logAt(nvinfer1::ILogger::Severity severity, char const* label, std::string const& message) noexcept {
    try {
        nvinfer1::ILoggerFinder* finder = gLoggerFinder.load();
        nvinfer1::ILogger* logger = finder ? finder->findLogger() : nullptr;
        if (logger) {
            logger->log(severity, message.c_str());
        } else {
            std::fprintf(stderr, "[turbofno_trt] %s: %s\n", label, message.c_str());
        }
    } catch (...) {
        // Nothing left to report through.
    }
}
}  // namespace

void setLoggerFinder(nvinfer1::ILoggerFinder* finder) noexcept { gLoggerFinder.store(finder); }

void logError(std::string const& message) noexcept { logAt(nvinfer1::ILogger::Severity::kERROR, "ERROR", message); }

void logWarning(std::string const& message) noexcept {
    logAt(nvinfer1::ILogger::Severity::kWARNING, "WARNING", message);
}

void logCaught(char const* opName, char const* layerName, char const* what) noexcept {
    try {
        std::string prefix = std::string(opName ? opName : "") + " '" + (layerName ? layerName : "") + "': " + what;
        try {
            throw;  // rethrow the exception being handled to read its message
        } catch (std::exception const& e) {
            logError(prefix + ": " + e.what());
        } catch (...) {
            logError(prefix + ": unknown error");
        }
    } catch (...) {
    }
}

// ---------------------------------------------------------------------------------------------
// Creator fields

namespace {

char const* fieldTypeName(PluginFieldType t) {
    switch (t) {
        case PluginFieldType::kFLOAT16: return "kFLOAT16";
        case PluginFieldType::kFLOAT32: return "kFLOAT32";
        case PluginFieldType::kFLOAT64: return "kFLOAT64";
        case PluginFieldType::kINT8: return "kINT8";
        case PluginFieldType::kINT16: return "kINT16";
        case PluginFieldType::kINT32: return "kINT32";
        case PluginFieldType::kCHAR: return "kCHAR";
        case PluginFieldType::kDIMS: return "kDIMS";
        case PluginFieldType::kUNKNOWN: return "kUNKNOWN";
        default: return "another non-integer type";
    }
}

}  // namespace

int32_t readIntField(PluginField const& field, int32_t* out, int32_t maxCount) {
    std::string const name = field.name ? field.name : "";
    pluginCheck(field.length >= 0, "field '" + name + "' has negative length " + std::to_string(field.length));
    pluginCheck(field.length == 0 || field.data != nullptr,
                "field '" + name + "' has length " + std::to_string(field.length) + " but no data");
    int32_t const n = std::min(field.length, maxCount);
    if (field.type == PluginFieldType::kINT32) {
        std::memcpy(out, field.data, sizeof(int32_t) * static_cast<size_t>(n));
#if NV_TENSORRT_MAJOR >= 10  // PluginFieldType::kINT64 is new in TensorRT 10
    } else if (field.type == PluginFieldType::kINT64) {
        for (int32_t i = 0; i < n; ++i) {
            int64_t v = 0;
            std::memcpy(&v, static_cast<char const*>(field.data) + sizeof(int64_t) * static_cast<size_t>(i), sizeof v);
            pluginCheck(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(),
                        "field '" + name + "' value " + std::to_string(v) + " does not fit int32");
            out[i] = static_cast<int32_t>(v);
        }
#endif
    } else {
        throw PluginError("field '" + name + "' has type " + fieldTypeName(field.type) +
                          "; expected kINT32 (ONNX INT/INTS attributes arrive as int32)");
    }
    return field.length;
}

int32_t readIntScalar(PluginField const& field) {
    int32_t v = 0;
    int32_t const n = readIntField(field, &v, 1);
    pluginCheck(n == 1, "field '" + std::string(field.name ? field.name : "") + "' must hold exactly one value, got " +
                            std::to_string(n));
    return v;
}

void markFieldOnce(bool& seen, std::string const& name) {
    pluginCheck(!seen, "field '" + name + "' given twice");
    seen = true;
}

void checkFieldCollection(PluginFieldCollection const* fc) {
    pluginCheck(fc != nullptr, "no plugin field collection");
    pluginCheck(fc->nbFields >= 0 && (fc->nbFields == 0 || fc->fields != nullptr), "malformed plugin field collection");
}

BuildState readBuildState(PluginField const& f, int32_t minInputs, int32_t maxInputs) {
    pluginCheck(f.type == PluginFieldType::kINT32 && f.length == 3 && f.data != nullptr,
                std::string("field '") + kBUILD_STATE_FIELD + "' must be three kINT32 values");
    uint32_t parts[3];
    std::memcpy(parts, f.data, sizeof parts);
    int32_t const inputs = static_cast<int32_t>(parts[2]);
    pluginCheck(inputs == 0 || (inputs >= minInputs && inputs <= maxInputs),
                std::string("field '") + kBUILD_STATE_FIELD + "' holds an invalid input count");
    BuildState state;
    state.workspaceBound = static_cast<size_t>((uint64_t{parts[1]} << 32) | parts[0]);
    state.nbInputs = inputs;
    return state;
}

bool BuildStateStorage::fill(BuildState const& state, PluginField& field) noexcept {
    if (state.workspaceBound == 0 && state.nbInputs == 0) return false;
    uint64_t const w = state.workspaceBound;
    uint32_t const u[3] = {static_cast<uint32_t>(w), static_cast<uint32_t>(w >> 32), static_cast<uint32_t>(state.nbInputs)};
    std::memcpy(parts, u, sizeof u);
    field = PluginField(kBUILD_STATE_FIELD, parts, PluginFieldType::kINT32, 3);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Types and formats

bool isSupportedType(DataType type) noexcept {
    switch (type) {
        case DataType::kFLOAT:
        case DataType::kHALF:
#if NV_TENSORRT_MAJOR >= 9
        case DataType::kBF16:
#endif
            return true;
        default:
            return false;
    }
}

core::DataType toCoreType(DataType type) {
    switch (type) {
        case DataType::kFLOAT: return core::DataType::kFloat32;
        case DataType::kHALF: return core::DataType::kFloat16;
#if NV_TENSORRT_MAJOR >= 9
        case DataType::kBF16: return core::DataType::kBFloat16;
#endif
        default: break;
    }
    throw PluginError(std::string("unsupported tensor type ") + typeName(type) + "; use float32, float16 or bfloat16");
}

char const* typeName(DataType type) noexcept {
    switch (type) {
        case DataType::kFLOAT: return "float32";
        case DataType::kHALF: return "float16";
        case DataType::kINT8: return "int8";
        case DataType::kINT32: return "int32";
        case DataType::kBOOL: return "bool";
#if NV_TENSORRT_MAJOR >= 9
        case DataType::kBF16: return "bfloat16";
#endif
#if NV_TENSORRT_MAJOR >= 10
        case DataType::kINT64: return "int64";
#endif
        default: return "unknown";
    }
}

namespace {
PluginTensorDesc const& descOf(PluginTensorDesc const* inOut, int32_t i) { return inOut[i]; }
PluginTensorDesc const& descOf(DynamicPluginTensorDesc const* inOut, int32_t i) { return inOut[i].desc; }

template <typename Desc>
bool supportsImpl(int32_t pos, Desc const* inOut, int32_t nbInputs, int32_t nbOutputs, int32_t minInputs,
                  int32_t maxInputs) noexcept {
    if (inOut == nullptr || nbInputs < minInputs || nbInputs > maxInputs || nbOutputs != 1) return false;
    if (pos < 0 || pos >= nbInputs + nbOutputs) return false;
    PluginTensorDesc const& d = descOf(inOut, pos);
    if (d.format != TensorFormat::kLINEAR) return false;
    if (pos == 0) return isSupportedType(d.type);
    return d.type == descOf(inOut, 0).type;  // inOut[0] is already fixed to a supported type
}
}  // namespace

bool supportsLinearSameType(int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs,
                            int32_t minInputs, int32_t maxInputs) noexcept {
    return supportsImpl(pos, inOut, nbInputs, nbOutputs, minInputs, maxInputs);
}

bool supportsLinearSameType(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs,
                            int32_t minInputs, int32_t maxInputs) noexcept {
    return supportsImpl(pos, inOut, nbInputs, nbOutputs, minInputs, maxInputs);
}

void checkConfigureTypes(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
                         int32_t nbOutputs, int32_t minInputs, int32_t maxInputs, std::string const& countMessage) {
    pluginCheck(out != nullptr && nbOutputs == 1, "expected exactly one output");
    pluginCheck(in != nullptr && nbInputs >= minInputs && nbInputs <= maxInputs, countMessage);
    for (int32_t i = 0; i < nbInputs; ++i) {
        pluginCheck(isSupportedType(in[i].desc.type) && in[i].desc.type == in[0].desc.type,
                    "all inputs must share one of float32, float16, bfloat16");
    }
    pluginCheck(out[0].desc.type == in[0].desc.type, "the output type must equal the input type");
}

void checkLaunchDescs(PluginTensorDesc const* inputDesc, int32_t nbInputs, PluginTensorDesc const* outputDesc) {
    DataType const type = inputDesc[0].type;
    for (int32_t i = 0; i <= nbInputs; ++i) {
        PluginTensorDesc const& d = i < nbInputs ? inputDesc[i] : outputDesc[0];
        pluginCheck(d.format == TensorFormat::kLINEAR, "only the LINEAR tensor format is supported");
        pluginCheck(d.type == type, std::string("all tensors must share one type; got ") + typeName(type) + " and " +
                                        typeName(d.type));
    }
}

bool isConcrete(Dims const& dims) noexcept {
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS) return false;
    for (int32_t i = 0; i < dims.nbDims; ++i) {
        if (dims.d[i] < 0) return false;
    }
    return true;
}

void profileBounds(DynamicPluginTensorDesc const& in, Dims& lo, Dims& hi) noexcept {
    bool const bounds = isConcrete(in.min) && isConcrete(in.max) && in.min.nbDims == in.desc.dims.nbDims &&
                        in.max.nbDims == in.desc.dims.nbDims;
    lo = bounds ? in.min : in.desc.dims;
    hi = bounds ? in.max : in.desc.dims;
}

bool constantDims(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, Dims* dims) {
    bool allConstant = true;
    for (int32_t i = 0; i < nbInputs; ++i) {
        pluginCheck(inputs[i].nbDims >= 0 && inputs[i].nbDims <= Dims::MAX_DIMS,
                    "input " + std::to_string(i) + " has invalid rank");
        for (int32_t k = 0; k < inputs[i].nbDims; ++k) {
            pluginCheck(inputs[i].d[k] != nullptr, "input dimension expression is null");
            allConstant = allConstant && inputs[i].d[k]->isConstant();
        }
    }
    if (!allConstant) return false;
    for (int32_t i = 0; i < nbInputs; ++i) {
        dims[i].nbDims = inputs[i].nbDims;
        for (int32_t k = 0; k < inputs[i].nbDims; ++k) dims[i].d[k] = inputs[i].d[k]->getConstantValue();
    }
    return true;
}

void constantExprs(int64_t const* values, int32_t n, nvinfer1::DimsExprs& output, nvinfer1::IExprBuilder& exprBuilder) {
    output.nbDims = n;
    for (int32_t k = 0; k < n; ++k) {
        output.d[k] = exprBuilder.constant(values[k]);
        pluginCheck(output.d[k] != nullptr, "expression builder returned null");
    }
}

void checkOutputDims(Dims const& y, int64_t const* expected, int32_t rank, char const* layout) {
    bool same = y.nbDims == rank;
    for (int32_t k = 0; same && k < y.nbDims; ++k) same = static_cast<int64_t>(y.d[k]) == expected[k];
    pluginCheck(same, std::string("output tensor dims do not match ") + layout);
}

void* checkWorkspace(size_t bytes, void* workspace, size_t workspaceBound) {
    pluginCheck(bytes == 0 || workspace != nullptr,
                "the kernel needs " + std::to_string(bytes) + " workspace bytes but TensorRT passed none");
    pluginCheck(workspaceBound == 0 || bytes <= workspaceBound,
                "this shape needs " + std::to_string(bytes) + " workspace bytes but only " +
                    std::to_string(workspaceBound) + " were reserved when the engine was built");
    return bytes ? workspace : nullptr;
}

void checkLaunched(cudaError_t err) {
    pluginCheck(err == cudaSuccess,
                std::string("CUDA launch failed: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

// ---------------------------------------------------------------------------------------------
// Byte format

uint32_t fnv1a(unsigned char const* data, size_t n) noexcept {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i) {
        h ^= data[i];
        h *= 16777619u;
    }
    return h;
}

}  // namespace trt
}  // namespace turbofno
