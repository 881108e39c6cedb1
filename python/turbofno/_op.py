"""The SpectralConv name table for Python: mirrors plugins/include/turbofno/core.h (docs/op.md).

tests/python/test_package.py (test_names_match_core_header) checks that the two agree. The rules
(argument checks, output shape, kept indices, node attributes) are in turbofno._rules.
"""
from __future__ import annotations

OP_TYPE = "SpectralConv"          # ONNX op_type == TensorRT plugin name
DOMAIN = "ai.turbofno"            # ONNX custom domain (TensorRT ignores it)
OPSET_VERSION = 1                 # opset version of DOMAIN for plain layers (core.h kOpMinVersion)
OPSET_VERSION_FUSED = 2           # adds input 3 skip_weight and `activation` (core.h kOpVersion)
ATTR_MODES_LOW = "modes_low"      # INTS, length d
ATTR_MODES_HIGH = "modes_high"    # INTS, length d, last entry 0
ATTR_NORM = "norm"                # INT: 0 backward, 1 forward, 2 ortho
ATTR_SEPARABLE = "separable"      # INT: 0 or 1
ATTR_OUTPUT_SIZE = "output_size"  # INTS, length d, optional: output spatial size (absent: the input's)
ATTR_ACTIVATION = "activation"    # INT: ACTIVATIONS value, default 0 (version 2)
ATTR_PLUGIN_VERSION = "plugin_version"      # STRING, for TensorRT's ONNX parser
ATTR_PLUGIN_NAMESPACE = "plugin_namespace"  # STRING, for TensorRT's ONNX parser
PLUGIN_VERSION = "1"
PLUGIN_NAMESPACE = ""

NORMS = {"backward": 0, "forward": 1, "ortho": 2}   # torch.fft norm name -> attribute value
# activation name -> attribute value (core::Activation in params.h); gelu is exact (erf), gelu_tanh
# torch's approximate="tanh".
ACTIVATIONS = {"identity": 0, "gelu": 1, "gelu_tanh": 2, "relu": 3, "silu": 4, "tanh": 5}
ACTIVATION_NAMES = {v: k for k, v in ACTIVATIONS.items()}
NORM_NAMES = {v: k for k, v in NORMS.items()}

# PointwiseMLP (plugins/include/turbofno/pointwise_mlp.h; docs/op.md, "PointwiseMLP"): the second op of
# DOMAIN, a per-point two-layer channel MLP with an optional gated residual. Same activation values.
MLP_OP_TYPE = "PointwiseMLP"                 # kMlpOpType
MLP_OPSET_VERSION = 2                        # kMlpOpSinceVersion: exists from DOMAIN opset 2 on
ATTR_HIDDEN_ACTIVATION = "hidden_activation" # INT: ACTIVATIONS value, default 1 (gelu)
# ATTR_ACTIVATION (default 0 = identity) is the output activation.
MLP_INPUTS = ("x", "w1", "b1", "w2", "b2", "residual", "gate")  # ONNX input order (MlpInput); "" = absent
MLP_REQUIRED_INPUTS = ("x", "w1", "w2")
