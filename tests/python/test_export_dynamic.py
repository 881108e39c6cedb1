"""Dynamic spatial axes: export once, run at other resolutions (ORT CPU vs the PyTorch model there).

Each family at >= 3 resolutions different from the example's (coarser, finer, non-square, odd last
axis): neuraloperator FNO / TFNO with positional embedding and domain padding (1D, 2D, 3D), the
classic paper model (channels-last, linspace grid, padding), a PhysicsNeMo layer model; the ONNX
input dims are symbolic and the report says so. Layers that are right at one size only (resampling
output_size, kept modes clipped by the input) keep the axes static, with the reason; asking for
dynamic axes then fails naming the layer. Also: the size-free pieces themselves (linspace,
DomainPadding rounding).
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
import torch
from torch import nn

from export_util import TOL, rel_l2, run_ort
from turbofno.export import ExportError, export
from turbofno.export import dynamic, symbolic_ops
from turbofno.session import fp32_exact_providers


def _check_sizes(model, path, shapes, tol=TOL):
    """ORT vs PyTorch at each input shape; returns the errors."""
    errs = []
    g = torch.Generator().manual_seed(7)
    for shape in shapes:
        x = torch.randn(shape, generator=g)
        with torch.no_grad():
            want = model(x).numpy()
        got = run_ort(path, x.numpy())[0]
        errs.append(rel_l2(got, want))
        assert errs[-1] <= tol, f"{shape}: rel L2 {errs[-1]:.3g}"
    return errs


def _input_dims(path, output: bool = False) -> list:
    graph = onnx.load(str(path)).graph
    dims = (graph.output if output else graph.input)[0].type.tensor_type.shape.dim
    return [d.dim_param or d.dim_value for d in dims]


neuralop = pytest.importorskip("neuralop")
from neuralop.models import FNO, TFNO  # noqa: E402


@pytest.mark.parametrize("case", [
    ("fno2d-grid-padding", lambda: FNO(n_modes=(8, 8), in_channels=3, out_channels=1, hidden_channels=12, n_layers=2,
                                       positional_embedding="grid", domain_padding=0.25),
     (1, 3, 32, 32), [(2, 3, 16, 16), (1, 3, 64, 64), (2, 3, 48, 20), (1, 3, 30, 37)]),
    ("tfno2d-padding-0.1", lambda: TFNO(n_modes=(6, 10), in_channels=2, out_channels=2, hidden_channels=8, n_layers=2,
                                        domain_padding=0.1, factorization="tucker", rank=0.5),
     (2, 2, 24, 24), [(1, 2, 12, 18), (1, 2, 40, 40), (2, 2, 36, 29)]),
    ("fno1d-grid", lambda: FNO(n_modes=(12,), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2),
     (2, 1, 64), [(1, 1, 24), (2, 1, 256), (1, 1, 101)]),
    ("fno3d-padding", lambda: FNO(n_modes=(4, 4, 4), in_channels=1, out_channels=1, hidden_channels=6, n_layers=1,
                                  domain_padding=0.125),
     (1, 1, 8, 8, 8), [(1, 1, 8, 12, 8), (1, 1, 16, 16, 16), (2, 1, 10, 8, 11)]),
], ids=lambda c: c[0])
def test_neuralop_runs_at_other_resolutions(tmp_path, case):
    _, factory, example, shapes = case
    torch.manual_seed(0)
    model = factory().eval()
    path = tmp_path / "m.onnx"
    report = export(model, torch.randn(example), path, verbose=False, rtol=TOL)
    d = len(example) - 2
    assert report.axes.spatial(0) == list(range(2, 2 + d)), report.summary()
    assert "dynamic axes: " in report.summary() and report.axes.static_reason == ""
    dims = _input_dims(path)
    assert dims[1] == example[1] and all(isinstance(v, str) for v in [dims[0]] + dims[2:]), dims
    # the output's spatial dims are the input's symbols: torch's shape reasoning proved that unpadding
    # undoes the padding (torch 2.11's torch.onnx fails where it cannot, see dynamic._round_half_even)
    assert _input_dims(path, output=True)[2:] == dims[2:], _input_dims(path, output=True)
    assert len(report.validation.spatial_checked) == 2   # the exporter itself checked a second size
    _check_sizes(model, path, shapes)


def test_static_when_asked(tmp_path):
    torch.manual_seed(0)
    model = FNO(n_modes=(8, 8), in_channels=1, out_channels=1, hidden_channels=8, n_layers=1).eval()
    path = tmp_path / "s.onnx"
    report = export(model, torch.randn(1, 1, 32, 32), path, verbose=False, dynamic_spatial=False)
    assert report.axes.spatial(0) == [] and _input_dims(path)[2:] == [32, 32]
    with pytest.raises(Exception, match="Got: 48 Expected: 32|index: 2"):
        run_ort(path, np.zeros((1, 1, 48, 32), np.float32))


def test_fully_static_export_has_no_shape_arithmetic(tmp_path):
    """What the demo and bench/model_bench.py export for ORT's CUDA graph (dynamic_batch=False,
    dynamic_spatial=False): no Shape / Range nodes, which ORT's CUDA EP would place on the CPU (Memcpy
    nodes; graph capture refused). The default dynamic export of the same model has them."""
    torch.manual_seed(0)
    model = TFNO(n_modes=(8, 8), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2,
                 factorization="tucker", rank=0.42).eval()
    x = torch.randn(2, 1, 24, 20)
    ops = {}
    for name, kw in (("dynamic", {}), ("static", {"dynamic_batch": False, "dynamic_spatial": False})):
        export(model, x, tmp_path / f"{name}.onnx", verbose=False, **kw)
        ops[name] = {n.op_type for n in onnx.load(str(tmp_path / f"{name}.onnx")).graph.node}
    assert {"Shape", "Range"} <= ops["dynamic"], ops["dynamic"]
    assert not ops["static"] & {"Shape", "Range", "ConstantOfShape", "Size"}, ops["static"]
    assert "SpectralConv" in ops["static"]
    assert all(isinstance(v, int) and v > 0 for v in _input_dims(tmp_path / "static.onnx")), \
        _input_dims(tmp_path / "static.onnx")


def test_clipped_modes_keep_the_size_static_with_the_reason(tmp_path):
    """n_modes larger than the example's spectrum: neuraloperator keeps more modes at larger sizes."""
    from neuralop.layers.spectral_convolution import SpectralConv

    model = nn.Sequential(SpectralConv(2, 2, n_modes=(20, 40))).eval()
    x = torch.randn(1, 2, 10, 12)
    report = export(model, x, tmp_path / "c.onnx", verbose=False)
    assert report.axes.spatial(0) == []
    assert "'0'" in report.axes.static_reason and "n_modes" in report.axes.static_reason
    assert "spatial axes fixed" in report.summary()
    with pytest.raises(ExportError, match=r"dynamic_spatial=True, but layer '0' .*n_modes"):
        export(model, x, tmp_path / "c2.onnx", verbose=False, dynamic_spatial=True)
    assert not (tmp_path / "c2.onnx").exists()


