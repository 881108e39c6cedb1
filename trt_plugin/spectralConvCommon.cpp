#include "spectralConvCommon.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>

#include "turbofno/cuda.h"

namespace turbofno {
namespace trt {

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::DimsExprs;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;
using nvinfer1::PluginTensorDesc;
using nvinfer1::TensorFormat;

void pluginCheck(bool condition, std::string const& message) {
    if (!condition) throw PluginError(message);
}

std::string inputCountMessage(int32_t nbInputs) {
    return "expected 2 to 4 inputs (x, weight[, bias[, skip_weight]]), got " + std::to_string(nbInputs);
}

// ---------------------------------------------------------------------------------------------
// Logging

namespace {
std::atomic<nvinfer1::ILoggerFinder*> gLoggerFinder{nullptr};
}

void setLoggerFinder(nvinfer1::ILoggerFinder* finder) noexcept { gLoggerFinder.store(finder); }

void logError(std::string const& message) noexcept {
    try {
        nvinfer1::ILoggerFinder* finder = gLoggerFinder.load();
        nvinfer1::ILogger* logger = finder ? finder->findLogger() : nullptr;
        if (logger) {
            logger->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
        } else {
            std::fprintf(stderr, "[turbofno_trt] ERROR: %s\n", message.c_str());
        }
    } catch (...) {
        // Nothing left to report through.
    }
}

void logWarning(std::string const& message) noexcept {
    try {
        nvinfer1::ILoggerFinder* finder = gLoggerFinder.load();
        nvinfer1::ILogger* logger = finder ? finder->findLogger() : nullptr;
        if (logger) {
            logger->log(nvinfer1::ILogger::Severity::kWARNING, message.c_str());
        } else {
            std::fprintf(stderr, "[turbofno_trt] WARNING: %s\n", message.c_str());
        }
    } catch (...) {
    }
}

void logCaught(char const* layerName, char const* what) noexcept {
    try {
        std::string prefix = std::string(kPLUGIN_NAME) + " '" + (layerName ? layerName : "") + "': " + what;
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
// Creator fields and attribute parsing

PluginFieldCollection const* creatorFieldNames() noexcept {
    static PluginField const kFields[] = {
        PluginField(core::kAttrModesLow, nullptr, PluginFieldType::kINT32, core::kMaxRank),
        PluginField(core::kAttrModesHigh, nullptr, PluginFieldType::kINT32, core::kMaxRank),
        PluginField(core::kAttrNorm, nullptr, PluginFieldType::kINT32, 1),
        PluginField(core::kAttrSeparable, nullptr, PluginFieldType::kINT32, 1),
        PluginField(core::kAttrOutputSize, nullptr, PluginFieldType::kINT32, core::kMaxRank),
        PluginField(core::kAttrActivation, nullptr, PluginFieldType::kINT32, 1),
    };
    static PluginFieldCollection const kCollection{6, kFields};
    return &kCollection;
}

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

// Reads a kINT32 / kINT64 field into int32 values (at most `maxCount`; the true length is returned).
int32_t readInts(PluginField const& field, int32_t* out, int32_t maxCount) {
    std::string const name = field.name;
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

}  // namespace

core::SpectralConvAttrs attrsFromFields(PluginFieldCollection const* fc, BuildState* state) {
    if (state) *state = BuildState{};
    pluginCheck(fc != nullptr, "no plugin field collection");
    pluginCheck(fc->nbFields >= 0 && (fc->nbFields == 0 || fc->fields != nullptr), "malformed plugin field collection");
    core::SpectralConvAttrs attrs;
    bool seenLow = false, seenHigh = false, seenNorm = false, seenSep = false, seenOut = false, seenAct = false;
    int32_t lowCount = 0, highCount = 0;
    for (int32_t i = 0; i < fc->nbFields; ++i) {
        PluginField const& f = fc->fields[i];
        if (f.name == nullptr) continue;  // unnamed fields carry nothing for us
        std::string const name = f.name;
        auto once = [&](bool& seen) {
            pluginCheck(!seen, "field '" + name + "' given twice");
            seen = true;
        };
        if (name == core::kAttrModesLow) {
            once(seenLow);
            lowCount = readInts(f, attrs.modesLow, core::kMaxRank);
        } else if (name == core::kAttrModesHigh) {
            once(seenHigh);
            highCount = readInts(f, attrs.modesHigh, core::kMaxRank);
        } else if (name == core::kAttrOutputSize) {
            once(seenOut);
            attrs.outputRank = readInts(f, attrs.outputSize, core::kMaxRank);
        } else if (name == core::kAttrNorm || name == core::kAttrSeparable || name == core::kAttrActivation) {
            bool const isNorm = name == core::kAttrNorm, isSep = name == core::kAttrSeparable;
            once(isNorm ? seenNorm : isSep ? seenSep : seenAct);
            int32_t v = 0;
            int32_t const n = readInts(f, &v, 1);
            pluginCheck(n == 1, "field '" + name + "' must hold exactly one value, got " + std::to_string(n));
            if (isNorm) {
                attrs.norm = static_cast<core::FftNorm>(v);
            } else if (isSep) {
                attrs.separable = v;
            } else {
                attrs.activation = static_cast<core::Activation>(v);
            }
        } else if (name == kBUILD_STATE_FIELD) {
            pluginCheck(f.type == PluginFieldType::kINT32 && f.length == 3 && f.data != nullptr,
                        std::string("field '") + kBUILD_STATE_FIELD + "' must be three kINT32 values");
            uint32_t parts[3];
            std::memcpy(parts, f.data, sizeof parts);
            int32_t const inputs = static_cast<int32_t>(parts[2]);
            pluginCheck(inputs == 0 || (inputs >= kMIN_INPUTS && inputs <= kMAX_INPUTS),
                        std::string("field '") + kBUILD_STATE_FIELD + "' holds an invalid input count");
            if (state) {
                state->workspaceBound = static_cast<size_t>((uint64_t{parts[1]} << 32) | parts[0]);
                state->nbInputs = inputs;
            }
        }
        // Other names are ignored: TensorRT passes only the creator's fields, other callers may add more.
    }
    pluginCheck(seenLow, std::string("required attribute '") + core::kAttrModesLow + "' is missing");
    pluginCheck(seenHigh, std::string("required attribute '") + core::kAttrModesHigh + "' is missing");
    attrs.rank = lowCount;
    core::Status const st = core::validateAttrs(attrs, lowCount, highCount);
    pluginCheck(st.ok, st.message);
    return attrs;
}

void AttrFields::assign(core::SpectralConvAttrs const& attrs, BuildState const& state) {
    std::copy(attrs.modesLow, attrs.modesLow + core::kMaxRank, mModesLow);
    std::copy(attrs.modesHigh, attrs.modesHigh + core::kMaxRank, mModesHigh);
    std::copy(attrs.outputSize, attrs.outputSize + core::kMaxRank, mOutputSize);
    mNorm = static_cast<int32_t>(attrs.norm);
    mSeparable = attrs.separable;
    mActivation = static_cast<int32_t>(attrs.activation);
    mFields = {
        PluginField(core::kAttrModesLow, mModesLow, PluginFieldType::kINT32, attrs.rank),
        PluginField(core::kAttrModesHigh, mModesHigh, PluginFieldType::kINT32, attrs.rank),
        PluginField(core::kAttrNorm, &mNorm, PluginFieldType::kINT32, 1),
        PluginField(core::kAttrSeparable, &mSeparable, PluginFieldType::kINT32, 1),
    };
    if (attrs.outputRank > 0) {  // absent when the node has no output_size, as in the ONNX node
        mFields.emplace_back(core::kAttrOutputSize, mOutputSize, PluginFieldType::kINT32, attrs.outputRank);
    }
    if (mActivation != 0) {  // absent for a plain layer, as in a version-1 ONNX node
        mFields.emplace_back(core::kAttrActivation, &mActivation, PluginFieldType::kINT32, 1);
    }
    if (state.workspaceBound > 0 || state.nbInputs > 0) {
        uint64_t const w = state.workspaceBound;
        uint32_t const parts[3] = {static_cast<uint32_t>(w), static_cast<uint32_t>(w >> 32),
                                   static_cast<uint32_t>(state.nbInputs)};
        std::memcpy(mState, parts, sizeof parts);
        mFields.emplace_back(kBUILD_STATE_FIELD, mState, PluginFieldType::kINT32, 3);
    }
    mCollection.nbFields = static_cast<int32_t>(mFields.size());
    mCollection.fields = mFields.data();
}

// ---------------------------------------------------------------------------------------------
// V2 byte format: "TFNO", format version, rank, modes_low[3], modes_high[3], norm, separable,
// input count, workspace bound (lo, hi), [version >= 2: output rank, output_size[3]], [version 3:
// activation], FNV-1a checksum of everything before it. All little-endian int32/uint32. Version 1
// (before output_size) and 2 (before the activation) blobs are read too.

namespace {

constexpr uint32_t kMAGIC = 0x4F4E4654u;  // "TFNO" read as little-endian
constexpr uint32_t kFORMAT_VERSION = 3;
constexpr size_t kSERIALIZED_BYTES_V2 = kSERIALIZED_BYTES - 4;
constexpr size_t kSERIALIZED_BYTES_V1 = kSERIALIZED_BYTES_V2 - 4 * (1 + core::kMaxRank);
size_t serializedBytes(uint32_t version) {
    return version == 1 ? kSERIALIZED_BYTES_V1 : version == 2 ? kSERIALIZED_BYTES_V2 : kSERIALIZED_BYTES;
}

uint32_t fnv1a(unsigned char const* data, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i) {
        h ^= data[i];
        h *= 16777619u;
    }
    return h;
}

void put32(unsigned char*& p, uint32_t v) {
    for (int i = 0; i < 4; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
}

uint32_t get32(unsigned char const*& p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(*p++) << (8 * i);
    return v;
}

}  // namespace

void serializeAttrs(core::SpectralConvAttrs const& attrs, int32_t nbInputs, size_t workspaceBound, void* buffer) {
    unsigned char* const start = static_cast<unsigned char*>(buffer);
    unsigned char* p = start;
    put32(p, kMAGIC);
    put32(p, kFORMAT_VERSION);
    put32(p, static_cast<uint32_t>(attrs.rank));
    for (int j = 0; j < core::kMaxRank; ++j) put32(p, static_cast<uint32_t>(attrs.modesLow[j]));
    for (int j = 0; j < core::kMaxRank; ++j) put32(p, static_cast<uint32_t>(attrs.modesHigh[j]));
    put32(p, static_cast<uint32_t>(attrs.norm));
    put32(p, static_cast<uint32_t>(attrs.separable));
    put32(p, static_cast<uint32_t>(nbInputs));
    put32(p, static_cast<uint32_t>(uint64_t{workspaceBound}));
    put32(p, static_cast<uint32_t>(uint64_t{workspaceBound} >> 32));
    put32(p, static_cast<uint32_t>(attrs.outputRank));
    for (int j = 0; j < core::kMaxRank; ++j) put32(p, static_cast<uint32_t>(attrs.outputSize[j]));
    put32(p, static_cast<uint32_t>(attrs.activation));
    put32(p, fnv1a(start, static_cast<size_t>(p - start)));
}

core::SpectralConvAttrs deserializeAttrs(void const* data, size_t length, int32_t* nbInputs, size_t* workspaceBound) {
    pluginCheck(data != nullptr, "serialized plugin data is null");
    pluginCheck(length == kSERIALIZED_BYTES || length == kSERIALIZED_BYTES_V2 || length == kSERIALIZED_BYTES_V1,
                "serialized plugin data has " + std::to_string(length) + " bytes; expected " +
                    std::to_string(kSERIALIZED_BYTES) + " (or " + std::to_string(kSERIALIZED_BYTES_V2) + " / " +
                    std::to_string(kSERIALIZED_BYTES_V1) + " for format versions 2 / 1; truncated or not a " +
                    kPLUGIN_NAME + " plugin)");
    unsigned char const* const start = static_cast<unsigned char const*>(data);
    unsigned char const* p = start;
    pluginCheck(get32(p) == kMAGIC, "serialized plugin data does not start with the SpectralConv magic");
    uint32_t const version = get32(p);
    pluginCheck(version >= 1 && version <= kFORMAT_VERSION,
                "serialized plugin data has format version " + std::to_string(version) +
                    "; this library reads versions 1 to " + std::to_string(kFORMAT_VERSION));
    pluginCheck(length == serializedBytes(version),
                "serialized plugin data has " + std::to_string(length) + " bytes, which does not match its format "
                "version " + std::to_string(version) + " (truncated or corrupted)");
    core::SpectralConvAttrs attrs;
    attrs.rank = static_cast<int32_t>(get32(p));
    for (int j = 0; j < core::kMaxRank; ++j) attrs.modesLow[j] = static_cast<int32_t>(get32(p));
    for (int j = 0; j < core::kMaxRank; ++j) attrs.modesHigh[j] = static_cast<int32_t>(get32(p));
    attrs.norm = static_cast<core::FftNorm>(static_cast<int32_t>(get32(p)));
    attrs.separable = static_cast<int32_t>(get32(p));
    int32_t const inputs = static_cast<int32_t>(get32(p));
    uint64_t const wsLo = get32(p), wsHi = get32(p);
    if (version >= 2) {
        attrs.outputRank = static_cast<int32_t>(get32(p));
        for (int j = 0; j < core::kMaxRank; ++j) attrs.outputSize[j] = static_cast<int32_t>(get32(p));
    }
    if (version >= 3) attrs.activation = static_cast<core::Activation>(static_cast<int32_t>(get32(p)));
    size_t const body = static_cast<size_t>(p - start);
    pluginCheck(get32(p) == fnv1a(start, body), "serialized plugin data is corrupted (checksum mismatch)");
    core::Status const st = core::validateAttrs(attrs, attrs.rank, attrs.rank);
    pluginCheck(st.ok, "serialized plugin data holds invalid attributes: " + st.message);
    pluginCheck(inputs == 0 || (inputs >= kMIN_INPUTS && inputs <= (version < 3 ? 3 : kMAX_INPUTS)),
                "serialized plugin data holds an invalid input count " + std::to_string(inputs));
    if (nbInputs) *nbInputs = inputs;
    if (workspaceBound) *workspaceBound = static_cast<size_t>((wsHi << 32) | wsLo);
    return attrs;
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

bool supportsCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept {
    if (inOut == nullptr || nbInputs < kMIN_INPUTS || nbInputs > kMAX_INPUTS || nbOutputs != 1) return false;
    if (pos < 0 || pos >= nbInputs + nbOutputs) return false;
    PluginTensorDesc const& d = inOut[pos];
    if (d.format != TensorFormat::kLINEAR) return false;
    if (pos == 0) return isSupportedType(d.type);
    return d.type == inOut[0].type;  // inOut[0] is already fixed to a supported type
}

bool supportsCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept {
    if (inOut == nullptr || nbInputs < kMIN_INPUTS || nbInputs > kMAX_INPUTS || nbOutputs != 1) return false;
    if (pos < 0 || pos >= nbInputs + nbOutputs) return false;
    PluginTensorDesc const& d = inOut[pos].desc;
    if (d.format != TensorFormat::kLINEAR) return false;
    if (pos == 0) return isSupportedType(d.type);
    return d.type == inOut[0].desc.type;
}

// ---------------------------------------------------------------------------------------------
// Shapes and workspace (all through the core)

bool isConcrete(Dims const& dims) noexcept {
    if (dims.nbDims < 0 || dims.nbDims > Dims::MAX_DIMS) return false;
    for (int32_t i = 0; i < dims.nbDims; ++i) {
        if (dims.d[i] < 0) return false;
    }
    return true;
}

core::SpectralConvShape inferShape(core::SpectralConvAttrs const& attrs, Dims const* inputDims, int32_t nbInputs) {
    pluginCheck(nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS,
                inputCountMessage(nbInputs));
    int64_t dims[kMAX_INPUTS][Dims::MAX_DIMS] = {};
    int ranks[kMAX_INPUTS] = {};
    for (int32_t i = 0; i < nbInputs; ++i) {
        pluginCheck(inputDims[i].nbDims >= 0 && inputDims[i].nbDims <= Dims::MAX_DIMS, "input has invalid rank");
        ranks[i] = inputDims[i].nbDims;
        for (int32_t k = 0; k < ranks[i]; ++k) dims[i][k] = static_cast<int64_t>(inputDims[i].d[k]);
    }
    core::SpectralConvShape shape;
    core::Status const st = core::inferShape(attrs, dims[0], ranks[0], dims[1], ranks[1],
                                             nbInputs >= 3 ? dims[2] : nullptr, nbInputs >= 3 ? ranks[2] : 0, &shape,
                                             nbInputs == 4 ? dims[3] : nullptr, nbInputs == 4 ? ranks[3] : 0);
    pluginCheck(st.ok, st.message);
    return shape;
}

void checkBuildShapes(core::SpectralConvAttrs const& attrs, DynamicPluginTensorDesc const* in, int32_t nbInputs) {
    pluginCheck(in != nullptr, "no input descriptors");
    pluginCheck(nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS,
                inputCountMessage(nbInputs));
    core::DataType const coreType = toCoreType(in[0].desc.type);
    Dims dims[kMAX_INPUTS];
    char const* const kWhich[] = {"network dims", "profile min", "profile opt", "profile max"};
    for (int which = 0; which < 4; ++which) {
        bool concrete = true;
        for (int32_t i = 0; i < nbInputs; ++i) {
            DynamicPluginTensorDesc const& d = in[i];
            dims[i] = which == 0 ? d.desc.dims : which == 1 ? d.min : which == 2 ? d.opt : d.max;
            concrete = concrete && isConcrete(dims[i]) && dims[i].nbDims == d.desc.dims.nbDims;
        }
        if (!concrete) continue;  // wildcards (network dims) or an unset bound (runtime calls)
        core::SpectralConvShape shape;
        try {
            shape = inferShape(attrs, dims, nbInputs);
        } catch (PluginError const& e) {
            throw PluginError(std::string(kWhich[which]) + ": " + e.what());
        }
        // Refused here, at build time, rather than by every enqueue of the engine.
        core::Status const supported = core::cudaCheckSupported(shape, coreType);
        pluginCheck(supported.ok, std::string(kWhich[which]) + ": shape not supported by the CUDA kernel: " +
                                      supported.message);
    }
}

size_t workspaceBound(core::SpectralConvAttrs const& attrs, Dims const* minDims, Dims const* maxDims, int32_t nbInputs,
                      DataType type) {
    pluginCheck(nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS,
                inputCountMessage(nbInputs));
    core::DataType const coreType = toCoreType(type);
    for (int32_t i = 0; i < nbInputs; ++i) {
        pluginCheck(isConcrete(minDims[i]) && isConcrete(maxDims[i]) && minDims[i].nbDims == maxDims[i].nbDims,
                    "profile bounds are not concrete");
        for (int32_t k = 0; k < minDims[i].nbDims; ++k) {
            pluginCheck(minDims[i].d[k] <= maxDims[i].d[k], "profile min exceeds max");
        }
    }
    // Every shape of the profile is <= its max shape in each extent, and the core's bound is
    // monotone: sized from the max shape alone.
    core::SpectralConvShape const maxShape = inferShape(attrs, maxDims, nbInputs);
    return core::cudaWorkspaceBound(maxShape, coreType);
}

size_t workspaceForProfile(core::SpectralConvAttrs const& attrs, DynamicPluginTensorDesc const* in, int32_t nbInputs) {
    pluginCheck(in != nullptr, "no input descriptors");
    pluginCheck(nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS,
                inputCountMessage(nbInputs));
    Dims lo[kMAX_INPUTS], hi[kMAX_INPUTS];
    for (int32_t i = 0; i < nbInputs; ++i) {
        bool const bounds = isConcrete(in[i].min) && isConcrete(in[i].max) && in[i].min.nbDims == in[i].desc.dims.nbDims &&
                            in[i].max.nbDims == in[i].desc.dims.nbDims;
        lo[i] = bounds ? in[i].min : in[i].desc.dims;
        hi[i] = bounds ? in[i].max : in[i].desc.dims;
    }
    return workspaceBound(attrs, lo, hi, nbInputs, in[0].desc.type);
}

size_t workspaceForDims(core::SpectralConvAttrs const& attrs, PluginTensorDesc const* in, int32_t nbInputs) {
    pluginCheck(in != nullptr, "no input descriptors");
    pluginCheck(nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS,
                inputCountMessage(nbInputs));
    Dims dims[kMAX_INPUTS];
    for (int32_t i = 0; i < nbInputs; ++i) dims[i] = in[i].dims;
    return core::cudaWorkspaceBytes(inferShape(attrs, dims, nbInputs), toCoreType(in[0].type));
}

void outputShapeExprs(core::SpectralConvAttrs const& attrs, DimsExprs const* inputs, int32_t nbInputs,
                      DimsExprs& output, nvinfer1::IExprBuilder& exprBuilder) {
    pluginCheck(inputs != nullptr, "no input shapes");
    pluginCheck(nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS,
                inputCountMessage(nbInputs));
    int32_t const d = attrs.rank;
    DimsExprs const& x = inputs[0];
    DimsExprs const& w = inputs[1];
    pluginCheck(x.nbDims == d + 2, "x has rank " + std::to_string(x.nbDims) + " but modes_low has " +
                                       std::to_string(d) + " entries, so x must have rank " + std::to_string(d + 2));
    pluginCheck(w.nbDims == d + 3, "weight has rank " + std::to_string(w.nbDims) + "; expected rank " +
                                       std::to_string(d + 3) + " [Cin, Cout, K_1..K_d, 2]");
    bool allConstant = true;
    for (int32_t i = 0; i < nbInputs; ++i) {
        for (int32_t k = 0; k < inputs[i].nbDims; ++k) {
            pluginCheck(inputs[i].d[k] != nullptr, "input dimension expression is null");
            allConstant = allConstant && inputs[i].d[k]->isConstant();
        }
    }
    output.nbDims = d + 2;
    if (allConstant) {
        Dims dims[kMAX_INPUTS];
        for (int32_t i = 0; i < nbInputs; ++i) {
            dims[i].nbDims = inputs[i].nbDims;
            for (int32_t k = 0; k < inputs[i].nbDims; ++k) dims[i].d[k] = inputs[i].d[k]->getConstantValue();
        }
        int64_t out[core::kMaxRank + 2] = {};
        core::outputDims(inferShape(attrs, dims, nbInputs), out);
        for (int32_t k = 0; k < d + 2; ++k) {
            output.d[k] = exprBuilder.constant(out[k]);
            pluginCheck(output.d[k] != nullptr, "expression builder returned null");
        }
        return;
    }
    // Symbolic: the output takes x's batch and weight's Cout (separable: x's C), and x's spatial extents
    // or the constant output_size.
    output.d[0] = x.d[0];
    output.d[1] = attrs.separable ? x.d[1] : w.d[1];
    for (int32_t k = 0; k < d; ++k) {
        output.d[2 + k] = attrs.outputRank ? exprBuilder.constant(attrs.outputSize[k]) : x.d[2 + k];
        pluginCheck(output.d[2 + k] != nullptr, "expression builder returned null");
    }
}

// ---------------------------------------------------------------------------------------------
// Launch

void launch(core::SpectralConvAttrs const& attrs, PluginTensorDesc const* inputDesc, int32_t nbInputs,
            PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, void* workspace,
            size_t workspaceBound, cudaStream_t stream) {
    pluginCheck(inputDesc != nullptr && outputDesc != nullptr && inputs != nullptr && outputs != nullptr,
                "enqueue called without tensor descriptors or pointers");
    pluginCheck(nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS,
                inputCountMessage(nbInputs));
    DataType const type = inputDesc[0].type;
    for (int32_t i = 0; i <= nbInputs; ++i) {
        PluginTensorDesc const& d = i < nbInputs ? inputDesc[i] : outputDesc[0];
        pluginCheck(d.format == TensorFormat::kLINEAR, "only the LINEAR tensor format is supported");
        pluginCheck(d.type == type, std::string("all tensors must share one type; got ") + typeName(type) + " and " +
                                        typeName(d.type));
    }
    core::SpectralConvParams params;
    params.attrs = attrs;
    params.dtype = toCoreType(type);
    Dims dims[kMAX_INPUTS];
    for (int32_t i = 0; i < nbInputs; ++i) dims[i] = inputDesc[i].dims;
    params.shape = inferShape(attrs, dims, nbInputs);

    int64_t expected[core::kMaxRank + 2] = {};
    core::outputDims(params.shape, expected);
    Dims const& y = outputDesc[0].dims;
    bool sameOut = y.nbDims == attrs.rank + 2;
    for (int32_t k = 0; sameOut && k < y.nbDims; ++k) sameOut = static_cast<int64_t>(y.d[k]) == expected[k];
    pluginCheck(sameOut, "output tensor dims do not match [N, Cout, T_1..T_d]");

    params.x = inputs[0];
    params.weight = inputs[1];
    params.bias = nbInputs >= 3 ? inputs[2] : nullptr;
    params.skipWeight = nbInputs == 4 ? inputs[3] : nullptr;
    params.y = outputs[0];
    core::Status const supported = core::cudaCheckSupported(params.shape, params.dtype, &attrs);
    pluginCheck(supported.ok, "not supported by the CUDA kernel: " + supported.message);
    size_t const wsBytes = core::cudaWorkspaceBytes(params.shape, params.dtype);
    pluginCheck(wsBytes == 0 || workspace != nullptr, "the kernel needs " + std::to_string(wsBytes) +
                                                          " workspace bytes but TensorRT passed none");
    pluginCheck(workspaceBound == 0 || wsBytes <= workspaceBound,
                "this shape needs " + std::to_string(wsBytes) + " workspace bytes but only " +
                    std::to_string(workspaceBound) + " were reserved when the engine was built");
    cudaError_t const err = core::launchCuda(params, wsBytes ? workspace : nullptr, wsBytes, stream);
    pluginCheck(err == cudaSuccess, std::string("CUDA launch failed: ") + cudaGetErrorName(err) + ": " +
                                        cudaGetErrorString(err));
}

}  // namespace trt
}  // namespace turbofno
