"""`check`: the accuracy of an implementation of a catalog entry, in ULPs, against the exact reference.

    report = check("gelu")                          # nonlin's own implementation
    report = check("gelu", impl="torch")            # spec.torch_equivalent (torch.nn.functional.gelu)
    report = check("swiglu", impl="mypkg.ops:swiglu")  # any importable callable with the same signature

Signatures expected of an implementation: pointwise ``f(x) -> y``; gated ``f(gate, value) -> y`` (and
``c=`` for entries with a router input); params are passed as keywords only when given to `check`.
Backward: the gradient with an upstream gradient of ones, compared with the reference derivative.
"""

from __future__ import annotations

import contextlib
import importlib
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import torch

from nonlin import functional as nf
from nonlin import route
from nonlin.accuracy import cache as _cache
from nonlin.accuracy import sampling
from nonlin.accuracy.formats import Format, get_format, to_numpy
from nonlin.accuracy.metric import measure
from nonlin.accuracy.reference import RefOutput, RefStats, evaluate, output_names
from nonlin.accuracy.report import Report, Result
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind, Spec

DEFAULT_DTYPES = ("float32", "bfloat16", "float16")
INPUT_NAMES = {Kind.POINTWISE: ("x",), Kind.GATED: ("gate", "value")}


def resolve_impl(s: Spec, impl: Any) -> tuple[str, Callable[..., torch.Tensor]]:
    """(label, callable) for impl = None (nonlin), "torch", "module:attr" or a callable."""
    if impl is None or impl == "nonlin":
        return "nonlin", nf.function(s.name)
    if isinstance(impl, str):
        if impl == "torch":
            if s.torch_equivalent is None:
                raise ValueError(f"impl='torch': {s.name} has no torch implementation (spec.torch_equivalent is None)")
            return "torch", s.torch_equivalent
        if ":" not in impl:
            raise ValueError(f"impl={impl!r}: expected 'torch', 'nonlin' or 'module:attribute' (e.g. 'mypkg.ops:gelu')")
        mod_name, attr = impl.split(":", 1)
        try:
            obj: Any = importlib.import_module(mod_name)
        except ImportError as err:
            raise ValueError(f"impl={impl!r}: cannot import module {mod_name!r} ({err})") from None
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise ValueError(f"impl={impl!r}: module {mod_name!r} has no attribute {attr!r}")
            obj = getattr(obj, part)
        if not callable(obj):
            raise TypeError(f"impl={impl!r} is a {type(obj).__name__}, not a callable")
        return impl, obj
    if callable(impl):
        return getattr(impl, "__qualname__", getattr(impl, "__name__", repr(impl))), impl
    raise TypeError(f"impl must be None, 'torch', 'module:attr' or a callable; got {type(impl).__name__}")


def reference(
    s: Spec,
    params: dict[str, Any],
    fmt: Format,
    size: int | None = None,
    use_cache: bool = True,
    cache_dir=None,
    half_size: int | None = None,
) -> tuple[tuple[np.ndarray, ...], dict[str, RefOutput], dict[str, Any]]:
    """Inputs and reference outputs (forward and backward) for one entry and format, cached on disk."""
    t0 = time.perf_counter()
    inputs = sampling.inputs(s, params, fmt, size, half_size)
    outs = (*output_names(s, False), *output_names(s, True))
    n = inputs[0].size
    sized = size if fmt.bits == 32 else half_size
    path = _cache.cache_dir(cache_dir) / f"{_cache.key(s.name, params, fmt, sized)}.npz"
    sum_ = _cache.checksum(inputs)
    if use_cache:
        refs = _cache.load(path, outs, fmt, sum_, n)
        if refs is not None:
            return inputs, refs, {"source": "cache", "seconds": time.perf_counter() - t0, "path": str(path)}
    stats = RefStats()
    fwd = evaluate(s, params, inputs, fmt, False, stats)
    bwd = evaluate(s, params, inputs, fmt, True, stats)
    refs = dict(zip(outs, [*fwd, *bwd], strict=True))
    info = {"source": "built", "seconds": time.perf_counter() - t0, "fallback": stats.fallback, "evaluations": stats.n}
    if use_cache:
        _cache.save(path, refs, fmt, sum_)
        refs = _cache.load(path, outs, fmt, sum_, n) or refs  # measure what later runs will load
        info["path"] = str(path)
    return inputs, refs, info


def _route_label(taken: list[tuple[str, ...]]) -> str:
    """The route(s) nonlin's functions took in a call, as `nonlin check` prints them ("torch/large"; "" for
    other impls)."""
    seen = dict.fromkeys(f"{r}/{z}" for _, _, _, _, z, r in taken)
    return " + ".join(seen)


