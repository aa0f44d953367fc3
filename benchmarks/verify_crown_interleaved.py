"""CROWN speed, nonlin against auto_LiRPA, interleaved in one process (the same models as benchmarks/verify.py).

    PYTHONPATH=src lirpa/bin/python benchmarks/verify_crown_interleaved.py [--reps 15] [--acts relu tanh ...]

Runs in an environment that has auto_LiRPA and sees nonlin (a venv made with --system-site-packages, and
PYTHONPATH=src for this checkout; see benchmarks/verify.py for installing auto_LiRPA 0.7.1). For each
activation it trains the digits MLP 64-64-64-10 as benchmarks/verify.py does, then alternates
`verify.margin_bounds(..., method="crown")` and auto_LiRPA's `compute_bounds(C=..., method="CROWN")` on the
first 20 test images at eps 0.01, `--reps` rounds. It prints medians of wall time and of thread CPU time
(less sensitive to other jobs on the machine) and their ratios, auto_LiRPA / nonlin: above 1 means nonlin is faster.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
warnings.filterwarnings("ignore")

import verify as bench  # noqa: E402  (benchmarks/verify.py: data, models, training)
from verify_lirpa_worker import build as lirpa_build  # noqa: E402

from nonlin import verify  # noqa: E402


def lirpa_crown(net, x, y, eps):
    from auto_LiRPA import BoundedModule, BoundedTensor, PerturbationLpNorm

    K = bench.SIZES[-1]
    eye = torch.eye(K)
    C = eye[y][:, None, :] - eye[None]
    keep = torch.ones(len(y), K, dtype=torch.bool)
    keep[torch.arange(len(y)), y] = False
    C = C[keep].reshape(len(y), K - 1, K)
    bm = BoundedModule(net, torch.zeros_like(x), device="cpu", verbose=0)
    bx = BoundedTensor(x, PerturbationLpNorm(norm=float("inf"), eps=eps))
    return lambda: bm.compute_bounds(x=(bx,), C=C, method="CROWN")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--eps", type=float, default=0.01)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--acts", nargs="*", default=["relu", "tanh", "sigmoid", "silu", "gelu"])
    args = ap.parse_args()
    torch.set_num_threads(1)
    Xtr, ytr, Xte, yte = bench.digits()
    x, y = Xte[: args.n].float(), yte[: args.n]
    print("| act | nonlin wall (cpu) | auto_LiRPA wall (cpu) | auto_LiRPA / nonlin wall (cpu) |")
    print("|---|---|---|---|")
    for act in args.acts:
        net = bench.train(act, Xtr, ytr).float()
        theirs = lirpa_build(act, bench.SIZES)
        theirs.load_state_dict(net.state_dict())
        theirs.eval()
        ours = lambda net=net: verify.margin_bounds(net, x, y, args.eps, "crown")
        try:
            lirpa = lirpa_crown(theirs, x, y, args.eps)
            lirpa()
        except Exception as err:  # auto_LiRPA refuses some activations (GELU: erf)
            lirpa, why = None, f"{type(err).__name__}"
        ours()
        wall = {"nonlin": [], "lirpa": []}
        cpu = {"nonlin": [], "lirpa": []}
        for _ in range(args.reps):
            for key, fn in (("nonlin", ours), ("lirpa", lirpa)):
                if fn is None:
                    continue
                t, c = time.perf_counter(), time.thread_time()
                fn()
                wall[key].append(time.perf_counter() - t)
                cpu[key].append(time.thread_time() - c)
        med = {k: (statistics.median(wall[k]) * 1e3, statistics.median(cpu[k]) * 1e3) for k in wall if wall[k]}
        n_w, n_c = med["nonlin"]
        if lirpa is None:
            print(f"| {act} | {n_w:.1f} ms ({n_c:.1f}) | {why} | - |")
        else:
            l_w, l_c = med["lirpa"]
            print(
                f"| {act} | {n_w:.1f} ms ({n_c:.1f}) | {l_w:.1f} ms ({l_c:.1f}) | {l_w / n_w:.2f} ({l_c / n_c:.2f}) |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
