"""The README's catalog table is generated from the catalog; it must be current."""

from pathlib import Path

from nonlin.catalog_table import END, START, block

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_catalog_table_is_current():
    text = README.read_text()
    current = text[text.index(START) : text.index(END) + len(END)]
    assert current == block(), "README table is stale: run `python -m nonlin.catalog_table README.md`"


def test_readme_opens_with_the_two_commands():
    lines = [ln.strip() for ln in README.read_text().splitlines() if ln.strip().startswith("./run ")]
    assert lines[0].startswith("./run main") and lines[1].startswith("./run test")
