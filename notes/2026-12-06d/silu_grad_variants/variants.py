"""Variants of silu's float32 backward kernel (nonlin.kernels.native32.silu_grad_f), built with the kernels' prelude
and timed against the current kernel and ATen's silu_backward (4M float32 of 3 randn, one core, median of nine),
with their max error in float32 ULP against float64 (a randn sample, and 6M float32s around the derivative's zero
plus 2M over [-68, 20]). What this stop tried and did not take: "branchless" (the zone's polynomial on every
vector), "estrin" (its polynomial by Estrin's scheme), "acc_narrow" (e^-|x| to ~2^-32, the zone narrowed to 0.01),
"unified" (one numerator f (D + x g) for both signs); "nozone" and "floor" are references (no zone: wrong near the
zero; go x: the loop's memory cost). Each variant is the kernel's form with one piece swapped (the pieces below);
the far lanes (x below -68 or above 20, or go unscaled) take the kernel's own far form in every variant.

    PYTHONPATH=src python notes/2026-12-06d/silu_grad_variants/variants.py [N] [NARROW_ZONE]"""

import statistics
import sys
import time

import torch

from nonlin.kernels import mask_moves
from nonlin.kernels import native32 as N
from nonlin.kernels.gather import FOR_BLOCKS
from nonlin.ops import torch_compiled

torch.set_num_threads(1)
base = N._PRELUDE.replace("// CONSTANTS", N._constants()) + FOR_BLOCKS


def build(extra, fn):
    body = N._BINARY.replace("FN", fn)
    args = ["const float*"] * 2 + ["float*"] + ["int64_t"] * 6
    return mask_moves.load_pybinding(args, base + extra + body)


_ESTRIN = N._estrin(torch_compiled._SILU_GRAD_P)
NZ = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
# The pieces: u = e^-|x| (the kernel's one_plus_near, or `one_plus_acc`), silu''s numerator over D^2 as y + c
# (the kernel's algebra, `kernel_quotient`, or `unified_quotient`), the zero's polynomial (`zone`: behind a branch
# or on every vector, by Horner or Estrin, in a zone of either width), go (y + c) rounded once, and the kernel's
# far lanes around a near form (`with_far`)
PIECES = rf"""
#define NARROW_ZONE {NZ}f
#define SILU_GRAD_PE(d) ({_ESTRIN})
// u = e^-|x| = uh + ul to ~2^-32: r carried as rh + rl (the reduction's rounding), expm1_tail's degree-5 fit
// with its rounding error pe
ALWAYS static inline void one_plus_acc(VF x, VF& uh, VF& ul, VF& dh, VF& dl) {{
  const VF z = x | C(-0.0f);
  const VF s = fma_(z, C(1.44269502f), C(EXP_MAGIC));
  const VF k = s - C(EXP_MAGIC);
  const VF y = fma_(k, C(-0.693145751953125f), z);
  const VF r = fma_(k, C(-1.42860677e-06f), y);
  const VF rl = fma_(k, C(-1.42860677e-06f), y - r);
  VF p, pe;
  expm1_tail(r, p, pe);
  pe = pe + rl * (C(1.0f) + p);
  const VF t = at::vec::cast<float>(at::vec::cast<int32_t>(s) << VI(23));
  const VF pt = p * t;
  uh = t + pt;
  ul = (pt - (uh - t)) + pe * t;
  dh = C(1.0f) + uh;
  dl = ((C(1.0f) - dh) + uh) + ul;
}}
// (nh + nl) / D^2 as y + c, D = dh + dl
ALWAYS static inline void over_square_of(VF nh, VF nl, VF dh, VF dl, VF& y, VF& c) {{
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  y = nh * inv;
  c = (at::vec::fnmadd(y, ph, nh) + at::vec::fnmadd(y, pl, nl)) * inv;
}}
// the kernel's numerators: 1 + u (1 + x) for x >= 0, u (1 + x + u) below
ALWAYS static inline void kernel_quotient(VF x, VF uh, VF ul, VF dh, VF dl, VF& y, VF& c) {{
  const VF sh = C(1.0f) + x, sb = sh - C(1.0f);
  const VF sl = (C(1.0f) - (sh - sb)) + (x - sb);
  VF nph, npl, qh, ql;
  silu_grad_numerators(sh, sl, uh, ul, uh, ul, nph, npl, qh, ql);
  over_square_of(blend(nph, qh, x), blend(npl, ql, x), dh, dl, y, c);
}}
// one numerator for both signs: N = f (D + x g), (f, g) = (1, u) for x >= 0, (u, 1) below
ALWAYS static inline void unified_quotient(VF x, VF uh, VF ul, VF dh, VF dl, VF& y, VF& c) {{
  const VF gh = blend(uh, C(1.0f), x), gl = blend(ul, C(0.0f), x);
  const VF ph = x * gh;
  const VF pl = fma_(x, gh, -ph) + x * gl;
  const VF th = dh + ph, tb = th - dh;
  const VF tl = ((dh - (th - tb)) + (ph - tb)) + (dl + pl);
  const VF fh = blend(C(1.0f), uh, x), fl = blend(C(0.0f), ul, x);
  const VF nh = fh * th;
  over_square_of(nh, fma_(fh, th, -nh) + fma_(fh, tl, fl * th), dh, dl, y, c);
}}
// near the zero x0 the polynomial in d = x - x0 (BRANCH: only where a lane of the vector needs it)
template <bool BRANCH, bool ESTRIN> ALWAYS static inline void zone(VF x, float width, VF& y, VF& c) {{
  const VF xh = x - C(SILU_X0_HI);
  const VF in = xh.abs() < C(width);
  if (BRANCH && none(in)) return;
  const VF d = xh - C(SILU_X0_LO);
  const VF d2 = d * d, d4 = d2 * d2, d8 = d4 * d4;
  const Parts z = near_zero(xh, d, ESTRIN ? SILU_GRAD_PE(d) : SILU_GRAD_P(d), SILU_X0_LO, SILU_C0_HI, SILU_C0_LO);
  y = blend(y, z.h, in);
  c = blend(c, z.l, in);
}}
ALWAYS static inline VF times_go(VF go, VF y, VF c) {{ return fma_(go, y, go * c) | ((go ^ y) & C(-0.0f)); }}
template <VF (*NEAR)(VF, VF)> ALWAYS static inline VF with_far(VF go, VF x) {{
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  if (every(near)) return NEAR(go, x);
  const VF far =
      times_grad<silu_grad_parts<false>, false, silu_grad_parts<true>, SILU_PLAIN_LOW>(go, C(1.0f), x, SILU_CLOSED);
  return blend(far, NEAR(go & near, x & near), near);
}}
// variant(name, u's piece, the quotient's piece, the zone's statement)
#define VARIANT(NAME, ONE_PLUS, QUOTIENT, ZONE)                      \
  ALWAYS static inline VF NAME##_near(VF go, VF x) {{                 \
    VF uh, ul, dh, dl, y, c;                                         \
    ONE_PLUS;                                                        \
    QUOTIENT(x, uh, ul, dh, dl, y, c);                               \
    ZONE;                                                            \
    return times_go(go, y, c);                                       \
  }}                                                                  \
  ALWAYS static inline VF NAME##_f(VF go, VF x) {{ return with_far<NAME##_near>(go, x); }}
#define NEAR_U one_plus_near<false>(x, uh, ul, dh, dl, C(0.0f))
#define ACC_U one_plus_acc(x, uh, ul, dh, dl)
VARIANT(nozone, NEAR_U, kernel_quotient, (void)0)
VARIANT(branchless, NEAR_U, kernel_quotient, (zone<false, false>(x, SILU_GRAD_ZONE, y, c)))
VARIANT(estrin, NEAR_U, kernel_quotient, (zone<true, true>(x, SILU_GRAD_ZONE, y, c)))
VARIANT(acc_narrow, ACC_U, kernel_quotient, (zone<true, false>(x, NARROW_ZONE, y, c)))
VARIANT(unified, NEAR_U, unified_quotient, (zone<true, false>(x, SILU_GRAD_ZONE, y, c)))
ALWAYS static inline VF floor_f(VF go, VF x) {{ return go * x; }}
"""
NAMES = ["floor", "nozone", "branchless", "estrin", "acc_narrow", "unified"]
kernels = {name: build(PIECES, f"{name}_f") for name in NAMES}
kernels["current"] = build(PIECES, "silu_grad_f")


