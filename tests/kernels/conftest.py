"""Kernel tests run the Triton kernels on CPU under Triton's interpreter: it must be switched on before
triton is first imported (nonlin imports it lazily, so setting it here, at collection, is early enough)."""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")
