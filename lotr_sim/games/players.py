"""Seats held by players written in Python rather than by the engine: the table of those
players and the driver that plays a game with them.

A game's built-in policies (``Game.builtin_policies``: random and its heuristics) run
inside its numba engine. The players in ``PLAYERS`` are written once in Python against the
step-machine contract (``lotr_sim.games.step``) and work for every game that implements it;
``Game.policies`` is the built-in names followed by these. The games read this table (which
names are such players, the settings that trace headers and manifests record, the ``base``
heuristic a player stands on) and play such seats with ``play_state``.

The players' code lives above the games, in ``lotr_sim.players`` (the search player), and
the table names each by its import path (``"module:Name"``), as ``registry._GAMES`` names
the games: it is loaded when a seat is first played, so the games know every player
without importing one, and a player may use all of the game's surface.

The driver: the engine plays its built-in policies inside numba until a seat held by such a
player is to move (``PlayableState.run_builtin``); that player picks one of the legal
actions in Python (``choose(state)``), ``State.apply`` applies it, and so on to the end. Game ``i`` always uses the game's
stream (seed, i) for chance and the player's own streams for its look-ahead, so results are
bit-identical whatever the threads or chunking.
"""
from __future__ import annotations

import importlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np

from lotr_sim.games.step import State
from lotr_sim.kernels.runner import split_range


class PlayerEntry(NamedTuple):
    """One registered player: how to build it, a one-line description and its settings."""
    factory: str | Callable[..., Any]   # "module:Name", built as Name(game, seed, **settings);
                                        # or a callable factory(game, seed)
    doc: str
    settings: dict


# name -> its entry, in the order ``Game.policies`` lists them
PLAYERS: dict[str, PlayerEntry] = {}


def register_player(name: str, factory: str | Callable[..., Any], doc: str,
                    settings: dict | None = None) -> None:
    """Add a player usable by every step-machine game (``--policy SEAT=name``).

    ``factory`` is the import path ``"module:Name"`` of a class (or function), built for each
    seat and game as ``Name(game, seed, **settings)``; or a callable ``factory(game, seed)``
    that holds its own settings (plug-ins and tests). ``settings`` are written into trace
    headers and manifests so that a game can be re-run exactly."""
    PLAYERS[name] = PlayerEntry(factory, doc, dict(settings or {}))


def player_settings(name: str, game=None) -> dict:
    """What a registered player was built with (empty for a game's own players); for
    ``game``, the settings it plays that game with (a playout ``horizon`` only where the
    game's playouts can stop early, ``Game.playout_horizon``)."""
    out = dict(PLAYERS[name].settings) if name in PLAYERS else {}
    if game is not None and not getattr(game, "playout_horizon", False):
        out.pop("horizon", None)
    return out


def is_generic(name: str) -> bool:
    """Is ``name`` a registered player (played through the step machine, not by the engine)?"""
    return name in PLAYERS


def generic_player(name: str, game, seed: int):
    """A fresh player ``name`` for ``game`` (one per seat and game)."""
    factory, _, settings = PLAYERS[name]
    if not isinstance(factory, str):
        return factory(game, seed)
    module, attr = factory.split(":")
    return getattr(importlib.import_module(module), attr)(game, seed, **settings)


# The search player: built on the shipped tuned weights, each other seat modelled by the
# player that holds it, 48 playouts per decision at most. search-classic races greedy's
# candidates on playouts by greedy for every seat, with eight times the budget. Where a game
# can score a position (LOTR Risk), the playouts of search and search-fast stop after one
# round (horizon 1): as strong against greedy as playouts to the end, at a sixth of the CPU.
# docs/players.md gives what each setting measured (`lotr-sim bench search`).
_SEARCH_PLAYER = "lotr_sim.players.search:SearchPlayer"
_SEARCH = dict(budget=48, width=4, z=0.5, start=6, keep_pass=False, base="tuned", model="opponents",
               horizon=1)
_SEARCH_FAST = dict(budget=16, width=3, z=0.5, start=4, keep_pass=False, base="tuned", model="opponents",
                    horizon=1)
