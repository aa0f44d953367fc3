"""Where no edge of chaos exists, nonlin says why; q* reported at an unstable fixed point says so (issue 13).

The silu case is checked against an independent fixed-point iteration of the variance map in mpmath.
"""

from __future__ import annotations

import math

import mpmath
import pytest
from mpmath import mp

from nonlin import theory
from nonlin.cli import main


def _silu_moments(q, sigma_w, sigma_b):
    """(V(q), chi_1(q)) for silu by mpmath.quad at 20 digits: nothing shared with nonlin's quadrature."""
    s = mpmath.sqrt(q)
    pdf = lambda z: mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)
    silu = lambda x: x / (1 + mp.exp(-x))
    dsilu = lambda x: (1 + mp.exp(-x) * (1 + x)) / (1 + mp.exp(-x)) ** 2
    m2 = mp.quad(lambda z: silu(s * z) ** 2 * pdf(z), [-mp.inf, 0, mp.inf])
    g2 = mp.quad(lambda z: dsilu(s * z) ** 2 * pdf(z), [-mp.inf, 0, mp.inf])
    return sigma_w**2 * m2 + sigma_b**2, sigma_w**2 * g2


def _iterate(sigma_w, sigma_b, q=1.0, layers=400):
    with mp.workdps(15):
        q = mpmath.mpf(q)
        for _ in range(layers):
            nxt, chi = _silu_moments(q, sigma_w, sigma_b)
            if nxt > 1e6:
                return math.inf, float(chi)
            if abs(nxt - q) <= 1e-10 * q:
                return float(nxt), float(chi)
            q = nxt
        return float(q), float(chi)


def test_silu_has_no_edge_of_chaos_at_sigma_b_0_1_and_says_why():
    with pytest.warns(theory.NoEdgeOfChaosWarning, match="diverges"):
        assert math.isnan(theory.edge_of_chaos("silu", sigma_b=0.1))  # the docs' own example
    cp = theory.critical_point("silu", 0.1)
    assert math.isnan(cp.sigma_w) and "jumps" in cp.reason and "unstable fixed point" in cp.reason
    jump = float(cp.reason.split("as sigma_w passes ")[1].split(",")[0])
    assert 1.6 < jump < 1.75
    # Independent: just below the jump q* is finite and ordered, just above it diverges, chaotic.
    q_below, chi_below = _iterate(jump - 0.01, 0.1)
    q_above, chi_above = _iterate(jump + 0.01, 0.1)
    assert math.isfinite(q_below) and chi_below < 0.8
    assert q_above == math.inf and chi_above > 1.2
    # The chi_1 = 1 point of the critical line is an unstable fixed point (so never reached).
    q_line = float(cp.reason.split("chi_1 = 1 at q* = ")[1].split(",")[0])
    sw_line = float(cp.reason.split("sigma_w = ")[-1].split(" ")[0])
    with mp.workdps(20):
        v, chi = _silu_moments(mpmath.mpf(q_line), sw_line, 0.1)
        v2, _ = _silu_moments(mpmath.mpf(q_line) * (1 + 1e-4), sw_line, 0.1)
    assert abs(float(chi) - 1) < 1e-3 and abs(float(v) - q_line) < 1e-3 * q_line
    assert float((v2 - v) / (mpmath.mpf(q_line) * 1e-4)) > 1.03


@pytest.mark.parametrize("name", ["gelu", "silu"])
@pytest.mark.parametrize("sigma_b", [0.05, 0.3])
def test_gelu_silu_rows_have_a_reason(name, sigma_b):
    cp = theory.critical_point(name, sigma_b)
    assert math.isnan(cp.sigma_w) and "chi_1 never equals 1" in cp.reason


@pytest.mark.parametrize(("name", "sigma_b"), [("tanh", 0.1), ("elu", 0.3), ("relu", 0.1)])
def test_where_an_edge_exists_it_is_found_without_a_reason(name, sigma_b):
    cp = theory.critical_point(name, sigma_b)
    assert math.isfinite(cp.sigma_w) and cp.reason == ""
    assert cp.sigma_w == theory.edge_of_chaos(name, sigma_b)


def test_unstable_fixed_point_at_the_gain_is_flagged():
    gain = theory.init_gain("shifted_relu")
    fp = theory.fixed_point("shifted_relu", gain, 0.0)
    assert fp.q_star == pytest.approx(1.0) and fp.slope_q > 2  # V(1) = 1 by the gain's construction
    assert not fp.stable
    assert any("unstable fixed point" in n and "from above q goes to inf" in n for n in fp.notes)
    assert theory.fixed_point("tanh", theory.init_gain("tanh"), 0.0).stable


def test_init_names_the_reason():
    import torch

    import nonlin.init

    w = torch.empty(4, 4)
    with pytest.raises(ValueError, match=r"no edge of chaos at sigma_b=0.3: .*jumps"):
        nonlin.init.edge_of_chaos_(w, nonlinearity="gelu", sigma_b=0.3)


def test_theory_cli_names_a_bad_param(capsys):
    assert main(["theory", "shifted_relu", "--param", "tau=abc", "--no-plots"]) == 2
    out = capsys.readouterr().out
    assert "tau" in out and "'abc'" in out and "number" in out


def test_theory_cli_prints_the_reason(capsys, tmp_path, monkeypatch):
    import nonlin.theory.cli as tcli

    monkeypatch.setattr(tcli, "SUMMARY_SIDES", (0.1,))  # one sigma_b row keeps the test short
    monkeypatch.setattr(tcli, "SUMMARY_STEPS", 4)
    assert main(["theory", "silu", "--no-plots", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "none [1]" in captured.out and "[1] no edge of chaos at σb = 0.1: " in captured.out
    assert "unstable" in captured.out  # q* = 1 at the gain is an unstable fixed point for silu
    assert "[4/4] theory silu" in captured.err  # progress, one line per step when stderr is not a terminal
