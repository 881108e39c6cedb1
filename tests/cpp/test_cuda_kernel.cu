// Standalone GPU test of core::launchCuda against a float64 separable-DFT reference written here:
// fresh random inputs, odd and non-power-of-two sizes, d = 1..3, dense and separable, with and
// without bias, fp32 / fp16 / bf16, the row-split, multi-tile and computed-twiddle paths, NaN-poisoned
// outputs (every element must be written), bitwise repeatability, and bad-call error codes.
// Prints "SKIPPED: no CUDA device" and exits 77 where no GPU exists (ctest: Skipped). Inputs come from
// TURBOFNO_TEST_SEED (test_support.h); the seed is printed, and repeated on failure.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"
#include "turbofno/core.h"
#include "turbofno/cuda.h"

using namespace turbofno;
using core::DataType;

namespace turbofno {
namespace cuda {
void setAlgorithmOverride(int mode);  // plugins/cuda/plan.h (internal): -1 planner, 0 fused plane, 1 separable
void setPassTcOverride(int mode);     // -1 planner, 0 fp32 FMA, 1 3xTF32 tensor cores in the separable passes
void setMixFlatOverride(int mode);    // -1 planner, 0 tiled mixing (mixing.cuh), 1 flat (mixing_flat.cuh)
void setFftPassOverride(int mode);    // -1 planner, 0 DFT passes (dft_pass.cuh), 1 FFT R2C / C2R (fft_pass.cuh) where possible
void setMixInC2ROverride(int mode);   // -1 planner, 0 the mixing kernel, 1 the mixing inside a radix-2 C2R (mixing_c2r.cuh)
void setFftColumn3dOverride(int mode);  // -1 planner, 0 DFT passes, 1 column FFTs on 3D leading axes (plan_separable.h)
void setMixRingOverride(int mode);      // -1 planner, 0 / 1 the tiled mixing kernel's weights without / through the cp.async ring
void setFftPlaneOverride(int mode);     // -1 planner, 0 never, 1 the plane kernels (fft_plane.cuh) wherever possible
}  // namespace cuda
}  // namespace turbofno
using cd = std::complex<double>;

namespace {

int failures = 0;

#define CHECK_CUDA(call)                                                                              \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
            std::exit(1);                                                                             \
        }                                                                                             \
    } while (0)

struct Case {
    std::string name;
    std::vector<int64_t> S;
    int64_t n, cin, cout;
    std::vector<int32_t> low, high;
    bool separable, bias;
    DataType dtype;
};

size_t elemSize(DataType t) { return t == DataType::kFloat32 ? 4 : 2; }

// Rounds v to the dtype and stores it into raw host storage at index i.
double storeAs(DataType t, std::vector<unsigned char>& raw, size_t i, double v) {
    if (t == DataType::kFloat32) {
        float f = static_cast<float>(v);
        std::memcpy(raw.data() + 4 * i, &f, 4);
        return f;
    }
    if (t == DataType::kFloat16) {
        __half h = __float2half_rn(static_cast<float>(v));
        std::memcpy(raw.data() + 2 * i, &h, 2);
        return __half2float(h);
    }
    __nv_bfloat16 h = __float2bfloat16_rn(static_cast<float>(v));
    std::memcpy(raw.data() + 2 * i, &h, 2);
    return __bfloat162float(h);
}
double loadAs(DataType t, const std::vector<unsigned char>& raw, size_t i) {
    if (t == DataType::kFloat32) {
        float f;
        std::memcpy(&f, raw.data() + 4 * i, 4);
        return f;
    }
    if (t == DataType::kFloat16) {
        __half h;
        std::memcpy(&h, raw.data() + 2 * i, 2);
        return __half2float(h);
    }
    __nv_bfloat16 h;
    std::memcpy(&h, raw.data() + 2 * i, 2);
    return __bfloat162float(h);
}

