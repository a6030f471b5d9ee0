"""Decode the engine's flat int trace into JSON events, replay events on a
snapshot, and render a readable turn-by-turn account.

Buffer format: lotr_sim.kernels.tracebuf's, one record per event, ``[length, code, round,
turn, side, payload...]`` (codes layout.EV_*). Every decoded event has ``game, round, turn, side`` (whose turn) and
``event``. Names (territories, unit types, leaders, cards) come from the config; Minas
Tirith cards with several copies are labelled "Name #k".

Events (``catapult_lost`` and ``discard`` make the trace complete):

* ``setup`` / ``turn_start``: snapshot ``units {territory: {side: {type: n}}}``, ``leaders
  {territory: [names]}``, ``holders {card: {type: n}}``, ``pools {side: {type: n}}``,
  ``captured {side: {type: n, leaders: [..]}}`` (what that side has captured),
  ``mt_cards {side: [cards]}``, ``deck_left``, ``gate_broken``, and for an exact replay
  also ``catapults {card: {side, territory}}``, ``mt_discard``, ``leaders_off {name:
  pool|card}``, ``mt_deck_left``. ``turn_start`` is taken after the turn's draw and adds
  ``dice_rolled`` (first turn of a round), ``die``, ``missions``, ``cards_drawn``.
* ``trade {set, cards, mt_card, mt_kept, bonus: null|draw_two|from_discard|unit, ...}``
* ``card_played {card, effect[, territory]}``; ``load {card, units}``;
  ``place {territory, units, leaders, source: pool|card[, card]}``;
  ``exchange {territory, removed, added}``; ``move {from, to, path, units, leaders, cost}``
  (cost 0: the free cavalry move-in, MT-7.6);
* ``assault {from, to, attackers, att_dice, def_dice, att_bonus, def_bonus, att_losses,
  def_losses, defenders_before}``; ``bombard {from, to, shooters, dice, hits, banner}``;
* ``capture {by, territory, unit|leader}`` one per loss, right after its cause;
* ``retreat {retreating, from, path, units, leaders, losses}`` (``retreating`` is the side
  that retreats, as ``side`` already means whose turn it is; losses are captured at the
  last territory of the path, by the ``capture`` events that follow);
* ``leader_removed {name, territory, why: alone|same_colour|last_unit, to: pool|captured}``;
  ``gate_broken {}``; ``catapult_lost {card, territory}``; ``discard {cards}``;
* ``game_end {winner, reason, points {good, evil}}``.

So that a trace can be checked on its own:

* the first event is ``header {game_name, lotr_sim_version, trace_version, config_hash, config,
  params (those that differ from the defaults), policies, seed, game_index, ...}`` (added by
  ``play``; ``round``/``turn`` 0, ``side`` null; every game writes the same header,
  ``lotr_sim.games.adapter.trace_header``, ``trace_version`` 4 - the events are version 3's);
* ``assault`` also carries ``witch_king``, ``att_sixes``/``def_sixes`` (the retreat-trigger
  sixes as the engine counted them: natural, or modified under ``retreat_trigger=modified6``)
  and ``att_faces``/``def_faces`` (each side's dice in the order rolled); the result follows
  from them by MT-7.4: highest against highest, ``att_bonus``/``def_bonus`` on the highest
  die only, then second against second when both rolled two or more, ties to the defender;
* ``bombard`` also carries ``faces`` (one per die; each 6 is a hit, MT-7.2).

Trace version 3 (every rule auditable from the trace) adds, and changes nothing else
(tests/games/minas_tirith/test_mt_golden.py checks that a version-3 trace without these additions is
the version-2 trace):

* ``decision {seat, kind, choice, n_legal, row}``, one per decision of the step machine, logged
  just before it is applied, whoever takes it - a built-in player inside the engine's loop
  (``run_until_nb``) or a seat held in Python through ``apply``: ``seat`` the seat that decides
  (``good``/``evil``; ``side`` stays whose turn it is), ``kind`` the decision's kind as
  ``State.decision_kind`` names it (``die``, ``action``, ``loss``, ``retreat``, ``card``),
  ``choice`` the index taken in the legal list, ``n_legal`` its length and ``row`` the chosen
  row's six ints (MinasTirith's step-machine comment documents the columns). Fed back through
  ``apply`` from the same seed and players, the choices replay the game (a built-in random
  player also draws from the game's stream when it chooses, so only its heuristic seats replay
  by choices alone). A mission-die decision comes before its ``turn_start`` and so carries the
  previous turn's number. A built-in seat makes its card step inside the engine (MT-5): only a
  seat held in Python has ``card`` decisions;
* snapshots (``setup``, ``turn_start``) carry ``hands {side: [{id, type, shield}]}``, each side's
  reinforcement cards (MT-5.1: face up) in hand order, ``id`` the card's index in the config's
  deck; the units loaded on holder cards were already in ``holders``. ``turn_start`` adds
  ``drawn_ids``, the ids of ``cards_drawn``;
* ``trade`` adds ``card_ids`` (the ids of ``cards``, the set traded); ``discard`` (hand limit)
  adds ``card_ids``; ``load`` adds ``hand_card {id, type, shield}``, the card traded for the unit
  (MT-5.5);
* ``bombard`` adds who fired (MT-6.1, MT-7.2, MT-9.4): ``archers`` (how many of the shooters are
  archers, all standing at ``from``), ``archers_at {type: n}`` (the archer units standing at
  ``from`` when they fire), ``archers_fired_before`` (how many of them had already fired this
  turn) and ``catapult`` (the catapult card that fired, or null); ``shooters`` = ``archers`` + 1
  if a catapult fired.
"""
from __future__ import annotations

