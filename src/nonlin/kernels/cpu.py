"""The CPU fused path: the generated torch functions compiled by inductor into one loop each.

The forward reads the inputs once and writes the output; the backward reads the inputs and the incoming
gradient and writes the gradients (parameter gradients reduced in the same loop). Only the inputs are
saved between them. Where torch.compile is unavailable or fails (no C++ compiler, an unsupported
platform), the same functions run uncompiled: slower, still saving only the inputs, never wrong.

Calls outside torch.compile take `Direct` kernels through `Fused` (a plain autograd.Function): each generated
function is compiled once per (plan, input dtype, compute precision), with dynamic sizes, on inputs in one
canonical layout (contiguous; flat for pointwise entries and unpacked gates, [rows, 2d] for a packed gated
input), and the compiled graph inductor returns is called directly: no dynamo guard evaluation per call, no
recompilation across shapes, the same kernel (so the same bits) for every size. They are built with
vec_convert's vector float32 <-> float64 conversions (ATen's generic ones convert element by element),
prefetch's software prefetches (the hardware's fell behind these loops beyond L2) and mask_moves' comparison masks
(AVX-512's own waited on the last vector's work).
"""

from __future__ import annotations

import functools
import logging
import sys
import threading
import types
import warnings
from collections.abc import Callable

import torch

from nonlin.autograd import round_to
from nonlin.kernels import mask_moves, prefetch, vec_convert
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
    # dynamo, tracing these functions into a user's graph, guards on their globals through their module
    module = types.ModuleType(ns["__name__"])
    module.__dict__.update(ns)
    sys.modules[ns["__name__"]] = module
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


def compute_name(dtype: torch.dtype, fp32_compute: str, at_defaults: bool = True) -> str:
    """The precision the generated functions compute inputs of `dtype` in; `fp32_compute`: float32 inputs'
    (`state.fp32_compute_for`); `at_defaults`: the call's parameters are the entry's defaults."""
    if dtype in (torch.float16, torch.bfloat16):
        # float32 math at other parameters (learned ones) missed the half types' goals, exhaustively at 5% from
        # the defaults: smu 98.9% correctly rounded, rational 2 ULP, soft_exponential inf where the value is
        # finite (exp(alpha x) overflowing float32); float64 math is within the rounding to the half type
        return "float32" if at_defaults else "float64"
    if dtype == torch.float32:
        return fp32_compute
    return "float64"


def _params(tparams):
    if not tparams:
        return None
    return torch.stack([t.detach().reshape(()) for t in tparams])


def forward(p: Plan, mains, extras, tparams, compute: str, packed, compiled: bool) -> torch.Tensor:
    """The output of a call, its generated functions computing in `compute` (`compute_name`)."""
    return call_forward(functions(p, compute, compiled), mains, extras, tparams, packed)


def call_forward(fns, mains, extras, tparams, packed) -> torch.Tensor:
    """The output of generated functions `fns` (`functions`' dict) on a call's inputs."""
    params = _params(tparams)
    if packed is not None:
        return fns["fwd_packed"](packed, *extras, params)
    return fns["fwd"](*mains, *extras, params)


def backward(p: Plan, go, mains, extras, tparams, compute: str, packed, compiled: bool):
    return call_backward(p, functions(p, compute, compiled), go, mains, extras, tparams, packed)


def call_backward(p: Plan, fns, go, mains, extras, tparams, packed):
    """(main gradients, extra-input gradients, single-value parameter gradients) of generated functions `fns`."""
    params = _params(tparams)
    if packed is not None:
        r = fns["bwd_packed"](go, packed, *extras, params)
        main_grads, rest = [r[0]], r[1:]
    else:
        r = fns["bwd"](go, *mains, *extras, params)
        main_grads, rest = list(r[: p.n_main]), r[p.n_main :]
    k = len(p.diff_extras)
    dext = list(rest[:k])
    pgrads = [round_to(g.reshape(t.shape), t.dtype) for g, t in zip(rest[k:], tparams, strict=True)]
    return main_grads, dext, pgrads


# ------------------------------------------------------------------------------------------ direct


def _own_changes(source: str) -> str:
    """An inductor kernel's source as nonlin builds its own: prefetches, then mask_moves' comparison masks."""
    return mask_moves.with_mask_moves(prefetch.with_prefetch(source))


_LOCK = threading.Lock()  # one compilation at a time (dynamo and inductor are not re-entrant)


