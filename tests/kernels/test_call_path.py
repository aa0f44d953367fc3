"""The CPU fused path's call: inductor's compiled graph called directly (nonlin.kernels.cpu.Direct), one kernel per
(entry, parameters, dtype) for every shape, no dynamo code per call; small calls take it once it is compiled;
inside a user's torch.compile the same functions are traced into the caller's graph."""

from __future__ import annotations

import sys

import pytest
import torch

import nonlin
import nonlin.functional as F
from nonlin import route
from nonlin.kernels import cpu, dispatch, precision, use

pytestmark = pytest.mark.skipif(not cpu.compile_available(), reason="inductor cannot compile here")


def _max_ulp(got: torch.Tensor, ref: torch.Tensor) -> float:
    """The largest |got - ref| in units of ref's last place (ref: the eager path's correctly rounded values)."""
    got, ref = got.detach().double(), ref.detach()
    ulp = (torch.nextafter(ref.abs(), torch.tensor(float("inf"), dtype=ref.dtype)) - ref.abs()).double()
    return ((got - ref.double()).abs() / ulp).max().item()


def _bits(t: torch.Tensor) -> torch.Tensor:
    """A float tensor's bits as integers (NaN payloads and signed zeros compared too)."""
    return t.detach().contiguous().view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def _frames(fn) -> set[str]:
    """The files of every Python function `fn()` runs."""
    files: set[str] = set()

    def hook(frame, event, arg):
        if event == "call":
            files.add(frame.f_code.co_filename)

    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return files


@pytest.mark.parametrize("name", ["silu", "swiglu"])
def test_one_kernel_for_every_shape_and_no_dynamo_per_call(name):
    s = nonlin.spec(name)
    gated = s.kind is nonlin.Kind.GATED
    f = F.function(name)
    width = 2 * 12 if gated else 12
    big = torch.randn(10, width, generator=torch.Generator().manual_seed(1), requires_grad=True)
    with use("fused"):
        y_big = f(big)
        y_big.sum().backward()
        g_big = big.grad.clone()
        frames0 = torch._dynamo.utils.counters["frames"]["ok"]
        graphs0 = torch._dynamo.utils.counters["stats"]["unique_graphs"]
        for rows in (1, 3, 10):  # sizes 1 and 3 included: dynamo would specialise or recompile them
            x = big.detach()[:rows].clone().requires_grad_()
            y = f(x)
            y.sum().backward()
            assert torch.equal(y, y_big[:rows]), rows  # the same kernel: the same bits at every size
            assert torch.equal(x.grad, g_big[:rows]), rows
        x3 = big.detach().reshape(5, 2, width).clone()
        assert torch.equal(f(x3).reshape(y_big.shape), y_big)
        if not gated:  # an input starting one element into its storage (not vector-aligned)
            assert torch.equal(f(big.detach().reshape(-1)[1:]), y_big.reshape(-1)[1:])
            assert torch.equal(f(big.detach().t()), y_big.t())  # not contiguous: copied flat first
        assert torch._dynamo.utils.counters["frames"]["ok"] == frames0  # nothing compiled again
        assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == graphs0
        x = big.detach()[:3].clone().requires_grad_()
        files = _frames(lambda: f(x).sum().backward())
    assert not [p for p in files if "_dynamo" in p or ("_inductor" in p and "compile_fx" in p)], sorted(files)


def test_size_classes_give_the_same_bits_where_the_route_is_the_same():
    x = torch.randn(4, 33, generator=torch.Generator().manual_seed(2), requires_grad=True)
    outs = []
    for size in ("small", "large"):
        with route.pinned(size), route.recording() as taken:
            y = F.gelu(x)
            (g,) = torch.autograd.grad(y, x, torch.ones_like(y))
        assert taken[0][5] == "fused", taken
        outs.append((y, g))
    assert torch.equal(outs[0][0], outs[1][0]) and torch.equal(outs[0][1], outs[1][1])


def test_small_calls_run_eagerly_until_warm_then_fused():
    # A parameter value of its own: a job no other test compiled
    x = torch.randn(route.WARM_NUMEL, generator=torch.Generator().manual_seed(3))
    s = nonlin.spec("softplus")
    with torch.no_grad(), route.recording() as taken:
        ys = [F.softplus(x, beta=1.4375) for _ in range(route.WARM_CALLS + 2)]
    routes = [t[5] for t in taken]
    assert routes[: route.WARM_CALLS] == ["eager"] * route.WARM_CALLS
    assert routes[-1] == "fused"
    job = dispatch.job_for(s, x.dtype, s.resolve_params({"beta": 1.4375}))
    assert dispatch.ready(job, x.dtype, train=False)
    # both routes meet the float32 forward goal (2 ULP; the eager one is correctly rounded)
    assert _max_ulp(ys[-1], ys[0]) <= 2.5  # 2 ULP from the exact value, 0.5 of it the eager rounding


