"""LOTR Risk: the choices the rules give a player that is not the one whose turn it is, made
as decisions of the step machine by the seat that takes them - the defender's dice (LR-5.2),
the defender's "Courage Alone Will Not Save You" (LR-9.3), "Smeagol" and "A Balrog is Come"
when the Fellowship moves (LR-9.3, LR-10.4): each a decision of its seat with its options,
traced, with the heuristic's rule as greedy's choice and a weight for the tuned player."""
from __future__ import annotations

import pytest

from test_lr_rules import GREEDY, T, _attack, blank, give, put

from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.lotr_risk.game import TABLE
from lotr_sim.games.lotr_risk.trace import decode
from lotr_sim.games.registry import get_game
from lotr_sim.kernels.rng import stream_init_nb

G = get_game("lotr-risk")


@pytest.fixture(scope="module")
def comp():
    return G.compile(G.load())


def _events(comp, s, kind=None):
    return [e for e in decode(comp, s.tr, 0) if kind is None or e["event"] == kind]


def _rows(comp, s):
    return [tuple(int(x) for x in r) for r in s.legal_actions()]


def _pick(comp, s, row):
    """Apply the legal row ``row`` (a tuple)."""
    rows = _rows(comp, s)
    assert row in rows, (row, rows)
    s.apply(rows.index(row))


def _front(comp, att, dfn, seed=0, trace=True):
    """p1 (seat 0) in The Shire with ``att`` battalions, p2 (seat 1) in Buckland with ``dfn``."""
    s = blank(comp, trace=trace)
    stream_init_nb(11, seed, s.s)
    sh, bk = T(comp, "The Shire"), T(comp, "Buckland")
    put(s, sh, 0, att)
    put(s, bk, 1, dfn)
    return s, sh, bk


# ---- LR-5.2: the defender chooses 1 or 2 dice ------------------------------------------------------------
@pytest.mark.parametrize("dice", [1, 2])
def test_lr_5_2_the_defender_chooses_one_or_two_dice(comp, dice):
    """LR-5.2 "Kast lige så mange terninger som det antal bataljoner, du forsvarer med (1 eller
    2)": against 3 red dice a defender of 3 battalions decides (the seat to move is its own,
    the decision kind "dice", rows 1 and 2); the roll then has its dice, and the attacker's
    turn goes on."""
    s, sh, bk = _front(comp, 10, 3)
    _attack(comp, s, sh, bk, 3)
    assert s.st[L.S_PHASE] == L.PH_DDICE and s.to_move == 1 and s.decision_kind() == "dice"
    assert _rows(comp, s) == [(L.A_DDICE, 1, 0, 0), (L.A_DDICE, 2, 0, 0)]
    assert not _events(comp, s, "attack")                       # nothing rolled yet
    _pick(comp, s, (L.A_DDICE, dice, 0, 0))
    roll = _events(comp, s, "attack")
    assert len(roll) == 1 and roll[0]["def_dice"] == dice and roll[0]["att_dice"] == 3
    assert roll[0]["att_losses"] + roll[0]["def_losses"] == dice
    assert s.to_move == 0 and s.st[L.S_PHASE] == L.PH_ATTACK
    dec = _events(comp, s, "decision")
    assert [(e["seat"], e["kind"], e["n_legal"], e["row"]) for e in dec][-1] == ("p2", "dice", 2, [L.A_DDICE, dice, 0, 0])
    assert s.invariant_ok()


@pytest.mark.parametrize("att,dfn,dice,owner", [(10, 1, 3, 1), (10, 3, 1, 1), (10, 3, 3, C.NEUTRAL)])
def test_lr_5_2_no_dice_decision_when_one_die_is_all_it_may_roll(comp, att, dfn, dice, owner):
    """LR-5.2: a decision only where it can matter: not for a defender of 1 battalion, not
    against 1 red die ("Hvis angriberen kun kaster en terning, må du også kun kaste en
    terning"), and not for the neutral army, which never decides (LR-5.8: it rolls the most)."""
    s, sh, bk = _front(comp, att, dfn)
    put(s, bk, owner, dfn)
    _attack(comp, s, sh, bk, dice)
    assert s.st[L.S_PHASE] in (L.PH_ATTACK, L.PH_MOVEIN) and s.to_move == 0
    roll = _events(comp, s, "attack")
    assert len(roll) == 1 and roll[0]["def_dice"] == min(2, dfn, dice)


def test_lr_5_2_greedy_defends_with_the_most_dice(comp):
    s, sh, bk = _front(comp, 10, 5)
    _attack(comp, s, sh, bk, 2)
    assert _rows(comp, s)[s.heuristic_choice()] == (L.A_DDICE, 2, 0, 0)
    assert _rows(comp, s)[s.builtin_choice()] == (L.A_DDICE, 2, 0, 0)


