"""Fused forward and backward kernels for every pointwise and gated entry, generated from the catalog.

Each entry's forward and declared derivative are traced once (`trace`) and written out (`codegen`) as
Triton kernels (GPU; CPU under TRITON_INTERPRET=1) or as torch functions compiled by inductor (CPU).
`ops` registers them as torch.library custom ops; `dispatch` says whether a call can be fused and makes it
(`nonlin.route` decides which calls come here); `use` overrides the route table. See docs/kernels.md.
"""

from nonlin.kernels import ops as _ops  # noqa: F401  (registers torch.ops.nonlin.*)
from nonlin.kernels.state import triton_available, use

__all__ = ["triton_available", "use"]
