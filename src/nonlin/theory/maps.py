"""Signal propagation through wide random networks: variance and correlation maps, fixed points, chi_1,
depth scales, the order/chaos phase, the edge of chaos, init gains, sparsity at init and clip levels.

Network: h_{l+1} = W_{l+1} phi(h_l) + b_{l+1}, W_ij ~ N(0, sigma_w^2 / fan_in), b_i ~ N(0, sigma_b^2).
In the wide limit each pre-activation is Gaussian with variance q_l and
    q_{l+1} = V(q_l) = sigma_w^2 E[phi(sqrt(q_l) z)^2] + sigma_b^2
and two inputs' pre-activations have correlation c_l with
    c_{l+1} = (sigma_w^2 E[phi(u1) phi(u2)] + sigma_b^2) / q_{l+1},  u ~ N(0, [[q, q c], [q c, q]]).
chi_1 = sigma_w^2 E[phi'(u)^2] is the slope of the correlation map at c = 1 and the per-layer growth of
squared gradients (Poole et al. arXiv:1606.05340, Schoenholz et al. arXiv:1611.01232).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from scipy.optimize import brentq

from nonlin.theory.models import GatedModel, PointwiseModel, model
from nonlin.theory.quadrature import DTYPE
from nonlin.theory.units import check_sigmas

Model = PointwiseModel | GatedModel
# q* below this is the collapsed fixed point q* = 0: quantities there are taken as the limit q -> 0+.
Q_TINY = 1e-30
# q* above this counts as diverging (no finite fixed point reachable).
Q_HUGE = 1e30
CRITICAL_TOL = 1e-9


def _as_array(x: Any, label: str) -> tuple[torch.Tensor, Any]:
    """x as a 1-D float64 tensor, plus a function giving the result back in x's type and shape."""
    if isinstance(x, bool):
        raise TypeError(f"{label} must be a number or an array of numbers, got bool")
    if isinstance(x, torch.Tensor):
        t = x.detach().to(torch.float64)
        back = lambda r, shape=x.shape: r.reshape(shape)
    elif isinstance(x, np.ndarray | list | tuple):
        arr = np.asarray(x, dtype=np.float64)
        t = torch.from_numpy(arr.copy())
        back = lambda r, shape=arr.shape: r.reshape(shape).numpy()
    elif isinstance(x, int | float | np.floating | np.integer):
        t = torch.tensor([float(x)], dtype=torch.float64)
        back = lambda r: float(r.reshape(-1)[0])
    else:
        raise TypeError(f"{label} must be a number, a numpy array or a torch tensor, got {type(x).__name__}")
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{label} must be finite, got {x!r}")
    return t.reshape(-1), back


def _check_q(q: torch.Tensor, label: str = "q") -> None:
    if bool((q < 0).any()):
        raise ValueError(f"{label} is a variance and must be >= 0; got min {float(q.min())!r}")


def variance_map(name: str, q: Any, sigma_w: float = 1.0, sigma_b: float = 0.0, **params: Any) -> Any:
    """q_{l+1} = sigma_w^2 E[phi(sqrt(q) z)^2] + sigma_b^2, vectorised over q (float, array or tensor)."""
    sigma_w, sigma_b = check_sigmas(sigma_w, sigma_b)
    t, back = _as_array(q, "q")
    _check_q(t)
    m = model(name, **params)
    return back(sigma_w**2 * m.m2(t) + sigma_b**2)


def chi_1(name: str, q: Any, sigma_w: float = 1.0, **params: Any) -> Any:
    """chi_1 = sigma_w^2 E[phi'(sqrt(q) z)^2] at variance q (the declared gradient rule where there is one)."""
    sigma_w, _ = check_sigmas(sigma_w, 0.0)
    t, back = _as_array(q, "q")
    _check_q(t)
    m = model(name, **params)
    return back(sigma_w**2 * m.g2(t.clamp_min(Q_TINY)))


