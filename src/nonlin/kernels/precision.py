"""Which entries compute float32 inputs in float32 on the fused path when ``fp32_compute="auto"``.

float64 internal math keeps every entry within half an ULP of float32, but on a CPU it costs time in the
composite entries (exp, log1p, erfc at half the vector width). float32 math is chosen only for the entries
listed here: those whose float32-math kernels were measured to meet issue 3's float32 goals (forward
<= 2 ULP, backward <= 4 ULP against the mpmath reference). The list is not trusted:
tests/kernels/test_kernel_precision.py re-measures every entry of the catalog on each run (CPU functions
and Triton kernels) and fails if a listed entry misses a goal or an unlisted one meets both, so it
cannot silently go stale when a formula or a backend changes. The others (gelu, silu, mish, swiglu, ...:
a rounded argument is amplified by the function's condition number in the tails) keep float64 math.

On CUDA, "auto" keeps float64 for every entry: real libdevice is 1-2 ULP per call instead of the
interpreter's correctly rounded stand-in, so the CPU measurement does not prove the GPU's accuracy
(benchmarks/gpu_check.py measures it).
"""

from __future__ import annotations

import torch

FP32_MATH: frozenset[str] = frozenset(
    {
        # piecewise-linear or polynomial: float32 arithmetic is exact or one rounding
        "identity", "relu", "leaky_relu", "prelu", "relu6", "relu2", "relu_pow", "shifted_relu",
        "soft_threshold", "clipped_shifted_relu", "clipped_soft_threshold", "helu", "jump_relu",
        "bi_jump_relu", "hardshrink", "hardtanh", "hardsigmoid", "hardswish", "hard_mish", "quadratic",
        "step", "sign", "bilinear", "reglu",
        # one well-conditioned transcendental (not sigmoid: 2.2 ULP forward; not erf or softsign: their
        # derivatives, 61 ULP at x = 8.5 and 2e6 ULP at |x| = 1.8e19 where (1 + |x|)^2 overflows)
        "elu", "selu", "celu", "smelu", "softplus", "tanh", "log_sigmoid", "tempered_sigmoid", "sin",
    }
)  # fmt: skip


def fp32_compute_for(name: str, setting: str, device: torch.device) -> str:
    """The internal precision of float32 inputs of entry `name`: `setting` unless it is "auto"."""
    if setting != "auto":
        return setting
    return "float32" if device.type == "cpu" and name in FP32_MATH else "float64"
