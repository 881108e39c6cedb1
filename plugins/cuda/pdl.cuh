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
// A grid of at most one block per SM then lets the next kernel launch at once (the trigger that
// allowDependentLaunch gives later otherwise): its blocks run their set-up on the idle SMs and wait in
// their own gridDependencyWait, which still waits for this grid's completion and writes, so
// correctness does not depend on where the trigger is, only which resources the waiting blocks hold.
// Measured at 31e0fb2 (tests/gpu/logs/s14_31e0fb2, every kernel triggering here): batch-1 models 7-9 %
// faster (burgers 0.107 -> 0.097 ms, darcy 0.133 -> 0.124), but burgers at batch 32 (grids of ~2 blocks
// per SM) 4 % and FNO 3D at batch 32 3 % slower; hence only small grids. TURBOFNO_PDL_TRIGGER_AT_START
// (CMake option, for experiments) makes every grid trigger here.
__device__ __forceinline__ void gridDependencyWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#if defined(TURBOFNO_PDL_TRIGGER_AT_START)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#else
    unsigned sms;
    asm("mov.u32 %0, %%nsmid;" : "=r"(sms));  // SM identifiers (>= the SM count): a small-grid test
    if (gridDim.x * gridDim.y * gridDim.z <= sms) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
#endif
}

// Lets the next kernel be scheduled once every block of this one has called it (or exited). Called
// after a kernel's main loop: the dependent's blocks then start while this grid's last wave stores.
// (Small grids, and every grid with TURBOFNO_PDL_TRIGGER_AT_START, already triggered in
// gridDependencyWait; a second trigger changes nothing.)
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
