"""The `nonlin compare` report: a side-by-side table, one combined plot, a self-contained HTML page.

Later subsystems add to the same report by listing their module in `SECTION_MODULES`; the module defines
``compare_section(names, options) -> Section | None`` (None when it has nothing to say, e.g. no results
database). `options` holds the `nonlin compare` command-line options (see cli.COMPARE_OPTION_MODULES).
"""

from __future__ import annotations

import base64
import html
import importlib
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matplotlib import mathtext

from nonlin.plotting import plot
from nonlin.registry import spec

DEFAULT_COMPARE = (
    "relu",
    "gelu",
    "gelu_tanh",
    "silu",
    "mish",
    "shifted_relu",
    "softplus",
    "swiglu",
    "softmax",
)


@dataclass
class Section:
    """A block of the compare report: a table of rows (one per name) and optional images and prose."""

    title: str
    columns: list[str]
    rows: dict[str, dict[str, Any]]  # name -> column -> value
    note: str = ""
    images: list[Path] = field(default_factory=list)


SECTION_MODULES: list[str] = ["nonlin.arena.cli", "nonlin.accuracy.compare", "nonlin.theory.cli", "nonlin.verify.cli"]


def catalog_section(names: Sequence[str], options: dict[str, Any]) -> Section:
    rows = {}
    for n in names:
        s = spec(n)
        rows[s.name] = {
            "kind": s.kind.value,
            "formula": s.formula,
            "params": ", ".join(
                f"{p.name}={p.default:g}" if p.default is not None else f"{p.name}=auto" for p in s.params
            )
            or "-",
            "properties": ", ".join(sorted(s.properties)) or "-",
            "paper": str(s.paper) if s.paper else "-",
            "confirmed": "yes" if s.confirmed else "NO",
        }
    return Section("Catalog", ["kind", "formula", "params", "properties", "paper", "confirmed"], rows)


def build(names: Sequence[str], out: str | Path, options: dict[str, Any] | None = None) -> dict[str, Path]:
    """Write compare.png, compare.html and compare.json under `out`; return their paths."""
    options = dict(options or {})
    names = [spec(n).name for n in names]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    png = plot(names, out / "compare.png", title="nonlin compare: " + ", ".join(names))
    sections = [catalog_section(names, options)]
    for module in SECTION_MODULES:
        section = importlib.import_module(module).compare_section(names, options)
        if section is not None:
            sections.append(section)
    (out / "compare.json").write_text(
        json.dumps(
            {
                "names": names,
                "sections": [{"title": s.title, "rows": s.rows, "note": s.note} for s in sections],
            },
            indent=2,
            default=str,
        )
    )
    (out / "compare.html").write_text(_html(names, sections, png))
    return {"png": png, "html": out / "compare.html", "json": out / "compare.json"}


def to_mathtext(tex: str) -> str:
    """The catalog's LaTeX in the subset matplotlib's mathtext parses (no \\text, \\operatorname, \\left)."""
    t = tex.replace(r"\!", "").replace(r"\,", r"\ ").replace(r"\left", "").replace(r"\right", "")
    t = re.sub(r"\\operatorname\{(\w+)\}", r"\\mathrm{\1}", t)
    t = re.sub(r"\\text\{([^}]*)\}", lambda m: r"\mathrm{" + m.group(1).replace(" ", r"\ ") + "}", t)
    return t.replace(r"\mathbb{1}", r"\mathbf{1}")


def formula_svg(tex: str) -> str:
    """The formula typeset as inline SVG (self-contained); the LaTeX source as code when it cannot be parsed."""
    buf = io.BytesIO()
    try:
        mathtext.math_to_image(f"${to_mathtext(tex)}$", buf, dpi=90, format="svg")
    except Exception:  # pyparsing's ParseException is not a ValueError; any failure falls back to the source
        return f"<code>{html.escape(tex)}</code>"
    svg = buf.getvalue().decode()
    return svg[svg.index("<svg") :]


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="{html.escape(path.name)}" src="data:image/png;base64,{data}">'


def _html(names: Sequence[str], sections: Sequence[Section], png: Path) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>nonlin compare</title>",
        "<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
        "font-size:13px;vertical-align:top}th{background:#f3f3f3}img{max-width:100%}"
        ".no{color:#b00;font-weight:bold}code{font-size:12px}</style></head><body>",
        f"<h1>nonlin compare</h1><p>{html.escape(', '.join(names))}</p>",
        _img(png),
    ]
    for s in sections:
        parts.append(f"<h2>{html.escape(s.title)}</h2>")
        if s.note:
            parts.append(f"<p>{html.escape(s.note)}</p>")
        parts.append("<table><tr><th>name</th>" + "".join(f"<th>{html.escape(c)}</th>" for c in s.columns) + "</tr>")
        for name, row in s.rows.items():
            cells = []
            for c in s.columns:
                v = str(row.get(c, "-"))
                cls = " class='no'" if v == "NO" else ""
                cells.append(f"<td{cls}>{formula_svg(v) if c == 'formula' else html.escape(v)}</td>")
            parts.append(f"<tr><th>{html.escape(name)}</th>{''.join(cells)}</tr>")
        parts.append("</table>")
        parts.extend(_img(p) for p in s.images)
    parts.append("</body></html>")
    return "\n".join(parts)
