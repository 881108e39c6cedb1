// PointwiseMLP plugin checks, driven the way TensorRT drives a plugin (see trt_harness_flow.cpp):
//   CPU (runMlpCpuChecks): the creators and their fields, creation from good and malformed fields
//   (both interfaces, both V3 phases), output types and shapes (symbolic and constant, through the
//   test IExprBuilder), format combinations, configurePlugin / getWorkspaceSize against the core,
//   serialization round trips (V3 fields, V2 blob), corrupted V3 fields and V2 blobs (truncations,
//   every byte flipped, wrong magic / version, bad values with a valid checksum, random garbage),
//   and enqueue refusals that happen before any GPU work.
//   GPU (runMlpGpuChecks): build -> serialize -> runtime -> enqueue of both interfaces against a
//   float64 host reference, spatial rank 0..3, 4 to 7 inputs, fp32/fp16/bf16, every activation.
// Inputs are positional (pointwiseMlpCommon.h): x, W1, B1, W2[, B2[, R[, G]]].
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include <cuda_runtime_api.h>

#include "reference_layer.h"
#include "trt_harness.h"
#include "turbofno/pointwise_mlp.h"

namespace trt_test {

using namespace nvinfer1;
namespace core = turbofno::core;

namespace {

constexpr char const* kName = "PointwiseMLP";
constexpr int kMaxIn = 7;

// One PointwiseMLP problem.
struct MlpCase {
    std::string name;
    int32_t hidden = -1;     // hidden_activation field; -1: absent (default 1, gelu)
    int32_t act = -1;        // activation field; -1: absent (default 0, identity)
    int64_t n = 2, cin = 3, ch = 5, cout = 4;
    std::vector<int64_t> spatial{7};
    int nb = 4;              // 4..7: x, W1, B1, W2[, B2[, R[, G]]]
    DataType type = DataType::kFLOAT;

