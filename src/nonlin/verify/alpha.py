"""alpha-CROWN's pointwise relaxations: lines whose slopes are optimized and whose intercepts stay exact.

Every line is written for g = sign * f (sign +1: a lower bound of f; -1: an upper bound, negated), so both
sides are one computation. On a side where g is concave over [l, u] (one region), the secant is the best
lower bound of g pointwise, so it is used with no parameter (ReLU's upper line, and both lines where f is
affine). Elsewhere the slope is a = a_lo + (a_hi - a_lo) theta with theta in [0, 1] and [a_lo, a_hi] the
range of g' over the reference interval (a slope outside it is dominated): ReLU's theta is auto_LiRPA's
alpha. Any slope gives a sound line, since the intercept is extremum.py's exact minimum of g(x) - a x;
it is differentiable in a (envelope theorem: -argmin) and in the ends (h'(l) where the minimum is at l,
h'(u) where it is at u), so the bounds of later layers can be optimized through the intermediate ones.
"""

from __future__ import annotations

import math

import torch

from nonlin.verify.curve import CONCAVE, CONVEX, Curve
from nonlin.verify.extremum import lower_intercept
from nonlin.verify.pointwise import _region

F64 = torch.float64
_SLOPE_SAMPLES = torch.linspace(0.0, 1.0, 9, dtype=F64)
# theta stays this far inside [0, 1]: at the end slopes of a piecewise-affine f (ReLU's 0 and 1, where CROWN
# starts) the minimum of f(x) - a x is a whole piece, and the argmin, hence the gradient, would be arbitrary
EDGE = 1e-6


class _ExactIntercept(torch.autograd.Function):
    """b(a, l, u) <= min over [l, u] of g(x) - a x (exact up to extremum.py's margin), g = sign * f."""

    @staticmethod
    def forward(ctx, a, xl, xu, sign, curve):
        b, arg = lower_intercept(curve, xl.detach(), xu.detach(), a.detach(), sign)
        ctx.save_for_backward(a.detach(), xl.detach(), xu.detach(), sign, arg)
        ctx.curve = curve
        return b

    @staticmethod
    def backward(ctx, grad):
        a, xl, xu, sign, arg = ctx.saved_tensors
        curve = ctx.curve
        at_l = arg <= torch.nextafter(xl, torch.full_like(xl, math.inf))
        at_u = arg >= torch.nextafter(xu, torch.full_like(xu, -math.inf))
        # the minimum sits on an end only where h = g - a x rises away from it: h'(l) >= 0, h'(u) <= 0
        dl = torch.where(at_l, (sign * curve.df(xl) - a).nan_to_num(0.0, 0.0, 0.0).clamp(min=0.0), 0.0)
        du = torch.where(at_u, (sign * curve.df(xu) - a).nan_to_num(0.0, 0.0, 0.0).clamp(max=0.0), 0.0)
        return -grad * arg, grad * dl, grad * du, None, None


class _Value(torch.autograd.Function):
    """f(x) with the declared derivative as its gradient."""

    @staticmethod
    def forward(ctx, x, curve):
        ctx.save_for_backward(x.detach())
        ctx.curve = curve
        return curve.f(x.detach())

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ctx.curve.df(x).nan_to_num(0.0, 0.0, 0.0), None


def exact_intercept(curve: Curve, a, xl, xu, sign) -> torch.Tensor:
    """The sound intercept of slope `a` for g = sign * f on [xl, xu], differentiable in a, xl and xu
    (all broadcast to one shape)."""
    shape = torch.broadcast_shapes(a.shape, xl.shape, xu.shape, sign.shape)
    a, xl, xu = a.expand(shape), xl.expand(shape), xu.expand(shape)
    sign = sign.expand(shape).contiguous()
    return _ExactIntercept.apply(a, xl, xu, sign, curve)


def differentiable_range(curve: Curve, xl: torch.Tensor, xu: torch.Tensor):
    """[min f, max f] over [xl, xu] (exact, rounded outward), differentiable in the ends."""
    zero = torch.zeros_like(xl)
    lo = exact_intercept(curve, zero, xl, xu, torch.ones_like(xl))
    hi = -exact_intercept(curve, zero, xl, xu, -torch.ones_like(xl))
    return lo, hi


def sides(xl: torch.Tensor) -> torch.Tensor:
    """sign per side, shaped to broadcast over [2, *xl.shape]: +1 (lower line of f), -1 (upper)."""
    return torch.tensor([1.0, -1.0], dtype=F64).reshape(2, *([1] * xl.dim()))


