"""Small layers the probes are demonstrated and tested on: attention with a pluggable normalizer, a tiny
transformer whose activation and normalizer are catalog entries.

They are ordinary modules built from ``nonlin.get``: the probes find their nonlinearities like any
other model's (the normalizer is a ``Nonlinearity`` module, so ``probe.attention`` sees its weights).
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from nonlin.modules import get
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind


class SelfAttention(nn.Module):
    """Multi-head self-attention whose score normalizer is any catalog normalizer (softmax, sparsemax, ...).

    Input [batch, seq, d_model]; ``key_padding_mask`` [batch, seq] bool, True = a real token. The weights
    [batch, heads, seq, seq] are the output of ``self.normalizer`` (a ``nonlin.Nonlinearity``) and are kept
    in ``last_weights`` when ``keep_weights`` is set.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        normalizer: str = "softmax",
        *,
        causal: bool = False,
        keep_weights: bool = False,
        **normalizer_params: Any,
    ) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")
        if get_spec(normalizer).kind is not Kind.NORMALIZER:
            raise ValueError(
                f"normalizer must be a catalog normalizer (nonlin.names('normalizer')); got {normalizer!r}"
            )
        self.n_heads, self.d_head, self.causal = n_heads, d_model // n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.normalizer = get(normalizer, **normalizer_params)
        self.keep_weights = keep_weights
        self.last_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor, key_padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        if x.dim() != 3:
            raise ValueError(f"SelfAttention expects x of shape [batch, seq, d_model]; got {tuple(x.shape)}")
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)  # [b, h, t, dh] each
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_head)  # [b, h, t, t]
        keep = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if self.causal:
            keep = torch.tril(keep)
        keep = keep.expand(b, 1, t, t)
        if key_padding_mask is not None:
            keep = keep & key_padding_mask[:, None, None, :].bool()
        w = self.normalizer(scores, dim=-1, mask=keep)  # [b, h, t, t]
        if self.keep_weights:
            self.last_weights = w.detach()
        y = (w @ v).transpose(1, 2).reshape(b, t, d)
        return self.out(y)


class Block(nn.Module):
    """Pre-LayerNorm transformer block: x + attn(ln(x)), then x + mlp(ln(x)); the MLP's activation is a catalog entry."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, activation: str, normalizer: str, causal: bool) -> None:
        super().__init__()
        gated = get_spec(activation).kind is Kind.GATED
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = SelfAttention(d_model, n_heads, normalizer, causal=causal)
        self.ln2 = nn.LayerNorm(d_model)
        self.up = nn.Linear(d_model, 2 * d_ff if gated else d_ff)  # gated units take [gate | value]
        self.act = get(activation)
        self.down = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.down(self.act(self.up(self.ln2(x))))  # [batch, seq, d_ff] between up and down


class TinyTransformer(nn.Module):
    """A small decoder-style language model on token ids [batch, seq] -> logits [batch, seq, vocab]."""

    def __init__(
        self,
        vocab: int = 256,
        d_model: int = 64,
        n_heads: int = 4,
        n_layers: int = 2,
        d_ff: int = 256,
        max_len: int = 128,
        activation: str = "gelu",
        normalizer: str = "softmax",
        causal: bool = True,
    ) -> None:
        super().__init__()
        self.max_len, self.vocab = max_len, vocab
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(
            Block(d_model, n_heads, d_ff, activation, normalizer, causal) for _ in range(n_layers)
        )
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2 or tokens.dtype not in (torch.int64, torch.int32):
            raise ValueError(
                f"TinyTransformer expects integer token ids of shape [batch, seq]; got {tokens.dtype} {tuple(tokens.shape)}"
            )
        if tokens.shape[1] > self.max_len:
            raise ValueError(f"sequence length {tokens.shape[1]} exceeds max_len={self.max_len}")
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.embed(tokens) + self.pos(pos)  # [batch, seq, d_model]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))
