"""Mergeable statistics of games, so that memory never grows with the number of games.

A run or a sweep point is played in chunks; each chunk's per-game columns are folded into a
``Tally`` (counts per outcome and end reason, exact integer histograms of game length,
integer sums of points) and dropped. Tallies of chunks merge by addition, in any order, so a
result is the same whatever the chunking, the thread count or the backend, and a tally is
JSON-able (``to_dict``/``from_dict``) for chunk files and manifests.

``PairTally`` holds the paired counts of the first outcome (Good wins) for two variants played
on the same streams (common random numbers): ``n10`` games won under A only, ``n01`` under B
only; that is all the paired difference and its interval need
(``stats.paired_diff_from_counts``).

Quantiles come from the histograms and equal ``numpy.quantile`` (linear interpolation) on the
values themselves; means and standard deviations come from exact integer sums.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

HIST_COLUMNS = ("rounds", "turns")


def _hist_add(h: list[int], values: np.ndarray) -> list[int]:
    if values.size == 0:
        return h
    v = values.astype(np.int64, copy=False)
    if int(v.min()) < 0:
        raise ValueError("game lengths must be non-negative")
    b = np.bincount(v).tolist()
    if len(b) > len(h):
        h = h + [0] * (len(b) - len(h))
    for i, c in enumerate(b):
        if c:
            h[i] += c
    return h


def _hist_merge(a: list[int], b: list[int]) -> list[int]:
    if len(b) > len(a):
        a = a + [0] * (len(b) - len(a))
    for i, c in enumerate(b):
        a[i] += c
    return a


def hist_quantiles(hist: list[int], qs) -> list[float]:
    """``numpy.quantile(values, qs)`` (linear method) of the values whose histogram is ``hist``."""
    n = int(sum(hist))
    if n == 0:
        return [float("nan")] * len(qs)
    cum = np.cumsum(np.asarray(hist, dtype=np.int64))

    def kth(k: int) -> int:           # the k-th smallest value, k = 0..n-1
        return int(np.searchsorted(cum, k, side="right"))

    out = []
    for q in qs:
        pos = (n - 1) * float(q)
        lo = int(math.floor(pos))
        hi = min(lo + 1, n - 1)
        a, b = kth(lo), kth(hi)
        out.append(float(a + (b - a) * (pos - lo)))
    return out


def hist_mean_sd(hist: list[int]) -> tuple[float, float]:
    """Mean and sample standard deviation (ddof=1) from an integer histogram."""
    n = int(sum(hist))
    s1 = sum(i * c for i, c in enumerate(hist))
    s2 = sum(i * i * c for i, c in enumerate(hist))
    return _mean_sd(n, s1, s2)


def _mean_sd(n: int, s1: int, s2: int) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    mean = s1 / n
    if n < 2:
        return mean, float("nan")
    # exact integer arithmetic for the sum of squared deviations, times n
    ss_n = s2 * n - s1 * s1
    return mean, math.sqrt(max(ss_n, 0) / (n * (n - 1)))


class Tally:
    """Statistics of one configuration's games, folded chunk by chunk (module docstring)."""

    def __init__(self, outcomes: tuple[str, ...], reasons: tuple[str, ...], sides: tuple[str, ...]):
        self.outcomes = tuple(outcomes)
        self.reasons = tuple(reasons)
        self.sides = tuple(sides)
        self.n = 0
        self.wins = [0] * len(self.outcomes)
        self.reason_counts = [0] * len(self.reasons)
        self.hists: dict[str, list[int]] = {}
        self.points: dict[str, list[int]] = {}      # side or seat -> [sum, sum of squares]
        self.seat_n = 0                              # games with a ``winner_seat`` column
        self.seat_wins: list[int] = []               # games won by each seat (its index)

    @classmethod
    def empty(cls, game) -> "Tally":
        """An empty tally with the labels of ``game``."""
        return cls(game.outcomes, game.reasons, game.sides)

    def add(self, cols: Mapping[str, np.ndarray]) -> None:
        """Fold one chunk's per-game columns in (``winner``, ``reason``, and when present
        ``rounds``, ``turns``, ``points_<side or seat>``, ``winner_seat``)."""
        winner = np.asarray(cols["winner"]).astype(np.int64, copy=False)
        m = int(winner.size)
        if m == 0:
            return
        bw = np.bincount(winner, minlength=len(self.outcomes))
        if bw.size > len(self.outcomes):
            raise ValueError(f"winner index {bw.size - 1} outside the outcomes {self.outcomes}")
        reason = np.asarray(cols["reason"]).astype(np.int64, copy=False)
        br = np.bincount(reason, minlength=len(self.reasons))
        if br.size > len(self.reasons):
            raise ValueError(f"reason index {br.size - 1} outside the reasons {self.reasons}")
        self.n += m
        self.wins = [a + int(b) for a, b in zip(self.wins, bw)]
        self.reason_counts = [a + int(b) for a, b in zip(self.reason_counts, br)]
        for key in HIST_COLUMNS:
            if key in cols:
                self.hists[key] = _hist_add(self.hists.get(key, []), np.asarray(cols[key]))
        for c in cols:
            if c.startswith("points_"):
                v = np.asarray(cols[c]).astype(np.int64, copy=False)
                acc = self.points.setdefault(c[7:], [0, 0])
                acc[0] += int(v.sum())
                acc[1] += int((v * v).sum())
        if "winner_seat" in cols:
            ws = np.asarray(cols["winner_seat"]).astype(np.int64, copy=False)
            b = np.bincount(ws[ws >= 0]).tolist() if (ws >= 0).any() else []
            self.seat_wins = _hist_merge(self.seat_wins, b)
            self.seat_n += m

    def merge(self, other: "Tally") -> None:
        """Add another tally of the same game's labels."""
        if (other.outcomes, other.reasons, other.sides) != (self.outcomes, self.reasons, self.sides):
            raise ValueError("cannot merge tallies of games with different labels")
        self.n += other.n
        self.wins = [a + b for a, b in zip(self.wins, other.wins)]
        self.reason_counts = [a + b for a, b in zip(self.reason_counts, other.reason_counts)]
        for k, h in other.hists.items():
            self.hists[k] = _hist_merge(list(self.hists.get(k, [])), h)
        for s, (a, b) in other.points.items():
            acc = self.points.setdefault(s, [0, 0])
            acc[0] += a
            acc[1] += b
        self.seat_n += other.seat_n
        self.seat_wins = _hist_merge(list(self.seat_wins), other.seat_wins)

    def mean_sd(self, key: str) -> tuple[float, float]:
        """Mean and sd of a histogram column (``rounds``/``turns``) or of ``points_<side or seat>``."""
        if key in self.hists:
            return hist_mean_sd(self.hists[key])
        if key.startswith("points_") and key[7:] in self.points:
            s1, s2 = self.points[key[7:]]
            return _mean_sd(self.n, s1, s2)
        return float("nan"), float("nan")

    def quantiles(self, key: str, qs) -> list[float]:
        return hist_quantiles(self.hists.get(key, []), qs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (plain ints and lists)."""
        d = dict(outcomes=list(self.outcomes), reasons=list(self.reasons), sides=list(self.sides),
                 n=self.n, wins=list(self.wins), reasons_count=list(self.reason_counts),
                 hists={k: list(v) for k, v in self.hists.items()},
                 points={k: list(v) for k, v in self.points.items()})
        if self.seat_n:
            d.update(seat_n=self.seat_n, seat_wins=list(self.seat_wins))
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Tally":
        t = cls(tuple(d["outcomes"]), tuple(d["reasons"]), tuple(d["sides"]))
        t.n = int(d["n"])
        t.wins = [int(x) for x in d["wins"]]
        t.reason_counts = [int(x) for x in d["reasons_count"]]
        t.hists = {k: [int(x) for x in v] for k, v in d.get("hists", {}).items()}
        t.points = {k: [int(x) for x in v] for k, v in d.get("points", {}).items()}
        t.seat_n = int(d.get("seat_n", 0))
        t.seat_wins = [int(x) for x in d.get("seat_wins", [])]
        if len(t.wins) != len(t.outcomes) or len(t.reason_counts) != len(t.reasons) or sum(t.wins) != t.n:
            raise ValueError("inconsistent tally")
        return t

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tally) and self.to_dict() == other.to_dict()


class PairTally:
    """Paired counts of the first outcome for variants A and B on the same games."""

    def __init__(self) -> None:
        self.n = 0
        self.n10 = 0        # outcome 0 under A only
        self.n01 = 0        # outcome 0 under B only

    def add(self, winner_a: np.ndarray, winner_b: np.ndarray) -> None:
        """Fold the winners of the same games under A and under B (same order)."""
        a = np.asarray(winner_a) == 0
        b = np.asarray(winner_b) == 0
        if a.shape != b.shape:
            raise ValueError("paired winner columns must have the same length")
        self.n += int(a.size)
        self.n10 += int(np.count_nonzero(a & ~b))
        self.n01 += int(np.count_nonzero(~a & b))

    def merge(self, other: "PairTally") -> None:
        self.n += other.n
        self.n10 += other.n10
        self.n01 += other.n01

    def to_dict(self) -> dict[str, int]:
        return dict(n=self.n, n10=self.n10, n01=self.n01)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "PairTally":
        p = cls()
        p.n, p.n10, p.n01 = int(d["n"]), int(d["n10"]), int(d["n01"])
        return p

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PairTally) and self.to_dict() == other.to_dict()
