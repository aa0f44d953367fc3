"""Finding the nonlinearities inside a model and naming them with catalog entries.

A module counts as a nonlinearity when it is one of:
- a ``nonlin.modules.Nonlinearity`` (its spec is known),
- an activation class of ``torch.nn`` (the classes defined in ``torch.nn.modules.activation``, except
  ``MultiheadAttention``),
- an activation class of Hugging Face transformers (defined in ``transformers.activations``: the classes
  its ``ACT2FN`` table instantiates, e.g. ``GELUActivation``, ``NewGELUActivation``, ``SiLUActivation``),
- a parameter-free leaf module whose class name, less an ``Activation`` suffix, is a catalog name or alias
  (a user's ``class Swish(nn.Module)``).
Kinds: normalizers (``nn.Softmax``, nonlin's ``softmax``/``sparsemax`` modules...) are found too but the
probes that measure units leave them out unless asked (``kinds=``), since their outputs are attention
weights, not hidden units.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from torch import nn

from nonlin.modules import Nonlinearity
from nonlin.registry import resolve
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind

_TORCH_ACTIVATION_MODULE = "torch.nn.modules.activation"
_HF_ACTIVATION_MODULE = "transformers.activations"
_NOT_ACTIVATIONS = {"MultiheadAttention"}


def _torch_params(m: nn.Module) -> tuple[str | None, dict[str, Any]]:
    """Catalog name and params equal to a torch.nn activation instance, or (None, {}) when none is."""
    n = type(m).__name__
    simple = {
        "ReLU": "relu",
        "SiLU": "silu",
        "Tanh": "tanh",
        "Sigmoid": "sigmoid",
        "Mish": "mish",
        "SELU": "selu",
        "ReLU6": "relu6",
        "Hardswish": "hardswish",
        "Hardsigmoid": "hardsigmoid",
        "Softsign": "softsign",
        "LogSigmoid": "log_sigmoid",
        "Softmax": "softmax",
        "PReLU": "prelu",
    }
    if n in simple:
        return simple[n], {}
    # nn.GLU is left unnamed: it computes a * sigmoid(b) for halves [a | b], the gate *second*, while the
    # catalog packs [gate | value]; naming it "glu" would let swap() exchange the halves' roles.
    if n == "GELU":
        return ("gelu_tanh" if getattr(m, "approximate", "none") == "tanh" else "gelu"), {}
    if n == "LeakyReLU":
        return "leaky_relu", {"alpha": float(m.negative_slope)}
    if n == "ELU":
        return "elu", {"alpha": float(m.alpha)}
    if n == "CELU":
        return "celu", {"alpha": float(m.alpha)}
    if n == "Hardtanh":  # ReLU6 is a Hardtanh subclass, caught above
        return "hardtanh", {"min_val": float(m.min_val), "max_val": float(m.max_val)}
    if n == "Softshrink":
        return "soft_threshold", {"tau": float(m.lambd)}
    if n == "Hardshrink":
        return "hardshrink", {"lambd": float(m.lambd)}
    if n == "Softplus":  # torch's linear tail above `threshold` is a numerical device, not a different function
        return "softplus", {"beta": float(m.beta)}
    if n == "RReLU":
        return "rrelu", {"lower": float(m.lower), "upper": float(m.upper)}
    return None, {}


# transformers.activations classes -> catalog names (see ACT2CLS there).
_HF_NAMES = {
    "GELUActivation": "gelu",
    "NewGELUActivation": "gelu_tanh",
    "FastGELUActivation": "gelu_tanh",
    "AccurateGELUActivation": "gelu_tanh",
    "GELUTanh": "gelu_tanh",
    "PytorchGELUTanh": "gelu_tanh",
    "QuickGELUActivation": "quick_gelu",
    "SiLUActivation": "silu",
    "MishActivation": "mish",
    "ReLUSquaredActivation": "relu2",
    "LinearActivation": "identity",
}


@dataclass(frozen=True)
class Site:
    """One nonlinearity found in a model: its qualified name, the module, and the catalog entry it equals."""

    name: str
    module: nn.Module = field(repr=False)
    source: str  # "nonlin", "torch", "transformers" or "name"
    catalog: str | None  # canonical catalog name, None when the class has no catalog equal
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> Kind:
        if self.catalog is None:
            return Kind.POINTWISE  # unknown activation classes are taken as elementwise
        return get_spec(self.catalog).kind

    @property
    def cls(self) -> str:
        return type(self.module).__name__

    def breakpoints(self) -> tuple[float, ...]:
        """Inputs where the nonlinearity changes piece (kinks, jumps); () for smooth or unknown ones."""
        if self.catalog is None:
            return ()
        s = get_spec(self.catalog)
        return tuple(s.breakpoints(**s.resolve_params(self.params)))


def classify(m: nn.Module) -> Site | None:
    """A `Site` (with an empty name) when `m` is a nonlinearity, else None."""
    cls = type(m)
    if isinstance(m, Nonlinearity):
        fixed = {k: v for k, v in m._fixed.items() if v is not None}
        return Site("", m, "nonlin", m.spec.name, fixed)
    if cls.__module__ == _TORCH_ACTIVATION_MODULE and cls.__name__ not in _NOT_ACTIVATIONS:
        name, params = _torch_params(m)
        return Site("", m, "torch", name, params)
    if cls.__module__ == _HF_ACTIVATION_MODULE:
        name = _HF_NAMES.get(cls.__name__)
        if cls.__name__ == "GELUActivation" and getattr(m, "act", None) is not None:
            name = "gelu"  # erf GELU whether through torch or its Python form
        return Site("", m, "transformers", name, {})
    # Name match: only for parameter-free leaves (a user's `class Swish(nn.Module)`), never to "identity"
    # ("Linear" is an alias of it) since a layer named so is not a nonlinearity.
    if not any(True for _ in m.children()) and not any(True for _ in m.parameters()):
        key = cls.__name__
        for suffix in ("Activation", "Act"):
            if key.endswith(suffix) and len(key) > len(suffix):
                key = key[: -len(suffix)]
        try:
            name = resolve(key)
        except ValueError:
            return None
        return None if name == "identity" else Site("", m, "name", name, {})
    return None


Where = None | str | type | Sequence[str | type] | Callable[[str, nn.Module], bool]
DEFAULT_KINDS = (Kind.POINTWISE, Kind.GATED)


def _check_model(model: Any) -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    return model


def find(model: nn.Module, where: Where = None, kinds: Iterable[Kind | str] | None = DEFAULT_KINDS) -> list[Site]:
    """The nonlinearities of `model` to measure, in module order.

    ``where`` chooses among all submodules instead of the automatic search:
    - ``None``: every nonlinearity found (see the module docstring) of the given ``kinds``;
    - a string or list of strings: glob patterns on qualified module names (``"encoder.layer.*.intermediate.*"``);
      the modules they match are measured whether or not they are nonlinearities (a Linear's output, say);
    - a class or list of classes: every submodule that is an instance;
    - a callable ``(name, module) -> bool``.
    ``kinds`` filters the automatic search (default pointwise and gated; None keeps all, normalizers too).
    A model in which nothing is chosen raises ValueError naming what was looked for.
    """
    model = _check_model(model)
    kinds_set = None if kinds is None else {Kind(k) for k in kinds}
    named = [(n, m) for n, m in model.named_modules() if m is not model or n]
    if where is None:
        out = []
        for n, m in named:
            site = classify(m)
            if site is not None and (kinds_set is None or site.kind in kinds_set):
                out.append(Site(n or type(m).__name__, m, site.source, site.catalog, site.params))
        if not out:
            what = "any kind" if kinds_set is None else ", ".join(sorted(k.value for k in kinds_set))
            raise ValueError(
                f"no nonlinearity modules ({what}) found in {type(model).__name__}: looked for nonlin modules, "
                "torch.nn activations and transformers activations. Functional calls (F.relu in a forward) "
                "cannot be hooked; pass where= (module name patterns, classes or a callable) to choose modules"
            )
        return out
    if callable(where) and not isinstance(where, type):
        pick = where
    else:
        items = [where] if isinstance(where, str | type) else list(where)
        for it in items:
            if not isinstance(it, str | type):
                raise TypeError(f"where must hold str patterns or classes; got {type(it).__name__} ({it!r})")
        patterns = [p for p in items if isinstance(p, str)]
        classes = tuple(c for c in items if isinstance(c, type))

        def pick(n: str, m: nn.Module) -> bool:
            return any(fnmatch.fnmatchcase(n, p) for p in patterns) or (bool(classes) and isinstance(m, classes))

    out = []
    for n, m in named:
        if pick(n, m):
            site = classify(m)
            if site is None:
                out.append(Site(n, m, "chosen", None, {}))
            else:
                out.append(Site(n, m, site.source, site.catalog, site.params))
    if not out:
        raise ValueError(f"where={where!r} matched no submodule of {type(model).__name__}")
    return out
