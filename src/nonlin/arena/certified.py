"""Certified accuracy of a trained classifier: how verifiable its nonlinearity made the network.

The share of held-out samples whose prediction is right and provably stays right for every input in the
L-inf ball of radius eps around it, proved by CROWN (`nonlin.verify`, sound: outward-rounded float64 bounds).
Two networks of the same accuracy can differ widely here: the bound through a unit is only as tight as its
linear relaxation and its Lipschitz behaviour let it be, so the number ranks units by how verifiable they
make a network (the arena shows it beside accuracy; it does not change the ranking).

eps is in the task's input units. The bundled classification tasks standardise every feature with the
training split's mean and std, so the default eps = 0.1 is a tenth of a feature's spread: on digits about
0.5 of 16 grey levels (3% of the range, like the radius 0.03 usual for [0, 1] images); on breast_cancer and
wine a tenth of a std of each measurement. It is small enough that accurate networks are mostly certified
and large enough that units separate (digits 64-64 MLPs, one seed: ReLU 0.9, SiLU and GELU about 0.8,
snake about 0.6, SwiGLU about 0.35; at eps = 0.01 every unit is certified on nearly every correct sample,
so that radius only repeats the accuracy). The ball is not clipped to the data's range. One radius keeps
the cost low (measured in docs/arena.md); `certified_accuracy(..., eps=(0.01, 0.1))` gives several, the
larger first (a proof over a ball proves every smaller one, so each smaller radius re-verifies only the
samples not yet certified).
"""

from __future__ import annotations

import torch
from torch import nn

EPS = (0.1,)
METHOD = "crown"
SAMPLES = 32  # held-out samples verified per run (a fixed seeded subset): the cost past a fixed part grows with it
SUBSET_SEED = 0
# CROWN's cost per sample grows as (hidden units) x (weights): above this estimate a run is skipped (with the
# reason) so the sweep's time barely changes; digits' 64-64 SwiGLU MLP is 8.7e6, the sparsity task's 256-256
# ReLU MLP 8.6e7 (it would add 1-4 s to a 2-7 s run).
MAX_MACS = 2e7


def crown_macs(model: nn.Module) -> float:
    """An upper estimate of CROWN's multiply-adds per sample: every hidden pre-activation's bounds (lower and
    upper, one backward row each) pass back through at most every Linear layer. Linear layers only."""
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    hidden = sum(m.out_features for m in linears[:-1])
    return 2.0 * hidden * sum(m.weight.numel() for m in linears)


def suffix(eps: float) -> str:
    """The metric's key suffix for one radius: ``certified_accuracy.crown@eps=0.01``."""
    return f"{METHOD}@eps={eps:g}"


def certified_accuracy(
    model: nn.Module,
    problem: object,
    eps: tuple[float, ...] = EPS,
    samples: int | None = SAMPLES,
    max_macs: float | None = MAX_MACS,
) -> dict[str, float] | None:
    """``{crown@eps=E: certified accuracy}`` on (a seeded subset of ``samples`` of) ``problem.held_out``;
    None when the task is not a classification (integer labels, logits [n, classes]). A model the verifier
    cannot trace, or one over ``max_macs`` (`crown_macs`), raises `MetricSkipped` with the reason (the
    run records it as skipped). ``functools.partial(certified_accuracy, max_macs=None)`` lifts the cap."""
    from nonlin.arena.metrics import MetricSkipped  # metrics imports this module
    from nonlin.verify import margin_bounds

    x, y = problem.held_out
    if not (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)) or y.dim() != 1 or y.is_floating_point():
        return None
    if not x.is_floating_point() or x.dim() < 2 or len(x) != len(y) or len(y) == 0:
        return None
    macs = crown_macs(model)
    if max_macs is not None and macs > max_macs:
        raise MetricSkipped(
            f"CROWN would take ~{macs:.2g} multiply-adds per sample, over the per-run cap {max_macs:.2g} "
            "(nonlin.arena.certified.MAX_MACS)"
        )
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
        # smaller one only on the samples not certified yet (a count at least the direct one's, and cheaper).
        certified = torch.zeros_like(correct)
        out = {}
        for e in sorted(eps, reverse=True):
            todo = torch.nonzero(correct & ~certified).flatten()
            if len(todo):
                try:
                    m = margin_bounds(model, x[todo], y[todo], e, METHOD)
                except TypeError as err:
                    if str(err).startswith("verify:"):  # an op or module bound propagation does not cover
                        raise MetricSkipped(str(err)) from None
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

__all__ = ["DESCRIPTION", "EPS", "MAX_MACS", "METHOD", "SAMPLES", "certified_accuracy", "crown_macs", "suffix"]
