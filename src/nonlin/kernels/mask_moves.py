"""Comparison masks without a false dependency, for the AVX-512 kernels nonlin compiles itself.

ATen's AVX-512 comparisons (`a < b`, `a == b`, ... on `Vectorized<float>` and `<double>`) and the NaN step of
`at::vec::maximum` / `minimum` make a mask vector as `_mm512_mask_set1_epi32(zero, k, -1)` (`_epi64` for double),
which GCC (12) emits as `vpmovm2d` (`vpmovm2q`). On Intel cores (Golden Cove, a Sapphire Rapids Xeon here) that
instruction waits on its destination register's previous value, which it does not read: a false dependency. Where
the register allocator gives it a register last written late in the previous vector's work, one vector's work
waits on the last one's, and a loop that the core would run 4-5 vectors at a time runs one at a time: elu's
hand-written forward took 1.71 ns per element against 0.55 with the same instructions less that chain (one
AVX-512 core, in cache; which kernels it hits follows the register allocation, so any change of a kernel could
make or break one: `notes/2026-12-05g/false_dependency.cpp` measures the instruction alone, 6.2 ns per
iteration against 0.97 with its destination zeroed first).

`MASK_MOVES`, placed before the source includes ATen, routes both intrinsics through a blend of a vector GCC
cannot see is constant: it then emits a zero-masking move from a register of all ones (`vmovdqa32 ones, dst{k}{z}`),
which writes every lane and so waits on nothing but the mask. The lanes are the same (tests/kernels/
test_mask_moves.py); only AVX-512 builds change (AVX2's comparisons give a vector mask directly).
"""

from __future__ import annotations

import contextlib

_PREFIX = "#include <torch/csrc/inductor/cpp_prefix.h>"

MASK_MOVES = r"""#if defined(CPU_CAPABILITY_AVX512)
#include <immintrin.h>
// (the empty asm hides the value, so GCC cannot fold the blend of all ones on zeros back into vpmovm2d/vpmovm2q)
static inline __attribute__((always_inline)) __m512i nonlin_mask_set1_epi32(__m512i src, __mmask16 k, int a) {
  asm("" : "+r"(a));
  return _mm512_mask_blend_epi32(k, src, _mm512_set1_epi32(a));
}
static inline __attribute__((always_inline)) __m512i nonlin_mask_set1_epi64(__m512i src, __mmask8 k, long long a) {
  asm("" : "+r"(a));
  return _mm512_mask_blend_epi64(k, src, _mm512_set1_epi64(a));
}
#define _mm512_mask_set1_epi32 nonlin_mask_set1_epi32
#define _mm512_mask_set1_epi64 nonlin_mask_set1_epi64
#endif
"""

patched_sources = 0  # kernels that got the mask moves (tests read it)


def no_precompiled_header() -> contextlib.AbstractContextManager:
    """inductor's config with its precompiled prefix header off: CppPythonBindingsCodeCache force-includes that
    header ahead of the source (`-include`), where ATen's comparisons are then defined before `MASK_MOVES` could
    reach them (0.85 s more per kernel build, once per machine). A torch without that setting: no change (the
    kernels then build as before, with ATen's masks)."""
    from torch._inductor import config

    if not hasattr(config, "cpp_cache_precompile_headers"):
        return contextlib.nullcontext()
    return config.patch(cpp_cache_precompile_headers=False)


def load_pybinding(argtypes: list[str], source: str):
    """inductor's `CppPythonBindingsCodeCache.load_pybinding` of `source` with `MASK_MOVES`."""
    from torch._inductor.codecache import CppPythonBindingsCodeCache

    with no_precompiled_header():
        return CppPythonBindingsCodeCache.load_pybinding(argtypes, with_mask_moves(source))


def with_mask_moves(source: str) -> str:
    """`source` (a C++ kernel that starts by including inductor's prefix) with `MASK_MOVES` before that include
    (once: a source that has them is returned as it is)."""
    global patched_sources
    if MASK_MOVES in source or _PREFIX not in source:
        return source
    patched_sources += 1
    return source.replace(_PREFIX, MASK_MOVES + _PREFIX, 1)
