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
                   roll, Good's 6 wins (the rule's primary sentence); see docs/rules/README.md.

Outcome codes: ``ATTACKER_WON`` (defenders eliminated), ``DEFENDER_HELD`` (attacker out of
units or down to its stop level), ``ATTACKER_RETREATED``, ``DEFENDER_RETREATED``.
"""
from __future__ import annotations

import numpy as np
from numba import get_num_threads, prange

from lotr_sim._numba.jit import njit
from lotr_sim.kernels.rng import (STATE_SIZE, d6_nb, randint_nb, stream_base_nb, stream_init_nb,
                                  stream_words_nb, xoshiro_step_nb)

RULES = {"classic": 0, "lotr-risk": 1, "minas-tirith": 2}
ATTACKER_WON, DEFENDER_HELD, ATTACKER_RETREATED, DEFENDER_RETREATED = 0, 1, 2, 3
OUTCOME_NAMES = ("attacker_won", "defender_held", "attacker_retreated", "defender_retreated")


@njit(cache=True, inline="always")
def _dice5_nb(s):
    """Five fair dice from one uniform draw on [0, 6**5): (a1, a2, a3, d1, d2)."""
    v = randint_nb(s, 7776)
    a1 = v % 6 + 1
    v //= 6
    a2 = v % 6 + 1
    v //= 6
    a3 = v % 6 + 1
    v //= 6
    d1 = v % 6 + 1
    return a1, a2, a3, d1, v // 6 + 1


@njit(cache=True, inline="always")
def assault_faces_nb(s, a_dice, d_dice):
    """The faces of one assault roll (LR-5.2, MT-7.4): all five dice from one exact uniform
    draw on [0, 6**5) (``_dice5_nb``), the unused ones (beyond ``a_dice`` in 1..3 and
    ``d_dice`` in 1..2) set to 0. Returns (a1, a2, a3, d1, d2)."""
    a1, a2, a3, d1, d2 = _dice5_nb(s)
    if a_dice < 3:
        a3 = 0
    if a_dice < 2:
        a2 = 0
    if d_dice < 2:
        d2 = 0
    return a1, a2, a3, d1, d2


@njit(cache=True)
def dice_each_nb(s, a_dice, d_dice):
    """The faces of one roll drawn one ``d6_nb`` per die rolled, the attacker's first (MT-8.2
    [R] ``retreat_trigger = modified6``): ``a_dice`` in 1..3, ``d_dice`` in 1..2, the unused
    faces 0. Returns (a1, a2, a3, d1, d2) in the order drawn.

    One call site of the inlined ``d6_nb`` in a loop: numba re-reads an inlined function at
    every call site, so five written-out dice cost ~2 s of first-run compile per caller."""
    na = 1 + (a_dice >= 2) + (a_dice >= 3)
    a1 = a2 = a3 = d1 = d2 = 0
    for k in range(na + 1 + (d_dice >= 2)):
        v = d6_nb(s)
        if k == 0:
            a1 = v
        elif k < na:
            if k == 1:
                a2 = v
            else:
                a3 = v
        elif k == na:
            d1 = v
        else:
            d2 = v
    return a1, a2, a3, d1, d2


@njit(cache=True, inline="always")
def assault_losses_nb(a1, a2, a3, d1, d2, a_dice, d_dice, a_bonus, d_bonus):
    """Compare the faces of ``assault_faces_nb`` (LR-5.3/5.4, MT-7.4/8.2): highest with
    highest (the bonuses on each side's highest die only), then second with second when
    both sides roll two or more; ties go to the defender. Returns (attacker losses,
    defender losses)."""
    hi = max(a1, max(a2, a3))
    mid = a1 + a2 + a3 - hi - min(a1, min(a2, a3))  # missing dice are 0 placeholders
    dhi = max(d1, d2)
    dlo = d1 + d2 - dhi
    # branch-free: (x > y) is 0/1
    first = np.int64((hi + a_bonus) > (dhi + d_bonus))
    second = np.int64(mid > dlo)
    two = np.int64(a_dice >= 2 and d_dice >= 2)
    return (1 - first) + two * (1 - second), first + two * second


@njit(cache=True, inline="always")
def assault_roll_nb(s, a_dice, d_dice, a_bonus, d_bonus):
    """One assault roll (MT-7.4, LR-5.3): ``a_dice`` in 1..3, ``d_dice`` in 1..2.

    All five dice come from one exact uniform draw on [0, 6**5) (the unused ones are
    dropped; ``assault_faces_nb``). The bonuses add to each side's highest die only; ties
    go to the defender (``assault_losses_nb``). Returns (attacker losses, defender losses,
    attacker natural 6s, defender natural 6s).
    """
    a1, a2, a3, d1, d2 = assault_faces_nb(s, a_dice, d_dice)
    a6 = (a1 == 6) + (a2 == 6) + (a3 == 6)
    d6 = (d1 == 6) + (d2 == 6)
    la, ld = assault_losses_nb(a1, a2, a3, d1, d2, a_dice, d_dice, a_bonus, d_bonus)
    return la, ld, np.int64(a6), np.int64(d6)


_U6 = np.uint64(6)
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_N7776 = np.uint64(7776)
_T7776 = np.uint64((2**32 - 7776) % 7776)  # randint_nb's rejection threshold for n = 6**5


@njit(cache=True, inline="always")
def _battle_words_nb(s0, s1, s2, s3, attackers, defenders, rules, stop_at, a_bonus, d_bonus,
                     good_attacks, witch_king):
    """``battle_nb`` on a stream held in four local words (the hot loop of battles_nb).

    Bit-identical to ``battle_nb`` written with ``assault_roll_nb``: each roll is one
    ``randint_nb(s, 7776)`` (the xoshiro step and Lemire's rejection inlined here) whose
    base-6 digits are (a1, a2, a3, d1, d2), decoded in unsigned arithmetic. Returns
    (outcome, attackers left, defenders left, rolls, sixes, s0, s1, s2, s3).
    """
    home = 0 if rules == 2 else 1
    floor = home if stop_at < home else stop_at
    a = attackers
    d = defenders
    rolls = 0
    outcome = -1  # set by a retreat; otherwise decided after the loop
    sixes = 0
    while a > floor and d > 0:
        ad = a - home
        if ad > 3:
            ad = 3
        dd = 2 if d >= 2 else 1
        if rules == 1 and dd > ad:
            dd = ad
        x, s0, s1, s2, s3 = xoshiro_step_nb(s0, s1, s2, s3)
        m = (x >> _U32) * _N7776
        while (m & _MASK32) < _T7776:  # p = 6e-7
            x, s0, s1, s2, s3 = xoshiro_step_nb(s0, s1, s2, s3)
            m = (x >> _U32) * _N7776
        v = m >> _U32
        a1 = np.int64(v % _U6) + 1
        v = v // _U6
        a2 = np.int64(v % _U6) + 1
        v = v // _U6
        a3 = np.int64(v % _U6) + 1
        v = v // _U6
        d1 = np.int64(v % _U6) + 1
        d2 = np.int64(v // _U6) + 1
        if ad < 3:
            a3 = 0
        if ad < 2:
            a2 = 0
        if dd < 2:
            d2 = 0
        hi = max(a1, max(a2, a3))
        mid = a1 + a2 + a3 - hi - min(a1, min(a2, a3))
        dhi = max(d1, d2)
        dlo = d1 + d2 - dhi
        first = np.int64((hi + a_bonus) > (dhi + d_bonus))
        second = np.int64(mid > dlo)
        two = np.int64(ad >= 2 and dd >= 2)
        a -= (1 - first) + two * (1 - second)
        d -= first + two * second
        rolls += 1
        if rules == 2 and d > 0 and a > home:
            a6 = np.int64(a1 == 6) + np.int64(a2 == 6) + np.int64(a3 == 6)
            d6 = np.int64(d1 == 6) + np.int64(d2 == 6)
            good6 = a6 if good_attacks else d6
            evil6 = d6 if good_attacks else a6
            if good6 > 0:  # Good's natural 6: the Evil units retreat (MT-7.5)
                outcome = DEFENDER_RETREATED if good_attacks else ATTACKER_RETREATED
                sixes = good6
                break
            if witch_king and evil6 > 0:  # the Witch-king reversal (MT-7.5)
                outcome = ATTACKER_RETREATED if good_attacks else DEFENDER_RETREATED
                sixes = evil6
                break
    if outcome < 0:
        outcome = ATTACKER_WON if d == 0 else DEFENDER_HELD
    return outcome, a, d, rolls, sixes, s0, s1, s2, s3


@njit(cache=True)
def battle_nb(s, attackers, defenders, rules, stop_at, a_bonus, d_bonus,
              good_attacks, witch_king):
    """A battle fought to the end. ``attackers`` counts every unit in the attacking
    territory (including the one that must stay home under classic and lotr-risk rules).

    The attacker keeps rolling while it has more than ``max(home, stop_at)`` units and the
    defender has units. Retreats apply to ``rules == 2`` only (minas-tirith, MT-7.5);
    ``good_attacks`` says which side is Good, ``witch_king`` whether he is in the battle.

    Returns (outcome, attackers left, defenders left, rolls, sixes of the retreat trigger).
    Each roll makes the draws of ``assault_roll_nb``; the xoshiro words are loaded from
    ``s`` once and stored back at the end (``_battle_words_nb``).
    """
    o, a, d, rolls, sixes, s0, s1, s2, s3 = _battle_words_nb(
        s[0], s[1], s[2], s[3], attackers, defenders, rules, stop_at, a_bonus, d_bonus,
        good_attacks, witch_king)
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3
    return o, a, d, rolls, sixes


@njit(cache=True)
def bombard_per_die_nb(evil_at_banner, divisor):
    """The bombardment's dice rule (MT-7.2), the one place it is written: shooters per die,
    1, or ``divisor`` (2 in the rules, ``evil_banner_divisor``) for Evil firing at a
    territory with a Gondor banner. The engine (its action menu and its roll), the
    ``bombard`` command and the exact law (``exact.bombard``, through ``bombard_dice``) all
    take it from here."""
    return divisor if evil_at_banner else 1


@njit(cache=True)
def bombard_dice_nb(shooters, evil_at_banner, divisor):
    """Dice a bombardment of ``shooters`` rolls (MT-7.2, ``bombard_per_die_nb``)."""
    return shooters // bombard_per_die_nb(evil_at_banner, divisor)


@njit(cache=True)
def bombard_nb(s, dice):
    """Bombardment (MT-7.2): roll ``dice`` dice (``bombard_dice_nb``); every natural 6 is a
    hit. Returns (dice rolled, hits)."""
    hits = 0
    for _ in range(dice):
        hits += d6_nb(s) == 6
    return dice, hits


@njit(cache=True, inline="always")
def _battle_range_nb(base, first, lo, hi, attackers, defenders, rules, stop_at, a_bonus, d_bonus,
                     good_attacks, witch_king, out_outcome, out_a, out_d, out_rolls):
    """Battles ``first+lo .. first+hi-1`` into ``out_*[lo:hi]`` (stream words in locals)."""
    for i in range(lo, hi):
        s0, s1, s2, s3 = stream_words_nb(base, first + i)
        o, a, d, r, _, _, _, _, _ = _battle_words_nb(s0, s1, s2, s3, attackers, defenders, rules,
                                                     stop_at, a_bonus, d_bonus, good_attacks,
                                                     witch_king)
        out_outcome[i] = o
        out_a[i] = a
        out_d[i] = d
        out_rolls[i] = r


@njit(cache=True, parallel=True)
def battles_nb(seed, first, attackers, defenders, rules, stop_at, a_bonus, d_bonus,
               good_attacks, witch_king, nchunks, out_outcome, out_a, out_d, out_rolls):
    """Battles ``first .. first+n-1`` (n = len(out_outcome)); battle i uses stream (seed, i).

    ``nchunks`` large chunks (``n_chunks(n)``: two per thread); every battle reseeds its
    stream (kept in local words, no array), so results do not depend on the thread count
    or chunking.
    """
    n = out_outcome.shape[0]
    base = stream_base_nb(seed)
    for c in prange(nchunks):
        lo = (n * c) // nchunks
        hi = (n * (c + 1)) // nchunks
        if rules == 0:  # the rule set as a constant: LLVM drops the other sets' branches
            _battle_range_nb(base, first, lo, hi, attackers, defenders, 0, stop_at, a_bonus, d_bonus,
                             good_attacks, witch_king, out_outcome, out_a, out_d, out_rolls)
        elif rules == 1:
            _battle_range_nb(base, first, lo, hi, attackers, defenders, 1, stop_at, a_bonus, d_bonus,
                             good_attacks, witch_king, out_outcome, out_a, out_d, out_rolls)
        else:
            _battle_range_nb(base, first, lo, hi, attackers, defenders, 2, stop_at, a_bonus, d_bonus,
                             good_attacks, witch_king, out_outcome, out_a, out_d, out_rolls)


@njit(cache=True, parallel=True)
def bombards_nb(seed, first, dice, nchunks, out_hits):
    """Bombardments of ``dice`` dice ``first .. first+n-1``; bombardment i uses stream (seed, i)."""
    n = out_hits.shape[0]
    for c in prange(nchunks):
        s = np.empty(STATE_SIZE, dtype=np.uint64)
        for i in range((n * c) // nchunks, (n * (c + 1)) // nchunks):
            stream_init_nb(seed, first + i, s)
            _, h = bombard_nb(s, dice)
            out_hits[i] = h


# --- Python wrappers -------------------------------------------------------------------
BONUS_RANGE = (-3, 3)


def n_chunks(n: int) -> int:
    """Few, large prange chunks: two per thread (measured faster than many small ones)."""
    return max(1, min(n, 2 * get_num_threads()))


def check_battle(rules: str, attackers: int, defenders: int, attack_bonus: int = 0,
                 defence_bonus: int = 0, stop_at: int = 0) -> int:
    """Validate a battle's arguments; returns the rule-set code. Raises LotrSimError."""
    from lotr_sim.errors import LotrSimError

    if rules not in RULES:
        raise LotrSimError(f"unknown rule set '{rules}' (choose from {', '.join(RULES)})")
    code = RULES[rules]
    home = 0 if code == 2 else 1
    if attackers < home + 1:
        need = "2 (one unit stays home)" if home else "1"
        raise LotrSimError(f"--attackers must be at least {need} under {rules} rules, got {attackers}")
    if defenders < 1:
        raise LotrSimError(f"--defenders must be at least 1, got {defenders}")
    for name, b in (("--attack-bonus", attack_bonus), ("--defence-bonus", defence_bonus)):
        if not BONUS_RANGE[0] <= b <= BONUS_RANGE[1]:
            raise LotrSimError(f"{name} must be in {BONUS_RANGE[0]}..{BONUS_RANGE[1]}, got {b}")
    if stop_at < 0 or stop_at >= attackers:
        raise LotrSimError(f"--stop-at must be in 0..{attackers - 1}, got {stop_at}")
    return code


def simulate_battles(rules: str, attackers: int, defenders: int, n: int, seed: int,
                     first: int = 0, attack_bonus: int = 0, defence_bonus: int = 0,
                     good_attacks: bool = True, witch_king: bool = False,
                     stop_at: int = 0) -> dict[str, np.ndarray]:
    """Battles ``first .. first+n-1`` fought to the end (battle i uses stream (seed, i)).

    Returns arrays ``outcome`` (codes of OUTCOME_NAMES), ``attackers_left``,
    ``defenders_left`` and ``rolls``, one entry per battle."""
    from lotr_sim.kernels.rng import check_seed

    code = check_battle(rules, attackers, defenders, attack_bonus, defence_bonus, stop_at)
    check_seed(seed)
    out = {
        "outcome": np.empty(n, np.int8),
        "attackers_left": np.empty(n, np.int32),
        "defenders_left": np.empty(n, np.int32),
        "rolls": np.empty(n, np.int32),
    }
    battles_nb(seed, first, attackers, defenders, code, stop_at, attack_bonus, defence_bonus,
               good_attacks, witch_king, n_chunks(n), out["outcome"], out["attackers_left"],
               out["defenders_left"], out["rolls"])
    return out


def bombard_dice(shooters: int, evil_at_banner: bool, divisor: int = 2) -> int:
    """Dice a bombardment rolls (MT-7.2; the rule is ``bombard_dice_nb``, run here as plain
    Python): one per shooter, or one per ``divisor`` shooters (2 in the rules) for Evil firing
    at a territory with a Gondor banner. Raises LotrSimError on impossible values."""
    from lotr_sim.errors import LotrSimError

    if shooters < 1:
        raise LotrSimError(f"shooters must be at least 1, got {shooters}")
    if divisor < 1:
        raise LotrSimError(f"divisor must be at least 1, got {divisor}")
    return int(bombard_dice_nb.py_func(int(shooters), bool(evil_at_banner), int(divisor)))


def simulate_bombardments(shooters: int, n: int, seed: int, evil_at_banner: bool = False,
                          divisor: int = 2, first: int = 0) -> np.ndarray:
    """Hits of bombardments ``first .. first+n-1`` (MT-7.2). With ``evil_at_banner`` one
    die per ``divisor`` shooters (``bombard_dice``): the kernel sees the dice count directly."""
    from lotr_sim.kernels.rng import check_seed

    check_seed(seed)
    dice = bombard_dice(shooters, evil_at_banner, divisor)
    out = np.empty(n, np.int32)
    bombards_nb(seed, first, dice, n_chunks(n), out)
    return out


@njit(cache=True)
def rolls_nb(seed, first, a_dice, d_dice, a_bonus, d_bonus, out):
    """Single assault rolls ``first .. first+n-1`` (roll i on stream (seed, i)); writes
    (attacker losses, defender losses, attacker 6s, defender 6s) into ``out[i, :]``."""
    s = np.empty(STATE_SIZE, dtype=np.uint64)
    for i in range(out.shape[0]):
        stream_init_nb(seed, first + i, s)
        la, ld, a6, d6 = assault_roll_nb(s, a_dice, d_dice, a_bonus, d_bonus)
        out[i, 0] = la
        out[i, 1] = ld
        out[i, 2] = a6
        out[i, 3] = d6


def simulate_rolls(a_dice: int, d_dice: int, n: int, seed: int, a_bonus: int = 0,
                   d_bonus: int = 0, first: int = 0) -> np.ndarray:
    """``n`` single assault rolls as an int64 array [n, 4] (see ``rolls_nb``)."""
    from lotr_sim.errors import LotrSimError
    from lotr_sim.kernels.rng import check_seed

    if not (1 <= a_dice <= 3 and 1 <= d_dice <= 2):
        raise LotrSimError(f"a roll needs 1-3 attacking and 1-2 defending dice, got {a_dice} and {d_dice}")
    check_seed(seed)
    out = np.empty((n, 4), np.int64)
    rolls_nb(seed, first, a_dice, d_dice, a_bonus, d_bonus, out)
    return out
