"""Small constructors that keep catalog entries short."""

from __future__ import annotations

from functools import partial

from nonlin.spec import Alias, Kind, Paper, Param, Spec

__all__ = [
    "Alias",
    "P",
    "Paper",
    "Param",
    "gated",
    "normalizer",
    "pointwise",
    "props",
    "setwise",
    "torch_inplace",
    "torch_names",
]

pointwise = partial(Spec, kind=Kind.POINTWISE)
gated = partial(Spec, kind=Kind.GATED)
normalizer = partial(Spec, kind=Kind.NORMALIZER)
setwise = partial(Spec, kind=Kind.SETWISE)
P = Param


def props(*names: str) -> frozenset[str]:
    return frozenset(names)


def at(*points: float):
    """Fixed breakpoints."""
    return lambda **_: tuple(points)


def torch_names(*names: str, positional: tuple[str, ...] = ("inplace",), **kw) -> Alias:
    """torch's names for an entry (F.relu and nn.ReLU): most torch activations take (input, inplace=False)."""
    return Alias(names, "torch", positional=positional, **kw)


def torch_inplace(base: Alias, name: str) -> Alias:
    """torch's in-place functional variant of `base` (F.relu_): the same arguments less inplace, which is on."""
    positional = tuple(p for p in base.positional if p != "inplace")
    return Alias((name,), "torch", args=base.args, defaults={**base.defaults, "inplace": True}, positional=positional)
