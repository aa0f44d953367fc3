"""Prototype (not product code): what a training call costs at 32K float32 when its autograd node is C++ (a
torch::autograd::Function registered as an op) instead of a Python autograd.Function, both around torch's own
hardswish forward and backward, against torch's op; forward then backward of ones, interleaved medians, µs.
Builds a throwaway extension with torch.utils.cpp_extension.load_inline (~1 min).

    python notes/2026-12-07g/cpp_autograd_proto.py
"""

import statistics
import time

import torch
import torch.nn.functional as TF
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/library.h>
#include <torch/csrc/autograd/custom_function.h>
#include <ATen/ATen.h>
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
struct HS : public torch::autograd::Function<HS> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x) {
    ctx->save_for_backward({x});
    return at::hardswish(x);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto x = ctx->get_saved_variables()[0];
    return {at::hardswish_backward(grads[0], x)};
  }
};
at::Tensor hs(const at::Tensor& x) { return HS::apply(x); }
TORCH_LIBRARY(proto, m) { m.def("hs(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(proto, CompositeImplicitAutograd, m) { m.impl("hs", &hs); }
"""


class PythonHardswish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return TF.hardswish(x)

    @staticmethod
    def backward(ctx, go):
        (x,) = ctx.saved_tensors
        return torch.ops.aten.hardswish_backward(go, x)


def main() -> None:
    load_inline("proto", cpp_sources=SOURCE, is_python_module=False, extra_cflags=["-O2"])
    torch.set_num_threads(1)
    x = torch.randn(64, 512, requires_grad=True)
    ones = torch.ones(64, 512)
    op = torch.ops.proto.hs
    fns = {"torch": TF.hardswish, "python Function": PythonHardswish.apply, "C++ Function op": op.default}
    for f in fns.values():
        for _ in range(100):
            f(x).backward(ones)
    t: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(9):
        for k, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(300):
                f(x).backward(ones)
            t[k].append((time.perf_counter() - t0) / 300 * 1e6)
    m = {k: statistics.median(v) for k, v in t.items()}
    print("training call:", ", ".join(f"{k} {v:.1f} µs ({v / m['torch']:.2f})" for k, v in m.items()))


if __name__ == "__main__":
    main()
