"""What README.md and docs/*.md show runs (issue 13): every Python block, and every shell command.

Python blocks
    Every fenced block whose info string is ``python`` runs, in order, in one fresh interpreter per file
    (blocks of a file share their names, as a reader typing them would), with the working directory a
    temporary folder. A block may use the small fixtures of ``FIXTURES`` (``x``, ``packed``, ``scores``,
    ``model``, ``X``, ...) without defining them: tensors of a few elements, the bundled TinyTransformer.
    A block that is an illustration on purpose (placeholders such as ``...``, or minutes of work) is marked
    with the info string ``python no-run`` and must open with a comment saying why, e.g.::

        ```python no-run
        # illustration: `build` is elided (...); tests/arena/test_custom_task.py runs a complete task
        ```

    ``test_no_run_blocks_say_why`` enforces the comment. Files in ``SLOW_DOCS`` (with the reason) run in the
    slow suite.

Shell commands
    Every line of a fenced block with no info string or ``bash``/``sh``/``shell``/``console`` is a command
    (the text before a ``  #`` comment; ``$ `` prompts are dropped; a line ending in ``\\`` continues on the
    next, and the joined command is the key). Each must be a key of ``COMMANDS``:
    the value None runs the command as shown; a `Smaller` runs a smaller form and says why the shown one
    is not run (minutes of work, a GPU, a placeholder such as ``mypkg.ops:swiglu``). ``nonlin ...`` commands
    run in this process through ``nonlin.cli.main``, others in a subprocess, all in a temporary folder. A
    command added to the docs without an entry here fails ``test_every_shell_command_is_covered``: add it.
    Docs are found by glob, so a new docs/*.md is picked up automatically.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_INFO = {"", "bash", "sh", "shell", "console"}
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.S | re.M)

FIXTURES = """
import torch, numpy as np, nonlin
from nonlin.probe.examples import relu_mlp, tiny_transformer
torch.manual_seed(0)
x = torch.randn(4, 8)
packed = torch.randn(4, 16)                      # [batch, 2d]: [gate | value]
gate, value = packed.chunk(2, dim=-1)
scores = torch.randn(2, 5, 5)                     # [batch, query, key]
causal_mask = torch.ones(5, 5, dtype=torch.bool).tril()
w = torch.empty(16, 8)
q, c, q1, q2 = 1.0, 0.5, 1.0, 2.0
X = torch.randn(5, 3, dtype=torch.float64)        # [inputs, features]
model, inputs = tiny_transformer(batch=2, seq=16)
batches = loader = [inputs]
def step(model, batch):
    loss = model(batch).float().pow(2).mean()
    loss.backward()
    return loss
mlp, _points = relu_mlp()
start, end = torch.zeros(2), torch.ones(2)
origin, u, v = torch.zeros(2), torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])
"""

RUNNER = """
import json, sys, traceback
blocks = json.load(open(sys.argv[1]))
ns = {"__name__": "__docs__"}
exec(compile(blocks[0]["code"], "<fixtures>", "exec"), ns)
for b in blocks[1:]:
    try:
        exec(compile(b["code"], b["where"], "exec"), ns)
    except BaseException:
        print("FAILED " + b["where"], file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)
