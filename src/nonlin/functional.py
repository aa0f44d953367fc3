"""nn.functional-style API generated from the catalog: ``nonlin.functional.<name>(...)`` for every entry.

Signatures by kind:
- pointwise: ``f(x, **params, inplace=False)``; stochastic entries also take ``training=False`` and
  ``generator=None`` (and ``per_element=True``: one draw per element, or one per call). ``inplace=True`` is
  torch's: the result is written into ``x``, which is returned (under autograd a leaf that requires grad is
  refused, as torch does). It saves no memory: nonlin computes out of place and copies.
- gated: ``f(packed, **params, dim=-1, layout="gate_value")`` with packed ``[..., 2d]`` along ``dim``
  (layouts: `nonlin.spec.LAYOUTS`; gate first unless told), or ``f(gate, value, **params)``; kappa_swiglu
  also takes its router confidence ``c=``. torch's name ``glu`` packs value first (``F.glu``).
- normalizer: ``f(scores, dim=-1, mask=None, **params, dtype=None)``; mask is boolean, True = the key takes
  part; ``dtype`` casts the scores first (torch's); ``dim=None`` is torch's deprecated implicit choice.
  Stochastic normalizers (gumbel_softmax) also take ``generator=None`` and their noise as a tensor
  (``gumbels=``), drawn when not given.
- setwise: ``f(x, dim=-1, **params)``; the output's size along dim follows the entry's ``output_size``.

Names shared with torch.nn.functional (``leaky_relu``, ``softplus``, ``gelu``, ``hardtanh``, ``glu``, ...) also
take torch's argument names and positions, and `function(name)` of any borrowed name (``"Softshrink"``,
``"jax.nn.gelu"``) applies that library's defaults: see `nonlin.spec.Alias`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from nonlin import calling
from nonlin import catalog as _catalog  # noqa: F401  (registers the catalog)
from nonlin import route as _route
from nonlin.autograd import check_floating, compute_dtype, round_to
from nonlin.kernels import graph_ops
from nonlin.registry import convention, conventions, names, resolve, spec
from nonlin.route import run as apply  # functional -> route -> one implementation
from nonlin.spec import LAYOUTS, Alias, Kind, Spec


def _pointwise(s: Spec, x: torch.Tensor, training: bool, generator, per_element: bool, inplace: bool, params):
    check_floating("x", x)
    if not isinstance(inplace, bool):
        raise TypeError(f"{s.name}: inplace must be a bool; got {inplace!r}")
    if inplace:
        # torch's meaning: x holds the result and is returned. Where autograd records the call (x or a parameter
        # requires grad), the backward gets its own copy of the input and x takes on the result's history.
        recorded = torch.is_grad_enabled() and (
            x.requires_grad or any(isinstance(v, torch.Tensor) and v.requires_grad for v in params.values())
        )
        if recorded and x.is_leaf and x.requires_grad:
            raise RuntimeError(
                f"{s.name}: inplace=True on a leaf tensor that requires grad (torch refuses this too); "
                "pass inplace=False"
            )
        y = _pointwise(s, x.clone() if recorded else x, training, generator, per_element, False, params)
        if recorded:
            return x.copy_(y)
        with torch.no_grad():
            return x.copy_(y)
    if not params and not s.stochastic:  # the common call: the shared defaults (the route's per-call cache)
        return apply(s, s.forward, s.derivative, (x,), (), _route.defaults(s.name))
    # a call whose keywords are plain numbers, none transformed here, settles for them (`_route.settled_with`)
    plain = not s.stochastic and s.name not in calling.PRE_ARGS and s.name not in calling.POST_ARGS
    settle_as = tuple(params.items()) if plain and _route.plain_numbers(params) else None
    params = dict(params)
    calling.apply_pre(s, x, params)
    post = calling.take_post(s, x, params)
    p = s.resolve_params(params)
    if not s.stochastic:
        y = apply(s, s.forward, s.derivative, (x,), (), p, settle_as=settle_as)
    elif not training:
        y = apply(s, s.eval_forward, s.eval_derivative, (x,), (), p)
    else:
        shape = x.shape if per_element else ()
        u = torch.rand(shape, generator=generator, device=x.device, dtype=compute_dtype(x.dtype))
        y = apply(s, s.forward, s.derivative, (x,), (u,), p)
    return calling.apply_post(s, x, p, post, y)


_PACKING = {"gate_value": "[gate | value]", "value_gate": "[value | gate]", "interleaved": "gate, value alternating"}


def split_packed(
    name: str, packed: torch.Tensor, *, dim: int = -1, layout: str = "gate_value"
) -> tuple[torch.Tensor, torch.Tensor]:
    """[..., 2d, ...] along `dim` -> gate, value (views), as `layout` packs them (`nonlin.spec.LAYOUTS`)."""
    check_floating("packed", packed)
    if layout not in LAYOUTS:
        raise ValueError(f"{name}: layout={layout!r} is not one of {', '.join(LAYOUTS)}")
    if packed.dim() == 0:
        raise ValueError(f"{name}: packed input must have at least one dimension; got a 0-d tensor")
    if isinstance(dim, bool) or not isinstance(dim, int) or not -packed.dim() <= dim < packed.dim():
        raise ValueError(f"{name}: dim={dim!r} is out of range for packed input of shape {tuple(packed.shape)}")
    n = packed.shape[dim]
    if n % 2:
        where = "last dimension [..., 2d]" if dim in (-1, packed.dim() - 1) else f"size along dim={dim}"
        raise ValueError(
            f"{name}: packed input must have an even {where} (layout={layout!r}: {_PACKING[layout]}); "
            f"got shape {tuple(packed.shape)}"
        )
    d = n // 2
    # One split (chunk, or unbind) rather than two slices: autograd then assembles the packed gradient from the two
    # halves' (a concatenation), where two slices' gradients are zero-padded and added (+0 + -0 = +0: a gradient
    # that rounds to -0 came back as +0). (chunk: Tensor.split's Python wrapper cost ~2 µs a call)
    if layout == "interleaved":
        return packed.unflatten(dim, (d, 2)).unbind(dim % packed.dim() + 1)
    first, second = packed.chunk(2, dim)  # [..., d, ...] each
    return (first, second) if layout == "gate_value" else (second, first)


def _gated(s: Spec, args: tuple[torch.Tensor, ...], extra: dict[str, Any], dim: int, layout: str, params):
    packed = None
    if len(args) == 1:
        g, v = split_packed(s.name, args[0], dim=dim, layout=layout)
        if layout != "interleaved" and dim in (-1, args[0].dim() - 1):
            packed = (args[0], layout == "value_gate")  # the last dim's halves
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
    p = s.resolve_params({**params, **extra}) if params or extra else _route.defaults(s.name)
    return apply(s, s.forward, s.derivative, (g, v), tuple(extras), p, packed)


def _legacy_dim(s: Spec, ndim: int) -> int:
    """torch's implicit softmax dim (dim=None), deprecated there: 0 for 0-, 1- and 3-d input, else 1."""
    warnings.warn(
        f"{s.name}: dim=None is torch's deprecated implicit dimension choice; pass dim=X", UserWarning, stacklevel=4
    )
    return 0 if ndim in (0, 1, 3) else 1


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