// DFT along axis `ax` of a row-major complex array with dims `dims`, evaluated only at `freqs`
// (sign -1 forward, +1 inverse, unnormalised); returns the array with dims[ax] = freqs.size().
std::vector<cd> dftAxis(const std::vector<cd>& in, std::vector<int64_t>& dims, int ax, const std::vector<int64_t>& freqs,
                        int64_t outLen, int sign, bool inverseFromFreqs) {
    int64_t outer = 1, inner = 1;
    for (int j = 0; j < ax; ++j) outer *= dims[j];
    for (size_t j = ax + 1; j < dims.size(); ++j) inner *= dims[j];
    const int64_t L = dims[ax];
    std::vector<cd> out(static_cast<size_t>(outer * outLen * inner));
    const double twoPi = 2.0 * M_PI;
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t q = 0; q < outLen; ++q)
            for (int64_t i = 0; i < inner; ++i) {
                cd acc = 0;
                for (int64_t l = 0; l < L; ++l) {
                    // forward: out index q = kept mode (freq freqs[q]), in index l = position
                    // inverse: out index q = position, in index l = kept mode (freq freqs[l])
                    const int64_t S = inverseFromFreqs ? outLen : L;
                    const int64_t f = inverseFromFreqs ? freqs[l] : freqs[q];
                    const int64_t pos = inverseFromFreqs ? q : l;
                    const double ang = sign * twoPi * static_cast<double>((f * pos) % S) / static_cast<double>(S);
                    acc += in[(o * L + l) * inner + i] * cd(std::cos(ang), std::sin(ang));
                }
                out[(o * outLen + q) * inner + i] = acc;
            }
    dims[ax] = outLen;
    return out;
}

std::vector<int64_t> keptFreqs(int64_t S, int32_t p, int32_t q) {
    std::vector<int64_t> f;
    for (int32_t m = 0; m < p; ++m) f.push_back(m);
    for (int32_t m = 0; m < q; ++m) f.push_back(S - q + m);
    return f;
}

// float64 reference of the layer (docs/op.md semantics) on the already-rounded inputs.
std::vector<double> reference(const Case& c, const std::vector<double>& x, const std::vector<double>& w,
                              const std::vector<double>& b) {
    const int d = static_cast<int>(c.S.size());
    std::vector<std::vector<int64_t>> fr(d);
    int64_t P = 1, Kt = 1;
    for (int j = 0; j < d; ++j) {
        fr[j] = keptFreqs(c.S[j], c.low[j], c.high[j]);
        P *= c.S[j];
        Kt *= static_cast<int64_t>(fr[j].size());
    }
    std::vector<cd> X(static_cast<size_t>(c.n * c.cin * Kt));
    for (int64_t p = 0; p < c.n * c.cin; ++p) {
        std::vector<cd> a(x.begin() + p * P, x.begin() + (p + 1) * P);
        std::vector<int64_t> dims(c.S);
        for (int j = d - 1; j >= 0; --j) a = dftAxis(a, dims, j, fr[j], static_cast<int64_t>(fr[j].size()), -1, false);
        std::copy(a.begin(), a.end(), X.begin() + p * Kt);
    }
    std::vector<cd> Y(static_cast<size_t>(c.n * c.cout * Kt));
    for (int64_t n = 0; n < c.n; ++n)
        for (int64_t o = 0; o < c.cout; ++o)
            for (int64_t m = 0; m < Kt; ++m) {
                cd acc = 0;
                if (c.separable) {
                    acc = X[(n * c.cin + o) * Kt + m] * cd(w[(o * Kt + m) * 2], w[(o * Kt + m) * 2 + 1]);
                } else {
                    for (int64_t i = 0; i < c.cin; ++i) {
                        const size_t wi = static_cast<size_t>(((i * c.cout + o) * Kt + m) * 2);
                        acc += X[(n * c.cin + i) * Kt + m] * cd(w[wi], w[wi + 1]);
                    }
                }
                Y[(n * c.cout + o) * Kt + m] = acc;
            }
    // inverse: leading axes by inverse DFT from the kept modes, last axis C2R with weights c_k.
    const int64_t Sd = c.S[d - 1];
    std::vector<double> y(static_cast<size_t>(c.n * c.cout * P));
    for (int64_t p = 0; p < c.n * c.cout; ++p) {
        std::vector<cd> a(Y.begin() + p * Kt, Y.begin() + (p + 1) * Kt);
        std::vector<int64_t> dims(d);
        for (int j = 0; j < d; ++j) dims[j] = static_cast<int64_t>(fr[j].size());
        for (int j = 0; j < d - 1; ++j) a = dftAxis(a, dims, j, fr[j], c.S[j], +1, true);
        const int64_t rows = P / Sd, kd = static_cast<int64_t>(fr[d - 1].size());
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t t = 0; t < Sd; ++t) {
                double v = 0;
                for (int64_t k = 0; k < kd; ++k) {
                    const double ck = (k == 0 || 2 * k == Sd) ? 1.0 : 2.0;
                    const double ang = 2.0 * M_PI * static_cast<double>((k * t) % Sd) / static_cast<double>(Sd);
                    v += ck * (a[r * kd + k] * cd(std::cos(ang), std::sin(ang))).real();
                }
                y[p * P + r * Sd + t] = v / static_cast<double>(P) + (c.bias ? b[p % c.cout] : 0.0);
            }
    }
    return y;
}

