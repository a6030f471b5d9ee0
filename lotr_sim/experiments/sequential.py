"""The sequential test of ``compare``: does variant A move Good's win rate by at least δ
either way, or not? Valid for paired win/draw/loss outcomes from the first pair.

**Data.** Game i is played under A and under B (common random numbers: the same stream i).
``x_i = 1`` when Good wins game i under A, ``y_i`` likewise under B, and
``d_i = x_i - y_i`` in {-1, 0, +1}: a *trinomial* with probabilities ``(p-, p0, p+)``
(``p+``: Good wins under A only, ``p-``: under B only; a draw or an Evil win is "not a win").
Its mean ``mu = p+ - p-`` is Good's win rate under A minus under B; the discordance
``p+ + p-`` is an unknown nuisance. After ``n`` pairs the counts are
``n+ = n10`` (A only), ``n- = n01`` (B only), ``n0 = n - n10 - n01``.

**Profile likelihood of the trinomial at a given mean** (the exact multinomial maximum
likelihood under the constraint ``p+ - p- = mu``, as in chess-engine testing): writing
``p- = t``, ``p+ = t + mu``, ``p0 = 1 - 2t - mu`` (for ``mu >= 0``; ``mu < 0`` is the mirror
image, swapping ``n+`` and ``n-``), the log-likelihood ``n- ln t + n+ ln(t + mu) +
n0 ln(1 - 2t - mu)`` is concave in ``t`` and its derivative has the sign of
``-2n t^2 + B t + C`` with ``B = n-(1 - 3mu) + n+(1 - mu) - 2 n0 mu`` and
``C = n- mu (1 - mu)``, so the maximiser is the larger root, clipped to the feasible
``[0, (1 - mu)/2]``::

    t*(mu) = (B + sqrt(B^2 + 8 n C)) / (4n)        (= 2C / (sqrt(B^2 + 8nC) - B) when B < 0)
    l(mu)  = n- ln p-(t*) + n0 ln p0(t*) + n+ ln p+(t*)          (0 ln 0 = 0)

**Two GSPRTs, combined as Sobel and Wald did** (three hypotheses mu = -δ, 0, +δ)::

    L+_n = l(+δ) - l(0)        (a rise of δ against no change)
    L-_n = l(-δ) - l(0)        (a fall of δ against no change)
    a = ln((1 - β) / (α/2))    b = ln(β / (1 - α/2))

and, at the first ``n >= min_games`` where one of these holds, stop with its verdict:

    "raises"    L+ >= a and L- <= b   and the printed interval agrees: lo > 0  and hi >= δ
    "lowers"    L- >= a and L+ <= b   and the printed interval agrees: hi < 0  and lo <= -δ
    "no change" L+ <= b and L- <= b   and the printed interval agrees: -δ < lo and hi < δ

otherwise go on; at ``max_games`` the answer is "undecided" and only the interval is
reported. ``α`` is the chance of announcing a change (either way) when there is none
(α/2 each way), ``β`` the chance of missing a change of δ. Every quantity is a function
of the counts after ``n`` pairs, so the decision does not depend on how games are batched
(prefix-exact). Requiring the interval to agree only removes stopping points, so it cannot
add wrong verdicts: a wrong verdict still needs the likelihood ratio of the wrong
hypothesis to reach ``e^a`` (by Ville's inequality for a likelihood-ratio martingale, at
most ``e^-a = α/(2(1 - β))`` under the other hypothesis; the generalized ratio is checked by
simulation in the test suite). Between 0 and ±δ either neighbouring verdict is allowed.

A "raises" or "lowers" verdict says the direction, not the size: the interval may still
reach below δ (it only has to exclude 0 and reach δ). ``compare_headline`` therefore states
the direction and the interval, and says "at least δ" only when the interval excludes every
smaller change (``lo >= δ``, or ``hi <= -δ``).

**The printed interval** of ``mu`` is the adjusted Wald interval for paired data of Bonett
and Price (2012): one game added to each discordant cell of the 2×2 table. Unlike the plain
t interval it is not degenerate when no pair differs, and unlike Agresti–Min's half game it
keeps its 95% coverage when discordant pairs are rare (e.g. 148 pairs at p+ = 1.5%, p- = 0:
exact coverage 1.00 against Agresti–Min's 0.89)::

    q+ = (n10 + 1) / (n + 2),  q- = (n01 + 1) / (n + 2),  m = q+ - q-
    [lo, hi] = m -/+ z sqrt((q+ + q- - m^2) / (n + 2))          (clipped to [-1, 1])

It is the variance of the trinomial d, so it is also right for unpaired games (B on its
own streams), where d is still an i.i.d. trinomial.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

RAISES = "raises"
LOWERS = "lowers"
NO_CHANGE = "no_change"
_CODES = {1: RAISES, -1: LOWERS, 2: NO_CHANGE}


def _xlogy(k, p):
    """``k ln p`` with ``0 ln 0 = 0`` (arrays)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(k > 0, k * np.log(np.where(k > 0, p, 1.0)), 0.0)


