"""Exact bombardment law (MT-7.2): every die hits on a 6, so hits ~ Binomial(dice, 1/6).
How many dice a bombardment rolls is the kernel's rule (``kernels.combat.bombard_dice``:
Evil firing at a territory with a Gondor banner rolls one die per 2 shooters); the law is
given the dice."""
from __future__ import annotations

from math import comb

import numpy as np

from lotr_sim.errors import LotrSimError


def bombard_law(dice: int, targets: int | None = None) -> np.ndarray:
    """P(hits = k) for k = 0..dice (capped at ``targets`` units when given)."""
    if dice < 0:
        raise LotrSimError(f"dice must be 0 or more, got {dice}")
    p = np.array([comb(dice, k) * 5 ** (dice - k) / 6 ** dice for k in range(dice + 1)])
    if targets is not None:
        if targets < 1:
            raise LotrSimError(f"targets must be at least 1, got {targets}")
        if targets < dice:
            p = np.concatenate([p[:targets], [p[targets:].sum()]])
    return p
