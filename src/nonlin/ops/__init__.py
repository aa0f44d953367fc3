"""The math namespace formula bodies are written against, and its backends.

A body receives a namespace ``m`` and calls ``m.exp``, ``m.softplus``, ``m.where``, ... Each backend
implements the numerically stable form of its primitives, so a body written once is stable on every
backend: `TorchOps` (eager tensors), `MpmathOps` (the high-precision reference).
"""

from nonlin.ops.mpmath_backend import MPMATH, MpmathOps
from nonlin.ops.torch_backend import TORCH, TorchOps

__all__ = ["MPMATH", "TORCH", "MpmathOps", "TorchOps"]
