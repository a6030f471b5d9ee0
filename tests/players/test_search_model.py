"""What the search player's playouts are played by: its ``base`` heuristic on
its own seat and, with ``model="opponents"``, every other seat by the player that holds it;
the decisions the engine makes inside its seat's actions use its base too; a trace header
names the base's weights. One decision per case: fast."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games import registry
from lotr_sim.games.players import PLAYERS, register_player
from lotr_sim.players.search import SearchPlayer

_NAME = "search-test-tuned-opp"


@pytest.fixture(scope="module", autouse=True)
def _player():
    settings = dict(budget=8, width=2, start=4, base="tuned", model="opponents")
    register_player(_NAME, lambda g, seed: SearchPlayer(g, seed, **settings), "test", settings)
    yield
    PLAYERS.pop(_NAME, None)


def _first_decision(game_name: str, policies: dict, sets: dict | None = None):
    g = registry.get_game(game_name)
    c = g.compile(g.load(None, [f"{k}={v}" for k, v in (sets or {}).items()]))
    st = g.bind(c).new_state(policies, 1, 0)
    seats = g.seat_policies(c, policies)
    stop = [i for i, p in enumerate(seats.values()) if p == _NAME]
    seat = st.run_builtin(stop)
    assert seat in stop
    return g, c, st, seat


@pytest.mark.parametrize("game_name,sets", [("minas-tirith", {}), ("the-search", {}),
                                            ("lotr-risk", {"players": 2}), ("lotr-risk", {"players": 4})])
@pytest.mark.parametrize("model", ["opponents", "self"])
def test_playouts_use_the_base_on_its_seat_and_the_model_elsewhere(game_name, sets, model):
    g = registry.get_game(game_name)
    pols = {g.sides[0]: _NAME, g.sides[1]: "greedy"}
    g, c, st, seat = _first_decision(game_name, pols, sets)
    p = SearchPlayer(g, 1, budget=8, width=2, start=4, base="tuned", model=model)
    p.choose(st)
    n_seats = len(g.seat_names(c))
    tuned = g.heuristic_rows(c, ["tuned"] * n_seats)
    greedy = g.heuristic_rows(c, ["greedy"] * n_seats)
    assert not np.array_equal(tuned, greedy)      # else the test could not tell them apart
    want = tuned.copy()
    if model == "opponents":
        for i, holder in enumerate(g.seat_policies(c, pols).values()):
            if i != seat:
                want[i] = (tuned if holder == _NAME else greedy)[i]
    np.testing.assert_array_equal(st.heur, want)


def test_a_search_seat_plays_its_base_inside_its_actions_and_the_header_names_it():
    """Minas Tirith: the engine row of a search seat built on tuned is tuned's (but for
    PL_CARDS: its card step stays its own decision, MT-5)."""
    from lotr_sim.games.minas_tirith import layout as L
    g = registry.get_game("minas-tirith")
    c = g.compile(g.load(None, []))
    st = g.bind(c).new_state({"good": _NAME, "evil": "greedy"}, 1, 0)
    tuned = g.heuristic_rows(c, ["tuned", "tuned"])
    keep = np.arange(L.NPOL) != L.PL_CARDS
    np.testing.assert_array_equal(st.pol[0][keep], tuned[0][keep])
    assert st.pol[0][L.PL_CARDS] == 1.0
    header = g.trace_header(c, {"good": _NAME, "evil": "greedy"}, 1, 0)
    assert header["weights"][_NAME] == g.policy_table.describe("tuned")


def test_a_bad_model_is_refused():
    with pytest.raises(ValueError, match="model"):
        SearchPlayer(registry.get_game("the-search"), 1, model="everyone")