def test_tiny_calls_warm_on_their_elements_and_a_sweep_does_not():
    """Calls below WARM_NUMEL count too, by their elements: a loop of 64-element calls (an RL policy's, a
    per-sample model's) takes the fused route after WARM_CALLS * WARM_NUMEL elements ran eagerly (it had stayed
    on the eager route, ~50x torch's op, for good); a sweep of a parameter is one job per value, none warm."""
    x = torch.randn(64, generator=torch.Generator().manual_seed(5))
    calls = route.WARM_CALLS * route.WARM_NUMEL // x.numel()
    with torch.no_grad(), route.recording() as taken:
        for _ in range(calls + 1):
            F.softplus(x, beta=1.25)  # (a parameter value of its own: a job no other test compiled)
    routes = [t[5] for t in taken]
    assert routes[:calls] == ["eager"] * calls and routes[-1] == "fused"
    wide = torch.randn(route.WARM_NUMEL, generator=torch.Generator().manual_seed(6))
    with torch.no_grad(), route.recording() as taken:
        for i in range(route.WARM_CALLS + 8):
            F.softplus(wide, beta=1.3 + i / 1024)  # (values no other test takes)
    assert [t[5] for t in taken] == ["eager"] * (route.WARM_CALLS + 8)


def test_calls_with_keyword_values_settle_for_them():
    """A call with plain-number keywords (elu(x, alpha=0.625)) runs the kernels settled for those values once they
    are compiled, with the full route's bits, forward and backward (keywords naming the defaults: torch's op,
    where that is the row's route); other values, a tensor value, `use` and a recording take the route."""
    s = nonlin.spec("elu")
    x = torch.randn(route.LARGE_NUMEL, generator=torch.Generator().manual_seed(7))  # (large: compiles at once)
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(8))
    y0 = F.elu(x, alpha=0.625)  # (compiles; the next call, on compiled kernels, settles)
    assert route.settled_with(s, x, {"alpha": 0.625}) is None and torch.equal(F.elu(x, alpha=0.625), y0)
    xr = x.clone().requires_grad_()
    for _ in range(2):
        xr.grad = None
        F.elu(xr, alpha=0.625).backward(go)
    assert torch.equal(route.settled_with(s, x, {"alpha": 0.625}), y0)
    assert route.settled_with(s, x, {"alpha": 0.75}) is None
    assert route.settled_with(s, x, {"alpha": torch.tensor(0.625)}) is None
    with use("eager"):
        assert route.settled_with(s, x, {"alpha": 0.625}) is None
    with route.recording() as taken:
        assert torch.equal(F.elu(x, alpha=0.625), y0)
    assert [t[5] for t in taken] == ["fused"]
    x2 = x.clone().requires_grad_()
    y2 = route.settled_with(s, x2, {"alpha": 0.625})
    assert torch.equal(y2, y0)
    y2.backward(go)
    assert torch.equal(x2.grad, xr.grad)
    # the defaults named: torch's op, the route a call at the defaults takes (elu's float32 row)
    F.elu(x, alpha=1.0)
    assert torch.equal(route.settled_with(s, x, {"alpha": 1.0}), torch.nn.functional.elu(x))


def test_settled_default_calls_follow_use():
    """The per-call cache of settled routes holds for the default settings only: `use` still decides."""
    x = torch.randn(route.WARM_NUMEL)
    with route.pinned("large"):
        F.silu(x)  # compiles
    for _ in range(route.WARM_CALLS + 2):
        F.silu(x)
    with route.recording() as taken:
        F.silu(x)
        with use("eager"):
            F.silu(x)
    assert [t[5] for t in taken] == ["fused", "eager"]


def test_double_backward_through_the_direct_path_is_the_eager_formula():
    x = torch.randn(12, generator=torch.Generator().manual_seed(4), dtype=torch.float64, requires_grad=True)
    with use("fused"):
        (g,) = torch.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), x)
    with use("eager"):
        (g0,) = torch.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
        (gg0,) = torch.autograd.grad(g0.sum(), x)
    assert torch.equal(g, g0) and torch.equal(gg, gg0)


