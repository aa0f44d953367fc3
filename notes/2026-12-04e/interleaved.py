"""ns per element of each job, medians over rounds of the jobs run in turn (one warm-up call each), printed as
table rows: the timing loop of this stop's prototypes."""

import statistics
import time
from collections.abc import Callable


def print_interleaved(jobs: dict[str, Callable[[], object]], n: int, rounds: int, title: str) -> None:
    times: dict[str, list[float]] = {k: [] for k in jobs}
    for f in jobs.values():
        f()
    for _ in range(rounds):
        for k, f in jobs.items():
            t = time.perf_counter()
            f()
            times[k].append((time.perf_counter() - t) / n * 1e9)
    print(f"{n} float32 elements, {title}, medians of {rounds} interleaved rounds (ns per element)")
    for k in jobs:
        print(f"| {k} | {statistics.median(times[k]):.2f} |")