# --- torch failing with symbolic sizes (issue 11: torch 2.11's torch.onnx, GuardOnDataDependentSymNode) ---

class GuardOnDataDependentSymNode(RuntimeError):
    """Stands in for torch's error of that name (the exporter reports the innermost cause)."""


def _fail_with_symbolic_spatial(monkeypatch, step: str) -> list:
    """Make `step` fail, as torch does, whenever spatial axes are symbolic; returns per call whether they were."""
    calls = []
    owner, name = (torch.export, "export") if step == "torch.export" else (torch.onnx, "export")
    real = getattr(owner, name)

    def fake(*args, **kwargs):
        if step == "torch.export":
            spatial = any(set(spec) - {0} for spec in kwargs["dynamic_shapes"] or () if spec)
        else:
            program = args[0]
            x = next(n for n in program.graph.nodes if n.name == program.graph_signature.user_inputs[0])
            spatial = any(not isinstance(d, int) for d in x.meta["val"].shape[1:])
        calls.append(spatial)
        if not spatial:
            return real(*args, **kwargs)
        try:
            raise GuardOnDataDependentSymNode("Could not guard on data-dependent expression u0*u2 < 1\n(more)")
        except GuardOnDataDependentSymNode as inner:
            raise RuntimeError("\x1b[96mFailed to decompose\x1b[0m the FX graph for ONNX compatibility.") from inner

    monkeypatch.setattr(owner, name, fake)
    return calls


def _small_fno():
    torch.manual_seed(0)
    return FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=4, n_layers=1).eval()


