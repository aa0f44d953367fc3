"""`nonlin probe` on the bundled example and on importable factories."""

from __future__ import annotations

import json

from nonlin.cli import main


def test_probe_bundled_example_writes_tables_and_plots(tmp_path):
    assert main(["probe", "--out", str(tmp_path), "--repeat", "1", "--swap", "gelu=relu"]) == 0
    for name in ("probe.txt", "probe.json", "probe.png", "attention.json", "attention.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    data = json.loads((tmp_path / "probe.json").read_text())
    assert [r["catalog"] for r in data["layers"]] == ["relu", "relu"]
    assert "swap" in (tmp_path / "probe.txt").read_text()


def test_probe_factory_and_file_factory(tmp_path):
    args = ["probe", "--model", "nonlin.probe.examples:relu_mlp", "--out", str(tmp_path), "--rank", "--no-plot"]
    assert main(args) == 0
    assert (tmp_path / "rank.json").exists() and not (tmp_path / "rank.png").exists()
    assert not (tmp_path / "attention.json").exists()  # an MLP has no attention weights
    factory = tmp_path / "factory.py"
    factory.write_text(
        "import torch\ndef build():\n    return torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.SiLU())\n"
    )
    out = tmp_path / "f"
    args = [
        "probe",
        "--model",
        f"{factory}:build",
        "--out",
        str(out),
        "--input-shape",
        "4,3",
        "--repeat",
        "2",
        "--no-plot",
    ]
    assert main(args) == 0
    assert json.loads((out / "probe.json").read_text())["layers"][0]["calls"] == 2


def test_probe_bad_factory_is_a_clear_error(tmp_path, capsys):
    assert main(["probe", "--model", "no_such_module_xyz:build", "--out", str(tmp_path)]) == 2
    assert "cannot import 'no_such_module_xyz'" in capsys.readouterr().out
    assert main(["probe", "--model", "nonlin.probe.examples", "--out", str(tmp_path)]) == 2
    factory = tmp_path / "only_model.py"
    factory.write_text("import torch\ndef build():\n    return torch.nn.Sequential(torch.nn.ReLU())\n")
    assert main(["probe", "--model", f"{factory}:build", "--out", str(tmp_path)]) == 2
    assert "--input-shape" in capsys.readouterr().out
