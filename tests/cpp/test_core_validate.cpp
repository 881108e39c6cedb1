// Tests of core::validateAttrs / inferShape / outputDims: every rule of docs/op.md "Validation"
// has a case that must fail (with a message naming the problem) next to one that must pass.
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "turbofno/core.h"

using namespace turbofno::core;

namespace {

int gFailures = 0;
int gChecks = 0;

void expect(bool cond, const std::string& what) {
    ++gChecks;
    if (!cond) {
        ++gFailures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

SpectralConvAttrs makeAttrs(std::initializer_list<int> low, std::initializer_list<int> high, int norm = 0, int sep = 0) {
    SpectralConvAttrs a;
    a.rank = static_cast<int32_t>(low.size());
    int j = 0;
    for (int v : low) a.modesLow[j++] = v;
    j = 0;
    for (int v : high) a.modesHigh[j++] = v;
    a.norm = static_cast<FftNorm>(norm);
    a.separable = sep;
    return a;
}

struct Case {
    SpectralConvAttrs attrs;
    std::vector<int64_t> x, w, b;
    bool bias = false;
};

Status run(const Case& c, SpectralConvShape* shape) {
    int64_t dummy = 0;
    const int64_t* bd = c.bias ? (c.b.empty() ? &dummy : c.b.data()) : nullptr;
    return inferShape(c.attrs, c.x.data(), static_cast<int>(c.x.size()), c.w.data(), static_cast<int>(c.w.size()), bd,
                      static_cast<int>(c.b.size()), shape);
}

// inferShape must fail and its message must contain `needle`.
void expectReject(const Case& c, const std::string& needle, const std::string& name) {
    SpectralConvShape s;
    const Status st = run(c, &s);
    expect(!st.ok, name + ": expected rejection");
    expect(st.message.find(needle) != std::string::npos,
           name + ": message '" + st.message + "' should mention '" + needle + "'");
}

void expectAttrReject(const SpectralConvAttrs& a, int64_t nl, int64_t nh, const std::string& needle, const std::string& name) {
    const Status st = validateAttrs(a, nl, nh);
    expect(!st.ok, name + ": expected rejection");
    expect(st.message.find(needle) != std::string::npos,
           name + ": message '" + st.message + "' should mention '" + needle + "'");
}

void testAttrs() {
    expect(validateAttrs(makeAttrs({4}, {0}), 1, 1).ok, "1d attrs ok");
    expect(validateAttrs(makeAttrs({4, 3}, {4, 0}, 2), 2, 2).ok, "2d attrs ok");
    expect(validateAttrs(makeAttrs({4, 3, 2}, {4, 1, 0}, 1, 1), 3, 3).ok, "3d attrs ok");
    expectAttrReject(makeAttrs({4, 3}, {4, 0}), 2, 1, "modes_high has 1", "length mismatch");
    SpectralConvAttrs empty;
    expectAttrReject(empty, 0, 0, "spatial rank d must be 1, 2 or 3", "empty modes");
    expectAttrReject(makeAttrs({1, 1, 1}, {0, 0, 0}), 4, 4, "spatial rank d must be 1, 2 or 3", "rank 4");
    expectAttrReject(makeAttrs({-1, 3}, {0, 0}), 2, 2, "negative", "negative low");
    expectAttrReject(makeAttrs({2, 3}, {-2, 0}), 2, 2, "negative", "negative high");
    expectAttrReject(makeAttrs({2, 3}, {2, 1}), 2, 2, "must be 0", "last modes_high != 0");
    expectAttrReject(makeAttrs({0, 3}, {0, 0}), 2, 2, "keeps no modes", "axis with K=0");
    expectAttrReject(makeAttrs({2, 0}, {2, 0}), 2, 2, "keeps no modes", "last axis with K=0");
    expectAttrReject(makeAttrs({2}, {0}, 3), 1, 1, "norm", "norm 3");
    expectAttrReject(makeAttrs({2}, {0}, -1), 1, 1, "norm", "norm -1");
    expectAttrReject(makeAttrs({2}, {0}, 0, 2), 1, 1, "separable", "separable 2");
    // activation (op version 2): 0..5 accepted, anything else rejected with its name.
    for (int a = 0; a < kActivationCount; ++a) {
        SpectralConvAttrs act = makeAttrs({2}, {0});
        act.activation = static_cast<Activation>(a);
        expect(validateAttrs(act, 1, 1).ok, "activation " + std::to_string(a) + " accepted");
        expect(activationName(act.activation) != nullptr, "activation " + std::to_string(a) + " has a name");
    }
    for (int a : {-1, 6, 1000}) {
        SpectralConvAttrs act = makeAttrs({2}, {0});
        act.activation = static_cast<Activation>(a);
        expectAttrReject(act, 1, 1, "activation = " + std::to_string(a), "activation " + std::to_string(a));
    }
    expect(std::string(activationName(Activation::kGeluErf)) == "gelu" &&
               std::string(activationName(Activation::kGeluTanh)) == "gelu_tanh",
           "activation names");
}

// The optional skip weight (input 3, op version 2): [Cout, Cin].
void testSkip() {
    const SpectralConvAttrs a = makeAttrs({2, 4}, {3, 0});
    const int64_t x[] = {2, 3, 7, 10}, w[] = {3, 5, 5, 4, 2}, b[] = {5};
    auto runSkip = [&](std::vector<int64_t> sk, SpectralConvShape* s, const SpectralConvAttrs& at) {
        return inferShape(at, x, 4, w, 5, b, 1, s, sk.empty() ? nullptr : sk.data(), static_cast<int>(sk.size()));
    };
    SpectralConvShape s;
    Status st = runSkip({5, 3}, &s, a);
    expect(st.ok && s.hasSkip && s.hasBias, "skip [Cout, Cin] accepted: " + st.message);
    st = runSkip({}, &s, a);
    expect(st.ok && !s.hasSkip, "no skip: hasSkip false");
    for (auto bad : std::vector<std::vector<int64_t>>{{3, 5}, {5, 3, 1}, {5}, {5, 4}, {4, 3}, {15}}) {
        st = runSkip(bad, &s, a);
        expect(!st.ok && st.message.find("skip_weight") != std::string::npos &&
                   st.message.find("[Cout, Cin] = [5, 3]") != std::string::npos,
               "bad skip shape rejected: '" + st.message + "'");
    }
    // separable: Cout = Cin, so the skip is [C, C].
    const SpectralConvAttrs sep = makeAttrs({2, 2}, {1, 0}, 0, 1);
    const int64_t xs[] = {2, 4, 6, 6}, ws[] = {4, 1, 3, 2, 2}, sk[] = {4, 4}, skBad[] = {1, 4};
    expect(inferShape(sep, xs, 4, ws, 5, nullptr, 0, &s, sk, 2).ok && s.hasSkip, "separable skip [C, C]");
    expect(!inferShape(sep, xs, 4, ws, 5, nullptr, 0, &s, skBad, 2).ok, "separable skip [1, C] rejected");
    // a skip maps x onto y point by point: output_size must then equal the input size
    SpectralConvAttrs resampled = a;
    resampled.outputRank = 2;
    resampled.outputSize[0] = 7;
    resampled.outputSize[1] = 12;
    const int64_t sk53[] = {5, 3};
    st = inferShape(resampled, x, 4, w, 5, b, 1, &s, sk53, 2);
    expect(!st.ok && st.message.find("output_size must equal") != std::string::npos, "skip with T != S rejected: " + st.message);
    resampled.outputSize[1] = 10;
    expect(inferShape(resampled, x, 4, w, 5, b, 1, &s, sk53, 2).ok, "skip with output_size == input size accepted");
    // skip dims missing but a rank given: internal error, no crash
    expect(!inferShape(a, x, 4, w, 5, b, 1, &s, nullptr, 2).ok, "skip rank without dims rejected");
    // Overflowing skip dims: rejected before any product is used.
    const int64_t big[] = {5, INT64_MAX};
    expect(!inferShape(a, x, 4, w, 5, b, 1, &s, big, 2).ok, "skip INT64_MAX rejected");
}

void testShapes() {
    // A valid 2D case: x [2, 3, 7, 10], p=(2,4) q=(3,0): K=(5,4), weight [3, 5, 5, 4, 2], bias [5].
    Case ok{makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 5, 5, 4, 2}, {5}, true};
    SpectralConvShape s;
    Status st = run(ok, &s);
    expect(st.ok, "valid 2d case: " + st.message);
    expect(s.rank == 2 && s.batch == 2 && s.inChannels == 3 && s.outChannels == 5, "2d shape fields");
    expect(s.spatial[0] == 7 && s.spatial[1] == 10 && s.kept[0] == 5 && s.kept[1] == 4 && s.hasBias, "2d spatial/kept");
    int64_t y[5] = {};
    outputDims(s, y);
    expect(y[0] == 2 && y[1] == 5 && y[2] == 7 && y[3] == 10, "outputDims");

    // Boundaries that must pass: p+q == S, p_d == S_d//2+1 (odd and even S_d), 1D and 3D, separable.
    expect(run({makeAttrs({4, 6}, {3, 0}), {1, 1, 7, 10}, {1, 1, 7, 6, 2}, {}, false}, &s).ok, "p+q == S and p_d == S/2+1 even");
    expect(run({makeAttrs({5}, {0}), {1, 2, 9}, {2, 4, 5, 2}, {}, false}, &s).ok && s.outChannels == 4, "1d, p_d == 9//2+1");
    expect(run({makeAttrs({1, 2, 3}, {1, 0, 0}), {2, 2, 3, 5, 6}, {2, 2, 2, 2, 3, 2}, {2}, true}, &s).ok, "3d valid");
    expect(run({makeAttrs({2, 2}, {1, 0}, 0, 1), {2, 4, 6, 6}, {4, 1, 3, 2, 2}, {4}, true}, &s).ok && s.outChannels == 4,
           "separable valid, Cout = Cin");
    expect(run({makeAttrs({1}, {0}), {1, 1, 1}, {1, 1, 1, 2}, {}, false}, &s).ok, "size-1 everything");

    // Rank errors.
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7}, {3, 5, 5, 4, 2}, {}, false}, "x has rank 3", "x rank");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 5, 5, 4}, {}, false}, "weight has rank 4", "w rank");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 5, 5, 4, 3}, {}, false}, "last dim must be 2", "w last dim");
    // Sizes <= 0.
    expectReject({makeAttrs({2, 4}, {3, 0}), {0, 3, 7, 10}, {3, 5, 5, 4, 2}, {}, false}, "empty batch", "N = 0");
    expectReject({makeAttrs({2, 4}, {3, 0}), {-1, 3, 7, 10}, {3, 5, 5, 4, 2}, {}, false}, "batch size N", "N < 0");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 0, 7, 10}, {0, 5, 5, 4, 2}, {}, false}, "channel count", "C = 0");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 0, 10}, {3, 5, 5, 4, 2}, {}, false}, "S_1 must be positive", "S_1 = 0");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, -5}, {3, 5, 5, 4, 2}, {}, false}, "S_2 must be positive", "S_2 < 0");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 0, 5, 4, 2}, {}, false}, "Cout", "Cout = 0");
    // Channel / mode mismatches.
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {4, 5, 5, 4, 2}, {}, false}, "Cin = 3", "weight dim 0 != Cin");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 5, 4, 4, 2}, {}, false}, "mode dim 2", "K_1 mismatch");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 5, 5, 5, 2}, {}, false}, "mode dim 3", "K_2 mismatch");
    expectReject({makeAttrs({2, 2}, {1, 0}, 0, 1), {2, 4, 6, 6}, {4, 2, 3, 2, 2}, {}, false}, "separable", "separable w dim1");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 5, 5, 4, 2}, {3}, true}, "bias [3]", "bias wrong size");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 5, 5, 4, 2}, {5, 1}, true}, "bias", "bias wrong rank");
    expectReject({makeAttrs({2, 4}, {3, 0}), {2, 3, 7, 10}, {3, 5, 5, 4, 2}, {}, true}, "bias", "bias scalar");
    // Modes out of range.
    expectReject({makeAttrs({4, 4}, {4, 0}), {2, 3, 7, 10}, {3, 5, 8, 4, 2}, {}, false}, "exceeds S_1 = 7", "p+q > S_1");
    expectReject({makeAttrs({2, 7}, {3, 0}), {2, 3, 7, 10}, {3, 5, 5, 7, 2}, {}, false}, "exceeds S_2//2 + 1 = 6", "p_d too big");
    expectReject({makeAttrs({6}, {0}), {2, 3, 9}, {3, 5, 6, 2}, {}, false}, "exceeds S_1//2 + 1 = 5", "1d p_d too big (odd)");
    // Attribute errors also caught by inferShape.
    expectReject({makeAttrs({2, 4}, {3, 1}), {2, 3, 7, 10}, {3, 5, 5, 5, 2}, {}, false}, "must be 0", "inferShape q_d");
    // Overflow and the 2^31 element limit.
    expectReject({makeAttrs({1}, {0}), {int64_t{1} << 31, 1, 1}, {1, 1, 1, 2}, {}, false}, "2^31", "x = 2^31 elements");
    expectReject({makeAttrs({1}, {0}), {65536, 32768, 1}, {32768, 1, 1, 2}, {}, false}, "2^31", "x product = 2^31");
    expectReject({makeAttrs({1}, {0}), {int64_t{1} << 40, int64_t{1} << 40, 1}, {int64_t{1} << 40, 1, 1, 2}, {}, false},
                 "overflows int64", "x count overflows int64");
    expectReject({makeAttrs({1}, {0}), {1, 1 << 20, 8}, {1 << 20, 1 << 12, 1, 2}, {}, false}, "weight", "weight 2^33 elements");
    expectReject({makeAttrs({1}, {0}), {1, 1 << 16, 8}, {1 << 16, 1 << 15, 1, 2}, {}, false}, "weight", "weight >= 2^31");
    expectReject({makeAttrs({1}, {0}), {1 << 16, 1, 8}, {1, 1 << 13, 1, 2}, {}, false}, "output y", "y >= 2^31");
    expectReject({makeAttrs({2, 1}, {0, 0}), {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}, {INT64_MAX, 1, 2, 1, 2}, {}, false},
                 "overflows int64", "INT64_MAX dims");
    expectReject({makeAttrs({1}, {0}), {1, 1, 8}, {1, INT64_MAX, 1, 2}, {}, false}, "weight", "weight INT64_MAX Cout");
    // No crash with null shape output.
    expect(!inferShape(ok.attrs, ok.x.data(), 4, ok.w.data(), 5, nullptr, 0, nullptr).ok, "null shape pointer rejected");
}

