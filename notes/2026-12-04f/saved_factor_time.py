"""Kernel times of the saved-factor training route (forward_saving / backward_saved of a prototype native32
beside this script, not built into nonlin: native32_saving_v2.py.txt, the encoding that keeps f'' exact; with
--v1, native32_saving_prototype.py.txt, the factor alone) against the
kernels from x and torch's ops, forward + backward of one call and each pass alone (no autograd: the kernels
and torch's own forward and backward ops, outputs allocated per call as a call does).

Usage: PYTHONPATH=src python notes/2026-12-04f/saved_factor_time.py [numel] [rounds] [--v1]"""

import importlib.machinery
import importlib.util
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "2026-12-04e"))
from interleaved import print_interleaved  # noqa: E402

_name = "native32_saving_v2.py.txt"
if "--v1" in sys.argv:
    sys.argv.remove("--v1")
    _name = "native32_saving_prototype.py.txt"
_loader = importlib.machinery.SourceFileLoader("native32_prototype", os.path.join(HERE, _name))
native32 = importlib.util.module_from_spec(importlib.util.spec_from_loader("native32_prototype", _loader))
_loader.exec_module(native32)

torch.set_num_threads(1)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 22
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
x = torch.randn(n) * 3
go = torch.randn(n)
for name, op, op_bwd in (
    ("sigmoid", torch.sigmoid, torch.ops.aten.sigmoid_backward),
    ("tanh", torch.tanh, torch.ops.aten.tanh_backward),
):
    y_t = op(x)
    _, sv = native32.forward_saving(name, x)
    jobs = {
        f"{name} fwd (inference kernel)": lambda name=name: native32.forward(name, x),
        f"{name} fwd saving the factor": lambda name=name: native32.forward_saving(name, x),
        f"{name} fwd torch": lambda op=op: op(x),
        f"{name} bwd from x": lambda name=name: native32.backward(name, go, x),
        f"{name} bwd from the factor": lambda name=name, sv=sv: native32.backward_saved(name, go, sv),
        f"{name} bwd torch (from y)": lambda b=op_bwd, y=y_t: b(go, y),
        f"{name} fwd+bwd from x": lambda name=name: (native32.forward(name, x), native32.backward(name, go, x)),
        f"{name} fwd+bwd saving the factor": lambda name=name: native32.backward_saved(
            name, go, native32.forward_saving(name, x)[1]
        ),
        f"{name} fwd+bwd torch": lambda op=op, b=op_bwd: b(go, op(x)),
    }
    if name == "tanh":  # tanh's training route until now: torch's forward, the kernel's backward from x
        jobs["tanh torch fwd + bwd from x"] = lambda: (torch.tanh(x), native32.backward("tanh", go, x))
    print_interleaved(jobs, n, rounds, f"{name}, one thread")
