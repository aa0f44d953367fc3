"""float32 CPU kernels written by hand with ATen's vector types and FMA: tanh and sigmoid, forward and backward.

The generated float32 forms (`nonlin.ops.torch_compiled`: sigmoid_float32, the float64-assembled sech2) are
exact to ~1 ULP but cost 1.7-3 ns per element as inductor compiles them (no FMA: inductor builds with
-ffp-contract=off and has no fused multiply-add op, so every exact product is Dekker's, ~17 operations), where
torch.sigmoid takes ~0.5 on one AVX-512 core. Here the same idea, e^z carried as 2^k (Eh + El) to ~2^-26 and
one quotient corrected by its exact remainder, is written with `at::vec::fmadd` (one instruction): about 45
vector operations per 16 elements. Built by inductor's C++ toolchain (`CppPythonBindingsCodeCache`, as
`nonlin.kernels.gather`): its compiler, flags and vector ISA on this machine.

Only +, -, *, /, fma, round-to-nearest-even, min/max, bit operations and an int32 -> float32 bit cast (AVX-512's
vscalefps for a power-of-two scale, which rounds once as the portable two-step form does): every operation is
correctly rounded IEEE arithmetic, so the bits are the same under AVX2 and AVX-512 (tests/kernels/
test_native32.py runs under each in .ci/isa_matrix.py). Where inductor picks no vector ISA it builds with its
fast-math flags, which reassociate the error-free sums: there these kernels are not used (`available`) and the
generated ones run. The tail of an array (fewer than a vector's elements) runs the same vector code on a
partial load.

Which entries take these kernels: those whose traced forward is one of `FORMS` of the input (sigmoid(x),
tanh(x), swish(x, 1): the catalog's sigmoid, tanh, silu and swish at its default beta, and any entry declared
the same way); the backward is that function's derivative, whatever form the entry declares it in (the forward
fixes the function).
tests/kernels/test_native32.py measures both against float64 on dense sets of every binade and on the edges.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Callable

import torch

# Below this many elements one thread does it all (an OpenMP fork costs a few microseconds).
PARALLEL_NUMEL = 1 << 16

_PRELUDE = r"""
#include <torch/csrc/inductor/cpp_prefix.h>
#include <ATen/cpu/vec/vec.h>  // (cpp_prefix.h includes it only where inductor picked a vector ISA)
#include <cmath>
using at::vec::Vectorized;
using VF = Vectorized<float>;
using VI = Vectorized<int32_t>;
constexpr int64_t V = VF::size();

static inline VF C(float v) { return VF(v); }
// CONSTANTS

// a b + c rounded once (`available`: built for AVX2 and AVX-512 only, whose fmadd is the instruction)
static inline VF fma_(VF a, VF b, VF c) { return at::vec::fmadd(a, b, c); }

// 2^k for integer-valued k in [-126, 127], exact (the float's bits)
static inline VF pow2(VF k) {
  return at::vec::cast<float>((at::vec::convert<int32_t>(k) + VI(127)) << VI(23));
}

