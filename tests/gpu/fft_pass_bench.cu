// GPU check and timing of the FFT passes (fft_pass.cuh: Stockham stages of radix 16, 8, 4, 2 for
// power-of-two S, of radix 3, 5, 4, 2 for S = 2 * 2^a 3^b 5^c) against the DFT-as-GEMM passes
// (dft_pass.cuh) on the same planner-made DftPass (plan_separable.cpp; fft forced on / off): for each
// shape the R2C and C2R last-axis passes alone, rel-L2 FFT vs DFT output (fp32, random data, C2R with
// bias), repeatability (bitwise), and us per pass (CUDA events, 200 launches after warm-up), with the
// memory floor (bytes / 4.8 TB/s).
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iplugins/cuda -Iplugins/include tests/gpu/fft_pass_bench.cu \
//        plugins/cuda/pdl.cpp plugins/cuda/plan_separable.cpp -o /tmp/fft_pass_bench && /tmp/fft_pass_bench
//   --quick: only the small cases, no timing (for compute-sanitizer racecheck / synccheck / memcheck)
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
    bool quick;  // small: also in --quick runs (sanitizers)
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

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const Case cases[] = {
        // power of two (radices 16, 8, 4, 2)
        {"8x64x128x128 m32", 2, {128, 128}, {64, 32}, 8, 64, false},   {"4x64x256x256 m32", 2, {256, 256}, {64, 32}, 4, 64, false},
        {"32x64x4096 m32", 1, {4096, 1}, {32, 1}, 32, 64, false},      {"32x64x256 m17", 1, {256, 1}, {17, 1}, 32, 64, false},
        {"1x64x256 m17", 1, {256, 1}, {17, 1}, 1, 64, true},           {"8x64x64x64 m16", 2, {64, 64}, {24, 16}, 8, 64, false},
        {"16x32x1024 m129", 1, {1024, 1}, {129, 1}, 16, 32, false},    {"8x32x1024x32 m8", 2, {1024, 32}, {16, 8}, 8, 32, false},
        {"64x16x16 m9 (S=16)", 1, {16, 1}, {9, 1}, 64, 16, true},
        // S = 2 * 2^a 3^b 5^c (mixed radices): the benchmark shapes, then every radix and stage count
        {"4x64x250x180 m40", 2, {250, 180}, {80, 40}, 4, 64, false},   {"2x128x384x384 m48", 2, {384, 384}, {96, 48}, 2, 128, false},
        {"1x8x48x48 m12", 2, {48, 48}, {24, 12}, 1, 8, true},          {"2x32x48x48x48 m12 (48)", 2, {2304, 48}, {24, 12}, 2, 32, false},
        {"16x64x250 m126 (5 5 5)", 1, {250, 1}, {126, 1}, 16, 64, false}, {"32x64x720 m64", 1, {720, 1}, {64, 1}, 32, 64, false},
        {"8x64x1000 m100", 1, {1000, 1}, {100, 1}, 8, 64, false},      {"8x32x1536 m64", 1, {1536, 1}, {64, 1}, 8, 32, false},
        {"8x32x3840 m64", 1, {3840, 1}, {64, 1}, 8, 32, false},        {"4x16x4050 m2026", 1, {4050, 1}, {2026, 1}, 4, 16, false},
        {"3x7x180 m91 (small)", 1, {180, 1}, {91, 1}, 3, 7, true},     {"2x3x2916 m40 (7 stages)", 1, {2916, 1}, {40, 1}, 2, 3, true},
        {"3x5x10 m6 (S=10)", 1, {10, 1}, {6, 1}, 3, 5, true},          {"2x5x96x12 m7", 2, {96, 12}, {8, 7}, 2, 5, true},
    };
    int fails = 0;
    std::mt19937 rng(7);
    std::normal_distribution<float> nd;
    std::printf("%-26s %-4s %6s %6s %5s %8s %10s %10s %10s %11s\n", "shape", "pass", "S", "kd", "L", "radices", "dft_us", "fft_us",
                "floor_us", "rel_l2");
    for (const Case& c : cases) {
        if (quick && !c.quick) continue;
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
                std::printf("%-26s not an FFT pass\n", c.name);
                ++fails;
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
            const float tD = quick ? 0.f : timeIt(runD), tF = quick ? 0.f : timeIt(runF);
            const double floorUs = double(hin.size() * 4 + outN * 4) / 4.8e12 * 1e6;
            const bool ok = err < 2e-5 && std::isfinite(err) && same;  // both fp32; the DFT pass is itself ~1e-6 off
            fails += !ok;
            std::printf("%-26s %-4s %6lld %6lld %5d %8x %10.2f %10.2f %10.2f %11.3e %s%s\n", c.name, kind == 0 ? "R2C" : "C2R",
                        (long long)S, (long long)kd, pf.fftLines, pf.fftRadices, tD, tF, floorUs, err, ok ? "ok" : "FAIL",
                        same ? "" : " (not repeatable)");
            CK(cudaFree(din));
            CK(cudaFree(dout));
            CK(cudaFree(dbias));
        }
    }
    std::printf("fft_pass_bench: %d failures\n", fails);
    return fails ? 1 : 0;
}