def concave_sides(curve: Curve, xl: torch.Tensor, xu: torch.Tensor) -> torch.Tensor:
    """[2, *shape] bool: g = sign * f is concave on [xl, xu] (one region), so its secant is its best lower line."""
    xl, xu = xl.detach(), xu.detach()
    k, one = _region(curve, xl, xu)
    flags = torch.tensor(curve.flags, dtype=torch.long)[k]
    # f' is monotone in one region: equal at both ends (just inside) means f is affine there (a stable ReLU,
    # whose region is the whole line: its kink merges convex pieces)
    d_l = curve.df(torch.minimum(torch.nextafter(xl, torch.full_like(xl, math.inf)), xu))
    d_u = curve.df(torch.maximum(torch.nextafter(xu, torch.full_like(xu, -math.inf)), xl))
    affine = one & (flags > 0) & (d_l == d_u)
    f_concave = one & ((flags & CONCAVE) > 0) | affine  # lower line of f is the secant
    f_convex = one & ((flags & CONVEX) > 0) | affine  # upper line of f is the secant
    return torch.stack([f_concave, f_convex])


def secant_lines(curve: Curve, xl: torch.Tensor, xu: torch.Tensor):
    """Slopes and exact intercepts [2, *shape] of the secant of g = sign * f on each side, differentiable."""
    s = sides(xl)
    width = xu - xl
    ok = width > 2.0**-26 * (xl.abs() + xu.abs()) + 2.0**-1000  # narrower: the secant is f' at the middle
    w = torch.where(ok, width, 1.0)
    secant = (_Value.apply(xu, curve) - _Value.apply(xl, curve)) / w
    mid = (xl + (xu - xl) / 2).detach()
    secant = torch.where(ok, secant, curve.df(mid)).nan_to_num(0.0, 0.0, 0.0)
    a = s * secant
    b = exact_intercept(curve, a, xl[None], xu[None], s)
    return a, b


def slope_range(curve: Curve, xl: torch.Tensor, xu: torch.Tensor, a0: torch.Tensor):
    """(a_lo, a_hi) [2, *shape]: the range of g' sampled over [xl, xu] on each side, and the given slopes a0."""
    t = xl[None] + (xu - xl)[None] * _SLOPE_SAMPLES.reshape(-1, *([1] * xl.dim()))
    d = curve.df(t).nan_to_num(0.0, 0.0, 0.0)  # [9, *shape]
    s = sides(xl)
    dg = s[:, None] * d[None]  # [2, 9, *shape]
    return torch.minimum(dg.amin(1), a0), torch.maximum(dg.amax(1), a0)


class PointwiseSlopes:
    """The optimized slopes of one pointwise node for one backward pass (start node): theta [2, B, S, *shape]."""

    def __init__(self, curve: Curve, xl: torch.Tensor, xu: torch.Tensor, al: torch.Tensor, au: torch.Tensor, rows: int):
        # xl, xu: the reference interval [B, *shape]; al, au: CROWN's slopes there (the starting point)
        self.curve = curve
        a0 = torch.stack([al, -au])  # slopes of g on each side
        a_lo, a_hi = slope_range(curve, xl, xu, a0)
        scale = a_hi - a_lo
        theta0 = torch.where(scale > 0, (a0 - a_lo) / torch.where(scale > 0, scale, 1.0), 0.0).clamp(EDGE, 1 - EDGE)
        self.a_lo, self.scale = a_lo[:, :, None], scale[:, :, None]  # [2, B, 1, *shape]
        B = xl.shape[0]
        self.theta = theta0[:, :, None].expand(2, B, rows, *xl.shape[1:]).clone().requires_grad_(True)

    def clamp_(self) -> None:
        with torch.no_grad():
            self.theta.clamp_(EDGE, 1 - EDGE)

    def lines(self, xl, xu, concave, sec_a, sec_b):
        """(al, bl, au, bu) [B, S, *shape] on the current interval [xl, xu] ([B, *shape]); `concave`, `sec_a`,
        `sec_b` [2, B, *shape] from `concave_sides` / `secant_lines` on it (shared by every start node)."""
        a = self.a_lo + self.scale * self.theta  # [2, B, S, *shape]
        shape = a.shape
        conc = concave[:, :, None].expand(shape)
        free = ~conc
        b = sec_b[:, :, None].expand(shape)
        if bool(free.any()):
            lo = xl[None, :, None].expand(shape)[free]
            hi = xu[None, :, None].expand(shape)[free]
            sign = sides(xl)[:, :, None].expand(shape)[free]
            vals = exact_intercept(self.curve, a[free], lo, hi, sign)
            b = torch.where(free, torch.zeros(shape, dtype=F64).index_put((free.nonzero(as_tuple=True)), vals), b)
        a = torch.where(conc, sec_a[:, :, None].expand(shape), a)
        return a[0], b[0], -a[1], -b[1]
