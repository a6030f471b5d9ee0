"""Small statistics shared by the commands (the experiment layer has the rest).

The Wilson score interval itself is ``lotr_sim.experiments.stats.wilson`` (formula there).
"""
from __future__ import annotations

import math


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval; the one implementation lives in ``experiments.stats``."""
    from lotr_sim.experiments.stats import wilson as _wilson

    lo, hi = _wilson(k, n, confidence)
    return (float(lo), float(hi))


def z_score(k: int, n: int, p: float) -> float:
    """(k/n - p) / sqrt(p (1 - p) / n); 0 when p is 0 or 1 and k/n equals it."""
    if n <= 0:
        return 0.0
    se = math.sqrt(p * (1.0 - p) / n)
    diff = k / n - p
    if se == 0.0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return diff / se
