"""LOTR Risk: one test per rule ID (docs/rules/lotr-risk.md) on crafted states and traces,
the invariants after every step, and config errors."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.errors import ConfigError
from lotr_sim.games.lotr_risk import board as B
from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.lotr_risk import play as E
from lotr_sim.games.lotr_risk.trace import decode
from lotr_sim.games.registry import get_game
from lotr_sim.kernels.tracebuf import new_trace

G = get_game("lotr-risk")
RAND = {"good": "random", "evil": "random"}
GREEDY = {"good": "greedy", "evil": "greedy"}


@pytest.fixture(scope="module")
def comp():
    return G.compile(G.load())


def T(comp, name):
    return comp.names["territories"].index(name)


def blank(comp, trace=False):
    """A state in player 0's combat step: every territory neutral with 1 battalion, no
    Leaders, empty hands (totals made consistent for the invariant)."""
    s = G.bind(comp).new_state(GREEDY, 1, 0, trace=(1 << 16) if trace else False)
    st = s.st
    nt = int(comp.cf[C.C_NT])
    st[L.O_OWNER:L.O_OWNER + nt] = C.NEUTRAL
    st[L.O_TROOPS:L.O_TROOPS + nt] = 1
    st[L.S_ADDED] = nt
    st[L.S_REMOVED] = 0
    st[L.O_LEAD:L.O_LEAD + 8] = -1
    st[L.S_SETUP] = 3
    st[L.S_PHASE] = L.PH_ATTACK
    st[L.S_CUR] = 0
    st[L.S_NOSTR] = st[L.S_WAYA] = st[L.S_WAYB] = -1
    for p in range(2):
        st[L.O_ALIVE + p] = 1
        st[L.O_AHN + p] = 0      # adventure cards back to the discard pile
    st[L.S_ADN] = 0
    st[L.S_ADD] = int(comp.cf[C.C_NADV])
    st[L.O_ADISC:L.O_ADISC + st[L.S_ADD]] = np.arange(st[L.S_ADD])
    st[L.O_HN:L.O_HN + 4] = 0
    st[L.S_TDN] = int(comp.cf[C.C_NTC])
    st[L.S_TDD] = 0
    st[L.O_TDECK:L.O_TDECK + st[L.S_TDN]] = np.arange(st[L.S_TDN])
    st[L.O_UPR:L.O_UPR + 4] = -1
    s.n_legal = -1
    if trace:
        s.arrays["tr"] = new_trace(1 << 16)
    return s


def put(s, t, owner, n):
    st = s.st
    st[L.S_ADDED] += n - st[L.O_TROOPS + t]
    st[L.O_OWNER + t] = owner
    st[L.O_TROOPS + t] = n
    s.n_legal = -1


# ---- LR-1 -------------------------------------------------------------------------------------
def test_lr_1_1_and_1_2_board_transcribed(comp):
    """LR-1.1: 42 territories in 6 regions with the rules' bonuses and sizes; LR-1.2: 9 Good,
    9 Evil, 24 neutral cards, 14 of each symbol, plus 2 jokers."""
    cf = comp.cf
    assert cf[C.C_NT] == 42 and cf[C.C_NR] == 6 and cf[C.C_NTC] == 44
    want = {"Arnor": (7, 11), "Rhovanion": (5, 8), "Rohan": (4, 7), "Mirkwood": (4, 5), "Eriador": (3, 7),
            "Rhun": (2, 4)}
    for r, name in enumerate(comp.names["regions"]):
        assert (cf[C.O_RBONUS + r], cf[C.O_RSIZE + r]) == want[name]
    sides = np.bincount(cf[C.O_CSIDE:C.O_CSIDE + 42], minlength=3)
    syms = np.bincount(cf[C.O_CSYM:C.O_CSYM + 44], minlength=4)
    assert list(sides) == [9, 9, 24] and list(syms) == [14, 14, 14, 2]
    assert cf[C.C_NSITES] == 16 and cf[C.O_STRONG:C.O_STRONG + 42].sum() == 6
    assert cf[C.O_ADJN:C.O_ADJN + 42].sum() == 2 * 71
    assert cf[C.C_NPATH] == 14 and cf[C.O_MARK:C.O_MARK + 14].sum() == 3


# ---- LR-2 set-up ---------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_lr_2_deal_and_setup(players):
    """LR-2.2/2.3: dealt territories by card side; LR-2.2 neutral army of 14 x 2 battalions;
    LR-2.6 three adventure cards each, no event among them; after the set-up (placements one
    at a time, LR-2.4 one Leader each) every player has exactly its starting battalions."""
    g = G
    comp = g.compile(g.load(overrides={"players": players}))
    cf = comp.cf
    s = g.bind(comp).new_state(RAND, 4, 2)
    st = s.st
    deals = C.SEATS[players]
    for p, (_side, ng, ne, nn) in enumerate(deals):
        held = [t for t in range(42) if st[L.O_OWNER + t] == p]
        cs = [cf[C.O_CSIDE + t] for t in held]
        assert (cs.count(0), cs.count(1), cs.count(2)) == (ng, ne, nn)
        assert st[L.O_AHN + p] == 3
        for i in range(3):
            assert cf[C.O_AKIND + st[L.O_AHAND + p * L.AHMAX + i]] not in C.EVENT_KINDS
    neutral = [t for t in range(42) if st[L.O_OWNER + t] == C.NEUTRAL]
    assert len(neutral) == (14 if players == 2 else 0)
    assert all(st[L.O_TROOPS + t] == 2 for t in neutral)
    while st[L.S_SETUP] < 3:
        assert s.st[L.S_PHASE] in (L.PH_CLAIM, L.PH_SPLACE, L.PH_LEADER)
        s.apply(s.builtin_choice())
    start = cf[C.P_START]
    for p in range(players):
        army = sum(st[L.O_TROOPS + t] for t in range(42) if st[L.O_OWNER + t] == p)
        assert army == start, (p, army)
        assert B.n_leaders_nb(st, p) == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_lr_2_2_first_player_lever(players):
    """LR-2.2: with 2 players a die decides who starts (LR-2.3: with 3-4, seat p1);
    ``first_player`` good / evil makes the first seat of that side start instead, while the
    die is still drawn: a game whose default already picked that seat is the same game, bit
    for bit."""
    by = {w: G.compile(G.load(overrides={"players": players, "first_player": w}))
          for w in ("die", "good", "evil")}
    sides = [int(by["die"].cf[C.O_SSIDE + q]) for q in range(players)]
    dice = [int(G.bind(by["die"]).new_state(RAND, 5, i).st[L.S_FIRST]) for i in range(40)]
    assert len(set(dice)) == (2 if players == 2 else 1)   # the die picks either seat; p1
    for code, who in ((0, "good"), (1, "evil")):
        seat = sides.index(code)              # the first seat of that side in seat order
        firsts = {int(G.bind(by[who]).new_state(RAND, 5, i).st[L.S_FIRST]) for i in range(40)}
        assert firsts == {seat}, (who, firsts)
        same = [i for i, d in enumerate(dice) if d == seat]
        ref = G.simulate(by["die"], GREEDY, 5, 0, 40, threads=1)
        got = G.simulate(by[who], GREEDY, 5, 0, 40, threads=1)
        for k in ref:
            assert np.array_equal(ref[k][same], got[k][same]), k
    with pytest.raises(ConfigError):
        G.load(overrides={"first_player": "frodo"})


@pytest.mark.slow
def test_lr_2_2_moving_first_is_worth_points_to_good():
    """The lever moves Good's greedy win rate up when Good always starts and down when Evil
    does (paired games, |z| > 4 on each difference)."""
    rate = {}
    for who in ("die", "good", "evil"):
        comp = G.compile(G.load(overrides={"first_player": who}))
        rate[who] = (G.simulate(comp, GREEDY, 9, 0, 1500, threads=2)["winner"] == 0).astype(float)
    for hi, lo in (("good", "die"), ("die", "evil")):
        d = rate[hi] - rate[lo]
        z = d.mean() / (d.std(ddof=1) / np.sqrt(d.size))
        assert z > 4, (hi, lo, d.mean(), z)


# ---- LR-4 reinforcement -------------------------------------------------------------------------------
def test_lr_4_1_and_4_2_reinforcements(comp):
    """LR-4.1: territories // 3, at least 3; LR-4.2: plus whole regions' bonuses."""
    s = blank(comp)
    cf, st = comp.cf, s.st
    assert B.reinforcements_nb(cf, st, 0) == 3
    arnor = [t for t in range(42) if comp.names["regions"][cf[C.O_REG + t]] == "Arnor"]
    rhun = [t for t in range(42) if comp.names["regions"][cf[C.O_REG + t]] == "Rhun"]
    for t in arnor[:10]:
        put(s, t, 0, 1)
    assert B.reinforcements_nb(cf, st, 0) == 3          # 10 // 3 = 3
    put(s, arnor[10], 0, 1)
    assert B.reinforcements_nb(cf, st, 0) == 3 + 7      # 11 // 3 = 3, plus Arnor
    for t in rhun:
        put(s, t, 0, 1)
    assert B.reinforcements_nb(cf, st, 0) == 15 // 3 + 7 + 2


