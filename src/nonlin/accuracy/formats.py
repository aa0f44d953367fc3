"""Floating-point formats measured by nonlin.accuracy: rounding to them, their ULP, their bit patterns.

Everything is done on float64 numpy arrays: every bf16, fp16 and fp32 value is exactly a float64, so a
value rounded to a format is stored as a float64 holding that format's value. Rounding is done here,
not by ``torch.Tensor.to``: torch converts float64 to bfloat16 through float32 (two roundings), which
is not correct rounding (1 + 2^-8 + 2^-30 becomes 1.0 instead of 1 + 2^-7).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True)
class Format:
    """A binary floating-point format: `precision` significand bits (with the implicit one), normal exponents
    from `emin` to `emax`, subnormals below (IEEE 754 style; bf16 is float32's exponent with 8 bits)."""

    name: str
    precision: int
    emin: int
    emax: int
    torch_dtype: torch.dtype
    bits: int

    @property
    def max_finite(self) -> float:
        return float(np.ldexp(2.0 - 2.0 ** (1 - self.precision), self.emax))

    @property
    def min_subnormal(self) -> float:
        return float(np.ldexp(1.0, self.emin - self.precision + 1))

    @property
    def min_normal(self) -> float:
        return float(np.ldexp(1.0, self.emin))

    def ulp(self, y: np.ndarray) -> np.ndarray:
        """Gap between format numbers in the binade of |y| (Goldberg's ulp): 2^(e-p+1) for 2^e <= |y| < 2^(e+1),
        the subnormal spacing below the normal range, the top binade's gap beyond the largest finite."""
        y = np.abs(np.asarray(y, dtype=np.float64))
        _, e = np.frexp(np.where(np.isfinite(y), y, self.max_finite))  # |y| = m 2^e, 1/2 <= m < 1
        e = np.where(y == 0, self.emin, np.minimum(e - 1, self.emax))  # frexp(0) gives e = 0
        return np.ldexp(1.0, np.maximum(e, self.emin) - self.precision + 1)

    def round(self, x: np.ndarray) -> np.ndarray:
        """Round float64 values to this format, to nearest with ties to even, overflowing to inf (IEEE 754).

        The scaling by a power of two and `np.rint` are exact in float64 for p <= 24, so the result is
        the correctly rounded value of the float64 input.
        """
        x = np.asarray(x, dtype=np.float64)
        finite = np.isfinite(x)
        _, e = np.frexp(np.where(finite, x, 0.0))
        q = np.maximum(e - 1, self.emin) - self.precision + 1  # exponent of the ulp
        with np.errstate(over="ignore", invalid="ignore"):
            r = np.ldexp(np.rint(np.ldexp(x, -q)), q)
            r = np.where(np.abs(r) > self.max_finite, np.copysign(np.inf, x), r)
            r = np.copysign(r, x)  # rint(-tiny) is -0.0 already; keep the sign of zeros explicit
        return np.where(finite, r, x)

    def from_bits(self, bits: np.ndarray) -> np.ndarray:
        """float64 values of raw bit patterns of this format."""
        bits = np.asarray(bits)
        if self.name == "float16":
            return bits.astype(np.uint16).view(np.float16).astype(np.float64)
        if self.name == "float32":
            return bits.astype(np.uint32).view(np.float32).astype(np.float64)
        # bfloat16 = the upper half of a float32
        with np.errstate(invalid="ignore"):
            return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)

    def to_bits(self, x: np.ndarray) -> np.ndarray:
        """Raw bit patterns of values already in this format (float64 holding them exactly)."""
        x = np.asarray(x, dtype=np.float64)
        if self.name == "float16":
            return x.astype(np.float16).view(np.uint16).astype(np.int64)
        f = x.astype(np.float32).view(np.uint32).astype(np.int64)
        return f >> 16 if self.name == "bfloat16" else f

    def all_values(self) -> np.ndarray:
        """Every finite value of a 16-bit format (both zeros, subnormals included), then -inf, +inf and one NaN."""
        if self.bits != 16:
            raise ValueError(f"{self.name} has 2^{self.bits} patterns; exhaustive inputs exist for 16-bit formats only")
        v = self.from_bits(np.arange(1 << 16))
        v = v[np.isfinite(v)]
        return np.concatenate([v, [-np.inf, np.inf, np.nan]])

    def to_tensor(self, x: np.ndarray) -> torch.Tensor:
        """A tensor of this dtype holding exactly the values `x` (already in the format)."""
        x = np.asarray(x, dtype=np.float64)
        if self.name == "bfloat16":
            # float64 -> float32 is exact for bf16 values; float32 -> bfloat16 then is exact too.
            return torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16)
        return torch.from_numpy(x.astype(np.float32 if self.name == "float32" else np.float16))


FLOAT32 = Format("float32", 24, -126, 127, torch.float32, 32)
FLOAT16 = Format("float16", 11, -14, 15, torch.float16, 16)
BFLOAT16 = Format("bfloat16", 8, -126, 127, torch.bfloat16, 16)
FORMATS: dict[str, Format] = {f.name: f for f in (FLOAT32, BFLOAT16, FLOAT16)}
_ALIASES = {
    "fp32": "float32",
    "f32": "float32",
    "fp16": "float16",
    "half": "float16",
    "f16": "float16",
    "bf16": "bfloat16",
}


def get_format(dtype: str | torch.dtype | Format) -> Format:
    """The Format for a dtype name ("float32", "bf16", ...) or a torch dtype."""
    if isinstance(dtype, Format):
        return dtype
    if isinstance(dtype, torch.dtype):
        for f in FORMATS.values():
            if f.torch_dtype == dtype:
                return f
        raise ValueError(f"dtype {dtype} is not measured; expected one of {', '.join(FORMATS)}")
    if isinstance(dtype, str):
        key = dtype.strip().lower().removeprefix("torch.")
        key = _ALIASES.get(key, key)
        if key in FORMATS:
            return FORMATS[key]
    raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(FORMATS)} (or bf16, fp16, fp32)")


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """float64 copy of a tensor (exact for every floating dtype measured here)."""
    return t.detach().to(torch.float64).cpu().numpy()
