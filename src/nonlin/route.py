"""Routes: one place decides how a call runs (functional -> route -> one implementation).

A pointwise or gated call runs one of three ways:
- ``"torch"``: torch's own op, called directly (no float64 round trip, no autograd.Function), where the
  accuracy checker measured it to meet nonlin's goals for that dtype and pass on every CPU ISA torch picks;
- ``"fused"``: nonlin's fused kernels (`nonlin.kernels`: inductor-compiled on CPU, Triton on CUDA), one loop
  per pass, only the inputs saved; inside a user's torch.compile on CPU, the same generated functions traced
  into the caller's graph; on CPU outside it, bfloat16 and float16 inputs of a pointwise entry are looked up
  in a table of the eager path's results at all 65536 bit patterns (`nonlin.kernels.table`), and float32 inputs
  of the entries whose traced forward is one of `nonlin.kernels.native32.FORMS` (sigmoid, tanh, silu, gelu,
  swiglu, geglu, glu, gtu, swiglustep, clamped_swiglu and others; elu inside torch.compile only) run hand-written
  FMA kernels;
- ``"eager"``: the float64 path of `nonlin.autograd`, correctly rounded.

The table has a row per (entry, dtype, device, pass, size class), generated from the catalog: a new entry gets
rows automatically (the fused path for pointwise and gated entries; a small CPU call takes it once its kernels
are compiled, `WARM_CALLS`) and `NATIVE` overrides them with torch's op where it was measured to be within
the goals (at both size classes unless the fused route was measured faster for large calls; where which is
faster depends on the CPU, `Native.per_machine`, the choice `nonlin tune` measured on this machine, read from
its profile, `nonlin.route_profile`). Pass is ``"forward"`` when autograd records nothing
(inference, ``torch.no_grad``, inputs that do not require grad) and ``"train"`` when it records the call, so
that an op whose backward misses the goals (torch.tanh's 1 - tanh^2 cancels) serves inference only. Size
class is ``"small"`` below `LARGE_NUMEL` elements and ``"large"`` from it.

`nonlin.use` overrides the table: ``"eager"`` runs the eager path everywhere, ``"fused"`` the fused path
where the entry can be fused. autograd, kernels and the torch ops are leaves below this module and never
import it; `nonlin check` (which records the route it measured, `recording`) and benchmarks/kernels.py read
this table, so what is measured is what users run. tests/test_routes.py re-measures every torch row.
"""

from __future__ import annotations

import contextlib
import functools
import math
import struct
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import torch

from nonlin import route_profile
from nonlin.autograd import apply as eager_apply
from nonlin.kernels import dispatch, graph_ops, native32, state
from nonlin.kernels.codegen import negative_zeros
from nonlin.registry import names
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind, Spec

Route = Literal["torch", "fused", "eager"]
Pass = Literal["forward", "train"]
Size = Literal["small", "large"]

DTYPES = ("float32", "bfloat16", "float16", "float64")
DEVICES = ("cpu", "cuda")
PASSES: tuple[Pass, ...] = ("forward", "train")
SIZES: tuple[Size, ...] = ("small", "large")

# From this many elements a call is of the large size class: it takes the fused route at once (compiling its
# kernels on the first call); a smaller one after `WARM_CALLS` (benchmarks/kernels.py measures both).
LARGE_NUMEL = 1 << 20

_ALL = frozenset(DTYPES)
_LOW = frozenset({"float32", "bfloat16", "float16"})
_HALVES = frozenset({"bfloat16", "float16"})
_F32 = frozenset({"float32"})


@dataclass(frozen=True)
class Native:
    """Where torch's own op (the entry's `spec.torch_equivalent`) meets nonlin's goals, by pass.

    `forward`: dtypes where its forward does (inference); `train`: dtypes where its forward and its
    backward do. Measured at the entry's default parameters; other values keep the table's other routes unless
    `params` admits them.
    `exact`: the op is exact comparisons and at most one rounding (no libm call), so its bits are the same
    on every ISA and device, and inside torch.compile; the others are measured on CPU, outside torch.compile
    (inductor lowers them its own way: the route then takes the eager formula into the caller's graph).
    `params`: the parameter values the row holds at besides the defaults (finite plain numbers; a tensor
    parameter never): "any", where the parameter only scales (leaky_relu's slope: torch rounds it to the input
    dtype, one more rounding of at most half a unit, as at the default 0.01, which no binary format holds);
    "representable", where the parameters are levels x is compared with or replaced by (hardtanh's clip
    levels): exact where each value is one of the input dtype's numbers, and not otherwise (torch rounds a
    level, then compares: an x between the level and its rounding takes the other branch, or its gradient
    does). tests/test_routes.py measures each at several values.
    `large_fused`: dtypes whose large CPU calls take the fused route all the same, where it was measured
    faster than torch's op (the half-type lookup, `nonlin.kernels.table`, against an op that computes in
    float32; one fused backward kernel against torch's two or three; a hand-written float32 kernel against a
    textbook composite), training calls included (their forward is then the kernel's, not torch's op): torch's
    op stays the small calls' route, whose per-call cost is lower.
    `per_machine`: dtypes whose CPU rows (each pass torch's op serves, both size classes) `nonlin tune` measures
    on the user's machine, where which route is faster depends on the CPU (`nonlin.route_profile`): a
    profile's choice replaces the static one (`large_fused`) for those rows.
    """

    train: frozenset[str]
    forward: frozenset[str] = frozenset()
    exact: bool = False
    large_fused: frozenset[str] = frozenset()
    params: Literal["defaults", "any", "representable"] = "defaults"
    per_machine: frozenset[str] = frozenset()

    def dtypes(self, pass_: Pass) -> frozenset[str]:
        return self.train | (self.forward if pass_ == "forward" else frozenset())


