// Standalone correctness test of core::runCpu against the shared float64 direct-DFT reference
// (reference_layer.h, no FFT library): random inputs, odd / non-power-of-two sizes, d = 1..3, dense and separable,
// with and without bias, with and without the fused skip weight and every activation, fp32 / fp16 / bf16,
// several thread counts, and bad-input errors.
// Exit code 0 when every case passes. TURBOFNO_CPU_ISA=portable|avx2|avx512 picks the kernels.
// Build from the repository root (or link turbofno_core from CMake):
//   g++ -std=c++17 -O2 -Iplugins/include -Iplugins/src plugins/src/validate.cpp plugins/cpu/*.cpp
//       tests/cpp/test_cpu_kernel.cpp -o test_cpu_kernel -lpthread
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "../../plugins/cpu/half.h"
#include "../../plugins/cpu/kernels.h"
#include "../../plugins/cpu/last_axis.h"
#include "../../plugins/cpu/plan.h"
#include "turbofno/cpu.h"
#include "reference_layer.h"
#include "test_support.h"

using namespace turbofno;
using core::DataType;

namespace {

struct Case {
    std::string name;
    int d;
    int64_t n, cin, cout;
    std::vector<int64_t> S;
    std::vector<int32_t> low, high;
    bool separable, bias;
    DataType dtype;
    int threads;
    std::vector<int64_t> T = {};  // output_size (empty: absent, output size = S)
    bool skip = false;  // fused 1x1 skip weight [Cout, Cin]
    int act = 0;        // core::Activation
};

double roundTo(double v, DataType t) {
    const float f = static_cast<float>(v);
    if (t == DataType::kFloat16) return cpu::halfToFloat(cpu::floatToHalf(f));
    if (t == DataType::kBFloat16) return cpu::bf16ToFloat(cpu::floatToBf16(f));
    return f;
}

// The shared float64 direct-DFT reference (tests/cpp/reference_layer.h) for one case.
std::vector<double> reference(const Case& c, int norm, const std::vector<double>& x, const std::vector<double>& w,
                              const std::vector<double>& b, const std::vector<double>& skip) {
    turbofno_test::RefProblem p;
    p.rank = c.d;
    p.n = c.n;
    p.cin = c.cin;
    p.cout = c.cout;
    for (int j = 0; j < c.d; ++j) {
        p.s[j] = c.S[j];
        p.modesLow[j] = c.low[j];
        p.modesHigh[j] = c.high[j];
    }
    for (size_t j = 0; j < c.T.size(); ++j) p.t[j] = c.T[j];
    p.norm = norm;
    p.separable = c.separable;
    p.hasBias = c.bias;
    p.hasSkip = c.skip;
    p.activation = c.act;
    return turbofno_test::referenceSpectralConv(p, x, w, b, skip);
}

// Typed buffer holding values of `dtype`, filled from doubles.
struct Tensor {
    std::vector<float> f32;
    std::vector<uint16_t> f16;
    DataType type;
    Tensor(const std::vector<double>& v, DataType t) : type(t) {
        if (t == DataType::kFloat32) {
            f32.assign(v.begin(), v.end());
        } else {
            for (double e : v)
                f16.push_back(t == DataType::kFloat16 ? cpu::floatToHalf(static_cast<float>(e))
                                                      : cpu::floatToBf16(static_cast<float>(e)));
        }
    }
    void* data() { return type == DataType::kFloat32 ? static_cast<void*>(f32.data()) : static_cast<void*>(f16.data()); }
    double at(size_t i) const {
        if (type == DataType::kFloat32) return f32[i];
        return type == DataType::kFloat16 ? cpu::halfToFloat(f16[i]) : cpu::bf16ToFloat(f16[i]);
    }
};

bool runCase(const Case& c, std::mt19937& rng) {
    const int d = c.d;
    core::SpectralConvAttrs attrs;
    attrs.rank = d;
    for (int j = 0; j < d; ++j) {
        attrs.modesLow[j] = c.low[j];
        attrs.modesHigh[j] = c.high[j];
    }
    attrs.norm = static_cast<core::FftNorm>(rng() % 3);  // changes the scale only when T != S
    attrs.separable = c.separable ? 1 : 0;
    attrs.outputRank = static_cast<int32_t>(c.T.size());
    for (size_t j = 0; j < c.T.size(); ++j) attrs.outputSize[j] = static_cast<int32_t>(c.T[j]);
    attrs.activation = static_cast<core::Activation>(c.act);
    std::vector<int64_t> xDims = {c.n, c.cin}, wDims = {c.cin, c.separable ? 1 : c.cout}, bDims = {c.cout};
    int64_t P = 1, Kt = 1, Pout = 1;
    const int64_t sDims[] = {c.cout, c.cin};
    for (int j = 0; j < d; ++j) {
        xDims.push_back(c.S[j]);
        wDims.push_back(c.low[j] + c.high[j]);
        P *= c.S[j];
        Pout *= c.T.empty() ? c.S[j] : c.T[j];
        Kt *= c.low[j] + c.high[j];
    }
    wDims.push_back(2);
    core::SpectralConvShape shape;
    core::Status st = core::validateAttrs(attrs, d, d);
    int64_t yDims[5] = {};
    if (st.ok) {
        st = core::inferShape(attrs, xDims.data(), d + 2, wDims.data(), d + 3, c.bias ? bDims.data() : nullptr,
                              c.bias ? 1 : 0, &shape,
                              c.skip ? sDims : nullptr, c.skip ? 2 : 0);
        core::outputDims(shape, yDims);
        for (int j = 0; st.ok && j < d; ++j)
            if (yDims[2 + j] != (c.T.empty() ? c.S[j] : c.T[j])) st = core::Status::error("outputDims: wrong spatial size");
    }
    if (!st.ok) {
        std::printf("FAIL %-34s inferShape: %s\n", c.name.c_str(), st.message.c_str());
        return false;
    }

    std::uniform_real_distribution<double> uni(-1.0, 1.0);
    auto randVec = [&](int64_t n) {
        std::vector<double> v(n);
        for (auto& e : v) e = roundTo(uni(rng), c.dtype);  // reference sees exactly the stored values
        return v;
    };
    const std::vector<double> x = randVec(c.n * c.cin * P);
    const std::vector<double> w = randVec(c.cin * (c.separable ? 1 : c.cout) * Kt * 2);
    const std::vector<double> b = randVec(c.cout);
    std::vector<double> sk = randVec(c.cout * c.cin);
    for (auto& e : sk) e = roundTo(e / std::sqrt(static_cast<double>(c.cin)), c.dtype);
    Tensor tx(x, c.dtype), tw(w, c.dtype), tb(b, c.dtype), ts(sk, c.dtype);
    Tensor ty(std::vector<double>(c.n * c.cout * Pout, NAN), c.dtype);  // poisoned: every element must be written

    core::SpectralConvParams params;
    params.attrs = attrs;
    params.shape = shape;
    params.dtype = c.dtype;
    params.x = tx.data();
    params.weight = tw.data();
    params.bias = c.bias ? tb.data() : nullptr;
    params.skipWeight = c.skip ? ts.data() : nullptr;
    params.y = ty.data();
    const size_t bytes = core::cpuWorkspaceBytes(shape, c.threads);
    std::vector<unsigned char> ws(bytes + 3);
    st = core::runCpu(params, ws.data() + 3, bytes, c.threads);  // deliberately misaligned workspace
    if (!st.ok) {
        std::printf("FAIL %-34s runCpu: %s\n", c.name.c_str(), st.message.c_str());
        return false;
    }
    const std::vector<double> ref = reference(c, static_cast<int>(attrs.norm), x, w, b, sk);
    if (ref.size() != static_cast<size_t>(c.n * c.cout * Pout)) {
        std::printf("FAIL %-34s reference size\n", c.name.c_str());
        return false;
    }
    double num = 0, den = 0, maxAbs = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double e = ty.at(i) - ref[i];
        if (!std::isfinite(ty.at(i))) num = INFINITY;
        num += e * e;
        den += ref[i] * ref[i];
        maxAbs = std::max(maxAbs, std::fabs(e));
    }
    const double rel = std::sqrt(num / den);
    const double tol = c.dtype == DataType::kFloat32 ? 2e-6 : c.dtype == DataType::kFloat16 ? 2e-3 : 1.5e-2;
    const bool ok = rel <= tol;
    std::printf("%s %-34s rel_l2 %.2e (tol %.0e) max_abs %.2e\n", ok ? "ok  " : "FAIL", c.name.c_str(), rel, tol, maxAbs);
    return ok;
}

