"""Decode the LOTR Risk engine's flat trace into JSON events, replay them on a snapshot
(``replay_check``), follow every territory card (``follow_territory_cards``), and tell the game
turn by turn (``account``). The events: every decision (its kind, seat and options; the
defender's and the card holders' kinds ``courage``, ``dice``, ``smeagol``, ``balrog`` too),
hands in snapshots, the set-up roll and deal, the trade's bonus territory, power targets, the
attack's defender, turns from 1, and the territory deck's secret draws (``territory_deck``,
``turned_up``, ``uprising``); the header is every game's
(``lotr_sim.games.adapter.trace_header``).

Every event has ``game, round, turn, side`` (the side whose turn it is; null in the set-up
before the first turn) and ``event``. Turns and rounds count from 1 (the set-up is turn 0,
round 0), as the account prints them.

* ``setup_roll {roll, first, decides}`` (LR-2.2/2.3: the die, 1..players, and the player who
  starts; with 3-4 players the die only decides who sits in seat 1, so p1 starts);
* ``turn_start`` snapshot: ``player`` (p1..p4), ``ring`` (territory) and ``ring_step``,
  ``owners {territory: p1..p4|neutral}``, ``battalions {territory: n}``, ``leaders`` (8 slots,
  two per player: territory or null), ``hands {p1..: [territory cards]}`` and
  ``adventure_hands {p1..: [adventure cards]}``;
* ``decision {seat, kind, choice, n_legal, row}``: each decision of the step machine, the seat
  that took it (p1..p4), its kind (``layout.PHASE_KIND``), the chosen index into the legal
  list, the number of legal rows and the chosen row's values (kind, a, b, c; play.py). The
  seat is the one that holds the choice: the defender for ``defend`` (Strategic Withdrawal),
  ``courage`` (row 0 keeps the card, row 1 plays it) and ``dice`` (row (12, dice, 0, 0), LR-5.2),
  the card's holder for ``smeagol`` and ``balrog`` (row 0 keeps, row 1 plays; LR-10.4);
* ``place {player, territory, battalions, why}`` (why: claim, setup, reinforce,
  card_territory, mission, event, power, neutral, dealt; a negative number takes battalions
  off, e.g. Raiders); ``leader {player, slot, from, to}`` (from null: placed; to null:
  removed, LR-5.7);
* ``trade {player, cards, value, bonus_territory}`` (LR-4.3: the held card territory that
  got the +2, or null); ``attack {player, from, to, defender,
  att_dice, def_dice, att_faces, def_faces, att_bonus, def_bonus, att_losses, def_losses}``
  (LR-5.2-5.4: bonuses on the highest die, ties to the defender); ``conquest {player, from,
  to, moved, from_player}`` (LR-5.6); ``fortify {player, from, to, battalions}`` (LR-6.1);
* ``bridge {player, bridge, closed}`` (You Shall Not Pass!, LR-9.3: closed by the player at the
  start of its turn, opened again at its next; ``bridge`` is "A - B"); ``withdrawal {player,
  from, to, battalions}`` (Strategic Withdrawal, LR-9.3: the defender's move before the roll);
* ``territory_deck {why, cards}``: the territory deck, top card first, after the set-up's shuffle
  (why ``setup``, LR-2.5) and after each reshuffle of the discards (``reshuffle``, LR-4.3);
  ``turned_up {player, by, card, to}``: a territory card the event ``by`` turns up or draws
  (Winter Storms, Raiders, Mustering of Middle-earth: 3 each, their territories take the
  effect; Local Uprising: 1), to the discard pile or set ``aside`` (Local Uprising, LR-9.2);
  ``uprising {player, card, used}``: the card set aside goes to the discard pile, used (its
  holder holds the territory at a turn's start: +4 there) or not (the holder is out). With
  ``card_drawn``, trades and eliminations they follow every territory card exactly;
* ``card_drawn {player, card}`` (LR-8.1); ``adventure {player, card, what}`` (what: drawn,
  discarded, event, power, mission, dealt (the starting hands, LR-2.6); LR-8.2, LR-9; a power
  names its territories: ``target`` for The Enemy is at Hand and Courage, ``from``/``to`` for
  Grima, Ambush, The Way is Under the Mountains, Strategic Withdrawal and You Shall Not Pass!);
  ``eliminated {player}``;
* ``balrog {player, roll, held}`` (LR-10.4: the die of "A Balrog is Come");
* ``fellowship {from, to, roll, modifier, moved}`` (LR-10; roll 0: no die needed);
* ``game_end {winner, winner_player, reason, points {p1..}}`` (LR-11).
"""
from __future__ import annotations

