"""`nonlin tune`: measure, on this machine, the route rows whose faster route depends on the CPU.

    nonlin tune                 # every per-machine row (about 20 s once kernels are compiled)
    nonlin tune tanh prelu      # those entries' rows; the profile's other rows are kept
    nonlin tune --show          # the profile in force and what it measured
    nonlin tune --threads 1     # measured at one thread (default: the process's; the profile records it)

Each row of `nonlin.route.per_machine_rows()` (torch's op and the fused path both meet the goals there) is
timed both ways as users run it (the default path, with each choice in force in turn: `route.measured_routes`),
in interleaved rounds at the issue's shapes (64x512 for the small class, 1024x4096 for the large one); the fused
path is taken where its median is below `FASTER` times torch's op's, else torch's op (a tie is torch's: no
compilation, and the margin keeps a rerun on a noisy machine from flipping rows). The choices go to this
machine's profile (`nonlin.route_profile`), which the route table reads from then on.

First it measures whether nonlin's hand-written float32 kernels should prefetch in software on this machine
(`nonlin.kernels.native32.set_prefetch`): a few of them (`PREFETCH_KERNELS`) built with and without, timed in
interleaved rounds on 4M elements (beyond L2, where it matters); without, where the geometric mean of the ratios
(without / with) is below `PREFETCH_FASTER`. The rows are then timed with the kernels as they will run.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import torch

import nonlin
from nonlin import route, route_profile
from nonlin.kernels import use
from nonlin.registry import resolve

FASTER = 0.9
SHAPES = {"small": (64, 512), "large": (1024, 4096)}  # [tokens, d_ff]
# Cheap kernels and a costly one, both passes: the prefetch's cost shows in the cheap ones, its gain (where the
# hardware's prefetchers fall behind) in the costly ones first
PREFETCH_KERNELS = (("hardswish", "fwd"), ("hardswish", "bwd"), ("sigmoid", "fwd"), ("sigmoid", "bwd"),
                    ("silu", "fwd"), ("gelu", "fwd"))  # fmt: skip
PREFETCH_FASTER = 0.95


def _call(name: str, dtype: str, pass_: str, size: str, shape: tuple[int, int] | None = None) -> Callable[[], None]:
    """One call of the row as a user makes it (forward under no_grad, or forward and backward)."""
    f = nonlin.functional.function(name)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(shape or SHAPES[size], generator=gen).to(getattr(torch, dtype))
    if pass_ == "forward":

        def forward() -> None:
            with torch.no_grad():
                f(x)

        return forward
    x.requires_grad_(True)
    go = torch.randn(x.shape, generator=gen).to(x.dtype)

    def train() -> None:
        x.grad = None
        f(x).backward(go)

    return train


def _median_ms(fn: Callable[[], None], reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def measure(
    row: route_profile.Row, rounds: int = 5, reps: int | None = None, shape: tuple[int, int] | None = None
) -> dict[str, float]:
    """Median ms per call of `row` by each route, over `rounds` interleaved rounds of `reps` calls."""
    name, dtype, pass_, size = row
    fn = _call(name, dtype, pass_, size, shape)
    reps = reps or (3 if size == "large" else 30)
    with use("fused"):
        fn()  # compile the fused kernels (the small class takes them once they are: route.WARM_CALLS)
    samples: dict[str, list[float]] = {r: [] for r in route_profile.ROUTES}
    for _ in range(rounds):
        for r in route_profile.ROUTES:
            with route.measured_routes({row: r}):
                fn()  # the call that settles the route
                samples[r].append(_median_ms(fn, reps))
    return {r: statistics.median(v) for r, v in samples.items()}


def measure_prefetch(rounds: int = 7, numel: int = 1 << 22) -> dict[str, dict[str, float]] | None:
    """ns per element of each of `PREFETCH_KERNELS` built with and without its prefetch ({"with": ..., "without":
    ...} per "primitive pass"), medians of interleaved rounds on `numel` float32 elements; None where the
    hand-written kernels do not build here."""
    from nonlin.kernels import native32

    if native32.kernel(*PREFETCH_KERNELS[0]) is None:
        return None
    gen = torch.Generator().manual_seed(0)
    x, go = torch.randn(numel, generator=gen) * 3, torch.randn(numel, generator=gen)
    out = torch.empty_like(x)
    built = {(p, w, on): native32._compile(p, w, prefetch=on) for p, w in PREFETCH_KERNELS for on in (True, False)}
    reps = max(3, (1 << 23) // numel)
    samples: dict[tuple, list[float]] = {key: [] for key in built}
    for _ in range(rounds):
        for (p, w, on), k in built.items():
            args = (x, out, 1, numel, numel, numel, 1) if w == "fwd" else (go, x, out, 1, numel, numel, numel, numel, 1)
            k(*args)
            samples[p, w, on].append(_median_ms(lambda k=k, args=args: k(*args), reps) * 1e6 / numel)
    return {
        f"{p} {w}": {"with": statistics.median(samples[p, w, True]), "without": statistics.median(samples[p, w, False])}
        for p, w in PREFETCH_KERNELS
    }


def choose_prefetch(ns: dict[str, dict[str, float]]) -> bool:
    """Prefetch unless the kernels without it take less than `PREFETCH_FASTER` of the time with it (geometric mean
    of the ratios): a tie keeps the static default."""
    ratios = [t["without"] / t["with"] for t in ns.values()]
    return statistics.geometric_mean(ratios) >= PREFETCH_FASTER


def choose(times_ms: dict[str, float]) -> str:
    return "fused" if times_ms["fused"] < FASTER * times_ms["torch"] else "torch"


def rows_of(entries: Sequence[str] | None) -> list[route_profile.Row]:
    """The per-machine rows of `entries` (catalog names or aliases; default all)."""
    rows = route.per_machine_rows()
    if not entries:
        return rows
    wanted = {resolve(e) for e in entries}
    tuned = {row[0] for row in rows}
    others = sorted(wanted - tuned)
    if others:
        raise ValueError(
            f"entries: {', '.join(others)} have no per-machine rows (those that have: {', '.join(sorted(tuned))})"
        )
    return [row for row in rows if row[0] in wanted]


def tune(
    entries: Sequence[str] | None = None,
    rounds: int = 5,
    *,
    shapes: dict[str, tuple[int, int]] | None = None,
    progress: bool = True,
) -> route_profile.Profile:
    """Measure the per-machine rows of `entries` (default all), write this machine's profile (keeping the rows
    of an earlier profile that were not measured again) and take it in this process. `shapes`: per size class,
    instead of `SHAPES` (a quick run; a small shape still routes as its class: `route.pinned`)."""
    from nonlin.progress import Steps

    if route_profile.disabled():
        raise ValueError("NONLIN_ROUTE_PROFILE=off: route profiles are off, so nothing would take the measurements")
    from nonlin.kernels import native32

    rows = rows_of(entries)
    old = route_profile.load()
    choices = dict(old.choices) if old else {}
    times = dict(old.times_ms) if old else {}
    prefetch, prefetch_ns = (old.prefetch, old.prefetch_ns) if old else (None, {})
    done = 0
    try:
        with Steps(total=len(rows) + 1, label="nonlin tune", enabled=progress) as steps:
            steps.start("prefetch")
            if not entries or prefetch is None:  # (a run for some entries keeps the profile's measured choice)
                large = (shapes or SHAPES)["large"]
                ns = measure_prefetch(rounds, min(1 << 22, large[0] * large[1]) if shapes else 1 << 22)
                if ns is not None:
                    prefetch, prefetch_ns = choose_prefetch(ns), ns
            native32.set_prefetch(prefetch is None or prefetch)
            steps.done()
            for row in rows:
                steps.start(" ".join(row))
                shape = (shapes or {}).get(row[3])
                # (pinning the class costs the settled calls' fast lookup: only for a shape not of its class)
                with route.pinned(row[3]) if shape else contextlib.nullcontext():
                    times[row] = measure(row, rounds, shape=shape)
                choices[row] = choose(times[row])
                done += 1
                steps.done()
    except KeyboardInterrupt:
        if done:  # the rows measured before the interruption are kept, beside the profile's others
            path = route_profile.save(choices, times, torch.get_num_threads(), prefetch, prefetch_ns)
            route.reload_profile()
            print(
                f"nonlin tune: interrupted after {done} of {len(rows)} rows; those are kept in {path}", file=sys.stderr
            )
        raise
    path = route_profile.save(choices, times, torch.get_num_threads(), prefetch, prefetch_ns)
    route.reload_profile()
    return route_profile.Profile(path, choices, times, torch.get_num_threads(), prefetch, prefetch_ns)


def _static(row: route_profile.Row) -> str:
    with route.measured_routes({}):
        return route.table_route(row[0], row[1], "cpu", row[2], row[3])  # type: ignore[arg-type]


def _print(profile: route_profile.Profile) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"route profile {profile.path} ({profile.threads} threads)")
    for col in ("entry", "dtype", "pass", "size", "torch ms", "fused ms", "fused / torch", "route", "static"):
        table.add_column(col)
    for row in sorted(profile.choices):
        ms = profile.times_ms[row]
        table.add_row(
            *row,
            f"{ms['torch']:.4g}",
            f"{ms['fused']:.4g}",
            f"{ms['fused'] / ms['torch']:.2f}",
            profile.choices[row],
            _static(row),
        )
    console = Console()
    if not console.is_terminal:  # (a log or a pipe: wide enough for the whole row)
        console = Console(width=160)
    console.print(table)
    if profile.prefetch is None:
        console.print("kernels' software prefetch: not measured (on, the static default)")
        return
    ratios = ", ".join(f"{k} {t['without'] / t['with']:.2f}" for k, t in profile.prefetch_ns.items())
    console.print(
        f"kernels' software prefetch: {'on' if profile.prefetch else 'off'} (time without / with, 4M float32: {ratios})"
    )


def _handler(args) -> int:
    if args.show:
        profile = route_profile.load()
        if profile is None:
            where = "off (NONLIN_ROUTE_PROFILE=off)" if route_profile.disabled() else route_profile.path()
            print(f"no route profile for this machine: the static table runs ({where})")
            return 0
        _print(profile)
        return 0
    if args.rounds < 1:
        raise ValueError(f"--rounds: expected at least 1, got {args.rounds}")
    if args.threads is not None:
        if args.threads < 1:
            raise ValueError(f"--threads: expected at least 1, got {args.threads}")
        torch.set_num_threads(args.threads)
    _print(tune(args.names, args.rounds))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "tune", help="measure the routes whose faster choice depends on the CPU and keep this machine's choice"
    )
    p.add_argument("names", nargs="*", help="entries to measure (default: every per-machine row)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is kept; default 5)")
    p.add_argument(
        "--threads", type=int, default=None, help="torch threads to measure with (default: the process's, as it runs)"
    )
    p.add_argument("--show", action="store_true", help="print the profile in force, measure nothing")
    p.set_defaults(func=_handler)
