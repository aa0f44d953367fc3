"""README's ratio tables (nonlin default / torch) from a benchmarks/kernels.py markdown table of float32 and
bfloat16 rows at 1024x4096 and 64x512 (gated: 1024x8192 and 64x1024 packed).

    python notes/2026-12-05h/readme_table.py OUT.md [entry ...]"""

import sys


def rows(path: str) -> dict[tuple[str, str, str, str], dict[str, str]]:
    with open(path) as f:
        lines = [line for line in f if line.startswith("|")]
    head = [c.strip() for c in lines[0].strip().strip("|").split("|")]
    out = {}
    for line in lines[2:]:
        cells = dict(zip(head, (c.strip() for c in line.strip().strip("|").split("|")), strict=True))
        size = "large" if cells["shape"].startswith("1024x") else "small"
        out[(cells["entry"], cells["dtype"], size, cells["pass"])] = cells
    return out


def main() -> None:
    table = rows(sys.argv[1])
    entries = sys.argv[2:] or list(dict.fromkeys(k[0] for k in table))
    columns = [
        ("float32", "large", "fwd"),
        ("float32", "large", "fwd+bwd"),
        ("bfloat16", "large", "fwd"),
        ("bfloat16", "large", "fwd+bwd"),
        ("float32", "small", "fwd+bwd"),
        ("bfloat16", "small", "fwd+bwd"),
    ]
    print(
        "| entry | float32 fwd | float32 fwd+bwd | bf16 fwd | bf16 fwd+bwd | 32K float32 fwd+bwd | 32K bf16 fwd+bwd "
        "| route (training: float32 / bf16) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for e in entries:
        ratios = [table.get((e, *c), {}).get("default/torch", "-") for c in columns]
        routes = [table.get((e, dt, "large", "fwd+bwd"), {}).get("route", "-") for dt in ("float32", "bfloat16")]
        route = routes[0] if routes[0] == routes[1] else " / ".join(routes)
        print(f"| {e} | " + " | ".join(ratios) + f" | {route} |")


if __name__ == "__main__":
    main()
