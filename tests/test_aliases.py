"""Borrowed names mean what they mean upstream: every activation of torch.nn, torch.nn.functional, Hugging Face's
ACT2FN and timm's registry (as installed) resolves by name and agrees with the upstream callable, built with its
defaults, on a grid; torch's argument names and positions are accepted; the records themselves are valid."""

from __future__ import annotations

import copy
import importlib
import importlib.util
import inspect
import math
import re
import sys
import types
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import nonlin
from nonlin import calling
from nonlin import reference as R
from nonlin.registry import convention, conventions
from nonlin.spec import LAYOUTS, Kind

NF = nonlin.functional

# Upstream names nonlin does not resolve yet (none now: issue 15's entries provide the last ones, threshold_ is
# threshold's in-place record). The walk fails on any other missing name; test_pending_names_are_still_missing
# fails once one of these resolves, so the list only shrinks.
PENDING: set[str] = set()
# In torch.nn.modules.activation.__all__ or the functional docs' activation section, but not nonlinearities.
NOT_ACTIVATIONS = {
    "MultiheadAttention": "an attention layer with weights, not a nonlinearity (nonlin's normalizers go inside one)",
    "batch_norm": "normalization layer",
    "group_norm": "normalization layer",
    "instance_norm": "normalization layer",
    "layer_norm": "normalization layer",
    "local_response_norm": "normalization layer",
    "rms_norm": "normalization layer",
    "normalize": "L_p normalization of vectors, not an activation",
}
# torch.nn.functional's "Non-linear activation functions" section (docs/source/nn.functional.rst). Cross-checked
# below against the installed torch: every activation module's functional twin must be in it.
TORCH_FUNCTIONAL = [
    "threshold",
    "threshold_",
    "relu",
    "relu_",
    "hardtanh",
    "hardtanh_",
    "hardswish",
    "relu6",
    "elu",
    "elu_",
    "selu",
    "celu",
    "leaky_relu",
    "leaky_relu_",
    "prelu",
    "rrelu",
    "rrelu_",
    "glu",
    "gelu",
    "logsigmoid",
    "hardshrink",
    "tanhshrink",
    "softsign",
    "softplus",
    "softmin",
    "softmax",
    "softshrink",
    "gumbel_softmax",
    "log_softmax",
    "tanh",
    "sigmoid",
    "hardsigmoid",
    "silu",
    "mish",
    *(n for n in NOT_ACTIVATIONS if n[0].islower()),
]


def torch_modules() -> list[str]:
    import torch.nn.modules.activation as A

    return list(A.__all__)


def hf_keys() -> list[str] | None:
    """ACT2FN's keys, or None where transformers is not installed (`./run test` installs it)."""
    if importlib.util.find_spec("transformers") is None:
        return None
    return list(importlib.import_module("transformers.activations").ACT2CLS)


_TIMM: list = []


def _timm_create_act():  # -> the module, or None where timm is not installed
    """timm's activation registry module. timm's package __init__ imports torchvision (for its models and data
    pipeline); the registry needs only torch, so it is loaded under stand-in packages that are removed again
    (an `import timm` elsewhere then gets the real package)."""
    if _TIMM:
        return _TIMM[0]
    spec = importlib.util.find_spec("timm")
    if spec is None:
        return None
    root = spec.submodule_search_locations[0]
    stand_ins = [n for n in ("timm", "timm.layers") if n not in sys.modules]
    for name, path in (("timm", root), ("timm.layers", f"{root}/layers")):
        if name in stand_ins:
            package = types.ModuleType(name)
            package.__path__ = [path]
            sys.modules[name] = package
    loaded = set(sys.modules)
    try:
        _TIMM.append(importlib.import_module("timm.layers.create_act"))
    finally:
        for name in [*stand_ins, *(n for n in set(sys.modules) - loaded if n.startswith("timm."))]:
            sys.modules.pop(name, None)
    return _TIMM[0]


def timm_keys() -> list[str] | None:
    """timm's registry keys, or None where timm is not installed (`./run test` installs it)."""
    c = _timm_create_act()
    return None if c is None else sorted({*c._ACT_LAYER_DEFAULT, *c._ACT_FN_DEFAULT})


def _resolves(name: str) -> bool:
    try:
        nonlin.resolve(name)
    except ValueError:
        return False
    return True


def _upstream_names() -> dict[str, list[str] | None]:
    return {
        "torch.nn": [n for n in torch_modules() if n not in NOT_ACTIVATIONS],
        "torch.nn.functional": [n for n in TORCH_FUNCTIONAL if n not in NOT_ACTIVATIONS],
        "transformers ACT2FN": hf_keys(),
        "timm": timm_keys(),
    }


def test_functional_list_covers_the_installed_torch():
    missing = [n for n in TORCH_FUNCTIONAL if not hasattr(F, n)]
    assert not missing, f"not in the installed torch.nn.functional: {missing}"
    twins = {n.lower() for n in torch_modules()} & {n for n in dir(F) if not n.startswith("_")}
    assert twins <= set(TORCH_FUNCTIONAL), f"activation functions not walked: {sorted(twins - set(TORCH_FUNCTIONAL))}"


@pytest.mark.parametrize("source", ["torch.nn", "torch.nn.functional", "transformers ACT2FN", "timm"])
def test_every_upstream_name_resolves(source):
    names = _upstream_names()[source]
    if names is None:
        pytest.skip(f"{source} is not installed (./run test installs it)")
    missing = sorted(n for n in names if not _resolves(n) and n not in PENDING)
    assert not missing, f"{source} names nonlin does not resolve: {missing}"


