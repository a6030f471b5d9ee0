"""LOTR Risk rules fidelity: the set-up order (LR-2.3), one card-territory bonus
per trade (LR-4.3), no event loop (LR-9.2), the Balrog's roll (LR-10.4), the cards as the
card data says (LR-9.3), the fourth adventure card (LR-8.2), Leaders and the one fortify
move (LR-6.2); the rule IDs no other test names; the decision trace and the bit-identity of
outcomes with the trace on and off."""
from __future__ import annotations

import numpy as np
import pytest

from test_lr_rules import GREEDY, RAND, T, _attack, blank, defend, give, put

from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.lotr_risk import play as E
from lotr_sim.games.lotr_risk.trace import decode
from lotr_sim.games.registry import get_game
from lotr_sim.kernels.rng import stream_init_nb

G = get_game("lotr-risk")


@pytest.fixture(scope="module")
def comp():
    return G.compile(G.load())


def _events(comp, s, kind=None):
    ev = decode(comp, s.tr, 0)
    return [e for e in ev if kind is None or e["event"] == kind]


def _end_turn(comp, s):
    """From the fortify step: pass (end the turn)."""
    s.st[L.S_PHASE] = L.PH_FORT
    s.st[L.S_FORT] = 0
    s.n_legal = -1
    acts = s.legal_actions()
    assert acts[0, 0] == L.A_PASS
    s.apply(0)


# ---- LR-1 / LR-2 ------------------------------------------------------------------------------
def test_lr_1_4_three_attack_dice_two_defence_dice(comp):
    """LR-1.4 (with LR-5.1/5.2): at most 3 red dice attack, at most 2 black dice defend, and
    never more than the attacker rolls; checked on every roll of random games."""
    n = 0
    for k in range(4):
        _, ev = G.play(comp, RAND, 21, k)
        for e in ev:
            if e["event"] == "attack":
                assert 1 <= e["att_dice"] <= 3 and 1 <= e["def_dice"] <= min(2, e["att_dice"])
                assert len(e["att_faces"]) == e["att_dice"] and len(e["def_faces"]) == e["def_dice"]
                n += 1
    assert n > 50
    s = blank(comp)
    put(s, T(comp, "The Shire"), 0, 9)
    dice = {int(r[3]) for r in s.legal_actions() if r[0] == L.A_ATTACK}
    assert dice == {1, 2, 3}


def test_lr_1_5_battalions_are_whole_and_counted(comp):
    """LR-1.5: armies are whole battalions: at every turn start every territory holds at least
    one, and the board's total is every battalion put on minus every one taken off."""
    s = G.bind(comp).new_state(GREEDY, 3, 1, debug=True)
    while not s.is_terminal():
        s.apply(s.builtin_choice())
        st = s.st
        if st[L.S_SETUP] >= 3 and st[L.S_PHASE] != L.PH_OVER:
            tro = st[L.O_TROOPS:L.O_TROOPS + 42]
            assert int(tro.sum()) == int(st[L.S_ADDED] - st[L.S_REMOVED])
            assert (tro[st[L.O_OWNER:L.O_OWNER + 42] >= 0] >= 0).all()
    assert s.result()["invariant_broken"][0] == 0


@pytest.mark.parametrize("players,each", [(2, 35), (3, 35), (4, 30)])
def test_lr_2_1_battalions_per_player_count(players, each):
    """LR-2.1: 35 battalions each with 2 or 3 players, 30 with 4; dealt plus still to place."""
    comp = G.compile(G.load(overrides={"players": players}))
    s = G.bind(comp).new_state(RAND, 2, 0)
    st = s.st
    for p in range(players):
        held = int(sum(st[L.O_TROOPS + t] for t in range(42) if st[L.O_OWNER + t] == p))
        assert held + int(st[L.O_LEFT + p]) == each


