"""The torch backend as inductor compiles it on CPU: these primitives take forms whose compiled code is as
accurate as the eager op. The fused CPU path's generated functions call this namespace.

Inductor's C++ code generator (torch 2.13) compiles these inaccurately, in its vectorised loops:
- `expm1` becomes `exp(x) - 1` ("decompose for a better performance"), in float32 and float64: every
  |x| below ~6e-8 (float32) or ~1e-16 (float64) gives 0, and the relative error grows as x shrinks
  (1e-10 -> 1.00000008e-10 in float64). elu, selu and celu use it.
- float32 `erf` becomes ATen's `Vectorized<float>::erf`, a fit with 1.5e-7 absolute error: erf(1e-12) = 0.
- float32 `sin` and `cos` become Sleef's vector functions, up to 2-3 ULP at large arguments where the eager
  ops are within 0.6 (enough to put gcu's float32 forward over its 2 ULP goal).
  These three run as the eager ATen kernels, in an op inductor cannot lower (`eager_float32`): 1.0, 0.6 and
  0.6 ULP, vectorised, where the float64 detour they took before cost 3-7x the op (4M elements, one core).
- `clamp_min(x, 0)` and `clamp_max` become the vector max and min, which return the bound on a tie: +0 at
  x = -0, where ATen keeps x (-0) on every ISA. `maximum` and `minimum` against a number are a comparison and a
  select here (tests/kernels/test_signed_zeros.py).
- float64 `erfc` becomes a scalar call per element (a loop over std::erfc inside the vector code: ~26 ns per
  element, 80% of gelu's fused time). For float32 and half inputs computed in float64 (`ops_for`), the
  functions use Cephes' rational forms as arithmetic and one exp, which inductor vectorises (1.7x faster
  here; ~1e-14 relative, far below a float32 ULP, but not float64-accurate: float64 inputs keep the op).
The float32 forms go through float64 (0.5 ULP once rounded to float32), at about twice the cost of the
float32 op.
- `sech2`'s 4t / (1 + t)^2 (t = e^{-2|x|}) rounds four times on a result near 1; compiled, with the
  vector ISA's division and FMA contraction, float32 sech2(2.23e-7) was 1.0000001 (2 ULP, and above 1,
  where sech^2 never is) on AVX2 and AVX-512 (eager: exactly 1). The form is clamped to 1: one min,
  where 1 - tanh(x)^2 near 0 cost 3x the whole primitive compiled.
tests/kernels/test_compiled_primitives.py measures every primitive of this namespace, compiled, against
mpmath and the eager ops; the forms below are what passes it. The generated CPU functions call them
compiled or not (backend "python"), so the precision tests measure what inductor compiles; the torch
backend itself switches to them while torch.compile traces on CPU (eager formulas in a user's graph).
"""

from __future__ import annotations

import math

import torch

from nonlin.ops.torch_backend import _INV_SQRT_2PI, TorchOps, _sech2_from_float32_exp, sin_cos_of_product

# Cephes' erfc (ndtr.c, as in scipy and ATen's scalar calc_erfc): erfc(x) = e^{-x^2} P(x)/Q(x) on [1, 8),
# e^{-x^2} R(x)/S(x) from 8, 1 - x T(x^2)/U(x^2) below 1; 5.7e-14 peak relative error. Q, S, U have a
# leading 1.
_ERFC_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0, 4.86371970985681366614e1,
           1.96520832956077098242e2, 5.26445194995477358631e2, 9.34528527171957607540e2, 1.02755188689515710272e3,
           5.57535335369399327526e2)  # fmt: skip
_ERFC_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2, 9.75708501743205489753e2,
           1.82390916687909736289e3, 2.24633760818710981792e3, 1.65666309194161350182e3, 5.57535340817727675546e2)  # fmt: skip
_ERFC_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0, 6.16021097993053585195e0,
           7.40974269950448939160e0, 2.97886665372100240670e0)  # fmt: skip
_ERFC_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1, 1.70814450747565897222e1,
           9.60896809063285878198e0, 3.36907645100081516050e0)  # fmt: skip
_ERF_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3, 7.00332514112805075473e3,
          5.55923013010394962768e4)  # fmt: skip
_ERF_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3, 2.26290000613890934246e4,
          4.92673942608635921086e4)  # fmt: skip


_EXP_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(13, -1, -1))  # e^t, highest degree first
_EXPM1_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(8, 1, -1))  # (e^t - 1 - t) / t^2


def _horner(x, coefficients):
    y = coefficients[0] + 0.0 * x
    for c in coefficients[1:]:
        y = y * x + c
    return y


def erfc_float64(a):
    """float64 erfc as arithmetic, one exp and one division, so that inductor vectorises it: its own float64
    erfc is a scalar call per element (~26 ns here, 80% of gelu's fused time). Every branch is evaluated and
    the ratio chosen per element before the one division. Same algorithm and accuracy as the eager op."""
    x = torch.abs(a)
    # erfc(30) = 2e-393 underflows; a comparison keeps the polynomials finite at inf and NaN (inductor's
    # vector clamp passes inf through under avx2; the non-finite inputs are set at the end).
    xc = torch.where(x < 30.0, x, 30.0)
    mid = x < 8.0
    p = torch.where(mid, _horner(xc, _ERFC_P), _horner(xc, _ERFC_R))
    q = torch.where(mid, _horner(xc, _ERFC_Q), _horner(xc, _ERFC_S))
    # e^{-x^2} without the rounding of x^2 (7e-14 relative at x = 25, ~1000 ULP, where the eager op is within
    # 0.2): x = m + f with m on a 1/128 grid, so m^2 is exact and e^{-x^2} = e^{-m^2} e^{-(2m f + f^2)}, the
    # second factor a Taylor polynomial (|2m f + f^2| < 0.24; the first omitted term is below 2^-59).
    m = torch.round(xc * 128.0) / 128.0
    f = xc - m
    u1 = (2.0 * m + f) * f
    gauss = torch.exp(-(m * m)) * _horner(-u1, _EXP_TAYLOR)
    num = gauss * p  # erfc(|a|) = num / q
    num = torch.where(a < 0, 2.0 * q - num, num)  # erfc(-x) = 2 - erfc(x)
    z = a * a
    small = x < 1.0
    u = _horner(z, _ERF_U)
    num = torch.where(small, u - a * _horner(z, _ERF_T), num)  # 1 - erf(a) = (U - a T) / U
    y = num / torch.where(small, u, q)
    y = torch.where(x == math.inf, torch.where(a > 0, 0.0, 2.0), y)  # |a| == inf (isinf: a scalar loop)
    return torch.where(a != a, a, y)  # x != x: inductor compiles isnan as a scalar loop in its vector code


# ------------------------------------------------------------------ float32 erfc family (issue 12)
# Phi, phi and erfc of float32 tensors in float32 arithmetic (+, *, /, round, an integer shift), no libm
# call: inductor vectorises every operation at the full float32 width, and IEEE arithmetic gives the same
# bits on every ISA (inductor compiles with -ffp-contract=off; nothing here is an error-free transform that
# contraction could break). With a = |x| (exact):
# - e^{-c a^2} (c = 1/2 or 1): a = m + f, m on a 1/128 grid (m <= 16, so m^2 and c m^2 are exact in
#   float32), c a^2 = c m^2 + lo with lo = c (2m + f) f small; k = round((c m^2 + lo) / ln2) and
#   r = (k L1 - c m^2) + (k L2 - lo), L1 = _LN2_HI (16 bits, below: k L1 and the first difference exact), so
#   the rounded part of the exponent is only lo and k L2: e^{-c a^2} = (1 + s) 2^-k, s = e^r - 1 with
#   exp_neg_float32's fitted tail (|r| < 0.35, 2^-32.8). 2^-k is an exponent field (k <= 185 at the clamp:
#   2^(64-k) is normal; the final * 2^-64 is the one rounding into subnormals).
# - erfcx(a/sqrt2) = (1 + u q(t)) / (1 + a), u = a/(a + 4), t = 2u - 1, q of degree 10 fitted on a <= 16 (the
#   callers' clamp) by `tools/fit_erfcx_float32.py 10 4 16` (0.043 float32 ULP; erfcx is well conditioned, so
#   erfc's argument is never rounded: erfc(|x|/sqrt2) = e^{-a^2/2} erfcx(a/sqrt2) from the exact a).
# Measured (every 1021st float32 bit pattern with |x| < 17 and 4M points of [-16, 16], against scipy; eager =
# inductor bit for bit; tests/kernels/test_erfc_float32.py and test_gelu_forward_float32.py hold the bounds):
# Phi 2.46 float32 ULP, phi 1.38, erfc 3.08 (the rational's and the products' roundings; 2^-16 of a bf16
# ULP). For float32 outputs the `wide` forms assemble the last products in float64 and return float64, so
# that the caller's product (x Phi(x) in gelu) is rounded once, also where Phi(x) is subnormal in float32
# (x < -13.2): Phi 1.38, phi 0.89, x Phi(x) 1.29. (The Taylor-tail, degree-11 form before: the same to 0.02.)
_ERFCX_K = 4.0
_ERFCX_Q = (-6.207331171026453e-05, -0.00037193912430666387, 7.791462849127129e-05, 0.002800049027428031,
            -0.003946017939597368, -0.016096683219075203, 0.08783594518899918, -0.2166227549314499,
            0.33102506399154663, -0.27502676844596863, -0.11178717017173767)  # fmt: skip