bool buildParams(const Case& c, core::SpectralConvParams* params) {
    const int d = static_cast<int>(c.S.size());
    core::SpectralConvAttrs attrs;
    attrs.rank = d;
    for (int j = 0; j < d; ++j) {
        attrs.modesLow[j] = c.low[j];
        attrs.modesHigh[j] = c.high[j];
    }
    attrs.separable = c.separable ? 1 : 0;
    core::Status st = core::validateAttrs(attrs, d, d);
    if (!st.ok) {
        std::printf("FAIL %s: validateAttrs: %s\n", c.name.c_str(), st.message.c_str());
        return false;
    }
    std::vector<int64_t> xd{c.n, c.cin}, wd{c.cin, c.separable ? 1 : c.cout}, bd{c.cout};
    for (int j = 0; j < d; ++j) {
        xd.push_back(c.S[j]);
        wd.push_back(c.low[j] + c.high[j]);
    }
    wd.push_back(2);
    core::SpectralConvShape shape;
    st = core::inferShape(attrs, xd.data(), d + 2, wd.data(), d + 3, c.bias ? bd.data() : nullptr, c.bias ? 1 : 0, &shape);
    if (!st.ok) {
        std::printf("FAIL %s: inferShape: %s\n", c.name.c_str(), st.message.c_str());
        return false;
    }
    params->attrs = attrs;
    params->shape = shape;
    params->dtype = c.dtype;
    return true;
}

// An on / off test switch from the environment: unset or "auto" leaves the planner's choice, "0" / "1" calls
// set(0 / 1); anything else is an error (false). *name: the value shown in the log.
bool readSwitch(const char* var, void (*set)(int), std::string* name, std::initializer_list<const char*> more = {}) {
    const char* v = std::getenv(var);
    *name = v ? v : "auto";
    bool other = false;  // a value of `more` (passed on as its number)
    for (const char* m : more) other = other || *name == m;
    if (*name == "0" || *name == "1" || other) set(std::atoi(name->c_str()));
    else if (*name != "auto") {
        std::printf("FAIL: %s=%s is not 0 or 1\n", var, name->c_str());
        return false;
    }
    return true;
}

// TFNO_TEST_FILTER=text: only the cases whose name contains it (e.g. for compute-sanitizer runs of one path)
bool selected(const std::string& name) {
    static const char* filter = std::getenv("TFNO_TEST_FILTER");
    return !filter || name.find(filter) != std::string::npos;
}

