"""Zero signs of the default route's float32 gradient at go = -0 against the eager path, every pointwise catalog
entry, 4006 inputs (the large size class's route, `route.pinned`): entry -> elements whose zero differs in sign.

Usage: PYTHONPATH=src python notes/2026-12-04f/zero_sign_audit.py"""

import warnings

import torch

import nonlin
import nonlin.functional as F
from nonlin import route, use
from nonlin.registry import names
from nonlin.spec import Kind

warnings.filterwarnings("ignore")
torch.manual_seed(0)
x0 = torch.cat(
    [torch.randn(2000) * 4, torch.linspace(-30, 30, 2000), torch.tensor([0.0, -0.0, 1e-30, -1e-30, 100.0, -100.0])]
)
bad = {}
for name in names():
    s = nonlin.spec(name)
    if s.kind is not Kind.POINTWISE or s.stochastic:
        continue
    f = F.function(name)
    for dtype in (torch.float32,):
        out = []
        for mode in ("auto", "eager"):
            x = x0.to(dtype).clone().requires_grad_()
            try:
                ctx = route.pinned("large") if mode == "auto" else use("eager")
                with ctx:
                    y = f(x)
                    (g,) = torch.autograd.grad(y, x, torch.full_like(y, -0.0))
            except Exception:  # (an entry with required inputs or parameters: skipped)
                out = None
                break
            out.append(g)
        if out is None:
            continue
        a, b = out
        zero = (a == 0) & (b == 0)
        n = ((a.signbit() != b.signbit()) & zero).sum().item()
        if n:
            bad[name] = n
print(bad)
