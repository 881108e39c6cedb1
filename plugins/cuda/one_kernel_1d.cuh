// The whole 1D layer in one kernel (Algorithm::kOneKernel1D, plan.h): a block owns one batch item n and
// a group of og output channels, and computes the truncated real DFT of all of x[n] (every input
// channel), the mixing of its output channels, the inverse DFT, the fused layer's 1x1 skip, the bias and
// the activation, writing y once. Nothing goes through global memory in between.
//
// Why: a small 1D layer (Burgers: 32 x 64 x 256, 17 modes) is a few megaflops; the separable algorithm
// runs it as three latency-bound kernels (R2C + skip, mixing, C2R: 7-9 us each under ncu) whose
// intermediates are a few kilobytes. Here each block redoes the forward DFT of its batch item (cheap at
// these sizes: the planner's rule bounds Cin * kd * S) instead of waiting for another kernel.
//
// Shared memory (floats; sizes from planOneKernel1d, plan.cpp):
//   xs [S][cp]       x[n] transposed (channel fastest, zero-padded to a multiple of 4; cp = 4 mod 8 so
//                    that 8 consecutive t of one float4 column fall in different banks)
//   ws [og][cp]      the skip weights of this block's output channels (fused layer only)
//   F  [H][kp]       (cos, sin)(2 pi h k / S), h = 0..S/2, k < kd (kp odd: conflict-free columns)
//   X  [Cin][kp]     the kept spectrum of x[n]
//   Y  [og][kp]      the mixed spectrum, pre-multiplied by the C2R weight and the scale
//   red[256]         the mixing's partial sums when its input-channel sum is split across threads
// Forward: X[i, k] = x[0] + sum_{h=1}^{(S-1)/2} (e_h cos - i o_h sin)(2 pi h k / S) + [x[S/2] cos(pi k)],
// e_h = x[h] + x[S-h], o_h = x[h] - x[S-h]. Inverse: y[t] = sum_k Re(Y[k] e^{+2 pi i k t / S}), with
// h = min(t, S - t) and the sine's sign flipped for t > S/2 (C2R: imaginary parts of the DC and Nyquist
// bins drop out because their sine is 0). Fixed summation orders: bitwise-repeatable.
#pragma once

#include <atomic>

#include "common.cuh"
#include "pdl.cuh"
#include "plan.h"
#include "smem_limit.h"

