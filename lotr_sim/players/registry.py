"""The policy registry: which player names exist besides each game's built-in ones.

A game's built-in policies (``Game.builtin_policies``: random and its heuristics) run
inside its numba engine. The players registered here are written once in Python against
the step-machine contract and work for every game that implements it; ``Game.policies``
is the built-in names followed by these."""
from __future__ import annotations

from typing import Callable

# name -> (factory(game, seed) -> player, one-line description, its settings)
PLAYERS: dict[str, tuple[Callable, str, dict]] = {}


def register_player(name: str, factory: Callable, doc: str, settings: dict | None = None) -> None:
    """Add a player usable by every step-machine game (``--policy SEAT=name``); ``settings``
    are written into trace headers and manifests so that a game can be re-run exactly."""
    PLAYERS[name] = (factory, doc, dict(settings or {}))


def player_settings(name: str) -> dict:
    """What a registered player was built with (empty for a game's own players)."""
    return dict(PLAYERS[name][2]) if name in PLAYERS else {}


def is_generic(name: str) -> bool:
    return name in PLAYERS


def generic_player(name: str, game, seed: int):
    """A fresh player ``name`` for ``game`` (one per seat and game)."""
    return PLAYERS[name][0](game, seed)


_SEARCH = dict(budget=384, width=6, z=1.0, start=8, keep_pass=False)
_SEARCH_FAST = dict(budget=24, width=4, z=1.0, start=8, keep_pass=False)


def _searcher(settings: dict) -> Callable:
    """A factory of search players with these settings."""
    def make(game, seed):
        from lotr_sim.players.search import SearchPlayer
        return SearchPlayer(game, seed, **settings)
    return make


register_player("search", _searcher(_SEARCH), "Monte Carlo search: the heuristic's six best candidates "
                "raced on playouts by the game's default heuristic (8 each, then the better half "
                "doubled; at most 384 playouts per decision)", _SEARCH)
register_player("search-fast", _searcher(_SEARCH_FAST), "the search player with 24 playouts per decision "
                "(the heuristic's four best candidates, 6 playouts each)", _SEARCH_FAST)
