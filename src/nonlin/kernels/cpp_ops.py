"""nonlin's C++ ops: the float32 kernels' ops in a caller's compiled graph (`nonlin::native32_cpp` and its five
siblings, twins of `native32`'s ops registered from Python), and the autograd node of eager float32 training calls
on those kernels (`nonlin::native32_train`, `training_op`).

A compiled graph calls each op through the dispatcher. For an op registered from Python (`graph_ops.cpu_op`),
that call converts its arguments to Python objects, runs nonlin's Python and converts the result back: on a 32K
float32 silu on a loaded 2-core AVX2 host, 39.9-42.4 µs a call against 31.6 for the kernel itself, and 34.9-38.3
for the twin here (`notes/2026-12-07f/op_cost.py`). These twins do in C++ what the Python ops do for contiguous float32 inputs:
allocate the result and call the kernel's entry point (the same compiled kernel: the same bits), found by the
kernel's name in a table that `native32.kernel` fills as it builds each one. Any other call (a strided input, a
kernel not built yet) goes on to the Python op, through the dispatcher.

An eager training call pays for its autograd node: a Python autograd.Function's costs ~30 µs per call on the
AVX2 host above torch's own node (`notes/2026-12-07h/node_16.txt`). The node here is built as torch's ops build
theirs, around the same kernels (the same bits): `dispatch.training_call` takes it.

Built once per machine with torch's headers (`torch.utils.cpp_extension`'s include and library paths, inductor's
C++ compiler; 20-45 s on a 2-core host, then cached beside inductor's kernels by the source's and torch's hash):
when a graph first needs it, or in a background thread from the first training call (which takes the Python
Function until it is built). Where the build fails (no compiler, no headers), graphs call the Python ops and
training calls the Python Function, with a warning saying so: the same values, slower.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import torch

from nonlin.kernels import graph_ops
from nonlin.kernels.gather import PARALLEL_NUMEL

# `native32`'s ops, each with a twin here of the same schema
OPS = ("native32", "native32_grad", "native32_gated", "native32_gated_grad", "native32_gated_packed",
       "native32_gated_packed_grad")  # fmt: skip

_SOURCE = r"""
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/empty.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/csrc/dynamo/compiled_autograd.h>
#include <torch/library.h>

#include <mutex>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <unordered_map>

