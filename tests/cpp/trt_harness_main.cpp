// trt_harness: drives libturbofno_trt.so exactly the way TensorRT does, without TensorRT.
//
//   trt_harness --lib PATH [--cpu-only | --gpu-only] [--require-gpu] [--case-file FILE]... [--verbose]
//
// Without --case-file it runs the built-in checks: the CPU part (unless --gpu-only), the GPU part
// when a CUDA device exists (unless --cpu-only). Without a device the GPU part prints "SKIPPED: ...";
// with --gpu-only the run then exits 77 (ctest's SKIP_RETURN_CODE), with --require-gpu it fails.
// Random data and corrupted blobs derive from TURBOFNO_TEST_SEED (printed; repeated on failure).
// A case file (written by tests/python/test_trt_onnx_fields.py from an ONNX node) holds:
//   name <text>
//   dtype float32|float16|bfloat16
//   field <name> INT32|INT64 <count> <values...>      (as TensorRT's ONNX parser passes them)
//   shape x|weight|bias <dims...>
//   data <dir>               x.bin weight.bin [bias.bin] expected.bin, float64 little-endian
//   expect_error <substring> creation or shape inference must fail and log this
//   op PointwiseMLP          the case is for the PointwiseMLP plugin (default SpectralConv): its
//                            "shape <name> <dims...>" lines (x, w1, b1, w2, b2, r, g) list the inputs in
//                            TensorRT's positional order; no data line (random inputs vs the harness's
//                            float64 reference on a GPU)
// Exit code 0 when every check passed.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "test_support.h"
#include "trt_harness.h"

namespace trt_test {

using namespace nvinfer1;

namespace {

std::vector<double> readDoubles(std::string const& path, size_t count, bool* ok) {
    std::vector<double> v(count);
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(double)));
    *ok = *ok && in.gcount() == static_cast<std::streamsize>(count * sizeof(double));
    return v;
}

int64_t product(std::vector<int64_t> const& d) {
    int64_t n = 1;
    for (int64_t v : d) n *= v;
    return n;
}

}  // namespace

int runCaseFile(PluginLibrary& lib, std::string const& path) {
    std::ifstream in(path);
    if (!in) {
        std::printf("cannot read case file %s\n", path.c_str());
        return 2;
    }
    Case c;
    FieldSet fields;
    std::vector<int64_t> shapes[4];  // x, weight, bias, skip_weight
    bool haveBias = false, haveSkip = false;
    std::string dataDir, expectError, op = "SpectralConv";
    std::vector<std::vector<int64_t>> ordered;  // every shape line in file order (PointwiseMLP inputs)
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string key;
        if (!(ls >> key)) continue;
        if (key == "name") {
            std::getline(ls >> std::ws, c.name);
        } else if (key == "dtype") {
            std::string t;
            ls >> t;
            c.type = t == "float16" ? DataType::kHALF : t == "bfloat16" ? DataType::kBF16 : DataType::kFLOAT;
        } else if (key == "field") {
            std::string name, type;
            int32_t count = 0;
            ls >> name >> type >> count;
            std::vector<int32_t> values;
            for (int32_t i = 0; i < count; ++i) {
                long long v = 0;
                ls >> v;
                values.push_back(static_cast<int32_t>(v));
            }
            fields.addInts(name, values, type == "INT64" ? PluginFieldType::kINT64 : PluginFieldType::kINT32);
            if (name == "modes_low") c.modesLow = values;
            if (name == "modes_high") c.modesHigh = values;
            if (name == "norm" && count == 1) c.norm = values[0];
            if (name == "separable" && count == 1) c.separable = values[0];
            if (name == "activation" && count == 1) c.activation = values[0];
            if (name == "output_size") c.outputSize.assign(values.begin(), values.end());
        } else if (key == "op") {
            ls >> op;
        } else if (key == "shape") {
            std::string which;
            ls >> which;
            int const idx = which == "x" ? 0 : which == "weight" ? 1 : which == "bias" ? 2 : 3;
            int64_t v;
            ordered.emplace_back();
            while (ls >> v) ordered.back().push_back(v);
            shapes[idx].insert(shapes[idx].end(), ordered.back().begin(), ordered.back().end());
            haveBias = haveBias || idx == 2;
            haveSkip = haveSkip || idx == 3;
        } else if (key == "data") {
            std::getline(ls >> std::ws, dataDir);
        } else if (key == "expect_error") {
            std::getline(ls >> std::ws, expectError);
        }
    }
    std::printf("[case file %s: %s]\n", path.c_str(), c.name.c_str());
    if (op == "PointwiseMLP") {
        runMlpCase(lib, c.name, c.type, fields, ordered, expectError);
        return 0;
    }
    if (!check(op == "SpectralConv", "case file op is SpectralConv or PointwiseMLP, not '" + op + "'")) return 0;

    if (!expectError.empty()) {
        // Creation (or, when the attributes alone are valid, shape inference) must fail with the message.
        logger().take();
        IPluginV3* p = lib.v3->createPlugin(c.name.c_str(), fields.collection(), TensorRTPhase::kBUILD);
        if (p == nullptr) {
            check(loggedError(expectError), "creation rejected with '" + expectError + "'");
            IPluginV2* q = lib.v2->createPlugin(c.name.c_str(), fields.collection());
            check(q == nullptr && loggedError(expectError), "V2 creation rejected with '" + expectError + "'");
            if (q) q->destroy();
        } else {
            auto* build = static_cast<IPluginV3OneBuild*>(p->getCapabilityInterface(PluginCapabilityType::kBUILD));
            TestExprBuilder eb;
            DimsExprs ins[4];
            int const nb = haveSkip ? 4 : haveBias ? 3 : 2;
            for (int i = 0; i < nb; ++i) {
                ins[i].nbDims = static_cast<int32_t>(shapes[i].size());
                for (size_t k = 0; k < shapes[i].size(); ++k) ins[i].d[k] = eb.constantExpr(shapes[i][k]);
            }
            DimsExprs out{};
            check(build->getOutputShapes(ins, nb, nullptr, 0, &out, 1, eb) != 0 && loggedError(expectError),
                  "shape inference rejected with '" + expectError + "'");
            delete p;
        }
        return 0;
    }

    if (!check(shapes[0].size() >= 3 && shapes[1].size() >= 4, "case file gives x and weight shapes")) return 0;
    c.n = shapes[0][0];
    c.cin = shapes[0][1];
    c.spatial.assign(shapes[0].begin() + 2, shapes[0].end());
    c.cout = c.separable ? c.cin : shapes[1][1];
    c.bias = haveBias;
    c.skip = haveSkip;
    // The test derives Case shapes from the attributes; they must agree with the ONNX shapes.
    Dims const w = c.weightDims();
    bool same = static_cast<size_t>(w.nbDims) == shapes[1].size();
    for (int k = 0; same && k < w.nbDims; ++k) same = w.d[k] == shapes[1][static_cast<size_t>(k)];
    check(same, "weight shape from the ONNX model matches the attributes");
    BuildResult built = buildPhase(lib, c, fields.collection());
    check(built.ok, c.name + ": build phase from ONNX-derived fields");
    if (dataDir.empty() || !built.ok) return 0;
    std::string reason;
    if (!gpuAvailable(&reason)) {
        std::printf("SKIPPED: enqueue of %s (%s)\n", c.name.c_str(), reason.c_str());
        return 0;
    }
    bool ok = true;
    HostInputs data;
    data.x = readDoubles(dataDir + "/x.bin", static_cast<size_t>(product(shapes[0])), &ok);
    data.weight = readDoubles(dataDir + "/weight.bin", static_cast<size_t>(product(shapes[1])), &ok);
    if (haveBias) data.bias = readDoubles(dataDir + "/bias.bin", static_cast<size_t>(product(shapes[2])), &ok);
    if (haveSkip) data.skip = readDoubles(dataDir + "/skip_weight.bin", static_cast<size_t>(product(shapes[3])), &ok);
    std::vector<int64_t> yShape = shapes[0];
    yShape[1] = c.cout;
    for (size_t j = 0; j < c.outputSize.size(); ++j) yShape[2 + j] = c.outputSize[j];
    std::vector<double> expected = readDoubles(dataDir + "/expected.bin", static_cast<size_t>(product(yShape)), &ok);
    if (!check(ok, "case data files readable")) return 0;
    runtimePhase(lib, c, built, &data, &expected);
    return 0;
}

}  // namespace trt_test

