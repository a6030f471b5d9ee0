"""The search player: flat Monte Carlo over the legal actions, for every game.

At each decision of its seat it takes the game's heuristic's own choice plus its next best
candidates by the heuristic's scores (``width`` in all), plays each out ``budget // width``
times with the game's default heuristic for both seats (``Game.playouts``), and picks the
candidate with the best mean score (win 1, draw 1/2). Playout ``j`` uses the same chance
stream for every candidate (common random numbers), so candidates are compared on paired
futures; ties keep the heuristic's own choice. A decision with one legal action costs
nothing. This is Tesauro and Galperin's rollout improvement of a base policy: with enough
playouts it cannot do worse than its base in expectation, and it sees what a fixed
scoring rule misses.

Its randomness is its own: playouts of decision ``k`` of game ``index`` use streams
``(key, j)`` with ``key`` derived from (seed, index, seat, k), never the game's chance stream,
so a game with a search seat is reproducible from its seed and the game's dice do not
depend on how much the player searched.

What it does not choose: the decisions the engine still makes inside an action or a card
play (for Minas Tirith: leaders following a move, the cards making up a traded set, the bonus
trade's option, where Muster units go, the hand limit's discards; see its engine's docstring)
are made by the seat's base heuristic. Minas Tirith's mission die, actions, losses, retreats and
card step (trade, Muster, load, stop: kind "card") are its decisions; ``skip=("card",)`` leaves
a kind to the heuristic.
"""
from __future__ import annotations

import numpy as np

from lotr_sim.games.step import State, winner_scores
from lotr_sim.kernels.rng import _mix64_py

_TAG = 0x5345415243480000  # "SEARCH"


class SearchPlayer:
    """Flat Monte Carlo search with a per-decision budget of playouts."""

    name = "search"

    def __init__(self, game, seed: int, budget: int = 96, width: int = 6, z: float = 1.0,
                 keep_pass: bool = False, skip: tuple[str, ...] = ()):
        if budget < 1 or width < 1:
            raise ValueError("budget and width must be at least 1")
        self.game = game
        self.seed = int(seed)
        self.budget = int(budget)
        self.width = int(width)
        self.z = float(z)
        self.keep_pass = bool(keep_pass)
        self.skip = tuple(skip)   # decision kinds left to the heuristic (Game.decision_kind)
        self.decisions = 0
        self.playouts = 0

    def _key(self, state: State, seat: int) -> int:
        k = _mix64_py(self.seed ^ _TAG)
        k = _mix64_py(k ^ int(state.index))
        k = _mix64_py(k ^ (seat << 32) ^ self.decisions)
        return k & ((1 << 63) - 1)

    def candidates(self, compiled, state: State) -> np.ndarray:
        """The heuristic's own choice first, then the best others by its scores."""
        n = self.game.legal_actions(compiled, state).shape[0]
        own = self.game.heuristic_choice(compiled, state)
        first = [own]
        wait = self.game.pass_action(compiled, state)
        if self.keep_pass and 0 <= wait != own:
            # always look at holding back too (measured on Minas Tirith: it makes the search
            # weaker as Good, 52.5% against 59% without, so it is off by default)
            first.append(wait)
        scores = self.game.action_scores(compiled, state)
        order = [int(i) for i in np.argsort(-scores, kind="stable") if int(i) not in first]
        return np.array((first + order)[: max(1, min(self.width, n))], dtype=np.int64)

    def choose(self, compiled, state: State) -> int:
        """The index of the legal action this player takes at ``state``."""
        seat = self.game.to_move(state)
        n = self.game.legal_actions(compiled, state).shape[0]
        self.decisions += 1
        if n <= 1:
            return 0
        if self.skip and self.game.decision_kind(compiled, state) in self.skip:
            return self.game.heuristic_choice(compiled, state)
        cand = self.candidates(compiled, state)
        if cand.shape[0] == 1:
            return int(cand[0])
        m = max(1, self.budget // cand.shape[0])
        winners = self.game.playouts(compiled, state, cand, m, self._key(state, seat))
        self.playouts += cand.shape[0] * m
        # a seat scores by its side winning (LOTR Risk with 3-4 players: a seat of the winning player's side, LR-11.4)
        v = winner_scores(self.game, winners, self.game.seat_side(compiled, seat))
        # paired on the playout's stream: candidate c against the heuristic's own choice
        d = v[1:] - v[0]
        mean = d.mean(axis=1)
        se = d.std(axis=1, ddof=1) / np.sqrt(m) if m > 1 else np.full(len(mean), np.inf)
        ok = mean > self.z * se
        if not ok.any():
            return int(cand[0])
        best = int(np.argmax(np.where(ok, mean, -np.inf)))
        return int(cand[1 + best])
