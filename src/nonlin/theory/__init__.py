"""Theory of wide random networks for every catalog entry: Gaussian expectations by breakpoint-split
quadrature, variance and correlation maps, fixed points, chi_1, depth scales, the order/chaos phase,
the edge of chaos, init gains, sparsity at init, clip levels, and NNGP / NTK kernels.

    from nonlin import theory
    theory.variance_map("gelu", q, sigma_w=1.0, sigma_b=0.0)
    theory.fixed_point("tanh", sigma_w=1.2, sigma_b=0.05)
    theory.nngp("relu", X, depth=5, sigma_w=2**0.5)

See docs/theory.md for definitions, assumptions and accuracy.
"""

from nonlin.theory.kernels import Kernels, kernel_sequence, kernels, nngp, ntk
from nonlin.theory.maps import (
    ClipLevel,
    CriticalPoint,
    FixedPoint,
    NoEdgeOfChaosWarning,
    Sparsity,
    chi_1,
    clip_level,
    correlation_map,
    covariance_map,
    critical_line,
    critical_point,
    edge_of_chaos,
    eoc_init,
    fixed_point,
    init_gain,
    sparsity_at_init,
    variance_map,
)
from nonlin.theory.models import model

__all__ = [
    "ClipLevel",
    "CriticalPoint",
    "FixedPoint",
    "Kernels",
    "NoEdgeOfChaosWarning",
    "Sparsity",
    "chi_1",
    "clip_level",
    "correlation_map",
    "covariance_map",
    "critical_line",
    "critical_point",
    "edge_of_chaos",
    "eoc_init",
    "fixed_point",
    "init_gain",
    "kernel_sequence",
    "kernels",
    "model",
    "nngp",
    "ntk",
    "sparsity_at_init",
    "variance_map",
]