int main(int argc, char** argv) {
    using namespace trt_test;
    std::string libPath;
    std::vector<std::string> caseFiles;
    bool cpuOnly = false, gpuOnly = false, requireGpu = false;
    for (int i = 1; i < argc; ++i) {
        std::string const a = argv[i];
        if (a == "--lib" && i + 1 < argc) {
            libPath = argv[++i];
        } else if (a == "--case-file" && i + 1 < argc) {
            caseFiles.push_back(argv[++i]);
        } else if (a == "--cpu-only") {
            cpuOnly = true;
        } else if (a == "--gpu-only") {
            gpuOnly = true;
        } else if (a == "--require-gpu") {
            requireGpu = true;
        } else if (a == "--verbose") {
            logger().setEcho(true);
        } else {
            std::fprintf(stderr, "usage: %s --lib libturbofno_trt.so [--cpu-only | --gpu-only] [--require-gpu] [--case-file F]... [--verbose]\n",
                         argv[0]);
            return 2;
        }
    }
    if (libPath.empty()) {
        std::fprintf(stderr, "--lib is required\n");
        return 2;
    }
    PluginLibrary lib;
    if (!loadPluginLibrary(libPath, lib)) return 1;
    std::printf("loaded %s: %d creators (V3 version \"%s\", V2 version \"%s\"; PointwiseMLP V3 version \"%s\", "
                "V2 version \"%s\")\n",
                libPath.c_str(), lib.nbCreators, lib.v3->getPluginVersion(), lib.v2->getPluginVersion(),
                lib.mlpV3->getPluginVersion(), lib.mlpV2->getPluginVersion());

    tally().seed = turbofno_test::testSeed();

    if (!caseFiles.empty()) {
        for (std::string const& f : caseFiles) {
            if (runCaseFile(lib, f) != 0) return 2;
        }
    } else {
        if (!gpuOnly) {
            runCpuChecks(lib);
            runMlpCpuChecks(lib);
        }
        std::string reason;
        if (cpuOnly) {
            std::printf("GPU checks not run (--cpu-only)\n");
        } else if (gpuAvailable(&reason)) {
            runGpuChecks(lib);
            runMlpGpuChecks(lib);
        } else if (requireGpu) {
            check(false, "GPU required but " + reason);
        } else if (gpuOnly) {
            return turbofno_test::skip("GPU checks (" + reason + ")");  // ctest: Skipped
        } else {
            std::printf("SKIPPED: GPU checks (%s)\n", reason.c_str());
        }
    }
    std::printf("%d checks passed, %d failed\n", tally().passed, tally().failed);
    return turbofno_test::finish(tally().failed, tally().seed);
}
