"""The half-type tables' two CPU kernels (kernels/table.py), written with ATen's vector types and a gather.

Inductor compiles an indexed load as scalar code (int16 is not among its vectorisable types, and its vector
form of an indirect load stores the index and loads element by element): the table's backward cost ~1.2 ns per
element with float32 slopes and ~2.3 with float64 ones, where ATen's sigmoid backward takes ~0.5. These kernels
do the same arithmetic as `table._lookup`, `table._grad` and `table._grad_wide` with `at::vec::gather` (one
AVX-512 or AVX2 gather instruction, a scalar loop elsewhere), and are built by inductor's own C++ toolchain
(`CppPythonBindingsCodeCache`: the compiler, flags, vector ISA and on-disk cache inductor picks on this machine,
so a machine that runs inductor's kernels runs these; ATEN_CPU_CAPABILITY and inductor's ISA choice apply as
to them). The bits are the torch-op forms' on every ISA (tests/kernels/test_kernel_table.py): index loads and
integer arithmetic, one float32 or float64 product, conversions that round to nearest even.

A 16-bit pattern is read as a bfloat16 and widened to float32, which is a 16-bit shift on every ISA, so both
half types (and every NaN payload) index the table by their own bits.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable

import torch

_CTYPE = {torch.bfloat16: "at::BFloat16", torch.float16: "at::Half"}

# Below this many elements one thread does it all (an OpenMP fork costs a few microseconds).
PARALLEL_NUMEL = 1 << 16

_PRELUDE = r"""
#include <torch/csrc/inductor/cpp_prefix.h>
#include <ATen/cpu/vec/vec.h>  // (cpp_prefix.h includes it only where inductor picked a vector ISA)
#include <cstring>
using at::vec::Vectorized;
using Half = HALF_TYPE;
constexpr int64_t V = Vectorized<float>::size();

// [V] 16-bit patterns at p as int32 indices 0..65535 (loaded as bfloat16 and widened: a shift)
static inline Vectorized<int32_t> patterns(const int16_t* p) {
  auto wide = at::vec::convert<float>(Vectorized<at::BFloat16>::loadu(p, V));
  return (at::vec::cast<int32_t>(wide) >> Vectorized<int32_t>(16)) & Vectorized<int32_t>(0xFFFF);
}

static inline int64_t pattern(int16_t b) { return static_cast<uint16_t>(b); }

// f(begin, end) over chunks of [0, n), split among `threads` OpenMP threads
template <class F> static inline void for_chunks(int64_t n, int64_t threads, F f) {
  constexpr int64_t chunk = 16384;
  const int64_t chunks = (n + chunk - 1) / chunk;
  #pragma omp parallel for num_threads(threads) schedule(static) if(threads > 1)
  for (int64_t c = 0; c < chunks; ++c) f(c * chunk, std::min(n, (c + 1) * chunk));
}
"""

# values: the table's half-type results widened to float32 (exact); out[i] = values[bits[i]] as the half type
_LOOKUP = r"""
extern "C" void kernel(const int16_t* bits, const float* values, Half* out, int64_t n, int64_t threads) {
  for_chunks(n, threads, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    for (; i + V <= end; i += V)
      at::vec::convert<Half>(at::vec::gather<4>(values, patterns(bits + i))).store(out + i, V);
    for (; i < end; ++i) out[i] = Half(values[pattern(bits[i])]);
  });
}
"""

# float32 slopes: the float32 product, rounded once to the half type (table._grad)
_GRAD = r"""
extern "C" void kernel(const Half* go, const int16_t* bits, const float* slopes, Half* out, int64_t n,
                       int64_t threads) {
  for_chunks(n, threads, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      auto s = at::vec::gather<4>(slopes, patterns(bits + i));
      auto g = at::vec::convert<float>(Vectorized<Half>::loadu(go + i, V));
      at::vec::convert<Half>(s * g).store(out + i, V);
    }
    for (; i < end; ++i) out[i] = Half(slopes[pattern(bits[i])] * static_cast<float>(go[i]));
  });
}
"""

# bfloat16 with some derivatives outside float32's normal range: `slopes` holds NaN there, and those elements
# (rare: the far tails) take the float64 slope and product, cut to float32's 24 bits to odd, or below 2^-126
# rounded to bfloat16's subnormal grid, then converted (exactly) to float32 and rounded once (table._grad_wide)
_GRAD_WIDE = r"""
constexpr int64_t DROPPED = (int64_t(1) << 29) - 1;
constexpr double GRID = 1.5 * 0x1p-81, TINY = 0x1p-126;

