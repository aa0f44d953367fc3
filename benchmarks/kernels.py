"""Fused kernels vs eager PyTorch, torch.compile of the eager formula, Liger-Kernel (GPU) and a plain copy
of the same bytes: forward, forward+backward and memory, per entry, with medians and ratios.

    THP_MEM_ALLOC_ENABLE=1 python benchmarks/kernels.py                 # CPU, scaled-down shapes
    python benchmarks/kernels.py --keep-freed-memory                     # CPU, outputs not page-faulted
    python benchmarks/kernels.py --device cuda --dtype bfloat16          # GPU, LLM-MLP shapes
    python benchmarks/kernels.py --accuracy                              # max ULP vs the mpmath reference

Shapes are tokens x d_ff; gated entries take a packed [tokens, 2 d_ff] input. The copy baseline moves
the same number of bytes as the pass it is compared with (inputs read + outputs written; backward also
reads the incoming gradient), so "fused/copy" is the distance from the bandwidth limit. On CPU, "hot" is
the fused path's arithmetic alone (its time per element on cache-resident blocks, scaled to the shape):
where "hot/copy" exceeds 1.3, the pass is bound by its math, not by memory. "saved" is what autograd keeps
between forward and backward (the issue's goal: no more than the inputs).
"""

from __future__ import annotations

import os

os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")  # large CPU allocations page-fault without it

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import torch
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import nonlin
from nonlin.kernels import use
from nonlin.kernels.precision import fp32_compute_for
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


HOT_COLS = 1024
# Two block sizes, both after the full-size call (a new shape then compiles one dynamic-shape kernel that
# serves both; a first call's static kernel would serve only its own size). 1 Mi outputs: a pass's tensors
# (<= 20 MB) stay in the 32 MB L3 cache; smaller blocks would fit L2 but make the difference of two times
# ~10x noisier relative to the work.
HOT_ROWS = (64, 1024)


def hot_time(name: str, dtype: torch.dtype, n_out: int) -> dict[str, float]:
    """Seconds the fused path would take for `n_out` outputs if memory were free: its marginal cost per
    element on cache-resident blocks, (t(1024 rows) - t(64 rows)) / 960 rows, times `n_out`. The difference
    removes the fixed per-call cost (0.15-0.65 ms here); each time is the fastest of 21 calls in 3
    interleaved rounds, as noise only adds. When this exceeds the copy time, the pass is bound by its
    arithmetic, and no fusion can bring it to the copy's speed; only cheaper math can. CPU only. For cheap
    entries it reads as the L3 cache's bandwidth rather than the arithmetic, and below ~10% of the copy time
    as noise."""
    spec = nonlin.spec(name)
    f = nonlin.functional.function(name)
    gen = torch.Generator().manual_seed(1)
    cases = {}
    for rows in HOT_ROWS:
        x, go, extra = entry_inputs(spec, rows, HOT_COLS, dtype, gen)

        def fwd(x=x, extra=extra):
            return f(x, **extra)

        def both(fwd=fwd, x=x, go=go):
            torch.autograd.grad(fwd(), x, go)

        cases[rows] = (fwd, both)
    cpu = torch.device("cpu")
    times = {rows: [float("inf")] * 2 for rows in cases}
    with use("fused"):
        for _ in range(3):  # interleaved rounds: a drift of the fixed cost hits both sizes alike
            for rows, (fwd, both) in cases.items():
                with torch.no_grad():
                    t_f = timeit(fwd, cpu, 7, warmup=1, stat=min)
                t_fb = timeit(both, cpu, 7, warmup=1, stat=min)
                times[rows] = [min(times[rows][0], t_f), min(times[rows][1], t_fb)]
    per_element = [
        max(b - a, 0.0) / ((HOT_ROWS[1] - HOT_ROWS[0]) * HOT_COLS)
        for a, b in zip(times[HOT_ROWS[0]], times[HOT_ROWS[1]], strict=True)
    ]
    return {"fwd": per_element[0] * n_out, "fwdbwd": per_element[1] * n_out}


def compiled_formula(spec, compute: torch.dtype):
    """torch.compile of the eager formula (autograd through the forward body, not the declared derivative).

    Every entry's closure shares one code object, so dynamo's per-code cache limit is raised in main():
    otherwise later entries would silently run eagerly."""
    if spec.kind is nonlin.Kind.GATED:

        def f(packed, *extras):
            d = packed.shape[-1] // 2
            g, v = packed[..., :d].to(compute), packed[..., d:].to(compute)
            rest = [e.to(compute) for e in extras]
            return spec.forward(TORCH, g, v, *rest, **spec.defaults()).to(packed.dtype)

    else:

        def f(x):
            return spec.forward(TORCH, x.to(compute), **spec.defaults()).to(x.dtype)

    return torch.compile(f)


