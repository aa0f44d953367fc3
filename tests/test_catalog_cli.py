"""The command line end to end: list, show and compare write what they say."""

from __future__ import annotations

import subprocess
import sys

from nonlin.cli import main


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "swiglu" in out and "sparsemax" in out


def test_list_by_kind(capsys):
    assert main(["list", "--kind", "gated"]) == 0
    out = capsys.readouterr().out
    assert "swiglu" in out and "sparsemax" not in out


def test_show_writes_a_plot(tmp_path, capsys):
    assert main(["show", "mish", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "x \\tanh" in out
    png = tmp_path / "mish.png"
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


def test_show_unknown_name_fails_cleanly(capsys):
    assert main(["show", "mishh", "--out", "/tmp"]) == 2
    assert "did you mean" in capsys.readouterr().out


def test_compare_writes_png_html_json(tmp_path):
    assert main(["compare", "relu", "gelu", "silu", "shifted_relu", "swiglu", "--out", str(tmp_path)]) == 0
    html = (tmp_path / "compare.html").read_text()
    assert html.startswith("<!doctype html>") and "data:image/png;base64," in html
    for n in ("relu", "gelu", "silu", "shifted_relu", "swiglu"):
        assert n in html
    assert (tmp_path / "compare.png").stat().st_size > 10_000
    assert '"names"' in (tmp_path / "compare.json").read_text()


def test_console_script_entry_point(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "nonlin.cli", "compare", "--out", str(tmp_path)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "compare.html").exists()
