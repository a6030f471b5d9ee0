"""The search player scores playouts for its own seat's side, on every side and seat of every
game (a mutation scoring them for the first side whatever the seat, `side = 0` in
``SearchPlayer.choose``, took Sam from 84% to 1% against greedy and only the fake game's skill
test noticed; the contract tests put search on ``sides[0]`` only).

The game's playouts are rigged: one candidate (never the heuristic's own choice) always ends
with the seat's side winning, every other candidate with the other side winning. A player
scoring for its own side must take that candidate, at a real decision of that seat in a
real game state; one scoring for the wrong side takes another. Fast: one decision per seat.
"""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games import registry
from lotr_sim.players.search import SearchPlayer

# the fake game (tests/experiments/fakegame.py) is importable through tests/conftest.py

# (game, rule overrides): LOTR Risk at every player count, so every seat p1..p4 is checked
CASES = [("minas-tirith", {}), ("the-search", {}), ("lotr-risk", {"players": 2}),
         ("lotr-risk", {"players": 3}), ("lotr-risk", {"players": 4}), ("fake", {})]


def _rigged(state, target: int, own: int, other: int):
    """A copy of ``state`` whose playouts' winners are fixed: ``target`` wins for ``own``,
    every other candidate for ``other`` (outcome indexes)."""
    st = state.copy()

    def playouts(candidates, m, key, *horizon):
        out = np.full((len(candidates), int(m)), other, dtype=np.int64)
        out[np.asarray(candidates) == target] = own
        return out
    st.playouts = playouts
    return st


def _state_at_seat(g, comp, seat: int, pols: dict):
    """A real game state where ``seat`` is to move with a choice of at least two actions
    (random play up to it), or None."""
    rng = np.random.default_rng(seat + 1)
    for index in range(40):
        st = g.bind(comp).new_state(pols, 5, index)
        for _ in range(20_000):
            if st.is_terminal():
                break
            n = st.legal_actions().shape[0]
            if st.to_move == seat and n >= 2:
                return st
            st.apply(int(rng.integers(n)))
    return None


@pytest.fixture(scope="module", params=CASES, ids=lambda c: c[0] + "".join(f"-{k}{v}" for k, v in c[1].items()))
def case(request):
    name, sets = request.param
    if name == "fake":
        registry.register("fake", "fakegame:FakeGame")
    g = registry.get_game(name)
    yield g, g.compile(g.load(None, sets or None))
    if name == "fake":
        registry.unregister("fake")


def test_search_scores_playouts_for_its_own_side_on_every_seat(case):
    g, comp = case
    pols = {side: "random" for side in g.sides}
    seats = g.seat_names(comp)
    assert len(seats) >= 2
    checked_sides = set()
    for seat in range(len(seats)):
        st = _state_at_seat(g, comp, seat, pols)
        assert st is not None, f"{g.name}: seat {seats[seat]} never had a choice"
        side = g.seat_side(comp, seat)
        own = g.outcomes.index(g.sides[side])
        other = g.outcomes.index(g.sides[1 - side])
        probe = SearchPlayer(g, 3, budget=64, width=4, start=4)
        cand = probe.candidates(st)
        if cand.shape[0] < 2:
            continue
        target = int(cand[-1])               # not the heuristic's own choice (cand[0])
        p = SearchPlayer(g, 3, budget=64, width=4, start=4)
        got = p.choose(_rigged(st, target, own, other))
        assert got == target, (g.name, seats[seat], g.sides[side], got, target, cand.tolist())
        checked_sides.add(side)
    assert checked_sides == set(range(len(g.sides))), (g.name, checked_sides)
