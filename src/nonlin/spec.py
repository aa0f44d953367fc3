"""The declaration of a nonlinearity: one frozen `Spec` per entry, read by every subsystem.

A formula body is a plain Python function of a math namespace `m` (see `nonlin.ops`) and its inputs:
the same body runs on torch tensors, at 50 digits in mpmath, and (later) inside a fused kernel.

Signatures by kind:
- pointwise: ``forward(m, x, **params)``; ``derivative(m, x, **params)`` is d forward / dx.
- gated:     ``forward(m, g, v, **params)``; ``derivative(m, g, v, **params)`` returns
  (d/dg, d/dv). Packed input is ``[gate | value]`` along the last dim unless the call (or a borrowed name's
  `Alias`, e.g. torch's ``glu``: value first) says another layout.
- normalizer: row-wise maps of scores to weights along ``dim``; they carry a torch implementation
  and a row-wise mpmath reference instead of an elementwise body (sorting and reductions are not
  elementwise), see ``nonlin.catalog.normalizers``. ``log_domain`` normalizers (log_softmax) return
  log-weights: masked keys and fully masked rows give -inf (the log of the 0 weight), not 0.
- setwise:   maps of a set of values along ``dim`` (a row of features, or with the ``batchwise`` property the
  whole batch) that are not elementwise: ``torch_impl(x, **params)`` takes ``x`` [..., n] with ``dim`` moved
  last and returns [..., m] with m = ``output_size(n, **params)`` (TopK and SoLU keep n; Maxout gives
  n / num_pieces, CReLU 2n, logsumexp 1 or removes ``dim`` with keepdim=False). ``reference_row(row, **params)``
  is the mpmath reference of one set. Set-wise units have no elementwise body, so the fused pointwise
  kernels and the Gaussian signal-propagation theory (which evaluate a scalar function of one
  pre-activation) do not apply to them; `nonlin check` measures them on sampled sets
  (nonlin.accuracy.sets) and tests/test_setwise.py checks values and gradients, see docs/catalog.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    POINTWISE = "pointwise"
    GATED = "gated"
    NORMALIZER = "normalizer"
    SETWISE = "setwise"


# The properties a spec may declare. Each one that is checkable on numbers is checked by
# tests/test_properties.py against the forward, both ways (declared <=> observed).
PROPERTIES: Mapping[str, str] = {
    "zero_at_zero": "f(0) = 0",
    "monotonic": "non-decreasing everywhere",
    "bounded_below": "inf f > -infinity",
    "bounded_above": "sup f < +infinity",
    "nonnegative": "f(x) >= 0 everywhere",
    "odd": "f(-x) = -f(x)",
    "sparse": "exact zeros on a set of positive measure (a whole interval of inputs)",
    "smooth": "continuously differentiable (no kink): f' has no jump",
    "self_gated": "f(x) = x * g(x) with a gate g -> 0 at -inf and g -> 1 at +inf",
    "periodic": "has a periodic component (sin-based)",
    "stochastic": "random in training mode",
    "gradient_rule": "backward is a documented rule, not the derivative of the forward",
    "learnable": "has parameters that can be trained",
    "row_normalized": "weights along dim sum to one",
    "sparse_output": "weights can be exactly zero",
    "signed_output": "weights can be negative (differential attention)",
    "log_domain": "outputs are log-weights: their exp is the row-normalized map; masked keys give -inf",
    "negated_scores": "weights fall as scores rise (softmin = softmax(-s)): +inf, not -inf, is a masked key's score",
    "batchwise": "set-wise over the whole batch (every row along dim together), not one row at a time",
}


# How a gated entry's packed input holds its two halves along `dim`: nonlin's own convention is gate first;
# torch, Keras and JAX's glu put the value first; gpt-oss checkpoints interleave them (g = x[..., ::2]).
LAYOUTS: Mapping[str, str] = {
    "gate_value": "[gate | value] halves, gate first (nonlin's default, silu_and_mul in inference engines)",
    "value_gate": "[value | gate] halves, value first (torch/Keras/JAX glu, timm GluMlp)",
    "interleaved": "gate and value alternate: g = x[..., 0::2], v = x[..., 1::2] (gpt-oss checkpoints)",
}


@dataclass(frozen=True, eq=False)  # identity equality and hash: a Spec holding records stays hashable
class Alias:
    """A name another library gives an entry, with that library's calling convention.

    A borrowed name means what it means upstream: resolving it gives the upstream defaults, accepts the
    upstream argument names and positions, and (gated) the upstream packing. `nonlin.functional.function(name)`
    and `nonlin.get(name, ...)` read this record; nonlin's own parameter names are accepted too.

    - ``names``: the upstream spellings (the registry ignores case, dashes and an ``nn.``/``F.`` prefix). One may
      be the canonical name itself where nonlin's name is also the library's (torch's ``leaky_relu``): the
      canonical functional form then takes that library's arguments as well as nonlin's.
    - ``library``: "torch", "hf", "timm", "keras", "jax", "scipy".
    - ``args``: upstream argument name -> nonlin parameter (``{"lambd": "tau"}``) or call option (``{"axis": "dim"}``).
    - ``defaults``: upstream defaults, keyed by nonlin parameter or call option (``inplace``, ``dim``, ``layout``,
      ``approximate``, ``threshold``).
    - ``positional``: the functional form's positional arguments after the input, upstream names, in order;
      ``module_positional``: the module constructor's, where it differs (torch's PReLU(num_parameters, init)).
    - ``module_defaults``: the module class's defaults where they differ from the function's, applied when the
      module is built from a class spelling of the record (a name in ``names`` starting with a capital:
      ``nonlin.get("Softmax")`` is torch's ``nn.Softmax(dim=None)``; ``nonlin.get("softmax")`` stays nonlin's).
    - ``choose``: an upstream argument whose value picks the entry (``{"approximate": {"none": "gelu",
      "tanh": "gelu_tanh"}}``); the record's own entry is the one its default picks.
    - ``ndim``: input ranks the upstream accepts (torch's Softmax2d: 3 or 4), empty for any.
    - ``note``: what a user of the upstream name should know (where nonlin's numbers differ, and why).
    """

    names: tuple[str, ...]
    library: str
    args: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    positional: tuple[str, ...] = ()
    module_positional: tuple[str, ...] | None = None
    module_defaults: Mapping[str, Any] = field(default_factory=dict)
    choose: Mapping[str, Mapping[Any, str]] = field(default_factory=dict)
    ndim: tuple[int, ...] = ()
    note: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.names, str):
            raise TypeError(f"Alias names must be a tuple of str; got the str {self.names!r}")
        layout = self.defaults.get("layout")
        if layout is not None and layout not in LAYOUTS:
            raise ValueError(f"alias {self.names}: layout {layout!r} is not one of {', '.join(LAYOUTS)}")

    def nonlin_name(self, upstream: str) -> str:
        """The nonlin parameter or option an upstream argument name maps to."""
        return self.args.get(upstream, upstream)


@dataclass(frozen=True)
class Param:
    """A parameter of a nonlinearity: its default, its admissible range and whether it can be learned."""

    name: str
    default: float | None  # None: derived from the input (e.g. sigmoid_attn's bias -log n); see doc
    doc: str = ""
    low: float = -math.inf
    high: float = math.inf
    low_inclusive: bool = True
    high_inclusive: bool = True
    integer: bool = False
    # A flag (gumbel_softmax's hard, logsumexp's keepdim): True or False, never a number.
    boolean: bool = False
    learnable: bool = False
    # The nn.Module form makes it an nn.Parameter unless told otherwise (prelu's a: yes; swish's beta: no).
    learned_by_default: bool = False
    # How the nn.Module form initialises the parameter when learnable (documentation; the value is `default`).
    init: str = ""
    # One value even when the module has num_parameters > 1 (DyT's alpha is a scalar beside per-channel
    # weight and bias).
    shared: bool = False

    def expected(self) -> str:
        """Human-readable admissible range, used in error messages."""
        parts = []
        if self.low > -math.inf:
            parts.append(f"{self.name} {'>=' if self.low_inclusive else '>'} {self.low:g}")
        if self.high < math.inf:
            parts.append(f"{self.name} {'<=' if self.high_inclusive else '<'} {self.high:g}")
        if self.boolean:
            return "a bool (True or False)"
        kind = "an integer" if self.integer else "a finite number"
        return f"{kind}" + (" with " + " and ".join(parts) if parts else "")

    def admits(self, value: float | None) -> bool:
        if value is None:
            return self.default is None
        if not math.isfinite(value):
            return False
        if self.integer and value != int(value):
            return False
        if value < self.low or (value == self.low and not self.low_inclusive):
            return False
        return not (value > self.high or (value == self.high and not self.high_inclusive))


@dataclass(frozen=True)
class Paper:
    title: str
    ref: str  # arXiv id, DOI or venue
    year: int | None = None

    def __str__(self) -> str:
        year = f" ({self.year})" if self.year else ""
        return f"{self.title}{year}, {self.ref}"


@dataclass(frozen=True)
class Spec:
    """One nonlinearity, declared once.

    ``confirmed`` says whether the formula was checked against its source; ``source`` says where
    (a paper section, the authors' code). Unconfirmed formulas are marked in docs and ``nonlin show``.
    """

    name: str
    kind: Kind
    family: str
    formula: str  # LaTeX
    summary: str
    forward: Callable[..., Any] | None = None
    derivative: Callable[..., Any] | None = None
    params: tuple[Param, ...] = ()
    # Other names for the same function with the same defaults (plain synonyms: "gelu_new", "ReLU").
    aliases: tuple[str, ...] = ()
    # Names borrowed with another library's calling convention (defaults, argument names, layout): `Alias`.
    borrowed: tuple[Alias, ...] = ()
    properties: frozenset[str] = frozenset()
    paper: Paper | None = None
    confirmed: bool = True
    source: str = ""
    # Inputs where the forward or its derivative is not smooth (kinks, jumps); a callable of the
    # params because they move with them (tau for shifted_relu). Theory splits quadrature there.
    breakpoints: Callable[..., tuple[float, ...]] = field(default=lambda **_: ())
    # Set when the backward is a rule rather than the derivative of the forward (straight-through,
    # hysteresis): the text says what the rule is.
    gradient_rule: str = ""
    # Stochastic entries: forward takes a uniform(0,1) tensor `u` after the inputs in training mode;
    # `eval_forward` is the deterministic forward used in eval mode.
    eval_forward: Callable[..., Any] | None = None
    eval_derivative: Callable[..., Any] | None = None
    # Pointwise entries whose derivative is an exact function of the output: ``derivative_from_output(m, y,
    # **params)`` gives the same bits as ``derivative(m, x, **params)`` for y = forward(x) as stored (rounded to
    # the input dtype), for every x including breakpoints, signed zeros, infinities and NaN. Declared only where
    # that holds (piecewise-linear entries whose piece can be read off y; never sigmoid/tanh, where y(1 - y) of
    # a rounded y loses accuracy): the fused op then saves y instead of x, and y is usually kept anyway (it is
    # the next layer's input). `output_constants(**params)` lists the parameter values the body compares y
    # with (a clip level, a threshold subtracted from x): the output is saved only when each is exactly
    # representable in the input dtype, since a rounded clip level can coincide with an unclipped output.
    # tests/kernels/test_kernel_saved_output.py checks both claims on every entry that declares them.
    derivative_from_output: Callable[..., Any] | None = None
    output_constants: Callable[..., tuple[float, ...]] = field(default=lambda **_: ())
    # Learnable parameters whose gradient is a declared rule instead of autograd of the forward (JumpReLU's
    # threshold: the forward is piecewise constant in it, the SAE paper's kernel pseudo-derivative trains it):
    # ((name, body), ...) with ``body(m, x, **params)`` the per-element d forward / d param the backward uses.
    param_rules: tuple[tuple[str, Callable[..., Any]], ...] = ()
    # Extra tensor inputs beyond (x) / (g, v), e.g. kappa_swiglu's router logit.
    extra_inputs: tuple[str, ...] = ()
    # Gated entries whose forward is exactly gate(g) * v (and derivative (gate'(g) v, gate(g))): the pointwise
    # (gate, gate') as ``body(m, g, **params)``, so that half-type inputs look the gate up (kernels/table.py).
    # tests/test_gated.py checks the declaration against forward and derivative.
    gate: tuple[Callable[..., Any], Callable[..., Any]] | None = None
    # The torch callable this entry equals, for agreement tests (not used to compute).
    torch_equivalent: Callable[..., Any] | None = None
    # Normalizers and set-wise units: torch implementation and row-wise mpmath reference.
    torch_impl: Callable[..., Any] | None = None
    reference_row: Callable[..., Any] | None = None
    # Set-wise units only: the output's size along dim for an input of size n (see the module docstring).
    output_size: Callable[..., int] = field(default=lambda n, **_: n)
    notes: str = ""

    def __post_init__(self) -> None:
        unknown = self.properties - set(PROPERTIES)
        if unknown:
            raise ValueError(f"spec {self.name!r}: unknown properties {sorted(unknown)}")
        if self.kind not in (Kind.NORMALIZER, Kind.SETWISE) and self.forward is None:
            raise ValueError(f"spec {self.name!r}: pointwise and gated entries need a forward body")
        ruled = {n for n, _ in self.param_rules}
        if ruled - {p.name for p in self.learnable_params}:
            raise ValueError(f"spec {self.name!r}: param_rules name parameters that are not learnable: {sorted(ruled)}")
        if self.derivative_from_output is not None and (
            self.kind is not Kind.POINTWISE or self.learnable_params or self.stochastic
        ):
            # Learnable parameters' gradients need x; gated entries have two inputs per output.
            raise ValueError(
                f"spec {self.name!r}: derivative_from_output is for deterministic pointwise entries without "
                "learnable parameters"
            )

    @property
    def alias_names(self) -> tuple[str, ...]:
        """Every other name of this entry: plain aliases, then borrowed names (the canonical name excluded)."""
        out = list(self.aliases)
        for a in self.borrowed:
            out += [n for n in a.names if n not in out and n != self.name]
        return tuple(out)

    @property
    def stochastic(self) -> bool:
        return "stochastic" in self.properties

    @property
    def masked_value(self) -> float:
        """What a normalizer gives masked keys and fully masked rows: 0, or -inf for log-domain entries."""
        return -math.inf if "log_domain" in self.properties else 0.0

    @property
    def masking_score(self) -> float:
        """The score that masks a key (an additive mask): -inf, or +inf where weights fall as scores rise
        (softmin). A row whose kept scores are all this value is a fully masked row."""
        return math.inf if "negated_scores" in self.properties else -math.inf

    @property
    def learnable_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.learnable)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, float]:
        return {p.name: p.default for p in self.params}

    def resolve_params(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with `given`; unknown names and out-of-range values raise.

        Tensor values (learnable parameters) are checked for finiteness of their range only when they
        are not being trained, since an optimiser may move them; floats are always range-checked.
        """
        known = {p.name for p in self.params}
        unknown = set(given) - known
        if unknown:
            allowed = ", ".join(sorted(known)) or "none"
            bad = sorted(unknown)[0]
            raise TypeError(f"{self.name}: unknown parameter {bad!r}; its parameters are: {allowed}")
        out: dict[str, Any] = self.defaults()
        for name, value in given.items():
            param = self.param(name)
            if param.boolean:
                if not isinstance(value, bool):
                    raise TypeError(f"{self.name}: parameter {name!r} must be a bool, got {value!r}")
                out[name] = value
                continue
            if isinstance(value, bool):
                raise TypeError(f"{self.name}: parameter {name!r} must be a number, got bool")
            if value is None and param.default is None:
                pass
            elif isinstance(value, int | float):
                if not param.admits(float(value)):
                    raise ValueError(
                        f"{self.name}: parameter {name}={value!r} is out of range; expected {param.expected()}"
                    )
                value = float(value)
            out[name] = value
        return out
