"""nonlin's default path against what a user runs instead, per entry, dtype, shape and pass, with ratios.

    python benchmarks/kernels.py --entries all                     # CPU: float32 and bfloat16, 3 shapes
    python benchmarks/kernels.py --entries gelu swiglu --shapes 1024x4096 --dtypes float32
    python benchmarks/kernels.py --device cuda --dtypes bfloat16   # GPU (Liger-Kernel column where it has one)
    python benchmarks/kernels.py --accuracy                        # max ULP vs the mpmath reference
    python benchmarks/kernels.py --entries elu celu --params alpha=0.5   # other parameter values

Columns (median ms of interleaved rounds: every column is timed once per round, in turn, so a drift of the
machine's load hits them alike):
- torch: torch's own op (spec.torch_equivalent), or the entry's formula in torch ops, in the input dtype;
- compile: torch.compile of that, built without nonlin's vector forms of ATen's generic conversions and bool
  masks (`nonlin.kernels.vec_convert`: once installed they reach every kernel the process builds);
- default: nonlin.functional with no nonlin.use (the route table, nonlin.route; the route it took is shown),
  timed after `route.WARM_CALLS` calls (a small call takes the fused route once its kernels are compiled, as in
  a training loop's later steps; the first calls of a process run eagerly);
- compiled_model: torch.compile of a function calling nonlin's activation (a user's compiled model);
- fused, eager: nonlin.use("fused") and nonlin.use("eager") (nonlin's float64 reference path);
- copy: a copy of the bytes the pass moves (inputs read, outputs written; backward also reads the incoming
  gradient): the bandwidth limit.
Ratios: default / torch, default / compile, default / copy, compiled_model / compile; saved/inputs: what
autograd keeps between forward and backward over the input's bytes (the goal: at most 1).
Shapes are tokens x d_ff; gated entries take a packed [tokens, 2 d_ff] input.
"""

from __future__ import annotations

import os

os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")  # large CPU allocations page-fault without it

import argparse
import contextlib
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import nonlin
from nonlin import route, route_profile
from nonlin.kernels import native32, use, vec_convert
from nonlin.ops import TORCH

CPU_ENTRIES = ["relu", "gelu", "gelu_tanh", "silu", "mish", "snake", "swiglu", "geglu"]
GPU_ENTRIES = ["swiglu", "geglu", "geglu_tanh", "gelu", "gelu_tanh", "mish", "silu", "relu", "snake"]
LIGER = {"swiglu": ("liger_kernel.ops.swiglu", "LigerSiLUMulFunction"), "geglu_tanh": ("liger_kernel.ops.geglu", "LigerGELUMulFunction")}  # fmt: skip


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def timeit(fn: Callable[[], object], device: torch.device, reps: int, warmup: int = 1, stat=statistics.median) -> float:
    """Seconds per call: the median (or `stat`) of `reps` calls."""
    for _ in range(warmup):
        fn()
    sync(device)
    times = []
    for _ in range(reps):
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        else:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return stat(times)


