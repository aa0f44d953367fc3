"""The order-to-chaos phase diagram of tanh networks (Poole et al. 2016, Schoenholz et al. 2017).

    python examples/theory_tanh_phase_diagram.py [--out nonlin-out/examples]

Left: log chi_1 over (sigma_w^2, sigma_b^2) with the critical line chi_1 = 1 (blue ordered: nearby inputs
merge; red chaotic: they decorrelate). Right: the correlation depth scale xi_c, which diverges on the line.
Checks on the way: the critical point at sigma_b = 0 is sigma_w = 1, and a finite random network agrees
with the correlation map.
"""

import argparse
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch

from nonlin import theory
from nonlin.theory.cli import phase_grid


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="nonlin-out/examples")
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)

    print(f"critical sigma_w at sigma_b = 0: {theory.edge_of_chaos('tanh', 0.0):.12f} (theory: 1)")
    for sb in (0.05, 0.1, 0.3):
        print(f"critical sigma_w at sigma_b = {sb}: {theory.edge_of_chaos('tanh', sb):.10f}")

    sw2 = np.linspace(0.2, 4.0, 77)
    sb2 = np.linspace(0.0, 0.25, 51)
    chi = phase_grid("tanh", sw2, sb2)
    line = theory.critical_line("tanh", q_star=np.logspace(-4, 1.2, 300))
    keep = line["sigma_b"] ** 2 <= sb2[-1]

    # Depth scale of correlations along sigma_b^2 = 0.05, both phases.
    sws = np.sqrt(np.linspace(0.3, 4.0, 25))
    xi_c = [theory.fixed_point("tanh", float(sw), math.sqrt(0.05)).xi_c for sw in sws]
    crit = theory.edge_of_chaos("tanh", math.sqrt(0.05))

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    im = a.pcolormesh(sw2, sb2, np.log(chi), cmap="RdBu_r", vmin=-0.5, vmax=0.5, shading="auto")
    # The grid's own chi_1 = 1 contour (white, dashed) lies on the critical line (black): two computations.
    a.contour(sw2, sb2, np.log(chi), levels=[0.0], colors="w", linestyles="--", linewidths=1)
    fig.colorbar(im, ax=a, label="log χ1")
    a.plot(line["sigma_w"][keep] ** 2, line["sigma_b"][keep] ** 2, "k-", lw=2, label="χ1 = 1")
    a.set(xlabel="σw²", ylabel="σb²", title="tanh: ordered (blue) / chaotic (red)")
    a.legend(loc="upper left")
    b.semilogy(sws**2, xi_c, "o-")
    b.axvline(crit**2, color="k", ls=":", label=f"critical σw² = {crit**2:.3f}")
    b.set(xlabel="σw²", ylabel="ξ_c (layers)", title="correlation depth scale at σb² = 0.05")
    b.legend()
    fig.tight_layout()
    path = out / "tanh_phase_diagram.png"
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")

    # A finite network in the chaotic phase: two inputs at c = 0.9 decorrelate to c* as the map says.
    sw, sb, width, depth = 2.0, math.sqrt(0.05), 2000, 12
    fp = theory.fixed_point("tanh", sw, sb)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, width, generator=g, dtype=torch.float64)
    x[1] = 0.9 * x[0] + math.sqrt(1 - 0.81) * x[1]
    x = x / x.norm(dim=1, keepdim=True) * math.sqrt(fp.q_star * width)
    h = x
    c_net, c_map = [], 0.9
    for _ in range(depth):
        w = torch.randn(width, width, generator=g, dtype=torch.float64) * sw / math.sqrt(width)
        h = torch.tanh(h) @ w + sb * torch.randn(width, generator=g, dtype=torch.float64)
        c_net.append(float((h[0] @ h[1]) / (h[0].norm() * h[1].norm())))
        c_map = theory.correlation_map("tanh", c_map, q_star=fp.q_star, sigma_w=sw, sigma_b=sb)
    print(
        f"chaotic phase sigma_w={sw}: c* = {fp.c_star:.4f}, network after {depth} layers c = {c_net[-1]:.4f}, "
        f"map c = {c_map:.4f}"
    )


if __name__ == "__main__":
    main()