def covariance_map(
    name: str, q1: Any, q2: Any, c: Any, sigma_w: float = 1.0, sigma_b: float = 0.0, **params: Any
) -> Any:
    """The next layer's covariance sigma_w^2 E[phi(u1) phi(u2)] + sigma_b^2, Var(u_i) = q_i, corr = c."""
    sigma_w, sigma_b = check_sigmas(sigma_w, sigma_b)
    t1, _ = _as_array(q1, "q1")
    t2, _ = _as_array(q2, "q2")
    tc, back = _as_array(c, "c")
    _check_q(t1, "q1")
    _check_q(t2, "q2")
    _check_corr(tc)
    m = model(name, **params)
    t1, t2, tc = torch.broadcast_tensors(t1, t2, tc)
    return back(sigma_w**2 * m.cross(t1, t2, torch.arccos(tc), grad=False)[0] + sigma_b**2)


def _check_corr(c: torch.Tensor, label: str = "c") -> None:
    if bool((c.abs() > 1).any()):
        bad = float(c[c.abs() > 1][0])
        raise ValueError(f"{label} is a correlation and must lie in [-1, 1]; got {bad!r}")


def correlation_map(
    name: str,
    c: Any,
    q_star: float | None = None,
    sigma_w: float = 1.0,
    sigma_b: float = 0.0,
    **params: Any,
) -> Any:
    """c_{l+1} from c_l for two inputs at the same variance q (default: the fixed point q* of the variance map)."""
    sigma_w, sigma_b = check_sigmas(sigma_w, sigma_b)
    tc, back = _as_array(c, "c")
    _check_corr(tc)
    m = model(name, **params)
    q = _fixed_point_q(m, sigma_w, sigma_b, 1.0)[0] if q_star is None else float(q_star)
    if not (math.isfinite(q) and q >= 0):
        raise ValueError(
            f"q_star must be a finite variance >= 0; got {q!r}"
            + (" (the variance map has no finite fixed point here: pass q_star)" if q_star is None else "")
        )
    q = max(q, Q_TINY)
    qt = torch.full_like(tc, q)
    k = sigma_w**2 * m.cross(qt, qt, torch.arccos(tc), grad=False)[0] + sigma_b**2
    q_next = sigma_w**2 * m.m2(torch.tensor([q], dtype=DTYPE)) + sigma_b**2
    return back(k / q_next)


def _fixed_point_q(m: Model, sigma_w: float, sigma_b: float, q0: float) -> tuple[float, str]:
    """The fixed point of the variance map reached from q0: (q*, note). q* = inf when it diverges."""
    sw2, sb2 = sigma_w**2, sigma_b**2

    def g(q: torch.Tensor) -> torch.Tensor:
        return sw2 * m.m2(q) + sb2 - q

    g0 = float(g(torch.tensor([q0], dtype=DTYPE)))
    if abs(g0) <= 1e-13 * max(q0, 1.0):
        # Neutral: check a neighbourhood; V(q) = q on a whole range (relu at sigma_w = sqrt 2, sigma_b = 0).
        near = g(torch.tensor([q0 * 0.5, q0 * 2.0], dtype=DTYPE))
        if bool((near.abs() <= 1e-12 * q0 * 2).all()):
            return q0, "every q near q0 is a fixed point (marginal): q* = q0"
        slope = _gap_and_slope(m, sw2, sb2, q0)[1] + 1.0
        if slope > 1.0 + CRITICAL_TOL:
            # q0 is a fixed point only in exact arithmetic: say where a perturbation of either sign goes.
            up, _ = _fixed_point_q(m, sigma_w, sigma_b, q0 * (1 + 1e-6))
            down, _ = _fixed_point_q(m, sigma_w, sigma_b, q0 * (1 - 1e-6))
            return q0, (
                f"q0 = {q0:g} is an unstable fixed point (V'(q0) = {slope:.6g} > 1): a perturbation grows; from "
                f"above q goes to {up:.6g}, from below to {down:.6g}"
            )
        return q0, ""
    grid = torch.logspace(-12, 12, 193, dtype=DTYPE) * max(q0, 1e-300) / 1.0
    grid = grid[(grid > 0)]
    vals = g(grid)
    if g0 > 0:  # q grows: the first sign change above q0
        above = grid > q0
        xs, gs = grid[above], vals[above]
        idx = torch.nonzero(gs <= 0)
        if idx.numel() == 0:
            return math.inf, "q grows without bound (no finite fixed point above q0)"
        i = int(idx[0])
        lo = q0 if i == 0 else float(xs[i - 1])
        hi = float(xs[i])
    else:  # q shrinks: the last sign change below q0
        below = grid < q0
        xs, gs = grid[below], vals[below]
        idx = torch.nonzero(gs >= 0)
        if idx.numel() == 0:
            return 0.0, "q decays to 0 (the collapsed fixed point q* = 0)"
        i = int(idx[-1])
        lo = float(xs[i])
        hi = q0 if i == xs.shape[0] - 1 else float(xs[i + 1])
    return _newton_bracketed(lambda q: _gap_and_slope(m, sw2, sb2, q), lo, hi), ""


