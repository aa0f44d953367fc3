"""Variants of silu's float32 backward kernel (nonlin.kernels.native32.silu_grad_f), built with the kernels' prelude
and timed against the current kernel and ATen's silu_backward (4M float32 of 3 randn, one core, median of nine),
with their max error in float32 ULP against float64 (a randn sample, and 6M float32s around the derivative's zero
plus 2M over [-68, 20]). What this stop tried and did not take: "branchless" (the zone's polynomial on every
vector), "estrin" (its polynomial by Estrin's scheme), "acc_narrow" (e^-|x| to ~2^-32, the zone narrowed to 0.01),
"unified" (one numerator f (D + x g) for both signs); "nozone" and "floor" are references (no zone: wrong near the
zero; go x: the loop's memory cost).

    PYTHONPATH=src python notes/2026-12-06d/silu_grad_variants/variants.py [N] [NARROW_ZONE]"""

import statistics
import sys
import time

import torch

from nonlin.kernels import mask_moves
from nonlin.kernels import native32 as N
from nonlin.kernels.gather import FOR_BLOCKS

torch.set_num_threads(1)
base = N._PRELUDE.replace("// CONSTANTS", N._constants()) + FOR_BLOCKS


def build(extra, fn):
    body = N._BINARY.replace("FN", fn)
    args = ["const float*"] * 2 + ["float*"] + ["int64_t"] * 6
    return mask_moves.load_pybinding(args, base + extra + body)


