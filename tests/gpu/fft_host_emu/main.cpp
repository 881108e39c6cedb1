// The FFT passes' own source (plugins/cuda/fft_pass.cuh and fft_radix.cuh, compiled as host C++
// by run.sh) run on CPU threads with the DftPass the planner makes (plan_separable.cpp: fft, radices,
// fftLines, views, scale, bias map), against float64 sums of the DFT pass's definitions (dft_pass.h):
//   R2C: X[g, k] = sum_t x[g, t] e^{-2 pi i k t / S}, k < kd
//   C2R: y[g, t] = act(scale * sum_{k < K} c_k Re(Z[g, k] e^{+2 pi i k t / S}) + bias[(g / biasDiv) % biasMod] [+ y])
// for power-of-two S = 8 .. 4096 (radices 16, 8, 4, 2, padded shared lines) and S = 2 * 2^a 3^b 5^c =
// 10 .. 4050 (every radix, odd and even S / 2, up to 7 stages), kd = 1, 5, S/2, S/2 + 1, several lines
// per block (the planner's count and forced ones, with a partial last block), fp32 / fp16 / bf16,
// bias, skip (addY) and activations, lines at an odd element offset (the scalar loads / stores);
// NaN-filled shared memory and outputs. Plus exhaustive checks of the index division (fftDiv) and
// roots of unity (fftRoot). No GPU: this checks
// the index math, the barriers and the arithmetic, not the device code generation. Exit 1 on any failure.
//   fft_host_emu [--quick] [--mixed] [--tiny]    --mixed: only the mixed-radix cases; --tiny: a few small
//   mixed-radix cases (for TSAN=1 runs: every block's 256 threads under ThreadSanitizer are slow)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fft_pass.cuh"
#include "fft_pass_long.cuh"
#include "fft_plane.cuh"
#include "plan.h"
#include "plan_separable.h"

using namespace turbofno;
using cuda::DftPass;
using cuda::PassKind;

