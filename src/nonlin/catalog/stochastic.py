"""Stochastic units and units trained with straight-through gradient rules."""

from __future__ import annotations

import torch.nn.functional as F

from nonlin.catalog._build import P, Paper, pointwise, props, torch_inplace, torch_names
from nonlin.catalog.smooth import _swish, _swish_grad

STE_PAPER = Paper(
    "Estimating or Propagating Gradients Through Stochastic Neurons for Conditional Computation",
    "arXiv:1308.3432",
    2013,
)


def _relu(m, x):
    return m.maximum(x, 0.0)


def _leaky(m, x, slope):
    return m.where(x >= 0, x, slope * x)


def _leaky_grad(m, x, slope):
    return m.where(x >= 0, m.ones_like(x), slope * m.ones_like(x))


SPECS = [
    pointwise(
        name="stochastic_silu_relu",
        family="stochastic",
        formula=r"\text{train: } \mathrm{silu}(x) \text{ w.p. } p \text{ else } \mathrm{relu}(x);\ \text{eval: } \mathrm{relu}(x)",
        summary="Stochastic activation: a Bernoulli(p) choice of SiLU or ReLU per element in training.",
        forward=lambda m, x, u, p: m.where(u < p, _swish(m, x, 1.0), _relu(m, x)),
        derivative=lambda m, x, u, p: m.where(u < p, _swish_grad(m, x, 1.0), m.indicator(x > 0, x)),
        eval_forward=lambda m, x, p: _relu(m, x),
        eval_derivative=lambda m, x, p: m.indicator(x > 0, x),
        params=(P("p", 0.5, "probability of SiLU in training", low=0.0, high=1.0),),
        # properties of stochastic entries describe eval mode (here ReLU)
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse", "stochastic"),
        paper=Paper("Stochastic activations", "arXiv:2509.22358", 2025),
        confirmed=False,
        source=(
            "arXiv:2509.22358 abstract and Fig. 1 (SiLU w.p. p, ReLU w.p. 1-p; ReLU at inference); the paper's p "
            "and whether the draw is per element were not confirmed (nonlin: per element by default, p = 0.5)"
        ),
        breakpoints=lambda **_: (0.0,),
    ),
    pointwise(
        name="rrelu",
        family="stochastic",
        formula=r"x \text{ if } x \geq 0 \text{ else } a x,\ a \sim U(l, u) \text{ (train)},\ a = (l+u)/2 \text{ (eval)}",
        summary="Randomised leaky ReLU.",
        forward=lambda m, x, u, lower, upper: _leaky(m, x, lower + (upper - lower) * u),
        derivative=lambda m, x, u, lower, upper: _leaky_grad(m, x, lower + (upper - lower) * u),
        eval_forward=lambda m, x, lower, upper: _leaky(m, x, 0.5 * (lower + upper)),
        eval_derivative=lambda m, x, lower, upper: _leaky_grad(m, x, 0.5 * (lower + upper)),
        params=(
            P("lower", 1.0 / 8.0, "lower bound of the random slope", low=0.0),
            P("upper", 1.0 / 3.0, "upper bound of the random slope", low=0.0),
        ),
        borrowed=(
            _RRELU := torch_names(
                "rrelu",
                "RReLU",
                positional=("lower", "upper", "training", "inplace"),
                module_positional=("lower", "upper", "inplace"),
            ),
            torch_inplace(_RRELU, "rrelu_"),
        ),
        properties=props("zero_at_zero", "monotonic", "stochastic"),
        paper=Paper("Empirical Evaluation of Rectified Activations in Convolutional Network", "arXiv:1505.00853", 2015),
        breakpoints=lambda **_: (0.0,),
        torch_equivalent=lambda x, lower=1 / 8, upper=1 / 3: F.rrelu(x, lower, upper, training=False),
    ),
    pointwise(
        name="binary_stochastic",
        family="stochastic",
        formula=r"\text{train: } \mathbb{1}[u < \sigma(x)],\ u \sim U(0,1);\ \text{eval: } \mathbb{1}[x > 0];\ \partial = \sigma'(x)",
        summary="Stochastic binary neuron with the sigmoid straight-through gradient.",
        forward=lambda m, x, u: m.indicator(u < m.sigmoid(x), x),
        derivative=lambda m, x, u: m.sigmoid(x) * m.sigmoid(-x),
        eval_forward=lambda m, x: m.indicator(x > 0, x),
        eval_derivative=lambda m, x: m.sigmoid(x) * m.sigmoid(-x),
        properties=props(
            "zero_at_zero",
            "monotonic",
            "bounded_below",
            "bounded_above",
            "nonnegative",
            "sparse",
            "stochastic",
            "gradient_rule",
        ),
        paper=STE_PAPER,
        gradient_rule="straight-through: the backward is sigma'(x), the derivative of the firing probability",
        breakpoints=lambda **_: (0.0,),
    ),
    pointwise(
        name="step",
        family="stochastic",
        formula=r"\mathbb{1}[x > 0];\ \partial = 1",
        summary="Heaviside step with the identity straight-through gradient.",
        forward=lambda m, x: m.indicator(x > 0, x),
        derivative=lambda m, x: m.ones_like(x),
        aliases=("heaviside", "binary_step"),
        derivative_from_output=lambda m, y: m.ones_like(y),  # the rule does not depend on x
        properties=props(
            "zero_at_zero", "monotonic", "bounded_below", "bounded_above", "nonnegative", "sparse", "gradient_rule"
        ),
        paper=STE_PAPER,
        gradient_rule="straight-through: the backward is the identity (gradient 1 everywhere)",
        breakpoints=lambda **_: (0.0,),
    ),
    pointwise(
        name="sign",
        family="stochastic",
        formula=r"\operatorname{sign}(x);\ \partial = \mathbb{1}[|x| \leq 1]",
        summary="Sign with the saturating straight-through gradient (BinaryNet).",
        forward=lambda m, x: m.sign(x),
        derivative=lambda m, x: m.indicator(m.abs(x) <= 1, x),
        aliases=("binary_sign",),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "bounded_above", "odd", "gradient_rule"),
        paper=Paper("Binarized Neural Networks", "arXiv:1602.02830", 2016),
        gradient_rule="straight-through: the backward is 1 where |x| <= 1, else 0 (hardtanh's derivative)",
        breakpoints=lambda **_: (-1.0, 0.0, 1.0),
    ),
]
