"""The vector float32 <-> float64 conversions added to nonlin's own inductor kernels (nonlin.kernels.vec_convert):
the same bits as inductor's generic conversions and ATen's, every class of value; where they are added."""

from __future__ import annotations

import pytest
import torch

import nonlin
from nonlin.kernels import cpu, native32, precision, vec_convert
from nonlin.kernels.codegen import plan

needs_compile = pytest.mark.skipif(not cpu.compile_available(), reason="no C++ compiler")


def _float64_patterns(n: int = 1 << 16) -> torch.Tensor:
    """float64 values of every kind a float32 kernel narrows: random bit patterns (NaN payloads, both signs),
    float32 ties and their neighbours, float32's overflow and subnormal boundaries, float64 subnormals."""
    g = torch.Generator().manual_seed(0)
    bits = torch.randint(-(2**63), 2**63 - 1, (n,), generator=g, dtype=torch.int64)
    f32 = torch.randn(n // 4, generator=g, dtype=torch.float32).double()
    tie = f32 + torch.ldexp(torch.ones_like(f32), torch.frexp(f32)[1] - 25)  # halfway to the next float32
    ties = torch.cat([tie, torch.nextafter(tie, tie + 1), torch.nextafter(tie, tie - 1)])
    edges = torch.tensor(
        [0.0, -0.0, float("inf"), -float("inf"), float("nan"), 3.4028235677973366e38, 3.4028235677973368e38,
         3.5e38, 2.0**-126, 2.0**-149, 2.0**-150, 2.0**-150 * 1.0000001, 1.5 * 2.0**-149, 5e-324, -5e-324, 1e-310],
        dtype=torch.float64,
    )  # fmt: skip
    return torch.cat([bits.view(torch.float64), ties, edges, -edges])[:-5]  # a partial vector at the end


def _float32_patterns(n: int = 1 << 16) -> torch.Tensor:
    g = torch.Generator().manual_seed(1)
    bits = torch.randint(-(2**31), 2**31 - 1, (n,), generator=g, dtype=torch.int32)
    edges = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 2.0**-149, 2.0**-126, 3.4e38])
    return torch.cat([bits.view(torch.float32), edges, -edges])[:-5]  # a partial vector at the end


def _compiled(fn, conversions: bool):
    torch._dynamo.reset()
    compiled = torch.compile(fn, fullgraph=True, dynamic=False)
    return compiled, (vec_convert.vector_conversions() if conversions else vec_convert.without())


def _run(fn, x: torch.Tensor, conversions: bool) -> torch.Tensor:
    compiled, ctx = _compiled(fn, conversions)
    with ctx:
        return compiled(x)


def test_the_specialisations_are_added_only_where_a_kernel_converts() -> None:
    head = "#include <torch/csrc/inductor/cpp_prefix.h>\n"
    converting = head + 'extern "C" void kernel() { auto t = at::vec::convert<double,2,float,1>(v); }'
    assert "VecConvert<double, 2, float, 1>" in vec_convert.with_conversions(converting)
    assert vec_convert.with_conversions(converting).startswith(head)
    plain = head + 'extern "C" void kernel() { auto t = v + v; }'
    assert vec_convert.with_conversions(plain) is plain
    assert vec_convert.with_conversions("int main() {}") == "int main() {}"


@needs_compile
@pytest.mark.parametrize("direction", ["narrow", "widen"])
def test_conversions_give_the_generic_forms_bits(direction: str) -> None:
    """Narrowing (float64 -> float32 rounds to nearest even, NaN stays NaN with its payload's top bits) and
    widening (exact) give the bits of the generic conversion and of ATen's eager `.to`, every class of value
    (a partial vector at the end: the masked conversion)."""
    if direction == "narrow":
        x = _float64_patterns()

        def fn(t):
            return t.to(torch.float32)

        eager = x.to(torch.float32)
    else:
        x = _float32_patterns()

        def fn(t):
            return t.to(torch.float64) * 2.0  # (a bare .to may be lowered as a copy)

        eager = x.to(torch.float64) * 2.0
    before = vec_convert.patched_sources
    with_vec = _run(fn, x, True)
    generic = _run(fn, x, False)
    if native32.available():  # inductor builds for AVX2 or AVX-512: the conversion was specialised
        assert vec_convert.patched_sources > before
    bits = torch.int32 if eager.dtype == torch.float32 else torch.int64
    assert torch.equal(with_vec.view(bits), generic.view(bits))
    assert torch.equal(with_vec.view(bits), eager.view(bits))


