"""What a training call (forward, then backward of ones) costs at 32K float32: torch's op, nonlin's default, and a
Python autograd.Function that runs torch's own forward and backward ops (the cost of the Function itself);
interleaved medians, one thread, µs.

    PYTHONPATH=src python notes/2026-12-07g/train_call.py hardswish sigmoid
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as TF

import nonlin.functional as NF

torch.set_num_threads(1)
TORCH = {
    "hardswish": (TF.hardswish, lambda go, x, y: torch.ops.aten.hardswish_backward(go, x)),
    "sigmoid": (torch.sigmoid, lambda go, x, y: torch.ops.aten.sigmoid_backward(go, y)),
    "silu": (TF.silu, lambda go, x, y: torch.ops.aten.silu_backward(go, x)),
    "gelu": (TF.gelu, lambda go, x, y: torch.ops.aten.gelu_backward(go, x)),
}


def function_of(fwd, bwd):
    class Wrapped(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = fwd(x)
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, go):
            x, y = ctx.saved_tensors
            return bwd(go, x, y)

    return Wrapped.apply


def train(f, x, ones):
    f(x).backward(ones)


for name in sys.argv[1:] or ["hardswish"]:
    fwd, bwd = TORCH[name]
    x = torch.randn(64, 512, requires_grad=True)
    ones = torch.ones(64, 512)
    fns = {"torch": fwd, "python Function of torch's ops": function_of(fwd, bwd), "nonlin": getattr(NF, name)}
    for f in fns.values():
        for _ in range(100):
            train(f, x, ones)
    t = {k: [] for k in fns}
    for _ in range(9):
        for k, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(300):
                train(f, x, ones)
            t[k].append((time.perf_counter() - t0) / 300 * 1e6)
    m = {k: statistics.median(v) for k, v in t.items()}
    print(name, ", ".join(f"{k} {v:.1f} µs ({v / m['torch']:.2f})" for k, v in m.items()))
