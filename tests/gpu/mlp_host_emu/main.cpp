// The PointwiseMLP CUDA kernel's own source (plugins/cuda/pointwise_mlp.cu, compiled as host C++ by
// run.sh) run on CPU threads through core::launchMlpCuda, against a float64 reference: small odd
// shapes, every kernel variant (forced rows per thread), the chunked-Cin path, optional inputs,
// activations, fp32 / fp16 / bf16, in place, unaligned pointers (scalar path), NaN-poisoned y and
// NaN-filled shared memory. Every case runs with the per-point kernel (pointwise_mlp_thread.cuh; the
// automatic choice where it cannot take a shape), with the tensor-core kernel (pointwise_mlp_tc.cuh, its mma
// emulated warp-collectively by mma_tf32.cuh here), with the small-grid FMA kernel (pointwise_mlp_small.cuh,
// each tile) and with the FMA kernel forced. No GPU: this checks
// the kernels' index math, fragment layouts, barriers and epilogue, not their device code generation.
// Exit 1 on any failure.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "turbofno/cuda.h"
#include "turbofno/pointwise_mlp.h"

using namespace turbofno;
using core::DataType;

// The CUDA runtime calls the launcher makes (no libcudart here).
extern "C" cudaError_t cudaGetDevice(int* device) {
    *device = 0;
    return cudaSuccess;
}
extern "C" cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void*, int, size_t, unsigned) {
    *blocks = 2;  // the per-point kernel's grid: 2 blocks per "SM" (6 here), so its blocks loop over point tiles
    return cudaSuccess;
}
extern "C" cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr, int) {
    *value = 3;  // 3 "SMs": the persistent TC kernel's grid (2 per SM) is smaller than its work, so every block loops
    return cudaSuccess;
}

namespace turbofno {
namespace cuda {
void setMlpRowsOverride(int om);
void setMlpTcOverride(int mode);  // -1 automatic, 0 FMA kernel, 1 tensor-core kernel (pointwise_mlp_tc.cuh), 2 pointwise_mlp_tc64.cuh, 3 pointwise_mlp_thread.cuh, 4 pointwise_mlp_small.cuh
void setMlpTcTileOverride(int bm);  // 0 automatic, 16 / 32 / 64: the TC kernel's output tile (non-persistent)
void setMlpTcPersistOverride(int mode);  // -1 automatic, 0: never the persistent TC kernel
extern long long gEmuBlocks;
}  // namespace cuda
}  // namespace turbofno

