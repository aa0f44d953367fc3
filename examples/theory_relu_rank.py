"""The expected rank of deep ReLU feature matrices versus the law E[rank]/m = 1 - (1 - 2/pi)^l
(Makwana, arXiv:2507.07675).

    python examples/theory_relu_rank.py [--m 128] [--depth 8] [--draws 5]

Setup measured here: a batch of m Gaussian inputs, ReLU layers of width n = m with He-initialised Gaussian
weights and no bias; rank(H_l) of the m x n activation matrix after layer l, averaged over draws, next to the
law. The paper's exact setup was not available to confirm; this script prints what this setup gives (see
docs/theory.md for the result and its reading).
"""

import argparse
import math

import torch


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", type=int, default=128)
    ap.add_argument("--width", type=int, default=None, help="layer width n (default m)")
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--draws", type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(1)
    m, n = args.m, args.width or args.m
    g = torch.Generator().manual_seed(0)
    ranks = torch.zeros(args.depth, dtype=torch.float64)
    for _ in range(args.draws):
        h = torch.randn(m, m, generator=g, dtype=torch.float64)
        for layer in range(args.depth):
            w = torch.randn(h.shape[1], n, generator=g, dtype=torch.float64) * math.sqrt(2.0 / h.shape[1])
            h = torch.relu(h @ w)
            ranks[layer] += torch.linalg.matrix_rank(h).item() / m
    ranks /= args.draws
    print(f"m = {m}, width = {n}, {args.draws} draws")
    print(" layer   E[rank]/m measured   1 - (1 - 2/pi)^l")
    for layer in range(args.depth):
        law = 1 - (1 - 2 / math.pi) ** (layer + 1)
        print(f"  {layer + 1:4d}   {ranks[layer]:18.4f}   {law:16.4f}")


if __name__ == "__main__":
    main()