namespace {

using at::Tensor;
using c10::string_view;

std::shared_mutex lock;
std::unordered_map<std::string, void*> kernels;  // "primitive/fwd" or "primitive/bwd" -> the kernel's entry point

template <class K>
K find(string_view primitive, const char* which) {
  std::string key(primitive.data(), primitive.size());
  key += '/';
  key += which;
  std::shared_lock<std::shared_mutex> reading(lock);
  const auto it = kernels.find(key);
  return it == kernels.end() ? nullptr : reinterpret_cast<K>(it->second);
}

// The kernels' OpenMP threads: torch's intra-op count from PARALLEL_NUMEL elements up (gather._threads).
int64_t threads(int64_t n) { return n >= PARALLEL_NUMEL ? at::get_num_threads() : 1; }

bool plain(const Tensor& t) { return t.scalar_type() == at::kFloat && t.is_contiguous() && t.device().is_cpu(); }

Tensor empty_as(const Tensor& t, at::IntArrayRef sizes) { return at::empty(sizes, t.options()); }

// The Python op of the same name and schema: every call the kernels do not take here.
template <class Signature>
c10::TypedOperatorHandle<Signature> python_op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

using Unary = void (*)(const float*, float*, int64_t, int64_t, int64_t, int64_t, int64_t);
using Binary = void (*)(const float*, const float*, float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
using Gated = void (*)(const float*, const float*, float*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t);
using GatedGrad = void (*)(const float*, const float*, const float*, float*, float*, int64_t, int64_t, int64_t,
                           int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);

Tensor unary_forward(const Tensor& x, string_view primitive) {
  const auto k = find<Unary>(primitive, "fwd");
  if (k == nullptr || !plain(x)) {
    static const auto op = python_op<Tensor(const Tensor&, string_view)>("nonlin::native32");
    return op.call(x, primitive);
  }
  Tensor out = empty_as(x, x.sizes());
  const int64_t n = x.numel();
  k(x.const_data_ptr<float>(), out.mutable_data_ptr<float>(), 1, n, n, n, threads(n));
  return out;
}

Tensor unary_backward(const Tensor& go, const Tensor& x, string_view primitive) {
  const auto k = find<Binary>(primitive, "bwd");
  if (k == nullptr || !plain(x) || !plain(go) || go.sizes() != x.sizes()) {
    static const auto op = python_op<Tensor(const Tensor&, const Tensor&, string_view)>("nonlin::native32_grad");
    return op.call(go, x, primitive);
  }
  Tensor out = empty_as(x, x.sizes());
  const int64_t n = x.numel();
  k(go.const_data_ptr<float>(), x.const_data_ptr<float>(), out.mutable_data_ptr<float>(), 1, n, n, n, n,
    threads(n));
  return out;
}

Tensor gated_forward(const Tensor& g, const Tensor& v, string_view primitive) {
  const auto k = find<Gated>(primitive, "fwd");
  if (k == nullptr || !plain(g) || !plain(v) || g.sizes() != v.sizes()) {
    static const auto op = python_op<Tensor(const Tensor&, const Tensor&, string_view)>("nonlin::native32_gated");
    return op.call(g, v, primitive);
  }
  Tensor out = empty_as(g, g.sizes());
  const int64_t n = g.numel();
  k(g.const_data_ptr<float>(), v.const_data_ptr<float>(), out.mutable_data_ptr<float>(), 1, n, n, n, n, 0, 0,
    threads(n));
  return out;
}

std::tuple<Tensor, Tensor> gated_backward(const Tensor& go, const Tensor& g, const Tensor& v, string_view primitive) {
  const auto k = find<GatedGrad>(primitive, "bwd");
  if (k == nullptr || !plain(go) || !plain(g) || !plain(v) || g.sizes() != v.sizes() || go.sizes() != g.sizes()) {
    static const auto op = python_op<std::tuple<Tensor, Tensor>(const Tensor&, const Tensor&, const Tensor&,
                                                                string_view)>("nonlin::native32_gated_grad");
    return op.call(go, g, v, primitive);
  }
  Tensor dg = empty_as(g, g.sizes()), dv = empty_as(v, v.sizes());
  const int64_t n = g.numel();
  k(go.const_data_ptr<float>(), g.const_data_ptr<float>(), v.const_data_ptr<float>(), dg.mutable_data_ptr<float>(),
    dv.mutable_data_ptr<float>(), 1, n, n, n, n, n, n, 0, 0, threads(n));
  return {dg, dv};
}

// A packed [..., 2d] x: the gate and value halves of each row, read in place ([gate | value], or value first).
Tensor packed_forward(const Tensor& x, string_view primitive, bool value_first) {
  const auto k = find<Gated>(primitive, "fwd");
  if (k == nullptr || !plain(x) || x.dim() == 0 || x.numel() == 0 || x.size(-1) % 2) {
    static const auto op = python_op<Tensor(const Tensor&, string_view, bool)>("nonlin::native32_gated_packed");
    return op.call(x, primitive, value_first);
  }
  const int64_t d2 = x.size(-1), d = d2 / 2, rows = x.numel() / d2;
  std::vector<int64_t> half(x.sizes().begin(), x.sizes().end());
  half.back() = d;
  Tensor out = empty_as(x, half);  // [..., d]
  const float* p = x.const_data_ptr<float>();
  k(p, p, out.mutable_data_ptr<float>(), rows, d, d2, d2, d, value_first ? d : 0, value_first ? 0 : d,
    threads(rows * d));
  return out;
}

Tensor packed_backward(const Tensor& go, const Tensor& x, string_view primitive, bool value_first) {
  const auto k = find<GatedGrad>(primitive, "bwd");
  if (k == nullptr || !plain(x) || !plain(go) || x.dim() == 0 || x.numel() == 0 || x.size(-1) % 2 ||
      go.numel() * 2 != x.numel()) {
    static const auto op = python_op<Tensor(const Tensor&, const Tensor&, string_view, bool)>(
        "nonlin::native32_gated_packed_grad");
    return op.call(go, x, primitive, value_first);
  }
  const int64_t d2 = x.size(-1), d = d2 / 2, rows = x.numel() / d2;
  Tensor dx = empty_as(x, x.sizes());  // [..., 2d], each half written by the kernel
  const float* p = x.const_data_ptr<float>();
  float* q = dx.mutable_data_ptr<float>();
  k(go.const_data_ptr<float>(), p, p, q, q, rows, d, d, d2, d2, d2, d2, value_first ? d : 0, value_first ? 0 : d,
    threads(rows * d));
  return dx;
}

}  // namespace

namespace nonlin {

using torch::autograd::SavedVariable;
using torch::autograd::variable_list;

// The node of a float32 training call of a pointwise entry on its hand-written kernels: `dispatch.nonlin_fused` in
// C++, built as torch's own ops build theirs (a torch::autograd::Function's node costs ~20 µs more per training
// call on the AVX2 host, a Python autograd.Function's ~30 more: notes/2026-12-07h/). It saves the input alone, and
// its backward is the kernel from it; under create_graph=True the Python op nonlin::native32_train_grad
// (`dispatch`: the eager formulas, differentiable), as `nonlin_fused.backward` does. `job` names the call's
// dispatch.Job for that op.
struct fused : public torch::autograd::Node {
  SavedVariable x_;
  int64_t job_ = 0;
  std::string primitive_;

  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> locked(mutex_);
    const Tensor x = x_.unpack();
    if (!grads[0].defined()) {
      return {Tensor()};
    }
    if (at::GradMode::is_enabled()) {
      static const auto op = python_op<Tensor(const Tensor&, const Tensor&, int64_t)>("nonlin::native32_train_grad");
      return {op.call(grads[0], x, job_)};
    }
    return {unary_backward(grads[0].contiguous(), x.contiguous(), primitive_)};
  }

