"""Elementwise sparse-autoencoder units (the set-wise ones, TopK and BatchTopK, are in catalog.setwise)."""

from __future__ import annotations

from nonlin.catalog._build import P, Paper, pointwise, props


def _rectangle(m, x, theta, bandwidth):
    """K((x - theta) / bandwidth) with K(u) = 1[-1/2 < u < 1/2], the paper's rectangle kernel."""
    u = (x - theta) / bandwidth
    return m.indicator(u > -0.5, x) * m.indicator(u < 0.5, x)


SPECS = [
    pointwise(
        name="jumprelu_sae",
        family="sparse_autoencoder",
        formula=r"x\,H(x - \theta),\ \partial_\theta := -\frac{\theta}{\varepsilon} K\!\left(\frac{x - \theta}{\varepsilon}\right)",
        summary="JumpReLU with a learnable threshold: the SAE paper's kernel pseudo-derivative trains theta.",
        forward=lambda m, x, theta, bandwidth: m.keep(x > theta, x),
        derivative=lambda m, x, theta, bandwidth: m.indicator(x > theta, x),
        param_rules=(
            ("theta", lambda m, x, theta, bandwidth: -(theta / bandwidth) * _rectangle(m, x, theta, bandwidth)),
        ),
        params=(
            P(
                "theta",
                0.001,
                "threshold (one per feature with num_parameters=d_sae, channel_dim=-1)",
                low=0.0,
                learnable=True,
                learned_by_default=True,
                init="0.001 (the paper; sae_lens now defaults to 0.01)",
            ),
            P("bandwidth", 0.001, "kernel bandwidth epsilon of the pseudo-derivative", low=0.0, low_inclusive=False),
        ),
        properties=props("zero_at_zero", "monotonic", "bounded_below", "nonnegative", "sparse", "learnable"),
        paper=Paper("Jumping Ahead: Improving Reconstruction Fidelity with JumpReLU SAEs", "arXiv:2407.14435", 2024),
        source=(
            "arXiv:2407.14435 eq. 11 and sae_lens' JumpReLU backward: x_grad = H(x - theta) g, theta_grad = "
            "-(theta / bandwidth) rectangle((x - theta) / bandwidth) g, rectangle(u) = 1[-1/2 < u < 1/2]; "
            "theta = bandwidth = 0.001 as in the paper and sae_lens' earlier config"
        ),
        notes=(
            "The x gradient is the exact derivative H(x - theta); theta's is the straight-through kernel "
            "pseudo-derivative (spec.param_rules), which gradcheck cannot confirm: tests compare it with the rule."
        ),
        breakpoints=lambda theta, bandwidth, **_: (theta - bandwidth / 2, theta, theta + bandwidth / 2),
    ),
]
