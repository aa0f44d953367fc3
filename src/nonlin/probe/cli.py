"""``nonlin probe``: run the probes on the bundled example model or on any importable model factory.

    nonlin probe                                         # bundled TinyTransformer (GELU, softmax)
    nonlin probe --model mypkg.models:build              # factory() -> model or (model, inputs)
    nonlin probe --model examples/probe_minilm.py:factory --out nonlin-out/minilm
    nonlin probe --swap gelu=relu --rank

Writes to --out: probe.txt (tables), probe.json and probe.png (watch), attention.json/.png when the
model has attention weights, rank.json/.png with --rank.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

import torch
from rich.console import Console
from rich.progress import Progress

console = Console()
DEFAULT_MODEL = "nonlin.probe.examples:tiny_transformer"


def load_factory(spec: str):
    """'package.module:function' or 'path/to/file.py:function' -> the function."""
    if ":" not in spec:
        raise ValueError(f"--model must look like 'module:function' or 'file.py:function'; got {spec!r}")
    mod_name, fn_name = spec.rsplit(":", 1)
    if mod_name.endswith(".py"):
        path = Path(mod_name)
        if not path.is_file():
            raise ValueError(f"--model: no file {mod_name!r}")
        mspec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(mspec)
        sys.modules[path.stem] = module
        mspec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(mod_name)
        except ImportError as err:
            raise ValueError(f"--model: cannot import {mod_name!r}: {err}") from None
    fn = getattr(module, fn_name, None)
    if not callable(fn):
        raise ValueError(f"--model: {mod_name!r} has no callable {fn_name!r}")
    return fn


def build(args: argparse.Namespace) -> tuple[torch.nn.Module, Any]:
    made = load_factory(args.model)()
    if isinstance(made, tuple) and len(made) == 2 and isinstance(made[0], torch.nn.Module):
        return made
    if not isinstance(made, torch.nn.Module):
        raise ValueError(
            f"--model factory must return a torch.nn.Module or (module, inputs); got {type(made).__name__}"
        )
    if not args.input_shape:
        raise ValueError("--model factory returned only a model: give --input-shape (e.g. 8,16) and --input-dtype")
    shape = tuple(int(s) for s in args.input_shape.split(","))
    if args.input_dtype == "long":
        return made, torch.randint(0, args.vocab, shape)
    return made, torch.randn(shape)


def _run(model: torch.nn.Module, inputs: Any) -> Any:
    from nonlin.probe.attention import _call

    return _call(model, inputs)


def handler(args: argparse.Namespace) -> int:
    from nonlin.probe import attention, hidden_rank, swap, watch

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model, inputs = build(args)
    texts = []
    if args.swap:
        mapping = {}
        for item in args.swap:
            if "=" not in item:
                raise ValueError(f"--swap takes old=new (e.g. gelu=relu); got {item!r}")
            old, new = item.split("=", 1)
            mapping[old] = new
        report = swap(model, mapping, example_inputs=inputs)
        texts.append("swap\n" + report.table())
        console.print(report.table(), soft_wrap=True, highlight=False)
    w = watch(model, tuple(args.metrics), eps=args.eps, measure=args.measure)
    with torch.no_grad(), w, Progress(console=console, transient=True) as progress:
        task = progress.add_task("forward passes", total=args.repeat)
        for _ in range(args.repeat):
            _run(model, inputs)
            progress.advance(task)
    table = w.table()
    console.print(table, soft_wrap=True, highlight=False)
    texts.append("watch\n" + table)
    plots = not args.no_plot
    paths = [w.to_json(out / "probe.json"), *([w.plot(out / "probe.png")] if plots else [])]
    try:
        att = attention(model, inputs)
    except ValueError as err:
        console.print(f"[yellow]attention:[/yellow] {err}")
    else:
        console.print(att.table(), soft_wrap=True, highlight=False)
        texts.append("attention\n" + att.table())
        paths += [att.to_json(out / "attention.json"), *([att.plot(out / "attention.png")] if plots else [])]
    if args.rank:
        rk = hidden_rank(model, inputs)
        console.print(rk.table(), soft_wrap=True, highlight=False)
        texts.append("hidden rank\n" + rk.table())
        paths += [rk.to_json(out / "rank.json"), *([rk.plot(out / "rank.png")] if plots else [])]
    (out / "probe.txt").write_text("\n\n".join(texts) + "\n")
    paths.insert(0, out / "probe.txt")
    for p in paths:
        console.print(f"wrote {p}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    from nonlin.probe.metrics import METRICS

    p = subparsers.add_parser("probe", help="measure the nonlinearities inside a model (table, JSON, plots)")
    p.add_argument(
        "--model",
        default=DEFAULT_MODEL,
        help=f"factory 'module:function' or 'file.py:function' (default {DEFAULT_MODEL})",
    )
    p.add_argument("--out", default="nonlin-out/probe", help="output folder (default nonlin-out/probe)")
    p.add_argument("--metrics", nargs="+", default=list(METRICS), choices=METRICS)
    p.add_argument("--repeat", type=int, default=3, help="forward passes to watch (default 3)")
    p.add_argument("--eps", type=float, default=1e-3, help="near-zero threshold |a| < eps (default 1e-3)")
    p.add_argument("--measure", choices=("output", "input"), default="output")
    p.add_argument("--swap", nargs="*", default=[], help="replace nonlinearities first, e.g. gelu=relu")
    p.add_argument("--rank", action="store_true", help="also the rank of hidden activations")
    p.add_argument("--no-plot", action="store_true", help="tables and JSON only, no PNG")
    p.add_argument("--input-shape", default="", help="inputs for factories returning only a model, e.g. 8,16")
    p.add_argument("--input-dtype", choices=("float", "long"), default="float")
    p.add_argument("--vocab", type=int, default=256, help="token range for --input-dtype long")
    p.set_defaults(func=handler)
