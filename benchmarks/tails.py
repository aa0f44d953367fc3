"""The hand-written float32 kernels (nonlin.kernels.native32) on inputs from their tails, against torch's own op.

    python benchmarks/tails.py                               # every kernel, the default values
    python benchmarks/tails.py --entries gelu laplace --values -20 -3 0.5 100

An x86 core takes a microcode assist (~150 cycles) for each vector operation that forms or reads a subnormal
float. A kernel that formed subnormals it did not return (a tail's e^-a, a scale that underflows in a lane whose
result a blend decides) ran up to 10x slower on such inputs; one whose result is itself a subnormal pays one
assist per vector. Each row times nonlin's default path and torch's op (spec.torch_equivalent, or the textbook
formula in torch ops: benchmarks/kernels.py's `textbook`) on a tensor filled with one value, forward and forward+backward (median ns per element of
interleaved rounds, one thread), and prints their ratio; rows marked "subnormal" are values whose result or
gradient is a subnormal float32, where both pay the assist.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from kernels import textbook  # (benchmarks/kernels.py: what a user runs instead)

import nonlin
import nonlin.functional as F
from nonlin import route
from nonlin.kernels import native32

DEFAULT_VALUES = (-300.0, -90.0, -20.0, -3.0, 0.5, 14.0, 100.0, 1e30)


def _time(fn, reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def _subnormal(t: torch.Tensor) -> bool:
    a = t.abs()
    return bool(((a > 0) & (a < torch.finfo(torch.float32).tiny)).any())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--entries", nargs="*", help="native32 kernels (default: every pointwise one)")
    p.add_argument("--values", nargs="*", type=float, default=list(DEFAULT_VALUES))
    p.add_argument("--numel", type=int, default=1 << 20)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    torch.set_num_threads(1)
    if not native32.available():
        print("the native32 kernels do not run here (no C++ compiler, or no AVX2 / AVX-512): nothing to measure")
        return
    entries = args.entries or sorted(native32.PRIMITIVES)
    n = args.numel
    print(f"ns per element, {n} float32 elements of one value, one thread, medians of {args.rounds} rounds")
    print(f"{'entry':13s} {'x':>9s} {'pass':8s} {'nonlin':>8s} {'torch':>8s} {'ratio':>6s}")
    for name in entries:
        f, ref = F.function(name), textbook(nonlin.spec(name))
        for v in args.values:
            times, flag = _case(f, ref, torch.full((n,), v), args.rounds)
            for pass_ in ("fwd", "fwd+bwd"):
                a, b = times[(pass_, "nonlin")], times[(pass_, "torch")]
                print(f"{name:13s} {v:9.3g} {pass_:8s} {a:8.2f} {b:8.2f} {a / b:6.2f}{flag}", flush=True)


def _case(f, ref, x: torch.Tensor, rounds: int) -> tuple[dict[tuple[str, str], float], str]:
    """Median ns per element of each (pass, implementation) on x, and whether nonlin's result or gradient holds a
    subnormal."""
    n = x.numel()
    xg = x.clone().requires_grad_()
    go = torch.ones(n)

    def fb(fn):
        xg.grad = None
        fn(xg).backward(go)

    jobs = {
        ("fwd", "nonlin"): lambda: f(x),
        ("fwd", "torch"): lambda: ref(x),
        ("fwd+bwd", "nonlin"): lambda: fb(f),
        ("fwd+bwd", "torch"): lambda: fb(ref),
    }
    for job in jobs.values():  # warm-up: kernels compiled, the route settled (route.WARM_CALLS)
        for _ in range(route.WARM_CALLS + 1):
            job()
    times: dict[tuple[str, str], list[float]] = {k: [] for k in jobs}
    for _ in range(rounds):
        for k, job in jobs.items():
            times[k].append(_time(job, 3) / n * 1e9)
    y = f(xg)
    y.backward(go)
    flag = "  subnormal" if _subnormal(y.detach()) or _subnormal(xg.grad) else ""
    return {k: statistics.median(t) for k, t in times.items()}, flag


if __name__ == "__main__":
    main()
