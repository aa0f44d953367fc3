"""Bad input gets a clear error naming the argument and what was expected."""

from __future__ import annotations

import pytest
import torch

import nonlin

F = nonlin.functional


def test_unknown_name_suggests_the_closest():
    with pytest.raises(ValueError, match=r"unknown nonlinearity name 'swigl'.*'swiglu'"):
        nonlin.spec("swigl")
    with pytest.raises(ValueError, match="did you mean"):
        nonlin.get("gleu")
    with pytest.raises(ValueError, match="kind must be one of"):
        nonlin.names(kind="elementwise")


@pytest.mark.parametrize("typo", ["mishh", "seluu", "swishh", "gelu_neww", "Eluu", "sofmax"])
def test_suggestions_name_each_entry_once(typo):
    from nonlin.registry import _key, _suggestions, aliases

    shown = _suggestions(_key(typo))
    assert shown, typo
    canonical = [aliases().get(n, n) for n in shown]
    assert len(set(canonical)) == len(canonical), shown  # 'mish', 'mish' was shown before
    with pytest.raises(ValueError) as err:
        nonlin.spec(typo)
    assert ", ".join(repr(n) for n in shown) in str(err.value)


def test_unknown_parameter_names_the_parameter_and_the_allowed_ones():
    with pytest.raises(TypeError, match=r"unknown parameter 'tua'.*tau"):
        F.shifted_relu(torch.ones(2), tua=0.5)


@pytest.mark.parametrize(
    ("fn", "kwargs", "pattern"),
    [
        (F.shifted_relu, {"tau": -0.5}, r"tau=-0\.5 is out of range; expected .*tau >= 0"),
        (F.relu_pow, {"n": 0}, r"n=0 is out of range; expected an integer with n >= 1"),
        (F.relu_pow, {"n": 2.5}, r"n=2\.5 is out of range; expected an integer"),
        (F.softplus, {"beta": 0.0}, r"beta=0\.0 is out of range; expected .*beta > 0"),
        (F.elu, {"alpha": float("nan")}, r"alpha=nan is out of range"),
    ],
)
def test_invalid_parameter_values(fn, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        fn(torch.ones(3), **kwargs)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool, torch.complex64, torch.uint8])
@pytest.mark.parametrize("name", ["relu", "gelu", "swiglu", "softmax"])
def test_non_floating_tensors_are_type_errors_naming_the_dtype(name, dtype):
    x = torch.ones(2, 4, dtype=dtype)
    with pytest.raises(TypeError, match=str(dtype)):
        nonlin.functional.function(name)(x)


def test_non_tensor_input():
    with pytest.raises(TypeError, match=r"x must be a torch\.Tensor, got list"):
        F.relu([1.0, 2.0])


def test_odd_packed_width_names_the_shape():
    with pytest.raises(ValueError, match=r"even last dimension.*\(2, 5\)"):
        F.swiglu(torch.ones(2, 5))


def test_mismatched_gate_and_value_name_both_shapes():
    with pytest.raises(ValueError, match=r"gate \(2, 3\) and value \(2, 4\)"):
        F.geglu(torch.ones(2, 3), torch.ones(2, 4))
    with pytest.raises(TypeError, match="same dtype"):
        F.geglu(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64))


def test_kappa_swiglu_needs_its_router_confidence():
    with pytest.raises(TypeError, match="missing required tensor input 'c'"):
        F.kappa_swiglu(torch.ones(2, 4))
    with pytest.raises(ValueError, match="c of shape"):
        F.kappa_swiglu(torch.ones(2, 4), c=torch.ones(3))


def test_mask_that_does_not_broadcast_or_is_not_bool():
    s = torch.randn(2, 4)
    with pytest.raises(ValueError, match=r"mask of shape \(3,\) does not broadcast to scores of shape \(2, 4\)"):
        F.softmax(s, mask=torch.ones(3, dtype=torch.bool))
    with pytest.raises(ValueError, match="does not broadcast"):
        F.softmax(s, mask=torch.ones(2, 1, 4, dtype=torch.bool))  # would grow the scores
    with pytest.raises(TypeError, match="mask must be a bool tensor"):
        F.sparsemax(s, mask=torch.ones(2, 4))
    with pytest.raises(ValueError, match="dim=2 is out of range"):
        F.entmax15(s, dim=2)


def test_deterministic_entries_reject_training_flags():
    with pytest.raises(TypeError, match="deterministic"):
        F.relu(torch.ones(2), training=True)


def test_module_learnable_choice_is_checked():
    with pytest.raises(ValueError, match="cannot be learned"):
        nonlin.get("gelu", learnable=("beta",))
    with pytest.raises(ValueError, match="num_parameters"):
        nonlin.get("relu", num_parameters=4)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_per_channel_parameters_need_as_many_channels(compiled):
    """A per-channel module on an input with another channel count: nonlin's error, naming num_parameters and
    the channels (before: torch's broadcasting message, or dynamo's fake-tensor one under torch.compile)."""
    for name, shape, msg in (("prelu", (4, 16), "16 channels along channel_dim=-1"), ("swiglu", (4, 32), "gate width")):
        module = nonlin.get(name, learnable=True, num_parameters=32 if name == "prelu" else 8, channel_dim=-1)
        fn = torch.compile(module) if compiled else module
        with pytest.raises(ValueError, match=f"num_parameters=.*{msg}"):
            fn(torch.randn(shape))
