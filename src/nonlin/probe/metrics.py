"""Streaming per-layer reductions of activations: sparsity, dead units, massive activations, moments.

Everything here is reduced on the fly: per layer the state is a few per-unit vectors (O(width)) and a
fixed 4096-bin histogram, never the activations themselves. Counters live on the activations' device
and are only read back when a result is asked for, so watching adds no host synchronisation per call.

The tensor measured, ``a``, is seen as rows of units: the unit axis is ``unit_dim`` (default the last
one, the features of [batch, seq, features] or [batch, features]); every other axis indexes rows
(tokens, examples, pixels).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

METRICS: tuple[str, ...] = ("sparsity", "dead", "massive", "stats")

# Histogram of |a| in bins of 1/16 octave: the top 13 bits of a non-negative float32 (8 exponent bits
# and 4 mantissa bits) are a monotone bin index, 2**13 // 2 = 4096 bins covering every float32.
_HIST_SHIFT = 19
_HIST_BINS = 4096
_FIRST_NONFINITE_BIN = 0xFF << 4  # exponent 255: inf and nan


def check_metrics(metrics: Any) -> tuple[str, ...]:
    if isinstance(metrics, str):
        metrics = (metrics,)
    try:
        chosen = tuple(metrics)
    except TypeError:
        raise TypeError(f"metrics must be a sequence of names from {METRICS}; got {metrics!r}") from None
    for m in chosen:
        if m not in METRICS:
            raise ValueError(f"unknown metric {m!r}; expected some of {', '.join(METRICS)}")
    if not chosen:
        raise ValueError(f"metrics is empty; expected some of {', '.join(METRICS)}")
    return chosen


@dataclass(frozen=True)
class Options:
    """How activations are measured (documented in docs/probe.md, "Definitions").

    eps: an entry is near zero when |a| < eps (sparsity_eps); exact zeros are counted apart.
    dead_eps: a unit is inactive on a row when |a| <= dead_eps (0: exactly zero, the catalog definition).
    unit_dim: the axis of units (features/channels); every other axis indexes rows.
    top_k: how many units with the largest |a| are reported, with where it happened.
    """

    eps: float = 1e-3
    dead_eps: float = 0.0
    unit_dim: int = -1
    top_k: int = 5

    def __post_init__(self) -> None:
        for name in ("eps", "dead_eps"):
            v = getattr(self, name)
            if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a finite number >= 0; got {v!r}")
        if not isinstance(self.unit_dim, int) or isinstance(self.unit_dim, bool):
            raise TypeError(f"unit_dim must be an int; got {self.unit_dim!r}")
        if not isinstance(self.top_k, int) or self.top_k < 1:
            raise ValueError(f"top_k must be a positive int; got {self.top_k!r}")


def as_rows(a: torch.Tensor, unit_dim: int) -> torch.Tensor:
    """[..., units, ...] -> [rows, units] with the unit axis last (a view when the layout allows)."""
    if a.dim() == 0:
        return a.reshape(1, 1)
    if not -a.dim() <= unit_dim < a.dim():
        raise ValueError(f"unit_dim={unit_dim} is out of range for an activation of shape {tuple(a.shape)}")
    a = a.movedim(unit_dim, -1)
    return a.reshape(-1, a.shape[-1])


def median_from_histogram(hist: list[int]) -> float:
    """Median of the values binned in `hist` (1/16-octave bins of float32), as its bin's geometric centre.

    Relative error at most 2**(1/32) - 1 = 2.2% (half a bin); 0.0 when the histogram is empty.
    """
    total = sum(hist)
    if total == 0:
        return 0.0
    half, seen, b = (total + 1) // 2, 0, 0
    while seen + hist[b] < half:  # the bin holding the ceil(total/2)-th smallest value
        seen += hist[b]
        b += 1
    lo = _bin_edge(b)
    hi = _bin_edge(b + 1)
    return math.sqrt(lo * hi) if lo > 0 else hi / 2


def _bin_edge(b: int) -> float:
    bits = torch.tensor([b << _HIST_SHIFT], dtype=torch.int32)
    return float(bits.view(torch.float32).item())


class LayerAccumulator:
    """Running reductions for one layer in one mode (train or eval)."""

    def __init__(self, metrics: tuple[str, ...], options: Options) -> None:
        self.metrics = metrics
        self.opt = options
        self.calls = 0
        self.width: int | None = None
        self.shapes: list[tuple[int, ...]] = []  # leading shape of each call, to place a row index
        self.series: list[torch.Tensor] = []  # per call: [zero share, near-zero share, dead share, max |a|]

    def _init(self, rows: torch.Tensor) -> None:
        dev, w = rows.device, rows.shape[1]
        self.width = w
        self.entries = torch.zeros((), dtype=torch.int64, device=dev)
        self.zeros = torch.zeros((), dtype=torch.int64, device=dev)
        self.near = torch.zeros((), dtype=torch.int64, device=dev)
        self.nonfinite = torch.zeros((), dtype=torch.int64, device=dev)
        self.active = torch.zeros(w, dtype=torch.bool, device=dev)
        self.unit_max = torch.full((w,), -1.0, dtype=torch.float32, device=dev)
        self.unit_row = torch.zeros(w, dtype=torch.int64, device=dev)
        self.unit_call = torch.zeros(w, dtype=torch.int64, device=dev)
        self.hist = torch.zeros(_HIST_BINS, dtype=torch.int64, device=dev)
        # Moments are summed about the first call's mean, so that a large common offset does not cancel.
        self.ref = (
            torch.nan_to_num(rows.mean(), nan=0.0, posinf=0.0, neginf=0.0)
            if rows.numel()
            else torch.zeros((), device=dev)
        )
        self.sums = torch.zeros(4, dtype=torch.float64, device=dev)  # sums of d, d^2, d^3, d^4, d = a - ref
        self.moment_n = torch.zeros((), dtype=torch.int64, device=dev)  # entries of the calls summed (all finite)

    @torch.no_grad()
    def update(self, a: torch.Tensor) -> None:
        a = a.detach()
        rows = as_rows(a, self.opt.unit_dim)  # checks unit_dim first
        leading = tuple(a.movedim(self.opt.unit_dim, -1).shape[:-1]) if a.dim() else ()
        if rows.dtype != torch.float32:
            rows = rows.float()  # half types and float64: measured in float32 (bins and maxima are float32)
        if self.width is None:
            self._init(rows)
        elif rows.shape[1] != self.width:
            raise ValueError(
                f"probe: this layer produced {rows.shape[1]} units along unit_dim={self.opt.unit_dim} after "
                f"{self.width} in earlier calls (shape {tuple(a.shape)}); set unit_dim to the feature axis"
            )
        call = self.calls
        self.calls += 1
        self.shapes.append(leading)
        n = rows.numel()
        self.entries += n
        if n == 0:
            return
        absa = rows.abs()
        want = self.metrics
        zeros = near = dead_share = None
        if "sparsity" in want or "massive" in want:
            zeros = torch.count_nonzero(rows == 0)  # also taken out of the |a| histogram's first bin
            self.zeros += zeros
        if "sparsity" in want:
            near = torch.count_nonzero(absa < self.opt.eps)
            self.near += near
        if "dead" in want or "massive" in want:
            vals, where = absa.max(dim=0)  # [units]: the largest |a| of each unit in this call, and its row
            vals = torch.nan_to_num(vals, nan=math.inf)
            if "dead" in want:
                on = vals > self.opt.dead_eps
                self.active |= on
                dead_share = (on.numel() - on.sum()).double() / on.numel()
            if "massive" in want:
                better = vals > self.unit_max
                self.unit_max = torch.where(better, vals, self.unit_max)
                self.unit_row = torch.where(better, where, self.unit_row)
                self.unit_call = torch.where(better, torch.full_like(where, call), self.unit_call)
                bins = (absa.contiguous().view(torch.int32) >> _HIST_SHIFT).reshape(-1)
                self.hist += torch.bincount(bins, minlength=_HIST_BINS)
        if "stats" in want:
            d = (rows - self.ref).reshape(-1)
            d2 = d * d
            finite = torch.isfinite(d2.sum())
            part = torch.stack([d.sum(), d2.sum(), torch.dot(d2, d), torch.dot(d2, d2)]).double()
            self.sums += torch.where(finite, part, torch.zeros_like(part))
            self.moment_n += torch.where(finite, n, 0)
            self.nonfinite += torch.where(finite, 0, torch.count_nonzero(~torch.isfinite(d)))
        nan = torch.tensor(math.nan, dtype=torch.float64, device=rows.device)
        columns = [
            zeros.double() / n if "sparsity" in want else nan,
            near.double() / n if near is not None else nan,
            dead_share if dead_share is not None else nan,
            absa.max().double() if "massive" in want else nan,
        ]
        self.series.append(torch.stack(columns))

    # ------------------------------------------------------------------ results (host)
    def _place(self, call: int, row: int) -> tuple[int, ...]:
        shape = self.shapes[call]
        idx = []
        for s in reversed(shape):
            idx.append(row % s if s else 0)
            row = row // s if s else 0
        return tuple(reversed(idx))

    def result(self) -> dict[str, Any]:
        out: dict[str, Any] = {"calls": self.calls, "units": self.width, "entries": int(self.entries.item())}
        n = out["entries"]
        if self.width is None or n == 0:
            return out
        want = self.metrics
        if "sparsity" in want:
            out["sparsity_zero"] = int(self.zeros.item()) / n
            out["sparsity_eps"] = int(self.near.item()) / n
        if "dead" in want:
            out["dead"] = (self.width - int(self.active.sum().item())) / self.width
            per_call = [float(s[2]) for s in self.series]
            out["dead_per_call"] = sum(per_call) / len(per_call)
        if "massive" in want:
            hist = self.hist.tolist()
            finite_nonzero = hist[1:_FIRST_NONFINITE_BIN]
            finite_nonzero.insert(0, hist[0] - int(self.zeros.item()))
            med = median_from_histogram(finite_nonzero)
            umax = self.unit_max.tolist()
            order = sorted(range(len(umax)), key=lambda u: -umax[u])[: self.opt.top_k]
            rows, calls = self.unit_row.tolist(), self.unit_call.tolist()
            top = [
                {"value": umax[u], "unit": u, "call": calls[u], "index": list(self._place(calls[u], rows[u]))}
                for u in order
            ]
            out["max_abs"] = top[0]["value"]
            out["median_abs"] = med
            out["massive_ratio"] = top[0]["value"] / med if med > 0 else math.inf
            out["top"] = top
        if "stats" in want:
            mn = max(int(self.moment_n.item()), 1)
            s1, s2, s3, s4 = (x / mn for x in self.sums.tolist())
            ref = float(self.ref.item())
            m2 = max(s2 - s1 * s1, 0.0)
            m3 = s3 - 3 * s1 * s2 + 2 * s1**3
            m4 = s4 - 4 * s1 * s3 + 6 * s1 * s1 * s2 - 3 * s1**4
            out["mean"] = ref + s1
            out["std"] = math.sqrt(m2)
            out["skewness"] = m3 / m2**1.5 if m2 > 0 else math.nan
            out["kurtosis"] = m4 / (m2 * m2) if m2 > 0 else math.nan
            out["nonfinite"] = int(self.nonfinite.item())
        return out

    def series_list(self) -> list[list[float]]:
        if not self.series:
            return []
        return torch.stack(self.series).tolist()
