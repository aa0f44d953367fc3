"""Per-machine routes (nonlin.route_profile, `nonlin tune`): every route a profile can choose meets the goals, the
table takes a profile's choices, and a profile is written atomically, kept per machine, and ignored when stale."""

from __future__ import annotations

import json
import warnings

import pytest
import torch
from test_routes import _limits_met

import nonlin
from nonlin import route, route_profile, tune
from nonlin.accuracy import check
from nonlin.accuracy.report import GOALS
from nonlin.kernels import use
from nonlin.spec import Kind

ROWS = route.per_machine_rows()
TINY = {"small": (4, 64), "large": (4, 64)}  # tune's quick form (the rows keep their class: route.pinned)


@pytest.fixture
def profile_file(tmp_path, monkeypatch):
    """A profile location of this test's own; the static table again afterwards."""
    where = tmp_path / "routes.json"
    monkeypatch.setenv("NONLIN_ROUTE_PROFILE", str(where))
    yield where
    monkeypatch.setenv("NONLIN_ROUTE_PROFILE", "off")
    route.reload_profile()


def test_per_machine_rows_are_rows_both_routes_serve():
    assert ROWS, "no per-machine rows"
    for name, dtype, pass_, size in ROWS:
        s = nonlin.spec(name)
        assert s.torch_equivalent is not None and s.kind in (Kind.POINTWISE, Kind.GATED)
        assert dtype in route.NATIVE[name].dtypes(pass_)
        with route.measured_routes({(name, dtype, pass_, size): "torch"}):
            assert route.table_route(name, dtype, "cpu", pass_, size) == "torch"
        with route.measured_routes({(name, dtype, pass_, size): "fused"}):
            assert route.table_route(name, dtype, "cpu", pass_, size) == "fused"
    # every large_fused row is measured per machine too (the static choice was one machine's measurement)
    large_fused = {(n, d) for n, nat in route.NATIVE.items() for d in nat.large_fused}
    assert large_fused <= {(n, d) for n, d, _, _ in ROWS}


# nonlin's goals (not a torch row's margins: a profile's fused choice is nonlin's own path)
GOAL_LIMITS = (GOALS["f32_forward_max"], GOALS["f32_backward_max"], GOALS["half_forward_max"], GOALS["half_forward_cr"])


def _other(row) -> str:
    """The choice the static table does not make for `row` (the static one is measured by tests/test_routes.py
    and tests/accuracy)."""
    with route.measured_routes({}):
        static = route.table_route(row[0], row[1], "cpu", row[2], row[3])
    return "fused" if static == "torch" else "torch"


@pytest.mark.parametrize("row", ROWS, ids=["-".join(r) for r in ROWS])
def test_every_route_a_profile_can_choose_meets_the_goals(row):
    """What the default path runs where a profile chose the route the static table does not take: the checker
    records that route, and it meets nonlin's goals (a sample; the forward row of a training pass too)."""
    name, dtype, pass_, size = row
    choice = _other(row)
    with route.measured_routes({row: choice}):
        rep = check(name, dtypes=(dtype,), backward=pass_ == "train", size=4096, half_size=4096, size_class=size)
    taken = rep.routes[dtype]
    # (a train row's check also measures the forward as inference, which is the forward row's route)
    outputs = ["forward"] if pass_ == "forward" else [k for k in taken if k != "forward"]
    assert all(taken[k].startswith(f"{choice}/") for k in outputs), taken
    # (torch's op with the margins of a torch row, test_routes.py's; the fused path within nonlin's goals)
    assert not _limits_met(rep, dtype, None if choice == "torch" else GOAL_LIMITS)


def test_a_training_call_takes_the_forward_its_forward_row_chose():
    """tanh trains on the fused backward; its forward is torch's op where the forward row is torch's (the static
    table) and the kernel's where a profile chose the fused path (the same bits as use("fused"))."""
    row = ("tanh", "float32", "forward", "large")
    x = torch.linspace(-5, 5, 1 << 16)
    with torch.no_grad(), use("fused"):
        kernel = nonlin.functional.tanh(x)
    assert not torch.equal(kernel, torch.tanh(x))  # (so the test can tell them apart)
    for choice, expected in (("torch", torch.tanh(x)), ("fused", kernel)):
        with route.measured_routes({row: choice}), route.pinned("large"):
            y = nonlin.functional.tanh(x.clone().requires_grad_(True))
        assert torch.equal(y.detach(), expected), choice


