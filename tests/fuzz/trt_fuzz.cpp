// trt_fuzz: fuzz cases for libturbofno_trt.so, driven the way TensorRT drives it (the harness's
// loader and TensorRT stand-ins, tests/cpp/trt_harness_common.cpp / trt_test_doubles.h; no GPU).
//
//   trt_fuzz --lib libturbofno_trt.so [--op SpectralConv|PointwiseMLP] [--seed S] [--start I] [--count N]
//
// Exit status 1 when a case is ACCEPTED or WRONG (a crash ends the process). ctest runs a slice.
// Case i of seed s is a pure function of (s, i); each prints "@@BEGIN i" and "@@END i kind outcome
// [detail]" (tests/fuzz/campaign.py runs it in chunks and catches crashes and hangs). Kinds:
//   fields  random creator fields (names, types, lengths, null data, duplicates, edge values) into
//           V3 createPlugin (kBUILD / kRUNTIME) and V2 createPlugin; an accepted plugin is then driven
//           through getOutputShapes / getOutputDimensions, supportsFormatCombination, configurePlugin
//           and getWorkspaceSize with random (also invalid) dims and profiles, clone and serialization;
//   blob    V2 deserializePlugin with mutated valid blobs and random bytes;
//   state   V3 createPlugin(kRUNTIME) with mutated serialized fields of a valid plugin.
// --op PointwiseMLP runs the same three kinds against the PointwiseMLP creators (fields
// hidden_activation / activation / turbofno_build_state, 32-byte V2 blobs; accepted plugins driven
// with 1 to 8 random inputs). Case numbering is per op.
// Outcomes: ok (accepted, and its serialized attributes pass core::validateAttrs), rejected (refused
// with a logged error), ACCEPTED (accepted but the attributes are invalid), WRONG (refused silently).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "trt_harness.h"
#include "turbofno/core.h"
#include "turbofno/pointwise_mlp.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

using namespace nvinfer1;
using trt_test::FieldSet;

