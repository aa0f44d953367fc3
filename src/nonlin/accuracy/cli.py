"""`nonlin check`: accuracy tables in the terminal, and JSON + Markdown + HTML files.

nonlin check gelu                          # nonlin's gelu: fp32 sample, bf16 and fp16 exhaustive, fwd + bwd
nonlin check gelu --impl torch             # torch.nn.functional.gelu, same table
nonlin check swiglu --impl mypkg.ops:swiglu
nonlin check --all --dtype bfloat16 --jobs 2

Results are never lost or half-written:
- the arguments (names, dtypes, --impl, --size, --jobs) are checked before anything runs: a bad one is an
  error naming it, and nothing is written;
- each entry's report is kept as soon as it is finished, in ``OUT/.partial/<run>/`` (one JSON per entry;
  <run> is a hash of what was asked: entries, impl, dtypes, size, backward, versions);
- Ctrl-C stops the run with a short message; the finished entries stay there, and the same command run
  again resumes from them (it says how many it kept);
- the result files (``accuracy-<name|all>-<impl>.json/.md/.html``, and the PNGs of --plot) are written only
  when the run ends with at least one report, each to a temporary file renamed over the old one: an earlier
  good result is replaced by a complete new one or not at all. A run in which every entry failed writes
  nothing and exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from nonlin.accuracy.check import DEFAULT_DTYPES, check, resolve_impl
from nonlin.accuracy.formats import get_format
from nonlin.accuracy.reference import REFERENCE_VERSION
from nonlin.accuracy.report import Report, environment, fmt_ulp, html_page, markdown_table, write_atomic
from nonlin.accuracy.sampling import SAMPLE_VERSION
from nonlin.progress import Steps
from nonlin.registry import names, spec

console = Console()
# --size: below this the float32 sample is the edge cases and two values per tail binade, whatever was asked
# (1000 gave the same 2,145 inputs as 1); above it the mpmath reference takes hours.
MIN_SIZE, MAX_SIZE = 4096, 1 << 24


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="accuracy in ULPs against a correctly rounded reference")
    p.add_argument("names", nargs="*", help="catalog entries (or --all)")
    p.add_argument("--all", action="store_true", help="every catalog entry (with --impl torch: those torch has)")
    p.add_argument("--impl", default=None, help="'torch', or 'module:attr' of any callable (default: nonlin's own)")
    p.add_argument("--dtype", action="append", default=None, help=f"repeatable; default {' '.join(DEFAULT_DTYPES)}")
    p.add_argument(
        "--size",
        type=int,
        default=None,
        help=f"float32 sample size, {MIN_SIZE} to {MAX_SIZE} (default 2^20 + edge cases)",
    )
    p.add_argument(
        "--size-class",
        default=None,
        help="measure nonlin's route for tensors of this size class, 'small' or 'large' (nonlin.route: from "
        "2^20 elements calls take the fused route at once); default: the route of the sample's own size",
    )
    p.add_argument("--no-backward", action="store_true", help="forward only")
    p.add_argument("--jobs", type=int, default=1, help="processes (each entry in its own; default 1)")
    p.add_argument("--out", default="nonlin-out/accuracy", help="folder for JSON, Markdown and HTML")
    p.add_argument("--plot", action="store_true", help="also write one PNG per entry")
    p.set_defaults(func=_handler)


def _check_entry(
    name: str,
    impl: Any,
    dtypes: tuple[str, ...],
    size: int | None,
    backward: bool,
    steps=None,
    size_class: str | None = None,
) -> Report:
    """check() one dtype at a time (so progress can show each), merged into one report."""
    merged: Report | None = None
    for d in dtypes:
        if steps is not None:
            steps.start(f"{name} {d}")
        rep = check(name, impl=impl, dtypes=(d,), size=size, backward=backward, size_class=size_class)
        if merged is None:
            merged = rep
        else:
            merged.results.update(rep.results)
            merged.timings.update(rep.timings)
            merged.routes.update(rep.routes)
        if steps is not None:
            steps.done()
    assert merged is not None
    return merged


def _one(job: tuple) -> tuple[str, Report | str]:
    name, impl, dtypes, size, backward, size_class = job
    try:
        return name, _check_entry(name, impl, dtypes, size, backward, size_class=size_class)
    except (ValueError, TypeError, RuntimeError) as err:
        return name, f"{type(err).__name__}: {err}"


# Workers are spawned, not forked: a fork after torch has started its OpenMP threads (a caller that already
# ran torch, e.g. a test session) can deadlock in the child.
def _ignore_sigint() -> None:
    # Workers leave Ctrl-C to the parent, which stops them: no traceback from every worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _validate(args: argparse.Namespace) -> tuple[list[str], tuple[str, ...]]:
    if args.all and args.names:
        raise ValueError("give entry names or --all, not both")
    chosen = names() if args.all else list(dict.fromkeys(spec(n).name for n in args.names))
    if not chosen:
        raise ValueError("nonlin check: name at least one entry, or pass --all")
    if args.all and args.impl == "torch":
        chosen = [n for n in chosen if spec(n).torch_equivalent is not None]
    formats = []
    for d in args.dtype or DEFAULT_DTYPES:
        try:
            formats.append(get_format(d).name)
        except ValueError as err:
            raise ValueError(f"--dtype {d}: {err}") from None
    dtypes = tuple(dict.fromkeys(formats))
    if args.size is not None and not MIN_SIZE <= args.size <= MAX_SIZE:
        raise ValueError(
            f"--size {args.size}: expected an integer from {MIN_SIZE} to {MAX_SIZE} (the float32 sample size; "
            f"below {MIN_SIZE} the sample is the edge cases alone)"
        )
    if args.size_class is not None and args.size_class not in ("small", "large"):
        raise ValueError(f"--size-class {args.size_class}: expected 'small' or 'large'")
    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs}: expected an integer >= 1 (the number of processes)")
    for n in chosen:  # --impl: importable, callable, and (for 'torch') there for every entry asked
        resolve_impl(spec(n), args.impl)
    return chosen, dtypes


class _Partial:
    """Finished entries of one run, kept in OUT/.partial/<key>/ until the run ends (see the module docstring)."""

    def __init__(self, out: Path, stem: str, request: dict[str, Any]) -> None:
        blob = json.dumps(request, sort_keys=True, default=str).encode()
        self.dir = out / ".partial" / f"{stem}-{hashlib.sha1(blob).hexdigest()[:12]}"
        self.request = request

    def load(self) -> dict[str, dict[str, Any]]:
        kept: dict[str, dict[str, Any]] = {}
        for f in sorted(self.dir.glob("entry-*.json")) if self.dir.exists() else []:
            try:
                d = json.loads(f.read_text())
            except (OSError, ValueError):
                continue  # a file that cannot be read is redone, not trusted
            if d.get("name") in self.request["entries"]:
                kept[d["name"]] = d
        return kept

    def keep(self, rep: Report, plot: bool) -> dict[str, Any]:
        self.dir.mkdir(parents=True, exist_ok=True)
        write_atomic(self.dir / "request.json", json.dumps(self.request, indent=2, default=str))
        d = rep.to_dict()
        if plot:
            rep.plot(self.dir / _png_name(rep.name, rep.impl))
        write_atomic(self.dir / f"entry-{rep.name}.json", json.dumps(d, indent=2, default=str))
        return d

    def png(self, name: str, impl: str) -> Path:
        return self.dir / _png_name(name, impl)

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
        parent = self.dir.parent
        if parent.exists() and not any(parent.iterdir()):
            parent.rmdir()


def _png_name(name: str, impl: str) -> str:
    return f"{name}-{impl.replace(':', '_')}.png"


def _handler(args: argparse.Namespace) -> int:
    chosen, dtypes = _validate(args)
    impl_label = (args.impl or "nonlin").replace(":", "_")
    stem = "accuracy-" + (chosen[0] if len(chosen) == 1 else "all") + "-" + impl_label
    out = Path(args.out)
    backward = not args.no_backward
    request = {
        "entries": chosen,
        "impl": args.impl,
        "dtypes": dtypes,
        "size": args.size,
        "backward": backward,
        "size_class": args.size_class,
        "reference": REFERENCE_VERSION,
        "sample": SAMPLE_VERSION,
        "versions": {k: v for k, v in environment().items() if k in ("nonlin", "torch", "numpy")},
    }
    partial = _Partial(out, stem, request)
    done = partial.load()
    if done:
        console.print(f"resuming: {len(done)} of {len(chosen)} entries kept from an interrupted run ({partial.dir})")
    todo = [n for n in chosen if n not in done]
    errors: dict[str, str] = {}
    t0 = time.perf_counter()
    per_dtype = args.jobs == 1 or len(todo) <= 1
    steps_total = len(todo) * (len(dtypes) if per_dtype else 1)
    try:
        with Steps(steps_total, "check") as steps:
            if not per_dtype:
                jobs = [(n, args.impl, dtypes, args.size, backward, args.size_class) for n in todo]
                pool = mp.get_context("spawn").Pool(min(args.jobs, len(jobs)), initializer=_ignore_sigint)
                try:
                    steps.start(f"{len(jobs)} entries in {min(args.jobs, len(jobs))} processes")
                    for name, rep in pool.imap_unordered(_one, jobs):
                        if isinstance(rep, Report):
                            done[name] = partial.keep(rep, args.plot)
                        else:
                            errors[name] = rep
                        steps.done(name)
                finally:
                    pool.terminate()
                    pool.join()
            else:
                for name in todo:
                    try:
                        rep = _check_entry(name, args.impl, dtypes, args.size, backward, steps, args.size_class)
                    except (ValueError, TypeError, RuntimeError) as err:
                        errors[name] = f"{type(err).__name__}: {err}"
                        continue
                    done[name] = partial.keep(rep, args.plot)
    except KeyboardInterrupt:
        console.print(
            f"[red]interrupted[/red]: {len(done)} of {len(chosen)} entries finished and kept in {partial.dir}; "
            "run the same command again to resume (result files not written)"
        )
        return 130
    dicts = [done[n] for n in chosen if n in done]
    reports = [Report.from_dict(d) for d in dicts]
    _print(reports)
    for name, msg in errors.items():
        console.print(f"[red]{name}[/red]: {msg}")
    if not reports:
        console.print(f"[red]no entry finished[/red]: nothing written (earlier files in {out} are untouched)")
        return 1
    payload = {
        "environment": environment(),
        "seconds": time.perf_counter() - t0,
        "reports": dicts,
        "errors": errors,
    }
    write_atomic(out / f"{stem}.json", json.dumps(payload, indent=2, default=str))
    write_atomic(out / f"{stem}.md", markdown_table(reports))
    write_atomic(out / f"{stem}.html", html_page(reports, title=f"nonlin accuracy ({args.impl or 'nonlin'})"))
    if args.plot:
        for r in reports:
            png = partial.png(r.name, r.impl)
            if png.exists():
                png.replace(out / png.name)
    partial.remove()
    console.print(f"wrote {out / stem}.json, .md, .html" + (f" ({len(errors)} entries failed)" if errors else ""))
    return 0


def _print(reports: list[Report]) -> None:
    table = Table(title="accuracy in ULPs of the output dtype (reference: correctly rounded)")
    for c in ("entry", "impl", "route", "dtype", "output", "n", "max ULP", "mean ULP", "correct", "non-finite"):
        table.add_column(c, justify="left" if c in ("entry", "impl", "route", "dtype", "output") else "right")
    for rep in reports:
        for r in rep.rows():
            mx = r["max_ulp"]
            style = "red" if mx is not None and mx > 1 else ""
            cr = "-" if r["correctly_rounded"] is None else f"{100 * r['correctly_rounded']:.3f}%"
            nf = "-" if r["nonfinite"] is None else str(r["nonfinite"])
            table.add_row(
                r["name"],
                r["impl"],
                r["route"] or "-",
                r["dtype"],
                r["output"],
                str(r["n"]),
                f"[{style}]{fmt_ulp(mx)}[/{style}]" if style else fmt_ulp(mx),
                fmt_ulp(r["mean_ulp"]),
                cr,
                f"[red]{nf}[/red]" if r["nonfinite"] else nf,
            )
    console.print(table)
