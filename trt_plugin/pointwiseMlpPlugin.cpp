#include "pointwiseMlpPlugin.h"

#if NV_TENSORRT_MAJOR >= 10

#include <algorithm>
#include <memory>
#include <utility>

namespace turbofno {
namespace trt {

using namespace nvinfer1;

namespace {
void logMlpCaught(std::string const& layer, char const* what) noexcept { logCaught(kMLP_PLUGIN_NAME, layer.c_str(), what); }
}  // namespace

// ---------------------------------------------------------------------------------------------
// PointwiseMlpPlugin

PointwiseMlpPlugin::PointwiseMlpPlugin(std::string layerName, core::PointwiseMlpAttrs const& attrs)
    : mLayerName(std::move(layerName)), mAttrs(attrs) {
    mSerialized.assign(mAttrs);
}

IPluginCapability* PointwiseMlpPlugin::getCapabilityInterface(PluginCapabilityType type) noexcept {
    switch (type) {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
    }
    return nullptr;
}

IPluginV3* PointwiseMlpPlugin::clone() noexcept {
    try {
        auto copy = std::make_unique<PointwiseMlpPlugin>(mLayerName, mAttrs);
        copy->setPluginNamespace(mNamespace.c_str());
        copy->setBuildState(BuildState{mWorkspaceBound, mNbInputs});
        return copy.release();
    } catch (...) {
        logMlpCaught(mLayerName, "clone");
    }
    return nullptr;
}

char const* PointwiseMlpPlugin::getPluginName() const noexcept { return kMLP_PLUGIN_NAME; }
char const* PointwiseMlpPlugin::getPluginVersion() const noexcept { return kMLP_PLUGIN_VERSION; }
char const* PointwiseMlpPlugin::getPluginNamespace() const noexcept { return mNamespace.c_str(); }

int32_t PointwiseMlpPlugin::configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
                                            DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept {
    try {
        checkConfigureTypes(in, nbInputs, out, nbOutputs, kMLP_MIN_INPUTS, kMLP_MAX_INPUTS,
                            mlpInputCountMessage(nbInputs));
        mlpCheckBuildShapes(in, nbInputs);
        mNbInputs = nbInputs;
        // Kept (and serialized) so that enqueue can refuse a shape needing more than was reserved.
        mWorkspaceBound = std::max(mWorkspaceBound, mlpWorkspaceForProfile(in, nbInputs));
        return 0;
    } catch (...) {
        logMlpCaught(mLayerName, "configurePlugin");
    }
    return 1;
}

int32_t PointwiseMlpPlugin::getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes,
                                               int32_t nbInputs) const noexcept {
    try {
        pluginCheck(outputTypes != nullptr && nbOutputs == 1, "expected exactly one output");
        pluginCheck(inputTypes != nullptr && nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS,
                    mlpInputCountMessage(nbInputs));
        outputTypes[0] = inputTypes[0];
        return 0;
    } catch (...) {
        logMlpCaught(mLayerName, "getOutputDataTypes");
    }
    return 1;
}

int32_t PointwiseMlpPlugin::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* /*shapeInputs*/,
                                            int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs,
                                            IExprBuilder& exprBuilder) noexcept {
    try {
        pluginCheck(nbShapeInputs == 0, "PointwiseMLP takes no shape inputs");
        pluginCheck(outputs != nullptr && nbOutputs == 1, "expected exactly one output");
        mlpOutputShapeExprs(inputs, nbInputs, outputs[0], exprBuilder);
        return 0;
    } catch (...) {
        logMlpCaught(mLayerName, "getOutputShapes");
    }
    return 1;
}

bool PointwiseMlpPlugin::supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
                                                   int32_t nbOutputs) noexcept {
    return supportsMlpCombination(pos, inOut, nbInputs, nbOutputs);
}

int32_t PointwiseMlpPlugin::getNbOutputs() const noexcept { return 1; }

size_t PointwiseMlpPlugin::getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
                                            DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept {
    try {
        return mlpWorkspaceForProfile(inputs, nbInputs);
    } catch (...) {
        logMlpCaught(mLayerName, "getWorkspaceSize");
    }
    // No error code exists here; an impossible size makes the build fail instead of running short.
    return static_cast<size_t>(-1);
}

int32_t PointwiseMlpPlugin::onShapeChange(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out,
                                          int32_t nbOutputs) noexcept {
    try {
        pluginCheck(in != nullptr && out != nullptr && nbOutputs == 1, "expected inputs and exactly one output");
        pluginCheck(nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS, mlpInputCountMessage(nbInputs));
        Dims dims[kMLP_MAX_INPUTS];
        for (int32_t i = 0; i < nbInputs; ++i) dims[i] = in[i].dims;
        mlpInferShape(dims, nbInputs);
        mNbInputs = nbInputs;
        return 0;
    } catch (...) {
        logMlpCaught(mLayerName, "onShapeChange");
    }
    return 1;
}

int32_t PointwiseMlpPlugin::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
                                    void const* const* inputs, void* const* outputs, void* workspace,
                                    cudaStream_t stream) noexcept {
    try {
        // enqueue is not told the input count; configurePlugin (serialized) / onShapeChange recorded it.
        pluginCheck(mNbInputs != 0, "enqueue before configurePlugin / onShapeChange");
        mlpLaunch(mAttrs, inputDesc, mNbInputs, outputDesc, inputs, outputs, workspace, mWorkspaceBound, stream);
        return 0;
    } catch (...) {
        logMlpCaught(mLayerName, "enqueue");
    }
    return 1;
}

IPluginV3* PointwiseMlpPlugin::attachToContext(IPluginResourceContext* /*context*/) noexcept { return clone(); }

PluginFieldCollection const* PointwiseMlpPlugin::getFieldsToSerialize() noexcept {
    try {
        mSerialized.assign(mAttrs, BuildState{mWorkspaceBound, mNbInputs});
        return mSerialized.collection();
    } catch (...) {
        logMlpCaught(mLayerName, "getFieldsToSerialize");
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// PointwiseMlpPluginCreator

char const* PointwiseMlpPluginCreator::getPluginName() const noexcept { return kMLP_PLUGIN_NAME; }
char const* PointwiseMlpPluginCreator::getPluginVersion() const noexcept { return kMLP_PLUGIN_VERSION; }
char const* PointwiseMlpPluginCreator::getPluginNamespace() const noexcept { return mNamespace.c_str(); }
PluginFieldCollection const* PointwiseMlpPluginCreator::getFieldNames() noexcept { return mlpCreatorFieldNames(); }

IPluginV3* PointwiseMlpPluginCreator::createPlugin(char const* name, PluginFieldCollection const* fc,
                                                   TensorRTPhase phase) noexcept {
    try {
        // Both phases read the same fields: the ONNX parser's (build) or getFieldsToSerialize's (runtime).
        BuildState state;  // present in runtime-phase fields only
        core::PointwiseMlpAttrs const attrs = mlpAttrsFromFields(fc, &state);
        auto plugin = std::make_unique<PointwiseMlpPlugin>(name ? name : "", attrs);
        plugin->setPluginNamespace(mNamespace.c_str());
        if (phase == TensorRTPhase::kRUNTIME) plugin->setBuildState(state);
        return plugin.release();
    } catch (...) {
        logCaught(kMLP_PLUGIN_NAME, name,
                  phase == TensorRTPhase::kRUNTIME ? "createPlugin (runtime: deserializing)" : "createPlugin");
    }
    return nullptr;
}

}  // namespace trt
}  // namespace turbofno

#endif  // NV_TENSORRT_MAJOR >= 10
