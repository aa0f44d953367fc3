"""The half-type tables' CPU kernels (kernels/table.py), written with ATen's vector types and a gather: a lookup,
and a product go (* v) * slopes[bits] with or without the bfloat16 far-tail path.

Inductor compiles an indexed load as scalar code (int16 is not among its vectorisable types, and its vector
form of an indirect load stores the index and loads element by element): the table's backward cost ~1.2 ns per
element with float32 slopes and ~2.3 with float64 ones, where ATen's sigmoid backward takes ~0.5. These kernels
do the same arithmetic as `table._lookup` and `table._product` with `at::vec::gather` (one
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

from nonlin.kernels import mask_moves

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

// [V] 16-bit patterns at p as int32 indices 0..65535: one zero-extending load on AVX-512 and AVX2; elsewhere loaded
// as bfloat16 and widened (a shift)
static inline Vectorized<int32_t> patterns(const int16_t* p) {
#if defined(CPU_CAPABILITY_AVX512)
  return Vectorized<int32_t>(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
#elif defined(CPU_CAPABILITY_AVX2)
  return Vectorized<int32_t>(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
#else
  auto wide = at::vec::convert<float>(Vectorized<at::BFloat16>::loadu(p, V));
  return (at::vec::cast<int32_t>(wide) >> Vectorized<int32_t>(16)) & Vectorized<int32_t>(0xFFFF);
#endif
}

static inline int64_t pattern(int16_t b) { return static_cast<uint16_t>(b); }
"""

# f(row, begin, end) over blocks of [rows, width], split among `threads` OpenMP threads (nonlin.kernels.native32
# uses it too)
FOR_BLOCKS = r"""
template <class F> static inline void for_blocks(int64_t rows, int64_t width, int64_t threads, F f) {
  constexpr int64_t chunk = 16384;
  const int64_t per_row = (width + chunk - 1) / chunk, blocks = rows * per_row;
  #pragma omp parallel for num_threads(threads) schedule(static) if(threads > 1)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t r = b / per_row, begin = (b % per_row) * chunk;
    f(r, begin, std::min(width, begin + chunk));
  }
}
"""

# values: the table's half-type results widened to float32 (exact); out = values[bits] as the half type (bfloat16
# on AVX-512: the top 16 bits of each value's pattern, one narrowing instruction where ATen's rounding conversion
# takes several: 0.57-0.60 ns per element in cache against 0.66-0.68 in two interleaved pairs,
# notes/2026-12-04b/bf16_lookup.md)
_LOOKUP = r"""
extern "C" void kernel(const int16_t* bits, const float* values, Half* out, int64_t rows, int64_t width,
                       int64_t s_bits, int64_t s_out, int64_t threads) {
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const int16_t* b = bits + r * s_bits;
    Half* o = out + r * s_out;
    int64_t i = begin;
    for (; i + V <= end; i += V) {
#if defined(CPU_CAPABILITY_AVX512)
      if constexpr (std::is_same_v<Half, at::BFloat16>) {  // values are bfloat16s widened: their top 16 bits
        const __m512i v = _mm512_castps_si512(at::vec::gather<4>(values, patterns(b + i)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), _mm512_cvtepi32_epi16(_mm512_srli_epi32(v, 16)));
        continue;
      }
#endif
      at::vec::convert<Half>(at::vec::gather<4>(values, patterns(b + i))).store(o + i, V);
    }
    for (; i < end; ++i) o[i] = Half(values[pattern(b[i])]);
  });
}
"""

