"""`nonlin check` never loses or half-writes results (issue 13): bad arguments write nothing, a failed run
writes nothing, results replace old files atomically, Ctrl-C keeps finished entries and the next call
resumes from them, and long work shows progress."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nonlin.accuracy.cli as acli
from nonlin.cli import main

SRC = str(Path(__file__).resolve().parents[2] / "src")
FAST = ["--dtype", "bfloat16", "--no-backward"]


def _good_run(out: Path) -> dict[str, bytes]:
    assert main(["check", "relu", *FAST, "--out", str(out)]) == 0
    return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}


@pytest.mark.parametrize(
    ("argv", "pattern"),
    [
        (["--dtype", "float8"], "--dtype float8: unknown dtype"),
        (["--impl", "no_such_module:fn"], "impl='no_such_module:fn': cannot import module"),
        (["--size", "-5"], "--size -5: expected an integer from 4096"),
        (["--size", "1000"], "--size 1000: expected an integer from 4096"),
        (["--jobs", "0"], "--jobs 0: expected an integer >= 1"),
        (["--size-class", "huge"], "--size-class huge: expected 'small' or 'large'"),
    ],
)
def test_bad_arguments_are_named_and_write_nothing(tmp_path, capsys, argv, pattern):
    before = _good_run(tmp_path)
    capsys.readouterr()
    assert main(["check", "relu", *argv, "--out", str(tmp_path)]) == 2
    assert pattern in " ".join(capsys.readouterr().out.split())
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    assert after == before  # the earlier good accuracy-relu-nonlin.* is untouched


def test_a_run_where_every_entry_fails_writes_nothing(tmp_path, capsys, monkeypatch):
    before = _good_run(tmp_path)

    def broken(*a, **k):
        raise RuntimeError("impl raised")

    monkeypatch.setattr(acli, "check", broken)
    assert main(["check", "relu", *FAST, "--out", str(tmp_path)]) == 1
    assert "nothing written" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def test_results_are_replaced_by_rename(tmp_path, monkeypatch):
    _good_run(tmp_path)
    renames = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (renames.append((Path(a).name, Path(b).name)), real(a, b))[1])
    _good_run(tmp_path)
    targets = {b for _, b in renames}
    assert {"accuracy-relu-nonlin.json", "accuracy-relu-nonlin.md", "accuracy-relu-nonlin.html"} <= targets
    assert all(a.startswith(".") and ".tmp" in a for a, _ in renames)
    assert not [p for p in tmp_path.rglob("*.tmp*")]


def test_interrupt_keeps_finished_entries_and_the_next_call_resumes(tmp_path, capsys, monkeypatch):
    entries = ["relu", "relu6", "hardtanh"]
    real = acli.check
    calls = []

    def interrupted_at_hardtanh(name, *a, **k):
        calls.append(name)
        if name == "hardtanh":
            raise KeyboardInterrupt
        return real(name, *a, **k)

    monkeypatch.setattr(acli, "check", interrupted_at_hardtanh)
    assert main(["check", *entries, *FAST, "--out", str(tmp_path)]) == 130
    out = capsys.readouterr().out
    assert "interrupted" in out and "2 of 3 entries finished" in out and "Traceback" not in out
    assert not list(tmp_path.glob("accuracy-*"))  # no result file from an interrupted run
    kept = list((tmp_path / ".partial").glob("*/entry-*.json"))
    assert sorted(p.stem for p in kept) == ["entry-relu", "entry-relu6"]

    calls.clear()
    monkeypatch.setattr(acli, "check", lambda name, *a, **k: (calls.append(name), real(name, *a, **k))[1])
    assert main(["check", *entries, *FAST, "--out", str(tmp_path)]) == 0
    assert "resuming: 2 of 3 entries kept" in capsys.readouterr().out
    assert calls == ["hardtanh"]  # only the unfinished entry ran again
    data = json.loads((tmp_path / "accuracy-all-nonlin.json").read_text())
    assert [r["name"] for r in data["reports"]] == entries
    # a resumed entry keeps the route it was measured on
    assert "| relu6 | nonlin | torch/small | bfloat16 |" in (tmp_path / "accuracy-all-nonlin.md").read_text()
    assert not (tmp_path / ".partial").exists()  # cleaned once the run completed


def test_a_different_request_does_not_resume_from_another(tmp_path, capsys, monkeypatch):
    real = acli.check

    def stop(name, *a, **k):
        if name == "relu6":
            raise KeyboardInterrupt
        return real(name, *a, **k)

    monkeypatch.setattr(acli, "check", stop)
    assert main(["check", "relu", "relu6", *FAST, "--out", str(tmp_path)]) == 130
    monkeypatch.setattr(acli, "check", real)
    capsys.readouterr()
    assert main(["check", "relu", "relu6", "--dtype", "float16", "--no-backward", "--out", str(tmp_path)]) == 0
    assert "resuming" not in capsys.readouterr().out


def _sigint_run(tmp_path: Path, extra: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC, "NONLIN_CACHE": str(tmp_path / "cache")}
    cmd = [sys.executable, "-m", "nonlin.cli", "check", "relu", "relu6", "hardtanh", "leaky_relu", *FAST]
    cmd += ["--out", str(tmp_path / "o"), *extra]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list((tmp_path / "o").glob(".partial/*/entry-*.json")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])  # spawned workers: ~40 s
def test_ctrl_c_in_a_real_process_prints_a_short_message(tmp_path, jobs):
    r = _sigint_run(tmp_path, ["--jobs", jobs])
    if r.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert r.returncode == 130, (r.stdout, r.stderr)
    assert "interrupted" in r.stdout and "Traceback" not in r.stdout + r.stderr
    assert len(r.stdout) + len(r.stderr) < 4000
    assert list((tmp_path / "o").glob(".partial/*/entry-*.json"))  # the finished entries are kept


def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path, capsys):
    assert (
        main(["check", "relu", "--dtype", "bfloat16", "--dtype", "float16", "--no-backward", "--out", str(tmp_path)])
        == 0
    )
    err = capsys.readouterr().err
    assert "[1/2] check: relu bfloat16" in err and "[2/2] check: relu float16" in err
