"""Torch backend of the math namespace: stable primitives on tensors of the compute dtype."""

from __future__ import annotations

import math

import torch

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


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

    @staticmethod
    def swish(x, beta):
        """x sigma(beta x), gated (see `gated`); compiled float32 namespaces fuse it (torch_compiled.swish_float32)."""
        return TorchOps.gated(x, TorchOps.sigmoid(beta * x))

    @staticmethod
    def swiglu(g, v, beta):
        """g sigma(beta g) v (swish(g, beta) times v); compiled float32 namespaces round it once
        (torch_compiled.swiglu_float32)."""
        return TorchOps.swish(g, beta) * v

    @staticmethod
    def swish_grad(x, beta):
        """d/dx x sigma(beta x) = s (1 + bx sigma(-bx)), s = sigma(bx): where s underflows, a zero with the sign of
        the true (negative) value (see catalog.smooth._swish_grad); torch_compiled.silu_grad_float32 for beta = 1."""
        bx = beta * x
        return TorchOps.gated(1.0 + TorchOps.gated(bx, TorchOps.sigmoid(-bx)), TorchOps.sigmoid(bx))

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
