"""Run a formula body once on symbols and record what it computes: the graph the kernels are written from.

A body is ``forward(m, x, **params)``: given `TraceOps` as ``m`` and `Sym` inputs it returns a `Sym` whose
graph lists every primitive call and arithmetic operation in order. Float parameters stay Python floats
(bodies may branch on them, e.g. tempered_sigmoid), so a graph is specific to their values; tensor
(learnable) parameters become symbols. Identical sub-expressions are shared (the body of mish computes
softplus(x) once even where it is written twice).

`adjoints` differentiates a graph in reverse mode, symbolically, producing new nodes in the same graph:
the kernels use it for the gradients of learnable parameters and extra inputs (the main inputs use the
declared derivative, as the eager path does).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from nonlin.ops import TORCH

# Primitives of the math namespace and their arity; every backend implements these names.
PRIMITIVES: dict[str, int] = {
    "exp": 1,
    "expm1": 1,
    "log": 1,
    "log1p": 1,
    "sqrt": 1,
    "abs": 1,
    "sign": 1,
    "sin": 1,
    "cos": 1,
    "tanh": 1,
    "atan": 1,
    "erf": 1,
    "erfc": 1,
    "sinpi": 1,
    "cospi": 1,
    "erfcx": 1,
    "isnan": 1,
    "square": 1,
    "pow": 2,
    "sigmoid": 1,
    "softplus": 1,
    "log_sigmoid": 1,
    "sech2": 1,
    "norm_cdf": 1,
    "norm_pdf": 1,
    "gelu_grad": 1,
    "gelu_tanh": 1,
    "gelu_tanh_grad": 1,
    "mish": 1,
    "mish_grad": 1,
    "where": 3,
    "maximum": 2,
    "minimum": 2,
    "indicator": 2,
    "gated": 2,
    "swish": 2,
    "swiglu": 3,
    "swish_grad": 2,
    "sin_of_product": 2,
    "cos_of_product": 2,
    "keep": 2,
    "full_like": 2,
    "zeros_like": 1,
    "ones_like": 1,
}
# Operators, written as Python operators by the code generators.
BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==",
          "ne": "!=", "and": "&", "or": "|"}  # fmt: skip
UNARY = {"neg": "-", "not": "~"}
BOOLEAN = {"lt", "le", "gt", "ge", "eq", "ne", "and", "or", "not", "isnan"}


class TraceError(TypeError):
    """A body did something a kernel cannot express (a Python branch on a tensor value, an unknown call)."""


@dataclass(eq=False)
class Sym:
    """One value in a traced graph: the op that makes it and its arguments (Syms or Python numbers)."""

    graph: Graph
    op: str
    args: tuple[Any, ...]
    index: int
    name: str = ""  # inputs and parameters

    @property
    def boolean(self) -> bool:
        return self.op in BOOLEAN

    # --- arithmetic records a node ---
    def __add__(self, o):
        return self.graph.emit("add", self, o)

    def __radd__(self, o):
        return self.graph.emit("add", o, self)

    def __sub__(self, o):
        return self.graph.emit("sub", self, o)

    def __rsub__(self, o):
        return self.graph.emit("sub", o, self)

    def __mul__(self, o):
        return self.graph.emit("mul", self, o)

    def __rmul__(self, o):
        return self.graph.emit("mul", o, self)

    def __truediv__(self, o):
        return self.graph.emit("div", self, o)

    def __rtruediv__(self, o):
        return self.graph.emit("div", o, self)

    def __neg__(self):
        return self.graph.emit("neg", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.graph.emit("abs", self)

    def __pow__(self, n):
        return self.graph.emit("pow", self, n)

    def __lt__(self, o):
        return self.graph.emit("lt", self, o)

    def __le__(self, o):
        return self.graph.emit("le", self, o)

    def __gt__(self, o):
        return self.graph.emit("gt", self, o)

    def __ge__(self, o):
        return self.graph.emit("ge", self, o)

    def __eq__(self, o):  # type: ignore[override]
        return self.graph.emit("eq", self, o)

    def __ne__(self, o):  # type: ignore[override]
        return self.graph.emit("ne", self, o)

    def __and__(self, o):
        return self.graph.emit("and", self, o)

    def __rand__(self, o):
        return self.graph.emit("and", o, self)

    def __or__(self, o):
        return self.graph.emit("or", self, o)

    def __ror__(self, o):
        return self.graph.emit("or", o, self)

    def __invert__(self):
        return self.graph.emit("not", self)

    def __bool__(self):
        raise TraceError(
            "a formula body branched in Python on a tensor value; kernels need m.where(...) for data-dependent choices"
        )

    __hash__ = object.__hash__


def _key(a: Any) -> Any:
    if isinstance(a, Sym):
        return ("s", a.index)
    if isinstance(a, bool):
        return ("b", a)
    if isinstance(a, numbers.Real):
        return ("f", float(a).hex())
    raise TraceError(f"unsupported value in a formula body: {a!r} ({type(a).__name__})")


def _fold(op: str, args: Sequence[Any]) -> Any:
    """Evaluate an operation on Python numbers (constant folding), with the torch backend's semantics."""
    if op in BINARY or op in UNARY:
        a = [float(v) if not isinstance(v, bool) else v for v in args]
        if op == "div":
            return a[0] / a[1] if a[1] != 0 else math.copysign(math.inf, a[0]) * math.copysign(1.0, a[1])
        fns: dict[str, Callable[..., Any]] = {
            "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
            "lt": lambda x, y: x < y, "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y,
            "eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "and": lambda x, y: x and y,
            "or": lambda x, y: x or y, "neg": lambda x: -x, "not": lambda x: not x,
        }  # fmt: skip
        return fns[op](*a)
    tensors = [
        torch.tensor(float(v), dtype=torch.float64) if not isinstance(v, bool) else torch.tensor(v) for v in args
    ]
    return getattr(TORCH, op)(*tensors).item()