def test_lr_4_3_set_values(comp):
    """LR-4.3: 3 infantry 4, 3 cavalry 6, 3 creatures 8, one of each 10; a joker is any."""
    cf = comp.cf
    by = {k: [t for t in range(42) if cf[C.O_CSYM + t] == k] for k in range(3)}
    inf, cav, cre = by[0], by[1], by[2]
    assert B.set_value_nb(cf, inf[0], inf[1], inf[2]) == 4
    assert B.set_value_nb(cf, cav[0], cav[1], cav[2]) == 6
    assert B.set_value_nb(cf, cre[0], cre[1], cre[2]) == 8
    assert B.set_value_nb(cf, inf[0], cav[1], cre[2]) == 10
    assert B.set_value_nb(cf, inf[0], inf[1], cav[2]) == -1
    assert B.set_value_nb(cf, cre[0], cre[1], 42) == 8        # joker as the third creature
    assert B.set_value_nb(cf, inf[0], cav[0], 43) == 10       # joker completes one of each
    assert B.set_value_nb(cf, inf[0], 42, 43) == 10


def test_lr_4_3_forced_trade_and_card_territory_bonus(comp):
    """LR-4.3: with 5 cards a trade is forced (no pass); a traded card of a held territory
    puts 2 more battalions there; traded cards go to the discard pile."""
    cf = comp.cf
    s = blank(comp)
    st = s.st
    inf = [t for t in range(42) if cf[C.O_CSYM + t] == 0]
    cav = [t for t in range(42) if cf[C.O_CSYM + t] == 1]
    hand = inf[:3] + cav[:2]
    st[L.O_TDECK:L.O_TDECK + 39] = [c for c in range(44) if c not in hand]
    st[L.S_TDN] = 39
    st[L.O_HAND:L.O_HAND + 5] = hand
    st[L.O_HN] = 5
    put(s, inf[0], 0, 3)
    st[L.S_PHASE] = L.PH_TRADE
    st[L.S_REINF] = 3
    acts = s.legal_actions()
    assert L.A_PASS not in acts[:, 0] and (acts[:, 0] == L.A_TRADE).all()
    i = [k for k in range(len(acts)) if acts[k, 2] == 4][0]     # the three infantry
    s.apply(i)
    assert st[L.O_TROOPS + inf[0]] == 3 + 2 and st[L.S_REINF] == 3 + 4 and st[L.O_HN] == 2
    assert st[L.S_TDD] == 3 and s.invariant_ok()
    st[L.O_HN] = 3
    st[L.O_HAND + 2] = inf[2]
    st[L.S_TDD] = 2
    st[L.S_PHASE] = L.PH_TRADE
    s.n_legal = -1
    assert s.legal_actions()[0, 0] == L.A_PASS           # 3 cards: trading is optional


