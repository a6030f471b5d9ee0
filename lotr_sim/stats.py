"""The statistics of lotr-sim, at the bottom of the package (commands, experiments and reports
all import them from here): Wilson intervals and paired differences (the sequential
test of ``compare`` is in ``sequential``).

Formulas (also in docs/statistics.md):

**Wilson score interval** for a proportion with ``k`` successes in ``n`` trials, confidence
``1 - a``, ``z = Phi^-1(1 - a/2)`` (1.959964 for 95%), ``p = k/n``::

    centre = (p + z^2/(2n)) / (1 + z^2/n)
    half   = z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4n^2))
    [lo, hi] = [centre - half, centre + half]

With three outcomes (Good, Evil, draw) each outcome's rate gets its own (marginal) Wilson
interval from its count against the total. ``wilson`` agrees with
``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`` (tested); it is written out so
that it is vectorised.

**Paired difference** (common random numbers): variants A and B play the same game indices
``i = 0..n-1`` with the same stream ``i``. With ``x_i = 1`` when Good wins game ``i`` under A
(else 0) and ``y_i`` likewise under B, ``d_i = x_i - y_i`` in {-1, 0, 1}::

    dbar = mean(d_i) = (n10 - n01) / n          (n10: A won and B did not, n01: the reverse)
    s^2  = sum((d_i - dbar)^2) / (n - 1)
    interval = dbar -/+ t_{n-1, 1-a/2} * s / sqrt(n)

Pairing removes the between-game variance: ``Var(d) = Var(x) + Var(y) - 2 Cov(x, y)``,
and ``Cov(x, y)`` is large when a rule change flips few games.

The sequential test of ``compare`` (two trinomial GSPRTs, valid from the first pair, and the
Bonett–Price interval it prints) is documented in :mod:`lotr_sim.experiments.sequential`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def z_value(conf: float = 0.95) -> float:
    """The two-sided normal quantile ``Phi^-1(1 - (1-conf)/2)``.

    ``scipy.special.ndtri`` is what ``scipy.stats.norm.ppf`` computes, bit for bit, but
    importing ``scipy.stats`` costs 1.4-2.6 s on this machine and ``scipy.special`` 0.3 s:
    every command that prints an interval paid it.
    """
    from scipy.special import ndtri
    return float(ndtri(1.0 - (1.0 - conf) / 2.0))


def wilson(k, n, conf: float = 0.95):
    """Wilson score interval(s) ``(lo, hi)`` for ``k`` successes out of ``n`` (arrays ok).

    See the module docstring for the formula. ``n == 0`` gives ``(0, 1)``.
    """
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = z_value(conf)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / np.where(n > 0, n, 1), 0.5)
        nn = np.where(n > 0, n, 1.0)
        denom = 1.0 + z * z / nn
        centre = (p + z * z / (2 * nn)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn))
        lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
        hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def wilson_half_width(k, n, conf: float = 0.95):
    lo, hi = wilson(k, n, conf)
    return (np.asarray(hi) - np.asarray(lo)) / 2.0


def games_for_half_width(half_width: float, p: float = 0.5, conf: float = 0.95) -> int:
    """Games needed for a normal-approximation half-width ``z sqrt(p(1-p)/n) <= h``."""
    z = z_value(conf)
    return int(math.ceil(z * z * p * (1 - p) / (half_width * half_width)))


@dataclass
class PairedDiff:
    n: int
    n10: int      # A: success, B: failure
    n01: int      # A: failure, B: success
    mean: float
    lo: float
    hi: float

    def as_dict(self) -> dict:
        return dict(games=self.n, a_only=self.n10, b_only=self.n01, delta=self.mean,
                    ci95=[self.lo, self.hi])


def paired_counts(x, y) -> tuple[int, int, int]:
    """``(n, n10, n01)`` for boolean per-game outcomes ``x`` (variant A), ``y`` (variant B)."""
    x = np.asarray(x, dtype=bool)
    y = np.asarray(y, dtype=bool)
    if x.shape != y.shape:
        raise ValueError("paired outcomes must have the same length")
    return int(x.size), int(np.count_nonzero(x & ~y)), int(np.count_nonzero(~x & y))


def paired_diff_from_counts(n: int, n10: int, n01: int, conf: float = 0.95) -> PairedDiff:
    """Mean of ``d_i = x_i - y_i`` and its t interval (module docstring), from the counts.

    ``sum d = n10 - n01`` and ``sum d^2 = n10 + n01``, so
    ``s^2 = (n10 + n01 - n * dbar^2) / (n - 1)``.
    """
    from scipy.special import stdtrit  # = scipy.stats.t.ppf(q, df), without importing scipy.stats
    if n <= 0:
        return PairedDiff(0, 0, 0, float("nan"), float("nan"), float("nan"))
    mean = (n10 - n01) / n
    if n < 2:
        return PairedDiff(n, n10, n01, mean, -1.0, 1.0)
    var = max((n10 + n01) - n * mean * mean, 0.0) / (n - 1)
    half = float(stdtrit(n - 1, 1.0 - (1.0 - conf) / 2.0)) * math.sqrt(var / n)
    return PairedDiff(n, n10, n01, mean, mean - half, mean + half)


def paired_diff(x, y, conf: float = 0.95) -> PairedDiff:
    """Paired difference of per-game booleans ``x - y`` with its interval."""
    return paired_diff_from_counts(*paired_counts(x, y), conf=conf)


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, conf: float = 0.95) -> tuple[float, float, float]:
    """``p1 - p2`` of two proportions from counts, with Newcombe's hybrid score interval
    (each rate's Wilson interval combined; good coverage for small counts and rates near 0 or
    1). Treats the samples as independent: for games paired on common random numbers, which
    are positively correlated, the interval is conservative."""
    if n1 <= 0 or n2 <= 0:
        return float("nan"), -1.0, 1.0
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, conf)
    l2, u2 = wilson(k2, n2, conf)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def unpaired_diff(x, y, conf: float = 0.95) -> tuple[float, float, float]:
    """Difference of two independent proportions with the Wald interval (for comparison)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    px, py = x.mean(), y.mean()
    se = math.sqrt(px * (1 - px) / x.size + py * (1 - py) / y.size)
    z = z_value(conf)
    return px - py, px - py - z * se, px - py + z * se


def quantiles_from_values(values, qs=(0.05, 0.25, 0.5, 0.75, 0.95)) -> list[float]:
    v = np.asarray(values)
    if v.size == 0:
        return [float("nan")] * len(qs)
    return [float(x) for x in np.quantile(v, qs)]


def zero_crossing(xa: float, xb: float, ya: float, yb: float) -> float | None:
    """Where the straight line through ``(xa, ya)`` and ``(xb, yb)`` crosses 0 (linear
    interpolation of a crossing between two evaluated points); None when it is flat or a
    value is not finite. ``balance`` and the sweep verdict's parity values use it."""
    if yb == ya or not (math.isfinite(ya) and math.isfinite(yb)):
        return None
    return xa + (0.0 - ya) * (xb - xa) / (yb - ya)


def z_score(k: int, n: int, p: float) -> float:
    """(k/n - p) / sqrt(p (1 - p) / n); 0 when p is 0 or 1 and k/n equals it."""
    if n <= 0:
        return 0.0
    se = math.sqrt(p * (1.0 - p) / n)
    diff = k / n - p
    if se == 0.0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return diff / se
