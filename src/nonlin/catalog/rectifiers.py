"""Piecewise-linear and rectified units: exact zeros, kinks, thresholds."""

from __future__ import annotations

import torch.nn.functional as F

from nonlin.catalog._build import Alias, P, Paper, at, pointwise, props, torch_inplace, torch_names

RELU_PAPER = Paper("Rectified linear units improve restricted Boltzmann machines", "ICML 2010", 2010)
SPARSE_PAPER = Paper("Deep Neural Network Initialization with Sparsity Inducing Activations", "arXiv:2402.16184", 2024)
SPARSE_SOURCE = (
    "arXiv:2402.16184 (Price et al., ICLR 2024), abstract and Fig. 1: ReLU_tau, ST_tau and the clipped "
    "CReLU_{tau,m}, CST_{tau,m}; Fig. 1 uses tau=1, m=1"
)
TAU = P("tau", 1.0, "threshold below which the output is zero", low=0.0)
CLIP = P(
    "m",
    1.0,
    "clip level of the output magnitude (theory.clip_level prescribes one)",
    low=0.0,
    low_inclusive=False,
)


def _step(m, x):
    return m.indicator(x > 0, x)


SPECS = [
    pointwise(
        name="identity",
        family="rectifiers",
        formula=r"x",
        summary="The identity; the linear baseline.",
        forward=lambda m, x: x,
        derivative=lambda m, x: m.ones_like(x),
        aliases=("linear", "Identity"),
        derivative_from_output=lambda m, y: m.ones_like(y),
        properties=props("zero_at_zero", "monotonic", "odd", "smooth"),
        torch_equivalent=lambda x: x,
    ),
    pointwise(
        name="relu",
        family="rectifiers",
        formula=r"\max(0, x)",
        summary="Rectified linear unit.",
        forward=lambda m, x: m.maximum(x, 0.0),
        derivative=_step,
        borrowed=(_RELU := torch_names("relu", "ReLU"), torch_inplace(_RELU, "relu_")),
        derivative_from_output=_step,  # y > 0 exactly where x > 0; NaN stays NaN
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse"),
        paper=RELU_PAPER,
        breakpoints=at(0.0),
        torch_equivalent=F.relu,
    ),
    pointwise(
        name="leaky_relu",
        family="rectifiers",
        formula=r"x \text{ if } x>0 \text{ else } \alpha x",
        summary="ReLU with a small fixed negative slope.",
        forward=lambda m, x, alpha: m.where(x > 0, x, alpha * x),
        derivative=lambda m, x, alpha: alpha + (1.0 - alpha) * _step(m, x),
        params=(P("alpha", 0.01, "negative slope", low=0.0),),
        # alpha >= 0: alpha x <= 0 for x <= 0 (an underflow gives -0), so y > 0 exactly where x > 0.
        derivative_from_output=lambda m, y, alpha: alpha + (1.0 - alpha) * _step(m, y),
        borrowed=(
            _LEAKY := torch_names(
                "leaky_relu",
                "LeakyReLU",
                args={"negative_slope": "alpha"},
                positional=("negative_slope", "inplace"),
            ),
            torch_inplace(_LEAKY, "leaky_relu_"),
            Alias(("jax.nn.leaky_relu",), "jax", args={"negative_slope": "alpha"}, positional=("negative_slope",)),
            Alias(
                ("keras.activations.leaky_relu", "keras.ops.leaky_relu"),
                "keras",
                args={"negative_slope": "alpha"},
                defaults={"alpha": 0.2},
                positional=("negative_slope",),
                note="Keras's default slope is 0.2",
            ),
            Alias(
                ("keras.layers.LeakyReLU",),
                "keras",
                args={"negative_slope": "alpha"},
                defaults={"alpha": 0.3},
                positional=("negative_slope",),
                note="the Keras layer's default slope is 0.3",
            ),
        ),
        properties=props("zero_at_zero", "monotonic"),
        paper=Paper("Rectifier Nonlinearities Improve Neural Network Acoustic Models", "ICML 2013 WDLASL", 2013),
        breakpoints=at(0.0),
        torch_equivalent=lambda x, alpha=0.01: F.leaky_relu(x, alpha),
    ),
    pointwise(
        name="prelu",
        family="rectifiers",
        formula=r"x \text{ if } x>0 \text{ else } a x",
        summary="Parametric ReLU: a learnable negative slope, shared or per channel.",
        forward=lambda m, x, a: m.where(x > 0, x, a * x),
        derivative=lambda m, x, a: a + (1.0 - a) * _step(m, x),
        params=(
            P(
                "a",
                0.25,
                "negative slope",
                learnable=True,
                learned_by_default=True,
                init="constant 0.25 (He et al. 2015); num_parameters=C gives one per channel",
            ),
        ),
        borrowed=(
            torch_names(
                "prelu",
                "PReLU",
                args={"init": "a"},
                positional=("weight",),
                module_positional=("num_parameters", "init"),
                note="F.prelu(x, weight): a weight of C values applies along dim 1, as torch's",
            ),
        ),
        properties=props("zero_at_zero", "monotonic", "learnable"),
        paper=Paper("Delving Deep into Rectifiers", "arXiv:1502.01852", 2015),
        breakpoints=at(0.0),
        torch_equivalent=lambda x, a=0.25: F.prelu(x, x.new_tensor([a])),
    ),
    pointwise(
        name="relu6",
        family="rectifiers",
        formula=r"\min(\max(0, x), 6)",
        summary="ReLU clipped at 6 (MobileNet).",
        forward=lambda m, x: m.clamp(x, 0.0, 6.0),
        derivative=lambda m, x: m.indicator((x > 0) & (x < 6), x),
        borrowed=(torch_names("relu6", "ReLU6"),),
        derivative_from_output=lambda m, y: m.indicator((y > 0) & (y < 6), y),  # y = x strictly inside
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "nonnegative", "sparse"),
        breakpoints=at(0.0, 6.0),
        torch_equivalent=F.relu6,
    ),
    pointwise(
        name="relu2",
        family="rectifiers",
        formula=r"\max(0, x)^2",
        summary="Squared ReLU (Primer).",
        forward=lambda m, x: m.square(m.maximum(x, 0.0)),
        derivative=lambda m, x: 2.0 * m.maximum(x, 0.0),
        aliases=("squared_relu", "relu_squared", "relu2_activation"),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse", "smooth"),
        paper=Paper("Primer: Searching for Efficient Transformers for Language Modeling", "arXiv:2109.08668", 2021),
        breakpoints=at(0.0),
        torch_equivalent=lambda x: F.relu(x) ** 2,
    ),
    pointwise(
        name="relu_pow",
        family="rectifiers",
        formula=r"\max(0, x)^n",
        summary="Rectified polynomial (dense associative memories).",
        forward=lambda m, x, n: m.pow(m.maximum(x, 0.0), n),
        derivative=lambda m, x, n: n * m.pow(m.maximum(x, 0.0), n - 1) * _step(m, x),
        params=(P("n", 3.0, "power", low=1.0, integer=True),),
        aliases=("rectified_polynomial", "repu"),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse", "smooth"),
        paper=Paper("Dense Associative Memory for Pattern Recognition", "arXiv:1606.01164", 2016),
        breakpoints=at(0.0),
        torch_equivalent=lambda x, n=3: F.relu(x) ** n,
    ),
    pointwise(
        name="shifted_relu",
        family="rectifiers",
        formula=r"\max(0, x - \tau)",
        summary="ReLU shifted right by tau: sparse at initialisation.",
        forward=lambda m, x, tau: m.maximum(x - tau, 0.0),
        derivative=lambda m, x, tau: m.indicator(x > tau, x),
        params=(TAU,),
        # With tau representable, x - tau for x > tau is a nonzero multiple of the dtype's smallest
        # subnormal, so it does not round to 0: y > 0 exactly where x > tau.
        derivative_from_output=lambda m, y, tau: _step(m, y),
        output_constants=lambda tau: (tau,),
        aliases=("relu_tau",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse"),
        paper=SPARSE_PAPER,
        source=SPARSE_SOURCE,
        breakpoints=lambda tau, **_: (tau,),
    ),
    pointwise(
        name="soft_threshold",
        family="rectifiers",
        formula=r"\operatorname{sign}(x)\max(|x| - \tau, 0)",
        summary="Soft thresholding (shrinkage): zero on [-tau, tau].",
        forward=lambda m, x, tau: m.sign(x) * m.maximum(m.abs(x) - tau, 0.0),
        derivative=lambda m, x, tau: m.indicator(m.abs(x) > tau, x),
        params=(TAU,),
        # As shifted_relu: |x| - tau > 0 never rounds to 0 when tau is representable, so y != 0 iff |x| > tau.
        derivative_from_output=lambda m, y, tau: m.indicator(y != 0, y),
        output_constants=lambda tau: (tau,),
        aliases=("st_tau",),
        borrowed=(
            torch_names(
                "softshrink", "Softshrink", args={"lambd": "tau"}, defaults={"tau": 0.5}, positional=("lambd",)
            ),
            Alias(
                ("soft_shrink", "keras.activations.soft_shrink", "keras.ops.soft_shrink"),
                "keras",
                args={"threshold": "tau"},
                defaults={"tau": 0.5},
                positional=("threshold",),
            ),
        ),
        properties=props("zero_at_zero", "monotonic", "odd", "sparse"),
        paper=SPARSE_PAPER,
        source=SPARSE_SOURCE,
        breakpoints=lambda tau, **_: (-tau, tau),
        torch_equivalent=lambda x, tau=1.0: F.softshrink(x, tau),
    ),
    pointwise(
        name="clipped_shifted_relu",
        family="rectifiers",
        formula=r"\min(\max(0, x - \tau), m)",
        summary="Shifted ReLU clipped at magnitude m (CReLU_{tau,m}): sparse and stable.",
        forward=lambda m_, x, tau, m: m_.clamp(x - tau, 0.0, m),
        derivative=lambda m_, x, tau, m: m_.indicator((x > tau) & (x < tau + m), x),
        params=(TAU, CLIP),
        aliases=("crelu_tau_m",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "nonnegative", "sparse"),
        paper=SPARSE_PAPER,
        source=SPARSE_SOURCE,
        breakpoints=lambda tau, m, **_: (tau, tau + m),
    ),
    pointwise(
        name="clipped_soft_threshold",
        family="rectifiers",
        formula=r"\operatorname{sign}(x)\min(\max(|x| - \tau, 0), m)",
        summary="Soft thresholding clipped at magnitude m (CST_{tau,m}).",
        forward=lambda m_, x, tau, m: m_.sign(x) * m_.clamp(m_.abs(x) - tau, 0.0, m),
        derivative=lambda m_, x, tau, m: m_.indicator((m_.abs(x) > tau) & (m_.abs(x) < tau + m), x),
        params=(TAU, CLIP),
        aliases=("cst_tau_m",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "sparse"),
        paper=SPARSE_PAPER,
        source=SPARSE_SOURCE,
        breakpoints=lambda tau, m, **_: (-tau - m, -tau, tau, tau + m),
    ),
    pointwise(
        name="helu",
        family="rectifiers",
        formula=r"\max(0, x);\ \partial = \mathbb{1}[x > -\alpha]",
        summary="Hysteresis ReLU: ReLU forward, gradient passed down to -alpha.",
        forward=lambda m, x, alpha: m.maximum(x, 0.0),
        derivative=lambda m, x, alpha: m.indicator(x > -alpha, x),
        params=(P("alpha", 0.1, "how far below zero the backward threshold sits", low=0.0),),
        aliases=("hysteresis_relu",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse", "gradient_rule"),
        paper=Paper("Hysteresis Activation Function for Efficient Inference", "arXiv:2411.10573", 2024),
        confirmed=False,
        source=(
            "rule 1[x > -alpha] confirmed from a summary quoting the paper's equations; the paper gives no "
            "default alpha (0.1 is nonlin's choice, unconfirmed)"
        ),
        gradient_rule="backward passes the upstream gradient where x > -alpha (hysteresis), not where x > 0",
        breakpoints=lambda alpha, **_: (-alpha, 0.0),
    ),
    pointwise(
        name="jump_relu",
        family="rectifiers",
        formula=r"x\,\mathbb{1}[x > \theta]",
        summary="JumpReLU: identity above a threshold, zero below (a jump at theta).",
        forward=lambda m, x, theta: m.keep(x > theta, x),
        derivative=lambda m, x, theta: m.indicator(x > theta, x),
        params=(P("theta", 1.0, "threshold", low=0.0),),
        # y is x (unrounded) above theta and 0 <= theta elsewhere.
        derivative_from_output=lambda m, y, theta: m.indicator(y > theta, y),
        aliases=("jumprelu",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse"),
        paper=Paper("Jumping Ahead: Improving Reconstruction Fidelity with JumpReLU SAEs", "arXiv:2407.14435", 2024),
        source="arXiv:2407.14435 abstract and reference SAE code: z H(z - theta), dz = H(z - theta)",
        notes=(
            "theta is a fixed hyperparameter here; the SAE paper's kernel pseudo-derivative for a learned "
            "theta is not implemented."
        ),
        breakpoints=lambda theta, **_: (theta,),
    ),
    pointwise(
        name="bi_jump_relu",
        family="rectifiers",
        formula=r"x\,\mathbb{1}[x > \theta^+] + x\,\mathbb{1}[x < -\theta^-]",
        summary="Two-sided JumpReLU: keeps large positive and large negative inputs.",
        forward=lambda m, x, theta_pos, theta_neg: m.keep(x > theta_pos, x) + m.keep(x < -theta_neg, x),
        derivative=lambda m, x, theta_pos, theta_neg: m.indicator((x > theta_pos) | (x < -theta_neg), x),
        derivative_from_output=lambda m, y, theta_pos, theta_neg: m.indicator((y > theta_pos) | (y < -theta_neg), y),
        params=(
            P("theta_pos", 1.0, "positive threshold", low=0.0),
            P("theta_neg", 1.0, "negative threshold (magnitude)", low=0.0),
        ),
        aliases=("two_sided_jump_relu",),
        properties=props("zero_at_zero", "monotonic", "odd", "sparse"),
        confirmed=False,
        source="no published definition found; nonlin's two-sided extension of JumpReLU (sign-aware SAEs)",
        breakpoints=lambda theta_pos, theta_neg, **_: (-theta_neg, theta_pos),
    ),
    pointwise(
        name="hardshrink",
        family="rectifiers",
        formula=r"x\,\mathbb{1}[|x| > \lambda]",
        summary="Hard shrinkage: zero on [-lambda, lambda], identity outside.",
        forward=lambda m, x, lambd: m.keep(m.abs(x) > lambd, x),
        derivative=lambda m, x, lambd: m.indicator(m.abs(x) > lambd, x),
        params=(P("lambd", 0.5, "half-width of the zero band", low=0.0),),
        derivative_from_output=lambda m, y, lambd: m.indicator(m.abs(y) > lambd, y),  # y is x or 0
        borrowed=(
            torch_names("hardshrink", "Hardshrink", positional=("lambd",)),
            Alias(
                ("hard_shrink", "keras.activations.hard_shrink", "keras.ops.hard_shrink"),
                "keras",
                args={"threshold": "lambd"},
                defaults={"lambd": 0.5},
                positional=("threshold",),
            ),
        ),
        properties=props("zero_at_zero", "monotonic", "odd", "sparse"),
        breakpoints=lambda lambd, **_: (-lambd, lambd),
        torch_equivalent=lambda x, lambd=0.5: F.hardshrink(x, lambd),
    ),
    pointwise(
        name="hardtanh",
        family="rectifiers",
        formula=r"\min(\max(x, -1), 1)",
        summary="Identity clipped to [min_val, max_val].",
        forward=lambda m, x, min_val, max_val: m.clamp(x, min_val, max_val),
        derivative=lambda m, x, min_val, max_val: m.indicator((x > min_val) & (x < max_val), x),
        params=(P("min_val", -1.0, "lower clip", high=0.0), P("max_val", 1.0, "upper clip", low=0.0)),
        # y is x strictly inside and the clip level itself outside, which must then be representable.
        derivative_from_output=lambda m, y, min_val, max_val: m.indicator((y > min_val) & (y < max_val), y),
        output_constants=lambda min_val, max_val: (min_val, max_val),
        aliases=("hard_tanh",),  # JAX and Keras: clip to [-1, 1], no parameters
        borrowed=(
            _HARDTANH := torch_names(
                "hardtanh",
                "Hardtanh",
                args={"min_value": "min_val", "max_value": "max_val"},
                positional=("min_val", "max_val", "inplace"),
            ),
            torch_inplace(_HARDTANH, "hardtanh_"),
        ),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd"),
        breakpoints=lambda min_val, max_val, **_: (min_val, max_val),
        torch_equivalent=lambda x, min_val=-1.0, max_val=1.0: F.hardtanh(x, min_val, max_val),
    ),
    pointwise(
        name="hardsigmoid",
        family="rectifiers",
        formula=r"\operatorname{relu6}(x + 3) / 6",
        summary="Piecewise-linear sigmoid (MobileNetV3).",
        forward=lambda m, x: m.clamp(x + 3.0, 0.0, 6.0) / 6.0,
        derivative=lambda m, x: m.indicator((x > -3) & (x < 3), x) / 6.0,
        aliases=("hard_sigmoid",),  # timm, Keras 3 and JAX: relu6(x + 3) / 6
        borrowed=(torch_names("hardsigmoid", "Hardsigmoid"),),
        properties=props("monotonic", "bounded_below", "bounded_above", "nonnegative", "sparse"),
        paper=Paper("Searching for MobileNetV3", "arXiv:1905.02244", 2019),
        breakpoints=at(-3.0, 3.0),
        torch_equivalent=F.hardsigmoid,
    ),
    pointwise(
        name="hardswish",
        family="rectifiers",
        formula=r"x \operatorname{relu6}(x + 3) / 6",
        summary="x times hardsigmoid (MobileNetV3).",
        forward=lambda m, x: m.gated(x, m.clamp(x + 3.0, 0.0, 6.0) / 6.0),
        derivative=lambda m, x: m.where(x < -3, m.zeros_like(x), m.where(x > 3, m.ones_like(x), (2.0 * x + 3.0) / 6.0)),
        aliases=("hard_swish", "hard_silu"),  # timm; JAX and Keras
        borrowed=(torch_names("hardswish", "Hardswish"),),
        properties=props("zero_at_zero", "bounded_below", "sparse", "self_gated"),
        paper=Paper("Searching for MobileNetV3", "arXiv:1905.02244", 2019),
        breakpoints=at(-3.0, 3.0),
        torch_equivalent=F.hardswish,
    ),
    pointwise(
        name="hard_mish",
        family="rectifiers",
        formula=r"\frac{1}{2} x \min(\max(x + 2, 0), 2)",
        summary="Piecewise-quadratic approximation of mish (timm).",
        forward=lambda m, x: m.gated(x, 0.5 * m.clamp(x + 2.0, 0.0, 2.0)),
        derivative=lambda m, x: m.where(x < -2, m.zeros_like(x), m.where(x > 0, m.ones_like(x), x + 1.0)),
        aliases=("hardmish", "HardMish"),
        properties=props("zero_at_zero", "bounded_below", "sparse", "self_gated"),
        source="timm.layers.activations.hard_mish",
        breakpoints=at(-2.0, 0.0),
    ),
]
