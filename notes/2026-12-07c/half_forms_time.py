"""An entry on bfloat16, ns per element (one thread, x ~ N(0, 1), outputs allocated per call as the calls do):
native32's float32 forms around bfloat16 loads and stores (where HALF_FORMS has the entry), the table's lookup
and torch's op, forward and backward, 32K and 4M elements, medians of interleaved rounds. Run from a checkout:
PYTHONPATH=src python notes/2026-12-07c/half_forms_time.py NAME [TORCH_BACKWARD_FROM_OUTPUT]"""

import statistics
import sys
import time

import torch

import nonlin
from nonlin.kernels import native32, table

torch.set_num_threads(1)
name = sys.argv[1]
spec = nonlin.spec(name)
lookup = table.Table(spec, torch.bfloat16, spec.defaults(), True)
values = lookup.widened_values()
aten_backward = {
    "sigmoid": lambda go, x: torch.ops.aten.sigmoid_backward(go, torch.sigmoid(x)),
    "hardswish": lambda go, x: torch.ops.aten.hardswish_backward(go, x),
    "tanh": lambda go, x: torch.ops.aten.tanh_backward(go, torch.tanh(x)),
}[name]
torch_forward = spec.torch_equivalent
for n in (1 << 15, 1 << 22):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, generator=gen).to(torch.bfloat16)
    go = torch.randn(n, generator=gen).to(torch.bfloat16)
    y = torch_forward(x)
    calls = {
        "lookup forward": lambda x=x: lookup.forward(x),
        "torch forward": lambda x=x: torch_forward(x),
        "lookup backward": lambda x=x, go=go: lookup.backward(go, x),
        "aten backward (from its saved output)": lambda x=x, y=y, go=go: (
            torch.ops.aten.sigmoid_backward(go, y) if name == "sigmoid" else aten_backward(go, x)
        ),
    }
    if name in native32.HALF_FORMS:
        calls["forms forward"] = lambda x=x: native32.half_forward(name, x, values)
        calls["forms backward"] = lambda x=x, go=go: native32.half_backward(name, go, x)
    reps = 200 if n < 1 << 20 else 5
    times: dict[str, list[float]] = {k: [] for k in calls}
    for _ in range(9):
        for k, f in calls.items():
            f()
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            times[k].append((time.perf_counter() - t0) / reps / n * 1e9)
    print(n, ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in times.items()))