def _gap_and_slope(m: Model, sw2: float, sb2: float, q: float) -> tuple[float, float]:
    qt = torch.tensor([q], dtype=DTYPE)
    return sw2 * float(m.m2(qt)) + sb2 - q, sw2 * float(m.m2_slope(qt)) - 1.0


def _newton_bracketed(fd, lo: float, hi: float, rtol: float = 2e-16, maxiter: int = 60) -> float:
    """Root of f in [lo, hi] (f(lo), f(hi) of opposite signs) by Newton steps kept inside a shrinking bracket."""
    flo = fd(lo)[0]
    x = 0.5 * (lo + hi)
    for _ in range(maxiter):
        fx, dfx = fd(x)
        if fx == 0.0:
            return x
        if (fx < 0) == (flo < 0):
            lo, flo = x, fx
        else:
            hi = x
        step = fx / dfx if dfx != 0 else math.inf
        nxt = x - step
        if not (lo < nxt < hi) or not math.isfinite(nxt):
            nxt = 0.5 * (lo + hi)
        if abs(nxt - x) <= rtol * abs(x) or hi - lo <= rtol * abs(x):
            return nxt
        x = nxt
    return x


@dataclass(frozen=True)
class FixedPoint:
    """The fixed point of the variance map and what it implies for depth."""

    name: str
    sigma_w: float
    sigma_b: float
    q_star: float  # inf: no finite fixed point (q explodes); 0: collapses
    chi_1: float  # sigma_w^2 E[phi'(u)^2] at q*
    slope_q: float  # V'(q*): stability of q* (< 1 stable)
    c_star: float  # fixed point of the correlation map (1 in the ordered phase)
    chi_c: float  # sigma_w^2 E[phi'(u1) phi'(u2)] at (q*, c*)
    xi_q: float  # depth scale of the variance: -1 / log V'(q*)
    xi_c: float  # depth scale of correlations: -1 / log chi_c
    phase: str  # "ordered", "chaotic" or "critical"
    notes: tuple[str, ...] = field(default=())
    # False when q0 is itself an unstable fixed point (V'(q*) > 1: exact arithmetic stays, any perturbation
    # leaves; a note says where it goes from either side), as q = 1 at the gain init of gelu or shifted_relu.
    stable: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _depth(slope: float) -> float:
    if not math.isfinite(slope) or slope <= 0:
        return 0.0 if slope == 0 else math.nan
    if slope >= 1:
        return math.inf if abs(slope - 1.0) < CRITICAL_TOL else math.nan
    return -1.0 / math.log(slope)


