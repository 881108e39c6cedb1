// C++ microbenchmark of core::runMlpCpu (no ORT): median and minimum time per call, GFLOP/s of the two
// products, per activation pair, on the darcy-like shapes. Build from the repository root (link
// libturbofno_core.a of a build folder):
//   g++ -std=c++17 -O3 -Iplugins/include bench/mlp_microbench.cpp build-dev/plugins/libturbofno_core.a
//       -o mlp_microbench -lpthread
// Run: mlp_microbench [threads=1] [reps=300]   (TURBOFNO_CPU_ISA caps the kernels)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "turbofno/cpu.h"
#include "turbofno/pointwise_mlp.h"

using namespace turbofno::core;

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 300;
    const int64_t cin = 64, ch = 32, cout = 64;
    std::mt19937 rng(0);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    auto fill = [&](std::vector<float>& v, size_t n, float s) {
        v.resize(n);
        for (float& e : v) e = s * dist(rng);
    };
    for (int64_t points : {int64_t{4096}, int64_t{256}}) {
        std::vector<float> x, w1, b1, w2, b2, r, g, y(cout * points);
        fill(x, cin * points, 1.0f);
        fill(w1, ch * cin, 0.125f);
        fill(b1, ch, 0.5f);
        fill(w2, cout * ch, 0.18f);
        fill(b2, cout, 0.5f);
        fill(r, cout * points, 1.0f);
        fill(g, cout, 1.0f);
        const int64_t xd[3] = {1, cin, points}, w1d[2] = {ch, cin}, b1d[1] = {ch}, w2d[2] = {cout, ch}, b2d[1] = {cout},
                      rd[3] = {1, cout, points}, gd[1] = {cout};
        const int64_t* dims[kMlpInputCount] = {xd, w1d, b1d, w2d, b2d, rd, gd};
        const int ranks[kMlpInputCount] = {3, 2, 1, 2, 1, 3, 1};
        PointwiseMlpParams p;
        if (!inferMlpShape(dims, ranks, &p.shape).ok) return 1;
        p.x = x.data(); p.w1 = w1.data(); p.b1 = b1.data(); p.w2 = w2.data(); p.b2 = b2.data();
        p.residual = r.data(); p.gate = g.data(); p.y = y.data();
        CpuRunOptions opt;
        opt.workers = threads;
        const double flops = 2.0 * points * (cin * ch + ch * cout);
        for (auto acts : {std::pair<int, int>{0, 0}, {1, 0}, {1, 1}, {3, 3}}) {
            p.attrs.hiddenActivation = static_cast<Activation>(acts.first);
            p.attrs.activation = static_cast<Activation>(acts.second);
            std::vector<double> ms;
            for (int i = 0; i < reps + 10; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                if (!runMlpCpu(p, nullptr, 0, opt).ok) return 1;
                const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                if (i >= 10) ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            std::printf("P=%-5lld hact=%d act=%d: median %.3f ms, min %.3f ms, %.1f GFLOP/s (products, at min)\n",
                        (long long)points, acts.first, acts.second, ms[ms.size() / 2], ms[0], flops / ms[0] * 1e-6);
        }
    }
    return 0;
}