import copy

from lotr_sim.games.account import render, turn_line
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.kernels.tracebuf import iter_events

SIDES = ("good", "evil")
CLASS_CARD = ("infantry", "cavalry", "creature", "joker")
CARD_KIND = C.CARD_KINDS
WINNERS = ("good", "evil", "draw")
REASONS = ("leaders", "city", "deck")
BONUS = (None, "draw_two", "from_discard", "unit")
WHY = ("alone", "same_colour", "last_unit")

EV = {1: "setup", 2: "turn_start", 3: "trade", 4: "card_played", 5: "load", 6: "place", 7: "exchange",
      8: "move", 9: "assault", 10: "bombard", 11: "capture", 12: "retreat", 13: "leader_removed",
      14: "gate_broken", 15: "game_end", 16: "catapult_lost", 17: "discard", 18: "decision"}
# the decision kinds of State.decision_kind, by step-machine phase (layout.PH_*)
KIND = {1: "die", 2: "action", 3: "loss", 4: "loss", 5: "loss", 6: "retreat", 7: "card"}


def card_labels(names) -> list[str]:
    inst = names["card_instance_name"]
    total = {n: inst.count(n) for n in inst}
    seen: dict = {}
    out = []
    for n in inst:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if total[n] == 1 else f"{n} #{seen[n]}")
    return out


class _Reader:
    def __init__(self, buf, pos):
        self.buf = buf
        self.pos = pos

    def get(self):
        v = int(self.buf[self.pos])
        self.pos += 1
        return v


def _deck_card(nm, c) -> dict:
    """A reinforcement card (MT-3.1): its deck index ``id`` (the config's deck order), type, shield."""
    return {"id": int(c), "type": nm["deck_types"][c], "shield": nm["deck_shields"][c]}


