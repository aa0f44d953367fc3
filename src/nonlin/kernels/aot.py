"""Compile the generated Triton kernels ahead of time for a GPU target, without a GPU.

Triton's wheel bundles its compiler and ptxas, so the real code generator, LLVM and ptxas can run on a
machine with no driver: this catches what the interpreter cannot (non-constexpr globals, type rules of the
compiler, libdevice signatures, register limits). It does not run the kernels: numbers need a GPU
(benchmarks/gpu_check.py).

    python -m nonlin.kernels.aot                       # every entry, float32/bfloat16/float16, sm_90
    python -m nonlin.kernels.aot --entries gelu swiglu --dtypes bfloat16

Must run without TRITON_INTERPRET (the interpreter replaces libdevice).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

_TT = {"float64": "fp64", "float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


def _signature(fn, io: str, compute: str) -> tuple[dict[str, str], dict[str, int]]:
    sig = {}
    for name in fn.arg_names:
        if name == "BLOCK":
            sig[name] = "constexpr"
        elif name == "params_ptr" or name == "dparams_ptr":
            sig[name] = "*" + _TT[compute]
        elif name.endswith("_ptr"):
            base = name[: -len("_ptr")]
            # Extra-input gradients are written in the compute dtype; everything else in the io dtype.
            # Per-channel parameter gradients (dpv_<name>) too.
            sig[name] = "*" + (_TT[compute] if base == "dc" or base.startswith("dpv_") else _TT[io])
        else:
            sig[name] = "i32"
    return sig, {"BLOCK": 1024}


def compile_entry(name: str, io: str, fp32_compute: str = "float64", arch: int = 90) -> list[str]:
    """Compile forward and backward of `name` for inputs of dtype `io`; returns error messages (empty: ok)."""
    import triton
    from triton.backends.compiler import GPUTarget

    import nonlin
    from nonlin.kernels.codegen import plan
    from nonlin.kernels.triton_launch import kernels

    s = nonlin.spec(name)
    compute = "float32" if io in ("float16", "bfloat16") else ("float64" if io == "float64" else fp32_compute)
    tparams = tuple(p.name for p in s.learnable_params)
    floats = tuple(sorted((k, v) for k, v in s.defaults().items() if k not in tparams))
    modes = ("eval", "train") if s.stochastic else ("plain",)
    errors = []
    target = GPUTarget("cuda", arch, 32)
    plans = [(mode, plan(s, mode, floats, tparams)) for mode in modes]
    if s.derivative_from_output is not None:  # the backward from the saved output
        plans.append(("output", plan(s, "output", floats, tparams)))
    if tparams:  # every learnable parameter per channel
        plans.append(("per-channel", plan(s, "plain", floats, tparams, tparams)))
    for mode, p in plans:
        fwd, bwd, _ = kernels(p, compute, io, False)
        for fn in (fwd, bwd):
            sig, const = _signature(fn, io, compute)
            try:
                triton.compile(triton.compiler.ASTSource(fn, sig, const), target=target)
            except Exception as e:  # report every failure, keep going
                errors.append(f"{name} {mode} {fn.__name__} {io}: {type(e).__name__}: {str(e)[-600:]}")
    return errors


def main(argv=None) -> int:
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        print("unset TRITON_INTERPRET: the AOT check compiles the real kernels", file=sys.stderr)
        return 2
    import nonlin

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", nargs="*")
    ap.add_argument("--dtypes", nargs="*", default=["float32", "bfloat16", "float16"])
    ap.add_argument("--fp32-compute", default="float64", choices=["float64", "float32"])
    ap.add_argument("--arch", type=int, default=90, help="sm version (90: H100/H200)")
    args = ap.parse_args(argv)
    entries = args.entries or nonlin.names("pointwise") + nonlin.names("gated")
    t0 = time.time()
    errors: list[str] = []
    for name in entries:
        for io in args.dtypes:
            errs = compile_entry(name, io, args.fp32_compute, args.arch)
            errors += errs
            print(f"{name:24s} {io:9s} {'ok' if not errs else 'FAILED'}", flush=True)
    print(f"{len(errors)} failures in {time.time() - t0:.0f} s")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
