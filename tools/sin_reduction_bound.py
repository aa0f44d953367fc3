"""How close w x comes to a multiple of pi/2 for float32 x, and the error of nonlin's siren and gcu kernels there.

native32's siren (w = 30) and gcu (w = 1) kernels reduce p = w x (exact in a double) as r = p - k pi/2 with
k = round(p 2/pi), by two fmas against pi/2 = PIO2_HI + PIO2_LO: their roundings are relative to r, and the
constant's own error (2^-107 relative) times k is an absolute error, small against r only where |r| is not tiny.
This scans every float32 x with pi/4 <= |w x| < 2^22 (the kernels' near range; below pi/4, k = 0 and r = p
exactly), 4M at a time: the smallest |r| (computed with pi/2 split in three parts so that each product is exact or
below 2^-70), and the kernel's worst forward and derivative error in float32 ULP against numpy's float64 sin and
cos of the exact p (gcu's derivative, cos x - x sin x, cancels near its zeros in float64 too: there
tests/kernels/test_native32.py measures it against mpmath).

    PYTHONPATH=src python tools/sin_reduction_bound.py      # both kernels, ~5 minutes
"""

from __future__ import annotations

import math

import numpy as np
import torch
from tqdm import tqdm

from nonlin.accuracy.formats import get_format
from nonlin.accuracy.metric import ulp_error
from nonlin.kernels import native32

# pi/2 as a 25-bit head (k * head exact for |k| < 2^28), a 53-bit middle and a tail (mpmath-free: the digits of pi/2)
_PIO2_HEAD = float.fromhex("0x1.921fb5p+0")
_PIO2_MID = float.fromhex("0x1.110b4611a6263p-26")
_PIO2_TAIL = float.fromhex("0x1.8a2e03707344ap-81")


def _ulp_error(y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    return ulp_error(y, ref, get_format("float32"))


# kernel -> (w, f(x), f'(x)) in float64
KERNELS = {
    "siren": (native32._siren_w(), lambda x: np.sin(30.0 * x), lambda x: 30.0 * np.cos(30.0 * x)),
    "gcu": (1.0, lambda x: x * np.cos(x), lambda x: np.cos(x) - x * np.sin(x)),
}


def scan(name: str) -> tuple[float, float, float]:
    w, value, derivative = KERNELS[name]
    smallest, fwd_worst, bwd_worst = math.inf, 0.0, 0.0
    lo_bits = np.float32(math.pi / 4 / w).view(np.uint32)
    hi_bits = np.float32(2.0**22 / w).view(np.uint32)
    chunk = 1 << 22
    for start in tqdm(range(int(lo_bits), int(hi_bits), chunk), desc=name, unit="chunk"):
        bits = np.arange(start, min(start + chunk, int(hi_bits)), dtype=np.uint32)
        x = np.concatenate([bits.view(np.float32), -bits.view(np.float32)])
        xd = x.astype(np.float64)
        p = xd * w
        k = np.rint(p * (2 / math.pi))
        r = ((p - k * _PIO2_HEAD) - k * _PIO2_MID) - k * _PIO2_TAIL
        smallest = min(smallest, float(np.abs(r).min()))
        xt = torch.from_numpy(x)
        fwd_worst = max(fwd_worst, float(_ulp_error(native32.forward(name, xt).numpy(), value(xd)).max()))
        go = torch.ones_like(xt)
        bwd_worst = max(bwd_worst, float(_ulp_error(native32.backward(name, go, xt).numpy(), derivative(xd)).max()))
    return smallest, fwd_worst, bwd_worst


if __name__ == "__main__":
    assert KERNELS["siren"][0] == 30.0, "the reference is written for siren's default omega_0, 30"
    for name in KERNELS:
        smallest, fwd, bwd = scan(name)
        print(
            f"{name}: smallest |w x - k pi/2| {smallest:.3e} (2^{math.log2(smallest):.1f}); worst error: forward "
            f"{fwd:.4f} ULP, derivative {bwd:.4f} ULP"
        )
