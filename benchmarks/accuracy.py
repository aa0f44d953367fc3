"""Reference cache for nonlin.accuracy: build and load times, and the speed-up of the interval fast path.

    python benchmarks/accuracy.py                       # whole catalog, every dtype, 2 processes, fresh cache
    python benchmarks/accuracy.py --entries gelu silu --dtypes bfloat16
    python benchmarks/accuracy.py --table A.json B.json  # side-by-side max-ULP table from two `nonlin check` JSONs

Prints the wall time to build the cache for the chosen entries (multiprocessing), the time to load it back,
and for a few entries the time per element of the reference: plain mpmath (the baseline, measured here on
a small sample) vs the rigorous interval path with mpmath fallback (Ziv), with their ratio.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import tempfile
import time
from pathlib import Path

import mpmath
import numpy as np

import nonlin
from nonlin.accuracy import get_format
from nonlin.accuracy.check import reference
from nonlin.accuracy.reference import body_of, evaluate, round_mpfs
from nonlin.ops import MPMATH


def _build(job):
    name, dtype, size, cache = job
    s = nonlin.spec(name)
    t = time.perf_counter()
    _, _, info = reference(s, s.resolve_params({}), get_format(dtype), size, True, cache)
    return name, dtype, time.perf_counter() - t, info.get("fallback", 0), info.get("evaluations", 0)


def _load(name, dtype, size, cache):
    s = nonlin.spec(name)
    t = time.perf_counter()
    _, _, info = reference(s, s.resolve_params({}), get_format(dtype), size, True, cache)
    assert info["source"] == "cache"
    return time.perf_counter() - t


def _baseline(name: str, n: int) -> tuple[float, float]:
    """Seconds per element: plain mpmath at 50 digits vs the fast path, on the same float32 inputs."""
    s = nonlin.spec(name)
    p = s.resolve_params({})
    fmt = get_format("float32")
    rng = np.random.default_rng(0)
    x = fmt.round(rng.standard_normal(n) * np.exp2(rng.integers(-20, 8, n)))
    body = body_of(s, False)
    t = time.perf_counter()
    with mpmath.workdps(50):
        ys = [body(MPMATH, mpmath.mpf(float(v)), **p) for v in x]
    round_mpfs(ys, fmt)
    slow = (time.perf_counter() - t) / n
    big = fmt.round(rng.standard_normal(100 * n) * np.exp2(rng.integers(-20, 8, 100 * n)))
    t = time.perf_counter()
    evaluate(s, p, [big], fmt, False)
    fast = (time.perf_counter() - t) / big.size
    return slow, fast


def table(paths: list[str]) -> str:
    """Markdown: one row per entry, max ULP forward/backward per dtype, one column group per JSON."""
    data = [json.loads(Path(p).read_text()) for p in paths]
    impls = [d["reports"][0]["impl"] if d["reports"] else Path(p).stem for d, p in zip(data, paths, strict=True)]
    by = [{r["name"]: r for r in d["reports"]} for d in data]
    names = [n for n in nonlin.names() if any(n in b for b in by)]
    dtypes = ["float32", "bfloat16", "float16"]

    def cell(rep, d):
        if rep is None or d not in rep["results"]:
            return "-"
        res = rep["results"][d]
        f = res.get("forward", {}).get("max_ulp")
        b = [v["max_ulp"] for k, v in res.items() if k != "forward" and "max_ulp" in v]
        nf = sum(sum(v.get("nonfinite", {}).values()) for v in res.values() if "nonfinite" in v)
        text = f"{_u(f)} / {_u(max(b)) if b else '-'}"
        return text + (f" ({nf} nf)" if nf else "")

    head = "| entry | " + " | ".join(f"{i} {d}" for d in dtypes for i in impls) + " |"
    sep = "|---|" + "---|" * (len(dtypes) * len(impls))
    rows = [head, sep]
    for n in names:
        rows.append(f"| {n} | " + " | ".join(cell(b.get(n), d) for d in dtypes for b in by) + " |")
    return "\n".join(rows)


def _u(v):
    if v is None:
        return "-"
    return "inf" if v == float("inf") else (f"{v:.3g}" if v < 1e4 else f"{v:.1e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", nargs="*", default=None)
    ap.add_argument("--dtypes", nargs="*", default=["float32", "bfloat16", "float16"])
    ap.add_argument("--size", type=int, default=None, help="float32 sample size (default 2^20 + edges)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", default=None, help="cache folder (default: a fresh temporary one)")
    ap.add_argument("--baseline-n", type=int, default=300)
    ap.add_argument("--table", nargs="*", default=None, help="print the side-by-side table of these JSON files")
    args = ap.parse_args()
    if args.table:
        print(table(args.table))
        return
    names = args.entries or [n for n in nonlin.names() if nonlin.spec(n).kind.value not in ("normalizer", "setwise")]
    cache = Path(args.cache or tempfile.mkdtemp(prefix="nonlin-accuracy-"))
    jobs = [(n, d, args.size, cache) for n in names for d in args.dtypes]
    t0 = time.perf_counter()
    with mp.get_context("fork").Pool(args.jobs) as pool:
        built = list(pool.imap_unordered(_build, jobs))
    wall = time.perf_counter() - t0
    per = [b[2] for b in built]
    print(f"build: {len(jobs)} references ({len(names)} entries x {len(args.dtypes)} dtypes), {args.jobs} processes")
    print(f"  wall {wall:.1f} s; per reference median {statistics.median(per):.2f} s, max {max(per):.1f} s")
    ev = sum(b[4] for b in built)
    fb = sum(b[3] for b in built)
    print(f"  {ev:,} evaluations, {fb:,} by the mpmath fallback ({100 * fb / max(ev, 1):.3f}%)")
    for n, d, t, f, e in sorted(built, key=lambda b: -b[2])[:5]:
        print(f"  slowest: {n} {d} {t:.1f} s ({f} fallbacks of {e})")
    loads = [_load(n, d, args.size, cache) for n, d, _, _ in jobs]
    print(f"load: total {sum(loads):.1f} s, per reference median {statistics.median(loads):.3f} s")
    size = sum(p.stat().st_size for p in cache.glob("*.npz"))
    print(f"cache: {cache} ({size / 2**20:.0f} MiB)")
    for n in ("gelu", "silu", "mish"):
        slow, fast = _baseline(n, args.baseline_n)
        print(
            f"reference {n} float32: mpmath {1e6 * slow:.0f} us/elt (baseline), fast path {1e6 * fast:.2f} us/elt, "
            f"ratio {slow / fast:.0f}x"
        )


if __name__ == "__main__":
    main()
