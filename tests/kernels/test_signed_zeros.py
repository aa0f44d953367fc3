"""Signed zeros on the fused path are the eager path's (and so torch's and IEEE's): relu(-0) = -0 as torch.relu
gives it, expm1(-0) = -0, sin(-0) = -0. Every deterministic pointwise and gated entry, forward and gradients, in
float64, float32 and bfloat16.

Inductor compiles clamp_min(x, 0) to the vector max, which returns the bound on a tie: relu_pow, helu, nlrelu,
shifted_softplus and the float64 elu family gave +0 at -0, and relu2's and star_relu's gradients +0 for -0
(nonlin.ops.torch_compiled's minimum and maximum keep x on a tie, as ATen does)."""

from __future__ import annotations

import itertools

import pytest
import torch

import nonlin
from nonlin.kernels import use

pytestmark = [
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.usefixtures("forget_kernels_built_here"),
]

ENTRIES = [
    n
    for n in nonlin.names("pointwise") + nonlin.names("gated")
    if not nonlin.spec(n).stochastic and not nonlin.spec(n).extra_inputs
]
_VALUES = (-0.0, 0.0, 1.0, -1.0)


def _zero_signs_differ(got: torch.Tensor, want: torch.Tensor) -> torch.Tensor:
    """Where either is a zero and the other is not the same signed zero."""
    zero = (got == 0) | (want == 0)
    return zero & ((got != want) | (torch.signbit(got) != torch.signbit(want)))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", ENTRIES)
def test_fused_signed_zeros_are_the_eager_paths(name, dtype):
    s = nonlin.spec(name)
    if s.kind is nonlin.Kind.GATED:
        pairs = list(itertools.product(_VALUES, _VALUES))  # every (gate, value) pair, zeros of both signs
        g, v = [p[0] for p in pairs], [p[1] for p in pairs]
        mains = [torch.tensor(g, dtype=dtype).reshape(1, -1), torch.tensor(v, dtype=dtype).reshape(1, -1)]
    else:
        mains = [torch.tensor([-0.0, 0.0], dtype=dtype)]
    f = nonlin.functional.function(name)
    out = {}
    for mode in ("fused", "eager"):
        ins = [t.clone().requires_grad_(True) for t in mains]
        with use(mode):
            y = f(*ins)
            go = torch.full_like(y, -1.0)  # (a negative incoming gradient: a product's zero flips sign)
            out[mode] = (y.detach(), *torch.autograd.grad(y, ins, go))
    for what, got, want in zip(("value", "d/dx or d/dg", "d/dv"), out["fused"], out["eager"], strict=False):
        bad = _zero_signs_differ(got, want)
        assert not bad.any(), f"{name} {dtype} {what}: fused {got[bad].tolist()} where eager {want[bad].tolist()}"
