"""hardswish's native32 forward against the correctly rounded value (exact rationals, ties to even) on 400K random
finite float32 bit patterns and 100K x in [-4, 4]: how many are not correctly rounded, and whether all of those have
|x| < 2^-125 (x / 2 a subnormal midpoint whose tie only x^2 / 6 breaks).

    PYTHONPATH=src python notes/2026-12-05a/hardswish_rounding.py
"""

from fractions import Fraction

import numpy as np
import torch

from nonlin.kernels import native32 as n32

g = torch.Generator().manual_seed(2)
# every binade: random bit patterns over all finite float32
bits = torch.randint(0, 2**31 - 2**23, (400000,), generator=g, dtype=torch.int64)
sign = torch.randint(0, 2, (400000,), generator=g, dtype=torch.int64) << 31
pat = bits | sign
x = (pat - (1 << 32) * (pat >= (1 << 31))).to(torch.int32).view(torch.float32)
x = torch.cat([x, torch.rand(100000, generator=g) * 8 - 4])
y = n32.forward("hardswish", x)


def rn_even(ex):
    c = np.float32(float(ex))
    lo, hi = (
        (np.nextafter(c, np.float32(-np.inf)), c)
        if Fraction(float(c)) > ex
        else (c, np.nextafter(c, np.float32(np.inf)))
    )
    dl, dh = ex - Fraction(float(lo)), Fraction(float(hi)) - ex
    if dl < dh:
        return lo
    if dh < dl:
        return hi
    return lo if (np.frombuffer(np.float32(lo).tobytes(), np.uint32)[0] & 1) == 0 else hi


bad = []
for xi, yi in zip(x.tolist(), y.tolist(), strict=True):
    if xi != xi:
        continue
    if xi >= 3:
        ex = Fraction(xi)
    elif xi <= -3:
        ex = Fraction(0)
    else:
        f = Fraction(xi)
        ex = f * (f + 3) / 6
    if ex == 0:
        if yi != 0:
            bad.append((xi, yi, 0.0))
        continue
    r = rn_even(ex)
    if np.float32(yi) != r:
        bad.append((xi, yi, float(r)))
print("not correctly rounded:", len(bad), "of", len(x))
print("of which |x| < 2^-125:", sum(abs(b[0]) < 2.0**-125 for b in bad))
print(bad[:5])
