#include "spectralConvPlugin.h"

#if NV_TENSORRT_MAJOR >= 10

#include <algorithm>
#include <exception>
#include <memory>
#include <utility>

namespace turbofno {
namespace trt {

using namespace nvinfer1;

// ---------------------------------------------------------------------------------------------
// SpectralConvPlugin

SpectralConvPlugin::SpectralConvPlugin(std::string layerName, core::SpectralConvAttrs const& attrs)
    : mLayerName(std::move(layerName)), mAttrs(attrs) {
    mSerialized.assign(mAttrs);
}

IPluginCapability* SpectralConvPlugin::getCapabilityInterface(PluginCapabilityType type) noexcept {
    switch (type) {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
    }
    return nullptr;
}

IPluginV3* SpectralConvPlugin::clone() noexcept {
    try {
        auto copy = std::make_unique<SpectralConvPlugin>(mLayerName, mAttrs);
        copy->setPluginNamespace(mNamespace.c_str());
        copy->mNbInputs = mNbInputs;
        copy->mWorkspaceBound = mWorkspaceBound;
        return copy.release();
    } catch (...) {
        logCaught(mLayerName.c_str(), "clone");
    }
    return nullptr;
}

char const* SpectralConvPlugin::getPluginName() const noexcept { return kPLUGIN_NAME; }
char const* SpectralConvPlugin::getPluginVersion() const noexcept { return kPLUGIN_VERSION; }
char const* SpectralConvPlugin::getPluginNamespace() const noexcept { return mNamespace.c_str(); }

int32_t SpectralConvPlugin::configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
                                            DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept {
    try {
        checkConfigureTypes(in, nbInputs, out, nbOutputs, kMIN_INPUTS, kMAX_INPUTS, inputCountMessage(nbInputs));
        checkBuildShapes(mAttrs, in, nbInputs);
        mNbInputs = nbInputs;
        // What getWorkspaceSize reports for this profile; kept (and serialized) so that enqueue can
        // refuse a shape needing more instead of overrunning the workspace.
        mWorkspaceBound = std::max(mWorkspaceBound, workspaceForProfile(mAttrs, in, nbInputs));
        return 0;
    } catch (...) {
        logCaught(mLayerName.c_str(), "configurePlugin");
    }
    return 1;
}

int32_t SpectralConvPlugin::getOutputDataTypes(DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes,
                                               int32_t nbInputs) const noexcept {
    try {
        pluginCheck(outputTypes != nullptr && nbOutputs == 1, "expected exactly one output");
        pluginCheck(inputTypes != nullptr && nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS,
                    inputCountMessage(nbInputs));
        outputTypes[0] = inputTypes[0];
        return 0;
    } catch (...) {
        logCaught(mLayerName.c_str(), "getOutputDataTypes");
    }
    return 1;
}

int32_t SpectralConvPlugin::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* /*shapeInputs*/,
                                            int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs,
                                            IExprBuilder& exprBuilder) noexcept {
    try {
        pluginCheck(nbShapeInputs == 0, "SpectralConv takes no shape inputs");
        pluginCheck(outputs != nullptr && nbOutputs == 1, "expected exactly one output");
        outputShapeExprs(mAttrs, inputs, nbInputs, outputs[0], exprBuilder);
        return 0;
    } catch (...) {
        logCaught(mLayerName.c_str(), "getOutputShapes");
    }
    return 1;
}

bool SpectralConvPlugin::supportsFormatCombination(int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
                                                   int32_t nbOutputs) noexcept {
    return supportsCombination(pos, inOut, nbInputs, nbOutputs);
}

int32_t SpectralConvPlugin::getNbOutputs() const noexcept { return 1; }

size_t SpectralConvPlugin::getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
                                            DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept {
    try {
        return workspaceForProfile(mAttrs, inputs, nbInputs);
    } catch (...) {
        logCaught(mLayerName.c_str(), "getWorkspaceSize");
    }
    // No error code exists here; an impossible size makes the build fail instead of running short.
    return static_cast<size_t>(-1);
}

int32_t SpectralConvPlugin::onShapeChange(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out,
                                          int32_t nbOutputs) noexcept {
    try {
        pluginCheck(in != nullptr && out != nullptr && nbOutputs == 1, "expected inputs and exactly one output");
        Dims dims[kMAX_INPUTS];
        pluginCheck(nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS, inputCountMessage(nbInputs));
        for (int32_t i = 0; i < nbInputs; ++i) dims[i] = in[i].dims;
        inferShape(mAttrs, dims, nbInputs);
        mNbInputs = nbInputs;
        return 0;
    } catch (...) {
        logCaught(mLayerName.c_str(), "onShapeChange");
    }
    return 1;
}

int32_t SpectralConvPlugin::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
                                    void const* const* inputs, void* const* outputs, void* workspace,
                                    cudaStream_t stream) noexcept {
    try {
        // enqueue is not told the input count; configurePlugin (serialized) / onShapeChange recorded it.
        pluginCheck(mNbInputs != 0, "enqueue before configurePlugin / onShapeChange");
        launch(mAttrs, inputDesc, mNbInputs, outputDesc, inputs, outputs, workspace, mWorkspaceBound, stream);
        return 0;
    } catch (...) {
        logCaught(mLayerName.c_str(), "enqueue");
    }
    return 1;
}

IPluginV3* SpectralConvPlugin::attachToContext(IPluginResourceContext* /*context*/) noexcept { return clone(); }

PluginFieldCollection const* SpectralConvPlugin::getFieldsToSerialize() noexcept {
    try {
        mSerialized.assign(mAttrs, BuildState{mWorkspaceBound, mNbInputs});
        return mSerialized.collection();
    } catch (...) {
        logCaught(mLayerName.c_str(), "getFieldsToSerialize");
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// SpectralConvPluginCreator

char const* SpectralConvPluginCreator::getPluginName() const noexcept { return kPLUGIN_NAME; }
char const* SpectralConvPluginCreator::getPluginVersion() const noexcept { return kPLUGIN_VERSION; }
char const* SpectralConvPluginCreator::getPluginNamespace() const noexcept { return mNamespace.c_str(); }
PluginFieldCollection const* SpectralConvPluginCreator::getFieldNames() noexcept { return creatorFieldNames(); }

IPluginV3* SpectralConvPluginCreator::createPlugin(char const* name, PluginFieldCollection const* fc,
                                                   TensorRTPhase phase) noexcept {
    try {
        // Both phases read the same fields: the ONNX parser's (build) or getFieldsToSerialize's (runtime).
        BuildState state;  // present in runtime-phase fields only
        core::SpectralConvAttrs const attrs = attrsFromFields(fc, &state);
        auto plugin = std::make_unique<SpectralConvPlugin>(name ? name : "", attrs);
        plugin->setPluginNamespace(mNamespace.c_str());
        if (phase == TensorRTPhase::kRUNTIME) plugin->setBuildState(state);
        return plugin.release();
    } catch (...) {
        logCaught(name, phase == TensorRTPhase::kRUNTIME ? "createPlugin (runtime: deserializing)" : "createPlugin");
    }
    return nullptr;
}

}  // namespace trt
}  // namespace turbofno

#endif  // NV_TENSORRT_MAJOR >= 10
