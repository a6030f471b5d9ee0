"""Board replays: a traced game as one self-contained HTML page that steps through it event by
event on a picture of the board (``lotr-sim replay``, ``lotr_sim.api.replay_html``), and the
same pictures for a game in progress (``lotr-sim play --human``).

How a step's board is known: from the trace alone. Every game's trace holds snapshots of the
whole position (Minas Tirith's ``setup``/``turn_start``, LOTR Risk's ``turn_start``, The
Search's ``snapshot``) and between them every event that changes it; each game already
replays its events on a snapshot to audit its traces (``Game.replay_check``), and its picture
module (``lotr_sim.games.<game>.picture``) walks the events with that same code, taking each
snapshot as it comes. So a replay needs no engine run (no numba compile: a page is written in
well under a second) and shows what the trace says, also for a trace written by another
player or machine; re-running the game from the header would need the same players and
weights, and could not show a trace that is the only evidence left of a game.

The kit here is what every game shares: reading and checking a trace file
(``read_trace``), the board layout files (``configs/boards/<game>.toml``, ``board_layout``),
SVG helpers, the step list (``Step``) and the page itself (``lotr_sim.replay.page``).
"""
from __future__ import annotations

import importlib
import json
import math
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from lotr_sim.errors import LotrSimError


class TraceError(LotrSimError):
    """A trace file that cannot be replayed: missing, broken, of another trace version."""


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


# -- trace files ---------------------------------------------------------------------------------
def read_trace(path: str | Path, index: int | None = None) -> list[dict]:
    """The events of one game of a JSON Lines trace (``lotr-sim play --trace``, ``run --trace``):
    the game whose header has ``game_index`` ``index`` (the first game when None). Refuses, with
    one ``TraceError`` line, a missing or unreadable file, a line that is not JSON, a file
    without a header, a header of another ``TRACE_VERSION`` and a game that has no end."""
    from lotr_sim.games.adapter import TRACE_VERSION
    p = Path(path)
    if not p.is_file():
        raise TraceError(f"trace file {p} not found" if not p.exists() else f"trace {p} is not a file")
    games: list[list[dict]] = []
    try:
        with p.open(encoding="utf-8") as f:
            for n, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                try:
                    e = json.loads(raw)
                except json.JSONDecodeError as err:
                    raise TraceError(f"trace {p} line {n} is not JSON ({err.msg}): a broken or cut file?") from None
                if not isinstance(e, dict) or "event" not in e:
                    raise TraceError(f"trace {p} line {n} is not a trace event (no 'event' key)")
                if e["event"] == "header":
                    v = e.get("trace_version")
                    if v != TRACE_VERSION:
                        raise TraceError(f"trace {p} is of trace version {v}; this lotr-sim replays version "
                                         f"{TRACE_VERSION} (play the game again with this version to replay it)")
                    games.append([e])
                elif not games:
                    raise TraceError(f"trace {p} does not start with a header event (line {n}): not a lotr-sim trace")
                else:
                    games[-1].append(e)
    except UnicodeDecodeError:
        raise TraceError(f"trace {p} is not UTF-8 text: not a lotr-sim trace") from None
    except OSError as e:
        raise TraceError(f"cannot read trace {p}: {e.strerror or e}") from None
    if not games:
        raise TraceError(f"trace {p} is empty")
    if index is None:
        events = games[0]
    else:
        found = [g for g in games if g[0].get("game_index") == index]
        if not found:
            have = ", ".join(str(g[0].get("game_index")) for g in games[:20])
            raise TraceError(f"trace {p} has no game {index} (its games: {have}{', ...' if len(games) > 20 else ''})")
        events = found[0]
    if events[-1].get("event") != "game_end":
        raise TraceError(f"trace {p}: game {events[0].get('game_index')} has no game_end event: a cut file?")
    return events


def compiled_for(header: Mapping) -> tuple[Any, Any, Any]:
    """The game, its config and its compiled config for a trace's header: the config file it names when
    that file is still there (else the game's default), with the header's parameters."""
    from lotr_sim.games.registry import get_game
    name = header.get("game_name")
    try:
        game = get_game(str(name))
    except LotrSimError:
        raise TraceError(f"the trace is of game {name!r}, which this lotr-sim does not know") from None
    cfg_path = header.get("config")
    cfg_file = cfg_path if cfg_path and Path(cfg_path).is_file() else None
    params = dict(header.get("params") or {})
    try:
        cfg = game.load(cfg_file, params)
        return game, cfg, game.compile(cfg)
    except LotrSimError as e:
        raise TraceError(f"cannot rebuild the game's set-up from the trace's header: {e}") from None


def picture_module(game: Any):
    """The game's picture module (``<the game's package>.picture``)."""
    pkg = type(game).__module__.rsplit(".", 1)[0]
    try:
        return importlib.import_module(pkg + ".picture")
    except ModuleNotFoundError:
        raise TraceError(f"game {game.name} has no board picture (no module {pkg}.picture)") from None


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


def walker_for(events: Sequence[dict]) -> Walker:
    """The game's ``Walker`` (``<game package>.picture.Walker``) for a trace's header."""
    game, cfg, comp = compiled_for(events[0])
    return picture_module(game).Walker(game, cfg, comp, board_layout(game.name))


def replay_steps(events: list[dict]) -> tuple[Any, Any, str, list[Step]]:
    """The game, compiled config, board SVG and steps of a trace's events."""
    w = walker_for(events)
    try:
        svg, steps = w.svg(), w.steps(events)
    except (KeyError, IndexError, TypeError, ValueError, AssertionError) as e:
        raise TraceError(f"the trace's events do not follow each other ({type(e).__name__}: {e}): "
                         "a broken or edited trace?") from None
    return w.game, w.comp, svg, steps


def replay_html(trace_path: str | Path, out: str | Path, index: int | None = None) -> dict:
    """Write the replay page of one traced game (``read_trace``'s ``index``) to ``out``: one
    self-contained HTML file (inline SVG, CSS and script; no network). Returns ``path``,
    ``steps``, ``bytes`` and ``seconds`` (the time to build it)."""
    import time
    t0 = time.perf_counter()
    events = read_trace(trace_path, index)
    game, comp, svg, steps = replay_steps(events)
    from lotr_sim.replay.page import write_page
    out = Path(out)
    n = write_page(out, game, events[0], svg, steps)
    return {"path": out, "steps": len(steps), "bytes": n, "seconds": time.perf_counter() - t0}
