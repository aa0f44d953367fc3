"""A call with a parameter at 32K float32 (leaky_relu at slope 0.2, elu at alpha 0.5, as torch's names take them):
nonlin's default against torch's op, forward without grad; interleaved rounds, the median, one thread, µs.

    PYTHONPATH=src python notes/2026-12-07g/keyword_call.py
"""

import statistics
import timeit

import torch
import torch.nn.functional as TF

import nonlin.functional as NF

torch.set_num_threads(1)
x = torch.randn(64, 512)
cases = {
    "torch leaky_relu(x, 0.2)": lambda: TF.leaky_relu(x, 0.2),
    "nonlin leaky_relu(x, 0.2)": lambda: NF.leaky_relu(x, 0.2),
    "torch elu(x, alpha=0.5)": lambda: TF.elu(x, alpha=0.5),
    "nonlin elu(x, alpha=0.5)": lambda: NF.elu(x, alpha=0.5),
}
for f in cases.values():
    for _ in range(3000):
        f()
res = {k: [] for k in cases}
for _ in range(9):
    for k, f in cases.items():
        res[k].append(timeit.timeit(f, number=2000) / 2000 * 1e6)
m = {k: statistics.median(v) for k, v in res.items()}
for k, v in m.items():
    print(f"{k:28s} {v:7.2f} µs")
print(
    f"ratio leaky_relu {m['nonlin leaky_relu(x, 0.2)'] / m['torch leaky_relu(x, 0.2)']:.2f}, "
    f"elu {m['nonlin elu(x, alpha=0.5)'] / m['torch elu(x, alpha=0.5)']:.2f}"
)
