"""The fused path's entry point: whether a call can be fused (`fusable`) and the fused op for it (`call`).

`nonlin.route` decides which calls take the fused path; this module only says whether one can and runs it.
The fused path takes every pointwise and gated entry; tensor parameters are single values or per-channel
values that broadcast to the input (``num_parameters > 1``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import torch

from nonlin.kernels import ops as _ops  # noqa: F401  (registers torch.ops.nonlin.*)
from nonlin.spec import Kind, Spec

_WARNED: set[str] = set()


def _why_not(spec: Spec, main: tuple[torch.Tensor, ...], params: Mapping[str, Any]) -> str | None:
    if spec.kind not in (Kind.POINTWISE, Kind.GATED):
        return f"{spec.kind.value} entries have no fused path"
    for k, v in params.items():
        if isinstance(v, torch.Tensor):
            try:
                shape = torch.broadcast_shapes(v.shape, main[0].shape)
            except RuntimeError:
                shape = None
            if shape != main[0].shape:
                # Eager broadcasting would change (or reject) the output's shape: leave it to the eager path.
                return f"parameter {k!r} of shape {tuple(v.shape)} does not broadcast to the input's shape"
            if v.device != main[0].device:
                return f"parameter {k!r} is on {v.device}, the input on {main[0].device}"
        if v is None:
            return f"parameter {k!r} is None"
    if any(t.device != main[0].device for t in main):
        return "inputs on different devices"
    return None


def _packed_base(g: torch.Tensor, v: torch.Tensor) -> torch.Tensor | None:
    """The [..., 2d] tensor g and v are the two halves of (as `split_packed` makes them), if they are."""
    base = g._base
    if base is None or v._base is not base or base.dim() != g.dim() or g.dim() == 0:
        return None
    d = g.shape[-1]
    es = g.element_size()
    ok = (
        base.shape[-1] == 2 * d
        and base.shape[:-1] == g.shape[:-1]
        and g.stride() == base.stride() == v.stride()
        and g.data_ptr() == base.data_ptr()
        and v.data_ptr() == base.data_ptr() + d * es
        and base.dtype == g.dtype
        and base.requires_grad == (g.requires_grad or v.requires_grad)
    )
    return base if ok else None


def compile_available() -> bool:
    """Whether the CPU fused path runs compiled (inductor works here)."""
    from nonlin.kernels import cpu

    return cpu.compile_available()


def fusable(spec: Spec, main: tuple[torch.Tensor, ...], params: Mapping[str, Any], warn: bool) -> bool:
    """Whether the fused path can take this call; with `warn`, say once per entry why not."""
    why = _why_not(spec, main, params)
    if why is not None and warn and spec.name not in _WARNED:
        _WARNED.add(spec.name)
        warnings.warn(f"nonlin: {spec.name} runs eagerly: {why}", RuntimeWarning, stacklevel=6)
    return why is None


def call(spec: Spec, body, main, extra, params) -> torch.Tensor:
    """The fused op for one call (inputs already checked by the functional layer)."""
    fnames = [k for k, v in params.items() if not isinstance(v, torch.Tensor)]
    fvals = [float(params[k]) for k in fnames]
    tnames = [k for k, v in params.items() if isinstance(v, torch.Tensor)]
    tparams = [params[k] for k in tnames]
    if spec.kind is Kind.POINTWISE:
        mode = ("eval" if body is spec.eval_forward else "train") if spec.stochastic else "plain"
        return torch.ops.nonlin.pointwise(
            main[0], list(extra), tparams, spec.name, mode, ",".join(fnames), fvals, ",".join(tnames)
        )
    g, v = main
    # Data pointers cannot be compared while torch.compile traces: there the halves go in as two tensors
    # (the compiled graph assembles their gradients).
    base = None if torch.compiler.is_compiling() else _packed_base(g, v)
    gv = [base] if base is not None else [g, v]
    return torch.ops.nonlin.gated(gv, list(extra), tparams, spec.name, ",".join(fnames), fvals, ",".join(tnames))
