"""The comparison masks of nonlin's own AVX-512 kernels (nonlin.kernels.mask_moves): the same lanes as ATen's
comparisons and NaN-propagating minimum / maximum, float32 and float64, every class of value; and built without
the instruction whose false dependency they avoid."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import torch
from torch._inductor.codecache import CppPythonBindingsCodeCache

import nonlin
from nonlin.kernels import cpu, mask_moves
from nonlin.kernels.codegen import plan

needs_compile = pytest.mark.skipif(not cpu.compile_available(), reason="no C++ compiler")

# Each comparison and ATen's minimum / maximum of a and b, as bits, one output row per operation (where inductor
# picks no vector ISA, Vectorized is ATen's scalar emulation and both builds agree trivially)
_PROBE = r"""
#include <torch/csrc/inductor/cpp_prefix.h>
#include <ATen/cpu/vec/vec.h>
template <typename T> static void probe(const T* a, const T* b, T* out, int64_t n) {
  using at::vec::Vectorized;
  using VT = Vectorized<T>;
  int64_t i = 0;
  for (; i + VT::size() <= n; i += VT::size()) {
    const VT x = VT::loadu(a + i), y = VT::loadu(b + i);
    const VT rows[8] = {x < y, x <= y, x == y, x != y, x > y, x >= y, at::vec::maximum(x, y),
                        at::vec::minimum(x, y)};
    for (int r = 0; r < 8; r++) rows[r].store(out + r * n + i);
  }
  for (; i < n; i++)  // (the tail: not what is tested; filled so that both builds write every element)
    for (int r = 0; r < 8; r++) out[r * n + i] = 0;
}
extern "C" void kernel(const float* a, const float* b, float* out, const double* c, const double* d,
                       double* out64, int64_t n) {
  probe(a, b, out, n);
  probe(c, d, out64, n);
}
"""
_ARGS = ["const float*", "const float*", "float*", "const double*", "const double*", "double*", "int64_t"]


def _values(dtype: torch.dtype, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Pairs of every kind: random bit patterns (NaN payloads, infinities, subnormals), equal values, signed
    zeros against each other, NaN against numbers."""
    g = torch.Generator().manual_seed(0)
    int_t = torch.int32 if dtype == torch.float32 else torch.int64
    info = torch.iinfo(int_t)
    a = torch.randint(info.min, info.max, (n,), generator=g, dtype=int_t).view(dtype)
    b = torch.randint(info.min, info.max, (n,), generator=g, dtype=int_t).view(dtype)
    special = torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan")], dtype=dtype)
    k = len(special)
    a[: k * k] = special.repeat_interleave(k)
    b[: k * k] = special.repeat(k)
    b[k * k : n // 2] = a[k * k : n // 2]  # equal pairs
    return a, b


def _run(kernel, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    a, b = _values(torch.float32, n)
    c, d = _values(torch.float64, n)
    out, out64 = torch.empty(8 * n), torch.empty(8 * n, dtype=torch.float64)
    kernel(a, b, out, c, d, out64, n)
    return out.view(torch.int32), out64.view(torch.int64)


@needs_compile
def test_comparisons_and_min_max_select_the_same_lanes_as_atens_own():
    n = 4096
    with mask_moves.no_precompiled_header():  # ATen's own: its intrinsics as they are
        atens = CppPythonBindingsCodeCache.load_pybinding(_ARGS, _PROBE + "// ATen's own masks\n")
    ours = mask_moves.load_pybinding(_ARGS, _PROBE)
    for got, want in zip(_run(ours, n), _run(atens, n), strict=True):
        assert torch.equal(got, want)
    # (the probe sees both outcomes of every comparison: a test that could not tell masks apart would not)
    bits32 = _run(ours, n)[0].view(8, n)[:6]
    assert ((bits32 == -1).any(dim=1) & (bits32 == 0).any(dim=1)).all()


def test_the_moves_go_before_inductors_prefix_once():
    source = "#include <torch/csrc/inductor/cpp_prefix.h>\nint f() { return 1; }\n"
    patched = mask_moves.with_mask_moves(source)
    assert patched.startswith(mask_moves.MASK_MOVES)
    assert patched.endswith(source)
    assert mask_moves.with_mask_moves(patched) == patched
    assert mask_moves.with_mask_moves("int f() { return 1; }\n") == "int f() { return 1; }\n"


@needs_compile
@pytest.mark.skipif(shutil.which("objdump") is None, reason="no objdump to read the built kernel")
@pytest.mark.skipif(torch.backends.cpu.get_cpu_capability() != "AVX512", reason="the moves change only AVX-512 builds")
def test_an_avx512_kernel_has_no_mask_to_vector_move():
    """The probe built as nonlin builds its kernels has no vpmovm2d / vpmovm2q (the instruction that waits on its
    destination's old value), where ATen's own build of it has them: the moves reached ATen's comparisons (the
    precompiled prefix header, which would define them first, is off)."""

    def instructions(kernel) -> str:
        path = sys.modules[kernel.__module__].__file__
        return subprocess.run(["objdump", "-d", path], capture_output=True, text=True, check=True).stdout

    atens = CppPythonBindingsCodeCache.load_pybinding(_ARGS, _PROBE + "// ATen's own masks, prefix header on\n")
    if "vpmovm2d" not in instructions(atens):
        pytest.skip("this compiler builds ATen's masks without vpmovm2d: nothing for the moves to avoid")
    ours = mask_moves.load_pybinding(_ARGS, _PROBE)
    assert "vpmovm2d" not in instructions(ours) and "vpmovm2q" not in instructions(ours)


@needs_compile
def test_nonlins_generated_kernels_get_them_and_keep_their_bits():
    """A generated kernel built through cpu.Direct (hardswish's float64 forward of float32 inputs: clamps, so
    ATen's maximum / minimum) gets the moves, and its bits are the generated function's run op by op."""
    spec = nonlin.spec("hardswish")
    p = plan(spec, "plain", tuple(sorted(spec.defaults().items())), (), ())
    fn = cpu.functions(p, "float64", False)["fwd"]
    x = torch.cat([_values(torch.float32, 4096)[0], torch.linspace(-4, 4, 10007)])
    before = mask_moves.patched_sources
    built = cpu.Direct(fn, cpu._examples((x,)), "hardswish.fwd").call(x)[0]
    assert mask_moves.patched_sources > before
    assert torch.equal(built.view(torch.int32), fn(x, None).view(torch.int32))