@pytest.mark.parametrize("players", [3, 4])
def test_lr_2_3_seat_p1_starts_with_three_or_four(players):
    """LR-2.3: with 3-4 players the die only picks who sits in seat 1: p1 (the seat dealt
    its cards as player 1) claims first and plays the first turn, in every game; the die is
    in the trace."""
    comp = G.compile(G.load(overrides={"players": players}))
    for k in range(12):
        s = G.bind(comp).new_state(RAND, 41, k, trace=True)
        assert s.st[L.S_FIRST] == 0 and s.st[L.S_CUR] == 0 and s.st[L.S_PHASE] == L.PH_CLAIM
        s.run_builtin(())
        ev = _events(comp, s)
        roll = [e for e in ev if e["event"] == "setup_roll"]
        assert len(roll) == 1 and 1 <= roll[0]["roll"] <= players and roll[0]["first"] == "p1"
        assert roll[0]["decides"] == "who sits in seat p1"
        first = next(e for e in ev if e["event"] == "turn_start")
        assert first["player"] == "p1" and first["turn"] == 1


def test_lr_2_2_two_players_keep_their_die():
    """LR-2.2: with 2 players the die decides who starts: both seats start some games."""
    comp = G.compile(G.load())
    firsts = {int(G.bind(comp).new_state(RAND, 41, k).st[L.S_FIRST]) for k in range(30)}
    assert firsts == {0, 1}


def test_lr_2_5_one_shuffled_deck_of_44(comp):
    """LR-2.5: after the deal every territory card and both jokers are in one deck, shuffled."""
    orders = []
    for k in range(3):
        st = G.bind(comp).new_state(RAND, 8, k).st
        assert st[L.S_TDN] == 44 and st[L.S_TDD] == 0
        deck = [int(c) for c in st[L.O_TDECK:L.O_TDECK + 44]]
        assert sorted(deck) == list(range(44))
        orders.append(deck)
    assert orders[0] != list(range(44)) and orders[0] != orders[1]


def test_lr_2_7_the_ring_starts_in_the_shire(comp):
    """LR-2.7: the Ring stands in The Shire at the start of the first turn."""
    s = G.bind(comp).new_state(RAND, 8, 0, trace=True)
    assert s.st[L.S_RING] == 0 and comp.names["path"][0] == "The Shire"
    s.run_builtin(())
    first = next(e for e in _events(comp, s) if e["event"] == "turn_start")
    assert first["ring"] == "The Shire" and first["ring_step"] == 0


# ---- LR-4.3: one +2 per trade, the player's choice ------------------------------------------------------
def _three_infantry(comp, s, held):
    cf, st = comp.cf, s.st
    inf = [t for t in range(42) if cf[C.O_CSYM + t] == 0][:3]
    st[L.O_TDECK:L.O_TDECK + 41] = [c for c in range(44) if c not in inf]
    st[L.S_TDN] = 41
    st[L.O_HAND:L.O_HAND + 3] = inf
    st[L.O_HN] = 3
    for t in inf[:held]:
        put(s, t, 0, 3)
    st[L.S_PHASE] = L.PH_TRADE
    st[L.S_REINF] = 3
    s.n_legal = -1
    return inf


def test_lr_4_3_card_territory_bonus_once_per_trade_player_chooses(comp):
    """LR-4.3: "Hvis et af de kort, du bytter, viser et territorium, som du har besat, faar du
    2 bonusbataljoner": one +2 per trade, however many traded cards show held territories; the
    player chooses which (one trade row per held territory)."""
    s = blank(comp, trace=True)
    inf = _three_infantry(comp, s, 3)
    acts = s.legal_actions()
    trades = [tuple(r) for r in acts if r[0] == L.A_TRADE]
    assert sorted(r[3] for r in trades) == sorted(inf) and {r[2] for r in trades} == {4}
    i = [k for k in range(len(acts)) if acts[k, 0] == L.A_TRADE and acts[k, 3] == inf[1]][0]
    s.apply(i)
    st = s.st
    assert [int(st[L.O_TROOPS + t]) for t in inf] == [3, 5, 3]
    assert st[L.S_REINF] == 3 + 4
    tr = _events(comp, s, "trade")[0]
    assert tr["bonus_territory"] == comp.names["territories"][inf[1]] and tr["value"] == 4
    s = blank(comp)                          # none held: one row, no bonus
    _three_infantry(comp, s, 0)
    acts = s.legal_actions()
    assert [tuple(r[2:]) for r in acts if r[0] == L.A_TRADE] == [(4, -1)]