def ulps(y: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """|y - ref| in float32 ULPs of ref rounded to float32."""
    r32 = ref.float().abs()
    return (y.double() - ref).abs() / (torch.nextafter(r32, torch.tensor(float("inf"))) - r32).double()


def run(k, go, x):
    out = torch.empty_like(x)
    k(go, x, out, 1, x.numel(), x.numel(), x.numel(), x.numel(), 1)
    return out


n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 22
x = torch.randn(n) * 3
go = torch.randn(n)
fs = {name: (lambda k=k: run(k, go, x)) for name, k in kernels.items()}
fs["aten"] = lambda: torch.ops.aten.silu_backward(go, x)
ref = go.double() * torch.ops.aten.silu_backward(torch.ones_like(x, dtype=torch.float64), x.double())
for k, f in fs.items():
    print(f"{k:12s} max err {ulps(f(), ref).max().item():.3f} ULP (vs float64 textbook)")
reps = max(1, 8_000_000 // n)
times = {k: [] for k in fs}
for _ in range(9):
    for k, f in fs.items():
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        times[k].append((time.perf_counter() - t0) / reps / n * 1e9)
for k, v in times.items():
    print(f"{k:12s} {statistics.median(v):.3f} ns/elem")

# Near the zero (6M float32s around x0) and over [-68, 20], against silu' in float64: ~1e-16 / |d| relative near
# the zero, a small fraction of a float32 ULP down to d ~ 1e-8
x0 = torch.tensor(-1.2784645427610738, dtype=torch.float32).view(torch.int32).item()
X = torch.cat(
    [
        torch.arange(x0 - 3_000_000, x0 + 3_000_000, dtype=torch.int32).view(torch.float32),
        torch.linspace(-68, 20, 2_000_000),
    ]
)
s64 = torch.sigmoid(X.double())
ref = s64 * (1 + X.double() * (1 - s64))
for name, k in kernels.items():
    err = ulps(run(k, torch.ones_like(X), X), ref)
    i = int(err.argmax())
    print(f"{name:12s} dense max err {err.max().item():.3f} ULP at x={X[i].item()!r}")
