"""Which entries compute float32 inputs in float32 on the fused path when ``fp32_compute="auto"``, per pass.

float64 internal math keeps every entry within half an ULP of float32, but on a CPU it costs time in the
composite entries (exp, log1p, erfc at half the vector width). float32 math is chosen per pass (forward,
backward) only for the entries listed for that pass: those whose float32-math kernels were measured to meet
issue 3's float32 goals (forward <= 2 ULP, backward <= 4 ULP against the mpmath reference) with MARGIN to
spare. The margin is for the CPU's vector ISA: the libm behind the CPU functions (ATen's and inductor's
Sleef vector functions for AVX2 or AVX-512, scalar libm without them, NEON/SVE on aarch64) rounds
differently per ISA, moving an entry's worst error by up to 0.13 ULP between the ISAs measured (softplus:
0.88 scalar, 1.01 AVX2 and AVX-512), so an entry just under its goal on one machine can miss it on
another. The passes are independent: the backward recomputes from the saved inputs, so a forward in
float32 does not feed it. The lists are not trusted: tests/kernels/test_kernel_precision.py re-measures
every entry of the catalog, each pass, on each run (CPU functions and Triton kernels), and CI repeats it
under every ISA its CPU can run (.ci/isa_matrix.py); it fails if a listed entry comes closer to its goal
than MARGIN or an unlisted one clears it by twice MARGIN, so the lists cannot silently go stale when a
formula or a backend changes, and an entry within the band between keeps float64 on every machine. The
others (swiglu, tanhexp, ...: a rounded argument is amplified by the function's
condition number in the tails, or a derivative cancels near its zero) keep float64 math, and so do selu's and xatlu's
forwards (1.77 and 1.85 ULP: inside the goal, not by the margin).

The lists were measured at each entry's default parameters, and hold only there: softplus at beta = 1.75 is
32 ULP with float32 math (x = -18.7, tests/kernels/test_fp32_params.py), so calls with other parameter values, and calls with tensor parameters, compute
float32 inputs in float64 on every path that reads the lists (fp32_compute_for's `at_defaults`).

On CUDA, "auto" keeps float64 for every entry: real libdevice is 1-2 ULP per call instead of the
interpreter's correctly rounded stand-in, so the CPU measurement does not prove the GPU's accuracy
(benchmarks/gpu_check.py measures it).
"""

from __future__ import annotations

from typing import Literal

import torch

Pass = Literal["forward", "backward"]

_BOTH = frozenset(
    {
        # piecewise-linear or polynomial: float32 arithmetic is exact or one rounding
        "identity", "relu", "leaky_relu", "prelu", "relu6", "relu2", "relu_pow", "shifted_relu",
        "soft_threshold", "clipped_shifted_relu", "clipped_soft_threshold", "helu", "jump_relu",
        "bi_jump_relu", "hardshrink", "hardtanh", "hardsigmoid", "hardswish", "hard_mish", "quadratic",
        "step", "sign", "bilinear", "reglu",
        # one well-conditioned transcendental
        "elu", "celu", "smelu", "softplus", "tanh", "log_sigmoid", "tempered_sigmoid", "sin",
        # float32 inputs' sigmoid is nonlin.ops.torch_compiled.sigmoid_float32 (<= 1.1 ULP, no libm call)
        "sigmoid",
    }
)  # fmt: skip

# How far under its goal (ULP) a listed pass's worst error must stay on every ISA; an unlisted pass that
# clears its goal by twice this belongs in the list.
MARGIN = 0.25

# issue 15 additions, measured the same way (tests/kernels/test_kernel_precision.py)
_BOTH_ADDED = frozenset(
    {
        "star_relu", "dyt", "threshold", "sparse_sigmoid", "sqrtsoftplus", "lisht", "pelu", "symlog", "symexp",
        "penalized_tanh", "drelu", "fatrelu_glu", "soft_exponential", "srelu", "nlrelu", "cube", "absolute", "squ",
        "elu_plus_one", "exponential", "shifted_softplus",
        "cosine", "arcsinh", "hard_sigmoid_keras2",
    }
)  # fmt: skip
_FORWARD_ADDED = frozenset({"isru", "isrlu", "arctan", "derf", "elliott"})
_BACKWARD_ADDED = frozenset({"tanhshrink", "smu", "bent_identity", "polyrelu"})
# issue 12: derivatives whose float32 arithmetic overflowed where the value is a number ((1 + |x|)^2 and x^2
# beyond 1.8e19, (2r) v); with the square of the reciprocal there (catalog.smooth.reciprocal_square) and r v
# first they meet the goal: softsign and elliott 3.19 ULP, arctan 1.80, relu2_glu 0.99 (sampled)
_BACKWARD_OVERFLOW_FREE = frozenset({"softsign", "elliott", "arctan", "relu2_glu"})

# issue 12, the erfc family: Phi and phi of float32 tensors in float32 arithmetic assembled in float64
# (nonlin.ops.torch_compiled.norm_cdf_float32, no libm call, so the same bits on every ISA). geglu's forward:
# 1.53 ULP (gelu(g) v); ndtr's derivative is phi itself. gelu's derivative Phi(x) + x phi(x) cancels near its
# zero (x = -0.7518: 1.3e5 ULP as a float32 sum); the primitive gelu_grad takes a polynomial in x - x0 there
# (gelu_grad_float32), so gelu's, xgelu's, clipped_gelu's and geglu's backwards are float32 math too.
_ERFC_FORWARD = frozenset({"gelu", "xgelu", "clipped_gelu", "geglu", "ndtr"})
_ERFC_BACKWARD = frozenset({"ndtr", "gelu", "xgelu", "clipped_gelu", "geglu"})

