// Harness checks of the optional output_size attribute (resampling layers), no GPU needed: bad fields
// refused, output shapes are the constant T, both serialized forms keep it, and a version-1 V2 blob
// (written before output_size existed) still deserializes as a same-size layer.
#include <cstdint>
#include <cstring>
#include <vector>

#include "trt_harness.h"

namespace trt_test {

using namespace nvinfer1;

namespace {

void expectRefused(PluginLibrary& lib, std::string const& what, FieldSet fields, std::string const& needle) {
    PluginFieldCollection const* fc = fields.collection();
    logger().take();
    IPluginV3* b = lib.v3->createPlugin("bad", fc, TensorRTPhase::kBUILD);
    check(b == nullptr && loggedError(needle), what + ": V3 refuses, logging '" + needle + "'");
    delete b;
    IPluginV2* v2 = lib.v2->createPlugin("bad", fc);
    check(v2 == nullptr && loggedError(needle), what + ": V2 refuses, logging '" + needle + "'");
    if (v2) v2->destroy();
}

FieldSet base2d() {
    FieldSet f;
    f.addInts("modes_low", {3, 4});
    f.addInts("modes_high", {2, 0});
    return f;
}

// Output spatial dims from getOutputDimensions with a symbolic batch: must be the constants `t`.
bool outputIsConstant(IPluginV2DynamicExt* p, Case const& c, std::vector<int64_t> const& t) {
    TestExprBuilder eb;
    DimsExprs in[2];
    Dims const x = c.xDims(c.n), w = c.weightDims();
    in[0].nbDims = x.nbDims;
    for (int k = 0; k < x.nbDims; ++k) in[0].d[k] = eb.constantExpr(x.d[k]);
    in[0].d[0] = eb.symbol("N");
    in[1].nbDims = w.nbDims;
    for (int k = 0; k < w.nbDims; ++k) in[1].d[k] = eb.constantExpr(w.d[k]);
    DimsExprs const out = p->getOutputDimensions(0, in, 2, eb);
    bool ok = out.nbDims == c.rank() + 2 && out.d[0] == in[0].d[0];
    for (int j = 0; ok && j < c.rank(); ++j) {
        IDimensionExpr const* e = out.d[2 + j];
        int64_t const want = t.empty() ? x.d[2 + j] : t[static_cast<size_t>(j)];
        ok = t.empty() ? e == in[0].d[2 + j] : (e != nullptr && e->isConstant() && e->getConstantValue() == want);
    }
    return ok;
}

uint32_t fnv1a(std::vector<unsigned char> const& b) {
    uint32_t h = 2166136261u;
    for (unsigned char c : b) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

void put32(std::vector<unsigned char>& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

}  // namespace

void runOutputSizeChecks(PluginLibrary& lib) {
    std::printf("[output_size]\n");
    {
        FieldSet f = base2d();
        f.addInts("output_size", {24});
        expectRefused(lib, "output_size with 1 entry for d = 2", f, "output_size has 1 entries");
    }
    {
        FieldSet f = base2d();
        f.addInts("output_size", {24, 0});
        expectRefused(lib, "output_size 0", f, "output_size[1] = 0");
    }
    {
        FieldSet f = base2d();
        f.addInts("output_size", {24, 20});
        f.addInts("output_size", {24, 20});
        expectRefused(lib, "output_size twice", f, "given twice");
    }
    {
        FieldSet f = base2d();
        float const v[2] = {24.0F, 20.0F};
        unsigned char const* p = reinterpret_cast<unsigned char const*>(v);
        f.addRaw("output_size", std::vector<unsigned char>(p, p + sizeof v), PluginFieldType::kFLOAT32, 2);
        expectRefused(lib, "output_size as floats", f, "expected kINT32");
    }

    Case c;
    c.name = "output_size 12x10->24x20";
    c.modesLow = {3, 4};
    c.modesHigh = {2, 0};
    c.n = 2, c.cin = 3, c.cout = 4, c.spatial = {12, 10}, c.outputSize = {24, 20}, c.bias = false;
    FieldSet f = c.fields();
    BuildResult const built = buildPhase(lib, c, f.collection());
    if (!check(built.ok, "output_size: build phase (shapes are the constant T)")) return;

    // V3: the serialized fields carry output_size, and kRUNTIME recreation keeps it.
    bool found = false;
    FieldSet saved = built.v3Fields;
    for (auto const& e : saved.entries()) {
        if (e.name != "output_size") continue;
        int32_t t[2] = {};
        found = e.type == PluginFieldType::kINT32 && e.length == 2 && e.bytes.size() == sizeof t;
        if (found) std::memcpy(t, e.bytes.data(), sizeof t);
        found = found && t[0] == 24 && t[1] == 20;
    }
    check(found, "V3 getFieldsToSerialize includes output_size = [24, 20]");
    {
        FieldSet plain = base2d();
        IPluginV3* p = lib.v3->createPlugin("same", plain.collection(), TensorRTPhase::kBUILD);
        bool absent = p != nullptr;
        if (p) {
            auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
            FieldSet fields = FieldSet::copyOf(rt->getFieldsToSerialize());
            for (auto const& e : fields.entries()) absent &= e.name != "output_size";
            delete p;
        }
        check(absent, "V3 without output_size serializes no output_size field (v1 nodes unchanged)");
    }

    // V2: the blob keeps output_size; a deserialized plugin still outputs T.
    IPluginV2* raw = lib.v2->deserializePlugin("rt", built.v2Blob.data(), built.v2Blob.size());
    check(raw != nullptr, "V2 deserializePlugin of an output_size blob");
    if (raw) {
        check(outputIsConstant(static_cast<IPluginV2DynamicExt*>(raw), c, c.outputSize),
              "V2 deserialized plugin outputs the constant output_size");
        raw->destroy();
    }
    {
        std::vector<unsigned char> bad = built.v2Blob;
        bad[4] = 1;  // claims format version 1 at the version-2 length
        logger().take();
        IPluginV2* q = lib.v2->deserializePlugin("bad", bad.data(), bad.size());
        check(q == nullptr && loggedError("format"), "V2 blob whose version does not match its length is refused");
        if (q) q->destroy();
    }

    // A version-1 blob (no output_size), written here by hand: "TFNO", 1, rank, low[3], high[3],
    // norm, separable, inputs, workspace lo/hi, FNV-1a.
    std::vector<unsigned char> v1;
    put32(v1, 0x4F4E4654u);
    put32(v1, 1);
    put32(v1, 2);
    for (uint32_t v : {3u, 4u, 0u, 2u, 0u, 0u}) put32(v1, v);
    for (uint32_t v : {0u, 0u, 2u, 0u, 0u}) put32(v1, v);
    put32(v1, fnv1a(v1));
    logger().take();
    IPluginV2* old = lib.v2->deserializePlugin("v1", v1.data(), v1.size());
    check(old != nullptr && !loggedError(), "V2 reads a format-version-1 blob (engines built before output_size)");
    if (old) {
        Case same = c;
        same.outputSize.clear();
        check(outputIsConstant(static_cast<IPluginV2DynamicExt*>(old), same, {}),
              "the version-1 blob's plugin keeps the input's spatial size");
        old->destroy();
    }
}

}  // namespace trt_test
