"""Experiment (2026-12-07g, an AVX2-only EPYC): silu's float32 backward forms without the interval table, whose
lookups cost AVX2 ~40 operations per vector, against the table form and aten.silu_backward; ns per element (one
thread, 32K in cache and 4M, x ~ N(0, 1)), and max ULP against float64 (go = 1 and go ~ N(0, 1)) on every 3rd
float32 in (-8, 8) (`--ulp`). notes/2026-12-06h/silu_grad_variants.py's harness.

    PYTHONPATH=src python notes/2026-12-07g/silu_grad_avx2.py [--ulp] [variants...]"""

import statistics
import sys
import time

import numpy as np
import torch

from nonlin.kernels import gather, mask_moves, native32

VARIANTS = {
    "silu_grad_f": "",
    # silu_grad_near on every lane in its range (one exponential, the near-zero polynomial; no table), silu_grad_f
    # for a vector with a lane outside it
    "silu_grad_near_all": r"""
ALWAYS static inline VF silu_grad_near_all(VF go, VF x) {
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  return every(near) ? silu_grad_near(go, x) : silu_grad_f(go, x);
}
""",
    # the interval table evaluated in float32 (no carried parts) but the zero's factor (x - x0) and the product
    # with go as before
    "silu_grad_plain": r"""
ALWAYS static inline VF silu_grad_plain(VF go, VF x) {
  const TableAt at = table_at<2>(x);
  const VF t = at.t;
  VF r = lookup32(at.i, SILU_GRAD_T[7]);
  for (int k = 6; k >= 2; --k) r = fma_(r, t, lookup32(at.i, SILU_GRAD_T[k]));
  const VF f = lookup32(at.i, SILU_GRAD_T[0]) + fma_(r, t, lookup32(at.i, SILU_GRAD_T[1]));
  const VF zero = lookup32(at.i, SILU_GRAD_T[8]);
  const VF mh = blend(C(1.0f), x - C(SILU_X0_HI), zero), ml = blend(C(0.0f), C(-SILU_X0_LO), zero);
  const VF ph = mh * f, pl = fma_(mh, f, -ph) + ml * f;
  return fma_(go, ph, go * pl) | ((go ^ ph) & C(-0.0f));
}
""",
}


def build(name: str):
    prelude = native32._PRELUDE.replace("// CONSTANTS", native32._constants()) + gather.FOR_BLOCKS
    fn = "v_" + name
    src = VARIANTS[name] + f"ALWAYS static inline VF {fn}(VF go, VF x) {{ return {name}(go, x); }}\n"
    body = src + native32._BINARY.replace("FN", fn)
    return mask_moves.load_pybinding(["const float*", "const float*", "float*"] + ["int64_t"] * 6, prelude + body)


def silu_grad64(x: np.ndarray) -> np.ndarray:
    s = 1 / (1 + np.exp(-x))
    return s * (1 + x * (1 - s))


def ulp_max(k, go_kind: str) -> float:
    # every 3rd float32 in (-8, 8), in chunks
    out = 0.0
    gen = torch.Generator().manual_seed(1)
    for lo, hi in ((0, 0x41000000), (0x80000000, 0xC1000000)):
        for start in range(lo, hi, 3 * (1 << 22)):
            b = torch.arange(start, min(start + 3 * (1 << 22), hi), 3, dtype=torch.int64)
            x = (b - (1 << 32) * (b >= (1 << 31))).to(torch.int32).view(torch.float32).contiguous()
            go = torch.ones_like(x) if go_kind == "1" else torch.randn(x.shape, generator=gen)
            y = torch.empty_like(x)
            n = x.numel()
            k(go, x, y, 1, n, n, n, n, 1)
            ref = go.double().numpy() * silu_grad64(x.double().numpy())
            rf = np.abs(ref.astype(np.float32))
            ulp = np.spacing(rf).astype(np.float64)
            e = np.abs(y.double().numpy() - ref) / ulp
            out = max(out, float(np.nanmax(e)))
    return out


def main() -> None:
    torch.set_num_threads(1)
    ulp = "--ulp" in sys.argv
    names = [a for a in sys.argv[1:] if a != "--ulp"] or list(VARIANTS)
    ks = {n: build(n) for n in names}
    gen = torch.Generator().manual_seed(0)
    for numel in (1 << 15, 1 << 22):
        x = torch.randn(numel, generator=gen)
        go = torch.randn(numel, generator=gen)
        y = torch.empty_like(x)
        reps = 400 if numel < 1 << 20 else 5
        times: dict[str, list[float]] = {}
        for _ in range(11):
            for n, k in [*ks.items(), ("aten.silu_backward", None)]:
                t0 = time.perf_counter()
                for _ in range(reps):
                    if k is None:
                        torch.ops.aten.silu_backward.grad_input(go, x, grad_input=y)
                    else:
                        k(go, x, y, 1, numel, numel, numel, numel, 1)
                times.setdefault(n, []).append((time.perf_counter() - t0) / reps / numel * 1e9)
        print(f"{numel} elements: " + ", ".join(f"{n} {statistics.median(t):.3f}" for n, t in times.items()))
    for n, k in ks.items() if ulp else ():
        print(f"{n}: max {ulp_max(k, '1'):.3f} ULP (go = 1), {ulp_max(k, 'randn'):.3f} (go ~ N(0, 1))")


if __name__ == "__main__":
    main()
