"""A model as a list of bound-propagation ops, read from its torch.fx trace.

Supported: nn.Linear, nn.Conv2d (zero padding), nn.BatchNorm1d/2d in eval mode, flatten / reshape / view,
nn.Identity and nn.Dropout (eval), residual adds and subtractions (of two tensors, or of a constant),
multiplication or division by a Python number; nonlin's modules and functionals for every pointwise and
gated entry; torch's activation modules and functions mapped to the catalog entry of the same name
(nn.GELU(approximate="tanh") -> gelu_tanh, nn.LeakyReLU's negative_slope -> alpha, nn.Softshrink ->
soft_threshold, ...). Anything else raises a TypeError that names the op.
"""

from __future__ import annotations

import inspect
import math
import operator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import fx, nn
from torch.fx.passes.shape_prop import ShapeProp

import nonlin.functional as NF
from nonlin import calling
from nonlin.modules import Nonlinearity
from nonlin.registry import convention, resolve
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind

F64 = torch.float64

# torch argument names that differ from the catalog's, per entry; and the ones that do not change the math
TORCH_PARAM_NAMES = {
    "leaky_relu": {"negative_slope": "alpha"},
    "soft_threshold": {"lambd": "tau"},
    "prelu": {"weight": "a"},
}
IGNORED_ARGS = {"inplace", "threshold", "training", "approximate", "dim"}
# positional parameters of torch's functional activations (builtins without a signature)
TORCH_POSITIONAL = {
    "leaky_relu": ("negative_slope",),
    "elu": ("alpha",),
    "celu": ("alpha",),
    "softplus": ("beta", "threshold"),
    "hardtanh": ("min_val", "max_val"),
    "hardshrink": ("lambd",),
    "softshrink": ("lambd",),
    "rrelu": ("lower", "upper", "training"),
}
STRUCTURAL_METHODS = {"view", "reshape", "flatten", "contiguous", "squeeze", "unsqueeze"}


@dataclass
class Op:
    """One node: `kind` in input, linear, conv, scale, reshape, slice, add, pointwise, gated."""

    kind: str
    inputs: list[int]
    shape: tuple[int, ...]  # output shape without the batch dim
    name: str = ""  # a catalog entry, for pointwise and gated
    params: dict[str, Any] = field(default_factory=dict)
    weight: torch.Tensor | None = None
    bias: torch.Tensor | None = None
    conv: dict[str, Any] = field(default_factory=dict)
    signs: tuple[float, ...] = ()  # add: the sign of each input
    const: torch.Tensor | None = None  # add: a constant term
    packed: bool = True  # gated: one packed input or (gate, value)
    layout: str = "gate_value"  # gated, packed: how the input packs gate and value (nonlin.spec.LAYOUTS)
    label: str = ""


class _Tracer(fx.Tracer):
    """Keeps nonlin's modules and functionals (the catalog entries, not its helpers) as single nodes."""

    def __init__(self):
        super().__init__(autowrap_modules=(math, NF))
        helpers = {id(v) for k, v in vars(NF).items() if callable(v) and k not in NF._FUNCTIONS}
        self._autowrap_function_ids -= helpers - {id(v) for v in vars(math).values()}

    def is_leaf_module(self, m: nn.Module, qualname: str) -> bool:
        return isinstance(m, Nonlinearity) or super().is_leaf_module(m, qualname)


_NONLIN_FUNCTIONS = {id(fn): name for name, fn in NF._FUNCTIONS.items()}


def _catalog_name(torch_name: str, kwargs: dict) -> str:
    key = torch_name.lower().removesuffix("_")
    if key == "gelu" and kwargs.get("approximate", "none") == "tanh":
        return "gelu_tanh"
    return resolve(key)


def _torch_params(name: str, given: dict) -> dict:
    s = get_spec(name)
    table = TORCH_PARAM_NAMES.get(name, {})
    out = {}
    known = {p.name for p in s.params}
    for k, v in given.items():
        if k in IGNORED_ARGS and k not in known:
            continue
        k2 = table.get(k, k)
        if k2 not in known:
            raise TypeError(f"{name}: torch argument {k}={v!r} has no counterpart in the catalog entry")
        if isinstance(v, torch.Tensor):
            if v.numel() != 1:
                raise TypeError(f"{name}: parameter {k2} has {v.numel()} values; verify supports one value")
            v = float(v.detach())
        out[k2] = v
    return out


def _module_params(name: str, m: nn.Module) -> dict:
    s = get_spec(name)
    table = {v: k for k, v in TORCH_PARAM_NAMES.get(name, {}).items()}
    given = {}
    for p in s.params:
        attr = table.get(p.name, p.name)
        if hasattr(m, attr):
            given[attr] = getattr(m, attr)
    return _torch_params(name, given)