// e^z for -150 <= z <= 0 as 2^k (h + l): k = round(z / ln2) in [-217, 0], r = z - k ln2 in |r| <= 0.35 to
// 2^-25 |r| (k ln2's high part exact: 16 significant bits times |k| < 2^8), e^r = 1 + r + r^2 q(r) with q the
// fitted degree-5 polynomial of ops.torch_compiled._EXPM1_QUADRATIC (2^-32.8), h = 1 + r + r^2 q rounded and
// l the rest (|l| <= 2^-23): h + l = e^r to ~2^-26 relative
struct Exp { VF h, l, k; };
static inline Exp exp_of(VF k, VF r);
static inline Exp exp_parts(VF z) {
  const VF k = (z * C(1.44269502f)).round();
  return exp_of(k, fma_(k, C(-1.42860677e-06f), fma_(k, C(-0.693145751953125f), z)));
}
// e^(z + zl) for zl below z's last bit (z >= -128: k ln2's high part exact, z - k ln2_hi exact)
static inline Exp exp_parts(VF z, VF zl) {
  const VF k = (z * C(1.44269502f)).round();
  return exp_of(k, fma_(k, C(-1.42860677e-06f), fma_(k, C(-0.693145751953125f), z) + zl));
}
static inline Exp exp_of(VF k, VF r) {
  VF q = fma_(C(0.0001958599459612742f), r, C(0.0013936595059931278f));
  q = fma_(q, r, C(0.008333880454301834f));
  q = fma_(q, r, C(0.04166644811630249f));
  q = fma_(q, r, C(0.166666641831398f));
  q = fma_(q, r, C(0.5f));
  const VF s = (r * r) * q;
  const VF p = r + s;
  const VF h = C(1.0f) + p;
  // (1 - h) + p: the exact rounding error of 1 + p (Fast2Sum: 1 >= |p|), s - (p - r) that of r + s
  const VF l = ((C(1.0f) - h) + p) + (s - (p - r));
  return {h, l, k};
}

// (nh + nl) / (dh + dl) (dl below dh's last bit): the quotient by one reciprocal, corrected by its exact
// remainder; as yh + yl (Fast2Sum), or rounded
static inline void quotient2(VF nh, VF nl, VF dh, VF dl, VF& yh, VF& yl) {
  const VF inv = C(1.0f) / dh;
  const VF y = nh * inv;
  const VF c = (fma_(-y, dh, nh) + fma_(-y, dl, nl)) * inv;
  yh = y + c;
  yl = c - (yh - y);
}
static inline VF quotient(VF nh, VF nl, VF dh, VF dl) {
  const VF inv = C(1.0f) / dh;
  const VF y = nh * inv;
  return y + (fma_(-y, dh, nh) + fma_(-y, dl, nl)) * inv;
}

// go f'(x) near a zero x0 = x0h + x0l of f' (x0h the float32 nearest): f'(x) = d (C0 + d p(d)), d = x - x0 =
// dh - x0l with dh = x - x0h exact (Sterbenz), C0 = c0h + c0l: the product carried as hi + lo, go times it
// rounded once
static inline VF near_zero(VF go, VF dh, VF d, VF p, float x0l, float c0h, float c0l) {
  const VF gl = fma_(d, p, C(c0l));  // C0 + d p(d) = c0h + gl
  const VF vh = dh * C(c0h);
  const VF vl = fma_(dh, C(c0h), -vh) + (dh * gl - C(x0l) * (C(c0h) + gl));
  return fma_(go, vh, go * vl);
}

// u = e^-a = 2^k (h + l) and D = 1 + u = dh + dl (u's part below 2^-126 is far below dh's last bit)
struct OnePlus { Exp e; VF s64, dh, dl; };
static inline OnePlus one_plus(VF z) {
  OnePlus o;
  o.e = exp_parts(z);
  // 2^(k + 64), exact for k >= -190 (sigma's forward: k >= -150); below, 2^-190 (u is then far below dh's
  // last bit, and sigma' scales by k itself)
  o.s64 = pow2(at::vec::maximum(o.e.k + C(64.0f), C(-126.0f)));
  const VF t = o.s64 * C(0x1p-64f);  // 2^k, subnormal or 0 below k = -126
  const VF uh = o.e.h * t, ul = o.e.l * t;
  o.dh = C(1.0f) + uh;
  o.dl = ((C(1.0f) - o.dh) + uh) + ul;  // (Fast2Sum: 1 >= uh)
  return o;
}

// 2^k y for |y| < 2^131 and k in [-300, 64], rounded once: k = ka + kb, kb = max(k, -126); y 2^ka (two exact
// steps of at least 2^-87) is normal wherever y 2^k is not below 2^-150, so only the last step rounds
// (AVX-512: one vscalefps, which rounds once too: the same bits)
static inline VF scaled(VF y, VF k) {
#if defined(CPU_CAPABILITY_AVX512)
  return VF(_mm512_scalef_ps(y, k));
#else
  const VF kb = at::vec::maximum(k, C(-126.0f));
  const VF ka = k - kb, k1 = (ka * C(0.5f)).floor();
  return ((y * pow2(k1)) * pow2(ka - k1)) * pow2(kb);
#endif
}

