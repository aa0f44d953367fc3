"""gtu's forward taken apart (near form alone, its branches, the far form out of line), ns per element at 4M.

PYTHONPATH=src python notes/2026-12-05f/gtu_exp.py"""

import sys

import torch

sys.path.insert(0, "/work/main/notes/2026-12-04c")
sys.path.insert(0, "/work/main/notes/2026-12-05a")
sys.path.insert(0, "/work/main/benchmarks")
from interleave import interleaved_ns
from kernels import keep_freed_memory

from nonlin.kernels import native32

EXP = r"""
ALWAYS static inline VF e_sig(VF g, VF v) {
  VF uh, ul, dh, dl, fh, fl;
  one_plus_near(at::vec::minimum(g, C(SIGMA_NEAR)), uh, ul, dh, dl);
  sigma_near_parts(g, uh, ul, dh, dl, fh, fl);
  return fh + fl + v;
}
ALWAYS static inline VF e_tanh(VF g, VF v) {
  const VF a = v.abs();
  OnePlus o;
  one_plus<true>(at::vec::minimum(a, C(12.0f)) * C(-2.0f), o);
  VF th, tl;
  tanh_abs_parts(a, o, th, tl);
  return th + tl + g;
}
ALWAYS static inline VF e_full(VF g, VF v) { return gtu_near(g, v); }
ALWAYS static inline VF e_expect(VF g, VF v) {
  const VF near = gtu_near_lanes(g, v);
  if (__builtin_expect(every(near), 1)) return gtu_near(g, v);
  return VF::blendv(glu_f(g, tanh_f(v)), gtu_near(g & near, v & near), near);
}
__attribute__((noinline, cold)) static VF far_gtu_cold(VF g, VF v, VF near) {
  return VF::blendv(glu_f(g, tanh_f(v)), gtu_near(g & near, v & near), near);
}
ALWAYS static inline VF e_cold(VF g, VF v) {
  const VF near = gtu_near_lanes(g, v);
  if (__builtin_expect(every(near), 1)) return gtu_near(g, v);
  return far_gtu_cold(g, v, near);
}
ALWAYS static inline VF e_branch0(VF g, VF v) {
  const VF near = gtu_near_lanes(g, v);
  if (every(near)) return gtu_near(g, v);
  return C(0.0f);
}
ALWAYS static inline VF e_branch_glu(VF g, VF v) {
  const VF near = gtu_near_lanes(g, v);
  if (every(near)) return gtu_near(g, v);
  return glu_f(g, v);
}
ALWAYS static inline VF e_branch_tanh(VF g, VF v) {
  const VF near = gtu_near_lanes(g, v);
  if (every(near)) return gtu_near(g, v);
  return tanh_f(v);
}
__attribute__((noinline)) static VF far_gtu(VF g, VF v, VF near) {
  return VF::blendv(glu_f(g, tanh_f(v)), gtu_near(g & near, v & near), near);
}
ALWAYS static inline VF e_noinline(VF g, VF v) {
  const VF near = gtu_near_lanes(g, v);
  if (every(near)) return gtu_near(g, v);
  return far_gtu(g, v, near);
}
"""
native32._PRELUDE = native32._PRELUDE + EXP
for k in (
    "e_expect",
    "e_cold",
    "e_sig",
    "e_tanh",
    "e_full",
    "e_branch0",
    "e_branch_glu",
    "e_branch_tanh",
    "e_noinline",
):
    native32.GATED[k] = (k, "gtu_grad_f")
keep_freed_memory()
torch.set_num_threads(1)
n = 1 << 22
g, v = torch.randn(n) * 3, torch.randn(n) * 3
jobs = {
    k: (lambda k=k: native32.gated_forward(k, g, v))
    for k in ("e_full", "e_branch0", "e_expect", "e_cold", "e_noinline", "gtu")
}
for k, t in interleaved_ns(jobs, n, 7).items():
    print(f"{k}: {t:.3f}")