namespace {

int failures = 0;
bool gWeightsConstant = false;  // PointwiseMlpParams::weightsConstant (the small-grid kernel's staging order)
const char* gTag = "";  // "TC " / "FMA ": the kernel forced

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

struct T {
    std::vector<double> v;
    std::vector<unsigned char> raw;  // 16 spare bytes in front (unaligned variants)
    void fill(DataType t, size_t n, double scale, std::mt19937_64& rng) {
        std::normal_distribution<double> nd(0.0, 1.0);
        v.resize(n);
        raw.assign(n * elemSize(t) + 32, 0);
        for (size_t i = 0; i < n; ++i) v[i] = storeAs(t, raw.data() + 16, i, scale * nd(rng));
    }
};

void run(int64_t N, int64_t cin, int64_t ch, int64_t cout, int64_t P, int hact, int act, bool b1on, bool b2on, bool ron, bool gon,
         DataType dt, int om, bool inPlace, bool offset, std::mt19937_64& rng) {
    const size_t es = elemSize(dt), nx = N * cin * P, ny = N * cout * P;
    T x, w1, b1, w2, b2, r, g;
    x.fill(dt, nx, 1.0, rng);
    w1.fill(dt, ch * cin, 1.0 / std::sqrt(double(cin)), rng);
    w2.fill(dt, cout * ch, 1.0 / std::sqrt(double(ch)), rng);
    b1.fill(dt, ch, 0.5, rng);
    b2.fill(dt, cout, 0.5, rng);
    r.fill(dt, ny, 1.0, rng);
    g.fill(dt, cout, 1.0, rng);
    std::vector<double> ref(ny), h(ch);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t s = 0; s < P; ++s) {
            for (int64_t j = 0; j < ch; ++j) {
                double a = b1on ? b1.v[j] : 0.0;
                for (int64_t i = 0; i < cin; ++i) a += w1.v[j * cin + i] * x.v[(n * cin + i) * P + s];
                h[j] = activate(a, hact);
            }
            for (int64_t o = 0; o < cout; ++o) {
                double a = b2on ? b2.v[o] : 0.0;
                for (int64_t j = 0; j < ch; ++j) a += w2.v[o * ch + j] * h[j];
                const size_t yi = (n * cout + o) * P + s;
                if (ron) a += (gon ? g.v[o] : 1.0) * r.v[yi];
                ref[yi] = activate(a, act);
            }
        }
    const size_t off = offset ? es : 0;  // one element past a 16-byte boundary: the scalar path
    std::vector<unsigned char> y(ny * es + 64, 0x5A);
    unsigned char* yp = y.data() + 16 + off;
    if (ron && inPlace) std::memcpy(yp, r.raw.data() + 16, ny * es);
    else std::memset(yp, 0xFF, ny * es);  // NaN
    // x and r moved by `off` too (copies in buffers aligned like the originals)
    std::vector<unsigned char> xb(nx * es + 32), rb(ny * es + 32);
    std::memcpy(xb.data() + 16 + off, x.raw.data() + 16, nx * es);
    std::memcpy(rb.data() + 16 + off, r.raw.data() + 16, ny * es);
    core::PointwiseMlpParams p;
    p.weightsConstant = gWeightsConstant;
    p.attrs.hiddenActivation = static_cast<core::Activation>(hact);
    p.attrs.activation = static_cast<core::Activation>(act);
    p.shape.spatialRank = 1;
    p.shape.batch = N;
    p.shape.inChannels = cin;
    p.shape.hiddenChannels = ch;
    p.shape.outChannels = cout;
    p.shape.points = P;
    p.shape.spatial[0] = P;
    p.shape.hasB1 = b1on;
    p.shape.hasB2 = b2on;
    p.shape.hasResidual = ron;
    p.shape.hasGate = ron && gon;
    p.dtype = dt;
    p.x = xb.data() + 16 + off;
    p.w1 = w1.raw.data() + 16;
    p.b1 = b1on ? b1.raw.data() + 16 : nullptr;
    p.w2 = w2.raw.data() + 16;
    p.b2 = b2on ? b2.raw.data() + 16 : nullptr;
    p.residual = ron ? (inPlace ? static_cast<const void*>(yp) : rb.data() + 16 + off) : nullptr;
    p.gate = ron && gon ? g.raw.data() + 16 : nullptr;
    p.y = yp;
    cuda::setMlpRowsOverride(om);
    const long long blocks0 = cuda::gEmuBlocks;
    const cudaError_t e = core::launchMlpCuda(p, nullptr, 0, nullptr);
    cuda::setMlpRowsOverride(0);
    double num = 0, den = 0;
    size_t bad = 0, guard = 0;
    for (size_t i = 0; i < 16 + off; ++i) guard += y[i] != 0x5A;
    for (size_t i = 16 + off + ny * es; i < y.size(); ++i) guard += y[i] != 0x5A;
    for (size_t i = 0; i < ny; ++i) {
        const double v = loadAs(dt, yp, i);
        if (!std::isfinite(v)) {
            ++bad;
            continue;
        }
        num += (v - ref[i]) * (v - ref[i]);
        den += ref[i] * ref[i];
    }
    const double rel = std::sqrt(num / (den > 0 ? den : 1));
    const double tol = dt == DataType::kFloat32 ? 1e-6 : dt == DataType::kFloat16 ? 1e-3 : 8e-3;
    const bool ok = e == cudaSuccess && bad == 0 && guard == 0 && rel <= tol;
    std::printf("%s %sN%lld %lld/%lld/%lld P%lld act %d/%d opt %d%d%d%d %s OM%s%s%s: blocks %lld rel_l2 %.2e nonfinite %zu outside %zu\n",
                ok ? "ok  " : "FAIL", gTag, (long long)N, (long long)cin, (long long)ch, (long long)cout, (long long)P, hact, act, b1on, b2on, ron, gon,
                dt == DataType::kFloat32 ? "f32" : dt == DataType::kFloat16 ? "f16" : "bf16", om ? std::to_string(om).c_str() : "auto",
                inPlace ? " in-place" : "", offset ? " offset" : "", cuda::gEmuBlocks - blocks0, rel, bad, guard);
    if (!ok) ++failures;
}

// The TC kernel's tile variants: hidden chunk 32 / 64, output tile 16 / 32 / 64 (+ Cout tiles), P even
// but not a multiple of 4 (pair epilogue, element-wise x loads), chunked Cin.
void runTileCases(std::mt19937_64& rng) {
    const DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16;
    run(1, 32, 16, 32, 130, 1, 0, true, true, true, true, f32, 0, false, false, rng);     // darcy channel MLP (2 point tiles)
    run(1, 3, 64, 32, 200, 1, 0, true, true, false, false, f32, 0, false, false, rng);    // darcy lifting
    run(1, 32, 64, 1, 257, 1, 0, true, true, false, false, f32, 0, false, false, rng);    // darcy projection
    run(1, 24, 80, 70, 136, 1, 3, true, true, true, true, f32, 0, false, false, rng);     // 2 Cout tiles (BM 64), 2 hidden chunks
    run(1, 72, 40, 17, 131, 1, 5, true, false, true, false, f32, 0, false, false, rng);   // chunked Cin
    run(1, 13, 34, 21, 512, 1, 1, true, true, true, true, f16, 0, false, true, rng);      // unaligned: scalar path
    // the persistent form: more work items (batch item x 128 points) than blocks (2 per "SM", 3 SMs here)
    run(4, 16, 24, 20, 256, 1, 0, true, true, true, true, f32, 0, false, false, rng);     // 8 items
    run(3, 8, 40, 9, 384, 2, 3, true, true, true, true, f32, 0, true, false, rng);        // 9 items, 2 hidden chunks, in place
    // pointwise_mlp_small.cuh: Cout <= 4 (GEMM2 from registers) in place with a ragged last tile; Ch past one warp tile
    run(2, 10, 45, 3, 77, 2, 4, true, true, true, true, f32, 0, true, false, rng);
    run(1, 2, 128, 64, 100, 1, 0, true, true, false, false, f32, 0, false, false, rng);   // burgers lifting, ragged
}

