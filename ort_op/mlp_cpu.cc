// PointwiseMLP on ORT's CPUExecutionProvider: float32, float16 and bfloat16 tensors, core::runMlpCpu on
// the session's intra-op pool. Plumbing and validation: mlp_common.cc.
#include <cstdint>
#include <exception>
#include <new>

#include "mlp_common.h"
#include "session_pool.h"
#include "turbofno/cpu.h"

namespace turbofno {
namespace ort {
namespace {

constexpr const char* kEpName = "CPUExecutionProvider";

// 64-byte aligned scratch for one run (mlpCpuWorkspaceBytes, 0 today), freed on scope exit.
struct Workspace {
    void* ptr = nullptr;
    ~Workspace() {
        if (ptr) ::operator delete(ptr, std::align_val_t(64));
    }
};

const char* ORT_API_CALL epType(const OrtCustomOp*) { return kEpName; }

OrtStatusPtr ORT_API_CALL compute(void* kernel, OrtKernelContext* ctx) {
    const MlpNodeState& node = *static_cast<const MlpNodeState*>(kernel);
    try {
        core::PointwiseMlpParams params;
        if (OrtStatus* st = prepareMlpRun(ctx, node, kSupportFloat | kSupportFloat16 | kSupportBFloat16, kEpName,
                                          &params)) {
            return st;
        }
        SessionPool pool(ctx);
        core::CpuRunOptions options;
        options.workers = core::defaultCpuThreads();  // an upper bound; ORT's pool decides the concurrency
        options.parallel = &pool;
        Workspace ws;
        const size_t bytes = core::mlpCpuWorkspaceBytes(params.shape, options.workers);
        if (bytes) {
            ws.ptr = ::operator new(bytes, std::align_val_t(64), std::nothrow);
            if (!ws.ptr) {
                return mlpError(node.name, "cannot allocate " + std::to_string(bytes) + " bytes of CPU workspace", ORT_FAIL);
            }
        }
        const core::Status st = core::runMlpCpu(params, ws.ptr, bytes, options);
        if (!st.ok) return mlpError(node.name, st.message, ORT_FAIL);
        return nullptr;
    } catch (const std::exception& e) {
        return mlpError(node.name, std::string("CPU kernel failed: ") + e.what(), ORT_FAIL);
    }
}

struct MlpCpuOp : OrtCustomOp {
    MlpCpuOp() {
        fillMlpCommonOp(this);
        GetExecutionProviderType = epType;
        CreateKernelV2 = createMlpKernel<MlpNodeState>;
        KernelComputeV2 = compute;
        KernelDestroy = destroyMlpKernel<MlpNodeState>;
    }
};

}  // namespace

std::vector<const OrtCustomOp*> mlpCpuCustomOps() {
    // float64 is registered only to reject it with a message naming the node (mlp_common.cc).
    static const std::vector<const OrtCustomOp*> ops =
        makeTypedOps(MlpCpuOp(), {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16,
                                  ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE});
    return ops;
}

}  // namespace ort
}  // namespace turbofno
