"""Triton backend of the math namespace: the primitives of `nonlin.ops.torch_backend` as ``@triton.jit``
device functions on blocks of the compute dtype (float32 for half inputs, float64 for float32 inputs).

Formula bodies do not call these directly: `nonlin.kernels.trace` runs a body once on symbols and
`nonlin.kernels.codegen` writes a kernel whose lines call ``tb.<primitive>`` here, in the order the body
computes. Each primitive uses the same numerically stable form as the torch backend, and libdevice
(correctly rounded or 1-2 ULP) instead of Triton's fast approximations (``tl.exp`` lowers to ``ex2.approx``,
whose relative error grows with |x|). Under the interpreter (TRITON_INTERPRET=1) libdevice is replaced by
`nonlin.kernels._interp_libdevice` (numpy/scipy), the kernel source staying the same.
"""

from __future__ import annotations

import math
import os

import triton
import triton.language as tl

if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
    from nonlin.kernels import _interp_libdevice as libdevice
else:  # resolved to the CUDA or HIP library when the kernel is compiled
    from triton.language.extra import libdevice

INTERPRETED = libdevice.__name__.endswith("_interp_libdevice")
# Globals read inside @triton.jit functions must be constexpr (the GPU compiler rejects plain floats).
SQRT1_2 = tl.constexpr(1.0 / math.sqrt(2.0))
INV_SQRT_2PI = tl.constexpr(1.0 / math.sqrt(2.0 * math.pi))
PI = math.pi

# --- elementary ---


@triton.jit
def exp(x):
    return libdevice.exp(x)


@triton.jit
def expm1(x):
    return libdevice.expm1(x)


@triton.jit
def log(x):
    return libdevice.log(x)


@triton.jit
def log1p(x):
    return libdevice.log1p(x)


@triton.jit
def sqrt(x):
    return libdevice.sqrt(x)


@triton.jit
def abs(x):
    return tl.abs(x)


@triton.jit
def sign(x):
    # torch.sign: -1, 0 or 1, NaN stays NaN.
    s = tl.where(x > 0, 1.0, tl.where(x < 0, -1.0, 0.0)).to(x.dtype)
    return tl.where(x != x, x, s)


@triton.jit
def sin(x):
    return libdevice.sin(x)


@triton.jit
def cos(x):
    return libdevice.cos(x)


@triton.jit
def tanh(x):
    return libdevice.tanh(x)


@triton.jit
def atan(x):
    return libdevice.atan(x)


@triton.jit
def erf(x):
    return libdevice.erf(x)


@triton.jit
def erfc(x):
    return libdevice.erfc(x)


@triton.jit
def sinpi(x):
    # libdevice's sinpi reduces the argument exactly (as the torch backend's sinpi does)
    return libdevice.sinpi(x)


@triton.jit
def cospi(x):
    return libdevice.cospi(x)


@triton.jit
def erfcx(x):
    return libdevice.erfcx(x)


@triton.jit
def isnan(x):
    return x != x


@triton.jit
def square(x):
    return x * x


@triton.jit
def pow(x, n):
    return libdevice.pow(x, tl.zeros_like(x) + n)


# --- sigmoid family, each without overflow or cancellation ---


@triton.jit
def sigmoid(x):
    # 1/(1+e^-x) for x >= 0; e^x/(1+e^x) for x < 0: the exponential never overflows. float32 blocks take
    # nonlin.ops.torch_compiled.sigmoid_float32's form (low parts carried: <= 1.1 ULP where this is 1.9)
    if x.dtype == tl.float32:
        return _sigmoid_float32(x)
    e = libdevice.exp(-tl.abs(x))
    return tl.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


# sigmoid_float32's constants (nonlin.ops.torch_compiled)
_LOG2E = tl.constexpr(1.4426950408889634)
_LN2_HI = tl.constexpr(45426.0 / 65536.0)
_LN2_LO = tl.constexpr(1.4286067653301870e-06)  # float32(ln 2 - _LN2_HI)
_TWO_M64 = tl.constexpr(2.0**-64)


@triton.jit
def _sigmoid_float32(x):
    z = tl.maximum(-tl.abs(x), -104.0)
    k = tl.floor(z * _LOG2E + 0.5)
    rh = z - k * _LN2_HI
    rl = k * -_LN2_LO
    r = rh + rl
    r2 = rl - (r - rh)
    p = 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    u = (r * r) * p + (r2 + r2 * r)
    h = 1.0 + r
    lo = (r - (h - 1.0)) + u
    eh = h + lo
    el = lo - (eh - h)
    scale = ((k + 191.0) * 8388608.0).to(tl.int32).to(tl.float32, bitcast=True)  # 2^(k + 64)
    two_k = scale * _TWO_M64
    e1 = eh * two_k
    s = 1.0 + e1
    c = (e1 - (s - 1.0)) + el * two_k
    qs = eh / s
    corr = (el - qs * c) * (1.0 - qs * two_k)
    neg = ((qs + corr) * scale) * _TWO_M64
    q = qs * two_k
    hp = 1.0 - q
    pos = hp + (((1.0 - hp) - q) - corr * two_k)
    return tl.where(x != x, x, tl.where(x >= 0, pos, neg))


