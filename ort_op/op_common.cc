// See op_common.h. Uses the ORT C API only (no exceptions cross it).
#include "op_common.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <vector>

namespace turbofno {
namespace ort {
namespace {

std::atomic<const OrtApi*> gApi{nullptr};
std::atomic<uint32_t> gApiVersion{0};

// Frees an ORT-owned object on scope exit.
struct TypeShapeGuard {
    OrtTensorTypeAndShapeInfo* p = nullptr;
    ~TypeShapeGuard() {
        if (p) api()->ReleaseTensorTypeAndShapeInfo(p);
    }
};

// ORT does not expose "has attribute"; a missing optional attribute is the error whose text says so.
bool isMissingAttribute(const std::string& msg) { return msg.find("No attribute") != std::string::npos; }

// `required` false: a missing attribute leaves `values` empty.
// The type of attribute `name` when it is a FLOATS, INT, FLOAT or STRING attribute; nullptr otherwise
// (absent, or INTS). ORT has no "attribute type" call: each getter succeeds only for its own type.
const char* otherAttrType(const OrtKernelInfo* info, const char* name) {
    const OrtApi* a = api();
    auto ok = [a](OrtStatus* st) {
        if (!st) return true;
        a->ReleaseStatus(st);
        return false;
    };
    size_t floats = 0;
    if (ok(a->KernelInfoGetAttributeArray_float(info, name, nullptr, &floats)) && floats > 0) return "FLOATS";
    int64_t i = 0;
    if (ok(a->KernelInfoGetAttribute_int64(info, name, &i))) return "INT";
    float f = 0;
    if (ok(a->KernelInfoGetAttribute_float(info, name, &f))) return "FLOAT";
    size_t chars = 0;
    if (ok(a->KernelInfoGetAttribute_string(info, name, nullptr, &chars))) return "STRING";
    return nullptr;
}

OrtStatus* readIntsAttr(const OrtKernelInfo* info, const NodeState& node, const char* name,
                        std::vector<int64_t>* values, bool required = true) {
    size_t size = 0;
    values->clear();
    if (OrtStatus* st = api()->KernelInfoGetAttributeArray_int64(info, name, nullptr, &size)) {
        const std::string msg = takeMessage(st);
        if (isMissingAttribute(msg) && !required) return nullptr;
        if (isMissingAttribute(msg)) return nodeError(node.name, std::string("required attribute '") + name + "' (INTS) is missing");
        return nodeError(node.name, std::string("attribute '") + name + "' must be INTS: " + msg);
    }
    values->assign(size, 0);
    if (size == 0) {
        // ORT reads the ints of an attribute of another type as an empty list: name the real type
        // (an optional attribute of the wrong type must not pass for an absent one).
        if (const char* other = otherAttrType(info, name)) {
            return nodeError(node.name, std::string("attribute '") + name + "' must be INTS, got " + other);
        }
        return nullptr;
    }
    if (OrtStatus* st = api()->KernelInfoGetAttributeArray_int64(info, name, values->data(), &size)) {
        return nodeError(node.name, std::string("attribute '") + name + "': " + takeMessage(st));
    }
    return nullptr;
}

// int64 attribute -> the int32 field of SpectralConvAttrs (TensorRT narrows the same way).
OrtStatus* narrow(const NodeState& node, const std::string& what, int64_t v, int32_t* out) {
    if (v < INT32_MIN || v > INT32_MAX) {
        return nodeError(node.name, what + " = " + std::to_string(v) + " is out of the int32 range");
    }
    *out = static_cast<int32_t>(v);
    return nullptr;
}

// --- OrtCustomOp callbacks shared by every EP ---

const char* ORT_API_CALL opName(const OrtCustomOp*) { return core::kOpType; }
size_t ORT_API_CALL inputCount(const OrtCustomOp*) { return 4; }  // x, weight, bias?, skip_weight? (version 2)
size_t ORT_API_CALL outputCount(const OrtCustomOp*) { return 1; }
// UNDEFINED = any tensor type; the output takes the inputs' type. Unsupported types are rejected
// in prepareRun with a message naming the node, instead of ORT's generic "no kernel found".
ONNXTensorElementDataType ORT_API_CALL anyType(const OrtCustomOp*, size_t) {
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}
// x (input 0) is dynamically typed; weight, bias and skip_weight have the op's declared parameter type.
ONNXTensorElementDataType ORT_API_CALL typedInput(const OrtCustomOp* op, size_t index) {
    if (index == 0) return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    return static_cast<const SpectralConvOp*>(op)->paramType;
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL inputCharacteristic(const OrtCustomOp*, size_t index) {
    return index >= 2 ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL outputCharacteristic(const OrtCustomOp*, size_t) {
    return INPUT_OUTPUT_REQUIRED;
}
OrtMemType ORT_API_CALL inputMemoryType(const OrtCustomOp*, size_t) { return OrtMemTypeDefault; }
int ORT_API_CALL variadicMinArity(const OrtCustomOp*) { return 1; }
int ORT_API_CALL variadicHomogeneity(const OrtCustomOp*) { return 1; }
int ORT_API_CALL startVersion(const OrtCustomOp*) { return core::kOpMinVersion; }
int ORT_API_CALL endVersion(const OrtCustomOp*) { return core::kOpVersion; }

// Output shape inference: [N, Cout, S_1..S_d] where known. It never fails: a node whose shapes are
// invalid is reported, with its name, when the kernel runs.
OrtStatusPtr ORT_API_CALL inferOutputShape(const OrtCustomOp*, OrtShapeInferContext* ctx) {
    const OrtApi* a = api();
    size_t n = 0;
    if (OrtStatus* st = a->ShapeInferContext_GetInputCount(ctx, &n)) {
        a->ReleaseStatus(st);
        return nullptr;
    }
    if (n < 2) return nullptr;
    InputDesc x, w;
    std::vector<std::string> xNames;  // x's symbolic dim names (copied: they live in the released info)
    for (size_t i = 0; i < 2; ++i) {
        InputDesc& d = i == 0 ? x : w;
        // Owned by the context (ORT's own lite-op wrapper releases ownership too): not freed here.
        struct { OrtTensorTypeAndShapeInfo* p = nullptr; } info;
        if (OrtStatus* st = a->ShapeInferContext_GetInputTypeShape(ctx, i, &info.p)) {
            a->ReleaseStatus(st);
            return nullptr;
        }
        size_t rank = 0;
        OrtStatus* st = a->GetTensorElementType(info.p, &d.type);
        if (!st) st = a->GetDimensionsCount(info.p, &rank);
        if (!st) {
            d.dims.assign(rank, -1);
            if (rank) st = a->GetDimensions(info.p, d.dims.data(), rank);
        }
        if (!st && i == 0 && rank) {
            std::vector<const char*> sym(rank, nullptr);
            st = a->GetSymbolicDimensions(info.p, sym.data(), rank);
            if (!st) {
                for (const char* s : sym) xNames.emplace_back(s ? s : "");
            }
        }
        if (st) {
            a->ReleaseStatus(st);
            return nullptr;
        }
    }
    if (x.dims.size() < 3 || w.dims.size() != x.dims.size() + 1) return nullptr;  // rank errors: reported at run time

    int64_t separable = 0;
    const OrtOpAttr* attr = nullptr;
    if (OrtStatus* st = a->ShapeInferContext_GetAttribute(ctx, core::kAttrSeparable, &attr)) {
        a->ReleaseStatus(st);
        attr = nullptr;
    }
    if (attr) {
        size_t got = 0;
        if (OrtStatus* st = a->ReadOpAttr(attr, ORT_OP_ATTR_INT, &separable, sizeof(separable), &got)) {
            a->ReleaseStatus(st);
            return nullptr;
        }
    }
    // output_size (optional INTS): fixed output spatial dims.
    std::vector<int64_t> outSize;
    attr = nullptr;
    if (OrtStatus* st = a->ShapeInferContext_GetAttribute(ctx, core::kAttrOutputSize, &attr)) {
        a->ReleaseStatus(st);
        attr = nullptr;
    }
    if (attr) {
        size_t got = 0;
        if (OrtStatus* st = a->ReadOpAttr(attr, ORT_OP_ATTR_INTS, nullptr, 0, &got)) a->ReleaseStatus(st);
        outSize.assign(got / sizeof(int64_t), 0);
        if (!outSize.empty()) {
            if (OrtStatus* st = a->ReadOpAttr(attr, ORT_OP_ATTR_INTS, outSize.data(), got, &got)) {
                a->ReleaseStatus(st);
                return nullptr;
            }
        }
        if (outSize.size() != x.dims.size() - 2) return nullptr;  // invalid: reported at kernel creation
    }
    std::vector<int64_t> yDims = x.dims;
    yDims[1] = separable ? x.dims[1] : w.dims[1];
    for (size_t j = 0; j < outSize.size(); ++j) yDims[2 + j] = outSize[j];
    std::vector<std::string> xNamesY = xNames;  // the output channels are not x's
    if (!separable && xNamesY.size() > 1) xNamesY[1].clear();
    std::vector<std::string> symStore;
    std::vector<const char*> ySym = outputDimNames(yDims, xNamesY, &symStore);

    TypeShapeGuard out;
    OrtStatus* st = a->CreateTensorTypeAndShapeInfo(&out.p);
    if (!st) st = a->SetTensorElementType(out.p, x.type);
    if (!st) st = a->SetDimensions(out.p, yDims.data(), yDims.size());
    if (!st) st = a->SetSymbolicDimensions(out.p, ySym.data(), ySym.size());
    if (!st) st = a->ShapeInferContext_SetOutputTypeShape(ctx, 0, out.p);
    if (st) a->ReleaseStatus(st);
    return nullptr;
}

}  // namespace

const OrtApi* api() { return gApi.load(std::memory_order_acquire); }

std::string takeMessage(OrtStatus* st) {
    std::string msg = api()->GetErrorMessage(st);
    api()->ReleaseStatus(st);
    return msg;
}
uint32_t apiVersion() { return gApiVersion.load(std::memory_order_acquire); }
void setApi(const OrtApi* a, uint32_t version) {
    gApiVersion.store(version, std::memory_order_release);
    gApi.store(a, std::memory_order_release);
}

OrtStatus* opError(const char* opType, const std::string& node, const std::string& problem, OrtErrorCode code) {
    const std::string msg = std::string(opType) + " node '" + node + "': " + problem;
    return api()->CreateStatus(code, msg.c_str());
}

OrtStatus* nodeError(const std::string& node, const std::string& problem, OrtErrorCode code) {
    return opError(core::kOpType, node, problem, code);
}

std::string readNodeName(const OrtKernelInfo* info) {
    std::string name;
    size_t size = 0;
    if (OrtStatus* st = api()->KernelInfo_GetNodeName(info, nullptr, &size)) {
        api()->ReleaseStatus(st);
    } else if (size > 0) {
        std::vector<char> buf(size, '\0');
        if (OrtStatus* st2 = api()->KernelInfo_GetNodeName(info, buf.data(), &size)) {
            api()->ReleaseStatus(st2);
        } else {
            name.assign(buf.data(), strnlen(buf.data(), buf.size()));
        }
    }
    return name;
}

const char* dtypeName(ONNXTensorElementDataType t) {
    switch (t) {
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return "float32";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return "float16";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return "bfloat16";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: return "float64";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return "int32";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return "int64";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: return "int8";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: return "uint8";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL: return "bool";
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING: return "string";
        default: return "an unsupported type";
    }
}

OrtStatus* readIntAttribute(const OrtKernelInfo* info, const char* opType, const std::string& nodeName, const char* name,
                            int64_t dflt, int64_t* value) {
    if (OrtStatus* st = api()->KernelInfoGetAttribute_int64(info, name, value)) {
        const std::string msg = takeMessage(st);
        if (isMissingAttribute(msg)) {
            *value = dflt;
            return nullptr;
        }
        return opError(opType, nodeName, std::string("attribute '") + name + "' must be an INT: " + msg);
    }
    return nullptr;
}

OrtStatus* describeInput(OrtKernelContext* ctx, const char* opType, const std::string& nodeName, size_t index,
                         const char* name, InputDesc* desc) {
    if (OrtStatus* st = api()->KernelContext_GetInput(ctx, index, &desc->value)) {
        return opError(opType, nodeName, std::string("cannot read input '") + name + "': " + takeMessage(st));
    }
    if (!desc->value) return nullptr;  // omitted optional input
    int isTensor = 0;
    if (OrtStatus* st = api()->IsTensor(desc->value, &isTensor)) return opError(opType, nodeName, takeMessage(st));
    if (!isTensor) return opError(opType, nodeName, std::string("input '") + name + "' must be a tensor");
    TypeShapeGuard info;
    if (OrtStatus* st = api()->GetTensorTypeAndShape(desc->value, &info.p)) return opError(opType, nodeName, takeMessage(st));
    size_t rank = 0;
    OrtStatus* st = api()->GetTensorElementType(info.p, &desc->type);
    if (!st) st = api()->GetDimensionsCount(info.p, &rank);
    if (!st) {
        desc->dims.assign(rank, 0);
        if (rank) st = api()->GetDimensions(info.p, desc->dims.data(), rank);
    }
    if (st) return opError(opType, nodeName, std::string("input '") + name + "': " + takeMessage(st));
    return nullptr;
}



OrtStatus* nodeError(const std::string& node, const std::string& problem) {
    return nodeError(node, problem, ORT_INVALID_ARGUMENT);
}

OrtStatus* readNode(const OrtKernelInfo* info, NodeState* node) {
    node->name = readNodeName(info);

    std::vector<int64_t> low, high, outSize;
    if (OrtStatus* st = readIntsAttr(info, *node, core::kAttrModesLow, &low)) return st;
    if (OrtStatus* st = readIntsAttr(info, *node, core::kAttrModesHigh, &high)) return st;
    if (OrtStatus* st = readIntsAttr(info, *node, core::kAttrOutputSize, &outSize, false)) return st;
    int64_t norm = 0, separable = 0, activation = 0;
    if (OrtStatus* st = readIntAttribute(info, core::kOpType, node->name, core::kAttrNorm, 0, &norm)) return st;
    if (OrtStatus* st = readIntAttribute(info, core::kOpType, node->name, core::kAttrSeparable, 0, &separable)) return st;
    if (OrtStatus* st = readIntAttribute(info, core::kOpType, node->name, core::kAttrActivation, 0, &activation)) return st;

    core::SpectralConvAttrs attrs;
    const size_t d = low.size();
    if (d >= 1 && d <= static_cast<size_t>(core::kMaxRank) && high.size() == d) {
        attrs.rank = static_cast<int32_t>(d);
        for (size_t j = 0; j < d; ++j) {
            const std::string idx = "[" + std::to_string(j) + "]";
            if (OrtStatus* st = narrow(*node, std::string(core::kAttrModesLow) + idx, low[j], &attrs.modesLow[j])) return st;
            if (OrtStatus* st = narrow(*node, std::string(core::kAttrModesHigh) + idx, high[j], &attrs.modesHigh[j])) return st;
        }
    }
    // A length other than d (more than 3 included) is core::validateAttrs's to report, after the modes.
    attrs.outputRank = static_cast<int32_t>(std::min<size_t>(outSize.size(), INT32_MAX));
    for (size_t j = 0; j < outSize.size() && j < static_cast<size_t>(core::kMaxRank); ++j) {
        const std::string what = std::string(core::kAttrOutputSize) + "[" + std::to_string(j) + "]";
        if (OrtStatus* st = narrow(*node, what, outSize[j], &attrs.outputSize[j])) return st;
    }
    int32_t norm32 = 0;
    if (OrtStatus* st = narrow(*node, core::kAttrNorm, norm, &norm32)) return st;
    if (OrtStatus* st = narrow(*node, core::kAttrSeparable, separable, &attrs.separable)) return st;
    attrs.norm = static_cast<core::FftNorm>(norm32);
    int32_t activation32 = 0;
    if (OrtStatus* st = narrow(*node, core::kAttrActivation, activation, &activation32)) return st;
    attrs.activation = static_cast<core::Activation>(activation32);

    const core::Status v = core::validateAttrs(attrs, static_cast<int64_t>(low.size()), static_cast<int64_t>(high.size()));
    if (!v.ok) return nodeError(node->name, v.message);
    node->attrs = attrs;
    return nullptr;
}

OrtStatus* prepareRun(OrtKernelContext* ctx, const NodeState& node, unsigned supported, const char* epName,
                      RunTensors* run) {
    size_t count = 0;
    if (OrtStatus* st = api()->KernelContext_GetInputCount(ctx, &count)) return nodeError(node.name, takeMessage(st));
    if (count < 2 || count > 4) {
        return nodeError(node.name, "expects inputs (x, weight[, bias[, skip_weight]]), got " + std::to_string(count));
    }
    InputDesc x, w, b, sk;
    if (OrtStatus* st = describeInput(ctx, core::kOpType, node.name, 0, "x", &x)) return st;
    if (OrtStatus* st = describeInput(ctx, core::kOpType, node.name, 1, "weight", &w)) return st;
    if (count >= 3) {
        if (OrtStatus* st = describeInput(ctx, core::kOpType, node.name, 2, "bias", &b)) return st;
    }
    if (count == 4) {
        if (OrtStatus* st = describeInput(ctx, core::kOpType, node.name, 3, "skip_weight", &sk)) return st;
    }
    if (!x.value || !w.value) return nodeError(node.name, "inputs x and weight are required");

    core::DataType dtype;
    unsigned bit = 0;
    switch (x.type) {
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: dtype = core::DataType::kFloat32; bit = kSupportFloat; break;
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: dtype = core::DataType::kFloat16; bit = kSupportFloat16; break;
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: dtype = core::DataType::kBFloat16; bit = kSupportBFloat16; break;
        default:
            return nodeError(node.name, std::string("x has dtype ") + dtypeName(x.type) +
                                            "; SpectralConv supports float32, float16 and bfloat16");
    }
    if (!(supported & bit)) {
        return nodeError(node.name, std::string("x has dtype ") + dtypeName(x.type) + ", which the " + epName +
                                        " kernel does not support" +
                                        (bit == kSupportBFloat16 ? " (bfloat16 needs the CUDA execution provider)" : ""));
    }
    if (w.type != x.type) {
        return nodeError(node.name, std::string("mixed dtypes: x is ") + dtypeName(x.type) + " but weight is " +
                                        dtypeName(w.type) + "; all inputs must share one type");
    }
    if (b.value && b.type != x.type) {
        return nodeError(node.name, std::string("mixed dtypes: x is ") + dtypeName(x.type) + " but bias is " +
                                        dtypeName(b.type) + "; all inputs must share one type");
    }
    if (sk.value && sk.type != x.type) {
        return nodeError(node.name, std::string("mixed dtypes: x is ") + dtypeName(x.type) + " but skip_weight is " +
                                        dtypeName(sk.type) + "; all inputs must share one type");
    }

    core::SpectralConvParams& p = run->params;
    p = core::SpectralConvParams{};
    p.attrs = node.attrs;
    p.dtype = dtype;
    run->onnxType = x.type;
    int64_t biasDimsBuf[1] = {0};
    const int64_t* biasDims = nullptr;
    int biasRank = 0;
    if (b.value) {
        biasRank = static_cast<int>(b.dims.size());
        biasDims = biasRank ? b.dims.data() : biasDimsBuf;  // non-null: the bias is present
    }
    int64_t skipDimsBuf[1] = {0};
    const int64_t* skipDims = nullptr;
    int skipRank = 0;
    if (sk.value) {
        skipRank = static_cast<int>(sk.dims.size());
        skipDims = skipRank ? sk.dims.data() : skipDimsBuf;  // non-null: the skip weight is present
    }
    const core::Status st = core::inferShape(node.attrs, x.dims.data(), static_cast<int>(x.dims.size()), w.dims.data(),
                                             static_cast<int>(w.dims.size()), biasDims, biasRank, &p.shape, skipDims,
                                             skipRank);
    if (!st.ok) return nodeError(node.name, st.message);

    int64_t yDims[core::kMaxRank + 2];
    core::outputDims(p.shape, yDims);
    OrtValue* y = nullptr;
    if (OrtStatus* e = api()->KernelContext_GetOutput(ctx, 0, yDims, p.shape.rank + 2, &y)) {
        return nodeError(node.name, "cannot allocate the output: " + takeMessage(e), ORT_FAIL);
    }
    void* xData = nullptr;
    void* wData = nullptr;
    void* bData = nullptr;
    void* sData = nullptr;
    OrtStatus* e = api()->GetTensorMutableData(const_cast<OrtValue*>(x.value), &xData);
    if (!e) e = api()->GetTensorMutableData(const_cast<OrtValue*>(w.value), &wData);
    if (!e && b.value) e = api()->GetTensorMutableData(const_cast<OrtValue*>(b.value), &bData);
    if (!e && sk.value) e = api()->GetTensorMutableData(const_cast<OrtValue*>(sk.value), &sData);
    if (!e) e = api()->GetTensorMutableData(y, &p.y);
    if (e) return nodeError(node.name, takeMessage(e), ORT_FAIL);
    if (!xData || !wData || (b.value && !bData) || (sk.value && !sData) || !p.y) {
        return nodeError(node.name, "a tensor has no data", ORT_FAIL);
    }
    p.x = xData;
    p.weight = wData;
    p.bias = bData;
    p.skipWeight = sData;
    return nullptr;
}

void fillCommonOp(OrtCustomOp* op) {
    std::memset(op, 0, sizeof(*op));
    op->version = kOrtApiVersion;
    op->GetName = opName;
    op->GetInputType = anyType;
    op->GetInputTypeCount = inputCount;
    op->GetOutputType = anyType;
    op->GetOutputTypeCount = outputCount;
    op->GetInputCharacteristic = inputCharacteristic;
    op->GetOutputCharacteristic = outputCharacteristic;
    op->GetInputMemoryType = inputMemoryType;
    op->GetVariadicInputMinArity = variadicMinArity;
    op->GetVariadicInputHomogeneity = variadicHomogeneity;
    op->GetVariadicOutputMinArity = variadicMinArity;
    op->GetVariadicOutputHomogeneity = variadicHomogeneity;
    op->InferOutputShapeFn = inferOutputShape;
    op->GetStartVersion = startVersion;
    op->GetEndVersion = endVersion;
}

std::vector<const OrtCustomOp*> makeTypedOps(const OrtCustomOp& prototype,
                                             std::initializer_list<ONNXTensorElementDataType> paramTypes) {
    static std::mutex mutex;
    static std::deque<SpectralConvOp> store;  // deque: element addresses stay valid as it grows
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<const OrtCustomOp*> ops;
    for (ONNXTensorElementDataType type : paramTypes) {
        store.emplace_back();
        SpectralConvOp& op = store.back();
        static_cast<OrtCustomOp&>(op) = prototype;
        op.paramType = type;
        op.GetInputType = typedInput;
        ops.push_back(&op);
    }
    return ops;
}

std::vector<const char*> outputDimNames(const std::vector<int64_t>& dims, const std::vector<std::string>& xNames,
                                        std::vector<std::string>* store) {
    static std::atomic<unsigned long long> fresh{0};
    store->assign(dims.size(), std::string());
    for (size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] >= 0) continue;
        (*store)[k] = k < xNames.size() && !xNames[k].empty() ? xNames[k] : "turbofno_dim" + std::to_string(fresh++);
    }
    std::vector<const char*> names;
    for (const std::string& n : *store) names.push_back(n.c_str());
    return names;
}

}  // namespace ort
}  // namespace turbofno
