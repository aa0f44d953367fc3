"""Prototype, not kept: gelu's forward kernel with erfcx(a / sqrt2) / 2 fitted piecewise (32 intervals of [0, 16],
degree 7, coefficients picked by vpermt2ps; AVX-512 only), against native32's gelu: max ULP on 3M points and ns
per element in cache, interleaved.

Usage: PYTHONPATH=src python notes/2026-12-04c/erfcx_piecewise_prototype.py"""

import statistics
import time

import numpy as np
import scipy.special as sp
import torch
from numpy.polynomial import chebyshev as ch
from torch._inductor.codecache import CppPythonBindingsCodeCache

from nonlin.kernels import native32 as n32
from nonlin.kernels.gather import FOR_BLOCKS

torch.set_num_threads(1)
WIDTH, INTERVALS, DEGREE = 0.5, 32, 7


def half_erfcx(a):
    return sp.erfcx(a / np.sqrt(2)) / 2


coef = np.zeros((DEGREE + 1, INTERVALS))
c0_lo = np.zeros(INTERVALS)
for i in range(INTERVALS):
    c = (i + 0.5) * WIDTH
    nodes = np.cos(np.pi * (np.arange(DEGREE + 1) + 0.5) / (DEGREE + 1)) * WIDTH / 2
    cheb = ch.chebfit(nodes / (WIDTH / 2), half_erfcx(c + nodes), DEGREE)
    coef[:, i] = ch.cheb2poly(cheb) / (WIDTH / 2) ** np.arange(DEGREE + 1)  # in d = a - c
    coef[0, i] = half_erfcx(c)
    c0_lo[i] = half_erfcx(c) - np.float32(half_erfcx(c))


def table(name, values):
    return f"alignas(64) static const float {name}[32] = {{{', '.join(f'{float(np.float32(v))!r}f' for v in values)}}};"


TABLES = "\n".join([*(table(f"PW_C{j}", coef[j]) for j in range(DEGREE + 1)), table("PW_C0L", c0_lo)])
KERNEL = r"""
static inline VF pick(const float* t, __m512i i) {
  return VF(_mm512_permutex2var_ps(_mm512_load_ps(t), i, _mm512_load_ps(t + 16)));
}
// gelu_parts with Phi(-a) = e^{-a^2/2} G(a), G = erfcx(a / sqrt2) / 2 = c0 + d P(d) on a's interval
static inline Parts gelu_parts_pw(VF x, VF xs) {
  const VF a = at::vec::minimum(x.abs(), C(15.99f));
  const VF sh = a * a;
  Exp e;
  exp_parts(sh * C(-0.5f), fma_(a, a, -sh) * C(-0.5f), e);
  const VF fi = (a * C(2.0f)).floor();
  const __m512i i = _mm512_cvttps_epi32(fi);
  const VF d = a - (fi * C(0.5f) + C(0.25f));
  VF p = pick(PW_C7, i);
  p = fma_(p, d, pick(PW_C6, i));
  p = fma_(p, d, pick(PW_C5, i));
  p = fma_(p, d, pick(PW_C4, i));
  p = fma_(p, d, pick(PW_C3, i));
  p = fma_(p, d, pick(PW_C2, i));
  p = fma_(p, d, pick(PW_C1, i));
  const VF t = d * p;
  const VF c0 = pick(PW_C0, i);
  const VF gh = c0 + t;
  const VF gl = ((c0 - gh) + t) + pick(PW_C0L, i);
  const VF wh = e.h * gh;
  const VF wl = fma_(e.h, gh, -wh) + (e.h * gl + e.l * gh);
  const VF th = scaled(wh, at::vec::maximum(e.k, C(-60.0f))), tl = scaled(wl, at::vec::maximum(e.k, C(-60.0f)));
  const VF oh = C(1.0f) - th;
  const VF ol = ((C(1.0f) - oh) - th) - tl;
  const VF pos = x >= C(0.0f);
  const VF fh = VF::blendv(wh, oh, pos), fl = VF::blendv(wl, ol, pos);
  const VF h = xs * fh;
  return {h, fma_(xs, fh, -h) + xs * fl, VF::blendv(e.k, C(0.0f), pos)};
}
static inline VF gelu_pw(VF x) { return gated_f<gelu_parts_pw, false>(x, C(1.0f), GELU_OPEN, GELU_CLOSED); }
"""


def build(fn, extra=""):
    prelude = n32._PRELUDE.replace("// CONSTANTS", n32._constants()) + extra + FOR_BLOCKS
    args = ["const float*", "float*"] + ["int64_t"] * 5
    return CppPythonBindingsCodeCache.load_pybinding(args, prelude + n32._UNARY.replace("FN", fn))


def ulp_error(y, ref):
    e = np.floor(np.log2(np.maximum(np.abs(ref), 2.0**-149)))
    err = np.abs(y.astype(np.float64) - ref) / np.maximum(2.0 ** (e - 23), 2.0**-149)
    err[y.astype(np.float64) == ref] = 0
    return err


kernels = {"native32 gelu": build("gelu_f"), "piecewise erfcx": build("gelu_pw", TABLES + KERNEL)}
xs = torch.cat([torch.linspace(-16, 6, 2_000_001), torch.randn(1 << 20) * 3]).float()
ref = xs.double().numpy() * sp.ndtr(xs.double().numpy())
for name, k in kernels.items():
    out = torch.empty_like(xs)
    k(xs, out, 1, xs.numel(), xs.numel(), xs.numel(), 1)
    err = ulp_error(out.numpy(), ref)
    print(f"{name}: max {err.max():.3f} ULP at x = {float(xs[err.argmax()]):g}")
x = torch.randn(32768) * 3
out = torch.empty_like(x)
times = {name: [] for name in kernels}
for _ in range(25):
    for name, k in kernels.items():
        t = time.perf_counter()
        for _ in range(50):
            k(x, out, 1, x.numel(), x.numel(), x.numel(), 1)
        times[name].append((time.perf_counter() - t) / 50 / x.numel() * 1e9)
print({name: round(statistics.median(v), 3) for name, v in times.items()}, "ns per element, 32K in cache")
