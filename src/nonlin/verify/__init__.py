"""Verification: sound linear relaxations of every catalog entry, exact ranges, and bound propagation.

- `relax(name, lower, upper, **params)`: linear lower and upper bounds of f on each interval;
- `interval(name, lower, upper, **params)`: the exact range of f on each interval (IBP), rounded outward;
- `bounds(model, x, eps, method)`, `margin_bounds(model, x, y, eps, method)`, `certified_accuracy(...)`:
  IBP, CROWN and alpha-CROWN through nn.Sequential-style models and modules whose forward traces;
- `unrelaxable()`: the catalog entries that have no relaxation, each with the reason; `Unrelaxable` (a
  NotImplementedError) is what `relax` and the propagation raise for them.
"""

from nonlin.verify.curve import Unrelaxable
from nonlin.verify.propagate import bounds, certified_accuracy, margin_bounds
from nonlin.verify.relax import GatedRelaxation, Relaxation, interval, relax, unrelaxable

__all__ = [
    "GatedRelaxation",
    "Relaxation",
    "Unrelaxable",
    "bounds",
    "certified_accuracy",
    "interval",
    "margin_bounds",
    "relax",
    "unrelaxable",
]
