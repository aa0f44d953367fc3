"""Time of a training step (forward + backward) of nonlin's modules with learnable parameters inside
torch.compile, against the same module called directly; medians of interleaved rounds, one thread. Run in two
checkouts to compare them (before this stop a learnable parameter was a graph break there):

    PYTHONPATH=src python notes/2026-12-06a/learnable_compiled.py [NAMES ...]

With --textbook: against torch.compile of the textbook formula with the same learnable parameter (what a user
runs instead), for swish, prelu and snake.
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


class Textbook(torch.nn.Module):
    """The entry's formula in torch ops, its parameter learnable, initialised as nonlin's module."""

    def __init__(self, name: str, value: torch.Tensor):
        super().__init__()
        self.name, self.p = name, torch.nn.Parameter(value.detach().clone())

    def forward(self, x):
        if self.name == "swish":
            return x * torch.sigmoid(self.p * x)
        if self.name == "prelu":
            return torch.nn.functional.prelu(x, self.p)
        return x + torch.sin(self.p * x) ** 2 / self.p  # snake


def textbook() -> None:
    for dtype in (torch.float32, torch.bfloat16):
        for name in ("swish", "prelu", "snake"):
            module = nonlin.get(name, learnable=True).to(dtype)
            book = Textbook(name, next(module.parameters()))
            x = torch.randn(1024, 1024, dtype=dtype, requires_grad=True)
            torch._dynamo.reset()
            runs = {"nonlin": (torch.compile(module), module), "textbook": (torch.compile(book), book)}
            for fn, m in runs.values():
                for _ in range(3):
                    step(fn, m, x)
            times = {k: [] for k in runs}
            for _ in range(7):
                for k, (fn, m) in runs.items():
                    t0 = time.perf_counter()
                    step(fn, m, x)
                    times[k].append(time.perf_counter() - t0)
            n, t = (1e3 * statistics.median(times[k]) for k in runs)
            print(
                f"{name:8s} {str(dtype)[6:]:9s} nonlin compiled {n:8.2f} ms  textbook compiled {t:8.2f} ms  ratio {n / t:5.2f}"
            )


def main() -> None:
    if sys.argv[1:] == ["--textbook"]:
        textbook()
        return
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