def fixed_point(name: str, sigma_w: float = 1.0, sigma_b: float = 0.0, q0: float = 1.0, **params: Any) -> FixedPoint:
    """q*, chi_1, chi_c, depth scales and phase for the network (sigma_w, sigma_b) with nonlinearity `name`.

    q* is the fixed point the variance map reaches from q0: the stable one it converges to, or q0 itself when
    V(q0) = q0; then `stable` is False if V'(q0) > 1 and a note says where perturbations go. In the ordered
    phase (chi_1 < 1) correlations converge to c* = 1; in the chaotic phase to c* < 1, found by root-finding
    the correlation map. Quantities at q* = 0 are limits q -> 0+; at q* = inf they are taken at q = 1e30.
    """
    sigma_w, sigma_b = check_sigmas(sigma_w, sigma_b)
    if not (isinstance(q0, int | float) and math.isfinite(q0) and q0 > 0):
        raise ValueError(f"q0 must be a finite variance > 0, got {q0!r}")
    m = model(name, **params)
    notes = list(m.notes)
    q, note = _fixed_point_q(m, sigma_w, sigma_b, float(q0))
    if note:
        notes.append(note)
    q_eval = min(max(q, Q_TINY), Q_HUGE)
    qt = torch.tensor([q_eval], dtype=DTYPE)
    chi1 = sigma_w**2 * float(m.g2(qt))
    slope = sigma_w**2 * float(m.m2_slope(qt)) if 0 < q < math.inf else math.nan
    phase = "critical" if abs(chi1 - 1.0) <= CRITICAL_TOL else "ordered" if chi1 < 1 else "chaotic"
    c_star, chi_c = 1.0, chi1
    if phase == "chaotic" and 0 < q < math.inf:
        c_star, chi_c = _chaotic_c_star(m, q, sigma_w, sigma_b)
    return FixedPoint(
        name=m.name,
        sigma_w=sigma_w,
        sigma_b=sigma_b,
        q_star=q,
        chi_1=chi1,
        slope_q=slope,
        c_star=c_star,
        chi_c=chi_c,
        xi_q=_depth(slope),
        xi_c=_depth(chi_c),
        phase=phase,
        notes=tuple(notes),
        stable=not (0 < q < math.inf and slope > 1.0 + CRITICAL_TOL),
    )


def _chaotic_c_star(m: Model, q: float, sigma_w: float, sigma_b: float) -> tuple[float, float]:
    """Root of C(c) - c below c = 1 (chaotic phase), in the angle theta = arccos c; returns (c*, chi_c)."""
    sw2, sb2 = sigma_w**2, sigma_b**2

    def gap(theta: torch.Tensor) -> torch.Tensor:
        qt = torch.full_like(theta, q)
        k = sw2 * m.cross(qt, qt, theta, grad=False)[0] + sb2
        return k / q - torch.cos(theta)

    thetas = torch.linspace(0.0, math.pi, 25, dtype=DTYPE)[1:]
    vals = gap(thetas)
    # Just above theta = 0 the gap is negative (C'(1) = chi_1 > 1 pulls correlations down); find where it turns.
    pos = torch.nonzero(vals >= 0)
    if pos.numel() == 0:
        theta_star = math.pi
    else:
        i = int(pos[0])
        lo = 1e-9 if i == 0 else float(thetas[i - 1])
        hi = float(thetas[i])
        f = lambda t: float(gap(torch.tensor([t], dtype=DTYPE)))
        theta_star = brentq(f, lo, hi, xtol=1e-13, rtol=1e-13) if f(lo) < 0 else hi
    c_star = math.cos(theta_star)
    qt = torch.tensor([q], dtype=DTYPE)
    chi_c = sw2 * float(m.cross(qt, qt, torch.tensor([theta_star], dtype=DTYPE))[1])
    return c_star, chi_c


class NoEdgeOfChaosWarning(UserWarning):
    """edge_of_chaos returned NaN; the message says why (also in ``critical_point(...).reason``)."""


@dataclass(frozen=True)
class CriticalPoint:
    """The edge of chaos at one sigma_b: sigma_w with chi_1(q*) = 1 at the fixed point q* reached from q0,
    or NaN and the reason there is none."""

    name: str
    sigma_b: float
    sigma_w: float  # NaN: no edge of chaos reached from q0 (see reason)
    q_star: float  # the critical fixed point (inf: q* diverges at criticality, as relu with sigma_b > 0)
    reason: str = ""  # why sigma_w is NaN; empty when found


def critical_point(name: str, sigma_b: float = 0.0, q0: float = 1.0, **params: Any) -> CriticalPoint:
    """The edge of chaos at `sigma_b`, with the reason when there is none (see edge_of_chaos)."""
    m = model(name, **params)
    return _critical_point(m, float(sigma_b), q0)


