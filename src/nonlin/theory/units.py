"""A catalog entry made ready for Gaussian expectations: float64 torch callables plus their breakpoints.

Theory reads the declaration like every other subsystem: ``spec.forward`` run with the torch namespace in
float64 is phi, ``spec.derivative`` is phi' (the declared gradient rule for straight-through entries, which is
what backpropagation uses, flagged in ``rule``), stochastic entries use their eval-mode bodies, and
``spec.breakpoints(**params)`` says where quadrature must split.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from nonlin.ops import TORCH
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind, Spec

Fn = Callable[[torch.Tensor], torch.Tensor]


@dataclass(frozen=True)
class Unit:
    """phi and phi' of one entry at fixed parameters, as float64 torch callables."""

    name: str
    spec: Spec
    params: dict[str, float]
    phi: Fn
    dphi: Fn
    breakpoints: tuple[float, ...]
    # Non-empty when phi' is a declared rule rather than the derivative of phi (straight-through, hysteresis).
    rule: str = ""
    # True when a stochastic entry was reduced to its eval-mode (deterministic) forward.
    eval_mode: bool = False
    notes: tuple[str, ...] = field(default=())
    periodic: bool = False
    # No declared breakpoint: phi and phi' are smooth, and cross moments can use `spectral.series`.
    smooth: bool = False

    @property
    def kind(self) -> Kind:
        return self.spec.kind


def _float_params(s: Spec, params: dict[str, Any]) -> dict[str, float]:
    resolved = s.resolve_params(params)
    out = {}
    for k, v in resolved.items():
        if isinstance(v, torch.Tensor):
            if v.numel() != 1:
                raise ValueError(f"{s.name}: theory needs scalar parameters; {k} has shape {tuple(v.shape)}")
            v = float(v)
        if v is None:
            raise ValueError(f"{s.name}: parameter {k} has no default; give it explicitly")
        out[k] = float(v)
    return out


def pointwise_unit(name: str, **params: Any) -> Unit:
    """The pointwise entry `name` (or alias) at `params` (defaults for the rest)."""
    s = get_spec(name)
    if s.kind is not Kind.POINTWISE:
        raise ValueError(
            f"{s.name!r} is a {s.kind.value} entry; this function takes pointwise entries"
            + (" (gated entries: see nonlin.theory.gated)" if s.kind is Kind.GATED else "")
        )
    p = _float_params(s, params)
    notes = []
    if s.stochastic:
        fwd, der = s.eval_forward, s.eval_derivative
        notes.append(f"{s.name} is stochastic: theory uses its eval-mode forward")
    else:
        fwd, der = s.forward, s.derivative
    if der is None:
        raise ValueError(f"{s.name} declares no derivative; gradient-side theory is unavailable for it")
    if s.gradient_rule:
        notes.append(f"gradient-side quantities use the declared rule: {s.gradient_rule}")

    def phi(x: torch.Tensor) -> torch.Tensor:
        return fwd(TORCH, x, **p)

    def dphi(x: torch.Tensor) -> torch.Tensor:
        return der(TORCH, x, **p)

    # 0 is always a split: harmless where phi is smooth there, and it covers |x|-type kinks in higher
    # derivatives that declarations do not list (softsign's phi' = 1/(1+|x|)^2 has a kink at 0).
    declared = [float(b) for b in s.breakpoints(**p) if math.isfinite(b)]
    bps = tuple(sorted({0.0, *declared}))
    return Unit(
        name=s.name,
        spec=s,
        params=p,
        phi=phi,
        dphi=dphi,
        breakpoints=bps,
        rule=s.gradient_rule,
        eval_mode=s.stochastic,
        notes=tuple(notes),
        periodic="periodic" in s.properties,
        smooth=not declared,
    )


def check_sigmas(sigma_w: float, sigma_b: float) -> tuple[float, float]:
    """sigma_w > 0 and sigma_b >= 0, finite; clear errors otherwise."""
    for label, value in (("sigma_w", sigma_w), ("sigma_b", sigma_b)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{label} must be a real number, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"{label} must be finite, got {value!r}")
    if sigma_w <= 0:
        raise ValueError(f"sigma_w must be > 0 (the weight standard deviation times sqrt(fan_in)), got {sigma_w!r}")
    if sigma_b < 0:
        raise ValueError(f"sigma_b must be >= 0 (a standard deviation), got {sigma_b!r}")
    return float(sigma_w), float(sigma_b)