namespace {

using Rng = std::mt19937_64;

int64_t pick(Rng& rng, std::vector<int64_t> const& v) { return v[rng() % v.size()]; }

std::vector<int64_t> const kEdge = {-(int64_t{1} << 40), -2147483649LL, -1, 0, 1, 2, 3, 4, 7, 16, 2147483647LL,
                                    2147483648LL, int64_t{1} << 40};

// Appends n random fields named from `names`: null data, int32 / int64 edge values, other types with
// random bytes, lengths from negative to 8 (the length counts elements of up to 8 bytes).
void addRandomFields(Rng& rng, FieldSet& f, std::vector<char const*> const& names, int n) {
    for (int i = 0; i < n; ++i) {
        std::string const name = names[rng() % names.size()];
        int32_t const length = static_cast<int32_t>(pick(rng, {-3, -1, 0, 1, 2, 3, 4, 8}));
        switch (rng() % 6) {
            case 0:
                f.addNull(name, length);
                break;
            case 1: {  // int32 values
                std::vector<int32_t> v(static_cast<size_t>(std::max<int32_t>(length, 0)));
                for (auto& e : v) e = static_cast<int32_t>(pick(rng, kEdge));
                f.addInts(name, v);
                break;
            }
            case 2: {  // int64 values
                std::vector<unsigned char> bytes(8 * static_cast<size_t>(std::max<int32_t>(length, 0)));
                for (size_t k = 0; k + 8 <= bytes.size(); k += 8) {
                    int64_t const v = pick(rng, kEdge);
                    std::memcpy(bytes.data() + k, &v, 8);
                }
                f.addRaw(name, bytes, PluginFieldType::kINT64, length);
                break;
            }
            default: {  // some other type, random bytes (length counts elements of up to 8 bytes)
                PluginFieldType const types[] = {PluginFieldType::kFLOAT32, PluginFieldType::kFLOAT16,
                                                 PluginFieldType::kINT8,    PluginFieldType::kCHAR,
                                                 PluginFieldType::kINT32,   PluginFieldType::kUNKNOWN};
                std::vector<unsigned char> bytes(8 * static_cast<size_t>(std::max<int32_t>(length, 0)));
                for (auto& b : bytes) b = static_cast<unsigned char>(rng());
                f.addRaw(name, bytes, types[rng() % 6], length);
                break;
            }
        }
    }
}

// Random creator fields, mostly near the real ones.
FieldSet randomFields(Rng& rng) {
    FieldSet f;
    int const n = static_cast<int>(rng() % 8);
    int const d = 1 + static_cast<int>(rng() % 3);
    bool const nearValid = rng() % 3 != 0;
    if (nearValid) {
        std::vector<int32_t> low(d), high(d);
        for (int j = 0; j < d; ++j) {
            low[j] = 1 + static_cast<int32_t>(rng() % 5);
            high[j] = j + 1 < d ? static_cast<int32_t>(rng() % 4) : 0;
        }
        f.addInts("modes_low", low);
        f.addInts("modes_high", high);
        if (rng() % 2) f.addInts("norm", {static_cast<int32_t>(rng() % 3)});
        if (rng() % 2) f.addInts("separable", {static_cast<int32_t>(rng() % 2)});
        if (rng() % 4 == 0) {
            std::vector<int32_t> out(d);
            for (auto& t : out) t = 1 + static_cast<int32_t>(rng() % 40);
            f.addInts("output_size", out);
        }
    }
    addRandomFields(rng, f, {"modes_low", "modes_high", "norm", "separable", "output_size", "turbofno_build_state", "junk", ""}, n);
    return f;
}

// Whether the attributes a plugin serializes pass the core's check (the plugin promises they do).
bool serializedAttrsValid(PluginFieldCollection const* fc) {
    if (!fc || fc->nbFields < 0 || (fc->nbFields > 0 && !fc->fields)) return false;
    turbofno::core::SpectralConvAttrs a;
    int64_t lowCount = -1, highCount = -1;
    for (int32_t i = 0; i < fc->nbFields; ++i) {
        PluginField const& f = fc->fields[i];
        if (!f.name || f.type != PluginFieldType::kINT32 || (f.length > 0 && !f.data)) continue;
        auto const* v = static_cast<int32_t const*>(f.data);
        std::string const name = f.name;
        if (name == "modes_low" && f.length <= turbofno::core::kMaxRank) {
            lowCount = f.length;
            for (int j = 0; j < f.length; ++j) a.modesLow[j] = v[j];
        } else if (name == "modes_high" && f.length <= turbofno::core::kMaxRank) {
            highCount = f.length;
            for (int j = 0; j < f.length; ++j) a.modesHigh[j] = v[j];
        } else if (name == "norm" && f.length == 1) {
            a.norm = static_cast<turbofno::core::FftNorm>(v[0]);
        } else if (name == "separable" && f.length == 1) {
            a.separable = v[0];
        } else if (name == "output_size") {
            a.outputRank = f.length;
            for (int j = 0; j < f.length && j < turbofno::core::kMaxRank; ++j) a.outputSize[j] = v[j];
        }
    }
    a.rank = static_cast<int32_t>(lowCount);
    return turbofno::core::validateAttrs(a, lowCount, highCount).ok;
}

Dims randomDims(Rng& rng, int rank, bool allowWild) {
    Dims d;
    d.nbDims = rank;
    for (int k = 0; k < rank && k < Dims::MAX_DIMS; ++k)
        d.d[k] = allowWild && rng() % 6 == 0 ? -1 : pick(rng, {0, 1, 2, 3, 4, 5, 8, 9, 16, 33, 64, -2, 1 << 20});
    return d;
}

// Drives an accepted V3 build plugin with random shapes; must never crash.
void driveV3(Rng& rng, IPluginV3* p) {
    auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
    auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    int const nb = 1 + static_cast<int>(rng() % 4);
    DataType const types[] = {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kBF16};
    if (build) {
        trt_test::TestExprBuilder eb;
        DimsExprs in[4], out[2];
        for (int i = 0; i < nb; ++i) {
            in[i].nbDims = static_cast<int32_t>(rng() % 7);
            for (int k = 0; k < in[i].nbDims; ++k)
                in[i].d[k] = rng() % 4 == 0 ? static_cast<IDimensionExpr const*>(eb.symbol("s"))
                                            : eb.constantExpr(pick(rng, {0, 1, 2, 3, 5, 8, 16, 2 + int64_t(rng() % 40)}));
        }
        build->getOutputShapes(in, nb, nullptr, 0, out, 1 + static_cast<int>(rng() % 2), eb);
        DataType dt[4], ot[2];
        for (auto& t : dt) t = types[rng() % 4];
        build->getOutputDataTypes(ot, 1, dt, nb);
        DynamicPluginTensorDesc din[4], dout;
        int const rank = 3 + static_cast<int>(rng() % 3);
        for (int i = 0; i < nb; ++i) {
            din[i].desc = PluginTensorDesc{randomDims(rng, i == 0 ? rank : rank + 1 - (i == 2 ? rank : 0), true),
                                           types[rng() % 4], TensorFormat::kLINEAR, -1.0F};
            din[i].min = randomDims(rng, din[i].desc.dims.nbDims, false);
            din[i].opt = din[i].min;
            din[i].max = randomDims(rng, din[i].desc.dims.nbDims, false);
        }
        dout.desc = PluginTensorDesc{randomDims(rng, rank, true), din[0].desc.type, TensorFormat::kLINEAR, -1.0F};
        dout.min = dout.opt = dout.max = randomDims(rng, rank, false);
        for (int pos = 0; pos <= nb; ++pos) build->supportsFormatCombination(pos, din, nb, 1);
        build->configurePlugin(din, nb, &dout, 1);
        build->getWorkspaceSize(din, nb, &dout, 1);
    }
    if (rt) {
        PluginTensorDesc in[4], out;
        for (int i = 0; i < nb; ++i) in[i] = PluginTensorDesc{randomDims(rng, 3 + static_cast<int>(rng() % 3), false),
                                                              types[rng() % 4], TensorFormat::kLINEAR, -1.0F};
        out = in[0];
        rt->onShapeChange(in, nb, &out, 1);
        FieldSet again = FieldSet::copyOf(rt->getFieldsToSerialize());
        (void)again;
    }
    if (IPluginV3* copy = p->clone()) delete copy;
}

void driveV2(Rng& rng, IPluginV2DynamicExt* p) {
    trt_test::TestExprBuilder eb;
    int const nb = 1 + static_cast<int>(rng() % 4);
    DimsExprs in[4];
    for (int i = 0; i < nb; ++i) {
        in[i].nbDims = static_cast<int32_t>(rng() % 7);
        for (int k = 0; k < in[i].nbDims; ++k) in[i].d[k] = eb.constantExpr(pick(rng, {0, 1, 2, 3, 5, 8, 16, 33}));
    }
    p->getOutputDimensions(static_cast<int32_t>(rng() % 2), in, nb, eb);
    DynamicPluginTensorDesc din[4], dout;
    for (int i = 0; i < nb; ++i) {
        din[i].desc = PluginTensorDesc{randomDims(rng, 3 + static_cast<int>(rng() % 3), true), DataType::kFLOAT,
                                       TensorFormat::kLINEAR, -1.0F};
        din[i].min = din[i].opt = din[i].max = randomDims(rng, din[i].desc.dims.nbDims, false);
    }
    dout.desc = din[0].desc;
    dout.min = dout.opt = dout.max = din[0].max;
    p->configurePlugin(din, nb, &dout, 1);
    PluginTensorDesc pin[4];
    for (int i = 0; i < nb; ++i) pin[i] = PluginTensorDesc{din[i].max, DataType::kFLOAT, TensorFormat::kLINEAR, -1.0F};
    p->getWorkspaceSize(pin, nb, &pin[0], 1);
    std::vector<unsigned char> blob(p->getSerializationSize());
    if (!blob.empty()) p->serialize(blob.data());
    if (IPluginV2DynamicExt* copy = p->clone()) copy->destroy();
}

// A valid V2 blob, mutated: 1 in 5 becomes random bytes (length below randomMax), else 1 to 4 edits
// (a byte flipped, a truncation, a byte inserted).
void mutateBlob(Rng& rng, std::vector<unsigned char>& bytes, size_t randomMax) {
    if (rng() % 5 == 0) {
        bytes.resize(rng() % randomMax);
        for (auto& b : bytes) b = static_cast<unsigned char>(rng());
        return;
    }
    int const edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
        size_t const at = rng() % bytes.size();
        switch (rng() % 3) {
            case 0: bytes[at] ^= static_cast<unsigned char>(1 + rng() % 255); break;
            case 1: bytes.resize(at); break;
            default: bytes.insert(bytes.begin() + static_cast<long>(at), static_cast<unsigned char>(rng())); break;
        }
    }
}