static inline VF nan_to(VF y, VF x) { return VF::blendv(y, x, x != x); }

// sigma(x): sigma(-a) = u / (1 + u), sigma(a) = 1 / (1 + u), u = e^-a; the scale 2^k of the first applied
// last (one rounding, also into the subnormal range: sigma(x) < 2^-126 below x = -87.3)
static inline VF sigmoid_f(VF x) {
  const VF a = x.abs();
  const OnePlus o = one_plus(at::vec::maximum(-a, C(-104.0f)));  // e^-104 2^64 < 2^-85: 0 once scaled
  const VF pos = x >= C(0.0f);
  const VF y = quotient(VF::blendv(o.e.h, C(1.0f), pos), VF::blendv(o.e.l, C(0.0f), pos), o.dh, o.dl);
  return nan_to(scaled(y, VF::blendv(o.e.k, C(0.0f), pos)), x);
}

// go c u / (1 + u)^2, u = e^-a = 2^k E (c a power of two): go (c E / D^2) rounded once, then 2^k
static inline VF grad_core(VF go, VF a, float c) {
  // e^-194 2^128 < 2^-151: beyond, 0 times any float32 go (k >= -280)
  const OnePlus o = one_plus(at::vec::maximum(-a, C(-194.0f)));
  const VF ph = o.dh * o.dh;
  const VF pl = fma_(o.dh, o.dh, -ph) + (o.dh + o.dh) * o.dl;  // D^2 = ph + pl (dl^2 < 2^-48 omitted)
  const VF inv = C(1.0f) / ph;
  const VF y = o.e.h * inv;
  const VF r = (fma_(-y, ph, o.e.h) + fma_(-y, pl, o.e.l)) * inv;  // E / D^2 = y + r
  // |go| beyond 2^64 scaled down first (go c E / D^2 would overflow where the result does not)
  const VF big = go.abs() > C(0x1p64f);
  const VF g = VF::blendv(go, go * C(0x1p-64f), big);
  return scaled(fma_(g, y * C(c), g * (r * C(c))), o.e.k + (big & C(64.0f)));
}

// go sigma'(x) = go sigma(x) sigma(-x)
static inline VF sigmoid_grad_f(VF go, VF x) { return nan_to(grad_core(go, x.abs(), 1.0f), x); }

// tanh(x) = sign(x) (1 - u) / (1 + u), u = e^-2|x| (2|x| exact); 1 - u from h + l exactly where u is near 1
// (k = 0: 1 - h exact), so no cancellation near 0; beyond |x| = 12 the quotient rounds to 1
static inline VF tanh_f(VF x) {
  const VF a = x.abs();
  const OnePlus o = one_plus(at::vec::maximum(a * C(-2.0f), C(-24.0f)));
  const VF t = pow2(o.e.k);
  const VF uh = o.e.h * t, ul = o.e.l * t;
  const VF nh = C(1.0f) - uh;
  const VF nl = ((C(1.0f) - nh) - uh) - ul;  // (Fast2Sum: 1 >= uh)
  VF y = quotient(nh, nl, o.dh, o.dl);
  // below 2^-12, a - a^3/3 rounded once (the omitted 2a^5/15 is under 2^-50 a), where the quotient's first-order
  // correction leaves up to 1 ULP
  y = VF::blendv(y, fma_((a * a) * C(-0.333333343f), a, a), a < C(0x1p-12f));
  return nan_to(y | (x & C(-0.0f)), x);  // x's sign bit on |tanh x| (-0 stays -0)
}

