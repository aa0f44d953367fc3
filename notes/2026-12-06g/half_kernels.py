"""Half-type forwards: the generated kernel (float32 arithmetic) against the table's lookup, 4M elements, one thread.

    PYTHONPATH=src python notes/2026-12-06g/half_kernels.py

Per entry and half type: whether the kernel gives the table's bits at all 65536 inputs, and the medians (ms) of
interleaved rounds of each.
"""

import statistics

import torch

import nonlin
from nonlin.kernels import dispatch, table
from nonlin.tune import _median_ms as median_ms

torch.set_num_threads(1)
ENTRIES = [*sorted(dispatch.HALF_FORWARD_BY_KERNEL), "hardswish", "hard_mish", "sigmoid"]


for dtype in table.HALVES:
    x = torch.randn(1024 * 4096, generator=torch.Generator().manual_seed(0)).to(dtype)
    for name in ENTRIES:
        s = nonlin.spec(name)
        job = dispatch.job_for(s, dtype, s.defaults())
        every = table.all_values(dtype)
        computed = dispatch._kernel(job, "fwd", every)[0]
        looked_up = job.table.forward(every)
        same = (computed.view(torch.int16) == looked_up.view(torch.int16)) | (computed.isnan() & looked_up.isnan())
        samples = {"kernel": [], "lookup": []}
        for _ in range(7):
            samples["kernel"].append(median_ms(lambda: dispatch._kernel(job, "fwd", x), 5))  # noqa: B023
            samples["lookup"].append(median_ms(lambda: job.table.forward(x), 5))  # noqa: B023
        k, t = (statistics.median(samples[c]) for c in ("kernel", "lookup"))
        print(
            f"{name:22s} {str(dtype)[6:]:9s} inputs differing: {int((~same).sum()):4d}  "
            f"kernel {k:6.3f} ms  lookup {t:6.3f} ms  kernel/lookup {k / t:.2f}",
            flush=True,
        )
