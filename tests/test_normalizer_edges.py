"""Normalizer edge cases found by other projects' tests (issue 13): shift invariance of the sort-based maps,
entmax15's double backward on a partial support, an empty `dim`, and rows of only -inf scores.

Decisions tested here (module docstring of nonlin.catalog.normalizers, README):
- a -inf score is a masked key, so a row whose scores are all -inf gives zeros and zero gradient, exactly as
  the same row fully masked does (torch's SDPA, ``torch._safe_softmax``, does the same; torch.softmax gives NaN).
  Each entry declares what a masked key gets (``spec.masked_value``: 0, or -inf for log_softmax, the log of the
  zero weight) and which score masks a key (``spec.masking_score``: -inf, or +inf for softmin);
- softmin(s) = softmax(-s) on every input, infinities included: +inf is softmin's masked key and an all +inf row
  its fully masked row; a -inf score is its strongest key (softmax's +inf), so that row is NaN, as torch.softmin
  gives and as nonlin's softmax gives at +inf. A user who masks softmin's keys with -inf, as for softmax,
  would otherwise get a silent answer for the opposite intent; NaN says so;
- an empty `dim` gives the empty result, as torch.softmax does, for every normalizer.

Entries with extra tensor inputs get them from `_extra`: differential_attn's second score set carries the same
additive mask as the first (one attention mask is added to both score sets), and gumbel_softmax's noise is fixed
and given to the reference too.
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


def _extra(name: str, scores: torch.Tensor) -> dict[str, torch.Tensor]:
    """The extra tensor inputs an entry takes (`spec.extra_inputs`), fixed and of the scores' shape: standard
    Gumbel draws, serving as gumbel_softmax's noise and as differential_attn's second score set, which gets the
    scores' masking score where the scores have it (the same additive mask on both score sets)."""
    s = nonlin.spec(name)
    u = torch.rand(scores.shape, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    g = (-torch.log(-torch.log(u))).to(scores.dtype)
    out = {}
    for k in s.extra_inputs:
        if k == "gumbels":  # noise, not a score: finite everywhere
            out[k] = g
        else:
            out[k] = torch.where(scores.detach() == s.masking_score, s.masking_score, g)
    return out


@pytest.mark.parametrize("name", NORMALIZERS)
@pytest.mark.parametrize("dim", [-1, 0])
def test_empty_dim_gives_the_empty_result_like_torch_softmax(name, dim):
    shape = (2, 0) if dim == -1 else (0, 3)
    s = torch.zeros(shape, requires_grad=True)
    extra = _extra(name, s)
    got = F.function(name)(s, dim=dim, **extra)
    want = torch.softmax(s, dim=dim)
    assert got.shape == want.shape and got.dtype == want.dtype
    got.sum().backward()
    assert s.grad is not None and s.grad.shape == s.shape
    mask = torch.zeros(shape, dtype=torch.bool)
    assert F.function(name)(s, dim=dim, mask=mask, **extra).shape == want.shape
    if nonlin.spec(name).stochastic:  # the noise drawn by the entry itself
        assert F.function(name)(s, dim=dim).shape == want.shape


@pytest.mark.parametrize("name", NORMALIZERS)
def test_row_of_only_masking_scores_is_a_fully_masked_row(name):
    spec = nonlin.spec(name)
    m, masked = spec.masking_score, spec.masked_value
    s = torch.tensor([[m] * 4, [0.5, m, 1.0, -2.0], [1.0, 2.0, 0.0, -1.0]], requires_grad=True)
    extra = _extra(name, s)
    f = F.function(name)
    w = f(s, **extra)
    mask = torch.zeros(1, 4, dtype=torch.bool)
    fully_masked = f(torch.randn(1, 4), mask=mask, **{k: v[:1] for k, v in extra.items()})
    assert torch.equal(w[0], torch.full((4,), masked))  # no key left: the masked value, not NaN
    assert torch.equal(w[0], fully_masked[0])
    assert w[1, 1] == masked  # a masking score among finite ones is a masked key
    live = torch.ones_like(w, dtype=torch.bool)
    live[0], live[1, 1] = False, False
    assert torch.isfinite(w[live]).all()
    w.sum().backward()  # a sum's backward is all ones, log_softmax's -inf values included
    assert torch.isfinite(s.grad).all() and torch.equal(s.grad[0], torch.zeros(4))
    noise = {k: v[0].tolist() for k, v in extra.items()}
    assert all(float(v) == masked for v in R.row(name, [m] * 4, **noise))  # the reference agrees


def test_softmin_is_softmax_of_the_negated_scores_at_infinities():
    inf = torch.inf
    s = torch.tensor([[-inf, 0.5, 1.0], [-inf, -inf, 0.0], [-inf] * 3, [inf, 0.5, 1.0], [inf] * 3])
    got = F.softmin(s)
    assert torch.equal(got.isnan(), F.softmax(-s).isnan())
    assert got[:3].isnan().all()  # -inf is softmin's strongest key: NaN as torch.softmin, not a masked key
    assert torch.nn.functional.softmin(s[:3], dim=-1).isnan().all()
    assert torch.equal(got[3:], F.softmax(-s[3:])) and torch.equal(got[4], torch.zeros(3))
    assert torch.allclose(got[3], torch.nn.functional.softmin(s[3], dim=-1))
