"""bfloat16 and float16 inputs of a pointwise entry by table: every one of their 65536 bit patterns, once.

A half-type input has 2^16 values, so the fused CPU path of a pointwise entry at fixed (float) parameters
evaluates the eager path once on all of them and then looks results up:
- forward: `values[bits(x)]`, the eager path's result at each bit pattern (float64 math rounded to the half
  type: `autograd.round_to`), NaN, infinities and signed zeros included, on every ISA, except where the
  float64 result is within 2^-40 of a rounding boundary: there the accuracy reference decides
  (`_settle_near_ties`), so every value is correctly rounded;
- backward: `go * slopes[bits(x)]`, the declared derivative in float64 rounded to float32 (to odd), the
  product in float32 and rounded once to the half type. It differs from the eager route's correctly rounded
  float64 product only where the float32 product's rounding lands on a half-type midpoint (~2^-16 of bf16
  gradients, ~2^-13 of fp16 ones), and then by one ULP. Where some derivative is nonzero outside float32's
  normal range (subnormal, or beyond its largest float) and the half type is bfloat16 (float16's range makes
  float32 slopes enough: `_slopes`), the slopes stay float64 and so does the product, rounded once to the half
  type (`_product`); a float64 derivative exactly on a half-type midpoint
  moves one float64 ulp toward its true side (`_settle_midpoint_slopes`).

Gated entries whose forward is gate(g) * v (`Spec.gate`: glu, geglu, geglu_tanh, swiglu) look the gate up the
same way (`GateTable`): gate[g] * v, and the gradients go * v * gate'[g] and go * gate[g], each one product
rounded as the backward's.

The kernels are the same for every entry (an indexed load; a load and a product of two or three factors):
written with ATen's vector types and a hardware gather (kernels/gather.py), compiled once per dtype by
inductor's C++ toolchain, and equal bit for bit to the torch-op forms below (`_lookup`, `_product`), which run
where the kernels do not compile. Inside a caller's torch.compile the same kernels are two custom ops
(`traced_lookup`, `traced_product`), opaque to inductor, whose scalar loop for the torch-op forms costs 2-20
times more. Measured (4M bfloat16, one AVX-512 core, torch 2.13, `benchmarks/kernels.py`): the lookup 1.4 ms
where torch's sigmoid takes 2.4; the backward ~0.4 ns per element, against ATen's sigmoid backward ~0.5
(inductor's scalar loop for the same forms: 1.2, and 2.3 with float64 slopes).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from nonlin.kernels import gate_sides, gather, graph_ops

HALVES = (torch.bfloat16, torch.float16)
SIZE = 1 << 16
_FLOAT32_TINY = float(torch.finfo(torch.float32).tiny)
_FLOAT32_MAX = float(torch.finfo(torch.float32).max)


def _lookup(bits, values):
    # [n] int16 bit patterns -> [n] values; & 0xFFFF makes the index of a negative int16 its unsigned pattern
    return values[bits.to(torch.int32) & 0xFFFF]


# Rounding float64 to float32 keeps its top 24 significant bits: the 29 bits below them are dropped.
_DROPPED = (1 << 29) - 1
# Adding and subtracting 1.5 * 2^-81 rounds |p| < 2^-126 to a multiple of 2^-133 (to nearest, ties to even): the
# grid of bfloat16's subnormals, so that the float64 -> float32 -> bfloat16 conversions after it are exact.
_SUBNORMAL_GRID = 1.5 * 2.0**-81


def _product(go, v, bits, slopes, wide):
    """go (* v) * slopes[bits], in torch ops: what kernels/gather.py computes, bit for bit.

    The float32 product, rounded once to the half type (go * v is exact in float32 for float16 inputs). With
    `wide` (bfloat16, whose exponent range is float32's), the elements whose slope is NaN (`_slopes` marks a
    derivative outside float32's normal range so; a NaN derivative is one too) or whose go * v leaves float32's
    normal range take the float64 slope and product instead, rounded so that torch's float64 -> half
    conversion (which goes through float32) rounds once: `_rounded_once`."""
    i = bits.to(torch.int32) & 0xFFFF
    s = slopes[i]
    f = go.to(torch.float32) if v is None else go.to(torch.float32) * v.to(torch.float32)
    near = (s * f).to(go.dtype)
    if wide is None:
        return near
    off = torch.isnan(s)
    if v is not None:
        a = torch.abs(f)
        off = off | ((a < _FLOAT32_TINY) & (a != 0)) | (a > _FLOAT32_MAX)
    f64 = go.to(torch.float64) if v is None else go.to(torch.float64) * v.to(torch.float64)
    return torch.where(off, _rounded_once(wide[i] * f64, go.dtype), near)


def _rounded_once(p: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """float64 `p` to a half type with one rounding. Where p is a float32 normal (or beyond), it is cut to
    float32's 24 bits *to odd* in its bit pattern (the last kept bit set where a dropped one is), which a rounding
    to 8 or 11 bits then rounds as p itself; below 2^-126 it is rounded to bfloat16's subnormal grid directly,
    sign kept (float16 has no values there). Integer and add/subtract operations, cheap in vector code."""
    b = p.view(torch.int64)
    cut = ((b & ~_DROPPED) | ((b & _DROPPED) != 0).to(torch.int64) << 29).view(torch.float64)
    a = torch.abs(p)
    tiny = torch.copysign((a + _SUBNORMAL_GRID) - _SUBNORMAL_GRID, p)
    return torch.where(a < _FLOAT32_TINY, tiny, cut).to(torch.float32).to(dtype)


# Primitives a computed kernel runs at the lookup's cost or less. The generated backward computes half inputs in
# float32, where arithmetic derivatives overflow before the product with the incoming gradient (cube's 3 x^2,
# bent_identity's sqrt(x^2 + 1) beyond 1.8e19: inf or 1.4% misrounded against the eager path where go < 1), so
# the table takes every backward but a derivative from the saved output made of these (relu6's, hardtanh's:
# an indicator of y).
_CHEAP = frozenset(
    {"sqrt", "abs", "sign", "isnan", "square", "where", "maximum", "minimum", "indicator", "gated", "keep",
     "full_like", "zeros_like", "ones_like"}
)  # fmt: skip


def backward_by_table(p) -> bool:
    """Whether the backward of plan `p` calls a transcendental primitive (then a lookup is cheaper)."""
    from nonlin.kernels.codegen import _reachable
    from nonlin.kernels.trace import PRIMITIVES

    return any(s.op in PRIMITIVES and s.op not in _CHEAP for s in _reachable(p.backward.outputs))


# Inside a caller's torch.compile the lookups are these two ops, opaque to inductor: its code for the torch-op
# forms is a scalar loop (4M bfloat16 gradients with float64 far tails: ~8 ns per element, the kernels ~0.4).
@graph_ops.cpu_op(
    "half_lookup",
    "(Tensor x, Tensor values, Tensor values32) -> Tensor",
    lambda x, values, values32: graph_ops.like(x),
)
def traced_lookup(x: torch.Tensor, values: torch.Tensor, values32: torch.Tensor) -> torch.Tensor:
    """values[bits(x)] (values of x's half type, values32 the same widened to float32)."""
    bits = _flat(x).view(torch.int16)
    out = gather.empty(bits.shape, x.dtype)
    if not gather.lookup(bits, values32, out):
        out = _lookup(bits, values)
    return out.view(x.shape)


@graph_ops.cpu_op(
    "half_product",
    "(Tensor go, Tensor? v, Tensor x, Tensor slopes, Tensor? wide) -> Tensor",
    lambda go, v, x, slopes, wide: graph_ops.like(x),
)
def traced_product(
    go: torch.Tensor, v: torch.Tensor | None, x: torch.Tensor, slopes: torch.Tensor, wide: torch.Tensor | None
) -> torch.Tensor:
    """go (* v) * slopes[bits(x)], as `_product` rounds it (x and v may be the halves of a packed tensor)."""
    bits, g = rows(x).view(torch.int16), rows(go.to(x.dtype))
    w = None if v is None else rows(v)
    out = gather.empty(bits.shape, x.dtype)
    if not gather.gradient(g, w, bits, slopes, wide, out):
        out = _product(g, w, bits, slopes, wide)
    return out.view(x.shape)


def packed_gate_gradient(go, x, value_first, gate, gate_wide, slopes, slopes_wide) -> torch.Tensor:
    """d/dx of gate(g) v for g and v the last dim's halves of a packed [..., 2d] x ([gate | value]; value_first:
    [value | gate]) from GateTable's arrays, one [..., 2d] tensor, each half as GateTable.backward rounds it."""
    xr = rows(x)  # [rows, 2d]
    dx = gather.empty(xr.shape, x.dtype)
    g, v = gather.packed_halves(xr, value_first)
    _gate_gradients(rows(go.to(x.dtype)), g, v, *gather.packed_halves(dx, value_first), gate, gate_wide, slopes,
                    slopes_wide)  # fmt: skip
    return dx.view(x.shape)


# A caller's torch.compile of a gated call on one packed tensor: its gradient written in place by one op (two
# half gradients would be concatenated by the caller's graph: a copy of both)
@graph_ops.cpu_op(
    "half_gated_packed_grad",
    "(Tensor go, Tensor x, bool value_first, Tensor gate, Tensor? gate_wide, Tensor slopes, Tensor? slopes_wide)"
    " -> Tensor",
    lambda go, x, value_first, gate, gate_wide, slopes, slopes_wide: graph_ops.like(x),
)
def traced_packed_gradient(
    go: torch.Tensor,
    x: torch.Tensor,
    value_first: bool,
    gate: torch.Tensor,
    gate_wide: torch.Tensor | None,
    slopes: torch.Tensor,
    slopes_wide: torch.Tensor | None,
) -> torch.Tensor:
    if x.numel() == 0:
        return gather.empty(x.shape, x.dtype)
    return packed_gate_gradient(go, x, value_first, gate, gate_wide, slopes, slopes_wide)


def all_values(dtype: torch.dtype) -> torch.Tensor:
    """Every value of a half type, at index = its bit pattern as an unsigned 16-bit integer."""
    return torch.arange(SIZE, dtype=torch.int32).to(torch.int16).view(dtype)


class _Built(ABC):
    """Arrays computed once on first use, held in one attribute (so that a concurrent drop of the oldest
    tables, `MAX_BUILT`, never leaves half of them), rebuilt if dropped."""

    __slots__ = ("_lock", "arrays", "dtype", "params", "spec")

    def __init__(self, spec, dtype: torch.dtype, params: Mapping[str, Any]) -> None:
        self.spec, self.dtype, self.params = spec, dtype, dict(params)
        self.arrays: tuple | None = None
        self._lock = threading.Lock()

    def _build(self) -> tuple:
        arrays = self.arrays
        if arrays is not None:
            return arrays
        with self._lock:
            if self.arrays is None:
                with torch.no_grad():
                    self.arrays = self._compute(all_values(self.dtype).double())
            arrays = self.arrays
        _keep(self)
        return arrays

    @abstractmethod
    def _compute(self, x: torch.Tensor) -> tuple:
        """The arrays from x, every half-type value as float64 (autograd off)."""

    def _drop(self) -> None:
        with self._lock:
            self.arrays = None


class Table(_Built):
    """The forward values and derivative slopes of one (entry, parameters, half dtype), built on first use:
    (values, the same widened to float32 (the gather kernel's words), float32 slopes, float64 slopes where
    those hold NaN (bfloat16 only) or None)."""

    __slots__ = ("backward_by_table",)

    def __init__(self, spec, dtype: torch.dtype, params: Mapping[str, Any], backward_by_table: bool) -> None:
        super().__init__(spec, dtype, params)
        self.backward_by_table = backward_by_table

    def _compute(self, x: torch.Tensor) -> tuple:
        from nonlin.autograd import round_to
        from nonlin.ops import TORCH

        y = self.spec.forward(TORCH, x, **self.params)
        d = self.spec.derivative(TORCH, x, **self.params)
        d = d[0] if isinstance(d, tuple) else d
        y = torch.as_tensor(y, dtype=torch.float64).expand_as(x)
        d = torch.as_tensor(d, dtype=torch.float64).expand_as(x)
        d = _settle_midpoint_slopes(self.spec, self.params, x, d, self.dtype)
        slopes, wide = _slopes(d, self.dtype)
        values = _settle_near_ties(self.spec, self.params, x, y, round_to(y, self.dtype))
        # (the half values too: a traced lookup of float32 words and a conversion is 2.8x slower)
        return values, values.float(), slopes, wide

    # (x's shape throughout, contiguous: the kernels take any rank as one row, and a small call spends no
    # microsecond on reshaping views)
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        values, values32, _, _ = self.arrays or self._build()
        bits = x.contiguous().view(torch.int16)
        out = torch.empty_like(bits, dtype=self.dtype)
        if not gather.lookup(bits, values32, out):
            return _lookup(_flat(bits), values).view_as(x)
        return out

    def widened_values(self) -> torch.Tensor:
        """The forward values widened to float32, indexed by the input's 16 bits (the lookup kernel's words)."""
        return (self.arrays or self._build())[1]

    def backward(self, go: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        _, _, slopes, wide = self.arrays or self._build()
        bits, g = x.contiguous().view(torch.int16), go.to(self.dtype).contiguous()
        out = torch.empty_like(bits, dtype=self.dtype)
        if not gather.gradient(g, None, bits, slopes, wide, out):
            return _product(_flat(g), None, _flat(bits), slopes, wide).view_as(x)
        return out


class GateTable(_Built):
    """gate(g) and gate'(g) of a gated entry whose forward is gate(g) * v (`Spec.gate`), at fixed float
    parameters, for every half-type g: (gate values, their float64 far tails, gate' slopes, theirs). Forward
    gate[g] * v, backward (go * v * gate'[g], go * gate[g]), each product as `_product` rounds it (the float32
    product rounded once to the half type; bfloat16's far tails in float64). Inputs are 1-D, or 2-D [rows,
    width] with unit inner stride (the halves of a packed [gate | value] tensor)."""

    __slots__ = ()

    def _compute(self, x: torch.Tensor) -> tuple:
        from nonlin.accuracy.formats import get_format
        from nonlin.ops import TORCH

        gate, gate_grad = self.spec.gate
        y = torch.as_tensor(gate(TORCH, x, **self.params), dtype=torch.float64).expand_as(x)
        d = torch.as_tensor(gate_grad(TORCH, x, **self.params), dtype=torch.float64).expand_as(x)
        gate_values, gate_wide = _slopes(y, self.dtype)
        # float64 gates exactly on a short number (silu's g / 2 at tiny g, g beyond 36.7) moved to their true side
        gate_sides.settle(self.spec.name, gate, self.params, get_format(self.dtype), x.numpy(), y.numpy(),
                          gate_values.numpy(), None if gate_wide is None else gate_wide.numpy())  # fmt: skip
        slopes, slopes_wide = _slopes(d, self.dtype)
        if self.dtype == torch.bfloat16 and slopes_wide is None:
            slopes_wide = slopes.double()  # go * v may leave float32's range: the float64 product there
        return gate_values, gate_wide, slopes, slopes_wide

    def forward(self, g: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        gate, gate_wide, _, _ = self.arrays or self._build()
        bits = g.view(torch.int16)
        out = gather.empty(g.shape, self.dtype)
        if not gather.gradient(v, None, bits, gate, gate_wide, out):
            return _product(v, None, bits, gate, gate_wide)
        return out

    def backward(self, go: torch.Tensor, g: torch.Tensor, v: torch.Tensor, dg: torch.Tensor, dv: torch.Tensor) -> None:
        """Writes d/dg and d/dv into `dg` and `dv` (views of the half type, shaped as g)."""
        _gate_gradients(go, g, v, dg, dv, *(self.arrays or self._build()))

    def packed_backward(self, go: torch.Tensor, x: torch.Tensor, value_first: bool = False) -> torch.Tensor:
        """d/dx of a packed [..., 2d] x ([gate | value]; value_first: [value | gate]) for upstream gradient go
        ([..., d]), one tensor."""
        return packed_gate_gradient(go, x, value_first, *(self.arrays or self._build()))


def _gate_gradients(go, g, v, dg, dv, gate, gate_wide, slopes, slopes_wide) -> None:
    """dg = go v gate'[g], dv = go gate[g] (GateTable's arrays), written into `dg` and `dv`."""
    bits = g.view(torch.int16)
    if not gather.gradient(go, v, bits, slopes, slopes_wide, dg):
        dg.copy_(_product(go, v, bits, slopes, slopes_wide))
    if not gather.gradient(go, None, bits, gate, gate_wide, dv):
        dv.copy_(_product(go, None, bits, gate, gate_wide))


# Built tables hold 0.2-0.6 MB each; a sweep over many parameter values would keep one per value. The oldest
# beyond this many are dropped (and rebuilt, in milliseconds, if called again).
MAX_BUILT = 128
_BUILT: OrderedDict[int, _Built] = OrderedDict()
_BUILT_LOCK = threading.Lock()


def _keep(t: _Built) -> None:
    with _BUILT_LOCK:
        _BUILT[id(t)] = t
        _BUILT.move_to_end(id(t))
        while len(_BUILT) > MAX_BUILT:
            _, old = _BUILT.popitem(last=False)
            old._drop()


def _slopes(d: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The table's slopes from the float64 derivative `d`: float32 rounded to odd (a slope that rounds to 1.5,
    bent_identity's 1.5 - 1/(4 x^2) at large x, would make go * 1.5 a half-type midpoint, rounded to even where
    the true product lies below it: 1.3% of fp16 gradients), and the float64 ones where bfloat16 needs them.

    float16's incoming gradients lie within 2^-24 <= |go| <= 65504, so a finite derivative beyond float32's
    largest value gives a product beyond float16's (float32's largest keeps that, and 0 * it = 0) and one below
    its smallest normal a product that rounds to a signed zero (float32's subnormal to odd keeps the sign).
    bfloat16 has float32's exponent range: where such a derivative occurs, the float32 slopes hold NaN at it
    and `d` is kept for those elements (`_product`); elsewhere the float32 product is as good."""
    from nonlin.autograd import float32_to_odd

    a = torch.abs(d)
    outside = (a != 0) & torch.isfinite(d) & ((a < _FLOAT32_TINY) | (a > _FLOAT32_MAX))
    finite = torch.where(torch.isfinite(d), d.clamp(-_FLOAT32_MAX, _FLOAT32_MAX), d)
    slopes = float32_to_odd(finite)
    if dtype == torch.bfloat16 and bool(outside.any()):
        return torch.where(outside, torch.nan, slopes).contiguous(), d.contiguous()
    return slopes.contiguous(), None


def _settle_near_ties(spec, params, x: torch.Tensor, y: torch.Tensor, rounded: torch.Tensor) -> torch.Tensor:
    """`rounded` with the values whose float64 result lies within 2^-40 of a half-type rounding boundary
    replaced by the accuracy reference's correctly rounded ones (nonlin.accuracy.reference: interval
    arithmetic, then mpmath). float64 cannot see which side those lie on: x g(x) with g(0) = 1/2 at a bf16
    subnormal x is x/2 (1 + x g'(0) / g(0)), a midpoint to 2^-126, rounded to even by the eager path (gelu,
    silu and ~20 more: 99.8% of bf16 values correctly rounded). A few hundred values per table at most."""
    from nonlin.accuracy.formats import get_format
    from nonlin.accuracy.reference import evaluate
    from nonlin.autograd import round_to

    with torch.no_grad():
        finite = torch.isfinite(y) & (y != 0)
        up = round_to(y * (1 + 2.0**-40), rounded.dtype)
        down = round_to(y * (1 - 2.0**-40), rounded.dtype)
        near = finite & ~_same(up, down)
    idx = torch.nonzero(near).flatten()
    if idx.numel() == 0:
        return rounded.contiguous()
    (out,) = evaluate(spec, dict(params), [x[idx].numpy()], get_format(rounded.dtype), derivative=False)
    fixed = rounded.clone()
    fixed[idx] = torch.from_numpy(out.rounded).to(rounded.dtype)
    return fixed.contiguous()


def _settle_midpoint_slopes(spec, params, x: torch.Tensor, d: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """`d` (the float64 derivative) moved one float64 ulp toward the true value where it is exactly a half-type
    midpoint and the true value is not (mpmath at 800 digits decides; a few hundred values at most): there
    go * d for go = 1 (or a power of two) would round to even where the true product lies to one side (ncu's
    1 - 3x^2 is -3x^2 to float64 beyond |x| = 2^27: 99.77% of bf16 gradients correctly rounded)."""
    import mpmath

    from nonlin.accuracy.formats import get_format
    from nonlin.accuracy.reference import TIE_DPS, _mp_eval, body_of

    dn = d.numpy()
    fmt = get_format(dtype)
    with np.errstate(all="ignore"):
        q = dn / (fmt.ulp(dn) / 2)
        mid = np.isfinite(dn) & (dn != 0) & (q == np.rint(q)) & (np.fmod(np.rint(q), 2) != 0)
    idx = np.flatnonzero(mid)
    if idx.size == 0:
        return d
    out = dn.copy()
    body, xs = body_of(spec, True), x.numpy()
    for i in idx:
        exact = _mp_eval(body, spec, [xs[i]], dict(params), 1, TIE_DPS)[0]
        with mpmath.workdps(TIE_DPS):
            side = 0 if mpmath.isnan(exact) else int(mpmath.sign(exact - mpmath.mpf(float(dn[i]))))
        if side:
            out[i] = np.nextafter(dn[i], np.inf if side > 0 else -np.inf)
    return torch.from_numpy(out)


def _same(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a == b) & (torch.signbit(a) == torch.signbit(b)) | (torch.isnan(a) & torch.isnan(b))


def rows(t: torch.Tensor) -> torch.Tensor:
    """`t` as a 2-D [rows, width] view with unit inner stride (the half of a packed [gate | value] tensor is
    one), or a contiguous copy where it is not one."""
    if t.numel() == 0:
        return t.reshape(0, 1)
    if t.dim() >= 1 and t.stride(-1) == 1:
        try:
            return t.view(-1, t.shape[-1])
        except RuntimeError:  # leading dims that do not fold into one stride
            pass
    return t.contiguous().view(-1, t.shape[-1] if t.dim() else 1)


def _flat(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1) if t.is_contiguous() else t.contiguous().reshape(-1)


def built(dtype: torch.dtype, train: bool, gated: bool = False) -> bool:
    """Whether the lookup kernels for `dtype` inputs are compiled (a small call does not wait for them)."""
    if gated:  # the forward and d/dv are products go * gate[g]; d/dg a product go * v * gate'[g]
        return gather.built("grad", dtype, False) and (not train or gather.built("grad", dtype, True))
    return gather.built("lookup", dtype) and (not train or gather.built("grad", dtype))