def trinomial_profile_loglik(n_minus, n_zero, n_plus, mu: float):
    """Maximum over trinomials ``(p-, p0, p+)`` with ``p+ - p- = mu`` of
    ``n- ln p- + n0 ln p0 + n+ ln p+`` (module docstring; arrays of counts, scalar ``mu``)."""
    if not -1.0 < mu < 1.0:
        raise ValueError(f"mu must be in (-1, 1), got {mu}")
    nm = np.asarray(n_minus, dtype=np.float64)
    n0 = np.asarray(n_zero, dtype=np.float64)
    npl = np.asarray(n_plus, dtype=np.float64)
    if mu < 0:
        nm, npl, mu = npl, nm, -mu
    n = nm + n0 + npl
    B = nm * (1.0 - 3.0 * mu) + npl * (1.0 - mu) - 2.0 * n0 * mu
    C = nm * mu * (1.0 - mu)
    D = np.sqrt(B * B + 8.0 * n * C)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(B >= 0, (B + D) / np.where(n > 0, 4.0 * n, 1.0),
                     np.where(D - B > 0, 2.0 * C / (D - B), 0.0))
    t = np.clip(t, 0.0, (1.0 - mu) / 2.0)
    ll = _xlogy(nm, t) + _xlogy(npl, t + mu) + _xlogy(n0, 1.0 - 2.0 * t - mu)
    return np.where(n > 0, ll, 0.0)


def paired_interval(n, n10, n01, conf: float = 0.95):
    """Bonett–Price interval ``(lo, hi)`` of Good's win rate under A minus under B from ``n``
    pairs with ``n10`` won under A only and ``n01`` under B only (module docstring; arrays)."""
    from lotr_sim.stats import z_value
    n = np.asarray(n, dtype=np.float64)
    qp = (np.asarray(n10, dtype=np.float64) + 1.0) / (n + 2.0)
    qm = (np.asarray(n01, dtype=np.float64) + 1.0) / (n + 2.0)
    m = qp - qm
    half = z_value(conf) * np.sqrt(np.maximum(qp + qm - m * m, 0.0) / (n + 2.0))
    lo, hi = np.clip(m - half, -1.0, 1.0), np.clip(m + half, -1.0, 1.0)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