def _normalizer(
    s: Spec,
    scores: torch.Tensor,
    dim: int | None,
    mask: torch.Tensor | None,
    dtype,
    params,
    extra=None,
    generator=None,
):
    if dtype is not None:
        if not isinstance(dtype, torch.dtype):
            raise TypeError(f"{s.name}: dtype must be a torch.dtype or None; got {dtype!r}")
        scores = scores.to(dtype)  # torch's dtype=: the input is cast before the operation
    if dim is None and isinstance(scores, torch.Tensor):
        dim = _legacy_dim(s, scores.dim())
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
    if scores.shape[dim] == 0:
        return scores.clone()  # nothing to normalise: the empty result, as torch.softmax gives
    cd = compute_dtype(scores.dtype)
    z = scores.to(cd).movedim(dim, -1)  # [..., n]
    keep = keep.movedim(dim, -1)
    # rows with at least one key; a -inf score (softmin: +inf) is a masked key, so a row of only those is a
    # fully masked one
    alive = (keep & (z != s.masking_score)).any(-1, keepdim=True)
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
    """The functional form of a catalog entry by canonical name, alias or borrowed name; a borrowed name
    ("Softshrink", "jax.nn.gelu") gives its library's defaults, argument names and positions."""
    canonical = resolve(name)
    record = convention(name)
    if record is None:
        return _FUNCTIONS[canonical]
    return _BORROWED[id(record)]