# Measured with `nonlin check NAME --impl torch` (bf16/fp16 exhaustive, float32 sampled) under
# ATEN_CPU_CAPABILITY=default, avx2 and avx512 on torch 2.13 (docs/kernels.md, "Routes"): a row is listed
# only where every ISA met the goals with margin (float32 forward <= 1.5 ULP, backward <= 3; halves correctly
# rounded >= 99.9% and <= 1 ULP in both passes; no non-finite mismatch). tests/test_routes.py re-measures
# every row on a sample, each run. Misses that keep an entry off the torch route, measured:
# selu float32 forward 1.70 ULP (scalar ISA), tanh/erf backward (1 - tanh^2 cancels: 1.7e7 ULP float32,
# 256 bf16), hardswish (53 non-finite float32 forward, 8.4e6 ULP backward), gelu/silu/sigmoid/mish/swiglu
# and the other x*g(x) units (left tail flushed to 0: up to 1.7e7 ULP float32, 250 bf16), softplus and
# log_sigmoid (inf/NaN where finite), softsign (1.3 ULP bf16), relu_pow (0.98 ULP bf16, 88% correctly
# rounded), rrelu (98% bf16 correctly rounded: its slope is the double 11/48), erf in bf16/fp16 (255 / 4.9
# ULP forward under avx2, where ATen vectorizes the half-type erf; 0.5 under the scalar ISA).
NATIVE: Mapping[str, Native] = {
    "relu": Native(train=_ALL, exact=True),
    "relu6": Native(train=_ALL, exact=True),
    "hardtanh": Native(train=_ALL, exact=True, params="representable"),
    "hardshrink": Native(train=_ALL, exact=True, params="representable"),
    "soft_threshold": Native(train=_ALL, exact=True, params="representable"),
    "relu2": Native(train=_ALL, exact=True),
    "quadratic": Native(train=_ALL, exact=True),
    "bilinear": Native(train=_ALL, exact=True),
    # Training through relu(g) * v saves relu(g) beside the inputs (1.5x their bytes; the fused path saves
    # the inputs only): inference only.
    "reglu": Native(train=frozenset(), forward=_ALL, exact=True),
    "leaky_relu": Native(train=_LOW, exact=True, params="any"),
    # F.prelu at its default slope (0.25, exact in every dtype): one comparison and at most one rounding. Its
    # backward is slow (4M float32 forward+backward 24.8 ms against the fused path's 6.8): inference only; from
    # 2^20 float32 elements the fused forward is faster too (2.6 ms against 3.0), in bfloat16 not (the lookup
    # 3.3 against 1.6; 32K: 0.068 ms against 0.039). notes/2026-12-04b/kernels_all_4m.md, 2026-12-04a/*_32k.md
    "prelu": Native(train=frozenset(), forward=_ALL, exact=True, large_fused=_F32, per_machine=_F32),
    "threshold": Native(train=_ALL, exact=True, params="representable"),
    # torch.abs's backward is two kernels (sgn(x) * grad): from 2^20 float32 elements the fused path's one is
    # faster (4M elements, forward+backward 6.7 ms against 9.9); in the half types the lookup is not (4.0 ms
    # forward at 4M bfloat16 against torch.abs's 1.35).
    "absolute": Native(train=_ALL, exact=True, large_fused=_F32, per_machine=_F32),
    "hardsigmoid": Native(train=_LOW),
    # The half-type lookup against torch's op at 4M bfloat16 elements, forward / forward+backward ms, one core
    # (benchmarks/kernels.py, fused and torch columns): sin 3.9 / 8.2 against 8.1 / 16.4, elu 4.7 / 10.1 against
    # 10.2 / 15.2, celu 4.3 / 9.8 against 10.4 / 15.8, selu 4.3 / 10.2 against 9.7 / 16.6, cosine 3.3 / 7.7
    # against 4.0 / 11.9; at 32K torch's op is as fast or faster (elu 0.18 against 0.14 ms forward+backward).
    # hardsigmoid and leaky_relu (no libm call) stay torch's at every size: 2.6 / 2.1 ms against 4.3.
    "elu": Native(train=_LOW, large_fused=_HALVES, per_machine=_LOW),
    "celu": Native(train=_LOW, large_fused=_HALVES, per_machine=_LOW),
    "selu": Native(train=_HALVES, large_fused=_HALVES, per_machine=_HALVES),
    "sin": Native(train=_LOW, large_fused=_HALVES, per_machine=_LOW),
    "cosine": Native(train=_LOW, large_fused=_HALVES, per_machine=_LOW),
    # torch.exp: 0.571 ULP float32 (99.0% correctly rounded), halves correctly rounded (bfloat16 100%, float16
    # 99.997%) under every ISA; the half-type lookup is slower than it (4M bfloat16: 3.9 ms forward against 2.8).
    "exponential": Native(train=_LOW, per_machine=_LOW),
    # bfloat16 and float16 forwards of tanh and sigmoid were torch's here too; the fused path's lookup
    # (kernels/table.py: the eager path's bits) costs 1.4 ms per 4M elements where torch.tanh takes 8 and
    # torch.sigmoid 2.2.
    "erf": Native(train=frozenset(), forward=_F32, per_machine=_F32),
    # torch.tanh: 0.563 ULP float32 forward under every ISA; its backward 1 - tanh^2 cancels (1.7e7 ULP), so a
    # training call takes torch's forward and the fused backward from the saved input (`_torch_forward`).
    # Which is faster depends on the CPU: on one AVX-512 Ice Lake core (2026-12-04) torch.tanh takes 0.34 ns per
    # element in cache against the hand-written kernel's 1.05 (kernels/native32.py; 17 us against 60 at 32K, 3.0
    # ms against 4.7 at 4M), where the 2026-12-02 machine had measured 3.5 against 1.1; on a Zen 4 core
    # (2026-12-06) torch.tanh takes 2.5 and the kernel 0.56. torch's op is never slower than itself: the static
    # row; `nonlin tune` moves it where the kernel is faster.
    "tanh": Native(train=frozenset(), forward=_F32, per_machine=_F32),
    # torch's x**3 is x * x * x in float32 (two IEEE products: the same bits on every ISA): 1.287 ULP at most over
    # all 2^23 significands (the error depends on the significand alone down to the subnormal results, where the
    # last product rounds once onto their grid), its backward 3 x^2 go 1.5 ULP on nonlin check's sample; the
    # halves miss (computed in float32 and rounded again: bfloat16 92.7% correctly rounded). Its backward is three
    # kernels (x^2, times 3, times go): from 2^20 elements the fused route's one is faster (4M forward+backward
    # 6.5 ms against 13.6; forward 2.6 against 2.8); at 32K torch's op is (forward 0.012 ms against 0.035 fused).
    "cube": Native(train=_F32, large_fused=_F32, per_machine=_F32),
    # lisht's textbook x * torch.tanh(x): 1.303 ULP float32 forward at most over every float32 from 2^-12 to 10,
    # under each ISA (notes/2026-12-04a/lisht_exhaustive.py; torch.tanh 0.563, the product rounded once); its
    # backward misses as tanh's does, so a training call takes this forward and the kernel's backward. Below
    # 2^20 elements only: at 32K the two torch kernels take 0.028 ms against the hand-written kernel's 0.085, at
    # 4M 6.9 against 6.2.
    "lisht": Native(train=frozenset(), forward=_F32, large_fused=_F32, per_machine=_F32),
    # torch.atan: 0.508 ULP float32 forward under every ISA; its backward 1 / (1 + x^2) flushes to 0 where x^2
    # overflows (2.1e6 ULP): inference only. 4M float32 forward 3.8 ms against the fused path's 5.1 (float64 math),
    # 32K 0.022 against 0.048; in the halves the lookup is as fast (5.3 ms at 4M bfloat16 both).
    "arctan": Native(train=frozenset(), forward=_F32, per_machine=_F32),
}

