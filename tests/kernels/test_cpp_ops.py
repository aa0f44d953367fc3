"""The compiled graphs' C++ ops (`nonlin.kernels.cpp_ops`): each the same bits as its Python twin, on the
kernels' own calls and on those it hands on (strided, other dtypes, a kernel not built yet)."""

import math
import threading

import pytest
import torch

import nonlin
import nonlin.functional as F
from nonlin import route
from nonlin.kernels import cpp_ops, dispatch, native32

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


def _native_job(name):
    s = nonlin.spec(name)
    job = dispatch.job_for(s, torch.float32, s.defaults())
    assert job is not None and job.native == name
    return job


def _training(job, x, go, cpp):
    """A training call of `job` by `dispatch.training_call`, with the C++ node (cpp) or the Python Function: the
    output, its node, the tensors saved for backward, d/dx and (create_graph=True) d/dx of <d/dx, go>."""
    cpp_ops.set_enabled(cpp)
    try:
        call = dispatch.training_call(job)
        seen = []
        x = x.detach().requires_grad_()
        with torch.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
            y = call(x)
        (dx,) = torch.autograd.grad(y, x, go, retain_graph=True)
        (dx2,) = torch.autograd.grad(y, x, go, create_graph=True)
        (ddx,) = torch.autograd.grad(dx2, x, go) if dx2.requires_grad else (None,)
        return y.detach(), y.grad_fn, [t.data_ptr() == x.data_ptr() for t in seen], dx, dx2.detach(), ddx
    finally:
        cpp_ops.set_enabled(True)


