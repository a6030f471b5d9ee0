"""Trace version 3: every rule auditable from the trace.

The decisions of the step machine with the seat that took them (whoever took them: a built-in
player inside the engine's loop, or a seat held in Python through ``apply``), the hands in the
snapshots, the cards a trade, a load or the hand limit used, and who fired in a bombardment.
Writing them changes no game: outcomes with and without a trace are identical, and the logged
choices, fed back through ``apply``, replay the game.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.minas_tirith.trace import decode

PY = {"good": "search", "evil": "search"}     # both seats held in Python (heuristic choices below)
KINDS = {"die", "action", "loss", "retreat", "card"}


def _same_rows(a, b):
    assert set(a) == set(b)
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def _python_game(game, comp, seed, index, trace):
    """Both seats held in Python, each decision the seat's greedy heuristic (no draws)."""
    state = game.bind(comp).new_state(PY, seed, index, trace=trace)
    while state.run_builtin([0, 1]) >= 0:
        state.apply(state.heuristic_choice())
    return state


@pytest.mark.parametrize("good,evil,sets", [
    ("greedy", "greedy", ()), ("random", "random", ()), ("aggressive", "cautious", ()),
    ("greedy", "random", ("bombard_loss_choice=shooter", "creature_hits=2", "end_on_last_card=end_of_turn")),
])
@pytest.mark.slow
def test_trace_on_and_off_give_identical_outcomes(game, good, evil, sets):
    """A traced game (``play``) has the outcome row of the same game simulated without a trace."""
    comp = game.compile(game.load(None, list(sets)))
    pols = {"good": good, "evil": evil}
    first, n = 30, 25
    sim = game.simulate(comp, pols, 17, first, n, threads=1)
    for i in range(n):
        row, events = game.play(comp, pols, 17, first + i)
        assert sum(e["event"] == "decision" for e in events) > 10
        _same_rows(row, {k: v[i:i + 1] for k, v in sim.items()})


def test_trace_on_and_off_identical_for_python_held_seats(game, comp):
    """Seats held in Python (decisions logged by ``apply``): the whole final state is the same
    with and without a trace (which keeps its own header, kernels.tracebuf)."""
    for index in range(4):
        on = _python_game(game, comp, 3, index, True)
        off = _python_game(game, comp, 3, index, False)
        assert np.array_equal(on.st, off.st), index
        ev = decode(comp, on.tr, index)
        assert {e["kind"] for e in ev if e["event"] == "decision"} >= {"die", "action", "card"}


def _replay(game, comp, pols, seed, index, decisions, builtin=False):
    """Feed the logged decisions back through ``apply``; each must be legal and the same
    decision (seat, kind, number of rows, row) as logged. Returns the final state."""
    state = game.bind(comp).new_state(pols, seed, index)
    stop = list(range(len(game.seat_names(comp))))
    for k, d in enumerate(decisions):
        assert state.run_builtin(stop) >= 0, f"game over before decision {k}"
        rows = state.legal_actions()
        assert game.seat_names(comp)[state.to_move] == d["seat"], k
        assert state.decision_kind() == d["kind"], k
        assert rows.shape[0] == d["n_legal"], k
        assert [int(x) for x in rows[d["choice"]]] == d["row"], k
        if builtin:   # a random player draws as it chooses: make the same draw
            assert state.builtin_choice() == d["choice"], k
        state.apply(d["choice"])
    assert state.is_terminal()
    return state


@pytest.mark.parametrize("good,evil", [("greedy", "greedy"), ("aggressive", "cautious"), ("cautious", "greedy")])
def test_logged_decisions_replay_the_game(game, comp, good, evil):
    """Heuristic players draw nothing when they decide: their logged choices, fed back through
    ``apply`` from the same seed, give the same game (every decision, then the same result)."""
    pols = {"good": good, "evil": evil}
    for index in range(6):
        row, events = game.play(comp, pols, 21, index)
        dec = [e for e in events if e["event"] == "decision"]
        assert {d["kind"] for d in dec} <= KINDS and {"die", "action", "loss"} <= {d["kind"] for d in dec}
        state = _replay(game, comp, pols, 21, index, dec)
        _same_rows(state.result(), row)


