"""An exported fp32 graph as an fp16 graph: the data path in float16, shape arithmetic left in float32.

    from turbofno.export.fp16 import convert_to_fp16
    convert_to_fp16("fno.onnx", "fno.fp16.onnx")          # inputs and outputs become float16

Which tensors change: every float32 tensor that depends, through float edges, on a float32 graph input (the data
path: x, the SpectralConv / PointwiseMLP nodes, the skips, the activations), every float32 initializer or Constant
that only such nodes read, and the graph's float32 inputs and outputs. Tensors computed from shapes alone stay
float32 (e.g. neuraloperator's positional grid: Shape -> Cast -> Range -> ...; ONNX's Range has no float16), and a
Cast to float16 is inserted where such a tensor meets the data path (the grid's Concat with x). Our ops take float16
on both kernels (docs/op.md; arithmetic in fp32). Weights beyond float16's range (|w| > 65504) are refused, small
ones flush to float16's subnormals as numpy rounds them.

keep_io_types=True keeps float32 inputs and outputs (a Cast after each input and before each output), for callers
that feed numpy float32 arrays; the default float16 I/O lets ORT's IOBinding pass half tensors with no cast kernels.
"""
from __future__ import annotations

import os
from typing import Optional, Union

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

FP32, FP16 = TensorProto.FLOAT, TensorProto.FLOAT16
FP16_MAX = float(np.finfo(np.float16).max)


class Fp16ConversionError(ValueError):
    """The graph cannot be converted (names the tensor or node and why)."""


# (op type, input index) that ONNX types float32 whatever the data type (sizes and scales): never converted
FLOAT32_ONLY_INPUTS = {("Resize", 2), ("Upsample", 1)}


def _elem_types(model: onnx.ModelProto) -> dict:
    inferred = shape_inference.infer_shapes(model, strict_mode=False)
    types = {}
    g = inferred.graph
    for vi in list(g.value_info) + list(g.input) + list(g.output):
        if vi.type.HasField("tensor_type"):
            types[vi.name] = vi.type.tensor_type.elem_type
    for init in g.initializer:
        types[init.name] = init.data_type
    return types


def _data_path(graph: onnx.GraphProto, types: dict) -> set:
    """Names of the float32 tensors reachable from a float32 graph input through float32 edges."""
    reached = {i.name for i in graph.input if types.get(i.name) == FP32}
    consumers = {}
    for node in graph.node:
        for name in node.input:
            if name:
                consumers.setdefault(name, []).append(node)
    todo = list(reached)
    while todo:
        for node in consumers.get(todo.pop(), []):
            for out in node.output:
                if out and out not in reached and types.get(out) == FP32:
                    reached.add(out)
                    todo.append(out)
    return reached


def _to_fp16_array(arr: np.ndarray, what: str) -> np.ndarray:
    finite = arr[np.isfinite(arr)]
    if finite.size and float(np.abs(finite).max()) > FP16_MAX:
        raise Fp16ConversionError(f"{what}: values up to {float(np.abs(finite).max()):.4g} overflow float16 "
                                  f"(max {FP16_MAX:.0f}); keep this model in float32")
    return arr.astype(np.float16)


def _rename(nodes, old: str, new: str, *, outputs: bool) -> None:
    """Every node input (and, with outputs, node output) named `old` is renamed `new`."""
    for n in nodes:
        for field in (n.input, n.output) if outputs else (n.input,):
            for i, name in enumerate(field):
                if name == old:
                    field[i] = new


