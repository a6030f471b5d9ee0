"""MT-7.5 retreat destinations as step-machine decisions.

Where a retreating force goes is the retreating side's choice (MT-7.5): each step with
several legal destinations is a decision (PH_RETREAT, rows A_RETREAT, decision_kind
"retreat"); a step with one destination is taken without one. The built-in players choose
as the engine did before (most own units; the random player draws once per destination), so
a deferred assault gives the same events as the engine's direct one (``defer=False``).
"""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.minas_tirith import board as B
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.minas_tirith import play as P
from lotr_sim.games.registry import get_game

GOOD, EVIL = 0, 1


def _setup_causeway(p, block_south=False):
    """Good attacks Causeway from Gate Field; Evil's defenders (with Gothmog) may retreat
    towards Evil's edge: Causeway Fort North (2 Evil infantry there) or Causeway Fort South
    (empty, or held by Good with ``block_south``)."""
    p.set_units("Gate Field", "good", "infantry", 3)
    p.set_units("Causeway", "evil", "infantry", 6)
    p.set_units("Causeway Fort North", "evil", "infantry", 2)
    if block_south:
        p.set_units("Causeway Fort South", "good", "infantry", 1)
    p.put_leader("Gothmog", "Causeway")


def _begin_assault(p):
    """Good's assault as the step machine starts it; the loss decisions taken by the built-in
    players; returns True if it rests at a retreat decision."""
    p.begin("good", L.A_ASSAULT, p.t("Gate Field"), p.t("Causeway"), 3)
    while p.st[L.S_PHASE] in (L.PH_LOSS, L.PH_ALOSS, L.PH_DLOSS):
        rows = p.options()
        i = P.choose_nb(p.cf, p.comp.wp, p.pol, p.st, p.act, p.scr, p.s, rows.shape[0])
        p.decide(i)
    return p.st[L.S_PHASE] == L.PH_RETREAT


def _retreat_seeds(pos, want, block_south=False, policies=("greedy", "greedy")):
    """Seeds whose Good six sends the Evil defenders back one step (a decision) or not."""
    out = []
    for seed in range(400):
        p = pos(policies=policies, seed=seed)
        _setup_causeway(p, block_south)
        if _begin_assault(p) == want:
            if want or any(e["event"] == "retreat" for e in p._events()):
                out.append(seed)
        if len(out) >= 3:
            break
    assert out, "no seed gave the situation"
    return out


def test_mt_7_5_two_destinations_are_a_decision_of_the_retreating_side(pos):
    """MT-7.5: from Causeway the Evil defenders may go to either Causeway Fort (both one step
    closer to Evil's edge, no enemies): the step machine offers both, to Evil, and each row
    leads to its territory with the units and Gothmog."""
    seed = _retreat_seeds(pos, True)[0]
    p = pos(seed=seed)
    _setup_causeway(p)
    assert _begin_assault(p)
    assert P.to_move_nb(p.st) == EVIL and p.st[L.S_SIDE] == GOOD
    rows = p.options()
    dest = [p.names["territories"][int(r[1])] for r in rows]
    assert sorted(dest) == ["Causeway Fort North", "Causeway Fort South"]
    assert all(int(r[0]) == L.A_RETREAT and int(r[2]) == p.t("Causeway") for r in rows)
    moving = p.units("Causeway", "evil")
    assert moving > 0
    steps = int(rows[0, 3])
    for i, name in enumerate(dest):
        q = pos(seed=seed)
        _setup_causeway(q)
        assert _begin_assault(q)
        before = q.units(name, "evil")
        q.decide(i)
        ev = q._events()
        r = [e for e in ev if e["event"] == "retreat"][0]
        assert r["retreating"] == "evil" and r["from"] == "Causeway"
        assert r["path"][0] == name and len(r["path"]) <= steps and r["leaders"] == ["Gothmog"]
        assert q.units("Causeway", "evil") == 0
        end = r["path"][-1]
        assert q.leader_loc("Gothmog") == end
        if end == name:
            assert q.units(name, "evil") == before + moving
        assert q.st[L.S_PHASE] < L.PH_LOSS and q.invariant()


