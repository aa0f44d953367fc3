"""Shared input grids and comparison helpers for the catalog-wide tests."""

from __future__ import annotations

import numpy as np
import torch

import nonlin
from nonlin import reference as R

_MAG = np.concatenate([np.logspace(-8, 4, 61), np.linspace(0.05, 10.0, 40)])
# Large and tiny magnitudes of both signs, zero, and a dense middle: tails are where formulas fail.
WIDE = np.unique(np.concatenate([-_MAG, [0.0], _MAG]))

# Points for the derivative-formula check (mpmath differentiation of the forward), kept off breakpoints.
GENERIC = (-7.3, -3.3, -1.7, -0.6, -0.013, 0.27, 0.9, 1.6, 2.7, 4.1, 9.5)


def grid_for(name: str, base: np.ndarray = WIDE) -> np.ndarray:
    """`base` plus each breakpoint of the entry at its default params and its float64 neighbours."""
    s = nonlin.spec(name)
    extra = []
    for b in s.breakpoints(**s.defaults()):
        extra += [b, np.nextafter(b, -np.inf), np.nextafter(b, np.inf), b - 1e-6, b + 1e-6]
    return np.unique(np.concatenate([base, extra]))


def rel_err(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| / |ref|, 0 where they are equal (incl. both inf), inf where one is NaN and the other not.

    Results in the subnormal range carry absolute, not relative, precision: there the error is taken
    relative to the smallest normal number.
    """
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    tiny = np.finfo(np.float64).tiny
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.abs(got - ref) / np.maximum(np.abs(ref), tiny)
    err = np.where(got == ref, 0.0, err)
    err = np.where(np.isnan(got) & np.isnan(ref), 0.0, err)
    return np.where(np.isnan(got) != np.isnan(ref), np.inf, err)


def worst(got, ref, x) -> str:
    err = rel_err(got, ref)
    i = int(np.argmax(err))
    return f"max rel err {err[i]:.3g} at x={x[i]!r}: got {got[i]!r}, reference {ref[i]!r}"


def value_and_grad(name: str, x: np.ndarray, dtype=torch.float64, **kw):
    """f(x) and df/dx (autograd through nonlin) as float64 numpy arrays."""
    t = torch.tensor(x, dtype=torch.float64).to(dtype).requires_grad_(True)
    y = nonlin.functional.function(name)(t, **kw)
    (g,) = torch.autograd.grad(y.sum(), t)
    return y.detach().double().numpy(), g.double().numpy()


_CACHE: dict[tuple, np.ndarray] = {}


def reference(name: str, x: np.ndarray, derivative: bool = False) -> np.ndarray:
    """The reference at the default params, rounded to float64; memoised across tests (mpmath is the cost)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    key = (name, derivative, x.tobytes())
    if key not in _CACHE:
        _CACHE[key] = R.pointwise_array(name, x, derivative=derivative)
    return _CACHE[key].copy()
