"""Rewrite 1x1 Conv1d nodes as MatMul: Conv(x[N, Cin, L], W[Cout, Cin, 1], b) -> MatMul(W[Cout, Cin], x) + b[Cout, 1].

neuraloperator's lifting, projection and channel MLPs are 1x1 Conv1d over the flattened spatial axes.
ONNX Runtime's CUDA EP runs Conv through cuDNN, which at long flattened axes picked slow algorithms:
at a 3D FNO (32 channels, 48^3, batch 32) on an H200 its Conv nodes took 84 of 104 ms of the model
(tests/gpu/logs/final_8c31d89/profile_fno3d_b32.log) against 5 ms for the spectral layers. MatMul with
a 2D left operand runs as one strided-batched GEMM (cuBLAS, MLAS on the CPU). Same arithmetic: a sum
over Cin per output (summation order may differ in the last bit).

Only rank-3 convolutions (Conv1d) with a constant float32 weight, kernel 1, stride 1, dilation 1, no
padding and one group are rewritten; everything else is left as it is.
"""
from __future__ import annotations

import numpy as np

from turbofno.export.fuse import _drop_unused, _Graph, pointwise_conv


def _is_pointwise_conv1d(g: _Graph, node):
    """(weight [Cout, Cin], bias or None) of a default-domain pointwise Conv1d, else None."""
    if node.domain not in ("", "ai.onnx") or len(node.output) != 1:
        return None
    match = pointwise_conv(g, node)
    if match is None or match[0].ndim != 3:
        return None
    return match[0][:, :, 0], match[1]


def conv1x1_to_matmul(proto) -> int:
    """Rewrites every pointwise Conv1d of `proto` (in place, keeping the node order); returns how many."""
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
        if match is None:
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
