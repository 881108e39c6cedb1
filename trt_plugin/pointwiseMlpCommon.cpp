#include "pointwiseMlpCommon.h"

#include <algorithm>

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

namespace {
char const* const kSlotNames[core::kMlpInputCount] = {"x", "W1", "B1", "W2", "B2", "R", "G"};
}  // namespace

std::string mlpInputCountMessage(int32_t nbInputs) {
    return "expected 4 to 7 inputs (x, W1, B1, W2[, B2[, R[, G]]]; TensorRT inputs are positional, so B1 must be "
           "given (zeros for none), B2 when R is, R when G is), got " +
           std::to_string(nbInputs);
}

// ---------------------------------------------------------------------------------------------
// Creator fields and attribute parsing

PluginFieldCollection const* mlpCreatorFieldNames() noexcept {
    static PluginField const kFields[] = {
        PluginField(core::kAttrHiddenActivation, nullptr, PluginFieldType::kINT32, 1),
        PluginField(core::kAttrActivation, nullptr, PluginFieldType::kINT32, 1),
    };
    static PluginFieldCollection const kCollection{2, kFields};
    return &kCollection;
}

core::PointwiseMlpAttrs mlpAttrsFromFields(PluginFieldCollection const* fc, BuildState* state) {
    if (state) *state = BuildState{};
    checkFieldCollection(fc);
    core::PointwiseMlpAttrs attrs;  // defaults: hidden gelu, output identity
    bool seenHidden = false, seenAct = false;
    for (int32_t i = 0; i < fc->nbFields; ++i) {
        PluginField const& f = fc->fields[i];
        if (f.name == nullptr) continue;  // unnamed fields carry nothing for us
        std::string const name = f.name;
        if (name == core::kAttrHiddenActivation) {
            markFieldOnce(seenHidden, name);
            attrs.hiddenActivation = static_cast<core::Activation>(readIntScalar(f));
        } else if (name == core::kAttrActivation) {
            markFieldOnce(seenAct, name);
            attrs.activation = static_cast<core::Activation>(readIntScalar(f));
        } else if (name == kBUILD_STATE_FIELD) {
            BuildState const parsed = readBuildState(f, kMLP_MIN_INPUTS, kMLP_MAX_INPUTS);
            if (state) *state = parsed;
        }
        // Other names are ignored: TensorRT passes only the creator's fields, other callers may add more.
    }
    core::Status const st = core::validateMlpAttrs(attrs);
    pluginCheck(st.ok, st.message);
    return attrs;
}

void MlpAttrFields::assign(core::PointwiseMlpAttrs const& attrs, BuildState const& state) {
    mHidden = static_cast<int32_t>(attrs.hiddenActivation);
    mActivation = static_cast<int32_t>(attrs.activation);
    // Both written always: a plan then never depends on the defaults of the library that reads it.
    mFields = {
        PluginField(core::kAttrHiddenActivation, &mHidden, PluginFieldType::kINT32, 1),
        PluginField(core::kAttrActivation, &mActivation, PluginFieldType::kINT32, 1),
    };
    PluginField stateField;
    if (mState.fill(state, stateField)) mFields.push_back(stateField);
    mCollection.nbFields = static_cast<int32_t>(mFields.size());
    mCollection.fields = mFields.data();
}

// ---------------------------------------------------------------------------------------------
// V2 byte format

namespace {
constexpr uint32_t kMLP_MAGIC = 0x504D4654u;  // "TFMP" read as little-endian
constexpr uint32_t kMLP_FORMAT_VERSION = 1;
}  // namespace

void serializeMlp(core::PointwiseMlpAttrs const& attrs, int32_t nbInputs, size_t workspaceBound, void* buffer) {
    unsigned char* const start = static_cast<unsigned char*>(buffer);
    unsigned char* p = start;
    put32(p, kMLP_MAGIC);
    put32(p, kMLP_FORMAT_VERSION);
    put32(p, static_cast<uint32_t>(attrs.hiddenActivation));
    put32(p, static_cast<uint32_t>(attrs.activation));
    put32(p, static_cast<uint32_t>(nbInputs));
    put64(p, uint64_t{workspaceBound});
    put32(p, fnv1a(start, static_cast<size_t>(p - start)));
}

