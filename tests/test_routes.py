"""nonlin.route: the table covers the catalog, every torch row meets the goals it is listed for (measured by the
accuracy checker, on this machine's ISA), and calls go where the table says. The default path's goals at both
size classes: tests/accuracy/test_check.py."""

from __future__ import annotations

import pytest
import torch

import nonlin
from nonlin import route
from nonlin.accuracy import check
from nonlin.kernels import dispatch, use
from nonlin.registry import names
from nonlin.spec import Kind

F = nonlin.functional

# A torch row is taken only with margin below the goals (float32 forward 2, backward 4 ULP): the bits of a
# libm call change with the ISA (ATEN_CPU_CAPABILITY), and the sample here is smaller than `nonlin check`'s.
F32_FORWARD, F32_BACKWARD, HALF_MAX, HALF_CR = 1.5, 3.0, 1.0, 0.999

# (entry, dtype, pass) of every torch row the checker can measure (float64 rows are exact ops only); a train
# row's measurement covers its forward row.
NATIVE_ROWS = [
    (n, d, p)
    for n, nat in route.NATIVE.items()
    for p, dtypes in (("train", nat.train), ("forward", nat.forward - nat.train))
    for d in sorted(dtypes - {"float64"})
]


def test_table_covers_every_pointwise_and_gated_entry():
    rows = route.table()
    fused_kinds = {n for n in names() if nonlin.spec(n).kind is not Kind.NORMALIZER}
    assert {r.entry for r in rows} == fused_kinds
    per_entry = len(route.DTYPES) * len(route.DEVICES) * len(route.PASSES) * len(route.SIZES)
    assert len(rows) == per_entry * len(fused_kinds)
    assert {r.route for r in rows} <= {"torch", "fused", "eager"}


@pytest.mark.parametrize("name", sorted(route.NATIVE))
def test_torch_rows_name_a_catalog_entry_with_a_torch_op(name):
    s = nonlin.spec(name)
    assert s.name == name and s.torch_equivalent is not None
    assert route.NATIVE[name].train | route.NATIVE[name].forward


def _limits_met(rep, dtype: str, limits: tuple[float, float, float, float] | None = None) -> list[str]:
    """The outputs of `rep` that miss `limits` (float32 forward and backward ULP, halves' ULP and correctly rounded
    share; default: a torch row's, with margin), as messages."""
    f32_forward, f32_backward, half_max, half_cr = limits or (F32_FORWARD, F32_BACKWARD, HALF_MAX, HALF_CR)
    bad = []
    for k, st in rep.outputs(dtype).items():
        where = f"{rep.name} {dtype} {k} ({rep.routes[dtype][k]})"
        if st.nonfinite_total:
            bad.append(f"{where}: {st.nonfinite_total} non-finite mismatches")
        if dtype == "float32":
            limit = f32_forward if k.startswith("forward") else f32_backward
            if st.max_ulp > limit:
                bad.append(f"{where}: {st.max_ulp:.3g} ULP > {limit}")
        else:
            if st.max_ulp > half_max:
                bad.append(f"{where}: {st.max_ulp:.3g} ULP > {half_max}")
            if st.correctly_rounded < half_cr:
                bad.append(f"{where}: {100 * st.correctly_rounded:.3f}% correctly rounded")
    return bad


@pytest.mark.parametrize("size", [4096, pytest.param(None, marks=pytest.mark.slow)], ids=["sample", "full"])
@pytest.mark.parametrize(("name", "dtype", "pass_"), NATIVE_ROWS)
def test_every_torch_row_meets_the_goals_with_margin(name, dtype, pass_, size):
    """What the default path runs for a torch row (recorded by the checker) is torch's op, and it meets the
    goals: the forward as inference runs it, and for a train row the forward and gradients as training runs
    them. Default run: a sample; -m slow: nonlin check's full sample (2^20 float32, halves exhaustive)."""
    # a large_fused dtype's torch row is its small calls' (the full float32 sample is of the large class)
    size_class = "small" if dtype in route.NATIVE[name].large_fused else None
    rep = check(name, dtypes=(dtype,), backward=pass_ == "train", size=size, half_size=size, size_class=size_class)
    taken = rep.routes[dtype]
    if pass_ == "forward":
        assert taken["forward"].startswith("torch/"), taken
    else:
        assert all(r.startswith("torch/") for r in taken.values()), taken
    assert not _limits_met(rep, dtype)