// go sech^2(x) = go 4u / (1 + u)^2, u = e^-2|x| (sech^2 x = 4 sigma'(2x))
static inline VF tanh_grad_f(VF go, VF x) { return nan_to(grad_core(go, x.abs() * C(2.0f), 4.0f), x); }

// silu(x) = x sigma(x): x / (1 + u) for x >= 0, [x E / D] 2^k for x < 0 (x E an exact two-product plus x El), the
// whole product rounded once; x's sign on the result (-0 stays -0); beyond 20 it rounds to x, below -111 to -0
static inline VF silu_f(VF x) {
  const VF a = x.abs();
  const OnePlus o = one_plus(at::vec::maximum(-a, C(-111.0f)));
  const VF pos = x >= C(0.0f);
  const VF xc = at::vec::maximum(x, C(-111.0f));  // (-inf: finite products)
  const VF ph = xc * o.e.h;
  const VF pl = fma_(xc, o.e.h, -ph) + xc * o.e.l;
  const VF y = quotient(VF::blendv(ph, x, pos), VF::blendv(pl, C(0.0f), pos), o.dh, o.dl);
  VF r = scaled(y, VF::blendv(o.e.k, C(0.0f), pos));
  r = VF::blendv(r, x, x > C(20.0f));  // (inf stays inf)
  r = VF::blendv(r.abs(), C(0.0f), x < C(-111.0f)) | (x & C(-0.0f));
  return nan_to(r, x);
}

// silu'(x) = N / D^2: N = 1 + u (1 + x) for x >= 0 (positive terms), N = E (1 + x + u) 2^k for x < 0 (u = e^-|x|,
// each sum and product carried as hi + lo); near its zero x0 = -1.2785 the polynomial in d = x - x0 of
// ops.torch_compiled.swish_grad_float32 (the same fit); go times it rounded once, then the scale
static inline VF silu_grad_f(VF go, VF x) {
  const VF xc = at::vec::minimum(at::vec::maximum(x, C(-200.0f)), C(30.0f));  // beyond 30, silu' rounds to 1
  const OnePlus o = one_plus(-xc.abs());
  const VF t = o.s64 * C(0x1p-64f);
  const VF uh = o.e.h * t, ul = o.e.l * t;
  const VF sh = C(1.0f) + xc, sb = sh - C(1.0f);
  const VF sl = (C(1.0f) - (sh - sb)) + (xc - sb);  // 1 + x = sh + sl (TwoSum)
  const VF wh = uh * sh;
  const VF wl = fma_(uh, sh, -wh) + (uh * sl + ul * sh);
  const VF nph = C(1.0f) + wh;
  const VF npl = ((C(1.0f) - nph) + wh) + wl;  // 1 + u (1 + x), u (1 + x) <= 1
  const VF mh = sh + uh, mb = mh - sh;
  const VF ml = ((sh - (mh - mb)) + (uh - mb)) + (sl + ul);  // 1 + x + u (TwoSum)
  const VF qh = o.e.h * mh;
  const VF ql = fma_(o.e.h, mh, -qh) + (o.e.h * ml + o.e.l * mh);
  const VF pos = x >= C(0.0f);
  const VF nh = VF::blendv(qh, nph, pos), nl = VF::blendv(ql, npl, pos);
  const VF ph = o.dh * o.dh;
  const VF pl = fma_(o.dh, o.dh, -ph) + (o.dh + o.dh) * o.dl;
  const VF inv = C(1.0f) / ph;
  const VF y = nh * inv;
  const VF r = (fma_(-y, ph, nh) + fma_(-y, pl, nl)) * inv;
  const VF big = go.abs() > C(0x1p64f);
  const VF g = VF::blendv(go, go * C(0x1p-64f), big);
  VF res = scaled(fma_(g, y, g * r), VF::blendv(o.e.k, C(0.0f), pos) + (big & C(64.0f)));
  const VF dh = x - C(SILU_X0_HI);
  const VF d = dh - C(SILU_X0_LO);
  const VF near = near_zero(go, dh, d, SILU_GRAD_P(d), SILU_X0_LO, SILU_C0_HI, SILU_C0_LO);
  res = VF::blendv(res, near, dh.abs() < C(SILU_GRAD_ZONE));
  // below -200, |go silu'(x)| < 2^-150 for every float32 go: a zero of -go's sign (silu' < 0 there)
  res = VF::blendv(res, (go & C(-0.0f)) ^ C(-0.0f), x < C(-200.0f));
  return nan_to(res, x);
}