def test_lr_4_3_greedy_takes_the_bonus(comp):
    """The built-in heuristic trades with the bonus on one of its held card territories."""
    s = blank(comp)
    inf = _three_infantry(comp, s, 2)
    acts = s.legal_actions()
    assert acts[s.heuristic_choice(), 3] in inf[:2]


# ---- LR-5 ---------------------------------------------------------------------------------------------
def test_lr_5_5_the_attacker_may_attack_again(comp):
    """LR-5.5: after a roll that does not take the territory the attacker decides again: the
    same attack and the others are offered, and passing is too."""
    for k in range(20):
        s = blank(comp)
        stream_init_nb(4, k, s.s)
        sh, bk, th = T(comp, "The Shire"), T(comp, "Buckland"), T(comp, "Tower Hills")
        put(s, sh, 0, 10)
        put(s, bk, 1, 6)
        put(s, th, 1, 2)
        _attack(comp, s, sh, bk, 3)
        defend(comp, s)
        assert s.st[L.S_PHASE] == L.PH_ATTACK and s.to_move == 0
        rows = {tuple(r) for r in s.legal_actions()}
        assert (L.A_ATTACK, sh, bk, 3) in rows and (L.A_ATTACK, sh, th, 3) in rows
        assert (L.A_PASS, 0, 0, 0) in rows


def test_lr_5_8_the_neutral_army_never_decides(comp):
    """LR-5.8: the neutral army only defends: no decision is ever its (every decision in the
    trace is p1's or p2's), and attacks on it are rolled."""
    seats, neutral_def = set(), 0
    for k in range(3):
        _, ev = G.play(comp, GREEDY, 13, k)
        seats |= {e["seat"] for e in ev if e["event"] == "decision"}
        neutral_def += sum(1 for e in ev if e["event"] == "attack" and e["defender"] == "neutral")
    assert seats == {"p1", "p2"} and neutral_def > 0


# ---- LR-6.2: Leaders and the one fortify move ---------------------------------------------------------
def _fort_state(comp, extra):
    c = comp if not extra else G.compile(G.load(overrides={"leader_extra_move": True}))
    s = blank(c, trace=True)
    fo, bk, of = T(c, "Fornost"), T(c, "Buckland"), T(c, "Old Forest")
    put(s, fo, 0, 6)
    put(s, bk, 0, 1)
    put(s, of, 0, 1)
    s.st[L.O_LEAD + 0] = fo
    s.st[L.S_PHASE] = L.PH_FORT
    s.st[L.S_FORT] = 1
    s.n_legal = -1
    return c, s, fo, bk, of


def test_lr_6_2_a_leader_moves_as_the_turns_one_move(comp):
    """LR-6.2 [R] (leader_extra_move false): a Leader moves "på samme måde, som du flytter
    tropper": alone, or with the battalions of the turn's one move; either way no second
    move follows."""
    c, s, fo, bk, of = _fort_state(comp, False)
    acts = s.legal_actions()
    kinds = {int(r[0]) for r in acts}
    assert {L.A_FORT, L.A_FORTL, L.A_LMOVE} <= kinds
    i = [k for k in range(len(acts)) if tuple(acts[k, :3]) == (L.A_LMOVE, 0, bk)][0]
    s.apply(i)
    assert s.st[L.O_LEAD + 0] == bk
    assert {int(r[0]) for r in s.legal_actions()} <= {L.A_PASS, L.A_POWER}   # no move left
    c, s, fo, bk, of = _fort_state(comp, False)
    acts = s.legal_actions()
    i = [k for k in range(len(acts)) if tuple(acts[k]) == (L.A_FORTL, fo, of, 5)][0]
    s.apply(i)
    assert s.st[L.O_LEAD + 0] == of and s.st[L.O_TROOPS + of] == 6 and s.st[L.O_TROOPS + fo] == 1
    assert {int(r[0]) for r in s.legal_actions()} <= {L.A_PASS, L.A_POWER}
    assert s.invariant_ok()


