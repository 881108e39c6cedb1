// Shared pieces of the TensorRT plugin harness: loading libturbofno_trt.so the way
// IPluginRegistry::loadLibrary does (dlopen + setLoggerFinder + getCreators), field collections
// built the way TensorRT's ONNX parser builds them, test cases, and check bookkeeping.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <NvInferRuntime.h>

#include "trt_test_doubles.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // IPluginV2* is deprecated in TensorRT 10

namespace trt_test {

// ---- bookkeeping -------------------------------------------------------------------------------
struct Tally {
    int passed = 0;
    int failed = 0;
    uint64_t seed = 0;  // TURBOFNO_TEST_SEED (test_support.h): random inputs and corrupted blobs derive from it
};
Tally& tally();
CapturingLogger& logger();
bool check(bool condition, std::string const& what);  // prints FAIL lines, counts
// Drops captured plugin errors and returns whether any contained `needle` (empty: any error at all).
bool loggedError(std::string const& needle = "");

// ---- the library, loaded like TensorRT loads it ---------------------------------------------------
struct PluginLibrary {
    void* handle = nullptr;
    nvinfer1::IPluginCreatorV3One* v3 = nullptr;  // SpectralConv
    nvinfer1::IPluginCreator* v2 = nullptr;
    nvinfer1::IPluginCreatorV3One* mlpV3 = nullptr;  // PointwiseMLP
    nvinfer1::IPluginCreator* mlpV2 = nullptr;
    int nbCreators = 0;
};
// dlopen(path), call setLoggerFinder with the capturing logger, read getCreators and pick the
// creators by their interface kind and plugin name. Returns false (with a message) when anything is
// missing or a (kind, name) pair appears twice.
bool loadPluginLibrary(std::string const& path, PluginLibrary& lib);

// ---- fields as the ONNX parser passes them --------------------------------------------------------
// Owns the data; `collection()` stays valid until the object changes.
class FieldSet {
public:
    void addInts(std::string const& name, std::vector<int32_t> const& values,
                 nvinfer1::PluginFieldType type = nvinfer1::PluginFieldType::kINT32);
    void addRaw(std::string const& name, std::vector<unsigned char> bytes, nvinfer1::PluginFieldType type, int32_t length);
    void addNull(std::string const& name, int32_t length);  // data == nullptr
    // Deep copy of a collection (what TensorRT does when it stores getFieldsToSerialize in a plan).
    static FieldSet copyOf(nvinfer1::PluginFieldCollection const* fc);
    nvinfer1::PluginFieldCollection const* collection();
    size_t size() const { return mEntries.size(); }

    struct Entry {
        std::string name;
        std::vector<unsigned char> bytes;
        nvinfer1::PluginFieldType type;
        int32_t length;
        bool null = false;
    };
    std::vector<Entry>& entries() { return mEntries; }

private:
    std::vector<Entry> mEntries;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

// ---- one SpectralConv problem -----------------------------------------------------------------------
struct Case {
    std::string name;
    std::vector<int32_t> modesLow, modesHigh;
    int32_t norm = 0, separable = 0;
    bool writeNorm = true, writeSeparable = true;  // ONNX attributes may be absent (defaults apply)
    int64_t n = 1, cin = 1, cout = 1;
    std::vector<int64_t> spatial;
    std::vector<int64_t> outputSize;                // output_size attribute (empty: absent, output = spatial)
    bool bias = false;
    bool skip = false;          // fused 1x1 skip weight, input 3 (needs the bias input: positional)
    int32_t activation = 0;     // core::Activation; the field is written when non-zero
    nvinfer1::DataType type = nvinfer1::DataType::kFLOAT;

