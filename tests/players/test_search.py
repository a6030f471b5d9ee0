"""The search player (lotr_sim.players.search): how it spends its playouts and how
it picks, against a stub game whose candidates have known win chances."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.players.search import SearchPlayer


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

    def seat_side(self, compiled, seat):
        return seat

    def seat_policies(self, compiled, policies):
        return {"good": "search", "evil": "greedy"}

    def heuristic_rows(self, compiled, seat_players):
        return None

    def playouts(self, candidates, m, key):
        self.calls.append((len(candidates), m))
        u = np.random.default_rng(key).random(m)
        return np.where(u[None, :] < self.p[candidates][:, None], 0, 1).astype(np.int64)


class _State:
    """The stub game's one decision, as the search player reads it (``State``'s step API)."""
    compiled = None
    to_move = 0

    def __init__(self, game: StubGame, index: int = 0):
        self.game = game
        self.index = index
        self.policies = {}

    def legal_actions(self):
        return np.zeros((len(self.game.p), 1), dtype=np.int64)

    def heuristic_choice(self):
        return 0

    def pass_action(self):
        return -1

    def action_scores(self):
        return -np.arange(len(self.game.p), dtype=float)     # the heuristic's order: 0, 1, 2, ...

    def decision_kind(self):
        return "action"

    def use_heuristic(self, rows):
        pass

    def playouts(self, candidates, m, key):
        return self.game.playouts(candidates, m, key)


def test_flat_decision_costs_one_round_and_keeps_the_heuristic():
    """Every candidate's playouts end alike: the heuristic's choice, after ``start`` each."""
    g = StubGame([0.5] * 6)
    p = SearchPlayer(g, 1, budget=384, width=6, start=8)
    assert p.choose(_State(g)) == 0
    assert g.calls == [(6, 8)] and p.playouts == 48


def test_racing_halves_the_field_doubles_the_playouts_and_stays_in_budget():
    """The heuristic's choice and the better half of the others race on with twice the
    playouts while the next round fits; the clearly better action wins the race."""
    g = StubGame([0.3, 0.35, 0.3, 0.9, 0.3, 0.32])
    p = SearchPlayer(g, 1, budget=384, width=6, start=8)
    assert p.choose(_State(g)) == 3
    assert g.calls == [(6, 8), (4, 8), (3, 16), (2, 32), (2, 64)]
    assert p.playouts == sum(k * m for k, m in g.calls) <= 384


def test_small_budget_is_one_flat_round():
    g = StubGame([0.3, 0.9, 0.3, 0.3])
    p = SearchPlayer(g, 1, budget=24, width=4, start=8)
    assert p.choose(_State(g)) == 1
    assert g.calls == [(4, 6)]


def test_a_gain_within_the_noise_keeps_the_heuristic():
    """An action better by one playout in 200 is not taken at z = 1 on 104 paired playouts
    (its mean gain is below one standard error of it)."""
    g = StubGame([0.500, 0.505, 0.2, 0.2, 0.2, 0.2])
    assert SearchPlayer(g, 3, budget=384, width=6, start=8, z=1.0).choose(_State(g)) == 0


def test_start_must_be_positive():
    with pytest.raises(ValueError, match="start"):
        SearchPlayer(StubGame([0.5, 0.5]), 1, start=0)


def test_same_seed_same_choices_and_rounds_use_fresh_streams():
    g = StubGame([0.3, 0.35, 0.3, 0.6, 0.3, 0.32])
    picks = [SearchPlayer(g, 5).choose(_State(g, i)) for i in range(5)]
    assert picks == [SearchPlayer(g, 5).choose(_State(g, i)) for i in range(5)]
    p = SearchPlayer(g, 5)
    keys = {p._key(_State(g, 0), 0, r) for r in range(5)}
    assert len(keys) == 5


class _Stop(Exception):
    pass


@pytest.mark.parametrize("game_name", ["minas-tirith", "the-search"])
def test_a_search_game_compiles_its_playouts_before_the_first_step(monkeypatch, game_name):
    """``play_state`` lets a seated search player prepare (``State.prepare_playouts``) before the
    built-in seats' first ``run_builtin``: on a cold cache the playouts, which call
    ``run_until_nb``, are compiled first; a game without such a player does not."""
    from lotr_sim.api import get_game
    from lotr_sim.games.players import play_state

    g = get_game(game_name)
    comp = g.compile(g.load())
    calls: list[str] = []
    monkeypatch.setattr(g.state_class, "prepare_playouts", lambda s: calls.append("prepare"))

    def run_builtin(s, stop):
        calls.append("run")
        raise _Stop
    monkeypatch.setattr(g.state_class, "run_builtin", run_builtin)
    side = g.sides[0]
    with pytest.raises(_Stop):
        play_state(g, comp, {side: "search"}, 1, 0)
    assert calls == ["prepare", "run"]
    calls.clear()
    with pytest.raises(_Stop):
        play_state(g, comp, {side: "greedy"}, 1, 0)
    assert calls == ["run"]



def test_wide_search_screens_every_legal_action_then_halves_to_two_finalists():
    """Wide mode (width 0), the judge of exploitability: every legal action is screened with
    ``start`` playouts (not only the heuristic's best few), then the heuristic's choice and the
    better half race on, each topped up to final / 2**(halvings left), until two have ``final``;
    a good action the heuristic ranks last is found."""
    p = [0.3] * 19 + [0.9]                 # the heuristic ranks action 19 last
    g = StubGame(p)
    s = SearchPlayer(g, 1, budget=4096, width=0, start=2, final=64, z=0.0)
    assert s.choose(_State(g)) == 19
    assert s.considered == 20
    # 20 -> 11 -> 6 -> 4 -> 3 -> 2, each topped up to 64 >> (halvings left) playouts
    assert g.calls == [(20, 2), (11, 2), (6, 4), (4, 8), (3, 16), (2, 32)]
    assert s.playouts == sum(k * m for k, m in g.calls)


def test_wide_search_stops_before_a_round_past_its_budget():
    g = StubGame([0.3] * 9 + [0.9])
    s = SearchPlayer(g, 1, budget=40, width=0, start=2, final=64)
    s.choose(_State(g))
    assert s.considered == 10 and s.playouts <= 40
    assert g.calls[0] == (10, 2)


def test_wide_search_does_not_stop_on_alike_screening():
    """A screening whose playouts all ended alike does not settle a wide decision (the narrow
    race would keep the heuristic's choice there): the two finalists still get ``final``."""
    g = StubGame([0.0] * 8)
    s = SearchPlayer(g, 1, budget=4096, width=0, start=2, final=16)
    assert s.choose(_State(g)) == 0
    assert g.calls == [(8, 2), (5, 2), (3, 4), (2, 8)]     # 8 -> 5 -> 3 -> 2, the last two at 16


def test_wide_search_needs_a_final_count():
    with pytest.raises(ValueError, match="final"):
        SearchPlayer(StubGame([0.5, 0.5]), 1, width=0)
    with pytest.raises(ValueError, match="width"):
        SearchPlayer(StubGame([0.5, 0.5]), 1, width=-1)


@pytest.mark.parametrize("game_name", ["minas-tirith", "the-search", "lotr-risk"])
def test_registered_judge_considers_every_legal_action_in_each_game(monkeypatch, game_name):
    """search-wide, the registered judge: at a real decision its race starts with every legal
    action (the first playouts call gets all of them, the heuristic's choice first)."""
    from lotr_sim.api import get_game
    from lotr_sim.games.players import generic_player

    g = get_game(game_name)
    comp = g.compile(g.load())
    pol = {s: "tuned" for s in g.sides}
    pol[g.sides[0]] = "search-wide"
    state = g.bind(comp).new_state(g.check_policies(pol), 1, 0)
    judge = generic_player("search-wide", g, 1)
    assert judge.width == 0 and judge.final == 64
    seat = state.run_builtin([0])
    while state.legal_actions().shape[0] < 3:      # a decision with a choice to make
        state.apply(state.heuristic_choice())
        seat = state.run_builtin([0])
        assert seat == 0
    n = state.legal_actions().shape[0]
    seen = []
    real = type(state).playouts

    def spy(st, cand, m, key, *rest):
        seen.append(np.asarray(cand).copy())
        return real(st, cand, m, key, *rest)
    monkeypatch.setattr(type(state), "playouts", spy)
    judge.choose(state)
    assert judge.considered == n
    assert sorted(seen[0].tolist()) == list(range(n))
    assert seen[0][0] == state.heuristic_choice()
