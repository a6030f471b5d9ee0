"""Rules checked here rather than in test_mt_rules.py: MT-2.3, MT-4.3, MT-4.4, MT-5.1, MT-6.3, MT-7.1.

Each test checks the rule's behaviour (hand-made positions, the step machine, or whole games
read through their version-3 traces), so that a one-line change of the rule in the engine
makes it fail.
"""
from __future__ import annotations

import numpy as np

from lotr_sim.games.minas_tirith import cards as CD
from lotr_sim.games.minas_tirith import combat as CB
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.minas_tirith import play as P
from lotr_sim.games.minas_tirith import trace as TR
from lotr_sim.kernels.rng import stream_init_nb

SIDES = ("good", "evil")
PY = {"good": "search", "evil": "search"}     # both seats held in Python: every decision stops
FORTIFIED = {"Minas Tirith", "North Wall", "East Wall", "South Wall", "Rammas North Gate",
             "Rammas South Gate", "Causeway Fort North", "Causeway Fort South"}


def _rows(a):
    return [tuple(int(x) for x in r) for r in a]


# ---------------------------------------------------------------- MT-2.3
def test_mt_2_3_banners_stand_in_the_fortified_territories_and_only_there(pos):
    """MT-2.3: the Gondor banners stand in the territories with fixed fortifications (the city,
    its walls, the Rammas gates, the causeway forts) and nowhere else, and there - only there -
    they act: Good defends with the banner bonus (MT-8.2) and Evil shoots at them with
    evil_banner_divisor shooters per die (MT-7.2)."""
    p = pos()
    names = p.names["territories"]
    assert {names[t] for t in range(len(names)) if p.cf[C.O_BANNER + t] == 1} == FORTIFIED
    kinds = {names[t]: C.TERR_KINDS[p.cf[C.O_TKIND + t]] for t in range(len(names))}
    assert all(kinds[t] in ("city", "wall") or "Gate" in t or "Fort" in t for t in FORTIFIED)
    bonus = int(p.cf[C.P_BANNER_BONUS])
    assert bonus == 1
    checked = set()
    for b in range(len(names)):
        for j in range(int(p.cf[C.O_NBN + b])):
            a = int(p.cf[C.O_NB + b * C.MAXDEG + j])
            # an Evil assault from a (no leaders anywhere): Good's defence bonus at b
            _ab, db, _wk = CB.assault_bonus_nb(p.cf, p.st, np.int64(1), np.int64(a), np.int64(b))
            assert db == (bonus if names[b] in FORTIFIED else 0), (names[a], names[b])
            # a Good assault gets no banner bonus, wherever it comes from (the banner is Good's)
            _ab, db, _wk = CB.assault_bonus_nb(p.cf, p.st, np.int64(0), np.int64(b), np.int64(a))
            assert db == 0
            checked.add(b)
    assert len(checked) == len(names)
    # Evil's shooters against a banner: 2 crossbowmen make one die at a fortified territory,
    # two dice at an open one
    for target, dice in (("Causeway Fort North", 1), ("Causeway", 2)):
        q = pos()
        q.set_units("West Osgiliath", "evil", "crossbow", 2)
        q.set_units(target, "good", "infantry", 3)
        b = [e for e in q.bombard("West Osgiliath", target, 2, side="evil") if e["event"] == "bombard"][0]
        assert b["dice"] == dice and b["banner"] is (dice == 1)


# ---------------------------------------------------------------- MT-4.3 / MT-4.4
def _die_decisions(game, comp, seed, index):
    """Play greedy-greedy through the step machine, both seats stopping at every decision;
    returns [(round, turn in round, seat, dice offered)] of the mission-die decisions."""
    state = game.bind(comp).new_state(PY, seed, index)
    out = []
    while state.run_builtin([0, 1]) >= 0:
        if state.decision_kind() == "die":
            rows = state.legal_actions()
            out.append((int(state.st[L.S_ROUND]), int(state.st[L.S_TIR]), state.to_move,
                        sorted(int(r[2]) for r in rows)))
        state.apply(state.heuristic_choice())
    return out


