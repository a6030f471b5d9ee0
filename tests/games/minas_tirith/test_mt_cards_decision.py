"""MT-5 the card step as decisions of a seat held by a player from lotr_sim.players.

A seat whose policy is not built in (e.g. the search player) makes its card step play by play:
the step machine rests at PH_CARD (decision_kind "card") with one row per set to trade (MT-5.2,
MT-5.3, bonus MT-5.4), per Muster of Gondor held (MT-9.7), per legal load of a hand card on a
holder card (MT-5.5) and "stop" (not while the hand is over the limit and a set can be traded,
MT-5.6). Built-in seats keep making the step inside the engine; the heuristic's card row is the
built-in greedy choice, so taking it at every card decision replays the greedy game exactly.
"""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.minas_tirith import cards as CD
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.minas_tirith.trace import decode
from lotr_sim.games.registry import get_game

SEED = 5
PY = {"good": "search-classic", "evil": "search-classic"}   # Python players built on greedy (their
# inner decisions and heuristic rows are greedy's, so taking the heuristic replays greedy v greedy)


@pytest.fixture(scope="module")
def g_comp():
    g = get_game("minas-tirith")
    return g, g.compile(g.load())


def _count(cf, st, side, k):
    return sum(1 for i in range(int(st[L.S_HN + side]))
               if cf[C.O_DTYPE + st[L.O_HAND + side * L.HMAX + i]] == k)


def _expected_rows(cf, st, side):
    """The card plays the rules allow, by brute force: (trades, musters, loads)."""
    nj = _count(cf, st, side, 3)
    trades = {k for k in range(3) if _count(cf, st, side, k) + nj >= 3 and (_count(cf, st, side, k) >= 1 or k == 0)}
    musters = {c for c in range(int(cf[C.C_NC]))
               if st[L.O_CST + c] == 1 + side and cf[C.O_CKIND + c] == L.K_MUSTER}
    loads = set()
    for i in range(int(st[L.S_HN + side])):
        card = int(st[L.O_HAND + side * L.HMAX + i])
        for c in range(int(cf[C.C_NC])):
            if st[L.O_CST + c] != 1 + side or cf[C.O_CKIND + c] != L.K_HOLDER:
                continue
            if CD.holder_load_nb(cf, st, c) >= cf[C.P_HOLDER_CAP]:
                continue
            for u in range(int(cf[C.C_NU])):
                if (int(cf[C.O_CACC + c]) >> u) & 1 and st[L.O_POOL + u] > 0 \
                        and CD.card_unit_types_nb(cf, side, int(cf[C.O_DTYPE + card]), u):
                    loads.add((i, c, u, card))
    return trades, musters, loads


def _check_rows(g, comp, state):
    """MT-5.2-5.6, MT-9.7: the rows of a card decision are exactly the legal card plays."""
    cf, st = comp.cf, state.st
    side = int(st[L.S_SIDE])
    assert state.decision_kind() == "card" and state.to_move == side
    rows = state.legal_actions()
    assert rows.shape[0] >= 1 and (rows[:, 0] == L.A_CARD).all()
    trades, musters, loads = _expected_rows(cf, st, side)
    assert {int(r[2]) for r in rows if r[1] == L.CD_TRADE} == trades
    assert {int(r[2]) for r in rows if r[1] == L.CD_MUSTER} == musters
    got = [(int(r[2]), int(r[3]), int(r[4]), int(r[5])) for r in rows if r[1] == L.CD_LOAD]
    assert len(got) == len(set(got)) and set(got) == loads
    assert trades or musters or loads                     # a card decision has a card play
    nstop = int((rows[:, 1] == L.CD_STOP).sum())
    must_trade = bool(trades) and st[L.S_HN + side] > cf[C.P_HAND_LIMIT]
    assert nstop == (0 if must_trade else 1)
    if nstop:
        assert rows[-1, 1] == L.CD_STOP
    return rows


