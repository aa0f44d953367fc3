"""nn.Module forms of catalog entries, built from the same declaration as the functional forms."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from torch import nn

from nonlin import calling
from nonlin.functional import _BASE
from nonlin.registry import _key, convention
from nonlin.registry import spec as get_spec
from nonlin.spec import Alias, Kind, Spec

# Call options a module holds and passes on each call, by kind (entry-specific ones: calling.EXTRA_ARGS).
_OPTIONS = {
    Kind.POINTWISE: {"inplace"},
    Kind.GATED: {"dim", "layout"},
    Kind.NORMALIZER: {"dim"},
    Kind.SETWISE: {"dim"},
}


class Nonlinearity(nn.Module):
    """A catalog entry as a module.

    Learnable parameters become ``nn.Parameter`` s: those the spec learns by default (prelu's a,
    rational's coefficients, ...) unless ``learnable=`` says otherwise; ``learnable=True`` makes every
    learnable-capable parameter trainable, ``learnable=("beta",)`` chooses. ``num_parameters=C`` gives
    one value per channel along ``channel_dim`` (1, as torch.nn.PReLU; use -1 for [..., features]), except
    for parameters the spec marks ``shared`` (DyT's alpha), which keep one value.
    Stochastic entries follow the module's train/eval mode and use ``generator`` if given.

    A borrowed name builds the module its library would: ``Nonlinearity("Softshrink")`` has torch's
    lambd = 0.5, ``Nonlinearity("Hardtanh", -2.0, 2.0)`` takes torch's positions, ``Nonlinearity("GLU", dim=1)``
    splits value-first along dim 1, ``Nonlinearity("GELU", approximate="tanh")`` is gelu_tanh. Call options:
    ``inplace`` (pointwise; torch's meaning, see `nonlin.functional`), ``dim`` (gated, normalizers and set-wise
    units; -1 unless the name says otherwise: Softmax2d -3; torch's classes Softmax, Softmin, LogSoftmax None,
    torch's deprecated implicit choice with its warning, as ``nn.Softmax()``), ``layout`` (gated).
    """

    def __init__(
        self,
        name: str,
        *args: Any,
        learnable: bool | Iterable[str] | None = None,
        num_parameters: int = 1,
        channel_dim: int = 1,
        generator: torch.Generator | None = None,
        **params: Any,
    ) -> None:
        super().__init__()
        self.borrowed: Alias | None = convention(name)
        self.called = name  # the name it was built from (a borrowed one shows in repr)
        entry, params = calling.bind(self.borrowed, get_spec(name), args, params, module=True, called=name)
        num_parameters = params.pop("num_parameters", num_parameters)  # torch's PReLU(num_parameters, init)
        self.spec: Spec = get_spec(entry)
        self._fn = _BASE[self.spec.name]
        allowed = _OPTIONS[self.spec.kind] | calling.EXTRA_ARGS.get(self.spec.name, set())
        self.options: dict[str, Any] = {k: params.pop(k) for k in list(params) if k in allowed}
        dim = self.options.get("dim", -1)
        if self.spec.kind in (Kind.NORMALIZER, Kind.SETWISE):
            self.options.pop("dim", None)  # a per-call dim= overrides it
        resolved = self.spec.resolve_params(params)
        self._learned = self._choose_learned(learnable)
        if not isinstance(num_parameters, int) or num_parameters < 1:
            raise ValueError(f"num_parameters must be a positive int; got {num_parameters!r}")
        if num_parameters > 1 and not self._learned:
            raise ValueError(f"num_parameters={num_parameters} needs a learnable parameter; {self.spec.name} has none")
        self.num_parameters, self.channel_dim, self.dim = num_parameters, channel_dim, dim
        self.generator = generator
        self._fixed: dict[str, Any] = {}
        for p in self.spec.params:
            if p.name in self._learned:
                n = 1 if p.shared else num_parameters
                self.register_parameter(p.name, nn.Parameter(torch.full((n,), float(resolved[p.name]))))
            else:
                self._fixed[p.name] = resolved[p.name]
        # Nothing learned, no call option and every parameter at the entry's default: the call without them, which
        # takes the functional form's settled route (a parameter passed, even at its default, has the route chosen
        # again on every call: leaky_relu's module cost 5x its functional form at 64x8)
        self._at_defaults = (
            self.spec.kind in (Kind.POINTWISE, Kind.GATED)
            and not self.spec.stochastic
            and not self._learned
            and not self.options
            and not any(isinstance(v, torch.Tensor) for v in self._fixed.values())
            and self._fixed == self.spec.defaults()
        )

    def _choose_learned(self, learnable: bool | Iterable[str] | None) -> tuple[str, ...]:
        capable = [p.name for p in self.spec.params if p.learnable]
        if learnable is None:
            return tuple(p.name for p in self.spec.params if p.learned_by_default)
        if learnable is True:
            return tuple(capable)
        if learnable is False:
            return ()
        chosen = tuple(learnable)
        bad = [n for n in chosen if n not in capable]
        if bad:
            raise ValueError(
                f"{self.spec.name}: parameter {bad[0]!r} cannot be learned; learnable ones: {', '.join(capable) or 'none'}"
            )
        return chosen

    def _params(self, ndim: int) -> dict[str, Any]:
        out = dict(self._fixed)
        for name in self._learned:
            w = getattr(self, name)
            if w.numel() > 1:  # per channel (shared parameters keep their single value)
                cd = self.channel_dim % ndim if ndim else 0
                w = w.reshape(-1, *([1] * (ndim - cd - 1)))  # broadcast along channel_dim
            out[name] = w
        return out

    def _check_channels(self, inputs: tuple[torch.Tensor, ...]) -> None:
        """Per-channel parameters need as many channels along `channel_dim` (a packed gated input's gate width
        where that is its last dim): broadcasting would fail deep inside, or inside torch.compile's trace."""
        x = inputs[0]
        if x.dim() == 0:
            return
        cd = self.channel_dim % x.dim()
        channels = x.shape[cd]
        packed = self.spec.kind is Kind.GATED and len(inputs) == 1 and cd == x.dim() - 1
        if packed:
            channels //= 2
        if channels != self.num_parameters:
            where = "the gate width (half the packed last dim)" if packed else f"dim {cd}"
            raise ValueError(
                f"{self.spec.name}: num_parameters={self.num_parameters} per-channel values, but the input of shape "
                f"{tuple(x.shape)} has {channels} channels along channel_dim={self.channel_dim} ({where})"
            )

    def forward(self, *inputs: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        calling.check_ndim(self.borrowed, inputs[0] if inputs else None)
        if self._at_defaults:
            return self._fn(*inputs, **kwargs)
        kind = self.spec.kind
        if self.num_parameters > 1 and inputs:
            self._check_channels(inputs)
        params = {**self._params(inputs[0].dim()), **self.options}
        if kind is Kind.NORMALIZER or kind is Kind.SETWISE:
            if self.spec.stochastic:
                kwargs.setdefault("generator", self.generator)
            return self._fn(*inputs, dim=kwargs.pop("dim", self.dim), **params, **kwargs)
        if self.spec.stochastic:
            return self._fn(*inputs, training=self.training, generator=self.generator, **params, **kwargs)
        return self._fn(*inputs, **params, **kwargs)

    def extra_repr(self) -> str:
        parts = [f"{k}={v!r}" for k, v in self._fixed.items() if v is not None]
        parts += [f"{k}={v!r}" for k, v in self.options.items() if v is not None and v is not False]
        if self._learned:
            parts.append(f"learnable={list(self._learned)}")
        if self.num_parameters > 1:
            parts.append(f"num_parameters={self.num_parameters}, channel_dim={self.channel_dim}")
        head = self.spec.name
        if self.spec.kind in (Kind.NORMALIZER, Kind.SETWISE) and self.dim != -1:
            parts.insert(0, f"dim={self.dim!r}")
        spelled = self.borrowed is not None and calling.class_spelling(self.borrowed, self.called)
        if self.borrowed is not None and (_key(self.called) != self.spec.name or spelled):
            head += f" as {self.called!r} ({self.borrowed.library})"
        return head + (", " + ", ".join(parts) if parts else "")


def get(name: str, *args: Any, **kwargs: Any) -> Nonlinearity:
    """An nn.Module for a catalog entry (canonical name, alias or borrowed name), e.g. ``nonlin.get("prelu")``,
    ``nonlin.get("LeakyReLU", 0.2)`` (torch's positions and defaults for torch's names)."""
    return Nonlinearity(name, *args, **kwargs)
