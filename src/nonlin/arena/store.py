"""The results database: SQLite, one file (``<out>/arena.sqlite``), schema documented in docs/arena.md.

Every finished run is written in one transaction (its row and its curves together), so a sweep killed at
any moment leaves only whole runs behind; the plan of every sweep is stored too, so ``--resume`` knows what
is left. Only the driver process writes (workers and Ray tasks return results to it).
"""

from __future__ import annotations

import json
import math
import platform
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch

import nonlin
from nonlin.arena.runner import RunResult

SCHEMA_VERSION = 2  # 2: lr, validation metric, baselines and threshold, metric hooks, warm-up time
DB_NAME = "arena.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweeps (
    sweep_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    spec       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS planned (
    run_id      TEXT PRIMARY KEY,
    sweep_id    INTEGER NOT NULL REFERENCES sweeps(sweep_id),
    task        TEXT NOT NULL,
    task_label  TEXT NOT NULL,
    act         TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    spec_json   TEXT NOT NULL,
    spec_pickle BLOB
);
CREATE TABLE IF NOT EXISTS runs (
    run_id          TEXT PRIMARY KEY,
    task            TEXT NOT NULL,
    task_label      TEXT NOT NULL,
    board           TEXT NOT NULL,
    task_config     TEXT NOT NULL,
    act             TEXT NOT NULL,
    act_config      TEXT NOT NULL,
    seed            INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('ok', 'diverged', 'failed')),
    metric_name     TEXT NOT NULL,
    goal            TEXT NOT NULL CHECK (goal IN ('max', 'min')),
    lr              REAL,
    final_metric    REAL,
    best_metric     REAL,
    val_metric      REAL,
    final_loss      REAL,
    max_loss_ratio  REAL,
    baselines       TEXT NOT NULL,
    threshold       REAL,
    metrics         TEXT NOT NULL,
    extras          TEXT NOT NULL,
    wall_s          REAL NOT NULL,
    train_s         REAL NOT NULL,
    warmup_s        REAL NOT NULL,
    throughput      REAL,
    throughput_unit TEXT NOT NULL,
    peak_rss_bytes  INTEGER,
    base_rss_bytes  INTEGER,
    sparsity        REAL,
    dead_rate       REAL,
    diverged_step   INTEGER,
    error           TEXT,
    info            TEXT NOT NULL,
    started_at      REAL NOT NULL,
    finished_at     REAL NOT NULL,
    host            TEXT NOT NULL,
    pid             INTEGER NOT NULL,
    backend         TEXT NOT NULL,
    versions        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS curves (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    series TEXT NOT NULL,
    step   INTEGER NOT NULL,
    value  REAL,
    PRIMARY KEY (run_id, series, step)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS runs_by_board_act ON runs(board, act);
"""

RUN_COLUMNS = [
    "run_id",
    "task",
    "task_label",
    "board",
    "task_config",
    "act",
    "act_config",
    "seed",
    "status",
    "metric_name",
    "goal",
    "lr",
    "final_metric",
    "best_metric",
    "val_metric",
    "final_loss",
    "max_loss_ratio",
    "baselines",
    "threshold",
    "metrics",
    "extras",
    "wall_s",
    "train_s",
    "warmup_s",
    "throughput",
    "throughput_unit",
    "peak_rss_bytes",
    "base_rss_bytes",
    "sparsity",
    "dead_rate",
    "diverged_step",
    "error",
    "info",
    "started_at",
    "finished_at",
    "host",
    "pid",
    "backend",
    "versions",
]
_JSON_COLUMNS = {"task_config", "act_config", "baselines", "metrics", "extras", "info", "versions"}


def db_path(location: str | Path) -> Path:
    """A results folder (its arena.sqlite) or a database file itself."""
    p = Path(location)
    if p.suffix in (".sqlite", ".db", ".sqlite3") or p.is_file():
        return p
    return p / DB_NAME


def _real(x: float | None) -> float | None:
    # SQLite turns NaN into NULL anyway; doing it here keeps inf out as well (NULL = absent or not finite).
    return x if x is not None and math.isfinite(x) else None


class Store:
    """An open results database. ``Store(path, create=True)``; use as a context manager to close it."""

    def __init__(self, location: str | Path, *, create: bool = True) -> None:
        self.path = db_path(location)
        if not create and not self.path.exists():
            raise ValueError(f"no arena results database at {self.path} (run `nonlin arena --out ...` first)")
        if create:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise ValueError(f"out={str(self.path.parent)!r} is not a writable folder: {err}") from None
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.conn.execute("PRAGMA foreign_keys = ON")
            self._check_or_create(create)
        except sqlite3.DatabaseError as err:
            raise ValueError(f"{self.path} is not a usable arena results database: {err}") from None

    def _check_or_create(self, create: bool) -> None:
        tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" in tables:
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            found = row[0] if row else None
            if found != str(SCHEMA_VERSION):
                raise ValueError(
                    f"{self.path} has arena schema version {found}, this nonlin ({nonlin.__version__}) reads "
                    f"version {SCHEMA_VERSION}; use another --out folder, or the nonlin version that wrote it"
                )
            return
        if tables:
            raise ValueError(
                f"{self.path} is an SQLite database but not an arena results database (tables: {sorted(tables)})"
            )
        if not create:
            raise ValueError(f"{self.path} is empty, not an arena results database")
        self.conn.execute("PRAGMA journal_mode = WAL")  # readers (report, compare) never block the writer
        with self.transaction():
            for statement in filter(str.strip, SCHEMA.split(";")):
                self.conn.execute(statement)
            meta = {
                "schema_version": str(SCHEMA_VERSION),
                "created_at": str(time.time()),
                "created_by": f"nonlin {nonlin.__version__}, torch {torch.__version__}, python {platform.python_version()}",
            }
            self.conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ plan
    def add_sweep(
        self, spec: dict[str, Any], planned: Iterable[tuple[str, str, str, str, int, str, bytes | None]]
    ) -> int:
        """Store a sweep and its planned runs (run_id, task, task_label, act, seed, spec_json, spec_pickle)."""
        with self.transaction() as c:
            cur = c.execute("INSERT INTO sweeps (created_at, spec) VALUES (?, ?)", (time.time(), json.dumps(spec)))
            sweep_id = int(cur.lastrowid)
            c.executemany(
                "INSERT OR IGNORE INTO planned VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(rid, sweep_id, t, tl, a, s, j, p) for rid, t, tl, a, s, j, p in planned],
            )
        return sweep_id

    def planned(self) -> list[dict[str, Any]]:
        cur = self.conn.execute(
            "SELECT run_id, task, task_label, act, seed, spec_json, spec_pickle FROM planned ORDER BY rowid"
        )
        return [
            dict(zip(("run_id", "task", "task_label", "act", "seed", "spec_json", "spec_pickle"), r, strict=True))
            for r in cur
        ]

    def status(self) -> dict[str, str]:
        """run_id -> status of every recorded run."""
        return dict(self.conn.execute("SELECT run_id, status FROM runs"))

    # ------------------------------------------------------------------ results
    def record(self, r: RunResult, backend: str, *, replace: bool = False) -> None:
        """Write one finished run and its curves in one transaction (replace: for a retried failed run)."""
        values = {
            **{k: getattr(r, k) for k in RUN_COLUMNS if hasattr(r, k)},
            "task_config": json.dumps(r.task_config, default=str),
            "act_config": json.dumps(r.act_config, default=str),
            "extras": json.dumps({k: _real(v) for k, v in r.extras.items()}),
            "baselines": json.dumps({k: _real(v) for k, v in r.baselines.items()}),
            "metrics": json.dumps({k: _real(v) for k, v in r.metrics.items()}),
            "info": json.dumps(r.info),
            "versions": json.dumps(r.versions),
            "backend": backend,
        }
        for k in (
            "final_metric",
            "best_metric",
            "val_metric",
            "final_loss",
            "max_loss_ratio",
            "threshold",
            "throughput",
            "sparsity",
            "dead_rate",
        ):
            values[k] = _real(values[k])
        row = tuple(values[k] for k in RUN_COLUMNS)
        points = [(r.run_id, series, int(step), _real(v)) for series, pts in r.curves.items() for step, v in pts]
        with self.transaction() as c:
            if replace:
                c.execute("DELETE FROM runs WHERE run_id = ?", (r.run_id,))
            c.execute(f"INSERT INTO runs VALUES ({', '.join('?' * len(RUN_COLUMNS))})", row)
            c.executemany("INSERT INTO curves VALUES (?, ?, ?, ?)", points)

    def runs(self) -> list[dict[str, Any]]:
        cur = self.conn.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs ORDER BY board, act, lr, seed")
        out = []
        for r in cur:
            d = dict(zip(RUN_COLUMNS, r, strict=True))
            for k in _JSON_COLUMNS:
                d[k] = json.loads(d[k])
            out.append(d)
        return out

    def curves(self) -> dict[str, dict[str, list[tuple[int, float | None]]]]:
        """run_id -> series -> [(step, value)]."""
        out: dict[str, dict[str, list[tuple[int, float | None]]]] = {}
        for rid, series, step, value in self.conn.execute(
            "SELECT run_id, series, step, value FROM curves ORDER BY run_id, series, step"
        ):
            out.setdefault(rid, {}).setdefault(series, []).append((step, value))
        return out

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta"))

    def sweeps(self) -> list[dict[str, Any]]:
        return [
            {"sweep_id": i, "created_at": t, "spec": json.loads(s)}
            for i, t, s in self.conn.execute("SELECT sweep_id, created_at, spec FROM sweeps ORDER BY sweep_id")
        ]
