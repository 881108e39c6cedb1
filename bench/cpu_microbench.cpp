// C++ microbenchmark of core::runCpu (no ORT): median time per stage (and GFLOP/s for 2D) on the CPU
// bench shapes (p = q = k = m on every axis). Build from the repository root:
//   g++ -std=c++17 -O3 -Iplugins/include -Iplugins/src plugins/src/validate.cpp plugins/cpu/*.cpp
//       bench/cpu_microbench.cpp -o cpu_microbench -lpthread
// Run: cpu_microbench [threads=2] [reps=7] [NxCxS1[xS2[xS3]] m]   (TURBOFNO_BENCH_MIN=1: minimum instead of
// median, closer to the uncontended time on a shared machine; TURBOFNO_CPU_ISA caps the kernels).
#include <algorithm>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "../plugins/cpu/kernels.h"
#include "../plugins/cpu/stage_times.h"
#include "turbofno/cpu.h"

using namespace turbofno;

namespace {

struct Shape {
    int64_t n, c;
    std::vector<int64_t> S;  // 1..3 spatial sizes
    int64_t m;               // m modes per corner on the full axes, m on the last axis
};

struct Flops {
    double fwd = 0, mix = 0, inv = 0;
};

// Work of the GEMM formulation for 2D (see plugins/cpu/README.md): real multiply-add = 2 flops.
Flops countFlops(const Shape& s) {
    if (s.S.size() != 2) return {};
    const double N = s.n, C = s.c, H = s.S[0], W = s.S[1], k = s.m, K0 = 2.0 * s.m;
    Flops f;
    f.fwd = N * C * (2 * H * W * 2 * k + 2 * (2 * K0) * H * 2 * k);
    f.mix = 8 * N * C * C * K0 * k;
    f.inv = N * C * (2 * (2 * H) * K0 * 2 * k + 2 * H * 2 * k * W);
    return f;
}

double cpuMs() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// Median, or the minimum with TURBOFNO_BENCH_MIN=1 (closest to the uncontended time on a busy machine).
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    static const bool useMin = std::getenv("TURBOFNO_BENCH_MIN") != nullptr;
    return useMin ? v.front() : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 7;
    std::vector<Shape> shapes = {{1, 32, {64, 64}, 16}, {1, 64, {128, 128}, 32}, {8, 32, {128, 128}, 16}, {4, 32, {256, 256}, 32}};
    if (argc > 4) {  // "NxCxS1[xS2[xS3]]" and m
        std::vector<int64_t> v;
        for (char* p = argv[3]; *p;) {
            v.push_back(std::strtol(p, &p, 10));
            if (*p == 'x') ++p; else if (*p) return 2;
        }
        if (v.size() < 3 || v.size() > 5) return 2;
        shapes = {{v[0], v[1], std::vector<int64_t>(v.begin() + 2, v.end()), std::atol(argv[4])}};
    }
    std::printf("kernels %s, threads %d, median of %d\n", cpu::cpuKernels().name, threads, reps);
    std::printf("%-22s %9s %8s %8s %8s %8s %8s %9s\n", "shape", "total ms", "cpu ms", "tables", "fwd", "mix", "inv", "GFLOP/s");
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uni(-1, 1);
    for (const Shape& s : shapes) {
        const int d = static_cast<int>(s.S.size());
        core::SpectralConvAttrs attrs;
        // TURBOFNO_BENCH_K=k: k modes on the last axis (else m); TURBOFNO_BENCH_SKIP=1: fused layer
        // (skip weight [C, C], erf-GELU)
        const long lastK = std::getenv("TURBOFNO_BENCH_K") ? std::atol(std::getenv("TURBOFNO_BENCH_K")) : 0;
        const bool skip = std::getenv("TURBOFNO_BENCH_SKIP") != nullptr;
        if (skip) attrs.activation = core::Activation::kGeluErf;
        attrs.rank = d;
        std::vector<int64_t> xd = {s.n, s.c}, wd = {s.c, s.c};
        int64_t points = 1, kept = 1;
        for (int j = 0; j < d; ++j) {
            attrs.modesLow[j] = static_cast<int32_t>(j + 1 < d || !lastK ? s.m : lastK);
            attrs.modesHigh[j] = static_cast<int32_t>(j + 1 < d ? s.m : 0);
            xd.push_back(s.S[j]);
            wd.push_back(j + 1 < d ? 2 * s.m : attrs.modesLow[j]);
            points *= s.S[j];
            kept *= wd.back();
        }
        wd.push_back(2);
        const int64_t bd[] = {s.c};
        core::SpectralConvShape shape;
        const core::Status st = core::inferShape(attrs, xd.data(), d + 2, wd.data(), d + 3, bd, 1, &shape);
        if (!st.ok) {
            std::printf("inferShape: %s\n", st.message.c_str());
            return 1;
        }
        shape.hasSkip = skip;
        std::vector<float> x(s.n * s.c * points), w(s.c * s.c * kept * 2), b(s.c), sw(s.c * s.c);
        // Output 64-byte aligned like ORT's allocations (enables the kernel's streaming stores).
        std::vector<float> yStore(x.size() + 16);
        float* y = yStore.data() + (16 - (reinterpret_cast<uintptr_t>(yStore.data()) / 4) % 16) % 16;
        for (auto* v : {&x, &w, &b, &sw})
            for (auto& e : *v) e = uni(rng);
        // O(1) outputs (as a trained layer's): the activation's tail paths stay rare
        for (auto& e : w) e /= static_cast<float>(s.c);
        for (auto& e : sw) e /= static_cast<float>(s.c);
        core::SpectralConvParams p;
        p.attrs = attrs;
        p.shape = shape;
        p.x = x.data();
        p.weight = w.data();
        p.bias = b.data();
        p.y = y;
        if (skip) {
            p.skipWeight = sw.data();
        }
        std::vector<unsigned char> ws(core::cpuWorkspaceBytes(shape, threads));
        std::vector<double> total, cpu, tab, fwd, mix, inv;
        for (int r = 0; r < reps + 2; ++r) {
            const double c0 = cpuMs();
            const auto t0 = std::chrono::steady_clock::now();
            const core::Status rs = core::runCpu(p, ws.data(), ws.size(), threads);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (!rs.ok) {
                std::printf("runCpu: %s\n", rs.message.c_str());
                return 1;
            }
            if (r < 2) continue;  // warm-up
            const cpu::StageTimes& t = cpu::lastStageTimes();
            total.push_back(ms);
            cpu.push_back(cpuMs() - c0);
            tab.push_back(t.tablesMs);
            fwd.push_back(t.forwardMs);
            mix.push_back(t.mixMs);
            inv.push_back(t.inverseMs);
        }
        const Flops f = countFlops(s);
        std::string name = std::to_string(s.n) + "x" + std::to_string(s.c);
        for (int64_t v : s.S) name += "x" + std::to_string(v);
        name += " m" + std::to_string(s.m);
        std::printf("%-22s %9.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.1f   (fwd %.1f, mix %.1f, inv %.1f GFLOP/s)\n", name.c_str(),
                    median(total), median(cpu), median(tab), median(fwd), median(mix), median(inv),
                    (f.fwd + f.mix + f.inv) / median(total) * 1e-6, f.fwd / median(fwd) * 1e-6,
                    f.mix / median(mix) * 1e-6, f.inv / median(inv) * 1e-6);
    }
    return 0;
}
