"""Prototype (not product code): silu's forward from the exponential rounded to float32, as sigmoid_near does
(`one_plus_rounded`), for x in [-68, 20] only (silu's plain range); timed against native32's silu kernel and
F.silu, and its error measured over every STEP-th float32 bit pattern in that range.

Usage: PYTHONPATH=src python notes/2026-12-04e/silu_near_prototype.py [step] [rounds]"""

import sys

import numpy as np
import scipy.special as sp
import torch
import torch.nn.functional as F
from interleaved import print_interleaved  # (beside this script)
from torch._inductor.codecache import CppPythonBindingsCodeCache

from nonlin.kernels import native32
from nonlin.kernels.gather import FOR_BLOCKS

torch.set_num_threads(1)
step = int(sys.argv[1]) if len(sys.argv) > 1 else 61
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
NEAR = r"""
static inline VF silu_near(VF x) {
  OnePlus o;
  one_plus_rounded(C(0.0f) - x.abs(), o);
  const Parts p = times_sigma(x, x >= C(0.0f), o);
  return scaled(p.h + p.l, p.k).abs() | (x & C(-0.0f));
}
"""
prelude = native32._PRELUDE.replace("// CONSTANTS", native32._constants()) + FOR_BLOCKS
body = prelude + NEAR + native32._UNARY.replace("FN", "silu_near")
near = CppPythonBindingsCodeCache.load_pybinding(["const float*", "float*"] + ["int64_t"] * 5, body)


def silu_near(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    near(x, out, 1, x.numel(), x.numel(), x.numel(), 1)
    return out


# error over every STEP-th float32 in [-68, 20]
worst, at, total, above1 = 0.0, None, 0, 0
for sign, hi in ((0, 20.0), (0x80000000, 68.0)):
    top = int(np.array([hi], np.float32).view(np.uint32)[0])
    for start in range(0, top + 1, step << 22):
        bits = np.arange(start, min(start + (step << 22), top + 1), step, dtype=np.uint32) | sign
        x = bits.view(np.float32)
        ref = x.astype(np.float64) * sp.expit(x.astype(np.float64))
        y = silu_near(torch.from_numpy(x)).numpy().astype(np.float64)
        e = np.floor(np.log2(np.maximum(np.abs(ref), 2.0**-126)))
        err = np.abs(y - ref) / np.maximum(2.0 ** (e - 23), 2.0**-149)
        i = int(err.argmax())
        if err[i] > worst:
            worst, at = float(err[i]), float(x[i])
        total += len(x)
        above1 += int((err > 1).sum())
print(
    f"silu_near: max {worst:.3f} ULP at x = {at} over {total} float32 in [-68, 20] (one pattern in {step}); >1 ULP: {above1}"
)

n = 1 << 22
x = torch.randn(n) * 3
jobs = {
    "silu kernel": lambda: native32.forward("silu", x),
    "silu_near": lambda: silu_near(x),
    "F.silu": lambda: F.silu(x),
}
print_interleaved(jobs, n, rounds, "x ~ 3 N(0, 1), one thread")