def test_logged_decisions_replay_a_random_players_game(game, comp):
    """The random player draws from the game's stream when it chooses: replayed with that same
    draw (``builtin_choice``) at each logged decision, the choices and the game are the same."""
    pols = {"good": "random", "evil": "greedy"}
    for index in range(4):
        row, events = game.play(comp, pols, 8, index)
        state = _replay(game, comp, pols, 8, index, [e for e in events if e["event"] == "decision"], True)
        _same_rows(state.result(), row)


def test_python_held_decisions_are_logged_and_replay(game, comp):
    """Every ``apply`` on a traced state logs one decision (card decisions included), and the
    choices replay the game through ``apply`` on an untraced state."""
    for index in range(3):
        state = game.bind(comp).new_state(PY, 4, index, trace=True)
        applied = []
        while state.run_builtin([0, 1]) >= 0:
            i = state.heuristic_choice()
            applied.append((game.seat_names(comp)[state.to_move], state.decision_kind(), i))
            state.apply(i)
        ev = decode(comp, state.tr, index)
        dec = [e for e in ev if e["event"] == "decision"]
        assert [(d["seat"], d["kind"], d["choice"]) for d in dec] == applied
        end = _replay(game, comp, PY, 4, index, dec)
        _same_rows(end.result(), state.result())


def test_decision_events_order_and_fields(game, comp):
    """A decision comes right before what it does: a die decision before its turn_start (with
    missions = the die's face, MT-4.5), a bombardment row before its bombard event, a loss row
    before the capture of the unit type it names; an action's seat is the side whose turn it is."""
    _row, events = game.play(comp, {"good": "random", "evil": "random"}, 2, 9)
    for j, e in enumerate(events):
        if e["event"] != "decision":
            continue
        assert 0 <= e["choice"] < e["n_legal"] and len(e["row"]) == 6
        if e["kind"] == "die":
            nxt = events[j + 1]
            assert nxt["event"] == "turn_start" and nxt["die"] == e["row"][2] and nxt["side"] == e["seat"]
        elif e["kind"] == "action":
            assert e["seat"] == e["side"]
            if e["row"][0] == L.A_BOMBARD:
                nxt = events[j + 1]
                assert nxt["event"] == "bombard" and nxt["shooters"] == e["row"][3]
        elif e["kind"] == "loss":
            # the next capture is of the unit type the row names (MT-7.2/7.4)
            cap = next(x for x in events[j + 1:] if x["event"] == "capture")
            assert cap["unit"] == comp.names["unit_types"][e["row"][1]]


def test_hands_follow_the_events_and_the_check_can_fail(game, comp):
    """The hands in the snapshots follow from the draws, trades, loads and discards (the replay
    check compares them), and a trade naming a card not in the hand is caught."""
    n = 0
    for index in range(6):
        _row, events = game.play(comp, {"good": "greedy", "evil": "random"}, 12, index)
        assert game.replay_check(comp, events) > 0
        assert events[1]["event"] == "setup" and events[1]["hands"] == {"good": [], "evil": []}
        for e in events:
            if e["event"] == "trade":
                assert len(e["card_ids"]) == 3 and [c["type"] for c in e["cards"]] == \
                    [comp.names["deck_types"][c] for c in e["card_ids"]]
                n += 1
    assert n > 10
    _row, events = game.play(comp, {"good": "greedy", "evil": "random"}, 12, 0)
    bad = copy.deepcopy(events)
    t = next(e for e in bad if e["event"] == "trade")
    t["card_ids"][0] = next(c for c in range(66) if c not in t["card_ids"]
                            and all(c != x["id"] for x in _hand_before(bad, t)))
    with pytest.raises(AssertionError):
        game.replay_check(comp, bad)


def _hand_before(events, t):
    """The trading side's hand at the turn_start before event ``t``."""
    ts = [e for e in events[: events.index(t)] if e["event"] == "turn_start"][-1]
    return ts["hands"][t["side"]]