SpectralConvAttrs withOutput(SpectralConvAttrs a, std::initializer_list<int> out) {
    a.outputRank = static_cast<int32_t>(out.size());
    int j = 0;
    for (int v : out) a.outputSize[j++] = v;
    return a;
}

// output_size: optional, d entries >= 1; the output takes it, the kept modes stay relative to S.
void testOutputSize() {
    expect(validateAttrs(withOutput(makeAttrs({4, 3}, {4, 0}), {32, 17}), 2, 2).ok, "output_size 2d ok");
    expectAttrReject(withOutput(makeAttrs({4, 3}, {4, 0}), {32}), 2, 2, "output_size has 1 entries", "output_size length");
    expectAttrReject(withOutput(makeAttrs({4}, {0}), {0}), 1, 1, "output_size[0] = 0", "output_size 0");
    expectAttrReject(withOutput(makeAttrs({4, 3}, {4, 0}), {8, -3}), 2, 2, "output_size[1] = -3", "output_size < 0");
    Case up{withOutput(makeAttrs({2, 4}, {3, 0}), {20, 3}), {2, 3, 7, 10}, {3, 5, 5, 4, 2}, {5}, true};
    SpectralConvShape s;
    const Status st = run(up, &s);
    expect(st.ok, "output_size 7x10 -> 20x3: " + st.message);
    expect(s.spatial[0] == 7 && s.spatial[1] == 10 && s.outSpatial[0] == 20 && s.outSpatial[1] == 3, "outSpatial");
    expect(resamples(s) && outSize(s, 1) == 3, "resamples / outSize");
    int64_t y[5] = {};
    outputDims(s, y);
    expect(y[0] == 2 && y[1] == 5 && y[2] == 20 && y[3] == 3, "outputDims with output_size");
    // Modes are checked against the input (p_d = 4 > 3//2+1 is fine: the bins above T/2 are cut off).
    expectReject({withOutput(makeAttrs({2, 7}, {3, 0}), {64, 64}), {2, 3, 7, 10}, {3, 5, 5, 7, 2}, {}, false},
                 "exceeds S_2//2 + 1 = 6", "modes vs input, not output");
    expectReject({withOutput(makeAttrs({1}, {0}), {1 << 30}), {4, 1, 8}, {1, 1, 1, 2}, {}, false}, "output y",
                 "output_size makes y >= 2^31");
    // Hand-built shapes (outSpatial 0) mean "same as the input".
    SpectralConvShape manual;
    manual.rank = 1;
    manual.spatial[0] = 9;
    expect(!resamples(manual) && outSize(manual, 0) == 9, "outSpatial 0 = input size");
}

}  // namespace

int main() {
    testAttrs();
    testShapes();
    testOutputSize();
    testSkip();
    std::printf("%d checks, %d failures\n", gChecks, gFailures);
    return gFailures == 0 ? 0 : 1;
}
