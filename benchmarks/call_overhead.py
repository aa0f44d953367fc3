"""What each microsecond of a nonlin call is: the fused CPU path taken apart, stage by stage, against torch's op.

    python benchmarks/call_overhead.py                                  # gelu silu sigmoid leaky_relu, 64x512
    python benchmarks/call_overhead.py --entries gelu swiglu --shape 64x512 --dtypes float32 bfloat16

Each row times one way of computing the same call, from the bare compiled kernel up to what a user calls,
so the difference between consecutive rows is what that layer costs (median µs of interleaved rounds: every
row is timed once per round, in turn, so load drifts hit them alike):
- torch: torch's own op (or the entry's formula in torch ops where torch has none), the baseline;
- kernel: the compiled kernel alone (`nonlin.kernels.cpu.Direct`: inductor's compiled graph, called without
  dynamo) on the flat input;
- autograd.Function: + the `nonlin_fused` autograd.Function around it (reshapes, saving the inputs);
- dispatch: + `nonlin.kernels.dispatch.call` (the job lookup per entry, parameters and dtype);
- route: + `nonlin.route.run` under `use("fused")` (the route's choice made afresh each call);
- functional: + `nonlin.functional.NAME` (argument checks, parameters) under `use("fused")`;
- default: `nonlin.functional.NAME` as users call it: the table's route, settled after the first calls (the
  per-call cache of `nonlin.route.run`);
- dynamo: the generated function under torch.compile, as the fused path called it before (guards each call);
- custom op: `torch.ops.nonlin.pointwise`, the op torch.compile and torch.export see.
The pass "fwd" runs without autograd recording; "fwd+bwd" with x requiring grad and a backward of ones.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch

import nonlin
import nonlin.functional as F
from nonlin import route
from nonlin.kernels import cpu, dispatch, use
from nonlin.spec import Kind


def _time(fn: Callable[[], object], reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps * 1e6


def stages(name: str, dtype: torch.dtype, shape: tuple[int, ...], train: bool) -> dict[str, Callable[[], object]]:
    s = nonlin.spec(name)
    gated = s.kind is Kind.GATED
    if gated:
        shape = (*shape[:-1], 2 * shape[-1])
    x = torch.randn(shape, dtype=torch.float32).to(dtype).requires_grad_(train)
    params = s.resolve_params({})
    main = F.split_packed(name, x) if gated else (x,)
    job = dispatch.job_for(s, dtype, params)
    assert job is not None, f"{name}: no direct CPU job (tensor parameters, stochastic, compile off)"
    fn = F.function(name)
    if s.torch_equivalent is not None:
        ref = s.torch_equivalent
    else:  # the entry's formula in torch ops, in the input dtype
        from nonlin.ops import TORCH

        def ref(*t):
            return s.forward(TORCH, *t, **params)

    flat = x.detach().reshape(-1, x.shape[-1]) if gated else x.detach().reshape(-1)
    which = "fwd_packed" if gated else "fwd"
    kernel = cpu.direct(job.plan, job.fwd, which, (flat,))
    packed = gated
    dynamo = cpu.functions(job.plan, job.fwd, True)[which]
    ones = torch.ones(main[0].shape, dtype=dtype)

    def finish(y):
        if train:
            y.backward(ones)
        return y

    def fused_functional():
        with use("fused"):
            return finish(fn(x))

    out: dict[str, Callable[[], object]] = {
        "torch": lambda: finish(ref(*main)),
        "kernel": lambda: kernel(flat),
        "autograd.Function": lambda: finish(
            dispatch.nonlin_fused.apply(job, dispatch.GATE_VALUE if packed else dispatch.UNPACKED, x)
        ),
        "dispatch": lambda: finish(dispatch.call(s, s.forward, main, (), params)),
        "route": lambda: finish(_pinned_run(s, main, params)),
        "functional": fused_functional,
        "default": lambda: finish(fn(x)),
        "dynamo": lambda: dynamo(flat, None),
    }
    if not gated:
        fnames = ",".join(params)
        fvals = [float(v) for v in params.values()]
        out["custom op"] = lambda: finish(torch.ops.nonlin.pointwise(x, [], [], name, "plain", fnames, fvals, ""))
    if train:  # the kernel rows time the forward kernel only
        del out["kernel"], out["dynamo"]
    return out


def _pinned_run(s, main, params):
    with use("fused"):
        return route.run(s, s.forward, s.derivative, main, (), params)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", nargs="+", default=["gelu", "silu", "sigmoid", "leaky_relu"])
    ap.add_argument("--dtypes", nargs="+", default=["float32"])
    ap.add_argument("--shape", default="64x512", help="tokens x width (gated entries: width of each half)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=200, help="calls per timing")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--stat",
        default="median",
        choices=["median", "min"],
        help="over rounds; min estimates a layer's own cost on a machine other jobs load",
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    shape = tuple(int(v) for v in args.shape.split("x"))
    for name in args.entries:
        for dt in args.dtypes:
            dtype = getattr(torch, dt)
            for train in (False, True):
                fns = stages(name, dtype, shape, train)
                for f in fns.values():  # compile everything, and warm the default route up
                    for _ in range(route.WARM_CALLS + 2):
                        f()
                times: dict[str, list[float]] = {k: [] for k in fns}
                for _ in range(args.rounds):
                    for k, f in fns.items():
                        times[k].append(_time(f, args.reps))
                stat = statistics.median if args.stat == "median" else min
                med = {k: stat(v) for k, v in times.items()}
                with route.recording() as taken:
                    fns["default"]()
                base = med["torch"]
                print(f"\n{name} {dt} {args.shape} {'fwd+bwd' if train else 'fwd'} (default route: {taken[0][5]})")
                print(f"  {'stage':<18} {'µs (' + args.stat + ')':>13} {'+µs':>8} {'/torch':>7}")
                prev = None
                for k, v in med.items():
                    step = (
                        "" if prev is None or k in ("torch", "default", "dynamo", "custom op") else f"{v - prev:+8.1f}"
                    )
                    print(f"  {k:<18} {v:13.1f} {step:>8} {v / base:7.2f}")
                    if k not in ("torch", "default", "dynamo", "custom op"):
                        prev = v


if __name__ == "__main__":
    main()
