// GPU check and timing of the FFT passes (fft_pass.cuh) against the DFT-as-GEMM passes (dft_pass.cuh)
// on the same planner-made DftPass (plan_separable.cpp; fft forced on / off): for each shape the R2C
// and C2R last-axis passes alone, rel-L2 FFT vs DFT output (fp32, random data, C2R with bias), and us
// per pass (CUDA events, 200 launches after warm-up), with the memory floor (bytes / 4.8 TB/s).
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iplugins/cuda -Iplugins/include tests/gpu/fft_pass_bench.cu \
//        plugins/cuda/pdl.cpp plugins/cuda/plan_separable.cpp -o /tmp/fft_pass_bench && /tmp/fft_pass_bench
#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <random>
#include <vector>

#include "plan_separable.h"
#include "separable_layer.cuh"

using namespace turbofno;
using cuda::DftPass;
using cuda::PassKind;

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(2);                                                                      \
        }                                                                                      \
    } while (0)

namespace {
struct Case {
    const char* name;
    int rank;
    int64_t S[2], K[2], n, c;
};

template <typename F>
float timeIt(F f) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 20; ++i) CK(f());
    CK(cudaEventRecord(a));
    const int reps = 200;
    for (int i = 0; i < reps; ++i) CK(f());
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1000.f / reps;
}

double relL2(const std::vector<float>& a, const std::vector<float>& ref) {
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        num += (double(a[i]) - ref[i]) * (double(a[i]) - ref[i]);
        den += double(ref[i]) * ref[i];
    }
    return std::sqrt(num / den);
}
}  // namespace

int main() {
    const Case cases[] = {
        {"8x64x128x128 m32", 2, {128, 128}, {64, 32}, 8, 64},   {"4x64x256x256 m32", 2, {256, 256}, {64, 32}, 4, 64},
        {"32x64x8192 m32", 1, {8192, 1}, {32, 1}, 32, 64},      {"32x64x256 m17", 1, {256, 1}, {17, 1}, 32, 64},
        {"1x64x256 m17", 1, {256, 1}, {17, 1}, 1, 64},          {"8x64x64x64 m16", 2, {64, 64}, {24, 16}, 8, 64},
        {"16x32x1024 m129", 1, {1024, 1}, {129, 1}, 16, 32},    {"8x32x1024x32 m8", 2, {1024, 32}, {16, 8}, 8, 32},
        {"64x16x16 m9 (S=16)", 1, {16, 1}, {9, 1}, 64, 16},
    };
    int fails = 0;
    std::mt19937 rng(7);
    std::normal_distribution<float> nd;
    std::printf("%-22s %-4s %6s %6s %5s %10s %10s %10s %11s\n", "shape", "pass", "S", "kd", "L", "dft_us", "fft_us", "floor_us", "rel_l2");
    for (const Case& c : cases) {
        core::SpectralConvShape sh;
        sh.rank = c.rank;
        for (int j = 0; j < c.rank; ++j) {
            sh.spatial[j] = c.S[j];
            sh.kept[j] = c.K[j];
        }
        sh.batch = c.n;
        sh.inChannels = sh.outChannels = c.c;
        cuda::setFftPassOverride(1);
        const cuda::SeparablePlan on = cuda::planSeparable(sh, nullptr);
        cuda::setFftPassOverride(0);
        const cuda::SeparablePlan off = cuda::planSeparable(sh, nullptr);
        cuda::setFftPassOverride(-1);
        for (int kind = 0; kind < 2; ++kind) {
            const DftPass pf = kind == 0 ? on.fwd[0].pass : on.inv[on.nInv - 1].pass;
            DftPass pd = kind == 0 ? off.fwd[0].pass : off.inv[off.nInv - 1].pass;
            pd.kPerSplit = pd.K;  // one partial (the DFT pass alone, as the FFT pass writes it)
            if (!pf.fft) {
                std::printf("%-22s not an FFT pass\n", c.name);
                continue;
            }
            const int64_t S = pf.S, lines = pf.N, kd = kind == 0 ? pf.M : pf.b.innerStride;
            const size_t realN = size_t(lines) * S, specN = size_t(lines) * kd;
            std::vector<float> hin(kind == 0 ? realN : 2 * specN), bias(c.c);
            for (auto& v : hin) v = nd(rng);
            for (auto& v : bias) v = nd(rng);
            float *din, *dout, *dbias;
            const size_t outN = kind == 0 ? 2 * specN : realN;
            CK(cudaMalloc(&din, hin.size() * 4));
            CK(cudaMalloc(&dout, outN * 4));
            CK(cudaMalloc(&dbias, bias.size() * 4));
            CK(cudaMemcpy(din, hin.data(), hin.size() * 4, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(dbias, bias.data(), bias.size() * 4, cudaMemcpyHostToDevice));
            auto runF = [&]() -> cudaError_t {
                return kind == 0 ? cuda::launchFftPass<PassKind::kR2C, float>(pf, din, dout, nullptr, 0)
                                 : cuda::launchFftPass<PassKind::kC2R, float>(pf, din, dout, dbias, 0);
            };
            auto runD = [&]() -> cudaError_t {
                return kind == 0 ? cuda::launchPass<PassKind::kR2C, float>(pd, din, dout, nullptr, 0)
                                 : cuda::launchPass<PassKind::kC2R, float>(pd, din, dout, dbias, 0);
            };
            std::vector<float> outF(outN), outD(outN);
            CK(cudaMemset(dout, 0xff, outN * 4));
            CK(runD());
            CK(cudaMemcpy(outD.data(), dout, outN * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemset(dout, 0xff, outN * 4));  // NaN: every output must be written
            CK(runF());
            CK(cudaMemcpy(outF.data(), dout, outN * 4, cudaMemcpyDeviceToHost));
            // repeatability
            std::vector<float> outF2(outN);
            CK(runF());
            CK(cudaMemcpy(outF2.data(), dout, outN * 4, cudaMemcpyDeviceToHost));
            const bool same = std::memcmp(outF.data(), outF2.data(), outN * 4) == 0;
            const double err = relL2(outF, outD);
            const float tD = timeIt(runD), tF = timeIt(runF);
            const double floorUs = double(hin.size() * 4 + outN * 4) / 4.8e12 * 1e6;
            const bool ok = err < 2e-5 && std::isfinite(err) && same;  // both fp32; the DFT pass is itself ~1e-6 off
            fails += !ok;
            std::printf("%-22s %-4s %6lld %6lld %5d %10.2f %10.2f %10.2f %11.3e %s%s\n", c.name, kind == 0 ? "R2C" : "C2R", (long long)S,
                        (long long)kd, pf.fftLines, tD, tF, floorUs, err, ok ? "ok" : "FAIL", same ? "" : " (not repeatable)");
            CK(cudaFree(din));
            CK(cudaFree(dout));
            CK(cudaFree(dbias));
        }
    }
    std::printf("fft_pass_bench: %d failures\n", fails);
    return fails ? 1 : 0;
}
