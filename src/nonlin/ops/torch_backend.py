"""Torch backend of the math namespace: stable primitives on tensors of the compute dtype."""

from __future__ import annotations

import math

import torch

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


# Dekker's two-product without an FMA: Veltkamp's c v - (c v - v) keeps the top half of v's bits, c = 2^s + 1
# (float64: s = 27, halves of 26 and 27 bits; float32: s = 12). From `limit` on c v would overflow: v is
# split scaled by 2^-shift (exact). `product_limit`: |a b| below which no partial product overflows (each is
# within a factor 1 + 2^-11 of |a b|).
_SPLITTERS = {
    torch.float64: (134217729.0, 2.0**990, 32, float(torch.finfo(torch.float64).max) * (1 - 2.0**-10)),
    torch.float32: (4097.0, 2.0**110, 16, float(torch.finfo(torch.float32).max) * (1 - 2.0**-10)),
}


def _split_float(v: float, bits: int) -> tuple[float, float]:
    """Python float v = hi + lo exactly, hi with at most `bits` significant bits (pure Python: constants while
    dynamo traces)."""
    if v == 0.0 or not math.isfinite(v):
        return v, 0.0
    m, e = math.frexp(v)
    hi = math.ldexp(math.trunc(m * 2.0**bits), e - bits)
    return hi, v - hi


def _round_to_float32(v: float) -> float:
    """Python float v rounded to float32 (nearest, ties to even; normal range)."""
    if v == 0.0 or not math.isfinite(v):
        return v
    m, e = math.frexp(v)
    return math.ldexp(round(m * 2.0**24), e - 24)


def _split_tensor(v, c: float, limit: float, shift: int):
    big = torch.abs(v) >= limit
    vs = torch.where(big, v * 2.0**-shift, v)
    t = vs * c
    hi = t - (t - vs)
    scale = torch.where(big, 2.0**shift, 1.0)
    return hi * scale, (vs - hi) * scale


def mul_error(a, b):
    """a b - fl(a b) for a float64 or float32 tensor b and a Python float or tensor a: exact where a and b
    are floats of b's dtype (Dekker's two-product: no FMA on every CPU), to that dtype's precision where a
    is a Python float with more bits (its residual a - fl(a) contributes its own product). 0 where the
    product is not finite or a partial product would overflow (within 2^-10 of the dtype's largest float)."""
    c, limit, shift, product_limit = _SPLITTERS.get(b.dtype, _SPLITTERS[torch.float64])
    bh, bl = _split_tensor(b, c, limit, shift)
    residual = 0.0
    if isinstance(a, int | float):
        a_rounded = float(a) if b.dtype == torch.float64 else _round_to_float32(float(a))
        ah, al = _split_float(a_rounded, 26 if b.dtype == torch.float64 else 12)
        residual = float(a) - a_rounded  # 0 in float64; a's bits past float32's otherwise
    else:
        a_rounded = a
        ah, al = _split_tensor(a, c, limit, shift)
    p = a_rounded * b
    ok = torch.abs(p) < product_limit  # also False for inf and NaN, whose split is NaN
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    if residual:
        e = e + residual * b
    return torch.where(ok, e, torch.zeros_like(e))


def _toward_zero_where_equal(s, p):
    return torch.where((s == p) & (p != 0), torch.nextafter(s, torch.zeros_like(s)), s)


_PRECISION_BITS = {torch.float64: 53, torch.float32: 24, torch.float16: 11, torch.bfloat16: 8}


def _significant_bits(v: float) -> int:
    m, _ = math.frexp(abs(v))
    n = 0
    while m != math.floor(m):
        m *= 2.0
        n += 1
    return max(n, 1)


# sin(e) and cos(e) of a product's rounding error e by Taylor's series where |e| <= 1/16 (the next terms,
# e^9/9! and e^10/10!, are below 2^-55), by the functions beyond (only where |w x| > 2^49 in float64)
_SIN_SMALL = (1.0, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0)
_COS_SMALL = (1.0, -0.5, 1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0)
_SMALL_ERROR = 1.0 / 16.0
# Beyond the largest float w x itself overflows: there sin(w x) is sin(2^5 t) of t = (w / 2^5) x, by five
# double-angle steps (each doubles the absolute error: ~2^-48 of float64, 2^-19 of float32, in those lanes)
_DOUBLINGS = 5


