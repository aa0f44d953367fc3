"""Plots of probe results (matplotlib, headless Agg): per layer and over forward calls."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np


def _float(v: Any) -> float:
    return float(v) if v is not None else math.nan


def _save(fig, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_watch(data: dict[str, Any], path: str | Path) -> Path:
    """Six panels: sparsity, dead units, max/median |a|, mean ± std per layer; sparsity and max |a| over calls."""
    rows = data["layers"]
    modes = {r["mode"] for r in rows}
    labels = [r["layer"] + (f" [{r['mode']}]" if len(modes) > 1 else "") for r in rows]
    x = np.arange(len(rows))
    fig, axes = plt.subplots(3, 2, figsize=(13, 11), constrained_layout=True)
    (a_sp, a_dead), (a_mass, a_mom), (a_ts, a_tm) = axes
    eps = data["options"]["eps"]
    if "sparsity" in data["metrics"]:
        a_sp.bar(x - 0.2, [100 * _float(r.get("sparsity_zero")) for r in rows], 0.4, label="exact zeros")
        a_sp.bar(x + 0.2, [100 * _float(r.get("sparsity_eps")) for r in rows], 0.4, label=f"|a| < {eps:g}")
        a_sp.legend(fontsize=8)
    a_sp.set_title("activation sparsity (%)")
    if "dead" in data["metrics"]:
        a_dead.bar(x - 0.2, [100 * _float(r.get("dead")) for r in rows], 0.4, label="over the whole watch")
        a_dead.bar(x + 0.2, [100 * _float(r.get("dead_per_call")) for r in rows], 0.4, label="mean per call")
        a_dead.legend(fontsize=8)
    a_dead.set_title("dead units (%)")
    if "massive" in data["metrics"]:
        ratios = [_float(r.get("massive_ratio")) for r in rows]
        a_mass.bar(x, [v if math.isfinite(v) else np.nan for v in ratios], color="tab:red")
        a_mass.set_yscale("log")
        a_mass.set_ylim(bottom=1.0)
        for i, r in enumerate(rows):
            top = (r.get("top") or [None])[0]
            if top:
                a_mass.annotate(f"unit {top['unit']}\n{top['value']:.3g}", (i, ratios[i]), fontsize=6, ha="center")
    a_mass.set_title("massive activations: max |a| / median |a|")
    if "stats" in data["metrics"]:
        a_mom.errorbar(
            x,
            [_float(r.get("mean")) for r in rows],
            yerr=[_float(r.get("std")) for r in rows],
            fmt="o",
            capsize=3,
            label="mean ± std",
        )
        ax2 = a_mom.twinx()
        ax2.plot(x, [_float(r.get("kurtosis")) for r in rows], "s", color="tab:purple", label="kurtosis")
        ax2.set_ylabel("kurtosis (Gaussian: 3)", color="tab:purple")
        a_mom.legend(fontsize=8, loc="upper left")
    a_mom.set_title("moments of a")
    for ax in (a_sp, a_dead, a_mass, a_mom):
        ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
        ax.grid(alpha=0.25, axis="y")
    cols = data["series_columns"]
    for key, series in data["series"].items():
        if len(series) < 1:
            continue
        arr = np.array([[_float(v) for v in s] for s in series])
        steps = np.arange(len(arr))
        a_ts.plot(steps, 100 * arr[:, cols.index("sparsity_eps")], lw=1, label=key)
        a_tm.plot(steps, arr[:, cols.index("max_abs")], lw=1, label=key)
    a_ts.set_title(f"over forward calls: |a| < {eps:g} (%)")
    a_tm.set_title("over forward calls: max |a|")
    a_tm.set_yscale("log")
    for ax in (a_ts, a_tm):
        ax.set_xlabel("forward call")
        ax.grid(alpha=0.25)
    if len(data["series"]) <= 12:
        a_ts.legend(fontsize=6)
    fig.suptitle(f"nonlin probe: {data.get('model', '')} ({data['options']['measure']} of each nonlinearity)")
    return _save(fig, path)


def plot_attention(data: dict[str, Any], path: str | Path) -> Path:
    """Heatmaps [layer x head] of the attention-sink score and of the entropy."""
    sink = np.array(data["sink"], dtype=float)
    ent = np.array(data["entropy"], dtype=float)
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 0.45 * sink.shape[0] + 2.5), constrained_layout=True)
    for ax, arr, title, cmap, vmax in (
        (a, sink, f"attention sink: mass on position {data['sink_position']}", "magma", 1.0),
        (b, ent, "head entropy (nats)", "viridis", None),
    ):
        im = ax.imshow(arr, aspect="auto", cmap=cmap, vmin=0.0, vmax=vmax)
        ax.set_xlabel("head")
        ax.set_ylabel("layer")
        ax.set_yticks(range(arr.shape[0]), [str(n) for n in data["layers"]], fontsize=7)
        ax.set_title(title)
        fig.colorbar(im, ax=ax)
    return _save(fig, path)


def plot_regions(data: dict[str, Any], path: str | Path) -> Path:
    """A segment: Hamming distance to the first pattern along t, boundaries marked. A plane: region map."""
    if "region_map" in data:
        fig, ax = plt.subplots(figsize=(6.5, 6), constrained_layout=True)
        rid = np.array(data["region_map"])
        rng = np.random.default_rng(0)
        perm = rng.permutation(max(int(rid.max()) + 1, 1))
        ax.imshow(perm[rid], origin="lower", extent=data["extent"], cmap="tab20", interpolation="nearest")
        ax.set_title(f"{data['regions']} activation regions on the plane")
        ax.set_xlabel("u")
        ax.set_ylabel("v")
        return _save(fig, path)
    fig, ax = plt.subplots(figsize=(9, 4), constrained_layout=True)
    ax.plot(data["t"], data["hamming_from_start"], lw=1.2)
    for b in data["boundaries"]:
        ax.axvline(b, color="0.7", lw=0.6, zorder=0)
    ax.set_xlabel("t along the segment (0 = start, 1 = end)")
    ax.set_ylabel("Hamming distance to the pattern at t=0")
    ax.set_title(f"{data['regions']} linear regions, folding {data['folding']:.3f}")
    ax.grid(alpha=0.25)
    return _save(fig, path)


def plot_rank(data: dict[str, Any], path: str | Path) -> Path:
    rows = data["layers"]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(9, 4), constrained_layout=True)
    ax.bar(x - 0.2, [r["rank"] / r["max_rank"] for r in rows], 0.4, label="numerical rank / min(rows, units)")
    ax.bar(x + 0.2, [r["effective_rank"] / r["max_rank"] for r in rows], 0.4, label="effective rank / min(rows, units)")
    ax.set_xticks(x, [r["layer"] for r in rows], rotation=60, ha="right", fontsize=7)
    ax.legend(fontsize=8)
    ax.set_title("rank of hidden activations")
    ax.grid(alpha=0.25, axis="y")
    return _save(fig, path)