def _make(s: Spec) -> Callable[..., torch.Tensor]:
    if s.kind is Kind.POINTWISE:

        def f(
            x,
            *args,
            training: bool = False,
            generator: torch.Generator | None = None,
            per_element: bool = True,
            inplace: bool = False,
            **params,
        ):
            common = not (args or training) and inplace is False and generator is None
            if common and isinstance(x, torch.Tensor):
                if torch.compiler.is_compiling():
                    # (inside torch.compile: the graph's route, with as few guards as it can; never the settled
                    # routes' dict, on which dynamo would guard)
                    y = None if params else _route.graph_pointwise(s, x)
                else:
                    # the common call, on a route settled before (at the defaults, or at these keyword values)
                    y = _route.settled_with(s, x, params) if params else _route.settled(s, x)
                if y is not None:
                    return y
            if args:
                calling.bind(None, s, args, {})  # raises: nonlin's own names take parameters by keyword
            if not s.stochastic and (training or generator is not None):
                raise TypeError(f"{s.name} is deterministic: training= and generator= apply to stochastic entries only")
            return _pointwise(s, x, training, generator, per_element, inplace, params)

    elif s.kind is Kind.GATED:

        def f(*tensors, dim: int = -1, layout: str = "gate_value", **params):
            if (
                len(tensors) == 1
                and not params
                and type(dim) is int
                and dim == -1
                and not s.extra_inputs
                and isinstance(tensors[0], torch.Tensor)
            ):
                if torch.compiler.is_compiling():
                    y = _route.graph_packed(s, tensors[0], layout) if layout in _HALVES else None
                elif layout == "gate_value":
                    y = _route.settled_packed(s, tensors[0])  # the common call, on a route settled before
                else:
                    y = None
                if y is not None:
                    return y
            extra = {k: params.pop(k) for k in list(params) if k in s.extra_inputs}
            return _gated(s, tensors, extra, dim, layout, params)

    elif s.kind is Kind.SETWISE:

        def f(x, dim: int = -1, **params):
            return _setwise(s, x, dim, params)

    else:

        def f(scores, dim: int | None = -1, mask: torch.Tensor | None = None, *, dtype=None, **params):
            # Extra tensor inputs (a second score set; a stochastic entry's noise, drawn when not given) and,
            # for stochastic entries, the generator.
            generator = params.pop("generator", None) if s.stochastic else None
            extra = {k: params.pop(k) for k in list(params) if k in s.extra_inputs}
            extra = {k: v for k, v in extra.items() if v is not None}
            if not s.stochastic and set(extra) != set(s.extra_inputs):
                missing = sorted(set(s.extra_inputs) - set(extra))
                raise TypeError(f"{s.name}: missing required tensor input {missing[0]!r}")
            return _normalizer(s, scores, dim, mask, dtype, params, extra, generator)

    f.__name__ = f.__qualname__ = s.name
    f.__doc__ = _doc(s)
    return f


