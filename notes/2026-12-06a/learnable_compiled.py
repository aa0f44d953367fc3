"""Time of a training step (forward + backward) of nonlin's modules with learnable parameters inside
torch.compile, against the same module called directly; medians of interleaved rounds, one thread. Run in two
checkouts to compare them (before this stop a learnable parameter was a graph break there):

    PYTHONPATH=src python notes/2026-12-06a/learnable_compiled.py [NAMES ...]
"""

from __future__ import annotations

import statistics
import sys
import time

import torch

import nonlin

torch.set_num_threads(1)


def step(fn, module, x):
    y = fn(x)
    torch.autograd.grad(y.float().square().sum(), [x, *module.parameters()])


def main() -> None:
    names = sys.argv[1:] or ["swish", "xielu", "prelu", "snake", "pelu"]
    for dtype in (torch.float32, torch.bfloat16):
        for name in names:
            module = nonlin.get(name, learnable=True).to(dtype)
            x = torch.randn(1024, 1024, dtype=dtype, requires_grad=True)
            torch._dynamo.reset()
            compiled = torch.compile(module)
            for _ in range(3):
                step(compiled, module, x)
                step(module, module, x)
            times = {"compiled": [], "direct": []}
            for _ in range(7):
                for label, fn in (("compiled", compiled), ("direct", module)):
                    t0 = time.perf_counter()
                    step(fn, module, x)
                    times[label].append(time.perf_counter() - t0)
            c, d = (1e3 * statistics.median(times[k]) for k in ("compiled", "direct"))
            print(
                f"{name:10s} {str(dtype)[6:]:9s} compiled {c:8.2f} ms  direct {d:8.2f} ms  compiled/direct {c / d:5.2f}"
            )


if __name__ == "__main__":
    main()
