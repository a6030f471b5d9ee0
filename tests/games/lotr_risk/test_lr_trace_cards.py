"""LOTR Risk traces follow the territory-card deck exactly: its order at the set-up (LR-2.5)
and at every reshuffle of the discards (LR-4.3), the cards turned up by Winter Storms, Raiders
and Mustering of Middle-earth and drawn by Local Uprising (LR-9.2), the Uprising card set
aside and used later; ``replay_check`` follows every territory card from the trace alone."""
from __future__ import annotations

import copy

import pytest

from test_lr_rules import GREEDY, T, blank, put

from lotr_sim.games.lotr_risk import board as B
from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.lotr_risk import play as E
from lotr_sim.games.lotr_risk import trace as TR
from lotr_sim.games.lotr_risk.trace import decode
from lotr_sim.games.registry import get_game

G = get_game("lotr-risk")


@pytest.fixture(scope="module")
def comp():
    return G.compile(G.load())


def _events(comp, s, kind=None):
    return [e for e in decode(comp, s.tr, 0) if kind is None or e["event"] == kind]


def _card(comp, c):
    names = comp.names["territories"]
    return names[c] if c < len(names) else "joker"


def _adv(comp, kind):
    """An adventure card of ``kind``, taken off the discard pile (where blank() puts them)."""
    st_kinds = comp.cf[C.O_AKIND:C.O_AKIND + int(comp.cf[C.C_NADV])]
    return int(next(c for c in range(len(st_kinds)) if st_kinds[c] == kind))


def _stack(s, top):
    """Put the territory cards ``top`` (first = drawn first) on top of the deck."""
    st = s.st
    n = int(st[L.S_TDN])
    deck = [int(c) for c in st[L.O_TDECK:L.O_TDECK + n]]
    for c in top:
        deck.remove(c)
    deck += list(reversed(top))
    st[L.O_TDECK:L.O_TDECK + n] = deck


@pytest.mark.parametrize("kind", [C.K_WINTER, C.K_RAIDERS, C.K_MUSTER])
def test_lr_9_2_cards_turned_up_by_an_event_are_traced(comp, kind):
    """LR-9.2: Winter Storms, Raiders and Mustering of Middle-earth turn up three territory
    cards; each is traced as it is turned up (player, the event card, the territory card,
    where it goes: the discard pile), so the deck can be followed; a joker does nothing."""
    s = blank(comp, trace=True)
    sh, bk, fo = T(comp, "The Shire"), T(comp, "Buckland"), T(comp, "Fornost")
    joker = int(comp.cf[C.C_NT])
    put(s, sh, 0, 4)
    put(s, bk, 1, 6)
    _stack(s, [bk, joker, sh])
    c = _adv(comp, kind)
    E._resolve_event_nb(comp.cf, s.st, s.s, s.tr, 0, c)
    got = [(e["player"], e["by"], e["card"], e["to"]) for e in _events(comp, s, "turned_up")]
    name = comp.names["adventure"][c]
    assert got == [("p1", name, "Buckland", "discard"), ("p1", name, "joker", "discard"),
                   ("p1", name, "The Shire", "discard")]
    assert [int(x) for x in s.st[L.O_TDISC:L.O_TDISC + s.st[L.S_TDD]]] == [bk, joker, sh]
    assert fo not in [int(x) for x in s.st[L.O_TDISC:L.O_TDISC + s.st[L.S_TDD]]]


@pytest.mark.parametrize("whose,to", [(0, "discard"), (1, "aside"), (-1, "discard")])
def test_lr_9_2_local_uprising_card_is_traced_and_its_later_use(comp, whose, to):
    """LR-9.2 Local Uprising draws one territory card: the holder's own territory gets 4 at
    once (the card is discarded), another's is set aside until the holder holds it at the
    start of a turn (then traced as used), a joker is discarded."""
    s = blank(comp, trace=True)
    sh, bk = T(comp, "The Shire"), T(comp, "Buckland")
    put(s, sh, 0, 2)
    put(s, bk, 1, 2)
    card = {0: sh, 1: bk, -1: int(comp.cf[C.C_NT])}[whose]
    _stack(s, [card])
    c = _adv(comp, C.K_UPRISING)
    E._resolve_event_nb(comp.cf, s.st, s.s, s.tr, 0, c)
    got = [(e["player"], e["by"], e["card"], e["to"]) for e in _events(comp, s, "turned_up")]
    assert got == [("p1", "Local Uprising", _card(comp, card), to)]
    if to == "aside":
        assert s.st[L.O_UPR + 0] == bk
        put(s, bk, 0, 1)                       # p1 takes Buckland; its next turn starts
        s.st[L.S_CUR] = 0
        E.begin_turn_nb(comp.cf, s.st, s.s, s.tr)
        used = _events(comp, s, "uprising")
        assert [(e["player"], e["card"], e["used"]) for e in used] == [("p1", "Buckland", True)]
        assert s.st[L.O_TROOPS + bk] == 5 and s.st[L.O_UPR + 0] == -1


