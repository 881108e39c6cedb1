// Force-included (g++ -include) when plugins/cuda/pointwise_mlp.cu is compiled as host C++ by run.sh:
// the CUDA execution-space keywords become nothing, threadIdx / blockIdx are per-thread / per-block
// globals, and __syncthreads is a std::barrier over the block's CPU threads (one std::thread per
// CUDA thread). Only what pointwise_mlp.cu and common.cuh use is provided.
#pragma once
#define __device__
#define __global__
#define __host__
#define __shared__
#include <cuda_runtime.h>

#include <algorithm>
#include <barrier>
#include <cmath>

#undef __launch_bounds__
#define __launch_bounds__(...)

inline thread_local uint3 threadIdx;
inline uint3 blockIdx;
inline dim3 blockDim;  // set by launchKernel
inline std::barrier<>* gBlockBarrier = nullptr;
inline void __syncthreads() { gBlockBarrier->arrive_and_wait(); }
inline int min(int a, int b) { return a < b ? a : b; }
inline void sincospif(float x, float* s, float* c) {
    *s = static_cast<float>(std::sin(M_PI * x));
    *c = static_cast<float>(std::cos(M_PI * x));
}