@dataclass(eq=False)
class Graph:
    nodes: list[Sym] = field(default_factory=list)
    _cse: dict[tuple[Any, ...], Sym] = field(default_factory=dict)

    def leaf(self, op: str, name: str) -> Sym:
        s = Sym(self, op, (), len(self.nodes), name)
        self.nodes.append(s)
        return s

    def emit(self, op: str, *args: Any) -> Any:
        for a in args:
            if isinstance(a, Sym) and a.graph is not self:
                raise TraceError("a value from another trace reached this one")
        if not any(isinstance(a, Sym) for a in args):
            return _fold(op, args)
        key = (op, *(_key(a) for a in args))
        hit = self._cse.get(key)
        if hit is not None:
            return hit
        s = Sym(self, op, tuple(args), len(self.nodes))
        self.nodes.append(s)
        self._cse[key] = s
        return s


class TraceOps:
    """The math namespace on symbols: each primitive records a node (see `PRIMITIVES`)."""

    name = "trace"
    pi = math.pi

    def __init__(self, graph: Graph) -> None:
        self._graph = graph

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name == "clamp":
            return lambda x, lo, hi: self.minimum(self.maximum(x, lo), hi)
        if name not in PRIMITIVES:
            raise TraceError(f"the math namespace has no primitive {name!r}")
        arity = PRIMITIVES[name]

        def call(*args: Any) -> Any:
            if len(args) != arity:
                raise TraceError(f"m.{name} takes {arity} arguments, got {len(args)}")
            return self._graph.emit(name, *args)

        return call


@dataclass(frozen=True, eq=False)
class Trace:
    graph: Graph
    inputs: tuple[Sym, ...]  # main inputs, then extra inputs, in call order, then per-element parameters
    params: dict[str, Sym]  # tensor parameters by name
    outputs: tuple[Any, ...]  # Sym or Python number each


