"""Bad input gets clear errors naming the argument, the value and what was expected."""

import numpy as np
import pytest
import torch

from nonlin import theory


@pytest.mark.parametrize("sw", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_sigma_w(sw):
    with pytest.raises(ValueError, match="sigma_w"):
        theory.variance_map("relu", 1.0, sigma_w=sw)
    with pytest.raises(ValueError, match="sigma_w"):
        theory.fixed_point("tanh", sigma_w=sw)
    with pytest.raises(ValueError, match="sigma_w"):
        theory.nngp("relu", torch.ones(2, 2), sigma_w=sw)


def test_bad_sigma_b():
    with pytest.raises(ValueError, match="sigma_b"):
        theory.variance_map("relu", 1.0, sigma_b=-0.1)


@pytest.mark.parametrize("c", [1.0000001, -1.5, [0.2, 2.0]])
def test_correlation_outside_range(c):
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        theory.correlation_map("tanh", c, q_star=1.0)


def test_negative_or_nonfinite_variance():
    with pytest.raises(ValueError, match="q"):
        theory.variance_map("relu", -1.0)
    with pytest.raises(ValueError, match="finite"):
        theory.variance_map("relu", [1.0, float("nan")])


@pytest.mark.parametrize(
    "X",
    [torch.ones(3), torch.ones(2, 3, 4), np.ones((0, 3)), torch.tensor([[1.0, float("nan")]]), "abc"],
)
def test_bad_inputs_X(X):
    with pytest.raises((ValueError, TypeError), match="X"):
        theory.nngp("relu", X)


def test_bad_depth():
    with pytest.raises(ValueError, match="depth"):
        theory.ntk("relu", torch.ones(2, 2), depth=-1)


def test_unknown_name_and_wrong_kind():
    with pytest.raises(ValueError, match="unknown nonlinearity"):
        theory.variance_map("relux", 1.0)
    with pytest.raises(ValueError, match="normalizer"):
        theory.init_gain("softmax")
    with pytest.raises(ValueError, match="extra inputs"):
        theory.init_gain("kappa_swiglu")


def test_bad_params():
    with pytest.raises(ValueError, match="tau"):
        theory.variance_map("shifted_relu", 1.0, tau=-1.0)
    with pytest.raises(TypeError, match="unknown parameter"):
        theory.variance_map("relu", 1.0, beta=2.0)


def test_init_errors():
    import nonlin.init

    with pytest.raises(ValueError, match="mode"):
        nonlin.init.kaiming_normal_(torch.empty(3, 3), mode="fan_middle", nonlinearity="relu")
    with pytest.raises(ValueError, match="unknown nonlinearity"):
        nonlin.init.kaiming_normal_(torch.empty(3, 3), nonlinearity="not_a_unit")