# search-wide, the judge of exploitability (what `lotr-sim skill` measures the other players
# with): every legal action screened with 2 playouts, halved down to two finalists of 64 each,
# its seat played by tuned and every other seat by its actual player in the playouts (its
# gains against tuned, `lotr-sim bench search -L search-wide -a tuned`, are in docs/players.md).
# In LOTR Risk its playouts stop after two rounds, scored by the points: one
# round ends a playout of a decision late in a round before the other players have answered
# the move, so a judge with horizon 1 would credit grabs that the reply takes back; playouts
# to the end cost about three times as much and measured no stronger for the narrow search.
_SEARCH_WIDE = dict(budget=2048, width=0, start=2, final=64, z=0.0, keep_pass=False, base="tuned",
                   model="opponents", horizon=2)
_SEARCH_CLASSIC = dict(budget=384, width=6, z=1.0, start=8, keep_pass=False, base="greedy", model="self")

register_player("search", _SEARCH_PLAYER, "Monte Carlo search on the tuned weights: their four best "
                "candidates raced on playouts in which its seat plays tuned and every other seat "
                "its actual player (6 each, then the better half doubled; at most 48 playouts per "
                "decision; in LOTR Risk each playout stops after one round, scored by the points)", _SEARCH)
register_player("search-fast", _SEARCH_PLAYER, "the search player with 16 playouts per decision "
                "(the tuned weights' three best candidates, 4 playouts each; in LOTR Risk one round "
                "each, as search)", _SEARCH_FAST)
register_player("search-wide", _SEARCH_PLAYER, "the judge of exploitability: Monte Carlo search over "
                "every legal action (2 playouts each, then the better half raced on until two have 64 "
                "each; at most 2,048 playouts per decision), playouts by tuned for its seat and the "
                "actual player on every other; in LOTR Risk each playout stops after two rounds, "
                "scored by the points", _SEARCH_WIDE)
register_player("search-classic", _SEARCH_PLAYER, "the first search player: the "
                "greedy heuristic's six best candidates raced on playouts by greedy for every seat "
                "(at most 384 playouts per decision; about six times the CPU of search)", _SEARCH_CLASSIC)


class Cancelled(Exception):
    """A game given up between two decisions because its run was stopped (``play_state``)."""


def play_state(game, compiled, policies: Mapping[str, str], seed: int, index: int,
               trace: bool = False, debug: bool = False, stats: dict | None = None,
               cancel: threading.Event | None = None) -> State:
    """One whole game; returns its final state (``state.result()`` gives the row). ``policies``
    name sides and/or seats (``Game.seat_policies``); each seat held by a registered player
    gets its own player object, indexed by seat as ``State.to_move`` reports it. Once
    ``cancel`` is set, the game stops before its next decision (``Cancelled``)."""
    seats = game.seat_policies(compiled, policies)
    players = {seat: generic_player(p, game, seed) for seat, p in enumerate(seats.values()) if is_generic(p)}
    state = game.bind(compiled).new_state(policies, seed, index, trace=trace, debug=debug)
    stop = sorted(players)
    for p in players.values():               # a player may get ready before the first step
        prepare = getattr(p, "prepare", None)
        if prepare is not None:
            prepare(state)
    t0 = time.perf_counter()
    while True:
        seat = state.run_builtin(stop)
        if seat < 0:
            break
        if cancel is not None and cancel.is_set():
            raise Cancelled
        state.apply(players[seat].choose(state))
    if stats is not None:
        stats["seconds"] = stats.get("seconds", 0.0) + time.perf_counter() - t0
        for seat, p in players.items():
            stats["decisions"] = stats.get("decisions", 0) + p.decisions
            stats["playouts"] = stats.get("playouts", 0) + getattr(p, "playouts", 0)
    return state