  std::string name() const override { return "nonlin_fusedBackward"; }  // (the Python Function's node's name)

  // Compiled autograd (torch._dynamo.compiled_autograd) traces the backward: the kernel as the op
  // nonlin::native32_grad_cpp, whose fake implementation the trace takes and whose CPU one the compiled graph calls.
  void compiled_args(torch::dynamo::autograd::CompiledNodeArgs& args) const override {
    args.collect(x_, false);
    args.collect(primitive_);
  }

  variable_list apply_with_saved(const variable_list& grads,
                                 torch::dynamo::autograd::SwapSavedVariables& saved) override {
    static const auto op = python_op<Tensor(const Tensor&, const Tensor&, string_view)>("nonlin::native32_grad_cpp");
    saved.before(x_);
    variable_list result = {grads[0].defined() ? op.call(grads[0], x_.unpack(), primitive_) : Tensor()};
    saved.after(x_);
    return result;
  }

  void release_variables() override {
    std::lock_guard<std::mutex> locked(mutex_);
    x_.reset_data();
  }
};

Tensor train(int64_t job, string_view primitive, const Tensor& x) {
  // (the Python Function has no jvp either: it refuses a dual tensor, where a node would drop its tangent)
  TORCH_CHECK_NOT_IMPLEMENTED(!x._fw_grad(0).defined(), "nonlin: forward-mode AD (a dual tensor) through the ",
                              "float32 kernels' training call (", primitive, ") is not implemented");
  Tensor y = unary_forward(x.contiguous(), primitive);
  if (at::GradMode::is_enabled() && x.requires_grad()) {
    auto node = c10::make_intrusive<fused>();
    node->set_next_edges(torch::autograd::collect_next_edges(x));
    node->x_ = SavedVariable(x, false);
    node->job_ = job;
    node->primitive_ = std::string(primitive);
    torch::autograd::set_history(y, node);
  }
  return y;
}

}  // namespace nonlin

