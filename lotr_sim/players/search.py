"""The search player: Monte Carlo search over the legal actions, for every game.

At each decision of its seat it takes the game's heuristic's own choice plus its next best
candidates by the heuristic's scores (``width`` in all) and plays each out with the game's
default heuristic for both seats (``State.playouts``). Playout ``j`` of a round uses the same
chance stream for every candidate (common random numbers), so candidates are compared on
paired futures. This is Tesauro and Galperin's rollout improvement of a base policy: with
enough playouts it cannot do worse than its base in expectation, and it sees what a fixed
scoring rule misses.

The playouts are spent by racing (sequential halving): every candidate gets ``start``
playouts; if every candidate's playouts ended alike, nothing is to be gained and the
heuristic's choice stands; otherwise the heuristic's choice and the better half of the
others (by mean paired difference) go on to a round that doubles their playouts, and so on
while the next round fits in ``budget`` playouts. It then takes the candidate with the best
mean paired difference against the heuristic's choice if that difference exceeds ``z``
standard errors, else the heuristic's choice. Many decisions are settled in the first round,
so the playouts go to the few decisions where candidates differ. Racing beat flat search
clearly, and scoring a playout's points lead as well as its result gained nothing measurable
for its time, so the playouts count results only (figures in docs/players.md).

The wide mode (``width=0``) is the judge of exploitability (``search-wide``): a narrow race
cannot see an action its base heuristic ranks low, and the actions a strong opponent finds are
often exactly those. It screens every legal action with ``start`` paired playouts (2), then
halves the field round by round (the heuristic's choice always stays), topping each survivor
up to ``final / 2**h`` playouts, ``h`` being the halvings still to come, until two remain with
``final`` (64) each; ``budget`` caps a decision's playouts. It does not stop when the screening's
playouts all ended alike (``_race_wide``), and it takes the better finalist at ``z = 0``.

What it improves on and who it plays against in its playouts: ``base`` names the heuristic
whose candidates it races and which plays its own seat in the playouts (a name of the game's
policy table: ``greedy``, ``tuned``...; the decisions the engine makes inside its seat's
actions use it too). ``model`` says who plays the other seats there: ``"self"``, its base as
well (Tesauro and Galperin's rollouts of one policy), or ``"opponents"``, the player that
actually holds each seat (a search player by its own base). Modelling the opponents is what a
best response does, and it is what exploitability means (how much can a player gain against
this one?); the seat still sees only what it may know, since the playouts re-deal the hidden
part (``State.playouts``). With opponents modelled, 48 playouts per decision on tuned are about
as strong against greedy as 384 on greedy (``search-classic``) at a fraction of the CPU
(``lotr-sim bench search``; figures in docs/players.md).

How far a playout looks: ``horizon`` rounds (0: to the end). Where the rules name a winner
at any moment (``Game.playout_horizon``: LOTR Risk, whose winner is the player with the most
points, LR-11.2), a playout stops once that many rounds more have ended and is scored by who
would win if the game ended there; elsewhere the setting is not taken and playouts run to the
end. Truncated rollouts of this kind are how search is made cheap where whole games are long:
a LOTR Risk playout from a decision plays about half a game. There one round is as strong
against greedy as playouts to the end at about a sixth of the CPU (``lotr-sim bench search -g
lotr-risk``; figures in docs/players.md), so the registered ``search`` stops after one round.

Its randomness is its own: playouts of decision ``k`` of game ``index`` use streams
``(key, j)`` with ``key`` derived from (seed, index, seat, k, round), never the game's chance
stream, so a game with a search seat is reproducible from its seed and the game's dice do not
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
    """Monte Carlo search racing the heuristic's best candidates (or, with ``width=0``, every
    legal action) within a per-decision budget of playouts."""

    name = "search"

    def __init__(self, game, seed: int, budget: int = 384, width: int = 6, z: float = 1.0,
                 keep_pass: bool = False, skip: tuple[str, ...] = (), start: int = 8,
                 base: str = "greedy", model: str = "self", horizon: int = 0, final: int = 0):
        if budget < 1 or width < 0 or start < 1 or final < 0:
            raise ValueError("budget and start must be at least 1, width and final at least 0")
        if width == 0 and final < 1:
            raise ValueError("a wide search (width 0) needs final >= 1 playouts per finalist")
        if horizon < 0:
            raise ValueError(f"horizon is a number of rounds >= 0 (0: to the end), not {horizon}")
        if model not in ("self", "opponents"):
            raise ValueError(f"model must be 'self' or 'opponents', not {model!r}")
        self.game = game
        self.seed = int(seed)
        self.budget = int(budget)
        self.width = int(width)
        self.z = float(z)
        self.keep_pass = bool(keep_pass)
        self.skip = tuple(skip)   # decision kinds left to the heuristic (State.decision_kind)
        self.start = int(start)
        self.base = str(base)     # the heuristic it improves on: its candidates and playouts
        self.model = model        # who the other seats are in its playouts (see the docstring)
        # playouts stop after this many rounds where the game can score a position (see the docstring)
        self.horizon = int(horizon) if getattr(game, "playout_horizon", False) else 0
        # wide mode (width 0): the playouts each of the last two candidates gets at least
        self.final = int(final)
        self._rows = None
        self.decisions = 0
        self.playouts = 0
        self.considered = 0      # candidates raced at the last decision that had a race

    def _key(self, state: State, seat: int, rnd: int = 0) -> int:
        k = _mix64_py(self.seed ^ _TAG)
        k = _mix64_py(k ^ int(state.index))
        k = _mix64_py(k ^ (seat << 32) ^ self.decisions)
        if rnd:
            k = _mix64_py(k ^ (rnd << 48))
        return k & ((1 << 63) - 1)

    def candidates(self, state: State) -> np.ndarray:
        """The heuristic's own choice first, then the best others by its scores."""
        n = state.legal_actions().shape[0]
        own = state.heuristic_choice()
        first = [own]
        wait = state.pass_action()
        if self.keep_pass and 0 <= wait != own:
            # always look at holding back too (measured on Minas Tirith: it makes the search
            # weaker as Good, 52.5% against 59% without, so it is off by default)
            first.append(wait)
        scores = state.action_scores()
        order = [int(i) for i in np.argsort(-scores, kind="stable") if int(i) not in first]
        # every legal action in wide mode (width 0): the heuristic's choice first, then by its scores
        keep = n if self.width == 0 else max(1, min(self.width, n))
        return np.array((first + order)[:keep], dtype=np.int64)

    def _values(self, state: State, cand: np.ndarray, m: int, key: int, side: int) -> np.ndarray:
        """Scores [len(cand), m] of m paired playouts of each candidate for ``side``."""
        if self.horizon:
            winners = state.playouts(cand, m, key, self.horizon)
        else:   # a game's playouts need not take a horizon unless it can stop early
            winners = state.playouts(cand, m, key)
        self.playouts += winners.size
        # a seat scores by its side winning (LOTR Risk with 3-4 players: a seat of the winning player's side, LR-11.4)
        return winner_scores(self.game, winners, side)

    def prepare(self, state: State) -> None:
        """Before the game's first step: the game makes its playouts ready
        (``State.prepare_playouts``; on a cold cache, their compile comes first)."""
        state.prepare_playouts()

    def choose(self, state: State) -> int:
        """The index of the legal action this player takes at ``state``."""
        seat = state.to_move
        n = state.legal_actions().shape[0]
        self.decisions += 1
        self.use_base(state, seat)
        if n <= 1:
            return 0
        if self.skip and state.decision_kind() in self.skip:
            return state.heuristic_choice()
        cand = self.candidates(state)
        if cand.shape[0] == 1:
            return int(cand[0])
        self.considered = int(cand.shape[0])
        side = self.game.seat_side(state.compiled, seat)
        if self.width == 0:
            return int(cand[self._race_wide(state, cand, seat, side)])
        m = max(1, min(self.start, self.budget // cand.shape[0]))
        alive = np.arange(cand.shape[0])          # row 0: the heuristic's own choice
        v = self._values(state, cand, m, self._key(state, seat), side)
        used = v.size
        rnd = 0
        while True:
            d = v[1:] - v[0]
            if not d.any():
                return int(cand[0])   # every playout alike: nothing here to improve on
            if alive.shape[0] > 2:
                alive, v = _halve(alive, v)
            m = v.shape[1]
            if used + alive.shape[0] * m > self.budget:
                break
            rnd += 1
            w = self._values(state, cand[alive], m, self._key(state, seat, rnd), side)
            used += w.size
            v = np.concatenate((v, w), axis=1)
        return int(cand[alive[self._pick(v)]])

    def use_base(self, state: State, seat: int) -> None:
        """Give ``state`` this player's heuristic rows (its base for its seat, its models for
        the others: ``_seat_models``), built at its first decision: what the candidates, the
        action scores and the playouts read."""
        if self._rows is None:
            self._rows = self.game.heuristic_rows(state.compiled, self._seat_models(state, seat))
        state.use_heuristic(self._rows)

    def _race_wide(self, state: State, cand: np.ndarray, seat: int, side: int) -> int:
        """Wide mode: the row of ``cand`` (every legal action) to play, by sequential halving.
        Each candidate gets ``start`` paired playouts; then, round by round, the heuristic's
        choice and the better half of the others by mean paired difference go on, and each
        survivor is topped up to ``final / 2**h`` playouts, ``h`` being the halvings still
        needed to get down to two: the last two have ``final`` each, the early rounds cost
        little. A round that would pass ``budget`` is not played (the race picks from what it
        has). Unlike the narrow race, a screening whose playouts all ended alike does not settle
        the decision: ``start`` is meant to be small (2), and a few alike playouts of each of
        many candidates say little about the few that differ."""
        alive = np.arange(cand.shape[0])          # row 0: the heuristic's own choice
        v = self._values(state, cand, self.start, self._key(state, seat), side)
        used = v.size
        rnd = 0
        while True:
            if alive.shape[0] > 2:
                alive, v = _halve(alive, v)
            h, a = 0, alive.shape[0]
            while a > 2:                           # halvings still to come
                a, h = 1 + a // 2, h + 1
            m = v.shape[1]
            more = (self.final >> h) - m
            if more > 0:
                if used + alive.shape[0] * more > self.budget:
                    break
                rnd += 1
                w = self._values(state, cand[alive], more, self._key(state, seat, rnd), side)
                used += w.size
                v = np.concatenate((v, w), axis=1)
            if alive.shape[0] <= 2:
                break
        return int(alive[self._pick(v)])

    def _seat_models(self, state: State, seat: int) -> list[str]:
        """Who plays each seat in this player's playouts: its own seat its base heuristic;
        the others the same (``model="self"``) or each the player that holds it
        (``model="opponents"``; a player from ``lotr_sim.players`` by its own base)."""
        seats = list(self.game.seat_policies(state.compiled, state.policies).values())
        if self.model == "self":
            return [self.base] * len(seats)
        return [self.base if i == seat else p for i, p in enumerate(seats)]

    def _pick(self, v: np.ndarray) -> int:
        """Row of ``v`` to play: the best mean paired gain over row 0 beyond ``z`` standard
        errors, else row 0."""
        d = v[1:] - v[0]
        m = v.shape[1]
        mean = d.mean(axis=1)
        se = d.std(axis=1, ddof=1) / np.sqrt(m) if m > 1 else np.full(len(mean), np.inf)
        ok = mean > self.z * se
        if not ok.any():
            return 0
        return 1 + int(np.argmax(np.where(ok, mean, -np.inf)))


def _halve(alive: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One halving of a race: the heuristic's choice (row 0) and the better half of the others
    by mean paired difference against it go on; their candidate indices and playouts."""
    d = v[1:] - v[0]
    keep = 1 + np.argsort(-d.mean(axis=1), kind="stable")[: alive.shape[0] // 2]
    rows = np.concatenate(([0], keep))
    return alive[rows], v[rows]