def test_lr_6_2_leader_extra_move_parameter(comp):
    """LR-6.2 [R] leader_extra_move true: the Leader's own move comes besides the battalion
    move (the engine's earlier reading); no move-with-Leader rows."""
    c, s, fo, bk, of = _fort_state(comp, True)
    acts = s.legal_actions()
    assert L.A_FORTL not in acts[:, 0]
    i = [k for k in range(len(acts)) if tuple(acts[k, :3]) == (L.A_LMOVE, 0, bk)][0]
    s.apply(i)
    assert L.A_FORT in s.legal_actions()[:, 0]
    names = [p.name for p in G.params()]
    assert "leader_extra_move" in names and "balrog_roll_above" in names


# ---- LR-7.1 / LR-8 ---------------------------------------------------------------------------------------
def test_lr_7_1_a_leader_is_placed_at_the_end_of_a_turn_without_one(comp):
    """LR-7.1: a player with no Leader on the board at the end of its turn puts one on one of
    its territories (a decision), before drawing cards; with a Leader it does not."""
    s = blank(comp, trace=True)
    sh, bk = T(comp, "The Shire"), T(comp, "Buckland")
    put(s, sh, 0, 3)
    put(s, bk, 0, 2)
    put(s, T(comp, "Fornost"), 1, 2)
    _end_turn(comp, s)
    assert s.st[L.S_PHASE] == L.PH_LEADER and s.to_move == 0 and s.decision_kind() == "leader"
    acts = s.legal_actions()
    assert {int(r[1]) for r in acts} == {sh, bk}
    s.apply(0)
    assert B_leaders(s, 0) == 1 and s.to_move == 1
    s = blank(comp)
    put(s, sh, 0, 3)
    put(s, T(comp, "Fornost"), 1, 2)
    s.st[L.O_LEAD + 0] = sh
    _end_turn(comp, s)
    assert s.st[L.S_PHASE] != L.PH_LEADER and s.to_move == 1


def B_leaders(s, p):
    return int(sum(1 for k in range(2) if s.st[L.O_LEAD + 2 * p + k] >= 0))


@pytest.mark.parametrize("conquered", [0, 1])
def test_lr_8_1_territory_card_only_after_a_conquest(comp, conquered):
    """LR-8.1: one territory card at the end of a turn in which the player conquered at least
    one territory, none otherwise."""
    s = blank(comp, trace=True)
    put(s, T(comp, "The Shire"), 0, 3)
    put(s, T(comp, "Fornost"), 1, 2)
    s.st[L.O_LEAD + 0] = T(comp, "The Shire")
    s.st[L.S_CONQ] = conquered
    _end_turn(comp, s)
    assert s.st[L.O_HN + 0] == conquered and s.st[L.S_TDN] == 44 - conquered
    assert len([e for e in _events(comp, s, "card_drawn") if e["player"] == "p1"]) == conquered


def _site_turn(comp, s, deck):
    """Player 0's Leader moved into a site this turn; the adventure deck is ``deck`` (top last)."""
    st = s.st
    put(s, T(comp, "The Shire"), 0, 3)
    put(s, T(comp, "Fornost"), 1, 2)
    st[L.O_LEAD + 0] = T(comp, "The Shire")
    pile = [int(c) for c in st[L.O_ADISC:L.O_ADISC + st[L.S_ADD]] if c not in deck]
    st[L.S_ADD] = len(pile)
    st[L.O_ADISC:L.O_ADISC + len(pile)] = pile
    st[L.S_ADN] = len(deck)
    st[L.O_ADECK:L.O_ADECK + len(deck)] = deck
    st[L.S_SITE] = 1


def _cards(comp, kind):
    cf = comp.cf
    return [c for c in range(int(cf[C.C_NADV])) if cf[C.O_AKIND + c] == kind]