# |x| beyond which the result is 0 in float32: e^{-a^2/2} (6e-56 at 16) and erfc (1.4e-54 at 11); both keep
# k <= 185, so 2^(64 - k) stays a normal float32
_PHI_LIMIT, _ERFC_LIMIT = 16.0, 11.0
_SCALE_BIAS = 64


def _poly(x, coefficients):
    y = coefficients[0] * x + coefficients[1]
    for c in coefficients[2:]:
        y = y * x + c
    return y


def _pow2(k):
    """2^k for integer-valued float32 k in [-126, 127], exact (test_float32_sigmoid.py checks every such k,
    eager and compiled). exp2, not the float's bits: inductor's vector code has no bit cast (it stores the
    vector, casts element by element and reloads; in sigmoid_float32 that loop took 1.4 of its 3.3
    ns/element, 4M float32 on one AVX-512 core), while exp2 is a vector function. exp2 of an integer is
    exact (Sleef's exp2f: rint leaves s = 0, the polynomial gives 1, then ldexp; libm's exp2f likewise),
    so the bits stay the same on every ISA."""
    return torch.exp2(k)


def _gauss_split(a, half: bool):
    """e^{-c a^2} for float32 0 <= a (c = 1/2 if `half`, a <= 16; else 1, a <= 11) as (s, p): e^{-c a^2} = (1 + s) p 2^-64."""
    m = torch.round(a * 128.0) * (1.0 / 128.0)
    f = a - m  # exact, |f| <= 1/256
    if half:
        hi, lo = 0.5 * (m * m), (m + 0.5 * f) * f
    else:
        hi, lo = m * m, (2.0 * m + f) * f
    # k from hi + lo, so that |r| <= ln2/2 + 2^-16 < 0.35: the fitted degree-5 tail of exp_neg_float32 holds
    # there, where the degree-7 Taylor tail (to r^9) it replaces covered |r| < 0.44 (k from hi alone). k L1 - hi stays
    # exact: both on the 2^-16 grid, |difference| < 1.
    k = torch.round((hi + lo) * (1.0 / math.log(2.0)))
    r = (k * _LN2_HI - hi) + (k * _LN2_LO - lo)
    s = r + (r * r) * _poly(r, _EXPM1_QUADRATIC)
    # 2^(64 - k) from the float's bits here, not _pow2's exp2: exp2 is a call to Sleef's vector function, and
    # in this kernel (many vectors live across the call, spilled) it cost ~1 ns/element more in gelu's wide
    # form, where the bit cast's scalar loop costs about 0.25 ns (measured, 4M float32, one AVX-512 core)
    p = ((127 + _SCALE_BIAS - k.to(torch.int32)) << 23).view(torch.float32)
    return s, p


def _erfcx_scaled(a):
    """(1 + a) erfcx(a / sqrt2) - 1 for float32 a >= 0 (the fit's u q(t))."""
    u = a / (a + _ERFCX_K)
    return u * _poly(2.0 * u - 1.0, _ERFCX_Q)


def _clamped(x, limit: float):
    a = torch.abs(x)
    return a, torch.where(a < limit, a, limit)  # NaN -> the limit; NaN is restored by callers


def norm_cdf_float32(x, wide: bool = False):
    """Phi(x) for float32 x; float64 result (rounded once, by the caller) if `wide`."""
    a, ac = _clamped(x, _PHI_LIMIT)
    s, p = _gauss_split(ac, half=True)
    q = _erfcx_scaled(ac)
    if wide:
        s, p, q, ac = s.double(), p.double(), q.double(), ac.double()
    w = 0.5 * (1.0 + (q + s + q * s)) / (1.0 + ac)  # Phi(-a) 2^(k - 64)
    w = (w * p) * 2.0**-_SCALE_BIAS
    w = torch.where(a < _PHI_LIMIT, w, 0.0)
    y = torch.where(x < 0, w, 1.0 - w)
    return torch.where(x != x, x.to(y.dtype), y)  # not isnan: a scalar loop in inductor's vector code


def norm_pdf_float32(x, wide: bool = False):
    """phi(x) = e^{-x^2/2} / sqrt(2 pi) for float32 x; float64 result if `wide`."""
    a, ac = _clamped(x, _PHI_LIMIT)
    s, p = _gauss_split(ac, half=True)
    if wide:
        s, p = s.double(), p.double()
    g = (_INV_SQRT_2PI + _INV_SQRT_2PI * s) * p * 2.0**-_SCALE_BIAS
    g = torch.where(a < _PHI_LIMIT, g, 0.0)
    return torch.where(x != x, x.to(g.dtype), g)


def erfc_float32(x):
    """erfc(x) for float32 x, float32 result: e^{-x^2} erfcx(|x|) with x^2 split exactly; erfcx's argument
    sqrt2 |x| (the fit's variable) is rounded, which a well-conditioned function does not amplify."""
    a, ac = _clamped(x, _ERFC_LIMIT)
    s, p = _gauss_split(ac, half=False)
    b = ac * math.sqrt(2.0)
    q = _erfcx_scaled(b)
    w = (1.0 + (q + s + q * s)) / (1.0 + b)
    w = (w * p) * 2.0**-_SCALE_BIAS
    w = torch.where(a < _ERFC_LIMIT, w, 0.0)
    y = torch.where(x < 0, 2.0 - w, w)
    return torch.where(x != x, x, y)


# gelu'(x) = Phi(x) + x phi(x) for float32 x. Its terms (~0.226 each) cancel at the zero x0 = -0.7517915...: any
# sum of them rounds to ~2^-26 absolute, 1.3e5 ULP at the float32 nearest x0. Near it (|x - x0_hi| < 1/4) the form
# is d (C0 + d p(d)), d = (x - x0_hi) - x0_lo (the first difference exact by Sterbenz), p of degree 6 fitted by
# tools/fit_gelu_grad_float32.py (0.0075 ULP); elsewhere e^{-a^2/2} (1 + q)/(2 (1 + a)) - a phi(a) with the
# pieces of norm_cdf_float32 (a = |x|, one _gauss_split for both terms): with |x - x0| >= 1/4 the cancellation
# costs under 1 ULP. Only +, -, *, /, round and a bit cast: the same bits on every ISA.
_GELU_X0_HI, _GELU_X0_LO = -0.7517915368080139, 1.211444988769017e-08
_GELU_C0 = 0.4314939923140469  # gelu''(x0)
_GELU_GRAD_P = (-0.0021519740112125874, 0.004458950366824865, 0.01941373385488987, -0.014769045636057854,
                -0.11400800198316574, -0.018199695274233818, 0.38828498125076294)  # fmt: skip
_GELU_ZONE = 0.25


def gelu_grad_float32(x, wide: bool = False):
    """Phi(x) + x phi(x) for float32 x (see the block comment); float64 result (rounded once, by the caller) if
    `wide`. The signed zero of the left tail (x phi(x) dominates) is kept; NaN stays NaN."""
    a, ac = _clamped(x, _PHI_LIMIT)
    s, p = _gauss_split(ac, half=True)
    q = _erfcx_scaled(ac)
    dh = x - _GELU_X0_HI
    d = dh - _GELU_X0_LO
    t = _poly(d, _GELU_GRAD_P)
    if wide:
        s, p, q, ac, t = s.double(), p.double(), q.double(), ac.double(), t.double()
        d = dh.double() - _GELU_X0_LO  # exact
    near = d * (_GELU_C0 + d * t)
    b = 0.5 * (1.0 + q) / (1.0 + ac) - ac * _INV_SQRT_2PI  # (Phi(-a) - a phi(a)) e^{a^2/2}
    w = (((1.0 + s) * b) * p) * 2.0**-_SCALE_BIAS  # one rounding into the subnormal range at most
    w = torch.where(a < _PHI_LIMIT, w, -0.0)
    y = torch.where(x < 0, w, 1.0 - w)
    y = torch.where(torch.abs(dh) < _GELU_ZONE, near, y)
    return torch.where(x != x, x.to(y.dtype), y)


