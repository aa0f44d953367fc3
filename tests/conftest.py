"""Fixtures shared by the test folders."""

import os

# The suite measures the static route table: a profile `nonlin tune` wrote on this machine would move the
# per-machine rows (tests/test_route_profile.py measures every route a profile can choose).
os.environ["NONLIN_ROUTE_PROFILE"] = "off"

import pytest

from nonlin.kernels import cpp_ops, cpu, native32


@pytest.fixture(scope="session", autouse=True)
def cpp_ops_loaded():
    """The C++ ops loaded before the first test (built once per machine, 20-45 s), as a process has them once they
    are built: else float32 training calls would move from the Python autograd.Function to the C++ node
    (`cpp_ops.training_op`) whenever the background build finished, in the middle of a test."""
    if native32.available() and cpu.compile_available():
        cpp_ops._load()


@pytest.fixture(scope="module")
def forget_kernels_built_here():
    """Forget, after the module, the fused kernels its calls compiled (float64 ones among them) that no other
    test builds: once built, a later test's small calls would take them (nonlin.route's warm rule) where that
    test measured the eager route. Use it in a module that forces the fused route: each file's routes stay
    its own."""
    before = set(cpu._DIRECT)
    yield
    for key in set(cpu._DIRECT) - before:
        del cpu._DIRECT[key]