@dataclass
class ThreeWayTest:
    """Sobel–Wald combination of two trinomial GSPRTs (module docstring).

    Feed the pairs in order with :meth:`feed`; ``verdict`` is ``"raises"``, ``"lowers"``,
    ``"no_change"`` or ``None`` (not yet decided)."""

    delta: float = 0.02
    alpha: float = 0.05
    beta: float = 0.05
    min_games: int = 100
    conf: float = 0.95
    n: int = 0
    n10: int = 0        # Good won under A only
    n01: int = 0        # Good won under B only
    verdict: str | None = None

    def __post_init__(self) -> None:
        if not 0.0 < self.delta < 0.5:
            raise ValueError(f"--delta must be in (0, 0.5), got {self.delta}")
        if not (0.0 < self.alpha < 0.5 and 0.0 < self.beta < 0.5):
            raise ValueError(f"--alpha and --beta must be in (0, 0.5), got {self.alpha} and {self.beta}")
        if self.min_games < 1:
            raise ValueError(f"--min-games must be at least 1, got {self.min_games}")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(b, a)``: accept "no change" at or below ``b``, the change at or above ``a``."""
        return (math.log(self.beta / (1.0 - self.alpha / 2.0)),
                math.log((1.0 - self.beta) / (self.alpha / 2.0)))

    def llr(self, n, n10, n01):
        """``(L+, L-)`` after ``n`` pairs (arrays ok)."""
        n = np.asarray(n, dtype=np.float64)
        n10 = np.asarray(n10, dtype=np.float64)
        n01 = np.asarray(n01, dtype=np.float64)
        n0 = n - n10 - n01
        l0 = trinomial_profile_loglik(n01, n0, n10, 0.0)
        return (trinomial_profile_loglik(n01, n0, n10, self.delta) - l0,
                trinomial_profile_loglik(n01, n0, n10, -self.delta) - l0)

    def codes(self, n, n10, n01):
        """Per prefix: 1 raises, -1 lowers, 2 no change, 0 go on (module docstring)."""
        n = np.asarray(n)
        lp, lm = self.llr(n, n10, n01)
        lo, hi = paired_interval(n, n10, n01, self.conf)
        b, a = self.bounds
        d = self.delta
        ok = n >= self.min_games
        up = ok & (lp >= a) & (lm <= b) & (lo > 0) & (hi >= d)
        down = ok & (lm >= a) & (lp <= b) & (hi < 0) & (lo <= -d)
        none = ok & (lp <= b) & (lm <= b) & (lo > -d) & (hi < d)
        return np.where(up, 1, np.where(down, -1, np.where(none, 2, 0)))

    def feed(self, a_only, b_only) -> tuple[str | None, int]:
        """Feed the next pairs in order (``a_only[i]``/``b_only[i]``: Good won pair i under A
        only / B only); return ``(verdict, pairs of this batch used)``. Every prefix is
        checked, so the stop is the first one and does not depend on the batching."""
        if self.verdict is not None:
            raise RuntimeError("the test has already decided")
        a_only = np.asarray(a_only, dtype=bool)
        b_only = np.asarray(b_only, dtype=bool)
        if a_only.shape != b_only.shape or a_only.ndim != 1:
            raise ValueError("a_only and b_only must be 1-d arrays of the same length")
        if np.any(a_only & b_only):
            raise ValueError("a pair cannot favour both variants")
        if a_only.size == 0:
            return None, 0
        n = self.n + np.arange(1, a_only.size + 1)
        n10 = self.n10 + np.cumsum(a_only)
        n01 = self.n01 + np.cumsum(b_only)
        hit = np.flatnonzero(self.codes(n, n10, n01))
        j = int(hit[0]) if hit.size else a_only.size - 1
        self.n, self.n10, self.n01 = int(n[j]), int(n10[j]), int(n01[j])
        if hit.size:
            self.verdict = _CODES[int(self.codes(n[j], n10[j], n01[j]))]
        return self.verdict, j + 1

    def state(self) -> dict:
        """The test's description and state (for ``compare --json``)."""
        lp, lm = self.llr(self.n, self.n10, self.n01)
        b, a = self.bounds
        return dict(test="Sobel-Wald combination of two trinomial GSPRTs (mu = -delta, 0, +delta)",
                    delta=self.delta, alpha=self.alpha, beta=self.beta, min_games=self.min_games,
                    llr_raise=float(lp), llr_lower=float(lm), lower=b, upper=a,
                    interval="Bonett-Price adjusted Wald 95%, must agree with the verdict")
