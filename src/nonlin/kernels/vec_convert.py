"""Vector float32 <-> float64 conversions for the inductor kernels nonlin compiles itself.

Inductor writes a float32 -> float64 conversion as `at::vec::convert<double, 2, float, 1>` (and the way back as
`convert<float, 1, double, 2>`). ATen (torch 2.13) specialises neither for AVX-512 or AVX2, so both take
`VecConvert`'s generic form: store the vector, convert element by element, load it back. In a float32 kernel
that computes in float64 (the entries `precision.py` keeps in float64, and the float64 steps of the float32
forms) the two conversions cost more than the arithmetic: hardswish's forward 3.2 ns per element with them,
1.1 without, on this AVX-512 machine (torch.hardswish: 0.5).

`vector_conversions()` adds the two specialisations (`vcvtps2pd` / `vcvtpd2ps`, the same on AVX2) to the
source of every C++ kernel inductor builds while it is active: nonlin enters it around the compilation of its own
kernels (kernels/cpu.py's `Direct`), not around a user's torch.compile. The bits are the generic form's: widening
is exact, and narrowing rounds by the current rounding mode (to nearest even) as `static_cast<float>` does, NaN
payloads included (tests/kernels/test_vec_convert.py). Where inductor builds for neither ISA, or the hook is
missing from this torch, nothing is added.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_SPECIALISATIONS = r"""
namespace at::vec { inline namespace CPU_CAPABILITY {
#if defined(CPU_CAPABILITY_AVX512)
template <> struct VecConvert<double, 2, float, 1> {
  static inline VectorizedN<double, 2> apply(const VectorizedN<float, 1>& src) {
    const __m512 v = src[0];
    VectorizedN<double, 2> out;
    out[0] = Vectorized<double>(_mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    out[1] = Vectorized<double>(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
    return out;
  }
};
template <> struct VecConvert<float, 1, double, 2> {
  static inline VectorizedN<float, 1> apply(const VectorizedN<double, 2>& src) {
    const __m256d low = _mm256_castps_pd(_mm512_cvtpd_ps(src[0])), high = _mm256_castps_pd(_mm512_cvtpd_ps(src[1]));
    return Vectorized<float>(_mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(low), high, 1)));
  }
};
#elif defined(CPU_CAPABILITY_AVX2)
template <> struct VecConvert<double, 2, float, 1> {
  static inline VectorizedN<double, 2> apply(const VectorizedN<float, 1>& src) {
    const __m256 v = src[0];
    VectorizedN<double, 2> out;
    out[0] = Vectorized<double>(_mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    out[1] = Vectorized<double>(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    return out;
  }
};
template <> struct VecConvert<float, 1, double, 2> {
  static inline VectorizedN<float, 1> apply(const VectorizedN<double, 2>& src) {
    const __m128 low = _mm256_cvtpd_ps(src[0]), high = _mm256_cvtpd_ps(src[1]);
    return Vectorized<float>(_mm256_insertf128_ps(_mm256_castps128_ps256(low), high, 1));
  }
};
#endif
}}  // namespace at::vec::CPU_CAPABILITY
"""

_PREFIX = "#include <torch/csrc/inductor/cpp_prefix.h>\n"
_CONVERSIONS = ("convert<double,2,float,1>", "convert<float,1,double,2>")

_LOCK = threading.Lock()
patched_sources = 0  # kernels that got the specialisations (tests read it)


def with_conversions(source: str) -> str:
    """`source` (an inductor C++ kernel) with the specialisations after its prefix, where it converts."""
    if _PREFIX not in source or not any(c in source for c in _CONVERSIONS):
        return source
    return source.replace(_PREFIX, _PREFIX + _SPECIALISATIONS, 1)


@contextlib.contextmanager
def vector_conversions() -> Iterator[None]:
    """While active, the C++ kernels inductor builds in this process get the vector conversions (inductor's
    generated modules build theirs through `AsyncCompile.cpp_pybinding`)."""
    try:
        from torch._inductor.async_compile import AsyncCompile
    except ImportError:
        yield
        return
    original = getattr(AsyncCompile, "cpp_pybinding", None)
    if original is None:
        yield
        return

    def cpp_pybinding(self, argtypes, source_code):
        global patched_sources
        patched = with_conversions(source_code)
        patched_sources += patched is not source_code
        return original(self, argtypes, patched)

    with _LOCK:
        AsyncCompile.cpp_pybinding = cpp_pybinding
        try:
            yield
        finally:
            AsyncCompile.cpp_pybinding = original
