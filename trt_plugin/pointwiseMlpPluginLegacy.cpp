#include "pointwiseMlpPluginLegacy.h"

#include <algorithm>
#include <memory>
#include <utility>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace turbofno {
namespace trt {

using namespace nvinfer1;

namespace {
void logMlpCaught(char const* layer, char const* what) noexcept { logCaught(kMLP_PLUGIN_NAME, layer, what); }
}  // namespace

// ---------------------------------------------------------------------------------------------
// PointwiseMlpPluginLegacy

PointwiseMlpPluginLegacy::PointwiseMlpPluginLegacy(std::string layerName, core::PointwiseMlpAttrs const& attrs,
                                                   int32_t nbInputs, size_t workspaceBound, bool fromPlan)
    : mLayerName(std::move(layerName)), mAttrs(attrs), mNbInputs(nbInputs), mWorkspaceBound(workspaceBound),
      mFromPlan(fromPlan) {}

char const* PointwiseMlpPluginLegacy::getPluginType() const noexcept { return kMLP_PLUGIN_NAME; }
char const* PointwiseMlpPluginLegacy::getPluginVersion() const noexcept { return kLEGACY_PLUGIN_VERSION; }
int32_t PointwiseMlpPluginLegacy::getNbOutputs() const noexcept { return 1; }
int32_t PointwiseMlpPluginLegacy::initialize() noexcept { return 0; }
void PointwiseMlpPluginLegacy::terminate() noexcept {}
size_t PointwiseMlpPluginLegacy::getSerializationSize() const noexcept { return kMLP_SERIALIZED_BYTES; }

void PointwiseMlpPluginLegacy::serialize(void* buffer) const noexcept {
    try {
        pluginCheck(buffer != nullptr, "serialize called with a null buffer");
        serializeMlp(mAttrs, mNbInputs, mWorkspaceBound, buffer);
    } catch (...) {
        logMlpCaught(mLayerName.c_str(), "serialize");
    }
}

void PointwiseMlpPluginLegacy::destroy() noexcept { delete this; }

void PointwiseMlpPluginLegacy::setPluginNamespace(char const* pluginNamespace) noexcept {
    try {
        mNamespace = pluginNamespace ? pluginNamespace : "";
    } catch (...) {
        logMlpCaught(mLayerName.c_str(), "setPluginNamespace");
    }
}

char const* PointwiseMlpPluginLegacy::getPluginNamespace() const noexcept { return mNamespace.c_str(); }

DataType PointwiseMlpPluginLegacy::getOutputDataType(int32_t index, DataType const* inputTypes,
                                                     int32_t nbInputs) const noexcept {
    // No error channel here: a bad call gets the first input's type and fails in configurePlugin.
    if (index == 0 && inputTypes != nullptr && nbInputs >= 1) return inputTypes[0];
    logError(std::string(kMLP_PLUGIN_NAME) + " '" + mLayerName + "': getOutputDataType called with invalid arguments");
    return DataType::kFLOAT;
}

IPluginV2DynamicExt* PointwiseMlpPluginLegacy::clone() const noexcept {
    try {
        return std::make_unique<PointwiseMlpPluginLegacy>(*this).release();  // all state, including the profile
    } catch (...) {
        logMlpCaught(mLayerName.c_str(), "clone");
    }
    return nullptr;
}

DimsExprs PointwiseMlpPluginLegacy::getOutputDimensions(int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs,
                                                        IExprBuilder& exprBuilder) noexcept {
    try {
        pluginCheck(outputIndex == 0, "PointwiseMLP has one output; asked for output " + std::to_string(outputIndex));
        DimsExprs out{};
        mlpOutputShapeExprs(inputs, nbInputs, out, exprBuilder);
        return out;
    } catch (...) {
        logMlpCaught(mLayerName.c_str(), "getOutputDimensions");
    }
    DimsExprs invalid{};
    invalid.nbDims = -1;  // TensorRT treats a negative rank as failure
    return invalid;
}

bool PointwiseMlpPluginLegacy::supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs,
                                                         int32_t nbOutputs) noexcept {
    return supportsMlpCombination(pos, inOut, nbInputs, nbOutputs);
}

