"""Write the fused forward and backward of one catalog entry as source code, from its traced bodies.

One `Plan` per (entry, float parameter values, which parameters are tensors, layout) holds the traced
forward, declared derivative and symbolic adjoints. `triton_source` turns it into ``@triton.jit`` kernels
whose lines call `nonlin.ops.triton_backend`; `torch_source` into plain functions over
`nonlin.ops.torch_compiled` (the torch backend with the forms of expm1, erf, sin and cos that inductor
compiles accurately) for the CPU path. Both walk the same graph, so the kernel computes exactly what the
body says, in the same order.
"""

from __future__ import annotations

import functools
import linecache
import math
import numbers
from dataclasses import dataclass
from typing import Any

from nonlin.kernels.trace import BINARY, PRIMITIVES, UNARY, Sym, Trace, adjoints, trace
from nonlin.spec import Kind, Spec


@dataclass(frozen=True, eq=False)  # hashed by identity: plans are cached
class Plan:
    spec: Spec
    kind: Kind  # POINTWISE or GATED
    main: tuple[str, ...]  # ("x",) or ("g", "v")
    extras: tuple[str, ...]  # extra tensor inputs (kappa_swiglu's c, a stochastic entry's u), then vparams'
    diff_extras: tuple[str, ...]  # the extras that get gradients (c, vparams'; never u)
    tparams: tuple[str, ...]  # tensor (learnable) parameters with one value, in call order
    forward: Trace
    backward: Trace  # outputs: d/dmain..., then adjoints of extras, then of tparams
    # Tensor parameters with one value per channel (broadcast to the input as the eager path broadcasts them):
    # read like extra inputs, under the names in `extras` "pv_<name>", and reduced to their shape afterwards.
    vparams: tuple[str, ...] = ()

    @property
    def n_main(self) -> int:
        return len(self.main)


def vparam_input(name: str) -> str:
    """The input name of a per-channel parameter in generated code (apart from x, g, v, n, d, ...)."""
    return f"pv_{name}"


def negative_zeros(values) -> tuple[bool, ...]:
    """Which of `values` are -0.0: a cache keyed by parameter values adds this, as -0.0 == 0.0 (one dict key)
    where a product by either has its own sign (leaky_relu's slope -0 gives +0 for x < 0, torch's too)."""
    return tuple(isinstance(v, float) and v == 0.0 and math.copysign(1.0, v) < 0 for v in values)


def plan(
    spec: Spec,
    mode: str,
    floats: tuple[tuple[str, Any], ...],
    tparams: tuple[str, ...],
    vparams: tuple[str, ...] = (),
) -> Plan:
    """The traced plan of an entry (`_traced_plan`), one per parameter values, -0.0 apart from 0.0."""
    return _traced_plan(spec, mode, floats, negative_zeros(v for _, v in floats), tparams, vparams)


