"""ULP accuracy of the set-wise units against their mpmath set reference, correctly rounded (round_mpfs).

Run: PYTHONPATH=src python benchmarks/setwise_accuracy.py   (sets of 2, 6, 12, 64 values, N(0, 1) and N(0, 64),
8 sets each, rounded to the dtype; prints a markdown table). `nonlin check` measures the normalizers; set-wise
units are not elementwise, so this script is their counterpart.
"""

import mpmath
import numpy as np

import nonlin
from nonlin import reference as R
from nonlin.accuracy.formats import get_format, to_numpy
from nonlin.accuracy.metric import measure
from nonlin.accuracy.reference import RefOutput, round_mpfs

rng = np.random.default_rng(0)
print("| entry | " + " | ".join(f"{d} max ULP (correct)" for d in ("float32", "bfloat16", "float16")) + " |")
print("|---|---|---|---|")
for name in nonlin.names("setwise"):
    s = nonlin.spec(name)
    cells = []
    for d in ("float32", "bfloat16", "float16"):
        fmt = get_format(d)
        got_all, ys = [], []
        for n in (2, 6, 12, 64):
            for scale in (1.0, 8.0):
                x = fmt.round(rng.standard_normal((8, n)) * scale)
                y = nonlin.functional.function(name)(fmt.to_tensor(x))
                got_all.append(to_numpy(y).ravel())
                with mpmath.workdps(40):
                    if "batchwise" in s.properties:
                        ys += R.setwise(name, x.ravel().tolist(), rows=x.shape[0], dps=40)
                    else:
                        for r in x:
                            ys += R.setwise(name, r.tolist(), dps=40)
        rounded, exact, zero = round_mpfs(ys, fmt)
        got = np.concatenate(got_all)
        st, _ = measure(got, RefOutput(rounded, exact, zero), fmt, {"x": exact})
        cells.append(f"{st.max_ulp:.3g} ({100 * st.correctly_rounded:.1f}%)")
    print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