def liger_fn(name: str):
    if name not in LIGER:
        return None
    try:
        module = __import__(LIGER[name][0], fromlist=[LIGER[name][1]])
    except ImportError:
        return None
    fn = getattr(module, LIGER[name][1])
    return lambda g, v: fn.apply(g, v)


def bench_entry(name: str, tokens: int, d_ff: int, dtype: torch.dtype, device: torch.device, reps: int, compute):
    spec = nonlin.spec(name)
    f = nonlin.functional.function(name)
    gen = torch.Generator(device=device).manual_seed(0)
    x, go, extra = entry_inputs(spec, tokens, d_ff, dtype, gen)
    es = x.element_size()
    n_out = tokens * d_ff
    fwd_bytes = x.numel() * es + n_out * es
    bwd_bytes = x.numel() * es + n_out * es + x.numel() * es  # read inputs and go, write input grads
    rows = {}

    def run(label, fwd: Callable[[], torch.Tensor], inputs: tuple[torch.Tensor, ...]):
        def both():
            y = fwd()
            torch.autograd.grad(y, inputs, go)

        with torch.no_grad():
            t_f = timeit(fwd, device, reps)
        t_fb = timeit(both, device, reps)
        rows[label] = {"fwd": t_f, "fwdbwd": t_fb, "saved": saved_bytes(fwd), "peak": peak_bytes(both, device)}

    # Copy of the same bytes: a copy reads and writes, so it moves 2 * numel * itemsize.
    rows["copy"] = {
        "fwd": copy_time(fwd_bytes, device, reps),
        "fwdbwd": copy_time(fwd_bytes + bwd_bytes, device, reps),
        "saved": 0,
        "peak": None,
    }
    with use("eager"):
        run("eager", lambda: f(x, **extra), (x,))
    comp = compiled_formula(spec, compute)
    with use("eager"):
        run("compile", lambda: comp(x, *extra.values()), (x,))
    with use("fused"):
        run("fused", lambda: f(x, **extra), (x,))
    lf = liger_fn(name) if device.type == "cuda" else None
    if lf is not None:
        g = x.detach()[:, :d_ff].contiguous().requires_grad_(True)
        v = x.detach()[:, d_ff:].contiguous().requires_grad_(True)
        run("liger", lambda: lf(g, v), (g, v))
    if device.type == "cpu":
        rows["hot"] = hot_time(name, dtype, n_out)
    rows["inputs"] = x.numel() * es
    return rows


