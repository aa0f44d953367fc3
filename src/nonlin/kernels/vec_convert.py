"""Vector float32 <-> float64 conversions for the inductor kernels nonlin compiles itself.

Inductor writes a float32 -> float64 conversion as `at::vec::convert<double, 2, float, 1>` (and the way back as
`convert<float, 1, double, 2>`). ATen (torch 2.13) specialises neither for AVX-512 or AVX2, so both take
`VecConvert`'s generic form: store the vector, convert element by element, load it back. In a float32 kernel
that computes in float64 (the entries `precision.py` keeps in float64, and the float64 steps of the float32
forms) the two conversions cost more than the arithmetic: hardswish's forward 3.2 ns per element with them,
1.1 without, on an AVX-512 machine (torch.hardswish: 0.5).

A float64 kernel that combines comparisons (`(x > theta) | isnan(x)`: jumprelu_sae's forward) also casts its
double masks to int32 masks and back (`VecMask<double, 2>::cast<int, 1>` and the reverse), which ATen leaves to the
same generic form: jumprelu_sae's forward took 5.2 ns per element, 0.56 with the casts composed of ATen's own
(double -> int64 -> int32 masks: a reinterpretation and a vector narrowing, and the way back).

A compiled model saves its comparisons for the backward as bool arrays: the forward kernel writes each mask with
`VecMask::store(bool*)` and the backward reads it with `VecMask<float, 1>::from(const bool*, count)` (bfloat16 and
float16 kernels: `VecMask<float, 2>`, two float vectors), both generic forms element by element (ATen specialises
neither): squareplus's compiled forward kernel took 16.3 ns per element with them, 1.9 without its two stores; its
backward 4.7, 2.6 with the masks computed instead of read. The
specialisations below write a mask's sign bits as bytes and read bytes back into a mask by vector code (AVX-512:
masked byte loads and stores; AVX2: movemask and a widening), and are added to a kernel that converts or that
has a bool array argument and a VecMask (tests/kernels/test_vec_convert.py: the generic forms' bytes and lanes).

`vector_conversions()` adds the specialisations (the conversions by `vcvtps2pd` / `vcvtpd2ps`, the same on
AVX2, the two mask casts and the bool masks) to the source of every C++ kernel inductor builds while it is active: nonlin enters
it around the compilation of its own kernels (kernels/cpu.py's `Direct`). Inside a user's torch.compile, nonlin's
generated functions are traced into the user's graph and built by the user's inductor after the trace, where no
scope of nonlin's reaches: there `install()` (called by dispatch._prepare when generated functions are traced) adds them
to every kernel the process builds from then on, once a probe kernel built with them gave the scalar conversions'
bits. The bits are the generic form's: widening is exact, and narrowing rounds by the current rounding mode (to
nearest even) as `static_cast<float>` does, NaN payloads included, and the mask casts select the same lanes
(tests/kernels/test_vec_convert.py), so a user's own kernels that convert only get faster. Where inductor builds
for neither ISA, or the hook is missing from this torch, nothing is added.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

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
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
// A half-type kernel's float64 steps (nonlin's float64 formula traced into a compiled model: the eager route,
// where a parameter is a tensor or the entry takes extra inputs) hold its lanes in two float vectors and four
// double vectors: the conversions above, per vector (ATen's own for bfloat16 and float16 <-> float)
template <> struct VecConvert<double, 4, float, 2> {
  static inline VectorizedN<double, 4> apply(const VectorizedN<float, 2>& src) {
    VectorizedN<double, 4> out;
    for (int i = 0; i < 2; ++i) {
      const VectorizedN<double, 2> part = VecConvert<double, 2, float, 1>::apply(VectorizedN<float, 1>(src[i]));
      out[2 * i] = part[0];
      out[2 * i + 1] = part[1];
    }
    return out;
  }
};
template <> struct VecConvert<float, 2, double, 4> {
  static inline VectorizedN<float, 2> apply(const VectorizedN<double, 4>& src) {
    VectorizedN<float, 2> out;
    for (int i = 0; i < 2; ++i) {
      VectorizedN<double, 2> part;
      part[0] = src[2 * i];
      part[1] = src[2 * i + 1];
      out[i] = VecConvert<float, 1, double, 2>::apply(part)[0];
    }
    return out;
  }
};
template <typename H> struct VecConvert<double, 4, H, 1, std::enable_if_t<is_reduced_floating_point_v<H>>> {
  static inline VectorizedN<double, 4> apply(const VectorizedN<H, 1>& src) {
    return VecConvert<double, 4, float, 2>::apply(VecConvert<float, 2, H, 1>::apply(src));
  }
};
template <typename H> struct VecConvert<H, 1, double, 4, std::enable_if_t<is_reduced_floating_point_v<H>>> {
  static inline VectorizedN<H, 1> apply(const VectorizedN<double, 4>& src) {  // (through float: static_cast's way)
    return VecConvert<H, 1, float, 2>::apply(VecConvert<float, 2, double, 4>::apply(src));
  }
};
// and their masks: four double vectors to two float or int vectors and back, through ATen's int64 masks
template <typename T>
struct VecMaskCast<double, 4, T, 2, std::enable_if_t<std::is_same_v<T, float> || std::is_same_v<T, int>>> {
  static inline VecMask<double, 4> apply(const VecMask<T, 2>& mask) {
    return VecMaskCast<double, 4, int64_t, 4>::apply(VecMaskCast<int64_t, 4, T, 2>::apply(mask));
  }
};
template <typename T>
struct VecMaskCast<T, 2, double, 4, std::enable_if_t<std::is_same_v<T, float> || std::is_same_v<T, int>>> {
  static inline VecMask<T, 2> apply(const VecMask<double, 4>& mask) {
    return VecMaskCast<T, 2, int64_t, 4>::apply(VecMaskCast<int64_t, 4, double, 4>::apply(mask));
  }
};
// A mask as bools (what VecMask::store writes to a bool array: a saved comparison's bytes), 0 or 1 per lane:
// the lanes' sign bits (a true lane is all ones) as an integer, one byte per bit
static inline Vectorized<bool> nonlin_mask_bytes(uint64_t bits, int lanes) {
  __at_align__ bool bytes[Vectorized<bool>::size()] = {};
#if defined(CPU_CAPABILITY_AVX512)
  _mm512_storeu_si512(bytes, _mm512_maskz_set1_epi8(static_cast<__mmask64>(bits), 1));
#else
  for (int i = 0; i < lanes; ++i) bytes[i] = (bits >> i) & 1;
#endif
  return Vectorized<bool>::loadu(bytes);
}
// A comparison saved as bools read back as a float mask (inductor writes VecMask<float, 1>::from(ptr, count) with
// the count even for whole vectors: the generic form's element loop), lanes from `count` on false
template <> template <> inline VecMask<float, 1> VecMask<float, 1>::from<const bool>(const bool* b, int count) {
#if defined(CPU_CAPABILITY_AVX512)
  const __mmask16 in = static_cast<__mmask16>(count >= 16 ? 0xFFFF : (1u << count) - 1);
  const __m128i bytes = _mm_maskz_loadu_epi8(in, b);
  return Vectorized<float>(_mm512_castsi512_ps(_mm512_maskz_set1_epi32(_mm_test_epi8_mask(bytes, bytes), -1)));
#else
  uint64_t word = 0;
  std::memcpy(&word, b, std::min(count, 8));
  const __m256i lanes = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(word)));
  return Vectorized<float>(_mm256_castsi256_ps(_mm256_cmpgt_epi32(lanes, _mm256_setzero_si256())));
#endif
}
// The same for the two float vectors of a half-type kernel's mask (bfloat16 and float16 compute in float32; float64
// kernels read their masks as VecMask<float, 1> and cast them)
template <> template <> inline VecMask<float, 2> VecMask<float, 2>::from<const bool>(const bool* b, int count) {
  VectorizedN<float, 2> out;
#if defined(CPU_CAPABILITY_AVX512)
  const __mmask32 in = count >= 32 ? 0xFFFFFFFFu : (1u << count) - 1;
  const __m256i bytes = _mm256_maskz_loadu_epi8(in, b);
  const __mmask32 set = _mm256_test_epi8_mask(bytes, bytes);
  out[0] = Vectorized<float>(_mm512_castsi512_ps(_mm512_maskz_set1_epi32(static_cast<__mmask16>(set), -1)));
  out[1] = Vectorized<float>(_mm512_castsi512_ps(_mm512_maskz_set1_epi32(static_cast<__mmask16>(set >> 16), -1)));
#else
  __at_align__ uint8_t bytes[16] = {};
  std::memcpy(bytes, b, std::min(count, 16));
  const __m128i all = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes));
  const __m256i zero = _mm256_setzero_si256();
  out[0] = Vectorized<float>(_mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_cvtepu8_epi32(all), zero)));
  out[1] = Vectorized<float>(_mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(all, 8)), zero)));
#endif
  return VecMask<float, 2>(out);
}
// The sign bits of a mask's lanes (a true lane is all ones), lane i at bit i, for the bool forms below
static inline uint64_t nonlin_sign_bits(const Vectorized<float>& v) {
#if defined(CPU_CAPABILITY_AVX512)
  return _mm512_movepi32_mask(_mm512_castps_si512(v));
#else
  return static_cast<uint32_t>(_mm256_movemask_ps(v));
#endif
}
static inline uint64_t nonlin_sign_bits(const Vectorized<double>& v) {
#if defined(CPU_CAPABILITY_AVX512)
  return _mm512_movepi64_mask(_mm512_castpd_si512(v));
#else
  return static_cast<uint32_t>(_mm256_movemask_pd(v));
#endif
}
template <typename T, int N> static inline VecMask<bool, 1> nonlin_mask_as_bools(const VecMask<T, N>& mask) {
  const VectorizedN<T, N> v = mask;
  uint64_t bits = 0;
  for (int i = 0; i < N; ++i) bits |= nonlin_sign_bits(v[i]) << (i * Vectorized<T>::size());
  return nonlin_mask_bytes(bits, N * Vectorized<T>::size());
}
// A float32 kernel's masks (one float vector, or two double vectors where it computes in float64), a half-type
// kernel's (two float vectors, or four doubles)
template <> struct VecMaskTo<bool, 1, float, 1> {
  static inline VecMask<bool, 1> apply(const VecMask<float, 1>& mask) { return nonlin_mask_as_bools(mask); }
};
template <> struct VecMaskTo<bool, 1, float, 2> {
  static inline VecMask<bool, 1> apply(const VecMask<float, 2>& mask) { return nonlin_mask_as_bools(mask); }
};
template <> struct VecMaskTo<bool, 1, double, 2> {
  static inline VecMask<bool, 1> apply(const VecMask<double, 2>& mask) { return nonlin_mask_as_bools(mask); }
};
template <> struct VecMaskTo<bool, 1, double, 4> {
  static inline VecMask<bool, 1> apply(const VecMask<double, 4>& mask) { return nonlin_mask_as_bools(mask); }
};
template <> struct VecMaskCast<int, 1, double, 2> {
  static inline VecMask<int, 1> apply(const VecMask<double, 2>& mask) {
    return VecMaskCast<int, 1, int64_t, 2>::apply(VecMaskCast<int64_t, 2, double, 2>::apply(mask));
  }
};
template <> struct VecMaskCast<double, 2, int, 1> {
  static inline VecMask<double, 2> apply(const VecMask<int, 1>& mask) {
    return VecMaskCast<double, 2, int64_t, 2>::apply(VecMaskCast<int64_t, 2, int, 1>::apply(mask));
  }
};
#endif
}}  // namespace at::vec::CPU_CAPABILITY
"""

