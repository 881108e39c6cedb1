// Harness checks that need a GPU: the full build -> serialize -> runtime -> enqueue flow of both
// interfaces on odd and non-power-of-two sizes, d = 1..3, fp32/fp16/bf16, with and without bias,
// separable, and full-axis mode windows, compared with the float64 reference.
#include <cuda_runtime_api.h>

#include "trt_harness.h"

namespace trt_test {

using namespace nvinfer1;

bool gpuAvailable(std::string* reason) {
    int n = 0;
    cudaError_t const err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if (reason) *reason = std::string("no CUDA device (") + cudaGetErrorString(err) + ")";
        return false;
    }
    if (n == 0) {
        if (reason) *reason = "no CUDA device";
        return false;
    }
    return true;
}

namespace {

Case make(std::string name, std::vector<int64_t> s, std::vector<int32_t> low, std::vector<int32_t> high, int64_t n,
          int64_t cin, int64_t cout, DataType t, bool bias, int32_t norm = 0, int32_t separable = 0) {
    Case c;
    c.name = std::move(name);
    c.spatial = std::move(s);
    c.modesLow = std::move(low);
    c.modesHigh = std::move(high);
    c.n = n, c.cin = cin, c.cout = cout, c.type = t, c.bias = bias, c.norm = norm, c.separable = separable;
    return c;
}

Case fused(Case c, int32_t activation, bool skip = true) {
    c.activation = activation;
    c.skip = skip;
    return c;
}

}  // namespace

void runGpuChecks(PluginLibrary& lib) {
    std::printf("[GPU: build -> serialize -> runtime -> enqueue vs float64 reference]\n");
    DataType const f32 = DataType::kFLOAT, f16 = DataType::kHALF, bf16 = DataType::kBF16;
    std::vector<Case> cases = {
        make("d1 S=37 k=7 fp32 bias", {37}, {7}, {0}, 2, 3, 4, f32, true),
        make("d1 S=31 k=16 bf16", {31}, {16}, {0}, 3, 2, 2, bf16, false),
        make("d2 12x15 fp32 ortho", {12, 15}, {3, 5}, {2, 0}, 2, 3, 5, f32, false, 2),
        make("d2 12x15 fp16 bias", {12, 15}, {3, 5}, {2, 0}, 2, 3, 5, f16, true),
        make("d2 9x10 separable bf16 Nyquist", {9, 10}, {2, 6}, {2, 0}, 1, 4, 4, bf16, true, 0, 1),
        make("d2 5x8 full window fp32", {5, 8}, {3, 5}, {2, 0}, 2, 2, 3, f32, true, 1),
        make("d2 33x20 fp32 separable", {33, 20}, {4, 7}, {3, 0}, 2, 6, 6, f32, false, 0, 1),
        make("d3 6x5x7 fp32 bias", {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, 1, 2, 3, f32, true, 1),
        make("d3 6x5x7 fp16", {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, 2, 2, 3, f16, false),
        make("d2 12x10->24x20 output_size fp32", {12, 10}, {3, 4}, {2, 0}, 2, 3, 4, f32, true, 1),
        make("d3 6x5x7->9x4x12 output_size fp16", {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, 1, 2, 3, f16, false, 2),
    };
    cases[cases.size() - 2].outputSize = {24, 20};
    cases[cases.size() - 1].outputSize = {9, 4, 12};
    // fused layer (op version 2): skip weight (input 3) and activation
    cases.push_back(fused(make("fused d2 12x15 fp32 skip gelu", {12, 15}, {3, 5}, {2, 0}, 2, 3, 5, f32, true), 1));
    cases.push_back(fused(make("fused d1 S=37 fp16 skip silu", {37}, {7}, {0}, 2, 4, 3, f16, true), 4));
    cases.push_back(fused(make("fused d3 6x5x7 bf16 sep skip tanh", {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, 1, 3, 3, bf16, true, 0, 1), 5));
    cases.push_back(fused(make("fused d2 9x10 fp32 gelu_tanh, no skip", {9, 10}, {2, 6}, {2, 0}, 1, 4, 2, f32, true), 2, false));
    for (Case const& c : cases) {
        FieldSet f = c.fields();
        BuildResult built = buildPhase(lib, c, f.collection());
        if (!check(built.ok, c.name + ": build phase")) continue;
        runtimePhase(lib, c, built, nullptr, nullptr);
    }

    // A runtime error path: the kernel needs workspace but none is passed -> error code, no launch.
    Case const c = cases[2];
    FieldSet f = c.fields();
    BuildResult built = buildPhase(lib, c, f.collection());
    if (built.ok && built.v3Workspace > 0) {
        IPluginV3* p = lib.v3->createPlugin("noWs", built.v3Fields.collection(), TensorRTPhase::kRUNTIME);
        auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        PluginTensorDesc in[2] = {{c.xDims(c.n), c.type, TensorFormat::kLINEAR, -1.0F},
                                  {c.weightDims(), c.type, TensorFormat::kLINEAR, -1.0F}};
        PluginTensorDesc out{c.outDims(c.n), c.type, TensorFormat::kLINEAR, -1.0F};
        check(rt->onShapeChange(in, 2, &out, 1) == 0, "noWs: onShapeChange");
        void* buf = nullptr;
        cudaMalloc(&buf, 1 << 16);
        void const* ins[2] = {buf, buf};
        void* outs[1] = {buf};
        logger().take();
        check(rt->enqueue(in, &out, ins, outs, nullptr, nullptr) != 0 && loggedError("workspace"),
              "V3 enqueue without the workspace it needs fails with an error");
        cudaFree(buf);
        delete p;
    } else {
        std::printf("  (workspace-null check skipped: kernel reports 0 workspace bytes)\n");
    }
}

}  // namespace trt_test