@pytest.mark.parametrize("shape", [(0,), (7,), (3, 5, 33), (64, 1024), "strided"])
@pytest.mark.parametrize("name", sorted(native32.PRIMITIVES))
def test_the_training_node_gives_the_python_functions_bits(name, shape):
    """A float32 training call on the hand-written kernels, under the C++ node (`cpp_ops.training_op`) or the
    Python autograd.Function: the same output, gradient and create_graph=True gradients, bit for bit (the same
    kernels, the same eager formulas), the input alone saved (saved-tensor hooks see it), the same node name."""
    assert cpp_ops.training_op() is not None  # (built on this machine: tests/conftest.py)
    job = _native_job(name)
    x, go = _inputs((40, 64) if shape == "strided" else shape, 2, seed=5)
    if x.numel() >= 4:
        x.view(-1)[:4] = torch.tensor([math.inf, -math.inf, math.nan, -0.0])
    if shape == "strided":
        x, go = x[:, ::2], go[:, 1::2]  # [40, 32] each
    cpp, py = _training(job, x, go, True), _training(job, x, go, False)
    assert type(cpp[1]).__name__ == "CppFunction" and type(py[1]).__name__ == "nonlin_fusedBackward"
    assert cpp[1].name() == py[1].name() == "nonlin_fusedBackward"
    assert cpp[2] == py[2] == [True]
    _same(cpp[0], native32.forward(name, x.contiguous()))
    for a, b in zip(cpp[3:], py[3:], strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            _same(a, b)


def test_functorch_transforms_take_the_python_function(monkeypatch):
    """Where torch.func's transforms are active, the call goes to the Python autograd.Function (`nonlin_fused`:
    the C++ node has no rule for them), with the same job, as `_fused_apply` sends it there."""
    job = _native_job("silu")
    call = dispatch.training_call(job)
    assert call.func is dispatch._cpp_training
    applied = []

    class Recorded:
        @staticmethod
        def apply(*args):
            applied.append(args)
            return args[-1]

    (x,) = _inputs((4, 33), 1, seed=6)
    monkeypatch.setattr(dispatch, "nonlin_fused", Recorded)
    monkeypatch.setattr(torch._C, "_are_functorch_transforms_active", lambda: True)
    assert call(x) is x
    assert len(applied) == 1 and applied[0][0] is job and applied[0][1] == dispatch.UNPACKED


def test_the_library_builds_in_the_background_and_the_routes_settle_on_it(monkeypatch):
    """Where the library is not built on this machine yet, a training call takes the Python Function and starts
    the build in a thread; once it is built, the settled routes are forgotten and the next calls settle on the C++
    node."""
    built = cpp_ops._library_path()
    state = dict(cpp_ops._STATE)
    started = threading.Event()
    release = threading.Event()

    def slow_build():
        started.set()
        release.wait(30)
        return built

    monkeypatch.setattr(cpp_ops, "_STATE", {k: v for k, v in state.items() if k == "register"})
    monkeypatch.setattr(cpp_ops, "_library_path", lambda: built.with_name("not_built_yet.so"))
    monkeypatch.setattr(cpp_ops, "_build", slow_build)
    x = torch.randn(route.LARGE_NUMEL, requires_grad=True)
    route.forget_settled()
    for _ in range(3):
        y = F.silu(x)
    assert started.wait(30) and type(y.grad_fn).__name__ == "nonlin_fusedBackward"  # the Python Function
    assert route._SETTLED
    monkeypatch.setattr(cpp_ops, "_library_path", lambda: built)
    release.set()
    cpp_ops._STATE["building"].join(30)
    assert not route._SETTLED  # forgotten
    monkeypatch.setattr(cpp_ops, "_STATE", state)
    for _ in range(3):
        y = F.silu(x)
    assert type(y.grad_fn).__name__ == "CppFunction"


def test_a_failed_build_warns_and_training_calls_take_the_python_function(monkeypatch):
    def failing_build():
        raise RuntimeError("no compiler here")

    monkeypatch.setattr(cpp_ops, "_STATE", {})
    monkeypatch.setattr(cpp_ops, "_build", failing_build)
    with pytest.warns(RuntimeWarning, match="building the C\\+\\+ ops failed"):
        assert cpp_ops.graph_op("native32") is torch.ops.nonlin.native32.default
    assert "no compiler here" in cpp_ops._STATE["failed"]
    assert cpp_ops.training_op() is None
    call = dispatch.training_call(_native_job("gelu"))
    assert call.func is dispatch._fused_apply


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_compiled_autograd_traces_the_training_node(backend):
    """torch._dynamo.compiled_autograd traces the node's backward as the op nonlin::native32_grad_cpp (its fake
    for the trace, the kernel in the compiled graph): the eager backward's bits, as the Python Function gives."""
    import torch._dynamo.compiled_autograd as compiled_autograd

    (x,) = _inputs((16, 64), 1, seed=7)
    x.requires_grad_()
    call = dispatch.training_call(_native_job("silu"))
    (call(x) * 2).sum().backward()
    eager, x.grad = x.grad, None
    torch._dynamo.reset()
    try:
        with compiled_autograd._enable(torch.compile(backend=backend)):
            y = call(x)
            assert type(y.grad_fn).__name__ == "CppFunction"
            (y * 2).sum().backward()
    finally:
        torch._dynamo.reset()
    _same(x.grad, eager)


@pytest.mark.parametrize("cpp", [True, False])
def test_a_dual_tensor_is_refused_not_stripped_of_its_tangent(cpp):
    """Forward-mode AD: neither node has a jvp; both refuse a dual tensor (a C++ node would otherwise return the
    output without its tangent)."""
    import torch.autograd.forward_ad as forward_ad

    cpp_ops.set_enabled(cpp)
    try:
        call = dispatch.training_call(_native_job("gelu"))
        (x,) = _inputs((8, 16), 1, seed=8)
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(x.requires_grad_(), torch.ones_like(x))
            with pytest.raises(NotImplementedError, match=r"forward-mode AD|jvp"):
                call(dual)
    finally:
        cpp_ops.set_enabled(True)


def test_a_graphs_build_waits_for_a_training_calls_build(monkeypatch):
    """A graph that needs the library while a training call's background build is under way waits for that build
    (`_load` joins its thread) instead of compiling the same file beside it."""
    built = cpp_ops._library_path()
    order = []
    release = threading.Event()

    def slow_build():
        order.append(("start", threading.current_thread().name))
        if threading.current_thread().name == "nonlin-cpp-ops":
            release.wait(30)
        order.append(("end", threading.current_thread().name))
        return built

    monkeypatch.setattr(cpp_ops, "_STATE", {})
    monkeypatch.setattr(cpp_ops, "_library_path", lambda: built.with_name("not_built_yet.so"))
    monkeypatch.setattr(cpp_ops, "_build", slow_build)
    assert cpp_ops.training_op() is None  # (starts the background build)
    threading.Timer(0.3, release.set).start()
    assert cpp_ops._load() is not None
    main = threading.current_thread().name
    assert order == [("start", "nonlin-cpp-ops"), ("end", "nonlin-cpp-ops"), ("start", main), ("end", main)]