def test_mt_4_3_even_rounds_evil_rolls_and_plays_evil_good_evil(game, comp):
    """MT-4.3: round 2 (every even round) Evil rolls and the order is Evil, Good, Evil; odd
    rounds Good, Evil, Good. The roller picks first among the three dice; the others pick among
    what is left (the step machine asks the seat whose turn it is)."""
    rounds = set()
    for index in range(4):
        seen = _die_decisions(game, comp, 11, index)
        for rnd, k, seat, offered in seen:
            roller = 0 if rnd % 2 == 1 else 1
            assert seat == (roller if k != 2 else 1 - roller), (index, rnd, k)
            assert len(offered) == 4 - k
            rounds.add(rnd)
        # the trace agrees: the turn that rolls the round's dice is the roller's
        _row, events = game.play(comp, {"good": "greedy", "evil": "greedy"}, 11, index)
        for e in events:
            if e["event"] == "turn_start" and "dice_rolled" in e:
                assert e["side"] == ("good" if e["round"] % 2 == 1 else "evil")
    assert {1, 2, 3, 4} <= rounds


def test_mt_4_4_a_turn_is_die_then_draw_then_trade_then_missions(game, comp):
    """MT-4.4: a turn is four steps in this order - choose a mission die, draw reinforcement
    cards (6 - die, MT-4.5), trade cards, battles and missions. For a seat held in Python the
    steps are its decisions: a die, then card plays, then actions, never back; a greedy
    built-in seat holding a set after its draw trades it before its first mission."""
    seq_checked = 0
    for index in range(3):
        state = game.bind(comp).new_state(PY, 2, index, trace=True)
        while state.run_builtin([0, 1]) >= 0:
            state.apply(state.heuristic_choice())
        ev = TR.decode(comp, state.tr, index)
        step = None
        for j, e in enumerate(ev):
            if e["event"] == "decision" and e["kind"] == "die":
                assert ev[j + 1]["event"] == "turn_start"        # step 2 follows step 1 at once
                step = 1
            elif e["event"] == "decision" and e["kind"] == "card":
                assert step in (1, 2) and e["seat"] == e["side"], j   # step 3 before step 4
                step = 2
                seq_checked += 1
            elif e["event"] == "decision" and e["kind"] == "action" and e["seat"] == e["side"]:
                step = 3
            elif e["event"] in ("trade", "load"):
                assert step in (1, 2), j
    assert seq_checked > 10
    mission = ("move", "assault", "bombard", "exchange", "card_played")
    traded = 0
    for index in range(10):
        _row, events = game.play(comp, {"good": "greedy", "evil": "greedy"}, 2, index)
        for j, e in enumerate(events):
            if e["event"] != "turn_start":
                continue
            hand = [c["type"] for c in e["hands"][e["side"]]]
            n = {k: hand.count(k) for k in ("infantry", "cavalry", "creature", "joker")}
            has_set = any(n[k] + n["joker"] >= 3 and (n[k] >= 1 or k == "infantry")
                          for k in ("infantry", "cavalry", "creature"))
            if not has_set or events[j + 1]["event"] == "game_end":
                continue
            rest = events[j + 1:]
            first_mission = next((i for i, x in enumerate(rest) if x["event"] in mission
                                  and not (x["event"] == "card_played" and x["effect"] == "muster")), len(rest))
            assert any(x["event"] == "trade" for x in rest[:first_mission]), (index, e["turn"])
            traded += 1
    assert traded > 10


# ---------------------------------------------------------------- MT-5.1
def test_mt_5_1_drawn_cards_lie_in_front_of_their_owner(pos):
    """MT-5.1: the cards a side draws go to that side's hand (in front of its owner), the top
    cards of the deck in order; the opponent's hand does not change."""
    p = pos()
    p.hand("evil", ["infantry", "cavalry"])
    before_evil = [int(x) for x in p.st[L.O_HAND + L.HMAX: L.O_HAND + L.HMAX + 2]]
    top = int(p.st[L.S_DTOP])
    deck = [int(p.st[L.O_DORD + top + k]) for k in range(4)]
    p.st[L.S_HN + 0] = 0
    n = CD.draw_cards_nb(p.cf, p.st, np.int64(0), np.int64(4))
    assert n == 4 and int(p.st[L.S_HN + 0]) == 4 and int(p.st[L.S_HN + 1]) == 2
    assert [int(x) for x in p.st[L.O_HAND: L.O_HAND + 4]] == deck
    assert [int(x) for x in p.st[L.O_HAND + L.HMAX: L.O_HAND + L.HMAX + 2]] == before_evil
    assert int(p.st[L.S_DTOP]) == top + 4


