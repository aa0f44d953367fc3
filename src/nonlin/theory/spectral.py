"""Cross moments of smooth units as Chebyshev series in the correlation, by FFT in polar coordinates.

For (u1, u2) centred Gaussian with variances q1, q2 and correlation c = cos(theta), write the standard
pair in polar coordinates: u1 = s1 r cos(beta), u2 = s2 r cos(beta + theta), r with density r e^{-r^2/2}.
Then

    E[f1(u1) f2(u2)] = int_0^inf r e^{-r^2/2} (1/2pi) int G1(r, beta) G2(r, beta + theta) dbeta dr,
    G_i(r, beta) = f_i(s_i r cos beta),

and the inner integral is a circular cross-correlation: with the (real, even) Fourier coefficients
g_i,m(r) of G_i(r, .), it equals sum_m g1,m g2,m e^{i m theta}. Integrating over r gives

    E[f1(u1) f2(u2)] = sum_m a_m T_m(c),   a_0 = C_0, a_m = 2 C_m,   C_m = int r e^{-r^2/2} g1,m g2,m dr:

the whole dual kernel as one Chebyshev series in c, for every angle at once, from one evaluation of each
function on a polar grid (a few hundred radii times a few hundred angles) instead of a 2-D rule per angle.

This needs f smooth: the trapezoid rule in beta is spectrally accurate only for analytic periodic G. Units
that declare breakpoints (kinks, jumps) keep the breakpoint-aware 2-D rule of `quadrature.expect_2d`;
`series` returns None where its own convergence checks fail (coefficients that do not decay within the
size limits), and callers fall back to that rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from nonlin.theory.quadrature import DTYPE, Fn, _panels

R_MAX = 12.0  # radial mass beyond: e^{-72}, negligible against any polynomial growth
PANEL_NODES = 16
FFT_START = 128  # angles on the full circle at first; doubled per radius until the spectrum has decayed
FFT_MAX = 1 << 15
TAIL_TOL = 1e-15  # an angular spectrum counts as resolved when its top half is below this (relative)
# ... or when its top half stopped falling on doubling (a plateau: the rounding noise of f's values, which
# for sin(s r cos beta) grows with the argument) below this. A hidden kink or jump falls by 4x or 2x per
# doubling instead, never plateaus this low, and ends in None (the caller's 2-D rule):
PLATEAU_TOL = 1e-12
SERIES_TOL = 1e-17  # Chebyshev coefficients below this (relative to sum |a_m|) are dropped from the end
DEGREE_MAX = 1024  # longer series cost more to evaluate than the angle tables: fall back


def radial_rule(s_max: float, periodic: bool) -> tuple[np.ndarray, np.ndarray]:
    """Nodes r and weights for int_0^inf r e^{-r^2/2} h(r) dr, h even and smooth in r.

    The dual kernel's radial integrand has its complex singularities on the imaginary r axis, at
    distances ~ 1/s from 0 (f(s r cos beta) has features at fixed pre-activation scales): panels are
    graded geometrically towards 0 down to well below 1/s_max, then uniform. Periodic units oscillate in
    r with period ~ 2 pi / s: their uniform panels shrink with s.
    """
    smallest = min(0.05, 0.05 / max(s_max, 1e-300))
    geometric = 2.0 ** np.arange(math.floor(math.log2(smallest)), 0)
    step = min(0.5, 1.5 / s_max) if periodic else 0.5
    uniform = np.arange(0.5, R_MAX + 0.5 * step, step)
    edges = np.unique(np.concatenate([[0.0], geometric, uniform, [R_MAX]]))
    edges = edges[edges <= R_MAX]
    r, w = (a.numpy() for a in _panels(torch.from_numpy(edges), PANEL_NODES))
    return r, w * r * np.exp(-0.5 * r * r)


def angular_spectrum(f: Fn, s: float, r: np.ndarray) -> np.ndarray | None:
    """Fourier cosine coefficients g_m(r) of beta -> f(s r cos beta), m = 0..FFT_MAX/2 (zero-padded): [R, K].

    Each radius gets its own number of angles, doubled until the top half of its spectrum is below
    TAIL_TOL of its largest coefficient (aliasing from beyond is then smaller still) or has reached the
    noise floor of f's values (a plateau). None if a radius needs more than FFT_MAX angles.
    """
    out_len = FFT_MAX // 2 + 1
    spec = np.zeros((r.shape[0], out_len))
    todo = np.arange(r.shape[0])
    prev_tail = np.full(r.shape[0], np.inf)
    M = FFT_START
    used = 0
    while todo.size:
        if M > FFT_MAX:
            return None
        # f on beta in [0, pi] only: G is even in beta, so the other half is a mirror.
        beta = 2.0 * math.pi * np.arange(M // 2 + 1) / M
        x = s * r[todo, None] * np.cos(beta)[None, :]
        half = f(torch.from_numpy(x)).numpy()
        full = np.concatenate([half, half[:, -2:0:-1]], axis=1)
        g = np.fft.rfft(full, axis=1).real / M  # [len(todo), M/2 + 1]
        scale = np.abs(g).max(axis=1)
        tail = np.abs(g[:, M // 4 :]).max(axis=1)
        done = (tail <= TAIL_TOL * scale) | ((tail <= PLATEAU_TOL * scale) & (tail >= 0.7 * prev_tail[todo]))
        prev_tail[todo] = tail
        if not np.isfinite(g).all():
            return None
        spec[todo[done], : M // 2 + 1] = g[done]
        used = max(used, M // 2 + 1) if done.any() else used
        todo = todo[~done]
        M *= 2
    return spec[:, :used]


def series(
    pairs: Sequence[tuple[Fn, Fn]], qa: Sequence[float], qb: Sequence[float], periodic: bool = False
) -> torch.Tensor | None:
    """Chebyshev coefficients in c of E[f1(u1) f2(u2)] for each (f1, f2) in `pairs` and each variance pair
    (qa[p], qb[p]): [K, P, D], D the longest significant length. None where the smooth-unit method does
    not converge (the caller then uses the 2-D rule).
    """
    qa = [float(v) for v in qa]
    qb = [float(v) for v in qb]
    s_max = math.sqrt(max(max(qa), max(qb), 1e-300))
    r, wr = radial_rule(s_max, periodic)
    spectra: dict[tuple[int, float], np.ndarray] = {}

    def spectrum(f: Fn, q: float) -> np.ndarray | None:
        key = (id(f), q)
        if key not in spectra:
            g = angular_spectrum(f, math.sqrt(q), r)
            if g is None:
                return None
            spectra[key] = g
        return spectra[key]

    rows = []
    for f1, f2 in pairs:
        per_pair = []
        for a, b in zip(qa, qb, strict=True):
            g1, g2 = spectrum(f1, a), spectrum(f2, b)
            if g1 is None or g2 is None:
                return None
            n = min(g1.shape[1], g2.shape[1])  # beyond the shorter one the product is below tolerance
            C = wr @ (g1[:, :n] * g2[:, :n])
            per_pair.append(np.concatenate([C[:1], 2.0 * C[1:]]))
        rows.append(per_pair)
    D = max(len(a) for row in rows for a in row)
    coeffs = np.zeros((len(pairs), len(qa), D))
    for k, row in enumerate(rows):
        for p, a in enumerate(row):
            coeffs[k, p, : len(a)] = a
    # Drop the negligible end: |a_m| < SERIES_TOL sum |a| for every row.
    scale = np.abs(coeffs).sum(axis=2, keepdims=True)
    big = (np.abs(coeffs) > SERIES_TOL * np.maximum(scale, 1e-300)).any(axis=(0, 1))
    D = int(np.nonzero(big)[0].max()) + 1 if big.any() else 1
    if D > DEGREE_MAX:
        return None
    return torch.from_numpy(coeffs[:, :, :D].copy()).to(DTYPE)


def multiply(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Chebyshev series product along the last dim (T_m T_n = (T_{m+n} + T_{|m-n|}) / 2)."""
    lead = a.shape[:-1]
    A = a.reshape(-1, a.shape[-1]).numpy()
    B = b.reshape(-1, b.shape[-1]).numpy()
    out = [np.polynomial.chebyshev.chebmul(x, y) for x, y in zip(A, B, strict=True)]
    D = max(len(o) for o in out)
    res = np.zeros((len(out), D))
    for i, o in enumerate(out):
        res[i, : len(o)] = o
    return torch.from_numpy(res).reshape(*lead, D).to(DTYPE)


def pad(a: torch.Tensor, n: int) -> torch.Tensor:
    """Series `a` [..., D] with zeros appended to length n >= D."""
    return torch.nn.functional.pad(a, (0, n - a.shape[-1]))


def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    n = max(a.shape[-1], b.shape[-1])
    return pad(a, n) + pad(b, n)