void PointwiseMlpPluginLegacy::configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
                                               DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept {
    try {
        mConfigOk = false;
        checkConfigureTypes(in, nbInputs, out, nbOutputs, kMLP_MIN_INPUTS, kMLP_MAX_INPUTS,
                            mlpInputCountMessage(nbInputs));
        mlpCheckBuildShapes(in, nbInputs);
        mNbInputs = nbInputs;
        if (!mFromPlan) {
            // getWorkspaceSize is only told one shape; keep the profile so it can cover them all.
            mHaveProfile = true;
            for (int32_t i = 0; i < nbInputs; ++i) {
                profileBounds(in[i], mProfileMin[i], mProfileMax[i]);
                mProfileOpt[i] = in[i].opt;
                mHaveProfile = mHaveProfile && isConcrete(mProfileMin[i]) && isConcrete(mProfileMax[i]);
            }
            if (mHaveProfile) {
                mWorkspaceBound = std::max(mWorkspaceBound, mlpWorkspaceForBounds(mProfileMin, mProfileOpt, mProfileMax,
                                                                                  nbInputs, in[0].desc.type));
            }
        }
        mConfigOk = true;
    } catch (...) {
        logMlpCaught(mLayerName.c_str(), "configurePlugin");
    }
}

size_t PointwiseMlpPluginLegacy::getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs,
                                                  PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept {
    try {
        pluginCheck(inputs != nullptr && nbInputs >= kMLP_MIN_INPUTS && nbInputs <= kMLP_MAX_INPUTS,
                    mlpInputCountMessage(nbInputs));
        size_t const here = mlpWorkspaceForDims(inputs, nbInputs);
        if (mHaveProfile && nbInputs == mNbInputs) {
            return std::max(here, mlpWorkspaceForBounds(mProfileMin, mProfileOpt, mProfileMax, nbInputs, inputs[0].type));
        }
        return here;
    } catch (...) {
        logMlpCaught(mLayerName.c_str(), "getWorkspaceSize");
    }
    return static_cast<size_t>(-1);  // no error code exists; an impossible size fails the build
}

int32_t PointwiseMlpPluginLegacy::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
                                          void const* const* inputs, void* const* outputs, void* workspace,
                                          cudaStream_t stream) noexcept {
    try {
        pluginCheck(mConfigOk, "configurePlugin rejected the tensors (see the error above)");
        pluginCheck(mNbInputs != 0, "enqueue before configurePlugin");
        mlpLaunch(mAttrs, inputDesc, mNbInputs, outputDesc, inputs, outputs, workspace, mWorkspaceBound, stream);
        return 0;
    } catch (...) {
        logMlpCaught(mLayerName.c_str(), "enqueue");
    }
    return 1;
}

// ---------------------------------------------------------------------------------------------
// PointwiseMlpPluginLegacyCreator

char const* PointwiseMlpPluginLegacyCreator::getPluginName() const noexcept { return kMLP_PLUGIN_NAME; }
char const* PointwiseMlpPluginLegacyCreator::getPluginVersion() const noexcept { return kLEGACY_PLUGIN_VERSION; }
PluginFieldCollection const* PointwiseMlpPluginLegacyCreator::getFieldNames() noexcept { return mlpCreatorFieldNames(); }

IPluginV2* PointwiseMlpPluginLegacyCreator::createPlugin(char const* name, PluginFieldCollection const* fc) noexcept {
    try {
        auto plugin = std::make_unique<PointwiseMlpPluginLegacy>(name ? name : "", mlpAttrsFromFields(fc));
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin.release();
    } catch (...) {
        logMlpCaught(name, "createPlugin");
    }
    return nullptr;
}

IPluginV2* PointwiseMlpPluginLegacyCreator::deserializePlugin(char const* name, void const* serialData,
                                                              size_t serialLength) noexcept {
    try {
        int32_t nbInputs = 0;
        size_t workspace = 0;
        core::PointwiseMlpAttrs const attrs = deserializeMlp(serialData, serialLength, &nbInputs, &workspace);
        auto plugin = std::make_unique<PointwiseMlpPluginLegacy>(name ? name : "", attrs, nbInputs, workspace, true);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin.release();
    } catch (...) {
        logMlpCaught(name, "deserializePlugin");
    }
    return nullptr;
}

void PointwiseMlpPluginLegacyCreator::setPluginNamespace(char const* pluginNamespace) noexcept {
    try {
        mNamespace = pluginNamespace ? pluginNamespace : "";
    } catch (...) {
        logMlpCaught("", "setPluginNamespace");
    }
}

char const* PointwiseMlpPluginLegacyCreator::getPluginNamespace() const noexcept { return mNamespace.c_str(); }

}  // namespace trt
}  // namespace turbofno

#pragma GCC diagnostic pop
