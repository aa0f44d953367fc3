"""Where runs execute: in this process, in worker processes on this machine, or as Ray tasks.

A backend takes (run_id, payload) pairs (the payload is a cloudpickled RunSpec, so custom tasks and
nonlinearities defined in a script or notebook travel too) and yields RunResults as they finish, keeping at
most `workers` runs in flight. It never touches the database: the driver writes every result.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

import cloudpickle

from nonlin.arena.runner import RunResult, execute

Started = Callable[[str], None]
POLL_S = 0.5  # how often the driver wakes up to refresh the progress bar while runs are in flight


class WorkerDied(RuntimeError):
    """A worker process died (killed or crashed) while it ran a run; finished runs are saved."""


def run_payload(payload: bytes) -> RunResult:
    return execute(cloudpickle.loads(payload))


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def _init_worker() -> None:
    # The driver owns Ctrl-C: it stops the workers itself, so they must not die half-way on SIGINT.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import torch

    torch.set_num_threads(1)
    import nonlin.arena.tasks  # noqa: F401  (import cost paid once per worker, not in a run's wall time)
    from nonlin.arena.tasks.classification import _dataset
    from nonlin.arena.tasks.lm import _ngram_counts, stdlib_corpus

    for name in ("digits", "breast_cancer", "wine"):
        _dataset(name)
    with contextlib.suppress(RuntimeError):  # no stdlib sources here: py_lm runs fail and say why
        stdlib_corpus(), _ngram_counts()
    from nonlin.arena import integrations

    integrations.theory_module(), integrations.init_module(), integrations._watch()


class InProcess:
    """Runs one after another in this process (workers=0): for debugging and for small test sweeps."""

    name = "inprocess"

    def results(self, items: Sequence[tuple[str, bytes]], started: Started) -> Iterator[RunResult]:
        for rid, payload in items:
            started(rid)
            yield run_payload(payload)


class LocalProcesses:
    """Worker processes on this machine (spawned, one torch thread each), `workers` runs at a time."""

    name = "local"

    def __init__(self, workers: int) -> None:
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int for the local backend; got {workers!r}")
        self.workers = workers

    def results(self, items: Sequence[tuple[str, bytes]], started: Started) -> Iterator[RunResult]:
        todo = list(items)
        if not todo:
            return
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(todo)), mp_context=get_context("spawn"), initializer=_init_worker
        )
        inflight: dict[Future, str] = {}
        try:
            while todo or inflight:
                while todo and len(inflight) < self.workers:
                    rid, payload = todo.pop(0)
                    inflight[pool.submit(run_payload, payload)] = rid
                    started(rid)
                done, _ = wait(inflight, timeout=POLL_S, return_when=FIRST_COMPLETED)
                for fut in done:
                    rid = inflight.pop(fut)
                    try:
                        yield fut.result()
                    except BrokenProcessPool:
                        raise WorkerDied(f"a worker process died while running {rid}") from None
        finally:
            _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel queued runs and end the workers now (a finished sweep has none left; an interrupted one must
    not leave runs going whose results nobody will store)."""
    # ProcessPoolExecutor has no public terminate; its processes are in _processes, which shutdown() clears,
    # so take them first.
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(timeout=5)


class RayBackend:
    """Ray tasks (``pip install nonlin[ray]``), one CPU each; connects to `address` ("auto": a running cluster,
    None: start a local one) unless Ray is already initialised in this process."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ValueError("backend='ray' needs Ray: pip install 'nonlin[ray]' (or pip install ray)") from None
        self.ray = ray
        if not ray.is_initialized():
            kwargs = {"address": address} if address else {"num_cpus": workers or default_workers()}
            try:
                ray.init(include_dashboard=False, logging_level="warning", **kwargs)
            except (ConnectionError, RuntimeError) as err:
                raise ValueError(
                    f"cannot reach a Ray cluster at address={address!r}: {err} (start one with `ray start --head`, "
                    "or drop --address to start a local Ray)"
                ) from None
        self.workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.remote = ray.remote(num_cpus=1, max_retries=0)(run_payload)

    def results(self, items: Sequence[tuple[str, bytes]], started: Started) -> Iterator[RunResult]:
        ray, todo = self.ray, list(items)
        inflight: dict = {}
        try:
            while todo or inflight:
                while todo and len(inflight) < self.workers:
                    rid, payload = todo.pop(0)
                    inflight[self.remote.remote(payload)] = rid
                    started(rid)
                done, _ = ray.wait(list(inflight), num_returns=1, timeout=POLL_S)
                for ref in done:
                    rid = inflight.pop(ref)
                    try:
                        yield ray.get(ref)
                    except ray.exceptions.WorkerCrashedError:
                        raise WorkerDied(f"a Ray worker died while running {rid}") from None
        finally:
            for ref in inflight:
                ray.cancel(ref, force=True)


def make_backend(backend: str, workers: int | None, address: str | None):
    if backend == "local":
        w = default_workers() if workers is None else workers
        return InProcess() if w == 0 else LocalProcesses(w)
    if backend == "ray":
        return RayBackend(address, workers)
    raise ValueError(f"backend must be 'local' or 'ray'; got {backend!r}")


__all__ = ["InProcess", "LocalProcesses", "RayBackend", "WorkerDied", "default_workers", "make_backend"]
