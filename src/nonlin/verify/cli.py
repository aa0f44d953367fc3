"""`nonlin verify`: a plot of an entry's relaxation on an interval, or the certified accuracy of a model;
and the "Verification" section of `nonlin compare` (relaxation tightness on standard intervals)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from nonlin.registry import spec
from nonlin.report import Section
from nonlin.spec import Kind

F64 = torch.float64
# the intervals of the compare section: around 0, mostly negative, positive
STANDARD_INTERVALS = ((-1.0, 1.0), (-3.0, 0.5), (0.5, 4.0))


def register(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="plot an entry's linear bounds on [lower, upper], or print a model's certified accuracy",
        description="nonlin verify NAME --lower L --upper U  |  nonlin verify --model module:factory --eps 0.01",
    )
    p.add_argument("name", nargs="?", help="catalog entry to relax (pointwise)")
    p.add_argument("--lower", type=float, default=-2.0)
    p.add_argument("--upper", type=float, default=2.0)
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="entry parameter, e.g. alpha=0.5")
    p.add_argument("--out", default="nonlin-out", help="folder for the plot (default: nonlin-out)")
    p.add_argument("--model", help="module:factory; factory() returns a model, or (model, x, y)")
    p.add_argument("--eps", type=float, default=0.01, help="L-inf radius (default 0.01)")
    p.add_argument("--method", action="append", choices=["ibp", "crown", "alpha-crown"], help="default: ibp, crown")
    p.add_argument("--n", type=int, default=200, help="test images when the data is digits (default 200)")
    p.set_defaults(func=_run)


def _params(items: list[str]) -> dict[str, float]:
    out = {}
    for it in items:
        if "=" not in it:
            raise ValueError(f"--param must be K=V, got {it!r}")
        k, v = it.split("=", 1)
        out[k.strip()] = float(v)
    return out


def _run(args: argparse.Namespace) -> int:
    from rich.console import Console

    console = Console()
    if args.model:
        return _certify(args, console)
    if not args.name:
        raise ValueError("give an entry NAME (with --lower/--upper) or --model module:factory")
    path, text = plot_relaxation(args.name, args.lower, args.upper, args.out, **_params(args.param))
    console.print(text)
    console.print(f"plot  {path}")
    return 0


def plot_relaxation(name: str, lower: float, upper: float, out: str | Path, **params) -> tuple[Path, str]:
    """PNG of f on [lower, upper] with its linear bounds and exact range; returns (path, summary)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from nonlin import verify
    from nonlin.verify.curve import pointwise_curve

    s = spec(name)
    if s.kind is not Kind.POINTWISE:
        raise ValueError(f"nonlin verify NAME plots pointwise entries; {s.name} is {s.kind.value}")
    if not lower <= upper:
        raise ValueError(f"--lower must be <= --upper; got {lower} > {upper}")
    lo_t, hi_t = torch.tensor([lower], dtype=F64), torch.tensor([upper], dtype=F64)
    r = verify.relax(s.name, lo_t, hi_t, **params)
    ib_lo, ib_hi = verify.interval(s.name, lo_t, hi_t, **params)
    curve = pointwise_curve(s.name, params)
    pad = 0.25 * max(upper - lower, 1e-6)
    xs = torch.linspace(lower - pad, upper + pad, 801, dtype=F64)
    inside = torch.linspace(lower, upper, 401, dtype=F64)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(xs, curve.f(xs), color="0.6", lw=1, label=f"{s.name}")
    ax.plot(inside, curve.f(inside), color="k", lw=2)
    ax.plot(inside, r.lower_bound(inside), color="tab:blue", label="lower bound")
    ax.plot(inside, r.upper_bound(inside), color="tab:red", label="upper bound")
    ax.fill_between(
        [lower, upper], float(ib_lo), float(ib_hi), color="tab:green", alpha=0.12, label="exact range (IBP)"
    )
    for p in curve.points:
        if lower - pad < p < upper + pad:
            ax.axvline(p, color="0.85", lw=0.8, zorder=0)
    gap = float(r.mean_gap())
    ax.set_title(f"{s.name} on [{lower:g}, {upper:g}]: mean gap {gap:.4g}, IBP width {float(ib_hi - ib_lo):.4g}")
    ax.legend(fontsize=8)
    ax.set_xlabel("x")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"verify_{s.name}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    text = (
        f"{s.name} on [{lower:g}, {upper:g}]\n"
        f"  lower: {float(r.lower_slope):.17g} * x + {float(r.lower_intercept):.17g}\n"
        f"  upper: {float(r.upper_slope):.17g} * x + {float(r.upper_intercept):.17g}\n"
        f"  range: [{float(ib_lo):.17g}, {float(ib_hi):.17g}]\n"
        f"  mean gap {gap:.6g} (IBP width {float(ib_hi - ib_lo):.6g})"
    )
    return path, text