@pytest.mark.parametrize("step", ["torch.export", "torch.onnx.export"])
def test_torch_failing_with_symbolic_sizes_falls_back_to_static(tmp_path, monkeypatch, step):
    calls = _fail_with_symbolic_spatial(monkeypatch, step)
    path = tmp_path / "f.onnx"
    with pytest.warns(RuntimeWarning, match=f"spatial axes fixed to the example's sizes: {step} failed"):
        report = export(_small_fno(), torch.randn(1, 1, 16, 12), path, verbose=False)
    assert calls == [True, False]                        # symbolic first, then the static retry
    reason = report.axes.static_reason
    assert reason == (f"{step} failed with symbolic spatial sizes (torch {torch.__version__}): RuntimeError, caused "
                      "by GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0*u2 < 1")
    assert f"spatial axes fixed to the example's sizes: {reason}" in report.summary()
    assert report.axes.dynamic == [[0]] and report.validation.passed
    dims = _input_dims(path)
    assert isinstance(dims[0], str) and dims[1:] == [1, 16, 12], dims


@pytest.mark.parametrize("step", ["torch.export", "torch.onnx.export"])
def test_torch_failing_with_symbolic_sizes_when_they_are_required(tmp_path, monkeypatch, step):
    calls = _fail_with_symbolic_spatial(monkeypatch, step)
    path = tmp_path / "r.onnx"
    with pytest.raises(ExportError) as info:
        export(_small_fno(), torch.randn(1, 1, 16, 12), path, verbose=False, dynamic_spatial=True)
    msg = str(info.value)
    assert calls == [True]
    assert msg.startswith(f"dynamic_spatial=True, but {step} failed with symbolic spatial sizes (torch "), msg
    assert "GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0*u2 < 1" in msg
    assert "\nnext step: export with dynamic_spatial=False" in msg and "another torch version" in msg
    assert isinstance(info.value.__cause__.__cause__, GuardOnDataDependentSymNode)   # torch's error kept
    assert not path.exists()


# --- classic (Li et al.) and PhysicsNeMo ------------------------------------------------------------

def test_classic_paper_model_runs_at_other_resolutions(tmp_path):
    from test_export_classic import FNO2d

    torch.manual_seed(0)
    model = FNO2d(6, 6, 12, in_channels=1, padding=5).eval()   # channels-last [B, X, Y, C]
    path = tmp_path / "classic.onnx"
    report = export(model, torch.randn(2, 20, 20, 1), path, verbose=False, rtol=TOL)
    assert report.axes.spatial(0) == [1, 2], report.summary()   # found by running the model, any layout
    _check_sizes(model, path, [(1, 16, 16, 1), (2, 40, 40, 1), (1, 24, 33, 1)])


def test_physicsnemo_layer_model_runs_at_other_resolutions(tmp_path):
    from test_export_physicsnemo import Block, _load_layers

    layers = _load_layers()   # skips with the reason when the PhysicsNeMo wheel is not installed
    torch.manual_seed(0)
    model = Block(layers.SpectralConv2d(8, 8, 5, 5), 2, 2, 8).eval()
    path = tmp_path / "pn.onnx"
    report = export(model, torch.randn(1, 2, 24, 24), path, verbose=False, rtol=TOL)
    assert report.axes.spatial(0) == [2, 3]
    _check_sizes(model, path, [(1, 2, 12, 12), (2, 2, 64, 64), (1, 2, 30, 17)])


# --- the size-free pieces -----------------------------------------------------------------------------

def test_symbolic_linspace_matches_torch():
    """The arange formula (what a symbolic `steps` runs) vs torch.linspace, and the patch in a real trace."""
    for n in list(range(2, 70)) + [100, 255, 256, 1000, 4097]:
        for start, end in [(0, 1), (-1.5, 2.0), (0, 2 * np.pi)]:
            got = symbolic_ops.arange_linspace(start, end, n, torch.float32, None)
            want = torch.linspace(start, end, n)
            assert (got - want).abs().max() <= 2 * torch.finfo(torch.float32).eps * max(abs(start), abs(end)), n

    class M(nn.Module):
        def forward(self, x):
            return x + torch.linspace(0, 1, x.shape[-1] + 1)[:-1]

    x = torch.randn(2, 8)
    with symbolic_ops.patched():
        prog = torch.export.export(M(), (x,), dynamic_shapes=({1: torch.export.Dim.DYNAMIC},), strict=False)
    assert torch.linspace is symbolic_ops._ORIGINAL_LINSPACE   # restored
    for n in (3, 8, 31, 200):
        xx = torch.zeros(2, n)
        want = torch.linspace(0, 1, n + 1)[:-1]
        got = prog.module()(xx)[0]
        assert (got - want).abs().max() <= 1e-6, n


