"""Exact bombardment law (MT-7.2): every die hits on a 6, so hits ~ Binomial(dice, 1/6);
Evil firing at a territory with a Gondor banner rolls one die per ``divisor`` shooters."""
from __future__ import annotations

from math import comb

import numpy as np

from lotr_sim.errors import LotrSimError


def bombard_dice(shooters: int, evil_at_banner: bool, divisor: int = 2) -> int:
    if shooters < 1:
        raise LotrSimError(f"shooters must be at least 1, got {shooters}")
    if divisor < 1:
        raise LotrSimError(f"divisor must be at least 1, got {divisor}")
    return shooters // divisor if evil_at_banner else shooters


def bombard_law(shooters: int, evil_at_banner: bool = False, divisor: int = 2,
                targets: int | None = None) -> np.ndarray:
    """P(hits = k) for k = 0..dice (capped at ``targets`` units when given)."""
    n = bombard_dice(shooters, evil_at_banner, divisor)
    p = np.array([comb(n, k) * 5 ** (n - k) / 6 ** n for k in range(n + 1)])
    if targets is not None:
        if targets < 1:
            raise LotrSimError(f"targets must be at least 1, got {targets}")
        if targets < n:
            p = np.concatenate([p[:targets], [p[targets:].sum()]])
    return p