# --- exp/sigmoid family in float32 arithmetic (float32 inputs computing in float32) ---
# float32 exp (Sleef's u10 vector function compiled: 0.96 ULP here) followed by 1/(1 + t) and t/(1 + t) rounds
# four times (sigmoid 1.93 ULP forward, its backward 4.31 on the checker's sample; with 1 + t compensated, still
# 1.90 forward: the exp's own error). The forms below carry the low parts instead: e^z = 2^k (eh + el) by
# Cody-Waite reduction (ln 2 = _LN2_HI + _LN2_LO, _LN2_HI with 16 significant bits so k _LN2_HI is exact for
# |k| < 256, and z - k _LN2_HI exact by Sterbenz) and a fitted polynomial whose 1 + r is kept as an exact sum,
# then 1 + e as an exact sum s + c, so sigma(-|x|) = (eh + el) / (s + c) rounds twice (the quotient and its
# first-order correction) and sigma(|x|) = 1 - that once more, exactly split: 1.0985 ULP at most over every 7th
# float32 in [-104, 17] with the Taylor tail (the fitted one: 1.0576 over every 97th there, as the Taylor tail;
# tests/kernels/test_float32_sigmoid.py holds it to 1.15), the same on every ISA
# (only +, -, *, /, round and exp2 of integers, which is exact: no rounded libm result). Cost, 4M float32 on one
# AVX-512 core, compiled, same process: 1.7-1.8 ns/element (3.3 with 2^k as a bit cast, which inductor's vector
# code runs as a scalar loop: `_pow2`), torch.sigmoid compiled 1.0; with the division's remainder taken exactly
# (Dekker's product, 0.75 ULP) 3.8 before that change. Error-free transformations need IEEE rounding of each
# operation: inductor compiles with -ffp-contract=off and without -funsafe-math-optimizations
# (torch._inductor.cpp_builder; its .so holds no FMA instruction); the test measures the compiled code too.
_LOG2E = 1.4426950408889634
_LN2_HI = 45426.0 / 65536.0  # 0.693145751953125: 16 significant bits
_LN2_LO = float(torch.tensor(math.log(2.0) - _LN2_HI, dtype=torch.float32))
# (e^r - 1 - r) / r^2 on |r| <= 0.35, degree 5: `python tools/fit_expm1_float32.py 5 0.35` (2^-32.8 of e^r;
# the Taylor polynomial to r^8 it replaces: 2^-32.2, one more term)
_EXPM1_QUADRATIC = (0.0001958599459612742, 0.0013936595059931278, 0.008333880454301834, 0.04166644811630249,
                    0.166666641831398, 0.5)  # fmt: skip
_TWO_M64 = 2.0**-64


def exp_neg_float32(z, floor: float = -104.0):
    """e^z for float32 z <= 0 as (eh, el, scale): e^z = (eh + el) scale 2^-64, scale = 2^(k + 64), eh + el in
    [0.7, 1] to 2^-26 relative (one float32 exp is 2^-24 at best). z below `floor` (>= -130, so the scale stays
    normal) is taken as the floor (e^-104 < 2^-150 rounds to 0 in every float32 result built from it alone)."""
    z = torch.clamp_min(z, floor)
    k = torch.round(z * _LOG2E)
    rh = z - k * _LN2_HI  # exact
    rl = k * -_LN2_LO
    r = rh + rl
    r2 = rl - (r - rh)  # r + r2 = rh + rl exactly, |r| <= 0.35
    u = (r * r) * _poly(r, _EXPM1_QUADRATIC) + (r2 + r2 * r)  # e^(r + r2) - 1 - r (r2^2 < 2^-50 omitted)
    h = 1.0 + r
    lo = (r - (h - 1.0)) + u  # 1 + r = h + (r - (h - 1)) exactly
    eh = h + lo
    return eh, lo - (eh - h), _pow2(k + 64.0)


def sigmoid_neg_float32(x):
    """sigma(-|x|) for float32 x as (qs, corr, scale): sigma(-|x|) = (qs + corr) scale 2^-64 (scale as above)."""
    eh, el, scale = exp_neg_float32(-torch.abs(x))
    two_k = scale * _TWO_M64  # 2^k: subnormal or 0 below k = -126, where 1 + e^z is 1 anyway
    e1 = eh * two_k
    s = 1.0 + e1
    c = (e1 - (s - 1.0)) + el * two_k  # 1 + e^z = s + c (but for el's rounding)
    qs = eh / s
    # (eh + el) / (s + c) - qs = (el - qs c) / (s + c) to first order, and 1 / (1 + e^z) = 1 - sigma(z)
    return qs, (el - qs * c) * (1.0 - qs * two_k), scale


def sigmoid_float32(x):
    """sigma(x) for float32 x, within 1.1 ULP (see the block comment); NaN stays NaN."""
    qs, corr, scale = sigmoid_neg_float32(x)
    neg = ((qs + corr) * scale) * _TWO_M64  # one rounding (a second only into the subnormal range)
    two_k = scale * _TWO_M64
    q = qs * two_k
    h = 1.0 - q
    lo = (1.0 - h) - q  # 1 - q = h + lo exactly
    pos = h + (lo - corr * two_k)
    return torch.where(x != x, x, torch.where(x >= 0, pos, neg))


# --- x sigma(beta x) in float32 arithmetic (the swish family: silu, swish, swiglu's gate, quick_gelu) ---
# x * sigmoid_float32(beta x) rounds the gate before the product (52 ULP where the gate is subnormal, x < -87.3)
# and, for beta != 1, takes the gate of the rounded beta x (quick_gelu: 21 ULP in the left tail, where sigma's
# condition number is |z|). The form below is one quotient: with z = beta x carried exactly as zh + zl and
# e^-z = 2^k (eh + el) (the reduction of exp_neg_float32, k of either sign),
#   x sigma(z) = x / (1 + 2^k (eh + el))                   for z >= 0 (k <= 0),
#              = [x / (2^-k + eh + el)] 2^-k                for z < 0 (k > 0: no overflow; 2^-k applied last),
# the denominator D = dh + dl an exact sum (TwoSum), the quotient x / dh corrected by its exact remainder
# (Dekker's product with Veltkamp's split: no FMA needed, and none can be contracted in: inductor compiles with
# -ffp-contract=off), and 2^-k applied as 2^(64 - k) 2^-64: one rounding, also into the subnormal range.
# Measured: 0.79 ULP (silu), 0.78 (quick_gelu) over every 997th float32 and a dense [-115, 25] grid, eager =
# compiled; tests/kernels/test_float32_swish.py holds the bound. Only +, -, *, /, round, min/max and one
# int32 -> float32 bit cast: the same bits on every ISA. Cost (4M float32, one AVX-512 core, compiled, loaded
# machine): 3.5 ns/element, float64 math 3.9, sigmoid_float32 alone 3.1, torch's F.silu 0.85.
# Subnormal inputs: x sigma(beta x) = x/2 (1 + beta x/2) is within a subnormal ULP of a tie that the float32
# quotient cannot see: up to 1 ULP there (the goal is 2).
_SWISH_POS_LIMIT = 20.0  # z beyond which sigma(z) = 1 - e^-z rounds x sigma(z) to x (e^-20 < 2^-28)
_BIG = 2.0**63  # |x| beyond which x sigma(beta x) is x or a signed zero (and 2^64 y would overflow)


def _f32(v: float) -> float:
    """v rounded to float32 (pure Python: a constant while dynamo traces)."""
    if v == 0.0:
        return v
    m, e = math.frexp(v)
    return math.ldexp(round(m * 2.0**24), e - 24)


def _split12(v: float) -> tuple[float, float]:
    """float32 v = hi + lo, each with at most 12 significant bits (pure Python)."""
    m, e = math.frexp(v)
    hi = math.ldexp(math.trunc(m * 2.0**12), e - 12)
    return hi, v - hi