def test_mt_7_5_builtin_players_retreat_as_the_direct_engine(pos):
    """MT-7.5: the greedy player goes where it has most own units (Causeway Fort North here),
    the random player draws once per destination: the deferred assault with the built-in
    choices writes exactly the events of the engine's direct assault (``defer=False``)."""
    for policies in (("greedy", "greedy"), ("random", "random")):
        for seed in _retreat_seeds(pos, True, policies=policies):
            p = pos(policies=policies, seed=seed)
            _setup_causeway(p)
            deferred = p.do("good", L.A_ASSAULT, p.t("Gate Field"), p.t("Causeway"), 3)
            q = pos(policies=policies, seed=seed)
            _setup_causeway(q)
            direct = q.assault("Gate Field", "Causeway", 3, side="good")
            assert deferred == direct
            assert np.array_equal(p.s, q.s)          # the same draws, in the same order
            r = [e for e in direct if e["event"] == "retreat"][0]
            if policies[1] == "greedy":
                assert r["path"][0] == "Causeway Fort North"


def test_mt_7_5_one_destination_makes_no_decision(pos):
    """MT-7.5: with Causeway Fort South held by Good the only step is Causeway Fort North:
    the retreat is taken without a decision."""
    seeds = _retreat_seeds(pos, False, block_south=True)
    for seed in seeds:
        p = pos(seed=seed)
        _setup_causeway(p, block_south=True)
        assert not _begin_assault(p)
        r = [e for e in p._events() if e["event"] == "retreat"][0]
        assert r["path"][0] == "Causeway Fort North"
        assert p.st[L.S_PHASE] < L.PH_LOSS and p.invariant()


@pytest.fixture(scope="module")
def g_comp():
    g = get_game("minas-tirith")
    return g, g.compile(g.load())


def test_mt_7_5_retreat_decisions_in_whole_games(g_comp):
    """MT-7.5 in the step machine: at every retreat decision the seat to move is the
    retreating side, every row is a legal step (strictly closer to its edge, no enemies),
    there are at least two, decision_kind is "retreat", the heuristic's scores pick the
    built-in greedy choice, and taking another row moves the force there."""
    g, comp = g_comp
    cf = comp.cf
    seen = 0
    for index in range(60):
        st = g.bind(comp).new_state({"good": "greedy", "evil": "greedy"}, 9, index)
        while not st.is_terminal():
            if st.st[L.S_PHASE] != L.PH_RETREAT:
                st.apply(st.builtin_choice())
                continue
            side = int(st.st[L.S_RT_SIDE])
            cur = int(st.st[L.S_RT_CUR])
            assert st.to_move == side and st.decision_kind() == "retreat"
            rows = st.legal_actions()
            assert rows.shape[0] >= 2
            doff = C.O_DEVIL if side == EVIL else C.O_DGOOD
            for r in rows:
                c = int(r[1])
                assert int(r[0]) == L.A_RETREAT and int(r[2]) == cur
                assert cf[doff + c] < cf[doff + cur]
                assert B.side_units_nb(cf, st.st, c, 1 - side) == 0
            assert st.heuristic_choice() == st.builtin_choice()
            k = rows.shape[0] - 1
            c = int(rows[k, 1])
            np_ = int(st.st[L.S_RT_NP])
            st.apply(k)
            assert int(st.st[L.O_PATH + np_]) == c       # the step went to the chosen territory
            assert st.invariant_ok()
            seen += 1
        if seen >= 25:
            break
    assert seen >= 25, seen


def test_mt_7_5_search_seat_is_asked_where_to_retreat(g_comp):
    """A seat held by a player from lotr_sim.players is stopped at its retreat decisions
    (run_builtin stops for it) and the decision's rows are the legal destinations."""
    g, comp = g_comp
    stops = 0
    for index in range(40):
        st = g.bind(comp).new_state({"good": "greedy", "evil": "search"}, 9, index)
        while st.run_builtin([1]) >= 0:
            if st.decision_kind() == "retreat":
                assert st.to_move == 1 == int(st.st[L.S_RT_SIDE])
                assert st.legal_actions().shape[0] >= 2
                stops += 1
            st.apply(st.heuristic_choice())
        if stops >= 3:
            break
    assert stops >= 3, stops
