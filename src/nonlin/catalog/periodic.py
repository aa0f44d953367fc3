"""Periodic and polynomial units."""

from __future__ import annotations

import torch

from nonlin.catalog._build import P, Paper, pointwise, props
from nonlin.catalog.additions_pointwise import _sin_cos_scaled, _sin_scaled


def _sum(pair):
    return pair[0] + pair[1]


SPECS = [
    pointwise(
        name="snake",
        family="periodic",
        formula=r"x + \sin^2(a x) / a",
        summary="Snake: a periodic inductive bias with a monotone trend.",
        forward=lambda m, x, a: x + m.square(_sin_scaled(m, x, a)) / a,
        # 1 + 2 sin cos = (sin + cos)^2, squared rather than summed: 1 + 2 sin cos cancels at the derivative's
        # double zeros (sin(2ax) = -1), where its rounding is absolute (bf16 inputs, computed in float32: 801 ULP
        # at x = -2.1e17); the square keeps its error relative. Not sin(2ax): 2ax overflows near the top of the
        # half types' range, ax does not.
        # sin and cos of the exact product a x (additions_pointwise._sin_cos_exact_product): of the rounded one
        # they are off by |a x| 2^-53, which beyond |a x| = 2^53 is their whole value
        derivative=lambda m, x, a: m.square(_sum(_sin_cos_scaled(m, x, a))),
        params=(
            P(
                "a",
                1.0,
                "frequency",
                low=0.0,
                low_inclusive=False,
                learnable=True,
                init="constant 1.0 (BigVGAN/DAC); the paper suggests ~0.5 for ordinary data, 5-50 for periodic",
            ),
        ),
        aliases=("Snake",),
        properties=props("zero_at_zero", "monotonic", "smooth", "periodic", "learnable"),
        paper=Paper("Neural Networks Fail to Learn Periodic Functions and How to Fix It", "arXiv:2006.08195", 2020),
        source="arXiv:2006.08195, Snake_a(x) = x + sin^2(ax)/a",
    ),
    pointwise(
        name="sin",
        family="periodic",
        formula=r"\sin(x)",
        summary="Sine (SIREN-style periodic activation).",
        forward=lambda m, x: m.sin(x),
        derivative=lambda m, x: m.cos(x),
        aliases=("sine",),
        properties=props("zero_at_zero", "bounded_below", "bounded_above", "odd", "smooth", "periodic"),
        torch_equivalent=torch.sin,
    ),
    pointwise(
        name="gcu",
        family="periodic",
        formula=r"x \cos(x)",
        summary="Growing cosine unit.",
        forward=lambda m, x: x * m.cos(x),
        derivative=lambda m, x: m.cos(x) - x * m.sin(x),
        aliases=("GCU", "growing_cosine_unit"),
        properties=props("zero_at_zero", "odd", "smooth", "periodic"),
        paper=Paper("Growing Cosine Unit: A Novel Oscillatory Activation Function", "arXiv:2108.12943", 2021),
        source="arXiv:2108.12943 abstract: C(z) = z cos z",
    ),
    pointwise(
        name="quadratic",
        family="periodic",
        formula=r"x^2",
        summary="Square (polynomial networks).",
        forward=lambda m, x: x * x,
        derivative=lambda m, x: 2.0 * x,
        aliases=("square",),
        properties=props("zero_at_zero", "bounded_below", "nonnegative", "smooth"),
        torch_equivalent=torch.square,
    ),
]