# Values besides the defaults for the rows that hold at them (`Native.params`): common ones (GANs' slope 0.2,
# relu6's clip), one above 1, zero, and for "any" a value no binary format holds (1/3)
OTHER_PARAMS = {
    "leaky_relu": ({"alpha": 0.2}, {"alpha": 1 / 3}, {"alpha": 0.0}, {"alpha": 5.0}),
    "hardtanh": (
        {"min_val": -2.0, "max_val": 2.0},
        {"min_val": 0.0, "max_val": 6.0},
        {"min_val": -0.375, "max_val": 0.25},
    ),
    "threshold": ({"threshold": 0.5, "value": -1.0}, {"threshold": -2.0, "value": 0.25}),
    "hardshrink": ({"lambd": 1.0}, {"lambd": 0.125}),
    "soft_threshold": ({"tau": 0.5}, {"tau": 2.0}),
}
# A value the halves and float32 do not hold, for each "representable" row: not torch's op there
UNREPRESENTABLE = {
    "hardtanh": {"min_val": -0.1},
    "threshold": {"threshold": 0.1},
    "hardshrink": {"lambd": 0.3},
    "soft_threshold": {"tau": 0.1},
}
PARAM_ROWS = [
    (n, d, p, params) for n, d, p in NATIVE_ROWS if route.NATIVE[n].params != "defaults" for params in OTHER_PARAMS[n]
]


def test_every_parameter_rule_is_measured():
    ruled = {n: nat.params for n, nat in route.NATIVE.items() if nat.params != "defaults"}
    assert set(ruled) == set(OTHER_PARAMS)
    assert {n for n, rule in ruled.items() if rule == "representable"} == set(UNREPRESENTABLE)


@pytest.mark.parametrize("size", [4096, pytest.param(None, marks=pytest.mark.slow)], ids=["sample", "full"])
@pytest.mark.parametrize(("name", "dtype", "pass_", "params"), PARAM_ROWS)
def test_torch_rows_hold_at_the_parameter_values_their_rule_admits(name, dtype, pass_, params, size):
    """A row whose rule admits other parameter values (leaky_relu(x, 0.2), hardtanh(x, 0, 6)) takes torch's op at
    them, and it meets the goals there (forward and gradients, at the call's values)."""
    rep = check(name, dtypes=(dtype,), params=params, backward=pass_ == "train", size=size, half_size=size)
    assert all(r.startswith("torch/") for r in rep.routes[dtype].values()), rep.routes[dtype]
    assert not _limits_met(rep, dtype)


@pytest.mark.parametrize("name", sorted(UNREPRESENTABLE))
def test_levels_the_input_dtype_does_not_hold_keep_the_fused_route(name):
    """torch rounds a level to the input dtype before comparing (hardtanh(x, min_val=-0.1) in float32 clips at
    -0.100000001: x = -0.100000001 compares equal, where it lies above -0.1 and its gradient is 1): such a call
    takes the other route, and float64, which holds the value, torch's op."""
    f = F.function(name)
    params = UNREPRESENTABLE[name]
    with route.recording() as taken:
        for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.float64):
            x = torch.linspace(-3, 3, 64, dtype=dtype, requires_grad=True)
            f(x, **params).sum().backward()
    assert [(t[1], t[5] == "torch") for t in taken] == [
        ("float32", False),
        ("bfloat16", False),
        ("float16", False),
        ("float64", True),
    ]


LARGE_FUSED = [(n, d) for n, nat in route.NATIVE.items() for d in sorted(nat.large_fused)]


@pytest.mark.parametrize(("name", "dtype"), LARGE_FUSED)
def test_large_fused_rows_keep_torchs_op_for_small_calls_only(name, dtype):
    """`Native.large_fused`: a large CPU call takes the fused route (measured faster there), a small one torch's
    op; CUDA rows are the exact ops' torch rows as before."""
    nat = route.NATIVE[name]
    for pass_ in route.PASSES:
        if dtype not in nat.dtypes(pass_):
            continue
        assert route.table_route(name, dtype, "cpu", pass_, "small") == "torch"
        assert route.table_route(name, dtype, "cpu", pass_, "large") == "fused"
        assert route.table_route(name, dtype, "cuda", pass_, "large") == ("torch" if nat.exact else "fused")
    x = torch.randn(1 << 20, dtype=getattr(torch, dtype))
    with torch.no_grad(), route.recording() as taken:
        big = nonlin.functional.function(name)(x)
        small = nonlin.functional.function(name)(x[:64])
    assert [t[5] for t in taken] == ["fused", "torch"]
    torch.testing.assert_close(big[:64], small)  # within the dtype's rounding of each other


