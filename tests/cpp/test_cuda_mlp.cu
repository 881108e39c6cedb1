// Standalone GPU test of core::launchMlpCuda (the PointwiseMLP op, turbofno/pointwise_mlp.h) against a
// float64 host reference written here: odd and degenerate sizes (Cin / Ch / Cout = 1, P = 1, tails),
// every Cout tile variant and the Cin-chunked path, every (hidden, output) activation pair, each
// optional input (b1, b2, r, g) on and off, fp32 / fp16 / bf16, in place (y == r), unaligned pointers
// (scalar path), NaN-poisoned outputs (every element must be written), bitwise repeatability, a
// CUDA-graph replay equal to the stream launch, PDL on and off, and bad-call error codes. Every case
// runs with each kernel forced (setMlpTcOverride): the per-point kernel ("THREAD ",
// pointwise_mlp_thread.cuh, the default where it fits; else the automatic choice), the tensor-core
// kernels ("TC ..." pointwise_mlp_tc.cuh, "TC64 "), the small-grid FMA kernel ("SMALL ...",
// pointwise_mlp_small.cuh, each tile; where it cannot take a shape, the automatic choice) and the FMA
// kernel ("FMA "), at the same tolerances.
// Prints "SKIPPED: no CUDA device" and exits 77 where no GPU exists (ctest: Skipped).
//
//   test_cuda_mlp            the full check (exit 1 on any failure)
//   test_cuda_mlp --quick    a few small cases (for compute-sanitizer: tests/gpu/mlp_check.sh)
//   test_cuda_mlp --bench    timing of the typical shapes: us per launch (CUDA graph of 20 launches)
//                            and the ratio to the memory floor (x + r + y bytes at 4.11 TB/s); the
//                            tensor-core, FMA and per-point kernels forced, and each FMA rows-per-thread variant
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"
#include "turbofno/cuda.h"
#include "turbofno/pointwise_mlp.h"

using namespace turbofno;
using core::Activation;
using core::DataType;

namespace turbofno {
namespace cuda {
void setPdlOverride(int mode);      // plugins/cuda/pdl.cuh: -1 automatic, 0 off, 1 on
void setMlpRowsOverride(int om);   // plugins/cuda/pointwise_mlp.cu: 0 automatic, 1 / 2 / 4 / 8 rows per thread (FMA kernel)
void setMlpTcOverride(int mode);   // plugins/cuda/pointwise_mlp.cu: -1 automatic, 0 FMA, 1 TC kernel, 2 the 64-point TC kernel, 3 the per-point kernel, 4 the small-grid FMA kernel
void setMlpTcTileOverride(int bm);  // 0 automatic, 16 / 32 / 64: the TC kernel's output tile (non-persistent)
void setMlpTcPersistOverride(int mode);  // -1 automatic, 0: never the persistent TC kernel
}  // namespace cuda
}  // namespace turbofno

namespace {

int failures = 0;
std::string gTag;  // "TC " / "FMA ": the kernel forced for the cases that follow

#define CHECK_CUDA(call)                                                                             \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                     \
            std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                                            \
        }                                                                                            \
    } while (0)

struct Case {
    std::string name;
    int64_t n, cin, ch, cout, P;
    int hact, act;
    bool b1, b2, r, g;
    DataType dtype;
    bool inPlace = false;  // y == r
    bool offset = false;   // x, r, y one element past an aligned address (the scalar path)
};

const char* kActName[] = {"id", "gelu", "gelu_tanh", "relu", "silu", "tanh"};

size_t elemSize(DataType t) { return t == DataType::kFloat32 ? 4 : 2; }

double storeAs(DataType t, unsigned char* raw, size_t i, double v) {
    if (t == DataType::kFloat32) {
        float f = static_cast<float>(v);
        std::memcpy(raw + 4 * i, &f, 4);
        return f;
    }
    if (t == DataType::kFloat16) {
        __half h = __float2half_rn(static_cast<float>(v));
        std::memcpy(raw + 2 * i, &h, 2);
        return __half2float(h);
    }
    __nv_bfloat16 h = __float2bfloat16_rn(static_cast<float>(v));
    std::memcpy(raw + 2 * i, &h, 2);
    return __bfloat162float(h);
}
double loadAs(DataType t, const unsigned char* raw, size_t i) {
    if (t == DataType::kFloat32) {
        float f;
        std::memcpy(&f, raw + 4 * i, 4);
        return f;
    }
    if (t == DataType::kFloat16) {
        __half h;
        std::memcpy(&h, raw + 2 * i, 2);
        return __half2float(h);
    }
    __nv_bfloat16 h;
    std::memcpy(&h, raw + 2 * i, 2);
    return __bfloat162float(h);
}

double activate(double v, int act) {
    switch (act) {
        case 1: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        case 2: return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        case 3: return v > 0 ? v : 0.0;
        case 4: return v / (1.0 + std::exp(-v));
        case 5: return std::tanh(v);
        default: return v;
    }
}