def _snapshot(r: _Reader, comp) -> dict:
    nm = comp.names
    cf = comp.cf
    T, NU, NL, NC = int(cf[C.C_T]), int(cf[C.C_NU]), int(cf[C.C_NL]), int(cf[C.C_NC])
    terr, ut, us = nm["territories"], nm["unit_types"], nm["unit_sides"]
    labels = card_labels(nm)
    units: dict = {}
    for t in range(T):
        for u in range(NU):
            v = r.get()
            if v:
                units.setdefault(terr[t], {}).setdefault(us[u], {})[ut[u]] = v
    pools = {"good": {}, "evil": {}}
    for u in range(NU):
        pools[us[u]][ut[u]] = r.get()
    captured = {"good": {"leaders": []}, "evil": {"leaders": []}}
    for u in range(NU):
        v = r.get()
        by = SIDES[1 - SIDES.index(us[u])]
        if v:
            captured[by][ut[u]] = v
    leaders: dict = {}
    leaders_off = {}
    for l in range(NL):
        loc = r.get()
        name = nm["leaders"][l]
        if loc >= 0:
            leaders.setdefault(terr[loc], []).append(name)
        elif loc == -2:
            by = SIDES[1 - SIDES.index(nm["leader_sides"][l])]
            captured[by]["leaders"].append(name)
        else:
            leaders_off[name] = "pool" if loc == -1 else "card"
    holders: dict = {}
    mt_cards = {"good": [], "evil": []}
    catapults = {}
    discard = []
    for c in range(NC):
        cs = r.get()
        loc = r.get()
        h = {}
        for u in range(NU):
            v = r.get()
            if v:
                h[ut[u]] = v
        if h:
            holders[labels[c]] = h
        if cs in (1, 2):
            mt_cards[SIDES[cs - 1]].append(labels[c])
        elif cs == 3:
            discard.append(labels[c])
        elif cs >= 4:
            catapults[labels[c]] = {"side": SIDES[cs - 4], "territory": terr[loc]}
    gate = r.get()
    deck_left = r.get()
    mt_left = r.get()
    hands = {}
    for side in SIDES:
        hands[side] = [_deck_card(nm, r.get()) for _ in range(r.get())]
    for k in leaders:
        leaders[k].sort()
    return dict(units=units, leaders=leaders, holders=holders, pools=pools, captured=captured,
                mt_cards=mt_cards, catapults=catapults, mt_discard=discard, leaders_off=leaders_off,
                deck_left=deck_left, mt_deck_left=mt_left, gate_broken=bool(gate), hands=hands)


