"""Declarations only: one Spec per nonlinearity, one file per family. Importing this registers them."""

from nonlin.catalog import (
    additions_gated,
    additions_pointwise,
    gated,
    learnable,
    normalizers,
    normalizers_extra,
    periodic,
    rectifiers,
    sae,
    setwise,
    sigmoidal,
    smooth,
    stochastic,
)
from nonlin.registry import register_all

FAMILIES = (rectifiers, smooth, sigmoidal, periodic, learnable, stochastic, gated, normalizers)
# Registered after the families above (kept apart so the original files' edits and these merge cleanly).
FAMILIES += (normalizers_extra, setwise, sae)
FAMILIES += (additions_pointwise, additions_gated)  # issue 15

# Named in nonlin's catalog sources but not included, with the reason (also listed in the README).
LEFT_OUT = {
    "velu": "VeLU (arXiv:2504.15051): the ArcTan-Sin / ArcTan-ArcSin formula and its parameters could not be "
    "confirmed from the paper (its two versions and secondary sources disagree)",
    "mittag_leffler": "Mittag-Leffler unified activation (arXiv:2302.11007): the exact gated formula and its "
    "defaults could not be extracted from the paper",
    "localmax": "localmax (arXiv:2509.15958) is a dynamical system on token states, not a drop-in normalizer; "
    "no usable formula was found",
    "apl": "adaptive piecewise linear units (arXiv:1412.6830) have a per-model number of learned hinges S: not one "
    "declaration with fixed parameters",
    "kaf": "kernel activation functions (arXiv:1707.04035) are expansions over a learned dictionary of kernels",
    "dynamic_relu": "Dynamic ReLU (arXiv:2003.10027) computes its slopes from the input by a hyper-network",
    "funnel_relu": "FReLU (arXiv:2007.11824) is max(x, depthwise-conv(x)): a spatial layer, not pointwise",
}

for _family in FAMILIES:
    register_all(_family.SPECS)
