"""What nonlin puts into a caller's compiled graph, and what dynamo runs while tracing it.

The ops a compiled graph calls for the hand-written kernels (`native32`'s float32 ones, `table`'s half type
lookups): CPU implementations registered with the dispatcher directly (torch.library.Library), each with a fake
implementation for tracing.

Not torch.library.custom_op: its Python layers (an autograd kernel that redispatches, the backend wrapper) ran on
every call of the compiled graph, 40 µs of a 32K float32 silu's 145 on a loaded 2-core host against 41 for the op
itself (`notes/2026-12-07e/op_cost.py`); these ops need no autograd of their own (`dispatch`'s autograd.Functions
put their forward and backward in the graph) and compute no gradient when called outside one.

`constant_result` marks the functions dynamo runs as they are while tracing (once per trace), taking their
result as a constant: those that fill nonlin's caches (a traced read of a cache that changes makes dynamo guard
on it, and the caller's function recompile once it is filled).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

_LIB = torch.library.Library("nonlin", "FRAGMENT")


def cpu_op(name: str, schema: str, fake: Callable) -> Callable[[Callable], Callable]:
    """Register the decorated function as the CPU implementation of op nonlin::`name` of `schema` (its
    arguments and results, as "(Tensor x, str primitive) -> Tensor"), `fake` its shapes for tracing; the
    decorator gives the op (torch.ops.nonlin.`name`.default)."""

    def register(impl: Callable) -> Callable:
        op = _define(name, schema, fake)
        _LIB.impl(name, impl, "CPU")
        return op

    return register


def composite_op(name: str, schema: str) -> Callable[[Callable], Callable]:
    """Register the decorated function, written in torch's ops, as op nonlin::`name` of `schema` for every backend
    and autograd (CompositeImplicitAutograd: autograd records the ops it calls), for C++ code to call by name."""

    def register(impl: Callable) -> Callable:
        _LIB.define(name + schema)
        _LIB.impl(name, impl, "CompositeImplicitAutograd")
        return impl

    return register


_DEFINED: dict[str, tuple[str, Callable]] = {}  # op name -> (schema, fake)


def _define(name: str, schema: str, fake: Callable):
    _LIB.define(name + schema)
    torch.library.register_fake(f"nonlin::{name}", fake, lib=_LIB)
    _DEFINED[name] = schema, fake
    return getattr(torch.ops.nonlin, name).default


def define_twin(name: str, twin: str):
    """Define op nonlin::`twin` with `name`'s schema and fake implementation, its CPU implementation left to a
    library loaded after (`cpp_ops`)."""
    return define(twin, *_DEFINED[name])


def define(name: str, schema: str, fake: Callable):
    """Define op nonlin::`name` (once), its implementation left to a library loaded after (`cpp_ops`)."""
    return getattr(torch.ops.nonlin, name).default if name in _DEFINED else _define(name, schema, fake)


def like(t: torch.Tensor, shape=None) -> torch.Tensor:
    """A fake result: an empty tensor of t's dtype and device (of `shape`, or t's)."""
    return torch.empty(t.shape if shape is None else shape, dtype=t.dtype, device=t.device)


CONSTANT_RESULTS: list[Callable] = []


def constant_result(fn: Callable) -> Callable:
    """Mark `fn` as torch._dynamo.assume_constant_result does (torch 2.11-2.14), without importing torch._dynamo
    when nonlin is imported: that import costs about a second and imports triton, whose language module is then
    built without TRITON_INTERPRET if the caller sets it later (every interpreted kernel then fails).
    tests/kernels/test_call_path.py checks the marker against the decorator's."""
    fn._dynamo_marked_constant = True  # type: ignore[attr-defined]
    CONSTANT_RESULTS.append(fn)
    return fn