# Fused rows whose float32 math (kernels/precision.py's fp32_compute="auto" choice) the checker measured over a
# goal on the default path: the table runs them with float64 math instead (`use("fused")` keeps the list's
# choice). Empty since sigmoid's float32 math became ops.torch_compiled.sigmoid_float32 (its backward was 4.31
# ULP > 4 on `nonlin check`'s 2^16 sample with a plain float32 exp; 2.43 on its 2^20 sample now).
FUSED_FLOAT64: frozenset[str] = frozenset()

_DTYPE_NAME = {torch.float32: "float32", torch.bfloat16: "bfloat16", torch.float16: "float16", torch.float64: "float64"}
_PINNED: dict[str, str] = {}  # size class forced by `pinned` (the accuracy checker measures both)
_RECORD: list[list[tuple[str, str, str, str, str, str]]] = []


_TABLE: dict[tuple[str, str, str, str, str], Route] = {}  # rows built so far (plain dicts: dynamo traces them)
_DEFAULTS: dict[str, dict[str, Any]] = {}
_BY_CALL: dict[tuple[str, torch.dtype, str, str, str], Route] = {}


def table_route(name: str, dtype: str, device: str, pass_: Pass, size: Size) -> Route:
    """The route of one row of the table (mode "auto", default parameters)."""
    key = (name, dtype, device, pass_, size)
    r = _TABLE.get(key)
    if r is None:
        r = _TABLE[key] = _build_row(name, dtype, device, pass_, size)
    return r


def per_machine_rows() -> list[route_profile.Row]:
    """The CPU rows (entry, dtype, pass, size class) `nonlin tune` measures: torch's op and the fused path both
    meet the goals there, and which is faster depends on the CPU (`Native.per_machine`)."""
    return [
        (name, dtype, pass_, size)
        for name, native in NATIVE.items()
        for dtype in sorted(native.per_machine)
        for pass_ in PASSES
        if dtype in native.dtypes(pass_)
        for size in SIZES
    ]


def _load_measured() -> dict[route_profile.Row, str]:
    profile = route_profile.load()
    # (the kernels' prefetch is this machine's choice too: the profile's where it measured one)
    native32.set_prefetch(profile is None or profile.prefetch is None or profile.prefetch)
    if profile is None:
        return {}
    rows = set(per_machine_rows())
    return {row: r for row, r in profile.choices.items() if row in rows}


# This machine's measured choices (`nonlin tune`), read once at import: the table is built inside a user's
# torch.compile too, where reading a file would break the graph.
_MEASURED: dict[route_profile.Row, str] = _load_measured()


def measured() -> dict[route_profile.Row, str]:
    """The per-machine rows' choices in force: this machine's profile's, or those `measured_routes` set."""
    return dict(_MEASURED)


@contextlib.contextmanager
def measured_routes(choices: Mapping[route_profile.Row, str]) -> Iterator[None]:
    """Take `choices` for the per-machine rows inside the block (`nonlin tune` times each route as users run
    it; the tests measure every route a profile can choose)."""
    rows = set(per_machine_rows())
    unknown = [row for row in choices if row not in rows]
    if unknown or any(r not in route_profile.ROUTES for r in choices.values()):
        raise ValueError(f"choices: expected routes 'torch' or 'fused' of per-machine rows, got {dict(choices)}")
    previous = dict(_MEASURED)
    _set_measured(dict(choices))
    try:
        yield
    finally:
        _set_measured(previous)


