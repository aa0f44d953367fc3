"""A sweep: nonlinearities x tasks x learning rates x seeds, planned into the results database, run on a
backend, resumable.

    Sweep(acts=["relu", "gelu", my_fn], tasks=["digits", MyTask()], seeds=3, out="runs").run()
    Sweep.resume("runs").run()          # after a crash or Ctrl-C: only what is not finished yet

Learning-rate fairness: every (task, nonlinearity) pair runs at each lr of a small grid around the task's
own lr (``lr_grid``, default x0.25, x0.5, x1, x2 of it), every seed at every lr; the report picks each
pair's lr by its mean metric on the validation split and shows the test metric there (``tune=False``: the
task's lr only). ``budget`` scales every task's steps (and its evaluation interval).

Runs are identified by task, task hyperparameters, nonlinearity label and seed (`runner.run_id`): a run
already stored (ok or diverged; failed too unless retry_failed) is never run again, in this sweep or a
later one writing to the same database.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import sys
import sysconfig
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import cloudpickle
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from nonlin.arena.acts import Act, as_acts, catalog_act, custom_act
from nonlin.arena.backends import make_backend
from nonlin.arena.metrics import RunMetric, as_metrics
from nonlin.arena.runner import RunResult, RunSpec
from nonlin.arena.store import Store, db_path
from nonlin.arena.tasks import Task, make_task, task_names

DEFAULT_ACTS = ("relu", "gelu", "silu", "swiglu", "shifted_relu", "clipped_shifted_relu", "snake")
# Every bundled task but py_lm, whose runs take minutes each (run it by name: --task py_lm).
DEFAULT_TASKS = ("digits", "breast_cancer", "wine", "sparsity", "deep_mlp", "periodic")
DEFAULT_SEEDS = 5
DEFAULT_OUT = "nonlin-out/arena"
DEFAULT_LR_GRID = ("x0.25", "x0.5", "x1", "x2")  # factors of each task's own lr (log-spaced, factor 2)


def parse_lr_grid(grid: Iterable[Any] | str) -> tuple[str | float, ...]:
    """``"x0.5,x1,x2"``, ``[1e-3, 3e-3]`` or a mix -> a grid: "xF" is a factor of the task's lr, a number an
    absolute lr. Every value must be positive and finite."""
    items = grid.replace(",", " ").split() if isinstance(grid, str) else list(grid)
    out: list[str | float] = []
    for item in items:
        text = str(item).strip()
        factor = text.lower().startswith("x")
        try:
            value = float(text[1:] if factor else text)
        except ValueError:
            raise ValueError(
                f"lr_grid: {item!r} is neither a factor of the task's lr ('x0.5') nor a learning rate ('3e-3')"
            ) from None
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"lr_grid: {item!r} must be positive and finite")
        out.append(f"x{value:g}" if factor else value)
    if not out:
        raise ValueError("lr_grid must hold at least one value (tune=False runs the task's own lr)")
    return tuple(dict.fromkeys(out))


def lr_values(task: Task, grid: tuple[str | float, ...]) -> list[float] | None:
    """The learning rates of `grid` for `task` (sorted), or None when the task has no ``lr`` field."""
    base = getattr(task, "lr", None)
    if not isinstance(base, (int, float)) or isinstance(base, bool):
        return None
    values = {float(f"{base * float(g[1:]):.6g}") if isinstance(g, str) else float(g) for g in grid}
    return sorted(values)


def scale_budget(task: Task, budget: float) -> Task:
    """`task` with its budget fields (``steps``, ``eval_every`` and any named in ``budget_fields``) scaled."""
    if budget == 1:
        return task
    names = {f.name for f in dataclasses.fields(task)}
    changes = {
        k: max(1, round(getattr(task, k) * budget))
        for k in getattr(type(task), "budget_fields", ("steps", "eval_every"))
        if k in names and isinstance(getattr(task, k), int)
    }
    if "steps" not in changes:
        raise ValueError(f"budget={budget}: task {task.name} has no integer 'steps' field to scale")
    return dataclasses.replace(task, **changes)


@dataclass
class SweepOutcome:
    """What one `Sweep.run()` did: the runs it executed (in finishing order), how many were already stored,
    the (task, act, reason) pairs skipped as not applicable, and the database path."""

    db: Path
    executed: list[RunResult] = field(default_factory=list)
    already_done: int = 0
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def counts(self) -> dict[str, int]:
        out = {"ok": 0, "diverged": 0, "failed": 0}
        for r in self.executed:
            out[r.status] += 1
        return out


def _seeds(seeds: int | Iterable[int]) -> list[int]:
    if isinstance(seeds, bool):
        raise TypeError(f"seeds must be a count (int >= 1) or a list of ints; got {seeds!r}")
    if isinstance(seeds, int):
        if seeds < 1:
            raise ValueError(f"seeds must be at least 1; got {seeds}")
        return list(range(seeds))
    out = list(seeds)
    if not out or not all(isinstance(s, int) and not isinstance(s, bool) for s in out):
        raise ValueError(f"seeds must be a count (int >= 1) or a non-empty list of ints; got {seeds!r}")
    return list(dict.fromkeys(out))


def _tasks(tasks: Any) -> list[Task]:
    if tasks is None:
        return [make_task(n) for n in DEFAULT_TASKS]
    if isinstance(tasks, (str, Task)):
        tasks = [tasks]
    out = [make_task(t) for t in tasks]
    if not out:
        raise ValueError("tasks must name at least one task")
    return out


def _check_writable(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".nonlin-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as err:
        raise ValueError(f"out={str(out)!r} is not a writable folder: {err.strerror or err}") from None


class Sweep:
    """Nonlinearities x tasks x seeds. See the module docstring; every argument is checked when constructed.

    acts: catalog names (``"shifted_relu:tau=0.5"``), ``(name, params)`` pairs, callables, or a
    ``{name: callable}`` dict. tasks: bundled task names (``"digits:steps=50"``) or Task instances; None =
    ``DEFAULT_TASKS`` (every bundled task but py_lm). seeds: a count (seeds 0..n-1) or a list. out: the
    results folder (``arena.sqlite`` and the report go there). workers: runs at once (local: processes, 0 = in this process; default the
    CPU count). backend: "local" or "ray" (address: "auto" for a running cluster). lr_grid: see
    `parse_lr_grid`; tune=False: each task's own lr only. budget: a factor on every task's steps.
    metrics: per-run metric hooks (`nonlin.arena.metrics.RunMetric`; None: ``DEFAULT_METRICS``).
    """

    def __init__(
        self,
        acts: Any = DEFAULT_ACTS,
        tasks: Any = None,
        seeds: int | Iterable[int] = DEFAULT_SEEDS,
        out: str | Path = DEFAULT_OUT,
        *,
        workers: int | None = None,
        backend: str = "local",
        address: str | None = None,
        retry_failed: bool = False,
        progress: bool = True,
        lr_grid: Iterable[Any] | str = DEFAULT_LR_GRID,
        tune: bool = True,
        budget: float = 1.0,
        metrics: Iterable[RunMetric] | None = None,
    ) -> None:
        if backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray'; got {backend!r}")
        if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 0):
            raise ValueError(f"workers must be an int >= 0 (0: run in this process); got {workers!r}")
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not (0 < budget < math.inf):
            raise ValueError(f"budget must be a positive number (a factor on every task's steps); got {budget!r}")
        self.lr_grid = parse_lr_grid(lr_grid)
        self.tune, self.budget = bool(tune), float(budget)
        self.metrics = as_metrics(metrics)
        self.acts: list[Act] = as_acts(acts)
        self.tasks: list[Task] = [scale_budget(t, self.budget) for t in _tasks(tasks)]
        self.seeds = _seeds(seeds)
        self.out = Path(out)
        self.workers, self.backend, self.address = workers, backend, address
        self.retry_failed, self.progress = retry_failed, progress
        self._resume_specs: list[RunSpec] | None = None
        _check_writable(self.out if db_path(self.out).parent == self.out else db_path(self.out).parent)

    @classmethod
    def resume(cls, out: str | Path, **kwargs: Any) -> Sweep:
        """The sweep(s) stored in `out`, to run what is not finished yet (kwargs: workers, backend, ...)."""
        path = db_path(out)
        if not path.exists():
            raise ValueError(f"nothing to resume: no arena results database at {path}")
        with Store(path, create=False) as store:
            planned = store.planned()
        if not planned:
            raise ValueError(f"nothing to resume: {path} holds no planned runs")
        specs = [_spec_from_row(row) for row in planned]
        self = cls.__new__(cls)
        # Runs of one custom nonlinearity unpickle to distinct function objects: one Act per label.
        acts = list({s.act.label: s.act for s in specs}.values())
        tasks = list({s.task.label(): s.task for s in specs}.values())
        self.__init__(acts=acts, tasks=tasks, out=out, **kwargs)
        self.seeds = sorted({s.seed for s in specs})
        self._resume_specs = [dataclasses.replace(s, metrics=self.metrics) for s in specs]
        return self

    # ------------------------------------------------------------------ plan
    def plan(self) -> tuple[list[RunSpec], list[tuple[str, str, str]]]:
        """Every run of the sweep, and the (task, act, reason) pairs that cannot run."""
        if self._resume_specs is not None:
            return list(self._resume_specs), []
        specs, skipped = [], []
        for task in self.tasks:
            for act in self.acts:
                reason = task.supports(act)
                if reason:
                    skipped.append((task.label(), act.label, reason))
                    continue
                for variant in self.lr_variants(task):
                    specs.extend(RunSpec(variant, act, seed, self.metrics) for seed in self.seeds)
        return specs, skipped

    def lr_variants(self, task: Task) -> list[Task]:
        """`task` at each lr of the grid (just `task` when not tuning or when it has no lr field)."""
        values = lr_values(task, self.lr_grid) if self.tune else None
        if values is None:
            return [task]
        return [dataclasses.replace(task, lr=v) for v in values]

    def _spec_json(self) -> dict[str, Any]:
        return {
            "acts": [a.to_json() for a in self.acts],
            "tasks": [t.to_json() for t in self.tasks],
            "seeds": self.seeds,
            "lr_grid": list(self.lr_grid) if self.tune else None,
            "budget": self.budget,
            "metrics": [m.name for m in self.metrics],
            "backend": self.backend,
            "workers": self.workers,
        }

    # ------------------------------------------------------------------ run
    def run(self, on_result: Callable[[RunResult], None] | None = None) -> SweepOutcome:
        """Run what is not stored yet; each finished run is committed before `on_result(result)` is called
        (an exception from it stops the sweep: what was committed stays, the rest is left for resume)."""
        t0 = time.perf_counter()
        specs, skipped = self.plan()
        outcome = SweepOutcome(db=db_path(self.out), skipped=skipped)
        with Store(self.out) as store:
            if self._resume_specs is None:
                store.add_sweep(self._spec_json(), [_planned_row(s) for s in specs])
            status = store.status()
            todo = [s for s in specs if s.run_id not in status or (self.retry_failed and status[s.run_id] == "failed")]
            outcome.already_done = len(specs) - len(todo)
            # Longest tasks first: the tail of the sweep is short runs, so workers finish together.
            todo.sort(key=lambda s: -s.task.cost)
            backend = make_backend(self.backend, self.workers, self.address)
            items = [(s.run_id, payload(s)) for s in todo]
            cost = {s.run_id: s.task.cost for s in todo}
            with _Progress(len(todo), sum(cost.values()), outcome.already_done, self.progress) as bar:
                for result in backend.results(items, bar.started):
                    store.record(result, backend.name, replace=result.run_id in status)
                    outcome.executed.append(result)
                    bar.finished(result, cost[result.run_id])
                    if on_result is not None:
                        on_result(result)
        outcome.wall_s = time.perf_counter() - t0
        return outcome

    def report(self, out: str | Path | None = None) -> dict[str, Path]:
        from nonlin.arena.report import build_report

        return build_report(self.out, out)


def _planned_row(s: RunSpec) -> tuple[str, str, str, str, int, str, bytes | None]:
    spec_json = json.dumps({"task": s.task.to_json(), "act": s.act.to_json(), "seed": s.seed}, default=str)
    custom = not _is_bundled(s.task) or not s.act.is_catalog
    return (
        s.run_id,
        s.task.name,
        s.task.label(),
        s.act.label,
        s.seed,
        spec_json,
        payload(s) if custom else None,
    )


def _user_module(obj: Any) -> ModuleType | None:
    """The module defining `obj` when it is the user's own code (not nonlin, not an installed library, not
    the standard library): such modules may not be importable where the run executes (a Ray node, a later
    resume), so their code travels by value."""
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    file = getattr(module, "__file__", None)
    if module is None or file is None or module.__name__ == "__main__" or module.__name__.split(".")[0] == "nonlin":
        return None
    roots = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    if any(Path(file).resolve().is_relative_to(Path(r).resolve()) for r in roots):
        return None
    return module


def payload(spec: RunSpec) -> bytes:
    """The RunSpec as bytes for a worker, with the user's own task and nonlinearity code inside."""
    modules = {m for m in (_user_module(type(spec.task)), _user_module(spec.act.fn)) if m is not None}
    for m in modules:
        cloudpickle.register_pickle_by_value(m)
    try:
        return cloudpickle.dumps(spec)
    finally:
        for m in modules:
            cloudpickle.unregister_pickle_by_value(m)


