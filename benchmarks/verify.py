"""nonlin.verify against auto_LiRPA: bound widths, verified counts and times on digits MLPs, and the
tightness of single-activation relaxations, in one run.

    python benchmarks/verify.py [--lirpa-python PATH] [--eps 0.01] [--n 20] [--threads 1] [--acts ...]

- Models: digits (sklearn, bundled) MLPs 64-64-64-10 for each activation, trained here for a few seconds
  (Adam, full batch, seed 0, float64), verified in float32 (auto_LiRPA 0.7.1 fails on float64 models); inputs scaled to [0, 1]; the first `--n` test images, L-inf `--eps`.
- nonlin: verify.bounds / verify.margin_bounds with ibp, crown, alpha-crown (20 steps); median of three runs.
- auto_LiRPA (not a dependency) with `--lirpa-python PATH`: the Python of an environment that has it, e.g.
  `python -m venv --system-site-packages lirpa && lirpa/bin/pip install --no-deps appdirs graphviz
  ./auto_LiRPA` (0.7.1 is on GitHub, Verified-Intelligence/auto_LiRPA; PyPI has 0.3). The same weights
  and inputs go to benchmarks/verify_lirpa_worker.py there.
- Relaxation tightness: mean gap (mean over [l, u] of upper - lower bound) of each activation alone on
  1000 intervals (centres N(0, 2), widths log-uniform in [1e-3, 10]), nonlin vs auto_LiRPA's CROWN
  relaxation vs the exact interval (IBP) width.
Widths and gaps: smaller is tighter; margin: the mean lower bound of logit[y] - logit[j] over j != y
(margin_bounds), larger is tighter. `verified`: inputs whose margin lower bounds are all > 0.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table
from torch import nn

from nonlin import verify

ACTS = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "silu": nn.SiLU, "gelu": nn.GELU}
ACTS.update({"softplus": nn.Softplus, "elu": nn.ELU})
METHODS = ("ibp", "crown", "alpha-crown")
SIZES = (64, 64, 64, 64, 10)
console = Console()


def digits():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, test_size=0.2, random_state=0)
    t = torch.tensor
    return t(Xtr, dtype=torch.float64), t(ytr), t(Xte, dtype=torch.float64), t(yte)


def build(act: str) -> nn.Sequential:
    layers = []
    for i, (a, b) in enumerate(itertools.pairwise(SIZES)):
        layers.append(nn.Linear(a, b))
        if i < len(SIZES) - 2:
            layers.append(ACTS[act]())
    return nn.Sequential(*layers).double()


def train(act: str, Xtr, ytr, epochs: int = 300) -> nn.Sequential:
    torch.manual_seed(0)
    net = build(act)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    for _ in range(epochs):
        opt.zero_grad()
        nn.functional.cross_entropy(net(Xtr), ytr).backward()
        opt.step()
    return net.eval()


def timed(fn):
    out, ts = None, []
    for _ in range(3):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return out, statistics.median(ts)


def nonlin_row(net, x, y, eps, method):
    (lo, hi), t_b = timed(lambda: verify.bounds(net, x, eps, method))
    m, t_m = timed(lambda: verify.margin_bounds(net, x, y, eps, method))
    pred = net(x).argmax(1)
    verified = int(((m > 0).all(1) & (pred == y)).sum())
    margin = float(m[torch.isfinite(m)].mean())  # the label's own entry is +inf
    out = {"width": float((hi - lo).mean()), "margin": margin, "verified": verified}
    return out | {"time_bounds": t_b, "time_margin": t_m}


def gap_intervals(n: int = 1000):
    g = torch.Generator().manual_seed(1)
    c = torch.randn(n, generator=g, dtype=torch.float64) * 2
    w = 10 ** (torch.rand(n, generator=g, dtype=torch.float64) * 4 - 3)
    return c - w / 2, c + w / 2


def run_lirpa(python: str, models, x, y, eps, threads, acts):
    lo, hi = gap_intervals()
    with tempfile.TemporaryDirectory() as d:
        inp, out = Path(d) / "in.pt", Path(d) / "out.json"
        payload = {
            "models": {a: {"act": a, "sizes": SIZES, "state": m.state_dict()} for a, m in models.items()},
            "x": x,
            "y": y,
            "eps": eps,
            "threads": threads,
            "gap_acts": acts,
            "gap_lo": lo,
            "gap_hi": hi,
        }
        torch.save(payload, inp)
        worker = Path(__file__).with_name("verify_lirpa_worker.py")
        proc = subprocess.run([python, str(worker), str(inp), str(out)], capture_output=True, text=True)
        if proc.returncode:
            console.print(f"[red]auto_LiRPA worker failed[/red]: {proc.stderr[-2000:]}")
            return None
        return json.loads(out.read_text())


def fmt_time(t):
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lirpa-python", default=None, help="Python of an environment with auto_LiRPA")
    ap.add_argument("--eps", type=float, default=0.01)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--acts", nargs="*", default=list(ACTS))
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    Xtr, ytr, Xte, yte = digits()
    x, y = Xte[: args.n], yte[: args.n]
    models = {}
    x = x.float()  # verified in float32, auto_LiRPA's dtype (nonlin computes in float64 and rounds outward)
    for a in args.acts:
        models[a] = train(a, Xtr, ytr).float()
        acc = float((models[a](Xte.float()).argmax(1) == yte).double().mean())
        console.print(f"trained {a}: test accuracy {acc:.3f}")
    ours = {a: {meth: nonlin_row(models[a], x, y, args.eps, meth) for meth in METHODS} for a in args.acts}
    theirs = (
        run_lirpa(args.lirpa_python, models, x, y, args.eps, args.threads, args.acts) if args.lirpa_python else None
    )

    table = Table(title=f"digits MLP {'-'.join(map(str, SIZES[1:]))}, eps={args.eps}, {args.n} test images")
    for c in ("act", "method", "nonlin width", "nonlin margin", "nonlin verified", "nonlin time"):
        table.add_column(c)
    for c in ("auto_LiRPA width", "auto_LiRPA margin", "auto_LiRPA verified", "auto_LiRPA time"):
        table.add_column(c)
    table.add_column("time ratio (LiRPA/nonlin)")
    for a in args.acts:
        for meth in METHODS:
            o = ours[a][meth]
            t = (theirs or {}).get("models", {}).get(a, {}).get(meth) if theirs else None
            row = [a, meth, f"{o['width']:.7g}", f"{o['margin']:.7g}", f"{o['verified']}/{args.n}"]
            row.append(fmt_time(o["time_margin"]))
            if t is None:
                row += ["-", "-", "-", "-", "-"]
            elif "error" in t:
                row += [t["error"][:60], "-", "-", "-", "-"]
            else:
                ratio = t["time_margin"] / o["time_margin"]
                row += [f"{t['width']:.7g}", f"{t['margin']:.7g}", f"{t['verified']}/{args.n}"]
                row += [fmt_time(t["time_margin"]), f"{ratio:.2f}"]
            table.add_row(*row)
    console.print(table)

    lo, hi = gap_intervals()
    gaps = Table(title="relaxation tightness: mean gap over 1000 intervals (smaller is tighter)")
    for c in ("act", "nonlin", "auto_LiRPA", "exact range (IBP)", "nonlin / auto_LiRPA"):
        gaps.add_column(c)
    results = {
        "table": {a: {"nonlin": ours[a], "auto_LiRPA": (theirs or {}).get("models", {}).get(a)} for a in args.acts}
    }
    results["gaps"] = {}
    for a in args.acts:
        name = {"gelu": "gelu"}.get(a, a)
        r = verify.relax(name, lo, hi)
        ib_lo, ib_hi = verify.interval(name, lo, hi)
        ours_gap = float(r.mean_gap().mean())
        ibp_gap = float((ib_hi - ib_lo).mean())
        t = (theirs or {}).get("gaps", {}).get(a) if theirs else None
        if t is None or "error" in t:
            their = (t or {}).get("error", "-")[:50]
            ratio = "-"
        else:
            tg = torch.tensor(t["gap"], dtype=torch.float64)
            their = f"{float(tg.mean()):.4g}"
            ratio = f"{ours_gap / float(tg.mean()):.3f}"
        gaps.add_row(a, f"{ours_gap:.4g}", their, f"{ibp_gap:.4g}", ratio)
        results["gaps"][a] = {"nonlin": ours_gap, "ibp": ibp_gap, "auto_LiRPA": their}
    console.print(gaps)
    if theirs:
        console.print(f"auto_LiRPA {theirs['version']}, torch {torch.__version__}, threads {args.threads}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
