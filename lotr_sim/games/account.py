"""The shape every game's turn-by-turn account shares (``lotr-sim play``, ``Game.account``).

Each game renders its own events (``format_event`` in its ``trace`` module); this module
gives all three the same frame, so an account reads alike whatever the game:

* the header line: ``TITLE: seed S, game I; Good tuned v Evil tuned`` (sides by name, a
  seat with its side: ``p1 (Good) tuned, p2 (Evil) tuned, p3 (Evil) greedy``);
* one heading per turn: ``== Turn T (round R[, more]): WHO[ — detail]``;
* the end line, last: ``Game over after turn T (round R): Evil wins (deck); points Good 15,
  Evil 18`` (``a draw`` when nobody wins), the same line ``play --quiet`` prints alone;
* points as ``Name n, Name n`` (sides by name, seats as ``p1``), never a Python dict.
"""
from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

_SEAT = re.compile(r"p\d+$")


def side_name(side: str | None) -> str:
    """A side as a name: ``good`` -> ``Good``, ``frodo`` -> ``Frodo``; a seat (``p1``) and the
    draw stay as they are."""
    if not side or side == "draw" or _SEAT.match(side):
        return side or ""
    return side[:1].upper() + side[1:]


def seat_label(seat: str, side: str | None = None) -> str:
    """A seat as the account names it: the side's name when the seats are the sides, else
    ``p2 (Evil)``."""
    if side is None or seat == side:
        return side_name(seat)
    return f"{seat} ({side_name(side)})"


def players_text(seat_policies: Mapping[str, str], seat_sides: Sequence[str] | None = None) -> str:
    """Who plays: ``Good tuned v Evil tuned``; with more than two seats, comma-separated."""
    sides = list(seat_sides or [])
    parts = [f"{seat_label(seat, sides[i] if i < len(sides) else None)} {pol}"
             for i, (seat, pol) in enumerate(seat_policies.items())]
    return (" v " if len(parts) == 2 else ", ").join(parts)


def header_line(e: Mapping) -> str:
    """The account's first line, from a trace's header event."""
    from lotr_sim.games.registry import get_game
    try:
        title = get_game(e["game_name"]).title
    except Exception:  # noqa: BLE001 - a trace of a game this install does not register
        title = str(e.get("game_name", "?"))
    pols = e.get("seat_policies") or e.get("policies") or {}
    return f"{title}: seed {e['seed']}, game {e['game_index']}; {players_text(pols, e.get('seat_sides'))}"


def turn_line(turn: int, round_: int, who: str, detail: str = "", context: str = "") -> str:
    """The heading of a turn, after a blank line: ``== Turn 5 (round 3, phase 2): Frodo``,
    ``== Turn 1 (round 1): Good — takes die 4: ...``."""
    ctx = f", {context}" if context else ""
    return f"\n== Turn {turn} (round {round_}{ctx}): {who}" + (f" — {detail}" if detail else "")


def points_text(points: Mapping[str, int]) -> str:
    """``Good 15, Evil 18`` / ``p1 17, p2 56``."""
    return ", ".join(f"{side_name(k)} {v}" for k, v in points.items())


def end_line(e: Mapping) -> str:
    """The last line of every account, from a trace's ``game_end`` event."""
    winner = e.get("winner")
    if winner in (None, "draw", "none"):
        who = "a draw"
    else:
        wp = e.get("winner_player")
        who = f"{seat_label(wp, winner) if wp else side_name(winner)} wins"
    return (f"\nGame over after turn {e['turn']} (round {e['round']}): {who} ({e['reason']}); "
            f"points {points_text(e.get('points') or {})}")


def plain_line(e: Mapping) -> str | None:
    """An event as ``  kind: key value, ...``: the lines of a game that has no account of its
    own (``Game.account``), inside the shared frame."""
    if e.get("event") in ("header", "game_end"):
        return None
    rest = ", ".join(f"{k} {v}" for k, v in e.items() if k not in ("game", "event", "side", "round", "turn") and v is not None)
    who = side_name(e.get("side")) if e.get("side") else ""
    return f"  {who + ' ' if who else ''}{e.get('event')}" + (f": {rest}" if rest else "")


def render(events: Sequence[Mapping], format_event: Callable[[Mapping], str | None]) -> str:
    """An account: the header line, the game's own lines (``format_event``; for the header
    and end events it may add lines of its own, which come after the header line and before
    the end line), the end line last."""
    lines: list[str] = []
    for e in events:
        kind = e.get("event")
        own = format_event(e)
        if kind == "header":
            lines.append(header_line(e))
        if own is not None:
            lines.append(own)
        if kind == "game_end":
            lines.append(end_line(e))
    return "\n".join(lines)