def test_calls_go_where_the_table_says(monkeypatch):
    # as in a fresh process: no kernel compiled yet, so small calls still run eagerly (route.WARM_CALLS)
    from nonlin.kernels import cpu, native32

    monkeypatch.setattr(cpu, "_DIRECT", {})
    monkeypatch.setattr(native32, "_BUILT", {})
    monkeypatch.setattr(route, "_SETTLED", {})
    monkeypatch.setattr(route, "_CALL", {})
    monkeypatch.setattr(route, "_CALLS", {})
    x = torch.randn(64, requires_grad=True)
    with route.recording() as taken:
        F.relu(x)
        F.erf(x)
        with torch.no_grad():
            F.erf(x)
        F.leaky_relu(x, alpha=0.2)  # a slope: torch's op at any value (`Native.params`)
        F.elu(x, alpha=0.5)  # not the measured parameter: the table's other route
        F.gelu(x)
        with use("eager"):
            F.relu(x)
        with route.pinned("large"), use("fused", backend="python"):
            F.relu(x)
    assert [(t[0], t[3], t[5]) for t in taken] == [
        ("relu", "train", "torch"),
        ("erf", "train", "eager"),
        ("erf", "forward", "torch"),
        ("leaky_relu", "train", "torch"),
        ("elu", "train", "eager"),
        ("gelu", "train", "eager"),
        ("relu", "train", "eager"),
        ("relu", "train", "fused"),
    ]


def test_settled_calls_reach_the_route_without_the_layers_between(monkeypatch):
    """Once its route is settled, a call by a borrowed name (torch's relu) goes to the settled-route lookup without
    calling the base function, and a module whose parameters are the entry's defaults passes none (a parameter
    passed, even at its default, had the route chosen afresh on every call: leaky_relu's module cost 5x its
    functional form). A module with another value still passes it."""
    x = torch.randn(64)
    at_defaults, other = nonlin.get("leaky_relu"), nonlin.get("LeakyReLU", 0.2)
    for _ in range(2):  # (the first call settles the route)
        F.relu(x), at_defaults(x), other(x)
    lookups: list[str] = []
    base_calls: list[str] = []
    real = route.settled
    monkeypatch.setattr(route, "settled", lambda s, t: lookups.append(s.name) or real(s, t))
    for name in ("relu", "leaky_relu"):
        monkeypatch.setitem(
            F._BASE, name, lambda *a, _f=F._BASE[name], _n=name, **k: base_calls.append(_n) or _f(*a, **k)
        )
    y, z, w = F.relu(x), at_defaults(x), other(x)
    assert lookups == ["relu", "leaky_relu"] and base_calls == []
    assert torch.equal(y, torch.relu(x))
    assert torch.equal(z, torch.nn.functional.leaky_relu(x, 0.01))
    torch.testing.assert_close(w, torch.nn.functional.leaky_relu(x.double(), 0.2).float())  # (0.2 not float32's)


def test_borrowed_calls_with_float_parameters_bind_once(monkeypatch):
    """A borrowed name called with float parameters (torch's leaky_relu(x, 0.2), each call of a LeakyReLU(0.2)
    module) binds them once: a later call with the same values reaches the settled-route lookup without binding
    again; other values, another spelling, ints and zeros (equal keys of another type or sign) bind afresh. (Slopes
    no other test passes: the answers a name keeps live as long as the process.)"""
    from nonlin import calling

    x = torch.randn(64)
    f = F.function("torch.nn.functional.leaky_relu")
    f(x, 0.171875)
    binds: list[tuple] = []
    real = calling.bind

    def counted(record, s, args, kwargs, **k):
        binds.append((args, kwargs))
        return real(record, s, args, kwargs, **k)

    monkeypatch.setattr(calling, "bind", counted)
    slopes = (0.171875, 0.171875, 0.171875, 0.171875, 0.296875, 1, 1, -0.0)
    ys = [
        f(x, 0.171875),
        f(x, 0.171875),
        f(x, negative_slope=0.171875),
        f(x, negative_slope=0.171875),
        f(x, 0.296875),
        f(x, 1),
        f(x, 1),
        f(x, -0.0),
    ]
    assert binds == [((), {"negative_slope": 0.171875}), ((0.296875,), {}), ((1,), {}), ((1,), {}), ((-0.0,), {})]
    for y, slope in zip(ys, slopes, strict=True):
        assert torch.equal(y, torch.nn.functional.leaky_relu(x, slope))
    assert torch.equal(ys[-1].signbit(), torch.nn.functional.leaky_relu(x, -0.0).signbit())