namespace turbofno {
namespace cuda {

constexpr int kOneKernelThreads = 256;

// Shared-memory offsets in floats (float4 / float2 alignment: every size below is a multiple of 4 floats
// except the float2 arrays, which follow the float4 ones).
struct OneKernel1dSmem {
    int xs, ws, F, X, Y, red;
    __host__ __device__ static OneKernel1dSmem of(const OneKernel1dPlan& q, const Geometry& g) {
        OneKernel1dSmem s;
        s.xs = 0;
        s.ws = s.xs + g.Sd * q.cp;
        s.F = s.ws + (g.addY ? q.og * q.cp : 0);
        s.X = s.F + 2 * (g.Sd / 2 + 1) * q.kp;
        s.Y = s.X + 2 * g.Cin * q.kp;
        s.red = s.Y + 2 * q.og * q.kp;
        return s;
    }
    __host__ __device__ int totalFloats() const { return red + 2 * kOneKernelThreads; }
};

template <typename T, int OG>
__global__ void __launch_bounds__(kOneKernelThreads, 2) oneKernel1dLayer(Geometry g, OneKernel1dPlan q, const T* __restrict__ x,
                                                                       const T* __restrict__ w, const T* __restrict__ bias,
                                                                       const T* __restrict__ skipW, T* __restrict__ y) {
    extern __shared__ float4 oneKernelSmem4[];
    float* sm = reinterpret_cast<float*>(oneKernelSmem4);
    const OneKernel1dSmem lay = OneKernel1dSmem::of(q, g);
    float* xs = sm + lay.xs;
    float* ws = sm + lay.ws;
    float2* F = reinterpret_cast<float2*>(sm + lay.F);
    float2* X = reinterpret_cast<float2*>(sm + lay.X);
    float2* Y = reinterpret_cast<float2*>(sm + lay.Y);
    float2* red = reinterpret_cast<float2*>(sm + lay.red);
    const int S = g.Sd, kd = g.kd, Cin = g.Cin, H = S / 2 + 1, cp = q.cp, kp = q.kp;
    const int cin4 = (Cin + 3) / 4;
    const int n = blockIdx.x / q.groups;
    const int o0 = (blockIdx.x % q.groups) * OG;
    const int tid = threadIdx.x;

    // Twiddles first (no global memory: overlaps the previous kernel's tail under PDL). Unused columns
    // k >= kd are zero (the forward's two-mode tiles read one past kd).
    for (int e = tid; e < H * kp; e += kOneKernelThreads) {
        const int h = e / kp, k = e % kp;
        float2 v = make_float2(0.f, 0.f);
        if (k < kd) {
            const int j = mulMod(h, k, S);
            const int jj = j > S / 2 ? j - S : j;  // the argument in [-1, 1] turns
            float s, c;
            sincospif(static_cast<float>(jj) * (2.0f / static_cast<float>(S)), &s, &c);
            v = make_float2(c, s);
        }
        F[e] = v;
    }
    gridDependencyWait();  // x (and any input) may come from the previous kernel (pdl.cuh)

    // x[n] -> xs transposed; lanes over t read each channel's row coalesced
    const T* xn = x + static_cast<size_t>(n) * Cin * S;
#pragma unroll 2
    for (int e = tid; e < S * cin4; e += kOneKernelThreads) {
        const int t = e % S, i = (e / S) * 4;
        float4 v;
        v.x = toFloat<T>(xn[static_cast<size_t>(i) * S + t]);
        v.y = i + 1 < Cin ? toFloat<T>(xn[static_cast<size_t>(i + 1) * S + t]) : 0.f;
        v.z = i + 2 < Cin ? toFloat<T>(xn[static_cast<size_t>(i + 2) * S + t]) : 0.f;
        v.w = i + 3 < Cin ? toFloat<T>(xn[static_cast<size_t>(i + 3) * S + t]) : 0.f;
        *reinterpret_cast<float4*>(xs + t * cp + i) = v;
    }
    if (g.addY) {
        for (int e = tid; e < OG * cin4 * 4; e += kOneKernelThreads) {
            const int o = e / (cin4 * 4), i = e % (cin4 * 4);
            ws[o * cp + i] = (o0 + o < g.Cout && i < Cin) ? toFloat<T>(skipW[static_cast<size_t>(o0 + o) * Cin + i]) : 0.f;
        }
    }
    __syncthreads();

    // Forward: tiles of 4 input channels x 2 modes per thread, lanes over the channel tiles (one float4
    // of xs per t and tile; the two twiddles are shared by the warp's tiles).
    const int tilesK = (kd + 1) / 2;
    for (int tile = tid; tile < cin4 * tilesK; tile += kOneKernelThreads) {
        const int i = (tile % cin4) * 4, k = (tile / cin4) * 2;
        float re[4][2] = {}, im[4][2] = {};
        for (int h = 0; h < H; ++h) {
            const float4 a = *reinterpret_cast<const float4*>(xs + h * cp + i);
            float ev[4] = {a.x, a.y, a.z, a.w}, ov[4] = {0.f, 0.f, 0.f, 0.f};
            if (h != 0 && 2 * h != S) {  // warp-uniform
                const float4 b = *reinterpret_cast<const float4*>(xs + (S - h) * cp + i);
                const float bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    ov[c] = ev[c] - bv[c];
                    ev[c] += bv[c];
                }
            }
            const float2 f0 = F[h * kp + k], f1 = F[h * kp + k + 1];
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                re[c][0] = fmaf(ev[c], f0.x, re[c][0]);
                im[c][0] = fmaf(-ov[c], f0.y, im[c][0]);
                re[c][1] = fmaf(ev[c], f1.x, re[c][1]);
                im[c][1] = fmaf(-ov[c], f1.y, im[c][1]);
            }
        }
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            if (i + c >= Cin) break;
            X[(i + c) * kp + k] = make_float2(re[c][0], im[c][0]);
            if (k + 1 < kd) X[(i + c) * kp + k + 1] = make_float2(re[c][1], im[c][1]);
        }
    }
    __syncthreads();

    // Mixing: items (o, k), the input-channel sum split into q.mixParts parts (lanes over items, so
    // weight loads are coalesced: W[i, o0 + o, k] is contiguous in (o, k)); partial sums added in a
    // fixed order. Y holds c_k * scale * sum (c_k: 1 for the DC and Nyquist bins, else 2).
    const int items = OG * kd, parts = q.mixParts;
    for (int e = tid; e < items * parts; e += kOneKernelThreads) {
        const int item = e % items, part = e / items;
        const int o = item / kd, k = item % kd, oc = o0 + o;
        float2 acc = make_float2(0.f, 0.f);
        if (oc < g.Cout) {
            if (g.separable) {
                if (part == 0) acc = cmul(X[oc * kp + k], loadComplex<T>(w + (static_cast<size_t>(oc) * kd + k) * 2));
            } else {
                const T* wp = w + (static_cast<size_t>(oc) * kd + k) * 2;
                const size_t wStride = static_cast<size_t>(g.Cout) * kd * 2;
                int i = part;
                for (; i + 7 * parts < Cin; i += 8 * parts) {  // 8 weight loads in flight
                    float2 wv[8];
#pragma unroll
                    for (int u = 0; u < 8; ++u) wv[u] = loadComplex<T>(wp + static_cast<size_t>(i + u * parts) * wStride);
#pragma unroll
                    for (int u = 0; u < 8; ++u) cmac(acc, X[(i + u * parts) * kp + k], wv[u]);
                }
                for (; i < Cin; i += parts) cmac(acc, X[i * kp + k], loadComplex<T>(wp + static_cast<size_t>(i) * wStride));
            }
        }
        if (parts == 1) {
            const float c = (k == 0 || 2 * k == S) ? g.scale : 2.f * g.scale;
            Y[o * kp + k] = make_float2(acc.x * c, acc.y * c);
        } else {
            red[e] = acc;
        }
    }
    if (parts > 1) {
        __syncthreads();
        for (int item = tid; item < items; item += kOneKernelThreads) {
            float2 acc = red[item];
            for (int p = 1; p < parts; ++p) {
                const float2 v = red[p * items + item];
                acc.x += v.x;
                acc.y += v.y;
            }
            const int o = item / kd, k = item % kd;
            const float c = (k == 0 || 2 * k == S) ? g.scale : 2.f * g.scale;
            Y[o * kp + k] = make_float2(acc.x * c, acc.y * c);
        }
    }
    allowDependentLaunch();
    __syncthreads();

    // Output: a thread per point t with all og output channels in registers: skip (x[n, :, t] . ws[o, :]),
    // inverse DFT, bias, activation; lanes over t store each channel's row coalesced.
    const int oCount = min(OG, g.Cout - o0);
    for (int t = tid; t < S; t += kOneKernelThreads) {
        float acc[OG];
#pragma unroll
        for (int o = 0; o < OG; ++o) acc[o] = 0.f;
        if (g.addY) {
            for (int i = 0; i < cin4 * 4; i += 4) {
                const float4 a = *reinterpret_cast<const float4*>(xs + t * cp + i);
#pragma unroll
                for (int o = 0; o < OG; ++o) {
                    const float4 b = *reinterpret_cast<const float4*>(ws + o * cp + i);
                    acc[o] = fmaf(a.x, b.x, acc[o]);
                    acc[o] = fmaf(a.y, b.y, acc[o]);
                    acc[o] = fmaf(a.z, b.z, acc[o]);
                    acc[o] = fmaf(a.w, b.w, acc[o]);
                }
            }
        }
        const bool upper = 2 * t > S;
        const int h = upper ? S - t : t;
        for (int k = 0; k < kd; ++k) {
            const float2 f = F[h * kp + k];
            const float s = upper ? -f.y : f.y;
#pragma unroll
            for (int o = 0; o < OG; ++o) {
                const float2 v = Y[o * kp + k];
                acc[o] = fmaf(v.x, f.x, acc[o]);
                acc[o] = fmaf(-v.y, s, acc[o]);
            }
        }
#pragma unroll
        for (int o = 0; o < OG; ++o) {
            if (o >= oCount) break;
            float v = acc[o];
            if (g.hasBias) v += toFloat<T>(bias[o0 + o]);
            v = applyActivation(v, g.activation);
            y[(static_cast<size_t>(n) * g.Cout + o0 + o) * S + t] = fromFloat<T>(v);
        }
    }
}

