// See op_cuda.h. Validation and plumbing live in op_common.cc; this file only resolves the device,
// stream and scratch memory of the run and enqueues the fused kernel.
#include "op_cuda.h"

#include <cuda_runtime_api.h>

#include <exception>
#include <string>

#include "op_common.h"
#include "turbofno/cuda.h"

namespace turbofno {
namespace ort {
namespace {

constexpr const char* kEpName = "CUDAExecutionProvider";

// Scratch from ORT's allocator for the run's device (the session's arena: no cudaMalloc per call
// once warm). Freed right after the launches are enqueued: ORT's CUDA allocator hands memory out in
// stream order, as its own kernels' scratch buffers do.
struct Scratch {
    OrtAllocator* alloc = nullptr;
    void* ptr = nullptr;
    ~Scratch() {
        if (alloc && ptr) alloc->Free(alloc, ptr);
        if (alloc) api()->ReleaseAllocator(alloc);
    }
};

// Makes `device` current for the scope (ORT may call from a thread whose current device differs).
struct DeviceGuard {
    int previous = -1;
    cudaError_t error = cudaSuccess;
    explicit DeviceGuard(int device) {
        if ((error = cudaGetDevice(&previous)) != cudaSuccess) return;
        if (previous != device) error = cudaSetDevice(device);
        else previous = -1;
    }
    ~DeviceGuard() {
        if (previous >= 0) cudaSetDevice(previous);
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

std::string takeMessage(OrtStatus* st) {
    std::string msg = api()->GetErrorMessage(st);
    api()->ReleaseStatus(st);
    return msg;
}

OrtStatusPtr ORT_API_CALL compute(void* kernel, OrtKernelContext* ctx) {
    const NodeState& node = *static_cast<const NodeState*>(kernel);
    try {
        RunTensors run;
        if (OrtStatus* st = prepareRun(ctx, node, kSupportFloat | kSupportFloat16 | kSupportBFloat16, kEpName, &run)) {
            return st;
        }
        const OrtApi* a = api();
        // The run's device is the one x lives on (the session's device_id under the CUDA EP).
        const OrtValue* x = nullptr;
        const OrtMemoryInfo* mem = nullptr;
        int device = 0;
        if (OrtStatus* st = a->KernelContext_GetInput(ctx, 0, &x)) return nodeError(node.name, takeMessage(st), ORT_FAIL);
        if (OrtStatus* st = a->GetTensorMemoryInfo(x, &mem)) return nodeError(node.name, takeMessage(st), ORT_FAIL);
        if (OrtStatus* st = a->MemoryInfoGetId(mem, &device)) return nodeError(node.name, takeMessage(st), ORT_FAIL);
        void* stream = nullptr;
        if (OrtStatus* st = a->KernelContext_GetGPUComputeStream(ctx, &stream)) {
            return nodeError(node.name, "no CUDA compute stream: " + takeMessage(st), ORT_FAIL);
        }
        DeviceGuard guard(device);
        if (guard.error != cudaSuccess) {
            return nodeError(node.name, std::string("cannot select CUDA device ") + std::to_string(device) + ": " +
                                            cudaGetErrorString(guard.error), ORT_FAIL);
        }
        const core::Status supported = core::cudaCheckSupported(run.params.shape, run.params.dtype, &run.params.attrs);
        if (!supported.ok) return nodeError(node.name, "not supported by the CUDA kernel: " + supported.message);
        Scratch scratch;
        const size_t bytes = core::cudaWorkspaceBytes(run.params.shape, run.params.dtype);
        if (bytes) {
            if (OrtStatus* st = a->KernelContext_GetAllocator(ctx, mem, &scratch.alloc)) {
                return nodeError(node.name, "no CUDA allocator: " + takeMessage(st), ORT_FAIL);
            }
            scratch.ptr = scratch.alloc->Alloc(scratch.alloc, bytes);
            if (!scratch.ptr) {
                return nodeError(node.name, "cannot allocate " + std::to_string(bytes) + " bytes of CUDA workspace", ORT_FAIL);
            }
        }
        const cudaError_t err = core::launchCuda(run.params, scratch.ptr, bytes, static_cast<cudaStream_t>(stream));
        if (err == cudaErrorNotSupported) {
            const core::Status why = core::cudaCheckSupported(run.params.shape, run.params.dtype);
            return nodeError(node.name, "shape not supported by the CUDA kernel: " +
                                            (why.ok ? std::string("unknown reason") : why.message));
        }
        if (err != cudaSuccess) {
            return nodeError(node.name, std::string("CUDA kernel launch failed: ") + cudaGetErrorName(err) + ": " +
                                            cudaGetErrorString(err), ORT_FAIL);
        }
        return nullptr;
    } catch (const std::exception& e) {
        return nodeError(node.name, std::string("CUDA kernel failed: ") + e.what(), ORT_FAIL);
    }
}

void ORT_API_CALL destroyKernel(void* kernel) { delete static_cast<NodeState*>(kernel); }

struct CudaOp : OrtCustomOp {
    CudaOp() {
        fillCommonOp(this);
        GetExecutionProviderType = epType;
        CreateKernelV2 = createKernel;
        KernelComputeV2 = compute;
        KernelDestroy = destroyKernel;
    }
};

}  // namespace

std::vector<const OrtCustomOp*> cudaCustomOps() {
    static const CudaOp op;
    return {&op};
}

}  // namespace ort
}  // namespace turbofno
