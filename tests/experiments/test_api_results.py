"""The public API's result objects (frozen dataclasses with ``to_dict()``), players named by
the game's own sides, and ``sweep``'s grouped options (``StopRule``, ``RunOptions``)."""
import dataclasses
import json

import pytest

from lotr_sim import api
from lotr_sim._json import json_default
from lotr_sim.errors import ConfigError

COMPARE_KEYS = ["game", "a", "b", "decision", "verdict", "favours", "changed", "games", "paired", "outcome",
                "rate_a", "ci95_a", "rate_b", "ci95_b", "delta", "delta_ci95", "a_only", "b_only", "test",
                "seed", "elapsed_s", "games_played"]
BALANCE_KEYS = ["game", "param", "kind", "target", "parity", "outcome", "second_outcome", "games_per_value",
                "bracketed", "evaluated", "seed", "policies", "bracket", "bracket_delta", "estimate", "interval",
                "message"]


def test_result_classes_are_exported_and_frozen():
    for name in ("RunResult", "SweepResult", "CompareResult", "BalanceResult", "TuneResult", "LearnResult",
                 "TilesResult", "FellowshipResult"):
        cls = getattr(api, name)
        assert name in api.__all__ and name in api.__doc__
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, name
        assert "Attributes" in cls.__doc__, name
        assert callable(cls.to_dict)
    with pytest.raises(AttributeError):
        api.NoSuchResult  # noqa: B018


def test_compare_result_fields_dict_and_json(fake):
    r = api.compare(fake, {"strength": 6}, {"strength": 5}, seed=1, max_games=20_000)
    assert isinstance(r, api.CompareResult)
    d = r.to_dict()
    assert list(d) == COMPARE_KEYS
    assert r.decision == d["decision"] == r["decision"] == "raises"
    assert r.delta == d["delta"] and r["delta_ci95"] == r.delta_ci95
    assert "verdict" in r and "nothing" not in r and r.get("nothing", 7) == 7
    with pytest.raises(KeyError):
        r["nothing"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.decision = "lowers"
    json.dumps(d, default=json_default)


def test_balance_result_fields_and_dict(fake):
    r = api.balance(fake, "strength", "0:10", sets={"edge": 0.02}, games=2000, seed=2)
    assert isinstance(r, api.BalanceResult)
    assert list(r.to_dict()) == BALANCE_KEYS
    assert r.message == r["message"] and r.bracket == r.to_dict()["bracket"]


def test_sides_by_the_games_own_names():
    """The Search's seats are frodo/sam: as keywords they act as policies={...} does (TS-2.1)."""
    kw = dict(games=40, seed=3, threads=1)
    a = api.run_games("the-search", frodo="racer", sam="random", **kw)
    b = api.run_games("the-search", policies={"frodo": "racer", "sam": "random"}, **kw)
    assert a.summary["policies"] == b.summary["policies"] == {"frodo": "racer", "sam": "random"}
    assert a.summary["wins"] == b.summary["wins"]
    assert api.side_policies("the-search", {"frodo": "greedy"}, sam="racer", frodo=None) == \
        {"frodo": "greedy", "sam": "racer"}


@pytest.mark.parametrize("call", [
    lambda: api.run_games("the-search", games=10, good="greedy"),
    lambda: api.side_policies("minas-tirith", frodo="greedy"),
    lambda: api.tiles(games=10, gandalf="greedy"),
])
def test_unknown_side_is_one_config_error(call):
    with pytest.raises(ConfigError) as e:
        call()
    msg = str(e.value)
    assert "\n" not in msg and "has no side" in msg


def test_sweep_unknown_keyword_is_one_error(fake, tmp_path):
    with pytest.raises(ConfigError, match="unknown argument 'thread'"):
        api.sweep(fake, params=["strength=4,6"], games=100, out=tmp_path / "s", thread=2)


def test_sweep_options_objects_and_keywords_agree(fake, tmp_path):
    """run=RunOptions(...)/stop=StopRule(...) and the same fields as keywords give the same
    sweep (the options change nothing of the results, chunk included for a fixed count)."""
    kw = dict(params=["strength=4,6"], games=300, seed=4)
    a = api.sweep(fake, out=tmp_path / "a", run=api.RunOptions(threads=1, report=False),
                  stop=api.StopRule(chunk=100), **kw)
    b = api.sweep(fake, out=tmp_path / "b", threads=2, report=False, chunk=100, **kw)
    assert a.results["rate_good"].tolist() == b.results["rate_good"].tolist()
    assert not (tmp_path / "a" / "report.md").exists()
    d = a.to_dict()
    assert set(d) == {"out", "verdict", "manifest", "results"} and len(d["results"]) == len(a.results)
    json.dumps(d, default=json_default)
