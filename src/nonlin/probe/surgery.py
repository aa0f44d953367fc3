"""``swap``: replace nonlinearity modules inside a model by catalog entries (or any module), and undo it.

What is replaced: every module attribute that holds a matching nonlinearity module (found as in
`nonlin.probe.discovery`), at every place it is attached (a module shared by two parents is replaced
by one new module shared the same way). The originals are kept, so ``undo()`` puts the very same
objects back: the model is then identical bit for bit (parameters, buffers, outputs).

The new module gets the device and floating dtype of the module it replaces (of its parameters; for
parameter-free activations, of the nearest parent's parameters) and its training mode. A catalog
target is built with ``nonlin.get(name, **params)``: learnable parameters are created as its spec says
(``learnable=`` chooses, as in ``nonlin.get``) and initialised to the spec's defaults.

Functional calls (``F.gelu(x)`` or ``x.relu()`` inside some ``forward``) are not modules and cannot be
swapped; they are reported, never silently skipped:
- with ``example_inputs``, one forward pass runs under a ``TorchFunctionMode`` that records every
  call of a nonlinearity function and the module whose forward made it (robust: it sees exactly what
  runs). The pass runs with the model in eval mode under ``no_grad``, with the RNG state restored after,
  so it changes nothing (no BatchNorm statistics, no dropout draws);
- without, the source of each module class's ``forward`` is scanned for such calls (cheap, but it sees
  only the code it can read, not helpers it calls).
Calls made by a nonlinearity module's own forward (``nn.GELU`` calls ``F.gelu``) are not reported.
"""

from __future__ import annotations

import copy
import inspect
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.overrides import TorchFunctionMode

from nonlin.modules import get
from nonlin.probe import discovery
from nonlin.probe._io import format_table
from nonlin.probe.attention import _call
from nonlin.probe.discovery import Site, Where
from nonlin.registry import resolve

# Functions (and Tensor methods) that compute a catalog nonlinearity, by catalog name.
_FUNCTIONS: dict[str, tuple[Any, ...]] = {
    "relu": (F.relu, F.relu_, torch.relu, torch.relu_, torch.Tensor.relu, torch.Tensor.relu_),
    "gelu": (F.gelu,),
    "silu": (F.silu,),
    "mish": (F.mish,),
    "elu": (F.elu, F.elu_),
    "selu": (F.selu, torch.selu),
    "celu": (F.celu,),
    "leaky_relu": (F.leaky_relu, F.leaky_relu_),
    "softplus": (F.softplus,),
    "hardtanh": (F.hardtanh, F.hardtanh_),
    "relu6": (F.relu6,),
    "hardswish": (F.hardswish,),
    "hardsigmoid": (F.hardsigmoid,),
    "glu": (F.glu,),
    "sigmoid": (torch.sigmoid, F.sigmoid, torch.Tensor.sigmoid, torch.Tensor.sigmoid_),
    "tanh": (torch.tanh, F.tanh, torch.Tensor.tanh, torch.Tensor.tanh_),
    "log_sigmoid": (F.logsigmoid,),
    "softsign": (F.softsign,),
    "soft_threshold": (F.softshrink,),
    "hardshrink": (F.hardshrink,),
    "prelu": (F.prelu,),
    "rrelu": (F.rrelu,),
    "erf": (torch.erf, torch.special.erf, torch.Tensor.erf),
    "softmax": (F.softmax, torch.softmax, torch.Tensor.softmax),
}
_BY_FUNCTION = {f: name for name, fs in _FUNCTIONS.items() for f in fs}
# Source patterns: `F.gelu(`, `nn.functional.gelu(`, `torch.tanh(`, `.relu()` on a tensor...
_SOURCE_NAMES = {
    "relu": "relu",
    "relu_": "relu",
    "gelu": "gelu",
    "silu": "silu",
    "mish": "mish",
    "elu": "elu",
    "selu": "selu",
    "celu": "celu",
    "leaky_relu": "leaky_relu",
    "softplus": "softplus",
    "hardtanh": "hardtanh",
    "relu6": "relu6",
    "hardswish": "hardswish",
    "hardsigmoid": "hardsigmoid",
    "glu": "glu",
    "sigmoid": "sigmoid",
    "tanh": "tanh",
    "logsigmoid": "log_sigmoid",
    "softsign": "softsign",
    "softshrink": "soft_threshold",
    "hardshrink": "hardshrink",
    "softmax": "softmax",
}
_SOURCE_RE = re.compile(
    r"(?:\bF|functional|\btorch|\bspecial)\.(" + "|".join(sorted(_SOURCE_NAMES, key=len, reverse=True)) + r")\s*\("
    r"|\.(relu|sigmoid|tanh|softmax)\s*\(\s*\)"
)


