"""Shifted ReLU versus its clipped version: sparsity at init and the stability of the variance map
(Price et al., arXiv:2402.16184).

    python examples/theory_sparse_relu.py [--tau 1.0] [--out nonlin-out/examples]

On the edge of chaos (chi_1 = 1 with q* = 1 a fixed point) the shifted ReLU's variance map touches the
diagonal with slope V'(q*) = 1: the fixed point is only marginally stable, and a finite network's variance
drifts away from it layer after layer. Clipping the output at m (theory.clip_level) bends the map below the
diagonal for q > q*, V'(q*) < 1, and the variance stays put, at the same sparsity.
"""

import argparse
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch

import nonlin
from nonlin import theory


def simulate(name, sw, sb, width, depth, seed, **params) -> list[float]:
    f = nonlin.functional.function(name)
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(8, width, generator=g, dtype=torch.float64)  # q = 1 to start, like q*
    qs = []
    for _ in range(depth):
        w = torch.randn(width, width, generator=g, dtype=torch.float64) * sw / math.sqrt(width)
        h = f(h, **params) @ w + sb * torch.randn(width, generator=g, dtype=torch.float64)
        qs.append(float((h * h).mean()))
    return qs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tau", type=float, default=1.0)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=60)
    ap.add_argument("--out", default="nonlin-out/examples")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    tau = args.tau

    sw_s, sb_s = theory.eoc_init("shifted_relu", 1.0, tau=tau)
    cl = theory.clip_level("clipped_shifted_relu", tau=tau, q_star=1.0, max_slope=0.9)
    sp = theory.sparsity_at_init("shifted_relu", q=1.0, tau=tau)
    print(f"tau = {tau}: sparsity at init (q* = 1) P(phi = 0) = {sp.zero_fraction:.4f} for both units")
    fp_s = theory.fixed_point("shifted_relu", sw_s, sb_s, tau=tau)
    print(f"shifted_relu on the EoC: sigma_w = {sw_s:.6f}, sigma_b = {sb_s:.6f}, V'(q*) = {fp_s.slope_q:.6f}")
    print(
        f"clip level m = {cl.m:.6f}: sigma_w = {cl.sigma_w:.6f}, sigma_b = {cl.sigma_b:.6f}, V'(q*) = {cl.slope_q:.6f}"
    )

    q = np.linspace(0.01, 3.0, 300)
    v_s = theory.variance_map("shifted_relu", q, sigma_w=sw_s, sigma_b=sb_s, tau=tau)
    v_c = theory.variance_map("clipped_shifted_relu", q, sigma_w=cl.sigma_w, sigma_b=cl.sigma_b, tau=tau, m=cl.m)
    runs_s = [simulate("shifted_relu", sw_s, sb_s, args.width, args.depth, s, tau=tau) for s in range(4)]
    runs_c = [
        simulate("clipped_shifted_relu", cl.sigma_w, cl.sigma_b, args.width, args.depth, s, tau=tau, m=cl.m)
        for s in range(4)
    ]
    print("finite networks, q after", args.depth, "layers (4 seeds):")
    print("  shifted_relu        ", [f"{r[-1]:.3g}" for r in runs_s])
    print("  clipped_shifted_relu", [f"{r[-1]:.3g}" for r in runs_c])

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    a.plot(q, v_s - q, label=f"shifted relu τ={tau}")
    a.plot(q, v_c - q, label=f"clipped, m={cl.m:.3g}")
    a.axhline(0, color="k", lw=0.8)
    a.axvline(1.0, color="k", ls=":", lw=0.8)
    a.set(xlabel="q", ylabel="V(q) - q", title="variance maps on the edge of chaos (q* = 1)")
    a.legend()
    for r in runs_s:
        b.semilogy(range(1, args.depth + 1), r, color="C0", alpha=0.7)
    for r in runs_c:
        b.semilogy(range(1, args.depth + 1), r, color="C1", alpha=0.7)
    b.plot([], [], color="C0", label="shifted relu")
    b.plot([], [], color="C1", label="clipped")
    b.set(xlabel="layer", ylabel="pre-activation variance", title=f"random nets, width {args.width}")
    b.legend()
    fig.tight_layout()
    path = out / "sparse_relu_stability.png"
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
