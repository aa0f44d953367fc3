"""µs per call at 64x512 float32, one thread: torch's module and functional op against nonlin's module
(`nonlin.get(name)`) and functional form (`nonlin.functional.NAME`, torch's name where it is one), once the route
is settled; minimum of 15 interleaved rounds of 300 calls. Run it in two checkouts to compare commits.

    PYTHONPATH=src python notes/2026-12-05a/call_layers.py
"""

import time

import torch

import nonlin
import nonlin.functional as NF

torch.set_num_threads(1)
x = torch.randn(64, 512)
TORCH = {
    "relu": (torch.nn.ReLU(), torch.relu),
    "leaky_relu": (torch.nn.LeakyReLU(), torch.nn.functional.leaky_relu),
    "elu": (torch.nn.ELU(), torch.nn.functional.elu),
    "hardtanh": (torch.nn.Hardtanh(), torch.nn.functional.hardtanh),
    "silu": (torch.nn.SiLU(), torch.nn.functional.silu),
    "sigmoid": (torch.nn.Sigmoid(), torch.sigmoid),
}
for name, (module, op) in TORCH.items():
    m, f = nonlin.get(name), getattr(NF, name)
    for _ in range(64):  # past route.WARM_CALLS: the kernels compile, the route settles
        m(x), f(x)
    jobs = {
        "torch module": lambda module=module: module(x),
        "torch op": lambda op=op: op(x),
        "nonlin module": lambda m=m: m(x),
        "nonlin functional": lambda f=f: f(x),
    }
    best = dict.fromkeys(jobs, float("inf"))
    for _ in range(15):
        for k, job in jobs.items():
            t = time.perf_counter()
            for _ in range(300):
                job()
            best[k] = min(best[k], (time.perf_counter() - t) / 300 * 1e6)
    print(name, " ".join(f"{k}: {v:.2f}" for k, v in best.items()), "µs")
