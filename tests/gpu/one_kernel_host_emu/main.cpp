// The one-kernel 1D layer's source (plugins/cuda/one_kernel_1d.cuh, compiled as host C++ by run.sh) on
// CPU threads with the plan makePlan gives it (the algorithm forced to kOneKernel1D), against a float64
// evaluation of the op's definition (docs/op.md):
//   X[n, i, k] = sum_t x[n, i, t] e^{-2 pi i k t / S}            k < kd
//   Y[n, o, k] = sum_i X[n, i, k] W[i, o, k]    (separable: X[n, o, k] W[o, 0, k])
//   y[n, o, t] = act(1/S sum_k c_k Re(Y[n, o, k] e^{+2 pi i k t / S}) + bias[o] + sum_i Ws[o, i] x[n, i, t])
// with c_k = 1 for k = 0 and k = S/2, else 2. Covers odd and even S, the Nyquist bin, channel counts that
// are not multiples of 4 or of the output group, every output group size (2, 4, 8, 16), a split
// mixing sum, separable weights, with / without bias and skip, every activation, fp32 / fp16 / bf16.
// Outputs are NaN-filled first, shared memory NaN-filled per block (every element must be written, no
// unwritten value read). Exit 1 on any failure.
//   one_kernel_host_emu [--quick]
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "one_kernel_1d.cuh"

using namespace turbofno;