// The selected table's quadFold / quadUnfold (kernels.h) against the portable ones, every range
// [lo, hi) with 0 < lo < hi <= (L + 1) / 2 of a few even S (vector bodies and tails, both parities of L).
bool quadKernels(std::mt19937& rng) {
    const cpu::CpuKernels& k = cpu::cpuKernels();
    const cpu::CpuKernels ref = cpu::portableKernels();
    std::uniform_real_distribution<float> uni(-1, 1);
    int bad = 0, runs = 0;
    for (int64_t S : {8, 10, 12, 30, 36, 70, 72, 132, 134}) {
        const int64_t L = S / 2, proper = (L + 1) / 2;
        std::vector<float> x(S);
        for (auto& v : x) v = uni(rng);
        for (int64_t lo = 1; lo < proper; ++lo)
            for (int64_t hi = lo + 1; hi <= proper; ++hi) {
                const int64_t n = 2 * (hi - lo);
                std::vector<float> e(n + 8, 7.0f), o(n + 8, 7.0f), e2(n + 8, 7.0f), o2(n + 8, 7.0f);
                k.quadFold(x.data(), S, lo, hi, e.data(), o.data());
                ref.quadFold(x.data(), S, lo, hi, e2.data(), o2.data());
                std::vector<float> y(S, 9.0f), y2(S, 9.0f);
                k.quadUnfold(e.data(), o.data(), S, lo, hi, 0.25f, y.data());
                ref.quadUnfold(e2.data(), o2.data(), S, lo, hi, 0.25f, y2.data());
                bad += e != e2 || o != o2 || y != y2;  // same arithmetic: bit for bit, untouched beyond
                ++runs;
            }
    }
    std::printf("%s quadFold / quadUnfold (%s) vs portable: %d of %d ranges differ\n", bad ? "FAIL" : "ok  ",
                k.name, bad, runs);
    return bad == 0;
}

