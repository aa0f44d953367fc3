"""The Gaussian moments theory needs, for a pointwise or a gated entry.

A pointwise entry phi acts on one pre-activation u ~ N(0, q). A gated entry f(g, v) acts on two,
gate g and value v, which theory takes to be independent N(0, q) (they come from two independent
weight matrices applied to the same input: the standard GLU-layer assumption). Every gated entry in the
catalog is a product f(g, v) = A(g) B(v); `GatedModel` checks that numerically and factorises, which
makes the correlation map and the kernels products of two pointwise ones.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import torch

from nonlin.ops import TORCH
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind
from nonlin.theory import spectral
from nonlin.theory.quadrature import DTYPE, Fn, expect_1d, expect_2d, nodes_1d
from nonlin.theory.units import Unit, _float_params, pointwise_unit


def _sq(f: Fn) -> Fn:
    return lambda u: f(u) ** 2


@dataclass
class PointwiseModel:
    unit: Unit
    notes: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return self.unit.name

    @property
    def kind(self) -> str:
        return "pointwise"

    @property
    def rule(self) -> str:
        return self.unit.rule

    @property
    def smooth(self) -> bool:
        return self.unit.smooth

    @cached_property
    def distance_tables(self) -> bool:
        """E[(phi(u1) - phi(u2))^2] ~ (1 - c) q E[phi'^2] near c = 1: phi continuous, phi' its derivative."""
        return not self.unit.rule and _continuous(self.unit.phi, self.unit.breakpoints)

    @cached_property
    def homogeneous(self) -> bool:
        """phi(l x) = l^a phi(x) for l > 0 (relu, leaky_relu, relu2, step, ...): normalised moments do not
        depend on the variance."""
        return _homogeneous(self.unit.phi) and _homogeneous(self.unit.dphi)

    @property
    def _nodes(self) -> int:
        # Gauss-Legendre nodes per panel: periodic units oscillate within the panels (siren's sin(30 x) has
        # ~3 periods per half-unit panel in z), where 16 nodes leave 1e-6 errors.
        return 64 if self.unit.periodic else 16

    def m2(self, q: torch.Tensor) -> torch.Tensor:
        """E[phi(u)^2], u ~ N(0, q)."""
        return expect_1d(lambda u, z: self.unit.phi(u) ** 2, q, self.unit.breakpoints, self._nodes)

    def m2_slope(self, q: torch.Tensor) -> torch.Tensor:
        """d E[phi(u)^2] / dq = E[phi(u)^2 (z^2 - 1)] / (2 q): exact for any phi (derivative of the density)."""
        q = torch.as_tensor(q, dtype=DTYPE).reshape(-1)
        e = expect_1d(lambda u, z: self.unit.phi(u) ** 2 * (z * z - 1.0), q, self.unit.breakpoints, self._nodes)
        return e / (2.0 * q)

    def g2(self, q: torch.Tensor) -> torch.Tensor:
        """E[phi'(u)^2]: the per-layer growth of squared gradients (declared derivative or rule)."""
        return expect_1d(lambda u, z: self.unit.dphi(u) ** 2, q, self.unit.breakpoints, self._nodes)

    def cross(self, q1: torch.Tensor, q2: torch.Tensor, theta: torch.Tensor, grad: bool = True) -> torch.Tensor:
        """[E[phi(u1) phi(u2)], E[phi'(u1) phi'(u2)]] (second row only if grad) for corr(u1, u2) = cos(theta)."""
        f, d = self.unit.phi, self.unit.dphi
        pairs = [(f, f), (d, d)] if grad else [(f, f)]
        bps = self.unit.breakpoints
        features = not self.piecewise_polynomial
        return expect_2d(pairs, q1, q2, theta, bps, bps, nodes=self._nodes_2d(q1, q2), features=features)

    @cached_property
    def parities(self) -> tuple[int, int] | None:
        """(+1 even / -1 odd) of phi and phi' when both have one: then the cross moments at corr -c are
        those at c times the parity, and angle tables need only theta <= pi/2."""
        p, d = _parity(self.unit.phi), _parity(self.unit.dphi)
        return (p, d) if p and d else None

    @cached_property
    def piecewise_polynomial(self) -> bool:
        """phi and phi' are polynomials between breakpoints (relu family, hard-*, thresholds)."""
        bps = self.unit.breakpoints
        return _piecewise_polynomial(self.unit.phi, bps) and _piecewise_polynomial(self.unit.dphi, bps)

    def cross_series(self, qa: torch.Tensor, qb: torch.Tensor, grad: bool = True) -> torch.Tensor | None:
        """Chebyshev coefficients in c of `cross` at variance pairs (qa[p], qb[p]): [K, P, D], or None
        where the entry is not smooth or the spectral method does not converge (use `cross` then)."""
        if not self.unit.smooth:
            return None
        f, d = self.unit.phi, self.unit.dphi
        pairs = [(f, f), (d, d)] if grad else [(f, f)]
        coeffs = spectral.series(pairs, qa.tolist(), qb.tolist(), self.unit.periodic)
        if coeffs is None:
            return None
        scales = [self.m2] + ([self.g2] if grad else [])
        return coeffs if _agrees_at_one(coeffs, qa, qb, scales) else None

    def _nodes_2d(self, q1: torch.Tensor, q2: torch.Tensor) -> int:
        """Periodic units oscillate with period 2 pi / sqrt(q) in the standardised variable: more nodes per panel."""
        if not self.unit.periodic:
            return 10
        qmax = float(torch.max(torch.as_tensor(q1).max(), torch.as_tensor(q2).max()))
        return int(min(64, 10 + math.ceil(4.0 * math.sqrt(qmax))))

    def zero_intervals(self) -> list[tuple[float, float]]:
        return _zero_intervals(self.unit.phi, self.unit.breakpoints)


def _parity(f: Fn) -> int:
    """+1 if f(-x) = f(x), -1 if f(-x) = -f(x) (exactly, on a grid of |x| from 1e-3 to 1e3), else 0."""
    x = torch.logspace(-3, 3, 121, dtype=DTYPE)
    a, b = f(x), f(-x)
    if bool((a == b).all()):
        return 1
    if bool((a == -b).all()):
        return -1
    return 0


def _piecewise_polynomial(f: Fn, bps: tuple[float, ...], degree: int = 3) -> bool:
    """f is a polynomial of degree <= `degree` on every interval between breakpoints (and on the tails),
    checked by a least-squares fit at 24 points per interval to 1e-12 of its largest value there."""
    edges = [-math.inf, *bps, math.inf]
    for lo, hi in itertools.pairwise(edges):
        a = lo if math.isfinite(lo) else (hi - 60.0 if math.isfinite(hi) else -60.0)
        b = hi if math.isfinite(hi) else (lo + 60.0 if math.isfinite(lo) else 60.0)
        t = torch.linspace(0.02, 0.98, 24, dtype=DTYPE)
        x = a + (b - a) * t
        y = f(x)
        if not bool(torch.isfinite(y).all()):
            return False
        V = torch.stack([(2.0 * t - 1.0) ** k for k in range(degree + 1)], dim=1)  # well-conditioned on [-1, 1]
        coef = torch.linalg.lstsq(V, y[:, None]).solution
        resid = (V @ coef)[:, 0] - y
        if float(resid.abs().max()) > 1e-12 * max(float(y.abs().max()), 1e-300):
            return False
    return True


def _continuous(f: Fn, bps: tuple[float, ...]) -> bool:
    """No jump at any breakpoint (checked at +-1e-9 relative: a kink moves f by ~1e-9, a jump by O(1))."""
    if not bps:
        return True
    b = torch.tensor(bps, dtype=DTYPE)
    h = 1e-9 * b.abs().clamp_min(1.0)
    left, right = f(b - h), f(b + h)
    scale = 1.0 + torch.maximum(left.abs(), right.abs())
    return bool(((right - left).abs() <= 1e-6 * scale).all())


def _homogeneous(f: Fn) -> bool:
    """f(l x) = l^a f(x) for every l > 0, checked on a grid at l = 1/3, 2, 10 (to 1e-14 relative)."""
    x = torch.cat(
        [-torch.logspace(-3, 3, 61, dtype=DTYPE), torch.zeros(1, dtype=DTYPE), torch.logspace(-3, 3, 61, dtype=DTYPE)]
    )
    fx = f(x)
    ref = fx.abs().argmax()
    if float(fx[ref]) == 0.0:
        return True  # f = 0
    for lam in (1.0 / 3.0, 2.0, 10.0):
        flx = f(lam * x)
        if float(flx[ref]) == 0.0 or (flx[ref] > 0) != (fx[ref] > 0):
            return False
        a = math.log(float(flx[ref] / fx[ref])) / math.log(lam)
        if not bool(torch.allclose(flx, lam**a * fx, rtol=1e-14, atol=0.0)):
            return False
    return True


def _agrees_at_one(coeffs: torch.Tensor, qa: torch.Tensor, qb: torch.Tensor, scales) -> bool:
    """At c = 1 with equal variances the series must give the exact 1-D moments (T_m(1) = 1): a check
    that catches a unit whose smoothness the declaration overstates."""
    same = qa == qb
    if not bool(same.any()):
        return True
    at_one = coeffs[:, same].sum(dim=-1)  # [K, P']
    exact = torch.stack([fn(qa[same]) for fn in scales])
    return bool(((at_one - exact).abs() <= 1e-12 * exact.abs().clamp_min(1e-300)).all())


def _zero_intervals(f: Fn, bps: tuple[float, ...]) -> list[tuple[float, float]]:
    """Intervals between consecutive breakpoints (and the tails) on which f is exactly 0."""
    edges = [-math.inf, *bps, math.inf]
    out = []
    for lo, hi in itertools.pairwise(edges):
        a = lo if math.isfinite(lo) else (hi - 1e3 if math.isfinite(hi) else -1e3)
        b = hi if math.isfinite(hi) else (lo + 1e3 if math.isfinite(lo) else 1e3)
        t = torch.linspace(0.0, 1.0, 257, dtype=DTYPE)[1:-1]
        # Probe densely, including near the ends, and far out for tails.
        x = torch.cat([a + (b - a) * t, a + (b - a) * t**6, b - (b - a) * t**6])
        if bool((f(x) == 0).all()):
            out.append((lo, hi))
    return out


@dataclass
class GatedModel:
    """f(g, v) = A(g) B(v) with g, v independent N(0, q): moments are products of 1-D ones."""

    name: str
    params: dict[str, float]
    gate: Fn  # A
    dgate: Fn  # A'
    value: Fn  # B
    dvalue: Fn  # B'
    gate_bps: tuple[float, ...]
    value_bps: tuple[float, ...]
    notes: tuple[str, ...] = field(default=())
    rule: str = ""

    @property
    def kind(self) -> str:
        return "gated"

    def _e1(self, f: Fn, q: torch.Tensor, bps) -> torch.Tensor:
        return expect_1d(lambda u, z: f(u), q, bps)

    def m2(self, q: torch.Tensor) -> torch.Tensor:
        return self._e1(_sq(self.gate), q, self.gate_bps) * self._e1(_sq(self.value), q, self.value_bps)

    def m2_slope(self, q: torch.Tensor) -> torch.Tensor:
        q = torch.as_tensor(q, dtype=DTYPE).reshape(-1)

        def slope(f: Fn, bps) -> torch.Tensor:
            return expect_1d(lambda u, z: f(u) ** 2 * (z * z - 1.0), q, bps) / (2.0 * q)

        a2, b2 = self._e1(_sq(self.gate), q, self.gate_bps), self._e1(_sq(self.value), q, self.value_bps)
        return slope(self.gate, self.gate_bps) * b2 + a2 * slope(self.value, self.value_bps)

    def g2(self, q: torch.Tensor) -> torch.Tensor:
        """E[f_g^2] + E[f_v^2]: gradients reach the input through both the gate and the value weights."""
        a2, da2 = self._e1(_sq(self.gate), q, self.gate_bps), self._e1(_sq(self.dgate), q, self.gate_bps)
        b2, db2 = self._e1(_sq(self.value), q, self.value_bps), self._e1(_sq(self.dvalue), q, self.value_bps)
        return da2 * b2 + a2 * db2

    @cached_property
    def _factors_piecewise_polynomial(self) -> tuple[bool, bool]:
        """Whether the gate factor (A, A') and the value factor (B, B') are piecewise polynomials."""
        return (
            _piecewise_polynomial(self.gate, self.gate_bps) and _piecewise_polynomial(self.dgate, self.gate_bps),
            _piecewise_polynomial(self.value, self.value_bps) and _piecewise_polynomial(self.dvalue, self.value_bps),
        )

    def cross(self, q1: torch.Tensor, q2: torch.Tensor, theta: torch.Tensor, grad: bool = True) -> torch.Tensor:
        gate_poly, value_poly = self._factors_piecewise_polynomial
        ga = expect_2d(
            [(self.gate, self.gate), (self.dgate, self.dgate)],
            q1, q2, theta, self.gate_bps, self.gate_bps, features=not gate_poly,
        )  # fmt: skip
        vb = expect_2d(
            [(self.value, self.value), (self.dvalue, self.dvalue)],
            q1, q2, theta, self.value_bps, self.value_bps, features=not value_poly,
        )  # fmt: skip
        k = ga[0] * vb[0]
        if not grad:
            return k[None]
        return torch.stack([k, ga[1] * vb[0] + ga[0] * vb[1]])

    def cross_series(self, qa: torch.Tensor, qb: torch.Tensor, grad: bool = True) -> torch.Tensor | None:
        """As PointwiseModel.cross_series: products of the gate's and the value's series."""
        if not self.smooth:
            return None
        ga = spectral.series([(self.gate, self.gate), (self.dgate, self.dgate)], qa.tolist(), qb.tolist())
        vb = spectral.series([(self.value, self.value), (self.dvalue, self.dvalue)], qa.tolist(), qb.tolist())
        if ga is None or vb is None:
            return None
        k = spectral.multiply(ga[0], vb[0])
        if grad:
            dk = spectral.add(spectral.multiply(ga[1], vb[0]), spectral.multiply(ga[0], vb[1]))
            n = max(k.shape[-1], dk.shape[-1])
            coeffs = torch.stack([spectral.pad(k, n), spectral.pad(dk, n)])
        else:
            coeffs = k[None]
        scales = [self.m2] + ([self.g2] if grad else [])
        return coeffs if _agrees_at_one(coeffs, qa, qb, scales) else None

    @property
    def smooth(self) -> bool:
        return not self.gate_bps and not self.value_bps

    @cached_property
    def distance_tables(self) -> bool:
        return not self.rule and _continuous(self.gate, self.gate_bps) and _continuous(self.value, self.value_bps)

    @property
    def parities(self) -> None:
        """Gated cross moments are products of two factors' tables: no parity shortcut (see PointwiseModel)."""
        return None

    @cached_property
    def homogeneous(self) -> bool:
        return all(_homogeneous(f) for f in (self.gate, self.dgate, self.value, self.dvalue))

    def zero_intervals(self) -> list[tuple[float, float]]:
        return _zero_intervals(self.gate, self.gate_bps)


def _gated_model(name: str, params: dict[str, Any]) -> GatedModel:
    s = get_spec(name)
    if s.extra_inputs:
        raise ValueError(
            f"{s.name} takes extra inputs {s.extra_inputs}; theory supports gated entries of (gate, value) only"
        )
    p = _float_params(s, params)
    g0, v0 = 1.2345, 0.6789  # a point where every catalog gate and value is non-zero

    def f(g: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return s.forward(TORCH, g, v, **p)

    def df(g: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return s.derivative(TORCH, g, v, **p)

    one = torch.ones(1, dtype=DTYPE)
    f00 = float(f(g0 * one, v0 * one))
    if f00 == 0.0:
        raise ValueError(f"{s.name}: f(g0, v0) = 0 at the factorisation point; cannot factorise")
    # Separability check f(g1, v1) f(g2, v2) = f(g1, v2) f(g2, v1) on a grid (the product form A(g) B(v)).
    gen = torch.Generator().manual_seed(0)
    g = torch.randn(64, generator=gen, dtype=DTYPE) * 3
    v = torch.randn(64, generator=gen, dtype=DTYPE) * 3
    lhs = f(g[:32], v[:32]) * f(g[32:], v[32:])
    rhs = f(g[:32], v[32:]) * f(g[32:], v[:32])
    if not torch.allclose(lhs, rhs, rtol=1e-12, atol=1e-300):
        raise ValueError(f"{s.name} is not of the product form A(g) B(v); gated theory covers product forms only")

    # The fixed argument is a one-element tensor that broadcasts: the other factor is computed once, not
    # at every quadrature node (3-5x less work per evaluation; the same bits).
    def fixed(u: torch.Tensor, value: float) -> torch.Tensor:
        return u.new_full((1,) * u.dim(), value)

    def gate(u: torch.Tensor) -> torch.Tensor:
        return torch.broadcast_to(f(u, fixed(u, v0)), u.shape)

    def value(u: torch.Tensor) -> torch.Tensor:
        return torch.broadcast_to(f(fixed(u, g0), u) / f00, u.shape)

    def dgate(u: torch.Tensor) -> torch.Tensor:
        return torch.broadcast_to(df(u, fixed(u, v0))[0], u.shape)

    def dvalue(u: torch.Tensor) -> torch.Tensor:
        return torch.broadcast_to(df(fixed(u, g0), u)[1] / f00, u.shape)

    bps = tuple(sorted({float(b) for b in s.breakpoints(**p)}))
    both = tuple(sorted({*bps, *(-b for b in bps)}))  # the declaration does not say which input: split both ways
    return GatedModel(
        name=s.name,
        params=p,
        gate=gate,
        dgate=dgate,
        value=value,
        dvalue=dvalue,
        gate_bps=both,
        value_bps=both,
        notes=(
            f"{s.name}: gate and value pre-activations taken as independent N(0, q); f(g, v) = A(g) B(v) "
            "factorised numerically",
        ),
        rule=s.gradient_rule,
    )


def model(name: str, **params: Any) -> PointwiseModel | GatedModel:
    """The moments model of a pointwise or gated entry at `params`; normalizers are out of scope."""
    s = get_spec(name)
    if s.kind is Kind.NORMALIZER:
        raise ValueError(
            f"{s.name!r} is an attention normalizer; signal-propagation theory here covers pointwise and gated "
            "entries only"
        )
    if s.kind is Kind.SETWISE:
        raise ValueError(
            f"{s.name!r} is set-wise (its output depends on a whole set of pre-activations): the Gaussian "
            "expectations of one pre-activation that the theory computes do not apply"
        )
    if s.kind is Kind.GATED:
        return _gated_model(name, params)
    unit = pointwise_unit(name, **params)
    return PointwiseModel(unit, notes=unit.notes)


__all__ = ["GatedModel", "PointwiseModel", "model", "nodes_1d"]
