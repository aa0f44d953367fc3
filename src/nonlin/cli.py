"""The `nonlin` command line: list, show, compare, and the subcommands of each subsystem.

A subsystem adds its subcommands by listing its module in `SUBCOMMAND_MODULES`; the module defines
``register(subparsers)`` which adds parsers with ``set_defaults(func=handler)`` (a handler takes the
argparse Namespace and returns an exit code).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

try:  # the command line's packages are the cli extra; the library itself does not need them
    from rich.console import Console
    from rich.table import Table

    from nonlin.plotting import plot
    from nonlin.report import DEFAULT_COMPARE, build
except ModuleNotFoundError as e:  # tests/test_install.py runs it without them
    raise SystemExit(f"nonlin: the command line needs {e.name}: pip install 'nonlin[cli]'") from e

import nonlin
from nonlin import calling
from nonlin.registry import convention, names, spec
from nonlin.spec import Kind

SUBCOMMAND_MODULES: list[str] = [
    "nonlin.probe.cli",
    "nonlin.arena.cli",
    "nonlin.accuracy.cli",
    "nonlin.theory.cli",
    "nonlin.verify.cli",
    "nonlin.tune",
]
# Modules that add options to `nonlin compare` (e.g. --db for arena results): ``add_compare_options(parser)``.
COMPARE_OPTION_MODULES: list[str] = ["nonlin.arena.cli", "nonlin.accuracy.compare"]
console = Console()


def _list(args: argparse.Namespace) -> int:
    table = Table(title=f"nonlin catalog ({len(names(args.kind))} entries)", show_lines=False)
    for col in ("name", "kind", "formula", "properties", "paper"):
        table.add_column(col, overflow="fold")
    for n in names(args.kind):
        s = spec(n)
        flag = "" if s.confirmed else " [red](unconfirmed)[/red]"
        table.add_row(n + flag, s.kind.value, s.formula, ", ".join(sorted(s.properties)), str(s.paper or ""))
    console.print(table)
    return 0


def _default_layout(name: str) -> str:
    record = convention(name)
    return record.defaults.get("layout", "gate_value") if record else "gate_value"


def _show(args: argparse.Namespace) -> int:
    s = spec(args.name)
    console.print(f"[bold]{s.name}[/bold] ({s.kind.value}, family {s.family}): {s.summary}")
    console.print(f"  formula     {s.formula}")
    if s.aliases:
        console.print(f"  aliases     {', '.join(s.aliases)}")
    for record in s.borrowed:
        console.print(f"  borrowed    {calling.describe(record)}")
    for p in s.params:
        learn = " learnable" + (" (by default)" if p.learned_by_default else "") if p.learnable else ""
        console.print(
            f"  param       {p.name} = {p.default!r}: {p.doc}; {p.expected()}{learn}"
            + (f"; init {p.init}" if p.init else "")
        )
    console.print(f"  properties  {', '.join(sorted(s.properties)) or '-'}")
    if s.gradient_rule:
        console.print(f"  gradient    rule: {s.gradient_rule}")
    if s.kind is Kind.GATED:
        console.print(
            f"  input       packed [..., 2d], layout={_default_layout(s.name)!r} (layout= to change), or (gate, value)"
            + (f"; extra inputs {s.extra_inputs}" if s.extra_inputs else "")
        )
    if s.kind is Kind.NORMALIZER:
        console.print("  input       scores, dim=-1, mask=None (bool, True = key takes part)")
    if s.kind is Kind.SETWISE:
        size = s.output_size(12, **s.defaults())
        console.print(f"  input       x, dim=-1 (set-wise); a set of 12 along dim gives {size} outputs")
    console.print(f"  paper       {s.paper or '-'}")
    console.print(f"  confirmed   {'yes' if s.confirmed else '[red]NO[/red]'}" + (f": {s.source}" if s.source else ""))
    if s.notes:
        console.print(f"  notes       {s.notes}")
    out = Path(args.out)
    path = plot([s.name], out / f"{s.name}.png", title=f"{s.name}: {s.formula}")
    console.print(f"  plot        {path}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    chosen = args.names or list(DEFAULT_COMPARE)
    options = {k: v for k, v in vars(args).items() if k not in ("func", "names", "out")}
    paths = build(chosen, args.out, options)
    from nonlin.report import catalog_section

    section = catalog_section([spec(n).name for n in chosen], options)
    table = Table(title="nonlin compare")
    table.add_column("name")
    for c in ("kind", "formula", "params", "properties"):
        table.add_column(c, overflow="fold")
    for n, row in section.rows.items():
        table.add_row(n, row["kind"], row["formula"], row["params"], row["properties"])
    console.print(table)
    for what, p in paths.items():
        console.print(f"{what:5s} {p}")
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="nonlin", description="A workbench for the nonlinearities of neural networks.")
    ap.add_argument("--version", action="version", version=f"nonlin {nonlin.__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="table of every catalog entry")
    p.add_argument("--kind", choices=[k.value for k in Kind], default=None)
    p.set_defaults(func=_list)
    p = sub.add_parser("show", help="everything about one entry, and a plot of f and f'")
    p.add_argument("name")
    p.add_argument("--out", default="nonlin-out", help="folder for the plot (default: nonlin-out)")
    p.set_defaults(func=_show)
    p = sub.add_parser("compare", help="side-by-side table and plots (PNG and self-contained HTML)")
    p.add_argument("names", nargs="*", help=f"entries to compare (default: {' '.join(DEFAULT_COMPARE)})")
    p.add_argument("--out", default="nonlin-out/compare", help="folder for the report (default: nonlin-out/compare)")
    p.set_defaults(func=_compare)
    for module in COMPARE_OPTION_MODULES:
        importlib.import_module(module).add_compare_options(p)
    for module in SUBCOMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError) as err:
        console.print(f"[red]error:[/red] {err}")
        return 2
    except KeyboardInterrupt:  # commands that keep partial results say so themselves before this
        console.print("[red]interrupted[/red]")
        return 130


if __name__ == "__main__":
    sys.exit(main())
