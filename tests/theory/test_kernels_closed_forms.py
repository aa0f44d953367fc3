"""NNGP / NTK against closed forms: relu (arc-cosine), erf (Williams), identity (linear)."""

import math

import mpmath as mp
import numpy as np
import pytest
import torch

from nonlin import theory

SW, SB = 1.4, 0.3


def _sphere_inputs() -> torch.Tensor:
    """Unit-norm-scaled inputs whose pairwise correlations span [-1, 1], with c = 1, c near 1 and c = -1."""
    g = torch.Generator().manual_seed(3)
    d = 6
    X = torch.randn(9, d, generator=g, dtype=torch.float64)
    X[1] = X[0] + 1.5e-4 * X[2]  # 1 - c ~ 1e-8
    X[3] = -X[2]  # c = -1
    X[4] = X[5]  # c = 1
    X[6] = X[0] + 0.02 * X[7]  # 1 - c ~ 2e-4
    return X / X.norm(dim=1, keepdim=True) * math.sqrt(d)


def _closed(kind: str, X: torch.Tensor, depth: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The closed-form recursions at 40 digits (mpmath), rounded to float64 per layer: a float64 closed form
    would itself lose eps / theta in theta near c = 1 (relu's NTK then moves by 1e-10 by depth 8)."""
    mp.mp.dps = 40
    n, d = X.shape
    rows = [[mp.mpf(float(v)) for v in r] for r in X.tolist()]
    sw2, sb2 = mp.mpf(SW) ** 2, mp.mpf(SB) ** 2
    K = [
        [sw2 * mp.fsum(a * b for a, b in zip(rows[i], rows[j], strict=True)) / d + sb2 for j in range(n)]
        for i in range(n)
    ]
    Th = [r[:] for r in K]

    def as_tensor(M) -> torch.Tensor:
        return torch.tensor([[float(v) for v in r] for r in M], dtype=torch.float64)

    out = [(as_tensor(K), as_tensor(Th))]
    for _ in range(depth):
        q = [K[i][i] for i in range(n)]
        Kn = [[mp.mpf(0)] * n for _ in range(n)]
        Tn = [[mp.mpf(0)] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                k = K[i][j]
                if kind == "relu":
                    norm = mp.sqrt(q[i] * q[j])
                    th = mp.acos(max(min(k / norm, 1), -1))
                    kn = sw2 * norm * (mp.sin(th) + (mp.pi - th) * mp.cos(th)) / (2 * mp.pi) + sb2
                    kd = (mp.pi - th) / (2 * mp.pi)
                elif kind == "erf":
                    den = mp.sqrt((1 + 2 * q[i]) * (1 + 2 * q[j]))
                    kn = sw2 * (2 / mp.pi) * mp.asin(2 * k / den) + sb2
                    kd = (4 / mp.pi) / mp.sqrt(den**2 - 4 * k**2)
                else:
                    kn, kd = sw2 * k + sb2, mp.mpf(1)
                Kn[i][j] = kn
                Tn[i][j] = kn + sw2 * kd * Th[i][j]
        K, Th = Kn, Tn
        out.append((as_tensor(K), as_tensor(Th)))
    return out


def _check(kind: str, name: str, depth: int, ntk: bool = True, near_tol: float = 1e-10):
    X = _sphere_inputs()
    seq = theory.kernel_sequence(name, X, depth, SW, SB, ntk=ntk)
    want = _closed(kind, X, depth)
    for layer in range(1, depth + 1):
        K, Th = want[layer]
        got = seq[layer]
        scale = torch.sqrt(torch.diagonal(K)[:, None] * torch.diagonal(K)[None, :])
        err = ((got.nngp - K).abs() / scale).max().item()
        assert err <= 1e-10, f"{name} NNGP depth {layer}: relative error {err:.2e}"
        if ntk:
            st = torch.sqrt(torch.diagonal(Th)[:, None] * torch.diagonal(Th)[None, :])
            rel = (got.ntk - Th).abs() / st
            near = rel[0, 1].item()  # the pair with 1 - c ~ 1e-8
            assert near <= near_tol, f"{name} NTK depth {layer}, 1 - c ~ 1e-8: relative error {near:.2e}"
            err_t = rel.max().item()
            assert err_t <= 1e-10, f"{name} NTK depth {layer}: relative error {err_t:.2e}"


def test_relu_arccos_nngp_ntk():
    # The near pair to 1e-12: from c alone (no distance tracking) it is 2.3e-11 by depth 4.
    _check("relu", "relu", 4, near_tol=1e-12)


def test_erf_nngp_ntk():
    _check("erf", "erf", 2)


def test_identity_linear_kernels():
    _check("identity", "identity", 2)


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "name"), [("relu", "relu"), ("erf", "erf"), ("identity", "identity")])
def test_closed_forms_depth_20(kind, name):
    # Every pair at 1e-10, the near pair (1 - c ~ 1e-8, where relu's NTK moves like sqrt(1 - c)) included:
    # theory tracks E[(u_i - u_j)^2] beside K, so theta near 0 keeps its relative accuracy.
    _check(kind, name, 20)


@pytest.mark.slow
def test_many_distinct_variances_match_direct_quadrature():
    """The log-q interpolation path (many inputs of many norms) against per-pair quadrature."""
    g = torch.Generator().manual_seed(5)
    n = 60
    X = torch.randn(n, 8, generator=g, dtype=torch.float64)
    X = X / X.norm(dim=1, keepdim=True) * torch.linspace(2.4, 3.2, n, dtype=torch.float64)[:, None]
    for name in ("tanh", "relu"):
        K = theory.nngp(name, X, depth=1, sigma_w=SW, sigma_b=SB, exact_groups=0)
        K0 = SW**2 * X @ X.T / 8 + SB**2
        q = torch.diagonal(K0)
        i, j = torch.triu_indices(n, n, 1)
        i, j = i[::37], j[::37]
        c = K0[i, j] / torch.sqrt(q[i] * q[j])
        want = theory.covariance_map(name, q[i], q[j], c, sigma_w=SW, sigma_b=SB)
        scale = torch.sqrt(K[i, i] * K[j, j])
        assert ((K[i, j] - want).abs() / scale).max() <= 1e-9


def test_numpy_in_numpy_out_and_symmetry():
    X = np.random.default_rng(0).normal(size=(4, 3))
    K = theory.nngp("gelu", X, depth=1)
    assert isinstance(K, np.ndarray) and K.shape == (4, 4)
    assert np.allclose(K, K.T, rtol=0, atol=0)
    assert np.all(np.linalg.eigvalsh(K) > -1e-12)
