"""The arena: train and compare nonlinearities on bundled tasks, resumably, on one machine or a Ray cluster.

    from nonlin.arena import Sweep
    results = Sweep(acts=["relu", "gelu", "swiglu"], tasks=["digits", "char_lm"], seeds=3, out="runs").run()

See docs/arena.md for the tasks, the results database schema and the report.
"""

from nonlin.arena.acts import Act, as_act, custom_act
from nonlin.arena.runner import RunResult, RunSpec, execute
from nonlin.arena.sweep import Sweep
from nonlin.arena.tasks import Problem, Task, make_task, mlp, register_task, task_names

__all__ = [
    "Act",
    "Problem",
    "RunResult",
    "RunSpec",
    "Sweep",
    "Task",
    "as_act",
    "custom_act",
    "execute",
    "make_task",
    "mlp",
    "register_task",
    "task_names",
]
