"""nn.functional-style API generated from the catalog: ``nonlin.functional.<name>(...)`` for every entry.

Signatures by kind:
- pointwise: ``f(x, **params)``; stochastic entries also take ``training=False`` and ``generator=None``
  (and ``per_element=True``: one draw per element, or one per call).
- gated: ``f(packed, **params)`` with packed ``[..., 2d] = [gate | value]`` (gate first), or
  ``f(gate, value, **params)``; kappa_swiglu also takes its router confidence ``c=``.
- normalizer: ``f(scores, dim=-1, mask=None, **params)``; mask is boolean, True = the key takes part.
  Stochastic normalizers (gumbel_softmax) also take ``generator=None`` and their noise as a tensor
  (``gumbels=``), drawn when not given.
- setwise: ``f(x, dim=-1, **params)``; the output's size along dim follows the entry's ``output_size``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from nonlin import catalog as _catalog  # noqa: F401  (registers the catalog)
from nonlin.autograd import apply, check_floating, compute_dtype, round_to
from nonlin.registry import names, resolve, spec
from nonlin.spec import Kind, Spec


def _pointwise(s: Spec, x: torch.Tensor, training: bool, generator, per_element: bool, params):
    check_floating("x", x)
    p = s.resolve_params(params)
    if not s.stochastic:
        return apply(s, s.forward, s.derivative, (x,), (), p)
    if not training:
        return apply(s, s.eval_forward, s.eval_derivative, (x,), (), p)
    shape = x.shape if per_element else ()
    u = torch.rand(shape, generator=generator, device=x.device, dtype=compute_dtype(x.dtype))
    return apply(s, s.forward, s.derivative, (x,), (u,), p)


def split_packed(name: str, packed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[..., 2d] -> gate [..., d], value [..., d] (gate first)."""
    check_floating("packed", packed)
    if packed.dim() == 0 or packed.shape[-1] % 2:
        raise ValueError(
            f"{name}: packed input must have an even last dimension [..., 2d] = [gate | value]; "
            f"got shape {tuple(packed.shape)}"
        )
    d = packed.shape[-1] // 2
    return packed[..., :d], packed[..., d:]


def _gated(s: Spec, args: tuple[torch.Tensor, ...], extra: dict[str, Any], params):
    if len(args) == 1:
        g, v = split_packed(s.name, args[0])
    elif len(args) == 2:
        g, v = check_floating("gate", args[0]), check_floating("value", args[1])
        if g.shape != v.shape:
            raise ValueError(
                f"{s.name}: gate and value must have the same shape; got gate {tuple(g.shape)} "
                f"and value {tuple(v.shape)}"
            )
        if g.dtype != v.dtype:
            raise TypeError(f"{s.name}: gate and value must have the same dtype; got {g.dtype} and {v.dtype}")
    else:
        raise TypeError(f"{s.name} takes one packed tensor or (gate, value); got {len(args)} tensors")
    extras = []
    for name in s.extra_inputs:
        if name not in extra:
            raise TypeError(f"{s.name}: missing required tensor input {name!r}")
        t = check_floating(name, extra.pop(name))
        try:
            torch.broadcast_shapes(t.shape, g.shape)
        except RuntimeError:
            raise ValueError(
                f"{s.name}: {name} of shape {tuple(t.shape)} does not broadcast to the gate's shape {tuple(g.shape)}"
            ) from None
        extras.append(t.to(g.dtype))
    p = s.resolve_params({**params, **extra})
    return apply(s, s.forward, s.derivative, (g, v), tuple(extras), p)


def _check_dim(s: Spec, arg: str, x: torch.Tensor, dim: int) -> None:
    check_floating(arg, x)
    if x.dim() == 0:
        raise ValueError(f"{s.name}: {arg} must have at least one dimension; got a 0-d tensor")
    if not isinstance(dim, int) or isinstance(dim, bool) or not -x.dim() <= dim < x.dim():
        raise ValueError(f"{s.name}: dim={dim!r} is out of range for {arg} of shape {tuple(x.shape)}")


def _along(t: torch.Tensor, like: torch.Tensor, dim: int) -> torch.Tensor:
    """A tensor parameter or input broadcast-aligned with `like`, then `dim` moved last as `like`'s is."""
    if t.dim() < like.dim():
        t = t.reshape((1,) * (like.dim() - t.dim()) + tuple(t.shape))
    return t.movedim(dim, -1)


def _extras(s: Spec, x: torch.Tensor, dim: int, extra: dict[str, Any]) -> dict[str, torch.Tensor]:
    out = {}
    for name, t in extra.items():
        t = check_floating(name, t)
        if t.shape != x.shape:
            raise ValueError(f"{s.name}: {name} must have the input's shape {tuple(x.shape)}; got {tuple(t.shape)}")
        out[name] = t.to(compute_dtype(x.dtype)).movedim(dim, -1)
    return out


