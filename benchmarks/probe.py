"""Overhead of probe.watch on a small transformer: forward time with the standard metrics vs without.

    python benchmarks/probe.py [--batch 8] [--seq 128] [--reps 15] [--threads N]

Model: a BERT encoder with all-MiniLM-L6-v2's shape (6 layers, hidden 384, 12 heads, GELU MLP 1536) and
random weights, built from its config (needs transformers; without it, nonlin's TinyTransformer at the
same width). Each repetition times a plain forward and a watched forward back to back, in alternating order
(no_grad, eval), so both see the same machine load; the script prints the medians, their ratio and
the median of the per-pair ratios (the figure it judges by), per metric set, and the same for the
process's CPU time. On a shared, loaded machine use --threads 1: with more threads than free cores
every op waits for descheduled threads, and with one thread the CPU-time ratio is free of the time the
process spends waiting for a core.
Target (issue #6): standard metrics add at most 30% to the forward time.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from rich.console import Console
from rich.table import Table

from nonlin import probe


def build(batch: int, seq: int):
    try:
        import transformers
    except ImportError:
        torch.manual_seed(0)
        model = probe.TinyTransformer(d_model=384, n_heads=12, n_layers=6, d_ff=1536, max_len=max(seq, 128))
        return "TinyTransformer (384 x 6, gelu)", model.eval(), (torch.randint(0, 256, (batch, seq)),)
    cfg = transformers.BertConfig(
        vocab_size=30522,
        hidden_size=384,
        num_hidden_layers=6,
        num_attention_heads=12,
        intermediate_size=1536,
        hidden_act="gelu",
    )
    torch.manual_seed(0)
    model = transformers.BertModel(cfg).eval()
    return "BERT, MiniLM-L6 shape (384 x 6, gelu)", model, (torch.randint(0, 30522, (batch, seq)),)


def timed(model, inputs) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one forward."""
    t0, c0 = time.perf_counter(), time.process_time()
    model(*inputs)
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    name, model, inputs = build(args.batch, args.seq)
    configs = {
        "standard (sparsity, dead, massive, stats)": ("sparsity", "dead", "massive", "stats"),
        "sparsity": ("sparsity",),
        "dead": ("dead",),
        "massive": ("massive",),
        "stats": ("stats",),
    }
    console = Console()
    console.print(
        f"{name}; input (batch {args.batch}, seq {args.seq}); torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads; {args.reps} repetitions"
    )
    rows = []
    with torch.no_grad():
        for _ in range(3):  # warm-up
            timed(model, inputs)
        for label, metrics in configs.items():
            plain, watched = [], []
            w = probe.watch(model, metrics)
            for rep in range(args.reps):
                # alternate the order within each pair so that a load change hits both sides alike
                for side in ("plain", "watched") if rep % 2 == 0 else ("watched", "plain"):
                    if side == "plain":
                        plain.append(timed(model, inputs))
                    else:
                        with w:
                            watched.append(timed(model, inputs))
            w.results()  # the one host read-back, outside the timed region as in real use
            p, q = statistics.median(t[0] for t in plain), statistics.median(t[0] for t in watched)
            paired = statistics.median(b[0] / a[0] - 1 for a, b in zip(plain, watched, strict=True))
            cpu = statistics.median(b[1] / a[1] - 1 for a, b in zip(plain, watched, strict=True))
            rows.append((label, p, q, q / p - 1, paired, cpu))
            console.print(
                f"  {label}: plain {1e3 * p:.1f} ms, watched {1e3 * q:.1f} ms, overhead {100 * paired:+.1f}% "
                f"(CPU time {100 * cpu:+.1f}%)"
            )
    table = Table(title="probe.watch overhead (median forward time)")
    for c in ("metrics", "plain ms", "watched ms", "wall: ratio of medians", "wall: paired", "CPU time: paired"):
        table.add_column(c)
    for label, p, q, o, pr, cpu in rows:
        table.add_row(
            label, f"{1e3 * p:.1f}", f"{1e3 * q:.1f}", f"{100 * o:+.1f}%", f"{100 * pr:+.1f}%", f"{100 * cpu:+.1f}%"
        )
    console.print(table)
    std, std_cpu = rows[0][4], rows[0][5]
    console.print(
        f"standard metrics overhead: wall {100 * std:+.1f}%, CPU time {100 * std_cpu:+.1f}% (medians of paired "
        f"ratios; target <= 30%): {'OK' if std <= 0.30 else 'OVER'}"
    )


if __name__ == "__main__":
    main()