def reload_profile() -> None:
    """Read this machine's profile again (after `nonlin tune` wrote one) and rebuild the routes from it."""
    _set_measured(_load_measured())


def _set_measured(choices: dict[route_profile.Row, str]) -> None:
    _MEASURED.clear()
    _MEASURED.update(choices)
    _TABLE.clear()
    _BY_CALL.clear()
    forget_settled()


def forget_settled() -> None:
    """Forget the settled routes and their callables (the next call of each settles again): when the callables a
    route would settle on change (the C++ ops turned on or off, or built: `cpp_ops.training_op`)."""
    _SETTLED.clear()
    _CALL.clear()


def _fused_faster(native: Native, name: str, dtype: str, pass_: Pass, size: Size) -> bool:
    """Whether a CPU row torch's op serves takes the fused path all the same: this machine's measured choice
    where the row is measured per machine and a profile holds it, else `Native.large_fused`."""
    chosen = _MEASURED.get((name, dtype, pass_, size))
    if chosen is not None:
        return chosen == "fused"
    return size == "large" and dtype in native.large_fused


def _build_row(name: str, dtype: str, device: str, pass_: Pass, size: Size) -> Route:
    s = get_spec(name)
    native = NATIVE.get(name)
    if (
        native is not None
        and s.torch_equivalent is not None
        and dtype in native.dtypes(pass_)
        and (device == "cpu" or native.exact)
        and not (device == "cpu" and _fused_faster(native, name, dtype, pass_, size))
    ):
        return "torch"
    if s.kind not in (Kind.POINTWISE, Kind.GATED):
        return "eager"
    return "fused"


@dataclass(frozen=True)
class Row:
    entry: str
    dtype: str
    device: str
    pass_: str
    size: str
    route: str


def table(entries: list[str] | None = None) -> list[Row]:
    """Every row of the route table for `entries` (default: the whole catalog, pointwise and gated)."""
    entries = entries or [n for n in names() if get_spec(n).kind is not Kind.NORMALIZER]
    return [
        Row(e, d, dev, p, z, table_route(e, d, dev, p, z))
        for e in entries
        for d in DTYPES
        for dev in DEVICES
        for p in PASSES
        for z in SIZES
    ]


def defaults(name: str) -> dict[str, Any]:
    """The shared default-parameter dict of `name`: a caller passing it (not a copy) to `run` takes the per-call
    cache of settled routes."""
    return _defaults(name)


def _at_defaults(name: str, params: dict[str, Any]) -> bool:
    """Whether `params` are the entry's defaults, -0.0 apart from 0.0; a tensor (a learnable parameter, or
    prelu's weight as F.prelu takes it) never is."""
    if any(isinstance(v, torch.Tensor) for v in params.values()):
        return False
    d = _defaults(name)
    return params == d and negative_zeros(params[k] for k in d) == negative_zeros(d.values())


def _torch_holds(name: str, params: Mapping[str, Any], dtype: torch.dtype) -> bool:
    """Whether the torch row of `name` holds at `params` (`Native.params`): the defaults, or finite plain numbers
    where the row's rule admits them for inputs of `dtype`."""
    if _at_defaults(name, params):
        return True
    rule = NATIVE[name].params
    if rule == "defaults" or not plain_numbers(params) or not all(math.isfinite(v) for v in params.values()):
        return False
    return rule == "any" or all(_representable(float(v), dtype) for v in params.values())


_LARGEST = {torch.float32: 3.4028234663852886e38, torch.bfloat16: 3.3895313892515355e38, torch.float16: 65504.0}


def _representable(value: float, dtype: torch.dtype) -> bool:
    """Whether `value` is one of `dtype`'s numbers (struct's rounding, which dynamo folds: no graph break)."""
    if dtype == torch.float64:
        return True
    largest = _LARGEST.get(dtype)
    if largest is None or not abs(value) <= largest:
        return False
    if dtype == torch.float16:
        return struct.unpack("<e", struct.pack("<e", value))[0] == value
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    single = struct.unpack("<f", struct.pack("<I", bits))[0]
    return single == value and (dtype == torch.float32 or bits & 0xFFFF == 0)


def _torch_op(s: Spec, params: Mapping[str, Any]) -> Callable[..., torch.Tensor]:
    """torch's op for a call at `params`: itself, or with the call's parameters where its row holds at others than
    the defaults (`Native.params`: the op then takes them by the entry's names). A settled call keeps it."""
    if params and NATIVE[s.name].params != "defaults":
        return functools.partial(s.torch_equivalent, **params)
    return s.torch_equivalent


def _defaults(name: str) -> dict[str, Any]:
    """The entry's default parameters (one dict per entry, shared: read it, never change it)."""
    if torch.compiler.is_compiling():
        _fill_defaults(name)  # (before dynamo reads the dict: see `_fill_defaults`)
    d = _DEFAULTS.get(name)
    if d is None:
        d = _DEFAULTS[name] = get_spec(name).defaults()
    return d


@graph_ops.constant_result
def _fill_defaults(name: str) -> bool:
    """Put the entry's defaults in `_DEFAULTS`. Inside a caller's torch.compile dynamo runs this as it is (a
    constant result: `graph_ops.constant_result`), so that the graph it traces finds the entry there: a graph
    traced while the dict lacked it had guarded on its absence, and the caller's function, once its first call
    had filled it, compiled a second time."""
    if name not in _DEFAULTS:
        _DEFAULTS[name] = get_spec(name).defaults()
    return True


