"""Trainability of a deep narrow MLP: the same network at PyTorch's default init and at the init nonlin's
theory gives for the nonlinearity (weights N(0, gain^2 / fan_in), gain from nonlin.theory.init_gain)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from nonlin.arena import integrations
from nonlin.arena.acts import Act
from nonlin.arena.tasks.base import Problem, Task, register_task
from nonlin.arena.tasks.classification import classification_problem


@register_task
@dataclass
class DeepMLP(Task):
    """Both inits train on digits from the same seed and batches; the primary metric is the theory init's
    test accuracy, the default init's is stored next to it (``accuracy@default_init``) with both loss curves."""

    name: ClassVar[str] = "deep_mlp"
    metric: ClassVar[str] = "accuracy"
    goal: ClassVar[str] = "max"
    cost: ClassVar[float] = 3.0
    description: ClassVar[str] = (
        "depth-20 width-32 MLP on digits, SGD with momentum and gradient clipping: PyTorch's default init vs "
        "the init nonlin.theory gives (trainability)"
    )
    depth: int = 20
    width: int = 32
    steps: int = 100
    batch: int = 64
    lr: float = 0.02
    optimizer: str = "sgd"
    clip_grad_norm: float = 1.0
    test_fraction: float = 0.25
    eval_every: int = 25

    def supports(self, act: Act) -> str | None:
        reason = super().supports(act)
        if reason is None and act.name is None:
            return f"deep_mlp needs a catalog nonlinearity for its theory init; {act.label} is a custom callable"
        return reason

    def build(self, act: Act, seed: int) -> dict[str, Problem]:
        common = dict(
            hidden=(self.width,) * self.depth,
            steps=self.steps,
            batch=self.batch,
            lr=self.lr,
            test_fraction=self.test_fraction,
            eval_every=self.eval_every,
            optimizer=self.optimizer,
            clip_grad_norm=self.clip_grad_norm,
        )
        return {
            "theory_init": classification_problem(
                "digits", act, seed, init=lambda m: integrations.theory_init_(m, act), **common
            ),
            "default_init": classification_problem("digits", act, seed, **common),
        }