def _play_taking_heuristic(g, comp, index, check=True):
    """Both seats Python-held; the heuristic's row at card decisions, the built-in greedy
    choice (the seats' policy rows) at every other decision. Returns (state, card decisions,
    card decisions with more than one row)."""
    state = g.bind(comp).new_state(PY, SEED, index, trace=True)
    ncard = nmulti = 0
    while state.run_builtin([0, 1]) >= 0:
        if state.decision_kind() == "card":
            rows = _check_rows(g, comp, state) if check else state.legal_actions()
            ncard += 1
            nmulti += rows.shape[0] > 1
            h = state.heuristic_choice()
            assert h == state.builtin_choice()
            state.apply(h)
            assert state.invariant_ok()
        else:
            state.apply(state.builtin_choice())
    return state, ncard, nmulti


@pytest.mark.slow
def test_mt_5_heuristic_card_choice_replays_the_greedy_game(g_comp):
    """MT-5: taking the heuristic's row at every card decision gives the built-in greedy game
    exactly - the same result row and the same trace - in 30 games; the card decisions' rows
    are the legal card plays (trades only for a real set MT-5.2, Muster only when held MT-9.7,
    loads only to holders with room and usable unit types MT-5.5, stop as MT-5.6 allows)."""
    g, comp = g_comp
    total = multi = 0
    for index in range(30):
        state, ncard, nmulti = _play_taking_heuristic(g, comp, index)
        total += ncard
        multi += nmulti
        row, events = g.play(comp, {"good": "greedy", "evil": "greedy"}, SEED, index)
        res = state.result()
        assert all(np.array_equal(res[k], row[k]) for k in row), index
        # the same events, but for the card step's decisions: a built-in seat makes its card
        # step inside the engine (card_phase_nb), not as decisions (trace_version 3)
        mine = decode(comp, state.tr, index)
        assert [e for e in mine if not (e["event"] == "decision" and e["kind"] == "card")] == events[1:], index
        assert sum(e["event"] == "decision" and e["kind"] == "card" for e in mine) == ncard
    assert total >= 30 and multi >= 10, (total, multi)


def test_mt_5_builtin_seats_never_rest_at_a_card_decision(g_comp):
    """Built-in policies make their card step inside the engine (no PH_CARD), a Python seat
    is asked, and only for its own turns."""
    g, comp = g_comp
    for pols, want in (({"good": "greedy", "evil": "greedy"}, set()),
                       ({"good": "random", "evil": "random"}, set()),
                       ({"good": "greedy", "evil": "search"}, {1})):
        seen = set()
        for index in range(6):
            state = g.bind(comp).new_state(pols, SEED, index)
            while not state.is_terminal():
                if state.st[L.S_PHASE] == L.PH_CARD:
                    seen.add(state.to_move)
                state.apply(state.builtin_choice())
        assert seen == want, pols


def _first_card_decision(g, comp, want, start=0):
    """(state, rows) at the first card decision (from game ``start`` on) whose rows pass ``want``."""
    for index in range(start, start + 60):
        state = g.bind(comp).new_state(PY, SEED, index, trace=True)
        while state.run_builtin([0, 1]) >= 0:
            if state.decision_kind() == "card":
                rows = state.legal_actions().copy()
                if want(rows):
                    return state, rows
                state.apply(state.heuristic_choice())
            else:
                state.apply(state.builtin_choice())
    pytest.fail("no card decision of that kind in 60 games")


def _events(comp, state):
    return decode(comp, state.tr, state.index)


