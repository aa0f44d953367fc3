"""libdevice for the Triton interpreter (TRITON_INTERPRET=1), which cannot call external libraries.

Each function mirrors the libdevice function of the same name on interpreter tensors: numpy/scipy compute
it on the block's data, float16 and float32 blocks in float64, rounded once to the block's dtype (0.5 ULP,
at least as accurate as libdevice's documented 1-2 ULP). Not numpy's own float32 loops: which of them runs
depends on the CPU (numpy dispatches to AVX-512 SVML versions where the CPU has AVX-512, 2-4 ULP for
expm1, log1p, tanh; scalar libm elsewhere), and the interpreter's results must not. The kernel source is the
same on GPU and in the interpreter; only this leaf library differs, and `benchmarks/gpu_check.py` checks
the real one.
"""

from __future__ import annotations

import numpy as np
import scipy.special as sc
import triton.language as tl
from triton.runtime.interpreter import TensorHandle


def _wrap(fn):
    def call(*args):
        first = next(a for a in args if isinstance(a, tl.tensor))
        dtype = first.handle.data.dtype
        data = [a.handle.data if isinstance(a, tl.tensor) else np.asarray(a, dtype=dtype) for a in args]
        if dtype in (np.float16, np.float32):
            data = [d.astype(np.float64) for d in data]
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*data)).astype(dtype, copy=False)
        return tl.tensor(TensorHandle(out, first.handle.dtype.scalar), first.type)

    call.__name__ = getattr(fn, "__name__", "libdevice_fn")
    return call


exp = _wrap(np.exp)
expm1 = _wrap(np.expm1)
log = _wrap(np.log)
log1p = _wrap(np.log1p)
sqrt = _wrap(np.sqrt)
sin = _wrap(np.sin)
cos = _wrap(np.cos)
tanh = _wrap(np.tanh)
atan = _wrap(np.arctan)
erf = _wrap(sc.erf)
erfc = _wrap(sc.erfc)
erfcx = _wrap(sc.erfcx)


def _half_turns(x):
    return x - 2 * np.round(0.5 * x)


def _sinpi(x):
    r = _half_turns(x)
    s = np.where(r > 0.5, 1 - r, np.where(r < -0.5, -1 - r, r))
    return np.sin(np.pi * s.astype(np.float64)).astype(x.dtype)


def _cospi(x):
    r = _half_turns(x)
    return np.sin(np.pi * (0.5 - np.abs(r)).astype(np.float64)).astype(x.dtype)


sinpi = _wrap(_sinpi)
cospi = _wrap(_cospi)
pow = _wrap(np.power)
