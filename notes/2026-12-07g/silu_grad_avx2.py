"""Experiment (2026-12-07g, an AVX2-only EPYC): silu's float32 backward on silu_grad_near alone (one exponential
and the near-zero polynomial, no interval table, whose lookups cost AVX2 ~40 operations per vector) against the
table form (silu_grad_f) and aten.silu_backward: ns per element (one thread, 32K in cache and 4M), and with --ulp
max ULP against float64 on every 3rd float32 in (-8, 8). The harness is notes/2026-12-06h/silu_grad_variants.py's,
with this variant added.

    PYTHONPATH=src python notes/2026-12-07g/silu_grad_avx2.py [--ulp]
"""

import importlib.util
import sys
from pathlib import Path

harness_path = Path(__file__).parents[1] / "2026-12-06h" / "silu_grad_variants.py"
spec = importlib.util.spec_from_file_location("silu_grad_variants", harness_path)
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)

# silu_grad_near on every lane in its range, silu_grad_f for a vector with a lane outside it
harness.VARIANTS["silu_grad_near_all"] = r"""
ALWAYS static inline VF silu_grad_near_all(VF go, VF x) {
  const VF near = (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go);
  return every(near) ? silu_grad_near(go, x) : silu_grad_f(go, x);
}
"""

if __name__ == "__main__":
    ulp = "--ulp" in sys.argv
    names = ["silu_grad_f", "silu_grad_near_all"]
    if not ulp:  # timing only: the harness measures ULP of every variant it built
        harness.ulp_max = lambda k, go_kind: float("nan")
    sys.argv = [sys.argv[0], *names]
    harness.main()
