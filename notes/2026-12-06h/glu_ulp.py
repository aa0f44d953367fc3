"""glu's float32 forward kernel, v sigma(g), against float64 on every 7th float32 bit pattern of |g| <= 60 (its near
form's range) with v = N(0, 1) 2^k, k uniform in [-30, 30]: the maximum ULP error (notes/2026-12-06h: the near form
with u rounded to float32, bounded by 1.92). Run from a checkout: PYTHONPATH=src python notes/2026-12-06h/glu_ulp.py"""

import numpy as np
import torch

from nonlin.kernels import native32


def main() -> None:
    worst, n = 0.0, 0
    gen = torch.Generator().manual_seed(0)
    for off in range(64):
        bits = torch.arange(0, 1 << 32, 7 * 64, dtype=torch.int64) + 7 * off
        g = (bits - (1 << 32) * (bits >= (1 << 31))).to(torch.int32).view(torch.float32)
        g = g[g.abs() <= 60].contiguous()
        v = torch.randn(g.shape, generator=gen) * torch.exp2(torch.randint(-30, 31, g.shape, generator=gen).float())
        y = native32.gated_forward("glu", g, v).double().numpy()
        gd, vd = g.double().numpy(), v.double().numpy()
        ref = vd / (1 + np.exp(-gd))
        ulp = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
        worst = max(worst, float(np.max(np.abs(y - ref) / ulp)))
        n += g.numel()
    print(f"glu forward, {n} points: max {worst:.3f} ULP")


if __name__ == "__main__":
    main()
