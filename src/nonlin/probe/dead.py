"""``probe.DeadUnits``: the dynamic dead-unit rate of each layer over training.

A unit is dead in a window when its measured value satisfies |a| <= eps (eps = 0: exactly zero) on
every row (token, example) of every forward call in that window. The window is what runs between two
``step()`` calls, so with one ``step()`` per optimiser step it is one batch, the catalog's definition
("share of units with zero output on every input of a batch, tracked over training", catalog.md §4).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from torch import nn

from nonlin.probe import discovery
from nonlin.probe.discovery import DEFAULT_KINDS, Where
from nonlin.probe.metrics import as_rows
from nonlin.probe.watch import check_measure, first_tensor
from nonlin.spec import Kind


class DeadUnits:
    """Tracks dead units per layer; hooks stay on until ``close()`` (or the end of a ``with`` block).

    ``history`` holds one entry per ``step()``: ``{"step", "calls", "layers": {name: dead share},
    "overall": dead units / all units}``; ``never_active`` the share of units dead in every window so
    far (units that never fired since the tracker started). ``modes="train"`` counts only forward
    calls made in training mode, so evaluation passes do not revive units.
    """

    def __init__(
        self,
        model: nn.Module,
        *,
        where: Where = None,
        eps: float = 0.0,
        measure: str = "output",
        unit_dim: int = -1,
        modes: str = "any",
        kinds: Iterable[Kind | str] | None = DEFAULT_KINDS,
    ) -> None:
        if not isinstance(eps, int | float) or isinstance(eps, bool) or not eps >= 0:
            raise ValueError(f"eps must be a number >= 0; got {eps!r}")
        if modes not in ("any", "train", "eval"):
            raise ValueError(f"modes must be 'any', 'train' or 'eval'; got {modes!r}")
        self.eps, self.unit_dim, self.modes = float(eps), unit_dim, modes
        self.measure = check_measure(measure)
        self.sites = discovery.find(model, where, kinds)
        self.history: list[dict[str, Any]] = []
        self._active: dict[str, torch.Tensor] = {}  # units active in the current window
        self._ever: dict[str, torch.Tensor] = {}  # units active in any window so far
        self._calls = 0
        self._handles = []
        for site in self.sites:
            if self.measure == "output":
                h = site.module.register_forward_hook(self._hook(site.name, output=True))
            else:
                h = site.module.register_forward_pre_hook(self._hook(site.name, output=False))
            self._handles.append(h)

    def _hook(self, name: str, output: bool):
        def record(module: nn.Module, value: Any) -> None:
            if (self.modes == "train" and not module.training) or (self.modes == "eval" and module.training):
                return
            t = first_tensor(value)
            if t is None:
                return
            with torch.no_grad():
                rows = as_rows(t.detach(), self.unit_dim)
                if rows.shape[0] == 0:
                    return
                on = torch.nan_to_num(rows.abs().amax(dim=0), nan=torch.inf) > self.eps
                prev = self._active.get(name)
                if prev is not None and prev.shape != on.shape:
                    raise ValueError(
                        f"DeadUnits: layer {name} produced {on.numel()} units after {prev.numel()}; "
                        "set unit_dim to the feature axis"
                    )
                self._active[name] = on if prev is None else prev | on
            self._calls += 1

        if output:
            return lambda module, args, out: record(module, out)
        return lambda module, args: record(module, args)

    def step(self) -> dict[str, Any]:
        """Close the current window: record each layer's dead share, start a new window; returns the entry."""
        layers: dict[str, float] = {}
        dead_total = units_total = 0
        for site in self.sites:
            on = self._active.get(site.name)
            if on is None:
                continue
            dead = int((~on).sum().item())
            layers[site.name] = dead / on.numel()
            dead_total += dead
            units_total += on.numel()
            ever = self._ever.get(site.name)
            self._ever[site.name] = on.clone() if ever is None else ever | on
        entry = {
            "step": len(self.history),
            "calls": self._calls,
            "layers": layers,
            "overall": dead_total / units_total if units_total else float("nan"),
        }
        self.history.append(entry)
        self._active.clear()
        self._calls = 0
        return entry

    @property
    def never_active(self) -> dict[str, float]:
        """Per layer, the share of units inactive in every closed window so far."""
        return {n: 1.0 - on.float().mean().item() for n, on in self._ever.items()}

    def close(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()

    def __enter__(self) -> DeadUnits:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
