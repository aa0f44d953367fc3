"""Attention score normalizers: scores -> weights along `dim`, with an optional boolean mask.

Mask convention: True = the key takes part (as SDPA's boolean attn_mask). Masked keys get weight 0; a
row with no key left gets all zeros, never NaN. A score of -inf is a masked key too (an additive mask), so a
row whose kept scores are all -inf is a fully masked row: zeros, as a boolean mask gives and as torch's SDPA
(``torch._safe_softmax``) gives, not the NaN of ``torch.softmax``. An empty `dim` gives the empty result, as
``torch.softmax`` does. An entry whose weights fall as scores rise (softmin: property ``negated_scores``) is
masked by +inf instead (``spec.masking_score``). Each entry has a torch implementation (computed in the
compute dtype, moved so that `dim` is last) and an independent row-wise mpmath reference: the sparse
maps' reference finds the threshold by bisection, not by the sort-based algorithm it checks.
"""

from __future__ import annotations

import math

import mpmath
import torch
from mpmath import mp

from nonlin.catalog._build import Alias, P, Paper, normalizer, props, torch_names

# ---------------------------------------------------------------------------- torch implementations
# Each takes scores [..., n] (dim already last, compute dtype) and keep [..., n] (bool) and returns
# weights [..., n]. Rows with no kept key are handled by the caller.


def _softmax(s, keep, tau=1.0):
    return torch.softmax(torch.where(keep, s / tau, -torch.inf), dim=-1)


def _sigmoid_attn(s, keep, bias=None):
    b = -math.log(s.shape[-1]) if bias is None else bias
    return torch.where(keep, torch.sigmoid(s + b), 0.0)


def _relu_attn(s, keep):
    return torch.where(keep, torch.relu(s), 0.0) / s.shape[-1]


def _relu2_attn(s, keep):
    return torch.where(keep, torch.relu(s) ** 2, 0.0) / s.shape[-1]


class _SparsemaxFn(torch.autograd.Function):
    """Sort-based sparsemax (Martins & Astudillo 2016): p = max(z - tau, 0) with sum p = 1."""

    @staticmethod
    def forward(ctx, z):
        # Shift invariance in floating point: with the row maximum at 0 the cumsum holds no large offset
        # (1e15 + [0.3, 0.1, -0.2] would lose the simplex; [1e300, -1e300, 0] would give zeros).
        z = z - z.amax(-1, keepdim=True)  # the caller guarantees one finite key per row
        zs, _ = torch.sort(z, dim=-1, descending=True)  # masked keys are -inf and sort last
        k = torch.arange(1, z.shape[-1] + 1, device=z.device, dtype=z.dtype)
        cssv = zs.cumsum(-1)
        support = (1.0 + k * zs > cssv) & torch.isfinite(zs)
        k_star = support.sum(-1, keepdim=True).clamp_min(1)
        tau = (cssv.gather(-1, k_star - 1) - 1.0) / k_star.to(z.dtype)
        p = torch.clamp_min(z - tau, 0.0)
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, g):
        (p,) = ctx.saved_tensors
        on = p > 0
        mean = (g * on).sum(-1, keepdim=True) / on.sum(-1, keepdim=True).clamp_min(1)
        return torch.where(on, g - mean, 0.0)


class _Entmax15Fn(torch.autograd.Function):
    """Exact sort-based 1.5-entmax (Peters, Niculae & Martins 2019): p = max(z/2 - tau, 0)^2, sum p = 1."""

    @staticmethod
    def forward(ctx, z):
        z = z / 2
        z = z - z.amax(-1, keepdim=True)
        zs, _ = torch.sort(z, dim=-1, descending=True)
        finite = torch.isfinite(zs)
        zf = torch.where(finite, zs, 0.0)
        k = torch.arange(1, z.shape[-1] + 1, device=z.device, dtype=z.dtype)
        mean = zf.cumsum(-1) / k
        mean_sq = (zf * zf).cumsum(-1) / k
        ss = k * (mean_sq - mean * mean)
        delta = (1.0 - ss) / k
        tau = mean - torch.sqrt(torch.clamp_min(delta, 0.0))
        support = (tau <= zs) & finite
        k_star = support.sum(-1, keepdim=True).clamp_min(1)
        tau_star = tau.gather(-1, k_star - 1)
        p = torch.clamp_min(z - tau_star, 0.0) ** 2
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, g):
        (p,) = ctx.saved_tensors
        # sqrt(p) with a zero derivative off the support, where p is locally constant (plain sqrt has an
        # infinite one at p = 0, and the double backward was 0 * inf = NaN on every partial support).
        on = p > 0
        s = torch.where(on, torch.sqrt(torch.where(on, p, 1.0)), 0.0)
        q = (s * g).sum(-1, keepdim=True) / s.sum(-1, keepdim=True).clamp_min(torch.finfo(p.dtype).tiny)
        return s * g - q * s


