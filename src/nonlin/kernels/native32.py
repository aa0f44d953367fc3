"""float32 CPU kernels written by hand with ATen's vector types and FMA: sigmoid, tanh, silu, quick_gelu, gelu,
gelu_tanh, elu, selu, tanhshrink, softcap, clipped_gelu, laplace, ndtr, hardswish, lecun_tanh, lisht, tanhexp,
siren, sqrtsoftplus, gcu, snake, snake_beta, mish, mila, golu, derf, sau, serf, log_ndtr, log_sigmoid, softplus, glu,
swiglu, geglu, gtu, situ_glu, swiglustep and clamped_swiglu, forward and backward (entries with parameters at their
defaults, compiled in).

The generated float32 forms (`nonlin.ops.torch_compiled`: sigmoid_float32, the float64-assembled sech2) are
exact to ~1 ULP but cost 1.7-3 ns per element as inductor compiles them (no FMA: inductor builds with
-ffp-contract=off and has no fused multiply-add op, so every exact product is Dekker's, ~17 operations), where
torch.sigmoid takes ~0.5 on one AVX-512 core. Here the same idea, e^z carried as 2^k (Eh + El) to ~2^-26 and
one quotient corrected by its exact remainder, is written with `at::vec::fmadd` (one instruction): about 45
vector operations per 16 elements. Built by inductor's C++ toolchain (`CppPythonBindingsCodeCache`, as
`nonlin.kernels.gather`): its compiler, flags and vector ISA on this machine, with `nonlin.kernels.mask_moves`'
comparison masks (ATen's AVX-512 ones wait on the previous vector's work: elu's forward 1.75 -> 0.70 ns per element).

Only +, -, *, /, fma, round-to-nearest-even, min/max, bit operations, table lookups by a lane's index (the
interval tables: the floor of P x + 16 converted to int32, exact, then vpermt2ps, or under AVX2 each lane's row of
the table's copy by interval and an 8 x 8 transpose: the same values), an int32 -> float32 bit cast (AVX-512's
vscalefps for a power-of-two scale, which rounds once as the portable two-step form does) and float32 <-> float64
conversions (siren, gcu, snake, snake_beta and sqrtsoftplus compute in doubles, whose range reductions are exact
there, and serf, erf of a softplus, log_ndtr, a log of Phi's tails, log_sigmoid, a softplus, mish and mila, tanh of a
softplus, and golu below -2, beyond their tables), int64 bit operations on doubles, and, for siren's, gcu's and the
snakes' arguments beyond 2^22 only, the C library's double sin and cos (the same scalar calls under either ISA):
every other operation is correctly rounded IEEE arithmetic, so the bits are the same under AVX2 and AVX-512 (tests/kernels/
test_native32.py runs under each in .ci/isa_matrix.py). Where inductor picks no vector ISA it builds with its
fast-math flags, which reassociate the error-free sums: there these kernels are not used (`available`) and the
generated ones run. The tail of an array (fewer than a vector's elements) runs the same vector code on a
partial load.

Which entries take these kernels: those whose traced forward is one of `FORMS` of the input (sigmoid(x),
tanh(x), swish(x, 1), swish(x, 1.702), x Phi(x), elu's and selu's forms, swiglu(g, v, 1), g Phi(g) v,
sigmoid(g) tanh(v), swiglustep's and clamped_swiglu's bodies at limit 7: the catalog's sigmoid, tanh, silu, swish at
beta 1, quick_gelu, gelu, elu at alpha 1, selu, swiglu, geglu, gtu, swiglustep and clamped_swiglu, the entries listed
above, and any entry declared
the same way, less products and quotients by 1 and differences with +0: tempered_sigmoid, xgelu and celu at their
defaults, laplace at mu 0, sigma 1); the backward is that function's derivative, whatever form the entry declares
it in (the forward fixes the function). docs/kernels.md, "float32 by hand-written kernels", has the measured errors
and costs.
tests/kernels/test_native32.py measures both against float64 on dense sets of every binade and on the edges.
No lane forms a subnormal it does not return (`one_plus_of`): each one costs a microcode assist on x86, which
had made tail inputs up to 10x slower (benchmarks/tails.py).
Each vector first asks whether any lane needs a special case (a clamp, a far tail, an infinity, NaN): where none
does (`every`), the kernel runs its plain form, the same operations less those compares and blends (sigmoid's
forward, before its form below: 47 instructions per 16 elements against 81, as GCC 12 built them), so the same bits; tests/kernels/test_native32.py compares the two. Under AVX-512 the
range checks of the near forms and tables compare into mask registers (`every_abs_below`, `every_table_lane`):
2-5% of a forward's time, 5-12% of a backward's.
sigmoid's forward below |x| = 69 has a form of its own (`sigmoid_near`: the exponential rounded to float32, 1.47
ULP where the goal is 2, in about torch.sigmoid's operation count), and so has silu's from -68 to 20
(`silu_near`: sigmoid_near's form times x, 1.69 ULP); so have sigmoid's, tanh's and silu's backward, quick_gelu
and gelu_tanh (silu's forms on their z with the exponential carried as uh + ul, `silu_near_of`,
`silu_grad_near_of`), gelu,
geglu and clipped_gelu below |x| = 4 from interval tables (a degree-6 polynomial per quarter, its coefficients
looked up per lane: `table_parts`; so are serf, tanhexp, tanhshrink, lisht, lecun_tanh, sqrtsoftplus, log_ndtr,
log_sigmoid, mish, mila, golu, derf, sau and silu's derivative) and beyond from
-9 up (`gauss_near`: e^{-a^2/2} from the same exponential, erfcx's fit by Estrin's scheme, one corrected
quotient), ndtr and laplace on every finite z (the same pieces, the exponential scaled by a power of two chosen per
lane in the far tails: `norm_cdf_near`, `pdf_near`), swiglu, glu and gtu for |g| <= 60
(`sigma_near_parts`), and tanhshrink's derivative (its exact form less the scale): each needs no scale in
its range, and every such lane takes it whatever its neighbours are (a vector with another lane computes both
forms and blends).
Without AVX-512's vscalefps, the scale 2^k is one product wherever every lane's k is a normal power of two (the
same single rounding), so the stepwise scale runs only where a lane needs it.
Every helper is inlined (`ALWAYS`): GCC 12 had left some out of line, a call per vector (5-10% of the time).
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch

from nonlin.catalog.smooth import SELU_ALPHA, SELU_SCALE
from nonlin.kernels import cpp_ops, graph_ops, mask_moves
from nonlin.kernels.gather import empty, packed_halves, row_layout
from nonlin.spec import Kind

# Below this many elements one thread does it all (an OpenMP fork costs a few microseconds).
PARALLEL_NUMEL = 1 << 16

_PRELUDE = r"""
#include <torch/csrc/inductor/cpp_prefix.h>
#include <ATen/cpu/vec/vec.h>  // (cpp_prefix.h includes it only where inductor picked a vector ISA)
#include <cmath>
#include <climits>
using at::vec::Vectorized;
using VF = Vectorized<float>;
using VI = Vectorized<int32_t>;
constexpr int64_t V = VF::size();

// Every helper is inlined: GCC 12 left some out of line (softcap_f, sigma_grad, the gated gradients, ...), so
// that each vector was a call, with every vector register spilled around it and the gated gradients' two results
// through the stack
#define ALWAYS __attribute__((always_inline))
ALWAYS static inline VF C(float v) { return VF(v); }
// CONSTANTS

// a b + c rounded once (`available`: built for AVX2 and AVX-512 only, whose fmadd is the instruction)
ALWAYS static inline VF fma_(VF a, VF b, VF c) { return at::vec::fmadd(a, b, c); }

// 2^k for integer-valued k in [-126, 127], exact (the float's bits)
ALWAYS static inline VF pow2(VF k) {
  return at::vec::cast<float>((at::vec::convert<int32_t>(k) + VI(127)) << VI(23));
}

// e^z for -150 <= z <= 0 as 2^k (h + l): k = round(z / ln2) in [-217, 0], r = z - k ln2 in |r| <= 0.35 to
// 2^-25 |r| (k ln2's high part exact: 16 significant bits times |k| < 2^8), e^r = 1 + r + r^2 q(r) with q the
// fitted degree-5 polynomial of ops.torch_compiled._EXPM1_QUADRATIC (2^-32.8), h = 1 + r + r^2 q rounded and
// l the rest (|l| <= 2^-23): h + l = e^r to ~2^-26 relative
// (The helpers fill these structs of vectors through references rather than return them: GCC (12 here), tuned to
// move 256 bits at a time on AVX-512 CPUs, copies an assigned struct of vectors through the stack in 32-byte halves
// read back as one 64-byte load, a failed store-to-load forwarding that cost half of every kernel's time.)
struct Exp { VF h, l, k; };
ALWAYS static inline void exp_of(VF k, VF r, Exp& e);
ALWAYS static inline void exp_parts(VF z, Exp& e) {
  const VF k = (z * C(1.44269502f)).round();
  exp_of(k, fma_(k, C(-1.42860677e-06f), fma_(k, C(-0.693145751953125f), z)), e);
}
// e^(z + zl) for zl below z's last bit (z >= -128: k ln2's high part exact, z - k ln2_hi exact)
ALWAYS static inline void exp_parts(VF z, VF zl, Exp& e) {
  const VF k = (z * C(1.44269502f)).round();
  exp_of(k, fma_(k, C(-1.42860677e-06f), fma_(k, C(-0.693145751953125f), z) + zl), e);
}
// e^r - 1 = p + pe (|r| <= 0.35): r + r^2 q, its rounding error pe exact (Fast2Sum: |r| >= |r^2 q|)
ALWAYS static inline void expm1_tail(VF r, VF& p, VF& pe) {
  VF q = fma_(C(0.0001958599459612742f), r, C(0.0013936595059931278f));
  q = fma_(q, r, C(0.008333880454301834f));
  q = fma_(q, r, C(0.04166644811630249f));
  q = fma_(q, r, C(0.166666641831398f));
  q = fma_(q, r, C(0.5f));
  const VF s = (r * r) * q;
  p = r + s;
  pe = s - (p - r);
}
ALWAYS static inline void exp_of(VF k, VF r, Exp& e) {
  VF p, pe;
  expm1_tail(r, p, pe);
  e.h = C(1.0f) + p;
  // (1 - h) + p: the exact rounding error of 1 + p (Fast2Sum: 1 >= |p|)
  e.l = ((C(1.0f) - e.h) + p) + pe;
  e.k = k;
}

// (nh + nl) / (dh + dl) (dl below dh's last bit): the quotient by one reciprocal, corrected by its exact
// remainder; as yh + yl (Fast2Sum), or rounded
ALWAYS static inline void quotient2(VF nh, VF nl, VF dh, VF dl, VF& yh, VF& yl) {
  const VF inv = C(1.0f) / dh;
  const VF y = nh * inv;
  const VF c = (fma_(-y, dh, nh) + fma_(-y, dl, nl)) * inv;
  yh = y + c;
  yl = c - (yh - y);
}
ALWAYS static inline VF quotient(VF nh, VF nl, VF dh, VF dl) {
  const VF inv = C(1.0f) / dh;
  const VF y = nh * inv;
  return y + (fma_(-y, dh, nh) + fma_(-y, dl, nl)) * inv;
}

// b where the mask's sign bit is set, a elsewhere: a comparison's mask (all ones or zeros) or a value's sign (a
// negative value or -0 selects b). Every float blend goes through here, so that both ISAs apply one rule: AVX2's
// blendv reads the sign bit alone, but ATen's AVX-512 Vectorized<float>::blendv selects only lanes whose mask is
// all ones (a value's sign as its mask had picked wrong lanes on AVX-512 only), and takes two more instructions per
// blend (the comparison's mask made a vector and compared back), which had cost silu's backward a quarter of its
// time on an AVX-512 core
ALWAYS static inline VF blend(VF a, VF b, VF mask) {
#if defined(CPU_CAPABILITY_AVX512)
  return VF(_mm512_mask_blend_ps(_mm512_movepi32_mask(_mm512_castps_si512(mask)), a, b));
#else
  return VF(_mm256_blendv_ps(a, b, mask));
#endif
}

// A value as (h + l) 2^k, l below h's last bit (or 0)
struct Parts { VF h, l, k; };
ALWAYS static inline Parts blend(const Parts& a, const Parts& b, VF mask) {
  return {blend(a.h, b.h, mask), blend(a.l, b.l, mask), blend(a.k, b.k, mask)};
}

// f'(x) near a zero x0 = x0h + x0l of f' (x0h the float32 nearest): f'(x) = d (C0 + d p(d)), d = x - x0 =
// dh - x0l with dh = x - x0h exact (Sterbenz), C0 = c0h + c0l: the product carried as hi + lo
ALWAYS static inline Parts near_zero(VF dh, VF d, VF p, float x0l, float c0h, float c0l) {
  const VF gl = fma_(d, p, C(c0l));  // C0 + d p(d) = c0h + gl
  const VF vh = dh * C(c0h);
  return {vh, fma_(dh, C(c0h), -vh) + (dh * gl - C(x0l) * (C(c0h) + gl)), C(0.0f)};
}

// u = e^-a = 2^k (h + l) = uh + ul and D = 1 + u = dh + dl; uh = ul = 0 below k = -100 (u is then far below dh's
// last bit, and sigma' scales by k itself). No subnormal is formed: an operation that makes or reads one takes a
// microcode assist on x86 (~150 cycles), which had made the kernels up to 10x slower on inputs whose u is tiny
// (silu at x = -90: 13 ns per element against 1.6)
// (PLAIN: the caller's k >= -100)
struct OnePlus { Exp e; VF uh, ul, dh, dl; };
template <bool PLAIN = false> ALWAYS static inline void one_plus_of(OnePlus& o) {
#if defined(CPU_CAPABILITY_AVX512)
  if constexpr (PLAIN) {  // (h 2^k and l 2^k, each rounded once as the products by 2^k are)
    o.uh = VF(_mm512_scalef_ps(o.e.h, o.e.k));
    o.ul = VF(_mm512_scalef_ps(o.e.l, o.e.k));
  } else
#endif
  {
    const VF t = PLAIN ? pow2(o.e.k) : pow2(at::vec::maximum(o.e.k, C(-100.0f))) & (o.e.k >= C(-100.0f));
    o.uh = o.e.h * t;
    o.ul = o.e.l * t;
  }
  o.dh = C(1.0f) + o.uh;
  o.dl = ((C(1.0f) - o.dh) + o.uh) + o.ul;  // (Fast2Sum: 1 >= uh)
}
template <bool PLAIN = false> ALWAYS static inline void one_plus(VF z, OnePlus& o) {
  exp_parts(z, o.e);
  one_plus_of<PLAIN>(o);
}
// u = e^(z + zl), zl below z's last bit
ALWAYS static inline void one_plus(VF z, VF zl, OnePlus& o) {
  exp_parts(z, zl, o.e);
  one_plus_of(o);
}

// Whether every lane of a comparison's mask is set. A kernel tests it once per vector to take its plain form
// (PLAIN: no clamp, tail, infinity or NaN handled) where no lane needs those cases, each a compare and a blend
// that would otherwise run on every vector (sigmoid's forward had 34 of its 81 instructions). The plain form runs
// the same operations on those lanes, so the bits are the same (tests/kernels/test_native32.py compares the two
// on every binade; notes/2026-12-04c/plain_bits.py on every 7th float32 bit pattern); sigmoid's forward below
// |x| = 69 is its own form (sigmoid_near), which those lanes take in every vector.
ALWAYS static inline bool every(VF mask) {
#if defined(CPU_CAPABILITY_AVX512)
  return _mm512_movepi32_mask(_mm512_castps_si512(mask)) == 0xFFFF;
#else
  return _mm256_movemask_ps(mask) == 0xFF;
#endif
}

// Whether every lane's |x| is below c (NaN's is not), as every(x.abs() < C(c)) with no vector mask made: AVX-512's
// comparison into a mask register tested at once (the mask-to-vector move and back cost silu's forward 5%)
ALWAYS static inline bool every_abs_below(VF x, float c) {
#if defined(CPU_CAPABILITY_AVX512)
  return _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(c), _CMP_LT_OQ) == 0xFFFF;
#else
  return every(x.abs() < C(c));
#endif
}

// Whether no lane of a comparison's mask is set (a kernel skips a piece that only such lanes take)
ALWAYS static inline bool none(VF mask) {
#if defined(CPU_CAPABILITY_AVX512)
  return _mm512_movepi32_mask(_mm512_castps_si512(mask)) == 0;
#else
  return _mm256_movemask_ps(mask) == 0;
#endif
}

// Per-lane lookups in a 64-byte aligned table of 32 floats by each lane's int32 index (0 <= i < 32): AVX-512's
// vpermt2ps (one instruction), AVX2's four vpermps and three blends on the index's bits 3 and 4 (the same values)
#if defined(CPU_CAPABILITY_AVX512)
using LaneIndex = __m512i;
ALWAYS static inline LaneIndex index_of(VF f) { return _mm512_cvttps_epi32(f); }
ALWAYS static inline VF below_32(VF f) { return VF(_mm512_min_ps(f, _mm512_set1_ps(31.0f))); }
ALWAYS static inline VF lookup32(LaneIndex i, const float* t) {
  return VF(_mm512_permutex2var_ps(_mm512_load_ps(t), i, _mm512_load_ps(t + 16)));
}
#else
using LaneIndex = __m256i;
ALWAYS static inline LaneIndex index_of(VF f) { return _mm256_cvttps_epi32(f); }
ALWAYS static inline VF below_32(VF f) { return VF(_mm256_min_ps(f, _mm256_set1_ps(31.0f))); }
ALWAYS static inline VF lookup32(LaneIndex i, const float* t) {
  const __m256 b3 = _mm256_castsi256_ps(_mm256_slli_epi32(i, 28)), b4 = _mm256_castsi256_ps(_mm256_slli_epi32(i, 27));
  const __m256 lo = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_load_ps(t), i),
                                     _mm256_permutevar8x32_ps(_mm256_load_ps(t + 8), i), b3);
  const __m256 hi = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_load_ps(t + 16), i),
                                     _mm256_permutevar8x32_ps(_mm256_load_ps(t + 24), i), b3);
  return VF(_mm256_blendv_ps(lo, hi, b4));
}
// The eight coefficients c[0..7] of every lane's interval at once, from the table's copy by interval (`by_interval`:
// [32][8], interval i's coefficients contiguous, which `_floats_table` appends as the table's last 8 rows): each
// lane's row loaded in two halves and the 8 x 8 block transposed within 128-bit lanes (insertf128, unpack,
// shuffle: ~32 operations where eight `lookup32`s take ~100, of which the blends cost first-generation EPYC two
// micro-ops each). The same values as `lookup32` of each row, so the same bits.
ALWAYS static inline void interval_rows(LaneIndex i, const float* by_interval, VF (&c)[8]) {
  alignas(32) int32_t at[8];
  // (bits 0-4 only, as lookup32 reads them: a lane outside the table's range, whose value the caller discards,
  // or NaN's index, reads an interval all the same)
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), _mm256_and_si256(i, _mm256_set1_epi32(31)));
  __m256 t[8];
  for (int h = 0; h < 2; ++h)
    for (int l = 0; l < 4; ++l)
      t[4 * h + l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(by_interval + 8 * at[l] + 4 * h)),
                                          _mm_load_ps(by_interval + 8 * at[l + 4] + 4 * h), 1);
  for (int h = 0; h < 2; ++h) {
    const __m256 u0 = _mm256_unpacklo_ps(t[4 * h], t[4 * h + 1]), u1 = _mm256_unpackhi_ps(t[4 * h], t[4 * h + 1]);
    const __m256 u2 = _mm256_unpacklo_ps(t[4 * h + 2], t[4 * h + 3]);
    const __m256 u3 = _mm256_unpackhi_ps(t[4 * h + 2], t[4 * h + 3]);
    c[4 * h] = VF(_mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(1, 0, 1, 0)));
    c[4 * h + 1] = VF(_mm256_shuffle_ps(u0, u2, _MM_SHUFFLE(3, 2, 3, 2)));
    c[4 * h + 2] = VF(_mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(1, 0, 1, 0)));
    c[4 * h + 3] = VF(_mm256_shuffle_ps(u1, u3, _MM_SHUFFLE(3, 2, 3, 2)));
  }
}
#endif
// The eight coefficient rows of a table (its first 8 rows; `ROWS` counts the copy by interval, 8 rows more)
// at each lane's interval
template <int ROWS>
ALWAYS static inline void coefficients(LaneIndex i, const float (&tab)[ROWS][32], VF (&c)[8]) {
#if defined(CPU_CAPABILITY_AVX512)
  for (int k = 0; k < 8; ++k) c[k] = lookup32(i, tab[k]);
#else
  interval_rows(i, tab[ROWS - 8], c);
#endif
}

// Interval tables (SILU_GRAD_T, LECUN_TANH_T and sqrtsoftplus's on -8 < x < 8; gelu's, serf's, tanhexp's,
// tanhshrink's, lisht's and log_ndtr's, forward and backward, and lecun_tanh's derivative on -4 < x < 4: a polynomial
// of degree 6 in t per interval, 32 intervals, tools/fit_table_float32.py): the lane's interval i = floor(P x + 16)
// for P = 32 / width of the range (clamped at 31: P x + 16 rounds up to 32 just below the top), t = x - c_i exact (x
// and the center c_i = (i + 1/2) / P - 16 / P share x's grid, and |t| < |x|; below |x| = 1 / P t may round, by 2^-27
// of the function's scale), F = hi + lo + t r(t) with r = c1 + t r2(t) by Horner's scheme, its last step carried as
// rh + rl (c1 - rh exact where |t r2| is within half of c1; elsewhere t r is small against F), t r as qh + ql, and F
// = fh + fl by Fast2Sum (|qh| <= 0.66 hi on every interval of each table). t r reaches 0.66 of F in Phi's left tail
// (Phi'/Phi ~ |x|), where a rounded r, t r or sum had cost up to 1.2 ULP. 8 lookups and ~25 more operations per
// vector where the near forms take ~70 (gelu's gauss_near) or ~60 (silu's derivative)
struct TableAt { LaneIndex i; VF t; };
template <int P> ALWAYS static inline TableAt table_at(VF x) {
  const VF fi = below_32(fma_(x, C((float)P), C(16.0f))).floor();
  return {index_of(fi), x - fma_(fi, C(1.0f / P), C((0.5f - 16.0f) / P))};
}
template <int ROWS>
ALWAYS static inline void table_parts(const TableAt& at, const float (&tab)[ROWS][32], VF& fh, VF& fl) {
  const VF t = at.t;
  VF c[8];
  coefficients(at.i, tab, c);
  VF r = c[7];
  for (int k = 6; k >= 3; --k) r = fma_(r, t, c[k]);
  const VF c1 = c[2];
  const VF rh = fma_(r, t, c1), rl = fma_(r, t, c1 - rh);
  const VF hi = c[0];
  const VF qh = t * rh, ql = fma_(t, rh, -qh) + fma_(t, rl, c[1]);
  fh = hi + qh;
  fl = ((hi - fh) + qh) + ql;
}
// F from the same table in float32 arithmetic alone, where a goal leaves room for its roundings (silu's derivative:
// the goal is 4 ULP): r by Horner's scheme to c1, then c0's high part plus its low part + t r, each rounded (~10
// operations fewer). r's error relative to r is at most ~1.3 2^-24 (c1 dominates it: |t| <= 1/4 on SILU_GRAD_T's
// intervals) and t r's rounding adds one, at most 0.66 |F| of it (the tables' precondition), then the sum's
// rounding: F to 2.5 2^-24, and go F's own rounding: below 3.5 ULP (the goal is 4), measured 2.12 on every 3rd
// float32 in (-8, 8) with go ~ N(0, 1)
ALWAYS static inline VF plain_table_value(const TableAt& at, const float (&tab)[17][32]) {
  const VF t = at.t;
  VF c[8];
  coefficients(at.i, tab, c);
  VF r = c[7];
  for (int k = 6; k >= 2; --k) r = fma_(r, t, c[k]);
  return c[0] + fma_(r, t, c[1]);
}
// f'(x) = fh + fl from a derivative's table with a zero x0 = x0h + x0l: the table's F times m = mh + ml, x - x0 as
// dh - x0l (dh exact: Sterbenz) on the intervals around the zero (the table's last row marks them: -0.0) and 1
// elsewhere, as ph + pl (ph = mh F's high part and its exact error), then fh + fl by Fast2Sum (fh of the product's
// sign also where mh is 0: x at x0's float32 part)
// (PLAIN: F by plain_table_value, no low part: 2.12 ULP for silu's derivative where the carried one gives 0.75)
template <int P, bool PLAIN = false>
ALWAYS static inline void grad_table_parts(VF x, const float (&tab)[17][32], float x0h, float x0l, VF& fh, VF& fl) {
  const TableAt at = table_at<P>(x);
  VF sh, sl;
  if constexpr (PLAIN) sh = plain_table_value(at, tab);
  else table_parts(at, tab, sh, sl);
  const VF zero = lookup32(at.i, tab[8]);
  const VF mh = blend(C(1.0f), x - C(x0h), zero), ml = blend(C(0.0f), C(-x0l), zero);
  const VF ph = mh * sh;
  VF pl;
  if constexpr (PLAIN) pl = fma_(mh, sh, -ph) + ml * sh;
  else pl = fma_(mh, sh, -ph) + fma_(mh, sl, ml * sh);
  fh = ph + pl;
  fl = (ph - fh) + pl;
}
// x F(x) from a table of F, rounded once by an fma (x's sign or'ed in: -0 stays -0; F > 0)
template <int P, int ROWS> ALWAYS static inline VF times_table(VF x, const float (&tab)[ROWS][32]) {
  VF fh, fl;
  table_parts(table_at<P>(x), tab, fh, fl);
  return fma_(x, fh, x * fl) | (x & C(-0.0f));
}
// go f'(x) from fh + fl for |go| in [2^-32, 2^32] or 0 (no prescale), rounded once (the sign of go f'(x) where that
// is a zero)
ALWAYS static inline VF times_grad_table(VF go, VF fh, VF fl) { return fma_(go, fh, go * fl) | ((go ^ fh) & C(-0.0f)); }
// go f'(x) from a derivative's table with a zero x0 = x0h + x0l (grad_table_parts), rounded once
template <int P, bool PLAIN = false>
ALWAYS static inline VF grad_table(VF go, VF x, const float (&tab)[17][32], float x0h, float x0l) {
  VF fh, fl;
  grad_table_parts<P, PLAIN>(x, tab, x0h, x0l, fh, fl);
  return times_grad_table(go, fh, fl);
}
// F(x) from a table of F, rounded once (F not a zero on the table's range)
template <int P, int ROWS> ALWAYS static inline VF table_value(VF x, const float (&tab)[ROWS][32]) {
  VF fh, fl;
  table_parts(table_at<P>(x), tab, fh, fl);
  return fh + fl;
}
// go f'(x) from a derivative's table with no zero, rounded once (times_grad_table's range of go)
template <int P, int ROWS> ALWAYS static inline VF go_times_table(VF go, VF x, const float (&tab)[ROWS][32]) {
  VF fh, fl;
  table_parts(table_at<P>(x), tab, fh, fl);
  return times_grad_table(go, fh, fl);
}
// 2^k y for |y| < 2^131 and integer k in [-417, 127], rounded once: k = ka + kb, kb = k clamped to [-126, 127];
// y 2^ka (three exact steps of at least 2^-98) is normal wherever y 2^k is not below 2^-150, so only the last
// step rounds (AVX-512: one vscalefps, which rounds once too: the same bits)
ALWAYS static inline VF scaled(VF y, VF k) {
#if defined(CPU_CAPABILITY_AVX512)
  return VF(_mm512_scalef_ps(y, k));
#else
  // (k in [-126, 127] in every lane, as in most vectors: one product by the normal 2^k, which rounds once too)
  if (every((k >= C(-126.0f)) & (k <= C(127.0f)))) return y * pow2(k);
  const VF kb = at::vec::minimum(at::vec::maximum(k, C(-126.0f)), C(127.0f));
  const VF ka = k - kb, k1 = (ka * C(1.0f / 3.0f)).floor(), k2 = ((ka - k1) * C(0.5f)).floor();
  return (((y * pow2(k1)) * pow2(k2)) * pow2(ka - k1 - k2)) * pow2(kb);
#endif
}

// a 2^s, s = 64 where |a| < 2^-32 and -64 where |a| > 2^32 (exact; infinities and NaN stay)
ALWAYS static inline VF prescaled(VF a, VF& s) {
  const VF m = a.abs();
  const VF up = m < C(0x1p-32f), down = m > C(0x1p32f);
  s = (up & C(64.0f)) | (down & C(-64.0f));
  return a * blend(blend(C(1.0f), C(0x1p64f), up), C(0x1p-64f), down);
}

// The lanes whose |a| is in [2^-32, 2^32] or 0, where prescaled leaves a as it is (s = 0; a zero's scale only
// scales zeros), and whether every lane is one: the plain forms skip it there, and the near forms' products with
// such a go need no scale
ALWAYS static inline VF unscaled_lanes(VF a) {
  const VF m = a.abs();
  return ((m >= C(0x1p-32f)) | (m == C(0.0f))) & (m <= C(0x1p32f));
}
ALWAYS static inline bool unscaled(VF a) { return every(unscaled_lanes(a)); }
// Whether every lane's |x| is below c and its go unscaled: every((x.abs() < C(c)) & unscaled_lanes(go)) as
// every_abs_below, in mask registers (AVX-512)
ALWAYS static inline bool every_table_lane(VF go, VF x, float c) {
#if defined(CPU_CAPABILITY_AVX512)
  const __m512 m = _mm512_abs_ps(go);
  const __mmask16 in = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(c), _CMP_LT_OQ), m,
                                               _mm512_set1_ps(0x1p32f), _CMP_LE_OQ);
  return (_mm512_mask_cmp_ps_mask(in, m, _mm512_set1_ps(0x1p-32f), _CMP_GE_OQ) |
          _mm512_mask_cmp_ps_mask(in, m, _mm512_setzero_ps(), _CMP_EQ_OQ)) == 0xFFFF;
#else
  return every((x.abs() < C(c)) & unscaled_lanes(go));
#endif
}

// u v (h + l) 2^k rounded once, for u and v of any float32 magnitude: both prescaled, so that their exact
// two-product ph + pl neither overflows nor underflows wherever the result is finite and not below 2^-150
// (u, v both near float32's largest aside)
// (an infinite u or v: u v h, the infinity of the product's sign, or NaN where h is 0, as IEEE multiplication
// gives; the two-products' inf - inf would be NaN)
// (PLAIN: u and v finite in every lane)
// The product's sign is u's (and v's) times h's, also where it is a zero: a zero u (or v) made the sum of two
// zeros of different signs where l's sign is not h's, +0 in IEEE arithmetic, where go f'(x) at go = -0 is -0 (the
// sign bit ORed in is already set in every other lane: |l| is below h's last bit)
ALWAYS static inline VF sign_of(VF a) { return a & C(-0.0f); }
template <bool PLAIN = false> ALWAYS static inline VF scaled_product(VF u, const Parts& p) {  // (v = 1: the same bits)
  if (PLAIN && unscaled(u)) return scaled(fma_(u, p.h, u * p.l), p.k) | sign_of(u ^ p.h);
  VF su;
  const VF us = prescaled(u, su);
  const VF r = scaled(fma_(us, p.h, us * p.l), p.k - su) | sign_of(u ^ p.h);
  return PLAIN ? r : blend(r, u * p.h, u.abs() == C(INFINITY));
}
template <bool PLAIN = false> ALWAYS static inline VF scaled_product(VF u, VF v, const Parts& p) {
  if (PLAIN && unscaled(u) && unscaled(v)) {
    const VF ph = u * v;
    return scaled(fma_(ph, p.h, fma_(ph, p.l, fma_(u, v, -ph) * p.h)), p.k) | sign_of((u ^ v) ^ p.h);
  }
  VF su, sv;
  const VF us = prescaled(u, su), vs = prescaled(v, sv);
  const VF ph = us * vs;
  const VF pl = fma_(us, vs, -ph);
  const VF r = scaled(fma_(ph, p.h, fma_(ph, p.l, pl * p.h)), p.k - su - sv) | sign_of((u ^ v) ^ p.h);
  return PLAIN ? r : blend(r, (u * v) * p.h, (u.abs() == C(INFINITY)) | (v.abs() == C(INFINITY)));
}

ALWAYS static inline VF nan_to(VF y, VF x) { return blend(y, x, x != x); }

// go (h + l) 2^k, h > 0, where the caller's `far` lanes have |go| (h + l) 2^k < 2^-151 for every finite float32 go:
// there a zero of go's sign made without the underflowing scale (an underflow takes a microcode assist, see
// one_plus_of), or go's infinity (the true product's); NaN stays NaN
ALWAYS static inline VF scaled_product_far(VF go, const Parts& p, VF far) {
  const VF r = scaled_product(go, {p.h, p.l, blend(p.k, C(0.0f), far)});
  return blend(r, go * C(0.0f), far & (go.abs() < C(INFINITY)));
}

// go f'(x) where f'(x) = 0 exactly (at x = +-inf, the clamped exponentials' tails do not reach it): go 0, a
// signed zero, or NaN for an infinite go (IEEE)
ALWAYS static inline VF zero_derivative_at(VF r, VF go, VF at) { return blend(r, go * C(0.0f), at); }

// Prefetch the input (and the output, for writing) 8 KiB ahead of the loop: these kernels compute ~30 cycles per
// vector, too slowly for the hardware prefetchers to run ahead of them beyond L2, which then cost as much again
// (gelu 3.4 ns per element on 4M float32 against 1.7 in cache, one AVX-512 Xeon core). A prefetch never faults,
// also past an array's end. Where the hardware's own keep up, they cost instead (a Zen 4 core: 3-29% of a 4M
// kernel's time), so whether to is this machine's choice (`set_prefetch`, which `nonlin tune` measures): AHEAD 0
// builds the kernels without them.
#ifndef NONLIN_AHEAD
#define NONLIN_AHEAD 2048
#endif
constexpr int64_t AHEAD = NONLIN_AHEAD;
ALWAYS static inline void ahead(const float* in, float* out = nullptr) {
  if constexpr (AHEAD > 0) {
    __builtin_prefetch(in + AHEAD);
    if (out) __builtin_prefetch(out + AHEAD, 1);
  }
}

// sigma(x): sigma(-a) = u / (1 + u), sigma(a) = 1 / (1 + u), u = e^-a; the scale 2^k of the first applied
// last (one rounding, also into the subnormal range: sigma(x) < 2^-126 below x = -87.3)
ALWAYS static inline VF sigmoid_tail(VF x) {
  const VF a = x.abs();
  OnePlus o;
  one_plus(at::vec::maximum(-a, C(-104.0f)), o);  // e^-104 2^64 < 2^-85: 0 once scaled
  const VF pos = x >= C(0.0f);
  const VF y = quotient(blend(o.e.h, C(1.0f), pos), blend(o.e.l, C(0.0f), pos), o.dh, o.dl);
  const VF far = a > C(104.0f);  // (sigma(x) < 2^-150 there: +0, made without the underflowing scale)
  return nan_to(blend(scaled(y, blend(o.e.k, C(0.0f), pos | far)), C(0.0f), far & (x < C(0.0f))), x);
}
// e^-|x| = t (1 + p) for |x| < 69, t = 2^k normal (k >= -100), p = e^r - 1 to ~2^-26: r + r^2 q (q of degree 4,
// tools/fit_expm1_float32.py 4 0.35, 2^-27.9; expm1_tail's degree 5 is 2^-32.8) rounded once by an fma. k + 127
// lands in the low bits of -|x| log2(e) + 1.5 2^23 (one fma does the rounding, and those bits shifted up are t).
// p's error relative to 1 + p: its rounding, the reduction's and the fit's, at most 0.42 2^-24 over the binades
// (magic: 0x1.8p23 + 127 + B makes t = 2^(k + B), normal for -127 < k + B < 128: a caller's scale for far tails)
#define EXP_MAGIC 12583039.0f
ALWAYS static inline void exp_near_of(VF z, VF& p, VF& t, VF magic = VF(EXP_MAGIC)) {  // e^z for -69 < z <= 0
  const VF s = fma_(z, C(1.44269502f), magic);  // 0x1.8p23 + 127
  const VF k = s - magic;
  const VF r = fma_(k, C(-1.42860677e-06f), fma_(k, C(-0.693145751953125f), z));
  VF q = fma_(C(0.0013751573860645294f), r, C(0.00836965348571539f));
  q = fma_(q, r, C(0.04166959971189499f));
  q = fma_(q, r, C(0.16666512191295624f));
  q = fma_(q, r, C(0.49999988079071045f));
  p = fma_(r * r, q, r);
  t = at::vec::cast<float>(at::vec::cast<int32_t>(s) << VI(23));
}
ALWAYS static inline void exp_near(VF x, VF& p, VF& t) { exp_near_of(x | C(-0.0f), p, t); }  // e^-|x|
// u = e^-|x| = uh + ul with no rounding of its own (p t exact: t is a normal power of two; Fast2Sum: t >= |p t|),
// and D = 1 + u = dh + dl exactly, for |x| < 69: only p's error remains (0.42 2^-24)
// (LOW: u = e^{-|x| + nzl}, nzl the low part of an argument carried as hi + lo, |nzl| < 2^-17: e^{nzl} = 1 + nzl
// to 2^-35, folded into ul)
template <bool LOW = false>
ALWAYS static inline void one_plus_near(VF x, VF& uh, VF& ul, VF& dh, VF& dl, VF nzl = VF(0.0f)) {
  VF p, t;
  exp_near(x, p, t);
  const VF pt = p * t;
  uh = t + pt;
  ul = pt - (uh - t);
  if constexpr (LOW) ul = fma_(uh, nzl, ul);
  dh = C(1.0f) + uh;
  dl = ((C(1.0f) - dh) + uh) + ul;
}
// sigma(x) for |x| < 69 (the result normal): u = e^-|x| rounded to float32 (uh = (1 + p) t, one fma: no low
// part), D = 1 + u = dh + dl exactly, and sigma = n / D (n = 1 for x >= 0, u below: normal, so no scale after
// the quotient) from one quotient corrected by its exact remainder, rounded once by an fma. uh's relative error
// is at most 1.42 2^-24 over its binades (its rounding and p's; 1.35 with expm1_tail's degree-5 fit), divided by
// 1 + u in the result, plus the last rounding: below 1.92 ULP (the goal is 2; measured 1.47 on every 7th float32
// bit pattern). About 28 operations per vector (40 before; torch.sigmoid's ~25). x's sign bit picks the
// numerator (-0's u / (1 + u) is 1/2 too).
// u = e^-|x| rounded to float32 (uh = (1 + p) t, one fma) and D = 1 + uh = dh + dl exactly, for |x| < 69
ALWAYS static inline void one_plus_rounded(VF x, VF& uh, VF& dh, VF& dl) {
  VF p, t;
  exp_near(x, p, t);
  uh = fma_(p, t, t);
  dh = C(1.0f) + uh;
  dl = (C(1.0f) - dh) + uh;  // (Fast2Sum: 1 >= uh)
}
ALWAYS static inline VF sigmoid_near(VF x) {
  VF uh, dh, dl;
  one_plus_rounded(x, uh, dh, dl);
  const VF n = blend(C(1.0f), uh, x);
  const VF inv = C(1.0f) / dh;
  const VF y = n * inv;
  return fma_(at::vec::fnmadd(y, dl, at::vec::fnmadd(y, dh, n)), inv, y);
}
// (a lane's result depends on its x alone: the lanes with |x| < 69 take sigmoid_near's bits in every vector)
ALWAYS static inline VF sigmoid_f(VF x) {
  if (every_abs_below(x, 69.0f)) return sigmoid_near(x);
  const VF near = x.abs() < C(69.0f);
  return blend(sigmoid_tail(x), sigmoid_near(x & near), near);
}

// go c u / (1 + u)^2, u = e^-a = 2^k E (c a power of two): go (c E / D^2) rounded once, then 2^k
// E / D^2 = y + r for u = 2^k E, D = 1 + u in o
ALWAYS static inline void over_square(const OnePlus& o, VF& y, VF& r) {
  const VF ph = o.dh * o.dh;
  const VF pl = fma_(o.dh, o.dh, -ph) + (o.dh + o.dh) * o.dl;  // D^2 = ph + pl (dl^2 < 2^-48 omitted)
  const VF inv = C(1.0f) / ph;
  y = o.e.h * inv;
  r = (fma_(-y, ph, o.e.h) + fma_(-y, pl, o.e.l)) * inv;
}
// (`far`: lanes where c u < 2^-279, below 2^-151 for every finite float32 go: scaled_product_far's zero)
ALWAYS static inline VF grad_core_of(VF go, const OnePlus& o, float c, VF far) {
  VF y, r;
  over_square(o, y, r);
  return scaled_product_far(go, {y * C(c), r * C(c), o.e.k}, far);
}
ALWAYS static inline VF grad_core(VF go, VF a, float c) {
  // e^-194 2^128 < 2^-151: beyond, 0 times any float32 go (k >= -280); from a = 196 on, c e^-a 2^128 < 2^-152
  // also for c = 4 (tanh): a zero of go's sign
  OnePlus o;
  one_plus(at::vec::maximum(-a, C(-194.0f)), o);
  return grad_core_of(go, o, c, a > C(196.0f));
}
// go c u / (1 + u)^2 for a < 69 and |go| in [2^-32, 2^32] or 0 (no prescale): u = e^-a rounded to float32 (uh,
// exp_near's), D^2 = ph + pl from D = 1 + u = dh + dl exact (dl^2 < 2^-48 omitted), the quotient y + cy, and
// go c (y + cy) rounded once. uh's error (1.42 2^-24) is the largest: about 2 ULP at most (the goal is 4;
// measured 1.75 for sigmoid and tanh on the tests' samples and on every 7th float32 bit pattern, 0.85 and 0.82
// from the exact form), for 24-28% less time than that form (grad_core) on one Zen 1 core. With u carried as
// uh + ul (one_plus_near) it read 1.03 for 16% less: the rounded u is taken here, twice inside the goal.
ALWAYS static inline VF sigma_grad_near(VF go, VF a, float c) {
  VF p, t;
  exp_near(a, p, t);
  const VF uh = fma_(p, t, t);
  const VF dh = C(1.0f) + uh;
  const VF dl = (C(1.0f) - dh) + uh;  // (Fast2Sum: 1 >= uh)
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  const VF y = uh * inv;
  const VF cy = at::vec::fnmadd(y, pl, at::vec::fnmadd(y, ph, uh)) * inv;
  const VF gc = go * C(c);  // (exact: c is a power of two)
  // (go's sign ORed in: a zero go keeps it, which the sum of the signed zeros does not)
  return fma_(gc, y, gc * cy) | (go & C(-0.0f));
}
// go f'(x) for f' = c sigma'(a), a = |x| m (sigmoid: c = m = 1; tanh: 4 and 2); a lane's result depends on its
// x and go alone (the lanes in sigma_grad_near's range take its bits in every vector)
ALWAYS static inline VF sigma_grad(VF go, VF x, float c, float m) {
  const VF a = x.abs() * C(m);
  if (every_table_lane(go, x, 69.0f / m)) return sigma_grad_near(go, a, c);  // (|x| m < 69: m is 1 or 2, exact)
  const VF near = (a < C(69.0f)) & unscaled_lanes(go);
  const VF far = nan_to(zero_derivative_at(grad_core(go, a, c), go, x.abs() == C(INFINITY)), x);
  return blend(far, sigma_grad_near(go & near, a & near, c), near);
}

// go sigma'(x) = go sigma(x) sigma(-x)
ALWAYS static inline VF sigmoid_grad_f(VF go, VF x) { return sigma_grad(go, x, 1.0f, 1.0f); }

// tanh(x) = sign(x) (1 - u) / (1 + u), u = e^-2|x| (2|x| exact); 1 - u from h + l exactly where u is near 1
// (k = 0: 1 - h exact), so no cancellation near 0; beyond |x| = 12 the quotient rounds to 1
ALWAYS static inline VF tanh_quotient(VF x) {
  const VF a = x.abs();
  OnePlus o;
  one_plus(at::vec::maximum(a * C(-2.0f), C(-24.0f)), o);
  const VF t = pow2(o.e.k);
  const VF uh = o.e.h * t, ul = o.e.l * t;
  const VF nh = C(1.0f) - uh;
  const VF nl = ((C(1.0f) - nh) - uh) - ul;  // (Fast2Sum: 1 >= uh)
  VF y = quotient(nh, nl, o.dh, o.dl);
  // below 2^-12, a - a^3/3 rounded once (the omitted 2a^5/15 is under 2^-50 a), where the quotient's first-order
  // correction leaves up to 1 ULP
  y = blend(y, fma_((a * a) * C(-0.333333343f), a, a), a < C(0x1p-12f));
  return nan_to(y | (x & C(-0.0f)), x);  // x's sign bit on |tanh x| (-0 stays -0)
}
// for 2^-32 <= |x| < 4 x F from LISHT_T (F = tanh(x) / x, lisht's forward table), 0.5 ULP in half the time of the
// quotient above, which the other lanes take (below 2^-32 x times F's low part would round on the subnormal grid)
ALWAYS static inline VF tanh_f(VF x) {
  const VF table = (x.abs() < C(4.0f)) & (x.abs() >= C(0x1p-32f));
  if (every(table)) return times_table<4>(x, LISHT_T);
  return blend(tanh_quotient(x), times_table<4>(x & table, LISHT_T), table);
}

// go sech^2(x) = go 4u / (1 + u)^2, u = e^-2|x| (sech^2 x = 4 sigma'(2x))
ALWAYS static inline VF tanh_grad_f(VF go, VF x) { return sigma_grad(go, x, 4.0f, 2.0f); }

// (1 - u) / (1 + u) = th + tl for u = e^-2|z| in o (tanh |z|: tanh_quotient's, as hi + lo)
ALWAYS static inline void tanh_parts(const OnePlus& o, VF& th, VF& tl) {
  const VF t = pow2(o.e.k);
  const VF uh = o.e.h * t, ul = o.e.l * t;
  const VF nh = C(1.0f) - uh;
  const VF nl = ((C(1.0f) - nh) - uh) - ul;  // (Fast2Sum: 1 >= uh)
  quotient2(nh, nl, o.dh, o.dl, th, tl);
}
// tanh a = th + tl for a >= 0 from u = e^-2 min(a, 12) in o: tanh_parts, and a - a^3 / 3 below 2^-12 (where the
// quotient's first-order correction leaves up to 1 ULP)
ALWAYS static inline void tanh_abs_parts(VF a, const OnePlus& o, VF& th, VF& tl) {
  tanh_parts(o, th, tl);
  const VF small = a < C(0x1p-12f);
  th = blend(th, a, small);
  tl = blend(tl, (a * (a * a)) * C(-0.333333343f), small);
}

// tanhshrink(x) = x - tanh(x), odd. For a = |x| >= 7/8: (a - 1) + w, w = 1 - tanh a = 2u / (1 + u) (u = e^-2a,
// one quotient, as hi + lo), a - 1 exact (a >= 1/2; above 2^24 it rounds as the result does) and the sum a TwoSum:
// w's error, ~2^-26, grows by at most w / f = 1.7 (a = 7/8; nil above 1, where both terms are >= 0). Below 7/8
// (where 1 - a cancels against w, 3 ULP at a = 1/2) the series a^3 S(a^2), S = 1/3 + t R(t) with 1/3 as hi + lo,
// t R(t) (at most 0.26 of S) in float32 Horner (R the fitted degree-6 polynomial of _TANHSHRINK_R, 2^-29.7),
// a^2 and a^3 exact two-products; a below 2^-32 scaled by 2^32 first (a^3 stays
// normal down to a = 2^-51, below which the result rounds to 0), the scale undone by one multiplication last
// (PLAIN: |x| in [2^-32, 2^32] or 0 in every lane, unscaled_lanes: no scale, no infinity or NaN; the same bits)
template <bool PLAIN> ALWAYS static inline VF tanhshrink_of(VF x) {
  const VF a = x.abs();
  OnePlus o;
  // (2e^-40 is below a - 1's last bit from a = 7/8)
  one_plus<PLAIN>(PLAIN ? at::vec::minimum(a, C(20.0f)) * C(-2.0f) : at::vec::maximum(a * C(-2.0f), C(-40.0f)), o);
  VF yh, yl;
  quotient2(o.e.h, o.e.l, o.dh, o.dl, yh, yl);
  const VF t2 = pow2(o.e.k + C(1.0f));
  const VF wh = yh * t2, wl = yl * t2;
  const VF b = a - C(1.0f);
  const VF s = b + wh, sb = s - b;
  VF y = s + (((b - (s - sb)) + (wh - sb)) + wl);
  const VF tiny = PLAIN ? C(0.0f) : a < C(0x1p-32f);
  const VF as = PLAIN ? a : a * blend(C(1.0f), C(0x1p32f), tiny);
  const VF th = as * as, tl = fma_(as, as, -th);
  const VF ah = as * th, al = fma_(as, th, -ah) + as * tl;  // a^3 (scaled)
  const VF tu = a * a;
  const VF r = TANHSHRINK_R(tu);
  const VF p = tu * r;
  const VF pe = fma_(tu, r, -p) + fma_(a, a, -tu) * C(TANHSHRINK_R0);
  const VF sh = C(THIRD_HI) + p;
  const VF sl = ((C(THIRD_HI) - sh) + p) + (pe + C(THIRD_LO));  // (Fast2Sum: 1/3 >= |p|)
  const VF near = fma_(ah, sh, fma_(ah, sl, al * sh));
  y = blend(y, PLAIN ? near : near * blend(C(1.0f), C(0x1p-96f), tiny), a < C(0.875f));
  if constexpr (PLAIN) return y | (x & C(-0.0f));
  y = blend(y, a, a == C(INFINITY));
  return nan_to(y | (x & C(-0.0f)), x);
}
ALWAYS static inline VF tanhshrink_rest(VF x) { return unscaled(x) ? tanhshrink_of<true>(x) : tanhshrink_of<false>(x); }
// tanhshrink for |x| in [2^-32, 4) or 0 from TANHSHRINK_T (native32's interval tables): x^3 F, x^3 = ch + cl from
// x^2 = p + e (exact) and one more exact product, times F = fh + fl rounded once (x's sign or'ed in: F > 0; -0
// stays -0): no cancellation, where x - tanh x loses |x|^-2 of its relative accuracy near 0
ALWAYS static inline VF tanhshrink_table(VF x) {
  VF fh, fl;
  table_parts(table_at<4>(x), TANHSHRINK_T, fh, fl);
  const VF p = x * x, e = fma_(x, x, -p);
  const VF ch = p * x, cl = fma_(p, x, -ch) + e * x;
  return fma_(ch, fh, fma_(ch, fl, cl * fh)) | (x & C(-0.0f));
}
ALWAYS static inline VF tanhshrink_f(VF x) {
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(x);
  if (every(table)) return tanhshrink_table(x);
  return blend(tanhshrink_rest(x), tanhshrink_table(x & table), table);
}

// go tanh^2(x): tanh |x| = th + tl, the quotient of tanh_quotient as hi + lo (a - a^3/3 below 2^-12, a scaled by 2^64
// below 2^-32 so that its square stays normal), squared as hi + lo, the product with go rounded once
ALWAYS static inline VF tanhshrink_grad_far(VF go, VF x) {
  const VF a = x.abs();
  OnePlus o;
  one_plus(at::vec::maximum(a * C(-2.0f), C(-24.0f)), o);
  VF th, tl;
  tanh_parts(o, th, tl);
  const VF small = a < C(0x1p-12f), tiny = a < C(0x1p-32f);
  const VF as = a * blend(C(1.0f), C(0x1p64f), tiny);
  th = blend(th, as, small);
  tl = blend(tl, (as * (a * a)) * C(-0.333333343f), small);
  const VF ph = th * th;
  const VF pl = fma_(th, th, -ph) + (th + th) * tl;
  return nan_to(scaled_product(go, {ph, pl, blend(C(0.0f), C(-128.0f), tiny)}), x);
}

// tanhshrink_grad_far's plain form for |x| and go in [2^-32, 2^32] or 0: no clamp of the exponential's argument
// (2a clamped at 24 first), no scale (go t >= 2^-96 is normal), no tiny case, the same bits
ALWAYS static inline VF tanhshrink_grad_near(VF go, VF x) {
  const VF a = x.abs();
  OnePlus o;
  one_plus<true>(at::vec::minimum(a, C(12.0f)) * C(-2.0f), o);
  VF th, tl;
  tanh_abs_parts(a, o, th, tl);
  const VF ph = th * th;
  const VF pl = fma_(th, th, -ph) + (th + th) * tl;
  return fma_(go, ph, go * pl) | sign_of(go);  // (go's sign also where go is -0 and pl < 0)
}
// go tanh(x)^2 for |x| in [2^-32, 4) or 0 and |go| in [2^-32, 2^32] or 0 from TANHSHRINK_GRAD_T: x^2 G, x^2 = p + e
// (exact), times G = gh + gl as ph + pl, then go times it rounded once
ALWAYS static inline VF tanhshrink_grad_table(VF go, VF x) {
  VF gh, gl;
  table_parts(table_at<4>(x), TANHSHRINK_GRAD_T, gh, gl);
  const VF p = x * x, e = fma_(x, x, -p);
  const VF ph = p * gh, pl = fma_(p, gh, -ph) + fma_(p, gl, e * gh);
  const VF fh = ph + pl;
  return times_grad_table(go, fh, (ph - fh) + pl);
}
ALWAYS static inline VF tanhshrink_grad_f(VF go, VF x) {
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(go) & unscaled_lanes(x);
  if (every(table)) return tanhshrink_grad_table(go, x);
  const VF near = unscaled_lanes(go) & unscaled_lanes(x);
  const VF rest = every(near) ? tanhshrink_grad_near(go, x)
                              : blend(tanhshrink_grad_far(go, x), tanhshrink_grad_near(go & near, x & near), near);
  return blend(rest, tanhshrink_grad_table(go & table, x & table), table);
}

// lisht, x tanh(x) = a tanh(a), a = |x| (even): a (th + tl) rounded once, tanh's quotient as hi + lo (the clamp at
// 2a = 24: beyond, a (1 - 2e^-2a) rounds to a); below 2^-12, tanh a = a - a^3/3 (the omitted 2a^5/15 is under
// 2^-50 a), a scaled by 2^64 below 2^-32 so that a^2 stays normal wherever the result is not below 2^-150
// lisht_f's plain form for |x| in [2^-32, 2^32] or 0 (unscaled_lanes: no scale, no clamp of the exponential's
// argument after 2a's at 24, no infinity or NaN): the same bits
ALWAYS static inline VF lisht_near(VF x) {
  const VF a = x.abs();
  OnePlus o;
  one_plus<true>(at::vec::minimum(a, C(12.0f)) * C(-2.0f), o);
  VF th, tl;
  tanh_abs_parts(a, o, th, tl);
  return fma_(a, th, a * tl);
}
ALWAYS static inline VF lisht_far(VF x) {
  const VF a = x.abs();
  OnePlus o;
  one_plus(at::vec::maximum(a * C(-2.0f), C(-24.0f)), o);
  VF th, tl;
  tanh_parts(o, th, tl);
  const VF small = a < C(0x1p-12f), tiny = a < C(0x1p-32f);
  const VF as = a * blend(C(1.0f), C(0x1p64f), tiny);
  th = blend(th, as, small);
  tl = blend(tl, (as * (a * a)) * C(-0.333333343f), small);
  return nan_to(scaled_product(a, {th, tl, blend(C(0.0f), C(-64.0f), tiny)}), x);
}
ALWAYS static inline VF lisht_rest(VF x) { return unscaled(x) ? lisht_near(x) : lisht_far(x); }
// lisht for |x| in [2^-32, 4) or 0 from LISHT_T (native32's interval tables): x^2 = p + e (exact) times F = fh + fl,
// rounded once; and go lisht'(x) = go x G, |x| G as an exact product's pair, times go (x's sign on it) rounded once
ALWAYS static inline VF lisht_table(VF x) {
  VF fh, fl;
  table_parts(table_at<4>(x), LISHT_T, fh, fl);
  const VF p = x * x, e = fma_(x, x, -p);
  return fma_(p, fh, fma_(p, fl, e * fh));
}
ALWAYS static inline VF lisht_grad_table(VF go, VF x) {
  VF gh, gl;
  table_parts(table_at<4>(x), LISHT_GRAD_T, gh, gl);
  const VF a = x.abs();  // (x's sign on go: x = -0 gives go (-0)'s sign, as IEEE's product)
  const VF ph = a * gh, pl = fma_(a, gh, -ph) + a * gl;
  const VF fh = ph + pl;
  return times_grad_table(go ^ (x & C(-0.0f)), fh, (ph - fh) + pl);
}
ALWAYS static inline VF lisht_f(VF x) {
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(x);
  if (every(table)) return lisht_table(x);
  return blend(lisht_rest(x), lisht_table(x & table), table);
}
// go (tanh a + a sech^2 a) sign(x): both terms >= 0, so their sum (a TwoSum, the low parts added) does not cancel;
// sech^2 a = 4 E / D^2 2^k from the quotient's own u, a sech^2 a an exact two-product; below 2^-12, 2a - 4a^3/3
// (a scaled as in the forward); from 2a = 24 on, 1 (the rest, (4a - 2) e^-2a, is below 2^-29; a = inf: a sech^2 a
// is 0 there, not inf 0); the product with go rounded once, x's sign on go (the low part +0 at a = 0, so that
// go f'(-0) = go (-0) keeps the sign IEEE gives)
ALWAYS static inline VF lisht_grad_rest(VF go, VF x) {
  const VF a = x.abs();
  OnePlus o;
  one_plus(at::vec::maximum(a * C(-2.0f), C(-24.0f)), o);
  VF th, tl, y, r;
  tanh_parts(o, th, tl);
  over_square(o, y, r);
  const VF t = pow2(o.e.k) * C(4.0f);  // (k >= -35: exact)
  const VF sh = y * t, sl = r * t;
  const VF ph = a * sh, pl = fma_(a, sh, -ph) + a * sl;
  const VF s = th + ph, b = s - th;
  Parts p = {s, ((th - (s - b)) + (ph - b)) + (tl + pl), C(0.0f)};
  const VF small = a < C(0x1p-12f), tiny = a < C(0x1p-32f);
  const VF as = a * blend(C(1.0f), C(0x1p64f), tiny);
  p = blend(p, {as + as, C(0.0f) - (as * (a * a)) * C(1.33333337f), blend(C(0.0f), C(-64.0f), tiny)}, small);
  p = blend(p, {C(1.0f), C(0.0f), C(0.0f)}, a >= C(12.0f));
  return nan_to(scaled_product(go ^ (x & C(-0.0f)), p), x);
}
ALWAYS static inline VF lisht_grad_f(VF go, VF x) {
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(go) & unscaled_lanes(x);
  if (every(table)) return lisht_grad_table(go, x);
  return blend(lisht_grad_rest(go, x), lisht_grad_table(go & table, x & table), table);
}

// silu's gate times a numerator: xs sigma(x) = (h + l) 2^k, xs = x times a power of two (the caller's scale;
// sigma from x itself): xs / (1 + u) for x >= 0, [xs E / D] 2^k for x < 0 (xs E an exact two-product), one
// quotient; u = e^-|x| down to e^-200 (|x sigma(x) v| < 2^-150 beyond for every float32 v)
ALWAYS static inline Parts times_sigma(VF xs, VF pos, const OnePlus& o) {  // (pos: the argument of sigma is >= 0)
  const VF ph = xs * o.e.h;
  const VF pl = fma_(xs, o.e.h, -ph) + xs * o.e.l;
  Parts p;
  quotient2(blend(ph, xs, pos), blend(pl, C(0.0f), pos), o.dh, o.dl, p.h, p.l);
  p.k = blend(o.e.k, C(0.0f), pos);
  return p;
}
// (PLAIN: |x| < 69, so k >= -100)
template <bool PLAIN = false> ALWAYS static inline Parts silu_parts(VF x, VF xs) {
  OnePlus o;
  one_plus<PLAIN>(PLAIN ? -x.abs() : at::vec::maximum(-x.abs(), C(-200.0f)), o);
  return times_sigma(xs, x >= C(0.0f), o);
}

// silu'(x) = N / D^2 as parts: N = 1 + u (1 + x) for x >= 0 (positive terms), N = E (1 + x + u) 2^k for x < 0
// (u = e^-|x|, each sum and product carried as hi + lo); near its zero x0 = -1.2785 the polynomial in
// d = x - x0 of ops.torch_compiled.swish_grad_float32 (the same fit); below -200 a negative zero
// silu'(z) = N / D^2 away from its zero, for z = zh (+ zl where LOW: quick_gelu's beta x) and u = e^-|z| in o
// silu''s two numerators as hi + lo from 1 + z = sh + sl and u = uh + ul: 1 + u (1 + z) (z >= 0: positive terms,
// u (1 + z) <= 1) as np, and f (1 + z + u) as q, f = fh + fl the factor u itself or its unscaled E = u 2^-k
ALWAYS static inline void silu_grad_numerators(VF sh, VF sl, VF uh, VF ul, VF fh, VF fl, VF& nph, VF& npl, VF& qh,
                                               VF& ql) {
  const VF wh = uh * sh;
  const VF wl = fma_(uh, sh, -wh) + (uh * sl + ul * sh);
  nph = C(1.0f) + wh;
  npl = ((C(1.0f) - nph) + wh) + wl;
  const VF mh = sh + uh, mb = mh - sh;
  const VF ml = ((sh - (mh - mb)) + (uh - mb)) + (sl + ul);  // 1 + z + u (TwoSum)
  qh = fh * mh;
  ql = fma_(fh, mh, -qh) + (fh * ml + fl * mh);
}
template <bool LOW> ALWAYS static inline Parts silu_grad_far(VF zh, VF zl, VF pos, const OnePlus& o) {
  const VF sh = C(1.0f) + zh, sb = sh - C(1.0f);
  VF sl = (C(1.0f) - (sh - sb)) + (zh - sb);  // 1 + z = sh + sl (TwoSum)
  if constexpr (LOW) sl = sl + zl;
  VF nph, npl, qh, ql;
  silu_grad_numerators(sh, sl, o.uh, o.ul, o.e.h, o.e.l, nph, npl, qh, ql);
  const VF nh = blend(qh, nph, pos), nl = blend(ql, npl, pos);
  const VF ph = o.dh * o.dh;
  const VF pl = fma_(o.dh, o.dh, -ph) + (o.dh + o.dh) * o.dl;
  const VF inv = C(1.0f) / ph;
  const VF y = nh * inv;
  return {y, (fma_(-y, ph, nh) + fma_(-y, pl, nl)) * inv, blend(o.e.k, C(0.0f), pos)};
}

// silu'(x) from xc (x clamped) and u = e^-|xc| in o (PLAIN: no lane below -200)
template <bool PLAIN> ALWAYS static inline Parts silu_grad_of(VF x, VF xc, const OnePlus& o) {
  Parts p = silu_grad_far<false>(xc, xc, x >= C(0.0f), o);
  const VF dh = x - C(SILU_X0_HI);
  const VF d = dh - C(SILU_X0_LO);
  p = blend(p, near_zero(dh, d, SILU_GRAD_P(d), SILU_X0_LO, SILU_C0_HI, SILU_C0_LO), dh.abs() < C(SILU_GRAD_ZONE));
  if constexpr (PLAIN) return p;
  return blend(p, {C(-0.0f), C(0.0f), C(0.0f)}, x < C(-200.0f));
}
// (PLAIN: x > -69 in every lane, so k >= -100)
template <bool PLAIN = false> ALWAYS static inline Parts silu_grad_parts(VF x) {
  // beyond 30, silu' rounds to 1
  const VF xc = at::vec::minimum(PLAIN ? x : at::vec::maximum(x, C(-200.0f)), C(30.0f));
  OnePlus o;
  one_plus<PLAIN>(-xc.abs(), o);
  return silu_grad_of<PLAIN>(x, xc, o);
}

// quick_gelu, x sigma(beta x) with beta = 1.702 (an entry of its own, not silu of beta x): z = beta x carried as zh +
// zl (zl to 2^-49 |z|: beta as hi + lo, the first product's error exact), so e^-|z| is that of z itself
ALWAYS static inline void times_beta(VF x, VF& zh, VF& zl) {
  zh = x * C(QG_B_HI);
  zl = fma_(x, C(QG_B_HI), -zh) + x * C(QG_B_LO);
}
// -|z| = nzh + nzl
ALWAYS static inline void minus_abs(VF zh, VF zl, VF& nzh, VF& nzl) {
  nzh = -zh.abs();
  nzl = blend(-zl, zl, zh < C(0.0f));
}

// xs sigma(beta x) = (h + l) 2^k, as silu_parts with z for x; x clamped at -75.2 (z >= -128; below, the gate's
// product is below 2^-178: gated_f's CLOSED, -75, takes it as a zero)
ALWAYS static inline Parts quick_parts(VF x, VF xs) {
  VF zh, zl, nzh, nzl;
  times_beta(at::vec::minimum(at::vec::maximum(x, C(-75.2f)), C(QG_OPEN)), zh, zl);
  minus_abs(zh, zl, nzh, nzl);
  OnePlus o;
  one_plus(nzh, nzl, o);
  return times_sigma(xs, x >= C(0.0f), o);
}

// quick_gelu'(x) = silu'(z), z = beta x: silu_grad_parts's form with 1 + z = sh + sl carrying zl; near its zero
// x0 / beta = -0.7512 (|x - x0 / beta| < 0.06) the polynomial in d = x - x0 / beta of
// ops.torch_compiled.swish_grad_float32 (the same fit: in z - x0 the rounded product would cost thousands of ULP
// at the float32 x nearest the zero); x clamped to [-117.5, 17.6] (z in [-200, 30], as silu's), below a -0
// (PLAIN: no lane in the left tail)
template <bool PLAIN = false> ALWAYS static inline Parts quick_grad_parts(VF x) {
  VF zh, zl, nzh, nzl;
  times_beta(at::vec::minimum(at::vec::maximum(x, C(-117.5f)), C(17.6f)), zh, zl);
  minus_abs(zh, zl, nzh, nzl);
  OnePlus o;
  one_plus(nzh, nzl, o);
  Parts p = silu_grad_far<true>(zh, zl, x >= C(0.0f), o);
  const VF dh = x - C(QG_X0_HI);
  const VF d = dh - C(QG_X0_LO);
  p = blend(p, near_zero(dh, d, QG_GRAD_P(d), QG_X0_LO, QG_C0_HI, QG_C0_LO), dh.abs() < C(QG_ZONE));
  if constexpr (PLAIN) return p;
  return blend(p, {C(-0.0f), C(0.0f), C(0.0f)}, x < C(-117.5f));
}

// gelu_tanh, x sigma(z), z = 2c (x + a x^3) (c = sqrt(2/pi), a = 0.044715, as the catalog's float64 constants): z
// and m = x z'(x) = 2c x (1 + 3a x^2) carried as hi + lo (x^2 an exact two-product, each constant as hi + lo, each
// product's error kept: ~2^-44 relative), so that e^-|z| is that of z itself; x clamped by the caller (|x| <= 14:
// x^3 stays far from overflow)
ALWAYS static inline void gelu_tanh_poly(VF x, VF th, VF tl, float bh, float bl, VF& zh, VF& zl) {  // 2c x (1 + b x^2)
  const VF ph = th * C(bh);
  const VF pl = fma_(th, C(bh), -ph) + (th * C(bl) + tl * C(bh));
  const VF wh = C(1.0f) + ph, wb = wh - C(1.0f);
  const VF wl = ((C(1.0f) - (wh - wb)) + (ph - wb)) + pl;  // 1 + b x^2 (TwoSum)
  const VF yh = x * wh;
  const VF yl = fma_(x, wh, -yh) + x * wl;
  zh = yh * C(GT_2C_HI);
  zl = fma_(yh, C(GT_2C_HI), -zh) + (yl * C(GT_2C_HI) + yh * C(GT_2C_LO));
}
ALWAYS static inline Parts gelu_tanh_parts(VF x, VF xs) {
  const VF xc = at::vec::minimum(at::vec::maximum(x, C(GT_CLOSED)), C(GT_OPEN));
  const VF th = xc * xc, tl = fma_(xc, xc, -th);
  VF zh, zl, nzh, nzl;
  gelu_tanh_poly(xc, th, tl, GT_A_HI, GT_A_LO, zh, zl);
  minus_abs(zh, zl, nzh, nzl);
  OnePlus o;
  one_plus(nzh, nzl, o);
  return times_sigma(xs, x >= C(0.0f), o);
}
// gelu_tanh'(x) = sigma(z) (1 + m sigma(-z)): silu_grad_far's form with 1 + m in place of 1 + z (the same algebra:
// (1 + u (1 + m)) / D^2 for z >= 0, E (1 + m + u) 2^k / D^2 below); near its zero x0 = -0.75246 (|x - x0| < GT_ZONE)
// the polynomial in d = x - x0 of tools/fit_gelu_tanh_grad_float32.py; x clamped to [GT_GRAD_CLOSED, GT_OPEN] (z
// down to -200: beyond, |gelu_tanh'| < 2^-279, a zero for every float32 go; above GT_OPEN it rounds to 1), below a -0
// (PLAIN: no lane in the left tail)
template <bool PLAIN = false> ALWAYS static inline Parts gelu_tanh_grad_parts(VF x) {
  const VF xc = at::vec::minimum(at::vec::maximum(x, C(GT_GRAD_CLOSED)), C(GT_OPEN));
  const VF th = xc * xc, tl = fma_(xc, xc, -th);
  VF zh, zl, mh, ml, nzh, nzl;
  gelu_tanh_poly(xc, th, tl, GT_A_HI, GT_A_LO, zh, zl);
  gelu_tanh_poly(xc, th, tl, GT_3A_HI, GT_3A_LO, mh, ml);
  minus_abs(zh, zl, nzh, nzl);
  OnePlus o;
  one_plus(nzh, nzl, o);
  Parts p = silu_grad_far<true>(mh, ml, x >= C(0.0f), o);
  const VF dh = x - C(GT_X0_HI);
  const VF d = dh - C(GT_X0_LO);
  p = blend(p, near_zero(dh, d, GT_GRAD_P(d), GT_X0_LO, GT_C0_HI, GT_C0_LO), dh.abs() < C(GT_ZONE));
  if constexpr (PLAIN) return p;
  return blend(p, {C(-0.0f), C(0.0f), C(0.0f)}, x < C(GT_GRAD_CLOSED));
}

// softcap at its default cap c = 50: c tanh(x / c), z = x / c carried as zh + zl (1/c as hi + lo, the first
// product's error exact: z to 2^-48 relative, so that e^-2|z| is that of z itself: zh alone would cost 2 |z| ULP
// of the argument's rounding in the derivative), c (th + tl) rounded once; for |z| < 2^-12, x - x z^2 / 3
// rounded once (c (zh + zl) is x to 2^-48; the omitted 2 z^5 / 15 is below 2^-50 z)
// -2 |b x| = nzh + nzl for a constant b = bh + bl (clamped at `floor` by the caller)
ALWAYS static inline void minus_twice_times(VF x, float bh, float bl, VF& nzh, VF& nzl) {
  const VF zh = x * C(bh);
  const VF zl = fma_(x, C(bh), -zh) + x * C(bl);
  minus_abs(zh, zl, nzh, nzl);
  nzh = nzh * C(2.0f);
  nzl = nzl * C(2.0f);
}
ALWAYS static inline void over_cap(VF x, VF& nzh, VF& nzl) { minus_twice_times(x, SOFTCAP_INV_HI, SOFTCAP_INV_LO, nzh, nzl); }
// u = e^(z + zl) = e^z (1 + zl) with zl outside the reduced argument (exp_parts(z, zl) rounds r + zl: for k = 0,
// |r| = |z| up to 0.35, that is 2^-24 |z| relative, as much as 1 - u itself where z is small: 1.4 ULP in tanh), z
// clamped at `floor` (and zl then 0); `clamped` says where
ALWAYS static inline VF exp_clamped(VF z, VF zl, float floor, Exp& e) {
  const VF clamped = z < C(floor);
  exp_parts(blend(z, C(floor), clamped), e);
  e.l = fma_(blend(zl, C(0.0f), clamped), e.h, e.l);
  return clamped;
}
ALWAYS static inline void one_plus_clamped(VF z, VF zl, float floor, OnePlus& o) {
  exp_clamped(z, zl, floor, o.e);
  one_plus_of(o);
}
// one_plus_clamped's plain form where no lane is clamped and every k >= -100 (z >= floor >= -69): the same bits
ALWAYS static inline void one_plus_unclamped(VF z, VF zl, OnePlus& o) {
  exp_parts(z, o.e);
  o.e.l = fma_(zl, o.e.h, o.e.l);
  one_plus_of<true>(o);
}
// (PLAIN: no lane's -2|z| below -24 and no NaN)
template <bool PLAIN> ALWAYS static inline VF softcap_of(VF x, VF nzh, VF nzl) {
  OnePlus o;
  if constexpr (PLAIN) one_plus_unclamped(nzh, nzl, o);
  else one_plus_clamped(nzh, nzl, -24.0f, o);  // (beyond, c tanh rounds to c)
  VF th, tl;
  tanh_parts(o, th, tl);
  VF y = fma_(C(SOFTCAP_C), th, C(SOFTCAP_C) * tl);
  const VF zh = nzh * C(-0.5f);  // |zh|
  y = blend(y, fma_((x.abs() * zh) * C(-0.333333343f), zh, x.abs()), zh < C(0x1p-12f));
  return PLAIN ? y | (x & C(-0.0f)) : nan_to(y | (x & C(-0.0f)), x);
}
ALWAYS static inline VF softcap_f(VF x) {
  VF nzh, nzl;
  over_cap(x, nzh, nzl);
  if (every(nzh >= C(-24.0f))) return softcap_of<true>(x, nzh, nzl);
  return softcap_of<false>(x, nzh, nzl);
}
// go sech^2(x / c) = go 4u / (1 + u)^2, u = e^-2|z| with z = zh + zl (grad_core's form, its argument carried)
ALWAYS static inline VF softcap_grad_f(VF go, VF x) {
  VF nzh, nzl;
  over_cap(x, nzh, nzl);
  OnePlus o;
  one_plus_clamped(nzh, nzl, -194.0f, o);
  const VF far = nzh < C(-196.0f);
  return nan_to(zero_derivative_at(grad_core_of(go, o, 4.0f, far), go, x.abs() == C(INFINITY)), x);
}

// lecun_tanh, A tanh(B x) with A = 1.7159 and B = 2/3 (each as hi + lo): softcap's form, z = B x carried as zh + zl,
// A (th + tl) rounded once; for |z| < 2^-12, A B |x| (1 - z^2 / 3) rounded once, A B as hi + lo and |x| scaled by
// 2^64 below 2^-32 (as elu's linear part: the low product stays normal; the scale undone by one multiplication)
// (PLAIN: no lane's -2|z| below -24 and no NaN)
template <bool PLAIN> ALWAYS static inline VF lecun_tanh_of(VF x, VF nzh, VF nzl) {
  OnePlus o;
  if constexpr (PLAIN) one_plus_unclamped(nzh, nzl, o);
  else one_plus_clamped(nzh, nzl, -24.0f, o);  // (beyond, tanh rounds to 1)
  VF th, tl;
  tanh_parts(o, th, tl);
  VF y = fma_(C(LT_A_HI), th, fma_(C(LT_A_LO), th, C(LT_A_HI) * tl));
  const VF zh = nzh * C(-0.5f);  // |z|
  const VF a = x.abs(), tiny = a < C(0x1p-32f);
  const VF as = a * blend(C(1.0f), C(0x1p64f), tiny);
  const VF ph = as * C(LT_AB_HI);
  const VF small = fma_(as, C(LT_AB_HI), as * C(LT_AB_LO) - ((ph * zh) * zh) * C(0.333333343f));
  y = blend(y, small * blend(C(1.0f), C(0x1p-64f), tiny), zh < C(0x1p-12f));
  return PLAIN ? y | (x & C(-0.0f)) : nan_to(y | (x & C(-0.0f)), x);
}
ALWAYS static inline VF lecun_tanh_beyond(VF x) {
  VF nzh, nzl;
  minus_twice_times(x, LT_B_HI, LT_B_LO, nzh, nzl);
  if (every(nzh >= C(-24.0f))) return lecun_tanh_of<true>(x, nzh, nzl);
  return lecun_tanh_of<false>(x, nzh, nzl);
}
// for 2^-32 <= |x| < 8 x F from LECUN_TANH_T (F = A tanh(B x) / x: native32's interval tables), 0.5 ULP, in half
// the time of the form above (0.80 ULP), which the other lanes take (below 2^-32 x times F's low part would round
// on the subnormal grid: up to 0.98 ULP)
ALWAYS static inline VF lecun_tanh_f(VF x) {
  const VF table = (x.abs() < C(8.0f)) & (x.abs() >= C(0x1p-32f));
  if (every(table)) return times_table<2>(x, LECUN_TANH_T);
  return blend(lecun_tanh_beyond(x), times_table<2>(x & table, LECUN_TANH_T), table);
}
// go A B sech^2(B x) = go 4AB u / (1 + u)^2, u = e^-2|z| (z carried as in the forward), 4AB as hi + lo, the
// product rounded once; the clamp at -196 (e^-196 4AB 2^128 < 2^-150: beyond, 0 for every float32 go)
ALWAYS static inline VF lecun_tanh_grad_beyond(VF go, VF x) {
  VF nzh, nzl;
  minus_twice_times(x, LT_B_HI, LT_B_LO, nzh, nzl);
  OnePlus o;
  one_plus_clamped(nzh, nzl, -196.0f, o);
  VF y, r;
  over_square(o, y, r);
  const VF ph = y * C(LT_4AB_HI);
  const Parts p = {ph, fma_(y, C(LT_4AB_HI), -ph) + (r * C(LT_4AB_HI) + y * C(LT_4AB_LO)), o.e.k};
  const VF far = nzh < C(-196.0f);  // (4AB e^-196 2^128 < 2^-152)
  return nan_to(zero_derivative_at(scaled_product_far(go, p, far), go, x.abs() == C(INFINITY)), x);
}
// below |x| = 4 (and go in times_grad_table's range) go G from LECUN_TANH_GRAD_T (G = A B sech^2(B x))
ALWAYS static inline VF lecun_tanh_grad_f(VF go, VF x) {
  if (every_table_lane(go, x, 4.0f)) return go_times_table<4>(go, x, LECUN_TANH_GRAD_T);
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(go);
  return blend(lecun_tanh_grad_beyond(go, x), go_times_table<4>(go & table, x & table, LECUN_TANH_GRAD_T), table);
}

// The Gaussian pieces of ops.torch_compiled.norm_cdf_float32 for 0 <= a <= 16, with FMA: e^{-a^2/2} = 2^k E
// (a^2 an exact two-product, so the argument is exact to below its last bit), (1 + a) erfcx(a / sqrt2) = 1 + q
// (u = a / (a + 4), q = u Q(2u - 1) with the fit of tools/fit_erfcx_float32.py, 0.043 ULP) and D = 1 + a
// (TwoSum); Phi(-a) = E (1 + q) / (2 D) 2^k, phi(a) = E 2^k / sqrt(2 pi)
struct Gauss { Exp e; VF qh, ql, dh, dl; };
ALWAYS static inline void gauss(VF a, Gauss& g) {
  const VF sh = a * a;
  exp_parts(sh * C(-0.5f), fma_(a, a, -sh) * C(-0.5f), g.e);
  const VF u = a / (a + C(4.0f));
  const VF t = C(2.0f) * u - C(1.0f);
  const VF q = u * ERFCX_Q(t);
  g.qh = C(1.0f) + q;
  g.ql = (C(1.0f) - g.qh) + q;
  g.dh = C(1.0f) + a;
  const VF b = g.dh - a;
  g.dl = (C(1.0f) - b) + (a - (g.dh - b));
}

// laplace at its defaults (HF's mu = 0.707107, sigma = 0.282095): Phi(z), z = (x - mu) / sigma carried as zh + zl
// (x - mu's float32 part by TwoSum, mu's rest and the product's errors added: z to ~2^-46 relative; zh alone
// would cost |z| ULP of the argument in e^{-z^2/2}), with gelu's pieces: e^{-a^2/2} (a = |z|, a^2 = sh + sl,
// 2 zh zl included, kept outside the reduced argument as softcap's), (1 + a) erfcx(a / sqrt2) = 1 + q from zh
// alone (the product's relative sensitivity to a is below 0.2 once D = 1 + a carries zl), W = E (1 + q) / D;
// Phi(-a) = W 2^(k-1), Phi(a) = 1 - Phi(-a); a clamped at 16 (Phi(-16) < 2^-186)
ALWAYS static inline void laplace_z(VF x, VF& zh, VF& zl) {
  const VF dh = x - C(LP_MU_HI);
  const VF bb = dh - x;
  const VF dl = ((x - (dh - bb)) + (-C(LP_MU_HI) - bb)) - C(LP_MU_LO);  // x - mu = dh + dl (TwoSum)
  zh = dh * C(LP_INV_HI);
  zl = fma_(dh, C(LP_INV_HI), -zh) + (dh * C(LP_INV_LO) + dl * C(LP_INV_HI));
}
// e^{-a^2/2} for a = |zh + zl| (zl with a's sign), clamped where a^2 / 2 > -floor (the low part then 0)
ALWAYS static inline void gauss_exp(VF ah, VF al, float floor, Exp& e, VF& far) {
  const VF sh = ah * ah;
  const VF sl = fma_(ah, ah, -sh) + C(2.0f) * ah * al;
  far = exp_clamped(sh * C(-0.5f), sl * C(-0.5f), floor, e);
}
// Phi(z) for z = zh + zl from Z(x) (laplace_z; ndtr: z = x)
template <void (*Z)(VF, VF&, VF&)> ALWAYS static inline VF norm_cdf_of(VF x) {
  VF zh, zl;
  Z(x, zh, zl);
  const VF neg = zh < C(0.0f);
  const VF ah = at::vec::minimum(zh.abs(), C(16.0f));
  const VF al = blend(blend(zl, -zl, neg), C(0.0f), zh.abs() > C(16.0f));
  Exp e;
  VF far;
  gauss_exp(ah, al, -128.0f, e, far);
  const VF u = ah / (ah + C(4.0f));
  const VF q = u * ERFCX_Q(C(2.0f) * u - C(1.0f));
  const VF qh = C(1.0f) + q, ql = (C(1.0f) - qh) + q;
  const VF dh = C(1.0f) + ah, b = dh - ah;
  const VF dl = ((C(1.0f) - b) + (ah - (dh - b))) + al;  // 1 + a (TwoSum)
  const VF nh = e.h * qh;
  const VF nl = fma_(e.h, qh, -nh) + (e.h * ql + e.l * qh);
  VF wh, wl;
  quotient2(nh, nl, dh, dl, wh, wl);
  const VF km = e.k - C(1.0f);
  // Phi(-a) (exact for a < 6) for the upper branch, the scale clamped at 2^-60 (beyond, 1 - Phi(-a) rounds to 1
  // either way), so that no lane forms a subnormal it does not return (see one_plus_of); the lower branch's
  // result below 2^-151 (z < -14.2188) is its zero, made without the underflowing scale
  const VF th = scaled(wh, at::vec::maximum(km, C(-60.0f))), tl = scaled(wl, at::vec::maximum(km, C(-60.0f)));
  const VF oh = C(1.0f) - th;
  const VF upper = oh + (((C(1.0f) - oh) - th) - tl);
  const VF zero = zh < C(-14.22f);
  const VF lower = blend(scaled(wh + wl, blend(km, C(0.0f), zero | (zh >= C(0.0f)))), C(0.0f), zero);
  return nan_to(blend(upper, lower, neg), x);
}
// go c phi(z), c = ch + cl (laplace: 1 / sigma): e^{-a^2/2} 2^k as above down to a^2 / 2 = 194 (beyond,
// |go c phi(z)| < 2^-151 for every finite float32 go where c < 2^1.5), times c / sqrt(2 pi) as hi + lo (the
// caller's constants), the product with go rounded once
template <void (*Z)(VF, VF&, VF&)> ALWAYS static inline VF norm_pdf_of(VF go, VF x, float ch, float cl) {
  VF zh, zl;
  Z(x, zh, zl);
  const VF ah = zh.abs();
  const VF al = blend(zl, -zl, zh < C(0.0f)) & (ah < C(INFINITY));  // (zl is NaN at x = +-inf)
  Exp e;
  VF far;
  gauss_exp(ah, al, -194.0f, e, far);
  const VF ph = e.h * C(ch);
  // (far lanes, blended below, take the scale 2^0: the product would underflow)
  const VF r = scaled_product(go, {ph, fma_(e.h, C(ch), -ph) + (e.h * C(cl) + e.l * C(ch)), blend(e.k, C(0.0f), far)});
  // beyond: go 0, or for an infinite go the infinity of its sign (phi is tiny there, not 0; at x = +-inf it is 0)
  const VF beyond = blend(go * C(0.0f), go, (go.abs() == C(INFINITY)) & (ah < C(INFINITY)));
  return nan_to(blend(r, beyond, far), x);
}
ALWAYS static inline VF laplace_far(VF x) { return norm_cdf_of<laplace_z>(x); }
ALWAYS static inline VF laplace_grad_far(VF go, VF x) { return norm_pdf_of<laplace_z>(go, x, LP_C_HI, LP_C_LO); }
// ndtr, Phi(x): laplace's kernels with z = x exactly (outside norm_cdf_near's and pdf_near's ranges)
ALWAYS static inline void exact_z(VF x, VF& zh, VF& zl) {
  zh = x;
  zl = C(0.0f);
}
ALWAYS static inline VF ndtr_far(VF x) { return norm_cdf_of<exact_z>(x); }
ALWAYS static inline VF ndtr_grad_far(VF go, VF x) { return norm_pdf_of<exact_z>(go, x, INV_SQRT_2PI_HI, INV_SQRT_2PI_LO); }

// float32 lanes as two vectors of doubles (exact) and back (one rounding, also into float32's subnormal range), a
// double's bits as an int64 and back (ATen's cast<int64_t>(double) goes through memory), and float32 min / max that
// return their second operand where either is NaN (the instructions' own rule)
using VD = Vectorized<double>;
using VL = Vectorized<int64_t>;
#if defined(CPU_CAPABILITY_AVX512)
ALWAYS static inline void widen(VF v, VD& lo, VD& hi) {
  lo = VD(_mm512_cvtps_pd(_mm512_castps512_ps256(v)));
  hi = VD(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
}
ALWAYS static inline VF narrow(VD lo, VD hi) {
  const __m256d l = _mm256_castps_pd(_mm512_cvtpd_ps(lo)), h = _mm256_castps_pd(_mm512_cvtpd_ps(hi));
  return VF(_mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(l), h, 1)));
}
ALWAYS static inline VL bits_of(VD v) { return VL(_mm512_castpd_si512(v)); }
ALWAYS static inline VD double_of(VL v) { return VD(_mm512_castsi512_pd(v)); }
ALWAYS static inline VF max_or_second(VF a, VF b) { return VF(_mm512_max_ps(a, b)); }
ALWAYS static inline VF min_or_second(VF a, VF b) { return VF(_mm512_min_ps(a, b)); }
#else
ALWAYS static inline void widen(VF v, VD& lo, VD& hi) {
  lo = VD(_mm256_cvtps_pd(_mm256_castps256_ps128(v)));
  hi = VD(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
}
ALWAYS static inline VF narrow(VD lo, VD hi) {
  return VF(_mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1));
}
ALWAYS static inline VL bits_of(VD v) { return VL(_mm256_castpd_si256(v)); }
ALWAYS static inline VD double_of(VL v) { return VD(_mm256_castsi256_pd(v)); }
ALWAYS static inline VF max_or_second(VF a, VF b) { return VF(_mm256_max_ps(a, b)); }
ALWAYS static inline VF min_or_second(VF a, VF b) { return VF(_mm256_min_ps(a, b)); }
#endif

// hardswish, x relu6(x + 3) / 6, in float32 with error-free steps: xc = x clamped to [-3, 3], s = xc + 3 and its
// error e by Fast2Sum (3 >= |xc|), the product xc (s + e) = ph + pl (ph's error exact by an fma; xc e's rounding
// below 2^-46 of it), then p / 6 by one product with 1/6, the exact remainder ph - 6 y0 (y0 within an ULP of the
// quotient), and one corrected fma: within ~2^-20 ULP of the correctly rounded result, so correctly rounded but
// within that of a midpoint (0.5 ULP), also into the subnormal range (every step's grid is the subnormals' there);
// x itself above 3, and x's sign ORed in (a zero of x's sign up to -3, -inf included: the catalog's limit, x 0).
// 17 vector instructions per 16 elements, where the doubles' form (widen, (xt + 3) xc / 6, narrow; the same bits)
// took 17 per 8; torch.hardswish rounds three times (1.86 ULP). ns per element: notes/2026-12-06h.
ALWAYS static inline VF hardswish_f(VF x) {
  const VF xc = min_or_second(C(3.0f), max_or_second(C(-3.0f), x));  // (NaN stays NaN; -inf -> -3, +inf -> 3)
  const VF s = xc + C(3.0f);
  const VF e = xc - (s - C(3.0f));
  const VF ph = xc * s;
  const VF pl = at::vec::fmsub(xc, s, ph) + xc * e;
  const VF y0 = ph * C(1.0f / 6.0f);
  const VF r = at::vec::fnmadd(y0, C(6.0f), ph) + pl;
  return blend(fma_(r, C(1.0f / 6.0f), y0) | (x & C(-0.0f)), x, x > C(3.0f));
}
// go (2x + 3) / 6 for -3 <= x <= 3: s = 2x + 3 rounded once by an fma, s / 6 = qh + ql (qh = s (1/6), ql its exact
// remainder times 1/6, to 2^-47 of s / 6), go (qh + ql) rounded once by an fma: s's rounding and the last, below
// 1.5 ULP (the goal is 4; the doubles' form was 0.5), with no overflow where the result is finite (qh <= 3/2); an
// infinite go takes go qh (go ql would add inf - inf or inf 0); go above 3, go 0 below -3 (the catalog's one-sided
// values at the breakpoints: -1/2 at -3, 3/2 at 3)
ALWAYS static inline VF hardswish_grad_f(VF go, VF x) {
  const VF s = fma_(x, C(2.0f), C(3.0f));
  const VF qh = s * C(1.0f / 6.0f);
  const VF ql = at::vec::fnmadd(qh, C(6.0f), s) * C(1.0f / 6.0f);
  VF r = blend(fma_(go, qh, go * ql), go * qh, go.abs() == C(INFINITY));
  r = blend(r, go, x > C(3.0f));
  return zero_derivative_at(r, go, x < C(-3.0f));  // (a NaN x made r NaN)
}

// hardswish for bfloat16 inputs (HALF_FORMS: rounded to bfloat16, the doubted lanes near a midpoint looked up):
// x relu6(x + 3) / 6 with xc = x clamped to [-3, 3] and the quotient correctly rounded (a division). From |x| =
// 2^-7 on the product p = xc (xc + 3) is exact in float32 (8 significant bits times at most 16), so q is p / 6
// rounded once, and q lies on a midpoint M between two bfloat16s only where p / 6 is M (p and 6 M are otherwise
// distinct float32s of one binade, at least 4 of M's float32 ULPs apart): rounding q to bfloat16 is correctly
// rounded there, ties included. Below 2^-7 xc + 3 and the product round first (three roundings: within 3 ULP, W
// = 4): `hardswish_half_doubt`'s lanes. (The product times a rounded 1/6, 5 operations where hardswish_f takes 17,
// had put every tie, x = 0.28125, 0.9375, 1.3125 and the like, frequent in bfloat16 data, within W of a midpoint:
// 0.5% of N(0, 1) inputs looked up in a 256 KB table, 15% of the vectors, 0.33 ns per element at 4M of which 0.15
// the look-ups.) The derivative: 2x + 3 by an fma, times 1/6, times go: below 3.5 ULP, rounded once more to
// bfloat16.
ALWAYS static inline VF hardswish_half_f(VF x) {
  const VF xc = min_or_second(C(3.0f), max_or_second(C(-3.0f), x));  // (NaN stays NaN; -inf -> -3, +inf -> 3)
  return blend(xc * (xc + C(3.0f)) / C(6.0f), x, x > C(3.0f));
}
ALWAYS static inline VF hardswish_half_doubt(VF x) { return x.abs() < C(0.0078125f); }
ALWAYS static inline VF hardswish_plain_grad_f(VF go, VF x) {
  const VF r = blend(go * (fma_(x, C(2.0f), C(3.0f)) * C(1.0f / 6.0f)), go, x > C(3.0f));
  return zero_derivative_at(r, go, x < C(-3.0f));  // (a NaN x made r NaN)
}

// sum of c[i] x^i, i < N, in doubles by Horner's scheme
template <int N> ALWAYS static inline VD poly_d(VD x, const double* c) {
  VD p = VD(c[N - 1]);
  for (int i = N - 2; i >= 0; --i) p = at::vec::fmadd(p, x, VD(c[i]));
  return p;
}
// siren, sin(w x) (w = SIREN_W, its default 30), in doubles: p = w x is exact (a product of two float32s), k =
// round(p 2/pi) (p 2/pi + 1.5 2^52 rounds to an integer, k in its low bits), r = p - k pi/2 by two fmas against
// pi/2 = PIO2_HI + PIO2_LO, each rounding relative to r itself: |r| >= 2^-27.9 for every float32 x with
// |p| < SIN_NEAR (tools/sin_reduction_bound.py, for w = 30), so r is within 2^-50 of its value relative. sin r and
// cos r by `sin_cos_parts`, the quadrant's choice and sign from k's two low bits, then one rounding to float32:
// correctly rounded but within 2^-12 ULP of a midpoint (every float32 of the range: 0.5001 ULP both ways). The
// derivative go w cos(w x) = go w sin(p + pi/2) is the same with k + 1, go w and the sine multiplied in doubles
// (where cos p rounds to 1 and go w is a float32 midpoint, it rounds to even: 0.5 ULP). Beyond |p| = SIN_NEAR (and
// at infinities or NaN) the C library's sin and cos of the double p, whose range reduction is exact at every
// magnitude, lane by lane (none in the vectors of ordinary inputs).
constexpr double TWO_OVER_PI = 0x1.45f306dc9c883p-1, PIO2_HI = 0x1.921fb54442d18p+0, PIO2_LO = 0x1.1a62633145c07p-54;
constexpr double SIN_NEAR = 0x1p22, ROUND_MAGIC = 0x1.8p52;
// sin r and cos r of p = k pi/2 + r, and kk = k + 1.5 2^52 (k in its low bits). Taylor's series to r^11 and r^12
// (2^-36 relative: enough for a value rounded to float32), or, FULL, to r^15 and r^16 (2^-54: for gcu's derivative,
// whose terms cancel)
struct SinCos { VD s, c, kk; };
template <bool FULL = false> ALWAYS static inline void sin_cos_parts(VD p, SinCos& t) {
  t.kk = at::vec::fmadd(p, VD(TWO_OVER_PI), VD(ROUND_MAGIC));
  const VD k = t.kk - VD(ROUND_MAGIC);
  VD r = at::vec::fmadd(k, VD(-PIO2_HI), p);
  r = at::vec::fmadd(k, VD(-PIO2_LO), r);
  const VD r2 = r * r;
  static constexpr double sin_t[] = {-1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362880.0, -1.0 / 39916800.0,
                                     1.0 / 6227020800.0, -1.0 / 1307674368000.0};
  static constexpr double cos_t[] = {1.0, -0.5, 1.0 / 24.0, -1.0 / 720.0, 1.0 / 40320.0, -1.0 / 3628800.0,
                                     1.0 / 479001600.0, -1.0 / 87178291200.0, 1.0 / 20922789888000.0};
  t.s = r * at::vec::fmadd(poly_d<FULL ? 7 : 5>(r2, sin_t), r2, VD(1.0));  // (r (1 + ...): the sign of a zero r)
  t.c = poly_d<FULL ? 9 : 7>(r2, cos_t);
}
// sin(p + J pi/2): with q = k + J, sin r, cos r, -sin r, -cos r (q's bit 0 picks, bit 1 flips the sign)
template <int J> ALWAYS static inline VD quarter_turns(const SinCos& t) {
  const VL q = bits_of(t.kk) + VL(J);
  const VD odd = double_of((q & VL(1)) == VL(1));
  return VD::blendv(t.s, t.c, odd) ^ double_of((q & VL(2)) << VL(62));
}
template <int J> ALWAYS static inline VD sin_quarter_turns(VD p) {  // sin(p + J pi / 2)
  SinCos t;
  sin_cos_parts(p, t);
  return quarter_turns<J>(t);
}
// f(go, x) of each lane in doubles, rounded once: the far lanes' C library calls
template <class F> __attribute__((noinline, cold)) static VF scalar_lanes(VF go, VF x, F f) {
  float gs[V], xs[V], out[V];
  go.store(gs);
  x.store(xs);
  for (int64_t i = 0; i < V; ++i) out[i] = static_cast<float>(f(static_cast<double>(gs[i]), static_cast<double>(xs[i])));
  return VF::loadu(out);
}
// sin p of |p| < 2^-25 rounds to p itself in doubles, and p (29 bits) may be a float32 midpoint, where the true sine,
// strictly between p and its neighbour toward zero, rounds toward zero: the neighbour does (as the float64 path)
ALWAYS static inline VD below_where_equal(VD s, VD p) {
  const VD below = double_of(bits_of(s) - VL(1));
  return VD::blendv(s, below, (s == p) & (p != VD(0.0)));
}
// go c sin(w x + j pi/2) rounded once (GO false: the value, go and c 1)
template <int J, bool GO> ALWAYS static inline VF sin_of_product(VF go, VF x, double w, double c) {
  const VF near = x.abs() < C(static_cast<float>(SIN_NEAR / w));
  VD xl, xh;
  widen(x, xl, xh);
  VD yl = sin_quarter_turns<J>(xl * VD(w)), yh = sin_quarter_turns<J>(xh * VD(w));
  if (GO) {
    VD gl, gh;
    widen(go, gl, gh);
    yl = gl * VD(c) * yl;
    yh = gh * VD(c) * yh;
  } else if (J == 0 && !none(x.abs() < C(static_cast<float>(0x1p-25 / w)))) {
    yl = below_where_equal(yl, xl * VD(w));
    yh = below_where_equal(yh, xh * VD(w));
  }
  VF y = narrow(yl, yh);
  if (J % 2 == 0) y = blend(y, x, x == C(0.0f));  // (sin(-0) = -0, where the fmas give +0)
  if (every(near)) return y;
  const VF far = scalar_lanes(GO ? go : C(1.0f), x, [w, c](double g, double v) {
    const double p = v * w;
    return g * c * (J == 0 ? std::sin(p) : J == 1 ? std::cos(p) : -std::sin(p));
  });
  return blend(far, y, near);
}
ALWAYS static inline VF siren_f(VF x) { return sin_of_product<0, false>(x, x, SIREN_W, 1.0); }
ALWAYS static inline VF siren_grad_f(VF go, VF x) { return sin_of_product<1, true>(go, x, SIREN_W, SIREN_W); }

// gcu, x cos x, and its derivative go (cos x - x sin x), in doubles from siren's pieces (w = 1), rounded once. The
// derivative's terms cancel near its zeros (x tan x = 1), where its value is down to ~2^-30 |x|: sine and cosine to
// 2^-54 (FULL) and one fma keep it to float32's last bit there (with the forward's 2^-36 series: 553 ULP). The
// reduction's |r| >= 2^-27.8 below |x| = 2^22, and the kernels' errors there 0.5002 / 0.5000 ULP
// (tools/sin_reduction_bound.py); beyond, the C library's sin and cos
ALWAYS static inline VD gcu_d(VD x) { return x * sin_quarter_turns<1>(x); }
ALWAYS static inline VD gcu_grad_d(VD go, VD x) {
  SinCos t;
  sin_cos_parts<true>(x, t);
  return go * at::vec::fmadd(-x, quarter_turns<0>(t), quarter_turns<1>(t));
}
ALWAYS static inline VF gcu_f(VF x) {
  VD xl, xh;
  widen(x, xl, xh);
  const VF y = narrow(gcu_d(xl), gcu_d(xh));
  const VF near = x.abs() < C(static_cast<float>(SIN_NEAR));
  if (every(near)) return y;
  return blend(scalar_lanes(x, x, [](double, double v) { return v * std::cos(v); }), y, near);
}
ALWAYS static inline VF gcu_grad_f(VF go, VF x) {
  VD gl, gh, xl, xh;
  widen(go, gl, gh);
  widen(x, xl, xh);
  const VF y = narrow(gcu_grad_d(gl, xl), gcu_grad_d(gh, xh));
  const VF near = x.abs() < C(static_cast<float>(SIN_NEAR));
  if (every(near)) return y;
  const VF far = scalar_lanes(go, x, [](double g, double v) { return g * (std::cos(v) - v * std::sin(v)); });
  return blend(far, y, near);
}

// snake at a = 1, x + sin^2 x, and its derivative go (sin x + cos x)^2 (the catalog's square, not 1 + sin 2x, which
// cancels at the derivative's double zeros), in doubles from siren's pieces (w = 1), rounded once. The forward's
// sum cancels at most 1.8x (x + sin^2 x from x = -0.8; sin^2 x to 2^-35 relative); the derivative's sin x + cos x
// cancels near its zeros, x = -pi/4 + k pi: sine and cosine to 2^-54 (FULL), so its value, at least ~2^-24 |x| at
// the float32s nearest a zero, keeps float32's precision. Beyond |x| = 2^22, the C library's sin and cos
// (BETA: snake_beta at its defaults, x + sin^2 x / D, D = b + eps = 1 + 1e-9 in doubles as the catalog's body, and
// its derivative (eps + (sin x + cos x)^2) / D, the catalog's form: both terms >= 0)
template <bool BETA = false> ALWAYS static inline double snake_scalar(double v) {
  const double s = std::sin(v);
  return BETA ? v + s * s / SNAKE_BETA_D : v + s * s;
}
template <bool BETA = false> ALWAYS static inline double snake_grad_scalar(double g, double v) {
  const double sum = std::sin(v) + std::cos(v);
  return BETA ? g * ((SNAKE_BETA_EPS + sum * sum) / SNAKE_BETA_D) : g * (sum * sum);
}
template <bool BETA = false> ALWAYS static inline VD snake_d(VD x) {
  const VD s = sin_quarter_turns<0>(x);
  if constexpr (BETA) return x + s * s / VD(SNAKE_BETA_D);
  return at::vec::fmadd(s, s, x);
}
template <bool BETA = false> ALWAYS static inline VD snake_grad_d(VD go, VD x) {
  SinCos t;
  sin_cos_parts<true>(x, t);
  const VD sum = quarter_turns<0>(t) + quarter_turns<1>(t);
  if constexpr (BETA) return go * (at::vec::fmadd(sum, sum, VD(SNAKE_BETA_EPS)) / VD(SNAKE_BETA_D));
  return go * (sum * sum);
}
template <bool BETA = false> ALWAYS static inline VF snake_of(VF x) {
  VD xl, xh;
  widen(x, xl, xh);
  const VF y = narrow(snake_d<BETA>(xl), snake_d<BETA>(xh));
  const VF near = x.abs() < C(static_cast<float>(SIN_NEAR));
  if (every(near)) return y;
  return blend(scalar_lanes(x, x, [](double, double v) { return snake_scalar<BETA>(v); }), y, near);
}
template <bool BETA = false> ALWAYS static inline VF snake_grad_of(VF go, VF x) {
  VD gl, gh, xl, xh;
  widen(go, gl, gh);
  widen(x, xl, xh);
  const VF y = narrow(snake_grad_d<BETA>(gl, xl), snake_grad_d<BETA>(gh, xh));
  const VF near = x.abs() < C(static_cast<float>(SIN_NEAR));
  if (every(near)) return y;
  return blend(scalar_lanes(go, x, [](double g, double v) { return snake_grad_scalar<BETA>(g, v); }), y, near);
}
ALWAYS static inline VF snake_f(VF x) { return snake_of(x); }
ALWAYS static inline VF snake_grad_f(VF go, VF x) { return snake_grad_of(go, x); }
ALWAYS static inline VF snake_beta_f(VF x) { return snake_of<true>(x); }
ALWAYS static inline VF snake_beta_grad_f(VF go, VF x) { return snake_grad_of<true>(go, x); }

// e^z in doubles for -700 <= z <= 0 (the softplus family's u = e^-|x|): k = round(z / ln 2) (z / ln 2 + 1.5 2^52
// rounds to an integer, k in its low bits), r = z - k ln 2 by two fmas (|r| <= ln 2 / 2), e^r by Taylor's series to
// r^8 (the next term is below 2^-32 relative), or FULL to r^13 (2^-52: golu's e^-e^-x, whose outer exponential
// multiplies the inner one's relative error by e^-x, up to 700), 2^k added to the exponent's bits (a normal
// double: k >= -1010)
constexpr double LOG2E_D = 0x1.71547652b82fep+0, LN2_HI_D = 0x1.62e42fefa39efp-1, LN2_LO_D = 0x1.abc9e3b39803fp-56;
template <bool FULL = false> ALWAYS static inline VD exp_d(VD z) {
  const VD kk = at::vec::fmadd(z, VD(LOG2E_D), VD(ROUND_MAGIC));
  const VD k = kk - VD(ROUND_MAGIC);
  VD r = at::vec::fmadd(k, VD(-LN2_HI_D), z);
  r = at::vec::fmadd(k, VD(-LN2_LO_D), r);
  static constexpr double taylor[] = {1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0, 1.0 / 5040.0,
                                      1.0 / 40320.0, 1.0 / 362880.0, 1.0 / 3628800.0, 1.0 / 39916800.0,
                                      1.0 / 479001600.0, 1.0 / 6227020800.0};
  const VD e = poly_d<FULL ? 14 : 9>(r, taylor);
  return double_of(bits_of(e) + (bits_of(kk) << VL(52)));
}
// log(1 + u) for 0 <= u <= 1 in doubles: y = 1 + u (rounded: 2^-53 absolute), m = y, or y / 2 above sqrt 2, f = m - 1
// exact, log1p(f) = f + f^2 Q(f) (LOG1P_Q: 2^-30.1 relative, tools/fit_log1p_double.py), + ln 2 where halved; below
// u = 2^-12, where y's rounding would be 2^-41 of the value, u (1 - u / 2 + u^2 / 3) (the next term: 2^-38)
ALWAYS static inline VD log1p_d(VD u) {
  const VD y = u + VD(1.0);
  const VD halved = y > VD(0x1.6a09e667f3bcdp+0);
  const VD f = VD::blendv(y, y * VD(0.5), halved) - VD(1.0);
  const VD l = at::vec::fmadd(f * f, poly_d<sizeof(LOG1P_Q) / sizeof(double)>(f, LOG1P_Q), f) + (halved & VD(LN2_HI_D));
  const VD series = u * at::vec::fmadd(u, at::vec::fmadd(u, VD(1.0 / 3.0), VD(-0.5)), VD(1.0));
  return VD::blendv(l, series, u < VD(0x1p-12));
}
// softplus(x) = max(x, 0) + log1p(u), u = e^-|x| (|x| clamped at 700: beyond, u is below 2^-1009 and every
// result below rounds as at 700), in doubles
ALWAYS static inline void softplus_d(VD x, VD& u, VD& sp) {
  u = exp_d(-at::vec::minimum(x.abs(), VD(700.0)));  // (NaN stays NaN)
  sp = at::vec::maximum(x, VD(0.0)) + log1p_d(u);
}
// sqrtsoftplus, sqrt(softplus(x)), in doubles and rounded once: 2^-30 relative before the rounding, so correctly
// rounded but within 2^-6 ULP of a midpoint
ALWAYS static inline VD sqrtsoftplus_d(VD x) {
  VD u, sp;
  softplus_d(x, u, sp);
  return sp.sqrt();
}
ALWAYS static inline VF sqrtsoftplus_doubles(VF x) {
  VD xl, xh;
  widen(x, xl, xh);
  return narrow(sqrtsoftplus_d(xl), sqrtsoftplus_d(xh));
}
// below |x| = 8 from SQRTSOFTPLUS_T (native32's interval tables: 0.5 ns per element where the doubles take ~2)
ALWAYS static inline VF sqrtsoftplus_f(VF x) {
  if (every_abs_below(x, 8.0f)) return table_value<2>(x, SQRTSOFTPLUS_T);
  const VF table = x.abs() < C(8.0f);
  return blend(sqrtsoftplus_doubles(x), table_value<2>(x & table, SQRTSOFTPLUS_T), table);
}
// go sigma(x) / (2 sqrt(softplus(x))) = go n / (2 (1 + u) sqrt(softplus(x))), n = 1 for x >= 0 and u below, in
// doubles, rounded once; at x = +-inf go 0 (the limits: sigma / sqrt(softplus) -> 0 both ways; an infinite go NaN)
ALWAYS static inline VD sqrtsoftplus_grad_d(VD go, VD x) {
  VD u, sp;
  softplus_d(x, u, sp);
  const VD n = VD::blendv(VD(1.0), u, x < VD(0.0));
  const VD g = go * n / (VD(2.0) * (VD(1.0) + u) * sp.sqrt());
  return VD::blendv(g, go * VD(0.0), x.abs() == VD(INFINITY));
}
ALWAYS static inline VF sqrtsoftplus_grad_doubles(VF go, VF x) {
  VD gl, gh, xl, xh;
  widen(go, gl, gh);
  widen(x, xl, xh);
  return narrow(sqrtsoftplus_grad_d(gl, xl), sqrtsoftplus_grad_d(gh, xh));
}
// below |x| = 8 (and go in times_grad_table's range) from SQRTSOFTPLUS_GRAD_T
ALWAYS static inline VF sqrtsoftplus_grad_f(VF go, VF x) {
  if (every_table_lane(go, x, 8.0f)) return go_times_table<2>(go, x, SQRTSOFTPLUS_GRAD_T);
  const VF table = (x.abs() < C(8.0f)) & unscaled_lanes(go);
  return blend(sqrtsoftplus_grad_doubles(go, x), go_times_table<2>(go & table, x & table, SQRTSOFTPLUS_GRAD_T), table);
}

// softplus(beta x) / beta at a parameter value (PARAMETRIZED["softplus"]; beta in [2^-60, 2^60], a double), in
// doubles: beta x to 2^-53, softplus_d's 2^-30, the quotient, then one rounding to float32 (the float32 form, exp
// of a rounded beta x, was 32 ULP at beta = 1.75); +inf stays +inf, -inf gives +0 (softplus_d's clamp: e^-700 /
// beta underflows float32 for every beta in range)
ALWAYS static inline VD softplus_beta_d(VD x, double beta) {
  VD u, sp;
  softplus_d(x * VD(beta), u, sp);
  return sp / VD(beta);
}
ALWAYS static inline VF softplus_beta_f(VF x, double beta) {
  VD xl, xh;
  widen(x, xl, xh);
  return narrow(softplus_beta_d(xl, beta), softplus_beta_d(xh, beta));
}
// go sigma(beta x) = go n / (1 + u), u = e^-|beta x| (n = 1 for beta x >= 0, u below), in doubles, rounded once;
// at x = -inf go 0 (sigma is 0 there: NaN for an infinite go, as IEEE's product), where a finite x's tiny sigma
// times an infinite go is the infinity (NaN x: NaN, by the caller: exp_d's exponent arithmetic does not keep it)
ALWAYS static inline VD softplus_beta_grad_d(VD go, VD x, double beta) {
  const VD z = x * VD(beta);
  const VD u = exp_d(-at::vec::minimum(z.abs(), VD(700.0)));
  const VD g = go * VD::blendv(VD(1.0), u, z < VD(0.0)) / (VD(1.0) + u);
  return VD::blendv(g, go * VD(0.0), x == VD(-INFINITY));
}
ALWAYS static inline VF softplus_beta_grad_f(VF go, VF x, double beta) {
  VD gl, gh, xl, xh;
  widen(go, gl, gh);
  widen(x, xl, xh);
  return nan_to(narrow(softplus_beta_grad_d(gl, xl, beta), softplus_beta_grad_d(gh, xh, beta)), x);
}

// erf(s) for 0 <= s <= 6 in doubles (callers clamp: erfc(6) < 2^-55, so erf rounds to 1 beyond): below
// ERF_SERIES_BELOW (1/2) Taylor's series s (c0 + c1 s^2 + ... + c8 s^16) (the next term is 2^-40 relative); above,
// 1 - erfc(s), erfc(s) = e^{-s^2} (1 + q) / (1 + a) with a = s sqrt 2, (1 + a) erfcx(a / sqrt 2) = 1 + q gauss's
// fit (ERFCX_Q_D: its float32 coefficients, u = a / (a + 4) and (1 + a)'s quotient from one division), 2^-28.5
// relative: erfc < 0.48 there, so erf is within 2^-28.6 relative (exp_d's 2^-32 included)
ALWAYS static inline VD erf_d(VD s) {
  const VD s2 = s * s;
  const VD series = s * poly_d<sizeof(ERF_SERIES) / sizeof(double)>(s2, ERF_SERIES);
  const VD a = s * VD(SQRT2_D), a4 = a + VD(4.0), a1 = a + VD(1.0);
  const VD r = VD(1.0) / (a4 * a1);
  const VD u = a * a1 * r;
  const VD q = u * poly_d<sizeof(ERFCX_Q_D) / sizeof(double)>(u + u - VD(1.0), ERFCX_Q_D);
  const VD erfc = exp_d(-s2) * (VD(1.0) + q) * (a4 * r);
  return VD::blendv(VD(1.0) - erfc, series, s < VD(ERF_SERIES_BELOW));
}
// serf, x erf(s), s = softplus(x), in doubles (softplus_d: s to 2^-30 relative, which erf's relative
// sensitivity s erf'(s) / erf(s) <= 1 does not grow; erf_d's 2^-28.6), rounded once: within ~0.55 ULP. x clamped at
// -1e4 in the product: -inf gives the catalog's -0 (x e^x's limit), not -inf times softplus_d's clamped e^-700
ALWAYS static inline VD serf_d(VD x) {
  VD u, sp;
  softplus_d(x, u, sp);
  return at::vec::maximum(x, VD(-1e4)) * erf_d(at::vec::minimum(sp, VD(6.0)));
}
ALWAYS static inline VF serf_doubles(VF x) {
  VD xl, xh;
  widen(x, xl, xh);
  return nan_to(narrow(serf_d(xl), serf_d(xh)), x);
}
// below |x| = 4 from SERF_T (x F, F = erf(softplus(x)): native32's interval tables), 0.6 ns per element where the
// doubles take 4.5; beyond, the doubles
ALWAYS static inline VF serf_f(VF x) {
  if (every_abs_below(x, 4.0f)) return times_table<4>(x, SERF_T);
  const VF table = x.abs() < C(4.0f);
  return blend(serf_doubles(x), times_table<4>(x & table, SERF_T), table);
}
// go serf'(x), serf'(x) = erf(s) + x (2 / sqrt pi) e^{-s^2} sigma(x) (sigma from softplus_d's u: n / (1 + u), n = 1
// for x >= 0 and u below), in doubles, rounded once. For x < 0 the terms have opposite signs and cancel toward the
// zero x0 = -1.193... (lanes whose go needs a scale: the others below |x| = 4 take SERF_GRAD_T): within SERF_ZONE
// (0.15) of it the polynomial in d = x - x0 of tools/fit_serf_grad_double.py
// (x0 a double pair: d exact but for one rounding; the fit 2^-32 relative), beyond, the terms are within 13x of
// their difference (2^-26 relative). s clamped at 26 in e^{-s^2} (beyond, the second term is below 2^-900 of the
// first) and x at +-1e4 in the product (x = +inf: 1, as the limit; -inf: -0, the sign of the tail's tiny values,
// so go -0, NaN for an infinite go)
ALWAYS static inline VD serf_grad_d(VD go, VD x) {
  VD u, sp;
  softplus_d(x, u, sp);
  const VD s = at::vec::minimum(sp, VD(26.0));
  const VD sigma = VD::blendv(VD(1.0), u, x < VD(0.0)) / (VD(1.0) + u);
  const VD xc = at::vec::clamp(x, VD(-1e4), VD(1e4));
  VD f = at::vec::fmadd(xc * VD(TWO_OVER_SQRT_PI_D) * exp_d(-(s * s)), sigma, erf_d(at::vec::minimum(sp, VD(6.0))));
  const VD d = (x - VD(SERF_X0_HI)) - VD(SERF_X0_LO);
  const VD p = poly_d<sizeof(SERF_GRAD_P) / sizeof(double)>(d, SERF_GRAD_P);
  f = VD::blendv(f, d * at::vec::fmadd(d, p, VD(SERF_C0)), d.abs() < VD(SERF_ZONE));
  return VD::blendv(go * f, go * VD(-0.0), x == VD(-INFINITY));
}
ALWAYS static inline VF serf_grad_doubles(VF go, VF x) {
  VD gl, gh, xl, xh;
  widen(go, gl, gh);
  widen(x, xl, xh);
  return nan_to(narrow(serf_grad_d(gl, xl), serf_grad_d(gh, xh)), x);
}
ALWAYS static inline VF serf_grad_table(VF go, VF x) {
  return grad_table<4>(go, x, SERF_GRAD_T, SERF_X0_F_HI, SERF_X0_F_LO);
}
ALWAYS static inline VF serf_grad_f(VF go, VF x) {
  if (every_table_lane(go, x, 4.0f)) return serf_grad_table(go, x);
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(go);
  return blend(serf_grad_doubles(go, x), serf_grad_table(go & table, x & table), table);
}

// log y for normal y > 0 in doubles: y = m 2^e, m in [sqrt(1/2), sqrt(2)) (e from the exponent field of y's bits
// moved so that it counts from sqrt(1/2); m's bits are y's less e in that field: exact), log y = e ln 2 + log1p(m -
// 1) (m - 1 exact: Sterbenz) by LOG1P_Q, 2^-30.1 relative
ALWAYS static inline VD log_d(VD y) {
  const VL eb = (bits_of(y) + VL(0x3FF0000000000000 - 0x3FE6A09E667F3BCD)) >> VL(52);  // (e + 1023, in 1 .. 2046)
  const VD m = double_of(bits_of(y) - ((eb - VL(1023)) << VL(52)));
  const VD e = double_of(eb | VL(0x4330000000000000)) - VD(0x1p52 + 1023.0);  // (2^52 + eb exactly)
  const VD f = m - VD(1.0);
  return at::vec::fmadd(e, VD(LN2_HI_D), at::vec::fmadd(f * f, poly_d<sizeof(LOG1P_Q) / sizeof(double)>(f, LOG1P_Q), f));
}
// z(a) = Phi(-a) e^{a^2/2} for a >= 0 in doubles: (1 + q) / (2 (1 + a)) by gauss's erfcx fit (ERFCX_Q_D, 2^-28.5
// relative) up to a = 16, its range; beyond, Mills' series M(w) / (a sqrt(2 pi)), M = sum of (-1)^n (2n - 1)!! w^n
// for n <= 6, w = 1 / a^2 (alternating: the next term bounds the error, 2^-38.9 at a = 16). z(inf) = 0
ALWAYS static inline VD gauss_tail_d(VD a) {
  const VD a4 = a + VD(4.0), a1 = a + VD(1.0);
  const VD r = VD(1.0) / (a4 * a1);
  const VD u = a * a1 * r;
  const VD q = u * poly_d<sizeof(ERFCX_Q_D) / sizeof(double)>(u + u - VD(1.0), ERFCX_Q_D);
  const VD fit = (VD(1.0) + q) * (a4 * r) * VD(0.5);
  const VD mills = poly_d<sizeof(MILLS_SERIES) / sizeof(double)>(VD(1.0) / (a * a), MILLS_SERIES) / (a * VD(SQRT_2PI_D));
  return VD::blendv(fit, mills, a > VD(16.0));
}
// log_ndtr, log Phi(x), beyond |x| = 4 in doubles, rounded once: below, -a^2/2 + log z(a) (a = -x; a^2 / 2 exact,
// z to 2^-28.5 and its log to 2^-30 relative: within 2^-27 of a result of magnitude 10 or more; -inf at -inf); above,
// log1p(-Q) = -(Q + Q^2 / 2) to 2^-43 relative (Q = Phi(-x) = e^{-x^2/2} z(x) < 3.2e-5; the exponent clamped at -700,
// where Q has long rounded to 0 in float32: -0 then, as at +inf)
ALWAYS static inline VD log_ndtr_d(VD x) {
  const VD a = x.abs(), z = gauss_tail_d(a), h = VD(0.5) * a * a;
  const VD left = log_d(at::vec::maximum(z, VD(0x1p-1000))) - h;  // (z(inf) = 0: -inf from -h)
  const VD q = exp_d(at::vec::maximum(-h, VD(-700.0))) * z;
  return VD::blendv(at::vec::fmadd(q * VD(-0.5), q, -q), left, x < VD(0.0));
}
// go log_ndtr'(x) = go phi(x) / Phi(x) in doubles on every x, rounded once: below 0, go / (sqrt(2 pi) z(-x)) (go
// times infinity at -inf); above, go e^{-x^2/2} / (sqrt(2 pi) (1 - Q)) (the exponent clamped at -700: the product
// is then below float32's smallest for every finite go; at +inf phi is 0: go 0)
ALWAYS static inline VD log_ndtr_grad_d(VD go, VD x) {
  const VD a = x.abs(), z = gauss_tail_d(a), h = VD(0.5) * a * a;
  const VD left = go / (VD(SQRT_2PI_D) * z);
  const VD e = exp_d(at::vec::maximum(-h, VD(-700.0)));
  const VD right = VD::blendv(go * e / (VD(SQRT_2PI_D) * at::vec::fnmadd(e, z, VD(1.0))), go * VD(0.0), x == VD(INFINITY));
  return VD::blendv(right, left, x < VD(0.0));
}
ALWAYS static inline VF log_ndtr_doubles(VF x) {
  VD xl, xh;
  widen(x, xl, xh);
  return nan_to(narrow(log_ndtr_d(xl), log_ndtr_d(xh)), x);
}
ALWAYS static inline VF log_ndtr_grad_doubles(VF go, VF x) {
  VD gl, gh, xl, xh;
  widen(go, gl, gh);
  widen(x, xl, xh);
  return nan_to(narrow(log_ndtr_grad_d(gl, xl), log_ndtr_grad_d(gh, xh)), x);
}
// below |x| = 4 from LOG_NDTR_T (log Phi, negative throughout: fh + fl rounded once) and LOG_NDTR_GRAD_T (phi / Phi,
// no zero), where torch.special.log_ndtr computes each element by the C library's erfc and log; beyond, and lanes
// whose go needs a scale, the doubles
ALWAYS static inline VF log_ndtr_f(VF x) {
  if (every_abs_below(x, 4.0f)) return table_value<4>(x, LOG_NDTR_T);
  const VF table = x.abs() < C(4.0f);
  return blend(log_ndtr_doubles(x), table_value<4>(x & table, LOG_NDTR_T), table);
}
ALWAYS static inline VF log_ndtr_grad_f(VF go, VF x) {
  if (every_table_lane(go, x, 4.0f)) return go_times_table<4>(go, x, LOG_NDTR_GRAD_T);
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(go);
  return blend(log_ndtr_grad_doubles(go, x), go_times_table<4>(go & table, x & table, LOG_NDTR_GRAD_T), table);
}

// tanhexp, x tanh(E), E = e^x = 2^k (h + l), x clamped by the caller (k >= -289). For x >= -8.5 (E >= 2^-12.3):
// tanh E from u = e^-2E, -2E carried as hi + lo (exact scalings of h and l; its low part outside the reduced
// argument, softcap's one_plus_clamped; beyond 2E = 24 tanh E rounds to 1), the quotient as th + tl. Below,
// tanh E = E (1 - E^2 / 3) (the omitted 2E^4 / 15 is below 2^-50) kept as 2^k parts, so that no subnormal is
// formed where E is below 2^-126 (E^2 from E's scale clamped at 2^-60: below, E^2 < 2^-120)
struct TanhExp { Exp e; OnePlus o; VF small, eh, el, e2; };
ALWAYS static inline void tanhexp_parts(VF x, TanhExp& t) {
  exp_parts(x, t.e);
  t.small = x < C(-8.5f);
  const VF s = pow2(at::vec::maximum(t.e.k, C(-30.0f)));  // (exact for x >= -8.5: k >= -13)
  t.eh = t.e.h * s;
  t.el = t.e.l * s;
  one_plus_clamped(t.eh * C(-2.0f), t.el * C(-2.0f), -24.0f, t.o);
  const VF es = t.e.h * pow2(at::vec::maximum(t.e.k, C(-60.0f)));
  t.e2 = es * es;
}
// tanhexp_f's plain form where every lane has -8.5 <= x <= TE_OPEN and |x| in [2^-32, 2^32] or 0: no small form,
// no open or closed lane, no scale, no NaN; the same bits
ALWAYS static inline VF tanhexp_near(VF x) {
  TanhExp t;
  tanhexp_parts(x, t);
  VF th, tl;
  tanh_parts(t.o, th, tl);
  return fma_(x, th, x * tl).abs() | (x & C(-0.0f));
}
// x tanh(E) rounded once; above TE_OPEN (tanh E rounds to 1) x, below TE_CLOSED (|x E| < 2^-151) a zero of x's
// sign (-0; the gated product's limit at -inf); those lanes computed at x = 0
ALWAYS static inline VF tanhexp_rest(VF x) {
  if (every((x >= C(-8.5f)) & (x <= C(TE_OPEN)) & unscaled_lanes(x))) return tanhexp_near(x);
  const VF open = x > C(TE_OPEN), closed = x < C(TE_CLOSED);
  const VF xc = blend(x, C(0.0f), open | closed);
  TanhExp t;
  tanhexp_parts(xc, t);
  VF th, tl;
  tanh_parts(t.o, th, tl);
  const Parts small = {t.e.h, fma_(-t.e.h, t.e2 * C(0.333333343f), t.e.l), t.e.k};
  VF y = scaled_product(xc, blend({th, tl, C(0.0f)}, small, t.small));
  y = y.abs() | (xc & C(-0.0f));  // (x's sign: tanh E > 0; -0 stays -0)
  y = blend(y, x, open);
  y = blend(y, C(-0.0f), closed);
  return nan_to(y, x);
}
// tanhexp'(x) = T + S, T = tanh E, S = x E sech^2 E (sech^2 E = 4 E_u / D^2 2^ku from the quotient's own u, E S
// two-products), their sum a TwoSum (no cancellation for x >= 0; for x < 0 they cancel near the zero x0 = -1.0789,
// where (|x - x0| < TE_ZONE) the polynomial in d = x - x0 of tools/fit_tanhexp_grad_float32.py). Below x = -8.5,
// E [(1 + x) - E^2 (x + 1/3)] (1 + x exact: x's ULP divides 1 there; the omitted terms below 2^-48 relative).
// x clamped at TE_OPEN (f' rounds to 1 beyond: x E sech^2 E < 2^-50); times_grad's zero below TE_GRAD_CLOSED
// (|f'| < 2^-279)
ALWAYS static inline Parts tanhexp_grad_parts(VF x) {
  const VF xc = at::vec::minimum(x, C(TE_OPEN));
  TanhExp t;
  tanhexp_parts(xc, t);
  VF th, tl, y, r;
  tanh_parts(t.o, th, tl);
  over_square(t.o, y, r);
  const VF sc = pow2(t.o.e.k) * C(4.0f);  // (ku >= -35: exact)
  const VF qh = t.eh * y;
  const VF ql = fma_(t.eh, y, -qh) + (t.eh * r + t.el * y);  // E E_u / D^2
  const VF qsh = qh * sc, qsl = ql * sc;
  const VF sh = xc * qsh;
  const VF sl = fma_(xc, qsh, -sh) + xc * qsl;  // S
  const VF fh = th + sh, fb = fh - th;
  Parts p = {fh, ((th - (fh - fb)) + (sh - fb)) + (tl + sl), C(0.0f)};
  const VF bh = C(1.0f) + xc;
  const VF bl = C(0.0f) - t.e2 * (xc + C(0.333333343f));
  const VF ph = t.e.h * bh;
  p = blend(p, {ph, fma_(t.e.h, bh, -ph) + (t.e.h * bl + t.e.l * bh), t.e.k}, t.small);
  const VF dh = xc - C(TE_X0_HI);
  const VF d = dh - C(TE_X0_LO);
  return blend(p, near_zero(dh, d, TE_GRAD_P(d), TE_X0_LO, TE_C0_HI, TE_C0_LO), dh.abs() < C(TE_ZONE));
}
// gelu's gate times a numerator: xs Phi(x) = (h + l) 2^k (xs as for silu_parts), Phi(-a) = 2^(k-1) W with
// W = E (1 + q) / D as hi + lo (E (1 + q) an exact two-product, one quotient): xs W 2^(k-1) for x < 0,
// xs (1 - Phi(-a)) for x >= 0 (Phi(-a) below 2^-29 beyond 6); a clamped to erfcx's fit, 16 (beyond, the gate
// is below 2^-186: the product is taken as a zero there, exact for |v| < 2^36)
ALWAYS static inline Parts gelu_parts_of(VF x, VF xs, const Gauss& g) {
  const VF nh = g.e.h * g.qh;
  const VF nl = fma_(g.e.h, g.qh, -nh) + (g.e.h * g.ql + g.e.l * g.qh);  // E (1 + q)
  VF wh, wl;
  quotient2(nh, nl, g.dh, g.dl, wh, wl);
  const VF km = g.e.k - C(1.0f);
  // Phi(-a) (exact for a < 6, k >= -27) for x >= 0, the scale clamped at 2^-60 (see norm_cdf_of)
  const VF th = scaled(wh, at::vec::maximum(km, C(-60.0f))), tl = scaled(wl, at::vec::maximum(km, C(-60.0f)));
  const VF oh = C(1.0f) - th;
  const VF ol = ((C(1.0f) - oh) - th) - tl;  // 1 - Phi(-a)
  const VF pos = x >= C(0.0f);
  const VF fh = blend(wh, oh, pos), fl = blend(wl, ol, pos);
  const VF h = xs * fh;
  return {h, fma_(xs, fh, -h) + xs * fl, blend(km, C(0.0f), pos)};
}
ALWAYS static inline Parts gelu_parts(VF x, VF xs) {
  Gauss g;
  gauss(at::vec::minimum(x.abs(), C(16.0f)), g);
  return gelu_parts_of(x, xs, g);
}

// gelu'(x) = Phi(x) + x phi(x) as parts: 2^k E B for x < 0 and 1 - 2^k E B for x >= 0, B = (1 + q) / (2 D) -
// a / sqrt(2 pi) (each term hi + lo, their difference a TwoSum); near the zero x0 = -0.7518 (|x - x0| < 1/4)
// the fit of ops.torch_compiled.gelu_grad_float32; below -16 a negative zero (x phi(x) dominates; for
// |go v| < 2^60 the product is below 2^-150 there)
// gelu'(x) from a = |x| clamped and its Gaussian pieces g (PLAIN: no lane in the left tail)
template <bool PLAIN> ALWAYS static inline Parts gelu_grad_of(VF x, VF a, const Gauss& g) {
  VF th, tl;
  quotient2(g.qh * C(0.5f), g.ql * C(0.5f), g.dh, g.dl, th, tl);
  const VF ah = a * C(INV_SQRT_2PI_HI);
  const VF al = fma_(a, C(INV_SQRT_2PI_HI), -ah) + a * C(INV_SQRT_2PI_LO);
  const VF bh = th - ah, bb = bh - th;
  const VF bl = ((th - (bh - bb)) + (-ah - bb)) + (tl - al);  // B = T - A (TwoSum)
  const VF ebh = g.e.h * bh;
  const VF ebl = fma_(g.e.h, bh, -ebh) + (g.e.h * bl + g.e.l * bh);
  const VF kc = at::vec::maximum(g.e.k, C(-60.0f));  // (x >= 0 only: beyond 2^-60, 1 - s rounds to 1 either way)
  const VF sh = scaled(ebh, kc), sl = scaled(ebl, kc);
  const VF oh = C(1.0f) - sh;
  const VF ol = ((C(1.0f) - oh) - sh) - sl;
  Parts p = blend({ebh, ebl, g.e.k}, {oh, ol, C(0.0f)}, x >= C(0.0f));
  const VF dh = x - C(GELU_X0_HI);
  const VF d = dh - C(GELU_X0_LO);
  p = blend(p, near_zero(dh, d, GELU_GRAD_P(d), GELU_X0_LO, GELU_C0_HI, GELU_C0_LO), dh.abs() < C(GELU_ZONE));
  if constexpr (PLAIN) return p;
  return blend(p, {C(-0.0f), C(0.0f), C(0.0f)}, x < C(-16.0f));
}
template <bool PLAIN = false> ALWAYS static inline Parts gelu_grad_parts(VF x) {
  const VF a = at::vec::minimum(x.abs(), C(16.0f));
  Gauss g;
  gauss(a, g);
  return gelu_grad_of<PLAIN>(x, a, g);
}

// elu at alpha = 1 and selu: S x for x > 0, C (e^x - 1) otherwise (elu: S = C = 1; selu: S = lambda, C = lambda
// alpha, each as hi + lo). e^x - 1 = eh + el, x clamped at -30 (e^-30 < 2^-43: the result rounds to -C below):
// for k = 0 (|x| <= ln2/2, where r = x exactly) the tail p + pe itself, so no cancellation near 0 (a subnormal x
// gives p = x); else 2^k (h + l) - 1, 2^k h - 1 by Fast2Sum (1 >= 2^k h); C (eh + el) rounded once; x's sign on
// the result (-0 stays -0)
// (PLAIN: every lane's |x| below 30 and in [2^-32, 2^32] or 0, so that no lane needs the clamp, the scale of a tiny
// x, or the infinity's and NaN's blends: the same bits, at ~20% less time)
template <bool PLAIN = false> ALWAYS static inline VF elu_like_of(VF x, float sh, float sl, float ch, float cl) {
  // (x > 0 lanes, which take S x, computed at z = 0: e^x's scale there wraps pow2's exponent field into subnormals)
  const VF z = PLAIN ? at::vec::minimum(x, C(0.0f)) : at::vec::minimum(at::vec::maximum(x, C(-30.0f)), C(0.0f));
  const VF k = (z * C(1.44269502f)).round();
  const VF r = fma_(k, C(-1.42860677e-06f), fma_(k, C(-0.693145751953125f), z));
  VF p, pe;
  expm1_tail(r, p, pe);
  const VF h = C(1.0f) + p;
  const VF l = ((C(1.0f) - h) + p) + pe;
  const VF t = pow2(k);
  const VF th = h * t;
  const VF ah = th - C(1.0f);
  const VF near = k == C(0.0f);
  const VF eh = blend(ah, p, near);
  const VF el = blend((th - (ah + C(1.0f))) + l * t, pe, near);
  const VF nh = eh * C(ch);
  const VF neg = nh + (fma_(eh, C(ch), -nh) + (eh * C(cl) + el * C(ch)));
  // S x, and C x where |x| < 2^-32 (e^x - 1 = x to 2^-33), rounded once: fma(x, fh, x fl), with x scaled by
  // 2^64 first where it is below 2^-32 (x fl would lose bits to the subnormal grid; the scale is undone by one
  // multiplication, the one rounding there): the bits of scaled_product(x, S), which also scales x above 2^32
  // down (fma's exact product makes that step's result the same), at less than its cost
  const VF pos = x > C(0.0f);
  const VF fh = blend(C(ch), C(sh), pos), fl = blend(C(cl), C(sl), pos);
  if constexpr (PLAIN) return blend(neg, fma_(x, fh, x * fl), pos).abs() | (x & C(-0.0f));
  const VF tiny = x.abs() < C(0x1p-32f);
  const VF xs = x * blend(C(1.0f), C(0x1p64f), tiny);
  const VF linear = fma_(xs, fh, xs * fl) * blend(C(1.0f), C(0x1p-64f), tiny);
  VF y = blend(neg, linear, pos | tiny);
  y = blend(y, x, x == C(INFINITY));  // (inf * 0 where S's low part is 0)
  return nan_to(y.abs() | (x & C(-0.0f)), x);
}
ALWAYS static inline VF elu_like_f(VF x, float sh, float sl, float ch, float cl) {
  if (every_table_lane(x, x, 30.0f)) return elu_like_of<true>(x, sh, sl, ch, cl);
  return elu_like_of(x, sh, sl, ch, cl);
}

// go S for x > 0, go C e^x otherwise, rounded once: e^x = 2^k (h + l) down to x = -194 (beyond, |go C e^x| <
// 2^-150 for every float32 go), C (h + l) as hi + lo, the scale last
// (where every lane's |x| is below 80 and go in [2^-32, 2^32] or 0, scaled_product's plain form, no far lanes and
// no infinities or NaN: the same bits, at ~30% less time)
ALWAYS static inline VF elu_like_grad_f(VF go, VF x, float sh, float sl, float ch, float cl) {
  const bool plain = every_table_lane(go, x, 80.0f);
  Exp e;
  exp_parts(plain ? at::vec::minimum(x, C(0.0f)) : at::vec::maximum(x, C(-194.0f)), e);
  const VF nh = e.h * C(ch);
  const Parts neg = {nh, fma_(e.h, C(ch), -nh) + (e.h * C(cl) + e.l * C(ch)), e.k};
  const Parts pos = {C(sh), C(sl), C(0.0f)};
  if (plain) return scaled_product<true>(go, blend(neg, pos, x > C(0.0f)));
  // (an infinite go: go S or go C e^x, IEEE's; below -196, C e^x 2^128 < 2^-152: a zero of go's sign)
  const VF r = scaled_product_far(go, blend(neg, pos, x > C(0.0f)), x < C(-196.0f));
  return nan_to(zero_derivative_at(r, go, x == C(-INFINITY)), x);
}

// e^z = t (1 + p) for -87 < z <= 0: t = 2^k (normal), p = e^r - 1 rounded once (expm1_tail's, its error term unused)
ALWAYS static inline void exp_split(VF z, VF& t, VF& p) {
  const VF k = (z * C(1.44269502f)).round();
  VF pe;
  expm1_tail(fma_(k, C(-1.42860677e-06f), fma_(k, C(-0.693145751953125f), z)), p, pe);
  t = pow2(k);
}
// elu at alpha = 1 to its goals rather than to half an ULP (inside a user's torch.compile elu takes these kernels,
// where inductor's lowering of torch's op takes ~0.45 ns per element; outside it torch's op): x above 0, else e^z - 1
// = t (1 + p) - 1 = fma(t, p, t - 1), z = x clamped at -30 (e^-30 rounds away against -1), t = 2^k, p = e^r - 1
// (expm1_tail's, rounded once): t - 1 is exact for k >= -24 and rounds by half an ULP of the result below; p's
// rounding (half its ULP) reaches the result times t, at most a quarter of the result's ULP (k = -1): ~0.75 ULP and
// the fit's 2^-32 (the goal is 2). x's sign on the result (-0 stays -0), NaN stays NaN
ALWAYS static inline VF elu_f(VF x) {
  VF t, p;
  exp_split(at::vec::minimum(at::vec::maximum(x, C(-30.0f)), C(0.0f)), t, p);
  return nan_to(blend(fma_(t, p, t - C(1.0f)), x, x > C(0.0f)) | (x & C(-0.0f)), x);
}
// go e^x for x <= 0 (go above): go fma(t, p, t), e^x = t (1 + p) as the forward's, rounded twice (~1.5 ULP with p's
// rounding; the goal is 4), for x >= -80 (t normal) and go in [2^-32, 2^32] or 0; other lanes elu_like_grad_f's
ALWAYS static inline VF elu_fast_grad(VF go, VF x) {
  VF t, p;
  exp_split(at::vec::minimum(x, C(0.0f)), t, p);
  return blend(go * fma_(t, p, t), go, x > C(0.0f));
}
ALWAYS static inline VF elu_grad_f(VF go, VF x) {
  const VF fast = (x >= C(-80.0f)) & (x <= C(FLT_MAX)) & unscaled_lanes(go);
  if (every(fast)) return elu_fast_grad(go, x);
  return blend(elu_like_grad_f(go, x, 1.0f, 0.0f, 1.0f, 0.0f), elu_fast_grad(go & fast, x & fast), fast);
}
ALWAYS static inline VF selu_f(VF x) { return elu_like_f(x, SELU_S_HI, SELU_S_LO, SELU_C_HI, SELU_C_LO); }
ALWAYS static inline VF selu_grad_f(VF go, VF x) { return elu_like_grad_f(go, x, SELU_S_HI, SELU_S_LO, SELU_C_HI, SELU_C_LO); }

// The gated units gate(g) v, gate(g) = g sigma(g) (swiglu) or g Phi(g) (geglu), and their pointwise forms
// (v = 1: silu, gelu): the whole product rounded once, g prescaled in the numerator (the gate's function read
// from g itself); above OPEN the gate is g to float32 (g v rounded once, infinities included), below CLOSED a
// zero of g v's sign (v infinite: the computed product); the sign of g v on every result (-0 stays -0)
// v gate(g) from the gate's parts p of (g, gs), gs = g 2^sg, v finite: gated_f's plain form
ALWAYS static inline VF times_gate(VF v, VF g, Parts p, VF sg) {
  p.k = p.k - sg;
  return scaled_product<true>(v, p).abs() | ((g ^ v) & C(-0.0f));
}

// PLAIN_GATE: the gate's own plain form (silu_parts<true>), which holds from g >= PLAIN_LOW
template <Parts (*GATE)(VF, VF), bool HAS_V = true, Parts (*PLAIN_GATE)(VF, VF) = GATE, int PLAIN_LOW = INT_MIN>
ALWAYS static inline VF gated_f(VF g, VF v, float open, float closed) {
  // every lane inside [closed, open] (and from PLAIN_LOW), v finite (neither NaN): the plain form, the bits the
  // blends below leave on such lanes
  const VF inside = (g <= C(open)) & (g >= C(closed > PLAIN_LOW ? closed : (float)PLAIN_LOW));
  if constexpr (HAS_V) {
    if (every(inside & (v.abs() <= C(FLT_MAX)))) {
      VF sg;
      const VF gs = prescaled(g, sg);
      return times_gate(v, g, PLAIN_GATE(g, gs), sg);
    }
    // (lanes whose result a blend below decides are computed at g = 0: their tails would form subnormals)
    const VF gc = blend(g, C(0.0f), (g > C(open)) | ((g < C(closed)) & (v.abs() <= C(FLT_MAX))));
    VF sg;
    const VF gs = prescaled(gc, sg);
    Parts p = GATE(gc, gs);
    p.k = p.k - sg;
    VF r = scaled_product(v, p);
    r = blend(r, g * v, g > C(open));
    r = blend(r, C(0.0f), (g < C(closed)) & (v.abs() <= C(FLT_MAX)));
    r = blend(r, C(NAN), (g == C(-INFINITY)) & (v.abs() == C(INFINITY)));  // (gate(-inf) v = -0 inf)
    r = r.abs() | ((g ^ v) & C(-0.0f));
    return blend(r, g + v, (g != g) | (v != v));
  } else {  // v = 1 (silu, gelu): g's own range needs no scale; the same bits as v = 1 above
    if (every(inside)) {
      const Parts p = PLAIN_GATE(g, g);
      return scaled(p.h + p.l, p.k).abs() | (g & C(-0.0f));
    }
    const VF gc = blend(g, C(0.0f), (g > C(open)) | (g < C(closed)));
    const Parts p = GATE(gc, gc);
    VF r = scaled(p.h + p.l, p.k);
    r = blend(r, g, g > C(open));
    r = blend(r.abs(), C(0.0f), g < C(closed)) | (g & C(-0.0f));
    return nan_to(r, g);
  }
}

// below CLOSED the derivative is a zero of the other sign (silu' and gelu' < 0 there)
template <Parts (*GRAD)(VF), bool HAS_V = true, Parts (*PLAIN_GRAD)(VF) = GRAD, int PLAIN_LOW = INT_MIN>
ALWAYS static inline VF times_grad(VF go, VF v, VF g, float closed) {
  // every g at or above closed (and PLAIN_LOW) and go, v finite (none NaN): the plain form
  const float low = closed > PLAIN_LOW ? closed : (float)PLAIN_LOW;
  if (every((g >= C(low)) & (go.abs() <= C(FLT_MAX)) & (v.abs() <= C(FLT_MAX)))) {
    return HAS_V ? scaled_product<true>(go, v, PLAIN_GRAD(g)) : scaled_product<true>(go, PLAIN_GRAD(g));
  }
  const VF gc = blend(g, C(0.0f), g < C(closed));  // (those lanes' result is decided below)
  const VF p = HAS_V ? scaled_product(go, v, GRAD(gc)) : scaled_product(go, GRAD(gc));
  // (an infinite go or v: -go v, the infinity of the true product's sign (f'(g) is tiny, not 0), NaN at g = -inf
  // where f' is 0 or where the other factor is 0, as IEEE multiplication gives)
  const VF infinite = blend(-(go * v), C(NAN), g == C(-INFINITY));
  const VF zero = blend(((go ^ v) & C(-0.0f)) ^ C(-0.0f), infinite, (go.abs() == C(INFINITY)) | (v.abs() == C(INFINITY)));
  const VF r = blend(p, zero, g < C(closed));
  return blend(r, go + v + g, (g != g) | (go != go) | (v != v));  // (a NaN factor: NaN, also beside a zero)
}

// d/dg = go v gate'(g), d/dv = go gate(g), each rounded once
template <Parts (*GATE)(VF, VF), Parts (*GRAD)(VF), Parts (*PLAIN_GATE)(VF, VF) = GATE, Parts (*PLAIN_GRAD)(VF) = GRAD,
          int PLAIN_LOW = INT_MIN>
ALWAYS static inline void gated_grad_f(VF go, VF g, VF v, VF& dg, VF& dv, float open, float closed) {
  dg = times_grad<GRAD, true, PLAIN_GRAD, PLAIN_LOW>(go, v, g, closed);
  dv = gated_f<GATE, true, PLAIN_GATE, PLAIN_LOW>(g, go, open, closed);
}

#define SILU_OPEN 20.0f
#define SILU_CLOSED -200.0f
#define GELU_OPEN 6.0f
#define GELU_CLOSED -16.0f
// silu's plain parts hold from g = -68 (k >= -100)
#define SILU_PLAIN_LOW -68
// x sigma(z) for z = zh (+ zl where LOW, nzl the low part of -|z|: quick_gelu, gelu_tanh) of x's sign and |z| <
// 69 (u normal): sigmoid_near's quotient with u = uh + ul carried (one_plus_near), so that the only errors are
// p's (0.42 2^-24) and the last rounding: x u an exact two-product in the numerator where x < 0, x itself above;
// as silu's forward (z = x, before silu_near below) it measured 1.04 ULP at most on every 7th float32 bit pattern
// (the exact form's 0.89, torch's F.silu 2.33 over |x| < 69), in 38 instructions per vector (GCC 12, AVX2) and
// 25-35% less time than the exact form (silu_parts: e^-|x| as h + l, the quotient as a double-float, then scaled)
template <bool LOW = false> ALWAYS static inline VF silu_near_of(VF x, VF zh, VF nzl) {
  VF uh, ul, dh, dl;
  one_plus_near<LOW>(zh, uh, ul, dh, dl, nzl);
  const VF n = blend(C(1.0f), uh, x);
  const VF nh = x * n;
  const VF nl = fma_(x, blend(C(0.0f), ul, x), at::vec::fmsub(x, n, nh));
  const VF inv = C(1.0f) / dh;
  const VF y = nh * inv;
  // (x & -0: a zero x keeps its sign, which the sum of the signed zeros above does not; every other result's
  // sign is already x's)
  return fma_(at::vec::fnmadd(y, dl, at::vec::fnmadd(y, dh, nh) + nl), inv, y) | (x & C(-0.0f));
}
// v sigma(g) for |g| < 69 where the result is normal (silu: v = g; glu: |g| <= SIGMA_NEAR, |v| in [2^-32, 2^32]
// or 0): sigmoid_near's form with v in the numerator, u = e^-|g| rounded to float32 (uh), D = 1 + uh = dh + dl
// exactly, the numerator v (g >= 0) or v uh as an exact two-product (nh + nl; for glu's smallest v times
// sigma(-60) the low part may round on the subnormal grid, 2^-31 of the result), one quotient corrected by its
// exact remainder and rounded once. uh's relative error (at most 1.42 2^-24) reaches the result times
// u / (1 + u) <= 1/2 (g >= 0) or 1 / (1 + u) <= 1 (g < 0): below 1.92 ULP with the last rounding, sigmoid_near's
// bound (the goal is 2); silu measured 1.69 on every 7th float32 bit pattern. 15-22% less time than silu_near_of's
// carried uh + ul (1.05 ULP), which keeps quick_gelu's and gelu_tanh's (notes/2026-12-06h/silu_variants.py: 0.42
// / 0.46 ns per element at 32K / 4M on one Zen 4 thread, F.silu 0.47 / 0.44, the carried form 0.49 / 0.53)
ALWAYS static inline VF times_sigma_near(VF g, VF v) {
  VF uh, dh, dl;
  one_plus_rounded(g, uh, dh, dl);
  const VF n = blend(C(1.0f), uh, g);
  const VF nh = v * n;
  const VF nl = at::vec::fmsub(v, n, nh);
  const VF inv = C(1.0f) / dh;
  const VF y = nh * inv;
  // (v & -0: a zero v keeps its sign, which the sum of the signed zeros above does not)
  return fma_(at::vec::fnmadd(y, dl, at::vec::fnmadd(y, dh, nh) + nl), inv, y) | (v & C(-0.0f));
}
ALWAYS static inline VF silu_near(VF x) { return times_sigma_near(x, x); }
// (a lane's result depends on its x alone: the lanes with |x| < 69 take silu_near's bits in every vector)
ALWAYS static inline VF silu_f(VF x) {
  if (every_abs_below(x, 69.0f)) return silu_near(x);
  const VF near = x.abs() < C(69.0f);
  const VF far = gated_f<silu_parts<false>, false>(x, C(1.0f), SILU_OPEN, SILU_CLOSED);
  return blend(far, silu_near(x & near), near);
}
// The Gaussian pieces for 0 <= a <= GELU_NEAR, with no scale: e^{-a^2/2} = t (1 + p) e^{-sl} (exp_near_of of
// -sh, a^2 / 2 = sh + sl; e^{-sl} = 1 - sl to 2^-38, folded into each product below) and 2T = (1 + q) / D =
// y + c (gauss's fit, 1 + q = qh + ql; D = 1 + a exact as dh + dl; one quotient and its exact remainder), so
// that Phi(-a) = (t / 2)(1 + p)(1 - sl)(y + c). The fit's polynomial by Estrin's scheme: these kernels wait on
// their chain of dependent operations (Horner's took 10% more time)
#define GELU_NEAR 9.0f
// (LOW: a + al, al below a's last bit: a al joins sl, al joins D's low part; erfcx's fit from a alone, the product's
// relative sensitivity to a being below 0.2 once D carries al)
struct GaussNear { VF p, t, sl, y, c; };
template <bool LOW = false>
ALWAYS static inline void gauss_near(VF a, GaussNear& g, VF al = VF(0.0f), VF magic = VF(EXP_MAGIC)) {
  const VF half = a * C(0.5f);
  const VF sh = a * half;
  g.sl = fma_(a, half, -sh);
  if constexpr (LOW) g.sl = fma_(a, al, g.sl);
  exp_near_of(-sh, g.p, g.t, magic);
  const VF u = a / (a + C(4.0f));
  const VF v = C(2.0f) * u - C(1.0f), v2 = v * v, v4 = v2 * v2;
  const VF qp = ERFCX_Q_ESTRIN(v, v2, v4, v4 * v4);
  const VF qh = fma_(u, qp, C(1.0f));
  const VF ql = fma_(u, qp, C(1.0f) - qh);  // (1 - qh exact: qh in [0.79, 1.03])
  const VF big = max_or_second(a, C(1.0f)), small = min_or_second(a, C(1.0f));
  const VF dh = big + small;
  VF dl = small - (dh - big);  // (Fast2Sum)
  if constexpr (LOW) dl = dl + al;
  const VF inv = C(1.0f) / dh;
  g.y = qh * inv;
  g.c = (at::vec::fnmadd(g.y, dh, qh) + at::vec::fnmadd(g.y, dl, ql)) * inv;
}
// (t / 2)(1 + p)(1 - sl)(bh + bl) = wh + wl, and for x >= 0 (x's sign bit clear) 1 - (wh + wl) in its place:
// Phi(x) from 2T, gelu'(x) from 2B (t / 2 >= 2^-60: the scalings are exact)
ALWAYS static inline void gauss_times(VF x, const GaussNear& g, VF bh, VF bl, VF& fh, VF& fl) {
  const VF eh = fma_(g.p, bh, bh);
  const VF el = at::vec::fnmadd(g.sl, eh, fma_(g.p, bh, bh - eh) + fma_(bl, g.p, bl));  // (bh - eh exact)
  const VF th = g.t * C(0.5f);
  const VF wh = eh * th, wl = el * th;
  const VF oh = C(1.0f) - wh;
  const VF ol = ((C(1.0f) - oh) - wh) - wl;  // (Fast2Sum: 1 >= |wh|)
  fh = blend(oh, wh, x);
  fl = blend(ol, wl, x);
}
// Phi(x) = fh + fl for -GELU_NEAR <= x < inf (a = |x| clamped at GELU_NEAR: above, Phi(-a) < 2^-62 and 1 - Phi(-a)
// rounds to 1)
ALWAYS static inline void ndtr_near(VF x, VF& fh, VF& fl) {
  GaussNear g;
  gauss_near(min_or_second(x.abs(), C(GELU_NEAR)), g);  // (NaN lanes are not near)
  gauss_times(x, g, g.y, g.c, fh, fl);
}
// Phi(z) for z = zh + zl, every finite zh (ndtr: zl = 0; laplace: laplace_z's parts), rounded once: gauss_near's
// pieces with a = |zh| clamped at 11 above 0 (1 - Phi(-a) then rounds to 1) and at 14.25 below (Phi(-14.25) <
// 2^-151 rounds to +0) and al = sign(zh) zl (0 where clamped). Below 0, e^{-a^2/2} is scaled by 2^64 (t = 2^(k + 64)
// stays normal down to k = -190) and the sum by 2^-64 last: exact where the result is normal, a second rounding
// where it is subnormal (the far form's too). The far forms (norm_cdf_of) for infinities and NaN
#define CDF_UPPER 11.0f
#define CDF_LOWER 14.25f
ALWAYS static inline VF norm_cdf_near(VF zh, VF zl) {
  const VF b = zh.abs();
  const VF a = at::vec::minimum(b, blend(C(CDF_UPPER), C(CDF_LOWER), zh));  // (zh's sign bit)
  GaussNear g;
  gauss_near<true>(a, g, (zl ^ sign_of(zh)) & (a == b), blend(C(EXP_MAGIC), C(EXP_MAGIC + 64.0f), zh));
  VF fh, fl;
  gauss_times(zh, g, g.y, g.c, fh, fl);
  return (fh + fl) * blend(C(1.0f), C(0x1p-64f), zh);
}
// go c phi(z) for z = zh + zl, every finite zh, and go in [2^-32, 2^32] or 0 (no prescale), c = ch + cl < 2 (ndtr:
// 1 / sqrt(2 pi); laplace: 1 / (sigma sqrt(2 pi))): e^{-z^2/2} = t (1 + p)(1 - sl) as in gauss_near (z^2 / 2 = sh +
// sl, zh zl in sl), (1 + p)(1 - sl) c = wh + wl, go t exact and the product rounded once. a = |zh| is clamped at
// 16 (beyond, |go c phi| < 2^-153 rounds to a zero of go's sign); above 10.5 the exponential is scaled by 2^126
// (t = 2^(k + 126): go t and its low part's product stay normal) and the product by 2^-126 last, exact where the
// result is normal (a second rounding where it is subnormal, as in the far form)
#define PDF_SCALED 10.5f
#define PDF_LIMIT 16.0f
ALWAYS static inline VF pdf_near(VF go, VF zh, VF zl, float ch, float cl) {
  const VF b = zh.abs(), a = at::vec::minimum(b, C(PDF_LIMIT)), half = a * C(0.5f);
  const VF far = b > C(PDF_SCALED);
  const VF sh = a * half, sl = fma_(a, (zl ^ sign_of(zh)) & (a == b), fma_(a, half, -sh));
  VF p, t;
  exp_near_of(-sh, p, t, blend(C(EXP_MAGIC), C(EXP_MAGIC + 126.0f), far));
  const VF wh = fma_(p, C(ch), C(ch));
  const VF wc = fma_(p, C(ch), C(ch) - wh);  // (c - wh exact: wh / c in [0.7, 1.42])
  const VF wl = at::vec::fnmadd(sl, wh, wc + fma_(p, C(cl), C(cl)));
  const VF gt = go * t;
  const VF r = fma_(gt, wh, gt * wl) * blend(C(1.0f), C(0x1p-126f), far);
  return r | sign_of(go);  // (go's sign also where go is -0 and wl < 0, or the product rounds to 0)
}
ALWAYS static inline VF ndtr_f(VF x) {
  const VF near = x.abs() <= C(FLT_MAX);
  if (every(near)) return norm_cdf_near(x, C(0.0f));
  return blend(ndtr_far(x), norm_cdf_near(x & near, C(0.0f)), near);
}
ALWAYS static inline VF ndtr_grad_f(VF go, VF x) {
  const VF near = (x.abs() <= C(FLT_MAX)) & unscaled_lanes(go);
  if (every(near)) return pdf_near(go, x, C(0.0f), INV_SQRT_2PI_HI, INV_SQRT_2PI_LO);
  const VF r = pdf_near(go & near, x & near, C(0.0f), INV_SQRT_2PI_HI, INV_SQRT_2PI_LO);
  return blend(ndtr_grad_far(go, x), r, near);
}
// laplace: the same forms on z = (x - mu) / sigma = zh + zl (laplace_z; x = +-inf makes zl NaN: far)
ALWAYS static inline VF laplace_f(VF x) {
  VF zh, zl;
  laplace_z(x, zh, zl);
  const VF near = zh.abs() <= C(FLT_MAX);
  if (every(near)) return norm_cdf_near(zh, zl);
  return blend(laplace_far(x), norm_cdf_near(zh & near, zl & near), near);
}
ALWAYS static inline VF laplace_grad_f(VF go, VF x) {
  VF zh, zl;
  laplace_z(x, zh, zl);
  const VF near = (zh.abs() <= C(FLT_MAX)) & unscaled_lanes(go);
  if (every(near)) return pdf_near(go, zh, zl, LP_C_HI, LP_C_LO);
  return blend(laplace_grad_far(go, x), pdf_near(go & near, zh & near, zl & near, LP_C_HI, LP_C_LO), near);
}
// gelu'(x) = fh + fl for -GELU_NEAR <= x < inf: gelu_grad_of's algebra, 2B = 2T - 2A with 2A = a sqrt(2 / pi)
// (their difference a TwoSum), S = (t / 2)(1 + p)(1 - sl) 2B for x < 0 and 1 - S above; near the zero x0 its
// polynomial (near_zero, computed where a lane of the vector needs it)
ALWAYS static inline void gelu_grad_of_near(VF x, VF a, const GaussNear& g, VF& fh, VF& fl) {
  const VF ah = a * C(SQRT_2_OVER_PI_HI);
  const VF al = fma_(a, C(SQRT_2_OVER_PI_HI), -ah) + a * C(SQRT_2_OVER_PI_LO);
  const VF bh = g.y - ah, bb = bh - g.y;
  const VF bl = ((g.y - (bh - bb)) + (-ah - bb)) + (g.c - al);  // (TwoSum)
  gauss_times(x, g, bh, bl, fh, fl);
  const VF zh = x - C(GELU_X0_HI);
  const VF zone = zh.abs() < C(GELU_ZONE);
  if (!none(zone)) {
    const VF d = zh - C(GELU_X0_LO);
    const Parts z = near_zero(zh, d, GELU_GRAD_P(d), GELU_X0_LO, GELU_C0_HI, GELU_C0_LO);
    fh = blend(fh, z.h, zone);
    fl = blend(fl, z.l, zone);
  }
}
ALWAYS static inline void gelu_grad_near_parts(VF x, VF& fh, VF& fl) {
  const VF a = min_or_second(x.abs(), C(GELU_NEAR));
  GaussNear g;
  gauss_near(a, g);
  gelu_grad_of_near(x, a, g, fh, fl);
}
// gelu(x) = x Phi(x) for -GELU_NEAR <= x < inf, rounded once: Phi's errors are p's (0.42 2^-24) and the fit's
// (0.043), the rest a fraction of 2^-24; measured 1.22 ULP at most on every 7th float32 bit pattern (the exact
// form's 1.20), in 30% less time than that form (gelu_parts: e^{-a^2/2} of a double-float argument, a
// double-float quotient, then a scale) on one Zen 1 core
ALWAYS static inline VF gelu_near(VF x) {
  VF fh, fl;
  ndtr_near(x, fh, fl);
  return fma_(x, fh, x * fl);
}
// Phi(x) = fh + fl for -4 < x < 4
ALWAYS static inline void ndtr_table(VF x, VF& fh, VF& fl) { table_parts(table_at<4>(x), GELU_T, fh, fl); }
// gelu'(x) = fh + fl for -4 < x < 4
ALWAYS static inline void gelu_grad_table_parts(VF x, VF& fh, VF& fl) {
  grad_table_parts<4>(x, GELU_GRAD_T, GELU_X0_HI, GELU_X0_LO, fh, fl);
}
// gelu(x) = x Phi(x) for -4 < x < 4, rounded once by an fma (x's sign or'ed in: gelu(-0) = -0): 0.61 ULP at most on
// 4M dense points over [-4, 4] (0.43 ns per element in cache against the near form's 0.82, one AVX-512 core)
ALWAYS static inline VF gelu_table(VF x) { return times_table<4>(x, GELU_T); }
// go gelu'(x) for -4 < x < 4 and |go| in [2^-32, 2^32] or 0 (no prescale), rounded once (the sign of go gelu'(x)
// where that is a zero): 0.63 ULP at most on the same points (0.65 ns per element against 1.19)
ALWAYS static inline VF gelu_grad_table(VF go, VF x) {
  return grad_table<4>(go, x, GELU_GRAD_T, GELU_X0_HI, GELU_X0_LO);
}
ALWAYS static inline VF gelu_f(VF x) {
  if (every_abs_below(x, 4.0f)) return gelu_table(x);
  const VF table = x.abs() < C(4.0f);
  const VF near = (x >= C(-GELU_NEAR)) & (x <= C(FLT_MAX));
  const VF rest = every(near) ? gelu_near(x)
                              : blend(gated_f<gelu_parts, false>(x, C(1.0f), GELU_OPEN, GELU_CLOSED),
                                      gelu_near(x & near), near);
  return blend(rest, gelu_table(x & table), table);
}
// go silu'(x) for SILU_PLAIN_LOW <= x <= SILU_OPEN and |go| in [2^-32, 2^32] or 0 (no prescale): silu_grad_far's
// algebra (N = 1 + u (1 + x) for x >= 0, u (1 + x + u) below, over D^2) on u = uh + ul (one_plus_near; no
// scale: u is normal), near the zero x0 the same polynomial (near_zero), and go (y + c) rounded once by an fma;
// the polynomial only where a lane of the vector needs it (a lane's bits are the same either way). Measured 1.01
// ULP on the tests' samples, 1.11 on every 7th float32 bit pattern (the goal is 4; the exact form 0.81 and 0.90),
// for 26% less time than that form at 32K on one Zen 1 core; u rounded (no ul) would carry its error into
// 1 + x + u, which cancels toward the zero.
// The same algebra for quick_gelu'(x) = silu'(z) (KIND QUICK_GELU: z = beta x = zh + zl, w = z) and gelu_tanh'(x) =
// sigma(z) (1 + w sigma(-z)) (KIND GELU_TANH: w = m = x z'(x) = wh + wl), nzl the low part of -|z|, each with its
// own zero's polynomial (KIND SILU: z = w = x)
enum SiluKind { SILU, QUICK_GELU, GELU_TANH };
template <SiluKind KIND>
ALWAYS static inline void silu_grad_near_parts(VF x, VF wh, VF wl, VF uh, VF ul, VF dh, VF dl, VF& y, VF& c) {
  const VF sh = C(1.0f) + wh, sb = sh - C(1.0f);
  VF sl = (C(1.0f) - (sh - sb)) + (wh - sb);  // 1 + w = sh + sl (TwoSum)
  if constexpr (KIND != SILU) sl = sl + wl;
  VF nph, npl, qh, ql;
  silu_grad_numerators(sh, sl, uh, ul, uh, ul, nph, npl, qh, ql);
  const VF nh = blend(nph, qh, x), nl = blend(npl, ql, x);  // (x's sign bit; both give 1/2 at 0)
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  y = nh * inv;
  c = (at::vec::fnmadd(y, ph, nh) + at::vec::fnmadd(y, pl, nl)) * inv;
  constexpr float x0h = KIND == SILU ? SILU_X0_HI : KIND == QUICK_GELU ? QG_X0_HI : GT_X0_HI;
  constexpr float x0l = KIND == SILU ? SILU_X0_LO : KIND == QUICK_GELU ? QG_X0_LO : GT_X0_LO;
  const VF xh = x - C(x0h);
  const VF zone = xh.abs() < C(KIND == SILU ? SILU_GRAD_ZONE : KIND == QUICK_GELU ? QG_ZONE : GT_ZONE);
  if (!none(zone)) {
    const VF d = xh - C(x0l);
    Parts z;
    if constexpr (KIND == SILU) z = near_zero(xh, d, SILU_GRAD_P(d), x0l, SILU_C0_HI, SILU_C0_LO);
    if constexpr (KIND == QUICK_GELU) z = near_zero(xh, d, QG_GRAD_P(d), x0l, QG_C0_HI, QG_C0_LO);
    if constexpr (KIND == GELU_TANH) z = near_zero(xh, d, GT_GRAD_P(d), x0l, GT_C0_HI, GT_C0_LO);
    y = blend(y, z.h, zone);
    c = blend(c, z.l, zone);
  }
}
template <SiluKind KIND = SILU> ALWAYS static inline VF silu_grad_near_of(VF go, VF x, VF zh, VF nzl, VF wh, VF wl) {
  VF uh, ul, dh, dl, y, c;
  one_plus_near<KIND != SILU>(zh, uh, ul, dh, dl, nzl);
  silu_grad_near_parts<KIND>(x, wh, wl, uh, ul, dh, dl, y, c);
  // (the sign of go y ORed in: a zero go or an underflowed product keeps it; every other result has it)
  return fma_(go, y, go * c) | ((go ^ y) & C(-0.0f));
}
ALWAYS static inline VF silu_grad_near(VF go, VF x) { return silu_grad_near_of(go, x, x, C(0.0f), x, C(0.0f)); }
// (a lane's result depends on its x and go alone: the lanes in silu_grad_near's range take its bits in every vector)
// go silu'(x) for -8 < x < 8 and |go| in [2^-32, 2^32] or 0 from SILU_GRAD_T evaluated in float32 (the table's
// PLAIN form: below 3.5 ULP, measured 2.12; the carried form was 0.62 on 4M dense points over [-8, 8]), rounded
// once: 0.56 ns per element in cache against the carried form's 0.87 and aten.silu_backward's 0.58 (one Zen 4
// thread, notes/2026-12-06h/silu_grad_variants.py; silu_grad_near's 1.1 on an AVX-512 Xeon)
ALWAYS static inline VF silu_grad_table(VF go, VF x) {
  return grad_table<2, true>(go, x, SILU_GRAD_T, SILU_X0_HI, SILU_X0_LO);
}
ALWAYS static inline VF silu_grad_f(VF go, VF x) {
  if (every_table_lane(go, x, 8.0f)) return silu_grad_table(go, x);
  const VF table = (x.abs() < C(8.0f)) & unscaled_lanes(go);
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  const VF rest = every(near) ? silu_grad_near(go, x)
                              : blend(times_grad<silu_grad_parts<false>, false, silu_grad_parts<true>, SILU_PLAIN_LOW>(
                                          go, C(1.0f), x, SILU_CLOSED),
                                      silu_grad_near(go & near, x & near), near);
  return blend(rest, silu_grad_table(go & table, x & table), table);
}
// go gelu'(x) for -GELU_NEAR <= x < inf and |go| in [2^-32, 2^32] or 0 (no prescale), rounded once by an fma
ALWAYS static inline VF gelu_grad_near(VF go, VF x) {
  VF fh, fl;
  gelu_grad_near_parts(x, fh, fl);
  return fma_(go, fh, go * fl) | ((go ^ fh) & C(-0.0f));
}
ALWAYS static inline VF gelu_grad_f(VF go, VF x) {
  if (every_table_lane(go, x, 4.0f)) return gelu_grad_table(go, x);
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(go);
  const VF near = (x >= C(-GELU_NEAR)) & (x <= C(FLT_MAX)) & unscaled_lanes(go);
  const VF rest = every(near) ? gelu_grad_near(go, x)
                              : blend(times_grad<gelu_grad_parts<false>, false, gelu_grad_parts<true>>(
                                          go, C(1.0f), x, GELU_CLOSED),
                                      gelu_grad_near(go & near, x & near), near);
  return blend(rest, gelu_grad_table(go & table, x & table), table);
}
// quick_gelu, x sigma(z) with z = beta x carried as zh + zl (times_beta), for QG_NEAR <= x (z >= -68.1, u normal):
// silu's near forms on z, zl folded into u (e^{-|z|} = e^{-|zh|}(1 + nzl)) and into 1 + z; x clamped at QG_OPEN
// inside z (above, sigma(z) rounds to 1 and the result is x; silu'(z) - 1 < 2^-25, so go (y + c) rounds to go)
#define QG_NEAR -39.5f
ALWAYS static inline VF quick_gelu_near(VF x) {
  VF zh, zl, nzh, nzl;
  times_beta(min_or_second(x, C(QG_OPEN)), zh, zl);  // (NaN lanes are not near)
  minus_abs(zh, zl, nzh, nzl);
  return silu_near_of<true>(x, zh, nzl);
}
ALWAYS static inline VF quick_gelu_grad_near(VF go, VF x) {
  const VF xc = min_or_second(x, C(QG_OPEN));  // (NaN lanes are not near)
  VF zh, zl, nzh, nzl;
  times_beta(xc, zh, zl);
  minus_abs(zh, zl, nzh, nzl);
  return silu_grad_near_of<QUICK_GELU>(go, xc, zh, nzl, zh, zl);
}
// (a lane's result depends on its x (and go) alone: the lanes in the near forms' range take their bits in every
// vector)
ALWAYS static inline VF quick_gelu_f(VF x) {
  const VF near = (x >= C(QG_NEAR)) & (x <= C(FLT_MAX));
  if (every(near)) return quick_gelu_near(x);
  const VF far = gated_f<quick_parts, false>(x, C(1.0f), QG_OPEN, -75.0f);
  return blend(far, quick_gelu_near(x & near), near);
}
ALWAYS static inline VF quick_gelu_grad_f(VF go, VF x) {
  const VF near = (x >= C(QG_NEAR)) & (x <= C(FLT_MAX)) & unscaled_lanes(go);
  if (every(near)) return quick_gelu_grad_near(go, x);
  const VF far = times_grad<quick_grad_parts<false>, false, quick_grad_parts<true>>(go, C(1.0f), x, -117.5f);
  return blend(far, quick_gelu_grad_near(go & near, x & near), near);
}
// gelu_tanh, x sigma(z) with z (and m) carried as hi + lo (gelu_tanh_poly), for GT_NEAR <= x (z >= -66.4, u normal):
// silu's near forms on z, x clamped at GT_OPEN inside z (above, sigma(z) rounds to 1 and the result is x; the
// derivative rounds to 1: m sigma(-z) < 2^-30, so go (y + c) is go)
#define GT_NEAR -9.0f
ALWAYS static inline VF gelu_tanh_near(VF x) {
  const VF xc = min_or_second(x, C(GT_OPEN));  // (NaN lanes are not near)
  const VF th = xc * xc, tl = fma_(xc, xc, -th);
  VF zh, zl, nzh, nzl;
  gelu_tanh_poly(xc, th, tl, GT_A_HI, GT_A_LO, zh, zl);
  minus_abs(zh, zl, nzh, nzl);
  return silu_near_of<true>(x, zh, nzl);
}
ALWAYS static inline VF gelu_tanh_grad_near(VF go, VF x) {
  const VF xc = min_or_second(x, C(GT_OPEN));  // (NaN lanes are not near)
  const VF th = xc * xc, tl = fma_(xc, xc, -th);
  VF zh, zl, mh, ml, nzh, nzl;
  gelu_tanh_poly(xc, th, tl, GT_A_HI, GT_A_LO, zh, zl);
  gelu_tanh_poly(xc, th, tl, GT_3A_HI, GT_3A_LO, mh, ml);
  minus_abs(zh, zl, nzh, nzl);
  return silu_grad_near_of<GELU_TANH>(go, xc, zh, nzl, mh, ml);
}
// (a lane's result depends on its x (and go) alone: the lanes in the near forms' range take their bits in every
// vector)
ALWAYS static inline VF gelu_tanh_f(VF x) {
  const VF near = (x >= C(GT_NEAR)) & (x <= C(FLT_MAX));
  if (every(near)) return gelu_tanh_near(x);
  const VF far = gated_f<gelu_tanh_parts, false>(x, C(1.0f), GT_OPEN, GT_CLOSED);
  return blend(far, gelu_tanh_near(x & near), near);
}
ALWAYS static inline VF gelu_tanh_grad_f(VF go, VF x) {
  const VF near = (x >= C(GT_NEAR)) & (x <= C(FLT_MAX)) & unscaled_lanes(go);
  if (every(near)) return gelu_tanh_grad_near(go, x);
  const VF far =
      times_grad<gelu_tanh_grad_parts<false>, false, gelu_tanh_grad_parts<true>>(go, C(1.0f), x, GT_GRAD_CLOSED);
  return blend(far, gelu_tanh_grad_near(go & near, x & near), near);
}
// below |x| = 4 from TANHEXP_T and TANHEXP_GRAD_T (native32's interval tables); beyond, the forms above
ALWAYS static inline VF tanhexp_f(VF x) {
  if (every_abs_below(x, 4.0f)) return times_table<4>(x, TANHEXP_T);
  const VF table = x.abs() < C(4.0f);
  return blend(tanhexp_rest(x), times_table<4>(x & table, TANHEXP_T), table);
}
ALWAYS static inline VF tanhexp_grad_table(VF go, VF x) {
  return grad_table<4>(go, x, TANHEXP_GRAD_T, TE_X0_HI, TE_X0_LO);
}
ALWAYS static inline VF tanhexp_grad_f(VF go, VF x) {
  if (every_table_lane(go, x, 4.0f)) return tanhexp_grad_table(go, x);
  const VF table = (x.abs() < C(4.0f)) & unscaled_lanes(go);
  const VF rest = times_grad<tanhexp_grad_parts, false>(go, C(1.0f), x, TE_GRAD_CLOSED);
  return blend(rest, tanhexp_grad_table(go & table, x & table), table);
}
// clipped_gelu at its defaults (HF's gelu_10): gelu clamped to [CG_MIN, CG_MAX] (the lower clip, -10, is below
// gelu's minimum, -0.17: kept as the form has it); its derivative gelu' where gelu(x) <= CG_MAX, that is x <=
// CG_BREAK (the catalog's breakpoint rounded down to float32: gelu(x) = x (1 - 7.6e-24) there), beyond go 0
ALWAYS static inline VF clipped_gelu_f(VF x) {
  return nan_to(at::vec::minimum(at::vec::maximum(gelu_f(x), C(CG_MIN)), C(CG_MAX)), x);
}
ALWAYS static inline VF clipped_gelu_grad_f(VF go, VF x) {
  return zero_derivative_at(gelu_grad_f(go, x), go, x > C(CG_BREAK));
}
// (g v) (fh + fl) for g, v in [2^-32, 2^32] or 0 (no prescale) and fh + fl >= 0 (a gate's value): g v an exact
// two-product (ph + pl, normal: |g v| >= 2^-64 or 0), the product rounded once; the sign of g v on the result (a
// zero product keeps it). geglu: v gelu(g) = (g v) Phi(g); swiglu: (g v) sigma(g)
ALWAYS static inline VF times_parts(VF g, VF v, VF fh, VF fl) {
  const VF ph = g * v;
  const VF pl = fma_(g, v, -ph);
  return fma_(ph, fh, fma_(ph, fl, pl * fh)).abs() | ((g ^ v) & C(-0.0f));
}
// (u v) (y + c) for u, v as above and y + c of either sign (a gate's derivative), rounded once
ALWAYS static inline VF times_signed_parts(VF u, VF v, VF y, VF c) {
  const VF ph = u * v;
  return fma_(ph, y, fma_(ph, c, fma_(u, v, -ph) * y)) | ((ph ^ y) & C(-0.0f));
}
// swiglu and glu where |g| <= SIGMA_NEAR and g (swiglu), v and go in [2^-32, 2^32] or 0 (no prescale): sigma(g) =
// fh + fl from u = uh + ul (one_plus_near: p's error, 0.42 2^-24, and a fraction of 2^-24 more), the product with v
// (swiglu: g v as an exact two-product) rounded once; sigma(-60) 2^-32 is above 2^-119, so the results are normal
#define SIGMA_NEAR 60.0f
ALWAYS static inline void sigma_near_parts(VF g, VF uh, VF ul, VF dh, VF dl, VF& fh, VF& fl) {
  const VF nh = blend(C(1.0f), uh, g), nl = blend(C(0.0f), ul, g);  // (g's sign bit)
  const VF inv = C(1.0f) / dh;
  fh = nh * inv;
  fl = (at::vec::fnmadd(fh, dh, nh) + at::vec::fnmadd(fh, dl, nl)) * inv;
}
ALWAYS static inline VF swiglu_near(VF g, VF v) {
  VF uh, ul, dh, dl, fh, fl;
  one_plus_near(g, uh, ul, dh, dl);
  sigma_near_parts(g, uh, ul, dh, dl, fh, fl);
  return times_parts(g, v, fh, fl);
}
ALWAYS static inline VF swiglu_near_lanes(VF g, VF a, VF b) {
  return (g.abs() <= C(SIGMA_NEAR)) & unscaled_lanes(g) & unscaled_lanes(a) & unscaled_lanes(b);
}
// (a lane's result depends on its g and v alone: the lanes in swiglu_near's range take its bits in every vector)
ALWAYS static inline VF swiglu_f(VF g, VF v) {
  const VF near = swiglu_near_lanes(g, v, v);
  if (every(near)) return swiglu_near(g, v);
  const VF far = gated_f<silu_parts<false>, true, silu_parts<true>, SILU_PLAIN_LOW>(g, v, SILU_OPEN, SILU_CLOSED);
  return blend(far, swiglu_near(g & near, v & near), near);
}
ALWAYS static inline VF geglu_near_lanes(VF g, VF a, VF b) {
  return (g >= C(-GELU_NEAR)) & unscaled_lanes(g) & unscaled_lanes(a) & unscaled_lanes(b);
}
ALWAYS static inline VF geglu_near(VF g, VF v) {
  VF fh, fl;
  ndtr_near(g, fh, fl);
  return times_parts(g, v, fh, fl);
}
// geglu on gelu's tables where |g| < 4 and g, v in [2^-32, 2^32] or 0: (g v) Phi(g), rounded once (at v = 1 gelu's
// bits)
ALWAYS static inline VF geglu_table_lanes(VF g, VF a, VF b) {
  return (g.abs() < C(4.0f)) & unscaled_lanes(g) & unscaled_lanes(a) & unscaled_lanes(b);
}
ALWAYS static inline VF geglu_table(VF g, VF v) {
  VF fh, fl;
  ndtr_table(g, fh, fl);
  return times_parts(g, v, fh, fl);
}
// (a lane's result depends on its g and v alone: the lanes in the table's range, and then in geglu_near's, take
// their bits in every vector)
ALWAYS static inline VF geglu_f(VF g, VF v) {
  const VF table = geglu_table_lanes(g, v, v);
  if (every(table)) return geglu_table(g, v);
  const VF near = geglu_near_lanes(g, v, v);
  const VF rest = every(near) ? geglu_near(g, v)
                              : blend(gated_f<gelu_parts>(g, v, GELU_OPEN, GELU_CLOSED), geglu_near(g & near, v & near),
                                      near);
  return blend(rest, geglu_table(g & table, v & table), table);
}
// Where both gradients take their plain forms (g inside the plain gate's range, go and v finite), the gate and its
// derivative share one exponential (swiglu: u = e^-|g|; geglu: e^{-a^2/2} and erfcx): the values each would
// compute alone from the same g, so the same bits, at half the exponentials' cost
ALWAYS static inline bool both_plain(VF go, VF g, VF v, float low, float open) {
  return every((g >= C(low)) & (g <= C(open)) & (go.abs() <= C(FLT_MAX)) & (v.abs() <= C(FLT_MAX)));
}
// swiglu's gradients in swiglu_near's range for (g, go) and (g, v): dv = (g go) sigma(g), dg = (go v) silu'(g)
// (silu_grad_near's parts), each rounded once, from one exponential
ALWAYS static inline void swiglu_grad_near(VF go, VF g, VF v, VF& dg, VF& dv) {
  VF uh, ul, dh, dl, fh, fl, y, c;
  one_plus_near(g, uh, ul, dh, dl);
  sigma_near_parts(g, uh, ul, dh, dl, fh, fl);
  dv = times_parts(g, go, fh, fl);
  silu_grad_near_parts<SILU>(g, g, C(0.0f), uh, ul, dh, dl, y, c);
  dg = times_signed_parts(go, v, y, c);
}
ALWAYS static inline void swiglu_grad_far(VF go, VF g, VF v, VF& dg, VF& dv) {
  if (both_plain(go, g, v, SILU_PLAIN_LOW, SILU_OPEN)) {
    OnePlus o;
    one_plus<true>(-g.abs(), o);
    VF sg;
    const VF gs = prescaled(g, sg);
    dv = times_gate(go, g, times_sigma(gs, g >= C(0.0f), o), sg);
    dg = scaled_product<true>(go, v, silu_grad_of<true>(g, g, o));
    return;
  }
  gated_grad_f<silu_parts<false>, silu_grad_parts<false>, silu_parts<true>, silu_grad_parts<true>, SILU_PLAIN_LOW>(
      go, g, v, dg, dv, SILU_OPEN, SILU_CLOSED);
}
// A gated unit's two gradients: where every lane of the vector is in the near form's range (LANES of g, go, v), the
// near form; elsewhere both forms, each lane taking its own, so that a lane's results depend on its go, g and v
// alone (swiglu, geglu, glu)
using GatedGrad = void (*)(VF, VF, VF, VF&, VF&);
template <VF (*LANES)(VF, VF, VF), GatedGrad NEAR, GatedGrad FAR>
ALWAYS static inline void near_or_far_grad(VF go, VF g, VF v, VF& dg, VF& dv) {
  const VF near = LANES(g, go, v);
  if (every(near)) return NEAR(go, g, v, dg, dv);
  FAR(go, g, v, dg, dv);
  VF ng, nv;
  NEAR(go & near, g & near, v & near, ng, nv);
  dg = blend(dg, ng, near);
  dv = blend(dv, nv, near);
}
ALWAYS static inline void swiglu_grad_f(VF go, VF g, VF v, VF& dg, VF& dv) {
  near_or_far_grad<swiglu_near_lanes, swiglu_grad_near, swiglu_grad_far>(go, g, v, dg, dv);
}
// geglu's two gradients where every lane is in geglu_near's range for (g, go) and (g, v): dv = (g go) Phi(g) and
// dg = (go v) gelu'(g), each rounded once, from one set of Gaussian pieces
ALWAYS static inline void geglu_grad_near(VF go, VF g, VF v, VF& dg, VF& dv) {
  const VF a = min_or_second(g.abs(), C(GELU_NEAR));
  GaussNear pieces;
  gauss_near(a, pieces);
  VF fh, fl;
  gauss_times(g, pieces, pieces.y, pieces.c, fh, fl);
  dv = times_parts(g, go, fh, fl);
  gelu_grad_of_near(g, a, pieces, fh, fl);
  dg = times_signed_parts(go, v, fh, fl);
}
ALWAYS static inline void geglu_grad_far(VF go, VF g, VF v, VF& dg, VF& dv) {
  if (both_plain(go, g, v, GELU_CLOSED, GELU_OPEN)) {
    const VF a = at::vec::minimum(g.abs(), C(16.0f));
    Gauss pieces;
    gauss(a, pieces);
    VF sg;
    const VF gs = prescaled(g, sg);
    dv = times_gate(go, g, gelu_parts_of(g, gs, pieces), sg);
    dg = scaled_product<true>(go, v, gelu_grad_of<true>(g, a, pieces));
    return;
  }
  gated_grad_f<gelu_parts, gelu_grad_parts<false>, gelu_parts, gelu_grad_parts<true>>(go, g, v, dg, dv, GELU_OPEN,
                                                                                   GELU_CLOSED);
}
// geglu's two gradients on gelu's tables (geglu_table_lanes for (g, go) and (g, v)): dv = (g go) Phi(g) and dg =
// (go v) gelu'(g), each rounded once
ALWAYS static inline void geglu_grad_table(VF go, VF g, VF v, VF& dg, VF& dv) {
  VF fh, fl;
  ndtr_table(g, fh, fl);
  dv = times_parts(g, go, fh, fl);
  gelu_grad_table_parts(g, fh, fl);
  dg = times_signed_parts(go, v, fh, fl);
}
ALWAYS static inline void geglu_grad_rest(VF go, VF g, VF v, VF& dg, VF& dv) {
  near_or_far_grad<geglu_near_lanes, geglu_grad_near, geglu_grad_far>(go, g, v, dg, dv);
}
ALWAYS static inline void geglu_grad_f(VF go, VF g, VF v, VF& dg, VF& dv) {
  near_or_far_grad<geglu_table_lanes, geglu_grad_table, geglu_grad_rest>(go, g, v, dg, dv);
}

// glu, sigma(g) v: sigma(g) = (h + l) 2^k as sigmoid_f's quotient (u = e^-|g| down to e^-194: beyond, sigma(g)
// |v| < 2^-151 for every float32 v), the product rounded once (scaled_product: v of any magnitude, an infinite v
// gives its infinity); sigma(-inf) v = 0 v (NaN for an infinite v), sigma(inf) v = v
// sigma(g) = (h + l) 2^k from u = e^-|g| in o
ALWAYS static inline Parts sigma_parts(VF g, const OnePlus& o) {
  const VF pos = g >= C(0.0f);
  Parts p;
  quotient2(blend(o.e.h, C(1.0f), pos), blend(o.e.l, C(0.0f), pos), o.dh, o.dl, p.h, p.l);
  p.k = blend(o.e.k, C(0.0f), pos);
  return p;
}
// (PLAIN: |g| < 69 and v finite in every lane)
template <bool PLAIN> ALWAYS static inline VF glu_of(VF g, VF v) {
  OnePlus o;
  one_plus<PLAIN>(PLAIN ? -g.abs() : at::vec::maximum(-g.abs(), C(-194.0f)), o);
  const Parts p = sigma_parts(g, o);
  if constexpr (PLAIN) return scaled_product<true>(v, p);
  const VF r = blend(scaled_product_far(v, p, g < C(-196.0f)), v * C(0.0f), g == C(-INFINITY));
  return blend(r, g + v, (g != g) | (v != v));
}
ALWAYS static inline VF glu_far(VF g, VF v) {
  return every((g.abs() < C(69.0f)) & (v.abs() <= C(FLT_MAX))) ? glu_of<true>(g, v) : glu_of<false>(g, v);
}
ALWAYS static inline VF glu_near(VF g, VF v) { return times_sigma_near(g, v); }
ALWAYS static inline VF glu_near_lanes(VF g, VF a, VF b) {
  return (g.abs() <= C(SIGMA_NEAR)) & unscaled_lanes(a) & unscaled_lanes(b);
}
// (a lane's result depends on its g and v alone)
ALWAYS static inline VF glu_f(VF g, VF v) {
  if (every_table_lane(v, g, SIGMA_NEAR)) return glu_near(g, v);  // (in mask registers; |g| = 60 below)
  const VF near = glu_near_lanes(g, v, v);
  if (every(near)) return glu_near(g, v);
  return blend(glu_far(g, v), glu_near(g & near, v & near), near);
}
// d/dg = go v sigma(g) sigma(-g) (grad_core's E / D^2, the product of three rounded once), d/dv = go sigma(g);
// beyond |g| = 194 (sigma' < 2^-279) a zero of go v's sign (exact for |go v| < 2^128, as geglu's and swiglu's
// tails), the infinity of go v where either is infinite; at g = +-inf, where sigma' = 0, go v 0 (IEEE: NaN for an
// infinite go or v)
// glu's gradients in glu_near's range: dv = go sigma(g), dg = (go v) u / D^2 (u = uh + ul and D = dh + dl carried:
// D^2 = ph + pl, one quotient corrected by its remainder), each rounded once, from one exponential
ALWAYS static inline void glu_grad_near(VF go, VF g, VF v, VF& dg, VF& dv) {
  VF uh, ul, dh, dl, fh, fl;
  one_plus_near(g, uh, ul, dh, dl);
  sigma_near_parts(g, uh, ul, dh, dl, fh, fl);
  dv = fma_(go, fh, go * fl) | (go & C(-0.0f));
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  const VF y = uh * inv;
  const VF c = (at::vec::fnmadd(y, ph, uh) + at::vec::fnmadd(y, pl, ul)) * inv;
  dg = times_signed_parts(go, v, y, c);
}
ALWAYS static inline void glu_grad_far(VF go, VF g, VF v, VF& dg, VF& dv) {
  if (every((g.abs() < C(69.0f)) & (go.abs() <= C(FLT_MAX)) & (v.abs() <= C(FLT_MAX)))) {
    OnePlus o;  // (one exponential for both: glu_of's plain form, the same bits)
    one_plus<true>(-g.abs(), o);
    dv = scaled_product<true>(go, sigma_parts(g, o));
    VF y, r;
    over_square(o, y, r);
    dg = scaled_product<true>(go, v, {y, r, o.e.k});
    return;
  }
  dv = glu_far(g, go);
  OnePlus o;
  one_plus(at::vec::maximum(-g.abs(), C(-194.0f)), o);
  VF y, r;
  over_square(o, y, r);
  VF d = scaled_product(go, v, {y, r, blend(o.e.k, C(0.0f), g.abs() > C(194.0f))});  // (those lanes: below)
  const VF infinite = (go.abs() == C(INFINITY)) | (v.abs() == C(INFINITY));
  d = blend(d, blend((go ^ v) & C(-0.0f), go * v, infinite), g.abs() > C(194.0f));
  d = blend(d, (go * C(0.0f)) * (v * C(0.0f)), g.abs() == C(INFINITY));
  dg = blend(d, (g + go) + v, (g != g) | (go != go) | (v != v));
}
ALWAYS static inline void glu_grad_f(VF go, VF g, VF v, VF& dg, VF& dv) {
  near_or_far_grad<glu_near_lanes, glu_grad_near, glu_grad_far>(go, g, v, dg, dv);
}

// mish, x tanh(softplus(x)), and mila, x tanh(softplus(x + B)) at B = -1/4 (MILA): below |x| = 8 x F from MISH_T /
// MILA_T and below |x| = 4 the derivative from MISH_GRAD_T / MILA_GRAD_T (native32's interval tables, the
// derivative's zero x0 carried as x - x0; a go outside [2^-32, 2^32] multiplies the table's F = fh + fl in doubles,
// rounded once); beyond, doubles: s = softplus(x + B) (softplus_d, 2^-30 relative), tanh s = (1 - w) / (1 + w),
// w = e^-2s, or its series below s = 1/16 (where 1 - w would cancel), sech^2 s = 4 w / (1 + w)^2 and sigma(x + B) =
// n / (1 + u): no cancellation there (the derivative's terms, tanh s + x sech^2 s sigma, are near e^(x + B) (1 + x)
// below -4 and 1 plus a little above 4; exp_d's 2^-32 is then far below float32's rounding). x clamped at -1e4 in
// the products (and at 1e4 in the derivative's x sech^2 s): -inf gives -0 and its derivative a zero of -go's sign
// (x e^x's and e^x (1 + x)'s limits), +inf gives +inf and go
// tanh s for s >= 0 in doubles (s up to +inf; NaN stays NaN; FULL: exp_d's full series, 2^-52)
template <bool FULL = false> ALWAYS static inline void tanh_sech2_d(VD s, VD& t, VD& sech2) {
  const VD w = exp_d<FULL>(-at::vec::minimum(s + s, VD(700.0)));
  const VD s2 = s * s;
  static constexpr double series[] = {1.0, -1.0 / 3.0, 2.0 / 15.0, -17.0 / 315.0, 62.0 / 2835.0, -1382.0 / 155925.0};
  const VD small = s * poly_d<6>(s2, series);  // (to s^11: below 2^-44 relative at s = 1/16)
  t = VD::blendv((VD(1.0) - w) / (VD(1.0) + w), small, s < VD(0.0625));
  sech2 = VD(4.0) * w / ((VD(1.0) + w) * (VD(1.0) + w));
}
template <bool MILA> ALWAYS static inline VD mish_d(VD x) {
  VD u, sp, t, sech2;
  softplus_d(MILA ? x - VD(0.25) : x, u, sp);
  tanh_sech2_d(sp, t, sech2);
  return at::vec::maximum(x, VD(-1e4)) * t;
}
template <bool MILA> ALWAYS static inline VD mish_grad_d(VD go, VD x) {
  const VD z = MILA ? x - VD(0.25) : x;
  VD u, sp, t, sech2;
  softplus_d(z, u, sp);
  tanh_sech2_d(sp, t, sech2);
  const VD sigma = VD::blendv(VD(1.0), u, z < VD(0.0)) / (VD(1.0) + u);
  const VD d = at::vec::fmadd(at::vec::clamp(x, VD(-1e4), VD(1e4)) * sech2, sigma, t);
  return VD::blendv(go * d, go * VD(-0.0), x == VD(-INFINITY));  // (the limit -0: NaN for an infinite go)
}
// go (fh + fl) in doubles, rounded once: a go the float32 product would scale
ALWAYS static inline VF times_parts_wide(VF go, VF fh, VF fl) {
  VD gl, gh, hl, hh, ll, lh;
  widen(go, gl, gh);
  widen(fh, hl, hh);
  widen(fl, ll, lh);
  return narrow(gl * (hl + ll), gh * (hh + lh));
}
// go f'(x) where a table gives f' = fh + fl on the `table` lanes: rounded once in float32 where go needs no scale,
// in doubles where it does; `far` on the other lanes (mish's, mila's, golu's and derf's derivatives)
ALWAYS static inline VF table_lanes_or(VF go, VF fh, VF fl, VF table, VF far) {
  const VF plain = table & unscaled_lanes(go);
  return blend(blend(far, times_parts_wide(go, fh, fl), table), times_grad_table(go, fh, fl), plain);
}
template <bool MILA> ALWAYS static inline VF mish_doubles(VF x) {
  VD xl, xh;
  widen(x, xl, xh);
  return nan_to(narrow(mish_d<MILA>(xl), mish_d<MILA>(xh)), x);
}
template <bool MILA> ALWAYS static inline VF mish_of(VF x) {
  const auto& tab = MILA ? MILA_T : MISH_T;
  if (every_abs_below(x, 8.0f)) return times_table<2>(x, tab);
  const VF table = x.abs() < C(8.0f);
  return blend(mish_doubles<MILA>(x), times_table<2>(x & table, tab), table);
}
template <bool MILA> ALWAYS static inline VF mish_grad_of(VF go, VF x) {
  const auto& tab = MILA ? MILA_GRAD_T : MISH_GRAD_T;
  constexpr float x0h = MILA ? MILA_X0_HI : MISH_X0_HI, x0l = MILA ? MILA_X0_LO : MISH_X0_LO;
  if (every_table_lane(go, x, 4.0f)) return grad_table<4>(go, x, tab, x0h, x0l);
  const VF table = x.abs() < C(4.0f);
  VF fh, fl;
  grad_table_parts<4>(x & table, tab, x0h, x0l, fh, fl);
  VD gl, gh, xl, xh;
  widen(go, gl, gh);
  widen(x, xl, xh);
  const VF far = nan_to(narrow(mish_grad_d<MILA>(gl, xl), mish_grad_d<MILA>(gh, xh)), x);
  return table_lanes_or(go, fh, fl, table, far);
}
ALWAYS static inline VF mish_f(VF x) { return mish_of<false>(x); }
ALWAYS static inline VF mish_grad_f(VF go, VF x) { return mish_grad_of<false>(go, x); }
ALWAYS static inline VF mila_f(VF x) { return mish_of<true>(x); }
ALWAYS static inline VF mila_grad_f(VF go, VF x) { return mish_grad_of<true>(go, x); }

// golu at alpha = beta = gamma = 1, x exp(-e^-x): below |x| = 2 x F from GOLU_T and the derivative from GOLU_GRAD_T
// (native32's interval tables, the derivative's zero x0 = -Omega carried as x - x0; a go outside [2^-32, 2^32] as
// mish's); from 2 up float32 (golu_right, below); below -2, doubles: w = e^-x (the reciprocal of e^x), F = e^-w by
// exp_d's FULL series (the outer exponential multiplies the inner's relative error by w: 2^-52 w), golu' = F (1 + x
// w), which does not cancel there (1 + x w < -13.7). Below x = -6.5 (w > 665) F and its products are below 2^-280:
// -0 and a zero of -go's sign (x e^x e^-e^-x's and the derivative's limits, also at -inf)
ALWAYS static inline void golu_parts_d(VD x, VD& w, VD& f) {
  const VD e = exp_d<true>(-at::vec::minimum(x.abs(), VD(700.0)));  // (NaN stays NaN)
  w = VD::blendv(e, VD(1.0) / e, x < VD(0.0));
  f = exp_d<true>(-at::vec::minimum(w, VD(700.0)));
}
ALWAYS static inline VD golu_d(VD x) {
  VD w, f;
  golu_parts_d(x, w, f);
  return VD::blendv(x * f, VD(-0.0), x < VD(-6.5));
}
ALWAYS static inline VD golu_grad_d(VD go, VD x) {
  VD w, f;
  golu_parts_d(x, w, f);
  const VD d = f * at::vec::fmadd(at::vec::minimum(x, VD(1e4)), w, VD(1.0));
  return VD::blendv(go * d, go * VD(-0.0), x < VD(-6.5));
}
// from x = 2 on in float32: w = e^-x rounded (exp_near: 1.42 2^-24), F = 1 + p, p = expm1(-w) by its series to w^5
// (w <= e^-2: the next term 2^-30 of p), golu = x + x p rounded once; golu' = F (1 + x w) = 1 + q, q = p + x w (1 +
// p) > 0 (x w >= 2 w > |p|: no cancellation), go + go q rounded once: q to ~2^-24 of 1, within ~1 ULP. Beyond 60
// (w < 2^-86) golu = x and golu' = 1 (also at +inf, where x p would be NaN)
ALWAYS static inline void golu_right_parts(VF x, VF& w, VF& p) {
  VF e, t;
  exp_near(at::vec::minimum(x.abs(), C(60.0f)), e, t);
  w = fma_(e, t, t);
  VF s = fma_(w, C(1.0f / 120.0f), C(-1.0f / 24.0f));
  s = fma_(s, w, C(1.0f / 6.0f));
  s = fma_(s, w, C(-0.5f));
  p = -(w * fma_(s, w, C(1.0f)));
}
ALWAYS static inline VF golu_right(VF x) {
  VF w, p;
  golu_right_parts(x, w, p);
  return blend(fma_(x, p, x), x, x > C(60.0f));
}
ALWAYS static inline VF golu_grad_right(VF go, VF x) {
  VF w, p;
  golu_right_parts(x, w, p);
  const VF xw = x * w;
  return blend(fma_(go, fma_(p, xw, xw + p), go), go, x > C(60.0f));
}
ALWAYS static inline VF golu_f(VF x) {
  if (every_abs_below(x, 2.0f)) return times_table<8>(x, GOLU_T);
  const VF table = x.abs() < C(2.0f), right = x >= C(2.0f);
  VF rest = golu_right(x);
  if (!every(table | right)) {  // (x below -2, or NaN)
    VD xl, xh;
    widen(x, xl, xh);
    rest = blend(nan_to(narrow(golu_d(xl), golu_d(xh)), x), rest, right);
  }
  return blend(rest, times_table<8>(x & table, GOLU_T), table);
}
ALWAYS static inline VF golu_grad_f(VF go, VF x) {
  if (every_table_lane(go, x, 2.0f)) return grad_table<8>(go, x, GOLU_GRAD_T, GOLU_X0_HI, GOLU_X0_LO);
  const VF table = x.abs() < C(2.0f), right = x >= C(2.0f);
  VF fh, fl;
  grad_table_parts<8>(x & table, GOLU_GRAD_T, GOLU_X0_HI, GOLU_X0_LO, fh, fl);
  VF rest = golu_grad_right(go, x);
  if (!every(table | right)) {
    VD gl, gh, xl, xh;
    widen(go, gl, gh);
    widen(x, xl, xh);
    rest = blend(nan_to(narrow(golu_grad_d(gl, xl), golu_grad_d(gh, xh)), x), rest, right);
  }
  return table_lanes_or(go, fh, fl, table, rest);
}

// derf at its defaults, erf(x / 2): below |x| = 8 x F from DERF_T (F = erf(x / 2) / x: native32's interval tables);
// beyond, +-1 (erf(4) = 1 - 1.5e-8 rounds to 1). Its derivative e^(-x^2/4) / sqrt(pi) times go: below |x| = 4 from
// DERF_GRAD_T (a go outside [2^-32, 2^32] multiplying in doubles, as mish's); beyond, doubles: x^2 / 4 exact, e^z
// as e^max(z, -700) e^(z + 700) below -700 (the product rounds into the doubles' subnormals, as the float64
// reference's exp; past z = -1400 0, a zero of go's sign, NaN for an infinite go, as at +-inf)
// (+ 0: the catalog's erf(alpha x + shift) + bias at shift = bias = +0 gives +0 at x = -0, as IEEE sums do)
ALWAYS static inline VF derf_f(VF x) {
  if (every_abs_below(x, 8.0f)) return times_table<2>(x, DERF_T) + C(0.0f);
  const VF table = x.abs() < C(8.0f);
  return blend(nan_to((x & C(-0.0f)) | C(1.0f), x), times_table<2>(x & table, DERF_T) + C(0.0f), table);
}
ALWAYS static inline VD derf_grad_d(VD go, VD x) {
  const VD z = -(x * x * VD(0.25));
  const VD far = exp_d(at::vec::minimum(at::vec::maximum(z + VD(700.0), VD(-700.0)), VD(0.0)));
  return go * (exp_d(at::vec::maximum(z, VD(-700.0))) * far * VD(0.5 * TWO_OVER_SQRT_PI_D));
}
// go f'(x) from a derivative's table (no zero) below |x| = 16 / P, a go outside [2^-32, 2^32] multiplying its value in
// doubles (table_lanes_or), and beyond the table FAR(go, x) in doubles, rounded once (NaN x: NaN)
template <int P, VD (*FAR)(VD, VD), int ROWS>
ALWAYS static inline VF table_grad_or_doubles(VF go, VF x, const float (&tab)[ROWS][32]) {
  constexpr float edge = 16.0f / P;
  if (every_table_lane(go, x, edge)) return go_times_table<P>(go, x, tab);
  const VF table = x.abs() < C(edge);
  VF fh, fl;
  table_parts(table_at<P>(x & table), tab, fh, fl);
  VD gl, gh, xl, xh;
  widen(go, gl, gh);
  widen(x, xl, xh);
  const VF far = nan_to(narrow(FAR(gl, xl), FAR(gh, xh)), x);
  return table_lanes_or(go, fh, fl, table, far);
}
ALWAYS static inline VF derf_grad_f(VF go, VF x) { return table_grad_or_doubles<4, derf_grad_d>(go, x, DERF_GRAD_T); }

// sau at its defaults (alpha = 0.01, sigma = 1), alpha x + (1 - alpha)(x Phi(x) + phi(x)): below |x| = 8 from SAU_T
// (native32's interval tables; its zero x0 = -1.72 carried as x - x0: grad_table_parts), rounded once; from 8 up x
// itself (the rest, (1 - alpha)(phi(x) - x Q(x)) > 0, is below 2^-56 x: it rounds away), below -8 alpha x in
// doubles, rounded once (the rest, (1 - alpha)(x Phi(x) + phi(x)) > 0, is below 2^-49 of it: at float32's ties
// alone it could decide the rounding); +-inf give +-inf, NaN NaN
ALWAYS static inline VF sau_far(VF x) {
  VD xl, xh;
  widen(x, xl, xh);
  return blend(narrow(xl * VD(SAU_ALPHA_D), xh * VD(SAU_ALPHA_D)), x, x >= C(0.0f));
}
ALWAYS static inline VF sau_f(VF x) {
  VF fh, fl;
  if (every_abs_below(x, 8.0f)) {
    grad_table_parts<2>(x, SAU_T, SAU_X0_HI, SAU_X0_LO, fh, fl);
    return fh + fl;
  }
  const VF table = x.abs() < C(8.0f);
  grad_table_parts<2>(x & table, SAU_T, SAU_X0_HI, SAU_X0_LO, fh, fl);
  return blend(sau_far(x), fh + fl, table);
}
// its derivative alpha + (1 - alpha) Phi(x) (in [alpha, 1]: no zero) times go: below |x| = 4 from SAU_GRAD_T (a
// go outside [2^-32, 2^32] multiplying in doubles, as derf's); beyond, in doubles, rounded once: (1 - alpha)
// Phi(-|x|) from e^{-x^2/2} z(|x|) (log_ndtr's gauss_tail_d, 2^-28.5 relative: below 2^-36 of the sum, which it
// joins as alpha + t on the left and 1 - t on the right; the exponent clamped at -700, where t is 0 to float32);
// at +-inf the limits 1 and alpha
ALWAYS static inline VD sau_grad_d(VD go, VD x) {
  const VD a = x.abs();
  const VD t = exp_d(at::vec::maximum(VD(-0.5) * a * a, VD(-700.0))) * gauss_tail_d(a) * VD(SAU_BETA_D);
  return go * VD::blendv(VD(1.0) - t, VD(SAU_ALPHA_D) + t, x < VD(0.0));
}
ALWAYS static inline VF sau_grad_f(VF go, VF x) { return table_grad_or_doubles<4, sau_grad_d>(go, x, SAU_GRAD_T); }

// log_sigmoid, log sigma(x) = -softplus(-x): below |x| = 8 from LOG_SIGMOID_T (native32's interval tables), beyond
// in doubles (sqrtsoftplus's softplus_d, to 2^-30 before the one rounding: -u rounds into float32's subnormals from x
// = 87.3 on, -0 beyond 103.97; x at -inf gives -inf); its derivative sigma(-x), times go: glu's sigma(g) v at g =
// -x, v = go (one rounding, for every go: glu_f's scaled product; go at x = +inf, where sigma(-x) = 0: 0 go)
ALWAYS static inline VF log_sigmoid_doubles(VF x) {
  VD xl, xh, u, sl, sh;
  widen(x, xl, xh);
  softplus_d(-xl, u, sl);
  softplus_d(-xh, u, sh);
  return narrow(-sl, -sh);
}
ALWAYS static inline VF log_sigmoid_f(VF x) {
  if (every_abs_below(x, 8.0f)) return table_value<2>(x, LOG_SIGMOID_T);
  const VF table = x.abs() < C(8.0f);
  return blend(log_sigmoid_doubles(x), table_value<2>(x & table, LOG_SIGMOID_T), table);
}
ALWAYS static inline VF log_sigmoid_grad_f(VF go, VF x) { return glu_f(-x, go); }
// softplus at beta = 1, log(1 + e^x) = -log sigma(-x): log_sigmoid's kernel on -x, negated (both negations exact, so
// its bounds); the derivative sigma(x) go, glu's sigma(g) v at g = x, v = go (one rounding, for every go)
ALWAYS static inline VF softplus_f(VF x) { return -log_sigmoid_f(-x); }
ALWAYS static inline VF softplus_grad_f(VF go, VF x) { return glu_f(x, go); }

// gtu, sigma(g) tanh(v). Near forms: sigma(g) = fh + fl (sigma_near_parts: u = e^-|g| carried, p's error 0.42
// 2^-24) and tanh |v| = th + tl (tanh_abs_parts: tanh_quotient's, u = e^-2|v| to ~2^-26, as hi + lo), their
// product rounded once and given v's sign; for g >= -60 (clamped at 60: above, sigma(g) (th + tl) rounds to th) and
// |v| in [2^-32, inf] or 0 (sigma(-60) 2^-32 > 2^-119: normal). Elsewhere (NaN, far gates, tiny v) glu's kernel on
// tanh_quotient(v) rounded (one rounding more: within glu's and tanh's bounds together)
ALWAYS static inline VF gtu_near(VF g, VF v) {
  VF uh, ul, dh, dl, fh, fl;
  one_plus_near(at::vec::minimum(g, C(SIGMA_NEAR)), uh, ul, dh, dl);
  sigma_near_parts(g, uh, ul, dh, dl, fh, fl);
  const VF a = v.abs();
  OnePlus o;
  one_plus<true>(at::vec::minimum(a, C(12.0f)) * C(-2.0f), o);
  VF th, tl;
  tanh_abs_parts(a, o, th, tl);
  return fma_(fh, th, fma_(fh, tl, fl * th)) | sign_of(v);
}
ALWAYS static inline VF gtu_near_lanes(VF g, VF v) {
  return (g >= C(-SIGMA_NEAR)) & ((v.abs() >= C(0x1p-32f)) | (v == C(0.0f)));
}
// (out of line: inlined, glu's and tanh's kernels beside the near form made the loop take 3.3 ns per element
// where the near form alone takes 1.4, on an AVX-512 core)
__attribute__((noinline, cold)) static VF gtu_far(VF g, VF v, VF near) {
  return blend(glu_f(g, tanh_quotient(v)), gtu_near(g & near, v & near), near);
}
ALWAYS static inline VF gtu_f(VF g, VF v) {
  const VF near = gtu_near_lanes(g, v);
  if (every(near)) return gtu_near(g, v);
  return gtu_far(g, v, near);
}
// gtu's gradients, d/dg = go sigma'(g) tanh(v) and d/dv = go sigma(g) sech^2(v), for |g| <= 26, |v| <= 20 (and
// |v| >= 2^-32 or 0) and go in [2^-32, 2^32] or 0, so that both products are normal (2^-32 sigma(-26)
// sech^2(20) > 2^-126): s = sigma(-|g|) = u / D and m = 1 - s as hi + lo (sigma(g) one of them, sigma'(g) = s m),
// tanh |v| = th + tl and sech^2 v = 2 q (1 + t) with q = w / (1 + w) (w = e^-2|v|, tanh's exponential) as hi + lo;
// each product of three rounded once. Elsewhere glu's gradients of (go, g, tanh_quotient(v)), d/dv then tanh's
// derivative kernel on glu's go sigma(g): a rounding more each (within the bounds of both)
#define GTU_GRAD_G 26.0f
#define GTU_GRAD_V 20.0f
ALWAYS static inline VF times_three(VF go, VF ah, VF al, VF bh, VF bl) {  // go (ah + al)(bh + bl), rounded once
  const VF ph = ah * bh;
  const VF pl = fma_(ah, bh, -ph) + fma_(ah, bl, al * bh);
  return fma_(go, ph, go * pl) | sign_of(go);  // (go's sign also where go is -0)
}
ALWAYS static inline void gtu_grad_near(VF go, VF g, VF v, VF& dg, VF& dv) {
  VF uh, ul, dh, dl;
  one_plus_near(g, uh, ul, dh, dl);
  const VF inv = C(1.0f) / dh;
  const VF sh = uh * inv;
  const VF sl = (at::vec::fnmadd(sh, dh, uh) + at::vec::fnmadd(sh, dl, ul)) * inv;
  const VF mh = C(1.0f) - sh;
  const VF ml = ((C(1.0f) - mh) - sh) - sl;  // (Fast2Sum: 1 >= sh)
  const VF ph = sh * mh;
  const VF pl = fma_(sh, mh, -ph) + fma_(sh, ml, sl * mh);  // sigma'(g) = s m
  const VF a = v.abs();
  OnePlus o;
  one_plus<true>(a * C(-2.0f), o);
  VF th, tl, qh, ql;
  tanh_abs_parts(a, o, th, tl);
  quotient2(o.uh, o.ul, o.dh, o.dl, qh, ql);
  const VF eh = C(1.0f) + th;
  const VF el = ((C(1.0f) - eh) + th) + tl;  // 1 + t (Fast2Sum: 1 >= th)
  const VF rh = qh * eh;
  const VF rl = fma_(qh, eh, -rh) + fma_(qh, el, ql * eh);  // sech^2 v / 2
  dg = times_three(go, ph, pl, th, tl) ^ sign_of(v);
  dv = times_three(go + go, blend(mh, sh, g), blend(ml, sl, g), rh, rl);  // (sigma(g): g's sign bit)
}
ALWAYS static inline VF gtu_grad_lanes(VF g, VF go, VF v) {
  const VF a = v.abs();
  return (g.abs() <= C(GTU_GRAD_G)) & (a <= C(GTU_GRAD_V)) & ((a >= C(0x1p-32f)) | (a == C(0.0f))) & unscaled_lanes(go);
}
ALWAYS static inline void gtu_grad_far(VF go, VF g, VF v, VF& dg, VF& dv) {
  VF gate;
  glu_grad_f(go, g, tanh_quotient(v), dg, gate);
  dv = tanh_grad_f(gate, v);
}
ALWAYS static inline void gtu_grad_f(VF go, VF g, VF v, VF& dg, VF& dv) {
  near_or_far_grad<gtu_grad_lanes, gtu_grad_near, gtu_grad_far>(go, g, v, dg, dv);
}

// situ_glu at its defaults (beta_g = 4, beta_u = 25), G(g) U(v): G = 4 tanh(g / 4) sigma(g) = g F_G and U = 25
// tanh(v / 25) = v F_U. Near form (|g| < 8, |v| < 16, both in [2^-32, 2^32] or 0, and go for the gradients): F_G,
// F_U, G' (its zero x0 = -1.2188 carried as g - x0) and U' = sech^2(v / 25) from interval tables as hi + lo (SITU_*_T),
// g v (or go v, go g) as an exact two-product, and each result, (g v)(F_G F_U), (go v)(F_U G') and (go g)(F_G U'),
// rounded once (the zero's sign from g v's and G's signs: F_G, F_U, U' > 0). Elsewhere (far or scaled lanes,
// infinities, NaN: situ_d) G, U and U' in doubles (exp_d's full series), and G' too from |g| = 8 on (below, its
// table's parts: see situ_glu_grad_far), the products in doubles, rounded once
ALWAYS static inline VF times_pairs(VF a, VF b, VF ch, VF cl, VF dh, VF dl) {  // a b (ch + cl)(dh + dl), rounded once
  const VF ph = a * b, pl = fma_(a, b, -ph);
  const VF fh = ch * dh, fl = fma_(ch, dh, -fh) + fma_(ch, dl, cl * dh);
  return fma_(ph, fh, fma_(ph, fl, pl * fh)) | sign_of((a ^ b) ^ fh);
}
ALWAYS static inline VF situ_near(VF g, VF v) {
  VF gh, gl, uh, ul;
  table_parts(table_at<2>(g), SITU_GATE_T, gh, gl);
  table_parts(table_at<1>(v), SITU_UP_T, uh, ul);
  return times_pairs(g, v, gh, gl, uh, ul);
}
ALWAYS static inline VF situ_lanes(VF g, VF v) {
  return (g.abs() < C(8.0f)) & (v.abs() < C(16.0f)) & unscaled_lanes(g) & unscaled_lanes(v);
}
// G, G', U, U' in doubles; the limits exact at +-inf (G(-inf) = -0, G'(+-inf) = +-0, U'(+-inf) = 0: the clamped
// exponentials leave ~2^-1000 there, which an infinite go would turn into an infinity where IEEE's product is NaN)
ALWAYS static inline void situ_d(VD g, VD v, VD& G, VD& dG, VD& U, VD& dU) {
  VD t, sech2;
  tanh_sech2_d<true>((g * VD(0.25)).abs(), t, sech2);
  t = t | (g & VD(-0.0));
  const VD u = exp_d<true>(-at::vec::minimum(g.abs(), VD(700.0)));  // e^-|g|
  const VD r = VD(1.0) / (VD(1.0) + u);
  const VD pos = g >= VD(0.0);
  const VD sg = VD::blendv(u * r, r, pos), sm = VD::blendv(r, u * r, pos);  // sigma(g), sigma(-g)
  const VD inf = g.abs() == VD(INFINITY);
  G = VD::blendv(VD(4.0) * t * sg, VD(-0.0), g == VD(-INFINITY));
  dG = VD::blendv(sech2 * sg + VD(4.0) * t * sg * sm, g & VD(-0.0), inf);
  VD tu, su;
  tanh_sech2_d<true>((v / VD(25.0)).abs(), tu, su);
  U = VD(25.0) * (tu | (v & VD(-0.0)));
  dU = VD::blendv(su, VD(0.0), v.abs() == VD(INFINITY));
}
ALWAYS static inline VF situ_nan(VF r, VF g, VF v) { return nan_to(nan_to(r, g), v); }
__attribute__((noinline, cold)) static VF situ_far(VF g, VF v, VF near) {
  VD gl, gh, vl, vh, Gl, Gh, dGl, dGh, Ul, Uh, dUl, dUh;
  widen(g, gl, gh);
  widen(v, vl, vh);
  situ_d(gl, vl, Gl, dGl, Ul, dUl);
  situ_d(gh, vh, Gh, dGh, Uh, dUh);
  const VF y = situ_nan(narrow(Gl * Ul, Gh * Uh), g, v);
  return blend(y, situ_near(g & near, v & near), near);
}
ALWAYS static inline VF situ_glu_f(VF g, VF v) {
  const VF near = situ_lanes(g, v);
  if (every(near)) return situ_near(g, v);
  return situ_far(g, v, near);
}
ALWAYS static inline void situ_glu_grad_near(VF go, VF g, VF v, VF& dg, VF& dv) {
  const TableAt ag = table_at<2>(g), av = table_at<1>(v);
  VF gh, gl, uh, ul, dgh, dgl, duh, dul;
  table_parts(ag, SITU_GATE_T, gh, gl);
  table_parts(av, SITU_UP_T, uh, ul);
  grad_table_parts<2>(g, SITU_GATE_GRAD_T, SITU_X0_HI, SITU_X0_LO, dgh, dgl);
  table_parts(av, SITU_UP_GRAD_T, duh, dul);
  dg = times_pairs(go, v, uh, ul, dgh, dgl);
  dv = times_pairs(go, g, gh, gl, duh, dul);
}
ALWAYS static inline VF situ_grad_lanes(VF g, VF go, VF v) { return situ_lanes(g, v) & unscaled_lanes(go); }
// (G' from its table below |g| = 8 here too, widened: the doubles' terms cancel near x0 to 2^-24 of G' at the float32
// nearest it, where the table carries g - x0)
__attribute__((noinline, cold)) static void situ_glu_grad_far(VF go, VF g, VF v, VF& dg, VF& dv) {
  VD ol, oh, gl, gh, vl, vh, Gl, Gh, dGl, dGh, Ul, Uh, dUl, dUh, thl, thh, tll, tlh;
  widen(go, ol, oh);
  widen(g, gl, gh);
  widen(v, vl, vh);
  situ_d(gl, vl, Gl, dGl, Ul, dUl);
  situ_d(gh, vh, Gh, dGh, Uh, dUh);
  VF th, tl;
  grad_table_parts<2>(g & (g.abs() < C(8.0f)), SITU_GATE_GRAD_T, SITU_X0_HI, SITU_X0_LO, th, tl);
  widen(th, thl, thh);
  widen(tl, tll, tlh);
  dGl = VD::blendv(dGl, thl + tll, gl.abs() < VD(8.0));
  dGh = VD::blendv(dGh, thh + tlh, gh.abs() < VD(8.0));
  dg = situ_nan(narrow(ol * Ul * dGl, oh * Uh * dGh), g, v);
  dv = situ_nan(narrow(ol * Gl * dUl, oh * Gh * dUh), g, v);
}
ALWAYS static inline void situ_glu_grad_f(VF go, VF g, VF v, VF& dg, VF& dv) {
  near_or_far_grad<situ_grad_lanes, situ_glu_grad_near, situ_glu_grad_far>(go, g, v, dg, dv);
}

// swiglustep, min(silu(g), L) clamp(v, -L, L) at its default L (Step-3.5's 7): swiglu's kernel on the clamped value
// (an exact clamp, NaN kept); above SWIGLUSTEP_CUT, the last float32 whose silu is below L, the gate is L and L vc
// rounds once. Those lanes hand swiglu's kernel a zero gate instead, so that a huge g costs no far form.
ALWAYS static inline VF clamp_keeping_nan(VF v, float limit) {
  return at::vec::minimum(at::vec::maximum(v, C(-limit)), C(limit));
}
ALWAYS static inline VF swiglustep_f(VF g, VF v) {
  // (no lane clipped: swiglu's product as it is; the clamp and the blends below took 1.3x its time)
  if (every((g <= C(SWIGLUSTEP_CUT)) & (v.abs() <= C(SWIGLUSTEP_L)))) return swiglu_f(g, v);
  const VF vc = clamp_keeping_nan(v, SWIGLUSTEP_L);
  const VF clipped = g > C(SWIGLUSTEP_CUT);
  return blend(swiglu_f(blend(g, C(0.0f), clipped), vc), C(SWIGLUSTEP_L) * vc, clipped);
}
// d/dg = go (silu'(g) [silu(g) < L] vc) and d/dv = go (min(silu(g), L) [|v| < L]), as the catalog's derivative
// multiplies: where an indicator is 0 the product is go times a zero of its other factor's sign (g's, or +0 for the
// gate L), NaN where go is infinite or a factor is NaN (a NaN v's indicator is NaN)
ALWAYS static inline void swiglustep_grad_f(VF go, VF g, VF v, VF& dg, VF& dv) {
  // (no lane clipped: swiglu's gradients, at their cost; the blends below took 1.7x that on an AVX-512 core)
  if (every((g <= C(SWIGLUSTEP_CUT)) & (v.abs() < C(SWIGLUSTEP_L)))) return swiglu_grad_f(go, g, v, dg, dv);
  const VF vc = clamp_keeping_nan(v, SWIGLUSTEP_L);
  const VF clipped = g > C(SWIGLUSTEP_CUT);
  swiglu_grad_f(go, blend(g, C(0.0f), clipped), vc, dg, dv);
  dg = blend(dg, go * (C(0.0f) * vc), clipped);
  dv = blend(dv, go * C(SWIGLUSTEP_L), clipped);
  const VF zero_gate = blend(g & C(-0.0f), g + v, (g != g) | (v != v));
  dv = blend(go * zero_gate, dv, v.abs() < C(SWIGLUSTEP_L));
}

// clamped_swiglu, silu(min(g, L)) clamp(v, -L, L) at its default L (7): swiglu's kernel on the clamped inputs (exact
// clamps, NaN kept), so the product rounds once
ALWAYS static inline VF clamped_swiglu_f(VF g, VF v) {
  // (no lane clipped: swiglu's product as it is, without the clamps)
  if (every((g <= C(CLAMPED_L)) & (v.abs() <= C(CLAMPED_L)))) return swiglu_f(g, v);
  return swiglu_f(at::vec::minimum(g, C(CLAMPED_L)), clamp_keeping_nan(v, CLAMPED_L));
}
// d/dg = go (silu'(gc) [g < L] vc) and d/dv = go (silu(gc) [|v| < L]), gc = min(g, L), as the catalog's derivative
// multiplies: where an indicator is 0 the product is go times a zero of its other factors' sign (vc's for d/dg, as
// silu'(L) > 0; gc's for d/dv), NaN where go is infinite or a factor is NaN (a NaN v's indicator is NaN)
ALWAYS static inline void clamped_swiglu_grad_f(VF go, VF g, VF v, VF& dg, VF& dv) {
  if (every((g < C(CLAMPED_L)) & (v.abs() < C(CLAMPED_L)))) return swiglu_grad_f(go, g, v, dg, dv);
  const VF gc = at::vec::minimum(g, C(CLAMPED_L));
  const VF vc = clamp_keeping_nan(v, CLAMPED_L);
  swiglu_grad_f(go, gc, vc, dg, dv);
  dg = blend(dg, go * (C(0.0f) * vc), g >= C(CLAMPED_L));
  const VF zero_gate = blend(gc & C(-0.0f), gc + v, (gc != gc) | (v != v));
  dv = blend(go * zero_gate, dv, v.abs() < C(CLAMPED_L));
}

"""

# Kernels over [rows, width] blocks with a row stride per array (1-D: one row), unit inner stride: x -> y,
# (go, x) -> go f'(x), (g, v) -> gate(g) v and (go, g, v) -> (d/dg, d/dv). The gated ones also take element
# offsets, g_at for g (and dg), v_at for v (and dv): a packed [rows, 2d] tensor passed as both g and v with
# offsets 0 and d ([gate | value]) or d and 0 ([value | gate]) needs no view of its halves (each view a Python
# call costs about a microsecond, a 32K call's kernel 16)
_UNARY = r"""
extern "C" void kernel(const float* x, float* out, int64_t rows, int64_t width, int64_t s_x, int64_t s_out,
                       int64_t threads) {
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const float* xr = x + r * s_x;
    float* o = out + r * s_out;
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      ahead(xr + i, o + i);
      FN(VF::loadu(xr + i)).store(o + i);
    }
    if (i < end) FN(VF::loadu(xr + i, end - i)).store(o + i, end - i);
  });
}
"""

_BINARY = r"""
extern "C" void kernel(const float* a, const float* b, float* out, int64_t rows, int64_t width, int64_t s_a,
                       int64_t s_b, int64_t s_out, int64_t threads) {
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const float* ar = a + r * s_a;
    const float* br = b + r * s_b;
    float* o = out + r * s_out;
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      ahead(ar + i, o + i);
      ahead(br + i);
      FN(VF::loadu(ar + i), VF::loadu(br + i)).store(o + i);
    }
    if (i < end) FN(VF::loadu(ar + i, end - i), VF::loadu(br + i, end - i)).store(o + i, end - i);
  });
}
"""

# bfloat16 in and out around a float32 kernel (`HALF_FORMS`): inputs widened exactly (a 16-bit shift), f(x) in
# float32, rounded to bfloat16 to nearest even in integer arithmetic (ATen's rounding, NaN aside, on every ISA).
# The forward is the lookup's bits, correctly rounded: f's float32 result y lies within W float32 ULP of f(x)
# (W = HALF_FORMS's) where the form's `doubt` lanes say so and is f(x) correctly rounded to float32 elsewhere
# (with no double rounding at a midpoint: the form's argument), so rounding y gives f(x)'s nearest bfloat16 unless
# a doubted lane has a midpoint between two bfloat16s within W ULP of y, where y's low 16 bits are within W of
# 0x8000; those lanes, and NaN lanes, take the table's value (`values`: the lookup's results widened to float32,
# indexed by the input's bits), a scalar fix-up after the vector store (hardswish, W = 4: 510 of the 65536
# inputs, the NaNs and the subnormals; none of 4M N(0, 1) draws). Under AVX-512 2V elements go per step, as they
# lie in one load (`pairs16`, `store_pairs`). The backward rounds
# go f'(x) as the float32 form computes it (hardswish: below 3.5 ULP; against the lookup's go times a float32
# slope, the same bfloat16 but at near-ties).
_BF16 = r"""
#include <cstring>
#include <algorithm>
using Bits = uint16_t;
#if defined(CPU_CAPABILITY_AVX512)
using VB = __m512i;
ALWAYS static inline VB patterns16(const Bits* p) {
  return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
ALWAYS static inline VF widened(VB b) { return VF(_mm512_castsi512_ps(_mm512_slli_epi32(b, 16))); }
ALWAYS static inline void store_rounded(VF y, Bits* o) {
  const __m512i b = _mm512_castps_si512(y);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(b, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF))), 16);
  r = _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q), r, _mm512_set1_epi32(0x7FC0));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), _mm512_cvtepi32_epi16(r));
}
// lanes whose y is NaN or has its low 16 bits within W of 0x8000, as bits of an int
ALWAYS static inline int near_midpoint(VF y, int w, VF doubt) {
  const __m512i low = _mm512_and_si512(_mm512_castps_si512(y), _mm512_set1_epi32(0xFFFF));
  const __mmask16 near = _mm512_mask_cmple_epu32_mask(_mm512_movepi32_mask(_mm512_castps_si512(doubt)),
                                                      _mm512_sub_epi32(low, _mm512_set1_epi32(0x8000 - w)),
                                                      _mm512_set1_epi32(2 * w));
  return int(near | _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q));
}
// 2V bfloat16s as they lie in one 512-bit load: the even-indexed ones widened (shifted up 16) and the odd ones
// (their halves already on top, the low ones cleared), no widening conversion; and back, each rounded in place
// and the even ones shifted down to meet the odd ones (two narrowing conversions per 2V elements had cost
// hardswish's forward a third of its time: 0.38 ns per element at 4M where torch.hardswish takes 0.27)
constexpr bool PAIRS = true;
ALWAYS static inline void pairs16(const Bits* p, VF& even, VF& odd) {
  const __m512i b = _mm512_loadu_si512(p);
  even = VF(_mm512_castsi512_ps(_mm512_slli_epi32(b, 16)));
  odd = VF(_mm512_castsi512_ps(_mm512_and_si512(b, _mm512_set1_epi32(int(0xFFFF0000u)))));
}
// y rounded to bfloat16 (to nearest even; NaN the quiet NaN) in the top 16 bits of each lane
ALWAYS static inline __m512i rounded_on_top(VF y) {
  const __m512i b = _mm512_castps_si512(y);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
  const __m512i r = _mm512_add_epi32(b, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF)));
  return _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q), r, _mm512_set1_epi32(0x7FC00000));
}
ALWAYS static inline void store_pairs(VF even, VF odd, Bits* o) {
  const __m512i low = _mm512_srli_epi32(rounded_on_top(even), 16);
  _mm512_storeu_si512(o, _mm512_mask_blend_epi16(__mmask32(0xAAAAAAAAu), low, rounded_on_top(odd)));
}
#else
constexpr bool PAIRS = false;  // (AVX2: pairs16 and store_pairs unused)
ALWAYS static inline void pairs16(const Bits*, VF&, VF&) {}
ALWAYS static inline void store_pairs(VF, VF, Bits*) {}
using VB = __m256i;
ALWAYS static inline VB patterns16(const Bits* p) {
  return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
ALWAYS static inline VF widened(VB b) { return VF(_mm256_castsi256_ps(_mm256_slli_epi32(b, 16))); }
ALWAYS static inline void store_rounded(VF y, Bits* o) {
  const __m256i b = _mm256_castps_si256(y);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
  __m256i r = _mm256_srli_epi32(_mm256_add_epi32(b, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7FFF))), 16);
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7FC0), _mm256_castps_si256(_mm256_cmp_ps(y, y, _CMP_UNORD_Q)));
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);  // (r <= 0xFFFF: no saturation)
  _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm256_castsi256_si128(packed));
}
ALWAYS static inline int near_midpoint(VF y, int w, VF doubt) {
  const __m256i low = _mm256_and_si256(_mm256_castps_si256(y), _mm256_set1_epi32(0xFFFF));
  const __m256i d = _mm256_sub_epi32(low, _mm256_set1_epi32(0x8000 - w));
  const __m256i near = _mm256_cmpeq_epi32(_mm256_min_epu32(d, _mm256_set1_epi32(2 * w)), d);
  const __m256 flagged = _mm256_and_ps(_mm256_castsi256_ps(near), doubt);
  return _mm256_movemask_ps(_mm256_or_ps(flagged, _mm256_cmp_ps(y, y, _CMP_UNORD_Q)));
}
#endif
// V elements at p, or the n < V left (the rest zeros)
ALWAYS static inline VB patterns16(const Bits* p, int64_t n) {
  Bits part[V] = {};
  std::memcpy(part, p, n * sizeof(Bits));
  return patterns16(part);
}
ALWAYS static inline void store_rounded(VF y, Bits* o, int64_t n) {
  Bits part[V];
  store_rounded(y, part);
  std::memcpy(o, part, n * sizeof(Bits));
}
ALWAYS static inline Bits top_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return Bits(b >> 16);
}
"""

_UNARY_BF16 = r"""
extern "C" void kernel(const at::BFloat16* x_, const float* values, at::BFloat16* out_, int64_t rows, int64_t width,
                       int64_t s_x, int64_t s_out, int64_t threads) {
  const Bits* x = reinterpret_cast<const Bits*>(x_);
  Bits* out = reinterpret_cast<Bits*>(out_);
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const Bits* xr = x + r * s_x;
    Bits* o = out + r * s_out;
    // (rare: the lanes near a midpoint, or NaN; lane j of `near` is element at + step j)
    auto fix = [&](int64_t at, int64_t step, int near) {
      for (; near; near &= near - 1) {
        const int64_t j = at + step * __builtin_ctz(near);
        o[j] = top_bits(values[xr[j]]);
      }
    };
    int64_t i = begin;
    if constexpr (PAIRS) {
      for (; i + 2 * V <= end; i += 2 * V) {
        VF xe, xo;
        pairs16(xr + i, xe, xo);
        const VF ye = FN(xe), yo = FN(xo);
        store_pairs(ye, yo, o + i);
        const int even = near_midpoint(ye, WINDOW, DOUBT(xe)), odd = near_midpoint(yo, WINDOW, DOUBT(xo));
        if (__builtin_expect((even | odd) != 0, 0)) {
          fix(i, 2, even);
          fix(i + 1, 2, odd);
        }
      }
    }
    for (; i + V <= end; i += V) {
      const VF x = widened(patterns16(xr + i));
      const VF y = FN(x);
      store_rounded(y, o + i);
      const int near = near_midpoint(y, WINDOW, DOUBT(x));
      if (__builtin_expect(near != 0, 0)) fix(i, 1, near);
    }
    if (i < end) {
      const int64_t n = end - i;
      const VF x = widened(patterns16(xr + i, n));
      const VF y = FN(x);
      store_rounded(y, o + i, n);
      fix(i, 1, near_midpoint(y, WINDOW, DOUBT(x)) & ((1 << n) - 1));
    }
  });
}
"""

_BINARY_BF16 = r"""
extern "C" void kernel(const at::BFloat16* go_, const at::BFloat16* x_, at::BFloat16* out_, int64_t rows,
                       int64_t width, int64_t s_go, int64_t s_x, int64_t s_out, int64_t threads) {
  const Bits* go = reinterpret_cast<const Bits*>(go_);
  const Bits* x = reinterpret_cast<const Bits*>(x_);
  Bits* out = reinterpret_cast<Bits*>(out_);
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const Bits* gr = go + r * s_go;
    const Bits* xr = x + r * s_x;
    Bits* o = out + r * s_out;
    int64_t i = begin;
    if constexpr (PAIRS) {
      for (; i + 2 * V <= end; i += 2 * V) {
        VF ge, go_, xe, xo;
        pairs16(gr + i, ge, go_);
        pairs16(xr + i, xe, xo);
        store_pairs(FN(ge, xe), FN(go_, xo), o + i);
      }
    }
    for (; i + V <= end; i += V) store_rounded(FN(widened(patterns16(gr + i)), widened(patterns16(xr + i))), o + i);
    if (i < end) {
      const int64_t n = end - i;
      store_rounded(FN(widened(patterns16(gr + i, n)), widened(patterns16(xr + i, n))), o + i, n);
    }
  });
}
"""

# The gated kernels for bfloat16 g, v and outputs (`_BF16`'s loads and stores around the float32 forms): each
# result rounded once more, float32 to bfloat16, as the generated float32 kernels round theirs; 2V elements per
# AVX-512 step. SILU_SIDE (the silu gates, `SILU_GATED`): below |g| = 2^-24 the float32 gate is g / 2 exactly
# (silu(g) = g / 2 (1 + g / 2 + ...)), so gate * v, 8 by 8 significant bits, is exact and lies on a midpoint
# between two bfloat16s for some v, where rounding to even would pick a side at random (537 of the 65283 pairs of
# `nonlin check`'s bfloat16 set for clamped_swiglu and swiglustep: 99.18% correctly rounded against the goal's 99.9%);
# the true product's magnitude is |y| (1 + g / 2): larger where g > 0. Those lanes move one float32 ULP that way
# first, so that the rounding takes the true side; the same for d/dv = go silu(g) (99.89% -> 100% on that set).
_SILU_SIDE = r"""
ALWAYS static inline VF silu_side(VF y, VF g) {
  if constexpr (!SILU_SIDE) return y;
  const VI bits = at::vec::cast<int32_t>(y);
  const VF midpoint = at::vec::cast<float>((bits & VI(0xFFFF)) == VI(0x8000));
  const VF on = midpoint & (g.abs() < C(0x1p-24f)) & (g != C(0.0f));
  // (y's pattern + 1 is the next float32 away from zero, - 1 the next toward it; low bits 0x8000 stay in the binade)
  const VI step = at::vec::convert<int32_t>(blend(C(-1.0f), C(1.0f), g > C(0.0f)));
  return blend(y, at::vec::cast<float>(bits + step), on);
}
"""

_GATED_BF16 = r"""
extern "C" void kernel(const at::BFloat16* g_, const at::BFloat16* v_, at::BFloat16* out_, int64_t rows,
                       int64_t width, int64_t s_g, int64_t s_v, int64_t s_out, int64_t g_at, int64_t v_at,
                       int64_t threads) {
  const Bits* g = reinterpret_cast<const Bits*>(g_);
  const Bits* v = reinterpret_cast<const Bits*>(v_);
  Bits* out = reinterpret_cast<Bits*>(out_);
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const Bits* gr = g + g_at + r * s_g;
    const Bits* vr = v + v_at + r * s_v;
    Bits* o = out + r * s_out;
    int64_t i = begin;
    if constexpr (PAIRS) {
      for (; i + 2 * V <= end; i += 2 * V) {
        VF ge, go_, ve, vo;
        pairs16(gr + i, ge, go_);
        pairs16(vr + i, ve, vo);
        store_pairs(silu_side(FN(ge, ve), ge), silu_side(FN(go_, vo), go_), o + i);
      }
    }
    for (; i + V <= end; i += V) {
      const VF gi = widened(patterns16(gr + i));
      store_rounded(silu_side(FN(gi, widened(patterns16(vr + i))), gi), o + i);
    }
    if (i < end) {
      const int64_t n = end - i;
      const VF gi = widened(patterns16(gr + i, n));
      store_rounded(silu_side(FN(gi, widened(patterns16(vr + i, n))), gi), o + i, n);
    }
  });
}
"""

_GATED_GRAD_BF16 = r"""
extern "C" void kernel(const at::BFloat16* go_, const at::BFloat16* g_, const at::BFloat16* v_, at::BFloat16* dg_,
                       at::BFloat16* dv_, int64_t rows, int64_t width, int64_t s_go, int64_t s_g, int64_t s_v,
                       int64_t s_dg, int64_t s_dv, int64_t g_at, int64_t v_at, int64_t threads) {
  const Bits* go = reinterpret_cast<const Bits*>(go_);
  const Bits* g = reinterpret_cast<const Bits*>(g_);
  const Bits* v = reinterpret_cast<const Bits*>(v_);
  Bits* dg = reinterpret_cast<Bits*>(dg_);
  Bits* dv = reinterpret_cast<Bits*>(dv_);
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const Bits* o = go + r * s_go;
    const Bits* gr = g + g_at + r * s_g;
    const Bits* vr = v + v_at + r * s_v;
    Bits* a = dg + g_at + r * s_dg;
    Bits* b = dv + v_at + r * s_dv;
    VF da, db;
    int64_t i = begin;
    if constexpr (PAIRS) {
      VF oe, oo, ge, go_, ve, vo, da2, db2;
      for (; i + 2 * V <= end; i += 2 * V) {
        pairs16(o + i, oe, oo);
        pairs16(gr + i, ge, go_);
        pairs16(vr + i, ve, vo);
        FN(oe, ge, ve, da, db);
        FN(oo, go_, vo, da2, db2);
        store_pairs(da, da2, a + i);
        store_pairs(silu_side(db, ge), silu_side(db2, go_), b + i);
      }
    }
    for (; i + V <= end; i += V) {
      const VF gi = widened(patterns16(gr + i));
      FN(widened(patterns16(o + i)), gi, widened(patterns16(vr + i)), da, db);
      store_rounded(da, a + i);
      store_rounded(silu_side(db, gi), b + i);
    }
    if (i < end) {
      const int64_t n = end - i;
      const VF gi = widened(patterns16(gr + i, n));
      FN(widened(patterns16(o + i, n)), gi, widened(patterns16(vr + i, n)), da, db);
      store_rounded(da, a + i, n);
      store_rounded(silu_side(db, gi), b + i, n);
    }
  });
}
"""

_GATED = r"""
extern "C" void kernel(const float* g, const float* v, float* out, int64_t rows, int64_t width, int64_t s_g,
                       int64_t s_v, int64_t s_out, int64_t g_at, int64_t v_at, int64_t threads) {
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const float* gr = g + g_at + r * s_g;
    const float* vr = v + v_at + r * s_v;
    float* o = out + r * s_out;
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      ahead(gr + i, o + i);
      ahead(vr + i);
      FN(VF::loadu(gr + i), VF::loadu(vr + i)).store(o + i);
    }
    if (i < end) FN(VF::loadu(gr + i, end - i), VF::loadu(vr + i, end - i)).store(o + i, end - i);
  });
}
"""

_GATED_GRAD = r"""
extern "C" void kernel(const float* go, const float* g, const float* v, float* dg, float* dv, int64_t rows,
                       int64_t width, int64_t s_go, int64_t s_g, int64_t s_v, int64_t s_dg, int64_t s_dv,
                       int64_t g_at, int64_t v_at, int64_t threads) {
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const float* o = go + r * s_go;
    const float* gr = g + g_at + r * s_g;
    const float* vr = v + v_at + r * s_v;
    float* a = dg + g_at + r * s_dg;
    float* b = dv + v_at + r * s_dv;
    VF da, db;
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      ahead(o + i, a + i);
      ahead(gr + i, b + i);
      ahead(vr + i);
      FN(VF::loadu(o + i), VF::loadu(gr + i), VF::loadu(vr + i), da, db);
      da.store(a + i);
      db.store(b + i);
    }
    if (i < end) {
      const int64_t n = end - i;
      FN(VF::loadu(o + i, n), VF::loadu(gr + i, n), VF::loadu(vr + i, n), da, db);
      da.store(a + i, n);
      db.store(b + i, n);
    }
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
    "elu": ("elu_f", "elu_grad_f"),
    "selu": ("selu_f", "selu_grad_f"),
    "quick_gelu": ("quick_gelu_f", "quick_gelu_grad_f"),
    "tanhshrink": ("tanhshrink_f", "tanhshrink_grad_f"),
    "softcap": ("softcap_f", "softcap_grad_f"),
    "clipped_gelu": ("clipped_gelu_f", "clipped_gelu_grad_f"),
    "laplace": ("laplace_f", "laplace_grad_f"),
    "ndtr": ("ndtr_f", "ndtr_grad_f"),
    "hardswish": ("hardswish_f", "hardswish_grad_f"),
    "siren": ("siren_f", "siren_grad_f"),
    "sqrtsoftplus": ("sqrtsoftplus_f", "sqrtsoftplus_grad_f"),
    "log_sigmoid": ("log_sigmoid_f", "log_sigmoid_grad_f"),
    "softplus": ("softplus_f", "softplus_grad_f"),
    "gcu": ("gcu_f", "gcu_grad_f"),
    "snake": ("snake_f", "snake_grad_f"),
    "snake_beta": ("snake_beta_f", "snake_beta_grad_f"),
    "mish": ("mish_f", "mish_grad_f"),
    "mila": ("mila_f", "mila_grad_f"),
    "golu": ("golu_f", "golu_grad_f"),
    "derf": ("derf_f", "derf_grad_f"),
    "sau": ("sau_f", "sau_grad_f"),
    "lecun_tanh": ("lecun_tanh_f", "lecun_tanh_grad_f"),
    "lisht": ("lisht_f", "lisht_grad_f"),
    "gelu_tanh": ("gelu_tanh_f", "gelu_tanh_grad_f"),
    "tanhexp": ("tanhexp_f", "tanhexp_grad_f"),
    "serf": ("serf_f", "serf_grad_f"),
    "log_ndtr": ("log_ndtr_f", "log_ndtr_grad_f"),
}
# gated kernels: gate(g) v and its two gradients
GATED: dict[str, tuple[str, str]] = {
    "swiglu": ("swiglu_f", "swiglu_grad_f"),
    "geglu": ("geglu_f", "geglu_grad_f"),
    "glu": ("glu_f", "glu_grad_f"),
    "gtu": ("gtu_f", "gtu_grad_f"),
    "situ_glu": ("situ_glu_f", "situ_glu_grad_f"),
    "swiglustep": ("swiglustep_f", "swiglustep_grad_f"),
    "clamped_swiglu": ("clamped_swiglu_f", "clamped_swiglu_grad_f"),
}

# The gated kernels whose gate is silu(g) near g = 0 (`_GATED_BF16`'s SILU_SIDE)
SILU_GATED = frozenset({"swiglu", "swiglustep", "clamped_swiglu"})

# Kernels whose bfloat16 calls run float32 forms around bfloat16 loads and stores (`_BF16`): (forward, its doubted
# lanes, derivative, W), the forward within W ULP of f(x) on the doubted lanes and correctly rounded to float32 on
# the others. Only where that is faster than the lookup's gather: hardswish's (4M bfloat16 elements on one Zen 4
# core, ns per element: the lookup 0.40, this form 0.28, torch.hardswish 0.26; notes/2026-12-07c).
HALF_FORMS: dict[str, tuple[str, str, str, int]] = {
    "hardswish": ("hardswish_half_f", "hardswish_half_doubt", "hardswish_plain_grad_f", 4)
}

_BUILT: dict[tuple[str, str], Callable | None] = {}
_LOCK = threading.Lock()
# The kernels' software prefetch distance in floats (`ahead`: 8 KiB), or 0 for none: this machine's choice
# (`set_prefetch`; the route profile `nonlin tune` writes holds it, and the static default is on)
AHEAD_FLOATS = 2048
_ahead = AHEAD_FLOATS


def prefetching() -> bool:
    """Whether the kernels built from now on prefetch their streams (`ahead`)."""
    return _ahead > 0


def set_prefetch(on: bool) -> None:
    """Build the kernels with (`on`) or without their software prefetch from now on: where the setting changes,
    the kernels built so far are dropped and built again on their next call (inductor's disk cache keeps both
    forms). The values are the same either way."""
    global _ahead
    with _LOCK:
        want = AHEAD_FLOATS if on else 0
        if want != _ahead:
            _ahead = want
            _BUILT.clear()
            cpp_ops.forget()


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
    """The compiled kernel of `primitive` (a key of PRIMITIVES or GATED), `which` "fwd" (x -> y; gated:
    (g, v) -> gate(g) v) or "bwd" ((go, x) -> go f'(x); gated: (go, g, v) -> d/dg, d/dv), built once; None where compilation is off or failed, or the ISA is not one the kernels are for
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
            if which in ("fwd", "bwd") and k is not None:
                cpp_ops.register(primitive, which, k)  # (where the compiled graphs' C++ ops are loaded)
    return _BUILT[key]


_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SOFTCAP_CAP = 50.0  # the catalog's softcap default (Gemma 2's attention logits)
# tanhshrink's series below |x| = 7/8, S(t) = 1/3 + t R(t) (t = x^2), R of degree 6 (highest first): printed by
# `python tools/fit_tanhshrink_float32.py 6 0.875`, 2^-29.7 relative to S (the Taylor polynomial of the catalog's
# _TANHSHRINK_SERIES needs degree 16 for as much)
_TANHSHRINK_R = (-0.0001933635212481022, 0.0010685273446142673, -0.003370458958670497, 0.008789537474513054,
                 -0.021855950355529785, 0.05396704375743866, -0.13333329558372498)  # fmt: skip
QUICK_GELU_BETA = 1.702  # the catalog's quick_gelu: x sigma(1.702 x)
LECUN_A, LECUN_B = 1.7159, 2.0 / 3.0  # the catalog's lecun_tanh: A tanh(B x)
# gelu_tanh's derivative near its zero: `python tools/fit_gelu_tanh_grad_float32.py 6 0.15` (fit 0.010 ULP)
GELU_TANH_X0 = (-0.7524614334106445, 1.1339627903339533e-08)
GELU_TANH_C0 = 0.43040009102485854
GELU_TANH_GRAD_P = (0.005961343180388212, 0.005221163388341665, 0.019352540373802185, -0.01661880873143673,
                    -0.1139407753944397, -0.015782855451107025, 0.38751843571662903)  # fmt: skip
GELU_TANH_ZONE = 0.15
# tanhexp's derivative near its zero: `python tools/fit_tanhexp_grad_float32.py 6 0.15` (fit 0.014 ULP); the zone is
# narrow, as the derivative's far form is within ~1 ULP from |x - x0| = 0.1 on and the polynomial's own rounding
# grows with d (1.57 ULP at |d| = 0.3 with a degree-8 fit)
TANHEXP_X0 = (-1.0788600444793701, -1.3985253843884493e-08)
TANHEXP_C0 = 0.3525036331603062
TANHEXP_GRAD_P = (0.011616677045822144, -0.005492867901921272, -0.02583407051861286, -0.04564698413014412,
                  -0.022872082889080048, 0.10786033421754837, 0.32522690296173096)  # fmt: skip
TANHEXP_ZONE = 0.15
# gelu's forward on [-4, 4): Phi(x) by a polynomial of degree 6 in t = x - c on each of 32 intervals of width 1/4
# (rows: c_0 as a float32 pair hi + lo, then c_1 ... c_6; each row lists the 32 intervals' values): `python
# tools/fit_table_float32.py gelu 6 4` (fit 5.6e-9 relative, 0.093 float32 ULP)
GELU_TABLE = (
    (5.3312349336920306e-05, 0.00014448072761297226, 0.0003690784506034106, 0.0008890252793207765, 0.002020137384533882, 0.004332448355853558, 0.008774475194513798, 0.016793306916952133, 0.030396360903978348, 0.05208127945661545, 0.08456572145223618, 0.13029451668262482, 0.1907869577407837, 0.26598551869392395, 0.3538302481174469, 0.45026177167892456, 0.5497382283210754, 0.6461697816848755, 0.7340144515037537, 0.8092130422592163, 0.8697054982185364, 0.9154343008995056, 0.947918713092804, 0.9696036577224731, 0.9832066893577576, 0.99122554063797, 0.995667576789856, 0.9979798793792725, 0.999110996723175, 0.9996309280395508, 0.9998555183410645, 0.9999467134475708),  # c_0's high parts
    (5.185876684674073e-13, -1.6316346060710196e-12, 3.705358068983866e-12, 1.966656525131949e-11, 1.0505871173016601e-10, 6.57137191883983e-12, -9.946311829711618e-11, -4.690198229795328e-10, 8.612464075241633e-10, -4.0782405230643803e-11, 9.002451006878687e-10, 4.5545528459811635e-10, -4.887380278262299e-09, 1.0354962221015285e-08, -1.4790669133901702e-08, 3.4901050938174194e-09, -3.491773536978826e-09, -1.5012652454515774e-08, 1.9447394805638396e-08, 4.888359494970018e-09, -1.535516602757525e-08, -2.325066716934998e-08, 7.492102938044809e-09, -1.948766126247392e-08, 4.193819513886865e-09, -1.5733714775478802e-08, -2.5152889548962776e-08, -1.6869242003281215e-08, -2.2022300427693153e-08, -6.4938339150444335e-09, 9.330523020878445e-10, -2.5797321612230917e-08),  # low
    (0.00021893164375796914, 0.0005590615328401327, 0.0013411188265308738, 0.003022257937118411, 0.006398120429366827, 0.01272418163716793, 0.023771900683641434, 0.04172098636627197, 0.06878627836704254, 0.10653826594352722, 0.15501226484775543, 0.21187664568424225, 0.2720550000667572, 0.32816097140312195, 0.37185508012771606, 0.3958376944065094, 0.3958376944065094, 0.37185508012771606, 0.32816097140312195, 0.2720550000667572, 0.21187664568424225, 0.15501226484775543, 0.10653826594352722, 0.06878627836704254, 0.04172098636627197, 0.023771900683641434, 0.01272418163716793, 0.006398120429366827, 0.003022257937118411, 0.0013411188265308738, 0.0005590615328401327, 0.00021893164375796914),
    (0.0004241798887960613, 0.001013298868201673, 0.002263137837871909, 0.004722277633845806, 0.009197299368679523, 0.016700489446520805, 0.028229132294654846, 0.04432855173945427, 0.06448714435100555, 0.08656233549118042, 0.10657092928886414, 0.11918061226606369, 0.11902406811714172, 0.10255031287670135, 0.06972280144691467, 0.02473987080156803, -0.024739842861890793, -0.06972284615039825, -0.10255029797554016, -0.11902406066656113, -0.11918061226606369, -0.10657093673944473, -0.08656234294176102, -0.06448713690042496, -0.04432854801416397, -0.028229132294654846, -0.016700487583875656, -0.009197297506034374, -0.004722278099507093, -0.002263138070702553, -0.0010132989846169949, -0.000424180063419044),
    (0.0005114058149047196, 0.001131220255047083, 0.0023225194308906794, 0.004415356088429689, 0.007747715339064598, 0.01249225065112114, 0.018386144191026688, 0.024445686489343643, 0.028839552775025368, 0.02913196198642254, 0.02300966903567314, 0.00937986746430397, -0.010627571493387222, -0.03332943841814995, -0.053257592022418976, -0.06494350731372833, -0.06494350731372833, -0.053257595747709274, -0.03332943469285965, -0.010627570562064648, 0.00937986746430397, 0.023009667173027992, 0.02913195826113224, 0.028839556500315666, 0.02444569021463394, 0.018386144191026688, 0.012492251582443714, 0.007747716270387173, 0.004415356088429689, 0.0023225191980600357, 0.001131220255047083, 0.0005114056984893978),
    (0.0004247609176672995, 0.000856315135024488, 0.0015824862057343125, 0.002662546932697296, 0.00403552083298564, 0.005414407234638929, 0.0062118773348629475, 0.005597757641226053, 0.0027686990797519684, -0.0025908383540809155, -0.00985163077712059, -0.017225127667188644, -0.022163258865475655, -0.02230132557451725, -0.0166077371686697, -0.006155835930258036, 0.006150194443762302, 0.016616880893707275, 0.02229839190840721, 0.022161774337291718, 0.017225142568349838, 0.009853057563304901, 0.002592413453385234, -0.002770313760265708, -0.0055985646322369576, -0.006211868952959776, -0.00541475648060441, -0.004035880323499441, -0.002662449609488249, -0.0015824360307306051, -0.0008562954608350992, -0.0004247292235959321),
    (0.0002531794016249478, 0.0004518880450632423, 0.0007194848731160164, 0.0009997374145314097, 0.0011565338354557753, 0.0009639347554184496, 0.00018491792434360832, -0.0012817337410524487, -0.003262429963797331, -0.005224290303885937, -0.00614997697994113, -0.005263946950435638, -0.0022544017992913723, 0.0022393520921468735, 0.006598606705665588, 0.009631243534386158, 0.009631241671741009, 0.006598879117518663, 0.002239084569737315, -0.0022544695530086756, -0.005263946019113064, -0.006149841472506523, -0.005224017892032862, -0.003262704238295555, -0.0012820045230910182, 0.0001849174004746601, 0.0009638671763241291, 0.0011564659653231502, 0.000999737880192697, 0.000719501986168325, 0.0004518881323747337, 0.00025318789994344115),
    (0.00010520657087909058, 0.00015726032142993063, 0.00019087197142653167, 0.0001608247112017125, 2.8409913284122013e-05, -0.0002896564546972513, -0.0007518766215071082, -0.0011534577934071422, -0.0012916254345327616, -0.001133567187935114, -0.00012485156184993684, 0.0012965999776497483, 0.0026726890355348587, 0.0032861267682164907, 0.002361367689445615, 0.001158110680989921, -0.0009015970281325281, -0.002778668887913227, -0.003155028447508812, -0.0026062666438519955, -0.001298240851610899, 6.161463534226641e-05, 0.0010600094683468342, 0.0013676908565685153, 0.0011916717048734426, 0.0007515582838095725, 0.00030504883034154773, -1.2380567568470724e-05, -0.0001652687496971339, -0.00019324048480484635, -0.00015809322940185666, -0.00010659445251803845),
)  # fmt: skip
# gelu's derivative on [-4, 4) the same way: gelu'(x), or on the two intervals around its zero x0 = -0.7518 (the
# last row's -0.0) gelu'(x) / (x - x0), by `python tools/fit_table_float32.py gelu_grad 6 4` (fit 2.4e-9, 0.041
# float32 ULP)
GELU_GRAD_TABLE = (
    (-0.0007950477302074432, -0.0018821172416210175, -0.0041571976616978645, -0.00855553150177002, -0.016374457627534866, -0.02906852774322033, -0.04768379032611847, -0.07186378538608551, -0.09857790172100067, -0.12104340642690659, -0.1285761445760727, -0.10806670784950256, 0.3835870027542114, 0.48019710183143616, 0.21438457071781158, 0.4007820785045624, 0.59921795129776, 0.7856154441833496, 0.939115047454834, 1.047261118888855, 1.1080666780471802, 1.1285761594772339, 1.1210434436798096, 1.098577857017517, 1.0718637704849243, 1.047683835029602, 1.0290684700012207, 1.0163744688034058, 1.00855553150177, 1.0041571855545044, 1.0018820762634277, 1.0007950067520142),  # c_0's high parts
    (-1.59299743535124e-11, -4.960076099846944e-11, -8.061457751340484e-11, 4.4224413020543807e-10, -7.755080466687048e-10, -5.86985182682298e-10, 9.47414258156698e-10, -1.8391190792499401e-09, -3.691321026622063e-09, 1.2938422555563989e-10, 1.9208346024868206e-09, -1.5214981496924906e-09, 7.888171005276945e-09, 7.964565895690612e-09, 2.3965620599142312e-09, -1.4218404231769455e-08, -1.5610993386871996e-08, -1.731444676522642e-08, 2.8840069887792197e-08, 5.184113405221069e-08, 3.131488313101727e-08, -1.682251493662079e-08, -3.7382051232270896e-08, 4.839286305013957e-08, 1.6736580121801126e-08, -4.565439937209703e-08, 5.83272168341864e-08, -1.0400193595216933e-08, -4.4093861895078135e-10, 1.2189272702300968e-08, 4.1028830111145e-08, 4.099461037299079e-08),
    (-0.0028495320584625006, -0.006228294689208269, -0.012593944557011127, -0.023469721898436546, -0.0400882214307785, -0.06222920119762421, -0.08654458075761795, -0.10495435446500778, -0.10425420105457306, -0.06825108081102371, 0.016954468563199043, 0.15559691190719604, 0.38770970702171326, 0.3780769109725952, 0.6914180517196655, 0.7854903936386108, 0.7854903936386108, 0.6914180517196655, 0.5281340479850769, 0.3358179032802582, 0.15559691190719604, 0.016954468563199043, -0.06825108081102371, -0.10425420105457306, -0.10495435446500778, -0.08654458075761795, -0.06222920119762421, -0.0400882214307785, -0.023469721898436546, -0.012593944557011127, -0.006228294689208269, -0.0028495320584625006),
    (-0.004672608803957701, -0.009262187406420708, -0.01672600768506527, -0.02722688391804695, -0.039232220500707626, -0.048274848610162735, -0.04631342738866806, -0.022856902331113815, 0.031235957518219948, 0.1176706850528717, 0.2247980684041977, 0.32588452100753784, 0.022248942404985428, -0.0625784769654274, 0.26908648014068604, 0.09857282787561417, -0.09857288002967834, -0.2690865695476532, -0.37014251947402954, -0.38496842980384827, -0.32588449120521545, -0.2247980684041977, -0.1176706850528717, -0.0312359556555748, 0.022856906056404114, 0.04631341993808746, 0.048274848610162735, 0.039232224225997925, 0.0272268857806921, 0.01672600582242012, 0.009262186475098133, 0.004672608338296413),
    (-0.004537736531347036, -0.007891368120908737, -0.012072782963514328, -0.015619260258972645, -0.015420975163578987, -0.006884262431412935, 0.014532627537846565, 0.050194427371025085, 0.09457896649837494, 0.1333770900964737, 0.1462250053882599, 0.115032859146595, -0.10396623611450195, -0.11821217834949493, -0.18811818957328796, -0.25668761134147644, -0.25668761134147644, -0.18811820447444916, -0.07756505161523819, 0.03505471348762512, 0.115032859146595, 0.1462250053882599, 0.1333770900964737, 0.09457896649837494, 0.050194427371025085, 0.014532624743878841, -0.006884262431412935, -0.015420973300933838, -0.01561925932765007, -0.012072784826159477, -0.007891368120908737, -0.004537736531347036),
    (-0.0027676033787429333, -0.003895029192790389, -0.004233346786350012, -0.0023399924393743277, 0.0035259199794381857, 0.014357107691466808, 0.028772450983524323, 0.0416717529296875, 0.0446690209209919, 0.02938753552734852, -0.006907312665134668, -0.056417372077703476, -0.025568097829818726, -0.00153563660569489, -0.09569709002971649, -0.03674834594130516, 0.03676004707813263, 0.09571558982133865, 0.11841265112161636, 0.1008123904466629, 0.05641190707683563, 0.006907323375344276, -0.029387470334768295, -0.044669296592473984, -0.041672393679618835, -0.02877078577876091, -0.01435706578195095, -0.0035267185885459185, 0.002339583821594715, 0.004233713261783123, 0.0038951921742409468, 0.0027676846366375685),
    (-0.0009554717689752579, -0.0007292127120308578, 0.0004037189355585724, 0.002902453066781163, 0.006670347414910793, 0.010480769909918308, 0.011780166998505592, 0.007529775146394968, -0.004076587036252022, -0.0208941251039505, -0.03603602200746536, -0.04034987837076187, 0.015389659442007542, 0.021902069449424744, 0.03429705277085304, 0.056398823857307434, 0.05639883503317833, 0.03429815545678139, 0.0012008424382656813, -0.027185678482055664, -0.04034988582134247, -0.03603602200746536, -0.02089412696659565, -0.0040765865705907345, 0.007529773749411106, 0.011780370958149433, 0.010480769909918308, 0.006670210510492325, 0.00290238531306386, 0.00040385493775829673, -0.0007292114314623177, -0.0009554711286909878),
    (-3.930251841666177e-05, 0.0003838632255792618, 0.0011513448553159833, 0.0021590583492070436, 0.0027813606429845095, 0.002073857933282852, -0.0007328679203055799, -0.005233938805758953, -0.009968601167201996, -0.011667494662106037, -0.0074590654112398624, 0.0028056299779564142, 0.006094623357057571, 0.002187875332310796, 0.019484201446175575, 0.007746565155684948, -0.008296562358736992, -0.020328037440776825, -0.02243843860924244, -0.014479056932032108, -0.0025684619322419167, 0.007458512205630541, 0.011662768200039864, 0.009979292750358582, 0.005261609330773354, 0.0006546015501953661, -0.002076132455840707, -0.0027440092526376247, -0.002140207914635539, -0.001168308313935995, -0.00039102512528188527, 3.575049777282402e-05),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
# silu's derivative on [-8, 8), 32 halves: silu'(x), or on the two intervals nearest its zero x0 = -1.2785
# silu'(x) / (x - x0), by `python tools/fit_table_float32.py silu_grad 6 8` (fit 7.0e-9, 0.117 float32 ULP)
SILU_GRAD_TABLE = (
    (-0.0029048235155642033, -0.004431788809597492, -0.006715451832860708, -0.010092155076563358, -0.015012364834547043, -0.022042473778128624, -0.03181609883904457, -0.04486620053648949, -0.06120792031288147, -0.07945728302001953, -0.09522302448749542, -0.0987309068441391, 0.15413251519203186, 0.22200094163417816, 0.15740005671977997, 0.376289963722229, 0.623710036277771, 0.8425999283790588, 0.9936808347702026, 1.0726789236068726, 1.0987309217453003, 1.095223069190979, 1.0794572830200195, 1.061207890510559, 1.0448662042617798, 1.0318161249160767, 1.0220425128936768, 1.0150123834609985, 1.0100921392440796, 1.0067154169082642, 1.0044318437576294, 1.0029047727584839),  # c_0's high parts
    (-9.301590747634592e-11, 1.4779666379638456e-10, 1.5012735499198016e-10, 9.665919106782717e-12, 3.525144898208765e-10, 5.705222405616439e-10, 1.50481038740935e-09, 1.4711153406565813e-09, 1.2908197843941593e-09, 1.7959536635636653e-10, 1.8838648419006176e-09, -3.2450784281934375e-09, 6.525308071658742e-11, -7.395726697723148e-09, -7.804602519811965e-10, 1.4381250856843053e-08, -1.4986270002737e-08, 1.6149048320812653e-08, 1.0211258505421483e-08, 2.2457095738559474e-08, -1.1648638498229502e-08, -4.6594209379691165e-08, -1.8340107210690348e-10, 2.8511525584917763e-08, -5.1951705160036e-09, -2.758071993014255e-08, -3.968534301179716e-08, -1.8978564497729167e-08, 1.582301933922281e-08, 3.477456189671102e-08, -5.5095792816928224e-08, 5.085010812422297e-08),
    (-0.002471765037626028, -0.003715828061103821, -0.005530233960598707, -0.008126530796289444, -0.01174442283809185, -0.01659221760928631, -0.022692807018756866, -0.029540609568357468, -0.03541775420308113, -0.036198608577251434, -0.023693110793828964, 0.015446428209543228, 0.12140006572008133, 0.1476857215166092, 0.3772267997264862, 0.4846162497997284, 0.4846162497997284, 0.3772267997264862, 0.2262047678232193, 0.09688808023929596, 0.015446428209543228, -0.023693110793828964, -0.036198608577251434, -0.03541775420308113, -0.029540609568357468, -0.022692807018756866, -0.01659221760928631, -0.01174442283809185, -0.008126530796289444, -0.005530233960598707, -0.003715828061103821, -0.002471765037626028),
    (-0.0010183821432292461, -0.0014975507510825992, -0.0021667336113750935, -0.0030666894745081663, -0.0042061638087034225, -0.005498592741787434, -0.006629238836467266, -0.006799829658120871, -0.004296283237636089, 0.00407385965809226, 0.02319304645061493, 0.05789570510387421, 0.03195618838071823, 0.01754281111061573, 0.1422417163848877, 0.06058106571435928, -0.060580912977457047, -0.14224180579185486, -0.14818508923053741, -0.10633159428834915, -0.05789570510387421, -0.02319304458796978, -0.0040738568641245365, 0.004296284168958664, 0.006799828261137009, 0.006629239302128553, 0.0054985941387712955, 0.004206163343042135, 0.003066689008846879, 0.00216673337854445, 0.0014975507510825992, 0.0010183823760598898),
    (-0.0002663815685082227, -0.0003776449884753674, -0.0005193992983549833, -0.0006821510614827275, -0.0008289091638289392, -0.0008621454471722245, -0.0005615909467451274, 0.0005177332204766572, 0.003170345677062869, 0.008546289056539536, 0.017553189769387245, 0.028662990778684616, -0.0038051314186304808, -0.015974292531609535, -0.028891457244753838, -0.07574266195297241, -0.07574265450239182, -0.028891468420624733, 0.01708502694964409, 0.03375012055039406, 0.028662988916039467, 0.017553187906742096, 0.008546289056539536, 0.003170345677062869, 0.0005177331040613353, -0.0005615908885374665, -0.0008621452725492418, -0.0008289092220366001, -0.0006821511196903884, -0.0005193992983549833, -0.0003776449884753674, -0.00026638153940439224),
    (-4.807159712072462e-05, -6.340463005471975e-05, -7.7679222158622e-05, -8.22194924694486e-05, -5.6849923566915095e-05, 4.1124247218249366e-05, 0.00029524866840802133, 0.0008497376111336052, 0.00190250005107373, 0.0035657715052366257, 0.005352397914975882, 0.005108905024826527, -0.00498700188472867, -0.006578424945473671, -0.02735632099211216, -0.014730298891663551, 0.014723969623446465, 0.02735978364944458, 0.016162343323230743, 0.001453788485378027, -0.005108911078423262, -0.005352477077394724, -0.003565904451534152, -0.0019025480141863227, -0.0008496697410009801, -0.00029527468723244965, -4.119537697988562e-05, 5.687252269126475e-05, 8.224260818678886e-05, 7.769095827825367e-05, 6.340479740174487e-05, 4.806001379620284e-05),
    (-5.747470368078211e-06, -6.258165740291588e-06, -4.649436505133053e-06, 2.2343749606079655e-06, 2.0891135136480443e-05, 6.402791041182354e-05, 0.00015080717275850475, 0.0003081221366301179, 0.0005457416991703212, 0.0007576172356493771, 0.0005187260685488582, -0.0010596571955829859, -0.0011684860801324248, 0.0002877031220123172, -0.0006237436318770051, 0.010251638479530811, 0.010251502506434917, -0.0006235394394025207, -0.006476770620793104, -0.004422214347869158, -0.0010596236679702997, 0.0005187592469155788, 0.0007576172356493771, 0.0005457416409626603, 0.0003081242903135717, 0.00015080609591677785, 6.402473081834614e-05, 2.0892197426292114e-05, 2.2354413431457942e-06, -4.649417860491667e-06, -6.258162102312781e-06, -5.748001967731398e-06),
    (-1.9988814869975613e-07, 8.423870667684241e-08, 1.0608304137349478e-06, 3.50760342371359e-06, 8.964761036622804e-06, 2.089359622914344e-05, 3.962631308240816e-05, 6.602403300348669e-05, 8.695723954588175e-05, 3.445058246143162e-05, -0.00024278569617308676, -0.000852815224789083, 0.00014368527627084404, 0.0008281298214569688, 0.0034719796385616064, 0.0026714722625911236, -0.002604827983304858, -0.0035073943436145782, -0.0003195201570633799, 0.0012339992681518197, 0.0008528762846253812, 0.00024363011470995843, -3.2971664040815085e-05, -8.640743180876598e-05, -6.678421777905896e-05, -3.9322127122431993e-05, -2.008770934480708e-05, -9.217665137839504e-06, -3.7684449125663377e-06, -1.1943719755436177e-06, -8.743921853238135e-08, 3.300583841792104e-07),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
# serf = x F, F = erf(softplus(x)), on [-4, 4), 32 quarters, and its derivative (x - x0 a factor on the two quarters
# around its zero): `python tools/fit_table_float32.py serf 6 4` and `serf_grad 6 4` (fits 0.023 and 0.045 ULP)
SERF_TABLE = (
    (0.023175792768597603, 0.02966975048184395, 0.0379507876932621, 0.04848938062787056, 0.06186578795313835, 0.07878608256578445, 0.10009344667196274, 0.12676821649074554, 0.159905806183815, 0.20065686106681824, 0.25010788440704346, 0.3090796172618866, 0.377828449010849, 0.4556673765182495, 0.5405834913253784, 0.6290151476860046, 0.7160134315490723, 0.7959645390510559, 0.8638172745704651, 0.916407585144043, 0.953254222869873, 0.9763843417167664, 0.989298403263092, 0.9956749081611633, 0.9984478950500488, 0.9995070099830627, 0.9998617172241211, 0.9999657869338989, 0.9999925494194031, 0.9999985694885254, 0.9999997615814209, 0.9999999403953552),  # c_0's high parts
    (3.874601750553097e-10, 8.415960150998103e-10, -1.8257213518779736e-09, -1.6022209115007513e-09, -9.28218502060929e-10, -2.213221828029077e-09, 3.314111873820025e-09, -6.1157208186557455e-09, 4.694777011593487e-09, 3.399903913958724e-09, 5.615891307542142e-09, -6.787874706759567e-09, 1.073844213550501e-08, 1.0851826104385509e-08, 1.3650834240763743e-08, 1.5261088393003774e-08, 2.5557572058687583e-08, 1.9060285794125775e-08, -2.6600732283554862e-08, -4.7029096172934715e-09, 2.941471954898134e-08, 1.3082027905397808e-08, -1.0098768044031203e-08, -3.0950877416557887e-09, -1.1625547635674138e-08, 2.5268676040468563e-13, -2.4692450306673663e-09, 5.4422475415094596e-09, -5.779722034304768e-09, -1.0968186359150423e-09, -3.673417570126958e-09, 2.354312300667516e-08),
    (0.022932924330234528, 0.029269488528370857, 0.03729128837585449, 0.04740319028496742, 0.0600779727101326, 0.07584640383720398, 0.0952674150466919, 0.1188647598028183, 0.14701083302497864, 0.1797352135181427, 0.2164401412010193, 0.25553056597709656, 0.29402926564216614, 0.3273574113845825, 0.3495883345603943, 0.35451722145080566, 0.337640643119812, 0.29850563406944275, 0.24214863777160645, 0.17826591432094574, 0.11793447285890579, 0.06953319162130356, 0.03629535064101219, 0.01669066771864891, 0.006738697178661823, 0.002383572282269597, 0.0007378020090982318, 0.0001997769286390394, 4.732679371954873e-05, 9.813745236897375e-06, 1.7824773976826691e-06, 2.837994657056697e-07),
    (0.011223742738366127, 0.014234883710741997, 0.017987219616770744, 0.022618262097239494, 0.02825872041285038, 0.03500332683324814, 0.04285907745361328, 0.05166072025895119, 0.06094292923808098, 0.06976795941591263, 0.07653370499610901, 0.07884443551301956, 0.07361754775047302, 0.05768464133143425, 0.029102420434355736, -0.010972957126796246, -0.05673998221755028, -0.09809522330760956, -0.12398263812065125, -0.127706378698349, -0.11073826998472214, -0.08180730044841766, -0.051741790026426315, -0.028088966384530067, -0.013111635111272335, -0.005271772854030132, -0.001829106011427939, -0.0005487300804816186, -0.00014262492186389863, -3.218240090063773e-05, -6.316267445072299e-06, -1.0801834378071362e-06),
    (0.00357974786311388, 0.004478884395211935, 0.005558502394706011, 0.006820763926953077, 0.008242730982601643, 0.009745770134031773, 0.011168086901307106, 0.012203195132315159, 0.012345690280199051, 0.010835974477231503, 0.006671607960015535, -0.0012110985117033124, -0.013463332317769527, -0.029501207172870636, -0.046499766409397125, -0.05907246470451355, -0.06064603105187416, -0.04704079031944275, -0.020405039191246033, 0.010123380459845066, 0.03305329754948616, 0.04155642166733742, 0.03689705207943916, 0.02571740560233593, 0.014629353769123554, 0.006924761924892664, 0.0027597257867455482, 0.0009335513459518552, 0.000269710726570338, 6.687814311590046e-05, 1.4290913895820267e-05, 2.6406082724861335e-06),
    (0.000814549217466265, 0.0009871068177744746, 0.0011727988021448255, 0.0013494075974449515, 0.0014819642528891563, 0.0014982993016019464, 0.0012936872662976384, 0.0006927036447450519, -0.0005349177517928183, -0.0026530702598392963, -0.0058585274964571, -0.010033681057393551, -0.014400388114154339, -0.017213229089975357, -0.015866320580244064, -0.008115637116134167, 0.005742484237998724, 0.021132569760084152, 0.03053899109363556, 0.02846929244697094, 0.01618591696023941, 0.0010873486753553152, -0.009195645339787006, -0.01200407836586237, -0.009632154367864132, -0.005785841029137373, -0.002768243895843625, -0.0010863555362448096, -0.00035569877945818007, -9.827921894611791e-05, -2.3101965780369937e-05, -4.648774392990163e-06),
    (0.0001254909293493256, 0.00014617075794376433, 0.00013441898045130074, 0.00013694219524040818, 5.974153464194387e-05, -2.3288072043214925e-05, -0.00028857283177785575, -0.0006950663519091904, -0.0013183711562305689, -0.00214199791662395, -0.0029477563221007586, -0.0034443780314177275, -0.0031736106611788273, -0.0009130896651186049, 0.0033625939395278692, 0.008875344879925251, 0.012424157001078129, 0.010760697536170483, 0.0033291042782366276, -0.00631940271705389, -0.012098687700927258, -0.010869820602238178, -0.005202020052820444, 0.00029059124062769115, 0.0029004018288105726, 0.0029060079250484705, 0.00186150090303272, 0.0008982133003883064, 0.0003456184349488467, 0.0001091310114134103, 2.8764581657014787e-05, 6.401765858754516e-06),
    (-3.3785477171477396e-07, 1.2003472875221632e-05, -3.283231126260944e-05, -1.5121338947210461e-05, -8.269535464933142e-05, -3.867900522891432e-05, -0.0002019267703872174, -0.00032690641819499433, -0.0004845212388318032, -0.0006460258737206459, -0.00044742910540662706, 5.358678026823327e-05, 0.0007809121743775904, 0.0022423136979341507, 0.0034025744535028934, 0.0033851894550025463, 0.0008524908334948123, -0.0033669357653707266, -0.006406350992619991, -0.005745136644691229, -0.001526314066722989, 0.0028159290086477995, 0.00420681107789278, 0.0028075939044356346, 0.0007125702686607838, -0.0005182736786082387, -0.0007457605679519475, -0.0005076774396002293, -0.0002434868220007047, -9.047033381648362e-05, -2.716240669542458e-05, -6.739533091604244e-06),
)  # fmt: skip
SERF_GRAD_TABLE = (
    (-0.06568928807973862, -0.07643214613199234, -0.08790731430053711, -0.09964558482170105, -0.11085838824510574, -0.1203107237815857, -0.12616665661334991, -0.1258193999528885, -0.11573950201272964, -0.09141286462545395, 0.2610601782798767, 0.3174808919429779, 0.12055285274982452, 0.25106900930404663, 0.40948787331581116, 0.5847005248069763, 0.75821852684021, 0.9079041481018066, 1.015160083770752, 1.0723901987075806, 1.085930585861206, 1.0719925165176392, 1.0482783317565918, 1.0269699096679688, 1.0127676725387573, 1.0051679611206055, 1.001798391342163, 1.0005401372909546, 1.0001404285430908, 1.0000317096710205, 1.0000061988830566, 1.000001072883606),  # c_0's high parts
    (-2.707623680819893e-09, 2.0839940884087582e-09, -3.102358592244059e-09, -3.504118328834238e-09, 2.4678120658094826e-10, 3.660384439996278e-09, -1.917492387093489e-09, -3.4108960100809327e-09, -1.466154087026439e-09, 2.61750288110818e-09, 7.984459760024265e-10, -8.631144687853975e-09, -1.5015976240206896e-09, -2.316904446075796e-09, 2.5735698017115283e-09, -1.531785187580681e-08, 1.229636836796999e-08, 2.8106112992531962e-08, 5.9117894579685526e-08, 4.999544955808233e-08, -4.905675865529702e-08, -2.383222685864439e-08, 8.014222174779206e-09, -2.2226731566377111e-10, -5.6506305412540314e-08, 3.326070796560998e-08, 5.362410249176719e-08, 1.3551781918863526e-08, 1.1172096137102017e-08, -1.9968320330576717e-08, 2.0475059869795587e-08, -9.23146625808613e-09),
    (-0.04111816734075546, -0.0446639247238636, -0.046831175684928894, -0.04655775427818298, -0.04233171045780182, -0.032074619084596634, -0.013045787811279297, 0.018171459436416626, 0.06548567861318588, 0.13272453844547272, 0.21241925656795502, 0.237735778093338, 0.4592278301715851, 0.5826089978218079, 0.677349865436554, 0.7117776870727539, 0.6610963344573975, 0.523439884185791, 0.32931897044181824, 0.13304565846920013, -0.013292142190039158, -0.08590369671583176, -0.09557011723518372, -0.07195229083299637, -0.04224705323576927, -0.020273776724934578, -0.008127202279865742, -0.0027556437999010086, -0.0007967519923113286, -0.0001976037019630894, -4.222799543640576e-05, -7.80383197707124e-06),
    (-0.00794200412929058, -0.0060035474598407745, -0.00231507932767272, 0.003908731509000063, 0.013684785924851894, 0.02825615182518959, 0.049003299325704575, 0.07718633860349655, 0.11338584125041962, 0.1564813256263733, 0.05684807524085045, 0.04224726930260658, 0.2561943233013153, 0.22836729884147644, 0.13962168991565704, -0.01076617743819952, -0.19296324253082275, -0.3472101390361786, -0.41020530462265015, -0.3565405309200287, -0.2206602692604065, -0.07400036603212357, 0.02464655227959156, 0.060391150414943695, 0.053925707936286926, 0.03352312371134758, 0.01624562218785286, 0.006406002212315798, 0.002100904006510973, 0.0005807164707221091, 0.00013651172048412263, 2.7470716304378584e-05),
    (0.0016971910372376442, 0.0036007019225507975, 0.006409063003957272, 0.010413960553705692, 0.015933621674776077, 0.02323547564446926, 0.0323820486664772, 0.042924266308546066, 0.05339536443352699, 0.06059597060084343, -0.01128177810460329, -0.028631873428821564, -0.003453899174928665, -0.07496682554483414, -0.1622042953968048, -0.232234925031662, -0.23972675204277039, -0.15647736191749573, -0.0052679372020065784, 0.14013901352882385, 0.20504242181777954, 0.17220735549926758, 0.08781681209802628, 0.012839321047067642, -0.02335628680884838, -0.027266215533018112, -0.018027765676379204, -0.00875898264348507, -0.00336745148524642, -0.0010592617327347398, -0.0002778112539090216, -6.149052933324128e-05),
    (0.001538117416203022, 0.0023105302825570107, 0.003354558954015374, 0.004710069857537746, 0.006376216188073158, 0.00824314821511507, 0.009983246214687824, 0.01086863037198782, 0.00955190323293209, 0.003912079147994518, -0.01435982808470726, -0.020179571583867073, -0.058098550885915756, -0.08304276317358017, -0.08579622954130173, -0.04617614671587944, 0.03656477481126785, 0.1261824369430542, 0.16298922896385193, 0.11420927196741104, 0.012619257904589176, -0.06960514187812805, -0.08813031762838364, -0.05691692978143692, -0.017036642879247665, 0.005695765838027, 0.010569466277956963, 0.007413438055664301, 0.0035701633896678686, 0.0013239859836176038, 0.00039585292688570917, 9.776574006536976e-05),
    (0.0005137522821314633, 0.0007299055578187108, 0.0009437360567972064, 0.0012148384703323245, 0.0014292893465608358, 0.0015110865933820605, 0.0011755648301914334, 3.8472313462989405e-05, -0.002503722906112671, -0.007008762564510107, -0.004846868570894003, -0.004041656851768494, -0.023037327453494072, -0.014118609949946404, 0.012841407209634781, 0.050931066274642944, 0.07604257017374039, 0.05786748230457306, -0.004414630588144064, -0.06828655302524567, -0.08240383118391037, -0.04206271842122078, 0.009786738082766533, 0.03332328796386719, 0.026506949216127396, 0.010032813996076584, -0.0005691804108209908, -0.00336185609921813, -0.0024879255797713995, -0.0011769203701987863, -0.0004184184654150158, -0.00011847451241919771),
    (0.00010428253881400451, 0.0001554652553750202, 0.0001545949198771268, 0.00016901714843697846, 0.00011045290739275515, -4.124104816582985e-05, -0.00043670294689945877, -0.0011355903698131442, -0.002265189541503787, -0.003641658229753375, -0.00016744478489272296, 0.001393545768223703, 0.0013283881125971675, 0.010671690106391907, 0.02326584979891777, 0.024615636095404625, 0.005283874459564686, -0.029175160452723503, -0.04864170774817467, -0.02992451936006546, 0.011692303232848644, 0.0366881862282753, 0.027637483552098274, 0.003774423850700259, -0.010286248289048672, -0.009924348443746567, -0.004112130030989647, -0.00014299711619969457, 0.0009474441176280379, 0.0007104926626197994, 0.000321714673191309, 0.00010757261043181643),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
# tanhexp = x F, F = tanh(e^x), on [-4, 4), and its derivative the same way: `python tools/fit_table_float32.py
# tanhexp 6 4` and `tanhexp_grad 6 4` (fits 0.024 and 0.054 ULP)
TANHEXP_TABLE = (
    (0.020751358941197395, 0.02664279006421566, 0.034204769879579544, 0.043908681720495224, 0.056356362998485565, 0.07231331616640091, 0.09274716675281525, 0.11886831372976303, 0.15216398239135742, 0.19440551102161407, 0.24758605659008026, 0.3137076199054718, 0.39428356289863586, 0.4893926680088043, 0.5962377786636353, 0.7076680064201355, 0.8120940923690796, 0.8966754674911499, 0.9534348249435425, 0.9836384057998657, 0.9957862496376038, 0.9992662668228149, 0.9999223947525024, 0.9999956488609314, 0.9999998807907104, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),  # c_0's high parts
    (-4.795602248641728e-10, 5.61544033494954e-10, -4.151204935354258e-10, 9.724782090714257e-10, -7.944625513012227e-10, -3.3840141799856838e-09, 3.1889135776452804e-09, 2.7827373738631422e-09, -7.96708199413132e-10, -4.506468531673136e-09, 5.768086452917487e-09, 8.516702010297195e-09, 1.2645740010697182e-09, 4.118423824195361e-09, -1.604545829536619e-08, -1.3458269165766978e-08, -2.729502490694813e-08, -2.0927394928094145e-08, 1.4076306342758471e-08, -1.0649259252204502e-08, -2.7706258620696644e-08, 5.928486590534021e-09, -1.131937921172721e-08, 1.48568988223019e-08, 1.244614722395454e-08, -9.178611204418985e-10, -2.0415891199832004e-12, -6.661338147750939e-16, 0.0, 0.0, 0.0, 0.0),
    (0.020745400339365005, 0.026630179956555367, 0.03417808562517166, 0.043852224946022034, 0.056236959993839264, 0.0720609575510025, 0.09221437573432922, 0.11774542182683945, 0.14980420470237732, 0.18946969509124756, 0.23734082281589508, 0.2927026152610779, 0.3520568609237671, 0.4070635437965393, 0.4429582953453064, 0.44054776430130005, 0.38584068417549133, 0.2851392328739166, 0.16993941366672516, 0.07785672694444656, 0.025904005393385887, 0.005801759194582701, 0.0007883069338276982, 5.6553573813289404e-05, 1.7884186718220008e-06, 1.9787801619486345e-08, 5.7411568554766035e-11, 3.164854242934147e-14, 0.0, 0.0, 0.0, 0.0),
    (0.010363765060901642, 0.013296181336045265, 0.017049042508006096, 0.021841512992978096, 0.027939680963754654, 0.0356530025601387, 0.04531167075037956, 0.05720110610127449, 0.07140640914440155, 0.08748181909322739, 0.10381299257278442, 0.11654072999954224, 0.11816373467445374, 0.09690024703741074, 0.03996020555496216, -0.05485471710562706, -0.1621391922235489, -0.22943872213363647, -0.21773499250411987, -0.1447843760251999, -0.06650175154209137, -0.02002870664000511, -0.003608888480812311, -0.00034048830275423825, -1.4076646948524285e-05, -2.0251194143838802e-07, -7.561636317099385e-10, -5.758923069323907e-13, 0.0, 0.0, 0.0, 0.0),
    (0.003445723559707403, 0.004413335118442774, 0.005642773117870092, 0.00719594256952405, 0.00913485512137413, 0.01150787528604269, 0.014314347878098488, 0.017415961250662804, 0.020378945395350456, 0.0221538208425045, 0.020570820197463036, 0.011725518852472305, -0.01007386390119791, -0.04973212257027626, -0.10305365175008774, -0.1442485749721527, -0.12915337085723877, -0.04035264998674393, 0.06709019094705582, 0.1134064570069313, 0.08664511144161224, 0.038410890847444534, 0.009679686278104782, 0.0012429878115653992, 6.859243876533583e-05, 1.2865490361946286e-06, 5.910489875304847e-09, 3.887409925212859e-12, 0.0, 0.0, 0.0, 0.0),
    (0.0008548490586690605, 0.0010894376318901777, 0.0013802023604512215, 0.0017356362659484148, 0.0021503670141100883, 0.0025961657520383596, 0.0029939233791083097, 0.0031414427794516087, 0.0026158455293625593, 0.0005822920356877148, -0.004396817181259394, -0.014279481023550034, -0.030273130163550377, -0.048605550080537796, -0.05378607660531998, -0.02040991373360157, 0.05461496114730835, 0.11288759112358093, 0.0866415798664093, 0.004219504073262215, -0.04753430187702179, -0.04161320999264717, -0.01637561246752739, -0.003034768858924508, -0.00023276616411749274, -5.9599437918222975e-06, -3.753079269586124e-08, -2.7533305496652005e-11, 0.0, 0.0, 0.0, 0.0),
    (0.0001639516995055601, 0.00020162304281257093, 0.00027105212211608887, 0.00031426336499862373, 0.0003541575570125133, 0.0003868174972012639, 0.0002597884740680456, -5.077446985524148e-05, -0.0008848818833939731, -0.0025659892708063126, -0.005635525565594435, -0.010348150506615639, -0.014640497043728828, -0.01226947270333767, 0.008109071291983128, 0.0465034544467926, 0.06405294686555862, 0.01686905324459076, -0.05395865440368652, -0.06279844045639038, -0.016026729717850685, 0.01848420314490795, 0.01689324527978897, 0.005188428796827793, 0.0006102618062868714, 2.3872840756666847e-05, 2.4388663177887793e-07, 4.670799302886053e-10, 0.0, 0.0, 0.0, 0.0),
    (1.9917742974939756e-05, 1.669688572292216e-05, 6.31874063401483e-05, 4.266541509423405e-05, 3.14508106384892e-05, 4.114762123208493e-05, -0.00011365099635440856, -0.0003011391672771424, -0.0007528489222750068, -0.0014809821732342243, -0.002501641632989049, -0.003428343217819929, -0.0015363050624728203, 0.006432128604501486, 0.021075190976262093, 0.02537306770682335, -0.007988174445927143, -0.050053440034389496, -0.032921113073825836, 0.01961430348455906, 0.03383219614624977, 0.00962973851710558, -0.007985459640622139, -0.005700408481061459, -0.0010750064393505454, -6.05203713348601e-05, -8.417445656050404e-07, -2.506482132957899e-09, -0.0, -0.0, -0.0, -0.0),
)  # fmt: skip
TANHEXP_GRAD_TABLE = (
    (-0.05963706970214844, -0.06989161670207977, -0.08114626258611679, -0.09312951564788818, -0.1053248941898346, -0.11684668809175491, -0.12626196444034576, -0.13134069740772247, -0.12871889770030975, -0.11348274350166321, -0.07875756174325943, 0.3377293646335602, 0.42300498485565186, 0.23497796058654785, 0.43012839555740356, 0.6525995135307312, 0.8603241443634033, 1.0036026239395142, 1.0596469640731812, 1.0517630577087402, 1.0249282121658325, 1.0072437524795532, 1.0012034177780151, 1.0001016855239868, 1.000003695487976, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),  # c_0's high parts
    (5.907522249160024e-10, 1.9763901626390634e-09, -2.3537776172588565e-09, -2.9945661506047827e-09, -2.4930253417210224e-09, -3.2584157594328644e-09, -6.440988187250696e-09, -1.5423193833186133e-09, -4.629296945779515e-09, -2.108420549262746e-09, 3.9031106124909343e-10, -1.3595329306781423e-08, 1.2617002553838574e-08, -6.672908892113583e-10, 2.916266339525464e-09, 9.534602440908202e-09, 9.015094448727723e-09, 3.801780223966489e-08, 1.975446917157342e-09, -3.657357439124098e-08, 1.9182186505872778e-08, -5.1689124092035854e-08, -3.340746346225387e-08, 1.3398657294771965e-08, -3.0847611132145403e-09, 4.595778690941188e-08, 1.4601453379725626e-10, 8.08242361927114e-14, 2.220446049250313e-16, 0.0, 0.0, 0.0),
    (-0.03882838413119316, -0.04313696548342705, -0.046724848449230194, -0.04880500212311745, -0.04817923903465271, -0.043056320399045944, -0.03080168180167675, -0.007613844703882933, 0.03183438628911972, 0.09462349861860275, 0.18919594585895538, 0.3151448369026184, 0.3645746111869812, 0.6930018067359924, 0.8559464812278748, 0.8948091864585876, 0.731146514415741, 0.3981994092464447, 0.06771018356084824, -0.0976591631770134, -0.09782096743583679, -0.04347546026110649, -0.01015226636081934, -0.0011637149145826697, -5.6249078625114635e-05, -9.226980637322413e-07, -3.869979892101583e-09, -2.9845813320772407e-12, 1.187616689713578e-16, 0.0, 0.0, 0.0),
    (-0.008964471518993378, -0.008104626089334488, -0.005988784600049257, -0.0019384229090064764, 0.0050302534364163876, 0.01632869802415371, 0.03394440561532974, 0.06057304888963699, 0.09958795458078384, 0.15444442629814148, 0.22657990455627441, 0.11046840995550156, 0.08021100610494614, 0.38394516706466675, 0.23581694066524506, -0.11047103255987167, -0.5348531007766724, -0.7337163090705872, -0.5274001359939575, -0.13664710521697998, 0.09291698038578033, 0.09834488481283188, 0.03635849431157112, 0.005974562838673592, 0.0003969257522840053, 8.74402485351311e-06, 4.83454307698139e-08, 4.6955103000234644e-11, -1.1268185684662133e-13, 0.0, 0.0, 0.0),
    (0.0005347455153241754, 0.0018605721415951848, 0.003931125625967979, 0.007086319383233786, 0.01180751621723175, 0.01876019686460495, 0.02881377749145031, 0.042956218123435974, 0.06189277768135071, 0.08482269197702408, 0.10645453631877899, -0.014982836320996284, -0.07140040397644043, -0.07742207497358322, -0.33154934644699097, -0.5667802095413208, -0.48928961157798767, 0.0079240957275033, 0.4849315285682678, 0.468379944562912, 0.1326892226934433, -0.07521717995405197, -0.06772522628307343, -0.017791911959648132, -0.0017040855018422008, -5.135657556820661e-05, -3.653160831618152e-07, -3.7649536266393113e-10, -5.1688640618097886e-14, 0.0, 0.0, 0.0),
    (0.001039703842252493, 0.0016516930190846324, 0.002546318806707859, 0.0038443291559815407, 0.005709171760827303, 0.008342493325471878, 0.011934897862374783, 0.016485773026943207, 0.021300029009580612, 0.023775804787874222, 0.017035167664289474, -0.03995322436094284, -0.07382424920797348, -0.20404428243637085, -0.2839493155479431, -0.1311711072921753, 0.31363463401794434, 0.5966762900352478, 0.26222848892211914, -0.25651755928993225, -0.3267628252506256, -0.07802832871675491, 0.05608339235186577, 0.03256688639521599, 0.004919383674860001, 0.0002142460289178416, 2.145340658898931e-06, 3.30087157607295e-09, 1.5503228908975153e-11, 0.0, 0.0, 0.0),
    (0.00038890354335308075, 0.0005731756100431085, 0.0008447630680166185, 0.0012289726873859763, 0.0017642248421907425, 0.0024700851645320654, 0.0032760994508862495, 0.003911902662366629, 0.003429075237363577, -0.00045290845446288586, -0.012431529350578785, -0.023792807012796402, -0.027677664533257484, -0.09731961041688919, 0.002083487343043089, 0.25935599207878113, 0.37735098600387573, -0.011571524664759636, -0.44508278369903564, -0.2729070782661438, 0.13135677576065063, 0.18959319591522217, 0.023660490289330482, -0.03280084580183029, -0.010048426687717438, -0.0007266458123922348, -1.2121944564569276e-05, -3.564164430258643e-08, -1.0238998884859463e-11, 0.0, 0.0, 0.0),
    (8.548043115297332e-05, 0.00012886521290056407, 0.0001953770115505904, 0.00028668247978203, 0.000401543453335762, 0.000516725645866245, 0.0005323830991983414, 0.00021426113380584866, -0.001087347511202097, -0.004618220031261444, -0.012452214024960995, -0.006305853836238384, 0.0036313626915216446, 0.013944484293460846, 0.12689174711704254, 0.18267939984798431, -0.07963444292545319, -0.3781680166721344, -0.10770475119352341, 0.28063830733299255, 0.1829097867012024, -0.08379074931144714, -0.09185763448476791, 0.006223390344530344, 0.012996306642889977, 0.0015958641888573766, 3.8551919715246186e-05, 1.5204886949504726e-07, -4.812606979598399e-10, -0.0, -0.0, -0.0),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
# tanhshrink = x^3 F, F = (x - tanh x) / x^3, and its derivative tanh(x)^2 = x^2 G, G = (tanh(x) / x)^2, on [-4, 4):
# `python tools/fit_table_float32.py tanhshrink 6 4` and `tanhshrink_grad 6 4` (fits 0.0073 and 0.018 ULP)
TANHSHRINK_TABLE = (
    (0.04942569509148598, 0.055136606097221375, 0.06184004247188568, 0.06975827366113663, 0.07916896790266037, 0.0904163047671318, 0.10391942411661148, 0.1201712116599083, 0.13971224427223206, 0.16305086016654968, 0.19047988951206207, 0.2217254489660263, 0.2553945481777191, 0.28835952281951904, 0.31559303402900696, 0.33126309514045715, 0.33126309514045715, 0.31559303402900696, 0.28835952281951904, 0.2553945481777191, 0.2217254489660263, 0.19047988951206207, 0.16305086016654968, 0.13971224427223206, 0.1201712116599083, 0.10391942411661148, 0.0904163047671318, 0.07916896790266037, 0.06975827366113663, 0.06184004247188568, 0.055136606097221375, 0.04942569509148598),  # c_0's high parts
    (2.67893873751035e-10, 6.717597589300794e-10, 1.1450120851463907e-09, -3.1782438902894228e-09, -4.307611767284669e-10, 1.1080443229616321e-09, 2.1938304506363693e-09, -1.7898011961392513e-09, 7.01803060110251e-10, -3.25254911892614e-09, -2.3758288669739613e-09, -3.276718896216835e-10, 2.216287375844672e-09, 1.4439089923712345e-08, 4.651220741891393e-09, -2.201452131700421e-09, -2.201452131700421e-09, 4.651220741891393e-09, 1.4439089923712345e-08, 2.216287375844672e-09, -3.2767186186610786e-10, -2.3758288669739613e-09, -3.25254911892614e-09, 7.018029490879485e-10, -1.7898011961392513e-09, 2.1938304506363693e-09, 1.1080443229616321e-09, -4.307611767284669e-10, -3.1782441123340277e-09, 1.1450120851463907e-09, 6.717597589300794e-10, 2.67893873751035e-10),
    (0.021108241751790047, 0.024696774780750275, 0.029078176245093346, 0.03445199504494667, 0.041062403470277786, 0.049195680767297745, 0.05915934219956398, 0.07122018188238144, 0.08545852452516556, 0.10146848857402802, 0.11781889200210571, 0.13126274943351746, 0.13602520525455475, 0.1242746114730835, 0.08952012658119202, 0.03291567414999008, -0.03291567414999008, -0.08952012658119202, -0.1242746114730835, -0.13602520525455475, -0.13126274943351746, -0.11781889200210571, -0.10146848857402802, -0.08545852452516556, -0.07122018188238144, -0.05915934219956398, -0.049195680767297745, -0.041062403470277786, -0.03445199504494667, -0.029078176245093346, -0.024696774780750275, -0.021108241751790047),
    (0.0064965724013745785, 0.007910508662462234, 0.009681438095867634, 0.011895257979631424, 0.014642397873103619, 0.017995089292526245, 0.02195301279425621, 0.026326656341552734, 0.030509132891893387, 0.033081166446208954, 0.03126689791679382, 0.02057793363928795, -0.0042475624941289425, -0.04515577107667923, -0.09365296363830566, -0.12835295498371124, -0.12835295498371124, -0.09365296363830566, -0.04515577107667923, -0.0042475624941289425, 0.02057793363928795, 0.03126689791679382, 0.033081166446208954, 0.030509132891893387, 0.026326656341552734, 0.02195301279425621, 0.017995089292526245, 0.014642397873103619, 0.011895257979631424, 0.009681438095867634, 0.007910508662462234, 0.0064965724013745785),
    (0.0016815338749438524, 0.002105418127030134, 0.0026365031953901052, 0.0032875279430299997, 0.004054933786392212, 0.004887558054178953, 0.005629303399473429, 0.005907502491027117, 0.004943077452480793, 0.0013097942573949695, -0.00715980539098382, -0.022602083161473274, -0.04421579837799072, -0.06309430301189423, -0.061158452183008194, -0.026143142953515053, 0.026143142953515053, 0.061158452183008194, 0.06309430301189423, 0.04421579837799072, 0.022602083161473274, 0.00715980539098382, -0.0013097942573949695, -0.004943077452480793, -0.005907502491027117, -0.005629303399473429, -0.004887558054178953, -0.004054933786392212, -0.0032875279430299997, -0.0026365031953901052, -0.002105418127030134, -0.0016815338749438524),
    (0.0003764654975384474, 0.0004745037585962564, 0.0005899542011320591, 0.000712428882252425, 0.0008143614395521581, 0.0008260980830527842, 0.0005978501285426319, -0.00016751531802583486, -0.0019959164783358574, -0.005641615018248558, -0.011699112132191658, -0.019151782616972923, -0.022649433463811874, -0.011840700171887875, 0.018262416124343872, 0.048989325761795044, 0.048989325761795044, 0.018262416124343872, -0.011840700171887875, -0.022649433463811874, -0.019151782616972923, -0.011699112132191658, -0.005641615018248558, -0.0019959164783358574, -0.00016751531802583486, 0.0005978501285426319, 0.0008260980830527842, 0.0008143614395521581, 0.0007124289404600859, 0.0005899542011320591, 0.0004745037585962564, 0.0003764654975384474),
    (6.819159898441285e-05, 8.417108620051295e-05, 8.970128692453727e-05, 0.00010468547407072037, 6.764505815226585e-05, -5.210621384321712e-05, -0.00033866151352413, -0.0009568856912665069, -0.00207234057597816, -0.0038540372624993324, -0.005700199399143457, -0.0054111722856760025, 0.0015211408026516438, 0.016891615465283394, 0.02839222364127636, 0.015243803150951862, -0.015243803150951862, -0.02839222364127636, -0.016891615465283394, -0.0015211408026516438, 0.0054111722856760025, 0.005700199399143457, 0.0038540372624993324, 0.00207234057597816, 0.0009568856912665069, 0.00033866151352413, 5.210621384321712e-05, -6.764505815226585e-05, -0.00010468547407072037, -8.970128692453727e-05, -8.417108620051295e-05, -6.819159898441285e-05),
    (6.975933956709923e-06, 1.0574972293397877e-05, -1.8513866280045477e-06, 1.9178226011717925e-06, -3.4509484976297244e-05, -0.00010927273979177698, -0.00026569332112558186, -0.00055370491463691, -0.0009558441815897822, -0.0013502700021490455, -0.0008825999684631824, 0.0018533871043473482, 0.007752265315502882, 0.01141887903213501, 0.0011327015236020088, -0.017971836030483246, -0.017971836030483246, 0.0011327015236020088, 0.01141887903213501, 0.007752265315502882, 0.0018533871043473482, -0.0008825999684631824, -0.0013502700021490455, -0.0009558441233821213, -0.00055370491463691, -0.00026569332112558186, -0.00010927273979177698, -3.4509484976297244e-05, 1.9138392417517025e-06, -1.8513866280045477e-06, 1.0574972293397877e-05, 6.975933956709923e-06),
)  # fmt: skip
TANHSHRINK_GRAD_TABLE = (
    (0.06648264825344086, 0.07588401436805725, 0.0873812809586525, 0.10161232948303223, 0.11945249885320663, 0.14211025834083557, 0.17125484347343445, 0.20917074382305145, 0.25890201330184937, 0.3242662847042084, 0.40943869948387146, 0.5175057649612427, 0.647161602973938, 0.7874069809913635, 0.913209080696106, 0.9896748065948486, 0.9896748065948486, 0.913209080696106, 0.7874069809913635, 0.647161602973938, 0.5175057649612427, 0.40943869948387146, 0.3242662847042084, 0.25890201330184937, 0.20917074382305145, 0.17125484347343445, 0.14211025834083557, 0.11945249885320663, 0.10161232948303223, 0.0873812809586525, 0.07588401436805725, 0.06648264825344086),  # c_0's high parts
    (-1.3240672447345503e-10, -3.300697271058084e-09, 2.3297508366937336e-09, 5.596098584526032e-10, -3.4525879932800763e-09, -4.071382952997027e-10, -1.763997281578611e-11, -1.2910401636645474e-09, -9.116077670512368e-09, -8.087669201017889e-09, -1.047010389498837e-08, -9.117119503798676e-09, -3.920566982174023e-09, 2.3207402666258758e-10, -1.438433905320835e-08, 1.2535781301892257e-08, 1.2535781301892257e-08, -1.438433905320835e-08, 2.3207402666258758e-10, -3.920566982174023e-09, -9.117119503798676e-09, -1.047010478316679e-08, -8.087669201017889e-09, -9.116077670512368e-09, -1.2910401636645474e-09, -1.7639945060210493e-11, -4.0713823978855146e-10, -3.4525879932800763e-09, 5.59609802941452e-10, 2.3297508366937336e-09, -3.300697049013479e-09, -1.3240675222903064e-10),
    (0.03408452868461609, 0.04143591225147247, 0.05096299573779106, 0.06346262246370316, 0.08005582541227341, 0.10230851173400879, 0.1323605626821518, 0.17299243807792664, 0.22742484509944916, 0.2983601689338684, 0.38529160618782043, 0.47875064611434937, 0.5515340566635132, 0.5535431504249573, 0.4283201992511749, 0.16375091671943665, -0.16375091671943665, -0.4283201992511749, -0.5535431504249573, -0.5515340566635132, -0.47875064611434937, -0.38529160618782043, -0.2983601689338684, -0.22742484509944916, -0.17299243807792664, -0.1323605626821518, -0.10230851173400879, -0.08005582541227341, -0.06346262246370316, -0.05096299573779106, -0.04143591225147247, -0.03408452868461609),
    (0.012935749255120754, 0.016656525433063507, 0.021714286878705025, 0.028653813526034355, 0.03823639079928398, 0.05148456245660782, 0.06965500116348267, 0.09397346526384354, 0.12473933398723602, 0.15902079641819, 0.18586575984954834, 0.1791687160730362, 0.0948258712887764, -0.10747784376144409, -0.399458646774292, -0.6319604516029358, -0.6319604516029358, -0.399458646774292, -0.10747784376144409, 0.0948258712887764, 0.1791687160730362, 0.18586575984954834, 0.15902079641819, 0.12473933398723602, 0.09397346526384354, 0.06965500116348267, 0.05148456245660782, 0.03823639079928398, 0.028653813526034355, 0.021714286878705025, 0.016656525433063507, 0.012935749255120754),
    (0.004254813771694899, 0.005751783959567547, 0.007855714298784733, 0.010817699134349823, 0.014963706023991108, 0.02064870297908783, 0.02809453196823597, 0.03686869889497757, 0.04462829604744911, 0.04452888295054436, 0.021383509039878845, -0.0494295135140419, -0.1860227882862091, -0.34896185994148254, -0.3943353295326233, -0.18134672939777374, 0.18134672939777374, 0.3943353295326233, 0.34896185994148254, 0.1860227882862091, 0.0494295135140419, -0.021383509039878845, -0.04452888295054436, -0.04462829604744911, -0.03686869889497757, -0.02809453196823597, -0.02064870297908783, -0.014963706023991108, -0.010817699134349823, -0.007855714298784733, -0.005751783959567547, -0.004254813771694899),
    (0.0012591872364282608, 0.0017650496447458863, 0.0024849441833794117, 0.003493904136121273, 0.004858894739300013, 0.006556848529726267, 0.008279615081846714, 0.008918585255742073, 0.00553256506100297, -0.008211752399802208, -0.04239022731781006, -0.10314294695854187, -0.16469934582710266, -0.1356532722711563, 0.07403147220611572, 0.33325767517089844, 0.33325767517089844, 0.07403147220611572, -0.1356532722711563, -0.16469934582710266, -0.10314294695854187, -0.04239022731781006, -0.008211752399802208, 0.00553256506100297, 0.008918585255742073, 0.008279615081846714, 0.006556848529726267, 0.004858894739300013, 0.003493904136121273, 0.0024849441833794117, 0.0017650496447458863, 0.0012591872364282608),
    (0.0003289252636022866, 0.0004714434326160699, 0.0006759603857062757, 0.000949409615714103, 0.0012105152709409595, 0.0014719270402565598, 0.0011896311771124601, -0.0005785835674032569, -0.0058223167434334755, -0.017681961879134178, -0.03813869506120682, -0.05578704923391342, -0.028449106961488724, 0.09219739586114883, 0.22404637932777405, 0.13498316705226898, -0.13498316705226898, -0.22404637932777405, -0.09219739586114883, 0.028449106961488724, 0.05578704923391342, 0.03813869506120682, 0.017681961879134178, 0.0058223167434334755, 0.0005785835674032569, -0.0011896311771124601, -0.0014719270402565598, -0.0012105152709409595, -0.000949409615714103, -0.0006759603857062757, -0.0004714434326160699, -0.0003289252636022866),
    (7.222261774586514e-05, 0.00010472174471942708, 0.00015195836022030562, 0.00020561600103974342, 0.00016619446978438646, 9.87332095974125e-05, -0.0004623571294359863, -0.002050915965810418, -0.005403060466051102, -0.010708346962928772, -0.015244290232658386, -0.0035782691556960344, 0.04674101248383522, 0.10623982548713684, 0.037910718470811844, -0.15448066592216492, -0.15448066592216492, 0.037910718470811844, 0.10623982548713684, 0.04674101248383522, -0.0035782691556960344, -0.015244290232658386, -0.010708346962928772, -0.005403060466051102, -0.002050915965810418, -0.0004623571294359863, 9.873318776953965e-05, 0.00016619446978438646, 0.00020561601559165865, 0.00015195836022030562, 0.00010472166468389332, 7.222263229778036e-05),
)  # fmt: skip
# lisht = x^2 F, F = tanh(x) / x, and its derivative x G, G = tanh(x) / x + sech(x)^2, on [-4, 4): `python
# tools/fit_table_float32.py lisht 6 4` and `lisht_grad 6 4` (fits 0.0094 and 0.018 ULP)
LISHT_TABLE = (
    (0.2578423023223877, 0.2754705250263214, 0.2956032454967499, 0.31876689195632935, 0.34561899304389954, 0.3769751489162445, 0.4138294756412506, 0.4573518931865692, 0.5088241100311279, 0.5694438219070435, 0.6398739814758301, 0.7193787097930908, 0.8044635653495789, 0.8873595595359802, 0.955619752407074, 0.9948239922523499, 0.9948239922523499, 0.955619752407074, 0.8873595595359802, 0.8044635653495789, 0.7193787097930908, 0.6398739814758301, 0.5694438219070435, 0.5088241100311279, 0.4573518931865692, 0.4138294756412506, 0.3769751489162445, 0.34561899304389954, 0.31876689195632935, 0.2956032454967499, 0.2754705250263214, 0.2578423023223877),  # c_0's high parts
    (-9.203070305829897e-09, 1.6500374400152396e-09, 7.679513913672054e-09, -2.1408612660422932e-09, 1.0196100852510881e-08, -6.587553169623561e-09, 1.0326084876055575e-08, -1.2756824929738286e-08, 2.8731250267810537e-08, 9.05369379466947e-09, -1.809255145701627e-08, 1.9276674478874156e-08, -1.798935933550183e-08, -3.7726635149226695e-09, -2.3473326393741445e-08, 2.191150905161976e-08, 2.191150905161976e-08, -2.3473326393741445e-08, -3.77266307083346e-09, -1.798935933550183e-08, 1.9276674478874156e-08, -1.809255145701627e-08, 9.05369379466947e-09, 2.8731250267810537e-08, -1.2756824041559867e-08, 1.0326084876055575e-08, -6.587553169623561e-09, 1.01961017406893e-08, -2.1408612660422932e-09, 7.679513913672054e-09, 1.6500374400152396e-09, -9.203070305829897e-09),
    (0.06609569489955902, 0.07520934194326401, 0.08620168268680573, 0.09954393655061722, 0.11581514030694962, 0.1356966197490692, 0.15992161631584167, 0.1891240030527115, 0.22348079085350037, 0.2619750499725342, 0.30106836557388306, 0.33275285363197327, 0.3427961766719818, 0.311904639005661, 0.22410599887371063, 0.08230146020650864, -0.08230146020650864, -0.22410599887371063, -0.311904639005661, -0.3427961766719818, -0.33275285363197327, -0.30106836557388306, -0.2619750499725342, -0.22348079085350037, -0.1891240030527115, -0.15992161631584167, -0.1356966197490692, -0.11581514030694962, -0.09954393655061722, -0.08620168268680573, -0.07520934194326401, -0.06609569489955902),
    (0.016613082960247993, 0.019965987652540207, 0.02416001260280609, 0.029402077198028564, 0.035911284387111664, 0.04386360943317413, 0.0532587394118309, 0.0636332556605339, 0.07349854707717896, 0.0793667659163475, 0.07440809905529022, 0.04757178947329521, -0.014098407700657845, -0.11537732183933258, -0.2352829873561859, -0.3210286498069763, -0.3210286498069763, -0.2352829873561859, -0.11537732183933258, -0.014098407700657845, 0.04757178947329521, 0.07440809905529022, 0.0793667659163475, 0.07349854707717896, 0.0636332556605339, 0.0532587394118309, 0.04386360943317413, 0.035911284387111664, 0.029402077198028564, 0.02416001260280609, 0.019965987652540207, 0.016613082960247993),
    (0.0039912378415465355, 0.004988113418221474, 0.006242262665182352, 0.007786535657942295, 0.009613622911274433, 0.011599930934607983, 0.013363580219447613, 0.013993261381983757, 0.011573426425457, 0.0025882027111947536, -0.01830265298485756, -0.056360211223363876, -0.10960956662893295, -0.15607023239135742, -0.15115338563919067, -0.06459174305200577, 0.06459174305200577, 0.15115338563919067, 0.15607023239135742, 0.10960956662893295, 0.056360211223363876, 0.01830265298485756, -0.0025882027111947536, -0.011573426425457, -0.013993261381983757, -0.013363580219447613, -0.011599930934607983, -0.009613622911274433, -0.007786535657942295, -0.006242262665182352, -0.004988113418221474, -0.0039912378415465355),
    (0.0008825050899758935, 0.0011175571708008647, 0.0013955767499282956, 0.0016930530546233058, 0.001941900234669447, 0.0019716424867510796, 0.0014132884098216891, -0.00046334502985700965, -0.004954854492098093, -0.013925173319876194, -0.028840284794569016, -0.04719335585832596, -0.05578700453042984, -0.029081067070364952, 0.04521460458636284, 0.12104759365320206, 0.12104759365320206, 0.04521460458636284, -0.029081067070364952, -0.05578700453042984, -0.04719335585832596, -0.028840284794569016, -0.013925173319876194, -0.004954854492098093, -0.0004633450589608401, 0.0014132884098216891, 0.0019716424867510796, 0.0019419001182541251, 0.0016930530546233058, 0.0013955767499282956, 0.0011175571708008647, 0.0008825050899758935),
    (0.00019700557459145784, 0.00021894897508900613, 0.00022379012079909444, 0.00023570538905914873, 0.00011863771942444146, -0.00018804435967467725, -0.000845210044644773, -0.0023788076359778643, -0.0052012051455676556, -0.009549420326948166, -0.013984568417072296, -0.013309072703123093, 0.003802258288487792, 0.041517600417137146, 0.07010160386562347, 0.03763690963387489, -0.03763690963387489, -0.07010160386562347, -0.041517600417137146, -0.003802258288487792, 0.013309072703123093, 0.013984568417072296, 0.009549420326948166, 0.0052012051455676556, 0.0023788076359778643, 0.000845210044644773, 0.00018804435967467725, -0.00011863771942444146, -0.00023570538905914873, -0.00022379012079909444, -0.00021894897508900613, -0.00019700557459145784),
    (4.480047573451884e-05, 3.663501047412865e-05, 1.0093935088661965e-05, -1.3801022760162596e-05, -0.00012317602522671223, -0.0003191403520759195, -0.0006742093246430159, -0.0013903963845223188, -0.0024370928294956684, -0.0033734056632965803, -0.00217618839815259, 0.004587139934301376, 0.019146936014294624, 0.028033507987856865, 0.002910663140937686, -0.04439409077167511, -0.04439409077167511, 0.002910663140937686, 0.028033507987856865, 0.019146936014294624, 0.004587139934301376, -0.00217618839815259, -0.0033734056632965803, -0.0024370928294956684, -0.0013903947547078133, -0.0006742093246430159, -0.0003191403520759195, -0.00012316822540014982, -1.3801023669657297e-05, 1.0093935998156667e-05, 3.6635014112107456e-05, 4.480047573451884e-05),
)  # fmt: skip
LISHT_GRAD_TABLE = (
    (0.25956377387046814, 0.2783071994781494, 0.3002758324146271, 0.32645899057388306, 0.35826948285102844, 0.39774665236473083, 0.44784513115882874, 0.5128152370452881, 0.5986217856407166, 0.7131782174110413, 0.865778923034668, 1.0644104480743408, 1.3089804649353027, 1.5797786712646484, 1.8271996974945068, 1.9793603420257568, 1.9793603420257568, 1.8271996974945068, 1.5797786712646484, 1.3089804649353027, 1.0644104480743408, 0.865778923034668, 0.7131782174110413, 0.5986217856407166, 0.5128152370452881, 0.44784513115882874, 0.39774665236473083, 0.35826948285102844, 0.32645899057388306, 0.3002758324146271, 0.2783071994781494, 0.25956377387046814),  # c_0's high parts
    (6.056551704602953e-09, -5.733678865027514e-09, -9.195162853359307e-09, -1.1330925531183311e-08, -1.1906720054355446e-08, -6.110809636084014e-09, 3.439130535909385e-09, 9.134251577336272e-09, -5.352584597773102e-09, -2.3154395734081845e-08, 1.892251333401873e-08, 5.87776014526753e-08, -1.677382854836651e-08, 3.252577229773124e-08, 6.449924150331299e-09, 2.998851389435231e-09, 2.9988520555690457e-09, 6.4499245944205086e-09, 3.252577229773124e-08, -1.677382854836651e-08, 5.87776014526753e-08, 1.892251333401873e-08, -2.3154395734081845e-08, -5.352584597773102e-09, 9.134251577336272e-09, 3.439130535909385e-09, -6.110809636084014e-09, -1.1906720054355446e-08, -1.1330925531183311e-08, -9.195163741537726e-09, -5.733678865027514e-09, 6.056551704602953e-09),
    (0.06953570246696472, 0.08087462186813354, 0.09552496671676636, 0.11486883461475372, 0.14095553755760193, 0.17680591344833374, 0.2267858386039734, 0.2969306707382202, 0.3948228359222412, 0.5279831290245056, 0.6985828280448914, 0.8912220597267151, 1.05306077003479, 1.0799355506896973, 0.8487802147865295, 0.3271614909172058, -0.3271614909172058, -0.8487802147865295, -1.0799355506896973, -1.05306077003479, -0.8912220597267151, -0.6985828280448914, -0.5279831290245056, -0.3948228359222412, -0.2969306707382202, -0.2267858386039734, -0.17680591344833374, -0.14095553755760193, -0.11486883461475372, -0.09552496671676636, -0.08087462186813354, -0.06953570246696472),
    (0.02004716545343399, 0.025615179911255836, 0.03343965485692024, 0.04460875317454338, 0.06073211878538132, 0.0841122567653656, 0.11781884729862213, 0.16533143818378448, 0.22890299558639526, 0.3048567771911621, 0.37311890721321106, 0.3804945945739746, 0.2313234508037567, -0.16887201368808746, -0.7710779905319214, -1.259891152381897, -1.259891152381897, -0.7710779905319214, -0.16887201368808746, 0.2313234508037567, 0.3804945945739746, 0.37311890721321106, 0.3048567771911621, 0.22890299558639526, 0.16533143818378448, 0.11781884729862213, 0.0841122567653656, 0.06073211878538132, 0.04460875317454338, 0.03343965485692024, 0.025615179911255836, 0.02004716545343399),
    (0.0062729851342737675, 0.008733191527426243, 0.012370150536298752, 0.01776701770722866, 0.025736665353178978, 0.03729724511504173, 0.05339096486568451, 0.07390590012073517, 0.09502649307250977, 0.10346350818872452, 0.0671066865324974, -0.06943672895431519, -0.35280048847198486, -0.7076482176780701, -0.8235776424407959, -0.38346344232559204, 0.38346344232559204, 0.8235776424407959, 0.7076482176780701, 0.35280048847198486, 0.06943672895431519, -0.0671066865324974, -0.10346350818872452, -0.09502649307250977, -0.07390590012073517, -0.05339096486568451, -0.03729724511504173, -0.025736665353178978, -0.01776701770722866, -0.012370150536298752, -0.008733191527426243, -0.0062729851342737675),
    (0.0020154875237494707, 0.002968905959278345, 0.004401770886033773, 0.006527184043079615, 0.009585048072040081, 0.013705750927329063, 0.018501240760087967, 0.021983468905091286, 0.01820974610745907, -0.006549259182065725, -0.07576556503772736, -0.20704230666160583, -0.3500346839427948, -0.304767906665802, 0.13850858807563782, 0.7024067044258118, 0.7024067044258118, 0.13850858807563782, -0.304767906665802, -0.3500346839427948, -0.20704230666160583, -0.07576556503772736, -0.006549259182065725, 0.01820974610745907, 0.021983468905091286, 0.018501240760087967, 0.013705750927329063, 0.009585048072040081, 0.006527184043079615, 0.004401770886033773, 0.002968905959278345, 0.0020154875237494707),
    (0.0006330290343612432, 0.0009266831912100315, 0.0014049786841496825, 0.0020639977883547544, 0.002900374121963978, 0.0036861510016024113, 0.0037370361387729645, 0.0009858162375167012, -0.008947653695940971, -0.03446613624691963, -0.07982403039932251, -0.12383398413658142, -0.07349836081266403, 0.18564653396606445, 0.4833453595638275, 0.295500785112381, -0.295500785112381, -0.4833453595638275, -0.18564653396606445, 0.07349836081266403, 0.12383398413658142, 0.07982403039932251, 0.03446613624691963, 0.008947653695940971, -0.0009858162375167012, -0.0037370361387729645, -0.0036861510016024113, -0.002900374121963978, -0.0020639977883547544, -0.0014049786841496825, -0.0009266831912100315, -0.0006330290343612432),
    (0.00018437125254422426, 0.00025082004140131176, 0.00037482858169823885, 0.0005247805383987725, 0.0005929270992055535, 0.0004478298360481858, -0.0005143263842910528, -0.0035278890281915665, -0.010626845061779022, -0.023896172642707825, -0.03520972281694412, -0.012996683828532696, 0.09657882153987885, 0.23340921103954315, 0.09101669490337372, -0.3362220227718353, -0.3362220227718353, 0.09101669490337372, 0.23340921103954315, 0.09657882153987885, -0.012996683828532696, -0.03520972281694412, -0.023896172642707825, -0.010626845061779022, -0.0035278890281915665, -0.0005143263842910528, 0.0004478298360481858, 0.0005929270992055535, 0.0005247805383987725, 0.0003748289018403739, 0.00025082004140131176, 0.00018437125254422426),
)  # fmt: skip
# lecun_tanh's forward on [-8, 8) (tanh(B x) saturates slowly: 4.6% of N(0, 4)'s values lie beyond 4), A tanh(B x) /
# x (lecun_tanh(x) = x F, A B at 0), and its derivative A B sech^2(B x) on [-4, 4): `python
# tools/fit_table_float32.py lecun_tanh 6 8` and `lecun_tanh_grad 6 4` (fits 0.023 and 0.026 ULP; the derivative's
# on [-8, 8) fits to 0.21, 0.70 ULP evaluated)
LECUN_TANH_TABLE = (
    (0.22139205038547516, 0.2366458773612976, 0.25414466857910156, 0.27441203594207764, 0.2981381118297577, 0.3262425661087036, 0.3599611818790436, 0.4009574055671692, 0.45144838094711304, 0.5142908692359924, 0.5928597450256348, 0.6902861595153809, 0.8071600198745728, 0.9365544319152832, 1.0572624206542969, 1.1334577798843384, 1.1334577798843384, 1.0572624206542969, 0.9365544319152832, 0.8071600198745728, 0.6902861595153809, 0.5928597450256348, 0.5142908692359924, 0.45144838094711304, 0.4009574055671692, 0.3599611818790436, 0.3262425661087036, 0.2981381118297577, 0.27441203594207764, 0.25414466857910156, 0.2366458773612976, 0.22139205038547516),
    (-3.216370503267285e-09, -5.291604932011751e-09, 3.1978109049646264e-09, 1.1780159958618697e-08, -1.337601496231855e-08, -3.3446885261412262e-09, -8.316624722226607e-09, 1.4814654392125703e-08, 1.2171885721556919e-08, 2.241185192985995e-08, 1.9564767583801768e-08, 1.3116997266138242e-08, -2.6855085266674905e-08, -2.716923575007968e-08, 1.955845085888086e-08, -4.182611590408669e-08, -4.182611590408669e-08, 1.955845085888086e-08, -2.716923575007968e-08, -2.6855085266674905e-08, 1.3116997266138242e-08, 1.9564767583801768e-08, 2.241185192985995e-08, 1.2171885721556919e-08, 1.4814654392125703e-08, -8.316624722226607e-09, -3.3446885261412262e-09, -1.337601496231855e-08, 1.1780159958618697e-08, 3.1978109049646264e-09, -5.291604932011751e-09, -3.216370503267285e-09),
    (0.028547510504722595, 0.032600827515125275, 0.03756742551922798, 0.043730031698942184, 0.051477886736392975, 0.061348121613264084, 0.07407642155885696, 0.09064404666423798, 0.11227431148290634, 0.1402418166399002, 0.17514720559120178, 0.21491992473602295, 0.25052785873413086, 0.26008039712905884, 0.21015819907188416, 0.08288402855396271, -0.08288402855396271, -0.21015819907188416, -0.26008039712905884, -0.25052785873413086, -0.21491992473602295, -0.17514720559120178, -0.1402418166399002, -0.11227431148290634, -0.09064404666423798, -0.07407642155885696, -0.061348121613264084, -0.051477886736392975, -0.043730031698942184, -0.03756742551922798, -0.032600827515125275, -0.028547510504722595),
    (0.003670747159048915, 0.004470013547688723, 0.005509800277650356, 0.006879598367959261, 0.00870476383715868, 0.011157440021634102, 0.014462479390203953, 0.01887909509241581, 0.024604253470897675, 0.03146122023463249, 0.038074981421232224, 0.04008028283715248, 0.027522986754775047, -0.014427260495722294, -0.08933646231889725, -0.15848447382450104, -0.15848447382450104, -0.08933646231889725, -0.014427260495722294, 0.027522986754775047, 0.04008028283715248, 0.038074981421232224, 0.03146122023463249, 0.024604253470897675, 0.01887909509241581, 0.014462479390203953, 0.011157440021634102, 0.00870476383715868, 0.006879598367959261, 0.005509800277650356, 0.004470013547688723, 0.003670747159048915),
    (0.0004679531557485461, 0.0006046232301741838, 0.0007914921152405441, 0.0010487884283065796, 0.0014039534144103527, 0.001891403691843152, 0.002544809365645051, 0.0033686149399727583, 0.004253372550010681, 0.004755651578307152, 0.003610801650211215, -0.0020298806484788656, -0.016519347205758095, -0.04027354717254639, -0.05525433272123337, -0.02848115935921669, 0.02848115935921669, 0.05525433272123337, 0.04027354717254639, 0.016519347205758095, 0.0020298806484788656, -0.003610801650211215, -0.004755651578307152, -0.004253372550010681, -0.0033686149399727583, -0.002544809365645051, -0.001891403691843152, -0.0014039534144103527, -0.0010487884283065796, -0.0007914921152405441, -0.0006046232301741838, -0.0004679531557485461),
    (5.8479723520576954e-05, 7.943147647893056e-05, 0.00010900628694798797, 0.00015050932415761054, 0.00020765559747815132, 0.0002829213917721063, 0.0003715102793648839, 0.0004447137762326747, 0.00040680484380573034, -2.95009590445261e-06, -0.0013752342201769352, -0.004663052037358284, -0.010004143230617046, -0.012322001159191132, 0.0007467460236512125, 0.0253022238612175, 0.0253022238612175, 0.0007467460236512125, -0.012322001159191132, -0.010004143230617046, -0.004663052037358284, -0.0013752342201769352, -2.95009590445261e-06, 0.00040680484380573034, 0.0004447137762326747, 0.0003715102793648839, 0.0002829213917721063, 0.00020765559747815132, 0.00015050932415761054, 0.00010900628694798797, 7.943147647893056e-05, 5.8479723520576954e-05),
    (7.072859716572566e-06, 1.091875947167864e-05, 1.4097268831392284e-05, 1.8410324628348462e-05, 2.5782852389966138e-05, 3.4095824958058074e-05, 3.7129408156033605e-05, 1.849394539021887e-05, -6.354267679853365e-05, -0.0003032413078472018, -0.0008655803976580501, -0.0018006538739427924, -0.0021306495182216167, 0.0013635685900226235, 0.009091720916330814, 0.007140167523175478, -0.007140167523175478, -0.009091720916330814, -0.0013635685900226235, 0.0021306495182216167, 0.0018006538739427924, 0.0008655803976580501, 0.0003032413078472018, 6.354267679853365e-05, -1.849394539021887e-05, -3.7129408156033605e-05, -3.4095824958058074e-05, -2.5782852389966138e-05, -1.8410324628348462e-05, -1.4097268831392284e-05, -1.091875947167864e-05, -7.072859716572566e-06),
    (8.577000016884995e-07, 1.4872213114358601e-06, 1.662637487243046e-06, 1.7362881408189423e-06, 2.235622787338798e-06, 2.0082736682525137e-06, -8.996115070658561e-07, -1.2189591870992444e-05, -4.541068119578995e-05, -0.00012198395415907726, -0.00025650503812357783, -0.0003211847215425223, 0.0002910437760874629, 0.002173038199543953, 0.0020730828400701284, -0.003777692560106516, -0.003777692560106516, 0.0020730828400701284, 0.002173038199543953, 0.0002910437760874629, -0.0003211847215425223, -0.00025650503812357783, -0.00012198395415907726, -4.541068119578995e-05, -1.2189591870992444e-05, -8.996115070658561e-07, 2.0082736682525137e-06, 2.235622787338798e-06, 1.7362880271321046e-06, 1.662637487243046e-06, 1.4872213114358601e-06, 8.577000016884995e-07),
)  # fmt: skip
LECUN_TANH_GRAD_TABLE = (
    (0.025802744552493095, 0.03584958612918854, 0.049720969051122665, 0.06879188865423203, 0.09485749155282974, 0.13019345700740814, 0.17755770683288574, 0.24005916714668274, 0.32077592611312866, 0.42197170853614807, 0.5437862277030945, 0.6824544072151184, 0.8285358548164368, 0.9662467837333679, 1.0753142833709717, 1.1360260248184204, 1.1360260248184204, 1.0753142833709717, 0.9662467837333679, 0.8285358548164368, 0.6824544072151184, 0.5437862277030945, 0.42197170853614807, 0.32077592611312866, 0.24005916714668274, 0.17755770683288574, 0.13019345700740814, 0.09485749155282974, 0.06879188865423203, 0.049720969051122665, 0.03584958612918854, 0.025802744552493095),
    (8.946323681868762e-10, 1.4079943877476353e-09, 4.964336164370309e-10, -3.061878750543201e-09, 3.3438414259734373e-09, -7.2072769974340645e-09, -6.065342006422725e-09, 9.453462457287287e-10, -1.3526946673891871e-08, -9.61244417396756e-09, 2.8271010421576648e-08, -1.4923758229201667e-08, 1.8627945408411506e-08, 1.91415434613873e-08, 3.600204223630499e-08, -3.9484035596615286e-08, -3.9484035596615286e-08, 3.600204223630499e-08, 1.91415434613873e-08, 1.8627945408411506e-08, -1.4923758229201667e-08, 2.8271010421576648e-08, -9.61244417396756e-09, -1.3526946673891871e-08, 9.453463567510312e-10, -6.065342006422725e-09, -7.2072769974340645e-09, 3.3438414259734373e-09, -3.061878750543201e-09, 4.964336164370309e-10, 1.4079942767253328e-09, 8.946323681868762e-10),
    (0.03401343896985054, 0.04704449698328972, 0.06483787298202515, 0.08892183005809784, 0.12111933529376984, 0.16341456770896912, 0.21759597957134247, 0.28451859951019287, 0.36281195282936096, 0.4469704031944275, 0.5251646041870117, 0.5779469013214111, 0.5800678730010986, 0.507754385471344, 0.3511527180671692, 0.1259337216615677, -0.1259337216615677, -0.3511527180671692, -0.507754385471344, -0.5800678730010986, -0.5779469013214111, -0.5251646041870117, -0.4469704031944275, -0.36281195282936096, -0.28451859951019287, -0.21759597957134247, -0.16341456770896912, -0.12111933529376984, -0.08892183005809784, -0.06483787298202515, -0.04704449698328972, -0.03401343896985054),
    (0.02215975522994995, 0.030368316918611526, 0.04131491854786873, 0.055632490664720535, 0.07383005321025848, 0.09597071260213852, 0.12108246982097626, 0.1462160348892212, 0.1652003824710846, 0.16754458844661713, 0.13870269060134888, 0.06376927345991135, -0.06365381926298141, -0.22932760417461395, -0.39191362261772156, -0.49443018436431885, -0.49443018436431885, -0.39191362261772156, -0.22932760417461395, -0.06365381926298141, 0.06376927345991135, 0.13870269060134888, 0.16754458844661713, 0.1652003824710846, 0.1462160348892212, 0.12108246982097626, 0.09597071260213852, 0.07383005321025848, 0.055632490664720535, 0.04131491854786873, 0.030368316918611526, 0.02215975522994995),
    (0.009396365843713284, 0.012628723867237568, 0.016706719994544983, 0.021594082936644554, 0.02695935219526291, 0.031888000667095184, 0.0344521664083004, 0.031228629872202873, 0.01706450805068016, -0.014123144559562206, -0.06630145013332367, -0.13523709774017334, -0.20158769190311432, -0.23077960312366486, -0.18936322629451752, -0.07385062426328659, 0.07385062426328659, 0.18936322629451752, 0.23077960312366486, 0.20158769190311432, 0.13523709774017334, 0.06630145013332367, 0.014123144559562206, -0.01706450805068016, -0.031228629872202873, -0.0344521664083004, -0.031888000667095184, -0.02695935219526291, -0.021594082936644554, -0.016706719994544983, -0.012628723867237568, -0.009396365843713284),
    (0.0028368348721414804, 0.0036464864388108253, 0.004507618490606546, 0.005219319835305214, 0.005365894176065922, 0.004178287927061319, 0.0003889434738084674, -0.007700327318161726, -0.021689390763640404, -0.04145708680152893, -0.06232866644859314, -0.07233947515487671, -0.05431133508682251, 0.002038793871179223, 0.08172077685594559, 0.1418967992067337, 0.1418967992067337, 0.08172077685594559, 0.002038793871179223, -0.05431133508682251, -0.07233947515487671, -0.06232866644859314, -0.04145708680152893, -0.021689390763640404, -0.007700327318161726, 0.0003889434738084674, 0.004178287927061319, 0.005365894176065922, 0.005219319835305214, 0.004507618490606546, 0.0036464864388108253, 0.0028368348721414804),
    (0.0005901586846448481, 0.00067775824572891, 0.0006406576721929014, 0.0004104602849110961, -0.00027514059911482036, -0.0018394390353932977, -0.004566476214677095, -0.008680040016770363, -0.01364640612155199, -0.017233317717909813, -0.01442570611834526, 0.0008282639901153743, 0.029901256784796715, 0.05817004665732384, 0.062260694801807404, 0.027225855737924576, -0.027225855737924576, -0.062260694801807404, -0.05817004665732384, -0.029901256784796715, -0.0008282639901153743, 0.01442570611834526, 0.017233317717909813, 0.01364640612155199, 0.008680040016770363, 0.004566476214677095, 0.0018394390353932977, 0.00027514059911482036, -0.0004104602849110961, -0.0006406576721929014, -0.00067775824572891, -0.0005901586846448481),
    (3.2311461836798117e-05, 1.368007178825792e-05, -0.0001445519446860999, -0.00030492176301777363, -0.0006420206045731902, -0.0014779383782297373, -0.0023678361903876066, -0.0032505930867046118, -0.003107488388195634, -0.0009028463973663747, 0.005332202184945345, 0.01477812696248293, 0.021868756040930748, 0.013616160489618778, -0.01044660247862339, -0.034007348120212555, -0.034007348120212555, -0.01044660247862339, 0.013616160489618778, 0.021868756040930748, 0.01477812696248293, 0.005332202184945345, -0.0009028463973663747, -0.003107488388195634, -0.0032505933195352554, -0.0023678361903876066, -0.0014779383782297373, -0.0006420206045731902, -0.00030492176301777363, -0.0001445519446860999, 1.3680111806024797e-05, 3.2311461836798117e-05),
)  # fmt: skip
# log_sigmoid on [-8, 8): log sigma(x) = -softplus(-x), negative throughout: `python tools/fit_table_float32.py
# log_sigmoid 6 8` (fit 0.038 ULP)
LOG_SIGMOID_TABLE = (
    (-7.750430583953857, -7.2507100105285645, -6.7511701583862305, -6.251928806304932, -5.753177642822266, -5.2552337646484375, -4.758614540100098, -4.264163494110107, -3.7732455730438232, -3.288041353225708, -2.811967611312866, -2.3502066135406494, -1.910224199295044, -1.5019290447235107, -1.1368709802627563, -0.825939416885376, -0.575939416885376, -0.38687101006507874, -0.25192907452583313, -0.16022415459156036, -0.10020656138658524, -0.06196758896112442, -0.0380413718521595, -0.023245465010404587, -0.014163456857204437, -0.00861448422074318, -0.005233798176050186, -0.0031777264084666967, -0.0019285931484773755, -0.0011701947078108788, -0.0007099223439581692, -0.000430649786721915),  # c_0's high parts
    (-6.584377842955291e-08, 8.819424124340003e-08, -3.6289613092321815e-08, 2.1310073350377934e-07, -8.36491125255634e-08, -3.3503269492030086e-08, 5.633796362758403e-08, 3.71786192943091e-08, 1.0867128708014206e-07, -1.8462564810306503e-08, 2.2308414671101673e-08, 5.462185725946256e-08, 4.8856065859581577e-08, -3.661681446942566e-08, -2.584043556908e-08, -2.9881519481023133e-09, -3.0046551913187614e-09, 3.935780146235857e-09, -6.823390741317326e-09, 4.1573047226961535e-09, 2.474322746692792e-09, -3.9555393682721984e-11, 1.6526573165531744e-10, 6.380768136082793e-10, -7.44659542362136e-11, 4.583683710368547e-10, 2.4145862392854767e-11, -6.305689997931907e-11, -5.58170003273073e-11, 3.190855912826862e-11, 9.589043101221328e-12, -1.0935305612413959e-11),
    (0.9995694160461426, 0.9992903470993042, 0.9988304972648621, 0.9980732798576355, 0.9968273043632507, 0.9947798848152161, 0.9914225339889526, 0.9859363436698914, 0.977022647857666, 0.9626731276512146, 0.9399133324623108, 0.9046505093574524, 0.8519527912139893, 0.7772998809814453, 0.6791787147521973, 0.562176525592804, 0.43782350420951843, 0.3208213150501251, 0.22270013391971588, 0.14804719388484955, 0.09534946084022522, 0.06008664891123772, 0.037326887249946594, 0.022977370768785477, 0.01406362745910883, 0.00857748556882143, 0.005220125894993544, 0.0031726828310638666, 0.0019267346942797303, 0.0011695103021338582, 0.0007096704212017357, 0.0004305570910219103),
    (-0.00021517892309930176, -0.00035458820639178157, -0.0005840734811499715, -0.0009615158196538687, -0.00158130400814116, -0.002596441889181733, -0.0042519643902778625, -0.006932907272130251, -0.011224714107811451, -0.017966803163290024, -0.02823811024427414, -0.043128952383995056, -0.06306460499763489, -0.08655241876840591, -0.1089475229382515, -0.12306707352399826, -0.12306704372167587, -0.1089475154876709, -0.08655238151550293, -0.06306460499763489, -0.04312896728515625, -0.028238121420145035, -0.017966795712709427, -0.011224706657230854, -0.00693292124196887, -0.004251956474035978, -0.0025964383967220783, -0.0015813084319233894, -0.0009615112212486565, -0.0005840713274665177, -0.0003545834042597562, -0.00021518586436286569),
    (-7.029072730802e-05, -0.00011892240581801161, -0.0001946201518876478, -0.0003200115170329809, -0.0005231020040810108, -0.0008569801575504243, -0.001393996411934495, -0.0022444711066782475, -0.003570537082850933, -0.005542613100260496, -0.008280687034130096, -0.011633497662842274, -0.014796656556427479, -0.01600160449743271, -0.013014688156545162, -0.005102421622723341, 0.005100891459733248, 0.013013157993555069, 0.016000842675566673, 0.014797421172261238, 0.011635025963187218, 0.008281641639769077, 0.0055418494157493114, 0.003569582710042596, 0.0022459495812654495, 0.0013929948909208179, 0.0008564316667616367, 0.000523757713381201, 0.0003192664007656276, 0.00019423267804086208, 0.00011802528752014041, 7.166618161136284e-05),
    (-1.8240532881463878e-05, -2.917594974860549e-05, -4.821744732907973e-05, -7.896377064753324e-05, -0.00012950300879310817, -0.00020942820992786437, -0.0003358262765686959, -0.0005303671932779253, -0.0008089413167908788, -0.0011740277986973524, -0.0015564060304313898, -0.0017349913250654936, -0.0012786281295120716, 0.00027991467504762113, 0.002791907638311386, 0.004891522228717804, 0.004890013486146927, 0.002791584236547351, 0.0002780509239528328, -0.0012786145089194179, -0.0017342418432235718, -0.0015558443265035748, -0.0011744167422875762, -0.0008093228680081666, -0.0005296500748954713, -0.0003362308780197054, -0.000209607562283054, -0.00012927665375173092, -7.919910422060639e-05, -4.832773265661672e-05, -2.942167157016229e-05, -1.788511872291565e-05),
    (-1.9298300685477443e-05, 4.37640619566082e-06, -5.189219791645883e-06, -7.128732249839231e-06, -3.272899266448803e-05, -3.4070242691086605e-05, -5.126729593030177e-05, -0.0001108156138798222, -0.00011993050429737195, -0.0001483964006183669, -0.00014247083163354546, 7.271359208971262e-06, 0.0003750205796677619, 0.0008709373651072383, 0.001052609644830227, 0.0005082738935016096, -0.0004907568800263107, -0.0010350925149396062, -0.0008622380555607378, -0.0003837705007754266, -2.475402106938418e-05, 0.00013155479973647743, 0.00015712910681031644, 0.00013084232341498137, 9.391694766236469e-05, 6.271435995586216e-05, 4.033957520732656e-05, 2.5234781787730753e-05, 1.564472768222913e-05, 9.617776413506363e-06, 5.876810973859392e-06, 3.5783414205070585e-06),
    (3.46273463947e-06, -3.7872257507842733e-06, -2.8707540877803694e-06, -5.236426659394056e-06, -1.3817272019878146e-06, -8.405754670093302e-06, -1.3741720067628194e-05, -3.8019738894945476e-06, -1.7254278645850718e-05, -8.336601240443997e-06, 3.1686813599662855e-05, 9.499391308054328e-05, 0.0001573999470565468, 0.00012789775792043656, -6.380900595104322e-05, -0.0003198829654138535, -0.00030264558154158294, -6.0319121985230595e-05, 0.00014897692017257214, 0.00015712858294136822, 8.647345384815708e-05, 2.531055906729307e-05, -3.852724148600828e-06, -1.2894587598566432e-05, -1.2008316844003275e-05, -9.120741196966264e-06, -6.351390766212717e-06, -3.966815711464733e-06, -2.5469746560702333e-06, -1.6098858850455144e-06, -9.796376616577618e-07, -5.991303737573617e-07),
)  # fmt: skip
# mish and mila (at beta = -1/4): F = tanh(softplus(x + beta)) on [-8, 8) (positive: mish(x) = x F) and the
# derivative on [-4, 4), whose zero x0 the tables' last rows mark: `python tools/fit_table_float32.py mish 6 8`,
# `mish_grad 6 4`, `mila 6 8`, `mila_grad 6 4` (fits 0.045, 0.038, 0.043 and 0.093 ULP; on [-8, 8) the derivatives'
# were 0.24 and 0.26; the zeros, float32 hi + lo, printed by the same)
MISH_TABLE = (
    (0.00043064975761808455, 0.0007099222275428474, 0.0011701941257342696, 0.001928590820170939, 0.0031777156982570887, 0.0052337502129375935, 0.008614270947873592, 0.014162509702146053, 0.023241277784109116, 0.03802303224802017, 0.06188839301466942, 0.09987249970436096, 0.1588670015335083, 0.24673116207122803, 0.3686596155166626, 0.5197078585624695, 0.6782896518707275, 0.8133577704429626, 0.9054962396621704, 0.9571042656898499, 0.9819808006286621, 0.9928051829338074, 0.9972172975540161, 0.9989446401596069, 0.9996045231819153, 0.9998528361320496, 0.9999455213546753, 0.9999798536300659, 0.9999925494194031, 0.9999972581863403, 0.9999989867210388, 0.9999996423721313),  # c_0's high parts
    (1.3416472793847944e-11, -1.2438227531275103e-11, 1.6030763522190128e-11, -6.989183537475796e-12, 7.713923944052681e-11, 1.502982738266212e-10, -2.708809010432134e-10, 2.2570868785098952e-10, 5.846405026765922e-10, -4.18506063137869e-10, -5.182353990385025e-10, -2.284658684459373e-09, 3.6955221105472447e-09, 6.874490310337933e-09, 3.935288095391343e-09, -3.850185947840146e-09, -1.3384642727487517e-08, 9.84491865807513e-09, 3.788439784102593e-09, -2.331979942482576e-08, -1.945117666934948e-08, -1.7723825962434603e-08, -1.3443862911799442e-08, -2.027157330886098e-09, -1.617020295441307e-08, 2.8181224465129162e-08, -1.929410409218235e-08, 1.4739751641457133e-08, 2.5995237962206375e-08, 6.308883193639758e-09, 6.015318909646794e-09, -1.313086261944818e-08),
    (0.00043055700371041894, 0.0007096700719557703, 0.0011695086723193526, 0.001926727476529777, 0.003172650933265686, 0.00521998293697834, 0.008576848544180393, 0.01406080648303032, 0.022964958101511, 0.037272922694683075, 0.05985650792717934, 0.09439840167760849, 0.14431066811084747, 0.2091429978609085, 0.2772185206413269, 0.3195689916610718, 0.30353209376335144, 0.22986745834350586, 0.1399734914302826, 0.07152268290519714, 0.03230845555663109, 0.013476385734975338, 0.005350237246602774, 0.0020611369982361794, 0.0007797077996656299, 0.00029172588256187737, 0.00010842398478416726, 4.0135124436346814e-05, 1.4820509932178538e-05, 5.464605692395708e-06, 2.013097400777042e-06, 7.411983347083151e-07),
    (0.00021518573339562863, 0.000354582880390808, 0.0005840688245370984, 0.0009615003946237266, 0.0015812607016414404, 0.002596224658191204, 0.004251006059348583, 0.006928729824721813, 0.011206377297639847, 0.017887922003865242, 0.02790738269686699, 0.04179985448718071, 0.05807877331972122, 0.06979161500930786, 0.06135271489620209, 0.017112240195274353, -0.04929559677839279, -0.09010908007621765, -0.08293319493532181, -0.05302578583359718, -0.027160901576280594, -0.012170624919235706, -0.005036342889070511, -0.0019879720639437437, -0.0007629554020240903, -0.0002879298699554056, -0.000107569110696204, -3.9943312003742903e-05, -1.4777565411350224e-05, -5.455003247334389e-06, -2.010952130149235e-06, -7.407192583741562e-07),
    (7.166644354583696e-05, 0.00011802431981777772, 0.00019423174671828747, 0.0003192583390045911, 0.0005237027071416378, 0.0008562172879464924, 0.0013920803321525455, 0.0022418193984776735, 0.003551706438884139, 0.0054656439460814, 0.00796947069466114, 0.010428030975162983, 0.010558017529547215, 0.0032668206840753555, -0.016658568754792213, -0.04102703183889389, -0.041266798973083496, -0.010343598201870918, 0.016327915713191032, 0.02037467062473297, 0.013531419448554516, 0.006892149802297354, 0.003055427223443985, 0.0012537302682176232, 0.0004920839564874768, 0.00018817732052411884, 7.085785910021514e-05, 2.6436116968397982e-05, 9.80823824647814e-06, 3.626836132752942e-06, 1.338399442829541e-06, 4.933007744511997e-07),
    (1.7885618945001625e-05, 2.9420616556308232e-05, 4.833093043998815e-05, 7.919580821180716e-05, 0.00012922918540425599, 0.0002094487426802516, 0.00033559062285348773, 0.0005266123916953802, 0.0007963650277815759, 0.0011197923449799418, 0.0013392941327765584, 0.0009417471010237932, -0.0012456231052055955, -0.006599020678550005, -0.012798652052879333, -0.008745726197957993, 0.009451995603740215, 0.017700279131531715, 0.007410020101815462, -0.002024572342634201, -0.003869913285598159, -0.0026115153450518847, -0.0013127959100529552, -0.0005748348776251078, -0.00023386708926409483, -9.129605314228684e-05, -3.479558290564455e-05, -1.3075329661660362e-05, -4.8721276471042074e-06, -1.806281602512172e-06, -6.676045813946985e-07, -2.462961674609687e-07),
    (3.5739265058509773e-06, 5.8815076044993475e-06, 9.599823897588067e-06, 1.5609337424393743e-05, 2.5295632440247573e-05, 4.026269380119629e-05, 6.197963375598192e-05, 9.201147622661665e-05, 0.00012239482020959258, 0.00012644486560020596, 1.43223769555334e-05, -0.00041818275349214673, -0.0014603253221139312, -0.002707101171836257, -0.001327795092947781, 0.005145606119185686, 0.007150702644139528, -0.001293854438699782, -0.005054500885307789, -0.0020894259214401245, 0.0001832195121096447, 0.0006011067889630795, 0.0004057158948853612, 0.0002010613097809255, 8.706295921001583e-05, 3.517203367664479e-05, 1.3669521649717353e-05, 5.194533514440991e-06, 1.9491092189127812e-06, 7.257111178660125e-07, 2.6890091930908966e-07, 9.934236544495434e-08),
    (5.922642571931647e-07, 9.87109729067015e-07, 1.553916149532597e-06, 2.4901094093365828e-06, 4.092082690476673e-06, 6.309652690106304e-06, 8.245494427683298e-06, 1.097880431188969e-05, 7.83846371632535e-06, -8.931255251809489e-06, -7.313324022106826e-05, -0.0002274283324368298, -0.0004567370633594692, -0.0002296215097885579, 0.0013755190884694457, 0.0023264384362846613, -0.0015321909449994564, -0.002863618079572916, 0.00034997035982087255, 0.0011185858165845275, 0.00038015824975445867, -1.9866973161697388e-05, -8.060596155701205e-05, -5.2536255680024624e-05, -2.5486173399258405e-05, -1.0881858543143608e-05, -4.3603358790278435e-06, -1.6867088561411947e-06, -6.391177862496988e-07, -2.392472993051342e-07, -8.903337089805063e-08, -3.295584960483211e-08),
)  # fmt: skip
MISH_GRAD_TABLE = (
    (-0.05821562185883522, -0.06773623079061508, -0.07790585607290268, -0.0883086696267128, -0.09824590384960175, -0.10662324726581573, -0.11181419342756271, -0.11150996387004852, -0.1025863066315651, -0.08105111867189407, 0.23107372224330902, 0.28093719482421875, 0.1064474955201149, 0.2219383269548416, 0.3625662326812744, 0.5196064710617065, 0.6788926720619202, 0.8238913416862488, 0.9405975341796875, 1.0217849016189575, 1.0682578086853027, 1.086809515953064, 1.0866343975067139, 1.0762611627578735, 1.0619875192642212, 1.047661542892456, 1.0351823568344116, 1.0251816511154175, 1.0175988674163818, 1.0120710134506226, 1.0081567764282227, 1.0054458379745483),  # c_0's high parts
    (1.4341631215941675e-09, -3.123667435822597e-10, 2.066262494437865e-09, -3.6194445218740157e-09, 7.728302997556113e-10, 6.077800485115858e-10, 9.904462805465641e-10, -1.2584457920183922e-09, -3.2651588099952278e-09, 3.679829330138773e-09, -3.4799159109866196e-09, 3.3902938234575686e-09, -1.4289371907949544e-09, -5.8490372545350056e-09, -9.107622211956823e-09, 2.4773871842853623e-09, -1.1570850944053745e-08, 1.440451136147658e-08, 8.051911137840762e-09, 1.9118406413554112e-08, 4.8448374201370825e-08, 2.0495651842367124e-09, 3.9524969963622425e-08, -3.0394735617278457e-09, 5.7245841844633105e-08, 3.5996923219983046e-09, 7.562423576246147e-09, -2.6589106028040987e-08, -5.123691693142973e-09, 3.868699138820375e-08, 2.4854525548789752e-08, -6.44524078552422e-09),
    (-0.036440037190914154, -0.03958240523934364, -0.04150315001606941, -0.04126105085015297, -0.037516456097364426, -0.0284282173961401, -0.01156962662935257, 0.01608172059059143, 0.057976774871349335, 0.11748156696557999, 0.18776743113994598, 0.21008679270744324, 0.4061411917209625, 0.5159929990768433, 0.6031948328018188, 0.6434704661369324, 0.6194434762001038, 0.5308996438980103, 0.39784619212150574, 0.2523454427719116, 0.12422821670770645, 0.03052840754389763, -0.026141906157135963, -0.052637964487075806, -0.05902425944805145, -0.054365742951631546, -0.045085616409778595, -0.03498626872897148, -0.02593226358294487, -0.018591323867440224, -0.012998649850487709, -0.008914534002542496),
    (-0.007038441952317953, -0.005320580210536718, -0.0020519166719168425, 0.0034633176401257515, 0.012125730514526367, 0.025035317987203598, 0.04341128095984459, 0.06836041063070297, 0.10037687420845032, 0.13843612372875214, 0.05006555840373039, 0.03736540302634239, 0.22691670060157776, 0.20518234372138977, 0.13518767058849335, 0.019736893475055695, -0.11604354530572891, -0.23116183280944824, -0.2898316979408264, -0.281848281621933, -0.22490498423576355, -0.14921824634075165, -0.07997293770313263, -0.0295073501765728, 0.000891189556568861, 0.015607591718435287, 0.020271020010113716, 0.019530514255166054, 0.016481781378388405, 0.012881895527243614, 0.00957498699426651, 0.006870205979794264),
    (0.001504025887697935, 0.003190884832292795, 0.00567926000803709, 0.009227950125932693, 0.014117391780018806, 0.020583635196089745, 0.028675494715571404, 0.03798520192503929, 0.047195591032505035, 0.05346459150314331, -0.009936041198670864, -0.02468576468527317, -0.0013393908739089966, -0.05960570648312569, -0.12663307785987854, -0.17551404237747192, -0.17691940069198608, -0.12157784402370453, -0.032558929175138474, 0.04950455576181412, 0.09519055485725403, 0.10087396949529648, 0.0811021476984024, 0.05332232639193535, 0.02881687693297863, 0.011724374257028103, 0.001754326862283051, -0.0030472378712147474, -0.004702229518443346, -0.004718330223113298, -0.004037113394588232, -0.0031710246112197638),
    (0.0013630930334329605, 0.002047452377155423, 0.002972206100821495, 0.004172883927822113, 0.005647301208227873, 0.007297096773982048, 0.00882603321224451, 0.009584486484527588, 0.008373882621526718, 0.003343955846503377, -0.012398246675729752, -0.016870291903614998, -0.04845202714204788, -0.06606870144605637, -0.06332198530435562, -0.029126783832907677, 0.028135299682617188, 0.07843178510665894, 0.09227337688207626, 0.06668558716773987, 0.02425188384950161, -0.010171315632760525, -0.026313504204154015, -0.027363182976841927, -0.021011175587773323, -0.01327039860188961, -0.0070219486951828, -0.0029265303164720535, -0.0006346508162096143, 0.0004482543154153973, 0.000831682060379535, 0.0008623574394732714),
    (0.00045680825132876635, 0.0006485827034339309, 0.0008486696169711649, 0.0010823402553796768, 0.0012828089529648423, 0.0013271768111735582, 0.0010295844404026866, 1.1075602742494084e-05, -0.002226211130619049, -0.0061751678586006165, -0.003925819881260395, -0.0027447219472378492, -0.0177153293043375, -0.007819837890565395, 0.01435674075037241, 0.03904521092772484, 0.04734659194946289, 0.028017012402415276, -0.006295781582593918, -0.03069286420941353, -0.03308345749974251, -0.020463086664676666, -0.005976505111902952, 0.003049904713407159, 0.006199039984494448, 0.005798657890409231, 0.004119192250072956, 0.002474799519404769, 0.0012716178316622972, 0.0005300777265802026, 0.00013173939078114927, -5.551966751227155e-05),
    (9.19323501875624e-05, 0.0001409739925293252, 0.0001508994319010526, 0.0001575754868099466, 0.00011115748202428222, -5.0161470426246524e-05, -0.0003826573374681175, -0.001028946484439075, -0.0020415775943547487, -0.0031944219954311848, 0.000110295855847653, 0.0016663530841469765, 0.0025659597013145685, 0.011565964668989182, 0.017932387068867683, 0.012932861223816872, -0.003997099120169878, -0.02079237438738346, -0.02204093523323536, -0.008933700621128082, 0.00498120067641139, 0.010330514051020145, 0.008199243806302547, 0.003851092653349042, 0.0006027030758559704, -0.0008857146603986621, -0.0011847818968817592, -0.0009714715415611863, -0.0006366627640090883, -0.0003685925039462745, -0.0001844867510953918, -7.377642032224685e-05),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
MISH_X0 = (-1.1924312114715576, -3.0439375464652585e-09)  # x0 = -1.1924312145154952121
MILA_TABLE = (
    (0.00033540636650286615, 0.0005529313930310309, 0.0009114661952480674, 0.0015023089945316315, 0.002475680084899068, 0.00407842081040144, 0.00671524740755558, 0.011047295294702053, 0.018147936090826988, 0.029741644859313965, 0.04854915291070938, 0.07872647792100906, 0.1262507438659668, 0.1987331658601761, 0.30340147018432617, 0.44148755073547363, 0.6000000238418579, 0.7504904270172119, 0.8650984168052673, 0.9355854988098145, 0.9719794988632202, 0.9885569214820862, 0.9955116510391235, 0.9982830882072449, 0.9993532299995422, 0.9997586011886597, 0.9999104142189026, 0.9999668598175049, 0.999987781047821, 0.9999954700469971, 0.9999983310699463, 0.9999994039535522),  # c_0's high parts
    (-6.1701355830168225e-12, 2.6003378270078592e-11, 6.157386666511e-12, 3.5077753202106265e-11, -4.902451274796382e-12, -1.527451082283804e-10, 1.3865268655433027e-10, 1.0709359093974413e-10, -8.928823236331596e-10, -7.212980768223076e-10, 8.443248322720365e-10, 3.632492973082435e-09, -2.533191878484331e-09, -4.4141250654661235e-09, -8.732921941145833e-09, -1.3406853405228958e-09, -2.3965725404195837e-08, -4.513142748407972e-09, -2.848153357604133e-08, 1.2153063444486634e-08, -1.9099088532925634e-08, 3.3614344641108573e-10, 1.7281998054841097e-08, -2.6745231807012715e-08, -2.825536427053521e-08, 2.1343917744331975e-09, 1.2870260412967127e-09, 8.689319486165914e-09, -8.703603171511531e-09, 2.2866828430778696e-08, 8.902876658112291e-09, -1.5081809578987304e-08),
    (0.0003353501087985933, 0.0005527784815058112, 0.0009110504179261625, 0.0015011788345873356, 0.0024726081173866987, 0.00407007010653615, 0.006692549213767052, 0.0109856016933918, 0.017980286851525307, 0.029286302626132965, 0.04731408879160881, 0.07538802176713943, 0.11730291694402695, 0.17522065341472626, 0.2441847175359726, 0.30395376682281494, 0.31999996304512024, 0.27186790108680725, 0.18393786251544952, 0.10193498432636261, 0.04866922274231911, 0.021029040217399597, 0.00853174738585949, 0.003330361330881715, 0.0012699189828708768, 0.0004774314002133906, 0.000177961919689551, 6.599221524083987e-05, 2.439470154058654e-05, 9.000623322208412e-06, 3.3170279039040906e-06, 1.2215808737892075e-06),
    (0.00016761879669502378, 0.00027623630012385547, 0.0004551094025373459, 0.000749459199141711, 0.0012332320911809802, 0.002026684582233429, 0.0033235778100788593, 0.005431118421256542, 0.008822577074170113, 0.01418839767575264, 0.022426148876547813, 0.03438439592719078, 0.04989469423890114, 0.06527552008628845, 0.06933184713125229, 0.04393654689192772, -0.01599997654557228, -0.0756823793053627, -0.09159496426582336, -0.06867341697216034, -0.03876578062772751, -0.01841382123529911, -0.007888331077992916, -0.003178379964083433, -0.001234850729815662, -0.00046944909263402224, -0.00017615944670978934, -6.558713357662782e-05, -2.4303921236423776e-05, -8.980314305517823e-06, -3.3124892979685683e-06, -1.2205669008835685e-06),
    (5.5834454542491585e-05, 9.197587496601045e-05, 0.00015142664778977633, 0.0002490675251465291, 0.000409022526582703, 0.000669988919980824, 0.0010927232215180993, 0.0017692678375169635, 0.0028292243368923664, 0.004427052568644285, 0.006660271901637316, 0.009291981346905231, 0.011030852794647217, 0.008257593959569931, -0.00508022541180253, -0.02981157787144184, -0.04586220905184746, -0.02792036160826683, 0.005703134462237358, 0.020736051723361015, 0.017383038997650146, 0.009881903417408466, 0.004647074732929468, 0.0019712746143341064, 0.0007887365063652396, 0.00030505124595947564, 0.00011564165470190346, 4.331854506745003e-05, 1.6111043805722147e-05, 5.966207481833408e-06, 2.203653366450453e-06, 8.126476132019889e-07),
    (1.3939094969828147e-05, 2.2942260329728015e-05, 3.77205251425039e-05, 6.189375562826172e-05, 0.00010122566163772717, 0.0001647141616558656, 0.0002656114229466766, 0.0004217779205646366, 0.0006515419809147716, 0.000956246629357338, 0.0012627121759578586, 0.001272862427867949, 0.0001729630312183872, -0.0035026518162339926, -0.010086637921631336, -0.01290587056428194, -0.00037364018498919904, 0.01643570140004158, 0.013725129887461662, 0.0016759203281253576, -0.003658746834844351, -0.003357079578563571, -0.001895722234621644, -0.0008792962180450559, -0.00036911689676344395, -0.00014668390213046223, -5.6489465350750834e-05, -2.1358409867389128e-05, -7.987989192770328e-06, -2.967968612210825e-06, -1.098438133340096e-06, -4.0557699776400113e-07),
    (2.796100943669444e-06, 4.586237537296256e-06, 7.4923545980709605e-06, 1.2232502740516793e-05, 1.9944125597248785e-05, 3.1940071494318545e-05, 5.023146513849497e-05, 7.617506344104186e-05, 0.00010843313066288829, 0.00013147782010491937, 9.359659452456981e-05, -0.00014347782416734844, -0.0008522752905264497, -0.002157009905204177, -0.002637955592945218, 0.0015174215659499168, 0.007679314818233252, 0.0034321527928113937, -0.0044508022256195545, -0.0038375931326299906, -0.0006615036400035024, 0.0005399789661169052, 0.0005243677296675742, 0.0002923575812019408, 0.00013381449389271438, 5.567587504629046e-05, 2.200708695454523e-05, 8.445842468063347e-06, 3.1863821732258657e-06, 1.1902674259545165e-06, 4.4182223746247473e-07, 1.6343336994850688e-07),
    (4.732982574751077e-07, 7.665465204809152e-07, 1.201114287141536e-06, 1.9453279946901603e-06, 3.263057351432508e-06, 4.959416401106864e-06, 7.441696197929559e-06, 9.948360457201488e-06, 1.1489677490317263e-05, 3.184427896485431e-06, -3.424416354391724e-05, -0.00013691437197849154, -0.0003440403379499912, -0.00045936202513985336, 0.00038110630703158677, 0.0023227694910019636, 0.0008398597710765898, -0.003138700732961297, -0.001249463064596057, 0.001122022862546146, 0.0007588966400362551, 0.00011794109741458669, -7.292124792002141e-05, -6.898366700625047e-05, -3.7431967939483e-05, -1.6827449144329876e-05, -6.928878974576946e-06, -2.7218050036026398e-06, -1.0396727248007664e-06, -3.9167045429167047e-07, -1.4613792131967784e-07, -5.4121283454833247e-08),
)  # fmt: skip
MILA_GRAD_TABLE = (
    (-0.04558854177594185, -0.053134676069021225, -0.061251379549503326, -0.06964371353387833, -0.07780617475509644, -0.08493520319461823, -0.08981890231370926, -0.09070683270692825, -0.08517397195100784, -0.07001283019781113, 0.1836954951286316, 0.22613459825515747, 0.07561622560024261, 0.1717468947172165, 0.2948569357395172, 0.4409267008304596, 0.6000720262527466, 0.7573568224906921, 0.8962303996086121, 1.0035401582717896, 1.0735328197479248, 1.108609914779663, 1.1168239116668701, 1.108071208000183, 1.0910619497299194, 1.0719283819198608, 1.0541921854019165, 1.039398193359375, 1.0278658866882324, 1.0192897319793701, 1.0131272077560425, 1.0088121891021729),  # c_0's high parts
    (5.623677912236502e-11, -3.2596303434218044e-10, 1.1373124664260104e-09, -2.419406897047338e-09, 3.2232378988084065e-09, -2.4261509468104236e-10, 3.0785225479945666e-09, -3.1977391845572356e-09, 3.1542455314337303e-09, -2.3851289832066414e-09, -6.500296301226172e-09, -2.028164081124828e-09, -3.1267883837671206e-09, 4.021303845469504e-10, 6.9083720966034434e-09, 1.1636375418788703e-08, 1.5076794923629677e-08, 2.544524413394811e-08, -2.338910221055812e-08, 2.252478914499534e-08, -1.5040496847973372e-08, -4.482763316104865e-08, -5.33052038065307e-08, 4.110751206098939e-08, -7.43236094891131e-09, 3.208451815339686e-08, 3.914649049363561e-09, -1.6521250145729027e-08, 1.9160509623361577e-08, -4.156509447739154e-08, -5.838207695063602e-09, 2.3401863558092373e-08),
    (-0.028805213049054146, -0.03146664425730705, -0.03327473625540733, -0.0335327610373497, -0.03123856708407402, -0.024994539096951485, -0.012917456217110157, 0.007422844413667917, 0.03897657245397568, 0.08499158173799515, 0.15716218948364258, 0.18203260004520416, 0.3302757441997528, 0.43935662508010864, 0.5429353713989258, 0.6189875602722168, 0.6439785957336426, 0.6029034852981567, 0.4990246593952179, 0.35556820034980774, 0.20616324245929718, 0.08009757101535797, -0.007578196004033089, -0.056547507643699646, -0.07544385641813278, -0.07532437145709991, -0.06558794528245926, -0.052591532468795776, -0.03989587724208832, -0.029088973999023438, -0.02059432491660118, -0.014256714843213558),
    (-0.00583220086991787, -0.004659164231270552, -0.0023435750044882298, 0.0016424721106886864, 0.007997043430805206, 0.017604492604732513, 0.03151429444551468, 0.050836917012929916, 0.07647908478975296, 0.10860513150691986, 0.05106262490153313, 0.047188352793455124, 0.21225661039352417, 0.21902409195899963, 0.18777108192443848, 0.1082334816455841, -0.01363965030759573, -0.14965061843395233, -0.2577696740627289, -0.3042972981929779, -0.28320690989494324, -0.21604301035404205, -0.1347779929637909, -0.06420975923538208, -0.015196946449577808, 0.01250199694186449, 0.02433820068836212, 0.02649068832397461, 0.023790355771780014, 0.01931554451584816, 0.014726333320140839, 0.010755909606814384),
    (0.0009878004202619195, 0.0022256544325500727, 0.004066189751029015, 0.006718135438859463, 0.01042439229786396, 0.015430807135999203, 0.02191428653895855, 0.02982589229941368, 0.03861065208911896, 0.04675384983420372, -0.0006213854067027569, -0.010474412702023983, 0.02735539898276329, -0.012983694672584534, -0.07290396839380264, -0.13804991543293, -0.18049654364585876, -0.17229704558849335, -0.10803014785051346, -0.014717399142682552, 0.06572350859642029, 0.10584204643964767, 0.1052122637629509, 0.08064571768045425, 0.05025468021631241, 0.024921681731939316, 0.008057897910475731, -0.0012377459788694978, -0.005288177635520697, -0.0062876176089048386, -0.005796622950583696, -0.004749857820570469),
    (0.0009952164255082607, 0.0015078712021932006, 0.002208367921411991, 0.003136844839900732, 0.004317849408835173, 0.005727417767047882, 0.007235719822347164, 0.008502506650984287, 0.008824160322546959, 0.006963815074414015, -0.007621250580996275, -0.012174366042017937, -0.029336968436837196, -0.051241498440504074, -0.06623226404190063, -0.05916675925254822, -0.020643405616283417, 0.03815765306353569, 0.08554091304540634, 0.09351796656847, 0.06257479637861252, 0.01780647784471512, -0.015965169295668602, -0.030010337010025978, -0.028967101126909256, -0.021191801875829697, -0.01273720245808363, -0.006265928968787193, -0.0022068677935749292, -5.119516936247237e-05, 0.0008807160193100572, 0.0011348004918545485),
    (0.0003497247816994786, 0.0004728047933895141, 0.0006398058612830937, 0.0008419780060648918, 0.0010379761224612594, 0.0011979840928688645, 0.0011681843316182494, 0.0007526610279455781, -0.00043083526543341577, -0.002824223367497325, -0.003297291463240981, -0.003729289397597313, -0.017121050506830215, -0.016452470794320107, -0.005163350608199835, 0.01816604472696781, 0.04196200147271156, 0.04686858505010605, 0.02430006116628647, -0.011439070105552673, -0.03406915441155434, -0.03364100679755211, -0.01914987899363041, -0.004174714908003807, 0.004533004015684128, 0.007043350022286177, 0.00610645767301321, 0.004164838697761297, 0.0024075175169855356, 0.0011556543176993728, 0.00042097794357687235, 3.858600030071102e-05),
    (8.371823787456378e-05, 9.36151627684012e-05, 0.00011476885993033648, 0.0001358295849058777, 0.00011828604328911752, 6.0903603298356757e-05, -0.0001136281862272881, -0.00048086902825161815, -0.001122222631238401, -0.002183250617235899, -0.00040892083779908717, 0.0001640432747080922, -0.0030895730014890432, 0.0034333826042711735, 0.011620837263762951, 0.017983295023441315, 0.011921687051653862, -0.006420552264899015, -0.022230032831430435, -0.022049132734537125, -0.00725144986063242, 0.006654052529484034, 0.011120922863483429, 0.008154436945915222, 0.0034666224382817745, 0.00021061647566966712, -0.0011450538877397776, -0.0013170372694730759, -0.001021127332933247, -0.0006474164547398686, -0.0003535019641276449, -0.00016667493036948144),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
MILA_X0 = (-1.1505922079086304, -1.4734740094723975e-09)  # x0 = -1.1505922093821043473
# golu (alpha = beta = gamma = 1) on [-2, 2): F = exp(-e^-x) (golu(x) = x F) and the derivative F (1 + x e^-x), whose
# zero x0 = -Omega the last row marks: `python tools/fit_table_float32.py golu 6 2` and `golu_grad 6 2` (fits 0.038
# and 0.041 ULP; on [-4, 4) F falls by e^12 across an interval near -4, beyond a polynomial's reach)
GOLU_TABLE = (
    (0.0009669383289292455, 0.002185867168009281, 0.0044897920452058315, 0.008474164642393589, 0.014844033867120743, 0.024344464763998985, 0.03767065703868866, 0.055376723408699036, 0.0778018981218338, 0.10502731800079346, 0.13686811923980713, 0.17289778590202332, 0.21249638497829437, 0.25491172075271606, 0.29932352900505066, 0.3449021875858307, 0.39085718989372253, 0.4364728331565857, 0.48113104701042175, 0.5243223905563354, 0.5656482577323914, 0.604815661907196, 0.6416275501251221, 0.6759706735610962, 0.7078021168708801, 0.7371360659599304, 0.7640314102172852, 0.7885804772377014, 0.8108993172645569, 0.83111971616745, 0.8493826389312744, 0.8658326268196106),  # c_0's high parts
    (1.8233430390535155e-11, -1.3045809224565552e-11, -1.424552975581861e-10, 1.3465649428834325e-10, -2.7971000515769617e-11, 9.034574754984703e-10, 1.7905453786326575e-09, -8.625049563448783e-10, -5.773442834922093e-10, 4.21543661088819e-10, -2.67077249205272e-09, 6.063653579246875e-09, 8.489232095065802e-10, 1.1653328968463939e-08, 1.3003067511618838e-09, -1.4667086212227787e-08, -1.3234650708682238e-08, 1.1068555849647055e-08, -1.441970276516713e-08, 4.3351300327287845e-09, 1.2443964081398917e-08, -1.1811688516161212e-08, -1.697140916689932e-08, -2.73704010567144e-08, -2.2845870972787452e-08, 1.0126979255176138e-08, 2.221932859924891e-08, -3.959675254350259e-09, -6.626144521959532e-09, 2.6445160727917028e-08, -1.0131175898209221e-08, 1.3580524482748046e-09),
    (0.006711882539093494, 0.01339005958288908, 0.024271585047245026, 0.040427979081869125, 0.06249571591615677, 0.09045065939426422, 0.12351733446121216, 0.1602378636598587, 0.19867411255836487, 0.2366827130317688, 0.2721947431564331, 0.30344507098197937, 0.32912084460258484, 0.348423033952713, 0.36105310916900635, 0.36714646220207214, 0.3671763241291046, 0.36184871196746826, 0.35200297832489014, 0.33852797746658325, 0.322296679019928, 0.30412042140960693, 0.2847204804420471, 0.26471391320228577, 0.24460986256599426, 0.2248138040304184, 0.20563627779483795, 0.1873042732477188, 0.1699737310409546, 0.15374168753623962, 0.13865789771080017, 0.1247350201010704),
    (0.019938910380005836, 0.03431699797511101, 0.05346967652440071, 0.07622156292200089, 0.10031053423881531, 0.12280713021755219, 0.14074020087718964, 0.15171290934085846, 0.15432903170585632, 0.1483449935913086, 0.13456453382968903, 0.11455879360437393, 0.09031575918197632, 0.06390740722417831, 0.03723006695508957, 0.011839477345347404, -0.011123069562017918, -0.030932771041989326, -0.04723605513572693, -0.05997895076870918, -0.06932877004146576, -0.07559952139854431, -0.0791882798075676, -0.0805252194404602, -0.08003747463226318, -0.07812473177909851, -0.07514500617980957, -0.07140780985355377, -0.06717264652252197, -0.06265117228031158, -0.058011312037706375, -0.053382616490125656),
    (0.03172321617603302, 0.044962793588638306, 0.05666026100516319, 0.06365848332643509, 0.06348537653684616, 0.05515095219016075, 0.0394105538725853, 0.018480490893125534, -0.004639914724975824, -0.026908041909337044, -0.04586383327841759, -0.059924427419900894, -0.06843920797109604, -0.07156369090080261, -0.07003649324178696, -0.06489144265651703, -0.057252831757068634, -0.04824645817279816, -0.0386921726167202, -0.02934039942920208, -0.02067243680357933, -0.012969543226063251, -0.006365037523210049, -0.0009507180657237768, 0.003366482676938176, 0.006669802125543356, 0.009076198562979698, 0.010739689692854881, 0.01175803691148758, 0.012285599485039711, 0.012411791831254959, 0.01223286334425211),
    (0.025992102921009064, 0.025999877601861954, 0.019707035273313522, 0.007439351640641689, -0.008470598608255386, -0.024582790210843086, -0.03757889196276665, -0.04511936008930206, -0.04637109115719795, -0.041913971304893494, -0.03335254639387131, -0.0226194616407156, -0.01147590670734644, -0.0012897839769721031, 0.007025363389402628, 0.01312012504786253, 0.017001241445541382, 0.01881500892341137, 0.019091228023171425, 0.018165819346904755, 0.016448674723505974, 0.01430930569767952, 0.012015626765787601, 0.009713724255561829, 0.007579257246106863, 0.005667720455676317, 0.0040146829560399055, 0.0026367343962192535, 0.001504917861893773, 0.0006162035861052573, -7.325938349822536e-05, -0.0005881079123355448),
    (0.0043662977404892445, -0.004861709661781788, -0.015305621549487114, -0.02332458458840847, -0.02668801322579384, -0.02457571215927601, -0.016880974173545837, -0.006428494118154049, 0.003913488704711199, 0.010432135313749313, 0.014624383300542831, 0.01735212653875351, 0.01795259676873684, 0.015934588387608528, 0.013456791639328003, 0.009442062117159367, 0.002475852146744728, 0.0037972289137542248, -0.0013489428674802184, -0.002821769565343857, -0.0016776815755292773, -0.00156750890891999, -0.005436994601041079, -0.002864302834495902, -0.002622121712192893, -0.0024618597235530615, -0.0013120867079123855, -0.0030048908665776253, -0.0013549185823649168, -0.002147942315787077, -0.001672535203397274, -0.00017173205560538918),
    (-0.00983753614127636, -0.014073354192078114, -0.014109584502875805, -0.007771255914121866, -0.001272425870411098, 0.0025908995885401964, 0.011013890616595745, 0.017733855172991753, 0.017370568588376045, 0.006662704516202211, -0.0012957608560100198, -0.0013931678840890527, -6.936377030797303e-05, -0.0018332763575017452, -0.00011480385001050308, -0.0016053479630500078, -0.00797346979379654, 0.00023133338254410774, -0.0033695432357490063, -0.002555717481300235, 0.0007659043767489493, 0.0012658637715503573, -0.0014512456255033612, 0.001269485685043037, 0.0008135614334605634, 0.0007418821915052831, 0.0010908617405220866, 0.00010973870666930452, 0.0009604396182112396, 8.503661956638098e-05, 0.00021355264470912516, 0.0003782085550483316),
)  # fmt: skip
GOLU_GRAD_TABLE = (
    (-0.012037334032356739, -0.022083615884184837, -0.0364685095846653, -0.05469455197453499, -0.0749935582280159, -0.09437202662229538, -0.10900617390871048, -0.11487600207328796, -0.10845507681369781, -0.08727739006280899, 0.41764000058174133, 0.47594207525253296, 0.06850601732730865, 0.146029531955719, 0.23162607848644257, 0.32195553183555603, 0.41380569338798523, 0.5043194890022278, 0.5911319851875305, 0.6724283695220947, 0.7469401359558105, 0.8138984441757202, 0.8729629516601562, 0.9241399168968201, 0.9677000641822815, 1.0041024684906006, 1.0339289903640747, 1.0578303337097168, 1.0764832496643066, 1.0905588865280151, 1.1007000207901, 1.1075067520141602),  # c_0's high parts
    (1.0274033707124985e-10, -1.4077418397651087e-10, 6.002779939784375e-10, -5.776597533646566e-10, -8.004705787101329e-10, -2.8035729293662826e-09, -2.640812679644e-09, -1.3766958684158226e-09, 5.580172990349297e-10, 2.001584453736882e-09, -7.9891817605926e-09, 4.914165518954405e-09, 6.842598154754853e-10, 4.355396931998712e-09, -3.796988057302997e-09, -1.2163095419737147e-08, 4.361619065917921e-09, -1.4059986952474901e-08, -2.0404716138955337e-08, 1.7334626178922008e-08, 1.0637259073575933e-08, -1.3773362006475054e-08, -1.8828817616167726e-08, 1.8528218959090736e-08, 4.339243631079626e-09, -3.2390625737122036e-09, 4.691300503623097e-08, 4.197584857479342e-08, 1.3072209981146443e-08, -3.6169456762991103e-08, 5.630568011838477e-08, -2.9203636842112246e-08),
    (-0.06383950263261795, -0.09761900454759598, -0.13191701471805573, -0.15733641386032104, -0.16340136528015137, -0.14146746695041656, -0.08722332119941711, -0.0019141517113894224, 0.10798133909702301, 0.23230479657649994, 0.48420050740242004, 0.4456775188446045, 0.579215407371521, 0.6569039225578308, 0.7081449031829834, 0.7328130006790161, 0.7329623103141785, 0.7120975852012634, 0.6744834184646606, 0.6245743632316589, 0.5665984749794006, 0.5042914748191833, 0.4407600462436676, 0.37844303250312805, 0.31914007663726807, 0.26408135890960693, 0.2140168845653534, 0.16931112110614777, 0.13003292679786682, 0.09603568911552429, 0.06702480465173721, 0.04261239245533943),
    (-0.12457453459501266, -0.14153362810611725, -0.12643089890480042, -0.06973468512296677, 0.02715369686484337, 0.15127582848072052, 0.281822144985199, 0.3962218761444092, 0.4760202467441559, 0.5106287002563477, -0.11716917902231216, -0.1880275160074234, 0.3607695996761322, 0.25880810618400574, 0.1510796844959259, 0.047684065997600555, -0.044106028974056244, -0.1199302226305008, -0.17798569798469543, -0.2184506207704544, -0.2428574562072754, -0.25352510809898376, -0.25310248136520386, -0.24423876404762268, -0.22937075793743134, -0.21060535311698914, -0.1896734982728958, -0.16793213784694672, -0.14639563858509064, -0.125782310962677, -0.1065661832690239, -0.08902759104967117),
    (-0.07456021010875702, -0.00863721314817667, 0.09365862607955933, 0.20812438428401947, 0.30266809463500977, 0.3497753441333771, 0.33616283535957336, 0.2655944228172302, 0.15525129437446594, 0.028615497052669525, -0.21183767914772034, -0.1641850769519806, -0.2536836862564087, -0.2846265137195587, -0.28537121415138245, -0.262840211391449, -0.22482289373874664, -0.17880220711231232, -0.13091230392456055, -0.08557457476854324, -0.04564003273844719, -0.012471447698771954, 0.013525612652301788, 0.0326467826962471, 0.04570074379444122, 0.0536167286336422, 0.05742596089839935, 0.058079205453395844, 0.0564604178071022, 0.05326877161860466, 0.04909235239028931, 0.04438818618655205),
    (0.08742465078830719, 0.17379365861415863, 0.22698375582695007, 0.2197430431842804, 0.1488800048828125, 0.03502795845270157, -0.08807990700006485, -0.18822024762630463, -0.24507896602153778, -0.2536923587322235, 0.08246231824159622, 0.1050475686788559, -0.09539639204740524, -0.02971620485186577, 0.024536242708563805, 0.06311287730932236, 0.08625448495149612, 0.09567630290985107, 0.09444793313741684, 0.08601932972669601, 0.07339954376220703, 0.05911773070693016, 0.04491909220814705, 0.031864915043115616, 0.020618850365281105, 0.011384764686226845, 0.004163255915045738, -0.001223072875291109, -0.005027917679399252, -0.007537383120507002, -0.009014135226607323, -0.009701911360025406),
    (0.14428216218948364, 0.12091632932424545, 0.040334008634090424, -0.06402827799320221, -0.15513302385807037, -0.19836460053920746, -0.1853829026222229, -0.12874464690685272, -0.05194269120693207, 0.022442534565925598, 0.051186297088861465, 0.019567083567380905, 0.11029838770627975, 0.0955839604139328, 0.07085280865430832, 0.05356808006763458, 0.027641404420137405, 0.004005433060228825, -0.011046379804611206, -0.02102629467844963, -0.019669432193040848, -0.020857887342572212, -0.02191361039876938, -0.017346011474728584, -0.016734518110752106, -0.013619174249470234, -0.010957245714962482, -0.006347023881971836, -0.005038924049586058, -0.0030339837539941072, -0.0013296413235366344, -0.0006640336941927671),
    (0.014429026283323765, -0.06985504925251007, -0.13606500625610352, -0.13464795053005219, -0.0933336392045021, -0.0199483260512352, 0.05048443749547005, 0.09639062732458115, 0.10391011089086533, 0.0808924064040184, -0.039629679173231125, -0.04089226573705673, 0.0006005854229442775, -0.03866128996014595, -0.05774642154574394, -0.014542068354785442, -0.02104373462498188, -0.027616005390882492, -0.02141626365482807, -0.014978309161961079, -0.0006598180625587702, 0.004461674019694328, 0.002550610341131687, 0.005247428547590971, 0.0038812318816781044, 0.004592081997543573, 0.004070987459272146, 0.003162432461977005, 0.0020589781925082207, 0.0021754514891654253, 0.0020136735402047634, 0.0013220309047028422),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
GOLU_X0 = (-0.5671432614326477, -2.897713535787716e-08)  # x0 = -0.567143290409783873
# derf at its defaults (alpha = 1/2, shift 0, weight 1, bias 0): F = erf(x / 2) / x on [-8, 8) (derf(x) = x F) and
# the derivative e^(-x^2/4) / sqrt(pi) on [-4, 4): `python tools/fit_table_float32.py derf 6 8` and `derf_grad 6 4`
# (fits 0.0057 and 0.026 ULP; the derivative on [-8, 8) was 17.5: e^-2 across an interval near 8)
DERF_TABLE = (
    (0.12903225421905518, 0.1379309892654419, 0.14814788103103638, 0.15999841690063477, 0.17390471696853638, 0.19043707847595215, 0.21036148071289062, 0.23466964066028595, 0.2645306885242462, 0.3010596036911011, 0.3447891175746918, 0.39483922719955444, 0.4480428993701935, 0.49859270453453064, 0.5388225317001343, 0.5612648129463196, 0.5612648129463196, 0.5388225317001343, 0.49859270453453064, 0.4480428993701935, 0.39483922719955444, 0.3447891175746918, 0.3010596036911011, 0.2645306885242462, 0.23466964066028595, 0.21036148071289062, 0.19043707847595215, 0.17390471696853638, 0.15999841690063477, 0.14814788103103638, 0.1379309892654419, 0.12903225421905518),  # c_0's high parts
    (-1.6402079694444183e-09, 4.508327489105568e-09, -1.813465488886834e-09, -3.7817005082985133e-10, 3.928892766680292e-09, -7.1876486984479016e-09, 5.977935479961616e-09, -5.098121369506714e-10, -6.479016434468576e-09, 6.536965635461911e-09, -1.9823681585151576e-10, -1.310850095137539e-08, -7.335440255218373e-09, 1.2154045547774217e-09, 1.4211540388942012e-08, 6.2577463211255235e-09, 6.2577463211255235e-09, 1.4211540388942012e-08, 1.2154042217105143e-09, -7.335440255218373e-09, -1.310850095137539e-08, -1.98236871362667e-10, 6.536965635461911e-09, -6.479016434468576e-09, -5.098121369506714e-10, 5.977935479961616e-09, -7.1876486984479016e-09, 3.928892766680292e-09, -3.7817010634100257e-10, -1.813465488886834e-09, 4.508327489105568e-09, -1.6402079694444183e-09),
    (0.01664930023252964, 0.019024811685085297, 0.021946890279650688, 0.025594566017389297, 0.0302190613001585, 0.036164406687021255, 0.0438648946583271, 0.053764525800943375, 0.06606873869895935, 0.08025337755680084, 0.09440335631370544, 0.10475654900074005, 0.10609735548496246, 0.09347435086965561, 0.06486152112483978, 0.02328873798251152, -0.02328873798251152, -0.06486152112483978, -0.09347435086965561, -0.10609735548496246, -0.10475654900074005, -0.09440335631370544, -0.08025337755680084, -0.06606873869895935, -0.053764525800943375, -0.0438648946583271, -0.036164406687021255, -0.0302190613001585, -0.025594566017389297, -0.021946890279650688, -0.019024811685085297, -0.01664930023252964),
    (0.002148254308849573, 0.002623834880068898, 0.003249797271564603, 0.004087035544216633, 0.005219210404902697, 0.006744974292814732, 0.008733904920518398, 0.011107874102890491, 0.013425101526081562, 0.014634313993155956, 0.013033520430326462, 0.0067742206156253815, -0.0049660708755254745, -0.020657960325479507, -0.03606207296252251, -0.045705705881118774, -0.045705705881118774, -0.03606207296252251, -0.020657960325479507, -0.0049660708755254745, 0.0067742206156253815, 0.013033520430326462, 0.014634313993155956, 0.013425101526081562, 0.011107874102890491, 0.008733904920518398, 0.006744974292814732, 0.005219210404902697, 0.004087035544216633, 0.003249797271564603, 0.002623834880068898, 0.002148254308849573),
    (0.0002771797007881105, 0.00036159390583634377, 0.00047969099250622094, 0.000645922205876559, 0.0008750648121349514, 0.001168309012427926, 0.0014773739967495203, 0.0016418775776401162, 0.0013319564750418067, 8.59542196849361e-05, -0.0024395522195845842, -0.006014407146722078, -0.0094752237200737, -0.010959146544337273, -0.0089366240426898, -0.0034611267037689686, 0.0034611267037689686, 0.0089366240426898, 0.010959146544337273, 0.0094752237200737, 0.006014407146722078, 0.0024395522195845842, -8.59542196849361e-05, -0.0013319564750418067, -0.0016418775776401162, -0.0014773739967495203, -0.001168309012427926, -0.0008750648121349514, -0.000645922205876559, -0.00047969099250622094, -0.00036159390583634377, -0.0002771797007881105),
    (3.571862544049509e-05, 4.961041850037873e-05, 6.974692951189354e-05, 9.778027015272528e-05, 0.00013173131446819752, 0.00015806661394890398, 0.00013821969332639128, -1.3401183878158918e-06, -0.00034913583658635616, -0.0009296555654145777, -0.001580243930220604, -0.0018959756707772613, -0.0014002186944708228, 5.559041164815426e-05, 0.0019663251005113125, 0.0033320554066449404, 0.0033320554066449404, 0.0019663251005113125, 5.559041164815426e-05, -0.0014002186944708228, -0.0018959756707772613, -0.001580243930220604, -0.0009296555654145777, -0.00034913583658635616, -1.3401183878158918e-06, 0.00013821969332639128, 0.00015806661394890398, 0.00013173131446819752, 9.778027015272528e-05, 6.974692951189354e-05, 4.961041850037873e-05, 3.571862544049509e-05),
    (4.13812722399598e-06, 6.590287739527412e-06, 1.0104228749696631e-05, 1.2781037185050081e-05, 1.3082270925224293e-05, 4.961812010151334e-06, -2.5980714781326242e-05, -9.18289297260344e-05, -0.00018813206406775862, -0.00026515545323491096, -0.00022514870215673, 1.0676693818822969e-05, 0.00040057653677649796, 0.0007270728820003569, 0.0007227268652059138, 0.00030438616522587836, -0.00030438616522587836, -0.0007227268652059138, -0.0007270728820003569, -0.00040057653677649796, -1.0676693818822969e-05, 0.00022514870215673, 0.00026515545323491096, 0.00018813206406775862, 9.18289297260344e-05, 2.5980714781326242e-05, -4.961812010151334e-06, -1.3082270925224293e-05, -1.2781037185050081e-05, -1.0104228749696631e-05, -6.590287739527412e-06, -4.13812722399598e-06),
    (4.973704790245392e-07, 7.785375260027649e-07, 1.2102209439035505e-06, 8.193670169021061e-07, -8.348563369509066e-07, -5.603604677162366e-06, -1.5663339581806213e-05, -2.8146541808382608e-05, -3.302623736090027e-05, -1.2656678336497862e-05, 4.2939893319271505e-05, 0.0001112575046136044, 0.00013568585563916713, 6.725129787810147e-05, -7.469222327927127e-05, -0.000190388280316256, -0.000190388280316256, -7.469222327927127e-05, 6.725129787810147e-05, 0.00013568585563916713, 0.0001112575046136044, 4.293989695725031e-05, -1.2656678336497862e-05, -3.302623736090027e-05, -2.8146541808382608e-05, -1.5663339581806213e-05, -5.603604677162366e-06, -8.348563369509066e-07, 8.193673579626193e-07, 1.2102209439035505e-06, 7.785375260027649e-07, 4.973704790245392e-07),
)  # fmt: skip
DERF_GRAD_TABLE = (
    (0.01321673858910799, 0.021120287477970123, 0.03271174058318138, 0.049106139689683914, 0.07144901156425476, 0.10075926035642624, 0.13772158324718475, 0.18245144188404083, 0.2342722862958908, 0.29155656695365906, 0.3516843616962433, 0.4111606776714325, 0.4659060835838318, 0.5116977095603943, 0.5446994304656982, 0.5619900226593018, 0.5619900226593018, 0.5446994304656982, 0.5116977095603943, 0.4659060835838318, 0.4111606776714325, 0.3516843616962433, 0.29155656695365906, 0.2342722862958908, 0.18245144188404083, 0.13772158324718475, 0.10075926035642624, 0.07144901156425476, 0.049106139689683914, 0.03271174058318138, 0.021120287477970123, 0.01321673858910799),  # c_0's high parts
    (-2.0018157964596384e-10, 3.307984441924816e-10, 1.0909970704631178e-09, 7.11008363296628e-10, 1.123838910821462e-09, -2.493932393932141e-09, -6.676258212934272e-09, 3.705143525323251e-09, 7.151925274229143e-09, 1.2934509463491395e-08, 4.3824983642082316e-09, 1.9406058981985552e-09, 4.480454673938539e-09, 2.3739595178540185e-08, -2.8726987011395977e-08, -5.8466533836565304e-09, -5.8466533836565304e-09, -2.8726987011395977e-08, 2.3739595178540185e-08, 4.480454673938539e-09, 1.9406058981985552e-09, 4.3824983642082316e-09, 1.2934508575312975e-08, 7.151925274229143e-09, 3.7051433032786463e-09, -6.676258212934272e-09, -2.493932393932141e-09, 1.123838910821462e-09, 7.110084188077792e-10, 1.0909970704631178e-09, 3.307984441924816e-10, -2.0018157964596384e-10),
    (0.025607431307435036, 0.03828052058815956, 0.05520106479525566, 0.07672834396362305, 0.10270795226097107, 0.13224652409553528, 0.16354437172412872, 0.1938546597957611, 0.21963027119636536, 0.23688971996307373, 0.241783007979393, 0.23127788305282593, 0.2038339078426361, 0.1599055379629135, 0.10213113576173782, 0.03512437641620636, -0.03512437641620636, -0.10213113576173782, -0.1599055379629135, -0.2038339078426361, -0.23127788305282593, -0.241783007979393, -0.23688971996307373, -0.21963027119636536, -0.1938546597957611, -0.16354437172412872, -0.13224652409553528, -0.10270795226097107, -0.07672834396362305, -0.05520106479525566, -0.03828052058815956, -0.025607431307435036),
    (0.021503016352653503, 0.029411647468805313, 0.03839796409010887, 0.0476674810051918, 0.055959079414606094, 0.06159696355462074, 0.06267407536506653, 0.05737242475152016, 0.044383611530065536, 0.02334730140864849, -0.004808175843209028, -0.03774326294660568, -0.07188785821199417, -0.1029391959309578, -0.12660005688667297, -0.13939987123012543, -0.13939987123012543, -0.12660005688667297, -0.1029391959309578, -0.07188785821199417, -0.03774326294660568, -0.004808175843209028, 0.02334730140864849, 0.044383611530065536, 0.05737242475152016, 0.06267407536506653, 0.06159696355462074, 0.055959079414606094, 0.0476674810051918, 0.03839796409010887, 0.029411647468805313, 0.021503016352653503),
    (0.009619324468076229, 0.011389676481485367, 0.01239852886646986, 0.012038836255669594, 0.00969643983989954, 0.004907945170998573, -0.0024488375056535006, -0.011989496648311615, -0.022734377533197403, -0.03315814584493637, -0.04140031710267067, -0.0456232987344265, -0.04445475712418556, -0.03737295791506767, -0.02493390627205372, -0.008758289739489555, 0.008758289739489555, 0.02493390627205372, 0.03737295791506767, 0.04445475712418556, 0.0456232987344265, 0.04140031710267067, 0.03315814584493637, 0.022734377533197403, 0.011989496648311615, 0.0024488375056535006, -0.004907945170998573, -0.00969643983989954, -0.012038836255669594, -0.01239852886646986, -0.011389676481485367, -0.009619324468076229),
    (0.001971028745174408, 0.001485080923885107, 0.00043058040319010615, -0.0012552350526675582, -0.0035083272960036993, -0.0060883695259690285, -0.008560985326766968, -0.010355810634791851, -0.010875140316784382, -0.009653140790760517, -0.006516238208860159, -0.0016983314417302608, 0.004124593921005726, 0.00994825828820467, 0.014656330458819866, 0.017288813367486, 0.017288813367486, 0.014656330458819866, 0.00994825828820467, 0.004124593921005726, -0.0016983314417302608, -0.006516238208860159, -0.009653140790760517, -0.010875140316784382, -0.010355810634791851, -0.008560985326766968, -0.0060883695259690285, -0.0035083272960036993, -0.0012552350526675582, 0.00043058040319010615, 0.001485080923885107, 0.001971028745174408),
    (-0.00019270577467978, -0.0006117891753092408, -0.0010877348249778152, -0.0015991533873602748, -0.002009169664233923, -0.002102866070345044, -0.0017882675165310502, -0.0010083819506689906, 0.0002000665699597448, 0.0017357723554596305, 0.003299999749287963, 0.004372192081063986, 0.004745240323245525, 0.004316705744713545, 0.003017986658960581, 0.0010932162404060364, -0.0010932162404060364, -0.003017986658960581, -0.004316705744713545, -0.004745240323245525, -0.004372192081063986, -0.003299999749287963, -0.0017357723554596305, -0.0002000665699597448, 0.0010083819506689906, 0.0017882675165310502, 0.002102866070345044, 0.002009169664233923, 0.0015991533873602748, 0.0010877348249778152, 0.0006117891753092408, 0.00019270577467978),
    (-0.00020436089835129678, -0.00033691470162011683, -0.0003262117097619921, -0.0003352791245561093, -0.0002791515726130456, 7.222503427328775e-06, 0.00034627452259883285, 0.0006619439809583127, 0.0008792437147349119, 0.0010143117979168892, 0.0009956599678844213, 0.0005714109283871949, -3.8450358260888606e-05, -0.0006320185493677855, -0.001130704185925424, -0.0014565227320417762, -0.0014565227320417762, -0.001130704185925424, -0.0006320185493677855, -3.8450358260888606e-05, 0.0005714109283871949, 0.0009956599678844213, 0.0010143120307475328, 0.0008792437147349119, 0.0006619440391659737, 0.00034627452259883285, 7.222502972581424e-06, -0.0002791515726130456, -0.00033527915365993977, -0.0003262117097619921, -0.00033691470162011683, -0.00020436089835129678),
)  # fmt: skip
# sau at its defaults (alpha = 0.01, sigma = 1): the function alpha x + (1 - alpha)(x Phi(x) + phi(x)) on [-8, 8)
# (its zero x0 carried: F = sau / (x - x0) on the intervals around it) and the derivative alpha + (1 - alpha) Phi(x)
# on [-4, 4): `python tools/fit_table_float32.py sau 6 8` and `sau_grad 6 4` (fits 0.15 and 0.033 ULP; the
# derivative on [-8, 8) was 0.22, 0.72 with go's rounding)
SAU_TABLE = (
    (-0.07750000059604645, -0.07249999791383743, -0.06750000268220901, -0.0625, -0.057500001043081284, -0.05249998718500137, -0.047499801963567734, -0.04249773174524307, -0.037479180842638016, -0.032347820699214935, -0.02660977840423584, -0.018307756632566452, 0.0509277805685997, 0.07982654124498367, 0.12235525250434875, 0.28098124265670776, 0.533481240272522, 0.8798552751541138, 1.3000810146331787, 1.7660120725631714, 2.254192352294922, 2.7508902549743652, 3.250152111053467, 3.750020742416382, 4.250002384185791, 4.75, 5.25, 5.75, 6.25, 6.75, 7.25, 7.75),  # c_0's high parts
    (5.960471005650447e-10, -2.0861350424894454e-09, 2.683250066581877e-09, 3.1023593416446005e-11, 1.7706696109343056e-09, 6.357831483505549e-10, -1.6583089346156044e-09, 1.2226052392705355e-09, 1.3952261568306312e-09, 2.0017411339612323e-10, -1.218238565581231e-10, -8.404740237111241e-10, 8.399981266116185e-10, 2.590830050497317e-10, -3.6249623303064027e-09, 8.691703357044389e-09, 1.091088197568979e-08, -2.6555225574043106e-08, -1.5036500045084722e-08, -1.6170581318419863e-08, -1.097982220699123e-07, -3.350102772969876e-08, 6.844762623359202e-08, 7.813621749619415e-08, -1.1470842764538247e-07, 1.963781244285201e-07, 1.3450781821688906e-08, 7.275922087046638e-10, 3.1026736735384475e-11, 1.042721464727947e-12, 2.842170943040401e-14, -7.993605777301127e-15),
    (0.009999999776482582, 0.009999999776482582, 0.009999999776482582, 0.009999999776482582, 0.010000004433095455, 0.010000075213611126, 0.010001006536185741, 0.010010581463575363, 0.010087533853948116, 0.010571255348622799, 0.012949964962899685, 0.022102223709225655, 0.04344140365719795, 0.07384870946407318, 0.23436108231544495, 0.40728074312210083, 0.602719247341156, 0.7756389379501343, 0.8954067230224609, 0.9603414535522461, 0.9878977537155151, 0.9970500469207764, 0.9994287490844727, 0.999912440776825, 0.99998939037323, 0.9999989867210388, 0.9999999403953552, 1.0, 1.0, 1.0, 1.0, 1.0),
    (5.766407490392922e-11, 6.243919964399325e-11, 9.358970542994172e-11, 7.869928042580909e-10, 1.306022578972943e-08, 2.0439992454157618e-07, 2.4898379251681035e-06, 2.362112354603596e-05, 0.0001745353074511513, 0.001004379359073937, 0.00450131157413125, 0.015711113810539246, 0.02512708306312561, 0.03518092632293701, 0.14906294643878937, 0.1914006769657135, 0.1914007067680359, 0.1490631103515625, 0.09041130542755127, 0.042707283049821854, 0.01571110263466835, 0.004501320421695709, 0.001004382036626339, 0.0001745218032738194, 2.360788857913576e-05, 2.4870021206879755e-06, 2.1034043129475322e-07, 1.4600439079970329e-08, 7.151241820935184e-10, 2.7185587114786358e-11, 7.086054291081945e-13, 1.1012429032911109e-12),
    (1.1445027148226927e-08, 1.1457248483282001e-08, 1.1876220895601364e-08, 2.3199737242407537e-08, 2.4194921621756293e-08, 3.6104981404605496e-07, 3.958230536227347e-06, 3.345854202052578e-05, 0.00021809218742419034, 0.0010879934998229146, 0.00412627262994647, 0.011783848516643047, 0.007341957651078701, 0.005289601627737284, 0.03726472333073616, 0.015949225053191185, -0.01594873145222664, -0.037265751510858536, -0.037671152502298355, -0.02491391822695732, -0.011782691814005375, -0.0041268812492489815, -0.0010882205097004771, -0.00021679293422494084, -3.2016287150327116e-05, -3.6129431464360096e-06, -1.1603359553191694e-06, -2.5119447855104227e-07, -1.1754609730019183e-08, -4.312418477869784e-10, -1.2411100792919516e-11, -3.135993526491576e-13),
    (-2.9515854205186542e-09, -3.15476489376465e-09, -3.4068543541820873e-09, -4.930933439339924e-09, 3.509012458380312e-08, 4.5010872895545617e-07, 4.460757736524101e-06, 3.356250817887485e-05, 0.0001899621420307085, 0.0008003432885743678, 0.002461784752085805, 0.005319525487720966, 5.6937773479148746e-05, -0.00223451922647655, -0.005430924240499735, -0.014951133169233799, -0.014952277764678001, -0.005438588559627533, 0.004237449262291193, 0.007339692208915949, 0.005320175550878048, 0.002461333991959691, 0.000800205918494612, 0.00019065353262703866, 3.424012538744137e-05, 4.605947651725728e-06, 1.4595684660889674e-07, -4.3777212965778745e-08, -1.2589642661708922e-09, -1.1191502585772284e-11, 3.4625251884440322e-12, -3.432933451397169e-11),
    (-1.3080374117180327e-07, -1.3091886330585112e-07, -1.3495687767317577e-07, -2.4708936052775243e-07, 4.895596461551577e-08, 4.1526433847138833e-07, 3.7681093090213835e-06, 2.570105243648868e-05, 0.00012286474520806223, 0.0004142774851061404, 0.0009392937063239515, 0.0011995690874755383, -0.0007148543372750282, -0.0009935827692970634, -0.004499992821365595, -0.002314074197784066, 0.0023083966225385666, 0.004511678591370583, 0.002699344651773572, -4.9566115194465965e-05, -0.0012127944501116872, -0.0009323367848992348, -0.00041168282041326165, -0.0001377156877424568, -4.218596950522624e-05, -7.714631465205457e-06, 8.720140613149852e-06, 2.5454885417275364e-06, 1.1628122109641481e-07, 4.1514018889188264e-09, 1.1593297155609861e-10, 2.946073723517073e-12),
    (3.373412837959222e-08, 3.609764931411519e-08, 4.0137269508022655e-08, 8.235679160861764e-08, 3.143033211472357e-08, 3.7230967109280755e-07, 2.791776523736189e-06, 1.4900223504810128e-05, 5.697000597137958e-05, 0.0001429196709068492, 0.000182263451279141, -8.549314952688292e-05, -0.00018346935394220054, 3.699458102346398e-05, -6.136533920653164e-05, 0.0013672772329300642, 0.0013789684744551778, 2.336363286303822e-05, -0.0009743085829541087, -0.0007024304359219968, -9.322822734247893e-05, 0.0001874045265140012, 0.00014449053560383618, 4.906851245323196e-05, 7.156128958740737e-06, 1.1324813158353209e-06, 3.848305823339615e-06, 9.327969792138902e-07, 4.042109580382203e-08, 1.3456287195623418e-09, 1.3282238156553383e-11, 3.1319374871330297e-10),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
SAU_X0 = (-1.7207832336425781, -2.870988780045991e-08)  # x0 = -1.7207832623524657479
SAU_GRAD_TABLE = (
    (0.01005277968943119, 0.010143036022782326, 0.010365387424826622, 0.010880134999752045, 0.01199993584305048, 0.014289123937487602, 0.018686730414628983, 0.0266253724694252, 0.04009239748120308, 0.06156046688556671, 0.09372006356716156, 0.138991579413414, 0.19887907803058624, 0.27332568168640137, 0.3602919280529022, 0.4557591676712036, 0.5542408227920532, 0.649708092212677, 0.7366743087768555, 0.8111209273338318, 0.8710084557533264, 0.9162799119949341, 0.9484395384788513, 0.9699075818061829, 0.9833746552467346, 0.9913132786750793, 0.9957108497619629, 0.9980000853538513, 0.9991198778152466, 0.9996346235275269, 0.9998569488525391, 0.9999472498893738),  # c_0's high parts
    (-4.6317819024643825e-10, -1.0415654450035561e-10, 2.449146441207972e-10, 4.637007444685537e-11, 2.719547920193577e-10, -5.826861909641323e-11, -7.016547065585854e-11, 9.142074874901596e-10, 6.663615215174445e-10, -2.6400465147347063e-10, 1.5616669069018485e-09, -7.446804062283263e-09, 5.29424371009668e-09, -7.928004919222076e-09, 2.9406252988195547e-09, -1.0253844884289265e-08, 1.978896868592983e-08, -2.3207171295780427e-08, 1.7464781620901704e-08, -1.065773425068528e-08, -2.77185918662326e-08, 2.2877415517541522e-08, -5.099793032314892e-09, 2.0046281079544315e-08, -2.8630672943563695e-08, -9.019867519555191e-09, 2.6358632609913002e-08, -2.146892086329899e-08, -1.2861380405126965e-08, -1.1197267113516318e-08, 1.5228835081870784e-08, -2.911562546614732e-08),
    (0.0002167423372156918, 0.0005534709198400378, 0.001327707665041089, 0.0029920353554189205, 0.006334139034152031, 0.01259693969041109, 0.023534182459115982, 0.04130377620458603, 0.06809841096401215, 0.10547288507223129, 0.15346214175224304, 0.20975787937641144, 0.26933443546295166, 0.32487934827804565, 0.36813655495643616, 0.3918793201446533, 0.3918793201446533, 0.36813655495643616, 0.32487934827804565, 0.26933443546295166, 0.20975787937641144, 0.15346214175224304, 0.10547288507223129, 0.06809841096401215, 0.04130377620458603, 0.023534182459115982, 0.01259693969041109, 0.006334139034152031, 0.0029920353554189205, 0.001327707665041089, 0.0005534709198400378, 0.0002167423372156918),
    (0.000419938238337636, 0.0010031659621745348, 0.002240506699308753, 0.004675055388361216, 0.009105324745178223, 0.01653348281979561, 0.027946842834353447, 0.04388526454567909, 0.06384225189685822, 0.08569671958684921, 0.10550522059202194, 0.11798880249261856, 0.11783378571271896, 0.10152477771043777, 0.06902562826871872, 0.024492476135492325, -0.02449244074523449, -0.06902558356523514, -0.10152480751276016, -0.11783383041620255, -0.11798880994319916, -0.10550522059202194, -0.08569671958684921, -0.06384225934743881, -0.043885260820388794, -0.027946840971708298, -0.01653348281979561, -0.009105324745178223, -0.004675055388361216, -0.002240506699308753, -0.0010031659621745348, -0.000419938238337636),
    (0.0005062895943410695, 0.0011199075961485505, 0.002299288520589471, 0.004371203016489744, 0.007670278195291758, 0.01236735563725233, 0.018202122300863266, 0.024201292544603348, 0.028552109375596046, 0.02884027361869812, 0.022779664024710655, 0.00928603857755661, -0.010518296621739864, -0.032993391156196594, -0.05273027345538139, -0.06429462134838104, -0.06429462134838104, -0.052730269730091095, -0.03299339488148689, -0.010518305003643036, 0.009286037646234035, 0.022779662162065506, 0.02884027175605297, 0.028552107512950897, 0.024201294407248497, 0.018202124163508415, 0.01236735563725233, 0.007670278195291758, 0.004371203016489744, 0.002299288520589471, 0.0011199075961485505, 0.0005062895943410695),
    (0.0004204864089842886, 0.0008477384108118713, 0.0015666100662201643, 0.0026358135510236025, 0.0039954837411642075, 0.005360591225326061, 0.006149371154606342, 0.005542153026908636, 0.0027452486101537943, -0.002566455863416195, -0.009753197431564331, -0.017052220180630684, -0.021933136507868767, -0.022071756422519684, -0.016452845185995102, -0.006095109973102808, 0.006087940186262131, 0.016443831846117973, 0.022077955305576324, 0.0219422634691, 0.01705358363687992, 0.009753291495144367, 0.0025664938148111105, -0.0027437268290668726, -0.0055428920313715935, -0.006149750668555498, -0.005360588431358337, -0.0039954823441803455, -0.002635812386870384, -0.0015666099498048425, -0.0008477384108118713, -0.00042048643808811903),
    (0.0002507501048967242, 0.0004473895824048668, 0.0007125577540136874, 0.0009897177806124091, 0.0011431148741394281, 0.0009530173265375197, 0.00019041041377931833, -0.0012718442594632506, -0.003273499896749854, -0.0051551200449466705, -0.006092671770602465, -0.005209933966398239, -0.0023691928945481777, 0.0020909421145915985, 0.006773181725293398, 0.009560028091073036, 0.009560026228427887, 0.0067729102447628975, 0.0020912163890898228, -0.002368579851463437, -0.005209866911172867, -0.006092536263167858, -0.005154985934495926, -0.0032733622938394547, -0.0012719788355752826, 0.0001902763469843194, 0.0009530172101221979, 0.0011431148741394281, 0.0009897177806124091, 0.0007125577540136874, 0.0004473895824048668, 0.0002507501048967242),
    (0.00010533737076912075, 0.0001562613615533337, 0.0001913732849061489, 0.00016407969815190881, 1.38551458803704e-05, -0.0003012480738107115, -0.0007266411557793617, -0.0011598028941079974, -0.0014707029331475496, -0.001052424544468522, -0.00012075288395863026, 0.0012559951283037663, 0.002259268658235669, 0.0029537014197558165, 0.0028479306492954493, 0.0011846903944388032, -0.0008582716109231114, -0.002439115894958377, -0.003239514771848917, -0.002676157047972083, -0.001314737950451672, 0.0001135917627834715, 0.001049477024935186, 0.001401223591528833, 0.0011931023327633739, 0.0007440722547471523, 0.00030112339300103486, -1.3928653970651794e-05, -0.00016415792924817652, -0.00019138198695145547, -0.0001562613615533337, -0.00010533582826610655),
)  # fmt: skip
# situ_glu at its defaults (beta_g = 4, beta_u = 25): G(g) = 4 tanh(g / 4) sigma(g) = g F on [-8, 8), G' there
# (its zero carried), U(v) = 25 tanh(v / 25) = v F and U' = sech^2(v / 25) on [-16, 16): `python
# tools/fit_table_float32.py situ_gate 6 8`, `situ_gate_grad 6 8`, `situ_up 6 16` and `situ_up_grad 6 16` (fits
# 0.049, 0.077, 0.0009 and 0.0024 ULP; G and G' on [-16, 16) were 1.3 and 4.8)
SITU_GATE_TABLE = (
    (0.00021318637300282717, 0.00037121548666618764, 0.0006471831002272666, 0.001129312557168305, 0.001971352379769087, 0.003439940046519041, 0.005993780214339495, 0.010411965660750866, 0.017991501837968826, 0.030824754387140274, 0.05212230980396271, 0.08642136305570602, 0.13927267491817474, 0.2157232016324997, 0.31711381673812866, 0.43725430965423584, 0.5614456534385681, 0.671329915523529, 0.7529479265213013, 0.8014588952064514, 0.8199430108070374, 0.8153301477432251, 0.7949808835983276, 0.765018105506897, 0.7299351692199707, 0.6927867531776428, 0.6555365324020386, 0.619380533695221, 0.584998369216919, 0.5527324080467224, 0.5227103233337402, 0.49492761492729187),  # c_0's high parts
    (3.22591779677861e-12, -3.5862415467824427e-12, 4.8164835834974e-13, 1.5581345241821865e-11, 9.765717401410967e-11, -4.050405844058247e-11, -1.8968815407305328e-10, 7.893213166410007e-11, -1.3643787488692993e-10, -6.789622197800327e-10, 1.7556943676666492e-09, -2.730536241557502e-09, -3.969264916747761e-09, -5.617933673818243e-09, -1.2558094120151964e-08, -3.895140654464058e-09, -1.1287170309515204e-08, 1.315470665730345e-08, 1.1361603213799754e-08, -1.031611862600812e-08, 2.6616298498538526e-08, -1.4974979478665773e-08, -7.516762323689363e-09, 1.370155100488546e-08, -1.768118629286164e-08, 2.2575413538561406e-08, -1.763542201160817e-09, 2.801631815430028e-09, 2.6478424786091637e-08, -9.978433190838132e-09, -1.931596438353722e-09, -4.753987425942796e-09),
    (0.00023617605620529503, 0.00041225459426641464, 0.0007201338303275406, 0.0012581122573465109, 0.0021963706240057945, 0.0038267069030553102, 0.006641842890530825, 0.011453883722424507, 0.019550301134586334, 0.03284410387277603, 0.053865425288677216, 0.08522813022136688, 0.12796984612941742, 0.17842543125152588, 0.22512654960155487, 0.25036051869392395, 0.23997634649276733, 0.1947370320558548, 0.13018198311328888, 0.06504329293966293, 0.011321022175252438, -0.027266887947916985, -0.05207972601056099, -0.06628186255693436, -0.0730440616607666, -0.0749058946967125, -0.07370470464229584, -0.07069862633943558, -0.06671985983848572, -0.06230422109365463, -0.05778736621141434, -0.05337221175432205),
    (0.00013144371041562408, 0.00022983648523222655, 0.00040182206430472434, 0.0007016935269348323, 0.001222160761244595, 0.00211866432800889, 0.0036442812997847795, 0.006191559135913849, 0.010319417342543602, 0.016697201877832413, 0.025807296857237816, 0.03714572638273239, 0.047790803015232086, 0.05119706317782402, 0.039073310792446136, 0.00880360510200262, -0.02944239415228367, -0.05820973590016365, -0.06759662181138992, -0.06066909059882164, -0.04622163623571396, -0.031237952411174774, -0.018943700939416885, -0.009998108260333538, -0.003949886187911034, -7.761070446576923e-05, 0.0022729577030986547, 0.0036026756279170513, 0.004267149604856968, 0.00450928695499897, 0.004491354804486036, 0.00432009669020772),
    (4.895053643849678e-05, 8.562942093703896e-05, 0.0001495486794738099, 0.00026031097513623536, 0.0004505253164097667, 0.0007724373717792332, 0.0013049417175352573, 0.0021539009176194668, 0.0034271597396582365, 0.0051386733539402485, 0.006969029083848, 0.007842715829610825, 0.0056091914884746075, -0.0020798167679458857, -0.014484220184385777, -0.024679986760020256, -0.024164248257875443, -0.013027886860072613, 6.202384975040331e-05, 0.008104933425784111, 0.010367230512201786, 0.009270776994526386, 0.0070655616000294685, 0.00492105120792985, 0.0032266390044242144, 0.0020096092484891415, 0.001179645536467433, 0.0006322584813460708, 0.0002805108088068664, 6.026624396326952e-05, -7.247499888762832e-05, -0.00014824644313193858),
    (1.369730853184592e-05, 2.39182172663277e-05, 4.159694799454883e-05, 7.182682020356879e-05, 0.00012267951387912035, 0.0002057938399957493, 0.0003356919623911381, 0.0005229420494288206, 0.0007533365860581398, 0.0009352464112453163, 0.0008091786876320839, -0.00011972192442044616, -0.00233857543207705, -0.005326598882675171, -0.006462807301431894, -0.00291096861474216, 0.003419580403715372, 0.006879336200654507, 0.005590631160885096, 0.00243012560531497, 6.358978134812787e-05, -0.0009672635933384299, -0.001144310226663947, -0.0009714104235172272, -0.000722581404261291, -0.0005026523140259087, -0.00033614353742450476, -0.00021862990979570895, -0.0001386025542160496, -8.518231334164739e-05, -5.0090329750673845e-05, -2.734744703047909e-05),
    (3.068803380301688e-06, 5.333591616363265e-06, 9.172298632620368e-06, 1.5633662769687362e-05, 2.588849383755587e-05, 4.172079570707865e-05, 6.307370495051146e-05, 8.618246647529304e-05, 9.186257375404239e-05, 3.4982163924723864e-05, -0.00017341278726235032, -0.0006144410581327975, -0.0011323386570438743, -0.0010540896328166127, 0.0004035364545416087, 0.0022867799270898104, 0.002278729109093547, 0.000343736115610227, -0.0011201329762116075, -0.0011987960897386074, -0.0006634349701926112, -0.00020357216999400407, 2.3285640054382384e-05, 9.512594988336787e-05, 9.785070869838819e-05, 7.891541463322937e-05, 5.8144243666902184e-05, 3.8705104088876396e-05, 2.4091476007015444e-05, 1.7219233996002004e-05, 1.0840953109436668e-05, 6.941562787687872e-06),
    (5.624650611935067e-07, 9.702345096229692e-07, 1.6115128573801485e-06, 2.7599025997915305e-06, 4.137672931392444e-06, 6.3300471992988605e-06, 7.727203410468064e-06, 6.9099651227588765e-06, -5.1060496844002046e-06, -3.7329653423512354e-05, -0.00010465468949405476, -0.00018292090680915862, -0.00012614474690053612, 0.00022797469864599407, 0.0006860129069536924, 0.00041641914867796004, -0.00042989832581952214, -0.0006919075385667384, -0.0002430855529382825, 0.00013131738523952663, 0.00018701593216974288, 0.00011275667930021882, 4.4169853936182335e-05, 8.279074791062158e-06, -4.786972112924559e-06, -7.678288056922611e-06, -7.033409929135814e-06, -4.971398539055372e-06, -3.1199676868709503e-06, -2.332169060537126e-06, -1.5994958175724605e-06, -9.830600902205333e-07),
)  # fmt: skip
SITU_GATE_GRAD_TABLE = (
    (-0.001617178088054061, -0.00261763040907681, -0.0042137205600738525, -0.0067338887602090836, -0.010657778941094875, -0.01665027067065239, -0.025554973632097244, -0.03826703876256943, -0.055322129279375076, -0.07591858506202698, -0.09600760787725449, -0.10534194111824036, -0.08467455208301544, 0.2339179366827011, 0.3163031041622162, 0.37466415762901306, 0.6214397549629211, 0.8173826932907104, 0.9156754016876221, 0.9152846336364746, 0.8454153537750244, 0.7403461933135986, 0.6257217526435852, 0.5164611339569092, 0.41949787735939026, 0.3369837701320648, 0.26858681440353394, 0.21286343038082123, 0.1679992973804474, 0.1321789026260376, 0.10375192016363144, 0.08129297196865082),  # c_0's high parts
    (1.41966187069964e-11, 1.1448247905221365e-10, 2.181434477499522e-10, 1.1127708476887932e-10, -1.472506561128739e-10, -1.1398383625849107e-10, -6.642207339702111e-10, 2.960269529506121e-10, -4.1578956944121614e-10, 1.4112465640536698e-09, -4.182837409771878e-10, 1.395576099127993e-09, -5.220748278134124e-10, 3.1331808258983074e-09, 1.4504842660301165e-08, 1.303747598768723e-08, -2.6350836179744874e-08, 1.3434279466650878e-08, 1.4131886771906466e-08, 8.211346269604292e-09, -1.6155269122464233e-08, -2.6945214948170815e-09, 1.6335729213778905e-08, -1.5546752774042716e-10, 5.545008008311925e-09, -5.6511928470115436e-09, -9.955299917763227e-10, 5.372200906350599e-09, -4.433375888623914e-09, 3.4069516097190444e-09, 1.3513465901837662e-09, 1.106009950291309e-09),
    (-0.0015650255372747779, -0.0025081199128180742, -0.003984331153333187, -0.006254943553358316, -0.009662110358476639, -0.01459256000816822, -0.021336987614631653, -0.029720479622483253, -0.03829503059387207, -0.042843591421842575, -0.034209270030260086, 0.003300480777397752, 0.08867188543081284, 0.1619424968957901, 0.16072337329387665, 0.4963192343711853, 0.46523144841194153, 0.30215948820114136, 0.09137245267629623, -0.08225522935390472, -0.1853553205728531, -0.22634251415729523, -0.22729350626468658, -0.2075495421886444, -0.17966215312480927, -0.15054908394813538, -0.12354335188865662, -0.09996648132801056, -0.08010035008192062, -0.0637330710887909, -0.05045008659362793, -0.03978292644023895),
    (-0.0007437707972712815, -0.001172941643744707, -0.0018228909466415644, -0.0027758246287703514, -0.0041050235740840435, -0.005809984169900417, -0.007662489544600248, -0.008887777104973793, -0.007596831303089857, -1.0216549526376184e-05, 0.019927838817238808, 0.058500126004219055, 0.11392246931791306, 0.017686590552330017, -0.0232855211943388, 0.044922053813934326, -0.1064506396651268, -0.20394226908683777, -0.20255598425865173, -0.1394549012184143, -0.06868632137775421, -0.017230305820703506, 0.012057449668645859, 0.02536749094724655, 0.029290949925780296, 0.028405852615833282, 0.025401048362255096, 0.02171439118683338, 0.018057774752378464, 0.014748210087418556, 0.011896951124072075, 0.009512951597571373),
    (-0.0002288010437041521, -0.00035110316821374, -0.0005248382221907377, -0.0007545329863205552, -0.001019260031171143, -0.0012320741079747677, -0.0011582286097109318, -0.00027500599389895797, 0.002408933360129595, 0.008395344018936157, 0.01897408254444599, 0.032449573278427124, 0.03880618140101433, -0.020227566361427307, -0.032555654644966125, -0.09580907970666885, -0.09323319047689438, -0.03147643432021141, 0.02819744497537613, 0.04943064600229263, 0.0420413464307785, 0.026443319395184517, 0.013386208564043045, 0.005113253835588694, 0.000622549036052078, -0.001512332120910287, -0.002340584062039852, -0.0024995384737849236, -0.0023428970016539097, -0.002058626851066947, -0.0017426140839233994, -0.0014405931578949094),
    (-5.015259739593603e-05, -7.316515984712169e-05, -0.00010108046990353614, -0.0001271606161026284, -0.00013093845336697996, -6.342541018966585e-05, 0.0001791235845303163, 0.0007856892771087587, 0.0020278175361454487, 0.004087199456989765, 0.006399629171937704, 0.006278493907302618, -0.0017193808453157544, -0.008157999254763126, -0.0026229594368487597, -0.017460426315665245, 0.019968800246715546, 0.03567434474825859, 0.02086222544312477, 0.0015991530381143093, -0.007131724618375301, -0.007605624385178089, -0.005313325673341751, -0.0030652752611786127, -0.0015491773374378681, -0.000672165013384074, -0.0002078777615679428, 2.0566665625665337e-05, 0.00012114342098357156, 0.0001554190821480006, 0.0001569594896864146, 0.00014353342703543603),
    (-7.970763363118749e-06, -1.0336322702642065e-05, -1.1613339665927924e-05, -7.855480362195522e-06, 8.126706234179437e-06, 5.346731632016599e-05, 0.00015533657278865576, 0.0003512823604978621, 0.000659838377032429, 0.0009563513449393213, 0.0007036253227852285, -0.0012388412142172456, -0.00545778451487422, 0.00042200443567708135, 0.0039797695353627205, 0.013098586350679398, 0.012958808802068233, -0.001001241384074092, -0.00848128367215395, -0.005815677344799042, -0.0014575967798009515, 0.000636451761238277, 0.0010001232149079442, 0.0007552583701908588, 0.00046621172805316746, 0.00025905686197802424, 0.00012988738308195025, 6.16898832959123e-05, 2.4946421035565436e-05, 5.313049769029021e-06, -3.1351748930319445e-06, -6.799819857405964e-06),
    (-8.437325504928594e-07, -6.510185812658165e-07, -8.868346412782557e-08, 2.691785539354896e-06, 8.456340765405912e-06, 2.2746817194274627e-05, 4.795940549229272e-05, 8.438314398517832e-05, 0.0001153615303337574, 5.65746049687732e-05, -0.0002875238424167037, -0.0010622435947880149, -0.001549238571897149, 0.0010552700841799378, 0.000994456117041409, 0.003378089051693678, -0.003356330329552293, -0.0044965678825974464, -0.0003972587292082608, 0.0015961861936375499, 0.0011143008014187217, 0.0003321900439914316, -2.927166860899888e-05, -0.00010125080734724179, -8.720917685423046e-05, -5.8150297263637185e-05, -3.0835326469969004e-05, -1.7727357771946117e-05, -9.118057278101332e-06, -3.9522042243334e-06, -1.8478046968084527e-06, -7.105310828592337e-07),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # the zero's intervals
)  # fmt: skip
SITU_X0 = (-1.2187557220458984, -4.826114174960594e-09)  # x0 = -1.2187557268720124631
SITU_UP_TABLE = (
    (0.8889161944389343, 0.9011473059654236, 0.9129406809806824, 0.9242343306541443, 0.9349656701087952, 0.9450724720954895, 0.9544933438301086, 0.9631687998771667, 0.9710420370101929, 0.9780597686767578, 0.9841729998588562, 0.9893381595611572, 0.9935174584388733, 0.996679961681366, 0.9988017082214355, 0.9998666644096375, 0.9998666644096375, 0.9988017082214355, 0.996679961681366, 0.9935174584388733, 0.9893381595611572, 0.9841729998588562, 0.9780597686767578, 0.9710420370101929, 0.9631687998771667, 0.9544933438301086, 0.9450724720954895, 0.9349656701087952, 0.9242343306541443, 0.9129406809806824, 0.9011473059654236, 0.8889161944389343),  # c_0's high parts
    (-1.9377406346166026e-08, -1.3403663068345395e-08, -1.9523049843428453e-09, -1.6134125147004852e-08, 6.8520291662821364e-09, -1.494054302497716e-08, -8.098394843614187e-09, 8.38373104272705e-09, 4.495109173774381e-09, -2.780602414986788e-08, 6.927639351061998e-09, -3.353767485947401e-09, 2.6407255049321066e-08, -1.5431808719768014e-08, 1.7264289553509116e-08, 2.3586910202766376e-08, 2.3586910202766376e-08, 1.7264289553509116e-08, -1.5431808719768014e-08, 2.6407255049321066e-08, -3.353767485947401e-09, 6.927639351061998e-09, -2.780602414986788e-08, 4.495109173774381e-09, 8.38373104272705e-09, -8.098394843614187e-09, -1.494054302497716e-08, 6.852029610371346e-09, -1.6134125147004852e-08, -1.95230520638745e-09, -1.3403663068345395e-08, -1.9377406346166026e-08),
    (0.012429566122591496, 0.012022512964904308, 0.011553912423551083, 0.011022926308214664, 0.010429400950670242, 0.009773925878107548, 0.009057899005711079, 0.00828355923295021, 0.007454010657966137, 0.006573224440217018, 0.005646014120429754, 0.004677989520132542, 0.0036754838656634092, 0.002645462052896619, 0.0015954020200297236, 0.0005331627326086164, -0.0005331627326086164, -0.0015954020200297236, -0.002645462052896619, -0.0036754838656634092, -0.004677989520132542, -0.005646014120429754, -0.006573224440217018, -0.007454010657966137, -0.00828355923295021, -0.009057899005711079, -0.009773925878107548, -0.010429400950670242, -0.011022926308214664, -0.011553912423551083, -0.012022512964904308, -0.012429566122591496),
    (-0.00018835635273717344, -0.000218817382119596, -0.0002498541434761137, -0.00028114503948017955, -0.0003123320930171758, -0.00034302627318538725, -0.00037281427648849785, -0.0004012671415694058, -0.00042795026092790067, -0.0004524344112724066, -0.00047430783160962164, -0.000493188388645649, -0.0005087356548756361, -0.0005206618807278574, -0.0005287420935928822, -0.0005328215193003416, -0.0005328215193003416, -0.0005287420935928822, -0.0005206618807278574, -0.0005087356548756361, -0.000493188388645649, -0.00047430783160962164, -0.0004524344112724066, -0.00042795026092790067, -0.0004012671415694058, -0.00037281427648849785, -0.00034302627318538725, -0.0003123320930171758, -0.00028114503948017955, -0.0002498541434761137, -0.000218817382119596, -0.00018835635273717344),
    (-1.0021943126048427e-05, -1.026117206492927e-05, -1.041009818436578e-05, -1.04310392998741e-05, -1.0341555025661364e-05, -1.0099853170686401e-05, -9.727938959258609e-06, -9.215127647621557e-06, -8.551809514756314e-06, -7.748601092316676e-06, -6.812352694396395e-06, -5.758501629316015e-06, -4.59189277535188e-06, -3.343649268572335e-06, -2.032727479672758e-06, -6.824279239481257e-07, 6.824279239481257e-07, 2.032727479672758e-06, 3.343649268572335e-06, 4.59189277535188e-06, 5.758501629316015e-06, 6.812352694396395e-06, 7.748601092316676e-06, 8.551809514756314e-06, 9.215127647621557e-06, 9.727938959258609e-06, 1.0099853170686401e-05, 1.0341555025661364e-05, 1.04310392998741e-05, 1.041009818436578e-05, 1.026117206492927e-05, 1.0021943126048427e-05),
    (-7.162071824495797e-08, -4.810786435882619e-08, -2.163374368535642e-08, 8.342403212679983e-09, 4.086248139856252e-08, 7.561278181356101e-08, 1.1142288514065513e-07, 1.4746541410204372e-07, 1.8339237328746094e-07, 2.1778440384423448e-07, 2.497608875273727e-07, 2.7813990755021223e-07, 3.0249319138420105e-07, 3.209632382095151e-07, 3.341472165629966e-07, 3.402624599857518e-07, 3.402624599857518e-07, 3.341472165629966e-07, 3.209632382095151e-07, 3.0249319138420105e-07, 2.7813990755021223e-07, 2.497608875273727e-07, 2.1778440384423448e-07, 1.8339237328746094e-07, 1.4746541410204372e-07, 1.1142288514065513e-07, 7.561278181356101e-08, 4.086243166057102e-08, 8.342403212679983e-09, -2.163372059271751e-08, -4.810786435882619e-08, -7.162071824495797e-08),
    (-5.084272558519842e-09, -9.988013971451437e-09, 1.4898525080297986e-08, -1.6548336034816202e-09, 2.2853971159975117e-08, -4.389274277372124e-09, -1.2855290165703082e-09, 1.2015545003407624e-08, 8.304407828063631e-09, 7.098031939989369e-09, 5.557172055858928e-09, 1.3760113937166807e-08, 4.0913200605174893e-10, -7.55754014925003e-10, 7.844305205395585e-10, 1.5581438361778055e-09, -1.5581438361778055e-09, -7.844305205395585e-10, 7.55754014925003e-10, -4.0913200605174893e-10, -1.3760113937166807e-08, -5.557172055858928e-09, -7.098031939989369e-09, -8.304407828063631e-09, -1.2015545003407624e-08, 1.2855291275926106e-09, 4.389274277372124e-09, -2.2853971159975117e-08, 1.6548336034816202e-09, -1.4898525080297986e-08, 9.988013971451437e-09, 5.084272558519842e-09),
    (-2.8463584267335307e-10, -3.1462032978879506e-10, 6.649358841315234e-10, 3.234264522866681e-10, 2.0315195359277283e-10, -5.317227214085563e-10, -5.37877520301322e-10, 1.3194878523137277e-10, -1.1350700240830847e-10, -1.2752311706609731e-10, -2.9364982667701156e-10, -1.28345181704681e-10, -9.985763327335917e-10, -1.0893012186707907e-10, -8.09365519049976e-10, 4.2696571278533213e-10, 4.2696571278533213e-10, -8.09365519049976e-10, -1.0893012186707907e-10, -9.985763327335917e-10, -1.28345181704681e-10, -2.9364982667701156e-10, -1.2752311706609731e-10, -1.1350700240830847e-10, 1.3194878523137277e-10, -5.378777978570781e-10, -5.317227214085563e-10, 2.033285900759907e-10, 3.234264800422437e-10, 6.648542827392134e-10, -3.1462032978879506e-10, -2.8463584267335307e-10),
)  # fmt: skip
SITU_UP_GRAD_TABLE = (
    (0.6962578892707825, 0.7268208265304565, 0.7569628357887268, 0.7864477038383484, 0.8150275945663452, 0.8424462080001831, 0.8684433102607727, 0.8927585482597351, 0.9151369333267212, 0.935333788394928, 0.9531199336051941, 0.9682872295379639, 0.9806532859802246, 0.9900662899017334, 0.9964086413383484, 0.9996001124382019, 0.9996001124382019, 0.9964086413383484, 0.9900662899017334, 0.9806532859802246, 0.9682872295379639, 0.9531199336051941, 0.935333788394928, 0.9151369333267212, 0.8927585482597351, 0.8684433102607727, 0.8424462080001831, 0.8150275945663452, 0.7864477038383484, 0.7569628357887268, 0.7268208265304565, 0.6962578892707825),  # c_0's high parts
    (6.888873027577347e-09, 2.2080881123542895e-08, 2.8924603157065576e-08, 2.9127578571319646e-08, -2.3463607945473086e-08, 2.414807909190131e-08, -1.729765486402357e-08, 7.629567200240217e-09, 2.8499908211188085e-08, -6.308668698551401e-09, -4.557892729906143e-09, -2.5127386393819506e-08, 4.962953603637743e-09, 9.457065131002196e-10, -1.8930947476292204e-08, -5.795709245859371e-09, -5.795708801770161e-09, -1.8930947476292204e-08, 9.457065131002196e-10, 4.962953603637743e-09, -2.5127386393819506e-08, -4.557893173995353e-09, -6.308668698551401e-09, 2.8499908211188085e-08, 7.629567200240217e-09, -1.729765486402357e-08, 2.414807731554447e-08, -2.3463607945473086e-08, 2.9127578571319646e-08, 2.8924603157065576e-08, 2.2080881123542895e-08, 6.888873471666557e-09),
    (0.030698180198669434, 0.030390730127692223, 0.029853885993361473, 0.029074478894472122, 0.028042439371347427, 0.026751404628157616, 0.025199269875884056, 0.023388659581542015, 0.021327275782823563, 0.01902809552848339, 0.016509413719177246, 0.013794674538075924, 0.010912117548286915, 0.007894233800470829, 0.004777030553668737, 0.0015991469845175743, -0.0015991469845175743, -0.004777030553668737, -0.007894233800470829, -0.010912117548286915, -0.013794674538075924, -0.016509413719177246, -0.01902809552848339, -0.021327275782823563, -0.023388659581542015, -0.025199269875884056, -0.026751404628157616, -0.028042439371347427, -0.029074478894472122, -0.029853885993361473, -0.030390730127692223, -0.030698180198669434),
    (-9.889493230730295e-05, -0.00020986233721487224, -0.0003280842211097479, -0.0004521674709394574, -0.0005804075044579804, -0.0007108071586117148, -0.000841111468616873, -0.0009688582504168153, -0.0010914448648691177, -0.001206208486109972, -0.0013105167308822274, -0.0014018655056133866, -0.0014779777266085148, -0.0015368979657068849, -0.0015770770842209458, -0.0015974415000528097, -0.0015974415000528097, -0.0015770770842209458, -0.0015368979657068849, -0.0014779777266085148, -0.0014018655056133866, -0.0013105167308822274, -0.001206208486109972, -0.0010914448648691177, -0.0009688582504168153, -0.000841111468616873, -0.0007108071586117148, -0.0005804075044579804, -0.0004521674709394574, -0.0003280842211097479, -0.00020986233721487224, -9.889493230730295e-05),
    (-3.566267332644202e-05, -3.8262136513367295e-05, -4.046154936077073e-05, -4.215239096083678e-05, -4.322722088545561e-05, -4.359359809313901e-05, -4.315608020988293e-05, -4.1868119296850637e-05, -3.9714894228382036e-05, -3.6647361412178725e-05, -3.2735293643781915e-05, -2.8034655770170502e-05, -2.2606278434977867e-05, -1.659086046856828e-05, -1.0139006008103024e-05, -3.4098227388312807e-06, 3.4098227388312807e-06, 1.0139006008103024e-05, 1.659086046856828e-05, 2.2606278434977867e-05, 2.8034655770170502e-05, 3.2735293643781915e-05, 3.6647361412178725e-05, 3.9714894228382036e-05, 4.1868119296850637e-05, 4.315608020988293e-05, 4.359359809313901e-05, 4.322722088545561e-05, 4.215239096083678e-05, 4.046154936077073e-05, 3.8262136513367295e-05, 3.566267332644202e-05),
    (-6.974747179810947e-07, -6.063438036107982e-07, -4.899671921521076e-07, -3.4794911130120454e-07, -1.816536894239107e-07, 5.988897378017555e-09, 2.119991222571116e-07, 4.296075246656983e-07, 6.518578743452963e-07, 8.724999815967749e-07, 1.081885670828342e-06, 1.2722896371997194e-06, 1.4360400655277772e-06, 1.565612251397397e-06, 1.6547850236747763e-06, 1.7014403965731617e-06, 1.7014403965731617e-06, 1.6547850236747763e-06, 1.565612251397397e-06, 1.4360400655277772e-06, 1.2722896371997194e-06, 1.0818857845151797e-06, 8.724999815967749e-07, 6.518578743452963e-07, 4.296075246656983e-07, 2.119991222571116e-07, 5.989091889091469e-09, -1.816536894239107e-07, -3.4794911130120454e-07, -4.899671921521076e-07, -6.063438036107982e-07, -6.974747748245136e-07),
    (4.699096933791225e-08, 7.271791169216613e-09, 6.839885324794182e-10, 1.7764950399623558e-08, 4.132570907700028e-08, 7.168274152036247e-08, 5.983194739656028e-08, 4.0398298040145164e-08, 6.845117184184346e-08, 1.923513615054162e-08, 1.706797014833228e-08, 5.25363752501562e-08, 3.711624074753672e-08, 2.4299412260120334e-08, 2.198760107319231e-08, 5.647556644561291e-09, -5.647556644561291e-09, -2.198760107319231e-08, -2.4299412260120334e-08, -3.711624074753672e-08, -5.25363752501562e-08, -1.706797014833228e-08, -1.923513615054162e-08, -6.845117184184346e-08, -4.0398298040145164e-08, -5.983194739656028e-08, -7.168274152036247e-08, -4.132570907700028e-08, -1.7764950399623558e-08, -6.839885324794182e-10, -7.2717916133058225e-09, -4.699096933791225e-08),
    (3.707362639104872e-09, -2.799581677592755e-10, -1.0167996444820915e-09, -5.715015682916658e-10, 4.2284772905354373e-10, 2.080259520198524e-09, 8.311099031210745e-10, 9.197889672130088e-11, 7.13680725628052e-10, -1.310632602447015e-09, -1.617127098896276e-09, -1.7519615758132545e-09, -2.56530086062412e-09, -2.7589794893145836e-09, -1.1618725981321631e-09, -3.0597797628928447e-09, -3.0598190647879164e-09, -1.1618725981321631e-09, -2.7589794893145836e-09, -2.56530086062412e-09, -1.7519615758132545e-09, -1.617583400559397e-09, -1.31063238040241e-09, 7.13680725628052e-10, 9.197890366019479e-11, 8.311099031210745e-10, 2.079566741031158e-09, 4.228474792533632e-10, -5.715015682916658e-10, -1.0167996444820915e-09, -2.7995819551485113e-10, 3.7075704728550818e-09),
)  # fmt: skip
# sqrtsoftplus on [-8, 8): sqrt(softplus(x)) and its derivative sigma(x) / (2 sqrt(softplus(x))), both positive:
# `python tools/fit_table_float32.py sqrtsoftplus 6 8` and `sqrtsoftplus_grad 6 8` (fits 0.027 and 0.018 ULP)
SQRTSOFTPLUS_TABLE = (
    (0.020752103999257088, 0.02664436772465706, 0.034208107739686966, 0.043915752321481705, 0.05637132748961449, 0.07234499603509903, 0.09281424432992935, 0.1190103217959404, 0.1524646282196045, 0.1950419694185257, 0.24893289804458618, 0.3165541887283325, 0.40028008818626404, 0.5019253492355347, 0.6219895482063293, 0.7589067220687866, 0.9088121056556702, 1.0662415027618408, 1.2255321741104126, 1.3821085691452026, 1.5330383777618408, 1.6768922805786133, 1.8132957220077515, 1.9424843788146973, 2.0649850368499756, 2.181424856185913, 2.2924296855926514, 2.39857816696167, 2.5003857612609863, 2.598301410675049, 2.692714214324951, 2.7839596271514893),
    (-5.483068998834995e-10, 5.428396968043536e-11, 5.952494053218516e-10, -1.112838377004266e-09, -8.118659078348855e-10, -2.070480231708416e-09, -1.0147571671836886e-09, 9.978576853697518e-10, 4.965846400750706e-09, 4.750315696355756e-09, 2.559267908708307e-09, 7.1319070649167315e-09, 1.7991597101030266e-09, 2.5045620688501913e-08, 6.462227197800985e-09, 4.661989905230257e-09, -1.2935741366959519e-08, 2.9965246284291425e-08, -1.1600358007513023e-08, 1.9367398351732845e-08, -3.547616955756894e-08, -3.925732627862999e-08, -1.0378646830844218e-09, -2.5113937596188407e-08, 6.162685650679123e-08, 1.8468748308464455e-08, -1.4228295874829655e-08, 1.049467925895442e-07, -7.237132848558758e-08, -5.010983183950657e-09, 1.5283220022865862e-08, -9.982397841667989e-08),
    (0.010373817756772041, 0.013317456468939781, 0.017094049602746964, 0.02193671464920044, 0.028140926733613014, 0.03607800230383873, 0.04620780795812607, 0.059085745364427567, 0.07535311579704285, 0.09568937122821808, 0.12068844586610794, 0.15060527622699738, 0.1849295049905777, 0.2218458652496338, 0.2578992545604706, 0.2884567379951477, 0.30929192900657654, 0.31849196553230286, 0.3171274960041046, 0.308207631111145, 0.2950515151023865, 0.2802545428276062, 0.2654484510421753, 0.2514879107475281, 0.23872724175453186, 0.22724196314811707, 0.21697063744068146, 0.20779545605182648, 0.19958385825157166, 0.19220836460590363, 0.18555447459220886, 0.17952299118041992),
    (0.0025917794555425644, 0.0033258204348385334, 0.004266015253961086, 0.005468329880386591, 0.007001756224781275, 0.008948897011578083, 0.011403393000364304, 0.014460071921348572, 0.018189838156104088, 0.022585755214095116, 0.027462061494588852, 0.03229624405503273, 0.03605686500668526, 0.03719358146190643, 0.03411267325282097, 0.026261312887072563, 0.01507766917347908, 0.003521897830069065, -0.005718916188925505, -0.011550219729542732, -0.014326583594083786, -0.014999321661889553, -0.014475327916443348, -0.013390442356467247, -0.01212061196565628, -0.010861466638743877, -0.009701458737254143, -0.008671311661601067, -0.007773242890834808, -0.0069968742318451405, -0.0063274214044213295, -0.005749600473791361),
    (0.0004311296215746552, 0.0005525164888240397, 0.0007073074812069535, 0.0009035163675434887, 0.0011503291316330433, 0.001456394442357123, 0.0018270404543727636, 0.0022569200955331326, 0.002716315444558859, 0.0031259525567293167, 0.0033199023455381393, 0.003011867171153426, 0.0018252425361424685, -0.0004999060765840113, -0.003682082751765847, -0.0066214557737112045, -0.00793751422315836, -0.007155332714319229, -0.005048837047070265, -0.002777945250272751, -0.0010379685554653406, 3.767739326576702e-05, 0.0005913838394917548, 0.000814354105386883, 0.0008571529760956764, 0.0008118456462398171, 0.0007316371193155646, 0.0006418830016627908, 0.0005568258929997683, 0.0004798381996806711, 0.00041392879211343825, 0.00035751861287280917),
    (5.358187627280131e-05, 6.838434637757018e-05, 8.705757500138134e-05, 0.00011002266546711326, 0.00013761142326984555, 0.000169017119333148, 0.0002012880431720987, 0.00022631774481851608, 0.0002266744413645938, 0.00016926025273278356, 5.652219670082559e-07, -0.0003416232066228986, -0.0008705544751137495, -0.0014346173265948892, -0.0016512343427166343, -0.0011599926510825753, -0.00011376693873899058, 0.0008223523036576807, 0.0011789505369961262, 0.0010333446552976966, 0.0006980213220231235, 0.0003906009951606393, 0.00017970590852200985, 5.65664486202877e-05, -6.52204380457988e-06, -3.4621116355992854e-05, -4.400437683216296e-05, -4.437280585989356e-05, -4.063824599143118e-05, -3.56942146026995e-05, -3.0535386031260714e-05, -2.5856712454697117e-05),
    (5.226872417551931e-06, 6.830931397416862e-06, 7.738036401860882e-06, 9.733482329465915e-06, 1.1415198969189078e-05, 1.3147505342203658e-05, 1.2346110452199355e-05, 7.135939540603431e-06, -7.889821063145064e-06, -4.066480687470175e-05, -9.912882524076849e-05, -0.00017751805717125535, -0.00023602288274560124, -0.00018618129251990467, 3.5526729334378615e-05, 0.0003467842179816216, 0.0004385340434964746, 0.0002765220997389406, 3.136582381557673e-05, -0.00010961949737975374, -0.00013007032976020128, -0.00010693764488678426, -7.026199455140159e-05, -3.0354131013154984e-05, -1.4031227692612447e-05, -3.0631204026576597e-06, -4.089646154170623e-06, 2.681506657609134e-06, -4.3182836861888063e-07, 6.378384114213986e-06, 4.008782525488641e-06, 6.010884135321248e-06),
    (3.625065403412009e-07, 7.218766882033378e-07, 1.2321312858887268e-08, 1.6769227784152463e-07, 9.567268932642037e-08, 3.312553928935813e-07, -8.4461771621136e-07, -2.7590915578912245e-06, -6.287245014391374e-06, -1.368953144265106e-05, -2.350308932363987e-05, -2.6351792257628404e-05, -7.743117748759687e-06, 4.550063022179529e-05, 9.497063729213551e-05, 8.615455590188503e-05, -1.873276778496802e-05, -7.991296297404915e-05, -6.544827920151874e-05, -2.1704652681364678e-05, 7.901835488155484e-06, 1.2990240975341294e-05, 1.0182717232964933e-05, 9.398124348081183e-06, 5.475102170748869e-06, 2.9816083042533137e-06, 8.494694725413865e-07, 7.968009754222294e-07, -2.5414786364308384e-07, 5.863817591489351e-07, 2.6313429657420784e-07, 5.214641873863002e-07),
)  # fmt: skip
SQRTSOFTPLUS_GRAD_TABLE = (
    (0.010373817756772041, 0.013317456468939781, 0.017094049602746964, 0.02193671464920044, 0.028140926733613014, 0.03607800230383873, 0.04620780795812607, 0.059085745364427567, 0.07535311579704285, 0.09568937122821808, 0.12068844586610794, 0.15060527622699738, 0.1849295049905777, 0.2218458652496338, 0.2578992545604706, 0.2884567379951477, 0.30929192900657654, 0.31849196553230286, 0.3171274960041046, 0.308207631111145, 0.2950515151023865, 0.2802545428276062, 0.2654484510421753, 0.2514879107475281, 0.23872724175453186, 0.22724196314811707, 0.21697063744068146, 0.20779545605182648, 0.19958385825157166, 0.19220836460590363, 0.18555447459220886, 0.17952299118041992),
    (6.710232369755431e-11, -3.1857139148883107e-10, 9.306038717404874e-10, 6.556691301007334e-10, 8.395496520208212e-10, -1.679526240305762e-10, -2.5899554723096685e-10, -8.96811402917308e-10, -1.3406732390919274e-09, -1.0219518564724694e-09, 7.559040060556299e-10, 1.0787866155936854e-09, 2.953011168926878e-10, 9.27807053408003e-10, 1.2730590803755604e-08, -1.2229811829911341e-08, 5.698301386303228e-09, -1.1162922142204934e-08, -1.2549999262034817e-08, -9.41942257526307e-09, -1.1774467623126839e-08, 3.846573282118015e-09, 8.776819271361092e-09, -8.611163337945982e-09, -5.009839654235293e-09, -6.272749875080308e-09, 4.392439301170725e-09, -3.04699887543336e-09, 3.904487400063772e-09, -7.3388091159642954e-09, -3.454306174432986e-09, -7.260064549541312e-09),
    (0.005183558911085129, 0.006651639938354492, 0.008532032370567322, 0.010936661623418331, 0.014003514312207699, 0.017897794023156166, 0.022806786000728607, 0.028920141980051994, 0.03637967258691788, 0.04517150670289993, 0.054924122989177704, 0.06459248811006546, 0.07211373001337051, 0.07438716292381287, 0.06822536140680313, 0.052522603422403336, 0.030155343934893608, 0.007043782621622086, -0.01143784448504448, -0.02310044690966606, -0.028653176501393318, -0.029998641461133957, -0.028950650244951248, -0.02678089030086994, -0.02424122765660286, -0.021722935140132904, -0.019402915611863136, -0.017342625185847282, -0.015546483919024467, -0.01399375032633543, -0.012654843740165234, -0.011499202810227871),
    (0.0012933785328641534, 0.0016575984191149473, 0.0021217791363596916, 0.0027104485780000687, 0.003450858173891902, 0.004369208589196205, 0.005481158383190632, 0.006770892068743706, 0.008149143308401108, 0.009378000162541866, 0.009959577582776546, 0.0090354448184371, 0.005475744605064392, -0.0014997475082054734, -0.011048156768083572, -0.01986261084675789, -0.02381359599530697, -0.02146432362496853, -0.015144510194659233, -0.008332316763699055, -0.0031120667699724436, 0.00011244403867749497, 0.001772796967998147, 0.0024443783331662416, 0.0025722237769514322, 0.002436497714370489, 0.0021942348685115576, 0.0019261162960901856, 0.001669877558015287, 0.0014406415866687894, 0.0012423167936503887, 0.0010736709227785468),
    (0.00021431843924801797, 0.00027362286346033216, 0.00034803489688783884, 0.00043991615530103445, 0.0005502725834958255, 0.0006760989781469107, 0.0008051578770391643, 0.0009054325055330992, 0.0009070963715203106, 0.0006774052162654698, 2.2547046683030203e-06, -0.0013664697762578726, -0.003482280531898141, -0.00573853962123394, -0.00660665612667799, -0.0046377587132155895, -0.00045564869651570916, 0.0032907589338719845, 0.004717065952718258, 0.004134145565330982, 0.0027930268552154303, 0.0015621987404301763, 0.0007182396948337555, 0.0002268115058541298, -2.574302016000729e-05, -0.0001382892660330981, -0.00017617185949347913, -0.0001773451076587662, -0.00016272172797471285, -0.0001425796071998775, -0.0001220375852426514, -0.00010322614252800122),
    (2.632842915772926e-05, 3.321822441648692e-05, 4.142268517171033e-05, 5.057439921074547e-05, 5.954888183623552e-05, 6.529920210596174e-05, 6.11793584539555e-05, 3.350132828927599e-05, -4.2654188291635364e-05, -0.00020519013924058527, -0.0004923963570035994, -0.0008851036545820534, -0.0011840398656204343, -0.0009368584724143147, 0.00021116148855071515, 0.00170755828730762, 0.0022229210007935762, 0.0013530374271795154, 0.00011453996557975188, -0.0005811465089209378, -0.000687108957208693, -0.000523639318998903, -0.000325141241773963, -0.00017645333718974143, -8.445567800663412e-05, -3.345504228491336e-05, -7.46520709071774e-06, 4.550725861918181e-06, 9.295777999795973e-06, 1.0437187484058086e-05, 9.946840691554826e-06, 8.817503839964047e-06),
    (2.379924808337819e-06, 2.9285347409313545e-06, 3.4450256407581037e-06, 3.891444066539407e-06, 3.448835286690155e-06, 1.3039227724220837e-06, -5.221796527621336e-06, -1.91863946383819e-05, -4.4587417505681515e-05, -8.822049858281389e-05, -0.00014081739936955273, -0.0001584914280101657, -4.50042134616524e-05, 0.00027471318026073277, 0.0006005330942571163, 0.0004794691049028188, -0.0001023819568217732, -0.0005026981234550476, -0.00041447204421274364, -0.0001434213772881776, 3.134571306873113e-05, 8.156381954904646e-05, 7.113542960723862e-05, 4.7216497478075325e-05, 2.7177897209185176e-05, 1.4482218830380589e-05, 7.5620068855641875e-06, 2.5274889594584238e-06, 1.2321864915065817e-06, 9.003679224406369e-08, -2.445902111958276e-07, -3.5907933693124505e-07),
    (6.287717013719885e-08, 8.088031222541758e-08, 1.2979718633232551e-08, 1.6575224037751468e-07, -1.9041131338326522e-07, -8.736683980714588e-07, -3.05823937196692e-06, -6.590114026039373e-06, -1.100810641219141e-05, -1.6969357602647506e-05, -1.5614705262123607e-05, 9.926942766469438e-06, 7.18183146091178e-05, 0.0001297503913519904, 5.680785034201108e-05, -0.00014178382116369903, -0.00020292034605517983, -4.64669537905138e-05, 8.313012222060934e-05, 8.194136898964643e-05, 3.4447839425411075e-05, 3.0637877443950856e-06, -7.320581062231213e-06, -7.656826710444875e-06, -5.354604581953026e-06, -3.2202876809606096e-06, -1.9297056041978067e-06, -8.819936851978127e-07, -4.891049911748269e-07, -2.201548880975679e-07, -1.104170124222037e-07, -5.578762696245576e-08),
)  # fmt: skip
# log_ndtr on [-4, 4): log Phi(x) and its derivative phi(x) / Phi(x) (no zero), both negative or positive
# throughout: `python tools/fit_table_float32.py log_ndtr 6 4` and `log_ndtr_grad 6 4` (fits 0.11 and 0.059 ULP)
LOG_NDTR_TABLE = (
    (-9.83934211730957, -8.842364311218262, -7.904501438140869, -7.025384902954102, -6.20458984375, -5.441622257232666, -4.735908508300781, -4.086774826049805, -3.4934322834014893, -2.9549496173858643, -2.470226287841797, -2.0379579067230225, -1.6565978527069092, -1.3243134021759033, -1.038938045501709, -0.797926127910614, -0.5983130931854248, -0.436693012714386, -0.30922654271125793, -0.21169304847717285, -0.13960064947605133, -0.08835670351982117, -0.05348651856184006, -0.030867911875247955, -0.016935912892222404, -0.00881319772452116, -0.004341860767453909, -0.0020221807062625885, -0.0008894207421690226, -0.0003691465826705098, -0.000144491161336191, -5.331377178663388e-05),
    (-4.336745860200608e-07, -1.3299502654717799e-07, 1.14829703079522e-07, 3.803855364026276e-08, 1.381944088052478e-07, -1.9773277415424673e-07, 1.7873192348361044e-07, -7.160329573707713e-08, -7.310484306799481e-08, -9.765324904265071e-08, 2.0214960372300084e-08, 3.2220498269452946e-08, -5.087528620606463e-08, 2.842308965966822e-08, -2.247685815248701e-09, -1.484235756521457e-08, 2.4273056453694153e-08, -3.0311492205115087e-10, 7.3417796286889825e-09, -1.8275283508728535e-09, -6.149791786924652e-10, -2.4026747258432124e-09, 3.790192049102359e-10, 5.058802821089614e-10, 6.362457088959772e-11, 2.4373264517763005e-10, 1.5516904428025668e-10, -1.338656789584558e-11, 2.576680362131878e-11, 2.1290920415584225e-12, -2.995480165995934e-12, 7.761332266979781e-13),
    (4.106584072113037, 3.8694539070129395, 3.6336958408355713, 3.3995184898376465, 3.167170763015747, 2.9369494915008545, 2.7092106342315674, 2.484381914138794, 2.262977361679077, 2.0456154346466064, 1.8330389261245728, 1.626136302947998, 1.4259623289108276, 1.2337549924850464, 1.050942063331604, 0.8791279196739197, 0.7200475931167603, 0.5754758715629578, 0.4470769762992859, 0.33619698882102966, 0.24361884593963623, 0.16933193802833557, 0.11239177733659744, 0.07094267755746841, 0.04243358597159386, 0.0239823330193758, 0.012779547832906246, 0.00641107140108943, 0.003024947363883257, 0.0013416140573099256, 0.0005591423250734806, 0.0002189433143939823),
    (-0.47550952434539795, -0.4729516804218292, -0.4700110852718353, -0.4666154384613037, -0.46267732977867126, -0.4580898880958557, -0.4527234733104706, -0.44642093777656555, -0.4389919936656952, -0.4302087128162384, -0.4198015630245209, -0.40745794773101807, -0.39282581210136414, -0.3755272626876831, -0.35518792271614075, -0.3314874768257141, -0.3042372465133667, -0.27348801493644714, -0.23965047299861908, -0.20360036194324493, -0.16671067476272583, -0.1307523399591446, -0.09763427823781967, -0.0690252035856247, -0.04598599299788475, -0.02876659668982029, -0.01685481332242489, -0.009236466139554977, -0.004731055814772844, -0.0022648735903203487, -0.0010136016644537449, -0.00042422645492479205),
    (0.003149584634229541, 0.003669400466606021, 0.004222776275128126, 0.004889260046184063, 0.0056491815485060215, 0.006584368646144867, 0.0077313706278800964, 0.009089070372283459, 0.01073458045721054, 0.01272521261125803, 0.015104024671018124, 0.017904195934534073, 0.02119196392595768, 0.025007225573062897, 0.029309842735528946, 0.033941708505153656, 0.038712646812200546, 0.043192144483327866, 0.04684201627969742, 0.04898602515459061, 0.048989187926054, 0.04646766930818558, 0.04146841913461685, 0.03458099439740181, 0.026801949366927147, 0.0192364864051342, 0.012761757709085941, 0.007822622545063496, 0.0044335536658763885, 0.0023263997863978148, 0.0011319488985463977, 0.0005115262465551496),
    (0.0004591895849443972, 0.0004951984155923128, 0.0005906991427764297, 0.0007018974283710122, 0.0008737281896173954, 0.0010551509913057089, 0.0012535488931462169, 0.0015195037703961134, 0.0018253246089443564, 0.0021647210232913494, 0.002559562213718891, 0.003042332362383604, 0.0035745480563491583, 0.004065777640789747, 0.004476325120776892, 0.004767844919115305, 0.004705942701548338, 0.004184128250926733, 0.0030090429354459047, 0.0011589452624320984, -0.0012240391224622726, -0.0038186777383089066, -0.006081109866499901, -0.007517859805375338, -0.007847047410905361, -0.007133753038942814, -0.005742407403886318, -0.00413663312792778, -0.002689278218895197, -0.0015887054614722729, -0.0008575752144679427, -0.0004249886842444539),
    (0.0015629279660061002, -0.0007722078589722514, -0.0006579741602763534, -0.000876737292855978, 0.0005176670383661985, 0.0010597561486065388, 0.0006209996645338833, 0.0010937148472294211, 0.001104850904084742, 0.0004722450685221702, -0.00015043170424178243, 0.0002944818988908082, 0.0008650185773149133, 0.0005931719206273556, -0.00019244957366026938, 0.0003285337006673217, -0.00023684522602707148, -0.00043502627522684634, -0.001182940904982388, -0.0018233133014291525, -0.0020471264142543077, -0.002066147280856967, -0.0015212669968605042, -0.0006966478540562093, 0.00019076289026997983, 0.0008982447325251997, 0.00125067587941885, 0.0012555450666695833, 0.001031729276292026, 0.0007279533892869949, 0.000453674845630303, 0.00025349666248075664),
    (-0.001310321968048811, 0.000655870302580297, 0.0006660372018814087, 0.000909146387130022, -0.00046448115608654916, -0.0008869164739735425, -0.000388475222280249, -0.0009779620449990034, -0.0010819851886481047, -0.00017346232198178768, 0.0008522485732100904, 0.0002884147106669843, -0.0008866052958182991, -0.0003120799083262682, 0.000817909138277173, -0.0005751686403527856, -0.00026353495195508003, -0.0009706433047540486, -0.00044383155182003975, 3.425110116950236e-05, -0.00013868235691916198, 0.000397781579522416, 0.0004027228569611907, 0.0004804551135748625, 0.000534168619196862, 0.0003682989627122879, 0.00013143364049028605, -8.984300075098872e-05, -0.00019667530432343483, -0.00020067321020178497, -0.00015950303350109607, -0.00010544736142037436),
)  # fmt: skip
LOG_NDTR_GRAD_TABLE = (
    (4.106584072113037, 3.8694539070129395, 3.6336958408355713, 3.3995184898376465, 3.167170763015747, 2.9369494915008545, 2.7092106342315674, 2.484381914138794, 2.262977361679077, 2.0456154346466064, 1.8330389261245728, 1.626136302947998, 1.4259623289108276, 1.2337549924850464, 1.050942063331604, 0.8791279196739197, 0.7200475931167603, 0.5754758715629578, 0.4470769762992859, 0.33619698882102966, 0.24361884593963623, 0.16933193802833557, 0.11239177733659744, 0.07094267755746841, 0.04243358597159386, 0.0239823330193758, 0.01277954876422882, 0.00641107140108943, 0.003024947363883257, 0.0013416140573099256, 0.0005591423250734806, 0.0002189433143939823),
    (-1.6075374276169896e-07, 8.985939814465382e-08, 7.924884926069353e-08, 1.045484268047403e-07, -4.193053371182032e-08, -9.691333247019429e-08, -4.664217811978233e-08, -9.305957604510695e-08, -8.966539866150924e-08, -1.7229423221465368e-08, 5.4069811739054785e-08, 1.0625591961854752e-08, -4.8414310782618486e-08, -2.1964456919931763e-08, 5.196760355374863e-08, -2.3917269942330677e-08, 2.3857331665766424e-09, -2.4426910272268287e-08, -2.2923729581236785e-09, 1.0643176118207975e-08, -3.070335374832922e-10, 5.556421101005071e-09, -1.7364952809018064e-09, -2.514751962223727e-09, -5.10181952240174e-10, 1.962697088186971e-10, -4.345328263877235e-10, 1.5497900185401647e-10, -7.45978973037964e-11, -2.3305163354692127e-11, -1.7619095418752728e-11, -4.1615842716336005e-12),
    (-0.951018750667572, -0.945903480052948, -0.9400222897529602, -0.9332310557365417, -0.925354540348053, -0.9161795973777771, -0.9054468870162964, -0.892841637134552, -0.8779837489128113, -0.860417366027832, -0.8396033048629761, -0.8149159550666809, -0.785651445388794, -0.7510544657707214, -0.7103760242462158, -0.6629748940467834, -0.6084744930267334, -0.5469759106636047, -0.47930091619491577, -0.40720078349113464, -0.33342134952545166, -0.26150473952293396, -0.19526854157447815, -0.138050377368927, -0.0919719785451889, -0.05753319337964058, -0.033709630370140076, -0.018472932279109955, -0.009462110698223114, -0.0045297471806406975, -0.0020272035617381334, -0.0008484532590955496),
    (0.009547539055347443, 0.010952969081699848, 0.012619612738490105, 0.01460351888090372, 0.016973309218883514, 0.019812682643532753, 0.023222800344228745, 0.02732440084218979, 0.03225886821746826, 0.038186218589544296, 0.045278824865818024, 0.05370604619383812, 0.06360568106174469, 0.07503516972064972, 0.08789751678705215, 0.10183986276388168, 0.11613645404577255, 0.12959150969982147, 0.14052744209766388, 0.14695149660110474, 0.1469678282737732, 0.1393996626138687, 0.1244063675403595, 0.10374455153942108, 0.08040613681077957, 0.05770928040146828, 0.03828490898013115, 0.023467736318707466, 0.01330069825053215, 0.0069792186841368675, 0.0033958691637963057, 0.0015345921274274588),
    (0.0017182359006255865, 0.0020337323658168316, 0.002415935043245554, 0.0028835239354521036, 0.0034496658481657505, 0.0041441419161856174, 0.004983756225556135, 0.005985090974718332, 0.007203890476375818, 0.00863767508417368, 0.0103107038885355, 0.012193004600703716, 0.014223052188754082, 0.01623852364718914, 0.01798185519874096, 0.019041141495108604, 0.018823672086000443, 0.016684522852301598, 0.01202681940048933, 0.004662655293941498, -0.004897242411971092, -0.015252653509378433, -0.02432970516383648, -0.03008304536342621, -0.031391143798828125, -0.02853485755622387, -0.022967902943491936, -0.01654641143977642, -0.010757525451481342, -0.006354825105518103, -0.0034302338026463985, -0.001699825981631875),
    (0.0002878664236050099, 0.00034870655508711934, 0.0004237470275256783, 0.0005139376735314727, 0.0006257384084165096, 0.0007573968032374978, 0.0009162266505882144, 0.0011120489798486233, 0.0013223609421402216, 0.0015563914785161614, 0.0017825504764914513, 0.0019721335265785456, 0.0020531017798930407, 0.0019404160557314754, 0.0014843102544546127, 0.0005182578461244702, -0.001066739670932293, -0.003327373880892992, -0.006018718238919973, -0.008615580387413502, -0.010270981118083, -0.010093620046973228, -0.007700973656028509, -0.0036058458499610424, 0.0009382792632095516, 0.0045176357962191105, 0.006293770857155323, 0.006295517086982727, 0.005158010870218277, 0.003637144574895501, 0.002264000941067934, 0.0012639330234378576),
    (0.00017339346231892705, 0.00019597944628912956, 0.0002494154032319784, 0.0001778157748049125, 0.00021998271404299885, 7.420297606586246e-06, -9.091014362638816e-05, 0.0004049304116051644, 0.00017713307170197368, 0.0003433921665418893, 0.00017602439038455486, 0.00014297483721747994, -0.00014287832891568542, -0.00016443151980638504, -0.00043004151666536927, -0.0012300154194235802, -0.0015823827125132084, -0.0021923105232417583, -0.0020895246416330338, -0.0016897786408662796, -0.0007364159100688994, 0.0009322605328634381, 0.00276064220815897, 0.0036606418434530497, 0.0034039218444377184, 0.002195236273109913, 0.0006658534402959049, -0.0005507640307769179, -0.0011509236646816134, -0.0012035773834213614, -0.0009609827538952231, -0.0006411959184333682),
    (-5.691531623597257e-05, -6.423377635655925e-05, -8.85841145645827e-05, -3.9152666431618854e-05, -6.056395068299025e-05, 7.871701382100582e-05, 0.00017434371693525463, -0.00015956073184497654, 1.1725808690243866e-05, -0.0001213470459333621, -1.2715037883026525e-05, -7.346121856244281e-05, 5.3820127504877746e-05, -0.0002615467528812587, -0.0003950144746340811, 4.906890808342723e-06, -0.00032671986264176667, 9.08227011677809e-05, -0.00016295761452056468, 0.00015847246686462313, 0.001195500255562365, 0.0014858494978398085, 0.0007865253719501197, 0.000202369992621243, -0.00052664551185444, -0.0010085662361234426, -0.0009920133743435144, -0.0006115543656051159, -0.00017926940927281976, 9.131416300078854e-05, 0.00021236301108729094, 0.00020257265714462847),
)  # fmt: skip
# serf's derivative near its zero, a double kernel's: `python tools/fit_serf_grad_double.py 5 0.15` (fit 2.0e-10
# relative), x0 as a double pair
SERF_X0 = (-1.193059968928188, 3.096701676302884e-17)
SERF_C0 = 0.30150488936299114
SERF_GRAD_P = (0.0008847217540704835, -0.0044891580637505795, -0.018713230385033103, -0.02333450449118174,
               0.04754569145406354, 0.23161220158443793)  # fmt: skip
SERF_ZONE = 0.15
# log1p(f) = f + f^2 Q(f) on [sqrt(1/2) - 1, sqrt(2) - 1], Q of degree 9 (lowest first), for the double-precision
# log1p of the softplus family: `python tools/fit_log1p_double.py 9`, 2^-30.1 relative
LOG1P_Q = (-0.49999999296374564, 0.33333311086766776, -0.2500008298017452, 0.20002222820371243,
           -0.16665619620513794, 0.1421627704320797, -0.12436166570103636, 0.11936114980380608,
           -0.11538180015633842, 0.06496051138629048)  # fmt: skip


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


def _estrin(coefficients) -> str:
    """A C++ macro body evaluating the polynomial (highest degree first) at d by Estrin's scheme, given d's
    powers d2, d4, d8 (up to degree 15): about half Horner's chain of dependent fmas, for a few more operations
    (a kernel whose chain outlasts the reorder window waits on it)."""
    terms = [f"C({_f32(c)})" for c in reversed(coefficients)]  # ascending
    for power in ("d", "d2", "d4", "d8"):
        if len(terms) == 1:
            return terms[0]
        odd = [terms[-1]] if len(terms) % 2 else []
        terms = [f"fma_({b}, {power}, {a})" for a, b in zip(terms[0::2], terms[1::2], strict=False)] + odd
    assert len(terms) == 1, "degree above 15"
    return terms[0]


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
    scale, c = SELU_SCALE, SELU_SCALE * SELU_ALPHA
    values.update(
        SELU_S_HI=_f32_value(scale),
        SELU_S_LO=scale - _f32_value(scale),
        SELU_C_HI=_f32_value(c),
        SELU_C_LO=c - _f32_value(c),
    )
    x0_hi, x0_lo, qc0_hi, qc0_lo, q_p, q_zone = tc._SWISH_GRAD_ZEROS[QUICK_GELU_BETA]
    values.update(
        QG_B_HI=_f32_value(QUICK_GELU_BETA),
        QG_B_LO=QUICK_GELU_BETA - _f32_value(QUICK_GELU_BETA),
        QG_OPEN=12.0,  # (e^(-1.702 * 12) < 2^-29: x sigma(1.702 x) rounds to x above)
        QG_X0_HI=x0_hi,
        QG_X0_LO=x0_lo,
        QG_C0_HI=qc0_hi,
        QG_C0_LO=qc0_lo,
        QG_ZONE=q_zone,
    )
    c0_hi = _f32_value(tc._GELU_C0)
    values.update(
        GELU_X0_HI=tc._GELU_X0_HI,
        GELU_X0_LO=tc._GELU_X0_LO,
        GELU_C0_HI=c0_hi,
        GELU_C0_LO=tc._GELU_C0 - c0_hi,
        GELU_ZONE=tc._GELU_ZONE,
        SQRT_2_OVER_PI_HI=_f32_value(2.0 * _INV_SQRT_2PI),
        SQRT_2_OVER_PI_LO=2.0 * _INV_SQRT_2PI - _f32_value(2.0 * _INV_SQRT_2PI),
        INV_SQRT_2PI_HI=_f32_value(_INV_SQRT_2PI),
        INV_SQRT_2PI_LO=_INV_SQRT_2PI - _f32_value(_INV_SQRT_2PI),
    )
    values.update(
        SOFTCAP_C=SOFTCAP_CAP,
        SOFTCAP_INV_HI=_f32_value(1.0 / SOFTCAP_CAP),
        SOFTCAP_INV_LO=1.0 / SOFTCAP_CAP - _f32_value(1.0 / SOFTCAP_CAP),
    )
    for name, v in (("A", LECUN_A), ("B", LECUN_B), ("AB", LECUN_A * LECUN_B), ("4AB", 4.0 * LECUN_A * LECUN_B)):
        values[f"LT_{name}_HI"] = _f32_value(v)
        values[f"LT_{name}_LO"] = v - _f32_value(v)
    values.update(_clipped_gelu_constants())
    values.update(_laplace_constants())
    values.update(SIREN_W=_siren_w())
    values.update(_swiglustep_constants())
    values.update(CLAMPED_L=_default_limit("clamped_swiglu"))
    values.update(_gelu_tanh_constants())
    values.update(_zero_fit("TE", TANHEXP_X0, TANHEXP_C0, TANHEXP_ZONE))
    values.update(
        # tanh(e^3) rounds to 1 (1 - tanh 20.1 = 2^-56); below -110, |x e^x| < 2^-152; below -200, |tanhexp'| < 2^-279
        TE_OPEN=3.0,
        TE_CLOSED=-110.0,
        TE_GRAD_CLOSED=-200.0,
    )
    values.update(
        THIRD_HI=_f32_value(1.0 / 3.0), THIRD_LO=1.0 / 3.0 - _f32_value(1.0 / 3.0), TANHSHRINK_R0=_TANHSHRINK_R[-1]
    )
    values.update(MISH_X0_HI=MISH_X0[0], MISH_X0_LO=MISH_X0[1], MILA_X0_HI=MILA_X0[0], MILA_X0_LO=MILA_X0[1])
    values.update(GOLU_X0_HI=GOLU_X0[0], GOLU_X0_LO=GOLU_X0[1])
    values.update(SAU_X0_HI=SAU_X0[0], SAU_X0_LO=SAU_X0[1])
    values.update(SITU_X0_HI=SITU_X0[0], SITU_X0_LO=SITU_X0[1])
    lines = [f"#define {k} {_f32(v)}" for k, v in values.items()]
    lines.append(f"#define TANHSHRINK_R(d) ({_horner(_TANHSHRINK_R)})")
    lines.append(f"#define SILU_GRAD_P(d) ({_horner(tc._SILU_GRAD_P)})")
    lines.append(f"#define GELU_GRAD_P(d) ({_horner(tc._GELU_GRAD_P)})")
    lines.append(f"#define QG_GRAD_P(d) ({_horner(q_p)})")
    lines.append(f"#define GT_GRAD_P(d) ({_horner(GELU_TANH_GRAD_P)})")
    lines.append(f"#define TE_GRAD_P(d) ({_horner(TANHEXP_GRAD_P)})")
    lines.append(f"#define ERFCX_Q(d) ({_horner(tc._ERFCX_Q)})")
    lines.append(_doubles("LOG1P_Q", LOG1P_Q))
    lines.append(f"#define ERFCX_Q_ESTRIN(d, d2, d4, d8) ({_estrin(tc._ERFCX_Q)})")
    lines.extend(_serf_constants())
    lines.append(f"constexpr double SQRT_2PI_D = {math.sqrt(2.0 * math.pi).hex()};")
    # snake_beta at its defaults (alpha = beta = 1): b + eps, as the catalog's body adds them in doubles
    snake_beta = _entry_of("snake_beta")[1]
    lines.append(f"constexpr double SNAKE_BETA_EPS = {float(snake_beta['eps']).hex()};")
    lines.append(f"constexpr double SNAKE_BETA_D = {(snake_beta['beta'] + snake_beta['eps']).hex()};")
    # sau at its defaults: alpha as the double the catalog holds
    sau_alpha = float(_entry_of("sau")[1]["alpha"])
    lines.append(f"constexpr double SAU_ALPHA_D = {sau_alpha.hex()};")
    lines.append(f"constexpr double SAU_BETA_D = {(1.0 - sau_alpha).hex()};  // (1 - alpha, as the catalog's body)")
    # Mills' ratio's asymptotic series in w = 1 / a^2: (-1)^n (2n - 1)!!, n <= 6 (log_ndtr's left tail beyond a = 16)
    lines.append(_doubles("MILLS_SERIES", [(-1) ** n * math.prod(range(1, 2 * n, 2)) for n in range(7)]))
    lines.append(_floats_table("GELU_T", GELU_TABLE))
    lines.append(_floats_table("GELU_GRAD_T", GELU_GRAD_TABLE))
    lines.append(_floats_table("SILU_GRAD_T", SILU_GRAD_TABLE))
    for name, table in (("SERF_T", SERF_TABLE), ("SERF_GRAD_T", SERF_GRAD_TABLE), ("TANHEXP_T", TANHEXP_TABLE),
                        ("TANHEXP_GRAD_T", TANHEXP_GRAD_TABLE), ("TANHSHRINK_T", TANHSHRINK_TABLE),
                        ("TANHSHRINK_GRAD_T", TANHSHRINK_GRAD_TABLE), ("LISHT_T", LISHT_TABLE),
                        ("LISHT_GRAD_T", LISHT_GRAD_TABLE), ("LOG_NDTR_T", LOG_NDTR_TABLE),
                        ("LOG_NDTR_GRAD_T", LOG_NDTR_GRAD_TABLE),
                        ("LECUN_TANH_T", LECUN_TANH_TABLE), ("LECUN_TANH_GRAD_T", LECUN_TANH_GRAD_TABLE),
                        ("SQRTSOFTPLUS_T", SQRTSOFTPLUS_TABLE),
                        ("SQRTSOFTPLUS_GRAD_T", SQRTSOFTPLUS_GRAD_TABLE), ("LOG_SIGMOID_T", LOG_SIGMOID_TABLE),
                        ("MISH_T", MISH_TABLE), ("MISH_GRAD_T", MISH_GRAD_TABLE), ("MILA_T", MILA_TABLE),
                        ("MILA_GRAD_T", MILA_GRAD_TABLE), ("GOLU_T", GOLU_TABLE), ("GOLU_GRAD_T", GOLU_GRAD_TABLE),
                        ("DERF_T", DERF_TABLE), ("DERF_GRAD_T", DERF_GRAD_TABLE), ("SAU_T", SAU_TABLE),
                        ("SAU_GRAD_T", SAU_GRAD_TABLE), ("SITU_GATE_T", SITU_GATE_TABLE),
                        ("SITU_GATE_GRAD_T", SITU_GATE_GRAD_TABLE), ("SITU_UP_T", SITU_UP_TABLE),
                        ("SITU_UP_GRAD_T", SITU_UP_GRAD_TABLE)):  # fmt: skip
        lines.append(_floats_table(name, table))
    assert tc._ERFCX_K == 4.0 and tc._PHI_LIMIT == 16.0  # (gauss's u = a / (a + 4), a <= 16)
    return "\n".join(lines) + "\n"


def _floats_table(name: str, rows) -> str:
    """A C++ table of float32 rows (exact literals), 64-byte aligned: `lookup32` loads them as vectors; then its
    first 8 rows by interval ([32][8], as 8 more rows of 32: `interval_rows`, AVX2's lookup)."""
    assert len(rows) >= 8 and all(len(row) == 32 for row in rows), f"{name}: an interval table is 8 or more rows of 32"
    by_interval = [v for i in range(32) for v in (row[i] for row in rows[:8])]
    rows = (*rows, *(by_interval[32 * k : 32 * k + 32] for k in range(8)))
    body = ",\n".join("  {" + ", ".join(map(_f32, row)) + "}" for row in rows)
    return f"alignas(64) static const float {name}[{len(rows)}][{len(rows[0])}] = {{\n{body}}};"


def _doubles(name: str, values) -> str:
    return f"constexpr double {name}[] = {{{', '.join(map(repr, values))}}};  // (lowest degree first)"


def _serf_constants() -> list[str]:
    """serf's double kernels' constants: erf's Taylor series below 1/2 ((2 / sqrt pi) (-1)^n / (n! (2n + 1)), n <= 8),
    gauss's erfcx fit as doubles, and the derivative's zero fit."""
    from nonlin.ops import torch_compiled as tc

    two_over_sqrt_pi = 2.0 / math.sqrt(math.pi)
    series = [two_over_sqrt_pi * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(9)]
    scalars = {"TWO_OVER_SQRT_PI_D": two_over_sqrt_pi, "SQRT2_D": math.sqrt(2.0), "ERF_SERIES_BELOW": 0.5,
               "SERF_X0_HI": SERF_X0[0], "SERF_X0_LO": SERF_X0[1], "SERF_C0": SERF_C0,
               "SERF_ZONE": SERF_ZONE}  # fmt: skip
    x0_hi = _f32_value(SERF_X0[0])  # (the tables' factor x - x0 as float32 parts)
    scalars_f = {"SERF_X0_F_HI": x0_hi, "SERF_X0_F_LO": _f32_value(SERF_X0[0] - x0_hi + SERF_X0[1])}
    return [
        *(f"constexpr double {k} = {v.hex()};" for k, v in scalars.items()),
        *(f"#define {k} {_f32(v)}" for k, v in scalars_f.items()),
        _doubles("ERF_SERIES", series),
        _doubles("ERFCX_Q_D", tc._ERFCX_Q[::-1]),
        _doubles("SERF_GRAD_P", SERF_GRAD_P[::-1]),
    ]


def _zero_fit(tag: str, x0: tuple[float, float], c0: float, zone: float) -> dict[str, float]:
    """A derivative's zero fit (tools/derivative_zero_fit.py) as near_zero's constants: x0 and C0 as hi + lo."""
    c0_hi = _f32_value(c0)
    return {f"{tag}_X0_HI": x0[0], f"{tag}_X0_LO": x0[1], f"{tag}_C0_HI": c0_hi, f"{tag}_C0_LO": c0 - c0_hi,
            f"{tag}_ZONE": zone}  # fmt: skip


def _gelu_tanh_constants() -> dict[str, float]:
    """gelu_tanh's constants as the catalog's float64 values (hi + lo) and its clamps."""
    from nonlin.catalog.smooth import _GELU_TANH_C, _SQRT_2_OVER_PI

    values = {}
    for name, v in (("2C", 2.0 * _SQRT_2_OVER_PI), ("A", _GELU_TANH_C), ("3A", 3.0 * _GELU_TANH_C)):
        values[f"GT_{name}_HI"] = _f32_value(v)
        values[f"GT_{name}_LO"] = v - _f32_value(v)
    values.update(_zero_fit("GT", GELU_TANH_X0, GELU_TANH_C0, GELU_TANH_ZONE))
    values.update(
        # z >= 25 from x = 6 on (e^-25 |m| < 2^-29: x sigma(z) rounds to x, gelu_tanh' to 1); below x = -11, z < -112
        # and |x sigma(z)| < 2^-158 (a zero); the derivative's z reaches -200 at x = -13.57 (|gelu_tanh'| < 2^-279)
        GT_OPEN=6.0,
        GT_CLOSED=-11.0,
        GT_GRAD_CLOSED=-13.57,
    )
    return values


def _clipped_gelu_constants() -> dict[str, float]:
    """clipped_gelu's clips at its defaults and the x above which its derivative is 0 (the kernels are for the
    defaults alone: `dispatch` takes them at the defaults only)."""
    from nonlin.registry import spec

    s = spec("clipped_gelu")
    d = s.defaults()
    (upper,) = s.breakpoints(**d)  # (the lower clip never binds: one breakpoint, where gelu reaches max)
    below = _f32_value(upper)
    if below > upper:
        below = float(torch.nextafter(torch.tensor(below, dtype=torch.float32), torch.tensor(-math.inf)))
    return {"CG_MIN": d["min"], "CG_MAX": d["max"], "CG_BREAK": below}


def _siren_w() -> float:
    """siren's default omega_0: a float32, so that its product with a float32 is exact in a double (the kernel's
    premise; its reduction's bound, tools/sin_reduction_bound.py, is measured at this w)."""
    from nonlin.registry import spec

    w = spec("siren").defaults()["omega_0"]
    assert _f32_value(w) == w, w
    return w


def _swiglustep_constants() -> dict[str, float]:
    """swiglustep's default limit L (a float32) and the last float32 g whose silu(g) is below L: the catalog's
    crossing in float64 (within 1e-15 of the root), rounded down, checked to lie 2^-30 or more from the root."""
    from nonlin.catalog.additions_gated import _silu_crossing

    limit = _default_limit("swiglustep")
    root = _silu_crossing(limit)
    cut = _f32_value(root)
    if cut >= root:
        cut = float(torch.nextafter(torch.tensor(cut, dtype=torch.float32), torch.tensor(0.0)))
    spacing = math.ulp(cut) * 2.0**29  # (a float32's spacing here)
    assert root - cut > 2.0**-30 * spacing and cut + spacing - root > 2.0**-30 * spacing, (root, cut)
    return {"SWIGLUSTEP_L": limit, "SWIGLUSTEP_CUT": cut}


def _default_limit(entry: str) -> float:
    """A clipped SwiGLU's default limit L, checked to be a float32 (the kernels compare float32 inputs with it)."""
    from nonlin.registry import spec

    limit = spec(entry).defaults()["limit"]
    assert _f32_value(limit) == limit, limit
    return limit


def _laplace_constants() -> dict[str, float]:
    """mu, 1 / sigma and 1 / (sigma sqrt(2 pi)) of laplace at its defaults, each as float32 hi + lo."""
    from nonlin.registry import spec

    d = spec("laplace").defaults()
    out: dict[str, float] = {}
    for name, v in (("MU", d["mu"]), ("INV", 1.0 / d["sigma"]), ("C", 1.0 / (d["sigma"] * math.sqrt(2 * math.pi)))):
        out[f"LP_{name}_HI"] = _f32_value(v)
        out[f"LP_{name}_LO"] = v - _f32_value(v)
    return out


def _compile(primitive: str, which: str, prefetch: bool | None = None) -> Callable:
    """The kernel built from its source (`prefetch`: with or without `ahead`'s prefetches; default: the setting
    in force, `set_prefetch`)."""
    from nonlin.kernels.gather import FOR_BLOCKS

    gated = primitive in GATED
    distance = _ahead if prefetch is None else (AHEAD_FLOATS if prefetch else 0)
    prelude = f"#define NONLIN_AHEAD {distance}\n" + _PRELUDE.replace("// CONSTANTS", _constants()) + FOR_BLOCKS
    base, value = _parameter_of(primitive)
    if value is None:
        fwd, bwd = (GATED if gated else PRIMITIVES)[primitive]
    else:
        fwd, bwd = "param_f", "param_grad_f"
        prelude += PARAMETRIZED[base].functions(value)
    if which in ("fwd_bf16", "bwd_bf16") and gated:
        src, dst = "const at::BFloat16*", "at::BFloat16*"
        side = f"constexpr bool SILU_SIDE = {str(base in SILU_GATED).lower()};\n" + _SILU_SIDE
        if which == "fwd_bf16":
            return mask_moves.load_pybinding([src, src, dst, *["int64_t"] * 8],
                                             prelude + _BF16 + side + _GATED_BF16.replace("FN", fwd))  # fmt: skip
        return mask_moves.load_pybinding([src, src, src, dst, dst, *["int64_t"] * 10],
                                         prelude + _BF16 + side + _GATED_GRAD_BF16.replace("FN", bwd))  # fmt: skip
    if which == "fwd_bf16":
        half_fwd, doubt, _, window = HALF_FORMS[primitive]
        body = _BF16 + _UNARY_BF16.replace("FN", half_fwd).replace("DOUBT", doubt).replace("WINDOW", str(window))
        return mask_moves.load_pybinding(["const at::BFloat16*", "const float*", "at::BFloat16*", *["int64_t"] * 5],
                                         prelude + body)  # fmt: skip
    if which == "bwd_bf16":
        body = _BF16 + _BINARY_BF16.replace("FN", HALF_FORMS[primitive][2])
        args = ["const at::BFloat16*", "const at::BFloat16*", "at::BFloat16*", *["int64_t"] * 6]
        return mask_moves.load_pybinding(args, prelude + body)
    if which == "fwd" and not gated:
        body, n_in, n_out = _UNARY.replace("FN", fwd), 1, 1
    elif not gated:
        body, n_in, n_out = _BINARY.replace("FN", bwd), 2, 1
    elif which == "fwd":
        body, n_in, n_out = _GATED.replace("FN", fwd), 2, 1
    else:
        body, n_in, n_out = _GATED_GRAD.replace("FN", bwd), 3, 2
    offsets = 2 if gated else 0  # (g_at, v_at)
    args = ["const float*"] * n_in + ["float*"] * n_out + ["int64_t"] * (3 + n_in + n_out + offsets)
    return mask_moves.load_pybinding(args, prelude + body)


def built(primitive: str, which: str) -> bool:
    return (primitive, which) in _BUILT


def _threads(n: int) -> int:
    return torch.get_num_threads() if n >= PARALLEL_NUMEL else 1


def _run(primitive: str, which: str, inputs: tuple[torch.Tensor, ...], outputs: tuple[torch.Tensor, ...]) -> bool:
    k = _BUILT.get((primitive, which)) or kernel(primitive, which)
    if k is None:
        return False
    n, width, _ = row_layout(inputs[0])
    strides = [row_layout(t)[2] for t in (*inputs, *outputs)]
    offsets = (0, 0) if primitive in GATED else ()  # (g_at, v_at: the gated kernels' inputs as they are given)
    k(*inputs, *outputs, n, width, *strides, *offsets, _threads(n * width))
    return True


# Contiguous tensors of one shape, of any rank, go to the kernels as one row of all their elements: no reshaping
# view per call (each costs about a microsecond of a small call's few, benchmarks/call_overhead.py).


def forward(primitive: str, x: torch.Tensor) -> torch.Tensor | None:
    """f(x) for a float32 CPU tensor, contiguous (any shape) or [rows, width] rows, or None where the kernel is
    not available."""
    k = _BUILT.get((primitive, "fwd")) or kernel(primitive, "fwd")
    if k is None:
        return None
    if x.is_contiguous():
        out = torch.empty_like(x)
        n = x.numel()
        k(x, out, 1, n, n, n, _threads(n))
        return out
    out = empty(x.shape, x.dtype)
    return out if _run(primitive, "fwd", (x,), (out,)) else None


def backward(primitive: str, go: torch.Tensor, x: torch.Tensor) -> torch.Tensor | None:
    """go f'(x) for float32 CPU tensors of one shape (contiguous, any shape; or rows), or None where the kernel
    is not available."""
    k = _BUILT.get((primitive, "bwd")) or kernel(primitive, "bwd")
    if k is None:
        return None
    if x.is_contiguous() and go.is_contiguous():
        out = torch.empty_like(x)
        n = x.numel()
        k(go, x, out, 1, n, n, n, n, _threads(n))
        return out
    out = empty(x.shape, x.dtype)
    return out if _run(primitive, "bwd", (go, x), (out,)) else None


# The gated kernels' inputs and outputs are float32, or bfloat16 (`_GATED_BF16`: the float32 forms, each result
# rounded to bfloat16)
def _gated_which(which: str, dtype: torch.dtype) -> str:
    return which if dtype == torch.float32 else which + "_bf16"


def gated_forward(primitive: str, g: torch.Tensor, v: torch.Tensor) -> torch.Tensor | None:
    """gate(g) v for float32 or bfloat16 g and v of one shape (1-D or rows: the halves of a packed tensor need no
    copy), or None where the kernel is not available."""
    out = empty(g.shape, g.dtype)
    return out if _run(primitive, _gated_which("fwd", g.dtype), (g, v), (out,)) else None


def gated_backward(
    primitive: str, go: torch.Tensor, g: torch.Tensor, v: torch.Tensor, dg: torch.Tensor, dv: torch.Tensor
) -> bool:
    """dg = go v gate'(g), dv = go gate(g) (all of one shape and dtype, float32 or bfloat16; 1-D or rows), or
    False where the kernel is not available."""
    return _run(primitive, _gated_which("bwd", g.dtype), (go, g, v), (dg, dv))


def packed_forward(primitive: str, x: torch.Tensor, value_first: bool = False) -> torch.Tensor | None:
    """gate(g) v of g and v the last dim's halves of a packed [..., 2d] x ([gate | value]; value_first:
    [value | gate]), read in place where x's rows collapse, [..., d] out; or None where the kernel is not
    available."""
    which = _gated_which("fwd", x.dtype)
    k = _BUILT.get((primitive, which)) or kernel(primitive, which)
    if k is None:
        return None
    d2 = x.shape[-1]
    d = d2 // 2
    rows = x if x.is_contiguous() else _rows_of(x, d2)  # (x itself: its rows are d2 apart)
    n = x.numel() // d2 if d2 else 0
    out = empty((*x.shape[:-1], d), x.dtype)  # [..., d]
    s = d2 if rows is x else rows.stride(0)
    g_at, v_at = (d, 0) if value_first else (0, d)
    k(rows, rows, out, n, d, s, s, d, g_at, v_at, _threads(n * d))
    return out


def packed_backward(
    primitive: str, go: torch.Tensor, x: torch.Tensor, value_first: bool = False
) -> torch.Tensor | None:
    """The gradient of `packed_forward` for upstream gradient go ([..., d]): one [..., 2d] tensor, each half
    written by the kernel; or None where the kernel is not available."""
    which = _gated_which("bwd", x.dtype)
    k = _BUILT.get((primitive, which)) or kernel(primitive, which)
    if k is None:
        return None
    d2 = x.shape[-1]
    d = d2 // 2
    rows = x if x.is_contiguous() else _rows_of(x, d2)
    n = x.numel() // d2 if d2 else 0
    o = go if go.is_contiguous() else go.contiguous()  # [..., d], rows d apart
    dx = empty(x.shape, x.dtype)  # [..., 2d], contiguous
    s = d2 if rows is x else rows.stride(0)
    g_at, v_at = (d, 0) if value_first else (0, d)
    k(o, rows, rows, dx, dx, n, d, d, s, s, d2, d2, g_at, v_at, _threads(n * d))
    return dx


def half_forward(primitive: str, x: torch.Tensor, values: torch.Tensor) -> torch.Tensor | None:
    """f(x) for a contiguous bfloat16 CPU tensor by the float32 kernel (`_BF16`: the lookup's bits), `values` the
    lookup's results widened to float32 (the near-midpoint lanes'); or None where the kernel is not available."""
    k = _BUILT.get((primitive, "fwd_bf16")) or kernel(primitive, "fwd_bf16")
    if k is None:
        return None
    out = torch.empty_like(x)
    n = x.numel()
    k(x, values, out, 1, n, n, n, _threads(n))
    return out


def half_backward(primitive: str, go: torch.Tensor, x: torch.Tensor) -> torch.Tensor | None:
    """go f'(x) for contiguous bfloat16 CPU tensors of one shape by the float32 kernel, one rounding to bfloat16;
    or None where the kernel is not available."""
    k = _BUILT.get((primitive, "bwd_bf16")) or kernel(primitive, "bwd_bf16")
    if k is None:
        return None
    out = torch.empty_like(x)
    n = x.numel()
    k(go, x, out, 1, n, n, n, n, _threads(n))
    return out


def _rows_of(t: torch.Tensor, width: int) -> torch.Tensor:
    """t ([..., width]) as [rows, width] with unit inner stride: a view where its leading dimensions collapse
    (a half of a packed [..., 2d] tensor: no copy), else of a contiguous copy."""
    return (t if t.stride(-1) == 1 else t.contiguous()).reshape(-1, width)


# The traced forms each kernel computes: (op, arguments), "x" the input (a catalog entry's forward traced to one
# of these is that function, whatever else its declaration says)
FORMS: dict[str, tuple] = {
    "sigmoid": ("sigmoid", "x"),
    "tanh": ("tanh", "x"),
    "silu": ("swish", "x", 1.0),
    "quick_gelu": ("swish", "x", QUICK_GELU_BETA),
    "gelu": ("gated", "x", ("norm_cdf", "x")),
    "elu": ("where", ("gt", "x", 0.0), "x", ("mul", 1.0, ("expm1", ("minimum", "x", 0.0)))),  # (at alpha = 1)
    "selu": (
        "mul",
        SELU_SCALE,
        ("where", ("gt", "x", 0.0), "x", ("mul", SELU_ALPHA, ("expm1", ("minimum", "x", 0.0)))),
    ),
    # the catalog's series-and-difference body, too long to write out: its trace (`_traced_form`)
    "tanhshrink": ("entry", "tanhshrink"),
    "clipped_gelu": ("entry", "clipped_gelu"),
    "laplace": ("entry", "laplace"),
    "softcap": ("mul", SOFTCAP_CAP, ("tanh", ("div", "x", SOFTCAP_CAP))),
    "ndtr": ("norm_cdf", "x"),
    "hardswish": ("entry", "hardswish"),
    "siren": ("entry", "siren"),
    "sqrtsoftplus": ("entry", "sqrtsoftplus"),
    "log_sigmoid": ("log_sigmoid", "x"),
    "softplus": ("softplus", "x"),  # (at beta = 1: other betas are PARAMETRIZED's)
    "snake": ("entry", "snake"),
    "snake_beta": ("entry", "snake_beta"),
    "mish": ("mish", "x"),
    "mila": ("entry", "mila"),
    "golu": ("entry", "golu"),
    "derf": ("entry", "derf"),
    "sau": ("entry", "sau"),
    "gcu": ("mul", "x", ("cos", "x")),
    "lecun_tanh": ("mul", LECUN_A, ("tanh", ("mul", "x", LECUN_B))),
    "lisht": ("mul", "x", ("tanh", "x")),
    "gelu_tanh": ("gelu_tanh", "x"),
    "tanhexp": ("gated", "x", ("tanh", ("exp", "x"))),
    "serf": ("entry", "serf"),
    "log_ndtr": ("entry", "log_ndtr"),
    # gated: "g" and "v" the two inputs
    "swiglu": ("swiglu", "g", "v", 1.0),
    "geglu": ("mul", ("gated", "g", ("norm_cdf", "g")), "v"),
    "glu": ("mul", ("sigmoid", "g"), "v"),
    "gtu": ("mul", ("sigmoid", "g"), ("tanh", "v")),
    "situ_glu": ("entry", "situ_glu"),  # (at its defaults)
    "swiglustep": ("entry", "swiglustep"),  # (at its default limit)
    "clamped_swiglu": ("entry", "clamped_swiglu"),  # (at its default limit)
}


@dataclass(frozen=True)
class Parametrized:
    """A kernel compiled per value of one parameter: `form` is a form of `FORMS` whose ("param",) leaves match
    that value (the same number at each), a number in [low, high]; `fwd` and `bwd` call the C++ functions with
    P_HI and P_LO, the value as float32 hi + lo (to ~2^-48), or P_D, the double; `entry` and `param` name the catalog entry the
    kernel computes (its float64 formula where the kernel is not built)."""

    entry: str
    param: str
    form: tuple
    fwd: str
    bwd: str
    low: float
    high: float

    def functions(self, value: float) -> str:
        hi = _f32_value(value)
        pieces = {"P_HI": _f32(hi), "P_LO": _f32(value - hi), "P_D": value.hex()}
        fwd, bwd = self.fwd, self.bwd
        for k, v in pieces.items():
            fwd, bwd = fwd.replace(k, v), bwd.replace(k, v)
        return (
            f"ALWAYS static inline VF param_f(VF x) {{ return {fwd}; }}\n"
            f"ALWAYS static inline VF param_grad_f(VF go, VF x) {{ return {bwd}; }}\n"
        )


# Kernels compiled per parameter value (the first call at a value compiles its pair; inductor's cache keeps it
# across processes), named "base@value" (the value in hexadecimal: exact)
PARAMETRIZED: dict[str, Parametrized] = {
    # elu at any alpha in [2^-60, 2^60]: elu_like_f's C (alpha > 0: the result takes x's sign; 0 and negative
    # alphas, rare, keep the generated kernels)
    "elu": Parametrized(
        entry="elu",
        param="alpha",
        form=("where", ("gt", "x", 0.0), "x", ("mul", ("param",), ("expm1", ("minimum", "x", 0.0)))),
        fwd="elu_like_f(x, 1.0f, 0.0f, P_HI, P_LO)",
        bwd="elu_like_grad_f(go, x, 1.0f, 0.0f, P_HI, P_LO)",
        low=2.0**-60,
        high=2.0**60,
    ),
    # softplus at any other beta in [2^-60, 2^60] (beta 1, the default, is FORMS' softplus): softplus_beta_f in doubles
    "softplus": Parametrized(
        entry="softplus",
        param="beta",
        form=("div", ("softplus", ("mul", ("param",), "x")), ("param",)),
        fwd="softplus_beta_f(x, P_D)",
        bwd="softplus_beta_grad_f(go, x, P_D)",
        low=2.0**-60,
        high=2.0**60,
    ),
}


def _parameter_of(primitive: str) -> tuple[str, float | None]:
    """(the base name, the parameter value) of a kernel name: "elu@0x1.0000000000000p-1" -> ("elu", 0.5); a
    kernel without a parameter -> (its name, None)."""
    base, _, value = primitive.partition("@")
    return base, (float.fromhex(value) if value else None)


def primitive_of(plan, fixed: bool = True) -> str | None:
    """The kernel whose function a plan's forward is, applied to its input (or inputs g, v) alone: a key of
    PRIMITIVES or GATED (`fixed`: the plan's parameters are the entry's defaults, whose values the FORMS hold),
    or of PARAMETRIZED with the value its form matched, "base@value"; or None (also where the kernels are not
    `available`)."""
    if not available():
        return None
    f = plan.forward
    if len(f.inputs) not in (1, 2) or f.params or len(f.outputs) != 1:
        return None
    y = _without_unit_factors(f.outputs[0])
    inputs = dict(zip(("x",) if len(f.inputs) == 1 else ("g", "v"), f.inputs, strict=True))
    bound: list[float] = []  # the value a ("param",) leaf matched
    limits = (0.0, 0.0)

    def matches(a, b) -> bool:
        a = _without_unit_factors(a)
        if b == ("param",):
            number = isinstance(a, float | int) and not isinstance(a, bool) and limits[0] <= a <= limits[1]
            if number and (not bound or bound[0] == a):
                bound[:] = [float(a)]
                return True
            return False
        if isinstance(b, tuple):  # a nested node
            return getattr(a, "op", None) == b[0] and len(a.args) == len(b) - 1 and all(map(matches, a.args, b[1:]))
        return a is inputs.get(b) if b in ("x", "g", "v") else (not hasattr(a, "op") and a == b)

    def whole(form) -> bool:
        op, *args = _normal_form(form)
        return getattr(y, "op", None) == op and len(y.args) == len(args) and all(map(matches, y.args, args))

    for name, form in FORMS.items() if fixed else ():
        if whole(_traced_form(form[1]) if form[0] == "entry" else form):
            return name
    for name, kernel in PARAMETRIZED.items():
        bound.clear()
        limits = (kernel.low, kernel.high)
        if whole(kernel.form):
            return f"{name}@{bound[0].hex()}"
    return None


def _without_unit_factors(node):
    """`node` (a traced node or a form) less its products by 1, quotients by 1 and differences with +0: each is
    its operand in IEEE arithmetic (round to nearest), NaN, infinities and signed zeros included (-0 - +0 is
    -0, where -0 + +0 would be +0), so the function is the same. Parameters at their defaults leave them:
    tempered_sigmoid's (s, T, o) = (2, 2, 1) traces to 1 tanh(1 x), which is tanh; xgelu at alpha 0 to
    x (1 Phi(x) - 0), which is gelu."""
    while True:
        op, args = (node[0], node[1:]) if isinstance(node, tuple) else (getattr(node, "op", None), None)
        if args is None and op is not None:
            args = tuple(node.args)
        if op is None or len(args) != 2:
            return node
        if op == "mul" and _is_constant(args[0], 1.0):
            node = args[1]
        elif (op in ("mul", "div") and _is_constant(args[1], 1.0)) or (op == "sub" and _is_constant(args[1], 0.0)):
            node = args[0]
        else:
            return node


def _normal_form(form):
    """A form of `FORMS` less its unit factors at every depth (`_without_unit_factors`)."""
    form = _without_unit_factors(form)
    return (form[0], *map(_normal_form, form[1:])) if isinstance(form, tuple) else form


def _is_constant(a, value: float) -> bool:
    """`a` is the number `value`, of its sign where it is a zero."""
    number = isinstance(a, (int, float)) and not isinstance(a, bool)
    return number and a == value and math.copysign(1.0, a) == math.copysign(1.0, value)


_TRACED_FORMS: dict[str, tuple] = {}


def _traced_form(entry: str) -> tuple:
    """An entry's traced forward at its defaults as a form of `FORMS`: nested (op, arguments), "x" the input (a
    gated entry's: "g" and "v")."""
    if entry not in _TRACED_FORMS:
        from nonlin.kernels.trace import trace
        from nonlin.registry import spec

        s = spec(entry)
        names = ("g", "v") if s.kind is Kind.GATED else ("x",)
        t = trace(s.forward, names, s.defaults(), ())
        leaves = {id(leaf): name for leaf, name in zip(t.inputs, names, strict=True)}

        def form(node):
            if id(node) in leaves:
                return leaves[id(node)]
            return (node.op, *map(form, node.args)) if hasattr(node, "op") else node

        _TRACED_FORMS[entry] = form(t.outputs[0])
    return _TRACED_FORMS[entry]


def _entry_of(primitive: str):
    """(the catalog entry a kernel computes, its parameters): the entry it is named after at its defaults, or a
    parametrized kernel's entry at its value."""
    from nonlin.registry import spec

    base, value = _parameter_of(primitive)
    if value is None:
        s = spec(primitive)
        return s, s.defaults()
    kernel = PARAMETRIZED[base]
    s = spec(kernel.entry)
    return s, {**s.defaults(), kernel.param: value}


def _formula(primitive: str, *inputs: torch.Tensor) -> torch.Tensor:
    """The float64 formula of the entry a kernel computes (`_entry_of`), rounded once to the inputs' dtype (a
    traced op's answer where its kernel is not built)."""
    from nonlin.ops import TORCH

    s, params = _entry_of(primitive)
    return s.forward(TORCH, *(t.double() for t in inputs), **params).to(inputs[0].dtype)


def _formula_grads(primitive: str, go: torch.Tensor, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """go times each partial derivative of `_formula`'s function, in float64, rounded once."""
    from nonlin.ops import TORCH

    s, params = _entry_of(primitive)
    d = s.derivative(TORCH, *(t.double() for t in inputs), **params)
    return tuple((go.double() * t).to(inputs[0].dtype) for t in ((d,) if isinstance(d, torch.Tensor) else d))


# Inside a caller's torch.compile the kernels are these ops, opaque to inductor (its code for the generated
# float32 forms is what these kernels replace), so that a compiled model computes what an eager one does, bit
# for bit. Where a kernel is not built (compilation turned off since), `_formula`.
@graph_ops.cpu_op("native32", "(Tensor x, str primitive) -> Tensor", lambda x, primitive: graph_ops.like(x))
def traced_forward(x: torch.Tensor, primitive: str) -> torch.Tensor:
    # (`forward` takes a contiguous tensor of any shape as it is: no view per call, each ~1 µs of a small call)
    x = x.contiguous()
    y = forward(primitive, x)
    return _formula(primitive, x) if y is None else y


@graph_ops.cpu_op(
    "native32_grad", "(Tensor go, Tensor x, str primitive) -> Tensor", lambda go, x, primitive: graph_ops.like(x)
)
def traced_backward(go: torch.Tensor, x: torch.Tensor, primitive: str) -> torch.Tensor:
    x, go = x.contiguous(), go.contiguous()
    out = backward(primitive, go, x)
    return _formula_grads(primitive, go, x)[0] if out is None else out


def _as_rows(t: torch.Tensor) -> torch.Tensor:
    """t as the kernels' rows: [rows, width] (`_rows_of` its last dim), or 1-D for a 0-d, 1-D or empty t, as a
    traced gated call receives its g and v. The layout follows t's shape alone, so that the op's tensors (of one
    shape, whatever their strides) all reach the kernel as rows of one width."""
    if t.dim() < 2 or t.numel() == 0:
        return t.contiguous().view(-1)
    return _rows_of(t, t.shape[-1])


@graph_ops.cpu_op(
    "native32_gated", "(Tensor g, Tensor v, str primitive) -> Tensor", lambda g, v, primitive: graph_ops.like(g)
)
def traced_gated_forward(g: torch.Tensor, v: torch.Tensor, primitive: str) -> torch.Tensor:
    gf, vf = _as_rows(g), _as_rows(v)
    y = gated_forward(primitive, gf, vf)
    return (_formula(primitive, gf, vf) if y is None else y).view(g.shape)


@graph_ops.cpu_op(
    "native32_gated_grad",
    "(Tensor go, Tensor g, Tensor v, str primitive) -> (Tensor, Tensor)",
    lambda go, g, v, primitive: (graph_ops.like(g), graph_ops.like(v)),
)
def traced_gated_backward(
    go: torch.Tensor, g: torch.Tensor, v: torch.Tensor, primitive: str
) -> tuple[torch.Tensor, torch.Tensor]:
    o, gf, vf = _as_rows(go), _as_rows(g), _as_rows(v)
    dg, dv = empty(gf.shape, g.dtype), empty(vf.shape, v.dtype)
    if not gated_backward(primitive, o, gf, vf, dg, dv):
        dg, dv = _formula_grads(primitive, o, gf, vf)
    return dg.view(g.shape), dv.view(v.shape)


def _half_shape(x: torch.Tensor) -> tuple[int, ...]:
    return (*x.shape[:-1], x.shape[-1] // 2)


# A caller's torch.compile of a gated call on one packed [..., 2d] tensor: the same kernels on the packed rows'
# halves (read in place), the backward writing the packed gradient's halves itself (two half gradients would be
# concatenated by the caller's graph: a copy of both)
@graph_ops.cpu_op(
    "native32_gated_packed",
    "(Tensor x, str primitive, bool value_first) -> Tensor",
    lambda x, primitive, value_first: graph_ops.like(x, _half_shape(x)),
)
def traced_packed_forward(x: torch.Tensor, primitive: str, value_first: bool) -> torch.Tensor:
    if x.numel() == 0:
        return torch.empty(_half_shape(x), dtype=x.dtype)
    y = packed_forward(primitive, x, value_first)
    return _formula(primitive, *packed_halves(x, value_first)) if y is None else y


@graph_ops.cpu_op(
    "native32_gated_packed_grad",
    "(Tensor go, Tensor x, str primitive, bool value_first) -> Tensor",
    lambda go, x, primitive, value_first: graph_ops.like(x),
)
def traced_packed_backward(go: torch.Tensor, x: torch.Tensor, primitive: str, value_first: bool) -> torch.Tensor:
    if x.numel() == 0:
        return empty(x.shape, x.dtype)
    dx = packed_backward(primitive, go, x, value_first)
    if dx is None:
        dg, dv = _formula_grads(primitive, go, *packed_halves(x, value_first))
        dx = torch.cat((dv, dg) if value_first else (dg, dv), dim=-1)
    return dx