void runCase(const Case& c, std::mt19937_64& rng) {
    if (!selected(c.name)) return;
    core::SpectralConvParams params;
    if (!buildParams(c, &params)) {
        ++failures;
        return;
    }
    const int d = static_cast<int>(c.S.size());
    int64_t P = 1, Kt = 1;
    for (int j = 0; j < d; ++j) {
        P *= c.S[j];
        Kt *= c.low[j] + c.high[j];
    }
    const size_t nx = static_cast<size_t>(c.n * c.cin * P), ny = static_cast<size_t>(c.n * c.cout * P);
    const size_t nw = static_cast<size_t>(c.cin * (c.separable ? 1 : c.cout) * Kt * 2);
    const size_t es = elemSize(c.dtype);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<unsigned char> hx(nx * es), hw(nw * es), hb(static_cast<size_t>(c.cout) * es), hy(ny * es);
    std::vector<double> x(nx), w(nw), b(static_cast<size_t>(c.cout));
    const double wscale = 1.0 / std::sqrt(static_cast<double>(c.cin));
    for (size_t i = 0; i < nx; ++i) x[i] = storeAs(c.dtype, hx, i, normal(rng));
    for (size_t i = 0; i < nw; ++i) w[i] = storeAs(c.dtype, hw, i, wscale * normal(rng));
    for (size_t i = 0; i < b.size(); ++i) b[i] = storeAs(c.dtype, hb, i, normal(rng));

    void *dx, *dw, *db = nullptr, *dy, *ws = nullptr;
    CHECK_CUDA(cudaMalloc(&dx, hx.size()));
    CHECK_CUDA(cudaMalloc(&dw, hw.size()));
    CHECK_CUDA(cudaMalloc(&dy, hy.size()));
    if (c.bias) CHECK_CUDA(cudaMalloc(&db, hb.size()));
    const size_t wsBytes = core::cudaWorkspaceBytes(params.shape, params.dtype);
    if (wsBytes) CHECK_CUDA(cudaMalloc(&ws, wsBytes));
    CHECK_CUDA(cudaMemcpy(dx, hx.data(), hx.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dw, hw.data(), hw.size(), cudaMemcpyHostToDevice));
    if (c.bias) CHECK_CUDA(cudaMemcpy(db, hb.data(), hb.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(dy, 0xFF, hy.size()));  // NaN in every float format
    if (ws) CHECK_CUDA(cudaMemset(ws, 0xFF, wsBytes));
    params.x = dx;
    params.weight = dw;
    params.bias = db;
    params.y = dy;
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));
    CHECK_CUDA(core::launchCuda(params, ws, wsBytes, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(hy.data(), dy, hy.size(), cudaMemcpyDeviceToHost));
    // repeat: a deterministic kernel must give bitwise the same output (a differing one means a race)
    std::vector<unsigned char> hy2(hy.size());
    CHECK_CUDA(cudaMemset(dy, 0xFF, hy.size()));
    CHECK_CUDA(core::launchCuda(params, ws, wsBytes, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(hy2.data(), dy, hy2.size(), cudaMemcpyDeviceToHost));

    const std::vector<double> ref = reference(c, x, w, b);
    double num = 0, den = 0;
    size_t bad = 0;
    for (size_t i = 0; i < ny; ++i) {
        const double v = loadAs(c.dtype, hy, i);
        if (!std::isfinite(v)) {
            ++bad;
            continue;
        }
        num += (v - ref[i]) * (v - ref[i]);
        den += ref[i] * ref[i];
    }
    const double rel = std::sqrt(num / (den > 0 ? den : 1));
    const double tol = c.dtype == DataType::kFloat32 ? 1e-5 : 1e-2;
    const bool same = std::memcmp(hy.data(), hy2.data(), hy.size()) == 0;
    const bool ok = bad == 0 && rel <= tol && same;
    std::printf("%s %-44s rel_l2=%.3e (tol %.0e) unwritten/nonfinite=%zu repeat_bitwise=%s ws=%zu B\n", ok ? "ok  " : "FAIL",
                c.name.c_str(), rel, tol, bad, same ? "yes" : "NO", wsBytes);
    if (!ok) ++failures;
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(dy);
    if (db) cudaFree(db);
    if (ws) cudaFree(ws);
    cudaStreamDestroy(stream);
}

void expectCode(const char* what, cudaError_t got, cudaError_t want) {
    const bool ok = got == want;
    std::printf("%s bad call: %-38s -> %s\n", ok ? "ok  " : "FAIL", what, cudaGetErrorName(got));
    if (!ok) ++failures;
}

void badCalls() {
    Case c{"bad", {16, 12}, 1, 2, 3, {2, 3}, {1, 0}, false, true, DataType::kFloat32};
    core::SpectralConvParams p;
    if (!buildParams(c, &p)) {
        ++failures;
        return;
    }
    void* buf;
    CHECK_CUDA(cudaMalloc(&buf, 1 << 20));
    CHECK_CUDA(cudaMemset(buf, 0, 1 << 20));  // the valid launches below read it (initcheck)
    const size_t ws = core::cudaWorkspaceBytes(p.shape, p.dtype);
    p.x = p.weight = p.y = buf;
    p.bias = nullptr;
    expectCode("bias declared but null", core::launchCuda(p, buf, ws, nullptr), cudaErrorInvalidValue);
    p.bias = buf;
    p.x = nullptr;
    expectCode("null x", core::launchCuda(p, buf, ws, nullptr), cudaErrorInvalidValue);
    p.x = buf;
    expectCode("workspace too small", core::launchCuda(p, buf, ws - 1, nullptr), cudaErrorInvalidValue);
    expectCode("misaligned weight", core::launchCuda(p, buf, ws, nullptr) == cudaSuccess
                                        ? (p.weight = static_cast<char*>(buf) + 4, core::launchCuda(p, buf, ws, nullptr))
                                        : cudaErrorUnknown,
               cudaErrorMisalignedAddress);
    CHECK_CUDA(cudaDeviceSynchronize());
    // beyond the separable passes' grid (more than 65535 x 32 output rows): refused, nothing launched
    Case big{"axis of 2^22 points", {1 << 22}, 1, 1, 1, {8}, {0}, false, false, DataType::kFloat32};
    core::SpectralConvParams q;
    if (buildParams(big, &q)) {
        q.x = q.weight = q.y = buf;
        expectCode("axis longer than the grid allows", core::launchCuda(q, buf, 1 << 20, nullptr), cudaErrorNotSupported);
    }
    cudaFree(buf);
}

}  // namespace

