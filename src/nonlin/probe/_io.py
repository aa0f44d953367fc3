"""Small shared helpers of the probes: the environment record, JSON writing, plain-text tables."""

from __future__ import annotations

import datetime
import json
import math
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch


def environment() -> dict[str, Any]:
    """Versions and machine that produced a result (kept with every JSON file)."""
    import nonlin

    return {
        "nonlin": nonlin.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "machine": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def _clean(v: Any) -> Any:
    # JSON has no inf/nan: write them as strings a reader can turn back with float().
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_clean(x) for x in v]
    if isinstance(v, torch.Tensor):
        return _clean(v.tolist())
    return v


def write_json(data: dict[str, Any], path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_clean(data), indent=1))
    return path


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])