def test_lr_8_2_one_adventure_card_for_a_site(comp):
    """LR-8.2: a Leader that reached a site of power this turn gives one adventure card at the
    end of the turn (one at most), none without."""
    for site in (1, 0):
        s = blank(comp, trace=True)
        deck = _cards(comp, C.K_GRIMA) + _cards(comp, C.K_AMBUSH)
        _site_turn(comp, s, deck)
        s.st[L.S_SITE] = site
        _end_turn(comp, s)
        assert s.st[L.O_AHN + 0] == site
        drawn = [e for e in _events(comp, s, "adventure") if e["what"] == "drawn" and e["player"] == "p1"]
        assert len(drawn) == site


def test_lr_8_2_the_fourth_card_the_player_chooses_the_discard(comp):
    """LR-8.2: "skille dig af med et af kortene, du har paa haanden": with a fourth adventure
    card the player decides which one goes (a 'discard' decision over the four); the chosen
    card goes to the discard pile and scores nothing."""
    s = blank(comp, trace=True)
    old = [give(comp, s, 0, k) for k in (C.K_HUNT, C.K_NIGHT, C.K_SMEAGOL)]
    assert old == [0, 1, 2]
    held = [int(c) for c in s.st[L.O_AHAND:L.O_AHAND + 3]]
    new = [c for c in _cards(comp, C.K_GRIMA) if c not in held][0]
    _site_turn(comp, s, [new])
    _end_turn(comp, s)
    assert s.st[L.S_PHASE] == L.PH_ADISC and s.to_move == 0 and s.decision_kind() == "discard"
    acts = s.legal_actions()
    assert [tuple(r) for r in acts] == [(L.A_ADISC, i, c, 0) for i, c in enumerate(held + [new])]
    s.apply(1)                         # keep the new card, drop Move by Night
    hand = [int(c) for c in s.st[L.O_AHAND:L.O_AHAND + int(s.st[L.O_AHN])]]
    assert hand == [held[0], held[2], new] and s.st[L.O_ASCORE + 0] == 0
    piles = list(s.st[L.O_ADISC:L.O_ADISC + s.st[L.S_ADD]]) + list(s.st[L.O_ADECK:L.O_ADECK + s.st[L.S_ADN]])
    assert held[1] in piles and s.to_move == 1         # discarded (the deck refilled from it)
    ev = [e for e in _events(comp, s, "adventure") if e["what"] == "discarded"]
    assert [e["card"] for e in ev] == [comp.names["adventure"][held[1]]]


# ---- LR-9 -----------------------------------------------------------------------------------------------
def test_lr_9_1_a_mission_is_completed_by_the_leaders_move(comp):
    """LR-9.1: a Leader that moves onto the site of a held mission card completes it: the card
    scores its points and the reward's battalions go onto the site; the Leader stays there."""
    s = blank(comp)
    cf = comp.cf
    sh, fo = T(comp, "Evendim Hills"), T(comp, "Fornost")        # Fornost: the site Bree
    mission = next(c for c in range(int(cf[C.C_NADV])) if cf[C.O_AKIND + c] == C.K_MISSION and cf[C.O_AARG + c] == fo)
    pile = [int(c) for c in s.st[L.O_ADISC:L.O_ADISC + s.st[L.S_ADD]] if c != mission]
    s.st[L.S_ADD] = len(pile)
    s.st[L.O_ADISC:L.O_ADISC + len(pile)] = pile
    s.st[L.O_AHAND] = mission
    s.st[L.O_AHN] = 1
    put(s, T(comp, "Borderlands"), 0, 2)
    put(s, sh, 0, 2)
    put(s, fo, 0, 2)
    s.st[L.O_LEAD + 0] = sh
    s.st[L.S_PHASE] = L.PH_FORT
    s.st[L.S_FORT] = 1
    s.n_legal = -1
    acts = s.legal_actions()
    i = [k for k in range(len(acts)) if tuple(acts[k, :3]) == (L.A_LMOVE, 0, fo)][0]
    s.apply(i)
    assert s.st[L.O_AHN] == 0 and s.st[L.O_ASCORE] == cf[C.P_MPTS] and s.st[L.O_ACOUNT] == 1
    assert s.st[L.O_TROOPS + fo] == 2 + cf[C.O_REWG + fo] and s.st[L.S_SITE] == 1
    assert s.invariant_ok()


