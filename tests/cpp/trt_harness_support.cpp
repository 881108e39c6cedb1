// Build-time refusal of shapes the CUDA kernel cannot run: configurePlugin (V3 and V2) must fail with
// core::cudaCheckSupported's message, naming the profile bound that is unsupported, instead of
// building an engine whose every enqueue would fail. A supported profile of the same layer passes.
#include <cstdio>
#include <string>

#include "trt_harness.h"

using namespace nvinfer1;

namespace trt_test {
namespace {

// Descriptors for x, weight with the last spatial extent in [lo, hi] (batch 1).
void lastAxisProfile(Case const& c, int64_t lo, int64_t hi, DynamicPluginTensorDesc* in, DynamicPluginTensorDesc* out) {
    Case at = c;
    at.spatial.back() = hi;
    Dims const fixed[2] = {at.xDims(1), at.weightDims()};
    for (int i = 0; i < 2; ++i) {
        in[i] = DynamicPluginTensorDesc{};
        in[i].desc = PluginTensorDesc{fixed[i], c.type, TensorFormat::kLINEAR, -1.0F};
        in[i].min = in[i].opt = in[i].max = fixed[i];
    }
    int const last = fixed[0].nbDims - 1;
    in[0].desc.dims.d[last] = -1;
    in[0].min.d[last] = lo;
    in[0].opt.d[last] = lo;
    *out = DynamicPluginTensorDesc{};
    out->desc = PluginTensorDesc{at.outDims(1), c.type, TensorFormat::kLINEAR, -1.0F};
    out->desc.dims.d[last] = -1;
    out->min = out->opt = out->max = at.outDims(1);
    out->min.d[last] = out->opt.d[last] = lo;
}

}  // namespace

void checkBuildRefusal(PluginLibrary& lib) {
    std::printf("[build-time support check]\n");
    Case c;
    c.name = "long last axis";
    c.modesLow = {4, 16};
    c.modesHigh = {4, 0};
    c.spatial = {16, 64};
    if (!check(coreSupport(c, 1).empty(), "the core supports 16x64 (the control profile)")) return;
    // The first last-axis length the core refuses (its limit follows the kernel's shared memory).
    int64_t refused = 0;
    std::string why;
    for (int shift = 14; shift <= 26; ++shift) {  // x stays under 2^31 elements (16 x 2^26)
        int64_t const s = int64_t{1} << shift;
        Case t = c;
        t.spatial.back() = s;
        why = coreSupport(t, 1);
        if (!why.empty()) {
            refused = s;
            break;
        }
    }
    if (!check(refused > 0, "the core refuses some last-axis length up to 2^26 (else nothing to refuse at build)")) return;
    std::printf("  core refuses S_d = %lld: %s\n", static_cast<long long>(refused), why.c_str());

    FieldSet f = c.fields();
    IPluginV3* p = lib.v3->createPlugin("support", f.collection(), TensorRTPhase::kBUILD);
    IPluginV2* raw = lib.v2->createPlugin("support", f.collection());
    if (!check(p && raw, "create for the support checks")) {
        delete p;
        if (raw) raw->destroy();
        return;
    }
    auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* p2 = static_cast<IPluginV2DynamicExt*>(raw);
    DynamicPluginTensorDesc in[2], out;

    lastAxisProfile(c, 32, 64, in, &out);
    logger().take();
    check(build->configurePlugin(in, 2, &out, 1) == 0 && !loggedError(), "V3 configurePlugin accepts S_d in [32, 64]");
    p2->configurePlugin(in, 2, &out, 1);
    check(!loggedError(), "V2 configurePlugin accepts S_d in [32, 64]");

    lastAxisProfile(c, 64, refused, in, &out);
    logger().take();
    check(build->configurePlugin(in, 2, &out, 1) != 0 && loggedError("profile max: shape not supported by the CUDA kernel"),
          "V3 configurePlugin refuses a profile whose max shape the kernel cannot run (core's message)");
    p2->configurePlugin(in, 2, &out, 1);
    check(loggedError("profile max: shape not supported by the CUDA kernel"),
          "V2 configurePlugin logs the same refusal");

    lastAxisProfile(c, refused, refused, in, &out);
    logger().take();
    check(build->configurePlugin(in, 2, &out, 1) != 0 && loggedError(why),
          "V3 configurePlugin refuses a fixed unsupported shape with cudaCheckSupported's exact message");
    delete p;
    p2->destroy();
}

}  // namespace trt_test