# ---- LR-9.3: Courage Alone Will Not Save You, the defender's card ------------------------------------------
@pytest.mark.parametrize("play", [False, True])
def test_lr_9_3_courage_is_the_defenders_decision_play_or_keep(comp, play):
    """LR-9.3 (magtkort "kan spilles under en anden spillers tur"): when an attack on its
    territory is about to roll, the holder of Courage decides - keep it, or play it (+4
    battalions there, the card scores its point, LR-9.3) - and then chooses its dice."""
    s, sh, bk = _front(comp, 10, 3)
    i = give(comp, s, 1, C.K_COURAGE)
    _attack(comp, s, sh, bk, 3)
    assert s.st[L.S_PHASE] == L.PH_COURAGE and s.to_move == 1 and s.decision_kind() == "courage"
    assert _rows(comp, s) == [(L.A_PASS, 0, 0, 0), (L.A_POWER, i, bk, 0)]
    _pick(comp, s, (L.A_POWER, i, bk, 0) if play else (L.A_PASS, 0, 0, 0))
    assert s.st[L.O_TROOPS + bk] == (7 if play else 3)
    assert s.st[L.O_AHN + 1] == (0 if play else 1)
    assert s.st[L.O_ASCORE + 1] == (comp.cf[C.P_PPTS] if play else 0)
    assert s.st[L.S_PHASE] == L.PH_DDICE and s.to_move == 1     # then its dice
    _pick(comp, s, (L.A_DDICE, 2, 0, 0))
    assert s.to_move == 0 and len(_events(comp, s, "attack")) == 1
    power = [e for e in _events(comp, s, "adventure") if e["what"] == "power"]
    assert [(e["player"], e.get("target")) for e in power] == ([("p2", "Buckland")] if play else [])
    assert s.invariant_ok()


def test_lr_9_3_courage_is_asked_again_at_the_next_roll_while_kept(comp):
    """A kept card stays playable: the holder is asked before each roll against it."""
    s, sh, bk = _front(comp, 30, 8)
    give(comp, s, 1, C.K_COURAGE)
    asked = 0
    for _ in range(3):
        _attack(comp, s, sh, bk, 3)
        assert s.st[L.S_PHASE] == L.PH_COURAGE
        asked += 1
        _pick(comp, s, (L.A_PASS, 0, 0, 0))
        if s.st[L.S_PHASE] == L.PH_DDICE:
            _pick(comp, s, (L.A_DDICE, 2, 0, 0))
    assert asked == 3 and s.st[L.O_AHN + 1] == 1


def test_lr_9_3_greedy_plays_courage_at_even_odds_for_the_attacker_and_tuned_has_a_weight(comp):
    """Greedy's rule (the engine's fixed rule before it was a decision): play Courage when the
    attack fought to the end takes the territory with P >= 0.5, else keep it. The weight
    ``cour`` (greedy 0.5) is that threshold: 0 plays it always, 1 only against a certain loss."""
    s, sh, bk = _front(comp, 20, 3)
    give(comp, s, 1, C.K_COURAGE)
    _attack(comp, s, sh, bk, 3)
    assert _rows(comp, s)[s.heuristic_choice()][0] == L.A_POWER
    assert _rows(comp, s)[s.builtin_choice()][0] == L.A_POWER
    s, sh, bk = _front(comp, 4, 8)
    give(comp, s, 1, C.K_COURAGE)
    _attack(comp, s, sh, bk, 3)
    assert _rows(comp, s)[s.builtin_choice()][0] == L.A_PASS
    assert TABLE.rows("greedy")["evil"][L.PL_COUR] == 0.5
    s.arrays["pol"][1, L.PL_COUR] = 0.0
    assert _rows(comp, s)[s.builtin_choice()][0] == L.A_POWER
    assert "cour" in {w.name for w in TABLE.weights}


def test_lr_9_3_no_courage_after_a_withdrawal_against_the_same_attack(comp):
    """One "when attacked" card per declaration: a defender that withdrew (Strategic
    Withdrawal) is not asked for Courage against that roll (nor for dice: 1 battalion left)."""
    s, sh, bk = _front(comp, 10, 6)
    of = T(comp, "Old Forest")
    put(s, of, 1, 2)
    w = give(comp, s, 1, C.K_WITHDRAW)
    give(comp, s, 1, C.K_COURAGE)
    _attack(comp, s, sh, bk, 3)
    assert s.st[L.S_PHASE] == L.PH_WITHDRAW
    _pick(comp, s, (L.A_POWER, w, of, 0))
    assert s.to_move == 0 and len(_events(comp, s, "attack")) == 1


