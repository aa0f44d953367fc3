"""Tiny calls in a loop, no large call before: the time per call of nonlin's default path against torch's op on
64 float32 elements, after 3000 calls (2048 warm the job since 2026-12-06), one thread; inference and training.
Runs each source tree given (a checkout's src) in its own process, alternating, twice.

    PYTHONPATH=src python notes/2026-12-06d/tiny_calls.py /tmp/wt_base/src src"""

import json
import os
import subprocess
import sys

CHILD = r"""
import json, statistics, time, torch
import nonlin.functional as NF
torch.set_num_threads(1)
x = torch.randn(64); xr = x.clone().requires_grad_(True); go = torch.randn(64)
out = {}
for name, tf in (("sigmoid", torch.sigmoid), ("silu", torch.nn.functional.silu), ("gelu", torch.nn.functional.gelu)):
    nf = getattr(NF, name)
    for _ in range(3000):
        nf(x)
        torch.autograd.grad(nf(xr), xr, go)
    def per_call(f, n=2000):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        return (time.perf_counter() - t0) / n * 1e6
    rows = {"fwd nonlin": [], "fwd torch": [], "train nonlin": [], "train torch": []}
    for _ in range(5):
        rows["fwd nonlin"].append(per_call(lambda: nf(x)))
        rows["fwd torch"].append(per_call(lambda: tf(x)))
        rows["train nonlin"].append(per_call(lambda: torch.autograd.grad(nf(xr), xr, go), 500))
        rows["train torch"].append(per_call(lambda: torch.autograd.grad(tf(xr), xr, go), 500))
    out[name] = {k: statistics.median(v) for k, v in rows.items()}
print(json.dumps(out))
"""

trees = sys.argv[1:]
results = {t: [] for t in trees}
for _ in range(2):
    for tree in trees:
        env = {**os.environ, "PYTHONPATH": tree}
        done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
        results[tree].append(json.loads(done.stdout.strip().splitlines()[-1]))
print("64 float32 elements, us per call (median of 5 rounds; the two runs), nonlin / torch")
for tree in trees:
    print(f"{tree}:")
    for name in results[tree][0]:
        cells = []
        for p in ("fwd", "train"):
            runs = [r[name] for r in results[tree]]
            ratio = " / ".join(f"{r[p + ' nonlin'] / r[p + ' torch']:.2f}" for r in runs)
            cells.append(f"{p} {runs[0][p + ' nonlin']:.1f} us vs {runs[0][p + ' torch']:.1f} ({ratio})")
        print(f"  {name}: " + "; ".join(cells))