// The planner's last-axis rule (last_axis.h): quad only on top of the pairing, only where the fold
// applies (even length, >= 8), by the measured rule unless TURBOFNO_CPU_LAST_FOLD overrides it.
bool foldRule() {
    auto plan = [](std::vector<int64_t> S, int32_t k, int64_t T, bool skip, int64_t cout) {
        core::SpectralConvAttrs a;
        a.rank = static_cast<int32_t>(S.size());
        std::vector<int64_t> x = {1, 4}, w = {4, cout};
        for (size_t j = 0; j < S.size(); ++j) {
            a.modesLow[j] = j + 1 < S.size() ? 1 : k;
            x.push_back(S[j]);
            w.push_back(a.modesLow[j]);
        }
        w.push_back(2);
        if (T > 0) {
            a.outputRank = a.rank;
            for (size_t j = 0; j < S.size(); ++j) a.outputSize[j] = static_cast<int32_t>(j + 1 < S.size() ? S[j] : T);
        }
        core::SpectralConvShape shape;
        core::inferShape(a, x.data(), a.rank + 2, w.data(), a.rank + 3, nullptr, 0, &shape);
        shape.hasSkip = skip;
        return cpu::makeCpuPlan(shape, false, DataType::kFloat32, 1);
    };
    const cpu::FoldOverride o = cpu::foldOverride();
    auto expect = [o](int64_t n, int64_t k, bool paired) {
        if (!paired || n % 2 || n < 8 || k < 2 || o == cpu::FoldOverride::kPair) return false;
        return o == cpu::FoldOverride::kQuad || (n >= 128 && k >= 16);  // the measured rule (last_axis.h)
    };
    struct R { std::vector<int64_t> S; int32_t k; int64_t T; bool skip; int64_t cout; };
    const R rules[] = {{{4096}, 64, 0, false, 4},  {{4094}, 64, 0, false, 4}, {{4095}, 64, 0, false, 4},
                       {{1024}, 24, 0, false, 4},  {{1024}, 23, 0, false, 4}, {{1022}, 64, 0, false, 4},
                       {{4096}, 16, 0, false, 4},  {{4096}, 9, 0, false, 4},  {{4096}, 8, 0, false, 4},
                       {{64}, 24, 0, false, 4},    {{20}, 9, 0, false, 4},    {{128}, 16, 0, false, 4},
                       {{126}, 16, 0, false, 4},   {{256}, 15, 0, false, 4},  {{128}, 32, 0, true, 16},    {{6, 2048}, 32, 0, false, 4},
                       {{2, 3, 1030}, 26, 0, false, 4}, {{4096}, 64, 1001, false, 4}, {{1001}, 64, 2048, false, 4},
                       {{2048}, 32, 0, true, 8},   {{2048}, 10, 0, true, 8},  {{16384}, 32, 0, true, 64}};
    int bad = 0;
    for (const R& r : rules) {
        const cpu::CpuPlan p = plan(r.S, r.k, r.T, r.skip, r.cout);
        const int64_t S = r.S.back(), T = r.T > 0 ? r.T : S;
        const bool wantF = expect(S, r.k, p.pairFwd), wantI = expect(T, r.k, p.pairInv);
        if (p.quadFwd != wantF || p.quadInv != wantI || (p.quadFwd && !p.pairFwd) || (p.quadInv && !p.pairInv)) {
            std::printf("FAIL fold rule S=%lld T=%lld k=%d skip=%d: quad %d/%d, expected %d/%d\n",
                        static_cast<long long>(S), static_cast<long long>(T), r.k, r.skip, p.quadFwd, p.quadInv, wantF,
                        wantI);
            ++bad;
        }
    }
    // the default rule itself (no override): on at 4x32x4096 m64, off below its thresholds
    const bool ruleOk = cpu::quadRule(4096, 64) && cpu::quadRule(65536, 64) && cpu::quadRule(128, 16) &&
                        !cpu::quadRule(126, 64) && !cpu::quadRule(4096, 15);
    std::printf("%s fold rule: %d plan(s) differ from the rule (override %d)\n", bad || !ruleOk ? "FAIL" : "ok  ", bad,
                static_cast<int>(o));
    return bad == 0 && ruleOk;
}

// Bad calls must return an error, never crash.
bool errorCases() {
    core::SpectralConvAttrs attrs;
    attrs.rank = 1;
    attrs.modesLow[0] = 3;
    core::SpectralConvShape shape;
    const int64_t xDims[] = {1, 2, 8}, wDims[] = {2, 2, 3, 2};
    if (!core::inferShape(attrs, xDims, 3, wDims, 4, nullptr, 0, &shape).ok) return false;
    std::vector<float> x(16, 1.0f), w(24, 1.0f), y(16);
    core::SpectralConvParams params;
    params.attrs = attrs;
    params.shape = shape;
    params.x = x.data();
    params.weight = w.data();
    params.y = y.data();
    const size_t bytes = core::cpuWorkspaceBytes(shape, 2);
    std::vector<unsigned char> ws(bytes);
    bool ok = true;
    auto expectError = [&](const char* what, const core::Status& s) {
        std::printf("%s error case: %-26s -> %s\n", s.ok ? "FAIL" : "ok  ", what, s.ok ? "accepted" : s.message.c_str());
        ok = ok && !s.ok;
    };
    expectError("workspace too small", core::runCpu(params, ws.data(), bytes - 65, 2));
    expectError("null workspace", core::runCpu(params, nullptr, 0, 2));
    core::SpectralConvParams noY = params;
    noY.y = nullptr;
    expectError("null output", core::runCpu(noY, ws.data(), bytes, 2));
    core::SpectralConvParams badBias = params;
    badBias.shape.hasBias = true;
    expectError("bias missing", core::runCpu(badBias, ws.data(), bytes, 2));
    core::SpectralConvParams badSkip = params;
    badSkip.shape.hasSkip = true;
    expectError("skip weight missing", core::runCpu(badSkip, ws.data(), core::cpuWorkspaceBytes(badSkip.shape, 2), 2));
    expectError("skip workspace too small", core::runCpu(badSkip, ws.data(), bytes, 2));
    core::SpectralConvParams badAct = params;
    badAct.attrs.activation = static_cast<core::Activation>(6);
    expectError("activation out of range", core::runCpu(badAct, ws.data(), bytes, 2));
    {  // 1D, 2^30 samples, every mode kept: the tables alone would be ~2^62 bytes
        core::SpectralConvAttrs big;
        big.rank = 1;
        big.modesLow[0] = (1 << 29) + 1;
        core::SpectralConvShape bigShape;
        const int64_t bx[] = {1, 1, int64_t{1} << 30}, bw[] = {1, 1, (int64_t{1} << 29) + 1, 2};
        if (core::inferShape(big, bx, 3, bw, 4, nullptr, 0, &bigShape).ok) {
            core::SpectralConvParams bp = params;
            bp.attrs = big;
            bp.shape = bigShape;
            const size_t bigBytes = core::cpuWorkspaceBytes(bigShape, 2);
            std::printf("%s error case: %-26s -> workspace bytes %s\n", bigBytes == SIZE_MAX ? "ok  " : "FAIL",
                        "huge tables", bigBytes == SIZE_MAX ? "SIZE_MAX" : std::to_string(bigBytes).c_str());
            ok = ok && bigBytes == SIZE_MAX;
            expectError("huge tables", core::runCpu(bp, ws.data(), bytes, 2));
        }
    }
    const core::Status good = core::runCpu(params, ws.data(), bytes, 2);
    std::printf("%s error case: %-26s -> %s\n", good.ok ? "ok  " : "FAIL", "valid call", good.ok ? "accepted" : good.message.c_str());
    return ok && good.ok;
}

