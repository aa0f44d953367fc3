"""The generated kernels through Triton's real GPU compiler (sm_90, no GPU needed: the wheel bundles
LLVM and ptxas), in a subprocess without the interpreter. Catches what the interpreter accepts but the
compiler does not (non-constexpr globals, libdevice signatures, type rules)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from kernel_helpers import FUSED, needs_triton

pytestmark = needs_triton


def _aot(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TRITON_DEFAULT_FP_FUSION"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "nonlin.kernels.aot", *args], env=env, capture_output=True, text=True, timeout=900
    )


@pytest.mark.slow  # ~15 s: a fresh process and one real compile; CI can run it with -m slow
def test_swiglu_compiles_for_sm90():
    r = _aot("--entries", "swiglu", "--dtypes", "bfloat16")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("name", FUSED)
def test_every_entry_compiles_for_sm90(name):
    r = _aot("--entries", name, "--dtypes", "float32", "bfloat16", "float16")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
