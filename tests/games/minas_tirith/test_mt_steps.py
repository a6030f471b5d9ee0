"""The Minas Tirith step machine: the decisions it gives the players.

MT-4.2/4.5: the mission die is chosen among the round's unused dice. MT-7.2: bombardment
hits are taken one decision per hit, by the owner of the units (or by the shooter under
``bombard_loss_choice = shooter``), among the unit types present.
"""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.registry import get_game


def _until(g, comp, st, phase, limit=5000):
    for _ in range(limit):
        if st.is_terminal() or st.st[L.S_PHASE] == phase:
            return not st.is_terminal()
        st.apply(st.builtin_choice())
    return False


def _units(st, t, u):
    return int(st.st[L.O_UNITS + t * C.MAXU + u])


def test_mt_4_2_die_choice_lists_the_unused_dice(game, comp):
    st = game.bind(comp).new_state({"good": "greedy", "evil": "greedy"}, 1, 0)
    assert st.st[L.S_PHASE] == L.PH_DIE
    rows = st.legal_actions()
    assert [int(r[0]) for r in rows] == [L.A_DIE] * 3
    assert sorted(int(r[2]) for r in rows) == sorted(int(st.st[L.S_DICE + i]) for i in range(3))
    st.apply(2)          # the first player takes the third die
    # the second seat of the round chooses among the two left
    _until(game, comp, st, L.PH_DIE)
    rows = st.legal_actions()
    assert len(rows) == 2 and 2 not in [int(r[1]) for r in rows]


@pytest.mark.parametrize("choice", ["owner", "shooter"])
def test_mt_7_2_bombardment_losses_are_one_decision_per_hit(choice):
    g = get_game("minas-tirith")
    comp = g.compile(g.load(None, [f"bombard_loss_choice={choice}"]))
    seen = 0
    for index in range(40):
        st = g.bind(comp).new_state({"good": "greedy", "evil": "greedy"}, 3, index)
        while _until(g, comp, st, L.PH_LOSS):
            shooter = int(st.st[L.S_SIDE])
            owner = int(st.st[L.S_LOSS_SIDE])
            assert owner == 1 - shooter
            assert st.to_move == (owner if choice == "owner" else shooter)
            t = int(st.st[L.S_LOSS_T])
            rows = st.legal_actions()
            types = [int(r[1]) for r in rows]
            assert all(int(r[0]) == L.A_LOSE and int(r[2]) == t for r in rows)
            assert types and all(_units(st, t, u) > 0 for u in types)
            assert all(int(comp.cf[C.O_USIDE + u]) == owner for u in types)
            # the dearest type, not the heuristic's cheapest: exactly one of it goes
            k = len(rows) - 1
            u = types[k]
            before = _units(st, t, u)
            creature = int(comp.cf[C.O_UCLS + u]) == 2 and int(comp.cf[C.P_CREATURE_HITS]) > 1
            st.apply(k)
            assert _units(st, t, u) == before - (0 if creature else 1)
            seen += 1
            assert st.invariant_ok()
        if seen >= 30:
            break
    assert seen >= 30, "too few bombardments to check"


def test_mt_7_4_assault_losses_attacker_then_defender_each_chooses_its_own():
    """MT-7.4: after an assault roll the attacker loses units among those that attacked, then
    the defender among its units in the territory; each picks the type (one decision per
    loss), and the turn's seat does not change."""
    g = get_game("minas-tirith")
    comp = g.compile(g.load())
    seen = {L.PH_ALOSS: 0, L.PH_DLOSS: 0}
    for index in range(30):
        st = g.bind(comp).new_state({"good": "greedy", "evil": "greedy"}, 5, index)
        while not st.is_terminal():
            ph = int(st.st[L.S_PHASE])
            if ph in seen:
                attacker = int(st.st[L.S_AS_SIDE])
                assert int(st.st[L.S_SIDE]) == attacker
                loser = attacker if ph == L.PH_ALOSS else 1 - attacker
                assert st.to_move == loser == int(st.st[L.S_LOSS_SIDE])
                t = int(st.st[L.S_AS_A] if ph == L.PH_ALOSS else st.st[L.S_AS_B])
                rows = st.legal_actions()
                types = [int(r[1]) for r in rows]
                assert types and all(int(r[2]) == t and _units(st, t, u) > 0 for r, u in zip(rows, types))
                if ph == L.PH_ALOSS:   # only units that took part in the assault
                    assert all(int(st.st[L.O_SCA + u]) > 0 for u in types)
                k = len(rows) - 1
                lost = int(st.st[L.O_CAPT + types[k]])
                st.apply(k)   # (the last loss may be followed by a retreat or a move-in)
                assert int(st.st[L.O_CAPT + types[k]]) in (lost + 1, lost)
                assert st.invariant_ok()
                seen[ph] += 1
            else:
                st.apply(st.builtin_choice())
        if min(seen.values()) >= 20:
            break
    assert min(seen.values()) >= 20, seen


def test_search_player_decides_losses_as_the_owner(game, comp):
    """The driver stops for a search seat when it is that seat's losses to choose."""
    st = game.bind(comp).new_state({"good": "search", "evil": "greedy"}, 3, 0)
    stops = set()
    for _ in range(400):
        seat = st.run_builtin([0])
        if seat < 0:
            break
        stops.add(int(st.st[L.S_PHASE]))
        assert st.to_move == 0
        st.apply(st.heuristic_choice())
    assert {L.PH_DIE, L.PH_ACT} <= stops
    assert np.isin(list(stops), [L.PH_DIE, L.PH_ACT, L.PH_LOSS, L.PH_ALOSS, L.PH_DLOSS, L.PH_RETREAT,
                                 L.PH_CARD]).all()   # PH_CARD: its card step (MT-5)


def test_position_do_takes_deferred_losses_in_the_builtin_order(pos):
    """``Position.do`` (hand-made positions) resolves the losses an action leaves as
    decisions, in the engine's order: the same as ``Position.bombard`` on the same dice."""
    hit = 0
    for index in range(12):
        outs = []
        for via_do in (False, True):
            p = pos(index=index)
            p.set_units("Pelennor North", "evil", "crossbow", 3)
            p.set_units("East Wall", "good", "archer", 1)
            p.set_units("East Wall", "good", "infantry", 2)
            if via_do:
                p.do("evil", L.A_BOMBARD, p.t("Pelennor North"), p.t("East Wall"), 3)
            else:
                p.bombard("Pelennor North", "East Wall", 3, side="evil")
            assert p.st[L.S_PHASE] < L.PH_LOSS and p.invariant()
            outs.append((p.units("East Wall", "good", "infantry"), p.units("East Wall", "good", "archer")))
        assert outs[0] == outs[1]
        hit += outs[0] != (2, 1)
    assert hit > 0, "no bombardment hit: the test checked nothing"
