"""Gated units added for breadth (issue 15). Packed ``[gate | value]`` (gate first) like the rest of nonlin's
gated entries; where a library packs the other way round, the entry's source says so."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from nonlin.catalog._build import P, Paper, gated, props
from nonlin.catalog.smooth import _swish, _swish_grad, signed_sum


def _relu(m, t):
    return m.maximum(t, 0.0)


def _step(m, t):
    return m.indicator(t > 0, t)


def _gtu(m, g, v):
    return m.sigmoid(g) * m.tanh(v)


def _gtu_grad(m, g, v):
    s = m.sigmoid(g)
    return s * m.sigmoid(-g) * m.tanh(v), s * m.sech2(v)


def _drelu_grad(m, g, v):
    return _step(m, g) * _relu(m, v), _relu(m, g) * _step(m, v)


def _fatrelu(m, g, threshold):
    return m.keep(g > threshold, g)


def _fatrelu_glu_grad(m, g, v, threshold):
    return m.indicator(g > threshold, g) * v, _fatrelu(m, g, threshold)


def _situ_gate(m, g, beta):
    return beta * m.tanh(g / beta) * m.sigmoid(g)


def _situ_gate_grad(m, g, beta):
    s = m.sigmoid(g)
    # the second term dominates as g -> -inf (-beta e^g); where both underflow the zero keeps its sign
    return signed_sum(m, m.sech2(g / beta) * s, beta * m.tanh(g / beta) * s * m.sigmoid(-g))


def _situ_glu(m, g, v, beta, linear_beta):
    return _situ_gate(m, g, beta) * (linear_beta * m.tanh(v / linear_beta))


def _situ_glu_grad(m, g, v, beta, linear_beta):
    up = linear_beta * m.tanh(v / linear_beta)
    return _situ_gate_grad(m, g, beta) * up, _situ_gate(m, g, beta) * m.sech2(v / linear_beta)


def _relu2_glu(m, g, v):
    # relu(g)^2 v: g^2 overflows (float32, where half inputs compute: g > 1.8e19) where g^2 v is a number;
    # there r (r v) does not (|r v| < |r^2 v| for r > 1)
    r = _relu(m, g)
    return m.where(r > 2.0**60, r * (r * v), m.square(r) * v)


def _relu2_glu_grad(m, g, v):
    r = _relu(m, g)
    return 2.0 * (r * v), r * r  # not (2 r) v: 2 r overflows float32 for r > 1.7e38 where 2 r v is a number


def _swiglustep(m, g, v, limit):
    return m.minimum(_swish(m, g, 1.0), limit) * m.clamp(v, -limit, limit)


def _swiglustep_grad(m, g, v, limit):
    a = _swish(m, g, 1.0)
    dg = _swish_grad(m, g, 1.0) * m.indicator(a < limit, g) * m.clamp(v, -limit, limit)
    dv = m.minimum(a, limit) * m.indicator((v > -limit) & (v < limit), v)
    return dg, dv


def _silu_crossing(level: float) -> float:
    """g with silu(g) = level (level > 0), by bisection: where swiglustep's gate clip starts."""
    lo, hi = 0.0, level + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if mid / (1.0 + math.exp(-mid)) < level else (lo, mid)
    return hi


