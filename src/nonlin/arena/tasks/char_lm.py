"""A small causal transformer language model on text that ships with Python (pydoc_data's help topics):
bits per character on held-out text. The FFN's nonlinearity is the one compared; gated units get a packed
[gate | value] projection of 2/3 the hidden width so the parameter count matches the ungated FFN
(Shazeer 2020, arXiv:2002.05202). A normalizer (softmax alternative) replaces the attention softmax instead,
with a GELU FFN."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

import torch
import torch.nn.functional as F
from torch import nn

from nonlin.arena.acts import Act, catalog_act
from nonlin.arena.tasks.base import Problem, Task, register_task


@cache
def corpus() -> tuple[str, str]:
    """The text (help topics in key order, ~465k characters) and its sorted character vocabulary."""
    from pydoc_data.topics import topics

    text = "\n\n".join(topics[k] for k in sorted(topics))
    return text, "".join(sorted(set(text)))


class Attention(nn.Module):
    def __init__(self, d: int, heads: int, normalizer=None) -> None:
        super().__init__()
        self.heads, self.qkv, self.out = heads, nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.normalizer = normalizer  # None: softmax through scaled_dot_product_attention

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)  # [b, h, t, dh]
        if self.normalizer is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)  # [b, h, t, t]
            causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
            y = self.normalizer(scores, dim=-1, mask=causal) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d: int, heads: int, d_ff: int, act: Act, normalizer=None) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads, normalizer)
        self.ffn = nn.Sequential(nn.Linear(d, d_ff * act.width_factor), act.module(), nn.Linear(d_ff, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.ffn(self.ln2(x))


class CharTransformer(nn.Module):
    def __init__(self, vocab: int, ctx: int, d: int, heads: int, layers: int, d_ff: int, act: Act, normalizer=None):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.Sequential(*(Block(d, heads, d_ff, act, normalizer) for _ in range(layers)))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:  # [b, t] -> logits [b, t, vocab]
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        return self.head(self.ln(self.blocks(x)))


@register_task
@dataclass
class CharLM(Task):
    name: ClassVar[str] = "char_lm"
    metric: ClassVar[str] = "bits_per_char"
    goal: ClassVar[str] = "min"
    kinds: ClassVar[tuple[str, ...]] = ("pointwise", "gated", "normalizer")
    cost: ClassVar[float] = 4.0
    description: ClassVar[str] = (
        "2-layer transformer LM on Python's bundled help text (pydoc_data): held-out bits per character"
    )
    d_model: int = 64
    heads: int = 4
    layers: int = 2
    d_ff: int = 128
    ctx: int = 32
    batch: int = 32
    steps: int = 100
    lr: float = 1e-2
    eval_windows: int = 32
    eval_every: int = 50
    ffn_for_normalizers: str = "gelu"

    def build(self, act: Act, seed: int) -> Problem:
        _text, vocab = corpus()
        ids = _encoded()
        cut = int(0.9 * len(ids))
        train, val = ids[:cut], ids[cut:]
        if act.kind == "normalizer":
            ffn_act, normalizer, d_ff = catalog_act(self.ffn_for_normalizers), act.normalizer(), self.d_ff
        else:
            ffn_act, normalizer = act, None
            d_ff = round(self.d_ff * 2 / 3) if act.kind == "gated" else self.d_ff
        torch.manual_seed(seed)
        model = CharTransformer(len(vocab), self.ctx, self.d_model, self.heads, self.layers, d_ff, ffn_act, normalizer)
        opt = torch.optim.AdamW(model.parameters(), lr=self.lr, weight_decay=0.01)
        gen = torch.Generator().manual_seed(seed + 1)
        span = self.ctx + 1
        starts = torch.linspace(0, len(val) - span - 1, self.eval_windows).long()
        val_windows = torch.stack([val[s : s + span] for s in starts.tolist()])  # [eval_windows, ctx + 1]

        def next_batch(step: int) -> torch.Tensor:
            s = torch.randint(0, len(train) - span, (self.batch,), generator=gen)
            return torch.stack([train[i : i + span] for i in s.tolist()])  # [batch, ctx + 1]

        def loss(m: nn.Module, w: torch.Tensor) -> torch.Tensor:
            logits = m(w[:, :-1])  # [batch, ctx, vocab]
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), w[:, 1:].reshape(-1))

        @torch.no_grad()
        def evaluate(m: nn.Module) -> dict[str, float]:
            nats = float(loss(m, val_windows))
            return {"bits_per_char": nats / math.log(2), "val_loss": nats}

        return Problem(
            model=model,
            optimizer=opt,
            steps=self.steps,
            next_batch=next_batch,
            loss=loss,
            evaluate=evaluate,
            probe_input=val_windows[:8, :-1],
            eval_every=self.eval_every,
            items_per_step=self.batch * self.ctx,
            item_unit="chars",
        )


@cache
def _encoded() -> torch.Tensor:
    text, vocab = corpus()
    table = {c: i for i, c in enumerate(vocab)}
    return torch.tensor([table[c] for c in text], dtype=torch.long)
