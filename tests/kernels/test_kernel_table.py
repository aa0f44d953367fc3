"""The fused CPU path's lookup of half-type inputs (nonlin.kernels.table), every pointwise entry the same way:
on all 65536 bfloat16 and float16 values the forward is the eager path's result bit for bit (NaN, infinities
and signed zeros included) but at the float64 near-ties, where it is the accuracy reference's correctly
rounded value; the gradient is within one ULP of the eager path's and differs from it only at near-ties;
only one tensor of the input's size is saved for backward."""

from __future__ import annotations

import pytest
import torch
from kernel_helpers import ulp_error

import nonlin
from nonlin import route
from nonlin.kernels import dispatch, gather, table, use

F = nonlin.functional
HALVES = [torch.bfloat16, torch.float16]


def _cases() -> list:
    cases = []
    for name in nonlin.names("pointwise"):
        s = nonlin.spec(name)
        if s.stochastic or any(isinstance(v, torch.Tensor) for v in s.defaults().values()):
            continue  # no direct job: the custom op computes them (tests/kernels/test_kernel_cpu_path.py)
        if dispatch.job_for(s, torch.bfloat16, s.defaults()).passthrough:
            continue  # the call returns its input (identity; soft_exponential at alpha = 0)
        for dt in HALVES:
            if route.table_route(name, str(dt)[6:], "cpu", "train", "large") == "fused":
                cases.append(pytest.param(name, dt, id=f"{name}-{str(dt)[6:]}"))
    return cases


CASES = _cases()


def test_the_half_rows_off_the_lookup_are_torchs_ops():
    """Every half-type training row of a directly callable pointwise entry is the lookup or torch's op."""
    covered = {(c.values[0], c.values[1]) for c in CASES}
    assert {("gelu", torch.bfloat16), ("tanh", torch.float16), ("sigmoid", torch.float16)} <= covered
    for name in nonlin.names("pointwise"):
        for dt in HALVES:
            r = route.table_route(name, str(dt)[6:], "cpu", "train", "large")
            job = dispatch.job_for(nonlin.spec(name), dt, nonlin.spec(name).defaults())
            assert (name, dt) in covered or r == "torch" or job is None or job.passthrough, (name, dt, r)


def _check_forward(s, x: torch.Tensor, got: torch.Tensor, eager: torch.Tensor) -> bool:
    from nonlin.accuracy.formats import get_format
    from nonlin.accuracy.reference import evaluate

    differ = ~_same_bits(got, eager)
    if not bool(differ.any()):
        return True
    (ref,) = evaluate(s, s.defaults(), [x[differ].double().numpy()], get_format(x.dtype), derivative=False)
    want = torch.from_numpy(ref.rounded).to(x.dtype)
    return bool(_same_bits(got[differ], want).all())


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    both_nan = torch.isnan(a) & torch.isnan(b)
    return both_nan | ((a == b) & (torch.signbit(a) == torch.signbit(b)))