core::PointwiseMlpAttrs deserializeMlp(void const* data, size_t length, int32_t* nbInputs, size_t* workspaceBound) {
    pluginCheck(data != nullptr, "serialized plugin data is null");
    pluginCheck(length == kMLP_SERIALIZED_BYTES,
                "serialized plugin data has " + std::to_string(length) + " bytes; expected " +
                    std::to_string(kMLP_SERIALIZED_BYTES) + " (truncated or not a " + kMLP_PLUGIN_NAME + " plugin)");
    unsigned char const* const start = static_cast<unsigned char const*>(data);
    unsigned char const* p = start;
    pluginCheck(get32(p) == kMLP_MAGIC, std::string("serialized plugin data does not start with the ") +
                                             kMLP_PLUGIN_NAME + " magic");
    uint32_t const version = get32(p);
    pluginCheck(version == kMLP_FORMAT_VERSION, "serialized plugin data has format version " + std::to_string(version) +
                                                    "; this library reads version " +
                                                    std::to_string(kMLP_FORMAT_VERSION));
    core::PointwiseMlpAttrs attrs;
    attrs.hiddenActivation = static_cast<core::Activation>(static_cast<int32_t>(get32(p)));
    attrs.activation = static_cast<core::Activation>(static_cast<int32_t>(get32(p)));
    int32_t const inputs = static_cast<int32_t>(get32(p));
    uint64_t const ws = get64(p);
    size_t const body = static_cast<size_t>(p - start);
    pluginCheck(get32(p) == fnv1a(start, body), "serialized plugin data is corrupted (checksum mismatch)");
    core::Status const st = core::validateMlpAttrs(attrs);
    pluginCheck(st.ok, "serialized plugin data holds invalid attributes: " + st.message);
    pluginCheck(inputs == 0 || (inputs >= kMLP_MIN_INPUTS && inputs <= kMLP_MAX_INPUTS),
                "serialized plugin data holds an invalid input count " + std::to_string(inputs));
    if (nbInputs) *nbInputs = inputs;
    if (workspaceBound) *workspaceBound = static_cast<size_t>(ws);
    return attrs;
}

// ---------------------------------------------------------------------------------------------
// Formats

bool supportsMlpCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept {
    return supportsLinearSameType(pos, inOut, nbInputs, nbOutputs, kMLP_MIN_INPUTS, kMLP_MAX_INPUTS);
}

bool supportsMlpCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
                            int32_t nbOutputs) noexcept {
    return supportsLinearSameType(pos, inOut, nbInputs, nbOutputs, kMLP_MIN_INPUTS, kMLP_MAX_INPUTS);
}

// ---------------------------------------------------------------------------------------------
// Shapes and workspace (all through the core)

namespace {

// The positional convention's own check, before the core's: the vectors (B1, B2, G) must have rank 1
// and the matrices rank 2, so that an input in the wrong slot (an optional input dropped before it)
// gets a message naming the convention rather than a channel-count mismatch.
void checkSlotRanks(int32_t const* ranks, int32_t nbInputs) {
    for (int32_t k = 1; k < nbInputs; ++k) {
        int32_t const want = (k == core::kMlpW1 || k == core::kMlpW2) ? 2 : (k == core::kMlpResidual) ? -1 : 1;
        if (want < 0 || ranks[k] == want) continue;
        throw PluginError("input " + std::to_string(k) + " (" + kSlotNames[k] + ") has rank " + std::to_string(ranks[k]) +
                          " but must have rank " + std::to_string(want) +
                          "; TensorRT inputs are positional (x, W1, B1, W2, B2, R, G): give an absent B1 (or an "
                          "absent B2 before R) as zeros instead of leaving it out");
    }
}

}  // namespace

