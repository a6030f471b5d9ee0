"""Small statistics shared by the commands (the experiment layer has the rest).

Wilson score interval for a proportion k/n at confidence 1 - alpha, z = Phi^-1(1 - alpha/2):

    centre = (p + z^2 / 2n) / (1 + z^2 / n)
    half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

computed by scipy (``binomtest(...).proportion_ci(method="wilson")``).
"""
from __future__ import annotations

import math


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    if n <= 0:
        return (0.0, 1.0)
    from scipy.stats import binomtest

    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def z_score(k: int, n: int, p: float) -> float:
    """(k/n - p) / sqrt(p (1 - p) / n); 0 when p is 0 or 1 and k/n equals it."""
    if n <= 0:
        return 0.0
    se = math.sqrt(p * (1.0 - p) / n)
    diff = k / n - p
    if se == 0.0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return diff / se
