#include "spectralConvPluginLegacy.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <utility>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace turbofno {
namespace trt {

using namespace nvinfer1;

// ---------------------------------------------------------------------------------------------
// SpectralConvPluginLegacy

SpectralConvPluginLegacy::SpectralConvPluginLegacy(std::string layerName, core::SpectralConvAttrs const& attrs,
                                                   int32_t nbInputs, size_t workspaceBound, bool fromPlan)
    : mLayerName(std::move(layerName)), mAttrs(attrs), mNbInputs(nbInputs), mWorkspaceBound(workspaceBound),
      mFromPlan(fromPlan) {}

char const* SpectralConvPluginLegacy::getPluginType() const noexcept { return kPLUGIN_NAME; }
char const* SpectralConvPluginLegacy::getPluginVersion() const noexcept { return kLEGACY_PLUGIN_VERSION; }
int32_t SpectralConvPluginLegacy::getNbOutputs() const noexcept { return 1; }
int32_t SpectralConvPluginLegacy::initialize() noexcept { return 0; }
void SpectralConvPluginLegacy::terminate() noexcept {}
size_t SpectralConvPluginLegacy::getSerializationSize() const noexcept { return kSERIALIZED_BYTES; }

void SpectralConvPluginLegacy::serialize(void* buffer) const noexcept {
    try {
        pluginCheck(buffer != nullptr, "serialize called with a null buffer");
        serializeAttrs(mAttrs, mNbInputs, mWorkspaceBound, buffer);
    } catch (...) {
        logCaught(mLayerName.c_str(), "serialize");
    }
}

void SpectralConvPluginLegacy::destroy() noexcept { delete this; }

void SpectralConvPluginLegacy::setPluginNamespace(char const* pluginNamespace) noexcept {
    try {
        mNamespace = pluginNamespace ? pluginNamespace : "";
    } catch (...) {
        logCaught(mLayerName.c_str(), "setPluginNamespace");
    }
}

char const* SpectralConvPluginLegacy::getPluginNamespace() const noexcept { return mNamespace.c_str(); }

DataType SpectralConvPluginLegacy::getOutputDataType(int32_t index, DataType const* inputTypes,
                                                     int32_t nbInputs) const noexcept {
    // No error channel here: a bad call gets the first input's type and fails in configurePlugin.
    if (index == 0 && inputTypes != nullptr && nbInputs >= 1) return inputTypes[0];
    logError(std::string(kPLUGIN_NAME) + " '" + mLayerName + "': getOutputDataType called with invalid arguments");
    return DataType::kFLOAT;
}

IPluginV2DynamicExt* SpectralConvPluginLegacy::clone() const noexcept {
    try {
        auto copy = std::make_unique<SpectralConvPluginLegacy>(*this);  // all state, including the profile
        copy->mNamespace = mNamespace;
        return copy.release();
    } catch (...) {
        logCaught(mLayerName.c_str(), "clone");
    }
    return nullptr;
}

DimsExprs SpectralConvPluginLegacy::getOutputDimensions(int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs,
                                                        IExprBuilder& exprBuilder) noexcept {
    try {
        pluginCheck(outputIndex == 0, "SpectralConv has one output; asked for output " + std::to_string(outputIndex));
        DimsExprs out{};
        outputShapeExprs(mAttrs, inputs, nbInputs, out, exprBuilder);
        return out;
    } catch (...) {
        logCaught(mLayerName.c_str(), "getOutputDimensions");
    }
    DimsExprs invalid{};
    invalid.nbDims = -1;  // TensorRT treats a negative rank as failure
    return invalid;
}

bool SpectralConvPluginLegacy::supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs,
                                                         int32_t nbOutputs) noexcept {
    return supportsCombination(pos, inOut, nbInputs, nbOutputs);
}

