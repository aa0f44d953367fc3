"""`nonlin theory NAME` (numbers and plots) and the theory section of `nonlin compare`."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from nonlin.progress import Steps
from nonlin.registry import spec
from nonlin.spec import Kind
from nonlin.theory import maps
from nonlin.theory.models import model
from nonlin.theory.quadrature import DTYPE

console = Console()
# torch.nn.Linear's default init (kaiming_uniform_ with a = sqrt 5) has weight variance 1 / (3 fan_in).
TORCH_DEFAULT_SIGMA_W = 1.0 / math.sqrt(3.0)


def _parse_params(items: Sequence[str]) -> dict[str, float]:
    out = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--param expects NAME=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = float(v)
        except ValueError:
            raise ValueError(
                f"--param {item}: the value of {k.strip()!r} must be a number, got {v.strip()!r}"
            ) from None
    return out


def phase_grid(name: str, sw2: np.ndarray, sb2: np.ndarray, iters: int = 150, **params: Any) -> np.ndarray:
    """chi_1 at the fixed point reached from q = 1, on a grid [len(sb2), len(sw2)], by iterating the variance
    map for all grid points at once (one vectorised quadrature per iteration)."""
    m = model(name, **params)
    SW2, SB2 = np.meshgrid(sw2, sb2)
    sw2_t = torch.tensor(SW2.reshape(-1), dtype=DTYPE)
    sb2_t = torch.tensor(SB2.reshape(-1), dtype=DTYPE)
    q = torch.ones_like(sw2_t)
    for _ in range(iters):
        q = (sw2_t * m.m2(q) + sb2_t).clamp(maps.Q_TINY, maps.Q_HUGE)
    chi = sw2_t * m.g2(q)
    return chi.reshape(SW2.shape).numpy()


PLOT_STEPS = 4
SUMMARY_SIDES = (0.0, 0.05, 0.1, 0.3)  # sigma_b values of the edge-of-chaos rows
SUMMARY_STEPS = 3 + len(SUMMARY_SIDES)


def _plots(name: str, out: Path, params: dict[str, float], steps: Steps) -> list[Path]:
    paths = []
    steps.start("variance map plot")
    gain = maps.init_gain(name, **params)
    # 1. variance map
    q = np.linspace(0.0, 4.0, 161)
    fig, ax = plt.subplots(figsize=(5, 4))
    for sw, sb in ((gain, 0.0), (gain, 0.3), (0.8 * gain, 0.1), (1.25 * gain, 0.1)):
        ax.plot(q, maps.variance_map(name, q, sigma_w=sw, sigma_b=sb, **params), label=f"σw={sw:.3g}, σb={sb:g}")
    ax.plot(q, q, "k:", lw=1, label="q_{l+1} = q_l")
    ax.set(xlabel="q_l", ylabel="q_{l+1}", title=f"{name}: variance map")
    ax.legend(fontsize=7)
    paths.append(out / f"{name}_variance_map.png")
    fig.tight_layout()
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    steps.done()
    # 2. correlation map at q*
    steps.start("correlation map plot")
    c = np.linspace(-1.0, 1.0, 41)
    fig, ax = plt.subplots(figsize=(5, 4))
    for sw, sb in ((0.8 * gain, 0.1), (gain, 0.1), (1.5 * gain, 0.1)):
        fp = maps.fixed_point(name, sw, sb, **params)
        if not (0 < fp.q_star < math.inf):
            continue
        ax.plot(
            c,
            maps.correlation_map(name, c, q_star=fp.q_star, sigma_w=sw, sigma_b=sb, **params),
            label=f"σw={sw:.3g} ({fp.phase}, χ1={fp.chi_1:.3g})",
        )
    ax.plot(c, c, "k:", lw=1)
    ax.set(xlabel="c_l", ylabel="c_{l+1}", title=f"{name}: correlation map at q*")
    ax.legend(fontsize=7)
    paths.append(out / f"{name}_correlation_map.png")
    fig.tight_layout()
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    steps.done()
    # 3. phase diagram with the critical line
    steps.start("phase diagram (χ1 on a 60 x 40 grid)")
    sw2 = np.linspace(0.05, 4.0 * max(gain**2, 1.0), 60)
    sb2 = np.linspace(0.0, 0.5, 40)
    chi = phase_grid(name, sw2, sb2, **params)
    fig, ax = plt.subplots(figsize=(5.5, 4))
    logchi = np.log(np.clip(chi, 1e-6, None))
    im = ax.pcolormesh(sw2, sb2, logchi, cmap="RdBu_r", vmin=-0.5, vmax=0.5, shading="auto")
    ax.contour(sw2, sb2, logchi, levels=[0.0], colors="w", linestyles="--", linewidths=1)
    fig.colorbar(im, ax=ax, label="log χ1 (blue: ordered, red: chaotic)")
    line = maps.critical_line(name, **params)
    keep = (line["sigma_b"] ** 2 <= sb2[-1]) & (line["sigma_w"] ** 2 <= sw2[-1])
    ax.plot(line["sigma_w"][keep] ** 2, line["sigma_b"][keep] ** 2, "k-", lw=2, label="edge of chaos (χ1 = 1)")
    ax.set(xlabel="σw²", ylabel="σb²", title=f"{name}: order / chaos")
    ax.legend(fontsize=7, loc="upper left")
    paths.append(out / f"{name}_phase_diagram.png")
    fig.tight_layout()
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    steps.done()
    # 4. depth scales along sigma_b = 0.05
    steps.start("depth scales plot")
    sws = np.sqrt(np.linspace(0.2, 3.0, 15)) * max(gain, 1.0)
    xi_q, xi_c = [], []
    for sw in sws:
        fp = maps.fixed_point(name, float(sw), 0.05, **params)
        xi_q.append(fp.xi_q)
        xi_c.append(fp.xi_c)
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.semilogy(sws**2, xi_q, "o-", label="ξ_q")
    ax.semilogy(sws**2, xi_c, "s-", label="ξ_c")
    ax.set(xlabel="σw²", ylabel="depth scale (layers)", title=f"{name}: depth scales at σb = 0.05")
    ax.legend()
    paths.append(out / f"{name}_depth_scales.png")
    fig.tight_layout()
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    steps.done()
    return paths


def summary(name: str, steps: Steps | None = None, **params: Any) -> dict[str, Any]:
    """The numbers `nonlin theory NAME` prints (JSON-ready); `steps` shows progress (SUMMARY_STEPS steps)."""
    steps = steps or Steps(SUMMARY_STEPS, name, enabled=False)
    s = spec(name)
    m = model(name, **params)
    steps.start("init gain and its fixed point")
    gain = maps.init_gain(name, **params)
    fp = maps.fixed_point(name, gain, 0.0, **params)
    steps.done()
    steps.start("χ1 at torch's default init")
    chi_default = maps.chi_1(name, 1.0, sigma_w=TORCH_DEFAULT_SIGMA_W, **params)
    steps.done()
    points = {}
    for sb in SUMMARY_SIDES:
        steps.start(f"edge of chaos at σb = {sb}")
        points[str(sb)] = maps.critical_point(name, sb, **params)
        steps.done()
    steps.start("sparsity at init")
    sparsity = maps.sparsity_at_init(name, q=1.0, **params).zero_fraction
    steps.done()
    out: dict[str, Any] = {
        "name": s.name,
        "kind": s.kind.value,
        "params": getattr(m, "params", None) or getattr(getattr(m, "unit", None), "params", {}),
        "init_gain": gain,
        "fixed_point_at_gain": fp.as_dict(),
        "chi_1_torch_default_init": chi_default,
        "edge_of_chaos_sigma_w": {sb: cp.sigma_w for sb, cp in points.items()},
        "edge_of_chaos_reason": {sb: cp.reason for sb, cp in points.items() if cp.reason},
        "sparsity_at_init_q1": sparsity,
        "gradient_rule": m.rule or None,
        "notes": list(m.notes),
    }
    if "m" in {p.name for p in s.params}:
        cl = maps.clip_level(name, **{k: v for k, v in params.items() if k != "m"})
        out["clip_level"] = {k: getattr(cl, k) for k in cl.__dataclass_fields__}
    return out


def _theory(args: argparse.Namespace) -> int:
    params = _parse_params(args.param or [])
    name = spec(args.name).name
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    total = SUMMARY_STEPS + (0 if args.no_plots else PLOT_STEPS)
    with Steps(total, f"theory {name}") as steps:
        nums = summary(name, steps, **params)
        paths = [] if args.no_plots else _plots(name, out, params, steps)
    table = Table(title=f"theory: {name}", show_header=False)
    fp = nums["fixed_point_at_gain"]
    stability = "" if fp["stable"] else f"  (unstable: V'(q*) = {fp['slope_q']:.6g} > 1, see the note)"
    reasons = nums["edge_of_chaos_reason"]
    rows = [
        ("init gain (q = 1)", f"{nums['init_gain']:.12g}"),
        ("q* at (σw = gain, σb = 0)", f"{fp['q_star']:.12g}{stability}"),
        ("χ1 there", f"{fp['chi_1']:.12g}  ({fp['phase']})"),
        ("V'(q*), ξ_q, ξ_c", f"{fp['slope_q']:.6g}, {fp['xi_q']:.6g}, {fp['xi_c']:.6g}"),
        ("χ1 at torch.nn.Linear default (σw² = 1/3, q = 1)", f"{nums['chi_1_torch_default_init']:.6g}"),
        *(
            (
                f"edge of chaos σw at σb = {sb}",
                f"none [{list(reasons).index(sb) + 1}]" if sb in reasons else f"{v:.12g}",
            )
            for sb, v in nums["edge_of_chaos_sigma_w"].items()
        ),
        ("sparsity at init P(φ = 0), q = 1", f"{nums['sparsity_at_init_q1']:.12g}"),
    ]
    if "clip_level" in nums:
        cl = nums["clip_level"]
        rows.append(
            (
                "clip level m (V'(q*) = 0.9 on the EoC, q* = 1)",
                f"{cl['m']:.8g} (σw={cl['sigma_w']:.6g}, σb={cl['sigma_b']:.6g})",
            )
        )
    if nums["gradient_rule"]:
        rows.append(("gradient side uses the rule", nums["gradient_rule"]))
    for n in (*fp["notes"], *nums["notes"]):
        rows.append(("note", n))
    for k, v in rows:
        table.add_row(k, v)
    console.print(table)
    for i, (sb, why) in enumerate(reasons.items(), 1):
        console.print(f"[{i}] no edge of chaos at σb = {sb}: {why}", highlight=False)
    (out / f"{name}_theory.json").write_text(json.dumps(nums, indent=2, default=str))
    for p in paths:
        console.print(f"wrote {p}")
    console.print(f"wrote {out / f'{name}_theory.json'}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "theory", help="signal-propagation theory of one entry: init gain, fixed point, edge of chaos, plots"
    )
    p.add_argument("name")
    p.add_argument("--param", action="append", metavar="NAME=VALUE", help="entry parameter (repeatable)")
    p.add_argument("--out", default="nonlin-out/theory", help="folder for plots and JSON (default: nonlin-out/theory)")
    p.add_argument("--no-plots", action="store_true", help="numbers only")
    p.set_defaults(func=_theory)


def _critical_cell(cp: maps.CriticalPoint) -> str:
    return f"{cp.sigma_w:.6g}" if not cp.reason else "none (chi_1 jumps past 1)" if "jumps" in cp.reason else "none"


def compare_section(names: Sequence[str], options: dict[str, Any]):
    from nonlin.report import Section

    rows = {}
    for n in names:
        s = spec(n)
        if s.kind in (Kind.NORMALIZER, Kind.SETWISE) or s.extra_inputs:
            rows[s.name] = {
                "init gain": "-",
                "χ1 at gain init": "-",
                "χ1 at torch default": "-",
                "sparsity at init": "-",
                "critical σw (σb=0)": "-",
            }
            continue
        gain = maps.init_gain(n)
        rows[s.name] = {
            "init gain": f"{gain:.6g}",
            "χ1 at gain init": f"{maps.chi_1(n, 1.0, sigma_w=gain):.6g}",
            "χ1 at torch default": f"{maps.chi_1(n, 1.0, sigma_w=TORCH_DEFAULT_SIGMA_W):.6g}",
            "sparsity at init": f"{maps.sparsity_at_init(n, q=1.0).zero_fraction:.4g}",
            "critical σw (σb=0)": _critical_cell(maps.critical_point(n, 0.0)),
        }
    return Section(
        "Theory (wide random networks)",
        ["init gain", "χ1 at gain init", "χ1 at torch default", "sparsity at init", "critical σw (σb=0)"],
        rows,
        note=(
            "init gain keeps the pre-activation variance at 1 (W ~ N(0, gain²/fan_in)); χ1 = σw² E[φ'(u)²] at "
            "q = 1 (> 1 chaotic, < 1 ordered); torch default: nn.Linear's σw² = 1/3; sparsity: P(φ(u) = 0), "
            "u ~ N(0, 1); critical σw: edge of chaos at σb = 0 (none: χ1 at the fixed point "
            "reached from q = 1 never equals 1; theory.critical_point says why). Normalizers are out of scope. See docs/theory.md."
        ),
    )