def saved_bytes(fn: Callable[[], torch.Tensor]) -> int:
    """Bytes autograd saves for backward during fn() (distinct storages)."""
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor):
        s = t.untyped_storage()
        seen[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return sum(seen.values())


def peak_bytes(fn: Callable[[], object], device: torch.device) -> int | None:
    if device.type != "cuda":
        return None
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base


def keep_freed_memory() -> None:
    """Let glibc keep freed large blocks for reuse instead of unmapping them (the effect of
    MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=... set before start). Without it every fresh
    output tensor of a CPU op is page-faulted in again (~3 ms per 16 MB here), which dominates cheap entries
    and is the allocator's cost, not the kernel's. A jemalloc or tcmalloc LD_PRELOAD has the same effect."""
    import ctypes
    import ctypes.util

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    ok = libc.mallopt(m_mmap_threshold, 32 << 20)  # glibc's maximum; 16-32 MB blocks then come from the heap
    ok &= libc.mallopt(m_trim_threshold, 1 << 34)
    ok &= libc.mallopt(m_top_pad, 256 << 20)
    if not ok:
        raise RuntimeError("mallopt failed (not glibc?); use LD_PRELOAD with jemalloc or tcmalloc instead")


def copy_time(moved_bytes: int, device: torch.device, reps: int) -> float:
    src = torch.ones(moved_bytes // 2, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    return timeit(lambda: dst.copy_(src), device, reps)


def entry_inputs(spec, tokens: int, d_ff: int, dtype: torch.dtype, gen: torch.Generator):
    """(x, incoming gradient, extra inputs) for one entry: x is [tokens, d_ff], packed [tokens, 2 d_ff] for
    gated entries; extra inputs (kappa_swiglu's router confidence c) are one value per token, not
    differentiated here."""
    device = gen.device
    shape = (tokens, 2 * d_ff) if spec.kind is nonlin.Kind.GATED else (tokens, d_ff)
    x = torch.randn(shape, generator=gen, device=device, dtype=torch.float32).to(dtype).requires_grad_(True)
    go = torch.randn((tokens, d_ff), generator=gen, device=device, dtype=torch.float32).to(dtype)
    extra = {n: torch.rand((tokens, 1), generator=gen, device=device).to(dtype) for n in spec.extra_inputs}
    return x, go, extra


def liger_fn(name: str):
    if name not in LIGER:
        return None
    try:
        module = __import__(LIGER[name][0], fromlist=[LIGER[name][1]])
    except ImportError:
        return None
    fn = getattr(module, LIGER[name][1])
    return lambda g, v: fn.apply(g, v)


class _TextbookOps(type(TORCH)):
    """The torch namespace with the textbook sin(w x) and cos(w x): the catalog's sin_of_product carries the
    exact product (Dekker's split, angle addition), which no user's formula does, and in eager torch it costs
    ~20 kernels (snake's "torch" column was 19x its compiled formula)."""

    @staticmethod
    def sin_of_product(x, w):
        return torch.sin(w * x)

    @staticmethod
    def cos_of_product(x, w):
        return torch.cos(w * x)


TEXTBOOK = _TextbookOps()


def textbook(spec, params: dict[str, float] | None = None):
    """What a user runs instead, in the input dtype: torch's own op (spec.torch_equivalent), else the entry's
    formula in torch ops (gated: packed input split into gate and value; sin(w x) as written, `TEXTBOOK`), at
    `params` (float parameters; default: the entry's defaults)."""
    params = params or {}
    values = {**spec.defaults(), **params}
    eq = spec.torch_equivalent
    if eq is not None and params:
        eq = functools.partial(eq, **params)
    if spec.kind is nonlin.Kind.GATED:

        def f(packed, *extras):
            d = packed.shape[-1] // 2
            g, v = packed[..., :d], packed[..., d:]
            if eq is not None and not extras:
                return eq(g, v)
            return spec.forward(TEXTBOOK, g, v, *extras, **values)

    elif eq is not None:
        f = eq
    else:

        def f(x):
            return spec.forward(TEXTBOOK, x, **values)

    return f


COLUMNS = ("torch", "compile", "default", "compiled_model", "fused", "eager", "liger", "copy")


def bench_case(name: str, tokens: int, d_ff: int, dtype, device, reps: int, rounds: int, skip: set[str], params=None):
    """Seconds per call of each column (forward without grad, forward+backward), medians over `rounds`
    interleaved rounds of `reps` calls each; and the route the default path took. `params`: float parameters
    of every column's call (default: the entry's defaults)."""
    spec = nonlin.spec(name)
    f = functools.partial(nonlin.functional.function(name), **(params or {}))
    gen = torch.Generator(device=device).manual_seed(0)
    x, go, extra = entry_inputs(spec, tokens, d_ff, dtype, gen)
    es = x.element_size()
    n_out = tokens * d_ff
    fwd_bytes = x.numel() * es + n_out * es
    bwd_bytes = x.numel() * es + n_out * es + x.numel() * es  # read inputs and go, write input grads
    book = textbook(spec, params)
    comp = torch.compile(book)
    model = torch.compile(lambda x, **kw: f(x, **kw))  # a user's compiled model containing nonlin's activation

    calls = {
        "torch": lambda: book(x, *extra.values()),
        "compile": lambda: comp(x, *extra.values()),
        "default": lambda: f(x, **extra),
        "compiled_model": lambda: model(x, **extra),
        "fused": lambda: _in_mode("fused", lambda: f(x, **extra)),
        "eager": lambda: _in_mode("eager", lambda: f(x, **extra)),
    }
    lf = liger_fn(name) if device.type == "cuda" else None
    if lf is not None:  # Liger-Kernel takes gate and value as separate contiguous tensors
        d = x.shape[-1] // 2
        calls["liger"] = lambda: lf(x[..., :d].contiguous(), x[..., d:].contiguous())
    calls = {k: v for k, v in calls.items() if k not in skip}
    # Copy of the same bytes: a copy reads and writes, so it moves 2 * numel * itemsize.
    copies = {
        p: torch.ones(b // 2, dtype=torch.uint8, device=device)
        for p, b in (("fwd", fwd_bytes), ("fwdbwd", fwd_bytes + bwd_bytes))
    }
    copies = {k: (a, torch.empty_like(a)) for k, a in copies.items()}

    def fwd_only(fn):
        def run():
            with torch.no_grad():
                fn()

        return run

    def both(fn):
        return lambda: torch.autograd.grad(fn(), x, go)

    jobs = {}
    for k, fn in calls.items():
        jobs[(k, "fwd")] = fwd_only(fn)
        jobs[(k, "fwdbwd")] = both(fn)
    for p, (a, b) in copies.items():
        jobs[("copy", p)] = lambda a=a, b=b: b.copy_(a)
    for k, job in list(
        jobs.items()
    ):  # first calls compile; the default path's small calls once warm (route.WARM_CALLS)
        try:
            # torch.compile's baseline built as a process without nonlin builds it: nonlin's vector forms of
            # ATen's generic conversions and bool masks (vec_convert.install, once a traced call ran) left out
            with vec_convert.without() if k[0] == "compile" else contextlib.nullcontext():
                for _ in range(route.WARM_CALLS + 1 if k[0] == "default" else 1):
                    job()
        except (NotImplementedError, RuntimeError) as e:
            if k[0] not in BASELINES:
                raise  # nonlin's own columns must run
            # a baseline torch lacks for this dtype (torch.special.log_ndtr has no bfloat16 kernel): no column,
            # so its ratios print "-", instead of the whole run stopping
            print(f"{name} {dtype} {k[0]}: not measured ({type(e).__name__}: {str(e).splitlines()[0][:80]})")
            del jobs[k]
    samples: dict[tuple[str, str], list[float]] = {k: [] for k in jobs}
    for _ in range(rounds):
        for k, job in jobs.items():
            samples[k].append(timeit(job, device, reps, warmup=1))
    times = {k: statistics.median(v) for k, v in samples.items()}
    with route.recording() as taken_f, torch.no_grad():
        f(x, **extra)
    with route.recording() as taken_b:
        f(x, **extra)
    routes = {"fwd": taken_f[0][5], "fwdbwd": taken_b[0][5]}
    saved = {"default": saved_bytes(lambda: f(x, **extra)), "inputs": x.numel() * es}
    return times, routes, saved


BASELINES = ("torch", "compile", "liger")  # what a user runs instead; the other columns are nonlin's


def _write_markdown(path: str, cols: list[str], results: list[dict]) -> None:
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in results:
        cells = (row.get(c, "-") for c in cols)
        lines.append("| " + " | ".join(v if isinstance(v, str) else f"{v:.3f}" for v in cells) + " |")
    tmp = Path(path + ".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)


def _in_mode(m: str, fn):
    with use(m):
        return fn()


def _profile_line() -> str:
    """Which per-machine rows (`nonlin tune`) this run's default column takes from a measured profile."""
    if route_profile.disabled():
        return "off (NONLIN_ROUTE_PROFILE=off): the static table"
    chosen = route.measured()
    if not chosen:
        return f"none for this machine ({route_profile.path()}): the static table"
    fused = [" ".join(row) for row, r in sorted(chosen.items()) if r == "fused"]
    prefetch = "on" if native32.prefetching() else "off"
    return (
        f"{route_profile.path()}: {len(chosen)} rows measured; fused where: {', '.join(fused) or 'none'}; the "
        f"hand-written kernels' software prefetch: {prefetch}"
    )


def benchmark(args) -> int:
    torch._dynamo.config.cache_size_limit = 1024
    torch._dynamo.config.accumulated_cache_size_limit = 4096
    console = Console(width=250)
    device = torch.device(args.device)
    entries = args.entries or (GPU_ENTRIES if device.type == "cuda" else CPU_ENTRIES)
    if entries == ["all"]:
        entries = nonlin.names("pointwise") + nonlin.names("gated")
    entries = [e for e in entries if not nonlin.spec(e).stochastic]
    for e in entries:
        unknown = sorted(set(args.params) - {p.name for p in nonlin.spec(e).params})
        if unknown:
            names = ", ".join(p.name for p in nonlin.spec(e).params) or "none"
            raise SystemExit(f"--params {', '.join(unknown)}: not a parameter of {e} (its parameters: {names})")
    if args.keep_freed_memory:
        keep_freed_memory()
    skip = set(args.skip or ())
    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    load = " ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    console.print(
        f"[bold]nonlin kernels[/] device={device} dtypes={','.join(args.dtypes)} shapes={','.join(args.shapes)} "
        f"threads={threads} reps={args.reps} rounds={args.rounds} params={args.params or 'defaults'} "
        f"torch={torch.__version__} "
        f"ATEN_CPU_CAPABILITY={os.environ.get('ATEN_CPU_CAPABILITY', '(auto)')} load_average={load}"
    )
    console.print(f"route profile: {_profile_line()}")
    table = Table(title="median ms of interleaved rounds; ratios: nonlin default / baseline")
    cols = ["entry", "dtype", "shape", "pass", "route", *[c for c in COLUMNS if c not in skip],
            "default/torch", "default/compile", "default/copy", "model/compile", "saved/inputs"]  # fmt: skip
    for c in cols:
        table.add_column(c, justify="left" if c in ("entry", "dtype", "shape", "pass", "route") else "right")
    results = []
    cases = [(n, d, sh) for n in entries for d in args.dtypes for sh in args.shapes]
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("benchmarking", total=len(cases))
        for name, dt, shp in cases:
            progress.update(task, description=f"{name} {dt} {shp}")
            gated = nonlin.spec(name).kind is nonlin.Kind.GATED
            tokens, d_ff = (int(v) for v in shp.split("x"))
            times, routes, saved = bench_case(
                name, tokens, d_ff, getattr(torch, dt), device, args.reps, args.rounds, skip, args.params
            )
            shape = f"{tokens}x{2 * d_ff}" if gated else shp
            for p, label in (("fwd", "fwd"), ("fwdbwd", "fwd+bwd")):
                ms = {c: times[(c, p)] * 1e3 for c in COLUMNS if (c, p) in times}
                d = ms["default"]

                def ratio(base, d=d, ms=ms):
                    return f"{d / ms[base]:.2f}" if base in ms else "-"

                row = {
                    "entry": name, "dtype": dt, "shape": shape, "pass": label, "route": routes[p], **ms,
                    "default/torch": ratio("torch"), "default/compile": ratio("compile"),
                    "default/copy": ratio("copy"),
                    "model/compile": f"{ms['compiled_model'] / ms['compile']:.2f}"
                    if "compiled_model" in ms and "compile" in ms else "-",
                    "saved/inputs": f"{saved['default'] / saved['inputs']:.2f}" if p == "fwdbwd" else "",
                }  # fmt: skip
                results.append(row)
                cells = [v if isinstance(v, str) else f"{v:.3f}" for v in (row.get(c, "-") for c in cols)]
                table.add_row(*cells)
                if args.markdown:  # written as it goes: an interrupted run keeps the finished rows
                    _write_markdown(args.markdown, cols, results)
                progress.console.print(" | ".join(cells))
            progress.advance(task)
    console.print(table)
    if args.markdown:
        console.print(f"wrote {args.markdown}")
    return 0


def accuracy(args) -> int:
    """Max ULP error of the Triton kernels vs the mpmath reference on the test grid, per dtype, for both
    internal precisions of float32 inputs (CPU: under the interpreter)."""
    if args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "kernels"))
    from kernel_helpers import grid, ref_gated, ref_pointwise, ulp_error

    console = Console(width=250)
    device = torch.device(args.device)
    entries = args.entries or nonlin.names("pointwise") + nonlin.names("gated")
    table = Table(title="max ULP vs mpmath reference (forward / backward), 101-point grid in [-28, 28]")
    table.add_column("entry")
    configs = [("float32", "float64"), ("float32", "float32"), ("bfloat16", "float64"), ("float16", "float64")]
    for dt, fc in configs:
        table.add_column(f"{dt}" + (" (fp32 math)" if dt == "float32" and fc == "float32" else ""))
    backend = "triton"
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("accuracy", total=len(entries))
        for name in entries:
            s = nonlin.spec(name)
            if s.stochastic:
                progress.advance(task)
                continue
            cells = []
            for dt, fc in configs:
                dtype = getattr(torch, dt)
                with use("fused", backend=backend, fp32_compute=fc):
                    if s.kind is nonlin.Kind.GATED:
                        g = grid(dtype).reshape(1, -1)
                        v = torch.linspace(-3, 3, g.numel(), dtype=torch.float64).to(dtype).reshape(1, -1)
                        c = torch.full((1, 1), 0.7, dtype=dtype) if s.extra_inputs else None
                        packed = torch.cat([g, v], -1).to(device).requires_grad_(True)
                        kw = {"c": c.to(device)} if c is not None else {}
                        y = nonlin.functional.function(name)(packed, layout="gate_value", **kw)
                        (dp,) = torch.autograd.grad(y, packed, torch.ones_like(y))
                        yr, dgr, dvr = ref_gated(name, g, v, c)
                        ef = ulp_error(y.cpu(), yr).max()
                        d = g.shape[-1]
                        eb = max(ulp_error(dp[:, :d].cpu(), dgr).max(), ulp_error(dp[:, d:].cpu(), dvr).max())
                    else:
                        x = grid(dtype).to(device).requires_grad_(True)
                        y = nonlin.functional.function(name)(x)
                        (gx,) = torch.autograd.grad(y, x, torch.ones_like(y))
                        ef = ulp_error(y.cpu(), ref_pointwise(name, x.detach().cpu())).max()
                        eb = ulp_error(gx.cpu(), ref_pointwise(name, x.detach().cpu(), derivative=True)).max()
                cells.append(f"{ef:.2f} / {eb:.2f}")
            table.add_row(name, *cells)
            progress.advance(task)
    console.print(table)
    return 0


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--dtypes", nargs="*", default=None, choices=["float32", "bfloat16", "float16", "float64"])
    p.add_argument("--shapes", nargs="*", default=None, help="tokens x d_ff (gated inputs are twice as wide)")
    p.add_argument("--threads", type=int, help="torch.set_num_threads (on a loaded machine 1 avoids OpenMP waits)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is reported)")
    p.add_argument("--skip", nargs="*", choices=list(COLUMNS[:-1]), help="columns not to measure (eager is slow)")
    p.add_argument("--markdown", help="also write the table as Markdown to this file")
    p.add_argument("--entries", nargs="*", help="catalog names, or 'all' (default: a representative set)")
    p.add_argument("--reps", type=int, default=None)
    p.add_argument("--fp32-compute", default="auto", choices=["auto", "float64", "float32"])
    p.add_argument(
        "--keep-freed-memory",
        action="store_true",
        help="CPU: glibc keeps freed blocks (mallopt) so outputs are not page-faulted in on every call",
    )
    p.add_argument("--accuracy", action="store_true", help="ULP table instead of timings")
    p.add_argument(
        "--params",
        nargs="*",
        default=[],
        metavar="NAME=VALUE",
        help="float parameters for every column's call (torch's op takes them too), e.g. --entries elu --params "
        "alpha=0.5; default: each entry's defaults",
    )
    args = p.parse_args(argv)
    try:
        args.params = {k: float(v) for k, v in (item.split("=", 1) for item in args.params)}
    except ValueError:
        p.error(f"--params takes NAME=VALUE pairs with float values, got {args.params}")
    gpu = args.device == "cuda"
    args.dtypes = args.dtypes or (["bfloat16"] if gpu else ["float32", "bfloat16"])
    args.shapes = args.shapes or (["8192x8192"] if gpu else ["64x512", "1024x4096", "4096x4096"])
    args.reps = args.reps or (20 if gpu else 3)
    return args


def main(argv=None) -> int:
    args = parse(argv)
    return accuracy(args) if args.accuracy else benchmark(args)


if __name__ == "__main__":
    raise SystemExit(main())