@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_half_inputs_are_looked_up_with_the_eager_paths_bits(name, dtype):
    s = nonlin.spec(name)
    job = dispatch.job_for(s, dtype, s.defaults())
    assert job is not None and job.table is not None
    f = F.function(name)
    x = table.all_values(dtype)
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(7)).to(dtype)
    with use("eager"):
        xe = x.clone().requires_grad_()
        ye = f(xe)
        (ge,) = torch.autograd.grad(ye, xe, go)
    saved: list[torch.Tensor] = []
    with route.pinned("large"), route.recording() as taken:
        xf = x.clone().requires_grad_()
        with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
            yf = f(xf)
        (gf,) = torch.autograd.grad(yf, xf, go)
        with torch.no_grad():
            y_inference = f(x)
    assert [t[5] for t in taken] == ["fused", "fused"]
    assert bool(_same_bits(y_inference, yf).all())
    # the eager path's bits, but where its float64 result sat on a rounding boundary: there the reference's
    assert _check_forward(s, x, yf, ye), f"{name} {dtype}"
    assert len(saved) == 1 and saved[0].shape == x.shape and saved[0].dtype == dtype
    # the gradient: go * f'(x) with f' rounded to float32 (to odd) and the product rounded in float32 (or the
    # generated backward from the output, for sigmoid-like entries) against the eager path's rounding of the
    # float64 product: one ULP apart at most, and only at near-ties, where go f'(x) lies within 2^-20 of its
    # value from the midpoint between the two (the float32 roundings are 2^-24 each; there the float64
    # derivative's own error can decide the eager path's side too: sau's 0.505 at tiny x)
    err = ulp_error(gf, ge.double().numpy())
    assert err.max() <= 1.0, f"{name} {dtype}: {err.max()} ULP at x = {x[int(err.argmax())].item()}"
    differ = ~_same_bits(gf, ge)
    if bool(differ.any()):
        from nonlin.ops import TORCH

        d = s.derivative(TORCH, x[differ].double(), **s.defaults())
        exact = go[differ].double() * (d[0] if isinstance(d, tuple) else d)
        mid = (gf[differ].double() + ge[differ].double()) / 2
        far = torch.abs(exact - mid) > 2.0**-20 * torch.abs(mid)
        assert not bool(far.any()), (
            f"{name} {dtype}: gradients differ from the eager path's away from a tie at x = {x[differ][far][:5]}"
        )


def test_the_lookup_kernels_are_shared_by_every_entry():
    """Two kernels per half dtype (forward; backward per slope dtype), compiled once for the whole catalog."""
    x = torch.randn(4096).to(torch.bfloat16).requires_grad_()
    with route.pinned("large"):
        for name in ("gelu", "silu", "mish", "elliott"):
            F.function(name)(x).sum().backward()
    kernels = {k for k in gather._BUILT if k[1] == torch.bfloat16}
    assert {k for k in kernels if k[0] == "lookup"} == {("lookup", torch.bfloat16, False)}
    assert {k[0] for k in kernels} == {"lookup", "grad"} and len(kernels) <= 3  # grad: with float64 slopes or not


def test_non_contiguous_and_empty_inputs():
    base = torch.randn(64, 3).to(torch.bfloat16)
    x = base[:, 1]
    with route.pinned("large"):
        y = F.gelu(x)
        empty = F.gelu(torch.empty(0, 5, dtype=torch.float16))
    with use("eager"):
        assert torch.equal(y, F.gelu(x))
    assert empty.shape == (0, 5) and empty.dtype == torch.float16


def test_built_tables_are_bounded(monkeypatch):
    """A sweep over parameter values builds one table per value; the oldest beyond MAX_BUILT are dropped and
    rebuilt on their next call, with the same values."""
    monkeypatch.setattr(table, "MAX_BUILT", 2)
    x = torch.linspace(-3, 3, 4096).to(torch.bfloat16)
    with route.pinned("large"):
        first = F.leaky_relu(x, alpha=0.3)
        for a in (0.31, 0.32, 0.33):
            F.leaky_relu(x, alpha=a)
        built = [t for t in table._BUILT.values() if t.values is not None]
        assert 1 <= len(built) <= 2
        assert torch.equal(F.leaky_relu(x, alpha=0.3), first)


@pytest.mark.parametrize("dtype", HALVES, ids=["bfloat16", "float16"])
@pytest.mark.parametrize("name", ["gelu", "silu", "sigmoid", "tanh", "softsign", "mish", "shifted_relu"])
def test_inside_torch_compile_the_lookup_is_traced(name, dtype):
    """A user's torch.compile traces the same lookup into its graph: the direct path's bits in both passes."""
    torch._dynamo.reset()
    f = F.function(name)
    x = table.all_values(dtype)
    x = x[torch.isfinite(x)]
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(3)).to(dtype)
    xc = x.clone().requires_grad_()
    yc = torch.compile(lambda t: f(t) * 1.0, fullgraph=True)(xc)
    (gc,) = torch.autograd.grad(yc, xc, go)
    with route.pinned("large"):
        xd = x.clone().requires_grad_()
        yd = f(xd)
        (gd,) = torch.autograd.grad(yd, xd, go)
    assert bool(_same_bits(yc, yd).all())
    assert bool(_same_bits(gc, gd).all())


