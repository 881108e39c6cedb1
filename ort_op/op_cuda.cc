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

// Scratch memory of one launch, freed on scope exit (after the launches are enqueued).
// - ORT >= 1.18 with a compute stream: KernelContext_GetScratchBuffer allocates on the run's stream.
//   ORT's stream-aware arena records that stream with the chunk, so after the free the chunk is
//   handed to another stream only once that stream has synchronised with ours (or the run ended):
//   the scheme ORT's own CUDA kernels use for their scratch buffers.
// - ORT 1.17 (no stream-aware call) or no compute stream: plain allocator memory; the stream is
//   synchronised before the free, so no other stream can receive the memory while our kernel still
//   reads it (safe, at the cost of one host wait per call).
struct Scratch {
    OrtAllocator* alloc = nullptr;
    void* ptr = nullptr;
    cudaStream_t syncBeforeFree = nullptr;
    bool mustSync = false;
    ~Scratch() {
        if (ptr && mustSync) cudaStreamSynchronize(syncBeforeFree);
        if (alloc && ptr) alloc->Free(alloc, ptr);
        if (alloc) api()->ReleaseAllocator(alloc);
    }
};

// Fills `scratch` with `bytes` of device memory for a launch on `stream` (see Scratch).
OrtStatus* getScratch(OrtKernelContext* ctx, const NodeState& node, const OrtMemoryInfo* mem, size_t bytes,
                      void* stream, Scratch* scratch) {
    const OrtApi* a = api();
    if (OrtStatus* st = a->KernelContext_GetAllocator(ctx, mem, &scratch->alloc)) {
        return nodeError(node.name, "no CUDA allocator: " + takeMessage(st), ORT_FAIL);
    }
    if (apiVersion() >= kOrtApiVersionScratch && stream) {
        if (OrtStatus* st = a->KernelContext_GetScratchBuffer(ctx, mem, bytes, &scratch->ptr)) {
            return nodeError(node.name, "cannot allocate " + std::to_string(bytes) + " bytes of CUDA workspace: " +
                                            takeMessage(st), ORT_FAIL);
        }
    } else {
        scratch->ptr = scratch->alloc->Alloc(scratch->alloc, bytes);
        scratch->mustSync = true;
        scratch->syncBeforeFree = static_cast<cudaStream_t>(stream);
    }
    if (!scratch->ptr) {
        return nodeError(node.name, "cannot allocate " + std::to_string(bytes) + " bytes of CUDA workspace", ORT_FAIL);
    }
    return nullptr;
}

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
        if (!supported.ok) return nodeError(node.name, "shape not supported by the CUDA kernel: " + supported.message);
        Scratch scratch;
        const size_t bytes = core::cudaWorkspaceBytes(run.params.shape, run.params.dtype);
        if (bytes) {
            if (OrtStatus* st = getScratch(ctx, node, mem, bytes, stream, &scratch)) return st;
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