@graph_ops.constant_result
def _row_of_call(name: str, dtype: torch.dtype, device: str, pass_: Pass, size: Size) -> Route:
    """The table's route of a call's row, remembered per (entry, dtype, device, pass, size class). A constant
    result inside a caller's torch.compile, as `_fill_defaults` (its guards on the table's caches had made the
    caller's function compile a second time, and every later call evaluate them)."""
    key = (name, dtype, device, pass_, size)
    r = _BY_CALL.get(key)
    if r is None:
        r = _BY_CALL[key] = table_route(name, _DTYPE_NAME[dtype], device, pass_, size)
    return r


def _pass(main: tuple[torch.Tensor, ...], extra: tuple[torch.Tensor, ...]) -> Pass:
    if torch.is_grad_enabled() and (any(t.requires_grad for t in main) or any(t.requires_grad for t in extra)):
        return "train"
    return "forward"


def _size(x: torch.Tensor) -> Size:
    pinned = _PINNED.get("size")
    if pinned is not None:
        return pinned  # type: ignore[return-value]
    return _size_class(x.numel())


def choose(
    s: Spec,
    body,
    main: tuple[torch.Tensor, ...],
    extra: tuple[torch.Tensor, ...],
    params: Mapping[str, Any],
) -> Route:
    """The route of one call: the table's row for its (entry, dtype, device, pass, size class), unless
    `nonlin.use` overrides it, the call's parameters or inputs are not what the row was measured for, or the
    fused path cannot run here (yet: a small call waits for no compilation, see `WARM_CALLS`)."""
    m = state.mode()
    if m == "eager":
        return "eager"
    x = main[0]
    dev = x.device.type
    if m == "fused":
        return "fused" if dev in DEVICES and dispatch.fusable(s, main, params, warn=True) else "eager"
    if dev not in DEVICES:
        return "eager"
    # One dict lookup per call on the row (this runs on every call of a torch row: keep it cheap).
    key = (s.name, x.dtype, dev, _pass(main, extra), _size(x))
    r = _row_of_call(*key)
    compiling = torch.compiler.is_compiling()
    if r == "torch":
        if _torch_serves(s, body, extra, params, x.dtype, compiling):
            return "torch"
        r = "fused"
    if r == "fused":
        if dev == "cuda" and not state.triton_available():
            return "eager"
        if not dispatch.fusable(s, main, params, warn=False):
            return "eager"
        if dev == "cpu":
            if compiling:
                # Inside a user's torch.compile the fused path's functions are traced into the caller's graph
                # (`dispatch.traced`), where inductor fuses them with their neighbours; torch.export records
                # the eager formula (portable: no nonlin op needed to run the program).
                if torch.compiler.is_exporting():
                    return "eager"
                return "fused" if dispatch.traceable(s, body) else "eager"
            if not dispatch.compile_available():
                return "eager"
            if key[4] == "small" and "size" not in _PINNED and not _warm(s, x, key, params):
                # A row this machine's profile moved off torch's op keeps it while its kernels warm up.
                if _moved_to_fused(s.name, x.dtype, key[3] == "train", False):
                    return "torch" if _torch_serves(s, body, extra, params, x.dtype, compiling) else "eager"
                return "eager"
    return r


def _torch_serves(s: Spec, body, extra: tuple, params: Mapping[str, Any], dtype: torch.dtype, compiling: bool) -> bool:
    """Whether torch's op computes this call of a torch row: the entry's own forward at parameters the row holds
    at, no extra inputs, and outside torch.compile unless the op is exact."""
    return (
        len(extra) == 0
        and body is s.forward
        and (not params or _torch_holds(s.name, params, dtype))
        # Inside torch.compile inductor lowers torch's op its own way (F.elu's expm1 as exp(x) - 1:
        # elu(-3e-12) = 0): only the exact ops keep their bits; the others take the fused path's forms.
        and (NATIVE[s.name].exact or not compiling)
    )


def _moved_to_fused(name: str, dtype: torch.dtype, train: bool, large: bool) -> bool:
    """Whether this machine's profile chose the fused path for a row torch's op serves (`nonlin tune`): a call
    there that takes torch's op while the kernels warm up is not settled on it."""
    row = (name, _DTYPE_NAME.get(dtype), "train" if train else "forward", "large" if large else "small")
    return _MEASURED.get(row) == "fused"


# A small call takes the fused route once its kernels are compiled: by an earlier call of any size, or once its
# job (entry, dtype, parameters) has run eagerly WARM_CALLS times on WARM_CALLS * WARM_NUMEL elements in all, in
# one pass (then it compiles them: seconds cold, well under one with inductor's on-disk cache). A training loop
# calling an activation thousands of times pays the compile once, also on tiny tensors (a 64-element call ran
# eagerly at ~50x torch's op for good: 2048 such calls now warm it); a script calling it a few times, or on a
# handful of values (a test, a plot), or sweeping a parameter (each value its own job), never does. Both routes
# meet the goals; the eager one is correctly rounded.
WARM_CALLS = 32
WARM_NUMEL = 1 << 12
_CALLS: dict[tuple, tuple[int, int]] = {}  # (job, pass) -> (eager calls, their elements)


def _warm(s: Spec, x: torch.Tensor, key: tuple, params: Mapping[str, Any]) -> bool:
    with _float64_pin(s, x):  # the job `run` will make
        job = dispatch.job_for(s, x.dtype, params)
    if job is None:
        return False  # the custom op: its fixed cost does not pay below LARGE_NUMEL
    if dispatch.ready(job, x.dtype, key[3] == "train"):
        return True
    calls, elements = _CALLS.get((job, key[3]), (0, 0))
    calls, elements = calls + 1, elements + x.numel()
    _CALLS[job, key[3]] = calls, elements
    return calls > WARM_CALLS and elements > WARM_CALLS * WARM_NUMEL


