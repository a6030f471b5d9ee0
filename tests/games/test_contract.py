"""The game contract: one test suite every registered game must pass, the day it
is registered, plus the fake game of the experiment tests.

For each game: results do not depend on threads or on a game's company in a batch; the
step machine played by the built-in policies gives exactly ``simulate``'s rows; a random
player never finds an empty legal list before the end and the game's invariant holds after
every step; an illegal action is refused; the trace is evidence (replaying its events from
one snapshot gives the next, and its game_end is the result row); the search player beats
the random one.
"""
from __future__ import annotations


import dataclasses

import numpy as np
import pytest

from lotr_sim.games.step import IllegalAction



def _pols(g, name):
    return {side: name for side in g.sides}


def _rows_equal(a: dict, b: dict, i: int, j: int) -> bool:
    return all(int(a[k][i]) == int(b[k][j]) for k in a)


def test_determinism_threads_and_batches(gc):
    g, comp = gc
    for pol in ("random", g.default_policies[g.sides[0]]):
        one = g.simulate(comp, _pols(g, pol), 5, 100, 40, threads=1)
        two = g.simulate(comp, _pols(g, pol), 5, 100, 40, threads=2)
        for k in one:
            assert np.array_equal(one[k], two[k]), k
        for i in (0, 17, 39):
            alone = g.simulate(comp, _pols(g, pol), 5, 100 + i, 1, threads=1)
            assert _rows_equal(alone, one, 0, i)


def test_step_machine_is_simulate(gc):
    """The built-in policies stepped from Python give simulate's rows exactly."""
    g, comp = gc
    for pol in ("random", g.default_policies[g.sides[0]]):
        ref = g.simulate(comp, _pols(g, pol), 3, 0, 8, threads=1)
        for i in range(8):
            st = g.bind(comp).new_state(_pols(g, pol), 3, i)
            while not st.is_terminal():
                st.apply(st.builtin_choice())
            assert _rows_equal(st.result(), ref, 0, i), (pol, i)


def test_random_fuzz_invariant_after_every_step(gc):
    g, comp = gc
    rng = np.random.default_rng(11)
    steps = 0
    for i in range(6):
        st = g.bind(comp).new_state(_pols(g, "random"), 17, i, debug=True)
        assert st.invariant_ok()
        while not st.is_terminal():
            seat = st.to_move
            assert 0 <= seat < len(g.seat_names(comp))
            n = st.legal_actions().shape[0]
            assert n >= 1, "no legal action before the end"
            st.apply(int(rng.integers(n)))
            assert st.invariant_ok(), f"invariant broken after step {steps}"
            steps += 1
        assert st.legal_actions().shape[0] == 0 and st.to_move == -1
        row = st.result()
        assert 0 <= int(row["winner"][0]) < len(g.outcomes)
    assert steps >= 6 * len(g.sides)


def test_illegal_action_refused(gc):
    g, comp = gc
    st = g.bind(comp).new_state(_pols(g, "random"), 1, 0, debug=True)
    n = st.legal_actions().shape[0]
    before = {k: v.copy() for k, v in st.arrays.items()}
    for bad in (-1, n, n + 5):
        with pytest.raises(IllegalAction):
            st.apply(bad)
    for k, v in st.arrays.items():
        assert np.array_equal(v, before[k]), f"a refused action changed {k}"


def test_copy_is_a_separate_game(gc):
    g, comp = gc
    st = g.bind(comp).new_state(_pols(g, "random"), 2, 3)
    c = st.copy()
    c.apply(0)
    assert not all(np.array_equal(st.arrays[k], c.arrays[k]) for k in st.arrays)
    while not c.is_terminal():
        c.apply(c.builtin_choice())
    d = st.copy()
    d.apply(0)
    while not d.is_terminal():
        d.apply(d.builtin_choice())
    assert _rows_equal(c.result(), d.result(), 0, 0)


