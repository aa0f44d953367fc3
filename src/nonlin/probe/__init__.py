"""Probes and surgery: measure what the nonlinearities inside any torch model do, and swap them.

- `watch(model, metrics=...)`: streaming sparsity, dead units, massive activations and moments per layer;
- `DeadUnits(model)`: the dead-unit rate over training (``step()`` per step, ``history``);
- `attention(model, inputs)`: attention-sink score and entropy per layer and head;
- `linear_regions(model, start, end, steps)` / `linear_regions_plane(...)`: regions and space folding;
- `hidden_rank(model, inputs)`: numerical, effective and stable rank of activations per layer;
- `swap(model, {"gelu": "relu"})`: replace nonlinearity modules, report functional calls, ``undo()``.
Definitions and sources: docs/probe.md.
"""

from nonlin.probe import examples
from nonlin.probe.attention import AttentionReport, attention
from nonlin.probe.dead import DeadUnits
from nonlin.probe.discovery import Site, classify, find
from nonlin.probe.layers import SelfAttention, TinyTransformer
from nonlin.probe.metrics import METRICS
from nonlin.probe.rank import RankReport, hidden_rank
from nonlin.probe.regions import PlaneRegions, Regions, linear_regions, linear_regions_plane
from nonlin.probe.surgery import FunctionalCall, Replacement, SwapReport, swap
from nonlin.probe.watch import Watch, watch

__all__ = [
    "METRICS",
    "AttentionReport",
    "DeadUnits",
    "FunctionalCall",
    "PlaneRegions",
    "RankReport",
    "Regions",
    "Replacement",
    "SelfAttention",
    "Site",
    "SwapReport",
    "TinyTransformer",
    "Watch",
    "attention",
    "classify",
    "examples",
    "find",
    "hidden_rank",
    "linear_regions",
    "linear_regions_plane",
    "swap",
    "watch",
]
