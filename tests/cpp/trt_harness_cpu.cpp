// Harness checks that need no GPU: creators and their fields, creation from good and bad fields
// (both interfaces, both V3 phases), output types/shapes through the test IExprBuilder, format
// support, configurePlugin/getWorkspaceSize, serialization round trips, and truncated or corrupted
// serialized data rejected with a logged error (never a crash).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>

#include "trt_harness.h"

namespace trt_test {

using namespace nvinfer1;

namespace {

std::vector<Case> buildCases() {
    std::vector<Case> cs;
    Case a;
    a.name = "d1 fp32 bias";
    a.modesLow = {7};
    a.modesHigh = {0};
    a.n = 2, a.cin = 3, a.cout = 4, a.spatial = {37}, a.bias = true;
    cs.push_back(a);
    Case b;
    b.name = "d2 fp16 ortho";
    b.modesLow = {3, 5};
    b.modesHigh = {2, 0};
    b.norm = 2;
    b.n = 2, b.cin = 3, b.cout = 5, b.spatial = {12, 15}, b.type = DataType::kHALF;
    cs.push_back(b);
    Case s;
    s.name = "d2 separable bf16, defaults absent";
    s.modesLow = {2, 6};
    s.modesHigh = {2, 0};
    s.separable = 1;
    s.writeNorm = false;  // ONNX attribute absent -> no field -> default 0
    s.n = 1, s.cin = 4, s.cout = 4, s.spatial = {9, 10}, s.bias = true, s.type = DataType::kBF16;
    cs.push_back(s);
    Case t;
    t.name = "d3 fp32";
    t.modesLow = {2, 2, 3};
    t.modesHigh = {1, 2, 0};
    t.norm = 1;
    t.n = 1, t.cin = 2, t.cout = 3, t.spatial = {6, 5, 7}, t.bias = true;
    cs.push_back(t);
    // output_size (resampling): up, down with the forward norm, mixed 3D
    Case u;
    u.name = "d2 fp32 output_size 12x10->24x20";
    u.modesLow = {3, 4};
    u.modesHigh = {2, 0};
    u.n = 2, u.cin = 3, u.cout = 4, u.spatial = {12, 10}, u.outputSize = {24, 20}, u.bias = true;
    cs.push_back(u);
    Case v;
    v.name = "d1 fp16 forward output_size 37->12";
    v.modesLow = {10};
    v.modesHigh = {0};
    v.norm = 1;
    v.n = 2, v.cin = 2, v.cout = 3, v.spatial = {37}, v.outputSize = {12}, v.type = DataType::kHALF;
    cs.push_back(v);
    Case w;
    w.name = "d3 fp32 ortho output_size 6x5x7->9x4x12";
    w.modesLow = {2, 2, 3};
    w.modesHigh = {1, 2, 0};
    w.norm = 2;
    w.n = 1, w.cin = 2, w.cout = 3, w.spatial = {6, 5, 7}, w.outputSize = {9, 4, 12}, w.bias = true;
    cs.push_back(w);
    // Fused layer (op version 2): skip weight as input 3, activation field.
    Case f1;
    f1.name = "d2 fp32 skip gelu";
    f1.modesLow = {3, 5};
    f1.modesHigh = {2, 0};
    f1.n = 2, f1.cin = 3, f1.cout = 5, f1.spatial = {12, 15}, f1.bias = true, f1.skip = true, f1.activation = 1;
    cs.push_back(f1);
    Case f2;
    f2.name = "d1 fp16 skip silu";
    f2.modesLow = {7};
    f2.modesHigh = {0};
    f2.n = 2, f2.cin = 4, f2.cout = 3, f2.spatial = {37}, f2.bias = true, f2.skip = true, f2.activation = 4;
    f2.type = DataType::kHALF;
    cs.push_back(f2);
    Case f3;
    f3.name = "d3 separable bf16 skip tanh";
    f3.modesLow = {2, 2, 3};
    f3.modesHigh = {1, 2, 0};
    f3.separable = 1;
    f3.n = 1, f3.cin = 3, f3.cout = 3, f3.spatial = {6, 5, 7}, f3.bias = true, f3.skip = true, f3.activation = 5;
    f3.type = DataType::kBF16;
    cs.push_back(f3);
    Case f4;
    f4.name = "d2 fp32 activation only (relu)";
    f4.modesLow = {2, 6};
    f4.modesHigh = {2, 0};
    f4.n = 1, f4.cin = 4, f4.cout = 2, f4.spatial = {9, 10}, f4.bias = true, f4.activation = 3;
    cs.push_back(f4);
    return cs;
}

void checkCreators(PluginLibrary& lib) {
    std::printf("[creators]\n");
    check(lib.nbCreators == 4, "getCreators returns 4 creators (SpectralConv and PointwiseMLP, V3 and V2 each)");
    check(std::strcmp(lib.v3->getPluginName(), "SpectralConv") == 0, "V3 creator name == ONNX op_type");
    check(std::strcmp(lib.v3->getPluginVersion(), "1") == 0, "V3 creator version == plugin_version \"1\"");
    check(std::strcmp(lib.v3->getPluginNamespace(), "") == 0, "V3 creator namespace == \"\"");
    check(std::strcmp(lib.v2->getPluginName(), "SpectralConv") == 0, "V2 creator name");
    check(std::strcmp(lib.v2->getPluginVersion(), lib.v3->getPluginVersion()) != 0,
          "V2 and V3 creators have distinct versions (the registry keys on name+version+namespace)");
    char const* const names[] = {"modes_low", "modes_high", "norm", "separable", "output_size", "activation"};
    for (int which = 0; which < 2; ++which) {
        PluginFieldCollection const* fc = which == 0 ? lib.v3->getFieldNames() : lib.v2->getFieldNames();
        bool ok = fc != nullptr && fc->nbFields == 6;
        for (int i = 0; ok && i < 5; ++i) {
            ok = std::strcmp(fc->fields[i].name, names[i]) == 0 && fc->fields[i].type == PluginFieldType::kINT32;
        }
        check(ok, std::string(which == 0 ? "V3" : "V2") +
                      " getFieldNames == {modes_low, modes_high, norm, separable, output_size} kINT32");
    }
}

// One bad field set: every creation path must return nullptr and log an error naming the problem.
void expectRejected(PluginLibrary& lib, std::string const& what, FieldSet fields, std::string const& needle) {
    PluginFieldCollection const* fc = fields.collection();
    logger().take();
    IPluginV3* b = lib.v3->createPlugin("bad", fc, TensorRTPhase::kBUILD);
    check(b == nullptr, what + ": V3 createPlugin(kBUILD) rejects");
    check(loggedError(needle), what + ": V3 kBUILD logs '" + needle + "'");
    delete b;
    IPluginV3* r = lib.v3->createPlugin("bad", fc, TensorRTPhase::kRUNTIME);
    check(r == nullptr, what + ": V3 createPlugin(kRUNTIME) rejects");
    check(loggedError(needle), what + ": V3 kRUNTIME logs '" + needle + "'");
    delete r;
    IPluginV2* v2 = lib.v2->createPlugin("bad", fc);
    check(v2 == nullptr, what + ": V2 createPlugin rejects");
    check(loggedError(needle), what + ": V2 logs '" + needle + "'");
    if (v2) v2->destroy();
}

void checkBadFields(PluginLibrary& lib) {
    std::printf("[bad fields]\n");
    auto base = [](std::vector<int32_t> low, std::vector<int32_t> high) {
        FieldSet f;
        f.addInts("modes_low", low);
        f.addInts("modes_high", high);
        return f;
    };
    {
        FieldSet f;
        f.addInts("modes_high", {2, 0});
        expectRejected(lib, "missing modes_low", f, "modes_low' is missing");
    }
    {
        FieldSet f;
        f.addInts("modes_low", {2, 3});
        expectRejected(lib, "missing modes_high", f, "modes_high' is missing");
    }
    expectRejected(lib, "last modes_high != 0", base({2, 3}, {2, 1}), "must be 0");
    expectRejected(lib, "length mismatch", base({2, 3}, {2}), "entries");
    expectRejected(lib, "rank 4", base({1, 1, 1, 1}, {0, 0, 0, 0}), "1, 2 or 3");
    expectRejected(lib, "rank 0", base({}, {}), "1, 2 or 3");
    expectRejected(lib, "negative mode", base({-1, 3}, {0, 0}), "negative");
    expectRejected(lib, "axis keeps nothing", base({0, 3}, {0, 0}), "keeps no modes");
    {
        FieldSet f = base({2, 3}, {2, 0});
        f.addInts("norm", {3});
        expectRejected(lib, "norm 3", f, "norm = 3");
    }
    {
        FieldSet f = base({2, 3}, {2, 0});
        f.addInts("separable", {2});
        expectRejected(lib, "separable 2", f, "separable = 2");
    }
    {
        FieldSet f = base({2, 3}, {2, 0});
        f.addInts("norm", {0, 1});
        expectRejected(lib, "norm with two values", f, "exactly one value");
    }
    for (int32_t bad : {6, -1}) {
        FieldSet f = base({2, 3}, {2, 0});
        f.addInts("activation", {bad});
        expectRejected(lib, "activation " + std::to_string(bad), f, "activation = " + std::to_string(bad));
    }
    {
        FieldSet f = base({2, 3}, {2, 0});
        f.addInts("activation", {1, 2});
        expectRejected(lib, "activation with two values", f, "exactly one value");
    }
    {
        FieldSet f = base({2, 3}, {2, 0});
        f.addInts("activation", {1});
        f.addInts("activation", {1});
        expectRejected(lib, "activation given twice", f, "given twice");
    }
    {
        FieldSet f = base({2, 3}, {2, 0});
        f.addInts("modes_low", {2, 3});
        expectRejected(lib, "duplicate field", f, "given twice");
    }
    {
        FieldSet f;
        f.addNull("modes_low", 2);
        f.addInts("modes_high", {2, 0});
        expectRejected(lib, "null data", f, "no data");
    }
    {
        FieldSet f;
        float const v[2] = {2.0F, 3.0F};
        unsigned char const* p = reinterpret_cast<unsigned char const*>(v);
        f.addRaw("modes_low", std::vector<unsigned char>(p, p + sizeof v), PluginFieldType::kFLOAT32, 2);
        f.addInts("modes_high", {2, 0});
        expectRejected(lib, "float field", f, "expected kINT32");
    }
    {
        FieldSet f = base({2, 3}, {2, 0});
        f.entries()[0].length = -1;
        expectRejected(lib, "negative length", f, "negative length");
    }
    // A null collection and unknown extra fields.
    logger().take();
    check(lib.v3->createPlugin("bad", nullptr, TensorRTPhase::kBUILD) == nullptr && loggedError("no plugin field"),
          "null field collection rejected");
    {
        FieldSet f = base({2, 3}, {2, 0});
        f.addInts("plugin_version_like_extra", {7});
        IPluginV3* p = lib.v3->createPlugin("extra", f.collection(), TensorRTPhase::kBUILD);
        check(p != nullptr, "unknown extra fields are ignored");
        delete p;
    }
    {
        FieldSet f;
        f.addInts("modes_low", {2, 3}, PluginFieldType::kINT64);
        f.addInts("modes_high", {2, 0}, PluginFieldType::kINT64);
        IPluginV3* p = lib.v3->createPlugin("int64", f.collection(), TensorRTPhase::kBUILD);
        check(p != nullptr, "kINT64 fields (Python-made) are accepted");
        delete p;
    }
}

void checkShapeErrors(PluginLibrary& lib) {
    std::printf("[shape and type errors]\n");
    Case c = buildCases()[1];  // d2
    FieldSet f = c.fields();
    IPluginV3* p = lib.v3->createPlugin("shape", f.collection(), TensorRTPhase::kBUILD);
    IPluginV2* raw = lib.v2->createPlugin("shape", f.collection());
    if (!check(p && raw, "create for shape checks")) return;
    auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* p2 = static_cast<IPluginV2DynamicExt*>(raw);
    logger().take();

    // x of rank 3 for a rank-2 layer (symbolic batch, so only the rank is known)
    {
        TestExprBuilder eb;
        DimsExprs in[2];
        in[0].nbDims = 3;
        in[0].d[0] = eb.symbol("N");
        in[0].d[1] = eb.constantExpr(3);
        in[0].d[2] = eb.constantExpr(12);
        in[1].nbDims = 5;
        for (int k = 0; k < 5; ++k) in[1].d[k] = eb.constantExpr(c.weightDims().d[k]);
        DimsExprs out{};
        check(build->getOutputShapes(in, 2, nullptr, 0, &out, 1, eb) != 0 && loggedError("rank"),
              "V3 getOutputShapes rejects x of the wrong rank");
        check(p2->getOutputDimensions(0, in, 2, eb).nbDims < 0 && loggedError("rank"),
              "V2 getOutputDimensions rejects x of the wrong rank");
    }
    // all constant, but modes exceed S_1: core::inferShape's message comes through
    {
        TestExprBuilder eb;
        DimsExprs in[2];
        Dims x = c.xDims(2);
        x.d[2] = 4;  // p + q = 5 > 4
        in[0].nbDims = x.nbDims;
        for (int k = 0; k < x.nbDims; ++k) in[0].d[k] = eb.constantExpr(x.d[k]);
        Dims const w = c.weightDims();
        in[1].nbDims = w.nbDims;
        for (int k = 0; k < w.nbDims; ++k) in[1].d[k] = eb.constantExpr(w.d[k]);
        DimsExprs out{};
        check(build->getOutputShapes(in, 2, nullptr, 0, &out, 1, eb) != 0 && loggedError("exceeds"),
              "V3 getOutputShapes rejects modes larger than the spatial size");
        check(p2->getOutputDimensions(0, in, 2, eb).nbDims < 0 && loggedError("exceeds"),
              "V2 getOutputDimensions rejects modes larger than the spatial size");
    }
    // configurePlugin: a profile whose min spatial size is too small for the modes
    {
        DynamicPluginTensorDesc in[2], out;
        Dims const fixed[2] = {c.xDims(2), c.weightDims()};
        for (int i = 0; i < 2; ++i) {
            in[i] = DynamicPluginTensorDesc{};
            in[i].desc = PluginTensorDesc{fixed[i], c.type, TensorFormat::kLINEAR, -1.0F};
            in[i].min = in[i].opt = in[i].max = fixed[i];
        }
        in[0].desc.dims.d[2] = -1;
        in[0].min.d[2] = 4;
        out = DynamicPluginTensorDesc{};
        out.desc = PluginTensorDesc{c.outDims(2), c.type, TensorFormat::kLINEAR, -1.0F};
        out.desc.dims.d[2] = -1;
        out.min = out.opt = out.max = c.outDims(2);
        check(build->configurePlugin(in, 2, &out, 1) != 0 && loggedError("profile min"),
              "V3 configurePlugin rejects a profile whose min shape is invalid");
        p2->configurePlugin(in, 2, &out, 1);
        check(loggedError("profile min"), "V2 configurePlugin logs the invalid profile");
        // mixed types
        in[0].min.d[2] = 12;
        in[1].desc.type = DataType::kFLOAT;
        check(build->configurePlugin(in, 2, &out, 1) != 0 && loggedError("share"), "V3 configurePlugin rejects mixed types");
        // An unusable size from getWorkspaceSize when shapes are invalid (no error code exists there).
        in[1].desc.type = c.type;
        in[0].max.d[2] = 3;
        check(build->getWorkspaceSize(in, 2, &out, 1) == static_cast<size_t>(-1) && loggedError(),
              "V3 getWorkspaceSize refuses an invalid profile");
    }
    // output types / counts
    {
        DataType t[2] = {DataType::kHALF, DataType::kHALF}, o[2];
        check(build->getOutputDataTypes(o, 2, t, 2) != 0 && loggedError("one output"), "V3 getOutputDataTypes rejects 2 outputs");
        check(build->getOutputDataTypes(o, 1, t, 1) != 0 && loggedError("2 to 4 inputs"), "V3 getOutputDataTypes rejects 1 input");
        DataType t5[5] = {DataType::kHALF, DataType::kHALF, DataType::kHALF, DataType::kHALF, DataType::kHALF};
        check(build->getOutputDataTypes(o, 1, t5, 5) != 0 && loggedError("2 to 4 inputs"), "V3 getOutputDataTypes rejects 5 inputs");
    }
    // enqueue before any shape is known fails cleanly (no GPU work attempted)
    {
        auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        IPluginV3* fresh = lib.v3->createPlugin("fresh", f.collection(), TensorRTPhase::kRUNTIME);
        auto* frt = static_cast<IPluginV3OneRuntime*>(fresh->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        PluginTensorDesc desc[4]{};
        void const* ins[4] = {};
        void* outs[1] = {};
        check(frt->enqueue(desc, desc, ins, outs, nullptr, nullptr) != 0 && loggedError("before"),
              "V3 enqueue before onShapeChange fails with an error");
        // onShapeChange with a bad shape
        PluginTensorDesc in[2] = {{c.xDims(2), c.type, TensorFormat::kLINEAR, -1.0F},
                                  {c.weightDims(), c.type, TensorFormat::kLINEAR, -1.0F}};
        in[1].dims.d[0] = 7;  // weight Cin != x Cin
        PluginTensorDesc o{c.outDims(2), c.type, TensorFormat::kLINEAR, -1.0F};
        check(frt->onShapeChange(in, 2, &o, 1) != 0 && loggedError("Cin"), "V3 onShapeChange rejects weight/x mismatch");
        // A skip weight of the wrong shape (input 3): the core's message names it.
        Dims sk{};
        sk.nbDims = 2;
        sk.d[0] = c.cin;  // [Cin, Cout] instead of [Cout, Cin]
        sk.d[1] = c.cout;
        PluginTensorDesc in4[4] = {{c.xDims(2), c.type, TensorFormat::kLINEAR, -1.0F},
                                   {c.weightDims(), c.type, TensorFormat::kLINEAR, -1.0F},
                                   {c.biasDims(), c.type, TensorFormat::kLINEAR, -1.0F},
                                   {sk, c.type, TensorFormat::kLINEAR, -1.0F}};
        check(frt->onShapeChange(in4, 4, &o, 1) != 0 && loggedError("skip_weight"),
              "V3 onShapeChange rejects a skip_weight of the wrong shape");
        PluginTensorDesc in5[5] = {in4[0], in4[1], in4[2], in4[3], in4[3]};
        check(frt->onShapeChange(in5, 5, &o, 1) != 0 && loggedError("2 to 4 inputs"), "V3 onShapeChange rejects 5 inputs");
        (void)rt;
        delete fresh;
        IPluginV2* freshV2 = lib.v2->createPlugin("fresh", f.collection());
        auto* fv2 = static_cast<IPluginV2DynamicExt*>(freshV2);
        check(fv2->enqueue(desc, desc, ins, outs, nullptr, nullptr) != 0 && loggedError("before"),
              "V2 enqueue before configurePlugin fails with an error");
        fv2->destroy();
    }
    delete p;
    p2->destroy();
}

void checkFormats(PluginLibrary& lib) {
    std::printf("[supportsFormatCombination]\n");
    Case c = buildCases()[0];
    FieldSet f = c.fields();
    IPluginV3* p = lib.v3->createPlugin("fmt", f.collection(), TensorRTPhase::kBUILD);
    IPluginV2* raw = lib.v2->createPlugin("fmt", f.collection());
    if (!check(p && raw, "create for format checks")) return;
    auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* p2 = static_cast<IPluginV2DynamicExt*>(raw);
    DataType const types[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kINT32,
                              DataType::kINT64, DataType::kBOOL};
    TensorFormat const formats[] = {TensorFormat::kLINEAR, TensorFormat::kCHW32, TensorFormat::kHWC8};
    int mismatches = 0, supported = 0;
    for (int nb : {2, 3, 4}) {
        for (DataType t0 : types) {
            for (DataType t : types) {
                for (TensorFormat fmt : formats) {
                    for (int pos = 0; pos <= nb; ++pos) {
                        DynamicPluginTensorDesc io[5]{};
                        for (int i = 0; i < 5; ++i) {
                            io[i].desc.type = t0;
                            io[i].desc.format = TensorFormat::kLINEAR;
                        }
                        io[pos].desc.type = t;
                        io[pos].desc.format = fmt;
                        bool const kernelType = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
                        bool const expect = fmt == TensorFormat::kLINEAR && (pos == 0 ? kernelType : t == t0);
                        // pos > 0 is only asked after pos 0 was accepted, so inOut[0] holds a kernel type
                        bool const t0Valid = t0 == DataType::kFLOAT || t0 == DataType::kHALF || t0 == DataType::kBF16;
                        if (pos > 0 && !t0Valid) continue;
                        PluginTensorDesc flat[5];
                        for (int i = 0; i < 5; ++i) flat[i] = io[i].desc;
                        bool const v3 = build->supportsFormatCombination(pos, io, nb, 1);
                        bool const v2 = p2->supportsFormatCombination(pos, flat, nb, 1);
                        mismatches += (v3 != expect) + (v2 != expect);
                        supported += v3;
                    }
                }
            }
        }
    }
    check(mismatches == 0, "supportsFormatCombination: LINEAR only, fp32/fp16/bf16, all tensors one type (" +
                               std::to_string(mismatches) + " mismatches)");
    check(supported > 0, "some combinations are supported");
    DynamicPluginTensorDesc io[6]{};
    check(!build->supportsFormatCombination(4, io, 3, 1) && !build->supportsFormatCombination(-1, io, 3, 1) &&
              !build->supportsFormatCombination(0, io, 1, 1) && !build->supportsFormatCombination(0, io, 5, 1) &&
              !build->supportsFormatCombination(0, nullptr, 2, 1),
          "supportsFormatCombination rejects out-of-range positions, counts and null");
    delete p;
    p2->destroy();
}

// Profile descriptors with the batch in [lo, hi] and opt `opt`.
void batchProfile(Case const& c, int64_t lo, int64_t opt, int64_t hi, DynamicPluginTensorDesc* in, DynamicPluginTensorDesc* out) {
    Dims fixed[4];
    c.inputDims(opt, fixed);
    for (int i = 0; i < c.nbInputs(); ++i) {
        in[i] = DynamicPluginTensorDesc{};
        in[i].desc = PluginTensorDesc{fixed[i], c.type, TensorFormat::kLINEAR, -1.0F};
        in[i].min = in[i].opt = in[i].max = fixed[i];
    }
    in[0].desc.dims.d[0] = -1;
    in[0].min.d[0] = lo;
    in[0].max.d[0] = hi;
    *out = DynamicPluginTensorDesc{};
    out->desc = PluginTensorDesc{c.outDims(-1), c.type, TensorFormat::kLINEAR, -1.0F};
    out->min = c.outDims(lo);
    out->opt = c.outDims(opt);
    out->max = c.outDims(hi);
}

// The plugin reserves core::cudaWorkspaceBound of the profile's max shape: at least the workspace of
// every shape in the profile (the core's workspace itself is not monotone in the batch), for any
// profile size and without trying shapes one by one; it refuses (not overruns) a shape needing more.
void checkWorkspaceBound(PluginLibrary& lib) {
    std::printf("[workspace bound]\n");
    Case c;
    c.name = "non-monotone workspace";
    c.modesLow = {12, 12};
    c.modesHigh = {12, 0};
    c.cin = c.cout = 8;
    c.spatial = {66, 66};
    int64_t peak = 0;
    size_t peakBytes = 0;
    for (int64_t b = 1; b <= 33; ++b) {
        if (coreWorkspaceBytes(c, b) > peakBytes) peakBytes = coreWorkspaceBytes(c, b), peak = b;
    }
    size_t const bound = coreWorkspaceBound(c, 33);
    std::printf("  core workspace over N=1..33: peak %zu bytes at N=%lld; core bound for N <= 33: %zu\n", peakBytes,
                static_cast<long long>(peak), bound);
    check(bound != static_cast<size_t>(-1) && bound >= peakBytes, "the core's bound covers every batch of the profile");
    FieldSet f = c.fields();
    IPluginV3* p = lib.v3->createPlugin("ws", f.collection(), TensorRTPhase::kBUILD);
    IPluginV2* raw = lib.v2->createPlugin("ws", f.collection());
    if (!check(p && raw, "create for workspace checks")) return;
    auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* p2 = static_cast<IPluginV2DynamicExt*>(raw);
    DynamicPluginTensorDesc in[3], out;
    batchProfile(c, 1, 8, 33, in, &out);
    check(build->configurePlugin(in, 2, &out, 1) == 0, "V3 configurePlugin, batch profile [1, 33]");
    check(build->getWorkspaceSize(in, 2, &out, 1) == bound, "V3 getWorkspaceSize == the core's bound for the max shape");
    p2->configurePlugin(in, 2, &out, 1);
    PluginTensorDesc maxIn[2] = {in[0].desc, in[1].desc};
    maxIn[0].dims = in[0].max;
    PluginTensorDesc maxOut = out.desc;
    maxOut.dims = out.max;
    check(p2->getWorkspaceSize(maxIn, 2, &maxOut, 1) == bound, "V2 getWorkspaceSize == the core's bound for the max shape");
    // A profile of 64 x 371 x 371 shapes (more than any sweep would try): the bound of the max shape,
    // at once, no warning.
    {
        DynamicPluginTensorDesc wide[2], wideOut;
        batchProfile(c, 1, 8, 64, wide, &wideOut);
        for (int k : {2, 3}) {
            wide[0].desc.dims.d[k] = -1;
            wide[0].min.d[k] = 30;
            wide[0].max.d[k] = 400;
        }
        logger().take();
        Case big = c;
        big.spatial = {400, 400};
        size_t const ws = build->getWorkspaceSize(wide, 2, &wideOut, 1);
        check(ws == coreWorkspaceBound(big, 64) && ws >= coreWorkspaceBytes(big, 64) && !loggedError(),
              "V3 getWorkspaceSize over a 64x371x371-shape profile == the core's bound of its max shape, no warning");
    }
    delete p;
    p2->destroy();

    // Reserve for batch 1 only, then ask for a batch that needs more: enqueue must refuse before
    // touching memory (the pointers below are never dereferenced).
    int64_t big = 64;
    while (big < 4096 && coreWorkspaceBytes(c, big) <= coreWorkspaceBytes(c, 1)) big *= 2;
    if (coreWorkspaceBytes(c, big) <= coreWorkspaceBytes(c, 1)) {
        std::printf("  (guard check skipped: no batch needs more workspace than batch 1)\n");
        return;
    }
    batchProfile(c, 1, 1, 1, in, &out);
    IPluginV3* small = lib.v3->createPlugin("ws", f.collection(), TensorRTPhase::kBUILD);
    auto* sb = static_cast<IPluginV3OneBuild*>(small->getCapabilityInterface(PluginCapabilityType::kBUILD));
    check(sb->configurePlugin(in, 2, &out, 1) == 0, "V3 configurePlugin, batch profile [1, 1]");
    auto* srt = static_cast<IPluginV3OneRuntime*>(small->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    FieldSet saved = FieldSet::copyOf(srt->getFieldsToSerialize());
    check(saved.size() == 5, "V3 serializes its build state (workspace bound, input count) with the four attributes");
    delete small;
    IPluginV3* rtPlugin = lib.v3->createPlugin("ws", saved.collection(), TensorRTPhase::kRUNTIME);
    auto* rt = static_cast<IPluginV3OneRuntime*>(rtPlugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    PluginTensorDesc bigIn[2] = {{c.xDims(big), c.type, TensorFormat::kLINEAR, -1.0F},
                                 {c.weightDims(), c.type, TensorFormat::kLINEAR, -1.0F}};
    PluginTensorDesc bigOut{c.outDims(big), c.type, TensorFormat::kLINEAR, -1.0F};
    void* fake = reinterpret_cast<void*>(uintptr_t{1} << 20);
    void const* ins[2] = {fake, fake};
    void* outs[1] = {fake};
    logger().take();
    check(rt->onShapeChange(bigIn, 2, &bigOut, 1) == 0, "V3 onShapeChange to a larger batch");
    check(rt->enqueue(bigIn, &bigOut, ins, outs, fake, nullptr) != 0 && loggedError("were reserved"),
          "V3 enqueue refuses a shape needing more workspace than was reserved");
    delete rtPlugin;

    IPluginV2* v2 = lib.v2->createPlugin("ws", f.collection());
    auto* v2d = static_cast<IPluginV2DynamicExt*>(v2);
    v2d->configurePlugin(in, 2, &out, 1);
    std::vector<unsigned char> blob(v2d->getSerializationSize());
    v2d->serialize(blob.data());
    v2d->destroy();
    auto* back = static_cast<IPluginV2DynamicExt*>(lib.v2->deserializePlugin("ws", blob.data(), blob.size()));
    if (!check(back != nullptr, "V2 deserialize for the guard check")) return;
    DynamicPluginTensorDesc rin[2], rout;
    batchProfile(c, big, big, big, rin, &rout);
    back->configurePlugin(rin, 2, &rout, 1);
    logger().take();
    check(back->enqueue(bigIn, &bigOut, ins, outs, fake, nullptr) != 0 && loggedError("were reserved"),
          "V2 enqueue refuses a shape needing more workspace than was reserved");
    back->destroy();
}

void checkV3SerializedFields(PluginLibrary& lib, BuildResult const& built) {
    std::printf("[V3 serialized fields]\n");
    FieldSet good = built.v3Fields;
    IPluginV3* p = lib.v3->createPlugin("rt", good.collection(), TensorRTPhase::kRUNTIME);
    check(p != nullptr, "V3 kRUNTIME accepts its own serialized fields");
    if (p) {
        auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        FieldSet again = FieldSet::copyOf(rt->getFieldsToSerialize());
        bool same = again.size() == good.size();
        for (size_t i = 0; same && i < good.size(); ++i) same = again.entries()[i].bytes == good.entries()[i].bytes;
        check(same, "V3 serialize -> createPlugin(kRUNTIME) -> serialize is the identity");
        delete p;
    }
    auto mutate = [&](std::string const& what, auto&& change, std::string const& needle) {
        FieldSet f = built.v3Fields;
        change(f);
        logger().take();
        IPluginV3* q = lib.v3->createPlugin("corrupt", f.collection(), TensorRTPhase::kRUNTIME);
        check(q == nullptr, "corrupted V3 fields rejected: " + what);
        check(loggedError(needle), "corrupted V3 fields logged: " + what);
        delete q;
    };
    mutate("modes_low truncated to 1 entry", [](FieldSet& f) { f.entries()[0].length = 1; }, "entries");
    mutate("modes_high dropped", [](FieldSet& f) { f.entries().erase(f.entries().begin() + 1); }, "missing");
    mutate("norm = 77", [](FieldSet& f) { int32_t v = 77; std::memcpy(f.entries()[2].bytes.data(), &v, 4); }, "norm");
    mutate("type changed to kCHAR", [](FieldSet& f) { f.entries()[0].type = PluginFieldType::kCHAR; }, "kINT32");
    mutate("data pointer null", [](FieldSet& f) { f.entries()[1].null = true; }, "no data");
    check(built.v3Fields.size() == 5, "V3 serialized fields: four attributes + the build state");
    mutate("build state with input count 7", [](FieldSet& f) { int32_t v = 7; std::memcpy(f.entries()[4].bytes.data() + 8, &v, 4); },
           "invalid input count");
    mutate("build state truncated", [](FieldSet& f) { f.entries()[4].length = 2; }, "three kINT32");
    mutate("garbage in the last modes_high entry",
           [](FieldSet& f) { std::memset(f.entries()[1].bytes.data() + f.entries()[1].bytes.size() - 4, 0x7F, 4); },
           "must be 0");
}

void checkV2Blob(PluginLibrary& lib, BuildResult const& built) {
    std::printf("[V2 serialized blob]\n");
    std::vector<unsigned char> const blob = built.v2Blob;
    IPluginV2* p = lib.v2->deserializePlugin("rt", blob.data(), blob.size());
    check(p != nullptr, "V2 deserializePlugin accepts its own blob");
    if (p) {
        std::vector<unsigned char> again(p->getSerializationSize());
        p->serialize(again.data());
        check(again == blob, "V2 serialize -> deserialize -> serialize is the identity");
        p->destroy();
    }
    // Format 2 (engines serialized before the fused layer: no activation word) is still read, as
    // activation identity: rebuild this (activation-free) blob in format 2 by hand.
    {
        std::vector<unsigned char> v2(blob.begin(), blob.end() - 8);  // everything but activation + checksum
        v2[4] = 2;                                                   // format version 2
        uint32_t h = 2166136261u;
        for (unsigned char b : v2) h = (h ^ b) * 16777619u;
        for (int i = 0; i < 4; ++i) v2.push_back(static_cast<unsigned char>(h >> (8 * i)));
        logger().take();
        IPluginV2* old = lib.v2->deserializePlugin("v2", v2.data(), v2.size());
        check(old != nullptr && !loggedError(), "V2 reads a format-2 blob (no activation)");
        if (old) {
            std::vector<unsigned char> again(old->getSerializationSize());
            old->serialize(again.data());
            check(again == blob, "V2 re-serializes a format-2 blob as this (activation-free) format-3 blob");
            old->destroy();
        }
    }
    corruptBlobSweep("V2", blob, [&](void const* d, size_t n) { return lib.v2->deserializePlugin("corrupt", d, n); },
                     2, 2000, static_cast<uint32_t>(tally().seed ^ 7));
}

}  // namespace

void runCpuChecks(PluginLibrary& lib) {
    checkCreators(lib);
    checkBadFields(lib);
    checkShapeErrors(lib);
    checkFormats(lib);
    checkWorkspaceBound(lib);
    checkBuildRefusal(lib);
    std::printf("[build phase]\n");
    BuildResult first;  // a rank-2 case, so that truncating modes_low changes something
    for (Case const& c : buildCases()) {
        FieldSet f = c.fields();
        BuildResult r = buildPhase(lib, c, f.collection());
        check(r.ok, c.name + ": build phase");
        if (!first.ok && r.ok && c.rank() == 2) first = r;
    }
    if (first.ok) {
        checkV3SerializedFields(lib, first);
        checkV2Blob(lib, first);
    }
    runOutputSizeChecks(lib);
}

}  // namespace trt_test
