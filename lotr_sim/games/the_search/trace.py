"""The Search traces: decoding the engine's event buffer into JSON-able events, drawing the
map as text turn by turn (``account``), and auditing a trace on its own (``replay_check``).
The events: decisions and draws, both hands in snapshots, map coordinates, the score's parts
at the end; the header is every game's (``lotr_sim.games.adapter.trace_header``).

Events (besides the header): ``setup`` (the hands), ``draw`` (who drew which tile, the
first six included), ``turn_start``, ``snapshot`` (placed tiles with their rotation and
section terrains, hobbits, both hands, where every token is), ``decision`` (every decision
of the step machine: ``seat`` that took it, ``kind`` - a name of ``layout.DECISIONS`` -,
``choice`` - the index into the legal list -, ``n_legal`` and ``row``, the chosen row's
values), ``place`` (tile, pattern, cell, rotation, neutral), ``region_closed`` (TS-4.2),
``token_placed`` (TS-4.3), ``move`` (normal, mover or Gwaihir), ``token_taken``,
``token_used``, ``fight`` (TS-6.5/TS-7.3: fighters used, moves lost), ``move_lost``,
``boat`` (TS-6.6), ``unplaceable`` (TS-3.4), ``redraw`` (TS-9.2), ``phase``, ``game_end``
(winner, reason, points and their parts).

Coordinates: ``cell`` (and a hobbit's section) is the engine's ``row * 15 + column`` grid
cell; ``row``/``col`` of a ``place`` event and the positions ``frm``/``to`` of a ``move``
are rows and columns of the drawn 6 x 8 map (from its top-left tile, 0-based), and
``doom_cell`` is ``row * 8 + column`` of that map - the same meaning as games.parquet's
``doom_cell``.
"""
from __future__ import annotations

import numpy as np

from lotr_sim.games.account import render, side_name, turn_line
from lotr_sim.kernels.tracebuf import iter_events

from .layout import (
    DECISIONS, EV_DECISION, EV_DRAW, MAP_C, AT_DOOM, AT_SHIRE, EV_BOAT, EV_CLOSE, EV_END, EV_FIGHT, EV_LOST, EV_MOVE, EV_PHASE, EV_PLACE,
    EV_REDRAW, EV_SETUP, EV_SNAP, EV_TAKE, EV_TOKEN, EV_TURN, EV_UNPLACEABLE, EV_USE, GC, HAND, COLOURS, O_TCOL,
    T_BOX, T_HELD, T_MAP, T_USED, TERRAIN_LETTERS,
)

SIDES = ("frodo", "sam")
WHERE = ("stack", "map", "held", "used", "box")
HOW = ("normal", "mover", "gwaihir")
OUTCOMES = ("frodo", "sam", "draw")
REASONS = ("mount_doom", "cap")