// A host tensor: the rounded values (double) and their raw device representation.
struct HostTensor {
    std::vector<double> v;
    std::vector<unsigned char> raw;
    void fill(DataType t, size_t count, double scale, std::mt19937_64& rng) {
        std::normal_distribution<double> normal(0.0, 1.0);
        v.resize(count);
        raw.resize(count * elemSize(t));
        for (size_t i = 0; i < count; ++i) v[i] = storeAs(t, raw.data(), i, scale * normal(rng));
    }
};

bool gWeightsConstant = false;  // PointwiseMlpParams::weightsConstant of the cases (the weights staged before the PDL wait)

core::PointwiseMlpParams makeParams(const Case& c) {
    core::PointwiseMlpParams p;
    p.weightsConstant = gWeightsConstant;
    p.attrs.hiddenActivation = static_cast<Activation>(c.hact);
    p.attrs.activation = static_cast<Activation>(c.act);
    core::PointwiseMlpShape& s = p.shape;
    s.spatialRank = 1;
    s.batch = c.n;
    s.inChannels = c.cin;
    s.hiddenChannels = c.ch;
    s.outChannels = c.cout;
    s.points = c.P;
    s.spatial[0] = c.P;
    s.hasB1 = c.b1;
    s.hasB2 = c.b2;
    s.hasResidual = c.r;
    s.hasGate = c.r && c.g;
    p.dtype = c.dtype;
    return p;
}

// Device buffers of one case (x, r, y padded by one element for the offset variant).
struct DeviceCase {
    void *x = nullptr, *w1 = nullptr, *b1 = nullptr, *w2 = nullptr, *b2 = nullptr, *r = nullptr, *g = nullptr, *y = nullptr;
    void* xBase = nullptr;
    void* rBase = nullptr;
    void* yBase = nullptr;
    ~DeviceCase() {
        for (void* p : {xBase, w1, b1, w2, b2, rBase, g, yBase})
            if (p) cudaFree(p);
    }
};

void* upload(const HostTensor& t) {
    void* d;
    CHECK_CUDA(cudaMalloc(&d, t.raw.size()));
    CHECK_CUDA(cudaMemcpy(d, t.raw.data(), t.raw.size(), cudaMemcpyHostToDevice));
    return d;
}

// Launches, waits, and checks both the return code and the sticky / asynchronous error state.
bool launchAndSync(const Case& c, const core::PointwiseMlpParams& p, cudaStream_t stream) {
    // no workspace (mlpCudaWorkspaceBytes is 0; it lives in plugins/src/validate_mlp.cpp of the core)
    const cudaError_t e = core::launchMlpCuda(p, nullptr, 0, stream);
    const cudaError_t s = cudaStreamSynchronize(stream);
    const cudaError_t l = cudaGetLastError();
    if (e != cudaSuccess || s != cudaSuccess || l != cudaSuccess) {
        std::printf("FAIL %s: launch %s, sync %s, last error %s\n", c.name.c_str(), cudaGetErrorName(e), cudaGetErrorName(s),
                    cudaGetErrorName(l));
        if (s != cudaSuccess) std::exit(1);  // a fault poisons the context: stop here
        return false;
    }
    return true;
}

