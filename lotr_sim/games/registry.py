"""Game registry: a new game is a new package plus one line in ``_GAMES``.

Modules are imported lazily so that ``lotr-sim --help`` does not load numba.
"""
from __future__ import annotations

import importlib

from lotr_sim.config import closest
from lotr_sim.errors import ConfigError

# name -> "module:ClassName"
_GAMES: dict[str, str] = {
    "minas-tirith": "lotr_sim.games.minas_tirith.game:MinasTirith",
    "the-search": "lotr_sim.games.the_search.game:TheSearch",
    "lotr-risk": "lotr_sim.games.lotr_risk.game:LotrRisk",
}

_cache: dict = {}


def game_names() -> list[str]:
    return list(_GAMES)


def register(name: str, target: str) -> None:
    """Register a game class given as 'module:Class' (used by tests and plug-ins)."""
    _GAMES[name] = target
    _cache.pop(name, None)


def unregister(name: str) -> None:
    """Remove a registered game (plug-ins and tests undo ``register`` with this)."""
    _GAMES.pop(name, None)
    _cache.pop(name, None)


def get_game(name: str):
    """The game ``name`` (loaded once per process)."""
    if name not in _GAMES:
        raise ConfigError(f"unknown game '{name}'{closest(name, _GAMES)} (games: {', '.join(_GAMES)})")
    if name not in _cache:
        from lotr_sim import _numba

        # in the lotr-sim program (only), the first-run compile machinery (lotr_sim/_numba)
        _numba.activate()
        mod, cls = _GAMES[name].split(":")
        _cache[name] = getattr(importlib.import_module(mod), cls)()
    return _cache[name]
