"""The bfloat16 store: rounded to nearest even by bit arithmetic, identically under the interpreter (whose
own float32 -> bfloat16 conversion truncates) and on a GPU."""

from __future__ import annotations

import pytest
import torch
from kernel_helpers import HAS_TRITON, needs_triton

import nonlin
from nonlin.kernels import use

pytestmark = needs_triton

if HAS_TRITON:
    import triton
    import triton.language as tl

    from nonlin.ops import triton_backend as tb

    @triton.jit
    def _store_bf16(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, tb.to_bf16_rne(x), mask=mask)


def test_bf16_store_rounds_to_nearest_even():
    bits = torch.randint(-(2**31), 2**31 - 1, (3000,), generator=torch.Generator().manual_seed(0), dtype=torch.int64)
    x = bits.to(torch.int32).view(torch.float32)
    ties = torch.tensor([1.0 + 2**-8, 1.0 + 3 * 2**-8, -(1.0 + 2**-8), 3.0e38, 3.4e38], dtype=torch.float32)
    special = torch.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-40, -1e-45])
    x = torch.cat([x, ties, special])
    y = torch.empty(x.shape, dtype=torch.bfloat16)
    _store_bf16[(1,)](x, y, x.numel(), BLOCK=4096)
    want = x.to(torch.bfloat16)
    nan = torch.isnan(want)
    assert torch.equal(torch.isnan(y), nan)
    assert torch.equal(y[~nan].view(torch.int16), want[~nan].view(torch.int16))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_kernels_round_like_torch(dtype):
    """A kernel's half output is its float32 result rounded once: equal to torch's rounding of the
    float32-computing kernel's output."""
    x = torch.linspace(-5, 5, 301).to(dtype)
    with use("fused", backend="triton", fp32_compute="float32"):
        y = nonlin.functional.silu(x)
        y32 = nonlin.functional.silu(x.float())
    assert torch.equal(y, y32.to(dtype))