// The documented size limit (docs/op.md, "CPU limits"): the bound counts 4 S k floats of 1D tables
// (the paired tables take about half of that, the quad ones a quarter), the whole plan at most 2^32
// floats. S = 131072 runs with k = 8000 (~3.9 GiB with the quad tables, ~7.8 GiB paired; sized but not
// allocated here) and is refused from k = 8193 (the bound's
// tables alone over 2^32 floats), with the documented message.
bool sizeLimit() {
    auto bytesFor = [](int64_t S, int32_t k, core::SpectralConvShape* shape) {
        core::SpectralConvAttrs a;
        a.rank = 1;
        a.modesLow[0] = k;
        const int64_t x[] = {1, 1, S}, w[] = {1, 1, k, 2};
        if (!core::inferShape(a, x, 3, w, 4, nullptr, 0, shape).ok) return size_t{0};
        return core::cpuWorkspaceBytes(*shape, 1);
    };
    core::SpectralConvShape inside, outside;
    const size_t in = bytesFor(131072, 8000, &inside), out = bytesFor(131072, 8193, &outside);
    // the second fold (last_axis.h, quad) halves the last-axis tables again: 3.5-4.5 GiB
    const bool quad = cpu::quadForward(131072, 8000);
    const size_t lo = quad ? size_t{7} << 29 : size_t{7} << 30, hi = quad ? size_t{9} << 29 : size_t{8} << 30;
    const bool okIn = in != SIZE_MAX && in > lo && in < hi;
    std::printf("%s limit: 1D S=131072 k=8000 -> %zu workspace bytes (%s)\n", okIn ? "ok  " : "FAIL", in,
                quad ? "3.5-4.5 GiB, quad" : "7-8 GiB, paired");
    core::SpectralConvParams p;
    p.shape = outside;
    p.attrs.rank = 1;
    p.attrs.modesLow[0] = 8193;
    float dummy = 0;
    p.x = p.weight = &dummy;
    p.y = &dummy;
    const core::Status st = core::runCpu(p, &dummy, 4, 1);
    const bool okOut = out == SIZE_MAX && !st.ok && st.message.find("exceeds the limit of 2^32 floats (16 GiB)") != std::string::npos;
    std::printf("%s limit: 1D S=131072 k=8193 -> %s; runCpu: %s\n", okOut ? "ok  " : "FAIL",
                out == SIZE_MAX ? "SIZE_MAX" : std::to_string(out).c_str(), st.message.c_str());
    return okIn && okOut;
}

// The selected kernel table's fp16 conversions agree with the scalar reference (half.h) bit for
// bit: every half value, and floats of every magnitude (subnormal results, rounding ties, overflow).
bool halfConversions(uint32_t seed) {
    const cpu::CpuKernels& k = cpu::cpuKernels();
    std::vector<uint16_t> all(65536);
    for (int i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
    std::vector<float> f(65536);
    k.halfToFloat(all.data(), 65536, f.data());
    int bad = 0;
    for (int i = 0; i < 65536; ++i) {
        const float ref = cpu::halfToFloat(all[i]);
        if (!(std::isnan(ref) ? std::isnan(f[i]) : std::memcmp(&ref, &f[i], 4) == 0)) ++bad;
    }
    std::mt19937 rng(seed);
    std::vector<float> src;
    for (int e = -30; e <= 17; ++e)
        for (int r = 0; r < 200; ++r) {
            const float m = 1.0f + static_cast<float>(rng() % 2048) / 2048.0f + (r % 2 ? 1.0f / 4096.0f : 0.0f);
            src.push_back(std::ldexp(r % 3 ? m : -m, e));
        }
    for (float v : {0.0f, -0.0f, 65504.0f, 65519.0f, 65520.0f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN, 5.96e-8f, 2.98e-8f})
        src.push_back(v);
    std::vector<uint16_t> h(src.size());
    k.floatToHalf(src.data(), static_cast<int64_t>(src.size()), h.data());
    for (size_t i = 0; i < src.size(); ++i) {
        const uint16_t ref = cpu::floatToHalf(src[i]);
        const bool nan = (ref & 0x7c00) == 0x7c00 && (ref & 0x3ff);
        if (nan ? !((h[i] & 0x7c00) == 0x7c00 && (h[i] & 0x3ff)) : h[i] != ref) ++bad;
    }
    std::printf("%s fp16 conversions of the %s kernels match the scalar reference (%d mismatches)\n",
                bad ? "FAIL" : "ok  ", k.name, bad);
    return bad == 0;
}

// The selected table's activations against float64 over [-30, 30] and a few huge values; NaN in,
// NaN out. Bound: |error| <= tol |ref| + 1e-11 everywhere, near zero as well (the formulas avoid
// cancellation); tol = 5e-7 for silu / tanh, 2.5e-6 for the gelus, whose negative tails are
// e^{-(argument ~ 10)}: the fp32 rounding of that argument alone is ~1e-6 relative. The absolute
// term covers the far gelu tails (|ref| < 1e-6 for v < -5). relu is exact.
bool activationAccuracy() {
    const cpu::CpuKernels& k = cpu::cpuKernels();
    std::vector<float> v;
    for (int i = -30000; i <= 30000; ++i) v.push_back(static_cast<float>(i) * 1e-3f);
    for (float e : {1e-7f, -1e-7f, 1e-20f, -1e-20f, 0.0f, -0.0f, 80.0f, -80.0f, 1e4f, -1e4f, 3e38f, -3e38f}) v.push_back(e);
    const int64_t n = static_cast<int64_t>(v.size());
    bool ok = true;
    for (int act = 0; act < 6; ++act) {
        std::vector<float> out(v.size() + 1, 12345.0f);
        k.activation(v.data(), out.data(), n, act);
        double worst = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double ref = turbofno_test::referenceActivation(v[i], act);
            const double err = std::max(0.0, std::fabs(out[i] - ref) - 1e-11) / std::max(std::fabs(ref), 1e-300);
            worst = std::max(worst, std::isfinite(out[i]) ? err : INFINITY);
        }
        std::vector<float> inPlace = v, nan = {NAN, 1.0f};
        k.activation(inPlace.data(), inPlace.data(), n, act);
        k.activation(nan.data(), nan.data(), 1, act);
        const bool same = std::memcmp(inPlace.data(), out.data(), v.size() * sizeof(float)) == 0;
        const double tol = (act == 1 || act == 2) ? 2.5e-6 : 5e-7;
        const bool good = worst <= tol && same && std::isnan(nan[0]) && nan[1] == 1.0f && out[v.size()] == 12345.0f;
        std::printf("%s activation %d (%s kernels): worst relative error %.2e, in place %s, NaN %s\n", good ? "ok  " : "FAIL",
                    act, k.name, worst, same ? "same" : "DIFFERS", std::isnan(nan[0]) ? "kept" : "LOST");
        ok = ok && good;
    }
    return ok;
}

