"""Units whose shape is learned: rational (Padé) activations."""

from __future__ import annotations

from nonlin.catalog._build import P, Paper, pointwise, props

# rational_activations' "version A" least-squares fit of leaky ReLU (slope 0.01) on [-3, 3], degrees (5, 4).
_NUM_INIT = (
    0.029792778657264946,
    0.6183735264987601,
    2.323309062531321,
    3.051936237265109,
    1.4854203263828845,
    0.2510244961111299,
)
_DEN_INIT = (-1.1419548357285474, 4.393159974992486, 0.8714712309957245, 0.34719662339598834)


def _horner(m, x, coeffs):
    acc = coeffs[-1] * m.ones_like(x)
    for c in reversed(coeffs[:-1]):
        acc = acc * x + c
    return acc


def _parts(m, x, a, b):
    """P, P', D, D' scaled so that nothing overflows: for |x| > 1 everything is divided by x^4 and
    written in r = 1/x (f = x Pr/Dr, f' = (P'r Dr - Pr D'r)/Dr^2)."""
    ab = [abs(bk) for bk in b]  # builtin abs: floats, tensors and mpf alike
    ax = m.abs(x)
    inner = m.minimum(ax, 1.0)  # |x| for the direct branch, clamped so the unused branch stays finite
    xs = m.sign(x) * inner
    num = _horner(m, xs, a)
    dnum = _horner(m, xs, [k * a[k] for k in range(1, 6)])
    den = 1.0 + sum(ab[k - 1] * m.pow(inner, k) for k in range(1, 5))
    dden = m.sign(x) * sum(k * ab[k - 1] * m.pow(inner, k - 1) for k in range(1, 5))
    r = 1.0 / m.where(ax > 1, x, m.ones_like(x))
    rr = m.abs(r)
    pr = _horner(m, r, [a[5 - j] for j in range(6)])  # sum_k a_k r^(5-k)
    dpr = _horner(m, r, [(5 - j) * a[5 - j] for j in range(6)])
    dr = m.pow(rr, 4) + sum(ab[k - 1] * m.pow(rr, 4 - k) for k in range(1, 5))
    ddr = sum(k * ab[k - 1] * m.pow(rr, 4 - k) for k in range(1, 5))
    return ax, (num, dnum, den, dden), (pr, dpr, dr, ddr)


def _rational(m, x, a0, a1, a2, a3, a4, a5, b1, b2, b3, b4):
    ax, (num, _, den, _), (pr, _, dr, _) = _parts(m, x, (a0, a1, a2, a3, a4, a5), (b1, b2, b3, b4))
    return m.where(ax > 1, x * (pr / dr), num / den)


def _rational_grad(m, x, a0, a1, a2, a3, a4, a5, b1, b2, b3, b4):
    ax, (num, dnum, den, dden), (pr, dpr, dr, ddr) = _parts(m, x, (a0, a1, a2, a3, a4, a5), (b1, b2, b3, b4))
    near = (dnum * den - num * dden) / (den * den)
    far = (dpr * dr - pr * ddr) / (dr * dr)
    return m.where(ax > 1, far, near)


def _coef(name: str, value: float) -> P:
    return P(
        name,
        value,
        "rational coefficient",
        learnable=True,
        learned_by_default=True,
        init=f"{value!r} (leaky ReLU fit)",
    )


SPECS = [
    pointwise(
        name="rational",
        family="learnable",
        formula=r"\frac{\sum_{k=0}^{5} a_k x^k}{1 + \sum_{k=1}^{4} |b_k|\,|x|^k}",
        summary="Padé activation unit (safe PAU, degrees 5/4), initialised to leaky ReLU.",
        forward=_rational,
        derivative=_rational_grad,
        params=(
            *(_coef(f"a{k}", v) for k, v in enumerate(_NUM_INIT)),
            *(_coef(f"b{k + 1}", v) for k, v in enumerate(_DEN_INIT)),
        ),
        aliases=("pau", "pade", "padé"),
        properties=props("learnable"),  # |b1| |x| puts a kink at 0 (safe PAU, version A)
        paper=Paper("Padé Activation Units", "arXiv:1907.06732", 2019),
        source=(
            "authors' code ml-research/pau and rational_activations (version A, the default: denominator "
            "1 + sum |b_k| |x|^k); init coefficients: rational_activations Rational_version_A5/4 leaky_relu"
        ),
        breakpoints=lambda **_: (0.0,),
    ),
]