extern "C" void nonlin_register_kernel(const char* key, void* entry) {
  std::unique_lock<std::shared_mutex> writing(lock);
  if (entry == nullptr) {
    kernels.clear();
  } else {
    kernels[key] = entry;
  }
}

TORCH_LIBRARY_IMPL(nonlin, CPU, m) {
  m.impl("native32_cpp", &unary_forward);
  m.impl("native32_grad_cpp", &unary_backward);
  m.impl("native32_gated_cpp", &gated_forward);
  m.impl("native32_gated_grad_cpp", &gated_backward);
  m.impl("native32_gated_packed_cpp", &packed_forward);
  m.impl("native32_gated_packed_grad_cpp", &packed_backward);
}

TORCH_LIBRARY_IMPL(nonlin, CompositeImplicitAutograd, m) { m.impl("native32_train", &nonlin::train); }
"""

_LOCK = threading.Lock()
_STATE: dict[str, object] = {}  # "register": the table's ctypes entry, or "failed": why the build failed
_ENABLED = [True]


def set_enabled(on: bool) -> None:
    """Whether graphs traced from now on call the C++ twins, and training calls the C++ node (tests compare both;
    a traced graph keeps its ops): the traced functions and settled calls made so far are dropped, each holding
    the ops of its time."""
    from nonlin import route
    from nonlin.kernels import dispatch

    if _ENABLED[0] != on:
        _ENABLED[0] = on
        dispatch._TRACED.clear()
        route.forget_settled()


def training_op():
    """The op of the C++ autograd node for float32 training calls on the hand-written kernels
    (nonlin::native32_train, as its builtin: no Python frame of its own), or None where its library is not
    loaded. Loads the library where it is built on this machine already; else builds it in the background (one
    core, 20-45 s) and says None: calls take the Python autograd.Function meanwhile, and when the build is done
    the settled routes are forgotten, so that the next calls settle on the node."""
    if not _ENABLED[0]:
        return None
    op = _STATE.get("train")
    if op is not None or "failed" in _STATE:
        return op
    from nonlin.kernels import cpu

    if not cpu.compile_available():
        return None
    if _library_path().exists():
        return _STATE.get("train") if _load() is not None else None
    with _LOCK:
        if "building" not in _STATE:
            thread = threading.Thread(target=_build_in_background, name="nonlin-cpp-ops", daemon=True)
            _STATE["building"] = thread
            thread.start()
    return None


def _build_in_background() -> None:
    try:
        _build()
    except Exception as e:  # no compiler, no headers, a failed link
        _fail(e)
        return
    from nonlin import route

    route.forget_settled()


def graph_op(name: str):
    """The op a compiled graph calls for `native32`'s op `name`: its C++ twin where it is built (building it on
    the first call on this machine, where compilation is on), else the Python op."""
    python = getattr(torch.ops.nonlin, name).default
    if not _ENABLED[0] or _load() is None:
        return python
    return getattr(torch.ops.nonlin, name + "_cpp").default


def register(primitive: str, which: str, kernel) -> None:
    """Enter a built kernel (`native32.kernel`'s pybinding) in the twins' table, where they are loaded."""
    entry = _STATE.get("register")
    if entry is None or kernel is None:
        return
    try:
        address = ctypes.cast(ctypes.CDLL(kernel.__self__.__file__).kernel, ctypes.c_void_p).value
    except (AttributeError, OSError):  # not a pybinding module: its calls go on to the Python op
        return
    entry(f"{primitive}/{which}".encode(), ctypes.c_void_p(address))  # type: ignore[operator]


def forget() -> None:
    """Empty the twins' table (`native32.set_prefetch` drops the kernels built so far: calls then go on to the
    Python ops, which build them again and enter them here)."""
    entry = _STATE.get("register")
    if entry is not None:
        entry(b"", None)  # type: ignore[operator]


def _load():
    """The twins' table entry (ctypes), building and loading the library once; None where that failed."""
    if "register" in _STATE or "failed" in _STATE:
        return _STATE.get("register")
    from nonlin.kernels import cpu

    if not cpu.compile_available():
        return None  # (compilation turned off: the Python ops, until it is on again)
    with _LOCK:
        building = _STATE.get("building")
        if isinstance(building, threading.Thread) and building is not threading.current_thread():
            building.join()  # (a training call's build under way: this one would compile the same file again)
        if "register" in _STATE or "failed" in _STATE:
            return _STATE.get("register")
        try:
            path = _build()
            for name in OPS:
                graph_ops.define_twin(name, name + "_cpp")
            graph_ops.define("native32_train", "(int job, str primitive, Tensor x) -> Tensor", _like_x)
            torch.ops.load_library(str(path))
            entry = ctypes.CDLL(str(path)).nonlin_register_kernel
            entry.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
            train = torch.ops.nonlin.native32_train.default
            _STATE["train"] = getattr(train, "_op", train)  # (OpOverload.__call__ is a frame around `_op`)
            _STATE["register"] = entry
        except Exception as e:  # no compiler, no headers, a failed link
            _fail(e)
            return None
    from nonlin.kernels import native32

    for (primitive, which), kernel in list(native32._BUILT.items()):
        if which in ("fwd", "bwd"):
            register(primitive, which, kernel)
    return _STATE["register"]


