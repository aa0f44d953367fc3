"""alpha-CROWN's pointwise relaxations: lines whose slopes are optimized and whose intercepts stay exact.

Every line is written for g = sign * f (sign +1: a lower bound of f; -1: an upper bound, negated), so both
sides are one computation. Per element and side, with theta in [0, 1]:
- g concave over the current [l, u] (one region; affine pieces count): the secant, the best lower bound of
  g pointwise, with no parameter (ReLU's upper line; both lines of a stable ReLU);
- g convex and smooth over the reference interval: the tangent at l + theta (u - l), sound on the whole
  convex piece, with no search for its intercept;
- elsewhere (kinks, intervals across an inflection): the slope a = a_lo + (a_hi - a_lo) theta, [a_lo, a_hi]
  the range of g' over the reference interval (a slope outside it is dominated; ReLU's theta is
  auto_LiRPA's alpha), with extremum.py's exact minimum of g(x) - a x as intercept. That intercept is
  differentiable in a (envelope theorem: -argmin) and in the ends (h'(l) where the minimum is at l, h'(u)
  where it is at u), so the bounds of later layers are optimized through the intermediate ones.
Any theta gives a sound line.
"""

from __future__ import annotations

import math

import torch

from nonlin.verify.curve import CONCAVE, CONVEX, Curve
from nonlin.verify.extremum import lower_intercept, margin
from nonlin.verify.pointwise import _region

F64 = torch.float64
_SLOPE_SAMPLES = torch.linspace(0.0, 1.0, 9, dtype=F64)
# theta stays this far inside [0, 1]: at the end slopes of a piecewise-affine f (ReLU's 0 and 1, where CROWN
# starts) the minimum of f(x) - a x is a whole piece, and the argmin, hence the gradient, would be arbitrary
EDGE = 1e-9


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


class _Tangent(torch.autograd.Function):
    """The tangent of g = sign * f at t, (slope, intercept) with extremum.py's margin for the reach xmax: a
    sound lower bound of g wherever g is convex around t. The gradient in t uses g'' by a central difference."""

    @staticmethod
    def forward(ctx, t, sign, xmax, curve):
        t = t.detach()
        g, a = sign * curve.f(t), sign * curve.df(t)
        b = g - a * t - margin(g.abs(), a, xmax)
        ctx.save_for_backward(t, sign)
        ctx.curve = curve
        return a, b.nan_to_num(nan=-math.inf, posinf=math.inf, neginf=-math.inf)

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        t, sign = ctx.saved_tensors
        h = 2.0**-17 * (1 + t.abs())
        g2 = sign * (ctx.curve.df(t + h) - ctx.curve.df(t - h)) / (2 * h)
        g2 = g2.nan_to_num(0.0, 0.0, 0.0)
        return (grad_a - grad_b * t) * g2, None, None, None


class PointwiseSlopes:
    """The optimized lines of one pointwise node for one backward pass (start node): theta [2, B, S, *shape].

    Per element and side: the secant where g is concave on the current interval; the tangent at
    t = l + theta (u - l) where g is convex and smooth on the reference interval [l, u] (no search for the
    intercept); elsewhere (kinks, several regions) the slope a_lo + theta (a_hi - a_lo) with its exact intercept.
    """

    def __init__(self, curve: Curve, xl: torch.Tensor, xu: torch.Tensor, al: torch.Tensor, au: torch.Tensor, rows: int):
        # xl, xu: the reference interval [B, *shape]; al, au: CROWN's slopes there (the starting point)
        self.curve = curve
        a0 = torch.stack([al, -au])  # slopes of g on each side
        a_lo, a_hi = slope_range(curve, xl, xu, a0)
        scale = a_hi - a_lo
        theta0 = torch.where(scale > 0, (a0 - a_lo) / torch.where(scale > 0, scale, 1.0), 0.0).clamp(EDGE, 1 - EDGE)
        self.a_lo, self.scale = a_lo[:, :, None], scale[:, :, None]  # [2, B, 1, *shape]
        # tangent elements: g convex in one region (the concave side of f), and g' without a jump on the samples
        convex_g = concave_sides(curve, xl, xu).flip(0) & ~concave_sides(curve, xl, xu)
        t = xl[None] + (xu - xl)[None] * _SLOPE_SAMPLES.reshape(-1, *([1] * xl.dim()))
        dg = sides(xl)[:, None] * curve.df(t).nan_to_num(0.0, 0.0, 0.0)[None]  # [2, 9, *shape]
        smooth = dg.diff(dim=1).abs().amax(1) <= 0.5 * (dg.amax(1) - dg.amin(1))
        self.tangent = convex_g & smooth & (xu > xl)[None]
        self.smooth = smooth[:, :, None]  # smooth elements (tangents, and slopes across regions) move slower
        theta0 = torch.where(self.tangent, 0.5, theta0)  # CROWN's lower line on a convex piece: the midpoint tangent
        self.t_lo, self.t_w = xl[:, None], (xu - xl)[:, None]  # [B, 1, *shape]
        self.xmax = torch.maximum(xl.abs(), xu.abs())[:, None]
        B = xl.shape[0]
        # two tensors, one for the smooth elements and one for the others (kinks), each with its learning rate
        theta0 = theta0[:, :, None].expand(2, B, rows, *xl.shape[1:])
        self.theta_slope = theta0.clone().requires_grad_(True)
        self.theta_tangent = theta0.clone().requires_grad_(True)

    def clamp_(self) -> None:
        with torch.no_grad():
            self.theta_slope.clamp_(EDGE, 1 - EDGE)
            self.theta_tangent.clamp_(EDGE, 1 - EDGE)

    def lines(self, xl, xu, concave, sec_a, sec_b):
        """(al, bl, au, bu) [B, S, *shape] on the current interval [xl, xu] ([B, *shape]); `concave`, `sec_a`,
        `sec_b` [2, B, *shape] from `concave_sides` / `secant_lines` on it (shared by every start node)."""
        shape = self.theta_slope.shape
        conc = concave[:, :, None].expand(shape)
        tan = self.tangent[:, :, None].expand(shape) & ~conc
        free = ~conc & ~tan
        theta = torch.where(self.smooth, self.theta_tangent, self.theta_slope)
        a = torch.where(conc, sec_a[:, :, None].expand(shape), self.a_lo + self.scale * theta)
        b = sec_b[:, :, None].expand(shape)
        where = free.nonzero(as_tuple=True)
        if len(where[0]):
            lo = xl[None, :, None].expand(shape)[where]
            hi = xu[None, :, None].expand(shape)[where]
            sign = sides(xl)[:, :, None].expand(shape)[where]
            vals = exact_intercept(self.curve, a[where], lo, hi, sign)
            b = torch.where(free, torch.zeros(shape, dtype=F64).index_put(where, vals), b)
        where = tan.nonzero(as_tuple=True)
        if len(where[0]):
            t = (self.t_lo[None] + self.t_w[None] * self.theta_tangent)[where]
            sign = sides(xl)[:, :, None].expand(shape)[where]
            ta, tb = _Tangent.apply(t, sign, self.xmax[None].expand(shape)[where], self.curve)
            zero = torch.zeros(shape, dtype=F64)
            a = torch.where(tan, zero.index_put(where, ta), a)
            b = torch.where(tan, zero.index_put(where, tb), b)
        return a[0], b[0], -a[1], -b[1]