def trace(
    body: Callable[..., Any],
    input_names: Sequence[str],
    params: dict[str, Any],
    tensor_params: Sequence[str],
    input_params: Mapping[str, str] | None = None,
) -> Trace:
    """Trace ``body(m, *inputs, **params)``; `tensor_params` names the parameters that are symbols (one value
    each). `input_params` maps parameters that vary per element (per-channel values, broadcast to the input)
    to the name of an input leaf: they are read like inputs and follow the positional ones in `inputs`."""
    g = Graph()
    inputs = tuple(g.leaf("input", n) for n in input_names)
    per_elem = {k: g.leaf("input", n) for k, n in (input_params or {}).items()}
    syms = {n: g.leaf("param", n) for n in tensor_params}
    call_params = {**params, **syms, **per_elem}
    out = body(TraceOps(g), *inputs, **call_params)
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        if not isinstance(o, Sym | numbers.Real):
            raise TraceError(f"a formula body returned {type(o).__name__}; expected a tensor expression")
    return Trace(g, inputs + tuple(per_elem.values()), syms, outs)


def adjoints(graph: Graph, output: Any, seed: Sym, wrt: Sequence[Sym]) -> list[Any]:
    """d(output)/d(w) * seed for each w in `wrt`, as new nodes (or 0.0 where output does not depend on w).

    Reverse mode over the recorded nodes with each primitive's derivative written in primitives; piecewise
    ops pass the adjoint to the branch they chose, as autograd does.
    """
    if not isinstance(output, Sym):
        return [0.0 for _ in wrt]
    m = TraceOps(graph)
    adj: dict[int, Any] = {output.index: seed}
    for node in reversed(graph.nodes[: output.index + 1]):
        a = adj.pop(node.index, None)
        if a is None or node.op in ("input", "param") or node.boolean:
            if a is not None:
                adj[node.index] = a  # leaves keep theirs
            continue
        for arg, d in zip(node.args, _local(m, node, a), strict=True):
            if isinstance(arg, Sym) and not arg.boolean and d is not None:
                prev = adj.get(arg.index)
                adj[arg.index] = d if prev is None else prev + d
    return [adj.get(w.index, 0.0) for w in wrt]


def _mish_second(m, x):
    """d^2/dx^2 x tanh(sp), sp = softplus(x): S s (2 + x (1 - s - 2 T s)), T = tanh(sp), S = sech^2(sp), s = sigma(x)."""
    sp = m.softplus(x)
    s = m.sigmoid(x)
    return m.sech2(sp) * s * (2.0 + x * (1.0 - s - 2.0 * m.tanh(sp) * s))


def _gelu_tanh_second(m, x):
    """d^2/dx^2 x sigma(u), u = c (x + 0.044715 x^3): s sn (2u' + x u'' + x u'^2 (sn - s)), s = sigma(u), sn = 1 - s."""
    c = 2.0 * math.sqrt(2.0 / math.pi)
    u = c * (x + 0.044715 * x * x * x)
    du = c * (1.0 + 3.0 * 0.044715 * x * x)
    s, sn = m.sigmoid(u), m.sigmoid(-u)
    return s * sn * (2.0 * du + x * (6.0 * 0.044715 * c) * x + x * du * du * (sn - s))