"""


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    info: str
    code: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    text = path.read_text()
    return [
        Block(path, text[: m.start()].count("\n") + 1, m.group(1).strip(), m.group(2)) for m in FENCE.finditer(text)
    ]


def shell_commands(path: Path) -> list[tuple[str, str]]:
    """(command, where) for every command line of the shell blocks of a file."""
    out = []
    for b in blocks(path):
        if b.info not in SHELL_INFO:
            continue
        pending, start = "", 0  # a command continued with a trailing backslash, and its first line
        for i, line in enumerate(b.code.splitlines(), start=b.line + 1):
            part = re.split(r"\s{2,}#", line, maxsplit=1)[0].strip().removeprefix("$ ").strip()
            if not pending:
                start = i
            if part.endswith("\\"):
                pending += part.removesuffix("\\").strip() + " "
                continue
            cmd, pending = (pending + part).strip(), ""
            if cmd and not cmd.startswith("#"):
                out.append((cmd, f"{path.relative_to(ROOT)}:{start}"))
        assert not pending, f"{path.relative_to(ROOT)}:{start}: a shell block ends inside a continued command"
    return out


@dataclass(frozen=True)
class Smaller:
    """The shown command is not run (why); `form` is run instead (None: nothing on this machine, e.g. GPU).
    With `needs` alone, `form` may be the shown command: it runs where that optional module is installed."""

    form: str | None
    why: str
    needs_cuda: bool = False
    slow: bool = False  # the smaller form itself takes long (arena training): run in the slow suite
    needs: str | None = None  # a module the form needs (an optional extra): skipped where it is not installed


QUICK_ARENA = "--task digits:steps=20 --seeds 1 --workers 0 --no-progress"
# py_lm at a few seconds a run (tests/arena/test_arena_tasks.py's small form)
TINY_LM = "py_lm:steps=25,d_model=32,d_ff=64,ctx=32,batch=8,layers=1,warmup=5,eval_windows=16,eval_every=25"
QUICK_LM = f"--task {TINY_LM} --seeds 1 --workers 0 --no-progress"
# benchmarks/kernels.py at one small shape, one round
QUICK_KERNELS = "--shapes 64x64 --rounds 1 --reps 1"
COMMANDS: dict[str, Smaller | None] = {
    # README
    "./run main": Smaller(
        f"nonlin arena --act relu {QUICK_ARENA} --out runs/", "installs, then a sweep of minutes", slow=True
    ),
    "./run test": Smaller(None, "the whole suite: CI runs it, and this test is part of it"),
    "nonlin list": None,
    "nonlin tune": Smaller(
        "nonlin tune --show",
        "it writes this machine's route profile (the suite runs with profiles off): "
        "tests/test_route_profile.py runs it into a temporary profile",
    ),
    "nonlin tune --show": None,
    "nonlin show mish": None,
    "nonlin compare relu gelu silu shifted_relu swiglu": Smaller(
        "nonlin compare relu tanh",
        "about a minute (theory and plots of five entries; tests/test_catalog_cli.py runs it)",
    ),
    "nonlin compare gelu silu --accuracy --db nonlin-out/arena": Smaller(
        f"nonlin arena --act relu {QUICK_ARENA} --out nonlin-out/arena ; "
        "nonlin compare relu --accuracy --db nonlin-out/arena",
        "needs a sweep; gelu and silu's accuracy sections take minutes",
        slow=True,
    ),
    "nonlin check gelu [--impl torch]": Smaller(
        "nonlin check relu --impl torch --dtype bfloat16 --no-backward", "minutes (fp32 sample); a placeholder"
    ),
    "nonlin check --all --dtype bfloat16": Smaller(
        "nonlin check relu relu6 --dtype bfloat16 --no-backward", "the whole catalog: many minutes"
    ),
    "nonlin theory tanh": Smaller("nonlin theory tanh --no-plots", "about a minute with its plots"),
    "nonlin probe [--model mod:factory] [--swap gelu=relu]": Smaller(
        "nonlin probe --model nonlin.probe.examples:tiny_transformer --swap gelu=relu --repeat 1",
        "placeholders",
        slow=True,
    ),
    "nonlin arena --act relu gelu silu swiglu geglu --task py_lm --seeds 3 --out runs/": Smaller(
        f"nonlin arena --act relu swiglu {QUICK_LM} --out runs/", "60 LM training runs (4 lrs x 3 seeds)", slow=True
    ),
    "nonlin arena --resume runs/": Smaller(
        f"nonlin arena --act relu {QUICK_ARENA} --out runs/ ; nonlin arena --resume runs/ --workers 0 --no-progress",
        "needs a sweep to resume",
        slow=True,
    ),
    "nonlin arena report runs/": Smaller(
        f"nonlin arena --act relu {QUICK_ARENA} --out runs/ --no-report ; nonlin arena report runs/",
        "needs a sweep",
        slow=True,
    ),
    "python benchmarks/kernels.py --entries all --threads 1": Smaller(
        f"python benchmarks/kernels.py --entries relu gelu swiglu log_ndtr --threads 1 {QUICK_KERNELS}",
        "every entry at three shapes: many minutes",
        slow=True,
    ),
    "python benchmarks/kernels.py --device cuda --dtypes bfloat16": Smaller(
        f"python benchmarks/kernels.py --device cuda --dtypes bfloat16 --entries gelu swiglu {QUICK_KERNELS}",
        "GPU; every default entry at 8192 x 8192",
        needs_cuda=True,
    ),
    "python benchmarks/gpu_check.py": Smaller(
        "python benchmarks/gpu_check.py --quick --entries gelu swiglu",
        "GPU; every entry then the benchmark: 5-8 minutes on an H200 (on CPU: the --dry-run below)",
        needs_cuda=True,
        slow=True,
    ),
    "PYTHONPATH=src python benchmarks/gpu_check.py": Smaller(
        "PYTHONPATH=src python benchmarks/gpu_check.py --quick --entries gelu swiglu",
        "GPU; every entry then the benchmark: 5-8 minutes on an H200 (on CPU: the --dry-run below)",
        needs_cuda=True,
        slow=True,
    ),
    # about 12 s; tests/test_install.py also runs it in a venv of only what a GPU machine has
    "PYTHONPATH=src python benchmarks/gpu_check.py --dry-run --entries gelu swiglu": Smaller(
        "PYTHONPATH=src python benchmarks/gpu_check.py --dry-run --entries gelu swiglu",
        "run as shown where Triton (the triton extra) is installed",
        needs="triton",
    ),
    "python benchmarks/accuracy.py": Smaller(
        "python benchmarks/accuracy.py --entries relu --dtypes bfloat16 --size 4096 --jobs 1 --baseline-n 10",
        "a benchmark: minutes",
        slow=True,
    ),
    "python benchmarks/theory.py --n 1000": Smaller(
        "python benchmarks/theory.py --n 20 --d 4 --depth 2 --repeats 1 --names relu --no-raw",
        "a benchmark: minutes",
        slow=True,
    ),
    "python benchmarks/tails.py": Smaller(
        "python benchmarks/tails.py --entries gelu sigmoid --values -300 0.5 --numel 4096 --rounds 1",
        "every hand-written kernel at eight values: minutes",
    ),
    "python benchmarks/probe.py --threads 1": Smaller(
        "python benchmarks/probe.py --threads 1 --batch 2 --seq 16 --reps 2", "a benchmark: minutes", slow=True
    ),
    # docs/accuracy.md
    "nonlin check gelu": Smaller("nonlin check gelu --dtype bfloat16 --no-backward", "minutes (fp32 sample)"),
    "nonlin check gelu --impl torch": Smaller(
        "nonlin check gelu --impl torch --dtype bfloat16 --no-backward", "minutes (fp32 sample)"
    ),
    "nonlin check swiglu --impl mypkg.ops:swiglu": Smaller(
        "nonlin check swiglu --impl torch:mul --dtype bfloat16 --no-backward ; nonlin check swiglu --impl "
        "mypkg.ops:swiglu",
        "mypkg is a placeholder: a real callable is checked, and the placeholder fails cleanly",
    ),
    "nonlin check --all --dtype bfloat16 --jobs 2": Smaller(
        "nonlin check relu relu6 hardtanh --dtype bfloat16 --no-backward --jobs 2", "the whole catalog"
    ),
    "nonlin compare gelu silu --accuracy": Smaller("nonlin compare relu --accuracy", "minutes of references"),
    # docs/arena.md
    "nonlin arena": Smaller(f"nonlin arena --act relu {QUICK_ARENA}", "the default sweep takes minutes", slow=True),
    "nonlin arena --act relu gelu silu swiglu geglu reglu --task py_lm --seeds 3 --out runs/": Smaller(
        f"nonlin arena --act geglu reglu {QUICK_LM} --out runs/", "72 LM training runs (4 lrs x 3 seeds)", slow=True
    ),
    "nonlin arena --task digits --lr-grid x0.5 x1 x2 x4 --out runs/": Smaller(
        "nonlin arena --act relu --task digits:steps=20 --lr-grid x0.5 x1 x2 x4 --seeds 1 --workers 0 --no-progress "
        "--out runs/",
        "the default units x 4 lrs x 5 seeds: 140 training runs",
        slow=True,
    ),
    "nonlin arena --task digits --lr-grid 1e-3 3e-3 1e-2 --out runs/": Smaller(
        "nonlin arena --act relu --task digits:steps=20 --lr-grid 1e-3 3e-3 1e-2 --seeds 1 --workers 0 --no-progress "
        "--out runs/",
        "the default units x 3 lrs x 5 seeds: 105 training runs",
        slow=True,
    ),
    "nonlin arena --task digits --no-tune --out runs/": Smaller(
        f"nonlin arena --act relu --no-tune {QUICK_ARENA} --out runs/",
        "the default units x 5 seeds: 35 training runs",
        slow=True,
    ),
    "nonlin arena --budget 0.25 --out quick/": Smaller(
        "nonlin arena --act relu --task digits --budget 0.05 --seeds 1 --workers 0 --no-progress --out quick/",
        "the default sweep at a quarter of its steps: minutes",
        slow=True,
    ),
    "nonlin arena --act shifted_relu:tau=0.5 clipped_shifted_relu:tau=1,m=2 relu --task sparsity --out runs/": Smaller(
        "nonlin arena --act shifted_relu:tau=0.5 clipped_shifted_relu:tau=1,m=2 --task sparsity:steps=20 --seeds 1 "
        "--workers 0 --no-progress --out runs/",
        "training runs",
        slow=True,
    ),
    "nonlin arena --task digits:steps=400,lr=0.001 --out runs/": Smaller(
        "nonlin arena --act relu --task digits:steps=20,lr=0.001 --seeds 1 --workers 0 --no-progress --out runs/",
        "training runs",
        slow=True,
    ),
    "nonlin arena --resume runs/ --retry-failed": Smaller(
        f"nonlin arena --act relu {QUICK_ARENA} --out runs/ ; nonlin arena --resume runs/ --retry-failed "
        "--workers 0 --no-progress",
        "needs a sweep",
        slow=True,
    ),
    "nonlin arena --backend ray --address auto": Smaller(
        f"nonlin arena --backend ray --act relu {QUICK_ARENA.replace('--workers 0', '--workers 2')} --out runs/",
        "needs a running Ray cluster (--address auto): the smaller form starts a local Ray with 2 CPUs",
        slow=True,
        needs="ray",
    ),
    "ray start --head": Smaller(None, "starts a Ray cluster's head node: cluster set-up, not run on a test machine"),
    "nonlin arena --backend ray --address auto --task py_lm --seeds 5 --out runs/lm --act relu gelu silu swiglu "
    "geglu reglu mish elu softplus tanh shifted_relu snake": Smaller(
        f"nonlin arena --backend ray --act relu swiglu {QUICK_LM.replace('--workers 0', '--workers 2')} --out runs/lm",
        "240 LM runs on a running Ray cluster: the smaller form starts a local Ray with 2 CPUs",
        slow=True,
        needs="ray",
    ),
    "nonlin compare relu gelu swiglu --db runs/": Smaller(
        f"nonlin arena --act relu {QUICK_ARENA} --out runs/ ; nonlin compare relu gelu swiglu --db runs/",
        "needs a sweep",
        slow=True,
    ),
    # docs/kernels.md
    "python benchmarks/kernels.py --keep-freed-memory": Smaller(
        f"python benchmarks/kernels.py --keep-freed-memory --entries relu swiglu {QUICK_KERNELS}",
        "a benchmark: minutes",
        slow=True,
    ),
    "python benchmarks/kernels.py --entries elu celu --params alpha=0.5 --dtypes float32 --shapes 1024x4096 --skip "
    "eager fused": Smaller(
        "python benchmarks/kernels.py --entries elu celu --params alpha=0.5 --dtypes float32 --shapes 64x64 --skip "
        "eager fused --rounds 1 --reps 1",
        "4M elements over 5 rounds: about a minute",
    ),
    "python benchmarks/kernels.py --entries gelu swiglu --shapes 1024x4096 --dtypes float32 --markdown out.md": Smaller(
        "python benchmarks/kernels.py --entries gelu swiglu --shapes 64x64 --dtypes float32 --markdown out.md "
        "--rounds 1 --reps 1 ; test -s out.md",
        "1024 x 4096 with every column, eager's float64 path included, over 5 rounds: about a minute",
        slow=True,
    ),
    # docs/probe.md
    "nonlin probe": Smaller("nonlin probe --repeat 1", "the default repeats the batch", slow=True),
    "nonlin probe --model examples/probe_minilm.py:factory --out nonlin-out/minilm --rank": Smaller(
        None, "loads a Hugging Face model (tests/probe run it where transformers is installed)"
    ),
    "nonlin probe --model mypkg.models:build --input-shape 8,16 --input-dtype float": Smaller(
        "nonlin probe --model nonlin.probe.examples:relu_mlp --input-shape 8,2 --input-dtype float",
        "mypkg is a placeholder",
    ),
    "nonlin probe --swap gelu=relu": Smaller("nonlin probe --swap gelu=relu --repeat 1", "the default repeats"),
}


def _all_commands() -> list[tuple[str, str]]:
    return [c for p in DOCS for c in shell_commands(p)]


def test_no_stale_commands():
    """A COMMANDS entry whose command left the docs would keep testing something no reader sees."""
    shown = {cmd for cmd, _ in _all_commands()}
    stale = sorted(cmd for cmd in COMMANDS if cmd not in shown)
    assert not stale, "COMMANDS entries no doc shows (remove them, or fix the doc):\n" + "\n".join(stale)


def test_every_shell_command_is_covered():
    missing = sorted({f"{cmd!r} ({where})" for cmd, where in _all_commands() if cmd not in COMMANDS})
    assert not missing, "shell commands in the docs with no entry in COMMANDS (tests/test_docs.py):\n" + "\n".join(
        missing
    )


# Docs whose blocks take long run in the slow suite (CI's default run deselects it; `pytest -m slow` runs them).
SLOW_DOCS = {
    "docs/theory.md": "clip_level, edge-of-chaos scans and depth-5 kernels: about a minute",
    "docs/kernels.md": "use('fused') compiles with inductor on CPU: about 30 s",
}


def _doc_param(p: Path):
    rel = str(p.relative_to(ROOT))
    return pytest.param(p, id=rel, marks=[pytest.mark.slow] if rel in SLOW_DOCS else [])


@pytest.mark.parametrize("path", [_doc_param(p) for p in DOCS])
def test_python_blocks_run(path, tmp_path):
    runnable = [b for b in blocks(path) if b.info == "python"]
    if not runnable:
        pytest.skip("no python block")
    spec = tmp_path / "blocks.json"
    spec.write_text(json.dumps([{"code": FIXTURES}, *({"code": b.code, "where": b.where} for b in runnable)]))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.setdefault("NONLIN_CACHE", str(tmp_path / "cache"))
    r = subprocess.run(
        [sys.executable, "-c", RUNNER, str(spec)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr[-4000:]


def test_no_run_blocks_say_why():
    for path in DOCS:
        for b in blocks(path):
            if b.info.startswith("python") and b.info != "python":
                assert b.info == "python no-run", f"{b.where}: unknown info string {b.info!r}"
                first = b.code.lstrip().splitlines()[0] if b.code.strip() else ""
                assert first.startswith("#") and len(first) > 10, f"{b.where}: a no-run block opens with why"


def _run_shell(cmd: str, cwd: Path) -> None:
    from nonlin.cli import main

    for part in (p.strip() for p in cmd.split(" ; ")):
        argv = shlex.split(part)
        if argv[0] == "nonlin" and argv[1:2] != ["arena"]:  # the arena forks workers: its own process
            rc = main(argv[1:])
            expected_failure = "mypkg" in part
            assert (rc != 0) if expected_failure else (rc == 0), f"{part!r} exited {rc}"
        else:
            if argv[0] == "nonlin":
                part = f"{shlex.quote(sys.executable)} -m nonlin.cli {part.removeprefix('nonlin ')}"
            # scripts are named from the repository root; run them from the temporary folder
            part = re.sub(r"(^|\s)python ", lambda m: f"{m.group(1)}{shlex.quote(sys.executable)} ", part)
            part = re.sub(r"(^|\s)(benchmarks|examples)/", lambda m: f"{m.group(1)}{ROOT}/{m.group(2)}/", part)
            part = re.sub(
                r"(^|\s)PYTHONPATH=src(?=\s)",
                lambda m: f"{m.group(1)}PYTHONPATH={shlex.quote(str(ROOT / 'src'))}",
                part,
            )
            env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
            r = subprocess.run(part, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, (part, r.stderr[-3000:])


def _shell_cases() -> list:
    seen: dict[str, str] = {}
    for cmd, where in _all_commands():
        seen.setdefault(cmd, where)
    cases = []
    for cmd, where in sorted(seen.items()):
        how = COMMANDS.get(cmd)
        marks = [pytest.mark.slow] if how is not None and how.slow else []
        cases.append(pytest.param(cmd, where, id=cmd, marks=marks))
    return cases


@pytest.mark.parametrize(("cmd", "where"), _shell_cases())
def test_shell_command_runs(cmd, where, tmp_path, monkeypatch):
    if cmd not in COMMANDS:
        pytest.fail(f"{where}: {cmd!r} has no entry in COMMANDS")
    how = COMMANDS[cmd]
    if how is not None and how.needs_cuda and not torch.cuda.is_available():
        pytest.skip(f"{cmd}: {how.why}")
    if how is not None and how.form is None:
        pytest.skip(f"not run: {how.why}")
    if how is not None and how.needs:
        pytest.importorskip(how.needs, reason=f"{cmd}: needs {how.needs}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NONLIN_CACHE", str(tmp_path / "cache"))
    _run_shell(cmd if how is None else how.form, tmp_path)