    int32_t hiddenAct() const { return hidden < 0 ? 1 : hidden; }
    int32_t outAct() const { return act < 0 ? 0 : act; }
    FieldSet fields() const {
        FieldSet f;
        if (hidden >= 0) f.addInts("hidden_activation", {hidden});
        if (act >= 0) f.addInts("activation", {act});
        return f;
    }
    Dims xDims(int64_t batch) const {
        Dims d{};
        d.nbDims = 2 + static_cast<int32_t>(spatial.size());
        d.d[0] = batch;
        d.d[1] = cin;
        for (size_t k = 0; k < spatial.size(); ++k) d.d[2 + k] = spatial[k];
        return d;
    }
    Dims outDims(int64_t batch) const {
        Dims d = xDims(batch);
        d.d[1] = cout;
        return d;
    }
    // The input dims of slot i at one batch size.
    Dims slotDims(int i, int64_t batch) const {
        auto vec = [](int64_t a) {
            Dims d{};
            d.nbDims = 1;
            d.d[0] = a;
            return d;
        };
        auto mat = [](int64_t a, int64_t b) {
            Dims d{};
            d.nbDims = 2;
            d.d[0] = a;
            d.d[1] = b;
            return d;
        };
        switch (i) {
            case core::kMlpX: return xDims(batch);
            case core::kMlpW1: return mat(ch, cin);
            case core::kMlpB1: return vec(ch);
            case core::kMlpW2: return mat(cout, ch);
            case core::kMlpB2: return vec(cout);
            case core::kMlpResidual: return outDims(batch);
            default: return vec(cout);
        }
    }
};

std::vector<MlpCase> cpuCases() {
    std::vector<MlpCase> cs;
    MlpCase a;
    a.name = "mlp d1 fp32 4 inputs, fields absent";
    cs.push_back(a);
    MlpCase b;
    b.name = "mlp d2 fp16 5 inputs relu/identity";
    b.hidden = 3, b.act = 0, b.spatial = {6, 5}, b.nb = 5, b.type = DataType::kHALF;
    cs.push_back(b);
    MlpCase c;
    c.name = "mlp d3 bf16 6 inputs (residual) gelu/silu";
    c.hidden = 1, c.act = 4, c.spatial = {3, 4, 5}, c.nb = 6, c.type = DataType::kBF16, c.cout = 3;
    cs.push_back(c);
    MlpCase d;
    d.name = "mlp d2 fp32 7 inputs (gated residual) gelu_tanh/tanh";
    d.hidden = 2, d.act = 5, d.spatial = {8, 9}, d.nb = 7, d.cin = 6, d.ch = 12, d.cout = 6;
    cs.push_back(d);
    MlpCase e;
    e.name = "mlp d0 fp32 x [N, Cin] 7 inputs";
    e.spatial = {}, e.nb = 7, e.n = 5, e.hidden = 0, e.act = 3;
    cs.push_back(e);
    return cs;
}

core::DataType coreTypeOf(DataType t) {
    return t == DataType::kHALF ? core::DataType::kFloat16
         : t == DataType::kBF16 ? core::DataType::kBFloat16
                                : core::DataType::kFloat32;
}

// The core's view of the case (computed here, independently of the plugin).
bool coreMlpShape(MlpCase const& c, int64_t batch, core::PointwiseMlpShape* shape) {
    std::vector<int64_t> store[kMaxIn];
    int64_t const* dims[kMaxIn] = {};
    int ranks[kMaxIn] = {};
    for (int i = 0; i < c.nb; ++i) {
        Dims const d = c.slotDims(i, batch);
        store[i].assign(d.d, d.d + d.nbDims);
        dims[i] = store[i].data();
        ranks[i] = d.nbDims;
    }
    return core::inferMlpShape(dims, ranks, shape).ok;
}

size_t coreMlpWorkspace(MlpCase const& c, int64_t batch) {
    core::PointwiseMlpShape s;
    if (!coreMlpShape(c, batch, &s)) return static_cast<size_t>(-1);
    return core::mlpCudaWorkspaceBytes(s, coreTypeOf(c.type));
}

// Profile descriptors: batch dynamic in [1, n + 1], opt n (x and R carry the batch).
void profileDescs(MlpCase const& c, DynamicPluginTensorDesc* in, DynamicPluginTensorDesc* out) {
    for (int i = 0; i < c.nb; ++i) {
        Dims const fixed = c.slotDims(i, c.n);
        in[i] = DynamicPluginTensorDesc{};
        in[i].desc = PluginTensorDesc{fixed, c.type, TensorFormat::kLINEAR, -1.0F};
        in[i].min = in[i].opt = in[i].max = fixed;
        if (i == core::kMlpX || i == core::kMlpResidual) {
            in[i].desc.dims.d[0] = -1;
            in[i].min.d[0] = 1;
            in[i].opt.d[0] = c.n;
            in[i].max.d[0] = c.n + 1;
        }
    }
    *out = DynamicPluginTensorDesc{};
    out->desc = PluginTensorDesc{c.outDims(-1), c.type, TensorFormat::kLINEAR, -1.0F};
    out->min = c.outDims(1);
    out->opt = c.outDims(c.n);
    out->max = c.outDims(c.n + 1);
}

void inputExprs(MlpCase const& c, TestExprBuilder& eb, bool symbolic, DimsExprs* in) {
    for (int i = 0; i < c.nb; ++i) {
        Dims const d = c.slotDims(i, c.n);
        in[i].nbDims = d.nbDims;
        for (int k = 0; k < d.nbDims; ++k) in[i].d[k] = eb.constantExpr(d.d[k]);
    }
    if (symbolic) {
        // Batch and spatial extents dynamic (one symbol each, shared by x and R as TensorRT would).
        IDimensionExpr const* batch = eb.symbol("N");
        in[0].d[0] = batch;
        for (size_t k = 0; k < c.spatial.size(); ++k) in[0].d[2 + k] = eb.symbol("S" + std::to_string(k));
        if (c.nb > core::kMlpResidual) {
            in[core::kMlpResidual].d[0] = batch;
            for (size_t k = 0; k < c.spatial.size(); ++k) in[core::kMlpResidual].d[2 + k] = in[0].d[2 + k];
        }
    }
}

bool checkOutputExprs(MlpCase const& c, DimsExprs const* in, DimsExprs const& out, bool symbolic, std::string const& who) {
    if (!check(out.nbDims == static_cast<int32_t>(c.spatial.size()) + 2, who + ": output rank")) return false;
    bool ok = true;
    if (symbolic) {
        ok &= check(out.d[0] == in[0].d[0], who + ": output dim 0 is x's batch expression");
        ok &= check(out.d[1] == in[core::kMlpW2].d[0], who + ": output dim 1 is W2's dim 0 expression");
        for (size_t k = 0; k < c.spatial.size(); ++k) {
            ok &= check(out.d[2 + k] == in[0].d[2 + k], who + ": spatial dim is x's expression");
        }
    } else {
        Dims const want = c.outDims(c.n);
        for (int k = 0; k < out.nbDims; ++k) {
            ok &= check(out.d[k] != nullptr && out.d[k]->isConstant() && out.d[k]->getConstantValue() == want.d[k],
                        who + ": constant output dim " + std::to_string(k));
        }
    }
    return ok;
}

// Reads the attribute values a V3 plugin serializes (to check defaults and round trips).
bool serializedAttrs(PluginFieldCollection const* fc, int32_t* hidden, int32_t* act, int32_t* nbInputs) {
    bool h = false, a = false;
    *nbInputs = 0;
    for (int32_t i = 0; fc && i < fc->nbFields; ++i) {
        PluginField const& f = fc->fields[i];
        if (f.type != PluginFieldType::kINT32 || f.data == nullptr) continue;
        int32_t const* v = static_cast<int32_t const*>(f.data);
        if (std::strcmp(f.name, "hidden_activation") == 0 && f.length == 1) *hidden = v[0], h = true;
        if (std::strcmp(f.name, "activation") == 0 && f.length == 1) *act = v[0], a = true;
        if (std::strcmp(f.name, "turbofno_build_state") == 0 && f.length == 3) *nbInputs = v[2];
    }
    return h && a;
}

// ---------------------------------------------------------------------------------------------
// Build phase (CPU), both interfaces

struct MlpBuilt {
    bool ok = false;
    FieldSet v3Fields;
    std::vector<unsigned char> v2Blob;
    size_t v3Workspace = 0, v2Workspace = 0;
};

// `given`: the fields to create from (a case file's, as the parser made them); default c.fields().
MlpBuilt buildMlp(PluginLibrary& lib, MlpCase const& c, FieldSet const* given = nullptr) {
    MlpBuilt r;
    logger().take();
    FieldSet fields = given ? *given : c.fields();
    DataType const types[kMaxIn] = {c.type, c.type, c.type, c.type, c.type, c.type, c.type};
    size_t expectWs = 0;
    for (int64_t b : {int64_t{1}, c.n, c.n + 1}) expectWs = std::max(expectWs, coreMlpWorkspace(c, b));
    bool ok = check(expectWs != static_cast<size_t>(-1), c.name + ": the core accepts the case");

    // ---- V3 ----
    IPluginV3* plugin = lib.mlpV3->createPlugin(c.name.c_str(), fields.collection(), TensorRTPhase::kBUILD);
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
    ok &= check(std::strcmp(coreCap->getPluginName(), kName) == 0 && std::strcmp(coreCap->getPluginVersion(), "1") == 0 &&
                    std::strcmp(coreCap->getPluginNamespace(), "") == 0,
                c.name + ": V3 name/version/namespace");
    ok &= check(build->getNbOutputs() == 1, c.name + ": V3 getNbOutputs");
    DataType outType = DataType::kINT8;
    ok &= check(build->getOutputDataTypes(&outType, 1, types, c.nb) == 0 && outType == c.type,
                c.name + ": V3 getOutputDataTypes");
    for (bool symbolic : {true, false}) {
        TestExprBuilder eb;
        DimsExprs in[kMaxIn];
        DimsExprs out{};
        inputExprs(c, eb, symbolic, in);
        ok &= check(build->getOutputShapes(in, c.nb, nullptr, 0, &out, 1, eb) == 0, c.name + ": V3 getOutputShapes");
        ok &= checkOutputExprs(c, in, out, symbolic, c.name + ": V3");
    }
    DynamicPluginTensorDesc din[kMaxIn], dout;
    profileDescs(c, din, &dout);
    DynamicPluginTensorDesc inOut[kMaxIn + 1];
    std::copy(din, din + c.nb, inOut);
    inOut[c.nb] = dout;
    for (int pos = 0; pos <= c.nb; ++pos) {
        ok &= check(build->supportsFormatCombination(pos, inOut, c.nb, 1),
                    c.name + ": V3 supports its own type at pos " + std::to_string(pos));
    }
    ok &= check(build->configurePlugin(din, c.nb, &dout, 1) == 0, c.name + ": V3 configurePlugin");
    r.v3Workspace = build->getWorkspaceSize(din, c.nb, &dout, 1);
    ok &= check(r.v3Workspace == expectWs, c.name + ": V3 getWorkspaceSize == core mlpCudaWorkspaceBytes over the profile (" +
                                               std::to_string(r.v3Workspace) + " vs " + std::to_string(expectWs) + ")");
    IPluginV3* cloned = plugin->clone();
    ok &= check(cloned != nullptr, c.name + ": V3 clone");
    PluginFieldCollection const* saved = nullptr;
    if (cloned) {
        auto* cb = static_cast<IPluginV3OneRuntime*>(cloned->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        saved = cb->getFieldsToSerialize();
        int32_t h = -9, a = -9, nbIn = 0;
        ok &= check(serializedAttrs(saved, &h, &a, &nbIn) && h == c.hiddenAct() && a == c.outAct() && nbIn == c.nb,
                    c.name + ": V3 clone serializes the attributes (defaults filled in) and the input count");
        r.v3Fields = FieldSet::copyOf(saved);  // what TensorRT stores in the plan
        delete cloned;
    }
    // Runtime phase, V3: recreated from the stored fields, attached, told the shapes.
    IPluginV3* rt = lib.mlpV3->createPlugin(c.name.c_str(), r.v3Fields.collection(), TensorRTPhase::kRUNTIME);
    ok &= check(rt != nullptr, c.name + ": V3 createPlugin(kRUNTIME) from the serialized fields");
    if (rt) {
        auto* rtr = static_cast<IPluginV3OneRuntime*>(rt->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        IPluginV3* attached = rtr->attachToContext(nullptr);
        ok &= check(attached != nullptr, c.name + ": V3 attachToContext");
        if (attached) {
            auto* ar = static_cast<IPluginV3OneRuntime*>(attached->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
            PluginTensorDesc pin[kMaxIn], pout{c.outDims(c.n), c.type, TensorFormat::kLINEAR, -1.0F};
            for (int i = 0; i < c.nb; ++i) pin[i] = PluginTensorDesc{c.slotDims(i, c.n), c.type, TensorFormat::kLINEAR, -1.0F};
            ok &= check(ar->onShapeChange(pin, c.nb, &pout, 1) == 0, c.name + ": V3 onShapeChange");
            FieldSet again = FieldSet::copyOf(ar->getFieldsToSerialize());
            int32_t h = -9, a = -9, nbIn = 0;
            ok &= check(serializedAttrs(again.collection(), &h, &a, &nbIn) && h == c.hiddenAct() && a == c.outAct() &&
                            nbIn == c.nb,
                        c.name + ": V3 runtime plugin re-serializes the same state");
            delete attached;
        }
        delete rt;
    }
    delete plugin;

    // ---- V2 ----
    IPluginV2* raw = lib.mlpV2->createPlugin(c.name.c_str(), fields.collection());
    if (!check(raw != nullptr, c.name + ": V2 createPlugin")) {
        loggedError();
        return r;
    }
    auto* v2 = static_cast<IPluginV2DynamicExt*>(raw);
    ok &= check(std::strcmp(v2->getPluginType(), kName) == 0 && std::strcmp(v2->getPluginVersion(), "1-legacy") == 0,
                c.name + ": V2 type/version");
    ok &= check(v2->getOutputDataType(0, types, c.nb) == c.type, c.name + ": V2 getOutputDataType");
    for (bool symbolic : {true, false}) {
        TestExprBuilder eb;
        DimsExprs in[kMaxIn];
        inputExprs(c, eb, symbolic, in);
        DimsExprs const out = v2->getOutputDimensions(0, in, c.nb, eb);
        ok &= checkOutputExprs(c, in, out, symbolic, c.name + ": V2");
    }
    PluginTensorDesc pInOut[kMaxIn + 1];
    for (int i = 0; i <= c.nb; ++i) pInOut[i] = inOut[i].desc;
    for (int pos = 0; pos <= c.nb; ++pos) {
        ok &= check(v2->supportsFormatCombination(pos, pInOut, c.nb, 1), c.name + ": V2 supports its own type");
    }
    v2->configurePlugin(din, c.nb, &dout, 1);
    ok &= check(!loggedError(), c.name + ": V2 configurePlugin logs nothing");
    PluginTensorDesc pin[kMaxIn], pout{c.outDims(c.n), c.type, TensorFormat::kLINEAR, -1.0F};
    for (int i = 0; i < c.nb; ++i) pin[i] = PluginTensorDesc{c.slotDims(i, c.n), c.type, TensorFormat::kLINEAR, -1.0F};
    r.v2Workspace = v2->getWorkspaceSize(pin, c.nb, &pout, 1);
    ok &= check(r.v2Workspace == expectWs, c.name + ": V2 getWorkspaceSize == core over the profile");
    IPluginV2DynamicExt* v2c = v2->clone();
    ok &= check(v2c != nullptr, c.name + ": V2 clone");
    if (v2c) {
        ok &= check(v2c->getSerializationSize() == 32, c.name + ": V2 blob is 32 bytes");
        r.v2Blob.assign(v2c->getSerializationSize(), 0);
        v2c->serialize(r.v2Blob.data());
        v2c->destroy();
    }
    v2->destroy();
    IPluginV2* de = lib.mlpV2->deserializePlugin(c.name.c_str(), r.v2Blob.data(), r.v2Blob.size());
    ok &= check(de != nullptr, c.name + ": V2 deserializePlugin");
    if (de) {
        std::vector<unsigned char> again(de->getSerializationSize());
        de->serialize(again.data());
        ok &= check(again == r.v2Blob, c.name + ": V2 serialize -> deserialize -> serialize is the identity");
        de->destroy();
    }
    ok &= check(!loggedError(), c.name + ": no errors logged in the build phase");
    r.ok = ok;
    return r;
}

// ---------------------------------------------------------------------------------------------
// CPU checks

void checkCreators(PluginLibrary& lib) {
    std::printf("[PointwiseMLP creators]\n");
    check(std::strcmp(lib.mlpV3->getPluginName(), kName) == 0, "MLP V3 creator name == ONNX op_type");
    check(std::strcmp(lib.mlpV3->getPluginVersion(), "1") == 0, "MLP V3 creator version \"1\"");
    check(std::strcmp(lib.mlpV3->getPluginNamespace(), "") == 0, "MLP V3 creator namespace \"\"");
    check(std::strcmp(lib.mlpV2->getPluginName(), kName) == 0, "MLP V2 creator name");
    check(std::strcmp(lib.mlpV2->getPluginVersion(), "1-legacy") == 0, "MLP V2 creator version \"1-legacy\"");
    check(std::strcmp(lib.mlpV2->getPluginNamespace(), "") == 0, "MLP V2 creator namespace \"\"");
    for (int which = 0; which < 2; ++which) {
        PluginFieldCollection const* fc = which == 0 ? lib.mlpV3->getFieldNames() : lib.mlpV2->getFieldNames();
        bool ok = fc != nullptr && fc->nbFields == 2 && std::strcmp(fc->fields[0].name, "hidden_activation") == 0 &&
                  std::strcmp(fc->fields[1].name, "activation") == 0;
        for (int i = 0; ok && i < 2; ++i) ok = fc->fields[i].type == PluginFieldType::kINT32 && fc->fields[i].length == 1;
        check(ok, std::string(which == 0 ? "MLP V3" : "MLP V2") +
                      " getFieldNames == {hidden_activation, activation} kINT32 x1");
    }
}

void expectRejected(PluginLibrary& lib, std::string const& what, FieldSet fields, std::string const& needle) {
    PluginFieldCollection const* fc = fields.collection();
    logger().take();
    IPluginV3* b = lib.mlpV3->createPlugin("bad", fc, TensorRTPhase::kBUILD);
    check(b == nullptr && loggedError(needle), what + ": MLP V3 createPlugin(kBUILD) rejects, logging '" + needle + "'");
    delete b;
    IPluginV3* r = lib.mlpV3->createPlugin("bad", fc, TensorRTPhase::kRUNTIME);
    check(r == nullptr && loggedError(needle), what + ": MLP V3 createPlugin(kRUNTIME) rejects");
    delete r;
    IPluginV2* v2 = lib.mlpV2->createPlugin("bad", fc);
    check(v2 == nullptr && loggedError(needle), what + ": MLP V2 createPlugin rejects");
    if (v2) v2->destroy();
}

// Creates from fields and returns the attributes the V3 plugin serializes (false when rejected).
bool createdAttrs(PluginLibrary& lib, FieldSet fields, int32_t* hidden, int32_t* act) {
    logger().take();
    IPluginV3* p = lib.mlpV3->createPlugin("good", fields.collection(), TensorRTPhase::kBUILD);
    if (!p) return false;
    auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    int32_t nbIn = 0;
    bool const ok = serializedAttrs(rt->getFieldsToSerialize(), hidden, act, &nbIn);
    delete p;
    IPluginV2* v2 = lib.mlpV2->createPlugin("good", fields.collection());
    bool const ok2 = v2 != nullptr;
    if (v2) v2->destroy();
    return ok && ok2 && !loggedError();
}

void checkFields(PluginLibrary& lib) {
    std::printf("[PointwiseMLP fields]\n");
    int32_t h = -9, a = -9;
    check(createdAttrs(lib, FieldSet{}, &h, &a) && h == 1 && a == 0,
          "no fields: defaults hidden_activation 1 (gelu), activation 0 (identity)");
    for (int32_t v = 0; v < 6; ++v) {
        FieldSet f;
        f.addInts("hidden_activation", {v});
        f.addInts("activation", {5 - v});
        check(createdAttrs(lib, f, &h, &a) && h == v && a == 5 - v,
              "hidden_activation " + std::to_string(v) + " / activation " + std::to_string(5 - v) + " accepted");
    }
    {
        FieldSet f;
        f.addInts("hidden_activation", {3}, PluginFieldType::kINT64);
        f.addInts("activation", {4}, PluginFieldType::kINT64);
        check(createdAttrs(lib, f, &h, &a) && h == 3 && a == 4, "kINT64 fields (Python-made) are accepted");
    }
    {
        FieldSet f;
        f.addInts("activation", {2});
        f.addInts("plugin_version_like_extra", {7});
        f.addInts("modes_low", {1, 2});  // another op's field: not ours, ignored
        check(createdAttrs(lib, f, &h, &a) && h == 1 && a == 2, "unknown extra fields are ignored");
    }
    auto one = [](char const* name, std::vector<int32_t> v, PluginFieldType t = PluginFieldType::kINT32) {
        FieldSet f;
        f.addInts(name, v, t);
        return f;
    };
    std::string const prefix = std::string(kName) + " 'bad': createPlugin";
    for (int32_t bad : {6, -1, 1000}) {
        expectRejected(lib, "hidden_activation " + std::to_string(bad), one("hidden_activation", {bad}), prefix);
        expectRejected(lib, "activation " + std::to_string(bad), one("activation", {bad}), prefix);
    }
    expectRejected(lib, "hidden_activation with two values", one("hidden_activation", {1, 2}), "exactly one value");
    expectRejected(lib, "activation with no value", one("activation", {}), "exactly one value");
    {
        FieldSet f = one("activation", {1});
        f.addInts("activation", {1});
        expectRejected(lib, "activation given twice", f, "given twice");
    }
    {
        FieldSet f;
        f.addNull("hidden_activation", 1);
        expectRejected(lib, "null data", f, "no data");
    }
    {
        FieldSet f;
        float const v = 1.0F;
        unsigned char const* p = reinterpret_cast<unsigned char const*>(&v);
        f.addRaw("activation", std::vector<unsigned char>(p, p + sizeof v), PluginFieldType::kFLOAT32, 1);
        expectRejected(lib, "float field", f, "expected kINT32");
    }
    {
        FieldSet f = one("activation", {1});
        f.entries()[0].length = -1;
        expectRejected(lib, "negative length", f, "negative length");
    }
    {
        FieldSet f;
        int64_t const big = int64_t{1} << 40;
        unsigned char const* p = reinterpret_cast<unsigned char const*>(&big);
        f.addRaw("hidden_activation", std::vector<unsigned char>(p, p + sizeof big), PluginFieldType::kINT64, 1);
        expectRejected(lib, "kINT64 value beyond int32", f, "does not fit int32");
    }
    {
        FieldSet f;
        f.addInts("turbofno_build_state", {0, 0, 3});  // input count 3 < 4
        expectRejected(lib, "build state with 3 inputs", f, "invalid input count");
    }
    logger().take();
    check(lib.mlpV3->createPlugin("bad", nullptr, TensorRTPhase::kBUILD) == nullptr && loggedError("no plugin field"),
          "MLP V3: null field collection rejected");
    check(lib.mlpV2->createPlugin("bad", nullptr) == nullptr && loggedError("no plugin field"),
          "MLP V2: null field collection rejected");
}

// Shape expressions from explicit per-input dims (all constant).
void constExprs(TestExprBuilder& eb, std::vector<Dims> const& dims, DimsExprs* in) {
    for (size_t i = 0; i < dims.size(); ++i) {
        in[i].nbDims = dims[i].nbDims;
        for (int k = 0; k < dims[i].nbDims; ++k) in[i].d[k] = eb.constantExpr(dims[i].d[k]);
    }
}

void checkShapes(PluginLibrary& lib) {
    std::printf("[PointwiseMLP shapes]\n");
    FieldSet f;
    IPluginV3* p = lib.mlpV3->createPlugin("shape", f.collection(), TensorRTPhase::kBUILD);
    IPluginV2* raw = lib.mlpV2->createPlugin("shape", f.collection());
    if (!check(p && raw, "MLP create for shape checks")) return;
    auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* v2 = static_cast<IPluginV2DynamicExt*>(raw);
    MlpCase c;
    c.spatial = {6, 5};
    c.nb = 7;
    auto dimsOf = [&](MlpCase const& m) {
        std::vector<Dims> d;
        for (int i = 0; i < m.nb; ++i) d.push_back(m.slotDims(i, m.n));
        return d;
    };
    // Each bad input set must fail in both interfaces, logging `needle`.
    auto expectBad = [&](std::string const& what, std::vector<Dims> const& dims, std::string const& needle) {
        logger().take();
        TestExprBuilder eb;
        DimsExprs in[8];
        constExprs(eb, dims, in);
        DimsExprs out{};
        int const nb = static_cast<int>(dims.size());
        check(build->getOutputShapes(in, nb, nullptr, 0, &out, 1, eb) != 0 && loggedError(needle),
              "MLP V3 getOutputShapes rejects " + what + " ('" + needle + "')");
        check(v2->getOutputDimensions(0, in, nb, eb).nbDims < 0 && loggedError(needle),
              "MLP V2 getOutputDimensions rejects " + what);
    };
    std::vector<Dims> const good = dimsOf(c);
    expectBad("3 inputs (B1 and W2 positional)", {good[0], good[1], good[3]}, "expected 4 to 7 inputs");
    {
        std::vector<Dims> eight = good;
        eight.push_back(good[6]);
        expectBad("8 inputs", eight, "expected 4 to 7 inputs");
    }
    expectBad("B1 left out (W2 in slot 2)", {good[0], good[1], good[3], good[4]}, "positional");
    expectBad("B2 left out before R (R in slot 4)", {good[0], good[1], good[2], good[3], good[5]}, "positional");
    {
        std::vector<Dims> d = good;
        d[1].d[1] = c.cin + 1;  // W1 [Ch, Cin+1]
        expectBad("W1 with the wrong Cin", d, "");
    }
    {
        std::vector<Dims> d = good;
        d[3].d[1] = c.ch + 1;  // W2 [Cout, Ch+1]
        expectBad("W2 with the wrong Ch", d, "");
    }
    {
        std::vector<Dims> d = good;
        d[5].d[2] += 1;  // R spatial mismatch
        expectBad("R with other spatial dims", d, "");
    }
    {
        std::vector<Dims> d = good;
        d[6].d[0] = c.cout + 1;
        expectBad("G of the wrong length", d, "");
    }
    {
        std::vector<Dims> d = good;
        d[0].nbDims = 1;
        expectBad("x of rank 1", d, "rank");
    }
    // shape inputs and output counts
    {
        logger().take();
        TestExprBuilder eb;
        DimsExprs in[7];
        constExprs(eb, good, in);
        DimsExprs out[2]{};
        check(build->getOutputShapes(in, 7, in, 1, out, 1, eb) != 0 && loggedError("shape inputs"),
              "MLP V3 getOutputShapes rejects shape inputs");
        check(build->getOutputShapes(in, 7, nullptr, 0, out, 2, eb) != 0 && loggedError("one output"),
              "MLP V3 getOutputShapes rejects 2 outputs");
        check(v2->getOutputDimensions(1, in, 7, eb).nbDims < 0 && loggedError("one output"),
              "MLP V2 getOutputDimensions rejects output index 1");
        DataType t[8] = {}, o[2];
        std::fill(t, t + 8, DataType::kFLOAT);
        check(build->getOutputDataTypes(o, 1, t, 3) != 0 && loggedError("expected 4 to 7 inputs"),
              "MLP V3 getOutputDataTypes rejects 3 inputs");
        check(build->getOutputDataTypes(o, 2, t, 4) != 0 && loggedError("one output"),
              "MLP V3 getOutputDataTypes rejects 2 outputs");
    }
    // Output dims for large spatial rank (6 spatial axes: x rank 8 == Dims::MAX_DIMS).
    {
        MlpCase big;
        big.spatial = {2, 3, 2, 3, 2, 2};
        big.nb = 6;
        TestExprBuilder eb;
        DimsExprs in[6];
        inputExprs(big, eb, false, in);
        DimsExprs out{};
        check(build->getOutputShapes(in, 6, nullptr, 0, &out, 1, eb) == 0 && checkOutputExprs(big, in, out, false, "rank-8 x"),
              "MLP V3 output dims for x of rank 8");
    }
    delete p;
    raw->destroy();
}

void checkFormats(PluginLibrary& lib) {
    std::printf("[PointwiseMLP formats]\n");
    FieldSet f;
    IPluginV3* p = lib.mlpV3->createPlugin("fmt", f.collection(), TensorRTPhase::kBUILD);
    IPluginV2* raw = lib.mlpV2->createPlugin("fmt", f.collection());
    if (!check(p && raw, "MLP create for format checks")) return;
    auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* v2 = static_cast<IPluginV2DynamicExt*>(raw);
    DataType const all[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kINT32,
                            DataType::kBOOL, DataType::kINT64};
    TensorFormat const formats[] = {TensorFormat::kLINEAR, TensorFormat::kCHW2, TensorFormat::kHWC8, TensorFormat::kCHW32};
    int wrong = 0, tried = 0;
    for (int nb = 3; nb <= 8; ++nb) {
        for (DataType t0 : all) {
            for (DataType t1 : all) {
                for (TensorFormat fm : formats) {
                    // Position `pos` varies (type t1, format fm); earlier positions hold t0 LINEAR.
                    for (int pos = 0; pos <= nb; ++pos) {
                        DynamicPluginTensorDesc d[9]{};
                        PluginTensorDesc pd[9]{};
                        for (int i = 0; i <= nb; ++i) {
                            d[i].desc.type = i < pos ? t0 : t1;
                            d[i].desc.format = i < pos ? TensorFormat::kLINEAR : fm;
                            pd[i] = d[i].desc;
                        }
                        bool const supported0 = t0 == DataType::kFLOAT || t0 == DataType::kHALF || t0 == DataType::kBF16;
                        bool const supported1 = t1 == DataType::kFLOAT || t1 == DataType::kHALF || t1 == DataType::kBF16;
                        // Past position 0 only "same type as position 0" is asked: TensorRT never queries a
                        // later position with an unsupported type fixed at position 0.
                        (void)supported0;
                        bool expect = nb >= 4 && nb <= 7 && fm == TensorFormat::kLINEAR &&
                                      (pos == 0 ? supported1 : t1 == t0);
                        ++tried;
                        wrong += build->supportsFormatCombination(pos, d, nb, 1) != expect;
                        wrong += v2->supportsFormatCombination(pos, pd, nb, 1) != expect;
                    }
                }
            }
        }
    }
    check(wrong == 0, "MLP supportsFormatCombination: LINEAR, fp32/fp16/bf16, one type, 4 to 7 inputs (" +
                          std::to_string(tried) + " combinations x 2 interfaces, " + std::to_string(wrong) + " wrong)");
    DynamicPluginTensorDesc d[5]{};
    for (auto& e : d) e.desc.type = DataType::kFLOAT, e.desc.format = TensorFormat::kLINEAR;
    check(!build->supportsFormatCombination(0, d, 4, 2) && !build->supportsFormatCombination(5, d, 4, 1) &&
              !build->supportsFormatCombination(-1, d, 4, 1) && !build->supportsFormatCombination(0, nullptr, 4, 1),
          "MLP: 2 outputs, out-of-range positions and null descriptors are unsupported");
    delete p;
    raw->destroy();
}

void checkConfigure(PluginLibrary& lib) {
    std::printf("[PointwiseMLP configure / workspace / enqueue refusals]\n");
    MlpCase c;
    c.spatial = {6, 5};
    c.nb = 7;
    FieldSet f = c.fields();
    IPluginV3* p = lib.mlpV3->createPlugin("cfg", f.collection(), TensorRTPhase::kBUILD);
    IPluginV2* raw = lib.mlpV2->createPlugin("cfg", f.collection());
    if (!check(p && raw, "MLP create for configure checks")) return;
    auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* v2 = static_cast<IPluginV2DynamicExt*>(raw);
    DynamicPluginTensorDesc in[kMaxIn], out;
    logger().take();
    // A profile whose min residual batch differs from x's: invalid at "profile min".
    profileDescs(c, in, &out);
    in[core::kMlpResidual].min.d[0] = 2;
    check(build->configurePlugin(in, 7, &out, 1) != 0 && loggedError("profile min"),
          "MLP V3 configurePlugin rejects a profile whose min shapes disagree");
    v2->configurePlugin(in, 7, &out, 1);
    check(loggedError("profile min"), "MLP V2 configurePlugin logs the invalid profile");
    check(build->getWorkspaceSize(in, 7, &out, 1) == static_cast<size_t>(-1) && loggedError(),
          "MLP V3 getWorkspaceSize refuses an invalid profile");
    // V2: configurePlugin failed, so enqueue refuses before touching any pointer.
    {
        PluginTensorDesc pin[kMaxIn]{}, pout{};
        void const* ins[kMaxIn] = {};
        void* outs[1] = {};
        check(v2->enqueue(pin, &pout, ins, outs, nullptr, nullptr) != 0 && loggedError("configurePlugin rejected"),
              "MLP V2 enqueue after a failed configurePlugin fails with an error");
    }
    // Mixed types and a wrong output type.
    profileDescs(c, in, &out);
    in[core::kMlpGate].desc.type = DataType::kHALF;
    check(build->configurePlugin(in, 7, &out, 1) != 0 && loggedError("share"), "MLP V3 configurePlugin rejects mixed types");
    profileDescs(c, in, &out);
    out.desc.type = DataType::kHALF;
    check(build->configurePlugin(in, 7, &out, 1) != 0 && loggedError("output type"),
          "MLP V3 configurePlugin rejects an output of another type");
    profileDescs(c, in, &out);
    in[0].desc.type = in[1].desc.type = in[2].desc.type = in[3].desc.type = in[4].desc.type = in[5].desc.type =
        in[6].desc.type = out.desc.type = DataType::kINT8;
    check(build->configurePlugin(in, 7, &out, 1) != 0 && loggedError("float32"), "MLP V3 configurePlugin rejects int8");
    profileDescs(c, in, &out);
    check(build->configurePlugin(in, 3, &out, 1) != 0 && loggedError("expected 4 to 7 inputs"),
          "MLP V3 configurePlugin rejects 3 inputs");
    check(build->configurePlugin(in, 7, &out, 1) == 0 && !loggedError(), "MLP V3 configurePlugin accepts the profile");

    // Runtime refusals that happen before any GPU work.
    IPluginV3* fresh = lib.mlpV3->createPlugin("fresh", f.collection(), TensorRTPhase::kRUNTIME);
    auto* frt = static_cast<IPluginV3OneRuntime*>(fresh->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    PluginTensorDesc pin[kMaxIn], pout{c.outDims(c.n), c.type, TensorFormat::kLINEAR, -1.0F};
    for (int i = 0; i < 7; ++i) pin[i] = PluginTensorDesc{c.slotDims(i, c.n), c.type, TensorFormat::kLINEAR, -1.0F};
    void const* ins[kMaxIn] = {};
    void* outs[1] = {};
    check(frt->enqueue(pin, &pout, ins, outs, nullptr, nullptr) != 0 && loggedError("before"),
          "MLP V3 enqueue before onShapeChange fails with an error");
    PluginTensorDesc badIn[kMaxIn];
    std::copy(pin, pin + 7, badIn);
    badIn[core::kMlpResidual].dims.d[1] = c.cout + 1;
    check(frt->onShapeChange(badIn, 7, &pout, 1) != 0 && loggedError(), "MLP V3 onShapeChange rejects a bad residual");
    check(frt->onShapeChange(pin, 3, &pout, 1) != 0 && loggedError("expected 4 to 7"), "MLP V3 onShapeChange rejects 3 inputs");
    check(frt->onShapeChange(pin, 7, &pout, 1) == 0 && !loggedError(), "MLP V3 onShapeChange accepts the shapes");
    PluginTensorDesc badOut = pout;
    badOut.dims.d[1] = c.cout + 1;
    check(frt->enqueue(pin, &badOut, ins, outs, nullptr, nullptr) != 0 && loggedError("output tensor dims"),
          "MLP V3 enqueue refuses output dims other than [N, Cout, *S] (no launch)");
    PluginTensorDesc mixed[kMaxIn];
    std::copy(pin, pin + 7, mixed);
    mixed[core::kMlpB2].type = DataType::kHALF;
    check(frt->enqueue(mixed, &pout, ins, outs, nullptr, nullptr) != 0 && loggedError("share one type"),
          "MLP V3 enqueue refuses mixed types (no launch)");
    mixed[core::kMlpB2] = pin[core::kMlpB2];
    mixed[core::kMlpB2].format = TensorFormat::kCHW32;
    check(frt->enqueue(mixed, &pout, ins, outs, nullptr, nullptr) != 0 && loggedError("LINEAR"),
          "MLP V3 enqueue refuses a non-LINEAR tensor (no launch)");
    check(frt->enqueue(nullptr, &pout, ins, outs, nullptr, nullptr) != 0 && loggedError("descriptors"),
          "MLP V3 enqueue refuses null descriptors");
    delete fresh;
    delete p;
    raw->destroy();
}

void checkV3FieldCorruption(PluginLibrary& lib, MlpBuilt const& built) {
    std::printf("[PointwiseMLP V3 serialized fields]\n");
    FieldSet const base = built.v3Fields;
    check(base.size() == 3, "MLP V3 serialized fields: two attributes + the build state");
    auto mutate = [&](std::string const& what, auto&& change, std::string const& needle) {
        FieldSet f = base;
        change(f);
        logger().take();
        IPluginV3* p = lib.mlpV3->createPlugin("corrupt", f.collection(), TensorRTPhase::kRUNTIME);
        check(p == nullptr && loggedError(needle), "MLP V3 runtime fields '" + what + "' rejected ('" + needle + "')");
        delete p;
    };
    mutate("activation = 9", [](FieldSet& f) { int32_t v = 9; std::memcpy(f.entries()[1].bytes.data(), &v, 4); },
           "createPlugin (runtime");
    mutate("hidden_activation = -3", [](FieldSet& f) { int32_t v = -3; std::memcpy(f.entries()[0].bytes.data(), &v, 4); },
           "createPlugin (runtime");
    mutate("type changed to kCHAR", [](FieldSet& f) { f.entries()[0].type = PluginFieldType::kCHAR; }, "kINT32");
    mutate("data pointer null", [](FieldSet& f) { f.entries()[1].null = true; }, "no data");
    mutate("build state with input count 8",
           [](FieldSet& f) { int32_t v = 8; std::memcpy(f.entries()[2].bytes.data() + 8, &v, 4); }, "invalid input count");
    mutate("build state with input count 3",
           [](FieldSet& f) { int32_t v = 3; std::memcpy(f.entries()[2].bytes.data() + 8, &v, 4); }, "invalid input count");
    mutate("build state truncated", [](FieldSet& f) { f.entries()[2].length = 2; }, "three kINT32");
}

// A blob with a valid checksum around the given body words (to test value checks past the checksum).
std::vector<unsigned char> blobWith(std::vector<unsigned char> blob, size_t offset, uint32_t value) {
    for (int i = 0; i < 4; ++i) blob[offset + static_cast<size_t>(i)] = static_cast<unsigned char>(value >> (8 * i));
    uint32_t h = 2166136261u;
    for (size_t i = 0; i + 4 < blob.size(); ++i) h = (h ^ blob[i]) * 16777619u;
    for (int i = 0; i < 4; ++i) blob[blob.size() - 4 + static_cast<size_t>(i)] = static_cast<unsigned char>(h >> (8 * i));
    return blob;
}

void checkV2Blob(PluginLibrary& lib, MlpBuilt const& built) {
    std::printf("[PointwiseMLP V2 serialized blob]\n");
    std::vector<unsigned char> const blob = built.v2Blob;
    if (!check(blob.size() == 32, "MLP V2 blob has 32 bytes")) return;
    check(std::memcmp(blob.data(), "TFMP", 4) == 0, "MLP V2 blob starts with the magic 'TFMP'");
    auto rejected = [&](std::string const& what, std::vector<unsigned char> const& b, std::string const& needle) {
        logger().take();
        IPluginV2* q = lib.mlpV2->deserializePlugin("corrupt", b.data(), b.size());
        check(q == nullptr && loggedError(needle), "MLP V2 " + what + " rejected ('" + needle + "')");
        if (q) q->destroy();
    };
    rejected("wrong magic", blobWith(blob, 0, 0x4F4E4654u /* SpectralConv's "TFNO" */), "magic");
    rejected("format version 2", blobWith(blob, 4, 2), "format version 2");
    rejected("hidden_activation 6", blobWith(blob, 8, 6), "invalid attributes");
    rejected("activation -1", blobWith(blob, 12, 0xFFFFFFFFu), "invalid attributes");
    rejected("input count 3", blobWith(blob, 16, 3), "invalid input count");
    rejected("input count 8", blobWith(blob, 16, 8), "invalid input count");
    rejected("truncated to 31 bytes", std::vector<unsigned char>(blob.begin(), blob.end() - 1), "31 bytes");
    {
        // A SpectralConv blob handed to the PointwiseMLP creator (e.g. a plan mixing them up).
        Case sc;
        sc.modesLow = {3};
        sc.modesHigh = {0};
        FieldSet sf = sc.fields();
        IPluginV2* s = lib.v2->createPlugin("sc", sf.collection());
        if (check(s != nullptr, "SpectralConv V2 plugin for the cross-op blob check")) {
            std::vector<unsigned char> other(s->getSerializationSize());
            s->serialize(other.data());
            rejected("SpectralConv blob", other, "not a PointwiseMLP plugin");
            s->destroy();
        }
    }
    corruptBlobSweep("MLP V2", blob,
                     [&](void const* d, size_t n) { return lib.mlpV2->deserializePlugin("corrupt", d, n); }, 3, 2000,
                     static_cast<uint32_t>(tally().seed ^ 0x4D4C50u));
}

// ---------------------------------------------------------------------------------------------
// GPU: enqueue vs the float64 reference

// y = act(W2 hact(W1 x + b1) + b2 + g r) per point, in float64 (docs/op.md, pointwise_mlp.h).
std::vector<double> referenceMlp(MlpCase const& c, std::vector<double> const* in) {
    int64_t points = 1;
    for (int64_t s : c.spatial) points *= s;
    std::vector<double> y(static_cast<size_t>(c.n * c.cout * points));
    std::vector<double> h(static_cast<size_t>(c.ch));
    bool const hasB2 = c.nb > core::kMlpB2, hasR = c.nb > core::kMlpResidual, hasG = c.nb > core::kMlpGate;
    for (int64_t n = 0; n < c.n; ++n) {
        for (int64_t s = 0; s < points; ++s) {
            for (int64_t j = 0; j < c.ch; ++j) {
                double acc = in[core::kMlpB1][static_cast<size_t>(j)];
                for (int64_t i = 0; i < c.cin; ++i) {
                    acc += in[core::kMlpW1][static_cast<size_t>(j * c.cin + i)] *
                           in[core::kMlpX][static_cast<size_t>((n * c.cin + i) * points + s)];
                }
                h[static_cast<size_t>(j)] = turbofno_test::referenceActivation(acc, c.hiddenAct());
            }
            for (int64_t o = 0; o < c.cout; ++o) {
                double acc = hasB2 ? in[core::kMlpB2][static_cast<size_t>(o)] : 0.0;
                for (int64_t j = 0; j < c.ch; ++j) acc += in[core::kMlpW2][static_cast<size_t>(o * c.ch + j)] * h[static_cast<size_t>(j)];
                size_t const at = static_cast<size_t>((n * c.cout + o) * points + s);
                if (hasR) acc += (hasG ? in[core::kMlpGate][static_cast<size_t>(o)] : 1.0) * in[core::kMlpResidual][at];
                y[at] = turbofno_test::referenceActivation(acc, c.outAct());
            }
        }
    }
    return y;
}

void runtimeMlp(PluginLibrary& lib, MlpCase const& c, MlpBuilt& built) {
    std::mt19937_64 rng(tally().seed + static_cast<uint64_t>(c.name.size()) * 131u);
    std::uniform_real_distribution<double> uni(-1.0, 1.0);
    std::vector<double> host[kMaxIn];
    std::unique_ptr<DeviceBuffer> dev[kMaxIn];
    bool ok = true;
    for (int i = 0; i < c.nb; ++i) {
        double const scale = (i == core::kMlpW1 || i == core::kMlpW2) ? 0.5 : 1.0;
        host[i].resize(static_cast<size_t>(count(c.slotDims(i, c.n))));
        for (double& e : host[i]) e = roundTo(c.type, scale * uni(rng));
        std::vector<unsigned char> const bytes = encode(c.type, host[i]);
        dev[i] = std::make_unique<DeviceBuffer>(bytes.size());
        ok &= dev[i]->ptr != nullptr && cudaMemcpy(dev[i]->ptr, bytes.data(), bytes.size(), cudaMemcpyHostToDevice) == cudaSuccess;
    }
    std::vector<double> const want = referenceMlp(c, host);
    Dims const yDims = c.outDims(c.n);
    size_t const yBytes = static_cast<size_t>(count(yDims)) * elemBytes(c.type);
    DeviceBuffer y(yBytes);
    if (!check(ok && y.ptr != nullptr, c.name + ": device buffers")) return;
    void const* ins[kMaxIn] = {};
    for (int i = 0; i < c.nb; ++i) ins[i] = dev[i]->ptr;
    void* outs[1] = {y.ptr};
    PluginTensorDesc pin[kMaxIn], pout{yDims, c.type, TensorFormat::kLINEAR, -1.0F};
    for (int i = 0; i < c.nb; ++i) pin[i] = PluginTensorDesc{c.slotDims(i, c.n), c.type, TensorFormat::kLINEAR, -1.0F};
    cudaStream_t stream = nullptr;
    cudaStreamCreate(&stream);
    auto result = [&](char const* who) {
        std::vector<unsigned char> raw(yBytes);
        bool const copied = cudaStreamSynchronize(stream) == cudaSuccess &&
                            cudaMemcpy(raw.data(), y.ptr, yBytes, cudaMemcpyDeviceToHost) == cudaSuccess;
        check(copied, c.name + ": " + who + " stream completes");
        compareOutputs(c.name, c.type, who, decode(c.type, raw), want);
    };

    // V3: runtime plugin from the stored fields; workspace of exactly the reported size.
    {
        IPluginV3* p = lib.mlpV3->createPlugin(c.name.c_str(), built.v3Fields.collection(), TensorRTPhase::kRUNTIME);
        if (check(p != nullptr, c.name + ": V3 runtime createPlugin")) {
            auto* r = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
            IPluginV3* ctx = r->attachToContext(nullptr);
            auto* rc = static_cast<IPluginV3OneRuntime*>(ctx->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
            DeviceBuffer ws(built.v3Workspace);
            cudaMemset(y.ptr, 0xFF, yBytes);  // NaN pattern: an unwritten output fails the comparison
            check(rc->onShapeChange(pin, c.nb, &pout, 1) == 0, c.name + ": V3 onShapeChange");
            check(rc->enqueue(pin, &pout, ins, outs, ws.ptr, stream) == 0 && !loggedError(), c.name + ": V3 enqueue");
            result("V3");
            delete ctx;
            delete p;
        }
    }
    // V2: deserialized from the blob, configured with the concrete shapes (as the runtime does).
    {
        IPluginV2* raw = lib.mlpV2->deserializePlugin(c.name.c_str(), built.v2Blob.data(), built.v2Blob.size());
        if (check(raw != nullptr, c.name + ": V2 deserializePlugin")) {
            auto* p = static_cast<IPluginV2DynamicExt*>(raw);
            DynamicPluginTensorDesc din[kMaxIn], dout;
            for (int i = 0; i < c.nb; ++i) {
                din[i] = DynamicPluginTensorDesc{};
                din[i].desc = pin[i];
                din[i].min = din[i].opt = din[i].max = pin[i].dims;
            }
            dout = DynamicPluginTensorDesc{};
            dout.desc = pout;
            dout.min = dout.opt = dout.max = pout.dims;
            p->configurePlugin(din, c.nb, &dout, 1);
            DeviceBuffer ws(built.v2Workspace);
            cudaMemset(y.ptr, 0xFF, yBytes);
            check(p->initialize() == 0, c.name + ": V2 initialize");
            check(p->enqueue(pin, &pout, ins, outs, ws.ptr, stream) == 0 && !loggedError(), c.name + ": V2 enqueue");
            result("V2");
            p->terminate();
            p->destroy();
        }
    }
    cudaStreamDestroy(stream);
}

}  // namespace

void runMlpCase(PluginLibrary& lib, std::string const& name, DataType type, FieldSet& fields,
                std::vector<std::vector<int64_t>> const& inputs, std::string const& expectError) {
    int const nb = static_cast<int>(inputs.size());
    if (!expectError.empty()) {
        // Creation (or, when the attributes alone are valid, shape inference) must fail with the message.
        logger().take();
        IPluginV3* p = lib.mlpV3->createPlugin(name.c_str(), fields.collection(), TensorRTPhase::kBUILD);
        if (p == nullptr) {
            check(loggedError(expectError), name + ": MLP creation rejected with '" + expectError + "'");
            IPluginV2* q = lib.mlpV2->createPlugin(name.c_str(), fields.collection());
            check(q == nullptr && loggedError(expectError), name + ": MLP V2 creation rejected with '" + expectError + "'");
            if (q) q->destroy();
            return;
        }
        auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
        TestExprBuilder eb;
        DimsExprs ins[8];
        for (int i = 0; i < nb && i < 8; ++i) {
            ins[i].nbDims = static_cast<int32_t>(inputs[static_cast<size_t>(i)].size());
            for (size_t k = 0; k < inputs[static_cast<size_t>(i)].size() && k < 8; ++k) {
                ins[i].d[k] = eb.constantExpr(inputs[static_cast<size_t>(i)][k]);
            }
        }
        DimsExprs out{};
        check(build->getOutputShapes(ins, nb, nullptr, 0, &out, 1, eb) != 0 && loggedError(expectError),
              name + ": MLP shape inference rejected with '" + expectError + "'");
        delete p;
        return;
    }
    if (!check(nb >= 4 && nb <= kMaxIn && inputs[0].size() >= 2 && inputs[1].size() == 2 && inputs[3].size() == 2,
               name + ": case file gives 4 to 7 inputs x, W1, B1, W2[, B2[, R[, G]]]")) {
        return;
    }
    MlpCase c;
    c.name = name;
    c.type = type;
    c.nb = nb;
    c.n = inputs[0][0];
    c.cin = inputs[0][1];
    c.spatial.assign(inputs[0].begin() + 2, inputs[0].end());
    c.ch = inputs[1][0];
    c.cout = inputs[3][0];
    for (auto const& e : fields.entries()) {  // the values the reference needs (the plugin parses its own)
        if (e.length != 1 || e.null) continue;
        int64_t v = 0;
        if (e.type == PluginFieldType::kINT64) {
            std::memcpy(&v, e.bytes.data(), 8);
        } else {
            int32_t v32 = 0;
            std::memcpy(&v32, e.bytes.data(), 4);
            v = v32;
        }
        if (e.name == "hidden_activation") c.hidden = static_cast<int32_t>(v);
        if (e.name == "activation") c.act = static_cast<int32_t>(v);
    }
    bool same = true;
    for (int i = 0; i < nb; ++i) {
        Dims const d = c.slotDims(i, c.n);
        same = same && static_cast<size_t>(d.nbDims) == inputs[static_cast<size_t>(i)].size() &&
               std::equal(d.d, d.d + d.nbDims, inputs[static_cast<size_t>(i)].begin());
    }
    if (!check(same, name + ": the case file's input shapes are a consistent PointwiseMLP")) return;
    MlpBuilt built = buildMlp(lib, c, &fields);
    check(built.ok, name + ": MLP build phase from ONNX-derived fields");
    if (!built.ok) return;
    std::string reason;
    if (!gpuAvailable(&reason)) {
        std::printf("SKIPPED: enqueue of %s (%s)\n", name.c_str(), reason.c_str());
        return;
    }
    runtimeMlp(lib, c, built);
}

void runMlpCpuChecks(PluginLibrary& lib) {
    checkCreators(lib);
    checkFields(lib);
    checkShapes(lib);
    checkFormats(lib);
    checkConfigure(lib);
    std::printf("[PointwiseMLP build phase]\n");
    MlpBuilt first;
    for (MlpCase const& c : cpuCases()) {
        MlpBuilt r = buildMlp(lib, c);
        check(r.ok, c.name + ": build phase");
        if (!first.ok && r.ok) first = r;
    }
    if (first.ok) {
        checkV3FieldCorruption(lib, first);
        checkV2Blob(lib, first);
    }
}

void runMlpGpuChecks(PluginLibrary& lib) {
    std::printf("[PointwiseMLP GPU: build -> serialize -> runtime -> enqueue vs float64 reference]\n");
    DataType const f32 = DataType::kFLOAT, f16 = DataType::kHALF, bf16 = DataType::kBF16;
    auto make = [](std::string name, std::vector<int64_t> s, int64_t n, int64_t cin, int64_t ch, int64_t cout, int nb,
                   DataType t, int32_t hidden, int32_t act) {
        MlpCase c;
        c.name = std::move(name);
        c.spatial = std::move(s);
        c.n = n, c.cin = cin, c.ch = ch, c.cout = cout, c.nb = nb, c.type = t, c.hidden = hidden, c.act = act;
        return c;
    };
    std::vector<MlpCase> cases = {
        make("d1 S=37 fp32 4 in, defaults", {37}, 2, 3, 7, 4, 4, f32, -1, -1),
        make("d2 12x15 fp32 5 in relu/identity", {12, 15}, 2, 5, 16, 3, 5, f32, 3, 0),
        make("d2 9x10 fp16 6 in gelu/silu", {9, 10}, 1, 4, 8, 4, 6, f16, 1, 4),
        make("d2 9x10 bf16 7 in gelu_tanh/tanh", {9, 10}, 2, 6, 12, 6, 7, bf16, 2, 5),
        make("d3 6x5x7 fp32 7 in silu/gelu", {6, 5, 7}, 1, 3, 32, 3, 7, f32, 4, 1),
        make("d0 x[N,Cin] fp32 7 in tanh/relu", {}, 9, 5, 6, 5, 7, f32, 5, 3),
        make("d1 S=1000 fp16 wide 64->128->32", {1000}, 1, 64, 128, 32, 5, f16, 1, 0),
        make("d2 odd 13x7 fp32 Cin=1 Cout=1", {13, 7}, 3, 1, 3, 1, 7, f32, 0, 2),
    };
    for (MlpCase const& c : cases) {
        MlpBuilt built = buildMlp(lib, c);
        if (!check(built.ok, c.name + ": build phase")) continue;
        runtimeMlp(lib, c, built);
    }
}

}  // namespace trt_test