def _random_slopes(dtype: torch.dtype, g: torch.Generator) -> torch.Tensor:
    """Slopes over float64's whole range (float32's subnormals, beyond its largest, zeros, inf, NaN)."""
    e = torch.randint(-160, 160, (table.SIZE,), generator=g).double()
    s = torch.randn(table.SIZE, dtype=torch.float64, generator=g) * torch.exp2(e)
    s[:8] = torch.tensor([0.0, -0.0, torch.inf, -torch.inf, torch.nan, 2.0**-140, -(2.0**-130), 3.0e38])
    return s if dtype == torch.float64 else s.float()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [1, 15, 17, 16384 * 3 + 5])
@pytest.mark.parametrize(
    ("dtype", "wide"),
    [(torch.bfloat16, False), (torch.bfloat16, True), (torch.float16, False)],
    ids=["bfloat16", "bfloat16-wide", "float16"],
)
def test_gather_kernels_give_the_torch_op_forms_bits(dtype, wide, n, threads):
    """The compiled kernels (kernels/gather.py) and the torch-op forms a caller's torch.compile traces
    (table._lookup, _grad, _grad_wide) agree bit for bit, at every pattern, at sizes that leave a scalar tail
    and with the work split among threads."""
    g = torch.Generator().manual_seed(n + threads)
    bits = torch.randint(-32768, 32768, (n,), dtype=torch.int16, generator=g)
    go = torch.randint(-32768, 32768, (n,), dtype=torch.int16, generator=g).view(dtype)
    values = torch.randint(-32768, 32768, (table.SIZE,), dtype=torch.int16, generator=g).view(dtype).float()
    y = torch.empty(n, dtype=dtype)
    gather.kernel("lookup", dtype)(bits, values, y, n, threads)
    assert _same_bits(y, table._lookup(bits, values, None).to(dtype)).all()
    d = _random_slopes(torch.float64, g)
    slopes, far = table._slopes(d, dtype)
    if wide:
        assert far is not None and bool(torch.isnan(slopes).any())
    else:
        slopes, far = d.float(), None
    grad = torch.empty(n, dtype=dtype)
    k = gather.kernel("grad", dtype, wide)
    k(go, bits, slopes, *([far] if wide else []), grad, n, threads)
    expected = table.gradient(go, bits.view(dtype), slopes, far)
    same = _same_bits(grad, expected)
    assert same.all(), f"{(~same).sum()} of {n} differ, e.g. {grad[~same][:4]} against {expected[~same][:4]}"


def test_the_wide_products_rounding_is_the_eager_paths():
    """go = 1 makes _grad_wide a conversion of float64 slopes to bfloat16: it must round once, as the eager
    path's round_to does, across float32's subnormals and near bfloat16 midpoints (where float64 -> float32 ->
    bfloat16 would round twice)."""
    from nonlin.autograd import round_to

    g = torch.Generator().manual_seed(5)
    odd = torch.randint(0, 256, (table.SIZE,), generator=g).double() * 2 + 1  # up to 9 bits, the last set
    e = torch.randint(-134, 112, (table.SIZE,), generator=g).double()
    e[table.SIZE // 2 :] = -134  # odd multiples of 2^-134: the midpoints of bfloat16's subnormals
    nudge = torch.randint(-3, 4, (table.SIZE,), generator=g).double() * 2.0**-40
    sign = torch.where(torch.rand(table.SIZE, generator=g) < 0.5, -1.0, 1.0).double()
    s = sign * odd * torch.exp2(e) * (1 + nudge)  # half-type midpoints and doubles next to them
    s[: table.SIZE // 4] = _random_slopes(torch.float64, g)[: table.SIZE // 4]
    bits = torch.arange(table.SIZE, dtype=torch.int32).to(torch.int16)
    ones = torch.ones(table.SIZE, dtype=torch.bfloat16)
    every = torch.full((table.SIZE,), torch.nan)  # every element on the float64 path
    assert _same_bits(table._grad_wide(ones, bits, every, s, None), round_to(s, torch.bfloat16)).all()