// Valid serialized V3 fields, one entry mutated: a byte flipped, another length, type or null data.
void mutateFields(Rng& rng, FieldSet& saved) {
    auto& entries = saved.entries();
    if (!entries.empty()) {
        auto& e = entries[rng() % entries.size()];
        switch (rng() % 4) {
            case 0:
                if (!e.bytes.empty()) e.bytes[rng() % e.bytes.size()] ^= static_cast<unsigned char>(1 + rng() % 255);
                break;
            case 1: e.length = static_cast<int32_t>(pick(rng, {-1, 0, 1, 2, 3, 4, 100})); break;
            case 2: e.type = rng() % 2 ? PluginFieldType::kFLOAT32 : PluginFieldType::kINT64; break;
            default: e.null = true; break;
        }
        if (e.length > 0 && static_cast<size_t>(e.length) * 8 > e.bytes.size()) e.bytes.resize(static_cast<size_t>(e.length) * 8);
    }
}

struct Outcome {
    char const* kind;
    std::string outcome;
    std::string detail;
};

// After an attempt: "rejected" only if the plugin said why.
std::string rejection() { return trt_test::loggedError() ? "rejected" : "WRONG"; }

Outcome fieldsCase(Rng& rng, trt_test::PluginLibrary& lib) {
    FieldSet f = randomFields(rng);
    trt_test::logger().take();
    TensorRTPhase const phase = rng() % 2 ? TensorRTPhase::kBUILD : TensorRTPhase::kRUNTIME;
    IPluginV3* p = lib.v3->createPlugin("fuzz", f.collection(), phase);
    Outcome o{"fields", "", ""};
    if (p) {
        auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        bool const valid = rt && serializedAttrsValid(rt->getFieldsToSerialize());
        o.outcome = valid ? "ok" : "ACCEPTED";
        if (!valid) o.detail = "V3 accepted fields whose attributes are invalid";
        if (valid && phase == TensorRTPhase::kBUILD) driveV3(rng, p);
        delete p;
    } else {
        o.outcome = rejection();
        if (o.outcome == "WRONG") o.detail = "V3 createPlugin refused without logging why";
    }
    trt_test::logger().take();
    IPluginV2* p2 = lib.v2->createPlugin("fuzz", f.collection());
    if (p2) {
        driveV2(rng, static_cast<IPluginV2DynamicExt*>(p2));
        p2->destroy();
    } else if (rejection() == "WRONG" && o.outcome != "ACCEPTED") {
        o.outcome = "WRONG";
        o.detail = "V2 createPlugin refused without logging why";
    }
    trt_test::logger().take();
    return o;
}