def edge_of_chaos(
    name: str, sigma_b: float | Sequence[float] | np.ndarray = 0.0, q0: float = 1.0, **params: Any
) -> float | np.ndarray:
    """sigma_w on the critical line chi_1(q*(sigma_w, sigma_b)) = 1, for one sigma_b or an array (the curve).

    Only critical points the variance map reaches from q0 count (a chi_1 = 1 point that is an unstable fixed
    point is never reached). NaN where there is none, with a NoEdgeOfChaosWarning saying why, e.g. silu at
    sigma_b = 0.1: from q0 = 1 the fixed point jumps from an ordered q* (chi_1 = 0.71) to q* = inf (chi_1 > 1)
    at sigma_w = 1.67, so chi_1 never passes through 1. ``critical_point`` returns the reason as data.
    """
    scalar = isinstance(sigma_b, int | float) and not isinstance(sigma_b, bool)
    sbs = np.atleast_1d(np.asarray(sigma_b, dtype=np.float64))
    m = model(name, **params)
    points = [_critical_point(m, float(sb), q0) for sb in sbs]
    for cp in points:
        if cp.reason:
            warnings.warn(
                f"{cp.name} at sigma_b={cp.sigma_b:g}: no edge of chaos: {cp.reason}", NoEdgeOfChaosWarning, 2
            )
    out = np.array([cp.sigma_w for cp in points])
    return float(out[0]) if scalar else out


def _chi1_at(m: Model, sigma_w: float, sigma_b: float, q0: float) -> float:
    q, _ = _fixed_point_q(m, sigma_w, sigma_b, q0)
    q = min(max(q, Q_TINY), Q_HUGE)
    return sigma_w**2 * float(m.g2(torch.tensor([q], dtype=DTYPE)))


def critical_line(name: str, q_star: Any = None, **params: Any) -> dict[str, np.ndarray]:
    """The edge of chaos as a curve parametrised by the fixed point q*: at each q*,
    sigma_w^2 = 1 / E[phi'(u)^2] and sigma_b^2 = q* - sigma_w^2 E[phi(u)^2] (points with sigma_b^2 < 0 dropped).

    Returns arrays q_star, sigma_w, sigma_b (one vectorised quadrature: milliseconds for hundreds of points).
    """
    m = model(name, **params)
    q = torch.logspace(-6, 3, 200, dtype=DTYPE) if q_star is None else _as_array(q_star, "q_star")[0]
    _check_q(q, "q_star")
    g2, m2 = m.g2(q), m.m2(q)
    sw2 = 1.0 / g2
    sb2 = q - sw2 * m2
    keep = (sb2 >= 0) & torch.isfinite(sw2)
    return {
        "q_star": q[keep].numpy(),
        "sigma_w": torch.sqrt(sw2[keep]).numpy(),
        "sigma_b": torch.sqrt(sb2[keep]).numpy(),
    }


