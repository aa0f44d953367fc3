"""Fit a periodic function on an interval and extrapolate beyond it: the claim behind snake and sin units
(Ziyin et al. 2020, arXiv:2006.08195). ReLU-like networks extrapolate linearly, so they fail outside."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import torch
import torch.nn.functional as F
from torch import nn

from nonlin.arena.acts import Act
from nonlin.arena.tasks.base import Problem, Task, mlp, register_task


def target(x: torch.Tensor) -> torch.Tensor:
    """sin(x) + 0.3 cos(3x): period 2*pi, two harmonics."""
    return torch.sin(x) + 0.3 * torch.cos(3 * x)


@register_task
@dataclass
class Periodic(Task):
    """Training inputs x in [-L, L] (L = train_periods * pi), noisy targets; the metric is the mean squared
    error on [L, 2L] and [-2L, -L] (extrapolation, noise-free); the error inside is stored too. The
    validation split is n_val more noisy samples from [-L, L]: what a user can observe (nothing outside the
    training interval), so the lr is chosen for the fit, and the test asks whether the fit extrapolates."""

    name: ClassVar[str] = "periodic"
    metric: ClassVar[str] = "extrapolation_mse"
    goal: ClassVar[str] = "min"
    cost: ClassVar[float] = 1.5
    description: ClassVar[str] = (
        "fit sin(x)+0.3cos(3x) on [-2pi, 2pi], score the MSE on the next 2pi either side "
        "(baselines: predicting 0 scores 0.545 there, the target's mean square; predicting the training mean)"
    )
    hidden: tuple[int, ...] = (64, 64)
    steps: int = 300
    n_train: int = 256
    n_val: int = 128
    noise: float = 0.05
    train_periods: float = 2.0
    lr: float = 3e-3
    eval_every: int = 50

    def build(self, act: Act, seed: int) -> Problem:
        gen = torch.Generator().manual_seed(seed)
        half = self.train_periods * math.pi
        x_train = (torch.rand(self.n_train, 1, generator=gen) * 2 - 1) * half  # [n, 1]
        y_train = target(x_train) + self.noise * torch.randn(x_train.shape, generator=gen)
        x_val = (torch.rand(self.n_val, 1, generator=gen) * 2 - 1) * half  # [n_val, 1]
        y_val = target(x_val) + self.noise * torch.randn(x_val.shape, generator=gen)
        grid = torch.linspace(0, half, 257)[1:, None]
        x_out = torch.cat([half + grid, -half - grid])  # [512, 1] beyond the training interval
        x_in = torch.linspace(-half, half, 257)[:, None]
        torch.manual_seed(seed)
        model = mlp(1, self.hidden, 1, act)
        opt = torch.optim.Adam(model.parameters(), lr=self.lr)

        def loss(m: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
            return F.mse_loss(m(batch[0]), batch[1])

        def evaluate(m: nn.Module) -> dict[str, float]:
            return {
                "extrapolation_mse": float(F.mse_loss(m(x_out), target(x_out))),
                "interpolation_mse": float(F.mse_loss(m(x_in), target(x_in))),
            }

        def validate(m: nn.Module) -> dict[str, float]:
            return {"extrapolation_mse": float(F.mse_loss(m(x_val), y_val))}

        y_out = target(x_out)
        baselines = {
            "predict_zero": float(y_out.square().mean()),
            "predict_train_mean": float((y_out - y_train.mean()).square().mean()),
        }

        return Problem(
            model=model,
            optimizer=opt,
            steps=self.steps,
            next_batch=lambda step: (x_train, y_train),  # full batch
            loss=loss,
            evaluate=evaluate,
            validate=validate,
            baselines=baselines,
            held_out=(x_out, y_out),
            probe_input=x_in,
            eval_every=self.eval_every,
            items_per_step=self.n_train,
            item_unit="examples",
        )
