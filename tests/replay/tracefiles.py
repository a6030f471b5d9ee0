"""Trace files of one game of each game (seed 1, game 0, the default players), written the
way ``lotr-sim play --trace`` writes them, for the replay and human-seat tests."""
from __future__ import annotations

import json
from pathlib import Path

from lotr_sim.games.registry import get_game

GAMES = ("minas-tirith", "lotr-risk", "the-search")


def write_trace(game: str, path: Path, seed: int = 1, index: int = 0, policies: dict | None = None,
                sets: list[str] | None = None) -> list[dict]:
    """Play one traced game and write its events as JSON Lines; returns the events."""
    g = get_game(game)
    comp = g.compile(g.load(None, sets or []))
    _, events = g.play(comp, g.check_policies(policies or {}), seed, index)
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return events