def convert_to_fp16(model: Union[onnx.ModelProto, str, os.PathLike], out_path: Optional[Union[str, os.PathLike]] = None,
                    *, keep_io_types: bool = False) -> onnx.ModelProto:
    """The fp16 form of an exported model (a ModelProto or a path); saved at out_path when given."""
    src = onnx.load(os.fspath(model)) if not isinstance(model, onnx.ModelProto) else model
    m = onnx.ModelProto()
    m.CopyFrom(src)
    g = m.graph
    if any(n.op_type in ("If", "Loop", "Scan") for n in g.node):
        raise Fp16ConversionError("graphs with subgraphs (If / Loop / Scan) are not converted")
    types = _elem_types(m)
    data = _data_path(g, types)
    if not data:
        raise Fp16ConversionError("the graph has no float32 input: nothing to convert")

    # nodes on the data path: any input or output there
    fp16_nodes = [n for n in g.node if any(t in data for t in list(n.input) + list(n.output))]
    readers = {}
    for n in g.node:
        for name in n.input:
            readers.setdefault(name, []).append(n)
    on_path = {id(n) for n in fp16_nodes}
    inits = {i.name: i for i in g.initializer}
    consts = {n.output[0]: n for n in g.node if n.op_type == "Constant" and n.domain in ("", "ai.onnx")}
    new_nodes_before = {}  # id(node) -> Cast nodes to insert before it
    cast_of = {}  # float32 tensor -> its float16 copy's name

    def fp16_name_for(name: str, node) -> str:
        """The float16 tensor that node (on the data path) reads instead of float32 `name` (not on the path)."""
        only_path_readers = all(id(r) in on_path for r in readers.get(name, []))
        if name in inits and only_path_readers:
            init = inits[name]
            init.CopyFrom(numpy_helper.from_array(_to_fp16_array(numpy_helper.to_array(init), f"initializer '{name}'"), name))
            types[name] = FP16
            return name
        if name in consts and only_path_readers:
            for a in consts[name].attribute:
                if a.name == "value":
                    a.t.CopyFrom(numpy_helper.from_array(
                        _to_fp16_array(numpy_helper.to_array(a.t), f"Constant '{name}'"), a.t.name))
            types[name] = FP16
            return name
        if name not in cast_of:  # computed in float32 (e.g. from shapes) or shared with float32 nodes: cast once
            cast_of[name] = name + "_fp16"
            new_nodes_before.setdefault(id(node), []).append(
                helper.make_node("Cast", [name], [cast_of[name]], to=FP16, name=name + "_to_fp16"))
        return cast_of[name]

    for n in fp16_nodes:
        for i, name in enumerate(n.input):
            if name and name not in data and types.get(name) == FP32 and (n.op_type, i) not in FLOAT32_ONLY_INPUTS:
                n.input[i] = fp16_name_for(name, n)
        if n.op_type == "Cast" and n.domain in ("", "ai.onnx"):
            for a in n.attribute:
                if a.name == "to" and a.i == FP32 and n.output[0] in data:
                    a.i = FP16
        for a in n.attribute:  # float32 tensor attributes of a data-path node (a Constant has no input: never one)
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == FP32:
                a.t.CopyFrom(numpy_helper.from_array(
                    _to_fp16_array(numpy_helper.to_array(a.t), f"node '{n.name}' attribute '{a.name}'"), a.t.name))

    # graph inputs / outputs on the data path: float16, or (keep_io_types) float32 with a Cast inside
    in_casts, out_casts = [], []
    for vi in g.input:
        if vi.name in data and keep_io_types:
            _rename(g.node, vi.name, vi.name + "_fp16", outputs=False)
            in_casts.append(helper.make_node("Cast", [vi.name], [vi.name + "_fp16"], to=FP16, name=vi.name + "_to_fp16"))
        elif vi.name in data:
            vi.type.tensor_type.elem_type = FP16
    for vi in g.output:
        if vi.name in data and keep_io_types:
            _rename(g.node, vi.name, vi.name + "_fp16", outputs=True)
            out_casts.append(helper.make_node("Cast", [vi.name + "_fp16"], [vi.name], to=FP32, name=vi.name + "_to_fp32"))
        elif vi.name in data:
            vi.type.tensor_type.elem_type = FP16

    nodes = list(in_casts)
    for n in g.node:
        nodes.extend(new_nodes_before.get(id(n), []))
        nodes.append(n)
    nodes.extend(out_casts)
    del g.node[:]
    g.node.extend(nodes)
    del g.value_info[:]  # stale float32 types; shape inference recomputes them
    m = shape_inference.infer_shapes(m, strict_mode=False)
    onnx.checker.check_model(m)
    if out_path is not None:
        onnx.save(m, os.fspath(out_path))
    return m


def check_fp16(fp32_path: Union[str, os.PathLike], fp16_path: Union[str, os.PathLike], inputs, *, rtol: float = 1e-2,
               providers=None) -> float:
    """Runs both files in ONNX Runtime (our op library, CPU unless providers says otherwise) on `inputs` (float32
    numpy arrays, one per graph input) and returns the fp16 outputs' relative L2 error against the fp32 ones;
    raises Fp16ConversionError above rtol."""
    from turbofno.export.validate import _errors, make_session

    s32, s16 = make_session(os.fspath(fp32_path), providers), make_session(os.fspath(fp16_path), providers)
    feed32 = {i.name: x for i, x in zip(s32.get_inputs(), inputs)}
    feed16 = {i.name: (x.astype(np.float16) if i.type == "tensor(float16)" else x) for i, x in zip(s16.get_inputs(), inputs)}
    _, rel = _errors(s16.run(None, feed16), s32.run(None, feed32))
    if not np.isfinite(rel) or rel > rtol:
        raise Fp16ConversionError(f"the float16 graph's outputs are {rel:.3g} (relative L2) from the float32 graph's "
                                  f"on the example input, above {rtol:g}: keep this model in float32")
    return rel