// The Gaussian pieces of ops.torch_compiled.norm_cdf_float32 for 0 <= a <= 16, with FMA: e^{-a^2/2} = 2^k E
// (a^2 an exact two-product, so the argument is exact to below its last bit), (1 + a) erfcx(a / sqrt2) = 1 + q
// (u = a / (a + 4), q = u Q(2u - 1) with the fit of tools/fit_erfcx_float32.py, 0.043 ULP) and D = 1 + a
// (TwoSum); Phi(-a) = E (1 + q) / (2 D) 2^k, phi(a) = E 2^k / sqrt(2 pi)
struct Gauss { Exp e; VF qh, ql, dh, dl; };
static inline Gauss gauss(VF a) {
  Gauss g;
  const VF sh = a * a;
  g.e = exp_parts(sh * C(-0.5f), fma_(a, a, -sh) * C(-0.5f));
  const VF u = a / (a + C(4.0f));
  const VF t = C(2.0f) * u - C(1.0f);
  const VF q = u * ERFCX_Q(t);
  g.qh = C(1.0f) + q;
  g.ql = (C(1.0f) - g.qh) + q;
  g.dh = C(1.0f) + a;
  const VF b = g.dh - a;
  g.dl = (C(1.0f) - b) + (a - (g.dh - b));
  return g;
}

// gelu(x) = x Phi(x), Phi(-a) = 2^(k-1) W with W = E (1 + q) / D as hi + lo (E (1 + q) an exact two-product, one
// quotient): x W 2^(k-1) for x < 0 (the product rounded once, the scale last), x (1 - Phi(-a)) for x >= 0; beyond
// 6 it rounds to x (Phi(-6) < 2^-29), below -16 to -0; x's sign on the result
static inline VF gelu_f(VF x) {
  const VF a = at::vec::minimum(x.abs(), C(16.0f));
  const Gauss g = gauss(a);
  const VF nh = g.e.h * g.qh;
  const VF nl = fma_(g.e.h, g.qh, -nh) + (g.e.h * g.ql + g.e.l * g.qh);  // E (1 + q)
  VF wh, wl;
  quotient2(nh, nl, g.dh, g.dl, wh, wl);
  const VF km = g.e.k - C(1.0f);
  const VF xc = at::vec::maximum(x, C(-16.0f));
  const VF neg = scaled(fma_(xc, wh, xc * wl), km);
  const VF th = scaled(wh, km), tl = scaled(wl, km);  // Phi(-a) (x < 6: k >= -27, exact)
  const VF oh = C(1.0f) - th;
  const VF ol = ((C(1.0f) - oh) - th) - tl;
  VF r = VF::blendv(neg, fma_(x, oh, x * ol), x >= C(0.0f));
  r = VF::blendv(r, x, x > C(6.0f));  // (inf stays inf)
  r = VF::blendv(r.abs(), C(0.0f), x < C(-16.0f)) | (x & C(-0.0f));
  return nan_to(r, x);
}

