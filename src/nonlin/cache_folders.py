"""Where nonlin keeps what it computes or measures once per machine: accuracy references, route profiles, the
half-type gate tables' settled sides."""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder(name: str) -> Path:
    """$NONLIN_CACHE/`name`, else ~/.cache/nonlin/`name`."""
    env = os.environ.get("NONLIN_CACHE")
    return (Path(env) if env else Path.home() / ".cache" / "nonlin") / name
