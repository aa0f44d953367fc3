"""Progress of long commands (`nonlin check`, `nonlin theory`): a rich bar on a terminal, one line per step
in a log.

    with Steps(total=4, label="theory gelu") as steps:
        steps.start("variance map")      # what runs now
        ...
        steps.done()                     # one step finished

On a terminal the bar shows the current step, steps done / total, elapsed time and an estimate of the time
left. When stderr is not a terminal (CI logs, `2> log`), a live bar would print nothing until the end, so
each finished step prints one line instead: ``[3/4] theory gelu: phase diagram (2.1 s, 7.9 s in all)``.
Everything goes to stderr: stdout keeps only the results.
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class Steps:
    """A count of steps with a description of the one running; see the module docstring."""

    def __init__(self, total: int, label: str, console: Console | None = None, enabled: bool = True) -> None:
        self.console = console or Console(stderr=True)
        self.total, self.label, self.enabled = total, label, enabled
        self.count, self.current = 0, ""
        self.live = enabled and self.console.is_terminal
        self._t0 = self._t_step = time.perf_counter()
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn(f"[bold]{label}[/bold]"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(compact=True),
            console=self.console,
            transient=True,
            disable=not self.live,
        )
        self.task = self.progress.add_task("", total=max(total, 1))

    def __enter__(self) -> Steps:
        self._t0 = self._t_step = time.perf_counter()
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def start(self, description: str) -> None:
        self.current = description
        self._t_step = time.perf_counter()
        self.progress.update(self.task, description=description)

    def add(self, n: int) -> None:
        """More steps than planned (e.g. work found only once the run is under way)."""
        self.total += n
        self.progress.update(self.task, total=self.total)

    def done(self, description: str | None = None) -> None:
        self.count += 1
        self.progress.advance(self.task)
        if self.enabled and not self.live:
            now = time.perf_counter()
            what = description or self.current
            self.console.print(
                f"[{self.count}/{self.total}] {self.label}: {what} ({now - self._t_step:.1f} s, "
                f"{now - self._t0:.1f} s in all)",
                highlight=False,
                soft_wrap=True,
            )
        self._t_step = time.perf_counter()
