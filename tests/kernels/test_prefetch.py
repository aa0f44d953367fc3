"""Software prefetches in nonlin's own inductor kernels (nonlin.kernels.prefetch): where they are added, and that
a kernel computes the same bits with them as without."""

from __future__ import annotations

import pytest
import torch

import nonlin
from nonlin.kernels import cpu, prefetch
from nonlin.kernels.codegen import plan

needs_compile = pytest.mark.skipif(not cpu.compile_available(), reason="no C++ compiler")

_KERNEL = """#include <torch/csrc/inductor/cpp_prefix.h>
extern "C" void kernel(const float* in_ptr0, const float* in_ptr1, float* out_ptr0, const int64_t ks0) {
    float tmpbuf[16];
    for (int64_t x0 = 0; x0 < ks0; x0 += 16) {
        auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
        auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(c10::div_floor_integer(x0, 2L)));
        auto tmp2 = at::vec::Vectorized<float>::loadu(tmpbuf);
        (tmp0 + tmp1 + tmp2).store(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(ks0 - x0));
    }
}"""


def test_prefetches_go_before_the_loads_and_stores_of_pointer_arguments() -> None:
    got = prefetch.with_prefetch(_KERNEL)
    lines = [ln.strip() for ln in got.splitlines()]
    loads = [i for i, ln in enumerate(lines) if "::loadu(in_ptr" in ln]
    store = next(i for i, ln in enumerate(lines) if ".store(out_ptr0" in ln)
    assert lines[loads[0] - 1] == "NONLIN_PREFETCH(in_ptr0 + static_cast<int64_t>(x0), 0);"
    # an offset with a call of two arguments: the whole first argument
    assert lines[loads[1] - 1] == "NONLIN_PREFETCH(in_ptr1 + static_cast<int64_t>(c10::div_floor_integer(x0, 2L)), 0);"
    assert lines[store - 1] == "NONLIN_PREFETCH(out_ptr0 + static_cast<int64_t>(x0), 1);"  # for writing
    assert sum("NONLIN_PREFETCH(" in ln for ln in lines) == 3 + 2  # not the local buffer's load; the two #defines
    assert "#define NONLIN_PREFETCH" in got
    plain = 'extern "C" void kernel(float* out_ptr0) { out_ptr0[0] = 1.0f; }'  # no vector access: unchanged
    assert prefetch.with_prefetch(plain) is plain


def _vectorized() -> bool:
    from torch._inductor import cpu_vec_isa

    return bool(cpu_vec_isa.pick_vec_isa())


def _direct(name: str, which: str, like: tuple[torch.Tensor, ...], compute: str, monkeypatch, prefetched: bool):
    if not prefetched:
        monkeypatch.setattr(prefetch, "with_prefetch", lambda source: source)
    spec = nonlin.spec(name)
    p = plan(spec, "plain", tuple(sorted(spec.defaults().items())), (), ())
    fn = cpu.functions(p, compute, False)[which]
    before = prefetch.prefetched_sources
    kernel = cpu.Direct(fn, cpu._examples(like), f"{name}.{which}")
    monkeypatch.undo()
    return kernel.call(*like), prefetch.prefetched_sources - before


@needs_compile
@pytest.mark.parametrize(
    "name, which, compute",
    [("cosine", "fwd", "float64"), ("softplus", "bwd", "float32"), ("swiglu", "bwd_packed", "float64")],
)
def test_nonlins_kernels_get_prefetches_and_keep_their_bits(name: str, which: str, compute: str, monkeypatch) -> None:
    """A float32 kernel computing in float64, one computing in float32 and a packed gated backward (rows of two
    halves): built with prefetches (the counter moved) and without, the same bits on inputs that end in a
    partial vector."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3 * 4099, generator=g) * 4
    if which == "bwd_packed":
        packed = x.reshape(3, -1)[:, :8194].contiguous()  # [rows, 2 d], d = 4097
        like = (torch.randn(3, 4097, generator=g), packed)
    elif which == "bwd":
        like = (torch.randn(x.shape, generator=g), x)
    else:
        like = (x,)
    with_prefetch, added = _direct(name, which, like, compute, monkeypatch, prefetched=True)
    without, _ = _direct(name, which, like, compute, monkeypatch, prefetched=False)
    if _vectorized():  # (a scalar build, ATEN_CPU_CAPABILITY=default, has no vector loads to prefetch ahead of)
        assert added >= 1
    for a, b in zip(with_prefetch, without, strict=True):
        assert torch.equal(a.view(torch.int32), b.view(torch.int32))
