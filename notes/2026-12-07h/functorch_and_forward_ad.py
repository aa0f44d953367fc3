"""Found while building the C++ training node, not changed by it (a limitation of the default path before it):
torch.func's transforms and forward-mode AD over nonlin's functional forms, against torch's own op.

    PYTHONPATH=src python notes/2026-12-07h/functorch_and_forward_ad.py
"""

import torch
import torch.autograd.forward_ad as forward_ad
import torch.nn.functional as TF

import nonlin.functional as NF


def outcome(f) -> str:
    try:
        r = f()
    except Exception as e:  # (what a user sees)
        return f"{type(e).__name__}: {str(e)[:110]}"
    return "ok" if r is None else f"ok, {r}"


def main() -> None:
    x = torch.randn(64, 512) * 3
    for _ in range(40):  # (the route settles on the kernels, as a model's calls do)
        NF.silu(x.clone().requires_grad_()).sum().backward()
        NF.silu(x)
    for name, f in (("torch", TF.silu), ("nonlin", NF.silu)):
        print(f"{name}: torch.func.grad", outcome(lambda f=f: torch.func.grad(lambda t: f(t).sum())(x) is None or None))
        print(f"{name}: torch.func.vmap", outcome(lambda f=f: torch.func.vmap(f)(x) is None or None))

        def tangent(f=f, requires_grad=False):
            with forward_ad.dual_level():
                dual = forward_ad.make_dual(x.clone().requires_grad_(requires_grad), torch.ones_like(x))
                t = forward_ad.unpack_dual(f(dual)).tangent
            return "tangent: none (dropped)" if t is None else "tangent: present"

        print(f"{name}: forward AD, input without grad", outcome(tangent))
        print(f"{name}: forward AD, input with grad", outcome(lambda f=f: tangent(f, True)))


if __name__ == "__main__":
    main()