def test_packed_gated_gradient_is_one_tensor_and_saves_only_the_input():
    packed = torch.randn(6, 20, requires_grad=True)
    seen: dict[int, int] = {}

    def pack(t):
        seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with use("fused"), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = F.swiglu(packed)
    assert sum(seen.values()) <= packed.untyped_storage().nbytes()
    y.backward(torch.ones_like(y))
    with use("eager"):
        p2 = packed.detach().clone().requires_grad_()
        F.swiglu(p2).backward(torch.ones_like(y))
    torch.testing.assert_close(packed.grad, p2.grad, rtol=5e-7, atol=1e-30)


@pytest.mark.parametrize("name", ["gelu", "swiglu", "mish"])
def test_compiled_model_traces_the_fused_functions(name):
    """Inside torch.compile(model): the fused path's functions in the caller's graph (no graph break), with
    its accuracy: within the float32 goals of the eager path's correctly rounded values."""
    s = nonlin.spec(name)
    f = F.function(name)
    x = torch.randn(8, 2 * 16 if s.kind is nonlin.Kind.GATED else 16, generator=torch.Generator().manual_seed(5))
    x.requires_grad_()
    with route.recording() as taken:
        y = torch.compile(lambda t: f(t) * 2.0, fullgraph=True)(x)
    (g,) = torch.autograd.grad(y, x, torch.ones_like(y))
    assert {t[5] for t in taken} == {"fused"}
    with use("eager"):
        y0 = f(x) * 2.0
        (g0,) = torch.autograd.grad(y0, x, torch.ones_like(y0))
    assert _max_ulp(y, y0) <= 2.5  # the float32 goals: forward 2 ULP, gradient 4 (eager: correctly rounded)
    assert _max_ulp(g, g0) <= 4.5


@pytest.mark.parametrize("name", ["silu", "swiglu", "relu", "tanh"])
@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("form", ["function", "module"])
def test_a_compiled_function_compiles_once(name, grad, form):
    """A caller's compiled function compiles once for its inputs, whatever nonlin's caches held when it was traced
    or hold later: a graph traced while they lacked the call's row had guarded on that, and compiled a second time
    once its first call had filled them (and evaluated those guards on every call)."""
    from torch._dynamo.testing import CompileCounter

    torch._dynamo.reset()
    route._set_measured(dict(route._MEASURED))  # the table's caches empty, the profile kept
    route._DEFAULTS.pop(name, None)
    counter = CompileCounter()
    f = F.function(name) if form == "function" else nonlin.get(name)
    fn = torch.compile(lambda t: f(t) * 2.0, backend=counter)
    x = torch.randn(8, 64, requires_grad=grad)
    try:
        with torch.set_grad_enabled(grad):
            for _ in range(3):
                fn(x)
        for other in ("gelu", "mish", "softplus", "geglu", name):  # other calls fill the caches further
            F.function(other)(torch.randn(8, 64))
            F.function(other)(torch.randn(1024, 512, requires_grad=True)).sum().backward()
        with torch.set_grad_enabled(grad):
            y = fn(x)
    finally:
        route._set_measured(dict(route._MEASURED))  # (no route settled here outlives the test)
    with use("eager"):
        y0 = f(x) * 2.0
    assert counter.frame_count == 1
    assert _max_ulp(y, y0) <= 2.5


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 4, 0), (1, 1)])
def test_scalar_and_empty_inputs_on_the_direct_path(shape):
    """Sizes dynamo would specialise (0, 1) run the one dynamic-size kernel, with the eager path's values."""
    x = torch.randn(shape, requires_grad=True)
    with use("fused"):
        y = F.silu(x)
        (g,) = torch.autograd.grad(y.sum(), x)
    with use("eager"):
        y0 = F.silu(x)
        (g0,) = torch.autograd.grad(y0.sum(), x)
    assert y.shape == x.shape and g.shape == x.shape
    torch.testing.assert_close(y, y0, rtol=2.4e-7, atol=0)
    torch.testing.assert_close(g, g0, rtol=4.8e-7, atol=0)


def test_traced_prepare_carries_dynamos_constant_marker():
    # graph_ops marks the functions dynamo runs once per trace by hand so that importing nonlin does not import
    # torch._dynamo; the marker must stay the one torch's decorator sets
    marked = torch._dynamo.assume_constant_result(lambda: None)
    names = [k for k in vars(marked) if k.startswith("_dynamo")]
    from nonlin.kernels import graph_ops

    marks = {fn.__name__ for fn in graph_ops.CONSTANT_RESULTS}
    assert marks == {
        "prepare_eager_trace",
        "_prepare_inputs",
        "_fill_defaults",
        "_row_of_call",
        "_graph_plan",
        "_graph_target",
        "plan_of",
    }
    for fn in graph_ops.CONSTANT_RESULTS:
        assert names and all(getattr(fn, k, None) == getattr(marked, k) for k in names)


