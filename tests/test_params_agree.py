"""Agreement with torch at non-default parameters: the catalog-wide tests run at the defaults, so a body that
mishandles a parameter (a branch, a scale) would pass them. Every entry with a torch equivalent is compared
with it at each float parameter moved off its default (within its admissible range) and each boolean parameter
flipped (logsumexp's keepdim: a flag, never a number)."""

from __future__ import annotations

import pytest
import torch

import nonlin
from nonlin.spec import Kind, Spec

WITH_TORCH = [
    n
    for n in nonlin.names()
    if (s := nonlin.spec(n)).torch_equivalent is not None
    and s.kind is not Kind.NORMALIZER
    and not s.stochastic
    and any(not p.integer and p.default is not None for p in s.params)
]


def _moved(s: Spec) -> dict[str, float | bool]:
    out = {}
    for p in s.params:
        if p.boolean:
            out[p.name] = not p.default
            continue
        if p.integer or p.default is None:
            continue
        for v in (p.default * 1.3 + (0.1 if p.default >= 0 else -0.1), p.default * 0.7):
            if p.admits(v):
                out[p.name] = v
                break
    return out


@pytest.mark.parametrize("name", WITH_TORCH)
def test_agrees_with_torch_at_moved_parameters(name):
    s = nonlin.spec(name)
    params = _moved(s)
    assert params, "no parameter could be moved within its range"
    f = nonlin.functional.function(name)
    grid = torch.linspace(-12, 12, 481, dtype=torch.float64)
    if s.kind is Kind.GATED:
        g, v = torch.meshgrid(grid[::10], grid[::10], indexing="ij")
        ours, theirs = f(g.flatten(), v.flatten(), **params), s.torch_equivalent(g.flatten(), v.flatten(), **params)
    else:
        ours, theirs = f(grid, **params), s.torch_equivalent(grid, **params)
    assert torch.allclose(ours, theirs, rtol=1e-9, atol=1e-12, equal_nan=True), (params, (ours - theirs).abs().max())
