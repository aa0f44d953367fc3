"""serf's double kernel (native32) against float64: the worst forward and backward errors in float32 ULP on every
1021st float32 bit pattern, the test file's dense sets, and 2M points within 0.3 of the derivative's zero
x0 = -1.193 (the zone's edges 0.15 from it), the derivative there also against mpmath on the 2001 float32s nearest
x0 (float64's terms cancel there).

    PYTHONPATH=src:tests/kernels python notes/2026-12-06e/serf_ulp.py
"""

import mpmath
import numpy as np
import torch
from test_native32 import REFERENCE, _inputs, _ulp_error

from nonlin.kernels import native32

value, slope = REFERENCE["serf"]
x0 = np.float32(-1.193059968928188)
near = np.linspace(x0 - 0.3, x0 + 0.3, 2_000_001, dtype=np.float32)
for label, xs in (("every 1021st float32, dense sets", _inputs(1021)), ("2M within 0.3 of x0", near)):
    x = torch.from_numpy(xs)
    go = torch.ones_like(x)
    fwd = _ulp_error(native32.forward("serf", x).numpy(), value(xs.astype(np.float64)))
    bwd = _ulp_error(native32.backward("serf", go, x).numpy(), slope(xs.astype(np.float64)))
    print(
        f"{label}: forward {fwd.max():.4f} ULP at {xs[fwd.argmax()]!r}, backward {bwd.max():.4f} at {xs[bwd.argmax()]!r}"
    )
closest = (x0 + np.arange(-1000, 1001, dtype=np.float32) * np.spacing(x0)).astype(np.float32)
mpmath.mp.dps = 40


def exact(v):
    s = mpmath.log1p(mpmath.exp(v))
    return mpmath.erf(s) + v * 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-s * s) / (1 + mpmath.exp(-v))


ref = np.array([float(exact(mpmath.mpf(float(v)))) for v in closest])
got = native32.backward("serf", torch.ones(len(closest)), torch.from_numpy(closest)).numpy()
err = _ulp_error(got, ref)
print(f"2001 float32s nearest x0, against mpmath: backward {err.max():.4f} ULP at {closest[err.argmax()]!r}")
