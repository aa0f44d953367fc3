"""A training call's fixed cost on 16 float32 elements (forward, then torch.autograd.grad): torch's hardswish,
the C++ node's op (nonlin::native32_train) and the Python autograd.Function (dispatch.nonlin_fused) on the same
job, and nonlin's functional form's forward; min and median of 9 rounds of 1000 calls, µs.

    PYTHONPATH=src python notes/2026-12-07h/node_16.py
"""

import statistics
import time

import torch
import torch.nn.functional as TF

import nonlin
import nonlin.functional as NF
from nonlin.kernels import cpp_ops, dispatch

torch.set_num_threads(1)
assert cpp_ops._load() is not None
s = nonlin.spec("hardswish")
job = dispatch.job_for(s, torch.float32, s.defaults())
node = dispatch.training_call(job)  # (the C++ node's callable: enters the job for its create_graph backward)
op = cpp_ops.training_op()
xg = torch.randn(16).requires_grad_()
ones = torch.ones(16)
for _ in range(50):
    NF.hardswish(xg).backward(ones)
fns = {
    "torch forward": lambda: TF.hardswish(xg),
    "C++ node forward": lambda: op(id(job), "hardswish", xg),
    "Python Function forward": lambda: dispatch.nonlin_fused.apply(job, dispatch.UNPACKED, xg),
    "nonlin.functional forward": lambda: NF.hardswish(xg),
    "torch training": lambda: torch.autograd.grad(TF.hardswish(xg), xg, ones),
    "C++ node training": lambda: torch.autograd.grad(op(id(job), "hardswish", xg), xg, ones),
    "Python Function training": lambda: torch.autograd.grad(
        dispatch.nonlin_fused.apply(job, dispatch.UNPACKED, xg), xg, ones
    ),
}
t: dict[str, list[float]] = {k: [] for k in fns}
for _ in range(9):
    for k, f in fns.items():
        t0 = time.perf_counter()
        for _ in range(1000):
            f()
        t[k].append((time.perf_counter() - t0) / 1000 * 1e6)
for k, v in t.items():
    print(f"{k:28s} min {min(v):7.2f}  median {statistics.median(v):7.2f}")
