// Device helpers shared by the three kernels: element conversion, complex arithmetic, twiddles.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace turbofno {
namespace cuda {

template <typename T> __device__ __forceinline__ float toFloat(T v);
template <> __device__ __forceinline__ float toFloat<float>(float v) { return v; }
template <> __device__ __forceinline__ float toFloat<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float toFloat<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T fromFloat(float v);
template <> __device__ __forceinline__ float fromFloat<float>(float v) { return v; }
template <> __device__ __forceinline__ __half fromFloat<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// acc += a * b (complex)
__device__ __forceinline__ void cmac(float2& acc, float2 a, float2 b) {
    acc.x = fmaf(a.x, b.x, acc.x);
    acc.x = fmaf(-a.y, b.y, acc.x);
    acc.y = fmaf(a.x, b.y, acc.y);
    acc.y = fmaf(a.y, b.x, acc.y);
}
// acc += a * conj(b)
__device__ __forceinline__ void cmacConj(float2& acc, float2 a, float2 b) {
    acc.x = fmaf(a.x, b.x, acc.x);
    acc.x = fmaf(a.y, b.y, acc.x);
    acc.y = fmaf(a.y, b.x, acc.y);
    acc.y = fmaf(-a.x, b.y, acc.y);
}
__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Twiddles w(j) = (cos, sin)(2*pi*j/S) for 0 <= j < S. Two interchangeable sources: a table in shared
// memory (the normal case) or on-the-fly sincospi (axes too long for a table). Kernels are written
// once against this interface and instantiated for both inside the same __global__ function.
struct TableTwiddle {
    const float2* tab;  // shared-memory table for one axis
    __device__ __forceinline__ float2 operator()(int j, int /*S*/) const { return tab[j]; }
};
struct ComputedTwiddle {
    __device__ __forceinline__ float2 operator()(int j, int S) const {
        float s, c;
        sincospif(2.0f * (static_cast<float>(j) / static_cast<float>(S)), &s, &c);
        return make_float2(c, s);
    }
};

// Fills tab[0..S) with (cos, sin)(2*pi*j/S) (sincospif: within 1-2 ulp, far below the 1e-5 budget).
__device__ __forceinline__ void fillTwiddleTable(float2* tab, int S) {
    const float inv = 2.0f / static_cast<float>(S);
    for (int j = threadIdx.x; j < S; j += blockDim.x) {
        float s, c;
        // reduce j/S to [-1/2, 1/2] turns first so the argument stays exact-ish for large j
        const int jj = j > S / 2 ? j - S : j;
        sincospif(static_cast<float>(jj) * inv, &s, &c);
        tab[j] = make_float2(c, s);
    }
}

// Frequency of kept index m on a leading axis (low block first, then the high block ascending).
__device__ __forceinline__ int leadFreq(int m, int p, int K, int S) { return m < p ? m : S - K + m; }

// (a * b) mod S without overflow for 0 <= a, b < S < 2^31.
__device__ __forceinline__ int mulMod(int a, int b, int S) {
    return static_cast<int>((static_cast<int64_t>(a) * b) % S);
}
// (i + step) mod S for 0 <= i, step < S.
__device__ __forceinline__ int addMod(int i, int step, int S) {
    const unsigned r = static_cast<unsigned>(i) + static_cast<unsigned>(step);
    return static_cast<int>(r >= static_cast<unsigned>(S) ? r - static_cast<unsigned>(S) : r);
}

// The fused layer's activations (docs/op.md; values of core::Activation), torch's formulas.
__device__ __forceinline__ float applyActivation(float v, int act) {
    switch (act) {
        case 1: return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));                                // GELU (erf)
        case 2: return 0.5f * v * (1.f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));  // GELU (tanh)
        case 3: return fmaxf(v, 0.f);                                                                   // ReLU
        case 4: return v / (1.f + expf(-v));                                                            // SiLU
        case 5: return tanhf(v);                                                                        // tanh
        default: return v;                                                                              // identity
    }
}

// v[i] = applyActivation(v[i], act) with the switch outside the loop.
template <int N>
__device__ __forceinline__ void applyActivationAll(float (&v)[N], int act) {
    switch (act) {
#define TFNO_ACT_CASE(K) \
    case K:                  \
        _Pragma("unroll") for (int i = 0; i < N; ++i) v[i] = applyActivation(v[i], K); \
        break;
        TFNO_ACT_CASE(1)
        TFNO_ACT_CASE(2)
        TFNO_ACT_CASE(3)
        TFNO_ACT_CASE(4)
        TFNO_ACT_CASE(5)
#undef TFNO_ACT_CASE
        default: break;  // identity
    }
}

// Loads one complex weight (re, im adjacent) as float2.
template <typename T> __device__ __forceinline__ float2 loadComplex(const T* p);
template <> __device__ __forceinline__ float2 loadComplex<float>(const float* p) {
    return *reinterpret_cast<const float2*>(p);
}
template <> __device__ __forceinline__ float2 loadComplex<__half>(const __half* p) {
    return __half22float2(*reinterpret_cast<const __half2*>(p));
}
template <> __device__ __forceinline__ float2 loadComplex<__nv_bfloat16>(const __nv_bfloat16* p) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
}
// Stores v.x, v.y to the adjacent p[0], p[1] (aligned to 2 elements), rounded to nearest.
template <typename T> __device__ __forceinline__ void storeComplex(T* p, float2 v);
template <> __device__ __forceinline__ void storeComplex<float>(float* p, float2 v) { *reinterpret_cast<float2*>(p) = v; }
template <> __device__ __forceinline__ void storeComplex<__half>(__half* p, float2 v) {
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(v.x, v.y);
}
template <> __device__ __forceinline__ void storeComplex<__nv_bfloat16>(__nv_bfloat16* p, float2 v) {
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(v.x, v.y);
}

}  // namespace cuda
}  // namespace turbofno
