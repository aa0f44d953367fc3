"""Every pointwise entry: variance map and chi_1 against a 1-D mpmath.quad split at the breakpoints."""

import math

import mpmath
import pytest

import nonlin
from nonlin import theory
from nonlin.ops import MPMATH

SIGMA_W, SIGMA_B = 1.3, 0.2


def _mp_moment(name: str, q: float, derivative: bool, **params) -> mpmath.mpf:
    s = nonlin.spec(name)
    p = s.resolve_params(params)
    if s.stochastic:
        body = s.eval_derivative if derivative else s.eval_forward
    else:
        body = s.derivative if derivative else s.forward
    sd = mpmath.sqrt(q)

    def integrand(z):
        return body(MPMATH, sd * z, **p) ** 2 * mpmath.npdf(z)

    bps = sorted({0.0, *(float(b) for b in s.breakpoints(**p))})
    zs = {mpmath.mpf(b) / sd for b in bps}
    if "periodic" in s.properties:  # unit panels in z: mpmath's tanh-sinh misses fast oscillation (siren's sin(30x))
        zs |= {mpmath.mpf(k) for k in range(-12, 13)}
    points = [-mpmath.inf, *sorted(zs), mpmath.inf]
    return mpmath.quad(integrand, points)


@pytest.mark.parametrize("name", nonlin.names("pointwise"))
def test_variance_map_and_chi1_match_mpmath(name):
    q = 1.7
    with mpmath.workdps(20):
        m2 = _mp_moment(name, q, derivative=False)
        g2 = _mp_moment(name, q, derivative=True)
    want_v = SIGMA_W**2 * float(m2) + SIGMA_B**2
    want_chi = SIGMA_W**2 * float(g2)
    got_v = theory.variance_map(name, q, sigma_w=SIGMA_W, sigma_b=SIGMA_B)
    got_chi = theory.chi_1(name, q, sigma_w=SIGMA_W)
    assert got_v == pytest.approx(want_v, rel=1e-10, abs=1e-300)
    assert got_chi == pytest.approx(want_chi, rel=1e-10, abs=1e-300)


@pytest.mark.slow
@pytest.mark.parametrize("name", nonlin.names("pointwise"))
@pytest.mark.parametrize("q", [0.05, 0.6, 9.0])
def test_variance_map_and_chi1_match_mpmath_more_q(name, q):
    with mpmath.workdps(25):
        m2 = float(_mp_moment(name, q, derivative=False))
        g2 = float(_mp_moment(name, q, derivative=True))
    assert theory.variance_map(name, q) == pytest.approx(m2, rel=1e-10, abs=1e-300)
    assert theory.chi_1(name, q) == pytest.approx(g2, rel=1e-10, abs=1e-300)


def test_rule_entries_report_their_rule():
    for name in ("step", "sign", "binary_stochastic", "helu"):
        m = theory.model(name)
        assert m.rule and any("rule" in n for n in m.notes)
    assert any("eval-mode" in n for n in theory.model("rrelu").notes)
    # step's straight-through rule is 1 everywhere: chi_1 = sigma_w^2 exactly (not 0, the a.e. derivative).
    assert theory.chi_1("step", 1.0, sigma_w=1.5) == pytest.approx(2.25, rel=1e-14)


def test_gated_second_moments():
    # bilinear: E[g^2 v^2] = q^2; reglu: E[relu(g)^2] E[v^2] = q^2 / 2.
    assert theory.variance_map("bilinear", 2.0, sigma_w=1.0) == pytest.approx(4.0, rel=1e-13)
    assert theory.variance_map("reglu", 2.0) == pytest.approx(2.0, rel=1e-13)
    with mpmath.workdps(25):
        silu2 = mpmath.quad(lambda z: (z / (1 + mpmath.exp(-z))) ** 2 * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
    assert theory.init_gain("swiglu") == pytest.approx(1 / math.sqrt(float(silu2)), rel=1e-12)
    # bilinear correlation map: E[g1 g2] E[v1 v2] / q^2 = c^2.
    assert theory.correlation_map("bilinear", 0.3, q_star=1.0) == pytest.approx(0.09, rel=1e-12)
