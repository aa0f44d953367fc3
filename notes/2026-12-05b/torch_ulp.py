"""Max ULP error of torch.sigmoid and F.silu (float32) over |x| < 69 on every STEP-th float32 bit pattern, against
torch's float64 ops, with near_ulp.py's measure (the spacing above the float64 value's float32 rounding).

Usage: PYTHONPATH=src python notes/2026-12-05b/torch_ulp.py 61"""

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-04c"))
from plain_bits import chunks

torch.set_num_threads(2)
step = int(sys.argv[1])
for name, op, ref_op in (
    ("F.silu", F.silu, lambda t: t * torch.sigmoid(t)),
    ("torch.sigmoid", torch.sigmoid, torch.sigmoid),
):
    worst, at = 0.0, None
    for x in chunks(step):
        x = x[torch.isfinite(x) & (x.abs() < 69)]
        if x.numel() == 0:
            continue
        ref = ref_op(x.double())
        rf = ref.float().abs()
        ulp = (torch.nextafter(rf, torch.tensor(float("inf"))) - rf).double()
        ulp = torch.where(rf < 2.0**-126, torch.tensor(2.0**-149, dtype=torch.float64), ulp)
        e = torch.nan_to_num((op(x).double() - ref).abs() / ulp, nan=0.0)
        i = int(e.argmax())
        if float(e[i]) > worst:
            worst, at = float(e[i]), float(x[i])
    print(f"{name}: max {worst:.3f} ULP at x = {at} (|x| < 69, one float32 bit pattern in {step})")
