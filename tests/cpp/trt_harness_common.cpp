#include <dlfcn.h>

#include <cstring>
#include <random>

#include "trt_harness.h"

namespace trt_test {

using namespace nvinfer1;

Tally& tally() {
    static Tally t;
    return t;
}

CapturingLogger& logger() {
    static CapturingLogger l;
    return l;
}

bool check(bool condition, std::string const& what) {
    if (condition) {
        ++tally().passed;
    } else {
        ++tally().failed;
        std::printf("  FAIL: %s\n", what.c_str());
        std::fflush(stdout);
    }
    return condition;
}

bool loggedError(std::string const& needle) {
    std::vector<std::string> const msgs = logger().take();
    for (std::string const& m : msgs) {
        if (needle.empty() || m.find(needle) != std::string::npos) return true;
    }
    if (!msgs.empty() && !needle.empty()) {
        std::printf("    (logged instead: %s)\n", msgs.front().c_str());
    }
    return false;
}

bool loadPluginLibrary(std::string const& path, PluginLibrary& lib) {
    // RTLD_LOCAL like TensorRT's loader: nothing of the library leaks into the global namespace.
    lib.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle) {
        std::printf("cannot dlopen %s: %s\n", path.c_str(), dlerror());
        return false;
    }
    using SetLoggerFinder = void (*)(ILoggerFinder*);
    using GetCreators = IPluginCreatorInterface* const* (*)(int32_t&);
    auto setFinder = reinterpret_cast<SetLoggerFinder>(dlsym(lib.handle, "setLoggerFinder"));
    auto getCreators = reinterpret_cast<GetCreators>(dlsym(lib.handle, "getCreators"));
    if (!setFinder || !getCreators) {
        std::printf("%s lacks setLoggerFinder or getCreators\n", path.c_str());
        return false;
    }
    static TestLoggerFinder finder(&logger());
    setFinder(&finder);
    int32_t n = 0;
    IPluginCreatorInterface* const* creators = getCreators(n);
    if (!creators || n <= 0) {
        std::printf("getCreators returned no creators\n");
        return false;
    }
    lib.nbCreators = n;
    for (int32_t i = 0; i < n; ++i) {
        // TensorRT tells the creator kinds apart by getInterfaceInfo().kind, then casts.
        InterfaceInfo const info = creators[i]->getInterfaceInfo();
        auto take = [&](auto*& slot, auto* creator) {
            if (slot != nullptr) {
                std::printf("two creators of kind '%s' named '%s'\n", info.kind, creator->getPluginName());
                return false;
            }
            slot = creator;
            return true;
        };
        bool ok = true;
        if (std::strcmp(info.kind, "PLUGIN CREATOR_V3ONE") == 0) {
            auto* c = static_cast<IPluginCreatorV3One*>(creators[i]);
            bool const mlp = std::strcmp(c->getPluginName(), "PointwiseMLP") == 0;
            ok = mlp ? take(lib.mlpV3, c) : take(lib.v3, c);
        } else if (std::strcmp(info.kind, "PLUGIN CREATOR_V1") == 0) {
            auto* c = static_cast<IPluginCreator*>(creators[i]);
            bool const mlp = std::strcmp(c->getPluginName(), "PointwiseMLP") == 0;
            ok = mlp ? take(lib.mlpV2, c) : take(lib.v2, c);
        } else {
            std::printf("unknown creator kind '%s'\n", info.kind);
            return false;
        }
        if (!ok) return false;
    }
    return lib.v3 != nullptr && lib.v2 != nullptr && lib.mlpV3 != nullptr && lib.mlpV2 != nullptr;
}

void corruptBlobSweep(std::string const& label, std::vector<unsigned char> const& blob,
                      std::function<IPluginV2*(void const*, size_t)> const& deserialize, int masks, int randomBlobs,
                      uint32_t seed) {
    logger().take();
    int accepted = 0, silent = 0, tried = 0;
    auto tryBlob = [&](void const* data, size_t n) {
        ++tried;
        IPluginV2* q = deserialize(data, n);
        if (q) {
            ++accepted;
            q->destroy();
        }
        if (!loggedError()) ++silent;
    };
    for (size_t n = 0; n < blob.size(); ++n) tryBlob(blob.data(), n);  // every truncation
    std::vector<unsigned char> longer = blob;
    longer.push_back(0);
    tryBlob(longer.data(), longer.size());
    tryBlob(nullptr, blob.size());
    unsigned char const kMasks[] = {0x01, 0xFF, 0x80};
    for (size_t i = 0; i < blob.size(); ++i) {  // every byte, `masks` corruptions each
        for (int m = 0; m < masks && m < 3; ++m) {
            std::vector<unsigned char> bad = blob;
            bad[i] ^= kMasks[m];
            tryBlob(bad.data(), bad.size());
        }
    }
    std::mt19937 rng(seed);
    for (int k = 0; k < randomBlobs; ++k) {  // random garbage of the right length
        std::vector<unsigned char> bad(blob.size());
        for (unsigned char& b : bad) b = static_cast<unsigned char>(rng());
        tryBlob(bad.data(), bad.size());
    }
    check(accepted == 0, label + ": all " + std::to_string(tried) + " truncated/corrupted blobs rejected (" +
                             std::to_string(accepted) + " accepted)");
    check(silent == 0, label + ": every rejection logged an error (" + std::to_string(silent) + " silent)");
}

