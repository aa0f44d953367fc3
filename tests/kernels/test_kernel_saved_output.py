"""Entries that declare an exact derivative from the output (Spec.derivative_from_output): the declaration is
exact bit for bit (breakpoints, signed zeros, infinities, NaN, every dtype and the fused path's compute
dtypes), the fused op saves the output and not the input, and its gradients equal the input-based fused
backward's bits on the CPU functions and on Triton (interpreter)."""

from __future__ import annotations

import math

import pytest
import torch
from kernel_helpers import FUSED, gen, needs_triton

import nonlin
from nonlin.kernels import ops as kops
from nonlin.kernels import use
from nonlin.ops import TORCH

# The grid holds infinities and NaN: the interpreter's numpy warns about inf * 0 and overflow.
pytestmark = [
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
    pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
]
F = nonlin.functional
FROM_OUTPUT = [n for n in FUSED if nonlin.spec(n).derivative_from_output is not None]
ALL_DTYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16)
_INT = {torch.float64: torch.int64, torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}


def test_the_declaring_entries():
    # The rectifiers whose piece is readable from y; sigmoid/tanh (y(1-y) from a rounded y is not exact)
    # and the quadratic pieces (hardswish, hard_mish, relu2) must not declare one.
    assert {"relu", "leaky_relu", "relu6", "hardtanh", "jump_relu", "hardshrink"} <= set(FROM_OUTPUT)
    assert not {"sigmoid", "tanh", "hardswish", "hard_mish", "relu2", "helu", "hardsigmoid"} & set(FROM_OUTPUT)


def _neighbours(values: list[float], dtype: torch.dtype, steps: int = 3) -> torch.Tensor:
    """Each value rounded to `dtype` and its `steps` nearest representable neighbours on both sides."""
    base = torch.tensor(values, dtype=torch.float64).to(dtype)
    bits = base.view(_INT[dtype])
    return torch.cat([(bits + k).view(dtype) for k in range(-steps, steps + 1)])


def _grid(name: str, params: dict[str, float], dtype: torch.dtype) -> torch.Tensor:
    fi = torch.finfo(dtype)
    kinks = [*nonlin.spec(name).breakpoints(**params), 0.0, 6.0, -6.0, 1.0, -1.0]
    special = [0.0, -0.0, math.inf, -math.inf, math.nan, fi.max, -fi.max, fi.tiny, -fi.tiny, fi.smallest_normal / 4]
    rand = (torch.randn(200, generator=gen(21), dtype=torch.float64) * 4).to(dtype)
    return torch.cat([_neighbours(kinks, dtype), torch.tensor(special, dtype=torch.float64).to(dtype), rand])


