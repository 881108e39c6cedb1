// PointwiseMLP core tests: inferMlpShape / validateMlpAttrs error cases, and runMlpCpu against a float64
// reference for every activation pair, each optional input, fp32 / fp16 / bf16, odd sizes, NaN-poisoned
// outputs (every element must be written) and y == residual (in place). Run once per CPU ISA by ctest.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "half.h"
#include "test_support.h"
#include "turbofno/cpu.h"
#include "turbofno/pointwise_mlp.h"

using namespace turbofno::core;
namespace cpu = turbofno::cpu;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    if (!ok) {
        ++failures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

// ---- validation ------------------------------------------------------------------------------------

struct Dims {
    std::vector<int64_t> d[kMlpInputCount];
    bool present[kMlpInputCount] = {};
    void set(int k, std::vector<int64_t> v) {
        d[k] = std::move(v);
        present[k] = true;
    }
    Status infer(PointwiseMlpShape* shape) const {
        const int64_t* ptrs[kMlpInputCount];
        int ranks[kMlpInputCount];
        for (int k = 0; k < kMlpInputCount; ++k) {
            ptrs[k] = present[k] ? d[k].data() : nullptr;
            ranks[k] = present[k] ? static_cast<int>(d[k].size()) : 0;
        }
        return inferMlpShape(ptrs, ranks, shape);
    }
};

// x [2, 3, 4, 5], w1 [5, 3], b1 [5], w2 [7, 5], b2 [7], residual [2, 7, 4, 5], gate [7]
Dims validDims() {
    Dims d;
    d.set(kMlpX, {2, 3, 4, 5});
    d.set(kMlpW1, {5, 3});
    d.set(kMlpB1, {5});
    d.set(kMlpW2, {7, 5});
    d.set(kMlpB2, {7});
    d.set(kMlpResidual, {2, 7, 4, 5});
    d.set(kMlpGate, {7});
    return d;
}

void expectError(const Dims& d, const std::string& needle, const std::string& what) {
    PointwiseMlpShape shape;
    const Status st = d.infer(&shape);
    expect(!st.ok, what + ": accepted");
    if (!st.ok) {
        expect(st.message.find(needle) != std::string::npos,
               what + ": message '" + st.message + "' lacks '" + needle + "'");
    }
}

void testValidation() {
    PointwiseMlpShape shape;
    Status st = validDims().infer(&shape);
    expect(st.ok, "valid dims rejected: " + st.message);
    expect(shape.spatialRank == 2 && shape.batch == 2 && shape.inChannels == 3 && shape.hiddenChannels == 5 &&
               shape.outChannels == 7 && shape.points == 20 && shape.spatial[0] == 4 && shape.spatial[1] == 5,
           "valid dims: wrong shape");
    expect(shape.hasB1 && shape.hasB2 && shape.hasResidual && shape.hasGate, "valid dims: optional flags");
    int64_t out[10] = {};
    mlpOutputDims(shape, out);
    expect(out[0] == 2 && out[1] == 7 && out[2] == 4 && out[3] == 5, "mlpOutputDims");
    expect(mlpCpuWorkspaceBytes(shape, 4) == 0 && mlpCudaWorkspaceBytes(shape, DataType::kFloat16) == 0,
           "workspace bytes are 0");

    {  // only required inputs, spatial rank 0
        Dims d;
        d.set(kMlpX, {4, 3});
        d.set(kMlpW1, {5, 3});
        d.set(kMlpW2, {2, 5});
        st = d.infer(&shape);
        expect(st.ok && shape.spatialRank == 0 && shape.points == 1 && !shape.hasB1 && !shape.hasResidual,
               "rank-0 spatial, no optional inputs: " + st.message);
    }
    {  // spatial rank 8 is fine, 9 is not
        Dims d = validDims();
        d.set(kMlpX, {1, 3, 1, 1, 1, 1, 1, 1, 1, 2});
        d.set(kMlpResidual, {1, 7, 1, 1, 1, 1, 1, 1, 1, 2});
        st = d.infer(&shape);
        expect(st.ok && shape.spatialRank == 8 && shape.points == 2, "spatial rank 8: " + st.message);
        d.set(kMlpX, {1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2});
        expectError(d, "at most 8", "spatial rank 9");
    }
    Dims d;
    d = validDims(); d.present[kMlpX] = false; expectError(d, "x is missing", "no x");
    d = validDims(); d.present[kMlpW1] = false; expectError(d, "w1 is missing", "no w1");
    d = validDims(); d.present[kMlpW2] = false; expectError(d, "w2 is missing", "no w2");
    d = validDims(); d.set(kMlpX, {3}); expectError(d, "x [3] has rank 1", "x rank 1");
    d = validDims(); d.set(kMlpX, {0, 3, 4, 5}); expectError(d, "batch size N must be positive", "N = 0");
    d = validDims(); d.set(kMlpX, {2, 0, 4, 5}); expectError(d, "Cin must be positive", "Cin = 0");
    d = validDims(); d.set(kMlpX, {2, 3, 0, 5}); expectError(d, "S_1 must be positive", "S_1 = 0");
    d = validDims(); d.set(kMlpW1, {5, 3, 1}); expectError(d, "w1 [5, 3, 1] has rank 3", "w1 rank");
    d = validDims(); d.set(kMlpW1, {5, 4}); expectError(d, "must equal the input channel count Cin = 3", "w1 Cin");
    d = validDims(); d.set(kMlpW1, {0, 3}); expectError(d, "Ch (dim 0) must be positive", "Ch = 0");
    d = validDims(); d.set(kMlpW2, {7}); expectError(d, "w2 [7] has rank 1", "w2 rank");
    d = validDims(); d.set(kMlpW2, {7, 6}); expectError(d, "must equal the hidden channel count Ch = 5", "w2 Ch");
    d = validDims(); d.set(kMlpW2, {0, 5}); expectError(d, "Cout (dim 0) must be positive", "Cout = 0");
    d = validDims(); d.set(kMlpB1, {7}); expectError(d, "b1 [7] must have shape [Ch] = [5]", "b1 length");
    d = validDims(); d.set(kMlpB1, {5, 1}); expectError(d, "b1 [5, 1] must have shape [Ch]", "b1 rank");
    d = validDims(); d.set(kMlpB2, {5}); expectError(d, "b2 [5] must have shape [Cout] = [7]", "b2 length");
    d = validDims(); d.set(kMlpGate, {1}); expectError(d, "gate [1] must have shape [Cout] = [7]", "gate length");
    d = validDims(); d.present[kMlpResidual] = false; expectError(d, "gate is given without a residual", "gate only");
    d = validDims(); d.set(kMlpResidual, {2, 3, 4, 5});
    expectError(d, "residual [2, 3, 4, 5] must have the output's shape [N, Cout, *S] = [2, 7, 4, 5]", "residual C");
    d = validDims(); d.set(kMlpResidual, {2, 7, 20}); expectError(d, "residual [2, 7, 20]", "residual rank");
    d = validDims(); d.set(kMlpResidual, {1, 7, 4, 5}); expectError(d, "no broadcasting", "residual broadcast");
    // 2^31 elements and int64 overflow
    d = validDims(); d.present[kMlpResidual] = d.present[kMlpGate] = false;
    d.set(kMlpX, {2, 3, 1 << 20, 1 << 10}); expectError(d, "x [2, 3, 1048576, 1024] has 6442450944 elements", "x 2^31");
    d.set(kMlpX, {2, 3, int64_t{1} << 40, int64_t{1} << 40}); expectError(d, "overflows int64", "x overflow");
    d = validDims(); d.present[kMlpResidual] = d.present[kMlpGate] = false; d.present[kMlpB2] = false;
    d.set(kMlpX, {1, 3, 1 << 28}); d.set(kMlpW2, {16, 5});
    expectError(d, "output y [1, 16, 268435456]", "y 2^31");
    d = validDims(); d.present[kMlpB1] = false; d.set(kMlpW1, {1 << 30, 3}); d.set(kMlpW2, {7, 1 << 30});
    expectError(d, "w1 [1073741824, 3] has", "w1 2^31");

    PointwiseMlpAttrs attrs;
    expect(validateMlpAttrs(attrs).ok, "default attrs rejected");
    attrs.hiddenActivation = static_cast<Activation>(6);
    st = validateMlpAttrs(attrs);
    expect(!st.ok && st.message.find("hidden_activation = 6 is invalid") != std::string::npos,
           "hidden_activation 6: " + st.message);
    attrs.hiddenActivation = Activation::kTanh;
    attrs.activation = static_cast<Activation>(-1);
    st = validateMlpAttrs(attrs);
    expect(!st.ok && st.message.find("activation = -1 is invalid") != std::string::npos, "activation -1: " + st.message);
}

// ---- kernel vs float64 -------------------------------------------------------------------------------

double activate(int a, double v) {
    switch (a) {
        case 1: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        case 2: return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        case 3: return v < 0 ? 0.0 : v;
        case 4: return v / (1.0 + std::exp(-v));
        case 5: return std::tanh(v);
        default: return v;
    }
}

// A tensor in the test dtype plus its exactly representable values as double.
struct Tensor {
    std::vector<uint16_t> h;  // fp16 / bf16 storage
    std::vector<float> f;     // fp32 storage
    std::vector<double> v;    // the values the kernel sees
    void* data(DataType t) { return t == DataType::kFloat32 ? static_cast<void*>(f.data()) : static_cast<void*>(h.data()); }
};

Tensor makeTensor(size_t count, DataType t, std::mt19937_64& rng, double scale) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    Tensor x;
    x.f.resize(count);
    x.h.resize(count);
    x.v.resize(count);
    for (size_t i = 0; i < count; ++i) {
        const float r = static_cast<float>(dist(rng) * scale);
        if (t == DataType::kFloat32) {
            x.f[i] = r;
            x.v[i] = r;
        } else if (t == DataType::kFloat16) {
            x.h[i] = cpu::floatToHalf(r);
            x.v[i] = cpu::halfToFloat(x.h[i]);
        } else {
            x.h[i] = cpu::floatToBf16(r);
            x.v[i] = cpu::bf16ToFloat(x.h[i]);
        }
    }
    return x;
}