def _doc(s: Spec) -> str:
    params = "\n".join(f"    {p.name} = {p.default!r}: {p.doc}" for p in s.params) or "    (none)"
    confirmed = "" if s.confirmed else "\n\nFormula or defaults NOT confirmed against the source: " + s.source
    return f"{s.summary}\n\n    {s.formula}\n\nParameters:\n{params}{confirmed}"


_BOUND_MAX = 256  # answers kept per borrowed name (a parameter sweep binds afresh past them)


def _bound_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple | None:
    """The key of a call's parameters for a borrowed name's remembered bind answers, where every value is a
    nonzero float (an int equals its float, and -0.0 equals 0.0, as keys; bind's answer keeps the value given),
    else None."""
    for v in (*args, *kwargs.values()):
        if type(v) is not float or not v:
            return None
    return args, tuple(kwargs.items())


_HALVES = ("gate_value", "value_gate")  # the packings of a gated input's last dim in two halves


def _plain_binding(record: Alias, s: Spec) -> tuple[str, dict[str, Any], tuple[Spec, bool] | None]:
    """bind's answer for a borrowed name's call on its tensor alone: (entry, keywords, and where those are the
    entry's defaults less a packing of the last dim's halves, (the entry, whether the value half is first))."""
    entry, kw = calling.bind(record, s, (), {})
    # upstream defaults equal to the entry's own: the call with no parameters (the fast one), less a gated
    # upstream's packing, a call option (glu's [value | gate]: torch, JAX, Keras)
    target = spec(entry)
    layout = {"layout": kw["layout"]} if "layout" in kw else {}
    values = {k: v for k, v in kw.items() if k != "layout"}
    if (
        target.kind in (Kind.POINTWISE, Kind.GATED)
        and set(values) <= {p.name for p in target.params}  # no other call option (dim)
        and target.resolve_params(values) == target.defaults()
    ):
        packing = layout.get("layout", "gate_value")
        # (the base function's own test: no extra inputs; a packing of the last dim's halves)
        if target.kind is Kind.POINTWISE or (not target.extra_inputs and packing in _HALVES):
            return entry, layout, (target, packing == "value_gate")
        return entry, layout, None
    return entry, kw, None


_RECORDS: dict[tuple[str, str], tuple[Alias, Spec]] = {}  # (library, name) -> a borrowed name's record, entry


@graph_ops.constant_result
def _graph_target(library: str, name: str, ndim: int) -> tuple[str, str] | None:
    """Inside torch.compile, the call of `library`'s `name` on one tensor of `ndim` dims: (the entry, the packing
    of its halves) where the call is the entry's at its defaults, else None. Dynamo runs this as it is (a
    constant for the graph, no guard on what it reads) and guards on its arguments: the name's own strings, so
    that a graph traced through one borrowed form never serves another (they share their code)."""
    record, s = _RECORDS[library, name]
    if record.ndim and ndim not in record.ndim:
        return None  # (the general path raises check_ndim's error)
    try:
        _, _, common = _plain_binding(record, s)
    except (TypeError, ValueError):
        return None  # (a name that takes required arguments: the general path raises bind's error, traced)
    return None if common is None else (common[0].name, _HALVES[common[1]])


