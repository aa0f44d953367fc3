"""Forward and backward kernels of nonlin's float32 default path against torch's, per element, in cache (256K) and
from memory (4M): one thread, interleaved medians (ns per element).

    PYTHONPATH=src python notes/2026-12-07g/train_parts.py silu sigmoid gelu
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as TF

from nonlin.kernels import native32

torch.set_num_threads(1)
TORCH_BWD = {
    "silu": lambda go, x: torch.ops.aten.silu_backward(go, x),
    "sigmoid": lambda go, x: torch.ops.aten.sigmoid_backward(go, torch.sigmoid(x)),
    "gelu": lambda go, x: torch.ops.aten.gelu_backward(go, x),
}
TORCH_FWD = {"silu": TF.silu, "sigmoid": torch.sigmoid, "gelu": TF.gelu}

for name in sys.argv[1:]:
    for n in (1 << 18, 1 << 22):
        x, go = torch.randn(n), torch.randn(n)
        sig = torch.sigmoid(x)
        fns = {
            "torch fwd": lambda: TORCH_FWD[name](x),
            "nonlin fwd": lambda: native32.forward(name, x),
            "torch bwd": (lambda: torch.ops.aten.sigmoid_backward(go, sig)) if name == "sigmoid"
            else (lambda: TORCH_BWD[name](go, x)),
            "nonlin bwd": lambda: native32.backward(name, go, x),
        }
        reps = max(5, (1 << 24) // n)
        for f in fns.values():
            f()
        t = {k: [] for k in fns}
        for _ in range(7):
            for k, f in fns.items():
                t0 = time.perf_counter()
                for _ in range(reps):
                    f()
                t[k].append((time.perf_counter() - t0) / reps / n * 1e9)
        m = {k: statistics.median(v) for k, v in t.items()}
        print(f"{name:8s} n={n:8d} " + "  ".join(f"{k} {v:5.2f}" for k, v in m.items())
              + f"  ratio fwd {m['nonlin fwd'] / m['torch fwd']:4.2f} bwd {m['nonlin bwd'] / m['torch bwd']:4.2f}")
