"""Model factories for ``nonlin probe``: a factory returns ``model`` or ``(model, inputs)``.

``tiny_transformer`` is the bundled example (random weights, fixed seed, no download).
"""

from __future__ import annotations

import torch
from torch import nn

from nonlin.probe.layers import TinyTransformer


def tiny_transformer(
    activation: str = "gelu", normalizer: str = "softmax", batch: int = 8, seq: int = 64, seed: int = 0
) -> tuple[nn.Module, torch.Tensor]:
    """A 2-layer TinyTransformer and a batch of random token ids [batch, seq]."""
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = TinyTransformer(activation=activation, normalizer=normalizer, max_len=max(seq, 128))
    model.eval()
    tokens = torch.randint(0, model.vocab, (batch, seq), generator=g)
    return model, tokens


def relu_mlp(width: int = 32, depth: int = 3, d_in: int = 2, seed: int = 0) -> tuple[nn.Module, torch.Tensor]:
    """A ReLU MLP [batch, d_in] -> [batch, 1] and a batch of Gaussian inputs (for regions and rank)."""
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    d = d_in
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.ReLU()]
        d = width
    layers.append(nn.Linear(d, 1))
    return nn.Sequential(*layers), torch.randn(256, d_in)
