"""The fused CPU path's lookup of half-type inputs (nonlin.kernels.table), every pointwise entry the same way:
on all 65536 bfloat16 and float16 values the forward is the eager path's result bit for bit (NaN, infinities
and signed zeros included) but at the float64 near-ties, where it is the accuracy reference's correctly
rounded value; the gradient is within one ULP of the eager path's and differs from it only at near-ties;
only one tensor of the input's size is saved for backward."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from kernel_helpers import nonlin_ops_traced, ulp_error

import nonlin
from nonlin import route
from nonlin.kernels import dispatch, gather, native32, table, use

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
    # (inference takes torch's op where route.NATIVE has a forward-only row for the dtype: prelu)
    assert [t[5] for t in taken] == ["fused", route.table_route(name, str(dtype)[6:], "cpu", "forward", "large")]
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


@pytest.mark.parametrize(
    ("name", "dtype"),
    [(n, d) for n, dtypes in sorted(dispatch.HALF_FORWARD_BY_KERNEL.items()) for d in HALVES if d in dtypes],
)
def test_listed_half_forwards_take_their_kernel_where_it_gives_the_tables_bits(name, dtype):
    """`dispatch.HALF_FORWARD_BY_KERNEL`: the generated kernel gives the table's bits at all 65536 inputs under this
    ISA (CI's matrix runs this file under each), so the calls take it (their bits: the test above)."""
    s = nonlin.spec(name)
    job = dispatch.job_for(s, dtype, s.defaults())
    assert dispatch._kernel_gives_the_table(job)
    x = table.all_values(dtype)
    with route.pinned("large"), torch.no_grad():
        y = F.function(name)(x)
    assert job.half_kernel is True
    assert bool(_same_bits(y, job.table.forward(x)).all())


def test_a_half_forward_kernel_that_differs_from_the_table_anywhere_is_not_taken(monkeypatch):
    monkeypatch.setattr(dispatch, "_JOBS", {})
    kernel = dispatch._kernel

    def one_input_off(job, which, *inputs):
        out = kernel(job, which, *inputs)
        if inputs[0].numel() == table.SIZE:  # (the check's call on every input)
            out[0][1000] = out[0][1000] + 1
        return out

    monkeypatch.setattr(dispatch, "_kernel", one_input_off)
    s = nonlin.spec("cube")
    job = dispatch.job_for(s, torch.bfloat16, s.defaults())
    x = torch.randn(64, 64).to(torch.bfloat16)
    with route.pinned("large"), torch.no_grad():
        y = F.cube(x)
    assert job.half_kernel is False
    assert bool(_same_bits(y, job.table.forward(x)).all())
    assert not dispatch._kernel_gives_the_table(dispatch.job_for(nonlin.spec("gelu"), torch.bfloat16, {}))  # unlisted


@pytest.mark.parametrize("name", sorted(native32.HALF_FORMS))
def test_bfloat16_calls_of_a_half_form_take_its_kernels_with_the_tables_forward_bits(name):
    """`native32.HALF_FORMS`: the float32 form around bfloat16 loads and stores, its near-midpoint lanes looked up,
    gives the table's (correctly rounded) forward at all 65536 inputs under this ISA (CI's matrix runs this file
    under each), and the calls take it, forward and backward; the backward's bits are the test above's (the eager
    path's but at near-ties)."""
    s = nonlin.spec(name)
    job = dispatch.job_for(s, torch.bfloat16, s.defaults())
    if not native32.available():  # (an ISA the kernels are not built for: the lookup, the tests above)
        assert job.native_half is None
        return
    assert job.native_half == name and dispatch._kernel_gives_the_table(job)
    x = table.all_values(torch.bfloat16)
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    with route.pinned("large"):
        with torch.no_grad():
            y = F.function(name)(x)
        xg = x.clone().requires_grad_()
        (g,) = torch.autograd.grad(F.function(name)(xg), xg, go)
    assert job.half_kernel is True
    assert bool(_same_bits(y, job.table.forward(x)).all())
    assert bool(_same_bits(g, native32.half_backward(name, go, x)).all())
    # odd lengths (the vector loops' tails: below 2V elements the one-vector loop, where the whole ran the pairs'
    # under AVX-512), a strided input, an empty one
    for n in (1, 7, 17, 31, 47):
        part = slice(40000, 40000 + n)
        assert bool(_same_bits(native32.half_forward(name, x[part], job.table.widened_values()), y[part]).all())
        assert bool(_same_bits(native32.half_backward(name, go[part], x[part]), g[part]).all())
    strided = x.view(-1, 2)[:, 1]
    with route.pinned("large"), torch.no_grad():
        assert bool(_same_bits(F.function(name)(strided), y.view(-1, 2)[:, 1]).all())
        assert F.function(name)(torch.empty(0, 3, dtype=torch.bfloat16)).shape == (0, 3)


def test_a_half_forms_lookup_is_needed_below_its_doubt_bound_and_only_there():
    """hardswish's bfloat16 form, x (x + 3) / 6 in float32 with a correctly rounded quotient, rounded to bfloat16
    with no lane looked up: from |x| = 2^-7 on it gives the table's bits at every input (the product is exact, so a
    quotient on a midpoint is the exact value's tie: `hardswish_half_f`'s argument, which lets the kernel look up
    only `hardswish_half_doubt`'s lanes), and below it misses some (the product rounds first), so the fix-up of
    `native32._UNARY_BF16` is what gives the table's bits there and the test above can fail."""
    x = table.all_values(torch.bfloat16)
    s = nonlin.spec("hardswish")
    xf = x.float()
    xc = xf.clamp(-3, 3)
    product = xc * (xc + 3)
    form = (product / 6).where(xf <= 3, xf).to(torch.bfloat16)
    looked_up = dispatch.job_for(s, torch.bfloat16, s.defaults()).table.forward(x)
    wrong = ~_same_bits(form, looked_up) & ~x.isnan()
    doubt = xf.abs() < 2.0**-7
    assert int((wrong & doubt).sum()) > 0
    assert int((wrong & ~doubt).sum()) == 0
    exact = product.double() == xc.double() * (xc.double() + 3)
    assert bool(exact[~doubt & ~x.isnan()].all())


def test_the_lookup_kernels_are_shared_by_every_entry():
    """Two kernels per half dtype (forward; backward per slope dtype), compiled once for the whole catalog."""
    x = torch.randn(4096).to(torch.bfloat16).requires_grad_()
    with route.pinned("large"):
        for name in ("gelu", "silu", "mish", "elliott"):
            F.function(name)(x).sum().backward()
    kernels = {k for k in gather._BUILT if k[1] == torch.bfloat16 and not k[2]}  # (k[2]: a gated entry's go * v)
    assert {k for k in kernels if k[0] == "lookup"} == {("lookup", torch.bfloat16, False, False)}
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
        # (elu at other alphas than 1 takes the fused route: leaky_relu's slope keeps torch's op, route.Native.params)
        first = F.elu(x, alpha=0.3)
        for a in (0.31, 0.32, 0.33):
            F.elu(x, alpha=a)
        built = [t for t in table._BUILT.values() if t.arrays is not None]
        assert 1 <= len(built) <= 2
        assert torch.equal(F.elu(x, alpha=0.3), first)


@pytest.mark.parametrize("dtype", HALVES, ids=["bfloat16", "float16"])
@pytest.mark.parametrize("name", ["gelu", "silu", "sigmoid", "tanh", "softsign", "mish", "shifted_relu"])
def test_inside_torch_compile_the_lookup_is_traced(name, dtype):
    """A user's torch.compile puts the same lookup in its graph (the table ops, opaque to inductor): the
    direct path's bits in both passes."""
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
@pytest.mark.parametrize("shape", [(1,), (15,), (17,), (16384 * 3 + 5,), (3, 37), (2, 16384 + 9)])
@pytest.mark.parametrize(
    ("dtype", "wide", "has_v"),
    [
        (torch.bfloat16, False, False),
        (torch.bfloat16, True, False),
        (torch.bfloat16, True, True),
        (torch.float16, False, False),
        (torch.float16, False, True),
    ],
    ids=["bfloat16", "bfloat16-wide", "bfloat16-wide-v", "float16", "float16-v"],
)
def test_gather_kernels_give_the_torch_op_forms_bits(dtype, wide, has_v, shape, threads):
    """The compiled kernels (kernels/gather.py) and the torch-op forms a caller's torch.compile traces
    (table._lookup, _product) agree bit for bit, at every pattern, at sizes that leave a scalar tail, on rows of
    a packed [gate | value] layout, and with the work split among threads."""
    g = torch.Generator().manual_seed(sum(shape) + threads)

    def patterns(dt):
        n = shape[0] * (2 * shape[1] if len(shape) == 2 else 1)
        t = torch.randint(-32768, 32768, (n,), dtype=torch.int16, generator=g).view(dt)
        return t.view(shape[0], 2 * shape[1])[:, shape[1] :] if len(shape) == 2 else t  # strided rows

    bits, go, v = patterns(torch.int16), patterns(dtype), patterns(dtype) if has_v else None
    values = torch.randint(-32768, 32768, (table.SIZE,), dtype=torch.int16, generator=g).view(dtype).float()
    y = torch.empty(shape, dtype=dtype)
    assert gather.lookup(bits, values, y)
    assert _same_bits(y, table._lookup(bits, values).to(dtype)).all()
    d = _random_slopes(torch.float64, g)
    slopes, far = table._slopes(d, dtype)
    if wide:
        far = d if far is None else far
    else:
        slopes, far = d.float(), None
    out = torch.empty(2 * shape[0] * shape[-1], dtype=dtype)
    out = out.view(shape[0], 2 * shape[1])[:, : shape[1]] if len(shape) == 2 else out[: shape[0]]
    assert gather.gradient(go, v, bits, slopes, far, out, threads=threads)
    expected = table._product(go, v, bits, slopes, far)
    same = _same_bits(out, expected)
    assert same.all(), f"{(~same).sum()} differ, e.g. {out[~same][:4]} against {expected[~same][:4]}"


def test_the_wide_products_rounding_is_the_eager_paths():
    """go = 1 makes the far-tail product a conversion of float64 slopes to bfloat16: it must round once, as the eager
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
    assert _same_bits(table._product(ones, None, bits, every, s), round_to(s, torch.bfloat16)).all()


GATED_CASES = [
    pytest.param(name, dt, id=f"{name}-{str(dt)[6:]}")
    for name in nonlin.names("gated")
    if nonlin.spec(name).gate is not None
    for dt in HALVES
    if route.table_route(name, str(dt)[6:], "cpu", "train", "large") == "fused"
]


def _near_ties_only(name: str, got: torch.Tensor, eager: torch.Tensor, exact: torch.Tensor) -> None:
    """`got` is the eager path's value but where the float64 `exact` lies within 2^-20 (relative) of the
    midpoint between the two, and one ULP from it at most."""
    err = ulp_error(got, eager.double().numpy())
    assert err.max() <= 1.0, f"{name}: {err.max()} ULP at element {int(err.argmax())}"
    differ = ~_same_bits(got, eager)
    mid = (got[differ].double() + eager[differ].double()) / 2
    far = torch.abs(exact[differ] - mid) > 2.0**-20 * torch.abs(mid)
    assert not bool(far.any()), f"{name}: differs from the eager path away from a tie: {exact[differ][far][:5]}"


@pytest.mark.parametrize(("name", "dtype"), GATED_CASES)
def test_gated_half_inputs_look_the_gate_up(name, dtype):
    """gate(g) * v with the gate looked up: every half-type g against v of every magnitude, forward and both
    gradients within one ULP of the eager path's and different only at near-ties; packed and split inputs,
    inference and training, and a caller's torch.compile give the same bits; the inputs alone are saved."""
    from nonlin.ops import TORCH

    s = nonlin.spec(name)
    p = s.defaults()
    assert isinstance(dispatch.job_for(s, dtype, p).table, table.GateTable)
    gen = torch.Generator().manual_seed(11)
    g = table.all_values(dtype)
    g = g[torch.isfinite(g)]
    big = float(torch.finfo(dtype).max) ** 0.5
    v = (torch.randn(g.shape, generator=gen) * torch.exp2(torch.randint(-24, 24, g.shape, generator=gen))).clamp(
        -big, big
    )  # go * v stays in range for float16; for bfloat16 it is wide of float32's at the ends
    v, go = v.to(dtype), torch.randn(g.shape, generator=gen).to(dtype)
    packed = torch.cat([g.view(-1, 8), v.view(-1, 8)], dim=1)  # [n / 8, 16]: rows of [gate | value]

    def run(x):
        x = x.clone().requires_grad_()
        y = F.function(name)(x, layout="gate_value")
        (dx,) = torch.autograd.grad(y, x, go.view(-1, 8))
        return y.detach().reshape(-1), (dx[:, :8].reshape(-1), dx[:, 8:].reshape(-1))

    with use("eager"):  # (split: autograd sums the two slices' gradients of a packed input, -0 + 0 = +0)
        ge, ve = g.clone().requires_grad_(), v.clone().requires_grad_()
        ye = F.function(name)(ge, ve)
        dxe = torch.autograd.grad(ye, (ge, ve), go)
        ye = ye.detach()
    saved: list[torch.Tensor] = []
    with route.pinned("large"), route.recording() as taken:
        with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
            y, dx = run(packed)
        gs, vs = g.clone().requires_grad_(), v.clone().requires_grad_()
        ys = F.function(name)(gs, vs)
        dgs, dvs = torch.autograd.grad(ys, (gs, vs), go)
        with torch.no_grad():
            y_inference = F.function(name)(packed, layout="gate_value")
    assert {t[5] for t in taken} == {"fused"}
    assert len(saved) == 1 and saved[0].shape == packed.shape
    for a, b in ((y, ys), (y, y_inference.reshape(-1)), (dx[0], dgs), (dx[1], dvs)):
        assert _same_bits(a, b).all()
    gate, gate_grad = s.gate
    gd, vd, god = g.double(), v.double(), go.double()
    _near_ties_only(f"{name} forward", y, ye, gate(TORCH, gd, **p) * vd)
    _near_ties_only(f"{name} d/dg", dx[0], dxe[0], god * vd * gate_grad(TORCH, gd, **p))
    _near_ties_only(f"{name} d/dv", dx[1], dxe[1], god * gate(TORCH, gd, **p))

    torch._dynamo.reset()
    gc, vc = g.clone().requires_grad_(), v.clone().requires_grad_()
    yc = torch.compile(lambda a, b: F.function(name)(a, b) * 1.0, fullgraph=True)(gc, vc)
    dgc, dvc = torch.autograd.grad(yc, (gc, vc), go)
    for a, b in ((yc, ys), (dgc, dgs), (dvc, dvs)):
        assert _same_bits(a, b).all()
    # one packed tensor, either layout: one op on it, whose backward writes both halves' gradients in place
    for layout in ("gate_value", "value_gate"):
        torch._dynamo.reset()
        halves = (packed[:, :8], packed[:, 8:]) if layout == "gate_value" else (packed[:, 8:], packed[:, :8])
        xc = torch.cat(halves, dim=1).requires_grad_()

        def f(t, layout=layout):
            return F.function(name)(t, layout=layout) * 1.0

        assert nonlin_ops_traced(f, xc) == {"half_product", "half_gated_packed_grad"}
        torch._dynamo.reset()
        yc = torch.compile(f, fullgraph=True)(xc)
        (dxc,) = torch.autograd.grad(yc, xc, go.view(-1, 8))
        dgc, dvc = (dxc[:, :8], dxc[:, 8:]) if layout == "gate_value" else (dxc[:, 8:], dxc[:, :8])
        for a, b in ((yc.reshape(-1), ys), (dgc.reshape(-1), dgs), (dvc.reshape(-1), dvs)):
            assert _same_bits(a, b).all()
    for shape in [(0, 8), (3, 0)]:  # no rows, or an empty last dim
        empty = torch.empty(shape, dtype=dtype)
        assert (
            table.traced_packed_gradient(
                empty[..., : shape[-1] // 2], empty, False, *dispatch.job_for(s, dtype, p).table._build()
            ).shape
            == shape
        )


def _odd_times_power(s: float) -> tuple[int, int]:
    """(m, e) with |s| = m 2^e, m odd."""
    from fractions import Fraction

    q = abs(Fraction(s))
    m, e = q.numerator, 0
    while m % 2 == 0:
        m, e = m // 2, e + 1
    return m, e - (q.denominator.bit_length() - 1)


def _midpoint_partner(s: float, precision: int) -> float:
    """A v (an odd integer of at most `precision` bits times a power of two) with s * v exactly a midpoint of
    that precision's numbers in [1, 2), for s a number of 2 to precision + 1 significant bits; inf where there is
    none."""
    m, e = _odd_times_power(s)
    n = next((n for n in range(1, 1 << precision, 2) if (m * n).bit_length() == precision + 1), None)
    if n is None:  # (255 n has 8 bits or 10: none)
        return math.inf
    try:
        return math.ldexp(n, -precision - e)
    except OverflowError:
        return math.inf  # (not a half-type value: the caller drops it)


def _subnormal_midpoint_partner(s: float) -> float:
    """A power of two v with s * v = m 2^-134 (|s| = m 2^e, m odd, at most 8 bits): a midpoint of bfloat16's
    subnormals; inf where there is none."""
    m, e = _odd_times_power(s)
    return math.ldexp(1.0, -134 - e) if m.bit_length() <= 8 and -134 - e < 128 else math.inf


@pytest.mark.parametrize(("name", "dtype"), GATED_CASES)
def test_gated_half_products_on_a_midpoint_take_the_true_gates_side(name, dtype):
    """Where the float64 gate is exactly a short number (silu's g / 2 at tiny g, g beyond 36.7) that the true gate
    is not, gate * v for a v that makes it a half-type midpoint is rounded to the true product's side: forward and
    d/dv (go * gate) both, where the eager path rounds to even and misses half of them
    (nonlin.kernels.gate_sides); for bfloat16 also its subnormals' midpoints, from the gates below float32's normal
    range (its float64 gates)."""
    from nonlin.accuracy.formats import get_format
    from nonlin.accuracy.reference import evaluate
    from nonlin.kernels import gate_sides
    from nonlin.ops import TORCH

    s, p = nonlin.spec(name), nonlin.spec(name).defaults()
    precision = get_format(dtype).precision
    x = table.all_values(dtype).double()
    y = torch.as_tensor(s.gate[0](TORCH, x, **p), dtype=torch.float64).expand_as(x).numpy()
    idx, shorts = gate_sides.short_near(y, precision, subnormal=dtype == torch.bfloat16)
    if idx.size == 0:
        pytest.skip(f"no float64 gate of {name} is a short number other than a power of two: nothing to settle")
    pick = np.linspace(0, idx.size - 1, 400).astype(int)
    sides = gate_sides.true_sides(s.gate[0], p, x.numpy()[idx[pick]], shorts[pick])
    idx, shorts = idx[pick][sides != 0], shorts[pick][sides != 0]
    v = np.array([_midpoint_partner(float(a), precision) for a in shorts])
    g = x.numpy()[idx]
    if dtype == torch.bfloat16:  # gates below float32's normal range (float64 gates) on bfloat16's subnormal midpoints
        tiny = np.abs(shorts) < float(torch.finfo(torch.float32).tiny)
        v = np.concatenate([v, [_subnormal_midpoint_partner(float(a)) for a in shorts[tiny]]])
        g = np.concatenate([g, g[tiny]])
    fits = torch.from_numpy(v).to(dtype).double().numpy() == v  # v within the half type's range
    g, v = g[fits], v[fits]
    assert g.size >= 20, g.size
    (ref,) = evaluate(s, p, [g, v], get_format(dtype), derivative=False)
    want = torch.from_numpy(ref.rounded).to(dtype)
    gt, vt = torch.from_numpy(g).to(dtype), torch.from_numpy(v).to(dtype).requires_grad_()
    with route.pinned("large"), route.recording() as taken:
        got = F.function(name)(gt, vt)
        (dv,) = torch.autograd.grad(got, vt, vt.detach())
    assert {t[5] for t in taken} == {"fused"}
    assert _same_bits(got.detach(), want).all(), g[~_same_bits(got.detach(), want).numpy()][:8]
    assert _same_bits(dv, want).all(), g[~_same_bits(dv, want).numpy()][:8]
    with use("eager"):
        eager = F.function(name)(gt, vt.detach())
    assert not bool(_same_bits(eager, want).all())  # float64 alone misses some: the pairs test the settling


def test_settled_gate_sides_are_kept_on_disk_and_a_broken_file_is_rebuilt(tmp_path, monkeypatch):
    """The settled sides are computed once per (entry, parameters, half type) and machine: a new table reads them
    from $NONLIN_CACHE/tables without evaluating anything; a file that does not read is computed again and
    replaced; the arrays are the same each way."""
    from nonlin.kernels import gate_sides
    from nonlin.ops import TORCH

    monkeypatch.setenv("NONLIN_CACHE", str(tmp_path))
    s = nonlin.spec("swiglu")
    first = table.GateTable(s, torch.bfloat16, s.defaults())._build()
    (path,) = (tmp_path / "tables").iterdir()

    def no_evaluation(*args, **kwargs):
        raise AssertionError("sides evaluated again")

    with monkeypatch.context() as m:
        m.setattr(gate_sides, "true_sides", no_evaluation)
        again = table.GateTable(s, torch.bfloat16, s.defaults())._build()
    path.write_bytes(b"not a numpy file")
    rebuilt = table.GateTable(s, torch.bfloat16, s.defaults())._build()
    for arrays in (again, rebuilt):
        for a, b in zip(first, arrays, strict=True):
            assert (a is None and b is None) or _same_bits(a, b).all()
    assert gate_sides._load(path, int(np.load(path)["sides"].size)) is not None
    y = torch.as_tensor(s.gate[0](TORCH, table.all_values(torch.bfloat16).double(), **s.defaults()))
    assert not bool(_same_bits(first[0], table._slopes(y, torch.bfloat16)[0]).all())  # some gate was moved


@pytest.mark.parametrize("name", ["glu", "swiglu"])
def test_gated_empty_and_strided_inputs(name):
    """Empty inputs (no rows, or an empty last dim) and strided or value-first halves on the looked-up path:
    the eager path's shapes and bits (glu's torch layout puts the value first, so its halves are strided
    views of a tensor that is not [gate | value])."""
    f = F.function(name)
    for shape in [(0, 8), (3, 0)]:
        x = torch.randn(shape).to(torch.bfloat16).requires_grad_()
        with route.pinned("large"):
            y = f(x)
        assert y.shape == (*shape[:-1], shape[-1] // 2) and y.dtype == torch.bfloat16
        y.sum().backward()
        assert x.grad is not None and x.grad.shape == shape
    gen = torch.Generator().manual_seed(4)
    g = (torch.randn(6, 10, generator=gen) * 4).to(torch.bfloat16)[:, ::2].requires_grad_()  # strided
    v = torch.randn(5, 6, generator=gen).to(torch.bfloat16).t().requires_grad_()  # transposed
    x = torch.randn(4, 3, 16, generator=gen).to(torch.bfloat16).requires_grad_()
    got, want = [], []
    for mode, out in (("large", got), ("eager", want)):
        with route.pinned("large") if mode == "large" else use("eager"):
            y = f(g, v)
            out += [y, *torch.autograd.grad(y.sum(), (g, v))]
            y = f(x)
            out += [y, *torch.autograd.grad(y.sum(), x)]
    for a, b in zip(got, want, strict=True):
        assert a.shape == b.shape
        assert bool((ulp_error(a.detach(), b.detach().double().numpy()) <= 1).all())