@needs_compile
@pytest.mark.parametrize("inputs", [torch.float32, torch.bfloat16, torch.float16], ids=str)
def test_mask_casts_give_the_generic_forms_bits(inputs) -> None:
    """A float64 kernel that combines comparisons (|, &, ~) casts its double masks to int32 masks and back
    (inductor's code for jumprelu_sae's keep(x > theta, x) in float64; a half-type kernel's float64 steps cast
    its float masks, two vectors, to double masks, four); the specialised casts select what the generic ones
    (element by element through memory) select, bit for bit, and what eager torch selects (NaN where it gives
    NaN), signed zeros included."""
    x = torch.cat([_float32_patterns(), torch.tensor([0.001, 0.0010000001, 2.0, -2.0])]).to(inputs)

    def fn(t):
        d = t.to(torch.float64)
        keep = ((d > 0.001) | torch.isnan(d)) & ~(d == 2.0)
        return torch.where(keep & (t.float() < 1e30), d, torch.zeros_like(d)).to(inputs)

    before = vec_convert.patched_sources
    with_vec = _run(fn, x, True)
    generic = _run(fn, x, False)
    if native32.available():
        assert vec_convert.patched_sources > before
    bits = torch.int32 if inputs == torch.float32 else torch.int16
    assert torch.equal(with_vec.view(bits), generic.view(bits))
    # (eager torch's NaN payloads are its own: inductor's scalar build, the "default" ISA, narrows them otherwise)
    eager = fn(x)
    number = ~eager.isnan()
    assert torch.equal(with_vec[number].view(bits), eager[number].view(bits))
    assert with_vec[~number].isnan().all()


@needs_compile
@pytest.mark.parametrize(
    ("inputs", "compute"),
    [
        (torch.float32, torch.float32),
        (torch.float32, torch.float64),  # a float32 kernel's float64 steps: two double vectors per mask
        (torch.float64, torch.float64),
        (torch.bfloat16, torch.float32),  # the half types' kernels: two float vectors per mask
        (torch.float16, torch.float32),
        (torch.bfloat16, torch.float64),  # and their float64 steps (the eager route's formula): four doubles
    ],
    ids=lambda d: str(d).removeprefix("torch."),
)
def test_masks_written_to_and_read_from_bools_give_the_generic_forms_bytes(inputs, compute) -> None:
    """Comparisons written to a bool array (a compiled model saves them for its backward) and bool arrays read
    back as masks, in the kernels of each input dtype, computing in float32 and in float64: the same bytes and
    selections as the generic forms (element by element through memory) and eager torch, NaN and signed zeros
    included; a partial vector at the end (the masked forms)."""
    x = torch.cat([_float32_patterns(), torch.tensor([0.0, -0.0, 1.0, -1.0])]).to(inputs)
    keep = torch.randint(0, 2, x.shape, generator=torch.Generator().manual_seed(3), dtype=torch.bool)

    def writes(t):
        d = t.to(compute)
        return d > 0.5, (d.abs() <= 2.0) | torch.isnan(d)

    def reads(t, k):
        d = t.to(compute)
        return torch.where(k, d * 3.0, d - 1.0).to(inputs)

    before = vec_convert.patched_sources
    for fn, args in ((writes, (x,)), (reads, (x, keep))):
        results = []
        for conversions in (True, False):
            compiled, ctx = _compiled(fn, conversions)
            with ctx:
                results.append(compiled(*args))
        eager = fn(*args)
        for with_vec, generic, want in zip(
            *(r if isinstance(r, tuple) else (r,) for r in (*results, eager)), strict=True
        ):
            bits = {torch.bool: torch.uint8, torch.float64: torch.int64, torch.float32: torch.int32}.get(
                want.dtype, torch.int16
            )
            # (NaN payloads: a half type's NaN from float64 is ATen's vector float -> half conversion's, as eager
            # torch's, where the generic form's scalar one gives the canonical NaN)
            nan = want.isnan() if want.is_floating_point() else torch.zeros_like(want)
            assert torch.equal(with_vec.isnan() if want.is_floating_point() else nan, nan)
            assert torch.equal(with_vec[~nan].view(bits), generic[~nan].view(bits))
            assert torch.equal(with_vec[~nan].view(bits), want[~nan].view(bits))
    if native32.available():  # inductor builds for AVX2 or AVX-512: the masks were specialised
        assert vec_convert.patched_sources > before


