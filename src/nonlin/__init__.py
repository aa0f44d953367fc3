"""nonlin: a PyTorch workbench for the nonlinearities of neural networks.

Every nonlinearity is declared once (`spec(name)`); `functional` and `get` are its torch forms. The
subsystems load on first use, so ``import nonlin`` stays cheap: `nonlin.theory`, `nonlin.init`,
`nonlin.accuracy`, `nonlin.kernels` (and `nonlin.use`), `nonlin.probe` (and `nonlin.swap`), `nonlin.arena`,
`nonlin.reference`, `nonlin.plotting`.
"""

import importlib
from typing import Any

from nonlin import catalog as _catalog  # noqa: F401  (registers every entry)
from nonlin import functional
from nonlin.modules import Nonlinearity, get
from nonlin.registry import aliases, names, resolve, spec
from nonlin.spec import Kind, Param, Spec

__version__ = "0.1.0"

_SUBMODULES = {"accuracy", "arena", "init", "kernels", "plotting", "probe", "reference", "theory"}
_LAZY_ATTRS = {"use": ("nonlin.kernels", "use"), "swap": ("nonlin.probe", "swap")}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"nonlin.{name}")
    if name in _LAZY_ATTRS:
        module, attr = _LAZY_ATTRS[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'nonlin' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_SUBMODULES, *_LAZY_ATTRS])


__all__ = [
    "Kind",
    "Nonlinearity",
    "Param",
    "Spec",
    "aliases",
    "functional",
    "get",
    "names",
    "resolve",
    "spec",
    "swap",
    "use",
]
