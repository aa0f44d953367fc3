"""More attention-score normalizers: log-domain and sign-flipped softmax, sampled (Gumbel), sinks, alpha-entmax,
top-k restrictions, length-scaled and non-exponential maps.

Conventions as in ``nonlin.catalog.normalizers``: True in the mask = the key takes part; masked keys get weight
0 and a fully masked row all zeros, except log_softmax, whose log-weights are -inf there (the log of the zero
weight; exp(log_softmax) equals softmax on every row, masked or not). Each torch implementation runs in float64
with dim last; each reference is an independent row-wise mpmath computation (alpha-entmax: bisection on the
threshold at the working precision; top-k: an explicit sort of the kept keys).
"""

from __future__ import annotations

import math

import mpmath
import torch
from mpmath import mp

from nonlin.catalog._build import P, Paper, normalizer, props, torch_names
from nonlin.catalog.normalizers import _TORCH_DIM, _kept, _ref_softmax, _ref_sparsemax, _ref_threshold_map, _sparsemax

_NEG_INF = -math.inf


# ---------------------------------------------------------------------------- torch implementations
# Each takes scores z [..., n] (dim last, float64) and keep [..., n] (bool, at least one True per row).


def log_partition(z: torch.Tensor, keep: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(m, r) with log sum_kept e^z = m + log1p(r): m is the row maximum (taken at one index, so its gradient
    goes there only) and r the sum of the other kept e^(z - m). log1p keeps small r exact, where
    log(1 + r) (torch.logsumexp, torch.log_softmax) loses it: logsumexp([0, -30]) is 9.36e-14, and
    log(1 + 9.36e-14) is off by 1e-3 relative."""
    zm = torch.where(keep, z, _NEG_INF)
    top = zm.argmax(-1, keepdim=True)
    m = z.gather(-1, top)  # [..., 1]
    finite = torch.isfinite(m)
    shifted = torch.where(keep & finite, z - torch.where(finite, m, 0.0), _NEG_INF)
    e = torch.exp(shifted).scatter(-1, top, 0.0)
    return m, e.sum(-1, keepdim=True)


def _log_softmax(s, keep):
    m, r = log_partition(s, keep)
    return torch.where(keep, (s - m) - torch.log1p(r), _NEG_INF)


def _softmin(s, keep):
    return torch.softmax(torch.where(keep, -s, _NEG_INF), dim=-1)


def _gumbel_softmax(s, keep, tau=1.0, hard=False, eps=1e-10, gumbels=None, generator=None):
    if gumbels is None:  # as torch: G = -log(E), E ~ Exp(1)
        gumbels = -torch.empty_like(s).exponential_(generator=generator).log()
    y = torch.softmax(torch.where(keep, (s + gumbels) / tau, _NEG_INF), dim=-1)
    if not hard:
        return y
    one_hot = torch.zeros_like(y).scatter(-1, y.argmax(-1, keepdim=True), 1.0)
    return one_hot + (y - y.detach())  # value exactly one-hot; gradient the soft sample's


def _softmax_sink(s, keep, sink=0.0):
    b = torch.as_tensor(sink, dtype=s.dtype, device=s.device).expand(*s.shape[:-1], 1)
    return torch.softmax(torch.cat([torch.where(keep, s, _NEG_INF), b], dim=-1), dim=-1)[..., :-1]


def _softmax_1(s, keep):
    return _softmax_sink(s, keep, 0.0)


class _EntmaxBisectFn(torch.autograd.Function):
    """alpha-entmax by bisection on the threshold (Peters, Niculae & Martins 2019; the entmax package's
    entmax_bisect): p_i = [(alpha - 1) z_i - tau]_+^(1 / (alpha - 1)) with sum p = 1. Exact gradients for the
    scores and for alpha (derived from the implicit equation for tau)."""

    ITERS = 100  # the bracket is at most 1 wide: 100 halvings reach far below float64's resolution

    @staticmethod
    def forward(ctx, z, alpha):
        am1 = alpha - 1
        zs = z - z.amax(-1, keepdim=True)  # masked keys stay -inf
        x = zs * am1
        n = torch.isfinite(zs).sum(-1, keepdim=True).to(z.dtype)
        lo = torch.full_like(n, -1.0)  # f(lo) >= 0: the top term alone is 1
        hi = -((1 / n) ** am1)  # f(hi) <= 0: every term is at most 1/n
        inv = 1 / am1
        for _ in range(_EntmaxBisectFn.ITERS):
            mid = (lo + hi) / 2
            above = torch.clamp_min(x - mid, 0.0).pow(inv).sum(-1, keepdim=True) >= 1
            lo, hi = torch.where(above, mid, lo), torch.where(above, hi, mid)
        p = torch.clamp_min(x - (lo + hi) / 2, 0.0).pow(inv)
        p = p / p.sum(-1, keepdim=True)
        ctx.save_for_backward(p, z, alpha)  # z, not zs: double backward then sees every dependence
        return p

    @staticmethod
    def backward(ctx, go):
        p, z, alpha = ctx.saved_tensors
        zs = z - z.amax(-1, keepdim=True).detach()  # the shift cancels in the formulas below
        on = p > 0
        g = torch.where(on, p, 1.0).pow(2 - alpha) * on  # dp_i/dz_i on the support
        gsum = g.sum(-1, keepdim=True)
        dz = g * (go - (g * go).sum(-1, keepdim=True) / gsum)
        dalpha = None
        if ctx.needs_input_grad[1]:
            # dp_i/dalpha = (g_i (z_i - t) - p_i log p_i) / (alpha - 1), t fixed by sum_i dp_i/dalpha = 0.
            z_on = torch.where(on, zs, 0.0)
            plogp = torch.where(on, p * torch.log(torch.where(on, p, 1.0)), 0.0)
            t = ((g * z_on).sum(-1, keepdim=True) - plogp.sum(-1, keepdim=True)) / gsum
            dp = (g * (z_on - t) - plogp) / (alpha - 1)
            dalpha = (go * dp).sum(-1, keepdim=True).sum_to_size(alpha.shape)
        return dz, dalpha


def _alpha_entmax(s, keep, alpha=1.5):
    if not isinstance(alpha, torch.Tensor):
        if alpha == 1:
            return torch.softmax(torch.where(keep, s, _NEG_INF), dim=-1)
        alpha = torch.tensor(alpha, dtype=s.dtype, device=s.device)
    elif bool((alpha <= 1).any()):
        raise ValueError("alpha_entmax: a tensor alpha must be > 1 (alpha = 1 is softmax: pass the float 1.0)")
    return _EntmaxBisectFn.apply(torch.where(keep, s, _NEG_INF), alpha)


def _differential_attn(s, keep, lam=0.8, scores2=None):
    a1 = torch.softmax(torch.where(keep, s, _NEG_INF), dim=-1)
    a2 = torch.softmax(torch.where(keep, scores2, _NEG_INF), dim=-1)
    return a1 - lam * a2


def topk_keep(s: torch.Tensor, keep: torch.Tensor, k: float) -> torch.Tensor:
    """keep restricted to the k largest kept scores per row; scores tied with the k-th largest stay (as
    x-transformers' sparse_topk masks only scores below the k-th value). Rows with k or fewer keys keep all."""
    kk = min(int(k), s.shape[-1])
    kth = torch.topk(torch.where(keep, s, _NEG_INF), kk, dim=-1).values[..., -1:]
    return keep & (s >= kth)


def _topk_softmax(s, keep, k=8.0):
    return torch.softmax(torch.where(topk_keep(s, keep, k), s, _NEG_INF), dim=-1)


def _topk_sparsemax(s, keep, k=8.0):
    return _sparsemax(s, topk_keep(s, keep, k))


def _ssmax(z, keep, s=0.43):
    n = keep.sum(-1, keepdim=True).to(z.dtype)  # the keys this query sees (a causal row: its position + 1)
    return torch.softmax(torch.where(keep, (s * torch.log(n)) * z, _NEG_INF), dim=-1)


def _stablemax(s, keep):
    # s(x) = x + 1 (x >= 0), 1 / (1 - x) (x < 0); both branches evaluated on safe inputs so gradients stay finite.
    pos = s >= 0
    t = torch.where(pos, torch.where(pos, s, 0.0) + 1, 1 / (1 - torch.where(pos, 0.0, s)))
    t = torch.where(keep, t, 0.0)
    return t / t.sum(-1, keepdim=True)


def _softpick(s, keep, eps=1e-8):
    # The reference code scales by e^-m (m the row maximum) and adds eps to the scaled sum: the denominator is
    # sum |e^x - 1| + eps e^m. Here numerator and denominator are scaled by e^-M, M = max(m, 0) (no overflow),
    # and e^x - 1 is taken as expm1(x) (x <= 0) or e^x (1 - e^-x) (x > 0): no cancellation near 0.
    sk = torch.where(keep, s, 0.0)
    m = torch.where(keep, s, _NEG_INF).amax(-1, keepdim=True)
    big = torch.clamp_min(m, 0.0)
    pos = sk > 0
    t = torch.where(
        pos,
        torch.exp(torch.where(pos, sk, 0.0) - big) * -torch.expm1(-torch.where(pos, sk, 1.0)),
        torch.expm1(torch.where(pos, 0.0, sk)) * torch.exp(-big),
    )
    t = torch.where(keep, t, 0.0)
    den = t.abs().sum(-1, keepdim=True) + eps * torch.exp(m - big)
    w = torch.clamp_min(t, 0.0) / torch.where(den > 0, den, 1.0)
    return w


# ---------------------------------------------------------------------------- torch's own, for comparison
def _masked(op, fill=_NEG_INF):
    """torch's op with the mask applied as torch users do: -inf (softmin: +inf) at the masked keys."""

    def f(scores, dim=-1, mask=None):
        return op(scores if mask is None else scores.masked_fill(~mask, fill), dim=dim)

    return f


# ---------------------------------------------------------------------------- mpmath references
def _zeros(z):
    return [mpmath.mpf(0)] * len(z)


def _ref_log_softmax(z, keep):
    kz = _kept(z, keep)
    if not kz:
        return [mpmath.mpf("-inf")] * len(z)
    top = max(kz)
    lse = top + mp.log(mpmath.fsum(mp.exp(zi - top) for zi in kz))
    return [zi - lse if k else mpmath.mpf("-inf") for zi, k in zip(z, keep, strict=True)]


def _ref_softmin(z, keep):
    return _ref_softmax([-zi for zi in z], keep)


def _ref_gumbel_softmax(z, keep, tau=1.0, hard=False, eps=1e-10, gumbels=None):
    if gumbels is None:
        raise ValueError("gumbel_softmax's reference needs its noise row: gumbels=[...]")
    y = _ref_softmax([zi + gi for zi, gi in zip(z, gumbels, strict=True)], keep, tau)
    if not hard or not any(keep):
        return y
    best = max(range(len(z)), key=lambda i: (keep[i], y[i], -i))  # the first maximum, as torch.argmax
    return [mpmath.mpf(1) if i == best else mpmath.mpf(0) for i in range(len(z))]


def _ref_softmax_sink(z, keep, sink=0.0):
    kz = _kept(z, keep)
    if not kz:
        return _zeros(z)
    b = mpmath.mpf(sink)
    top = max([*kz, b])
    den = mpmath.fsum(mp.exp(zi - top) for zi in kz) + mp.exp(b - top)
    return [mp.exp(zi - top) / den if k else mpmath.mpf(0) for zi, k in zip(z, keep, strict=True)]


def _ref_softmax_1(z, keep):
    return _ref_softmax_sink(z, keep, 0.0)


def _ref_alpha_entmax(z, keep, alpha=1.5):
    a = mpmath.mpf(alpha)
    if a == 1:
        return _ref_softmax(z, keep)
    inv = 1 / (a - 1)
    return _ref_threshold_map([zi * (a - 1) for zi in z], keep, lambda d: max(d, 0) ** inv)


def _ref_differential_attn(z, keep, lam=0.8, scores2=None):
    a1, a2 = _ref_softmax(z, keep), _ref_softmax(scores2, keep)
    return [u - mpmath.mpf(lam) * v for u, v in zip(a1, a2, strict=True)]


def _ref_topk_keep(z, keep, k):
    kz = sorted(_kept(z, keep), reverse=True)
    if not kz:
        return keep
    kth = kz[min(int(k), len(kz)) - 1]
    return [k_ and zi >= kth for zi, k_ in zip(z, keep, strict=True)]


def _ref_topk_softmax(z, keep, k=8.0):
    return _ref_softmax(z, _ref_topk_keep(z, keep, k))


def _ref_topk_sparsemax(z, keep, k=8.0):
    return _ref_sparsemax(z, _ref_topk_keep(z, keep, k))


def _ref_ssmax(z, keep, s=0.43):
    n = sum(1 for k in keep if k)
    if not n:
        return _zeros(z)
    scale = mpmath.mpf(s) * mp.log(n)
    return _ref_softmax([scale * zi for zi in z], keep)


def _ref_stablemax(z, keep):
    t = [(zi + 1 if zi >= 0 else 1 / (1 - zi)) if k else mpmath.mpf(0) for zi, k in zip(z, keep, strict=True)]
    den = mpmath.fsum(t)
    return [ti / den if den else mpmath.mpf(0) for ti in t]


def _ref_softpick(z, keep, eps=1e-8):
    kz = _kept(z, keep)
    if not kz:
        return _zeros(z)
    t = [mp.expm1(zi) if k else mpmath.mpf(0) for zi, k in zip(z, keep, strict=True)]
    den = mpmath.fsum(abs(ti) for ti in t) + mpmath.mpf(eps) * mp.exp(max(kz))
    return [max(ti, 0) / den if den else mpmath.mpf(0) for ti in t]


SPECS = [
    normalizer(
        name="log_softmax",
        family="normalizers",
        formula=r"s_i - \log \sum_j e^{s_j}",
        summary="Log-softmax: log-weights; masked keys and fully masked rows give -inf (exp gives softmax).",
        torch_impl=_log_softmax,
        reference_row=_ref_log_softmax,
        borrowed=(torch_names("log_softmax", "LogSoftmax", **_TORCH_DIM),),
        properties=props("log_domain", "smooth"),
        torch_equivalent=_masked(torch.log_softmax),
        source="torch.nn.functional.log_softmax; computed as (s - max) - log1p(rest), exact where torch's "
        "log(sum) loses the small terms",
        notes=(
            "A fully masked row gives -inf everywhere (torch gives NaN): the log of the all-zero weights softmax "
            "gives such a row, so exp(log_softmax) == softmax holds on every row; its gradient is 0."
        ),
    ),
    normalizer(
        name="softmin",
        family="normalizers",
        formula=r"e^{-s_i} / \sum_j e^{-s_j}",
        summary="Softmin: softmax of the negated scores (torch.nn.Softmin).",
        torch_impl=_softmin,
        reference_row=_ref_softmin,
        borrowed=(torch_names("softmin", "Softmin", **_TORCH_DIM),),
        properties=props("row_normalized", "smooth", "negated_scores"),
        torch_equivalent=_masked(torch.nn.functional.softmin, math.inf),
        source="torch.nn.functional.softmin = softmax(-input)",
        notes=(
            "softmin(s) = softmax(-s) on every input: a +inf score is a masked key (weight 0) and a row of only "
            "+inf scores a fully masked row (zeros); a -inf score is the strongest key, softmax's +inf, so its "
            "row is NaN as in torch.softmin and nonlin's softmax at +inf (IEEE: inf - inf)."
        ),
    ),
    normalizer(
        name="gumbel_softmax",
        family="normalizers",
        formula=r"\mathrm{softmax}((s + G) / \tau),\ G_i = -\log E_i,\ E_i \sim \mathrm{Exp}(1)",
        summary="Gumbel-softmax sample (torch.nn.functional.gumbel_softmax): tau, hard straight-through, generator.",
        torch_impl=_gumbel_softmax,
        reference_row=_ref_gumbel_softmax,
        params=(
            P("tau", 1.0, "temperature", low=0.0, low_inclusive=False),
            P(
                "hard",
                False,
                "True: the value is the one-hot of the sample's argmax, the gradient the soft sample's",
                boolean=True,
            ),
            P("eps", 1e-10, "accepted as torch accepts it (deprecated there, no effect); unused"),
        ),
        extra_inputs=("gumbels",),
        # F.gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1): tau comes first, not dim
        borrowed=(torch_names("gumbel_softmax", positional=("tau", "hard", "eps", "dim")),),
        properties=props("row_normalized", "stochastic", "smooth"),
        paper=Paper("Categorical Reparameterization with Gumbel-Softmax", "arXiv:1611.01144", 2016),
        source="torch.nn.functional.gumbel_softmax: G = -log(Exp(1)), softmax((logits + G)/tau), hard "
        "y_hard - y_soft.detach() + y_soft with y_hard the one-hot of the first argmax",
        gradient_rule="hard=True: straight-through, the backward is the soft sample's Jacobian",
        notes=(
            "Every call samples (as torch's function; there is no eval mode): pass generator= for reproducible "
            "draws, or the noise itself as gumbels= (a tensor of the scores' shape). The noise is drawn in "
            "float64, so a seed gives other draws than torch's."
        ),
    ),
    normalizer(
        name="softmax_sink",
        family="normalizers",
        formula=r"e^{s_i} / (e^{b} + \sum_j e^{s_j})",
        summary="Softmax with a learnable sink logit b (gpt-oss): a virtual key that takes weight, then is dropped.",
        torch_impl=_softmax_sink,
        reference_row=_ref_softmax_sink,
        params=(
            P(
                "sink",
                0.0,
                "sink logit b; per head as gpt-oss with num_parameters=heads, channel_dim=1 on scores (batch, heads, q, k)",
                learnable=True,
                learned_by_default=True,
                init="0 (gpt-oss checkpoints store trained values; HF initialises them N(0, std))",
            ),
        ),
        aliases=("attention_sink", "sink_softmax"),
        properties=props("smooth", "learnable"),
        paper=Paper("Efficient Streaming Language Models with Attention Sinks", "arXiv:2309.17453", 2023),
        source=(
            "HF transformers gpt_oss eager_attention_forward: sinks.reshape(1, -1, 1, 1) concatenated to the "
            "logits as one more column, softmax, the sink column dropped"
        ),
    ),
    normalizer(
        name="softmax_1",
        family="normalizers",
        formula=r"e^{s_i} / (1 + \sum_j e^{s_j})",
        summary="Quiet softmax (softmax off by one): a row can give all keys little weight.",
        torch_impl=_softmax_1,
        reference_row=_ref_softmax_1,
        aliases=("quiet_softmax", "softmax_one", "softmax_off_by_one"),
        properties=props("smooth"),
        paper=Paper("Attention Is Off By One (E. Miller, blog)", "evanmiller.org/attention-is-off-by-one.html", 2023),
        source="the blog's (softmax_1(x))_i = exp(x_i) / (1 + sum_j exp(x_j)); softmax_sink with b = 0",
    ),
    normalizer(
        name="alpha_entmax",
        family="normalizers",
        formula=r"p_i = [(\alpha - 1) s_i - \tau]_+^{1/(\alpha - 1)},\ \sum_i p_i = 1",
        summary="alpha-entmax (bisection, exact gradients for scores and alpha): 1 softmax, 1.5 entmax15, 2 sparsemax.",
        torch_impl=_alpha_entmax,
        reference_row=_ref_alpha_entmax,
        params=(P("alpha", 1.5, "alpha >= 1; 1 is softmax", low=1.0, learnable=True, init="1.5"),),
        aliases=("entmax_bisect", "entmax_alpha"),
        properties=props("row_normalized", "sparse_output", "learnable"),
        paper=Paper("Sparse Sequence-to-Sequence Models", "arXiv:1905.05702", 2019),
        source=(
            "deep-spin/entmax entmax_bisect (bracket max - 1 .. max - (1/n)^(alpha-1) on (alpha-1) z, normalised "
            "after bisection) and its backward (p^(2-alpha) weights); the alpha gradient is derived from the "
            "threshold equation, checked by gradcheck"
        ),
    ),
    normalizer(
        name="differential_attn",
        family="normalizers",
        formula=r"\mathrm{softmax}(s^{(1)})_i - \lambda\, \mathrm{softmax}(s^{(2)})_i",
        summary="Differential attention weights: the difference of two softmax maps (signed; rows sum to 1 - lambda).",
        torch_impl=_differential_attn,
        reference_row=_ref_differential_attn,
        params=(
            P(
                "lam",
                0.8,
                "lambda; the paper re-parametrises it as exp(q1.k1) - exp(q2.k2) + lambda_init, lambda_init = "
                "0.8 - 0.6 exp(-0.3 (layer - 1)): pass that tensor",
                learnable=True,
                init="0.8",
            ),
        ),
        extra_inputs=("scores2",),
        aliases=("diff_attn", "differential_attention"),
        properties=props("signed_output", "smooth", "learnable"),
        paper=Paper("Differential Transformer", "arXiv:2410.05258", 2024),
        source=(
            "arXiv:2410.05258 eq. 1 and the implementations that follow microsoft/unilm Diff-Transformer: "
            "attn1 - lambda_full * attn2, each a softmax over the same keys; the GroupNorm and (1 - lambda_init) "
            "after the value product are the layer's, not this map's"
        ),
        notes="The second score set is a tensor input of the scores' shape: f(scores1, scores2=scores2, mask=...).",
    ),
    normalizer(
        name="topk_softmax",
        family="normalizers",
        formula=r"\mathrm{softmax}(s)\ \mathrm{on}\ \{i: s_i \geq s_{(k)}\}",
        summary="Top-k softmax: softmax over the k largest kept scores (ties with the k-th kept), 0 elsewhere.",
        torch_impl=_topk_softmax,
        reference_row=_ref_topk_softmax,
        params=(P("k", 8.0, "number of keys kept per row", low=1.0, integer=True),),
        aliases=("sparse_topk", "explicit_sparse_softmax"),
        properties=props("row_normalized", "sparse_output"),
        paper=Paper("Explicit Sparse Transformer", "arXiv:1912.11637", 2019),
        confirmed=False,
        source=(
            "form from memory of x-transformers' sparse_topk (scores below the k-th largest masked, then softmax) "
            "and the Explicit Sparse Transformer; k = 8 is from memory of their examples, not checked"
        ),
    ),
    normalizer(
        name="topk_sparsemax",
        family="normalizers",
        formula=r"\mathrm{sparsemax}(s)\ \mathrm{on}\ \{i: s_i \geq s_{(k)}\}",
        summary="Top-k sparsemax: sparsemax over the k largest kept scores (ties with the k-th kept).",
        torch_impl=_topk_sparsemax,
        reference_row=_ref_topk_sparsemax,
        params=(P("k", 8.0, "number of keys kept per row", low=1.0, integer=True),),
        properties=props("row_normalized", "sparse_output"),
        confirmed=False,
        source=(
            "no paper defines it: nonlin's composition of top-k masking with sparsemax. The entmax package's "
            "sparsemax(k=...) is a partial-sort speed-up with the same result as sparsemax, not this map"
        ),
    ),
    normalizer(
        name="ssmax",
        family="normalizers",
        formula=r"n^{s z_i} / \sum_j n^{s z_j} = \mathrm{softmax}(s \log n \cdot z)",
        summary="Scalable-Softmax: softmax of the scores times s log n, n the number of kept keys in the row.",
        torch_impl=_ssmax,
        reference_row=_ref_ssmax,
        params=(
            P(
                "s",
                0.43,
                "scaling s (learned per head in the paper)",
                learnable=True,
                learned_by_default=True,
                init="0.43",
            ),
        ),
        aliases=("scalable_softmax", "SSMax"),
        properties=props("row_normalized", "smooth", "learnable"),
        paper=Paper("Scalable-Softmax Is Superior for Attention", "arXiv:2501.19399", 2025),
        confirmed=False,
        source=(
            "formula from the paper's abstract page (z_i -> n^{s z_i} / sum_j n^{s z_j}, n the input size; under "
            "a mask nonlin takes n = the kept keys, a causal row's position + 1); default s = 0.43 from the "
            "unofficial scalable-softmax package, not confirmed in the paper"
        ),
    ),
    normalizer(
        name="stablemax",
        family="normalizers",
        formula=r"s(z_i) / \sum_j s(z_j),\ s(x) = x + 1\ (x \geq 0),\ 1 / (1 - x)\ (x < 0)",
        summary="StableMax: softmax's exponential replaced by a rational ramp (no floating-point absorption).",
        torch_impl=_stablemax,
        reference_row=_ref_stablemax,
        properties=props("row_normalized", "smooth"),
        paper=Paper("Grokking at the Edge of Numerical Stability", "arXiv:2501.04697", 2025),
        source="arXiv:2501.04697 Sec. 5 and the implementations that quote it: s(x) = x + 1 (x >= 0), 1/(1 - x) "
        "(x < 0), normalised by the sum",
    ),
    normalizer(
        name="softpick",
        family="normalizers",
        formula=r"\frac{\max(e^{s_i} - 1, 0)}{\sum_j |e^{s_j} - 1| + \epsilon}",
        summary="Softpick (rectified softmax): scores below 0 get weight 0 but count in the sum; rows sum to <= 1.",
        torch_impl=_softpick,
        reference_row=_ref_softpick,
        params=(
            P(
                "eps",
                1e-8,
                "added to the sum after scaling by e^-max as the reference code does (so eps e^max in the formula)",
                low=0.0,
            ),
        ),
        properties=props("sparse_output"),
        paper=Paper(
            "Softpick: No Attention Sink, No Massive Activations with Rectified Softmax", "arXiv:2504.20966", 2025
        ),
        source=(
            "authors' softpick code: relu(e^(x-m) - e^-m) / (sum |e^(x-m) - e^-m| + eps), m the row max, masked "
            "keys out of the sum"
        ),
    ),
]
