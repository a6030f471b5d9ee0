"""The Fellowship track of LOTR Risk and the exact law of the game's length (LR-10).

Rules (``docs/rules/lotr-risk.md``):

* LR-10.1 The Ring starts in The Shire and, at the end of every turn of a player (never of
  the neutral army), moves to the next territory of the path.
* LR-10.2 On a marked territory the die must show more than ``roll_above`` (3 in the rules)
  for the Ring to move on; otherwise it stays and the roll is made again at the end of the
  next player turn.
* LR-10.3 The game ends when the Fellowship leaves the last territory (the Dead Marshes).
* LR-10.4 / LR-9.4 Adventure cards may hold or push the Ring: not modelled here (this is
  the law *without cards*; the engine applies cards on top of ``fellowship_step_nb``).

**Counting the turns.** A path of ``n`` territories needs ``n`` moves to be left behind:
``n - 1`` moves from territory to territory and the last move off the end (LR-10.3).
Leaving an unmarked territory takes exactly one player turn; leaving a marked one takes a
geometric number of turns ``G >= 1`` with ``P(G = g) = (1 - p)^(g-1) p``, where
``p = (die_sides - roll_above) / die_sides`` (the turn of the successful roll included). So
the number of player turns until the game ends is

    T = (number of unmarked territories) + G_1 + ... + G_m      (m marked territories)

The rules' path has 14 territories (The Shire ... Dead Marshes, LR-10.1), 3 of them marked
(Moria, Lórien, Dead Marshes): ``T = 11 + G_1 + G_2 + G_3`` with ``p = 1/2`` — "11 plus
three waits", where a *wait* counts the turn of the successful roll. Hence
``min T = 14``, ``E[T] = 11 + 3 * 2 = 17`` and ``P(T = 14) = (1/2)^3 = 1/8``. (A 13-territory
transcription that drops South Downs would give 10 plus three waits, min 13: the count
follows the track's data, never a constant.)

**The law** is the convolution of the per-territory laws, territory by territory, in
floating point on ``t = 0 .. N``: an unmarked territory shifts the law by one turn; a marked
one convolves it with the geometric law, which is the recursion
``h[t] = p f[t-1] + (1-p) h[t-1]`` (no cut of the geometric law itself). The upper tail
``S(t) = P(T > t)`` is carried beside it by sums of positive terms only,
``S_h(t) = S_f(t) + A(t)`` with ``A(t) = (1-p) A(t-1) + f(t)`` (shift: ``S_h(t) = S_f(t-1)``),
so the mass cut off is accurate to its last digits rather than ``1 - sum``. The law is
cut at the first ``t`` where ``S(t)`` is below ``tail`` (default 1e-15), ``N`` doubling
until it gets there; the mass left out is ``FellowshipLaw.tail``. The mean and variance are
exact (``fractions.Fraction``) from the per-step laws: ``E[T] = u + m / p`` and
``Var[T] = m (1 - p) / p^2``.

**Rounds** (``rounds_law``): with ``k`` players a round is the ``k`` players' turns (and the
neutral army's, which does not move the Ring, LR-10.1). Player turn ``t`` (1-based, counted
over the whole game) is taken by seat ``(t - 1) mod k`` (0-based, in turn order) in round
``ceil(t / k)``. The game ends at the end of player turn ``T``, so it lasts
``R = ceil(T / k)`` rounds, the last one partial when ``T mod k != 0``: it ends after the
turn of seat ``(T - 1) mod k`` and the remaining seats of that round (and the neutral army,
if it comes after them) do not play it. ``P(R = r) = sum_{t=(r-1)k+1}^{rk} P(T = t)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from lotr_sim.errors import ConfigError

#: LR-10.1: the path, The Shire first; LR-10.2: the territories marked * (die to leave).
DEFAULT_PATH: tuple[str, ...] = (
    "The Shire", "Buckland", "Old Forest", "Fornost", "Weather Hills", "South Downs", "Rhudaur",
    "Eregion", "Moria", "Gladden Fields", "Lórien", "The Wold", "Emyn Muil", "Dead Marshes")
DEFAULT_MARKED_NAMES: frozenset[str] = frozenset({"Moria", "Lórien", "Dead Marshes"})
#: LR-10.2: the die must show more than 3 on a marked territory.
DEFAULT_ROLL_ABOVE = 3
DEFAULT_DIE_SIDES = 6
#: Longest path accepted (the base path has 14 territories, with the trilogy's extension 18).
MAX_PATH = 100
#: Largest die accepted (keeps the exact law and the Monte Carlo journeys to seconds).
MAX_DIE_SIDES = 100


@dataclass(frozen=True)
class FellowshipTrack:
    """The Fellowship's path (LR-10.1) and its die rule (LR-10.2).

    ``names``: the territories in order, The Shire first and the last territory (the Dead
    Marshes) last; ``marked[i]``: leaving territory ``i`` needs a die roll above
    ``roll_above`` on a ``die_sides``-sided die. Invalid data raises ``ConfigError``.
    """

    names: tuple[str, ...]
    marked: tuple[bool, ...]
    roll_above: int = DEFAULT_ROLL_ABOVE
    die_sides: int = DEFAULT_DIE_SIDES

    def __post_init__(self) -> None:
        names, marked = self.names, self.marked
        if isinstance(names, str) or not isinstance(names, Sequence):
            raise ConfigError(f"fellowship path: names must be a list of territory names, got {names!r}")
        if isinstance(marked, str) or not isinstance(marked, Sequence):
            raise ConfigError(f"fellowship path: marked must be a list of true/false, got {marked!r}")
        object.__setattr__(self, "names", tuple(names))
        object.__setattr__(self, "marked", tuple(marked))
        names, marked = self.names, self.marked
        if not names:
            raise ConfigError("fellowship path is empty: it needs at least one territory (LR-10.1)")
        if len(names) > MAX_PATH:
            raise ConfigError(f"fellowship path has {len(names)} territories; at most {MAX_PATH}")
        for nm in names:
            if not isinstance(nm, str) or not nm.strip():
                raise ConfigError(f"fellowship path: territory names must be non-empty text, got {nm!r}")
        dup = sorted({nm for nm in names if names.count(nm) > 1})
        if dup:
            raise ConfigError(f"fellowship path visits {', '.join(repr(d) for d in dup)} twice (LR-10.1)")
        if len(marked) != len(names):
            raise ConfigError(f"fellowship path: {len(names)} territories but {len(marked)} marked flags")
        for m in marked:
            if not isinstance(m, (bool, np.bool_)):
                raise ConfigError(f"fellowship path: marked flags must be true or false, got {m!r}")
        object.__setattr__(self, "marked", tuple(bool(m) for m in marked))
        for what, v in (("die_sides", self.die_sides), ("roll_above", self.roll_above)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ConfigError(f"fellowship {what} must be a whole number, got {v!r}")
        object.__setattr__(self, "die_sides", int(self.die_sides))
        object.__setattr__(self, "roll_above", int(self.roll_above))
        if not 1 <= self.die_sides <= MAX_DIE_SIDES:
            raise ConfigError(f"fellowship die_sides must be in 1..{MAX_DIE_SIDES}, got {self.die_sides}")
        if not 0 <= self.roll_above <= self.die_sides - 1:
            raise ConfigError(
                f"fellowship_roll_above must be in 0..{self.die_sides - 1} (the die must be able to show "
                f"more, LR-10.2; else the Ring never leaves a marked territory), got {self.roll_above}")

    @classmethod
    def default(cls, roll_above: int = DEFAULT_ROLL_ABOVE, die_sides: int = DEFAULT_DIE_SIDES
                ) -> "FellowshipTrack":
        """The rules' path (LR-10.1) with the marked territories of LR-10.2."""
        return cls(DEFAULT_PATH, tuple(nm in DEFAULT_MARKED_NAMES for nm in DEFAULT_PATH),
                   roll_above, die_sides)

    @property
    def length(self) -> int:
        """Territories on the path = moves until the Ring leaves the last one (LR-10.3)."""
        return len(self.names)

    @property
    def n_marked(self) -> int:
        return sum(self.marked)

    @property
    def n_plain(self) -> int:
        """Unmarked territories: each is left after exactly one player turn."""
        return self.length - self.n_marked

    @property
    def p_move(self) -> Fraction:
        """P(the Ring leaves a marked territory at one roll) = (sides - roll_above) / sides."""
        return Fraction(self.die_sides - self.roll_above, self.die_sides)

    def marked_array(self) -> np.ndarray:
        """``marked`` as the uint8 array the kernels take."""
        return np.array(self.marked, dtype=np.uint8)

    def as_dict(self) -> dict:
        return {"names": list(self.names), "marked": list(self.marked),
                "roll_above": self.roll_above, "die_sides": self.die_sides}


