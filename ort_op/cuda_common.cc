// See cuda_common.h.
#include "cuda_common.h"

#include "op_common.h"

namespace turbofno {
namespace ort {

Scratch::~Scratch() {
    if (ptr && mustSync) cudaStreamSynchronize(syncBeforeFree);
    if (alloc && ptr) alloc->Free(alloc, ptr);
    if (alloc) api()->ReleaseAllocator(alloc);
}

DeviceGuard::DeviceGuard(int device) {
    if ((error = cudaGetDevice(&previous)) != cudaSuccess) return;
    if (previous != device)
        error = cudaSetDevice(device);
    else
        previous = -1;
}

DeviceGuard::~DeviceGuard() {
    if (previous >= 0) cudaSetDevice(previous);
}

OrtStatus* resolveCudaRun(OrtKernelContext* ctx, const char* opType, const std::string& node, CudaRun* run) {
    const OrtApi* a = api();
    const OrtValue* x = nullptr;
    if (OrtStatus* st = a->KernelContext_GetInput(ctx, 0, &x)) return opError(opType, node, takeMessage(st), ORT_FAIL);
    if (OrtStatus* st = a->GetTensorMemoryInfo(x, &run->mem)) return opError(opType, node, takeMessage(st), ORT_FAIL);
    if (OrtStatus* st = a->MemoryInfoGetId(run->mem, &run->device)) {
        return opError(opType, node, takeMessage(st), ORT_FAIL);
    }
    if (OrtStatus* st = a->KernelContext_GetGPUComputeStream(ctx, &run->stream)) {
        return opError(opType, node, "no CUDA compute stream: " + takeMessage(st), ORT_FAIL);
    }
    return nullptr;
}

OrtStatus* getScratch(OrtKernelContext* ctx, const char* opType, const std::string& node, const OrtMemoryInfo* mem,
                      size_t bytes, void* stream, Scratch* scratch) {
    const OrtApi* a = api();
    if (OrtStatus* st = a->KernelContext_GetAllocator(ctx, mem, &scratch->alloc)) {
        return opError(opType, node, "no CUDA allocator: " + takeMessage(st), ORT_FAIL);
    }
    if (apiVersion() >= kOrtApiVersionScratch && stream) {
        if (OrtStatus* st = a->KernelContext_GetScratchBuffer(ctx, mem, bytes, &scratch->ptr)) {
            return opError(opType, node,
                           "cannot allocate " + std::to_string(bytes) + " bytes of CUDA workspace: " + takeMessage(st),
                           ORT_FAIL);
        }
    } else {
        scratch->ptr = scratch->alloc->Alloc(scratch->alloc, bytes);
        scratch->mustSync = true;
        scratch->syncBeforeFree = static_cast<cudaStream_t>(stream);
    }
    if (!scratch->ptr) {
        return opError(opType, node, "cannot allocate " + std::to_string(bytes) + " bytes of CUDA workspace", ORT_FAIL);
    }
    return nullptr;
}

}  // namespace ort
}  // namespace turbofno
