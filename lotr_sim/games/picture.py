"""The board-picture kit every game's picture module builds on (``lotr_sim.games.<game>.picture``):
the board layout files (``configs/boards/<game>.toml``), SVG helpers, the step list (``Step``)
and ``Walker``, which walks a trace's events on its snapshots and draws each step. The replay page
and the human seat (``lotr_sim.replay``) read it; it reads no trace file and runs no engine."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Any, Iterable, Mapping, Sequence


@dataclass
class Step:
    """What the page shows after one event: ``heading`` (the turn), ``line`` (what happened),
    ``kind`` (the event's name), ``turn``; ``spots`` maps a drawn territory/section id to
    ``(fill, label a, label b, tooltip)``; ``marks`` maps a movable marker's id to its
    ``(x, y)`` or None (hidden); ``panel`` is the side panel's HTML (players, hands, cards)
    and ``score`` the points line; ``focus`` the spots the event is about."""
    heading: str
    line: str
    kind: str
    turn: int
    spots: dict[str, tuple] = field(default_factory=dict)
    marks: dict[str, tuple | None] = field(default_factory=dict)
    panel: str = ""
    score: str = ""
    focus: tuple[str, ...] = ()     # spot ids the event is about (drawn highlighted)


# -- board layouts -----------------------------------------------------------------------------
def board_layout(game_name: str) -> dict:
    """The board layout of a game: ``configs/boards/<game>.toml`` (positions, colours)."""
    from lotr_sim.config import configs_dir, load_toml
    return load_toml(configs_dir() / "boards" / f"{game_name}.toml", "board layout file")


def positions(layout: Mapping, names: Iterable[str]) -> dict[str, tuple[float, float]]:
    """Where each named territory is drawn: the layout's ``positions``, and for a territory the
    layout does not place, a free place in a row along the bottom edge."""
    pos = layout.get("positions", {})
    w, h = layout.get("size", [1000, 700])
    out: dict[str, tuple[float, float]] = {}
    extra = 0
    for n in names:
        if n in pos:
            out[n] = (float(pos[n][0]), float(pos[n][1]))
        else:
            out[n] = (40.0 + 80.0 * (extra % max(1, int(w // 80))), h - 30.0 - 70.0 * (extra // max(1, int(w // 80))))
            extra += 1
    return out


# -- SVG helpers -------------------------------------------------------------------------------
def esc(s: Any) -> str:
    """Text for HTML/SVG."""
    return escape(str(s), quote=True)


def slug(name: str) -> str:
    """An id-safe form of a name."""
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def spot_svg(sid: str, x: float, y: float, r: float, name: str, extra: str = "",
             shape: str = "circle") -> str:
    """A territory drawn as a circle (or square) with id ``s-<sid>``, its name above and the
    two count labels ``a-<sid>``/``b-<sid>`` inside, and a tooltip ``t-<sid>``."""
    if shape == "square":
        body = (f'<rect id="s-{sid}" x="{x - r:.0f}" y="{y - r:.0f}" width="{2 * r:.0f}" height="{2 * r:.0f}" '
                f'rx="6" fill="#eee" stroke="#333" stroke-width="1.5"{extra}/>')
    else:
        body = f'<circle id="s-{sid}" cx="{x:.0f}" cy="{y:.0f}" r="{r:.0f}" fill="#eee" stroke="#333" stroke-width="1.5"{extra}/>'
    return (f'<g class="spot"><title id="t-{sid}">{esc(name)}</title>{body}'
            f'<text class="nm" x="{x:.0f}" y="{y - r - 4:.0f}">{esc(name)}</text>'
            f'<text class="ca" id="a-{sid}" x="{x:.0f}" y="{y - 2:.0f}"></text>'
            f'<text class="cb" id="b-{sid}" x="{x:.0f}" y="{y + 14:.0f}"></text></g>')


def line_svg(a: tuple[float, float], b: tuple[float, float], cls: str) -> str:
    return f'<line class="{cls}" x1="{a[0]:.0f}" y1="{a[1]:.0f}" x2="{b[0]:.0f}" y2="{b[1]:.0f}"/>'


def toward(a: tuple[float, float], b: tuple[float, float], d: float) -> tuple[float, float]:
    """The point ``d`` units from ``a`` toward ``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy) or 1.0
    return a[0] + dx * d / n, a[1] + dy * d / n