def test_loads_name_the_card_traded(game, comp):
    """MT-5.5: a load names the hand card it used; its type gives the unit loaded."""
    from lotr_sim.games.minas_tirith.cards import card_unit_types_nb
    n = 0
    for index in range(10):
        _row, events = game.play(comp, {"good": "random", "evil": "random"}, 6, index)
        for e in events:
            if e["event"] != "load":
                continue
            n += 1
            hc = e["hand_card"]
            side = 0 if e["side"] == "good" else 1
            nm = comp.names
            u = next(k for k, (t, sd) in enumerate(zip(nm["unit_types"], nm["unit_sides"]))
                     if t == next(iter(e["units"])) and sd == e["side"])
            ctype = ("infantry", "cavalry", "creature", "joker").index(hc["type"])
            assert card_unit_types_nb(comp.cf, side, ctype, u)
    assert n > 5


def test_bombard_names_who_fired(game, comp, pos):
    """MT-6.1 / MT-7.2 / MT-9.4: a bombardment logs its archers (standing at ``from``, not
    fired before this turn) and its catapult; shooters = archers + the catapult."""
    seen_cat = 0
    for index in range(25):
        _row, events = game.play(comp, {"good": "random", "evil": "random"}, 4, index)
        cat_fired: set = set()
        for e in events:
            if e["event"] == "turn_start":
                cat_fired = set()
            if e["event"] != "bombard":
                continue
            assert e["shooters"] == e["archers"] + (e["catapult"] is not None)
            assert e["archers"] + e["archers_fired_before"] <= sum(e["archers_at"].values())
            if e["catapult"] is not None:
                seen_cat += 1
                assert e["catapult"] not in cat_fired       # once per turn (MT-9.4)
                cat_fired.add(e["catapult"])
    assert seen_cat > 0
    p = pos()
    p.set_units("North Wall", "good", "archer", 1)
    p.set_units("East Fields", "evil", "infantry", 5)
    c = p.give_card("good", "Catapult")
    p.do("good", L.A_CATAPULT, c, p.t("North Wall"))
    p.bombard("North Wall", "East Fields", 1, side="good")          # the archer fires first
    b = [e for e in p.bombard("North Wall", "East Fields", 2, side="good") if e["event"] == "bombard"][0]
    assert b["archers"] == 0 and b["shooters"] == 1 and b["catapult"].startswith("Catapult")
    assert b["archers_at"] == {"archer": 1} and b["archers_fired_before"] == 1


def test_search_seat_game_logs_both_seats_and_replays(game, comp):
    """A traced game with the search player in one seat (``play``: its decisions go through
    ``apply``, the other seat's inside the engine): both seats' decisions are logged, the
    search seat's card steps too, and the logged choices replay the game through ``apply``."""
    for seat in ("good", "evil"):
        pols = {"good": "greedy", "evil": "greedy", seat: "search-fast"}
        for index in range(1, 11):     # the first game in which the search seat has a card step
            row, events = game.play(comp, pols, 3, index)
            dec = [e for e in events if e["event"] == "decision"]
            assert {d["seat"] for d in dec} == {"good", "evil"}
            cards = {d["seat"] for d in dec if d["kind"] == "card"}
            assert cards <= {seat}             # built-in seats make their card steps in the engine
            if cards:
                break
        assert cards == {seat}, f"no card step of the search seat {seat} in 10 games"
        end = _replay(game, comp, pols, 3, index, dec)
        _same_rows(end.result(), row)
        assert game.replay_check(comp, events) > 0


def test_account_shows_hands_cards_and_shooters_not_decisions(game, comp):
    """The readable account (``lotr-sim play``) shows the hand after each draw, the cards of a
    trade and who fired, and leaves the decision events out."""
    _row, events = game.play(comp, {"good": "greedy", "evil": "greedy"}, 1, 4)
    text = game.account(events)
    assert "\n  hand: " in text and "trades a set of" in text and "archer(s))" in text
    assert "decision" not in text and "'row'" not in text