# issue 12, the swish family: x sigma(beta x) of float32 tensors in float32 arithmetic with one rounding
# (nonlin.ops.torch_compiled.swish_float32, no libm call). Forwards at the default beta: silu 0.55 ULP,
# quick_gelu 0.58 (its 1.702 x carried exactly); swiglu's g sigma(g) v with v inside the quotient
# (swiglu_float32: swish(g) rounded before * v was 99 ULP where the gate is subnormal and v large).
_SWISH_FORWARD = frozenset({"silu", "swish", "quick_gelu", "swiglu"})
# Their backward: s (1 + z sigma(-z)), z = beta x, cancels near its zero (z = -1.2785: 3217 ULP with float32
# terms on the sample's crossing window); the primitive swish_grad takes a polynomial in x - x0 / beta there and
# exact hi + lo terms elsewhere (swish_grad_float32, at beta = 1 and quick_gelu's 1.702: before, 17.5 / 10083 ULP
# in plain float32). swiglu's backward stays float64: its gate gradient v swish_grad(g) rounds twice.
_SWISH_BACKWARD = frozenset({"silu", "swish", "quick_gelu"})

# issue 12, mish: x n / (n + 2), n = e^x (e^x + 2), of float32 tensors in float32 arithmetic with one rounding
# (nonlin.ops.torch_compiled.mish_float32, no libm call): 0.78 ULP where the float32 composition x tanh(softplus(x))
# is 154 (x = -102.9: the subnormal gate rounded before the product). Its backward stays float64, as one exp
# (mish_grad_float64_narrow: 0.5 ULP, as fast as a float32 form: 6.7 ULP in float32 terms, cancelling at x = -1.19).
_MISH_FORWARD = frozenset({"mish"})

# Entries whose float32 math meets the goals only through the CPU namespace's forms: Triton's float32 math
# for them is libdevice's erfc of a rounded argument (gelu: 162 ULP) or x * sigmoid(z) rounded twice (silu:
# 52), and "auto" keeps float64 on CUDA for every entry, so the test measures their passes on the CPU functions
# only.
# tanh, dyt and penalized_tanh too: their backward's sech2 of float32 inputs is assembled in float64 in the CPU
# namespaces only (4.11 ULP in float32 arithmetic on the dense sweep, 1.46 so); Triton keeps float32 arithmetic,
# where half inputs compute (a float64 division would cost GPUs with 1/64-rate float64 more than it buys).
CPU_FORMS_ONLY = _ERFC_FORWARD | _ERFC_BACKWARD | _SWISH_FORWARD | _SWISH_BACKWARD | {"tanh", "dyt", "penalized_tanh"}
CPU_FORMS_ONLY |= _MISH_FORWARD

# issue 12, the dense sweep (tests/kernels/test_kernel_precision.py's slow test: 3.6 million inputs, under the
# default, AVX2 and AVX-512 ISAs): passes whose worst error lies between the default run's sample points and
# comes within MARGIN of the goal, or over it (ULP, the same on every ISA measured): forward arcsinh 2.07,
# isru and isrlu 2.31, smelu 1.91, hardswish 1.86; backward sau 4.52 (Triton), tempered_sigmoid 4.41,
# sqrtsoftplus 3.76. They compute in float64; the test holds each to its miss on the dense sweep.
DENSE_MISSES: dict[Pass, frozenset[str]] = {
    "forward": frozenset({"arcsinh", "isru", "isrlu", "smelu", "hardswish"}),
    "backward": frozenset({"sau", "tempered_sigmoid", "sqrtsoftplus"}),
}

FP32_MATH: dict[Pass, frozenset[str]] = {
    # forward only: their derivatives are not (erf's exp(-x^2) of a rounded x^2, 61 ULP at x = 8.5; gcu
    # cancels near the derivative's zeros)
    "forward": (_BOTH | _BOTH_ADDED | _FORWARD_ADDED | _ERFC_FORWARD | _SWISH_FORWARD | {"erf", "softsign", "gcu"})
    - DENSE_MISSES["forward"]
    | _MISH_FORWARD,
    # backward only: sau's forward 100+ ULP (norm_cdf of a rounded argument in the tail), selu's forward
    # 1.77 (the rounded scale times a rounded value); their derivatives meet the goal with the margin
    "backward": (
        _BOTH
        | _BOTH_ADDED
        | _BACKWARD_ADDED
        | _BACKWARD_OVERFLOW_FREE
        | _ERFC_BACKWARD
        | _SWISH_BACKWARD
        | {"sau", "selu"}
    )
    - DENSE_MISSES["backward"],
}


def fp32_compute_for(name: str, setting: str, device: torch.device, pass_: Pass, at_defaults: bool = True) -> str:
    """The internal precision of float32 inputs of entry `name` in one pass: `setting` unless it is "auto".
    `at_defaults`: the call's parameters are the entry's defaults (tensor parameters are not), the only values
    the lists were measured at; with others, "auto" is float64 on every path (direct, custom op, traced)."""
    if setting != "auto":
        return setting
    if not at_defaults or device.type != "cpu" or name not in FP32_MATH[pass_]:
        return "float64"
    if name in CPU_FORMS_ONLY:
        from nonlin.kernels import state  # imports this module

        if state.backend_for(device) == "triton":  # the interpreter on CPU: libdevice's float32 forms
            return "float64"
    return "float32"