def run(
    s: Spec,
    body,
    derivative,
    main: tuple[torch.Tensor, ...],
    extra: tuple[torch.Tensor, ...] = (),
    params: Mapping[str, Any] | None = None,
    packed: tuple[torch.Tensor, bool] | None = None,
    settle_as: tuple | None = None,
) -> torch.Tensor:
    """Evaluate a pointwise or gated entry on checked inputs by the route `choose` picks. `packed`: (the
    [..., 2d] tensor a gated call's g and v are the last dim's halves of, whether the value half comes first),
    where the caller split one (a caller's torch.compile then runs the kernels on it, `dispatch.traced`).
    `settle_as`: the items of a pointwise call's keyword parameters, plain numbers that `params` resolves (the
    functional form's `settled_with` then finds the route once its kernels are compiled)."""
    x = main[0]
    # len(extra): dynamo cannot take the truth of a tuple holding tensors (a graph break in a caller's torch.compile)
    fast = params is _DEFAULTS.get(s.name) and len(extra) == 0 and body is s.forward and not _PINNED and not _RECORD
    if fast and torch.compiler.is_compiling():
        y = _graph_call(s, main, packed)
        if y is not None:
            return y
    if fast and state.is_default():
        # A call at the entry's defaults whose route was settled before (the torch op, or compiled kernels):
        # one dict lookup, no table walk (benchmarks/call_overhead.py measures what each layer costs).
        grad = x.requires_grad or (len(main) > 1 and main[1].requires_grad)
        key = _settled_key(s, x, grad, x.numel())
        done = _settled_job(key)
        if done is not None:
            return s.torch_equivalent(*main) if done is _TORCH_OP else dispatch.run_job(done, main)
    params = params or {}
    r = choose(s, body, main, extra, params)
    if fast and state.is_default() and not torch.compiler.is_compiling():
        _settle(s, x, key, r, params)
    elif settle_as is not None and _settles_with(x):
        _settle_with(s, x, settle_as, r, params)
    if _RECORD:
        x = main[0]
        _RECORD[-1].append((s.name, _DTYPE_NAME[x.dtype], x.device.type, _pass(main, extra), _size(x), r))
    if r == "torch":
        return _torch_op(s, params)(*main)
    if r == "fused":
        with _float64_pin(s, x):  # the op records it: its backward computes in float64 too
            return _fused(s, body, main, extra, params, packed)
    if x.device.type == "cpu" and torch.compiler.is_compiling():
        dispatch.prepare_eager_trace()
    return eager_apply(s, body, derivative, main, extra, params)


# ------------------------------------------------------------------- inside a caller's torch.compile


def graph_pointwise(s: Spec, x: torch.Tensor) -> torch.Tensor | None:
    """A pointwise call on `x` alone at the entry's defaults inside a caller's torch.compile, from the
    functional form straight to `_graph_plan`'s route: each layer of nonlin's Python that dynamo traces adds
    guards the caller's compiled function evaluates on every call (a compiled silu had ~115, 10-13 µs of a 32K
    call's 125-145 on a loaded 2-core host, where torch.compile(F.silu) took 74-94 in all). None where the call
    takes the general path (`_graph_plan`)."""
    if _PINNED or _RECORD:
        return None  # (`run` pins the size class, or records the route)
    return _graph_call(s, (x,), None)


def graph_packed(s: Spec, packed: torch.Tensor, layout: str) -> torch.Tensor | None:
    """`graph_pointwise` for a gated call on one packed [..., 2d] tensor (`layout`: "gate_value" or
    "value_gate", the last dim's halves), where the traced kernels read the packed rows; else None."""
    if packed.dim() == 0 or packed.shape[-1] % 2 or _PINNED or _RECORD:
        return None  # (the general path raises split_packed's error, pins the size class, records the route)
    return _graph_call(s, (), (packed, layout == "value_gate"))