def test_lr_9_2_no_reshuffle_within_a_turn(comp):
    """LR-8.2/9.2 [R]: after an event the next card is drawn; a draw from an empty deck draws
    nothing (the discards, full of cards, are not reshuffled within the turn), so the chain
    ends; between turns the empty deck is refilled from the discards."""
    s = blank(comp, trace=True)
    ev_card = _cards(comp, C.K_ENTMOOT)
    _site_turn(comp, s, ev_card)
    assert s.st[L.S_ADD] == 39
    _end_turn(comp, s)
    mine = [e for e in _events(comp, s, "adventure") if e["player"] == "p1"]
    assert [e["what"] for e in mine] == ["drawn", "event"]
    assert s.st[L.O_AHN + 0] == 0 and s.to_move == 1
    assert s.st[L.S_ADN] == 40 and s.st[L.S_ADD] == 0          # refilled before p2's turn


def _enemy_setup(comp, played):
    s = blank(comp, trace=True)
    rh, wh = T(comp, "Rhudaur"), T(comp, "Weather Hills")      # Rhudaur: Rivendell
    put(s, wh, 0, 4)
    put(s, rh, 1, 3)
    i = give(comp, s, 0, C.K_ENEMY)
    if played:
        acts = s.legal_actions()
        k = [j for j in range(len(acts)) if tuple(acts[j, :3]) == (L.A_POWER, i, rh)][0]
        s.apply(k)
    return s, wh, rh


@pytest.mark.parametrize("played", [False, True])
def test_lr_9_3_the_enemy_is_at_hand_cancels_the_stronghold(comp, played):
    """LR-9.3 "The Enemy is at Hand": the stronghold's +1 (LR-5.4) is not on the defender's
    die in an attack on it after the card; without the card it is. The card's target is in
    the trace."""
    s, wh, rh = _enemy_setup(comp, played)
    _attack(comp, s, wh, rh, 3)
    defend(comp, s)
    roll = _events(comp, s, "attack")[-1]
    assert roll["def_bonus"] == (0 if played else 1) and roll["defender"] == "p2"
    if played:
        p = [e for e in _events(comp, s, "adventure") if e["what"] == "power"]
        assert p[0]["target"] == "Rhudaur"


def test_lr_9_3_grima_moves_from_the_attacked_to_the_attacker_then_attacks(comp):
    """LR-9.3 Grima Wormtongue (card data): up to 2 battalions move from the territory about to
    be attacked to the attacking one, just before that attack: a row names both, and the
    attack follows at once."""
    s = blank(comp, trace=True)
    sh, bk, th = T(comp, "The Shire"), T(comp, "Buckland"), T(comp, "Tower Hills")
    put(s, sh, 0, 3)
    put(s, bk, 1, 5)
    put(s, th, 1, 5)
    i = give(comp, s, 0, C.K_GRIMA)
    acts = s.legal_actions()
    rows = {tuple(r) for r in acts if r[0] == L.A_POWER}
    assert rows == {(L.A_POWER, i, sh, bk), (L.A_POWER, i, sh, th)}
    k = [j for j in range(len(acts)) if tuple(acts[j]) == (L.A_POWER, i, sh, bk)][0]
    s.apply(k)
    defend(comp, s)
    ev = _events(comp, s)
    moved = [e for e in ev if e["event"] == "place" and e["why"] == "power"]
    assert [(e["territory"], e["battalions"]) for e in moved] == [("Buckland", -2), ("The Shire", 2)]
    att = [e for e in ev if e["event"] == "attack"]
    assert len(att) == 1 and (att[0]["from"], att[0]["to"], att[0]["att_dice"]) == ("The Shire", "Buckland", 3)
    assert ev.index(att[0]) > ev.index(moved[-1])
    assert s.invariant_ok()