// Runs one fixed 2D case and returns its output (fp32).
std::vector<float> runFixed(int threads, uint32_t seed) {
    core::SpectralConvAttrs attrs;
    attrs.rank = 2;
    attrs.modesLow[0] = 5;
    attrs.modesHigh[0] = 4;
    attrs.modesLow[1] = 7;
    core::SpectralConvShape shape;
    const int64_t xd[] = {3, 6, 30, 26}, wd[] = {6, 5, 9, 7, 2}, bd[] = {5};
    if (!core::inferShape(attrs, xd, 4, wd, 5, bd, 1, &shape).ok) return {};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    std::vector<float> x(3 * 6 * 30 * 26), w(6 * 5 * 9 * 7 * 2), b(5), y(3 * 5 * 30 * 26);
    for (auto* v : {&x, &w, &b})
        for (auto& e : *v) e = uni(rng);
    core::SpectralConvParams p;
    p.attrs = attrs;
    p.shape = shape;
    p.x = x.data();
    p.weight = w.data();
    p.bias = b.data();
    p.y = y.data();
    std::vector<unsigned char> ws(core::cpuWorkspaceBytes(shape, threads));
    if (!core::runCpu(p, ws.data(), ws.size(), threads).ok) return {};
    return y;
}

// runCpu from several threads at once (no caller waits for another) and after fork() (the child
// must not wait for the parent's workers): same results as a plain call.
bool concurrencyAndFork(uint32_t seed) {
    const uint32_t s0 = seed + 11, s1 = seed + 12;
    const std::vector<float> expect0 = runFixed(1, s0), expect1 = runFixed(1, s1);
    bool ok = !expect0.empty();
    std::vector<std::thread> callers;
    std::vector<int> good(6, 0);
    for (int t = 0; t < 6; ++t)
        callers.emplace_back([&, t] {
            for (int rep = 0; rep < 5; ++rep) {
                const std::vector<float> y = runFixed(2 + t % 2, t % 2 ? s1 : s0);
                good[t] += (y == (t % 2 ? expect1 : expect0)) ? 1 : 0;
            }
        });
    for (auto& c : callers) c.join();
    for (int g : good) ok = ok && g == 5;
    std::printf("%s concurrent runCpu calls from 6 threads (bitwise equal to a single-thread run)\n", ok ? "ok  " : "FAIL");
    const pid_t pid = fork();
    if (pid == 0) _exit(runFixed(2, s0) == expect0 ? 0 : 1);
    int status = 1;
    const bool forkOk = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::printf("%s runCpu with 2 threads in a forked child\n", forkOk ? "ok  " : "FAIL");
    return ok && forkOk;
}

}  // namespace

