"""The fused path's entry point: whether a call can be fused (`fusable`) and the fused op for it (`call`).

`nonlin.route` decides which calls take the fused path; this module only says whether one can and runs it.
The fused path takes every pointwise and gated entry; tensor parameters are single values or per-channel
values that broadcast to the input (``num_parameters > 1``).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import torch

from nonlin.kernels import cpp_ops, cpu, gather, graph_ops, native32, state, table, vec_convert
from nonlin.kernels import ops as _ops  # registers torch.ops.nonlin.*
from nonlin.kernels.codegen import Plan, negative_zeros, plan
from nonlin.spec import Kind, Spec

_WARNED: set[str] = set()


def _why_not(spec: Spec, main: tuple[torch.Tensor, ...], params: Mapping[str, Any]) -> str | None:
    if spec.kind not in (Kind.POINTWISE, Kind.GATED):
        return f"{spec.kind.value} entries have no fused path"
    for k, v in params.items():
        if isinstance(v, torch.Tensor):
            try:
                shape = torch.broadcast_shapes(v.shape, main[0].shape)
            except RuntimeError:
                shape = None
            if shape != main[0].shape:
                # Eager broadcasting would change (or reject) the output's shape: leave it to the eager path.
                return f"parameter {k!r} of shape {tuple(v.shape)} does not broadcast to the input's shape"
            if v.device != main[0].device:
                return f"parameter {k!r} is on {v.device}, the input on {main[0].device}"
        if v is None:
            return f"parameter {k!r} is None"
    if any(t.device != main[0].device for t in main):
        return "inputs on different devices"
    return None


def _packed_base(g: torch.Tensor, v: torch.Tensor) -> torch.Tensor | None:
    """The [..., 2d] tensor g and v are the two halves of (as `split_packed` makes them), if they are."""
    base = g._base
    if base is None or v._base is not base or base.dim() != g.dim() or g.dim() == 0:
        return None
    d = g.shape[-1]
    es = g.element_size()
    ok = (
        base.shape[-1] == 2 * d
        and base.shape[:-1] == g.shape[:-1]
        and g.stride() == base.stride() == v.stride()
        and g.data_ptr() == base.data_ptr()
        and v.data_ptr() == base.data_ptr() + d * es
        and base.dtype == g.dtype
        and base.requires_grad == (g.requires_grad or v.requires_grad)
    )
    return base if ok else None


def compile_available() -> bool:
    """Whether the CPU fused path runs compiled (inductor works here)."""
    from nonlin.kernels import cpu

    return cpu.compile_available()


def fusable(spec: Spec, main: tuple[torch.Tensor, ...], params: Mapping[str, Any], warn: bool) -> bool:
    """Whether the fused path can take this call; with `warn`, say once per entry why not."""
    why = _why_not(spec, main, params)
    if why is not None and warn and spec.name not in _WARNED:
        _WARNED.add(spec.name)
        warnings.warn(f"nonlin: {spec.name} runs eagerly: {why}", RuntimeWarning, stacklevel=6)
    return why is None


def call(spec: Spec, body, main, extra, params) -> torch.Tensor:
    """The fused op for one call (inputs already checked by the functional layer)."""
    if len(extra) == 0 and body is spec.forward and main[0].device.type == "cpu" and not torch.compiler.is_compiling():
        job = job_for(spec, main[0].dtype, params)
        if job is not None:
            return run_job(job, main)
    fnames = [k for k, v in params.items() if not isinstance(v, torch.Tensor)]
    fvals = [float(params[k]) for k in fnames]
    tnames = [k for k, v in params.items() if isinstance(v, torch.Tensor)]
    tparams = [params[k] for k in tnames]
    if spec.kind is Kind.POINTWISE:
        mode = ("eval" if body is spec.eval_forward else "train") if spec.stochastic else "plain"
        return torch.ops.nonlin.pointwise(
            main[0], list(extra), tparams, spec.name, mode, ",".join(fnames), fvals, ",".join(tnames)
        )
    g, v = main
    # Data pointers cannot be compared while torch.compile traces: there the halves go in as two tensors
    # (the compiled graph assembles their gradients).
    base = None if torch.compiler.is_compiling() else _packed_base(g, v)
    gv = [base] if base is not None else [g, v]
    return torch.ops.nonlin.gated(gv, list(extra), tparams, spec.name, ",".join(fnames), fvals, ",".join(tnames))


# ------------------------------------------------------------------------------------- CPU, direct


class Job:
    """What a direct CPU call of one (entry, float parameters, input dtype, precision setting) needs, worked
    out once: the plan, the compute precision of each pass, the parameters as the eager fallback reads them."""

    __slots__ = (
        "bwd", "exact_forward", "fnames", "fvals", "fwd", "gated", "half_kernel", "native", "native_half", "out_plan",
        "passthrough", "plan", "table", "torch_forward",
    )  # fmt: skip

    def __init__(
        self, p: Plan, fwd: str, bwd: str, fnames: str, fvals: list[float], out_plan, passthrough: bool = False
    ) -> None:
        self.plan, self.fwd, self.bwd = p, fwd, bwd
        self.gated = p.kind is Kind.GATED
        self.fnames, self.fvals = fnames, fvals
        # entries with an exact derivative from the output save the output, not the input (as the custom op
        # does, `ops.saves_output`): the plan whose backward reads it
        self.out_plan = out_plan
        # the forward at these parameters returns its input (identity; soft_exponential at alpha = 0): the
        # call returns the input itself, as torch.nn.Identity does, instead of a copy through a kernel
        self.passthrough = passthrough
        # torch's own op as the forward of a training call (`with_torch_forward`); None: the forward kernel
        self.torch_forward = None
        # bfloat16 and float16 inputs of a pointwise entry, or of a gated one's gate: looked up
        # (`nonlin.kernels.table`), not computed
        self.table: table.Table | table.GateTable | None = None
        # a pointwise half-type forward by the generated kernel instead of the lookup (`HALF_FORWARD_BY_KERNEL`), or
        # by `native_half`'s: None until its first call decides, then whether the kernel gives the table's bits at
        # every input
        self.half_kernel: bool | None = None
        # bfloat16 inputs of an entry whose forward is one of native32.HALF_FORMS's kernels (hardswish): its float32
        # kernels around bfloat16 loads and stores, forward (the table's bits) and backward; None: the table
        self.native_half: str | None = None
        # float32 inputs of an entry whose forward is one of native32.PRIMITIVES of x (sigmoid, tanh): its
        # hand-written kernels, forward and backward (from the saved input); None: the generated kernels
        self.native: str | None = None
        # torch's op whose results are the forward's, bit for bit, in every dtype (`_exact_forward`: helu's forward
        # is relu, its own rule only the backward's): an inference call's forward; None: the kernels
        self.exact_forward: Callable[[torch.Tensor], torch.Tensor] | None = None


_TORCH_FORWARD: dict[int, tuple[Job, Job]] = {}  # id(job) -> (job, its twin); the job held, so its id stays its


def with_torch_forward(job: Job) -> Job:
    """`job` with torch's op as its forward, for training calls of a pointwise row whose forward alone is
    torch's op (route.NATIVE's `forward`: tanh, whose 1 - y^2 backward misses the goals). The backward is
    still the kernel's, from the saved input. For tanh inductor's tanh (Sleef's tanhf, 3.7 ns/element on one
    AVX-512 core) costs 4x ATen's (0.84), and the training forward now has the inference forward's bits."""
    pair = _TORCH_FORWARD.get(id(job))
    if pair is None or pair[0] is not job:
        twin = Job(job.plan, job.fwd, job.bwd, job.fnames, job.fvals, None)
        twin.torch_forward, twin.table, twin.native = job.plan.spec.torch_equivalent, job.table, job.native
        pair = _TORCH_FORWARD[id(job)] = (job, twin)
    return pair[1]


_JOBS: dict[tuple, Job | None] = {}
_CPU = torch.device("cpu")


def job_for(spec: Spec, dtype: torch.dtype, params: Mapping[str, Any]) -> Job | None:
    """The direct CPU job of a call with these parameters, or None where the call needs the custom op
    (tensor parameters, stochastic entries, a backend other than inductor, compilation off)."""
    values = params.values()
    if any(isinstance(v, torch.Tensor) for v in values):
        return None  # (not a key: the cache would keep every tensor a call passed alive)
    try:
        key = (spec.name, dtype, *values, *negative_zeros(values), *state.settings())
        job = _JOBS.get(key, False)
    except TypeError:  # an unhashable parameter value (a tensor is hashable; a list is not)
        return None
    if job is False:
        job = _JOBS[key] = _make_job(spec, dtype, params)
    if job is not None and not cpu.compile_available():
        return None
    return job


def _make_job(spec: Spec, dtype: torch.dtype, params: Mapping[str, Any]) -> Job | None:
    if spec.stochastic or any(isinstance(v, torch.Tensor) for v in params.values()):
        return None
    if state.backend_for(_CPU) != "inductor":
        return None
    return _make_job_inductor(spec, dtype, params)


def _make_job_inductor(spec: Spec, dtype: torch.dtype, params: Mapping[str, Any]) -> Job:
    fnames = [k for k in params]
    fvals = [float(params[k]) for k in fnames]
    p = plan(spec, "plain", tuple(sorted(zip(fnames, fvals, strict=True))), (), ())
    # kernels/precision.py's float32-math lists were measured at the default parameters: softplus at beta=1.75
    # is 32 float32 ULP with float32 math (tests/kernels/test_fp32_params.py); other parameters compute
    # float32 inputs in float64
    at_defaults = dict(params) == spec.defaults()
    fwd = cpu.compute_name(dtype, state.fp32_compute_for(spec.name, _CPU, "forward", at_defaults), at_defaults)
    bwd = cpu.compute_name(dtype, state.fp32_compute_for(spec.name, _CPU, "backward", at_defaults), at_defaults)
    out_plan = None
    if p.kind is not Kind.GATED and _ops.saves_output(spec.name, "plain", ",".join(fnames), fvals, 0, 0, dtype):
        out_plan = plan(spec, "output", tuple(sorted(zip(fnames, fvals, strict=True))), (), ())
    job = Job(p, fwd, bwd, ",".join(fnames), fvals, out_plan, _returns_input(spec, params))
    job.exact_forward = _exact_forward(p)
    if dtype in table.HALVES and p.kind is Kind.POINTWISE and not job.passthrough:
        # the backward: by table, but from the saved output where the entry declares an arithmetic derivative
        # of it (the piecewise-linear relu6, hardtanh, step, ...: an indicator of y, cheaper than the lookup)
        job.table = table.Table(spec, dtype, params, out_plan is None or table.backward_by_table(out_plan))
        if job.table.backward_by_table:
            job.out_plan = None  # the table's backward reads the input
            primitive = native32.primitive_of(p, fixed=at_defaults) if dtype == torch.bfloat16 else None
            if primitive in native32.HALF_FORMS:
                job.native_half = primitive
    elif dtype in table.HALVES and job.gated and spec.gate is not None and not spec.extra_inputs:
        job.table = table.GateTable(spec, dtype, params)
    elif dtype == torch.bfloat16 and job.gated and fwd == bwd == "float32" and state.fp32_compute() == "auto":
        # bfloat16 gated entries that compute in float32 (no gate table: both halves nonlinear, gtu, or clamped,
        # clamped_swiglu) and whose float32 form is a hand-written kernel: that kernel around bfloat16 loads and
        # stores (native32._GATED_BF16), the float32 result rounded to bfloat16 as the generated kernel rounds its
        # own (gtu's backward at 4M: 5.2 ns per element generated, notes/2026-12-07c)
        primitive = native32.primitive_of(p, fixed=at_defaults)
        job.native = primitive if primitive in native32.GATED else None
    elif dtype == torch.float32 and not job.passthrough and state.fp32_compute() == "auto":
        # (the FORMS' constants are the defaults'; a parametrized kernel takes the value its form matched)
        job.native = native32.primitive_of(p, fixed=at_defaults)
        if job.native is not None:
            job.out_plan = None  # its backward reads the input
    return job


def _exact_forward(p: Plan) -> Callable[[torch.Tensor], torch.Tensor] | None:
    """torch.relu where the plan's forward is maximum(x, +0.0) (helu: an entry whose own rule is its backward's);
    ATen's relu gives maximum's bits (NaN for NaN, -0 for -0) in every dtype and takes one pass where the generated
    kernel takes ~1.2-1.7x its time (benchmarks/kernels.py, 2026-12-07c). None otherwise."""
    f = p.forward
    if p.kind is not Kind.POINTWISE or len(f.inputs) != 1 or f.params or len(f.outputs) != 1:
        return None
    y = f.outputs[0]
    if getattr(y, "op", None) != "maximum" or len(y.args) != 2 or y.args[0] is not f.inputs[0]:
        return None
    zero = y.args[1]
    plus_zero = isinstance(zero, float) and zero == 0.0 and math.copysign(1.0, zero) > 0
    return torch.relu if plus_zero else None


def _returns_input(spec: Spec, params: Mapping[str, Any]) -> bool:
    """Whether the entry's forward at these (float) parameters is the identity: it returns its input object."""
    if spec.kind is not Kind.POINTWISE:
        return False
    from nonlin.ops import TORCH

    probe = torch.zeros(1, dtype=torch.float64)
    return spec.forward(TORCH, probe, **params) is probe


