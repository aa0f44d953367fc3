"""Pointwise units added for breadth (issue 15): the ones recent models, torch, Hugging Face, Keras, JAX and
torch_activation users reach for. Each is written in the stable form its tails need (series where a difference
cancels, limits where a product is inf * 0), like the rest of the catalog."""

from __future__ import annotations

import math
from fractions import Fraction

import torch
import torch.nn.functional as F

from nonlin.catalog._build import Alias, P, Paper, at, pointwise, props, torch_inplace, torch_names
from nonlin.catalog.smooth import (
    _gelu_grad,
    _swish,
    _swish_grad,
    reciprocal_one_plus_square,
    reciprocal_square,
    signed_sum,
)

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_LOG2 = math.log(2.0)

# ---------------------------------------------------------------------------- shared stable pieces


def _sin_scaled(m, x, w):
    return m.sin_of_product(x, w)


def _sin_cos_scaled(m, x, w):
    """sin(w x) and cos(w x) of the exact product (the backends' sin_of_product: sin of the rounded product is
    off by |w x| 2^-53, beyond |w x| = 2^53 by its whole value)."""
    return m.sin_of_product(x, w), m.cos_of_product(x, w)


def _exp_param(m, v):
    """e^v of a parameter: a Python float or a (learnable) tensor."""
    return math.exp(v) if isinstance(v, int | float) else m.exp(v)


def _horner(m, t, coeffs):
    acc = coeffs[-1] * m.ones_like(t)
    for c in reversed(coeffs[:-1]):
        acc = acc * t + c
    return acc


