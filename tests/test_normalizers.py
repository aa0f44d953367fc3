"""Every normalizer, the same way: rows against the mpmath reference (sparse maps: bisection, independent
of the sort-based algorithm), rows summing to one, masks, fully masked rows, gradcheck, dim handling."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import nonlin
from nonlin import reference as R

NORMALIZERS = nonlin.names("normalizer")
ROWS = [
    [1.0, 0.5, -1.0],
    [0.3, 0.3, 0.3, 0.3],
    [5.0, -2.0, 0.1, 0.09, 3.7, -40.0],
    [-1e3, 2.0, 2.0 + 1e-9, -0.5],
    [100.0, 99.0, -100.0, 98.5, 0.0],
]


def _mask(n, seed):
    m = torch.rand(n, generator=torch.Generator().manual_seed(seed)) > 0.35
    m[seed % n] = True
    return m


@pytest.mark.parametrize("name", NORMALIZERS)
@pytest.mark.parametrize("masked", [False, True])
def test_rows_match_reference(name, masked):
    f = nonlin.functional.function(name)
    for i, row in enumerate(ROWS):
        s = torch.tensor(row, dtype=torch.float64)
        mask = _mask(len(row), i) if masked else None
        got = f(s, mask=mask)
        want = [float(w) for w in R.row(name, row, None if mask is None else mask.tolist())]
        assert np.allclose(got.numpy(), want, rtol=1e-12, atol=1e-15), (row, got, want)
        if mask is not None:
            assert (got[~mask] == 0).all()


@pytest.mark.parametrize("name", NORMALIZERS)
def test_row_normalized_entries_sum_to_one(name):
    s = torch.randn(7, 13, dtype=torch.float64) * 4
    w = nonlin.functional.function(name)(s, mask=torch.rand(7, 13) > 0.3)
    sums = w.sum(-1)
    alive = (w != 0).any(-1)
    if "row_normalized" in nonlin.spec(name).properties:
        assert torch.allclose(sums[alive], torch.ones_like(sums[alive]), atol=1e-12)
    assert (w >= 0).all()


@pytest.mark.parametrize("name", NORMALIZERS)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_fully_masked_rows_give_zeros_and_zero_gradient(name, dtype):
    s = torch.randn(3, 5, dtype=torch.float64).to(dtype).requires_grad_()
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[1] = False
    w = nonlin.functional.function(name)(s, mask=mask)
    assert torch.isfinite(w).all() and (w[1] == 0).all() and w.dtype == dtype
    (g,) = torch.autograd.grad((w * torch.arange(5, dtype=dtype)).sum(), s)
    assert torch.isfinite(g).all() and (g[1] == 0).all()


@pytest.mark.parametrize("name", [n for n in NORMALIZERS if n != "hardmax"])
def test_gradcheck_float64(name):
    s = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(5)) * 2
    mask = torch.rand(4, 6, generator=torch.Generator().manual_seed(6)) > 0.3
    mask[:, 0] = True
    f = nonlin.functional.function(name)
    assert torch.autograd.gradcheck(lambda t: f(t, mask=mask), (s.requires_grad_(),))


def test_hardmax_gradient_is_zero_and_ties_split():
    s = torch.tensor([[1.0, 3.0, 3.0, 0.0]], requires_grad=True)
    w = nonlin.functional.hardmax(s)
    assert w.tolist() == [[0.0, 0.5, 0.5, 0.0]]
    (g,) = torch.autograd.grad(w.sum(), s)
    assert (g == 0).all()


@pytest.mark.parametrize("name", NORMALIZERS)
def test_dim_and_broadcast_mask(name):
    s = torch.randn(2, 5, 3, dtype=torch.float64)
    f = nonlin.functional.function(name)
    causal = torch.tril(torch.ones(5, 5, dtype=torch.bool))[:, :3]  # [5, 3] broadcasts over the batch
    a = f(s, dim=1)
    b = f(s.transpose(1, 2), dim=-1).transpose(1, 2)
    assert torch.allclose(a, b, atol=1e-15)
    w = f(s, dim=-1, mask=causal)
    assert (w[:, ~causal] == 0).all()


def test_sigmoid_attn_bias_defaults_to_minus_log_n_and_can_be_set():
    s = torch.zeros(1, 8, dtype=torch.float64)
    assert torch.allclose(nonlin.functional.sigmoid_attn(s), torch.full((1, 8), 1 / 9, dtype=torch.float64))
    assert torch.allclose(nonlin.functional.sigmoid_attn(s, bias=0.0), torch.full((1, 8), 0.5, dtype=torch.float64))


def test_softmax_matches_torch_and_temperature():
    s = torch.randn(5, 9, dtype=torch.float64)
    assert torch.allclose(nonlin.functional.softmax(s), torch.softmax(s, -1), atol=1e-15)
    assert torch.allclose(nonlin.functional.softmax_t(s, tau=0.5), torch.softmax(s / 0.5, -1), atol=1e-15)


def test_sparsemax_and_entmax_are_sparse_and_close_to_projection():
    s = torch.tensor([[3.0, 1.0, 0.2, -2.0]], dtype=torch.float64)
    assert nonlin.functional.sparsemax(s).tolist() == [[1.0, 0.0, 0.0, 0.0]]
    ent = nonlin.functional.entmax15(torch.tensor([[3.0, 2.5, 0.2, -2.0]], dtype=torch.float64))
    assert (ent[0, 2:] == 0).all() and ent[0, 1] > 0 and abs(ent.sum().item() - 1) < 1e-15
