// Planner of the separable algorithm (plan_separable.h). Pure C++, no CUDA calls.
#include "plan_separable.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>

namespace turbofno {
namespace cuda {
namespace {

constexpr int64_t kSepTargetBlocks = 528;  // ~4 blocks of 256 threads per SM on a 132-SM H100/H200
constexpr int64_t kSplitBelowBlocks = 160;
// k steps (of kStepK) per split at least: 1 when the last forward pass is the R2C (1D layers), else 4.
// Measured at 37928b4 (tests/gpu/logs/tune_1d_37928b4): 1 step per split 1x64x256 m17 0.026 -> 0.019 ms,
// 32x64x256 m17 0.041 -> 0.036, the other shapes of that set within 1-2 %; but 2x32x48x48x48 m12 (a C2C
// last pass, not in that set) went 0.195 -> 0.219 ms between e7c7b40 and 7a49149 with no other change
// on its path, so 3D / 2D keep 4 (not re-measured after this change).
constexpr int64_t kSplitMinStepsR2C = 1;
constexpr int64_t kSplitMinSteps = 4;
std::atomic<int> gSplitStepsOverride{-1};
std::atomic<int> gFftPassOverride{-1};
std::atomic<int> gFftDirectOverride{-1};
std::atomic<int> gFftLongOverride{-1};
std::atomic<int> gFftColumn3dOverride{-1};
std::atomic<int> gFftPlaneOverride{-1};
// Column FFTs on the leading axes of 3D layers: where the axis' view has at least kFftColumn3dMinInner
// columns per outer index (inner: the kept modes of the axes after it). With the compile-time column
// kernels, all leading axes as column FFTs measured (tests/gpu/logs/col3d_s18, ms per layer, DFT passes /
// column FFTs): 2x32x48^3 m12 0.174 / 0.160, 1x16x96x96x64 m16 0.173 / 0.147, 4x32x64^3 m16 0.517 / 0.391,
// 1x32x64^3 m8 0.102 / 0.093, but 1x32x48^3 m6 0.070 / 0.076 and 32x32x48^3 m6 1.125 / 1.681: there the
// middle axis has 6 columns per outer index (blocks of 6 x 48 points, one per outer index).
constexpr bool kFftColumns3dDefault = true;
constexpr int64_t kFftColumn3dMinInner = 8;
// The FFT passes (fft_pass.cuh) run whenever they can, unless forced off (setFftPassOverride(0)).
// Written without a measurement (no GPU on the writing machine): the integrator checks it on the H200.
constexpr bool kFftPassDefault = true;
constexpr int kThreadsPerPass = 256;      // dft_pass.cuh: kPassThreads
constexpr int kStepK = 16;                // dft_pass.cuh: kBK

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
size_t align256(size_t v) { return (v + 255) / 256 * 256; }
int64_t prod(const int64_t* a, int from, int to) {
    int64_t r = 1;
    for (int i = from; i < to; ++i) r *= a[i];
    return r;
}
int tileCols(int tileM) { return kThreadsPerPass / (tileM / 4) * 4; }

DftPass basePass(int M, int K, int64_t N, int64_t S) {
    DftPass p;
    p.M = M;
    p.K = K;
    p.N = static_cast<int>(N);
    p.S = static_cast<int>(S);
    p.mP = M;  // identity maps unless a leading axis' kept modes are mapped
    p.kP = K;
    p.kPerSplit = K;
    return p;
}

struct Buffers {
    int64_t a = 0, b = 0;  // float2 elements the ping-pong buffers must hold
    void need(Buffer buf, int64_t elems) {
        if (buf == Buffer::kA) a = std::max(a, elems);
        if (buf == Buffer::kB) b = std::max(b, elems);
    }
};
Buffer other(Buffer b) { return b == Buffer::kA ? Buffer::kB : Buffer::kA; }

// A strided view (dft_pass.h); the planner checks separately that every value fits in 32 bits.
StridedView view(int64_t inner, int64_t outerStride, int64_t innerStride, int64_t rowStride) {
    StridedView v;
    v.inner = static_cast<int32_t>(inner);
    v.outerStride = static_cast<int32_t>(outerStride);
    v.innerStride = static_cast<int32_t>(innerStride);
    v.rowStride = static_cast<int32_t>(rowStride);
    return v;
}

// Spectrum partials: room for up to kMaxPassSplit spectra within kSplitBudgetBytes, at least one.
size_t specInCapacity(size_t specBytes) {
    return std::max(specBytes, std::min(kMaxPassSplit * specBytes, kSplitBudgetBytes));
}

// The FFT passes' switch: the default unless the test hook forces them on or off.
bool fftPassesOn() {
    const int forced = gFftPassOverride.load(std::memory_order_relaxed);
    return forced < 0 ? kFftPassDefault : forced == 1;
}
bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
// Whether a last axis of S points with kd kept bins runs as row FFTs (fftLength checked separately):
// always below kFftFewBinsFrom points; longer lines with few kept bins stay on the DFT-GEMM pass, whose
// O(S kd) work per line then costs less than the FFT's O(S log S) (fftRowsPay, plan_separable.h).
// The FFT passes forced on (setFftPassOverride(1)) take every fftLength axis.
bool fftRowsFor(int64_t S, int64_t kd) {
    if (!fftPassesOn() || !fftLength(S) || kd > S / 2 + 1) return false;
    return gFftPassOverride.load(std::memory_order_relaxed) == 1 || fftRowsPay(S, kd);
}
// The largest radix of a row FFT block of `points` complex values: units of 16 only while they keep the
// 256 threads busy (8x256x1024's C2R: 40 -> 36 us with radix 8; column FFTs keep 16, see below).
int fftMaxRadix(int64_t points) { return points >= 4096 ? 16 : points >= 2048 ? 8 : 4; }

// Marks a real last-axis pass over `lines` lines of length S (fftLength) as an FFT pass (fft_pass.cuh).
void makeFftPass(DftPass& p, int64_t lines, int64_t S) {
    p.fft = 1;
    int64_t L = kFftLineBudget / S;
    while (L > 1 && fftSmemBytes(static_cast<int>(S), static_cast<int>(L)) > fftSmemAllowed(static_cast<int>(L))) --L;
    while (L > 1 && ceilDiv(lines, L) < kFftTargetBlocks) L /= 2;
    p.fftLines = static_cast<int>(L);
    // small power-of-two blocks: the radix-2 kernel (fftRadices 0), measured up to 2x faster there
    // (fft_pass_radix2.cuh); L is a power of two here (8192 / S, halved)
    p.fftRadices = isPow2(S) && L * (S / 2) < kFftRadix2Below ? 0 : fftStages(S / 2, fftMaxRadix(L * (S / 2)));
    // Measured at b349859 (tests/gpu/logs/fft_direct_b349859, us per pass, direct / staged): C2R staged
    // everywhere (256x256 m32 172 / 152, 250x180 119 / 89, 48^3 81 / 55); R2C direct from 128 points
    // (256x256 m32 97 / 113, 128x128 m16 104 / 115, 384 176 / 188; 250x180 86 / 78, 256x256 m64 73 / 69),
    // staged below (48^3 54 / 50, 96x96x64 55 / 45). setFftDirectOverride forces either.
    const int forced = gFftDirectOverride.load(std::memory_order_relaxed);
    p.fftDirect = forced >= 0 ? forced : (fftDirectDefault(p.inverse != 0, S) ? 1 : 0);
}

// Marks a complex pass over `outer` x `inner` columns of n points (fftColumnLength) as a column FFT
// (fft_pass.cuh; every leading axis of a 2D layer, 3D ones by kFftColumn3dMinInner): W columns per
// block, a power of two up to 64 with W * n <= 4096 (at most `inner`), fewer (down to 4: 32-byte rows) where the grid would have less than kFftTargetBlocks blocks.
void makeFftColumnPass(DftPass& p, int64_t outer, int64_t inner, int64_t n) {
    p.fft = 1;
    int64_t W = 1;
    while (W < 64 && 2 * W * n <= kFftColumnPoints) W *= 2;
    W = std::min(W, inner);
    while (W > 4 && outer * ceilDiv(inner, W) < kFftTargetBlocks) W /= 2;
    p.fftLines = static_cast<int>(W);
    p.fftRadices = fftStages(n);  // radix 16 even on idle threads: capped to 8, 32x64x128x128's columns ran 30 -> 42 us
}

// The four-step long-axis FFT for a 1D layer's last axis of S points, kd kept bins, `lines` lines, or
// Na = 0: the planner's rule (plan_separable.h) unless setFftLongOverride forces it.
FftLongShape fftLongFor(int64_t S, int64_t kd, int64_t lines, size_t specBytes) {
    const int forced = gFftLongOverride.load(std::memory_order_relaxed);
    if (forced == 0 || !fftPassesOn()) return {};
    if (forced < 0 && S < kFftLongFrom) return {};
    const FftLongShape f = fftLongShape(S, kd, lines, static_cast<int64_t>(specInCapacity(specBytes) / specBytes));
    // where the row FFTs can run too, only power-of-two columns (the compile-time kernels) measured faster
    if (forced < 0 && f.Na != 0 && !isPow2(f.Na) && S <= kFftMaxLen && fftRowsFor(S, kd)) return {};
    return f;
}

// Marks a real last-axis pass as the four-step long-axis FFT (fft_pass_long.cuh).
void makeFftLongPass(DftPass& p, const FftLongShape& f) {
    p.fft = 1;
    p.fftLongCols = p.S / f.Na;
    p.fftLines = f.W / 2;
    p.fftRadices = fftStages(f.Na);
}

}  // namespace

FftLongShape fftLongShape(int64_t S, int64_t kd, int64_t lines, int64_t maxTiles) {
    maxTiles = std::min<int64_t>(maxTiles, kMaxPassSplit);
    if (kd < 1 || S < 4 * kFftLongMinNa) return {};
    if (S * kd >= (int64_t{1} << 31)) return {};  // the kernels' 32-bit twiddle indices (fft_pass_long.cuh)
    // Na from kFftLongNaPerBin points per kept bin (fewer twiddled column sums per sample) up to
    // kFftLongWideMaxNa (32-column blocks: 512-point columns leave 16 per block and measured slower,
    // 4x16x262144 m128 0.197 vs 0.160 ms), else from 2 kd up to kFftLongMaxNa
    for (const auto [perBin, maxNa] : {std::pair<int64_t, int64_t>{kFftLongNaPerBin, kFftLongWideMaxNa}, {2, kFftLongMaxNa}})
        for (int64_t Na = std::max<int64_t>(perBin * kd, kFftLongMinNa); Na <= maxNa; ++Na) {
            if (S % Na != 0 || fftStages(Na) == 0) continue;
            const int64_t Nb = S / Na;
            int64_t W = 64;
            while (W > 16 && (W * Na > 2 * kFftColumnPoints || Nb % W != 0)) W /= 2;
            if (W * Na > 2 * kFftColumnPoints || Nb % W != 0) continue;
            // fewer columns per block (more blocks) where the grid would be small
            while (W > 16 && lines * (Nb / W) < kFftTargetBlocks && Nb / (W / 2) <= maxTiles) W /= 2;
            if (Nb / W > maxTiles || fftLongSmemBytes(static_cast<int>(Na), static_cast<int>(W / 2), static_cast<int>(kd)) > kFftSmemLimit ||
                lines * (Nb / W) >= (int64_t{1} << 31))
                continue;
            return {static_cast<int>(Na), static_cast<int>(W)};
        }
    return {};
}

void setFftLongOverride(int mode) { gFftLongOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }
void setFftColumn3dOverride(int mode) { gFftColumn3dOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }
void setFftPlaneOverride(int mode) {
    gFftPlaneOverride.store(mode < 0 ? -1 : (mode == kFftPlaneThreads || mode == kFftPlaneWideThreads ? mode : (mode ? 1 : 0)));
}

bool lastAxisUsesFftLong(const core::SpectralConvShape& shape) {
    if (shape.rank != 1 || core::outSize(shape, 0) != shape.spatial[0]) return false;
    const int64_t lines = shape.batch * shape.inChannels;
    return fftLongFor(shape.spatial[0], shape.kept[0], lines, static_cast<size_t>(lines * shape.kept[0]) * 8).Na != 0;
}

bool fftColumnLength(int64_t n) { return n >= kFftMinLen && n <= kFftColumnMaxLen && fftStages(n) != 0; }

int fftStages(int64_t n2, int maxRadix) {
    if (n2 < 2) return 0;
    int count[6] = {};  // factors 2, 3, 5
    for (int f : {2, 3, 5})
        while (n2 % f == 0) {
            n2 /= f;
            ++count[f];
        }
    if (n2 != 1) return 0;
    int radices[8], n = 0;
    if (count[3] == 0 && count[5] == 0) {
        // a power of two: maxRadix (16, 8 or 4) as often as it divides, then one smaller power of two
        // (fft_pass.cuh pads its shared lines for these)
        const int b = maxRadix >= 16 ? 4 : maxRadix >= 8 ? 3 : 2;
        for (int i = 0; i < count[2] / b; ++i) radices[n++] = 1 << b;
        if (count[2] % b) radices[n++] = 1 << (count[2] % b);
    } else {
        if (count[5] + count[3] + (count[2] + 1) / 2 > 7) return 0;  // 7: fft_pass.cuh's kFftMaxStages
        for (int i = 0; i < count[3]; ++i) radices[n++] = 3;
        for (int i = 0; i < count[5]; ++i) radices[n++] = 5;
        for (int i = 0; i < count[2] / 2; ++i) radices[n++] = 4;
        if (count[2] % 2) radices[n++] = 2;
    }
    int packed = 0;
    for (int i = n - 1; i >= 0; --i) packed = (packed << 4) | (radices[i] == 16 ? 1 : radices[i]);
    return packed;
}

bool fftRowsPay(int64_t S, int64_t kd) { return S < kFftFewBinsFrom || kd >= (S <= 2048 ? 24 : 48); }

bool fftLength(int64_t S) {
    if (S < kFftMinLen || S > kFftMaxLen) return false;
    return S % 2 == 0 && fftStages(S / 2) != 0;
}

bool lastAxisUsesFft(const core::SpectralConvShape& shape) {
    const int d = shape.rank;
    if (d < 1 || d > core::kMaxRank) return false;
    const int64_t Sd = shape.spatial[d - 1];
    return fftRowsFor(Sd, shape.kept[d - 1]) && core::outSize(shape, d - 1) == Sd;
}

void setFftDirectOverride(int mode) { gFftDirectOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }

void setFftPassOverride(int mode) { gFftPassOverride.store(mode < 0 ? -1 : (mode ? 1 : 0)); }

void setSplitStepsOverride(int steps) { gSplitStepsOverride.store(steps > 0 ? steps : -1); }

int passTileM(PassKind kind, int M) {
    // Twiddles are generated per block (tileM x 16 per k step) and reused over the tile's columns:
    // real passes (2 multiply-adds per term) need wide tiles to keep that below ~15 %; complex
    // passes (4 per term) allow 64 rows.
    const int cap = kind == PassKind::kC2C ? 64 : 32;
    int t = 16;
    while (t < M && t < cap) t *= 2;
    return t;
}

bool passUsesTensorCores(PassKind kind) {
    // Measured on the H200 at 1171037 (tests/gpu/logs/pass_tc_1171037, ncu): complex passes 8-10 %
    // faster on tensor cores; real passes 10-13 % slower (two products per tile, so the split and
    // staging work per useful multiply-add doubles, and their registers spill).
    return kind == PassKind::kC2C;
}

SeparablePlan planSeparable(const core::SpectralConvShape& shape, const core::SpectralConvAttrs* attrs) {
    const int32_t* modesLow = attrs ? attrs->modesLow : nullptr;
    SeparablePlan sp;
    const int d = shape.rank;
    if (d < 1 || d > core::kMaxRank) {
        sp.whyNot = "spatial rank must be 1, 2 or 3";
        return sp;
    }
    int64_t S[core::kMaxRank] = {1, 1, 1}, K[core::kMaxRank] = {1, 1, 1}, T[core::kMaxRank] = {1, 1, 1};
    for (int j = 0; j < d; ++j) {
        S[j] = shape.spatial[j];
        K[j] = shape.kept[j];
        T[j] = core::outSize(shape, j);
    }
    const int64_t Td = T[d - 1];
    const int64_t Sd = S[d - 1], kd = K[d - 1];
    const int64_t L0 = shape.batch * shape.inChannels, L1 = shape.batch * shape.outChannels;
    const int64_t specInElems = L0 * prod(K, 0, d), specOutElems = L1 * prod(K, 0, d);
    Buffers bufs;
    const bool fftOn = fftPassesOn();
    // which leading axes run as column FFTs (makeFftColumnPass): 2D always, 3D by kFftColumns3dDefault
    const int col3d = gFftColumn3dOverride.load(std::memory_order_relaxed);
    auto columnAxis = [&](int64_t n, int64_t inner) {  // a leading axis of n points, `inner` columns per outer index
        if (!fftOn || !fftColumnLength(n)) return false;
        if (d == 2) return true;
        return col3d >= 0 ? col3d == 1 : (kFftColumns3dDefault && inner >= kFftColumn3dMinInner);
    };
    FftLongShape longAxis;  // the four-step FFT of a 1D layer's long axis (Na 0: none)

    // ---- forward: R2C along the last axis, then each leading axis from the innermost out ----
    {
        const int64_t lines = L0 * prod(S, 0, d - 1);
        PassStep& st = sp.fwd[sp.nFwd++];
        st.kind = PassKind::kR2C;
        // paired samples t and S - t: the k range is t = 0..S/2 (dft_pass.cuh)
        st.pass = basePass(static_cast<int>(kd), static_cast<int>(Sd / 2 + 1), lines, Sd);
        st.pass.bKContig = 1;
        st.pass.mFast = 1;
        st.pass.b = view(lines, 0, Sd, 1);
        st.pass.c = view(lines, 0, kd, 1);
        // FFT pass: fftLength, kept bins within 0..S/2 (lines are contiguous: b and c above), fftRowsPay;
        // 1D layers with long axes: the four-step FFT (partial spectra per column tile, summed before mixing)
        if (d == 1 && Td == Sd && (longAxis = fftLongFor(Sd, kd, lines, static_cast<size_t>(specInElems) * 8)).Na != 0)
            makeFftLongPass(st.pass, longAxis);
        else if (fftRowsFor(Sd, kd))
            makeFftPass(st.pass, lines, Sd);
        st.src = Buffer::kX;
        st.dst = d == 1 ? Buffer::kSpecIn : Buffer::kA;
        bufs.need(st.dst, lines * kd);
    }
    int64_t inner = kd;
    for (int j = d - 2; j >= 0; --j) {
        const int64_t outer = L0 * prod(S, 0, j);
        PassStep& st = sp.fwd[sp.nFwd++];
        st.kind = PassKind::kC2C;
        st.pass = basePass(static_cast<int>(K[j]), static_cast<int>(S[j]), outer * inner, S[j]);
        st.pass.mP = modesLow ? modesLow[j] : static_cast<int>(K[j]);
        st.pass.mOff = static_cast<int>(S[j] - K[j]);
        st.pass.b = view(inner, S[j] * inner, 1, inner);
        st.pass.c = view(inner, K[j] * inner, 1, inner);
        if (columnAxis(S[j], inner)) makeFftColumnPass(st.pass, outer, inner, S[j]);
        st.src = sp.fwd[sp.nFwd - 2].dst;
        st.dst = j == 0 ? Buffer::kSpecIn : other(st.src);
        bufs.need(st.dst, outer * K[j] * inner);
        inner *= K[j];
    }

    // ---- inverse at the output size T: each leading axis from the outermost in, then C2R along the
    // last axis. A kept entry at spectrum index f contributes e^{+2 pi i f t / T_j} and is dropped
    // when f >= T_j (kLimit); the last axis reads bins 0..T_d/2 only (docs/op.md "Output size"). ----
    Buffer prev = Buffer::kSpecOut;
    for (int j = 0; j <= d - 2; ++j) {
        const int64_t outer = L1 * prod(T, 0, j), in = prod(K, j + 1, d);
        PassStep& st = sp.inv[sp.nInv++];
        st.kind = PassKind::kC2C;
        st.pass = basePass(static_cast<int>(T[j]), static_cast<int>(K[j]), outer * in, T[j]);
        st.pass.kP = modesLow ? modesLow[j] : static_cast<int>(K[j]);
        st.pass.kOff = static_cast<int>(S[j] - K[j]);
        st.pass.kLimit = static_cast<int>(T[j]);
        st.pass.inverse = 1;
        st.pass.b = view(in, K[j] * in, 1, in);
        st.pass.c = view(in, T[j] * in, 1, in);
        if (columnAxis(S[j], in) && T[j] == S[j]) makeFftColumnPass(st.pass, outer, in, S[j]);
        st.src = prev;
        st.dst = prev == Buffer::kA ? Buffer::kB : Buffer::kA;
        bufs.need(st.dst, outer * T[j] * in);
        prev = st.dst;
    }
    {
        const int64_t lines = L1 * prod(T, 0, d - 1);
        PassStep& st = sp.inv[sp.nInv++];
        st.kind = PassKind::kC2R;
        // rows t = 0..T/2, each also writing y[T - t] (dft_pass.cuh)
        st.pass = basePass(static_cast<int>(Td / 2 + 1), static_cast<int>(std::min(kd, Td / 2 + 1)), lines, Td);
        st.pass.inverse = 1;
        st.pass.bKContig = 1;
        st.pass.mFast = 1;
        st.pass.b = view(lines, 0, kd, 1);
        st.pass.c = view(lines, 0, Td, 1);
        // forward scale from S, inverse from T (norm matters only when they differ)
        const double pS = static_cast<double>(prod(S, 0, d)), pT = static_cast<double>(prod(T, 0, d));
        const int norm = attrs ? static_cast<int>(attrs->norm) : 0;
        st.pass.scale = static_cast<float>(norm == 1 ? 1.0 / pS : (norm == 2 ? 1.0 / std::sqrt(pS * pT) : 1.0 / pT));
        st.pass.nyquist = Td % 2 == 0 ? static_cast<int>(Td / 2) : -1;
        st.pass.biasDiv = static_cast<int32_t>(prod(T, 0, d - 1));
        st.pass.biasMod = static_cast<int>(shape.outChannels);
        // the fused layer (op version 2): the skip is in y already (skip_gemm.cuh), the activation last
        st.pass.addY = shape.hasSkip ? 1 : 0;
        st.pass.activation = attrs ? static_cast<int>(attrs->activation) : 0;
        sp.skipPoints = shape.hasSkip ? prod(S, 0, d) : 0;
        // FFT pass: fftLength and no resampling of the last axis (the C2R runs at T_d = S_d), fftRowsPay;
        // the four-step FFT where the R2C runs it (lines of L1 here: the grid differs, the shape not)
        if (longAxis.Na != 0) makeFftLongPass(st.pass, longAxis);
        else if (Td == Sd && fftRowsFor(Td, kd)) makeFftPass(st.pass, lines, Td);
        st.src = prev;
        st.dst = Buffer::kY;
    }

    for (int i = 0; i < sp.nFwd + sp.nInv; ++i) {
        PassStep& st = i < sp.nFwd ? sp.fwd[i] : sp.inv[i - sp.nFwd];
        st.pass.tileM = passTileM(st.kind, st.pass.M);
        st.pass.tensorCores = passUsesTensorCores(st.kind) ? 1 : 0;
    }

    // ---- split of the last forward pass's k range when its grid is small (partials summed by mixing) ----
    const size_t specBytes = static_cast<size_t>(specInElems) * 8;
    const size_t cap = specInCapacity(specBytes);
    DftPass& last = sp.fwd[sp.nFwd - 1].pass;
    const int64_t blocks = ceilDiv(last.M, last.tileM) * ceilDiv(last.N, tileCols(last.tileM));
    int64_t split = 1;
    // Only grids of less than about one block per SM split: the partial sums cost a pass over
    // split x spectrum bytes, which a grid that already fills the GPU does not win back.
    // (an FFT pass, d = 1, computes whole lines: never split)
    if (blocks < kSplitBelowBlocks && !last.fft) {
        const int64_t kSteps = ceilDiv(last.K, kStepK);
        const int forced = gSplitStepsOverride.load(std::memory_order_relaxed);
        const int64_t minSteps = forced > 0 ? forced : (d == 1 ? kSplitMinStepsR2C : kSplitMinSteps);
        split = std::min<int64_t>({ceilDiv(kSepTargetBlocks, blocks), std::max<int64_t>(1, kSteps / minSteps),
                                   static_cast<int64_t>(cap / specBytes), kMaxPassSplit});
    }
    const int64_t kPer = ceilDiv(ceilDiv(last.K, split), kStepK) * kStepK;
    last.kPerSplit = static_cast<int>(kPer);
    // the four-step R2C writes one partial spectrum per block of columns (fftLongFor kept them within cap)
    sp.split = static_cast<int>(last.fftLongCols ? last.fftLongCols / (2 * last.fftLines) : ceilDiv(last.K, kPer));
    last.cSplitStride = static_cast<int32_t>(specInElems);

    // ---- the plane kernels (fft_plane.cuh): a 2D layer's R2C + column pass and column inverse + C2R, one plane per
    // block, where both axes run as FFTs without resampling and the plane is one of kFftPlaneShapes ----
    if (d == 2 && sp.nFwd == 2 && sp.nInv == 2 && T[0] == S[0] && T[1] == S[1]) {
        const DftPass &r2c = sp.fwd[0].pass, &colF = sp.fwd[1].pass, &colI = sp.inv[0].pass, &c2r = sp.inv[1].pass;
        const bool possible = r2c.fft && !r2c.fftLongCols && colF.fft && colI.fft && c2r.fft && !c2r.fftLongCols &&
                              sp.split == 1 && fftPlaneShapeIndex(static_cast<int>(S[0]), static_cast<int>(S[1])) >= 0 &&
                              fftPlaneSmemBytes(static_cast<int>(S[0]), static_cast<int>(S[1]), static_cast<int>(kd)) <= kFftSmemLimit;
        const int forced = gFftPlaneOverride.load(std::memory_order_relaxed);
        const int64_t planes = std::max(L0, L1);
        const int threads = forced > 1 ? forced : (planes < kFftPlaneWideBelow ? kFftPlaneWideThreads : kFftPlaneThreads);
        sp.plane = possible && (forced >= 0 ? forced != 0 : fftPlanePays(planes)) ? threads : 0;
    }

    sp.offA = 0;
    sp.offB = align256(static_cast<size_t>(bufs.a) * 8);
    sp.offSpecIn = sp.offB + align256(static_cast<size_t>(bufs.b) * 8);
    sp.offSpecOut = sp.offSpecIn + align256(cap);
    sp.bytes = sp.offSpecOut + align256(static_cast<size_t>(specOutElems) * 8);

    // ---- limits: 32-bit element offsets (every buffer below 2^31 elements, with a tile's margin);
    // the grid is (column tiles, row tiles, splits) ----
    sp.supported = true;
    constexpr int64_t kMaxElems = (int64_t{1} << 31) - (int64_t{1} << 16);
    const int64_t xElems = L0 * prod(S, 0, d), yElems = L1 * prod(T, 0, d);
    if (std::max({xElems, yElems, bufs.a, bufs.b, specInElems * sp.split, specOutElems}) > kMaxElems) {
        sp.supported = false;
        sp.whyNot = "a tensor or intermediate spectrum of the CUDA kernel would exceed 2^31 elements";
    }
    auto check = [&](const DftPass& p) {
        if (ceilDiv(p.M, p.tileM) > 65535) {
            sp.supported = false;
            sp.whyNot = "a spatial axis is too long for the CUDA kernel's grid (more than 4 194 240 points)";
        }
    };
    for (int i = 0; i < sp.nFwd; ++i) check(sp.fwd[i].pass);
    for (int i = 0; i < sp.nInv; ++i) check(sp.inv[i].pass);
    return sp;
}

size_t separableWorkspaceBytes(const core::SpectralConvShape& shape) { return planSeparable(shape, nullptr).bytes; }

}  // namespace cuda
}  // namespace turbofno
