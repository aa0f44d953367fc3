"""What a task is: hyperparameters (a dataclass), and `build(act, seed)` returning the Problem(s) to train.

The runner owns the training loop (so every task gets the same divergence check, timing, memory and
probe measurements); a task only says what to train, on what, and how to score it.
"""

from __future__ import annotations

import abc
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from nonlin.arena.acts import Act


@dataclass
class Problem:
    """One model to train.

    ``next_batch(step)`` gives the training batch of a step, ``loss(model, batch)`` a scalar tensor,
    ``evaluate(model)`` a dict of test-split numbers that includes the task's metric, ``validate(model)``
    the same numbers on a validation split distinct from the test split (the learning rate is chosen on
    it; None: the task has none and is not tuned), ``probe_input`` what ``model(probe_input)`` is called
    with to measure activation sparsity and dead units. The runner calls evaluate and validate in eval mode
    under ``torch.no_grad``.

    ``baselines``: the task's trivial predictors scored on the same test split with the same metric
    (chance, majority class, predict-the-mean, unigram/bigram, ...), ``{name: value}``. ``held_out``: the
    test inputs and targets ``(x, y)`` for per-run metric hooks (``nonlin.arena.metrics``). ``info``:
    facts about the data the report shows (corpus version, sizes).
    """

    model: nn.Module
    optimizer: torch.optim.Optimizer
    steps: int
    next_batch: Callable[[int], Any]
    loss: Callable[[nn.Module, Any], torch.Tensor]
    evaluate: Callable[[nn.Module], dict[str, float]]
    probe_input: Any
    eval_every: int = 50
    items_per_step: int = 1
    item_unit: str = "examples"
    track_sparsity: bool = False  # also measure activation sparsity at every evaluation (a curve)
    clip_grad_norm: float | None = None  # clip the gradient's global norm before each step
    validate: Callable[[nn.Module], dict[str, float]] | None = None
    baselines: dict[str, float] = dataclasses.field(default_factory=dict)
    held_out: tuple[Any, Any] | None = None
    scheduler: Any = None  # an lr scheduler stepped after every optimizer step
    info: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclass
class Task(abc.ABC):
    """Base class of arena tasks. Subclass it as a dataclass: its fields are the hyperparameters.

    Class attributes: ``name`` (unique), ``metric`` (a key of ``evaluate``'s dict), ``goal`` ("max" or
    "min"), ``kinds`` (the nonlinearity kinds it can use), ``cost`` (rough seconds per run on one core at
    the default budget: used to start long runs first and for the time-left estimate), ``description``,
    ``perfect`` (the best possible metric: 1 for accuracy, 0 for a loss) and ``learn_margin``: a run
    *learned* when its test metric closes at least this share of the gap between the best trivial baseline
    and ``perfect`` (see `learned_threshold`).

    Fields named ``lr`` and ``steps`` have a meaning to the sweep: ``lr`` is tuned over a grid around its
    value, ``steps`` is scaled by the sweep's budget (``eval_every`` with it).
    """

    name: ClassVar[str] = ""
    metric: ClassVar[str] = "accuracy"
    goal: ClassVar[str] = "max"
    kinds: ClassVar[tuple[str, ...]] = ("pointwise", "gated")
    cost: ClassVar[float] = 1.0
    description: ClassVar[str] = ""
    perfect: ClassVar[float | None] = None  # None: 1.0 when goal is "max", else 0.0
    learn_margin: ClassVar[float] = 0.1

    @abc.abstractmethod
    def build(self, act: Act, seed: int) -> Problem | dict[str, Problem]:
        """The model(s) to train for this nonlinearity and seed; a dict trains several (the first is primary)."""

    def supports(self, act: Act) -> str | None:
        """None when the task can run `act`, else the reason it cannot (the sweep skips the pair)."""
        if act.kind not in self.kinds:
            return f"{self.name} takes {' or '.join(self.kinds)} nonlinearities; {act.label} is {act.kind}"
        return None

    def config(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def best_possible(self) -> float:
        return self.perfect if self.perfect is not None else (1.0 if self.goal == "max" else 0.0)

    def to_json(self) -> dict[str, Any]:
        cls = type(self)
        return {"name": self.name, "config": self.config(), "ref": f"{cls.__module__}:{cls.__qualname__}"}

    def label(self, without: tuple[str, ...] = ()) -> str:
        """The task's name plus the hyperparameters that differ from the defaults ("digits:steps=50"),
        leaving out the fields named in `without` (the leaderboard's label leaves out the tuned lr)."""
        try:
            default: Task | None = type(self)()
        except TypeError:  # a field without a default: every option is part of the label
            default = None
        changed = {
            k: v for k, v in self.config().items() if k not in without and (default is None or getattr(default, k) != v)
        }
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in sorted(changed.items())) if changed else "")


