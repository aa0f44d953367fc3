"""nonlin: a PyTorch workbench for the nonlinearities of neural networks."""

from nonlin import catalog as _catalog  # noqa: F401  (registers every entry)
from nonlin import functional, plotting
from nonlin.modules import Nonlinearity, get
from nonlin.registry import aliases, names, resolve, spec
from nonlin.spec import Kind, Param, Spec

__version__ = "0.1.0"
__all__ = [
    "Kind",
    "Nonlinearity",
    "Param",
    "Spec",
    "aliases",
    "functional",
    "get",
    "names",
    "plotting",
    "resolve",
    "spec",
]
