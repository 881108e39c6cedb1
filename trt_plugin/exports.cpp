// The library's only exported symbols: what IPluginRegistry::loadLibrary (and so Python's
// get_plugin_registry().load_library and trtexec --dynamicPlugins) looks up.
//   TensorRT 10+: getCreators (V3 and V2 creators of SpectralConv and PointwiseMLP) and setLoggerFinder.
//   TensorRT 8.6: getPluginCreators (V2 creators) and setLoggerFinder — only in a build against
//   TensorRT 8.x headers, since the V2 creator's vtable differs between the two header sets.
#include <cstdint>

#include <NvInferRuntime.h>

#include "pluginCommon.h"
#include "pointwiseMlpPlugin.h"
#include "pointwiseMlpPluginLegacy.h"
#include "spectralConvPlugin.h"
#include "spectralConvPluginLegacy.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define TURBOFNO_TRT_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

turbofno::trt::SpectralConvPluginLegacyCreator& legacyCreator() {
    static turbofno::trt::SpectralConvPluginLegacyCreator creator;
    return creator;
}

turbofno::trt::PointwiseMlpPluginLegacyCreator& mlpLegacyCreator() {
    static turbofno::trt::PointwiseMlpPluginLegacyCreator creator;
    return creator;
}

#if NV_TENSORRT_MAJOR >= 10
turbofno::trt::SpectralConvPluginCreator& v3Creator() {
    static turbofno::trt::SpectralConvPluginCreator creator;
    return creator;
}

turbofno::trt::PointwiseMlpPluginCreator& mlpV3Creator() {
    static turbofno::trt::PointwiseMlpPluginCreator creator;
    return creator;
}
#endif

}  // namespace

TURBOFNO_TRT_EXPORT void setLoggerFinder(nvinfer1::ILoggerFinder* finder) {
    turbofno::trt::setLoggerFinder(finder);
}

#if NV_TENSORRT_MAJOR >= 10
TURBOFNO_TRT_EXPORT nvinfer1::IPluginCreatorInterface* const* getCreators(int32_t& nbCreators) {
    // Per op, V3 first: it holds plugin_version "1", the version the exporter writes into ONNX nodes.
    static nvinfer1::IPluginCreatorInterface* const kCreators[] = {&v3Creator(), &legacyCreator(), &mlpV3Creator(),
                                                                   &mlpLegacyCreator()};
    nbCreators = 4;
    return kCreators;
}
#else
TURBOFNO_TRT_EXPORT nvinfer1::IPluginCreator* const* getPluginCreators(int32_t& nbCreators) {
    static nvinfer1::IPluginCreator* const kCreators[] = {&legacyCreator(), &mlpLegacyCreator()};
    nbCreators = 2;
    return kCreators;
}
#endif

#pragma GCC diagnostic pop
