"""What `export()` returns: what was converted, what the ONNX graph contains, how it validated."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional


@dataclass
class ExportReport:
    path: str
    converted: list = field(default_factory=list)       # [swap.ConvertedLayer]
    node_counts: dict = field(default_factory=dict)     # "domain::op_type" -> count, top-level graph
    validation: Optional[object] = None                 # validate.ValidationResult, None if skipped
    errors: list = field(default_factory=list)          # messages; empty when the export succeeded
    fusion_enabled: bool = False                        # export(fuse=...)
    fused: list = field(default_factory=list)           # [fuse.FusedLayer]
    fusion_notes: list = field(default_factory=list)    # matched layers left unfused, with the reason
    mlp_fusion_enabled: bool = False                    # export(fuse_mlp=...)
    mlp_fused: list = field(default_factory=list)       # [fuse_mlp.FusedMLP]
    mlp_notes: list = field(default_factory=list)       # matched MLPs left unfused / fusion skipped, why
    conv1x1_as_matmul: int = 0                          # pointwise Conv1d nodes written as MatMul + Add
    conv1x1_kept: int = 0                               # ... kept as Conv by the default's length rule
    conv1x1_note: str = ""                              # why the length rule could not run, if it could not
    opset: int = 0
    ir_version: int = 0
    seconds: float = 0.0
    axes: Optional[object] = None                       # trace.Axes: which input axes are symbolic
    input_names: list = field(default_factory=list)     # the ONNX graph's input names

    @property
    def converted_paths(self) -> list[str]:
        return [c.path for c in self.converted]

    @property
    def spectral_nodes(self) -> int:
        return sum(n for k, n in self.node_counts.items() if k.endswith("::SpectralConv"))

    @property
    def mlp_nodes(self) -> int:
        return sum(n for k, n in self.node_counts.items() if k.endswith("::PointwiseMLP"))

    @property
    def ok(self) -> bool:
        return not self.errors and (self.validation is None or self.validation.passed)

    def summary(self) -> str:
        lines = [f"turbofno export -> {self.path} (opset {self.opset}, ir_version {self.ir_version}, {self.seconds:.1f} s)"]
        lines.append(f"  converted {len(self.converted)} spectral layer(s):")
        for c in self.converted:
            lines.append(f"    {c.path or '<root>'}: {c.source_class} [{c.family}] modes_low={c.modes_low} "
                         f"modes_high={c.modes_high} norm={c.norm} separable={c.separable} bias={c.bias}"
                         + (f" output_size={c.output_size}" if c.output_size else "")
                         + f" (layer check rel err {c.layer_rel_err:.2g})" + (f", called {c.calls}x" if c.calls > 1 else ""))
        if not self.fusion_enabled:
            lines.append("  fusion off (fuse=False / --no-fuse): plain SpectralConv nodes")
        else:
            lines.append(f"  fused {len(self.fused)} of {self.spectral_nodes} SpectralConv node(s) with their skip / "
                         f"bias / activation (op version 2):")
            for f in self.fused:
                lines.append(f"    {f.node}: skip={f.skip} activation={f.activation} folded {'+'.join(f.folded)} "
                             f"(layer check rel err {f.layer_rel_err:.2g})")
            for note in self.fusion_notes:
                lines.append(f"    not fused: {note}")
        if not self.mlp_fusion_enabled:
            lines.append("  MLP fusion off (fuse_mlp=False / --no-fuse-mlp): pointwise MLPs stay Conv / activation nodes")
        elif self.mlp_fused or self.mlp_notes:
            lines.append(f"  fused {len(self.mlp_fused)} pointwise MLP(s) into PointwiseMLP nodes (ai.turbofno opset 2):")
            for f in self.mlp_fused:
                lines.append(f"    {f.node}: channels {'->'.join(str(c) for c in f.channels)} hidden={f.hidden_activation} "
                             f"residual={f.residual} activation={f.activation} folded {'+'.join(f.folded)}"
                             + (" (nn.Linear layers on channels-last data)" if f.layout == "channels-last" else "") + " "
                             f"(check rel err {f.layer_rel_err:.2g})")
            for note in self.mlp_notes:
                lines.append(f"    not fused: {note}")
        else:
            lines.append("  no pointwise MLP (two 1x1 Conv or Linear layers with an activation between) to fuse")
        if self.conv1x1_as_matmul:
            lines.append(f"  {self.conv1x1_as_matmul} pointwise Conv1d node(s) written as MatMul + Add")
        if self.conv1x1_note:
            lines.append(f"  {self.conv1x1_note}")
        if self.conv1x1_kept:
            from turbofno.export.conv1x1 import MATMUL_FROM_LENGTH

            lines.append(f"  {self.conv1x1_kept} pointwise Conv1d node(s) kept as Conv (flattened length < "
                         f"{MATMUL_FROM_LENGTH} on the example: faster as Conv; conv1x1_as_matmul=True / "
                         "--conv-as-matmul rewrites them too)")
        total = sum(self.node_counts.values())
        counts = ", ".join(f"{k.split('::')[-1] if k.startswith('::') else k} x{n}"
                           for k, n in sorted(self.node_counts.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"  ONNX nodes: {total} ({counts})")
        if self.axes is not None:
            lines.append("  " + self.axes.describe(self.input_names))
        if self.validation is not None:
            lines.append("  " + self.validation.summary())
        else:
            lines.append("  ORT validation skipped")
        for e in self.errors:
            lines.append(f"  ERROR: {e}")
        return "\n".join(lines)


def count_nodes(model_proto) -> dict:
    return dict(Counter(f"{n.domain}::{n.op_type}" for n in model_proto.graph.node))
