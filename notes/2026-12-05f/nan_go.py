"""A NaN incoming gradient through the default path of every pointwise and gated entry (float32, bfloat16; 28
and 2M elements): prints the entries whose input gradient is not NaN everywhere.

    python notes/2026-12-05f/nan_go.py"""

import torch

import nonlin.functional as F
from nonlin.registry import names, spec
from nonlin.spec import Kind

bad = []
x0 = torch.tensor(
    [-1e30, -300.0, -50.0, -20.0, -3.0, -0.0, 0.0, 0.5, 3.0, 20.0, 300.0, 1e30, float("inf"), -float("inf")]
)
for n in names():
    sp = spec(n)
    if sp.stochastic or sp.kind not in (Kind.POINTWISE, Kind.GATED) or sp.extra_inputs:
        continue
    for dt in (torch.float32, torch.bfloat16):
        for size in (28, 1 << 21):
            x = x0.repeat(size // 14 + 1)[:size]
            x = x.to(dt).requires_grad_()
            try:
                y = F.function(n)(x)
                y.backward(torch.full_like(y, float("nan")))
            except Exception as e:
                bad.append((n, str(dt), size, "err", str(e)[:60]))
                continue
            k = (~x.grad.isnan()).sum().item()
            if k:
                bad.append(
                    (
                        n,
                        str(dt),
                        size,
                        k,
                        x.detach()[~x.grad.isnan()][:4].tolist(),
                        x.grad[~x.grad.isnan()][:4].tolist(),
                    )
                )
for b in bad:
    print(b)
print("done")