# out = go (* v) * slopes[bits]: the float32 product (go * v is exact in float32 for float16; for bfloat16 it is
# where it stays a float32 normal), rounded once to the half type (table._product). WIDE (bfloat16): the
# elements whose slope is NaN (a derivative outside float32's normal range, or NaN) or whose go * v leaves
# float32's normal range take the float64 slope from `wide` and the float64 product, cut to float32's 24 bits to
# odd, or below 2^-126 rounded to bfloat16's subnormal grid, then converted (exactly) to float32 and rounded
# once (table._rounded_once): rare (the far tails), a scalar fix-up after the vector store.
_GRAD = r"""
constexpr int64_t DROPPED = (int64_t(1) << 29) - 1;
constexpr double GRID = 1.5 * 0x1p-81, TINY = 0x1p-126;

static inline Half rounded_once(double p) {
  int64_t bits;
  std::memcpy(&bits, &p, 8);
  bits = (bits & ~DROPPED) | (int64_t((bits & DROPPED) != 0) << 29);
  double cut;
  std::memcpy(&cut, &bits, 8);
  const double a = std::abs(p);
  return Half(static_cast<float>(a < TINY ? std::copysign((a + GRID) - GRID, p) : cut));
}

extern "C" void kernel(const Half* go, const Half* v, const int16_t* bits, const float* slopes, const double* wide,
                       Half* out, int64_t rows, int64_t width, int64_t s_go, int64_t s_v, int64_t s_bits,
                       int64_t s_out, int64_t threads) {
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const Half* g = go + r * s_go;
    const Half* w = v + r * s_v;
    const int16_t* b = bits + r * s_bits;
    Half* o = out + r * s_out;
    auto far = [&](int64_t i) {
      const double f = static_cast<double>(g[i]) * (HAS_V ? static_cast<double>(w[i]) : 1.0);
      return rounded_once(wide[pattern(b[i])] * f);
    };
    auto off = [&](float s, float f) {  // whether the float32 product is not the one to take
      const float a = std::abs(f);
      return WIDE && (std::isnan(s) || (HAS_V && ((a < float(TINY) && a != 0) || a > FLT_MAX)));
    };
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      auto s = at::vec::gather<4>(slopes, patterns(b + i));
      auto f = at::vec::convert<float>(Vectorized<Half>::loadu(g + i, V));
      if (HAS_V) f = f * at::vec::convert<float>(Vectorized<Half>::loadu(w + i, V));
      at::vec::convert<Half>(s * f).store(o + i, V);
      if (WIDE) {
        auto bad = s != s;
        if (HAS_V) {
          auto a = f.abs();
          bad = bad | ((a < Vectorized<float>(float(TINY))) & (a != Vectorized<float>(0.0f))) |
                (a > Vectorized<float>(FLT_MAX));
        }
        const int good = bad.zero_mask();  // bit j set where element j took the float32 product
        if (good != (1 << V) - 1)
          for (int64_t j = 0; j < V; ++j)
            if (!((good >> j) & 1)) o[i + j] = far(i + j);
      }
    }
    for (; i < end; ++i) {
      const float s = slopes[pattern(b[i])];
      const float f = static_cast<float>(g[i]) * (HAS_V ? static_cast<float>(w[i]) : 1.0f);
      o[i] = off(s, f) ? far(i) : Half(s * f);
    }
  });
}
"""

_BUILT: dict[tuple, Callable | None] = {}
_LOCK = threading.Lock()


def kernel(which: str, dtype: torch.dtype, has_v: bool = False, wide: bool = False) -> Callable | None:
    """The compiled kernel `which` ("lookup" or "grad": go (* v, where `has_v`) * slopes, with float64 slopes
    for the far tails where `wide`) for half type `dtype`, built once; None where compilation is off or failed
    (the caller runs the torch-op forms, which give the same bits). `lookup` and `gradient` call them."""
    key = (which, dtype, has_v, wide)
    if key in _BUILT:
        return _BUILT[key]
    from nonlin.kernels import cpu

    with _LOCK:
        if key not in _BUILT:
            k = None
            if cpu.compile_available():
                try:
                    k = _compile(which, dtype, has_v, wide)
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