def units_text(d: Mapping[str, int], abbrev: Mapping[str, str] | None = None) -> str:
    """``{"infantry": 3, "cavalry": 1}`` as ``3 infantry, 1 cavalry`` (or abbreviated)."""
    return ", ".join(f"{n} {abbrev.get(u, u) if abbrev else u}" for u, n in d.items() if n) or "-"


def table_html(rows: list[list[Any]], head: list[str] | None = None) -> str:
    """A small HTML table (every cell escaped)."""
    h = "<tr>" + "".join(f"<th>{esc(x)}</th>" for x in head) + "</tr>" if head else ""
    body = "".join("<tr>" + "".join(f"<td>{esc(x)}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table>{h}{body}</table>"


class Walker:
    """A game's picture, walked through a trace: ``apply`` each event in turn (the game's own
    replay of its events on its snapshots), then ``view`` gives what the board shows, ``text``
    the position as plain text. Each game's picture module subclasses it."""

    #: events that get no step of their own (snapshots that only restate the position)
    quiet_events: tuple[str, ...] = ()

    def __init__(self, game: Any, cfg: Any, comp: Any, layout: Mapping):
        self.game, self.cfg, self.comp, self.layout = game, cfg, comp, layout
        self.head = "Set-up"
        self.turn = 0

    def svg(self) -> str:
        """The board without pieces: every spot and marker the views name, by id."""
        raise NotImplementedError

    def apply(self, e: dict) -> None:
        """Take event ``e`` into the position."""
        raise NotImplementedError

    def view(self) -> tuple[dict, dict, str, str]:
        """``(spots, marks, panel, score)`` of the position (``Step``)."""
        raise NotImplementedError

    def text(self) -> str:
        """The position as plain text."""
        raise NotImplementedError

    def event_line(self, e: dict) -> str | None:
        """The game's account line of ``e`` (None: the event has none)."""
        return None

    def describe(self, kind: str, row: Sequence[int]) -> str:
        """A plain description of a decision's chosen row (``""``: none)."""
        return ""

    def heading(self, e: dict) -> str | None:
        """A new heading when ``e`` starts a turn."""
        return None

    def focus(self, e: dict) -> tuple[str, ...]:
        """The spot ids event ``e`` is about: by default the territories it names as
        ``from``, ``to`` and ``territory``, when they are drawn."""
        names = [e.get(k) for k in ("from", "to", "territory")]
        return tuple(slug(n) for n in names if isinstance(n, str))

    def line(self, e: dict) -> str:
        """What the page says happened at ``e``."""
        from lotr_sim.games.account import end_line, side_name
        ev = e.get("event")
        if ev == "game_end":
            return end_line(e).strip()
        if ev == "decision":
            what = self.describe(str(e.get("kind")), e.get("row") or [])
            seat = e.get("seat")
            seat = self.game.seat_names(self.comp)[seat] if isinstance(seat, int) else seat
            return (f"{side_name(str(seat))} decides ({e.get('kind')}): option {int(e.get('choice', 0)) + 1} "
                    f"of {e.get('n_legal')}" + (f": {what}" if what else ""))
        own = self.event_line(e)
        if own:
            return "\n".join(x.strip() for x in own.strip("\n").splitlines() if x.strip())
        from lotr_sim.games.account import plain_line
        return (plain_line(e) or ev or "").strip()

    def steps(self, events: Sequence[dict]) -> list[Step]:
        """One step per event after the header (but ``quiet_events``)."""
        out: list[Step] = []
        for e in events[1:]:
            self.apply(e)
            h = self.heading(e)
            if h:
                self.head = h
            self.turn = int(e.get("turn") or 0)
            if e.get("event") in self.quiet_events:
                continue
            spots, marks, panel, score = self.view()
            out.append(Step(self.head, self.line(e), str(e.get("event")), self.turn, spots, marks, panel, score,
                            self.focus(e)))
        return out