def test_pending_names_are_still_missing():
    now = sorted(n for n in PENDING if _resolves(n))
    assert not now, f"these resolve now: remove them from PENDING so the walk checks them: {now}"


# ---- numerical agreement with the upstream callables -------------------------------------------------------------

_GRID = np.concatenate(
    [
        np.linspace(-12.0, 12.0, 481),
        [-1e4, -300.0, -50.0, -30.0, -20.5, 20.5, 25.0, 30.0, 50.0, 300.0, 1e4],
        [-1e-300, -1e-8, -0.0, 1e-8, 1e-300],
    ]
)


# Arguments torch requires (no default), by name: the walk passes the same to torch and to nonlin.
_REQUIRED = {"threshold": 0.5, "value": -1.0}
# Upstream callables that sample: they resolve, and their entry's own tests check the distribution.
SAMPLING = {"gumbel_softmax"}


def _required(f) -> tuple:
    try:
        sig = inspect.signature(f)
    except ValueError:  # a builtin (F.threshold_): the signature line its docstring starts with
        line = next(ln for ln in (f.__doc__ or "").strip().splitlines() if "(" in ln)
        parts = [p.strip() for p in line[line.index("(") + 1 : line.rindex(")")].split(",")][1:]
        return tuple(_REQUIRED[p] for p in parts if "=" not in p and p != "*" and p in _REQUIRED)
    ps = [p for p in sig.parameters.values() if p.name not in ("self", "input") and p.default is p.empty]
    ps = [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return tuple(_REQUIRED[p.name] for p in ps)


def _upstream_callable(source: str, name: str):
    """The upstream function of one tensor, built with its defaults (and _REQUIRED arguments)."""
    if source == "torch.nn":
        cls = getattr(nn, name)
        if name in ("Softmax", "Softmin", "LogSoftmax"):
            return cls(dim=-1)  # torch deprecates its no-dim default (see test_softmax_dim_none)
        return cls(*_required(cls.__init__)).eval()
    if source == "torch.nn.functional":
        f = getattr(F, name)
        args = _required(f)
        if name == "prelu":
            return lambda x: f(x, torch.tensor([0.25], dtype=x.dtype))
        if name in ("softmax", "softmin", "log_softmax"):
            return lambda x: f(x, dim=-1)
        return lambda x: f(x.clone() if name.endswith("_") else x, *args)
    if source == "transformers ACT2FN":
        from transformers.activations import ACT2FN

        return ACT2FN[name]
    c = _timm_create_act()
    if name in c._ACT_LAYER_DEFAULT:
        return c._ACT_LAYER_DEFAULT[name]().eval()
    return c._ACT_FN_DEFAULT[name]


def _nonlin_callable(source: str, name: str):
    if source == "torch.nn.functional":
        f, args = NF.function(name), _required(getattr(F, name))
        if name == "prelu":
            return lambda x: f(x, torch.tensor([0.25], dtype=x.dtype))
        return lambda x: f(x.clone() if name.endswith("_") else x, *args)
    if source == "torch.nn":
        if name in ("Softmax", "Softmin", "LogSoftmax"):
            return nonlin.get(name, dim=-1)  # as upstream's (the dim=None default: test_softmax_dim_none...)
        return nonlin.get(name, *_required(getattr(nn, name).__init__)).eval()
    return nonlin.get(name).eval()


def _in(f, dtype: torch.dtype):
    """A module with its parameters in `dtype` (torch's PReLU refuses mixed dtypes); functions as they are."""
    return copy.deepcopy(f).to(dtype) if isinstance(f, nn.Module) else f


def _input(kind: Kind, name: str, dtype: torch.dtype) -> torch.Tensor:
    if kind is Kind.POINTWISE:
        return torch.from_numpy(_GRID).to(dtype)
    gen = torch.Generator().manual_seed(0)
    if kind is Kind.GATED:
        return (torch.randn(16, 24, generator=gen, dtype=torch.float64) * 4).to(dtype)
    shape = (2, 3, 4, 5) if name.lower() == "softmax2d" else (6, 9)
    return (torch.randn(shape, generator=gen, dtype=torch.float64) * 6).to(dtype)


def _reference(entry: str, params: dict, x: torch.Tensor, kind: Kind) -> np.ndarray:
    return R.pointwise_array(entry, x.tolist(), **params)


def _rounding_level(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """What an upstream formula's cancellation can cost: a few ULP of the input's magnitude (0.5 x (1 + tanh(u))
    for u -> -inf loses everything below eps |x|)."""
    return 8 * torch.finfo(dtype).eps * x.abs().clamp_min(1.0)


_DC = abs(0.7978845608 - math.sqrt(2 / math.pi))  # HF's gelu_fast writes sqrt(2/pi) to 10 digits: 2.9e-12 off


def _gelu_fast_constant(x: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """|d gelu_tanh / dc| |dc| for HF's gelu_fast constant, d/dc = x/2 sech^2(u) w, u = c w, w = x + 0.044715 x^3."""
    w = x + 0.044715 * x**3
    sech2 = 4 * torch.sigmoid(2 * math.sqrt(2 / math.pi) * w) * torch.sigmoid(-2 * math.sqrt(2 / math.pi) * w)
    return 1.01 * 0.5 * x.abs() * w.abs() * sech2 * _DC


def _gelu_fast_constant_grad(x: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """|d^2 gelu_tanh / dx dc| |dc|: d/dx [x w sech^2(u) / 2] = sech^2(u) [(w + x w') / 2 - x w tanh(u) c w']."""
    c = math.sqrt(2 / math.pi)
    w, dw = x + 0.044715 * x**3, 1 + 3 * 0.044715 * x**2
    u = c * w
    sech2 = 4 * torch.sigmoid(2 * u) * torch.sigmoid(-2 * u)
    return 1.01 * sech2 * ((w.abs() + x.abs() * dw) / 2 + x.abs() * w.abs() * c * dw) * _DC


def _xielu_deltas() -> tuple[float, float, float, float]:
    """|HF - nonlin| of alpha_p, alpha_n and eps at the defaults (HF stores softplus^-1 of them in bfloat16, nonlin's
    module its effective values in float32), and alpha_n."""
    from transformers.activations import ACT2FN

    hf = ACT2FN["xielu"].double()
    ap, an = F.softplus(hf.alpha_p).item(), (hf.beta + F.softplus(hf.alpha_n)).item()
    ours = nonlin.get("xielu")
    f32 = lambda v: float(torch.tensor(v, dtype=torch.float32))
    return abs(ap - ours.alpha_p.item()), abs(an - ours.alpha_n.item()), abs(hf.eps.item() - f32(-1e-6)), an


def _xielu_storage(x: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """|df/da_p| da_p + |df/da_n| da_n + |df/deps| deps, 1% margin: x^2 (x > 0); |expm1(min(x, eps)) - x|, a_n (x <= 0)."""
    dp, dn, de, an = _xielu_deltas()
    neg = (torch.expm1(x.clamp_max(-1e-6)) - x).abs() * dn + an * de
    return 1.01 * torch.where(x > 0, x * x * dp, neg)


def _xielu_storage_grad(x: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """d/dx: 2 x a_p + beta (x > 0), a_n (e^x - 1) + beta (x < eps), beta - a_n (eps < x <= 0)."""
    dp, dn, _, _ = _xielu_deltas()
    return 1.01 * torch.where(x > 0, 2 * x.abs() * dp, (torch.exp(x.clamp_max(0.0)) - 1).abs().clamp_min(1.0) * dn)


# Where nonlin's numbers depart from upstream's on purpose or upstream is inaccurate beyond rounding (by entry or
# upstream name), with the bound stated in the record's note or the alias's comment: (value bound, gradient bound).
_E20 = math.exp(-20.0)
DEPARTURES = {
    # torch's Softplus(threshold=20) returns x where beta x > 20; nonlin is exact: log1p(e^-20) / beta at most in
    # value, sigmoid(-20) < e^-20 in gradient.
    "softplus": (
        lambda x, ref: torch.where(x > 20.0, math.log1p(_E20), 0.0),
        lambda x, ref: torch.where(x > 20.0, _E20, 0.0),
    ),
    # HF's sqrtsoftplus is sqrt(F.softplus(x)), so torch's threshold 20 again: sqrt(x + d) - sqrt(x) <= d / 2 sqrt(x).
    # Its backward is sqrt'(0) * 0 = inf * 0 = NaN where softplus underflows to 0 (x below -745).
    "sqrtsoftplus": (
        lambda x, ref: torch.where(x > 20.0, math.log1p(_E20) / (2 * x.clamp_min(20.0).sqrt()), 0.0),
        lambda x, ref: torch.where(x > 20.0, _E20, torch.where(F.softplus(x) == 0, torch.inf, 0.0)),
    ),
    "xielu": (_xielu_storage, _xielu_storage_grad),
    "gelu_fast": (_gelu_fast_constant, _gelu_fast_constant_grad),
    # torch's float64 hardsigmoid backward multiplies by float32's 1/6 (0.1666666716337204): 5.0e-9 off.
    "hardsigmoid": (
        None,
        lambda x, ref: torch.full_like(x, abs(float(torch.tensor(1 / 6, dtype=torch.float32)) - 1 / 6)),
    ),
}
# Kinks where nonlin's derivative takes the other one-sided value than torch's (both are one-sided derivatives;
# the gradient comparison skips breakpoints, and test_kink_conventions pins these).
KINK_CONVENTIONS = {"hardswish": {-3.0: (-0.5, 0.0), 3.0: (1.5, 1.0)}, "rrelu": {0.0: (1.0, 11 / 48)}}


def _departure(entry: str, x: torch.Tensor, ref: torch.Tensor, name: str, which: int) -> torch.Tensor:
    for key in (name, entry):
        bound = DEPARTURES.get(key, (None, None))[which]
        if bound is not None:
            return bound(x, ref)
    return torch.zeros_like(x)


def _cases():
    out = []
    for source, names in _upstream_names().items():
        out += [(source, n) for n in names or () if n not in PENDING and n not in SAMPLING]
    return out


def _agree64(what: str, x, want, got, reference, departure, skip=None) -> None:
    """want (upstream) and got (nonlin) agree to 1e-12 relative, or upstream is the inaccurate one (see below).
    Without a reference (gated, normalizers) the tolerance is normwise: 1e-13 of the largest value."""
    assert got.shape == want.shape and got.dtype == want.dtype, what
    scale = 1e-300 if reference() is not None else 1e-13 * float(want.abs().max())
    close = ((got - want).abs() <= 1e-12 * want.abs() + scale) | (got == want) | (got.isnan() & want.isnan())
    if skip is not None:
        close |= skip
    if bool(close.all()):
        return
    bad = ~close
    ref = reference()
    assert ref is not None, f"{what}: disagrees with upstream (max {(got - want).abs()[bad].max():.3g})"
    ours_err, theirs_err = (got - ref).abs()[bad], (want - ref).abs()[bad]
    theirs_err = torch.where(theirs_err.isnan(), torch.inf, theirs_err)  # allowed only where a departure says inf
    assert bool((ours_err <= 1e-12 * ref.abs()[bad] + 1e-300).all()), (what, "nonlin is off", x[bad][:5])
    assert bool((theirs_err > ours_err).all()), (what, "upstream is closer to the reference", x[bad][:5])
    allowed = _rounding_level(x[bad], torch.float64) + departure(x[bad], ref[bad])
    assert bool((theirs_err <= allowed).all()), (what, "differs beyond upstream rounding", x[bad][:5])


@pytest.mark.parametrize(("source", "name"), _cases(), ids=lambda v: v)
def test_agrees_with_upstream(source, name):
    """Values and gradients in float64 agree to 1e-12 relative; where they do not, upstream is the inaccurate one:
    nonlin is within 1e-12 of the 50-digit reference there, upstream is farther from it, and upstream's error is at
    the rounding level of the input's magnitude (cancellation, a flushed tail), not a different function or
    default. float32 values likewise at 4 ULP. Documented departures (DEPARTURES) get their stated bound."""
    record = convention(name)
    entry, bound = calling.bind(record, nonlin.spec(name), (), {})
    s = nonlin.spec(entry)
    params = {k: v for k, v in bound.items() if k in s.defaults()}
    up, ours = _upstream_callable(source, name), _nonlin_callable(source, name)
    if isinstance(ours, nonlin.Nonlinearity):  # the reference at the module's own (float32) parameter values
        params.update({k: getattr(ours, k).detach().item() for k in ours._learned})
    x = _input(s.kind, name, torch.float64)
    pointwise = s.kind is Kind.POINTWISE

    def run(f, dtype, t):
        t = t.detach().clone().requires_grad_(not name.endswith("_"))
        y = _in(f, dtype)(t)
        if not t.requires_grad:
            return y.detach(), None
        cot = 0.5 + torch.rand(y.shape, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
        (g,) = torch.autograd.grad(y, t, cot.to(y.dtype))  # a cotangent in [0.5, 1.5): normalizers' sums are 1
        return y.detach(), g

    (want, want_grad), (got, got_grad) = run(up, torch.float64, x), run(ours, torch.float64, x)
    departure = lambda xs, ref: _departure(entry, xs, ref, name, 0)
    ref_value = lambda: torch.from_numpy(_reference(entry, params, x, s.kind)) if pointwise else None
    _agree64(f"{source} {name} value", x, want, got, ref_value, departure)
    if want_grad is not None:
        cot = 0.5 + torch.rand(x.shape, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
        ref_grad = (
            (lambda: cot * torch.from_numpy(R.pointwise_array(entry, x.tolist(), derivative=True, **params)))
            if pointwise
            else (lambda: None)
        )
        kinks = torch.tensor(s.breakpoints(**s.resolve_params(params)), dtype=x.dtype) if pointwise else None
        at_kink = torch.isin(x, kinks) if kinks is not None and kinks.numel() else None
        grad_departure = lambda xs, ref: 1.5 * _departure(entry, xs, ref, name, 1)
        _agree64(f"{source} {name} gradient", x, want_grad, got_grad, ref_grad, grad_departure, at_kink)
    x32 = x.float()
    (want32, _), (got32, _) = run(up, torch.float32, x32), run(ours, torch.float32, x32)
    ulp = torch.finfo(torch.float32).eps * got32.abs().clamp_min(torch.finfo(torch.float32).tiny)
    ok = ((got32 - want32).abs() <= 4 * ulp) | (got32 == want32) | (got32.isnan() & want32.isnan())
    if not bool(ok.all()):
        exact = run(ours, torch.float64, x32.double())[0]  # nonlin's float64 at the float32 inputs
        bad = ~ok
        near = (got32 - exact.float()).abs()[bad] <= ulp[bad]
        assert bool(near.all()), (source, name, "float32 is not its float64 value rounded", x32[bad][:5])
        theirs = (want32.double() - exact).abs()[bad]
        assert bool((theirs > (got32.double() - exact).abs()[bad]).all()), (source, name, "upstream float32 is closer")
        allowed = _rounding_level(x32[bad].double(), torch.float32) + departure(x32[bad].double(), exact[bad])
        assert bool((theirs <= allowed).all()), (source, name, "float32 differs beyond upstream rounding", x32[bad][:5])


def test_upstream_inaccuracy_is_where_the_note_says():
    """Two places where nonlin departs from torch's float64 bits on purpose, and by how much."""
    x = torch.tensor([20.5, 25.0, 30.0, 36.0], dtype=torch.float64)
    exact, torch_bits = NF.softplus(x), F.softplus(x)
    ref = torch.from_numpy(R.pointwise_array("softplus", x.tolist()))
    assert torch.equal(exact, ref)  # nonlin: the correctly rounded softplus
    assert torch.equal(torch_bits, x)  # torch: x itself above threshold 20
    rel = ((exact - torch_bits) / exact).abs()
    assert 0 < rel.max() <= math.log1p(math.exp(-20.0)) / 20.0  # the bound the softplus record's note states
    assert torch.equal(NF.softplus(x, 1.0, 20.0), torch_bits)  # threshold=20: torch's bits
    assert torch.equal(NF.softplus(x.float()), F.softplus(x.float()))  # float32 rounds the difference away


def test_kink_conventions():
    """At these kinks nonlin's derivative is the other one-sided value than torch's; everywhere else the walk
    holds gradients to 1e-12. (Both are one-sided derivatives; aligning them is the catalog entries' call.)"""
    torch_fn = {"hardswish": F.hardswish, "rrelu": lambda t: F.rrelu(t, training=False)}
    for name, points in KINK_CONVENTIONS.items():
        x = torch.tensor(list(points), dtype=torch.float64, requires_grad=True)
        (ours,) = torch.autograd.grad(NF.function(name)(x).sum(), x)
        (theirs,) = torch.autograd.grad(torch_fn[name](x).sum(), x)
        want = torch.tensor([v for v, _ in points.values()], dtype=torch.float64)
        torch.testing.assert_close(ours, want, rtol=1e-15, atol=0)
        torch.testing.assert_close(theirs, torch.tensor([v for _, v in points.values()], dtype=torch.float64))
        assert set(nonlin.spec(name).breakpoints(**nonlin.spec(name).defaults())) >= set(points)


# ---- torch's argument names and positions ------------------------------------------------------------------------

# A non-default value for every torch argument, so a dropped or misrouted argument changes the result.
_ALTERNATES = {
    "negative_slope": 0.2,
    "alpha": 0.7,
    "lambd": 0.3,
    "beta": 2.0,
    "threshold": 5.0,
    "value": -1.0,
    "min_val": -2.0,
    "max_val": 2.5,
    "lower": 0.1,
    "upper": 0.2,
    "dim": 0,
    "inplace": False,
    "training": False,
    "approximate": "tanh",
    "_stacklevel": 3,
    "dtype": torch.float64,
}


def _torch_parameters(f) -> list[tuple[str, bool]]:
    """(name, keyword-only) of a torch function's arguments after the input, from inspect or, for builtins, from the
    signature line its docstring starts with."""
    try:
        sig = inspect.signature(f)
        return [(p.name, p.kind is p.KEYWORD_ONLY) for p in list(sig.parameters.values())[1:]]
    except ValueError:
        line = next(ln for ln in (f.__doc__ or "").strip().splitlines() if "(" in ln)
        inner = line[line.index("(") + 1 : line.rindex(")")]
        out, star = [], False
        for part in [p.strip() for p in inner.split(",")][1:]:
            if part == "*":
                star = True
                continue
            out.append((re.split(r"[=: ]", part)[0], star))
        return out


_WITH_ARGS = [n for n in TORCH_FUNCTIONAL if n not in NOT_ACTIVATIONS and n not in PENDING and n not in SAMPLING]


@pytest.mark.parametrize("name", _WITH_ARGS)
def test_torch_arguments_by_name_and_position(name):
    """nonlin's function of a torch name takes torch's arguments with torch's meaning: every argument by keyword
    with a non-default value, then the same positionally wherever torch itself accepts that."""
    f = getattr(F, name)
    params = _torch_parameters(f)
    unknown = [p for p, _ in params if p not in _ALTERNATES and p != "weight"]
    assert not unknown, f"add a non-default value for {unknown} to _ALTERNATES"
    x = torch.from_numpy(_GRID[::7].copy()).reshape(-1, 1).repeat(1, 4) * (1 + torch.arange(4.0))  # [N, 4]
    if name == "glu":
        x = x[:-1] if x.shape[0] % 2 else x
    values = {
        p: (torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=x.dtype) if p == "weight" else _ALTERNATES[p]) for p, _ in params
    }
    if name == "prelu":
        values["weight"] = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=x.dtype)  # per channel (dim 1)
    ours = NF.function(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = f(x.clone(), **values)
        got = ours(x.clone(), **values)
        # atol: torch's float64 gelu(approximate="tanh") cancels to 0 in the far tail; a misrouted argument
        # moves values by O(0.1)
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
        positional = [values[p] for p, kw_only in params if not kw_only]
        try:
            want_pos = f(x.clone(), *positional)
        except TypeError:
            pytest.skip(f"torch's {name} takes no positional arguments after the input")
        torch.testing.assert_close(ours(x.clone(), *positional), want_pos, rtol=1e-12, atol=1e-12)


_MODULES_WITH_ARGS = [n for n in torch_modules() if n not in NOT_ACTIVATIONS and n not in PENDING]


@pytest.mark.parametrize("name", _MODULES_WITH_ARGS)
def test_torch_module_arguments_by_name_and_position(name):
    """nonlin.get(torch's class name, ...) takes the class's constructor arguments with torch's meaning."""
    cls = getattr(nn, name)
    skip = {"self", "args", "kwargs", "device", "dtype", "min_value", "max_value"}  # the last two: deprecated
    params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name not in skip]
    alternates = {**_ALTERNATES, "num_parameters": 4, "init": 0.1, "dim": 1}
    unknown = [p.name for p in params if p.name not in alternates]
    assert not unknown, f"add a non-default value for {unknown}"
    values = {p.name: alternates[p.name] for p in params}
    x = torch.from_numpy(_GRID[::7].copy()).reshape(-1, 1).repeat(1, 4) * (1 + torch.arange(4.0))  # [N, 4]
    if name == "Softmax2d":
        x = x.reshape(-1, 4, 1, 1)[:8]
    for args, kwargs in (((), values), (tuple(values.values()), {})):
        want = cls(*args, **kwargs).double().eval()(x.clone())
        got = nonlin.get(name, *args, **kwargs).double().eval()(x.clone())
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_the_issue_calls():
    x = torch.linspace(-40, 40, 801, dtype=torch.float64)
    torch.testing.assert_close(NF.leaky_relu(x, negative_slope=0.2), F.leaky_relu(x, negative_slope=0.2))
    torch.testing.assert_close(NF.softplus(x, 2.0, 10.0), F.softplus(x, 2.0, 10.0), rtol=1e-13, atol=0)
    # torch's tanh form cancels in the far negative tail (1 + tanh(u) -> 0): nonlin's is exact there
    torch.testing.assert_close(NF.gelu(x, approximate="tanh"), F.gelu(x, approximate="tanh"), rtol=1e-13, atol=1e-15)
    torch.testing.assert_close(NF.hardtanh(x, -2.0, 2.0), F.hardtanh(x, -2.0, 2.0))
    y = torch.randn(6, 5, 4, dtype=torch.float64)
    torch.testing.assert_close(NF.glu(y, dim=0), F.glu(y, dim=0), rtol=1e-13, atol=1e-300)
    torch.testing.assert_close(nonlin.get("GLU")(y), nn.GLU()(y), rtol=1e-13, atol=1e-300)
    torch.testing.assert_close(nonlin.get("GLU", dim=0)(y), nn.GLU(dim=0)(y), rtol=1e-13, atol=1e-300)
    torch.testing.assert_close(nonlin.get("Softshrink")(x), nn.Softshrink()(x))
    assert nonlin.get("Softshrink").spec.name == "soft_threshold"
    assert nonlin.get("GELU", approximate="tanh").spec.name == "gelu_tanh"
    torch.testing.assert_close(nonlin.get("Hardtanh", -2.0, 2.0)(x), nn.Hardtanh(-2.0, 2.0)(x))
    torch.testing.assert_close(nonlin.get("LeakyReLU", 0.2)(x), nn.LeakyReLU(0.2)(x))
    torch.testing.assert_close(nonlin.get("Softplus", 2.0, 10.0)(x), nn.Softplus(2.0, 10.0)(x), rtol=1e-13, atol=0)
    prelu = nonlin.get("PReLU", 5, 0.1)
    assert prelu.a.shape == (5,) and bool((prelu.a == 0.1).all())
    torch.testing.assert_close(prelu(y), nn.PReLU(5, 0.1).double()(y))  # channels: dim 1


def test_nonlin_names_still_work_beside_torch_ones():
    x = torch.linspace(-3, 3, 61, dtype=torch.float64)
    assert torch.equal(NF.leaky_relu(x, alpha=0.2), NF.leaky_relu(x, negative_slope=0.2))
    assert torch.equal(NF.function("Softshrink")(x, tau=0.3), F.softshrink(x, 0.3))
    with pytest.raises(TypeError, match="alpha and negative_slope are both nonlin's 'alpha'; pass one of them"):
        NF.leaky_relu(x, negative_slope=0.2, alpha=0.2)
    with pytest.raises(TypeError, match="got multiple values for argument 'lambd'"):
        NF.function("softshrink")(x, 0.3, lambd=0.3)
    with pytest.raises(TypeError, match=r"takes 1 positional argument\(s\) after the input \(lambd\); got 2"):
        NF.function("softshrink")(x, 0.3, 0.4)
    with pytest.raises(ValueError, match=r"approximate='fast' is not one of 'none', 'tanh'"):
        NF.gelu(x, approximate="fast")
    with pytest.raises(TypeError, match="unknown parameter 'slope'"):
        NF.leaky_relu(x, slope=0.2)
    with pytest.raises(TypeError, match=r"takes its parameters by keyword"):
        NF.shifted_relu(x, 0.5)
    packed = torch.randn(3, 6, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"layout='halves' is not one of gate_value, value_gate, interleaved"):
        NF.swiglu(packed, layout="halves")
    with pytest.raises(ValueError, match=r"even size along dim=0 \(layout='value_gate': \[value \| gate\]\)"):
        NF.glu(packed, 0)
    with pytest.raises(TypeError, match="inplace must be a bool"):
        NF.relu(x, inplace=1)


def test_softmax_dim_none_is_torchs_deprecated_rule():
    for shape in [(5,), (3, 5), (2, 3, 5), (2, 3, 4, 5)]:
        s = torch.randn(shape, dtype=torch.float64)
        with pytest.warns(UserWarning, match="implicit"):
            got = NF.softmax(s, None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = F.softmax(s, None)
        torch.testing.assert_close(got, want, rtol=1e-13, atol=1e-300)
    s = torch.randn(3, 5, dtype=torch.float32)
    torch.testing.assert_close(NF.softmax(s, 1, dtype=torch.float64), F.softmax(s, 1, dtype=torch.float64))


def test_softmax2d_is_over_channels_and_checks_rank():
    z = torch.randn(2, 3, 4, 5, dtype=torch.float64)
    torch.testing.assert_close(NF.function("Softmax2d")(z), nn.Softmax2d()(z), rtol=1e-13, atol=1e-300)
    torch.testing.assert_close(nonlin.get("Softmax2d")(z[0]), nn.Softmax2d()(z[0]), rtol=1e-13, atol=1e-300)
    with pytest.raises(ValueError, match=r"Softmax2d.*3-d or 4-d input"):
        nonlin.get("Softmax2d")(z[0, 0])


# ---- inplace= ----------------------------------------------------------------------------------------------------

POINTWISE = [n for n in nonlin.names("pointwise") if not nonlin.spec(n).stochastic]


@pytest.mark.parametrize("name", POINTWISE)
def test_inplace_writes_the_result_into_the_input(name):
    x = torch.linspace(-4, 4, 33, dtype=torch.float32)
    f = NF.function(name)
    want = f(x)
    buf = x.clone()
    out = f(buf, inplace=True)
    assert out is buf and torch.equal(buf, want)
    module = nonlin.get(name, inplace=True)
    want = nonlin.get(name)(x)  # a learnable module holds float32 parameters: its own numbers
    buf = x.clone()
    with torch.no_grad():
        assert module(buf) is buf and torch.equal(buf, want)
    buf = x.clone()
    out = module(buf)  # recorded: the parameters get their gradient through the in-place result
    assert out is buf and torch.equal(buf, want)
    if module._learned:
        out.sum().backward()
        assert all(p.grad is not None for p in module.parameters())


@pytest.mark.parametrize("name", ["relu", "gelu", "softplus", "elu", "leaky_relu", "hardtanh"])
def test_inplace_under_autograd_matches_torch(name):
    x = torch.linspace(-4, 4, 33, dtype=torch.float64, requires_grad=True)
    f = NF.function(name)
    (want,) = torch.autograd.grad(f(x * 1.5).sum(), x)
    h = x * 1.5  # a non-leaf, as in a network
    out = f(h, inplace=True)
    assert out is h
    (got,) = torch.autograd.grad(out.sum(), x)
    assert torch.equal(got, want)
    with pytest.raises(RuntimeError, match="leaf"):
        f(x, inplace=True)  # torch refuses this too
    if "inplace" in dict(_torch_parameters(getattr(F, name))):
        with pytest.raises(RuntimeError, match="leaf"):
            getattr(F, name)(x, inplace=True)


def test_torch_inplace_variants():
    x = torch.linspace(-3, 3, 25, dtype=torch.float64)
    for name in ("relu_", "elu_", "celu_", "selu_", "leaky_relu_", "hardtanh_", "rrelu_"):
        buf, ref = x.clone(), x.clone()
        assert getattr(NF, name)(buf) is buf
        getattr(F, name)(ref)
        torch.testing.assert_close(buf, ref, rtol=1e-13, atol=1e-300)


# ---- Keras, JAX, Hugging Face and scipy names --------------------------------------------------------------------


def test_keras_and_jax_names():
    x = torch.linspace(-3, 3, 121, dtype=torch.float64)
    ref_gelu_tanh = NF.gelu_tanh(x)
    assert nonlin.resolve("jax.nn.gelu") == "gelu_tanh"  # JAX's gelu defaults to approximate=True
    assert torch.equal(NF.function("jax.nn.gelu")(x), ref_gelu_tanh)
    assert torch.equal(NF.function("jax.nn.gelu")(x, approximate=False), NF.gelu(x))
    # (agreement of nonlin's hardswish, hardtanh and softsign with torch's is the walk's)
    assert torch.equal(NF.function("hard_silu")(x), NF.hardswish(x))
    assert torch.equal(NF.function("hard_tanh")(x), NF.hardtanh(x))
    assert torch.equal(NF.function("soft_sign")(x), NF.softsign(x))
    assert torch.equal(NF.function("soft_shrink")(x), F.softshrink(x, 0.5))  # Keras: threshold = 0.5
    assert torch.equal(NF.function("soft_shrink")(x, threshold=0.2), F.softshrink(x, 0.2))
    assert torch.equal(NF.function("hard_shrink")(x, 0.2), F.hardshrink(x, 0.2))
    sparse_plus = torch.where(x <= -1, 0.0, torch.where(x >= 1, x, (x + 1) ** 2 / 4))  # JAX's definition
    torch.testing.assert_close(NF.function("sparse_plus")(x), sparse_plus, rtol=1e-15, atol=0)
    assert torch.equal(NF.function("keras.activations.leaky_relu")(x), F.leaky_relu(x, 0.2))  # Keras's default
    y = torch.randn(4, 6, dtype=torch.float64)
    assert torch.equal(NF.function("jax.nn.glu")(y, axis=0), NF.glu(y, dim=0))
    assert torch.equal(NF.function("expit")(x), NF.sigmoid(x))


def test_hf_gelu_spellings_are_the_same_function():
    acts = pytest.importorskip("transformers.activations")
    x = torch.linspace(-8, 8, 321, dtype=torch.float64)
    for key in ("gelu_python_tanh", "gelu_accurate", "gelu_new", "gelu_pytorch_tanh"):
        assert nonlin.resolve(key) == "gelu_tanh"
        torch.testing.assert_close(acts.ACT2FN[key](x), NF.gelu_tanh(x), rtol=1e-12, atol=1e-14)


# ---- the records ---------------------------------------------------------------------------------------------------

_OPTIONS = {
    Kind.POINTWISE: {"inplace", "training"},
    Kind.GATED: {"dim", "layout"},
    Kind.NORMALIZER: {"dim", "dtype", "mask"},
}


@pytest.mark.parametrize("key", sorted(conventions()))
def test_record_is_valid(key):
    record = conventions()[key]
    s = nonlin.spec(key)
    hash(s)  # the kernels cache plans by spec
    known = set(s.defaults()) | _OPTIONS[s.kind] | calling.EXTRA_ARGS.get(s.name, set()) | set(record.choose)
    known |= {"num_parameters"}
    for upstream in (*record.positional, *(record.module_positional or ()), *record.args):
        target = record.nonlin_name(upstream)
        assert target in known or upstream == "_stacklevel", (key, upstream, target)
    for k in record.defaults:
        assert k in known, (key, k)
    assert record.defaults.get("layout", "gate_value") in LAYOUTS
    entry, params = calling.bind(record, s, (), {})
    assert entry == nonlin.resolve(key)
    nonlin.spec(entry).resolve_params({k: v for k, v in params.items() if k in nonlin.spec(entry).defaults()})


def test_functional_exports_torch_function_names():
    for name in ("softshrink", "logsigmoid", "relu_", "leaky_relu_", "hardtanh_"):
        assert getattr(NF, name) is NF.function(name)
    assert not hasattr(NF, "leakyrelu")  # torch.nn's class names are not functions


def test_readme_names_section_runs():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = text[text.index("## Names from other libraries") :]
    code = section[section.index("```python") + len("```python") : section.index("```", section.index("```python") + 9)]
    exec(compile(code, "README.md#names", "exec"), {})


@pytest.mark.parametrize("name", ["Softmax", "Softmin", "LogSoftmax"])
def test_torch_softmax_classes_default_to_dim_none(name):
    """nn.Softmax() (dim=None) picks torch's deprecated implicit dim with a warning; nonlin.get of the class name
    does the same, while nonlin's own lower-case name keeps dim=-1."""
    z = torch.randn(2, 3, 5, dtype=torch.float64)  # 3-d: torch's implicit dim is 0, not -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(nn, name)()(z)
    with pytest.warns(UserWarning, match="implicit"):
        got = nonlin.get(name)(z)
    torch.testing.assert_close(got, want, rtol=1e-13, atol=1e-300)
    with pytest.warns(UserWarning, match="implicit"):
        nonlin.get(f"nn.{name}")(z)
    entry = nonlin.resolve(name)
    torch.testing.assert_close(nonlin.get(entry)(z), getattr(nn, name)(dim=-1)(z), rtol=1e-13, atol=1e-300)
    torch.testing.assert_close(nonlin.get(name, 0)(z), getattr(nn, name)(0)(z), rtol=1e-13, atol=1e-300)


def test_gumbel_softmax_takes_torchs_positions():
    """F.gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1): tau is the first positional argument."""
    z = torch.randn(4, 6, dtype=torch.float64)
    g = -torch.empty_like(z).exponential_(generator=torch.Generator().manual_seed(3)).log()
    soft = torch.softmax((z + g) / 0.5, dim=0)
    torch.testing.assert_close(NF.gumbel_softmax(z, 0.5, False, 1e-10, 0, gumbels=g), soft, rtol=1e-13, atol=1e-300)
    hard = NF.gumbel_softmax(z, 0.5, True, dim=0, gumbels=g)
    assert torch.equal(hard, F.one_hot(soft.argmax(0), 4).T.to(hard.dtype))
    # torch's own draw (-log of Exp(1) from the global generator), replayed as nonlin's noise: the same sample
    torch.manual_seed(5)
    want = F.gumbel_softmax(z, 0.5, False, 1e-10, 0)
    torch.manual_seed(5)
    g = -torch.empty_like(z).exponential_().log()
    torch.testing.assert_close(NF.gumbel_softmax(z, 0.5, dim=0, gumbels=g), want, rtol=1e-12, atol=1e-300)
    torch.manual_seed(5)
    want_hard = F.gumbel_softmax(z, 0.5, True, dim=0)
    torch.testing.assert_close(NF.gumbel_softmax(z, 0.5, True, dim=0, gumbels=g), want_hard, rtol=0, atol=1e-15)


def test_hf_and_timm_constructor_names():
    x = torch.linspace(-12, 12, 241, dtype=torch.float64)
    star = nonlin.get("StarReLU", 2.0, bias_value=-0.5).double()  # timm: scale_value, bias_value
    assert set(dict(star.named_parameters())) == {"scale", "bias"}  # timm's state-dict names
    torch.testing.assert_close(star(x), 2.0 * F.relu(x) ** 2 - 0.5, rtol=1e-15, atol=0)
    xielu = nonlin.get("XIELUActivation", alpha_p_init=1.25, alpha_n_init=0.75, beta=0.25)
    assert xielu.alpha_p.item() == 1.25 and xielu.alpha_n.item() == 0.75 and xielu._fixed["beta"] == 0.25
    with pytest.raises(TypeError, match="dtype"):
        nonlin.get("XIELUActivation", dtype=torch.float32)
    acts = pytest.importorskip("transformers.activations")
    clipped = acts.ClippedGELUActivation(-0.1, 5.0)
    # torch's gelu, x (1 + erf(x / sqrt 2)) / 2, and HF's Laplace cancel to multiples of 2^-53 in the left tail,
    # where nonlin's are the exact tails (the walk checks that at the defaults against the 50-digit reference)
    got = nonlin.get("ClippedGELUActivation", -0.1, 5.0)(x)
    torch.testing.assert_close(got, clipped(x), rtol=1e-13, atol=4e-16)
    laplace = acts.LaplaceActivation()
    got = NF.function("LaplaceActivation")(x, 0.5, 0.3)
    torch.testing.assert_close(got, laplace(x, 0.5, 0.3), rtol=1e-12, atol=4e-16)
