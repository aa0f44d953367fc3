"""Normalizer edge cases found by other projects' tests (issue 13): shift invariance of the sort-based maps,
entmax15's double backward on a partial support, an empty `dim`, and rows of only -inf scores.

Decisions tested here (module docstring of nonlin.catalog.normalizers, README):
- a -inf score is a masked key, so a row whose scores are all -inf gives zeros and zero gradient, exactly as
  the same row fully masked does (torch's SDPA, ``torch._safe_softmax``, does the same; torch.softmax gives NaN);
- an empty `dim` gives the empty result, as torch.softmax does, for every normalizer.
"""

from __future__ import annotations

import pytest
import torch
from mpmath import mp

import nonlin
from nonlin import reference as R

F = nonlin.functional
NORMALIZERS = nonlin.names("normalizer")


def _exact(name, row):
    with mp.workdps(60):
        return [float(w) for w in R.row(name, [float(v) for v in row], dps=60)]


@pytest.mark.parametrize(
    ("row", "dtype"),
    [
        ((torch.tensor([0.3, 0.1, -0.2], dtype=torch.float64) + 1e15).tolist(), torch.float64),
        ([2.0**53] * 3, torch.float64),
        ([1e16] * 4, torch.float32),
        ([1e300, -1e300, 0.0], torch.float64),
        ([1e308, -1e308, 1e308], torch.float64),  # the shifted row overflows to -inf: a zero weight
        ([3.0e38, 1.0, -3.0e38], torch.float32),
    ],
)
@pytest.mark.parametrize("name", ["sparsemax", "entmax15"])
def test_sparse_maps_are_shift_invariant_in_floating_point(name, row, dtype):
    x = torch.tensor(row, dtype=dtype)
    got = F.function(name)(x)
    want = torch.tensor(_exact(name, x.tolist()), dtype=torch.float64)
    tol = 4 * torch.finfo(dtype).eps
    assert torch.allclose(got.double(), want, rtol=tol, atol=tol), (got, want)
    assert abs(float(got.double().sum()) - 1.0) <= tol


def test_entmax15_double_backward_is_finite_and_right_on_a_partial_support():
    z = torch.tensor([[1.0, 0.2, -3.0, 0.5], [2.0, -1.0, -1.5, 1.9]], dtype=torch.float64, requires_grad=True)
    p = F.entmax15(z)
    assert (p == 0).any() and (p > 0).sum() > 1  # partial support in both rows
    v = torch.tensor([[0.3, -1.0, 2.0, 0.7], [1.0, 0.5, -0.2, -2.0]], dtype=torch.float64)
    (g,) = torch.autograd.grad(F.entmax15(z), z, v, create_graph=True)
    (gg,) = torch.autograd.grad(g, z, torch.ones_like(g))
    assert torch.isfinite(gg).all()

    def first_backward(zz):
        (gz,) = torch.autograd.grad(F.entmax15(zz), zz, v)
        return gz.sum()

    h = 1e-6
    fd = torch.zeros_like(z)
    for i in range(z.shape[0]):
        for j in range(z.shape[1]):
            e = torch.zeros_like(z)
            e[i, j] = h
            fd[i, j] = (
                first_backward((z + e).detach().requires_grad_()) - first_backward((z - e).detach().requires_grad_())
            ) / (2 * h)
    assert torch.allclose(gg, fd, rtol=1e-6, atol=1e-7), (gg, fd)
    assert torch.autograd.gradgradcheck(F.entmax15, (z,))


@pytest.mark.parametrize("name", NORMALIZERS)
@pytest.mark.parametrize("dim", [-1, 0])
def test_empty_dim_gives_the_empty_result_like_torch_softmax(name, dim):
    shape = (2, 0) if dim == -1 else (0, 3)
    s = torch.zeros(shape, requires_grad=True)
    got = F.function(name)(s, dim=dim)
    want = torch.softmax(s, dim=dim)
    assert got.shape == want.shape and got.dtype == want.dtype
    got.sum().backward()
    assert s.grad is not None and s.grad.shape == s.shape
    mask = torch.zeros(shape, dtype=torch.bool)
    assert F.function(name)(s, dim=dim, mask=mask).shape == want.shape


@pytest.mark.parametrize("name", NORMALIZERS)
def test_all_minus_inf_row_is_a_fully_masked_row(name):
    s = torch.tensor([[-torch.inf] * 4, [0.5, -torch.inf, 1.0, -2.0], [1.0, 2.0, 0.0, -1.0]], requires_grad=True)
    w = F.function(name)(s)
    fully_masked = F.function(name)(torch.randn(1, 4), mask=torch.zeros(1, 4, dtype=torch.bool))
    assert torch.equal(w[0], torch.zeros(4))  # no key left: zeros, not NaN
    assert torch.equal(w[0], fully_masked[0])
    assert torch.isfinite(w).all()
    assert w[1, 1] == 0  # a -inf key among finite ones has weight 0
    w.sum().backward()
    assert torch.isfinite(s.grad).all() and torch.equal(s.grad[0], torch.zeros(4))
    assert all(float(v) == 0 for v in R.row(name, [float("-inf")] * 4))  # the reference agrees
