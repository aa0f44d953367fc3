"""The ULP metric and the non-finite mismatch counts.

Error of a result y against the exact value e, in ULPs of the output format: |y - e| / ulp(e), with
Goldberg's ulp (the gap between format numbers in e's binade; the subnormal gap below the normal range).
Correctly rounded means y is exactly the format value nearest to e (ties to even); that implies an error
of at most 0.5 ULP. Signed zeros: where e is not zero but rounds to zero, its sign is the sign of the
correct result; where e is exactly zero either sign is accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nonlin.accuracy.formats import Format
from nonlin.accuracy.reference import RefOutput

NONFINITE_KINDS = {
    "nan_where_finite": "NaN where the true value is a number (finite or infinite)",
    "overflow": "+-inf where the true value rounds to a finite number",
    "wrong_inf": "the true value rounds to +-inf, the result is finite or the other infinity",
    "missing_nan": "a number where the true value is undefined (NaN)",
    "wrong_signed_zero": "zero of the wrong sign where the true value is a nonzero number that rounds to zero",
}


def ulp_error(got: np.ndarray, exact: np.ndarray, fmt: Format) -> np.ndarray:
    """|got - exact| in ULPs of `fmt` at `exact`; inf where either is non-finite and they differ, 0 where equal."""
    got = np.asarray(got, dtype=np.float64)
    exact = np.asarray(exact, dtype=np.float64)
    with np.errstate(all="ignore"):
        err = np.abs(got - exact) / fmt.ulp(exact)
    same = (got == exact) | (np.isnan(got) & np.isnan(exact))
    return np.where(same, 0.0, np.where(np.isfinite(got) & np.isfinite(exact), err, np.inf))


@dataclass
class Stats:
    """Accuracy of one output (forward, or one gradient) in one format."""

    n: int
    max_ulp: float
    mean_ulp: float
    correctly_rounded: float  # share of all inputs
    nonfinite: dict[str, int]
    worst: list[dict[str, Any]] = field(default_factory=list)

    @property
    def nonfinite_total(self) -> int:
        return int(sum(self.nonfinite.values()))

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "max_ulp": self.max_ulp,
            "mean_ulp": self.mean_ulp,
            "correctly_rounded": self.correctly_rounded,
            "nonfinite": dict(self.nonfinite),
            "worst": self.worst,
        }


def measure(
    got: np.ndarray,
    ref: RefOutput,
    fmt: Format,
    inputs: dict[str, np.ndarray] | None = None,
    n_worst: int = 8,
    exclude: np.ndarray | None = None,
) -> tuple[Stats, np.ndarray]:
    """Stats of `got` against the reference, and the per-element ULP error (NaN where not comparable).

    `exclude`: elements left out of every statistic (check() leaves out gradients at NaN inputs)."""
    got = np.asarray(got, dtype=np.float64).ravel()
    rounded, exact, zero = ref.rounded.ravel(), ref.exact.ravel(), ref.exact_zero.ravel()
    full = got.size
    keep = np.ones(full, dtype=bool) if exclude is None else ~np.asarray(exclude, dtype=bool).ravel()
    got, rounded, exact, zero = got[keep], rounded[keep], exact[keep], zero[keep]
    inputs = {k: np.asarray(v).ravel()[keep] for k, v in (inputs or {}).items()}
    g_nan, r_nan = np.isnan(got), np.isnan(rounded)
    g_inf, r_inf = np.isinf(got), np.isinf(rounded)
    with np.errstate(invalid="ignore"):
        both_zero = (got == 0) & (rounded == 0)
        sign_bad = both_zero & (np.signbit(got) != np.signbit(rounded)) & ~zero
        counts = {
            "nan_where_finite": int(np.sum(g_nan & ~r_nan)),
            "overflow": int(np.sum(g_inf & ~r_inf & ~r_nan)),
            "wrong_inf": int(np.sum(r_inf & ~g_nan & (got != rounded))),
            "missing_nan": int(np.sum(~g_nan & r_nan)),
            "wrong_signed_zero": int(np.sum(sign_bad)),
        }
        comparable = np.isfinite(got) & np.isfinite(rounded)
        err = np.full(got.shape, np.nan)
        err[comparable] = ulp_error(got[comparable], exact[comparable], fmt)
        correct = ((got == rounded) & ~sign_bad) | (g_nan & r_nan)
    n = got.size
    errs = err[comparable]
    max_ulp = float(errs.max()) if errs.size else 0.0
    mean_ulp = float(errs.mean()) if errs.size else 0.0
    # worst: non-finite mismatches first, then the largest ULP errors
    bad = ~correct & (~comparable | sign_bad)
    order = np.concatenate([np.flatnonzero(bad)[:n_worst], np.argsort(-np.nan_to_num(err, nan=-1.0))[:n_worst]])
    worst, seen = [], set()
    for i in order:
        if len(worst) >= n_worst or i in seen or (comparable[i] and err[i] == 0 and correct[i]):
            continue
        seen.add(int(i))
        row = {k: float(v.ravel()[i]) for k, v in (inputs or {}).items()}
        row.update(
            got=float(got[i]),
            reference=float(rounded[i]),
            exact=float(exact[i]),
            ulp=float(err[i]) if comparable[i] else None,
        )
        worst.append(row)
    err_full = np.full(full, np.nan)
    err_full[keep] = err
    return Stats(n, max_ulp, mean_ulp, float(correct.mean()) if n else 1.0, counts, worst), err_full
