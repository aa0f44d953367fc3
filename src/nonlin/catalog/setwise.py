"""Set-wise units: maps of a set of values along ``dim`` that are not elementwise (sparse-autoencoder top-k
units, Maxout, CReLU, SoLU, logsumexp).

Each has a torch implementation on ``x`` [..., n] (dim moved last, float64) returning [..., output_size(n)],
and an mpmath reference of one set (a row; BatchTopK: the whole batch). Selections (top-k) pick exactly k
values, ties going to the lower index (a stable sort), so value and reference agree bit for bit on ties; the
gradient flows to the selected values only.
"""

from __future__ import annotations

import mpmath
import torch
from mpmath import mp

from nonlin.catalog._build import P, Paper, props, setwise
from nonlin.catalog.normalizers_extra import log_partition


def _first_k(order_key: torch.Tensor, k: int) -> torch.Tensor:
    """Indices of the k largest of order_key along the last dim, ties to the lower index."""
    return torch.sort(order_key, dim=-1, descending=True, stable=True).indices[..., :k]


def _select(x: torch.Tensor, idx: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(x).scatter(-1, idx, values)


def _topk(x, k=32.0):
    idx = _first_k(x, min(int(k), x.shape[-1]))
    return _select(x, idx, torch.relu(x.gather(-1, idx)))


def _abstopk(x, k=32.0):
    idx = _first_k(x.abs(), min(int(k), x.shape[-1]))
    return _select(x, idx, x.gather(-1, idx))


def _batchtopk(x, k=32.0):
    rows = x.numel() // max(x.shape[-1], 1)
    flat = x.reshape(-1)
    idx = _first_k(flat, min(int(k) * rows, flat.numel()))
    return _select(flat, idx, torch.relu(flat.gather(-1, idx))).reshape(x.shape)


def _maxout(x, num_pieces=2.0):
    k, n = int(num_pieces), x.shape[-1]
    if n % k:
        raise ValueError(f"maxout: the size of dim ({n}) must be a multiple of num_pieces={k}")
    return x.unflatten(-1, (n // k, k)).max(-1).values  # [..., n / k]; gradient to the first maximum


def _crelu(x):
    return torch.cat([torch.relu(x), torch.relu(-x)], dim=-1)  # [..., 2n]


def _elu(x):
    return torch.where(x > 0, x, torch.expm1(torch.where(x > 0, 0.0, x)))


def _concat_elu(x):
    return torch.cat([_elu(x), _elu(-x)], dim=-1)  # [..., 2n]


def _solu(x):
    return x * torch.softmax(x, dim=-1)


def _rms_normed(u, eps):
    return u / torch.sqrt((u * u).mean(-1, keepdim=True) + eps)


def _polynorm(x, w0=1 / 3, w1=1 / 3, w2=1 / 3, b=1.0, eps=1e-6):
    return w0 * _rms_normed(x * x * x, eps) + w1 * _rms_normed(x * x, eps) + w2 * _rms_normed(x, eps) + b


def _logsumexp(x, keepdim=False):
    m, r = log_partition(x, torch.ones_like(x, dtype=torch.bool))
    return torch.where(torch.isfinite(m), m + torch.log1p(r), m)  # [..., 1]; all -inf -> -inf, any +inf -> +inf


# ---------------------------------------------------------------------------- mpmath references
def _order(values, key):
    return sorted(range(len(values)), key=lambda i: (-key(values[i]), i))


def _ref_pick(values, k, key, post):
    chosen = set(_order(values, key)[: int(k)])
    return [post(v) if i in chosen else mpmath.mpf(0) for i, v in enumerate(values)]


def _ref_topk(row, k=32.0):
    return _ref_pick(row, k, lambda v: v, lambda v: max(v, 0))


def _ref_abstopk(row, k=32.0):
    return _ref_pick(row, k, abs, lambda v: v)


def _ref_batchtopk(values, k=32.0, rows=1):
    return _ref_pick(values, int(k) * int(rows), lambda v: v, lambda v: max(v, 0))


def _ref_maxout(row, num_pieces=2.0):
    k = int(num_pieces)
    return [max(row[j : j + k]) for j in range(0, len(row), k)]


def _ref_crelu(row):
    return [max(v, 0) for v in row] + [max(-v, 0) for v in row]


def _ref_concat_elu(row):
    def elu(v):
        return v if v > 0 else mp.expm1(v)

    return [elu(v) for v in row] + [elu(-v) for v in row]


def _ref_solu(row):
    top = max(row)
    den = mpmath.fsum(mp.exp(v - top) for v in row)
    return [v * mp.exp(v - top) / den for v in row]


def _ref_polynorm(row, w0=1 / 3, w1=1 / 3, w2=1 / 3, b=1.0, eps=1e-6):
    def normed(p):
        u = [v**p for v in row]
        r = mp.sqrt(mpmath.fsum(t * t for t in u) / len(u) + mpmath.mpf(eps))
        return [t / r for t in u]

    n3, n2, n1 = normed(3), normed(2), normed(1)
    return [
        mpmath.mpf(w0) * a + mpmath.mpf(w1) * c + mpmath.mpf(w2) * d + mpmath.mpf(b)
        for a, c, d in zip(n3, n2, n1, strict=True)
    ]


def _ref_logsumexp(row, keepdim=False):
    if any(mp.isnan(v) for v in row):
        return [mpmath.nan]
    top = max(row)
    if mp.isinf(top):
        return [top]
    return [top + mp.log(mpmath.fsum(mp.exp(v - top) for v in row))]


_K = P("k", 32.0, "values kept per row (no canonical default: every SAE sets its own)", low=1.0, integer=True)
_SAE = "sparse_autoencoder"

SPECS = [
    setwise(
        name="topk",
        family=_SAE,
        formula=r"\mathrm{ReLU}(x_i)\,\mathbb{1}[i \in \mathrm{top}_k(x)]",
        summary="TopK SAE activation: keeps the k largest values of each row (ReLU'd), zeros the rest.",
        torch_impl=_topk,
        reference_row=_ref_topk,
        params=(_K,),
        properties=props("sparse"),
        paper=Paper("Scaling and evaluating sparse autoencoders", "arXiv:2406.04093", 2024),
        source="sae_lens TopK: torch.topk(x, k), ReLU of the values, scattered into zeros (exactly k kept)",
    ),
    setwise(
        name="abstopk",
        family=_SAE,
        formula=r"x_i\,\mathbb{1}[i \in \mathrm{top}_k(|x|)]",
        summary="AbsTopK SAE activation: keeps the k values of largest magnitude with their sign.",
        torch_impl=_abstopk,
        reference_row=_ref_abstopk,
        params=(_K,),
        aliases=("abs_topk",),
        properties=props("sparse"),
        paper=Paper("AbsTopK: Rethinking Sparse Autoencoders For Bidirectional Features", "arXiv:2510.00404", 2025),
        source="arXiv:2510.00404 abstract: hard thresholding over the k largest-magnitude activations, signs kept",
    ),
    setwise(
        name="batchtopk",
        family=_SAE,
        formula=r"\mathrm{ReLU}(x_{bi})\,\mathbb{1}[(b,i) \in \mathrm{top}_{kB}(x)]",
        summary="BatchTopK SAE activation: keeps the k x rows largest values of the whole batch (ReLU'd).",
        torch_impl=_batchtopk,
        reference_row=_ref_batchtopk,
        params=(P("k", 32.0, "values kept per row on average (k x rows over the batch)", low=1.0, integer=True),),
        aliases=("batch_topk",),
        properties=props("sparse", "batchwise"),
        paper=Paper("BatchTopK Sparse Autoencoders", "arXiv:2412.06410", 2024),
        source="bartbussmann/BatchTopK and sae_lens: top (k * batch) of the flattened ReLU activations",
        notes="At inference the paper replaces it with a JumpReLU whose threshold is estimated from training.",
    ),
    setwise(
        name="maxout",
        family="setwise",
        formula=r"y_j = \max_{0 \leq i < k} x_{jk + i}",
        summary="Maxout: the maximum of each group of k consecutive features (dim shrinks to n / k).",
        torch_impl=_maxout,
        reference_row=_ref_maxout,
        params=(P("num_pieces", 2.0, "pieces per unit k; the size of dim must be a multiple", low=1.0, integer=True),),
        output_size=lambda n, num_pieces=2.0, **_: n // int(num_pieces),
        paper=Paper("Maxout Networks", "arXiv:1302.4389", 2013),
        source="arXiv:1302.4389 eq. 1 h_i = max_j z_ij over k pieces (the affine map is the layer's); pylearn2 "
        "groups consecutive pieces",
    ),
    setwise(
        name="crelu",
        family="setwise",
        formula=r"[\mathrm{ReLU}(x), \mathrm{ReLU}(-x)]",
        summary="Concatenated ReLU: ReLU of x and of -x concatenated along dim (dim doubles).",
        torch_impl=_crelu,
        reference_row=_ref_crelu,
        output_size=lambda n, **_: 2 * n,
        aliases=("concatenated_relu",),
        paper=Paper(
            "Understanding and Improving Convolutional Neural Networks via Concatenated Rectified Linear Units",
            "arXiv:1603.05201",
            2016,
        ),
        source="tf.nn.crelu (axis=-1 by default): concat of relu(x) and relu(-x) along axis",
    ),
    setwise(
        name="concat_elu",
        family="setwise",
        formula=r"[\mathrm{ELU}(x), \mathrm{ELU}(-x)]",
        summary="Concatenated ELU (PixelCNN++): ELU of x and of -x concatenated along dim (dim doubles).",
        torch_impl=_concat_elu,
        reference_row=_ref_concat_elu,
        output_size=lambda n, **_: 2 * n,
        aliases=("concatenated_elu",),
        properties=props("smooth"),
        paper=Paper(
            "PixelCNN++: Improving the PixelCNN with Discretized Logistic Mixture Likelihood", "arXiv:1701.05517", 2017
        ),
        source="PixelCNN++ code concat_elu: elu(concat of x and -x along the channel axis); alpha = 1",
    ),
    setwise(
        name="solu",
        family="setwise",
        formula=r"x_i\, e^{x_i} / \sum_j e^{x_j}",
        summary="SoLU: x times softmax(x) over the features (the paper's LayerNorm after it is separate).",
        torch_impl=_solu,
        reference_row=_ref_solu,
        paper=Paper("Softmax Linear Units (transformer-circuits.pub/2022/solu)", "Anthropic", 2022),
        source="TransformerLens utils.solu: input * F.softmax(input, dim=-1); LayerNorm in the MLP class",
    ),
    setwise(
        name="polynorm",
        family="setwise",
        formula=r"w_0 N(x^3) + w_1 N(x^2) + w_2 N(x) + b,\ N(u) = u / \sqrt{\mathrm{mean}(u^2) + \epsilon}",
        summary="PolyNorm: RMS-normalised powers of x (over the features) mixed by learnable weights.",
        torch_impl=_polynorm,
        reference_row=_ref_polynorm,
        params=(
            *(
                P(f"w{i}", 1 / 3, f"weight of N(x^{3 - i})", learnable=True, learned_by_default=True, init="1/3")
                for i in range(3)
            ),
            P("b", 1.0, "bias", learnable=True, learned_by_default=True, init="1 (PolyCom)"),
            P("eps", 1e-6, "added to the mean square", low=0.0),
        ),
        aliases=("poly_norm",),
        properties=props("learnable"),
        paper=Paper(
            "Polynomial Composition Activations: Unleashing the Dynamics of Large Language Models",
            "arXiv:2411.03884",
            2024,
        ),
        source=(
            "Liger-Kernel LigerPolyNorm (y = w0 norm(x^3) + w1 norm(x^2) + w2 norm(x) + b, norm(u) = u / "
            "sqrt(mean(u^2) + eps), eps 1e-6; weights 1/3 and bias 1 as the PolyCom reference initialises them)"
        ),
    ),
    setwise(
        name="logsumexp",
        family="setwise",
        formula=r"\log \sum_i e^{x_i}",
        summary="logsumexp as a reduction over dim (keepdim as torch); exact where torch loses small terms.",
        torch_impl=_logsumexp,
        reference_row=_ref_logsumexp,
        params=(P("keepdim", False, "keep dim with size 1 (torch's keepdim)", boolean=True),),
        output_size=lambda n, **_: 1,
        torch_equivalent=lambda x, dim=-1, keepdim=False: torch.logsumexp(x, dim=dim, keepdim=keepdim),
        source="torch.logsumexp; computed as max + log1p(sum of the others' e^(x - max))",
        notes="Its gradient is softmax(x). A masked logsumexp is logsumexp of x with -inf at the masked entries.",
    ),
]