// A valid plugin's V2 blob or V3 serialized fields, mutated.
Outcome stateCase(Rng& rng, trt_test::PluginLibrary& lib, bool blob) {
    FieldSet valid;
    int const d = 1 + static_cast<int>(rng() % 3);
    std::vector<int32_t> low(d, 3), high(d, 1);
    high.back() = 0;
    valid.addInts("modes_low", low);
    valid.addInts("modes_high", high);
    valid.addInts("norm", {0});
    valid.addInts("separable", {static_cast<int32_t>(rng() % 2)});
    Outcome o{blob ? "blob" : "state", "", ""};
    trt_test::logger().take();
    if (blob) {
        IPluginV2* src = lib.v2->createPlugin("fuzz", valid.collection());
        if (!src) return {"blob", "WRONG", "a valid V2 plugin could not be created"};
        std::vector<unsigned char> bytes(src->getSerializationSize());
        src->serialize(bytes.data());
        src->destroy();
        mutateBlob(rng, bytes, 200);
        IPluginV2* back = lib.v2->deserializePlugin("fuzz", bytes.empty() ? nullptr : bytes.data(), bytes.size());
        if (back) {
            o.outcome = "ok";  // a mutation the checksum cannot see (e.g. none) or an equivalent blob
            driveV2(rng, static_cast<IPluginV2DynamicExt*>(back));
            back->destroy();
        } else {
            o.outcome = rejection();
            if (o.outcome == "WRONG") o.detail = "V2 deserializePlugin refused without logging why";
        }
        return o;
    }
    IPluginV3* src = lib.v3->createPlugin("fuzz", valid.collection(), TensorRTPhase::kBUILD);
    if (!src) return {"state", "WRONG", "a valid V3 plugin could not be created"};
    auto* rt = static_cast<IPluginV3OneRuntime*>(src->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    FieldSet saved = FieldSet::copyOf(rt->getFieldsToSerialize());
    delete src;
    mutateFields(rng, saved);
    IPluginV3* back = lib.v3->createPlugin("fuzz", saved.collection(), TensorRTPhase::kRUNTIME);
    if (back) {
        auto* brt = static_cast<IPluginV3OneRuntime*>(back->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        bool const ok = brt && serializedAttrsValid(brt->getFieldsToSerialize());
        o.outcome = ok ? "ok" : "ACCEPTED";
        if (!ok) o.detail = "V3 accepted mutated serialized fields with invalid attributes";
        delete back;
    } else {
        o.outcome = rejection();
        if (o.outcome == "WRONG") o.detail = "V3 createPlugin(kRUNTIME) refused without logging why";
    }
    return o;
}

// ---- PointwiseMLP ---------------------------------------------------------------------------------

FieldSet randomMlpFields(Rng& rng) {
    FieldSet f;
    if (rng() % 3 != 0) {  // near valid
        if (rng() % 2) f.addInts("hidden_activation", {static_cast<int32_t>(rng() % 6)});
        if (rng() % 2) f.addInts("activation", {static_cast<int32_t>(rng() % 6)});
        if (rng() % 4 == 0) f.addInts("turbofno_build_state", {0, 0, static_cast<int32_t>(3 + rng() % 6)});
    }
    addRandomFields(rng, f, {"hidden_activation", "activation", "turbofno_build_state", "modes_low", "junk", ""},
                    static_cast<int>(rng() % 5));
    return f;
}

// The attributes a PointwiseMLP plugin serializes must pass core::validateMlpAttrs (both are always written).
bool serializedMlpAttrsValid(PluginFieldCollection const* fc) {
    if (!fc || fc->nbFields < 0 || (fc->nbFields > 0 && !fc->fields)) return false;
    turbofno::core::PointwiseMlpAttrs a;
    int seen = 0;
    for (int32_t i = 0; i < fc->nbFields; ++i) {
        PluginField const& f = fc->fields[i];
        if (!f.name || f.type != PluginFieldType::kINT32 || f.length != 1 || !f.data) continue;
        int32_t const v = *static_cast<int32_t const*>(f.data);
        if (std::strcmp(f.name, "hidden_activation") == 0) a.hiddenActivation = static_cast<turbofno::core::Activation>(v), ++seen;
        if (std::strcmp(f.name, "activation") == 0) a.activation = static_cast<turbofno::core::Activation>(v), ++seen;
    }
    return seen == 2 && turbofno::core::validateMlpAttrs(a).ok;
}

// Random, mostly near-valid MLP input dims: nb inputs, x of spatial rank 0..3.
void randomMlpDims(Rng& rng, int nb, Dims* dims, bool allowWild) {
    int64_t const n = pick(rng, {1, 2, 3}), cin = pick(rng, {1, 2, 4}), ch = pick(rng, {1, 3, 8}), cout = pick(rng, {1, 2, 5});
    int const sr = static_cast<int>(rng() % 4);
    for (int i = 0; i < nb; ++i) {
        Dims& d = dims[i];
        switch (i) {
            case 0: case 5:
                d.nbDims = 2 + sr;
                d.d[0] = n;
                d.d[1] = i == 0 ? cin : cout;
                for (int k = 0; k < sr; ++k) d.d[2 + k] = 3 + k;
                break;
            case 1: d.nbDims = 2, d.d[0] = ch, d.d[1] = cin; break;
            case 3: d.nbDims = 2, d.d[0] = cout, d.d[1] = ch; break;
            case 2: d.nbDims = 1, d.d[0] = ch; break;
            default: d.nbDims = 1, d.d[0] = cout; break;
        }
        if (rng() % 5 == 0) d = randomDims(rng, static_cast<int>(rng() % 5), allowWild);  // break it
    }
}

void driveMlp(Rng& rng, IPluginV3* p3, IPluginV2DynamicExt* p2) {
    int const nb = 1 + static_cast<int>(rng() % 8);
    DataType const types[] = {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kBF16};
    Dims dims[8];
    randomMlpDims(rng, nb, dims, false);
    trt_test::TestExprBuilder eb;
    DimsExprs in[8], out[2];
    for (int i = 0; i < nb; ++i) {
        in[i].nbDims = dims[i].nbDims;
        for (int k = 0; k < dims[i].nbDims; ++k)
            in[i].d[k] = rng() % 4 == 0 ? static_cast<IDimensionExpr const*>(eb.symbol("s")) : eb.constantExpr(dims[i].d[k]);
    }
    DynamicPluginTensorDesc din[8], dout;
    DataType const t = types[rng() % 4];
    for (int i = 0; i < nb; ++i) {
        din[i].desc = PluginTensorDesc{dims[i], rng() % 8 ? t : types[rng() % 4], TensorFormat::kLINEAR, -1.0F};
        din[i].min = din[i].opt = din[i].max = dims[i];
        if (rng() % 4 == 0 && dims[i].nbDims > 0) din[i].desc.dims.d[0] = -1, din[i].max.d[0] += 1;
    }
    Dims y = dims[0];
    if (nb > 3 && y.nbDims >= 2 && dims[3].nbDims >= 1) y.d[1] = dims[3].d[0];
    dout.desc = PluginTensorDesc{y, t, TensorFormat::kLINEAR, -1.0F};
    dout.min = dout.opt = dout.max = y;
    PluginTensorDesc pin[8];
    for (int i = 0; i < nb; ++i) pin[i] = din[i].desc, pin[i].dims = dims[i];
    if (p3) {
        auto* build = static_cast<IPluginV3OneBuild*>(p3->getCapabilityInterface(PluginCapabilityType::kBUILD));
        auto* rt = static_cast<IPluginV3OneRuntime*>(p3->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        build->getOutputShapes(in, nb, nullptr, 0, out, 1 + static_cast<int>(rng() % 2), eb);
        for (int pos = 0; pos <= nb; ++pos) build->supportsFormatCombination(pos, din, nb, 1);
        build->configurePlugin(din, nb, &dout, 1);
        build->getWorkspaceSize(din, nb, &dout, 1);
        rt->onShapeChange(pin, nb, &dout.desc, 1);
        FieldSet again = FieldSet::copyOf(rt->getFieldsToSerialize());
        if (IPluginV3* copy = p3->clone()) delete copy;
    }
    if (p2) {
        p2->getOutputDimensions(static_cast<int32_t>(rng() % 2), in, nb, eb);
        for (int pos = 0; pos <= nb; ++pos) p2->supportsFormatCombination(pos, pin, nb, 1);
        p2->configurePlugin(din, nb, &dout, 1);
        p2->getWorkspaceSize(pin, nb, &dout.desc, 1);
        std::vector<unsigned char> blob(p2->getSerializationSize());
        if (!blob.empty()) p2->serialize(blob.data());
        if (IPluginV2DynamicExt* copy = p2->clone()) copy->destroy();
    }
}

Outcome mlpFieldsCase(Rng& rng, trt_test::PluginLibrary& lib) {
    FieldSet f = randomMlpFields(rng);
    trt_test::logger().take();
    TensorRTPhase const phase = rng() % 2 ? TensorRTPhase::kBUILD : TensorRTPhase::kRUNTIME;
    IPluginV3* p = lib.mlpV3->createPlugin("fuzz", f.collection(), phase);
    Outcome o{"fields", "", ""};
    if (p) {
        auto* rt = static_cast<IPluginV3OneRuntime*>(p->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        bool const valid = rt && serializedMlpAttrsValid(rt->getFieldsToSerialize());
        o.outcome = valid ? "ok" : "ACCEPTED";
        if (!valid) o.detail = "MLP V3 accepted fields whose attributes are invalid";
        if (valid) driveMlp(rng, p, nullptr);
        delete p;
    } else {
        o.outcome = rejection();
        if (o.outcome == "WRONG") o.detail = "MLP V3 createPlugin refused without logging why";
    }
    trt_test::logger().take();
    IPluginV2* p2 = lib.mlpV2->createPlugin("fuzz", f.collection());
    if (p2) {
        driveMlp(rng, nullptr, static_cast<IPluginV2DynamicExt*>(p2));
        p2->destroy();
    } else if (rejection() == "WRONG" && o.outcome != "ACCEPTED") {
        o.outcome = "WRONG";
        o.detail = "MLP V2 createPlugin refused without logging why";
    }
    trt_test::logger().take();
    return o;
}

Outcome mlpStateCase(Rng& rng, trt_test::PluginLibrary& lib, bool blob) {
    FieldSet valid;
    valid.addInts("hidden_activation", {static_cast<int32_t>(rng() % 6)});
    valid.addInts("activation", {static_cast<int32_t>(rng() % 6)});
    Outcome o{blob ? "blob" : "state", "", ""};
    trt_test::logger().take();
    if (blob) {
        IPluginV2* src = lib.mlpV2->createPlugin("fuzz", valid.collection());
        if (!src) return {"blob", "WRONG", "a valid MLP V2 plugin could not be created"};
        std::vector<unsigned char> bytes(src->getSerializationSize());
        src->serialize(bytes.data());
        src->destroy();
        mutateBlob(rng, bytes, 64);
        IPluginV2* back = lib.mlpV2->deserializePlugin("fuzz", bytes.empty() ? nullptr : bytes.data(), bytes.size());
        if (back) {
            o.outcome = "ok";
            driveMlp(rng, nullptr, static_cast<IPluginV2DynamicExt*>(back));
            back->destroy();
        } else {
            o.outcome = rejection();
            if (o.outcome == "WRONG") o.detail = "MLP V2 deserializePlugin refused without logging why";
        }
        return o;
    }
    IPluginV3* src = lib.mlpV3->createPlugin("fuzz", valid.collection(), TensorRTPhase::kBUILD);
    if (!src) return {"state", "WRONG", "a valid MLP V3 plugin could not be created"};
    FieldSet saved = FieldSet::copyOf(
        static_cast<IPluginV3OneRuntime*>(src->getCapabilityInterface(PluginCapabilityType::kRUNTIME))->getFieldsToSerialize());
    delete src;
    mutateFields(rng, saved);
    IPluginV3* back = lib.mlpV3->createPlugin("fuzz", saved.collection(), TensorRTPhase::kRUNTIME);
    if (back) {
        auto* brt = static_cast<IPluginV3OneRuntime*>(back->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        bool const ok = brt && serializedMlpAttrsValid(brt->getFieldsToSerialize());
        o.outcome = ok ? "ok" : "ACCEPTED";
        if (!ok) o.detail = "MLP V3 accepted mutated serialized fields with invalid attributes";
        delete back;
    } else {
        o.outcome = rejection();
        if (o.outcome == "WRONG") o.detail = "MLP V3 createPlugin(kRUNTIME) refused without logging why";
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    std::string lib, op = "SpectralConv";
    uint64_t seed = 20261129;
    long start = 0, count = 1000;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string const a = argv[i];
        if (a == "--lib") lib = argv[i + 1];
        else if (a == "--op") op = argv[i + 1];
        else if (a == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
        else if (a == "--start") start = std::strtol(argv[i + 1], nullptr, 10);
        else if (a == "--count") count = std::strtol(argv[i + 1], nullptr, 10);
    }
    trt_test::PluginLibrary plugins;
    if (lib.empty() || (op != "SpectralConv" && op != "PointwiseMLP") || !trt_test::loadPluginLibrary(lib, plugins)) {
        std::fprintf(stderr, "usage: %s --lib libturbofno_trt.so [--op SpectralConv|PointwiseMLP] [--seed S] [--start I] [--count N]\n", argv[0]);
        return 2;
    }
    long bad = 0;
    for (long i = start; i < start + count; ++i) {
        std::printf("@@BEGIN %ld\n", i);
        std::fflush(stdout);
        Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(i));
        bool const mlp = op == "PointwiseMLP";
        Outcome const o = i % 3 == 0 ? (mlp ? mlpFieldsCase(rng, plugins) : fieldsCase(rng, plugins))
                                     : (mlp ? mlpStateCase(rng, plugins, i % 3 == 1) : stateCase(rng, plugins, i % 3 == 1));
        std::printf("@@END %ld %s %s %s\n", i, o.kind, o.outcome.c_str(), o.detail.c_str());
        std::fflush(stdout);
        bad += o.outcome == "ok" || o.outcome == "rejected" ? 0 : 1;
    }
    std::printf("%ld case(s) from %ld, seed %llu: %ld finding(s)\n", count, start, static_cast<unsigned long long>(seed), bad);
    return bad ? 1 : 0;
}