def test_lr_4_3_a_reshuffle_of_the_territory_deck_is_traced_with_its_order(comp):
    """LR-4.3: an empty deck is reshuffled from the discards; the trace gives the new deck, top
    card first, so the next draws can be checked against it."""
    s = blank(comp, trace=True)
    st = s.st
    pile = [5, 9, 17, 42]
    st[L.S_TDN] = 0
    st[L.S_TDD] = len(pile)
    st[L.O_TDISC:L.O_TDISC + len(pile)] = pile
    drawn = [int(B.tdraw_nb(st, s.s, s.tr)) for _ in range(2)]
    ev = _events(comp, s, "territory_deck")
    assert len(ev) == 1 and ev[0]["why"] == "reshuffle"
    assert sorted(ev[0]["cards"]) == sorted(_card(comp, c) for c in pile)
    assert ev[0]["cards"][:2] == [_card(comp, c) for c in drawn]


@pytest.mark.parametrize("players", [2, 4])
def test_lr_2_5_the_set_up_deck_order_is_traced(players):
    """LR-2.5: the one shuffled deck of every territory card and the 2 jokers, top first."""
    comp = G.compile(G.load(overrides={"players": players}))
    s = G.bind(comp).new_state(GREEDY, 5, 1, trace=True)
    ev = _events(comp, s, "territory_deck")
    n = int(s.st[L.S_TDN])
    assert n == int(comp.cf[C.C_NTC]) == 44
    assert len(ev) == 1 and ev[0]["why"] == "setup"
    assert ev[0]["cards"] == [_card(comp, int(s.st[L.O_TDECK + i])) for i in range(n - 1, -1, -1)]


@pytest.mark.parametrize("players,roll", [(2, 3), (3, 3), (4, 3), (4, 5)])
def test_the_territory_deck_is_followed_from_the_trace_alone(players, roll):
    """From the trace alone every territory card is followed (deck, hands, discards, set
    aside): each draw and card turned up is the deck's top card, each trade's cards were in
    the trader's hand, each reshuffle is the discard pile, and every turn-start snapshot's
    hands are the followed ones (``replay_check`` runs it). The longer games of a Fellowship
    that needs a 6 (fellowship_roll_above 5) empty the deck, so it is reshuffled."""
    comp = G.compile(G.load(overrides={"players": players, "fellowship_roll_above": roll}))
    tot = {}
    for k in range(6):
        _, ev = G.play(comp, GREEDY, 41, k)
        assert G.replay_check(comp, ev) > 0
        for key, v in TR.follow_territory_cards(ev).items():
            tot[key] = tot.get(key, 0) + v
    assert tot["drawn"] > 10 and tot["hands_checked"] > 20 and tot["traded"] > 0
    assert tot["turned_up"] > 0 or players == 3
    assert tot["reshuffles"] > 0 or roll == 3


def test_following_the_deck_can_fail(comp):
    """The follower is no formality: a changed card in a draw, a trade of a card not held, or
    a dropped turned-up card makes it fail."""
    _, ev = G.play(comp, GREEDY, 41, 0)
    TR.follow_territory_cards(ev)
    i = next(k for k, e in enumerate(ev) if e["event"] == "card_drawn")
    bad = copy.deepcopy(ev)
    bad[i]["card"] = "Moria" if bad[i]["card"] != "Moria" else "Fornost"
    with pytest.raises(AssertionError):
        TR.follow_territory_cards(bad)
    with pytest.raises(AssertionError):
        G.replay_check(comp, bad)
    j = next(k for k, e in enumerate(ev) if e["event"] == "trade")
    bad = copy.deepcopy(ev)
    x = next(n for n in bad[j]["cards"] if n != "joker")     # one card of each territory exists
    bad[j]["cards"] = [x, x, x]
    with pytest.raises(AssertionError):
        TR.follow_territory_cards(bad)
    bad = [e for e in ev if e["event"] != "territory_deck" or e["why"] != "setup"]
    assert TR.follow_territory_cards(bad)["drawn"] == 0      # nothing to follow without the set-up deck
