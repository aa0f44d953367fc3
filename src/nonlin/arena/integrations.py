"""Call sites into the other subsystems the arena uses when they are installed: nonlin.theory (init gain and
the numbers shown next to results), nonlin.init (the theory-given initialisation of deep_mlp) and
nonlin.probe (activation sparsity and dead units). Each is imported lazily so the arena runs without them;
what is missing is reported as missing, never replaced by a local copy of the theory or the probes."""

from __future__ import annotations

import importlib
import itertools
import math
from types import ModuleType
from typing import Any

import torch
from torch import nn

from nonlin.arena.acts import ARENA_ACT_TAG, Act


def _optional(module: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def theory_module():
    return _optional("nonlin.theory")


def init_module():
    return _optional("nonlin.init")


def probe_module():
    return _optional("nonlin.probe")


def init_gain(act: Act) -> float:
    """The weight-std multiplier nonlin.theory gives for `act` (keeps the pre-activation variance fixed)."""
    theory = theory_module()
    if theory is None or not hasattr(theory, "init_gain"):
        raise RuntimeError("the theory-given init needs nonlin.theory.init_gain, which is not installed in this nonlin")
    if act.name is None:
        raise ValueError(f"{act.label} is a custom callable: nonlin.theory has no init gain for it")
    return float(theory.init_gain(act.name, **dict(act.params)))


def theory_init_(model: nn.Module, act: Act) -> None:
    """Initialise every Linear that feeds the nonlinearity as nonlin.init prescribes for it (biases zero).

    Hidden layers are the Linear modules directly followed by the activation in an nn.Sequential; the
    readout keeps PyTorch's default, so the comparison with the default init is about the hidden layers only.
    """
    gain = init_gain(act)  # fail early and clearly if theory is absent
    init = init_module()
    for seq in model.modules():
        if not isinstance(seq, nn.Sequential):
            continue
        children = list(seq)
        for lin, nxt in itertools.pairwise(children):
            if not isinstance(lin, nn.Linear) or isinstance(nxt, (nn.Linear, nn.Sequential)):
                continue
            if init is not None and hasattr(init, "kaiming_normal_"):
                init.kaiming_normal_(lin.weight, nonlinearity=act.name, **dict(act.params))
            else:
                with torch.no_grad():
                    lin.weight.normal_(0.0, gain / math.sqrt(lin.in_features))
            if lin.bias is not None:
                nn.init.zeros_(lin.bias)


THEORY_COLUMNS = ("init_gain", "chi_1", "q_star", "sparsity_at_init", "critical_sigma_w")


def _field(obj: Any, *names: str) -> float:
    """A number from a theory result: the object itself, or its first field/key among `names`."""
    if isinstance(obj, (int, float)):
        return float(obj)
    for n in names:
        v = obj.get(n) if isinstance(obj, dict) else getattr(obj, n, None)
        if v is not None:
            return float(v)
    raise TypeError(f"no field {' or '.join(names)} in {type(obj).__name__}")


def theory_numbers(act: Act) -> dict[str, Any]:
    """The theory figures shown next to an act's results (keys: THEORY_COLUMNS): init gain, chi_1 and q* at
    that init (sigma_b = 0), sparsity at init, the critical sigma_w at sigma_b = 0. Empty when nonlin.theory is
    not installed or the act is custom; an entry theory cannot handle shows why instead of a number."""
    theory = theory_module()
    if theory is None or not hasattr(theory, "init_gain") or act.name is None or act.kind == "normalizer":
        return {}
    params = dict(act.params)
    out: dict[str, Any] = {}

    def fixed_point():
        return theory.fixed_point(act.name, sigma_w=float(out["init_gain"]), sigma_b=0.0, **params)

    calls = {
        "init_gain": lambda: _field(theory.init_gain(act.name, **params)),
        "chi_1": lambda: _field(fixed_point(), "chi_1", "chi1"),
        "q_star": lambda: _field(fixed_point(), "q_star", "q"),
        "sparsity_at_init": lambda: _field(theory.sparsity_at_init(act.name, **params), "p_zero", "zero", "sparsity"),
        "critical_sigma_w": lambda: _field(theory.edge_of_chaos(act.name, sigma_b=0.0, **params), "sigma_w"),
    }
    for key, call in calls.items():
        try:
            out[key] = call()
        except Exception as err:  # theory may not cover an entry; show why rather than hide the column
            out[key] = f"n/a ({type(err).__name__})"
    return out


def _watch():
    """nonlin.probe.watch, or None when the probes are not installed."""
    probe = probe_module()
    if probe is None:
        return None
    watch = getattr(probe, "watch", None)
    if watch is None:  # a package without its public re-export (yet): the submodule's class is the same API
        watch = _optional("nonlin.probe.watch")
    if isinstance(watch, ModuleType):
        watch = getattr(watch, "Watch", None)
    return watch if callable(watch) else None


def _is_arena_act(name: str, module: nn.Module) -> bool:
    return bool(getattr(module, ARENA_ACT_TAG, False))


def activation_stats(model: nn.Module, inputs: Any) -> dict[str, float] | None:
    """Activation sparsity and dead-unit rate of `model` on `inputs`, through nonlin.probe.watch.

    Measured on the outputs of the modules built by ``Act.module()`` (tagged), in eval mode, without
    gradients. ``sparsity``: the share of exact zeros over every entry of every such layer; ``dead_rate``:
    the share of units (over all layers) that are zero on every row of `inputs` (probe's "dead").
    None when nonlin.probe is not installed (the result columns stay empty).
    """
    watch = _watch()
    if watch is None:
        return None
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad(), watch(model, metrics=("sparsity", "dead"), where=_is_arena_act) as w:
            model(inputs)
    finally:
        model.train(was_training)
    rows = [r for r in w.results() if r.get("entries")]
    if not rows:
        return None
    entries = sum(r["entries"] for r in rows)
    units = sum(r["units"] for r in rows)
    return {
        "sparsity": sum(r["sparsity_zero"] * r["entries"] for r in rows) / entries,
        "dead_rate": sum(r["dead"] * r["units"] for r in rows) / units,
    }
