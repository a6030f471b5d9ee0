"""The game contract's step machine, seen from Python (docs/architecture.md, "Games are step machines").

Every engine rests, between two calls, at a decision of one seat (or the game is over):

* ``legal_actions(compiled, state)``  every choice the rules give the seat to move, as the
  rows of an int array (one row per action; the game's module documents the columns);
* ``apply(compiled, state, i)``  applies row ``i`` of that list and resolves everything up
  to the next decision - chance from the random stream held in the state;
* ``to_move(state)`` (a seat index into ``Game.seat_names``, by default the sides; -1 when over), ``is_over(state)``,
  ``result(compiled, state)`` (the same one-row columns as ``Game.simulate``).

A whole game is "the policy to move picks one of the legal actions, apply it". The engine's
own policies (random and the heuristics) run inside numba (``run_builtin``); a player
written in Python against this contract (``lotr_sim.players``, e.g. the search player)
takes the decisions of its seats and hands the rest back to the engine. ``State.copy()``
is a copy of the game, so a player can look ahead; ``playouts`` is the fast look-ahead
(copy, apply a candidate, play the engine's policies to the end, many times, in one call).
"""
from __future__ import annotations

from typing import Any

import numpy as np


class State:
    """One game in progress: the engine's flat arrays plus who plays which seat.

    ``arrays`` maps names to NumPy arrays (the game decides which: state, stream, trace,
    legal-action buffer ...); ``copy()`` copies every array, so the copy is a separate game
    (including its future chance: a player looking ahead must ``reseed`` its copies)."""

    def __init__(self, game: str, seed: int, index: int, policies: dict[str, str],
                 arrays: dict[str, np.ndarray], meta: dict[str, Any] | None = None):
        self.game = game
        self.seed = seed
        self.index = index
        self.policies = dict(policies)
        self.arrays = arrays
        self.meta = dict(meta or {})
        self.n_legal = -1          # rows of arrays["act"] valid for this decision (-1: stale)

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["arrays"][name]
        except KeyError:
            raise AttributeError(name) from None

    def copy(self) -> "State":
        c = State(self.game, self.seed, self.index, self.policies,
                  {k: v.copy() for k, v in self.arrays.items()}, self.meta)
        c.n_legal = self.n_legal
        return c


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
