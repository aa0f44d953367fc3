"""A parameter of -0.0 is not one of 0.0: the caches keyed by parameter values (traced plans, CPU jobs, the
defaults test of the routes, whose torch rows call torch's op at the defaults) keep them apart, as -0.0 == 0.0
would make them one key. A product by either has its own sign: leaky_relu's slope -0 gives +0 for x < 0, as
torch's does; threshold's value -0.0 is the -0 it returns."""

import pytest
import torch

import nonlin
import nonlin.functional as F
from nonlin.kernels.codegen import negative_zeros, plan


def test_negative_zeros_names_only_negative_zero():
    assert negative_zeros([0.0, -0.0, 1.0, -1.0, 0, float("nan")]) == (False, True, False, False, False, False)


def test_a_negative_zero_parameter_has_its_own_plan():
    s = nonlin.spec("xgelu")
    assert plan(s, "plain", (("alpha", 0.0),), ()) is plan(s, "plain", (("alpha", 0.0),), ())
    assert plan(s, "plain", (("alpha", -0.0),), ()) is not plan(s, "plain", (("alpha", 0.0),), ())


_TORCH = {
    "leaky_relu": ("negative_slope", lambda x, v: torch.nn.functional.leaky_relu(x, v)),
    "elu": ("alpha", lambda x, v: torch.nn.functional.elu(x, v)),
    # torch's row runs at the defaults (threshold 1, value 0.0): -0.0 must not count as them
    "threshold": ("value", lambda x, v: torch.nn.functional.threshold(x, 1.0, v)),
}


@pytest.mark.parametrize(
    "name, dtype, numel",
    [
        ("leaky_relu", torch.bfloat16, 1 << 21),  # large bfloat16: the lookup table built for the parameters
        ("elu", torch.float32, 1 << 12),
        ("elu", torch.float32, 1 << 21),
        ("elu", torch.bfloat16, 1 << 21),
        ("threshold", torch.float32, 1 << 12),
    ],
)
def test_zero_parameters_of_either_sign_give_their_own_signed_zeros(name, dtype, numel):
    """Called with 0.0, then -0.0, then 0.0 again, each call's zeros are torch's for that sign."""
    param, torch_op = _TORCH[name]
    x = -(torch.rand(numel, generator=torch.Generator().manual_seed(0)) + 0.5).to(dtype)  # all negative
    for value in (0.0, -0.0, 0.0):
        y = getattr(F, name)(x, **{param: value})
        want = torch_op(x, value)
        assert torch.equal(y, want), (name, value)
        assert torch.equal(torch.signbit(y), torch.signbit(want)), (name, value)
