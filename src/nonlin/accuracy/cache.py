"""On-disk cache of references: one compressed .npz per (entry, params, format, sample), keyed by a hash.

A reference output is stored as the correctly rounded value (float32, which holds bf16, fp16 and fp32
values exactly), the exact value's offset from it in 1/254 ULP steps (int8: the ULP errors reported are
exact to +-0.002 ULP) and a bit per element for "exact value is zero". Inputs are not stored: the
sampler regenerates them (seeded), and a checksum of them is kept to detect a change.

Location: $NONLIN_CACHE, else ~/.cache/nonlin/accuracy.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from nonlin.accuracy.formats import Format
from nonlin.accuracy.reference import REFERENCE_VERSION, RefOutput
from nonlin.accuracy.sampling import SAMPLE_VERSION
from nonlin.cache_folders import cache_folder

_Q = 254.0


def cache_dir(path: str | os.PathLike | None = None) -> Path:
    if path is not None:
        return Path(path)
    return cache_folder("accuracy")


def key(name: str, params: dict[str, Any], fmt: Format, size: int | None) -> str:
    blob = json.dumps(
        {
            "name": name,
            "params": {k: (None if v is None else float(v)) for k, v in sorted(params.items())},
            "format": fmt.name,
            "size": size,
            "reference": REFERENCE_VERSION,
            "sample": SAMPLE_VERSION,
        },
        sort_keys=True,
    )
    return f"{name}-{fmt.name}-{hashlib.sha1(blob.encode()).hexdigest()[:16]}"


def checksum(inputs: tuple[np.ndarray, ...]) -> str:
    h = hashlib.sha1()
    for a in inputs:
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()


def encode(ref: RefOutput, fmt: Format) -> dict[str, np.ndarray]:
    with np.errstate(all="ignore"):
        u = fmt.ulp(ref.rounded)
        q = np.where(np.isfinite(ref.rounded), np.rint((ref.exact - ref.rounded) / u * _Q), 0.0)
    return {
        "rounded": ref.rounded.astype(np.float32),
        "resid": np.clip(np.nan_to_num(q), -127, 127).astype(np.int8),
        "zero": np.packbits(ref.exact_zero),
    }


def decode(arrays: dict[str, np.ndarray], fmt: Format, n: int) -> RefOutput:
    rounded = arrays["rounded"].astype(np.float64)
    with np.errstate(all="ignore"):
        exact = np.where(
            np.isfinite(rounded), rounded + arrays["resid"].astype(np.float64) / _Q * fmt.ulp(rounded), rounded
        )
    # the sign of an underflowed exact value lives in the rounded zero
    exact = np.where(exact == 0, rounded, exact)
    zero = np.unpackbits(arrays["zero"], count=n).astype(bool)
    return RefOutput(rounded=rounded, exact=exact, exact_zero=zero)


def load(path: Path, outputs: tuple[str, ...], fmt: Format, sum_: str, n: int) -> dict[str, RefOutput] | None:
    if not path.exists():
        return None
    try:
        with np.load(path) as z:
            if str(z["checksum"]) != sum_:
                return None
            return {o: decode({k: z[f"{o}.{k}"] for k in ("rounded", "resid", "zero")}, fmt, n) for o in outputs}
    except (OSError, KeyError, ValueError):
        return None


def save(path: Path, refs: dict[str, RefOutput], fmt: Format, sum_: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {"checksum": np.array(sum_)}
    for o, r in refs.items():
        for k, v in encode(r, fmt).items():
            arrays[f"{o}.{k}"] = v
    tmp = path.with_suffix(f".tmp{os.getpid()}.npz")
    np.savez_compressed(tmp, **arrays)
    tmp.replace(path)  # atomic: parallel builders never see half a file
