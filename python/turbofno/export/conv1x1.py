"""Rewrite 1x1 Conv1d nodes as MatMul: Conv(x[N, Cin, L], W[Cout, Cin, 1], b) -> MatMul(W[Cout, Cin], x) + b[Cout, 1].

neuraloperator's lifting, projection and channel MLPs are 1x1 Conv1d over the flattened spatial axes.
ONNX Runtime's CUDA EP runs Conv through cuDNN, which at long flattened axes picked slow algorithms:
at a 3D FNO (32 channels, 48^3, batch 32) on an H200 its Conv nodes took 84 of 104 ms of the model
(tests/gpu/logs/final_8c31d89/profile_fno3d_b32.log) against 5 ms for the spectral layers. MatMul with
a 2D left operand runs as one strided-batched GEMM (cuBLAS, MLAS on the CPU). Same arithmetic: a sum
over Cin per output (summation order may differ in the last bit).

Short axes go the other way: with batch 1 on the H200, the bundled models (flattened lengths 256 and
4096) ran 1.24x to 1.30x faster with Conv (cuDNN, one kernel) than with MatMul + Add (two kernels),
while a TFNO at 128x128 (16384) ran 3.2x faster with MatMul (tests/gpu/logs/final_2774eb3/
conv_vs_matmul.log). The exporter's default therefore rewrites a Conv1d only when its length on the
example input is at least MATMUL_FROM_LENGTH (`conv1x1_as_matmul=None`; True / False: all / none).

Only rank-3 convolutions (Conv1d) with a constant float32 weight, kernel 1, stride 1, dilation 1, no
padding and one group are rewritten; everything else is left as it is.
"""
from __future__ import annotations

import numpy as np

from turbofno.export.fuse import _drop_unused, _Graph, exposed_values, pointwise_conv

MATMUL_FROM_LENGTH = 8192  # between 4096 (Conv faster or equal) and 16384 (MatMul 3.2x faster), measured


def _is_pointwise_conv1d(g: _Graph, node):
    """(weight [Cout, Cin], bias or None) of a default-domain pointwise Conv1d, else None."""
    if node.domain not in ("", "ai.onnx") or len(node.output) != 1:
        return None
    match = pointwise_conv(g, node)
    if match is None or match[0].ndim != 3:
        return None
    return match[0][:, :, 0], match[1]


def pointwise_conv1d_lengths(proto, feeds: dict) -> dict:
    """{output name: length L} of every pointwise Conv1d of `proto` (x[N, Cin, L]) on the inputs `feeds`,
    from one ONNX Runtime CPU run (with our op library) that also returns the Conv inputs."""
    g = _Graph(proto.graph)
    convs = [n for n in proto.graph.node if _is_pointwise_conv1d(g, n) is not None]
    if not convs:
        return {}
    values = exposed_values(proto, sorted({n.input[0] for n in convs}), feeds, ["CPUExecutionProvider"])
    return {n.output[0]: int(values[n.input[0]].shape[-1]) for n in convs}


def rewrite(proto, feeds: dict, every: bool) -> tuple[int, int, str]:
    """The exporter's step: every pointwise Conv1d as MatMul (`every`), or only those at least
    MATMUL_FROM_LENGTH long on `feeds`. Returns (rewritten, kept as Conv by the length rule, a note
    when the lengths could not be measured: then nothing is rewritten)."""
    if every:
        return conv1x1_to_matmul(proto), 0, ""
    try:
        lengths = pointwise_conv1d_lengths(proto, feeds)
    except Exception as err:  # noqa: BLE001 - without lengths every Conv1d stays Conv; the export goes on
        return 0, 0, (f"pointwise Conv1d lengths could not be measured in ONNX Runtime "
                      f"({str(err).splitlines()[0][:200]}); every Conv1d kept as Conv")
    only = {name for name, length in lengths.items() if length >= MATMUL_FROM_LENGTH}
    return conv1x1_to_matmul(proto, only), len(lengths) - len(only), ""


def conv1x1_to_matmul(proto, only: set | None = None) -> int:
    """Rewrites the pointwise Conv1d nodes of `proto` (in place, keeping the node order): every one, or
    those whose output name is in `only`; returns how many."""
    from onnx import helper, numpy_helper

    g = _Graph(proto.graph)
    taken = {i.name for i in proto.graph.initializer} | {o for n in proto.graph.node for o in n.output}

    def fresh(base: str) -> str:
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        taken.add(name)
        return name

    new_nodes, count = [], 0
    for node in proto.graph.node:
        match = _is_pointwise_conv1d(g, node)
        if match is None or (only is not None and node.output[0] not in only):
            new_nodes.append(node)
            continue
        w, b = match
        base = node.name or node.output[0]
        w_name = fresh(f"{base}_matmul_weight")
        proto.graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(w), w_name))
        out = node.output[0]
        mm_out = fresh(f"{base}_matmul") if b is not None else out
        new_nodes.append(helper.make_node("MatMul", [w_name, node.input[0]], [mm_out], name=fresh(f"{base}_as_matmul")))
        if b is not None:
            b_name = fresh(f"{base}_matmul_bias")
            proto.graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(b.reshape(-1, 1)), b_name))
            new_nodes.append(helper.make_node("Add", [mm_out, b_name], [out], name=fresh(f"{base}_bias")))
        count += 1
    if count:
        del proto.graph.node[:]
        proto.graph.node.extend(new_nodes)
        _drop_unused(proto)
    return count