namespace {

int failures = 0, checks = 0;
double worstF32 = 0;

template <typename T> float toF(T v) { return cuda::toFloat<T>(v); }
template <typename T> T fromF(float v) { return cuda::fromFloat<T>(v); }
template <typename T> const char* tname();
template <> const char* tname<float>() { return "f32"; }
template <> const char* tname<__half>() { return "f16"; }
template <> const char* tname<__nv_bfloat16>() { return "bf16"; }
template <typename T> double tol();
template <> double tol<float>() { return 2e-6; }
template <> double tol<__half>() { return 2e-3; }
template <> double tol<__nv_bfloat16>() { return 1.5e-2; }

double act(double v, int a) {
    switch (a) {
        case 1: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        case 3: return v > 0 ? v : 0.0;
        case 5: return std::tanh(v);
        default: return v;
    }
}

void report(bool ok, const std::string& what, double err, double tolerance) {
    ++checks;
    if (!ok) ++failures;
    std::printf("%s %-78s rel-L2 %.3e (tol %.0e)\n", ok ? "ok  " : "FAIL", what.c_str(), err, tolerance);
}

core::SpectralConvShape shape1(int64_t lead, int64_t S, int64_t kd, int64_t n, int64_t ci, int64_t co, bool skip) {
    core::SpectralConvShape s;
    if (lead > 0) {
        s.rank = 2;
        s.spatial[0] = lead;
        s.kept[0] = std::min<int64_t>(lead, 2);
        s.spatial[1] = S;
        s.kept[1] = kd;
    } else {
        s.rank = 1;
        s.spatial[0] = S;
        s.kept[0] = kd;
    }
    s.batch = n;
    s.inChannels = ci;
    s.outChannels = co;
    s.hasSkip = skip;
    return s;
}

// e^{2 pi i j / S} table in float64
std::vector<std::complex<double>> roots(int S) {
    std::vector<std::complex<double>> r(S);
    for (int j = 0; j < S; ++j) r[j] = std::polar(1.0, 2.0 * M_PI * j / S);
    return r;
}

template <typename T>
void runR2C(const DftPass& p0, int forceLines, const std::string& label, std::mt19937& rng, int offset = 0) {
    DftPass p = p0;
    if (forceLines > 0) p.fftLines = forceLines;
    const int S = p.S, kd = p.M, N = p.N;
    std::normal_distribution<float> nd;
    std::vector<T> xs(static_cast<size_t>(N) * S + 1);
    T* x = xs.data() + offset;  // offset 1: not aligned to 2 elements (the kernel's scalar loads)
    for (size_t e = 0; e < static_cast<size_t>(N) * S; ++e) x[e] = fromF<T>(nd(rng));
    // the four-step long-axis R2C writes one partial spectrum per column tile (summed here in order)
    const int split = p.fftLongCols ? p.fftLongCols / (2 * p.fftLines) : 1;
    std::vector<float2> z(static_cast<size_t>(split) * N * kd, make_float2(NAN, NAN));
    const cudaError_t err = p.fftLongCols ? cuda::launchFftLongPass<PassKind::kR2C, T>(p, x, z.data(), nullptr, nullptr)
                                          : cuda::launchFftPass<PassKind::kR2C, T>(p, x, z.data(), nullptr, nullptr);
    for (int s = 1; s < split; ++s)
        for (size_t e = 0; e < static_cast<size_t>(N) * kd; ++e) {
            z[e].x += z[static_cast<size_t>(s) * p.cSplitStride + e].x;
            z[e].y += z[static_cast<size_t>(s) * p.cSplitStride + e].y;
        }
    const auto w = roots(S);
    double num = 0, den = 0;
    for (int g = 0; g < N; ++g)
        for (int k = 0; k < kd; ++k) {
            std::complex<double> acc = 0;
            for (int t = 0; t < S; ++t) acc += static_cast<double>(toF(x[static_cast<size_t>(g) * S + t])) * std::conj(w[(static_cast<int64_t>(k) * t) % S]);
            const float2 v = z[static_cast<size_t>(g) * kd + k];
            num += std::norm(std::complex<double>(v.x, v.y) - acc);
            den += std::norm(acc);
        }
    const double e = std::sqrt(num / std::max(den, 1e-300));
    // the spectrum is fp32 whatever T is (inputs rounded to T are the reference's inputs)
    const double tl = 2e-6;
    if (std::is_same<T, float>::value) worstF32 = std::max(worstF32, e);
    report(err == cudaSuccess && e <= tl, label + " R2C " + tname<T>() + " S=" + std::to_string(S) + " kd=" + std::to_string(kd) +
                                             " lines=" + std::to_string(N) + " L=" + std::to_string(p.fftLines) +
                                             (split > 1 ? " partials=" + std::to_string(split) : "") +
                                             (offset ? " offset" : ""),
           e, tl);
}

template <typename T>
void runC2R(const DftPass& p0, int forceLines, int kdView, bool withBias, const std::string& label, std::mt19937& rng,
            int offset = 0) {
    DftPass p = p0;
    if (forceLines > 0) p.fftLines = forceLines;
    const int S = p.S, K = p.K, N = p.N;
    std::normal_distribution<float> nd;
    std::vector<float2> z(static_cast<size_t>(N) * kdView);
    for (auto& v : z) v = make_float2(nd(rng), nd(rng));
    std::vector<T> bias(p.biasMod);
    for (auto& v : bias) v = fromF<T>(nd(rng));
    std::vector<T> ys(static_cast<size_t>(N) * S + 1), y0;
    T* yp = ys.data() + offset;  // offset 1: not aligned to 2 elements (the kernel's scalar stores)
    for (size_t e = 0; e < static_cast<size_t>(N) * S; ++e) yp[e] = p.addY ? fromF<T>(nd(rng)) : fromF<T>(NAN);
    y0.assign(yp, yp + static_cast<size_t>(N) * S);
    const T* b = withBias ? bias.data() : nullptr;
    const cudaError_t err = p.fftLongCols ? cuda::launchFftLongPass<PassKind::kC2R, T>(p, z.data(), yp, b, nullptr)
                                          : cuda::launchFftPass<PassKind::kC2R, T>(p, z.data(), yp, b, nullptr);
    const std::vector<T> y(yp, yp + static_cast<size_t>(N) * S);
    const auto w = roots(S);
    double num = 0, den = 0;
    for (int g = 0; g < N; ++g) {
        const double b = withBias ? toF(bias[(g / p.biasDiv) % p.biasMod]) : 0.0;
        for (int t = 0; t < S; ++t) {
            double acc = 0;
            for (int k = 0; k < K; ++k) {
                const float2 v = z[static_cast<size_t>(g) * kdView + k];
                const double ck = (k == 0 || k == p.nyquist) ? 1.0 : 2.0;
                acc += ck * std::real(std::complex<double>(v.x, v.y) * w[(static_cast<int64_t>(k) * t) % S]);
            }
            double ref = p.scale * acc + b;
            if (p.addY) ref += toF(y0[static_cast<size_t>(g) * S + t]);
            ref = act(ref, p.activation);
            const double got = toF(y[static_cast<size_t>(g) * S + t]);
            num += (got - ref) * (got - ref);
            den += ref * ref;
        }
    }
    const double e = std::sqrt(num / std::max(den, 1e-300));
    if (std::is_same<T, float>::value) worstF32 = std::max(worstF32, e);
    report(err == cudaSuccess && e <= tol<T>(),
           label + " C2R " + tname<T>() + " S=" + std::to_string(S) + " K=" + std::to_string(K) + " lines=" + std::to_string(N) +
               " L=" + std::to_string(p.fftLines) + (withBias ? " bias" : "") + (p.addY ? " addY" : "") +
               (p.activation ? " act" + std::to_string(p.activation) : "") + (offset ? " offset" : ""),
           e, tol<T>());
}

// The C2R with the mixing prologue (mixing_c2r.cuh, Plan::mixInC2R) as makePlan plans it (forced on) for a 1D layer
// of n x ci -> co channels, S points, kd bins (sep: separable weights, ci == co): y[n, o, t] = act(scale * C2R_t(
// sum_i X[n, i, k] W[i, o, k]) + bias[o] [+ y]) against float64; `expect`: whether the kernel can take the shape.
template <typename T>
void runMixC2R(int S, int kd, int n, int ci, int co, bool sep, bool skip, int activation, bool expect, std::mt19937& rng,
               int forceLines = 0) {
    auto sh = shape1(0, S, kd, n, ci, co, skip);
    sh.hasBias = true;
    core::SpectralConvAttrs attrs;
    attrs.separable = sep ? 1 : 0;
    attrs.rank = 1;
    attrs.modesLow[0] = static_cast<int32_t>(kd);
    attrs.activation = static_cast<core::Activation>(activation);
    const cuda::Plan plan = cuda::makePlan(sh, &attrs);
    std::string label = "mix-in-C2R " + std::string(tname<T>()) + " S=" + std::to_string(S) + " kd=" + std::to_string(kd) + " " +
                        std::to_string(n) + "x" + std::to_string(ci) + "->" + std::to_string(co) + (sep ? " separable" : "") +
                        (skip ? " addY" : "") + (activation ? " act" + std::to_string(activation) : "");
    if (plan.mixInC2R != expect) {
        ++failures;
        std::printf("FAIL: %s: the planner %s the mixing inside the C2R\n", label.c_str(), plan.mixInC2R ? "chose" : "did not choose");
        return;
    }
    if (!plan.mixInC2R) {
        std::printf("ok   %s: not planned (as expected)\n", label.c_str());
        ++checks;
        return;
    }
    DftPass p = plan.sep.inv[0].pass;
    if (forceLines > 0) {  // fewer lines per block (a divisor of co): the groups re-derived as the planner does
        p.fftLines = forceLines;
        p.mixGroups = sep ? 1 : std::max(1, std::min(ci, 256 / (forceLines * p.K)));
    }
    label += " L=" + std::to_string(p.fftLines) + " G=" + std::to_string(p.mixGroups);
    const int K = p.K, kall = p.mixKall, lines = p.N;
    std::normal_distribution<float> nd;
    std::vector<float2> X(static_cast<size_t>(n) * ci * kall);
    for (auto& v : X) v = make_float2(nd(rng), nd(rng));
    std::vector<T> W(static_cast<size_t>(sep ? co : ci * co) * kall * 2), bias(co);
    for (auto& v : W) v = fromF<T>(nd(rng) / std::sqrt(static_cast<float>(ci)));
    for (auto& v : bias) v = fromF<T>(nd(rng));
    std::vector<T> y(static_cast<size_t>(lines) * S);
    for (auto& v : y) v = skip ? fromF<T>(nd(rng)) : fromF<T>(NAN);
    const std::vector<T> y0 = y;
    const cudaError_t err = cuda::launchFftRadix2MixC2R<T>(p, X.data(), W.data(), y.data(), bias.data(), nullptr);
    const auto w = roots(S);
    double num = 0, den = 0;
    for (int g = 0; g < lines; ++g) {
        const int b = g / co, o = g % co;
        std::vector<std::complex<double>> z(K);
        for (int k = 0; k < K; ++k) {
            auto wc = [&](int i) {
                const size_t off = ((sep ? static_cast<size_t>(o) : static_cast<size_t>(i) * co + o) * kall + k) * 2;
                return std::complex<double>(toF(W[off]), toF(W[off + 1]));
            };
            auto xc = [&](int i) {
                const float2 v = X[(static_cast<size_t>(b) * ci + i) * kall + k];
                return std::complex<double>(v.x, v.y);
            };
            if (sep) z[k] = xc(o) * wc(o);
            else
                for (int i = 0; i < ci; ++i) z[k] += xc(i) * wc(i);
        }
        for (int t = 0; t < S; ++t) {
            double acc = 0;
            for (int k = 0; k < K; ++k) {
                std::complex<double> v = z[k];
                if (k == 0 || k == p.nyquist) v = std::complex<double>(v.real(), 0.0);
                const double ck = (k == 0 || k == p.nyquist) ? 1.0 : 2.0;
                acc += ck * std::real(v * w[(static_cast<int64_t>(k) * t) % S]);
            }
            double ref = p.scale * acc + toF(bias[(g / p.biasDiv) % p.biasMod]);
            if (skip) ref += toF(y0[static_cast<size_t>(g) * S + t]);
            ref = act(ref, activation);
            const double got = toF(y[static_cast<size_t>(g) * S + t]);
            num += (got - ref) * (got - ref);
            den += ref * ref;
        }
    }
    const double e = std::sqrt(num / std::max(den, 1e-300));
    if (std::is_same<T, float>::value) worstF32 = std::max(worstF32, e);
    report(err == cudaSuccess && e <= tol<T>(), label, e, tol<T>());
}

// Mixing inside the C2R: Burgers' layer (64 channels, 256 points, 17 bins) at batch 1 and 32 (the planner's lines
// per block and groups, forced fewer lines), the fused layer's epilogue, separable weights, odd channel counts,
// Nyquist bins, half precision; where the planner must not take it (Cout not a multiple of the lines per block,
// the Stockham kernel's blocks, weights too large for the flat rule).
void runMixC2RCases(bool quick, std::mt19937& rng) {
    runMixC2R<float>(256, 17, 1, 64, 64, false, true, 1, true, rng);
    runMixC2R<float>(256, 17, 32, 64, 64, false, true, 1, true, rng);
    runMixC2R<float>(256, 17, 32, 64, 64, false, false, 0, true, rng, 1);
    runMixC2R<float>(64, 33, 3, 5, 7, false, false, 5, true, rng);         // every bin incl. Nyquist, odd channels
    runMixC2R<float>(16, 9, 5, 6, 6, true, true, 3, true, rng);            // separable weights
    runMixC2R<float>(64, 20, 150, 3, 8, false, false, 0, true, rng);       // 4 lines per block, 3 groups = Cin
    if (!quick) {
        runMixC2R<float>(256, 17, 32, 64, 64, false, true, 1, true, rng, 2);
        runMixC2R<float>(1024, 129, 16, 32, 32, false, false, 0, true, rng);  // Q > 256: one group, threads loop
        runMixC2R<float>(256, 17, 64, 64, 64, false, true, 1, true, rng);     // 8 lines per block, one group
        runMixC2R<float>(512, 40, 70, 3, 2, false, false, 0, true, rng);
    }
    runMixC2R<__half>(256, 17, 4, 64, 64, false, true, 1, true, rng);
    runMixC2R<__nv_bfloat16>(256, 17, 4, 64, 64, false, true, 1, true, rng);
    runMixC2R<__half>(32, 7, 6, 4, 4, true, false, 0, true, rng);
    runMixC2R<float>(256, 17, 300, 16, 6, false, false, 0, false, rng);    // 4 lines per block, Cout 6
    runMixC2R<float>(1024, 32, 64, 32, 32, false, false, 0, false, rng);  // 2048-value blocks: the Stockham C2R
}

// The largest line count per block at S (line budget and shared memory).
int maxLines(int S) {
    int L = cuda::kFftLineBudget / S;
    while (L > 1 && cuda::fftSmemBytes(S, L) > cuda::fftSmemAllowed(L)) --L;
    return L;
}

// fftDiv against integer division for every divisor and dividend the kernel can use (<= 8192).
void checkMixDiv(bool quick) {
    long long bad = 0;
    const int maxD = quick ? 4097 : 8192;
    for (int d = 1; d <= maxD; ++d) {
        const float inv = 1.f / static_cast<float>(d);
        for (int a = 0; a <= 8192; ++a) bad += cuda::fftDiv(a, inv) != a / d;
    }
    ++checks;
    failures += bad != 0;
    std::printf("%s fftDiv exact for a <= 8192, d <= %d: %lld wrong\n", bad ? "FAIL" : "ok  ", maxD, bad);
}

// fftRoot(n, P) against float64 e^{2 pi i n / P} for every P <= 4096 and n < P: within an fp32 ulp.
void checkMixRoot() {
    double worst = 0;
    for (int P = 1; P <= 4096; ++P)
        for (int n = 0; n < P; ++n) {
            const float2 w = cuda::fftRoot(n, P);
            const std::complex<double> ref = std::polar(1.0, 2.0 * M_PI * n / P);
            worst = std::max(worst, std::abs(std::complex<double>(w.x, w.y) - ref));
        }
    const bool ok = worst <= 1.2e-7;
    ++checks;
    failures += !ok;
    std::printf("%s fftRoot for every P <= 4096, n < P: max abs error %.3e (tol 1.2e-07)\n", ok ? "ok  " : "FAIL", worst);
}

// 1D layer at S: R2C and C2R of the planner's passes at several kd, lines per block and element types
// (tiny: f32, kd 5 and S/2 + 1, 1 and 3 lines per block).
void run1D(int S, bool quick, std::mt19937& rng, bool tiny = false) {
    const bool mixed = (S & (S - 1)) != 0;
    std::vector<int> kds = {1, 5, S / 2, S / 2 + 1};
    if ((quick || tiny) && mixed) kds = {5, S / 2 + 1};
    for (int kd : kds) {
        if (kd > S / 2 + 1) continue;
        // 1D: lines = n * c; a few lines per call (the float64 reference is O(lines * S * kd))
        const int64_t n = S >= 2048 ? 1 : 3, ci = S >= 2048 ? 2 : 5, co = S >= 2048 ? 3 : 7;
        core::SpectralConvAttrs attrs;
        attrs.rank = 1;
        attrs.modesLow[0] = static_cast<int32_t>(kd);
        const auto sh = shape1(0, S, kd, n, ci, co, false);
        const cuda::SeparablePlan sp = cuda::planSeparable(sh, &attrs);
        const DftPass& plannedR2C = sp.fwd[0].pass;
        const DftPass& plannedC2R = sp.inv[sp.nInv - 1].pass;
        // these small line counts give small blocks: the radix-2 kernel for powers of two (fftRadices 0)
        if (!plannedR2C.fft || !plannedC2R.fft || sp.split != 1 || plannedC2R.fftRadices != plannedR2C.fftRadices ||
            (plannedR2C.fftRadices == 0) != (!mixed && plannedR2C.fftLines * S / 2 < cuda::kFftRadix2Below)) {
            ++failures;
            std::printf("FAIL: planner did not choose the FFT passes at S=%d kd=%d (split %d, radices %x)\n", S, kd, sp.split,
                        plannedR2C.fftRadices);
            continue;
        }
        // the kernels: the planner's, and for powers of two also the Stockham kernel (radix 16 and radix 4 lists)
        std::vector<std::pair<int, std::string>> kernels = {
            {plannedR2C.fftRadices, mixed ? "1D mixed" : plannedR2C.fftRadices == 0 ? "1D radix2" : "1D"}};
        if (!mixed && plannedR2C.fftRadices == 0) {
            kernels.push_back({cuda::fftStages(S / 2), "1D"});
            if (!quick && !tiny) kernels.push_back({cuda::fftStages(S / 2, 4), "1D r4"});
        }
        for (const auto& [radices, l] : kernels) {
            DftPass r2c = plannedR2C, c2r = plannedC2R;
            r2c.fftRadices = c2r.fftRadices = radices;
            // lines per block: the planner's (0), 1, a few (3; 4 for the radix-2 kernel: a power of two), the most
            const int maxL = radices == 0 ? cuda::kFftLineBudget / S : maxLines(S);
            const int few = radices == 0 ? 4 : 3;
            std::vector<int> Ls = {0, 1};
            if (maxL >= few) Ls.push_back(few);
            if (maxL > few) Ls.push_back(maxL);
            if (quick && mixed) Ls = {0, maxL};
            if (tiny) Ls = {1, few};
            for (int L : Ls) {
                runR2C<float>(r2c, L, l, rng);
                runC2R<float>(c2r, L, kd, L != 1, l, rng);
                if (radices == 0) {  // the fused layer's epilogue on the radix-2 kernel: skip values in y, GELU
                    DftPass fused = c2r;
                    fused.addY = 1;
                    fused.activation = 1;
                    runC2R<float>(fused, L, kd, true, l, rng);
                }
            }
            if (!tiny && kd == 5) {
                runR2C<float>(r2c, 0, l, rng, 1);
                runC2R<float>(c2r, 0, kd, true, l, rng, 1);
            }
            if (radices == 0) continue;
            // the other first / last stage variant (DftPass::fftDirect), planner's and most lines per block
            for (int L : {0, maxL}) {
                if (tiny && L != 0) continue;
                DftPass a = r2c, b = c2r;
                a.fftDirect ^= 1;
                b.fftDirect ^= 1;
                const std::string lv = l + (a.fftDirect ? " direct" : " staged");
                runR2C<float>(a, L, lv, rng);
                runC2R<float>(b, L, kd, true, lv, rng);
                if (!tiny && L == 0) runC2R<__half>(b, 0, kd, true, lv, rng, 1);
            }
        }
        const DftPass& r2c = plannedR2C;
        const DftPass& c2r = plannedC2R;
        const std::string l = kernels[0].second;
        if (!tiny && (!quick || kd == 5)) {
            runR2C<__half>(r2c, 0, l, rng);
            runR2C<__nv_bfloat16>(r2c, 0, l, rng);
            runC2R<__half>(c2r, 0, kd, true, l, rng);
            runC2R<__nv_bfloat16>(c2r, 0, kd, true, l, rng);
        }
    }
}

// The compile-time row FFT kernels (fft_pass_static.cuh, kFftStaticRadices): every listed radix list at
// full blocks (the most lines per block) with a partial last block, R2C and C2R with bias and an
// activation, all bins and a few, f32 and f16; each must run on its compile-time kernel.
void runStatic(std::mt19937& rng) {
    for (unsigned radices : cuda::kFftStaticRadices) {
        const int S = 2 * cuda::fftRadicesProduct(radices);
        int maxRadix = 0;
        for (unsigned r = radices; r != 0; r >>= 4) maxRadix = std::max(maxRadix, cuda::fftRadixOf(r & 15u));
        // lists capped at radix 8 are the planner's for 2048-value blocks
        const int L = maxRadix == 8 ? 2048 / (S / 2) : maxLines(S);
        for (int kd : {S / 2 + 1, 5}) {
            const auto sh = shape1(0, S, kd, 1, L + L / 2 + 1, L + L / 2 + 1, false);  // one full block, one partial
            core::SpectralConvAttrs attrs;
            attrs.rank = 1;
            attrs.modesLow[0] = static_cast<int32_t>(kd);
            const cuda::SeparablePlan sp = cuda::planSeparable(sh, &attrs);
            DftPass r2c = sp.fwd[0].pass, c2r = sp.inv[sp.nInv - 1].pass;
            r2c.fftRadices = c2r.fftRadices = static_cast<int>(radices);
            r2c.fftLines = c2r.fftLines = L;
            c2r.activation = kd == 5 ? 1 : 5;  // GELU (erf), tanh
            // the planner's stages for a full block of this length are this list (test_cuda_plan checks it too)
            const bool planned = cuda::fftStages(S / 2, maxRadix == 8 ? 8 : 16) == static_cast<int>(radices);
            if (!r2c.fft || !c2r.fft || !planned || !cuda::fftStaticKernelRuns(r2c, false) || !cuda::fftStaticKernelRuns(c2r, true)) {
                ++failures;
                std::printf("FAIL: radices %x (S=%d) would not run the compile-time kernel\n", radices, S);
                continue;
            }
            char label[64];
            std::snprintf(label, sizeof label, "static %x", radices);
            const std::string lv = label;
            runR2C<float>(r2c, 0, lv, rng);
            runC2R<float>(c2r, 0, kd, true, lv, rng);
            if (kd == 5) {
                runR2C<__half>(r2c, 0, lv, rng);
                runC2R<__half>(c2r, 0, kd, true, lv, rng);
                runC2R<float>(c2r, 0, kd, true, lv, rng, 1);  // unaligned y: the scalar stores
            }
        }
    }
}

// The four-step long-axis FFT (fft_pass_long.cuh): a 1D layer's R2C (partial spectra per column tile) and
// C2R as the planner makes them (forced on), at power-of-two and mixed Na, one and several groups per bin
// (kd < 256 / >= 256), a grid small enough for 16-column blocks, bias, skip (addY) and activations.
void runLong(int S, int kd, int64_t n, int64_t ci, bool allTypes, std::mt19937& rng) {
    cuda::setFftLongOverride(1);
    core::SpectralConvAttrs attrs;
    attrs.rank = 1;
    attrs.modesLow[0] = static_cast<int32_t>(kd);
    attrs.activation = static_cast<core::Activation>(allTypes ? 1 : 0);
    const auto sh = shape1(0, S, kd, n, ci, ci + 1, allTypes);
    const cuda::SeparablePlan sp = cuda::planSeparable(sh, &attrs);
    cuda::setFftLongOverride(0);  // back to main's setting
    const DftPass& r2c = sp.fwd[0].pass;
    const DftPass& c2r = sp.inv[sp.nInv - 1].pass;
    const int Na = r2c.fftLongCols ? S / r2c.fftLongCols : 0;
    if (!r2c.fftLongCols || c2r.fftLongCols != r2c.fftLongCols || c2r.fftLines != r2c.fftLines ||
        sp.split != r2c.fftLongCols / (2 * r2c.fftLines) || 2 * kd > Na) {
        ++failures;
        std::printf("FAIL: planner did not choose the four-step FFT at S=%d kd=%d (cols %d, split %d)\n", S, kd, r2c.fftLongCols,
                    sp.split);
        return;
    }
    bool listed = false;  // a compile-time column list (fft_pass_long.cuh) or the run-time stages
    for (unsigned r : cuda::kFftLongStaticRadices) listed = listed || r == static_cast<unsigned>(r2c.fftRadices);
    const std::string l = "long Na=" + std::to_string(Na) + " W=" + std::to_string(2 * r2c.fftLines) + (listed ? " static" : " run-time");
    runR2C<float>(r2c, 0, l, rng);
    runC2R<float>(c2r, 0, kd, true, l, rng);
    if (allTypes) {
        runR2C<__half>(r2c, 0, l, rng);
        runR2C<__nv_bfloat16>(r2c, 0, l, rng);
        runC2R<__half>(c2r, 0, kd, true, l, rng);
        runC2R<__nv_bfloat16>(c2r, 0, kd, false, l, rng);
    }
}

// 2D with a skip and activations (bias map over the leading axis: biasDiv = T_0), many lines per block
void run2D(int S, std::mt19937& rng, bool tiny = false) {
    const bool mixed = (S & (S - 1)) != 0;
    for (int a : {0, 1, 3}) {
        if (tiny && a != 1) continue;
        const int kd = S / 4 + 1;
        const auto sh = shape1(6, S, kd, 2, 3, 5, true);
        core::SpectralConvAttrs attrs;
        attrs.rank = 2;
        attrs.modesLow[0] = 1;
        attrs.modesLow[1] = kd;
        attrs.activation = static_cast<core::Activation>(a);
        const cuda::SeparablePlan sp = cuda::planSeparable(sh, &attrs);
        const DftPass& r2c = sp.fwd[0].pass;
        const DftPass& c2r = sp.inv[sp.nInv - 1].pass;
        if (!r2c.fft || !c2r.fft || c2r.biasDiv != 6 || !c2r.addY || c2r.activation != a) {
            ++failures;
            std::printf("FAIL: 2D plan at S=%d (fft %d %d, radices %x, biasDiv %d, addY %d)\n", S, r2c.fft, c2r.fft, c2r.fftRadices,
                        c2r.biasDiv, c2r.addY);
            continue;
        }
        const std::string l = mixed ? "2D mixed" : "2D";
        runR2C<float>(r2c, a == 0 ? 0 : 2, l, rng);
        runC2R<float>(c2r, a == 0 ? 0 : 2, kd, true, l, rng);
        if (!tiny) runC2R<__half>(c2r, 0, kd, true, l, rng);
        if (!tiny && a == 1) runC2R<__half>(c2r, 0, kd, true, l, rng, 1);
        DftPass b = c2r;  // the Stockham kernel, other first / last stage variant (DftPass::fftDirect), skip and activation
        b.fftDirect ^= 1;
        if (b.fftRadices == 0) b.fftRadices = cuda::fftStages(S / 2);
        runC2R<float>(b, 2, kd, true, l + (b.fftDirect ? " direct" : " staged"), rng);
    }
}

// The compile-time column kernels' radix lists that runColumns ran (each listed one must run once).
std::set<unsigned> gColumnListsRun;

// The column FFT (complex leading-axis passes, fftColumnPassKernel): every C2C pass the planner marks
// as an FFT in a 2D / 3D shape, on random complex input laid out per the pass's views, against the
// float64 sums of the pass's definition C[col, m] = sum_k e^{-+2 pi i f(m) g(k) / S} B[col, k]
// (f, g: passMap of the kept low / high blocks; inputs at or beyond kLimit dropped).
void runColumns(std::vector<int64_t> S, std::vector<int64_t> K, std::vector<int32_t> low, int64_t n, int64_t c,
                std::mt19937& rng) {
    core::SpectralConvShape sh;
    sh.rank = static_cast<int>(S.size());
    for (size_t j = 0; j < S.size(); ++j) {
        sh.spatial[j] = S[j];
        sh.kept[j] = K[j];
    }
    sh.batch = n;
    sh.inChannels = c;
    sh.outChannels = c;
    core::SpectralConvAttrs attrs;
    attrs.rank = sh.rank;
    for (size_t j = 0; j < S.size(); ++j) attrs.modesLow[j] = low[j];
    const cuda::SeparablePlan sp = cuda::planSeparable(sh, &attrs);
    std::string dims;
    for (int64_t v : S) dims += (dims.empty() ? "" : "x") + std::to_string(v);
    int tested = 0;
    for (int i = 0; i < sp.nFwd + sp.nInv; ++i) {
        const DftPass& planned = i < sp.nFwd ? sp.fwd[i].pass : sp.inv[i - sp.nFwd].pass;
        if (i == 0 || i == sp.nFwd + sp.nInv - 1) continue;  // the real passes
        DftPass p = planned;
        if (!p.fft) {
            if (sh.rank == 2) {
                ++failures;
                std::printf("FAIL: %s pass %d (S=%d) is not a column FFT\n", dims.c_str(), i, p.S);
                continue;
            }
            // 3D: the planner keeps DFT passes; the column kernel runs these views as made here
            p.fft = 1;
            p.fftRadices = cuda::fftStages(p.S);
            p.fftLines = std::min(4, p.b.inner);
        }
        ++tested;
        const int64_t outer = p.N / p.b.inner;
        const size_t bElems = static_cast<size_t>(outer) * p.b.outerStride, cElems = static_cast<size_t>(outer) * p.c.outerStride;
        std::normal_distribution<float> nd;
        std::vector<float2> b(bElems), cOut(cElems, make_float2(NAN, NAN));
        for (auto& v : b) v = make_float2(nd(rng), nd(rng));
        const bool isStatic = cuda::fftColumnStaticKernelRuns(p);  // the compile-time kernel runs it
        if (isStatic) gColumnListsRun.insert(static_cast<unsigned>(p.fftRadices));
        const cudaError_t err = cuda::launchFftColumnPass(p, b.data(), cOut.data(), nullptr);
        double num = 0, den = 0;
        const double sign = p.inverse ? 1.0 : -1.0;
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t cc = 0; cc < p.b.inner; ++cc)
                for (int m = 0; m < p.M; ++m) {
                    const int64_t fm = m < p.mP ? m : m + p.mOff;
                    std::complex<double> acc = 0;
                    for (int k = 0; k < p.K; ++k) {
                        const int64_t gk = k < p.kP ? k : k + p.kOff;
                        if (gk >= p.kLimit) continue;
                        const float2 v = b[o * p.b.outerStride + cc * p.b.innerStride + static_cast<int64_t>(k) * p.b.rowStride];
                        acc += std::complex<double>(v.x, v.y) * std::polar(1.0, sign * 2.0 * M_PI * static_cast<double>((fm * gk) % p.S) / p.S);
                    }
                    const float2 g = cOut[o * p.c.outerStride + cc * p.c.innerStride + static_cast<int64_t>(m) * p.c.rowStride];
                    num += std::norm(std::complex<double>(g.x, g.y) - acc);
                    den += std::norm(acc);
                }
        const double e = std::sqrt(num / std::max(den, 1e-300));
        worstF32 = std::max(worstF32, e);
        report(err == cudaSuccess && e <= 2e-6,
               "columns " + dims + (p.inverse ? " inverse" : " forward") + " S=" + std::to_string(p.S) + " M=" + std::to_string(p.M) +
                   " K=" + std::to_string(p.K) + " inner=" + std::to_string(p.b.inner) + " W=" + std::to_string(p.fftLines) +
                   (isStatic ? " (compile-time stages)" : " (run-time stages)"),
               e, 2e-6);
    }
    if (tested == 0) {
        ++failures;
        std::printf("FAIL: %s has no column FFT pass\n", dims.c_str());
    }
}