def _like_x(job: int, primitive: str, x: torch.Tensor) -> torch.Tensor:
    return graph_ops.like(x)


def _fail(e: Exception) -> None:
    _STATE["failed"] = f"{type(e).__name__}: {e}"
    warnings.warn(
        f"nonlin: building the C++ ops failed ({type(e).__name__}); compiled graphs and float32 training calls use "
        "the Python ops and autograd.Function (the same values, slower per call)",
        RuntimeWarning,
        stacklevel=4,
    )


def _source() -> str:
    return _SOURCE.replace("PARALLEL_NUMEL", str(PARALLEL_NUMEL))


@functools.cache
def _library_path() -> Path:
    """Where the library of this (source, torch, Python) is built: inductor's cache folder."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    digest = hashlib.sha256(f"{_source()}{torch.__version__}{sys.version}".encode()).hexdigest()[:24]
    return Path(cache_dir()) / "nonlin_graph_ops" / f"graph_ops_{digest}.so"


def _build() -> Path:
    """The library, compiled once per (source, torch, Python) (`_library_path`; written under a temporary name
    and moved into place: a build interrupted or raced by another process or thread leaves no broken file)."""
    path = _library_path()
    if path.exists():
        return path
    from torch._inductor.cpp_builder import get_cpp_compiler
    from torch.utils.cpp_extension import include_paths, library_paths

    path.parent.mkdir(parents=True, exist_ok=True)
    unique = f"{os.getpid()}_{threading.get_ident()}"
    cpp = path.with_suffix(f".{unique}.cpp")
    built = path.with_suffix(f".{unique}.so")
    cpp.write_text(_source())
    libraries = library_paths()
    command = [
        get_cpp_compiler(), "-shared", "-fPIC", "-O2", "-std=c++20", "-w",
        *(f"-I{p}" for p in include_paths()), str(cpp), "-o", str(built),
        *(f"-L{p}" for p in libraries), *(f"-Wl,-rpath,{p}" for p in libraries), "-lc10", "-ltorch_cpu",
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        os.replace(built, path)
    finally:
        cpp.unlink(missing_ok=True)
        built.unlink(missing_ok=True)
    return path
