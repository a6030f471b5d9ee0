"""The game contract's step machine: a ``State`` that knows its game (docs/architecture.md, "Games are step machines").

A game is configured and compiled once (``Game.compile``) and bound to that compiled config
(``Game.bind`` -> ``Rules``, immutable); ``Rules.new_state(policies, seed, index)`` gives
game ``index`` of ``seed`` after its set-up, resting at the first decision of one seat. The
``State`` then is the whole step API:

* ``legal_actions()``  every choice the rules give the seat to move, as the rows of an int
  array (one row per action; the game's module documents the columns);
* ``apply(i)``  applies row ``i`` of that list and resolves everything up to the next
  decision - chance from the random stream held in the state;
* ``to_move`` (a seat index into ``Game.seat_names``, by default the sides; -1 when over),
  ``is_terminal()``, ``result()`` (the same one-row columns as ``Game.simulate``) and
  ``returns()`` (each seat's score: 1 win, 0.5 draw, 0 loss);
* ``determinize(seat, key)``  a copy as ``seat`` sees it, the hidden part dealt again;
* ``copy()``  a separate game (including its future chance).

This is all a game must provide to be stepped (``State``'s abstract methods). What the
engine's players and the Python players need besides (the built-in pick, the heuristic's
scores, playouts, playing built-in seats to the next Python seat) is
``lotr_sim.games.players.PlayableState``; batch simulation, traces, seats and policy names
are the game's helpers (``lotr_sim.games.table.TableGame``).
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np


@dataclass(frozen=True, eq=False)
class Rules:
    """A game bound to one compiled config: what every state of that config shares.

    ``game`` is the registered game (a ``lotr_sim.games.base.Game``: its rules and
    parameters), ``compiled`` what its kernels read (``Game.compile``). Neither is changed by
    playing: states hold a reference to it."""
    game: Any
    compiled: Any

    def new_state(self, policies: Mapping[str, str] | None, seed: int, index: int,
                  trace: bool | int = False, debug: bool = False) -> "State":
        """Game ``index`` of ``seed`` (stream (seed, index)) after its set-up, resting at the
        first decision; ``policies`` names each side's or seat's player (``Game.check_policies``).
        Seats held by a player from ``lotr_sim.players`` are played by the engine with the
        game's default heuristic whenever the engine decides for them. ``trace``: record the
        events (True, or the trace buffer's size in words); ``debug``: the engine's checks."""
        return self.game.start(self, policies, seed, index, trace=trace, debug=debug)


class State(abc.ABC):
    """One game in progress: the engine's flat arrays, who plays which seat, and its ``rules``.

    ``arrays`` maps names to NumPy arrays (the game decides which: state, stream, trace,
    legal-action buffer ...), readable as attributes (``state.st``); ``copy()`` copies every
    array, so the copy is a separate game (including its future chance: a player looking
    ahead must reseed its copies or ``determinize`` them)."""

    def __init__(self, rules: Rules, seed: int, index: int, policies: Mapping[str, str],
                 arrays: dict[str, np.ndarray], meta: dict[str, Any] | None = None):
        self.rules = rules
        self.seed = seed
        self.index = index
        self.policies = dict(policies)
        self.arrays = arrays
        self.meta = dict(meta or {})
        self.n_legal = -1          # rows of the legal list valid for this decision (-1: stale)

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def game(self) -> Any:
        """The game this state is a position of."""
        return self.rules.game

    @property
    def compiled(self) -> Any:
        """The compiled config this state is played under."""
        return self.rules.compiled

    def copy(self) -> "State":
        c = type(self)(self.rules, self.seed, self.index, self.policies,
                       {k: v.copy() for k, v in self.arrays.items()}, self.meta)
        c.n_legal = self.n_legal
        return c

    # -- what every game provides ---------------------------------------------------------
    @abc.abstractmethod
    def legal_actions(self) -> np.ndarray:
        """Every action of the current decision, one row each (empty once over)."""

    @abc.abstractmethod
    def apply(self, i: int) -> None:
        """Apply legal action ``i`` and resolve everything up to the next decision; an index
        outside the legal list is refused with ``IllegalAction`` (``check_action``)."""

    @property
    @abc.abstractmethod
    def to_move(self) -> int:
        """The seat (index into ``Game.seat_names``) whose decision it is; -1 once over."""

    @abc.abstractmethod
    def result(self) -> dict[str, np.ndarray]:
        """The finished game's one-row outcome columns (as ``Game.simulate`` gives them)."""

    @abc.abstractmethod
    def invariant_ok(self) -> bool:
        """The game's conservation invariant (units, cards, tokens ...) holds."""

    # -- derived from the above -------------------------------------------------------------
    def is_terminal(self) -> bool:
        """Is the game over?"""
        return self.to_move < 0

    def returns(self) -> np.ndarray:
        """Each seat's score in the finished game (``Game.seat_names`` order): 1 when its side
        won, 0.5 for a draw, 0 for a loss."""
        game, comp = self.rules.game, self.rules.compiled
        winner = np.asarray(self.result()["winner"][:1], dtype=np.int64)
        return np.array([winner_scores(game, winner, game.seat_side(comp, i))[0]
                         for i in range(len(game.seat_names(comp)))])

    def determinize(self, seat: int, key: int) -> "State":
        """A new state (this one is left as it was): this position as seat ``seat`` sees it,
        with everything that seat cannot know dealt again from stream (key, 0) - the order of
        every deck and stack, the other players' hands and face-down cards or tokens where the
        rules keep them secret (their counts stay public). The public part is unchanged and
        the copy is a valid position of the same game, so it plays on from there (its legal
        list is listed again). A game says what it hides in ``_redeal``; by default (no hidden
        information) the copy is unchanged."""
        from lotr_sim.kernels.rng import make_stream
        seats = self.rules.game.seat_names(self.rules.compiled)
        if not 0 <= int(seat) < len(seats):
            raise ValueError(f"seat {seat} is not one of {', '.join(seats)} (0-based)")
        out = self.copy()
        out._redeal(int(seat), make_stream(int(key), 0))
        out.n_legal = -1
        return out

    def _redeal(self, seat: int, s: np.ndarray) -> None:
        """Deal again, in place on this state (a copy) and from stream ``s``, what ``seat``
        cannot know. Nothing by default: a game without hidden information."""
        return None


class IllegalAction(ValueError):
    """An action index outside the current legal list (or a state that is already over)."""


def check_action(i, n: int) -> int:
    """``i`` as an index into a legal list of ``n`` actions; IllegalAction otherwise (every
    game's ``apply`` checks its argument with this before its kernel sees it)."""
    if isinstance(i, bool) or not 0 <= int(i) < n:
        raise IllegalAction(f"action {i} is not one of the {n} legal actions"
                            + (" (the game is over)" if n == 0 else ""))
    return int(i)


def trace_size(trace, default: int) -> int:
    """Words of a trace buffer for ``new_state(trace=...)``: 0 without a trace, ``default``
    for ``trace=True``, the given size for an int."""
    if not trace:
        return 0
    return trace if isinstance(trace, int) and not isinstance(trace, bool) else default


def winner_scores(game, winners: np.ndarray, side: int) -> np.ndarray:
    """Score of each winner code for side ``side`` (index into ``game.sides``; a seat scores
    by its side, ``Game.seat_side``): 1 win, 0.5 draw, 0 loss."""
    side = game.sides[side]
    table = np.array([1.0 if o == side else 0.5 if o == "draw" else 0.0 for o in game.outcomes])
    return table[winners]