# ---- LR-5 combat ---------------------------------------------------------------------------------------
def _attack(comp, s, a, b, dice):
    acts = s.legal_actions()
    rows = [i for i in range(len(acts)) if tuple(acts[i]) == (L.A_ATTACK, a, b, dice)]
    assert rows, f"attack {a}->{b} with {dice} is not legal"
    s.apply(rows[0])


def defend(comp, s):
    """The defender's decisions before a roll (Courage, its dice: LR-9.3, LR-5.2), taken by the
    heuristic (the most dice) until the roll is made."""
    while s.st[L.S_PHASE] in (L.PH_COURAGE, L.PH_DDICE):
        s.apply(s.heuristic_choice())


def test_lr_5_1_attack_needs_two_and_a_border(comp):
    """LR-5.1: from an own territory with >= 2 battalions to a bordering one of another army,
    at most 3 dice (one stays home); no attack across a blocked contact."""
    s = blank(comp)
    sh, bk, th = T(comp, "The Shire"), T(comp, "Buckland"), T(comp, "Tower Hills")
    put(s, sh, 0, 1)
    acts = s.legal_actions()
    assert not (acts[:, 0] == L.A_ATTACK).any()
    put(s, sh, 0, 3)
    acts = s.legal_actions()
    att = {tuple(r[1:]) for r in acts if r[0] == L.A_ATTACK}
    assert att == {(sh, bk, 1), (sh, bk, 2), (sh, th, 1), (sh, th, 2)}
    ad, lo = T(comp, "Anduin Valley"), T(comp, "Lorien")       # a river without a bridge
    put(s, ad, 0, 5)
    att = {tuple(r[1:3]) for r in s.legal_actions() if r[0] == L.A_ATTACK}
    assert (ad, lo) not in att and (ad, T(comp, "Gladden Fields")) in att


def test_lr_5_2_to_5_4_rolls_follow_the_faces(comp):
    """LR-5.2: defender dice at most min(2, defenders, attacker dice) (the defender's choice:
    here the most, as greedy chooses, ``defend``); LR-5.3: highest v highest,
    second v second, ties to the defender; LR-5.4: Leader +1 attack / defence, stronghold +1
    defence, on the highest die only. Checked on every roll of crafted attacks."""
    from lotr_sim.kernels.rng import stream_init_nb
    ev, sm = T(comp, "Evendim Hills"), T(comp, "Lune Valley")
    rh = T(comp, "Rhudaur")                      # a stronghold (Rivendell)
    ca = T(comp, "Carrock")
    seen = set()
    for k in range(60):
        s = blank(comp, trace=True)
        stream_init_nb(7, k, s.s)
        put(s, sm, 0, 2 + k % 4)
        put(s, ev, 1, 1 + k % 3)
        put(s, ca, 0, 6)
        put(s, rh, 1, 2)
        if k % 2:
            s.st[L.O_LEAD + 0] = ca          # attacker's Leader in Carrock
            s.st[L.O_LEAD + 2] = rh          # defender's Leader in Rivendell
        dice = 1 + k % min(3, s.st[L.O_TROOPS + sm] - 1)
        _attack(comp, s, sm, ev, dice)
        defend(comp, s)
        if s.st[L.S_PHASE] == L.PH_MOVEIN:
            s.apply(0)
        _attack(comp, s, ca, rh, 3)
        defend(comp, s)
        for e in decode(comp, s.tr, 0):
            if e["event"] != "attack":
                continue
            a = sorted(e["att_faces"], reverse=True)
            d = sorted(e["def_faces"], reverse=True)
            assert len(d) <= min(2, len(a))
            la = ld = 0
            for i in range(min(len(a), len(d))):
                bon_a = e["att_bonus"] if i == 0 else 0
                bon_d = e["def_bonus"] if i == 0 else 0
                if a[i] + bon_a > d[i] + bon_d:
                    ld += 1
                else:
                    la += 1
            assert (la, ld) == (e["att_losses"], e["def_losses"])
            if e["to"] == "Rhudaur":
                lead = k % 2
                assert (e["att_bonus"], e["def_bonus"]) == (lead, 1 + lead)
                assert e["def_dice"] == 2
            else:
                assert e["def_dice"] == min(2, 1 + k % 3, dice)
            seen.add((e["att_dice"], e["def_dice"]))
    assert {(1, 1), (2, 2), (3, 2)} <= seen


