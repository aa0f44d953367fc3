"""The expected rank of deep ReLU feature matrices versus the law E[rank]/m = 1 - (1 - 2/pi)^l
(Makwana, arXiv:2507.07675).

    python examples/theory_relu_rank.py [--m 128] [--depth 8] [--draws 5] [--input-dims 1 2 4 16 128]

Setup: a batch of m Gaussian inputs of dimension d, ReLU layers of width n (default m) with He-initialised
Gaussian weights and no bias; rank(H_l) of the m x n activation matrix after layer l (numerical rank,
torch.linalg.matrix_rank's default tolerance), averaged over draws, next to the law. The paper's body was
not available (only its abstract, which defines the effective dimension as this rank), so the script
measures every input dimension d asked for: low-dimensional inputs are where a rank could "revive".

Why the law cannot hold for generic inputs (d >= m, n >= m) at l = 1: X W is then a Gaussian matrix with
a density, so conditioned on its sign pattern the positive entries are jointly continuous, and relu(X W)
is singular only if the pattern admits no perfect matching of rows to columns, which has probability
O(m 2^-m). Hence E[rank]/m = 1 - O(m 2^-m) after one layer, not 1 - (1 - 2/pi) = 0.637.
"""

import argparse
import math

import torch
from rich.progress import track


def ranks(m: int, d: int, width: int, depth: int, draws: int, g: torch.Generator) -> torch.Tensor:
    out = torch.zeros(depth, dtype=torch.float64)
    for _ in range(draws):
        h = torch.randn(m, d, generator=g, dtype=torch.float64)  # [m, d]
        for layer in range(depth):
            w = torch.randn(h.shape[1], width, generator=g, dtype=torch.float64) * math.sqrt(2.0 / h.shape[1])
            h = torch.relu(h @ w)  # [m, width]
            out[layer] += torch.linalg.matrix_rank(h).item() / m
    return out / draws


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=128)
    ap.add_argument("--width", type=int, default=None, help="layer width n (default m)")
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--input-dims", type=int, nargs="*", default=None, help="input dimensions d (default m)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    m, n = args.m, args.width or args.m
    dims = args.input_dims or [m]
    g = torch.Generator().manual_seed(0)
    table = {d: ranks(m, d, n, args.depth, args.draws, g) for d in track(dims, description="input dims")}
    print(f"m = {m}, width = {n}, {args.draws} draws; E[rank]/m after layer l")
    print(" layer   law 1-(1-2/pi)^l" + "".join(f"   d = {d:<5d}" for d in dims))
    for layer in range(args.depth):
        law = 1 - (1 - 2 / math.pi) ** (layer + 1)
        print(f"  {layer + 1:4d}   {law:16.4f}" + "".join(f"   {table[d][layer]:9.4f}" for d in dims))


if __name__ == "__main__":
    main()
