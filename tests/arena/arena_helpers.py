"""Custom tasks and nonlinearities for the arena tests (importable by worker processes by name)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import ClassVar

import torch
import torch.nn.functional as F

from nonlin.arena import Problem, Task, mlp


@dataclass
class LoggedTask(Task):
    """A tiny regression that appends 'start <seed> <act>' to `log` when a run starts (to count executions)
    and sleeps `sleep` seconds, so a sweep of them can be killed part-way."""

    name: ClassVar[str] = "logged"
    metric: ClassVar[str] = "mse"
    goal: ClassVar[str] = "min"
    log: str = ""
    sleep: float = 0.0
    steps: int = 5

    def build(self, act, seed: int) -> Problem:
        with open(self.log, "a") as f:
            f.write(f"start {seed} {act.label} {os.getpid()}\n")
        time.sleep(self.sleep)
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(64, 4, generator=g)
        y = x.sum(1, keepdim=True)
        torch.manual_seed(seed)
        model = mlp(4, (8,), 1, act)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        return Problem(
            model=model,
            optimizer=opt,
            steps=self.steps,
            next_batch=lambda step: (x, y),
            loss=lambda m, b: F.mse_loss(m(b[0]), b[1]),
            evaluate=lambda m: {"mse": float(F.mse_loss(m(x), y).detach())},
            probe_input=x,
            eval_every=self.steps,
        )


def cube(x: torch.Tensor) -> torch.Tensor:
    """A custom nonlinearity (not in the catalog)."""
    return x * x * x


def starts(log: str) -> list[tuple[int, str]]:
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return [(int(s), a) for _, s, a, _ in (line.split() for line in f if line.strip())]
