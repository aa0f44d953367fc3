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

# float64 slopes (bfloat16 only): the float64 product cut to float32's 24 bits to odd, or below 2^-126 rounded
# to bfloat16's subnormal grid, then converted (exactly) to float32 and rounded once to the half type
# (table._grad_wide)
_GRAD_WIDE = r"""
constexpr int64_t DROPPED = (int64_t(1) << 29) - 1;
constexpr double GRID = 1.5 * 0x1p-81, TINY = 0x1p-126;

static inline double wide_scalar(double p) {
  int64_t b;
  std::memcpy(&b, &p, 8);
  b = (b & ~DROPPED) | (int64_t((b & DROPPED) != 0) << 29);
  double cut;
  std::memcpy(&cut, &b, 8);
  double a = std::abs(p);
  return a < TINY ? std::copysign((a + GRID) - GRID, p) : cut;
}

static inline Vectorized<double> wide(Vectorized<double> p) {
  auto b = at::vec::cast<int64_t>(p);
  auto dropped = b & Vectorized<int64_t>(DROPPED);
  auto odd = (dropped != Vectorized<int64_t>(0)) & Vectorized<int64_t>(int64_t(1) << 29);
  auto cut = at::vec::cast<double>((b & Vectorized<int64_t>(~DROPPED)) | odd);
  auto a = p.abs();
  auto sign = b & Vectorized<int64_t>(std::numeric_limits<int64_t>::min());
  auto tiny = at::vec::cast<double>(at::vec::cast<int64_t>((a + Vectorized<double>(GRID)) - Vectorized<double>(GRID)) | sign);
  return Vectorized<double>::blendv(cut, tiny, a < Vectorized<double>(TINY));
}

// float32 <-> float64 and the float64 gather, by the ISA's instructions: ATen's vector types convert between
// float and double element by element
static inline void gather_wide(const double* s, Vectorized<int32_t> index, Vectorized<double>& lo,
                               Vectorized<double>& hi) {
#if defined(CPU_CAPABILITY_AVX512)
  __m512i i = index;
  lo = _mm512_i32gather_pd(_mm512_castsi512_si256(i), s, 8);
  hi = _mm512_i32gather_pd(_mm512_extracti64x4_epi64(i, 1), s, 8);
#elif defined(CPU_CAPABILITY_AVX2)
  __m256i i = index;
  lo = _mm256_i32gather_pd(s, _mm256_castsi256_si128(i), 8);
  hi = _mm256_i32gather_pd(s, _mm256_extracti128_si256(i, 1), 8);
#else
  int32_t i[V];
  double d[V];
  index.store(i);
  for (int64_t j = 0; j < V; ++j) d[j] = s[i[j]];
  lo = Vectorized<double>::loadu(d);
  hi = Vectorized<double>::loadu(d + V / 2);
#endif
}

static inline void widen(Vectorized<float> f, Vectorized<double>& lo, Vectorized<double>& hi) {
#if defined(CPU_CAPABILITY_AVX512)
  __m512 v = f;
  lo = _mm512_cvtps_pd(_mm512_castps512_ps256(v));
  hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
#elif defined(CPU_CAPABILITY_AVX2)
  __m256 v = f;
  lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
  hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
#else
  float a[V];
  double d[V];
  f.store(a);
  for (int64_t j = 0; j < V; ++j) d[j] = a[j];
  lo = Vectorized<double>::loadu(d);
  hi = Vectorized<double>::loadu(d + V / 2);
#endif
}

static inline Vectorized<float> narrow(Vectorized<double> lo, Vectorized<double> hi) {
#if defined(CPU_CAPABILITY_AVX512)
  return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
#elif defined(CPU_CAPABILITY_AVX2)
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
#else
  double d[V];
  float a[V];
  lo.store(d);
  hi.store(d + V / 2);
  for (int64_t j = 0; j < V; ++j) a[j] = static_cast<float>(d[j]);
  return Vectorized<float>::loadu(a);
#endif
}

extern "C" void kernel(const Half* go, const int16_t* bits, const double* slopes, Half* out, int64_t n,
                       int64_t threads) {
  for_chunks(n, threads, [&](int64_t begin, int64_t end) {
    int64_t i = begin;
    for (; i + V <= end; i += V) {
      Vectorized<double> s_lo, s_hi, g_lo, g_hi;
      gather_wide(slopes, patterns(bits + i), s_lo, s_hi);
      widen(at::vec::convert<float>(Vectorized<Half>::loadu(go + i, V)), g_lo, g_hi);
      at::vec::convert<Half>(narrow(wide(s_lo * g_lo), wide(s_hi * g_hi))).store(out + i, V);
    }
    for (; i < end; ++i)
      out[i] = Half(static_cast<float>(wide_scalar(slopes[pattern(bits[i])] * static_cast<double>(go[i]))));
  });
}
"""

_BUILT: dict[tuple, Callable | None] = {}
_LOCK = threading.Lock()


def kernel(which: str, dtype: torch.dtype, slopes: torch.dtype | None = None) -> Callable | None:
    """The compiled kernel `which` ("lookup" or "grad") for half type `dtype` (and slope dtype), built once;
    None where compilation is off or failed (the caller runs the torch-op forms, which give the same bits).

    lookup(bits, values, out, n, threads); grad(go, bits, slopes, out, n, threads): contiguous tensors (bits
    int16, values float32, out and go of the half type), n elements, OpenMP threads.
    """
    key = (which, dtype, slopes)
    if key in _BUILT:
        return _BUILT[key]
    from nonlin.kernels import cpu

    with _LOCK:
        if key not in _BUILT:
            k = None
            if cpu.compile_available():
                try:
                    k = _compile(which, dtype, slopes)
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


def _compile(which: str, dtype: torch.dtype, slopes: torch.dtype | None) -> Callable:
    from torch._inductor.codecache import CppPythonBindingsCodeCache

    half = _CTYPE[dtype]
    if which == "lookup":
        body, args = _LOOKUP, ["const int16_t*", "const float*", f"{half}*"]
    elif slopes == torch.float32:
        body, args = _GRAD, [f"const {half}*", "const int16_t*", "const float*", f"{half}*"]
    else:
        body, args = _GRAD_WIDE, [f"const {half}*", "const int16_t*", "const double*", f"{half}*"]
    source = _PRELUDE.replace("HALF_TYPE", half) + body
    return CppPythonBindingsCodeCache.load_pybinding([*args, "int64_t", "int64_t"], source)


def built(which: str, dtype: torch.dtype) -> bool:
    """Whether some kernel `which` for half type `dtype` is built (compiled, or found not to compile)."""
    return any(k[:2] == (which, dtype) for k in _BUILT)


def threads(n: int) -> int:
    """OpenMP threads for an n-element call: torch's intra-op count, one below `PARALLEL_NUMEL`."""
    return torch.get_num_threads() if n >= PARALLEL_NUMEL else 1
