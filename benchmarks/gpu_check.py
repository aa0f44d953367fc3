"""The GPU check, ready for a machine with a CUDA GPU and Triton: one command, about 5-8 minutes on an H200.

    python benchmarks/gpu_check.py            # correctness of every entry (8 processes), then the benchmark
    python benchmarks/gpu_check.py --quick    # bfloat16 only outside a sample, shorter benchmark
    python benchmarks/gpu_check.py --dry-run --entries gelu swiglu   # the script itself, on CPU (interpreter)

1. Correctness of the real Triton compile (no interpreter): every pointwise and gated entry, forward and
   backward, float32 / bfloat16 (/ float16 on a sample; --full: all) against the mpmath reference on the test grid,
   with the accuracy goals (fp32 <= 2 ULP forward, <= 4 backward; half <= 1 ULP); packed == split
   layouts; learnable-parameter gradients against the eager path; the max ULP of float32 inputs with
   float32 internal math (fp32_compute="float32") on the sample, reported, not asserted.
2. The benchmark (benchmarks/kernels.py) for swiglu, geglu, geglu_tanh, gelu, mish, silu in bfloat16 at
   LLM-MLP shapes (8192 x 8192 pointwise, 16384 x 14336 packed gated), with Liger-Kernel when installed.
Exit status 1 if any correctness check fails.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

# --dry-run: the same checks on CPU under Triton's interpreter (to test this script without a GPU).
DRY = "--dry-run" in sys.argv
if DRY:
    os.environ["TRITON_INTERPRET"] = "1"
else:
    os.environ.pop("TRITON_INTERPRET", None)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "kernels"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
from kernel_helpers import GOAL, grid, ref_gated, ref_pointwise, ulp_error  # noqa: E402
from rich.console import Console  # noqa: E402

import nonlin  # noqa: E402
from nonlin.autograd import compute_dtype  # noqa: E402
from nonlin.kernels import use  # noqa: E402

console = Console(width=200)
DEVICE = torch.device("cpu" if DRY else "cuda")
BACKEND = {"backend": "triton"} if DRY else {}
PARAM_GRAD_RTOL = 1e-10  # fused against eager float64 gradients (check_params)
HALF_SAMPLE = {"relu", "gelu", "mish", "swish", "rational", "snake", "softsign", "erf", "golu", "xatlu"}


def check_entry(name: str, dtype: torch.dtype, fp32_compute: str = "float64") -> tuple[float, float]:
    s = nonlin.spec(name)
    f = nonlin.functional.function(name)
    dev = DEVICE
    with use("fused", fp32_compute=fp32_compute, **BACKEND):
        if s.kind is nonlin.Kind.GATED:
            rows, d = 3, 33
            g = grid(dtype, rows * d).reshape(rows, d)
            v = (torch.randn(rows, d, generator=torch.Generator().manual_seed(3)) * 2).to(dtype)
            c = torch.rand(rows, 1, generator=torch.Generator().manual_seed(4)).to(dtype) if s.extra_inputs else None
            kw = {"c": c.to(dev)} if c is not None else {}
            packed = torch.cat([g, v], -1).to(dev).requires_grad_(True)
            go = torch.randn(rows, d, generator=torch.Generator().manual_seed(5)).to(dtype)
            y = f(packed, layout="gate_value", **kw)  # [gate | value]
            (dp,) = torch.autograd.grad(y, packed, go.to(dev))
            gs, vs = (
                packed.detach()[:, :d].clone().requires_grad_(True),
                packed.detach()[:, d:].clone().requires_grad_(True),
            )
            y2 = f(gs, vs, **kw)
            dg2, dv2 = torch.autograd.grad(y2, (gs, vs), go.to(dev))
            if not (torch.equal(y2, y) and torch.equal(dg2, dp[:, :d]) and torch.equal(dv2, dp[:, d:])):
                raise AssertionError(f"{name} {dtype}: packed and split layouts differ")
            yr, dgr, dvr = ref_gated(name, g, v, c)
            gor = go.double().numpy().ravel()
            ef = ulp_error(y.cpu(), yr).max()
            eb = max(ulp_error(dp[:, :d].cpu(), dgr * gor).max(), ulp_error(dp[:, d:].cpu(), dvr * gor).max())
        else:
            x = grid(dtype)
            kw, u = {}, None
            if s.stochastic:
                gen = torch.Generator(device=dev).manual_seed(2)
                kw = {"training": True, "generator": gen}
                g2 = torch.Generator(device=dev).manual_seed(2)
                u = torch.rand(x.shape, generator=g2, device=dev, dtype=compute_dtype(dtype)).cpu()
            xd = x.to(dev).requires_grad_(True)
            go = torch.randn(x.shape, generator=torch.Generator().manual_seed(1)).to(dtype)
            y = f(xd, **kw)
            (gx,) = torch.autograd.grad(y, xd, go.to(dev))
            ef = ulp_error(y.cpu(), ref_pointwise(name, x, u)).max()
            eb = ulp_error(gx.cpu(), ref_pointwise(name, x, u, derivative=True) * go.double().numpy()).max()
    return float(ef), float(eb)


def check_params(name: str) -> tuple[float, str]:
    """Max relative difference of fused vs eager gradients (inputs and learnable parameters), float64, each
    element against its own magnitude or a thousandth of the tensor's largest, whichever is larger: where a
    gradient crosses zero (swiglu's v silu'(g) at g = -1.28) two float64 evaluations that differ in their last bits
    differ by 1e-16 of a value near 1e-8, which is no error. Returns it with where it was reached: the leaf, the
    element, both values and, where the entry declares its textbook form in torch ops, that form's float64
    gradient as a third opinion (two CI runs of the interpreter read 2.6e-9 and 3.1e-9 here where every local
    run reads 7.8e-16: the next one says which path moved)."""
    s = nonlin.spec(name)
    f = nonlin.functional.function(name)
    dev = DEVICE
    gen = torch.Generator(device=dev).manual_seed(11)
    shape = (64, 2 * 96) if s.kind is nonlin.Kind.GATED else (64, 97)
    x = (torch.randn(shape, generator=gen, device=dev, dtype=torch.float64) * 2).requires_grad_(True)
    kw = {p.name: torch.tensor(float(p.default) * 0.9 + 0.05, device=dev, dtype=torch.float64, requires_grad=True)
          for p in s.learnable_params}  # fmt: skip
    if s.extra_inputs:
        kw["c"] = torch.rand(64, 1, generator=gen, device=dev, dtype=torch.float64).requires_grad_(True)
    leaves = {"x": x, **kw}
    out = []
    for mode in ("fused", "eager"):
        with use(mode, **BACKEND):
            y = f(x, **kw)
            out.append(torch.autograd.grad(y.square().sum(), list(leaves.values())))
    textbook = _textbook_grads(s, x, kw)
    worst, where = 0.0, ""
    for i, (leaf, a, b) in enumerate(zip(leaves, *out, strict=True)):
        rel = (a - b).abs() / torch.maximum(b.abs(), 1e-3 * b.abs().max()).clamp_min(1e-300)
        k = int(rel.argmax())
        if float(rel.flatten()[k]) > worst or not where:
            worst = float(rel.flatten()[k])
            third = "" if textbook is None else f", textbook {float(textbook[i].flatten()[k])!r}"
            at = f"{leaf}[{k}]" if a.dim() else leaf
            where = f"{at}: fused {float(a.flatten()[k])!r}, eager {float(b.flatten()[k])!r}{third}"
    return worst, where


def _textbook_grads(s, x: torch.Tensor, kw: dict) -> tuple[torch.Tensor, ...] | None:
    """The same gradients through the entry's declared torch form (`torch_equivalent`), or None where it has
    none, it takes other arguments or a parameter does not reach its result (prelu's form takes a constant)."""
    if s.torch_equivalent is None:
        return None
    xt = x.detach().clone().requires_grad_(True)
    kt = {k: v.detach().clone().requires_grad_(True) for k, v in kw.items()}
    try:
        args = xt.chunk(2, -1) if s.kind is nonlin.Kind.GATED else (xt,)
        y = s.torch_equivalent(*args, **kt)
        grads = torch.autograd.grad(y.square().sum(), [xt, *kt.values()], allow_unused=True)
    except (TypeError, RuntimeError):
        return None
    return None if any(g is None for g in grads) else grads


def check_entries(entries: list[str], quick: bool, full: bool) -> list[str]:
    """Correctness of each entry, one line each; returns the failures."""
    failures = []
    for name in entries:
        gated = nonlin.spec(name).kind is nonlin.Kind.GATED
        sample = name in HALF_SAMPLE or gated
        dtypes = [torch.float32, torch.bfloat16]
        if sample or full:
            dtypes.append(torch.float16)
        if quick and not sample:
            dtypes = [torch.bfloat16]
        cells = []
        for dt in dtypes:
            try:
                ef, eb = check_entry(name, dt)
                ok = ef <= GOAL[dt][0] and eb <= GOAL[dt][1]
            except Exception as e:  # a compile error is a failure to report, not a crash of the check
                ef = eb = float("nan")
                ok = False
                console.print(f"[red]{name} {dt}: {type(e).__name__}: {e}[/]")
            if not ok:
                failures.append(f"{name} {dt}")
            cells.append(f"{str(dt)[6:]} {ef:.2f}/{eb:.2f}{'' if ok else ' FAIL'}")
        if (sample and not quick) or full:
            try:
                ef, eb = check_entry(name, torch.float32, fp32_compute="float32")
                cells.append(f"fp32-math {ef:.1f}/{eb:.1f} (info)")
            except Exception as e:
                cells.append(f"fp32-math error {type(e).__name__}")
        if nonlin.spec(name).learnable_params or nonlin.spec(name).extra_inputs:
            try:
                rel, where = check_params(name)
                ok = rel <= PARAM_GRAD_RTOL
                if not ok and DRY:
                    # Under the interpreter, two fresh-clone CI runs (of many) read ~3e-9 once where every rerun
                    # reads 7.8e-16; a second evaluation tells a deterministic difference (a failure) from
                    # one that moved between two evaluations of the same float64 code, which is printed.
                    again, where_again = check_params(name)
                    console.print(f"{name} params: {rel:.1e} at {where}; again: {again:.1e} at {where_again}")
                    rel, where, ok = again, where_again, again <= PARAM_GRAD_RTOL
            except Exception as e:
                rel, ok, where = float("nan"), False, ""
                console.print(f"[red]{name} params: {type(e).__name__}: {e}[/]")
            cells.append(f"param grads rel {rel:.1e}{'' if ok else f' FAIL at {where}'}")
            if not ok:
                failures.append(f"{name} params")
        console.print(f"{name:24s} " + "  ".join(cells), highlight=False)
    return failures


def parallel_checks(entries: list[str], args) -> int:
    """Run the checks in `args.jobs` worker processes (each compiles its own kernels: Triton compiles one
    kernel per thread, and there are hundreds); returns the number of failing workers."""
    chunks = [entries[i :: args.jobs] for i in range(args.jobs) if entries[i :: args.jobs]]
    flags = [f for f, on in (("--quick", args.quick), ("--full", args.full), ("--dry-run", DRY)) if on]
    procs = [
        subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", "--skip-benchmark", *flags, "--entries", *chunk],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for chunk in chunks
    ]
    bad = 0
    for proc in procs:
        out, _ = proc.communicate()
        lines = [ln for ln in out.splitlines() if "Warning" not in ln and "warn(" not in ln]
        console.print("\n".join(lines), highlight=False, markup=False)
        bad += proc.returncode != 0
    return bad


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="bfloat16 only outside a sample; smaller benchmark")
    p.add_argument("--full", action="store_true", help="float16 and float32-math for every entry")
    p.add_argument("--skip-benchmark", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="CPU, Triton interpreter, no benchmark")
    p.add_argument("--entries", nargs="*", help="check only these entries")
    p.add_argument("--jobs", type=int, default=8, help="worker processes for the correctness checks")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.dry_run:
        args.skip_benchmark = True
    elif not torch.cuda.is_available():
        console.print("[red]no CUDA device[/]")
        return 2
    import triton

    entries = args.entries or nonlin.names("pointwise") + nonlin.names("gated")
    if args.worker:
        return 1 if check_entries(entries, args.quick, args.full) else 0
    where = "CPU (interpreter, dry run)" if DRY else torch.cuda.get_device_name()
    console.print(f"{where} torch {torch.__version__} triton {triton.__version__}")
    t0 = time.time()
    if args.jobs > 1:
        bad = parallel_checks(entries, args)
        console.print(f"correctness: {bad} worker(s) with failures, {time.time() - t0:.0f} s (FAIL lines above)")
    else:
        failures = check_entries(entries, args.quick, args.full)
        bad = len(failures)
        console.print(f"correctness: {bad} failures in {time.time() - t0:.0f} s: {failures}")
    if not args.skip_benchmark:
        import kernels

        t1 = time.time()
        bench = ["swiglu", "geglu", "geglu_tanh", "gelu", "mish", "silu"]
        cmd = ["--device", "cuda", "--dtypes", "bfloat16", "--entries", *bench]
        if args.quick:
            cmd += ["--shapes", "4096x8192", "--reps", "10"]
        kernels.main(cmd)
        console.print(f"benchmark: {time.time() - t1:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