_PREFIX = "#include <torch/csrc/inductor/cpp_prefix.h>\n"
_CONVERSIONS = (
    "convert<double,2,float,1>",
    "convert<float,1,double,2>",
    "convert<double,4,",
    "convert<float,2,double,4>",
)

_LOCK = threading.Lock()
patched_sources = 0  # kernels that got the specialisations (tests read it)


def with_conversions(source: str) -> str:
    """`source` (an inductor C++ kernel) with the specialisations after its prefix, where it converts or writes
    a mask to a bool array (once: a source that has them is returned as it is)."""
    stores_masks = "VecMask<" in source and "bool*" in source
    if (
        _PREFIX not in source
        or _SPECIALISATIONS in source
        or not (stores_masks or any(c in source for c in _CONVERSIONS))
    ):
        return source
    return source.replace(_PREFIX, _PREFIX + _SPECIALISATIONS, 1)


def _hook():
    """inductor's AsyncCompile (its generated modules build their C++ through `cpp_pybinding`), or None."""
    try:
        from torch._inductor.async_compile import AsyncCompile
    except ImportError:
        return None
    return AsyncCompile if callable(getattr(AsyncCompile, "cpp_pybinding", None)) else None


def _wrap(original, also: Callable[[str], str] | None = None):
    def cpp_pybinding(self, argtypes, source_code, *args, **kwargs):
        global patched_sources
        patched = with_conversions(source_code)
        patched_sources += patched is not source_code
        if also is not None:
            patched = also(patched)
        return original(self, argtypes, patched, *args, **kwargs)

    cpp_pybinding.nonlin_original = original
    return cpp_pybinding


