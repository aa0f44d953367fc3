"""The CPU fused path: the generated torch functions compiled by inductor into one loop each.

The forward reads the inputs once and writes the output; the backward reads the inputs and the incoming
gradient and writes the gradients (parameter gradients reduced in the same loop). Only the inputs are
saved between them. Where torch.compile is unavailable or fails (no C++ compiler, an unsupported
platform), the same functions run uncompiled: slower, still saving only the inputs, never wrong.
"""

from __future__ import annotations

import functools
import logging
import warnings

import torch

from nonlin.kernels.codegen import Plan, load, torch_source

log = logging.getLogger(__name__)

_DISABLED: dict[str, str] = {}  # reason compilation was turned off, if it was


def compile_available() -> bool:
    return not _DISABLED


def disable_compile(reason: str) -> None:
    _DISABLED["reason"] = reason


@functools.lru_cache(maxsize=1024)
def functions(p: Plan, compute: str, compiled: bool):
    ns = load(torch_source(p, compute), f"{p.spec.name}-torch-{compute}")
    names = ("fwd", "bwd", "fwd_packed", "bwd_packed")
    fns = {k: ns[k] for k in names if k in ns}
    if compiled:
        fns = {k: _Compiled(f, f"{p.spec.name}.{k}") for k, f in fns.items()}
    return fns


class _Compiled:
    """torch.compile(fn) that falls back to fn, once and for all, when compilation fails."""

    def __init__(self, fn, tag: str) -> None:
        self.fn, self.tag = fn, tag
        self.compiled = torch.compile(fn, fullgraph=True, dynamic=None)

    def __call__(self, *args):
        if _DISABLED:
            return self.fn(*args)
        try:
            return self.compiled(*args)
        except Exception as e:  # compiler missing or broken: the uncompiled function is exact too
            disable_compile(f"{type(e).__name__}: {e}")
            warnings.warn(
                f"nonlin: torch.compile failed for {self.tag} ({type(e).__name__}); the fused CPU path runs "
                "uncompiled from now on",
                RuntimeWarning,
                stacklevel=2,
            )
            return self.fn(*args)


def compute_name(dtype: torch.dtype, fp32_compute: str) -> str:
    if dtype in (torch.float16, torch.bfloat16):
        return "float32"
    if dtype == torch.float32:
        return fp32_compute
    return "float64"


def _params(tparams):
    if not tparams:
        return None
    return torch.stack([t.detach().reshape(()) for t in tparams])


def forward(p: Plan, mains, extras, tparams, fp32_compute: str, packed, compiled: bool) -> torch.Tensor:
    fns = functions(p, compute_name(mains[0].dtype, fp32_compute), compiled)
    params = _params(tparams)
    if packed is not None:
        return fns["fwd_packed"](packed, *extras, params)
    return fns["fwd"](*mains, *extras, params)


def backward(p: Plan, go, mains, extras, tparams, fp32_compute: str, packed, compiled: bool):
    fns = functions(p, compute_name(mains[0].dtype, fp32_compute), compiled)
    params = _params(tparams)
    if packed is not None:
        r = fns["bwd_packed"](go, packed, *extras, params)
        main_grads, rest = [r[0]], r[1:]
    else:
        r = fns["bwd"](go, *mains, *extras, params)
        main_grads, rest = list(r[: p.n_main]), r[p.n_main :]
    k = len(p.diff_extras)
    dext = list(rest[:k])
    pgrads = [g.reshape(t.shape).to(t.dtype) for g, t in zip(rest[k:], tparams, strict=True)]
    return main_grads, dext, pgrads
