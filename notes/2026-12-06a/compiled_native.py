"""Accuracy of torch's own op for every non-exact `route.NATIVE` row, compiled by inductor (what a caller's
torch.compile makes of it): the same goals and margins as tests/test_routes.py. Run once per ISA:

    for isa in default avx2 avx512; do ATEN_CPU_CAPABILITY=$isa TORCHINDUCTOR_CACHE_DIR=/tmp/ind_$isa \
        python notes/2026-12-06a/compiled_native.py --size 65536; done
"""

from __future__ import annotations

import argparse
import os

import torch

import nonlin
from nonlin import route
from nonlin.accuracy import check


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=None, help="float32 sample (default: nonlin check's 2^20)")
    ap.add_argument("--half-size", type=int, default=None, help="half-type subset (default: exhaustive)")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    isa = os.environ.get("ATEN_CPU_CAPABILITY", "native")
    rows = [
        (n, d, p)
        for n, nat in route.NATIVE.items()
        if not nat.exact and (not a.names or n in a.names)
        for p, dtypes in (("train", nat.train), ("forward", nat.forward - nat.train))
        for d in sorted(dtypes - {"float64"})
    ]
    torch._dynamo.config.recompile_limit = 256
    torch._dynamo.config.accumulated_recompile_limit = 4096
    for name, dtype, pass_ in rows:
        s = nonlin.spec(name)
        fn = torch.compile(lambda *xs, _f=s.torch_equivalent: _f(*xs), dynamic=False)
        rep = check(name, impl=fn, dtypes=(dtype,), backward=pass_ == "train", size=a.size, half_size=a.half_size)
        for k, st in rep.outputs(dtype).items():
            print(
                f"{isa:8s} {name:12s} {dtype:9s} {pass_:7s} {k:10s} max_ulp {st.max_ulp:8.4g} "
                f"cr {100 * st.correctly_rounded:7.3f}% nonfinite {st.nonfinite_total}",
                flush=True,
            )


if __name__ == "__main__":
    main()
