"""The ULP metric, format rounding and the reference's rounding against hand-made cases."""

import math

import mpmath
import numpy as np
import pytest
import torch

from nonlin.accuracy import BFLOAT16, FLOAT16, FLOAT32, get_format, measure, ulp_error
from nonlin.accuracy.reference import RefOutput, round_mpfs


def _ref(values, fmt):
    exact = np.asarray(values, dtype=np.float64)
    return RefOutput(fmt.round(exact), exact, exact == 0)


@pytest.mark.parametrize("fmt", [FLOAT32, BFLOAT16, FLOAT16], ids=lambda f: f.name)
def test_adjacent_values_are_one_ulp_apart(fmt):
    x = fmt.to_tensor(np.array([1.0, 3.5, 1e-3, -7.25, fmt.min_normal, fmt.min_subnormal, 100.0]))
    nxt = torch.nextafter(x.float(), torch.tensor(math.inf)).to(fmt.torch_dtype) if fmt is FLOAT32 else None
    a = x.double().numpy()
    # 16-bit: step the bit pattern
    b = fmt.from_bits(fmt.to_bits(a) + np.where(a >= 0, 1, -1)) if nxt is None else nxt.double().numpy()
    np.testing.assert_allclose(ulp_error(b, a, fmt), 1.0)


def test_ulp_sizes_by_hand():
    assert FLOAT32.ulp(np.array([1.0]))[0] == 2.0**-23
    assert BFLOAT16.ulp(np.array([1.0]))[0] == 2.0**-7
    assert FLOAT16.ulp(np.array([1.0]))[0] == 2.0**-10
    assert FLOAT16.ulp(np.array([0.0]))[0] == 2.0**-24  # subnormal gap at zero
    assert FLOAT32.ulp(np.array([1e-45]))[0] == 2.0**-149
    assert BFLOAT16.ulp(np.array([np.inf]))[0] == 2.0 ** (127 - 7)  # the top binade's gap
    # half an ULP at a value that is not representable
    assert ulp_error(np.array([1.0]), np.array([1.0 + 2.0**-24]), FLOAT32)[0] == 0.5


def test_zeros_and_infinities():
    e = ulp_error(np.array([0.0, -0.0, np.inf, np.inf, np.nan]), np.array([-0.0, 0.0, np.inf, 1.0, np.nan]), FLOAT32)
    assert list(e[:3]) == [0.0, 0.0, 0.0]
    assert e[3] == np.inf and e[4] == 0.0


@pytest.mark.parametrize("fmt,np_type", [(FLOAT32, np.float32), (FLOAT16, np.float16)], ids=["float32", "float16"])
def test_round_matches_numpy_casts(fmt, np_type):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(200_000) * np.exp2(rng.integers(-160, 140, 200_000))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(fmt.round(x), x.astype(np_type).astype(np.float64))


def test_bfloat16_rounding_is_single_rounding():
    # torch's float64 -> bfloat16 goes through float32 and rounds twice; ours does not.
    x = np.array([1 + 2.0**-8 + 2.0**-30, 1 + 2.0**-8, 1 + 3 * 2.0**-8, -(2.0**-140), 3.4e38, 1 + 2.0**-9])
    np.testing.assert_array_equal(BFLOAT16.round(x), [1 + 2.0**-7, 1.0, 1 + 2 * 2.0**-7, -0.0, np.inf, 1.0])
    assert np.signbit(BFLOAT16.round(x)[3])


def test_every_16bit_pattern_roundtrips():
    for fmt in (BFLOAT16, FLOAT16):
        v = fmt.all_values()
        finite = v[np.isfinite(v)]
        np.testing.assert_array_equal(fmt.round(finite), finite)
        assert np.isinf(v).sum() == 2 and np.isnan(v).sum() == 1
        assert (finite == 0).sum() == 2  # +0 and -0
        t = fmt.to_tensor(finite)
        assert t.dtype == fmt.torch_dtype
        np.testing.assert_array_equal(t.double().numpy(), finite)


def test_round_mpfs_ties_and_near_ties():
    m = 1 + 2.0**-24  # float32 midpoint between 1 and 1 + 2^-23
    with mpmath.workdps(50):
        ys = [mpmath.mpf(m) + mpmath.mpf(2) ** -100, mpmath.mpf(m) - mpmath.mpf(2) ** -100, mpmath.mpf(m)]
        ys.append(-(mpmath.mpf(10) ** -400))  # below float64: sign kept
    r, _, zero = round_mpfs(ys, FLOAT32)
    assert list(r[:3]) == [1 + 2.0**-23, 1.0, 1.0]
    assert r[3] == 0 and np.signbit(r[3]) and not zero[3]


def test_measure_counts_each_nonfinite_kind():
    exact = np.array([1.0, 1.0, 3e38 * 10, np.nan, -1e-50, 2.0])
    got = np.array([np.nan, np.inf, 1.0, 5.0, 0.0, 2.0])
    stats, _ = measure(got, _ref(exact, FLOAT32), FLOAT32)
    assert stats.nonfinite == {
        "nan_where_finite": 1,
        "overflow": 1,
        "wrong_inf": 1,
        "missing_nan": 1,
        "wrong_signed_zero": 1,
    }
    assert stats.correctly_rounded == pytest.approx(1 / 6)


def test_exact_zero_accepts_either_sign():
    stats, _ = measure(np.array([-0.0, 0.0]), _ref(np.array([0.0, -0.0]), BFLOAT16), BFLOAT16)
    assert stats.nonfinite_total == 0 and stats.correctly_rounded == 1.0


def test_get_format_errors():
    assert get_format("bf16") is BFLOAT16 and get_format(torch.float16) is FLOAT16
    with pytest.raises(ValueError, match="unknown dtype 'int8'"):
        get_format("int8")
    with pytest.raises(ValueError, match="not measured"):
        get_format(torch.float64)