def _split(a):
    """float32 tensor a = hi + lo exactly, each with at most 12 significant bits (Veltkamp; |a| < 2^115)."""
    t = a * 4097.0
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a, b):
    """a b = p + e exactly for float32 tensors (Dekker; |a|, |b| < 2^115, no FMA)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _swish_zero_from(beta: float, v_max: float = 1.0) -> float:
    """w = -beta x beyond which |x sigma(beta x) v| < 2^-151 for |v| <= v_max (rounds to a signed zero):
    w - log w = log(2^151 v_max / |beta|)."""
    target = math.log(2.0**151 * v_max / abs(beta))
    w = target
    for _ in range(8):  # a contraction by 1/w < 0.02: converged to float64 in 8 steps
        w = target + math.log(w)
    return w


def swish_float32_supported(beta) -> bool:
    """Whether `swish_float32` takes this beta: a number whose zero threshold keeps 2^(64 - k) normal."""
    return isinstance(beta, (int, float)) and beta != 0 and _swish_zero_from(float(beta)) < 130.0


def _times_beta(x, beta: float):
    """beta x for float32 x and a constant beta as (zh, r): beta x = zh - r to ~2^-36 relative (beta's float32
    part split into 12-bit halves in pure Python, its float64 remainder a third term)."""
    b1 = _f32(beta)
    (bh, bl), b2 = _split12(b1), _f32(beta - b1)
    xh, xl = _split(x)
    p1 = xh * bh  # exact
    p2 = xl * bh + xh * bl  # each exact, the sum rounded (2^-36 relative of z)
    zh = p1 + p2
    return zh, ((zh - p1) - p2) - (xl * bl + x * b2)


def _exp_parts(wh, wl):
    """e^(wh + wl) = 2^k (eh + el), eh + el in [0.7, 1.42] to ~2^-26, for float32 wh with |k| < 512 (k LN2_HI
    exact: _LN2_HI has 15 significant bits) and wl None or a correction below wh's last bit."""
    k = torch.round(wh * _LOG2E)
    rh = wh - k * _LN2_HI  # exact
    rl = k * -_LN2_LO if wl is None else wl - k * _LN2_LO
    r = rh + rl
    r2 = rl - (r - rh)  # r + r2 = rh + rl exactly
    u = (r * r) * _horner(r, _EXPM1_QUADRATIC) + (r2 + r2 * r)
    h = 1.0 + r
    lo = (r - (h - 1.0)) + u
    eh = h + lo
    return k, eh, lo - (eh - h)  # e^r = eh + el


def _over_one_plus(n, nl, k, eh, el):
    """(n + nl) / (1 + e^-z) for float32 n (nl None or its low part) and e^-z = 2^k (eh + el), as (y, neg, pk):
    the value is y where z >= 0 and y 2^-k where z < 0 (neg; there y = (n + nl) / (2^-k + eh + el), which
    cannot overflow); y is the quotient corrected by its exact remainder, rounded once; pk = 2^(64 - |k|)."""
    neg = k > 0.5  # z < 0
    pk = _pow2(64.0 - torch.abs(k))  # 2^(64 - |k|), normal for |k| <= 190 (0 or subnormal beyond: negligible)
    t = pk * _TWO_M64  # 2^-|k| (subnormal or 0 only where it is below dh's last bit)
    c = torch.where(neg, t, 1.0)
    f = torch.where(neg, 1.0, t)
    fh = f * eh  # exact: a power of two times eh, normal
    dh = c + fh
    bb = dh - c
    dl = ((c - (dh - bb)) + (fh - bb)) + f * el  # D = dh + dl (TwoSum, then el)
    inv = 1.0 / dh
    yh = n * inv
    p = yh * dh
    yhh, yhl = _split(yh)
    dhh, dhl = _split(dh)
    e = ((yhh * dhh - p) + yhh * dhl + yhl * dhh) + yhl * dhl  # yh dh = p + e exactly
    rem = (n - p) - e  # n - yh dh, exact
    if nl is not None:
        rem = rem + nl
    return yh + (rem - yh * dl) * inv, neg, pk  # (n + nl) / D


def swish_float32(x, beta: float = 1.0):
    """x sigma(beta x) for float32 x and a constant beta (see the block comment); a gate that underflows gives a
    zero with x's sign, as `TorchOps.gated`; NaN stays NaN."""
    beta = float(beta)
    w_zero = _swish_zero_from(beta)
    bounds = (-(w_zero + 1.0) / beta, _SWISH_POS_LIMIT / beta)
    xc = torch.clamp(x, min(bounds), max(bounds))  # z in [-(w_zero + 1), 20]; NaN stays NaN
    if beta == 1.0:
        wh, wl = -xc, None  # w = -z exactly
    else:
        zh, r = _times_beta(xc, beta)
        wh, wl = -zh, r  # -(zh - r), z = beta x to ~2^-36
    k, eh, el = _exp_parts(wh, wl)  # e^w = 2^k e^r, |r| <= 0.35, k in [-29, 160]
    y, neg, pk = _over_one_plus(x, None, k, eh, el)
    y = (y * torch.where(neg, pk, 2.0**64)) * _TWO_M64
    y = torch.copysign(torch.where(wh > w_zero, 0.0, y), x)  # x sigma(z) has x's sign, -0 included
    # |x| >= 2^63, inf and NaN: x where the gate is open (z > 0), the signed zero above where it is closed
    return torch.where(~(torch.abs(x) <= _BIG), torch.where(neg, y, x), y)


# --- x sigma(beta x) v in float32 arithmetic (swiglu's forward) ---
# swish_float32(g) * v rounds twice: 99 ULP where the gate is subnormal and v large. The form below is swish's one
# quotient with v inside: (g v) / (1 + e^-z), g v an exact two-product nh + nl (Dekker), divided with the exact
# remainder, the scale 2^-k (z < 0) applied last, so the whole product rounds once (a second rounding only into
# the subnormal range: under half a subnormal ULP). g v spans 2^-298 .. 2^191, and with a large v the gate can be
# as small as 2^-290 where the result is still normal; so g and v are first scaled by powers of two into ranges
# where the two-product and the quotient's Veltkamp splits neither overflow nor underflow (|g| < 2^-32: x 2^64;
# |v| < 2^-32: x 2^64, |v| > 2^32: x 2^-64, |v| > 2^96: x 2^-96), and the total exponent (those and -k, in
# [-420, 96]) is applied in two steps (2^-126 first where it is below -126). e^-z keeps k < 512 (k LN2_HI
# exact), z >= -(W + 1) with W the point beyond which |g v sigma(beta g)| < 2^-151 for every float32 v (199 at
# beta = 1). Betas in [1/16, 16] in magnitude: there |g| <= 2^12 wherever k > 252, which keeps the results of
# the two-step scale's clamped range zero.
_SWIGLU_BETA_RANGE = (2.0**-4, 2.0**4)
_FLOAT32_MAX = float(torch.finfo(torch.float32).max)


def swiglu_float32_supported(beta) -> bool:
    """Whether `swiglu_float32` takes this beta: a number with 1/16 <= |beta| <= 16."""
    return isinstance(beta, (int, float)) and _SWIGLU_BETA_RANGE[0] <= abs(beta) <= _SWIGLU_BETA_RANGE[1]


def _power_scaled(a, steps):
    """(a s, e) with s = 2^-e picked by the first (threshold, e) step that |a| crosses: `steps` are
    ((">" or "<", threshold, e), ...); exact (powers of two, normal results)."""
    s = torch.ones_like(a)
    e = torch.zeros_like(a)
    mag = torch.abs(a)
    for op, threshold, exponent in reversed(steps):
        hit = mag > threshold if op == ">" else mag < threshold
        s = torch.where(hit, 2.0**-exponent, s)
        e = torch.where(hit, float(exponent), e)
    return a * s, e


_SWIGLU_G_STEPS = (("<", 2.0**-32, -64),)
_SWIGLU_V_STEPS = (("<", 2.0**-32, -64), (">", 2.0**96, 96), (">", 2.0**32, 64))