def test_importing_nonlin_imports_neither_dynamo_nor_triton():
    # importing triton before TRITON_INTERPRET is set builds triton.language without the interpreter, and
    # torch._dynamo's import costs about a second: neither may happen on `import nonlin`
    import subprocess

    code = (
        "import sys, nonlin, nonlin.functional, nonlin.modules, nonlin.kernels.cpu, nonlin.accuracy, nonlin.verify;"
        "print(sorted(m for m in ('triton', 'torch._dynamo', 'torch._inductor') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


POINTWISE = [n for n in nonlin.names() if nonlin.spec(n).kind is nonlin.Kind.POINTWISE]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64])
@pytest.mark.parametrize(
    ("name", "params"), [("identity", {}), ("soft_exponential", {}), ("soft_exponential", {"alpha": 0.0})]
)
def test_identity_at_these_parameters_returns_its_input(name, params, dtype):
    """Where the forward is the identity the call returns its input (as torch.nn.Identity), at every size class
    and in training, not a copy through a kernel (benchmarks/kernels.py measured 100-358x torch's `x` in bf16)."""
    f = getattr(F, name)
    small, large = torch.randn(8, 64, dtype=dtype), torch.randn(route.LARGE_NUMEL, dtype=dtype)
    for x in (small, large):
        assert f(x, **params) is x
        xg = x.clone().requires_grad_()
        y = f(xg, **params)
        assert y is xg
        (g,) = torch.autograd.grad(y.sum(), xg)
        assert torch.equal(g, torch.ones_like(xg))


def test_only_entries_that_are_the_identity_pass_their_input_through():
    """Across the catalog, at the default parameters: a passthrough job is exactly an entry whose eager (float64,
    correctly rounded) forward returns every input value unchanged, and soft_exponential leaves it at alpha != 0."""
    x = torch.linspace(-6, 6, 97, dtype=torch.float32)
    for name in POINTWISE:
        s = nonlin.spec(name)
        job = dispatch.job_for(s, torch.float32, route.defaults(name))
        if job is None:
            continue
        with use("eager"):
            same = torch.equal(getattr(F, name)(x), x)
        assert job.passthrough == same, name
    assert not dispatch.job_for(nonlin.spec("soft_exponential"), torch.float32, {"alpha": 0.5}).passthrough


def test_entries_whose_forward_is_relu_take_torchs_relu_for_inference_and_only_those():
    """Across the catalog, at the default parameters: a job's inference forward is torch.relu (`exact_forward`)
    exactly where the traced forward is maximum(x, +0) (helu: its own rule is the backward's), and there it gives the
    eager (float64, correctly rounded) path's bits in every dtype, NaN, infinities and -0 included; a training call
    keeps the kernels' forward and helu's rule."""
    x = torch.cat([torch.linspace(-6, 6, 97), torch.tensor([-0.0, 0.0, float("nan"), float("inf"), -float("inf")])])
    relu_like = []
    for name in POINTWISE:
        s = nonlin.spec(name)
        job = dispatch.job_for(s, torch.float32, route.defaults(name))
        if job is not None and job.exact_forward is not None:
            relu_like.append(name)
    assert set(relu_like) == {"relu", "helu"}
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        xd = x.to(dtype)
        with use("eager"):
            want = F.helu(xd)
        with route.pinned("large"):
            got = F.helu(xd)
        same = (
            got.view(torch.int16 if dtype != torch.float32 else torch.int32)
            == want.view(torch.int16 if dtype != torch.float32 else torch.int32)
        ) | (got.isnan() & want.isnan())
        assert bool(same.all()), dtype
    xg = torch.tensor([-0.05, -0.5, 1.0], requires_grad=True)
    with route.pinned("large"):
        (g,) = torch.autograd.grad(F.helu(xg).sum(), xg)
    assert g.tolist() == [1.0, 0.0, 1.0]  # (passed down to -alpha = -0.1)
    # a small inference call needs no kernel, so it takes the fused route at once (no eager warm-up calls)
    small = torch.randn(64, 8, generator=torch.Generator().manual_seed(9))
    with torch.no_grad(), route.recording() as taken:
        F.helu(small, alpha=0.375)  # (a value of its own: a job no other call made)
    assert [t[5] for t in taken] == ["fused"]