def test_mt_5_1_hands_are_open_and_stay_with_their_owner_in_whole_games(game, comp):
    """MT-5.1 in whole games: every snapshot shows both hands (face up); each turn's drawn cards
    are in the drawing side's hand and in no other place; a card is never in two hands."""
    for index in range(8):
        _row, events = game.play(comp, {"good": "random", "evil": "greedy"}, 14, index)
        snaps = [e for e in events if e["event"] in ("setup", "turn_start")]
        assert all(set(e["hands"]) == {"good", "evil"} for e in snaps)
        for e in snaps[1:]:
            mine = [c["id"] for c in e["hands"][e["side"]]]
            theirs = [c["id"] for c in e["hands"][SIDES[1 - SIDES.index(e["side"])]]]
            assert set(e["drawn_ids"]) <= set(mine) and not set(e["drawn_ids"]) & set(theirs)
            assert not set(mine) & set(theirs) and len(set(mine)) == len(mine)
        assert game.replay_check(comp, events) == len(snaps) - 1


# ---------------------------------------------------------------- MT-6.3
def test_mt_6_3_no_move_of_any_kind_into_enemy_units(pos):
    """MT-6.3: no unit moves into a territory holding enemy units - not a move (MT-6.2 a/b),
    not the cavalry's second step (MT-6.2 c), not a leader alone (MT-6.2 d), not a holder
    card's force (MT-6.2 e-g, MT-9.5); such a territory is attacked instead (MT-7.3)."""
    p = pos()
    p.set_units("Pelennor North", "good", "cavalry", 3)
    p.set_units("Gate Field", "good", "infantry", 1)
    p.set_units("Causeway", "evil", "infantry", 2)
    p.put_leader("Denethor", "Pelennor North")
    gf, cw = p.t("Gate Field"), p.t("Causeway")
    acts = _rows(p.actions("good"))
    assert any(a[0] == L.A_ASSAULT and a[1] == gf and a[2] == cw for a in acts)
    assert not any(a[0] == L.A_MOVE and a[2] == cw for a in acts)
    assert not any(a[0] == L.A_CAV2 and (a[5] == cw or a[2] == cw) for a in acts)
    assert any(a[0] == L.A_CAV2 and a[2] == gf for a in acts)       # the double move exists
    assert not any(a[0] == L.A_LMOVE and a[2] == cw for a in acts)
    # a holder card's force may not land on an entry territory held by the enemy
    q = pos()
    q.set_units("Minas Tirith", "good", "infantry", 1)
    c = q.give_card("good", "Theoden and the Riders of Rohan")
    q.hand("good", ["cavalry"])
    q.card_phase("good")
    free = {q.names["territories"][a[2]] for a in _rows(q.actions("good")) if a[0] == L.A_HOLDER and a[1] == c}
    assert "Anorien" in free
    q.set_units("Anorien", "evil", "infantry", 1)
    held = {q.names["territories"][a[2]] for a in _rows(q.actions("good")) if a[0] == L.A_HOLDER and a[1] == c}
    assert held == free - {"Anorien"}