@functools.lru_cache(maxsize=512)
def _traced_plan(
    spec: Spec,
    mode: str,
    floats: tuple[tuple[str, Any], ...],
    _negative_zeros: tuple[bool, ...],  # (the cache key only)
    tparams: tuple[str, ...],
    vparams: tuple[str, ...] = (),
) -> Plan:
    """Trace an entry. `mode`: "plain" (forward/derivative), "eval" or "train" (stochastic entries), or
    "output": the backward takes the saved output in place of x (its kernel argument keeps the name ``x``) and
    computes the declared `derivative_from_output`."""
    params = dict(floats)
    if spec.kind is Kind.GATED:
        main, extras = ("g", "v"), tuple(spec.extra_inputs)
    else:
        main, extras = ("x",), (("u",) if mode == "train" else ())
    fwd_body, der_body = (
        (spec.eval_forward, spec.eval_derivative) if mode == "eval" else (spec.forward, spec.derivative)
    )
    if mode == "output":
        if spec.derivative_from_output is None or tparams or extras:
            raise ValueError(f"{spec.name}: no exact derivative from the output is declared for this call")
        der_body = spec.derivative_from_output
    if mode == "output" and vparams:
        raise ValueError(f"{spec.name}: no exact derivative from the output is declared for this call")
    names = main + extras
    per_elem = {n: vparam_input(n) for n in vparams}
    tparams = tuple(n for n in tparams if n not in vparams)
    fwd = trace(fwd_body, names, params, tparams, per_elem)
    bwd = trace(der_body, names, params, tparams, per_elem)
    g = bwd.graph
    derivs = bwd.outputs
    if len(derivs) != len(main):
        raise TypeError(f"{spec.name}: derivative returned {len(derivs)} values for {len(main)} inputs")
    go = g.leaf("input", "go")
    outs = [d * go if isinstance(d, Sym) else _times_const(go, d) for d in derivs]
    diff_extras = tuple(spec.extra_inputs) if spec.kind is Kind.GATED else ()
    diff_extras += tuple(per_elem.values())
    wrt = [s for s in bwd.inputs[len(main) :] if s.name in diff_extras] + [bwd.params[n] for n in tparams]
    if wrt:
        # The forward re-traced into the backward graph, so adjoints share its nodes with the derivative.
        positional = bwd.inputs[: len(names)]
        by_param = dict(zip(per_elem, bwd.inputs[len(names) :], strict=True))
        kw = {**params, **bwd.params, **by_param}
        y = fwd_body(_ops(g), *positional, **kw)
        grads = adjoints(g, y, go, wrt)
        # Parameters with a declared gradient rule (spec.param_rules) take the rule, not the adjoint.
        rules = {**dict(spec.param_rules), **{vparam_input(n): r for n, r in spec.param_rules}}
        for i, w in enumerate(wrt):
            if w.name in rules:
                d = rules[w.name](_ops(g), *positional, **kw)
                grads[i] = d * go if isinstance(d, Sym) else _times_const(go, d)
        outs += grads
    return Plan(
        spec,
        spec.kind,
        main,
        extras + tuple(per_elem.values()),
        diff_extras,
        tparams,
        fwd,
        Trace(g, (*bwd.inputs, go), bwd.params, tuple(outs)),
        vparams,
    )


def _ops(g):
    from nonlin.kernels.trace import TraceOps

    return TraceOps(g)


def _times_const(go: Sym, c: float) -> Any:
    return go * c if c != 1.0 else go


# ----------------------------------------------------------------------------------------- emitting


def _literal(v: Any) -> str:
    if isinstance(v, bool):
        return repr(v)
    f = float(v)
    if math.isnan(f):
        return 'float("nan")'
    if math.isinf(f):
        return 'float("inf")' if f > 0 else 'float("-inf")'
    return repr(f)


def _reachable(outputs: tuple[Any, ...]) -> list[Sym]:
    seen: dict[int, Sym] = {}
    stack = [o for o in outputs if isinstance(o, Sym)]
    while stack:
        s = stack.pop()
        if s.index in seen:
            continue
        seen[s.index] = s
        stack.extend(a for a in s.args if isinstance(a, Sym))
    return [seen[i] for i in sorted(seen)]


def _body_lines(outputs: tuple[Any, ...], leaf_names: dict[int, str], ns: str, indent: str) -> tuple[list[str], dict]:
    """Assignments computing every node the outputs need; returns the lines and node -> variable names."""
    names = dict(leaf_names)
    lines = []

    def ref(a: Any) -> str:
        return names[a.index] if isinstance(a, Sym) else _literal(a)

    for s in _reachable(outputs):
        if s.index in names:
            continue
        if s.op in ("input", "param"):
            raise KeyError(f"unbound {s.op} {s.name!r}")
        var = f"t{s.index}"
        if s.op in BINARY:
            expr = f"({ref(s.args[0])} {BINARY[s.op]} {ref(s.args[1])})"
        elif s.op in UNARY:
            expr = f"({UNARY[s.op]}{ref(s.args[0])})"
        elif s.op in PRIMITIVES:
            expr = f"{ns}.{s.op}({', '.join(ref(a) for a in s.args)})"
        else:
            raise KeyError(s.op)
        lines.append(f"{indent}{var} = {expr}")
        names[s.index] = var
    return lines, names


def _out_ref(o: Any, names: dict[int, str], like: str, ns: str) -> str:
    return names[o.index] if isinstance(o, Sym) else f"{ns}.full_like({like}, {_literal(o)})"


