"""Every transcendental primitive of the CPU fused path's namespace, compiled by inductor, against mpmath
and against the eager op.

The fused CPU path is the generated functions compiled by inductor; inductor lowers each primitive to its
own C++ (Sleef vector functions, or decompositions of its own). The precision and kernel tests measure the
uncompiled functions, so this test measures what inductor makes of each primitive, on a sample over every
binade (float32 bit patterns, so tiny arguments are covered) plus the edge values, in both compute dtypes.
It found inductor's `expm1 = exp(x) - 1` and float32 `erf` fit (see nonlin.ops.torch_compiled).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch

import nonlin
from nonlin.ops import TORCH
from nonlin.ops.mpmath_backend import MPMATH
from nonlin.ops.torch_compiled import COMPILED_TORCH

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]

# The compiled primitive may be SLACK ULP (of the compute dtype), plus twice the eager op's own error, less
# accurate than the eager op at any input. What inductor calls depends on the vector ISA it picks (it follows
# ATEN_CPU_CAPABILITY; CI forces each one, .ci/isa_matrix.py): Sleef's vector functions on AVX2 and AVX-512
# (<= 1 ULP; the same bits on both here), glibc's scalar functions without one (erfc is 2.04 ULP at x = 20 in
# float64, and up to 4 ULP before glibc 2.41), while eager ATen calls its own kernels, Sleef or MKL; in
# composites FMA contraction moves roundings. Where the formula itself loses accuracy (a composite's rounded
# argument in a far tail: norm_pdf at x = 28 in float64, ~250 ULP), eager and compiled lose it alike, each
# with its own roundings. A primitive that compiles to something else (the exp(x) - 1 kind) is millions of
# ULP off. The entries' own goals are checked on the entries.
SLACK = 3.0
UNARY = ("exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tanh", "atan", "erf", "erfc", "sigmoid", "softplus",
         "log_sigmoid", "sech2", "norm_cdf", "norm_pdf", "sinpi", "cospi", "erfcx", "gelu_grad", "gelu_tanh",
         "gelu_tanh_grad", "mish")  # fmt: skip
# Not mish_grad: its float64 formula cancels near x = -1.74 (tanh(sp) against x sech^2(sp) sigma(x), by ~7x), where
# the compiled ISA functions' 1 ULP each make 4.47 float64 ULP (eager ATen: 0.47): a property of the composite,
# not of compiling a primitive (measured on this sample; float32 and half outputs never see it).
POSITIVE = {"log", "sqrt"}  # sampled on |x|; log1p on x > -1
EXPONENTS = (2.0, 3.0, 2.5)  # pow: the integer powers rational uses and a fractional relu_pow


def _sample(n: int = 3000) -> np.ndarray:
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 0x7F800000, n, dtype=np.uint32)  # every finite positive float32, by bit pattern
    x = bits.view(np.float32).astype(np.float64) * rng.choice([-1.0, 1.0], n)
    x = np.concatenate([x, rng.uniform(-30, 30, 1000)])  # the range activations live in, densely
    edges = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1e-310, 3.4e38, -3.4e38, 1.0, -1.0]
    return np.concatenate([x, edges])


def _ulp_errors(got: torch.Tensor, exact: list, dtype: torch.dtype) -> np.ndarray:
    """|got - exact| in ULPs of `dtype` at |exact| (exact values as mpmath numbers; 0 where both are the same
    non-finite value or exact is beyond the dtype's range)."""
    fi = torch.finfo(dtype)
    digits = {torch.float32: 23, torch.float64: 52}[dtype]  # stored significand bits: ULP = 2^(exponent - digits)
    out = []
    for g, e in zip(got.double().tolist(), exact, strict=True):
        if mpmath.isnan(e) or mpmath.isinf(e) or abs(e) > fi.max:
            same = (math.isnan(g) and mpmath.isnan(e)) or g == e or (abs(e) > fi.max and abs(g) == math.inf)
            out.append(0.0 if same else math.inf)
            continue
        if math.isnan(g) or math.isinf(g):
            out.append(math.inf)
            continue
        mag = max(abs(e), mpmath.mpf(fi.tiny))
        ulp = mpmath.mpf(2) ** (mpmath.floor(mpmath.log(mag, 2)) - digits)
        out.append(float(abs(mpmath.mpf(g) - e) / ulp))
    return np.array(out)


def _check(name: str, fn, eager_fn, x: np.ndarray, exact_fn, dtype: torch.dtype) -> None:
    t = torch.from_numpy(x).to(dtype)
    # fn is often a torch builtin (torch.log) whose compilations all count against one code object's limit
    with torch._dynamo.config.patch(recompile_limit=256, accumulated_recompile_limit=4096):
        got = torch.compile(fn, dynamic=False, fullgraph=True)(t)
    eager = eager_fn(t)
    # At +-inf and NaN the expected value is IEEE's, as the eager float64 op gives it (cos(inf) is NaN,
    # tanh(inf) is 1); mpmath has no such convention.
    limits = eager_fn(t.double()).tolist()
    with mpmath.workdps(40):
        exact = [
            exact_fn(mpmath.mpf(v)) if math.isfinite(v) else mpmath.mpf(lim)
            for v, lim in zip(t.double().tolist(), limits, strict=True)
        ]
    err, err_eager = _ulp_errors(got, exact, dtype), _ulp_errors(eager, exact, dtype)
    worse = err - 2.0 * np.where(np.isfinite(err_eager), err_eager, 0.0)
    worst = int(np.nanargmax(np.where(np.isinf(err) & np.isinf(err_eager), 0.0, worse)))
    assert worse[worst] <= SLACK or (np.isinf(err[worst]) and np.isinf(err_eager[worst])), (
        f"inductor-compiled {name} ({dtype}): {err[worst]:.3g} ULP at x = {t[worst].item()!r} (got "
        f"{got[worst].item()!r}, exact {mpmath.nstr(exact[worst], 17)}); eager {err_eager[worst]:.3g} ULP"
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_primitive_compiles_accurately(name, dtype):
    x = _sample()
    if name in POSITIVE:
        x = np.abs(x)
    elif name == "log1p":
        x = x[~(x <= -1.0)]
    _check(name, getattr(COMPILED_TORCH, name), getattr(TORCH, name), x, getattr(MPMATH, name), dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("n", EXPONENTS)
def test_pow_compiles_accurately(n, dtype):
    x = np.abs(_sample())
    _check(
        f"pow(x, {n})",
        lambda t: COMPILED_TORCH.pow(t, n),
        lambda t: TORCH.pow(t, n),
        x,
        lambda v: MPMATH.pow(v, n),
        dtype,
    )


@pytest.mark.parametrize("op", ["sin", "cos", "erf"])
def test_float32_ops_inductor_lowers_inaccurately_are_atens_in_a_graph(op):
    """Float32 sin, cos and erf of the namespace are ATen's eager kernels in an op inductor cannot lower
    (`eager_float32`): a compiled graph gives the eager op's bits, where inductor's own sin is 2.3 ULP off and
    its erf a 1.5e-7 absolute fit; and the op is differentiable, for the torch backend's formulas traced under
    autograd."""
    from nonlin.ops.torch_compiled import eager_float32

    eager = {"sin": torch.sin, "cos": torch.cos, "erf": torch.special.erf}[op]
    x = torch.from_numpy(_sample()).float()
    x = torch.cat([x, torch.linspace(-1e5, 1e5, 20001)]).requires_grad_(True)
    with torch._dynamo.config.patch(recompile_limit=256, accumulated_recompile_limit=4096):
        y = torch.compile(getattr(COMPILED_TORCH, op), dynamic=False, fullgraph=True)(x)
        torch.testing.assert_close(y, eager(x), rtol=0, atol=0, equal_nan=True)
        (g,) = torch.autograd.grad(y, x, torch.ones_like(y))
    xe = x.detach().requires_grad_(True)
    (ge,) = torch.autograd.grad(eager(xe), xe, torch.ones_like(xe))
    # ATen's own derivative in float32 (erf's 2/sqrt(pi) e^{-x^2} of a rounded x^2 included), its products
    # rounded in another order
    torch.testing.assert_close(g, ge, rtol=2.4e-7, atol=1e-44, equal_nan=True)
    torch.library.opcheck(eager_float32, (torch.randn(4, 3, requires_grad=True), op))


def test_compiled_sech2_stays_in_its_range():
    """sech^2 lies in [0, 1]; 4t/(1+t)^2 compiled rounded it to 1.0000001 at x = 2.2e-7 (AVX2, AVX-512)."""
    x = torch.from_numpy(_sample()).float()
    x = torch.cat([x, torch.logspace(-12, 0, 2000), -torch.logspace(-12, 0, 2000)])
    with torch._dynamo.config.patch(recompile_limit=256, accumulated_recompile_limit=4096):
        y = torch.compile(COMPILED_TORCH.sech2, dynamic=False, fullgraph=True)(x)
    finite = ~torch.isnan(x)
    assert bool(((y[finite] >= 0) & (y[finite] <= 1)).all()), x[finite][(y[finite] > 1) | (y[finite] < 0)][:5]
    assert torch.isnan(y[~finite]).all()


class _Recorder:
    """The torch backend, recording which primitives a body calls."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __getattr__(self, name):
        self.used.add(name)
        return getattr(TORCH, name)


def _uses(name: str, primitives: set[str]) -> bool:
    s = nonlin.spec(name)
    rec = _Recorder()
    x = torch.linspace(-3, 3, 8, dtype=torch.float64)
    args = (x, x) if s.kind is nonlin.Kind.GATED else (x,)
    extra = [torch.full((8,), 0.5, dtype=torch.float64) for _ in s.extra_inputs]
    params = s.resolve_params({})
    s.forward(rec, *args, *extra, **params)
    s.derivative(rec, *args, *extra, **params)
    return bool(rec.used & primitives)


REPLACED = {"expm1", "erf", "sin", "cos", "sech2"}
USERS = [
    n for n in nonlin.names("pointwise") + nonlin.names("gated") if not nonlin.spec(n).stochastic and _uses(n, REPLACED)
]


@pytest.mark.parametrize("name", USERS)
def test_eager_formula_compiled_by_the_caller_is_accurate(name):
    """Inside a user's torch.compile on CPU, nonlin traces the fused path's functions into the caller's graph
    (nonlin.kernels.dispatch.traced): they call the replaced primitives' forms, so inductor's exp(x) - 1 never
    reaches the model (elu(-3e-12) was 0). Tiny arguments, where those lowerings fail, and ordinary ones:
    within 2 float32 ULP (forward) and 4 (gradient) of the eager path's correctly rounded bits."""
    f = nonlin.functional.function(name)
    x = torch.tensor([1e-20, -3e-12, 2e-9, -1e-7, 1e-4, -0.5, 2.0, -30.0], requires_grad=True)
    y0 = f(x)
    (g0,) = torch.autograd.grad(y0, x, torch.ones_like(y0))
    with torch._dynamo.config.patch(recompile_limit=256, accumulated_recompile_limit=4096):
        compiled = torch.compile(lambda t: f(t), fullgraph=True)
        y1 = compiled(x)
        (g1,) = torch.autograd.grad(y1, x, torch.ones_like(y1))
    # The caller's graph computes the fused path's functions (float32 math where nonlin.kernels.precision lists
    # the entry): within the float32 goals of the eager path's correctly rounded bits, never exp(x) - 1's 0.
    assert torch.allclose(y1, y0, rtol=2.4e-7, atol=0.0), (x.tolist(), y1.tolist(), y0.tolist())
    assert torch.allclose(g1, g0, rtol=4.8e-7, atol=0.0), (x.tolist(), g1.tolist(), g0.tolist())