def _pair(v) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def trace(model: nn.Module, example: torch.Tensor) -> list[Op]:
    """The ops of `model`, in order; `example` (a batch) fixes the shapes."""
    model = model.eval()
    try:
        graph = _Tracer().trace(model)
    except Exception as err:  # fx raises many types; name the cause
        raise TypeError(f"verify: could not trace the model with torch.fx ({type(err).__name__}: {err})") from err
    gm = fx.GraphModule(model, graph)
    ShapeProp(gm).propagate(example)
    modules = dict(model.named_modules())
    ops: list[Op] = []
    index: dict[fx.Node, int] = {}
    consts: dict[fx.Node, torch.Tensor] = {}

    def shape_of(node):
        return tuple(node.meta["tensor_meta"].shape[1:])

    def add(node, op):
        index[node] = len(ops)
        op.label = op.label or node.format_node()[:80]
        ops.append(op)

    def tensor_args(node):
        return [a for a in node.args if isinstance(a, fx.Node) and a in index]

    output = None
    for node in graph.nodes:
        if node.op == "placeholder":
            if any(o.kind == "input" for o in ops):
                raise TypeError("verify: the model must take one input tensor")
            add(node, Op("input", [], shape_of(node)))
        elif node.op == "get_attr":
            consts[node] = getattr(gm, node.target).detach().to(F64)
        elif node.op == "output":
            out = node.args[0]
            if not isinstance(out, fx.Node):
                raise TypeError("verify: the model must return one tensor")
            output = index[out]
        elif "tensor_meta" not in node.meta:  # shape arithmetic (x.shape[0]) feeding a view: not a tensor
            continue
        elif node.op == "call_module":
            add(node, _module_op(modules[node.target], node, index, shape_of(node)))
        elif node.op == "call_function":
            add(node, _function_op(node, index, consts, shape_of(node), tensor_args(node)))
        elif node.op == "call_method":
            add(node, _method_op(node, index, consts, shape_of(node), tensor_args(node)))
    if output is None:
        raise TypeError("verify: the traced model has no output")
    if output != len(ops) - 1:
        ops = ops[: output + 1]
    return ops


def _module_op(m: nn.Module, node, index, shape) -> Op:
    src = [index[node.args[0]]]
    if isinstance(m, nn.Linear):
        return Op("linear", src, shape, weight=m.weight.detach().to(F64), bias=_bias(m.bias))
    if isinstance(m, nn.Conv2d):
        if m.padding_mode != "zeros" or isinstance(m.padding, str):
            raise TypeError(
                f"verify: Conv2d with padding={m.padding!r}, padding_mode={m.padding_mode!r}; use int padding"
            )
        conv = {
            "stride": _pair(m.stride),
            "padding": _pair(m.padding),
            "dilation": _pair(m.dilation),
            "groups": m.groups,
        }
        return Op("conv", src, shape, weight=m.weight.detach().to(F64), bias=_bias(m.bias), conv=conv)
    if isinstance(m, nn.BatchNorm1d | nn.BatchNorm2d):
        scale = (m.weight if m.affine else torch.ones_like(m.running_var)) / torch.sqrt(m.running_var + m.eps)
        shift = (m.bias if m.affine else torch.zeros_like(m.running_mean)) - m.running_mean * scale
        return Op("scale", src, shape, weight=scale.detach().to(F64), bias=shift.detach().to(F64))
    if isinstance(m, nn.Flatten | nn.Unflatten | nn.Identity | nn.Dropout):
        return Op("reshape", src, shape)
    if isinstance(m, Nonlinearity):
        s = m.spec
        params = _torch_params(s.name, m._params(len(shape) + 1))
        if s.kind is Kind.GATED:
            params.update(m.options)  # layout, dim: how the packed input is split
        return _activation(
            s.name, params, [index[a] for a in node.args if isinstance(a, fx.Node) and a in index], shape
        )
    try:
        name = _catalog_name(type(m).__name__, vars(m))
    except ValueError:
        raise TypeError(f"verify: unsupported module {type(m).__name__} ({node.target})") from None
    if name == "prelu" and m.weight.numel() != 1:
        raise TypeError("verify: nn.PReLU with num_parameters > 1 (one slope per channel) is not supported")
    params = _module_params(name, m)
    if get_spec(name).kind is Kind.GATED:
        # torch's own module (nn.GLU) packs as torch does: its record's layout, its `dim`
        record = convention(type(m).__name__)
        params.update(record.defaults if record is not None else {})
        params["dim"] = getattr(m, "dim", -1)
    return _activation(name, params, src, shape)


def _bias(b):
    return None if b is None else b.detach().to(F64)


