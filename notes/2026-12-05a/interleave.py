"""ns per element of callables timed in interleaved rounds (each round times every job once, in turn, so the
host's load drifts hit them alike): the shared loop of this stop's timing notes."""

import statistics
import time
from collections.abc import Callable


def interleaved_ns(jobs: dict[str, Callable[[], object]], n: int, rounds: int = 9) -> dict[str, float]:
    """Median ns per element of each job over `rounds` rounds, each job run after one warm call; a job of `n`
    elements is repeated so that a round moves about 4M elements."""
    reps = max(1, (1 << 22) // n)
    for job in jobs.values():
        job()
    times: dict[str, list[float]] = {k: [] for k in jobs}
    for _ in range(rounds):
        for k, job in jobs.items():
            t = time.perf_counter()
            for _ in range(reps):
                job()
            times[k].append((time.perf_counter() - t) / reps / n * 1e9)
    return {k: statistics.median(v) for k, v in times.items()}