@dataclass(frozen=True)
class FunctionalCall:
    """A nonlinearity computed by a function call inside a module's forward (not swappable)."""

    module: str  # qualified name of the module whose forward made the call ("" = the model itself)
    cls: str
    function: str
    catalog: str
    how: str  # "traced" (seen in a forward pass) or "source" (found in the forward's source)
    count: int = 1


@dataclass(frozen=True)
class Replacement:
    path: str  # qualified name of the attribute replaced
    old: str
    new: str
    old_module: nn.Module = field(repr=False, compare=False)
    new_module: nn.Module = field(repr=False, compare=False)


class SwapReport:
    """What `swap` did: ``replaced`` (path, old -> new), ``functional`` calls found, ``unswapped`` (those
    of a requested source), and ``undo()``."""

    def __init__(self, replaced: list[Replacement], slots: list[tuple[nn.Module, str, nn.Module, nn.Module]]):
        self.replaced = replaced
        self.functional: list[FunctionalCall] = []
        self.unswapped: list[FunctionalCall] = []
        self._slots = slots  # (parent, attribute, old module, new module)
        self.undone = False

    def undo(self) -> None:
        """Put every original module back (the same objects: the model is restored bit for bit)."""
        if self.undone:
            raise RuntimeError("this swap was already undone")
        for parent, attr, _old, new in reversed(self._slots):
            if parent._modules.get(attr) is not new:
                raise RuntimeError(f"cannot undo: {attr!r} of {type(parent).__name__} was changed after the swap")
        for parent, attr, old, _ in reversed(self._slots):
            setattr(parent, attr, old)
        self.undone = True

    def table(self) -> str:
        rows = [[r.path, r.old, r.new] for r in self.replaced]
        out = format_table(["module", "old", "new"], rows) if rows else "(nothing replaced)"
        if self.functional:
            rows = [[f.module or "(model)", f.cls, f.function, f.catalog, f.how, str(f.count)] for f in self.functional]
            out += "\n\nfunctional nonlinearity calls (not swappable):\n"
            out += format_table(["in module", "class", "function", "catalog", "found by", "calls"], rows)
        return out

    def __repr__(self) -> str:
        return f"SwapReport(replaced={len(self.replaced)}, unswapped={len(self.unswapped)}, undone={self.undone})"


def _describe(site: Site) -> str:
    return site.cls + (f" ({site.catalog})" if site.catalog else "")


def _source_matcher(key: Any) -> tuple[str, Any]:
    """A key of the mapping -> (label, predicate on Site)."""
    if isinstance(key, type):
        if not issubclass(key, nn.Module):
            raise TypeError(f"swap source {key!r} is a class but not a torch.nn.Module subclass")
        return key.__name__, lambda s: isinstance(s.module, key)
    if isinstance(key, str):
        name = resolve(key)  # ValueError with close names for unknown ones
        return name, lambda s: s.catalog == name
    raise TypeError(f"swap source must be a catalog name or a module class; got {type(key).__name__} ({key!r})")


def _source_catalog(key: Any) -> str | None:
    """The catalog name a source stands for, to match functional calls against it."""
    if isinstance(key, str):
        return resolve(key)
    try:
        site = discovery.classify(key())
    except Exception:  # classes needing constructor arguments
        return None
    return site.catalog if site else None


def _build_target(target: Any, params: Mapping[str, Any]) -> tuple[str, Any]:
    """A target -> (label, factory() -> new module)."""
    if isinstance(target, tuple) and len(target) == 2 and isinstance(target[0], str) and isinstance(target[1], Mapping):
        target, params = target[0], {**params, **target[1]}
    if isinstance(target, str):
        name = resolve(target)
        get(name, **params)  # fail now, with the spec's message, on bad params
        return name, lambda: get(name, **params)
    if isinstance(target, nn.Module):
        if params:
            raise TypeError("params (e.g. tau=0.5) apply to catalog targets only, not to a module template")
        return type(target).__name__, lambda: copy.deepcopy(target)
    raise TypeError(
        f"swap target must be a catalog name, (name, params) or an nn.Module; got {type(target).__name__} ({target!r})"
    )


