// A tiny C shim over the core API for the GPU verification and benchmark scripts (ctypes): build a
// validated parameter set once, then launch on any stream with device pointers. Not part of the
// shipped libraries; built by tests/gpu/build.sh.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

#include "turbofno/core.h"
#include "turbofno/cuda.h"

using namespace turbofno;

namespace turbofno {
namespace cuda {
void setAlgorithmOverride(int mode);  // plugins/cuda/plan.h (internal header, not on this include path)
void setMixRingOverride(int mode);    // plugins/cuda/plan.h
void setMixFlatOverride(int mode);    // plugins/cuda/plan.h
void setMixFlatGeometryOverride(int batch, int omWarps);  // plugins/cuda/plan.h
void setSplitStepsOverride(int steps);  // plugins/cuda/plan_separable.h
void setFftPassOverride(int mode);    // plugins/cuda/plan_separable.h
void setFftDirectOverride(int mode);  // plugins/cuda/plan_separable.h
void setFftLongOverride(int mode);    // plugins/cuda/plan_separable.h
void setFftColumn3dOverride(int mode);  // plugins/cuda/plan_separable.h
void setFftPlaneOverride(int mode);   // plugins/cuda/plan_separable.h
void setPassTcOverride(int mode);     // plugins/cuda/plan.h
void setSkipTcOverride(int mode);     // plugins/cuda/plan.h
void setSkipCoLaunchOverride(int mode);  // plugins/cuda/plan.h
void setMixInC2ROverride(int mode);   // plugins/cuda/plan.h
void setPdlOverride(int mode);        // plugins/cuda/pdl.cuh
}  // namespace cuda
}  // namespace turbofno

namespace {
void setError(char* err, int len, const std::string& msg) {
    if (err && len > 0) std::snprintf(err, static_cast<size_t>(len), "%s", msg.c_str());
}
}  // namespace

extern "C" {

// Validates the call exactly as the adapters do; returns a handle (nullptr and a message on error).
// outsize: the output_size attribute (d values) or nullptr (output size = input size); sdims: the
// fused layer's skip_weight dims [Cout, Cin] or nullptr; activation: core::Activation.
void* tfno_create(int d, const int64_t* xdims, const int64_t* wdims, const int64_t* bdims, const int32_t* low,
                  const int32_t* high, int norm, int separable, int dtype, const int32_t* outsize, const int64_t* sdims,
                  int activation, char* err, int errlen) {
    core::SpectralConvAttrs attrs;
    attrs.rank = d;
    for (int j = 0; j < d && j < core::kMaxRank; ++j) {
        attrs.modesLow[j] = low[j];
        attrs.modesHigh[j] = high[j];
        if (outsize) attrs.outputSize[j] = outsize[j];
    }
    attrs.outputRank = outsize ? d : 0;
    attrs.activation = static_cast<core::Activation>(activation);
    attrs.norm = static_cast<core::FftNorm>(norm);
    attrs.separable = separable;
    core::Status st = core::validateAttrs(attrs, d, d);
    if (!st.ok) {
        setError(err, errlen, st.message);
        return nullptr;
    }
    auto* p = new (std::nothrow) core::SpectralConvParams();
    if (!p) return nullptr;
    p->attrs = attrs;
    p->dtype = static_cast<core::DataType>(dtype);
    st = core::inferShape(attrs, xdims, d + 2, wdims, d + 3, bdims, bdims ? 1 : 0, &p->shape, sdims, sdims ? 2 : 0);
    if (!st.ok) {
        setError(err, errlen, st.message);
        delete p;
        return nullptr;
    }
    return p;
}

size_t tfno_workspace_bytes(void* handle) {
    auto* p = static_cast<core::SpectralConvParams*>(handle);
    return core::cudaWorkspaceBytes(p->shape, p->dtype);
}

// Returns the cudaError_t of core::launchCuda (0 = success).
int tfno_launch(void* handle, const void* x, const void* w, const void* b, const void* skip, void* y, void* ws,
                size_t wsBytes, void* stream) {
    auto* p = static_cast<core::SpectralConvParams*>(handle);
    p->x = x;
    p->weight = w;
    p->bias = b;
    p->skipWeight = skip;
    p->y = y;
    return static_cast<int>(core::launchCuda(*p, ws, wsBytes, static_cast<cudaStream_t>(stream)));
}

// Which algorithm the next launches use: -1 the planner's choice, 0 fused plane, 1 separable.
void tfno_set_algo(int mode) { cuda::setAlgorithmOverride(mode); }

// Tuning switches of the next launches (-1 automatic, 0 off, 1 on): programmatic dependent launch
// between our kernels (pdl.cuh), the mixing kernel's weight ring (mixing.cuh) and the fused layer's
// skip GEMM on tensor cores (skip_gemm.cuh; off: the fp32 FMA kernel).
void tfno_set_pdl(int mode) { cuda::setPdlOverride(mode); }
void tfno_set_mix_ring(int mode) { cuda::setMixRingOverride(mode); }
void tfno_set_mix_c2r(int mode) { cuda::setMixInC2ROverride(mode); }
void tfno_set_mix_flat(int mode) { cuda::setMixFlatOverride(mode); }
// the flat mixing kernel's batch items per thread and warps along o * Kall + m (0: the planner's)
void tfno_set_mix_flat_geometry(int batch, int omWarps) { cuda::setMixFlatGeometryOverride(batch, omWarps); }
void tfno_set_split_steps(int steps) { cuda::setSplitStepsOverride(steps); }
// the separable algorithm's FFT R2C / C2R passes (fft_pass.cuh): -1 the planner's (whenever possible), 0 never, 1 whenever possible
void tfno_set_fft_pass(int mode) { cuda::setFftPassOverride(mode); }
// the row FFTs' first / last stage straight from x / to y (1) or staged through shared memory (0)
void tfno_set_fft_direct(int mode) { cuda::setFftDirectOverride(mode); }
// the four-step FFT of 1D layers' long axes (fft_pass_long.cuh): -1 the planner's, 0 never, 1 whenever possible
void tfno_set_fft_long(int mode) { cuda::setFftLongOverride(mode); }
// the column FFTs on 3D layers' leading axes: -1 the planner's, 0 never (DFT passes), 1 wherever the length allows
void tfno_set_fft_col3d(int mode) { cuda::setFftColumn3dOverride(mode); }
// the plane kernels of small 2D layers (fft_plane.cuh): -1 the planner's, 0 never, 1 wherever possible
void tfno_set_fft_plane(int mode) { cuda::setFftPlaneOverride(mode); }
void tfno_set_pass_tc(int mode) { cuda::setPassTcOverride(mode); }
void tfno_set_skip_tc(int mode) { cuda::setSkipTcOverride(mode); }
// the skip GEMM and a radix-2 R2C as one grid (skip_r2c_colaunch.cuh): -1 the planner's, 0 never, 1 where possible
void tfno_set_skip_colaunch(int mode) { cuda::setSkipCoLaunchOverride(mode); }

void tfno_destroy(void* handle) { delete static_cast<core::SpectralConvParams*>(handle); }

}  // extern "C"
