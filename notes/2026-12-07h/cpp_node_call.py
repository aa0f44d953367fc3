"""What a settled float32 training call (forward, then backward of a gradient of ones) costs: torch's op, and
nonlin's default with its C++ autograd node (`cpp_ops.training_op`) and with the Python autograd.Function
(`cpp_ops.set_enabled(False)`), interleaved rounds in one process, one thread; medians (µs) and ratios to torch.

    PYTHONPATH=src python notes/2026-12-07h/cpp_node_call.py [--shape 64x512] silu sigmoid gelu hardswish
"""

import argparse
import statistics
import time

import torch
import torch.nn.functional as TF

import nonlin.functional as NF
from nonlin.kernels import cpp_ops

TORCH = {"silu": TF.silu, "sigmoid": torch.sigmoid, "gelu": TF.gelu, "hardswish": TF.hardswish, "mish": TF.mish,
         "elu": TF.elu, "selu": TF.selu, "softplus": TF.softplus, "tanh": torch.tanh}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*", default=["silu", "sigmoid", "gelu", "hardswish"])
    ap.add_argument("--shape", default="64x512")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    torch.set_num_threads(1)
    assert cpp_ops._load() is not None, "the C++ library did not build"
    shape = tuple(int(s) for s in args.shape.split("x"))
    x = torch.randn(shape, requires_grad=True)
    ones = torch.ones(shape)
    for name in args.names:
        nl = getattr(NF, name)
        kinds = {"torch": (TORCH[name], True), "nonlin, C++ node": (nl, True), "nonlin, Python Function": (nl, False)}
        times: dict[str, list[float]] = {k: [] for k in kinds}
        nodes = {}
        for r in range(args.rounds + 1):
            for k, (f, cpp) in kinds.items():
                cpp_ops.set_enabled(cpp)
                for _ in range(40):  # (settle the route again after set_enabled forgot it)
                    f(x).backward(ones)
                nodes[k] = f(x).grad_fn.name()
                t0 = time.perf_counter()
                for _ in range(args.calls):
                    f(x).backward(ones)
                if r:  # (round 0 warms)
                    times[k].append((time.perf_counter() - t0) / args.calls * 1e6)
        cpp_ops.set_enabled(True)
        m = {k: statistics.median(v) for k, v in times.items()}
        print(f"{name} {args.shape}: " + ", ".join(f"{k} {v:.1f} µs ({v / m['torch']:.2f})" for k, v in m.items()))
        print("   grad_fn: " + ", ".join(f"{k}: {v}" for k, v in nodes.items()))


if __name__ == "__main__":
    main()