def installed() -> bool:
    """Whether the conversions are added to the kernels this process builds now: after `install`, or inside a
    `vector_conversions` scope."""
    hook = _hook()
    return hook is not None and hasattr(hook.cpp_pybinding, "nonlin_original")


@contextlib.contextmanager
def vector_conversions(also: Callable[[str], str] | None = None) -> Iterator[None]:
    """While active, the C++ kernels inductor builds in this process get the vector conversions, and then
    `also`'s change of their source (nonlin's own kernels: kernels/prefetch.py's)."""
    hook = _hook()
    if hook is None or (installed() and also is None):
        yield
        return
    with _LOCK:
        original = hook.cpp_pybinding
        hook.cpp_pybinding = _wrap(original, also)
        try:
            yield
        finally:
            hook.cpp_pybinding = original


@contextlib.contextmanager
def without() -> Iterator[None]:
    """While active, the C++ kernels inductor builds get none of the specialisations, also where `install()` or a
    `vector_conversions` scope added them: inductor's own code, as a process without nonlin builds it (the
    baselines of benchmarks/kernels.py, which a user would run instead; the generic forms tests compare with)."""
    hook = _hook()
    current = hook.cpp_pybinding if hook is not None else None
    if current is None or not hasattr(current, "nonlin_original"):
        yield
        return
    hook.cpp_pybinding = current.nonlin_original  # (not under _LOCK: a vector_conversions scope may hold it)
    try:
        yield
    finally:
        hook.cpp_pybinding = current