def _load_factory(target: str):
    if ":" not in target:
        raise ValueError(f"--model must be module:factory, got {target!r}")
    mod, attr = target.split(":", 1)
    try:
        fn = getattr(importlib.import_module(mod), attr)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"--model {target!r}: {err}") from None
    return fn()


def digits_test(n: int):
    """The digits test split (sklearn's bundled copy; 20% with random_state=0), inputs scaled to [0, 1]."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    _, Xte, _, yte = train_test_split(X / 16.0, y, test_size=0.2, random_state=0)
    return torch.tensor(Xte[:n], dtype=F64), torch.tensor(yte[:n])


def _certify(args, console) -> int:
    from rich.table import Table

    from nonlin import verify

    made = _load_factory(args.model)
    if isinstance(made, tuple):
        model, x, y = made
    else:
        model = made
        x, y = digits_test(args.n)
    model = model.eval()
    dtype = next(iter(model.parameters()), torch.zeros((), dtype=F64)).dtype
    x = x.to(dtype)
    with torch.no_grad():
        clean = float((model(x).argmax(-1) == y).double().mean())
    table = Table(title=f"certified accuracy at eps={args.eps} on {len(y)} inputs (clean accuracy {clean:.3f})")
    table.add_column("method")
    table.add_column("certified accuracy")
    for method in args.method or ["ibp", "crown"]:
        acc = verify.certified_accuracy(model, x, y, args.eps, method)
        table.add_row(method, f"{acc:.3f}")
    console.print(table)
    return 0


def compare_section(names: Sequence[str], options: dict[str, Any]) -> Section | None:
    from nonlin import verify
    from nonlin.verify.relax import unrelaxable

    refused = unrelaxable()
    cols = [f"[{a:g}, {b:g}]" for a, b in STANDARD_INTERVALS]
    rows = {}
    for n in names:
        s = spec(n)
        row = {}
        for (a, b), col in zip(STANDARD_INTERVALS, cols, strict=True):
            if s.name in refused or s.kind is Kind.NORMALIZER:
                row[col] = "-"
                continue
            lo = torch.tensor([a] * (2 if s.kind is Kind.GATED else 1), dtype=F64)[None]
            hi = torch.tensor([b] * (2 if s.kind is Kind.GATED else 1), dtype=F64)[None]
            r = verify.relax(s.name, lo, hi)
            ib_lo, ib_hi = verify.interval(s.name, lo, hi)
            row[col] = f"{float(r.mean_gap().mean()):.3g} ({float((ib_hi - ib_lo).mean()):.3g})"
        rows[s.name] = row
    return Section(
        "Verification (relaxation tightness)",
        cols,
        rows,
        note="mean gap of nonlin.verify's linear bounds over each input interval (gated: gate and value both in "
        "it), with the exact range's width (IBP) in parentheses; smaller is tighter. nonlin verify NAME plots one.",
    )
