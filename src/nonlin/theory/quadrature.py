"""Gaussian expectations of piecewise-smooth functions by composite Gauss-Legendre quadrature.

1-D: E[f(sqrt(q) z)], z ~ N(0, 1), integrated in the standardised variable z on [-L, L] (L = 14: the
Gaussian mass beyond is below 1e-44, negligible against polynomial growth). Panels are split at
- a fixed grid in z (the Gaussian's own scale),
- the declared breakpoints of f, mapped to z = b / sqrt(q) (kinks and jumps become panel ends, so
  piecewise entries converge as fast as smooth ones),
- a geometric grid in the pre-activation x = sqrt(q) z (x = +-2^k): the complex singularities of smooth
  activations (tanh's poles at +-i pi/2, ...) sit at fixed x, so at large q they crowd the origin in z and
  panels graded towards it keep Gauss-Legendre geometric.

2-D: E[f1(u1) f2(u2)] for (u1, u2) centred Gaussian with variances q1, q2 and correlation c = cos(theta).
Rotated coordinates u1 = sqrt(q1)(a x + b y), u2 = sqrt(q2)(a x - b y), a = cos(theta/2), b = sin(theta/2),
with x, y independent N(0, 1). The inner integral over x is split exactly at both functions' breakpoint
lines; the outer integrand in y is then smooth except where two breakpoint lines cross, and the outer
integral splits there. Unlike the usual conditional form u2 = c u1 + sqrt(1-c^2) w, nothing here becomes
a near-kink of width sqrt(1-c^2) as c -> 1: the two kink lines stay exact panel ends however close they
are, so the accuracy does not degrade near c = 1 (c < 0 is reduced to c > 0 by reflecting f2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
import torch

DTYPE = torch.float64
L = 14.0  # truncation of the standardised variables
_BASE_1D = sorted({*np.arange(-6.0, 6.25, 0.5).tolist(), *(s * v for v in (7, 8, 9, 10, 12, L) for s in (-1, 1))})
_BASE_2D = sorted({*np.arange(-6.0, 6.5, 1.0).tolist(), *(s * v for v in (7.5, 9.5, L) for s in (-1, 1))})
# Pre-activation scales at which smooth activations have their features (x = +-2^k).
_FEATURES_X = sorted({s * 2.0**k for k in range(-3, 7) for s in (-1, 1)})
_FEATURES_X_2D = sorted({s * 2.0**k for k in range(-3, 6) for s in (-1, 1)})
_FEATURE_BELOW = 1.0  # the 2-D grid has unit panels: feature points matter only inside |z| < 1
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
# Keep tensors of one chunk of the 2-D rule near this many elements (cache-sized: ~1.5x faster than 4e6).
_CHUNK_ELEMENTS = 250_000

Integrand1 = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (u, z) -> values
Fn = Callable[[torch.Tensor], torch.Tensor]


@lru_cache(maxsize=16)
def _gauss_legendre(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    t, w = np.polynomial.legendre.leggauss(n)
    return torch.tensor(t, dtype=DTYPE), torch.tensor(w, dtype=DTYPE)


def _pdf(z: torch.Tensor) -> torch.Tensor:
    return _INV_SQRT_2PI * torch.exp(-0.5 * z * z)


def _scaled(points: Sequence[float], scale: torch.Tensor, below: float = math.inf) -> torch.Tensor:
    """points / scale per row ([N] scale -> [N, P]), +-L where scale == 0, clipped to [-L, L].

    Points landing at |z| >= `below` are sent to +-L (then dropped): used for feature points, which only
    matter where they are finer than the fixed grid.
    """
    p = torch.tensor(list(points), dtype=DTYPE)
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    z = p[None, :] / safe[:, None]
    z = torch.where(scale[:, None] > 0, z, torch.sign(p)[None, :] * L)
    z = torch.where(z.abs() < below, z, torch.sign(z) * L)
    return z.clamp(-L, L)


def _drop_outside(cols: torch.Tensor) -> torch.Tensor:
    """Drop columns (last dim) that sit at +-L for every row: they would only add empty panels."""
    if cols.numel() == 0:
        return cols
    flat = cols.reshape(-1, cols.shape[-1])
    keep = (flat.abs() < L).any(dim=0)
    return cols[..., keep]


def _sorted_edges(edges: torch.Tensor) -> torch.Tensor:
    """Sort panel ends along the last dim, with repeats removed per row (pushed to +L, then trimmed).

    Rows keep one shape, so a row with fewer distinct ends is padded with zero-width panels at +L.
    """
    e = torch.sort(edges.clamp(-L, L), dim=-1).values
    dup = torch.zeros_like(e, dtype=torch.bool)
    dup[..., 1:] = e[..., 1:] == e[..., :-1]
    e = torch.sort(torch.where(dup, torch.full_like(e, L), e), dim=-1).values
    flat = e.reshape(-1, e.shape[-1])
    n_used = int((flat < L).sum(dim=1).max().item()) + 1 if flat.numel() else 0
    return e[..., :n_used]


def _panels(edges: torch.Tensor, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Gauss-Legendre nodes and weights of every panel between consecutive sorted `edges` [..., B]."""
    t, w = _gauss_legendre(n)
    lo, hi = edges[..., :-1], edges[..., 1:]
    mid, half = 0.5 * (hi + lo), 0.5 * (hi - lo)
    nodes = mid[..., None] + half[..., None] * t  # [..., B-1, n]
    weights = half[..., None] * w
    return nodes.flatten(-2), weights.flatten(-2)


