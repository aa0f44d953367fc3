"""MLP classification on scikit-learn's bundled datasets (no download): digits, breast_cancer, wine, and the
sparsity task (a wider MLP on digits whose activation sparsity is tracked over training)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import ClassVar

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from nonlin.arena.acts import Act
from nonlin.arena.tasks.base import Problem, Task, mlp, register_task


@cache
def _dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets

    loader = {"digits": datasets.load_digits, "breast_cancer": datasets.load_breast_cancer, "wine": datasets.load_wine}
    data = loader[name]()
    return data.data.astype(np.float32), data.target.astype(np.int64)


def split(dataset: str, seed: int, test_fraction: float, val_fraction: float = 0.15) -> tuple[torch.Tensor, ...]:
    """Seeded stratified train/validation/test split, standardised with the training statistics:
    (x_train, y_train, x_val, y_val, x_test, y_test). Per class, `test_fraction` of the examples is the test
    set and `val_fraction` the validation set (at least one example each)."""
    x, y = _dataset(dataset)
    rng = np.random.default_rng(seed)
    test_idx, val_idx = [], []
    for c in np.unique(y):  # stratified: every class keeps its share in the test and validation sets
        idx = rng.permutation(np.flatnonzero(y == c))
        n_test = max(1, round(test_fraction * len(idx)))
        n_val = max(1, round(val_fraction * len(idx)))
        test_idx.append(idx[:n_test])
        val_idx.append(idx[n_test : n_test + n_val])
    test, val = np.sort(np.concatenate(test_idx)), np.sort(np.concatenate(val_idx))
    train = np.setdiff1d(np.arange(len(y)), np.concatenate([test, val]))
    mean, std = x[train].mean(0), x[train].std(0)
    std[std == 0] = 1.0  # digits has constant pixels
    x = (x - mean) / std
    t = torch.from_numpy
    return t(x[train]), t(y[train]), t(x[val]), t(y[val]), t(x[test]), t(y[test])


def class_baselines(y_train: torch.Tensor, y_test: torch.Tensor, n_classes: int) -> dict[str, float]:
    """Test accuracy of guessing uniformly at random (chance) and of always answering the training set's
    most frequent class (majority)."""
    majority = int(torch.bincount(y_train, minlength=n_classes).argmax())
    return {"chance": 1.0 / n_classes, "majority": float((y_test == majority).float().mean())}


def classification_problem(
    dataset: str,
    act: Act,
    seed: int,
    *,
    hidden: tuple[int, ...],
    steps: int,
    batch: int,
    lr: float,
    test_fraction: float,
    eval_every: int,
    init: object = None,
    optimizer: str = "adam",
    track_sparsity: bool = False,
    clip_grad_norm: float | None = None,
) -> Problem:
    x_train, y_train, x_val, y_val, x_test, y_test = split(dataset, seed, test_fraction)
    n_classes = int(torch.cat([y_train, y_val, y_test]).max()) + 1
    torch.manual_seed(seed)
    model = mlp(x_train.shape[1], hidden, n_classes, act)
    if init is not None:
        init(model)
    if optimizer == "adam":
        opt: torch.optim.Optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    elif optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    else:
        raise ValueError(f"optimizer must be 'adam' or 'sgd'; got {optimizer!r}")
    gen = torch.Generator().manual_seed(seed + 1)
    batch = min(batch, len(y_train))

    def next_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
        idx = torch.randint(0, len(y_train), (batch,), generator=gen)
        return x_train[idx], y_train[idx]

    def loss(m: nn.Module, b: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        return F.cross_entropy(m(b[0]), b[1])

    def scorer(x: torch.Tensor, y: torch.Tensor):
        def score(m: nn.Module) -> dict[str, float]:
            logits = m(x)  # [n, classes]
            return {
                "accuracy": float((logits.argmax(-1) == y).float().mean()),
                "test_loss": float(F.cross_entropy(logits, y)),
            }

        return score

    return Problem(
        model=model,
        optimizer=opt,
        steps=steps,
        next_batch=next_batch,
        loss=loss,
        evaluate=scorer(x_test, y_test),
        validate=scorer(x_val, y_val),
        baselines=class_baselines(y_train, y_test, n_classes),
        held_out=(x_test, y_test),
        probe_input=x_test,
        eval_every=eval_every,
        items_per_step=batch,
        item_unit="examples",
        track_sparsity=track_sparsity,
        clip_grad_norm=clip_grad_norm,
    )


@dataclass
class _Classification(Task):
    dataset: ClassVar[str] = ""
    metric: ClassVar[str] = "accuracy"
    goal: ClassVar[str] = "max"
    hidden: tuple[int, ...] = (64, 64)
    steps: int = 200
    batch: int = 64
    lr: float = 3e-3
    test_fraction: float = 0.25
    eval_every: int = 25

    def build(self, act: Act, seed: int) -> Problem:
        return classification_problem(
            self.dataset,
            act,
            seed,
            hidden=self.hidden,
            steps=self.steps,
            batch=self.batch,
            lr=self.lr,
            test_fraction=self.test_fraction,
            eval_every=self.eval_every,
        )


@register_task
@dataclass
class Digits(_Classification):
    name: ClassVar[str] = "digits"
    dataset: ClassVar[str] = "digits"
    cost: ClassVar[float] = 0.9
    description: ClassVar[str] = "8x8 handwritten digits (sklearn, 1797 images, 10 classes): MLP test accuracy"


@register_task
@dataclass
class BreastCancer(_Classification):
    name: ClassVar[str] = "breast_cancer"
    dataset: ClassVar[str] = "breast_cancer"
    cost: ClassVar[float] = 0.55
    description: ClassVar[str] = (
        "Wisconsin breast cancer (sklearn, 569 samples, 30 features, 2 classes): MLP test accuracy"
    )
    hidden: tuple[int, ...] = (32, 32)
    steps: int = 120


@register_task
@dataclass
class Wine(_Classification):
    name: ClassVar[str] = "wine"
    dataset: ClassVar[str] = "wine"
    cost: ClassVar[float] = 0.4
    description: ClassVar[str] = "wine recognition (sklearn, 178 samples, 13 features, 3 classes): MLP test accuracy"
    hidden: tuple[int, ...] = (32, 32)
    steps: int = 100
    batch: int = 32


@register_task
@dataclass
class Sparsity(_Classification):
    """Accuracy against activation sparsity: shifted and clipped rectifiers are sparse by construction, ReLU
    about half; the task tracks the share of exact zeros over training next to the accuracy."""

    name: ClassVar[str] = "sparsity"
    dataset: ClassVar[str] = "digits"
    cost: ClassVar[float] = 1.9
    description: ClassVar[str] = (
        "digits with a wider MLP: test accuracy, with activation sparsity tracked over training"
    )
    hidden: tuple[int, ...] = (256, 256)
    steps: int = 200

    def build(self, act: Act, seed: int) -> Problem:
        p = super().build(act, seed)
        p.track_sparsity = True
        return p
