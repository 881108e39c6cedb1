// PointwiseMLP as a TensorRT IPluginV2DynamicExt with its IPluginCreator (deprecated since TensorRT 10
// but still loaded by it; the only interface before TensorRT 10). Same core calls as the V3 plugin
// (pointwiseMlpCommon.h); only the TensorRT plumbing differs.
#pragma once

#include <string>

#include <NvInferRuntime.h>

#include "pointwiseMlpCommon.h"

// IPluginV2* is marked deprecated in TensorRT 10; implementing it is the point of this file.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace turbofno {
namespace trt {

class PointwiseMlpPluginLegacy : public nvinfer1::IPluginV2DynamicExt {
public:
    PointwiseMlpPluginLegacy(std::string layerName, core::PointwiseMlpAttrs const& attrs, int32_t nbInputs = 0,
                             size_t workspaceBound = 0, bool fromPlan = false);
    ~PointwiseMlpPluginLegacy() override = default;

    // IPluginV2
    char const* getPluginType() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    int32_t initialize() noexcept override;
    void terminate() noexcept override;
    size_t getSerializationSize() const noexcept override;
    void serialize(void* buffer) const noexcept override;
    void destroy() noexcept override;
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override;

    // IPluginV2Ext
    nvinfer1::DataType getOutputDataType(int32_t index, nvinfer1::DataType const* inputTypes,
                                         int32_t nbInputs) const noexcept override;

    // IPluginV2DynamicExt
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
                                            nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
                                   int32_t nbOutputs) noexcept override;
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
                         nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
                            nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
                    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;

    core::PointwiseMlpAttrs const& attrs() const noexcept { return mAttrs; }

private:
    std::string mLayerName;
    std::string mNamespace;
    core::PointwiseMlpAttrs mAttrs;
    int32_t mNbInputs = 0;        // 4 to 7 once configurePlugin ran (also serialized)
    bool mConfigOk = true;        // configurePlugin cannot return an error; enqueue reports it
    size_t mWorkspaceBound = 0;   // bytes reserved at build time (serialized); 0 = unknown
    bool mFromPlan = false;       // deserialized: runtime configurePlugin calls do not move the bound
    bool mHaveProfile = false;    // profile bounds seen by configurePlugin (for getWorkspaceSize)
    nvinfer1::Dims mProfileMin[kMLP_MAX_INPUTS]{}, mProfileOpt[kMLP_MAX_INPUTS]{}, mProfileMax[kMLP_MAX_INPUTS]{};
};

class PointwiseMlpPluginLegacyCreator : public nvinfer1::IPluginCreator {
public:
    PointwiseMlpPluginLegacyCreator() = default;
    ~PointwiseMlpPluginLegacyCreator() override = default;

    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(char const* name, void const* serialData, size_t serialLength) noexcept override;
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override;

private:
    std::string mNamespace;
};

}  // namespace trt
}  // namespace turbofno

#pragma GCC diagnostic pop
