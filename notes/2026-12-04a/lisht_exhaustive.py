"""lisht's textbook float32 forward x * torch.tanh(x), against float64, over every positive float32 from 2^-12
to 10 (above 9.01, torch.tanh(x) = 1 and the product is x, exact; lisht is even), and every 16th float32 from
2^-76 (where the product underflows to 0) to 2^-12. Max ULP error of the result. Run under
ATEN_CPU_CAPABILITY=default, avx2 and avx512."""

import numpy as np
import torch


def worst(lo: float, hi: float, stride: int) -> tuple[float, float]:
    """(max ULP error, its x) over the float32 bit patterns from lo to hi, every `stride`-th."""
    a, b = int(np.float32(lo).view(np.int32)), int(np.float32(hi).view(np.int32))
    step = 1 << 24
    best, at = 0.0, float("nan")
    for start in range(a, b, step):
        bits = np.arange(start, min(start + step, b), stride, dtype=np.int32)
        x = torch.from_numpy(bits.view(np.float32))
        y = (x * torch.tanh(x)).numpy().astype(np.float64)
        xd = x.numpy().astype(np.float64)
        ref = xd * np.tanh(xd)
        e = np.abs(y - ref) / np.spacing(ref.astype(np.float32)).astype(np.float64)
        i = int(e.argmax())
        if e[i] > best:
            best, at = float(e[i]), float(xd[i])
    return best, at


isa = torch.backends.cpu.get_cpu_capability()
print(f"{isa}: max %.4f ULP at x = %r" % worst(2.0**-12, 10.0, 1))
print(f"{isa}: below 2^-12 (every 16th) max %.4f ULP at x = %r" % worst(2.0**-76, 2.0**-12, 16))