double readOut(const Tensor& y, DataType t, size_t i) {
    if (t == DataType::kFloat32) return y.f[i];
    if (t == DataType::kFloat16) return cpu::halfToFloat(y.h[i]);
    return cpu::bf16ToFloat(y.h[i]);
}

const char* dtypeName(DataType t) {
    return t == DataType::kFloat32 ? "fp32" : t == DataType::kFloat16 ? "fp16" : "bf16";
}

struct Case {
    int64_t n, cin, ch, cout, points;
    int hact, act;
    bool b1, b2, res, gate, inPlace;
    DataType dtype;
    int workers;
};

void runCase(const Case& c, std::mt19937_64& rng) {
    const DataType t = c.dtype;
    Tensor x = makeTensor(c.n * c.cin * c.points, t, rng, 2.0);
    Tensor w1 = makeTensor(c.ch * c.cin, t, rng, 1.0 / std::sqrt(double(c.cin)));
    Tensor b1 = makeTensor(c.ch, t, rng, 0.5);
    Tensor w2 = makeTensor(c.cout * c.ch, t, rng, 1.0 / std::sqrt(double(c.ch)));
    Tensor b2 = makeTensor(c.cout, t, rng, 0.5);
    Tensor r = makeTensor(c.n * c.cout * c.points, t, rng, 1.0);
    Tensor g = makeTensor(c.cout, t, rng, 1.5);

    // Shape through the real validation path (spatial split as [points] or [1, points]).
    Dims d;
    d.set(kMlpX, {c.n, c.cin, 1, c.points});
    d.set(kMlpW1, {c.ch, c.cin});
    d.set(kMlpW2, {c.cout, c.ch});
    if (c.b1) d.set(kMlpB1, {c.ch});
    if (c.b2) d.set(kMlpB2, {c.cout});
    if (c.res) d.set(kMlpResidual, {c.n, c.cout, 1, c.points});
    if (c.gate) d.set(kMlpGate, {c.cout});
    PointwiseMlpParams p;
    Status st = d.infer(&p.shape);
    char name[200];
    std::snprintf(name, sizeof name, "N=%lld Cin=%lld Ch=%lld Cout=%lld P=%lld hact=%d act=%d b1=%d b2=%d r=%d g=%d inplace=%d %s w=%d",
                  (long long)c.n, (long long)c.cin, (long long)c.ch, (long long)c.cout, (long long)c.points, c.hact,
                  c.act, c.b1, c.b2, c.res, c.gate, c.inPlace, dtypeName(t), c.workers);
    if (!st.ok) {
        expect(false, std::string(name) + ": inferMlpShape: " + st.message);
        return;
    }
    p.attrs.hiddenActivation = static_cast<Activation>(c.hact);
    p.attrs.activation = static_cast<Activation>(c.act);
    p.dtype = t;
    p.x = x.data(t);
    p.w1 = w1.data(t);
    p.w2 = w2.data(t);
    p.b1 = c.b1 ? b1.data(t) : nullptr;
    p.b2 = c.b2 ? b2.data(t) : nullptr;
    p.residual = c.res ? r.data(t) : nullptr;
    p.gate = c.gate ? g.data(t) : nullptr;

    // Reference before the run (in place overwrites r).
    const size_t outCount = c.n * c.cout * c.points;
    std::vector<double> ref(outCount);
    std::vector<double> h(c.ch);
    for (int64_t n = 0; n < c.n; ++n)
        for (int64_t s = 0; s < c.points; ++s) {
            for (int64_t j = 0; j < c.ch; ++j) {
                double a = c.b1 ? b1.v[j] : 0.0;
                for (int64_t i = 0; i < c.cin; ++i) a += w1.v[j * c.cin + i] * x.v[(n * c.cin + i) * c.points + s];
                h[j] = activate(c.hact, a);
            }
            for (int64_t o = 0; o < c.cout; ++o) {
                double a = c.b2 ? b2.v[o] : 0.0;
                for (int64_t j = 0; j < c.ch; ++j) a += w2.v[o * c.ch + j] * h[j];
                const size_t at = (n * c.cout + o) * c.points + s;
                if (c.res) a += (c.gate ? g.v[o] : 1.0) * r.v[at];
                ref[at] = activate(c.act, a);
            }
        }

    Tensor y;
    Tensor* out = &y;
    if (c.inPlace) {
        out = &r;  // y == residual
    } else {
        y.f.assign(outCount, std::nanf(""));
        y.h.assign(outCount, t == DataType::kFloat16 ? uint16_t{0x7e00} : uint16_t{0x7fc0});
    }
    p.y = out->data(t);
    CpuRunOptions options;
    options.workers = c.workers;
    st = runMlpCpu(p, nullptr, mlpCpuWorkspaceBytes(p.shape, c.workers), options);
    if (!st.ok) {
        expect(false, std::string(name) + ": runMlpCpu: " + st.message);
        return;
    }
    // fp32 compute: errors of the sums ~1e-6 relative; fp16 / bf16 outputs add their rounding.
    const double rtol = t == DataType::kFloat32 ? 2e-5 : t == DataType::kFloat16 ? 2e-3 : 1.6e-2;
    const double atol = t == DataType::kFloat32 ? 2e-5 : t == DataType::kFloat16 ? 2e-3 : 1.6e-2;
    int bad = 0;
    for (size_t i = 0; i < outCount; ++i) {
        const double v = readOut(*out, t, i);
        if (!(std::fabs(v - ref[i]) <= atol + rtol * std::fabs(ref[i]))) {
            if (bad++ < 3) std::printf("  %s: y[%zu] = %.8g, reference %.8g\n", name, i, v, ref[i]);
        }
    }
    expect(bad == 0, std::string(name) + ": " + std::to_string(bad) + " wrong elements");
}

