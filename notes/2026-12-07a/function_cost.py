"""What a training call's torch.autograd.Function costs by itself at 32K float32 (one thread, medians of interleaved
rounds, µs per forward+backward): torch.sigmoid with its own autograd, the same ATen kernels inside a Python
autograd.Function (applied as dispatch._fused_apply applies nonlin's, without the Python prologue), and
nonlin.functional.sigmoid (its kernels inside nonlin_fused). Run from a checkout:
PYTHONPATH=src python notes/2026-12-07a/function_cost.py"""

import statistics
import time

import torch

import nonlin.functional as nf

torch.set_num_threads(1)
sigmoid_backward = torch.ops.aten.sigmoid_backward.default


class TorchKernels(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.sigmoid(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, go):
        (y,) = ctx.saved_tensors
        return sigmoid_backward(go, y)


apply = super(torch.autograd.Function, TorchKernels).apply
x = torch.randn(64, 512, requires_grad=True)
go = torch.randn(64, 512)
for _ in range(100):
    nf.sigmoid(x)
calls = {
    "torch.sigmoid": lambda: torch.autograd.grad(torch.sigmoid(x), x, go),
    "ATen's kernels in an autograd.Function": lambda: torch.autograd.grad(apply(x), x, go),
    "nonlin.functional.sigmoid": lambda: torch.autograd.grad(nf.sigmoid(x), x, go),
}
times: dict[str, list[float]] = {k: [] for k in calls}
for _ in range(15):
    for k, f in calls.items():
        f()
        t0 = time.perf_counter()
        for _ in range(200):
            f()
        times[k].append((time.perf_counter() - t0) / 200 * 1e6)
for k, v in times.items():
    print(f"{k}: {statistics.median(v):.1f} us")
