"""Fused forward and backward kernels for every pointwise and gated entry, generated from the catalog.

Each entry's forward and declared derivative are traced once (`trace`) and written out (`codegen`) as
Triton kernels (GPU; CPU under TRITON_INTERPRET=1) or as torch functions compiled by inductor (CPU).
`ops` registers them as torch.library custom ops; `dispatch` routes `nonlin.functional` calls to them;
`use` chooses the path. See docs/kernels.md.
"""

from nonlin.kernels import ops as _ops  # noqa: F401  (registers torch.ops.nonlin.*)
from nonlin.kernels.state import triton_available, use

__all__ = ["triton_available", "use"]
