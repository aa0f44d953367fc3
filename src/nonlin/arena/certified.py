"""Certified accuracy of a trained classifier: how verifiable its nonlinearity made the network.

The share of held-out samples whose prediction is right and provably stays right for every input in the
L-inf ball of radius eps around it, proved by CROWN (`nonlin.verify`, sound: outward-rounded float64 bounds).
Two networks of the same accuracy can differ widely here: the bound through a unit is only as tight as its
linear relaxation and its Lipschitz behaviour let it be, so the number ranks units by how verifiable they
make a network (the arena shows it beside accuracy; it does not change the ranking).

eps is in the task's input units. The bundled classification tasks standardise every feature with the
training split's mean and std, so eps = 0.01 is 1% of a feature's spread (on digits about 0.05 of 16 grey
levels, on the scale of the usual [0, 1]-image radii 0.001-0.003) and eps = 0.1 is 10% (digits: about 0.5
grey level). At 0.01 nearly every correct sample is certified for every unit (certified accuracy tracks
accuracy); at 0.1 the units separate (digits, 64-64 MLPs: ReLU, GELU, SiLU about 0.8, snake about 0.55,
SwiGLU about 0.4). The ball is not clipped to the data's range.
"""

from __future__ import annotations

import torch
from torch import nn

EPS = (0.01, 0.1)
METHOD = "crown"
SAMPLES = 64  # held-out samples verified per run (a fixed seeded subset): the cost is linear in it
SUBSET_SEED = 0


def suffix(eps: float) -> str:
    """The metric's key suffix for one radius: ``certified_accuracy.crown@eps=0.01``."""
    return f"{METHOD}@eps={eps:g}"


def certified_accuracy(
    model: nn.Module,
    problem: object,
    eps: tuple[float, ...] = EPS,
    samples: int | None = SAMPLES,
) -> dict[str, float] | None:
    """``{crown@eps=E: certified accuracy}`` on (a seeded subset of ``samples`` of) ``problem.held_out``;
    None when the task is not a classification (integer labels, logits [n, classes]). A model the verifier
    cannot trace raises NotImplementedError with the verifier's reason (the run records it as skipped)."""
    from nonlin.verify import margin_bounds

    x, y = problem.held_out
    if not (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)) or y.dim() != 1 or y.is_floating_point():
        return None
    if not x.is_floating_point() or x.dim() < 2 or len(x) != len(y) or len(y) == 0:
        return None
    if samples is not None and len(y) > samples:
        # the same positions for every nonlinearity of a seed (the split depends on the seed only): paired
        idx = torch.randperm(len(y), generator=torch.Generator().manual_seed(SUBSET_SEED))[:samples]
        x, y = x[idx], y[idx]
    with torch.no_grad():
        logits = model(x)
        if logits.dim() != 2 or logits.shape[1] < 2:
            return None
        correct = logits.argmax(-1) == y
        # A proof over a ball also proves every smaller ball: verify the largest radius first, and each
        # smaller one only on the samples not certified yet (the count is the same, the cost much lower).
        certified = torch.zeros_like(correct)
        out = {}
        for e in sorted(eps, reverse=True):
            todo = torch.nonzero(correct & ~certified).flatten()
            if len(todo):
                try:
                    m = margin_bounds(model, x[todo], y[todo], e, METHOD)
                except TypeError as err:
                    if str(err).startswith("verify:"):  # an op or module bound propagation does not cover
                        raise NotImplementedError(str(err)) from None
                    raise
                certified[todo] = (m > 0).all(-1)
            out[suffix(e)] = float(certified.float().mean())
    return {suffix(e): out[suffix(e)] for e in eps}


DESCRIPTION = (
    f"certified accuracy at L-inf eps = {', '.join(f'{e:g}' for e in EPS)} by CROWN (nonlin.verify): the share "
    f"of {SAMPLES} held-out samples (a fixed subset) predicted right and proved to stay right over the whole "
    "eps-ball, eps in the task's standardised input units (1 = one training std of a feature). It ranks how "
    "verifiable a nonlinearity makes a network; it does not change the ranking by the task's metric."
)

__all__ = ["DESCRIPTION", "EPS", "METHOD", "SAMPLES", "certified_accuracy", "suffix"]