def _is_bundled(task: Task) -> bool:
    try:
        return type(make_task(task.name)) is type(task)
    except ValueError:
        return False


def _import(ref: str | None) -> Any:
    if not ref:
        return None
    module, _, qual = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in qual.split("."):
            obj = getattr(obj, part)
        return obj
    except (ImportError, AttributeError):
        return None


def _spec_from_row(row: dict[str, Any]) -> RunSpec:
    """A planned run back from the database: bundled tasks and catalog entries from their JSON (robust to code
    changes), custom ones from their import path or else the stored cloudpickle."""
    d = json.loads(row["spec_json"])
    task_json, act_json = d["task"], d["act"]
    task = act = None
    if task_json["name"] in task_names() and _import(task_json["ref"]) is type(make_task(task_json["name"])):
        task = make_task(task_json["name"], **_tuples(task_json["config"]))
    elif (cls := _import(task_json["ref"])) is not None:
        task = cls(**_tuples(task_json["config"]))
    if act_json["name"]:
        act = catalog_act(act_json["name"], act_json["params"])
    elif (fn := _import(act_json["ref"])) is not None:
        act = custom_act(fn, act_json["label"], act_json["kind"])
    if task is None or act is None:
        if row["spec_pickle"] is None:
            raise ValueError(
                f"cannot rebuild planned run {row['run_id']} ({row['task']} x {row['act']}): not importable"
            )
        try:
            stored: RunSpec = cloudpickle.loads(row["spec_pickle"])
        except Exception as err:
            raise ValueError(
                f"cannot rebuild planned run {row['run_id']} ({row['task']} x {row['act']}): its custom task or "
                f"nonlinearity no longer loads ({type(err).__name__}: {err}); resume it from the script that defined it"
            ) from None
        task, act = task or stored.task, act or stored.act
    spec = RunSpec(task, act, int(d["seed"]))
    if spec.run_id != row["run_id"]:
        raise ValueError(f"planned run {row['run_id']} rebuilt as {spec.run_id}: its task or nonlinearity changed")
    return spec


