"""Every normalizer, the same way: rows against the mpmath reference (sparse maps: bisection, independent
of the sort-based algorithm) at the defaults and at the parameter values in PARAM_CASES, rows summing to one,
masks, fully masked rows, gradcheck, dim handling, identities between entries. Stochastic entries get their
noise as a tensor (the same noise goes to the reference); log-domain entries give -inf where others give 0."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import nonlin
from nonlin import reference as R

NORMALIZERS = nonlin.names("normalizer")
ROWS = [
    [0.0, -30.0, -31.0],  # log-domain tails: log(1 + 1e-13) must keep the 1e-13
    [1.0, 0.5, -1.0],
    [0.3, 0.3, 0.3, 0.3],
    [5.0, -2.0, 0.1, 0.09, 3.7, -40.0],
    [-1e3, 2.0, 2.0 + 1e-9, -0.5],
    [100.0, 99.0, -100.0, 98.5, 0.0],
]


# Parameter values tested against the reference besides the defaults; every parameter of every normalizer
# appears here (test_every_parameter_is_exercised), so a new parameter gets its values or the test fails.
PARAM_CASES = {
    "softmax_t": [{"tau": 0.3}, {"tau": 7.0}],
    "sigmoid_attn": [{"bias": 0.5}],
    "gumbel_softmax": [{"tau": 0.5}, {"tau": 2.0, "hard": True}, {"eps": 1e-10}],
    "softmax_sink": [{"sink": 2.5}, {"sink": -3.0}],
    "alpha_entmax": [{"alpha": 1.0}, {"alpha": 1.25}, {"alpha": 2.0}, {"alpha": 3.5}],
    "topk_softmax": [{"k": 1}, {"k": 2}, {"k": 3}],
    "topk_sparsemax": [{"k": 1}, {"k": 2}, {"k": 3}],
    "ssmax": [{"s": 1.0}, {"s": 0.1}],
    "softpick": [{"eps": 0.0}, {"eps": 0.5}],
    "differential_attn": [{"lam": 0.2}, {"lam": 1.0}],
}
CASES = [(n, {}) for n in NORMALIZERS] + [(n, p) for n in NORMALIZERS for p in PARAM_CASES.get(n, [])]
CASE_IDS = [n + "".join(f"-{k}={v}" for k, v in p.items()) for n, p in CASES]


def _mask(n, seed):
    m = torch.rand(n, generator=torch.Generator().manual_seed(seed)) > 0.35
    m[seed % n] = True
    return m


def _extra(name, shape, seed=0):
    """The tensors an entry takes besides the scores (gumbel_softmax's noise, differential_attn's second score
    set): standard Gumbel draws, which serve as either."""
    gen = torch.Generator().manual_seed(1000 + seed)
    u = torch.rand(shape, generator=gen, dtype=torch.float64)
    return {k: -torch.log(-torch.log(u)) for k in nonlin.spec(name).extra_inputs}


def test_every_parameter_is_exercised():
    for name in NORMALIZERS:
        tested = {k for p in PARAM_CASES.get(name, []) for k in p}
        assert tested == {p.name for p in nonlin.spec(name).params}, name


@pytest.mark.parametrize(("name", "params"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize("masked", [False, True])
def test_rows_match_reference(name, params, masked):
    f = nonlin.functional.function(name)
    masked_value = nonlin.spec(name).masked_value
    for i, row in enumerate(ROWS):
        s = torch.tensor(row, dtype=torch.float64)
        mask = _mask(len(row), i) if masked else None
        extra = _extra(name, s.shape, i)
        got = f(s, mask=mask, **extra, **params)
        noise = {k: v.tolist() for k, v in extra.items()}
        want = [float(w) for w in R.row(name, row, None if mask is None else mask.tolist(), **noise, **params)]
        assert np.allclose(got.numpy(), want, rtol=1e-12, atol=1e-15), (row, got, want)
        if mask is not None:
            assert (got[~mask] == masked_value).all()


@pytest.mark.parametrize("name", NORMALIZERS)
def test_row_normalized_entries_sum_to_one(name):
    s = torch.randn(7, 13, dtype=torch.float64) * 4
    w = nonlin.functional.function(name)(s, mask=torch.rand(7, 13) > 0.3, **_extra(name, s.shape))
    if "log_domain" in nonlin.spec(name).properties:
        w = w.exp()  # log-weights: their exp is the map that sums to one
    sums = w.sum(-1)
    alive = (w != 0).any(-1)
    if "row_normalized" in nonlin.spec(name).properties:
        assert torch.allclose(sums[alive], torch.ones_like(sums[alive]), atol=1e-12)
    if "signed_output" not in nonlin.spec(name).properties:
        assert (w >= 0).all()


@pytest.mark.parametrize("name", NORMALIZERS)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_fully_masked_rows_give_zeros_and_zero_gradient(name, dtype):
    s = torch.randn(3, 5, dtype=torch.float64).to(dtype).requires_grad_()
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[1] = False
    w = nonlin.functional.function(name)(s, mask=mask, **_extra(name, s.shape))
    assert torch.isfinite(w[mask]).all() and (w[1] == nonlin.spec(name).masked_value).all() and w.dtype == dtype
    (g,) = torch.autograd.grad((torch.where(mask, w, 0.0) * torch.arange(5, dtype=dtype)).sum(), s)
    assert torch.isfinite(g).all() and (g[1] == 0).all()


@pytest.mark.parametrize("name", [n for n in NORMALIZERS if n != "hardmax"])
def test_gradcheck_float64(name):
    s = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(5)) * 2
    mask = torch.rand(4, 6, generator=torch.Generator().manual_seed(6)) > 0.3
    mask[:, 0] = True
    f = nonlin.functional.function(name)
    extra = _extra(name, s.shape)
    # Masked outputs are constants (0, or -inf for log-domain entries, where differences are NaN): left out.
    assert torch.autograd.gradcheck(lambda t: torch.where(mask, f(t, mask=mask, **extra), 0.0), (s.requires_grad_(),))


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
    extra = _extra(name, s.shape)
    a = f(s, dim=1, **extra)
    b = f(s.transpose(1, 2), dim=-1, **{k: v.transpose(1, 2) for k, v in extra.items()}).transpose(1, 2)
    assert torch.allclose(a, b, atol=1e-15)
    w = f(s, dim=-1, mask=causal, **extra)
    assert (w[:, ~causal] == nonlin.spec(name).masked_value).all()


# (entry, params, input map, other entry, params, output map): the same function two ways.
IDENTITIES = [
    ("alpha_entmax", {"alpha": 1.5}, None, "entmax15", {}, None),
    ("alpha_entmax", {"alpha": 2.0}, None, "sparsemax", {}, None),
    ("alpha_entmax", {"alpha": 1.0}, None, "softmax", {}, None),
    ("softmax_1", {}, None, "softmax_sink", {"sink": 0.0}, None),
    ("topk_softmax", {"k": 99}, None, "softmax", {}, None),
    ("topk_sparsemax", {"k": 99}, None, "sparsemax", {}, None),
    ("softmin", {}, torch.neg, "softmax", {}, None),
    ("differential_attn", {"lam": 0.0, "scores2": torch.zeros(4, 9, dtype=torch.float64)}, None, "softmax", {}, None),
    ("log_softmax", {}, None, "softmax", {}, torch.log),
    ("gumbel_softmax", {"tau": 1.0, "gumbels": torch.zeros(4, 9, dtype=torch.float64)}, None, "softmax", {}, None),
    (
        "gumbel_softmax",
        {"tau": 1.0, "gumbels": torch.zeros(4, 9, dtype=torch.float64), "hard": True},
        None,
        "hardmax",
        {},
        None,
    ),
]


@pytest.mark.parametrize(("a", "pa", "fin", "b", "pb", "fout"), IDENTITIES, ids=[f"{i[0]}~{i[3]}" for i in IDENTITIES])
def test_identities_between_entries(a, pa, fin, b, pb, fout):
    s = torch.randn(4, 9, dtype=torch.float64, generator=torch.Generator().manual_seed(3)) * 3
    mask = _mask(9, 2).expand(4, 9)
    got = nonlin.functional.function(a)(s, mask=mask, **pa)
    want = nonlin.functional.function(b)(fin(s) if fin else s, mask=mask, **pb)
    want = fout(want) if fout else want
    assert torch.allclose(got, want, rtol=1e-12, atol=1e-14), (got, want)


def test_alpha_entmax_tends_to_softmax_as_alpha_tends_to_one():
    s = torch.randn(3, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    near = nonlin.functional.alpha_entmax(s, alpha=1 + 1e-6)
    assert torch.allclose(near, torch.softmax(s, -1), atol=1e-5)


def test_gumbel_softmax_draws_from_the_generator_and_hard_is_straight_through():
    s = torch.randn(2, 6, dtype=torch.float64, requires_grad=True)
    draw = lambda seed, **kw: nonlin.functional.gumbel_softmax(s, generator=torch.Generator().manual_seed(seed), **kw)
    assert torch.equal(draw(0), draw(0)) and not torch.equal(draw(0), draw(1))
    hard = draw(0, hard=True)
    assert set(hard.detach().flatten().tolist()) <= {0.0, 1.0} and (hard.sum(-1) == 1).all()
    assert torch.equal(hard.argmax(-1), draw(0).argmax(-1))
    (g_hard,) = torch.autograd.grad((hard * torch.arange(6.0)).sum(), s)
    (g_soft,) = torch.autograd.grad((draw(0) * torch.arange(6.0)).sum(), s)
    assert torch.allclose(g_hard, g_soft)


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


@pytest.mark.parametrize("name", [n for n in NORMALIZERS if nonlin.spec(n).torch_equivalent is not None])
def test_agrees_with_torch_on_ordinary_rows(name):
    s = torch.randn(6, 11, dtype=torch.float64, generator=torch.Generator().manual_seed(7)) * 3
    mask = torch.rand(6, 11, generator=torch.Generator().manual_seed(8)) > 0.3
    mask[:, 0] = True
    ours = nonlin.functional.function(name)(s, dim=-1, mask=mask)
    theirs = nonlin.spec(name).torch_equivalent(s, dim=-1, mask=mask)
    assert torch.allclose(ours, theirs, rtol=1e-13, atol=1e-15)


def test_alpha_entmax_agrees_with_the_entmax_package():
    entmax = pytest.importorskip("entmax")  # optional: not a dependency
    s = torch.randn(50, 17, dtype=torch.float64, generator=torch.Generator().manual_seed(9)) * 3
    for alpha in (1.25, 1.5, 2.0):
        ours = nonlin.functional.alpha_entmax(s, alpha=alpha)
        assert torch.allclose(ours, entmax.entmax_bisect(s, alpha=alpha, n_iter=100), atol=1e-14)


@pytest.mark.parametrize("name", [n for n in NORMALIZERS if n != "hardmax"])
def test_gradgradcheck_float64(name):
    # entmax15 included: its double backward is right since sqrt(p) takes the where-trick (issue 13).
    # One short row (the check costs O(n^2) passes), one key masked.
    s = torch.tensor([[1.3, -0.4, 2.2, 0.7, -1.1]], dtype=torch.float64)
    mask = torch.tensor([[True, True, False, True, True]])
    f = nonlin.functional.function(name)
    extra = _extra(name, s.shape)
    assert torch.autograd.gradgradcheck(
        lambda t: torch.where(mask, f(t, mask=mask, **extra), 0.0), (s.requires_grad_(),)
    )
