#!/usr/bin/env python3
"""Run the precision-sensitive tests once per vector ISA this CPU can run, each forced on torch, inductor
and numpy, so that a CI machine checks what users of its other ISAs get (issue 13).

What picks the ISA, and how each run forces it:
- ATen's eager kernels (Sleef vector functions, or scalar libm at "default"): ATEN_CPU_CAPABILITY.
- inductor's C++ vector code follows ATEN_CPU_CAPABILITY while torch._inductor.config.cpp.simdlen is
  unset ("default" compiles scalar loops calling libm). Each ISA gets its own TORCHINDUCTOR_CACHE_DIR:
  inductor's on-disk cache does not key on the ISA it picked, and torch 2.13 reused AVX-512 kernels under
  ATEN_CPU_CAPABILITY=avx2 (wrong values) and failed to compile under "default".
- numpy's dispatched SIMD loops (the Triton interpreter's libdevice, the ULP measure):
  NPY_DISABLE_CPU_FEATURES, the AVX-512 targets for "avx2", every dispatched target for "default".
Each run first checks that the forcing took effect. The native ISA is what the main test run already ran;
--all runs it here too. Usage: python .ci/isa_matrix.py [--all] [--list] [extra pytest args]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

TESTS = [
    "tests/kernels/test_kernel_precision.py",
    "tests/kernels/test_compiled_primitives.py",
    "tests/kernels/test_erfc_float32.py",
    "tests/kernels/test_float32_sigmoid.py",
    "tests/kernels/test_float32_swish.py",
    "tests/kernels/test_float32_mish.py",
    "tests/kernels/test_float32_swiglu.py",
    "tests/kernels/test_gelu_float32.py",
    "tests/kernels/test_gelu_forward_float32.py",
    "tests/kernels/test_kernel_triton.py",
    "tests/kernels/test_kernel_table.py",
    "tests/kernels/test_native32.py",
    "tests/kernels/test_native32_params.py",
    "tests/kernels/test_vec_convert.py",
    "tests/test_round_to.py",
    "tests/kernels/test_prefetch.py",
    "tests/kernels/test_mask_moves.py",
    "tests/test_pointwise.py",
    "tests/test_gated.py",
]
ORDER = ("default", "avx2", "avx512")  # x86-64's ATen capabilities, lowest first

PROBE = """
import json, torch, numpy
from numpy._core import _multiarray_umath as m
from torch._inductor import cpu_vec_isa
isa = cpu_vec_isa.pick_vec_isa()
print(json.dumps({"aten": torch.backends.cpu.get_cpu_capability().lower(),
                  "inductor": str(isa) if isa else "default",
                  "numpy_on": sorted(k for k in m.__cpu_dispatch__ if m.__cpu_features__.get(k))}))
"""


def _numpy_targets() -> tuple[list[str], list[str]]:
    """numpy's dispatched SIMD targets (names differ between numpy versions) and those this CPU has."""
    from numpy._core import _multiarray_umath as m

    return list(m.__cpu_dispatch__), [k for k in m.__cpu_dispatch__ if m.__cpu_features__.get(k)]


def levels() -> list[str]:
    import torch

    native = torch.backends.cpu.get_cpu_capability().lower()
    if native not in ORDER:  # aarch64, ppc, s390x: only the native ISA and scalar code
        return ["default", native]
    return list(ORDER[: ORDER.index(native) + 1])


def env_for(level: str, cache_root: str) -> dict[str, str]:
    env = dict(os.environ, ATEN_CPU_CAPABILITY=level, TORCHINDUCTOR_CACHE_DIR=os.path.join(cache_root, level))
    _, present = _numpy_targets()
    if level == "default":
        off = present
    elif level == "avx2":
        off = [k for k in present if "AVX512" in k or k == "X86_V4"]
    else:
        off = []
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if off:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(off)
    return env


def check_forced(level: str, env: dict[str, str]) -> None:
    import json

    got = json.loads(
        subprocess.run([sys.executable, "-c", PROBE], env=env, check=True, capture_output=True, text=True).stdout
    )
    want_off = set(env.get("NPY_DISABLE_CPU_FEATURES", "").split())
    if got["aten"] != level or (level == "default") != (got["inductor"] == "default"):
        raise SystemExit(f"isa matrix: forcing {level} failed: ATen {got['aten']}, inductor {got['inductor']}")
    if level != "default" and level not in got["inductor"]:
        raise SystemExit(f"isa matrix: inductor picked {got['inductor']} under ATEN_CPU_CAPABILITY={level}")
    if want_off & set(got["numpy_on"]):
        raise SystemExit(f"isa matrix: numpy still dispatches {sorted(want_off & set(got['numpy_on']))} at {level}")
    print(
        f"isa matrix: {level}: ATen {got['aten']}, inductor {got['inductor']}, numpy {got['numpy_on'] or 'baseline'}",
        flush=True,
    )


def main(argv: list[str]) -> int:
    run_all = "--all" in argv
    args = [a for a in argv if a not in ("--all", "--list")]
    todo = levels() if run_all else levels()[:-1]
    if "--list" in argv:
        print(" ".join(todo))
        return 0
    failed = []
    with tempfile.TemporaryDirectory(prefix="nonlin-isa-") as cache_root:
        for level in todo:
            env = env_for(level, cache_root)
            check_forced(level, env)
            t0 = time.monotonic()
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS, *args]
            rc = subprocess.run(cmd, env=env).returncode
            print(
                f"isa matrix: {level}: {'passed' if rc == 0 else 'FAILED'} in {time.monotonic() - t0:.0f} s", flush=True
            )
            if rc:
                failed.append(level)
    if failed:
        print(f"isa matrix: failed under {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