def _activation(name: str, params: dict, src: list[int], shape) -> Op:
    s = get_spec(name)
    if s.kind is Kind.POINTWISE:
        return Op("pointwise", src[:1], shape, name=s.name, params=params)
    if s.kind is Kind.GATED:
        params = dict(params)
        layout, dim = params.pop("layout", "gate_value"), params.pop("dim", -1)
        if len(src) == 1 and dim not in (-1, len(shape)):
            raise TypeError(f"verify: {s.name} packed along dim={dim}; only the last dimension is supported")
        return Op("gated", src, shape, name=s.name, params=params, packed=len(src) == 1, layout=layout)
    raise TypeError(f"verify: normalizer {s.name} inside a model is not supported (bound propagation covers MLP/CNNs)")


def _scalar(a) -> float | None:
    return float(a) if isinstance(a, int | float) and not isinstance(a, bool) else None


def _function_op(node, index, consts, shape, targs) -> Op:
    fn = node.target
    if id(fn) in _NONLIN_FUNCTIONS:
        name = _NONLIN_FUNCTIONS[id(fn)]
        # the call as the function reads it: a borrowed name (torch's glu) has its own defaults and layout
        rest = tuple(a for a in node.args if not isinstance(a, fx.Node))
        kwargs = {k: v for k, v in node.kwargs.items() if k != "training"}
        entry, params = calling.bind(convention(name), get_spec(name), rest, kwargs)
        return _activation(entry, params, [index[a] for a in targs], shape)
    if fn in (operator.add, torch.add, operator.sub, torch.sub):
        return _add_op(node, index, consts, shape, fn in (operator.sub, torch.sub))
    if fn in (operator.mul, torch.mul, operator.truediv, torch.div):
        return _scale_op(node, index, shape, targs, fn in (operator.truediv, torch.div))
    if fn is operator.getitem and len(targs) == 1 and isinstance(node.args[1], tuple | slice):
        idx = node.args[1] if isinstance(node.args[1], tuple) else (node.args[1],)
        ok = idx and idx[0] == slice(None) and all(isinstance(i, slice | int) for i in idx) and Ellipsis not in idx
        if not ok:
            raise TypeError(f"verify: {node.format_node()}: only slices of non-batch dims (x[:, a:b]) are supported")
        return Op("slice", [index[targs[0]]], shape, conv={"index": idx})
    if fn in (torch.flatten, torch.reshape):
        return Op("reshape", [index[targs[0]]], shape)
    fname = getattr(fn, "__name__", str(fn))
    try:
        name = _catalog_name(fname, node.kwargs)
    except ValueError:
        raise TypeError(f"verify: unsupported function {fname} in {node.format_node()}") from None
    given = dict(node.kwargs)
    positional = TORCH_POSITIONAL.get(fname.removesuffix("_"), ())
    try:
        bound = inspect.signature(fn).bind(*node.args, **node.kwargs).arguments
        given = {k: v for k, v in bound.items() if k != "input"}
    except (TypeError, ValueError):
        for k, v in zip(positional, node.args[1:], strict=False):
            given[k] = v
    given = {k: v for k, v in given.items() if not isinstance(v, fx.Node)}
    return _activation(name, _torch_params(name, given), [index[targs[0]]], shape)


def _scale_op(node, index, shape, targs, divide: bool) -> Op:
    a, b = node.args[0], node.args[1]
    k = _scalar(b) if isinstance(a, fx.Node) else _scalar(a)
    if k is None or len(targs) != 1:
        raise TypeError(f"verify: {node.format_node()}: only multiplication or division by a number is linear")
    if divide:
        if not isinstance(a, fx.Node):
            raise TypeError(f"verify: {node.format_node()}: division by a tensor is not linear")
        k = 1.0 / k
    return Op("scale", [index[targs[0]]], shape, weight=torch.tensor(k, dtype=F64), bias=None)


def _add_op(node, index, consts, shape, subtract: bool) -> Op:
    a, b = node.args[0], node.args[1]
    alpha = node.kwargs.get("alpha", 1)
    srcs, signs, const = [], [], None
    for arg, sgn in ((a, 1.0), (b, (-1.0 if subtract else 1.0) * alpha)):
        if isinstance(arg, fx.Node) and arg not in consts:
            srcs.append(index[arg])
            signs.append(sgn)
        else:
            c = consts[arg] if isinstance(arg, fx.Node) else torch.tensor(float(arg), dtype=F64)
            const = sgn * c if const is None else const + sgn * c
    return Op("add", srcs, shape, signs=tuple(signs), const=const)


def _method_op(node, index, consts, shape, targs) -> Op:
    m = node.target
    if m in STRUCTURAL_METHODS:
        return Op("reshape", [index[targs[0]]], shape)
    if m in ("add", "sub"):
        return _add_op(node, index, consts, shape, m == "sub")
    if m in ("mul", "div"):
        return _scale_op(node, index, shape, targs, m == "div")
    try:
        name = _catalog_name(m, node.kwargs)
    except ValueError:
        raise TypeError(f"verify: unsupported tensor method .{m}() in {node.format_node()}") from None
    return _activation(name, {}, [index[targs[0]]], shape)


__all__ = ["Op", "trace"]
