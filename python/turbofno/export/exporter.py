"""`export()`: PyTorch FNO -> ONNX with one `ai.turbofno::SpectralConv` node per spectral layer."""
from __future__ import annotations

import contextlib
import copy
import io
import logging
import os
import tempfile
import time
import warnings
from typing import Optional, Sequence

import torch
from torch import nn

from turbofno import _op as _names
from turbofno._rules import MAX_IR_VERSION  # the newest IR we write (one definition, _rules.py)
from turbofno.export import devices, swap, torch_op, trace, unsupported
from turbofno.export.errors import ExportError, ValidationError
from turbofno.export.report import ExportReport, count_nodes

DEFAULT_RTOL = 1e-4       # relative L2, ORT vs PyTorch, whole model


class _Progress:
    def __init__(self, verbose: bool):
        self.verbose = verbose
        self.start = time.perf_counter()

    @contextlib.contextmanager
    def step(self, what: str):
        t0 = time.perf_counter()
        yield
        dt = time.perf_counter() - t0
        if self.verbose and dt > 1.0:
            print(f"[turbofno.export] {what}: {dt:.1f} s", flush=True)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def _as_tuple(example_inputs) -> tuple:
    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,)
    if isinstance(example_inputs, (tuple, list)):
        return tuple(example_inputs)
    raise TypeError(f"example_inputs must be a tensor or a tuple of tensors, got {type(example_inputs).__name__}")


def _check_inputs(inputs: tuple) -> None:
    if not inputs:
        raise ExportError("example_inputs is empty")
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            raise ExportError(f"example input {i} is {type(x).__name__}; only tensors are supported")
        if x.is_floating_point() and x.dtype != torch.float32:
            raise ExportError(f"example input {i} is {x.dtype}; export the model in float32 (model.float())")
        if x.is_complex():
            raise ExportError(f"example input {i} is complex; the exporter handles real-valued fields only")
        if x.dim() == 0 or x.shape[0] < 1:
            raise ExportError(f"example input {i} has shape {tuple(x.shape)}; it needs a non-empty batch axis 0")


def _flat_outputs(output) -> list[torch.Tensor]:
    leaves = torch.utils._pytree.tree_leaves(output)
    if not leaves or not all(isinstance(t, torch.Tensor) for t in leaves):
        raise ExportError("the model must return a tensor or a (nested) tuple/list/dict of tensors")
    return leaves


def _fft_nodes(program: torch.export.ExportedProgram) -> list[str]:
    """Descriptions of FFT ops left in the traced graph, each with the module that computes it."""
    found = []
    for node in program.graph.nodes:
        if node.op != "call_function" or "fft" not in str(node.target):
            continue
        stack = node.meta.get("nn_module_stack") or {}
        path, cls = ("<root>", "?")
        if stack:
            path, cls = list(stack.values())[-1]
            cls = cls if isinstance(cls, str) else f"{cls.__module__}.{cls.__qualname__}"
        found.append(f"module '{path or '<root>'}' ({cls}) computes {node.target}")
    return found


def _quiet():
    """Silence torch.onnx's chatter (progress lines, known warnings) unless something fails."""
    stack = contextlib.ExitStack()
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    logger = logging.getLogger("torch.onnx")
    level = logger.level
    logger.setLevel(logging.ERROR)
    stack.callback(logger.setLevel, level)
    return stack


