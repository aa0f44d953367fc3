"""The README's table of entries, generated from the catalog (a test fails when the README is stale).

Update it with ``python -m nonlin.catalog_table README.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from nonlin.catalog import LEFT_OUT
from nonlin.registry import names, spec
from nonlin.spec import Kind

START, END = "<!-- catalog:start -->", "<!-- catalog:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _default(p) -> str:
    if p.boolean:
        return str(p.default)
    return "auto" if p.default is None else f"{p.default:g}"


def markdown() -> str:
    lines = []
    for kind in Kind:
        entries = names(kind)
        lines += [
            f"\n**{kind.value}** ({len(entries)})\n",
            "| name | formula | params | aliases | source | confirmed |",
        ]
        lines.append("|---|---|---|---|---|---|")
        for n in entries:
            s = spec(n)
            params = ", ".join(f"{p.name}={_default(p)}" for p in s.params)
            if len(s.params) > 4:
                params = f"{len(s.params)} coefficients"
            src = s.paper.ref if s.paper else "standard"
            conf = "yes" if s.confirmed else "**no**"
            aliases = ", ".join(_names(s)[:5])
            lines.append(f"| `{n}` | ${_cell(s.formula)}$ | {params} | {_cell(aliases)} | {src} | {conf} |")
    lines.append("\n**Not included**\n")
    lines += [f"- `{n}`: {why}" for n, why in LEFT_OUT.items()]
    return "\n".join(lines) + "\n"


def _names(s) -> list[str]:
    """Plain aliases, then each borrowed record: its first spellings and, where the library's defaults differ from
    nonlin's, those defaults ("softshrink/Softshrink (torch: tau=0.5)")."""
    out = list(s.aliases)
    for r in s.borrowed:
        spelled = [n for n in r.names if n != s.name][:2]
        if not spelled:
            continue
        differ = [f"{k}={v!r}" for k, v in r.defaults.items() if k not in r.choose and s.defaults().get(k, None) != v]
        out.append("/".join(spelled) + (f" ({r.library}: {', '.join(differ)})" if differ else ""))
    return out


def block() -> str:
    return f"{START}\n{markdown()}{END}"


def update(path: Path) -> bool:
    """Rewrite the block between the markers in `path`; True when it changed."""
    text = path.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    new = head + block() + tail
    path.write_text(new)
    return new != text


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["README.md"]:
        print(f"{arg}: {'updated' if update(Path(arg)) else 'up to date'}")