def swiglu_float32(g, v, beta: float = 1.0):
    """g sigma(beta g) v for float32 g, v and a constant beta (see the block comment), rounded once; a closed
    gate gives a zero with the sign of g v; inf and NaN as IEEE products (g v where |g| > 2^63 opens the gate,
    the signed zero times v where it closes it)."""
    beta = float(beta)
    w_zero = _swish_zero_from(beta, _FLOAT32_MAX)
    bounds = (-(w_zero + 1.0) / beta, _SWISH_POS_LIMIT / beta)
    gc = torch.clamp(g, min(bounds), max(bounds))
    if beta == 1.0:
        wh, wl = -gc, None
    else:
        zh, r = _times_beta(gc, beta)
        wh, wl = -zh, r
    k, eh, el = _exp_parts(wh, wl)  # k in [-29, 290]
    gs, eg = _power_scaled(g, _SWIGLU_G_STEPS)
    vs, ev = _power_scaled(v, _SWIGLU_V_STEPS)
    nh, nl = _two_prod(gs, vs)  # g v 2^-(eg + ev), |nh| <= 2^95
    y, neg, _ = _over_one_plus(nh, nl, k, eh, el)
    total = (eg + ev) - torch.where(neg, k, 0.0)  # y 2^total is the value; total in [-420, 96]
    low = total < -126.0
    y = (y * torch.where(low, 2.0**-126, 1.0)) * _pow2(torch.clamp_min(torch.where(low, total + 126.0, total), -126.0))
    y = torch.copysign(torch.where(wh > w_zero, 0.0, y), nh)  # the sign of g v, -0 included
    big_g = ~(torch.abs(g) <= _BIG)
    edge = big_g | ~(torch.abs(v) <= _FLOAT32_MAX)
    return torch.where(edge, torch.where(neg & big_g, torch.copysign(torch.zeros_like(g), g), g) * v, y)


def tanh_float64_narrow(x):
    """tanh of float64 `x` for float32 outputs: (1 - e) / (1 + e) with e = e^{-2|x|} (one exp, where Sleef's
    float64 tanh costs three: 0.30 against 0.20 ms at 32K elements, one core), a Taylor polynomial below
    |x| = 0.01, where 1 - e cancels. Within 3e-15 relative (25 float64 ULP at |x| = 0.01; 5e-8 of a float32
    ULP): not for float64 outputs. inf gives +-1, NaN stays NaN, -0 stays -0."""
    a = torch.abs(x)
    e = torch.exp(-2.0 * a)
    far = torch.copysign((1.0 - e) / (1.0 + e), x)
    s = x * x
    # tanh x = x - x^3/3 + 2x^5/15 - 17x^7/315 + 62x^9/2835 - ...: the next term is 1e-20 of x at 0.01
    # (x times 1 + ..., not x + x * ...: -0 stays -0)
    near = x * (1.0 + s * (-1.0 / 3.0 + s * (2.0 / 15.0 + s * (-17.0 / 315.0 + s * (62.0 / 2835.0)))))
    return torch.where(a < 0.01, near, far)


# silu'(x) = sigma(x) (1 + x sigma(-x)) for float32 x. Its sum cancels at the zero x0 = -1.2784645...: with float32
# terms it rounds to ~2^-26 absolute, 3217 ULP on the checker's crossing window. Near it (|x - x0_hi| < 0.1) the
# form is d (C0 + d p(d)), d = (x - x0_hi) - x0_lo (the first difference exact by Sterbenz), p of degree 6 fitted
# by tools/fit_silu_grad_float32.py (|d| < 0.1, degree 5: 0.0044 ULP; at 1/4 the float32 polynomial itself
# cost 1.1 ULP), C0 = silu''(x0) as a float32 pair and (x - x0_hi) C0_hi as an
# exact product, so that the sum rounds once. Elsewhere, with t = e^-|x| = th + tl (exp_neg_float32's pieces)
# and 1 + x = ah + al, 1 + t = s + c exact sums,
#   silu'(x) = (1 + t (1 + x)) / (1 + t)^2   for x >= 0 (no cancellation: every term is positive),
#            = t (1 + x + t) / (1 + t)^2     for x < 0 (1 + x + t cancels only near x0: 5x at |x - x0| = 0.1),
# numerator and (1 + t)^2 each carried as hi + lo (Dekker's products, Veltkamp's split), the quotient corrected
# by its exact remainder, and for x < 0 the factor 2^k of t applied last as 2^(k + 64) 2^-64: one rounding, also
# into the subnormal range (x < -87.3). Only +, -, *, /, round, clamp, where and exp2 of integers: the same bits
# on every ISA. Measured: 0.78 ULP over a dense [-115, 35] grid and every 4001st float32 (the largest in the
# subnormal range), 0.51 on the 6001 float32 nearest x0 against mpmath; tests/kernels/test_float32_swish.py
# holds the bound.
_SILU_X0_HI, _SILU_X0_LO = -1.2784645557403564, 1.2979282537628478e-08
_SILU_C0 = 0.2178117057198001  # silu''(x0), as a float32 pair below (one float32 C0 alone: 2 ULP)
_SILU_C0_HI = _f32(_SILU_C0)
_SILU_C0_LO = _f32(_SILU_C0 - _SILU_C0_HI)
_SILU_GRAD_P = (0.000809564080554992, 4.6489312808262184e-05, -0.006606750190258026, -0.015221629291772842,
                0.018874814733862877, 0.14664879441261292)  # fmt: skip
_SILU_GRAD_ZONE = 0.1
# x below which silu'(x) = e^x (1 + x) (1 + O(e^x)) rounds to -0 in float32 (e^-112 111 < 2^-150); above 30,
# 1 + e^-x (x - 1) rounds to 1
_SILU_GRAD_LOW, _SILU_GRAD_HIGH = -112.0, 30.0


# quick_gelu (beta = 1.702): the zero moves to x0 / beta. Near it the polynomial is in d = x - x0 / beta itself
# (x exact, x0 / beta a float32 pair; tools/fit_quick_gelu_grad_float32.py, degree 5 on |d| < 0.06: 0.001 ULP):
# in beta x - x0 the product beta x, carried to ~2^-47 absolute, would cost thousands of ULP of d (C0 + ...) at
# the float32 x nearest the zero. Elsewhere the form above with z = beta x carried as zh - r (_times_beta).
# Each beta with such a zero form is a row: (x0_hi, x0_lo, C0 as a float32 pair, p, the zone's half-width).
_SWISH_GRAD_ZEROS = {
    1.0: (_SILU_X0_HI, _SILU_X0_LO, _SILU_C0_HI, _SILU_C0_LO, _SILU_GRAD_P, _SILU_GRAD_ZONE),
    1.702: (-0.7511542439460754, -1.1495213669832083e-08, _f32(0.37071552313509976),
            _f32(0.37071552313509976 - _f32(0.37071552313509976)),
            (0.03299231454730034, 0.003586344886571169, -0.09435708075761795, -0.12774257361888885,
             0.09305963665246964, 0.42481282353401184), 0.06),
}  # fmt: skip


def swish_grad_float32_supported(beta) -> bool:
    """Whether `swish_grad_float32` takes this beta: one with a fitted form at its derivative's zero."""
    return isinstance(beta, (int, float)) and float(beta) in _SWISH_GRAD_ZEROS


def silu_grad_float32(x):
    """silu'(x) for float32 x (see the block comment); the left tail's zero is -0 (the true value is negative);
    NaN stays NaN."""
    return swish_grad_float32(x, 1.0)


