"""Small constructors that keep catalog entries short."""

from __future__ import annotations

from functools import partial

from nonlin.spec import Kind, Paper, Param, Spec

__all__ = ["P", "Paper", "Param", "gated", "normalizer", "pointwise", "props", "setwise"]

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