// rel-L2 error of the inverse plane's y against the separable definition from the mixed spectrum z ([planes][K1][kd]):
// the column inverse W[t1, k] = sum_m z[m, k] e^{+2 pi i f(m) t1 / S1}, then the C2R of W's bins with the imaginary
// parts of DC and Nyquist ignored, scale, bias (per output channel, cout of them), skip (y0), activation.
template <typename T>
double planeInverseError(const DftPass& c2r, int S1, int S2, int K1, int low, int kd, int planes, int cout,
                         const std::vector<std::complex<double>>& z, const T* y, const std::vector<T>& y0, const T* bias) {
    const int P = S1 * S2;
    auto freq = [&](int m) { return m < low ? m : m + S1 - K1; };
    double num = 0, den = 0;
    std::vector<std::complex<double>> W(static_cast<size_t>(S1) * kd);
    for (int g = 0; g < planes; ++g) {
        for (int t1 = 0; t1 < S1; ++t1)
            for (int k = 0; k < kd; ++k) {
                std::complex<double> acc = 0;
                for (int m = 0; m < K1; ++m) {
                    const double ph = 2.0 * M_PI * static_cast<double>((static_cast<int64_t>(freq(m)) * t1) % S1) / S1;
                    acc += z[(static_cast<size_t>(g) * K1 + m) * kd + k] * std::polar(1.0, ph);
                }
                W[static_cast<size_t>(t1) * kd + k] = acc;
            }
        const double bv = bias ? toF(bias[g % cout]) : 0.0;
        for (int t1 = 0; t1 < S1; ++t1)
            for (int t2 = 0; t2 < S2; ++t2) {
                double acc = 0;
                for (int k = 0; k < c2r.K; ++k) {
                    std::complex<double> v = W[static_cast<size_t>(t1) * kd + k];
                    if (k == 0 || k == c2r.nyquist) v = v.real();
                    const double ck = (k == 0 || k == c2r.nyquist) ? 1.0 : 2.0;
                    const double ph = 2.0 * M_PI * static_cast<double>((static_cast<int64_t>(k) * t2) % S2) / S2;
                    acc += ck * std::real(v * std::polar(1.0, ph));
                }
                const size_t at = static_cast<size_t>(g) * P + t1 * S2 + t2;
                double ref = c2r.scale * acc + bv;
                if (c2r.addY) ref += toF(y0[at]);
                ref = act(ref, c2r.activation);
                const double got = toF(y[at]);
                num += (got - ref) * (got - ref);
                den += ref * ref;
            }
    }
    return std::sqrt(num / std::max(den, 1e-300));
}

