"""Smooth rectifiers: exponential units and self-gated units x * g(x)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from nonlin.catalog._build import Alias, P, Paper, at, pointwise, props, torch_inplace, torch_names

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_TANH_C = 0.044715
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def _elu(m, x, alpha):
    # expm1 of the clamped input: the unused branch stays finite, so parameter gradients are never inf * 0.
    return m.where(x > 0, x, alpha * m.expm1(m.minimum(x, 0.0)))


def _elu_grad(m, x, alpha):
    return m.where(x > 0, m.ones_like(x), alpha * m.exp(m.minimum(x, 0.0)))


_TAIL, _SHIFT = -700.0, 600.0
_EXP_MINUS_SHIFT = math.exp(-_SHIFT)


def _tail_shift(m, z):
    """(z', scale) for a gate sigmoid(z) (or tanh(softplus(z)), ~e^z as z -> -inf) in float64.

    Below z = -700 the gate is subnormal: it has lost bits before it multiplies x, and the product rounds a
    second time (silu(-725.5) was 361 ULP off, silu(-745) 75% off). There the gate is taken at z + 600
    (exact: both are multiples of z's ULP below 1024 in magnitude), the product stays normal, and one
    multiplication by e^-600 rounds it once into the subnormal range. Other dtypes and backends (the mpmath
    reference, the interval and Triton backends) take the plain form: scale None; so do namespaces that compute
    float32 or half outputs in float64 (`io_dtype`): their outputs are 0 below 2^-1022 either way."""
    if getattr(z, "dtype", None) != torch.float64 or getattr(m, "io_dtype", torch.float64) != torch.float64:
        return z, None
    tail = z < _TAIL
    return m.where(tail, z + _SHIFT, z), m.where(tail, m.full_like(z, _EXP_MINUS_SHIFT), m.ones_like(z))


def _scaled(y, scale):
    return y if scale is None else y * scale


def swish_formula(m, x, beta):
    """x sigma(beta x), gated, the float64 gate shifted below -700: the body of the torch backend's m.swish."""
    z, scale = _tail_shift(m, beta * x)
    return _scaled(m.gated(x, m.sigmoid(z)), scale)


def swish_grad_formula(m, x, beta):
    """The body of the torch backend's m.swish_grad: s (1 + bx sigma(-bx)) rather than s + bx s sigma(-bx), the
    same rounding, but where s underflows the product is a zero with the sign of the true (negative) value
    instead of +0 + -0 = +0."""
    bx = beta * x
    z, scale = _tail_shift(m, bx)
    return _scaled(m.gated(1.0 + m.gated(bx, m.sigmoid(-bx)), m.sigmoid(z)), scale)


def _swish(m, x, beta):
    # One primitive, so that a namespace can give float32 inputs their own form (torch_compiled.swish_float32:
    # one rounding), and the fused float64 kernels get the tail shift of the eager path (a traced plan's symbols
    # have no dtype to decide it on)
    return m.swish(x, beta)


def _swish_grad(m, x, beta):
    # one primitive: the compiled float32 namespace computes silu's without its cancellation
    return m.swish_grad(x, beta)


def _gelu_tanh_arg(x):
    # 1 + tanh(u) = 2 sigmoid(2u): the sigmoid form has no cancellation as u -> -inf.
    return 2.0 * _SQRT_2_OVER_PI * (x + _GELU_TANH_C * x * x * x)


def gelu_tanh_formula(m, x):
    """x sigma(u): the body of the primitives m.gelu_tanh of the torch, mpmath and interval backends."""
    z, scale = _tail_shift(m, _gelu_tanh_arg(x))
    return _scaled(m.gated(x, m.sigmoid(z)), scale)


def _gelu_tanh(m, x):
    # One primitive, so that a namespace can give float32 inputs their own form (u carried as hi + lo; the
    # derivative's zero at x = -0.7525 as a polynomial): one generated that way was 0.6 ULP but twice the time of
    # float64 math on CPU (docs/kernels.md), so every namespace computes this formula; float32 CPU calls take
    # native32's hand-written FMA kernel of that design instead (matched by this primitive in the trace).
    return m.gelu_tanh(x)


def _gelu_tanh_grad(m, x):
    return m.gelu_tanh_grad(x)


def gelu_tanh_grad_formula(m, x):
    u = _gelu_tanh_arg(x)
    du = 2.0 * _SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_TANH_C * x * x)
    z, scale = _tail_shift(m, u)
    # s (1 + x u' sigma(-u)): where s underflows, a zero with the true value's sign (see _swish_grad)
    return _scaled(m.gated(1.0 + m.gated(x * du, m.sigmoid(-u)), m.sigmoid(z)), scale)


def signed_sum(m, a, t):
    """a + t, except that where both are zero the result is t's zero: when a tiny positive term and a tiny
    negative one both underflow, +0 + (-0) = +0 would lose the sign of the (dominant, negative) term t."""
    y = a + t
    return m.where((y == 0) & (t == 0), t, y)


# |x| beyond which a square in a denominator is taken as the square of a reciprocal: x^2 overflows float64 at
# 1.3e154 and float32 at 1.8e19 where 1 / x^2 is still a (subnormal) number; 2^60 is below both.
_SQUARE_OVERFLOWS = 2.0**60


def reciprocal_square(m, ax, c: float):
    """1 / (c + ax)^2 for ax = |x|: one rounding of the square and one of the quotient, and where the square
    would overflow, the square of the reciprocal (its value a subnormal number or 0 as the reference says)."""
    far = ax > _SQUARE_OVERFLOWS
    return m.where(far, m.square(1.0 / (c + ax)), 1.0 / m.square(c + m.where(far, m.zeros_like(ax), ax)))


def reciprocal_one_plus_square(m, ax):
    """1 / (1 + x^2) for ax = |x|, without overflowing x^2 (see reciprocal_square)."""
    far = ax > _SQUARE_OVERFLOWS
    near = m.where(far, m.zeros_like(ax), ax)
    return m.where(far, m.square(1.0 / m.maximum(ax, 1.0)), 1.0 / (1.0 + near * near))  # (no 1/0 at x = 0)


def _gelu_grad(m, x):
    # Phi(x) + x phi(x) as one primitive: float32 inputs need a form without its cancellation at x = -0.7518
    # (nonlin.ops.torch_compiled.gelu_grad_float32); the backends keep the signed zero of the left tail.
    return m.gelu_grad(x)


def _golu(m, x, alpha, beta, gamma):
    return alpha * m.gated(x, m.exp(-beta * m.exp(-gamma * x)))


def _golu_grad(m, x, alpha, beta, gamma):
    e = m.exp(-gamma * x)
    g = m.exp(-beta * e)
    # x * beta*gamma*e * g written as one exponential, so no inf * 0 when e overflows and g underflows.
    tail = m.where(gamma * x > -700.0, beta * gamma * m.exp(-gamma * x - beta * e), m.zeros_like(x))
    return alpha * signed_sum(m, g, m.gated(x, tail))


def mish_formula(m, x):
    """x tanh(softplus(x)): the body of the primitives m.mish of the torch, mpmath and interval backends."""
    z, scale = _tail_shift(m, x)  # tanh(softplus(z)) = e^z (1 + O(e^z)) below -700, as sigmoid
    return _scaled(m.gated(x, m.tanh(m.softplus(z))), scale)


def mish_grad_formula(m, x):
    z, scale = _tail_shift(m, x)  # below -700: e^x + x e^x, both terms scaled alike
    sp = m.softplus(z)
    return _scaled(signed_sum(m, m.tanh(sp), m.gated(x, m.sech2(sp) * m.sigmoid(z))), scale)


def _mish(m, x):
    # One primitive, so that a namespace can give float32 inputs their own form (nonlin.ops.torch_compiled's
    # mish_float32: one rounding of x n / (n + 2), n = e^x (e^x + 2)) and float32 inputs computing in float64 one
    # exp where the formula calls three functions (mish_float64_narrow)
    return m.mish(x)


def _mish_grad(m, x):
    return m.mish_grad(x)


def _xgate(m, x, g, alpha):
    return (1.0 + 2.0 * alpha) * g - alpha


def _atan_gate(m, x):
    # arctan(x)/pi + 1/2 cancels as x -> -inf; for x < 0 it equals -arctan(1/x)/pi exactly.
    return m.where(x < 0, -m.atan(1.0 / m.minimum(x, -1e-300)) / m.pi, m.atan(x) / m.pi + 0.5)


def _x_atan_gate(m, x):
    # x * (arctan(x)/pi + 1/2): tends to -1/pi (not 0) as x -> -inf, since the gate decays like 1/|x|.
    # For x < -1e10, x*atan(1/x) = 1 - 1/(3x^2) + O(x^-4): the series is exact to far below an ULP.
    xn = m.minimum(x, -1e-300)
    big = -(1.0 - 1.0 / (3.0 * xn * xn)) / m.pi
    small = -xn * m.atan(1.0 / xn) / m.pi
    neg = m.where(x < -1e10, big, small)
    return m.where(x < 0, neg, x * (m.atan(x) / m.pi + 0.5))


# d/dx [x (arctan(x)/pi + 1/2)] = gate + x/(pi(1+x^2)): the two terms cancel as x -> -inf. With u = 1/x < 0
# it equals (u/(1+u^2) - arctan(u))/pi = sum_{k>=1} (-1)^k 2k/(2k+1) u^(2k+1) / pi; 12 terms are exact to far
# below an ULP for |u| < 0.1.
_ATAN_SERIES = tuple((-1) ** k * 2 * k / (2 * k + 1) for k in range(1, 13))


def _x_atan_gate_grad(m, x):
    u = 1.0 / m.minimum(x, -10.0)
    u2 = u * u
    acc = _ATAN_SERIES[-1] * m.ones_like(x)
    for c in reversed(_ATAN_SERIES[:-1]):
        acc = acc * u2 + c
    series = u * u2 * acc / m.pi
    xs = m.where(m.abs(x) > 1, x, m.ones_like(x))
    x_over_1px2 = m.where(m.abs(x) > 1, 1.0 / (xs + 1.0 / xs), x / (1.0 + x * x))  # finite at +-inf
    direct = _atan_gate(m, x) + x_over_1px2 / m.pi
    return m.where(x < -10.0, series, direct)


SPECS = [
    pointwise(
        name="elu",
        family="smooth",
        formula=r"x \text{ if } x>0 \text{ else } \alpha(e^x - 1)",
        summary="Exponential linear unit.",
        forward=_elu,
        derivative=_elu_grad,
        params=(P("alpha", 1.0, "saturation value -alpha for x -> -inf", low=0.0),),
        borrowed=(_ELU := torch_names("elu", "ELU", positional=("alpha", "inplace")), torch_inplace(_ELU, "elu_")),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "smooth"),
        paper=Paper("Fast and Accurate Deep Network Learning by Exponential Linear Units", "arXiv:1511.07289", 2015),
        breakpoints=at(0.0),
        torch_equivalent=lambda x, alpha=1.0: F.elu(x, alpha),
    ),
    pointwise(
        name="selu",
        family="smooth",
        formula=r"\lambda\,\mathrm{elu}_\alpha(x),\ \lambda \approx 1.0507,\ \alpha \approx 1.6733",
        summary="Scaled ELU: self-normalising at the fixed point (0, 1).",
        forward=lambda m, x: SELU_SCALE * _elu(m, x, SELU_ALPHA),
        derivative=lambda m, x: SELU_SCALE * _elu_grad(m, x, SELU_ALPHA),
        borrowed=(_SELU := torch_names("selu", "SELU"), torch_inplace(_SELU, "selu_")),
        properties=props("zero_at_zero", "monotonic", "bounded_below"),
        paper=Paper("Self-Normalizing Neural Networks", "arXiv:1706.02515", 2017),
        breakpoints=at(0.0),
        torch_equivalent=F.selu,
    ),
    pointwise(
        name="celu",
        family="smooth",
        formula=r"\max(0,x) + \min(0, \alpha(e^{x/\alpha} - 1))",
        summary="Continuously differentiable ELU.",
        forward=lambda m, x, alpha: m.where(x > 0, x, alpha * m.expm1(m.minimum(x, 0.0) / alpha)),
        derivative=lambda m, x, alpha: m.where(x > 0, m.ones_like(x), m.exp(m.minimum(x, 0.0) / alpha)),
        params=(P("alpha", 1.0, "scale", low=0.0, low_inclusive=False),),
        borrowed=(_CELU := torch_names("celu", "CELU", positional=("alpha", "inplace")), torch_inplace(_CELU, "celu_")),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "smooth"),
        paper=Paper("Continuously Differentiable Exponential Linear Units", "arXiv:1704.07483", 2017),
        breakpoints=at(0.0),
        torch_equivalent=lambda x, alpha=1.0: F.celu(x, alpha),
    ),
    pointwise(
        name="gelu",
        family="smooth",
        formula=r"x\,\Phi(x)",
        summary="Gaussian error linear unit (exact, erf form).",
        forward=lambda m, x: m.gated(x, m.norm_cdf(x)),
        derivative=lambda m, x: _gelu_grad(m, x),
        aliases=("gelu_erf", "gelu_python"),
        borrowed=(
            torch_names(
                "gelu",
                "GELU",
                positional=(),
                module_positional=("approximate",),
                defaults={"approximate": "none"},
                choose={"approximate": {"none": "gelu", "tanh": "gelu_tanh"}},
            ),
        ),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        paper=Paper("Gaussian Error Linear Units (GELUs)", "arXiv:1606.08415", 2016),
        torch_equivalent=F.gelu,
    ),
    pointwise(
        name="gelu_tanh",
        family="smooth",
        formula=r"\frac{1}{2} x\left(1 + \tanh\!\left(\sqrt{2/\pi}\,(x + 0.044715 x^3)\right)\right)",
        summary="The tanh approximation of GELU (GPT-2, BERT).",
        forward=_gelu_tanh,
        derivative=_gelu_tanh_grad,
        # HF's gelu_fast writes sqrt(2/pi) as 0.7978845608 (2e-12 relative): below float32 resolution.
        aliases=(
            "gelu_new",
            "gelu_pytorch_tanh",
            "gelu_python_tanh",
            "gelu_accurate",
            "gelu_fast",
            "gelu_approx",
            "approx_gelu",
        ),
        borrowed=(
            Alias(
                ("jax.nn.gelu", "flax.linen.gelu"),
                "jax",
                defaults={"approximate": True},
                positional=("approximate",),
                choose={"approximate": {True: "gelu_tanh", False: "gelu"}},
                note="JAX's gelu defaults to approximate=True: the tanh form",
            ),
        ),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        paper=Paper("Gaussian Error Linear Units (GELUs)", "arXiv:1606.08415", 2016),
        torch_equivalent=lambda x: F.gelu(x, approximate="tanh"),
    ),
    pointwise(
        name="quick_gelu",
        family="smooth",
        formula=r"x\,\sigma(1.702 x)",
        summary="Sigmoid approximation of GELU (CLIP).",
        forward=lambda m, x: _swish(m, x, 1.702),
        derivative=lambda m, x: _swish_grad(m, x, 1.702),
        aliases=("QuickGELU", "gelu_sigmoid"),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        paper=Paper("Gaussian Error Linear Units (GELUs)", "arXiv:1606.08415", 2016),
        torch_equivalent=lambda x: x * (1.702 * x).sigmoid(),
    ),
    pointwise(
        name="silu",
        family="smooth",
        formula=r"x\,\sigma(x)",
        summary="Sigmoid linear unit (swish with beta = 1).",
        forward=lambda m, x: _swish(m, x, 1.0),
        derivative=lambda m, x: _swish_grad(m, x, 1.0),
        aliases=("swish1", "swish_1"),
        borrowed=(torch_names("silu", "SiLU"),),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        paper=Paper(
            "Sigmoid-Weighted Linear Units for Neural Network Function Approximation in RL",
            "arXiv:1702.03118",
            2017,
        ),
        torch_equivalent=F.silu,
    ),
    pointwise(
        name="swish",
        family="smooth",
        formula=r"x\,\sigma(\beta x)",
        summary="Swish with a fixed or learnable beta.",
        forward=_swish,
        derivative=_swish_grad,
        params=(P("beta", 1.0, "gate sharpness", learnable=True, init="constant 1.0 (Swish-1 = SiLU)"),),
        aliases=("Swish",),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated", "learnable"),
        paper=Paper("Searching for Activation Functions", "arXiv:1710.05941", 2017),
        torch_equivalent=lambda x, beta=1.0: x * (beta * x).sigmoid(),
    ),
    pointwise(
        name="dsilu",
        family="smooth",
        formula=r"\sigma(x)\,(1 + x(1 - \sigma(x)))",
        summary="Derivative of SiLU, used as an activation (dSiLU).",
        forward=lambda m, x: _swish_grad(m, x, 1.0),
        # s r (2 + x (r - s)): where s r underflows, a zero with the true value's sign (see _swish_grad)
        derivative=lambda m, x: (lambda s, r: m.gated(2.0 + x * (r - s), s * r))(m.sigmoid(x), m.sigmoid(-x)),
        aliases=("d_silu",),
        properties=props("bounded_below", "bounded_above", "smooth"),
        paper=Paper(
            "Sigmoid-Weighted Linear Units for Neural Network Function Approximation in RL",
            "arXiv:1702.03118",
            2017,
        ),
        source="arXiv:1702.03118: dSiLU is the derivative of x sigma(x), an identity",
    ),
    pointwise(
        name="mish",
        family="smooth",
        formula=r"x \tanh(\operatorname{softplus}(x))",
        summary="Mish.",
        forward=_mish,
        derivative=_mish_grad,
        borrowed=(torch_names("mish", "Mish"),),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        paper=Paper("Mish: A Self Regularized Non-Monotonic Activation Function", "arXiv:1908.08681", 2019),
        torch_equivalent=F.mish,
    ),
    pointwise(
        name="golu",
        family="smooth",
        formula=r"\alpha x \exp(-\beta e^{-\gamma x})",
        summary="Gompertz linear unit: an asymmetric self-gate.",
        forward=_golu,
        derivative=_golu_grad,
        params=(
            P("alpha", 1.0, "output scale", low=0.0, low_inclusive=False),
            P("beta", 1.0, "gate displacement", low=0.0, low_inclusive=False),
            P("gamma", 1.0, "gate growth rate", low=0.0, low_inclusive=False),
        ),
        aliases=("GoLU", "gompertz_linear_unit"),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        paper=Paper("Gompertz Linear Units", "arXiv:2502.03654", 2025),
        source="arXiv:2502.03654 and the authors' code automl/GoLU (alpha = beta = gamma = 1, not learnable)",
    ),
    pointwise(
        name="aptx",
        family="smooth",
        formula=r"(\alpha + \tanh(\beta x))\,\gamma x",
        summary="APTx: a cheaper mish-like unit.",
        # alpha + tanh(u) = (alpha - 1) + 2 sigmoid(2u): exact, and no cancellation for alpha = 1. gamma x first:
        # x (alpha + tanh) overflows for x near the largest float where gamma x (alpha + tanh) does not.
        forward=lambda m, x, alpha, beta, gamma: m.gated(gamma * x, (alpha - 1.0) + 2.0 * m.sigmoid(2.0 * beta * x)),
        derivative=lambda m, x, alpha, beta, gamma: (
            gamma * signed_sum(m, (alpha - 1.0) + 2.0 * m.sigmoid(2.0 * beta * x), m.gated(beta * x, m.sech2(beta * x)))
        ),
        params=(
            P("alpha", 1.0, "gate offset", learnable=True),
            P("beta", 1.0, "gate sharpness", learnable=True),
            P("gamma", 0.5, "output scale", learnable=True),
        ),
        aliases=("APTx",),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated", "learnable"),
        paper=Paper("APTx: Better Activation Function than MISH, SWISH, and ReLU's Variants", "arXiv:2209.06119", 2022),
        source="arXiv:2209.06119 and the author's package aptx-activation (alpha=1, beta=1, gamma=0.5)",
    ),
    pointwise(
        name="xsilu",
        family="smooth",
        formula=r"x\left[(1+2\alpha)\sigma(x) - \alpha\right]",
        summary="SiLU with an expanded gating range (alpha learnable, 0 = SiLU).",
        forward=lambda m, x, alpha: m.gated(x, _xgate(m, x, m.sigmoid(x), alpha)),
        derivative=lambda m, x, alpha: signed_sum(
            m, _xgate(m, x, m.sigmoid(x), alpha), (1.0 + 2.0 * alpha) * m.gated(x, m.sigmoid(x) * m.sigmoid(-x))
        ),
        params=(P("alpha", 0.0, "gate range expansion", learnable=True, learned_by_default=True, init="zeros"),),
        aliases=("xSiLU",),
        properties=props("zero_at_zero", "bounded_below", "smooth", "learnable"),
        paper=Paper("Expanded Gating Ranges Improve Activation Functions", "arXiv:2405.20768", 2024),
        source="arXiv:2405.20768 abstract (one trainable alpha per MLP block, init 0) and public code",
    ),
    pointwise(
        name="xgelu",
        family="smooth",
        formula=r"x\left[(1+2\alpha)\Phi(x) - \alpha\right]",
        summary="GELU with an expanded gating range (alpha learnable, 0 = GELU).",
        forward=lambda m, x, alpha: m.gated(x, _xgate(m, x, m.norm_cdf(x), alpha)),
        # (1 + 2 alpha)(Phi(x) + x phi(x)) - alpha; at alpha = 0, -0 in the left tail as gelu's
        derivative=lambda m, x, alpha: (1.0 + 2.0 * alpha) * _gelu_grad(m, x) - alpha,
        params=(P("alpha", 0.0, "gate range expansion", learnable=True, learned_by_default=True, init="zeros"),),
        aliases=("xGELU",),
        properties=props("zero_at_zero", "bounded_below", "smooth", "learnable"),
        paper=Paper("Expanded Gating Ranges Improve Activation Functions", "arXiv:2405.20768", 2024),
        source="arXiv:2405.20768 abstract (one trainable alpha per MLP block, init 0) and public code",
    ),
    pointwise(
        name="xatlu",
        family="smooth",
        formula=r"x\left[(1+2\alpha)(\arctan(x)/\pi + \frac{1}{2}) - \alpha\right]",
        summary="Arctan-gated linear unit with an expanded gating range (alpha learnable).",
        forward=lambda m, x, alpha: (1.0 + 2.0 * alpha) * _x_atan_gate(m, x) - m.gated(x, alpha),
        derivative=lambda m, x, alpha: (1.0 + 2.0 * alpha) * _x_atan_gate_grad(m, x) - alpha,
        params=(P("alpha", 0.0, "gate range expansion", learnable=True, learned_by_default=True, init="zeros"),),
        aliases=("xATLU",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "smooth", "learnable"),
        paper=Paper("Expanded Gating Ranges Improve Activation Functions", "arXiv:2405.20768", 2024),
        source="arXiv:2405.20768 abstract (one trainable alpha per MLP block, init 0) and public code",
    ),
    pointwise(
        name="smelu",
        family="smooth",
        formula=r"0 \ (x \leq -\beta);\ \frac{(x+\beta)^2}{4\beta}\ (|x| \leq \beta);\ x\ (x \geq \beta)",
        summary="Smooth ReLU: a quadratic bridge of half-width beta.",
        forward=lambda m, x, beta: m.where(
            x <= -beta, m.zeros_like(x), m.where(x >= beta, x, m.square(x + beta) / (4.0 * beta))
        ),
        derivative=lambda m, x, beta: m.where(
            x <= -beta, m.zeros_like(x), m.where(x >= beta, m.ones_like(x), (x + beta) / (2.0 * beta))
        ),
        params=(P("beta", 2.0, "half-width of the quadratic region", low=0.0, low_inclusive=False),),
        aliases=("SmeLU", "smooth_relu"),
        borrowed=(
            Alias(
                ("sparse_plus", "jax.nn.sparse_plus", "keras.activations.sparse_plus"),
                "jax",
                defaults={"beta": 1.0},
                note="JAX's and Keras's sparse_plus is smelu with beta = 1: 0, (x + 1)^2 / 4, x",
            ),
        ),
        properties=props("monotonic", "bounded_below", "nonnegative", "sparse", "smooth"),
        paper=Paper("Smooth Activations and Reproducibility in Deep Networks", "arXiv:2010.09931", 2020),
        source="piecewise form from arXiv:2010.09931 / 2202.06499; the papers sweep beta (2 is nonlin's default)",
        breakpoints=lambda beta, **_: (-beta, beta),
    ),
    pointwise(
        name="sau",
        family="smooth",
        formula=r"\alpha x + (1-\alpha)\left[x\Phi(x/\sigma) + \sigma\varphi(x/\sigma)\right]",
        summary="Smooth approximation unit: leaky ReLU convolved with a Gaussian of width sigma.",
        forward=lambda m, x, alpha, sigma: (
            alpha * x + (1.0 - alpha) * (m.gated(x, m.norm_cdf(x / sigma)) + sigma * m.norm_pdf(x / sigma))
        ),
        derivative=lambda m, x, alpha, sigma: alpha + (1.0 - alpha) * m.norm_cdf(x / sigma),
        params=(
            P("alpha", 0.01, "leaky slope of the smoothed unit", low=0.0, high=1.0),
            P("sigma", 1.0, "width of the Gaussian kernel", low=0.0, low_inclusive=False),
        ),
        aliases=("SAU",),
        properties=props("monotonic", "smooth"),
        paper=Paper(
            "SAU: Smooth activation function using convolution with approximate identities",
            "arXiv:2109.13210",
            2021,
        ),
        confirmed=False,
        source=(
            "closed form derived exactly from leaky ReLU * N(0, sigma^2) (the construction in the abstract, checked "
            "by a quadrature test); the paper's defaults for alpha and sigma were not found"
        ),
    ),
    pointwise(
        name="crrelu",
        family="smooth",
        formula=r"\max(0,x) + \varepsilon\, x\, e^{-x^2/2}",
        summary="Correction-regularised ReLU (learnable epsilon).",
        forward=lambda m, x, eps: signed_sum(m, m.maximum(x, 0.0), eps * m.gated(x, m.exp(-0.5 * x * x))),
        derivative=lambda m, x, eps: signed_sum(
            m, m.indicator(x > 0, x), eps * m.gated(1.0 - x * x, m.exp(-0.5 * x * x))
        ),
        params=(
            P(
                "eps",
                0.01,
                "correction weight",
                learnable=True,
                learned_by_default=True,
                init="constant 0.01",
            ),
        ),
        aliases=("CRReLU",),
        properties=props("zero_at_zero", "bounded_below", "learnable"),
        paper=Paper("A Method on Searching Better Activation Functions", "arXiv:2405.12954", 2024),
        source="arXiv:2405.12954 names CRReLU; formula and init 0.01 from public code, not the paper's text",
        confirmed=False,
        breakpoints=at(0.0),
    ),
    pointwise(
        name="softplus",
        family="smooth",
        formula=r"\frac{1}{\beta} \log(1 + e^{\beta x})",
        summary="Smooth ReLU; computed without overflow and without torch's threshold cut-off.",
        forward=lambda m, x, beta: m.softplus(beta * x) / beta,
        derivative=lambda m, x, beta: m.sigmoid(beta * x),
        params=(P("beta", 1.0, "sharpness", low=0.0, low_inclusive=False),),
        borrowed=(
            torch_names(
                "softplus",
                "Softplus",
                positional=("beta", "threshold"),
                note="torch's threshold: the output is x itself where beta * x > threshold. torch's default 20 is "
                "nonlin's None (never switch, exact): the switch changes results by at most "
                "log1p(exp(-20)) / (20 beta x) relative, 1.0e-10, which float32 and narrower round away; pass "
                "threshold=20 for torch's float64 bits",
            ),
        ),
        properties=props("monotonic", "bounded_below", "nonnegative", "smooth"),
        torch_equivalent=lambda x, beta=1.0: F.softplus(x, beta, threshold=float("inf")),  # no linear cut-off,
    ),
]