class Direct:
    """One generated function, compiled once by inductor with dynamic sizes, called without dynamo.

    dynamo traces `fn` once (torch.compile(dynamic=True), a backend that hands its graph to inductor and keeps
    what inductor returns) on example inputs of the canonical layout; later calls go straight to inductor's
    compiled graph with the inputs and their sizes as arguments. `recipe` says, per argument of that graph,
    which input it is or which (input, dim) size it reads.
    """

    def __init__(self, fn, examples: tuple[torch.Tensor, ...], tag: str) -> None:
        self.tag = tag
        try:
            with vec_convert.vector_conversions(also=_own_changes), mask_moves.no_precompiled_header():
                graph, self.recipe = _capture(fn, examples)
        except Exception as e:  # the changed source did not compile with this torch: inductor's own
            log.warning(
                "nonlin: %s compiles without vec_convert's conversions, prefetches and mask moves (%s: %s)",
                tag,
                type(e).__name__,
                e,
            )
            graph, self.recipe = _capture(fn, examples)
        # The argument list spelled out once (a comprehension over the recipe costs ~2 us a call)
        names = [f"a{i}" for i in range(len(examples))]
        items = ", ".join(names[i] if d < 0 else f"{names[i]}.size({d})" for i, d in self.recipe)
        ns = {"graph": graph}
        exec(f"def call({', '.join(names)}):\n    return graph([{items}])\n", ns)
        self.call = ns["call"]

    def __call__(self, *inputs: torch.Tensor):
        return self.call(*inputs)


def _capture(fn, examples) -> tuple[Callable, list[tuple[int, int]]]:
    from torch._inductor.compile_fx import compile_fx, compile_fx_inner

    arg_names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    got: dict[str, object] = {}

    def inner(gm, example_inputs, **kwargs):
        out = compile_fx_inner(gm, example_inputs, **kwargs)
        got["graph"], got["n_inner"] = out, len(example_inputs)
        return out

    def backend(gm, example_inputs):
        # Graph arguments: tensors (named by their source, a local of `fn`) and sizes (symbols of those
        # tensors' shapes), in the order inductor's graph takes them.
        where: dict[object, tuple[int, int]] = {}
        places = [n for n in gm.graph.nodes if n.op == "placeholder"]
        for n in places:
            value = n.meta["example_value"]
            if isinstance(value, torch.Tensor):
                i = arg_names.index(n.meta["grapharg"].source.local_name)  # raises where it is not an input
                for d, size in enumerate(value.shape):
                    if isinstance(size, torch.SymInt):
                        where.setdefault(size.node.expr, (i, d))
        recipe = []
        for n in places:
            value = n.meta["example_value"]
            if isinstance(value, torch.Tensor):
                recipe.append((arg_names.index(n.meta["grapharg"].source.local_name), -1))
            else:
                recipe.append(where[value.node.expr])
        got["recipe"] = recipe
        return compile_fx(gm, example_inputs, inner_compile=inner)

    compiled = torch.compile(fn, backend=backend, fullgraph=True)
    for t in examples:  # every size dynamic; floats (the formulas' constants) stay constants
        torch._dynamo.mark_dynamic(t, list(range(t.dim())))
    # The AOT-autograd cache would hand back a wrapped graph without calling `inner`; inductor's own on-disk
    # graph cache (inside compile_fx_inner) still makes a later process's compile fast.
    with (
        _LOCK,
        torch._functorch.config.patch(enable_autograd_cache=False),
        torch._dynamo.config.patch(specialize_float=True),
        torch.no_grad(),
    ):
        compiled(*examples, None)
    graph, recipe = got["graph"], got["recipe"]
    if got["n_inner"] != len(recipe):
        raise RuntimeError(f"inductor's graph takes {got['n_inner']} arguments, dynamo's {len(recipe)}")
    call = getattr(graph, "current_callable", None) or graph
    return call, recipe


def _examples(like: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs of `like`'s layout at sizes dynamo does not specialise (0 and 1 it does): flat ones of one
    size; [rows, 2d] beside [rows, d] (a packed input and its output's gradient)."""
    widest = max(t.shape[-1] for t in like)
    shapes = [(13,) if t.dim() == 1 else (5, 26 if t.shape[-1] == widest else 13) for t in like]
    return tuple(torch.zeros(s, dtype=t.dtype, device=t.device) for s, t in zip(shapes, like, strict=True))


_DIRECT: dict[tuple, Direct] = {}


def direct(p: Plan, compute: str, which: str, like: tuple[torch.Tensor, ...]) -> Callable:
    """The compiled kernel of generated function `which` for inputs like `like` (canonical layout), built on
    first use: a `Direct` one, or where that cannot be captured the function under torch.compile (dynamo's
    guards each call), which itself runs uncompiled where compilation fails. Returns a tuple of tensors."""
    key = (p, compute, which, like[0].dtype, like[0].dim())
    k = _DIRECT.get(key)
    if k is None:
        fn = functions(p, compute, False)[which]
        try:
            k = Direct(fn, _examples(like), f"{p.spec.name}.{which}")
        except Exception as e:  # not capturable here: the dynamo-compiled function (itself falling back)
            log.warning("nonlin: %s.%s runs under dynamo (%s: %s)", p.spec.name, which, type(e).__name__, e)
            k = _as_tuple(functions(p, compute, True)[which])
        _DIRECT[key] = k
    return k.call if isinstance(k, Direct) else k


def _as_tuple(fn):
    def call(*inputs):
        r = fn(*inputs, None)
        return r if isinstance(r, tuple) else (r,)

    return call


def built(p: Plan, compute: str, which: str, dtype: torch.dtype, dim: int) -> bool:
    return (p, compute, which, dtype, dim) in _DIRECT
