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
_BLOCK = 1 << 16  # entries per block of the CPU passes (256 KiB of float32)
_HIST_SAMPLE = 1 << 16  # entries binned per call (at most about this many; all of them below it)


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
        self.located = torch.ones(w, dtype=torch.bool, device=dev)  # unit_row/call point at unit_max
        self.hist = torch.zeros(_HIST_BINS, dtype=torch.int64, device=dev)
        self.sums = torch.zeros(4, dtype=torch.float64, device=dev)  # sums of d, d^2, d^3, d^4 with d = a - ref
        self.moment_n = torch.zeros((), dtype=torch.int64, device=dev)  # entries of the calls summed (all finite)
        # Moments are summed about a reference: 0, or the first call's mean when it is large against the
        # spread (|mean| > std), so that a common offset does not cancel the variance in float32 sums.
        self.ref = 0.0
        if rows.numel() > 1:
            std, mean = torch.std_mean(rows)
            if torch.isfinite(mean) and torch.isfinite(std) and abs(float(mean)) > float(std):
                self.ref = float(mean)

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
        want = self.metrics
        need_max = "dead" in want or "massive" in want
        # On CPU the passes run over blocks of about 2**16 entries, so that the ~10 passes over a block
        # hit the core's cache instead of main memory (4x faster on a transformer's MLP activations, see
        # benchmarks/probe.py); on accelerators the whole call is one block (fewer kernel launches).
        block = rows.shape[0] if rows.is_cuda else max(1, _BLOCK // self.width)
        counts, maxima, moments = [], [], []
        for r0 in range(0, rows.shape[0], block):
            c = rows[r0 : r0 + block]
            ca = c.abs()
            counts.append(torch.count_nonzero(c))
            if "sparsity" in want:
                counts.append(torch.count_nonzero(ca < self.opt.eps))
            if need_max:
                maxima.append(ca.amax(dim=0))
            if "stats" in want:
                d = (c - self.ref if self.ref else c).reshape(-1)
                d2 = d * d
                moments += [d.sum(), torch.dot(d, d), torch.dot(d2, d), torch.dot(d2, d2)]
        per_block = 2 if "sparsity" in want else 1
        counts_t = torch.stack(counts).reshape(-1, per_block).sum(0)
        zeros = n - counts_t[0]
        self.zeros += zeros
        near = dead_share = None
        if "sparsity" in want:
            near = counts_t[1]
            self.near += near
        if need_max:
            vals = maxima[0] if len(maxima) == 1 else torch.stack(maxima).amax(dim=0)
            vals = torch.nan_to_num(vals, nan=math.inf)  # [units]: each unit's largest |a| in this call
            if "dead" in want:
                on = vals > self.opt.dead_eps
                self.active |= on
                dead_share = (on.numel() - on.sum()).double() / on.numel()
            if "massive" in want:
                self._track_maxima(rows, vals, call)
                self._histogram(rows)
        if "stats" in want:
            part = torch.stack(moments).reshape(-1, 4).double().sum(0)
            finite = torch.isfinite(part).all()
            if rows.is_cuda:  # no host synchronisation on accelerators
                self.sums += torch.where(finite, part, torch.zeros_like(part))
                self.moment_n += torch.where(finite, n, 0)
                self.nonfinite += torch.where(finite, 0, torch.count_nonzero(~torch.isfinite(rows)))
            elif bool(finite):
                self.sums += part
                self.moment_n += n
            else:
                self.nonfinite += torch.count_nonzero(~torch.isfinite(rows))
        nan = torch.tensor(math.nan, dtype=torch.float64, device=rows.device)
        columns = [
            zeros.double() / n if "sparsity" in want else nan,
            near.double() / n if near is not None else nan,
            dead_share if dead_share is not None else nan,
            self._last_max.double() if "massive" in want else nan,
        ]
        self.series.append(torch.stack(columns))

    def _track_maxima(self, rows: torch.Tensor, vals: torch.Tensor, call: int) -> None:
        """Running max |a| per unit; the row of the max for this call's top-k units only.

        A unit whose maximum rises in a call where it is not among that call's top-k units has k units
        above it for good, so it cannot enter the overall top-k: locating the call's top-k is enough
        (``located`` records the exceptions, which only ties can bring into the top-k).
        """
        better = vals > self.unit_max
        self.unit_max = torch.where(better, vals, self.unit_max)
        k = min(self.opt.top_k, vals.numel())
        top_vals, top_units = torch.topk(vals, k)
        self._last_max = top_vals[0]
        rows_of_top = torch.nan_to_num(rows[:, top_units].abs(), nan=math.inf).argmax(dim=0)  # [k]
        improved = better[top_units]
        self.unit_row[top_units] = torch.where(improved, rows_of_top, self.unit_row[top_units])
        self.unit_call[top_units] = torch.where(improved, call, self.unit_call[top_units])
        self.located &= ~better  # units that rose are unlocated unless they are among the top-k here
        self.located[top_units] |= improved

    def _histogram(self, rows: torch.Tensor) -> None:
        """Add |a| to the 1/16-octave histogram, from a systematic sample of about 2**16 entries per call."""
        flat = rows.reshape(-1)
        step = max(1, flat.numel() // _HIST_SAMPLE)
        while step > 1 and math.gcd(step, self.width) != 1:
            step += 1  # coprime with the width, so the sample visits every unit
        sample = flat[::step].abs()
        self.hist += torch.bincount((sample.view(torch.int32) >> _HIST_SHIFT).reshape(-1), minlength=_HIST_BINS)

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
            # bin 0 holds exact zeros (and subnormals below 2**-130): the median is over the others
            med = median_from_histogram([0, *hist[1:_FIRST_NONFINITE_BIN]])
            umax = self.unit_max.tolist()
            rows, calls, located = self.unit_row.tolist(), self.unit_call.tolist(), self.located.tolist()
            # among equal maxima (saturated units: tanh, hardtanh) prefer those whose place is known
            order = sorted(range(len(umax)), key=lambda u: (-umax[u], not located[u]))[: self.opt.top_k]
            top = [
                {
                    "value": umax[u],
                    "unit": u,
                    "call": calls[u] if located[u] else None,
                    "index": list(self._place(calls[u], rows[u])) if located[u] else None,
                }
                for u in order
            ]
            out["max_abs"] = top[0]["value"]
            out["median_abs"] = med
            out["massive_ratio"] = top[0]["value"] / med if med > 0 else math.inf
            out["top"] = top
        if "stats" in want:
            mn = max(int(self.moment_n.item()), 1)
            s1, s2, s3, s4 = (x / mn for x in self.sums.tolist())  # raw moments of d = a - ref
            m2 = max(s2 - s1 * s1, 0.0)
            m4 = s4 - 4 * s1 * s3 + 6 * s1 * s1 * s2 - 3 * s1**4
            out["mean"] = self.ref + s1
            out["std"] = math.sqrt(m2)  # population std (divides by n)
            out["kurtosis"] = m4 / (m2 * m2) if m2 > 0 else math.nan  # Pearson: 3 for a Gaussian
            out["nonfinite"] = int(self.nonfinite.item())
        return out

    def series_list(self) -> list[list[float]]:
        if not self.series:
            return []
        return torch.stack(self.series).tolist()
