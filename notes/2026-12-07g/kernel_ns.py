"""ns per element of native32's float32 kernels (forward, backward) against torch's ops, in cache (256K) and from
memory (4M); one thread, interleaved medians. Run it in two checkouts to compare kernel loops.

    PYTHONPATH=src python notes/2026-12-07g/kernel_ns.py hardswish silu
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as TF

from nonlin.kernels import native32

torch.set_num_threads(1)
TORCH = {
    "hardswish": (TF.hardswish, lambda go, x: torch.ops.aten.hardswish_backward(go, x)),
    "silu": (TF.silu, lambda go, x: torch.ops.aten.silu_backward(go, x)),
    "gelu": (TF.gelu, lambda go, x: torch.ops.aten.gelu_backward(go, x)),
    "sigmoid": (torch.sigmoid, lambda go, x: torch.ops.aten.sigmoid_backward(go, x)),
    "elu": (TF.elu, lambda go, x: torch.ops.aten.elu_backward(go, 1.0, 1.0, 1.0, False, x)),
    "tanh": (torch.tanh, lambda go, x: torch.ops.aten.tanh_backward(go, x)),
}


def calls(name: str, n: int) -> dict:
    tf, tb = TORCH[name]
    x, go = torch.randn(n), torch.randn(n)
    return {
        "torch fwd": lambda: tf(x),
        "nonlin fwd": lambda: native32.forward(name, x),
        "torch bwd": lambda: tb(go, x),
        "nonlin bwd": lambda: native32.backward(name, go, x),
    }


for name in sys.argv[1:]:
    for n in (1 << 18, 1 << 22):
        fns = calls(name, n)
        reps = max(5, (1 << 24) // n)
        for f in fns.values():
            f()
        t = {k: [] for k in fns}
        for _ in range(9):
            for k, f in fns.items():
                t0 = time.perf_counter()
                for _ in range(reps):
                    f()
                t[k].append((time.perf_counter() - t0) / reps / n * 1e9)
        m = {k: statistics.median(v) for k, v in t.items()}
        print(
            f"{name:10s} n={n:8d} "
            + "  ".join(f"{k} {v:5.3f}" for k, v in m.items())
            + f"  ratio fwd {m['nonlin fwd'] / m['torch fwd']:4.2f} bwd {m['nonlin bwd'] / m['torch bwd']:4.2f}",
            flush=True,
        )
