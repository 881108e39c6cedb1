// Programmatic dependent launch (Hopper and newer): each of our kernels is launched so that the GPU
// may schedule it while the kernel before it in the stream is still finishing, and waits
// (gridDependencyWait, before its first global-memory access) until that kernel has completed and
// its writes are visible. This hides the launch gap between the 3-7 kernels of one layer, which
// dominates small layers. The wait makes it safe after any kernel, ours or not; on GPUs before
// sm_90 the launch attribute is not set and the device calls compile to nothing.
#pragma once

#include <cuda_runtime.h>

namespace turbofno {
namespace cuda {

// Blocks until the preceding kernel in the stream has completed (no-op without the launch attribute).
// With TURBOFNO_PDL_TRIGGER_AT_START (CMake option, an experiment not yet measured) it then lets the
// next kernel launch at once: its blocks wait in their own gridDependencyWait, which still waits for
// this grid's completion and writes, so correctness does not depend on where the trigger is; only
// which resources the waiting blocks hold does.
__device__ __forceinline__ void gridDependencyWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#if defined(TURBOFNO_PDL_TRIGGER_AT_START)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
#endif
}

// Lets the next kernel be scheduled once every block of this one has called it (or exited). Called
// after a kernel's main loop: the dependent's blocks then start while this grid's last wave stores.
// (With TURBOFNO_PDL_TRIGGER_AT_START the trigger already came in gridDependencyWait.)
__device__ __forceinline__ void allowDependentLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(TURBOFNO_PDL_TRIGGER_AT_START)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Whether launches on the current device carry the attribute (compute capability >= 9, cached per
// device; tests can force it: setPdlOverride).
bool pdlEnabled();

// For tests and benchmarks (tests/gpu/tfno_capi.cpp): -1 automatic, 0 off, 1 on (where supported).
void setPdlOverride(int mode);

// kernel<<<grid, block, smem, stream>>>(args...) with the programmatic-serialization attribute
// when pdlEnabled(); returns the launch error.
template <typename... Params, typename... Args>
cudaError_t launchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                         Args... args) {
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = pdlEnabled() ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, kernel, static_cast<Params>(args)...);
}

}  // namespace cuda
}  // namespace turbofno
