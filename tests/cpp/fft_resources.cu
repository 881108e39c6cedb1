// Compiled only by tests/cpp/check_fft_registers.sh (nvcc -Xptxas -v, sm_90): the row and column FFT
// kernels of plugins/cuda/fft_pass.cuh for every element type, so that their register use can be
// checked on a machine without a GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "fft_pass.cuh"
#include "fft_pass_long.cuh"
#include "fft_plane.cuh"

namespace turbofno {
namespace cuda {

template cudaError_t launchFftPass<PassKind::kR2C, float>(const DftPass&, const void*, void*, const float*, cudaStream_t);
template cudaError_t launchFftPass<PassKind::kC2R, float>(const DftPass&, const void*, void*, const float*, cudaStream_t);
template cudaError_t launchFftPass<PassKind::kR2C, __half>(const DftPass&, const void*, void*, const __half*, cudaStream_t);
template cudaError_t launchFftPass<PassKind::kC2R, __half>(const DftPass&, const void*, void*, const __half*, cudaStream_t);
template cudaError_t launchFftPass<PassKind::kR2C, __nv_bfloat16>(const DftPass&, const void*, void*, const __nv_bfloat16*,
                                                                  cudaStream_t);
template cudaError_t launchFftPass<PassKind::kC2R, __nv_bfloat16>(const DftPass&, const void*, void*, const __nv_bfloat16*,
                                                                  cudaStream_t);

// the radix-2 C2R with the mixing prologue (mixing_c2r.cuh)
template cudaError_t launchFftRadix2MixC2R<float>(const DftPass&, const float2*, const float*, float*, const float*, cudaStream_t);
template cudaError_t launchFftRadix2MixC2R<__half>(const DftPass&, const float2*, const __half*, __half*, const __half*, cudaStream_t);
template cudaError_t launchFftRadix2MixC2R<__nv_bfloat16>(const DftPass&, const float2*, const __nv_bfloat16*, __nv_bfloat16*,
                                                          const __nv_bfloat16*, cudaStream_t);

// the four-step long-axis kernels (fft_pass_long.cuh)
template cudaError_t launchFftLongPass<PassKind::kR2C, float>(const DftPass&, const void*, void*, const float*, cudaStream_t);
template cudaError_t launchFftLongPass<PassKind::kC2R, float>(const DftPass&, const void*, void*, const float*, cudaStream_t);
template cudaError_t launchFftLongPass<PassKind::kR2C, __half>(const DftPass&, const void*, void*, const __half*, cudaStream_t);
template cudaError_t launchFftLongPass<PassKind::kC2R, __half>(const DftPass&, const void*, void*, const __half*, cudaStream_t);
template cudaError_t launchFftLongPass<PassKind::kR2C, __nv_bfloat16>(const DftPass&, const void*, void*, const __nv_bfloat16*,
                                                                      cudaStream_t);
template cudaError_t launchFftLongPass<PassKind::kC2R, __nv_bfloat16>(const DftPass&, const void*, void*, const __nv_bfloat16*,
                                                                      cudaStream_t);

// the plane kernels (fft_plane.cuh): every plane of kFftPlaneShapes, both block sizes, the inverse with and without
// the mixing inside
template cudaError_t launchFftPlaneForward<float>(int, const DftPass&, const DftPass&, const float*, float2*, cudaStream_t);
template cudaError_t launchFftPlaneInverse<float>(int, const DftPass&, const DftPass&, const float2*, const float*, float*, const float*,
                                                  cudaStream_t);
template cudaError_t launchFftPlaneForward<__half>(int, const DftPass&, const DftPass&, const __half*, float2*, cudaStream_t);
template cudaError_t launchFftPlaneInverse<__half>(int, const DftPass&, const DftPass&, const float2*, const __half*, __half*,
                                                   const __half*, cudaStream_t);
template cudaError_t launchFftPlaneForward<__nv_bfloat16>(int, const DftPass&, const DftPass&, const __nv_bfloat16*, float2*,
                                                          cudaStream_t);
template cudaError_t launchFftPlaneInverse<__nv_bfloat16>(int, const DftPass&, const DftPass&, const float2*, const __nv_bfloat16*,
                                                          __nv_bfloat16*, const __nv_bfloat16*, cudaStream_t);

}  // namespace cuda
}  // namespace turbofno

// the column FFT kernels (not templated on the element type)
cudaError_t fftResourcesColumns(const turbofno::cuda::DftPass& p, const void* src, void* dst) {
    return turbofno::cuda::launchFftColumnPass(p, src, dst, nullptr);
}