def _tuples(config: dict[str, Any]) -> dict[str, Any]:
    # JSON has no tuples: hyperparameters like hidden=(64, 64) come back as lists.
    return {k: tuple(v) if isinstance(v, list) else v for k, v in config.items()}


class _Progress:
    """Runs done, running, failed, diverged and time left (estimated from the tasks' relative costs)."""

    def __init__(self, total: int, cost: float, already: int, enabled: bool) -> None:
        self.total, self.done, self.running, self.failed, self.diverged = total, 0, 0, 0, 0
        self.already = already
        self.progress = Progress(
            TextColumn("[bold]arena[/bold]"),
            BarColumn(bar_width=24),
            TaskProgressColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(compact=True),
            console=Console(stderr=True),
            disable=not enabled,
        )
        self.task = self.progress.add_task("runs", total=max(cost, 1e-9), counts=self._counts())

    def _counts(self) -> str:
        kept = f" +{self.already} kept" if self.already else ""
        return (
            f"{self.done}/{self.total} done{kept} {self.running} running {self.failed} failed {self.diverged} diverged"
        )

    def __enter__(self) -> _Progress:
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def started(self, run_id: str) -> None:
        self.running += 1
        self.progress.update(self.task, counts=self._counts())

    def finished(self, r: RunResult, cost: float) -> None:
        self.running -= 1
        self.done += 1
        self.failed += r.status == "failed"
        self.diverged += r.status == "diverged"
        self.progress.update(self.task, advance=cost, counts=self._counts())


def sweep(acts: Any = DEFAULT_ACTS, tasks: Any = None, seeds: Any = DEFAULT_SEEDS, out: Any = DEFAULT_OUT, **kw: Any):
    """Shorthand: ``Sweep(...).run()``."""
    return Sweep(acts, tasks, seeds, out, **kw).run()


__all__ = [
    "DEFAULT_ACTS",
    "DEFAULT_LR_GRID",
    "DEFAULT_OUT",
    "DEFAULT_SEEDS",
    "DEFAULT_TASKS",
    "Sweep",
    "SweepOutcome",
    "parse_lr_grid",
    "sweep",
]
