"""Theory speed and accuracy: NNGP/NTK for n = 1000 inputs, depth 10; fixed points and the critical line.

    python benchmarks/theory.py [--n 1000] [--depth 10] [--repeats 3] [--threads 1] [--names all]

Each entry runs at its own variance-preserving init, sigma_w = theory.init_gain(name) (sqrt 2 for relu),
sigma_b = 0, on inputs scaled so that every pre-activation variance is 1 (the point init_gain preserves):
a fixed sigma_w = sqrt 2 would send, for example, swiglu's variance to 1e241 by depth 10, and any
sigma_b > 0 moves gated units (q -> q^2 maps) off their unstable fixed point to overflow.

Prints medians over repeats. Baselines measured in the same run:
- the relu arc-cosine closed form (the fastest possible kernel for relu; also the accuracy reference),
- a naive tensor Gauss-Hermite rule for E[phi(u1) phi(u2)] (conditional form u2 = c u1 + sqrt(1-c^2) w,
  64 x 64 nodes), the usual numerical fallback (as in neural-tangents' numerical kernel), for accuracy
  near c = 1 and time;
- neural-tangents (JAX; not a dependency) with `--nt-python PATH`: the Python of an environment that has
  it, e.g. `python -m venv ntenv && ntenv/bin/pip install neural-tangents==0.6.5 "jax[cpu]==0.4.30"
  jaxlib==0.4.30 tf2jax==0.3.6` (newer jax breaks neural-tangents 0.6.5). Its closed-form kernels (Relu,
  Erf, Gelu) and its numerical kernel (ElementwiseNumerical, 25-point Gauss-Hermite) for relu and tanh run
  there (benchmarks/theory_nt_worker.py) on the same inputs; errors are against the relu closed form and
  against nonlin, times are medians of three jitted calls.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from rich.progress import track

import nonlin
from nonlin import theory


def _median_time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def relu_closed(X: torch.Tensor, depth: int, sw: float, sb: float) -> tuple[torch.Tensor, torch.Tensor]:
    K = sw**2 * X @ X.T / X.shape[1] + sb**2
    Th = K.clone()
    for _ in range(depth):
        q = torch.diagonal(K)
        n = torch.sqrt(q[:, None] * q[None, :])
        c = torch.where((q[:, None] == K) & (q[:, None] == q[None, :]), 1.0, K / n).clamp(-1, 1)
        th = torch.arccos(c)
        Kn = sw**2 * n * (torch.sin(th) + (math.pi - th) * torch.cos(th)) / (2 * math.pi) + sb**2
        Th = Kn + sw**2 * (math.pi - th) / (2 * math.pi) * Th
        K = Kn
    return K, Th


def naive_gauss_hermite(phi, q: float, c: torch.Tensor, n: int = 64) -> torch.Tensor:
    """E[phi(u1) phi(u2)] by tensor Gauss-Hermite in the conditional form (no breakpoint handling)."""
    x, w = np.polynomial.hermite_e.hermegauss(n)
    x = torch.tensor(x, dtype=torch.float64)
    w = torch.tensor(w / math.sqrt(2 * math.pi), dtype=torch.float64)
    z1, z2 = x[:, None], x[None, :]
    W = w[:, None] * w[None, :]
    s = math.sqrt(q)
    out = []
    for ci in c.tolist():
        u1 = s * z1
        u2 = s * (ci * z1 + math.sqrt(max(1 - ci * ci, 0.0)) * z2)
        out.append((phi(u1) * phi(u2) * W).sum())
    return torch.stack(out)


def rel_err(a: torch.Tensor, b: torch.Tensor) -> float:
    scale = torch.sqrt(torch.diagonal(b)[:, None] * torch.diagonal(b)[None, :])
    return float(((a - b).abs() / scale).max())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--d", type=int, default=32)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a shared machine)")
    ap.add_argument(
        "--names",
        nargs="*",
        default=["relu", "tanh", "gelu", "shifted_relu", "hardtanh", "elu", "sin", "swiglu"],
        help="entries to time ('all': every pointwise and gated entry)",
    )
    ap.add_argument("--no-raw", action="store_true", help="skip the raw-input (many distinct variances) run")
    ap.add_argument("--nt-python", default=None, help="Python of an environment with neural-tangents (optional)")
    ap.add_argument("--nt-n", type=int, default=200, help="inputs for the neural-tangents comparison")
    args = ap.parse_args()
    if args.names == ["all"]:
        args.names = [n for n in nonlin.names() if nonlin.spec(n).kind.value in ("pointwise", "gated")]
    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(0)
    X = torch.randn(args.n, args.d, generator=g, dtype=torch.float64)
    sphere = X / X.norm(dim=1, keepdim=True) * math.sqrt(args.d)
    sw, sb = math.sqrt(2.0), 0.1
    print(f"n={args.n} d={args.d} depth={args.depth} threads={args.threads} repeats={args.repeats}")

    base_t, _ = _median_time(lambda: relu_closed(sphere, args.depth, sw, sb), args.repeats)
    print(f"\nbaseline relu arc-cosine closed form (NNGP+NTK): {base_t * 1e3:.1f} ms")
    print("\nNNGP+NTK, inputs of equal norm (one variance per layer), sigma_w = init_gain(name), sigma_b = 0, q_0 = 1")
    for name in track(args.names, description="entries", transient=True, disable=not sys.stdout.isatty()):
        try:
            gain = theory.init_gain(name)
        except ValueError as e:  # kappa_swiglu (an extra input): out of theory's scope, says why
            print(f"  {name:22s} not covered: {e}")
            continue
        unit_q = sphere / gain
        t, k = _median_time(
            lambda name=name, gain=gain, unit_q=unit_q: theory.kernels(name, unit_q, args.depth, gain, 0.0),
            args.repeats,
        )
        q_last = float(k.nngp[0, 0])
        line = (
            f"  {name:22s} {t:8.2f} s   ({t / base_t:6.1f} x closed-form relu)  sigma_w {gain:.3f}, q_10 {q_last:.3g}"
        )
        if name == "relu":
            Kg, Thg = relu_closed(unit_q, args.depth, gain, 0.0)
            line += f"   max rel. error NNGP {rel_err(k.nngp, Kg):.1e}, NTK {rel_err(k.ntk, Thg):.1e}"
        print(line)
    print("\nNNGP+NTK, raw Gaussian inputs (many distinct variances: Chebyshev in log q as well)")
    Kr, Thr = relu_closed(X, args.depth, sw, sb)
    for name in () if args.no_raw else ("relu", "tanh"):
        t, k = _median_time(lambda name=name: theory.kernels(name, X, args.depth, sw, sb), 1)
        line = f"  {name:14s} {t:8.2f} s"
        if name == "relu":
            line += f"   max rel. error NNGP {rel_err(k.nngp, Kr):.1e}, NTK {rel_err(k.ntk, Thr):.1e}"
        print(line)

    print("\nnaive tensor Gauss-Hermite (64 x 64, conditional form) vs nonlin's rule, relu at q = 1")
    c = torch.tensor([0.0, 0.9, 0.99, 1 - 1e-4, 1 - 1e-8], dtype=torch.float64)
    th = torch.arccos(c)
    exact = (torch.sin(th) + (math.pi - th) * torch.cos(th)) / (2 * math.pi)
    relu = lambda u: u.clamp_min(0)
    t_gh, gh = _median_time(lambda: naive_gauss_hermite(relu, 1.0, c), args.repeats)
    t_nl, nl = _median_time(lambda: theory.covariance_map("relu", 1.0, 1.0, c), args.repeats)
    for ci, e1, e2 in zip(
        c.tolist(), ((gh - exact).abs() / exact).tolist(), ((nl - exact).abs() / exact).tolist(), strict=True
    ):
        print(f"  c = {ci:.10f}: naive rel. error {e1:.1e}   nonlin {e2:.1e}")
    print(f"  time for 5 points: naive {t_gh * 1e3:.1f} ms, nonlin {t_nl * 1e3:.1f} ms")

    print("\nfixed points and the critical line")
    t, _ = _median_time(lambda: theory.fixed_point("tanh", 0.9, 0.05), args.repeats)
    print(f"  fixed_point tanh (ordered phase)     {t * 1e3:8.1f} ms per point")
    t, _ = _median_time(lambda: theory.fixed_point("tanh", 1.5, 0.05), args.repeats)
    print(f"  fixed_point tanh (chaotic: also c*)  {t * 1e3:8.1f} ms per point")
    t, _ = _median_time(lambda: theory.edge_of_chaos("tanh", 0.1), args.repeats)
    print(f"  edge_of_chaos tanh at one sigma_b    {t * 1e3:8.1f} ms")
    t, line = _median_time(lambda: theory.critical_line("gelu"), args.repeats)
    print(f"  critical_line gelu, {len(line['q_star'])} points       {t * 1e3 / len(line['q_star']):8.2f} ms per point")

    if args.nt_python:
        compare_neural_tangents(args.nt_python, sphere[: args.nt_n], args.depth, sw, sb)
    else:
        print("\nneural-tangents not compared (JAX, not a dependency): pass --nt-python PATH (see the header).")


def compare_neural_tangents(python: str, X: torch.Tensor, depth: int, sw: float, sb: float) -> None:
    worker = Path(__file__).with_name("theory_nt_worker.py")
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = Path(tmp) / "in.npz", Path(tmp) / "out.npz"
        np.savez(inp, X=X.numpy(), depth=depth, sigma_w=sw, sigma_b=sb)
        subprocess.run([python, str(worker), str(inp), str(out)], check=True, capture_output=True)
        nt = dict(np.load(out))
    print(
        f"\nneural-tangents vs nonlin, n = {X.shape[0]}, depth {depth}, NNGP+NTK (max relative error to sqrt(K_ii K_jj))"
    )
    Kc, Thc = relu_closed(X, depth, sw, sb)
    for name, nt_case, closed in (
        ("relu", "relu_closed", True),
        ("relu", "relu_numerical", True),
        ("erf", "erf_closed", False),
        ("gelu", "gelu_closed", False),
        ("tanh", "tanh_numerical", False),
    ):
        t, k = _median_time(lambda name=name: theory.kernels(name, X, depth, sw, sb), 3)
        nngp, ntk = torch.from_numpy(nt[f"{nt_case}_nngp"]), torch.from_numpy(nt[f"{nt_case}_ntk"])
        line = f"  {nt_case:16s} nt {nt[f'{nt_case}_time'] * 1e3:9.1f} ms   nonlin {name} {t * 1e3:8.1f} ms"
        if closed:
            line += (
                f"   vs closed form: nt {rel_err(nngp, Kc):.1e} / {rel_err(ntk, Thc):.1e},"
                f" nonlin {rel_err(k.nngp, Kc):.1e} / {rel_err(k.ntk, Thc):.1e}"
            )
        else:
            line += f"   nt vs nonlin: {rel_err(nngp, k.nngp):.1e} / {rel_err(ntk, k.ntk):.1e}"
        print(line)


if __name__ == "__main__":
    main()
