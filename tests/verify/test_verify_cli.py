"""`nonlin verify` and the Verification section of `nonlin compare`."""

from __future__ import annotations

import textwrap

from nonlin.cli import main
from nonlin.verify.cli import STANDARD_INTERVALS, compare_section


def test_verify_plots_an_entry(tmp_path, capsys):
    assert main(["verify", "gelu", "--lower", "-3", "--upper", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "verify_gelu.png").stat().st_size > 1000
    assert "lower:" in out and "mean gap" in out


def test_verify_takes_entry_params_and_refuses_bad_ones(tmp_path, capsys):
    assert main(["verify", "elu", "--param", "alpha=0.5", "--out", str(tmp_path)]) == 0
    assert main(["verify", "elu", "--lower", "2", "--upper", "1", "--out", str(tmp_path)]) == 2
    assert "lower" in capsys.readouterr().out
    assert main(["verify", "swiglu", "--out", str(tmp_path)]) == 2


def test_verify_model_prints_certified_accuracy(tmp_path, monkeypatch, capsys):
    (tmp_path / "tiny_factory.py").write_text(
        textwrap.dedent(
            """
            import torch
            from torch import nn

            def make():
                torch.manual_seed(0)
                model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)).double()
                x = torch.randn(10, 3, dtype=torch.float64)
                return model, x, model(x).argmax(1)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["verify", "--model", "tiny_factory:make", "--eps", "0.001"]) == 0
    out = capsys.readouterr().out
    assert "certified accuracy" in out and "crown" in out and "1.000" in out
    assert main(["verify", "--model", "nope"]) == 2


def test_compare_has_a_verification_section():
    sec = compare_section(["relu", "gelu", "swiglu", "softmax"], {})
    assert sec.title.startswith("Verification")
    assert set(sec.rows) == {"relu", "gelu", "swiglu", "softmax"}
    col = f"[{STANDARD_INTERVALS[0][0]:g}, {STANDARD_INTERVALS[0][1]:g}]"
    gap, ibp = sec.rows["relu"][col].replace("(", "").replace(")", "").split()
    assert 0 < float(gap) < float(ibp)
    assert sec.rows["softmax"][col] == "-"