@dataclass(frozen=True)
class FellowshipLaw:
    """The law of ``T``, the player turns until the Ring leaves the path (module docstring).

    ``pmf[i] = P(T = t_min + i)`` for ``t_min .. t_max``; ``tail = P(T > t_max)`` (the mass cut
    off, below the requested bound). ``mean``/``variance`` are exact fractions.
    """

    track: FellowshipTrack
    t_min: int
    pmf: np.ndarray
    tail: float
    mean: Fraction
    variance: Fraction

    @property
    def t_max(self) -> int:
        return self.t_min + len(self.pmf) - 1

    @property
    def turns(self) -> np.ndarray:
        return np.arange(self.t_min, self.t_max + 1)

    def prob(self, t: int) -> float:
        """P(T = t) (0 outside the support; beyond ``t_max`` the cut-off tail is not split)."""
        i = t - self.t_min
        return float(self.pmf[i]) if 0 <= i < len(self.pmf) else 0.0

    def as_dict(self) -> dict:
        return {"turns_min": self.t_min, "turns_max": self.t_max, "tail": self.tail,
                "mean": float(self.mean), "mean_exact": str(self.mean),
                "variance": float(self.variance), "sd": math.sqrt(self.variance),
                "distribution": {str(t): float(p) for t, p in zip(self.turns, self.pmf)}}