def test_identity_inside_a_compiled_model_is_its_input():
    """Traced into a user's torch.compile graph, the identity adds no kernel's copy or rounding."""

    def f(x):
        return F.soft_exponential(2.0 * x) + F.identity(x)

    x = torch.randn(4, 8, dtype=torch.bfloat16, requires_grad=True)
    y = torch.compile(f)(x)
    (g,) = torch.autograd.grad(y.sum(), x)
    assert torch.equal(y, 2.0 * x + x) and torch.equal(g, torch.full_like(x, 3.0))


@pytest.mark.parametrize("dtype", [torch.float32])
def test_training_erf_takes_torchs_forward_and_the_fused_backward(dtype):
    """erf's float32 forward alone is torch's op (route.NATIVE), its backward is not: a training call runs
    torch.erf forward and the fused backward from the saved input, so training and inference forwards give the
    same bits and the gradient stays the fused one. (tanh and lisht are such rows too, with hand-written backward
    kernels: tests/kernels/test_native32.py; half inputs take the table: tests/kernels/test_kernel_table.py.)"""
    x = torch.linspace(-5, 5, route.LARGE_NUMEL, dtype=torch.float32).to(dtype)
    seen: list[torch.Tensor] = []
    for _ in range(2):  # the first call settles the route, the second takes the settled one
        xx = x.clone().requires_grad_()
        with torch.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
            y = F.erf(xx)
        assert y.grad_fn.name() == "nonlin_fusedBackward"
        assert torch.equal(y, torch.erf(x))
        y.backward(torch.ones_like(y))
    assert len(seen) == 2 and seen[-1].data_ptr() == xx.data_ptr()  # the input only
    # and the route is settled: later calls skip the table walk (the job needs no forward kernel, so waiting
    # for one to be compiled kept every training call on the slow lookup: 32K calls of tanh 1.3x slower)
    settled = route._SETTLED.get(("erf", dtype, x.device, True, True))
    assert settled is not None and settled.torch_forward is torch.special.erf
    with use("fused"):  # the forward kernel: the same backward kernel, the same gradient bits
        x2 = x.clone().requires_grad_()
        y2 = F.erf(x2)
        y2.backward(torch.ones_like(y2))
    assert y2.grad_fn.name() == "nonlin_fusedBackward"
    assert torch.equal(xx.grad, x2.grad)


_TINY = torch.tensor([1e-45, -1e-45, 3e-45, -3e-45, 1e-40, -1e-40, 1e-38, -1e-38, 1e-30, -1e-30], dtype=torch.float32)


def _wrong_signed_zeros(name: str) -> list[float]:
    """Nonzero tiny inputs where the fused float32 result is a zero of the other sign than the eager
    (correctly rounded) one: the true value is nonzero there, so its sign decides the zero's."""
    f = getattr(F, name)
    with use("fused"):
        yf = f(_TINY)
    with use("eager"):
        ye = f(_TINY)
    wrong = (yf == 0) & (ye == 0) & (torch.signbit(yf) != torch.signbit(ye))
    return _TINY[wrong].tolist()


def test_dyt_keeps_the_sign_of_an_underflowed_product():
    """dyt = bias + weight tanh(alpha x): -0 + 0.0 would be +0 where tanh(alpha x) underflows in float32
    (`nonlin check dyt` counted 257 wrong signed zeros on its float32 sample before)."""
    assert _wrong_signed_zeros("dyt") == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n in precision.FP32_MATH["forward"]
        if nonlin.spec(n).kind is nonlin.Kind.POINTWISE and not nonlin.spec(n).stochastic
    ),
)
def test_float32_math_keeps_signed_zeros_of_tiny_inputs(name):
    assert _wrong_signed_zeros(name) == []


