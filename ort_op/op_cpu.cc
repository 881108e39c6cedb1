// See op_cpu.h. Validation and plumbing live in op_common.cc; this file runs the CPU kernel on the
// session's intra-op thread pool (KernelContext_ParallelFor) with a per-node DFT table cache.
#include "op_cpu.h"

#include <cstdint>
#include <exception>
#include <new>

#include "op_common.h"
#include "session_pool.h"
#include "turbofno/cpu.h"

namespace turbofno {
namespace ort {
namespace {

constexpr const char* kEpName = "CPUExecutionProvider";

// Per-node state: the attributes and the tables of the last few spatial shapes this node ran.
struct CpuKernel : NodeState {
    core::CpuTableCache tables{8, size_t{256} << 20};
};

// 64-byte aligned scratch for one run, freed on scope exit.
struct Workspace {
    void* ptr = nullptr;
    ~Workspace() {
        if (ptr) ::operator delete(ptr, std::align_val_t(64));
    }
};

const char* ORT_API_CALL epType(const OrtCustomOp*) { return kEpName; }

OrtStatusPtr ORT_API_CALL compute(void* kernel, OrtKernelContext* ctx) {
    CpuKernel& node = *static_cast<CpuKernel*>(kernel);
    try {
        RunTensors run;
        if (OrtStatus* st = prepareRun(ctx, node, kSupportFloat | kSupportFloat16, kEpName, &run)) return st;
        SessionPool pool(ctx);
        core::CpuRunOptions options;
        options.workers = core::defaultCpuThreads();  // an upper bound; ORT's pool decides the concurrency
        options.parallel = &pool;
        options.cache = &node.tables;
        Workspace ws;
        const size_t bytes = core::cpuWorkspaceBytes(run.params.shape, options);
        if (bytes == SIZE_MAX) {
            // Over the kernel's size limit: runCpu says why (docs/op.md, "CPU limits").
            return nodeError(node.name, core::runCpu(run.params, nullptr, 0, options).message);
        }
        if (bytes) {
            ws.ptr = ::operator new(bytes, std::align_val_t(64), std::nothrow);
            if (!ws.ptr) {
                return nodeError(node.name, "cannot allocate " + std::to_string(bytes) + " bytes of CPU workspace", ORT_FAIL);
            }
        }
        const core::Status st = core::runCpu(run.params, ws.ptr, bytes, options);
        if (!st.ok) return nodeError(node.name, st.message, ORT_FAIL);
        return nullptr;
    } catch (const std::exception& e) {
        return nodeError(node.name, std::string("CPU kernel failed: ") + e.what(), ORT_FAIL);
    }
}

struct CpuOp : OrtCustomOp {
    CpuOp() {
        fillCommonOp(this);
        GetExecutionProviderType = epType;
        CreateKernelV2 = createKernel<CpuKernel>;
        KernelComputeV2 = compute;
        KernelDestroy = destroyKernel<CpuKernel>;
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
