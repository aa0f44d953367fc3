"""Bad input gets a clear error naming what was wrong: unknown task or nonlinearity, bad options, an
unwritable output folder, a database from another schema version or not an arena database at all."""

from __future__ import annotations

import sqlite3

import pytest

from nonlin.arena import as_act, make_task
from nonlin.arena.store import SCHEMA_VERSION, Store
from nonlin.arena.sweep import Sweep
from nonlin.cli import main


def test_unknown_nonlinearity_suggests_close_names(tmp_path):
    with pytest.raises(ValueError, match=r"unknown nonlinearity name 'gleu'.*'gelu'"):
        Sweep(["relu", "gleu"], ["digits"], out=tmp_path)


def test_bad_nonlinearity_parameters():
    with pytest.raises(ValueError, match="tau"):
        as_act("shifted_relu:tau=abc")
    with pytest.raises(ValueError, match="key=value"):
        as_act("shifted_relu:0.5")
    with pytest.raises(ValueError, match="needs a name"):
        as_act(lambda x: x)
    with pytest.raises(TypeError, match="catalog name"):
        as_act(3)


def test_unknown_task_and_task_options():
    with pytest.raises(ValueError, match=r"unknown task 'digitz'.*'digits'"):
        make_task("digitz")
    with pytest.raises(ValueError, match=r"unknown option 'stepz=3'.*steps"):
        make_task("digits:stepz=3")
    with pytest.raises(ValueError, match=r"steps='many' is not a valid int"):
        make_task("digits:steps=many")
    with pytest.raises(TypeError, match="Task instance"):
        make_task(42)


def test_bad_seeds_workers_backend(tmp_path):
    with pytest.raises(ValueError, match="seeds must be at least 1"):
        Sweep(["relu"], ["digits"], seeds=0, out=tmp_path)
    with pytest.raises(ValueError, match="workers must be an int >= 0"):
        Sweep(["relu"], ["digits"], workers=-1, out=tmp_path)
    with pytest.raises(ValueError, match="backend must be 'local' or 'ray'"):
        Sweep(["relu"], ["digits"], backend="spark", out=tmp_path)


def test_unwritable_out_folder(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(ValueError, match=r"out='.*a-file/runs' is not a writable folder"):
        Sweep(["relu"], ["digits"], out=blocker / "runs")


def test_database_of_another_schema_version(tmp_path):
    Store(tmp_path).close()
    with sqlite3.connect(tmp_path / "arena.sqlite") as c:
        c.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(
        ValueError, match=rf"schema version {SCHEMA_VERSION + 1}, this nonlin .* reads version {SCHEMA_VERSION}"
    ):
        Store(tmp_path)
    with pytest.raises(ValueError, match="schema version"):
        Sweep(["relu"], ["wine:steps=2"], seeds=1, out=tmp_path, workers=0, progress=False).run()


def test_not_an_arena_database(tmp_path):
    with sqlite3.connect(tmp_path / "arena.sqlite") as c:
        c.execute("CREATE TABLE something (x)")
    with pytest.raises(ValueError, match="not an arena results database"):
        Store(tmp_path)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ValueError, match="not a usable arena results database"):
        Store(garbage)


def test_resume_without_results(tmp_path):
    with pytest.raises(ValueError, match="nothing to resume"):
        Sweep.resume(tmp_path / "nowhere")


def test_cli_reports_errors_with_exit_code_2(tmp_path, capsys):
    assert main(["arena", "--act", "gleu", "--task", "wine", "--out", str(tmp_path), "--no-progress"]) == 2
    assert "unknown nonlinearity name 'gleu'" in capsys.readouterr().out
    assert main(["arena", "--task", "nope", "--out", str(tmp_path), "--no-progress"]) == 2
    assert "unknown task 'nope'" in capsys.readouterr().out
    assert main(["arena", "--resume", str(tmp_path), "--act", "relu"]) == 2
    assert "--resume DIR finishes the stored sweep" in capsys.readouterr().out
    assert main(["arena", "report", str(tmp_path / "empty")]) == 2
    assert "no arena results database" in capsys.readouterr().out
