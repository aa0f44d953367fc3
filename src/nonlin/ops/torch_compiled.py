"""The torch backend as inductor compiles it on CPU: five primitives take forms whose compiled code is as
accurate as the eager op. The fused CPU path's generated functions call this namespace.

Inductor's C++ code generator (torch 2.13) compiles these inaccurately, in its vectorised loops:
- `expm1` becomes `exp(x) - 1` ("decompose for a better performance"), in float32 and float64: every
  |x| below ~6e-8 (float32) or ~1e-16 (float64) gives 0, and the relative error grows as x shrinks
  (1e-10 -> 1.00000008e-10 in float64). elu, selu and celu use it.
- float32 `erf` becomes ATen's `Vectorized<float>::erf`, a fit with 1.5e-7 absolute error: erf(1e-12) = 0.
- float32 `sin` and `cos` become Sleef's vector functions, up to 2-3 ULP at large arguments where the eager
  ops are within 0.6 (enough to put gcu's float32 forward over its 2 ULP goal).
The float32 forms go through float64 (0.5 ULP once rounded to float32), at about twice the cost of the
float32 op.
- `sech2`'s 4t / (1 + t)^2 (t = e^{-2|x|}) rounds four times on a result near 1; compiled, with the
  vector ISA's division and FMA contraction, float32 sech2(2.23e-7) was 1.0000001 (2 ULP, and above 1,
  where sech^2 never is) on AVX2 and AVX-512 (eager: exactly 1). The form is clamped to 1: one min,
  where 1 - tanh(x)^2 near 0 cost 3x the whole primitive compiled.
tests/kernels/test_compiled_primitives.py measures every primitive of this namespace, compiled, against
mpmath and the eager ops; the forms below are what passes it. The generated CPU functions call them
compiled or not (backend "python"), so the precision tests measure what inductor compiles; the torch
backend itself switches to them while torch.compile traces on CPU (eager formulas in a user's graph).
"""

from __future__ import annotations

import math

import torch

from nonlin.ops.torch_backend import TorchOps


class CompiledTorchOps(TorchOps):
    name = "torch-compiled"

    @staticmethod
    def expm1(x):
        taylor = x + x * (x * (1 / 2 + x * (1 / 6 + x * (1 / 24 + x * (1 / 120)))))
        small = torch.abs(x) < 2.0**-13  # the first omitted Taylor term is below 2^-78 |x|: exact to 0.5 ULP
        if x.dtype == torch.float32:
            # In float64, e^x - 1 is off by 2^-53 absolute, under 2^-40 relative at |x| >= 2^-13: 0.5 float32
            # ULP once rounded, at the cost of one float64 exp (no log, unlike the form below).
            x64 = x.double()
            return torch.where(small, taylor, (torch.exp(x64) - 1.0).to(x.dtype))
        # Kahan's form: with u = e^x rounded, (u - 1) * x / log(u) cancels u's rounding error, so it stays
        # accurate (~2 ULP) where u - 1 alone loses every digit. u - 1 == -1 (x below ~-37) is the limit -1;
        # u == inf stays inf; NaN propagates.
        u = torch.exp(x)
        um1 = u - 1.0
        r = um1 * (x / torch.log(u))
        r = torch.where(um1 == -1.0, um1, r)
        r = torch.where(u == math.inf, u, r)
        return torch.where(small, taylor, r)

    @staticmethod
    def erf(x):
        if x.dtype == torch.float32:  # inductor's float32 erf is the 1.5e-7 fit; its float64 erf is exact
            return torch.special.erf(x.double()).to(x.dtype)
        return torch.special.erf(x)

    @staticmethod
    def sech2(x):
        t = torch.exp(-2.0 * torch.abs(x))
        # at most 1 (NaN stays NaN): where sech^2 x rounds to 1, that is the correctly rounded value
        return torch.clamp_max(4.0 * t / torch.square(1.0 + t), 1.0)

    @staticmethod
    def sin(x):
        return torch.sin(x.double()).to(x.dtype) if x.dtype == torch.float32 else torch.sin(x)

    @staticmethod
    def cos(x):
        return torch.cos(x.double()).to(x.dtype) if x.dtype == torch.float32 else torch.cos(x)


COMPILED_TORCH = CompiledTorchOps()
