"""Registration of specs, alias resolution and "did you mean" for unknown names.

Two kinds of other names: plain aliases (``Spec.aliases``: the same function with the same defaults) and
borrowed names (``Spec.borrowed``: `Alias` records carrying another library's defaults, argument names and
layout). `convention(name)` gives a borrowed name's record; the functional and module forms apply it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from nonlin.spec import Alias, Kind, Spec

_SPECS: dict[str, Spec] = {}
_ALIASES: dict[str, str] = {}
_CONVENTIONS: dict[str, Alias] = {}  # normalised borrowed name (canonical ones included) -> its record

# torch.nn paths users paste with a name ("nn.SiLU", "torch.nn.functional.gelu", "F.gelu"): dropped. Not
# "torch.": torch.sign and torch.heaviside are not nonlin's sign and step (their gradients, heaviside's values
# argument). Library paths whose names mean something else there ("jax.nn.gelu" is the tanh form) are
# registered names instead.
_PREFIXES = ("torch.nn.functional.", "torch.nn.", "nn.functional.", "nn.", "f.")


def _key(name: str) -> str:
    # Users type "GELU", "gelu-new", "nn.SiLU": case, dashes and a torch module path do not matter.
    key = name.strip().lower().replace("-", "_")
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix) :]
    return key


def register(spec: Spec) -> Spec:
    if spec.name != _key(spec.name):
        raise ValueError(f"canonical name {spec.name!r} must be lower snake_case")
    others = {_key(n) for n in spec.alias_names} - {spec.name}
    for taken in (spec.name, *sorted(others)):
        if taken in _SPECS or taken in _ALIASES:
            owner = _ALIASES.get(taken, taken)
            raise ValueError(f"name {taken!r} of {spec.name!r} is already used by {owner!r}")
    conventions: dict[str, Alias] = {}
    for record in spec.borrowed:
        for n in record.names:
            key = _key(n)
            if conventions.get(key, record) is not record or key in _CONVENTIONS:
                raise ValueError(f"borrowed name {n!r} of {spec.name!r} has two calling conventions")
            for arg, picks in record.choose.items():
                if record.defaults.get(arg) not in picks or picks[record.defaults[arg]] != spec.name:
                    raise ValueError(f"borrowed name {n!r}: its default {arg} must pick {spec.name!r} itself")
            conventions[key] = record
    _SPECS[spec.name] = spec
    for key in others:
        _ALIASES[key] = spec.name
    _CONVENTIONS.update(conventions)
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
    """Every alias and borrowed name (normalised) and the canonical name it resolves to."""
    return dict(_ALIASES)


def convention(name: str) -> Alias | None:
    """The calling convention a borrowed name carries (torch's "Softshrink": lambd = 0.5), or None for a plain
    alias or a canonical name that has none. Unknown names raise as `resolve` does."""
    resolve(name)
    return _CONVENTIONS.get(_key(name))


def conventions() -> dict[str, Alias]:
    """Every borrowed name (normalised) and its record."""
    return dict(_CONVENTIONS)