def test_lr_9_3_ambush_adds_three_to_the_attacking_territory(comp):
    """LR-9.3 Ambush (card data): +3 in the attacking territory, before that attack."""
    s = blank(comp, trace=True)
    sh, bk = T(comp, "The Shire"), T(comp, "Buckland")
    put(s, sh, 0, 1)
    put(s, bk, 1, 4)
    i = give(comp, s, 0, C.K_AMBUSH)
    acts = s.legal_actions()
    assert (L.A_POWER, i, sh, bk) in {tuple(r) for r in acts}
    k = [j for j in range(len(acts)) if tuple(acts[j]) == (L.A_POWER, i, sh, bk)][0]
    s.apply(k)
    defend(comp, s)
    ev = _events(comp, s)
    add = [e for e in ev if e["event"] == "place" and e["why"] == "power"]
    assert [(e["territory"], e["battalions"]) for e in add] == [("The Shire", 3)]
    att = [e for e in ev if e["event"] == "attack"]
    assert [(e["from"], e["to"], e["att_dice"]) for e in att] == [("The Shire", "Buckland", 3)]


def test_lr_9_3_the_way_under_the_mountains_crosses_mountains_only(comp):
    """LR-6.1 + LR-9.3 "The Way is Under the Mountains": an attack across mountains (Anduin
    Valley - Eregion), never across a river without a bridge (Anduin Valley - Lorien)."""
    s = blank(comp)
    ad = T(comp, "Anduin Valley")
    put(s, ad, 0, 6)
    i = give(comp, s, 0, C.K_WAY)
    rows = {tuple(r) for r in s.legal_actions() if r[0] == L.A_POWER}
    assert (L.A_POWER, i, ad, T(comp, "Eregion")) in rows
    assert (L.A_POWER, i, ad, T(comp, "Rhudaur")) in rows
    assert (L.A_POWER, i, ad, T(comp, "Lorien")) not in rows
    cf = comp.cf
    for t in range(42):
        for q in range(int(cf[C.O_BLKN + t])):
            u = int(cf[C.O_BLK + t * C.MAXDEG + q])
            pair = {comp.names["territories"][t], comp.names["territories"][u]}
            kinds = [e[2] for e in G.load().data["board"]["blocked"] if set(e[:2]) == pair]
            assert kinds == ["mountain"]


# ---- LR-10.4: A Balrog is Come -----------------------------------------------------------------------------
def _balrog_trials(comp, n, seed=0):
    """Games where the Ring would leave Moria and p2 (behind on points) holds the Balrog and
    plays it (greedy's choice)."""
    moria = comp.names["path"].index("Moria")
    out = []
    for k in range(n):
        s = blank(comp, trace=True)
        stream_init_nb(seed, k, s.s)
        for t in range(6):
            put(s, t, 0, 2)
        put(s, T(comp, "Fornost"), 1, 2)
        s.st[L.O_LEAD + 0] = 0
        s.st[L.O_LEAD + 2] = T(comp, "Fornost")
        give(comp, s, 1, C.K_BALROG)
        s.st[L.S_RING] = moria
        _end_turn(comp, s)
        if s.st[L.S_PHASE] == L.PH_BALROG:      # p2 decides; greedy plays it when behind (LR-10.4)
            s.apply(s.builtin_choice())
        ev = _events(comp, s)
        b = [e for e in ev if e["event"] == "balrog"]
        ring = [e for e in ev if e["event"] == "fellowship"]
        if b:
            out.append((b[0]["roll"], b[0]["held"], ring[-1]["moved"], int(s.st[L.S_RING]) == moria))
        else:
            assert s.st[L.O_AHN + 1] == 1          # not played: the Ring did not try to leave
    return out


def test_lr_10_4_a_balrog_needs_a_successful_roll(comp):
    """LR-10.4 [R]: "med et vellykket terningkast": the holder rolls one die; above
    balrog_roll_above (3) the Ring stays in Moria, otherwise it goes on; the roll is in the
    trace. Half the rolls succeed (|z| < 4)."""
    out = _balrog_trials(comp, 160)
    assert len(out) > 40
    for roll, held, moved, in_moria in out:
        assert 1 <= roll <= 6 and held == (roll > 3) and moved == (not held) and in_moria == held
    p = np.mean([h for _, h, _, _ in out])
    assert abs(p - 0.5) / np.sqrt(0.25 / len(out)) < 4
    assert len({r for r, _, _, _ in out}) == 6