template <typename T, int OG>
cudaError_t launchOneKernel1dFor(const Plan& plan, const T* x, const T* w, const T* bias, const T* skipW, T* y,
                                 cudaStream_t stream) {
    static std::atomic<unsigned long long> done{0};
    cudaError_t err = allowSmem(oneKernel1dLayer<T, OG>, plan.ok1.smem, done, kOneKernelSmemMax);
    if (err != cudaSuccess) return err;
    const int64_t blocks = static_cast<int64_t>(plan.g.N) * plan.ok1.groups;
    if (blocks > 2147483647LL) return cudaErrorInvalidConfiguration;
    return launchKernel(oneKernel1dLayer<T, OG>, dim3(static_cast<unsigned>(blocks)), dim3(kOneKernelThreads), plan.ok1.smem,
                        stream, plan.g, plan.ok1, x, w, bias, skipW, y);
}

// Whether the current device can give a block `bytes` of dynamic shared memory (plans go up to
// kOneKernelSmemMax; sm_86 / sm_89 stop at 99 KB, and layer.cuh then runs the layer separable).
inline cudaError_t oneKernel1dFitsDevice(size_t bytes, bool* fits) {
    *fits = true;
    if (bytes <= 48 * 1024) return cudaSuccess;
    int device = 0, optIn = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err == cudaSuccess) *fits = bytes <= static_cast<size_t>(optIn);
    return err;
}

template <typename T>
cudaError_t launchOneKernel1d(const Plan& plan, const void* x, const void* w, const void* bias, const void* skipW, void* y,
                              cudaStream_t stream) {
    const T* xt = static_cast<const T*>(x);
    const T* wt = static_cast<const T*>(w);
    const T* bt = static_cast<const T*>(bias);
    const T* st = static_cast<const T*>(skipW);
    T* yt = static_cast<T*>(y);
    switch (plan.ok1.og) {
        case 2: return launchOneKernel1dFor<T, 2>(plan, xt, wt, bt, st, yt, stream);
        case 4: return launchOneKernel1dFor<T, 4>(plan, xt, wt, bt, st, yt, stream);
        case 8: return launchOneKernel1dFor<T, 8>(plan, xt, wt, bt, st, yt, stream);
        case 16: return launchOneKernel1dFor<T, 16>(plan, xt, wt, bt, st, yt, stream);
        default: return cudaErrorInvalidConfiguration;
    }
}

}  // namespace cuda
}  // namespace turbofno
