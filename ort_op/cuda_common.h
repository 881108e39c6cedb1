// What every CUDAExecutionProvider op of this library shares (op_cuda.cc: SpectralConv, mlp_cuda.cc:
// PointwiseMLP): the run's device and compute stream, the device guard, and stream-ordered scratch
// memory from ORT's allocator. Errors are opError(opType, node, ...).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include <onnxruntime_c_api.h>

namespace turbofno {
namespace ort {

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
    ~Scratch();
};

// Makes `device` current for the scope (ORT may call from a thread whose current device differs).
struct DeviceGuard {
    int previous = -1;
    cudaError_t error = cudaSuccess;
    explicit DeviceGuard(int device);
    ~DeviceGuard();
};

// The run's device (the one input 0 lives on: the session's device_id under the CUDA EP), its memory
// info and ORT's compute stream.
struct CudaRun {
    const OrtMemoryInfo* mem = nullptr;
    int device = 0;
    void* stream = nullptr;
};
OrtStatus* resolveCudaRun(OrtKernelContext* ctx, const char* opType, const std::string& node, CudaRun* run);

// Fills `scratch` with `bytes` of device memory for a launch on `stream` (see Scratch).
OrtStatus* getScratch(OrtKernelContext* ctx, const char* opType, const std::string& node, const OrtMemoryInfo* mem,
                      size_t bytes, void* stream, Scratch* scratch);

}  // namespace ort
}  // namespace turbofno