// The plane kernels (fft_plane.cuh) as planSeparable plans them (forced on) for a 2D layer of n x c channels on an
// S1 x S2 plane of kFftPlaneShapes, K1 kept leading modes (low of them low), kd bins: the forward against the
// The 2D layer of the plane tests: an S1 x S2 grid, K1 kept rows (the first `low` in the low block), kd last-axis
// bins, n x ci -> co channels; activation != 0 also takes the skip input (the fused layer's epilogue).
void planeLayer(int S1, int S2, int K1, int low, int kd, int n, int ci, int co, int activation, core::SpectralConvShape& sh,
                core::SpectralConvAttrs& attrs) {
    sh.rank = 2;
    sh.spatial[0] = S1;
    sh.spatial[1] = S2;
    sh.kept[0] = K1;
    sh.kept[1] = kd;
    sh.batch = n;
    sh.inChannels = ci;
    sh.outChannels = co;
    sh.hasSkip = activation != 0;
    attrs.rank = 2;
    attrs.modesLow[0] = low;
    attrs.modesLow[1] = kd;
    attrs.activation = static_cast<core::Activation>(activation);
}

// float64 2D sums X[m, k] = sum_{t1, t2} x[t1, t2] e^{-2 pi i (f(m) t1 / S1 + k t2 / S2)} (f: the low block, then
// the high block ending at S1 - 1); the inverse against the separable definition (the column inverse
// W[t1, k] = sum_m Z[m, k] e^{+2 pi i f(m) t1 / S1}, then the C2R of W's bins with the imaginary parts of DC and
// Nyquist ignored, scale, bias, skip, activation). offset 1: x and y not aligned to 2 elements (scalar accesses).
template <typename T>
void runPlane(int S1, int S2, int K1, int low, int kd, int n, int c, bool bias, int activation, int threads, std::mt19937& rng,
              int offset = 0) {
    core::SpectralConvShape sh;
    core::SpectralConvAttrs attrs;
    planeLayer(S1, S2, K1, low, kd, n, c, c, activation, sh, attrs);
    cuda::setFftPlaneOverride(threads);
    const cuda::SeparablePlan sp = cuda::planSeparable(sh, &attrs);
    cuda::setFftPlaneOverride(-1);
    const std::string label = "plane " + std::to_string(S1) + "x" + std::to_string(S2) + " K1=" + std::to_string(K1) + " (low " +
                              std::to_string(low) + ") kd=" + std::to_string(kd) + " planes=" + std::to_string(n * c) + " threads=" + std::to_string(sp.plane) + " " + tname<T>();
    if (!sp.plane) {
        ++failures;
        std::printf("FAIL: %s: the planner does not take the plane kernels\n", label.c_str());
        return;
    }
    const DftPass &r2c = sp.fwd[0].pass, &colF = sp.fwd[1].pass, &colI = sp.inv[0].pass, &c2r = sp.inv[1].pass;
    const int planes = n * c, P = S1 * S2;
    auto freq = [&](int m) { return m < low ? m : m + S1 - K1; };
    std::normal_distribution<float> nd;
    // forward
    {
        std::vector<T> xs(static_cast<size_t>(planes) * P + 1);
        T* x = xs.data() + offset;
        for (size_t e = 0; e < static_cast<size_t>(planes) * P; ++e) x[e] = fromF<T>(nd(rng));
        std::vector<float2> spec(static_cast<size_t>(planes) * K1 * kd, make_float2(NAN, NAN));
        const cudaError_t err = cuda::launchFftPlaneForward<T>(sp.plane, r2c, colF, x, spec.data(), nullptr);
        double num = 0, den = 0;
        for (int g = 0; g < planes; ++g)
            for (int m = 0; m < K1; ++m)
                for (int k = 0; k < kd; ++k) {
                    std::complex<double> acc = 0;
                    for (int t1 = 0; t1 < S1; ++t1)
                        for (int t2 = 0; t2 < S2; ++t2) {
                            const double ph = -2.0 * M_PI * (static_cast<double>((static_cast<int64_t>(freq(m)) * t1) % S1) / S1 +
                                                             static_cast<double>((static_cast<int64_t>(k) * t2) % S2) / S2);
                            acc += static_cast<double>(toF(x[static_cast<size_t>(g) * P + t1 * S2 + t2])) * std::polar(1.0, ph);
                        }
                    const float2 v = spec[(static_cast<size_t>(g) * K1 + m) * kd + k];
                    num += std::norm(std::complex<double>(v.x, v.y) - acc);
                    den += std::norm(acc);
                }
        const double e = std::sqrt(num / std::max(den, 1e-300));
        if (std::is_same<T, float>::value) worstF32 = std::max(worstF32, e);
        report(err == cudaSuccess && e <= 2e-6, label + " forward" + (offset ? " offset" : ""), e, 2e-6);
    }
    // inverse
    {
        std::vector<float2> z(static_cast<size_t>(planes) * K1 * kd);
        for (auto& v : z) v = make_float2(nd(rng), nd(rng));
        std::vector<T> b(c);
        for (auto& v : b) v = fromF<T>(nd(rng));
        std::vector<T> ys(static_cast<size_t>(planes) * P + 1);
        T* y = ys.data() + offset;
        for (size_t e = 0; e < static_cast<size_t>(planes) * P; ++e) y[e] = c2r.addY ? fromF<T>(nd(rng)) : fromF<T>(NAN);
        const std::vector<T> y0(y, y + static_cast<size_t>(planes) * P);
        const cudaError_t err = cuda::launchFftPlaneInverse<T>(sp.plane, colI, c2r, z.data(), nullptr, y, bias ? b.data() : nullptr, nullptr);
        std::vector<std::complex<double>> zd(z.size());
        for (size_t i = 0; i < z.size(); ++i) zd[i] = std::complex<double>(z[i].x, z[i].y);
        const double e = planeInverseError<T>(c2r, S1, S2, K1, low, kd, planes, c, zd, y, y0, bias ? b.data() : nullptr);
        if (std::is_same<T, float>::value) worstF32 = std::max(worstF32, e);
        report(err == cudaSuccess && e <= tol<T>(),
               label + " inverse" + (bias ? " bias" : "") + (c2r.addY ? " addY" : "") + (activation ? " act" + std::to_string(activation) : "") +
                   (offset ? " offset" : ""),
               e, tol<T>());
    }
}

