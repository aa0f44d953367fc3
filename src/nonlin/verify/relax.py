"""`relax` and `interval`: sound linear bounds and exact ranges of any catalog entry on intervals.

Pointwise entries (stochastic ones in their eval form) go through `Curve`s built from the declaration.
Gated entries g, v -> f(g, v) that factor as phi(g) * psi(v) (found from the forward: every gated entry
of the catalog does) are bounded McCormick-style: the four product planes of [phi] x [psi], each factor
replaced by its own linear bound in g or v, choosing per element the plane of least mean gap.
Normalizers: every output w_i is non-decreasing in its own score and non-increasing in the others
(checked on samples when first used), so its exact range over a box is reached at two corners; the
elementwise ones (sigmoid_attn, relu_attn, relu2_attn) are also relaxed like pointwise functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import torch

from nonlin.ops import TORCH
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind, Spec
from nonlin.verify.curve import Curve, Unrelaxable, _autograd_df, _scalar_params, build_curve, pointwise_curve
from nonlin.verify.extremum import TINY
from nonlin.verify.pointwise import _check_ends, exact_range, lines, lines_with_slopes, round_line

F64 = torch.float64
PRODUCT_MARGIN = 2.0**-44


@dataclass(frozen=True)
class Relaxation:
    """lower_slope * x + lower_intercept <= f(x) <= upper_slope * x + upper_intercept on [lower, upper]."""

    lower_slope: torch.Tensor
    lower_intercept: torch.Tensor
    upper_slope: torch.Tensor
    upper_intercept: torch.Tensor
    lower: torch.Tensor  # the interval the bounds hold on
    upper: torch.Tensor

    def lower_bound(self, x: torch.Tensor) -> torch.Tensor:
        return self.lower_slope * x + self.lower_intercept

    def upper_bound(self, x: torch.Tensor) -> torch.Tensor:
        return self.upper_slope * x + self.upper_intercept

    def mean_gap(self) -> torch.Tensor:
        """Mean over [lower, upper] of upper_bound - lower_bound (the band's mean width)."""
        mid = (self.lower.to(F64) + self.upper.to(F64)) / 2
        a = self.upper_slope.to(F64) - self.lower_slope.to(F64)
        return a * mid + self.upper_intercept.to(F64) - self.lower_intercept.to(F64)


@dataclass(frozen=True)
class GatedRelaxation:
    """Bounds of f(g, v) linear in both: gate_lower_slope*g + value_lower_slope*v + lower_intercept <= f."""

    gate_lower_slope: torch.Tensor
    value_lower_slope: torch.Tensor
    lower_intercept: torch.Tensor
    gate_upper_slope: torch.Tensor
    value_upper_slope: torch.Tensor
    upper_intercept: torch.Tensor
    lower: tuple[torch.Tensor, torch.Tensor]  # (gate, value) lower ends
    upper: tuple[torch.Tensor, torch.Tensor]

    def lower_bound(self, g: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return self.gate_lower_slope * g + self.value_lower_slope * v + self.lower_intercept

    def upper_bound(self, g: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return self.gate_upper_slope * g + self.value_upper_slope * v + self.upper_intercept

    def mean_gap(self) -> torch.Tensor:
        gm = (self.lower[0].to(F64) + self.upper[0].to(F64)) / 2
        vm = (self.lower[1].to(F64) + self.upper[1].to(F64)) / 2
        return (self.upper_bound(gm, vm) - self.lower_bound(gm, vm)).to(F64)


# --- gated entries: f(g, v) = phi(g) * psi(v) ---


@dataclass(frozen=True)
class GatedFactors:
    phi: Curve
    psi: Curve | None  # None: psi(v) = v exactly


def _gated_fns(s: Spec, p: dict):
    def f(g, v):
        return s.forward(TORCH, g, v, **p)

    def d(g, v):
        return s.derivative(TORCH, g, v, **p)

    return f, d


@lru_cache(maxsize=256)
def _gated_factors_cached(name: str, items: tuple) -> GatedFactors:
    s = get_spec(name)
    p = dict(items)
    if s.extra_inputs:
        raise Unrelaxable(
            f"{name}: takes the extra tensor input(s) {', '.join(s.extra_inputs)}, so it is not a function of (g, v) "
            "alone; verify bounds functions of the gate and value only"
        )
    f, d = _gated_fns(s, p)
    gen = torch.Generator().manual_seed(0)
    g = torch.randn(4096, generator=gen, dtype=F64) * 6
    v = torch.randn(4096, generator=gen, dtype=F64) * 6
    fv = f(g, v)
    bps = tuple(s.breakpoints(**p))
    one = torch.ones_like(v)
    if torch.allclose(fv, f(g, one) * v, rtol=1e-13, atol=1e-300):

        def phi(x):
            return f(x, torch.ones_like(x))

        def dphi(x):
            return d(x, torch.ones_like(x))[0]

        return GatedFactors(build_curve(f"{name}:gate", phi, dphi, bps), None)
    for g0, v0 in ((1.0, 0.0), (1.0, 1.0), (2.0, 0.5)):
        c = float(f(torch.tensor([g0], dtype=F64), torch.tensor([v0], dtype=F64))[0])
        if c == 0 or not math.isfinite(c):
            continue
        G0, V0 = torch.full_like(g, g0), torch.full_like(v, v0)
        if torch.allclose(fv * c, f(g, V0) * f(G0, v), rtol=1e-12, atol=1e-300):

            def phi(x, v0=v0):
                return f(x, torch.full_like(x, v0))

            def dphi(x, v0=v0):
                return d(x, torch.full_like(x, v0))[0]

            def psi(x, g0=g0, c=c):
                return f(torch.full_like(x, g0), x) / c

            def dpsi(x, g0=g0, c=c):
                return d(torch.full_like(x, g0), x)[1] / c

            return GatedFactors(
                build_curve(f"{name}:gate", phi, dphi, bps), build_curve(f"{name}:value", psi, dpsi, bps)
            )
    raise Unrelaxable(f"{name}: f(g, v) does not factor as phi(g) * psi(v) (checked on samples)")


def gated_factors(name: str, params: dict | None = None) -> GatedFactors:
    s = get_spec(name)
    p = _scalar_params(s, dict(params or {}))
    return _gated_factors_cached(s.name, tuple(sorted(p.items())))


def _factor_lines(curve: Curve | None, lo: torch.Tensor, hi: torch.Tensor):
    """(range lo, range hi, lower slope, lower intercept, upper slope, upper intercept) of a factor."""
    if curve is None:
        one, zero = torch.ones_like(lo), torch.zeros_like(lo)
        return lo, hi, one, zero, one, zero
    rlo, rhi = exact_range(curve, lo, hi)
    return (rlo, rhi, *lines(curve, lo, hi))


def gated_relaxation(factors: GatedFactors, gl, gu, vl, vu):
    """McCormick planes of phi * psi with each factor's linear bounds substituted; float64."""
    Pl, Pu, pal, pbl, pau, pbu = _factor_lines(factors.phi, gl, gu)
    Ql, Qu, qal, qbl, qau, qbu = _factor_lines(factors.psi, vl, vu)
    gmax = torch.maximum(gl.abs(), gu.abs())
    vmax = torch.maximum(vl.abs(), vu.abs())
    gc, vc = (gl + gu) / 2, (vl + vu) / 2

    def plane(cpsi, cphi, const, lower: bool):
        # cpsi * psi(v) + cphi * phi(g) + const, each factor replaced by the bound that keeps the side
        use_low_psi = (cpsi >= 0) if lower else (cpsi < 0)
        use_low_phi = (cphi >= 0) if lower else (cphi < 0)
        qa, qb = torch.where(use_low_psi, qal, qau), torch.where(use_low_psi, qbl, qbu)
        pa, pb = torch.where(use_low_phi, pal, pau), torch.where(use_low_phi, pbl, pbu)
        sv, sg = cpsi * qa, cphi * pa
        b = cpsi * qb + cphi * pb + const
        slack = PRODUCT_MARGIN * (sv.abs() * vmax + sg.abs() * gmax + (cpsi * qb).abs() + (cphi * pb).abs())
        slack = slack + PRODUCT_MARGIN * const.abs() + TINY
        b = b - slack if lower else b + slack
        return sg, sv, torch.nan_to_num(b, nan=-math.inf if lower else math.inf, posinf=math.inf, neginf=-math.inf)

    L1 = plane(Pl, Ql, -Pl * Ql, True)
    L2 = plane(Pu, Qu, -Pu * Qu, True)
    U1 = plane(Pu, Ql, -Pu * Ql, False)
    U2 = plane(Pl, Qu, -Pl * Qu, False)

    def at_center(pl):
        return pl[0] * gc + pl[1] * vc + pl[2]

    pick_l = at_center(L1) >= at_center(L2)
    pick_u = at_center(U1) <= at_center(U2)
    low = [torch.where(pick_l, x, y) for x, y in zip(L1, L2, strict=True)]
    up = [torch.where(pick_u, x, y) for x, y in zip(U1, U2, strict=True)]
    rng = (Pl, Pu, Ql, Qu)
    return low, up, rng


def _gated_range(factors: GatedFactors, gl, gu, vl, vu):
    Pl, Pu = exact_range(factors.phi, gl, gu)
    Ql, Qu = (vl, vu) if factors.psi is None else exact_range(factors.psi, vl, vu)
    prods = torch.stack([Pl * Ql, Pl * Qu, Pu * Ql, Pu * Qu])
    lo, hi = prods.amin(0), prods.amax(0)
    # the product of exact factor ranges is the exact range of phi(g) psi(v) over the box (independent inputs)
    lo = lo - PRODUCT_MARGIN * lo.abs() - TINY
    hi = hi + PRODUCT_MARGIN * hi.abs() + TINY
    return lo, hi


def _split_gated(name: str, lower, upper):
    if isinstance(lower, tuple | list):
        (gl, vl), (gu, vu) = lower, upper
        gl, gu = _check_ends(gl, gu)
        vl, vu = _check_ends(vl, vu)
        if gl.shape != vl.shape:
            raise ValueError(
                f"{name}: gate bounds {tuple(gl.shape)} and value bounds {tuple(vl.shape)} differ in shape"
            )
        return gl, gu, vl, vu, lower[0].dtype
    l64, u64 = _check_ends(lower, upper)
    if l64.dim() == 0 or l64.shape[-1] % 2:
        raise ValueError(
            f"{name}: packed bounds must have an even last dimension [..., 2d] = [gate | value]; got shape "
            f"{tuple(l64.shape)}"
        )
    d = l64.shape[-1] // 2
    return l64[..., :d], u64[..., :d], l64[..., d:], u64[..., d:], lower.dtype


# --- normalizers ---


@lru_cache(maxsize=64)
def _normalizer_form(name: str, n: int, items: tuple) -> tuple[str, Curve | None]:
    """('elementwise', curve), ('monotone', None) or ('antitone', None), checked on samples; Unrelaxable otherwise."""
    s = get_spec(name)
    p = dict(items)
    if s.kind is Kind.SETWISE:
        raise Unrelaxable(
            f"{name}: a set-wise unit (its output along dim is not one value per input), which verify does not bound"
        )
    if s.extra_inputs:
        raise Unrelaxable(
            f"{name}: takes the extra tensor input(s) {', '.join(s.extra_inputs)}, so its weights are not a function "
            "of the scores alone; verify bounds functions of the scores only"
        )
    if s.stochastic:
        raise Unrelaxable(f"{name}: samples noise on every call (no deterministic form to bound)")

    def w(z):
        return s.torch_impl(z, torch.ones_like(z, dtype=torch.bool), **p)

    gen = torch.Generator().manual_seed(1)
    z = torch.randn(64, n, generator=gen, dtype=F64) * 3
    base = w(z)
    elementwise, monotone, antitone = True, True, True
    for j in range(min(n, 4)):
        bumped = z.clone()
        bumped[:, j] += 0.5
        dw = w(bumped) - base
        own = dw[:, j]
        others = torch.cat([dw[:, :j], dw[:, j + 1 :]], dim=1)
        if bool((others.abs() > 1e-15).any()):
            elementwise = False
        if bool((own < -1e-15).any()) or bool((others > 1e-15).any()):
            monotone = False
        if bool((own > 1e-15).any()) or bool((others < -1e-15).any()):
            antitone = False  # softmin: non-increasing in its own score, non-decreasing in the others
    if elementwise:

        def f(x):
            return w(x.reshape(-1, 1).expand(-1, n).contiguous())[:, 0].reshape(x.shape)

        return "elementwise", build_curve(f"{name}[n={n}]", f, _autograd_df(f), (0.0,))
    if monotone:
        return "monotone", None
    if antitone:
        return "antitone", None
    raise Unrelaxable(f"{name}: its weights are not monotone in the scores (checked on samples)")


def _normalizer_range(s: Spec, l64, u64, p, kind: str = "monotone"):
    if kind == "antitone":  # the same two corners, with the roles of the ends swapped
        lo, hi = _normalizer_range(s, u64, l64, p)
        return lo, hi
    n = l64.shape[-1]
    eye = torch.eye(n, dtype=torch.bool)
    keep = torch.ones((*l64.shape, n), dtype=torch.bool)
    z_lo = torch.where(eye, l64[..., None, :], u64[..., None, :])  # row i: own score low, others high
    z_hi = torch.where(eye, u64[..., None, :], l64[..., None, :])
    lo = s.torch_impl(z_lo, keep, **p).diagonal(dim1=-2, dim2=-1)
    hi = s.torch_impl(z_hi, keep, **p).diagonal(dim1=-2, dim2=-1)
    # torch's float64 softmax/sort-based maps: a few ulps; widened by 2^-40 relative
    # torch's float64 maps round a few ulps of the row's largest weight (sparsemax's threshold): 2^-40 of
    # each weight plus 2^-48 of the row's scale
    scale = torch.maximum(lo.abs().amax(-1, keepdim=True), hi.abs().amax(-1, keepdim=True))
    lo = lo - 2.0**-40 * lo.abs() - 2.0**-48 * scale - TINY
    hi = hi + 2.0**-40 * hi.abs() + 2.0**-48 * scale + TINY
    if "row_normalized" in s.properties:
        lo = torch.clamp(lo, min=0.0)
    if "row_normalized" in s.properties:
        hi = torch.clamp(hi, max=1.0)
    return lo, hi


def _normalizer_setup(s: Spec, lower, upper, dim, params):
    l64, u64 = _check_ends(lower, upper)
    if l64.dim() == 0:
        raise ValueError(f"{s.name}: scores must have at least one dimension")
    p = _scalar_params(s, params)
    l64, u64 = l64.movedim(dim, -1), u64.movedim(dim, -1)
    kind, curve = _normalizer_form(s.name, l64.shape[-1], tuple(sorted(p.items())))
    return l64, u64, p, kind, curve


# --- public API ---


def relax(
    name: str,
    lower,
    upper,
    /,
    *,
    lower_slope: torch.Tensor | None = None,
    upper_slope: torch.Tensor | None = None,
    dim: int = -1,
    **params,
) -> Relaxation | GatedRelaxation:
    """Sound linear bounds of entry `name` on each interval [lower, upper] (tensors of any shape).

    Pointwise: a `Relaxation` (float64 for float64 ends, else float32 with the intercepts rounded outward).
    Given `lower_slope` / `upper_slope`, the intercepts are the exact ones for those slopes (any slope is
    sound: that is what alpha-CROWN optimizes). Gated: ends packed [..., 2d] = [gate | value] or given as
    (gate, value) pairs; a `GatedRelaxation`. Normalizers: bounds of each weight along `dim`; elementwise
    normalizers get a `Relaxation`, the others constant bounds (slope 0) at their exact range.
    """
    s = get_spec(name)
    if s.kind is Kind.POINTWISE:
        curve = pointwise_curve(s.name, params)
        l64, u64 = _check_ends(lower, upper)
        dtype = F64 if lower.dtype == F64 else torch.float32
        if lower_slope is None and upper_slope is None:
            al, bl, au, bu = lines(curve, l64, u64)
        else:
            dal, _, dau, _ = lines(curve, l64, u64) if lower_slope is None or upper_slope is None else (None,) * 4
            al = dal if lower_slope is None else lower_slope.to(F64).expand(l64.shape)
            au = dau if upper_slope is None else upper_slope.to(F64).expand(l64.shape)
            bl, bu = lines_with_slopes(curve, l64, u64, al, au)
        al, bl = round_line(al, bl, l64, u64, dtype, lower=True)
        au, bu = round_line(au, bu, l64, u64, dtype, lower=False)
        return Relaxation(al, bl, au, bu, l64.to(dtype), u64.to(dtype))
    if s.kind is Kind.GATED:
        gl, gu, vl, vu, dtype = _split_gated(s.name, lower, upper)
        factors = gated_factors(s.name, params)
        low, up, _ = gated_relaxation(factors, gl, gu, vl, vu)
        if dtype != F64:
            low, up = _round_gated(low, up, gl, gu, vl, vu)
        return GatedRelaxation(*low, *up, (gl, vl), (gu, vu))
    l64, u64, p, kind, curve = _normalizer_setup(s, lower, upper, dim, params)
    if kind == "elementwise":
        al, bl, au, bu = lines(curve, l64, u64)
    else:
        lo, hi = _normalizer_range(s, l64, u64, p, kind)
        al, bl, au, bu = torch.zeros_like(lo), lo, torch.zeros_like(hi), hi
    dtype = F64 if lower.dtype == F64 else torch.float32
    al, bl = round_line(al, bl, l64, u64, dtype, lower=True)
    au, bu = round_line(au, bu, l64, u64, dtype, lower=False)
    back = [t.movedim(-1, dim) for t in (al, bl, au, bu, l64.to(dtype), u64.to(dtype))]
    return Relaxation(*back)


def _round_gated(low, up, gl, gu, vl, vu):
    """float32 planes: both slopes rounded, the intercept moved by their errors over the box."""
    out = []
    for (sg, sv, b), lower in ((low, True), (up, False)):
        sg32, sv32 = sg.to(torch.float32), sv.to(torch.float32)
        dg, dv = sg32.to(F64) - sg, sv32.to(F64) - sv
        gc, vc = (gl + gu) / 2, (vl + vu) / 2
        reach = dg.abs() * (gu - gl) / 2 + dv.abs() * (vu - vl) / 2
        shift = -(dg * gc + dv * vc)
        slack = reach * (1 + 2.0**-40) + 2.0**-50 * (b.abs() + shift.abs()) + TINY
        b2 = b + shift - slack if lower else b + shift + slack
        b32 = b2.to(torch.float32)
        fix = (b32.to(F64) > b2) if lower else (b32.to(F64) < b2)
        b32 = torch.where(fix, torch.nextafter(b32, torch.full_like(b32, -math.inf if lower else math.inf)), b32)
        out.append((sg32, sv32, b32))
    return out[0], out[1]


def interval(name: str, lower, upper, /, *, dim: int = -1, **params) -> tuple[torch.Tensor, torch.Tensor]:
    """The exact range [min f, max f] of entry `name` over each interval, rounded outward (sound IBP).

    Pointwise: same shape as the ends. Gated: packed ends [..., 2d] (or (gate, value) pairs) -> [..., d].
    Normalizers: the range of each weight over the box of scores along `dim`.
    Returned in float64 for float64 ends, else float32 rounded outward.
    """
    s = get_spec(name)
    if s.kind is Kind.POINTWISE:
        l64, u64 = _check_ends(lower, upper)
        lo, hi = exact_range(pointwise_curve(s.name, params), l64, u64)
        dtype = lower.dtype
    elif s.kind is Kind.GATED:
        gl, gu, vl, vu, dtype = _split_gated(s.name, lower, upper)
        lo, hi = _gated_range(gated_factors(s.name, params), gl, gu, vl, vu)
    else:
        l64, u64, p, kind, curve = _normalizer_setup(s, lower, upper, dim, params)
        lo, hi = exact_range(curve, l64, u64) if kind == "elementwise" else _normalizer_range(s, l64, u64, p, kind)
        lo, hi = lo.movedim(-1, dim), hi.movedim(-1, dim)
        dtype = lower.dtype
    return outward(lo, hi, F64 if dtype == F64 else torch.float32)


def outward(lo: torch.Tensor, hi: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """float64 bounds rounded outward to `dtype`."""
    if dtype == F64:
        return lo, hi
    lo_r, hi_r = lo.to(dtype), hi.to(dtype)
    lo_r = torch.where(lo_r.to(F64) > lo, torch.nextafter(lo_r, torch.full_like(lo_r, -math.inf)), lo_r)
    hi_r = torch.where(hi_r.to(F64) < hi, torch.nextafter(hi_r, torch.full_like(hi_r, math.inf)), hi_r)
    return lo_r, hi_r


@lru_cache(maxsize=1)
def _unrelaxable() -> tuple[tuple[str, str], ...]:
    from nonlin.registry import names

    out = {}
    for name in names():
        s = get_spec(name)
        try:
            if s.kind is Kind.POINTWISE:
                pointwise_curve(name)
            elif s.kind is Kind.GATED:
                gated_factors(name)
            else:
                p = _scalar_params(s, {})
                _normalizer_form(name, 8, tuple(sorted(p.items())))
        except (Unrelaxable, ValueError) as err:
            out[name] = str(err)
    return tuple(out.items())


def unrelaxable() -> dict[str, str]:
    """Catalog entries (at their default parameters) that `relax` refuses, each with the reason."""
    return dict(_unrelaxable())