def _reference(model: nn.Module, parents: list[nn.Module], old: nn.Module) -> torch.Tensor | None:
    """A tensor whose device and dtype the new module should take."""
    for m in (old, *parents, model):
        for t in (*m.parameters(), *m.buffers()):
            if t.is_floating_point():
                return t
    return None


def _slots(model: nn.Module) -> dict[int, list[tuple[nn.Module, str, str]]]:
    """id(module) -> every (parent, attribute, qualified name) holding it."""
    out: dict[int, list[tuple[nn.Module, str, str]]] = {}
    for pname, parent in model.named_modules(remove_duplicate=False):
        for attr, child in parent._modules.items():
            if child is not None:
                out.setdefault(id(child), []).append((parent, attr, f"{pname}.{attr}" if pname else attr))
    return out


class _Recorder(TorchFunctionMode):
    def __init__(self, stack: list[tuple[str, nn.Module]], skip: set[int]) -> None:
        super().__init__()
        self.stack, self.skip = stack, skip
        self.calls: dict[tuple[str, str], list[Any]] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = _BY_FUNCTION.get(func)
        if name is not None and not (self.stack and id(self.stack[-1][1]) in self.skip):
            if name == "gelu" and kwargs.get("approximate", "none") == "tanh":
                name = "gelu_tanh"
            where, mod = self.stack[-1] if self.stack else ("", None)
            entry = self.calls.setdefault((where, getattr(func, "__name__", str(func))), [type(mod).__name__, name, 0])
            entry[2] += 1
        return func(*args, **kwargs)


def trace_functional(model: nn.Module, example_inputs: Any) -> list[FunctionalCall]:
    """Nonlinearity function calls made during one forward of `model` on `example_inputs` (see module doc)."""
    nonlin_modules = {id(m) for m in model.modules() if discovery.classify(m) is not None}
    stack: list[tuple[str, nn.Module]] = []
    handles = []
    modes = {m: m.training for m in model.modules()}
    rng = torch.random.get_rng_state()
    cuda_rng = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None

    def enter(mod: nn.Module, args: Any, name: str) -> None:
        stack.append((name, mod))

    def leave(mod: nn.Module, args: Any, out: Any) -> None:  # must return None: a value would replace the output
        if stack:
            stack.pop()

    for name, m in model.named_modules():
        handles.append(m.register_forward_pre_hook(lambda mod, args, _n=name: enter(mod, args, _n)))
        handles.append(m.register_forward_hook(leave))
    recorder = _Recorder(stack, nonlin_modules)
    try:
        model.eval()
        with torch.no_grad(), recorder:
            _call(model, example_inputs)
    finally:
        for h in handles:
            h.remove()
        for m, mode in modes.items():
            m.training = mode
        torch.random.set_rng_state(rng)
        if cuda_rng is not None:
            torch.cuda.set_rng_state_all(cuda_rng)
    return [FunctionalCall(where, cls, fn, cat, "traced", n) for (where, fn), (cls, cat, n) in recorder.calls.items()]


def scan_functional(model: nn.Module) -> list[FunctionalCall]:
    """Nonlinearity function calls found in the source of each module class's forward (see module doc)."""
    out, seen = [], set()
    for name, m in model.named_modules():
        cls = type(m)
        if cls in seen or discovery.classify(m) is not None:
            continue
        seen.add(cls)
        if cls.__module__.startswith("torch.nn."):
            continue  # torch's own containers and layers
        try:
            src = inspect.getsource(cls.forward)
        except (OSError, TypeError):
            continue
        found: dict[str, int] = {}
        for match in _SOURCE_RE.finditer(src):
            fn = match.group(1) or match.group(2)
            found[fn] = found.get(fn, 0) + 1
        for fn, n in found.items():
            out.append(FunctionalCall(name, cls.__name__, fn, _SOURCE_NAMES[fn], "source", n))
    return out