def _critical_point(m: Model, sigma_b: float, q0: float) -> CriticalPoint:
    check_sigmas(1.0, sigma_b)
    sb2_target = sigma_b**2

    def found(sw: float, q: float) -> CriticalPoint:
        return CriticalPoint(m.name, sigma_b, float(sw), float(q))

    # sigma_b^2(q) - sigma_b^2 along the q-parametrised critical line; its first root gives sigma_w.
    def h(q: torch.Tensor) -> torch.Tensor:
        return q - m.m2(q) / m.g2(q) - sb2_target

    qs = torch.logspace(-12, 12, 241, dtype=DTYPE)
    hv = h(qs)
    tiny = torch.tensor([Q_TINY], dtype=DTYPE)
    h_tiny = float(h(tiny))
    if sigma_b == 0.0 and math.isfinite(h_tiny) and abs(h_tiny) <= 1e-13 and float(m.g2(tiny)) > 1e-12:
        # sigma_b = 0: the critical point sits on the collapsed fixed point q* -> 0 when the line starts there.
        return found(1.0 / math.sqrt(float(m.g2(tiny))), 0.0)
    ok = torch.isfinite(hv)
    sign_change = torch.nonzero(ok[:-1] & ok[1:] & (((hv[:-1] < 0) & (hv[1:] >= 0)) | ((hv[:-1] > 0) & (hv[1:] <= 0))))
    unreached: list[str] = []
    if sign_change.numel():
        # Sparse units can meet sigma_b twice along the line (a tiny-q root needing a huge sigma_w, and the
        # useful one): take the smallest sigma_w among roots whose fixed point is stable (V'(q*) <= 1).
        f = lambda q: float(h(torch.tensor([q], dtype=DTYPE)))
        best, best_stable = (math.inf, math.nan), (math.inf, math.nan)
        for i in sign_change.reshape(-1).tolist():
            q_root = brentq(f, float(qs[i]), float(qs[i + 1]), xtol=1e-300, rtol=1e-15)
            qt = torch.tensor([q_root], dtype=DTYPE)
            sw = 1.0 / math.sqrt(float(m.g2(qt)))
            slope = sw**2 * float(m.m2_slope(qt))
            # Keep roots the variance map actually reaches from q0 (else the unit sits elsewhere, e.g. dead).
            reached, _ = _fixed_point_q(m, sw, sigma_b, q0)
            if not (math.isfinite(reached) and abs(reached - q_root) <= 1e-6 * max(q_root, 1e-300)):
                why = (
                    f"an unstable fixed point (V'(q*) = {slope:.9g} > 1)"
                    if slope > 1
                    else f"not reached (from q0 = {q0:g} the map goes to q* = {reached:.4g})"
                )
                unreached.append(f"chi_1 = 1 at q* = {q_root:.4g}, sigma_w = {sw:.6g} is {why}")
                continue
            best = min(best, (sw, q_root))
            if slope <= 1.0 + 1e-9:
                best_stable = min(best_stable, (sw, q_root))
        for sw, q in (best_stable, best):
            if math.isfinite(sw):
                return found(sw, q)
    # No finite q* on the line (e.g. relu with sigma_b > 0: q* diverges at criticality): scan sigma_w.
    hw = lambda sw: _chi1_at(m, sw, sigma_b, q0) - 1.0
    grid = np.geomspace(1e-2, 1e2, 21)
    prev_sw, prev_h = None, None
    line = f"; on the critical line {'; '.join(unreached)}" if unreached else ""
    for sw in grid:
        val = hw(sw)
        if val == 0.0:
            return found(sw, _fixed_point_q(m, float(sw), sigma_b, q0)[0])
        if prev_h is not None and (prev_h < 0) != (val < 0):
            # Bisect to 1e-4 first: a jump of chi_1 (the reached fixed point switching branch) shows as ends
            # far from 0 and is not a critical point; a crossing is then polished by Brent's method.
            lo, hi, h_lo, h_hi = float(prev_sw), float(sw), prev_h, val
            while hi - lo > 1e-4 * hi:
                mid = 0.5 * (lo + hi)
                h_mid = hw(mid)
                if (h_mid < 0) == (h_lo < 0):
                    lo, h_lo = mid, h_mid
                else:
                    hi, h_hi = mid, h_mid
            if max(abs(h_lo), abs(h_hi)) < 1e-2:
                root = float(brentq(hw, lo, hi, xtol=1e-15, rtol=1e-15))
                if abs(hw(root)) <= 1e-6:
                    return found(root, _fixed_point_q(m, root, sigma_b, q0)[0])
            return CriticalPoint(m.name, sigma_b, math.nan, math.nan, _jump_reason(m, sigma_b, q0, lo, hi) + line)
        prev_sw, prev_h = sw, val
    side = "below" if prev_h < 0 else "above"
    return CriticalPoint(
        m.name,
        sigma_b,
        math.nan,
        math.nan,
        f"chi_1 at the fixed point reached from q0 = {q0:g} stays {side} 1 for every sigma_w in "
        f"[{grid[0]:g}, {grid[-1]:g}]" + line,
    )


