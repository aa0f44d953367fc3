"""torch.library custom ops for the fused paths, with fake implementations and autograd.

``nonlin::pointwise`` / ``nonlin::gated`` compute the forward; ``nonlin::pointwise_backward`` /
``nonlin::gated_backward`` the gradients from the saved inputs (nothing else is saved), or, for entries
that declare an exact derivative from the output, from the saved output (mode "output"). The entry and
its float parameters travel as a name, comma-joined parameter names and a list of values, so one op serves the whole catalog; inside, the
device picks the implementation: Triton on CUDA (and on CPU under the interpreter when asked), the
inductor-compiled functions on CPU. torch.compile sees these ops as single nodes (no graph break) and
torch.export records them.
"""

from __future__ import annotations

import functools

import torch
from torch import Tensor

from nonlin.autograd import _sum_to, round_to
from nonlin.kernels import cpu, state
from nonlin.kernels.codegen import plan
from nonlin.registry import spec as get_spec


def _names(joined: str) -> list[str]:
    # Parameter names travel as one comma-joined string (custom op schemas have no list of str).
    return joined.split(",") if joined else []


def _plan(name: str, mode: str, fnames: str, fvals: list[float], tnames: str, tparams: list[Tensor]):
    floats = tuple(sorted(zip(_names(fnames), fvals, strict=True)))
    names = tuple(_names(tnames))
    # A tensor parameter with more than one value (per channel) is read per element, like an extra input.
    vector = tuple(n for n, t in zip(names, tparams, strict=True) if t.numel() != 1)
    return plan(get_spec(name), mode, floats, names, vector)