def test_lr_5_3_one_die_each_odds(comp):
    """LR-5.3: one die against one, ties to the defender: P(attacker wins) = 15/36 (|z| < 4)."""
    from lotr_sim.kernels.rng import stream_init_nb
    s = blank(comp)
    sm, ev = T(comp, "Lune Valley"), T(comp, "Borderlands")      # no stronghold, no Leader
    n = 3000
    wins = 0
    stream_init_nb(11, 0, s.s)
    for _ in range(n):
        put(s, sm, 0, 2)
        put(s, ev, 1, 2)
        s.st[L.S_PHASE] = L.PH_ATTACK
        E._attack_nb(comp.cf, s.st, s.s, s.tr, comp.wp, sm, ev, 1)
        wins += s.st[L.O_TROOPS + ev] == 1
    p = 15 / 36
    z = (wins / n - p) / np.sqrt(p * (1 - p) / n)
    assert abs(z) < 4, z


def test_lr_5_6_and_5_7_conquest_leaders(comp):
    """LR-5.6: the conquest move is a decision (dice of the last roll, half, all but one) and a
    Leader of the attacking territory moves in; LR-5.7: the defender's Leader whose territory
    loses its last battalion is removed."""
    from lotr_sim.kernels.rng import stream_init_nb
    for k in range(10):
        s = blank(comp)
        stream_init_nb(3, k, s.s)
        a, b = T(comp, "Fornost"), T(comp, "Buckland")
        put(s, a, 0, 12)
        put(s, b, 1, 1)
        s.st[L.O_LEAD + 0] = a
        s.st[L.O_LEAD + 2] = b
        while s.st[L.O_OWNER + b] == 1 and s.st[L.S_PHASE] == L.PH_ATTACK:
            _attack(comp, s, a, b, 3)
        if s.st[L.S_PHASE] != L.PH_MOVEIN:
            continue
        assert s.st[L.O_LEAD + 2] == -1                  # LR-5.7
        moves = s.legal_actions()[:, 1].tolist()
        left = int(s.st[L.O_TROOPS + a])
        assert moves == [3, left // 2, left - 1]
        s.apply(2)
        assert s.st[L.O_OWNER + b] == 0 and s.st[L.O_TROOPS + a] == 1 and s.st[L.O_TROOPS + b] == left - 1
        assert s.st[L.O_LEAD + 0] == b                   # LR-5.6
        assert s.invariant_ok()
        return
    pytest.fail("no conquest in 10 tries")


# ---- LR-6 fortify ---------------------------------------------------------------------------------------
def test_lr_6_1_fortify_through_own_territories_only(comp):
    """LR-6.1: a move goes through own connected territories; a blocked contact (river
    without a bridge) does not connect; one battalion stays."""
    s = blank(comp)
    ad, lo, gf = T(comp, "Anduin Valley"), T(comp, "Lorien"), T(comp, "Gladden Fields")
    put(s, ad, 0, 5)
    put(s, lo, 0, 1)
    s.st[L.S_PHASE] = L.PH_FORT
    s.st[L.S_FORT] = 1
    fort = {tuple(r[1:]) for r in s.legal_actions() if r[0] == L.A_FORT}
    assert not any(x[0] == ad and x[1] == lo for x in fort)
    put(s, gf, 0, 1)                                   # Anduin - Gladden (bridge) - Lorien
    fort = {tuple(r[1:]) for r in s.legal_actions() if r[0] == L.A_FORT}
    assert (ad, lo, 4) in fort and (ad, lo, 2) in fort and (ad, gf, 4) in fort
    assert all(c <= s.st[L.O_TROOPS + a] - 1 for a, _, c in fort)


# ---- LR-10 the Fellowship --------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("above, p", [(3, 0.5), (4, 1 / 3)])
def test_lr_10_fellowship_length(above, p):
    """LR-10.1/10.2: without the cards that move or hold the Ring, the game lasts 11 turns plus
    three geometric waits (P(move) = (6 - above)/6): mean 11 + 3/p, P(14 turns) = p^3."""
    comp = G.compile(G.load(overrides={"fellowship_roll_above": above, "deck_hunt_ringbearer": 0,
                                       "deck_balrog": 0, "deck_smeagol": 0}))
    n = 1500
    r = G.simulate(comp, RAND, 5, 0, n, threads=1)
    t = r["fellowship_turns"][r["conquest_win"] == 0].astype(float)
    mean = 11 + 3 / p
    sd = np.sqrt(3 * (1 - p) / p ** 2)
    assert t.min() >= 14
    assert abs(t.mean() - mean) / (sd / np.sqrt(len(t))) < 4
    q = (t == 14).mean()
    assert abs(q - p ** 3) / np.sqrt(p ** 3 * (1 - p ** 3) / len(t)) < 4


# ---- LR-11 winning ------------------------------------------------------------------------------------------
def test_lr_11_2_points(comp):
    """LR-11.2: 1 per territory, whole regions' bonuses, 2 per stronghold, adventure points."""
    s = blank(comp)
    cf, st = comp.cf, s.st
    rhun = [t for t in range(42) if comp.names["regions"][cf[C.O_REG + t]] == "Rhun"]
    for t in rhun:
        put(s, t, 0, 1)
    put(s, T(comp, "Moria"), 0, 1)                       # a stronghold
    st[L.O_ASCORE + 0] = 3
    B.points_nb(cf, st)
    assert list(st[L.O_PTS:L.O_PTS + 5]) == [5, 2, 2, 3, 12]


def test_lr_11_3_tie_breaks(comp):
    """LR-11.3: equal points -> most territories, ...; all equal -> dice (either may win)."""
    from lotr_sim.kernels.rng import stream_init_nb
    s = blank(comp)
    cf, st = comp.cf, s.st
    # p1: 3 territories + 2 adventure = 5; p2: 1 stronghold territory (1 + 2) + 2 adventure = 5
    for t in ("The Shire", "Buckland", "Old Forest"):
        put(s, T(comp, t), 0, 1)
    put(s, T(comp, "Moria"), 1, 1)
    st[L.O_ASCORE + 0] = 2
    st[L.O_ASCORE + 1] = 2
    B.points_nb(cf, st)
    assert st[L.O_PTS + 4] == st[L.O_PTS + 9] == 5
    assert B.winner_nb(cf, st, s.s) == 0                  # more territories
    # all equal: p1 The Shire + Moria (stronghold), p2 Buckland + Rhudaur (stronghold)
    for t in range(42):
        put(s, t, C.NEUTRAL, 1)
    st[L.O_ASCORE + 0] = st[L.O_ASCORE + 1] = 0
    for t in ("The Shire", "Moria"):
        put(s, T(comp, t), 0, 1)
    for t in ("Buckland", "Rhudaur"):
        put(s, T(comp, t), 1, 1)
    wins = set()
    B.points_nb(cf, st)
    assert st[L.O_PTS + 4] == st[L.O_PTS + 9]
    for k in range(40):
        stream_init_nb(9, k, s.s)
        wins.add(int(B.winner_nb(cf, st, s.s)))
    assert wins == {0, 1}


def test_lr_11_1_conquest_wins_at_once(comp):
    """LR-11.1: holding every territory ends the game at once (reason conquest)."""
    from lotr_sim.kernels.rng import stream_init_nb
    s = blank(comp)
    for t in range(42):
        put(s, t, 0, 2)
    b = T(comp, "Buckland")
    put(s, b, 1, 1)
    put(s, T(comp, "Fornost"), 0, 30)
    stream_init_nb(1, 1, s.s)
    while s.st[L.O_OWNER + b] == 1 and s.st[L.S_PHASE] == L.PH_ATTACK:
        _attack(comp, s, T(comp, "Fornost"), b, 3)
    if s.st[L.S_PHASE] == L.PH_MOVEIN:
        s.apply(0)
    assert s.is_terminal()
    row = s.result()
    assert row["reason"][0] == 1 and row["conquest_win"][0] == 1 and row["winner_seat"][0] == 0


# ---- invariants, players, config errors ----------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_invariant_after_every_step(players):
    """Every territory held by one army with >= 1 battalion, battalion and card totals
    conserved, Leaders of one army apart (LR-7.2): checked after every step of random games
    and inside the engine (debug) for greedy ones."""
    comp = G.compile(G.load(overrides={"players": players}))
    rng = np.random.default_rng(players)
    for i in range(2):
        s = G.bind(comp).new_state(RAND, 13, i, debug=True)
        while not s.is_terminal():
            s.apply(int(rng.integers(s.legal_actions().shape[0])))
            assert s.invariant_ok()
    r = G.simulate(comp, GREEDY, 3, 0, 60, threads=1, debug=True)
    assert r["invariant_broken"].sum() == 0
    assert (r["points_p4"] > 0).any() == (players == 4)
    assert set(np.unique(r["winner_seat"])) <= set(range(players))


@pytest.mark.parametrize("side", ["good", "evil"])
def test_greedy_beats_random(comp, side):
    """The competence target: greedy beats random in >= 90% of 2-player games on each side."""
    pols = {"good": "random", "evil": "random", side: "greedy"}
    r = G.simulate(comp, pols, 1, 0, 200, threads=1)
    assert (r["winner"] == G.outcomes.index(side)).mean() >= 0.9


def test_config_errors():
    """Bad input is one clear ConfigError line."""
    with pytest.raises(ConfigError, match="unknown parameter"):
        G.load(overrides={"fellowship_roll_abve": 3})
    with pytest.raises(ConfigError, match="outside"):
        G.load(overrides={"players": 5})
    with pytest.raises(ConfigError, match="outside"):
        G.load(overrides={"deck_strategic_withdrawal": 9})
    with pytest.raises(ConfigError, match="deck_missions"):
        G.load(overrides={"deck_missions": 17})


def test_config_bad_board(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('[board]\nedges = [["The Shire", "Mordor", "land"]]\n')
    with pytest.raises(ConfigError, match="unknown territory"):
        G.load(str(p))
    p.write_text('[parms]\nplayers = 3\n')
    with pytest.raises(ConfigError, match="unknown table"):
        G.load(str(p))


def test_lr_9_2_event_only_deck_ends_the_draw(comp):
    """LR-9.2: an event is resolved and another card drawn; when every card left is an event
    (the others held or kept for points), the draw stops after one pass instead of looping."""
    s = blank(comp)
    cf, st = comp.cf, s.st
    put(s, T(comp, "The Shire"), 0, 3)
    put(s, T(comp, "Buckland"), 1, 3)
    na = int(cf[C.C_NADV])
    events = [c for c in range(na) if cf[C.O_AKIND + c] in C.EVENT_KINDS and cf[C.O_AKIND + c] != C.K_SECOND]
    others = [c for c in range(na) if c not in events]
    st[L.S_ADN] = len(events)
    st[L.O_ADECK:L.O_ADECK + len(events)] = events
    st[L.S_ADD] = 0
    st[L.O_ACOUNT + 0] = len(others)           # all other cards kept for points
    st[L.O_LEAD + 0] = T(comp, "The Shire")
    st[L.S_SITE] = 1
    st[L.S_PHASE] = L.PH_FORT
    assert s.invariant_ok()
    s.n_legal = -1
    s.apply(0)                         # end the turn: draws, Fellowship, next turn
    assert st[L.S_CUR] == 1 and st[L.S_SITE] == 0 and s.invariant_ok()


@pytest.mark.parametrize("players", [2, 3])
def test_lr_10_game_length_follows_the_exact_law(players):
    """LR-10.1/10.3: with the cards that move or hold the Ring out of the deck, the full game's
    Fellowship turns follow the exact law derived from the config's track
    (lotr_sim.games.lotr_risk.fellowship.exact), and its length in rounds follows R = ceil(T / players),
    since the Ring moves after every player's turn and never the neutral army's."""
    from lotr_sim.games.lotr_risk.fellowship.exact import fellowship_law, rounds_law
    cfg = G.load(overrides={"players": players, "deck_hunt_ringbearer": 0, "deck_balrog": 0, "deck_smeagol": 0})
    law = fellowship_law(G.fellowship_track(cfg))
    rl = rounds_law(law, players)
    r = G.simulate(G.compile(cfg), RAND, 11, 0, 1200, threads=2)
    keep = r["conquest_win"] == 0
    t = r["fellowship_turns"][keep].astype(float)
    rounds = r["rounds"][keep].astype(float)
    sd_t = float(law.variance) ** 0.5
    assert abs(t.mean() - float(law.mean)) / (sd_t / np.sqrt(len(t))) < 4
    var_r = float(np.dot(rl.rounds ** 2, rl.pmf)) - rl.mean ** 2
    assert abs(rounds.mean() - rl.mean) / np.sqrt(var_r / len(rounds)) < 4
    assert rounds.min() >= rl.r_min and t.min() >= law.t_min


# ---- LR-9.3 You Shall Not Pass! and Strategic Withdrawal -----------------------------------------------
def give(comp, s, seat, kind):
    """Move one adventure card of ``kind`` from the discard pile (blank() puts them all there)
    into ``seat``'s hand; returns its index in the hand."""
    st = s.st
    pile = [int(c) for c in st[L.O_ADISC:L.O_ADISC + st[L.S_ADD]]]
    c = next(c for c in pile if comp.cf[C.O_AKIND + c] == kind)
    pile.remove(c)
    st[L.S_ADD] = len(pile)
    st[L.O_ADISC:L.O_ADISC + len(pile)] = pile
    i = int(st[L.O_AHN + seat])
    st[L.O_AHAND + seat * L.AHMAX + i] = c
    st[L.O_AHN + seat] = i + 1
    s.n_legal = -1
    return i


def bridge(comp, a, b):
    names = comp.names["bridges"]
    return names.index(f"{a} - {b}") if f"{a} - {b}" in names else names.index(f"{b} - {a}")


def close(comp, s, seat, a, b):
    s.st[L.O_BLOCK + seat] = bridge(comp, a, b)
    s.st[L.S_NBLOCK] += 1
    s.n_legal = -1


def test_lr_9_4_default_deck_is_40_cards_with_both_cards_as_params():
    """LR-1.3 / LR-9.4: the default deck has 40 cards, two You Shall Not Pass! and one Strategic
    Withdrawal (the data's counts); a designer can take them out with their parameters."""
    comp = G.compile(G.load())
    kinds = [int(comp.cf[C.O_AKIND + c]) for c in range(int(comp.cf[C.C_NADV]))]
    assert len(kinds) == 40
    assert kinds.count(C.K_YSNP) == 2 and kinds.count(C.K_WITHDRAW) == 1
    out = G.compile(G.load(overrides={"deck_you_shall_not_pass": 0, "deck_strategic_withdrawal": 0}))
    assert int(out.cf[C.C_NADV]) == 37
    assert "The Shire - Buckland" in comp.names["bridges"] or "Buckland - The Shire" in comp.names["bridges"]


def test_lr_9_3_you_shall_not_pass_closes_a_bridge_to_attacks_unless_a_leader_goes(comp):
    """LR-9.3 You Shall Not Pass!: no attack across the closed bridge (The Shire - Buckland);
    the land border (The Shire - Tower Hills) stays open; a force with a Leader crosses."""
    s = blank(comp)
    sh, bk, th = T(comp, "The Shire"), T(comp, "Buckland"), T(comp, "Tower Hills")
    put(s, sh, 0, 5)
    put(s, bk, 1, 1)
    put(s, th, 1, 1)
    att = {tuple(r[1:3]) for r in s.legal_actions() if r[0] == L.A_ATTACK}
    assert att == {(sh, bk), (sh, th)}
    close(comp, s, 1, "The Shire", "Buckland")
    att = {tuple(r[1:3]) for r in s.legal_actions() if r[0] == L.A_ATTACK}
    assert att == {(sh, th)}
    s.st[L.O_LEAD + 0] = sh                      # player 0's Leader in The Shire
    s.n_legal = -1
    att = {tuple(r[1:3]) for r in s.legal_actions() if r[0] == L.A_ATTACK}
    assert att == {(sh, bk), (sh, th)}


def test_lr_9_3_you_shall_not_pass_closes_a_bridge_to_fortify_moves_not_to_a_leader(comp):
    """LR-6.1 + LR-9.3: battalions do not fortify across the closed bridge (Leaders move
    apart from them, LR-6.2, and a Leader may cross); another own path still connects."""
    s = blank(comp)
    sh, bk, th = T(comp, "The Shire"), T(comp, "Buckland"), T(comp, "Tower Hills")
    put(s, sh, 0, 5)
    put(s, bk, 0, 1)
    s.st[L.O_LEAD + 0] = sh
    s.st[L.S_PHASE] = L.PH_FORT
    s.st[L.S_FORT] = 1
    close(comp, s, 1, "The Shire", "Buckland")
    acts = s.legal_actions()
    fort = {tuple(r[1:3]) for r in acts if r[0] == L.A_FORT}
    assert (sh, bk) not in fort and (bk, sh) not in fort
    assert (L.A_LMOVE, 0, bk) in {tuple(r[:3]) for r in acts}
    s.st[L.O_BLOCK + 1] = -1
    s.st[L.S_NBLOCK] = 0
    s.n_legal = -1
    assert (sh, bk) in {tuple(r[1:3]) for r in s.legal_actions() if r[0] == L.A_FORT}
    # a closed bridge does not cut a region joined another way: Fornost - Buckland by land
    fo = T(comp, "Fornost")
    close(comp, s, 1, "The Shire", "Buckland")
    put(s, fo, 0, 3)
    fort = {tuple(r[1:3]) for r in s.legal_actions() if r[0] == L.A_FORT}
    assert (fo, bk) in fort and (sh, fo) not in fort and (sh, th) not in fort


def test_lr_9_3_you_shall_not_pass_is_a_start_of_turn_decision_until_the_next_turn(comp):
    """LR-9.3: at the start of its turn the holder decides (pass, or one row per bridge); the
    card scores its point; the bridge stays closed through the others' turns and opens at the
    holder's next turn start (traced: closed, then opened)."""
    s = blank(comp, trace=True)
    for t in range(int(comp.cf[C.C_NT])):
        put(s, t, t % 2, 2)
    i = give(comp, s, 0, C.K_YSNP)
    s.st[L.S_CUR] = 0
    E.begin_turn_nb(comp.cf, s.st, s.s, s.tr)
    s.n_legal = -1
    assert s.st[L.S_PHASE] == L.PH_BLOCK and s.decision_kind() == "power"
    acts = s.legal_actions()
    nb = len(comp.names["bridges"])
    assert acts[0, 0] == L.A_PASS and len(acts) == nb + 1
    assert {tuple(r) for r in acts[1:]} == {(L.A_POWER, i, k, 0) for k in range(nb)}
    k = bridge(comp, "The Shire", "Buckland")
    s.apply(1 + k)
    assert s.st[L.O_BLOCK + 0] == k and s.st[L.S_NBLOCK] == 1
    assert s.st[L.S_PHASE] in (L.PH_TRADE, L.PH_REINF, L.PH_ATTACK)
    assert s.st[L.O_AHN + 0] == 0 and s.st[L.O_ASCORE + 0] == comp.cf[C.P_PPTS]
    assert s.invariant_ok()
    s.st[L.S_CUR] = 1                                  # the other player's turn: still closed
    E.begin_turn_nb(comp.cf, s.st, s.s, s.tr)
    assert s.st[L.O_BLOCK + 0] == k and s.st[L.S_PHASE] != L.PH_BLOCK
    s.st[L.S_CUR] = 0                                  # the holder's next turn: open again
    E.begin_turn_nb(comp.cf, s.st, s.s, s.tr)
    assert s.st[L.O_BLOCK + 0] == -1 and s.st[L.S_NBLOCK] == 0
    assert s.st[L.S_PHASE] != L.PH_BLOCK               # no card left
    ev = [e for e in decode(comp, s.tr, 0) if e["event"] == "bridge"]
    assert [(e["player"], e["closed"]) for e in ev] == [("p1", True), ("p1", False)]
    assert ev[0]["bridge"] == comp.names["bridges"][k]


def _withdraw_setup(comp, att, dfn, seed=0):
    from lotr_sim.kernels.rng import stream_init_nb
    s = blank(comp, trace=True)
    stream_init_nb(5, seed, s.s)
    sh, bk, of = T(comp, "The Shire"), T(comp, "Buckland"), T(comp, "Old Forest")
    fo = T(comp, "Fornost")
    put(s, sh, 0, att)
    put(s, bk, 1, dfn)
    put(s, of, 1, 2)
    put(s, fo, 0, 2)
    i = give(comp, s, 1, C.K_WITHDRAW)
    return s, sh, bk, of, i


def test_lr_9_3_strategic_withdrawal_is_the_defenders_decision_and_leaves_one(comp):
    """LR-9.3 Strategic Withdrawal: when an attack is declared the defender decides (the seat
    to move becomes its own): pass, or move all but 1 battalion to an adjacent own territory
    (Old Forest, not the enemy's Fornost); battalions are conserved, the roll is then fought
    against the 1 left, and the attacker moves on."""
    for seed in range(5):
        s, sh, bk, of, i = _withdraw_setup(comp, 10, 6, seed)
        _attack(comp, s, sh, bk, 3)
        assert s.st[L.S_PHASE] == L.PH_WITHDRAW and s.st[L.S_CUR] == 1
        assert s.to_move == C.SIDES.index("evil") and s.decision_kind() == "defend"
        acts = s.legal_actions()
        assert [tuple(r) for r in acts] == [(L.A_PASS, 0, 0, 0), (L.A_POWER, i, of, 0)]
        s.apply(1)
        assert s.st[L.S_CUR] == 0 and s.st[L.O_AHN + 1] == 0
        assert s.st[L.O_TROOPS + of] == 2 + 5                       # all but one moved
        assert s.invariant_ok()                               # battalions conserved
        ev = decode(comp, s.tr, 0)
        w = [e for e in ev if e["event"] == "withdrawal"]
        assert [(w[0]["from"], w[0]["to"], w[0]["battalions"])] == [("Buckland", "Old Forest", 5)]
        roll = [e for e in ev if e["event"] == "attack"][-1]
        assert roll["def_dice"] == 1 and roll["def_losses"] + roll["att_losses"] == 1


def test_lr_9_3_strategic_withdrawal_pass_keeps_the_battalions(comp):
    """LR-9.3: passing leaves the territory as it was and the card in hand (asked again at the
    next roll while it can withdraw); no Withdrawal decision for a territory of 1."""
    s, sh, bk, of, i = _withdraw_setup(comp, 10, 6)
    _attack(comp, s, sh, bk, 3)
    s.apply(0)
    defend(comp, s)
    assert s.st[L.O_TROOPS + of] == 2 and s.st[L.O_AHN + 1] == 1
    assert s.st[L.O_TROOPS + bk] + s.st[L.O_TROOPS + sh] == 16 - 2 and s.st[L.S_CUR] == 0
    s2, sh, bk, of, i = _withdraw_setup(comp, 10, 1)
    _attack(comp, s2, sh, bk, 1)
    assert s2.st[L.S_PHASE] != L.PH_WITHDRAW


def test_lr_9_3_greedy_withdraws_only_from_a_hopeless_defence(comp):
    """The greedy heuristic withdraws when the attack takes the territory with P >= 0.8 and
    holds otherwise."""
    s, sh, bk, of, i = _withdraw_setup(comp, 20, 3)
    _attack(comp, s, sh, bk, 3)
    assert s.legal_actions()[s.heuristic_choice(), 0] == L.A_POWER
    s, sh, bk, of, i = _withdraw_setup(comp, 4, 8)
    _attack(comp, s, sh, bk, 3)
    assert s.legal_actions()[s.heuristic_choice(), 0] == L.A_PASS


def test_lr_9_3_greedy_closes_the_bridge_a_strong_enemy_faces(comp):
    """The greedy heuristic closes the bridge where an enemy army without a Leader is likeliest
    to take an own territory (Buckland's 12 against The Shire's 1)."""
    s = blank(comp)
    for t in range(int(comp.cf[C.C_NT])):
        put(s, t, 0, 3)
    sh, bk = T(comp, "The Shire"), T(comp, "Buckland")
    put(s, sh, 0, 1)
    put(s, bk, 1, 12)
    give(comp, s, 0, C.K_YSNP)
    s.st[L.S_PHASE] = L.PH_BLOCK
    acts = s.legal_actions()
    pick = acts[s.heuristic_choice()]
    assert pick[0] == L.A_POWER and pick[2] == bridge(comp, "The Shire", "Buckland")


def test_lr_9_3_traces_with_both_cards_replay(comp):
    """Greedy games play both cards; their traces replay (the withdrawal moves battalions,
    a bridge event changes nothing on the board) and read as an account."""
    seen = set()
    for k in range(12):
        row, ev = G.play(comp, GREEDY, 7, k)
        assert G.replay_check(comp, ev) > 0
        seen |= {e["event"] for e in ev}
        if {"bridge", "withdrawal"} <= seen:
            break
    assert {"bridge", "withdrawal"} <= seen
    text = G.account(ev)
    assert "Game over" in text
