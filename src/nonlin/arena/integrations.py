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
    """nonlin.theory when installed with its public API (init_gain, fixed_point, sparsity_at_init), else None."""
    theory = _optional("nonlin.theory")
    return theory if hasattr(theory, "init_gain") else None


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


def _hidden_linears(model: nn.Module) -> list[nn.Linear]:
    """The Linear modules directly followed by a module that is not a Linear in an nn.Sequential, in order:
    the hidden layers of `tasks.mlp` (the readout, last in its Sequential, is not one of them)."""
    found = []
    for seq in model.modules():
        if isinstance(seq, nn.Sequential):
            for lin, nxt in itertools.pairwise(seq):
                if isinstance(lin, nn.Linear) and not isinstance(nxt, (nn.Linear, nn.Sequential)):
                    found.append(lin)
    return found


def theory_init_(model: nn.Module, act: Act) -> None:
    """Initialise the hidden layers as mean-field theory prescribes for `act`, biases zero.

    W ~ N(0, gain^2 / fan_in) keeps the pre-activation variance at q = 1 when the layer's input is the
    activation of a unit-variance pre-activation; the first hidden layer reads the (standardised) data, whose
    second moment is already 1, so its gain is 1. Other layers: nonlin.init.kaiming_normal_ when installed,
    else the gain of nonlin.theory.init_gain. The readout keeps PyTorch's default, so the comparison with the
    default init is about the hidden layers only.
    """
    gain = init_gain(act)  # fail early and clearly if the theory is absent
    init = init_module()
    for i, lin in enumerate(_hidden_linears(model)):
        with torch.no_grad():
            if i == 0:
                lin.weight.normal_(0.0, 1.0 / math.sqrt(lin.in_features))
            elif init is not None and hasattr(init, "kaiming_normal_"):
                init.kaiming_normal_(lin.weight, nonlinearity=act.name, **dict(act.params))
            else:
                lin.weight.normal_(0.0, gain / math.sqrt(lin.in_features))
            if lin.bias is not None:
                lin.bias.zero_()


THEORY_COLUMNS = ("init_gain", "chi_1", "variance_slope", "sparsity_at_init")


def theory_numbers(act: Act) -> dict[str, Any]:
    """The theory figures shown next to an act's results (keys: THEORY_COLUMNS), all at the init the theory
    prescribes (W ~ N(0, g^2 / fan_in), g = init_gain, sigma_b = 0), where q = 1 is a fixed point of the
    variance map V by construction: g; chi_1 = g^2 E[phi'(u)^2] (1: the edge of chaos; > 1 gradients grow
    with depth); V'(1), the slope of the variance map at that fixed point (> 1: unstable, small deviations
    of the variance grow layer after layer); P(phi(u) = 0), u ~ N(0, 1). Empty when nonlin.theory is not
    installed or the act is custom; an entry the theory cannot handle shows why instead of a number."""
    theory = theory_module()
    if theory is None or act.name is None or act.kind in ("normalizer", "setwise"):
        return {}
    params = dict(act.params)
    out: dict[str, Any] = {}
    calls = {
        "init_gain": lambda: float(theory.init_gain(act.name, **params)),
        "chi_1": lambda: float(theory.chi_1(act.name, 1.0, sigma_w=out["init_gain"], **params)),
        "variance_slope": lambda: _slope(theory, act.name, out["init_gain"], params),
        "sparsity_at_init": lambda: float(theory.sparsity_at_init(act.name, **params).zero_fraction),
    }
    for key, call in calls.items():
        try:
            out[key] = call()
        except Exception as err:  # theory may not cover an entry; show why rather than hide the column
            out[key] = f"n/a ({type(err).__name__})"
    return out


def _slope(theory, name: str, gain: float, params: dict[str, Any], h: float = 1e-4) -> float:
    """V'(1) by a central difference of nonlin.theory.variance_map (smooth in q for every entry)."""
    lo, hi = (float(theory.variance_map(name, q, sigma_w=gain, sigma_b=0.0, **params)) for q in (1 - h, 1 + h))
    return (hi - lo) / (2 * h)


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
