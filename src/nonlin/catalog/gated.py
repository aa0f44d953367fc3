"""Gated linear units: out = gate(g) * v, packed as [gate | value] along the last dim (gate first).

`torch.nn.functional.glu` uses the opposite order (value first); gpt-oss checkpoints interleave the two
halves. nonlin's packed convention is halves, gate first, like `silu_and_mul` in inference engines.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from nonlin.catalog._build import Alias, P, Paper, gated, props, torch_names
from nonlin.catalog.smooth import _gelu_tanh, _gelu_tanh_grad, _swish, _swish_grad

GLU_VARIANTS = Paper("GLU Variants Improve Transformer", "arXiv:2002.05202", 2020)


def _glu_of(gate, gate_grad):
    """forward and (d/dg, d/dv) of gate(g) * v from a pointwise gate and its derivative."""

    def forward(m, g, v, **p):
        return gate(m, g, **p) * v

    def derivative(m, g, v, **p):
        return gate_grad(m, g, **p) * v, gate(m, g, **p)

    return forward, derivative


def _relu(m, g):
    return m.maximum(g, 0.0)


def _relu_grad(m, g):
    return m.indicator(g > 0, g)


def _gelu(m, g):
    return m.gated(g, m.norm_cdf(g))


def _gelu_grad(m, g):
    return m.gelu_grad(g)  # Phi(g) + g phi(g) (see smooth._gelu_grad)


def _sigmoid(m, g):
    return m.sigmoid(g)


def _sigmoid_grad(m, g):
    return m.sigmoid(g) * m.sigmoid(-g)


def _kappa(m, c, kappa_bias, kappa_scale, kappa_max):
    return m.exp(math.log(kappa_max) * m.tanh(kappa_bias + kappa_scale * c))


def _kappa_swiglu(m, g, v, c, kappa_bias, kappa_scale, kappa_max):
    return _swish(m, g, _kappa(m, c, kappa_bias, kappa_scale, kappa_max)) * v


def _kappa_swiglu_grad(m, g, v, c, kappa_bias, kappa_scale, kappa_max):
    k = _kappa(m, c, kappa_bias, kappa_scale, kappa_max)
    return _swish_grad(m, g, k) * v, _swish(m, g, k)


def _clamped(m, g, v, limit):
    gc = m.minimum(g, limit)
    return _swish(m, gc, 1.0) * m.clamp(v, -limit, limit)


def _clamped_grad(m, g, v, limit):
    gc = m.minimum(g, limit)
    dg = _swish_grad(m, gc, 1.0) * m.indicator(g < limit, g) * m.clamp(v, -limit, limit)
    dv = _swish(m, gc, 1.0) * m.indicator((v > -limit) & (v < limit), v)
    return dg, dv


def _gpt_oss(m, g, v, alpha, limit):
    gc = m.minimum(g, limit)
    return _swish(m, gc, alpha) * (m.clamp(v, -limit, limit) + 1.0)


def _gpt_oss_grad(m, g, v, alpha, limit):
    gc = m.minimum(g, limit)
    dg = _swish_grad(m, gc, alpha) * m.indicator(g < limit, g) * (m.clamp(v, -limit, limit) + 1.0)
    dv = _swish(m, gc, alpha) * m.indicator((v > -limit) & (v < limit), v)
    return dg, dv


def _torch_glu(gate_fn):
    return lambda g, v, **p: gate_fn(g, **p) * v


_glu = _glu_of(_sigmoid, _sigmoid_grad)
_bilinear = _glu_of(lambda m, g: g, lambda m, g: m.ones_like(g))
_reglu = _glu_of(_relu, _relu_grad)
_geglu = _glu_of(_gelu, _gelu_grad)
_geglu_tanh = _glu_of(_gelu_tanh, _gelu_tanh_grad)


def _swiglu(m, g, v, beta):
    # one primitive, which the compiled float32 namespace rounds once with v inside the quotient
    # (torch_compiled.swiglu_float32: swish(g) * v rounds twice, 99 ULP where the gate is subnormal and v large);
    # the torch backend's is swish(g) * v, float64 with the tail shift of _swish
    return m.swiglu(g, v, beta)


def _swiglu_grad(m, g, v, beta):
    return _swish_grad(m, g, beta) * v, _swish(m, g, beta)


LIMIT = P("limit", 7.0, "clamp level L", low=0.0, low_inclusive=False)

SPECS = [
    gated(
        name="glu",
        family="gated",
        formula=r"\sigma(g) \odot v",
        summary="Gated linear unit (sigmoid gate).",
        forward=_glu[0],
        derivative=_glu[1],
        gate=(_sigmoid, _sigmoid_grad),
        borrowed=(
            torch_names(
                "glu",
                "GLU",
                positional=("dim",),
                defaults={"layout": "value_gate"},
                note="torch's glu puts the value first: F.glu(x) = a * sigmoid(b) for x = [a | b] along dim",
            ),
            Alias(
                ("jax.nn.glu", "keras.activations.glu", "keras.ops.glu"),
                "jax",
                args={"axis": "dim"},
                positional=("axis",),
                defaults={"layout": "value_gate"},
                note="JAX's and Keras's glu: value first",
            ),
        ),
        paper=Paper("Language Modeling with Gated Convolutional Networks", "arXiv:1612.08083", 2016),
        torch_equivalent=lambda g, v: F.glu(torch.cat([v, g], dim=-1), dim=-1),
    ),
    gated(
        name="bilinear",
        family="gated",
        formula=r"g \odot v",
        summary="Bilinear unit: no nonlinearity on the gate.",
        forward=_bilinear[0],
        derivative=_bilinear[1],
        aliases=("bilinear_glu",),
        properties=props("smooth"),
        paper=GLU_VARIANTS,
        torch_equivalent=lambda g, v: g * v,
    ),
    gated(
        name="reglu",
        family="gated",
        formula=r"\max(0, g) \odot v",
        summary="ReLU-gated linear unit.",
        forward=_reglu[0],
        derivative=_reglu[1],
        aliases=("ReGLU",),
        properties=props("sparse"),
        paper=GLU_VARIANTS,
        breakpoints=lambda **_: (0.0,),
        torch_equivalent=_torch_glu(F.relu),
    ),
    gated(
        name="geglu",
        family="gated",
        formula=r"\mathrm{gelu}(g) \odot v",
        summary="GELU-gated linear unit (exact GELU).",
        forward=_geglu[0],
        derivative=_geglu[1],
        gate=(_gelu, _gelu_grad),
        aliases=("GEGLU",),
        properties=props("smooth"),
        paper=GLU_VARIANTS,
        torch_equivalent=_torch_glu(F.gelu),
    ),
    gated(
        name="geglu_tanh",
        family="gated",
        formula=r"\mathrm{gelu_{tanh}}(g) \odot v",
        summary="GELU(tanh)-gated linear unit (Gemma, Liger's GeGLU).",
        forward=_geglu_tanh[0],
        derivative=_geglu_tanh[1],
        gate=(_gelu_tanh, _gelu_tanh_grad),
        aliases=("gelu_tanh_and_mul", "geglu_approx"),
        properties=props("smooth"),
        paper=GLU_VARIANTS,
        torch_equivalent=_torch_glu(lambda g: F.gelu(g, approximate="tanh")),
    ),
    gated(
        name="swiglu",
        family="gated",
        formula=r"g\,\sigma(\beta g) \odot v",
        summary="Swish-gated linear unit (LLaMA FFN).",
        forward=_swiglu,
        derivative=_swiglu_grad,
        gate=(_swish, _swish_grad),
        params=(P("beta", 1.0, "gate sharpness (1 = SiLU)", learnable=True, init="constant 1.0"),),
        aliases=("SwiGLU", "silu_and_mul", "silu_glu"),
        properties=props("smooth"),
        paper=GLU_VARIANTS,
        torch_equivalent=lambda g, v, beta=1.0: g * torch.sigmoid(beta * g) * v,
    ),
    gated(
        name="kappa_swiglu",
        family="gated",
        formula=r"g\,\sigma(\kappa g) \odot v,\ \kappa = \exp\!\left(\log\kappa_{\max} \tanh(b + s\,c)\right)",
        summary="Confidence-adaptive SwiGLU: gate sharpness from a per-token router confidence c.",
        forward=_kappa_swiglu,
        derivative=_kappa_swiglu_grad,
        extra_inputs=("c",),
        params=(
            P(
                "kappa_bias",
                0.0,
                "b",
                learnable=True,
                learned_by_default=True,
                init="zeros (kappa = 1: SwiGLU)",
            ),
            P("kappa_scale", 0.0, "s", learnable=True, learned_by_default=True, init="zeros"),
            P(
                "kappa_max",
                3.0,
                "upper bound of kappa (3 in MoE layers, 2 dense)",
                low=1.0,
                low_inclusive=False,
            ),
        ),
        aliases=("confidence_swiglu",),
        properties=props("smooth", "learnable"),
        paper=Paper("Confidence-Adaptive SwiGLU for Mixture-of-Experts", "arXiv:2606.00761", 2026),
        source=(
            "authors' code askerlee/kappa-swiglu nanochat/gpt.py: kappa = exp(log(kappa_max) tanh(b + s c)), "
            "b, s per unit init 0; c is the router confidence (by default 2 x the selected expert's probability)"
        ),
    ),
    gated(
        name="clamped_swiglu",
        family="gated",
        formula=r"\mathrm{silu}(\min(g, L)) \odot \operatorname{clamp}(v, -L, L)",
        summary="SwiGLU with the gate clamped from above and the value clamped to [-L, L].",
        forward=_clamped,
        derivative=_clamped_grad,
        params=(LIMIT,),
        aliases=("swiglu_clamped",),
        confirmed=False,
        source="generic form of the clamped SwiGLU in recent MoE models; no paper of its own (see gpt_oss_swiglu)",
        breakpoints=lambda limit, **_: (-limit, limit),  # gate kinks at L, value at +-L
        torch_equivalent=lambda g, v, limit=7.0: F.silu(g.clamp(max=limit)) * v.clamp(-limit, limit),
    ),
    gated(
        name="gpt_oss_swiglu",
        family="gated",
        formula=r"\min(g, L)\,\sigma(\alpha \min(g, L)) \odot (\operatorname{clamp}(v, -L, L) + 1)",
        summary="gpt-oss's clamped SwiGLU (alpha = 1.702, L = 7, value shifted by one).",
        forward=_gpt_oss,
        derivative=_gpt_oss_grad,
        params=(P("alpha", 1.702, "gate sharpness", low=0.0, low_inclusive=False), LIMIT),
        aliases=("gptoss_swiglu",),
        paper=Paper("gpt-oss-120b & gpt-oss-20b Model Card", "arXiv:2508.10925", 2025),
        source=(
            "authors' code openai/gpt-oss gpt_oss/torch/model.py (swiglu); their checkpoints interleave gate and "
            "value ([..., ::2], [..., 1::2]): pass them as two tensors"
        ),
        breakpoints=lambda limit, **_: (-limit, limit),  # gate kinks at L, value at +-L
        # (the authors' swiglu on the de-interleaved halves)
        torch_equivalent=lambda g, v, alpha=1.702, limit=7.0: (
            g.clamp(max=limit) * torch.sigmoid(alpha * g.clamp(max=limit)) * (v.clamp(-limit, limit) + 1)
        ),
    ),
]
