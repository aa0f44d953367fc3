"""torch.compile and torch.export over a small model that uses nonlin's fused ops: no graph break, the
custom ops in the graph, the same numbers and gradients as eager."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import nonlin
from nonlin import route
from nonlin.kernels import cpu, native32, use, vec_convert


class GatedMLP(nn.Module):
    def __init__(self, d: int = 8, hidden: int = 12) -> None:
        super().__init__()
        self.up = nn.Linear(d, 2 * hidden)
        self.act = nonlin.get("swiglu", learnable=True)  # packed [gate | value], learnable beta
        self.down = nn.Linear(hidden, d)
        self.out = nonlin.get("mish")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.down(self.act(self.up(x))))


def _run(model: nn.Module, x: torch.Tensor):
    y = model(x)
    grads = torch.autograd.grad(y.square().sum(), [x, *model.parameters()])
    return y, grads


def _eager_and_compiled(model: nn.Module, x: torch.Tensor):
    """(output, gradients) eagerly and through torch.compile with the fused ops (fullgraph: a break is an
    error)."""
    with use("eager"):
        eager = _run(model, x)
    with use("fused", backend="python"):
        compiled = _run(torch.compile(model, fullgraph=True, backend="aot_eager"), x)
    return eager, compiled


def _assert_close(got, want) -> None:
    (y1, g1), (y0, g0) = got, want
    assert torch.allclose(y1, y0, rtol=1e-6, atol=1e-7)
    for a, b in zip(g1, g0, strict=True):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-6)


def test_torch_compile_fullgraph_matches_eager():
    torch.manual_seed(0)
    model = GatedMLP()
    x = torch.randn(5, 8, requires_grad=True)
    eager, compiled = _eager_and_compiled(model, x)
    _assert_close(compiled, eager)


def test_torch_export_records_the_custom_ops():
    torch.manual_seed(1)
    model = GatedMLP()
    x = torch.randn(5, 8)
    with use("fused", backend="python"):
        ep = torch.export.export(model, (x,))
        graph = str(ep.graph)
        assert "nonlin.gated" in graph and "nonlin.pointwise" in graph
        y = ep.module()(x)
    with use("eager"):
        assert torch.allclose(y, model(x), rtol=1e-6, atol=1e-7)


class RectifiedMLP(nn.Module):
    """relu (saves its output) and a per-channel prelu (parameters read per element) in one model."""

    def __init__(self, d: int = 8, hidden: int = 12) -> None:
        super().__init__()
        self.up = nn.Linear(d, hidden)
        self.act = nonlin.get("relu")
        self.down = nn.Linear(hidden, d)
        self.out = nonlin.get("prelu", num_parameters=d, channel_dim=-1)
        with torch.no_grad():
            self.out.a.copy_(torch.linspace(0.05, 0.5, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.down(self.act(self.up(x))))


def test_compile_and_export_with_saved_output_and_per_channel_parameters():
    torch.manual_seed(2)
    model = RectifiedMLP()
    x = torch.randn(5, 8, requires_grad=True)
    eager, compiled = _eager_and_compiled(model, x)
    _assert_close(compiled, eager)
    with use("fused", backend="python"):
        ep = torch.export.export(model, (x.detach(),))
        assert str(ep.graph).count("nonlin.pointwise") == 2
        y2 = ep.module()(x.detach())
    assert torch.allclose(y2, eager[0], rtol=1e-6, atol=1e-7)


@pytest.mark.skipif(not cpu.compile_available(), reason="no C++ compiler")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_the_eager_route_inside_inductor_is_one_graph_with_the_eager_bits(dtype):
    """The eager route (here asked for) takes the float64 formula into a caller's compiled model: one graph
    (fullgraph: `not extra` on a tuple of tensors was a graph break), the eager path's bits (round_to's
    compiled form), the vector conversions in its kernels (a bfloat16 kappa_swiglu's compiled forward took 10x
    its direct call without them), forward and backward."""
    g = torch.Generator().manual_seed(4)
    x = (torch.randn(64, 64, generator=g) * 4).to(dtype).requires_grad_()
    c = torch.randn(64, 1, generator=g).to(dtype)

    def model(x, c):
        return nonlin.functional.kappa_swiglu(x, c=c, kappa_bias=0.5, kappa_scale=0.7)

    def forward_backward(fn):
        y = fn(x, c)
        return y, torch.autograd.grad(y.float().square().sum(), x)[0]

    before = vec_convert.patched_sources
    with route.recording() as taken, use("eager"):
        got = forward_backward(torch.compile(model, fullgraph=True, dynamic=False))
        want = forward_backward(model)
    assert {(t[0], t[5]) for t in taken} == {("kappa_swiglu", "eager")}
    for a, b in zip(got, want, strict=True):
        assert torch.equal(a.view(torch.int16), b.view(torch.int16))
    if native32.available():  # inductor builds for AVX2 or AVX-512: the conversions were added
        assert vec_convert.patched_sources > before


LEARNABLE = [
    n
    for n in nonlin.names()
    if nonlin.spec(n).kind.name in ("POINTWISE", "GATED") and any(p.learnable for p in nonlin.spec(n).params)
]


@pytest.mark.parametrize(
    ("dtype", "channels"), [(torch.float32, 1), (torch.bfloat16, 32)], ids=["float32", "bfloat16-per-channel"]
)
@pytest.mark.parametrize("name", LEARNABLE)
def test_learnable_parameters_compile_as_one_graph_with_the_fused_numbers(name, dtype, channels):
    """Every entry with a learnable parameter, as a module with learned parameters (one value, or one per
    channel), in a caller's torch.compile (inductor, fullgraph): the custom op's generated functions traced into
    the graph (the fused route; before, the eager float64 formula), with the custom op's outputs and gradients
    and within a rounding of the eager path's. kappa_swiglu's extra input c too."""
    spec = nonlin.spec(name)
    if channels > 1 and spec.kind.name == "GATED":
        channels //= 2  # (x's 32 columns are [gate | value])
    module = nonlin.get(name, learnable=True, num_parameters=channels, channel_dim=-1).to(dtype)
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():  # learned: away from the defaults the float32 lists were measured at
            p.mul_(1 + 0.05 * torch.rand(p.shape, generator=g, dtype=torch.float64).to(dtype))
    x = (torch.randn(16, 32, generator=g) * 3).to(dtype).requires_grad_()
    extra = {"c": torch.randn(16, 1, generator=g).to(dtype).requires_grad_()} if spec.extra_inputs else {}

    def forward_backward(fn):
        y = fn(x, **extra)
        return y, torch.autograd.grad(y.float().square().sum(), [x, *extra.values(), *module.parameters()])

    torch._dynamo.reset()
    with route.recording() as taken:
        y, grads = forward_backward(torch.compile(module, fullgraph=True, dynamic=False))
    assert {(t[0], t[5]) for t in taken} == {(name, "fused")}
    with use("eager"):
        y_eager, grads_eager = forward_backward(module)
    ulp = torch.finfo(dtype).eps
    for got in grads:
        assert not got.isnan().any()
    # float64 math (float32 inputs with tensor parameters; bfloat16 ones at parameters other than the defaults,
    # correctly rounded): within a rounding of the eager path's outputs and gradients, parameters' included
    torch.testing.assert_close(y, y_eager, rtol=ulp, atol=0)
    for got, want in zip(grads, grads_eager, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-6 if dtype == torch.float32 else ulp, atol=0)
    if dtype == torch.float32:  # outside torch.compile the custom op runs the same functions, compiled alone
        with use("fused"):
            y_op, grads_op = forward_backward(module)
        assert torch.equal(y, y_op)
        for got, want in zip(grads, grads_op, strict=True):
            # (parameter gradients are sums, whose order inductor picks per graph: within a rounding)
            torch.testing.assert_close(got, want, rtol=ulp, atol=0)
