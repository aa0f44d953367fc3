"""The arena: train and compare nonlinearities on bundled tasks, resumably, on one machine or a Ray cluster.

    from nonlin.arena import Sweep
    results = Sweep(acts=["relu", "gelu", "swiglu"], tasks=["digits", "py_lm"], seeds=3, out="runs").run()

Each (task, nonlinearity) runs at every lr of a small grid and every seed; the report chooses each pair's
lr on the validation split, marks runs that did not beat the task's trivial baselines, and ranks only what
paired tests over seeds can separate. See docs/arena.md for the tasks, the rules, the database and the report.
"""

from nonlin.arena.acts import Act, as_act, custom_act
from nonlin.arena.metrics import RunMetric
from nonlin.arena.runner import RunResult, RunSpec, execute
from nonlin.arena.sweep import Sweep, SweepOutcome, sweep
from nonlin.arena.tasks import Problem, Task, make_task, mlp, register_task, task_names

__all__ = [
    "Act",
    "Problem",
    "RunMetric",
    "RunResult",
    "RunSpec",
    "Sweep",
    "SweepOutcome",
    "Task",
    "as_act",
    "custom_act",
    "execute",
    "make_task",
    "mlp",
    "register_task",
    "sweep",
    "task_names",
]