def install() -> bool:
    """Give every C++ kernel inductor builds from now on in this process the vector conversions, once a probe
    kernel built with them gives the generic conversions' bits; returns whether they are installed.

    For nonlin's generated functions inside a user's torch.compile (dispatch._prepare calls it when a float32
    call puts them in the caller's graph): the caller's inductor builds those kernels, after tracing, outside
    any scope nonlin could enter. The user's other kernels that convert get the same specialisations: the
    same bits, faster."""
    global _PROBED
    hook = _hook()
    if hook is None:
        return False
    if installed():
        return True
    with _LOCK:
        if _PROBED is None:
            _PROBED = _probe()
        if _PROBED and not installed():
            hook.cpp_pybinding = _wrap(hook.cpp_pybinding)
    return installed()


_PROBED: bool | None = None


_PROBE = r"""
extern "C" void kernel(const float* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(CPU_CAPABILITY_AVX512) || defined(CPU_CAPABILITY_AVX2)
  using at::vec::Vectorized;
  for (; i + Vectorized<float>::size() <= n; i += Vectorized<float>::size()) {
    auto wide = at::vec::convert<double,2,float,1>(Vectorized<float>::loadu(in + i));
    at::vec::convert<float,1,double,2>(wide * at::vec::VectorizedN<double, 2>(3.0)).store(out + i);
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(static_cast<double>(in[i]) * 3.0);
}
"""


def _probe() -> bool:
    """Whether a kernel with the specialisations builds here (inductor's toolchain, no dynamo: install() runs
    while dynamo traces) and gives the scalar conversions' bits."""
    import torch
    from torch._inductor.codecache import CppPythonBindingsCodeCache

    x = torch.tensor([1.0, -0.0, float("inf"), -float("nan"), 2.0**-149, 3.0e38, 1.1754942e-38, 0.1] * 5)
    x = torch.cat([x, torch.randn(1000, generator=torch.Generator().manual_seed(0))])
    try:
        kernel = CppPythonBindingsCodeCache.load_pybinding(
            ["const float*", "float*", "int64_t"], with_conversions(_PREFIX + _PROBE)
        )
        got = torch.empty_like(x)
        kernel(x, got, x.numel())
    except Exception:  # the specialisations do not compile with this torch: inductor's own conversions stay
        return False
    want = (x.double() * 3.0).float()
    return torch.equal(got.view(torch.int32), want.view(torch.int32))
