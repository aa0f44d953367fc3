"""nonlin.kernels.use and the routing of functional calls: modes, fallbacks, errors shared with eager."""

from __future__ import annotations

import types

import pytest
import torch
from kernel_helpers import FUSED, needs_triton

import nonlin
from nonlin import route
from nonlin.kernels import dispatch, state, use
from nonlin.ops import TORCH
from nonlin.ops.torch_backend import TorchOps

F = nonlin.functional


def _path(y: torch.Tensor) -> str:
    return "fused" if "nonlin" in y.grad_fn.name() else "eager"


def test_use_validates_and_restores():
    before = dict(state._STATE)
    with pytest.raises(ValueError, match="mode='fast'"):
        use("fast")
    with pytest.raises(ValueError, match="backend='gpu'"):
        use("fused", backend="gpu")
    with pytest.raises(ValueError, match="fp32_compute='half'"):
        use("fused", fp32_compute="half")
    assert state.DEFAULT and state.is_default()
    with use("fused", backend="python", fp32_compute="float32"):
        assert state.mode() == "fused" and state.fp32_compute() == "float32"
        assert not state.DEFAULT
        with use("eager"):
            assert state.mode() == "eager" and state.fp32_compute() == "float32"
        assert state.mode() == "fused"
        with use("auto"):  # the mode alone at auto: the other settings still in force
            assert not state.DEFAULT and not state.is_default()
        with state.pinned("inductor", "float64"):
            assert state.DEFAULT == state.is_default() is False
    assert dict(state._STATE) == before
    assert state.DEFAULT and state.is_default()
    with state.pinned("auto", "auto"):
        assert state.DEFAULT


def test_use_without_context_manager_persists():
    previous = dict(state._STATE)
    try:
        use("eager")
        assert state.mode() == "eager" and not state.DEFAULT
    finally:
        state._set(previous)
    assert state.DEFAULT


def test_modes_choose_the_path(monkeypatch):
    from nonlin import route
    from nonlin.kernels import cpu, native32

    # as in a fresh process: no kernel compiled yet, generated or hand-written (mish's float32 calls take native32's),
    # so a small call waits for none (it takes the fused route once one is)
    monkeypatch.setattr(cpu, "_DIRECT", {})
    monkeypatch.setattr(native32, "_BUILT", {})
    monkeypatch.setattr(route, "_SETTLED", {})
    monkeypatch.setattr(route, "_CALL", {})
    x = torch.randn(64, requires_grad=True)
    with use("eager"):
        assert _path(F.mish(x)) == "eager"
    with use("fused", backend="python"):
        assert _path(F.mish(x)) == "fused"
    with use("auto"):  # small CPU tensors stay eager until their kernels are compiled
        assert _path(F.mish(x)) == "eager"


def test_eager_mode_numbers_are_the_eager_path():
    x = torch.randn(50, dtype=torch.float32, requires_grad=True)
    with use("eager"):
        y = F.gelu(x)
    ref = nonlin.autograd._SpecFunction.apply(
        nonlin.spec("gelu"), nonlin.spec("gelu").forward, nonlin.spec("gelu").derivative, 1, {}, (), x
    )
    assert torch.equal(y, ref)


def test_per_channel_parameters_run_fused(recwarn):
    x = torch.randn(2, 3, 4)
    a = torch.full((3, 1), 0.2, requires_grad=True)
    with use("fused", backend="python"):
        y = F.prelu(x, a=a)
    assert _path(y) == "fused" and not recwarn.list


def test_parameter_that_changes_the_output_shape_stays_eager():
    """A parameter that broadcasts the output beyond the input's shape is left to the eager path (which
    defines that result), with the reason in the warning when "fused" is forced."""
    dispatch._WARNED.discard("prelu")
    x = torch.randn(5, dtype=torch.float64)
    a = torch.full((3, 1), 0.2, dtype=torch.float64, requires_grad=True)
    with use("fused", backend="python"), pytest.warns(RuntimeWarning, match="does not broadcast"):
        y = F.prelu(x, a=a)
    assert y.shape == (3, 5) and _path(y) == "eager"


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: F.swiglu(torch.randn(3, 5)), ValueError, "even last dimension"),
        (lambda: F.mish(torch.arange(3)), TypeError, "floating dtype"),
        (lambda: F.leaky_relu(torch.randn(3), alpha=-1.0), ValueError, "alpha=-1.0 is out of range"),
        (lambda: F.geglu(torch.randn(3, 4), torch.randn(3, 5)), ValueError, "same shape"),
        (lambda: F.kappa_swiglu(torch.randn(3, 8)), TypeError, "missing required tensor input 'c'"),
        (lambda: F.gelu(torch.randn(3), beta=1.0), TypeError, "unknown parameter 'beta'"),
        (lambda: F.gelu([1.0, 2.0]), TypeError, "must be a torch.Tensor"),
    ],
)
def test_bad_input_gives_the_eager_error_on_every_path(call, error, match):
    for mode in ("eager", "fused"):
        with use(mode, backend="python"), pytest.raises(error, match=match):
            call()


def test_cuda_without_triton_is_a_clear_error_or_eager(monkeypatch):
    monkeypatch.setattr(state, "triton_available", lambda: False)
    with pytest.raises(RuntimeError, match=r"needs Triton.*nonlin\[triton\].*use\('eager'\)"):
        state.backend_for(torch.device("cuda"))
    fake_cuda = types.SimpleNamespace(
        device=torch.device("cuda"), dtype=torch.float32, requires_grad=False, numel=lambda: 1 << 20
    )
    mish = nonlin.spec("mish")
    assert route.choose(mish, mish.forward, (fake_cuda,), (), {}) == "eager"  # auto: falls back to eager


def test_triton_backend_on_cpu_needs_the_interpreter(monkeypatch):
    monkeypatch.setattr(state, "interpreting", lambda: False)
    with use("fused", backend="triton"), pytest.raises(RuntimeError, match="TRITON_INTERPRET=1"):
        F.mish(torch.randn(4))


@needs_triton
def test_triton_namespace_has_every_primitive():
    from nonlin.kernels.trace import PRIMITIVES
    from nonlin.ops.triton_backend import TRITON

    torch_prims = {n for n in vars(TorchOps) if not n.startswith("_") and callable(getattr(TORCH, n))}
    assert torch_prims <= set(PRIMITIVES) | {"clamp"}
    for n in torch_prims:
        assert callable(getattr(TRITON, n)), n


@pytest.mark.parametrize("name", FUSED)
def test_every_entry_is_fusable(name):
    s = nonlin.spec(name)
    assert dispatch._why_not(s, (torch.zeros(2),), s.defaults()) is None
