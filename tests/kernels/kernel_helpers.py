"""Inputs, references and ULP measures shared by the kernel tests."""

from __future__ import annotations

import functools
import importlib.util
import math
import re

import numpy as np
import pytest
import torch

import nonlin
from nonlin import reference as R

HAS_TRITON = importlib.util.find_spec("triton") is not None
needs_triton = pytest.mark.skipif(not HAS_TRITON, reason="triton is not installed (pip install 'nonlin[triton]')")

FUSED = nonlin.names("pointwise") + nonlin.names("gated")
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# Accuracy goals (issue 3): fp32 forward <= 2 ULP, backward <= 4 ULP; half types <= 1 ULP.
GOAL = {
    torch.float64: (2.0, 4.0),
    torch.float32: (2.0, 4.0),
    torch.float16: (1.0, 1.0),
    torch.bfloat16: (1.0, 1.0),
}
_PRECISION = {torch.float64: 53, torch.float32: 24, torch.float16: 11, torch.bfloat16: 8}


def ulp_error(got: torch.Tensor, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in units of the last place of `got`'s dtype at |ref| (0 where equal, inf where one is
    NaN/inf and the other is not). References beyond the dtype's range are skipped (0): the dtype cannot
    hold them and overflow behaviour is tested separately."""
    dtype = got.dtype
    g = got.detach().double().cpu().numpy().ravel()
    r = np.asarray(ref, dtype=np.float64).ravel()
    fi = torch.finfo(dtype)
    with np.errstate(all="ignore"):
        mag = np.maximum(np.abs(r), fi.tiny)
        ulp = np.exp2(np.floor(np.log2(mag)) - (_PRECISION[dtype] - 1))
        err = np.abs(g - r) / ulp
    same = (g == r) | (np.isnan(g) & np.isnan(r))
    err = np.where(same, 0.0, err)
    err = np.where(np.isfinite(r) & (np.abs(r) > fi.max), 0.0, err)
    return np.where(np.isnan(err), np.inf, err)


def grid(dtype: torch.dtype, n: int = 101) -> torch.Tensor:
    """An odd number of points (not a multiple of any block): a dense middle and moderate tails, each value
    representable in bfloat16, so every dtype sees the same inputs and the references are computed once."""
    mid = torch.linspace(-6.0, 6.0, n - 30, dtype=torch.float64)
    tail = torch.logspace(-6, 1.45, 15, dtype=torch.float64)
    x = torch.cat([mid, tail, -tail]).to(torch.bfloat16)
    return x.to(dtype)


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@functools.cache
def _ref_pointwise(name: str, xs: tuple[float, ...], us: tuple[float, ...] | None, derivative: bool):
    out = []
    for i, x in enumerate(xs):
        u = None if us is None else us[i]
        try:
            out.append(float(R.pointwise(name, x, derivative=derivative, u=u)))
        except (ZeroDivisionError, ValueError, OverflowError):
            out.append(float("nan"))
    return np.array(out)


def ref_pointwise(name: str, x: torch.Tensor, u: torch.Tensor | None = None, derivative: bool = False) -> np.ndarray:
    xs = tuple(x.double().ravel().tolist())
    us = None if u is None else tuple(u.double().ravel().tolist())
    return _ref_pointwise(name, xs, us, derivative)


@functools.cache
def _ref_gated(name: str, gs: tuple[float, ...], vs: tuple[float, ...], cs: tuple[float, ...] | None):
    ys, dgs, dvs = [], [], []
    for i, (g, v) in enumerate(zip(gs, vs, strict=True)):
        y, dg, dv = R.gated(name, g, v, c=None if cs is None else cs[i])
        ys.append(float(y))
        dgs.append(float(dg))
        dvs.append(float(dv))
    return np.array(ys), np.array(dgs), np.array(dvs)


def ref_gated(name: str, g: torch.Tensor, v: torch.Tensor, c: torch.Tensor | None = None):
    cs = None if c is None else tuple(c.expand(g.shape).double().ravel().tolist())
    return _ref_gated(name, tuple(g.double().ravel().tolist()), tuple(v.double().ravel().tolist()), cs)


def float32_by_bits(step: int, start: int = 0) -> torch.Tensor:
    """Every `step`-th float32 bit pattern (both signs), finite ones only."""
    bits = torch.arange(start, 1 << 32, step, dtype=torch.int64)
    bits = torch.where(bits >= 1 << 31, bits - (1 << 32), bits).to(torch.int32)
    x = bits.view(torch.float32)
    return x[torch.isfinite(x)]


def float32_ulps(y: torch.Tensor, exact: torch.Tensor) -> torch.Tensor:
    """|y - exact| in float32 ULPs of exact (float64 exact values in the float32 range)."""
    a = exact.abs().float()
    gap = torch.nextafter(a, torch.tensor(math.inf)).double() - a.double()
    gap = torch.where(a.double() < 2.0**-126, torch.tensor(2.0**-149, dtype=torch.float64), gap)
    return (y.double() - exact).abs() / gap


def nonlin_ops_traced(fn, *args) -> set[str]:
    """The nonlin ops (torch.ops.nonlin.*) in the graphs torch.compile(fn, fullgraph=True) traces for `args`,
    forward and backward (the graph's own and its autograd functions' subgraphs)."""
    code: list[str] = []

    def record(gm, _):
        code.extend(m.code for m in gm.modules() if isinstance(m, torch.fx.GraphModule))
        return gm.forward

    torch.compile(fn, backend=record, fullgraph=True)(*args)
    return set(re.findall(r"nonlin\.(\w+)\.default", "".join(code)))