def swish_grad_float32(x, beta: float = 1.0):
    """d/dx x sigma(beta x) = silu'(beta x) for float32 x and a beta of `_SWISH_GRAD_ZEROS` (see the block
    comments); the left tail's zero is -0; NaN stays NaN."""
    beta = float(beta)
    x0_hi, x0_lo, c0_hi, c0_lo, p_zero, zone = _SWISH_GRAD_ZEROS[beta]
    if beta == 1.0:
        xc = torch.clamp(x, _SILU_GRAD_LOW, _SILU_GRAD_HIGH)
        zh, r = xc, None
        eh, el, scale = exp_neg_float32(-torch.abs(xc), floor=_SILU_GRAD_LOW)
    else:
        xc = torch.clamp(x, _SILU_GRAD_LOW / beta, _SILU_GRAD_HIGH / beta)
        zh, r = _times_beta(xc, beta)  # z = beta x = zh - r
        k, eh, el = _exp_parts(-torch.abs(zh), torch.where(zh < 0, -r, r))  # e^-|z|, k in [-162, 0]
        scale = _pow2(k + 64.0)
    two_k = scale * _TWO_M64
    th, tl = eh * two_k, el * two_k  # t = e^-|z| (th exact where normal: below, t is far below 1 + z's last bit)
    s = 1.0 + th
    c = (th - (s - 1.0)) + tl  # 1 + t = s + c
    ph, pe = _two_prod(s, s)
    pl = pe + 2.0 * (s * c)  # (1 + t)^2 = ph + pl (c^2 < 2^-48 omitted)
    ah = 1.0 + zh
    bb = ah - 1.0
    al = (1.0 - (ah - bb)) + (zh - bb)  # 1 + z = ah + al (TwoSum)
    if r is not None:
        al = al - r
    # z >= 0: 1 + t (1 + z), t (1 + z) <= 1
    mh, ml = _two_prod(th, ah)
    up = 1.0 + mh
    upl = (mh - (up - 1.0)) + ((ml + th * al) + tl * ah)
    # z < 0: (eh + el)(1 + z + t), times 2^k below
    bh = ah + th
    bb = bh - ah
    bl = ((ah - (bh - bb)) + (th - bb)) + (al + tl)
    nh, nl = _two_prod(eh, bh)
    nl = nl + (eh * bl + el * bh)
    neg = zh < 0
    uh = torch.where(neg, nh, up)
    ul = torch.where(neg, nl, upl)
    q = uh / ph
    qp, qe = _two_prod(q, ph)
    q = q + (((uh - qp) - qe) + (ul - q * pl)) / ph  # (uh + ul) / (ph + pl), the remainder exact
    y = (q * torch.where(neg, scale, 2.0**64)) * _TWO_M64
    dh = xc - x0_hi  # exact
    d = dh - x0_lo
    gl = c0_lo + d * _poly(d, p_zero)  # C0 + d p(d) = c0_hi + gl
    fh, fe = _two_prod(dh, torch.full_like(dh, c0_hi))
    near = fh + ((fe + dh * gl) - x0_lo * (c0_hi + gl))  # (dh - x0_lo)(C0 + d p(d)), rounded once
    y = torch.where(torch.abs(dh) < zone, near, y)
    return torch.where(x != x, x, y)


# --- mish in float32 arithmetic (float32 inputs computing in float32) ---
# mish(x) = x tanh(softplus(x)) = x n / (n + 2), n = t (t + 2), t = e^x: one quotient of positive terms, so the
# only amplified error is e^x's, by at most 1 (d log(n / (n + 2)) / d log t <= 1), and x itself is exact. With
# t = 2^k e, e = eh + el the reduction of `exp_neg_float32` (exact argument, k of either sign: x in [-110.4, 12]),
#   mish(x) = [x g] 2^k,  g = e (t + 2) / (2 + 2^k e (t + 2)),
# g of order 1 for every x (2^-k e (...) for k > 0), its numerator and denominator carried as hi + lo (TwoSum,
# Dekker's products with Veltkamp's split), the quotient corrected by its exact remainder, x g an exact product,
# and 2^k applied last as 2^(k + 64) 2^-64: one rounding, also into the subnormal range of the left tail
# (mish(x) ~ x e^x, below 2^-126 from x = -91.86; the float32 composition x tanh(softplus(x)) rounds the subnormal
# gate first: 154 ULP at x = -102.9).
# Beyond x = 12, 1 - tanh(softplus(x)) = 2 / (n + 2) < 2^-33 and mish(x) rounds to x. Only +, -, *, /, round, clamp, where and exp2 of
# integers: the same bits on every ISA.
_MISH_HIGH = 12.0
_MISH_LOW = -(_swish_zero_from(1.0) + 1.0)  # mish(x) ~ x e^x as silu's x sigma(x): below, |mish(x)| < 2^-151


def _two_sum(a, b):
    """a + b = s + e exactly (Knuth's TwoSum, no ordering of |a|, |b| needed)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def mish_float32(x):
    """mish(x) for float32 x (see the block comment); -0 for x below -110.4 and -inf (x's signed zero, as
    `TorchOps.gated`); +inf stays +inf, NaN stays NaN."""
    xc = torch.clamp(x, _MISH_LOW, _MISH_HIGH)
    eh, el, scale = exp_neg_float32(xc, floor=_MISH_LOW)  # e^xc = (eh + el) 2^k; valid for z <= 12 too
    two_k = scale * _TWO_M64
    th = eh * two_k  # t = e^x (exact where normal; below, t is far under the last bit of 2 + t)
    s, c = _two_sum(th, 2.0)
    c = c + el * two_k  # t + 2 = s + c
    nh, nl = _two_prod(eh, s)
    nl = nl + (eh * c + el * s)  # N = e (t + 2) = nh + nl
    dh, dl = _two_sum(nh * two_k, 2.0)
    dl = dl + nl * two_k  # D = 2 + 2^k N = dh + dl
    q = nh / dh
    qp, qe = _two_prod(q, dh)
    g1 = (((nh - qp) - qe) + (nl - q * dl)) / dh  # g = N / D = q + g1, the remainder exact
    xs = xc * scale  # x 2^(k + 64), exact: |xs| < 2^85, and normal for subnormal x, so x g's error terms are too
    p, pe = _two_prod(xs, q)
    y = torch.copysign((p + (pe + xs * g1)) * _TWO_M64, xc)  # x g 2^k, rounded once; -0 stays -0
    y = torch.where(x > _MISH_HIGH, x, y)  # +inf included
    return torch.where(x != x, x, y)


# For float32 inputs computing in float64 (NarrowCompiledTorchOps), mish and its derivative as rational functions
# of one float64 exp, t = e^x, where the catalog's formula calls three functions (softplus's exp and log1p, tanh's
# exp) and five for the derivative (also sech^2's and sigma's exps): 10.7 against 4.4 ns/element for the
# derivative, 8.1 against 4.3 for mish (4M float32, one AVX-512 core, compiled, same process, load 2-3):
#   mish(x) = x n / (n + 2),  n = t (t + 2);
#   mish'(x) = tanh(sp) + x sech^2(sp) sigma(x) = t B / D^2,  D = t^2 + 2t + 2,
#   B = ((t + 4) t + (6 + 4x)) t + 4 (1 + x)  (= (t + 2) D + 4x (t + 1), which cancels by up to 9x on [-1.7, -0.7]).
# B still cancels at the derivative's zero x0 = -1.19243..., where the float64 sum's error is ~2^-52 absolute: at
# the float32 nearest x0 (3e-9 away, mish' = 8e-10) that is ~0.3 float32 ULP, so no polynomial is needed (float32
# terms: 6.7 ULP over a dense grid, hundreds next to x0). Within 1e-15 relative elsewhere: for narrow outputs
# only (float64 outputs keep the formula). Below x = -745, t = 0 gives x's signed zero (mish) and -0 (mish',
# whose true value is negative); beyond 20 (2 e^-40 < 2^-57) mish(x) = x and mish'(x) = 1.
_MISH_NARROW_LOW, _MISH_NARROW_HIGH = -800.0, 20.0


def mish_float64_narrow(x):
    """mish of float64 `x` for float32 or half outputs (see the block comment); inf and NaN as the formula."""
    xc = torch.clamp(x, _MISH_NARROW_LOW, _MISH_NARROW_HIGH)
    t = torch.exp(xc)
    n = t * (t + 2.0)
    y = torch.where(x > _MISH_NARROW_HIGH, x, xc * (n / (n + 2.0)))
    return torch.where(x != x, x, y)


def mish_grad_float64_narrow(x):
    """mish' of float64 `x` for float32 or half outputs (see the block comment); NaN stays NaN."""
    xc = torch.clamp(x, _MISH_NARROW_LOW, _MISH_NARROW_HIGH)
    t = torch.exp(xc)
    d = (t + 2.0) * t + 2.0
    b = ((t + 4.0) * t + (6.0 + 4.0 * xc)) * t + 4.0 * (1.0 + xc)
    y = torch.where(x > _MISH_NARROW_HIGH, 1.0, t * b / (d * d))
    return torch.where(x != x, x, y)


