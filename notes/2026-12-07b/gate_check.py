"""Correctly rounded share of the gated entries' half-type outputs on the fused route (`nonlin check`'s numbers,
both size classes), for the checkout on PYTHONPATH: PYTHONPATH=src python notes/2026-12-07b/gate_check.py."""

from nonlin.accuracy.check import check

for name in ("swiglu", "geglu", "geglu_tanh", "glu"):
    for dt in ("bfloat16", "float16"):
        for size_class in ("small", "large"):
            r = check(name, dtypes=(dt,), size_class=size_class)
            cells = [
                f"{out} {res.stats.correctly_rounded * 100:.4f}% ({res.stats.max_ulp:.3f})"
                for out, res in r.results[dt].items()
                if res.stats is not None
            ]
            print(name, dt, r.routes[dt]["forward"], " | ".join(cells), "| goal failures:", r.goal_failures())