def decode(comp, buf, game_index: int) -> list[dict]:
    """The events of one game, as JSON-able dicts: ``buf`` is the engine's trace buffer
    (lotr_sim.kernels.tracebuf; each record's values start with round, turn, side)."""
    nm = comp.names
    cf = comp.cf
    NU = int(cf[C.C_NU])
    terr, ut = nm["territories"], nm["unit_types"]
    labels = card_labels(nm)
    events = []

    def unitvec(r):
        d = {}
        for u in range(NU):
            v = r.get()
            if v:
                d[ut[u]] = v
        return d

    def lmask(m):
        return [nm["leaders"][l] for l in range(len(nm["leaders"])) if (m >> l) & 1]

    def card(c):
        return {"type": nm["deck_types"][c], "shield": nm["deck_shields"][c]}

    def lab(c):
        return labels[c] if c >= 0 else None

    for code, vals in iter_events(buf):
        r = _Reader(vals, 0)
        rnd, turn, side = r.get(), r.get(), r.get()
        e = {"game": int(game_index), "round": rnd, "turn": turn, "side": SIDES[side], "event": EV[code]}
        if code == 1:
            e.update(_snapshot(r, comp))
        elif code == 2:
            dice = [r.get() for _ in range(3)]
            if dice[0] >= 0:
                e["dice_rolled"] = dice
            e["die"] = r.get()
            e["missions"] = r.get()
            nd = r.get()
            drawn = [r.get() for _ in range(nd)]
            e["cards_drawn"] = [card(c) for c in drawn]
            e.update(_snapshot(r, comp))
            e["drawn_ids"] = drawn
        elif code == 3:
            k = r.get()
            cards = [r.get() for _ in range(3)]
            mt, kept, bonus, b1, b2, b3 = (r.get() for _ in range(6))
            e.update(set=CLASS_CARD[k], cards=[card(c) for c in cards if c >= 0], mt_card=lab(mt),
                     mt_kept=bool(kept), bonus=BONUS[bonus], card_ids=[c for c in cards if c >= 0])
            if bonus == 1:
                e["bonus_drawn"] = [lab(x) for x in (b1, b2) if x >= 0]
                e["bonus_kept"] = lab(b3)
            elif bonus == 2:
                e["bonus_card"] = lab(b1)
            elif bonus == 3:
                e["bonus_unit"] = ut[b1] if b1 >= 0 else None
                e["bonus_territory"] = terr[b2] if b2 >= 0 else None
        elif code == 4:
            c, kind, t = r.get(), r.get(), r.get()
            e.update(card=lab(c), effect=CARD_KIND[kind])
            if t >= 0:
                e["territory"] = terr[t]
        elif code == 5:
            c, u, hc = r.get(), r.get(), r.get()
            e.update(card=lab(c), units={ut[u]: 1}, hand_card=_deck_card(nm, hc))
        elif code == 6:
            t, src = r.get(), r.get()
            units = unitvec(r)
            lm = r.get()
            src_name = "pool"
            e.update(territory=terr[t], units=units, leaders=lmask(lm))
            if src >= 0:
                if int(cf[C.O_CKIND + src]) == 2:  # muster: units from the pool
                    e["card"] = lab(src)
                else:
                    src_name = lab(src)
            e["source"] = src_name
        elif code == 7:
            t, ru, rn, au, an = (r.get() for _ in range(5))
            e.update(territory=terr[t], removed={ut[ru]: rn}, added={ut[au]: an} if an else {})
        elif code == 8:
            a, b, via, cost = r.get(), r.get(), r.get(), r.get()
            units = unitvec(r)
            lm = r.get()
            path = [terr[a]] + ([terr[via]] if via >= 0 else []) + [terr[b]]
            e.update({"from": terr[a], "to": terr[b], "path": path, "units": units, "leaders": lmask(lm),
                      "cost": cost})
        elif code == 9:
            a, b = r.get(), r.get()
            att = unitvec(r)
            k, dd, ab, db, la, ld, D = (r.get() for _ in range(7))
            wk, a6, d6 = r.get(), r.get(), r.get()
            e.update({"from": terr[a], "to": terr[b], "attackers": att, "att_dice": k, "def_dice": dd,
                      "att_bonus": ab, "def_bonus": db, "att_losses": la, "def_losses": ld,
                      "defenders_before": D, "witch_king": bool(wk), "att_sixes": a6, "def_sixes": d6})
            na = r.get()
            if na >= 0:
                e["att_faces"] = [r.get() for _ in range(na)]
                e["def_faces"] = [r.get() for _ in range(r.get())]
        elif code == 10:
            a, b, sh, dice, hits, banner = (r.get() for _ in range(6))
            e.update({"from": terr[a], "to": terr[b], "shooters": sh, "dice": dice, "hits": hits,
                      "banner": bool(banner)})
            nf = r.get()
            if nf >= 0:
                e["faces"] = [r.get() for _ in range(nf)]
            na, before, cat = r.get(), r.get(), r.get()
            e.update(archers=na, archers_fired_before=before, archers_at=unitvec(r), catapult=lab(cat))
        elif code == 11:
            by, t, u, l = (r.get() for _ in range(4))
            e.update(by=SIDES[by], territory=terr[t])
            if u >= 0:
                e["unit"] = ut[u]
            else:
                e["leader"] = nm["leaders"][l]
        elif code == 12:
            s2, a, npth = r.get(), r.get(), r.get()
            path = [terr[r.get()] for _ in range(npth)]
            units = unitvec(r)
            lm = r.get()
            losses = r.get()
            e.update({"retreating": SIDES[s2], "from": terr[a], "path": path, "units": units,
                      "leaders": lmask(lm), "losses": losses})
        elif code == 13:
            l, t, why, cap = (r.get() for _ in range(4))
            e.update(name=nm["leaders"][l], territory=terr[t] if t >= 0 else None, why=WHY[why],
                     to="captured" if cap else "pool")
        elif code == 14:
            pass
        elif code == 15:
            w, why, pg, pe = (r.get() for _ in range(4))
            e.update(winner=WINNERS[w], reason=REASONS[why], points={"good": pg, "evil": pe})
        elif code == 16:
            c, t = r.get(), r.get()
            e.update(card=lab(c), territory=terr[t])
        elif code == 17:
            k = r.get()
            ids = [r.get() for _ in range(k)]
            e["cards"] = [card(c) for c in ids]
            e["card_ids"] = ids
        elif code == 18:
            seat, ph, i, nl = r.get(), r.get(), r.get(), r.get()
            e.update(seat=SIDES[seat], kind=KIND[ph], choice=i, n_legal=nl, row=[r.get() for _ in range(6)])
        events.append(e)
    return events


