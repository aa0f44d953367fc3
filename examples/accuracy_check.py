"""Measure an activation's accuracy in ULPs: nonlin's own, torch's, and a deliberately wrong one."""

import torch
import torch.nn.functional as F

from nonlin.accuracy import check

# nonlin's gelu and torch's, bf16 exhaustive and a float32 sample (smaller than the default, for speed)
for impl in (None, "torch"):
    report = check("gelu", impl=impl, dtypes=("float32", "bfloat16"), size=1 << 16)
    print(report.to_markdown())
    print("worst float32 input:", report.worst_inputs["float32"]["forward"][0])

# any callable with the entry's signature: here a tanh approximation passed off as the exact gelu
report = check("gelu", impl=lambda x: F.gelu(x, approximate="tanh"), dtypes=("float32",), size=1 << 14)
print("tanh-approximate gelu as erf gelu: max", report.max_ulp["float32"]["forward"], "ULP")
report.plot("gelu-tanh-as-erf.png")
report.to_json("gelu-tanh-as-erf.json")

# gated entries take (gate, value)
print(check("swiglu", impl=lambda g, v: F.silu(g) * v, dtypes=("bfloat16",)).to_markdown())
print(torch.nn.functional.gelu(torch.tensor(-6.0)))  # 0, the true value is about -5.9e-9
