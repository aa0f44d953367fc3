"""Experiment: silu float32 forward forms, ns per element (one thread, 32K in cache and 4M) and max ULP against
float64 on every 7th float32 bit pattern of |x| < 69 (the near form's range). Run from a checkout:
PYTHONPATH=src python notes/2026-12-06h/silu_variants.py"""

import statistics
import sys
import time

import torch

from nonlin.kernels import gather, mask_moves, native32

VARIANTS = {
    "silu_f": "",  # silu's forward kernel as built: silu_near below |x| = 69
    "silu_near": "",  # its form, unchecked (u rounded to float32)
    "sigmoid_f": "",
    # the form before this stop: u carried as uh + ul (quick_gelu's and gelu_tanh's form)
    "silu_carried": r"""
ALWAYS static inline VF silu_carried(VF x) { return silu_near_of(x, x, C(0.0f)); }
""",
    # x / (1 + e^-x) straight, numerator x u below 0: three roundings and u's error
    "silu_plain_div": r"""
ALWAYS static inline VF silu_plain_div(VF x) {
  VF uh, dh, dl;
  one_plus_rounded(x, uh, dh, dl);
  return blend(x, x * uh, x) / dh;
}
""",
}

SRC = {name: body + f"ALWAYS static inline VF FNAME(VF x) {{ return {name}(x); }}\n" for name, body in VARIANTS.items()}


def build(name: str):
    prelude = native32._PRELUDE.replace("// CONSTANTS", native32._constants()) + gather.FOR_BLOCKS
    fn = "v_" + name
    body = SRC[name].replace("FNAME", fn) + native32._UNARY.replace("FN", fn)
    args = ["const float*", "float*"] + ["int64_t"] * 5
    return mask_moves.load_pybinding(args, prelude + body)


def ulp_max(k) -> float:
    bits = torch.arange(0, 1 << 32, 7 * 64, dtype=torch.int64)
    out = 0.0
    for off in range(64):
        b = (bits + 7 * off) & 0xFFFFFFFF
        x = (b - (1 << 32) * (b >= (1 << 31))).to(torch.int32).view(torch.float32)
        x = x[x.abs() < 69].contiguous()
        y = torch.empty_like(x)
        k(x, y, 1, x.numel(), x.numel(), x.numel(), 1)
        xd = x.double()
        ref = xd / (1 + torch.exp(-xd))
        ulp = torch.abs(
            torch.nextafter(ref.float().abs(), torch.tensor(float("inf"))).double() - ref.float().abs().double()
        )
        e = ((y.double() - ref).abs() / ulp).nan_to_num(0.0)
        out = max(out, e.max().item())
    return out


def main() -> None:
    torch.set_num_threads(1)
    names = sys.argv[1:] or list(SRC)
    ks = {n: build(n) for n in names}
    gen = torch.Generator().manual_seed(0)
    for numel in (1 << 15, 1 << 22):
        x = torch.randn(numel, generator=gen) * 3
        y = torch.empty_like(x)
        reps = 400 if numel < 1 << 20 else 5
        times: dict[str, list[float]] = {}
        for _ in range(11):
            for n, k in [*ks.items(), ("F.silu", None)]:
                t0 = time.perf_counter()
                for _ in range(reps):
                    if k is None:
                        torch.ops.aten.silu.out(x, out=y)
                    else:
                        k(x, y, 1, numel, numel, numel, 1)
                times.setdefault(n, []).append((time.perf_counter() - t0) / reps / numel * 1e9)
        print(f"{numel} elements: " + ", ".join(f"{n} {statistics.median(t):.3f}" for n, t in times.items()))
    for n, k in ks.items():
        if n != "sigmoid_f":
            print(f"{n}: max {ulp_max(k):.3f} ULP")


if __name__ == "__main__":
    main()
