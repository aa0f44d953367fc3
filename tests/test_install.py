"""nonlin installs where users are (issue 17): as a wheel beside the torch a project already has, with only
its base dependencies, and from the source tree on a GPU machine with no package registry.

Each test builds a fresh venv that sees only chosen distributions of this interpreter's site-packages
(symlinked, so nothing is downloaded or copied): torch and what torch needs, plus the packages named.
The venv cannot see nonlin's editable install, scipy, matplotlib, rich, ... unless they are named, so a
base dependency missing from pyproject.toml, or an import of an extra at `import nonlin`, fails here.
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # pip vendors it
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _closure(names: list[str]) -> set[str]:
    """The named distributions and, recursively, the installed distributions they require (markers
    evaluated here, extras followed: torch's CUDA builds get their libraries through cuda-toolkit[...])."""
    seen: set[tuple[str, str]] = set()
    found: set[str] = set()
    todo = [(n, "") for n in names]
    while todo:
        name, extra = todo.pop()
        key = canonicalize_name(name)
        if (key, extra) in seen:
            continue
        seen.add((key, extra))
        try:
            dist = md.distribution(key)
        except md.PackageNotFoundError:
            continue  # an optional or platform-specific requirement that is not installed here
        found.add(key)
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": extra}):
                todo += [(req.name, "")] + [(req.name, e) for e in req.extras]
    return found


def _env_with(tmp: Path, names: list[str]) -> Path:
    """A venv (no pip, no system site-packages) plus a .pth to a directory of symlinks to the distributions
    `names` need; returns its python."""
    shown = tmp / "site"
    shown.mkdir()
    for name in _closure(names):
        dist = md.distribution(name)
        for f in dist.files or []:
            top = f.parts[0]
            src = Path(dist.locate_file(top))
            if top in ("..", "__pycache__") or not src.exists() or (shown / top).exists():
                continue
            (shown / top).symlink_to(src)
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(tmp / "venv")
    py = tmp / "venv" / "bin" / "python"
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    Path(site, "shown.pth").write_text(str(shown) + "\n")
    return py


def _version(name: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in md.version(name).split(".")[:2] if p.isdigit())
    except md.PackageNotFoundError:
        return ()


def _run(py: Path, *args: str, env: dict | None = None, cwd: Path = ROOT) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "NONLIN", "TRITON"))}
    r = subprocess.run([str(py), *args], cwd=cwd, env=clean | (env or {}), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{args}: exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


CALL = """
import importlib.util, json, sys, time
t0 = time.perf_counter()
import torch, nonlin, nonlin.functional as F
seconds = time.perf_counter() - t0
y = F.gelu(torch.tensor([-6.0, 0.5], dtype=torch.float64))
assert abs(y[1].item() - 0.34573123063700656) < 1e-15, y
g = nonlin.get("swiglu")(torch.ones(2, 4))
extras = ("scipy", "matplotlib", "rich", "sklearn", "cloudpickle")
print(json.dumps({"file": nonlin.__file__, "import_s": seconds,
                  "present": [m for m in extras if importlib.util.find_spec(m)]}))
"""


def test_wheel_installs_beside_an_existing_torch(tmp_path):
    """pip wheel, then pip install --no-index of that wheel into a venv that has torch, numpy and mpmath
    only: pip must find every base dependency already there (a new one fails the resolve), and
    `import nonlin` plus one call must work without the extras."""
    wheels, tree = tmp_path / "wheels", tmp_path / "tree"  # built from a copy: setuptools writes build/ there
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, tree / name)
    # an installed setuptools that meets pyproject's build requirement builds it offline; otherwise pip's
    # isolated build fetches one (a venv's bundled setuptools 65 rejects `license = "MIT"`)
    isolation = ["--no-build-isolation"] if _version("setuptools") >= (77,) else []
    _run(Path(sys.executable), "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", str(wheels), str(tree))
    (wheel,) = wheels.glob("nonlin-*.whl")
    py = _env_with(tmp_path, ["torch", "numpy", "mpmath", "pip"])
    _run(py, "-m", "pip", "install", "-q", "--no-index", "--no-cache-dir", "--disable-pip-version-check", str(wheel))
    out = json.loads(_run(py, "-c", CALL, cwd=tmp_path))
    assert out["file"].startswith(str(tmp_path / "venv")), out  # the wheel's nonlin, not the checkout's
    assert out["present"] == [], out  # the venv shows none of the extras' packages
    # the command line names the extra it needs instead of a traceback
    r = subprocess.run(
        [str(tmp_path / "venv" / "bin" / "nonlin"), "list"], capture_output=True, text=True, cwd=tmp_path
    )
    assert r.returncode != 0 and "nonlin[cli]" in r.stderr, (r.returncode, r.stderr[-2000:])


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed")
def test_gpu_check_dry_run_from_the_source_tree(tmp_path):
    """What the README tells a GPU machine with no registry to run: PYTHONPATH=src, no pip install, with
    the packages such a machine has (torch, Triton, numpy, scipy, mpmath, matplotlib, rich, scikit-learn,
    pytest; no cloudpickle, no nonlin)."""
    have = ["torch", "triton", "numpy", "scipy", "mpmath", "matplotlib", "rich", "scikit-learn", "pytest"]
    py = _env_with(tmp_path, have)
    src = {"PYTHONPATH": "src"}
    assert _run(py, "-c", "import nonlin; print(nonlin.__file__)", env=src).strip() == str(
        ROOT / "src" / "nonlin" / "__init__.py"
    )
    _run(py, "benchmarks/gpu_check.py", "--dry-run", "--entries", "gelu", "swiglu", env=src)  # exit 1 on a failed check