core::PointwiseMlpShape mlpInferShape(Dims const* inputDims, int32_t nbInputs) {
    pluginCheck(inputDims != nullptr, "no input dims");
    pluginCheck(nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS, mlpInputCountMessage(nbInputs));
    int64_t dims[kMLP_MAX_INPUTS][Dims::MAX_DIMS] = {};
    int ranks[kMLP_MAX_INPUTS] = {};
    int32_t ranks32[kMLP_MAX_INPUTS] = {};
    int64_t const* dimPtrs[kMLP_MAX_INPUTS] = {};
    for (int32_t i = 0; i < nbInputs; ++i) {
        pluginCheck(inputDims[i].nbDims >= 0 && inputDims[i].nbDims <= Dims::MAX_DIMS,
                    "input " + std::to_string(i) + " has invalid rank");
        ranks[i] = ranks32[i] = inputDims[i].nbDims;
        for (int32_t k = 0; k < ranks[i]; ++k) dims[i][k] = static_cast<int64_t>(inputDims[i].d[k]);
        dimPtrs[i] = dims[i];
    }
    checkSlotRanks(ranks32, nbInputs);
    core::PointwiseMlpShape shape;
    core::Status const st = core::inferMlpShape(dimPtrs, ranks, &shape);
    pluginCheck(st.ok, st.message);
    return shape;
}

void mlpCheckBuildShapes(DynamicPluginTensorDesc const* in, int32_t nbInputs) {
    pluginCheck(in != nullptr, "no input descriptors");
    pluginCheck(nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS, mlpInputCountMessage(nbInputs));
    toCoreType(in[0].desc.type);  // throws for an unsupported type
    forEachKnownDimsSet(in, nbInputs, [&](Dims const* dims, char const* /*label*/) { mlpInferShape(dims, nbInputs); });
}

size_t mlpWorkspaceForBounds(Dims const* lo, Dims const* opt, Dims const* hi, int32_t nbInputs, DataType type) {
    pluginCheck(lo != nullptr && hi != nullptr, "no profile bounds");
    pluginCheck(nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS, mlpInputCountMessage(nbInputs));
    core::DataType const coreType = toCoreType(type);
    for (int32_t i = 0; i < nbInputs; ++i) {
        pluginCheck(isConcrete(lo[i]) && isConcrete(hi[i]) && lo[i].nbDims == hi[i].nbDims,
                    "profile bounds are not concrete");
        for (int32_t k = 0; k < lo[i].nbDims; ++k) pluginCheck(lo[i].d[k] <= hi[i].d[k], "profile min exceeds max");
    }
    size_t bytes = std::max(core::mlpCudaWorkspaceBytes(mlpInferShape(lo, nbInputs), coreType),
                            core::mlpCudaWorkspaceBytes(mlpInferShape(hi, nbInputs), coreType));
    bool optConcrete = opt != nullptr;
    for (int32_t i = 0; optConcrete && i < nbInputs; ++i) optConcrete = isConcrete(opt[i]) && opt[i].nbDims == lo[i].nbDims;
    if (optConcrete) bytes = std::max(bytes, core::mlpCudaWorkspaceBytes(mlpInferShape(opt, nbInputs), coreType));
    return bytes;
}

size_t mlpWorkspaceForProfile(DynamicPluginTensorDesc const* in, int32_t nbInputs) {
    pluginCheck(in != nullptr, "no input descriptors");
    pluginCheck(nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS, mlpInputCountMessage(nbInputs));
    Dims lo[kMLP_MAX_INPUTS], opt[kMLP_MAX_INPUTS], hi[kMLP_MAX_INPUTS];
    for (int32_t i = 0; i < nbInputs; ++i) {
        profileBounds(in[i], lo[i], hi[i]);
        opt[i] = in[i].opt;
    }
    return mlpWorkspaceForBounds(lo, opt, hi, nbInputs, in[0].desc.type);
}

size_t mlpWorkspaceForDims(PluginTensorDesc const* in, int32_t nbInputs) {
    pluginCheck(in != nullptr, "no input descriptors");
    pluginCheck(nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS, mlpInputCountMessage(nbInputs));
    Dims dims[kMLP_MAX_INPUTS];
    for (int32_t i = 0; i < nbInputs; ++i) dims[i] = in[i].dims;
    return core::mlpCudaWorkspaceBytes(mlpInferShape(dims, nbInputs), toCoreType(in[0].type));
}