@needs_compile
def test_nonlins_float64_kernels_of_float32_inputs_get_them() -> None:
    """A float32 kernel that computes in float64 (hardswish's forward: precision.py keeps it in float64) is built
    with the vector conversions. Its bits are the generated function's run op by op (NaN payloads included) and
    the kernel's built without them; that one returns every NaN as 0xffffffff (found by this test)."""
    spec = nonlin.spec("hardswish")
    p = plan(spec, "plain", tuple(sorted(spec.defaults().items())), (), ())
    fn = cpu.functions(p, "float64", False)["fwd"]
    x = torch.cat([_float32_patterns(), torch.linspace(-4, 4, 10007)])
    before = vec_convert.patched_sources
    built = cpu.Direct(fn, cpu._examples((x,)), "hardswish.fwd").call(x)[0]
    if native32.available():
        assert vec_convert.patched_sources > before
    compiled, generic_scope = _compiled(fn, False)
    with generic_scope:
        generic = compiled(x, None)
    assert torch.equal(built.view(torch.int32), fn(x, None).view(torch.int32))
    number = ~x.isnan()
    assert torch.equal(built[number].view(torch.int32), generic[number].view(torch.int32))
    assert generic[~number].isnan().all()


@needs_compile
def test_inside_a_users_torch_compile_the_conversions_are_installed() -> None:
    """A user's compiled model with a float32 call whose kernels compute in float64 (logish) puts nonlin's
    generated functions into the user's graph; install() gives the kernels inductor then builds the vector
    conversions, and the model computes the bits of nonlin's own fused call."""
    # the premise: logish's float32 forward is float64 math in a generated kernel (an entry that gains a
    # float32 form or a hand-written kernel runs no conversion, as serf did: pick another that still computes in float64)
    assert precision.fp32_compute_for("logish", "auto", torch.device("cpu"), "forward") == "float64"
    assert native32.primitive_of(plan(nonlin.spec("logish"), "plain", (), (), ())) is None
    x = torch.cat([_float32_patterns(), torch.linspace(-4, 4, 10007)])[: 1 << 16].reshape(64, -1).contiguous()
    torch._dynamo.reset()
    before = vec_convert.patched_sources
    model = torch.compile(lambda t: torch.nn.functional.relu(nonlin.functional.logish(t)) * 2.0, fullgraph=True)
    got = model(x)
    with nonlin.use("fused"):
        want = torch.nn.functional.relu(nonlin.functional.logish(x)) * 2.0
    if native32.available():
        assert vec_convert.installed()
        assert vec_convert.patched_sources > before
    number = ~want.isnan()
    assert torch.equal(got[number].view(torch.int32), want[number].view(torch.int32))
    assert got[~number].isnan().all()


@needs_compile
def test_where_the_specialisations_do_not_compile_nonlins_kernels_are_built_without_them(monkeypatch) -> None:
    """A torch whose headers reject the specialisations: the probe says no (install() leaves inductor as it is),
    and a kernel of nonlin's is built again with inductor's own conversions, with the same bits."""
    monkeypatch.setattr(vec_convert, "_SPECIALISATIONS", "\n#error not these specialisations\n")
    assert not vec_convert._probe()
    spec = nonlin.spec("hardswish")
    p = plan(spec, "plain", tuple(sorted(spec.defaults().items())), (), ())
    fn = cpu.functions(p, "float64", False)["fwd"]
    x = torch.linspace(-4, 4, 1001)
    with vec_convert.without():  # (a process where install() ran would add the broken text to the retry too)
        built = cpu.Direct(fn, cpu._examples((x,)), "hardswish.fwd").call(x)[0]
    assert torch.equal(built.view(torch.int32), fn(x, None).view(torch.int32))