void testKernel(uint64_t seed) {
    std::mt19937_64 rng(seed);
    int cases = 0;
    const DataType dtypes[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16};
    // Every activation pair, all optional inputs, odd sizes.
    for (int hact = 0; hact < kActivationCount; ++hact)
        for (int act = 0; act < kActivationCount; ++act) {
            runCase({2, 3, 5, 7, 37, hact, act, true, true, true, true, false, DataType::kFloat32, 2}, rng);
            ++cases;
        }
    // Each optional input on / off, each dtype, in place, several sizes (including > 1 block and P = 1).
    const int64_t pointsList[] = {1, 37, 1000};
    for (DataType t : dtypes)
        for (int64_t pts : pointsList)
            for (int mask = 0; mask < 16; ++mask) {
                const bool b1 = mask & 1, b2 = mask & 2, res = mask & 4, gate = res && (mask & 8);
                if (!res && (mask & 8)) continue;  // gate needs a residual
                for (int inPlace = 0; inPlace < (res ? 2 : 1); ++inPlace) {
                    runCase({2, 3, 5, 7, pts, 1, (mask % 3 == 0) ? 0 : 4, b1, b2, res, gate, inPlace != 0, t,
                             1 + mask % 3},
                            rng);
                    ++cases;
                }
            }
    // Larger channel counts (full register tiles and remainders), several workers.
    runCase({1, 64, 32, 64, 300, 1, 1, true, true, true, true, false, DataType::kFloat32, 3}, rng);
    runCase({3, 17, 13, 11, 129, 2, 5, true, false, true, false, true, DataType::kFloat16, 4}, rng);
    runCase({1, 1, 1, 1, 65, 3, 3, false, false, true, true, false, DataType::kBFloat16, 1}, rng);
    cases += 3;
    std::printf("%d kernel cases\n", cases);
}

