// Force-included (g++ -include) when plugins/cuda/fft_pass.cuh is compiled as host C++ by run.sh:
// the CUDA execution-space keywords become nothing, threadIdx / blockIdx are per-thread / per-block
// globals, __syncthreads is a std::barrier over the block's CPU threads (one std::thread per CUDA
// thread), and the few device intrinsics fft_pass.cuh / common.cuh use get host definitions.
#pragma once
#define __device__
#define __global__
#define __host__
#define __shared__
#include <cuda_runtime.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>

#undef __launch_bounds__
#define __launch_bounds__(...)
#undef __forceinline__
#define __forceinline__ inline
#undef __noinline__
#define __noinline__

inline thread_local uint3 threadIdx;
inline uint3 blockIdx;
inline dim3 blockDim;  // set by launchKernel
inline std::barrier<>* gBlockBarrier = nullptr;
inline void __syncthreads() { gBlockBarrier->arrive_and_wait(); }
inline int min(int a, int b) { return a < b ? a : b; }
template <typename T> inline T __ldg(const T* p) { return *p; }
// sincospif: correctly rounded float of the double result (the device function is within 1 ulp)
inline void sincospif(float x, float* s, float* c) {
    *s = static_cast<float>(std::sin(M_PI * static_cast<double>(x)));
    *c = static_cast<float>(std::cos(M_PI * static_cast<double>(x)));
}
inline unsigned __brev(unsigned v) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
    return r;
}
inline int __clz(int v) {
    int n = 0;
    for (unsigned u = static_cast<unsigned>(v); n < 32 && !(u & 0x80000000u); u <<= 1) ++n;
    return n;
}