// ---- FieldSet -------------------------------------------------------------------------------------

void FieldSet::addInts(std::string const& name, std::vector<int32_t> const& values, PluginFieldType type) {
    Entry e{name, {}, type, static_cast<int32_t>(values.size())};
    if (type == PluginFieldType::kINT64) {
        for (int32_t v : values) {
            int64_t const w = v;
            unsigned char const* b = reinterpret_cast<unsigned char const*>(&w);
            e.bytes.insert(e.bytes.end(), b, b + sizeof w);
        }
    } else {
        unsigned char const* b = reinterpret_cast<unsigned char const*>(values.data());
        e.bytes.assign(b, b + sizeof(int32_t) * values.size());
    }
    mEntries.push_back(std::move(e));
}

void FieldSet::addRaw(std::string const& name, std::vector<unsigned char> bytes, PluginFieldType type, int32_t length) {
    mEntries.push_back(Entry{name, std::move(bytes), type, length});
}

void FieldSet::addNull(std::string const& name, int32_t length) {
    Entry e{name, {}, PluginFieldType::kINT32, length};
    e.null = true;
    mEntries.push_back(std::move(e));
}

FieldSet FieldSet::copyOf(PluginFieldCollection const* fc) {
    FieldSet out;
    if (!fc) return out;
    for (int32_t i = 0; i < fc->nbFields; ++i) {
        PluginField const& f = fc->fields[i];
        size_t elem = 1;
        switch (f.type) {
            case PluginFieldType::kINT32:
            case PluginFieldType::kFLOAT32: elem = 4; break;
            case PluginFieldType::kINT64:
            case PluginFieldType::kFLOAT64: elem = 8; break;
            case PluginFieldType::kINT16:
            case PluginFieldType::kFLOAT16:
            case PluginFieldType::kBF16: elem = 2; break;
            default: elem = 1; break;
        }
        Entry e{f.name ? f.name : "", {}, f.type, f.length};
        if (f.data && f.length > 0) {
            unsigned char const* b = static_cast<unsigned char const*>(f.data);
            e.bytes.assign(b, b + elem * static_cast<size_t>(f.length));
        } else {
            e.null = f.data == nullptr;
        }
        out.mEntries.push_back(std::move(e));
    }
    return out;
}

PluginFieldCollection const* FieldSet::collection() {
    mFields.clear();
    for (Entry const& e : mEntries) {
        void const* data = e.null ? nullptr : (e.bytes.empty() ? static_cast<void const*>(&e.bytes) : e.bytes.data());
        mFields.emplace_back(e.name.c_str(), data, e.type, e.length);
    }
    mCollection.nbFields = static_cast<int32_t>(mFields.size());
    mCollection.fields = mFields.data();
    return &mCollection;
}

// ---- Case -----------------------------------------------------------------------------------------

FieldSet Case::fields() const {
    // TensorRT's ONNX parser: INTS -> kINT32 array, INT -> one kINT32, absent attribute -> no field.
    FieldSet f;
    f.addInts("modes_low", modesLow);
    f.addInts("modes_high", modesHigh);
    if (writeNorm) f.addInts("norm", {norm});
    if (writeSeparable) f.addInts("separable", {separable});
    if (!outputSize.empty()) {
        std::vector<int32_t> t(outputSize.begin(), outputSize.end());
        f.addInts("output_size", t);
    }
    if (activation != 0) f.addInts("activation", {activation});
    return f;
}

Dims Case::xDims(int64_t batch) const {
    Dims d{};
    d.nbDims = 2 + rank();
    d.d[0] = batch;
    d.d[1] = cin;
    for (int j = 0; j < rank(); ++j) d.d[2 + j] = spatial[static_cast<size_t>(j)];
    return d;
}

Dims Case::weightDims() const {
    Dims d{};
    d.nbDims = 3 + rank();
    d.d[0] = cin;
    d.d[1] = separable ? 1 : cout;
    for (int j = 0; j < rank(); ++j) d.d[2 + j] = modesLow[static_cast<size_t>(j)] + modesHigh[static_cast<size_t>(j)];
    d.d[2 + rank()] = 2;
    return d;
}

Dims Case::biasDims() const {
    Dims d{};
    d.nbDims = 1;
    d.d[0] = cout;
    return d;
}

Dims Case::skipDims() const {
    Dims d{};
    d.nbDims = 2;
    d.d[0] = cout;
    d.d[1] = cin;
    return d;
}

void Case::inputDims(int64_t batch, Dims* dims) const {
    dims[0] = xDims(batch);
    dims[1] = weightDims();
    dims[2] = biasDims();
    dims[3] = skipDims();
}

Dims Case::outDims(int64_t batch) const {
    Dims d = xDims(batch);
    d.d[1] = cout;
    for (size_t j = 0; j < outputSize.size(); ++j) d.d[2 + j] = outputSize[j];
    return d;
}

}  // namespace trt_test