def nodes_1d(
    q: torch.Tensor, breakpoints: Sequence[float] = (), nodes: int = 16
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Quadrature for z ~ N(0, 1) per row of q [N]: (u = sqrt(q) z, z, weights incl. the density), each [N, M]."""
    q = torch.as_tensor(q, dtype=DTYPE).reshape(-1)
    sq = torch.sqrt(q)
    base = torch.tensor(_BASE_1D, dtype=DTYPE).expand(q.shape[0], -1)
    mapped = _drop_outside(_scaled([*_FEATURES_X, *breakpoints], sq))
    edges = _sorted_edges(torch.cat([base, mapped], dim=1))
    z, w = _panels(edges, nodes)  # [N, M]
    return sq[:, None] * z, z, w * _pdf(z)


def expect_1d(fn: Integrand1, q: torch.Tensor, breakpoints: Sequence[float] = (), nodes: int = 16) -> torch.Tensor:
    """E[fn(sqrt(q) z, z)] over z ~ N(0, 1), one value per entry of `q` [N] (q >= 0).

    `fn` gets u = sqrt(q) z and z, both [N, M]; it may return [N, M] or [N, M, K] (K integrands at once).
    """
    u, z, w = nodes_1d(q, breakpoints, nodes)
    vals = fn(u, z)
    if vals.dim() == 3:
        return (vals * w[..., None]).sum(dim=1)
    return (vals * w).sum(dim=1)


def _expect_2d_nonneg(
    pairs: Sequence[tuple[Fn, Fn]],
    q1: torch.Tensor,
    q2: torch.Tensor,
    theta: torch.Tensor,
    bps1: Sequence[float],
    bps2: Sequence[float],
    nodes: int,
    features: bool = True,
) -> torch.Tensor:
    """The rotated-coordinate rule for theta in [0, pi/2] (c >= 0)."""
    s1, s2 = torch.sqrt(q1), torch.sqrt(q2)
    a, b = torch.cos(0.5 * theta), torch.sin(0.5 * theta)  # a >= 1/sqrt2
    T = q1.shape[0]
    # Breakpoints in units of each standard deviation; large but finite where q = 0 (never crossed).
    beta1 = _scaled(bps1, s1) if bps1 else torch.zeros(T, 0, dtype=DTYPE)
    beta2 = _scaled(bps2, s2) if bps2 else torch.zeros(T, 0, dtype=DTYPE)
    # Outer splits: where a line of f1 meets a line of f2, (p1 - b y)/a = (p2 + b y)/a. Breakpoint lines
    # are kinks or jumps (exact splits needed wherever they cross); feature lines only near y = 0.
    feature_points = _FEATURES_X_2D if features else []
    feat1 = _scaled(feature_points, s1, _FEATURE_BELOW)
    feat2 = _scaled(feature_points, s2, _FEATURE_BELOW)
    safe_b = torch.where(b > 0, b, torch.ones_like(b))[:, None, None]

    def crossings(p1: torch.Tensor, p2: torch.Tensor, below: float) -> torch.Tensor:
        if not (p1.shape[1] and p2.shape[1]):
            return torch.zeros(T, 0, dtype=DTYPE)
        diff = p1[:, :, None] - p2[:, None, :]
        cross = torch.where(b[:, None, None] > 0, diff / (2.0 * safe_b), torch.sign(diff) * L)
        cross = torch.nan_to_num(cross, nan=0.0)
        # A line sent out of range (at +-L) crosses nothing inside.
        outside = (p1.abs() >= L)[:, :, None] | (p2.abs() >= L)[:, None, :]
        cross = torch.where((cross.abs() < below) & ~outside, cross, torch.full_like(cross, L))
        return _drop_outside(cross.reshape(T, -1).clamp(-L, L))

    # Where feature lines of the two functions pass each other (near y = 0, at scale |p| / b) the outer
    # integrand varies on that scale: grade the outer panels there, y = +-p / b for the feature points p.
    feats = torch.cat([feat1, feat2], dim=1)
    graded = torch.where(feats.abs() < L, feats / safe_b[:, :, 0], torch.full_like(feats, L))
    graded = torch.where(graded.abs() < _FEATURE_BELOW, graded, torch.full_like(graded, L))
    cross = torch.cat([crossings(beta1, beta2, L), _drop_outside(graded)], dim=1)
    y_edges = _sorted_edges(torch.cat([torch.tensor(_BASE_2D, dtype=DTYPE).expand(T, -1), cross], dim=1))
    y, wy = _panels(y_edges, nodes)  # [T, Ny]
    wy = wy * _pdf(y)
    # Inner lines in x at each outer node: f1's at (p1 - b y)/a, f2's at (p2 + b y)/a, p in z units.
    lines1 = torch.cat([beta1, feat1], dim=1)  # [T, P1]
    lines2 = torch.cat([beta2, feat2], dim=1)
    by = (b[:, None] * y)[:, :, None]  # [T, Ny, 1]
    inner = torch.cat([(lines1[:, None, :] - by), (lines2[:, None, :] + by)], dim=2) / a[:, None, None]
    inner = _drop_outside(inner.clamp(-L, L))
    base = torch.tensor(_BASE_2D, dtype=DTYPE).expand(T, y.shape[1], -1)
    x_edges = _sorted_edges(torch.cat([base, inner], dim=2))  # [T, Ny, Bx]
    per_row = y.shape[1] * (x_edges.shape[2] - 1) * nodes
    chunk = max(1, _CHUNK_ELEMENTS // max(per_row, 1))
    out = []
    for lo in range(0, T, chunk):
        sl = slice(lo, lo + chunk)
        x, wx = _panels(x_edges[sl], nodes)  # [t, Ny, Nx]
        wx = wx * _pdf(x)
        ax = a[sl, None, None] * x
        byc = by[sl]
        u1 = s1[sl, None, None] * (ax + byc)
        u2 = s2[sl, None, None] * (ax - byc)
        w = wx * wy[sl][:, :, None]
        out.append(torch.stack([(f1(u1) * f2(u2) * w).sum(dim=(1, 2)) for f1, f2 in pairs]))
    return torch.cat(out, dim=1) if out else torch.zeros(len(pairs), 0, dtype=DTYPE)


def expect_2d(
    pairs: Sequence[tuple[Fn, Fn]],
    q1: torch.Tensor,
    q2: torch.Tensor,
    theta: torch.Tensor,
    bps1: Sequence[float] = (),
    bps2: Sequence[float] = (),
    nodes: int = 10,
    features: bool = True,
) -> torch.Tensor:
    """E[f1(u1) f2(u2)] for each (f1, f2) in `pairs`: [K, T] for K pairs and T triples (q1, q2, theta).

    (u1, u2) are centred Gaussians with variances q1, q2 and correlation cos(theta), theta in [0, pi].
    Give the angle rather than the correlation when c is near +-1: theta carries what 1 - c loses in
    floating point. `bps1` / `bps2` are the breakpoints of every f1 / f2 (the union when several).
    `features=False` drops the panels graded at the pre-activation scales x = +-2^k, which only smooth
    functions' complex singularities need: for piecewise polynomials they are 1.3-2.5x of the work and
    change nothing (2e-16).
    """
    q1, q2, theta = torch.broadcast_tensors(
        torch.as_tensor(q1, dtype=DTYPE).reshape(-1),
        torch.as_tensor(q2, dtype=DTYPE).reshape(-1),
        torch.as_tensor(theta, dtype=DTYPE).reshape(-1),
    )
    out = torch.empty(len(pairs), theta.shape[0], dtype=DTYPE)
    pos = theta <= 0.5 * math.pi
    if pos.any():
        out[:, pos] = _expect_2d_nonneg(pairs, q1[pos], q2[pos], theta[pos], bps1, bps2, nodes, features)
    if (~pos).any():
        # c < 0: E[f1(u1) f2(u2)] = E[f1(u1) g(-u2)] with g(t) = f2(-t), whose correlation is -c > 0.
        reflected = [(f1, _reflect(f2)) for f1, f2 in pairs]
        out[:, ~pos] = _expect_2d_nonneg(
            reflected, q1[~pos], q2[~pos], math.pi - theta[~pos], bps1, tuple(-p for p in bps2), nodes, features
        )
    return out


def _reflect(f: Fn) -> Fn:
    return lambda u: f(-u)
