// PointwiseMLP as a TensorRT IPluginV3 (TensorRT 10+): IPluginV3OneCore / OneBuild / OneRuntime and
// its IPluginCreatorV3One. A thin adapter over the core (pointwiseMlpCommon.h).
#pragma once

#include <NvInferRuntime.h>

#if NV_TENSORRT_MAJOR >= 10

#include <string>

#include "pointwiseMlpCommon.h"

namespace turbofno {
namespace trt {

class PointwiseMlpPlugin : public nvinfer1::IPluginV3,
                           public nvinfer1::IPluginV3OneCore,
                           public nvinfer1::IPluginV3OneBuild,
                           public nvinfer1::IPluginV3OneRuntime {
public:
    PointwiseMlpPlugin(std::string layerName, core::PointwiseMlpAttrs const& attrs);
    ~PointwiseMlpPlugin() override = default;

    // IPluginV3
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override;
    nvinfer1::IPluginV3* clone() noexcept override;

    // IPluginV3OneCore
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override;

    // IPluginV3OneBuild
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
                            nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
                               int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
                            int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
                            nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
                                   int32_t nbOutputs) noexcept override;
    int32_t getNbOutputs() const noexcept override;
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
                            nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;

    // IPluginV3OneRuntime
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
                          int32_t nbOutputs) noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
                    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override;

    core::PointwiseMlpAttrs const& attrs() const noexcept { return mAttrs; }
    void setPluginNamespace(char const* ns) { mNamespace = ns ? ns : ""; }
    void setBuildState(BuildState const& state) {
        mWorkspaceBound = state.workspaceBound;
        mNbInputs = state.nbInputs;
    }

private:
    std::string mLayerName;
    std::string mNamespace;
    core::PointwiseMlpAttrs mAttrs;
    MlpAttrFields mSerialized;
    int32_t mNbInputs = 0;        // 4 to 7 once configurePlugin / onShapeChange ran
    size_t mWorkspaceBound = 0;   // bytes reserved at build time (serialized); 0 = unknown
};

class PointwiseMlpPluginCreator : public nvinfer1::IPluginCreatorV3One {
public:
    PointwiseMlpPluginCreator() = default;
    ~PointwiseMlpPluginCreator() override = default;

    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;
    nvinfer1::IPluginV3* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc,
                                      nvinfer1::TensorRTPhase phase) noexcept override;

private:
    std::string mNamespace;
};

}  // namespace trt
}  // namespace turbofno

#endif  // NV_TENSORRT_MAJOR >= 10