def _compile(which: str, dtype: torch.dtype, has_v: bool, wide: bool) -> Callable:
    half = _CTYPE[dtype]
    prelude = _PRELUDE.replace("HALF_TYPE", half) + FOR_BLOCKS
    if which == "lookup":
        args = ["const int16_t*", "const float*", f"{half}*", *["int64_t"] * 5]
        return mask_moves.load_pybinding(args, prelude + _LOOKUP)
    flags = f"constexpr bool HAS_V = {str(has_v).lower()}, WIDE = {str(wide).lower()};\n"
    args = [f"const {half}*", f"const {half}*", "const int16_t*", "const float*", "const double*", f"{half}*"]
    return mask_moves.load_pybinding([*args, *["int64_t"] * 7], prelude + flags + _GRAD)


def empty(shape: tuple[int, ...] | torch.Size, dtype: torch.dtype) -> torch.Tensor:
    """torch.empty(shape, dtype=dtype) on the CPU for the kernels' outputs, at half its cost: torch.empty parses a
    torch.Size or tuple argument ~1 us slower than the sizes given one by one (2.2 against 1.1 us on one Zen 4
    core, a 32K kernel's 16)."""
    return torch.empty(*shape, dtype=dtype) if shape else torch.empty((), dtype=dtype)


def row_layout(t: torch.Tensor) -> tuple[int, int, int]:
    """(rows, width, row stride) of a 1-D tensor, a 2-D one with unit inner stride, or a contiguous one of any
    other rank (one row: the caller passes tensors of one shape)."""
    if t.dim() == 1:
        return 1, t.shape[0], t.shape[0]
    if t.dim() == 2:
        return t.shape[0], t.shape[1], t.stride(0)
    if not t.is_contiguous():
        raise ValueError(f"row_layout: a tensor of {t.dim()} dimensions must be contiguous; got strides {t.stride()}")
    n = t.numel()
    return 1, n, n


def packed_halves(packed: torch.Tensor, value_first: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(gate, value), the halves of a packed [..., 2d] tensor's last dim (views): [gate | value], or [value |
    gate] where the value comes first."""
    d = packed.shape[-1] // 2
    first, second = packed[..., :d], packed[..., d:]
    return (second, first) if value_first else (first, second)


def lookup(bits: torch.Tensor, values: torch.Tensor, out: torch.Tensor, threads: int | None = None) -> bool:
    """out = values[bits] (out of the half type, values float32), or False where the kernel is not built."""
    k = kernel("lookup", out.dtype)
    if k is None:
        return False
    rows, width, s_bits = row_layout(bits)
    k(bits, values, out, rows, width, s_bits, row_layout(out)[2], threads or _threads(bits.numel()))
    return True


def gradient(
    go: torch.Tensor,
    v: torch.Tensor | None,
    bits: torch.Tensor,
    slopes: torch.Tensor,
    wide: torch.Tensor | None,
    out: torch.Tensor,
    threads: int | None = None,
) -> bool:
    """out = go (* v) * slopes[bits] as the torch-op forms round it, or False where the kernel is not built.
    All of the half type but bits (int16), slopes (float32) and wide (float64, or None: no far-tail path);
    1-D, or 2-D [rows, width] with unit inner stride."""
    k = kernel("grad", out.dtype, v is not None, wide is not None)
    if k is None:
        return False
    rows, width, s_go = row_layout(go)
    s_v = row_layout(v)[2] if v is not None else s_go
    k(
        go, go if v is None else v, bits, slopes, slopes if wide is None else wide, out,
        rows, width, s_go, s_v, row_layout(bits)[2], row_layout(out)[2], threads or _threads(go.numel()),
    )  # fmt: skip
    return True


def built(which: str, dtype: torch.dtype, has_v: bool | None = None) -> bool:
    """Whether some kernel `which` for half type `dtype` (and `has_v`, where given) is built (compiled, or
    found not to compile)."""
    return any(k[:2] == (which, dtype) and has_v in (None, k[2]) for k in _BUILT)


def _threads(n: int) -> int:
    """OpenMP threads for an n-element call: torch's intra-op count, one below `PARALLEL_NUMEL`."""
    return torch.get_num_threads() if n >= PARALLEL_NUMEL else 1
