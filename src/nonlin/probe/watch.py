"""``probe.watch``: hooks on every nonlinearity of a model, streaming metrics, table, JSON and plots."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn

from nonlin.probe import discovery
from nonlin.probe._io import environment, format_table, write_json
from nonlin.probe.discovery import DEFAULT_KINDS, Site, Where
from nonlin.probe.metrics import LayerAccumulator, Options, check_metrics
from nonlin.spec import Kind

SERIES_COLUMNS = ("sparsity_zero", "sparsity_eps", "dead", "max_abs")


def first_tensor(value: Any) -> torch.Tensor | None:
    """The tensor a hook measures: the value itself, or the first tensor of a tuple/list output."""
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, list | tuple):
        for v in value:
            if isinstance(v, torch.Tensor):
                return v
    return None


def check_measure(measure: str) -> str:
    if measure not in ("output", "input"):
        raise ValueError(f"measure must be 'output' or 'input'; got {measure!r}")
    return measure


class Watch:
    """Streaming measurements of a model's nonlinearities while it runs; use as a context manager.

    Hooks are attached on ``__enter__`` (or ``start()``) and always removed on ``__exit__`` (also when
    the block raises) or ``stop()``. Hooks only read detached activations: outputs, parameters, RNG
    state and training mode of the model are untouched. Results are kept per layer and per mode
    ("train" when the nonlinearity module is in training mode, else "eval") so train and test
    sparsity stay apart.
    """

    def __init__(
        self,
        model: nn.Module,
        metrics: Sequence[str] = ("sparsity", "dead", "massive", "stats"),
        *,
        where: Where = None,
        measure: str = "output",
        eps: float = 1e-3,
        dead_eps: float = 0.0,
        unit_dim: int = -1,
        top_k: int = 5,
        kinds: Iterable[Kind | str] | None = DEFAULT_KINDS,
    ) -> None:
        self.metrics = check_metrics(metrics)
        self.measure = check_measure(measure)
        self.options = Options(eps=eps, dead_eps=dead_eps, unit_dim=unit_dim, top_k=top_k)
        self.model = model
        self.sites: list[Site] = discovery.find(model, where, kinds)
        self._acc: dict[tuple[str, str], LayerAccumulator] = {}
        self._handles: list[Any] = []

    # ---------------------------------------------------------------- hooks
    def _hook_for(self, site: Site):
        def record(module: nn.Module, value: Any) -> None:
            t = first_tensor(value)
            if t is None or not (t.is_floating_point() or t.is_complex()):
                return
            mode = "train" if module.training else "eval"
            acc = self._acc.get((site.name, mode))
            if acc is None:
                acc = self._acc[(site.name, mode)] = LayerAccumulator(self.metrics, self.options)
            acc.update(t)

        if self.measure == "output":
            return lambda module, args, output: record(module, output)
        return lambda module, args: record(module, args)

    def start(self) -> Watch:
        if self._handles:
            raise RuntimeError("this watch is already attached; call stop() first")
        for site in self.sites:
            if self.measure == "output":
                h = site.module.register_forward_hook(self._hook_for(site))
            else:  # a pre-hook sees the input before an in-place activation overwrites it
                h = site.module.register_forward_pre_hook(self._hook_for(site))
            self._handles.append(h)
        return self

    def stop(self) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()

    def __enter__(self) -> Watch:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def attached(self) -> bool:
        return bool(self._handles)

    # ---------------------------------------------------------------- results
    def results(self) -> list[dict[str, Any]]:
        """One dict per (layer, mode) seen, in module order: the metric values (docs/probe.md, Definitions)."""
        order = {s.name: i for i, s in enumerate(self.sites)}
        by_name = {s.name: s for s in self.sites}
        out = []
        for (name, mode), acc in sorted(self._acc.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
            site = by_name[name]
            row: dict[str, Any] = {
                "layer": name,
                "class": site.cls,
                "catalog": site.catalog,
                "mode": mode,
                "measured": self.measure,
            }
            row.update(acc.result())
            out.append(row)
        return out

    def series(self) -> dict[str, list[list[float]]]:
        """Per (layer, mode), one row per forward call: the columns of `SERIES_COLUMNS` (nan if not measured)."""
        return {f"{name} [{mode}]": acc.series_list() for (name, mode), acc in self._acc.items()}

    def table(self) -> str:
        """A plain-text table of `results()` (print it)."""
        rows = self.results()
        if not rows:
            return "(no calls recorded: run the model inside the watch)"
        cols = ["layer", "class", "mode", "calls", "units"]
        if "sparsity" in self.metrics:
            cols += ["zero%", f"|a|<{self.options.eps:g} %"]
        if "dead" in self.metrics:
            cols += ["dead%", "dead/call%"]
        if "massive" in self.metrics:
            cols += ["max|a|", "median|a|", "max/median", "where max (call, index, unit)"]
        if "stats" in self.metrics:
            cols += ["mean", "std", "kurtosis"]
        body = []
        for r in rows:
            cls = r["class"] + (f" ({r['catalog']})" if r["catalog"] else "")
            line = [r["layer"], cls, r["mode"], str(r["calls"]), str(r["units"])]
            if "sparsity" in self.metrics:
                line += [_pct(r.get("sparsity_zero")), _pct(r.get("sparsity_eps"))]
            if "dead" in self.metrics:
                line += [_pct(r.get("dead")), _pct(r.get("dead_per_call"))]
            if "massive" in self.metrics:
                top = (r.get("top") or [None])[0]
                where = "-"
                if top:
                    place = tuple(top["index"]) if top["index"] is not None else "?"
                    where = f"{top['call'] if top['call'] is not None else '?'}, {place}, {top['unit']}"
                line += [_num(r.get("max_abs")), _num(r.get("median_abs")), _num(r.get("massive_ratio")), where]
            if "stats" in self.metrics:
                line += [_num(r.get("mean")), _num(r.get("std")), _num(r.get("kurtosis"))]
            body.append(line)
        return format_table(cols, body)

    def to_dict(self) -> dict[str, Any]:
        return {
            "probe": "watch",
            "environment": environment(),
            "model": type(self.model).__name__,
            "metrics": list(self.metrics),
            "options": {
                "measure": self.measure,
                "eps": self.options.eps,
                "dead_eps": self.options.dead_eps,
                "unit_dim": self.options.unit_dim,
                "top_k": self.options.top_k,
            },
            "layers": self.results(),
            "series_columns": list(SERIES_COLUMNS),
            "series": self.series(),
        }

    def to_json(self, path: str | Path) -> Path:
        return write_json(self.to_dict(), path)

    def plot(self, path: str | Path) -> Path:
        from nonlin.probe.plots import plot_watch

        return plot_watch(self.to_dict(), path)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.2f}"


def _num(v: float | None) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return str(v)
    return f"{v:.4g}"


def watch(model: nn.Module, metrics: Sequence[str] = ("sparsity", "dead", "massive", "stats"), **kwargs: Any) -> Watch:
    """Measure the nonlinearities of `model` while it runs: ``with probe.watch(model) as w: model(x)``.

    Keyword options: ``where`` (which modules, see `nonlin.probe.discovery.find`), ``measure`` ("output"
    or "input" of each module), ``eps`` (near-zero threshold, |a| < eps), ``dead_eps`` (a unit is
    inactive where |a| <= dead_eps), ``unit_dim`` (axis of units), ``top_k`` (largest units reported),
    ``kinds`` (which kinds the automatic search keeps).
    """
    return Watch(model, metrics, **kwargs)


def load_json(path: str | Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())
