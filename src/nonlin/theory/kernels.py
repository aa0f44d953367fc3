"""NNGP and NTK of deep fully connected networks for any catalog entry.

Network (neural-tangents' conventions): `depth` hidden layers, each Dense then phi, then a Dense readout.
Dense: W ~ N(0, sigma_w^2 / fan_in), b ~ N(0, sigma_b^2). Kernels of the readout pre-activation:
    K_0(x, x') = sigma_w^2 x.x' / d + sigma_b^2,       Theta_0 = K_0
    K_{l+1}    = sigma_w^2 E[phi(u) phi(u')] + sigma_b^2,    (u, u') ~ N(0, K_l restricted to x, x')
    Theta_{l+1} = K_{l+1} + sigma_w^2 E[phi'(u) phi'(u')] Theta_l
and the result after `depth` such steps. The NNGP is the same in neural-tangents' "standard" and "ntk"
parametrizations; the NTK recursion above is the width-independent one (neural-tangents' "ntk"
parametrization), which is the infinite-width limit the standard parametrization reaches with learning
rates scaled by 1/width.

Speed: the 2-D expectation depends on (q_i, q_j, c_ij). Per layer, theory represents it, for each pair
of distinct variances, as a Chebyshev series: in c for smooth units (`spectral.series`: every angle from
one polar FFT), in the angle theta = arccos c for units with breakpoints (where kinked units are
analytic, unlike in c; tabulated on Chebyshev points of theta by the 2-D rule); with many distinct
variances, also interpolated on Chebyshev points of log q. Diagonals use exact 1-D quadrature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from nonlin.theory.models import GatedModel, PointwiseModel, model
from nonlin.theory.quadrature import DTYPE
from nonlin.theory.units import check_sigmas

Model = PointwiseModel | GatedModel
TABLE_TOL = 1e-13  # relative accuracy the theta tables are refined to (nested Chebyshev-Lobatto doubling)
MAX_THETA_NODES = 257
EXACT_GROUPS = 4  # up to this many distinct variances: one theta table per pair of them
LOGQ_NODES = 9  # Chebyshev points in log q otherwise
# Pairs this close to c = 1 take E[phi^2] - E[phi phi'] from the distance tables: there 1 - c computed from
# K would lose eps / (1 - c) relative, while h = (k(0) - k) / (1 - cos theta), tabulated with relative error
# ~1e-12 at its smallest nonzero nodes, loses 1e-12 at most.
NEAR_ONE_MINUS_C = 1e-3


def _lobatto(n: int, lo: float, hi: float) -> tuple[torch.Tensor, torch.Tensor]:
    k = torch.arange(n, dtype=DTYPE)
    x = 0.5 * (lo + hi) - 0.5 * (hi - lo) * torch.cos(math.pi * k / (n - 1))
    w = torch.where(k % 2 == 0, 1.0, -1.0).to(DTYPE)
    w[0] *= 0.5
    w[-1] *= 0.5
    return x, w


def _bary_matrix(x: torch.Tensor, nodes: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """[len(x), len(nodes)] matrix B with B @ values = the barycentric interpolant at x (exact at nodes)."""
    d = x[:, None] - nodes[None, :]
    hit = d == 0
    d = torch.where(hit, torch.ones_like(d), d)
    r = weights[None, :] / d
    r = r / r.sum(dim=1, keepdim=True)
    exact = hit.any(dim=1)
    if bool(exact.any()):
        r[exact] = hit[exact].to(DTYPE)
    return r


def _dct_coeffs(values: torch.Tensor) -> torch.Tensor:
    """Chebyshev coefficients [..., N] of the interpolant through values at x_j = cos(pi j / (N - 1))."""
    n = values.shape[-1]
    if n == 1:
        return values.clone()
    j = torch.arange(n, dtype=DTYPE)
    C = torch.cos(math.pi * j[:, None] * j[None, :] / (n - 1))  # [k, j]
    w = torch.ones(n, dtype=DTYPE)
    w[0] = w[-1] = 0.5
    c = (values * w) @ C.T * (2.0 / (n - 1))
    c[..., 0] *= 0.5
    c[..., -1] *= 0.5
    return c


def _cheb_coeffs(values: torch.Tensor) -> torch.Tensor:
    """Chebyshev coefficients [..., N] of the interpolant through `values` [..., N] at our Lobatto nodes
    (theta increasing from 0 to pi, i.e. t = 2 theta / pi - 1 = -cos(pi k / (N - 1)))."""
    return _dct_coeffs(values.flip(-1))  # now at x_j = cos(pi j / (N - 1)), j = 0..N-1


CLENSHAW_CHUNK = 65536  # points per pass: the recurrence's arrays stay in cache (4x faster than one pass)


def _clenshaw(t: torch.Tensor, coeffs: torch.Tensor) -> torch.Tensor:
    """Evaluate sum_k c_k T_k(t) for coeffs [K, N] at t [T]: returns [K, T]."""
    K, n = coeffs.shape
    out = torch.empty(K, t.shape[0], dtype=DTYPE)
    for lo in range(0, t.shape[0], CLENSHAW_CHUNK):
        tc = t[lo : lo + CLENSHAW_CHUNK]
        b1 = torch.zeros(K, tc.shape[0], dtype=DTYPE)
        b2 = torch.zeros_like(b1)
        two_t = 2.0 * tc
        for k in range(n - 1, 0, -1):
            b1, b2 = torch.addcmul(coeffs[:, k : k + 1] - b2, two_t, b1), b1
        out[:, lo : lo + CLENSHAW_CHUNK] = torch.addcmul(coeffs[:, :1] - b2, tc, b1)
    return out


def _chebyshev_matrix(t: torch.Tensor, n: int) -> torch.Tensor:
    """[..., n] of T_0(t) .. T_{n-1}(t) (three-term recurrence)."""
    out = torch.empty(*t.shape, n, dtype=DTYPE)
    out[..., 0] = 1.0
    if n > 1:
        out[..., 1] = t
    for k in range(2, n):
        out[..., k] = 2.0 * t * out[..., k - 1] - out[..., k - 2]
    return out


def _as_inputs(X: Any) -> tuple[torch.Tensor, bool]:
    if isinstance(X, np.ndarray):
        t, is_np = torch.from_numpy(np.asarray(X, dtype=np.float64)), True
    elif isinstance(X, torch.Tensor):
        t, is_np = X.detach().to(torch.float64).cpu(), False
    else:
        raise TypeError(f"X must be a torch tensor or numpy array of shape [n, d], got {type(X).__name__}")
    if t.dim() != 2:
        raise ValueError(f"X must be 2-D [n_inputs, n_features]; got shape {tuple(t.shape)}")
    if t.shape[0] == 0 or t.shape[1] == 0:
        raise ValueError(f"X must have at least one input and one feature; got shape {tuple(t.shape)}")
    if not bool(torch.isfinite(t).all()):
        raise ValueError("X must be finite; it contains NaN or infinity")
    return t, is_np


@dataclass
class Kernels:
    nngp: torch.Tensor  # [n, n]
    ntk: torch.Tensor | None  # [n, n]
    notes: tuple[str, ...]


def _pairwise_sq_dist(t: torch.Tensor) -> torch.Tensor:
    """|x_i - x_j|^2. From the Gram matrix, |x_i|^2 + |x_j|^2 - 2 x_i.x_j, whose absolute error is eps times
    |x_i|^2 + |x_j|^2: relative to the distance that is at most 100 eps where the distance is at least 1% of
    that sum; closer pairs (near duplicates) are recomputed from their differences."""
    sq = (t * t).sum(dim=1)
    total = sq[:, None] + sq[None, :]
    out = (total - 2.0 * (t @ t.T)).clamp_min(0.0)
    near = torch.nonzero(torch.triu(out < 1e-2 * total, diagonal=1))
    for lo in range(0, near.shape[0], 65536):
        i, j = near[lo : lo + 65536].unbind(1)
        d = ((t[i] - t[j]) ** 2).sum(dim=1)
        out[i, j] = d
        out[j, i] = d
    out.diagonal().zero_()
    return out


def _one_minus_c(dist: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """1 - c_ij from dist_ij = E[(u_i - u_j)^2] = q_i + q_j - 2 K_ij without cancellation near c = 1:
    1 - c = (dist - (sqrt q_i - sqrt q_j)^2) / (2 sqrt(q_i q_j))."""
    sq = torch.sqrt(q)
    gap = ((q[:, None] - q[None, :]) / (sq[:, None] + sq[None, :]).clamp_min(1e-300)) ** 2
    norm = 2.0 * sq[:, None] * sq[None, :]
    return ((dist - gap) / norm.clamp_min(1e-300)).clamp(0.0, 2.0)


def _unit_chord_omc(t: torch.Tensor, K: torch.Tensor, near: torch.Tensor) -> torch.Tensor:
    """1 - c_ij = |x_i/|x_i| - x_j/|x_j||^2 / 2 at the `near` pairs (NaN elsewhere), for the layer-0 inputs
    t [n, d'] (with the bias as a constant feature), without cancellation for inputs of different norms:
    x_i/n_i - x_j/n_j = (x_i - x_j)/n_i + x_j (n_j - n_i)/(n_i n_j), n_j - n_i = (x_j - x_i).(x_j + x_i) / (n_i + n_j).
    From the distances instead, 1 - c = (D - (n_i - n_j)^2) / (2 n_i n_j) cancels for x and 3x: it left
    1 - c ~ eps, theta ~ sqrt(eps), and relu's NTK 2e-9 off at depth 1 (1e-16 with this)."""
    out = torch.full_like(K, math.nan)
    nrm = torch.sqrt((t * t).sum(dim=1))
    pairs = torch.nonzero(torch.triu(near, diagonal=1))
    for lo in range(0, pairs.shape[0], 65536):
        i, j = pairs[lo : lo + 65536].unbind(1)
        ni, nj = nrm[i, None], nrm[j, None]
        diff = t[i] - t[j]
        dn = (-(diff * (t[i] + t[j])).sum(dim=1, keepdim=True)) / (ni + nj)
        chord = diff / ni + t[j] * dn / (ni * nj)
        omc = 0.5 * (chord * chord).sum(dim=1)
        out[i, j] = omc
        out[j, i] = omc
    return out


def _theta(
    K: torch.Tensor, q: torch.Tensor, dist: torch.Tensor, omc_known: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Angles theta_ij and 1 - c_ij. For c > 0 both come from the tracked distances (near c = 1, theta ~
    sqrt(2 (1 - c)) and an absolute rounding error eps in c would move theta by eps / theta), or from
    `omc_known` where it is finite (1 - c computed without cancellation for pairs of different norms)."""
    norm = torch.sqrt(q[:, None] * q[None, :])
    c = torch.where(norm > 0, K / torch.where(norm > 0, norm, torch.ones_like(norm)), torch.zeros_like(K))
    c = c.clamp(-1.0, 1.0)
    omc_d = _one_minus_c(dist, q)
    if omc_known is not None:
        omc_d = torch.where(torch.isfinite(omc_known), omc_known, omc_d)
    near = (c > 0) & (norm > 0)
    omc = torch.where(near, omc_d, 1.0 - c)
    theta = torch.where(near, 2.0 * torch.asin(torch.sqrt(0.5 * omc_d).clamp(max=1.0)), torch.arccos(c))
    return theta, omc


def _theta_table(
    m: Model, qa: torch.Tensor, qb: torch.Tensor, grad: bool, tol: float, max_nodes: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Tables of the cross moments at P variance pairs (qa[p], qb[p]) on Chebyshev-Lobatto points in theta.

    Nested doubling (17, 33, 65, ... points: each set contains the previous one) until the table has
    resolved the function: the last quarter of its Chebyshev coefficients is below `tol` relative to the
    largest value (the interpolant's error is then about that size), or the coarser interpolant predicts
    the new points to `tol`. Returns (nodes, weights, values [K, P, N]).
    """
    n = 17
    nodes, weights = _lobatto(n, 0.0, math.pi)
    P = qa.shape[0]

    parities = m.parities
    signs = None if parities is None else torch.tensor(parities[: 2 if grad else 1], dtype=DTYPE)

    def cross(thetas: torch.Tensor) -> torch.Tensor:
        # Node sets here are symmetric about pi/2 (index j <-> T-1-j); for units of definite parity the
        # upper half is the lower half times the parity (c -> -c reflects one argument).
        T = thetas.shape[0]
        half = (T + 1) // 2 if signs is not None else T
        th = thetas[:half]
        vals = m.cross(qa.repeat_interleave(half), qb.repeat_interleave(half), th.repeat(P), grad=grad)
        vals = vals.reshape(vals.shape[0], P, half)
        if half == T:
            return vals
        upper = vals[..., : T - half].flip(-1) * signs[:, None, None]
        return torch.cat([vals, upper], dim=-1)

    def resolved(values: torch.Tensor) -> bool:
        coeffs = _cheb_coeffs(values)
        scale = values.abs().amax(dim=2, keepdim=True).clamp_min(1e-300)
        tail = coeffs[..., (3 * values.shape[-1]) // 4 :].abs() / scale
        return bool((tail <= tol).all())

    values = cross(nodes)
    while 2 * n - 1 <= max_nodes and not resolved(values):
        n2 = 2 * n - 1
        nodes2, weights2 = _lobatto(n2, 0.0, math.pi)
        new = nodes2[1::2]
        new_vals = cross(new)
        pred = torch.einsum("tn,kpn->kpt", _bary_matrix(new, nodes, weights), values)
        scale = torch.maximum(values.abs().amax(dim=2, keepdim=True), new_vals.abs().amax(dim=2, keepdim=True))
        err = float(((pred - new_vals).abs() / scale.clamp_min(1e-300)).max())
        merged = torch.empty(values.shape[0], P, n2, dtype=DTYPE)
        merged[..., 0::2], merged[..., 1::2] = values, new_vals
        nodes, weights, values, n = nodes2, weights2, merged, n2
        if err <= tol:
            break
    return nodes, weights, values


def _groups(q: torch.Tensor, rtol: float = 1e-13) -> tuple[torch.Tensor, torch.Tensor]:
    """Representative variances and each input's group: values equal to rtol share one (rounding noise)."""
    order = torch.argsort(q)
    sq = q[order]
    start = torch.ones_like(sq, dtype=torch.bool)
    start[1:] = (sq[1:] - sq[:-1]) > rtol * sq[1:].abs()
    gid_sorted = torch.cumsum(start.to(torch.int64), 0) - 1
    reps = sq[start]
    inv = torch.empty_like(gid_sorted)
    inv[order] = gid_sorted
    return reps, inv


def _distance_coeffs(m: Model, k_coeffs: torch.Tensor, in_c: bool, q: torch.Tensor) -> torch.Tensor:
    """Chebyshev coefficients (same variable as k_coeffs) of h(theta) = (k(0) - k(theta)) / (1 - cos theta)
    for one equal-variance table: then E[phi^2] - E[phi(u_i) phi(u_j)] = (1 - c) h is free of cancellation
    for c near 1, where h(0) = q E[phi'^2] (continuous units).
    """
    n = max(k_coeffs.shape[-1], 2)
    if in_c:
        # k = sum a_m T_m(c) and (1 - T_m(cos t)) / (1 - cos t) = sin^2(m t / 2) / sin^2(t / 2) exactly:
        # h is a polynomial of degree D - 2, sampled at Lobatto points of c.
        t = math.pi * torch.arange(n, dtype=DTYPE) / (n - 1)
        mm = torch.arange(k_coeffs.shape[-1], dtype=DTYPE)
        ratio = (torch.sin(0.5 * mm[None, :] * t[:, None]) / torch.sin(0.5 * t[:, None])) ** 2
        ratio[0] = mm**2
        return _dct_coeffs(ratio @ k_coeffs)
    # Angle tables: k at the Lobatto points of theta (inverse transform), divided by 1 - cos theta.
    t = -torch.cos(math.pi * torch.arange(n, dtype=DTYPE) / (n - 1))  # theta = pi (t + 1) / 2, increasing
    k = _clenshaw(t, k_coeffs[None])[0]
    theta = 0.5 * math.pi * (t + 1.0)
    h = torch.empty_like(k)
    h[1:] = (k[0] - k[1:]) / (2.0 * torch.sin(0.5 * theta[1:]) ** 2)
    h[0] = q[0] * m.g2(q)[0]
    return _cheb_coeffs(h)


def _tables(m: Model, qa: torch.Tensor, qb: torch.Tensor, grad: bool, tol: float) -> tuple[torch.Tensor, bool]:
    """Chebyshev coefficients [K, P, D] of the cross moments at the variance pairs (qa[p], qb[p]), and
    whether their variable is c (smooth units: `spectral.series`, every angle from one polar FFT) or
    t = 2 theta / pi - 1 (the breakpoint-aware angle tables, interpolated on Chebyshev points of theta)."""
    series = m.cross_series(qa, qb, grad=grad)
    if series is not None:
        return series, True
    _, _, tab = _theta_table(m, qa, qb, grad, tol, MAX_THETA_NODES)
    return _cheb_coeffs(tab), False


def _variable(theta: torch.Tensor, in_c: bool) -> torch.Tensor:
    return torch.cos(theta) if in_c else (2.0 / math.pi) * theta - 1.0


def _layer_cross(
    m: Model,
    q: torch.Tensor,
    theta: torch.Tensor,
    omc: torch.Tensor,
    grad: bool,
    tol: float,
    exact_groups: int,
    logq_nodes: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """[K, n, n] of E[phi(u_i) phi(u_j)] (and E[phi' phi']) for all pairs, by tabulation and interpolation;
    and [n, n] of E[phi(u)^2] - E[phi(u_i) phi(u_j)] computed without cancellation where the layer can
    (equal-variance pairs of continuous units; NaN elsewhere)."""
    n = q.shape[0]
    n_k = 2 if grad else 1
    out = torch.empty(n_k, n, n, dtype=DTYPE)
    half_dist = torch.full((n, n), math.nan, dtype=DTYPE)
    reps, inv = _groups(q)
    G = reps.shape[0]
    n_pairs = n * (n - 1) // 2
    if exact_groups < G and m.homogeneous:
        logq_nodes = 1
    n_tables = G * (G + 1) // 2 if exact_groups >= G else logq_nodes * (logq_nodes + 1) // 2
    iu, ju = torch.triu_indices(n, n, 1)
    near_pairs = bool((omc[iu, ju] < NEAR_ONE_MINUS_C).any())
    tables_pay = exact_groups >= G and (m.smooth or (m.distance_tables and near_pairs))
    if n_pairs <= 33 * n_tables and not tables_pay:
        # Few inputs: direct quadrature per pair is cheaper than any angle table (33 angles at least), unless
        # the unit is smooth (its series costs less) or near pairs need the distance tables.
        i, j = iu, ju
        vals = m.cross(q[i].clamp_min(1e-300), q[j].clamp_min(1e-300), theta[i, j], grad=grad)
        out[:, i, j] = vals
        out[:, j, i] = vals
        return out, half_dist  # diagonals are filled from 1-D moments by the caller
    if exact_groups >= G:
        ia_, ib_ = torch.triu_indices(G, G)
        qe = reps.clamp_min(1e-300)
        coeffs, in_c = _tables(m, qe[ia_], qe[ib_], grad, tol)  # [K, P, D]
        members = [torch.nonzero(inv == g).reshape(-1) for g in range(G)]
        for p in range(ia_.shape[0]):
            a, b = int(ia_[p]), int(ib_[p])
            ia, ib = members[a], members[b]
            if a == b:  # one triangle of a symmetric block
                r, c = torch.triu_indices(ia.shape[0], ia.shape[0])
                i, j = ia[r], ia[c]
            else:
                i = ia[:, None].expand(-1, ib.shape[0]).reshape(-1)
                j = ib[None, :].expand(ia.shape[0], -1).reshape(-1)
            # Clenshaw on the coefficients: memory O(pairs), not O(pairs x degree).
            tv = _variable(theta[i, j], in_c)
            vals = _clenshaw(tv, coeffs[:, p, :])  # [K, pairs]
            out[:, i, j] = vals
            out[:, j, i] = vals
            if a == b and m.distance_tables and float(reps[a]) > 0:
                near = omc[i, j] < NEAR_ONE_MINUS_C
                if bool(near.any()):
                    i, j = i[near], j[near]
                    h = _distance_coeffs(m, coeffs[0, p, :], in_c, reps[a : a + 1])
                    d = omc[i, j] * _clenshaw(tv[near], h[None])[0]
                    half_dist[i, j] = d
                    half_dist[j, i] = d
        return out, half_dist
    # Many distinct variances: tabulate the normalised moments E[f(u1) f(u2)] / sqrt(E[f(u1)^2] E[f(u2)^2])
    # (correlations, bounded and slowly varying in q; exactly q-independent for homogeneous units) on
    # Chebyshev points of log q, and restore the scale per input from exact 1-D moments.
    s = torch.log(q.clamp_min(1e-300))
    if m.homogeneous:  # normalised moments are the same at every variance: one node
        logq_nodes = 1
        sn, sw = s[:1].clone(), torch.ones(1, dtype=DTYPE)
    else:
        # Variances that differ only by rounding drift (an unstable fixed point amplifies 1e-16 to 1e-12 in
        # ten layers) need few nodes: Chebyshev error ~ (span/4)^N / N!, below 1e-15 for these N.
        span = float(s.max() - s.min())
        logq_nodes = min(logq_nodes, 2 if span < 1e-7 else 3 if span < 1e-4 else logq_nodes)
        sn, sw = _lobatto(logq_nodes, float(s.min()), float(s.max()))
    qn = torch.exp(sn)
    ia_, ib_ = torch.triu_indices(logq_nodes, logq_nodes)
    coeffs, in_c = _tables(m, qn[ia_], qn[ib_], grad, tol)  # [K, P, D]
    node_scale = _scales(m, qn, grad)  # [K, Nq]
    norm = torch.sqrt(node_scale[:, ia_] * node_scale[:, ib_])
    coeffs = torch.where(norm[..., None] > 0, coeffs / norm.clamp_min(1e-300)[..., None], torch.zeros_like(coeffs))
    D = coeffs.shape[-1]
    full = torch.empty(n_k, logq_nodes, logq_nodes, D, dtype=DTYPE)
    full[:, ia_, ib_] = coeffs
    full[:, ib_, ia_] = coeffs
    Bq = _bary_matrix(s, sn, sw) if logq_nodes > 1 else torch.ones(n, 1, dtype=DTYPE)  # [n, Nq]
    in_scale = torch.sqrt(_scales(m, q.clamp_min(1e-300), grad))  # [K, n]
    # Contract the q-axes first per input, then the series per pair (chunks of rows keep memory bounded).
    left = torch.einsum("ia,kabt->kibt", Bq, full)  # [K, n, Nq, D]
    rows = max(1, 2_000_000 // max(n * D, 1))
    for lo in range(0, n, rows):
        sl = slice(lo, lo + rows)
        mid = torch.einsum("jb,kibt->kijt", Bq, left[:, sl])  # [K, r, n, D]
        T = _chebyshev_matrix(_variable(theta[sl], in_c), D)  # [r, n, D]
        out[:, sl] = (mid * T[None]).sum(-1) * in_scale[:, sl, None] * in_scale[:, None, :]
    return out, half_dist


def _scales(m: Model, q: torch.Tensor, grad: bool) -> torch.Tensor:
    """[K, len(q)]: E[f(u)^2] (and E[f'(u)^2]) at each variance."""
    rows = [m.m2(q)] + ([m.g2(q)] if grad else [])
    return torch.stack(rows)


def _kernels(
    name: str,
    X: Any,
    depth: int,
    sigma_w: float,
    sigma_b: float,
    want_ntk: bool,
    table_tol: float,
    exact_groups: int,
    logq_nodes: int,
    params: dict[str, Any],
    keep_all: bool = False,
) -> tuple[Any, bool]:
    sigma_w, sigma_b = check_sigmas(sigma_w, sigma_b)
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth is the number of hidden layers, an integer >= 0; got {depth!r}")
    t, is_np = _as_inputs(X)
    m = model(name, **params)
    sw2, sb2 = sigma_w**2, sigma_b**2
    K = sw2 * (t @ t.T) / t.shape[1] + sb2
    K = 0.5 * (K + K.T)
    dist = sw2 * _pairwise_sq_dist(t) / t.shape[1]  # E[(u_i - u_j)^2], tracked beside K
    # 1 - c at layer 0 from the inputs (bias as a constant feature) for pairs near c = 1: exact for parallel
    # inputs of any norms. Through a homogeneous unit without bias, c' depends on theta alone:
    # 1 - c' = (1 - c) h(theta) / E[phi^2] with h the distance table at q = 1, so it stays exact there too.
    aug = torch.cat([sigma_w * t / math.sqrt(t.shape[1]), torch.full((t.shape[0], 1), sigma_b, dtype=DTYPE)], 1)
    q0 = torch.diagonal(K)
    near0 = (K > 0) & (1.0 - K / torch.sqrt(q0[:, None] * q0[None, :]).clamp_min(1e-300) < 4 * NEAR_ONE_MINUS_C)
    omc_known = _unit_chord_omc(aug, K, near0)
    homogeneous_h = None
    if sb2 == 0 and m.homogeneous and m.distance_tables and depth > 0:
        one = torch.ones(1, dtype=DTYPE)
        coeffs, in_c = _tables(m, one, one, False, table_tol)
        homogeneous_h = (_distance_coeffs(m, coeffs[0, 0, :], in_c, one) / float(m.m2(one)), in_c)
    theta_k = K.clone() if want_ntk else None
    history = [Kernels(K.clone(), None if theta_k is None else theta_k.clone(), ())]
    for _ in range(depth):
        q = torch.diagonal(K).clone()
        th, omc = _theta(K, q, dist, omc_known)
        omc_known = torch.full_like(K, math.nan)
        if homogeneous_h is not None:
            near = torch.nonzero((omc < NEAR_ONE_MINUS_C) & (th > 0))
            if near.numel():
                i, j = near.unbind(1)
                h, in_c = homogeneous_h
                omc_known[i, j] = omc[i, j] * _clenshaw(_variable(th[i, j], in_c), h[None])[0]
            omc_known = torch.where(th == 0, torch.zeros_like(omc_known), omc_known)
        cross, half_dist = _layer_cross(m, q, th, omc, want_ntk, table_tol, exact_groups, logq_nodes)
        K_next = sw2 * cross[0] + sb2
        # Diagonals from exact 1-D quadrature (the c = 1 end of the tables is exact too, but this is cheaper).
        qe = q.clamp_min(1e-300)
        K_next.diagonal().copy_(sw2 * m.m2(qe) + sb2)
        # Pairs of identical inputs stay identical: copy the diagonal (exactly what the table gives at
        # theta = 0, up to rounding that would otherwise break c = 1 at the next layer).
        same = (th == 0) & (q[:, None] == q[None, :])
        K_next = torch.where(same, torch.diagonal(K_next)[:, None].expand_as(K_next), K_next)
        if want_ntk:
            kdot = cross[1]
            kdot.diagonal().copy_(m.g2(qe))
            kdot = torch.where(same, torch.diagonal(kdot)[:, None].expand_as(kdot), kdot)
            theta_k = K_next + sw2 * kdot * theta_k
            theta_k = 0.5 * (theta_k + theta_k.T)
        K = 0.5 * (K_next + K_next.T)
        # Next distances: 2 sigma_w^2 (m2 - k) from the distance tables where the layer gave them
        # (equal-variance pairs of continuous units), else from K (where c is not near 1 it is as accurate).
        diag = torch.diagonal(K)
        from_k = (diag[:, None] + diag[None, :] - 2.0 * K).clamp_min(0.0)
        dist = torch.where(torch.isfinite(half_dist), 2.0 * sw2 * half_dist, from_k)
        dist = torch.where(same, torch.zeros_like(dist), 0.5 * (dist + dist.T))
        dist.diagonal().zero_()
        history.append(Kernels(K.clone(), None if theta_k is None else theta_k.clone(), ()))
    if keep_all:
        return history, is_np
    return Kernels(K, theta_k, tuple(m.notes)), is_np


def nngp(
    name: str,
    X: Any,
    depth: int = 1,
    sigma_w: float = 1.0,
    sigma_b: float = 0.0,
    *,
    table_tol: float = TABLE_TOL,
    exact_groups: int = EXACT_GROUPS,
    logq_nodes: int = LOGQ_NODES,
    **params: Any,
) -> Any:
    """NNGP kernel [n, n] of the readout of a `depth`-hidden-layer network with nonlinearity `name` on X [n, d]."""
    k, is_np = _kernels(name, X, depth, sigma_w, sigma_b, False, table_tol, exact_groups, logq_nodes, params)
    return k.nngp.numpy() if is_np else k.nngp


def ntk(
    name: str,
    X: Any,
    depth: int = 1,
    sigma_w: float = 1.0,
    sigma_b: float = 0.0,
    *,
    table_tol: float = TABLE_TOL,
    exact_groups: int = EXACT_GROUPS,
    logq_nodes: int = LOGQ_NODES,
    **params: Any,
) -> Any:
    """NTK [n, n] (neural-tangents' ntk parametrization) of the same network as `nngp`."""
    k, is_np = _kernels(name, X, depth, sigma_w, sigma_b, True, table_tol, exact_groups, logq_nodes, params)
    return k.ntk.numpy() if is_np else k.ntk


def kernels(
    name: str,
    X: Any,
    depth: int = 1,
    sigma_w: float = 1.0,
    sigma_b: float = 0.0,
    *,
    table_tol: float = TABLE_TOL,
    exact_groups: int = EXACT_GROUPS,
    logq_nodes: int = LOGQ_NODES,
    **params: Any,
) -> Kernels:
    """Both kernels at once (one pass): Kernels(nngp, ntk, notes), as torch tensors."""
    k, _ = _kernels(name, X, depth, sigma_w, sigma_b, True, table_tol, exact_groups, logq_nodes, params)
    return k


def kernel_sequence(
    name: str,
    X: Any,
    depth: int,
    sigma_w: float = 1.0,
    sigma_b: float = 0.0,
    *,
    ntk: bool = True,
    table_tol: float = TABLE_TOL,
    exact_groups: int = EXACT_GROUPS,
    logq_nodes: int = LOGQ_NODES,
    **params: Any,
) -> list[Kernels]:
    """Kernels of the readout for every depth 0..depth from one pass (entry l has l hidden layers)."""
    seq, _ = _kernels(name, X, depth, sigma_w, sigma_b, ntk, table_tol, exact_groups, logq_nodes, params, keep_all=True)
    return seq