def _bernoulli(n: int) -> Fraction:
    """B_n (Akiyama-Tanigawa), exact."""
    a = [Fraction(0)] * (n + 1)
    for k in range(n + 1):
        a[k] = Fraction(1, k + 1)
        for j in range(k, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
    return a[0]


# tanh x = sum_n T_n x^(2n-1), T_n = 2^2n (2^2n - 1) B_2n / (2n)!; x - tanh x = -sum_{n>=2} T_n x^(2n-1).
# For |x| < 1/2 the terms shrink by (2x/pi)^2 < 0.11 each: 20 of them reach far below an ULP.
_TANHSHRINK_SERIES = tuple(
    float(-(4**n) * (4**n - 1) * _bernoulli(2 * n) / math.factorial(2 * n)) for n in range(2, 22)
)


def _tanhshrink(m, x):
    x2 = x * x
    series = x * x2 * _horner(m, x2, _TANHSHRINK_SERIES)
    return m.where(m.abs(x) < 0.5, series, x - m.tanh(x))


# expm1(t) - t = sum_{k>=2} t^k / k!, for |t| < 1 (where the difference would cancel); 22 terms.
_EXPM1_MINUS_X = tuple(1.0 / math.factorial(k) for k in range(2, 24))


def _expm1_minus_x(m, t):
    ts = m.where(m.abs(t) < 1, t, m.zeros_like(t))
    series = ts * ts * _horner(m, ts, _EXPM1_MINUS_X)
    return m.where(m.abs(t) < 1, series, m.expm1(t) - t)


def _level_crossing(f, level: float, lo: float, hi: float) -> float:
    """x in [lo, hi] with f(x) = level for increasing f, by bisection to the last bit."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if f(mid) < level else (lo, mid)
    return hi


def _gelu_float(x: float) -> float:
    return x * 0.5 * math.erfc(-x / math.sqrt(2.0))


_GELU_MIN_AT = -0.7517915241  # argmin of x Phi(x)
_GELU_MIN = _gelu_float(_GELU_MIN_AT)


def _clipped_gelu_breaks(min, max, **_):
    out = []
    if max > 0:
        out.append(_level_crossing(_gelu_float, max, 0.0, max + 1.0))
    if _GELU_MIN < min < 0:
        out.append(_level_crossing(lambda t: -_gelu_float(t), -min, -40.0, _GELU_MIN_AT))
        out.append(_level_crossing(_gelu_float, min, _GELU_MIN_AT, 0.0))
    return tuple(sorted(out))


def _clipped_gelu(m, x, min, max):
    return m.clamp(m.gated(x, m.norm_cdf(x)), min, max)


def _clipped_gelu_grad(m, x, min, max):
    y = m.gated(x, m.norm_cdf(x))
    return _gelu_grad(m, x) * m.indicator((y >= min) & (y <= max), x)


# ---------------------------------------------------------------------------- bodies


def _snake_beta(m, x, alpha, beta, alpha_logscale, eps):
    a = _exp_param(m, alpha) if alpha_logscale else alpha
    b = _exp_param(m, beta) if alpha_logscale else beta
    return x + m.square(_sin_scaled(m, x, a)) / (b + eps)


def _snake_beta_grad(m, x, alpha, beta, alpha_logscale, eps):
    a = _exp_param(m, alpha) if alpha_logscale else alpha
    b = _exp_param(m, beta) if alpha_logscale else beta
    s, c = _sin_cos_scaled(m, x, a)
    # 1 + 2a s c / (b + eps) = ((b - a + eps) + a (s + c)^2) / (b + eps): the sum cancelled at the derivative's
    # near-zeros (sin(2ax) = -1 with a ~ b: 784 bf16 ULP); this way both terms are >= 0 wherever a <= b + eps
    # (the defaults), and b - a is exact there
    return ((b - a) + eps + a * m.square(s + c)) / (b + eps)


def _xielu(m, x, alpha_p, alpha_n, beta, eps):
    xm = m.minimum(x, eps)
    # expm1(min(x, eps)) - x = (expm1(xm) - xm) + (xm - x): two terms >= 0, no cancellation near 0 ...
    near = alpha_n * (_expm1_minus_x(m, xm) + m.where(x < eps, m.zeros_like(x), eps - x)) + beta * x
    # ... and below -1 the x terms are collected, so x -> -inf is (beta - alpha_n) x, not inf - inf
    far = alpha_n * m.expm1(xm) + (beta - alpha_n) * x
    return m.where(x > 0, x * (alpha_p * x + beta), m.where(x < -1, far, near))


def _xielu_grad(m, x, alpha_p, alpha_n, beta, eps):
    neg = m.where(x < eps, alpha_n * m.expm1(m.minimum(x, eps)) + beta, (beta - alpha_n) * m.ones_like(x))
    return m.where(x > 0, 2.0 * alpha_p * x + beta, neg)


def _squareplus_root(m, x, b):
    """sqrt(x^2 + b) without overflowing x^2 (beyond 2^60 it is |x| (1 + b / 2x^2): |x| to far below an ULP
    for any b < 2^60; the bound is below float32's overflow of x^2 too, where half inputs compute)."""
    ax = m.abs(x)
    big = ax > 2.0**60
    xs = m.where(big, m.ones_like(x), x)
    return m.where(big, ax, m.sqrt(xs * xs + b)), ax, big, xs


def _squareplus(m, x, b):
    s, ax, _, _ = _squareplus_root(m, x, b)
    # (x + s)/2 cancels for x < 0; there it equals b / (2 (s + |x|))
    # (halves first, exact: x + s and s + |x| overflow near the largest float)
    return m.where(x >= 0, 0.5 * x + 0.5 * s, (0.25 * b) / (0.5 * s + 0.5 * ax))


def _squareplus_grad(m, x, b):
    s, ax, big, xs = _squareplus_root(m, x, b)
    ratio = m.where(big, m.ones_like(x), xs / s)  # x / s for x >= 0
    # b / (2 s (s + |x|)): beyond |x| = 1e154 the denominator overflows where the value is a (subnormal) number
    return m.where(x >= 0, 0.5 + 0.5 * ratio, b / (2.0 * s) / (s + ax))


def _sqrtsoftplus(m, x):
    # below -40, softplus(x) = e^x (1 - e^x/2 + ...): sqrt is e^(x/2), which stays representable where e^x
    # itself underflows (x < -745)
    return m.where(x < -40, m.exp(0.5 * x), m.sqrt(m.softplus(x)))


def _sqrtsoftplus_grad(m, x):
    xc = m.maximum(x, -40.0)  # the other branch's softplus underflows to 0 below -745
    return m.where(x < -40, 0.5 * m.exp(0.5 * x), m.sigmoid(xc) / (2.0 * m.sqrt(m.softplus(xc))))


def _tanhexp_grad(m, x):
    # x e^x sech^2(e^x): beyond x = 20 it underflows; the clamp keeps e^x finite so no inf * 0 occurs
    e = m.exp(m.minimum(x, 20.0))
    # tanh(e) for tanh(e^x): one exp, and tanh(e) and sech2(e) share theirs (e^(-2e)) where a namespace forms them so
    full = signed_sum(m, m.tanh(e), m.gated(x, e * m.sech2(e)))
    return m.where(x > 20, m.ones_like(x), full)  # the second term is below 1e-400000 there


def _serf_grad(m, x):
    sp = m.softplus(x)
    return signed_sum(m, m.erf(sp), m.gated(x, _TWO_OVER_SQRT_PI * m.exp(-sp * sp) * m.sigmoid(x)))


def _smu_gate(m, x, alpha, mu):
    # ((1+a) x + (1-a) x erf(z))/2 = x (a + (1-a) erfc(-z)/2): no cancellation as erf(z) -> -1
    return alpha + (1.0 - alpha) * 0.5 * m.erfc(-mu * (1.0 - alpha) * x)


def _smu_grad(m, x, alpha, mu):
    z = mu * (1.0 - alpha) * x
    return _smu_gate(m, x, alpha, mu) + (1.0 - alpha) / math.sqrt(math.pi) * m.gated(z, m.exp(-z * z))


def _isru_parts(m, x, alpha):
    """1/sqrt(1 + alpha x^2) written so nothing overflows: for |x| > 1 it is r/sqrt(r^2 + alpha), r = 1/|x|."""
    ax = m.abs(x)
    big = ax > 1
    r = 1.0 / m.where(big, ax, m.ones_like(x))
    xs = m.where(big, m.zeros_like(x), x)
    inv_small = 1.0 / m.sqrt(1.0 + alpha * xs * xs)
    return big, r, inv_small


def _isru(m, x, alpha):
    big, r, inv_small = _isru_parts(m, x, alpha)
    return m.where(big, m.sign(x) / m.sqrt(r * r + alpha), x * inv_small)


def _isru_grad(m, x, alpha):
    big, r, inv_small = _isru_parts(m, x, alpha)
    q = m.where(big, r / m.sqrt(r * r + alpha), inv_small)
    return q * q * q


def _bent_identity(m, x):
    # (sqrt(x^2+1) - 1)/2 = x^2 / (2 (sqrt(x^2+1) + 1)): no cancellation near 0; r = 1/|x| for |x| > 1
    ax = m.abs(x)
    big = ax > 1
    r = 1.0 / m.where(big, ax, m.ones_like(x))
    xs = m.where(big, m.zeros_like(x), x)
    # for |x| > 1: x (1 + sign(x) / (2 (sqrt(1 + r^2) + r))), so x -> -inf is -inf, not inf - inf
    far = x * (1.0 + m.sign(x) / (2.0 * (m.sqrt(1.0 + r * r) + r)))
    return m.where(big, far, xs * xs / (2.0 * (m.sqrt(xs * xs + 1.0) + 1.0)) + xs)


def _bent_identity_grad(m, x):
    ax = m.abs(x)
    big = ax > 1
    r = 1.0 / m.where(big, ax, m.ones_like(x))
    xs = m.where(big, m.zeros_like(x), x)
    ratio = m.where(big, m.sign(x) / m.sqrt(1.0 + r * r), xs / m.sqrt(xs * xs + 1.0))  # x / sqrt(x^2 + 1)
    return 1.0 + 0.5 * ratio


def _elish(m, x):
    s = m.sigmoid(x)
    return m.where(x >= 0, x * s, m.expm1(m.minimum(x, 0.0)) * s)


def _elish_grad(m, x):
    xn = m.minimum(x, 0.0)
    s = m.sigmoid(x)
    neg = signed_sum(m, m.exp(xn) * s, m.expm1(xn) * s * m.sigmoid(-x))  # -0 where both underflow
    return m.where(x >= 0, _swish_grad(m, x, 1.0), neg)


def _hard_gate(m, x):
    return m.clamp(0.5 * (x + 1.0), 0.0, 1.0)


def _hard_elish(m, x):
    g = _hard_gate(m, x)
    return m.where(x >= 0, x * g, m.expm1(m.minimum(x, 0.0)) * g)


def _hard_elish_grad(m, x):
    xn = m.minimum(x, 0.0)
    g = _hard_gate(m, x)
    dg = 0.5 * m.indicator((x > -1) & (x < 1), x)
    return m.where(x >= 0, g + m.gated(x, dg), m.exp(xn) * g + m.expm1(xn) * dg)


def _shifted_softplus(m, x):
    # softplus(x) - log 2 cancels near 0; log((1 + e^x)/2) = log1p(expm1(x)/2) does not
    return m.where(x < 1, m.log1p(0.5 * m.expm1(m.minimum(x, 1.0))), m.softplus(x) - _LOG2)


def _acon_c(m, x, p1, p2, beta):
    dp = p1 - p2
    return dp * _swish(m, x, beta * dp) + m.gated(x, p2)  # p2 = 0: 0, not 0 * inf


def _acon_c_grad(m, x, p1, p2, beta):
    dp = p1 - p2
    return signed_sum(m, p2 * m.ones_like(x), dp * _swish_grad(m, x, beta * dp))


def _symlog(m, x):
    return m.sign(x) * m.log1p(m.abs(x))


def _symexp(m, x):
    return m.sign(x) * m.expm1(m.abs(x))


def _pelu(m, x, a, b):
    return m.where(x >= 0, (a / b) * x, a * m.expm1(m.minimum(x, 0.0) / b))


def _pelu_grad(m, x, a, b):
    return m.where(x >= 0, (a / b) * m.ones_like(x), (a / b) * m.exp(m.minimum(x, 0.0) / b))


def _gaussian(m, x, sigma):
    u = x / sigma
    return m.exp(-0.5 * u * u)


def _gaussian_grad(m, x, sigma):
    u = x / sigma
    return -m.gated(u, m.exp(-0.5 * u * u)) / sigma


def _threshold(m, x, threshold, value):
    # x <= t picks the value; NaN compares false and stays NaN, as in torch
    return m.where(x <= threshold, value * m.ones_like(x), x)


TORCH_ACTIVATION = "torch_activation (alan-turing-institute/torch_activation)"

SPECS = [
    pointwise(
        name="softcap",
        family="sigmoidal",
        formula=r"c \tanh(x / c)",
        summary="Tanh soft-capping of logits (Gemma 2 attention and final logits, Grok).",
        forward=lambda m, x, cap: cap * m.tanh(x / cap),
        derivative=lambda m, x, cap: m.sech2(x / cap),
        params=(P("cap", 50.0, "cap c: outputs stay in (-c, c)", low=0.0, low_inclusive=False),),
        aliases=("soft_cap", "tanh_softcap", "logit_softcap"),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth"),
        paper=Paper("Gemma 2: Improving Open Language Models at a Practical Size", "arXiv:2408.00118", 2024),
        source="Gemma 2 report and HF gemma2 modeling (tanh(x / cap) * cap; attn_logit_softcapping = 50, final 30)",
        torch_equivalent=lambda x, cap=50.0: cap * torch.tanh(x / cap),
    ),
    pointwise(
        name="snake_beta",
        family="periodic",
        formula=r"x + \frac{1}{\beta + \epsilon}\sin^2(\alpha x)",
        summary="SnakeBeta (BigVGAN): snake with separate frequency alpha and magnitude beta, optionally log-scale.",
        forward=_snake_beta,
        derivative=_snake_beta_grad,
        params=(
            P(
                "alpha",
                1.0,
                "frequency (log-frequency when alpha_logscale=1)",
                learnable=True,
                learned_by_default=True,
                init="ones (zeros with alpha_logscale=1), one per channel in BigVGAN",
            ),
            P(
                "beta",
                1.0,
                "magnitude divisor (its log when alpha_logscale=1)",
                learnable=True,
                learned_by_default=True,
                init="ones (zeros with alpha_logscale=1)",
            ),
            P(
                "alpha_logscale",
                0.0,
                "1: alpha and beta are logs (BigVGAN's alpha_logscale=True)",
                low=0.0,
                high=1.0,
                integer=True,
            ),
            P("eps", 1e-9, "BigVGAN's no_div_by_zero", low=0.0),
        ),
        aliases=("SnakeBeta", "snakebeta"),
        properties=props("zero_at_zero", "monotonic", "smooth", "periodic", "learnable"),
        paper=Paper("BigVGAN: A Universal Neural Vocoder with Large-Scale Training", "arXiv:2206.04658", 2022),
        source=(
            "NVIDIA/BigVGAN activations.py SnakeBeta: x + 1/(beta + 1e-9) * sin(x * alpha)^2, alpha = exp(alpha), "
            "beta = exp(beta) when alpha_logscale (used by the v2 checkpoints)"
        ),
    ),
    pointwise(
        name="xielu",
        family="smooth",
        formula=(
            r"\alpha_p x^2 + \beta x\ (x > 0);\ "
            r"\alpha_n(e^{\min(x, \epsilon)} - 1 - x) + \beta x\ (x \leq 0)"
        ),
        summary="xIELU (Apertus): a learnable quadratic positive branch and an expm1-based negative branch.",
        forward=_xielu,
        derivative=_xielu_grad,
        params=(
            P(
                "alpha_p",
                0.8,
                "positive-branch curvature (effective value, > 0)",
                learnable=True,
                learned_by_default=True,
                init="0.8; HF stores softplus^-1(0.8)",
            ),
            P(
                "alpha_n",
                0.8,
                "negative-branch weight (effective value, > beta)",
                learnable=True,
                learned_by_default=True,
                init="0.8; HF stores softplus^-1(0.8 - beta) and adds beta",
            ),
            P("beta", 0.5, "linear term"),
            P("eps", -1e-6, "clamp of the exponent", high=0.0),
        ),
        borrowed=(
            Alias(
                ("xielu", "XIELUActivation"),
                "hf",
                args={"alpha_p_init": "alpha_p", "alpha_n_init": "alpha_n"},
                positional=("alpha_p_init", "alpha_n_init", "beta", "eps"),
                note="HF's XIELUActivation(alpha_p_init=0.8, alpha_n_init=0.8, beta=0.5, eps=-1e-6, "
                "dtype=torch.bfloat16) stores softplus^-1(alpha_p_init) and softplus^-1(alpha_n_init - beta) in "
                "dtype; nonlin holds the effective values, so HF's default bfloat16 storage makes its effective "
                "alpha_p 0.800396, alpha_n 0.800869 and eps -9.98378e-7 (up to 0.16% off these); nonlin's module "
                "parameters are the effective values, not HF's state-dict tensors; dtype and with_vector_loads are "
                "not accepted",
            ),
        ),
        properties=props("bounded_below", "learnable"),
        paper=Paper("Deriving Activation Functions Using Integration", "arXiv:2411.13010", 2024),
        source=(
            "HF transformers XIELUActivation._xielu_python and the authors' reference: where(x > 0, a_p x^2 + b x, "
            "(expm1(min(x, eps)) - x) a_n + b x), a_p = softplus(.), a_n = b + softplus(.), defaults 0.8, 0.8, 0.5, -1e-6"
        ),
        breakpoints=lambda eps, **_: (eps, 0.0),
        torch_equivalent=lambda x, alpha_p=0.8, alpha_n=0.8, beta=0.5, eps=-1e-6: torch.where(
            x > 0, alpha_p * x * x + beta * x, (torch.expm1(torch.clamp_max(x, eps)) - x) * alpha_n + beta * x
        ),
    ),
    pointwise(
        name="star_relu",
        family="rectifiers",
        formula=r"s \max(0, x)^2 + b",
        summary="StarReLU (MetaFormer): a scaled, shifted squared ReLU.",
        forward=lambda m, x, scale, bias: scale * m.square(m.maximum(x, 0.0)) + bias,
        derivative=lambda m, x, scale, bias: 2.0 * scale * m.maximum(x, 0.0),
        params=(
            P(
                "scale",
                1.0,
                "s (timm/metaformer scale_value)",
                learnable=True,
                learned_by_default=True,
                init="1.0 (code default; the paper derives 0.8944)",
            ),
            P(
                "bias",
                0.0,
                "b (timm/metaformer bias_value)",
                learnable=True,
                learned_by_default=True,
                init="0.0 (code default; the paper derives -0.4472)",
            ),
        ),
        borrowed=(
            Alias(
                ("StarReLU",),
                "timm",
                args={"scale_value": "scale", "bias_value": "bias"},
                positional=("scale_value", "bias_value"),
                note="timm.models.metaformer.StarReLU(scale_value=1.0, bias_value=0.0, scale_learnable=True, "
                "bias_learnable=True, mode, inplace): both learnable by default as here, the same parameter names "
                "(scale, bias) in the state dict; timm's scale_learnable/bias_learnable are nonlin's learnable=",
            ),
        ),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse", "smooth", "learnable"),
        paper=Paper("MetaFormer Baselines for Vision", "arXiv:2210.13452", 2022),
        source=(
            "sail-sg/metaformer metaformer_baselines.py and timm StarReLU: scale * relu(x)**2 + bias, "
            "scale_value=1.0, bias_value=0.0, both learnable (nonlin names them scale, bias)"
        ),
        breakpoints=at(0.0),
    ),
    pointwise(
        name="dyt",
        family="sigmoidal",
        formula=r"\gamma \tanh(\alpha x) + \beta",
        summary="Dynamic Tanh (DyT): a normalization-free replacement for LayerNorm, gamma and beta per channel.",
        # bias + weight tanh(alpha x) keeping the product's signed zero where both are zero: in float32 arithmetic
        # tanh(alpha x) underflows to -0 for a negative subnormal x, and -0 + 0.0 = +0 would lose the sign
        forward=lambda m, x, alpha, weight, bias: signed_sum(m, bias, weight * m.tanh(alpha * x)),
        derivative=lambda m, x, alpha, weight, bias: weight * alpha * m.sech2(alpha * x),
        params=(
            P(
                "alpha",
                0.5,
                "input scale (one scalar in the paper)",
                learnable=True,
                learned_by_default=True,
                init="alpha_init_value = 0.5",
                shared=True,
            ),
            P("weight", 1.0, "gamma, per channel", learnable=True, learned_by_default=True, init="ones"),
            P("bias", 0.0, "beta, per channel", learnable=True, learned_by_default=True, init="zeros"),
        ),
        aliases=("dynamic_tanh",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth", "learnable"),
        paper=Paper("Transformers without Normalization", "arXiv:2503.10622", 2025),
        source=(
            "arXiv:2503.10622 Algorithm 1 and the authors' code (jiachenzhu/DyT): weight * tanh(alpha * x) + bias, "
            "alpha scalar init 0.5, weight ones, bias zeros over the channel dim"
        ),
        notes=(
            "nonlin.get('dyt', num_parameters=C, channel_dim=-1) gives per-channel weight and bias and one "
            "shared alpha, as the paper's DyT layer."
        ),
    ),
    pointwise(
        name="tanhshrink",
        family="sigmoidal",
        formula=r"x - \tanh(x)",
        summary="Tanh shrinkage; a series near 0, where the difference cancels.",
        forward=_tanhshrink,
        derivative=lambda m, x: m.square(m.tanh(x)),
        aliases=("tanh_shrink",),  # Keras
        borrowed=(torch_names("tanhshrink", "Tanhshrink", positional=()),),  # F.tanhshrink(input): no inplace
        properties=props("zero_at_zero", "monotonic", "odd", "smooth"),
        source="torch.nn.Tanhshrink / keras.activations.tanh_shrink: x - tanh(x); f' = tanh(x)^2",
        torch_equivalent=F.tanhshrink,
    ),
    pointwise(
        name="threshold",
        family="rectifiers",
        formula=r"x \text{ if } x > t \text{ else } v",
        summary="torch's Threshold: x above the threshold, a fixed value at or below it.",
        forward=_threshold,
        derivative=lambda m, x, threshold, value: m.indicator(x > threshold, x),
        params=(
            P("threshold", 1.0, "t (torch: required, no default)"),
            P("value", 0.0, "v, the output at or below t (torch: required, no default)"),
        ),
        borrowed=(
            _THRESHOLD := torch_names(
                "threshold",
                "Threshold",
                positional=("threshold", "value", "inplace"),
                note="torch requires threshold and value (no defaults); nonlin's are 1.0 and 0.0",
            ),
            torch_inplace(_THRESHOLD, "threshold_"),
        ),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse"),
        source="torch.nn.functional.threshold(input, threshold, value): x if x > threshold else value",
        breakpoints=lambda threshold, **_: (threshold,),
        torch_equivalent=lambda x, threshold=1.0, value=0.0: F.threshold(x, threshold, value),
    ),
    pointwise(
        name="squareplus",
        family="smooth",
        formula=r"\frac{1}{2}\left(x + \sqrt{x^2 + b}\right)",
        summary="Squareplus: an algebraic softplus (JAX, Keras); no cancellation for x < 0.",
        forward=_squareplus,
        derivative=_squareplus_grad,
        params=(P("b", 4.0, "curvature near 0 (b = 0 is ReLU)", low=0.0),),
        properties=props("monotonic", "bounded_below", "nonnegative", "smooth"),
        paper=Paper("Squareplus: A Softplus-Like Algebraic Rectifier", "arXiv:2112.11687", 2021),
        source="arXiv:2112.11687 eq. 1 and jax.nn.squareplus / keras.activations.squareplus (b=4)",
        torch_equivalent=lambda x, b=4.0: 0.5 * (x + torch.sqrt(x * x + b)),
    ),
    pointwise(
        name="sparse_sigmoid",
        family="rectifiers",
        formula=r"\frac{1}{2}\operatorname{clip}(x + 1, 0, 2)",
        summary="Sparse sigmoid (JAX, Keras): the derivative of sparse_plus, exactly 0 and 1 outside [-1, 1].",
        forward=lambda m, x: 0.5 * m.clamp(x + 1.0, 0.0, 2.0),
        derivative=lambda m, x: 0.5 * m.indicator((x > -1) & (x < 1), x),
        properties=props("monotonic", "bounded_below", "bounded_above", "nonnegative", "sparse"),
        paper=Paper("Learning with Fenchel-Young Losses", "arXiv:1901.02324", 2019),
        source="jax.nn.sparse_sigmoid and keras.activations.sparse_sigmoid: 0.5 * clip(x + 1, 0, 2)",
        breakpoints=at(-1.0, 1.0),
        torch_equivalent=lambda x: 0.5 * torch.clamp(x + 1.0, 0.0, 2.0),
    ),
    pointwise(
        name="sqrtsoftplus",
        family="smooth",
        formula=r"\sqrt{\operatorname{softplus}(x)}",
        summary="Square root of softplus (DeepSeek-V4 router scores; HF ACT2FN 'sqrtsoftplus').",
        forward=_sqrtsoftplus,
        derivative=_sqrtsoftplus_grad,
        aliases=("sqrt_softplus", "SqrtSoftplus"),
        borrowed=(
            Alias(
                ("sqrtsoftplus", "SqrtSoftplusActivation"),
                "hf",
                note="HF computes sqrt(F.softplus(x)), so torch's threshold 20: above x = 20 its float64 values are "
                "sqrt(x) where nonlin's are sqrt(softplus(x)), at most log1p(e^-20) / (2 sqrt(x)) apart",
            ),
        ),
        properties=props("monotonic", "bounded_below", "nonnegative", "smooth"),
        source="HF transformers SqrtSoftplusActivation and DeepSeek-V4 scoring_func 'sqrtsoftplus': softplus(x).sqrt()",
        torch_equivalent=lambda x: torch.sqrt(F.softplus(x, threshold=float("inf"))),
    ),
    pointwise(
        name="laplace",
        family="sigmoidal",
        formula=r"\frac{1}{2}\left(1 + \operatorname{erf}\!\left(\frac{x - \mu}{\sigma\sqrt{2}}\right)\right)",
        summary="Laplace attention activation (MEGA): a Gaussian CDF that approximates relu^2, bounded.",
        forward=lambda m, x, mu, sigma: m.norm_cdf((x - mu) / sigma),
        derivative=lambda m, x, mu, sigma: m.norm_pdf((x - mu) / sigma) / sigma,
        params=(
            P("mu", 0.707107, "location (HF: sqrt(1/2) to 6 digits)"),
            P("sigma", 0.282095, "scale (HF: sqrt(1/(4 pi)) to 6 digits)", low=0.0, low_inclusive=False),
        ),
        # HF's LaplaceActivation takes mu and sigma in forward(input, mu, sigma): positional after the input there
        borrowed=(Alias(("laplace", "LaplaceActivation"), "hf", positional=("mu", "sigma")),),
        properties=props("monotonic", "bounded_below", "bounded_above", "nonnegative", "smooth"),
        paper=Paper("Mega: Moving Average Equipped Gated Attention", "arXiv:2209.10655", 2022),
        source="HF transformers LaplaceActivation.forward(input, mu=0.707107, sigma=0.282095); computed as Phi",
        torch_equivalent=lambda x, mu=0.707107, sigma=0.282095: (
            0.5 * (1.0 + torch.erf((x - mu) / (sigma * math.sqrt(2.0))))
        ),
    ),
    pointwise(
        name="clipped_gelu",
        family="smooth",
        formula=r"\operatorname{clip}(x\,\Phi(x), \mathrm{min}, \mathrm{max})",
        summary="GELU clipped to [min, max] (HF ClippedGELUActivation; 'gelu_10' is min=-10, max=10).",
        forward=_clipped_gelu,
        derivative=_clipped_gelu_grad,
        params=(P("min", -10.0, "lower clip", high=0.0), P("max", 10.0, "upper clip", low=0.0)),
        borrowed=(
            Alias(("gelu_10",), "hf", note="ACT2FN's gelu_10 is ClippedGELUActivation(min=-10, max=10)"),
            Alias(
                ("ClippedGELUActivation",),
                "hf",
                positional=("min", "max"),
                note="HF's class requires min and max (no defaults); nonlin's are ACT2FN gelu_10's -10 and 10",
            ),
        ),
        properties=props("zero_at_zero", "bounded_below", "bounded_above"),
        source="HF transformers ClippedGELUActivation(min, max): clip(gelu(x), min, max); ACT2FN gelu_10 = (-10, 10)",
        breakpoints=_clipped_gelu_breaks,
        torch_equivalent=lambda x, min=-10.0, max=10.0: torch.clip(F.gelu(x), min, max),
    ),
    pointwise(
        name="elu_plus_one",
        family="smooth",
        formula=r"\mathrm{elu}(x) + 1",
        summary="ELU + 1: the positive feature map of linear attention (e^x below 0, exactly, without cancellation).",
        forward=lambda m, x: m.where(x > 0, x + 1.0, m.exp(m.minimum(x, 0.0))),
        derivative=lambda m, x: m.where(x > 0, m.ones_like(x), m.exp(m.minimum(x, 0.0))),
        aliases=("elu_p1",),
        properties=props("monotonic", "bounded_below", "nonnegative", "smooth"),
        paper=Paper(
            "Transformers are RNNs: Fast Autoregressive Transformers with Linear Attention", "arXiv:2006.16236", 2020
        ),
        source="arXiv:2006.16236 eq. 7 (phi(x) = elu(x) + 1) and fla's elu_p1: F.elu(x, 1.0) + 1.0",
        breakpoints=at(0.0),
        torch_equivalent=lambda x: F.elu(x) + 1.0,
    ),
    pointwise(
        name="siren",
        family="periodic",
        formula=r"\sin(\omega_0 x)",
        summary="SIREN's sine with frequency omega_0 (30 in the paper); the product w0 x is carried exactly.",
        forward=lambda m, x, omega_0: _sin_scaled(m, x, omega_0),
        derivative=lambda m, x, omega_0: omega_0 * _sin_cos_scaled(m, x, omega_0)[1],
        params=(P("omega_0", 30.0, "frequency", low=0.0, low_inclusive=False),),
        aliases=("sine_omega", "siren_sine"),
        properties=props("zero_at_zero", "bounded_below", "bounded_above", "odd", "smooth", "periodic"),
        paper=Paper("Implicit Neural Representations with Periodic Activation Functions", "arXiv:2006.09661", 2020),
        source="arXiv:2006.09661 and the authors' SineLayer: sin(omega_0 * x), omega_0 = 30",
        torch_equivalent=lambda x, omega_0=30.0: torch.sin(omega_0 * x),
    ),
    pointwise(
        name="gaussian",
        family="periodic",
        formula=r"e^{-x^2 / (2\sigma^2)}",
        summary="Gaussian activation (coordinate MLPs).",
        forward=_gaussian,
        derivative=_gaussian_grad,
        params=(P("sigma", 1.0, "width", low=0.0, low_inclusive=False),),
        aliases=("gauss",),
        properties=props("bounded_below", "bounded_above", "nonnegative", "smooth"),
        paper=Paper(
            "Beyond Periodicity: Towards a Unifying Framework for Activations in Coordinate-MLPs",
            "arXiv:2111.15135",
            2021,
        ),
        confirmed=False,
        source=(
            "arXiv:2111.15135 (exp(-x^2 / (2 sigma^2))); the paper tunes sigma per task (0.05-0.1 in its figures): "
            "sigma = 1 is nonlin's default"
        ),
        torch_equivalent=lambda x, sigma=1.0: torch.exp(-0.5 * (x / sigma) ** 2),
    ),
    pointwise(
        name="lisht",
        family="smooth",
        formula=r"x \tanh(x)",
        summary="LiSHT: linearly scaled hyperbolic tangent (even, non-negative).",
        forward=lambda m, x: x * m.tanh(x),
        derivative=lambda m, x: m.tanh(x) + m.gated(x, m.sech2(x)),
        properties=props("zero_at_zero", "bounded_below", "nonnegative", "smooth"),
        paper=Paper(
            "LiSHT: Non-Parametric Linearly Scaled Hyperbolic Tangent Activation Function for Neural Networks",
            "arXiv:1901.05894",
            2019,
        ),
        source=f"arXiv:1901.05894 eq. 2 and {TORCH_ACTIVATION} LiSHT",
        torch_equivalent=lambda x: x * torch.tanh(x),
    ),
    pointwise(
        name="tanhexp",
        family="smooth",
        formula=r"x \tanh(e^x)",
        summary="TanhExp.",
        forward=lambda m, x: m.gated(x, m.tanh(m.exp(x))),
        derivative=_tanhexp_grad,
        aliases=("tanh_exp",),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        paper=Paper(
            "TanhExp: A Smooth Activation Function with High Convergence Speed for Lightweight Neural Networks",
            "arXiv:2003.09855",
            2020,
        ),
        source=f"arXiv:2003.09855 eq. 4 and {TORCH_ACTIVATION} TanhExp",
        torch_equivalent=lambda x: x * torch.tanh(torch.exp(x)),
    ),
    pointwise(
        name="serf",
        family="smooth",
        formula=r"x \operatorname{erf}(\operatorname{softplus}(x))",
        summary="Serf: log-Softplus ERror activation Function.",
        forward=lambda m, x: m.gated(x, m.erf(m.softplus(x))),
        derivative=_serf_grad,
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        paper=Paper(
            "SERF: Towards better training of deep neural networks using log-Softplus ERror activation Function",
            "arXiv:2108.09598",
            2021,
        ),
        source=f"arXiv:2108.09598 eq. 1 and {TORCH_ACTIVATION} SERF",
        torch_equivalent=lambda x: x * torch.erf(F.softplus(x, threshold=float("inf"))),
    ),
    pointwise(
        name="smu",
        family="smooth",
        formula=r"\frac{1}{2}\left((1+\alpha)x + (1-\alpha)x \operatorname{erf}(\mu(1-\alpha)x)\right)",
        summary="SMU: a smooth maximum of x and alpha x (leaky ReLU smoothed by erf), mu learnable.",
        forward=lambda m, x, alpha, mu: x * _smu_gate(m, x, alpha, mu),
        derivative=_smu_grad,
        params=(
            P("alpha", 0.25, "slope of the smoothed leaky ReLU", low=0.0, high=1.0),
            P(
                "mu",
                1e6,
                "smoothing (large mu -> leaky ReLU)",
                learnable=True,
                learned_by_default=True,
                init="1e6 (the authors' code)",
            ),
        ),
        properties=props("zero_at_zero", "monotonic", "smooth", "learnable"),
        paper=Paper(
            "SMU: smooth activation function for deep networks using smoothing maximum technique",
            "arXiv:2111.04682",
            2021,
        ),
        confirmed=False,
        source=(
            "formula from arXiv:2111.04682 eq. (SMU) and torch_activation; alpha = 0.25 and mu init 1e6 are recalled "
            "from the authors' code (koushik313/SMU), not re-read"
        ),
        # Not kinks: the ends of the region |mu (1 - alpha) x| < 6 where erf turns (width ~1e-6 at mu = 1e6), so
        # quadrature (theory) gets a panel of its own for f''s bump there; beyond it erf is +-1 to 1e-17.
        breakpoints=lambda alpha, mu, **_: (-6.0 / (abs(mu) * (1.0 - alpha)), 6.0 / (abs(mu) * (1.0 - alpha))),
    ),
    pointwise(
        name="isru",
        family="sigmoidal",
        formula=r"x / \sqrt{1 + \alpha x^2}",
        summary="Inverse square root unit.",
        forward=_isru,
        derivative=_isru_grad,
        params=(
            P("alpha", 1.0, "saturation: outputs in (-1/sqrt(alpha), 1/sqrt(alpha))", low=0.0, low_inclusive=False),
        ),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth"),
        paper=Paper("Improving Deep Learning by Inverse Square Root Linear Units (ISRLUs)", "arXiv:1710.09967", 2017),
        source="arXiv:1710.09967 eq. 1 (ISRU) with alpha = 1",
    ),
    pointwise(
        name="isrlu",
        family="smooth",
        formula=r"x\ (x \geq 0);\ x / \sqrt{1 + \alpha x^2}\ (x < 0)",
        summary="Inverse square root linear unit: ELU-like with an algebraic negative branch.",
        forward=lambda m, x, alpha: m.where(x >= 0, x, _isru(m, x, alpha)),
        derivative=lambda m, x, alpha: m.where(x >= 0, m.ones_like(x), _isru_grad(m, x, alpha)),
        params=(P("alpha", 1.0, "negative saturation -1/sqrt(alpha)", low=0.0, low_inclusive=False),),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "smooth"),
        paper=Paper("Improving Deep Learning by Inverse Square Root Linear Units (ISRLUs)", "arXiv:1710.09967", 2017),
        source="arXiv:1710.09967 eq. 2 (ISRLU) with alpha = 1",
        breakpoints=at(0.0),
    ),
    pointwise(
        name="pelu",
        family="smooth",
        formula=r"\frac{a}{b} x\ (x \geq 0);\ a(e^{x/b} - 1)\ (x < 0)",
        summary="Parametric ELU: learnable a, b > 0 (defaults give ELU).",
        forward=_pelu,
        derivative=_pelu_grad,
        params=(
            P(
                "a",
                1.0,
                "negative saturation -a",
                low=0.0,
                low_inclusive=False,
                learnable=True,
                learned_by_default=True,
                init="1.0",
            ),
            P(
                "b",
                1.0,
                "exponential decay",
                low=0.0,
                low_inclusive=False,
                learnable=True,
                learned_by_default=True,
                init="1.0",
            ),
        ),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "smooth", "learnable"),
        paper=Paper(
            "Parametric Exponential Linear Unit for Deep Convolutional Neural Networks", "arXiv:1605.09332", 2016
        ),
        confirmed=False,
        source="formula from arXiv:1605.09332 eq. 3; the init a = b = 1 is nonlin's (the paper's was not re-read)",
        breakpoints=at(0.0),
    ),
    pointwise(
        name="symlog",
        family="smooth",
        formula=r"\operatorname{sign}(x)\log(1 + |x|)",
        summary="Symmetric log (DreamerV3): compresses both tails, identity-like near 0.",
        forward=_symlog,
        derivative=lambda m, x: 1.0 / (1.0 + m.abs(x)),
        properties=props("zero_at_zero", "monotonic", "odd", "smooth"),
        paper=Paper("Mastering Diverse Domains through World Models", "arXiv:2301.04104", 2023),
        source="arXiv:2301.04104 eq. 9: symlog(x) = sign(x) ln(|x| + 1)",
        breakpoints=at(0.0),  # f' = 1/(1 + |x|) has a kink at 0
    ),
    pointwise(
        name="symexp",
        family="smooth",
        formula=r"\operatorname{sign}(x)(e^{|x|} - 1)",
        summary="Symmetric exp (DreamerV3): the inverse of symlog.",
        forward=_symexp,
        derivative=lambda m, x: m.exp(m.abs(x)),
        properties=props("zero_at_zero", "monotonic", "odd", "smooth"),
        paper=Paper("Mastering Diverse Domains through World Models", "arXiv:2301.04104", 2023),
        source="arXiv:2301.04104 eq. 9: symexp(x) = sign(x)(exp(|x|) - 1)",
        breakpoints=at(0.0),
    ),
    pointwise(
        name="acon_c",
        family="smooth",
        formula=r"(p_1 - p_2)\,x\,\sigma(\beta (p_1 - p_2) x) + p_2 x",
        summary="ACON-C: a learnable smooth maximum of p1 x and p2 x (defaults give SiLU).",
        forward=_acon_c,
        derivative=_acon_c_grad,
        params=(
            P(
                "p1",
                1.0,
                "slope as x -> +inf (beta > 0)",
                learnable=True,
                learned_by_default=True,
                init="1.0 (the authors' code draws randn per channel)",
            ),
            P(
                "p2",
                0.0,
                "slope as x -> -inf",
                learnable=True,
                learned_by_default=True,
                init="0.0 (the authors' code draws randn per channel)",
            ),
            P("beta", 1.0, "switching factor", learnable=True, learned_by_default=True, init="ones"),
        ),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated", "learnable"),
        paper=Paper("Activate or Not: Learning Customized Activation", "arXiv:2009.04759", 2020),
        source=(
            "arXiv:2009.04759 eq. (ACON-C) and nmaac/acon AconC: (p1 - p2) x sigmoid(beta (p1 - p2) x) + p2 x; "
            "defaults p1=1, p2=0, beta=1 are nonlin's (SiLU), the code initialises p1, p2 randomly"
        ),
    ),
    pointwise(
        name="ndtr",
        family="sigmoidal",
        formula=r"\Phi(x) = \frac{1}{2}\operatorname{erfc}(-x/\sqrt{2})",
        summary="Standard normal CDF (torch.special.ndtr), accurate in the left tail.",
        forward=lambda m, x: m.norm_cdf(x),
        derivative=lambda m, x: m.norm_pdf(x),
        aliases=("normal_cdf", "norm_cdf"),
        properties=props("monotonic", "bounded_below", "bounded_above", "nonnegative", "smooth"),
        source="torch.special.ndtr, scipy.special.ndtr",
        torch_equivalent=torch.special.ndtr,
    ),
    pointwise(
        name="exponential",
        family="smooth",
        formula=r"e^x",
        summary="The exponential (keras.activations.exponential).",
        forward=lambda m, x: m.exp(x),
        derivative=lambda m, x: m.exp(x),
        aliases=("exp",),
        properties=props("monotonic", "bounded_below", "nonnegative", "smooth"),
        source="keras.activations.exponential",
        torch_equivalent=torch.exp,
    ),
    pointwise(
        name="bent_identity",
        family="smooth",
        formula=r"\frac{\sqrt{x^2 + 1} - 1}{2} + x",
        summary="Bent identity: identity plus a soft V (no cancellation near 0 or overflow at large |x|).",
        forward=_bent_identity,
        derivative=_bent_identity_grad,
        properties=props("zero_at_zero", "monotonic", "smooth"),
        source=f"standard (activation-function tables); {TORCH_ACTIVATION}",
    ),
    pointwise(
        name="elish",
        family="smooth",
        formula=r"x\,\sigma(x)\ (x \geq 0);\ (e^x - 1)\sigma(x)\ (x < 0)",
        summary="ELiSH: SiLU for x >= 0, an ELU-times-sigmoid branch below.",
        forward=_elish,
        derivative=_elish_grad,
        properties=props("zero_at_zero", "bounded_below", "smooth"),
        paper=Paper("The Quest for the Golden Activation Function", "arXiv:1808.00783", 2018),
        source="arXiv:1808.00783 eq. (ELiSH)",
        breakpoints=at(0.0),
    ),
    pointwise(
        name="hard_elish",
        family="rectifiers",
        formula=r"x\,h(x)\ (x \geq 0);\ (e^x - 1) h(x)\ (x < 0),\ h(x) = \operatorname{clip}((x+1)/2, 0, 1)",
        summary="HardELiSH: ELiSH with the hard sigmoid max(0, min(1, (x+1)/2)).",
        forward=_hard_elish,
        derivative=_hard_elish_grad,
        properties=props("zero_at_zero", "bounded_below", "sparse"),
        paper=Paper("The Quest for the Golden Activation Function", "arXiv:1808.00783", 2018),
        source="arXiv:1808.00783 eq. (HardELiSH)",
        breakpoints=at(-1.0, 0.0, 1.0),
    ),
    pointwise(
        name="shifted_softplus",
        family="smooth",
        formula=r"\log(1 + e^x) - \log 2",
        summary="Shifted softplus (SchNet): softplus through the origin, without cancellation near 0.",
        forward=_shifted_softplus,
        derivative=lambda m, x: m.sigmoid(x),
        aliases=("ssp",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "smooth"),
        paper=Paper(
            "SchNet: A continuous-filter convolutional neural network for modeling quantum interactions",
            "arXiv:1706.08566",
            2017,
        ),
        source="arXiv:1706.08566 (ssp(x) = ln(0.5 e^x + 0.5)), schnetpack shifted_softplus",
    ),
    pointwise(
        name="arctan",
        family="sigmoidal",
        formula=r"\arctan(x)",
        summary="Arctangent.",
        forward=lambda m, x: m.atan(x),
        derivative=lambda m, x: reciprocal_one_plus_square(m, m.abs(x)),
        aliases=("atan",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth"),
        source="standard",
        torch_equivalent=torch.atan,
    ),
    pointwise(
        name="lecun_tanh",
        family="sigmoidal",
        formula=r"1.7159 \tanh(2x/3)",
        summary="LeCun's scaled tanh (unit variance for unit-variance inputs).",
        forward=lambda m, x: 1.7159 * m.tanh(x * (2.0 / 3.0)),
        derivative=lambda m, x: (1.7159 * 2.0 / 3.0) * m.sech2(x * (2.0 / 3.0)),
        aliases=("scaled_tanh", "LeCunTanh"),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth"),
        paper=Paper("Efficient BackProp", "Neural Networks: Tricks of the Trade, LNCS 1524", 1998),
        source="LeCun et al., Efficient BackProp, sec. 4.4: f(x) = 1.7159 tanh(2x/3)",
    ),
    pointwise(
        name="penalized_tanh",
        family="sigmoidal",
        formula=r"\tanh(x)\ (x > 0);\ a \tanh(x)\ (x \leq 0)",
        summary="Penalized tanh: tanh with the negative side scaled by a (0.25).",
        forward=lambda m, x, a: m.where(x > 0, m.tanh(x), a * m.tanh(x)),
        derivative=lambda m, x, a: m.where(x > 0, m.ones_like(x), a * m.ones_like(x)) * m.sech2(x),
        params=(P("a", 0.25, "negative-side scale", low=0.0),),
        aliases=("ptanh",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above"),
        paper=Paper("Revise Saturated Activation Functions", "arXiv:1602.05980", 2016),
        source="arXiv:1602.05980 (penalized tanh, a = 0.25), also Eger et al. EMNLP 2018",
        breakpoints=at(0.0),
    ),
]


# ---------------------------------------------------------------------------- second batch


def _soft_exponential(m, x, alpha):
    if isinstance(alpha, int | float):  # a fixed alpha picks its branch exactly
        if alpha == 0:
            return x
        if alpha > 0:
            return m.expm1(alpha * x) / alpha + alpha
        return -m.log1p(-alpha * (x + alpha)) / alpha
    # a learnable alpha: every branch is computed, so each gets arguments that stay finite where it is not
    # chosen (autograd multiplies the unchosen branch's local derivative by 0, and 0 * inf is NaN)
    zero = m.zeros_like(x)
    a_pos = m.where(alpha > 0, alpha, m.ones_like(alpha))
    a_neg = m.where(alpha < 0, alpha, -m.ones_like(alpha))
    pos = m.expm1(m.where(alpha > 0, alpha * x, zero)) / a_pos + alpha
    neg = -m.log1p(m.where(alpha < 0, -alpha * (x + alpha), zero)) / a_neg
    # at alpha = 0 the value is x, written as its expansion x + alpha (x^2/2 + 1) so that the gradient in alpha
    # is the family's (x^2/2 + 1), not 0: an alpha initialised at 0 must be able to move
    return m.where(alpha > 0, pos, m.where(alpha < 0, neg, x + alpha * (0.5 * x * x + 1.0)))


def _soft_exponential_grad(m, x, alpha):
    if isinstance(alpha, int | float):
        if alpha == 0:
            return m.ones_like(x)
        if alpha > 0:
            return m.exp(alpha * x)
        return 1.0 / (1.0 - alpha * (alpha + x))
    zero = m.zeros_like(x)
    pos = m.exp(m.where(alpha > 0, alpha * x, zero))
    neg = 1.0 / (1.0 - m.where(alpha < 0, alpha * (alpha + x), zero))
    return m.where(alpha > 0, pos, m.where(alpha < 0, neg, m.ones_like(x)))


def _polyrelu(m, x, a0, a1, a2, a3):
    r = m.maximum(x, 0.0)
    return a0 + r * (a1 + r * (a2 + r * a3))


def _polyrelu_grad(m, x, a0, a1, a2, a3):
    r = m.maximum(x, 0.0)
    return m.indicator(x > 0, x) * (a1 + r * (2.0 * a2 + r * (3.0 * a3)))


def _srelu(m, x, t_left, a_left, t_right, a_right):
    left = t_left + a_left * (x - t_left)
    right = t_right + a_right * (x - t_right)
    return m.where(x <= t_left, left, m.where(x >= t_right, right, x))


def _srelu_grad(m, x, t_left, a_left, t_right, a_right):
    one = m.ones_like(x)
    return m.where(x <= t_left, a_left * one, m.where(x >= t_right, a_right * one, one))


def _logish_gate(m, x):
    return m.log1p(m.sigmoid(x))


def _logish_gate_grad(m, x):
    s = m.sigmoid(x)
    return s * m.sigmoid(-x) / (1.0 + s)


def _smish_grad(m, x):
    lg = _logish_gate(m, x)
    return signed_sum(m, m.tanh(lg), m.gated(x, m.sech2(lg) * _logish_gate_grad(m, x)))


def _elliott(m, x):
    ax = m.abs(x)
    # 1/2 + x / (2 (1 + |x|)) cancels as x -> -inf; there it is 1 / (2 (1 + |x|))
    pos = 0.5 + 0.5 / (1.0 / m.maximum(ax, 1e-300) + 1.0)
    return m.where(x < 0, 0.5 / (1.0 + ax), m.where(x > 1, pos, 0.5 + 0.5 * x / (1.0 + ax)))


SPECS += [
    pointwise(
        name="derf",
        family="sigmoidal",
        formula=r"\gamma \operatorname{erf}(\alpha x + s) + \beta",
        summary="Dynamic erf (Derf): DyT's successor as a normalization replacement, with a learnable shift.",
        forward=lambda m, x, alpha, shift, weight, bias: weight * m.erf(alpha * x + shift) + bias,
        derivative=lambda m, x, alpha, shift, weight, bias: (
            weight * alpha * _TWO_OVER_SQRT_PI * m.exp(-m.square(alpha * x + shift))
        ),
        params=(
            P(
                "alpha",
                0.5,
                "input scale (one scalar)",
                learnable=True,
                learned_by_default=True,
                init="alpha_init_value = 0.5",
                shared=True,
            ),
            P(
                "shift",
                0.0,
                "s, inside erf (one scalar)",
                learnable=True,
                learned_by_default=True,
                init="shift_init_value = 0",
                shared=True,
            ),
            P("weight", 1.0, "gamma, per channel", learnable=True, learned_by_default=True, init="ones"),
            P("bias", 0.0, "beta, per channel", learnable=True, learned_by_default=True, init="zeros"),
        ),
        aliases=("dynamic_erf",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth", "learnable"),
        paper=Paper("Stronger Normalization-Free Transformers", "arXiv:2512.10938", 2025),
        source=(
            "arXiv:2512.10938 abstract (Derf(x) = erf(alpha x + s)) and the authors' zlab-princeton/Derf as "
            "reimplemented: weight * erf(alpha x + shift) + bias, alpha 0.5, shift 0, weight ones, bias zeros"
        ),
    ),
    pointwise(
        name="soft_exponential",
        family="learnable",
        formula=(
            r"-\frac{\ln(1 - \alpha(x + \alpha))}{\alpha}\ (\alpha < 0);\ x\ (\alpha = 0);\ "
            r"\frac{e^{\alpha x} - 1}{\alpha} + \alpha\ (\alpha > 0)"
        ),
        summary="Soft exponential: one learnable alpha moves between log, identity and exp.",
        forward=_soft_exponential,
        derivative=_soft_exponential_grad,
        params=(
            P(
                "alpha",
                0.0,
                "family index (< 0 logarithmic, 0 identity, > 0 exponential)",
                learnable=True,
                learned_by_default=True,
                init="0 (the identity)",
            ),
        ),
        properties=props("zero_at_zero", "monotonic", "odd", "smooth", "learnable"),
        paper=Paper(
            "A continuum among logarithmic, linear, and exponential functions, and its potential to "
            "improve generalization in neural networks",
            "arXiv:1602.01321",
            2016,
        ),
        confirmed=False,
        source=(
            "formula from arXiv:1602.01321 eq. 1; the init alpha = 0 is nonlin's (not re-read from the paper). For "
            "alpha < 0 the log branch is NaN below x = 1/alpha - alpha (IEEE log of a negative)"
        ),
    ),
    pointwise(
        name="polyrelu",
        family="learnable",
        formula=r"\sum_{i=0}^{3} a_i \max(0, x)^i",
        summary="PolyReLU (PolyCom): a learnable cubic of ReLU.",
        forward=_polyrelu,
        derivative=_polyrelu_grad,
        params=(
            P("a0", 0.0, "constant", learnable=True, learned_by_default=True, init="0"),
            P("a1", 1.0 / 3.0, "linear coefficient", learnable=True, learned_by_default=True, init="1/3"),
            P("a2", 1.0 / 3.0, "quadratic coefficient", learnable=True, learned_by_default=True, init="1/3"),
            P("a3", 1.0 / 3.0, "cubic coefficient", learnable=True, learned_by_default=True, init="1/3"),
        ),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse", "learnable"),
        paper=Paper(
            "Polynomial Composition Activations: Unleashing the Dynamics of Large Language Models",
            "arXiv:2411.03884",
            2024,
        ),
        confirmed=False,
        source=(
            "form sum_i a_i relu(x)^i with order 3 from arXiv:2411.03884 (PolyCom); the coefficient init "
            "(nonlin: 0, 1/3, 1/3, 1/3) was not confirmed"
        ),
        breakpoints=at(0.0),
    ),
    pointwise(
        name="srelu",
        family="learnable",
        formula=(r"t_l + a_l(x - t_l)\ (x \leq t_l);\ x\ (t_l < x < t_r);\ t_r + a_r(x - t_r)\ (x \geq t_r)"),
        summary="S-shaped ReLU: three linear pieces with learnable knots and outer slopes.",
        forward=_srelu,
        derivative=_srelu_grad,
        params=(
            P("t_left", -1.0, "left knot", learnable=True, learned_by_default=True, init="-1"),
            P("a_left", 0.1, "left slope", learnable=True, learned_by_default=True, init="0.1"),
            P("t_right", 1.0, "right knot", learnable=True, learned_by_default=True, init="1"),
            P("a_right", 0.1, "right slope", learnable=True, learned_by_default=True, init="0.1"),
        ),
        aliases=("s_shaped_relu",),
        properties=props("zero_at_zero", "monotonic", "odd", "learnable"),
        paper=Paper("Deep Learning with S-shaped Rectified Linear Activation Units", "arXiv:1512.07030", 2015),
        confirmed=False,
        source=(
            "piecewise form from arXiv:1512.07030 eq. 1; the paper initialises the knots from data, so the "
            "defaults here (-1, 0.1, 1, 0.1) are nonlin's"
        ),
        breakpoints=lambda t_left, t_right, **_: (t_left, t_right),
    ),
    pointwise(
        name="logish",
        family="smooth",
        formula=r"x \log(1 + \sigma(x))",
        summary="Logish: x times log(1 + sigmoid(x)).",
        forward=lambda m, x: m.gated(x, _logish_gate(m, x)),
        derivative=lambda m, x: signed_sum(m, _logish_gate(m, x), m.gated(x, _logish_gate_grad(m, x))),
        properties=props("zero_at_zero", "bounded_below", "smooth"),
        paper=Paper(
            "Logish: A new nonlinear nonmonotonic activation function for convolutional neural network",
            "Neurocomputing 458",
            2021,
        ),
        source="Zhu et al., Neurocomputing 458 (2021): f(x) = x ln(1 + sigmoid(x))",
    ),
    pointwise(
        name="smish",
        family="smooth",
        formula=r"x \tanh(\log(1 + \sigma(x)))",
        summary="Smish: x tanh(log(1 + sigmoid(x))).",
        forward=lambda m, x: m.gated(x, m.tanh(_logish_gate(m, x))),
        derivative=_smish_grad,
        properties=props("zero_at_zero", "bounded_below", "smooth"),
        paper=Paper("Smish: A Novel Activation Function for Deep Learning Methods", "Electronics 11(4), 540", 2022),
        source="Wang, Ren, Wang, Electronics 11 (2022) 540: x tanh(ln(1 + sigmoid(x))) (alpha = beta = 1)",
    ),
    pointwise(
        name="nlrelu",
        family="rectifiers",
        formula=r"\log(1 + \beta \max(0, x))",
        summary="Natural-logarithm ReLU: ReLU compressed by log1p.",
        forward=lambda m, x, beta: m.log1p(beta * m.maximum(x, 0.0)),
        derivative=lambda m, x, beta: m.indicator(x > 0, x) * beta / (1.0 + beta * m.maximum(x, 0.0)),
        params=(P("beta", 1.0, "input scale", low=0.0, low_inclusive=False),),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse"),
        paper=Paper(
            "Natural-Logarithm-Rectified Activation Function in Convolutional Neural Networks", "arXiv:1908.03682", 2019
        ),
        source="arXiv:1908.03682 eq. 3: ln(beta max(0, x) + 1), beta = 1",
        breakpoints=at(0.0),
    ),
    pointwise(
        name="elliott",
        family="sigmoidal",
        formula=r"\frac{1}{2}\frac{x}{1 + |x|} + \frac{1}{2}",
        summary="Elliott sigmoid: the algebraic sigmoid softsign(x)/2 + 1/2 (no cancellation as x -> -inf).",
        forward=_elliott,
        derivative=lambda m, x: 0.5 * reciprocal_square(m, m.abs(x), 1.0),
        aliases=("elliott_sigmoid",),
        properties=props("monotonic", "bounded_below", "bounded_above", "nonnegative", "smooth"),
        paper=Paper("A better activation function for artificial neural networks", "ISR TR 93-8, U. Maryland", 1993),
        source="D. L. Elliott, ISR technical report TR 93-8 (1993): x/(2(1 + |x|)) + 1/2",
        breakpoints=at(0.0),  # f' = 1/(2(1+|x|)^2) has a kink at 0
    ),
    pointwise(
        name="cube",
        family="periodic",
        formula=r"x^3",
        summary="Cube activation (Chen & Manning's dependency parser).",
        forward=lambda m, x: x * x * x,
        derivative=lambda m, x: 3.0 * x * x,
        aliases=("cubic",),
        properties=props("zero_at_zero", "monotonic", "odd", "smooth"),
        paper=Paper("A Fast and Accurate Dependency Parser using Neural Networks", "EMNLP 2014", 2014),
        source="Chen & Manning, EMNLP 2014, sec. 3.1: h = (W x + b)^3",
        torch_equivalent=lambda x: x**3,
    ),
    pointwise(
        name="absolute",
        family="rectifiers",
        formula=r"|x|",
        summary="Absolute-value rectification.",
        forward=lambda m, x: m.abs(x),
        derivative=lambda m, x: m.sign(x),
        aliases=("abs", "abs_rectification"),
        properties=props("zero_at_zero", "bounded_below", "nonnegative"),
        paper=Paper("What is the Best Multi-Stage Architecture for Object Recognition?", "ICCV 2009", 2009),
        source="Jarrett et al., ICCV 2009 (absolute value rectification); torch.abs",
        breakpoints=at(0.0),
        torch_equivalent=torch.abs,
    ),
    pointwise(
        name="squ",
        family="periodic",
        formula=r"x^2 + x",
        summary="Shifted quadratic unit (computed as x (x + 1): no cancellation near its zero at -1).",
        forward=lambda m, x: x * (x + 1.0),
        derivative=lambda m, x: 2.0 * x + 1.0,
        aliases=("shifted_quadratic_unit",),
        properties=props("zero_at_zero", "bounded_below", "smooth"),
        paper=Paper(
            "Biologically Inspired Oscillating Activation Functions Can Bridge the Performance Gap between "
            "Biological and Artificial Neurons",
            "arXiv:2111.04020",
            2021,
        ),
        source="arXiv:2111.04020: SQU(z) = z^2 + z",
    ),
    pointwise(
        name="ncu",
        family="periodic",
        formula=r"x - x^3",
        summary="Non-monotonic cubic unit (computed as x (1 - x)(1 + x): exact near its zeros at +-1).",
        forward=lambda m, x: x * ((1.0 - x) * (1.0 + x)),
        derivative=lambda m, x: 1.0 - 3.0 * x * x,
        aliases=("non_monotonic_cubic_unit",),
        properties=props("zero_at_zero", "odd", "smooth"),
        paper=Paper(
            "Biologically Inspired Oscillating Activation Functions Can Bridge the Performance Gap between "
            "Biological and Artificial Neurons",
            "arXiv:2111.04020",
            2021,
        ),
        source="arXiv:2111.04020: NCU(z) = z - z^3",
    ),
]


# ---------------------------------------------------------------------------- on the sinpi / erfcx primitives

_SQRT2 = math.sqrt(2.0)
# sinc(x) = sum_k (-1)^k (pi x)^(2k) / (2k+1)!, and its derivative; for |x| < 1/4 the terms shrink by
# (pi x)^2 / ((2k+2)(2k+3)) < 0.06: 14 terms reach far below an ULP.
_SINC_SERIES = tuple((-1) ** k * math.pi ** (2 * k) / math.factorial(2 * k + 1) for k in range(15))
_SINC_GRAD_SERIES = tuple((-1) ** k * 2 * k * math.pi ** (2 * k) / math.factorial(2 * k + 1) for k in range(1, 16))


def _small(m, x, bound):
    return m.where(m.abs(x) < bound, x, m.zeros_like(x))


def _sinc(m, x):
    xs = _small(m, x, 0.25)
    series = _horner(m, xs * xs, _SINC_SERIES)
    xb = m.where(m.abs(x) < 0.25, m.ones_like(x), x)
    return m.where(m.abs(x) < 0.25, series, m.sinpi(xb) / (m.pi * xb))


def _sinc_grad(m, x):
    # (cos(pi x) - sinc(x)) / x cancels near 0, where the series (an odd polynomial) is used
    xs = _small(m, x, 0.25)
    series = xs * _horner(m, xs * xs, _SINC_GRAD_SERIES)
    xb = m.where(m.abs(x) < 0.25, m.ones_like(x), x)
    return m.where(m.abs(x) < 0.25, series, (m.cospi(xb) - m.sinpi(xb) / (m.pi * xb)) / xb)


def _log_ndtr(m, x):
    # x > 0: log1p(-Phi(-x)) (Phi(x) is 1 - tiny); -1 < x <= 0: log Phi(x); x <= -1: Phi(x) underflows below
    # -38, but log(erfcx(-x/sqrt2)/2) - x^2/2 does not (two negative terms, no cancellation)
    xp = m.maximum(x, -1.0)
    t = m.norm_cdf(-xp)
    right = m.where(t < 1e-20, -t, m.log1p(-t))  # -t to 1e-20, and -0 where t underflows (log1p(-0) = +0 in torch)
    near = m.where(x > 0, right, m.log(m.norm_cdf(xp)))
    xn = m.minimum(x, -1.0)
    far = m.log(0.5 * m.erfcx(-xn / _SQRT2)) - 0.5 * xn * xn
    return m.where(x > -1, near, far)


def _log_ndtr_grad(m, x):
    # phi(x) / Phi(x) = sqrt(2/pi) / erfcx(-x/sqrt2): no 0/0 in the left tail; below -1e8 it is -x - 1/x to
    # 1e-24 (the asymptotic series), which also holds at -inf, where erfcx is 0
    xp = m.maximum(x, -1.0)
    xn = m.clamp(x, -1e8, -1.0)
    far = m.where(x < -1e8, -x - 1.0 / m.minimum(x, -1e8), math.sqrt(2.0 / math.pi) / m.erfcx(-xn / _SQRT2))
    return m.where(x > -1, m.norm_pdf(xp) / m.norm_cdf(xp), far)


SPECS += [
    pointwise(
        name="sinc",
        family="periodic",
        formula=r"\frac{\sin(\pi x)}{\pi x}",
        summary="Normalized sinc (torch.special.sinc); sin(pi x) reduced exactly, so its zeros are exact.",
        forward=_sinc,
        derivative=_sinc_grad,
        properties=props("bounded_below", "bounded_above", "smooth", "periodic"),
        source="torch.special.sinc / numpy.sinc: sin(pi x)/(pi x), 1 at 0",
        torch_equivalent=torch.special.sinc,
    ),
    pointwise(
        name="log_ndtr",
        family="sigmoidal",
        formula=r"\log \Phi(x)",
        summary="Log of the standard normal CDF (torch.special.log_ndtr), exact in both tails.",
        forward=_log_ndtr,
        derivative=_log_ndtr_grad,
        aliases=("log_normal_cdf",),
        properties=props("monotonic", "bounded_above", "smooth"),
        source="torch.special.log_ndtr, scipy.special.log_ndtr",
        torch_equivalent=torch.special.log_ndtr,
    ),
]

SPECS += [
    pointwise(
        name="cosine",
        family="periodic",
        formula=r"\cos(x)",
        summary="Cosine (Fourier-feature and periodic networks).",
        forward=lambda m, x: m.cos(x),
        derivative=lambda m, x: -m.sin(x),
        aliases=("cos",),
        properties=props("bounded_below", "bounded_above", "smooth", "periodic"),
        source="standard (torch.cos)",
        torch_equivalent=torch.cos,
    ),
]


def _mila_grad(m, x, beta):
    sp = m.softplus(x + beta)
    return signed_sum(m, m.tanh(sp), m.gated(x, m.sech2(sp) * m.sigmoid(x + beta)))


def _arcsinh(m, x):
    # sign(x) log(|x| + sqrt(x^2 + 1)), without cancellation near 0 (log1p form) or overflow beyond 1e8
    ax = m.abs(x)
    xs = m.minimum(ax, 1.0)
    small = m.log1p(xs + xs * xs / (1.0 + m.sqrt(1.0 + xs * xs)))
    xm = m.clamp(ax, 1.0, 1e8)
    mid = m.log(xm + m.sqrt(xm * xm + 1.0))
    big = m.log(ax) + _LOG2  # the next term, 1/(4x^2), is below 2^-53 of the value there
    return m.sign(x) * m.where(ax <= 1, small, m.where(ax <= 1e8, mid, big))


def _arcsinh_grad(m, x):
    ax = m.abs(x)
    r = 1.0 / m.maximum(ax, 1.0)
    xs = m.minimum(ax, 1.0)
    return m.where(ax > 1, r / m.sqrt(r * r + 1.0), 1.0 / m.sqrt(1.0 + xs * xs))


SPECS += [
    pointwise(
        name="mila",
        family="smooth",
        formula=r"x \tanh(\operatorname{softplus}(x + \beta))",
        summary="Mila: mish with a shifted softplus (beta = -0.25).",
        forward=lambda m, x, beta: m.gated(x, m.tanh(m.softplus(x + beta))),
        derivative=_mila_grad,
        params=(P("beta", -0.25, "shift inside softplus"),),
        properties=props("zero_at_zero", "bounded_below", "smooth", "self_gated"),
        confirmed=False,
        source="digantamisra98/Mila: x tanh(softplus(beta + x)), beta = -0.25 (recalled from the README, not re-read)",
    ),
    pointwise(
        name="arcsinh",
        family="sigmoidal",
        formula=r"\operatorname{arsinh}(x) = \operatorname{sign}(x)\log(|x| + \sqrt{x^2 + 1})",
        summary="Inverse hyperbolic sine: identity near 0, logarithmic tails (no overflow, no cancellation).",
        forward=_arcsinh,
        derivative=_arcsinh_grad,
        aliases=("asinh",),
        properties=props("zero_at_zero", "monotonic", "odd", "smooth"),
        source="standard (torch.asinh)",
        torch_equivalent=torch.asinh,
    ),
    pointwise(
        name="hard_sigmoid_keras2",
        family="rectifiers",
        formula=r"\operatorname{clip}(0.2 x + 0.5, 0, 1)",
        summary="Keras 2 / TF 2's hard_sigmoid (LSTM recurrent_activation default there), computed as (x + 2.5)/5.",
        forward=lambda m, x: m.clamp((x + 2.5) / 5.0, 0.0, 1.0),
        derivative=lambda m, x: 0.2 * m.indicator((x > -2.5) & (x < 2.5), x),
        properties=props("monotonic", "bounded_below", "bounded_above", "nonnegative", "sparse"),
        source=(
            "Keras 2 (TF <= 2.15) keras.activations.hard_sigmoid: 0 below -2.5, 1 above 2.5, 0.2 x + 0.5 between; "
            "Keras 3's hard_sigmoid is relu6(x + 3)/6 (nonlin's hardsigmoid)"
        ),
        breakpoints=at(-2.5, 2.5),
        torch_equivalent=lambda x: torch.clamp(0.2 * x + 0.5, 0.0, 1.0),
    ),
]
