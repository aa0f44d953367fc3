"""The fused route's float64 outputs in the subnormal range: tests/test_subnormal_float64.py's check (every
pointwise entry, both tails, within 4 subnormal ULP + 1e-12 relative of the correctly rounded value), run on the
fused route instead of the route a small call takes (eager). A float64 call takes the fused route from 2^20
elements at once, and below that once its kernels are compiled.

    PYTHONPATH=src python notes/2026-12-06c/fused_float64_subnormal.py"""

import sys
import warnings

sys.path.insert(0, "tests")
warnings.filterwarnings("ignore")

from test_subnormal_float64 import KNOWN_MISSES, subnormal_misses  # noqa: E402

import nonlin  # noqa: E402
from nonlin.kernels import use  # noqa: E402

misses = []
for name in nonlin.names("pointwise"):
    if nonlin.spec(name).stochastic:
        continue
    with use("fused"):
        bad = subnormal_misses(name)
    if bad:
        worst = max(bad, key=lambda b: float(b.rsplit("(", 1)[1].split()[0]))
        known = "known on the eager route too" if name in KNOWN_MISSES else "eager route within"
        misses.append(f"{name}: {len(bad)} outputs off; worst {worst} [{known}]")
print(f"{len(misses)} entries miss on the fused float64 route")
for m in misses:
    print(" ", m)
