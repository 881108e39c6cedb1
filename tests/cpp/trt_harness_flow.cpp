// The two phases TensorRT puts a plugin through, driven step by step:
//   build:   creator->createPlugin(fields, kBUILD) -> getOutputDataTypes / getOutputShapes (test
//            IExprBuilder) / supportsFormatCombination -> configurePlugin -> getWorkspaceSize ->
//            getFieldsToSerialize (V3) | clone + serialize (V2)
//   runtime: createPlugin(saved fields, kRUNTIME) -> attachToContext -> onShapeChange -> enqueue
//            with a workspace of exactly the reported size (V3) | deserializePlugin ->
//            configurePlugin -> enqueue (V2); output compared with the float64 reference.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include <cuda_runtime_api.h>

#include "trt_harness.h"
#include "reference_layer.h"
#include "turbofno/core.h"

using namespace turbofno_test;  // referenceSpectralConv, RefProblem, host fp16/bf16 conversions

namespace trt_test {

using namespace nvinfer1;
namespace core = turbofno::core;

namespace {

core::SpectralConvAttrs coreAttrs(Case const& c) {
    core::SpectralConvAttrs a;
    a.rank = c.rank();
    for (int j = 0; j < c.rank(); ++j) {
        a.modesLow[j] = c.modesLow[static_cast<size_t>(j)];
        a.modesHigh[j] = c.modesHigh[static_cast<size_t>(j)];
    }
    a.norm = static_cast<core::FftNorm>(c.norm);
    a.separable = c.separable;
    a.activation = static_cast<core::Activation>(c.activation);
    a.outputRank = static_cast<int32_t>(c.outputSize.size());
    for (size_t j = 0; j < c.outputSize.size(); ++j) a.outputSize[j] = static_cast<int32_t>(c.outputSize[j]);
    return a;
}

core::DataType coreType(DataType t);

// Whether the CUDA kernel runs this case; otherwise the reason it gives (output_size != S until the
// CUDA kernel implements resampling): enqueue must then fail cleanly instead of writing a result.
core::Status cudaSupports(Case const& c) {
    Dims const x = c.xDims(c.n), w = c.weightDims(), b = c.biasDims(), sk = c.skipDims();
    std::vector<int64_t> xd(x.d, x.d + x.nbDims), wd(w.d, w.d + w.nbDims), bd(b.d, b.d + b.nbDims),
        sd(sk.d, sk.d + sk.nbDims);
    core::SpectralConvShape shape;
    core::SpectralConvAttrs const attrs = coreAttrs(c);
    core::Status st = core::inferShape(attrs, xd.data(), x.nbDims, wd.data(), w.nbDims, c.bias ? bd.data() : nullptr,
                                       c.bias ? 1 : 0, &shape, c.skip ? sd.data() : nullptr, c.skip ? 2 : 0);
    return st.ok ? core::cudaCheckSupported(shape, coreType(c.type), &attrs) : st;
}

core::DataType coreType(DataType t) {
    return t == DataType::kHALF ? core::DataType::kFloat16
         : t == DataType::kBF16 ? core::DataType::kBFloat16
                                : core::DataType::kFloat32;
}

}  // namespace

// The core's shape of the case at one batch size (false when the core rejects it).
bool coreShape(Case const& c, int64_t batch, core::SpectralConvShape* shape) {
    Dims const x = c.xDims(batch), w = c.weightDims(), b = c.biasDims(), sk = c.skipDims();
    std::vector<int64_t> xd(x.d, x.d + x.nbDims), wd(w.d, w.d + w.nbDims), bd(b.d, b.d + b.nbDims),
        sd(sk.d, sk.d + sk.nbDims);
    return core::inferShape(coreAttrs(c), xd.data(), x.nbDims, wd.data(), w.nbDims, c.bias ? bd.data() : nullptr,
                            c.bias ? 1 : 0, shape, c.skip ? sd.data() : nullptr, c.skip ? 2 : 0)
        .ok;
}

// The workspace the core asks for at one batch size (computed here independently of the plugin).
size_t coreWorkspaceBytes(Case const& c, int64_t batch) {
    core::SpectralConvShape shape;
    if (!coreShape(c, batch, &shape)) return static_cast<size_t>(-1);
    return core::cudaWorkspaceBytes(shape, coreType(c.type));
}

size_t coreWorkspaceBound(Case const& c, int64_t maxBatch) {
    core::SpectralConvShape shape;
    if (!coreShape(c, maxBatch, &shape)) return static_cast<size_t>(-1);
    return core::cudaWorkspaceBound(shape, coreType(c.type));
}

std::string coreSupport(Case const& c, int64_t batch) {
    core::SpectralConvShape shape;
    if (!coreShape(c, batch, &shape)) return "invalid shape";
    core::Status const st = core::cudaCheckSupported(shape, coreType(c.type));
    return st.ok ? std::string() : st.message;
}

namespace {

// Input shape expressions: batch symbolic (dynamic) or constant, the rest constant.
void inputExprs(Case const& c, TestExprBuilder& eb, bool symbolicBatch, DimsExprs* in) {
    Dims dims[4];
    c.inputDims(c.n, dims);
    for (int i = 0; i < c.nbInputs(); ++i) {
        in[i].nbDims = dims[i].nbDims;
        for (int k = 0; k < dims[i].nbDims; ++k) in[i].d[k] = eb.constantExpr(dims[i].d[k]);
    }
    if (symbolicBatch) in[0].d[0] = eb.symbol("N");
}

// Profile descriptors: batch dynamic in [1, n + 1], opt n.
void profileDescs(Case const& c, DynamicPluginTensorDesc* in, DynamicPluginTensorDesc* out) {
    Dims fixed[4];
    c.inputDims(c.n, fixed);
    for (int i = 0; i < c.nbInputs(); ++i) {
        in[i] = DynamicPluginTensorDesc{};
        in[i].desc.dims = fixed[i];
        in[i].desc.type = c.type;
        in[i].desc.format = TensorFormat::kLINEAR;
        in[i].desc.scale = -1.0F;
        in[i].min = in[i].opt = in[i].max = fixed[i];
    }
    in[0].desc.dims.d[0] = -1;
    in[0].min.d[0] = 1;
    in[0].opt.d[0] = c.n;
    in[0].max.d[0] = c.n + 1;
    *out = DynamicPluginTensorDesc{};
    out->desc.dims = c.outDims(-1);
    out->desc.type = c.type;
    out->desc.format = TensorFormat::kLINEAR;
    out->min = c.outDims(1);
    out->opt = c.outDims(c.n);
    out->max = c.outDims(c.n + 1);
}

bool checkOutputExprs(Case const& c, DimsExprs const* in, DimsExprs const& out, bool symbolicBatch, char const* who) {
    bool ok = check(out.nbDims == c.rank() + 2, std::string(who) + ": output rank");
    if (!ok) return false;
    if (symbolicBatch) {
        // Symbolic: the plugin must hand back x's own batch expression, weight's Cout (separable: x's C).
        ok &= check(out.d[0] == in[0].d[0], std::string(who) + ": output dim 0 is x's batch expression");
        ok &= check(out.d[1] == (c.separable ? in[0].d[1] : in[1].d[1]), std::string(who) + ": output dim 1 expression");
        for (int j = 0; j < c.rank(); ++j) {
            if (c.outputSize.empty()) {
                ok &= check(out.d[2 + j] == in[0].d[2 + j], std::string(who) + ": spatial dim expression");
            } else {
                ok &= check(out.d[2 + j] != nullptr && out.d[2 + j]->isConstant() &&
                                out.d[2 + j]->getConstantValue() == c.outputSize[static_cast<size_t>(j)],
                            std::string(who) + ": spatial dim is the constant output_size");
            }
        }
    } else {
        Dims const expect = c.outDims(c.n);
        for (int k = 0; k < out.nbDims; ++k) {
            ok &= check(out.d[k] != nullptr && out.d[k]->isConstant() && out.d[k]->getConstantValue() == expect.d[k],
                        std::string(who) + ": constant output dim " + std::to_string(k));
        }
    }
    return ok;
}

}  // namespace

BuildResult buildPhase(PluginLibrary& lib, Case const& c, PluginFieldCollection const* fc) {
    BuildResult r;
    logger().take();
    int const nb = c.nbInputs();
    DataType const types[4] = {c.type, c.type, c.type, c.type};
    // The profile lets the batch run over [1, n + 1]: the plugin reserves the core's bound for the max
    // shape, which must cover every batch of the profile (the core's workspace itself is not monotone).
    size_t const expectWs = coreWorkspaceBound(c, c.n + 1);
    size_t peak = 0;
    for (int64_t b = 1; b <= c.n + 1; ++b) peak = std::max(peak, coreWorkspaceBytes(c, b));
    bool ok = check(expectWs != static_cast<size_t>(-1) && expectWs >= peak,
                    c.name + ": core bound " + std::to_string(expectWs) + " >= workspace of every batch (" +
                        std::to_string(peak) + ")");

    // ---- V3 ----
    IPluginV3* plugin = lib.v3->createPlugin(c.name.c_str(), fc, TensorRTPhase::kBUILD);
    if (!check(plugin != nullptr, c.name + ": V3 createPlugin(kBUILD)")) {
        loggedError();
        return r;
    }
    auto* coreCap = static_cast<IPluginV3OneCore*>(plugin->getCapabilityInterface(PluginCapabilityType::kCORE));
    auto* build = static_cast<IPluginV3OneBuild*>(plugin->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* runtime = static_cast<IPluginV3OneRuntime*>(plugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    ok &= check(coreCap && build && runtime, c.name + ": V3 capability interfaces");
    if (!ok) {
        delete plugin;
        return r;
    }
    ok &= check(std::strcmp(coreCap->getPluginName(), "SpectralConv") == 0 &&
                    std::strcmp(coreCap->getPluginVersion(), lib.v3->getPluginVersion()) == 0 &&
                    std::strcmp(coreCap->getPluginNamespace(), "") == 0,
                c.name + ": V3 name/version/namespace match the creator");
    ok &= check(build->getNbOutputs() == 1, c.name + ": V3 getNbOutputs");
    DataType outType = DataType::kINT8;
    ok &= check(build->getOutputDataTypes(&outType, 1, types, nb) == 0 && outType == c.type,
                c.name + ": V3 getOutputDataTypes");
    for (bool symbolic : {true, false}) {
        TestExprBuilder eb;
        DimsExprs in[4];
        DimsExprs out{};
        inputExprs(c, eb, symbolic, in);
        ok &= check(build->getOutputShapes(in, nb, nullptr, 0, &out, 1, eb) == 0, c.name + ": V3 getOutputShapes");
        ok &= checkOutputExprs(c, in, out, symbolic, "V3 getOutputShapes");
    }
    DynamicPluginTensorDesc din[4], dout;
    profileDescs(c, din, &dout);
    DynamicPluginTensorDesc inOut[5];
    std::copy(din, din + nb, inOut);
    inOut[nb] = dout;
    for (int pos = 0; pos <= nb; ++pos) {
        ok &= check(build->supportsFormatCombination(pos, inOut, nb, 1), c.name + ": V3 supports its own type at pos " +
                                                                           std::to_string(pos));
    }
    ok &= check(build->configurePlugin(din, nb, &dout, 1) == 0, c.name + ": V3 configurePlugin");
    r.v3Workspace = build->getWorkspaceSize(din, nb, &dout, 1);
    ok &= check(r.v3Workspace == expectWs, c.name + ": V3 getWorkspaceSize " + std::to_string(r.v3Workspace) +
                                               " == core max over every profile shape " + std::to_string(expectWs));
    PluginFieldCollection const* saved = runtime->getFieldsToSerialize();
    ok &= check(saved != nullptr, c.name + ": V3 getFieldsToSerialize");
    r.v3Fields = FieldSet::copyOf(saved);
    // TensorRT clones plugins freely during the build; the clone must serialize identically.
    IPluginV3* twin = plugin->clone();
    ok &= check(twin != nullptr, c.name + ": V3 clone");
    if (twin) {
        auto* twinRt = static_cast<IPluginV3OneRuntime*>(twin->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        FieldSet again = FieldSet::copyOf(twinRt->getFieldsToSerialize());
        bool same = again.size() == r.v3Fields.size();
        for (size_t i = 0; same && i < again.size(); ++i) {
            same = again.entries()[i].name == r.v3Fields.entries()[i].name &&
                   again.entries()[i].bytes == r.v3Fields.entries()[i].bytes &&
                   again.entries()[i].type == r.v3Fields.entries()[i].type;
        }
        ok &= check(same, c.name + ": V3 clone serializes the same fields");
        delete twin;
    }
    delete plugin;

    // ---- V2 ----
    IPluginV2* raw = lib.v2->createPlugin(c.name.c_str(), fc);
    if (!check(raw != nullptr, c.name + ": V2 createPlugin")) {
        loggedError();
        return r;
    }
    auto* p2 = static_cast<IPluginV2DynamicExt*>(raw);
    ok &= check(std::strcmp(p2->getPluginType(), "SpectralConv") == 0 &&
                    std::strcmp(p2->getPluginVersion(), lib.v2->getPluginVersion()) == 0,
                c.name + ": V2 type/version match the creator");
    ok &= check(p2->getNbOutputs() == 1, c.name + ": V2 getNbOutputs");
    ok &= check(p2->getOutputDataType(0, types, nb) == c.type, c.name + ": V2 getOutputDataType");
    for (bool symbolic : {true, false}) {
        TestExprBuilder eb;
        DimsExprs in[4];
        inputExprs(c, eb, symbolic, in);
        DimsExprs const out = p2->getOutputDimensions(0, in, nb, eb);
        ok &= checkOutputExprs(c, in, out, symbolic, "V2 getOutputDimensions");
    }
    PluginTensorDesc flat[5];
    for (int i = 0; i <= nb; ++i) flat[i] = inOut[i].desc;
    for (int pos = 0; pos <= nb; ++pos) {
        ok &= check(p2->supportsFormatCombination(pos, flat, nb, 1), c.name + ": V2 supports its own type at pos " +
                                                                        std::to_string(pos));
    }
    p2->configurePlugin(din, nb, &dout, 1);
    ok &= check(!loggedError(), c.name + ": V2 configurePlugin logs no error");
    PluginTensorDesc maxIn[4];
    for (int i = 0; i < nb; ++i) {
        maxIn[i] = din[i].desc;
        maxIn[i].dims = din[i].max;
    }
    PluginTensorDesc maxOut = dout.desc;
    maxOut.dims = dout.max;
    r.v2Workspace = p2->getWorkspaceSize(maxIn, nb, &maxOut, 1);
    ok &= check(r.v2Workspace == expectWs, c.name + ": V2 getWorkspaceSize " + std::to_string(r.v2Workspace) +
                                               " == core max over every profile shape " + std::to_string(expectWs));
    ok &= check(p2->initialize() == 0, c.name + ": V2 initialize");
    IPluginV2DynamicExt* clone = p2->clone();
    ok &= check(clone != nullptr, c.name + ": V2 clone");
    size_t const bytes = p2->getSerializationSize();
    r.v2Blob.assign(bytes, 0);
    p2->serialize(r.v2Blob.data());
    if (clone) {
        std::vector<unsigned char> cloneBlob(clone->getSerializationSize(), 0xAB);
        clone->serialize(cloneBlob.data());
        ok &= check(cloneBlob == r.v2Blob, c.name + ": V2 clone serializes identically");
        clone->destroy();
    }
    p2->terminate();
    p2->destroy();
    ok &= check(!loggedError(), c.name + ": build phase logged no error");
    r.ok = ok;
    return r;
}

// ---------------------------------------------------------------------------------------------
// Runtime phase (GPU)
// Device-data helpers (declared in trt_harness.h; the PointwiseMLP checks use them too).

size_t elemBytes(DataType t) { return t == DataType::kFLOAT ? 4 : 2; }

double roundTo(DataType t, double v) {
    float const f = static_cast<float>(v);
    if (t == DataType::kHALF) return halfToFloat(floatToHalf(f));
    if (t == DataType::kBF16) return bf16ToFloat(floatToBf16(f));
    return f;
}

std::vector<unsigned char> encode(DataType t, std::vector<double> const& v) {
    std::vector<unsigned char> out(v.size() * elemBytes(t));
    for (size_t i = 0; i < v.size(); ++i) {
        float const f = static_cast<float>(v[i]);
        if (t == DataType::kFLOAT) {
            std::memcpy(&out[i * 4], &f, 4);
        } else {
            uint16_t const h = t == DataType::kHALF ? floatToHalf(f) : floatToBf16(f);
            std::memcpy(&out[i * 2], &h, 2);
        }
    }
    return out;
}

std::vector<double> decode(DataType t, std::vector<unsigned char> const& raw) {
    size_t const n = raw.size() / elemBytes(t);
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) {
        if (t == DataType::kFLOAT) {
            float f;
            std::memcpy(&f, &raw[i * 4], 4);
            out[i] = f;
        } else {
            uint16_t h;
            std::memcpy(&h, &raw[i * 2], 2);
            out[i] = t == DataType::kHALF ? halfToFloat(h) : bf16ToFloat(h);
        }
    }
    return out;
}

double tolerance(DataType t) { return t == DataType::kFLOAT ? 1e-4 : t == DataType::kHALF ? 1e-2 : 5e-2; }

DeviceBuffer::DeviceBuffer(size_t n) : bytes(n) {
    if (n && cudaMalloc(&ptr, n) != cudaSuccess) ptr = nullptr;
}
DeviceBuffer::~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
}

int64_t count(Dims const& d) {
    int64_t n = 1;
    for (int k = 0; k < d.nbDims; ++k) n *= d.d[k];
    return n;
}

bool compareOutputs(std::string const& name, DataType type, char const* who, std::vector<double> const& got,
                    std::vector<double> const& want) {
    double maxErr = 0, maxRef = 0;
    bool finite = got.size() == want.size();
    for (size_t i = 0; finite && i < got.size(); ++i) {
        finite = std::isfinite(got[i]);
        maxErr = std::max(maxErr, std::fabs(got[i] - want[i]));
        maxRef = std::max(maxRef, std::fabs(want[i]));
    }
    double const rel = maxRef > 0 ? maxErr / maxRef : maxErr;
    std::printf("  %-34s %-3s max|err|/max|ref| = %.3e (tol %.0e)%s\n", name.c_str(), who, rel, tolerance(type),
                finite ? "" : "  NON-FINITE / UNWRITTEN OUTPUT");
    return check(finite && rel <= tolerance(type), name + ": " + who + " output matches the float64 reference");
}

bool runtimePhase(PluginLibrary& lib, Case const& c, BuildResult& built, HostInputs const* given,
                  std::vector<double> const* expected) {
    int const nb = c.nbInputs();
    Dims dims[4];
    c.inputDims(c.n, dims);
    Dims const yDims = c.outDims(c.n);

    HostInputs data;
    if (given) {
        data = *given;
    } else {
        std::mt19937_64 rng(tally().seed + static_cast<uint64_t>(c.name.size()));
        std::uniform_real_distribution<double> uni(-1.0, 1.0);
        auto fill = [&](std::vector<double>& v, int64_t n, double scale) {
            v.resize(static_cast<size_t>(n));
            for (double& e : v) e = roundTo(c.type, scale * uni(rng));
        };
        fill(data.x, count(dims[0]), 1.0);
        fill(data.weight, count(dims[1]), 0.5);
        if (c.bias) fill(data.bias, count(dims[2]), 0.5);
        if (c.skip) fill(data.skip, count(dims[3]), 0.5);
    }
    std::vector<double> want;
    if (expected) {
        want = *expected;
    } else {
        RefProblem p;
        p.rank = c.rank();
        p.n = c.n;
        p.cin = c.cin;
        p.cout = c.cout;
        for (int j = 0; j < c.rank(); ++j) {
            p.s[j] = c.spatial[static_cast<size_t>(j)];
            p.modesLow[j] = c.modesLow[static_cast<size_t>(j)];
            p.modesHigh[j] = c.modesHigh[static_cast<size_t>(j)];
        }
        for (size_t j = 0; j < c.outputSize.size(); ++j) p.t[j] = c.outputSize[j];
        p.norm = c.norm;
        p.separable = c.separable != 0;
        p.hasBias = c.bias;
        p.hasSkip = c.skip;
        p.activation = c.activation;
        want = referenceSpectralConv(p, data.x, data.weight, data.bias, data.skip);
    }

    std::vector<double> const* host[4] = {&data.x, &data.weight, &data.bias, &data.skip};
    DeviceBuffer dIn0(count(dims[0]) * elemBytes(c.type)), dIn1(count(dims[1]) * elemBytes(c.type)),
        dIn2(c.bias ? count(dims[2]) * elemBytes(c.type) : 0);
    DeviceBuffer dIn3(c.skip ? count(dims[3]) * elemBytes(c.type) : 0);
    DeviceBuffer* dIn[4] = {&dIn0, &dIn1, &dIn2, &dIn3};
    DeviceBuffer dY(count(yDims) * elemBytes(c.type));
    for (int i = 0; i < nb; ++i) {
        std::vector<unsigned char> const bytes = encode(c.type, *host[i]);
        if (!check(dIn[i]->ptr && bytes.size() == dIn[i]->bytes, c.name + ": device input allocation")) return false;
        cudaMemcpy(dIn[i]->ptr, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
    }
    if (!check(dY.ptr != nullptr, c.name + ": device output allocation")) return false;
    void const* inPtrs[4] = {dIn0.ptr, dIn1.ptr, dIn2.ptr, dIn3.ptr};
    void* outPtrs[1] = {dY.ptr};
    PluginTensorDesc inDesc[4], outDesc;
    for (int i = 0; i < nb; ++i) inDesc[i] = PluginTensorDesc{dims[i], c.type, TensorFormat::kLINEAR, -1.0F};
    outDesc = PluginTensorDesc{yDims, c.type, TensorFormat::kLINEAR, -1.0F};
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    // the uploads ran on the legacy default stream (a pageable-memory cudaMemcpy may return before its DMA
    // lands), which the non-blocking stream does not wait for
    cudaDeviceSynchronize();
    bool ok = true;
    core::Status const supported = cudaSupports(c);
    if (!supported.ok) std::printf("  %-34s the CUDA kernel refuses it: %s\n", c.name.c_str(), supported.message.c_str());
    // Supported: rc 0 and the output matches the reference. Refused: rc != 0 and an error is logged.
    auto checkRun = [&](char const* who, int32_t rc, cudaError_t err, std::vector<double> const& got) {
        if (!supported.ok) {
            bool const logged = loggedError("not supported");
            return check(rc != 0 && err == cudaSuccess && logged,
                         c.name + ": " + who + " enqueue refuses a shape the CUDA kernel does not support");
        }
        bool ok1 = check(rc == 0 && err == cudaSuccess, c.name + ": " + who + " enqueue (rc " + std::to_string(rc) +
                                                           ", " + cudaGetErrorString(err) + ")");
        loggedError();
        return ok1 && compareOutputs(c.name, c.type, who, got, want);
    };

    auto readY = [&]() {
        std::vector<unsigned char> raw(dY.bytes);
        cudaMemcpy(raw.data(), dY.ptr, raw.size(), cudaMemcpyDeviceToHost);
        return decode(c.type, raw);
    };

    // ---- V3: recreate from the serialized fields, attach to a context, enqueue ----
    {
        IPluginV3* fromPlan = lib.v3->createPlugin(c.name.c_str(), built.v3Fields.collection(), TensorRTPhase::kRUNTIME);
        ok &= check(fromPlan != nullptr, c.name + ": V3 createPlugin(kRUNTIME) from serialized fields");
        if (fromPlan) {
            auto* rt0 = static_cast<IPluginV3OneRuntime*>(fromPlan->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
            IPluginV3* ctxPlugin = rt0->attachToContext(nullptr);
            ok &= check(ctxPlugin != nullptr, c.name + ": V3 attachToContext");
            delete fromPlan;
            if (ctxPlugin) {
                auto* rt = static_cast<IPluginV3OneRuntime*>(ctxPlugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
                ok &= check(rt->setTactic(0) == 0, c.name + ": V3 setTactic(0)");
                ok &= check(rt->onShapeChange(inDesc, nb, &outDesc, 1) == 0, c.name + ": V3 onShapeChange");
                DeviceBuffer ws(built.v3Workspace);  // exactly the reported size
                cudaMemsetAsync(dY.ptr, 0xFF, dY.bytes, stream);  // NaN pattern: unwritten outputs show
                int32_t const rc = rt->enqueue(inDesc, &outDesc, inPtrs, outPtrs, ws.ptr, stream);
                cudaError_t const err = cudaStreamSynchronize(stream);
                ok &= checkRun("V3", rc, err, readY());
                delete ctxPlugin;
            }
        }
    }

    // ---- V2: deserialize the blob, configure with the concrete shapes, enqueue ----
    {
        IPluginV2* raw = lib.v2->deserializePlugin(c.name.c_str(), built.v2Blob.data(), built.v2Blob.size());
        ok &= check(raw != nullptr, c.name + ": V2 deserializePlugin");
        if (raw) {
            auto* p2 = static_cast<IPluginV2DynamicExt*>(raw);
            ok &= check(p2->initialize() == 0, c.name + ": V2 initialize");
            DynamicPluginTensorDesc din[4], dout;
            for (int i = 0; i < nb; ++i) {
                din[i] = DynamicPluginTensorDesc{};
                din[i].desc = inDesc[i];
                din[i].min = din[i].opt = din[i].max = inDesc[i].dims;
            }
            dout = DynamicPluginTensorDesc{};
            dout.desc = outDesc;
            dout.min = dout.opt = dout.max = outDesc.dims;
            p2->configurePlugin(din, nb, &dout, 1);
            ok &= check(!loggedError(), c.name + ": V2 runtime configurePlugin logs no error");
            DeviceBuffer ws(built.v2Workspace);
            cudaMemsetAsync(dY.ptr, 0xFF, dY.bytes, stream);
            int32_t const rc = p2->enqueue(inDesc, &outDesc, inPtrs, outPtrs, ws.ptr, stream);
            cudaError_t const err = cudaStreamSynchronize(stream);
            ok &= checkRun("V2", rc, err, readY());
            p2->terminate();
            p2->destroy();
        }
    }
    cudaStreamDestroy(stream);
    return ok;
}

}  // namespace trt_test