// gelu'(x) = Phi(x) + x phi(x) = 2^k E B for x < 0 and 1 - 2^k E B for x >= 0, B = (1 + q) / (2 D) - a / sqrt(2 pi)
// (each term hi + lo, their difference a TwoSum); near the zero x0 = -0.7518 (|x - x0| < 1/4) the fit of
// ops.torch_compiled.gelu_grad_float32; go times it rounded once, then the scale. Below -16 a zero of -go's sign
// (x phi(x) dominates; for |go| < 2^60 the product is below 2^-150 there)
static inline VF gelu_grad_f(VF go, VF x) {
  const VF a = at::vec::minimum(x.abs(), C(16.0f));
  const Gauss g = gauss(a);
  VF th, tl;
  quotient2(g.qh * C(0.5f), g.ql * C(0.5f), g.dh, g.dl, th, tl);
  const VF ah = a * C(INV_SQRT_2PI_HI);
  const VF al = fma_(a, C(INV_SQRT_2PI_HI), -ah) + a * C(INV_SQRT_2PI_LO);
  const VF bh = th - ah, bb = bh - th;
  const VF bl = ((th - (bh - bb)) + (-ah - bb)) + (tl - al);  // B = T - A (TwoSum)
  const VF ebh = g.e.h * bh;
  const VF ebl = fma_(g.e.h, bh, -ebh) + (g.e.h * bl + g.e.l * bh);
  const VF big = go.abs() > C(0x1p64f);
  const VF gs = VF::blendv(go, go * C(0x1p-64f), big);
  const VF neg = scaled(fma_(gs, ebh, gs * ebl), g.e.k + (big & C(64.0f)));
  const VF sh = scaled(ebh, g.e.k), sl = scaled(ebl, g.e.k);
  const VF oh = C(1.0f) - sh;
  const VF ol = ((C(1.0f) - oh) - sh) - sl;
  VF res = VF::blendv(neg, fma_(go, oh, go * ol), x >= C(0.0f));
  const VF dh = x - C(GELU_X0_HI);
  const VF d = dh - C(GELU_X0_LO);
  const VF near = near_zero(go, dh, d, GELU_GRAD_P(d), GELU_X0_LO, GELU_C0_HI, GELU_C0_LO);
  res = VF::blendv(res, near, dh.abs() < C(GELU_ZONE));
  res = VF::blendv(res, (go & C(-0.0f)) ^ C(-0.0f), x < C(-16.0f));
  return nan_to(res, x);
}