def _jump_reason(m: Model, sigma_b: float, q0: float, lo: float, hi: float) -> str:
    """Why chi_1 crosses 1 by a jump between sigma_w = lo and hi: the fixed point reached from q0 changes branch."""
    sw = 0.5 * (lo + hi)
    q_lo, q_hi = _fixed_point_q(m, lo, sigma_b, q0)[0], _fixed_point_q(m, hi, sigma_b, q0)[0]
    chi_lo, chi_hi = _chi1_at(m, lo, sigma_b, q0), _chi1_at(m, hi, sigma_b, q0)

    def where(q: float) -> str:
        return "diverges (q* = inf)" if q == math.inf else f"is q* = {q:.4g}"

    return (
        f"as sigma_w passes {sw:.4g}, the fixed point reached from q0 = {q0:g} jumps: below it {where(q_lo)} with "
        f"chi_1 = {chi_lo:.4g}, above it {where(q_hi)} with chi_1 = {chi_hi:.4g}, so chi_1 never equals 1 "
        "(q0 crosses an unstable fixed point of the variance map there)"
    )


def init_gain(name: str, q: float = 1.0, **params: Any) -> float:
    """The weight-std multiplier g (W ~ N(0, g^2 / fan_in)) that keeps the pre-activation variance at q.

    g^2 E[phi(sqrt(q) z)^2] = q, i.e. g = sqrt(q / E[phi(u)^2]): relu sqrt 2, identity 1, selu 1 at q = 1.
    Gated entries: E[f(g, v)^2] with independent unit-variance gate and value.
    """
    if not (isinstance(q, int | float) and not isinstance(q, bool) and math.isfinite(q) and q > 0):
        raise ValueError(f"q must be a finite variance > 0, got {q!r}")
    m = model(name, **params)
    m2 = float(m.m2(torch.tensor([float(q)], dtype=DTYPE)))
    if m2 <= 0:
        raise ValueError(f"{m.name}: E[phi(u)^2] = 0 at q={q}; no gain keeps the variance")
    return math.sqrt(q / m2)


@dataclass(frozen=True)
class Sparsity:
    """P(phi(u) = 0) for u ~ N(0, q), from the intervals on which phi is exactly zero."""

    name: str
    q: float
    zero_fraction: float
    active_fraction: float
    zero_intervals: tuple[tuple[float, float], ...]


def sparsity_at_init(
    name: str,
    q: float | None = 1.0,
    sigma_w: float | None = None,
    sigma_b: float = 0.0,
    **params: Any,
) -> Sparsity:
    """Exact-zero fraction of the activations at init. q: the pre-activation variance (default 1, the
    regime init_gain sets up); with sigma_w given (and q=None), q is the fixed point q* of the variance map.
    For gated entries: the fraction of units whose gate output is exactly 0.
    """
    m = model(name, **params)
    if q is None:
        if sigma_w is None:
            raise ValueError("sparsity_at_init needs q or sigma_w (to use the fixed point q*)")
        sigma_w, sigma_b = check_sigmas(sigma_w, sigma_b)
        q, _ = _fixed_point_q(m, sigma_w, sigma_b, 1.0)
    if not (isinstance(q, int | float) and math.isfinite(q) and q >= 0):
        raise ValueError(f"q must be a finite variance >= 0, got {q!r}")
    intervals = tuple(m.zero_intervals())
    sd = math.sqrt(q)
    total = 0.0
    for lo, hi in intervals:
        if sd == 0:
            total += 1.0 if lo < 0 < hi or (lo <= 0 <= hi and lo != hi) else 0.0
            continue
        # Phi(hi/sd) - Phi(lo/sd) with erfc on the side that avoids cancellation.
        a, b = lo / sd, hi / sd
        total += (
            0.5 * (math.erfc(-b / math.sqrt(2)) - math.erfc(-a / math.sqrt(2)))
            if b <= 0
            else (0.5 * (math.erfc(a / math.sqrt(2)) - math.erfc(b / math.sqrt(2))))
        )
    total = min(max(total, 0.0), 1.0)
    return Sparsity(name=m.name, q=float(q), zero_fraction=total, active_fraction=1.0 - total, zero_intervals=intervals)