void runCase(const Case& c0, std::mt19937_64& rng, bool graphToo = false) {
    Case c = c0;
    c.name = gTag + c.name;
    const DataType dt = c.dtype;
    const size_t es = elemSize(dt);
    const size_t nx = static_cast<size_t>(c.n * c.cin * c.P), ny = static_cast<size_t>(c.n * c.cout * c.P);
    HostTensor x, w1, b1, w2, b2, r, g;
    x.fill(dt, nx, 1.0, rng);
    w1.fill(dt, static_cast<size_t>(c.ch * c.cin), 1.0 / std::sqrt(static_cast<double>(c.cin)), rng);
    w2.fill(dt, static_cast<size_t>(c.cout * c.ch), 1.0 / std::sqrt(static_cast<double>(c.ch)), rng);
    b1.fill(dt, static_cast<size_t>(c.ch), 0.5, rng);
    b2.fill(dt, static_cast<size_t>(c.cout), 0.5, rng);
    r.fill(dt, ny, 1.0, rng);
    g.fill(dt, static_cast<size_t>(c.cout), 1.0, rng);

    // float64 reference on the rounded inputs
    // termMag: the magnitude of the summed terms of each output (|b2| + sum |w2 h| + |g r|), the scale an fp32
    // dot product's rounding error follows; an output that cancels is small against it
    std::vector<double> ref(ny), termMag(ny), h(static_cast<size_t>(c.ch));
    for (int64_t n = 0; n < c.n; ++n)
        for (int64_t s = 0; s < c.P; ++s) {
            for (int64_t j = 0; j < c.ch; ++j) {
                double a = c.b1 ? b1.v[j] : 0.0;
                for (int64_t i = 0; i < c.cin; ++i) a += w1.v[j * c.cin + i] * x.v[(n * c.cin + i) * c.P + s];
                h[j] = activate(a, c.hact);
            }
            for (int64_t o = 0; o < c.cout; ++o) {
                double a = c.b2 ? b2.v[o] : 0.0, mag = std::fabs(a);
                for (int64_t j = 0; j < c.ch; ++j) {
                    a += w2.v[o * c.ch + j] * h[j];
                    mag += std::fabs(w2.v[o * c.ch + j] * h[j]);
                }
                const size_t yi = static_cast<size_t>((n * c.cout + o) * c.P + s);
                if (c.r) {
                    a += (c.g ? g.v[o] : 1.0) * r.v[yi];
                    mag += std::fabs((c.g ? g.v[o] : 1.0) * r.v[yi]);
                }
                ref[yi] = activate(a, c.act);
                termMag[yi] = mag;
            }
        }

    DeviceCase d;
    const size_t off = c.offset ? es : 0;
    CHECK_CUDA(cudaMalloc(&d.xBase, nx * es + off));
    constexpr size_t kGuard = 512;  // bytes after y (and the offset before it) that must stay untouched
    CHECK_CUDA(cudaMalloc(&d.yBase, ny * es + off + kGuard));
    CHECK_CUDA(cudaMemset(d.yBase, 0x5A, ny * es + off + kGuard));
    d.x = static_cast<char*>(d.xBase) + off;
    d.y = static_cast<char*>(d.yBase) + off;
    CHECK_CUDA(cudaMemcpy(d.x, x.raw.data(), x.raw.size(), cudaMemcpyHostToDevice));
    d.w1 = upload(w1);
    d.w2 = upload(w2);
    if (c.b1) d.b1 = upload(b1);
    if (c.b2) d.b2 = upload(b2);
    if (c.r && c.g) d.g = upload(g);
    if (c.r && !c.inPlace) {
        CHECK_CUDA(cudaMalloc(&d.rBase, ny * es + off));
        d.r = static_cast<char*>(d.rBase) + off;
        CHECK_CUDA(cudaMemcpy(d.r, r.raw.data(), r.raw.size(), cudaMemcpyHostToDevice));
    }
    if (c.r && c.inPlace) d.r = d.y;
    core::PointwiseMlpParams p = makeParams(c);
    p.x = d.x;
    p.w1 = d.w1;
    p.b1 = d.b1;
    p.w2 = d.w2;
    p.b2 = d.b2;
    p.residual = d.r;
    p.gate = d.g;
    p.y = d.y;
    // y before each launch: the residual (in place) or NaN in every float format. Then a device-wide sync:
    // both calls run on the legacy default stream (a pageable-memory cudaMemcpy may return before its DMA
    // lands, cudaMemset is asynchronous), which the non-blocking test stream does not wait for.
    auto resetY = [&] {
        if (c.r && c.inPlace) CHECK_CUDA(cudaMemcpy(d.y, r.raw.data(), r.raw.size(), cudaMemcpyHostToDevice));
        else CHECK_CUDA(cudaMemset(d.y, 0xFF, ny * es));
        CHECK_CUDA(cudaDeviceSynchronize());
    };
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<unsigned char> hy(ny * es), hy2(ny * es), hy3(ny * es);
    resetY();
    bool ok = launchAndSync(c, p, stream);
    CHECK_CUDA(cudaMemcpy(hy.data(), d.y, hy.size(), cudaMemcpyDeviceToHost));
    // repeat: a deterministic kernel gives bitwise the same output (a difference means a race)
    resetY();
    ok = launchAndSync(c, p, stream) && ok;
    CHECK_CUDA(cudaMemcpy(hy2.data(), d.y, hy2.size(), cudaMemcpyDeviceToHost));
    bool same = std::memcmp(hy.data(), hy2.data(), hy.size()) == 0;
    bool graphSame = true;
    if (graphToo) {  // captured into a CUDA graph and replayed: the same bits
        resetY();
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        const cudaError_t e = core::launchMlpCuda(p, nullptr, 0, stream);
        CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
        if (e != cudaSuccess) {
            std::printf("FAIL %s: launch during capture: %s\n", c.name.c_str(), cudaGetErrorName(e));
            ok = false;
        }
        CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        CHECK_CUDA(cudaGraphLaunch(exec, stream));
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(hy3.data(), d.y, hy3.size(), cudaMemcpyDeviceToHost));
        graphSame = std::memcmp(hy.data(), hy3.data(), hy.size()) == 0;
        CHECK_CUDA(cudaGraphExecDestroy(exec));
        CHECK_CUDA(cudaGraphDestroy(graph));
    }
    CHECK_CUDA(cudaStreamDestroy(stream));
    // nothing written outside y
    std::vector<unsigned char> guard(kGuard + off);
    CHECK_CUDA(cudaMemcpy(guard.data(), d.yBase, off, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(guard.data() + off, static_cast<char*>(d.y) + ny * es, kGuard, cudaMemcpyDeviceToHost));
    size_t guardHit = 0;
    for (unsigned char u : guard) guardHit += u != 0x5A;
    if (guardHit) {
        std::printf("FAIL %s: %zu bytes written outside y\n", c.name.c_str(), guardHit);
        ok = false;
    }

    double num = 0, den = 0, denMag = 0, maxErr = 0;
    size_t bad = 0;
    for (size_t i = 0; i < ny; ++i) {
        const double v = loadAs(dt, hy.data(), i);
        if (!std::isfinite(v)) {
            ++bad;
            continue;
        }
        const double e = std::fabs(v - ref[i]);
        num += e * e;
        den += ref[i] * ref[i];
        denMag += termMag[i] * termMag[i];
        maxErr = std::max(maxErr, e);
    }
    const double rms = std::sqrt(den / static_cast<double>(ny));
    const double rel = std::sqrt(num / (den > 0 ? den : 1));
    // the same error against the terms' magnitudes: where outputs cancel (a few outputs, e.g. one point of one
    // channel) rel-L2 against the output itself can exceed the tolerance at a correct fp32 (3xTF32) result
    const double relMag = std::sqrt(num / (denMag > 0 ? denMag : 1));
    const double maxRel = maxErr / (rms > 0 ? rms : 1);  // worst element, relative to the output's rms
    // and relative to the terms' rms: with one or a few outputs that cancel, max/rms is rel-L2 again (e.g. seed
    // 17964255729977909294, one point of one channel: 9.4e-5 against the output, 1.1e-7 against its terms)
    const double rmsMag = std::sqrt(denMag / static_cast<double>(ny));
    const double maxRelMag = maxErr / (rmsMag > 0 ? rmsMag : 1);
    // fp32: fp32 accumulation over Cin then Ch terms; half types: dominated by the output's rounding
    const double tol = dt == DataType::kFloat32 ? 1e-6 : dt == DataType::kFloat16 ? 1e-3 : 8e-3;
    const double maxTol = dt == DataType::kFloat32 ? 3e-5 : dt == DataType::kFloat16 ? 1e-2 : 6e-2;
    const bool pass = ok && bad == 0 && (rel <= tol || relMag <= tol) && (maxRel <= maxTol || maxRelMag <= maxTol) &&
                      same && graphSame;
    std::printf("%s %-58s rel_l2=%.2e (vs terms %.2e, tol %.0e) max/rms=%.2e (vs terms %.2e) unwritten/nonfinite=%zu repeat_bitwise=%s%s\n",
                pass ? "ok  " : "FAIL", c.name.c_str(), rel, relMag, tol, maxRel, maxRelMag, bad, same ? "yes" : "NO",
                graphToo ? (graphSame ? " graph=same" : " graph=DIFFERS") : "");
    if (!pass) ++failures;
}