def test_mt_5_stop_ends_the_card_step(g_comp):
    """MT-5.7: stopping ends the card step with the hand kept (within the limit, MT-5.6): no
    trade, load or Muster follows in that turn, and the turn goes on to its missions."""
    g, comp = g_comp
    state, rows = _first_card_decision(
        g, comp, lambda r: r.shape[0] > 1 and (r[:, 1] == L.CD_TRADE).any() and r[-1, 1] == L.CD_STOP)
    side = int(state.st[L.S_SIDE])
    hand = int(state.st[L.S_HN + side])
    turn = int(state.st[L.S_TURN])
    n0 = len(_events(comp, state))
    state.apply(rows.shape[0] - 1)
    assert state.st[L.S_PHASE] != L.PH_CARD
    assert int(state.st[L.S_HN + side]) == hand
    after = [e["event"] for e in _events(comp, state)[n0:]]
    assert not {"trade", "load", "card_played"} & set(after), after
    assert int(state.st[L.S_TURN]) > turn or state.st[L.S_PHASE] == L.PH_ACT or state.is_terminal()


def test_mt_5_5_a_load_the_heuristic_would_not_make(g_comp):
    """MT-5.5: every legal load is a row, also one the heuristic filters out (a card that could
    complete a set): taking it puts one unit of type u on holder c from the pool and spends
    that hand card; the step then goes on or ends, and the state stays consistent."""
    g, comp = g_comp

    def want(rows):
        return any(r[1] == L.CD_LOAD for r in rows)

    for start in (0, 60):
        state, rows = _first_card_decision(g, comp, want, start)
        scores = state.action_scores()
        loads = [i for i, r in enumerate(rows) if r[1] == L.CD_LOAD]
        k = min(loads, key=lambda i: (scores[i], -i))          # the least liked load
        _, _, hi, c, u, card = (int(x) for x in rows[k])
        side = int(state.st[L.S_SIDE])
        hold, pool, hand = int(state.st[L.O_HOLD + c * C.MAXU + u]), int(state.st[L.O_POOL + u]), \
            int(state.st[L.S_HN + side])
        state.apply(k)
        assert int(state.st[L.O_HOLD + c * C.MAXU + u]) == hold + 1
        assert int(state.st[L.O_POOL + u]) == pool - 1
        assert int(state.st[L.S_HN + side]) <= hand - 1
        assert state.invariant_ok()
        ev = [e for e in _events(comp, state) if e["event"] == "load"]
        assert ev
        if scores[k] < max(scores):
            return
    pytest.fail("no load the heuristic would not make")


def test_mt_5_card_decision_search_and_playouts(g_comp):
    """The search player's tools at a card decision: candidate 0 is the greedy card play,
    playouts from a card decision finish the step with the heuristic and return results."""
    from lotr_sim.players.search import SearchPlayer
    g, comp = g_comp
    state, rows = _first_card_decision(g, comp, lambda r: r.shape[0] >= 3)
    p = SearchPlayer(g, 1, budget=12, width=3)
    cand = p.candidates(state)
    assert cand[0] == state.builtin_choice() and len(set(cand.tolist())) == len(cand)
    out = state.playouts(cand, 4, 123)
    assert out.shape == (len(cand), 4) and np.isin(out, [L.W_GOOD, L.W_EVIL, L.W_DRAW]).all()
    assert 0 <= p.choose(state) < rows.shape[0]


def test_mt_5_any_card_rows_keep_the_game_consistent(g_comp):
    """MT-5 fuzz: a random row at every card decision (other decisions built in) keeps the
    invariant after every step, and the trace replays snapshot to snapshot (replay_check)."""
    g, comp = g_comp
    rng = np.random.default_rng(11)
    checked = taken = 0
    for index in range(12):
        state = g.bind(comp).new_state(PY, SEED, index, trace=True, debug=True)
        while state.run_builtin([0, 1]) >= 0:
            if state.decision_kind() == "card":
                rows = _check_rows(g, comp, state)
                state.apply(int(rng.integers(rows.shape[0])))
                taken += 1
            else:
                state.apply(state.builtin_choice())
            assert state.invariant_ok()
        assert int(state.result()["invariant_broken"][0]) == 0
        events = [g.trace_header(comp, PY, SEED, index)] + _events(comp, state)
        checked += g.replay_check(comp, events)
    assert taken >= 50 and checked >= 100, (taken, checked)