// The inverse plane with the mixing inside (Plan::mixInC2R on a plane, forced): makePlan's plan for an n x ci -> co
// layer (plane kernels with `threads`), the forward spectrum X [n][ci][K1][kd] and weights W [ci][co][K1 kd][2]
// (separable: [co][1][K1 kd][2]) random; against planeInverseError with the float64 mixing z = sum_i X W.
template <typename T>
void runPlaneMix(int S1, int S2, int K1, int low, int kd, int n, int ci, int co, bool sep, bool bias, int activation, int threads,
                 std::mt19937& rng) {
    core::SpectralConvShape sh;
    core::SpectralConvAttrs attrs;
    planeLayer(S1, S2, K1, low, kd, n, ci, co, activation, sh, attrs);
    sh.hasBias = bias;
    attrs.modesHigh[0] = K1 - low;
    attrs.separable = sep ? 1 : 0;
    cuda::setFftPlaneOverride(threads);
    cuda::setMixInC2ROverride(1);
    const cuda::Plan plan = cuda::makePlan(sh, &attrs);
    cuda::setMixInC2ROverride(-1);
    cuda::setFftPlaneOverride(-1);
    const cuda::SeparablePlan& sp = plan.sep;
    const DftPass &colI = sp.inv[0].pass, &c2r = sp.inv[1].pass;
    const std::string label = "plane mix " + std::to_string(S1) + "x" + std::to_string(S2) + " K1=" + std::to_string(K1) + " kd=" +
                              std::to_string(kd) + " " + std::to_string(n) + "x" + std::to_string(ci) + "->" + std::to_string(co) +
                              (sep ? " separable" : "") + " threads=" + std::to_string(sp.plane) + " G=" + std::to_string(c2r.mixGroups) +
                              " " + tname<T>() + (bias ? " bias" : "") + (c2r.addY ? " addY" : "") +
                              (activation ? " act" + std::to_string(activation) : "");
    if (!sp.plane || !plan.mixInC2R || c2r.mixCin != ci || sp.inv[0].src != cuda::Buffer::kSpecIn) {
        ++failures;
        std::printf("FAIL: %s: not planned as the plane kernels with the mixing inside\n", label.c_str());
        return;
    }
    const int kall = K1 * kd, planes = n * co, P = S1 * S2;
    std::normal_distribution<float> nd;
    std::vector<float2> X(static_cast<size_t>(n) * ci * kall);
    for (auto& v : X) v = make_float2(nd(rng), nd(rng));
    std::vector<T> W(static_cast<size_t>(sep ? co : ci * co) * kall * 2), b(co);
    for (auto& v : W) v = fromF<T>(nd(rng) / std::sqrt(static_cast<float>(ci)));
    for (auto& v : b) v = fromF<T>(nd(rng));
    std::vector<T> y(static_cast<size_t>(planes) * P);
    for (auto& v : y) v = c2r.addY ? fromF<T>(nd(rng)) : fromF<T>(NAN);
    const std::vector<T> y0 = y;
    const cudaError_t err = cuda::launchFftPlaneInverse<T>(sp.plane, colI, c2r, X.data(), W.data(), y.data(), bias ? b.data() : nullptr,
                                                           nullptr);
    std::vector<std::complex<double>> z(static_cast<size_t>(planes) * kall);
    for (int g = 0; g < planes; ++g) {
        const int nb = g / co, o = g % co;
        for (int q = 0; q < kall; ++q) {
            auto xc = [&](int i) {
                const float2 v = X[(static_cast<size_t>(nb) * ci + i) * kall + q];
                return std::complex<double>(v.x, v.y);
            };
            auto wc = [&](int i) {
                const size_t off = ((sep ? static_cast<size_t>(o) : static_cast<size_t>(i) * co + o) * kall + q) * 2;
                return std::complex<double>(toF(W[off]), toF(W[off + 1]));
            };
            std::complex<double> acc = 0;
            if (sep) acc = xc(o) * wc(o);
            else
                for (int i = 0; i < ci; ++i) acc += xc(i) * wc(i);
            z[static_cast<size_t>(g) * kall + q] = acc;
        }
    }
    const double e = planeInverseError<T>(c2r, S1, S2, K1, low, kd, planes, co, z, y.data(), y0, bias ? b.data() : nullptr);
    if (std::is_same<T, float>::value) worstF32 = std::max(worstF32, e);
    report(err == cudaSuccess && e <= tol<T>(), label, e, tol<T>());
}

