"""``probe.hidden_rank``: numerical and effective rank of each layer's activations on a batch.

Per watched layer the activations of one forward pass form a matrix A [rows, units] (rows: every
position of every example, units: ``unit_dim``). From its singular values s_1 >= s_2 >= ... (float64):
- numerical rank: #{s_i > tol}, tol = max(rows, units) * eps(dtype of A) * s_1 by default, the
  convention of numpy.linalg.matrix_rank; ``rtol`` overrides the factor multiplying s_1;
- effective rank (Roy & Vetterli 2007): exp(-sum p_i ln p_i), p_i = s_i / sum s_j;
- stable rank: sum s_i^2 / s_1^2.
``center=True`` subtracts each unit's mean first (rank of the spread, not of the offset).
Theory to compare with (catalog.md §4): under ReLU at init E[rank]/m ~ 1 - (1 - 2/pi)^l.
The SVD runs inside the hook and keeps only singular values, so one layer's activations are held at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from nonlin.probe import discovery
from nonlin.probe._io import environment, format_table, write_json
from nonlin.probe.attention import _call
from nonlin.probe.discovery import DEFAULT_KINDS, Where
from nonlin.probe.metrics import as_rows
from nonlin.probe.watch import check_measure, first_tensor


@dataclass
class RankReport:
    layers: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"probe": "hidden_rank", "environment": environment(), "layers": self.layers}

    def to_json(self, path: str | Path) -> Path:
        return write_json(self.to_dict(), path)

    def table(self) -> str:
        head = ["layer", "rows", "units", "rank", "effective rank", "stable rank"]
        body = [
            [
                r["layer"],
                str(r["rows"]),
                str(r["units"]),
                str(r["rank"]),
                f"{r['effective_rank']:.2f}",
                f"{r['stable_rank']:.2f}",
            ]
            for r in self.layers
        ]
        return format_table(head, body)

    def plot(self, path: str | Path) -> Path:
        from nonlin.probe.plots import plot_rank

        return plot_rank(self.to_dict(), path)


def rank_of(a: torch.Tensor, *, rtol: float | None = None, center: bool = False) -> dict[str, Any]:
    """Ranks of a matrix [rows, units] (see the module docstring)."""
    eps = torch.finfo(a.dtype).eps if a.is_floating_point() else torch.finfo(torch.float32).eps
    m = a.detach().double()
    if center:
        m = m - m.mean(0, keepdim=True)
    s = torch.linalg.svdvals(m)
    top = float(s[0]) if s.numel() else 0.0
    factor = max(m.shape) * eps if rtol is None else rtol
    rank = int((s > factor * top).sum()) if top > 0 else 0
    total = float(s.sum())
    if total > 0:
        p = s / total
        eff = math.exp(float(-torch.special.xlogy(p, p).sum()))
        stable = float((s * s).sum()) / (top * top)
    else:
        eff = stable = 0.0
    return {
        "rows": m.shape[0],
        "units": m.shape[1],
        "max_rank": min(m.shape),
        "rank": rank,
        "effective_rank": eff,
        "stable_rank": stable,
        "tol": factor * top,
        "singular_values": s.tolist(),
    }


@torch.no_grad()
def hidden_rank(
    model: nn.Module,
    inputs: Any,
    *,
    where: Where = None,
    measure: str = "output",
    unit_dim: int = -1,
    rtol: float | None = None,
    center: bool = False,
    kinds=DEFAULT_KINDS,
) -> RankReport:
    """Numerical, effective and stable rank of each nonlinearity's activations on one forward of `inputs`.

    ``inputs``: a tensor, a tuple of positional arguments or a dict of keyword arguments.
    A layer called several times in the forward gets one entry per call (``call`` says which).
    """
    measure = check_measure(measure)
    sites = discovery.find(model, where, kinds)
    rows: list[dict[str, Any]] = []
    handles = []

    def hook_for(name: str):
        def record(value: Any) -> None:
            t = first_tensor(value)
            if t is None or not t.is_floating_point():
                return
            calls = sum(1 for r in rows if r["layer"] == name)
            rows.append({"layer": name, "call": calls, **rank_of(as_rows(t, unit_dim), rtol=rtol, center=center)})

        if measure == "output":
            return lambda module, args, out: record(out)
        return lambda module, args: record(args)

    try:
        for s in sites:
            register = s.module.register_forward_hook if measure == "output" else s.module.register_forward_pre_hook
            handles.append(register(hook_for(s.name)))
        _call(model, inputs)
    finally:
        for h in handles:
            h.remove()
    return RankReport(rows)
