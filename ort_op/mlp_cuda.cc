// PointwiseMLP on ORT's CUDAExecutionProvider: float32, float16 and bfloat16 device tensors;
// core::launchMlpCuda on ORT's compute stream (no host sync, so CUDA-graph capture works), scratch from
// ORT's allocator when the kernel asks for any. Plumbing and validation: mlp_common.cc; device, stream
// and scratch: cuda_common.cc.
#include <cuda_runtime_api.h>

#include <exception>
#include <string>

#include "cuda_common.h"
#include "mlp_common.h"
#include "turbofno/cuda.h"

namespace turbofno {
namespace ort {
namespace {

constexpr const char* kEpName = "CUDAExecutionProvider";

const char* ORT_API_CALL epType(const OrtCustomOp*) { return kEpName; }

OrtStatusPtr ORT_API_CALL compute(void* kernel, OrtKernelContext* ctx) {
    const MlpNodeState& node = *static_cast<const MlpNodeState*>(kernel);
    try {
        core::PointwiseMlpParams params;
        if (OrtStatus* st = prepareMlpRun(ctx, node, kSupportFloat | kSupportFloat16 | kSupportBFloat16, kEpName,
                                          &params)) {
            return st;
        }
        params.weightsConstant = node.weightsConstant;
        CudaRun cuda;
        if (OrtStatus* st = resolveCudaRun(ctx, core::kMlpOpType, node.name, &cuda)) return st;
        DeviceGuard guard(cuda.device);
        if (guard.error != cudaSuccess) {
            return mlpError(node.name, std::string("cannot select CUDA device ") + std::to_string(cuda.device) + ": " +
                                           cudaGetErrorString(guard.error), ORT_FAIL);
        }
        Scratch scratch;
        const size_t bytes = core::mlpCudaWorkspaceBytes(params.shape, params.dtype);
        if (bytes) {
            if (OrtStatus* st = getScratch(ctx, core::kMlpOpType, node.name, cuda.mem, bytes, cuda.stream, &scratch)) {
                return st;
            }
        }
        const cudaError_t err =
            core::launchMlpCuda(params, scratch.ptr, bytes, static_cast<cudaStream_t>(cuda.stream));
        if (err != cudaSuccess) {
            return mlpError(node.name, std::string("CUDA kernel launch failed: ") + cudaGetErrorName(err) + ": " +
                                           cudaGetErrorString(err), ORT_FAIL);
        }
        return nullptr;
    } catch (const std::exception& e) {
        return mlpError(node.name, std::string("CUDA kernel failed: ") + e.what(), ORT_FAIL);
    }
}

struct MlpCudaOp : OrtCustomOp {
    MlpCudaOp() {
        fillMlpCommonOp(this);
        GetExecutionProviderType = epType;
        CreateKernelV2 = createMlpKernel<MlpNodeState>;
        KernelComputeV2 = compute;
        KernelDestroy = destroyMlpKernel<MlpNodeState>;
    }
};

}  // namespace

std::vector<const OrtCustomOp*> mlpCudaCustomOps() {
    // One op per parameter type, already typed (register.cc adds them as they are).
    static const std::vector<const OrtCustomOp*> ops =
        makeTypedOps(MlpCudaOp(), {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16,
                                   ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16});
    return ops;
}

}  // namespace ort
}  // namespace turbofno