def test_tune_writes_a_profile_the_table_takes(profile_file):
    profile = tune.tune(["tanh", "prelu"], rounds=1, shapes=TINY, progress=False)
    data = json.loads(profile_file.read_text())
    assert data["fingerprint"] == route_profile.fingerprint()
    measured = {(r["entry"], r["dtype"], r["pass"], r["size"]): r for r in data["rows"]}
    assert set(measured) == {row for row in ROWS if row[0] in ("tanh", "prelu")}
    for row, item in measured.items():
        assert item["route"] == tune.choose(item["ms"]) == profile.choices[row]
        assert item["ms"]["torch"] > 0 and item["ms"]["fused"] > 0
        assert route.table_route(row[0], row[1], "cpu", row[2], row[3]) == item["route"]  # taken at once
    assert route.measured() == profile.choices
    # a fresh process finds it (read once at import)
    assert route_profile.load().choices == profile.choices


def test_tune_measures_the_kernels_prefetch_and_a_profile_sets_it(profile_file):
    """`nonlin tune` times the hand-written kernels with and without their prefetch and keeps its choice in the
    profile, which sets the kernels' build from then on; a tune of some entries keeps the profile's choice, and a
    profile without one leaves the static default (on)."""
    from nonlin.kernels import native32

    profile = tune.tune(["tanh"], rounds=1, shapes=TINY, progress=False)
    if profile.prefetch is None:  # (no hand-written kernels on this ISA: nothing to measure)
        assert native32.kernel(*tune.PREFETCH_KERNELS[0]) is None
        return
    data = json.loads(profile_file.read_text())
    assert data["prefetch"]["on"] is profile.prefetch == tune.choose_prefetch(profile.prefetch_ns)
    assert set(data["prefetch"]["ns"]) == {f"{p} {w}" for p, w in tune.PREFETCH_KERNELS}
    assert all(t["with"] > 0 and t["without"] > 0 for t in profile.prefetch_ns.values())
    assert native32.prefetching() is profile.prefetch
    data["prefetch"]["on"] = not profile.prefetch
    profile_file.write_text(json.dumps(data))
    route.reload_profile()
    assert native32.prefetching() is (not profile.prefetch)
    tune.tune(["prelu"], rounds=1, shapes=TINY, progress=False)
    assert route_profile.load().prefetch is (not profile.prefetch) and native32.prefetching() is (not profile.prefetch)
    del data["prefetch"]
    profile_file.write_text(json.dumps(data))
    route.reload_profile()
    assert route_profile.load().prefetch is None and native32.prefetching()


def test_the_prefetch_goes_off_only_where_the_kernels_are_faster_without_it():
    def ns(*ratios):
        return {str(i): {"with": 1.0, "without": r} for i, r in enumerate(ratios)}

    assert tune.choose_prefetch(ns(0.7, 0.9, 0.95)) is False
    assert tune.choose_prefetch(ns(0.97, 0.99)) is True  # within the margin: the static default
    assert tune.choose_prefetch(ns(0.6, 2.0)) is True  # one kernel's loss outweighs another's gain
    assert tune.choose_prefetch(ns(1.5, 2.4)) is True