import numpy as np

from lotr_sim.kernels.tracebuf import iter_events
from lotr_sim.games.account import render, seat_label, turn_line
from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L

SIDES = ("good", "evil", "neutral")
WHAT = ("drawn", "discarded", "event", "power", "mission", "dealt")
_TARGET = (C.K_ENEMY, C.K_COURAGE)
_FROM_TO = (C.K_GRIMA, C.K_AMBUSH, C.K_WAY, C.K_WITHDRAW, C.K_YSNP)


def _pl(p: int) -> str:
    return "neutral" if p == C.NEUTRAL else f"p{p + 1}" if p >= 0 else "none"


def decode(comp, tr: np.ndarray, game_index: int) -> list[dict]:
    """The engine's trace buffer as a list of events (see the module docstring)."""
    names = comp.names["territories"]
    nt = len(names)
    npl = int(comp.cf[C.C_NP])
    path = comp.names["path"]
    adv = comp.names["adventure"]
    sides = comp.names["seat_sides"]

    def card(c: int) -> str:
        return names[c] if c < nt else "joker"

    def tn(t: int):
        return names[t] if 0 <= t < nt else None

    akind = comp.cf[C.O_AKIND:C.O_AKIND + len(adv)]
    out: list[dict] = []
    turn = 0
    seat = -1
    for code, v in iter_events(tr):
        v = [int(x) for x in v]
        base = {"game": int(game_index), "round": (turn - 1) // npl + 1 if turn else 0, "turn": turn,
                "side": sides[seat] if seat >= 0 else None}
        if code == L.EV_SNAP:
            turn, seat = v[0] + 1, v[1]
            base = {"game": int(game_index), "round": (turn - 1) // npl + 1, "turn": turn, "side": sides[seat]}
            own = v[3: 3 + nt]
            tro = v[3 + nt: 3 + 2 * nt]
            lead = v[3 + 2 * nt: 3 + 2 * nt + 8]
            hands, ahands = {}, {}
            k = 3 + 2 * nt + 8
            for p in range(C.MAXP):
                h = v[k + 1: k + 1 + v[k]]
                k += 1 + L.HMAX
                a = v[k + 1: k + 1 + v[k]]
                k += 1 + L.AHMAX
                if p < npl:
                    hands[_pl(p)] = [card(c) for c in h]
                    ahands[_pl(p)] = [adv[c] for c in a]
            e = dict(base, event="turn_start", player=_pl(seat), ring=path[v[2]], ring_step=v[2],
                     owners={names[t]: _pl(own[t]) for t in range(nt)},
                     battalions={names[t]: tro[t] for t in range(nt)},
                     leaders=[tn(x) for x in lead], hands=hands, adventure_hands=ahands)
        elif code == L.EV_DECISION:
            e = dict(base, event="decision", seat=_pl(v[0]), kind=L.PHASE_KIND[v[1]], choice=v[2],
                     n_legal=v[3], row=v[4:8])
        elif code == L.EV_SETUP:
            e = dict(base, event="setup_roll", roll=v[0] + 1, first=_pl(v[1]),
                     decides="who starts" if npl == 2 else "who sits in seat p1")
        elif code == L.EV_BALROG:
            e = dict(base, event="balrog", player=_pl(v[0]), roll=v[1], held=bool(v[2]))
        elif code == L.EV_TURN:
            continue
        elif code == L.EV_PLACE:
            e = dict(base, event="place", player=_pl(v[0]), territory=names[v[1]], battalions=v[2],
                     why=L.WHY[v[3]])
        elif code == L.EV_LEADER:
            e = dict(base, event="leader", player=_pl(v[0]), slot=v[1], **{"from": tn(v[2])}, to=tn(v[3]))
        elif code == L.EV_TRADE:
            e = dict(base, event="trade", player=_pl(v[0]), cards=[card(c) for c in v[1:4]], value=v[4],
                     bonus_territory=tn(v[5]))
        elif code == L.EV_ROLL:
            f = v[5]
            faces = [f // 10000, (f // 1000) % 10, (f // 100) % 10, (f // 10) % 10, f % 10]
            ad, dd = (v[3] // 10) % 10, v[3] % 10
            e = dict(base, event="attack", player=_pl(v[0]), **{"from": names[v[1]]}, to=names[v[2]],
                     defender=_pl(v[3] // 100),
                     att_dice=ad, def_dice=dd, att_faces=faces[:ad], def_faces=faces[3:3 + dd],
                     att_bonus=v[4] // 10, def_bonus=v[4] % 10, att_losses=v[6], def_losses=v[7])
        elif code == L.EV_CONQ:
            e = dict(base, event="conquest", player=_pl(v[0]), **{"from": names[v[1]]}, to=names[v[2]],
                     moved=v[3], from_player=_pl(v[4]))
        elif code == L.EV_FORT:
            e = dict(base, event="fortify", player=_pl(v[0]), **{"from": names[v[1]]}, to=names[v[2]],
                     battalions=v[3])
        elif code == L.EV_TDRAW:
            e = dict(base, event="card_drawn", player=_pl(v[0]), card=card(v[1]))
        elif code == L.EV_ADV:
            e = dict(base, event="adventure", player=_pl(v[0]), card=adv[v[1]], what=WHAT[v[2]])
            if v[2] == 3 and akind[v[1]] in _TARGET:
                e["target"] = tn(v[3])
            elif v[2] == 3 and akind[v[1]] in _FROM_TO:
                e["from"], e["to"] = tn(v[3]), tn(v[4])
        elif code == L.EV_RING:
            e = dict(base, event="fellowship", **{"from": path[v[0]]},
                     to=path[v[1]] if v[1] < len(path) else "left the Dead Marshes" if v[1] > v[0] else path[v[1]],
                     to_step=v[1], roll=v[2], modifier=v[3], moved=v[1] != v[0])
        elif code == L.EV_BLOCK:
            e = dict(base, event="bridge", player=_pl(v[0]), bridge=comp.names["bridges"][v[1]],
                     closed=bool(v[2]))
        elif code == L.EV_WITHDRAW:
            e = dict(base, event="withdrawal", player=_pl(v[0]), **{"from": names[v[1]]}, to=names[v[2]],
                     battalions=v[3])
        elif code == L.EV_ELIM:
            e = dict(base, event="eliminated", player=_pl(v[0]))
        elif code == L.EV_TDECK:
            e = dict(base, event="territory_deck", why=("setup", "reshuffle")[v[0]],
                     cards=[card(c) for c in v[2:2 + v[1]]])
        elif code == L.EV_TURNUP:
            e = dict(base, event="turned_up", player=_pl(v[0]), by=adv[v[1]], card=card(v[2]),
                     to=("discard", "aside")[v[3]])
        elif code == L.EV_ASIDE:
            e = dict(base, event="uprising", player=_pl(v[0]), card=card(v[1]), used=bool(v[2]))
        elif code == L.EV_END:
            w = v[0]
            e = dict(base, event="game_end", winner=sides[w], winner_player=_pl(w),
                     reason=("fellowship", "conquest", "turn_cap")[v[1]],
                     points={f"p{p + 1}": v[2 + p] for p in range(npl)})
        else:
            raise ValueError(f"unknown trace event code {code}")
        out.append(e)
    return out


def _snap(e: dict) -> dict:
    return {"owners": dict(e["owners"]), "battalions": dict(e["battalions"]),
            "leaders": list(e["leaders"]), "ring_step": e["ring_step"]}


def _apply(st: dict, e: dict) -> None:
    ev = e["event"]
    if ev == "place":
        st["battalions"][e["territory"]] += e["battalions"]
        if e["battalions"] > 0:
            st["owners"][e["territory"]] = e["player"]
    elif ev == "leader":
        st["leaders"][e["slot"]] = e["to"]
    elif ev == "attack":
        st["battalions"][e["from"]] -= e["att_losses"]
        st["battalions"][e["to"]] -= e["def_losses"]
    elif ev == "conquest":
        st["battalions"][e["from"]] -= e["moved"]
        st["battalions"][e["to"]] = e["moved"]
        st["owners"][e["to"]] = e["player"]
    elif ev in ("fortify", "withdrawal"):
        st["battalions"][e["from"]] -= e["battalions"]
        st["battalions"][e["to"]] += e["battalions"]
    elif ev == "fellowship":
        st["ring_step"] = e["to_step"]


def follow_territory_cards(events: list[dict]) -> dict[str, int]:
    """Follow every territory card from the trace alone, from the set-up's deck (LR-2.5) on:
    the deck (in order), each player's hand, the discard pile and the cards Local Uprising set
    aside. Each card drawn (LR-8.1) or turned up by an event (LR-9.2) must be the deck's top
    card, each traded card (LR-4.3) in the trader's hand, each reshuffle (LR-4.3) the discard
    pile, each aside card used or dropped the one set aside, and every ``turn_start``
    snapshot's hands the followed ones (as multisets); an eliminated player's cards go to the
    discard pile. Raises AssertionError at the first event that does not follow; returns the
    counts checked (all 0 for a trace without the set-up's deck: nothing to follow)."""
    n = dict(drawn=0, turned_up=0, traded=0, reshuffles=0, aside=0, hands_checked=0)
    deck: list[str] | None = None
    disc: list[str] = []
    hands: dict[str, list[str]] = {}
    aside: dict[str, str] = {}

    def where(e: dict) -> str:
        return f"turn {e['turn']}, {e['event']}"

    def take(from_: list[str], c: str, e: dict, what: str) -> None:
        if c not in from_:
            raise AssertionError(f"{where(e)}: {c} is not in {what}")
        from_.remove(c)

    for e in events:
        ev = e["event"]
        if ev == "territory_deck":
            if e["why"] == "setup":
                deck, disc, hands, aside = list(reversed(e["cards"])), [], {}, {}
                continue
            if deck is None:
                continue
            if deck or sorted(e["cards"]) != sorted(disc):
                raise AssertionError(f"{where(e)}: the reshuffled deck is not the discard pile")
            deck, disc = list(reversed(e["cards"])), []
            n["reshuffles"] += 1
        elif deck is None:
            continue
        elif ev in ("card_drawn", "turned_up"):
            if not deck or deck[-1] != e["card"]:
                raise AssertionError(f"{where(e)}: {e['card']} is not the top card of the territory deck "
                                     f"({deck[-1] if deck else 'empty'})")
            deck.pop()
            if ev == "card_drawn":
                hands.setdefault(e["player"], []).append(e["card"])
                n["drawn"] += 1
            else:
                if e["to"] == "aside":
                    aside[e["player"]] = e["card"]
                else:
                    disc.append(e["card"])
                n["turned_up"] += 1
        elif ev == "trade":
            for c in e["cards"]:
                take(hands.setdefault(e["player"], []), c, e, f"{e['player']}'s hand")
            disc += e["cards"]
            n["traded"] += 1
        elif ev == "uprising":
            if aside.get(e["player"]) != e["card"]:
                raise AssertionError(f"{where(e)}: {e['player']} has not {e['card']} set aside")
            disc.append(aside.pop(e["player"]))
            n["aside"] += 1
        elif ev == "eliminated":
            disc += hands.pop(e["player"], [])
        elif ev == "turn_start":
            for p, h in e["hands"].items():
                if sorted(h) != sorted(hands.get(p, [])):
                    raise AssertionError(f"turn {e['turn']}: {p}'s territory cards are {h}, the trace's "
                                         f"draws and trades give {hands.get(p, [])}")
                n["hands_checked"] += 1
    return n


def replay_check(events: list[dict]) -> int:
    """From each ``turn_start`` snapshot, the events that follow must give the next one (owners,
    battalions, Leaders, the Ring), and every territory card follows from the trace alone
    (``follow_territory_cards``). Returns the number of snapshots checked."""
    follow_territory_cards(events)
    st = None
    n = 0
    for e in events:
        if e["event"] == "turn_start":
            snap = _snap(e)
            if st is not None:
                if st != snap:
                    diff = [k for k in snap if st[k] != snap[k]]
                    raise AssertionError(f"turn {e['turn']}: replaying the events does not give this "
                                         f"snapshot (differs in {', '.join(diff)})")
                n += 1
            st = snap
        elif st is not None:
            _apply(st, e)
    return n


def format_event(e: dict) -> str | None:
    """One line of the account (None for events it leaves out)."""
    ev = e["event"]
    p = e.get("player")
    if ev == "turn_start":
        held: dict[str, int] = {}
        for t, o in e["owners"].items():
            held[o] = held.get(o, 0) + 1
        army = {o: sum(n for t, n in e["battalions"].items() if e["owners"][t] == o) for o in held}
        parts = ", ".join(f"{o} {held[o]} terr/{army[o]} batt" for o in sorted(held))
        return turn_line(e["turn"], e["round"], seat_label(p, e["side"]), f"Ring in {e['ring']}; {parts}")
    if ev == "place":
        if e["why"] in ("dealt", "neutral", "claim", "setup"):
            return None
        return f"  {p} {'+' if e['battalions'] > 0 else ''}{e['battalions']} in {e['territory']} ({e['why']})"
    if ev == "leader":
        if e["from"] is None:
            return f"  {p} places a Leader in {e['to']}"
        if e["to"] is None:
            return f"  {p}'s Leader in {e['from']} is removed"
        return f"  {p}'s Leader moves {e['from']} -> {e['to']}"
    if ev == "setup_roll":
        return f"set-up: the die shows {e['roll']} ({e['decides']}); {e['first']} starts"
    if ev == "trade":
        bonus = f", +2 in {e['bonus_territory']}" if e.get("bonus_territory") else ""
        return f"  {p} trades {', '.join(e['cards'])} for {e['value']}{bonus}"
    if ev == "balrog":
        return f"  {p}'s Balrog roll {e['roll']}: the Ring {'is held in Moria' if e['held'] else 'goes on'}"
    if ev == "attack":
        bon = f" (+{e['att_bonus']}/+{e['def_bonus']})" if e["att_bonus"] or e["def_bonus"] else ""
        return (f"  {p} attacks {e['from']} -> {e['to']}: {e['att_faces']} v {e['def_faces']}{bon}, "
                f"loses {e['att_losses']}, kills {e['def_losses']}")
    if ev == "conquest":
        return f"  {p} conquers {e['to']} from {e['from_player']}, moves in {e['moved']}"
    if ev == "fortify":
        return f"  {p} fortifies {e['from']} -> {e['to']} with {e['battalions']}"
    if ev == "card_drawn":
        return f"  {p} draws a territory card ({e['card']})"
    if ev == "adventure":
        where = f" on {e['target']}" if "target" in e else f" {e['from']} -> {e['to']}" if "from" in e else ""
        return f"  {p} adventure card {e['card']}: {e['what']}{where}"
    if ev == "bridge":
        if e["closed"]:
            return f"  {p} plays You Shall Not Pass!: the bridge {e['bridge']} is closed until its next turn"
        return f"  the bridge {e['bridge']} ({p}'s) opens again"
    if ev == "withdrawal":
        return f"  {p} plays Strategic Withdrawal: {e['battalions']} battalions {e['from']} -> {e['to']}"
    if ev == "eliminated":
        return f"  {p} is eliminated"
    if ev == "turned_up":
        where = "set aside" if e["to"] == "aside" else "to the discard pile"
        return f"  {e['by']} turns up {e['card']} ({where})"
    if ev == "uprising":
        if e["used"]:
            return f"  {p}'s Local Uprising card {e['card']} is used (+4 there)"
        return f"  {p}'s Local Uprising card {e['card']} goes to the discard pile unused"
    if ev == "territory_deck" and e["why"] == "reshuffle":
        return f"  the territory deck is empty: {len(e['cards'])} discarded cards are shuffled into a new deck"
    if ev == "fellowship":
        roll = f" (roll {e['roll']}{'+' + str(e['modifier']) if e['modifier'] else ''})" if e["roll"] else ""
        return f"  the Fellowship {'moves ' + e['from'] + ' -> ' + e['to'] if e['moved'] else 'stays in ' + e['from']}{roll}"
    return None


def account(events: list[dict]) -> str:
    """A readable turn-by-turn account of a trace (``lotr-sim play``), in the shape every
    game's account shares (``lotr_sim.games.account``: header, turn headings, end line)."""
    return render(events, format_event)