# ------------------------------------------------------------------------------------------ triton

_TL_DTYPE = {"float64": "tl.float64", "float32": "tl.float32", "float16": "tl.float16", "bfloat16": "tl.bfloat16"}


def _store(ptr: str, val: str, dtype: str, mask: str) -> str:
    if dtype == "bfloat16":
        return f"tl.store({ptr}, tb.to_bf16_rne({val}.to(tl.float32)), mask={mask})"
    return f"tl.store({ptr}, {val}.to({_TL_DTYPE[dtype]}), mask={mask})"


def triton_source(p: Plan, compute: str, io: str, wide: bool) -> str:
    """Kernels ``fwd`` and ``bwd`` for `p`, computing in `compute` with inputs/outputs of dtype `io`.

    Layout: main and extra inputs are addressed as [rows, d] with a row stride and unit (mains) or any
    (extras) column stride; pointwise inputs use d = n and a single row. Outputs are contiguous [rows, d],
    except the main gradients, which use the main inputs' row strides (so a packed input gets a packed
    gradient). `wide`: 64-bit offsets.
    """
    cd = _TL_DTYPE[compute]
    ins = p.main + p.extras
    sig_in = ", ".join(f"{n}_ptr, {n}_rs, {n}_cs" for n in ins)
    head = [
        "    pid = tl.program_id(0)",
        f"    offs = {'pid.to(tl.int64)' if wide else 'pid'} * BLOCK + tl.arange(0, BLOCK)",
        "    mask = offs < n",
        "    row = offs // d",
        "    col = offs - row * d",
    ]
    loads = [f"    {n} = tl.load({n}_ptr + row * {n}_rs + col * {n}_cs, mask=mask, other=0).to({cd})" for n in ins] + [
        f"    p_{n} = tl.load(params_ptr + {i}).to({cd})" for i, n in enumerate(p.tparams)
    ]

    def leaves(t: Trace) -> dict[int, str]:
        m = {s.index: s.name for s in t.inputs}
        m.update({s.index: f"p_{n}" for n, s in t.params.items()})
        return m

    f = p.forward
    body, names = _body_lines(f.outputs, leaves(f), "tb", "    ")
    y = _out_ref(f.outputs[0], names, ins[0], "tb")
    fwd = [
        "@triton.jit",
        f"def fwd({sig_in}, params_ptr, y_ptr, n, d, BLOCK: tl.constexpr):",
        *head,
        *loads,
        *body,
        "    " + _store("y_ptr + offs", y, io, "mask"),
    ]
    b = p.backward
    blines, bnames = _body_lines(b.outputs, leaves(b), "tb", "    ")
    outs = list(b.outputs)
    stores = []
    for i, n in enumerate(p.main):
        stores.append(
            "    " + _store(f"d{n}_ptr + row * d{n}_rs + col", _out_ref(outs[i], bnames, n, "tb"), io, "mask")
        )
    k = p.n_main
    for j, n in enumerate(p.diff_extras):
        val = _out_ref(outs[k + j], bnames, n, "tb")
        stores.append(f"    tl.store(d{n}_ptr + offs, {val}, mask=mask)")
    k += len(p.diff_extras)
    for j in range(len(p.tparams)):
        val = _out_ref(outs[k + j], bnames, ins[0], "tb")
        stores.append(
            f"    tl.store(dparams_ptr + pid * {len(p.tparams)} + {j}, tl.sum(tl.where(mask, {val}, 0.0), axis=0))"
        )
    sig_d = ", ".join([f"d{n}_ptr, d{n}_rs" for n in p.main] + [f"d{n}_ptr" for n in p.diff_extras])
    bwd = [
        "@triton.jit",
        f"def bwd({sig_in}, params_ptr, go_ptr, {sig_d}, dparams_ptr, n, d, BLOCK: tl.constexpr):",
        *head,
        *loads,
        f"    go = tl.load(go_ptr + offs, mask=mask, other=0).to({cd})",
        *blines,
        *stores,
    ]
    return "\n".join(
        [
            "import triton",
            "import triton.language as tl",
            "from nonlin.ops import triton_backend as tb",
            "",
            "",
            *fwd,
            "",
            "",
            *bwd,
            "",
        ]
    )