def plan_inputs(p, tnames: str, extras: list[Tensor], tparams: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
    """(extras followed by the per-channel parameters, the single-value parameters), as the plan reads them."""
    by_name = dict(zip(_names(tnames), tparams, strict=True))
    return [*extras, *(by_name[n] for n in p.vparams)], [by_name[n] for n in p.tparams]


def _unalias(out: Tensor, *inputs: Tensor) -> Tensor:
    # A custom op's output may not share storage with an input (identity in float64 would).
    return _distinct([out], list(inputs))[0]


@functools.lru_cache(maxsize=1024)
def _at_defaults(name: str, fnames: str, fvals: tuple[float, ...], tnames: str) -> bool:
    """Whether a call's parameters are the entry's defaults, the values kernels/precision.py's float32-math
    lists were measured at. Tensor parameters count as other values: reading one would synchronise a device,
    and cannot be done while torch.compile traces."""
    return not tnames and dict(zip(_names(fnames), fvals, strict=True)) == get_spec(name).defaults()


def _forward(p, mains, extras, tparams, packed: Tensor | None, tnames: str, at_defaults: bool) -> Tensor:
    extras, tparams = plan_inputs(p, tnames, extras, tparams)
    backend = state.backend_for(mains[0].device)
    fp32 = state.fp32_compute_for(p.spec.name, mains[0].device, "forward", at_defaults)
    if backend == "triton":
        from nonlin.kernels import triton_launch

        return triton_launch.forward(p, mains, extras, tparams, fp32)
    compute = cpu.compute_name(mains[0].dtype, fp32, at_defaults)
    out = cpu.forward(p, mains, extras, tparams, compute, packed, backend == "inductor")
    return _unalias(out.contiguous(), *mains, *extras)


def _backward(p, go, mains, extras, tparams, packed, tnames: str, at_defaults: bool):
    inputs = [go, *mains, *extras, *tparams]
    extras, tparams = plan_inputs(p, tnames, extras, tparams)
    backend = state.backend_for(mains[0].device)
    fp32 = state.fp32_compute_for(p.spec.name, mains[0].device, "backward", at_defaults)
    if backend == "triton":
        from nonlin.kernels import triton_launch

        mg, dext, pg = triton_launch.backward(p, go, mains, extras, tparams, fp32, packed)
    else:
        compute = cpu.compute_name(mains[0].dtype, fp32, at_defaults)
        mg, dext, pg = cpu.backward(p, go, mains, extras, tparams, compute, packed, backend == "inductor")
    return _distinct(input_gradients(p, tnames, extras, mg, dext, pg), inputs)


def input_gradients(p, tnames: str, extras: list[Tensor], mg, dext, pg) -> list[Tensor]:
    """A backward's results (main, extra-input and single-value parameter gradients, as `cpu.backward` gives
    them) in the op's input order: the main inputs, the extra inputs, the tensor parameters by `tnames`.
    `extras`: the plan's extras (`plan_inputs`'s first list)."""
    n_spec = len(p.diff_extras) - len(p.vparams)  # kappa_swiglu's c; the rest are per-channel parameters
    ext = {n: t for n, t in zip(p.extras, extras, strict=True)}
    # Per-channel parameter gradients: the per-element terms summed to the parameter's shape by torch (fixed
    # order, deterministic), as autograd reduces a broadcast parameter in the eager path.
    dext = [round_to(_sum_to(g, ext[n].shape), ext[n].dtype) for g, n in zip(dext, p.diff_extras, strict=True)]
    grads = dict(zip(p.tparams, pg, strict=True)) | dict(zip(p.vparams, dext[n_spec:], strict=True))
    return [*mg, *dext[:n_spec], *(grads[n] for n in _names(tnames))]


def _distinct(outs: list[Tensor], inputs: list[Tensor]) -> list[Tensor]:
    """Outputs of a custom op may not share storage with its inputs or each other (two gradients can be
    the same expression, parameter gradients views of one reduction): copy the ones that do."""
    seen = {t.untyped_storage().data_ptr() for t in inputs if t.numel()}
    result = []
    for t in outs:
        ptr = t.untyped_storage().data_ptr() if t.numel() else None
        if ptr is not None and ptr in seen:
            t = t.clone()
            ptr = t.untyped_storage().data_ptr()
        seen.add(ptr)
        result.append(t)
    return result


# ----------------------------------------------------------------------------------------- pointwise


@torch.library.custom_op("nonlin::pointwise", mutates_args=())
def pointwise(
    x: Tensor,
    extras: list[Tensor],
    tparams: list[Tensor],
    name: str,
    mode: str,
    fnames: str,
    fvals: list[float],
    tnames: str,
) -> Tensor:
    p = _plan(name, mode, fnames, fvals, tnames, tparams)
    return _forward(p, [x], extras, tparams, None, tnames, _at_defaults(name, fnames, tuple(fvals), tnames))


@pointwise.register_fake
def _(x, extras, tparams, name, mode, fnames, fvals, tnames):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


@torch.library.custom_op("nonlin::pointwise_backward", mutates_args=())
def pointwise_backward(
    go: Tensor,
    x: Tensor,
    extras: list[Tensor],
    tparams: list[Tensor],
    name: str,
    mode: str,
    fnames: str,
    fvals: list[float],
    tnames: str,
) -> list[Tensor]:
    p = _plan(name, mode, fnames, fvals, tnames, tparams)
    return _backward(p, go, [x], extras, tparams, None, tnames, _at_defaults(name, fnames, tuple(fvals), tnames))


@pointwise_backward.register_fake
def _(go, x, extras, tparams, name, mode, fnames, fvals, tnames):
    return [torch.empty(x.shape, dtype=x.dtype, device=x.device), *(torch.empty_like(t) for t in tparams)]


def _no_grad(values: list[float]):
    # register_autograd compares the structure of backward's return with the inputs': an empty list is a
    # list there, a non-empty list of floats a single leaf.
    return None if values else []


@functools.lru_cache(maxsize=1024)
def _output_is_exact(name: str, fnames: str, fvals: tuple[float, ...], dtype: torch.dtype) -> bool:
    """Whether the entry's declared derivative from the output is exact for these parameters and dtype: it
    is declared, and every constant it compares the output with is representable in `dtype`."""
    s = get_spec(name)
    if s.derivative_from_output is None:
        return False
    consts = s.output_constants(**dict(zip(_names(fnames), fvals, strict=True)))
    return all(torch.tensor(c, dtype=torch.float64).to(dtype).item() == c for c in consts)


def saves_output(name: str, mode: str, fnames: str, fvals, n_extras: int, n_tparams: int, dtype) -> bool:
    """The fused pointwise op saves its output instead of its input (see Spec.derivative_from_output)."""
    return mode == "plain" and not n_extras and not n_tparams and _output_is_exact(name, fnames, tuple(fvals), dtype)


def _pw_setup(ctx, inputs, output):
    x, extras, tparams, *meta = inputs
    name, mode, fnames, fvals, _ = meta
    ctx.from_output = saves_output(name, mode, fnames, fvals, len(extras), len(tparams), x.dtype)
    if ctx.from_output:
        # The output is usually kept anyway (the next layer's input), so saving it costs no memory; as with
        # torch.relu, modifying it in place before backward is then an error (autograd's version check).
        ctx.save_for_backward(output)
    else:
        ctx.save_for_backward(x, *extras, *tparams)
    ctx.n_extras, ctx.meta, ctx.settings = len(extras), meta, state.settings()


def _eager_grads(name: str, mode: str, fnames, fvals, tnames, mains, extras, tparams, go):
    """Gradients through the eager path, differentiable: for double backward (create_graph=True), which
    the fused backward does not support, so the result equals the eager path's to the last bit."""
    from nonlin.autograd import _SpecFunction

    s = get_spec(name)
    body, deriv = (s.eval_forward, s.eval_derivative) if mode == "eval" else (s.forward, s.derivative)
    floats = dict(zip(_names(fnames), fvals, strict=True))
    tn = tuple(_names(tnames))
    y = _SpecFunction.apply(s, body, deriv, len(mains), floats, tn, *mains, *extras, *tparams)
    leaves = [*mains, *extras, *tparams]
    want = [t for t in leaves if t.requires_grad]
    got = iter(torch.autograd.grad(y, want, go, create_graph=True, allow_unused=True))
    return [next(got) if t.requires_grad else None for t in leaves]


def _from_output_grad(ctx, go):
    """d/dx from the saved output: the fused backward, or (create_graph=True) the eager formula in float64,
    differentiable in `go`, so first derivatives equal the eager path's bits (the piecewise-linear entries
    that declare it have zero second derivative in x, as their eager backward gives)."""
    (y,) = ctx.saved_tensors
    name, _, fnames, fvals, tnames = ctx.meta
    if torch.is_grad_enabled():
        from nonlin.autograd import round_to
        from nonlin.ops import TORCH

        floats = dict(zip(_names(fnames), fvals, strict=True))
        d = get_spec(name).derivative_from_output(TORCH, y.to(torch.float64), **floats)
        gx = round_to(go.to(torch.float64) * d, y.dtype)
    else:
        with state.pinned(*ctx.settings):
            (gx,) = torch.ops.nonlin.pointwise_backward(go, y, [], [], name, "output", fnames, fvals, tnames)
    return gx, [], [], None, None, None, _no_grad(fvals), None


def _pw_backward(ctx, go):
    if ctx.from_output:
        return _from_output_grad(ctx, go)
    saved = ctx.saved_tensors
    x, extras, tparams = saved[0], list(saved[1 : 1 + ctx.n_extras]), list(saved[1 + ctx.n_extras :])
    if torch.is_grad_enabled():  # create_graph=True: double backward through the eager formulas
        name, mode, fnames, fvals, tnames = ctx.meta
        grads = _eager_grads(name, mode, fnames, fvals, tnames, [x], extras, tparams, go)
        return grads[0], [None] * len(extras), grads[1 + len(extras) :], None, None, None, _no_grad(fvals), None
    with state.pinned(*ctx.settings):
        grads = torch.ops.nonlin.pointwise_backward(go, x, extras, tparams, *ctx.meta)
    gx, pg = grads[0], list(grads[1:])
    return gx, [None] * len(extras), pg, None, None, None, _no_grad(ctx.meta[3]), None


pointwise.register_autograd(_pw_backward, setup_context=_pw_setup)


# ------------------------------------------------------------------------------------------- gated


def _mains(gv: list[Tensor]) -> tuple[list[Tensor], Tensor | None]:
    if len(gv) == 1:
        packed = gv[0]
        d = packed.shape[-1] // 2
        return [packed[..., :d], packed[..., d:]], packed
    return list(gv), None


@torch.library.custom_op("nonlin::gated", mutates_args=())
def gated(
    gv: list[Tensor],
    extras: list[Tensor],
    tparams: list[Tensor],
    name: str,
    fnames: str,
    fvals: list[float],
    tnames: str,
) -> Tensor:
    mains, packed = _mains(gv)
    p = _plan(name, "plain", fnames, fvals, tnames, tparams)
    return _forward(p, mains, extras, tparams, packed, tnames, _at_defaults(name, fnames, tuple(fvals), tnames))


@gated.register_fake
def _(gv, extras, tparams, name, fnames, fvals, tnames):
    shape = (*gv[0].shape[:-1], gv[0].shape[-1] // 2) if len(gv) == 1 else gv[0].shape
    return torch.empty(shape, dtype=gv[0].dtype, device=gv[0].device)


@torch.library.custom_op("nonlin::gated_backward", mutates_args=())
def gated_backward(
    go: Tensor,
    gv: list[Tensor],
    extras: list[Tensor],
    tparams: list[Tensor],
    name: str,
    fnames: str,
    fvals: list[float],
    tnames: str,
) -> list[Tensor]:
    mains, packed = _mains(gv)
    p = _plan(name, "plain", fnames, fvals, tnames, tparams)
    return _backward(p, go, mains, extras, tparams, packed, tnames, _at_defaults(name, fnames, tuple(fvals), tnames))


@gated_backward.register_fake
def _(go, gv, extras, tparams, name, fnames, fvals, tnames):
    s = get_spec(name)
    mains = [torch.empty(t.shape, dtype=t.dtype, device=t.device) for t in gv]
    ext = [torch.empty_like(t) for t in extras[: len(s.extra_inputs)]]
    return [*mains, *ext, *(torch.empty_like(t) for t in tparams)]


def _g_setup(ctx, inputs, output):
    gv, extras, tparams, *meta = inputs
    ctx.save_for_backward(*gv, *extras, *tparams)
    ctx.n = (len(gv), len(extras))
    ctx.meta, ctx.settings = meta, state.settings()


def _g_backward(ctx, go):
    saved = ctx.saved_tensors
    ng, ne = ctx.n
    gv, extras, tparams = list(saved[:ng]), list(saved[ng : ng + ne]), list(saved[ng + ne :])
    if torch.is_grad_enabled():  # create_graph=True: double backward through the eager formulas
        name, fnames, fvals, tnames = ctx.meta
        mains, packed = _mains(gv)
        grads = _eager_grads(name, "plain", fnames, fvals, tnames, mains, extras, tparams, go)
        if packed is not None:
            zero = torch.zeros_like
            dg, dv = (g if g is not None else zero(m) for g, m in zip(grads[:2], mains, strict=True))
            main_grads = [torch.cat([dg, dv], dim=-1)]
        else:
            main_grads = grads[:2]
        return main_grads, grads[2 : 2 + ne], grads[2 + ne :], None, None, _no_grad(fvals), None
    with state.pinned(*ctx.settings):
        grads = torch.ops.nonlin.gated_backward(go, gv, extras, tparams, *ctx.meta)
    dext = list(grads[ng : ng + ne]) + [None] * (ne - len(grads[ng : ng + ne]) if ne else 0)
    return list(grads[:ng]), dext[:ne], list(grads[ng + ne :]), None, None, _no_grad(ctx.meta[2]), None


gated.register_autograd(_g_backward, setup_context=_g_setup)
