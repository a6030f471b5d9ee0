"""Minas Tirith players use only what a seat can know.

What no seat can know is the order of the two face-down piles: the reinforcement deck still
to draw (MT-3.1, MT-4.5) and the Minas Tirith deck (MT-3.2, MT-5.3, MT-5.4 a). Their contents
and sizes are public, and so is everything else (reinforcement hands lie face up, MT-5.1; see
minas_tirith/play.py). Permuting the piles' unseen orders must change neither the heuristic's
scores and choice nor the search playouts' results (same key), for either seat, at every kind
of decision; ``determinize`` deals the orders again and leaves the rest as it was.
"""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L

PY = {"good": "search", "evil": "search"}   # seats held in Python: card-step decisions too


def _piles(comp, st):
    """The unseen ranges of ``st``: (lo, hi) of the reinforcement deck and of the Minas
    Tirith deck still to draw."""
    cf = comp.cf
    return [(L.O_DORD + int(st[L.S_DTOP]), L.O_DORD + int(cf[C.C_ND])),
            (L.O_MTORD + int(st[L.S_MTTOP]), L.O_MTORD + int(cf[C.C_NC]))]


def _permute(comp, state, rng):
    """Shuffle each unseen pile in place; True if some order changed."""
    st = state.st
    moved = False
    for lo, hi in _piles(comp, st):
        before = st[lo:hi].copy()
        st[lo:hi] = before[rng.permutation(hi - lo)]
        moved |= not np.array_equal(before, st[lo:hi])
    state.n_legal = -1
    return moved


def _positions(game, comp, pols, seed, games, every):
    out = []
    for index in range(games):
        state = game.bind(comp).new_state(pols, seed, index)
        k = 0
        while not state.is_terminal():
            n = state.legal_actions().shape[0]
            if n > 1 and all(hi - lo >= 2 for lo, hi in _piles(comp, state.st)[:1]):
                k += 1
                if k % every == 0:
                    out.append(state.copy())
            state.apply(state.builtin_choice())
    return out


@pytest.fixture(scope="module")
def hidden_states(game, comp):
    """Decision points with at least two reinforcement cards left to draw, from greedy,
    random and mixed games and from games whose seats are held in Python (card steps)."""
    out = []
    out += _positions(game, comp, {"good": "greedy", "evil": "greedy"}, 17, 4, 5)
    out += _positions(game, comp, {"good": "random", "evil": "random"}, 18, 3, 5)
    out += _positions(game, comp, {"good": "greedy", "evil": "random"}, 19, 2, 5)
    out += _positions(game, comp, PY, 20, 3, 4)
    return out


def test_positions_cover_both_seats_and_every_decision_kind(game, comp, hidden_states):
    seats = {s.to_move for s in hidden_states}
    kinds = {s.decision_kind() for s in hidden_states}
    assert len(hidden_states) >= 150, len(hidden_states)
    assert seats == {0, 1}
    assert {"die", "action", "loss", "card"} <= kinds, kinds


def _view(game, comp, state):
    """What the seat to move decides from: legal actions, heuristic scores and choice, and
    the seat's built-in choice (on a copy: a random player draws from the state's stream)."""
    legal = state.legal_actions().copy()
    scores = state.action_scores()
    heur = state.heuristic_choice()
    builtin = state.copy().builtin_choice()
    return legal, scores, heur, builtin


def test_mt_5_1_heuristics_do_not_see_the_decks_order(game, comp, hidden_states):
    """MT-3.1 / MT-3.2 / MT-5.3: permuting the reinforcement deck and the Minas Tirith deck
    still to draw leaves the legal actions, the greedy heuristic's scores and choice and the
    seat's built-in choice as they were, for both seats and every decision kind."""
    rng = np.random.default_rng(7)
    moved = 0
    for state in hidden_states:
        v0 = _view(game, comp, state)
        for _ in range(2):
            other = state.copy()
            moved += _permute(comp, other, rng)
            v1 = _view(game, comp, other)
            where = (state.decision_kind(), state.to_move, state.index)
            assert np.array_equal(v0[0], v1[0]), where
            assert np.array_equal(v0[1], v1[1]), where
            assert v0[2:] == v1[2:], where
    assert moved >= len(hidden_states)


