"""The fast interval path of the reference agrees with plain mpmath, for every pointwise and gated entry."""

import mpmath
import numpy as np
import pytest

import nonlin
from nonlin.accuracy import BFLOAT16, FLOAT32
from nonlin.accuracy.reference import evaluate, output_names, round_mpfs
from nonlin.ops import MPMATH

ELEMENTWISE = [n for n in nonlin.names() if nonlin.spec(n).kind.value not in ("normalizer", "setwise")]


def _points(spec):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(24) * np.exp2(rng.integers(-30, 12, 24))
    x = np.concatenate([x, [-40.0, -100.0, 1e-40, -6.0, 3.0, 710.0, -800.0]])
    return FLOAT32.round(x)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_interval_path_matches_mpmath(name):
    s = nonlin.spec(name)
    p = s.resolve_params({})
    x = _points(s)
    args = [x] if s.kind.value == "pointwise" else [x, FLOAT32.round(np.linspace(-3, 3, x.size))]
    if s.extra_inputs:
        args.append(np.full(x.size, 0.5))
    for derivative in (False, True):
        fast = evaluate(s, p, args, FLOAT32, derivative)
        body = (
            (s.eval_derivative if derivative else s.eval_forward)
            if s.stochastic
            else (s.derivative if derivative else s.forward)
        )
        with mpmath.workdps(50):
            ys = []
            for i in range(x.size):
                y = body(MPMATH, *[mpmath.mpf(float(a[i])) for a in args], **p)
                ys.append(y if isinstance(y, tuple) else (y,))
        for k, name_out in enumerate(output_names(s, derivative)):
            slow, _, _ = round_mpfs([y[k] for y in ys], FLOAT32)
            np.testing.assert_array_equal(fast[k].rounded, slow, err_msg=f"{name} {name_out}")


def test_gelu_minus_six_is_not_zero():
    # torch.nn.functional.gelu(torch.tensor(-6.)) is 0 in float32; the true value is about -5.9e-9.
    ref = evaluate(nonlin.spec("gelu"), {}, [np.array([-6.0])], FLOAT32, False)[0]
    assert ref.rounded[0] == pytest.approx(-5.9e-9, rel=0.01)


def test_underflowed_results_keep_their_sign():
    # gelu(-40) ~ -1e-350 is below float64's range: the long double pass still knows it is negative.
    ref = evaluate(nonlin.spec("gelu"), {}, [np.array([-40.0, 40.0])], BFLOAT16, False)[0]
    assert ref.rounded[0] == 0 and np.signbit(ref.rounded[0]) and not ref.exact_zero[0]
    assert ref.rounded[1] == 40.0


def test_a_double_next_to_a_midpoint_is_not_one():
    """bent_identity(x) = (sqrt(x^2 + 1) - 1)/2 + x = 1.5x - 1/2 + 1/(8x) - ... at bf16 x = 1565704557953024:
    the value's nearest double, 1.5x - 1/2, is half a float64 ulp below the bf16 midpoint 1.5x, so the value
    rounds down. The reference took that double for a midpoint (its neighbours round apart, because the one
    above is the midpoint and rounds up by ties to even) and rounded up. An exact midpoint still rounds by
    the value's side of it: x/2 (1 + x/2...) of silu at a bf16 subnormal."""
    x = np.array([1565704557953024.0])
    with mpmath.workdps(60):
        exact = nonlin.spec("bent_identity").forward(MPMATH, mpmath.mpf(x[0]))
    rounded, _, _ = round_mpfs([exact], BFLOAT16)
    assert rounded[0] == 2339760743907328.0  # down: the midpoint is 2348556836929536
    ref = evaluate(nonlin.spec("bent_identity"), {}, [x], BFLOAT16, False)[0]
    assert ref.rounded[0] == 2339760743907328.0
    # an exact midpoint: a double that is one still rounds by the sign of the remainder
    mid = 2348556836929536.0
    with mpmath.workdps(60):
        above, below = mpmath.mpf(mid) + mpmath.mpf(2) ** -30, mpmath.mpf(mid) - mpmath.mpf(2) ** -30
    assert round_mpfs([above], BFLOAT16)[0][0] == 2357352929951744.0
    assert round_mpfs([below], BFLOAT16)[0][0] == 2339760743907328.0