def _sparsemax(s, keep):
    return _SparsemaxFn.apply(torch.where(keep, s, -torch.inf))


def _entmax15(s, keep):
    return _Entmax15Fn.apply(torch.where(keep, s, -torch.inf))


class _HardmaxFn(torch.autograd.Function):
    """One-hot of the row maximum, ties split; piecewise constant, so its gradient is zero (not absent)."""

    @staticmethod
    def forward(ctx, s):
        top = s == s.amax(-1, keepdim=True)
        return top.to(s.dtype) / top.sum(-1, keepdim=True).to(s.dtype)

    @staticmethod
    def backward(ctx, g):
        return torch.zeros_like(g)


def _hardmax(s, keep):
    return _HardmaxFn.apply(torch.where(keep, s, -torch.inf))


# ---------------------------------------------------------------------------- mpmath references
def _kept(z, keep):
    # A -inf score is a masked key (see the module docstring).
    return [zi for zi, k in zip(z, keep, strict=True) if k and zi != -mpmath.inf]


def _bisect(fn, lo, hi, iters: int = 400):
    """Root of a decreasing fn on [lo, hi] by bisection at the working precision."""
    for _ in range(iters):
        mid = (lo + hi) / 2
        if fn(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= abs(hi) * mpmath.mpf(2) ** (-mp.prec - 4):
            break
    return (lo + hi) / 2


def _ref_softmax(z, keep, tau=1.0):
    kz = _kept(z, keep)
    if not kz:
        return [mpmath.mpf(0)] * len(z)
    top = max(kz)
    den = mpmath.fsum(mp.exp((zi - top) / tau) for zi in kz)
    return [mp.exp((zi - top) / tau) / den if k else mpmath.mpf(0) for zi, k in zip(z, keep, strict=True)]


def _ref_sigmoid_attn(z, keep, bias=None):
    b = -mp.log(len(z)) if bias is None else mpmath.mpf(bias)
    return [1 / (1 + mp.exp(-(zi + b))) if k else mpmath.mpf(0) for zi, k in zip(z, keep, strict=True)]


def _ref_relu_attn(z, keep):
    return [max(zi, 0) / len(z) if k else mpmath.mpf(0) for zi, k in zip(z, keep, strict=True)]


def _ref_relu2_attn(z, keep):
    return [max(zi, 0) ** 2 / len(z) if k else mpmath.mpf(0) for zi, k in zip(z, keep, strict=True)]


def _ref_threshold_map(z, keep, transform):
    """weights w_i = transform(z_i - tau) with sum w = 1, tau found by bisection (independent of sorting)."""
    kz = _kept(z, keep)
    if not kz:
        return [mpmath.mpf(0)] * len(z)
    top = max(kz)
    # Offsets from the maximum, exact (tau lies within len + 1 of it: at 1e300 the working precision could
    # not tell tau from the maximum; a -inf offset is a zero weight).
    d = [mpmath.fsub(zi, top, exact=True) if k and zi != -mpmath.inf else None for zi, k in zip(z, keep, strict=True)]
    kd = [di for di in d if di is not None]
    tau = _bisect(lambda t: mpmath.fsum(transform(di - t) for di in kd) - 1, mpmath.mpf(-len(kd) - 1), mpmath.mpf(0))
    return [mpmath.mpf(0) if di is None else transform(di - tau) for di in d]


def _ref_sparsemax(z, keep):
    return _ref_threshold_map(z, keep, lambda d: max(d, 0))


def _ref_entmax15(z, keep):
    return _ref_threshold_map([zi / 2 for zi in z], keep, lambda d: max(d, 0) ** 2)


def _ref_hardmax(z, keep):
    kz = _kept(z, keep)
    if not kz:
        return [mpmath.mpf(0)] * len(z)
    top = max(kz)
    count = sum(1 for zi in kz if zi == top)
    return [mpmath.mpf(1) / count if k and zi == top else mpmath.mpf(0) for zi, k in zip(z, keep, strict=True)]


# torch's softmax-family functions and modules: F.softmax(input, dim=None, _stacklevel=3, dtype=None) and
# nn.Softmax(dim=None).
_TORCH_DIM = dict(
    positional=("dim", "_stacklevel", "dtype"),
    module_positional=("dim",),
    module_defaults={"dim": None},
    note="torch's class (nn.Softmax(), nn.Softmin(), nn.LogSoftmax()) defaults to dim=None, torch's deprecated implicit choice (0 for 0-, 1- and "
    "3-d input, else 1) with its warning, and so does nonlin.get of the class name; the function's default dim is "
    "nonlin's -1 (the name is nonlin's own too): pass dim=None there for torch's rule",
)

SPECS = [
    normalizer(
        name="softmax",
        family="normalizers",
        formula=r"e^{s_i - \max s} / \sum_j e^{s_j - \max s}",
        summary="Softmax attention weights.",
        torch_impl=_softmax,
        reference_row=_ref_softmax,
        borrowed=(
            torch_names("softmax", "Softmax", **_TORCH_DIM),
            Alias(("Softmax2d",), "torch", defaults={"dim": -3}, ndim=(3, 4), note="softmax over channels, dim -3"),
            Alias(("jax.nn.softmax", "keras.activations.softmax"), "jax", args={"axis": "dim"}, positional=("axis",)),
        ),
        properties=props("row_normalized", "smooth"),
    ),
    normalizer(
        name="softmax_t",
        family="normalizers",
        formula=r"\mathrm{softmax}(s / \tau)",
        summary="Softmax with temperature tau.",
        torch_impl=_softmax,
        reference_row=_ref_softmax,
        params=(P("tau", 1.0, "temperature", low=0.0, low_inclusive=False),),
        aliases=("softmax_temperature",),
        properties=props("row_normalized", "smooth"),
    ),
    normalizer(
        name="sigmoid_attn",
        family="normalizers",
        formula=r"\sigma(s_i + b),\ b = -\log n",
        summary="Sigmoid attention: elementwise, no row normalisation; bias -log(n) by default.",
        torch_impl=_sigmoid_attn,
        reference_row=_ref_sigmoid_attn,
        params=(
            P(
                "bias",
                None,
                "additive bias b; None means -log(n) with n the size of dim (pass -log(train context) to match "
                "the paper's causal setup)",
            ),
        ),
        aliases=("sigmoid_attention",),
        properties=props("smooth"),
        paper=Paper("Theory, Analysis, and Best Practices for Sigmoid Self-Attention", "arXiv:2409.04431", 2024),
        source=(
            "arXiv:2409.04431 and the authors' configs: b = -log n with n the (training) sequence length, a fixed "
            "scalar; under a causal mask the paper keeps the full-length n, not the per-row count"
        ),
    ),
    normalizer(
        name="relu_attn",
        family="normalizers",
        formula=r"\max(0, s_i) / n",
        summary="ReLU attention divided by the sequence length n (size of dim).",
        torch_impl=_relu_attn,
        reference_row=_ref_relu_attn,
        properties=props("sparse_output"),
        paper=Paper("Replacing softmax with ReLU in Vision Transformers", "arXiv:2309.08586", 2023),
        source="arXiv:2309.08586: L^{-1} relu(q k^T / sqrt d), L the sequence length",
    ),
    normalizer(
        name="relu2_attn",
        family="normalizers",
        formula=r"\max(0, s_i)^2 / n",
        summary="Squared-ReLU attention divided by n (a variant: FLASH uses relu(s/n + b)^2).",
        torch_impl=_relu2_attn,
        reference_row=_ref_relu2_attn,
        properties=props("sparse_output"),
        confirmed=False,
        source=(
            "no source found for relu(s)^2/n exactly; the closest published form is FLASH/GAU (arXiv:2202.10447) "
            "relu(s/n + b)^2"
        ),
    ),
    normalizer(
        name="sparsemax",
        family="normalizers",
        formula=r"\arg\min_{p \in \Delta} \|p - s\|^2",
        summary="Euclidean projection onto the simplex (exact, sort-based); sparse weights.",
        torch_impl=_sparsemax,
        reference_row=_ref_sparsemax,
        aliases=("Sparsemax",),
        properties=props("row_normalized", "sparse_output"),
        paper=Paper("From Softmax to Sparsemax", "arXiv:1602.02068", 2016),
    ),
    normalizer(
        name="entmax15",
        family="normalizers",
        formula=r"p_i = \max(s_i/2 - \tau, 0)^2,\ \sum_i p_i = 1",
        summary="1.5-entmax (exact, sort-based): sparse, smoother than sparsemax.",
        torch_impl=_entmax15,
        reference_row=_ref_entmax15,
        aliases=("entmax_15", "entmax"),
        properties=props("row_normalized", "sparse_output"),
        paper=Paper("Sparse Sequence-to-Sequence Models", "arXiv:1905.05702", 2019),
        source="authors' code deep-spin/entmax (entmax15, sort-based threshold and its backward)",
    ),
    normalizer(
        name="hardmax",
        family="normalizers",
        formula=r"\mathbb{1}[s_i = \max s] / \#\{j: s_j = \max s\}",
        summary="One-hot argmax, ties split equally; its gradient is zero almost everywhere.",
        torch_impl=_hardmax,
        reference_row=_ref_hardmax,
        aliases=("argmax",),
        properties=props("row_normalized", "sparse_output"),
    ),
]