// The mixing inside the inverse plane: one group and several (partial sums in the row buffer), Cin not a multiple of
// the groups, separable weights, both block sizes, every plane, the fused layer's epilogue, all three types.
void runPlaneMixes(bool quick, std::mt19937& rng) {
    constexpr int kW = cuda::kFftPlaneThreads, kWide = cuda::kFftPlaneWideThreads;
    runPlaneMix<float>(64, 64, 32, 16, 16, 1, 32, 32, false, true, 0, kWide, rng);  // 1x32x64x64 m16: Q = 512, G = 2
    runPlaneMix<float>(48, 48, 24, 12, 12, 1, 8, 8, false, true, 1, kWide, rng);    // 1x8x48x48 m12 fused layer
    runPlaneMix<float>(32, 32, 12, 7, 9, 2, 5, 3, false, false, 0, kW, rng);        // Q = 108 < 256: G = 2, Cin odd
    runPlaneMix<__half>(48, 48, 24, 12, 13, 2, 3, 4, false, true, 5, kW, rng);
    runPlaneMix<__nv_bfloat16>(64, 64, 12, 6, 7, 1, 6, 2, false, true, 1, kWide, rng);
    if (quick) return;
    runPlaneMix<float>(32, 32, 4, 2, 3, 1, 40, 7, false, true, 0, kWide, rng);      // Q = 12: many groups, capped by Cin
    runPlaneMix<float>(64, 64, 64, 40, 33, 1, 3, 2, false, true, 0, kW, rng);       // the full plane: Q > threads, G = 1
    runPlaneMix<float>(48, 48, 10, 10, 25, 2, 4, 4, true, true, 3, kWide, rng);     // separable weights, low only, Nyquist
    runPlaneMix<float>(64, 64, 5, 0, 1, 3, 9, 5, false, false, 1, kW, rng);         // high block only, one bin
}