    int rank() const { return static_cast<int>(spatial.size()); }
    FieldSet fields() const;                        // as the ONNX parser builds them
    nvinfer1::Dims xDims(int64_t batch) const;      // [N, Cin, S...]
    nvinfer1::Dims weightDims() const;              // [Cin, Cout|1, K..., 2]
    nvinfer1::Dims biasDims() const;                // [Cout]
    nvinfer1::Dims skipDims() const;                // [Cout, Cin]
    nvinfer1::Dims outDims(int64_t batch) const;    // [N, Cout, T...] (T = outputSize, else S)
    int nbInputs() const { return skip ? 4 : bias ? 3 : 2; }
    // x at `batch`, weight, bias, skip: the first nbInputs() are the inputs.
    void inputDims(int64_t batch, nvinfer1::Dims* dims) const;
};

// core::cudaWorkspaceBytes for the case at one batch size (computed by the harness, not the plugin).
size_t coreWorkspaceBytes(Case const& c, int64_t batch);
// core::cudaWorkspaceBound for the case's shape at batch maxBatch (what a profile up to it reserves).
size_t coreWorkspaceBound(Case const& c, int64_t maxBatch);
// core::cudaCheckSupported's message for the case at one batch size (empty: supported).
std::string coreSupport(Case const& c, int64_t batch);

// ---- checks (trt_harness_cpu.cpp / trt_harness_gpu.cpp) -------------------------------------------
void runCpuChecks(PluginLibrary& lib);
void runOutputSizeChecks(PluginLibrary& lib);  // trt_harness_output_size.cpp
// configurePlugin refuses profiles the CUDA kernel cannot run (trt_harness_support.cpp).
void checkBuildRefusal(PluginLibrary& lib);
bool gpuAvailable(std::string* reason);
void runGpuChecks(PluginLibrary& lib);
// A case read from a file (written by tests/python/test_trt_onnx_fields.py); see trt_harness_main.cpp.
int runCaseFile(PluginLibrary& lib, std::string const& path);

// Common flows used by both the built-in cases and case files.
// Build-phase checks on one case; returns the plugin's serialized fields (V3) and blob (V2).
struct BuildResult {
    bool ok = false;
    FieldSet v3Fields;
    std::vector<unsigned char> v2Blob;
    size_t v3Workspace = 0, v2Workspace = 0;
};
BuildResult buildPhase(PluginLibrary& lib, Case const& c, nvinfer1::PluginFieldCollection const* fc);
// Runtime phase on the GPU: recreate from the serialized state, enqueue, compare with `expected`
// (or with the float64 reference when `expected` is empty; inputs random when `inputs` is empty).
struct HostInputs {
    std::vector<double> x, weight, bias, skip;  // already representable in the case's type
};
bool runtimePhase(PluginLibrary& lib, Case const& c, BuildResult& built, HostInputs const* inputs,
                  std::vector<double> const* expected);

// ---- device data helpers (trt_harness_flow.cpp) -------------------------------------------------------
size_t elemBytes(nvinfer1::DataType t);                       // 4 (fp32) or 2
double roundTo(nvinfer1::DataType t, double v);               // v rounded to the type
std::vector<unsigned char> encode(nvinfer1::DataType t, std::vector<double> const& v);
std::vector<double> decode(nvinfer1::DataType t, std::vector<unsigned char> const& raw);
double tolerance(nvinfer1::DataType t);                       // max|err| / max|ref| accepted per type
int64_t count(nvinfer1::Dims const& d);                       // element count
// Prints max|err|/max|ref| of one enqueue result and checks it against tolerance(type).
bool compareOutputs(std::string const& name, nvinfer1::DataType type, char const* who, std::vector<double> const& got,
                    std::vector<double> const& want);
// Feeds `deserialize` every truncation of `blob`, one byte more, null data, every byte flipped
// (masks 0x01, 0x80, 0xFF; `masks` picks how many) and `randomBlobs` random blobs of its length (from
// `seed`); checks that none is accepted and every rejection logs an error. `label` names the checks.
void corruptBlobSweep(std::string const& label, std::vector<unsigned char> const& blob,
                      std::function<nvinfer1::IPluginV2*(void const*, size_t)> const& deserialize, int masks,
                      int randomBlobs, uint32_t seed);
struct DeviceBuffer {                                         // cudaMalloc'd bytes (ptr null on failure)
    void* ptr = nullptr;
    size_t bytes = 0;
    explicit DeviceBuffer(size_t n);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;
};

// ---- PointwiseMLP (trt_harness_mlp.cpp) ---------------------------------------------------------------
void runMlpCpuChecks(PluginLibrary& lib);  // creators, fields, shapes, formats, workspace, serialization
void runMlpGpuChecks(PluginLibrary& lib);  // build -> serialize -> runtime -> enqueue vs float64 reference
// A PointwiseMLP case file ("op PointwiseMLP"): `inputs` are the input shapes in TensorRT's positional
// order. With `expectError`, creation or shape inference must fail logging it; otherwise the build
// phase runs from `fields` and, on a GPU, both interfaces enqueue random data vs the float64 reference.
void runMlpCase(PluginLibrary& lib, std::string const& name, nvinfer1::DataType type, FieldSet& fields,
                std::vector<std::vector<int64_t>> const& inputs, std::string const& expectError);

}  // namespace trt_test
