"""Registration of specs, alias resolution and "did you mean" for unknown names."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from nonlin.spec import Kind, Spec

_SPECS: dict[str, Spec] = {}
_ALIASES: dict[str, str] = {}


def _key(name: str) -> str:
    # Users type "GELU", "gelu-new", "nn.SiLU": case, dashes and an "nn." prefix do not matter.
    key = name.strip().lower().replace("-", "_")
    return key.removeprefix("nn.").removeprefix("torch.nn.")


def register(spec: Spec) -> Spec:
    if spec.name != _key(spec.name):
        raise ValueError(f"canonical name {spec.name!r} must be lower snake_case")
    for taken in (spec.name, *map(_key, spec.aliases)):
        if taken in _SPECS or taken in _ALIASES:
            owner = _ALIASES.get(taken, taken)
            raise ValueError(f"name {taken!r} of {spec.name!r} is already used by {owner!r}")
    _SPECS[spec.name] = spec
    for alias in spec.aliases:
        _ALIASES[_key(alias)] = spec.name
    return spec


def register_all(specs: Iterable[Spec]) -> None:
    for spec in specs:
        register(spec)


def resolve(name: str) -> str:
    """The canonical name for `name` or one of its aliases; ValueError with the closest names otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    key = _key(name)
    if key in _SPECS:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    close = _suggestions(key)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(f"unknown nonlinearity name {name!r}{hint} (nonlin.names() lists them all)")


def _suggestions(key: str, n: int = 5) -> list[str]:
    """The closest known names to `key`, best first, one per entry: an alias that spells its canonical name
    (``Mish`` -> ``mish``) or another alias of an entry already suggested is not repeated."""
    candidates = dict.fromkeys([*_SPECS, *_ALIASES])  # names in catalog order, each once
    out: dict[str, str] = {}  # canonical -> the name shown for it
    for match in difflib.get_close_matches(key, candidates, n=len(candidates), cutoff=0.5):
        out.setdefault(_ALIASES.get(match, match), match)
        if len(out) == n:
            break
    return list(out.values())


def spec(name: str) -> Spec:
    """The declaration of a nonlinearity, by canonical name or alias."""
    return _SPECS[resolve(name)]


def names(kind: str | Kind | None = None) -> list[str]:
    """Every canonical name, in catalog order; `kind` filters ("pointwise", "gated", "normalizer")."""
    if kind is None:
        return list(_SPECS)
    try:
        kind = Kind(kind)
    except ValueError:
        allowed = ", ".join(k.value for k in Kind)
        raise ValueError(f"kind must be one of {allowed}; got {kind!r}") from None
    return [n for n, s in _SPECS.items() if s.kind is kind]


def aliases() -> dict[str, str]:
    """Every alias (normalised) and the canonical name it resolves to."""
    return dict(_ALIASES)