# ---- LR-9.3 / LR-10.4: Smeagol and A Balrog is Come, when the Fellowship moves -----------------------------
def _ring_state(comp, seed, k, step_name, cards):
    """End of p1's turn with the Ring on ``step_name``; ``cards`` [(seat, kind)] given; p1 leads
    on points (6 territories against 1)."""
    s = blank(comp, trace=True)
    stream_init_nb(seed, k, s.s)
    for t in range(6):
        put(s, t, 0, 2)
    put(s, T(comp, "Fornost"), 1, 2)
    s.st[L.O_LEAD + 0] = 0
    s.st[L.O_LEAD + 2] = T(comp, "Fornost")
    idx = [give(comp, s, seat, kind) for seat, kind in cards]
    s.st[L.S_RING] = comp.names["path"].index(step_name)
    s.st[L.S_PHASE] = L.PH_FORT
    s.st[L.S_FORT] = 0
    s.n_legal = -1
    assert _rows(comp, s)[0][0] == L.A_PASS
    s.apply(0)                       # p1 ends its turn: the Fellowship moves
    return s, idx


def test_lr_9_3_smeagol_is_its_holders_decision_when_two_more_move_the_ring(comp):
    """LR-9.3 / LR-10.2: on a marked territory, when the die fails but +2 would move the Ring,
    the holder of Smeagol (here p2, not the player whose turn ends) decides: play (+2, the
    Ring moves, the card scores) or keep. No decision when +2 changes nothing."""
    lorien = comp.names["path"].index("Lorien")
    asked = {True: 0, False: 0}
    for k in range(60):
        play = bool(k % 2)
        s, (i,) = _ring_state(comp, 3, k, "Lorien", [(1, C.K_SMEAGOL)])
        die = int(s.st[L.S_FDIE])
        if s.st[L.S_PHASE] != L.PH_SMEAGOL:
            assert die not in (2, 3) and s.st[L.O_AHN + 1] == 1
            continue
        assert die in (2, 3) and s.to_move == 1 and s.decision_kind() == "smeagol"
        assert _rows(comp, s) == [(L.A_PASS, 0, 0, 0), (L.A_POWER, i, 0, 0)]
        assert not _events(comp, s, "fellowship")              # decided before the Ring moves
        _pick(comp, s, (L.A_POWER, i, 0, 0) if play else (L.A_PASS, 0, 0, 0))
        ring = _events(comp, s, "fellowship")[-1]
        assert ring["roll"] == die and ring["moved"] == play and ring["modifier"] == (2 if play else 0)
        assert int(s.st[L.S_RING]) == lorien + (1 if play else 0)
        assert s.st[L.O_AHN + 1] == (0 if play else 1)
        assert s.to_move == 1 and s.st[L.S_TURN] == 1       # p2's turn begins
        asked[play] += 1
    assert asked[True] >= 3 and asked[False] >= 3


def test_lr_9_3_smeagol_holders_are_asked_in_seat_order_until_one_plays(comp):
    """Two copies (deck_smeagol 2): p1 is asked first; when it keeps, p2 is asked; once one
    plays nobody else is. Greedy plays Smeagol when it leads on points (ties lead), else keeps."""
    comp2 = G.compile(G.load(overrides={"deck_smeagol": 2}))
    for k in range(60):
        s, (i0, i1) = _ring_state(comp2, 4, k, "Lorien", [(0, C.K_SMEAGOL), (1, C.K_SMEAGOL)])
        if s.st[L.S_PHASE] != L.PH_SMEAGOL:
            continue
        assert s.to_move == 0
        assert _rows(comp2, s)[s.builtin_choice()][0] == L.A_POWER      # p1 leads
        _pick(comp2, s, (L.A_PASS, 0, 0, 0))
        assert s.st[L.S_PHASE] == L.PH_SMEAGOL and s.to_move == 1
        assert _rows(comp2, s)[s.builtin_choice()][0] == L.A_PASS       # p2 does not
        s.arrays["pol"][1, L.PL_SMEA] = -10.0                                     # ... unless its weight says so
        assert _rows(comp2, s)[s.builtin_choice()][0] == L.A_POWER
        _pick(comp2, s, (L.A_POWER, i1, 0, 0))
        assert s.st[L.S_PHASE] != L.PH_SMEAGOL and s.st[L.O_AHN + 0] == 1 and s.st[L.O_AHN + 1] == 0
        break
    else:
        pytest.fail("no Smeagol decision in 60 games")


