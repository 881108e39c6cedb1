#include "spectralConvCommon.h"

#include <algorithm>
#include <cstring>

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

std::string inputCountMessage(int32_t nbInputs) {
    return "expected 2 to 4 inputs (x, weight[, bias[, skip_weight]]), got " + std::to_string(nbInputs);
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

core::SpectralConvAttrs attrsFromFields(PluginFieldCollection const* fc, BuildState* state) {
    if (state) *state = BuildState{};
    checkFieldCollection(fc);
    core::SpectralConvAttrs attrs;
    bool seenLow = false, seenHigh = false, seenNorm = false, seenSep = false, seenOut = false, seenAct = false;
    int32_t lowCount = 0, highCount = 0;
    for (int32_t i = 0; i < fc->nbFields; ++i) {
        PluginField const& f = fc->fields[i];
        if (f.name == nullptr) continue;  // unnamed fields carry nothing for us
        std::string const name = f.name;
        auto once = [&](bool& seen) { markFieldOnce(seen, name); };
        if (name == core::kAttrModesLow) {
            once(seenLow);
            lowCount = readIntField(f, attrs.modesLow, core::kMaxRank);
        } else if (name == core::kAttrModesHigh) {
            once(seenHigh);
            highCount = readIntField(f, attrs.modesHigh, core::kMaxRank);
        } else if (name == core::kAttrOutputSize) {
            once(seenOut);
            attrs.outputRank = readIntField(f, attrs.outputSize, core::kMaxRank);
        } else if (name == core::kAttrNorm || name == core::kAttrSeparable || name == core::kAttrActivation) {
            bool const isNorm = name == core::kAttrNorm, isSep = name == core::kAttrSeparable;
            once(isNorm ? seenNorm : isSep ? seenSep : seenAct);
            int32_t const v = readIntScalar(f);
            if (isNorm) {
                attrs.norm = static_cast<core::FftNorm>(v);
            } else if (isSep) {
                attrs.separable = v;
            } else {
                attrs.activation = static_cast<core::Activation>(v);
            }
        } else if (name == kBUILD_STATE_FIELD) {
            BuildState const parsed = readBuildState(f, kMIN_INPUTS, kMAX_INPUTS);
            if (state) *state = parsed;
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
    PluginField stateField;
    if (mState.fill(state, stateField)) mFields.push_back(stateField);
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
    put64(p, uint64_t{workspaceBound});
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
    uint64_t const ws = get64(p);
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
    if (workspaceBound) *workspaceBound = static_cast<size_t>(ws);
    return attrs;
}

// ---------------------------------------------------------------------------------------------
// Types and formats

bool supportsCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept {
    return supportsLinearSameType(pos, inOut, nbInputs, nbOutputs, kMIN_INPUTS, kMAX_INPUTS);
}

bool supportsCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept {
    return supportsLinearSameType(pos, inOut, nbInputs, nbOutputs, kMIN_INPUTS, kMAX_INPUTS);
}

// ---------------------------------------------------------------------------------------------
// Shapes and workspace (all through the core)

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
    forEachKnownDimsSet(in, nbInputs, [&](Dims const* dims, char const* /*label*/) {
        core::SpectralConvShape const shape = inferShape(attrs, dims, nbInputs);
        // Refused here, at build time, rather than by every enqueue of the engine.
        core::Status const supported = core::cudaCheckSupported(shape, coreType);
        pluginCheck(supported.ok, "shape not supported by the CUDA kernel: " + supported.message);
    });
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
    for (int32_t i = 0; i < nbInputs; ++i) profileBounds(in[i], lo[i], hi[i]);
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
    Dims dims[kMAX_INPUTS];
    if (constantDims(inputs, nbInputs, dims)) {
        int64_t out[core::kMaxRank + 2] = {};
        core::outputDims(inferShape(attrs, dims, nbInputs), out);
        constantExprs(out, d + 2, output, exprBuilder);
        return;
    }
    output.nbDims = d + 2;
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
    checkLaunchDescs(inputDesc, nbInputs, outputDesc);
    DataType const type = inputDesc[0].type;
    core::SpectralConvParams params;
    params.attrs = attrs;
    params.dtype = toCoreType(type);
    Dims dims[kMAX_INPUTS];
    for (int32_t i = 0; i < nbInputs; ++i) dims[i] = inputDesc[i].dims;
    params.shape = inferShape(attrs, dims, nbInputs);

    int64_t expected[core::kMaxRank + 2] = {};
    core::outputDims(params.shape, expected);
    checkOutputDims(outputDesc[0].dims, expected, attrs.rank + 2, "[N, Cout, T_1..T_d]");

    params.x = inputs[0];
    params.weight = inputs[1];
    params.bias = nbInputs >= 3 ? inputs[2] : nullptr;
    params.skipWeight = nbInputs == 4 ? inputs[3] : nullptr;
    params.y = outputs[0];
    core::Status const supported = core::cudaCheckSupported(params.shape, params.dtype, &attrs);
    pluginCheck(supported.ok, "not supported by the CUDA kernel: " + supported.message);
    size_t const wsBytes = core::cudaWorkspaceBytes(params.shape, params.dtype);
    void* const ws = checkWorkspace(wsBytes, workspace, workspaceBound);
    checkLaunched(core::launchCuda(params, ws, wsBytes, stream));
}

}  // namespace trt
}  // namespace turbofno
