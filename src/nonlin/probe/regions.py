"""``probe.linear_regions``: activation regions of a piecewise-linear network along a segment or on a plane.

Activation pattern of an input: for every unit of every piecewise nonlinearity, the index of the piece
its *input* z lies in, i.e. the number of the nonlinearity's breakpoints b with z > b (ReLU: 1 where
z > 0, else 0; hardtanh: 0, 1 or 2). Breakpoints come from the catalog spec (``Spec.breakpoints``), so
any entry with kinks or jumps works (ReLU, leaky ReLU, hardtanh, shifted ReLU, ...); gated entries are
read on their gate half. Nonlinearities without breakpoints (GELU, tanh) are skipped and listed.

A linear region (Hanin & Rolnick, arXiv:1901.09021) is a maximal set of inputs sharing one pattern; on
it a network of piecewise-linear units is affine. A straight segment meets each (convex) region in one
interval, so the number of regions along it is 1 + the number of pattern changes between consecutive
samples. Sampling can merge two boundaries closer than one step, so the count is exact when ``steps``
resolves every region (raise it until the count stops growing); each boundary is then located by
bisection to ``refine`` halvings of a step.

Space folding (Lewandowski et al., arXiv:2502.09954 and arXiv:2503.08502): along the straight path the
region patterns pi_1..pi_n form a walk in Hamming space;
    chi = 1 - max_i d_H(pi_1, pi_i) / sum_i d_H(pi_i, pi_{i+1})
is 0 when the walk moves away from its start monotonically (no folding) and grows towards 1 as the
path returns towards patterns it left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from nonlin.functional import split_packed
from nonlin.probe import discovery
from nonlin.probe._io import environment, write_json
from nonlin.probe.discovery import Site, Where
from nonlin.spec import Kind


class _Patterns:
    """Hooks that turn one batched forward into activation patterns [batch, units] (int8 piece indices)."""

    def __init__(self, model: nn.Module, where: Where) -> None:
        self.model = model
        sites = discovery.find(model, where, kinds=(Kind.POINTWISE, Kind.GATED))
        self.used: list[tuple[Site, torch.Tensor]] = []
        self.skipped: list[str] = []
        for s in sites:
            bps = s.breakpoints()
            if bps:
                self.used.append((s, torch.tensor(sorted(bps), dtype=torch.float64)))
            else:
                self.skipped.append(f"{s.name} ({s.catalog or s.cls})")
        if not self.used:
            raise ValueError(
                "linear regions need piecewise nonlinearities (catalog entries with breakpoints: relu, leaky_relu, "
                f"hardtanh, ...); {type(model).__name__} has only smooth or unknown ones: {', '.join(self.skipped)}"
            )

    @torch.no_grad()
    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        parts: dict[str, list[torch.Tensor]] = {}
        handles = []

        def hook_for(site: Site, bps: torch.Tensor):
            def hook(module: nn.Module, args: Any) -> None:
                z = args[0]
                if site.kind is Kind.GATED:  # the gate half, as the module packs it (torch's glu: value first)
                    opts = getattr(module, "options", {})
                    z = split_packed(site.name, z, dim=opts.get("dim", -1), layout=opts.get("layout", "gate_value"))[0]
                if z.shape[0] != x.shape[0]:
                    raise ValueError(
                        f"linear_regions: {site.name} got an input of shape {tuple(z.shape)} whose first axis is "
                        f"not the batch of {x.shape[0]} points"
                    )
                piece = torch.bucketize(z.double(), bps.to(z.device), right=False)  # number of breakpoints < z
                parts.setdefault(site.name, []).append(piece.reshape(z.shape[0], -1).to(torch.int8))

            return hook

        try:
            for s, bps in self.used:
                handles.append(s.module.register_forward_pre_hook(hook_for(s, bps)))
            self.model(x)
        finally:
            for h in handles:
                h.remove()
        return torch.cat([torch.cat(parts[s.name], dim=1) for s, _ in self.used if s.name in parts], dim=1)

    def batched(self, x: torch.Tensor, batch_size: int) -> torch.Tensor:
        return torch.cat([self(x[i : i + batch_size]) for i in range(0, x.shape[0], batch_size)])


def _check_points(start: Any, end: Any) -> tuple[torch.Tensor, torch.Tensor]:
    for name, t in (("start", start), ("end", end)):
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise TypeError(f"{name} must be a floating tensor (one input, without batch axis); got {t!r:.60}")
    if start.shape != end.shape:
        raise ValueError(f"start and end must have the same shape; got {tuple(start.shape)} and {tuple(end.shape)}")
    return start, end


def _check_int(name: str, v: Any, low: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise ValueError(f"{name} must be an int >= {low}; got {v!r}")
    return v


@dataclass
class Regions:
    """Result of `linear_regions` along a segment (t in [0, 1] from start to end)."""

    regions: int
    boundaries: list[float]
    folding: float
    t: list[float]
    hamming_from_start: list[int]
    units: int
    layers: list[str]
    skipped: list[str]
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"probe": "linear_regions", "environment": environment(), **self.__dict__}

    def to_json(self, path: str | Path) -> Path:
        return write_json(self.to_dict(), path)

    def plot(self, path: str | Path) -> Path:
        from nonlin.probe.plots import plot_regions

        return plot_regions(self.to_dict(), path)


def folding(patterns: list[torch.Tensor]) -> float:
    """chi = 1 - max_i d_H(pi_1, pi_i) / sum_i d_H(pi_i, pi_{i+1}) over a walk of patterns (0 for fewer than 2)."""
    if len(patterns) < 2:
        return 0.0
    p = torch.stack(patterns)
    far = int((p != p[0]).sum(1).max())
    walk = int((p[1:] != p[:-1]).sum())
    return 1.0 - far / walk if walk else 0.0


def linear_regions(
    model: nn.Module,
    start: torch.Tensor,
    end: torch.Tensor,
    steps: int = 1000,
    *,
    where: Where = None,
    refine: int = 30,
    batch_size: int = 1024,
) -> Regions:
    """Linear regions of `model` along the segment from `start` to `end` (single inputs, no batch axis).

    The model is called on batches [n, *start.shape] of points start + t (end - start), t in [0, 1]
    sampled at `steps` points; see the module docstring for the definitions.
    """
    start, end = _check_points(start, end)
    steps = _check_int("steps", steps, 2)
    refine = _check_int("refine", refine, 0)
    batch_size = _check_int("batch_size", batch_size, 1)
    pat = _Patterns(model, where)
    t = torch.linspace(0.0, 1.0, steps, dtype=torch.float64)
    s64, e64 = start.double(), end.double()
    point = lambda tt: (s64 + tt.reshape(-1, *[1] * start.dim()) * (e64 - s64)).to(start.dtype)
    P = pat.batched(point(t), batch_size)  # [steps, units]
    change = (P[1:] != P[:-1]).any(1).nonzero().flatten()  # sample i -> i+1 crosses a boundary
    lo, hi = t[change].clone(), t[change + 1].clone()
    p_lo = P[change]
    for _ in range(refine if len(change) else 0):
        mid = (lo + hi) / 2
        same = (pat.batched(point(mid), batch_size) == p_lo).all(1)
        lo, hi = torch.where(same, mid, lo), torch.where(same, hi, mid)
    walk = [P[0], *P[change + 1]]
    ham = (P[0] != P).sum(1)
    return Regions(
        regions=1 + len(change),
        boundaries=((lo + hi) / 2).tolist(),
        folding=folding(walk),
        t=t.tolist(),
        hamming_from_start=ham.tolist(),
        units=P.shape[1],
        layers=[s.name for s, _ in pat.used],
        skipped=pat.skipped,
    )


@dataclass
class PlaneRegions:
    """Result of `linear_regions_plane`: ``region_map`` [resolution, resolution] of region ids (rows: v)."""

    regions: int
    region_map: list[list[int]]
    extent: tuple[float, float, float, float]
    units: int
    layers: list[str]
    skipped: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"probe": "linear_regions_plane", "environment": environment(), **self.__dict__}

    def to_json(self, path: str | Path) -> Path:
        return write_json(self.to_dict(), path)

    def plot(self, path: str | Path) -> Path:
        from nonlin.probe.plots import plot_regions

        return plot_regions(self.to_dict(), path)


def linear_regions_plane(
    model: nn.Module,
    origin: torch.Tensor,
    u: torch.Tensor,
    v: torch.Tensor,
    *,
    extent: tuple[float, float, float, float] = (-1.0, 1.0, -1.0, 1.0),
    resolution: int = 128,
    where: Where = None,
    batch_size: int = 4096,
) -> PlaneRegions:
    """Distinct activation patterns on the plane origin + a u + b v, (a, b) on a resolution^2 grid over extent.

    Each pattern of piecewise-linear units defines a convex region, so distinct patterns on the grid are the
    regions the grid resolves (regions thinner than a grid cell can be missed).
    """
    origin, u = _check_points(origin, u)
    _, v = _check_points(origin, v)
    resolution = _check_int("resolution", resolution, 2)
    if len(extent) != 4 or not (extent[0] < extent[1] and extent[2] < extent[3]):
        raise ValueError(f"extent must be (a_min, a_max, b_min, b_max) with min < max; got {extent!r}")
    pat = _Patterns(model, where)
    a = torch.linspace(extent[0], extent[1], resolution, dtype=torch.float64)
    b = torch.linspace(extent[2], extent[3], resolution, dtype=torch.float64)
    bb, aa = torch.meshgrid(b, a, indexing="ij")  # rows follow b (v), columns a (u)
    shape = [-1, *[1] * origin.dim()]
    pts = origin.double() + aa.reshape(shape) * u.double() + bb.reshape(shape) * v.double()
    P = pat.batched(pts.to(origin.dtype), batch_size)
    _, inverse = torch.unique(P, dim=0, return_inverse=True)
    return PlaneRegions(
        regions=int(inverse.max()) + 1,
        region_map=inverse.reshape(resolution, resolution).tolist(),
        extent=tuple(float(e) for e in extent),
        units=P.shape[1],
        layers=[s.name for s, _ in pat.used],
        skipped=pat.skipped,
    )