namespace {

int failures = 0, checks = 0;

template <typename T> const char* tname();
template <> const char* tname<float>() { return "f32"; }
template <> const char* tname<__half>() { return "f16"; }
template <> const char* tname<__nv_bfloat16>() { return "bf16"; }
template <typename T> double tol();
template <> double tol<float>() { return 2e-6; }
template <> double tol<__half>() { return 3e-3; }
template <> double tol<__nv_bfloat16>() { return 2e-2; }

double act(double v, int a) {
    switch (a) {
        case 1: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        case 2: return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        case 3: return v > 0 ? v : 0.0;
        case 4: return v / (1.0 + std::exp(-v));
        case 5: return std::tanh(v);
        default: return v;
    }
}

struct Case {
    int N, Cin, Cout, S, kd;
    bool separable, bias, skip;
    int activation;
};

template <typename T>
void run(const Case& c, std::mt19937_64& rng) {
    const std::string name = std::string(tname<T>()) + " N" + std::to_string(c.N) + " Cin" + std::to_string(c.Cin) + " Cout" +
                             std::to_string(c.Cout) + " S" + std::to_string(c.S) + " kd" + std::to_string(c.kd) +
                             (c.separable ? " separable" : "") + (c.bias ? " bias" : "") + (c.skip ? " skip" : "") + " act" +
                             std::to_string(c.activation);
    core::SpectralConvShape shape;
    shape.rank = 1;
    shape.batch = c.N;
    shape.inChannels = c.Cin;
    shape.outChannels = c.Cout;
    shape.spatial[0] = c.S;
    shape.kept[0] = c.kd;
    shape.hasBias = c.bias;
    shape.hasSkip = c.skip;
    core::SpectralConvAttrs attrs;
    attrs.modesLow[0] = c.kd;
    attrs.separable = c.separable ? 1 : 0;
    attrs.activation = static_cast<core::Activation>(c.activation);
    cuda::setAlgorithmOverride(2);
    const cuda::Plan plan = cuda::makePlan(shape, &attrs);
    cuda::setAlgorithmOverride(-1);
    ++checks;
    if (plan.algo != cuda::Algorithm::kOneKernel1D) {
        ++failures;
        std::printf("FAIL %s: not planned as one kernel (og %d)\n", name.c_str(), plan.ok1.og);
        return;
    }
    std::normal_distribution<double> nd(0.0, 1.0);
    const int wOut = c.separable ? 1 : c.Cout;
    std::vector<T> x(static_cast<size_t>(c.N) * c.Cin * c.S), w(static_cast<size_t>(c.Cin) * wOut * c.kd * 2), b(c.Cout),
        ws(static_cast<size_t>(c.Cout) * c.Cin), y(static_cast<size_t>(c.N) * c.Cout * c.S);
    // values rounded to T first, so that the reference sees exactly what the kernel reads
    auto fill = [&](std::vector<T>& v, double s) {
        for (auto& e : v) e = cuda::fromFloat<T>(static_cast<float>(nd(rng) * s));
    };
    fill(x, 1.0);
    fill(w, 1.0 / c.Cin);
    fill(b, 0.3);
    fill(ws, 1.0 / std::sqrt(static_cast<double>(c.Cin)));
    for (auto& e : y) e = cuda::fromFloat<T>(std::nanf(""));
    auto f = [](T v) { return static_cast<double>(cuda::toFloat<T>(v)); };

    const cudaError_t err = cuda::launchOneKernel1d<T>(plan, x.data(), w.data(), c.bias ? b.data() : nullptr,
                                                       c.skip ? ws.data() : nullptr, y.data(), nullptr);
    if (err != cudaSuccess) {
        ++failures;
        std::printf("FAIL %s: launch returned %d\n", name.c_str(), static_cast<int>(err));
        return;
    }
    double errSq = 0, refSq = 0;
    bool unwritten = false;
    std::vector<std::complex<double>> X(static_cast<size_t>(c.Cin) * c.kd), Y(c.kd);
    for (int n = 0; n < c.N; ++n) {
        for (int i = 0; i < c.Cin; ++i)
            for (int k = 0; k < c.kd; ++k) {
                std::complex<double> s = 0;
                for (int t = 0; t < c.S; ++t)
                    s += f(x[(static_cast<size_t>(n) * c.Cin + i) * c.S + t]) *
                         std::polar(1.0, -2.0 * M_PI * static_cast<double>((static_cast<int64_t>(k) * t) % c.S) / c.S);
                X[static_cast<size_t>(i) * c.kd + k] = s;
            }
        for (int o = 0; o < c.Cout; ++o) {
            for (int k = 0; k < c.kd; ++k) {
                std::complex<double> s = 0;
                auto wc = [&](int i, int oo) {
                    const size_t at = ((static_cast<size_t>(i) * wOut + oo) * c.kd + k) * 2;
                    return std::complex<double>(f(w[at]), f(w[at + 1]));
                };
                if (c.separable) s = X[static_cast<size_t>(o) * c.kd + k] * wc(o, 0);
                else
                    for (int i = 0; i < c.Cin; ++i) s += X[static_cast<size_t>(i) * c.kd + k] * wc(i, o);
                Y[k] = s;
            }
            for (int t = 0; t < c.S; ++t) {
                double v = 0;
                for (int k = 0; k < c.kd; ++k) {
                    const double ck = (k == 0 || 2 * k == c.S) ? 1.0 : 2.0;
                    v += ck * (Y[k] * std::polar(1.0, 2.0 * M_PI * static_cast<double>((static_cast<int64_t>(k) * t) % c.S) / c.S))
                                  .real();
                }
                v /= c.S;
                if (c.bias) v += f(b[o]);
                if (c.skip)
                    for (int i = 0; i < c.Cin; ++i)
                        v += f(ws[static_cast<size_t>(o) * c.Cin + i]) * f(x[(static_cast<size_t>(n) * c.Cin + i) * c.S + t]);
                v = act(v, c.activation);
                const double got = f(y[(static_cast<size_t>(n) * c.Cout + o) * c.S + t]);
                if (!std::isfinite(got)) unwritten = true;
                errSq += (got - v) * (got - v);
                refSq += v * v;
            }
        }
    }
    const double rel = std::sqrt(errSq / std::max(refSq, 1e-300));
    const bool ok = !unwritten && rel <= tol<T>();
    if (!ok) ++failures;
    std::printf("%s %-70s og %2d parts %d smem %6zu  rel-L2 %.2e%s\n", ok ? "ok  " : "FAIL", name.c_str(), plan.ok1.og,
                plan.ok1.mixParts, plan.ok1.smem, rel, unwritten ? " (non-finite / unwritten outputs)" : "");
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    std::mt19937_64 rng(20261203);
    const Case cases[] = {
        {2, 64, 64, 256, 17, false, true, true, 1},   // the Burgers layer, 2 items
        {1, 64, 64, 256, 17, false, true, true, 1},   // batch 1: small output groups, split mixing sum
        {3, 5, 7, 37, 7, false, true, false, 0},      // odd S, channels not multiples of 4
        {2, 3, 3, 40, 21, true, false, true, 5},      // Nyquist bin kept, separable
        {1, 6, 9, 33, 17, false, false, true, 2},     // odd S, all bins
        {2, 9, 5, 64, 1, false, true, true, 3},       // DC only
        {4, 16, 33, 128, 16, false, true, true, 4},   // Cout not a multiple of the group
        {1, 2, 1, 2, 2, false, true, false, 0},       // S = 2: DC and Nyquist only
        {1, 1, 1, 1, 1, false, true, true, 1},        // S = 1
        {1, 8, 8, 600, 20, false, false, true, 0},    // S > 256 threads: several points per thread
        {8, 8, 64, 32, 9, false, true, true, 1},      // output groups of 4
        {16, 8, 64, 32, 9, false, true, true, 1},     // ... of 8
        {32, 6, 64, 32, 17, false, true, true, 2},    // ... of 16, mixing sum not split (16 x 17 items)
        {32, 64, 64, 256, 17, false, true, true, 1},  // the Burgers layer at batch 32 (groups of 16)
        {40, 4, 4, 16, 5, true, true, true, 3},       // many blocks, separable
    };
    for (const Case& c : cases) {
        if (quick && c.N * c.Cin * c.S > 20000) continue;
        run<float>(c, rng);
    }
    for (const Case& c : {cases[0], cases[2], cases[3], cases[6], cases[11], cases[13]}) {
        if (quick && c.N * c.Cin * c.S > 20000) continue;
        run<__half>(c, rng);
        run<__nv_bfloat16>(c, rng);
    }
    std::printf("%d of %d checks passed (%lld blocks emulated)\n", checks - failures, checks, cuda::gEmuBlocks);
    return failures ? 1 : 0;
}
