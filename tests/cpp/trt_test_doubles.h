// Test doubles for what TensorRT hands a plugin: a logger (through ILoggerFinder) and an
// IExprBuilder with its IDimensionExpr values. TensorRT's IExprBuilder / IDimensionExpr are thin
// non-virtual wrappers over an implementation pointer (apiv::VExprBuilder / VDimensionExpr in
// NvInferImpl.h); the doubles implement those, so the plugin's calls run exactly as in TensorRT.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <NvInferRuntime.h>

namespace trt_test {

class CapturingLogger : public nvinfer1::ILogger {
public:
    void log(Severity severity, nvinfer1::AsciiChar const* msg) noexcept override {
        std::lock_guard<std::mutex> lock(mMutex);
        if (severity <= Severity::kWARNING) {
            mErrors.emplace_back(msg ? msg : "");
            if (mEcho) std::fprintf(stderr, "    [plugin log] %s\n", msg ? msg : "");
        }
    }
    std::vector<std::string> take() {
        std::lock_guard<std::mutex> lock(mMutex);
        std::vector<std::string> out;
        out.swap(mErrors);
        return out;
    }
    void setEcho(bool echo) { mEcho = echo; }

private:
    std::mutex mMutex;
    std::vector<std::string> mErrors;
    bool mEcho = false;
};

class TestLoggerFinder : public nvinfer1::ILoggerFinder {
public:
    explicit TestLoggerFinder(nvinfer1::ILogger* logger) : mLogger(logger) {}
    nvinfer1::ILogger* findLogger() override { return mLogger; }
    ~TestLoggerFinder() override = default;

private:
    nvinfer1::ILogger* mLogger;
};

// A dimension: a constant or a named symbol (e.g. the batch size of a dynamic input).
class TestDimExpr : public nvinfer1::IDimensionExpr, public nvinfer1::apiv::VDimensionExpr {
public:
    TestDimExpr(bool constant, int64_t value, std::string name)
        : mConstant(constant), mValue(value), mName(std::move(name)) {
        mImpl = this;
    }
    ~TestDimExpr() noexcept override = default;
    bool isConstant() const override { return mConstant; }
    int64_t getConstantValue() const override { return mConstant ? mValue : -1; }
    bool isSizeTensor() const override { return false; }
    std::string const& name() const { return mName; }

private:
    bool mConstant;
    int64_t mValue;
    std::string mName;
};

class TestExprBuilder : public nvinfer1::IExprBuilder, public nvinfer1::apiv::VExprBuilder {
public:
    TestExprBuilder() { mImpl = this; }
    ~TestExprBuilder() noexcept override = default;

    nvinfer1::IDimensionExpr const* constant(int64_t value) override {
        mExprs.push_back(std::make_unique<TestDimExpr>(true, value, std::to_string(value)));
        ++mConstantCalls;
        return mExprs.back().get();
    }
    nvinfer1::IDimensionExpr const* operation(nvinfer1::DimensionOperation op, nvinfer1::IDimensionExpr const& a,
                                              nvinfer1::IDimensionExpr const& b) override {
        // The plugin needs no arithmetic; record the call and return a symbol so a test can notice.
        ++mOperationCalls;
        (void)op;
        (void)a;
        (void)b;
        mExprs.push_back(std::make_unique<TestDimExpr>(false, 0, "op"));
        return mExprs.back().get();
    }
    nvinfer1::IDimensionExpr const* declareSizeTensor(int32_t, nvinfer1::IDimensionExpr const&,
                                                      nvinfer1::IDimensionExpr const&) override {
        return nullptr;
    }

    // Helpers for building a plugin's input shapes.
    TestDimExpr const* symbol(std::string name) {
        mExprs.push_back(std::make_unique<TestDimExpr>(false, 0, std::move(name)));
        return mExprs.back().get();
    }
    TestDimExpr const* constantExpr(int64_t value) {
        mExprs.push_back(std::make_unique<TestDimExpr>(true, value, std::to_string(value)));
        return mExprs.back().get();
    }
    int constantCalls() const { return mConstantCalls; }
    int operationCalls() const { return mOperationCalls; }

private:
    std::vector<std::unique_ptr<TestDimExpr>> mExprs;
    int mConstantCalls = 0;
    int mOperationCalls = 0;
};

}  // namespace trt_test