@pytest.mark.parametrize("play", [False, True])
def test_lr_10_4_a_balrog_is_its_holders_decision_when_the_ring_would_leave_moria(comp, play):
    """LR-10.4 "BRUG KORTET, NÅR BRODERSKABET FORSØGER AT FORLADE MORIA": only when the Ring
    would leave Moria, the holder decides; kept, the Ring goes on and the card stays; played,
    the card scores and its die (above balrog_roll_above) holds the Ring."""
    moria = comp.names["path"].index("Moria")
    seen = 0
    for k in range(40):
        s, (i,) = _ring_state(comp, 5, k, "Moria", [(1, C.K_BALROG)])
        if s.st[L.S_PHASE] != L.PH_BALROG:
            assert int(s.st[L.S_FDIE]) <= 3 and int(s.st[L.S_RING]) == moria and s.st[L.O_AHN + 1] == 1
            continue
        assert s.to_move == 1 and s.decision_kind() == "balrog" and int(s.st[L.S_FDIE]) > 3
        assert _rows(comp, s) == [(L.A_PASS, 0, 0, 0), (L.A_POWER, i, 0, 0)]
        _pick(comp, s, (L.A_POWER, i, 0, 0) if play else (L.A_PASS, 0, 0, 0))
        b = _events(comp, s, "balrog")
        if play:
            assert len(b) == 1 and int(s.st[L.S_RING]) == moria + (0 if b[0]["held"] else 1)
            assert s.st[L.O_AHN + 1] == 0 and s.st[L.O_ASCORE + 1] == comp.cf[C.P_PPTS]
        else:
            assert not b and int(s.st[L.S_RING]) == moria + 1 and s.st[L.O_AHN + 1] == 1
        seen += 1
    assert seen >= 5


def test_lr_10_4_greedy_plays_the_balrog_when_behind_and_tuned_has_a_weight(comp):
    """Greedy's rule: play A Balrog is Come when not leading on points, keep it when leading;
    the weight ``balr`` (greedy 0) moves the line (play when the lead is below it)."""
    for k in range(40):
        s, _ = _ring_state(comp, 6, k, "Moria", [(1, C.K_BALROG)])
        if s.st[L.S_PHASE] != L.PH_BALROG:
            continue
        assert _rows(comp, s)[s.builtin_choice()][0] == L.A_POWER        # p2 is behind
        s.arrays["pol"][1, L.PL_BALR] = -10.0
        assert _rows(comp, s)[s.builtin_choice()][0] == L.A_PASS
        break
    else:
        pytest.fail("no Balrog decision in 40 games")
    for k in range(40):
        s, _ = _ring_state(comp, 6, k, "Moria", [(0, C.K_BALROG)])
        if s.st[L.S_PHASE] == L.PH_BALROG:
            assert s.to_move == 0
            assert _rows(comp, s)[s.builtin_choice()][0] == L.A_PASS    # p1 leads
            break
    assert {"smea", "balr"} <= {w.name for w in TABLE.weights}


def test_lr_8_2_no_ring_card_after_an_adventure_draw(comp):
    """LR-8.2: after drawing an adventure card a player plays only events that turn, so the
    player whose turn ends is not asked for Smeagol then."""
    for k in range(60):
        s = blank(comp)
        stream_init_nb(3, k, s.s)
        for t in range(6):
            put(s, t, 0, 2)
        s.st[L.O_LEAD + 0] = 0
        give(comp, s, 0, C.K_SMEAGOL)
        s.st[L.S_RING] = comp.names["path"].index("Lorien")
        s.st[L.S_ADVLOCK] = 1
        s.st[L.S_PHASE] = L.PH_FORT
        s.st[L.S_FORT] = 0
        s.n_legal = -1
        s.apply(0)
        assert s.st[L.S_PHASE] != L.PH_SMEAGOL


# ---- whole games ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 4])
def test_defenders_decisions_are_traced_with_the_defenders_seat(players):
    """In greedy games the defence decisions appear in the trace as decisions of the
    defending seat (not the attacker's), each right before the roll it decides."""
    comp = G.compile(G.load(overrides={"players": players}))
    kinds = {}
    for k in range(4):
        _, ev = G.play(comp, GREEDY, 21, k)
        assert G.replay_check(comp, ev) > 0
        for j, e in enumerate(ev):
            if e["event"] == "decision" and e["kind"] in ("dice", "courage"):
                kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
                nxt = next(x for x in ev[j + 1:] if x["event"] in ("attack", "decision"))
                if nxt["event"] == "attack":
                    assert nxt["defender"] == e["seat"] != nxt["player"]
                    if e["kind"] == "dice":
                        assert nxt["def_dice"] == e["row"][1] == 2
    assert kinds.get("dice", 0) > 10
