"""Calling conventions: how a borrowed name's arguments (`nonlin.spec.Alias`) map onto a catalog entry's call.

`bind` turns an upstream call (torch's ``F.softshrink(x, 0.3)``, ``nn.Hardtanh(-2., 2.)``, ``F.gelu(x,
approximate="tanh")``) into the entry it computes and nonlin keyword arguments (``soft_threshold``, ``tau=0.3``).
`EXTRA_ARGS` are upstream arguments that are neither a parameter of the formula nor a generic call option
(``inplace``, ``dim``, ``layout``, ``mask``, ``dtype``, ``training``): each is applied around the entry, with the
exact upstream meaning, by the functional form (and so by the module form).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch

from nonlin.spec import Alias, Spec

# torch's softmax-family positional `_stacklevel` only steers its deprecation warning's stack level.
_IGNORED = frozenset({"_stacklevel"})


def label(record: Alias) -> str:
    return f"{record.names[0]} ({record.library})"


def class_spelling(record: Alias, called: str) -> bool:
    """Whether `called` spells one of the record's module class names (``"Softmax"``, ``"nn.Softmax"``), not its
    function (``"softmax"``): the registry folds case, so only the spelling tells torch's nn.Softmax from F.softmax."""
    name = called.strip()
    for prefix in ("torch.nn.", "nn."):
        if name.lower().startswith(prefix):
            name = name[len(prefix) :]
    return name in record.names and name[:1].isupper()


def bind(
    record: Alias | None,
    s: Spec,
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    *,
    module: bool = False,
    called: str = "",
) -> tuple[str, dict[str, Any]]:
    """(entry to compute, its keyword arguments) for a call of `s` through `record` (None: nonlin's own names).
    A module built under a class spelling (`called`) takes the record's ``module_defaults`` first."""
    if record is None:
        if args:
            names = ", ".join(p.name for p in s.params) or "none"
            raise TypeError(
                f"{s.name}: takes its parameters by keyword (its parameters: {names}); got {len(args)} positional "
                f"argument(s) after the input"
            )
        return s.name, dict(kwargs)
    who = label(record)
    order = record.positional
    if module and record.module_positional is not None:
        order = record.module_positional
    if len(args) > len(order):
        takes = ", ".join(order) or "no further arguments"
        raise TypeError(f"{who}: takes {len(order)} positional argument(s) after the input ({takes}); got {len(args)}")
    given = dict(zip(order, args, strict=False))
    for k, v in kwargs.items():
        if k in given:
            raise TypeError(f"{who}: got multiple values for argument {k!r}")
        given[k] = v
    out: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for upstream, value in given.items():
        if upstream in _IGNORED:
            continue
        ours = record.nonlin_name(upstream)
        if ours in out:
            pair = " and ".join(sorted({spelled[ours], upstream}))
            raise TypeError(f"{who}: {pair} are both nonlin's {ours!r}; pass one of them")
        out[ours], spelled[ours] = value, upstream
    if module and class_spelling(record, called):
        for k, v in record.module_defaults.items():
            out.setdefault(k, v)
    for k, v in record.defaults.items():
        out.setdefault(k, v)
    entry = s.name
    for arg, picks in record.choose.items():
        value = out.pop(arg)
        if value not in picks:
            allowed = ", ".join(repr(v) for v in picks)
            raise ValueError(f"{who}: {arg}={value!r} is not one of {allowed}")
        entry = picks[value]
    return entry, out


def check_ndim(record: Alias | None, x: torch.Tensor) -> None:
    if record is not None and record.ndim and isinstance(x, torch.Tensor) and x.dim() not in record.ndim:
        ranks = " or ".join(f"{n}-d" for n in record.ndim)
        raise ValueError(f"{label(record)}: expects {ranks} input; got shape {tuple(x.shape)}")