VARIANTS = {}
VARIANTS["floor"] = ("ALWAYS static inline VF floor_f(VF go, VF x) { return go * x; }\n", "floor_f")
VARIANTS["nozone"] = (
    r"""
ALWAYS static inline VF nz_f(VF go, VF x) {
  VF uh, ul, dh, dl;
  one_plus_near<false>(x, uh, ul, dh, dl, C(0.0f));
  const VF sh = C(1.0f) + x, sb = sh - C(1.0f);
  VF sl = (C(1.0f) - (sh - sb)) + (x - sb);
  VF nph, npl, qh, ql;
  silu_grad_numerators(sh, sl, uh, ul, uh, ul, nph, npl, qh, ql);
  const VF nh = blend(nph, qh, x), nl = blend(npl, ql, x);
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  VF y = nh * inv;
  VF c = (at::vec::fnmadd(y, ph, nh) + at::vec::fnmadd(y, pl, nl)) * inv;
  return fma_(go, y, go * c) | ((go ^ y) & C(-0.0f));
}
""",
    "nz_f",
)
VARIANTS["branchless"] = (
    r"""
ALWAYS static inline VF bl_f(VF go, VF x) {
  VF uh, ul, dh, dl;
  one_plus_near<false>(x, uh, ul, dh, dl, C(0.0f));
  const VF sh = C(1.0f) + x, sb = sh - C(1.0f);
  VF sl = (C(1.0f) - (sh - sb)) + (x - sb);
  VF nph, npl, qh, ql;
  silu_grad_numerators(sh, sl, uh, ul, uh, ul, nph, npl, qh, ql);
  const VF nh = blend(nph, qh, x), nl = blend(npl, ql, x);
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  VF y = nh * inv;
  VF c = (at::vec::fnmadd(y, ph, nh) + at::vec::fnmadd(y, pl, nl)) * inv;
  const VF xh = x - C(SILU_X0_HI);
  const VF zone = xh.abs() < C(SILU_GRAD_ZONE);
  const VF d = xh - C(SILU_X0_LO);
  Parts z = near_zero(xh, d, SILU_GRAD_P(d), SILU_X0_LO, SILU_C0_HI, SILU_C0_LO);
  y = blend(y, z.h, zone);
  c = blend(c, z.l, zone);
  return fma_(go, y, go * c) | ((go ^ y) & C(-0.0f));
}
ALWAYS static inline VF bl_full(VF go, VF x) {
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  if (every(near)) return bl_f(go, x);
  const VF far =
      times_grad<silu_grad_parts<false>, false, silu_grad_parts<true>, SILU_PLAIN_LOW>(go, C(1.0f), x, SILU_CLOSED);
  return blend(far, bl_f(go & near, x & near), near);
}
""",
    "bl_full",
)
VARIANTS["nozone_full"] = (
    r"""
ALWAYS static inline VF nzf_full(VF go, VF x) {
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  if (every(near)) return nz_f(go, x);
  return go;
}
""",
    "nzf_full",
)
VARIANTS["estrin"] = (
    r"""
#define SILU_GRAD_PE(d) (ESTRIN_PLACEHOLDER)
ALWAYS static inline VF es_f(VF go, VF x) {
  VF uh, ul, dh, dl;
  one_plus_near<false>(x, uh, ul, dh, dl, C(0.0f));
  const VF sh = C(1.0f) + x, sb = sh - C(1.0f);
  VF sl = (C(1.0f) - (sh - sb)) + (x - sb);
  VF nph, npl, qh, ql;
  silu_grad_numerators(sh, sl, uh, ul, uh, ul, nph, npl, qh, ql);
  const VF nh = blend(nph, qh, x), nl = blend(npl, ql, x);
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  VF y = nh * inv;
  VF c = (at::vec::fnmadd(y, ph, nh) + at::vec::fnmadd(y, pl, nl)) * inv;
  const VF xh = x - C(SILU_X0_HI);
  const VF zone = xh.abs() < C(SILU_GRAD_ZONE);
  if (!none(zone)) {
  const VF d = xh - C(SILU_X0_LO);
  const VF d2 = d * d, d4 = d2 * d2, d8 = d4 * d4;
  Parts z = near_zero(xh, d, SILU_GRAD_PE(d), SILU_X0_LO, SILU_C0_HI, SILU_C0_LO);
  y = blend(y, z.h, zone);
  c = blend(c, z.l, zone);
  }
  return fma_(go, y, go * c) | ((go ^ y) & C(-0.0f));
}
ALWAYS static inline VF es_full(VF go, VF x) {
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  if (every(near)) return es_f(go, x);
  return go;
}
""".replace("ESTRIN_PLACEHOLDER", N._estrin(__import__("nonlin.ops.torch_compiled", fromlist=["x"])._SILU_GRAD_P)),
    "es_full",
)
VARIANTS["acc_narrow"] = (
    r"""
// u = e^-|x| = uh + ul to ~2^-32: r carried as rh + rl (the reduction's rounding), expm1_tail's degree-5 fit
// with its rounding error pe
ALWAYS static inline void one_plus_acc(VF x, VF& uh, VF& ul, VF& dh, VF& dl) {
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
}
ALWAYS static inline VF an_f(VF go, VF x) {
  VF uh, ul, dh, dl;
  one_plus_acc(x, uh, ul, dh, dl);
  const VF sh = C(1.0f) + x, sb = sh - C(1.0f);
  VF sl = (C(1.0f) - (sh - sb)) + (x - sb);
  VF nph, npl, qh, ql;
  silu_grad_numerators(sh, sl, uh, ul, uh, ul, nph, npl, qh, ql);
  const VF nh = blend(nph, qh, x), nl = blend(npl, ql, x);
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  VF y = nh * inv;
  VF c = (at::vec::fnmadd(y, ph, nh) + at::vec::fnmadd(y, pl, nl)) * inv;
  const VF xh = x - C(SILU_X0_HI);
  const VF zone = xh.abs() < C(NARROW_ZONE);
  if (!none(zone)) {
    const VF d = xh - C(SILU_X0_LO);
    Parts z = near_zero(xh, d, SILU_GRAD_P(d), SILU_X0_LO, SILU_C0_HI, SILU_C0_LO);
    y = blend(y, z.h, zone);
    c = blend(c, z.l, zone);
  }
  return fma_(go, y, go * c) | ((go ^ y) & C(-0.0f));
}
ALWAYS static inline VF an_full(VF go, VF x) {
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  if (every(near)) return an_f(go, x);
  const VF far =
      times_grad<silu_grad_parts<false>, false, silu_grad_parts<true>, SILU_PLAIN_LOW>(go, C(1.0f), x, SILU_CLOSED);
  return blend(far, an_f(go & near, x & near), near);
}
""",
    "an_full",
)
VARIANTS["unified"] = (
    r"""
ALWAYS static inline VF un_f(VF go, VF x) {
  VF uh, ul, dh, dl;
  one_plus_near<false>(x, uh, ul, dh, dl, C(0.0f));
  // N = f (D + x g): (f, g) = (1, u) for x >= 0, (u, 1) below
  const VF gh = blend(uh, C(1.0f), x), gl = blend(ul, C(0.0f), x);
  const VF ph = x * gh;
  const VF pl = fma_(x, gh, -ph) + x * gl;
  const VF th = dh + ph, tb = th - dh;
  const VF tl = ((dh - (th - tb)) + (ph - tb)) + (dl + pl);
  const VF fh = blend(C(1.0f), uh, x), fl = blend(C(0.0f), ul, x);
  const VF nh = fh * th;
  const VF nl = fma_(fh, th, -nh) + fma_(fh, tl, fl * th);
  const VF sq = dh * dh;
  const VF sql = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, sq));
  const VF inv = C(1.0f) / sq;
  VF y = nh * inv;
  VF c = (at::vec::fnmadd(y, sq, nh) + at::vec::fnmadd(y, sql, nl)) * inv;
  const VF xh = x - C(SILU_X0_HI);
  const VF zone = xh.abs() < C(SILU_GRAD_ZONE);
  if (!none(zone)) {
    const VF d = xh - C(SILU_X0_LO);
    Parts z = near_zero(xh, d, SILU_GRAD_P(d), SILU_X0_LO, SILU_C0_HI, SILU_C0_LO);
    y = blend(y, z.h, zone);
    c = blend(c, z.l, zone);
  }
  return fma_(go, y, go * c) | ((go ^ y) & C(-0.0f));
}
ALWAYS static inline VF un_full(VF go, VF x) {
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  if (every(near)) return un_f(go, x);
  const VF far =
      times_grad<silu_grad_parts<false>, false, silu_grad_parts<true>, SILU_PLAIN_LOW>(go, C(1.0f), x, SILU_CLOSED);
  return blend(far, un_f(go & near, x & near), near);
}
""",
    "un_full",
)
NZ = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
ALL = f"#define NARROW_ZONE {NZ}f\n" + "".join(src for src, _ in VARIANTS.values())
ks = {name: build(ALL, fn) for name, (src, fn) in VARIANTS.items()}
ks["current"] = build(ALL, "silu_grad_f")
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 22
x = torch.randn(n) * 3
go = torch.randn(n)