_TASKS: dict[str, type[Task]] = {}


def register_task(cls: type[Task]) -> type[Task]:
    """Make a Task subclass available by name (``nonlin arena --task NAME``); usable as a decorator."""
    if not (isinstance(cls, type) and issubclass(cls, Task)) or not cls.name:
        raise TypeError(f"register_task takes a Task subclass with a name; got {cls!r}")
    if cls.goal not in ("max", "min"):
        raise ValueError(f"task {cls.name}: goal must be 'max' or 'min'; got {cls.goal!r}")
    _TASKS[cls.name] = cls
    return cls


def task_names() -> list[str]:
    return list(_TASKS)


def _coerce(task: str, field: dataclasses.Field, text: str) -> Any:
    kind = type(field.default) if field.default is not dataclasses.MISSING else str
    try:
        if kind is bool:
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return text.lower() in ("true", "1")
        if kind is tuple:
            return tuple(int(t) for t in text.split("x"))
        return kind(text)
    except ValueError:
        raise ValueError(f"task {task}: option {field.name}={text!r} is not a valid {kind.__name__}") from None


def make_task(spec: str | Task, **options: Any) -> Task:
    """'digits' or 'digits:steps=50,lr=0.01' (or a Task instance) -> Task; unknown names raise ValueError."""
    if isinstance(spec, Task):
        return dataclasses.replace(spec, **options) if options else spec
    if not isinstance(spec, str):
        raise TypeError(f"a task must be a bundled task name (str) or a Task instance; got {type(spec).__name__}")
    base, _, rest = spec.partition(":")
    base = base.strip().lower().replace("-", "_")
    if base not in _TASKS:
        import difflib

        close = difflib.get_close_matches(base, list(_TASKS), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"unknown task {spec!r}{hint} (bundled: {', '.join(_TASKS)})")
    cls = _TASKS[base]
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in fields:
            raise ValueError(f"task {base}: unknown option {item!r}; options: {', '.join(fields) or 'none'}")
        options.setdefault(key, _coerce(base, fields[key], value.strip()))
    bad = [k for k in options if k not in fields]
    if bad:
        raise ValueError(f"task {base}: unknown option {bad[0]!r}; options: {', '.join(fields) or 'none'}")
    return cls(**options)


def hidden_layer(d_in: int, d_out: int, act: Act) -> nn.Sequential:
    """Linear then the nonlinearity; a gated unit gets 2*d_out pre-activations packed [gate | value]."""
    return nn.Sequential(nn.Linear(d_in, d_out * act.width_factor), act.module())


def mlp(d_in: int, hidden: tuple[int, ...] | list[int], d_out: int, act: Act) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers.append(hidden_layer(d_in, width, act))
        d_in = width
    layers.append(nn.Linear(d_in, d_out))
    return nn.Sequential(*layers)


def learned_threshold(baselines: dict[str, float], goal: str, perfect: float, margin: float) -> float | None:
    """The metric a run must beat to count as learned: the best trivial baseline moved `margin` of the way
    to `perfect` (accuracy: majority 0.4, perfect 1, margin 0.1 -> 0.46; a loss: bigram 3.4, perfect 0 ->
    3.06). None without baselines."""
    values = [v for v in baselines.values() if v is not None and math.isfinite(v)]
    if not values:
        return None
    best = max(values) if goal == "max" else min(values)
    return best + margin * (perfect - best)


def beats(value: float | None, threshold: float | None, goal: str) -> bool | None:
    """Whether `value` is strictly better than `threshold` (None: no threshold to judge by)."""
    if threshold is None:
        return None
    if value is None or not math.isfinite(value):
        return False
    return value > threshold if goal == "max" else value < threshold