def simulate_with_players(game, compiled, policies: Mapping[str, str], seed: int, first: int,
                          n: int, threads: int, record: Callable[[State, int], None]) -> dict:
    """Games first..first+n-1 on ``threads`` threads (the kernels release the GIL);
    ``record(state, row)`` stores game first+row's result. Returns time and search counts
    (also kept as ``game.last_player_stats``, so no game has to store them itself).

    An exception in the calling thread (Ctrl-C, SIGTERM as a KeyboardInterrupt) stops the
    other threads' games before their next decision, so it propagates at once instead of
    after every thread's share of games (a search game can take many seconds)."""
    stats: list[dict] = [{} for _ in range(max(1, threads))]
    cancel = threading.Event()

    def work(c: int, lo: int, hi: int) -> None:
        try:
            for i in range(lo, hi):
                record(play_state(game, compiled, policies, seed, first + i, stats=stats[c], cancel=cancel), i)
        except Cancelled:
            pass

    if n <= 0:
        return {}
    chunks = split_range(n, max(1, min(threads, n)))
    if len(chunks) == 1:
        work(0, 0, n)
    else:
        with ThreadPoolExecutor(max_workers=len(chunks)) as ex:
            try:
                for f in [ex.submit(work, c, lo, hi) for c, (lo, hi) in enumerate(chunks)]:
                    f.result()
            except BaseException:
                cancel.set()
                raise
    out: dict = {}
    for s in stats:
        for k, v in s.items():
            out[k] = out.get(k, 0) + v
    out["games"] = n
    game.last_player_stats = out   # what `lotr-sim bench` reports of the players' search
    return out


class PlayableState(State):
    """A state the engine's own players and the players of ``lotr_sim.players`` can play.

    Beyond the step API (``State``), a game whose seats the engine can play gives its
    built-in pick (``builtin_choice``: the seat's own player, random ones drawing from the
    state) and its default heuristic's scores (``action_scores``); the rest has a default
    here written on those, which an engine replaces with its own kernels (``NumbaState``)."""

    def builtin_choice(self) -> int:
        """The index the seat's built-in policy picks (random ones draw from the state)."""
        raise NotImplementedError(f"{self.game.name} has no built-in players")

    def action_scores(self) -> np.ndarray:
        """The default heuristic's score of each legal action (higher is better)."""
        raise NotImplementedError(f"{self.game.name} has no heuristic")

    def heuristic_choice(self) -> int:
        """The index the seat's default heuristic picks (never draws): the first highest of
        ``action_scores`` (0 once over)."""
        scores = self.action_scores()
        return int(np.argmax(scores)) if scores.shape[0] else 0

    def run_builtin(self, stop_seats: Sequence[int]) -> int:
        """Play built-in policies until a seat in ``stop_seats`` is to move (returns it) or
        the game ends (returns -1)."""
        while not self.is_terminal():
            seat = self.to_move
            if seat in stop_seats:
                return seat
            self.apply(self.builtin_choice())
        return -1

    def playouts(self, candidates: np.ndarray, m: int, key: int, horizon: int = 0) -> np.ndarray:
        """For each candidate action and j < m: on a copy, determinized from the mover's view
        as ``determinize`` does (on stream (key, j)), apply it, then the default heuristics
        play to the end with chance from stream (key, j), the same for every candidate.
        Returns winner codes (indices into ``Game.outcomes``), shape [k, m].

        ``horizon`` > 0 (only a game with ``playout_horizon``): a playout stops once that many
        rounds more have ended and is scored as if the game ended there by its own rules
        (the winner the rules would name at that moment)."""
        raise NotImplementedError(f"{self.game.name} has no playouts")

    def prepare_playouts(self) -> None:
        """Called before the first step of a game in which a search player is seated: make
        ready whatever ``playouts`` needs, leaving the state as it was. Nothing by default."""
        return None

    def use_heuristic(self, rows: np.ndarray | None) -> None:
        """Make ``rows`` (from ``Game.heuristic_rows``) the heuristic that
        ``heuristic_choice``, ``action_scores`` and ``playouts`` use (nothing when None)."""
        return None

    def decision_kind(self) -> str:
        """A short name of the current decision's kind, so a player may treat kinds
        differently (the search player's ``skip``); "decision" when the game does not say.
        Minas Tirith: "die", "action", "loss", "retreat", "card"; LOTR Risk: its phase
        (``lotr_risk.layout.PHASE_KIND``); The Search: ``the_search.layout.DECISIONS``."""
        return "decision"

    def pass_action(self) -> int:
        """The index of the "do nothing more" action of this decision (e.g. end the turn), or
        -1 when there is none; a search player always considers it."""
        return -1

    def action_features(self) -> np.ndarray | None:
        """What the learned player learns from at this decision (per legal row, the
        heuristic's score then the row's features), or None where there is nothing to learn."""
        return None