def runner(k):
    def f():
        out = torch.empty_like(x)
        k(go, x, out, 1, n, n, n, n, 1)
        return out

    return f


fs = {k: runner(v) for k, v in ks.items()}
fs["aten"] = lambda: torch.ops.aten.silu_backward(go, x)
ref = go.double() * torch.ops.aten.silu_backward(torch.ones_like(x, dtype=torch.float64), x.double())
for k, f in fs.items():
    y = f()
    # error in float32 ULPs of the reference (rounded once)
    r32 = ref.float()
    ulp = (torch.nextafter(r32.abs(), torch.tensor(float("inf"))) - r32.abs()).double()
    err = (y.double() - ref).abs() / ulp
    print(f"{k:12s} max err {err.max().item():.3f} ULP (vs float64 textbook)")
reps = max(1, 8_000_000 // n)
r = {k: [] for k in fs}
for _ in range(9):
    for k, f in fs.items():
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        r[k].append((time.perf_counter() - t0) / reps / n * 1e9)
for k, v in r.items():
    print(f"{k:12s} {statistics.median(v):.3f} ns/elem")


# accuracy near the zero and on a wide sweep: against mpmath-free float64 of silu' (the float64 textbook is
# accurate to ~1e-16 relative away from the zero; near it use the float64 exact formula too: rel err of float64
# is ~1e-16/|d|, fine for float32 ULPs down to d ~ 1e-8)
def f64_grad(xd):
    s = torch.sigmoid(xd)
    return s * (1 + xd * (1 - s))


xs = []
x0 = -1.2784645427610738
ints = torch.tensor(x0, dtype=torch.float32).view(torch.int32).item()
xs.append(torch.arange(ints - 3_000_000, ints + 3_000_000, dtype=torch.int32).view(torch.float32))
xs.append(torch.linspace(-68, 20, 2_000_000))
X = torch.cat(xs).contiguous()
G = torch.ones_like(X)
nX = X.numel()
for name, k in ks.items():
    out = torch.empty_like(X)
    k(G, X, out, 1, nX, nX, nX, nX, 1)
    ref = f64_grad(X.double())
    r32 = ref.float()
    ulp = (torch.nextafter(r32.abs(), torch.tensor(float("inf"))) - r32.abs()).double()
    err = (out.double() - ref).abs() / ulp
    i = int(err.argmax())
    print(f"{name:12s} dense max err {err.max().item():.3f} ULP at x={X[i].item()!r}")
