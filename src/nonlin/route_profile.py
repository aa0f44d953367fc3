"""This machine's measured choices for the route rows whose faster route depends on the CPU.

Where torch's op and nonlin's fused path both meet the goals, which of them is faster is a property of the
CPU, not of the formula: torch.tanh takes 0.34 ns per float32 element on one Ice Lake core and 2.5 on a Zen 4
core (ATen's tanh on either ISA there), where nonlin's kernel takes ~0.56 on both. Those rows
(`nonlin.route.NATIVE`'s `per_machine`) keep the table's static choice until `nonlin tune` measures both
routes on this machine and writes the faster one here; the table then takes it. Both routes are measured
against the goals in CI, so the choice moves speed, never a guarantee (bits of a non-exact row may differ
between machines, as torch's own do between ISAs).

The profile also holds whether nonlin's hand-written float32 kernels (`nonlin.kernels.native32`) prefetch their
streams in software: it paid 1.5-2.4x on a Xeon whose hardware prefetchers fell behind these loops, and cost 3-29%
of a 4M kernel's time on a Zen 4 core whose prefetchers keep up (`nonlin tune` measures it; the values are the
same either way). Without a profile they prefetch.

A profile is one JSON file per machine fingerprint (the CPU's model name and flags, ATen's vector ISA, the
torch version and the sources of the route table and kernels), so a home folder shared by
different machines keeps one per machine and a profile never outlives the code it measured. Location:
$NONLIN_ROUTE_PROFILE when it names a file, none when it is "off" (the test suite runs the static table),
else $NONLIN_CACHE/routes/ or ~/.cache/nonlin/routes/. Written atomically: an interrupted `nonlin tune`
leaves the previous profile as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from nonlin.cache_folders import cache_folder

PROFILE_VERSION = 1
ROUTES = ("torch", "fused")
Row = tuple[str, str, str, str]  # (entry, dtype, pass, size class), CPU


@dataclass(frozen=True)
class Profile:
    """The measured rows: route and the medians (ms) of both routes, per row; and whether nonlin's hand-written
    kernels prefetch on this machine (None: not measured, the static default), with what decided it (ns per
    element of each kernel measured, with and without)."""

    path: Path
    choices: dict[Row, str]
    times_ms: dict[Row, dict[str, float]]
    threads: int
    prefetch: bool | None = None
    prefetch_ns: dict[str, dict[str, float]] = field(default_factory=dict)


def _cpu_description() -> str:
    """The CPU's model name and feature flags (Linux: /proc/cpuinfo), else what `platform` says."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return f"{platform.machine()} {platform.processor()}"
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key in ("model name", "flags", "Features", "CPU part") and key not in fields:
            fields[key] = value.strip()
    return json.dumps(fields, sort_keys=True)


def fingerprint() -> str:
    """What a profile's measurements hold for: this CPU, ATen's ISA, torch, and nonlin's routes and kernels."""
    here = Path(__file__).resolve().parent
    sources = hashlib.sha1()
    for rel in ("route.py", "kernels/native32.py", "kernels/table.py", "kernels/dispatch.py"):
        sources.update((here / rel).read_bytes())
    blob = json.dumps(
        {
            "profile": PROFILE_VERSION,
            "cpu": _cpu_description(),
            "isa": torch.backends.cpu.get_cpu_capability(),
            "torch": torch.__version__,
            "sources": sources.hexdigest(),
        },
        sort_keys=True,
    )
    return hashlib.sha1(blob.encode()).hexdigest()[:16]


def disabled() -> bool:
    return os.environ.get("NONLIN_ROUTE_PROFILE", "") == "off"


def path() -> Path:
    """Where this machine's profile is (or would be written)."""
    env = os.environ.get("NONLIN_ROUTE_PROFILE", "")
    if env and env != "off":
        return Path(env)
    return cache_folder("routes") / f"routes-{fingerprint()}.json"


def load() -> Profile | None:
    """This machine's profile, or None: none written, profiles off, or one for another machine or code (a file
    that cannot be read warns and is ignored: the static table runs)."""
    if disabled():
        return None
    p = path()
    if not p.exists():
        return None
    try:
        data = json.loads(p.read_text())
        if data.get("fingerprint") != fingerprint():
            warnings.warn(f"nonlin: route profile {p} was measured on another machine or nonlin: ignored", stacklevel=3)
            return None
        choices: dict[Row, str] = {}
        times: dict[Row, dict[str, float]] = {}
        for item in data["rows"]:
            row = (item["entry"], item["dtype"], item["pass"], item["size"])
            if item["route"] not in ROUTES:
                raise ValueError(f"route {item['route']!r}")
            choices[row] = item["route"]
            times[row] = {r: float(item["ms"][r]) for r in ROUTES}
        prefetch = data.get("prefetch")
        if prefetch is not None and not isinstance(prefetch["on"], bool):
            raise ValueError(f"prefetch {prefetch['on']!r}")
        ns = {k: {w: float(v) for w, v in pair.items()} for k, pair in (prefetch or {}).get("ns", {}).items()}
        return Profile(p, choices, times, int(data["threads"]), None if prefetch is None else prefetch["on"], ns)
    except (OSError, ValueError, KeyError, TypeError) as e:
        warnings.warn(f"nonlin: route profile {p} is unreadable ({e}): ignored", stacklevel=3)
        return None


def save(
    choices: dict[Row, str],
    times_ms: dict[Row, dict[str, float]],
    threads: int,
    prefetch: bool | None = None,
    prefetch_ns: dict[str, dict[str, float]] | None = None,
) -> Path:
    """Write a profile atomically (a temporary file renamed over the old one): an interrupted run never leaves
    half a profile, and the previous one stays until the new one is complete."""
    p = path()
    rows: list[dict[str, Any]] = [
        {"entry": e, "dtype": d, "pass": ps, "size": z, "route": choices[(e, d, ps, z)], "ms": times_ms[(e, d, ps, z)]}
        for (e, d, ps, z) in sorted(choices)
    ]
    data = {
        "fingerprint": fingerprint(),
        "cpu": _cpu_description(),
        "isa": torch.backends.cpu.get_cpu_capability(),
        "torch": torch.__version__,
        "threads": threads,
        "rows": rows,
    }
    if prefetch is not None:
        data["prefetch"] = {"on": prefetch, "ns": prefetch_ns or {}}
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=p.name, suffix=".tmp")
    except OSError as e:
        raise ValueError(
            f"cannot write the route profile at {p} ({e}): set NONLIN_ROUTE_PROFILE to a file in a writable folder"
        ) from e
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p