def test_preparing_the_playouts_changes_nothing(gc):
    """``prepare_playouts`` (called before a search game's first step, to compile the playouts
    first) leaves the game as it was, at the start and mid-game, and the playouts after it
    give what they give without it."""
    g, comp = gc
    st = g.bind(comp).new_state(_pols(g, "random"), 4, 1)
    for _ in range(2):
        before = st.copy()
        st.prepare_playouts()
        assert all(np.array_equal(before.arrays[k], st.arrays[k]) for k in st.arrays)
        cands = np.arange(min(2, st.legal_actions().shape[0]), dtype=np.int64)
        assert np.array_equal(st.playouts(cands, 3, 7), before.playouts(cands, 3, 7))
        for _ in range(5):
            if not st.is_terminal():
                st.apply(st.builtin_choice())


def test_trace_is_evidence(gc):
    g, comp = gc
    for i in range(3):
        row, events = g.play(comp, _pols(g, "random"), 9, i)
        head = events[0]
        assert head["event"] == "header" and head["game_name"] == g.name
        assert head["seed"] == 9 and head["game_index"] == i and set(head["policies"]) == set(g.sides)
        g.replay_check(comp, events)
        end = [e for e in events if e["event"] == "game_end"]
        assert len(end) == 1 and end[0]["winner"] == g.outcomes[int(row["winner"][0])]
        ref = g.simulate(comp, _pols(g, "random"), 9, i, 1)
        assert _rows_equal(row, ref, 0, 0)


@pytest.mark.slow
@pytest.mark.parametrize("side", [0, 1], ids=["first-side", "second-side"])
def test_search_beats_random(gc, side):
    """The search player on one side against random, paired with random on that side: it
    must win more often (|z| > 3 on the paired difference). Both sides (with only the
    first played, a search scoring for the first side whatever its seat got through)."""
    g, comp = gc
    n = 3000 if g.name == "fake" else 24
    seat = g.sides[side]
    rand = _pols(g, "random")
    srch = dict(rand, **{seat: "search-fast"})
    a = g.simulate(comp, srch, 21, 0, n, threads=2)["winner"] == g.outcomes.index(seat)
    b = g.simulate(comp, rand, 21, 0, n, threads=2)["winner"] == g.outcomes.index(seat)
    d = a.astype(float) - b.astype(float)
    z = d.mean() / (d.std(ddof=1) / np.sqrt(n))
    assert d.mean() > 0 and z > 3, (a.mean(), b.mean(), z)


@pytest.mark.slow
def test_search_seat_is_reproducible(gc):
    """A game with a search seat depends only on (seed, game index): the player's look-ahead
    uses its own streams, so threads and batches do not change it."""
    g, comp = gc
    pols = dict(_pols(g, g.default_policies[g.sides[0]]), **{g.sides[0]: "search-fast"})
    one = g.simulate(comp, pols, 8, 50, 4, threads=1)
    two = g.simulate(comp, pols, 8, 50, 4, threads=2)
    for k in one:
        assert np.array_equal(one[k], two[k]), k
    alone = g.simulate(comp, pols, 8, 52, 1, threads=1)
    assert _rows_equal(alone, one, 0, 2)


def test_state_knows_its_game_and_scores_every_seat(gc):
    """A state holds its game's immutable Rules (copies share them); once over, ``returns``
    scores each seat by its side: 1 win, 0.5 draw, 0 loss."""
    g, comp = gc
    rules = g.bind(comp)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.compiled = None
    for i in range(4):
        st = rules.new_state(_pols(g, "random"), 6, i)
        assert st.rules is rules and st.game is g and st.compiled is comp
        assert st.copy().rules is rules
        st.run_builtin(())
        assert st.is_terminal()
        won = g.outcomes[int(st.result()["winner"][0])]
        want = [1.0 if won == g.sides[g.seat_side(comp, s)] else 0.5 if won == "draw" else 0.0
                for s in range(len(g.seat_names(comp)))]
        assert st.returns().tolist() == want


def test_the_core_a_game_must_provide_is_small():
    """What a new game must write: rules and parameters and a start on the game, the step API on
    its state; everything else (seats' players, batches, traces, the players' helpers) has
    defaults or lives around the core."""
    from lotr_sim.games.base import Game
    from lotr_sim.games.step import State
    assert Game.__abstractmethods__ == {"params", "load", "compile", "start"}
    assert State.__abstractmethods__ == {"legal_actions", "apply", "to_move", "result", "invariant_ok"}
