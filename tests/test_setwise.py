"""Every set-wise unit, the same way: sets against the mpmath reference at the defaults and at PARAM_CASES,
output shapes from output_size, gradcheck, dim handling, dtypes, non-finite inputs, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import nonlin
from nonlin import reference as R

SETWISE = nonlin.names("setwise")
PARAM_CASES = {
    "topk": [{"k": 1}, {"k": 2}, {"k": 5}],
    "abstopk": [{"k": 1}, {"k": 3}],
    "batchtopk": [{"k": 1}, {"k": 2}],
    "maxout": [{"num_pieces": 1}, {"num_pieces": 3}],
    "logsumexp": [{"keepdim": True}],
    "polynorm": [{"w0": 0.5, "w1": -0.2, "w2": 1.5, "b": 0.0, "eps": 1e-3}],
}
CASES = [(n, {}) for n in SETWISE] + [(n, p) for n in SETWISE for p in PARAM_CASES.get(n, [])]
CASE_IDS = [n + "".join(f"-{k}={v}" for k, v in p.items()) for n, p in CASES]
# [rows, 6]: ties, zeros, large and tiny magnitudes of both signs; 6 is a multiple of every num_pieces above.
SETS = torch.tensor(
    [
        [1.0, 0.5, -1.0, 2.0, -3.0, 0.25],
        [0.3, 0.3, 0.3, -0.3, 0.3, 0.0],
        [5.0, -2.0, 0.1, 0.09, 3.7, -40.0],
        [-1e3, 2.0, 2.0 + 1e-9, -0.5, 1e-300, -700.0],
        [0.0, -30.0, -31.0, -32.0, -33.0, -34.0],
    ],
    dtype=torch.float64,
)


def _reference(name, x, **params):
    """The reference for x [rows, n] (dim last), as float64 of the implementation's output shape."""
    s = nonlin.spec(name)
    if "batchwise" in s.properties:
        out = R.setwise(name, x.flatten().tolist(), rows=x.shape[0], **params)
        return torch.tensor([R.to_float(v) for v in out], dtype=torch.float64).reshape(x.shape)
    rows = [[R.to_float(v) for v in R.setwise(name, r.tolist(), **params)] for r in x]
    out = torch.tensor(rows, dtype=torch.float64)
    return out if params.get("keepdim", s.defaults().get("keepdim", True)) else out.squeeze(-1)


def test_every_parameter_is_exercised():
    for name in SETWISE:
        tested = {k for p in PARAM_CASES.get(name, []) for k in p}
        assert tested == {p.name for p in nonlin.spec(name).params}, name


@pytest.mark.parametrize(("name", "params"), CASES, ids=CASE_IDS)
def test_sets_match_reference(name, params):
    got = nonlin.functional.function(name)(SETS, **params)
    want = _reference(name, SETS, **params)
    assert got.shape == want.shape
    assert np.allclose(got.numpy(), want.numpy(), rtol=1e-13, atol=0), (got, want)


@pytest.mark.parametrize(("name", "params"), CASES, ids=CASE_IDS)
def test_output_size_is_declared(name, params):
    s = nonlin.spec(name)
    x = torch.randn(2, 3, 12, dtype=torch.float64)
    y = nonlin.functional.function(name)(x, dim=-1, **params)
    m = s.output_size(12, **s.resolve_params(params))
    keepdim = s.resolve_params(params).get("keepdim", True)
    assert y.shape == ((2, 3, m) if keepdim else (2, 3))


@pytest.mark.parametrize(("name", "params"), CASES, ids=CASE_IDS)
def test_gradcheck_float64(name, params):
    # Distinct values away from 0 and from each other: selections and kinks do not move under the differences.
    x = torch.randperm(12, generator=torch.Generator().manual_seed(1)).double().reshape(2, 6) * 0.37 - 2.1
    f = nonlin.functional.function(name)
    assert torch.autograd.gradcheck(lambda t: f(t, **params), (x.requires_grad_(),))
    assert torch.autograd.gradgradcheck(lambda t: f(t, **params), (x,))


