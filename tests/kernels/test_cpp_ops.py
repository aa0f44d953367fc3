"""The compiled graphs' C++ ops (`nonlin.kernels.cpp_ops`): each the same bits as its Python twin, on the
kernels' own calls and on those it hands on (strided, other dtypes, a kernel not built yet)."""

import pytest
import torch

import nonlin.functional as F
from nonlin.kernels import cpp_ops, native32

pytestmark = pytest.mark.skipif(not native32.available(), reason="the float32 kernels need a vector ISA")


def _ops(name):
    assert cpp_ops.graph_op(name) is getattr(torch.ops.nonlin, name + "_cpp").default  # (built on this machine)
    return getattr(torch.ops.nonlin, name + "_cpp").default, getattr(torch.ops.nonlin, name).default


def _inputs(shape, n, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(shape, generator=g) * 4).to(dtype) for _ in range(n)]


def _same(a, b):
    for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,), strict=True):
        assert x.shape == y.shape and x.dtype == y.dtype
        assert torch.equal(x.view(torch.int32) if x.dtype == torch.float32 else x, y.view(torch.int32) if y.dtype ==
                           torch.float32 else y)  # fmt: skip


# 64 x 1024 = 65536 elements: at PARALLEL_NUMEL, the kernels' threads
SHAPES = [(0,), (7,), (3, 5, 33), (64, 1024)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("primitive", ["silu", "gelu", "tanh"])
def test_unary_twins_give_the_python_ops_bits(primitive, shape):
    (fwd, fwd_py), (bwd, bwd_py) = _ops("native32"), _ops("native32_grad")
    x, go = _inputs(shape, 2)
    with torch.no_grad():
        _same(fwd(x, primitive), fwd_py(x, primitive))
        _same(bwd(go, x, primitive), bwd_py(go, x, primitive))
        # handed on: a strided input (the Python op makes it contiguous)
        xt, got = x.unsqueeze(-1).expand(*shape, 2)[..., 0], go.unsqueeze(-1).expand(*shape, 2)[..., 1]
        _same(fwd(xt, primitive), fwd_py(xt, primitive))
        _same(bwd(got, xt, primitive), bwd_py(got, xt, primitive))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("primitive", ["swiglu", "geglu"])
def test_gated_twins_give_the_python_ops_bits(primitive, shape):
    (fwd, fwd_py), (bwd, bwd_py) = _ops("native32_gated"), _ops("native32_gated_grad")
    g, v, go = _inputs(shape, 3, seed=1)
    with torch.no_grad():
        _same(fwd(g, v, primitive), fwd_py(g, v, primitive))
        _same(bwd(go, g, v, primitive), bwd_py(go, g, v, primitive))
        gt = torch.stack((g, v), -1)[..., 0]  # strided
        _same(fwd(gt, v, primitive), fwd_py(gt, v, primitive))
        _same(bwd(go, gt, v, primitive), bwd_py(go, gt, v, primitive))


@pytest.mark.parametrize("value_first", [False, True])
@pytest.mark.parametrize("shape", [(0, 8), (6,), (3, 5, 66), (64, 2048)])
def test_packed_twins_give_the_python_ops_bits(shape, value_first):
    (fwd, fwd_py), (bwd, bwd_py) = _ops("native32_gated_packed"), _ops("native32_gated_packed_grad")
    (x,) = _inputs(shape, 1, seed=2)
    (go,) = _inputs((*shape[:-1], shape[-1] // 2), 1, seed=3)
    with torch.no_grad():
        _same(fwd(x, "swiglu", value_first), fwd_py(x, "swiglu", value_first))
        _same(bwd(go, x, "swiglu", value_first), bwd_py(go, x, "swiglu", value_first))
        xt = torch.stack((x, x), -1)[..., 1]  # strided
        _same(fwd(xt, "swiglu", value_first), fwd_py(xt, "swiglu", value_first))


def test_a_kernel_not_in_the_table_goes_to_the_python_op_which_enters_it():
    fwd, fwd_py = _ops("native32")
    (x,) = _inputs((40,), 1, seed=4)
    expected = fwd_py(x, "sigmoid")
    native32.set_prefetch(not native32.prefetching())  # drops the kernels built so far, and the table
    try:
        _same(fwd(x, "sigmoid"), expected)  # handed on: the Python op builds the kernel and enters it
        assert native32.built("sigmoid", "fwd")
        _same(fwd(x, "sigmoid"), expected)
    finally:
        native32.set_prefetch(not native32.prefetching())


@pytest.mark.parametrize("twins", [True, False])
def test_a_compiled_function_calls_the_twins_it_was_traced_with(twins):
    """Traced with the C++ twins or (set_enabled(False)) the Python ops: the same values either way."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    torch._dynamo.reset()
    cpp_ops.set_enabled(twins)
    calls = []
    try:

        def graph(gm, example_inputs):  # (forward and backward, as AOT autograd gives them to inductor)
            calls.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
            return make_boxed_func(gm)

        x = torch.randn(8, 64, requires_grad=True)
        y = torch.compile(lambda t: F.silu(t) * 2.0, backend=aot_autograd(fw_compiler=graph, bw_compiler=graph))(x)
        (g,) = torch.autograd.grad(y.sum(), x)
    finally:
        cpp_ops.set_enabled(True)
        torch._dynamo.reset()
    y0 = F.silu(x) * 2.0
    (g0,) = torch.autograd.grad(y0.sum(), x)
    suffix = "_cpp" if twins else ""
    assert f"nonlin.native32{suffix}.default" in calls and f"nonlin.native32_grad{suffix}.default" in calls, calls
    torch.testing.assert_close(y, y0, rtol=3e-7, atol=0)
    torch.testing.assert_close(g, g0, rtol=5e-7, atol=0)
