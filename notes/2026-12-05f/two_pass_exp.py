"""A two-pass loop (near vectors first, the rest after) against the one-pass kernels, ns per element at 4M:
measured, not taken (gelu and geglu got slower).

    PYTHONPATH=src python notes/2026-12-05f/two_pass_exp.py [NAMES]"""

import sys

import torch

sys.path.insert(0, "/work/main/notes/2026-12-04c")
sys.path.insert(0, "/work/main/notes/2026-12-05a")
sys.path.insert(0, "/work/main/benchmarks")
from interleave import interleaved_ns
from kernels import keep_freed_memory

from nonlin.kernels import native32

UN = r"""
extern "C" void kernel(const float* x, float* out, int64_t rows, int64_t width, int64_t s_x, int64_t s_out,
                       int64_t threads) {
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const float* xr = x + r * s_x;
    float* o = out + r * s_out;
    int64_t i = begin;
    bool far = false;
    for (; i + V <= end; i += V) {
      ahead(xr + i, o + i);
      const VF a = VF::loadu(xr + i);
      if (every(LANES(a))) NEAR(a).store(o + i);
      else far = true;
    }
    if (far) {
      for (int64_t j = begin; j + V <= end; j += V) {
        const VF a = VF::loadu(xr + j);
        if (!every(LANES(a))) FN(a).store(o + j);
      }
    }
    if (i < end) FN(VF::loadu(xr + i, end - i)).store(o + i, end - i);
  });
}
"""
BI = r"""
extern "C" void kernel(const float* a, const float* b, float* out, int64_t rows, int64_t width, int64_t s_a,
                       int64_t s_b, int64_t s_out, int64_t threads) {
  for_blocks(rows, width, threads, [&](int64_t r, int64_t begin, int64_t end) {
    const float* ar = a + r * s_a;
    const float* br = b + r * s_b;
    float* o = out + r * s_out;
    int64_t i = begin;
    bool far = false;
    for (; i + V <= end; i += V) {
      ahead(ar + i, o + i);
      ahead(br + i);
      const VF x = VF::loadu(ar + i), y = VF::loadu(br + i);
      if (every(LANES(x, y))) NEAR(x, y).store(o + i);
      else far = true;
    }
    if (far) {
      for (int64_t j = begin; j + V <= end; j += V) {
        const VF x = VF::loadu(ar + j), y = VF::loadu(br + j);
        if (!every(LANES(x, y))) FN(x, y).store(o + j);
      }
    }
    if (i < end) FN(VF::loadu(ar + i, end - i), VF::loadu(br + i, end - i)).store(o + i, end - i);
  });
}
"""
EXP = r"""
ALWAYS static inline VF l_gelu(VF x) { return (x >= C(-GELU_NEAR)) & (x <= C(FLT_MAX)); }
ALWAYS static inline VF l_silu(VF x) { return (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)); }
ALWAYS static inline VF l_sigmoid(VF x) { return x.abs() < C(69.0f); }
ALWAYS static inline VF l_silu_grad(VF go, VF x) { return (x >= C((float)SILU_PLAIN_LOW)) & (x <= C(SILU_OPEN)) & unscaled_lanes(go); }
ALWAYS static inline VF l_gelu_grad(VF go, VF x) { return (x >= C(-GELU_NEAR)) & (x <= C(FLT_MAX)) & unscaled_lanes(go); }
ALWAYS static inline VF l_swiglu(VF g, VF v) { return swiglu_near_lanes(g, v, v); }
ALWAYS static inline VF l_glu(VF g, VF v) { return glu_near_lanes(g, v, v); }
ALWAYS static inline VF l_geglu(VF g, VF v) { return geglu_near_lanes(g, v, v); }
"""
native32._PRELUDE += EXP
CASES = {  # name: (kind, fn, lanes, near)
    "gelu": ("un", "gelu_f", "l_gelu", "gelu_near"),
    "silu": ("un", "silu_f", "l_silu", "silu_near"),
    "sigmoid": ("un", "sigmoid_f", "l_sigmoid", "sigmoid_near"),
    "silu_grad": ("bi", "silu_grad_f", "l_silu_grad", "silu_grad_near"),
    "gelu_grad": ("bi", "gelu_grad_f", "l_gelu_grad", "gelu_grad_near"),
    "swiglu": ("ga", "swiglu_f", "l_swiglu", "swiglu_near"),
    "glu": ("ga", "glu_f", "l_glu", "glu_near"),
    "geglu": ("ga", "geglu_f", "l_geglu", "geglu_near"),
}
keep_freed_memory()
torch.set_num_threads(1)
n = 1 << 22
x, go = torch.randn(n) * 3, torch.randn(n)
jobs = {}
for name, (kind, fn, lanes, near) in CASES.items():
    if name not in sys.argv[1:] and len(sys.argv) > 1:
        continue
    t = (UN if kind == "un" else BI).replace("LANES", lanes).replace("NEAR(", near + "(")
    orig = native32._UNARY if kind == "un" else native32._BINARY
    if kind == "un":
        native32._UNARY = t
        native32.PRIMITIVES["x_" + name] = (fn, fn)
        native32.kernel("x_" + name, "fwd")
        native32._UNARY = orig
        jobs[name] = lambda name=name: native32.forward(name, x)
        jobs["2pass " + name] = lambda name=name: native32.forward("x_" + name, x)
        assert torch.equal(native32.forward(name, x), native32.forward("x_" + name, x))
    elif kind == "bi":
        base = name.replace("_grad", "")
        native32._BINARY = t
        native32.PRIMITIVES["x_" + name] = (fn, fn)
        native32.kernel("x_" + name, "bwd")
        native32._BINARY = orig
        jobs[name] = lambda base=base: native32.backward(base, go, x)
        jobs["2pass " + name] = lambda name=name: native32.backward("x_" + name, go, x)
        assert torch.equal(native32.backward(base, go, x), native32.backward("x_" + name, go, x))
    else:
        native32._BINARY = t
        native32.GATED["x_" + name] = (fn, "swiglu_grad_f")
        native32.kernel("x_" + name, "fwd")
        native32._BINARY = orig
        jobs[name] = lambda name=name: native32.gated_forward(name, x, go)
        jobs["2pass " + name] = lambda name=name: native32.gated_forward("x_" + name, x, go)
        assert torch.equal(native32.gated_forward(name, x, go), native32.gated_forward("x_" + name, x, go))
for k, t in interleaved_ns(jobs, n, 7).items():
    print(f"{k}: {t:.3f}")