class CompiledTorchOps(TorchOps):
    name = "torch-compiled"
    # the dtype of the inputs this namespace's functions were generated for (their tensors arrive converted to
    # the compute dtype): sin_of_product skips what that dtype rules out
    io_dtype: torch.dtype = torch.float64

    def sin_of_product(self, x, w):
        return sin_cos_of_product(x, w, self.io_dtype, "sin")

    def cos_of_product(self, x, w):
        return sin_cos_of_product(x, w, self.io_dtype, "cos")

    # ATen's clamp_min(-0.0, 0.0) is -0.0 (x is kept unless the bound exceeds it); inductor compiles it to the
    # vector max, which returns the bound on a tie: +0.0 (relu_pow, helu and elu's expm1(min(x, 0)) gave +0 at
    # -0, where the eager path and torch give -0). A comparison and a select keep x on a tie, NaN included.
    @staticmethod
    def maximum(x, y):
        return torch.where(x < y, y, x) if not isinstance(y, torch.Tensor) else torch.maximum(x, y)

    @staticmethod
    def minimum(x, y):
        return torch.where(x > y, y, x) if not isinstance(y, torch.Tensor) else torch.minimum(x, y)

    @staticmethod
    def clamp(x, lo, hi):
        return CompiledTorchOps.minimum(CompiledTorchOps.maximum(x, lo), hi)

    @staticmethod
    def expm1(x):
        # (x + x (x p) is +0 at x = -0: there the input itself, as expm1(-0) = -0)
        taylor = torch.where(x == 0, x, x + x * (x * (1 / 2 + x * (1 / 6 + x * (1 / 24 + x * (1 / 120))))))
        small = torch.abs(x) < 2.0**-13  # the first omitted Taylor term is below 2^-78 |x|: exact to 0.5 ULP
        if x.dtype == torch.float32:
            # In float64, e^x - 1 is off by 2^-53 absolute, under 2^-40 relative at |x| >= 2^-13: 0.5 float32
            # ULP once rounded, at the cost of one float64 exp (no log, unlike the form below).
            x64 = x.double()
            return torch.where(small, taylor, (torch.exp(x64) - 1.0).to(x.dtype))
        # Kahan's form: with u = e^x rounded, (u - 1) * x / log(u) cancels u's rounding error, so it stays
        # accurate (~2 ULP) where u - 1 alone loses every digit. u - 1 == -1 (x below ~-37) is the limit -1;
        # u == inf stays inf; NaN propagates.
        u = torch.exp(x)
        um1 = u - 1.0
        # The quotient's lanes only: elsewhere its 0/0 and inf/inf would make a gradient taken through this form
        # NaN (torch.func.vjp of an entry's body for a learnable parameter, nonlin.autograd), though unselected
        other = small | (um1 == -1.0) | (u == math.inf)
        r = um1 * (torch.where(other, 1.0, x) / torch.log(torch.where(other, math.e, u)))
        r = torch.where(um1 == -1.0, um1, r)
        r = torch.where(u == math.inf, u, r)
        return torch.where(small, taylor, r)

    @staticmethod
    def erf(x):
        # inductor's float32 erf is the 1.5e-7 fit; its float64 erf is exact
        return eager_float32(x, "erf") if x.dtype == torch.float32 else torch.special.erf(x)

    @staticmethod
    def tanh(x):
        # Without a vector ISA (ATEN_CPU_CAPABILITY=default) inductor's scalar loops, built with its fast-math
        # flags, put float32 tanh at 2.14 ULP (x = -0.233, the dense sweep of tests/kernels/
        # test_kernel_precision.py; AVX2 and AVX-512: 1.0): there it is computed in float64
        if x.dtype == torch.float32 and _SCALAR_CPU:
            return torch.tanh(x.double()).to(x.dtype)
        return torch.tanh(x)

    @staticmethod
    def sech2(x):
        t = torch.exp(-2.0 * torch.abs(x))
        if x.dtype == torch.float32:  # float32 arithmetic: 4.11 ULP (torch_backend._sech2_from_float32_exp)
            return torch.clamp_max(_sech2_from_float32_exp(t), 1.0)
        # at most 1 (NaN stays NaN): where sech^2 x rounds to 1, that is the correctly rounded value
        return torch.clamp_max(4.0 * t / torch.square(1.0 + t), 1.0)

    @staticmethod
    def sin(x):
        return eager_float32(x, "sin") if x.dtype == torch.float32 else torch.sin(x)

    @staticmethod
    def cos(x):
        return eager_float32(x, "cos") if x.dtype == torch.float32 else torch.cos(x)


_EAGER_FLOAT32 = {"sin": torch.sin, "cos": torch.cos, "erf": torch.special.erf}


# ATen's float32 sin, cos and erf are within 0.6, 0.6 and 1.0 ULP under every ISA it picks (nonlin.route's
# torch rows for sin, cosine and erf measure them, tests/test_routes.py each run); inductor's own lowerings are
# not (above). As a custom op the graph calls ATen's kernel: one pass of its own (inductor cannot fuse into
# it), at ATen's speed.
@torch.library.custom_op("nonlin::eager_float32", mutates_args=())
def eager_float32(x: torch.Tensor, op: str) -> torch.Tensor:
    """ATen's eager `op` ("sin", "cos" or "erf") of a float32 tensor, contiguous."""
    return _EAGER_FLOAT32[op](x.contiguous())


@eager_float32.register_fake
def _(x, op):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def _eager_float32_setup(ctx, inputs, output):
    ctx.op = inputs[1]
    ctx.save_for_backward(inputs[0])


def _eager_float32_backward(ctx, go):
    # (the generated functions differentiate by hand; this serves the torch backend's formulas, which take
    # these forms while torch.compile traces float32 tensors on CPU, under autograd)
    (x,) = ctx.saved_tensors
    if ctx.op == "sin":
        d = eager_float32(x, "cos")
    elif ctx.op == "cos":
        d = -eager_float32(x, "sin")
    else:
        d = (2.0 / math.sqrt(math.pi)) * torch.exp(-x * x)
    return go * d, None


eager_float32.register_autograd(_eager_float32_backward, setup_context=_eager_float32_setup)


# ATen's (and so inductor's) vector ISA, fixed at start-up (ATEN_CPU_CAPABILITY); read here, not while tracing
_SCALAR_CPU = torch.backends.cpu.get_cpu_capability() == "DEFAULT"

COMPILED_TORCH = CompiledTorchOps()


class NarrowCompiledTorchOps(CompiledTorchOps):
    """The compiled namespace for float32 inputs. Computed in float64: erfc as `erfc_float64`, ~1e-14
    relative (14 float64 ULP at x = 7.8, where the eager op is within 0.03: not for float64 outputs, but 1e-7
    of a float32 ULP), tanh as `tanh_float64_narrow` (one exp). Computed in float32 (the entries `nonlin.kernels.precision` lists): Phi and phi in
    float32 arithmetic assembled in float64 (`norm_cdf_float32(x, wide=True)`), float64 results that the
    caller's product and the output cast round once."""

    io_dtype = torch.float32

    name = "torch-compiled-narrow"

    @staticmethod
    def erfc(x):
        return erfc_float64(x) if x.dtype == torch.float64 else torch.special.erfc(x)

    @staticmethod
    def expm1(x):
        if x.dtype != torch.float64:
            return CompiledTorchOps.expm1(x)
        # e^x - 1 in float64 is off by 2^-53 max(1, e^x) absolute: under 2^-48 relative from |x| = 2^-5; below,
        # Taylor's polynomial to x^8 (the first omitted term under 2^-58 |x|). 2^-24 of a float32 ULP, where
        # Kahan's form (CompiledTorchOps', for float64 outputs' last bits) costs a log and a division more (elu at
        # alpha 0.5: 2.5x the time)
        small = torch.abs(x) < 2.0**-5
        xs = torch.where(small, x, 0.0)
        return torch.where(small, xs * (1.0 + xs * _horner(xs, _EXPM1_TAYLOR)), torch.exp(x) - 1.0)  # (-0 -> -0)

    @staticmethod
    def tanh(x):
        if x.dtype != torch.float64:
            return CompiledTorchOps.tanh(x)
        return tanh_float64_narrow(x)

    @staticmethod
    def norm_cdf(x):
        if x.dtype == torch.float32:
            return norm_cdf_float32(x, wide=True)
        return 0.5 * NarrowCompiledTorchOps.erfc(-x / math.sqrt(2.0))  # TorchOps' form, this erfc

    @staticmethod
    def norm_pdf(x):
        return norm_pdf_float32(x, wide=True) if x.dtype == torch.float32 else TorchOps.norm_pdf(x)

    def gelu_grad(self, x):
        return gelu_grad_float32(x, wide=True) if x.dtype == torch.float32 else super().gelu_grad(x)

    def mish(self, x):
        return mish_float64_narrow(x) if x.dtype == torch.float64 else super().mish(x)

    def mish_grad(self, x):
        return mish_grad_float64_narrow(x) if x.dtype == torch.float64 else super().mish_grad(x)


