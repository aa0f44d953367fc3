"""Drop-in replacements for torch.nn.init that accept any catalog name as `nonlinearity`.

    import nonlin.init
    nonlin.init.kaiming_normal_(w, nonlinearity="swiglu")

The gain is `nonlin.theory.init_gain(name)`: the weight-std multiplier that keeps the pre-activation variance
at 1 through the unit (relu sqrt 2, identity 1, selu 1, tanh 1.5925...). torch.nn.init.calculate_gain
differs on purpose for two names: its tanh gain 5/3 and selu gain 3/4 are heuristics of another kind (5/3
keeps tanh networks away from saturation; 3/4 keeps selu networks' gradients in range), not the
variance-preserving value. Names torch knows that are not activations ('conv2d', 'linear', 'sigmoid', ...)
keep torch's meaning only where this module says so: 'linear'/'identity' are 1 in both.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import torch

from nonlin.registry import spec as _spec

_TORCH_LINEAR = {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"}


@lru_cache(maxsize=256)
def _gain(name: str, params: tuple[tuple[str, float], ...]) -> float:
    from nonlin.theory import init_gain

    return init_gain(name, **dict(params))


def calculate_gain(nonlinearity: str, param: float | None = None, **params: Any) -> float:
    """The variance-preserving gain of any catalog entry (alias accepted).

    `param` is torch's positional slot (leaky_relu's negative slope) and maps to leaky_relu's alpha.
    """
    if nonlinearity in _TORCH_LINEAR:
        return 1.0
    name = _spec(nonlinearity).name
    if param is not None:
        if name != "leaky_relu":
            raise ValueError(f"param is leaky_relu's negative slope; pass {name}'s parameters by name instead")
        params = {**params, "alpha": float(param)}
    return _gain(name, tuple(sorted((k, float(v)) for k, v in params.items())))


def _fan(tensor: torch.Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _kaiming_gain(nonlinearity: str, a: float, params: dict[str, Any]) -> float:
    """torch's `a` is leaky_relu's slope; an explicit alpha= wins (they must agree when both are given)."""
    if _spec(nonlinearity).name != "leaky_relu":
        return calculate_gain(nonlinearity, **params)
    if "alpha" in params:
        if a not in (0, params["alpha"]):
            raise ValueError(f"leaky_relu: a={a!r} and alpha={params['alpha']!r} disagree; give one of them")
        return calculate_gain(nonlinearity, **params)
    return calculate_gain(nonlinearity, a)


def kaiming_normal_(
    tensor: torch.Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: torch.Generator | None = None,
    **params: Any,
) -> torch.Tensor:
    """N(0, gain^2 / fan) with the gain of any catalog entry. `a` is leaky_relu's slope, as in torch."""
    gain = _kaiming_gain(nonlinearity, a, params)
    std = gain / math.sqrt(_fan(tensor, mode))
    with torch.no_grad():
        return tensor.normal_(0.0, std, generator=generator)


def kaiming_uniform_(
    tensor: torch.Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: torch.Generator | None = None,
    **params: Any,
) -> torch.Tensor:
    """U(-b, b), b = gain * sqrt(3 / fan): the same variance as kaiming_normal_."""
    gain = _kaiming_gain(nonlinearity, a, params)
    bound = gain * math.sqrt(3.0 / _fan(tensor, mode))
    with torch.no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def xavier_normal_(
    tensor: torch.Tensor, nonlinearity: str = "identity", generator: torch.Generator | None = None, **params: Any
) -> torch.Tensor:
    """N(0, gain^2 * 2 / (fan_in + fan_out)) with the gain of `nonlinearity` (torch's `gain` argument)."""
    gain = calculate_gain(nonlinearity, **params)
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(tensor)
    with torch.no_grad():
        return tensor.normal_(0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator=generator)


def xavier_uniform_(
    tensor: torch.Tensor, nonlinearity: str = "identity", generator: torch.Generator | None = None, **params: Any
) -> torch.Tensor:
    gain = calculate_gain(nonlinearity, **params)
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    with torch.no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def edge_of_chaos_(
    weight: torch.Tensor,
    bias: torch.Tensor | None = None,
    nonlinearity: str = "tanh",
    sigma_b: float = 0.0,
    generator: torch.Generator | None = None,
    **params: Any,
) -> tuple[float, float]:
    """Initialise a Linear layer on the edge of chaos of `nonlinearity` at bias std sigma_b.

    W ~ N(0, sigma_w^2 / fan_in) with sigma_w = theory.edge_of_chaos(nonlinearity, sigma_b); b ~ N(0, sigma_b^2).
    Returns (sigma_w, sigma_b).
    """
    from nonlin.theory import critical_point

    point = critical_point(nonlinearity, sigma_b, **params)
    sigma_w = point.sigma_w
    if not math.isfinite(sigma_w):
        raise ValueError(f"{nonlinearity}: no edge of chaos at sigma_b={sigma_b}: {point.reason}")
    fan_in = _fan(weight, "fan_in")
    with torch.no_grad():
        weight.normal_(0.0, sigma_w / math.sqrt(fan_in), generator=generator)
        if bias is not None:
            if sigma_b > 0:
                bias.normal_(0.0, sigma_b, generator=generator)
            else:
                bias.zero_()
    return sigma_w, sigma_b


__all__ = [
    "calculate_gain",
    "edge_of_chaos_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "xavier_normal_",
    "xavier_uniform_",
]
