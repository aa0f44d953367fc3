"""neural-tangents side of `benchmarks/theory.py --nt-python`: runs in an environment that has
neural-tangents (JAX), not torch or nonlin.

    ntenv/bin/python benchmarks/theory_nt_worker.py IN.npz OUT.npz

IN holds X [n, d], depth, sigma_w, sigma_b; OUT gets, per case, the NNGP and NTK (float64) and the
median wall time of three runs (after one warm-up call that compiles).
"""

import statistics
import sys
import time

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from neural_tangents import stax  # noqa: E402


def net(unit, depth: int, sw: float, sb: float):
    layers = []
    for _ in range(depth):
        layers += [stax.Dense(1, W_std=sw, b_std=sb), unit]
    layers.append(stax.Dense(1, W_std=sw, b_std=sb))
    return stax.serial(*layers)[2]


def main() -> None:
    data = np.load(sys.argv[1])
    X = np.asarray(data["X"], dtype=np.float64)
    depth, sw, sb = int(data["depth"]), float(data["sigma_w"]), float(data["sigma_b"])
    cases = {
        "relu_closed": stax.Relu(),
        "relu_numerical": stax.ElementwiseNumerical(lambda x: jnp.maximum(x, 0.0), deg=25),
        "erf_closed": stax.Erf(),
        "gelu_closed": stax.Gelu(approximate=False),
        "tanh_numerical": stax.ElementwiseNumerical(jnp.tanh, deg=25),
    }
    out = {}
    for name, unit in cases.items():
        kernel_fn = jax.jit(net(unit, depth, sw, sb), static_argnames="get")
        k = kernel_fn(X, None, ("nngp", "ntk"))
        jax.block_until_ready(k)
        times = []
        for _ in range(3):
            t = time.perf_counter()
            k = kernel_fn(X, None, ("nngp", "ntk"))
            jax.block_until_ready(k)
            times.append(time.perf_counter() - t)
        out[f"{name}_nngp"] = np.asarray(k.nngp, dtype=np.float64)
        out[f"{name}_ntk"] = np.asarray(k.ntk, dtype=np.float64)
        out[f"{name}_time"] = statistics.median(times)
    np.savez(sys.argv[2], **out)


if __name__ == "__main__":
    main()