@dataclass(frozen=True)
class ClipLevel:
    """A clip level m for a clipped sparsifying unit and the edge-of-chaos init it goes with."""

    name: str
    m: float
    q_star: float
    sigma_w: float
    sigma_b: float
    slope_q: float  # V'(q*) with that m: < 1 is a stable fixed point
    unclipped_slope_q: float  # V'(q*) as m -> infinity (the unclipped unit)
    zero_fraction: float


def eoc_init(name: str, q_star: float = 1.0, **params: Any) -> tuple[float, float]:
    """(sigma_w, sigma_b) that put q_star on the variance map's fixed point with chi_1 = 1 (edge of chaos).

    sigma_w^2 = 1 / E[phi'(u)^2], sigma_b^2 = q* - sigma_w^2 E[phi(u)^2]; ValueError if that is negative.
    """
    m = model(name, **params)
    qt = torch.tensor([float(q_star)], dtype=DTYPE)
    sw2 = 1.0 / float(m.g2(qt))
    sb2 = q_star - sw2 * float(m.m2(qt))
    if sb2 < -1e-12 * q_star:
        raise ValueError(f"{m.name}: no edge-of-chaos init with q* = {q_star}: it needs sigma_b^2 = {sb2:.3g} < 0")
    return math.sqrt(sw2), math.sqrt(max(sb2, 0.0))


def _eoc_slope(name: str, q_star: float, params: dict[str, Any]) -> float:
    sw, _ = eoc_init(name, q_star, **params)
    m = model(name, **params)
    return sw**2 * float(m.m2_slope(torch.tensor([float(q_star)], dtype=DTYPE)))


def clip_level(name: str, q_star: float = 1.0, max_slope: float = 0.9, **params: Any) -> ClipLevel:
    """The largest clip m for which the edge-of-chaos fixed point q* of `name` is stable with V'(q*) <= max_slope.

    For the clipped sparsifying units (clipped_shifted_relu, clipped_soft_threshold; any entry with a
    clip parameter `m`). At the edge of chaos the unclipped units have V'(q*) = 1 (only marginally stable;
    arXiv:2402.16184 proves the instability); clipping at m lowers V'(q*) below 1, the more the smaller m,
    at the price of expressivity. This returns the least clipping with the asked stability margin.
    nonlin's criterion: the paper's own prescription was not confirmed (see docs/theory.md).
    """
    from nonlin.registry import spec as get_spec

    s = get_spec(name)
    if "m" not in {p.name for p in s.params}:
        raise ValueError(f"{s.name} has no clip parameter 'm'; clip_level applies to clipped units")
    if not (0 < max_slope < 1):
        raise ValueError(f"max_slope must lie in (0, 1) (a stable fixed point), got {max_slope!r}")
    params = {k: v for k, v in params.items() if k != "m"}

    def slope(m_: float) -> float:
        try:
            return _eoc_slope(name, q_star, {**params, "m": m_})
        except ValueError:
            return math.nan

    sd = math.sqrt(q_star)
    grid = np.geomspace(1e-3 * sd, 30 * sd, 61)
    slopes = np.array([slope(float(x)) for x in grid])
    ok = np.isfinite(slopes) & (slopes <= max_slope)
    if not ok.any():
        raise ValueError(f"{s.name}: no clip level m in [{grid[0]:.3g}, {grid[-1]:.3g}] reaches V'(q*) <= {max_slope}")
    i = int(np.nonzero(ok)[0][-1])
    if i + 1 < len(grid) and np.isfinite(slopes[i + 1]):
        m_best = brentq(lambda x: slope(x) - max_slope, grid[i], grid[i + 1], xtol=1e-14, rtol=1e-13)
    else:
        m_best = float(grid[i])
    sw, sb = eoc_init(name, q_star, **params, m=m_best)
    sp = sparsity_at_init(name, q=q_star, **params, m=m_best)
    return ClipLevel(
        name=s.name,
        m=float(m_best),
        q_star=float(q_star),
        sigma_w=sw,
        sigma_b=sb,
        slope_q=slope(m_best),
        unclipped_slope_q=slope(float(grid[-1]) * 100),
        zero_fraction=sp.zero_fraction,
    )