def test_mt_6_3_whole_games_never_enter_enemy_territory(game, comp):
    """MT-6.3 in whole games, replayed from the trace: when a move, a placement or a retreat
    happens, no territory it enters holds enemy units (random players try every menu row)."""
    moves = 0
    for pols in ({"good": "random", "evil": "random"}, {"good": "greedy", "evil": "aggressive"}):
        for index in range(12):
            _row, events = game.play(comp, pols, 31, index)
            st = None
            for e in events:
                if e["event"] == "setup":
                    st = TR.snapshot_of(e)
                    continue
                if st is None:
                    continue
                if e["event"] in ("move", "place", "retreat"):
                    mover = e.get("retreating", e["side"])
                    enemy = SIDES[1 - SIDES.index(mover)]
                    where = e["path"][1:] if e["event"] == "move" else \
                        e["path"] if e["event"] == "retreat" else [e["territory"]]
                    for t in where:
                        assert not st["units"].get(t, {}).get(enemy), (index, e)
                    moves += 1
                if e["event"] == "turn_start":
                    st = TR.snapshot_of(e)
                else:
                    TR.apply_event(comp, st, e)
    assert moves > 500


# ---------------------------------------------------------------- MT-7.1
def _act_state(pos):
    p = pos()
    p.set_units("Gate Field", "good", "archer", 3)
    p.set_units("Gate Field", "good", "infantry", 3)
    p.set_units("Causeway", "evil", "infantry", 12)
    p.st[L.S_SIDE] = 0
    p.st[L.S_PHASE] = L.PH_ACT
    p.st[L.S_MISS] = 3
    return p


def _apply_to_next_action(p, kind):
    """Through the step machine: take the first row of ``kind`` at the action decision, then
    every loss decision the roll makes (built-in order), back to the next action decision."""
    cf, st = p.cf, p.st
    n = P.legal_nb(cf, st, p.act)
    i = next(k for k in range(n) if p.act[k, 0] == kind and p.act[k, 3] == 3)
    P.apply_nb(cf, p.comp.wp, p.pol, st, p.tr, p.act, p.scr, p.s, np.int64(i))
    decisions = 0
    while st[L.S_PHASE] >= L.PH_LOSS and st[L.S_OVER] == 0:
        n = P.legal_nb(cf, st, p.act)
        j = P.choose_nb(cf, p.comp.wp, p.pol, st, p.act, p.scr, p.s, n)
        P.apply_nb(cf, p.comp.wp, p.pol, st, p.tr, p.act, p.scr, p.s, np.int64(j))
        decisions += 1
    return decisions


def test_mt_7_1_bombardment_and_assault_cost_one_mission_point_each(pos):
    """MT-7.1: the two combat missions, bombardment and assault, cost one mission point each -
    whatever the number of shooters or attackers, and also when the roll's losses are the
    players' decisions (the turn goes on with the points left)."""
    with_losses = {L.A_BOMBARD: 0, L.A_ASSAULT: 0}
    for seed in range(12):
        for kind in (L.A_BOMBARD, L.A_ASSAULT):
            p = _act_state(pos)
            stream_init_nb(np.int64(seed), np.int64(kind), p.s)
            with_losses[kind] += _apply_to_next_action(p, kind) > 0
            assert int(p.st[L.S_MISS]) == 2 and int(p.st[L.S_PHASE]) == L.PH_ACT, (seed, kind)
            ev = p._events()
            assert sum(e["event"] in ("bombard", "assault") for e in ev) == 1
    assert with_losses[L.A_BOMBARD] > 0 and with_losses[L.A_ASSAULT] > 0


def test_mt_7_1_combat_comes_only_from_the_two_combat_missions(game, comp):
    """MT-7.1 in whole games: every bombard or assault event follows an action decision of that
    kind (1 point each: a turn's actions never outnumber its die), and every such decision makes
    exactly one."""
    n = 0
    for index in range(8):
        _row, events = game.play(comp, {"good": "random", "evil": "random"}, 5, index)
        last = None
        per_turn = {}
        for e in events:
            if e["event"] == "decision" and e["kind"] == "action":
                if last is not None:
                    assert last == "done", e
                last = {L.A_BOMBARD: "bombard", L.A_ASSAULT: "assault"}.get(e["row"][0], "done")
                if e["row"][0] != L.A_PASS:
                    per_turn[e["turn"]] = per_turn.get(e["turn"], 0) + 1
            elif e["event"] in ("bombard", "assault"):
                assert last == e["event"], e
                last = "done"
                n += 1
        dies = {e["turn"]: e["die"] for e in events if e["event"] == "turn_start"}
        assert all(k <= dies[t] for t, k in per_turn.items())
    assert n > 50
