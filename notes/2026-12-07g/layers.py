"""The layers of a settled fused call at 16 elements (hardswish float32, no grad), min of repeats, µs per call:
torch's op, the kernel's pybinding, native32.forward, dispatch.run_job, route.settled, the functional form.

    PYTHONPATH=src python notes/2026-12-07g/layers.py [name]
"""

import sys
import timeit

import torch

import nonlin
import nonlin.functional as NF
from nonlin import route
from nonlin.kernels import native32

torch.set_num_threads(1)
name = sys.argv[1] if len(sys.argv) > 1 else "hardswish"
x = torch.randn(16)
f = getattr(NF, name)
for _ in range(10000):
    f(x)
s = nonlin.spec(name)
key = route._settled_key(s, x, False, 16)
job = route._SETTLED[key]
prim = job.native
k = native32._BUILT[(prim, "fwd")]
out = torch.empty_like(x)
ref = s.torch_equivalent
print(name, "native:", prim)
stmts = {
    "torch op": "ref(x)",
    "empty_like": "torch.empty_like(x)",
    "pybinding kernel": "k(x, out, 1, 16, 16, 16, 1)",
    "native32.forward": "native32.forward(prim, x)",
    "dispatch.run_job": "dispatch.run_job(job, (x,))",
    "route.settled": "route.settled(s, x)",
    "functional": "f(x)",
}
res = {k2: [] for k2 in stmts}
for _ in range(7):
    for k2, st in stmts.items():
        res[k2].append(timeit.timeit(st, globals=globals(), number=20000) / 20000 * 1e6)
for k2, v in res.items():
    print(f"  {k2:18s} {min(v):6.2f} µs")
