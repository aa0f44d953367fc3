"""Saturating units: sigmoid, tanh and their relatives."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from nonlin.catalog._build import P, Paper, pointwise, props, torch_names
from nonlin.catalog.smooth import reciprocal_square


def _softsign(m, x):
    # x/(1+|x|) is inf/inf at infinity; 1/(1/|x| + 1) is not, and has no cancellation.
    ax = m.abs(x)
    return m.where(ax > 1, m.sign(x) / (1.0 / m.maximum(ax, 1.0) + 1.0), x / (1.0 + ax))


def _sigmoid_grad(m, x):
    # sigma(x) sigma(-x) = q (1 - q), q = sigma(-|x|) <= 1/2: one sigmoid instead of two (on the fused CPU
    # path each is sigmoid_float32's exp for float32 inputs), and 1 - q never cancels
    q = m.sigmoid(-m.abs(x))
    return q * (1.0 - q)


def _tempered(m, x, s, T, o):
    # Pick the form without cancellation: o = 0 is a scaled sigmoid, s = 2o is a scaled tanh
    # (s sigma(Tx) - s/2 = (s/2) tanh(Tx/2)), which keeps relative accuracy near 0 (tanh at the defaults).
    if o == 0:
        return s * m.sigmoid(T * x)
    if s == 2.0 * o:
        return o * m.tanh(0.5 * T * x)
    return s * m.sigmoid(T * x) - o


SPECS = [
    pointwise(
        name="sigmoid",
        family="sigmoidal",
        formula=r"\sigma(x) = 1/(1 + e^{-x})",
        summary="Logistic sigmoid.",
        forward=lambda m, x: m.sigmoid(x),
        derivative=_sigmoid_grad,
        aliases=("Sigmoid", "logistic", "expit"),
        properties=props("monotonic", "bounded_below", "bounded_above", "nonnegative", "smooth"),
        torch_equivalent=torch.sigmoid,
    ),
    pointwise(
        name="tanh",
        family="sigmoidal",
        formula=r"\tanh(x)",
        summary="Hyperbolic tangent.",
        forward=lambda m, x: m.tanh(x),
        derivative=lambda m, x: m.sech2(x),
        aliases=("Tanh",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth"),
        torch_equivalent=torch.tanh,
    ),
    pointwise(
        name="log_sigmoid",
        family="sigmoidal",
        formula=r"\log \sigma(x) = -\operatorname{softplus}(-x)",
        summary="Log of the sigmoid.",
        forward=lambda m, x: m.log_sigmoid(x),
        derivative=lambda m, x: m.sigmoid(-x),
        borrowed=(torch_names("logsigmoid", "LogSigmoid", positional=()),),
        properties=props("monotonic", "bounded_above", "smooth"),
        torch_equivalent=F.logsigmoid,
    ),
    pointwise(
        name="softsign",
        family="sigmoidal",
        formula=r"x / (1 + |x|)",
        summary="Softsign.",
        forward=_softsign,
        derivative=lambda m, x: reciprocal_square(m, m.abs(x), 1.0),
        aliases=("Softsign", "soft_sign"),  # soft_sign: JAX
        breakpoints=lambda **_: (0.0,),  # f' = 1/(1+|x|)^2 has a kink at 0
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth"),
        torch_equivalent=F.softsign,
    ),
    pointwise(
        name="tempered_sigmoid",
        family="sigmoidal",
        formula=r"s\,\sigma(T x) - o",
        summary="Tempered sigmoid for differentially private training (defaults give tanh).",
        forward=_tempered,
        derivative=lambda m, x, s, T, o: s * T * m.sigmoid(T * x) * m.sigmoid(-T * x),
        params=(
            P("s", 2.0, "scale", low=0.0, low_inclusive=False),
            P("T", 2.0, "inverse temperature", low=0.0, low_inclusive=False),
            P("o", 1.0, "offset"),
        ),
        aliases=("tempered_tanh",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth"),
        paper=Paper(
            "Tempered Sigmoid Activations for Deep Learning with Differential Privacy",
            "arXiv:2007.14191",
            2020,
        ),
        source="arXiv:2007.14191, Fig. 1: s/(1 + e^{-Tx}) - o; (s, T, o) = (2, 2, 1) is tanh",
    ),
    pointwise(
        name="erf",
        family="sigmoidal",
        formula=r"\operatorname{erf}(x)",
        summary="Error function: the activation with a closed-form NNGP kernel.",
        forward=lambda m, x: m.erf(x),
        derivative=lambda m, x: (2.0 / math.sqrt(math.pi)) * m.exp(-x * x),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "smooth"),
        torch_equivalent=torch.special.erf,
    ),
]
