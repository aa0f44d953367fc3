"""Plots of catalog entries: f and f' on a grid, alone or several together (matplotlib, headless)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import torch

from nonlin.functional import function
from nonlin.registry import spec
from nonlin.spec import Kind


def curves(name: str, lo: float = -5.0, hi: float = 5.0, n: int = 801) -> dict[str, torch.Tensor]:
    """x, f(x), f'(x) in float64. Gated entries: f(g) * 1 along the gate with value 1 (the gate's shape);
    normalizers and set-wise units: the first output for the set (x, 0) as x runs over [lo, hi]."""
    s = spec(name)
    x = torch.linspace(lo, hi, n, dtype=torch.float64, requires_grad=True)
    f = function(s.name)
    if s.kind is Kind.POINTWISE:
        y = f(x)
    elif s.kind is Kind.GATED:
        extra = {"c": torch.ones_like(x)} if s.extra_inputs else {}
        y = f(x, torch.ones_like(x), **extra)
    else:
        scores = torch.stack([x, torch.zeros_like(x)], dim=-1)
        y = f(scores, dim=-1)
        y = y[:, 0] if y.dim() == 2 else y  # set-wise reductions (logsumexp) give one value per set
    (dy,) = torch.autograd.grad(y.sum(), x)
    return {"x": x.detach(), "f": y.detach(), "df": dy.detach()}


def plot(names: Sequence[str], path: str | Path, lo: float = -5.0, hi: float = 5.0, title: str | None = None) -> Path:
    """One figure with f (left) and f' (right) for each name; writes a PNG and returns its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, (ax_f, ax_d) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    for name in names:
        c = curves(name, lo, hi)
        label = spec(name).name
        ax_f.plot(c["x"], c["f"], label=label, lw=1.6)
        ax_d.plot(c["x"], c["df"], label=label, lw=1.6)
    for ax, what in ((ax_f, "f(x)"), (ax_d, "f'(x)  (autograd through nonlin)")):
        ax.axhline(0, color="0.8", lw=0.8, zorder=0)
        ax.axvline(0, color="0.8", lw=0.8, zorder=0)
        ax.set_title(what)
        ax.set_xlabel("x (gate g for gated units, score gap for normalizers)")
        ax.grid(alpha=0.25)
    ax_f.legend(fontsize=8, ncol=2 if len(names) > 6 else 1)
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