int main() {
    const DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16, bf16 = DataType::kBFloat16;
    const std::vector<Case> cases = {
        {"1d odd S=37 k=7", 1, 2, 3, 5, {37}, {7}, {0}, false, true, f32, 1},
        {"1d S=16 k=9 (Nyquist)", 1, 2, 3, 2, {16}, {9}, {0}, false, false, f32, 3},
        {"1d many channels", 1, 3, 70, 33, {50}, {20}, {0}, false, true, f32, 2},
        {"1d separable", 1, 2, 6, 6, {21}, {11}, {0}, true, true, f32, 2},
        {"2d 12x10 Nyquist", 2, 2, 3, 4, {12, 10}, {3, 6}, {2, 0}, false, true, f32, 2},
        {"2d odd 15x21", 2, 1, 5, 3, {15, 21}, {4, 5}, {4, 0}, false, false, f32, 4},
        {"2d high block only", 2, 2, 3, 3, {11, 9}, {0, 3}, {3, 0}, false, true, f32, 2},
        {"2d all modes 8x8", 2, 1, 2, 3, {8, 8}, {4, 5}, {4, 0}, false, true, f32, 1},
        {"2d separable 9x14", 2, 2, 4, 4, {9, 14}, {2, 4}, {3, 0}, true, true, f32, 2},
        {"2d 40x36 16->24 ch", 2, 2, 16, 24, {40, 36}, {8, 12}, {8, 0}, false, true, f32, 2},
        {"2d 24x48 modes 8 (classic)", 2, 3, 8, 8, {24, 48}, {8, 8}, {8, 0}, false, true, f32, 3},
        {"3d 6x5x7", 3, 2, 2, 3, {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, false, true, f32, 2},
        {"3d 8x6x10 separable Nyquist", 3, 1, 3, 3, {8, 6, 10}, {2, 1, 6}, {2, 1, 0}, true, false, f32, 2},
        {"3d 7x9x12 4->5 ch", 3, 2, 4, 5, {7, 9, 12}, {3, 2, 4}, {2, 3, 0}, false, true, f32, 3},
        {"2d batch 10 (blocked mixing)", 2, 10, 5, 7, {12, 10}, {3, 6}, {2, 0}, false, true, f32, 2},
        {"3d batch 9 (blocked mixing)", 3, 9, 3, 4, {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, false, false, f32, 3},
        {"2d tiny 2x1", 2, 1, 2, 3, {2, 1}, {1, 1}, {1, 0}, false, true, f32, 2},
        {"3d tiny 1x2x2", 3, 2, 2, 2, {1, 2, 2}, {1, 1, 2}, {0, 1, 0}, false, true, f32, 2},
        {"1d S=2 and S=3", 1, 3, 2, 2, {3}, {2}, {0}, false, true, f32, 1},
        {"fp16 2d 12x10", 2, 2, 3, 4, {12, 10}, {3, 6}, {2, 0}, false, true, f16, 2},
        {"fp16 3d 6x5x7", 3, 2, 2, 3, {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, false, true, f16, 1},
        {"fp16 1d separable", 1, 2, 6, 6, {21}, {11}, {0}, true, true, f16, 2},
        {"bf16 2d 9x14", 2, 2, 4, 3, {9, 14}, {2, 4}, {3, 0}, false, true, bf16, 2},
        // output_size (resampling): up, down, mixed, odd, Nyquist of T, high block cut off by T
        {"out 1d 16->40", 1, 2, 3, 4, {16}, {9}, {0}, false, true, f32, 2, {40}},
        {"out 1d 37->12 (bins cut)", 1, 2, 3, 4, {37}, {10}, {0}, false, true, f32, 1, {12}},
        {"out 1d 20->7 Nyquist/odd", 1, 1, 2, 3, {20}, {6}, {0}, false, false, f32, 2, {7}},
        {"out 2d 12x10->24x20", 2, 2, 3, 4, {12, 10}, {3, 4}, {2, 0}, false, true, f32, 2, {24, 20}},
        {"out 2d 16x16->8x9", 2, 2, 3, 2, {16, 16}, {3, 5}, {3, 0}, false, true, f32, 3, {8, 9}},
        {"out 2d 15x21->31x10", 2, 1, 4, 3, {15, 21}, {4, 5}, {4, 0}, false, true, f32, 2, {31, 10}},
        {"out 2d 14x9->13x9 sep", 2, 2, 4, 4, {14, 9}, {2, 3}, {3, 0}, true, true, f32, 2, {13, 9}},
        {"out 3d 6x5x7->9x4x12", 3, 2, 2, 3, {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, false, true, f32, 2, {9, 4, 12}},
        {"out 3d 8x6x10->4x12x6", 3, 1, 3, 2, {8, 6, 10}, {2, 1, 4}, {2, 1, 0}, false, false, f32, 3, {4, 12, 6}},
        {"out fp16 2d 12x10->6x17", 2, 2, 3, 4, {12, 10}, {3, 6}, {2, 0}, false, true, f16, 2, {6, 17}},
        {"out bf16 1d 21->42", 1, 2, 3, 4, {21}, {11}, {0}, false, true, bf16, 1, {42}},
        {"out same size given", 2, 2, 3, 4, {12, 10}, {3, 6}, {2, 0}, false, true, f32, 2, {12, 10}},
        // fused layer: act(K(x) + W_skip x + bias), every activation, d = 1..3, chunking paths
        {"skip 1d S=37 identity", 1, 2, 3, 5, {37}, {7}, {0}, false, true, f32, 2, {}, true, 0},
        {"skip 1d S=600 long rows gelu", 1, 2, 5, 64, {600}, {20}, {0}, false, true, f32, 2, {}, true, 1},
        {"skip 2d 12x10 gelu_tanh", 2, 2, 3, 4, {12, 10}, {3, 6}, {2, 0}, false, true, f32, 3, {}, true, 2},
        {"skip 2d odd 15x21 relu no bias", 2, 1, 5, 3, {15, 21}, {4, 5}, {4, 0}, false, false, f32, 1, {}, true, 3},
        {"skip 2d 40x36 16->24 silu", 2, 2, 16, 24, {40, 36}, {8, 12}, {8, 0}, false, true, f32, 2, {}, true, 4},
        {"skip 2d separable 9x14 tanh", 2, 2, 4, 4, {9, 14}, {2, 4}, {3, 0}, true, true, f32, 2, {}, true, 5},
        {"skip 3d 7x9x12 4->5 gelu", 3, 2, 4, 5, {7, 9, 12}, {3, 2, 4}, {2, 3, 0}, false, true, f32, 3, {}, true, 1},
        {"skip 3d 6x5x7 identity", 3, 1, 2, 3, {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, false, false, f32, 1, {}, true, 0},
        {"skip 2d tiny 2x1 relu", 2, 1, 2, 3, {2, 1}, {1, 1}, {1, 0}, false, true, f32, 2, {}, true, 3},
        {"skip 2d 24x48 batch 5 gelu", 2, 5, 8, 8, {24, 48}, {8, 8}, {8, 0}, false, true, f32, 4, {}, true, 1},
        {"act only 1d gelu", 1, 2, 3, 5, {37}, {7}, {0}, false, true, f32, 2, {}, false, 1},
        {"act only 2d 12x10 silu", 2, 2, 3, 4, {12, 10}, {3, 6}, {2, 0}, false, true, f32, 2, {}, false, 4},
        {"act only 3d tanh", 3, 2, 2, 3, {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, false, true, f32, 2, {}, false, 5},
        {"act + output_size 2d 12x10->24x20 gelu", 2, 2, 3, 4, {12, 10}, {3, 4}, {2, 0}, false, true, f32, 2, {24, 20}, false, 1},
        {"skip + output_size == S relu", 2, 2, 3, 4, {12, 10}, {3, 4}, {2, 0}, false, true, f32, 2, {12, 10}, true, 3},
        {"act only 2d relu gelu_tanh sep", 2, 2, 4, 4, {9, 14}, {2, 4}, {3, 0}, true, true, f32, 2, {}, false, 2},
        {"fp16 skip 2d 12x10 gelu", 2, 2, 3, 4, {12, 10}, {3, 6}, {2, 0}, false, true, f16, 2, {}, true, 1},
        {"fp16 skip 1d S=600 silu", 1, 2, 5, 64, {600}, {20}, {0}, false, false, f16, 2, {}, true, 4},
        {"fp16 skip 3d 6x5x7 tanh", 3, 2, 2, 3, {6, 5, 7}, {2, 2, 3}, {1, 2, 0}, false, true, f16, 1, {}, true, 5},
        {"fp16 act only 2d relu", 2, 2, 3, 4, {12, 10}, {3, 6}, {2, 0}, false, true, f16, 2, {}, false, 3},
        {"bf16 skip 2d 9x14 gelu_tanh", 2, 2, 4, 3, {9, 14}, {2, 4}, {3, 0}, false, true, bf16, 2, {}, true, 2},
        // The paired last-axis transforms (last_axis.h: forward when k > 8, inverse when S >= 64),
        // both sides of each rule, several t blocks / row blocks / column blocks, vector tails.
        {"1d paired S=4096 k=64", 1, 2, 3, 2, {4096}, {64}, {0}, false, true, f32, 2},
        {"1d paired prime S=4099 k=40", 1, 1, 2, 3, {4099}, {40}, {0}, false, true, f32, 1},
        {"1d paired S=128 all modes (Nyquist)", 1, 2, 3, 3, {128}, {65}, {0}, false, true, f32, 2},
        {"1d paired odd S=127 all modes", 1, 2, 2, 3, {127}, {64}, {0}, false, false, f32, 2},
        {"1d paired S=64 k=33 (Nyquist)", 1, 3, 2, 2, {64}, {33}, {0}, false, true, f32, 1},
        {"1d S=63 k=20 (fwd paired only)", 1, 2, 3, 2, {63}, {20}, {0}, false, true, f32, 2},
        {"1d S=1000 k=9 (both paired)", 1, 1, 3, 3, {1000}, {9}, {0}, false, true, f32, 2},
        {"1d S=1000 k=8 (inverse paired only)", 1, 1, 3, 3, {1000}, {8}, {0}, false, true, f32, 2},
        {"1d S=1501 k=31 120 rows", 1, 3, 40, 5, {1501}, {31}, {0}, false, true, f32, 3},
        {"1d S=2050 k=17 separable", 1, 2, 37, 37, {2050}, {17}, {0}, true, true, f32, 2},
        {"1d long S=65536 k=64", 1, 1, 1, 2, {65536}, {64}, {0}, false, true, f32, 2},
        {"1d paired S=2100 k=10 (20-column panel, accumulated)", 1, 2, 3, 2, {2100}, {10}, {0}, false, true, f32, 2},
        {"2d paired 20x96 k=24", 2, 2, 3, 4, {20, 96}, {3, 24}, {2, 0}, false, true, f32, 2},
        // The second fold (last_axis.h, quad: S >= 128, k >= 16 by the rule; every even S with the
        // paired transforms under TURBOFNO_CPU_LAST_FOLD=quad): S mod 4 = 0 (t = S/4 pairs with itself)
        // and 2, odd k, all modes, several t blocks, T != S of either parity, d = 2, 3, fp16 / bf16, skip
        {"1d quad S=4094 (2 mod 4) k=64", 1, 2, 3, 2, {4094}, {64}, {0}, false, true, f32, 2},
        {"1d quad S=2048 k=33", 1, 2, 3, 3, {2048}, {33}, {0}, false, false, f32, 1},
        {"1d quad S=1026 k=24 40 rows", 1, 2, 20, 3, {1026}, {24}, {0}, false, true, f32, 2},
        {"1d quad S=1028 all modes", 1, 1, 2, 2, {1028}, {515}, {0}, false, true, f32, 2},
        {"1d quad S=1030 all modes", 1, 1, 2, 2, {1030}, {516}, {0}, false, true, f32, 1},
        {"1d S=20 k=11 all modes", 1, 2, 3, 2, {20}, {11}, {0}, false, true, f32, 1},
        {"1d S=18 k=10 all modes", 1, 2, 3, 2, {18}, {10}, {0}, false, true, f32, 1},
        {"1d S=66 k=33 all modes", 1, 2, 3, 2, {66}, {34}, {0}, false, true, f32, 2},
        {"1d S=72 k=12", 1, 2, 3, 2, {72}, {12}, {0}, false, true, f32, 2},
        {"1d S=4100 k=25", 1, 1, 3, 2, {4100}, {25}, {0}, false, true, f32, 2},
        {"out 1d quad 4096->1002 k=64", 1, 1, 2, 3, {4096}, {64}, {0}, false, true, f32, 2, {1002}},
        {"out 1d quad 1000->2048 k=40", 1, 2, 2, 3, {1000}, {40}, {0}, false, true, f32, 2, {2048}},
        {"out 1d quad 2048->1001 k=48", 1, 1, 2, 3, {2048}, {48}, {0}, false, true, f32, 2, {1001}},
        {"out 1d quad 1001->1024 k=30", 1, 1, 2, 3, {1001}, {30}, {0}, false, true, f32, 2, {1024}},
        {"out 1d 4096->100 k=64 (bins cut)", 1, 1, 2, 3, {4096}, {64}, {0}, false, true, f32, 1, {100}},
        {"2d quad 6x2048 k=32", 2, 1, 3, 4, {6, 2048}, {2, 32}, {2, 0}, false, true, f32, 2},
        {"3d quad 2x3x1030 k=26", 3, 2, 2, 3, {2, 3, 1030}, {1, 1, 26}, {1, 1, 0}, false, true, f32, 2},
        {"out 2d quad 4x1024->5x2050 k=24", 2, 1, 2, 3, {4, 1024}, {2, 24}, {1, 0}, false, true, f32, 2, {5, 2050}},
        {"fp16 1d quad S=2048 k=40", 1, 2, 3, 2, {2048}, {40}, {0}, false, true, f16, 2},
        {"bf16 2d quad 4x1030 k=24", 2, 1, 2, 3, {4, 1030}, {2, 24}, {1, 0}, false, true, bf16, 1},
        {"skip 1d quad S=2048 k=32 8->8 gelu", 1, 2, 8, 8, {2048}, {32}, {0}, false, true, f32, 2, {}, true, 1},
        {"skip 2d quad 3x1024 k=24 4->6 silu", 2, 1, 4, 6, {3, 1024}, {2, 24}, {1, 0}, false, true, f32, 2, {}, true, 4},
        {"fp16 skip 1d quad S=1026 k=30 relu", 1, 2, 3, 4, {1026}, {30}, {0}, false, false, f16, 2, {}, true, 3},
        // d = 2 axis-1 GEMMs over blocks of channels (forward always, inverse when 2k mod 16 is 1..8)
        {"2d 24x40 k=9 5->7 (blocked axis GEMMs)", 2, 2, 5, 7, {24, 40}, {5, 9}, {4, 0}, false, true, f32, 2},
        {"2d 24x70 k=10 6->11 out 30x66 (blocked)", 2, 1, 6, 11, {24, 70}, {4, 10}, {5, 0}, false, false, f32, 3, {30, 66}},
        {"2d paired odd 9x97 k=30", 2, 1, 4, 3, {9, 97}, {2, 30}, {3, 0}, false, true, f32, 3},
        {"3d paired 5x6x70 k=12", 3, 2, 2, 3, {5, 6, 70}, {2, 2, 12}, {1, 2, 0}, false, true, f32, 2},
        {"fp16 1d paired S=300 k=40", 1, 2, 3, 2, {300}, {40}, {0}, false, true, f16, 2},
        {"bf16 2d paired 6x130 k=20", 2, 1, 2, 3, {6, 130}, {2, 20}, {1, 0}, false, true, bf16, 1},
        {"out 1d paired 100->300 k=40", 1, 2, 3, 2, {100}, {40}, {0}, false, true, f32, 2, {300}},
        {"out 1d paired 4096->1001 k=64", 1, 1, 2, 3, {4096}, {64}, {0}, false, true, f32, 2, {1001}},
        {"out 1d paired 50->128 all modes", 1, 2, 2, 2, {50}, {26}, {0}, false, false, f32, 1, {128}},
        {"out 1d 200->40 (bins cut, plain inverse)", 1, 2, 2, 3, {200}, {30}, {0}, false, true, f32, 2, {40}},
        {"out 2d paired 20x96->30x130 k=24", 2, 2, 3, 4, {20, 96}, {3, 24}, {2, 0}, false, true, f32, 2, {30, 130}},
        {"act only 1d paired S=300 gelu", 1, 2, 3, 5, {300}, {40}, {0}, false, true, f32, 2, {}, false, 1},
        // The skip epilogue folds the plain last-axis inverse into its GEMM (k <= 10), or pairs the
        // inverse of chunks made of whole rows (T >= 64), or uses the plain table on column chunks of
        // long rows; its GEMM panels / row tiles have tails.
        {"skip 1d S=300 k=40 (paired, one row) silu", 1, 2, 3, 3, {300}, {40}, {0}, false, true, f32, 2, {}, true, 4},
        {"skip 2d paired 10x96 16->20 gelu", 2, 2, 16, 20, {10, 96}, {3, 13}, {3, 0}, false, true, f32, 2, {}, true, 1},
        {"skip 2d paired odd 7x67 13->13 gelu", 2, 1, 13, 13, {7, 67}, {2, 11}, {2, 0}, false, false, f32, 1, {}, true, 1},
        {"skip 2d 20x70 k=10 (folded) 12->10 gelu", 2, 2, 12, 10, {20, 70}, {3, 10}, {2, 0}, false, true, f32, 2, {}, true, 1},
        {"skip 2d 6x64 70->9 k=5 (folded) identity", 2, 3, 70, 9, {6, 64}, {2, 5}, {1, 0}, false, true, f32, 3, {}, true, 0},
        {"skip 3d paired 3x4x80 5->6 silu", 3, 2, 5, 6, {3, 4, 80}, {1, 2, 12}, {1, 1, 0}, false, true, f32, 2, {}, true, 4},
        {"skip 1d S=2000 k=24 C=64 (column chunks) gelu", 1, 1, 64, 64, {2000}, {24}, {0}, false, true, f32, 2, {}, true, 1},
        {"fp16 skip 2d paired 6x70 gelu", 2, 2, 4, 5, {6, 70}, {2, 12}, {2, 0}, false, true, f16, 2, {}, true, 1},
        {"fp16 skip 2d 6x70 k=9 (folded) relu", 2, 2, 4, 5, {6, 70}, {2, 9}, {2, 0}, false, true, f16, 2, {}, true, 3},
        // outputs over 2 MB: the skip epilogue streams y (non-temporal stores)
        {"skip 1d S=9000 k=8 8->64 (folded, streamed) gelu", 1, 1, 8, 64, {9000}, {8}, {0}, false, true, f32, 2, {}, true, 1},
        {"skip 2d paired 300x128 k=11 6->16 (streamed) gelu", 2, 1, 6, 16, {300, 128}, {2, 11}, {2, 0}, false, true, f32, 2, {}, true, 1},
    };
    const uint64_t seed = turbofno_test::testSeed();
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::printf("CPU kernels: %s\n", cpu::cpuKernels().name);
    int failed = 0;
    for (const Case& c : cases) failed += runCase(c, rng) ? 0 : 1;
    std::printf("last-axis fold override: %s\n", cpu::foldOverride() == cpu::FoldOverride::kQuad   ? "quad"
                                                  : cpu::foldOverride() == cpu::FoldOverride::kPair ? "pair"
                                                                                                   : "rule");
    failed += quadKernels(rng) ? 0 : 1;
    failed += foldRule() ? 0 : 1;
    failed += errorCases() ? 0 : 1;
    failed += sizeLimit() ? 0 : 1;
    failed += concurrencyAndFork(static_cast<uint32_t>(seed)) ? 0 : 1;
    failed += halfConversions(static_cast<uint32_t>(seed >> 7)) ? 0 : 1;
    failed += activationAccuracy() ? 0 : 1;
    return turbofno_test::finish(failed, seed);
}