// runMlpCpu's ParallelFor contract: a given pool is used (workers run in any order give the same y),
// and its failure is returned, not swallowed.
class ReversePool final : public ParallelFor {
public:
    int calls = 0;
    Status run(int workers, void (*fn)(void*, int), void* ctx) override {
        ++calls;
        for (int w = workers - 1; w >= 0; --w) fn(ctx, w);
        return Status::success();
    }
};
class FailingPool final : public ParallelFor {
public:
    Status run(int, void (*)(void*, int), void*) override { return Status::error("pool is gone"); }
};

void testParallelContract() {
    const int64_t n = 2, cin = 4, ch = 6, cout = 5, points = 300;
    std::vector<float> x(n * cin * points), w1(ch * cin), w2(cout * ch), y1(n * cout * points), y2(y1.size());
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto* v : {&x, &w1, &w2})
        for (float& e : *v) e = dist(rng);
    Dims d;
    d.set(kMlpX, {n, cin, points});
    d.set(kMlpW1, {ch, cin});
    d.set(kMlpW2, {cout, ch});
    PointwiseMlpParams p;
    expect(d.infer(&p.shape).ok, "parallel contract: shape");
    p.x = x.data();
    p.w1 = w1.data();
    p.w2 = w2.data();
    p.y = y1.data();
    CpuRunOptions one;
    one.workers = 1;
    expect(runMlpCpu(p, nullptr, 0, one).ok, "parallel contract: 1 worker");
    ReversePool reverse;
    CpuRunOptions many;
    many.workers = 3;
    many.parallel = &reverse;
    p.y = y2.data();
    expect(runMlpCpu(p, nullptr, 0, many).ok && reverse.calls == 1, "parallel contract: the given pool is used");
    expect(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float)) == 0,
           "parallel contract: the result depends on the worker order");
    FailingPool failing;
    many.parallel = &failing;
    const Status st = runMlpCpu(p, nullptr, 0, many);
    expect(!st.ok && st.message.find("pool is gone") != std::string::npos, "parallel contract: pool failure lost");
}

void testRejectsBadParams() {
    PointwiseMlpParams p;
    expect(!runMlpCpu(p, nullptr, 0, CpuRunOptions{}).ok, "empty params accepted");
}

}  // namespace

int main() {
    const uint64_t seed = turbofno_test::testSeed();
    testValidation();
    testKernel(seed);
    testParallelContract();
    testRejectsBadParams();
    return turbofno_test::finish(failures, seed);
}