void mlpOutputShapeExprs(DimsExprs const* inputs, int32_t nbInputs, DimsExprs& output,
                         nvinfer1::IExprBuilder& exprBuilder) {
    pluginCheck(inputs != nullptr, "no input shapes");
    pluginCheck(nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS, mlpInputCountMessage(nbInputs));
    DimsExprs const& x = inputs[core::kMlpX];
    DimsExprs const& w2 = inputs[core::kMlpW2];
    pluginCheck(x.nbDims >= 2 && x.nbDims <= Dims::MAX_DIMS,
                "x has rank " + std::to_string(x.nbDims) + "; expected [N, Cin, *S] (rank >= 2)");
    Dims dims[kMLP_MAX_INPUTS];
    bool const allConstant = constantDims(inputs, nbInputs, dims);
    int32_t ranks[kMLP_MAX_INPUTS] = {};
    for (int32_t i = 0; i < nbInputs; ++i) ranks[i] = inputs[i].nbDims;
    checkSlotRanks(ranks, nbInputs);
    if (allConstant) {
        core::PointwiseMlpShape const shape = mlpInferShape(dims, nbInputs);
        pluginCheck(shape.spatialRank + 2 == x.nbDims, "core output rank differs from x's rank");
        int64_t out[Dims::MAX_DIMS + 2] = {};
        core::mlpOutputDims(shape, out);
        constantExprs(out, x.nbDims, output, exprBuilder);
        return;
    }
    output.nbDims = x.nbDims;
    // Symbolic: x's batch and spatial extents, W2's output channels.
    output.d[0] = x.d[0];
    output.d[1] = w2.d[0];
    for (int32_t k = 2; k < x.nbDims; ++k) output.d[k] = x.d[k];
}

// ---------------------------------------------------------------------------------------------
// Launch

void mlpLaunch(core::PointwiseMlpAttrs const& attrs, PluginTensorDesc const* inputDesc, int32_t nbInputs,
               PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, void* workspace,
               size_t workspaceBound, cudaStream_t stream) {
    pluginCheck(inputDesc != nullptr && outputDesc != nullptr && inputs != nullptr && outputs != nullptr,
                "enqueue called without tensor descriptors or pointers");
    pluginCheck(nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS, mlpInputCountMessage(nbInputs));
    checkLaunchDescs(inputDesc, nbInputs, outputDesc);
    core::PointwiseMlpParams params;
    params.attrs = attrs;
    params.dtype = toCoreType(inputDesc[0].type);
    Dims dims[kMLP_MAX_INPUTS];
    for (int32_t i = 0; i < nbInputs; ++i) dims[i] = inputDesc[i].dims;
    params.shape = mlpInferShape(dims, nbInputs);

    int64_t expected[Dims::MAX_DIMS + 2] = {};
    core::mlpOutputDims(params.shape, expected);
    checkOutputDims(outputDesc[0].dims, expected, params.shape.spatialRank + 2, "[N, Cout, *S]");

    void const* slot[kMLP_MAX_INPUTS] = {};
    for (int32_t i = 0; i < nbInputs; ++i) slot[i] = inputs[i];
    params.x = slot[core::kMlpX];
    params.w1 = slot[core::kMlpW1];
    params.b1 = slot[core::kMlpB1];
    params.w2 = slot[core::kMlpW2];
    params.b2 = slot[core::kMlpB2];
    params.residual = slot[core::kMlpResidual];
    params.gate = slot[core::kMlpGate];
    params.y = outputs[0];
    size_t const wsBytes = core::mlpCudaWorkspaceBytes(params.shape, params.dtype);
    void* const ws = checkWorkspace(wsBytes, workspace, workspaceBound);
    checkLaunched(core::launchMlpCuda(params, ws, wsBytes, stream));
}

}  // namespace trt
}  // namespace turbofno