def ready(job: Job, dtype: torch.dtype, train: bool) -> bool:
    """Whether the kernels a call of `job` needs are compiled already (a small call does not wait for them)."""
    if job.passthrough or (job.exact_forward is not None and not train):  # (torch's op: nothing to compile)
        return True
    if job.table is not None and job.gated:
        return table.built(dtype, train, gated=True)
    if job.native_half is not None:
        return native32.built(job.native_half, "fwd_bf16") and (
            not train or native32.built(job.native_half, "bwd_bf16")
        )
    if job.table is not None:
        forward_built = job.half_kernel is not None or dtype not in HALF_FORWARD_BY_KERNEL.get(job.plan.spec.name, ())
        return (
            table.built(dtype, train and job.table.backward_by_table)
            and (forward_built or cpu.built(job.plan, job.fwd, "fwd", dtype, 1))
            and (not train or job.table.backward_by_table or _any_bwd_built(job, dtype))
        )
    if job.native is not None:
        fwd, bwd = ("fwd", "bwd") if dtype == torch.float32 else ("fwd_bf16", "bwd_bf16")
        return native32.built(job.native, fwd if job.torch_forward is None else bwd) and (
            not train or native32.built(job.native, bwd)
        )
    if job.torch_forward is not None:  # a training call's forward is torch's op: only the backward kernel runs
        return _any_bwd_built(job, dtype)
    if job.gated:
        ok = cpu.built(job.plan, job.fwd, "fwd_packed", dtype, 2) or cpu.built(job.plan, job.fwd, "fwd", dtype, 1)
    else:
        ok = cpu.built(job.plan, job.fwd, "fwd", dtype, 1)
    return ok and (not train or _any_bwd_built(job, dtype))


