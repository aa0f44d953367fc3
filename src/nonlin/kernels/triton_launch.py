"""Launch the generated Triton kernels: layout of the inputs, block sizes, parameter-gradient reduction.

Main inputs are addressed as [rows, d] with a row stride and unit column stride: a packed [..., 2d]
tensor is read in place as its two halves, split tensors as themselves; anything else is made contiguous
once. Extra inputs (kappa_swiglu's c) are broadcast views read with their own strides. Outputs and
gradients are new tensors; a packed input gets a packed gradient written by the kernel directly.
"""

from __future__ import annotations

import functools
import os

import torch

from nonlin.kernels.codegen import Plan, load, triton_source

_DTYPE_NAME = {torch.float64: "float64", torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


@functools.lru_cache(maxsize=1024)
def kernels(p: Plan, compute: str, io: str, wide: bool):
    src = triton_source(p, compute, io, wide)
    ns = load(src, f"{p.spec.name}-{compute}-{io}")
    return ns["fwd"], ns["bwd"], src


def _block(n: int) -> tuple[int, int]:
    """(BLOCK, num_warps). The interpreter pays ~1 ms per program, so it takes big blocks."""
    if interpreting():
        return max(16, min(1 << 16, 1 << max(0, (n - 1).bit_length()))), 4
    return 1024, 4


def rows(t: torch.Tensor, d: int) -> tuple[torch.Tensor, int]:
    """`t` as [rows, d] with unit column stride (a view where possible) and its row stride."""
    if t.dim() == 0:
        t = t.reshape(1)
    if t.stride(-1) != 1 and t.numel() > 1:
        t = t.contiguous()
    try:
        v = t.view(-1, d)
    except RuntimeError:
        v = t.contiguous().view(-1, d)
    return v, (v.stride(0) if v.shape[0] > 1 else d)


def _broadcast_rows(t: torch.Tensor, shape: torch.Size, d: int) -> tuple[torch.Tensor, int, int]:
    e = t.expand(shape)
    try:
        v = e.view(-1, d) if e.dim() else e.reshape(1, 1).expand(1, d)
    except RuntimeError:
        v = e.contiguous().view(-1, d)
    return v, (v.stride(0) if v.shape[0] > 1 else d), v.stride(1)


def _compute(dtype: torch.dtype, fp32_compute: str) -> torch.dtype:
    if dtype in (torch.float16, torch.bfloat16):
        return torch.float32
    if dtype == torch.float32:
        return torch.float64 if fp32_compute == "float64" else torch.float32
    return torch.float64


def _prep(p: Plan, mains, extras, shape: torch.Size):
    # Gated inputs are rows of the gate width. Pointwise inputs are one flat row, unless extra inputs or
    # per-channel parameters come along: then rows of the last dim, so that a [C] parameter of a [..., C]
    # input is read with strides (0, 1) instead of being expanded to the input's size in memory.
    rowwise = p.kind.value == "gated" or bool(extras)
    d = shape[-1] if (rowwise and len(shape) and shape[-1]) else max(1, int(torch.Size(shape).numel()))
    n = int(torch.Size(shape).numel())
    views = [rows(t, d) for t in mains]
    ext = [_broadcast_rows(t, shape, d) for t in extras]
    return n, d, views, ext


def _args(views, ext):
    a = []
    for v, rs in views:
        a += [v, rs, 1]
    for v, rs, cs in ext:
        a += [v, rs, cs]
    return a


def _params(tparams, cd, device) -> torch.Tensor:
    if not tparams:
        return torch.zeros(1, dtype=cd, device=device)
    return torch.stack([t.detach().reshape(()).to(cd) for t in tparams])


def forward(p: Plan, mains, extras, tparams, fp32_compute: str) -> torch.Tensor:
    """y = body(mains, extras, params) as a new contiguous tensor of the main inputs' shape and dtype."""
    x0 = mains[0]
    shape = x0.shape
    cd = _compute(x0.dtype, fp32_compute)
    n, d, views, ext = _prep(p, mains, extras, shape)
    y = torch.empty(shape, dtype=x0.dtype, device=x0.device)
    if n == 0:
        return y
    wide = 2 * n + 2 * d >= 2**31 or any(v.stride(0) * v.shape[0] >= 2**31 for v, _ in views)
    fwd, _, _ = kernels(p, _DTYPE_NAME[cd], _DTYPE_NAME[x0.dtype], bool(wide))
    block, warps = _block(n)
    grid = (triton_cdiv(n, block),)
    fwd[grid](*_args(views, ext), _params(tparams, cd, x0.device), y, n, d, BLOCK=block, num_warps=warps)
    return y


def backward(p: Plan, go, mains, extras, tparams, fp32_compute: str, packed: torch.Tensor | None):
    """Gradients: (main grads..., diff-extra grads..., param grads...). With `packed` (the [..., 2d] input
    the mains are halves of), the main gradients come back as one packed tensor."""
    x0 = mains[0]
    shape = x0.shape
    cd = _compute(x0.dtype, fp32_compute)
    n, d, views, ext = _prep(p, mains, extras, shape)
    go = go.expand(shape).contiguous()
    if packed is not None:
        gp = torch.empty(packed.shape, dtype=packed.dtype, device=packed.device)
        gv = gp.view(-1, 2 * d)
        douts = [(gv[:, :d], 2 * d), (gv[:, d:], 2 * d)]
    else:
        douts = [(torch.empty(shape, dtype=t.dtype, device=t.device), None) for t in mains]
        douts = [(t.view(-1, d), d) for t, _ in douts]
    dext = [torch.empty(shape, dtype=cd, device=x0.device) for _ in p.diff_extras]
    block, warps = _block(n)
    nprog = triton_cdiv(n, block) if n else 0
    dparams = torch.zeros((max(nprog, 1), max(len(p.tparams), 1)), dtype=cd, device=x0.device)
    if n:
        wide = 2 * n + 2 * d >= 2**31 or any(v.stride(0) * v.shape[0] >= 2**31 for v, _ in views)
        _, bwd, _ = kernels(p, _DTYPE_NAME[cd], _DTYPE_NAME[x0.dtype], bool(wide))
        dargs = []
        for t, rs in douts:
            dargs += [t, rs]
        dargs += dext
        bwd[(nprog,)](
            *_args(views, ext),
            _params(tparams, cd, x0.device),
            go,
            *dargs,
            dparams,
            n,
            d,
            BLOCK=block,
            num_warps=warps,
        )
    main_grads = [gp] if packed is not None else [t.view(shape) for t, _ in douts]
    psums = dparams.sum(0)
    pgrads = [psums[i].reshape(t.shape).to(t.dtype) for i, t in enumerate(tparams)]
    return main_grads, dext, pgrads


def triton_cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b