def _pos(sec: int, r0: int = 0, c0: int = 0):
    """A hobbit position: "shire", "mount_doom" or [row, col, section] (map rows and columns
    counted from ``r0``, ``c0``)."""
    if sec == AT_SHIRE:
        return "shire"
    if sec == AT_DOOM:
        return "mount_doom"
    c, d = divmod(int(sec), 4)
    return [c // GC - r0, c % GC - c0, "NESW"[d]]


def map_origin(tr_events) -> tuple[int, int]:
    """The engine row and column of the drawn map's top-left tile: the smallest row and
    column of every tile placed in the game (the finished 6 x 8 map, TS-3.1)."""
    cells = [int(v[2]) for code, v in tr_events if code == EV_PLACE]
    if not cells:
        return 0, 0
    return min(c // GC for c in cells), min(c % GC for c in cells)


def _rotated(pat: str, rot: int) -> str:
    return "".join(pat[(d - rot) % 4] for d in range(4))


def decode(compiled, tr: np.ndarray, game_index: int) -> list[dict]:
    """The engine's event buffer as a list of events."""
    names = compiled.names["tokens"]
    pats = compiled.names["tiles"]
    out: list[dict] = []
    turn, seat, rnd = 0, 0, 0

    def ev(name, side=None, **kw):
        out.append(dict(game=int(game_index), round=rnd, turn=turn, side=side, event=name, **kw))

    def tok(t):
        return {"id": int(t), "name": names[int(t)]}

    evs = [(code, [int(x) for x in v]) for code, v in iter_events(tr)]
    r0, c0 = map_origin(evs)

    def pos(sec):
        return _pos(sec, r0, c0)

    for code, v in evs:
        if code == EV_SETUP:
            ev("setup", hands={"frodo": [pats[t] for t in v[:HAND]], "sam": [pats[t] for t in v[HAND:2 * HAND]]})
        elif code == EV_TURN:
            turn, seat = v[0], v[2]
            rnd = (turn + 1) // 2
            ev("turn_start", SIDES[seat], phase=v[1])
        elif code == EV_SNAP:
            n = v[0]
            cells = []
            for k in range(n):
                c, t, r, neu = v[1 + 4 * k: 5 + 4 * k]
                cells.append([c, t, r, neu, _rotated(pats[t], r)])
            p = 1 + 4 * n
            hob = v[p: p + 2]
            p += 2
            hands = {}
            for side in SIDES:
                k = v[p]
                hands[side] = [pats[t] for t in v[p + 1: p + 1 + k]]
                p += 1 + k
            rest = v[p:]
            toks = [[rest[2 * i], rest[2 * i + 1]] for i in range(len(rest) // 2)]
            ev("snapshot", SIDES[seat], cells=cells, hobbits=hob, hands=hands, tokens=toks)
        elif code == EV_DECISION:
            ev("decision", SIDES[v[0]], seat=v[0], kind=DECISIONS[v[1]], choice=v[2], n_legal=v[3], row=v[4:8])
        elif code == EV_DRAW:
            ev("draw", SIDES[v[0]], tile=v[1], pattern=pats[v[1]])
        elif code == EV_PLACE:
            s, t, c, r, neu = v
            ev("place", SIDES[s] if s >= 0 else None, tile=t, pattern=pats[t], cell=c, row=c // GC - r0, col=c % GC - c0,
               rotation=r, sections=_rotated(pats[t], r), neutral=bool(neu))
        elif code == EV_CLOSE:
            ev("region_closed", None, region=v[0], size=v[1], terrain=TERRAIN_LETTERS[v[2]])
        elif code == EV_TOKEN:
            ev("token_placed", SIDES[v[0]] if v[0] >= 0 else None, token=tok(v[1]), colour=COLOURS[int(compiled.cf[O_TCOL + v[1]])], region=v[2])
        elif code == EV_MOVE:
            ev("move", SIDES[v[0]], frm=pos(v[1]), to=pos(v[2]), to_section=v[2], how=HOW[v[3]],
               token_used=(tok(v[4]) if v[4] >= 0 else None))
        elif code == EV_TAKE:
            ev("token_taken", SIDES[v[0]], token=tok(v[1]))
        elif code == EV_USE:
            ev("token_used", SIDES[v[0]], token=tok(v[1]))
        elif code == EV_FIGHT:
            ev("fight", SIDES[v[0]], token=tok(v[1]), dots=v[2], cancelled=bool(v[3]), fighters=v[4],
               moves_lost=v[5])
        elif code == EV_LOST:
            ev("move_lost", SIDES[v[0]], fight_moves_left=v[1])
        elif code == EV_BOAT:
            ev("boat", SIDES[v[0]], discarded=[tok(v[1]), tok(v[2])])
        elif code == EV_UNPLACEABLE:
            ev("unplaceable", SIDES[v[0]])
        elif code == EV_REDRAW:
            ev("redraw", SIDES[v[0]])
        elif code == EV_PHASE:
            ev("phase", SIDES[v[1]], phase=v[0], doom_cell=v[2])
        elif code == EV_END:
            parts = {side: {"tokens": v[6 + 3 * i], "used": v[7 + 3 * i], "mount_doom": v[8 + 3 * i]}
                     for i, side in enumerate(SIDES)}
            ev("game_end", None, winner=OUTCOMES[v[0]], reason=REASONS[v[1]],
               points={"frodo": v[2], "sam": v[3]}, reached=(SIDES[v[4]] if v[4] >= 0 else None),
               doom_cell=v[5], score=parts)
    return out


# -- the audit ---------------------------------------------------------------------------------
def _state_of(e: dict) -> dict:
    return {"cells": {c[0]: tuple(c[1:4]) for c in e["cells"]}, "hob": list(e["hobbits"]),
            "tok": [list(t) for t in e["tokens"]]}


def _apply(st: dict, e: dict) -> None:
    kind = e["event"]
    seat = SIDES.index(e["side"]) if e.get("side") in SIDES else -1
    if kind == "place":
        st["cells"][e["cell"]] = (e["tile"], e["rotation"], int(e["neutral"]))
    elif kind == "token_placed":
        st["tok"][e["token"]["id"]][0] = T_MAP
    elif kind == "token_taken":
        st["tok"][e["token"]["id"]] = [T_HELD, seat]
    elif kind == "token_used":
        st["tok"][e["token"]["id"]][0] = T_USED
    elif kind == "boat":
        for t in e["discarded"]:
            st["tok"][t["id"]][0] = T_BOX
    elif kind == "move":
        st["hob"][seat] = e["to_section"]


def replay_check(compiled, events: list[dict]) -> int:
    """From each snapshot, applying the events that follow must give the next snapshot (the
    map, the hobbits and every token). Returns the number of snapshots checked."""
    st = None
    n = 0
    for e in events:
        if e["event"] == "snapshot":
            snap = _state_of(e)
            if st is not None:
                if st != snap:
                    raise AssertionError(f"turn {e['turn']}: replaying the events does not give this snapshot")
                n += 1
            st = snap
        elif st is not None:
            _apply(st, e)
    return n


# -- the account -------------------------------------------------------------------------------
def _origin(events: list[dict]) -> tuple[int, int]:
    cells = [e["cell"] for e in events if e.get("event") == "place"]
    if not cells:
        return 0, 0
    return min(c // GC for c in cells), min(c % GC for c in cells)


def draw_map(e: dict, doom: int | None = None, origin: tuple[int, int] | None = None) -> str:
    """A snapshot's map as text, in the drawn 6 x 8 map's rows and columns (labelled from 0,
    the same numbers as the account and ``doom_cell``): each tile 3 x 3 characters (section
    terrains in lower case, ``#`` a neutral section; centre ``H`` the Shire, ``X`` Mount Doom
    - ``doom`` is its ``row * 8 + column`` -, ``1``/``2`` the cell Frodo/Sam last entered)."""
    cells = {c[0]: c for c in e["cells"]}
    if not cells:
        return ""
    if origin is None:
        origin = (min(c // GC for c in cells), min(c % GC for c in cells))
    r0, c0 = origin
    r1 = max(max(c // GC for c in cells), r0 + 5)
    c1 = max(max(c % GC for c in cells), c0 + MAP_C - 1)
    doom_cell = None if doom is None or doom < 0 else (r0 + doom // MAP_C) * GC + c0 + doom % MAP_C
    hob = {}
    for i, h in enumerate(e["hobbits"]):
        if h >= 0:
            hob[h // 4] = str(i + 1)
    lines = ["   " + "".join(f" {q - c0} " for q in range(c0, c1 + 1))]
    for r in range(r0, r1 + 1):
        a, b, c = [], [], []
        for q in range(c0, c1 + 1):
            cell = r * GC + q
            x = cells.get(cell)
            if x is None:
                a.append("   ")
                b.append("   ")
                c.append("   ")
                continue
            secs = "####" if x[3] else x[4].lower()
            centre = hob.get(cell, "H" if x[1] == 47 else ("X" if doom_cell == cell else "."))
            a.append(f" {secs[0]} ")
            b.append(f"{secs[3]}{centre}{secs[1]}")
            c.append(f" {secs[2]} ")
        lines += ["   " + "".join(a), f"{r - r0:>2} " + "".join(b), "   " + "".join(c)]
    return "\n".join(lines)


def hands_text(h: dict) -> str:
    """Both hands: ``Frodo FMDF DWWW; Sam MFFD``."""
    return "; ".join(f"{side_name(s)} {' '.join(x) or '-'}" for s, x in h.items())


def format_event(e: dict) -> str | None:
    """One event's line of the account (None for the header, snapshots and anything the
    account leaves out); rows and columns are the drawn 6 x 8 map's."""
    k = e["event"]
    who = side_name(e.get("side") or "")
    if k == "setup":
        return "hands dealt: " + hands_text(e["hands"])
    if k == "turn_start":
        return turn_line(e["turn"], e["round"], who, context=f"phase {e['phase']}")
    if k == "place" and not who:
        return f"the Shire tile {e['pattern']} lies in the middle (TS-2.1), row {e['row']} col {e['col']}"
    if k == "place":
        what = "a NEUTRAL tile" if e["neutral"] else f"tile {e['pattern']} turned {e['rotation']} -> {e['sections']}"
        return f"{who} places {what} at row {e['row']} col {e['col']}"
    if k == "draw":
        return f"{who} draws tile {e['pattern']}"
    if k == "region_closed":
        return f"  region of {e['size']} {e['terrain']} section(s) closed"
    if k == "token_placed":
        return f"  token site: {e['token']['name']} ({e['colour']}) placed"
    if k == "move":
        used = f" using {e['token_used']['name']}" if e.get("token_used") else ""
        to = e["to"] if isinstance(e["to"], str) else f"row {e['to'][0]} col {e['to'][1]} ({e['to'][2]})"
        return f"{who} moves {e['how']}{used} to {to}"
    if k == "token_taken":
        return f"{who} takes {e['token']['name']}"
    if k == "token_used":
        return f"{who} uses {e['token']['name']}"
    if k == "fight":
        f = e.get("fighters", 0)
        with_f = f" with {f} fighter(s)" if f else ""
        return f"{who} meets {e['token']['name']}{with_f}: " + (
            "fight cancelled" if e["cancelled"] else f"loses {e.get('moves_lost', e['dots'])} move(s)")
    if k == "move_lost":
        return f"{who} loses a move to a fight ({e['fight_moves_left']} left)"
    if k == "boat":
        return f"{who} buys a boat"
    if k == "unplaceable":
        return f"{who} cannot place any tile of the hand"
    if k == "redraw":
        return f"{who} puts the hand in the open stock and draws again"
    if k == "phase":
        doom = e["doom_cell"]
        return (f"-- phase {e['phase']} begins ({who} first)" +
                (f"; Mount Doom at row {doom // MAP_C} col {doom % MAP_C}" if e["phase"] == 3 else ""))
    if k == "game_end":
        reached = side_name(e["reached"]) if e.get("reached") else "nobody"
        parts = [f"{side_name(side)}: tokens {p['tokens']} - used {p['used']} + Mount Doom/Gollum "
                 f"{p['mount_doom']:+d} = {e['points'][side]}" for side, p in (e.get("score") or {}).items()]
        return f"\nreached Mount Doom: {reached}" + "".join(f"\n  {x} (TS-8)" for x in parts)
    return None


def account(events: list[dict]) -> str:
    """A readable turn-by-turn account with the map drawn at each turn's start (rows and
    columns of the drawn 6 x 8 map), both hands, and the score's parts at the end, in the
    shape every game's account shares (``lotr_sim.games.account``)."""
    origin = _origin(events)
    doom = None

    def line(e: dict) -> str | None:
        nonlocal doom
        k = e["event"]
        if k == "header":
            return "(rows and columns are those of the drawn 6 x 8 map, from 0 at its top-left tile)"
        if k == "snapshot":
            return draw_map(e, doom, origin) + (f"\nhands: {hands_text(e['hands'])}" if "hands" in e else "")
        if k == "phase" and e["phase"] == 3:
            doom = e["doom_cell"]
        return format_event(e)

    return render(events, line)