def _graph_call(s: Spec, main: tuple[torch.Tensor, ...], packed: tuple[torch.Tensor, bool] | None):
    """A call at the entry's defaults inside a caller's torch.compile by `_graph_plan`'s route: on `main` (the
    input, or g and v), or where main is empty on `packed` alone ([..., 2d], whether the value half is first),
    which only the traced kernels' packed pair reads. None: the general path."""
    x = main[0] if main else packed[0]
    size = _size_class(x.numel() if main else x.numel() // 2)  # (a packed call's: its gate half's)
    plan = _graph_plan(s.name, x.dtype, x.device.type, _pass(main or (x,), ()), size, *_settings())
    if plan is None or (not main and (plan == "torch" or plan[0] != "traced" or not plan[2])):
        return None
    if plan == "torch":
        return s.torch_equivalent(*main)
    return dispatch.traced_plan(plan, main, packed)


def _size_class(numel: int) -> Size:
    return "large" if numel >= LARGE_NUMEL else "small"


def _settings() -> tuple[str, tuple[str, str]]:
    return state.mode(), state.settings()


@graph_ops.constant_result
def _graph_plan(
    name: str, dtype: torch.dtype, device: str, pass_: Pass, size: Size, mode: str, settings: tuple[str, str]
) -> str | tuple | None:
    """What `choose` and `_fused` do with a call at the entry's defaults inside torch.compile, as a constant
    (dynamo runs this as it is, `graph_ops.constant_result`: no guard on the table or the caches it reads):
    "torch" (torch's op, where it is exact), a traced plan (`dispatch.plan_of`), or None for `run`'s general
    path (the eager route, export, CUDA, use("fused")'s warnings, the float64-pinned rows, a dtype to refuse)."""
    if device != "cpu" or mode != "auto" or dtype not in _DTYPE_NAME or torch.compiler.is_exporting():
        return None
    s = get_spec(name)
    row, params = _row_of_call(name, dtype, device, pass_, size), _defaults(name)
    if row == "torch" and _torch_serves(s, s.forward, (), params, dtype, True):
        return "torch"
    if row == "eager" or not dispatch.fusable(s, (), params, warn=False) or not dispatch.traceable(s, s.forward):
        return None
    if name in FUSED_FLOAT64 and dtype == torch.float32:
        return None
    return dispatch.plan_of(name, dtype, tuple(params.values()), settings)


_SETTLED: dict[tuple, object] = {}  # (entry, dtype, device, records grad, large) -> _TORCH_OP or a dispatch.Job
# A pointwise entry's settled call on its one input, by `_SETTLED`'s key (at the defaults, or at keyword values):
# torch's op, or the job's kernels, as one callable (`dispatch.settled_call`), which `settled` and `settled_with`
# call with no branch of their own
_CALL: dict[tuple, Callable[[torch.Tensor], torch.Tensor]] = {}
_TORCH_OP = object()


def _settled_key(s: Spec, x: torch.Tensor, requires_grad: bool, numel: int) -> tuple:
    """The `_SETTLED` key of a call on main input `x` (numel: the main input's elements)."""
    return (s.name, x.dtype, x.device, torch.is_grad_enabled() and requires_grad, numel >= LARGE_NUMEL)


def _settled_job(key: tuple) -> object | None:
    """The settled route of `key` (`_TORCH_OP` or a job) where the default settings are in force outside
    torch.compile, else None."""
    if torch.compiler.is_compiling() or _PINNED or _RECORD or not state.DEFAULT:
        return None  # (compiling: before the dict, which dynamo would guard on, and recompile as it fills)
    return _SETTLED.get(key)


def settled(s: Spec, x: torch.Tensor) -> torch.Tensor | None:
    """A pointwise call on `x` alone at the entry's defaults, by the route settled for its row before (torch's op
    or the compiled kernels), or None where none is (the caller then takes `run`). The functional forms try
    this first: a small call's whole cost above torch's op is this lookup (benchmarks/call_overhead.py). Its
    callers take it outside torch.compile only (they branch on `torch.compiler.is_compiling()` first), so it asks
    no more than the settings: each question here is ~0.1-0.2 µs of every call."""
    if _PINNED or _RECORD or not state.DEFAULT:
        return None
    call = _CALL.get(_settled_key(s, x, x.requires_grad, x.numel()))
    return None if call is None else call(x)


def settled_packed(s: Spec, packed: torch.Tensor, value_first: bool = False) -> torch.Tensor | None:
    """`settled` for a gated call on one contiguous packed [..., 2d] tensor ([gate | value], the last dim) at
    the entry's defaults, on compiled kernels (the halves are never made: the kernels read the packed rows) or
    torch's op on the halves, or None (the caller then splits and takes `run`). `value_first`: [value | gate]
    (torch's, JAX's and Keras's glu); where the job's kernels read only [gate | value], its halves go to them as
    strided rows, as `run`'s settled call gives them."""
    n = packed.numel()
    if _PINNED or _RECORD or not state.DEFAULT:  # (its callers take it outside torch.compile only, as `settled`)
        return None
    if packed.dim() == 0 or n == 0 or packed.shape[-1] % 2 or not packed.is_contiguous():
        return None
    done = _SETTLED.get(_settled_key(s, packed, packed.requires_grad, n // 2))  # (the key of the gate half)
    if done is None:
        return None
    if done is _TORCH_OP:  # (bilinear; reglu's inference): torch's op on the halves, as `run` gives it them
        a, b = packed.chunk(2, -1)  # [..., d] each
        return s.torch_equivalent(b, a) if value_first else s.torch_equivalent(a, b)
    y = dispatch.run_packed(done, packed, value_first)
    if y is None and value_first:
        v, g = packed.chunk(2, -1)  # [..., d] each
        return dispatch.run_job(done, (g, v))
    return y


def plain_numbers(params: Mapping[str, Any]) -> bool:
    """Whether every value is a float or an int, the keyword values a call's route settles for (a tensor hashes by
    identity, not value; a bool is a flag)."""
    for v in params.values():  # noqa: SIM110 (a loop: all() of a generator adds its frames, ~1 µs a settled call)
        if type(v) is not float and type(v) is not int:
            return False
    return True


def settled_with(s: Spec, x: torch.Tensor, params: Mapping[str, Any]) -> torch.Tensor | None:
    """`settled` for a pointwise call with keyword parameters (elu(x, alpha=0.5)): by the compiled kernels settled
    for the same keywords and values before (`run`'s settle_as), or torch's op where its row holds at them, or
    None. Such a call had paid the whole route (parameter checks, the table, the job lookup) each time: elu at
    alpha 0.5 on 32K float32 1.4x torch's op. Kept lean: at 32K torch's leaky_relu takes ~4 us. Outside
    torch.compile only, as `settled`: its callers branch on `torch.compiler.is_compiling()` first."""
    if _PINNED or _RECORD or not state.DEFAULT or not plain_numbers(params):
        return None
    call = _CALL.get(_settled_with_key(s, x, tuple(params.items()), params))
    return None if call is None else call(x)


def _settled_with_key(s: Spec, x: torch.Tensor, items: tuple, params: Mapping[str, Any]) -> tuple:
    """The `_SETTLED` key of a call with keyword parameters `items` (`params`' items): its entry, items, input
    dtype and device, whether autograd records it and its size class; where a value is zero, which zeros are
    -0.0 (equal to 0.0, and of one hash: elu's alpha -0.0 gives torch's zeros of the other sign)."""
    key = (s.name, items, x.dtype, x.device, torch.is_grad_enabled() and x.requires_grad, x.numel() >= LARGE_NUMEL)
    return (*key, negative_zeros(v for _, v in items)) if 0 in params.values() else key


def _settles_with(x: torch.Tensor) -> bool:
    return x.device.type == "cpu" and state.DEFAULT and not (_PINNED or _RECORD or torch.compiler.is_compiling())


def _settle_with(s: Spec, x: torch.Tensor, items: tuple, r: Route, params: Mapping[str, Any]) -> None:
    """Remember the route of a call made with keyword parameters `items` (see `settled_with`): torch's op (where its
    row holds at those values: the defaults, or `Native.params`), or the fused path's job once it is compiled."""
    given = dict(items)
    key = _settled_with_key(s, x, items, given)
    if r == "torch":
        if not _moved_to_fused(s.name, x.dtype, key[4], key[5]):
            _SETTLED[key] = _TORCH_OP
            _CALL[key] = _torch_op(s, given)
    elif r == "fused":
        with _float64_pin(s, x):
            job = dispatch.job_for(s, x.dtype, params)
        if job is not None and dispatch.ready(job, x.dtype, key[4]):
            _SETTLED[key] = job
            _CALL[key] = dispatch.settled_call(job, key[4])


def _settle(s: Spec, x: torch.Tensor, key: tuple, r: Route, params: Mapping[str, Any]) -> None:
    """Remember a default-parameter call's route once it will not change: torch's op, or the fused path once
    its kernels are compiled (the eager route of a small call that is still warming up is not remembered)."""
    pointwise = s.kind is Kind.POINTWISE
    if r == "torch":
        if not _moved_to_fused(s.name, x.dtype, key[3], key[4]):
            _SETTLED[key] = _TORCH_OP
            if pointwise:
                _CALL[key] = _torch_op(s, {})
    elif r == "fused" and x.device.type == "cpu":
        with _float64_pin(s, x):
            job = dispatch.job_for(s, x.dtype, params)
        if job is not None and key[3] and _torch_forward(s, x):
            job = dispatch.with_torch_forward(job)
        if job is not None and dispatch.ready(job, x.dtype, key[3]):
            _SETTLED[key] = job
            if pointwise:
                _CALL[key] = dispatch.settled_call(job, key[3])


def _float64_pin(s: Spec, x: torch.Tensor):
    """`FUSED_FLOAT64`'s rows: float64 math for float32 inputs on the default route."""
    if (
        s.name in FUSED_FLOAT64
        and state.mode() == "auto"  # the table's row; use("fused") keeps kernels/precision.py's choice
        and state.fp32_compute() == "auto"
        and x.dtype == torch.float32
    ):
        return state.pinned(state.settings()[0], "float64")
    return contextlib.nullcontext()


def _torch_forward(s: Spec, x: torch.Tensor) -> bool:
    """Whether a training call on the table's fused route takes torch's op as its forward (the row's forward
    alone is torch's: `Native.forward`, tanh) and the fused backward from the saved input. Default
    parameters only (the caller's `fast` call), CPU, outside torch.compile."""
    n = NATIVE.get(s.name)
    dtype = _DTYPE_NAME.get(x.dtype)
    return (
        n is not None
        and s.kind is Kind.POINTWISE
        and dtype in n.dtypes("forward")
        and state.mode() == "auto"
        and x.device.type == "cpu"
        and not torch.compiler.is_compiling()
        # (where the forward row takes the fused path, its kernel is the faster forward)
        and not _fused_faster(n, s.name, dtype, "forward", _size(x))
    )


def _fused(s: Spec, body, main, extra, params, packed=None) -> torch.Tensor:
    x = main[0]
    if x.device.type == "cpu" and torch.compiler.is_compiling():
        # use("fused") under torch.export records the custom op
        if not torch.compiler.is_exporting() and dispatch.traceable(s, body):
            return dispatch.traced(s, main, params, packed, extra)
    elif (
        torch.is_grad_enabled()
        and x.requires_grad
        and len(extra) == 0
        and body is s.forward
        and _torch_forward(s, x)
        and _at_defaults(s.name, params)
    ):
        job = dispatch.job_for(s, x.dtype, params)
        if job is not None:
            return dispatch.run_job(dispatch.with_torch_forward(job), main)
    return dispatch.call(s, body, main, extra, params)


@contextlib.contextmanager
def recording() -> Iterator[list[tuple[str, str, str, str, str, str]]]:
    """Collect (entry, dtype, device, pass, size class, route) of every call made inside the block."""
    taken: list[tuple[str, str, str, str, str, str]] = []
    _RECORD.append(taken)
    try:
        yield taken
    finally:
        _RECORD.remove(taken)


@contextlib.contextmanager
def pinned(size: Size) -> Iterator[None]:
    """Treat every call inside the block as of size class `size` (the accuracy checker measures the route of
    each size class on the same inputs)."""
    if size not in SIZES:
        raise ValueError(f"size={size!r} is not one of {', '.join(map(repr, SIZES))}")
    previous = _PINNED.get("size")
    _PINNED["size"] = size
    try:
        yield
    finally:
        if previous is None:
            _PINNED.pop("size", None)
        else:
            _PINNED["size"] = previous
