"""The report (HTML and Markdown) from stored results, checked in a real headless browser when chromium is
installed (CI: apt-get install -y chromium); the CLI around it; the arena section of `nonlin compare`."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from nonlin.arena.report import build_report
from nonlin.arena.store import Store
from nonlin.arena.sweep import Sweep
from nonlin.cli import main

ACTS = ["relu", "gelu", "swiglu", "shifted_relu"]
TASKS = ["wine:steps=10", "sparsity:steps=10,hidden=32x32,eval_every=5", "periodic:steps=10"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("arena")
    Sweep(ACTS, TASKS, seeds=2, out=out, workers=0, progress=False, lr_grid=("x1", "x2")).run()
    return out


@pytest.fixture(scope="module")
def report(results):
    return build_report(results)


def test_report_files_and_content(report):
    paths = report
    page, md = paths["html"].read_text(), paths["markdown"].read_text()
    for name in [*ACTS, "wine", "sparsity", "periodic"]:
        assert name in page and name in md
    # self-contained: images inline, no external script, stylesheet or link to fetch
    assert "data:image/png;base64," in page
    assert not re.search(r"(src|href)=['\"]?(https?:|//)", page)
    assert "<script src" not in page
    assert page.count("<img") == 5  # 3 tasks + costs + sparsity
    for key, p in paths.items():
        if key.startswith("png:"):
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # leaderboard rows: rank or tie group, the mean with its 95% interval over 2 seeds, the median, the lr
    assert re.search(r"\| (1|tied 1-\d) \| \w+ \| [\d.e-]+ \[[\d.e-]+, [\d.e-]+\] \| [\d.e-]+ \| [\d.e-]+", md)
    assert "± 0" not in md and "images decoded" not in page
    # every leaderboard has its baselines and threshold beside the metric, and its lr curve
    for task in ("wine", "sparsity", "periodic"):
        (section,) = [part for part in md.split("\n## ") if part.startswith(task + ":")]
        assert "| baseline |" in section and "| threshold |" in section and "lr curve" in section
    assert "| baseline | majority |" in md and "| baseline | predict_zero |" in md
    assert "did not learn (chosen lr)" in md  # the summary's per-nonlinearity count
    assert page.count("sparsity over training") <= 1 and md.count("![sparsity]") == 1


def test_leaderboard_order_and_spread_match_the_stored_runs(results):
    from nonlin.arena.summary import leaderboards

    with Store(results, create=False) as s:
        runs = s.runs()
    boards = leaderboards(runs)
    for entries in boards.values():
        learned = [e.learned for e in entries]
        assert learned == sorted(learned, reverse=True)  # no entry that did not learn above one that did
        for group in (True, False):
            means = [e.mean for e in entries if e.learned is group and e.values]
            assert means == sorted(means, reverse=entries[0].goal == "max")
    wine = boards["wine:steps=10"]
    relu = next(e for e in wine if e.act == "relu")
    values = sorted(
        r["final_metric"] for r in runs if r["act"] == "relu" and r["task"] == "wine" and r["lr"] == relu.chosen_lr
    )
    assert sorted(relu.values) == values and len(values) == 2
    assert {p.lr for p in relu.lr_curve} == {r["lr"] for r in runs if r["task"] == "wine"}


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (CI: apt-get install -y chromium)")
def test_report_loads_in_headless_chromium(report, tmp_path):
    page = report["html"]
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=5000",
        "--dump-dom",
        page.resolve().as_uri(),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    check = re.search(r'id="loadcheck" data-images="(\d+)" data-decoded="(\d+)"', dom)
    assert check, "the page's load script did not run"
    assert check.group(1) == check.group(2) == "5"  # every inline PNG decoded by the browser
    assert "Uncaught" not in done.stderr and "CONSOLE" not in done.stderr
    text = re.sub(r"<[^>]+>", " ", dom)
    for name in [*ACTS, "wine", "sparsity", "periodic"]:
        assert name in text


def test_cli_sweep_report_and_compare(results, tmp_path, capsys):
    out = tmp_path / "cli"
    argv = [
        "arena",
        "--act",
        "relu",
        "silu",
        "--task",
        "wine:steps=5",
        "--seeds",
        "2",
        "--lr-grid",
        "x1",
        "x2",
        "--out",
        str(out),
        "--workers",
        "0",
        "--no-progress",
        "--no-report",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "wine:steps=5" in printed and "relu" in printed and "silu" in printed
    assert main(argv) == 0  # everything stored already: nothing runs again
    printed = capsys.readouterr().out
    assert "0 runs in" in printed and "8 already stored" in printed
    assert main(["arena", "report", str(out)]) == 0
    assert (out / "report.html").exists() and (out / "report.md").exists()

    cmp = tmp_path / "cmp"
    assert main(["compare", "relu", "gelu", "tanh", "--db", str(results), "--out", str(cmp)]) == 0
    page = (cmp / "compare.html").read_text()
    assert "Arena results" in page and "wine:steps=10" in page and "not run" in page  # tanh: no runs