SNAP_KEYS = ("units", "leaders", "holders", "pools", "captured", "mt_cards", "catapults", "mt_discard",
             "leaders_off", "deck_left", "mt_deck_left", "gate_broken", "hands")


def snapshot_of(e: dict) -> dict:
    return {k: copy.deepcopy(e[k]) for k in SNAP_KEYS}


# --------------------------------------------------------------------------------------
# replay (tests: events from one snapshot give the next snapshot exactly)
# --------------------------------------------------------------------------------------
def _add(d: dict, key, n):
    v = d.get(key, 0) + n
    if v:
        d[key] = v
    else:
        d.pop(key, None)
    if v < 0:
        raise AssertionError(f"negative count for {key}")


def _unit_side(comp, u):
    return comp.names["unit_sides"][comp.names["unit_types"].index(u)]


def _board_add(st, terr, side, u, n):
    sd = st["units"].setdefault(terr, {}).setdefault(side, {})
    _add(sd, u, n)
    if not sd:
        del st["units"][terr][side]
    if not st["units"][terr]:
        del st["units"][terr]


def _leader_to(st, name, terr):
    for t in list(st["leaders"]):
        if name in st["leaders"][t]:
            st["leaders"][t].remove(name)
            if not st["leaders"][t]:
                del st["leaders"][t]
    st["leaders_off"].pop(name, None)
    if terr is not None:
        st["leaders"].setdefault(terr, []).append(name)
        st["leaders"][terr].sort()


def _mt_take(st, label, side):
    """A drawn / taken Minas Tirith card goes to ``side``'s hand."""
    if label in st["mt_discard"]:
        st["mt_discard"].remove(label)
    st["mt_cards"][side].append(label)


def _mt_discard(st, label):
    for s in SIDES:
        if label in st["mt_cards"][s]:
            st["mt_cards"][s].remove(label)
    st["mt_discard"].append(label)


def _hand_drop(st, side, ids):
    """Cards leave ``side``'s hand (a trade, a load, the hand limit)."""
    hand = st["hands"][side]
    for c in ids:
        j = next((k for k, x in enumerate(hand) if x["id"] == c), None)
        if j is None:
            raise AssertionError(f"card {c} leaves {side}'s hand but is not in it")
        hand.pop(j)


