// See op_cpu.h. Validation and plumbing live in op_common.cc; this file only runs the CPU kernel.
#include "op_cpu.h"

#include <exception>
#include <new>

#include "op_common.h"
#include "turbofno/cpu.h"

namespace turbofno {
namespace ort {
namespace {

constexpr const char* kEpName = "CPUExecutionProvider";

// 64-byte aligned scratch for one run, freed on scope exit.
struct Workspace {
    void* ptr = nullptr;
    ~Workspace() {
        if (ptr) ::operator delete(ptr, std::align_val_t(64));
    }
};

const char* ORT_API_CALL epType(const OrtCustomOp*) { return kEpName; }

OrtStatusPtr ORT_API_CALL createKernel(const OrtCustomOp*, const OrtApi*, const OrtKernelInfo* info, void** kernel) {
    *kernel = nullptr;
    try {
        auto* node = new NodeState();
        if (OrtStatus* st = readNode(info, node)) {
            delete node;
            return st;
        }
        *kernel = node;
        return nullptr;
    } catch (const std::exception& e) {
        return nodeError("?", std::string("kernel creation failed: ") + e.what(), ORT_FAIL);
    }
}

OrtStatusPtr ORT_API_CALL compute(void* kernel, OrtKernelContext* ctx) {
    const NodeState& node = *static_cast<const NodeState*>(kernel);
    try {
        RunTensors run;
        if (OrtStatus* st = prepareRun(ctx, node, kSupportFloat | kSupportFloat16, kEpName, &run)) return st;
        const int threads = core::defaultCpuThreads();
        Workspace ws;
        const size_t bytes = core::cpuWorkspaceBytes(run.params.shape, threads);
        if (bytes) {
            ws.ptr = ::operator new(bytes, std::align_val_t(64), std::nothrow);
            if (!ws.ptr) {
                return nodeError(node.name, "cannot allocate " + std::to_string(bytes) + " bytes of CPU workspace", ORT_FAIL);
            }
        }
        const core::Status st = core::runCpu(run.params, ws.ptr, bytes, threads);
        if (!st.ok) return nodeError(node.name, st.message, ORT_FAIL);
        return nullptr;
    } catch (const std::exception& e) {
        return nodeError(node.name, std::string("CPU kernel failed: ") + e.what(), ORT_FAIL);
    }
}

void ORT_API_CALL destroyKernel(void* kernel) { delete static_cast<NodeState*>(kernel); }

struct CpuOp : OrtCustomOp {
    CpuOp() {
        fillCommonOp(this);
        GetExecutionProviderType = epType;
        CreateKernelV2 = createKernel;
        KernelComputeV2 = compute;
        KernelDestroy = destroyKernel;
    }
};

}  // namespace

std::vector<const OrtCustomOp*> cpuCustomOps() {
    // bfloat16 and float64 are registered only to reject them with a clear message naming the node
    // (prepareRun): without a kernel, ORT fails the model load with a generic type-matching error.
    // A CUDA kernel, where registered and enabled, still takes bfloat16 nodes first.
    static const std::vector<const OrtCustomOp*> ops =
        makeTypedOps(CpuOp(), {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16,
                               ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE});
    return ops;
}

}  // namespace ort
}  // namespace turbofno