static inline Half far(const double* wide, int16_t b, Half go) {
  double p = wide[pattern(b)] * static_cast<double>(go);
  int64_t bits;
  std::memcpy(&bits, &p, 8);
  bits = (bits & ~DROPPED) | (int64_t((bits & DROPPED) != 0) << 29);
  double cut;
  std::memcpy(&cut, &bits, 8);
  double a = std::abs(p);
  return Half(static_cast<float>(a < TINY ? std::copysign((a + GRID) - GRID, p) : cut));
}

extern "C" void kernel(const Half* go, const int16_t* bits, const float* slopes, const double* wide, Half* out,
                       int64_t n, int64_t threads) {
  for_chunks(n, threads, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      auto s = at::vec::gather<4>(slopes, patterns(bits + i));
      auto g = at::vec::convert<float>(Vectorized<Half>::loadu(go + i, V));
      at::vec::convert<Half>(s * g).store(out + i, V);
      const int ordered = (s != s).zero_mask();  // bit j set where slope j is not NaN
      if (ordered != (1 << V) - 1)
        for (int64_t j = 0; j < V; ++j)
          if (!((ordered >> j) & 1)) out[i + j] = far(wide, bits[i + j], go[i + j]);
    }
    for (; i < end; ++i) {
      const float s = slopes[pattern(bits[i])];
      out[i] = std::isnan(s) ? far(wide, bits[i], go[i]) : Half(s * static_cast<float>(go[i]));
    }
  });
}
"""

_BUILT: dict[tuple, Callable | None] = {}
_LOCK = threading.Lock()


def kernel(which: str, dtype: torch.dtype, wide: bool = False) -> Callable | None:
    """The compiled kernel `which` ("lookup" or "grad", with float64 slopes beside the float32 ones where
    `wide`) for half type `dtype`, built once; None where compilation is off or failed (the caller runs the
    torch-op forms, which give the same bits).

    lookup(bits, values, out, n, threads); grad(go, bits, slopes, [wide,] out, n, threads): contiguous tensors
    (bits int16, values and slopes float32, wide float64, out and go of the half type), n elements, OpenMP
    threads.
    """
    key = (which, dtype, wide)
    if key in _BUILT:
        return _BUILT[key]
    from nonlin.kernels import cpu

    with _LOCK:
        if key not in _BUILT:
            k = None
            if cpu.compile_available():
                try:
                    k = _compile(which, dtype, wide)
                except Exception as e:  # compiler missing or broken
                    cpu.disable_compile(f"{type(e).__name__}: {e}")
                    warnings.warn(
                        f"nonlin: compiling the half-type table's {which} kernel failed ({type(e).__name__}); "
                        "it runs in torch ops from now on",
                        RuntimeWarning,
                        stacklevel=2,
                    )
            _BUILT[key] = k
    return _BUILT[key]


def _compile(which: str, dtype: torch.dtype, wide: bool) -> Callable:
    from torch._inductor.codecache import CppPythonBindingsCodeCache

    half = _CTYPE[dtype]
    if which == "lookup":
        body, args = _LOOKUP, ["const int16_t*", "const float*", f"{half}*"]
    elif not wide:
        body, args = _GRAD, [f"const {half}*", "const int16_t*", "const float*", f"{half}*"]
    else:
        body, args = _GRAD_WIDE, [f"const {half}*", "const int16_t*", "const float*", "const double*", f"{half}*"]
    source = _PRELUDE.replace("HALF_TYPE", half) + body
    return CppPythonBindingsCodeCache.load_pybinding([*args, "int64_t", "int64_t"], source)


def built(which: str, dtype: torch.dtype) -> bool:
    """Whether some kernel `which` for half type `dtype` is built (compiled, or found not to compile)."""
    return any(k[:2] == (which, dtype) for k in _BUILT)


def threads(n: int) -> int:
    """OpenMP threads for an n-element call: torch's intra-op count, one below `PARALLEL_NUMEL`."""
    return torch.get_num_threads() if n >= PARALLEL_NUMEL else 1