def export(model: nn.Module, example_inputs, path: str | os.PathLike, *, dynamic_batch: bool = True,
           dynamic_spatial: Optional[bool] = None,
           validate: bool = True, rtol: float = DEFAULT_RTOL, opset: Optional[int] = None, verbose: bool = True,
           allow_fft: bool = False, layer_rtol: float = 1e-5,
           input_names: Optional[Sequence[str]] = None, output_names: Optional[Sequence[str]] = None,
           providers: Optional[Sequence[str]] = None, fuse: bool = True,
           conv1x1_as_matmul: Optional[bool] = None, fuse_mlp: bool = True) -> ExportReport:
    """Export `model` to ONNX at `path`, every recognized spectral convolution as one SpectralConv node.

    model          : the PyTorch model (left untouched: a deep copy on the CPU is converted).
    example_inputs : a tensor or tuple of tensors (float32, batch on axis 0).
    dynamic_batch  : make axis 0 of every input (and output) symbolic.
    dynamic_spatial: make the spatial axes symbolic: None (default) when the model allows it, else they stay
                     the example's (the report says why); True requires it (ExportError otherwise); False never.
    validate       : run the ONNX file in ONNX Runtime with our op library and compare with the original
                     model on the example input (relative L2 error <= rtol), else raise ValidationError.
    opset          : default ONNX opset (torch.onnx's default if None).
    allow_fft      : let FFTs outside recognized layers through as ONNX DFT nodes instead of failing.
    layer_rtol     : tolerance of the per-layer checks (converted layer vs original in PyTorch; fused
                     node vs the unfused ONNX subgraph in ONNX Runtime).
    fuse           : fold each layer's 1x1 skip, bias add and activation into its SpectralConv node
                     (op version 2, see turbofno.export.fuse) where the pattern matches exactly and
                     the fused node reproduces the unfused graph; False keeps plain SpectralConv nodes.
    fuse_mlp       : fold each pointwise channel MLP (1x1 Conv, activation, 1x1 Conv, then an optional
                     residual add, plain or per-channel gated, and activation: neuraloperator's channel
                     MLPs with their skip, lifting and projection) into one PointwiseMLP node
                     (ai.turbofno opset 2, see turbofno.export.fuse_mlp), checked like `fuse`.
                     Independent of `fuse`; skipped, with a note in the summary, when the loaded
                     library cannot run PointwiseMLP. For a file that a version-1-only library loads
                     pass fuse=False and fuse_mlp=False.
    conv1x1_as_matmul: write the remaining pointwise Conv1d nodes (lifting, projection, channel MLPs) as
                     MatMul + Add (turbofno.export.conv1x1): None (default) those whose flattened length on
                     the example is >= 8192 (there cuDNN's Conv was 3-5x slower on the GPU; shorter ones ran
                     faster as Conv), True all, False none.
    Returns an ExportReport; raises ConversionError / ExportError / ValidationError on failure, in
    which case no file is left at `path`.
    """
    progress = _Progress(verbose)
    path = os.fspath(path)
    inputs = _as_tuple(example_inputs)
    _check_inputs(inputs)
    inputs = tuple(x.detach().cpu() for x in inputs)
    report = ExportReport(path=path)

    with progress.step("copy model"):
        work = copy.deepcopy(model).cpu().eval()
        devices.move_cached_tensors(work, "cpu")  # e.g. neuraloperator's grid cached by a CUDA forward
        pristine = copy.deepcopy(work) if validate and dynamic_spatial is not False else None
    unsupported.check(work, inputs)
    with progress.step("convert spectral layers"):
        work, reference, report.converted = swap.convert_layers(work, inputs, layer_rtol=layer_rtol)
    if not report.converted:
        from turbofno.export import fft_scan

        found = fft_scan.fft_modules(work, inputs)
        if found:
            raise ExportError("found no spectral convolution the exporter recognizes, but the model computes FFTs:\n  "
                              + fft_scan.describe(found))
        raise ExportError("found no spectral convolution to convert: the model computes no FFT (see docs/exporter.md "
                          "for the recognized layers and turbofno.export.register_converter for your own)")
    expected = [t.detach().cpu().numpy() for t in _flat_outputs(reference)]

    proto = _onnx_proto(work, inputs, report, progress, dynamic_batch=dynamic_batch, dynamic_spatial=dynamic_spatial,
                        allow_fft=allow_fft, opset=opset, input_names=input_names, output_names=output_names,
                        fuse=fuse, layer_rtol=layer_rtol, conv1x1_as_matmul=conv1x1_as_matmul, fuse_mlp=fuse_mlp)

    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=directory)
    os.close(fd)
    try:
        with progress.step("save"):
            _save(proto, tmp, path)
        if validate:
            from turbofno.export import validate as _validate

            with progress.step("ORT validation"):
                try:
                    report.validation = _validate.check_onnx(
                        tmp, [x.numpy() for x in inputs], expected, rtol=rtol, dynamic_batch=dynamic_batch,
                        providers=providers)
                    if report.axes.any_spatial() and pristine is not None:
                        probe = _validate.probe_inputs(inputs, report.axes.dynamic)
                        with torch.no_grad():
                            want = [t.detach().cpu().numpy() for t in _flat_outputs(pristine(*probe))]
                        at_probe = _validate.check_onnx(tmp, [x.numpy() for x in probe], want, rtol=rtol,
                                                        dynamic_batch=False, providers=providers)
                        if at_probe.passed or dynamic_spatial or not report.validation.passed:
                            report.validation = report.validation.merge(at_probe)
                        else:  # automatic mode: a file that is right at the example's size beats a wrong dynamic one
                            reason = (f"with symbolic sizes the graph differs from PyTorch at input size "
                                      f"{list(probe[0].shape)} (relative L2 {at_probe.rel_l2_err:.3g})")
                            proto = _onnx_proto(work, inputs, report, progress, dynamic_batch=dynamic_batch,
                                                dynamic_spatial=False, allow_fft=allow_fft, opset=opset,
                                                input_names=input_names, output_names=output_names, fuse=fuse,
                                                layer_rtol=layer_rtol, conv1x1_as_matmul=conv1x1_as_matmul,
                                                fuse_mlp=fuse_mlp)
                            report.axes.static_reason = reason
                            _save(proto, tmp, path)
                            report.validation = _validate.check_onnx(
                                tmp, [x.numpy() for x in inputs], expected, rtol=rtol, dynamic_batch=dynamic_batch,
                                providers=providers)
                except ExportError:
                    raise
                except Exception as err:  # noqa: BLE001 - ORT's load / run errors have types of their own
                    raise ExportError(f"ONNX Runtime cannot run the exported model: {err}") from err
            if not report.validation.passed:
                report.errors.append(report.validation.summary())
                raise ValidationError(f"exported model does not match PyTorch: {report.validation.summary()}",
                                      report)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp made it 0600
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    report.seconds = progress.elapsed()
    if verbose:
        print(report.summary(), flush=True)
    return report