SPECS = [
    gated(
        name="gtu",
        family="gated",
        formula=r"\sigma(g) \odot \tanh(v)",
        summary="Gated tanh unit (WaveNet, PixelCNN): a tanh value gated by a sigmoid.",
        forward=_gtu,
        derivative=_gtu_grad,
        aliases=("gated_tanh_unit",),
        properties=props("smooth"),
        paper=Paper("Conditional Image Generation with PixelCNN Decoders", "arXiv:1606.05328", 2016),
        source=(
            "arXiv:1606.05328 eq. 2 / WaveNet arXiv:1609.03499 eq. 2: tanh(W_f x) * sigmoid(W_g x). nonlin packs "
            "[sigmoid half | tanh half] (gate first); torch_activation's GTU chunks tanh half first"
        ),
        torch_equivalent=lambda g, v: torch.sigmoid(g) * torch.tanh(v),
    ),
    gated(
        name="drelu",
        family="gated",
        formula=r"\max(0, g) \odot \max(0, v)",
        summary="dReLU: ReLU on both gate and value, for activation sparsity (Turbo Sparse).",
        forward=lambda m, g, v: _relu(m, g) * _relu(m, v),
        derivative=_drelu_grad,
        aliases=("double_relu",),
        properties=props("sparse"),
        paper=Paper(
            "Turbo Sparse: Achieving LLM SOTA Performance with Minimal Activated Parameters", "arXiv:2406.05955", 2024
        ),
        source="arXiv:2406.05955 sec. 3 (dReLU: ReLU(x W_gate) * ReLU(x W_up))",
        breakpoints=lambda **_: (0.0,),
        torch_equivalent=lambda g, v: F.relu(g) * F.relu(v),
    ),
    gated(
        name="fatrelu_glu",
        family="gated",
        formula=r"g\,\mathbb{1}[g > t] \odot v",
        summary="FATReLU-gated linear unit (ProSparse, MiniCPM-S): the gate is zero at or below a threshold t.",
        forward=lambda m, g, v, threshold: _fatrelu(m, g, threshold) * v,
        derivative=_fatrelu_glu_grad,
        params=(P("threshold", 0.0, "t (0 is ReGLU)", low=0.0),),
        aliases=("fatrelu_and_mul", "FatreluAndMul"),
        properties=props("sparse"),
        paper=Paper(
            "ProSparse: Introducing and Enhancing Intrinsic Activation Sparsity within Large Language Models",
            "arXiv:2402.13516",
            2024,
        ),
        confirmed=False,
        source=(
            "vLLM FatreluAndMul: F.threshold(x[..., :d], threshold, 0) * x[..., d:] (gate first, strict >); the "
            "default threshold 0 is recalled from vLLM, not re-read; ProSparse's paper writes x >= T"
        ),
        breakpoints=lambda threshold, **_: (threshold,),
        torch_equivalent=lambda g, v, threshold=0.0: F.threshold(g, threshold, 0.0) * v,
    ),
    gated(
        name="situ_glu",
        family="gated",
        formula=r"\beta_g \tanh(g/\beta_g)\,\sigma(g) \odot \beta_u \tanh(v/\beta_u)",
        summary="SiTU-GLU (Kimi K3): a soft-capped SiLU-like gate times a soft-capped value.",
        forward=_situ_glu,
        derivative=_situ_glu_grad,
        params=(
            P("beta", 4.0, "gate cap beta_g", low=0.0, low_inclusive=False),
            P("linear_beta", 25.0, "value cap beta_u", low=0.0, low_inclusive=False),
        ),
        aliases=("situglu", "situ_and_mul", "SituAndMul"),
        properties=props("smooth"),
        confirmed=False,
        source=(
            "Kimi K3's SituAndMul (modeling_kimi_linear.py) as transcribed identically in three independent "
            "reimplementations: beta tanh(gate/beta) sigmoid(gate) * linear_beta tanh(up/linear_beta), gate first; "
            "the original file and its paper (arXiv:2607.24653) were not read; defaults beta=4, linear_beta=25 are "
            "one reimplementation's"
        ),
        torch_equivalent=lambda g, v, beta=4.0, linear_beta=25.0: (
            beta * torch.tanh(g / beta) * torch.sigmoid(g) * (linear_beta * torch.tanh(v / linear_beta))
        ),
    ),
    gated(
        name="relu2_glu",
        family="gated",
        formula=r"\max(0, g)^2 \odot v",
        summary="Squared-ReLU-gated linear unit.",
        forward=_relu2_glu,
        derivative=_relu2_glu_grad,
        aliases=("reglu2", "relu_squared_glu"),
        properties=props("sparse", "smooth"),
        paper=Paper(
            "ReLU^2 Wins: Discovering Efficient Activation Functions for Sparse LLMs", "arXiv:2402.03804", 2024
        ),
        confirmed=False,
        source=(
            "relu(g)^2 * v: the GLU form of Primer's squared ReLU; arXiv:2402.03804 evaluates ReLU^2 in gated FFNs, "
            "but which models use exactly this gated form was not confirmed"
        ),
        breakpoints=lambda **_: (0.0,),
        torch_equivalent=lambda g, v: F.relu(g) ** 2 * v,
    ),
    gated(
        name="swiglustep",
        family="gated",
        formula=r"\min(\mathrm{silu}(g), L) \odot \operatorname{clamp}(v, -L, L)",
        summary="Step-3.5's SwiGLU clamped after the activation (differs from clamped_swiglu wherever g > L).",
        forward=_swiglustep,
        derivative=_swiglustep_grad,
        params=(P("limit", 7.0, "clamp level L", low=0.0, low_inclusive=False),),
        aliases=("swiglustep_and_mul", "SwigluStepAndMul", "swiglu_step", "post_clamped_swiglu"),
        source=(
            "vLLM SwigluStepAndMul.forward_native (Step-3.5-Flash): silu(gate).clamp(max=limit) * "
            "up.clamp(-limit, limit), gate first, limit = 7.0 (read in two transcriptions of the vLLM code)"
        ),
        breakpoints=lambda limit, **_: (-limit, limit, _silu_crossing(limit)),
        torch_equivalent=lambda g, v, limit=7.0: F.silu(g).clamp(max=limit) * v.clamp(-limit, limit),
    ),
]