int main() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return turbofno_test::skip("no CUDA device");
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    const uint64_t seed = turbofno_test::testSeed();  // TURBOFNO_TEST_SEED (tests/gpu/run_suite.sh: random)
    // TFNO_TEST_ALGO=fused|separable forces the algorithm (a forced one that cannot run a shape falls
    // back to the other); unset: the planner's choice.
    const char* algo = std::getenv("TFNO_TEST_ALGO");
    const std::string algoName = algo ? algo : "auto";
    if (algoName == "fused") cuda::setAlgorithmOverride(0);
    else if (algoName == "separable") cuda::setAlgorithmOverride(1);
    else if (algoName != "auto") {
        std::printf("FAIL: TFNO_TEST_ALGO=%s is not auto, fused or separable\n", algoName.c_str());
        return 1;
    }
    // TFNO_TEST_PASS_TC=0|1: the separable passes on fp32 FMA / tensor cores; TFNO_TEST_MIX_FLAT=0|1: the tiled /
    // flat mixing kernel; TFNO_TEST_FFT_PASS=0|1: the separable last-axis passes as DFT GEMMs / FFTs (where
    // possible); TFNO_TEST_MIX_C2R=0|1: the mixing kernel / the mixing inside a radix-2 C2R (where possible);
    // TFNO_TEST_COL3D=0|1: 3D layers' leading axes on the DFT passes / as column FFTs (where the length allows);
    // TFNO_TEST_MIX_RING=0|1: the tiled mixing kernel's weights loaded directly / through the cp.async ring;
    // TFNO_TEST_FFT_PLANE=0|1|256|1024: small 2D layers' passes one per kernel / two per plane kernel (fft_plane.cuh, where
    // possible; 256 / 1024: with that block size)
    std::string tcName, flatName, fftName, mcName, c3Name, ringName, planeName;
    if (!readSwitch("TFNO_TEST_PASS_TC", cuda::setPassTcOverride, &tcName) ||
        !readSwitch("TFNO_TEST_MIX_FLAT", cuda::setMixFlatOverride, &flatName) ||
        !readSwitch("TFNO_TEST_FFT_PASS", cuda::setFftPassOverride, &fftName) ||
        !readSwitch("TFNO_TEST_MIX_C2R", cuda::setMixInC2ROverride, &mcName) ||
        !readSwitch("TFNO_TEST_COL3D", cuda::setFftColumn3dOverride, &c3Name) ||
        !readSwitch("TFNO_TEST_MIX_RING", cuda::setMixRingOverride, &ringName) ||
        !readSwitch("TFNO_TEST_FFT_PLANE", cuda::setFftPlaneOverride, &planeName, {"256", "1024"}))
        return 1;
    std::printf("algorithm: %s, pass tensor cores: %s, flat mixing: %s, fft passes: %s, mixing in C2R: %s, 3D column FFTs: %s, "
                "mixing ring: %s, plane kernels: %s\n",
                algoName.c_str(), tcName.c_str(), flatName.c_str(), fftName.c_str(), mcName.c_str(), c3Name.c_str(), ringName.c_str(),
                planeName.c_str());
    std::mt19937_64 rng(seed);

    const DataType types[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16};
    const char* tname[] = {"f32", "f16", "bf16"};
    for (int t = 0; t < 3; ++t) {
        const DataType dt = types[t];
        const std::string s = std::string(" ") + tname[t];
        runCase({"1d S37 k7 bias" + s, {37}, 3, 5, 4, {7}, {0}, false, true, dt}, rng);
        runCase({"1d S40 k21 (Nyquist) separable" + s, {40}, 2, 3, 3, {21}, {0}, true, false, dt}, rng);
        runCase({"2d 12x17 p(3,5) q(2,0) bias" + s, {12, 17}, 2, 3, 5, {3, 5}, {2, 0}, false, true, dt}, rng);
        runCase({"2d 9x20 p(0,11) q(3,0) (high only, Nyquist)" + s, {9, 20}, 2, 4, 3, {0, 11}, {3, 0}, false, false, dt}, rng);
        runCase({"2d 15x14 separable bias" + s, {15, 14}, 3, 4, 4, {4, 3}, {3, 0}, true, true, dt}, rng);
        runCase({"3d 6x7x10 p(2,1,3) q(1,2,0) bias" + s, {6, 7, 10}, 2, 3, 2, {2, 1, 3}, {1, 2, 0}, false, true, dt}, rng);
        runCase({"3d 5x8x9 separable" + s, {5, 8, 9}, 1, 3, 3, {1, 3, 5}, {2, 0, 0}, true, false, dt}, rng);
    }
    // plan paths: forward row split (few planes), several leading-mode tiles, last-axis tiles,
    // computed twiddles (axis too long for tables), multi-chunk inverse staging.
    runCase({"2d 64x48 split path f32", {64, 48}, 1, 2, 3, {6, 9}, {5, 0}, false, true, DataType::kFloat32}, rng);
    runCase({"2d 100x64 two KL tiles f32", {100, 64}, 1, 2, 2, {40, 32}, {40, 0}, false, false, DataType::kFloat32}, rng);
    runCase({"1d 1000 k300 K3 tiles f32", {1000}, 2, 2, 3, {300}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"1d 13001 k20 computed twiddles f32", {13001}, 1, 2, 2, {20}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"3d 33x30x8 K(24,24,4) f16", {33, 30, 8}, 1, 2, 2, {12, 12, 4}, {12, 12, 0}, false, false, DataType::kFloat16}, rng);
    runCase({"2d 400x64 K(400,32) chunked inverse staging f32", {400, 64}, 1, 2, 2, {200, 32}, {200, 0}, false, false, DataType::kFloat32}, rng);
    runCase({"2d 128x128 m(8,8) N9 Cin5 (mix batch>8) f32", {128, 128}, 9, 5, 6, {8, 8}, {8, 0}, false, true, DataType::kFloat32}, rng);
    // mixing: one block per batch chunk of <= 8 items (3 chunks, the last partial), with forward row split
    runCase({"2d 16x16 N20 Cin7 Cout9 (mix batch chunks + split) f32", {16, 16}, 20, 7, 9, {3, 4}, {2, 0}, false, false, DataType::kFloat32}, rng);
    runCase({"2d 20x18 N19 separable (mix batch chunks) f16", {20, 18}, 19, 3, 3, {4, 5}, {3, 0}, true, true, DataType::kFloat16}, rng);
    // two leading / last-axis tiles + row split, five last-axis tiles, the benchmark geometry in bf16,
    // a long last axis with many modes
    runCase({"2d 256x200 K(36+36) k40 tiles + split f32", {256, 200}, 1, 2, 2, {36, 40}, {36, 0}, false, true, DataType::kFloat32}, rng);
    runCase({"2d 24x300 K(5+3) k70 five last-axis tiles f32", {24, 300}, 2, 2, 3, {5, 70}, {3, 0}, false, true, DataType::kFloat32}, rng);
    runCase({"2d 128x128 m32 bf16", {128, 128}, 2, 8, 8, {32, 32}, {32, 0}, false, true, DataType::kBFloat16}, rng);
    runCase({"2d 40x1000 k100 (tc falls back) f32", {40, 1000}, 1, 2, 2, {4, 100}, {4, 0}, false, false, DataType::kFloat32}, rng);
    // separable algorithm: long axes (split k range, partial spectra), many modes, primes, 3D
    runCase({"1d 65536 k64 (four-step FFT, partials) f32", {65536}, 2, 3, 2, {64}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"1d 30011 k40 (beyond the fused plane) bf16", {30011}, 1, 2, 3, {40}, {0}, false, true, DataType::kBFloat16}, rng);
    runCase({"1d 1024 k256 N3 f32", {1024}, 3, 8, 8, {256}, {0}, false, false, DataType::kFloat32}, rng);
    runCase({"2d 97x101 primes f16", {97, 101}, 2, 3, 3, {11, 13}, {12, 0}, false, true, DataType::kFloat16}, rng);
    runCase({"3d 48x48x48 m12 f32", {48, 48, 48}, 1, 4, 4, {12, 12, 12}, {12, 12, 0}, false, true, DataType::kFloat32}, rng);
    runCase({"3d 17x31x23 separable f32", {17, 31, 23}, 2, 3, 3, {5, 7, 9}, {4, 8, 0}, true, true, DataType::kFloat32}, rng);
    runCase({"3d 96x20x18 column lengths f32", {96, 20, 18}, 1, 2, 3, {16, 6, 5}, {15, 5, 0}, false, true, DataType::kFloat32}, rng);
    // FFT last-axis passes (fft_pass.cuh; TFNO_TEST_FFT_PASS=0 runs them as DFT passes): the shortest
    // axis with Nyquist, every bin of the longest, several lines per block with a partial last block
    // (7 x 97 lines of 64 -> 2 per block), half precision, a 3D chain and a 2D plane (separable weights)
    runCase({"1d 8 k5 FFT pass (Nyquist) f32", {8}, 3, 4, 5, {5}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"1d 4096 k2049 FFT pass (every bin) f32", {4096}, 1, 2, 2, {2049}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"1d 64 k9 N7 C97 FFT pass (2 lines per block) f32", {64}, 7, 97, 97, {9}, {0}, false, true, DataType::kFloat32}, rng);
    // the mixing inside the radix-2 C2R (mixing_c2r.cuh): Burgers' layer at batch 1 (1 line per block, 15 channel
    // groups) and 32 (4 lines, 3 groups), separable weights
    runCase({"1d 256 k17 N1 C64 mixing in C2R f32", {256}, 1, 64, 64, {17}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"1d 256 k17 N32 C64 mixing in C2R f32", {256}, 32, 64, 64, {17}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"1d 256 k17 N32 C64 mixing in C2R bf16", {256}, 32, 64, 64, {17}, {0}, false, true, DataType::kBFloat16}, rng);
    runCase({"1d 128 k33 N300 C16 separable mixing in C2R f16", {128}, 300, 16, 16, {33}, {0}, true, true, DataType::kFloat16}, rng);
    runCase({"1d 2048 k33 FFT pass f16", {2048}, 5, 3, 4, {33}, {0}, false, true, DataType::kFloat16}, rng);
    runCase({"3d 12x10x32 FFT last axis bf16", {12, 10, 32}, 2, 3, 3, {4, 3, 9}, {3, 3, 0}, false, true, DataType::kBFloat16}, rng);
    runCase({"2d 20x16 separable FFT last axis f32", {20, 16}, 3, 3, 3, {4, 9}, {3, 0}, true, true, DataType::kFloat32}, rng);
    // mixed-radix FFT passes (fft_pass.cuh, S = 2 * 2^a 3^b 5^c; many other cases above have such
    // last axes too): the benchmark's 180-point rows (stages 3 3 5 2), 45 lines per block with a partial
    // last block, every bin of an odd N2 = 2025, the most stages (2916: 3^6 2), a 3D chain, half precision
    runCase({"1d 180 k40 N5 C19 FFT mixed (45 lines per block) f32", {180}, 5, 19, 19, {40}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"1d 4050 k2026 FFT mixed (every bin, odd S/2) f32", {4050}, 1, 2, 2, {2026}, {0}, false, true, DataType::kFloat32}, rng);
    runCase({"1d 2916 k33 FFT mixed (7 stages) f16", {2916}, 3, 3, 4, {33}, {0}, false, true, DataType::kFloat16}, rng);
    runCase({"2d 250x180 m(20+20, 40) FFT mixed f32", {250, 180}, 1, 4, 4, {20, 40}, {20, 0}, false, true, DataType::kFloat32}, rng);
    runCase({"2d 24x384 k48 FFT mixed bf16", {24, 384}, 2, 3, 3, {6, 48}, {6, 0}, false, true, DataType::kBFloat16}, rng);
    runCase({"3d 6x8x30 FFT mixed last axis f32", {6, 8, 30}, 2, 3, 3, {2, 3, 16}, {2, 3, 0}, false, true, DataType::kFloat32}, rng);
    // leading axes with a compile-time column FFT kernel (kFftColumnStaticRadices; on the separable algorithm,
    // TFNO_TEST_ALGO=separable runs them all), asymmetric low / high blocks, partial column tiles
    runCase({"2d 32x24 column 32 f32", {32, 24}, 2, 3, 3, {7, 5}, {6, 0}, false, true, DataType::kFloat32}, rng);
    runCase({"2d 48x40 column 48 f16", {48, 40}, 2, 3, 4, {12, 9}, {11, 0}, false, true, DataType::kFloat16}, rng);
    runCase({"2d 96x30 column 96 separable f32", {96, 30}, 3, 4, 4, {20, 11}, {20, 0}, true, true, DataType::kFloat32}, rng);
    runCase({"2d 180x20 column 180 f32", {180, 20}, 1, 3, 2, {30, 9}, {29, 0}, false, false, DataType::kFloat32}, rng);
    runCase({"2d 192x16 column 192 bf16", {192, 16}, 2, 2, 3, {24, 7}, {24, 0}, false, true, DataType::kBFloat16}, rng);
    runCase({"2d 384x12 column 384 f32", {384, 12}, 1, 2, 2, {48, 5}, {47, 0}, false, true, DataType::kFloat32}, rng);
    runCase({"2d 512x10 column 512 f32", {512, 10}, 1, 2, 2, {40, 4}, {40, 0}, false, true, DataType::kFloat32}, rng);
    // the plane kernels (fft_plane.cuh) at every plane of kFftPlaneShapes, where the separable algorithm runs (TFNO_TEST_ALGO=
    // separable; TFNO_TEST_FFT_PLANE=0|1 forces them off / on): asymmetric low / high blocks, Nyquist, separable weights
    runCase({"2d 64x64 plane m(8+8, 9) f32", {64, 64}, 1, 5, 6, {8, 9}, {8, 0}, false, true, DataType::kFloat32}, rng);
    runCase({"2d 64x64 plane m(12+5, 33) N3 f16", {64, 64}, 3, 2, 3, {12, 33}, {5, 0}, false, true, DataType::kFloat16}, rng);
    runCase({"2d 48x48 plane m(6+6, 7) bf16", {48, 48}, 2, 3, 2, {6, 7}, {6, 0}, false, false, DataType::kBFloat16}, rng);
    runCase({"2d 48x48 plane separable f32", {48, 48}, 2, 4, 4, {9, 25}, {3, 0}, true, true, DataType::kFloat32}, rng);
    runCase({"2d 32x32 plane m(0+7, 17) f32", {32, 32}, 4, 3, 3, {0, 17}, {7, 0}, false, true, DataType::kFloat32}, rng);
    badCalls();
    return turbofno_test::finish(failures, seed);
}