def _any_bwd_built(job: Job, dtype: torch.dtype) -> bool:
    if job.gated:
        return cpu.built(job.plan, job.bwd, "bwd_packed", dtype, 2) or cpu.built(job.plan, job.bwd, "bwd", dtype, 1)
    # (a job that saves its output runs the output plan's backward: `_from_output`)
    return cpu.built(job.out_plan or job.plan, job.bwd, "bwd", dtype, 1)


def _flat(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1) if t.is_contiguous() else t.contiguous().reshape(-1)


def _kernel(job: Job, which: str, *inputs: torch.Tensor):
    return cpu.direct(job.plan, job.bwd if which[0] == "b" else job.fwd, which, inputs)(*inputs)


# torch.autograd.Function.apply without its Python prologue (functorch's dead-wrapper unwrapping, ~3 us); the
# prologue runs where functorch transforms are active.
def _fused_apply(*args):
    if torch._C._are_functorch_transforms_active():
        return nonlin_fused.apply(*args)
    return _APPLY(*args)


# How a gated call's inputs reach `nonlin_fused`: g and v as given, or the one packed [..., 2d] tensor they are the
# last dim's halves of, [gate | value] or [value | gate] (torch's, JAX's and Keras's glu), which the kernels read
# in place and whose gradient they write as one tensor
UNPACKED, GATE_VALUE, VALUE_GATE = 0, 1, 2