def apply_event(comp, st: dict, e: dict) -> None:
    """Apply one event to a snapshot dict in place."""
    ev = e["event"]
    side = e["side"]
    if ev == "turn_start":
        st["deck_left"] -= len(e["cards_drawn"])
        st["hands"][side].extend(_deck_card(comp.names, c) for c in e["drawn_ids"])
    elif ev == "discard":
        _hand_drop(st, side, e["card_ids"])
    elif ev == "trade":
        _hand_drop(st, side, e["card_ids"])
        if e["mt_card"] is not None:
            st["mt_deck_left"] -= 1
            if e["mt_kept"]:
                _mt_take(st, e["mt_card"], side)
            else:
                st["mt_discard"].append(e["mt_card"])
        if e["bonus"] == "draw_two":
            for c in e["bonus_drawn"]:
                st["mt_deck_left"] -= 1
                if c == e["bonus_kept"]:
                    _mt_take(st, c, side)
                else:
                    st["mt_discard"].append(c)
        elif e["bonus"] == "from_discard":
            _mt_take(st, e["bonus_card"], side)
    elif ev == "card_played":
        if e["effect"] == "catapult":
            st["mt_cards"][side].remove(e["card"])
            st["catapults"][e["card"]] = {"side": side, "territory": e["territory"]}
        else:
            _mt_discard(st, e["card"])
    elif ev == "catapult_lost":
        del st["catapults"][e["card"]]
        st["mt_discard"].append(e["card"])
    elif ev == "load":
        _hand_drop(st, side, [e["hand_card"]["id"]])
        for u, n in e["units"].items():
            st["pools"][side][u] -= n
            _add(st["holders"].setdefault(e["card"], {}), u, n)
    elif ev == "place":
        for u, n in e["units"].items():
            s = side  # units are placed in their owner's turn
            if e["source"] == "pool":
                st["pools"][s][u] -= n
            else:
                _add(st["holders"][e["source"]], u, -n)
                if not st["holders"][e["source"]]:
                    del st["holders"][e["source"]]
            _board_add(st, e["territory"], s, u, n)
        for l in e["leaders"]:
            _leader_to(st, l, e["territory"])
    elif ev == "exchange":
        for u, n in e["removed"].items():
            _board_add(st, e["territory"], "evil", u, -n)
            st["pools"]["evil"][u] += n
        for u, n in e["added"].items():
            _board_add(st, e["territory"], "evil", u, n)
            st["pools"]["evil"][u] -= n
    elif ev == "move":
        for u, n in e["units"].items():
            s = side  # the mover (free cavalry move-in included)
            _board_add(st, e["from"], s, u, -n)
            _board_add(st, e["to"], s, u, n)
        for l in e["leaders"]:
            _leader_to(st, l, e["to"])
    elif ev == "retreat":
        if e["path"]:
            dest = e["path"][-1]
            for u, n in e["units"].items():
                _board_add(st, e["from"], e["retreating"], u, -n)
                _board_add(st, dest, e["retreating"], u, n)
            for l in e["leaders"]:
                _leader_to(st, l, dest)
    elif ev == "capture":
        by = e["by"]
        if "unit" in e:
            _board_add(st, e["territory"], SIDES[1 - SIDES.index(by)], e["unit"], -1)
            _add(st["captured"][by], e["unit"], 1)
        else:
            _leader_to(st, e["leader"], None)
            st["captured"][by]["leaders"].append(e["leader"])
    elif ev == "leader_removed":
        _leader_to(st, e["name"], None)
        if e["to"] == "captured":
            ls = comp.names["leader_sides"][comp.names["leaders"].index(e["name"])]
            st["captured"][SIDES[1 - SIDES.index(ls)]]["leaders"].append(e["name"])
        else:
            st["leaders_off"][e["name"]] = "pool"
    elif ev == "gate_broken":
        st["gate_broken"] = True


def normalise(snap: dict) -> dict:
    """A comparable form (sorted lists, no zero counts)."""
    s = copy.deepcopy(snap)
    for side in SIDES:
        s["mt_cards"][side] = sorted(s["mt_cards"][side])
        s["captured"][side]["leaders"] = sorted(s["captured"][side]["leaders"])
        s["captured"][side] = {k: v for k, v in s["captured"][side].items() if k == "leaders" or v}
    s["mt_discard"] = sorted(s["mt_discard"])
    s["holders"] = {k: v for k, v in s["holders"].items() if v}
    if "hands" in s:
        s["hands"] = {side: sorted(s["hands"][side], key=lambda c: c["id"]) for side in SIDES}
    return s


# --------------------------------------------------------------------------------------
# readable account
# --------------------------------------------------------------------------------------
def _units(d: dict) -> str:
    return ", ".join(f"{n} {u}" for u, n in d.items()) or "nothing"


def _cards(cards: list[dict]) -> str:
    return ", ".join(c["type"] + ("" if c["shield"] == "none" else f" ({c['shield']} shield)") for c in cards)