def _onnx_proto(work, inputs, report, progress, *, dynamic_batch, dynamic_spatial, allow_fft, opset, input_names,
                output_names, fuse, layer_rtol, conv1x1_as_matmul=None, fuse_mlp=True):
    """torch.export + torch.onnx.export of the converted model, then the layer fusion, the MLP fusion and
    the Conv1d -> MatMul rewrite (in this order: Convs folded into PointwiseMLP nodes are not rewritten
    or counted); fills the report's graph facts."""
    with progress.step("torch.export"):
        program, report.axes = trace.trace(work, inputs, dynamic_batch=dynamic_batch,
                                           dynamic_spatial=dynamic_spatial, fixed=_fixed_size_layers(report.converted))
    leftovers = _fft_nodes(program)
    if leftovers and not allow_fft:
        raise ExportError("FFTs remain after conversion, so a spectral layer was not recognized:\n  "
                          + "\n  ".join(leftovers) + "\nregister a converter for its class "
                          "(turbofno.export.register_converter) or pass allow_fft=True to export them as ONNX DFT")

    names = dict(opset=opset, input_names=input_names, output_names=output_names)
    with progress.step("torch.onnx.export"):
        try:
            proto = _to_onnx(program, inputs, dynamic_batch, **names)
        except ExportError as err:
            if not report.axes.any_spatial():
                raise
            # torch.onnx re-traces the program with its own shape rules (torch 2.11: data-dependent sizes
            # where torch.export had none): in the default mode a static file beats no file
            reason = trace.torch_failure("torch.onnx.export", err.__cause__)
            if dynamic_spatial:
                raise trace.refused(reason, torch_failed=True) from err.__cause__
            program, report.axes = trace.trace(work, inputs, dynamic_batch=dynamic_batch, dynamic_spatial=False,
                                               fixed=[])
            trace.fell_back(report.axes, reason)
            proto = _to_onnx(program, inputs, dynamic_batch, **names)
    _check_proto(proto)
    report.input_names = [i.name for i in proto.graph.input]
    report.node_counts = count_nodes(proto)
    report.ir_version = proto.ir_version
    report.opset = next((o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")), 0)
    expected_nodes = sum(c.calls for c in report.converted)
    if report.spectral_nodes != expected_nodes:
        raise ExportError(f"expected {expected_nodes} SpectralConv nodes in the ONNX graph (one per call of a "
                          f"converted layer), found {report.spectral_nodes}")
    report.fusion_enabled = fuse
    report.fused, report.fusion_notes = [], []
    feeds = {i.name: x.numpy() for i, x in zip(proto.graph.input, inputs)}
    if fuse:
        from turbofno.export import fuse as _fuse

        with progress.step("fuse skip / activation into SpectralConv"):
            report.fused, report.fusion_notes = _fuse.fuse(proto, feeds, layer_rtol=layer_rtol)
        report.node_counts = count_nodes(proto)
    report.mlp_fusion_enabled = fuse_mlp
    report.mlp_fused, report.mlp_notes = [], []
    if fuse_mlp:
        from turbofno.export import fuse_mlp as _fuse_mlp

        with progress.step("fuse pointwise MLPs into PointwiseMLP"):
            report.mlp_fused, report.mlp_notes = _fuse_mlp.fuse(proto, feeds, layer_rtol=layer_rtol)
        report.node_counts = count_nodes(proto)
    if conv1x1_as_matmul is not False:
        from turbofno.export import conv1x1

        with progress.step("pointwise Conv1d as MatMul"):
            report.conv1x1_as_matmul, report.conv1x1_kept, report.conv1x1_note = conv1x1.rewrite(
                proto, feeds, every=bool(conv1x1_as_matmul))
        report.node_counts = count_nodes(proto)
    return proto


def _to_onnx(program, inputs, dynamic_batch, *, opset, input_names, output_names):
    """torch.onnx.export of the traced program; ExportError (caused by torch's error) on failure."""
    try:
        with _quiet():
            return torch.onnx.export(
                program, trace.trace_inputs(inputs, dynamic_batch), dynamo=True,
                custom_translation_table=torch_op.onnx_translation_table(), opset_version=opset,
                input_names=input_names, output_names=output_names, verbose=False).model_proto
    except Exception as err:  # noqa: BLE001
        raise ExportError(f"torch.onnx.export failed: {err}") from err


def _fixed_size_layers(converted) -> list:
    """Why each converted layer (if any) is right only at the example's spatial size."""
    out = []
    for c in converted:
        where = f"layer '{c.path or '<root>'}' ({c.source_class})"
        if c.output_size is not None:
            out.append(f"{where} changes the resolution to the fixed output_size {c.output_size}, which does not "
                       "follow the input size")
        elif c.fixed_size_reason:
            out.append(f"{where}: {c.fixed_size_reason}")
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _check_proto(proto) -> None:  # before fusion: plain SpectralConv nodes, domain version 1
    domains = {o.domain: o.version for o in proto.opset_import}
    if domains.get(_names.DOMAIN) != _names.OPSET_VERSION:
        raise ExportError(f"ONNX model lacks the opset import {_names.DOMAIN} v{_names.OPSET_VERSION}: {domains}")
    if proto.ir_version > MAX_IR_VERSION:
        proto.ir_version = MAX_IR_VERSION  # nothing we emit needs a newer IR


def _save(proto, tmp: str, final: str) -> None:
    import onnx

    big = proto.ByteSize() > 1_900_000_000  # protobuf's 2 GiB limit: weights go to a side file
    onnx.save_model(proto, tmp, save_as_external_data=big, location=os.path.basename(final) + ".data")
