// CPU unit tests of the CUDA planner (plugins/cuda/plan.h, plan_separable.h): shape -> plan, no GPU.
// Checks the algorithm choice, the pass chain of the separable algorithm (kinds, sizes, buffers,
// strides), the split of the last forward pass, the support check, and that the workspace bound is
// monotone and covers every smaller shape (random shapes; seed from TURBOFNO_TEST_SEED, printed).
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "plan.h"
#include "test_support.h"
#include "turbofno/core.h"

using namespace turbofno;
using cuda::Buffer;
using cuda::PassKind;

namespace {

int gFailures = 0, gChecks = 0;

void expect(bool cond, const std::string& what) {
    ++gChecks;
    if (!cond) {
        ++gFailures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

core::SpectralConvShape makeShape(std::initializer_list<int64_t> S, std::initializer_list<int64_t> K, int64_t n = 2,
                                  int64_t cin = 3, int64_t cout = 4) {
    core::SpectralConvShape s;
    s.rank = static_cast<int32_t>(S.size());
    int j = 0;
    for (int64_t v : S) s.spatial[j++] = v;
    j = 0;
    for (int64_t v : K) s.kept[j++] = v;
    s.batch = n;
    s.inChannels = cin;
    s.outChannels = cout;
    return s;
}

core::SpectralConvAttrs makeAttrs(std::initializer_list<int32_t> low, std::initializer_list<int32_t> high) {
    core::SpectralConvAttrs a;
    a.rank = static_cast<int32_t>(low.size());
    int j = 0;
    for (int32_t v : low) a.modesLow[j++] = v;
    j = 0;
    for (int32_t v : high) a.modesHigh[j++] = v;
    return a;
}

std::string name(const core::SpectralConvShape& s) {
    std::string r = "N" + std::to_string(s.batch) + " C" + std::to_string(s.inChannels) + "->" + std::to_string(s.outChannels) + " S";
    for (int j = 0; j < s.rank; ++j) r += (j ? "x" : "") + std::to_string(s.spatial[j]);
    r += " K";
    for (int j = 0; j < s.rank; ++j) r += (j ? "x" : "") + std::to_string(s.kept[j]);
    return r;
}

// The separable chain: forward R2C then C2C per leading axis into the spectrum; inverse C2C per
// leading axis then C2R into y; each pass reads what the previous one wrote, never in place.
void checkChain(const core::SpectralConvShape& s) {
    const cuda::SeparablePlan sp = cuda::planSeparable(s, nullptr);
    const std::string n = name(s);
    const int d = s.rank;
    expect(sp.supported, n + ": separable supported");
    expect(sp.nFwd == d && sp.nInv == d, n + ": one pass per axis each way");
    expect(sp.fwd[0].kind == PassKind::kR2C && sp.fwd[0].src == Buffer::kX, n + ": forward starts with R2C on x");
    expect(sp.fwd[0].pass.M == s.kept[d - 1] && sp.fwd[0].pass.K == s.spatial[d - 1] / 2 + 1, n + ": R2C sizes (paired samples)");
    expect(sp.inv[d - 1].pass.M == s.spatial[d - 1] / 2 + 1 && sp.inv[d - 1].pass.K == s.kept[d - 1], n + ": C2R sizes (paired samples)");
    expect(sp.fwd[d - 1].dst == Buffer::kSpecIn, n + ": forward ends in the spectrum");
    expect(sp.inv[0].src == Buffer::kSpecOut, n + ": inverse starts from the mixed spectrum");
    expect(sp.inv[d - 1].kind == PassKind::kC2R && sp.inv[d - 1].dst == Buffer::kY, n + ": inverse ends with C2R into y");
    for (int i = 1; i < d; ++i) {
        expect(sp.fwd[i].kind == PassKind::kC2C && sp.fwd[i].src == sp.fwd[i - 1].dst, n + ": forward chain");
        expect(sp.inv[i].src == sp.inv[i - 1].dst, n + ": inverse chain");
        // forward pass i transforms leading axis d - 1 - i
        const int j = d - 1 - i;
        expect(sp.fwd[i].pass.M == s.kept[j] && sp.fwd[i].pass.K == s.spatial[j] && sp.fwd[i].pass.S == s.spatial[j],
               n + ": forward C2C sizes");
        expect(sp.inv[i - 1].pass.M == s.spatial[i - 1] && sp.inv[i - 1].pass.K == s.kept[i - 1] && sp.inv[i - 1].pass.inverse == 1,
               n + ": inverse C2C sizes");
    }
    for (int i = 0; i < d; ++i) {
        expect(sp.fwd[i].src != sp.fwd[i].dst && sp.inv[i].src != sp.inv[i].dst, n + ": no pass works in place");
        expect(sp.fwd[i].pass.tileM == cuda::passTileM(sp.fwd[i].kind, sp.fwd[i].pass.M), n + ": tile rule");
        expect(sp.fwd[i].pass.tensorCores == (sp.fwd[i].kind == PassKind::kC2C ? 1 : 0) &&
                   sp.inv[i].pass.tensorCores == (sp.inv[i].kind == PassKind::kC2C ? 1 : 0),
               n + ": complex passes on tensor cores, real passes on FMA");
    }
    // columns x rows of every pass cover its tensors exactly
    int64_t lines = s.batch * s.inChannels;
    for (int j = 0; j < d - 1; ++j) lines *= s.spatial[j];
    expect(sp.fwd[0].pass.N == lines, n + ": R2C runs over every line of x");
    const cuda::DftPass& last = sp.fwd[d - 1].pass;
    expect(last.kPerSplit % 16 == 0 || last.kPerSplit == last.K, n + ": split k range in whole steps");
    expect(sp.split == (last.fftLongCols ? last.fftLongCols / (2 * last.fftLines) : (last.K + last.kPerSplit - 1) / last.kPerSplit),
           n + ": split count matches the k range (the four-step FFT: its column tiles)");
    expect(sp.split >= 1 && sp.split <= cuda::kMaxPassSplit, n + ": split within limits");
    for (int i = 0; i + 1 < d; ++i) expect(sp.fwd[i].pass.kPerSplit == sp.fwd[i].pass.K, n + ": only the last forward pass splits");
    int64_t kall = 1;
    for (int j = 0; j < d; ++j) kall *= s.kept[j];
    const size_t spec = static_cast<size_t>(s.batch * s.inChannels * kall) * 8;
    expect(sp.offSpecOut - sp.offSpecIn >= spec * sp.split, n + ": partial spectra fit");
    expect(last.cSplitStride == static_cast<int64_t>(spec / 8), n + ": partials one spectrum apart (the mixing kernel's stride)");
    double prodS = 1;
    for (int j = 0; j < d; ++j) prodS *= static_cast<double>(s.spatial[j]);
    expect(std::abs(sp.inv[d - 1].pass.scale - static_cast<float>(1.0 / prodS)) <= 1e-7f / static_cast<float>(prodS) * 4,
           n + ": C2R scale 1/prod(S)");
    expect(sp.inv[d - 1].pass.nyquist == (s.spatial[d - 1] % 2 == 0 ? s.spatial[d - 1] / 2 : -1), n + ": Nyquist column");
}

void testChoice() {
    expect(cuda::chooseAlgorithm(makeShape({4096}, {64})) == cuda::Algorithm::kSeparable, "1D runs separable");
    expect(cuda::chooseAlgorithm(makeShape({48, 48, 48}, {24, 24, 12})) == cuda::Algorithm::kSeparable, "3D runs separable");
    const cuda::Plan p2 = cuda::makePlan(makeShape({128, 128}, {64, 32}), nullptr);
    expect(p2.supported && p2.algo == cuda::Algorithm::kSeparable, "2D 128x128 m32: separable (FFT rows of 128 points)");
    expect(cuda::chooseAlgorithm(makeShape({256, 256}, {128, 64})) == cuda::Algorithm::kSeparable, "2D m64: separable");
    expect(cuda::chooseAlgorithm(makeShape({384, 384}, {96, 32})) == cuda::Algorithm::kSeparable, "2D 384x384: separable");
    expect(cuda::chooseAlgorithm(makeShape({256, 256}, {64, 32})) == cuda::Algorithm::kSeparable, "2D 256x256 m32: separable (FFT rows)");
    // FFT last axes: separable from more than kFftFusedMaxRows (512) rows in all, the fused plane below
    expect(cuda::chooseAlgorithm(makeShape({250, 180}, {64, 32})) == cuda::Algorithm::kSeparable, "2D 250x180 m32: separable");
    expect(cuda::chooseAlgorithm(makeShape({96, 96}, {48, 24}, 8, 32, 32)) == cuda::Algorithm::kSeparable &&
               cuda::chooseAlgorithm(makeShape({48, 40}, {24, 12}, 1, 8, 8)) == cuda::Algorithm::kFusedPlane &&
               cuda::chooseAlgorithm(makeShape({48, 48}, {24, 12}, 1, 8, 8)) == cuda::Algorithm::kSeparable,
           "8x32x96x96 m24: separable; 1x8x48x40 m12 (384 rows): fused; 1x8x48x48 m12: separable (the plane kernels)");
    expect(cuda::chooseAlgorithm(makeShape({64, 64}, {12, 7}, 32, 64, 64)) == cuda::Algorithm::kSeparable, "32x64 planes of 64x64: separable");
    expect(cuda::chooseAlgorithm(makeShape({64, 64}, {12, 7}, 8, 64, 64)) == cuda::Algorithm::kSeparable &&
               cuda::chooseAlgorithm(makeShape({64, 64}, {32, 16}, 1, 32, 32)) == cuda::Algorithm::kSeparable &&
               cuda::chooseAlgorithm(makeShape({64, 64}, {32, 16}, 4, 32, 32)) == cuda::Algorithm::kSeparable &&
               cuda::chooseAlgorithm(makeShape({64, 64}, {32, 16}, 4, 64, 64)) == cuda::Algorithm::kSeparable &&
               cuda::chooseAlgorithm(makeShape({64, 64}, {24, 12}, 8, 32, 32)) == cuda::Algorithm::kSeparable,
           "8x64, 1x32, 4x32, 4x64, 8x32 planes of 64x64: separable");
    expect(cuda::chooseAlgorithm(makeShape({64, 40}, {32, 16}, 1, 8, 8)) == cuda::Algorithm::kFusedPlane &&
               cuda::chooseAlgorithm(makeShape({64, 40}, {32, 16}, 1, 9, 9)) == cuda::Algorithm::kSeparable &&
               cuda::chooseAlgorithm(makeShape({64, 64}, {32, 16}, 1, 8, 8)) == cuda::Algorithm::kSeparable,
           "1x8 planes of 64x40 (512 rows): fused; 1x9 (576 rows): separable; 1x8 of 64x64: separable (the plane kernels)");
    expect(cuda::chooseAlgorithm(makeShape({128, 128}, {16, 8}, 8, 64, 64)) == cuda::Algorithm::kSeparable, "128x128 m8: separable");
    expect(cuda::chooseAlgorithm(makeShape({128, 128}, {64, 32}, 8, 64, 64)) == cuda::Algorithm::kSeparable, "8x64x128x128 m32: separable");
    cuda::setFftPassOverride(0);
    expect(cuda::chooseAlgorithm(makeShape({256, 256}, {64, 32})) == cuda::Algorithm::kFusedPlane, "2D 256x256 m32 without FFT: fused plane");
    cuda::setFftPassOverride(-1);
    // an axis the fused plane cannot hold runs separable, whatever the rule says
    const cuda::Plan pl = cuda::makePlan(makeShape({8, 30011}, {4, 40}), nullptr);
    expect(!pl.fusedSupported && pl.supported && pl.algo == cuda::Algorithm::kSeparable, "2D 8x30011: separable (fused cannot)");
    const cuda::Plan p1 = cuda::makePlan(makeShape({65536}, {64}, 4, 32, 32), nullptr);
    expect(p1.supported && p1.algo == cuda::Algorithm::kSeparable && p1.sep.split > 1, "1D 65536: separable with a split k range");
    expect(p1.g.split == 1, "separable partials are summed before mixing");
    // support check with its reason
    const core::SpectralConvShape huge = makeShape({1 << 22}, {8}, 1, 1, 1);
    const core::Status st = core::cudaCheckSupported(huge, core::DataType::kFloat32);
    expect(!st.ok && st.message.find("too long") != std::string::npos, "2^22-point axis refused with a reason: " + st.message);
    expect(core::cudaCheckSupported(makeShape({65536}, {64}), core::DataType::kFloat32).ok, "65536-point axis supported");
    // tile rule
    expect(cuda::passTileM(PassKind::kR2C, 12) == 16 && cuda::passTileM(PassKind::kR2C, 32) == 32 &&
               cuda::passTileM(PassKind::kC2R, 4096) == 32,
           "real passes: 16 or 32 rows");
    expect(cuda::passTileM(PassKind::kC2C, 24) == 32 && cuda::passTileM(PassKind::kC2C, 200) == 64, "complex passes: up to 64 rows");
}

// Resampling (output size T != S): the inverse passes run at T, bins the output cannot hold are
// dropped, the fused plane is not used, and the scale follows the norm.
void testResampling() {
    core::SpectralConvShape s = makeShape({24, 20}, {9, 6});
    s.outSpatial[0] = 12;
    s.outSpatial[1] = 9;
    core::SpectralConvAttrs a = makeAttrs({5, 6}, {4, 0});
    a.norm = core::FftNorm::kOrtho;
    const cuda::Plan plan = cuda::makePlan(s, &a);
    expect(plan.supported && !plan.fusedSupported && plan.algo == cuda::Algorithm::kSeparable, "resampling: separable only");
    const cuda::SeparablePlan& sp = plan.sep;
    expect(sp.inv[0].pass.M == 12 && sp.inv[0].pass.S == 12 && sp.inv[0].pass.kLimit == 12 && sp.inv[0].pass.kOff == 24 - 9,
           "resampling: leading inverse at T_1, spectrum indices kept, f >= T_1 dropped");
    expect(sp.inv[1].pass.M == 9 / 2 + 1 && sp.inv[1].pass.K == 5 && sp.inv[1].pass.S == 9 && sp.inv[1].pass.nyquist == -1,
           "resampling: C2R at T_2 = 9 reads bins 0..4 only");
    expect(std::abs(sp.inv[1].pass.scale - static_cast<float>(1.0 / std::sqrt(24.0 * 20 * 12 * 9))) < 1e-9f, "resampling: ortho scale");
    expect(sp.inv[1].pass.c.innerStride == 9 && sp.inv[1].pass.biasDiv == 12, "resampling: y rows of length T_2");
}

// The fused layer (op version 2) runs on the separable algorithm: skip first, epilogue in C2R.
void testFusedLayer() {
    core::SpectralConvShape s = makeShape({64, 40}, {32, 17}, 1, 8, 8);  // 512 rows of 40 points: the fused plane
    s.hasSkip = true;
    core::SpectralConvAttrs a = makeAttrs({16, 17}, {16, 0});
    a.activation = core::Activation::kGeluTanh;
    const cuda::Plan p = cuda::makePlan(s, &a);
    expect(p.supported && p.fusedSupported && p.algo == cuda::Algorithm::kFusedPlane && p.g.addY == 1 && p.g.activation == 2,
           "fused layer: the fused plane (the planner's 2D choice) with the skip in y and the activation in its inverse");
    expect(p.sep.skipPoints == 64 * 40 && p.sep.inv[1].pass.addY == 1 && p.sep.inv[1].pass.activation == 2,
           "fused layer: skip GEMM over prod(S) points, C2R adds it and applies the activation");
    core::SpectralConvShape plain = makeShape({64, 64}, {32, 17}, 1, 8, 8);
    a.activation = core::Activation::kIdentity;
    const cuda::Plan q = cuda::makePlan(plain, &a);
    expect(q.sep.skipPoints == 0 && q.sep.inv[1].pass.addY == 0 && q.sep.inv[1].pass.activation == 0, "plain layer: no epilogue");
    // the skip GEMM runs on tensor cores unless the test hook forces the FMA kernel
    expect(p.skipTc, "fused layer: skip GEMM on tensor cores by default");
    cuda::setSkipTcOverride(0);
    expect(!cuda::makePlan(s, &a).skipTc, "skip GEMM override 0: FMA kernel");
    cuda::setSkipTcOverride(1);
    expect(cuda::makePlan(s, &a).skipTc, "skip GEMM override 1: tensor cores");
    cuda::setSkipTcOverride(-1);

    // 1D layers whose R2C runs on the radix-2 kernel launch it and the skip GEMM as one grid
    // (skip_r2c_colaunch.cuh); nothing else does
    expect(!p.skipCoLaunch, "fused plane: no co-launch");
    core::SpectralConvShape b = makeShape({256}, {17}, 32, 64, 64);  // the Burgers model's layer
    b.hasSkip = true;
    core::SpectralConvAttrs ab = makeAttrs({17}, {0});
    ab.activation = core::Activation::kGeluErf;
    const cuda::Plan pb = cuda::makePlan(b, &ab);
    expect(pb.supported && pb.algo == cuda::Algorithm::kSeparable && pb.sep.fwd[0].kind == PassKind::kR2C && pb.sep.fwd[0].pass.fft &&
               pb.sep.fwd[0].pass.fftRadices == 0,
           "Burgers layer: radix-2 R2C first");
    expect(pb.skipCoLaunch == cuda::kSkipCoLaunchDefault, "Burgers layer with a skip: co-launch as the default says");
    core::SpectralConvShape bPlain = makeShape({256}, {17}, 32, 64, 64);
    cuda::setSkipCoLaunchOverride(1);
    expect(cuda::makePlan(b, &ab).skipCoLaunch, "co-launch override 1: on");
    expect(!cuda::makePlan(bPlain, &ab).skipCoLaunch, "no skip weight: nothing to co-launch");
    core::SpectralConvShape odd = makeShape({250}, {17}, 32, 64, 64);  // mixed-radix rows: not the radix-2 kernel
    odd.hasSkip = true;
    expect(!cuda::makePlan(odd, &ab).skipCoLaunch, "250-point rows: no co-launch");
    core::SpectralConvShape lng = makeShape({8192}, {64}, 4, 64, 64);  // four-step long axis
    lng.hasSkip = true;
    expect(!cuda::makePlan(lng, &ab).skipCoLaunch, "long 1D axis: no co-launch");
    cuda::setSkipTcOverride(0);
    expect(!cuda::makePlan(b, &ab).skipCoLaunch, "FMA skip GEMM: no co-launch");
    cuda::setSkipTcOverride(-1);
    cuda::setSkipCoLaunchOverride(0);
    expect(!cuda::makePlan(b, &ab).skipCoLaunch, "co-launch override 0: off");
    cuda::setSkipCoLaunchOverride(-1);
}

// FFT passes (fft_pass.cuh): R2C for S_d in [8, 8192] with S_d / 2 = 2^a 3^b 5^c, with kd <= S_d/2 + 1 (and fftRowsPay),
// C2R also needs T_d == S_d; never a split; lines per block within the line budget and 48 KB of shared
// memory; the hook forces them off (0) or back on (1, -1).
bool smooth235(int64_t v) {
    for (int64_t f : {2, 3, 5})
        while (v % f == 0) v /= f;
    return v == 1;
}
void testFftPasses() {
    auto sep = [](const core::SpectralConvShape& s) { return cuda::makePlan(s, nullptr).sep; };
    cuda::setFftLongOverride(0);  // the row FFTs' rules alone (the four-step long-axis FFT: testFftLong)
    for (int64_t S : {4, 6, 8, 10, 12, 14, 16, 22, 37, 42, 45, 48, 75, 96, 98, 100, 128, 180, 250, 360, 384, 720, 1000, 1024, 1458,
                      1536, 2916, 3840, 4050, 4096, 4100, 4320, 4374, 8192, 8193, 16384, 65536}) {
      // few kept bins, and a quarter of the bins (long lines take the FFT only with many bins: fftRowsPay)
      for (const int64_t kd : {std::max<int64_t>(1, std::min<int64_t>(S / 2 + 1, 5)), std::max<int64_t>(1, S / 4)}) {
        const auto s = makeShape({S}, {kd}, 2, 3, 4);
        const cuda::SeparablePlan sp = sep(s);
        const bool inRange = S >= cuda::kFftMinLen && S <= cuda::kFftMaxLen && cuda::fftRowsPay(S, kd);
        const bool pow2 = (S & (S - 1)) == 0 && inRange;
        const bool mixed = !pow2 && inRange && S % 2 == 0 && smooth235(S / 2);
        const std::string n = name(s);
        expect(sp.fwd[0].pass.fft == (pow2 || mixed ? 1 : 0) && sp.inv[0].pass.fft == (pow2 || mixed ? 1 : 0),
               n + ": FFT passes exactly for 8..8192 points, powers of two or 2 * 2^a 3^b 5^c");
        const bool capable = S >= cuda::kFftMinLen && S <= cuda::kFftMaxLen && S % 2 == 0 && smooth235(S / 2);
        expect(cuda::fftLength(S) == capable && cuda::lastAxisUsesFft(s) == (pow2 || mixed), n + ": fftLength / lastAxisUsesFft");
        for (const cuda::DftPass* r : {&sp.fwd[0].pass, &sp.inv[0].pass}) {
            if (!r->fft) continue;
            const int64_t blockPoints = static_cast<int64_t>(r->fftLines) * S / 2;
            if (pow2 && blockPoints < cuda::kFftRadix2Below) {
                expect(r->fftRadices == 0 && (r->fftLines & (r->fftLines - 1)) == 0 &&
                           static_cast<int64_t>(r->fftLines) * S <= cuda::kFftLineBudget,
                       n + ": small power-of-two blocks run the radix-2 kernel (lines per block a power of two)");
                continue;
            }
            // expected stages (4-bit codes, first stage lowest; code 1 = radix 16): powers of two as 16s
            // and one 8, 4 or 2; else the 3s, the 5s, the 4s, then a single 2
            std::vector<int> want;
            int64_t n2 = S / 2, twos = 0;
            for (; n2 % 3 == 0; n2 /= 3) want.push_back(3);
            for (; n2 % 5 == 0; n2 /= 5) want.push_back(5);
            for (; n2 % 2 == 0; n2 /= 2) ++twos;
            if (pow2) {  // the largest radix: 16 from 4096 points per block, 8 from 2048, else 4
                const int64_t points = static_cast<int64_t>(r->fftLines) * S / 2;
                const int b = points >= 4096 ? 4 : points >= 2048 ? 3 : 2;
                for (int64_t i = 0; i < twos / b; ++i) want.push_back(1 << b);
                if (twos % b) want.push_back(1 << (twos % b));
            } else {
                for (int64_t i = 0; i < twos / 2; ++i) want.push_back(4);
                if (twos % 2) want.push_back(2);
            }
            std::vector<int> got;
            for (unsigned v = static_cast<unsigned>(r->fftRadices); v; v >>= 4) got.push_back(cuda::fftRadixOf(v & 15u));
            expect(got == want && got.size() <= 7, n + ": FFT stages (product S/2)");
            expect(cuda::fftSmemBytes(static_cast<int>(S), r->fftLines) <= cuda::fftSmemAllowed(r->fftLines),
                   n + ": FFT block within 48 KB (one-line blocks: within the opt-in limit)");
            expect(r->fftLines >= 1 && static_cast<int64_t>(r->fftLines) * S <= cuda::kFftLineBudget, n + ": FFT lines per block within the budget");
        }
        if (pow2 || mixed) {
            const cuda::DftPass& r = sp.fwd[0].pass;
            expect(sp.split == 1 && r.kPerSplit >= r.K, n + ": an FFT R2C never splits");
            expect(r.b.rowStride == 1 && r.b.innerStride == S && r.b.inner >= r.N && r.c.rowStride == 1 && r.c.innerStride == kd &&
                       r.c.inner >= r.N,
                   n + ": FFT R2C on contiguous lines");
            const cuda::DftPass& c = sp.inv[0].pass;
            expect(c.c.rowStride == 1 && c.c.innerStride == S && c.c.inner >= c.N && c.b.rowStride == 1 && c.b.innerStride == kd,
                   n + ": FFT C2R on contiguous lines");
        }
      }
    }
    // long lines with few kept bins stay on the DFT passes (fftRowsPay), unless the FFT passes are forced on
    auto rowFft = [&](int64_t S, int64_t kd, int64_t B) {
        const cuda::SeparablePlan p = sep(makeShape({S}, {kd}, B, 64, 64));
        return p.fwd[0].pass.fft == 1 && p.inv[0].pass.fft == 1;
    };
    expect(rowFft(512, 16, 16) && !rowFft(1024, 16, 32) && rowFft(1024, 32, 32) && rowFft(2048, 32, 32) && !rowFft(4096, 32, 32) &&
               rowFft(4096, 128, 4) && !rowFft(8192, 32, 32) && rowFft(8192, 64, 4) && !rowFft(8192, 16, 1) && rowFft(8192, 1024, 2),
           "fftRowsPay: FFT rows below 1024 points, from 24 bins up to 2048 points, from 48 bins beyond");
    cuda::setFftPassOverride(1);
    expect(rowFft(4096, 32, 32) && rowFft(8192, 16, 1), "FFT passes forced on: every fftLength axis");
    cuda::setFftPassOverride(0);
    expect(!rowFft(512, 16, 16) && !rowFft(8192, 64, 4), "FFT passes forced off: DFT passes");
    cuda::setFftPassOverride(-1);
    // small power-of-two blocks: the radix-2 kernel; from 2048 values per block the Stockham kernel
    expect(sep(makeShape({256}, {17}, 8, 64, 64)).fwd[0].pass.fftRadices == 0 && sep(makeShape({256}, {17}, 8, 64, 64)).fwd[0].pass.fftLines == 1,
           "8x64x256 (Burgers at batch 8): radix-2 kernel, 1 line per block");
    expect(sep(makeShape({1024}, {256}, 8, 256, 256)).fwd[0].pass.fftRadices == 0x888 &&
               sep(makeShape({256, 256}, {64, 32}, 16, 32, 32)).fwd[0].pass.fftRadices == 0x81,
           "8x256x1024 (4 lines, 2048 values per block) and 16x32x256x256: the Stockham kernel");
    // the row FFTs' first / last stage: the R2C direct from x from 128 points, the C2R always staged
    expect(sep(makeShape({256}, {32})).fwd[0].pass.fftDirect == 1 && sep(makeShape({64}, {16})).fwd[0].pass.fftDirect == 0 &&
               sep(makeShape({256}, {32})).inv[0].pass.fftDirect == 0,
           "fftDirect: R2C direct from 128 points, C2R staged");
    // the compile-time row FFT kernels (kFftStaticRadices): the lengths they are for get exactly those lists
    // from the planner at full blocks, and with the planner's stage variant run them
    {
        const int64_t lengths[] = {64, 128, 256, 512, 1024, 48, 180, 384, 1024, 64, 128};
        static_assert(sizeof(lengths) / sizeof(lengths[0]) == cuda::kFftStaticCount, "one length per list");
        bool all = true;
        for (int i = 0; i < cuda::kFftStaticCount; ++i) {
            const int64_t S = lengths[i];
            // 65536 lines: full blocks; then 2048-value blocks: 8x256x1024 (2048 lines), 8x64x64x64 (32768 lines),
            // 2x64x128x128 (16384 lines)
            const cuda::SeparablePlan p = i == 8    ? sep(makeShape({S}, {256}, 8, 256, 256))
                                          : i == 9  ? sep(makeShape({64, 64}, {16, 16}, 8, 64, 64))
                                          : i == 10 ? sep(makeShape({128, 128}, {32, 32}, 2, 64, 64))
                                                    : sep(makeShape({S}, {S / 4}, 256, 256, 256));
            all = all && cuda::fftRadicesProduct(cuda::kFftStaticRadices[i]) == S / 2 &&
                  p.fwd[0].pass.fftRadices == static_cast<int>(cuda::kFftStaticRadices[i]) &&
                  p.inv[p.nInv - 1].pass.fftRadices == static_cast<int>(cuda::kFftStaticRadices[i]) &&
                  cuda::fftStaticKernelRuns(p.fwd[0].pass, false) && cuda::fftStaticKernelRuns(p.inv[p.nInv - 1].pass, true);
        }
        cuda::DftPass other = sep(makeShape({256}, {64}, 64, 64, 64)).inv[0].pass;
        other.fftDirect ^= 1;
        expect(all && !cuda::fftStaticKernelRuns(other, true),
               "compile-time row FFT kernels: S = 64 .. 1024, 48, 180, 384 at full blocks, 2048-value blocks of 64, 128, 1024 points (planner's stage variant only)");
    }
    // the stage lists (4 bits per stage, first stage lowest; code 1 = radix 16)
    expect(cuda::fftStages(90) == 0x2533 && cuda::fftStages(192) == 0x4443 && cuda::fftStages(125) == 0x555 &&
               cuda::fftStages(24) == 0x243 && cuda::fftStages(5) == 0x5 && cuda::fftStages(1458) == 0x2333333 &&
               cuda::fftStages(1944) == 0x2433333 && cuda::fftStages(2025) == 0x553333 && cuda::fftStages(480) == 0x24453,
           "fftStages: 3s, 5s, 4s, a last 2");
    expect(cuda::fftStages(4) == 0x4 && cuda::fftStages(16) == 0x1 && cuda::fftStages(32) == 0x21 && cuda::fftStages(128) == 0x81 &&
               cuda::fftStages(256) == 0x11 && cuda::fftStages(2048) == 0x811,
           "fftStages: powers of two as 16s (code 1) and one 8, 4 or 2");
    expect(cuda::fftStages(2048, 8) == 0x4888 && cuda::fftStages(512, 4) == 0x24444 && cuda::fftStages(64, 8) == 0x88,
           "fftStages: a smaller radix cap (8, 4) where the block has fewer points");
    expect(cuda::fftStages(1) == 0 && cuda::fftStages(7) == 0 && cuda::fftStages(21) == 0 && cuda::fftStages(6561) == 0,
           "fftStages: 0 below 2, for other primes and more than 7 stages");
    // kept bins past S/2 + 1 (not a valid layer, but the R2C rule): DFT pass
    expect(!sep(makeShape({64}, {40})).fwd[0].pass.fft && !sep(makeShape({48}, {30})).fwd[0].pass.fft, "R2C with kd > S/2 + 1: DFT pass");
    // many lines: the full line budget per block; few lines: fewer per block (grid of >= kFftTargetBlocks where possible)
    expect(sep(makeShape({128, 128}, {64, 32}, 8, 64, 64)).fwd[0].pass.fftLines == 64, "8x64x128x128: 64 lines of 128 per block");
    expect(sep(makeShape({128}, {16}, 1, 4, 4)).fwd[0].pass.fftLines == 1, "1x4x128: 1 line per block (4 lines in all)");
    expect(sep(makeShape({8192}, {64}, 4, 64, 64)).fwd[0].pass.fft && sep(makeShape({8192}, {64}, 4, 64, 64)).fwd[0].pass.fftLines == 1 &&
               sep(makeShape({8192}, {64}, 4, 64, 64)).fwd[0].pass.fftRadices == 0x111 && !sep(makeShape({16384}, {4096})).fwd[0].pass.fft,
           "8192-point lines: FFT passes, one line per block, radix 16 x 3 (82 KB opted in); 16384: DFT passes (kFftMaxLen)");
    expect(cuda::fftSmemBytes(8192, 1) > cuda::kFftSmemLimit && cuda::fftSmemBytes(8192, 1) <= cuda::kFftSmemMax &&
               cuda::fftSmemBytes(7680, 1) <= cuda::kFftSmemMax,
           "fftSmemBytes: 8192 / 7680-point lines need the opt-in and fit it");
    // mixed radix: any line count; the benchmark geometries; long lines limited by shared memory
    expect(sep(makeShape({250, 180}, {80, 40}, 4, 64, 64)).fwd[0].pass.fftLines == 45, "4x64x250x180: 45 lines of 180 per block");
    expect(sep(makeShape({384, 384}, {96, 48}, 2, 128, 128)).inv[1].pass.fftLines == 21, "2x128x384x384: 21 lines of 384 per block");
    expect(sep(makeShape({48, 48}, {24, 12}, 1, 8, 8)).fwd[0].pass.fftLines == 1, "1x8x48x48: 1 line per block (384 lines in all)");
    expect(sep(makeShape({3840}, {64}, 32, 64, 64)).fwd[0].pass.fftLines == 1 && sep(makeShape({1000}, {64}, 64, 64, 64)).fwd[0].pass.fftLines == 8,
           "3840-point lines: 1 per block (48 KB); 1000-point lines: 8 (line budget)");
    // 3D: leading axes as column FFTs where their view has >= kFftColumn3dMinInner (8) columns per outer index
    // (the kept modes of the later axes), else DFT passes
    const cuda::SeparablePlan s3 = sep(makeShape({32, 32, 64}, {8, 8, 16}, 1, 4, 4));
    expect(s3.fwd[0].pass.fft && s3.fwd[1].pass.fft && s3.fwd[2].pass.fft && s3.inv[0].pass.fft && s3.inv[1].pass.fft &&
               s3.inv[2].pass.fft,
           "3D 32x32x64 k16: FFTs on every axis");
    const cuda::SeparablePlan s3m = sep(makeShape({48, 48, 48}, {24, 24, 12}, 2, 32, 32));
    expect(s3m.fwd[0].pass.fft && s3m.fwd[0].pass.fftRadices == 0x243 && s3m.fwd[1].pass.fft && s3m.fwd[2].pass.fft &&
               s3m.inv[0].pass.fft && s3m.inv[1].pass.fft && s3m.inv[2].pass.fft,
           "3D 48^3 m12: mixed-radix FFTs on every axis");
    const cuda::SeparablePlan s3few = sep(makeShape({48, 48, 48}, {12, 12, 6}, 32, 32, 32));
    expect(s3few.fwd[1].pass.b.inner == 6 && !s3few.fwd[1].pass.fft && s3few.fwd[2].pass.fft && s3few.inv[0].pass.fft &&
               !s3few.inv[1].pass.fft,
           "3D 48^3 m6: the middle axis (6 columns per outer index) on the DFT pass, the first as a column FFT");
    // forced: setFftColumn3dOverride(1) every leading axis of a column length as a column FFT, (0) none; same views
    cuda::setFftColumn3dOverride(1);
    const cuda::SeparablePlan s3c = sep(makeShape({48, 48, 48}, {12, 12, 6}, 32, 32, 32));
    const cuda::SeparablePlan s3odd = sep(makeShape({48, 7, 40}, {24, 5, 12}, 2, 3, 3));
    cuda::setFftColumn3dOverride(0);
    const cuda::SeparablePlan s3d = sep(makeShape({48, 48, 48}, {24, 24, 12}, 2, 32, 32));
    cuda::setFftColumn3dOverride(-1);
    expect(s3c.fwd[1].pass.fft && s3c.fwd[2].pass.fft && s3c.inv[0].pass.fft && s3c.inv[1].pass.fft &&
               s3c.fwd[1].pass.fftRadices == 0x443 && s3c.fwd[1].pass.b.inner == 6 && s3c.fwd[2].pass.b.inner == 12 * 6 &&
               s3c.fwd[1].pass.b.inner == s3few.fwd[1].pass.b.inner && s3c.inv[1].pass.c.inner == s3few.inv[1].pass.c.inner,
           "3D 48^3 m6 with 3D column FFTs forced: both leading axes as column FFTs, same views");
    expect(!s3odd.fwd[1].pass.fft && s3odd.fwd[2].pass.fft && s3odd.inv[0].pass.fft && !s3odd.inv[1].pass.fft,
           "3D 48x7x40 with 3D column FFTs forced: the 7-point axis stays a DFT pass");
    expect(s3d.fwd[0].pass.fft && !s3d.fwd[1].pass.fft && !s3d.fwd[2].pass.fft && !s3d.inv[0].pass.fft && !s3d.inv[1].pass.fft &&
               s3d.inv[2].pass.fft,
           "3D 48^3 with 3D column FFTs forced off: FFTs only on the last axis");
    // 2D: column FFTs on the leading axis (48 = 3 x 4 x 4)
    const cuda::SeparablePlan s2m = sep(makeShape({48, 48}, {24, 12}, 2, 32, 32));
    expect(s2m.fwd[1].pass.fft && s2m.fwd[1].pass.fftRadices == 0x443 && s2m.inv[0].pass.fft, "2D 48x48: column FFTs on the leading axis");
    // column FFTs: W columns per block (a power of two up to 64, W * n <= 4096, at most the view's
    // columns; fewer for small grids, down to 4); lengths 8..1024 of 2^a 3^b 5^c; no resampling
    const cuda::SeparablePlan s2 = sep(makeShape({256, 256}, {64, 32}, 16, 32, 32));
    expect(s2.fwd[1].pass.fft && s2.fwd[1].pass.fftLines == 16 && s2.fwd[1].pass.b.inner == 32 && s2.inv[0].pass.fftLines == 16,
           "16x32x256x256: column FFTs of 16 columns per block");
    expect(sep(makeShape({128, 128}, {32, 17}, 1, 4, 4)).fwd[1].pass.fftLines == 4, "1x4x128x128: 4 columns per block (small grid)");
    expect(sep(makeShape({64, 16}, {24, 7}, 1, 2, 2)).fwd[1].pass.fftLines == 3, "1x2x64x16: a partial tile of the 7 columns");
    expect(!sep(makeShape({2048, 16}, {64, 9}, 1, 4, 4)).fwd[1].pass.fft && !sep(makeShape({14, 16}, {8, 9}, 1, 4, 4)).fwd[1].pass.fft &&
               sep(makeShape({1024, 16}, {64, 9}, 1, 4, 4)).fwd[1].pass.fft && sep(makeShape({45, 16}, {20, 9}, 1, 4, 4)).fwd[1].pass.fft,
           "column FFT lengths: 1024 and 45 yes, 2048 and 14 (factor 7) no");
    expect(cuda::fftColumnLength(8) && !cuda::fftColumnLength(4) && cuda::fftColumnLength(125) && !cuda::fftColumnLength(1030),
           "fftColumnLength: 8..1024, 2^a 3^b 5^c");
    // resampling of the last axis: the C2R runs at T_d -> DFT pass; R2C (at S_d) still FFT
    core::SpectralConvShape r = makeShape({64, 64}, {16, 9});
    r.outSpatial[1] = 128;
    const cuda::SeparablePlan sr = sep(r);
    expect(sr.fwd[0].pass.fft && !sr.inv[1].pass.fft, "last axis resampled 64 -> 128: FFT R2C, DFT C2R");
    core::SpectralConvShape rlead = makeShape({64, 64}, {16, 9});
    rlead.outSpatial[0] = 32;
    const cuda::SeparablePlan sr0 = sep(rlead);
    expect(sr0.fwd[1].pass.fft && !sr0.inv[0].pass.fft, "leading axis resampled 64 -> 32: column FFT forward, DFT inverse");
    expect(!cuda::lastAxisUsesFft(r), "last axis resampled: lastAxisUsesFft false");
    core::SpectralConvShape rm = makeShape({40}, {9});
    rm.outSpatial[0] = 60;
    expect(sep(rm).fwd[0].pass.fft && !sep(rm).inv[0].pass.fft, "last axis resampled 40 -> 60: mixed FFT R2C, DFT C2R");
    core::SpectralConvShape r0 = makeShape({64, 64}, {16, 9});
    r0.outSpatial[0] = 32;
    expect(sep(r0).inv[1].pass.fft, "only a leading axis resampled: FFT C2R (T_d == S_d)");
    // 1D with a small grid: the DFT pass splits, the FFT pass does not
    const auto small = makeShape({1024}, {32}, 1, 4, 4);
    expect(sep(small).split == 1, "1x4x1024 m32 FFT: split 1");
    cuda::setFftPassOverride(0);
    const cuda::SeparablePlan off = sep(small);
    expect(!off.fwd[0].pass.fft && !off.inv[0].pass.fft && off.split > 1, "FFT override 0: DFT passes (and the DFT pass's split)");
    expect(!sep(makeShape({128, 128}, {64, 32}, 8, 64, 64)).inv[1].pass.fft, "FFT override 0: 2D C2R DFT pass");
    expect(!sep(makeShape({180}, {16})).fwd[0].pass.fft && !cuda::lastAxisUsesFft(makeShape({180}, {16})), "FFT override 0: no mixed radix either");
    cuda::setFftPassOverride(1);
    expect(sep(small).fwd[0].pass.fft && sep(makeShape({100}, {8})).fwd[0].pass.fft && !sep(makeShape({98}, {8})).fwd[0].pass.fft,
           "FFT override 1: whenever possible");
    cuda::setFftPassOverride(-1);
    expect(sep(small).fwd[0].pass.fft && sep(small).inv[0].pass.fft, "FFT default: on whenever possible");
    // the algorithm choice: mixed-radix rows count as FFT rows (chooseAlgorithm's rule, unmeasured for
    // them); the benchmark shapes: 250x180 m40 and 384x384 m48 separable (>= 40 modes), 48x48 m12 fused
    expect(cuda::chooseAlgorithm(makeShape({64, 384}, {16, 16}, 4, 8, 8)) == cuda::Algorithm::kSeparable, "2D 4x8x64x384 m16: separable (FFT rows)");
    expect(cuda::chooseAlgorithm(makeShape({250, 180}, {80, 40}, 4, 64, 64)) == cuda::Algorithm::kSeparable, "4x64x250x180 m40: separable");
    expect(cuda::chooseAlgorithm(makeShape({384, 384}, {96, 48}, 2, 128, 128)) == cuda::Algorithm::kSeparable, "2x128x384x384 m48: separable");
    expect(cuda::chooseAlgorithm(makeShape({48, 48}, {24, 12}, 1, 8, 8)) == cuda::Algorithm::kSeparable, "1x8x48x48 m12: separable (plane kernels)");
    cuda::setFftPassOverride(0);
    expect(cuda::chooseAlgorithm(makeShape({64, 384}, {16, 16})) == cuda::Algorithm::kFusedPlane, "2D 64x384 m16 without FFT: fused plane");
    cuda::setFftPassOverride(-1);
    cuda::setFftLongOverride(-1);
}

// The four-step long-axis FFT (fft_pass_long.cuh): 1D layers from kFftLongFrom points where the row FFTs
// cannot run or do not pay, S = Na * Nb with 2 kd <= Na <= kFftLongMaxNa (the smallest such 2^a 3^b 5^c divisor
// from kFftLongMinNa), W = 2 fftLines columns per block dividing Nb, one partial spectrum per W columns.
void testFftLong(std::mt19937_64& rng) {
    auto sep = [](const core::SpectralConvShape& s) { return cuda::makePlan(s, nullptr).sep; };
    auto isLong = [&](const core::SpectralConvShape& s) {
        const cuda::SeparablePlan p = sep(s);
        return p.fwd[0].pass.fftLongCols > 0 && p.inv[p.nInv - 1].pass.fftLongCols == p.fwd[0].pass.fftLongCols;
    };
    {
        const auto s = makeShape({65536}, {64}, 4, 32, 32);
        const cuda::SeparablePlan p = sep(s);
        const cuda::DftPass &f = p.fwd[0].pass, &i = p.inv[0].pass;
        expect(f.fft && f.fftLongCols == 256 && f.fftLines == 16 && f.fftRadices == cuda::fftStages(256) && p.split == 8 &&
                   f.cSplitStride == 4 * 32 * 64 && i.fftLongCols == 256 && i.fftLines == 16 && i.K == 64 &&
                   cuda::lastAxisUsesFftLong(s) && !cuda::fftStaticKernelRuns(f, false),
               "4x32x65536 m64: four-step FFT, Na 256 (4 kd), 32 columns per block, 8 partial spectra");
    }
    {
        const cuda::SeparablePlan p = sep(makeShape({8192}, {32}, 32, 64, 64));
        expect(p.fwd[0].pass.fftLongCols == 64 && p.fwd[0].pass.fftLines == 32 && p.split == 1, "32x64x8192 m32: four-step FFT, Na 128, one tile");
        expect(sep(makeShape({16384}, {256}, 1, 2, 2)).fwd[0].pass.fftLongCols == 32, "16384 m256: Na 512 = 2 kd (no divisor from 4 kd)");
    }
    expect(isLong(makeShape({8192}, {64}, 4, 64, 64)) && isLong(makeShape({4096}, {128}, 4, 64, 64)),
           "4x64x8192 m64, 4x64x4096 m128: the four-step FFT where the row FFTs also run (power-of-two Na)");
    expect(!isLong(makeShape({7680}, {64}, 8, 64, 64)) && sep(makeShape({7680}, {64}, 8, 64, 64)).fwd[0].pass.fft,
           "8x64x7680 m64: the row FFTs (the four-step's Na 160 is not a power of two)");
    expect(!isLong(makeShape({1024}, {16}, 32, 64, 64)) && !isLong(makeShape({2048}, {32}, 32, 64, 64)),
           "below kFftLongFrom: not the four-step FFT");
    expect(!isLong(makeShape({4, 16384}, {2, 32}, 2, 8, 8)), "2D layers: not the four-step FFT");
    expect(!isLong(makeShape({65537}, {16})) && !isLong(makeShape({65536}, {300})), "no divisor Na (prime S, kd > 256): DFT passes");
    {
        auto r = makeShape({65536}, {64}, 1, 4, 4);
        r.outSpatial[0] = 32768;
        expect(!isLong(r) && !cuda::lastAxisUsesFftLong(r), "resampled last axis: not the four-step FFT");
    }
    cuda::setFftLongOverride(1);
    expect(isLong(makeShape({1024}, {16}, 32, 64, 64)) && isLong(makeShape({8192}, {64}, 4, 64, 64)), "four-step forced on: whenever possible");
    cuda::setFftLongOverride(0);
    expect(!isLong(makeShape({65536}, {64}, 4, 32, 32)) && sep(makeShape({65536}, {64}, 4, 32, 32)).split > 1,
           "four-step forced off: DFT passes (k split)");
    cuda::setFftLongOverride(-1);
    cuda::setFftPassOverride(0);
    expect(!isLong(makeShape({65536}, {64}, 4, 32, 32)), "FFT passes off: no four-step FFT either");
    cuda::setFftPassOverride(-1);
    // random shapes: every four-step plan is well formed
    std::uniform_int_distribution<int> e2(0, 14), e3(0, 3), e5(0, 2), kdPick(1, 300), lineExp(0, 9);
    int plans = 0;
    for (int t = 0; t < 3000; ++t) {
        int64_t S = int64_t{1} << (e2(rng) + 3);
        for (int j = e3(rng); j > 0; --j) S *= 3;
        for (int j = e5(rng); j > 0; --j) S *= 5;
        if (S > (int64_t{1} << 22)) continue;
        const int64_t kd = std::min<int64_t>(kdPick(rng), S / 2 + 1), lines = int64_t{1} << lineExp(rng);
        const cuda::FftLongShape f = cuda::fftLongShape(S, kd, lines, cuda::kMaxPassSplit);
        if (f.Na == 0) continue;
        ++plans;
        const int64_t Nb = S / f.Na;
        const bool ok = S % f.Na == 0 && 2 * kd <= f.Na && f.Na >= cuda::kFftLongMinNa && f.Na <= cuda::kFftLongMaxNa &&
                        cuda::fftStages(f.Na) != 0 && f.W >= 16 && f.W <= 64 && (f.W & (f.W - 1)) == 0 && Nb % f.W == 0 &&
                        Nb / f.W <= cuda::kMaxPassSplit && static_cast<int64_t>(f.W) * f.Na <= 2 * cuda::kFftColumnPoints &&
                        cuda::fftLongSmemBytes(f.Na, f.W / 2, static_cast<int>(kd)) <= cuda::kFftSmemLimit;
        if (!ok) {
            expect(false, "four-step plan S=" + std::to_string(S) + " kd=" + std::to_string(kd) + ": Na " + std::to_string(f.Na) +
                              " W " + std::to_string(f.W) + " violates its limits");
            break;
        }
    }
    expect(plans > 100, "random four-step plans: " + std::to_string(plans) + " well formed");
}

void testChains() {
    checkChain(makeShape({37}, {7}));
    checkChain(makeShape({65536}, {64}, 4, 32, 32));
    checkChain(makeShape({1024}, {256}, 8, 256, 256));
    checkChain(makeShape({12, 17}, {5, 5}));
    checkChain(makeShape({128, 128}, {64, 32}, 8, 64, 64));
    checkChain(makeShape({48, 48, 48}, {24, 24, 12}, 2, 32, 32));
    checkChain(makeShape({96, 96, 64}, {32, 32, 16}, 1, 16, 16));
    checkChain(makeShape({5, 6, 7}, {4, 3, 3}, 1, 1, 1));
}

// The mixing kernel: the weight ring runs where a thread has enough multiply-add steps (batch chunk x
// input channels; 128 or more), never for separable weights, and its shared memory stays within the budget.
void testMixing(std::mt19937_64& rng) {
    auto plan = [](const core::SpectralConvShape& s, bool separable = false) {
        core::SpectralConvAttrs a = makeAttrs({1}, {0});
        a.separable = separable ? 1 : 0;
        return cuda::makePlan(s, separable ? &a : nullptr);
    };
    expect(plan(makeShape({64, 64}, {32, 16}, 1, 128, 128)).g.mixRing == 1, "ring at 1x128x64x64 (128 steps)");
    expect(plan(makeShape({64, 64}, {32, 16}, 1, 64, 64)).g.mixRing == 0, "no ring at 1x64x64x64 (64 steps)");
    expect(plan(makeShape({1024}, {256}, 8, 256, 256)).g.mixRing == 1, "ring at 8x256x1024");
    expect(plan(makeShape({128, 128}, {64, 32}, 8, 64, 64)).g.mixRing == 1, "ring at 8x64x128x128 m32");
    expect(plan(makeShape({64, 64}, {32, 16}, 1, 32, 32)).g.mixRing == 0, "no ring at 1x32x64x64 (32 steps)");
    expect(plan(makeShape({48, 48}, {24, 12}, 1, 8, 8)).g.mixRing == 0, "no ring at 1x8x48x48");
    expect(plan(makeShape({1024}, {256}, 8, 256, 256), true).g.mixRing == 0, "no ring for separable weights");
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    int bad = 0;
    for (int it = 0; it < 2000; ++it) {
        const int64_t S = uni(4, 400);
        const core::SpectralConvShape s = makeShape({S}, {uni(1, S / 2 + 1)}, uni(1, 40), uni(1, 600), uni(1, 600));
        const cuda::Plan p = plan(s);
        const bool rule = !p.g.mixFlatOmWarps && static_cast<int64_t>(p.g.mixBatch) * p.g.Cin >= 128;
        if (p.g.mixRing != (rule ? 1 : 0) || p.mixSmem > cuda::kSmemBudget) {
            if (++bad <= 5) std::printf("  ring %d smem %zu: %s\n", p.g.mixRing, p.mixSmem, name(s).c_str());
        }
    }
    expect(bad == 0, "ring rule and mixing shared memory <= budget (2000 random shapes)");
}

// The flat mixing kernel (mixing_flat.cuh): weight tensors below kMixFlatMaxWeightBytes with <= 32 modes, or
// <= 8 batch items and <= 1024 modes; never separable;
// the warps along o * Kall + m (down to 2), the batch chunk, then the warps shrink until the grid has ~kTargetBlocks blocks.
void testFlatMixing(std::mt19937_64& rng) {
    auto plan = [](const core::SpectralConvShape& s, bool separable = false) {
        core::SpectralConvAttrs a = makeAttrs({1}, {0});
        a.separable = separable ? 1 : 0;
        return cuda::makePlan(s, separable ? &a : nullptr);
    };
    const cuda::Plan b32 = plan(makeShape({256}, {17}, 32, 64, 64));  // the burgers layer, batch 32
    expect(b32.g.mixFlatOmWarps == 2 && b32.g.mixBatch == 2, "flat mixing 32x64x256 m17: 2 om warps, batch chunk 2");
    const cuda::Plan b1 = plan(makeShape({256}, {17}, 1, 64, 64));
    expect(b1.g.mixFlatOmWarps == 1 && b1.g.mixBatch == 1, "flat mixing 1x64x256 m17: 1 om warp (8 channel groups)");
    const cuda::Plan darcy = plan(makeShape({64, 64}, {12, 7}, 8, 64, 64));
    expect(darcy.g.mixFlatOmWarps == 2 && darcy.g.mixBatch == 2, "flat mixing 8x64x64x64 K12x7: 2 om warps, batch 2");
    expect(plan(makeShape({64, 64}, {12, 7}, 32, 64, 64)).g.mixFlatOmWarps == 0, "tiled mixing at 32x64x64x64 K12x7");
    expect(plan(makeShape({96, 96, 64}, {32, 32, 16}, 1, 16, 16)).g.mixFlatOmWarps == 0, "tiled mixing with 16384 modes");
    expect(plan(makeShape({128, 128}, {64, 32}, 8, 64, 64)).g.mixFlatOmWarps == 0, "tiled mixing at 8x64x128x128 m32");
    expect(plan(makeShape({256}, {17}, 32, 64, 64), true).g.mixFlatOmWarps == 0, "separable weights: never flat");
    expect(b32.g.mixRing == 0 && b32.mixSmem == 0, "flat mixing: no ring, no dynamic shared memory");
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    int bad = 0;
    for (int it = 0; it < 2000; ++it) {
        const int64_t S = uni(4, 400);
        const core::SpectralConvShape s = makeShape({S}, {uni(1, S / 2 + 1)}, uni(1, 40), uni(1, 300), uni(1, 300));
        const cuda::Plan p = plan(s);
        const bool small = static_cast<size_t>(s.inChannels * s.outChannels * s.kept[0]) * 8 < cuda::kMixFlatMaxWeightBytes &&
                           (s.kept[0] <= 32 || (s.batch <= 8 && s.kept[0] <= 1024));
        const int w = p.g.mixFlatOmWarps;
        const bool ok = small ? ((w == 1 || w == 2 || w == 4 || w == 8) && p.g.mixBatch >= 1 &&
                                 p.g.mixBatch <= cuda::kMixMaxFlatBatch && p.g.mixBatch <= s.batch)
                              : w == 0;
        if (!ok && ++bad <= 5) std::printf("  flat %d batch %d: %s\n", w, p.g.mixBatch, name(s).c_str());
    }
    expect(bad == 0, "flat mixing rule (2000 random shapes)");
}

// The mixing inside the radix-2 C2R (Plan::mixInC2R, mixing_c2r.cuh): 1D layers whose only inverse pass is the
// radix-2 C2R, with lines of one batch item per block (Cout % L == 0), where the flat mixing kernel would run
// (or the weights are separable) and a thread sums at most kMixInC2RMaxChain channels; the C2R then reads the
// forward spectrum, the channel groups fill 256 threads.
void testMixInC2R(std::mt19937_64& rng) {
    auto plan = [](const core::SpectralConvShape& s, bool separable = false) {
        core::SpectralConvAttrs a = makeAttrs({static_cast<int32_t>(s.kept[0])}, {0});
        a.separable = separable ? 1 : 0;
        return cuda::makePlan(s, &a);
    };
    auto c2r = [](const cuda::Plan& p) { return p.sep.inv[p.sep.nInv - 1]; };
    expect(!plan(makeShape({256}, {17}, 32, 64, 64)).mixInC2R, "32x64x256 m17 (22 channels per thread): the mixing kernel");
    cuda::setMixInC2ROverride(1);
    const cuda::Plan b32 = plan(makeShape({256}, {17}, 32, 64, 64));  // the burgers layer
    const cuda::PassStep s32 = c2r(b32);
    expect(b32.mixInC2R && s32.src == cuda::Buffer::kSpecIn && s32.pass.mixCin == 64 && s32.pass.mixCout == 64 &&
               s32.pass.mixKall == 17 && s32.pass.fftLines == 4 && s32.pass.mixGroups == 3 && !s32.pass.mixSeparable,
           "32x64x256 m17 forced: mixing in the C2R, 4 lines per block, 3 channel groups, reads the forward spectrum");
    cuda::setMixInC2ROverride(-1);
    const cuda::Plan b1 = plan(makeShape({256}, {17}, 1, 64, 64));
    expect(b1.mixInC2R && c2r(b1).pass.fftLines == 1 && c2r(b1).pass.mixGroups == 15, "1x64x256 m17: 1 line, 15 channel groups");
    const cuda::Plan sep = plan(makeShape({256}, {17}, 32, 64, 64), true);
    expect(sep.mixInC2R && c2r(sep).pass.mixSeparable == 1 && c2r(sep).pass.mixGroups == 1, "separable weights: in the C2R, one group");
    expect(!plan(makeShape({128, 128}, {12, 7}, 8, 64, 64)).mixInC2R, "2D off the plane kernels: the mixing kernel");
    expect(!plan(makeShape({64, 64}, {32, 16}, 8, 64, 64)).mixInC2R, "2D on the plane kernels, 16.8M complex MACs: the mixing kernel");
    expect(!plan(makeShape({256}, {17}, 300, 16, 6)).mixInC2R, "Cout 6, 4 lines per block: the mixing kernel");
    expect(!plan(makeShape({1024}, {32}, 64, 32, 32)).mixInC2R, "2048-value blocks (the Stockham C2R): the mixing kernel");
    const core::SpectralConvShape big = makeShape({256}, {40}, 16, 32, 32);  // 40 bins, 16 items: tiled mixing
    expect(!plan(big).mixInC2R && plan(big).g.mixFlatOmWarps == 0, "weights the flat rule does not take: the mixing kernel");
    cuda::setMixInC2ROverride(1);
    expect(plan(big).mixInC2R, "forced on: in the C2R wherever the kernel can run it");
    cuda::setMixInC2ROverride(0);
    expect(!plan(makeShape({256}, {17}, 1, 64, 64)).mixInC2R, "forced off: the mixing kernel");
    cuda::setMixInC2ROverride(-1);
    cuda::setMixFlatOverride(0);
    expect(!plan(makeShape({256}, {17}, 1, 64, 64)).mixInC2R, "tiled mixing forced: the mixing kernel");
    cuda::setMixFlatOverride(-1);
    // random 1D shapes: taken exactly where the rule says, and then within the kernel's limits
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    int bad = 0, taken = 0;
    for (int it = 0; it < 2000; ++it) {
        const int64_t S = int64_t{1} << uni(3, 11);
        const core::SpectralConvShape s = makeShape({S}, {uni(1, S / 2 + 1)}, uni(1, 40), uni(1, 80), uni(1, 80));
        const cuda::Plan p = plan(s);
        const cuda::DftPass& c = c2r(p).pass;
        const bool radix2 = p.algo == cuda::Algorithm::kSeparable && p.sep.nInv == 1 && cuda::fftRadix2KernelRuns(c);
        const int groups = std::max<int>(1, std::min<int>(p.g.Cin, 256 / (c.fftLines * c.K)));
        const size_t smem = cuda::fftRadix2SmemBytes(c.S, c.fftLines) + cuda::mixC2RSmemBytes(c.fftLines, c.K, groups);
        const bool rule = radix2 && p.g.Cout % c.fftLines == 0 && p.g.mixFlatOmWarps > 0 && smem <= cuda::kFftSmemLimit &&
                          (p.g.Cin + groups - 1) / groups <= cuda::kMixInC2RMaxChain;
        const bool limits = !p.mixInC2R || (c2r(p).src == cuda::Buffer::kSpecIn && c.mixCin == p.g.Cin && c.mixCout == p.g.Cout &&
                                            c.mixGroups >= 1 && (c.mixGroups == 1 || c.mixGroups * c.fftLines * c.K <= 256));
        taken += p.mixInC2R;
        if ((p.mixInC2R != rule || !limits) && ++bad <= 5)
            std::printf("  mixInC2R %d rule %d lines %d groups %d: %s\n", p.mixInC2R, rule, c.fftLines, c.mixGroups, name(s).c_str());
    }
    expect(bad == 0 && taken > 100, "mixing-in-C2R rule and limits (2000 random 1D shapes, " + std::to_string(taken) + " taken)");

    // 2D on the plane kernels (planMixInPlane): by default where the whole mixing is at most kMixInPlaneMaxMacs complex
    // MACs; forced: the inverse plane's C2R pass carries the mixing, the column inverse reads the forward spectrum, groups
    // fill the block within the row buffer
    auto plan2 = [](const core::SpectralConvShape& s, int32_t low, bool separable = false) {
        core::SpectralConvAttrs a = makeAttrs({low, static_cast<int32_t>(s.kept[1])}, {static_cast<int32_t>(s.kept[0]) - low, 0});
        a.separable = separable ? 1 : 0;
        return cuda::makePlan(s, &a);
    };
    const core::SpectralConvShape ns = makeShape({64, 64}, {32, 16}, 1, 32, 32);  // 1x32x64x64 m16
    expect(plan2(ns, 16).sep.plane != 0 && plan2(ns, 16).mixInC2R,
           "1x32x64x64 m16 on the plane kernels (0.5M complex MACs): mixing inside the inverse plane by default");
    // the measured shapes either side of the bound (plan.cpp): 1x64x64x64 m16 (2.1M) inside, 8x64x64x64 m16 (16.8M) and
    // 32x64x64x64 m6 (9.4M) in the mixing kernel
    expect(plan2(makeShape({64, 64}, {32, 16}, 1, 64, 64), 16).mixInC2R, "1x64x64x64 m16: mixing inside by default");
    expect(plan2(makeShape({64, 64}, {32, 16}, 8, 64, 64), 16).sep.plane != 0 && !plan2(makeShape({64, 64}, {32, 16}, 8, 64, 64), 16).mixInC2R,
           "8x64x64x64 m16 (16.8M complex MACs): the mixing kernel by default");
    expect(!plan2(makeShape({64, 64}, {12, 6}, 32, 64, 64), 6).mixInC2R, "32x64x64x64 m6 (9.4M): the mixing kernel by default");
    {  // the default rule on random plane shapes: inside exactly when the plane kernels run and the mixing is small
        int wrong = 0, inside = 0, outside = 0;
        const int64_t planes[] = {32, 48, 64};
        for (int it = 0; it < 1000; ++it) {
            const int64_t S1 = planes[uni(0, 2)], S2 = planes[uni(0, 2)];
            const core::SpectralConvShape s = makeShape({S1, S2}, {uni(1, S1), uni(1, S2 / 2 + 1)}, uni(1, 32), uni(1, 80), uni(1, 80));
            const bool sepW = uni(0, 3) == 0;
            const cuda::Plan p = plan2(s, static_cast<int32_t>(uni(0, s.kept[0])), sepW);
            const int64_t macs = s.batch * s.outChannels * (sepW ? 1 : s.inChannels) * s.kept[0] * s.kept[1];
            const bool want = p.sep.plane != 0 && p.algo == cuda::Algorithm::kSeparable && macs <= cuda::kMixInPlaneMaxMacs;
            inside += p.mixInC2R && p.sep.plane != 0;
            outside += !p.mixInC2R && p.sep.plane != 0;
            if (p.mixInC2R != want && ++wrong <= 5) std::printf("  default plane mixInC2R %d want %d: %s\n", p.mixInC2R, want, name(s).c_str());
        }
        expect(wrong == 0 && inside > 50 && outside > 10, "mixing inside the inverse plane by default (1000 random 2D shapes, " +
                                                              std::to_string(inside) + " inside, " + std::to_string(outside) + " not)");
    }
    cuda::setMixInC2ROverride(1);
    const cuda::Plan pm = plan2(ns, 16);
    const cuda::DftPass& pc = pm.sep.inv[1].pass;
    expect(pm.mixInC2R && pm.sep.inv[0].src == cuda::Buffer::kSpecIn && pc.mixCin == 32 && pc.mixCout == 32 && pc.mixKall == 512 &&
               pc.mixGroups == 2 && !pc.mixSeparable && pm.sep.inv[1].dst == cuda::Buffer::kY,
           "1x32x64x64 m16 forced: the inverse plane mixes (512 bins, 2 channel groups of 1024 threads), reads the forward spectrum");
    expect(plan2(ns, 16, true).sep.inv[1].pass.mixGroups == 1, "separable weights: one group");
    expect(!plan2(makeShape({96, 96}, {24, 12}, 1, 8, 8), 12).mixInC2R && plan2(makeShape({96, 96}, {24, 12}, 1, 8, 8), 12).sep.plane == 0,
           "a plane the plane kernels do not take: no mixing inside");
    bad = 0;
    taken = 0;
    const int64_t sizes[] = {32, 48, 64};
    for (int it = 0; it < 1000; ++it) {
        const int64_t S1 = sizes[uni(0, 2)], S2 = sizes[uni(0, 2)];
        const core::SpectralConvShape s = makeShape({S1, S2}, {uni(1, S1), uni(1, S2 / 2 + 1)}, uni(1, 8), uni(1, 80), uni(1, 80));
        const cuda::Plan p = plan2(s, static_cast<int32_t>(uni(0, s.kept[0])), uni(0, 3) == 0);
        const cuda::DftPass& c = p.sep.inv[p.sep.nInv - 1].pass;
        const int q = static_cast<int>(s.kept[0] * s.kept[1]);
        const bool want = p.sep.plane != 0 && p.algo == cuda::Algorithm::kSeparable;
        const bool limits = !p.mixInC2R || (c.mixCin == p.g.Cin && c.mixCout == p.g.Cout && c.mixKall == q && c.mixGroups >= 1 &&
                                            c.mixGroups <= p.g.Cin && cuda::fftPlaneMixGroupsFit(static_cast<int>(S1), static_cast<int>(S2), q, c.mixGroups) &&
                                            (c.mixGroups == 1 || c.mixGroups * q <= p.sep.plane) && p.sep.inv[0].src == cuda::Buffer::kSpecIn);
        taken += p.mixInC2R;
        if ((p.mixInC2R != want || !limits) && ++bad <= 5)
            std::printf("  plane mixInC2R %d want %d groups %d: %s\n", p.mixInC2R, want, c.mixGroups, name(s).c_str());
    }
    cuda::setMixInC2ROverride(-1);
    expect(bad == 0 && taken > 100, "mixing inside the inverse plane, forced (1000 random 2D shapes, " + std::to_string(taken) + " taken)");
}

// The plane kernels (SeparablePlan::plane, fft_plane.cuh): the compile-time stage lists of kFftPlaneShapes are what
// the planner's rules give (rows: fftStages(S2 / 2) with the radix capped by the block's S1 S2 / 2 values as for the
// row kernels; columns: fftStages(S1)), every listed plane fits 48 KB at every kd, and the planner takes them exactly
// for 2D layers on a listed plane whose axes run as FFTs without resampling, by fftPlanePays, with the passes the
// kernels read (R2C + column FFT, column inverse + C2R); never beside a co-launched skip GEMM.
void testFftPlane(std::mt19937_64& rng) {
    for (const cuda::FftPlaneShape& ps : cuda::kFftPlaneShapes) {
        const int values = ps.S1 * ps.S2 / 2;
        const int cap = values >= 4096 ? 16 : values >= 2048 ? 8 : 4;
        expect(static_cast<unsigned>(cuda::fftStages(ps.S2 / 2, cap)) == ps.row && static_cast<unsigned>(cuda::fftStages(ps.S1)) == ps.col,
               "plane " + std::to_string(ps.S1) + "x" + std::to_string(ps.S2) + ": the planner's stage lists");
        expect(cuda::fftPlaneSmemBytes(ps.S1, ps.S2, ps.S2 / 2 + 1) <= cuda::kFftSmemLimit,
               "plane " + std::to_string(ps.S1) + "x" + std::to_string(ps.S2) + ": every kd within 48 KB");
        expect(cuda::fftPlaneShapeIndex(ps.S1, ps.S2) >= 0, "listed plane found");
    }
    expect(cuda::fftPlaneShapeIndex(64, 48) < 0 && cuda::fftPlaneShapeIndex(128, 128) < 0, "unlisted planes: none");
    auto plan = [](const core::SpectralConvShape& s, int mode = -1) {
        core::SpectralConvAttrs a = makeAttrs({static_cast<int32_t>(s.kept[0] / 2), static_cast<int32_t>(s.kept[1])},
                                              {static_cast<int32_t>(s.kept[0] - s.kept[0] / 2), 0});
        cuda::setFftPlaneOverride(mode);
        const cuda::Plan p = cuda::makePlan(s, &a);
        cuda::setFftPlaneOverride(-1);
        return p;
    };
    const cuda::Plan on = plan(makeShape({64, 64}, {32, 16}, 1, 32, 32), 1);
    const cuda::SeparablePlan& sp = on.sep;
    expect(sp.plane == cuda::kFftPlaneWideThreads && sp.fwd[0].kind == PassKind::kR2C && sp.fwd[1].kind == PassKind::kC2C && sp.fwd[1].dst == Buffer::kSpecIn &&
               on.mixInC2R && sp.inv[0].src == Buffer::kSpecIn && sp.inv[1].dst == Buffer::kY && sp.fwd[0].pass.M == 16 &&
               sp.fwd[1].pass.b.inner == 16,
           "1x32x64x64 m16 forced: the plane kernels over the R2C + column and column + C2R passes (the mixing inside: the "
           "column inverse reads the forward spectrum), 1024-thread blocks (32 planes)");
    expect(plan(makeShape({64, 64}, {32, 16}, 8, 32, 32), 1).sep.plane == cuda::kFftPlaneThreads, "256 planes: 256-thread blocks");
    expect(plan(makeShape({64, 64}, {32, 16}, 1, 32, 32), cuda::kFftPlaneThreads).sep.plane == cuda::kFftPlaneThreads &&
               plan(makeShape({64, 64}, {32, 16}, 8, 32, 32), cuda::kFftPlaneWideThreads).sep.plane == cuda::kFftPlaneWideThreads,
           "block size forced either way");
    expect(plan(makeShape({64, 64}, {32, 16}, 1, 32, 32), 0).sep.plane == 0, "forced off: one kernel per pass");
    expect(plan(makeShape({64, 48}, {32, 16}, 1, 32, 32), 1).sep.plane == 0, "64x48 (not listed): one kernel per pass");
    expect(plan(makeShape({48, 48, 48}, {24, 24, 12}), 1).sep.plane == 0 && plan(makeShape({64}, {16}), 1).sep.plane == 0,
           "3D / 1D: one kernel per pass");
    core::SpectralConvShape resampled = makeShape({64, 64}, {16, 9}, 1, 4, 4);
    resampled.outSpatial[0] = 128;
    resampled.outSpatial[1] = 128;
    expect(plan(resampled, 1).sep.plane == 0, "resampling: one kernel per pass");
    cuda::setFftPassOverride(0);
    expect(plan(makeShape({64, 64}, {32, 16}, 1, 32, 32), 1).sep.plane == 0, "DFT passes forced: one kernel per pass");
    cuda::setFftPassOverride(-1);
    core::SpectralConvShape fusedLayer = makeShape({64, 64}, {12, 7}, 1, 32, 32);
    fusedLayer.hasSkip = true;
    const cuda::Plan fl = plan(fusedLayer, 1);
    expect(fl.sep.plane != 0 && !fl.skipCoLaunch && fl.sep.skipPoints == 64 * 64 && fl.sep.inv[1].pass.addY == 1,
           "fused layer on the plane kernels: the skip GEMM first (no co-launch), the C2R epilogue adds to y");
    // random 2D shapes on listed planes and around them: taken exactly where the rule says
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    const int64_t sizes[] = {32, 48, 64, 40, 96};
    int bad = 0, taken = 0;
    for (int it = 0; it < 1000; ++it) {
        const int64_t S1 = sizes[uni(0, 4)], S2 = sizes[uni(0, 4)];
        const core::SpectralConvShape s = makeShape({S1, S2}, {uni(1, S1), uni(1, S2 / 2 + 1)}, uni(1, 40), uni(1, 64), uni(1, 64));
        const cuda::Plan p = plan(s);
        const cuda::SeparablePlan& q = p.sep;
        const bool ffts = q.fwd[0].pass.fft && q.fwd[1].pass.fft && q.inv[0].pass.fft && q.inv[1].pass.fft;
        const int64_t planes = std::max(s.batch * s.inChannels, s.batch * s.outChannels);
        const bool rule = ffts && cuda::fftPlaneShapeIndex(static_cast<int>(S1), static_cast<int>(S2)) >= 0 && cuda::fftPlanePays(planes);
        const int threads = rule ? (planes < cuda::kFftPlaneWideBelow ? cuda::kFftPlaneWideThreads : cuda::kFftPlaneThreads) : 0;
        taken += q.plane != 0;
        if ((q.plane != threads) && ++bad <= 5) std::printf("  plane %d rule %d: %s\n", q.plane, rule, name(s).c_str());
        // makePlan hands chooseAlgorithm the separable plan it made with the node's attributes (a random split of
        // the kept rows into low / high): the same choice as the shape alone
        const int32_t low = static_cast<int32_t>(uni(0, s.kept[0]));
        const core::SpectralConvAttrs at = makeAttrs({low, static_cast<int32_t>(s.kept[1])},
                                                     {static_cast<int32_t>(s.kept[0] - low), 0});
        const cuda::SeparablePlan withAttrs = cuda::planSeparable(s, &at);
        if (cuda::chooseAlgorithm(s, &withAttrs) != cuda::chooseAlgorithm(s) && ++bad <= 5)
            std::printf("  chooseAlgorithm with the node's separable plan differs: %s\n", name(s).c_str());
    }
    expect(bad == 0 && taken > 20, "plane rule and chooseAlgorithm with makePlan's separable plan (1000 random 2D shapes, " +
                                       std::to_string(taken) + " taken)");
}

// Random shapes: bytes(s) <= bound(max) for s <= max, and bytes is monotone in every size.
void testWorkspaceBound(std::mt19937_64& rng) {
    auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    int bad = 0;
    for (int it = 0; it < 3000; ++it) {
        const int d = static_cast<int>(uni(1, 3));
        core::SpectralConvShape mx;
        mx.rank = d;
        mx.batch = uni(1, 40);
        mx.inChannels = uni(1, 40);
        mx.outChannels = uni(1, 40);
        for (int j = 0; j < d; ++j) {
            mx.spatial[j] = uni(2, d == 1 ? 5000 : (d == 2 ? 300 : 40));
            const int64_t cap = j == d - 1 ? mx.spatial[j] / 2 + 1 : mx.spatial[j];
            mx.kept[j] = uni(1, cap);
        }
        core::SpectralConvShape s = mx;
        s.batch = uni(1, mx.batch);
        s.inChannels = uni(1, mx.inChannels);
        s.outChannels = uni(1, mx.outChannels);
        for (int j = 0; j < d; ++j) {
            const int64_t lo = j == d - 1 ? 2 * (s.kept[j] - 1) : s.kept[j];
            s.spatial[j] = uni(std::max<int64_t>(1, lo), mx.spatial[j]);
        }
        const size_t bound = core::cudaWorkspaceBound(mx, core::DataType::kFloat32);
        const size_t bytes = core::cudaWorkspaceBytes(s, core::DataType::kFloat32);
        if (bytes > bound) {
            if (++bad <= 5) std::printf("  bound %zu < bytes %zu: %s within %s\n", bound, bytes, name(s).c_str(), name(mx).c_str());
        }
        const size_t maxBytes = core::cudaWorkspaceBytes(mx, core::DataType::kFloat32);
        if (maxBytes > bound) {
            if (++bad <= 5) std::printf("  bound %zu < bytes(max) %zu: %s\n", bound, maxBytes, name(mx).c_str());
        }
    }
    expect(bad == 0, "workspace bound covers every smaller shape (3000 random pairs)");
    // the old planner needed more at N = 4 than at N = 5; the bound must not
    size_t prev = 0;
    bool mono = true;
    for (int64_t n = 1; n <= 40; ++n) {
        const size_t b = core::cudaWorkspaceBound(makeShape({64, 64}, {32, 17}, n, 32, 32), core::DataType::kFloat32);
        mono = mono && b >= prev;
        prev = b;
    }
    expect(mono, "workspace bound monotone in N");
}

}  // namespace

int main() {
    const uint64_t seed = turbofno_test::testSeed();  // a number, "random", or unset (the fixed default)
    std::mt19937_64 rng(seed);
    testChoice();
    testChains();
    testResampling();
    testFusedLayer();
    testFftPasses();
    testFftLong(rng);
    testMixing(rng);
    testFlatMixing(rng);
    testMixInC2R(rng);
    testFftPlane(rng);
    testWorkspaceBound(rng);
    std::printf("%d checks, %d failures (seed %" PRIu64 ", set TURBOFNO_TEST_SEED to repeat)\n", gChecks, gFailures, seed);
    return gFailures ? 1 : 0;
}