template <class F> static inline void for_chunks(int64_t n, int64_t threads, F f) {
  constexpr int64_t chunk = 16384;
  const int64_t blocks = (n + chunk - 1) / chunk;
  #pragma omp parallel for num_threads(threads) schedule(static) if(threads > 1)
  for (int64_t b = 0; b < blocks; ++b) f(b * chunk, std::min(n, (b + 1) * chunk));
}
"""

_UNARY = r"""
extern "C" void kernel(const float* x, float* out, int64_t n, int64_t threads) {
  for_chunks(n, threads, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    for (; i + V <= end; i += V) FN(VF::loadu(x + i)).store(out + i);
    if (i < end) FN(VF::loadu(x + i, end - i)).store(out + i, end - i);
  });
}
"""

_GRAD = r"""
extern "C" void kernel(const float* go, const float* x, float* out, int64_t n, int64_t threads) {
  for_chunks(n, threads, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    for (; i + V <= end; i += V) FN(VF::loadu(go + i), VF::loadu(x + i)).store(out + i);
    if (i < end) FN(VF::loadu(go + i, end - i), VF::loadu(x + i, end - i)).store(out + i, end - i);
  });
}
"""

# kernel -> (forward C++ function, derivative C++ function); each kernel's name is also the catalog entry whose
# function it computes
PRIMITIVES: dict[str, tuple[str, str]] = {
    "sigmoid": ("sigmoid_f", "sigmoid_grad_f"),
    "tanh": ("tanh_f", "tanh_grad_f"),
    "silu": ("silu_f", "silu_grad_f"),
    "gelu": ("gelu_f", "gelu_grad_f"),
}

_BUILT: dict[tuple[str, str], Callable | None] = {}
_LOCK = threading.Lock()


_AVAILABLE: list[bool] = []


def available() -> bool:
    """Whether inductor builds for AVX2 or AVX-512 here (ATEN_CPU_CAPABILITY and its own detection decide): the
    ISAs whose FMA the kernels use and whose flags keep IEEE arithmetic; elsewhere the generated kernels run."""
    if not _AVAILABLE:
        try:
            from torch._inductor import cpu_vec_isa

            name = str(cpu_vec_isa.pick_vec_isa())
        except Exception:  # no inductor on this platform
            name = ""
        _AVAILABLE.append(name.split()[0] in ("avx2", "avx512") if name else False)
    return _AVAILABLE[0]


def kernel(primitive: str, which: str) -> Callable | None:
    """The compiled kernel of `primitive` (a key of PRIMITIVES), `which` "fwd" (x -> y) or "bwd" ((go, x) ->
    go f'(x)), built once; None where compilation is off or failed, or the ISA is not one the kernels are for
    (the caller takes the generated kernels)."""
    key = (primitive, which)
    if key in _BUILT:
        return _BUILT[key]
    from nonlin.kernels import cpu

    with _LOCK:
        if key not in _BUILT:
            k = None
            if cpu.compile_available() and available():
                try:
                    k = _compile(primitive, which)
                except Exception as e:  # compiler missing or broken
                    cpu.disable_compile(f"{type(e).__name__}: {e}")
                    warnings.warn(
                        f"nonlin: compiling the float32 {primitive} kernel failed ({type(e).__name__}); the "
                        "generated kernels run from now on",
                        RuntimeWarning,
                        stacklevel=2,
                    )
            _BUILT[key] = k
    return _BUILT[key]


_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _f32_value(v: float) -> float:
    return float(torch.tensor(v, dtype=torch.float32))


def _f32(v: float) -> str:
    """v rounded to float32, as an exact C++ hexadecimal float literal."""
    return _f32_value(v).hex() + "f"


def _horner(coefficients) -> str:
    """A C++ macro body evaluating the polynomial (highest degree first) at d by fma."""
    expr = f"C({_f32(coefficients[0])})"
    for c in coefficients[1:]:
        expr = f"fma_({expr}, d, C({_f32(c)}))"
    return expr


def _constants() -> str:
    """The fitted constants the kernels share with ops.torch_compiled's float32 forms (one source)."""
    from nonlin.ops import torch_compiled as tc

    values = {
        "SILU_X0_HI": tc._SILU_X0_HI,
        "SILU_X0_LO": tc._SILU_X0_LO,
        "SILU_C0_HI": tc._SILU_C0_HI,
        "SILU_C0_LO": tc._SILU_C0_LO,
        "SILU_GRAD_ZONE": tc._SILU_GRAD_ZONE,
    }
    c0_hi = _f32_value(tc._GELU_C0)
    values.update(
        GELU_X0_HI=tc._GELU_X0_HI,
        GELU_X0_LO=tc._GELU_X0_LO,
        GELU_C0_HI=c0_hi,
        GELU_C0_LO=tc._GELU_C0 - c0_hi,
        GELU_ZONE=tc._GELU_ZONE,
        INV_SQRT_2PI_HI=_f32_value(_INV_SQRT_2PI),
        INV_SQRT_2PI_LO=_INV_SQRT_2PI - _f32_value(_INV_SQRT_2PI),
    )
    lines = [f"#define {k} {_f32(v)}" for k, v in values.items()]
    lines.append(f"#define SILU_GRAD_P(d) ({_horner(tc._SILU_GRAD_P)})")
    lines.append(f"#define GELU_GRAD_P(d) ({_horner(tc._GELU_GRAD_P)})")
    lines.append(f"#define ERFCX_Q(d) ({_horner(tc._ERFCX_Q)})")
    assert tc._ERFCX_K == 4.0 and tc._PHI_LIMIT == 16.0  # (gauss's u = a / (a + 4), a <= 16)
    return "\n".join(lines) + "\n"


def _compile(primitive: str, which: str) -> Callable:
    from torch._inductor.codecache import CppPythonBindingsCodeCache

    fwd, bwd = PRIMITIVES[primitive]
    prelude = _PRELUDE.replace("// CONSTANTS", _constants())
    if which == "fwd":
        src = prelude + _UNARY.replace("FN", fwd)
        return CppPythonBindingsCodeCache.load_pybinding(["const float*", "float*", "int64_t", "int64_t"], src)
    src = prelude + _GRAD.replace("FN", bwd)
    return CppPythonBindingsCodeCache.load_pybinding(
        ["const float*", "const float*", "float*", "int64_t", "int64_t"], src
    )


def built(primitive: str, which: str) -> bool:
    return (primitive, which) in _BUILT


def _threads(n: int) -> int:
    return torch.get_num_threads() if n >= PARALLEL_NUMEL else 1


def forward(primitive: str, x: torch.Tensor) -> torch.Tensor | None:
    """f(x) for a contiguous float32 CPU tensor, or None where the kernel is not available."""
    k = kernel(primitive, "fwd")
    if k is None:
        return None
    out = torch.empty_like(x)
    k(x, out, x.numel(), _threads(x.numel()))
    return out


def backward(primitive: str, go: torch.Tensor, x: torch.Tensor) -> torch.Tensor | None:
    """go f'(x) for contiguous float32 CPU tensors of one shape, or None where the kernel is not available."""
    k = kernel(primitive, "bwd")
    if k is None:
        return None
    out = torch.empty_like(x)
    k(go, x, out, x.numel(), _threads(x.numel()))
    return out


# The traced forms each kernel computes: (op, arguments), "x" the input (a catalog entry's forward traced to one
# of these is that function, whatever else its declaration says)
FORMS: dict[str, tuple] = {
    "sigmoid": ("sigmoid", "x"),
    "tanh": ("tanh", "x"),
    "silu": ("swish", "x", 1.0),
    "gelu": ("gated", "x", ("norm_cdf", "x")),
}


def primitive_of(plan) -> str | None:
    """The kernel (a key of PRIMITIVES) whose function a pointwise plan's forward is, applied to its input alone,
    or None (also where the kernels are not `available`)."""
    if not available():
        return None
    f = plan.forward
    if len(f.inputs) != 1 or f.params or len(f.outputs) != 1:
        return None
    y = f.outputs[0]

    def matches(a, b) -> bool:
        if isinstance(b, tuple):  # a nested node
            return getattr(a, "op", None) == b[0] and len(a.args) == len(b) - 1 and all(map(matches, a.args, b[1:]))
        return a is f.inputs[0] if b == "x" else (not hasattr(a, "op") and a == b)

    for name, (op, *args) in FORMS.items():
        if getattr(y, "op", None) == op and len(y.args) == len(args) and all(map(matches, y.args, args)):
            return name
    return None


# Inside a caller's torch.compile the kernels are these two ops, opaque to inductor (its code for the generated
# float32 forms is what these kernels replace), so that a compiled model computes what an eager one does, bit
# for bit. Where a kernel is not built (compilation turned off since), the entry's float64 formula of the same
# name, rounded once.
@torch.library.custom_op("nonlin::native32", mutates_args=())
def traced_forward(x: torch.Tensor, primitive: str) -> torch.Tensor:
    flat = x.contiguous().view(-1)
    y = forward(primitive, flat)
    if y is None:
        from nonlin.ops import TORCH
        from nonlin.registry import spec

        y = spec(primitive).forward(TORCH, flat.double()).to(x.dtype)
    return y.view(x.shape)


@traced_forward.register_fake
def _(x, primitive):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


@torch.library.custom_op("nonlin::native32_grad", mutates_args=())
def traced_backward(go: torch.Tensor, x: torch.Tensor, primitive: str) -> torch.Tensor:
    flat, g = x.contiguous().view(-1), go.contiguous().view(-1)
    out = backward(primitive, g, flat)
    if out is None:
        from nonlin.ops import TORCH
        from nonlin.registry import spec

        out = (g.double() * spec(primitive).derivative(TORCH, flat.double())).to(x.dtype)
    return out.view(x.shape)


@traced_backward.register_fake
def _(go, x, primitive):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)
