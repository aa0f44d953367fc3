"""The nonlinearity of a run: a catalog entry (with parameters) or any callable, and the layers built from it.

A run names its nonlinearity by a *label*: the canonical catalog name, with the parameters the user set
(``shifted_relu:tau=0.5``), or the name given to a custom callable. The label is part of a run's identity
in the results database, so two custom callables must not share a name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from nonlin.modules import Nonlinearity
from nonlin.registry import resolve, spec
from nonlin.spec import Kind

KINDS = tuple(k.value for k in Kind)
# Set on every module `Act.module()` builds, so the probes measure exactly the compared nonlinearity.
ARENA_ACT_TAG = "_nonlin_arena_act"


@dataclass(frozen=True)
class Act:
    """A nonlinearity as the arena uses it.

    ``name`` is the canonical catalog name (None for a custom callable), ``params`` the parameters the user
    set (defaults are left out so the label stays short), ``fn`` the custom callable, ``kind`` pointwise,
    gated (``fn(packed [..., 2d]) -> [..., d]``, gate first) or normalizer.
    """

    label: str
    kind: str
    name: str | None = None
    params: tuple[tuple[str, float], ...] = ()
    fn: Callable[..., torch.Tensor] | None = field(default=None, compare=False, repr=False)

    @property
    def is_catalog(self) -> bool:
        return self.name is not None

    @property
    def width_factor(self) -> int:
        """How many pre-activations one output unit needs: 2 for a gated unit ([gate | value])."""
        return 2 if self.kind == Kind.GATED.value else 1

    def module(self) -> nn.Module:
        """A fresh nn.Module applying this nonlinearity (pointwise or gated), tagged for the probes."""
        if self.name is not None:
            m: nn.Module = Nonlinearity(self.name, **dict(self.params))
        elif isinstance(self.fn, type) and issubclass(self.fn, nn.Module):
            m = self.fn()
        else:
            m = CallableAct(self.fn, self.label)
        setattr(m, ARENA_ACT_TAG, True)
        return m

    def normalizer(self) -> Callable[..., torch.Tensor]:
        """The attention-score normalizer f(scores, dim, mask) (normalizer kind only)."""
        if self.kind != Kind.NORMALIZER.value:
            raise ValueError(f"{self.label} is a {self.kind} nonlinearity, not an attention normalizer")
        if self.name is not None:
            from nonlin.functional import function

            f, p = function(self.name), dict(self.params)
            return lambda scores, dim=-1, mask=None: f(scores, dim=dim, mask=mask, **p)
        return self.fn

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "kind": self.kind,
            "name": self.name,
            "params": dict(self.params),
            "ref": _ref(self.fn) if self.fn is not None else None,
        }


class CallableAct(nn.Module):
    """Wraps a plain callable f(x) -> y as a module so probes and swaps can see it."""

    def __init__(self, fn: Callable[..., torch.Tensor], label: str) -> None:
        super().__init__()
        self.fn, self.label = fn, label

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x)

    def extra_repr(self) -> str:
        return self.label


def _ref(obj: Any) -> str | None:
    """'module:qualname' when obj can be imported back by name, else None."""
    module, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or not qual or "<" in qual or module == "__main__":
        return None
    return f"{module}:{qual}"


def _parse_value(label: str, key: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"nonlinearity {label!r}: parameter {key}={text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"nonlinearity {label!r}: parameter {key}={text!r} must be finite")
    return value


def parse_params(label: str, text: str) -> dict[str, float]:
    """'tau=0.5,m=2' -> {'tau': 0.5, 'm': 2.0}."""
    out: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(
                f"{label!r}: expected key=value parameters after ':', e.g. shifted_relu:tau=0.5; got {item!r}"
            )
        out[key.strip()] = _parse_value(label, key.strip(), value.strip())
    return out


def catalog_act(name: str, params: Mapping[str, float] | None = None) -> Act:
    """An Act for a catalog entry; unknown names and bad parameters raise ValueError (with close names)."""
    canonical = resolve(name)
    s = spec(canonical)
    params = dict(params or {})
    s.resolve_params(params)  # validates names and ranges with the catalog's own messages
    ordered = tuple(sorted((k, float(v)) for k, v in params.items()))
    label = canonical + (":" + ",".join(f"{k}={v:g}" for k, v in ordered) if ordered else "")
    return Act(label=label, kind=s.kind.value, name=canonical, params=ordered)


def custom_act(fn: Callable[..., torch.Tensor], name: str | None = None, kind: str = "pointwise") -> Act:
    """An Act for any callable (or nn.Module subclass, instantiated once per layer)."""
    if not callable(fn):
        raise TypeError(f"a custom nonlinearity must be callable; got {type(fn).__name__}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    label = name or getattr(fn, "__name__", None)
    if not label or label == "<lambda>":
        raise ValueError("a lambda or unnamed callable needs a name: Act via as_act(fn, name='mine') or {'mine': fn}")
    return Act(label=str(label), kind=kind, fn=fn)


def as_act(obj: Any, name: str | None = None) -> Act:
    """Anything a user may pass as a nonlinearity -> Act.

    Accepts an Act, a catalog name (alias, any case) optionally with parameters ``"shifted_relu:tau=0.5"``,
    a ``(name, {params})`` pair, or a callable (named by ``name`` or its ``__name__``).
    """
    if isinstance(obj, Act):
        return obj
    if isinstance(obj, str):
        base, _, rest = obj.partition(":")
        return catalog_act(base.strip(), parse_params(obj, rest))
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], Mapping):
        return catalog_act(obj[0], obj[1])
    if callable(obj):
        return custom_act(obj, name)
    raise TypeError(
        f"a nonlinearity must be a catalog name (str), a (name, params) pair or a callable; got {type(obj).__name__}"
    )


def as_acts(items: Any) -> list[Act]:
    """A list of nonlinearities (items as for `as_act`, or ``{name: callable}`` dicts) -> unique Acts, in order."""
    if isinstance(items, (Mapping, str, Act)) or callable(items):
        items = [items]
    acts = []
    for x in items:
        if isinstance(x, Mapping):
            acts += [as_act(v, name=k) if callable(v) else as_act((k, v)) for k, v in x.items()]
        else:
            acts.append(as_act(x))
    if not acts:
        raise ValueError("acts must name at least one nonlinearity")
    seen: dict[str, Act] = {}
    for a in acts:
        if a.label in seen and (seen[a.label] != a or seen[a.label].fn is not a.fn):
            raise ValueError(f"two different nonlinearities share the label {a.label!r}; give them distinct names")
        seen[a.label] = a
    return list(seen.values())