// Every plane of kFftPlaneShapes: kd from 1 to S2 / 2 + 1 (Nyquist), asymmetric and all-low / all-high leading
// blocks, all three types, bias, skip and activations, an unaligned case, both block sizes.
void runPlanes(bool quick, std::mt19937& rng) {
    constexpr int kW = cuda::kFftPlaneThreads, kWide = cuda::kFftPlaneWideThreads;
    runPlane<float>(32, 32, 12, 7, 9, 2, 3, true, 0, kW, rng);
    runPlane<float>(48, 48, 24, 12, 13, 1, 2, true, 1, kWide, rng);
    runPlane<float>(64, 64, 16, 8, 17, 1, 3, false, 3, kW, rng);
    runPlane<__half>(48, 48, 24, 12, 13, 2, 1, true, 5, kW, rng);
    runPlane<__nv_bfloat16>(64, 64, 12, 6, 7, 1, 2, true, 1, kWide, rng);
    if (quick) return;
    runPlane<float>(32, 32, 32, 32, 17, 1, 2, true, 0, kWide, rng);     // every leading mode, Nyquist
    runPlane<float>(64, 64, 5, 0, 1, 2, 2, false, 0, kW, rng);          // high block only, one bin
    runPlane<float>(64, 64, 64, 40, 33, 1, 1, true, 1, kWide, rng);     // the full plane
    runPlane<float>(48, 48, 10, 10, 25, 1, 3, false, 5, kW, rng, 1);    // low only, Nyquist, unaligned
    runPlane<__half>(64, 64, 24, 12, 13, 1, 2, true, 3, kWide, rng, 1);
    runPlane<__nv_bfloat16>(32, 32, 8, 4, 5, 3, 1, false, 0, kW, rng);
}

}  // namespace

