"""Eager evaluation of a spec on tensors: input checks, compute dtype, and autograd with the declared derivative.

The backward of a pointwise or gated entry is its declared derivative (stable in the tails, where the
autograd of a forward formula often cancels), not autograd through the forward. Gradients of learnable
parameters and extra inputs are autograd of the forward, recomputed in backward, so broadcasting
reductions are exact and nothing but the inputs is saved.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from nonlin.ops import TORCH
from nonlin.spec import Spec

_FLOATING = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype the eager path computes in: float64 for every input dtype.

    fp32 inputs are computed in fp64 so that composite formulas (erfc of a scaled argument, products of
    gates) round to within half an ULP of float32 instead of accumulating several. Half types too
    (nonlin.accuracy, issue #3): in fp32 the double rounding fp32 -> bf16/fp16 misrounds the hard cases
    (x sigma(x) ~ x/2 at subnormal x lands on a midpoint), and fp32 intermediates underflow where bf16
    results are still representable; in fp64 the halves are correctly rounded (>= 99.9%). The fused
    kernels (nonlin.kernels) trade this for speed and the accuracy module measures both.
    """
    return torch.float64


def round_to(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """`t` correctly rounded to `dtype` (nearest, ties to even).

    torch converts float64 to bfloat16 and float16 through float32, rounding twice (1 + 2^-8 + 2^-30
    becomes 1, not 1 + 2^-7). Rounding to float32 *to odd* first (an inexact result keeps its last bit set,
    so it never lands on a half-type midpoint) makes the second rounding the correct one. Inside torch.compile
    `_settle_midpoints` gives the same rounded results in operations inductor vectorises; eagerly it takes
    twice the time of `float32_to_odd` (76 against 35 us at 64 elements: three times the operations).
    """
    if t.dtype != torch.float64 or dtype not in (torch.bfloat16, torch.float16):
        return t.to(dtype)
    if torch.compiler.is_compiling():
        return _settle_midpoints(t, dtype).to(dtype)
    return float32_to_odd(t).to(dtype)


# |y| times _STEP is above half a float32 ULP of y and below 1.5 (y's significand in [1, 2)); from 2^-125 down
# (the ULP is 2^-149 there) _STEP_FLOOR is: y plus or minus the step rounds to y's neighbour
_STEP, _STEP_FLOOR = 2.0**-24 * (1 + 2.0**-23), 0.75 * 2.0**-149
# per half type: its significand bits, its smallest normal, and the spacing of its subnormals
_HALF_GRID = {torch.bfloat16: (8, 2.0**-126, 2.0**-133), torch.float16: (11, 2.0**-14, 2.0**-24)}


def _settle_midpoints(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """float64 `t` to float32 for a rounding to `dtype` after it, as `float32_to_odd` gives it for that rounding:
    the nearest float32 y, or where y is a `dtype` midpoint that `t` is not on, y's neighbour toward `t` (the
    double rounding misrounds only there: a float32 y off the midpoints has each of them on the side `t` is,
    as one between would be nearer to `t`). Comparisons, arithmetic and conversions only, so that inductor
    vectorises it where the eager formula is traced into a compiled model (`float32_to_odd`'s bit test and
    nextafter run element by element there: 5 ns per element, a bfloat16 kappa_swiglu's compiled forward 10x
    its direct call)."""
    y = t.to(torch.float32)
    y64 = y.to(torch.float64)
    step = torch.clamp_min(y64.abs() * _STEP, _STEP_FLOOR)
    # y + (its neighbour - y) is the neighbour exactly; autograd sees the cast's identity
    neighbour = (y64 + torch.where(t > y64, step, -step)).to(torch.float32)
    return torch.where(_is_midpoint(y, dtype) & (y64 != t), y + (neighbour - y).detach(), y)


def _is_midpoint(y: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Whether float32 `y` lies halfway between two neighbouring `dtype` values. Not by converting: inside a
    compiled kernel inductor keeps a half-type value in float32, so y.to(dtype).to(float32) is y. In the
    type's normal range a midpoint has one significant bit more than the type and its last one set (Veltkamp's
    split rounds to a given number of bits exactly, in float32 arithmetic without contraction); among its
    subnormals it is an odd multiple of half their spacing. Beyond float16's range the test may answer yes for
    a value that rounds to infinity either way."""
    bits, smallest_normal, spacing = _HALF_GRID[dtype]
    a = y.abs()
    a_scaled = torch.where(a > 2.0**100, a * 2.0**-64, a)  # c a below stays finite; the bit count is the same
    normal = _fits_in(a_scaled, bits + 1) & ~_fits_in(a_scaled, bits)
    k = (a * 2.0**67) * (2.0**-67 * 2.0 / spacing)  # exact: powers of two (2^134 is beyond float32), k < 2^11
    odd = (k == torch.floor(k)) & (k - 2.0 * torch.floor(0.5 * k) == 1.0)
    return torch.where(a < smallest_normal, odd, normal)


def _fits_in(a: torch.Tensor, bits: int) -> torch.Tensor:
    """Whether float32 `a` (normal, c a finite) has at most `bits` significant bits: Veltkamp's split with
    c = 2^(24 - bits) + 1 gives a rounded to `bits` bits."""
    g = a * float(2 ** (24 - bits) + 1)
    return g + (a - g) == a


def float32_to_odd(t: torch.Tensor) -> torch.Tensor:
    """float64 `t` rounded to float32 *to odd*: an inexact result is the neighbour whose last bit is set, so a
    later rounding to fewer bits (a half type, or a product's) never lands on a midpoint that `t` is not on."""
    y = t.to(torch.float32)
    inexact = (y.to(torch.float64) != t) & torch.isfinite(y)
    even = (y.view(torch.int32) & 1) == 0
    toward = torch.where(t > y.to(torch.float64), torch.inf, -torch.inf).to(torch.float32)
    # y + (its neighbour - y) is the neighbour exactly; autograd sees the cast's identity, not nextafter
    # (torch 2.11 has no derivative for nextafter and raises in backward)
    step = torch.nextafter(y.detach(), toward) - y.detach()
    return torch.where(inexact & even, y + step, y)


def check_floating(arg: str, x: Any) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{arg} must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in _FLOATING:
        raise TypeError(f"{arg} has dtype {x.dtype}; expected a floating dtype (float64, float32, float16 or bfloat16)")
    return x


def _split(params: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...], tuple[torch.Tensor, ...]]:
    floats = {k: v for k, v in params.items() if not isinstance(v, torch.Tensor)}
    tensor_names = tuple(k for k, v in params.items() if isinstance(v, torch.Tensor))
    return floats, tensor_names, tuple(params[k] for k in tensor_names)


class _SpecFunction(torch.autograd.Function):
    """y = body(inputs..., params...) with backward = declared derivative for the main inputs.

    `n_main` inputs (x, or g and v) get the declared derivative; the rest (extra inputs, tensor
    parameters) get autograd of the forward body, recomputed.
    """

    @staticmethod
    def forward(ctx, spec, body, derivative, n_main, floats, tensor_names, *tensors):
        out_dtype = tensors[0].dtype
        cd = compute_dtype(out_dtype)
        ctx.rules, ctx.body, ctx.derivative = spec.param_rules, body, derivative
        ctx.n_main, ctx.floats, ctx.tensor_names = n_main, floats, tensor_names
        ctx.save_for_backward(*tensors)
        args, params = _unpack([t.to(cd) for t in tensors], n_main, floats, tensor_names)
        return round_to(body(TORCH, *args, **params), out_dtype)

    @staticmethod
    def backward(ctx, grad_out):
        tensors = ctx.saved_tensors
        cd = compute_dtype(tensors[0].dtype)
        go = grad_out.to(cd)
        up = [t.to(cd) for t in tensors]
        args, params = _unpack(up, ctx.n_main, ctx.floats, ctx.tensor_names)
        grads: list[torch.Tensor | None] = [None] * len(tensors)
        needs = ctx.needs_input_grad[6:]
        if any(needs[: ctx.n_main]):
            d = ctx.derivative(TORCH, *args, **params)
            d = d if isinstance(d, tuple) else (d,)
            for i in range(ctx.n_main):
                if needs[i]:
                    grads[i] = round_to(_sum_to(go * d[i], tensors[i].shape), tensors[i].dtype)
        rest = [i for i in range(ctx.n_main, len(tensors)) if needs[i]]
        rules = dict(ctx.rules)
        first_param = len(tensors) - len(ctx.tensor_names)
        for i in [i for i in rest if i >= first_param and ctx.tensor_names[i - first_param] in rules]:
            d = rules[ctx.tensor_names[i - first_param]](TORCH, *args, **params)
            grads[i] = round_to(_sum_to(go * d, tensors[i].shape), tensors[i].dtype)
            rest.remove(i)
        if rest:
            for i, g in zip(rest, _body_gradients(ctx, up, rest, go), strict=True):
                grads[i] = torch.zeros_like(tensors[i]) if g is None else round_to(g, tensors[i].dtype)
        return (None, None, None, None, None, None, *grads)


def _body_gradients(ctx, up: list[torch.Tensor], rest: list[int], go: torch.Tensor) -> tuple:
    """The gradients of the entry's body for the inputs `rest` (extra inputs, parameters without a declared rule),
    by autograd of the forward recomputed. Inside torch.compile by torch.func.vjp, which dynamo traces (the
    caller's compile traces this backward with the forward; torch.autograd.grad there is a graph break);
    eagerly by torch.autograd.grad, which costs less per call (swish with a tensor beta at 64 elements, forward
    and backward: 0.81 ms against 1.10 with vjp)."""

    def body_of(*varied):
        inputs = list(up)
        for i, u in zip(rest, varied, strict=True):
            inputs[i] = u
        a2, p2 = _unpack(inputs, ctx.n_main, ctx.floats, ctx.tensor_names)
        return ctx.body(TORCH, *a2, **p2)

    if torch.compiler.is_compiling():
        return torch.func.vjp(body_of, *(up[i] for i in rest))[1](go)
    with torch.enable_grad():
        leaves = [up[i].detach().requires_grad_() for i in rest]
        return torch.autograd.grad(body_of(*leaves), leaves, go, allow_unused=True)


def _sum_to(t: torch.Tensor, shape: torch.Size) -> torch.Tensor:
    """Reduce a broadcast gradient back to `shape`."""
    if t.shape == shape:
        return t
    lead = t.dim() - len(shape)
    t = t.sum(dim=tuple(range(lead))) if lead > 0 else t
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and t.shape[i] != 1)
    return t.sum(dim=dims, keepdim=True) if dims else t


def _unpack(tensors, n_main, floats, tensor_names):
    n_extra = len(tensors) - n_main - len(tensor_names)
    args = list(tensors[: n_main + n_extra])
    params = dict(floats)
    params.update(zip(tensor_names, tensors[n_main + n_extra :], strict=True))
    return args, params


def apply(
    spec: Spec,
    body,
    derivative,
    main: tuple[torch.Tensor, ...],
    extra: tuple[torch.Tensor, ...] = (),
    params: Mapping[str, Any] | None = None,
) -> torch.Tensor:
    """Evaluate `body` on tensors with the declared `derivative` for the `main` inputs, on the eager path
    (`nonlin.route` decides which calls come here).

    Float params stay Python floats (so bodies may branch on them); tensor params are learnable.
    """
    floats, tensor_names, tensor_params = _split(params or {})
    return _SpecFunction.apply(spec, body, derivative, len(main), floats, tensor_names, *main, *extra, *tensor_params)