def _borrow(record: Alias, s: Spec) -> Callable[..., torch.Tensor]:
    """The functional form of `s` under a borrowed name: the upstream's positions, names and defaults."""
    n_inputs = 2 if s.kind is Kind.GATED else 1
    _RECORDS[record.library, record.names[0]] = record, s

    plain: list[tuple[str, dict[str, Any]]] = []  # bind's answer for a call with no arguments, once known
    # The call with one tensor and no arguments, once `plain` says it takes the entry's defaults: the settled-route
    # lookup the base function tries first, made here (each layer of Python costs a small call about a microsecond:
    # relu's borrowed form added 4 µs to torch's 9 at 64x512 on a loaded 2-core host, 1 with this)
    common: list[tuple[Spec, bool]] = []  # (the entry, whether its packed halves are [value | gate])
    bound: dict[tuple, tuple[str, dict[str, Any], Spec]] = {}  # bind's answers (and the entry) by `_bound_key`

    def f(*args, **kwargs):
        # (`common`, `plain` and `bound` are read outside torch.compile only: a graph traced while one was empty
        # would guard on that, and compile again once an eager call had filled it)
        compiling = torch.compiler.is_compiling()
        if compiling and len(args) == 1 and not kwargs and isinstance(args[0], torch.Tensor):
            target = _graph_target(record.library, record.names[0], args[0].dim())
            if target is not None:
                entry, packing = target
                return _BASE[entry](args[0]) if packing == "gate_value" else _BASE[entry](args[0], layout=packing)
        if not compiling and common and len(args) == 1 and not kwargs and isinstance(args[0], torch.Tensor):
            calling.check_ndim(record, args[0])
            target, value_first = common[0]
            if target.kind is Kind.POINTWISE:
                y = _route.settled(target, args[0])
            else:
                y = _route.settled_packed(target, args[0], value_first)
            if y is not None:
                return y
        k = 1  # the input comes first (a non-tensor there gets the input check's error); a second tensor is a value
        while k < min(len(args), n_inputs) and isinstance(args[k], torch.Tensor):
            k += 1
        calling.check_ndim(record, args[0])
        if k < len(args) or kwargs:
            # A call with parameters (leaky_relu(x, 0.2), LeakyReLU(0.2)'s each call): bind's answer for the same
            # plain numbers, once known, then the settled-route lookup of those values (binding had cost 2 us a call)
            key = None if compiling else _bound_key(args[k:], kwargs)
            known = bound.get(key) if key is not None else None
            if known is None:
                entry, kw = calling.bind(record, s, args[k:], kwargs)
                known = entry, kw, spec(entry)
                if key is not None and len(bound) < _BOUND_MAX:
                    bound[key] = known
            entry, kw, target = known
            if not compiling and k == 1 and target.kind is Kind.POINTWISE and isinstance(args[0], torch.Tensor):
                y = _route.settled_with(target, args[0], kw)
                if y is not None:
                    return y
            return _BASE[entry](*args[:k], **kw)
        if not compiling:
            if not plain:
                entry, kw, target = _plain_binding(record, s)
                if target is not None:
                    common.append(target)
                plain.append((entry, kw))
            entry, kw = plain[0]
        else:
            entry, kw = calling.bind(record, s, args[k:], kwargs)
        return _BASE[entry](*args[:k], **kw)

    f.__name__ = f.__qualname__ = record.names[0]
    f.__doc__ = f"{calling.describe(record)}\n\n{_doc(s)}"
    return f


_BASE: dict[str, Callable[..., torch.Tensor]] = {n: _make(spec(n)) for n in names()}
_BORROWED: dict[int, Callable[..., torch.Tensor]] = {}
for _name in names():
    for _record in spec(_name).borrowed:
        _BORROWED[id(_record)] = _borrow(_record, spec(_name))
# A canonical name that is also a library's (torch's leaky_relu) takes that library's arguments too.
_FUNCTIONS: dict[str, Callable[..., torch.Tensor]] = {
    n: _BORROWED[id(convention(n))] if convention(n) is not None else f for n, f in _BASE.items()
}
# torch.nn.functional's names nonlin borrows (softshrink, logsigmoid, relu_, ...) are attributes too, so
# `nonlin.functional` can stand in for `torch.nn.functional` in the code that calls them.
_TORCH_NAMES = {
    key: _BORROWED[id(r)]
    for key, r in conventions().items()
    if r.library == "torch" and key.isidentifier() and key not in _FUNCTIONS and key in r.names
}
globals().update(_FUNCTIONS)
globals().update(_TORCH_NAMES)
__all__ = ["function", "split_packed", *_FUNCTIONS, *_TORCH_NAMES]
