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


# The search player (issue 19 §3): built on the shipped tuned weights, each other seat
# modelled by the player that holds it, 48 playouts per decision at most. Measured against
# greedy and tuned on 400 games per side in each game (the note of issue 19): as strong as
# search-classic against greedy per side on the average and stronger against tuned, at about
# a sixth of its CPU time in Minas Tirith. search-classic is the player before that change.
_SEARCH = dict(budget=48, width=4, z=0.5, start=6, keep_pass=False, base="tuned", model="opponents")
_SEARCH_FAST = dict(budget=16, width=3, z=0.5, start=4, keep_pass=False, base="tuned", model="opponents")
_SEARCH_CLASSIC = dict(budget=384, width=6, z=1.0, start=8, keep_pass=False, base="greedy", model="self")


def _searcher(settings: dict) -> Callable:
    """A factory of search players with these settings."""
    def make(game, seed):
        from lotr_sim.players.search import SearchPlayer
        return SearchPlayer(game, seed, **settings)
    return make


register_player("search", _searcher(_SEARCH), "Monte Carlo search on the tuned weights: their four best "
                "candidates raced on playouts in which its seat plays tuned and every other seat "
                "its actual player (6 each, then the better half doubled; at most 48 playouts per "
                "decision)", _SEARCH)
register_player("search-fast", _searcher(_SEARCH_FAST), "the search player with 16 playouts per decision "
                "(the tuned weights' three best candidates, 4 playouts each)", _SEARCH_FAST)
register_player("search-classic", _searcher(_SEARCH_CLASSIC), "the search player before issue 19: the "
                "greedy heuristic's six best candidates raced on playouts by greedy for every seat "
                "(at most 384 playouts per decision; about six times the CPU of search)", _SEARCH_CLASSIC)