def test_domain_padding_rounding_is_python_round():
    for p in (0.25, 0.1, 0.125, 0.2, 1 / 3, 0.078125, 0.5, 0.0):
        frac = dynamic.padding_fraction(p, "pad", nn.Identity())
        for s in range(1, 2000):
            assert dynamic._round_half_even(frac.numerator * s, frac.denominator) == round(p * s)


def test_onnx_dims_are_named_for_dynamic_axes_only(tmp_path):
    torch.manual_seed(0)
    model = FNO(n_modes=(4,), in_channels=2, out_channels=1, hidden_channels=4, n_layers=1).eval()
    path = tmp_path / "n.onnx"
    export(model, torch.randn(3, 2, 20), path, verbose=False)
    dims = _input_dims(path)
    assert isinstance(dims[0], str) and dims[1] == 2 and isinstance(dims[2], str)


# --- the same file on the GPU paths (run on the GPU machine; skipped with the reason elsewhere) ----------

def _dynamic_fno(tmp_path):
    torch.manual_seed(0)
    model = FNO(n_modes=(8, 8), in_channels=3, out_channels=1, hidden_channels=12, n_layers=2,
                positional_embedding="grid", domain_padding=0.25).eval()
    path = tmp_path / "gpu.onnx"
    export(model, torch.randn(1, 3, 32, 32), path, verbose=False, rtol=TOL, dynamic_spatial=True)
    return model, path


SIZES = [(2, 3, 16, 16), (1, 3, 64, 64), (2, 3, 48, 20), (1, 3, 30, 37)]


@pytest.mark.requires_cuda
def test_dynamic_export_on_ort_cuda(tmp_path, ort_lib):
    import onnxruntime as ort

    model, path = _dynamic_fno(tmp_path)
    if hasattr(ort, "preload_dlls"):
        ort.preload_dlls()
    opts = ort.SessionOptions()
    opts.register_custom_ops_library(ort_lib)
    # use_tf32=0: with ORT's default TF32 this failed at rel L2 2.9e-4 (H200, 16d3e12), the size TF32 alone
    # gives whole FNOs (session.fp32_exact_providers); not yet rerun on the GPU with it off
    providers = fp32_exact_providers(["CUDAExecutionProvider", "CPUExecutionProvider"])
    sess = ort.InferenceSession(str(path), opts, providers=providers)
    assert sess.get_providers()[0] == "CUDAExecutionProvider"
    g = torch.Generator().manual_seed(7)
    for shape in SIZES:
        x = torch.randn(shape, generator=g)
        with torch.no_grad():
            want = model(x).numpy()
        got = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})[0]
        assert rel_l2(got, want) <= 1e-4, shape


@pytest.mark.requires_trt
def test_dynamic_export_as_a_tensorrt_engine_with_a_spatial_profile(tmp_path):
    """One engine, spatial min/opt/max profile 16..64 (turbofno.trt.build_engine), run at four sizes."""
    import tensorrt

    from turbofno import trt

    model, path = _dynamic_fno(tmp_path)
    name = onnx.load(str(path)).graph.input[0].name
    plan = trt.build_engine(str(path), shapes={name: ([1, 3, 16, 16], [2, 3, 32, 32], [2, 3, 64, 64])})
    engine = tensorrt.Runtime(tensorrt.Logger(tensorrt.Logger.WARNING)).deserialize_cuda_engine(plan)
    ctx = engine.create_execution_context()
    out_name = engine.get_tensor_name(engine.num_io_tensors - 1)
    g = torch.Generator().manual_seed(7)
    for shape in SIZES:
        x = torch.randn(shape, generator=g)
        with torch.no_grad():
            want = model(x)
        ctx.set_input_shape(name, tuple(shape))
        xd = x.cuda()
        yd = torch.empty(tuple(ctx.get_tensor_shape(out_name)), device="cuda")
        assert tuple(yd.shape) == tuple(want.shape)
        ctx.set_tensor_address(name, xd.data_ptr())
        ctx.set_tensor_address(out_name, yd.data_ptr())
        assert ctx.execute_async_v3(torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        assert rel_l2(yd.cpu().numpy(), want.numpy()) <= 1e-4, shape
