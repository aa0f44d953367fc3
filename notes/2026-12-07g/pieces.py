"""The per-call pieces of the settled-route lookup, timed alone (min of 5 repeats, µs per call).

PYTHONPATH=src python notes/2026-12-07g/pieces.py
"""

import timeit

import torch

import nonlin
import nonlin.functional as NF
from nonlin import route

torch.set_num_threads(1)
x = torch.randn(16)
for _ in range(100):
    NF.relu(x)
s = nonlin.spec("relu")
print("torch_equivalent", s.torch_equivalent)
key = route._settled_key(s, x, x.requires_grad, x.numel())
print(key, route._SETTLED.get(key))


def T(stmt, n=100000):
    return min(timeit.repeat(stmt, globals=globals(), number=n, repeat=5)) / n * 1e6


for stmt in [
    "torch.relu(x)",
    "torch.nn.functional.relu(x)",
    "s.torch_equivalent(x)",
    "NF.relu(x)",
    "route.settled(s, x)",
    "torch.compiler.is_compiling()",
    "state.is_default()",
    "x.device",
    "x.dtype",
    "x.numel()",
    "x.requires_grad",
    "torch.is_grad_enabled()",
    "route._settled_key(s, x, x.requires_grad, x.numel())",
    "route._settled_job(key)",
    "route._SETTLED.get(key)",
    "hash(key)",
    "isinstance(x, torch.Tensor)",
]:
    print(f"{T(stmt):7.3f} µs  {stmt}")