@triton.jit
def softplus(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, full relative accuracy in both tails.
    return tl.maximum(x, 0.0) + libdevice.log1p(libdevice.exp(-tl.abs(x)))


@triton.jit
def log_sigmoid(x):
    return -softplus(-x)


@triton.jit
def sech2(x):
    # 1 - tanh(x)^2 cancels for |x| > ~1; 4t/(1+t)^2 with t = e^{-2|x|} does not.
    t = libdevice.exp(-2.0 * tl.abs(x))
    return 4.0 * t / ((1.0 + t) * (1.0 + t))


@triton.jit
def norm_cdf(x):
    # Phi(x) = erfc(-x/sqrt2)/2: no cancellation in the left tail.
    return 0.5 * libdevice.erfc(-x * SQRT1_2)


@triton.jit
def norm_pdf(x):
    return INV_SQRT_2PI * libdevice.exp(-0.5 * x * x)


# --- piecewise ---


@triton.jit
def where(cond, a, b):
    return tl.where(cond, a, b)


@triton.jit
def maximum(x, y):
    # torch.clamp_min / torch.maximum propagate NaN from x; tl.maximum's NaN handling is backend-defined.
    return tl.where(x != x, x, tl.where(x >= y, x, y))


@triton.jit
def minimum(x, y):
    return tl.where(x != x, x, tl.where(x <= y, x, y))


@triton.jit
def clamp(x, lo, hi):
    return minimum(maximum(x, lo), hi)


@triton.jit
def indicator(cond, like):
    """1.0 where cond, else 0.0, NaN where `like` is NaN (so NaN in gives NaN out)."""
    zero = tl.zeros_like(like)
    return tl.where(like != like, like, tl.where(cond, zero + 1.0, zero))


@triton.jit
def gated(x, g):
    """x * g where a gate that underflowed to exactly 0 closes: 0 even for infinite x (the limit)."""
    return tl.where(g == 0, tl.zeros_like(x * g), x * g)


@triton.jit
def swish(x, beta):
    """x sigma(beta x), gated."""
    return gated(x, sigmoid(beta * x))


@triton.jit
def swiglu(g, v, beta):
    """swish(g, beta) v."""
    return swish(g, beta) * v


@triton.jit
def swish_grad(x, beta):
    """d/dx x sigma(beta x) = s (1 + bx sigma(-bx)), gated as TorchOps.swish_grad."""
    bx = beta * x
    return gated(1.0 + gated(bx, sigmoid(-bx)), sigmoid(bx))


@triton.jit
def _sin_cos_of_product(x, w):
    """(sin(w x), cos(w x)) of the exact product: p = w x rounded, e = w x - p by the FMA (the interpreter's fma
    is not fused: e = 0 there), sin(p + e) = sin p cos e + cos p sin e (TorchOps.sin_of_product). Where the
    product overflows the compute dtype (bf16 inputs compute in float32: siren's 30 x from 1.1e37) the same
    two calls take t = (w / 32) x and five double-angle steps give sin(32 t) (each doubles the error: 2^-19 of
    float32, in those lanes only); an infinite x stays NaN."""
    p = w * x
    d = p - p
    over = d != d  # p is inf (or NaN, which ws x keeps)
    ws = tl.where(over, w * 0.03125, tl.zeros_like(p) + w)
    p = tl.where(over, ws * x, p)
    e = tl.fma(ws, x, -p)
    sp = libdevice.sin(p)
    cp = libdevice.cos(p)
    se = libdevice.sin(e)
    ce = libdevice.cos(e)
    s = sp * ce + cp * se
    c = cp * ce - sp * se
    s2 = s
    c2 = c
    for _ in tl.static_range(5):
        s2, c2 = 2.0 * s2 * c2, (c2 - s2) * (c2 + s2)
    return tl.where(over, s2, s), tl.where(over, c2, c)


@triton.jit
def sin_of_product(x, w):
    """sin(w x) of the exact product (see _sin_cos_of_product)."""
    s, _ = _sin_cos_of_product(x, w)
    return s


@triton.jit
def cos_of_product(x, w):
    """cos(w x) of the exact product (see _sin_cos_of_product)."""
    _, c = _sin_cos_of_product(x, w)
    return c


@triton.jit
def keep(cond, x):
    """x where cond, else 0; NaN in x stays NaN and -inf outside cond gives 0 (not -inf * 0)."""
    return tl.where(cond | (x != x), x, tl.zeros_like(x))


@triton.jit
def full_like(x, value):
    return tl.zeros_like(x) + value


@triton.jit
def zeros_like(x):
    return tl.zeros_like(x)


@triton.jit
def ones_like(x):
    return tl.zeros_like(x) + 1.0


# --- composites, written out (the interpreter rejected the comparisons inside nested gated/norm_pdf calls) ---


@triton.jit
def gelu_tanh(x):
    """x sigma(u), u = 2 sqrt(2/pi)(x + 0.044715 x^3) (nonlin.catalog.smooth.gelu_tanh_formula, no tail shift)."""
    # 2 sqrt(2/pi) written as a literal: a tl.constexpr factor made sigmoid's argument a constexpr (no .dtype)
    s = sigmoid(1.5957691216057308 * (x + 0.044715 * x * x * x))
    return tl.where(s == 0, tl.zeros_like(x * s), x * s)


@triton.jit
def gelu_tanh_grad(x):
    u = 1.5957691216057308 * (x + 0.044715 * x * x * x)
    du = 1.5957691216057308 * (1.0 + 3.0 * 0.044715 * x * x)
    sn = sigmoid(-u)
    s = sigmoid(u)
    a = 1.0 + tl.where(sn == 0, tl.zeros_like(x * du * sn), x * du * sn)
    return tl.where(s == 0, tl.zeros_like(a * s), a * s)


@triton.jit
def gelu_grad(x):
    """Phi(x) + x phi(x), keeping the x phi(x) term's zero where both underflow (see TorchOps.gelu_grad)."""
    p = INV_SQRT_2PI * libdevice.exp(-0.5 * x * x)
    t = tl.where(p == 0, tl.zeros_like(x * p), x * p)
    y = 0.5 * libdevice.erfc(-x * SQRT1_2) + t
    return tl.where((y == 0) & (t == 0), t, y)


@triton.jit
def mish(x):
    """x tanh(softplus(x)), gated (nonlin.catalog.smooth.mish_formula, no tail shift)."""
    g = tanh(softplus(x))
    return tl.where(g == 0, tl.zeros_like(x * g), x * g)


@triton.jit
def mish_grad(x):
    """tanh(sp) + x sech^2(sp) sigma(x), the second term gated and its zero kept (nonlin.catalog.smooth.mish_grad_formula)."""
    sp = softplus(x)
    g = sech2(sp) * sigmoid(x)
    t = tl.where(g == 0, tl.zeros_like(x * g), x * g)
    y = tanh(sp) + t
    return tl.where((y == 0) & (t == 0), t, y)


# --- storage ---


@triton.jit
def to_bf16_rne(x):
    """float32 -> bfloat16 rounded to nearest even, by bit arithmetic.

    Written out so that the interpreter (whose conversion truncates) and the GPU round identically; NaN
    maps to the canonical quiet NaN instead of letting the rounding carry into the sign bit.
    """
    u = x.to(tl.uint32, bitcast=True)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    r = tl.where(x != x, 0x7FC0, r)
    return r.to(tl.uint16).to(tl.bfloat16, bitcast=True)


class TritonOps:
    """The namespace as an object, for parity with `TorchOps` (`tests/kernels` checks every primitive of
    the torch backend has a device function here). Kernels call the module functions through ``tb.``."""

    name = "triton"
    pi = PI


for _name in [
    "exp",
    "expm1",
    "log",
    "log1p",
    "sqrt",
    "abs",
    "sign",
    "sin",
    "cos",
    "tanh",
    "atan",
    "erf",
    "erfc",
    "sinpi",
    "cospi",
    "erfcx",
    "isnan",
    "square",
    "pow",
    "sigmoid",
    "softplus",
    "log_sigmoid",
    "sech2",
    "norm_cdf",
    "norm_pdf",
    "gelu_grad",
    "gelu_tanh",
    "gelu_tanh_grad",
    "mish",
    "mish_grad",
    "where",
    "maximum",
    "minimum",
    "clamp",
    "indicator",
    "gated",
    "swish",
    "swiglu",
    "swish_grad",
    "sin_of_product",
    "cos_of_product",
    "keep",
    "full_like",
    "zeros_like",
    "ones_like",
]:
    setattr(TritonOps, _name, globals()[_name])

TRITON = TritonOps()