void runAll(bool quick, std::mt19937_64& rng) {
    const DataType f32 = DataType::kFloat32, f16 = DataType::kFloat16, bf16 = DataType::kBFloat16;
    run(1, 1, 1, 1, 1, 1, 0, true, true, true, true, f32, 0, false, false, rng);
    run(2, 5, 7, 3, 37, 1, 3, true, true, true, true, f32, 0, false, false, rng);
    run(1, 64, 32, 64, 256, 1, 0, true, true, true, true, f32, 8, false, false, rng);
    run(1, 64, 32, 64, 260, 2, 4, true, true, true, true, f16, 0, false, false, rng);
    run(1, 130, 70, 17, 131, 1, 5, true, false, true, false, f32, 0, false, false, rng);  // chunked Cin, 3 hidden chunks
    run(1, 3, 128, 64, 129, 1, 0, true, true, false, false, bf16, 0, false, false, rng);
    run(1, 64, 128, 1, 260, 1, 0, true, true, false, false, f32, 0, false, false, rng);
    run(2, 9, 31, 33, 1, 3, 1, false, true, true, true, f32, 8, false, false, rng);
    run(1, 13, 34, 21, 512, 1, 1, true, true, true, true, f16, 0, false, true, rng);      // unaligned: scalar path
    run(2, 5, 40, 70, 77, 2, 5, true, false, true, false, bf16, 0, true, false, rng);     // in place
    runTileCases(rng);
    gWeightsConstant = true;  // the weights staged before the (here no-op) grid-dependency wait
    run(2, 10, 45, 3, 77, 2, 4, true, true, true, true, f32, 0, true, false, rng);
    run(1, 64, 32, 64, 260, 2, 4, true, true, true, true, f16, 0, false, false, rng);
    gWeightsConstant = false;
    if (!quick) {
        for (int om : {1, 2, 4, 8}) {
            run(1, 65, 33, 9, 131, 1, 0, true, true, true, true, f32, om, false, false, rng);
            run(1, 7, 1, 5, 65, 4, 2, true, false, true, false, bf16, om, false, false, rng);
            run(1, 64, 32, 65, 256, 1, 0, true, true, true, true, f32, om, true, false, rng);
            run(1, 64, 32, 64, 128, 1, 0, false, false, false, false, f16, om, false, true, rng);
        }
        run(1, 512, 16, 300, 131, 1, 0, true, true, true, true, f32, 0, false, false, rng);  // 8 Cin chunks, 5 Cout tiles
        for (int ha = 0; ha < 6; ++ha)
            for (int oa = 0; oa < 6; ++oa) run(1, 6, 35, 10, 70, ha, oa, true, true, true, true, f32, 0, false, false, rng);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    std::mt19937_64 rng(20261201);
    // the tensor-core kernel with each output tile (automatic: 16 for these small grids), then the FMA kernel
    const struct {
        int tc, bm;
        const char* tag;
        int persist;
    } kernels[] = {{3, 0, "THREAD ", -1}, {1, 0, "TC ", -1}, {1, 0, "TC non-persistent ", 0}, {1, 32, "TC BM32 ", -1}, {1, 64, "TC BM64 ", -1}, {2, 0, "TC64 ", -1}, {2, 32, "TC64 TP32 ", -1}, {2, 64, "TC64 TP64 ", -1}, {4, 0, "SMALL ", -1}, {4, 16, "SMALL TP16 ", -1}, {4, 32, "SMALL TP32 ", -1}, {4, 64, "SMALL TP64 ", -1}, {0, 0, "FMA ", -1}};
    for (const auto& k : kernels) {
        gTag = k.tag;
        cuda::setMlpTcOverride(k.tc);
        cuda::setMlpTcTileOverride(k.bm);
        cuda::setMlpTcPersistOverride(k.persist);
        if (k.bm || !k.persist) runTileCases(rng);  // the forced tiles: the cases that vary the TC kernel's shape
        else runAll(quick, rng);
    }
    cuda::setMlpTcOverride(-1);
    cuda::setMlpTcTileOverride(0);
    cuda::setMlpTcPersistOverride(-1);
    std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
