"""Per-call cost of calls with parameters at 64x512 float32, one thread: torch's op against nonlin's borrowed
names (leaky_relu(x, 0.2), by keyword or position), nonlin's own name, a LeakyReLU(0.2) module and hardtanh(x, -2,
2); the best of 7 repeats of 500 calls, in microseconds. Run it on each source tree:

    PYTHONPATH=src python notes/2026-12-06e/call_params.py
"""

import timeit

import torch

import nonlin

torch.set_num_threads(1)
F = nonlin.functional
x = torch.randn(64, 512)
base = F._BASE["leaky_relu"]
calls = {
    "F.leaky_relu(x, alpha=0.2)": lambda: F.leaky_relu(x, alpha=0.2),
    "F.leaky_relu(x, negative_slope=0.2)": lambda: F.leaky_relu(x, negative_slope=0.2),
    "F.leaky_relu(x, 0.2)": lambda: F.leaky_relu(x, 0.2),
    "nonlin's own leaky_relu(x, alpha=0.2)": lambda: base(x, alpha=0.2),
    "torch.nn.functional.leaky_relu(x, 0.2)": lambda: torch.nn.functional.leaky_relu(x, 0.2),
    "LeakyReLU(0.2) module": (lambda m: lambda: m(x))(nonlin.get("LeakyReLU", 0.2)),
    "torch.nn.LeakyReLU(0.2)": (lambda m: lambda: m(x))(torch.nn.LeakyReLU(0.2)),
    "F.hardtanh(x, -2.0, 2.0)": lambda: F.hardtanh(x, -2.0, 2.0),
    "torch.nn.functional.hardtanh(x, -2.0, 2.0)": lambda: torch.nn.functional.hardtanh(x, -2.0, 2.0),
}
for name, f in calls.items():
    f()
    f()
    print(f"{name:42s} {min(timeit.repeat(f, number=500, repeat=7)) / 500 * 1e6:.2f} us")
