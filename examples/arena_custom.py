"""A custom task and a custom nonlinearity in the arena, next to catalog entries.

    python examples/arena_custom.py            # writes nonlin-out/arena-custom/report.html

The task: learn y = |x1| - |x2| + noise from 2-D inputs (a ridge the unit must bend around); the metric is
the held-out MSE. It declares what the report needs to judge it: a validation split (the lr is chosen on
it) distinct from the test split, and its trivial baselines (predicting 0, predicting the training mean).
The custom nonlinearity is a plain function; catalog entries are named as strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import torch
import torch.nn.functional as F

from nonlin.arena import Problem, Sweep, Task, mlp


def soft_abs(x: torch.Tensor) -> torch.Tensor:
    """sqrt(x^2 + 0.01): a smooth |x| (not in the catalog)."""
    return torch.sqrt(x * x + 0.01)


@dataclass
class Ridge(Task):
    name: ClassVar[str] = "ridge"
    metric: ClassVar[str] = "test_mse"
    goal: ClassVar[str] = "min"
    description: ClassVar[str] = "y = |x1| - |x2| + noise on 2-D Gaussian inputs: held-out MSE"
    steps: int = 300
    width: int = 32
    lr: float = 3e-3  # a field named lr is tuned by the sweep (x0.25 .. x2 of it by default)

    def build(self, act, seed: int) -> Problem:
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(1280, 2, generator=g)  # [n, 2]
        y = (x[:, :1].abs() - x[:, 1:].abs()) + 0.05 * torch.randn(1280, 1, generator=g)
        (x_train, x_val, x_test), (y_train, y_val, y_test) = x.split([768, 256, 256]), y.split([768, 256, 256])
        torch.manual_seed(seed)
        model = mlp(2, (self.width, self.width), 1, act)
        batches = torch.Generator().manual_seed(seed + 1)

        def next_batch(step: int):
            idx = torch.randint(0, len(x_train), (64,), generator=batches)
            return x_train[idx], y_train[idx]

        return Problem(
            model=model,
            optimizer=torch.optim.Adam(model.parameters(), lr=self.lr),
            steps=self.steps,
            next_batch=next_batch,
            loss=lambda m, b: F.mse_loss(m(b[0]), b[1]),
            # the runner calls these in eval mode under torch.no_grad
            evaluate=lambda m: {"test_mse": float(F.mse_loss(m(x_test), y_test))},
            validate=lambda m: {"test_mse": float(F.mse_loss(m(x_val), y_val))},
            baselines={
                "predict_zero": float(y_test.square().mean()),
                "predict_train_mean": float((y_test - y_train.mean()).square().mean()),
            },
            held_out=(x_test, y_test),
            probe_input=x_test,
            items_per_step=64,
        )


if __name__ == "__main__":  # worker processes import this file: keep the sweep under the guard
    sweep = Sweep(
        acts=["relu", "gelu", "snake", {"soft_abs": soft_abs}],
        tasks=[Ridge(), "periodic:steps=200"],
        seeds=3,
        out="nonlin-out/arena-custom",
    )
    outcome = sweep.run()
    print(outcome.counts, f"{outcome.wall_s:.1f} s")
    print(sweep.report()["html"])