def _channel_weight(x: torch.Tensor, weight: Any) -> Any:
    """torch's F.prelu(x, weight): a weight of C > 1 values applies along dim 1 (the channel), one value to all."""
    if not isinstance(weight, torch.Tensor) or weight.numel() == 1:
        return weight.reshape(()) if isinstance(weight, torch.Tensor) else weight
    if weight.dim() != 1 or x.dim() < 2 or x.shape[1] != weight.numel():
        raise ValueError(
            f"prelu: weight of shape {tuple(weight.shape)} must hold 1 value or one per channel (dim 1) of the "
            f"input of shape {tuple(x.shape)}"
        )
    return weight.reshape(-1, *([1] * (x.dim() - 2)))  # [C, 1, ..., 1]: broadcasts along dim 1


def _linear_above(x: torch.Tensor, params: Mapping[str, Any], threshold: Any) -> Callable[[torch.Tensor], Any]:
    """torch's Softplus threshold: the output is x itself where beta * x > threshold."""
    if threshold is None:
        return lambda y: y
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise TypeError(f"softplus: threshold must be a number or None; got {type(threshold).__name__}")
    beta = params.get("beta", 1.0)
    with torch.no_grad():
        above = (x.double() * (beta.double() if isinstance(beta, torch.Tensor) else beta)) > threshold
    return lambda y: torch.where(above, x, y)


# entry -> {upstream argument: handler}. A pre-handler rewrites the call's parameters; a post-handler returns
# a function applied to the entry's output.
# A pre-handler gives the value of a nonlin parameter (the target) from the upstream argument.
PRE_ARGS: dict[str, dict[str, tuple[str, Callable[[torch.Tensor, Any], Any]]]] = {
    "prelu": {"weight": ("a", _channel_weight)}
}
POST_ARGS: dict[str, dict[str, Callable[..., Callable[[torch.Tensor], Any]]]] = {
    "softplus": {"threshold": _linear_above}
}
EXTRA_ARGS = {name: {*PRE_ARGS.get(name, ()), *POST_ARGS.get(name, ())} for name in {*PRE_ARGS, *POST_ARGS}}


def apply_pre(s: Spec, x: torch.Tensor, params: dict[str, Any]) -> None:
    for arg, (target, handler) in PRE_ARGS.get(s.name, {}).items():
        if arg in params:
            if target in params:
                raise TypeError(f"{s.name}: {arg!r} is nonlin's {target!r}; pass one of them, not both")
            params[target] = handler(x, params.pop(arg))


def take_post(s: Spec, x: torch.Tensor, params: dict[str, Any]) -> list[tuple[str, Any]]:
    """The post-arguments of this call, removed from `params` (applied once the parameters are resolved)."""
    return [(arg, params.pop(arg)) for arg in POST_ARGS.get(s.name, {}) if arg in params]


def apply_post(s: Spec, x: torch.Tensor, resolved: Mapping[str, Any], post: list[tuple[str, Any]], y):
    for arg, value in post:
        y = POST_ARGS[s.name][arg](x, resolved, value)(y)
    return y


def describe(record: Alias) -> str:
    """One paragraph for a borrowed name's docstring and `nonlin show`."""
    parts = [f"{', '.join(record.names)}: {record.library}'s name"]
    if record.positional:
        parts.append(f"positional after the input: {', '.join(record.positional)}")
    if record.args:
        parts.append("arguments " + ", ".join(f"{k} -> {v}" for k, v in record.args.items()))
    if record.defaults:
        parts.append("defaults " + ", ".join(f"{k}={v!r}" for k, v in record.defaults.items()))
    if record.module_defaults:
        parts.append("module class defaults " + ", ".join(f"{k}={v!r}" for k, v in record.module_defaults.items()))
    if record.choose:
        for arg, picks in record.choose.items():
            parts.append(f"{arg} picks " + ", ".join(f"{k!r} -> {v}" for k, v in picks.items()))
    if record.note:
        parts.append(record.note)
    return "; ".join(parts)
