// See op_cuda.h. Validation and plumbing live in op_common.cc, the device, stream and scratch memory
// of the run in cuda_common.cc; this file checks the shape against the kernel and enqueues it.
#include "op_cuda.h"

#include <cuda_runtime_api.h>

#include <exception>
#include <string>

#include "cuda_common.h"
#include "op_common.h"
#include "turbofno/cuda.h"

namespace turbofno {
namespace ort {
namespace {

constexpr const char* kEpName = "CUDAExecutionProvider";

const char* ORT_API_CALL epType(const OrtCustomOp*) { return kEpName; }

OrtStatusPtr ORT_API_CALL compute(void* kernel, OrtKernelContext* ctx) {
    const NodeState& node = *static_cast<const NodeState*>(kernel);
    try {
        RunTensors run;
        if (OrtStatus* st = prepareRun(ctx, node, kSupportFloat | kSupportFloat16 | kSupportBFloat16, kEpName, &run)) {
            return st;
        }
        CudaRun cuda;
        if (OrtStatus* st = resolveCudaRun(ctx, core::kOpType, node.name, &cuda)) return st;
        const int device = cuda.device;
        void* stream = cuda.stream;
        DeviceGuard guard(device);
        if (guard.error != cudaSuccess) {
            return nodeError(node.name, std::string("cannot select CUDA device ") + std::to_string(device) + ": " +
                                            cudaGetErrorString(guard.error), ORT_FAIL);
        }
        const core::Status supported = core::cudaCheckSupported(run.params.shape, run.params.dtype, &run.params.attrs);
        if (!supported.ok) return nodeError(node.name, "shape not supported by the CUDA kernel: " + supported.message);
        Scratch scratch;
        const size_t bytes = core::cudaWorkspaceBytes(run.params.shape, run.params.dtype);
        if (bytes) {
            if (OrtStatus* st = getScratch(ctx, core::kOpType, node.name, cuda.mem, bytes, stream, &scratch)) return st;
        }
        const cudaError_t err = core::launchCuda(run.params, scratch.ptr, bytes, static_cast<cudaStream_t>(stream));
        if (err != cudaSuccess) {
            return nodeError(node.name, std::string("CUDA kernel launch failed: ") + cudaGetErrorName(err) + ": " +
                                            cudaGetErrorString(err), ORT_FAIL);
        }
        return nullptr;
    } catch (const std::exception& e) {
        return nodeError(node.name, std::string("CUDA kernel failed: ") + e.what(), ORT_FAIL);
    }
}

struct CudaOp : OrtCustomOp {
    CudaOp() {
        fillCommonOp(this);
        GetExecutionProviderType = epType;
        CreateKernelV2 = createKernel<NodeState>;
        KernelComputeV2 = compute;
        KernelDestroy = destroyKernel<NodeState>;
    }
};

}  // namespace

std::vector<const OrtCustomOp*> cudaCustomOps() {
    static const CudaOp op;
    return {&op};
}

}  // namespace ort
}  // namespace turbofno
