"""Every native32 loop unrolled by two (two vectors per iteration) against the loops as they are: ns per element,
4M float32 ~ N(0, 1), one thread, interleaved; asserts the same bits.

    PYTHONPATH=src python notes/2026-12-05g/unroll_exp.py silu gelu tanhshrink tanhexp lisht softcap tanh sigmoid"""

import sys

import torch

sys.path.insert(0, "/work/main/notes/2026-12-05a")
sys.path.insert(0, "/work/main/benchmarks")
sys.path.insert(0, "/work/main/notes/2026-12-04c")
from interleave import interleaved_ns
from kernels import keep_freed_memory
from plain_bits import load_old

from nonlin.kernels import native32 as cur

alt = load_old("/work/main/src/nonlin/kernels/native32.py")
# native32's own loops with their vector loop unrolled by two (the rest of each source, signature and tails, is
# native32's): the replaced block must be there, so a changed loop fails here instead of timing something else
UNARY_LOOP = """    for (; i + V <= end; i += V) {
      ahead(xr + i, o + i);
      FN(VF::loadu(xr + i)).store(o + i);
    }
"""
UNARY_LOOP2 = """    for (; i + 2 * V <= end; i += 2 * V) {
      ahead(xr + i, o + i);
      const VF a = VF::loadu(xr + i), b = VF::loadu(xr + i + V);
      const VF ya = FN(a), yb = FN(b);
      ya.store(o + i);
      yb.store(o + i + V);
    }
    for (; i + V <= end; i += V) FN(VF::loadu(xr + i)).store(o + i);
"""
BINARY_LOOP = """    for (; i + V <= end; i += V) {
      ahead(ar + i, o + i);
      ahead(br + i);
      FN(VF::loadu(ar + i), VF::loadu(br + i)).store(o + i);
    }
"""
BINARY_LOOP2 = """    for (; i + 2 * V <= end; i += 2 * V) {
      ahead(ar + i, o + i);
      ahead(br + i);
      const VF y0 = FN(VF::loadu(ar + i), VF::loadu(br + i)), y1 = FN(VF::loadu(ar + i + V), VF::loadu(br + i + V));
      y0.store(o + i);
      y1.store(o + i + V);
    }
    for (; i + V <= end; i += V) FN(VF::loadu(ar + i), VF::loadu(br + i)).store(o + i);
"""
assert UNARY_LOOP in alt._UNARY and BINARY_LOOP in alt._BINARY
alt._UNARY = alt._UNARY.replace(UNARY_LOOP, UNARY_LOOP2)
alt._BINARY = alt._BINARY.replace(BINARY_LOOP, BINARY_LOOP2)
keep_freed_memory()
torch.set_num_threads(1)
n = 1 << 22
x, go = torch.randn(n), torch.randn(n)
names = sys.argv[1:]
jobs = {}
for k in names:
    for tag, m in (("cur", cur), ("x2", alt)):
        jobs[f"{k} fwd {tag}"] = lambda k=k, m=m: m.forward(k, x)
        jobs[f"{k} bwd {tag}"] = lambda k=k, m=m: m.backward(k, go, x)
for k in names:
    assert torch.equal(cur.forward(k, x), alt.forward(k, x)) and torch.equal(
        cur.backward(k, go, x), alt.backward(k, go, x)
    )
res = interleaved_ns(jobs, n, 7)
for k in names:
    print(
        f"{k:12s} fwd {res[k + ' fwd cur']:.3f} -> {res[k + ' fwd x2']:.3f}   bwd {res[k + ' bwd cur']:.3f} -> {res[k + ' bwd x2']:.3f}"
    )