@pytest.mark.parametrize("name", ["swiglu", "geglu", "glu", "reglu", "geglu_tanh", "bilinear"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_settled_packed_call_is_the_split_call(name, dtype):
    """A gated call on one packed [gate | value] tensor at the defaults, once its route is settled, goes
    straight to the kernels (`route.settled_packed`: no halves made) or to torch's op on the halves (bilinear,
    reglu's inference); its values, gradient and saved tensors are those of the same call on the halves given
    apart, and another layout or dim, or a non-contiguous tensor takes the general path."""
    f = F._BASE[name]  # nonlin's own signature ([gate | value]; F.glu is torch's, [value | gate])
    gen = torch.Generator().manual_seed(0)
    x = (torch.randn(24, 2 * 40, generator=gen) * 4).to(dtype)
    go = torch.randn(24, 40, generator=gen).to(dtype)
    big = torch.randn(2, 2 * (route.LARGE_NUMEL // 2 + 1), dtype=dtype)  # halves of 2^20 + 2 elements: large
    f(big)
    f(big.clone().requires_grad_()).sum().backward()  # settles both passes (compiling on the spot)
    for _ in range(route.WARM_CALLS + 1):
        f(x)
        f(x.clone().requires_grad_()).backward(go)
    fast, fast_in = f(x), x.clone().requires_grad_()
    y = f(fast_in)
    y.backward(go)
    g, v = x.clone().requires_grad_(), x.clone().requires_grad_()
    ref = f(g[:, :40], v[:, 40:])
    ref.backward(go)
    assert torch.equal(fast, ref.detach()) and torch.equal(y.detach(), ref.detach())
    assert torch.equal(fast_in.grad[:, :40], g.grad[:, :40]) and torch.equal(fast_in.grad[:, 40:], v.grad[:, 40:])
    assert y.shape == (24, 40)
    s = nonlin.spec(name)
    assert torch.equal(route.settled_packed(s, x), fast)  # (the kernels', or torch's op's)
    swapped = torch.cat([x[:, 40:], x[:, :40]], dim=-1)  # [value | gate]
    assert torch.equal(route.settled_packed(s, swapped, value_first=True), fast)
    assert route.settled_packed(s, x.t().contiguous().t()) is None  # not contiguous
    assert torch.equal(f(x, layout="value_gate"), f(swapped))
    assert ("route.py", "run") not in _calls(lambda: f(x))  # settled: no route walk


def _calls(fn) -> set[tuple[str, str]]:
    """(file name, function name) of every Python function `fn()` runs."""
    seen: set[tuple[str, str]] = set()

    def hook(frame, event, arg):
        if event == "call":
            seen.add((frame.f_code.co_filename.rsplit("/", 1)[-1], frame.f_code.co_name))

    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


@pytest.mark.parametrize("name", ["glu", "jax.nn.glu"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_settled_value_first_glu_skips_the_route_walk(name, dtype):
    """glu under torch's and JAX's names ([value | gate] halves, F.glu's layout) goes from the settled lookup to
    the kernels once its route is settled, as nonlin's own [gate | value] call does: no split_packed, no route
    walk; the values and gradient are the general path's (nonlin's glu on the halves given apart), and an odd width
    still gets the general path's error."""
    f = F.function(name)
    gen = torch.Generator().manual_seed(0)
    x = (torch.randn(24, 2 * 40, generator=gen) * 4).to(dtype)
    go = torch.randn(24, 40, generator=gen).to(dtype)
    big = torch.randn(2, 2 * (route.LARGE_NUMEL // 2 + 1), dtype=dtype)
    f(big)
    f(big.clone().requires_grad_()).sum().backward()
    for _ in range(route.WARM_CALLS + 1):
        f(x)
        f(x.clone().requires_grad_()).backward(go)
    calls = _calls(lambda: f(x))
    assert ("route.py", "settled_packed") in calls and ("route.py", "run") not in calls
    assert ("functional.py", "split_packed") not in calls
    fast, fast_in = f(x), x.clone().requires_grad_()
    y = f(fast_in)
    y.backward(go)
    g, v = x.clone().requires_grad_(), x.clone().requires_grad_()
    ref = F._BASE["glu"](g[:, 40:], v[:, :40])  # (gate, value): the second half gates the first
    ref.backward(go)
    assert torch.equal(fast, ref.detach()) and torch.equal(y.detach(), ref.detach())
    assert torch.equal(fast_in.grad[:, :40], v.grad[:, :40]) and torch.equal(fast_in.grad[:, 40:], g.grad[:, 40:])
    # double backward (create_graph=True): the eager formulas on the halves, their gradients put back in the
    # packing's order ([value | gate]), against the float64 path's
    xd = x.clone().requires_grad_()
    (first,) = torch.autograd.grad(f(xd), xd, go, create_graph=True)
    (second,) = torch.autograd.grad(first.float().pow(2).sum(), xd)
    x64 = x.double().requires_grad_()
    (first64,) = torch.autograd.grad(torch.nn.functional.glu(x64), x64, go.double(), create_graph=True)
    (second64,) = torch.autograd.grad(first64.pow(2).sum(), x64)
    tol = 2.0**-20 if dtype == torch.float32 else 2.0**-6
    torch.testing.assert_close(first.double(), first64, rtol=tol, atol=tol)
    torch.testing.assert_close(second.double(), second64, rtol=8 * tol, atol=8 * tol)
    with pytest.raises(ValueError, match="even"):
        f(torch.randn(3, 5, dtype=dtype))


def test_a_settled_call_skips_the_route_walk():
    """Once a default-parameter call's route is settled, the functional form goes from the lookup
    (`route.settled`, `route.settled_packed`) to the kernels: no argument handling, no route walk, no halves."""
    x, packed = torch.randn(64, 64), torch.randn(64, 128)
    F.silu(torch.randn(route.LARGE_NUMEL))  # compiles the kernels
    F.swiglu(torch.randn(2, route.LARGE_NUMEL + 2))
    for _ in range(route.WARM_CALLS + 1):
        F.silu(x)
        F.swiglu(packed)
    pointwise, gated = _calls(lambda: F.silu(x)), _calls(lambda: F.swiglu(packed))
    assert ("route.py", "settled") in pointwise and ("route.py", "run") not in pointwise
    assert ("functional.py", "_pointwise") not in pointwise
    assert ("dispatch.py", "run_job") not in pointwise  # (the settled callable: the kernel's forward at once)
    assert ("dispatch.py", "_pointwise_forward") in pointwise
    assert ("route.py", "settled_packed") in gated and ("route.py", "run") not in gated
    assert ("functional.py", "split_packed") not in gated
    with use("eager"):  # another setting: the general path
        assert ("route.py", "run") in _calls(lambda: F.silu(x))


@pytest.mark.parametrize(
    "name, dtype",
    [
        ("identity", torch.float32),  # the input itself
        ("relu", torch.float32),  # torch's op as the forward (`exact_forward`)
        ("silu", torch.float32),  # native32's kernels
        ("leaky_relu", torch.float32),  # generated kernels
        ("gelu", torch.bfloat16),  # the table's lookup
        ("mish", torch.float64),
    ],
)
@pytest.mark.parametrize("grad", [False, True])
def test_a_settled_call_is_run_jobs_call(name, dtype, grad):
    """`dispatch.settled_call` takes run_job's branches once: the same values, gradients and saved inputs on
    every kind of job, contiguous or not, and the settled default call is that callable."""
    s = nonlin.spec(name)
    job = dispatch.job_for(s, dtype, s.resolve_params({}))
    call = dispatch.settled_call(job, grad)
    base = torch.randn(2 * route.LARGE_NUMEL, generator=torch.Generator().manual_seed(5)).to(dtype)
    base[:4] = torch.tensor([float("inf"), float("-inf"), float("nan"), -0.0])
    for x0 in (base, base[::2], base[:5]):
        got_x, want_x = (x0.clone().requires_grad_(grad) for _ in range(2))
        got, want = call(got_x), dispatch.run_job(job, (want_x,))
        assert torch.equal(_bits(got), _bits(want)) and type(got.grad_fn) is type(want.grad_fn)
        if grad:
            go = torch.randn(x0.shape, generator=torch.Generator().manual_seed(6)).to(dtype)
            got.backward(go)
            want.backward(go)
            assert torch.equal(_bits(got_x.grad), _bits(want_x.grad))
    with pytest.raises(ValueError, match="swiglu is gated"):
        swiglu = nonlin.spec("swiglu")
        dispatch.settled_call(dispatch.job_for(swiglu, torch.float32, swiglu.resolve_params({})), grad)


def test_settled_default_calls_are_the_settled_routes(monkeypatch):
    """`route.settled` calls the callable `_settle` stored beside each pointwise route: torch's op, or the job's."""
    monkeypatch.setattr(route, "_SETTLED", {})
    monkeypatch.setattr(route, "_CALL", {})
    x = torch.randn(64)
    F.silu(torch.randn(route.LARGE_NUMEL))  # compiles the kernels
    for _ in range(route.WARM_CALLS + 1):
        F.relu(x)
        F.silu(x)
        F.swiglu(torch.randn(4, 32))
    keys = {name: route._settled_key(nonlin.spec(name), x, False, x.numel()) for name in ("relu", "silu", "swiglu")}
    assert (
        route._SETTLED[keys["relu"]] is route._TORCH_OP
        and route._CALL[keys["relu"]] is nonlin.spec("relu").torch_equivalent
    )
    job = route._SETTLED[keys["silu"]]
    assert isinstance(job, dispatch.Job) and route._CALL[keys["silu"]].args == (job,)
    assert keys["swiglu"] not in route._CALL  # (gated calls: settled_packed, or the route)
    assert torch.equal(F.silu(x), dispatch.run_job(job, (x,)))
    for _ in range(2):  # torch's leaky_relu at any slope (`Native.params`), torch's name and nonlin's
        F.leaky_relu(x, 0.2)
        F._BASE["leaky_relu"](x, alpha=0.2)
    call = route._CALL[route._settled_with_key(nonlin.spec("leaky_relu"), x, (("alpha", 0.2),), {"alpha": 0.2})]
    assert call.keywords == {"alpha": 0.2} and torch.equal(call(x), torch.nn.functional.leaky_relu(x, 0.2))
    route._set_measured(dict(route._MEASURED))  # a new profile forgets both
    assert not route._SETTLED and not route._CALL


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_kernels_take_tensors_of_any_shape(dtype):
    """A contiguous tensor of any rank goes to the hand-written and lookup kernels as one row in its own shape,
    a non-contiguous one as a contiguous copy: the same bits as the flat call, forward and gradient."""
    name = "silu"
    F.function(name)(torch.randn(route.LARGE_NUMEL).to(dtype).requires_grad_()).sum().backward()
    base = (torch.randn(4, 6, 10, generator=torch.Generator().manual_seed(1)) * 4).to(dtype)
    for x in (base, base.transpose(0, 2), base[:, ::2, 1:], base[0, 0, 0]):
        with route.pinned("large"):  # the kernels at any size
            flat_in = x.reshape(-1).clone().requires_grad_()
            flat = F.function(name)(flat_in)
            flat.backward(torch.ones_like(flat))
            shaped_in = x.clone().requires_grad_()
            y = F.function(name)(shaped_in)
            y.backward(torch.ones_like(y))
        assert y.shape == x.shape and torch.equal(y.reshape(-1), flat.detach())
        assert torch.equal(shaped_in.grad.reshape(-1), flat_in.grad)
    from nonlin.kernels.gather import row_layout

    assert row_layout(base) == (1, base.numel(), base.numel())
    with pytest.raises(ValueError, match="must be contiguous"):
        row_layout(base.transpose(0, 2))


def test_a_graph_traced_through_one_form_never_serves_another():
    """The functional forms of one kind share their code, and inside torch.compile their routes are constants of
    the graph: each form's own name must be among its guards, or a caller's function traced through gelu would
    run it for mish (one code object compiled with each form in turn, as a model's layers call theirs)."""
    torch._dynamo.reset()
    x = torch.randn(8, 16, generator=torch.Generator().manual_seed(3))

    def compiled(f):
        return torch.compile(lambda t: f(t) * 2.0, fullgraph=True)

    for name in ("gelu", "mish", "silu", "swish", "tanhexp", "glu", "swiglu", "geglu"):
        f = F.function(name)
        with torch.no_grad():
            y, y0 = compiled(f)(x), f(x) * 2.0
        assert _max_ulp(y, y0) <= 2.5, name


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64], ids=str)
def test_the_graph_plan_takes_the_route_choose_takes(dtype, monkeypatch):
    """Inside torch.compile a call at an entry's defaults takes `route._graph_plan`'s route, a constant of the
    graph: for every entry, pass and size class, the route `choose` gives the same call there (torch's op, the
    traced functions, or the general path, which takes the eager route)."""
    from nonlin.registry import names

    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    for name in names():
        s = nonlin.spec(name)
        if s.kind not in (nonlin.Kind.POINTWISE, nonlin.Kind.GATED):
            continue
        for pass_ in ("forward", "train"):
            for size in ("small", "large"):
                n = route.LARGE_NUMEL if size == "large" else 64
                x = torch.zeros(n, dtype=dtype, requires_grad=pass_ == "train")
                main = (x, x) if s.kind is nonlin.Kind.GATED else (x,)
                r = route.choose(s, s.forward, main, (), route.defaults(name))
                plan = route._graph_plan(name, dtype, "cpu", pass_, size, "auto", ("auto", "auto"))
                where = (name, pass_, size)
                if r == "fused" and not (name in route.FUSED_FLOAT64 and dtype == torch.float32):
                    assert isinstance(plan, tuple) and plan[0] in ("traced", "identity"), where
                elif r == "torch":
                    assert plan == "torch", where
                else:
                    assert plan is None, where