def _poly(t, coefficients):
    acc = torch.full_like(t, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        acc = acc * t + c
    return acc


def sin_cos_of_product(x, w, io_dtype: torch.dtype | None, want: str, narrower_output: bool = False):
    """sin(w x) (`want` "sin") or cos(w x) ("cos") of the exact product, x a float64 or float32 tensor.

    The rounded p = w x is off by e = w x - p, |e| <= ulp(p)/2: sin(p) alone is off by |e cos p| ~ |w x| 2^-53,
    which near a zero of sin is its whole value, and beyond |w x| = 2^53 |e| exceeds 1, so no first-order
    correction is left: sin(p + e) = sin p cos e + cos p sin e. `io_dtype`, the dtype x was converted from
    (None: unknown), lets a constant w skip what cannot happen: the product is exact when w's and the input's
    significant bits fit in x's dtype (siren's w = 30 on float32 or half inputs), and it cannot overflow when
    |w| times the input dtype's largest float is below x's.

    `narrower_output`: the result is rounded again to a narrower dtype (half inputs computed in float32). Where
    sin(p) of an exact p rounds to p itself (|p| < ~2^-12), the true sine is strictly between p and its
    neighbour toward zero, and a 12-bit product rounded to 8 bits lands on a midpoint (siren's 30 x: 0.7% of
    bf16 inputs misrounded by ties to even); the neighbour rounds the right way."""
    compute_max = float(torch.finfo(x.dtype).max)
    constant = isinstance(w, int | float)
    io_bits = _PRECISION_BITS[io_dtype if io_dtype is not None else x.dtype]
    exact = constant and _significant_bits(float(w)) + io_bits <= _PRECISION_BITS[x.dtype]
    can_overflow = not (constant and io_dtype is not None and abs(w) * float(torch.finfo(io_dtype).max) < compute_max)
    p = w * x
    w_scaled = w * 2.0**-_DOUBLINGS
    if can_overflow:
        over = torch.abs(p) > compute_max  # w x overflowed (x finite), or x is infinite (sin stays NaN)
        p = torch.where(over, w_scaled * x, p)
    if exact and not can_overflow:
        if want == "cos":
            return torch.cos(p)
        s = torch.sin(p)
        return _toward_zero_where_equal(s, p) if narrower_output else s
    sp, cp = torch.sin(p), torch.cos(p)
    if exact:
        s, c = sp, cp
    else:
        e = mul_error(w, x)
        if can_overflow:
            e = torch.where(over, mul_error(w_scaled, x), e)
        small = torch.abs(e) <= _SMALL_ERROR
        es = torch.where(small, e, torch.zeros_like(e))
        e2 = es * es
        sin_e = torch.where(small, es * _poly(e2, _SIN_SMALL), torch.sin(e))
        cos_e = torch.where(small, _poly(e2, _COS_SMALL), torch.cos(e))
        s, c = sp * cos_e + cp * sin_e, cp * cos_e - sp * sin_e
        if want == "sin":  # sin(-0) = -0, where -0 + (+0) is +0; a zero p is the product itself
            s = torch.where(p == 0, p, s)
    if exact and narrower_output and want == "sin":
        s = _toward_zero_where_equal(s, p)
    if can_overflow:
        s2, c2 = s, c
        for _ in range(_DOUBLINGS):
            s2, c2 = 2.0 * s2 * c2, (c2 - s2) * (c2 + s2)
        s, c = torch.where(over, s2, s), torch.where(over, c2, c)
    return s if want == "sin" else c


def _compiling_on_cpu(x) -> bool:
    return torch.compiler.is_compiling() and isinstance(x, torch.Tensor) and x.device.type == "cpu"


def _compiled_form(name: str, x):
    from nonlin.ops.torch_compiled import COMPILED_TORCH  # imports this module

    return getattr(COMPILED_TORCH, name)(x)


def _sech2_from_float32_exp(t):
    """sech^2 from t = e^{-2|x|} computed in float32: the four roundings of 4t / (1 + t)^2 in float32 arithmetic
    reach 4.11 ULP (x = -2.42, tanh's backward on dense inputs), so the quotient is assembled in float64 and
    rounded once: the float32 exp's error and that rounding (about 1.5 ULP)."""
    w = t.double()
    return (4.0 * w / torch.square(1.0 + w)).to(t.dtype)


class TorchOps:
    """Primitives on torch tensors. Scalars mixed with tensors take the tensor's dtype."""

    name = "torch"
    pi = math.pi

    # --- elementary ---
    exp = staticmethod(torch.exp)
    log = staticmethod(torch.log)
    log1p = staticmethod(torch.log1p)
    sqrt = staticmethod(torch.sqrt)
    abs = staticmethod(torch.abs)
    tanh = staticmethod(torch.tanh)
    atan = staticmethod(torch.atan)
    erfc = staticmethod(torch.special.erfc)

    # Primitives that inductor's C++ backend compiles inaccurately (nonlin.ops.torch_compiled, sech2 too): traced
    # by torch.compile on CPU (a model's eager formulas inside the caller's graph), they take its forms.
    @staticmethod
    def expm1(x):
        return _compiled_form("expm1", x) if _compiling_on_cpu(x) else torch.expm1(x)

    @staticmethod
    def erf(x):
        return _compiled_form("erf", x) if _compiling_on_cpu(x) else torch.special.erf(x)

    @staticmethod
    def sin(x):
        return _compiled_form("sin", x) if _compiling_on_cpu(x) else torch.sin(x)

    @staticmethod
    def cos(x):
        return _compiled_form("cos", x) if _compiling_on_cpu(x) else torch.cos(x)

    @staticmethod
    def _half_turns(x):
        """x - 2 round(x/2) in [-1, 1]: exact (x/2, its rounding and the difference lose nothing), so sin(pi x)
        and cos(pi x) never see a rounded multiple of pi; inf gives NaN, as sin(inf) does."""
        return x - 2.0 * torch.round(0.5 * x)

    @staticmethod
    def sinpi(x):
        # fold r in [-1, 1] to [-1/2, 1/2] (sin(pi r) = sin(pi (+-1 - r)), exact by Sterbenz): pi s is rounded
        # once, relatively, so sin(pi x) keeps full relative accuracy at its zeros (the integers)
        r = TorchOps._half_turns(x)
        s = torch.where(r > 0.5, 1.0 - r, torch.where(r < -0.5, -1.0 - r, r))
        return TorchOps.sin(math.pi * s)

    @staticmethod
    def cospi(x):
        # cos(pi r) = sin(pi (1/2 - |r|)); 1/2 - |r| is exact for |r| >= 1/4, where the zeros (+-1/2) are
        r = TorchOps._half_turns(x)
        return TorchOps.sin(math.pi * (0.5 - torch.abs(r)))

    @staticmethod
    def erfcx(x):
        # e^{x^2} erfc(x): the scaled complementary error function (log_ndtr's left tail)
        return torch.special.erfcx(x)

    @staticmethod
    def isnan(x):
        # x != x is isnan bit for bit, and inductor vectorises it; torch.isnan compiles to a scalar loop
        # through a stack buffer, which made the fused relu backward 2-3x slower than its memory traffic.
        return x != x

    @staticmethod
    def sign(x):
        # torch.sign(NaN) is 0; IEEE and the reference say NaN.
        return torch.where(TorchOps.isnan(x), x, torch.sign(x))

    @staticmethod
    def square(x):
        return x * x

    @staticmethod
    def pow(x, n):
        return torch.pow(x, n)

    # --- sigmoid family, each without overflow or cancellation ---
    @staticmethod
    def sigmoid(x):
        # torch.sigmoid is 1/(1+e^-x): e^-x overflows for x < -88.7 in float32 (-709.8 in float64), flushing
        # results that are still representable (sigmoid(-89) = 2.2e-39 in float32; in float64 the subnormal
        # tail carries the sign of products like x sigma(x)). e^x/(1+e^x) below zero does not overflow.
        t = torch.exp(-torch.abs(x))
        r = 1.0 / (1.0 + t)
        return torch.where(x >= 0, r, t * r)

    @staticmethod
    def softplus(x):
        # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, full relative accuracy in both tails.
        return torch.clamp_min(x, 0) + torch.log1p(torch.exp(-torch.abs(x)))

    @staticmethod
    def log_sigmoid(x):
        return -TorchOps.softplus(-x)

    @staticmethod
    def sech2(x):
        # 1 - tanh(x)^2 cancels for |x| > ~1; 4t/(1+t)^2 with t = e^{-2|x|} does not. Inductor's vector code
        # rounds the latter above 1 near 0 (nonlin.ops.torch_compiled), so traced on CPU it takes that form.
        if _compiling_on_cpu(x):
            return _compiled_form("sech2", x)
        t = torch.exp(-2.0 * torch.abs(x))
        if x.dtype == torch.float32:
            return _sech2_from_float32_exp(t)
        return 4.0 * t / torch.square(1.0 + t)

    @staticmethod
    def norm_cdf(x):
        # Phi(x) = erfc(-x/sqrt2)/2: no cancellation in the left tail, unlike (1 + erf(x/sqrt2))/2.
        return 0.5 * torch.special.erfc(-x / _SQRT2)

    @staticmethod
    def norm_pdf(x):
        return _INV_SQRT_2PI * torch.exp(-0.5 * x * x)

    def gelu_tanh(self, x):
        """x sigma(2 sqrt(2/pi)(x + 0.044715 x^3)), the tanh form of GELU (nonlin.catalog.smooth's formula)."""
        from nonlin.catalog.smooth import gelu_tanh_formula  # the catalog imports this module

        return gelu_tanh_formula(self, x)

    def gelu_tanh_grad(self, x):
        from nonlin.catalog.smooth import gelu_tanh_grad_formula

        return gelu_tanh_grad_formula(self, x)

    def mish(self, x):
        """x tanh(softplus(x)), gated (nonlin.catalog.smooth's formula); torch_compiled.mish_float32 for float32."""
        from nonlin.catalog.smooth import mish_formula

        return mish_formula(self, x)

    def mish_grad(self, x):
        """tanh(sp) + x sech^2(sp) sigma(x), sp = softplus(x), the zero of the left tail signed (the formula's)."""
        from nonlin.catalog.smooth import mish_grad_formula

        return mish_grad_formula(self, x)

    def gelu_grad(self, x):
        """Phi(x) + x phi(x), the derivative of x Phi(x). Where both terms underflow (x < -38 in float64) the
        sum is +0 + -0 = +0 while the true value is negative: the signed zero of the x phi(x) term is kept."""
        t = self.gated(x, self.norm_pdf(x))
        y = self.norm_cdf(x) + t
        return torch.where((y == 0) & (t == 0), t, y)

    # --- piecewise ---
    @staticmethod
    def where(cond, a, b):
        return torch.where(cond, a, b)

    @staticmethod
    def maximum(x, y):
        return torch.clamp_min(x, y) if not isinstance(y, torch.Tensor) else torch.maximum(x, y)

    @staticmethod
    def minimum(x, y):
        return torch.clamp_max(x, y) if not isinstance(y, torch.Tensor) else torch.minimum(x, y)

    @staticmethod
    def clamp(x, lo, hi):
        return TorchOps.minimum(TorchOps.maximum(x, lo), hi)

    @staticmethod
    def indicator(cond, like):
        """1.0 where cond, else 0.0, NaN where `like` is NaN (so NaN in gives NaN out)."""
        one = torch.ones_like(like)
        out = torch.where(cond, one, torch.zeros_like(like))
        return torch.where(TorchOps.isnan(like), like, out)

    @staticmethod
    def gated(x, g):
        """x * g where a gate that underflowed to exactly 0 closes: 0 even for infinite x (the limit).

        The zero carries x's sign (gates are >= 0): x * g is a tiny number of that sign that underflowed,
        and nonlin.accuracy checks the sign of underflowed results."""
        if not isinstance(g, torch.Tensor):
            return torch.copysign(torch.zeros_like(x), x) if g == 0 else x * g
        xg = x * g
        return torch.where(g == 0, torch.copysign(torch.zeros_like(xg), x), xg)

    def swish(self, x, beta):
        """x sigma(beta x), gated (see `gated`), float64's subnormal tail rounded once (nonlin.catalog.smooth's
        formula); compiled float32 namespaces fuse it (torch_compiled.swish_float32)."""
        from nonlin.catalog.smooth import swish_formula

        return swish_formula(self, x, beta)

    def swiglu(self, g, v, beta):
        """g sigma(beta g) v (swish(g, beta) times v); compiled float32 namespaces round it once
        (torch_compiled.swiglu_float32)."""
        return self.swish(g, beta) * v

    def swish_grad(self, x, beta):
        """d/dx x sigma(beta x) = s (1 + bx sigma(-bx)), s = sigma(bx) (nonlin.catalog.smooth's formula);
        torch_compiled.swish_grad_float32 for float32 at the betas it fits."""
        from nonlin.catalog.smooth import swish_grad_formula

        return swish_grad_formula(self, x, beta)

    @staticmethod
    def sin_of_product(x, w):
        """sin(w x) of the exact product of x and w (a Python float or a tensor): see `sin_cos_of_product`."""
        return sin_cos_of_product(x, w, None, "sin")

    @staticmethod
    def cos_of_product(x, w):
        """cos(w x) of the exact product (see `sin_cos_of_product`)."""
        return sin_cos_of_product(x, w, None, "cos")

    @staticmethod
    def keep(cond, x):
        """x where cond, else 0; NaN in x stays NaN and -inf outside cond gives 0 (not -inf * 0)."""
        return torch.where(cond | TorchOps.isnan(x), x, torch.zeros_like(x))

    @staticmethod
    def full_like(x, value):
        return torch.full_like(x, value)

    @staticmethod
    def zeros_like(x):
        return torch.zeros_like(x)

    @staticmethod
    def ones_like(x):
        return torch.ones_like(x)


TORCH = TorchOps()