def _local(m: TraceOps, n: Sym, a: Any) -> tuple[Any, ...]:
    """Adjoints of each argument of node `n` given its adjoint `a` (None: no gradient flows)."""
    args = n.args
    x = args[0]
    op = n.op
    if op == "add":
        return a, a
    if op == "sub":
        return a, -a
    if op == "mul":
        return a * args[1], a * x
    if op == "div":
        return a / args[1], -a * n / args[1]
    if op == "neg":
        return (-a,)
    simple = {
        "exp": lambda: a * n,
        "expm1": lambda: a * m.exp(x),
        "log": lambda: a / x,
        "log1p": lambda: a / (1.0 + x),
        "sqrt": lambda: a * 0.5 / n,
        "abs": lambda: a * m.sign(x),
        "sin": lambda: a * m.cos(x),
        "cos": lambda: -a * m.sin(x),
        "tanh": lambda: a * m.sech2(x),
        "atan": lambda: a / (1.0 + x * x),
        "erf": lambda: a * (2.0 / math.sqrt(math.pi)) * m.exp(-x * x),
        "erfc": lambda: -a * (2.0 / math.sqrt(math.pi)) * m.exp(-x * x),
        "sinpi": lambda: a * math.pi * m.cospi(x),
        "cospi": lambda: -a * math.pi * m.sinpi(x),
        "erfcx": lambda: a * (2.0 * x * n - 2.0 / math.sqrt(math.pi)),
        "square": lambda: 2.0 * a * x,
        "sigmoid": lambda: a * m.sigmoid(x) * m.sigmoid(-x),
        "softplus": lambda: a * m.sigmoid(x),
        "log_sigmoid": lambda: a * m.sigmoid(-x),
        "sech2": lambda: -2.0 * a * m.tanh(x) * n,
        "norm_cdf": lambda: a * m.norm_pdf(x),
        "norm_pdf": lambda: -a * x * n,
        "gelu_grad": lambda: a * (2.0 - x * x) * m.norm_pdf(x),
        "gelu_tanh": lambda: a * m.gelu_tanh_grad(x),
        "gelu_tanh_grad": lambda: a * _gelu_tanh_second(m, x),
        "mish": lambda: a * m.mish_grad(x),
        "mish_grad": lambda: a * _mish_second(m, x),
    }
    if op in simple:
        return (simple[op](),)
    if op in ("sign", "zeros_like", "ones_like", "isnan", "indicator"):
        return (None,) * len(args)
    if op == "full_like":
        return None, None
    if op == "pow":
        e = args[1]
        dx = a * e * m.pow(x, e - 1.0)
        de = a * n * m.log(x) if isinstance(e, Sym) else None
        return dx, de
    if op == "where":
        return None, m.where(args[0], a, 0.0), m.where(args[0], 0.0, a)
    if op in ("maximum", "minimum"):
        y = args[1]
        pick_x = (x >= y) if op == "maximum" else (x <= y)
        return m.where(pick_x, a, 0.0), m.where(pick_x, 0.0, a)
    if op == "gated":
        g = args[1]
        return m.where(g == 0, 0.0, a * g), m.where(g == 0, 0.0, a * x)
    if op == "swish":  # x sigma(b x): d/dx = s (1 + b x sigma(-b x)), d/db = x^2 s sigma(-b x), s = sigma(b x)
        b = args[1]
        bx = b * x
        s, r = m.sigmoid(bx), m.sigmoid(-bx)
        dx = a * m.gated(1.0 + m.gated(bx, r), s)
        return dx, (a * m.gated(x * x, s * r) if isinstance(b, Sym) else None)
    if op == "swiglu":  # swish(g, b) v: d/dg = v swish_grad(g, b), d/dv = swish(g, b), d/db = v g^2 s sigma(-b g)
        v, b = args[1], args[2]
        bx = b * x
        s, r = m.sigmoid(bx), m.sigmoid(-bx)
        dx = a * v * m.gated(1.0 + m.gated(bx, r), s)
        return dx, a * m.swish(x, b), (a * v * m.gated(x * x, s * r) if isinstance(b, Sym) else None)
    if op == "swish_grad":  # s (1 + z r), z = b x: d/dz = s r (2 + z (r - s)); d/dx = b that, d/db = x that
        b = args[1]
        bx = b * x
        s, r = m.sigmoid(bx), m.sigmoid(-bx)
        h = m.gated(2.0 + bx * (r - s), s * r)
        return a * b * h, (a * x * h if isinstance(b, Sym) else None)
    if op in ("sin_of_product", "cos_of_product"):  # sin(w x), cos(w x): d/dx = w (cos, -sin), d/dw = x (...)
        w = args[1]
        d = m.cos_of_product(x, w) if op == "sin_of_product" else -m.sin_of_product(x, w)
        return a * w * d, (a * x * d if isinstance(w, Sym) else None)
    if op == "keep":
        return None, m.where(args[0], a, 0.0)
    raise TraceError(f"no derivative rule for {op!r}")