def run_job(job: Job, main) -> torch.Tensor:
    """A direct CPU call: the forward kernel alone where autograd records nothing, else through `nonlin_fused`."""
    x = main[0]
    if job.passthrough:
        return x
    if not job.gated:
        if torch.is_grad_enabled() and x.requires_grad:
            return training_call(job)(x)
        if job.exact_forward is not None:
            return job.exact_forward(x)
        if job.table is not None:
            return _half_forward(job, x)
        return _pointwise_forward(job, x)
    g, v = main
    if g.numel() == 0:  # no element to compute: an empty result that autograd connects to both inputs
        return g * v
    base = _packed_base(g, v)
    if base is not None and base.is_contiguous():
        y = run_packed(job, base)
        if y is not None:
            return y
    if torch.is_grad_enabled() and (g.requires_grad or v.requires_grad):
        return _fused_apply(job, UNPACKED, g, v)
    return _gated_forward(job, UNPACKED, g, v).view_as(g)


def settled_call(job: Job, grad: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    """`run_job(job, (x,))` of a pointwise job as one callable, for the calls of one settled route: all of them
    recorded by autograd (`grad`) or none (`nonlin.route`'s key holds which). The branches `run_job` takes on
    every call are taken here once: a settled call's cost above torch's op is its layers of Python, ~1 µs each
    (`notes/2026-12-07g/layers.py`)."""
    if job.gated:
        raise ValueError(f"settled_call: {job.plan.spec.name} is gated; its calls take run_job or run_packed")
    if job.passthrough:
        return _same
    if grad:
        return training_call(job)
    if job.exact_forward is not None:
        return job.exact_forward
    if job.table is not None:
        return functools.partial(_half_forward, job)
    return functools.partial(_pointwise_forward, job)


def _same(x: torch.Tensor) -> torch.Tensor:
    return x


def training_call(job: Job) -> Callable[[torch.Tensor], torch.Tensor]:
    """The callable of a pointwise job's calls that autograd records: `nonlin_fused`, or for a float32 job on
    the hand-written kernels, forward and backward alike, the same kernels under a C++ autograd node
    (`cpp_ops.training_op`) where its library is loaded: the same bits, 20-35 µs less per call on the AVX2 host
    (sigmoid at 64x512, forward and backward: 1.57 -> 1.36 of torch's op; notes/2026-12-07h/node_before_after.md)."""
    if job.native is not None and job.torch_forward is None and job.table is None and not job.gated:
        op = cpp_ops.training_op()
        if op is not None:
            _TRAINED[id(job)] = job
            return functools.partial(_cpp_training, op, id(job), job.native)
    return functools.partial(_fused_apply, job, UNPACKED)


_TRAINED: dict[int, Job] = {}  # id(job) -> job (held: its id stays its), for the C++ node's create_graph backward


def _cpp_training(op, job_id: int, primitive: str, x: torch.Tensor) -> torch.Tensor:
    if torch._C._are_functorch_transforms_active():  # (a C++ node has no vmap or jvp rule: the Python Function)
        return nonlin_fused.apply(_TRAINED[job_id], UNPACKED, x)
    return op(job_id, primitive, x)


@graph_ops.composite_op("native32_train_grad", "(Tensor go, Tensor x, int job) -> Tensor")
def _cpp_training_eager_grad(go: torch.Tensor, x: torch.Tensor, job_id: int) -> torch.Tensor:
    """d/dx of the C++ node's call under create_graph=True: the eager formulas, differentiable (as
    `nonlin_fused.backward`'s)."""
    job = _TRAINED[job_id]
    return _ops._eager_grads(job.plan.spec.name, "plain", job.fnames, job.fvals, "", [x], [], [], go)[0]


def run_packed(job: Job, base: torch.Tensor, value_first: bool = False) -> torch.Tensor | None:
    """`run_job` of the two halves of a contiguous packed [..., 2d] tensor ([gate | value]; value_first: [value |
    gate]), given the tensor itself: [..., d]; None where the job is not a gated one that computes, or its packed
    forms read only [gate | value] (the generated kernels)."""
    if not job.gated or job.passthrough:
        return None
    if value_first and job.native is None and job.table is None:
        return None
    layout = VALUE_GATE if value_first else GATE_VALUE
    if torch.is_grad_enabled() and base.requires_grad:
        return _fused_apply(job, layout, base)
    return _gated_forward(job, layout, base)


# Half-type forwards computed by the entry's generated kernel (float32 arithmetic, one rounding to the half type)
# instead of the table's lookup, where that kernel gives the table's bits (correctly rounded) at every one of the
# 65536 inputs: checked on this machine at the job's first call (`_kernel_gives_the_table`), so an ISA or
# compiler whose kernel rounds otherwise keeps the lookup. Their forwards are sums and products that float32
# holds exactly for half-type inputs (cube: 3 x 8 significant bits), or clamps of them. The lookup is a gather
# from a 256 KB table; these are a load, a few operations and a store: 4M elements on one Zen 4 core, kernel /
# lookup 0.38-0.59 in bfloat16 and 0.27-0.47 in float16 (2026-12-06, `notes/2026-12-06g/half_kernels.py`, .txt).
# Left on the lookup: hardswish (x (x + 3) / 6 rounds twice in float32: 128 bfloat16 and 3 float16 inputs differ;
# its bfloat16 calls take native32's kernel instead, `Job.native_half`), squ in bfloat16 (120 inputs), hard_mish
# (its kernel is slower than the lookup there: 1.19 bfloat16).
_BOTH_HALVES = frozenset({torch.bfloat16, torch.float16})
HALF_FORWARD_BY_KERNEL: dict[str, frozenset[torch.dtype]] = {
    "cube": _BOTH_HALVES,
    "helu": _BOTH_HALVES,
    "shifted_relu": _BOTH_HALVES,
    "clipped_shifted_relu": _BOTH_HALVES,
    "star_relu": _BOTH_HALVES,
    "relu_pow": _BOTH_HALVES,
    "hard_sigmoid_keras2": _BOTH_HALVES,
    "squ": frozenset({torch.float16}),
}


def _half_forward(job: Job, x: torch.Tensor) -> torch.Tensor:
    if job.half_kernel is None:
        job.half_kernel = _kernel_gives_the_table(job)
    if job.half_kernel:
        if job.native_half is not None:
            return native32.half_forward(job.native_half, x.contiguous(), job.table.widened_values())
        return _kernel(job, "fwd", _flat(x))[0].view_as(x)
    return job.table.forward(x)


def _kernel_gives_the_table(job: Job) -> bool:
    """Whether the job's forward kernel (`native_half`'s, or the generated one) gives the table's values at every
    half-type input (NaN for NaN, whatever its payload; zeros of the same sign)."""
    every = table.all_values(job.table.dtype)
    with torch.no_grad():
        if job.native_half is not None:
            computed = native32.half_forward(job.native_half, every, job.table.widened_values())
            if computed is None:
                return False
        elif job.table.dtype in HALF_FORWARD_BY_KERNEL.get(job.plan.spec.name, ()):
            computed = _kernel(job, "fwd", every)[0]
        else:
            return False
        looked_up = job.table.forward(every)
    same = computed.view(torch.int16) == looked_up.view(torch.int16)
    return bool((same | (computed.isnan() & looked_up.isnan())).all())


def _pointwise_forward(job: Job, x: torch.Tensor) -> torch.Tensor:
    if job.native is not None:
        y = native32.forward(job.native, x.contiguous())  # (x's shape: no view per call)
        if y is not None:
            return y
    return _kernel(job, "fwd", _flat(x))[0].view_as(x)


def _gated_forward(job: Job, layout: int, *inputs: torch.Tensor) -> torch.Tensor:
    """gate(g) * v of a packed [..., 2d] tensor ([..., d] out) or of g and v (flat out)."""
    if layout != UNPACKED:
        (base,) = inputs
        value_first = layout == VALUE_GATE
        if job.native is not None:
            y = native32.packed_forward(job.native, base, value_first)
            if y is not None:
                return y
        d2 = base.shape[-1]
        rows = base.view(-1, d2)  # [rows, 2d]
        if job.table is not None:
            y = job.table.forward(*gather.packed_halves(rows, value_first))
        else:  # (run_packed: [gate | value])
            y = _kernel(job, "fwd_packed", rows)[0]
        return y.view(*base.shape[:-1], d2 // 2)
    if job.table is not None:  # (the halves of a packed tensor that is not [gate | value]: as strided rows)
        return job.table.forward(table.rows(inputs[0]), table.rows(inputs[1]))
    if job.native is not None:
        y = native32.gated_forward(job.native, table.rows(inputs[0]), table.rows(inputs[1]))
        if y is not None:
            return y
    return _kernel(job, "fwd", *(_flat(t) for t in inputs))[0]


def _gated_backward(job: Job, layout: int, go: torch.Tensor, saved) -> tuple[torch.Tensor, ...]:
    """(d/d base,) of a packed call, else (d/dg, d/dv)."""
    if layout != UNPACKED:
        (base,) = saved
        value_first = layout == VALUE_GATE
        if job.native is not None:
            dx = native32.packed_backward(job.native, go, base, value_first)
            if dx is not None:
                return (dx,)
        d2 = base.shape[-1]
        go2 = go.reshape(-1, d2 // 2) if go.is_contiguous() else go.contiguous().view(-1, d2 // 2)
        if job.table is not None:
            return (job.table.packed_backward(go2, base.view(-1, d2), value_first).view_as(base),)
        return (_kernel(job, "bwd_packed", go2, base.view(-1, d2))[0].view_as(base),)
    if job.table is not None:
        g, v = (table.rows(t) for t in saved)
        dg, dv = gather.empty(g.shape, g.dtype), gather.empty(v.shape, v.dtype)
        job.table.backward(table.rows(go.to(g.dtype)), g, v, dg, dv)
        return dg.view(saved[0].shape), dv.view(saved[1].shape)
    if job.native is not None:
        g, v = (table.rows(t) for t in saved)
        dg, dv = gather.empty(g.shape, g.dtype), gather.empty(v.shape, v.dtype)
        if native32.gated_backward(job.native, table.rows(go), g, v, dg, dv):
            return dg.view(saved[0].shape), dv.view(saved[1].shape)
    grads = _kernel(job, "bwd", _flat(go), *(_flat(t) for t in saved))
    return tuple(g.view_as(t) for g, t in zip(grads, saved, strict=False))


_run = run_job


class nonlin_fused(torch.autograd.Function):  # lower case: grad_fn names say nonlin (nonlin_fusedBackward)
    """The direct CPU kernels under autograd. Inputs: x; or g and v; or (`layout` GATE_VALUE, VALUE_GATE) the one
    [..., 2d] tensor g and v are views of, so that its gradient is one tensor written by the kernel. The forward
    saves the inputs, the backward recomputes from them; double backward (create_graph=True) runs the eager
    formulas, as the custom op does."""

    @staticmethod
    def forward(ctx, job: Job, layout: int, *inputs):
        ctx.job, ctx.layout = job, layout
        if job.table is not None and not job.gated:
            y = _half_forward(job, inputs[0])
            ctx.save_for_backward(y if job.out_plan is not None else inputs[0])
            return y
        if job.torch_forward is not None:
            ctx.save_for_backward(*inputs)
            return job.torch_forward(*inputs)
        if job.out_plan is not None:
            (x,) = inputs
            y = _kernel(job, "fwd", _flat(x))[0].view_as(x)
            ctx.save_for_backward(y)
            return y
        ctx.save_for_backward(*inputs)
        if job.gated:
            y = _gated_forward(job, layout, *inputs)
            return y if layout != UNPACKED else y.view_as(inputs[0])
        return _pointwise_forward(job, inputs[0])

    @staticmethod
    def backward(ctx, go):
        job = ctx.job
        saved = ctx.saved_tensors
        if job.out_plan is not None:
            return None, None, _from_output(job, go, saved[0])
        if torch.is_grad_enabled():  # create_graph=True: the eager formulas, differentiable
            value_first = ctx.layout == VALUE_GATE
            mains = list(gather.packed_halves(saved[0], value_first)) if ctx.layout != UNPACKED else list(saved)
            grads = _ops._eager_grads(job.plan.spec.name, "plain", job.fnames, job.fvals, "", mains, [], [], go)
            if ctx.layout != UNPACKED:
                grads = [g if g is not None else torch.zeros_like(m) for g, m in zip(grads, mains, strict=True)]
                return None, None, torch.cat(grads[::-1] if value_first else grads, dim=-1)
            return (None, None, *grads)
        if job.gated:
            return (None, None, *_gated_backward(job, ctx.layout, go, saved))
        if job.native_half is not None and job.half_kernel:
            (x,) = saved
            g = native32.half_backward(job.native_half, go.to(x.dtype).contiguous(), x.contiguous())
            if g is not None:
                return None, None, g
        if job.table is not None and job.table.backward_by_table:
            return None, None, job.table.backward(go, saved[0])
        if job.native is not None:
            (x,) = saved
            g = native32.backward(job.native, go.contiguous(), x.contiguous())
            if g is not None:
                return None, None, g
        grads = _kernel(job, "bwd", _flat(go), *(_flat(t) for t in saved))
        return (None, None, *(g.view_as(t) for g, t in zip(grads, saved, strict=False)))


def _from_output(job: Job, go: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """d/dx from the saved output: the kernel, or (create_graph=True) the eager formula in float64,
    differentiable in `go` (as the custom op's `_from_output_grad`)."""
    if torch.is_grad_enabled():
        from nonlin.autograd import round_to
        from nonlin.ops import TORCH

        floats = dict(zip(job.fnames.split(",") if job.fnames else [], job.fvals, strict=True))
        d = job.plan.spec.derivative_from_output(TORCH, y.to(torch.float64), **floats)
        return round_to(go.to(torch.float64) * d, y.dtype)
    flats = (_flat(go), _flat(y))
    return cpu.direct(job.out_plan, job.bwd, "bwd", flats)(*flats)[0].view_as(y)


_APPLY = super(torch.autograd.Function, nonlin_fused).apply


# ------------------------------------------------------------------------- CPU, inside torch.compile


def traceable(spec: Spec, body) -> bool:
    """Whether a call traced by torch.compile can take the fused path's functions into the caller's graph
    (every call `fusable` admits but a stochastic entry's, whose noise the eager route draws)."""
    return not spec.stochastic and body is spec.forward


# (entry, float parameters, dtype, precision setting) -> (forward, backward, job, packed): the traced functions,
# packed the (forward, backward) pair of a gated call on one packed tensor where the kernels have one (else
# None); a plain dict that dynamo reads (and guards on) while tracing
_TRACED: dict[tuple, tuple] = {}


def _prepare(name: str, dtype: torch.dtype, values: tuple, settings: tuple) -> bool:
    """Generate the functions of a traced call (`plan_of`, which dynamo runs once per trace, outside the graph)."""
    key = (name, dtype, values, settings)
    if key not in _TRACED:
        from nonlin.registry import spec as get_spec

        s = get_spec(name)
        job = _make_job_inductor(s, dtype, dict(zip((p.name for p in s.params), values, strict=True)))
        if isinstance(job.table, table.GateTable):
            fwd, grad, packed = _gate_functions(*job.table._build())
            _TRACED[key] = (fwd, grad, job, packed)
            return True
        if job.native is not None:  # float32: the hand-written kernels as ops (native32.traced_forward)
            fwd, grad, packed = _native_functions(job.native, job.gated)
            _TRACED[key] = (fwd, grad, job, packed)
            return True
        if job.table is not None:
            # half types: the lookup ops (table.traced_lookup, traced_product) in the caller's graph, their
            # arrays held here (never dropped: the graph reads them)
            vals, vals32, slopes, wide = job.table._build()
            _TRACED[key] = (_table_forward(vals, vals32), _table_backward(slopes, wide), job, None)
            return True
        # The caller's inductor builds the generated functions after this trace: their float64 steps' conversions
        # (float32 inputs) and the masks its graph saves as bools for the backward (every dtype) get the vector forms
        vec_convert.install()
        fwd = cpu.functions(job.plan, job.fwd, False)
        bwd = cpu.functions(job.plan, job.bwd, False)
        _TRACED[key] = (fwd["fwd"], bwd["bwd"], job, None)
    return True


def _gate_functions(gate, gate_wide, slopes, slopes_wide):
    """A gated entry's half-type gate tables as traced forward and backward (the products of GateTable), and
    the pair of one packed tensor's (`_TracedPacked`)."""

    def fwd(g, v, params):
        return table.traced_product(v, None, g, gate, gate_wide)

    def grad(go, g, v, params):
        return table.traced_product(go, v, g, slopes, slopes_wide), table.traced_product(go, None, g, gate, gate_wide)

    def packed_fwd(x, value_first):
        return fwd(*gather.packed_halves(x, value_first), None)

    def packed_grad(go, x, value_first):
        return table.traced_packed_gradient(go, x, value_first, gate, gate_wide, slopes, slopes_wide)

    return fwd, grad, (packed_fwd, packed_grad)


def _native_functions(primitive: str, gated: bool):
    """A float32 kernel's traced ops as forward and backward, and for a gated one the pair of one packed
    tensor's (`_TracedPacked`): the C++ twins where they are built (`cpp_ops`), else native32's Python ops."""
    if gated:
        gated_fwd, gated_grad = cpp_ops.graph_op("native32_gated"), cpp_ops.graph_op("native32_gated_grad")
        packed_fwd_op = cpp_ops.graph_op("native32_gated_packed")
        packed_grad_op = cpp_ops.graph_op("native32_gated_packed_grad")

        def fwd(g, v, params):
            return gated_fwd(g, v, primitive)

        def grad(go, g, v, params):
            return gated_grad(go, g, v, primitive)

        def packed_fwd(x, value_first):
            return packed_fwd_op(x, primitive, value_first)

        def packed_grad(go, x, value_first):
            return packed_grad_op(go, x, primitive, value_first)

        return fwd, grad, (packed_fwd, packed_grad)

    unary_fwd, unary_grad = cpp_ops.graph_op("native32"), cpp_ops.graph_op("native32_grad")

    def fwd(x, params):
        return unary_fwd(x, primitive)

    def grad(go, x, params):
        return (unary_grad(go, x, primitive),)

    return fwd, grad, None


def _table_forward(values: torch.Tensor, values32: torch.Tensor):
    def fwd(x, params):
        return table.traced_lookup(x, values, values32)

    return fwd


def _table_backward(slopes: torch.Tensor, wide: torch.Tensor | None):
    # (by table for every entry here: _Traced saves the inputs, where a direct call of relu6 saves its output)
    def grad(go, x, params):
        return (table.traced_product(go, None, x, slopes, wide),)

    return grad


@graph_ops.constant_result
def prepare_eager_trace() -> bool:
    """Before the eager route's float64 formula is traced into a caller's compiled CPU graph: the kernels the
    caller's inductor builds from it get the vector conversions and bool masks (vec_convert.install; a bfloat16
    kappa_swiglu's compiled forward took 10x its direct call's time with ATen's element-by-element ones)."""
    return vec_convert.install()


def traced(
    spec: Spec, main, params: Mapping[str, Any], packed: tuple[torch.Tensor, bool] | None = None, extra=()
) -> torch.Tensor:
    """The fused path's generated functions, for torch.compile to trace into the caller's graph: the same
    forms and compute precision as the fused kernels (nonlin.kernels.precision), inductor fusing them with
    their neighbours; backward from the saved inputs. `packed`: (the [..., 2d] tensor whose last dim's halves
    a gated call's g and v are, whether the value half comes first), where the caller split one."""
    tensors = tuple(k for k, v in params.items() if isinstance(v, torch.Tensor))
    if len(extra) > 0 or len(tensors) > 0:
        return _traced_with_inputs(spec, main, extra, params, tensors)
    return traced_plan(plan_of(spec.name, main[0].dtype, tuple(params.values()), state.settings()), main, packed)


@graph_ops.constant_result
def plan_of(name: str, dtype: torch.dtype, values: tuple, settings: tuple) -> tuple:
    """The traced functions of a call at float parameters `values`, prepared, as `traced_plan` runs them:
    ("identity",) for a pass-through, or ("traced", key of `_TRACED`, whether a packed pair exists). A constant
    for dynamo, run once per trace: no guard on `_TRACED`'s keys."""
    key = (name, dtype, values, settings)
    _prepare(*key)
    _, _, job, packed_functions = _TRACED[key]
    if job.passthrough:
        return ("identity",)
    return ("traced", key, packed_functions is not None)


def traced_plan(plan: tuple, main, packed: tuple[torch.Tensor, bool] | None) -> torch.Tensor:
    """Run `plan_of`'s plan on a call's inputs, `main` (the input, or g and v), or where the plan has its pair,
    `packed` (the [..., 2d] tensor, whether its value half is first). Inside torch.compile the plan is a
    constant: dynamo reads no cache of nonlin's here but the traced functions."""
    if plan[0] == "identity":
        return main[0]
    if packed is not None and plan[2]:
        return _TracedPacked.apply(plan[1], *packed)
    return _Traced.apply(plan[1], *main)


class _Traced(torch.autograd.Function):
    @staticmethod
    def forward(ctx, key, *mains):
        ctx.key = key
        ctx.save_for_backward(*mains)
        return _TRACED[key][0](*mains, None)

    @staticmethod
    def backward(ctx, go):
        mains = ctx.saved_tensors
        grads = _TRACED[ctx.key][1](go, *mains, None)
        return (None, *grads[: len(mains)])


class _TracedPacked(torch.autograd.Function):
    """A gated kernel (float32, or a half type's tables) on the halves of one packed tensor, in a caller's
    graph: the backward writes the packed gradient itself (two half gradients would be concatenated by the
    caller's graph, a copy of both)."""

    @staticmethod
    def forward(ctx, key, packed, value_first):
        ctx.key, ctx.value_first = key, value_first
        ctx.save_for_backward(packed)
        return _TRACED[key][3][0](packed, value_first)

    @staticmethod
    def backward(ctx, go):
        (packed,) = ctx.saved_tensors
        return None, _TRACED[ctx.key][3][1](go, packed, ctx.value_first), None


# ------------------------------------------------- inside torch.compile: extra inputs, tensor parameters

# (entry, dtype, (name, float value or None for a tensor) per parameter, precision setting, tensor parameter
# names, the per-channel ones among them) -> (plan, forward functions, backward functions): the generated
# functions (`cpu.functions`) in the precisions the custom op computes in
_TRACED_INPUTS: dict[tuple, tuple[Plan, dict, dict]] = {}


@graph_ops.constant_result
def _prepare_inputs(
    name: str, dtype: torch.dtype, values: tuple, settings: tuple, tensors: tuple, vector: tuple
) -> bool:
    """The plan of a traced call with extra inputs or tensor parameters (dynamo runs this, once per key,
    outside the graph): the generated functions the custom op runs, at the custom op's precision."""
    key = (name, dtype, values, settings, tensors, vector)
    if key not in _TRACED_INPUTS:
        from nonlin.registry import spec as get_spec

        s = get_spec(name)
        floats = tuple(sorted((k, float(v)) for k, v in values if k not in tensors))
        at_defaults = not tensors and dict(floats) == s.defaults()
        p = plan(s, "plain", floats, tensors, vector)
        computes = [
            cpu.compute_name(dtype, state.fp32_compute_for(name, _CPU, pass_, at_defaults), at_defaults)
            for pass_ in ("forward", "backward")
        ]
        vec_convert.install()  # (as `_prepare`)
        _TRACED_INPUTS[key] = (p, *(cpu.functions(p, c, False) for c in computes))
    return True


def _traced_with_inputs(spec: Spec, main, extra, params: Mapping[str, Any], tensors: tuple[str, ...]) -> torch.Tensor:
    """`traced` for a call with extra inputs (kappa_swiglu's c) or tensor parameters (a module's learned
    ones): the generated functions at the precision the custom op computes them in, their gradients as it
    gives them (per-channel parameters summed to their shape)."""
    values = tuple((k, None if k in tensors else v) for k, v in params.items())
    vector = tuple(k for k in tensors if params[k].numel() != 1)
    key = (spec.name, main[0].dtype, values, state.settings(), tensors, vector)
    _prepare_inputs(*key)
    return _TracedInputs.apply(key, len(main), len(extra), *main, *extra, *(params[k] for k in tensors))


class _TracedInputs(torch.autograd.Function):
    """Inputs: the main inputs, the extra inputs, the tensor parameters (`_traced_with_inputs`' key's order)."""

    @staticmethod
    def forward(ctx, key, n_main, n_extra, *inputs):
        ctx.key, ctx.n_main, ctx.n_extra = key, n_main, n_extra
        ctx.save_for_backward(*inputs)
        fns = _TRACED_INPUTS[key][1]
        return cpu.call_forward(fns, *_split_inputs(key, n_main, n_extra, inputs), None)

    @staticmethod
    def backward(ctx, go):
        p, _, fns = _TRACED_INPUTS[ctx.key]
        mains, extras, tparams = _split_inputs(ctx.key, ctx.n_main, ctx.n_extra, ctx.saved_tensors)
        mg, dext, pg = cpu.call_backward(p, fns, go, mains, extras, tparams, None)
        return (None, None, None, *_ops.input_gradients(p, ",".join(ctx.key[4]), extras, mg, dext, pg))


def _split_inputs(key: tuple, n_main: int, n_extra: int, inputs) -> tuple[list, list, list]:
    """(main inputs, the plan's extras, its single-value parameters) of `_TracedInputs`' inputs."""
    p = _TRACED_INPUTS[key][0]
    rest = n_main + n_extra
    extras, tparams = _ops.plan_inputs(p, ",".join(key[4]), list(inputs[n_main:rest]), list(inputs[rest:]))
    return list(inputs[:n_main]), extras, tparams