def _param_sets(name: str, dtype: torch.dtype) -> list[dict[str, float]]:
    """The defaults and a few draws rounded to `dtype` (so that any output constants are representable)."""
    s = nonlin.spec(name)
    sets = [{p.name: float(p.default) for p in s.params}]
    g = gen(22)
    for _ in range(3):
        draw = {}
        for p in s.params:
            lo = p.low if math.isfinite(p.low) else -3.0
            hi = p.high if math.isfinite(p.high) else lo + 3.0
            v = lo + (hi - lo) * torch.rand((), generator=g, dtype=torch.float64).item()
            draw[p.name] = torch.tensor(v).to(dtype).item()
        sets.append(draw)
    return sets


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Elementwise: equal values with equal signs of zero, or both NaN."""
    return ((a == b) & (torch.signbit(a) == torch.signbit(b))) | (torch.isnan(a) & torch.isnan(b))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", FROM_OUTPUT)
def test_declaration_is_exact(name, dtype):
    """derivative_from_output(forward(x)) == derivative(x), bit for bit, where the fused op would use it: for
    the eager output (float64 math) and for the fused CPU output (float32 or float64 math), evaluated in
    each compute precision the dtype may use, on breakpoints and their neighbours, signed zeros, infinities, NaN, extremes."""
    s = nonlin.spec(name)
    f = F.function(name)
    for params in _param_sets(name, dtype):
        assert kops.saves_output(name, "plain", ",".join(params), list(params.values()), 0, 0, dtype)
        x = _grid(name, params, dtype)
        outputs = {}
        for mode, fp32 in (("eager", None), ("fused", "float64"), ("fused", "float32")):
            with use(mode, backend="python", fp32_compute=fp32):
                outputs[mode, fp32] = f(x, **params)
        # The precisions a backward computes in: float64 for float64 inputs, either for the others.
        precisions = (torch.float64,) if dtype == torch.float64 else (torch.float64, torch.float32)
        for mode, y in outputs.items():
            for cd in precisions:
                want = s.derivative(TORCH, x.to(cd), **params)
                got = s.derivative_from_output(TORCH, y.to(cd), **params)
                want, got = (t if isinstance(t, torch.Tensor) else torch.full_like(x, t, dtype=cd) for t in (want, got))
                ok = _same_bits(got, want)
                assert ok.all(), (mode, cd, params, x[~ok][:5].tolist(), y[~ok][:5].tolist(), got[~ok][:5].tolist())


def test_unrepresentable_clip_level_saves_the_input():
    """hardtanh(min_val=-0.2505) in bfloat16: the stored clip level is round(-0.2505) = -0.25 > min_val, which a saturated
    output compares above min_val, so the output-based derivative would be wrong; the op saves x there."""
    s = nonlin.spec("hardtanh")
    x = torch.tensor([-2.0, -0.25, -0.2, 0.5], dtype=torch.bfloat16)
    params = {"min_val": -0.2505, "max_val": 1.0}
    y = s.forward(TORCH, x.double(), **params).to(torch.bfloat16)
    from_y = s.derivative_from_output(TORCH, y.double(), **params)
    assert not torch.equal(from_y, s.derivative(TORCH, x.double(), **params))  # the reason for the rule
    assert not kops.saves_output("hardtanh", "plain", "min_val,max_val", [-0.2505, 1.0], 0, 0, torch.bfloat16)
    assert kops.saves_output("hardtanh", "plain", "min_val,max_val", [-0.25, 1.0], 0, 0, torch.bfloat16)
    xr = x.clone().requires_grad_(True)
    with use("fused", backend="python"), _Saved() as saved:
        F.hardtanh(xr, **params)
    assert [t.data_ptr() for t in saved.tensors] == [xr.data_ptr()]


class _Saved(torch.autograd.graph.saved_tensors_hooks):
    """Records every tensor autograd saves while active."""

    def __init__(self) -> None:
        self.tensors: list[torch.Tensor] = []

        def pack(t):
            self.tensors.append(t)
            return t

        super().__init__(pack, lambda t: t)

    def __enter__(self) -> _Saved:
        super().__enter__()
        return self


def _check_fused_gradients(name: str, backend: str, dtype: torch.dtype) -> None:
    s = nonlin.spec(name)
    params = {p.name: float(p.default) for p in s.params}
    x = _grid(name, params, dtype)
    if backend == "triton" and dtype == torch.bfloat16:
        # Triton 3.9's interpreter converts bfloat16 subnormals to float32 wrongly on load (2.8e-40 becomes
        # 5.9e-39, 5.9e-39 becomes 0); a GPU loads them exactly.
        x = x[(x == 0) | ~(x.abs() < torch.finfo(dtype).smallest_normal)]
    x = x.requires_grad_(True)
    go = torch.randn(x.shape, generator=gen(23), dtype=torch.float64).to(dtype)
    go[:3] = torch.tensor([math.inf, -0.0, math.nan])
    with use("fused", backend=backend):
        with _Saved() as saved:
            y = F.function(name)(x, **params)
        assert "nonlin" in y.grad_fn.name()
        # Exactly one saved tensor, and it is the output (same storage), not the input.
        assert len(saved.tensors) == 1
        assert saved.tensors[0].data_ptr() == y.data_ptr() != x.data_ptr()
        (got,) = torch.autograd.grad(y, x, go)
        (want,) = torch.ops.nonlin.pointwise_backward(
            go, x.detach(), [], [], name, "plain", ",".join(params), list(params.values()), ""
        )
    assert got.dtype == dtype
    ok = _same_bits(got, want)
    assert ok.all(), (x[~ok][:5].tolist(), got[~ok][:5].tolist(), want[~ok][:5].tolist())


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", FROM_OUTPUT)
def test_fused_gradients_from_output_equal_input_based_cpu(name, dtype):
    _check_fused_gradients(name, "python", dtype)


@needs_triton
@pytest.mark.parametrize("name", FROM_OUTPUT)
def test_fused_gradients_from_output_equal_input_based_triton(name):
    _check_fused_gradients(name, "triton", torch.float32)


@needs_triton
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64], ids=str)
def test_fused_gradients_from_output_half_and_double_triton(dtype):
    for name in ("leaky_relu", "hardtanh"):
        _check_fused_gradients(name, "triton", dtype)


def test_inductor_saves_output():
    _check_fused_gradients("relu", "inductor", torch.float32)


def test_output_modified_in_place_is_an_error():
    """As with torch.relu: the saved output may not be changed before backward (autograd's version check),
    while the input now may."""
    x = torch.randn(50, generator=gen(24), requires_grad=True)
    with use("fused", backend="python"):
        y = F.relu(x)
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_double_backward_from_output_equals_eager():
    x = _grid("leaky_relu", {"alpha": 0.01}, torch.float64).requires_grad_(True)
    out = []
    for mode in ("fused", "eager"):
        with use(mode, backend="python"):
            (g1,) = torch.autograd.grad(F.leaky_relu(x).sum(), x, create_graph=True)
            (g2,) = torch.autograd.grad((g1 * x.detach()).sum(), x, allow_unused=True)
        out.append((g1, torch.zeros_like(x) if g2 is None else g2))
    assert _same_bits(out[0][0], out[1][0]).all()
    assert _same_bits(out[0][1], out[1][1]).all()