def benchmark(args) -> int:
    torch._dynamo.config.cache_size_limit = 1024
    torch._dynamo.config.accumulated_cache_size_limit = 4096
    console = Console(width=250)
    device = torch.device(args.device)
    dtype = getattr(torch, args.dtype)
    entries = args.entries or (GPU_ENTRIES if device.type == "cuda" else CPU_ENTRIES)
    if entries == ["all"]:
        entries = nonlin.names("pointwise") + nonlin.names("gated")
    entries = [e for e in entries if not nonlin.spec(e).stochastic]
    if args.keep_freed_memory:
        keep_freed_memory()
    threads = torch.get_num_threads()
    load = " ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    console.print(
        f"[bold]nonlin kernels[/] device={device} dtype={args.dtype} fp32_compute={args.fp32_compute} "
        f"threads={threads} reps={args.reps} THP_MEM_ALLOC_ENABLE={os.environ.get('THP_MEM_ALLOC_ENABLE')} "
        f"keep_freed_memory={args.keep_freed_memory} load_average={load}"
    )
    table = Table(title="median ms; ratios are time / fused time (copy: fused / copy)")
    cols = ["entry", "shape", "pass", "copy", "eager", "compile", "fused", "liger", "fused/copy", "eager/fused",
            "compile/fused", "liger/fused", "saved MB eager/compile/fused (inputs)", "peak MB eager/fused/liger"]  # fmt: skip
    if device.type == "cpu":  # the arithmetic's own time: see hot_time
        cols[8:8] = ["hot", "hot/copy"]
    for c in cols:
        table.add_column(c, justify="right" if c not in ("entry", "pass") else "left")
    with use("auto", fp32_compute=args.fp32_compute), Progress(console=console, transient=True) as progress:
        task = progress.add_task("benchmarking", total=len(entries))
        for name in entries:
            progress.update(task, description=f"{name} (first call compiles)")
            gated = nonlin.spec(name).kind is nonlin.Kind.GATED
            tokens, d_ff = (args.gated_tokens, args.gated_dff) if gated else (args.tokens, args.dff)
            # The compile baseline computes in the precision the fused path chose for this entry's forward
            # (autograd through it differentiates in the same precision).
            fp32 = {p: fp32_compute_for(name, args.fp32_compute, device, p) for p in ("forward", "backward")}
            compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else torch.float64
            if dtype == torch.float32 and fp32["forward"] == "float32":
                compute = torch.float32
            r = bench_entry(name, tokens, d_ff, dtype, device, args.reps, compute)
            shape = f"{tokens}x{2 * d_ff if gated else d_ff}"
            if dtype == torch.float32 and "float32" in fp32.values():
                fp32_passes = [p[:3] for p, c in fp32.items() if c == "float32"]
                shape += " (fp32 math)" if len(fp32_passes) == 2 else f" (fp32 math: {fp32_passes[0]})"
            for key, label in (("fwd", "fwd"), ("fwdbwd", "fwd+bwd")):
                ms = {k: v[key] * 1e3 for k, v in r.items() if isinstance(v, dict) and key in v}
                fused = ms["fused"]
                mb = {k: v["saved"] / 2**20 for k, v in r.items() if isinstance(v, dict) and "saved" in v}
                pk = {k: (v["peak"] or 0) / 2**20 for k, v in r.items() if isinstance(v, dict) and "peak" in v}
                hot = [f"{ms['hot']:.2f}", f"{ms['hot'] / ms['copy']:.2f}"] if "hot" in ms else []
                table.add_row(
                    name if key == "fwd" else "",
                    shape if key == "fwd" else "",
                    label,
                    f"{ms['copy']:.2f}",
                    f"{ms['eager']:.2f}",
                    f"{ms['compile']:.2f}",
                    f"{fused:.2f}",
                    f"{ms['liger']:.2f}" if "liger" in ms else "-",
                    *hot,
                    f"{fused / ms['copy']:.2f}",
                    f"{ms['eager'] / fused:.2f}",
                    f"{ms['compile'] / fused:.2f}",
                    f"{ms['liger'] / fused:.2f}" if "liger" in ms else "-",
                    f"{mb['eager']:.0f}/{mb['compile']:.0f}/{mb['fused']:.0f} ({r['inputs'] / 2**20:.0f})"
                    if key == "fwd"
                    else "",
                    f"{pk['eager']:.0f}/{pk['fused']:.0f}/{pk.get('liger', 0):.0f}"
                    if key == "fwdbwd" and device.type == "cuda"
                    else "",
                )
            progress.advance(task)
    console.print(table)
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
    p.add_argument("--dtype", default=None, choices=["float32", "bfloat16", "float16", "float64"])
    p.add_argument("--entries", nargs="*", help="catalog names, or 'all' (default: a representative set)")
    p.add_argument("--tokens", type=int, default=None, help="rows of pointwise inputs")
    p.add_argument("--dff", type=int, default=None, help="columns of pointwise inputs")
    p.add_argument("--gated-tokens", type=int, default=None)
    p.add_argument("--gated-dff", type=int, default=None, help="d_ff of gated entries (input is 2 d_ff wide)")
    p.add_argument("--reps", type=int, default=None)
    p.add_argument("--fp32-compute", default="auto", choices=["auto", "float64", "float32"])
    p.add_argument(
        "--keep-freed-memory",
        action="store_true",
        help="CPU: glibc keeps freed blocks (mallopt) so outputs are not page-faulted in on every call",
    )
    p.add_argument("--accuracy", action="store_true", help="ULP table instead of timings")
    args = p.parse_args(argv)
    gpu = args.device == "cuda"
    args.dtype = args.dtype or ("bfloat16" if gpu else "float32")
    args.tokens = args.tokens or (8192 if gpu else 1024)
    args.dff = args.dff or (8192 if gpu else 4096)
    args.gated_tokens = args.gated_tokens or (16384 if gpu else 1024)
    args.gated_dff = args.gated_dff or (14336 if gpu else 4096)
    args.reps = args.reps or (20 if gpu else 5)
    return args


def main(argv=None) -> int:
    args = parse(argv)
    return accuracy(args) if args.accuracy else benchmark(args)


if __name__ == "__main__":
    raise SystemExit(main())