#: Largest support the exact law may need (N); beyond it the track is refused.
MAX_SUPPORT = 20_000_000


def _law_on(track: FellowshipTrack, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(f, S)`` on ``t = 0 .. n``: ``f[t] = P(T = t)``, ``S[t] = P(T > t)`` (module docstring)."""
    from scipy.signal import lfilter

    p = float(track.p_move)
    q = 1.0 - p
    f = np.zeros(n + 1)
    f[0] = 1.0                                    # T = 0 before any territory
    surv = np.zeros(n + 1)
    for marked in track.marked:
        if not marked or q == 0.0:                # LR-10.1: one turn, the Ring moves on
            f = np.concatenate([[0.0], f[:-1]])
            surv = np.concatenate([[1.0], surv[:-1]])
        else:                                     # LR-10.2: a geometric wait G >= 1
            acc = lfilter([1.0], [1.0, -q], f)    # A(t) = q A(t-1) + f(t)
            surv = surv + acc
            f = lfilter([0.0, p], [1.0, -q], f)   # h(t) = p f(t-1) + q h(t-1)
    return f, surv


def fellowship_law(track: FellowshipTrack, tail: float = 1e-15) -> FellowshipLaw:
    """The exact law of the player turns until the Ring leaves the track (LR-10.1–10.3),
    derived from the track: the convolution of its per-territory laws, cut where the upper
    tail's mass falls below ``tail`` (reported)."""
    if not 0.0 < tail < 1e-3:
        raise ConfigError(f"tail bound must be in (0, 1e-3), got {tail!r}")
    p = track.p_move
    m = track.n_marked
    mean = track.n_plain + m / p
    variance = m * (1 - p) / (p * p)
    n = max(track.length + 1, int(float(mean) + 40.0 * math.sqrt(float(variance)) + 60.0 / float(p)))
    while True:
        if n > MAX_SUPPORT:
            raise ConfigError(f"the Fellowship law of this track needs more than {MAX_SUPPORT:,} turns "
                              f"(p = {float(p):.3g} on {m} marked territories): too long a journey")
        law, surv = _law_on(track, n)
        if surv[n] <= tail:
            break
        n *= 2
    t_min = int(np.flatnonzero(law > 0)[0])
    t_max = max(int(np.flatnonzero(surv <= tail)[0]), t_min)
    pmf = law[t_min:t_max + 1].copy()
    pmf.setflags(write=False)
    return FellowshipLaw(track, t_min, pmf, float(surv[t_max]), Fraction(mean), Fraction(variance))


@dataclass(frozen=True)
class RoundsLaw:
    """The game's length in rounds for ``players`` players (module docstring, "Rounds").

    ``pmf[i] = P(R = r_min + i)``; ``last_seat[j]`` = P(the game ends after seat ``j``'s turn,
    0-based in turn order) — the last round is partial unless ``j = players - 1``.
    """

    players: int
    r_min: int
    pmf: np.ndarray
    last_seat: np.ndarray
    tail: float
    mean: float

    @property
    def rounds(self) -> np.ndarray:
        return np.arange(self.r_min, self.r_min + len(self.pmf))

    @property
    def p_partial(self) -> float:
        """P(the last round is cut short: the game ends before its last player's turn)."""
        return float(self.last_seat[:-1].sum())

    def as_dict(self) -> dict:
        return {"players": self.players, "rounds_min": self.r_min, "mean": self.mean,
                "tail": self.tail, "p_last_round_partial": self.p_partial,
                "last_seat": [float(x) for x in self.last_seat],
                "distribution": {str(r): float(p) for r, p in zip(self.rounds, self.pmf)}}


def rounds_law(law: FellowshipLaw, players: int) -> RoundsLaw:
    """``R = ceil(T / players)`` from the turns' law (the Ring moves after every player's
    turn, not the neutral army's: LR-10.1). The mean is exact up to the cut tail."""
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or players < 1:
        raise ConfigError(f"players must be a whole number >= 1, got {players!r}")
    k = int(players)
    t = law.turns
    r = -(-t // k)                               # ceil(t / k)
    r_min = int(r[0])
    pmf = np.bincount(r - r_min, weights=law.pmf)
    seat = np.bincount((t - 1) % k, weights=law.pmf, minlength=k)
    # E[ceil(T/k)] from the exact turn mean would need the whole tail; the cut mass < 1e-15
    mean = float(np.dot(np.arange(r_min, r_min + len(pmf)), pmf))
    return RoundsLaw(k, r_min, pmf, seat, law.tail, mean)