def test_tune_keeps_the_rows_it_did_not_measure_and_an_interrupted_write_loses_nothing(profile_file, monkeypatch):
    first = tune.tune(["prelu"], rounds=1, shapes=TINY, progress=False)
    tune.tune(["cube"], rounds=1, shapes=TINY, progress=False)
    kept = route_profile.load()
    assert set(first.choices) < set(kept.choices) and all(r[0] in ("prelu", "cube") for r in kept.choices)
    before = profile_file.read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(route_profile.json, "dump", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tune.tune(["tanh"], rounds=1, shapes=TINY, progress=False)
    assert profile_file.read_bytes() == before
    assert [p.name for p in profile_file.parent.iterdir()] == [profile_file.name]  # no temporary file left


def test_an_interrupted_tune_keeps_the_rows_it_measured(profile_file, monkeypatch, capsys):
    tune.tune(["prelu"], rounds=1, shapes=TINY, progress=False)
    rows = tune.rows_of(["tanh", "arctan"])
    calls = []
    measure = tune.measure

    def interrupted_at_the_second_row(row, *args, **kwargs):
        calls.append(row)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return measure(row, *args, **kwargs)

    monkeypatch.setattr(tune, "measure", interrupted_at_the_second_row)
    with pytest.raises(KeyboardInterrupt):
        tune.tune(["tanh", "arctan"], rounds=1, shapes=TINY, progress=False)
    kept = route_profile.load().choices
    assert rows[0] in kept and rows[1] not in kept and any(r[0] == "prelu" for r in kept)
    assert route.measured() == kept
    assert f"interrupted after 1 of {len(rows)} rows; those are kept in" in capsys.readouterr().err


def test_a_stale_or_broken_profile_is_ignored_with_a_warning(profile_file):
    rows = [{"entry": "tanh", "dtype": "float32", "pass": "forward", "size": "large", "route": "fused",
             "ms": {"torch": 2.0, "fused": 1.0}}]  # fmt: skip
    profile_file.write_text(json.dumps({"fingerprint": "another machine", "threads": 1, "rows": rows}))
    with pytest.warns(UserWarning, match="another machine"):
        assert route_profile.load() is None
    profile_file.write_text(json.dumps({"fingerprint": route_profile.fingerprint(), "threads": 1, "rows": rows}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert route_profile.load().choices == {("tanh", "float32", "forward", "large"): "fused"}
    profile_file.write_text("{not json")
    with pytest.warns(UserWarning, match="unreadable"):
        assert route_profile.load() is None
    rows[0]["route"] = "eager"
    profile_file.write_text(json.dumps({"fingerprint": route_profile.fingerprint(), "threads": 1, "rows": rows}))
    with pytest.warns(UserWarning, match="unreadable"):
        assert route_profile.load() is None


def test_a_profile_row_that_is_not_per_machine_is_not_taken(profile_file):
    rows = [{"entry": "relu", "dtype": "float32", "pass": "train", "size": "large", "route": "fused",
             "ms": {"torch": 2.0, "fused": 1.0}}]  # fmt: skip
    profile_file.write_text(json.dumps({"fingerprint": route_profile.fingerprint(), "threads": 1, "rows": rows}))
    route.reload_profile()
    assert route.measured() == {}
    assert route.table_route("relu", "float32", "cpu", "train", "large") == "torch"


def test_bad_requests_name_what_was_expected(monkeypatch):
    with pytest.raises(ValueError, match=r"entries: relu have no per-machine rows.*those that have: .*tanh"):
        tune.rows_of(["relu"])
    not_per_machine = {("relu", "float32", "train", "large"): "fused"}
    with pytest.raises(ValueError, match="choices: expected"), route.measured_routes(not_per_machine):
        pass
    with pytest.raises(ValueError, match="choices: expected"), route.measured_routes({ROWS[0]: "eager"}):
        pass
    monkeypatch.setenv("NONLIN_ROUTE_PROFILE", "off")
    with pytest.raises(ValueError, match="NONLIN_ROUTE_PROFILE=off"):
        tune.tune(["tanh"], rounds=1, shapes=TINY, progress=False)


def test_a_profile_that_cannot_be_written_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "a_file").write_text("")
    monkeypatch.setenv("NONLIN_ROUTE_PROFILE", str(tmp_path / "a_file" / "routes.json"))
    with pytest.raises(ValueError, match=r"cannot write the route profile at .*a_file.*NONLIN_ROUTE_PROFILE"):
        route_profile.save({}, {}, 1)


def test_the_command_shows_the_profile(profile_file, capsys):
    from nonlin.cli import main

    assert main(["tune", "--show"]) == 0
    assert "no route profile for this machine" in capsys.readouterr().out
    assert main(["tune", "tanh", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "route profile" in out and "tanh" in out and "prelu" not in out and "software prefetch" in out
    assert main(["tune", "--show"]) == 0
    assert "tanh" in capsys.readouterr().out
    assert main(["tune", "relu"]) == 2


def test_a_small_row_moved_to_the_fused_path_keeps_torchs_op_while_its_kernels_warm_up(monkeypatch):
    """A small call of a row the profile moved off torch's op takes torch's op (not the eager path) until its
    kernels are compiled, and is not settled on it: once warm it settles on the kernels."""
    from nonlin.kernels import cpu, dispatch, native32

    monkeypatch.setattr(cpu, "_DIRECT", {})
    monkeypatch.setattr(native32, "_BUILT", {})
    monkeypatch.setattr(route, "_CALLS", {})
    x = torch.randn(64, 512)
    key = ("tanh", torch.float32, x.device, False, False)  # route._settled_key of a no-grad call
    with torch.no_grad(), route.measured_routes({("tanh", "float32", "forward", "small"): "fused"}):
        with route.recording() as taken:
            nonlin.functional.tanh(x)
        assert [t[5] for t in taken] == ["torch"]
        nonlin.functional.tanh(x)
        assert key not in route._SETTLED  # (torch's op only stood in)
        for _ in range(route.WARM_CALLS + 1):
            y = nonlin.functional.tanh(x)
        assert isinstance(route._SETTLED.get(key), dispatch.Job)
        with use("fused"):
            assert torch.equal(y, nonlin.functional.tanh(x))
    with torch.no_grad():  # the static table again: torch's op, settled at once
        nonlin.functional.tanh(x)
    assert route._SETTLED.get(key) is route._TORCH_OP
