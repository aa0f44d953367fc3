"""`nonlin check`: accuracy tables in the terminal, and JSON + Markdown + HTML files.

nonlin check gelu                          # nonlin's gelu: fp32 sample, bf16 and fp16 exhaustive, fwd + bwd
nonlin check gelu --impl torch             # torch.nn.functional.gelu, same table
nonlin check swiglu --impl mypkg.ops:swiglu
nonlin check --all --dtype bfloat16 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from nonlin.accuracy.check import DEFAULT_DTYPES, check
from nonlin.accuracy.report import Report, environment, fmt_ulp, html_page, markdown_table
from nonlin.registry import names, spec

console = Console()


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="accuracy in ULPs against a correctly rounded reference")
    p.add_argument("names", nargs="*", help="catalog entries (or --all)")
    p.add_argument("--all", action="store_true", help="every catalog entry (with --impl torch: those torch has)")
    p.add_argument("--impl", default=None, help="'torch', or 'module:attr' of any callable (default: nonlin's own)")
    p.add_argument("--dtype", action="append", default=None, help=f"repeatable; default {' '.join(DEFAULT_DTYPES)}")
    p.add_argument("--size", type=int, default=None, help="float32 sample size (default 2^20 + edge cases)")
    p.add_argument("--no-backward", action="store_true", help="forward only")
    p.add_argument("--jobs", type=int, default=1, help="processes (each entry in its own; default 1)")
    p.add_argument("--out", default="nonlin-out/accuracy", help="folder for JSON, Markdown and HTML")
    p.add_argument("--plot", action="store_true", help="also write one PNG per entry")
    p.set_defaults(func=_handler)


def _one(job: tuple) -> tuple[str, Report | str]:
    name, impl, dtypes, size, backward = job
    try:
        return name, check(name, impl=impl, dtypes=dtypes, size=size, backward=backward)
    except (ValueError, TypeError, RuntimeError) as err:
        return name, f"{type(err).__name__}: {err}"


def _handler(args: argparse.Namespace) -> int:
    if args.all and args.names:
        raise ValueError("give entry names or --all, not both")
    chosen = names() if args.all else [spec(n).name for n in args.names]
    if not chosen:
        raise ValueError("nonlin check: name at least one entry, or pass --all")
    if args.all and args.impl == "torch":
        chosen = [n for n in chosen if spec(n).torch_equivalent is not None]
    dtypes = tuple(args.dtype or DEFAULT_DTYPES)
    jobs = [(n, args.impl, dtypes, args.size, not args.no_backward) for n in chosen]
    reports: list[Report] = []
    errors: dict[str, str] = {}
    t0 = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("checking", total=len(jobs))
        if args.jobs > 1 and len(jobs) > 1:
            with mp.get_context("fork").Pool(args.jobs) as pool:
                results = pool.imap_unordered(_one, jobs)
                for name, rep in results:
                    progress.advance(task)
                    progress.update(task, description=name)
                    (reports.append(rep) if isinstance(rep, Report) else errors.__setitem__(name, rep))
        else:
            for job in jobs:
                progress.update(task, description=job[0])
                name, rep = _one(job)
                progress.advance(task)
                (reports.append(rep) if isinstance(rep, Report) else errors.__setitem__(name, rep))
    order = {n: i for i, n in enumerate(chosen)}
    reports.sort(key=lambda r: order[r.name])
    _print(reports)
    for name, msg in errors.items():
        console.print(f"[red]{name}[/red]: {msg}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = "accuracy-" + (chosen[0] if len(chosen) == 1 else "all") + "-" + (args.impl or "nonlin").replace(":", "_")
    payload = {
        "environment": environment(),
        "seconds": time.perf_counter() - t0,
        "reports": [r.to_dict() for r in reports],
        "errors": errors,
    }
    (out / f"{stem}.json").write_text(json.dumps(payload, indent=2, default=str))
    (out / f"{stem}.md").write_text(markdown_table(reports))
    (out / f"{stem}.html").write_text(html_page(reports, title=f"nonlin accuracy ({args.impl or 'nonlin'})"))
    if args.plot:
        for r in reports:
            r.plot(out / f"{r.name}-{r.impl.replace(':', '_')}.png")
    console.print(f"wrote {out / stem}.json, .md, .html")
    return 1 if errors and not reports else 0


def _print(reports: list[Report]) -> None:
    table = Table(title="accuracy in ULPs of the output dtype (reference: correctly rounded)")
    for c in ("entry", "impl", "dtype", "output", "n", "max ULP", "mean ULP", "correct", "non-finite"):
        table.add_column(c, justify="left" if c in ("entry", "impl", "dtype", "output") else "right")
    for rep in reports:
        for r in rep.rows():
            mx = r["max_ulp"]
            style = "red" if mx is not None and mx > 1 else ""
            cr = "-" if r["correctly_rounded"] is None else f"{100 * r['correctly_rounded']:.3f}%"
            nf = "-" if r["nonfinite"] is None else str(r["nonfinite"])
            table.add_row(
                r["name"],
                r["impl"],
                r["dtype"],
                r["output"],
                str(r["n"]),
                f"[{style}]{fmt_ulp(mx)}[/{style}]" if style else fmt_ulp(mx),
                fmt_ulp(r["mean_ulp"]),
                cr,
                f"[red]{nf}[/red]" if r["nonfinite"] else nf,
            )
    console.print(table)