@pytest.mark.parametrize("name", sorted(route.NATIVE))
def test_torch_route_is_torchs_op_bit_for_bit(name):
    s = nonlin.spec(name)
    gen = torch.Generator().manual_seed(0)
    shape = (4, 6) if s.kind is Kind.GATED else (24,)
    dtypes = route.NATIVE[name].dtypes("forward")
    dtype = getattr(torch, "float32" if "float32" in dtypes else sorted(dtypes)[0])
    x = (torch.randn(shape, generator=gen) * 3).to(dtype).requires_grad_()
    inputs = (x,) if s.kind is Kind.POINTWISE else tuple(x.chunk(2, dim=-1))
    ref_inputs = tuple(t.detach().clone().requires_grad_() for t in inputs)
    with torch.no_grad(), route.recording() as taken:
        y = nonlin.functional.function(name)(x)
    assert taken[0][5] == "torch"
    if s.kind is Kind.GATED:
        ref = s.torch_equivalent(*(t.detach() for t in ref_inputs))
    else:
        ref = s.torch_equivalent(ref_inputs[0].detach())
    torch.testing.assert_close(y, ref, rtol=0, atol=0)


def test_saved_for_backward_no_more_than_the_inputs():
    """Training through a torch row keeps torch's own saving (the input or the output), never more than the
    inputs' bytes (gated entries: the packed input)."""
    seen: dict[int, int] = {}

    def pack(t):
        seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    for name in sorted(route.NATIVE):
        if "float32" not in route.NATIVE[name].train:
            continue
        x = torch.randn(10, 100, requires_grad=True)
        seen.clear()
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), route.recording() as taken:
            nonlin.functional.function(name)(x)
        assert taken[0][5] == "torch", name
        assert sum(seen.values()) <= x.untyped_storage().nbytes(), (name, seen)


def test_torch_rows_under_torch_compile():
    """A user's compiled model: the exact torch rows are torch's op in the graph (no graph break, the same
    bits); the others take the fused path's functions there (inductor lowers F.elu's expm1 as exp(x) - 1, so
    torch's op compiled gives elu(-3e-12) = 0: tests/kernels/test_compiled_primitives.py checks those bits),
    with the fused path's bits."""

    def model(x):
        return F.relu(x) + F.hardtanh(x) * F.leaky_relu(x) - F.elu(x)

    x = torch.tensor([1e-20, -3e-12, 2e-9, -1e-7, 1e-4, -0.5, 2.0, -30.0])
    with route.recording() as taken:
        compiled = torch.compile(model, fullgraph=True)
        y = compiled(x)
    assert {(t[0], t[5]) for t in taken} == {("relu", "torch"), ("hardtanh", "torch"), ("leaky_relu", "torch"),
                                             ("elu", "fused")}  # fmt: skip
    with use("fused"):
        elu = F.elu(x)
    torch.testing.assert_close(y, F.relu(x) + F.hardtanh(x) * F.leaky_relu(x) - elu, rtol=0, atol=0)
    assert elu[1].item() == pytest.approx(-3e-12, rel=1e-7)


def test_fused_sigmoid_runs_the_precision_its_lists_say_and_meets_the_goals():
    """sigmoid's fused float32 backward was 4.31 ULP with a plain float32 exp, so its default route ran float64
    math (`route.FUSED_FLOAT64`); sigmoid_float32 (ops.torch_compiled) meets both goals, so both passes
    compute in float32 now, and an entry left in FUSED_FLOAT64 would run float64."""
    rep = check("sigmoid", dtypes=("float32",), size=4096, size_class="large")
    assert rep.routes["float32"]["backward"] == "fused/large"
    assert rep.max_ulp["float32"]["backward"] <= 4 and not rep.goal_failures()
    x = torch.randn(8, requires_grad=True)
    with route.pinned("large"):
        y = F.sigmoid(x)
    assert y.grad_fn.name() == "nonlin_fusedBackward"  # the fused kernels, called directly
    expected = "float64" if "sigmoid" in route.FUSED_FLOAT64 else "float32"
    with route._float64_pin(nonlin.spec("sigmoid"), x):  # (the route's job)
        job = dispatch.job_for(nonlin.spec("sigmoid"), torch.float32, {})
    assert (job.fwd, job.bwd) == (expected, expected)
