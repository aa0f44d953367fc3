"""The arena report: a self-contained HTML page (inline PNGs, no network, no external scripts) and Markdown.

Per task: a leaderboard (mean ± sample std over seeds, diverged and failed counts, time, throughput, memory,
activation sparsity and dead units), training-loss and held-out-metric curves (mean over seeds, band min..max);
over all tasks: wall time and memory; the sparsity task's accuracy against sparsity; and the theory numbers
of each catalog nonlinearity when nonlin.theory is installed.
"""

from __future__ import annotations

import base64
import html
import math
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from nonlin.arena import integrations
from nonlin.arena.acts import catalog_act
from nonlin.arena.store import Store, db_path
from nonlin.arena.summary import Entry, fmt, fmt_mean_std, leaderboards, mean, mib

COLUMNS = (
    "rank",
    "nonlinearity",
    "metric",
    "best",
    "seeds",
    "diverged",
    "failed",
    "wall s",
    "throughput",
    "run MiB",
    "sparsity",
    "dead units",
    "other",
)


def _colors(acts: Sequence[str]) -> dict[str, Any]:
    cmap = plt.get_cmap("tab10" if len(acts) <= 10 else "tab20")
    return {a: cmap(i % cmap.N) for i, a in enumerate(acts)}


def _band(curves: list[list[tuple[int, float | None]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, min and max over seeds at the steps every seed reached (diverged runs stop early)."""
    steps = sorted(set.intersection(*(set(s for s, v in c if v is not None) for c in curves)))
    vals = np.array([[dict(c)[s] for s in steps] for c in curves], dtype=float)  # [seeds, steps]
    return np.array(steps), vals.mean(0), vals.min(0), vals.max(0)


def _plot_task(task: str, entries: list[Entry], runs: list[dict], curves: dict, colors: dict, path: Path) -> Path:
    metric = entries[0].metric_name
    series_names = sorted({s for r in runs for s in curves.get(r["run_id"], {})})
    prefixes = ["", *sorted({s.split("/")[0] + "/" for s in series_names if "/" in s})]
    fig, axes = plt.subplots(len(prefixes), 2, figsize=(11, 3.6 * len(prefixes)), squeeze=False)
    for row, prefix in enumerate(prefixes):
        for col, key in enumerate(("loss", metric)):
            ax = axes[row][col]
            for e in entries:
                got = [
                    curves[r["run_id"]][prefix + key]
                    for r in runs
                    if r["act"] == e.act and prefix + key in curves.get(r["run_id"], {})
                ]
                got = [c for c in got if any(v is not None for _, v in c)]
                if not got:
                    continue
                steps, m, lo, hi = _band(got)
                if len(steps) == 0:
                    continue
                ax.plot(
                    steps, m, color=colors[e.act], label=e.act, lw=1.4, marker="o" if len(steps) <= 12 else None, ms=3
                )
                ax.fill_between(steps, lo, hi, color=colors[e.act], alpha=0.15, lw=0)
            where = prefix.rstrip("/") or ("theory_init" if len(prefixes) > 1 else "")
            ax.set_title(f"{task}{' [' + where + ']' if where else ''}: {'training loss' if key == 'loss' else key}")
            ax.set_xlabel("step")
            if key == "loss" or metric.endswith("mse"):
                ax.set_yscale("log")
            ax.grid(alpha=0.3)
        axes[row][0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _plot_costs(boards: dict[str, list[Entry]], acts: list[str], colors: dict, path: Path) -> Path:
    tasks = list(boards)
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    width = 0.8 / max(1, len(acts))
    for i, act in enumerate(acts):
        by_task = {t: next((e for e in boards[t] if e.act == act), None) for t in tasks}
        x = np.arange(len(tasks)) + i * width
        wall = [mean(e.wall_s) if e else math.nan for e in by_task.values()]
        mem = [mean(e.run_mem) / 2**20 if e else math.nan for e in by_task.values()]
        axes[0].bar(x, wall, width, color=colors[act], label=act)
        axes[1].bar(x, mem, width, color=colors[act], label=act)
    for ax, title in zip(
        axes, ("wall time per run (s)", "memory of a run (MiB, peak RSS - RSS at start)"), strict=True
    ):
        ax.set_xticks(np.arange(len(tasks)) + 0.4 - width / 2, tasks, rotation=20, fontsize=8)
        ax.set_title(title)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _plot_sparsity(runs: list[dict], curves: dict, colors: dict, path: Path) -> Path | None:
    pts = [r for r in runs if r["sparsity"] is not None and r["status"] == "ok" and r["task"] == "sparsity"]
    if not pts:
        pts = [r for r in runs if r["sparsity"] is not None and r["status"] == "ok" and r["goal"] == "max"]
    if not pts:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for r in pts:
        axes[0].scatter(r["sparsity"], r["final_metric"], color=colors[r["act"]], s=25)
    for act in dict.fromkeys(r["act"] for r in pts):
        axes[0].scatter([], [], color=colors[act], label=act)
        got = [
            curves[r["run_id"]]["sparsity"]
            for r in pts
            if r["act"] == act and "sparsity" in curves.get(r["run_id"], {})
        ]
        if got:
            steps, m, lo, hi = _band(got)
            axes[1].plot(steps, m, color=colors[act], label=act)
            axes[1].fill_between(steps, lo, hi, color=colors[act], alpha=0.15, lw=0)
    task = pts[0]["task_label"]
    axes[0].set(
        xlabel="activation sparsity (share of exact zeros, test set)",
        ylabel=pts[0]["metric_name"],
        title=f"{task}: {pts[0]['metric_name']} vs sparsity (one point per run)",
    )
    axes[1].set(xlabel="step", ylabel="sparsity", title=f"{task}: sparsity over training")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _other(e: Entry) -> str:
    return ", ".join(f"{k} {fmt(mean(v))}" for k, v in sorted(e.extras.items())) or "-"


def _row(rank: int, e: Entry) -> list[str]:
    thr = mean(e.throughput)
    return [
        str(rank) if e.values else "-",
        e.act,
        fmt_mean_std(e),
        fmt(mean(e.best)),
        str(e.n),
        str(e.diverged),
        str(e.failed),
        fmt(mean(e.wall_s), 3),
        "-" if math.isnan(thr) else f"{thr:,.0f} {e.throughput_unit}",
        mib(e.run_mem),
        fmt(mean(e.sparsity), 3),
        fmt(mean(e.dead_rate), 3),
        _other(e),
    ]


def _theory_rows(acts: list[str]) -> tuple[list[str], dict[str, dict[str, str]]]:
    if integrations.theory_module() is None:
        return [], {}
    rows: dict[str, dict[str, str]] = {}
    for label in acts:
        try:
            act = catalog_act(*_split(label))
        except ValueError:
            continue  # a custom callable: no theory
        nums = integrations.theory_numbers(act)
        if nums:
            rows[label] = {k: v if isinstance(v, str) else fmt(v, 5) for k, v in nums.items()}
    cols = sorted({k for r in rows.values() for k in r}, key=list(integrations.THEORY_COLUMNS).index)
    return cols, rows


def _split(label: str) -> tuple[str, dict[str, float]]:
    from nonlin.arena.acts import parse_params

    base, _, rest = label.partition(":")
    return base, parse_params(label, rest)


def build_report(location: str | Path, out: str | Path | None = None) -> dict[str, Path]:
    """Write report.html, report.md and the PNGs for the results in `location`; return their paths."""
    path = db_path(location)
    with Store(path, create=False) as store:
        runs, curves, meta, sweeps = store.runs(), store.curves(), store.meta(), store.sweeps()
        planned = store.planned()
    if not runs:
        raise ValueError(f"{path} holds no finished runs yet: nothing to report")
    out = Path(out) if out is not None else path.parent
    out.mkdir(parents=True, exist_ok=True)
    boards = leaderboards(runs)
    acts = list(dict.fromkeys(r["act"] for r in sorted(runs, key=lambda r: r["started_at"])))
    colors = _colors(acts)
    by_task: dict[str, list[dict]] = defaultdict(list)
    for r in runs:
        by_task[r["task_label"]].append(r)
    images: dict[str, Path] = {}
    for task, entries in boards.items():
        images[task] = _plot_task(task, entries, by_task[task], curves, colors, out / f"arena_{task.split(':')[0]}.png")
    images["costs"] = _plot_costs(boards, acts, colors, out / "arena_costs.png")
    sparse = _plot_sparsity(runs, curves, colors, out / "arena_sparsity.png")
    if sparse:
        images["sparsity_scatter"] = sparse
    theory_cols, theory = _theory_rows(acts)
    descriptions = _descriptions(runs)
    missing = len({p["run_id"] for p in planned} - {r["run_id"] for r in runs})
    facts = {
        "database": str(path),
        "schema": f"version {meta.get('schema_version')}, created by {meta.get('created_by')}",
        "runs": f"{len(runs)} stored ({sum(r['status'] == 'ok' for r in runs)} ok, "
        f"{sum(r['status'] == 'diverged' for r in runs)} diverged, {sum(r['status'] == 'failed' for r in runs)} failed)"
        + (f", {missing} planned runs not finished (nonlin arena --resume)" if missing else ""),
        "compute": f"{sum(r['wall_s'] for r in runs):.1f} s of run time over {len(sweeps)} sweep(s); "
        f"hosts {', '.join(sorted({r['host'] for r in runs}))}; backends {', '.join(sorted({r['backend'] for r in runs}))}",
        "versions": ", ".join(sorted({f"{k} {v}" for r in runs for k, v in r["versions"].items()})),
        "generated": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    failures = [r for r in runs if r["status"] != "ok"]
    (out / "report.html").write_text(_html(boards, images, facts, theory_cols, theory, descriptions, failures, acts))
    (out / "report.md").write_text(_markdown(boards, images, facts, theory_cols, theory, descriptions, failures))
    return {"html": out / "report.html", "markdown": out / "report.md", **{f"png:{k}": v for k, v in images.items()}}


def _descriptions(runs: list[dict]) -> dict[str, str]:
    from nonlin.arena.tasks import make_task

    out = {}
    for r in runs:
        if r["task_label"] in out:
            continue
        try:
            out[r["task_label"]] = type(make_task(r["task"])).description
        except ValueError:
            out[r["task_label"]] = "custom task"
        cfg = ", ".join(f"{k}={v}" for k, v in r["task_config"].items())
        out[r["task_label"]] += (
            f" (metric: {r['metric_name']}, {'higher' if r['goal'] == 'max' else 'lower'} is better; {cfg})"
        )
    return out


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img class="plot" alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1300px}"
    "table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:3px 7px;font-size:13px}"
    "th{background:#f3f3f3}td.num{text-align:right}tr.first td{background:#eef8ee}img.plot{max-width:100%}"
    ".facts td:first-child{font-weight:bold}.err{color:#a00;font-size:12px;white-space:pre-wrap}"
)

# Counts the images the browser actually decoded (the headless-browser test reads it back from the DOM).
_CHECK = (
    "<script>window.addEventListener('load',function(){var i=document.images,ok=0;"
    "for(var k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0)ok++;}"
    "var d=document.getElementById('loadcheck');d.setAttribute('data-images',i.length);"
    "d.setAttribute('data-decoded',ok);d.textContent='images decoded: '+ok+' of '+i.length;});</script>"
)


def _table(header: Sequence[str], rows: list[list[str]], first_highlight: bool = False) -> str:
    h = "".join(f"<th>{html.escape(c)}</th>" for c in header)
    body = []
    for i, row in enumerate(rows):
        cls = " class='first'" if first_highlight and i == 0 and row[0] == "1" else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>")
    return f"<table><tr>{h}</tr>{''.join(body)}</table>"


def _html(boards, images, facts, theory_cols, theory, descriptions, failures, acts) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>nonlin arena</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>nonlin arena</h1>",
        f"<p>Nonlinearities: {html.escape(', '.join(acts))}. Tasks: {html.escape(', '.join(boards))}.</p>",
        "<table class='facts'>"
        + "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in facts.items())
        + "</table>",
        "<p id='loadcheck'>images decoded: (script not run)</p>",
        "<h2>Summary: rank of each nonlinearity per task</h2>",
        _table(["nonlinearity", *boards], _rank_matrix(boards, acts)),
    ]
    for task, entries in boards.items():
        parts.append(f"<h2 id='task-{html.escape(task)}'>{html.escape(task)}</h2>")
        parts.append(f"<p>{html.escape(descriptions.get(task, ''))}</p>")
        parts.append(_table(COLUMNS, [_row(i + 1, e) for i, e in enumerate(entries)], first_highlight=True))
        parts.append(_img(images[task]))
    parts.append("<h2>Time and memory</h2>" + _img(images["costs"]))
    if "sparsity_scatter" in images:
        parts.append("<h2>Accuracy and activation sparsity</h2>" + _img(images["sparsity_scatter"]))
    parts.append("<h2>Theory (nonlin.theory, at the init it prescribes)</h2>")
    if theory:
        parts.append(
            _table(
                ["nonlinearity", *theory_cols], [[a, *(r.get(c, "-") for c in theory_cols)] for a, r in theory.items()]
            )
        )
    else:
        parts.append("<p>nonlin.theory is not installed in this nonlin: no theory numbers.</p>")
    if failures:
        parts.append(
            "<h2>Diverged and failed runs</h2><table><tr><th>task</th><th>nonlinearity</th><th>seed</th><th>status</th><th>why</th></tr>"
        )
        for r in failures:
            why = (r["error"] or "").strip().splitlines()[-1:] or [""]
            parts.append(
                f"<tr><td>{html.escape(r['task_label'])}</td><td>{html.escape(r['act'])}</td><td>{r['seed']}</td>"
                f"<td>{r['status']}</td><td class='err'>{html.escape(why[0])}</td></tr>"
            )
        parts.append("</table>")
    parts.append(
        "<p>Metric: mean ± sample standard deviation of the final held-out value over the seeds that "
        "finished; best: mean over seeds of the best evaluation during training; run MiB: peak resident "
        "memory of the worker during the run minus its resident memory at the start; sparsity: share of "
        "exact zeros at the nonlinearity outputs on held-out data; dead units: share of units zero on "
        "every held-out example (nonlin.probe).</p>"
    )
    parts.append(_CHECK + "</body></html>")
    return "\n".join(parts)


def _rank_matrix(boards: dict[str, list[Entry]], acts: list[str]) -> list[list[str]]:
    rows = []
    for act in acts:
        row = [act]
        for entries in boards.values():
            ranked = [e.act for e in entries if e.values]
            row.append(str(ranked.index(act) + 1) if act in ranked else "-")
        rows.append(row)
    return rows


def _markdown(boards, images, facts, theory_cols, theory, descriptions, failures) -> str:
    lines = ["# nonlin arena", ""]
    lines += [f"- **{k}**: {v}" for k, v in facts.items()]
    for task, entries in boards.items():
        lines += ["", f"## {task}", "", descriptions.get(task, ""), ""]
        lines.append("| " + " | ".join(COLUMNS) + " |")
        lines.append("|" + "---|" * len(COLUMNS))
        lines += ["| " + " | ".join(c.replace("|", "/") for c in _row(i + 1, e)) + " |" for i, e in enumerate(entries)]
        lines += ["", f"![{task}]({images[task].name})"]
    lines += ["", "## Time and memory", "", f"![costs]({images['costs'].name})"]
    if "sparsity_scatter" in images:
        lines += ["", "## Accuracy and activation sparsity", "", f"![sparsity]({images['sparsity_scatter'].name})"]
    if theory:
        lines += [
            "",
            "## Theory",
            "",
            "| nonlinearity | " + " | ".join(theory_cols) + " |",
            "|" + "---|" * (len(theory_cols) + 1),
        ]
        lines += ["| " + " | ".join([a, *(r.get(c, "-") for c in theory_cols)]) + " |" for a, r in theory.items()]
    if failures:
        lines += ["", "## Diverged and failed runs", ""]
        for r in failures:
            why = ((r["error"] or "").strip().splitlines()[-1:] or [""])[0]
            lines.append(f"- {r['task_label']} × {r['act']} seed {r['seed']}: {r['status']} ({why})")
    return "\n".join(lines) + "\n"
