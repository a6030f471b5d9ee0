"""`lotr-sim params` names the heuristic weights `lotr-sim tune` searches, per game (what the
README promises): each weight's name, the sides that read it, its range, greedy's and the
shipped tuned value."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app
from lotr_sim.games.registry import get_game

runner = CliRunner()
GAMES = ["minas-tirith", "lotr-risk", "the-search"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("columns", ["80", "200"])
def test_params_lists_every_tuning_weight(game, columns):
    table = get_game(game).policy_table
    r = runner.invoke(app, ["params", "-g", game], env={"COLUMNS": columns})
    assert r.exit_code == 0, r.output
    tail = r.output[r.output.index("tuning weights"):]
    for w in table.weights:
        assert f"{w.name} " in tail, (w.name, tail)
    assert "lotr-sim tune" in tail


@pytest.mark.parametrize("game", GAMES)
def test_params_weights_json(game):
    table = get_game(game).policy_table
    r = runner.invoke(app, ["params", "-g", game, "--weights", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert [x["name"] for x in rows] == [w.name for w in table.weights]
    greedy, tuned = table.rows("greedy"), table.rows("tuned")
    for x, w in zip(rows, table.weights):
        assert x["lo"] == w.lo and x["hi"] == w.hi and x["sides"]
        for s in x["sides"]:
            assert x["greedy"][s] == greedy[s][w.index] and x["tuned"][s] == tuned[s][w.index]
            assert w.lo <= x["tuned"][s] <= w.hi


def test_params_json_is_still_the_parameter_list():
    r = runner.invoke(app, ["params", "-g", "the-search", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert {x["name"] for x in rows} == {p.name for p in get_game("the-search").params()}