def _tensor_params(p: dict[str, Any], x: torch.Tensor, dim: int) -> dict[str, Any]:
    cd = compute_dtype(x.dtype)
    return {k: _along(v.to(cd), x, dim) if isinstance(v, torch.Tensor) else v for k, v in p.items()}


def _normalizer(s: Spec, scores: torch.Tensor, dim: int, mask: torch.Tensor | None, params, extra=None, generator=None):
    _check_dim(s, "scores", scores, dim)
    p = _tensor_params(s.resolve_params(params), scores, dim)
    p.update(_extras(s, scores, dim, extra or {}))
    if s.stochastic:  # the noise not given as a tensor is drawn by the implementation
        p["generator"] = generator
    if mask is None:
        keep = torch.ones_like(scores, dtype=torch.bool)
    else:
        if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
            got = mask.dtype if isinstance(mask, torch.Tensor) else type(mask).__name__
            raise TypeError(f"{s.name}: mask must be a bool tensor (True = the key takes part); got {got}")
        try:
            shape = torch.broadcast_shapes(mask.shape, scores.shape)
        except RuntimeError:
            shape = None
        if shape != scores.shape:
            raise ValueError(
                f"{s.name}: mask of shape {tuple(mask.shape)} does not broadcast to scores of shape "
                f"{tuple(scores.shape)}"
            )
        keep = mask.expand(scores.shape)
    cd = compute_dtype(scores.dtype)
    z = scores.to(cd).movedim(dim, -1)  # [..., n]
    keep = keep.movedim(dim, -1)
    alive = keep.any(-1, keepdim=True)  # rows with at least one key
    # A fully masked row is computed as an unmasked row of zeros and then zeroed, so neither the value
    # nor the gradient ever sees -inf - (-inf).
    z = torch.where(alive, z, 0.0)
    w = s.torch_impl(z, keep | ~alive, **p)
    w = torch.where(alive, w, s.masked_value)
    return round_to(w.movedim(-1, dim), scores.dtype)


def _setwise(s: Spec, x: torch.Tensor, dim: int, params):
    _check_dim(s, "x", x, dim)
    p = _tensor_params(s.resolve_params(params), x, dim)
    y = s.torch_impl(x.to(compute_dtype(x.dtype)).movedim(dim, -1), **p)  # [..., m]
    if not p.get("keepdim", True):
        return round_to(y.squeeze(-1), x.dtype)
    return round_to(y.movedim(-1, dim), x.dtype)


def function(name: str) -> Callable[..., torch.Tensor]:
    """The functional form of a catalog entry (canonical name or alias)."""
    return _FUNCTIONS[resolve(name)]


def _make(s: Spec) -> Callable[..., torch.Tensor]:
    if s.kind is Kind.POINTWISE:

        def f(
            x,
            *,
            training: bool = False,
            generator: torch.Generator | None = None,
            per_element: bool = True,
            **params,
        ):
            if not s.stochastic and (training or generator is not None):
                raise TypeError(f"{s.name} is deterministic: training= and generator= apply to stochastic entries only")
            return _pointwise(s, x, training, generator, per_element, params)

    elif s.kind is Kind.GATED:

        def f(*tensors, **params):
            extra = {k: params.pop(k) for k in list(params) if k in s.extra_inputs}
            return _gated(s, tensors, extra, params)

    elif s.kind is Kind.SETWISE:

        def f(x, dim: int = -1, **params):
            return _setwise(s, x, dim, params)

    else:

        def f(scores, dim: int = -1, mask: torch.Tensor | None = None, **params):
            # Extra tensor inputs (a second score set; a stochastic entry's noise, drawn when not given) and,
            # for stochastic entries, the generator.
            generator = params.pop("generator", None) if s.stochastic else None
            extra = {k: params.pop(k) for k in list(params) if k in s.extra_inputs}
            extra = {k: v for k, v in extra.items() if v is not None}
            if not s.stochastic and set(extra) != set(s.extra_inputs):
                missing = sorted(set(s.extra_inputs) - set(extra))
                raise TypeError(f"{s.name}: missing required tensor input {missing[0]!r}")
            return _normalizer(s, scores, dim, mask, params, extra, generator)

    f.__name__ = f.__qualname__ = s.name
    f.__doc__ = _doc(s)
    return f


def _doc(s: Spec) -> str:
    params = "\n".join(f"    {p.name} = {p.default!r}: {p.doc}" for p in s.params) or "    (none)"
    confirmed = "" if s.confirmed else "\n\nFormula or defaults NOT confirmed against the source: " + s.source
    return f"{s.summary}\n\n    {s.formula}\n\nParameters:\n{params}{confirmed}"


_FUNCTIONS: dict[str, Callable[..., torch.Tensor]] = {n: _make(spec(n)) for n in names()}
globals().update(_FUNCTIONS)
__all__ = ["function", "split_packed", *_FUNCTIONS]
