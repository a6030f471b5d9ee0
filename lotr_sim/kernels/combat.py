"""Dice combat shared by all games: one assault roll, a battle to the end, bombardment.

Rule sets of ``battle_nb`` (codes in ``RULES``):

* ``classic``      one unit stays home; defender rolls min(2, D) dice (2 against 1 too).
* ``lotr-risk``    one unit stays home (LR-5.1); defender rolls at most as many dice as
                   the attacker (LR-5.2); leader/stronghold bonuses on the highest die (LR-5.4).
* ``minas-tirith`` no unit stays home (MT-7.3, ``leave_one_behind = false``); the defender
                   rolls 2 dice whenever it has 2 units (MT-7.3); bonuses on the highest
                   die (MT-8.2); a natural 6 rolled by Good ends the battle with the Evil
                   units retreating, and with the Witch-king present a natural 6 rolled by
                   Evil makes the Good units retreat (MT-7.5). Losses come first (MT-7.5):
                   a side wiped out does not retreat. **[R]** When both triggers fire in one
                   roll, Good's 6 wins (the rule's primary sentence); see README.

Outcome codes: ``ATTACKER_WON`` (defenders eliminated), ``DEFENDER_HELD`` (attacker out of
units or down to its stop level), ``ATTACKER_RETREATED``, ``DEFENDER_RETREATED``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from lotr_sim.kernels.rng import STATE_SIZE, d6_nb, stream_init_nb

RULES = {"classic": 0, "lotr-risk": 1, "minas-tirith": 2}
ATTACKER_WON, DEFENDER_HELD, ATTACKER_RETREATED, DEFENDER_RETREATED = 0, 1, 2, 3
OUTCOME_NAMES = ("attacker_won", "defender_held", "attacker_retreated", "defender_retreated")


@njit(cache=True, inline="always")
def _sort3_desc(a, b, c):
    if a < b:
        a, b = b, a
    if b < c:
        b, c = c, b
    if a < b:
        a, b = b, a
    return a, b, c


@njit(cache=True)
def assault_roll_nb(s, a_dice, d_dice, a_bonus, d_bonus):
    """One assault roll (MT-7.4, LR-5.3): ``a_dice`` in 1..3, ``d_dice`` in 1..2.

    The bonuses add to each side's highest die only; ties go to the defender.
    Returns (attacker losses, defender losses, attacker natural 6s, defender natural 6s).
    """
    a1 = d6_nb(s)
    a2 = d6_nb(s) if a_dice >= 2 else 0
    a3 = d6_nb(s) if a_dice >= 3 else 0
    d1 = d6_nb(s)
    d2 = d6_nb(s) if d_dice >= 2 else 0
    a6 = (a1 == 6) + (a2 == 6) + (a3 == 6)
    d6 = (d1 == 6) + (d2 == 6)
    a1, a2, a3 = _sort3_desc(a1, a2, a3)
    if d2 > d1:
        d1, d2 = d2, d1
    # branch-free: (x > y) is 0/1
    att_first = (a1 + a_bonus) > (d1 + d_bonus)
    la = 1 - att_first
    ld = att_first
    if a_dice >= 2 and d_dice >= 2:
        att_second = a2 > d2
        la += 1 - att_second
        ld += att_second
    return np.int64(la), np.int64(ld), np.int64(a6), np.int64(d6)


@njit(cache=True)
def battle_nb(s, attackers, defenders, rules, stop_at, a_bonus, d_bonus,
              good_attacks, witch_king):
    """A battle fought to the end. ``attackers`` counts every unit in the attacking
    territory (including the one that must stay home under classic and lotr-risk rules).

    The attacker keeps rolling while it has more than ``max(home, stop_at)`` units and the
    defender has units. Retreats apply to ``rules == 2`` only (minas-tirith, MT-7.5);
    ``good_attacks`` says which side is Good, ``witch_king`` whether he is in the battle.

    Returns (outcome, attackers left, defenders left, rolls, sixes of the retreat trigger).
    """
    home = 0 if rules == 2 else 1
    floor = home if stop_at < home else stop_at
    a = attackers
    d = defenders
    rolls = 0
    while a > floor and d > 0:
        ad = a - home
        if ad > 3:
            ad = 3
        dd = 2 if d >= 2 else 1
        if rules == 1 and dd > ad:
            dd = ad
        la, ld, a6, d6 = assault_roll_nb(s, ad, dd, a_bonus, d_bonus)
        a -= la
        d -= ld
        rolls += 1
        if rules == 2 and d > 0 and a > home:
            good6 = a6 if good_attacks else d6
            evil6 = d6 if good_attacks else a6
            if good6 > 0:  # Good's natural 6: the Evil units retreat (MT-7.5)
                return (DEFENDER_RETREATED if good_attacks else ATTACKER_RETREATED), a, d, rolls, good6
            if witch_king and evil6 > 0:  # the Witch-king reversal (MT-7.5)
                return (ATTACKER_RETREATED if good_attacks else DEFENDER_RETREATED), a, d, rolls, evil6
    if d == 0:
        return ATTACKER_WON, a, d, rolls, 0
    return DEFENDER_HELD, a, d, rolls, 0


@njit(cache=True)
def bombard_nb(s, shooters, evil_at_banner):
    """Bombardment (MT-7.2): one die per shooter, or one per 2 shooters for Evil firing at
    a banner territory; every natural 6 is a hit. Returns (dice rolled, hits)."""
    dice = shooters // 2 if evil_at_banner else shooters
    hits = 0
    for _ in range(dice):
        hits += d6_nb(s) == 6
    return dice, hits


@njit(cache=True, parallel=True)
def battles_nb(seed, first, attackers, defenders, rules, stop_at, a_bonus, d_bonus,
               good_attacks, witch_king, out_outcome, out_a, out_d, out_rolls):
    """Battles ``first .. first+n-1`` (n = len(out_outcome)); battle i uses stream (seed, i).

    Few large chunks (one per thread) with one stream array each; every battle reseeds, so
    results do not depend on the thread count or chunking.
    """
    n = out_outcome.shape[0]
    nchunks = 64 if n >= 64 else (n if n > 0 else 1)
    for c in prange(nchunks):
        s = np.empty(STATE_SIZE, dtype=np.uint64)
        lo = (n * c) // nchunks
        hi = (n * (c + 1)) // nchunks
        for i in range(lo, hi):
            stream_init_nb(seed, first + i, s)
            o, a, d, r, _ = battle_nb(s, attackers, defenders, rules, stop_at, a_bonus,
                                      d_bonus, good_attacks, witch_king)
            out_outcome[i] = o
            out_a[i] = a
            out_d[i] = d
            out_rolls[i] = r


@njit(cache=True, parallel=True)
def bombards_nb(seed, first, shooters, evil_at_banner, out_hits):
    """Bombardments ``first .. first+n-1``; bombardment i uses stream (seed, i)."""
    n = out_hits.shape[0]
    for i in prange(n):
        s = np.empty(STATE_SIZE, dtype=np.uint64)
        stream_init_nb(seed, first + i, s)
        _, h = bombard_nb(s, shooters, evil_at_banner)
        out_hits[i] = h