def swap(
    model: nn.Module,
    mapping: Mapping[Any, Any] | str | type,
    target: Any = None,
    /,
    *,
    where: Where = None,
    example_inputs: Any = None,
    strict: bool = True,
    **params: Any,
) -> SwapReport:
    """Replace nonlinearity modules of `model` in place; returns a `SwapReport` with ``undo()``.

    ``swap(model, {"gelu": "relu"})``, ``swap(model, torch.nn.GELU, "shifted_relu", tau=0.5)``,
    ``swap(model, {"gelu": ("shifted_relu", {"tau": 0.5})})``, ``swap(model, {"silu": nn.ReLU()})``.
    Sources: catalog names or aliases (matching modules whose catalog entry is that one, e.g. "gelu"
    matches nn.GELU() and transformers' GELUActivation, not the tanh approximation "gelu_tanh") or module
    classes. Targets: catalog names (``**params`` go to ``nonlin.get``, e.g. ``tau=0.5``, ``learnable=True``)
    or a module to copy. ``where`` restricts to some modules (patterns, classes or a callable, as in
    `discovery.find`). ``strict``: raise when a source matches no module (default) instead of reporting it.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    if isinstance(mapping, Mapping):
        if target is not None:
            raise TypeError("pass either a mapping {source: target} or (source, target), not both")
        pairs = list(mapping.items())
    else:
        if target is None:
            raise TypeError("swap(model, source, target): target is missing")
        pairs = [(mapping, target)]
    if not pairs:
        raise ValueError("swap: the mapping is empty")
    plan = []
    for key, tgt in pairs:
        label, pred = _source_matcher(key)
        tlabel, factory = _build_target(tgt, params)
        plan.append((key, label, pred, tlabel, factory))

    functional = trace_functional(model, example_inputs) if example_inputs is not None else scan_functional(model)
    candidates = discovery.find(model, where, kinds=None) if where is not None else _all_sites(model)
    holders = _slots(model)
    parents_of = {id(m): [p for p, _, _ in holders.get(id(m), [])] for m in model.modules()}
    replaced: list[Replacement] = []
    slots: list[tuple[nn.Module, str, nn.Module, nn.Module]] = []
    done: set[int] = set()
    for key, label, pred, tlabel, factory in plan:
        matched = [s for s in candidates if id(s.module) not in done and pred(s)]
        if not matched and strict:
            found = ", ".join(sorted({_describe(s) for s in candidates})) or "none"
            calls = [f for f in functional if f.catalog == _source_catalog(key)]
            where_calls = ", ".join(f"{c.function} in {c.module or 'the model'}" for c in calls)
            hint = f"; it is computed by functional calls ({where_calls}), which cannot be swapped" if calls else ""
            raise ValueError(
                f"swap: no module matches {label!r} in {type(model).__name__}{hint}; modules found: {found}"
            )
        for site in matched:
            new = factory()
            old_kind = site.kind if site.catalog else None
            new_site = discovery.classify(new)
            new_kind = new_site.kind if new_site is not None and new_site.catalog else None
            if old_kind is not None and new_kind is not None and old_kind is not new_kind:
                raise ValueError(
                    f"swap: {site.name} is a {old_kind.value} nonlinearity ({site.catalog}) but {tlabel} is "
                    f"{new_kind.value}; replacing across kinds would change tensor shapes"
                )
            ref = _reference(model, parents_of.get(id(site.module), []), site.module)
            if ref is not None:
                new = new.to(device=ref.device, dtype=ref.dtype)
            new.train(site.module.training)
            for parent, attr, qual in holders.get(id(site.module), []):
                slots.append((parent, attr, site.module, new))
                setattr(parent, attr, new)
                replaced.append(Replacement(qual, _describe(site), tlabel, site.module, new))
            done.add(id(site.module))
    report = SwapReport(replaced, slots)
    report.functional = functional
    wanted = {c for c in (_source_catalog(k) for k, *_ in plan) if c}
    report.unswapped = [f for f in functional if f.catalog in wanted]
    if report.unswapped:
        warnings.warn(
            "swap: functional calls of "
            + ", ".join(sorted({f"{f.function} in {f.module or 'the model'}" for f in report.unswapped}))
            + " compute a swapped nonlinearity but cannot be replaced (see report.unswapped)",
            stacklevel=2,
        )
    return report


def _all_sites(model: nn.Module) -> list[Site]:
    try:
        return discovery.find(model, None, kinds=None)
    except ValueError:
        return []