def format_event(e: dict) -> str | None:
    ev = e["event"]
    if ev in ("header", "game_end"):
        return None  # the shared header and end lines (lotr_sim.games.account)
    S = e["side"].capitalize()
    if ev == "setup":
        n = {s: sum(sum(v.get(s, {}).values()) for v in e["units"].values()) for s in SIDES}
        return f"Set-up: Good {n['good']} units, Evil {n['evil']} units; {e['deck_left']} reinforcement cards."
    if ev == "turn_start":
        dice = (f"the round's mission dice {', '.join(str(d) for d in e['dice_rolled'])}; "
                if "dice_rolled" in e else "")
        drawn = _cards(e["cards_drawn"])
        hand = e.get("hands", {}).get(e["side"])
        return turn_line(e["turn"], e["round"], S,
                         f"{dice}takes die {e['die']}: {e['missions']} missions, draws {len(e['cards_drawn'])} "
                         f"card(s){': ' + drawn if drawn else ''} [deck {e['deck_left']}]") + \
            (f"\n  hand: {_cards(hand) or 'empty'}" if hand is not None else "")
    if ev == "trade":
        s = f"  {S} trades a set of {e['set']} ({_cards(e['cards'])})"
        if e["mt_card"]:
            s += f", draws '{e['mt_card']}'" + ("" if e["mt_kept"] else " (unusable, discarded)")
        if e["bonus"] == "draw_two":
            drawn = ", ".join(f"'{c}'" for c in e["bonus_drawn"]) or "nothing"
            s += f"; bonus: draws {drawn}, keeps " + (f"'{e['bonus_kept']}'" if e["bonus_kept"] else "nothing")
        elif e["bonus"] == "from_discard":
            s += f"; bonus: takes '{e['bonus_card']}' from the discard pile"
        elif e["bonus"] == "unit":
            s += f"; bonus: one {e['bonus_unit']} to {e['bonus_territory']}"
        return s
    if ev == "card_played":
        return f"  {S} plays '{e['card']}' ({e['effect']})" + (f" at {e['territory']}" if "territory" in e else "")
    if ev == "load":
        return f"  {S} loads {_units(e['units'])} onto '{e['card']}'" + \
            (f" with one card: {_cards([e['hand_card']])}" if "hand_card" in e else "")
    if ev == "place":
        who = f" with {', '.join(e['leaders'])}" if e["leaders"] else ""
        return f"  {S} places {_units(e['units'])}{who} in {e['territory']} (from {e['source']})"
    if ev == "exchange":
        return f"  {S} exchanges {_units(e['removed'])} for {_units(e['added'])} in {e['territory']}"
    if ev == "move":
        who = f" with {', '.join(e['leaders'])}" if e["leaders"] else ""
        if not e["units"]:
            return f"  {S} moves {', '.join(e['leaders'])} alone: {' -> '.join(e['path'])}"
        return f"  {S} moves {_units(e['units'])}{who}: {' -> '.join(e['path'])}" + \
            (" (free)" if e["cost"] == 0 else "")
    if ev == "assault":
        return (f"  {S} assaults {e['to']} from {e['from']} with {e['att_dice']} ({_units(e['attackers'])}) "
                f"vs {e['def_dice']} dice [{e['defenders_before']} defenders, bonus +{e['att_bonus']}/+{e['def_bonus']}]"
                f": attacker loses {e['att_losses']}, defender loses {e['def_losses']}")
    if ev == "bombard":
        who = ""
        if "archers" in e:
            who = " (" + " + ".join(([f"{e['archers']} archer(s)"] if e["archers"] else [])
                                    + ([f"'{e['catapult']}'"] if e["catapult"] else [])) + ")"
        return (f"  {S} bombards {e['to']} from {e['from']}: {e['shooters']} shooters{who}, {e['dice']} dice, "
                f"{e['hits']} hit(s)" + (" (banner)" if e["banner"] else ""))
    if ev == "capture":
        what = e.get("unit") or e.get("leader")
        return f"    {e['by'].capitalize()} captures {what} in {e['territory']}"
    if ev == "retreat":
        p = " -> ".join([e["from"]] + e["path"]) if e["path"] else f"nowhere from {e['from']}"
        return f"    {e['retreating'].capitalize()} retreats {_units(e['units'])}: {p}" + \
            (f", losing {e['losses']}" if e["losses"] else "")
    if ev == "leader_removed":
        return f"  {e['name']} is removed from {e['territory']} ({e['why']}) to the {e['to']}"
    if ev == "gate_broken":
        return "  The gate of Minas Tirith is broken!"
    if ev == "catapult_lost":
        return f"  '{e['card']}' is lost in {e['territory']}"
    if ev == "discard":
        return f"  {S} discards {len(e['cards'])} card(s) to the hand limit"
    return None


def account(events: list[dict]) -> str:
    """A readable turn-by-turn account of a trace (``lotr-sim play``), in the shape every
    game's account shares (``lotr_sim.games.account``)."""
    return render(events, format_event)
