"""`nonlin arena` (run a sweep, resume it, rebuild its report) and the arena parts of `nonlin compare`."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from nonlin.arena.backends import WorkerDied
from nonlin.arena.report import COLUMNS, _row, build_report
from nonlin.arena.store import Store, db_path
from nonlin.arena.summary import fmt, fmt_ci, leaderboards
from nonlin.arena.sweep import DEFAULT_ACTS, DEFAULT_LR_GRID, DEFAULT_OUT, DEFAULT_SEEDS, Sweep
from nonlin.arena.tasks import task_names

# Leaderboards are wide: when the output is a file or a pipe, do not squeeze them into 80 columns.
console = Console() if sys.stdout.isatty() else Console(width=160)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "arena",
        help="train and compare nonlinearities on bundled tasks (default: a quick sweep, then a report)",
        description=(
            "Run nonlinearities x tasks x seeds, store every finished run in <out>/arena.sqlite and write "
            "<out>/report.html and report.md. Without options: the default quick sweep "
            f"({' '.join(DEFAULT_ACTS)} x every task x {DEFAULT_SEEDS} seeds). "
            "`nonlin arena report DIR` rebuilds the report from stored results."
        ),
    )
    p.add_argument("--act", nargs="+", metavar="NAME", help="catalog names, with parameters as name:k=v,k=v")
    p.add_argument("--task", nargs="+", metavar="TASK", help=f"tasks ({', '.join(task_names())}), options as task:k=v")
    p.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help=f"seeds per pair (default {DEFAULT_SEEDS})")
    p.add_argument(
        "--lr-grid",
        nargs="+",
        metavar="LR",
        default=None,
        help="learning rates tried per (task, nonlinearity): xF = F times the task's lr, or an absolute lr "
        f"(default {' '.join(DEFAULT_LR_GRID)}); chosen on the validation split",
    )
    p.add_argument("--no-tune", action="store_true", help="run each task at its own lr only (no lr grid)")
    p.add_argument("--budget", type=float, default=1.0, help="factor on every task's steps (default 1)")
    p.add_argument("--out", default=None, help=f"results folder (default {DEFAULT_OUT})")
    p.add_argument("--resume", metavar="DIR", help="finish the sweep(s) stored in DIR (finished runs are kept)")
    p.add_argument("--retry-failed", action="store_true", help="also rerun runs stored as failed")
    p.add_argument("--workers", type=int, default=None, help="runs at once (default: CPU count; 0: in this process)")
    p.add_argument("--backend", choices=("local", "ray"), default=None, help="local processes (default) or Ray")
    p.add_argument(
        "--address", default=None, help="Ray cluster address ('auto': the running one); implies --backend ray"
    )
    p.add_argument("--no-report", action="store_true", help="do not write the report at the end")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_arena, arena_command=None)
    rsub = p.add_subparsers(dest="arena_command", metavar="report")
    r = rsub.add_parser("report", help="rebuild the HTML and Markdown report from stored results")
    r.add_argument("dir", help="results folder (or its arena.sqlite)")
    r.add_argument("--out", dest="report_out", default=None, help="where to write the report (default: DIR)")
    r.set_defaults(func=_report)


def _print_boards(location: Path) -> None:
    with Store(location, create=False) as store:
        boards = leaderboards(store.runs())
    keep = ("rank", "nonlinearity", "metric [95% CI]", "median", "lr", "seeds", "did not learn", "outlier seeds")
    idx = [COLUMNS.index(c) for c in keep]
    for task, entries in boards.items():
        t = Table(
            title=f"{task}: {entries[0].metric_name} ({'higher' if entries[0].goal == 'max' else 'lower'} is better)"
        )
        for c in keep:
            t.add_column(c, justify="left" if c in ("nonlinearity", "rank", "outlier seeds") else "right")
        for e in entries:
            row = _row(e)
            t.add_row(*(row[j] for j in idx))
        for name, value in sorted(entries[0].baselines.items()):
            t.add_row("baseline", name, fmt(value), *([""] * (len(keep) - 3)))
        if entries[0].threshold is not None:
            t.add_row("threshold", "learned beyond", fmt(entries[0].threshold), *([""] * (len(keep) - 3)))
        console.print(t)


def _report(args: argparse.Namespace) -> int:
    paths = build_report(args.dir, args.report_out)
    _print_boards(db_path(args.dir))
    console.print(f"report  {paths['html']}\n        {paths['markdown']}")
    return 0


def _arena(args: argparse.Namespace) -> int:
    backend = args.backend or ("ray" if args.address else "local")
    if args.address and backend != "ray":
        raise ValueError("--address is for the Ray backend; drop --backend local or the address")
    common: dict[str, Any] = dict(
        workers=args.workers,
        backend=backend,
        address=args.address,
        retry_failed=args.retry_failed,
        progress=not args.no_progress,
    )
    if args.no_tune and args.lr_grid:
        raise ValueError("--no-tune runs each task's own lr: drop --lr-grid, or drop --no-tune")
    if args.resume:
        if args.act or args.task or args.out or args.lr_grid or args.no_tune or args.budget != 1.0:
            raise ValueError(
                "--resume DIR finishes the stored sweep; to add runs to DIR use --out DIR with --act/--task"
            )
        out = Path(args.resume)
        sweep = Sweep.resume(out, **common)
    else:
        out = Path(args.out or DEFAULT_OUT)
        sweep = Sweep(
            args.act or DEFAULT_ACTS,
            args.task,
            args.seeds,
            out,
            lr_grid=args.lr_grid or DEFAULT_LR_GRID,
            tune=not args.no_tune,
            budget=args.budget,
            **common,
        )
    specs, skipped = sweep.plan()
    for task, act, reason in skipped:
        console.print(f"[yellow]skipped[/yellow] {task} x {act}: {reason}")
    grid = f"lr grid {' '.join(map(str, sweep.lr_grid))}" if sweep.tune else "each task's own lr"
    console.print(
        f"arena: {len(specs)} runs planned ({len(sweep.acts)} nonlinearities, {len(sweep.tasks)} tasks, "
        f"{len(sweep.seeds)} seeds, {grid}) -> {db_path(out)}"
    )
    t0 = time.perf_counter()
    try:
        outcome = sweep.run()
    except KeyboardInterrupt:
        console.print(f"[red]interrupted[/red]: finished runs are stored; continue with  nonlin arena --resume {out}")
        return 130
    except WorkerDied as err:
        console.print(f"[red]error:[/red] {err}; finished runs are stored; continue with  nonlin arena --resume {out}")
        return 1
    c = outcome.counts
    console.print(
        f"arena: {len(outcome.executed)} runs in {time.perf_counter() - t0:.1f} s wall ({c['ok']} ok, "
        f"{c['diverged']} diverged, {c['failed']} failed), {outcome.already_done} already stored"
    )
    _print_boards(out)
    if not args.no_report:
        paths = build_report(out)
        console.print(f"report  {paths['html']}\n        {paths['markdown']}")
    return 1 if c["failed"] else 0


# ---------------------------------------------------------------- nonlin compare
def add_compare_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None, help="arena results (a folder or its arena.sqlite) to show for the names")


def compare_section(names: list[str], options: dict[str, Any]):
    """Arena results for the compared names (every stored label whose catalog name is one of them)."""
    location = options.get("db")
    if not location:
        return None
    from nonlin.report import Section

    with Store(location, create=False) as store:
        runs = store.runs()
    boards = leaderboards(runs)
    wanted = set(names)
    rows: dict[str, dict[str, str]] = {}
    for task, entries in boards.items():
        ranked = sum(e.learned for e in entries)
        for e in entries:
            if e.act.partition(":")[0] not in wanted:
                continue
            rank = f" (rank {e.rank} of {ranked})" if e.learned else f" ({e.rank})"
            extra = f", {e.diverged} diverged" if e.diverged else ""
            rows.setdefault(e.act, {})[task] = f"{fmt_ci(e)}{rank}{extra}"
    columns = list(boards)
    for n in names:
        if not any(label.partition(":")[0] == n for label in rows):
            rows[n] = {c: "not run" for c in columns}
    note = (
        f"From {db_path(location)}: test metric at the lr chosen on validation, mean [95% interval] over "
        "seeds, and rank (tie groups from paired tests, Holm-corrected) among the nonlinearities stored for "
        "that task that learned. " + "; ".join(f"{t}: {b[0].metric_name} ({b[0].goal})" for t, b in boards.items())
    )
    return Section("Arena results", columns, rows, note=note)
