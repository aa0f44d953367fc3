"""Accuracy reports: per dtype and output, the ULP statistics; JSON, Markdown, HTML and a plot."""

from __future__ import annotations

import html
import json
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from nonlin.accuracy.metric import Stats

# nonlin's own goals (issue #3): halves correctly rounded >= 99.9% and never > 1 ULP off; float32 forward
# <= 2 ULP and backward <= 4 ULP; no non-finite mismatch anywhere.
GOALS = {"half_forward_max": 1.0, "half_forward_cr": 0.999, "f32_forward_max": 2.0, "f32_backward_max": 4.0}


@dataclass
class Result:
    stats: Stats | None
    errors: np.ndarray | None  # per-element ULP error (NaN where not comparable)
    note: str = ""
    inputs: dict[str, np.ndarray] | None = None


def environment() -> dict[str, str]:
    import nonlin

    return {
        "nonlin": getattr(nonlin, "__version__", "?"),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
    }


@dataclass
class Report:
    name: str
    impl: str
    params: dict[str, Any]
    results: dict[str, dict[str, Result]]  # dtype -> output ("forward", "backward", ...) -> Result
    timings: dict[str, Any] = field(default_factory=dict)
    # dtype -> output -> the nonlin route and size class that computed it ("torch/large"; nonlin.route); empty for
    # other implementations
    routes: dict[str, dict[str, str]] = field(default_factory=dict)

    def outputs(self, dtype: str) -> dict[str, Stats]:
        return {k: r.stats for k, r in self.results[dtype].items() if r.stats is not None}

    @property
    def max_ulp(self) -> dict[str, dict[str, float]]:
        return {d: {k: s.max_ulp for k, s in self.outputs(d).items()} for d in self.results}

    @property
    def worst_inputs(self) -> dict[str, dict[str, list[dict[str, Any]]]]:
        return {d: {k: s.worst for k, s in self.outputs(d).items()} for d in self.results}

    def goal_failures(self) -> list[str]:
        """nonlin's accuracy goals this report misses (empty: all met)."""
        out = []
        for d in self.results:
            for k, s in self.outputs(d).items():
                fwd = k.startswith("forward")  # "forward_train": the forward as training runs it
                where = f"{self.name} {d} {k}"
                if s.nonfinite_total:
                    out.append(f"{where}: {s.nonfinite_total} non-finite mismatches {s.nonfinite}")
                if d == "float32":
                    limit = GOALS["f32_forward_max"] if fwd else GOALS["f32_backward_max"]
                    if s.max_ulp > limit:
                        out.append(f"{where}: max {s.max_ulp:.3g} ULP > {limit:g}")
                elif fwd:
                    if s.max_ulp > GOALS["half_forward_max"]:
                        out.append(f"{where}: max {s.max_ulp:.3g} ULP > 1")
                    if s.correctly_rounded < GOALS["half_forward_cr"]:
                        out.append(f"{where}: correctly rounded {100 * s.correctly_rounded:.3f}% < 99.9%")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "impl": self.impl,
            "params": self.params,
            "results": {
                d: {
                    k: (r.stats.to_dict() if r.stats is not None else {"note": r.note})
                    for k, r in per.items()
                    if not k.startswith("_")
                }
                for d, per in self.results.items()
            },
            "routes": self.routes,
            "goal_failures": self.goal_failures() if self.impl == "nonlin" else None,
            "timings": self.timings,
            "environment": environment(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        """The report `to_dict` wrote, less what JSON does not keep (per-element errors and inputs: no plots)."""
        results = {
            dt: {
                k: Result(Stats(**{f: v[f] for f in Stats.__dataclass_fields__ if f in v}), None)
                if "n" in v
                else Result(None, None, note=v.get("note", ""))
                for k, v in per.items()
            }
            for dt, per in d["results"].items()
        }
        return cls(
            d["name"],
            d["impl"],
            dict(d["params"]),
            results,
            dict(d.get("timings", {})),
            routes=dict(d.get("routes", {})),
        )

    def to_json(self, path: str | Path | None = None) -> str:
        text = json.dumps(self.to_dict(), indent=2, default=_jsonable)
        if path is not None:
            write_atomic(path, text)
        return text

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per (dtype, output): what the tables print."""
        out = []
        for d, per in self.results.items():
            for k, r in per.items():
                if k.startswith("_"):
                    continue
                s = r.stats
                out.append(
                    {
                        "name": self.name,
                        "impl": self.impl,
                        "route": self.routes.get(d, {}).get(k, ""),
                        "dtype": d,
                        "output": k,
                        "n": s.n if s else 0,
                        "max_ulp": s.max_ulp if s else None,
                        "mean_ulp": s.mean_ulp if s else None,
                        "correctly_rounded": s.correctly_rounded if s else None,
                        "nonfinite": s.nonfinite_total if s else None,
                        "note": r.note,
                    }
                )
        return out

    def to_markdown(self) -> str:
        return markdown_table([self])

    def plot(self, path: str | Path) -> Path:
        """Error (ULPs, log scale) against the input, one panel per dtype and output."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        panels = [(d, k, r) for d, per in self.results.items() for k, r in per.items() if r.errors is not None]
        cols = max(1, len({k for _, k, _ in panels}))
        rows = max(1, len(self.results))
        fig, axes = plt.subplots(rows, cols, figsize=(4.5 * cols, 3.2 * rows), squeeze=False)
        for ax in axes.ravel():
            ax.set_visible(False)
        outs = sorted({k for _, k, _ in panels}, key=lambda k: (k != "forward", k))
        for i, d in enumerate(self.results):
            x = next(iter(self.results[d]["_inputs"].inputs.values()))
            for k, r in self.results[d].items():
                if r.errors is None:
                    continue
                ax = axes[i][outs.index(k)]
                ax.set_visible(True)
                e = r.errors
                ok = np.isfinite(e) & np.isfinite(x)
                idx = np.flatnonzero(ok)
                if idx.size > 60000:  # keep the plot light; the worst points are always drawn
                    idx = np.union1d(
                        np.random.default_rng(0).choice(idx, 60000, replace=False), idx[np.argsort(-e[idx])[:2000]]
                    )
                ax.scatter(x[idx], np.maximum(e[idx], 1e-3), s=1, alpha=0.4)
                ax.set_xscale("symlog", linthresh=1e-3)
                ax.set_yscale("log")
                ax.axhline(0.5, color="k", lw=0.6, ls="--")
                ax.set_title(f"{self.name} [{self.impl}] {d} {k}", fontsize=9)
                ax.set_xlabel("input" if k == "forward" or "gate" in k or len(self.results[d]) < 4 else "gate")
                ax.set_ylabel("error (ULP)")
        fig.tight_layout()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write a file so that readers see the old content or the new, never a part: a temporary file in the
    same folder, flushed to disk, then renamed over the target (os.replace is atomic on POSIX and Windows)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return str(v)


def fmt_ulp(v: float | None) -> str:
    if v is None:
        return "-"
    if v == float("inf"):
        return "inf"
    return f"{v:.3g}" if v < 1000 else f"{v:.2e}"


def markdown_table(reports: list[Report]) -> str:
    lines = [
        "| entry | impl | route | dtype | output | n | max ULP | mean ULP | correctly rounded | non-finite |",
        "|---|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for rep in reports:
        for r in rep.rows():
            cr = "-" if r["correctly_rounded"] is None else f"{100 * r['correctly_rounded']:.3f}%"
            lines.append(
                f"| {r['name']} | {r['impl']} | {r['route'] or '-'} | {r['dtype']} | {r['output']} | {r['n']} | {fmt_ulp(r['max_ulp'])} | "
                f"{fmt_ulp(r['mean_ulp'])} | {cr} | {r['nonfinite'] if r['nonfinite'] is not None else r['note']} |"
            )
    return "\n".join(lines) + "\n"


def html_page(reports: list[Report], title: str = "nonlin accuracy") -> str:
    env = environment()
    head = (
        "<!doctype html><html><head><meta charset='utf-8'><title>"
        + html.escape(title)
        + "</title><style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}"
        ".bad{color:#b00;font-weight:bold}</style></head><body>"
    )
    parts = [head, f"<h1>{html.escape(title)}</h1><p>{html.escape(json.dumps(env))}</p><table>"]
    cols = ["name", "impl", "route", "dtype", "output", "n", "max_ulp", "mean_ulp", "correctly_rounded", "nonfinite"]
    parts.append("<tr>" + "".join(f"<th>{c}</th>" for c in cols) + "</tr>")
    for rep in reports:
        for r in rep.rows():
            cells = []
            for c in cols:
                v = r[c]
                text = (
                    fmt_ulp(v)
                    if c in ("max_ulp", "mean_ulp")
                    else (
                        f"{100 * v:.3f}%"
                        if c == "correctly_rounded" and v is not None
                        else str(v if v is not None else "-")
                    )
                )
                bad = (c == "max_ulp" and v is not None and v > 1) or (c == "nonfinite" and v)
                cells.append(f"<td{' class=bad' if bad else ''}>{html.escape(text)}</td>")
            parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</table></body></html>")
    return "\n".join(parts)