int main(int argc, char** argv) {
    // the kernels at every fftLength axis (the planner's FFT-vs-DFT rule, fftRowsPay, is test_cuda_plan's); the
    // row FFTs also at 4096 / 8192 points, where the planner now runs the four-step FFT (runLong forces that one)
    cuda::setFftPassOverride(1);
    cuda::setFftLongOverride(0);
    bool quick = false, mixedOnly = false, tiny = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--mixed") mixedOnly = true;
        else if (a == "--tiny") tiny = true;
        else {
            std::printf("usage: fft_host_emu [--quick] [--mixed] [--tiny]\n");
            return 2;
        }
    }
    std::mt19937 rng(1234);
    // column FFTs: powers of two, mixed and odd lengths, asymmetric low / high blocks, a partial last
    // column tile (inner 7 or 12 of W), 3D (the middle axis: inner kd; the first: inner K_1 kd)
    runColumns({64, 16}, {24, 7}, {10, 7}, 2, 3, rng);
    runColumns({45, 10}, {20, 6}, {10, 6}, 1, 5, rng);
    if (!tiny) {
        runColumns({256, 64}, {64, 32}, {32, 32}, 1, 2, rng);
        runColumns({250, 16}, {80, 9}, {40, 9}, 1, 3, rng);
        runColumns({48, 48, 24}, {24, 24, 12}, {12, 12, 12}, 1, 2, rng);
        runColumns({96, 16, 16}, {32, 16, 9}, {16, 8, 9}, 1, 2, rng);
        runColumns({8, 1024}, {8, 3}, {4, 3}, 1, 2, rng);
        runColumns({1024, 8}, {64, 5}, {32, 5}, 1, 1, rng);
        // the other lengths with a compile-time column kernel (kFftColumnStaticRadices)
        runColumns({32, 12}, {16, 5}, {8, 5}, 1, 3, rng);
        runColumns({128, 40}, {48, 17}, {24, 17}, 2, 1, rng);
        runColumns({180, 9}, {40, 5}, {20, 5}, 1, 2, rng);
        runColumns({192, 24}, {40, 12}, {21, 12}, 1, 2, rng);
        runColumns({384, 16}, {96, 7}, {48, 7}, 1, 1, rng);
        runColumns({512, 10}, {64, 4}, {31, 4}, 1, 1, rng);
        for (unsigned r : cuda::kFftColumnStaticRadices)
            if (!gColumnListsRun.count(r)) {
                ++failures;
                std::printf("FAIL: no column case ran the compile-time kernel of radix list %#x\n", r);
            }
    }
    runStatic(rng);
    runPlanes(quick || tiny, rng);
    cuda::setMixInC2ROverride(1);  // wherever the kernel can run it (the planner's rule is test_cuda_plan's)
    runMixC2RCases(quick || tiny, rng);
    runPlaneMixes(quick || tiny, rng);
    cuda::setMixInC2ROverride(-1);
    // the four-step long-axis FFT (Na = 4 kd up to 256, else 2 kd): 8192 m32 (Na 128), mixed Na (30720 m20: 80,
    // run-time stages), 65536 m64 (Na 256), kd = Na / 2 = 256 (Na 512, one group per bin, 16-column blocks),
    // kd 1 (Na 32), 24576 m100 (Na 256, 2 groups per bin), 16384 m16 (Na 64); few lines: 16-column blocks
    runLong(8192, 32, 1, 2, true, rng);
    runLong(30720, 20, 1, 1, false, rng);
    if (!tiny) {
        runLong(65536, 64, 1, 2, false, rng);
        runLong(16384, 256, 1, 1, false, rng);
        runLong(4096, 1, 2, 3, true, rng);
        runLong(24576, 100, 1, 1, false, rng);
        runLong(16384, 16, 2, 1, false, rng);
    }
    if (tiny) {
        for (int S : {10, 48, 180, 256}) run1D(S, true, rng, true);
        run2D(12, rng, true);
        std::printf("fft_host_emu --tiny: %d checks, %d failures, %lld blocks run; worst fp32 rel-L2 %.3e\n", checks, failures,
                    cuda::gEmuBlocks, worstF32);
        return failures ? 1 : 0;
    }
    if (!mixedOnly) {
        // power of two (fftStages: 8: 4 | 16: 8 | 32: 16 | 64: 16 2 | 128: 16 4 | 256: 16 8 | 512: 16 16 |
        // 1024: 16 16 2 | 4096: 16 16 8 | 8192: 16 16 16, one line per block, 82 KB opted in): up to
        // kFftMaxLen, the planner's limit
        for (int S : {8, 16, 32, 64, 128, 256, 512, 1024, 4096, 8192})
            if (!quick || S == 8 || S == 16 || S == 32 || S == 64 || S == 256 || S == 4096 || S == 8192) run1D(S, quick, rng);
        for (int S : {16, 128, 2048}) run2D(S, rng);
    }
    // S = 2 * 2^a 3^b 5^c, not a power of two. N2 = S / 2 and its stages (fftStages):
    // 10: 5 | 12: 3 2 | 18: 3 3 (odd) | 30: 3 5 (odd) | 48: 3 4 2 | 96: 3 4 4 | 180: 3 3 5 2 | 250: 5 5 5 (odd) |
    // 360: 3 3 5 4 | 384: 3 4 4 4 | 720: 3 3 5 4 2 | 1000: 5 5 5 4 | 1458: 3^6 (odd) | 1536: 3 4 4 4 4 2 |
    // 2916: 3^6 2 (7 stages) | 3840: 3 5 4 4 4 2 | 4050: 3 3 3 3 5 5 (odd) | 7680: 3 5 4 4 4 4 (one line, opted in)
    checkMixDiv(quick);
    checkMixRoot();
    const int mixedSizes[] = {10, 12, 18, 30, 48, 96, 180, 250, 360, 384, 720, 1000, 1458, 1536, 2916, 3840, 4050, 7680};
    for (int S : mixedSizes) {
        if (quick && S != 10 && S != 18 && S != 48 && S != 180 && S != 250 && S != 2916 && S != 4050) continue;
        run1D(S, quick, rng);
    }
    for (int S : {12, 180, 1000}) {
        if (quick && S == 1000) continue;
        run2D(S, rng);
    }
    std::printf("fft_host_emu: %d checks, %d failures, %lld blocks run; worst fp32 rel-L2 %.3e\n", checks, failures,
                cuda::gEmuBlocks, worstF32);
    return failures ? 1 : 0;
}