@pytest.mark.parametrize(("name", "params"), CASES, ids=CASE_IDS)
def test_dim_is_any_axis(name, params):
    x = torch.randn(2, 6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    f = nonlin.functional.function(name)
    a = f(x, dim=1, **params)
    b = f(x.movedim(1, -1), dim=-1, **params)
    keepdim = nonlin.spec(name).resolve_params(params).get("keepdim", True)
    assert torch.equal(a, b if not keepdim else b.movedim(-1, 1))


@pytest.mark.parametrize("name", SETWISE)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_dtypes_round_the_float64_result(name, dtype):
    x = (torch.randn(3, 6, dtype=torch.float64) * 3).to(dtype).requires_grad_()
    f = nonlin.functional.function(name)
    y = f(x)
    assert y.dtype == dtype and torch.isfinite(y).all()
    assert torch.equal(
        y, f(x.double()).to(torch.float32).to(dtype) if dtype != torch.float32 else f(x.double()).float()
    )
    (g,) = torch.autograd.grad(y.float().sum(), x)
    assert g.dtype == dtype and torch.isfinite(g).all()


@pytest.mark.parametrize("name", SETWISE)
def test_non_finite_inputs_follow_the_reference(name):
    x = torch.tensor([[math.inf, 1.0, -2.0, 0.5, -math.inf, 3.0], [-math.inf] * 6, [math.nan, 1.0, 2.0, 3.0, 4.0, 5.0]])
    x = x.double()
    got = nonlin.functional.function(name)(x)
    want = _reference(name, x)
    assert torch.equal(torch.isnan(got), torch.isnan(want)), (got, want)
    ok = ~torch.isnan(want)
    assert torch.equal(got[ok], want[ok]), (got, want)


@pytest.mark.parametrize("name", SETWISE)
def test_accuracy_goals_on_the_sampled_sets(name):
    from nonlin.accuracy.check import check
    from nonlin.accuracy.sets import SCALES, SETS_PER, SIZES

    s = nonlin.spec(name)
    r = check(name, dtypes=("bfloat16",))
    assert r.goal_failures() == []
    outputs = sum(SETS_PER * s.output_size(n, **s.defaults()) for n in SIZES) * len(SCALES)
    assert r.outputs("bfloat16")["forward"].n == outputs


def test_maxout_needs_a_multiple_of_num_pieces():
    with pytest.raises(ValueError, match=r"size of dim \(7\) must be a multiple of num_pieces=2"):
        nonlin.functional.maxout(torch.ones(3, 7))


def test_topk_keeps_exactly_k_with_ties_to_the_lower_index():
    y = nonlin.functional.topk(torch.tensor([[1.0, 3.0, 3.0, 3.0, -1.0]]), k=2)
    assert y.tolist() == [[0.0, 3.0, 3.0, 0.0, 0.0]]


def test_batchtopk_spends_k_times_rows_over_the_batch():
    x = torch.tensor([[5.0, 4.0, 3.0], [0.1, 0.2, 0.3]])
    assert nonlin.functional.batchtopk(x, k=1).tolist() == [[5.0, 4.0, 0.0], [0.0, 0.0, 0.0]]


def test_logsumexp_matches_torch_and_keeps_small_terms():
    x = torch.randn(4, 9, dtype=torch.float64)
    assert torch.allclose(nonlin.functional.logsumexp(x), torch.logsumexp(x, -1), rtol=1e-14)
    tail = torch.tensor([0.0, -30.0], dtype=torch.float64)
    exact = math.log1p(math.exp(-30.0))
    assert abs(nonlin.functional.logsumexp(tail).item() - exact) <= 1e-16 * exact
    assert abs(torch.logsumexp(tail, 0).item() - exact) > 1e-6 * exact  # torch's log(1 + r) loses r


def test_docs_catalog_examples_run():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "catalog.md").read_text()
    blocks = text.split("```python\n")[1:]
    assert blocks, "docs/catalog.md shows code"
    for block in blocks:
        exec(compile(block.split("```")[0], "docs/catalog.md", "exec"), {})
