"""Tried, not kept: silu's backward kernel with one numerator and single-float sums (`silu_grad_lean`) in place of
silu_grad_near's two double-float numerators. Builds the variant from the working tree's native32.py, then
prints its max ULP error (every float32 within 0.02 of silu''s zero against mpmath, every 97th bit pattern in
[-68, 20] and 2M uniform on [-8, 8], against float64) and ns per element against the kept kernel and torch's
silu_backward (interleaved, one thread).

    PYTHONPATH=src python notes/2026-12-05h/lean_silu_grad.py"""

import sys

import mpmath
import numpy as np
import scipy.special as sp
import torch

sys.path.insert(0, "/work/main/notes/2026-12-04c")
sys.path.insert(0, "/work/main/notes/2026-12-05a")
sys.path.insert(0, "/work/main/benchmarks")
from interleave import interleaved_ns
from kernels import keep_freed_memory
from plain_bits import load_old

from nonlin.kernels import native32 as cur

LEAN = r"""
ALWAYS static inline VF silu_grad_lean(VF go, VF x) {
  VF uh, ul, dh, dl;
  one_plus_near<false>(x, uh, ul, dh, dl);
  const VF s = C(1.0f) + x;
  const VF m = (s + uh) + ul;  // x < 0: 1 + x + u (s + uh exact near x0: Sterbenz), rounded once
  const VF nneg = fma_(uh, m, ul * m);
  const VF npos = fma_(uh, s, C(1.0f));
  const VF nh = blend(npos, nneg, x);
  const VF ph = dh * dh;
  const VF pl = fma_(dh + dh, dl, at::vec::fmsub(dh, dh, ph));
  const VF inv = C(1.0f) / ph;
  VF y = nh * inv;
  VF c = (at::vec::fnmadd(y, ph, nh) - y * pl) * inv;
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
"""


def lean_module():
    with open(cur.__file__) as f:
        s = f.read()
    anchor = "ALWAYS static inline VF silu_grad_near(VF go, VF x) {"
    s = s.replace(anchor, LEAN + anchor, 1)
    body = s[s.index("ALWAYS static inline VF silu_grad_f(") :]
    body = body[: body.index("\n}\n")]
    s = s.replace(body, body.replace("silu_grad_near(", "silu_grad_lean("))
    path = "/tmp/native32_lean.py"
    with open(path, "w") as f:
        f.write(s)
    return load_old(path)


def reference(x: np.ndarray) -> np.ndarray:
    r = sp.expit(x) * (1.0 + x * sp.expit(-x))
    mpmath.mp.dps = 40
    for i in np.nonzero(np.abs(x - X0) < 0.02)[0]:  # (float64's own cancellation there)
        xm = mpmath.mpf(float(x[i]))
        s = 1 / (1 + mpmath.exp(-xm))
        r[i] = float(s * (1 + xm * (1 - s)))
    return r


def ulp_error(y: np.ndarray, r: np.ndarray) -> np.ndarray:
    e = np.floor(np.log2(np.maximum(np.abs(r), 2.0**-149)))
    err = np.abs(y.astype(np.float64) - r) / np.maximum(2.0 ** (e - 23), 2.0**-149)
    err[y.astype(np.float64) == r] = 0
    return err


X0 = -1.2784645557403564
lean = lean_module()
ends = np.array([X0 - 0.02, X0 + 0.02], dtype=np.float32).view(np.int32)
bits = np.arange(0, 1 << 32, 97, dtype=np.int64)
bits = (bits - (1 << 32) * (bits >= (1 << 31))).astype(np.int32).view(np.float32)
x = np.concatenate(
    [
        np.arange(ends.min(), ends.max(), dtype=np.int32).view(np.float32),
        bits[np.isfinite(bits) & (bits >= -68) & (bits <= 20)],
        np.random.default_rng(0).uniform(-8, 8, 2_000_000).astype(np.float32),
    ]
)
xt = torch.from_numpy(x)
go = torch.randn(xt.shape, generator=torch.Generator().manual_seed(1))
r = reference(x.astype(np.float64))
for tag, m in (("kept", cur), ("lean", lean)):
    e1 = ulp_error(m.backward("silu", torch.ones_like(xt), xt).numpy(), r)
    e2 = ulp_error(m.backward("silu", go, xt).numpy(), r * go.double().numpy())
    print(f"{tag}: max ULP {e1.max():.3f} (at x = {x[np.argmax(e1)]!r}), with go ~ N(0, 1) {e2.max():.3f}")

keep_freed_memory()
torch.set_num_threads(1)


def timings(n: int) -> dict[str, float]:
    xs, gs, out = torch.randn(n), torch.randn(n), torch.empty(n)
    kc, kl = cur.kernel("silu", "bwd"), lean.kernel("silu", "bwd")
    jobs = {
        "kept": lambda: kc(gs, xs, out, 1, n, n, n, n, 1),
        "lean": lambda: kl(gs, xs, out, 1, n, n, n, n, 1),
        "torch silu_backward": lambda: torch.ops.aten.silu_backward(gs, xs),
    }
    return interleaved_ns(jobs, n, 9)


for n in (1 << 15, 1 << 22):
    print(n, ", ".join(f"{k} {v:.3f}" for k, v in timings(n).items()), "ns per element")