NARROW_COMPILED_TORCH = NarrowCompiledTorchOps()


class Float32CompiledTorchOps(NarrowCompiledTorchOps):
    """The compiled namespace for float32 inputs of the entries in `FLOAT32_SIGMOID_ENTRIES`: where they compute
    in float32, sigmoid is `sigmoid_float32`. Other entries keep the plain float32 form, which meets their goals
    at a third of the cost (softplus's backward: 1.3 ns per element against 3.5, one AVX-512 core); half inputs
    too (a few float32 ULP are far below a bf16 or fp16 ULP)."""

    name = "torch-compiled-float32"

    @staticmethod
    def sigmoid(x):
        return sigmoid_float32(x) if x.dtype == torch.float32 else TorchOps.sigmoid(x)


FLOAT32_COMPILED_TORCH = Float32CompiledTorchOps()
# Entries whose float32 math meets the goals (kernels/precision.py) only with sigmoid_float32: sigmoid's
# forward is 1.93 ULP with the plain form.
FLOAT32_SIGMOID_ENTRIES = frozenset({"sigmoid"})


class SwishFloat32CompiledTorchOps(NarrowCompiledTorchOps):
    """The compiled namespace for float32 inputs of the entries in `FLOAT32_SWISH_ENTRIES`: where they compute in
    float32, swish(x, beta) with a constant beta is `swish_float32` (one rounding of the whole product),
    swiglu(g, v, beta) is `swiglu_float32` (v inside the quotient: one rounding) and swish_grad(x, beta) is
    `swish_grad_float32` at the betas with a fitted zero form (1: silu, 1.702: quick_gelu); a tensor beta
    (learnable) and other dtypes take the composed form."""

    name = "torch-compiled-float32-swish"

    def swish(self, x, beta):
        if x.dtype == torch.float32 and swish_float32_supported(beta):
            return swish_float32(x, beta)
        return super().swish(x, beta)

    def swiglu(self, g, v, beta):
        if g.dtype == torch.float32 and v.dtype == torch.float32 and swiglu_float32_supported(beta):
            return swiglu_float32(g, v, beta)
        return self.swish(g, beta) * v

    def swish_grad(self, x, beta):
        if x.dtype == torch.float32 and swish_grad_float32_supported(beta):
            return swish_grad_float32(x, beta)
        return super().swish_grad(x, beta)


FLOAT32_SWISH_COMPILED_TORCH = SwishFloat32CompiledTorchOps()
# Entries whose float32 forward meets its goal (kernels/precision.py) only with swish_float32: float32 x *
# sigmoid(beta x) is 52 ULP where the gate is subnormal, quick_gelu 21 from the rounded 1.702 x.
FLOAT32_SWISH_ENTRIES = frozenset({"silu", "swish", "swiglu", "quick_gelu"})


class MishFloat32CompiledTorchOps(NarrowCompiledTorchOps):
    """The compiled namespace for float32 inputs of the entries in `FLOAT32_MISH_ENTRIES`: where they compute in
    float32, mish is `mish_float32` (one rounding of x n / (n + 2)); its derivative keeps the plain float32
    composition there (the entries' backward computes in float64: `mish_grad_float64_narrow`)."""

    name = "torch-compiled-float32-mish"

    def mish(self, x):
        return mish_float32(x) if x.dtype == torch.float32 else super().mish(x)


FLOAT32_MISH_COMPILED_TORCH = MishFloat32CompiledTorchOps()
# Entries whose float32 forward meets its goal (kernels/precision.py) only with mish_float32: the float32
# composition x * tanh(softplus(x)) is 154 ULP where the gate is subnormal (x = -102.9).
FLOAT32_MISH_ENTRIES = frozenset({"mish"})


class HalfCompiledTorchOps(NarrowCompiledTorchOps):
    """The compiled namespace for bfloat16 and float16 inputs (computed in float32 on the CPU fused path):
    erfc, Phi and phi in float32 arithmetic (`erfc_float32`, `norm_cdf_float32`, `norm_pdf_float32`: a few
    float32 ULP, 2^-16 of a bf16 ULP), in place of inductor's float32 erfc of the rounded -x/sqrt2 (off by
    ~x^2 float32 ULP in the tail) and e^{-x^2/2} of a rounded x^2/2."""

    name = "torch-compiled-half"

    def sin_of_product(self, x, w):
        return sin_cos_of_product(x, w, self.io_dtype, "sin", narrower_output=x.dtype == torch.float32)

    @staticmethod
    def erfc(x):
        return erfc_float32(x) if x.dtype == torch.float32 else NarrowCompiledTorchOps.erfc(x)

    @staticmethod
    def norm_cdf(x):
        return norm_cdf_float32(x) if x.dtype == torch.float32 else NarrowCompiledTorchOps.norm_cdf(x)

    @staticmethod
    def norm_pdf(x):
        return norm_pdf_float32(x) if x.dtype == torch.float32 else TorchOps.norm_pdf(x)

    def gelu_grad(self, x):
        return gelu_grad_float32(x) if x.dtype == torch.float32 else super().gelu_grad(x)

    # Inductor's float32 sin and cos (Sleef's vector forms: 1.5 ULP on this sample, 2-3 ULP on some ISAs) are
    # 2^-13 of an fp16 ULP and 2^-16 of a bf16 ULP: CompiledTorchOps' float64 detour, kept for float32 outputs,
    # cost the half inputs of siren, gcu, sin and cosine ~4x (siren bf16 forward, 32K elements: 7x torch's
    # sin(30 x)). Measured on every bf16 and fp16 value (fused route, against the float64 path): no
    # entry's max half ULP moved past its earlier value by more than 1e-4.
    @staticmethod
    def sin(x):
        return torch.sin(x)

    @staticmethod
    def cos(x):
        return torch.cos(x)


def _for_inputs(ops: CompiledTorchOps, io_dtype: torch.dtype) -> CompiledTorchOps:
    ops.io_dtype = io_dtype
    return ops


HALF_COMPILED_TORCH = _for_inputs(HalfCompiledTorchOps(), torch.bfloat16)
FLOAT16_COMPILED_TORCH = _for_inputs(HalfCompiledTorchOps(), torch.float16)


class HalfCancellingSinCompiledTorchOps(HalfCompiledTorchOps):
    """The half namespace of `HALF_FLOAT64_SINCOS_ENTRIES`: sin and cos through float64.
    snake's derivative 1 + 2 sin(ax) cos(ax) cancels at its double zeros, so the float32 sin's error shows in
    half ULP there (fp16 backward on every fp16 value: 1.55 ULP with the float64 detour, 1.89 without)."""

    name = "torch-compiled-half-float64-sincos"

    @staticmethod
    def sin(x):
        return torch.sin(x.double()).to(x.dtype) if x.dtype == torch.float32 else torch.sin(x)

    @staticmethod
    def cos(x):
        return torch.cos(x.double()).to(x.dtype) if x.dtype == torch.float32 else torch.cos(x)


HALF_FLOAT64_SINCOS_COMPILED_TORCH = _for_inputs(HalfCancellingSinCompiledTorchOps(), torch.bfloat16)
FLOAT16_FLOAT64_SINCOS_COMPILED_TORCH = _for_inputs(HalfCancellingSinCompiledTorchOps(), torch.float16)
HALF_FLOAT64_SINCOS_ENTRIES = frozenset({"snake", "snake_beta"})


def ops_for(io_dtype: torch.dtype, entry: str | None = None) -> CompiledTorchOps:
    """The namespace of the generated CPU functions of `entry` for inputs of `io_dtype` (constants while
    tracing)."""
    if io_dtype == torch.float64:
        return COMPILED_TORCH
    if io_dtype == torch.float32:
        if entry in FLOAT32_SWISH_ENTRIES:
            return FLOAT32_SWISH_COMPILED_TORCH
        if entry in FLOAT32_MISH_ENTRIES:
            return FLOAT32_MISH_COMPILED_TORCH
        return FLOAT32_COMPILED_TORCH if entry in FLOAT32_SIGMOID_ENTRIES else NARROW_COMPILED_TORCH
    if io_dtype == torch.float16:
        return FLOAT16_FLOAT64_SINCOS_COMPILED_TORCH if entry in HALF_FLOAT64_SINCOS_ENTRIES else FLOAT16_COMPILED_TORCH
    return HALF_FLOAT64_SINCOS_COMPILED_TORCH if entry in HALF_FLOAT64_SINCOS_ENTRIES else HALF_COMPILED_TORCH
