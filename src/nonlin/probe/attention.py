"""``probe.attention``: attention-sink score and entropy per layer and head.

Definitions (catalog.md §4; Xiao et al. 2023, "Efficient Streaming Language Models with Attention
Sinks", arXiv:2309.17453):
- sink score of a head = mean over the batch and the valid query positions of the attention weight on
  key position ``sink_position`` (0, the first token, by default);
- entropy of a head = mean over the same queries of H(p) = -sum_k p_k ln p_k (nats, 0 ln 0 = 0);
  ``entropy_normalized`` divides each row's entropy by ln(number of keys the row may attend to), so a
  uniform head scores 1; the keys a row may attend to are those with a nonzero weight in any head of
  that row (masked and causal-future keys get exactly 0), and rows with a single such key are left out.
Valid queries: every position, less the padding of ``attention_mask`` when the inputs carry one.

Where the weights come from:
- Hugging Face models (a ``config`` attribute): one forward with ``output_attentions=True``; the model
  must compute attention eagerly (load it with ``attn_implementation="eager"``), else it returns none
  and this raises saying so;
- any other model: a forward hook on every normalizer module (``nn.Softmax``, nonlin normalizers such
  as those of ``nonlin.probe.layers.SelfAttention``) whose output is [batch, heads, query, key]
  (or [batch, query, key], one head).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from nonlin.probe import discovery
from nonlin.probe._io import environment, format_table, write_json
from nonlin.spec import Kind


@dataclass
class AttentionReport:
    """Per layer and head: ``sink`` [layers, heads], ``entropy`` and ``entropy_normalized`` (same shape)."""

    layers: list[str]
    sink: torch.Tensor
    entropy: torch.Tensor
    entropy_normalized: torch.Tensor
    sink_position: int = 0
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "probe": "attention",
            "environment": environment(),
            "source": self.source,
            "sink_position": self.sink_position,
            "layers": self.layers,
            "sink": self.sink.tolist(),
            "entropy": self.entropy.tolist(),
            "entropy_normalized": self.entropy_normalized.tolist(),
        }

    def table(self) -> str:
        """Per layer: mean sink score over heads, the strongest sink head, mean entropy."""
        rows = []
        for i, name in enumerate(self.layers):
            s = self.sink[i]
            h = int(torch.argmax(s))
            rows.append(
                [
                    name,
                    str(s.numel()),
                    f"{s.mean():.3f}",
                    f"{h} ({s[h]:.3f})",
                    f"{self.entropy[i].mean():.3f}",
                    f"{self.entropy_normalized[i].nanmean():.3f}",
                ]
            )
        head = ["layer", "heads", "sink (mean)", "top sink head", "entropy (nats)", "entropy / ln(keys)"]
        return format_table(head, rows)

    def to_json(self, path: str | Path) -> Path:
        return write_json(self.to_dict(), path)

    def plot(self, path: str | Path) -> Path:
        from nonlin.probe.plots import plot_attention

        return plot_attention(self.to_dict(), path)


class _Summary:
    """Running per-head sums over the queries of several calls of one layer."""

    def __init__(self) -> None:
        self.sink = self.ent = self.ent_norm = None
        self.count = self.count_norm = None

    def add(self, w: torch.Tensor, query_valid: torch.Tensor | None, pos: int) -> None:
        w = w.detach().double()
        if w.dim() == 3:
            w = w.unsqueeze(1)  # one head
        b, h, tq, tk = w.shape
        if not -tk <= pos < tk:
            raise ValueError(f"sink_position={pos} is out of range for {tk} keys")
        q = torch.ones(b, tq, dtype=torch.bool, device=w.device) if query_valid is None else query_valid.bool()
        q = q[:, None, :].expand(b, h, tq).double()  # [b, h, tq]
        n_keys = (w > 0).any(dim=1).sum(-1).double()  # [b, tq]: keys some head of the row attends to
        ent_row = -torch.special.xlogy(w, w).sum(-1)  # [b, h, tq]
        log_n = torch.log(n_keys)[:, None, :].expand(b, h, tq)
        norm_ok = (log_n > 0).double() * q
        ent_norm_row = torch.where(log_n > 0, ent_row / log_n.clamp_min(1e-300), 0.0)
        parts = (
            (w[..., pos] * q).sum((0, 2)),
            (ent_row * q).sum((0, 2)),
            (ent_norm_row * norm_ok).sum((0, 2)),
            q.sum((0, 2)),
            norm_ok.sum((0, 2)),
        )
        if self.sink is None:
            self.sink, self.ent, self.ent_norm, self.count, self.count_norm = parts
        else:
            if parts[0].shape != self.sink.shape:
                raise ValueError(f"attention layer changed its number of heads from {self.sink.numel()} to {h}")
            self.sink, self.ent, self.ent_norm, self.count, self.count_norm = (
                a + p
                for a, p in zip((self.sink, self.ent, self.ent_norm, self.count, self.count_norm), parts, strict=True)
            )

    def result(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        c = self.count.clamp_min(1)
        return self.sink / c, self.ent / c, self.ent_norm / self.count_norm.clamp_min(1)


def _call(model: nn.Module, inputs: Any, **extra: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs, **extra)
    if isinstance(inputs, tuple | list):
        return model(*inputs, **extra)
    return model(inputs, **extra)


def _padding_mask(inputs: Any) -> torch.Tensor | None:
    if isinstance(inputs, dict) and isinstance(inputs.get("attention_mask"), torch.Tensor):
        m = inputs["attention_mask"]
        if m.dim() == 2:
            return m.bool()  # [batch, seq], True/1 = a real token
    return None


def _is_hf(model: nn.Module) -> bool:
    return hasattr(model, "config") and hasattr(model.config, "num_attention_heads")


@torch.no_grad()
def attention(model: nn.Module, inputs: Any, *, sink_position: int = 0) -> AttentionReport:
    """Attention-sink score and entropy per layer and head of `model` on `inputs` (one forward pass).

    ``inputs``: a tensor, a tuple of positional arguments, or a dict of keyword arguments (a tokenizer's
    output for Hugging Face models; its ``attention_mask`` marks the padding queries left out).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    if not isinstance(sink_position, int) or isinstance(sink_position, bool):
        raise TypeError(f"sink_position must be an int; got {sink_position!r}")
    pad = _padding_mask(inputs)
    if _is_hf(model):
        out = _call(model, inputs, output_attentions=True)
        atts = getattr(out, "attentions", None)
        if atts is None and isinstance(out, dict):
            atts = out.get("attentions")
        if not atts or any(a is None for a in atts):
            impl = getattr(model.config, "_attn_implementation", "?")
            raise ValueError(
                f"{type(model).__name__} returned no attention weights (attn_implementation={impl!r}); load it "
                "with attn_implementation='eager' (sdpa and flash kernels never form the weights)"
            )
        summaries = []
        for a in atts:
            s = _Summary()
            s.add(a, pad, sink_position)
            summaries.append(s)
        names = [f"layer {i}" for i in range(len(atts))]
        source = "output_attentions"
    else:
        try:
            sites = discovery.find(model, None, kinds=(Kind.NORMALIZER,))
        except ValueError:
            sites = []
        found: dict[str, _Summary] = {}
        handles = []

        def hook_for(name: str):
            def hook(module: nn.Module, args: Any, output: Any) -> None:
                if isinstance(output, torch.Tensor) and output.dim() in (3, 4) and output.shape[-1] == output.shape[-2]:
                    q = pad if pad is not None and pad.shape[-1] == output.shape[-2] else None
                    found.setdefault(name, _Summary()).add(output, q, sink_position)

            return hook

        try:
            for site in sites:
                handles.append(site.module.register_forward_hook(hook_for(site.name)))
            _call(model, inputs)
        finally:
            for h in handles:
                h.remove()
        if not found:
            raise ValueError(
                f"no attention weights found in {type(model).__name__}: expected a Hugging Face model loaded with "
                "attn_implementation='eager', or normalizer modules (nn.Softmax, nonlin normalizers) producing "
                "[batch, heads, query, key] weights; functional softmax calls cannot be hooked"
            )
        order = [s.name for s in sites if s.name in found]
        names, summaries = order, [found[n] for n in order]
        source = "normalizer hooks"
    results = [s.result() for s in summaries]
    heads = {r[0].numel() for r in results}
    if len(heads) != 1:  # layers with different head counts: pad with nan so the report stays a grid
        width = max(heads)
        pad_to = lambda t: torch.cat([t, torch.full((width - t.numel(),), math.nan, dtype=t.dtype)])
        results = [tuple(pad_to(x.cpu()) for x in r) for r in results]
    sink, ent, ent_n = (torch.stack([r[i].cpu() for r in results]) for i in range(3))
    return AttentionReport(names, sink, ent, ent_n, sink_position, source)
