"""situ_glu's float32 kernels (native32) against the catalog's float64 path with autograd: max ULP of the forward,
d/dg and d/dv on 1M g ~ 3 N(0, 1), v ~ 5 N(0, 1) ("plain"), on g over [-60, 60] with v and go scaled by 2^[-40, 8]
and 2^[-40, 40] ("wide"), and on the 10001 float32 gates nearest the zero of G' with v = 3 (tables) and v = 30 (the
far form). Run from a checkout: PYTHONPATH=src python notes/2026-12-07d/situ_check.py"""

import numpy as np
import torch

import nonlin.functional as F
from nonlin.kernels import native32


def ulp(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    ref32 = np.abs(ref.astype(np.float32))
    spacing = np.spacing(np.maximum(ref32, np.finfo(np.float32).tiny)).astype(np.float64)
    return np.abs(got.astype(np.float64) - ref) / spacing


def check(g: torch.Tensor, v: torch.Tensor, go: torch.Tensor, label: str) -> None:
    gd, vd = g.double().requires_grad_(), v.double().requires_grad_()
    ref = F.function("situ_glu")(gd, vd)
    ref.backward(go.double())
    y = native32.gated_forward("situ_glu", g, v)
    dg, dv = torch.empty_like(g), torch.empty_like(g)
    assert native32.gated_backward("situ_glu", go, g, v, dg, dv)
    out = []
    for got, want in ((y, ref.detach()), (dg, gd.grad), (dv, vd.grad)):
        want = want.numpy()
        finite = np.isfinite(want)
        err = ulp(got.numpy()[finite], want[finite])
        i = err.argmax()
        out.append(f"{err.max():.3f} (g={g[finite][i].item():.6g}, v={v[finite][i].item():.4g})")
    print(label, *out)


def main() -> None:
    gen = torch.Generator().manual_seed(0)
    n = 1 << 20
    check(torch.randn(n, generator=gen) * 3, torch.randn(n, generator=gen) * 5, torch.randn(n, generator=gen), "plain")
    scale = torch.exp2(torch.randint(-40, 9, (n,), generator=gen).float())
    g = (torch.rand(n, generator=gen) * 2 - 1) * 60
    v = torch.randn(n, generator=gen) * 40 * scale
    go = torch.randn(n, generator=gen) * torch.exp2(torch.randint(-40, 40, (n,), generator=gen).float())
    check(g, v, go, "wide")
    x0 = np.float32(native32.SITU_X0[0])
    gz = torch.from_numpy(x0 + np.arange(-5000, 5001, dtype=np.float32) * np.spacing(x0))
    check(gz, torch.full_like(gz, 3.0), torch.ones_like(gz), "zero")
    check(gz, torch.full_like(gz, 30.0), torch.ones_like(gz), "zero, far")


if __name__ == "__main__":
    main()
