"""lisht's textbook float32 forward x * torch.tanh(x), against float64, over every positive float32 from 2^-12
to 10 (below, tanh(x) rounds to x within 2^-24 relative: x * tanh(x) is x*x to within an ULP's fraction that
the sample covers; above 9.01, torch.tanh(x) = 1 and the product is x, exact; lisht is even). Max ULP error of
the result. Run under ATEN_CPU_CAPABILITY=default, avx2 and avx512."""

import numpy as np
import torch

lo = np.float32(2.0**-12).view(np.int32)
hi = np.float32(10.0).view(np.int32)
worst, at = 0.0, None
step = 1 << 24
for start in range(int(lo), int(hi), step):
    bits = np.arange(start, min(start + step, int(hi)), dtype=np.int32)
    x = torch.from_numpy(bits.view(np.float32))
    y = (x * torch.tanh(x)).numpy().astype(np.float64)
    xd = x.numpy().astype(np.float64)
    ref = xd * np.tanh(xd)
    ulp = np.spacing(ref.astype(np.float32)).astype(np.float64)
    e = np.abs(y - ref) / ulp
    i = int(e.argmax())
    if e[i] > worst:
        worst, at = float(e[i]), float(xd[i])
print(f"{torch.backends.cpu.get_cpu_capability()}: max {worst:.4f} ULP at x = {at!r}")

# Below 2^-12 down to 2^-76 (where x * tanh(x) underflows to 0): every 16th float32.
lo2 = np.float32(2.0**-76).view(np.int32)
worst2, at2 = 0.0, None
for start in range(int(lo2), int(lo), step):
    bits = np.arange(start, min(start + step, int(lo)), 16, dtype=np.int32)
    x = torch.from_numpy(bits.view(np.float32))
    y = (x * torch.tanh(x)).numpy().astype(np.float64)
    xd = x.numpy().astype(np.float64)
    ref = xd * np.tanh(xd)
    ulp = np.spacing(ref.astype(np.float32)).astype(np.float64)
    e = np.abs(y - ref) / ulp
    i = int(e.argmax())
    if e[i] > worst2:
        worst2, at2 = float(e[i]), float(xd[i])
print(f"{torch.backends.cpu.get_cpu_capability()}: below 2^-12 (every 16th) max {worst2:.4f} ULP at x = {at2!r}")