# ------------------------------------------------------------------------------------------- torch


def torch_source(p: Plan, compute: str) -> str:
    """Functions ``fwd(*inputs, params)`` and ``bwd(go, *inputs, params)`` over the torch backend (in the
    forms inductor compiles accurately, `nonlin.ops.torch_compiled`).

    Inputs arrive in storage dtype and are cast to `compute` inside, so that a compiler fuses the casts
    with the arithmetic. ``bwd`` returns (main gradients in storage dtype, extra-input gradients as
    full tensors, parameter gradients summed over all elements).
    """
    ins = p.main + p.extras
    cast = [f"    {n} = {n}.to(torch.{compute})" for n in ins]
    unpack = [f"    p_{n} = params[{i}].to(torch.{compute})" for i, n in enumerate(p.tparams)]

    def leaves(t: Trace) -> dict[int, str]:
        m = {s.index: s.name for s in t.inputs}
        m.update({s.index: f"p_{n}" for n, s in t.params.items()})
        return m

    f = p.forward
    body, names = _body_lines(f.outputs, leaves(f), "ops", "    ")
    y = _out_ref(f.outputs[0], names, ins[0], "ops")
    b = p.backward
    blines, bnames = _body_lines(b.outputs, leaves(b), "ops", "    ")
    outs = list(b.outputs)
    k = p.n_main
    # float64 to a half type: correctly rounded (round_to), where torch's conversion rounds twice (through float32)
    to_dtype = "round_to({}, dtype)" if compute == "float64" else "{}.to(dtype)"
    mains = [to_dtype.format(_out_ref(outs[i], bnames, n, "ops")) for i, n in enumerate(p.main)]
    extras = [f"_sum_to({_out_ref(outs[k + j], bnames, n, 'ops')}, {n}_shape)" for j, n in enumerate(p.diff_extras)]
    k += len(p.diff_extras)
    pgrads = [f"{_out_ref(outs[k + j], bnames, ins[0], 'ops')}.sum()" for j, n in enumerate(p.tparams)]
    src = [
        "import torch",
        "from nonlin.autograd import _sum_to, round_to",
        "from nonlin.ops.torch_compiled import ops_for",
        "",
        f"def fwd({', '.join(ins)}, params):",
        f"    dtype = {ins[0]}.dtype",
        f"    ops = ops_for(dtype, {p.spec.name!r})",
        *cast,
        *unpack,
        *body,
        f"    return {to_dtype.format(y)}",
        "",
        f"def bwd(go, {', '.join(ins)}, params):",
        f"    dtype = {ins[0]}.dtype",
        f"    ops = ops_for(dtype, {p.spec.name!r})",
        *[f"    {n}_shape = {n}.shape" for n in p.diff_extras],
        *cast,
        *unpack,
        f"    go = go.to(torch.{compute})",
        *blines,
        f"    return ({', '.join([*mains, *extras, *pgrads])},)",
        "",
    ]
    if p.kind is Kind.GATED:
        rest = "".join(f", {n}" for n in p.extras)
        src += [
            f"def fwd_packed(packed{rest}, params):",
            "    d = packed.shape[-1] // 2",
            f"    return fwd(packed[..., :d], packed[..., d:]{rest}, params)",
            "",
            f"def bwd_packed(go, packed{rest}, params):",
            "    d = packed.shape[-1] // 2",
            f"    r = bwd(go, packed[..., :d], packed[..., d:]{rest}, params)",
            "    return (torch.cat([r[0], r[1]], dim=-1), *r[2:])",
            "",
        ]
    return "\n".join(src)


_COUNTER = [0]


def load(source: str, tag: str) -> dict[str, Any]:
    """Execute generated source as a module whose text `inspect` can find (Triton's JIT reads it)."""
    _COUNTER[0] += 1
    filename = f"<nonlin-kernel {tag} #{_COUNTER[0]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    ns: dict[str, Any] = {"__name__": f"nonlin_generated_{_COUNTER[0]}"}
    exec(compile(source, filename, "exec"), ns)
    return ns


def is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)
