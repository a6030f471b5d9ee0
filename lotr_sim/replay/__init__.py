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

What every game shares: here, reading and checking a trace file (``read_trace``) and the page
itself (``lotr_sim.replay.page``); below the games, in ``lotr_sim.games.picture``, the board
layout files (``configs/boards/<game>.toml``, ``board_layout``), SVG helpers, the step list
(``Step``) and the ``Walker`` each game's picture module extends.
"""
from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotr_sim.errors import LotrSimError
from lotr_sim.games.picture import (  # noqa: F401  (the kit, re-exported for the pages and tests)
    Step, Walker, board_layout, esc, line_svg, positions, slug, spot_svg, table_html, toward, units_text,
)


class TraceError(LotrSimError):
    """A trace file that cannot be replayed: missing, broken, of another trace version."""


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
