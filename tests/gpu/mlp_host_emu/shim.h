// Force-included (g++ -include) when plugins/cuda/pointwise_mlp.cu is compiled as host C++ by run.sh:
// the CUDA execution-space keywords become nothing, threadIdx / blockIdx are per-thread / per-block
// globals, and __syncthreads is a barrier over the block's CPU threads (one std::thread per
// CUDA thread). Only what pointwise_mlp.cu and common.cuh use is provided.
#pragma once
#define __device__
#define __global__
#define __host__
#define __shared__
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <condition_variable>
#include <mutex>

#undef __launch_bounds__
#define __launch_bounds__(...)

inline thread_local uint3 threadIdx;
inline uint3 blockIdx;
inline dim3 blockDim;  // set by launchKernel
inline dim3 gridDim;   // set by launchKernel
// A reusable barrier for the block's threads (C++17; std::barrier needs C++20).
class BlockBarrier {
public:
    explicit BlockBarrier(unsigned count) : count_(count) {}
    void arriveAndWait() {
        std::unique_lock<std::mutex> lock(m_);
        const unsigned long long gen = generation_;
        if (++arrived_ == count_) {
            arrived_ = 0;
            ++generation_;
            cv_.notify_all();
        } else {
            cv_.wait(lock, [&] { return generation_ != gen; });
        }
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    unsigned count_, arrived_ = 0;
    unsigned long long generation_ = 0;
};
inline BlockBarrier* gBlockBarrier = nullptr;
inline void __syncthreads() { gBlockBarrier->arriveAndWait(); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline float __uint_as_float(unsigned u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline unsigned __float_as_uint(float f) {
    unsigned u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline void sincospif(float x, float* s, float* c) {
    *s = static_cast<float>(std::sin(M_PI * x));
    *c = static_cast<float>(std::cos(M_PI * x));
}
