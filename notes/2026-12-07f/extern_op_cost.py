"""An extern op in a compiled graph against inductor's own kernel, µs per call, medians of interleaved rounds: the
C++ twin called eagerly and inside torch.compile, torch's F.silu the same two ways, at 16 and at 32K elements.
PYTHONPATH=src python notes/2026-12-07f/extern_op_cost.py"""

import statistics
import time

import torch

from nonlin.kernels import cpp_ops

torch.set_num_threads(1)
twin = cpp_ops.graph_op("native32")
for shape in [(16,), (64, 512)]:
    x = torch.randn(*shape)
    calls = {
        "twin eager": lambda t: twin(t, "silu"),
        "twin compiled": torch.compile(lambda t: twin(t, "silu")),
        "F.silu eager": lambda t: torch.nn.functional.silu(t),
        "F.silu compiled": torch.compile(lambda t: torch.nn.functional.silu(t)),
    }
    with torch.no_grad():
        for fn in calls.values():
            for _ in range(3):
                fn(x)
        times: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(15):
            for name, fn in calls.items():
                t0 = time.perf_counter()
                for _ in range(300):
                    fn(x)
                times[name].append((time.perf_counter() - t0) / 300 * 1e6)
    print(shape, {name: round(statistics.median(ts), 1) for name, ts in times.items()})
