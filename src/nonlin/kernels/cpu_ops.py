"""The torch backend as the CPU fused path's generated functions call it: two primitives take forms whose
inductor-compiled code is as accurate as the eager op.

Inductor's C++ code generator (torch 2.13) compiles two primitives inaccurately, in its vectorised loops:
- `expm1` becomes `exp(x) - 1` ("decompose for a better performance"), in float32 and float64: every
  |x| below ~6e-8 (float32) or ~1e-16 (float64) gives 0, and the relative error grows as x shrinks
  (1e-10 -> 1.00000008e-10 in float64). elu, selu and celu use it.
- float32 `erf` becomes ATen's `Vectorized<float>::erf`, a fit with 1.5e-7 absolute error: erf(1e-12) = 0.
- float32 `sin` and `cos` become Sleef's vector functions, up to 2-3 ULP at large arguments where the eager
  ops are within 0.6 (enough to put gcu's float32 forward over its 2 ULP goal).
The float32 forms go through float64 (correctly rounded to float32 in effect), at about twice the cost.
tests/kernels/test_compiled_primitives.py measures every primitive of this namespace, compiled, against
the eager float64 ops; the forms below are what passes it. The uncompiled functions (backend "python")
use the same forms, so the precision tests measure what inductor compiles.
"""

from __future__ import annotations

import math

import torch

from nonlin.ops.torch_backend import TorchOps


class CompiledTorchOps(TorchOps):
    name = "torch-compiled"

    @staticmethod
    def expm1(x):
        if x.dtype == torch.float32:  # through float64: the form below is ~2 ULP, 0.5 once rounded to float32
            return CompiledTorchOps.expm1(x.double()).to(x.dtype)
        # Kahan's form: with u = e^x rounded, (u - 1) * x / log(u) cancels u's rounding error, so it stays
        # accurate (~2 ULP) where u - 1 alone loses every digit. u - 1 == -1 (x below ~-37) is the limit -1;
        # u == inf stays inf; NaN propagates. Below |x| = 2^-13 the Taylor polynomial is exact to 0.5 ULP
        # (the first omitted term is below 2^-78 x) and keeps -0.0 and subnormals.
        u = torch.exp(x)
        um1 = u - 1.0
        r = um1 * (x / torch.log(u))
        r = torch.where(um1 == -1.0, um1, r)
        r = torch.where(u == math.inf, u, r)
        taylor = x + x * (x * (1 / 2 + x * (1 / 6 + x * (1 / 24 + x * (1 / 120)))))
        return torch.where(torch.abs(x) < 2.0**-13, taylor, r)

    @staticmethod
    def erf(x):
        if x.dtype == torch.float32:  # inductor's float32 erf is the 1.5e-7 fit; its float64 erf is exact
            return torch.special.erf(x.double()).to(x.dtype)
        return torch.special.erf(x)

    @staticmethod
    def sin(x):
        return torch.sin(x.double()).to(x.dtype) if x.dtype == torch.float32 else torch.sin(x)

    @staticmethod
    def cos(x):
        return torch.cos(x.double()).to(x.dtype) if x.dtype == torch.float32 else torch.cos(x)


COMPILED_TORCH = CompiledTorchOps()