@pytest.mark.parametrize("above,held", [(0, True), (6, False)])
def test_lr_10_4_balrog_roll_above_parameter(above, held):
    comp = G.compile(G.load(overrides={"balrog_roll_above": above}))
    out = _balrog_trials(comp, 40)
    assert out and all(h == held for _, h, _, _ in out)


# ---- traces ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 4])
def test_every_decision_is_traced_with_its_seat(players):
    """Traces: each decision of the step machine is an event 'decision' with the seat that
    took it, its kind, the chosen index, the number of legal rows and the chosen row."""
    comp = G.compile(G.load(overrides={"players": players}))
    s = G.bind(comp).new_state(GREEDY, 17, 2, trace=True)
    want = []
    while not s.is_terminal():
        acts = s.legal_actions()
        i = s.builtin_choice()
        want.append((f"p{s.to_move + 1}", s.decision_kind(), i, len(acts), [int(x) for x in acts[i]]))
        s.apply(i)
    got = [(e["seat"], e["kind"], e["choice"], e["n_legal"], e["row"]) for e in _events(comp, s, "decision")]
    assert got == want


def test_snapshots_hold_hands_and_the_setup_deal_is_traced(comp):
    """Traces: the set-up die, the starting adventure hands (LR-2.6), and both hands of every
    player in each turn-start snapshot."""
    s = G.bind(comp).new_state(GREEDY, 5, 3, trace=True)
    dealt = {p: [comp.names["adventure"][int(c)] for c in s.st[L.O_AHAND + p * L.AHMAX:L.O_AHAND + p * L.AHMAX + 3]]
             for p in range(2)}
    s.run_builtin(())
    ev = _events(comp, s)
    got = {p: [e["card"] for e in ev if e["event"] == "adventure" and e["what"] == "dealt" and e["player"] == f"p{p + 1}"]
           for p in range(2)}
    assert got == dealt
    snaps = [e for e in ev if e["event"] == "turn_start"]
    assert snaps[0]["adventure_hands"] == {"p1": dealt[0], "p2": dealt[1]}
    assert snaps[0]["hands"] == {"p1": [], "p2": []}
    assert any(snap["hands"]["p1"] or snap["hands"]["p2"] for snap in snaps)
    assert [e["turn"] for e in snaps] == list(range(1, len(snaps) + 1))


def test_account_and_trace_number_turns_alike(comp):
    """One numbering: the trace's turns count from 1 and the account prints the same number."""
    _, ev = G.play(comp, GREEDY, 3, 0)
    snaps = [e for e in ev if e["event"] == "turn_start"]
    text = G.account(ev)
    assert snaps[0]["turn"] == 1 and snaps[0]["round"] == 1
    assert f"== Turn {snaps[-1]['turn']} (round {snaps[-1]['round']})" in text
    assert "== Turn 0 " not in text
    assert G.replay_check(comp, ev) > 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_outcomes_bit_identical_with_trace_on_and_off(players):
    """Tracing changes no outcome: each game played with a trace (play) gives the row the
    untraced run (simulate) gives for it, column for column."""
    comp = G.compile(G.load(overrides={"players": players}))
    n = 8
    ref = G.simulate(comp, GREEDY, 29, 0, n, threads=1)
    for k in range(n):
        row, _ = G.play(comp, GREEDY, 29, k)
        for col in ref:
            assert row[col][0] == ref[col][k], (k, col)
    ref = G.simulate(comp, RAND, 30, 0, n, threads=1)
    for k in range(n):
        row, _ = G.play(comp, RAND, 30, k)
        for col in ref:
            assert row[col][0] == ref[col][k], (k, col)


def test_decision_trace_names_are_the_phase_kinds():
    assert L.PHASE_KIND[L.PH_ADISC] == "discard"
    assert E.NOUT == 32
