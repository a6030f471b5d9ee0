"""The search player (lotr_sim.players.search, issue 8): how it spends its playouts and how
it picks, against a stub game whose candidates have known win chances."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.players.search import SearchPlayer


class _State:
    def __init__(self, index: int = 0):
        self.index = index
        self.policies = {}


class StubGame:
    """One decision with ``len(p)`` actions; action c wins for side 0 when the playout's
    uniform draw is below p[c] (the same draw for every candidate: common random numbers).
    Row 0 is the heuristic's choice."""

    name = "stub"
    sides = ("good", "evil")
    outcomes = ("good", "evil", "draw")
    def __init__(self, p):
        self.p = np.asarray(p, dtype=float)
        self.calls: list[tuple[int, int]] = []       # (candidates, m) of each playouts call

    def legal_actions(self, compiled, state):
        return np.zeros((len(self.p), 1), dtype=np.int64)

    def heuristic_choice(self, compiled, state):
        return 0

    def pass_action(self, compiled, state):
        return -1

    def action_scores(self, compiled, state):
        return -np.arange(len(self.p), dtype=float)     # the heuristic's order: 0, 1, 2, ...

    def to_move(self, state):
        return 0

    def seat_side(self, compiled, seat):
        return seat

    def decision_kind(self, compiled, state):
        return "action"

    def seat_policies(self, compiled, policies):
        return {"good": "search", "evil": "greedy"}

    def heuristic_rows(self, compiled, seat_players):
        return None

    def use_heuristic(self, compiled, state, rows):
        pass

    def playouts(self, compiled, state, candidates, m, key):
        self.calls.append((len(candidates), m))
        u = np.random.default_rng(key).random(m)
        return np.where(u[None, :] < self.p[candidates][:, None], 0, 1).astype(np.int64)


def test_flat_decision_costs_one_round_and_keeps_the_heuristic():
    """Every candidate's playouts end alike: the heuristic's choice, after ``start`` each."""
    g = StubGame([0.5] * 6)
    p = SearchPlayer(g, 1, budget=384, width=6, start=8)
    assert p.choose(None, _State()) == 0
    assert g.calls == [(6, 8)] and p.playouts == 48


def test_racing_halves_the_field_doubles_the_playouts_and_stays_in_budget():
    """The heuristic's choice and the better half of the others race on with twice the
    playouts while the next round fits; the clearly better action wins the race."""
    g = StubGame([0.3, 0.35, 0.3, 0.9, 0.3, 0.32])
    p = SearchPlayer(g, 1, budget=384, width=6, start=8)
    assert p.choose(None, _State()) == 3
    assert g.calls == [(6, 8), (4, 8), (3, 16), (2, 32), (2, 64)]
    assert p.playouts == sum(k * m for k, m in g.calls) <= 384


def test_small_budget_is_one_flat_round():
    g = StubGame([0.3, 0.9, 0.3, 0.3])
    p = SearchPlayer(g, 1, budget=24, width=4, start=8)
    assert p.choose(None, _State()) == 1
    assert g.calls == [(4, 6)]


def test_a_gain_within_the_noise_keeps_the_heuristic():
    """An action better by one playout in 200 is not taken at z = 1 on 104 paired playouts
    (its mean gain is below one standard error of it)."""
    g = StubGame([0.500, 0.505, 0.2, 0.2, 0.2, 0.2])
    assert SearchPlayer(g, 3, budget=384, width=6, start=8, z=1.0).choose(None, _State()) == 0


def test_start_must_be_positive():
    with pytest.raises(ValueError, match="start"):
        SearchPlayer(StubGame([0.5, 0.5]), 1, start=0)


def test_same_seed_same_choices_and_rounds_use_fresh_streams():
    g = StubGame([0.3, 0.35, 0.3, 0.6, 0.3, 0.32])
    picks = [SearchPlayer(g, 5).choose(None, _State(i)) for i in range(5)]
    assert picks == [SearchPlayer(g, 5).choose(None, _State(i)) for i in range(5)]
    p = SearchPlayer(g, 5)
    keys = {p._key(_State(0), 0, r) for r in range(5)}
    assert len(keys) == 5


class _Stop(Exception):
    pass


@pytest.mark.parametrize("game_name", ["minas-tirith", "the-search"])
def test_a_search_game_compiles_its_playouts_before_the_first_step(monkeypatch, game_name):
    """``play_state`` lets a seated search player prepare (``Game.prepare_playouts``) before the
    built-in seats' first ``run_builtin``: on a cold cache the playouts, which call
    ``run_until_nb``, are compiled first (issue 21); a game without such a player does not."""
    from lotr_sim.api import get_game
    from lotr_sim.games.players import play_state

    g = get_game(game_name)
    comp = g.compile(g.load())
    calls: list[str] = []
    monkeypatch.setattr(g, "prepare_playouts", lambda c, s: calls.append("prepare"))

    def run_builtin(c, s, stop):
        calls.append("run")
        raise _Stop
    monkeypatch.setattr(g, "run_builtin", run_builtin)
    side = g.sides[0]
    with pytest.raises(_Stop):
        play_state(g, comp, {side: "search"}, 1, 0)
    assert calls == ["prepare", "run"]
    calls.clear()
    with pytest.raises(_Stop):
        play_state(g, comp, {side: "greedy"}, 1, 0)
    assert calls == ["run"]