def _run(s: Spec, fn, inputs: tuple[np.ndarray, ...], fmt: Format, given: dict[str, Any], backward: bool, label: str):
    """Outputs of the implementation (forward, gradients) as float64 arrays, None for missing gradients, and
    the route nonlin took for each (`nonlin.route`): the forward as inference runs it (no gradient
    recorded); with `backward`, the gradients as training runs them, and that run's forward as
    "forward_train" where training takes another route."""
    tensors = [fmt.to_tensor(a) for a in inputs]
    main = tensors[: len(INPUT_NAMES[s.kind])]
    kwargs = dict(given)
    if s.extra_inputs:
        kwargs.update({name: t for name, t in zip(s.extra_inputs, tensors[len(main) :], strict=True)})

    def call(grad: bool) -> tuple[torch.Tensor, str]:
        for t in main:
            t.requires_grad_(grad)
        try:
            with route.recording() as taken:
                y = fn(*main, **kwargs)
        except Exception as err:  # the user's code: report what failed and where
            raise RuntimeError(
                f"impl {label} raised on {fmt.name} inputs of {s.name}: {type(err).__name__}: {err}"
            ) from err
        if not isinstance(y, torch.Tensor):
            raise TypeError(f"impl {label} returned {type(y).__name__}; expected a torch.Tensor")
        if tuple(y.shape) != tuple(main[0].shape):
            raise ValueError(
                f"impl {label} returned shape {tuple(y.shape)} for inputs of shape {tuple(main[0].shape)}; "
                "expected the same shape (elementwise)"
            )
        if y.dtype != fmt.torch_dtype:
            raise TypeError(
                f"impl {label} returned dtype {y.dtype} for {fmt.torch_dtype} inputs; expected {fmt.torch_dtype}"
            )
        return y, _route_label(taken)

    y, r = call(False)
    outs: dict[str, np.ndarray | None] = {"forward": to_numpy(y)}
    routes = {"forward": r}
    names = output_names(s, True)
    if backward:
        y, r = call(True)
        if r != routes["forward"]:
            outs["forward_train"], routes["forward_train"] = to_numpy(y.detach()), r
        routes.update(dict.fromkeys(names, r))
        if y.requires_grad:
            grads = torch.autograd.grad(y, main, torch.ones_like(y), allow_unused=True)
            for name, g, t in zip(names, grads, main, strict=True):
                outs[name] = to_numpy(torch.zeros_like(t) if g is None else g)
        else:
            outs.update({name: None for name in names})
    return outs, routes


def check(
    name: str,
    impl: Any = None,
    dtypes: Sequence[str | torch.dtype] = DEFAULT_DTYPES,
    *,
    params: dict[str, Any] | None = None,
    backward: bool = True,
    size: int | None = None,
    half_size: int | None = None,
    use_cache: bool = True,
    cache_dir=None,
    size_class: str | None = None,
) -> Report:
    """Accuracy report of `impl` (default: nonlin's own) for catalog entry `name` in each dtype.

    `size`: float32 sample size (default 2^20 plus edge cases). 16-bit formats are exhaustive unless
    `half_size` asks for an evenly spread subset of about that many values (quick checks, tests).
    `size_class`: "small" or "large" measures nonlin's route for tensors of that size class
    (`nonlin.route`) on the same inputs; default: the route of the sample's own size. The report records
    the route of every output (`Report.routes`).
    """
    s = get_spec(name)
    if s.kind is Kind.NORMALIZER:
        from nonlin.accuracy.rows import check_rows

        return check_rows(s, impl, dtypes, params=params, backward=backward)
    if s.kind is Kind.SETWISE:
        from nonlin.accuracy.sets import check_sets

        return check_sets(s, impl, dtypes, params=params, backward=backward)
    if isinstance(dtypes, str | torch.dtype):
        dtypes = (dtypes,)
    fmts = [get_format(d) for d in dtypes]
    given = dict(params or {})
    resolved = s.resolve_params(given)
    if any(isinstance(v, torch.Tensor) for v in resolved.values()):
        raise TypeError(f"{s.name}: params must be numbers for an accuracy check")
    if any(v is None for v in resolved.values()):
        raise ValueError(f"{s.name}: every parameter needs a value for an accuracy check")
    label, fn = resolve_impl(s, impl)
    results: dict[str, dict[str, Result]] = {}
    timings: dict[str, Any] = {}
    routes: dict[str, dict[str, str]] = {}
    for fmt in fmts:
        inputs, refs, info = reference(s, resolved, fmt, size, use_cache, cache_dir, half_size)
        timings[fmt.name] = info
        t0 = time.perf_counter()
        with route.pinned(size_class) if size_class else contextlib.nullcontext():
            got, routes[fmt.name] = _run(s, fn, inputs, fmt, given, backward, label)
        named = dict(zip((*INPUT_NAMES[s.kind], *s.extra_inputs), inputs, strict=True))
        per: dict[str, Result] = {}
        for out, values in got.items():
            if values is None:
                per[out] = Result(None, None, note="the implementation's output does not require grad")
                continue
            # The gradient at a NaN input is a convention (identity's rule gives 1): not scored.
            exclude = None if out.startswith("forward") else np.logical_or.reduce([np.isnan(a) for a in inputs])
            ref = refs["forward" if out == "forward_train" else out]
            stats, err = measure(values, ref, fmt, named, exclude=exclude)
            per[out] = Result(stats, err)
        results[fmt.name] = per
        timings[fmt.name]["measure_seconds"] = time.perf_counter() - t0
        timings[fmt.name]["inputs"] = int(inputs[0].size)
        per["_inputs"] = Result(None, None, inputs=named)  # kept for plots
    return Report(
        s.name, label, resolved, results, timings, routes={d: r for d, r in routes.items() if any(r.values())}
    )


def check_many(names: Iterable[str], impl: Any = None, dtypes: Sequence[str] = DEFAULT_DTYPES, **kw) -> list[Report]:
    return [check(n, impl, dtypes, **kw) for n in names]