std::string dtName(DataType t) { return t == DataType::kFloat32 ? "f32" : t == DataType::kFloat16 ? "f16" : "bf16"; }

std::string shapeName(int64_t n, int64_t cin, int64_t ch, int64_t cout, int64_t P) {
    char b[96];
    std::snprintf(b, sizeof b, "N%lld %lld/%lld/%lld P%lld", static_cast<long long>(n), static_cast<long long>(cin),
                  static_cast<long long>(ch), static_cast<long long>(cout), static_cast<long long>(P));
    return b;
}

void expectCode(const char* what, cudaError_t got, cudaError_t want) {
    const bool ok = got == want;
    std::printf("%s bad call: %-40s -> %s\n", ok ? "ok  " : "FAIL", what, cudaGetErrorName(got));
    if (!ok) ++failures;
}

void badCalls() {
    Case c{"bad", 1, 4, 3, 2, 10, 1, 0, true, true, true, true, DataType::kFloat32};
    void* buf;
    CHECK_CUDA(cudaMalloc(&buf, 1 << 16));
    CHECK_CUDA(cudaMemset(buf, 0, 1 << 16));
    char* b = static_cast<char*>(buf);
    auto valid = [&] {
        core::PointwiseMlpParams p = makeParams(c);
        p.x = b;
        p.w1 = b + 4096;
        p.b1 = b + 8192;
        p.w2 = b + 12288;
        p.b2 = b + 16384;
        p.residual = b + 20480;
        p.gate = b + 24576;
        p.y = b + 28672;
        return p;
    };
    core::PointwiseMlpParams p = valid();
    expectCode("valid call", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaSuccess);
    p = valid();
    p.x = nullptr;
    expectCode("null x", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.w2 = nullptr;
    expectCode("null w2", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.b1 = nullptr;
    expectCode("b1 declared but null", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.residual = nullptr;
    expectCode("residual declared but null", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.shape.hasResidual = false;
    expectCode("gate without residual", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.y = const_cast<void*>(p.x);
    expectCode("y aliases x", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.attrs.activation = static_cast<Activation>(6);
    expectCode("activation out of range", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.attrs.hiddenActivation = static_cast<Activation>(-1);
    expectCode("hidden activation out of range", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.shape.hiddenChannels = 0;
    expectCode("zero hidden channels", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = valid();
    p.w1 = b + 4098;
    expectCode("misaligned w1 (fp32)", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaErrorMisalignedAddress);
    p = valid();
    p.residual = p.y;  // in place is allowed
    expectCode("in place (y == residual)", core::launchMlpCuda(p, nullptr, 0, nullptr), cudaSuccess);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaGetLastError());
    cudaFree(buf);
}

// Bench inputs: a hash of the index, uniform in [-scale, scale) (no host copies of large tensors).
template <typename T>
__global__ void fillKernel(T* p, size_t count, uint32_t salt, float scale) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ salt;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        const float u = static_cast<float>(h >> 8) * (1.f / 16777216.f);
        p[i] = static_cast<T>(scale * (2.f * u - 1.f));
    }
}

void fillDevice(void* p, size_t count, DataType dt, uint32_t salt, float scale) {
    if (dt == DataType::kFloat32) fillKernel<<<1024, 256>>>(static_cast<float*>(p), count, salt, scale);
    else if (dt == DataType::kFloat16) fillKernel<<<1024, 256>>>(static_cast<__half*>(p), count, salt, scale);
    else fillKernel<<<1024, 256>>>(static_cast<__nv_bfloat16*>(p), count, salt, scale);
    CHECK_CUDA(cudaGetLastError());
}

// us per launch: a CUDA graph of 20 launches, replayed 10 times between events (after one warm-up
// launch outside the capture and one replay).
double timeLaunches(const core::PointwiseMlpParams& p, cudaStream_t st) {
    CHECK_CUDA(core::launchMlpCuda(p, nullptr, 0, st));
    CHECK_CUDA(cudaStreamSynchronize(st));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 20; ++i) CHECK_CUDA(core::launchMlpCuda(p, nullptr, 0, st));
    CHECK_CUDA(cudaStreamEndCapture(st, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CHECK_CUDA(cudaGraphLaunch(exec, st));
    CHECK_CUDA(cudaStreamSynchronize(st));
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    const int reps = 10;
    CHECK_CUDA(cudaEventRecord(e0, st));
    for (int i = 0; i < reps; ++i) CHECK_CUDA(cudaGraphLaunch(exec, st));
    CHECK_CUDA(cudaEventRecord(e1, st));
    CHECK_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    CHECK_CUDA(cudaEventDestroy(e0));
    CHECK_CUDA(cudaEventDestroy(e1));
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    return 1e3 * ms / (20.0 * reps);
}

// --bench: us per launch from a CUDA graph of 20 launches (replayed, timed with events).
void bench(const std::string& only = "", int64_t onlyN = 0) {
    struct B {
        const char* what;
        int64_t cin, ch, cout, P;
        bool residual;
    };
    const B shapes[] = {
        {"channel MLP 64/32/64 2D 64x64", 64, 32, 64, 4096, true},
        {"channel MLP 64/32/64 2D 128x128 (tfno)", 64, 32, 64, 16384, true},
        {"channel MLP 1D 256", 64, 32, 64, 256, true},
        {"channel MLP 32/16/32 2D 64x64 (darcy)", 32, 16, 32, 4096, true},
        {"channel MLP Ch256 2D 64x64", 64, 256, 64, 4096, true},
        {"lifting 3/64/32 2D 64x64 (darcy)", 3, 64, 32, 4096, false},
        {"projection 32/64/1 2D 64x64 (darcy)", 32, 64, 1, 4096, false},
        {"lifting 3/128/64 2D 64x64", 3, 128, 64, 4096, false},
        {"projection 64/128/1 2D 64x64", 64, 128, 1, 4096, false},
        {"channel MLP 3D 32x64x64", 64, 32, 64, 131072, true},
        {"lifting 2/128/64 1D 256 (burgers)", 2, 128, 64, 256, false},
        {"projection 64/128/1 1D 256 (burgers)", 64, 128, 1, 256, false},
    };
    const double kBandwidth = 4.11e12;
    std::printf("%-32s %4s %-5s %10s %10s %9s %8s  %s\n", "shape", "N", "type", "us/launch", "floor us", "floor/t", "TFLOP/s",
                "forced: TC / TC64 (auto tile; 32, 64 points forced) / SMALL (auto; 16, 32, 64 points) / FMA / THREAD us | TC with output tile BM: us | FMA with OM (rows per thread): us");
    for (const B& s : shapes)
        for (int64_t n : {int64_t{1}, int64_t{32}})
            for (DataType dt : {DataType::kFloat32, DataType::kFloat16}) {
                if (n * s.P > 32 * 4096 && n > 1) continue;  // the 3D shape at N = 1 only (1 GB per tensor at N = 32)
                if (!only.empty()) {  // --bench-one: that shape at that N, fp32, the automatic kernel only (for ncu)
                    if (std::string(s.what).find(only) == std::string::npos || n != onlyN || dt != DataType::kFloat32) continue;
                }
                const size_t es = elemSize(dt);
                const size_t nx = static_cast<size_t>(n * s.cin * s.P), ny = static_cast<size_t>(n * s.cout * s.P);
                Case c{"bench", n, s.cin, s.ch, s.cout, s.P, 1, 0, true, true, s.residual, s.residual, dt};
                core::PointwiseMlpParams p = makeParams(c);
                void *x, *w1, *b1, *w2, *b2, *r = nullptr, *g = nullptr, *y;
                CHECK_CUDA(cudaMalloc(&x, nx * es));
                CHECK_CUDA(cudaMalloc(&y, ny * es));
                fillDevice(x, nx, dt, 1, 1.f);
                CHECK_CUDA(cudaMalloc(&w1, s.ch * s.cin * es));
                fillDevice(w1, s.ch * s.cin, dt, 2, 1.f / std::sqrt(static_cast<float>(s.cin)));
                CHECK_CUDA(cudaMalloc(&w2, s.cout * s.ch * es));
                fillDevice(w2, s.cout * s.ch, dt, 3, 1.f / std::sqrt(static_cast<float>(s.ch)));
                CHECK_CUDA(cudaMalloc(&b1, s.ch * es));
                fillDevice(b1, s.ch, dt, 4, 0.5f);
                CHECK_CUDA(cudaMalloc(&b2, s.cout * es));
                fillDevice(b2, s.cout, dt, 5, 0.5f);
                if (s.residual) {
                    CHECK_CUDA(cudaMalloc(&r, ny * es));
                    fillDevice(r, ny, dt, 6, 1.f);
                    CHECK_CUDA(cudaMalloc(&g, s.cout * es));
                    fillDevice(g, s.cout, dt, 7, 1.f);
                }
                p.x = x;
                p.w1 = w1;
                p.b1 = b1;
                p.w2 = w2;
                p.b2 = b2;
                p.residual = r;
                p.gate = g;
                p.y = y;
                cudaStream_t st;
                CHECK_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
                CHECK_CUDA(cudaDeviceSynchronize());  // the fills ran on the legacy stream
                const double bytes = static_cast<double>(nx + ny * (s.residual ? 2 : 1)) * es;
                const double floorUs = 1e6 * bytes / kBandwidth;
                const double flops = 2.0 * static_cast<double>(n * s.P) * static_cast<double>(s.cin * s.ch + s.ch * s.cout);
                const double us = timeLaunches(p, st);
                if (!only.empty()) {
                    std::printf("%-32s %4lld %-5s %10.2f us/launch (automatic kernel)\n", s.what, static_cast<long long>(n), dtName(dt).c_str(), us);
                    CHECK_CUDA(cudaStreamDestroy(st));
                    for (void* q : {x, w1, b1, w2, b2, r, g, y})
                        if (q) CHECK_CUDA(cudaFree(q));
                    continue;
                }
                // the kernels forced: tensor cores, FMA (launcher's rows per thread), and each FMA variant
                // (rows per thread), to check the launcher's choice
                cuda::setMlpTcOverride(1);
                const double usTc = timeLaunches(p, st);
                cuda::setMlpTcOverride(2);
                const double usTc64 = timeLaunches(p, st);
                cuda::setMlpTcTileOverride(32);
                const double usTc64Tp32 = timeLaunches(p, st);
                cuda::setMlpTcTileOverride(64);
                const double usTc64Tp64 = timeLaunches(p, st);
                cuda::setMlpTcTileOverride(0);
                cuda::setMlpTcOverride(4);
                const double usSmall = timeLaunches(p, st);
                double usSmallTp[3];
                for (int i = 0; i < 3; ++i) {
                    cuda::setMlpTcTileOverride(16 << i);
                    usSmallTp[i] = timeLaunches(p, st);
                }
                cuda::setMlpTcTileOverride(0);
                cuda::setMlpTcOverride(0);
                const double usFma = timeLaunches(p, st);
                cuda::setMlpTcOverride(3);
                const double usThread = timeLaunches(p, st);
                char tv[240];
                std::snprintf(tv, sizeof tv, "TC:%.2f TC64:%.2f (TP32 %.2f, TP64 %.2f) SMALL:%.2f (TP16 %.2f, TP32 %.2f, TP64 %.2f) FMA:%.2f THREAD:%.2f | TC BM",
                              usTc, usTc64, usTc64Tp32, usTc64Tp64, usSmall, usSmallTp[0], usSmallTp[1], usSmallTp[2], usFma, usThread);
                std::string variants = tv;
                cuda::setMlpTcOverride(1);
                for (int bm : {16, 32, 64}) {
                    cuda::setMlpTcTileOverride(bm);
                    char v[32];
                    std::snprintf(v, sizeof v, " %d:%.2f", bm, timeLaunches(p, st));
                    variants += v;
                }
                cuda::setMlpTcTileOverride(0);
                cuda::setMlpTcOverride(0);
                variants += " | FMA OM";
                for (int om : {1, 2, 4, 8}) {
                    cuda::setMlpRowsOverride(om);
                    char v[32];
                    std::snprintf(v, sizeof v, " %d:%.2f", om, timeLaunches(p, st));
                    variants += v;
                }
                cuda::setMlpRowsOverride(0);
                cuda::setMlpTcOverride(-1);
                std::printf("%-32s %4lld %-5s %10.2f %10.2f %9.2f %8.1f  %s\n", s.what, static_cast<long long>(n), dtName(dt).c_str(), us,
                            floorUs, floorUs / us, flops / (us * 1e-6) / 1e12, variants.c_str());
                CHECK_CUDA(cudaStreamDestroy(st));
                for (void* q : {x, w1, b1, w2, b2, r, g, y})
                    if (q) CHECK_CUDA(cudaFree(q));
            }
    CHECK_CUDA(cudaGetLastError());
}

void runTests(bool quick, bool tc, std::mt19937_64& rng) {
    const DataType types[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16};
    if (quick) {  // small but covering: tails, every Cout tile variant, the chunked Cin path, in place
        cuda::setMlpRowsOverride(8);
        runCase({"quick " + shapeName(1, 9, 40, 3, 130) + " f32 OM8", 1, 9, 40, 3, 130, 1, 0, true, true, true, true, DataType::kFloat32}, rng);
        cuda::setMlpRowsOverride(0);
        runCase({"quick " + shapeName(2, 5, 7, 3, 37) + " f32", 2, 5, 7, 3, 37, 1, 3, true, true, true, true, DataType::kFloat32}, rng, true);
        runCase({"quick " + shapeName(1, 70, 40, 20, 131) + " f16", 1, 70, 40, 20, 131, 2, 4, true, true, true, false, DataType::kFloat16}, rng);
        runCase({"quick " + shapeName(2, 3, 33, 12, 129) + " bf16 in place", 2, 3, 33, 12, 129, 5, 1, false, true, true, true,
                 DataType::kBFloat16, true},
                rng);
        runCase({"quick " + shapeName(1, 64, 32, 65, 260) + " f32 offset", 1, 64, 32, 65, 260, 1, 0, true, true, true, true,
                 DataType::kFloat32, false, true},
                rng);
        return;
    }

    // shapes x dtypes, all optional inputs on, gelu hidden / identity output (the neuraloperator default)
    struct S {
        int64_t n, cin, ch, cout, P;
    };
    const S shapes[] = {
        {1, 1, 1, 1, 1},        {3, 1, 1, 1, 7},       {2, 1, 5, 3, 33},      {2, 7, 1, 5, 65},      {2, 5, 3, 1, 129},
        {1, 3, 128, 64, 4099},  {2, 4, 128, 64, 256},  {2, 64, 32, 64, 4096}, {1, 64, 32, 64, 4099}, {2, 64, 128, 1, 4096},
        {1, 32, 16, 32, 1000},  {1, 64, 256, 64, 300}, {2, 512, 16, 300, 4099}, {1, 65, 33, 9, 131}, {2, 130, 70, 17, 127},
        {1, 128, 64, 128, 128}, {3, 9, 31, 33, 1},     {1, 200, 40, 8, 5},    {1, 17, 96, 16, 2048},
        {32, 64, 32, 64, 256},  {8, 64, 128, 1, 256},  {5, 2, 128, 64, 250},  // Burgers' channel MLP, projection, lifting
    };
    // rows per thread: the launcher's choice (0), and each kernel variant forced (fp32: all; half
    // types: 8, the variant of the large-batch channel MLP; 1 is the register-GEMM2 variant)
    for (DataType dt : types)
        for (int om : {0, 1, 2, 4, 8}) {
            if (dt != DataType::kFloat32 && om != 0 && om != 8) continue;
            if (tc && om != 0) continue;  // rows per thread: FMA kernel only
            cuda::setMlpRowsOverride(om);
            for (const S& s : shapes) {
                // the largest one in fp32 only (the float64 reference is slow)
                if (s.cin == 512 && dt != DataType::kFloat32) continue;
                runCase({shapeName(s.n, s.cin, s.ch, s.cout, s.P) + " " + dtName(dt) + (om ? " OM" + std::to_string(om) : ""), s.n,
                         s.cin, s.ch, s.cout, s.P, 1, 0, true, true, true, true, dt},
                        rng);
            }
        }
    cuda::setMlpRowsOverride(0);
    // every (hidden, output) activation pair
    for (int ha = 0; ha < core::kActivationCount; ++ha)
        for (int oa = 0; oa < core::kActivationCount; ++oa)
            runCase({std::string("act ") + kActName[ha] + "/" + kActName[oa] + " " + shapeName(2, 6, 35, 10, 70) + " f32", 2, 6, 35, 10, 70,
                     ha, oa, true, true, true, true, DataType::kFloat32},
                    rng);
    // each optional input on / off (g only with r), every dtype
    for (DataType dt : types)
        for (int m = 0; m < 16; ++m) {
            const bool b1 = m & 1, b2 = m & 2, r = m & 4, g = m & 8;
            if (g && !r) continue;
            std::string nm = "opt";
            nm += b1 ? " b1" : " --";
            nm += b2 ? " b2" : " --";
            nm += r ? " r" : " -";
            nm += g ? " g" : " -";
            runCase({nm + " " + shapeName(2, 9, 20, 40, 200) + " " + dtName(dt), 2, 9, 20, 40, 200, 4, 3, b1, b2, r, g, dt}, rng);
        }
    // in place (y == r), unaligned pointers (scalar path with P % 4 == 0), CUDA-graph replay
    for (DataType dt : types) {
        runCase({"in place " + shapeName(2, 64, 32, 64, 4096) + " " + dtName(dt), 2, 64, 32, 64, 4096, 1, 0, true, true, true, true, dt, true},
                rng, true);
        runCase({"in place " + shapeName(3, 5, 40, 70, 77) + " no gate " + dtName(dt), 3, 5, 40, 70, 77, 2, 5, true, false, true, false, dt, true},
                rng);
        runCase({"offset " + shapeName(2, 13, 34, 21, 512) + " " + dtName(dt), 2, 13, 34, 21, 512, 1, 1, true, true, true, true, dt, false, true},
                rng, true);
    }
    // constant weights (PointwiseMlpParams::weightsConstant: the small-grid kernel stages them before its
    // grid-dependency wait): Burgers' three MLPs, in place, with a CUDA-graph replay
    gWeightsConstant = true;
    for (DataType dt : types) {
        runCase({"const w " + shapeName(32, 64, 32, 64, 256) + " " + dtName(dt), 32, 64, 32, 64, 256, 1, 1, true, true, true, true, dt, true}, rng, true);
        runCase({"const w " + shapeName(3, 2, 128, 64, 250) + " " + dtName(dt), 3, 2, 128, 64, 250, 1, 0, true, true, false, false, dt}, rng, true);
        runCase({"const w " + shapeName(2, 64, 128, 1, 77) + " " + dtName(dt), 2, 64, 128, 1, 77, 1, 0, true, true, false, false, dt}, rng);
    }
    gWeightsConstant = false;
    // PDL off (plain launches) and on again
    cuda::setPdlOverride(0);
    runCase({"pdl off " + shapeName(2, 64, 32, 64, 4096) + " f32", 2, 64, 32, 64, 4096, 1, 0, true, true, true, true, DataType::kFloat32}, rng, true);
    cuda::setPdlOverride(-1);
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false, doBench = false;
    std::string benchOnly;
    int64_t benchN = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--bench") doBench = true;
        else if (a == "--bench-one" && i + 2 < argc) {  // --bench-one SHAPE-SUBSTRING N
            benchOnly = argv[++i];
            benchN = std::atoll(argv[++i]);
            doBench = true;
        } else {
            std::printf("usage: %s [--quick | --bench | --bench-one SHAPE N]\n", argv[0]);
            return 2;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return turbofno_test::skip("no CUDA device");
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    if (doBench) {
        bench(benchOnly, benchN);
        return 0;
    }
    const uint64_t seed = turbofno_test::testSeed();
    std::mt19937_64 rng(seed);
    // every case with the tensor-core kernel (the default; automatic output tile, then 32 and 64
    // forced: the test shapes' small grids mostly get 16) and with the FMA kernel forced
    const struct {
        int tc, bm;
        const char* tag;
        int persist;
    } kernels[] = {{3, 0, "THREAD ", -1}, {1, 0, "TC ", -1}, {1, 0, "TC non-persistent ", 0}, {1, 32, "TC BM32 ", -1}, {1, 64, "TC BM64 ", -1}, {2, 0, "TC64 ", -1}, {2, 32, "TC64 TP32 ", -1}, {2, 64, "TC64 TP64 ", -1}, {4, 0, "SMALL ", -1}, {4, 16, "SMALL TP16 ", -1}, {4, 32, "SMALL TP32 ", -1}, {4, 64, "SMALL TP64 ", -1}, {0, 0, "FMA ", -1}};
    for (const auto& k : kernels) {
        cuda::setMlpTcOverride(k.tc);
        cuda::setMlpTcTileOverride(k.bm);
        cuda::setMlpTcPersistOverride(k.persist);
        gTag = k.tag;
        runTests(quick, k.tc != 0, rng);
    }
    cuda::setMlpTcOverride(-1);
    cuda::setMlpTcTileOverride(0);
    cuda::setMlpTcPersistOverride(-1);
    gTag.clear();
    badCalls();
    return turbofno_test::finish(failures, seed);
}