def test_mt_search_playouts_determinize_the_decks(game, comp, hidden_states):
    """The search playouts deal the decks' orders again from stream (key, j): the same key
    gives the same results whatever the hidden order, for both seats, while another key does
    change some of them (the playouts depend on the deal and the dice)."""
    rng = np.random.default_rng(9)
    m = 4
    changed = 0
    seats = set()
    for state in hidden_states[::12]:
        n = state.legal_actions().shape[0]
        cands = list(range(min(n, 3)))
        out0 = state.playouts(cands, m, 123)
        other = state.copy()
        _permute(comp, other, rng)
        assert np.array_equal(other.playouts(cands, m, 123), out0), \
            (state.decision_kind(), state.to_move, state.index)
        changed += not np.array_equal(state.playouts(cands, m, 124), out0)
        seats.add(state.to_move)
    assert seats == {0, 1}
    assert changed >= 1


def test_mt_determinize_keeps_the_public_part_and_the_piles_contents(game, comp, hidden_states):
    """``determinize`` returns a new state: the input is untouched, everything outside the
    unseen piles is copied as it is, each pile keeps its contents (as a multiset) and size,
    the deal depends on the key (some key changes the order) and not on the hidden order,
    and it is the same for both seats (hands are open, MT-5.1)."""
    rng = np.random.default_rng(11)
    reordered = 0
    big = 0      # states with 4 or more unseen cards: a deal keeps their order with p <= 1/24
    for state in hidden_states[::6]:
        keep = {k: v.copy() for k, v in state.arrays.items()}
        piles = _piles(comp, state.st)
        mask = np.ones(state.st.shape[0], dtype=bool)
        for lo, hi in piles:
            mask[lo:hi] = False
        seat = state.to_move
        for key in (1, 2, 3):
            d = state.determinize(seat, key)
            assert d is not state and d.st is not state.st
            for k, v in keep.items():
                assert np.array_equal(state.arrays[k], v), k      # the input untouched
                if k != "st":
                    assert np.array_equal(d.arrays[k], v), k
            assert np.array_equal(d.st[mask], state.st[mask])
            for lo, hi in piles:
                assert np.array_equal(np.sort(d.st[lo:hi]), np.sort(state.st[lo:hi]))
            if sum(hi - lo for lo, hi in piles) >= 4:
                big += 1
                reordered += any(not np.array_equal(d.st[lo:hi], state.st[lo:hi]) for lo, hi in piles)
            assert np.array_equal(state.determinize(1 - seat, key).st, d.st)
            other = state.copy()
            _permute(comp, other, rng)
            assert np.array_equal(other.determinize(seat, key).st, d.st)
            assert np.array_equal(d.legal_actions(), state.legal_actions())
    assert big >= 2 * len(hidden_states[::6]) and reordered >= big - 2, (big, reordered)


def test_mt_determinize_checks_the_seat(game, comp, hidden_states):
    with pytest.raises(ValueError):
        hidden_states[0].determinize(2, 1)


def test_mt_search_decision_does_not_see_the_decks_order(game, comp, hidden_states):
    """The search player's whole decision (candidates from the heuristic, racing, playouts
    keyed by seed, game, seat and decision count) is the same whatever the decks' hidden
    order, for both seats."""
    from lotr_sim.players.search import SearchPlayer
    rng = np.random.default_rng(13)
    seats = set()
    for state in hidden_states[::15]:
        a = SearchPlayer(game, 5, budget=24, width=3, start=4)
        b = SearchPlayer(game, 5, budget=24, width=3, start=4)
        other = state.copy()
        _permute(comp, other, rng)
        assert a.choose(state.copy()) == b.choose(other), \
            (state.decision_kind(), state.to_move, state.index)
        seats.add(state.to_move)
    assert seats == {0, 1}
