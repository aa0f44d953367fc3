"""Declared properties are checked against the forward, both ways: a property is declared if and only if
it is observed (on a wide float64 grid at the default parameters)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import nonlin
from nonlin.report import formula_svg

POINTWISE = nonlin.names("pointwise")
X = np.unique(np.concatenate([-np.logspace(-6, 6, 400), [0.0], np.logspace(-6, 6, 400), np.linspace(-12, 12, 2401)]))


def _f(name, x):
    return nonlin.functional.function(name)(torch.tensor(x, dtype=torch.float64)).numpy()


def _df(name, x):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(nonlin.functional.function(name)(t).sum(), t)
    return g.numpy()


def observed(name: str) -> set[str]:
    s = nonlin.spec(name)
    y = _f(name, X)
    out = set()
    if _f(name, np.array([0.0]))[0] == 0:
        out.add("zero_at_zero")
    with np.errstate(invalid="ignore"):  # inf - inf where the output overflows (exponential)
        steps = np.diff(y)
    if np.all((steps >= 0) | (y[1:] == y[:-1])):
        out.add("monotonic")
    # far out (+-1e300) as well: slow growth (symlog: 13.8 at 1e6) stays under 1e3 on the grid
    far_lo, far_hi = _f(name, np.array([-1e300, 1e300]))
    if y.min() > -1e3 and min(far_lo, far_hi) >= y.min() - 1e-6 * (1 + abs(y.min())):
        out.add("bounded_below")
    if y.max() < 1e3 and max(far_lo, far_hi) <= y.max() + 1e-6 * (1 + abs(y.max())):
        out.add("bounded_above")
    if y.min() >= 0:
        out.add("nonnegative")
    if np.array_equal(_f(name, -X), -y):
        out.add("odd")
    # a whole interval of exact zeros (not isolated roots, not underflow far out in a tail)
    if np.count_nonzero(_f(name, np.linspace(-5, 5, 2001)) == 0) > 10:
        out.add("sparse")
    bps = s.breakpoints(**s.defaults())
    jumps = [abs(_df(name, np.array([b + 1e-7]))[0] - _df(name, np.array([b - 1e-7]))[0]) for b in bps]
    if not s.gradient_rule and all(j < 1e-5 for j in jumps) and all(np.isfinite(_df(name, X)) | ~np.isfinite(y)):
        out.add("smooth")
    far = np.array([-40.0, 40.0])
    gate = _f(name, far) / far
    if abs(gate[0]) < 1e-6 and abs(gate[1] - 1) < 1e-6 and "zero_at_zero" in out and "monotonic" not in out:
        out.add("self_gated")
    return out


CHECKED = {"zero_at_zero", "monotonic", "bounded_below", "bounded_above", "nonnegative", "odd", "sparse", "smooth"}


@pytest.mark.parametrize("name", POINTWISE)
def test_declared_properties_are_observed(name):
    s = nonlin.spec(name)
    seen = observed(name)
    declared = s.properties & CHECKED
    assert declared == seen & CHECKED, f"declared {sorted(declared)}, observed {sorted(seen & CHECKED)}"
    if "self_gated" in s.properties:
        x = np.array([-40.0, 40.0])
        g = _f(name, x) / x
        assert abs(g[0]) < 1e-6 and abs(g[1] - 1) < 1e-6


@pytest.mark.parametrize("name", POINTWISE)
def test_learnable_and_stochastic_flags_match_the_params(name):
    s = nonlin.spec(name)
    assert ("learnable" in s.properties) == bool(s.learnable_params), "learnable property <=> learnable params"
    assert ("stochastic" in s.properties) == (s.eval_forward is not None)
    assert ("gradient_rule" in s.properties) == bool(s.gradient_rule)


@pytest.mark.parametrize("name", nonlin.names())
def test_every_entry_is_documented(name):
    s = nonlin.spec(name)
    assert s.formula and s.summary and s.family
    assert formula_svg(s.formula).startswith("<svg"), "the formula typesets (compare report)"
    if not s.confirmed:
        assert s.source, "an unconfirmed entry says what could not be confirmed"
