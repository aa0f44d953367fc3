"""Which path runs: the dispatch mode, the backend per device, the compute precision of float32 inputs."""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from types import TracebackType

import torch

MODES = ("auto", "eager", "fused")
BACKENDS = ("auto", "triton", "inductor", "python")
FP32_COMPUTE = ("auto", "float64", "float32")

_STATE: dict[str, str] = {"mode": "auto", "backend": "auto", "fp32_compute": "auto"}
# is_default()'s answer, kept by every change of _STATE (`_set`): the settled-route lookup of every eager call reads
# it as one global where the function's three comparisons cost ~0.2 µs a call
DEFAULT = True


def is_default() -> bool:
    """No `use` or `pinned` in force (the route's per-call cache holds only for these settings)."""
    # (value by value: inside a caller's torch.compile dynamo guards on these three, where a comparison of two
    # dicts had it guard on both, 21 guards evaluated on every call of the compiled function)
    return _STATE["mode"] == "auto" and _STATE["backend"] == "auto" and _STATE["fp32_compute"] == "auto"


def _set(settings: dict[str, str]) -> None:
    """Put `settings` in force (all three), and DEFAULT with them."""
    global DEFAULT
    _STATE.clear()
    _STATE.update(settings)
    DEFAULT = is_default()


def triton_available() -> bool:
    return importlib.util.find_spec("triton") is not None


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def mode() -> str:
    return _STATE["mode"]


def fp32_compute() -> str:
    return _STATE["fp32_compute"]


def fp32_compute_for(name: str, device: torch.device, pass_: str, at_defaults: bool = True) -> str:
    """ "float64" or "float32": the internal precision of float32 inputs of entry `name` on `device` in one
    pass ("forward" or "backward"); `at_defaults`: the call's parameters are the entry's defaults."""
    from nonlin.kernels.precision import fp32_compute_for as choose

    return choose(name, _STATE["fp32_compute"], device, pass_, at_defaults)


def backend_for(device: torch.device) -> str:
    """The implementation the custom ops use on `device`: "triton", "inductor" or "python" (uncompiled)."""
    chosen = _STATE["backend"]
    if device.type == "cuda":
        if not triton_available():
            raise RuntimeError(
                "nonlin: the fused path on CUDA needs Triton; install it (pip install 'nonlin[triton]') or run "
                "nonlin.use('eager')"
            )
        return "triton"
    if chosen == "triton":
        if not (triton_available() and interpreting()):
            raise RuntimeError(
                "nonlin: backend='triton' on CPU tensors needs Triton's interpreter (TRITON_INTERPRET=1 set before "
                "triton is imported)"
            )
        return "triton"
    if chosen == "python":
        return "python"
    from nonlin.kernels import cpu

    return "inductor" if cpu.compile_available() else "python"


def settings() -> tuple[str, str]:
    """(backend, fp32_compute) now: the fused ops record them at forward so that backward, which autograd may
    run after the ``use`` block has exited, computes with the forward's backend and precision."""
    return _STATE["backend"], _STATE["fp32_compute"]


@contextlib.contextmanager
def pinned(backend: str, fp32_compute: str) -> Iterator[None]:
    previous = dict(_STATE)
    _set({**previous, "backend": backend, "fp32_compute": fp32_compute})
    try:
        yield
    finally:
        _set(previous)


class use:
    """Choose the path: ``nonlin.use("eager" | "fused" | "auto")``, for good or as a context manager.

    mode: "auto" follows the route table (`nonlin.route`: torch's own op where it meets the accuracy goals,
    the fused path on CUDA with Triton and for large CPU tensors, the eager path elsewhere), "fused" forces
    the fused path where the entry can be fused, "eager" runs the eager path everywhere. backend (CPU): "auto"/"inductor" (torch.compile), "python" (the generated
    functions uncompiled), "triton" (the Triton kernels under TRITON_INTERPRET=1, for testing).
    fp32_compute: the internal precision for float32 inputs on the fused path: "auto" (default: float32
    math on CPU for the entries measured to stay within issue 3's float32 goals with it, see
    nonlin.kernels.precision; float64 otherwise), "float64" (the eager path's, within 1 ULP) or "float32"
    (every entry; faster, less accurate in the tails of composite entries; see docs/kernels.md).
    """

    def __init__(self, mode: str = "auto", *, backend: str | None = None, fp32_compute: str | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"nonlin.use: mode={mode!r} is not one of {', '.join(map(repr, MODES))}")
        if backend is not None and backend not in BACKENDS:
            raise ValueError(f"nonlin.use: backend={backend!r} is not one of {', '.join(map(repr, BACKENDS))}")
        if fp32_compute is not None and fp32_compute not in FP32_COMPUTE:
            raise ValueError(
                f"nonlin.use: fp32_compute={fp32_compute!r} is not one of {', '.join(map(repr, FP32_COMPUTE))}"
            )
        self._previous = dict(_STATE)
        _set(
            {
                "mode": mode,
                "backend": _STATE["backend"] if backend is None else backend,
                "fp32_compute": _STATE["fp32_compute"] if fp32_compute is None else fp32_compute,
            }
        )

    def __enter__(self) -> use:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _set(self._previous)

    def __repr__(self) -> str:
        return f"nonlin.use(mode={_STATE['mode']!r}, backend={_STATE['backend']!r}, fp32_compute={_STATE['fp32_compute']!r})"
