"""Arena tasks: the bundled ones register themselves here (in this order); custom tasks subclass `Task`."""

# isort: skip_file
from nonlin.arena.tasks import classification  # noqa: F401  (digits, breast_cancer, wine, sparsity)
from nonlin.arena.tasks import deep_mlp  # noqa: F401
from nonlin.arena.tasks import periodic  # noqa: F401
from nonlin.arena.tasks import lm  # noqa: F401  (py_lm)
from nonlin.arena.tasks.base import Problem, Task, hidden_layer, make_task, mlp, register_task, task_names

__all__ = ["Problem", "Task", "hidden_layer", "make_task", "mlp", "register_task", "task_names"]