void SpectralConvPluginLegacy::configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs,
                                               DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept {
    try {
        mConfigOk = false;
        checkConfigureTypes(in, nbInputs, out, nbOutputs, kMIN_INPUTS, kMAX_INPUTS, inputCountMessage(nbInputs));
        checkBuildShapes(mAttrs, in, nbInputs);
        mNbInputs = nbInputs;
        if (!mFromPlan) {
            // getWorkspaceSize is only told one shape; keep the profile so it can bound them all.
            mHaveProfile = true;
            for (int32_t i = 0; i < nbInputs; ++i) {
                profileBounds(in[i], mProfileMin[i], mProfileMax[i]);
                mHaveProfile = mHaveProfile && isConcrete(mProfileMin[i]) && isConcrete(mProfileMax[i]);
            }
            if (mHaveProfile) {
                mWorkspaceBound = std::max(mWorkspaceBound,
                                           workspaceBound(mAttrs, mProfileMin, mProfileMax, nbInputs, in[0].desc.type));
            }
        }
        mConfigOk = true;
    } catch (...) {
        logCaught(mLayerName.c_str(), "configurePlugin");
    }
}

size_t SpectralConvPluginLegacy::getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs,
                                                  PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept {
    try {
        pluginCheck(inputs != nullptr && nbInputs >= kMIN_INPUTS && nbInputs <= kMAX_INPUTS, "bad input descriptors");
        if (mHaveProfile && nbInputs == mNbInputs) {
            return std::max(workspaceBound(mAttrs, mProfileMin, mProfileMax, nbInputs, inputs[0].type),
                            workspaceForDims(mAttrs, inputs, nbInputs));
        }
        return workspaceForDims(mAttrs, inputs, nbInputs);
    } catch (...) {
        logCaught(mLayerName.c_str(), "getWorkspaceSize");
    }
    return static_cast<size_t>(-1);  // no error code exists; an impossible size fails the build
}

int32_t SpectralConvPluginLegacy::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
                                          void const* const* inputs, void* const* outputs, void* workspace,
                                          cudaStream_t stream) noexcept {
    try {
        pluginCheck(mConfigOk, "configurePlugin rejected the tensors (see the error above)");
        pluginCheck(mNbInputs != 0, "enqueue before configurePlugin");
        launch(mAttrs, inputDesc, mNbInputs, outputDesc, inputs, outputs, workspace, mWorkspaceBound, stream);
        return 0;
    } catch (...) {
        logCaught(mLayerName.c_str(), "enqueue");
    }
    return 1;
}

// ---------------------------------------------------------------------------------------------
// SpectralConvPluginLegacyCreator

char const* SpectralConvPluginLegacyCreator::getPluginName() const noexcept { return kPLUGIN_NAME; }
char const* SpectralConvPluginLegacyCreator::getPluginVersion() const noexcept { return kLEGACY_PLUGIN_VERSION; }
PluginFieldCollection const* SpectralConvPluginLegacyCreator::getFieldNames() noexcept { return creatorFieldNames(); }

IPluginV2* SpectralConvPluginLegacyCreator::createPlugin(char const* name, PluginFieldCollection const* fc) noexcept {
    try {
        auto plugin = std::make_unique<SpectralConvPluginLegacy>(name ? name : "", attrsFromFields(fc));
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin.release();
    } catch (...) {
        logCaught(name, "createPlugin");
    }
    return nullptr;
}

IPluginV2* SpectralConvPluginLegacyCreator::deserializePlugin(char const* name, void const* serialData,
                                                              size_t serialLength) noexcept {
    try {
        int32_t nbInputs = 0;
        size_t workspace = 0;
        core::SpectralConvAttrs const attrs = deserializeAttrs(serialData, serialLength, &nbInputs, &workspace);
        auto plugin = std::make_unique<SpectralConvPluginLegacy>(name ? name : "", attrs, nbInputs, workspace, true);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin.release();
    } catch (...) {
        logCaught(name, "deserializePlugin");
    }
    return nullptr;
}

void SpectralConvPluginLegacyCreator::setPluginNamespace(char const* pluginNamespace) noexcept {
    try {
        mNamespace = pluginNamespace ? pluginNamespace : "";
    } catch (...) {
        logCaught("", "setPluginNamespace");
    }
}

char const* SpectralConvPluginLegacyCreator::getPluginNamespace() const noexcept { return mNamespace.c_str(); }

}  // namespace trt
}  // namespace turbofno

#pragma GCC diagnostic pop
