"""The search player's playouts with a horizon: in LOTR Risk the rules name a
winner at any moment (the most points, LR-11.2, ties LR-11.3), so a playout may stop after
some rounds and be scored there. Checked against a step-by-step reading of the same game:
determinize from the searching seat's view on stream (key, j), apply the candidate, let the
heuristics play until ``hz`` times the number of players more turns have ended (or the game
ends: then its real winner), then score the position by the points."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.lotr_risk.board import points_nb, side_of_nb, winner_nb
from lotr_sim.games.lotr_risk.config import C_NP
from lotr_sim.games.registry import get_game
from lotr_sim.kernels.rng import STATE_SIZE, stream_init_nb

G = get_game("lotr-risk")
POL = {"good": "tuned", "evil": "greedy"}


def _positions(comp, seed, games, every):
    """Copies of every ``every``-th decision with more than one legal action."""
    out = []
    for index in range(games):
        state = G.bind(comp).new_state(POL, seed, index)
        k = 0
        while not state.is_terminal():
            if state.legal_actions().shape[0] > 1:
                k += 1
                if k % every == 0:
                    out.append(state.copy())
            state.apply(state.builtin_choice())
    return out


def _stepwise(comp, state, cand, key, j, hz):
    """Playout j of candidate ``cand`` read step by step: (winner's side, ended by the rules,
    turns ended in it)."""
    K = G.K
    cf, wp, pol = comp.cf, comp.wp, state.heur
    st = state.st.copy()
    act = state.act.copy()
    ctx = np.zeros_like(state.scr)
    tr = np.zeros(0, dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    stream_init_nb(np.int64(key), np.int64(j), s)
    seat = int(st[L.S_CUR])
    K.determinize_nb(cf, st, s, np.int64(seat), np.zeros(K.DET_TMP, dtype=np.int64))
    K.apply_nb(cf, wp, pol, st, tr, act, ctx, s, np.int64(cand))
    stop = int(state.st[L.S_TURN]) + hz * int(cf[C_NP])
    while st[L.S_OVER] == 0 and (hz == 0 or st[L.S_TURN] < stop):
        n = K.legal_nb(cf, st, act)
        K.apply_nb(cf, wp, pol, st, tr, act, ctx, s, K.choose_nb(cf, wp, pol, st, act, ctx, s, n))
    ended = bool(st[L.S_OVER])
    if not ended:
        points_nb(cf, st)
        w = winner_nb(cf, st, s)
    else:
        w = st[L.S_WSEAT]
    return int(side_of_nb(cf, w)) if w >= 0 else 0, ended, int(st[L.S_TURN] - state.st[L.S_TURN])


@pytest.mark.parametrize("players", [2, 3])
def test_lr_11_2_playouts_stop_at_the_horizon_and_score_by_points(players):
    comp = G.compile(G.load(None, {"players": players}))
    assert int(comp.cf[C_NP]) == players
    positions = _positions(comp, 5, 2, 37)
    assert len(positions) >= 8
    m, seen_stop, seen_end, differ = 3, 0, 0, 0
    for state in positions:
        n = state.legal_actions().shape[0]
        cands = np.arange(min(n, 2), dtype=np.int64)
        to_end = state.playouts(cands, m, 77)
        assert np.array_equal(state.playouts(cands, m, 77, 1000), to_end)   # past any game's end
        for hz in (1, 2):
            out = state.playouts(cands, m, 77, hz)
            for c in range(len(cands)):
                for j in range(m):
                    side, ended, turns = _stepwise(comp, state, int(cands[c]), 77, j, hz)
                    assert out[c, j] == side, (state.index, hz, c, j)
                    if ended:
                        seen_end += 1
                    else:
                        seen_stop += 1
                        assert turns == hz * players     # the rounds asked for, counted from this turn
            differ += int((out != to_end).any())
    # both ways a playout ends were exercised, and stopping early changed some results
    assert seen_stop > 0 and seen_end > 0 and differ > 0


def test_horizon_needs_a_game_that_can_score_a_position():
    """Minas Tirith names its winner only at the end: a horizon is refused by its playouts and
    not taken by the search player there."""
    from lotr_sim.players.search import SearchPlayer
    mt = get_game("minas-tirith")
    comp = mt.compile(mt.load(None, None))
    state = mt.bind(comp).new_state({"good": "greedy", "evil": "greedy"}, 1, 0)
    while state.legal_actions().shape[0] < 2:
        state.apply(state.builtin_choice())
    with pytest.raises(ValueError, match="run to the end"):
        state.playouts(np.arange(2, dtype=np.int64), 1, 7, 1)
    with pytest.raises(ValueError, match="rounds >= 0"):
        (G.bind(G.compile(G.load(None, None))).new_state(POL, 1, 0)).playouts(np.zeros(1, dtype=np.int64), 1, 7, -1)
    assert SearchPlayer(mt, 1, horizon=2).horizon == 0
    assert SearchPlayer(G, 1, horizon=2).horizon == 2
    with pytest.raises(ValueError):
        SearchPlayer(G, 1, horizon=-1)
