"""The CPU fused path: generated torch functions (every entry, uncompiled) and their inductor build."""

from __future__ import annotations

import pytest
import torch
from kernel_helpers import FUSED, gen

import nonlin
from nonlin import route
from nonlin.kernels import cpu, use

F = nonlin.functional


def _case(name: str, dtype: torch.dtype):
    s = nonlin.spec(name)
    if s.kind is nonlin.Kind.GATED:
        x = torch.randn(4, 2 * 19, generator=gen(21)).to(dtype)
        kw = {"c": torch.rand(4, 1, generator=gen(22)).to(dtype)} if s.extra_inputs else {}
    else:
        x = (torch.randn(77, generator=gen(23)) * 4).to(dtype)
        kw = {"training": True, "generator": gen(24)} if s.stochastic else {}
    return x.requires_grad_(True), kw


def _both(name: str, dtype: torch.dtype, backend: str, runs=(("eager", None), ("fused", None))):
    """(output, input gradient) of each (mode, backend) run; a None backend is `backend`."""
    f = F.function(name)
    x, kw = _case(name, dtype)
    go = torch.randn(f(x.detach(), **{**kw, **({"generator": gen(24)} if "generator" in kw else {})}).shape)
    go = go.to(dtype)
    out = []
    for mode, run_backend in runs:
        if "generator" in kw:
            kw["generator"] = gen(24)
        with use(mode, backend=run_backend or backend, fp32_compute="float64"):  # the eager path's precision
            y = f(x, **kw)
            (gx,) = torch.autograd.grad(y, x, go)
        out.append((y, gx))
    return out


@pytest.mark.parametrize("name", FUSED)
def test_generated_torch_functions_equal_eager(name):
    """Uncompiled, the generated functions run the eager primitives in the eager order: identical bits. (The
    inductor-safe forms of nonlin.ops.torch_compiled, expm1 here, differ from the eager op by ULPs of float64
    compute, which round to the same float32 bits.)"""
    (y0, g0), (y1, g1) = _both(name, torch.float32, "python")
    assert torch.equal(y0, y1)
    assert torch.equal(g0, g1)


@pytest.mark.parametrize("name", ["mish", *(pytest.param(n, marks=pytest.mark.slow) for n in FUSED if n != "mish")])
def test_inductor_build_matches_uncompiled(name):
    """Compiled, inductor may reorder or vectorise a primitive: within an ULP of the dtype of the same
    functions run uncompiled. (Not of eager: for half inputs both compute in float32, and the generated
    functions' float32 sin, through float64, is the accurate one where snake's 1 + sin(2ax) cancels. Each
    build is a C++ compile of several seconds: the default run builds one entry in one dtype.)"""
    runs = (("fused", "python"), ("fused", "inductor"))
    for dtype in (torch.float32,) if name == "mish" else (torch.float32, torch.bfloat16):
        (y0, g0), (y1, g1) = _both(name, dtype, "inductor", runs)
        tol = {torch.float32: 1.2e-7, torch.bfloat16: 8e-3}[dtype]
        assert torch.allclose(y1, y0, rtol=tol, atol=1e-30, equal_nan=True)
        assert torch.allclose(g1, g0, rtol=tol, atol=1e-30, equal_nan=True)


def test_compile_failure_falls_back_to_uncompiled(monkeypatch):
    saved = dict(cpu._DISABLED)
    try:
        c = cpu._Compiled(lambda x: x * 2, "test")

        def broken(*args):
            raise RuntimeError("no C++ compiler")

        c.compiled = broken
        with pytest.warns(RuntimeWarning, match="runs uncompiled"):
            assert torch.equal(c(torch.ones(2)), torch.full((2,), 2.0))
        assert not cpu.compile_available()
        # auto no longer picks the CPU fused path for a call it routes afresh (a route settled before on kernels
        # built then keeps them: they run without the compiler)
        route._set_measured(dict(route._MEASURED))
        with use("auto"):
            y = F.mish(torch.randn(1 << 17, requires_grad=True))
        assert "nonlin" not in y.grad_fn.name()
    finally:
        cpu._DISABLED.clear()
        cpu._DISABLED.update(saved)
