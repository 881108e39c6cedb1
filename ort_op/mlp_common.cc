// See mlp_common.h. All validation is core::validateMlpAttrs / core::inferMlpShape; this file only
// moves shapes, types and pointers between ORT and the core.
#include "mlp_common.h"

#include <climits>
#include <cstring>

namespace turbofno {
namespace ort {
namespace {

const char* const kInputNames[core::kMlpInputCount] = {"x", "w1", "b1", "w2", "b2", "residual", "gate"};

const char* ORT_API_CALL opName(const OrtCustomOp*) { return core::kMlpOpType; }
size_t ORT_API_CALL inputCount(const OrtCustomOp*) { return core::kMlpInputCount; }
size_t ORT_API_CALL outputCount(const OrtCustomOp*) { return 1; }
ONNXTensorElementDataType ORT_API_CALL anyType(const OrtCustomOp*, size_t) {
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL inputCharacteristic(const OrtCustomOp*, size_t index) {
    const bool required = index == core::kMlpX || index == core::kMlpW1 || index == core::kMlpW2;
    return required ? INPUT_OUTPUT_REQUIRED : INPUT_OUTPUT_OPTIONAL;
}
OrtCustomOpInputOutputCharacteristic ORT_API_CALL outputCharacteristic(const OrtCustomOp*, size_t) {
    return INPUT_OUTPUT_REQUIRED;
}
OrtMemType ORT_API_CALL inputMemoryType(const OrtCustomOp*, size_t) { return OrtMemTypeDefault; }
int ORT_API_CALL variadicMinArity(const OrtCustomOp*) { return 1; }
int ORT_API_CALL variadicHomogeneity(const OrtCustomOp*) { return 1; }
int ORT_API_CALL startVersion(const OrtCustomOp*) { return core::kMlpOpSinceVersion; }
int ORT_API_CALL endVersion(const OrtCustomOp*) { return core::kOpVersion; }

// Dims (and x's symbolic names) of input `index` at shape-inference time; false when unknown.
bool inferInput(OrtShapeInferContext* ctx, size_t index, std::vector<int64_t>* dims, ONNXTensorElementDataType* type,
                std::vector<std::string>* names) {
    const OrtApi* a = api();
    OrtTensorTypeAndShapeInfo* info = nullptr;  // owned by the context
    if (OrtStatus* st = a->ShapeInferContext_GetInputTypeShape(ctx, index, &info)) {
        a->ReleaseStatus(st);
        return false;
    }
    if (!info) return false;
    size_t rank = 0;
    OrtStatus* st = a->GetTensorElementType(info, type);
    if (!st) st = a->GetDimensionsCount(info, &rank);
    if (!st) {
        dims->assign(rank, -1);
        if (rank) st = a->GetDimensions(info, dims->data(), rank);
    }
    if (!st && names && rank) {
        std::vector<const char*> sym(rank, nullptr);
        st = a->GetSymbolicDimensions(info, sym.data(), rank);
        if (!st) {
            for (const char* s : sym) names->emplace_back(s ? s : "");
        }
    }
    if (st) {
        a->ReleaseStatus(st);
        return false;
    }
    return true;
}

// Output shape inference: [N, Cout, *S] (Cout from w2) where known. It never fails: invalid shapes
// are reported, with the node name, when the kernel runs.
OrtStatusPtr ORT_API_CALL inferOutputShape(const OrtCustomOp*, OrtShapeInferContext* ctx) {
    const OrtApi* a = api();
    size_t n = 0;
    if (OrtStatus* st = a->ShapeInferContext_GetInputCount(ctx, &n)) {
        a->ReleaseStatus(st);
        return nullptr;
    }
    if (n <= static_cast<size_t>(core::kMlpW2)) return nullptr;
    std::vector<int64_t> x, w2;
    std::vector<std::string> xNames;
    ONNXTensorElementDataType xType = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED, wType = xType;
    if (!inferInput(ctx, core::kMlpX, &x, &xType, &xNames) || x.size() < 2) return nullptr;
    std::vector<int64_t> y = x;
    y[1] = -1;
    if (inferInput(ctx, core::kMlpW2, &w2, &wType, nullptr) && w2.size() == 2) y[1] = w2[0];
    if (xNames.size() > 1) xNames[1].clear();  // the output channels are not x's
    std::vector<std::string> symStore;
    std::vector<const char*> ySym = outputDimNames(y, xNames, &symStore);

    OrtTensorTypeAndShapeInfo* out = nullptr;
    OrtStatus* st = a->CreateTensorTypeAndShapeInfo(&out);
    if (!st) st = a->SetTensorElementType(out, xType);
    if (!st) st = a->SetDimensions(out, y.data(), y.size());
    if (!st) st = a->SetSymbolicDimensions(out, ySym.data(), ySym.size());
    if (!st) st = a->ShapeInferContext_SetOutputTypeShape(ctx, 0, out);
    if (st) a->ReleaseStatus(st);
    if (out) a->ReleaseTensorTypeAndShapeInfo(out);
    return nullptr;
}

OrtStatus* readActivation(const OrtKernelInfo* info, const MlpNodeState& node, const char* attr, int64_t dflt,
                          core::Activation* out) {
    int64_t v = dflt;
    if (OrtStatus* st = readIntAttribute(info, core::kMlpOpType, node.name, attr, dflt, &v)) return st;
    if (v < INT32_MIN || v > INT32_MAX) {
        return mlpError(node.name, std::string(attr) + " = " + std::to_string(v) + " is out of the int32 range");
    }
    *out = static_cast<core::Activation>(v);  // range: core::validateMlpAttrs
    return nullptr;
}

}  // namespace

OrtStatus* mlpError(const std::string& node, const std::string& problem, OrtErrorCode code) {
    return opError(core::kMlpOpType, node, problem, code);
}

OrtStatus* readMlpNode(const OrtKernelInfo* info, MlpNodeState* node) {
    node->name = readNodeName(info);
    core::PointwiseMlpAttrs attrs;
    if (OrtStatus* st = readActivation(info, *node, core::kAttrHiddenActivation, 1, &attrs.hiddenActivation)) return st;
    if (OrtStatus* st = readActivation(info, *node, core::kAttrActivation, 0, &attrs.activation)) return st;
    const core::Status v = core::validateMlpAttrs(attrs);
    if (!v.ok) return mlpError(node->name, v.message);
    node->attrs = attrs;
    // Whether w1 and w2 are constant initializers: then the CUDA kernel may stage them before its
    // grid-dependency wait (core::PointwiseMlpParams::weightsConstant). A failed query means "not known".
    node->weightsConstant = true;
    for (int k : {core::kMlpW1, core::kMlpW2}) {
        int isConstant = 0;
        const OrtValue* value = nullptr;
        if (OrtStatus* st = api()->KernelInfoGetConstantInput_tensor(info, static_cast<size_t>(k), &isConstant, &value)) {
            api()->ReleaseStatus(st);
            isConstant = 0;
        }
        if (!isConstant) node->weightsConstant = false;
    }
    return nullptr;
}

OrtStatus* prepareMlpRun(OrtKernelContext* ctx, const MlpNodeState& node, unsigned supported, const char* epName,
                         core::PointwiseMlpParams* params) {
    size_t count = 0;
    if (OrtStatus* st = api()->KernelContext_GetInputCount(ctx, &count)) return mlpError(node.name, takeMessage(st));
    if (count <= static_cast<size_t>(core::kMlpW2) || count > static_cast<size_t>(core::kMlpInputCount)) {
        return mlpError(node.name, "expects inputs (x, w1, b1?, w2[, b2?[, residual?[, gate?]]]), got " +
                                       std::to_string(count));
    }
    InputDesc in[core::kMlpInputCount];
    for (size_t k = 0; k < count; ++k) {
        if (OrtStatus* st = describeInput(ctx, core::kMlpOpType, node.name, k, kInputNames[k], &in[k])) return st;
    }
    for (int k : {core::kMlpX, core::kMlpW1, core::kMlpW2}) {
        if (!in[k].value) return mlpError(node.name, std::string("input ") + kInputNames[k] + " is required");
    }

    core::DataType dtype;
    unsigned bit = 0;
    switch (in[core::kMlpX].type) {
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: dtype = core::DataType::kFloat32; bit = kSupportFloat; break;
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: dtype = core::DataType::kFloat16; bit = kSupportFloat16; break;
        case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: dtype = core::DataType::kBFloat16; bit = kSupportBFloat16; break;
        default:
            return mlpError(node.name, std::string("x has dtype ") + dtypeName(in[core::kMlpX].type) +
                                           "; PointwiseMLP supports float32, float16 and bfloat16");
    }
    if (!(supported & bit)) {
        return mlpError(node.name, std::string("x has dtype ") + dtypeName(in[core::kMlpX].type) + ", which the " +
                                       epName + " kernel does not support");
    }
    for (int k = 1; k < core::kMlpInputCount; ++k) {
        if (in[k].value && in[k].type != in[core::kMlpX].type) {
            return mlpError(node.name, std::string("mixed dtypes: x is ") + dtypeName(in[core::kMlpX].type) + " but " +
                                           kInputNames[k] + " is " + dtypeName(in[k].type) +
                                           "; all inputs must share one type");
        }
    }

    // Present inputs get a non-null dims pointer even at rank 0 (nullptr means "absent" to the core).
    static const int64_t kScalarDims[1] = {0};
    const int64_t* dims[core::kMlpInputCount] = {};
    int ranks[core::kMlpInputCount] = {};
    for (int k = 0; k < core::kMlpInputCount; ++k) {
        if (!in[k].value) continue;
        ranks[k] = static_cast<int>(in[k].dims.size());
        dims[k] = ranks[k] ? in[k].dims.data() : kScalarDims;
    }
    core::PointwiseMlpParams& p = *params;
    p = core::PointwiseMlpParams{};
    p.attrs = node.attrs;
    p.dtype = dtype;
    const core::Status st = core::inferMlpShape(dims, ranks, &p.shape);
    if (!st.ok) return mlpError(node.name, st.message);

    int64_t yDims[10];
    core::mlpOutputDims(p.shape, yDims);
    OrtValue* y = nullptr;
    if (OrtStatus* e = api()->KernelContext_GetOutput(ctx, 0, yDims, p.shape.spatialRank + 2, &y)) {
        return mlpError(node.name, "cannot allocate the output: " + takeMessage(e), ORT_FAIL);
    }
    void* data[core::kMlpInputCount] = {};
    for (int k = 0; k < core::kMlpInputCount; ++k) {
        if (!in[k].value) continue;
        if (OrtStatus* e = api()->GetTensorMutableData(const_cast<OrtValue*>(in[k].value), &data[k])) {
            return mlpError(node.name, takeMessage(e), ORT_FAIL);
        }
        if (!data[k]) return mlpError(node.name, std::string("input ") + kInputNames[k] + " has no data", ORT_FAIL);
    }
    if (OrtStatus* e = api()->GetTensorMutableData(y, &p.y)) return mlpError(node.name, takeMessage(e), ORT_FAIL);
    if (!p.y) return mlpError(node.name, "the output has no data", ORT_FAIL);
    p.x = data[core::kMlpX];
    p.w1 = data[core::kMlpW1];
    p.b1 = data[core::kMlpB1];
    p.w2 = data[core::kMlpW2];
    p.b2 = data[core::kMlpB2];
    p.residual = data[core::kMlpResidual];
    p.gate = data[core::kMlpGate];
    return nullptr;
}

void fillMlpCommonOp(OrtCustomOp* op) {
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

}  // namespace ort
}  // namespace turbofno
