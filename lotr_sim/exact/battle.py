"""Exact battle odds: one roll by enumerating every die, a battle fought to the end by
the absorbing Markov chain over (attackers, defenders).

The chain mirrors ``lotr_sim.kernels.combat.battle_nb`` rule for rule (stay-home unit,
defender dice cap, bonuses on the highest die, MT-7.5 retreats on natural sixes), so the
kernel's Monte Carlo estimates can be tested against it, and it reproduces Osborne (2003)
Table 3 for classic Risk.
"""
from __future__ import annotations

import hashlib
import itertools
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from lotr_sim.errors import LotrSimError

RULES = {"classic": 0, "lotr-risk": 1, "minas-tirith": 2}
OUTCOMES = ("attacker_won", "defender_held", "attacker_retreated", "defender_retreated")
WON, HELD, ATT_RETREAT, DEF_RETREAT = range(4)


def rules_code(rules: str) -> int:
    if rules not in RULES:
        raise LotrSimError(f"unknown rule set '{rules}' (choose from {', '.join(RULES)})")
    return RULES[rules]


@lru_cache(maxsize=None)
def roll_counts(a_dice: int, d_dice: int, a_bonus: int = 0, d_bonus: int = 0) -> np.ndarray:
    """Counts over all 6**(a_dice+d_dice) equally likely rolls, as an int64 array
    ``[att_losses, def_losses, attacker_rolled_a_6, defender_rolled_a_6]`` (MT-7.4, LR-5.3:
    highest against highest (+bonuses), second against second, ties to the defender)."""
    if not (1 <= a_dice <= 3 and 1 <= d_dice <= 2):
        raise LotrSimError(f"a roll needs 1-3 attacking and 1-2 defending dice, got {a_dice} and {d_dice}")
    out = np.zeros((3, 3, 2, 2), dtype=np.int64)
    for roll in itertools.product(range(1, 7), repeat=a_dice + d_dice):
        a = sorted(roll[:a_dice], reverse=True)
        d = sorted(roll[a_dice:], reverse=True)
        la = ld = 0
        if a[0] + a_bonus > d[0] + d_bonus:
            ld += 1
        else:
            la += 1
        if a_dice >= 2 and d_dice >= 2:
            if a[1] > d[1]:
                ld += 1
            else:
                la += 1
        out[la, ld, int(6 in a), int(6 in d)] += 1
    out.setflags(write=False)
    return out


def roll_law(a_dice: int, d_dice: int, a_bonus: int = 0, d_bonus: int = 0) -> np.ndarray:
    """``roll_counts`` as probabilities."""
    c = roll_counts(a_dice, d_dice, a_bonus, d_bonus)
    return c / 6.0 ** (a_dice + d_dice)


def _dice(code: int, a: int, d: int) -> tuple[int, int]:
    home = 0 if code == 2 else 1
    ad = min(3, a - home)
    dd = 2 if d >= 2 else 1
    if code == 1:
        dd = min(dd, ad)
    return ad, dd


@dataclass
class BattleLaw:
    """The exact law of a battle's end: ``p[outcome, attackers_left, defenders_left]``."""

    rules: str
    attackers: int
    defenders: int
    p: np.ndarray
    expected_rolls: float
    outcome_names: tuple = field(default=OUTCOMES)

    def prob(self, outcome: str) -> float:
        return float(self.p[OUTCOMES.index(outcome)].sum())

    @property
    def attacker_wins(self) -> float:
        """The attacker takes the territory: defenders eliminated or retreated."""
        return self.prob("attacker_won") + self.prob("defender_retreated")

    @property
    def retreat(self) -> float:
        return self.prob("attacker_retreated") + self.prob("defender_retreated")

    @property
    def attacker_survivors(self) -> np.ndarray:
        return self.p.sum(axis=(0, 2))

    @property
    def defender_survivors(self) -> np.ndarray:
        return self.p.sum(axis=(0, 1))

    def summary(self) -> dict:
        a = np.arange(self.attackers + 1)
        d = np.arange(self.defenders + 1)
        return {
            "attacker_wins": self.attacker_wins,
            "defender_wins": self.prob("defender_held"),
            "retreat": self.retreat,
            "attacker_retreats": self.prob("attacker_retreated"),
            "outcomes": {k: self.prob(k) for k in OUTCOMES},
            "attacker_survivors_mean": float(self.attacker_survivors @ a),
            "defender_survivors_mean": float(self.defender_survivors @ d),
            "rolls_mean": self.expected_rolls,
        }


def _check(attackers: int, defenders: int, code: int) -> None:
    home = 0 if code == 2 else 1
    if defenders < 1:
        raise LotrSimError(f"defenders must be at least 1, got {defenders}")
    if attackers < home + 1:
        need = "2 (one stays home)" if home else "1"
        raise LotrSimError(f"attackers must be at least {need}, got {attackers}")


def battle_law(rules: str, attackers: int, defenders: int, attack_bonus: int = 0,
               defence_bonus: int = 0, good_attacks: bool = True, witch_king: bool = False,
               stop_at: int = 0) -> BattleLaw:
    """Exact law of a battle fought to the end (forward propagation over the chain;
    every roll removes at least one unit, so states are visited in decreasing total)."""
    code = rules_code(rules)
    _check(attackers, defenders, code)
    home = 0 if code == 2 else 1
    floor = max(home, stop_at)
    A, D = attackers, defenders
    mass = np.zeros((A + 1, D + 1))
    absorb = np.zeros((4, A + 1, D + 1))
    if not (A > floor and D > 0):
        absorb[WON if D == 0 else HELD, A, D] = 1.0
        return BattleLaw(rules, A, D, absorb, 0.0)
    mass[A, D] = 1.0
    rolls = 0.0
    for total in range(A + D, 0, -1):
        for a in range(min(A, total), floor, -1):
            d = total - a
            if d < 1 or d > D:
                continue
            m = mass[a, d]
            if m == 0.0:
                continue
            rolls += m
            ad, dd = _dice(code, a, d)
            law = roll_law(ad, dd, attack_bonus, defence_bonus)
            for (la, ld, s_a, s_d) in zip(*np.nonzero(law)):
                q = m * law[la, ld, s_a, s_d]
                na, nd = a - la, d - ld
                if code == 2 and nd > 0 and na > home:
                    good6, evil6 = (s_a, s_d) if good_attacks else (s_d, s_a)
                    if good6:
                        absorb[DEF_RETREAT if good_attacks else ATT_RETREAT, na, nd] += q
                        continue
                    if witch_king and evil6:
                        absorb[ATT_RETREAT if good_attacks else DEF_RETREAT, na, nd] += q
                        continue
                if nd == 0:
                    absorb[WON, na, nd] += q
                elif na <= floor:
                    absorb[HELD, na, nd] += q
                else:
                    mass[na, nd] += q
    return BattleLaw(rules, A, D, absorb, rolls)


def win_table(rules: str, max_attackers: int, max_defenders: int, attack_bonus: int = 0,
              defence_bonus: int = 0, good_attacks: bool = True, witch_king: bool = False
              ) -> np.ndarray:
    """``W[a, d]`` = P(the attacker takes the territory — defenders eliminated or retreated)
    for every start a <= max_attackers, d <= max_defenders, by one backward pass.
    Rows and columns where no battle is possible hold 0 (and W[a, 0] = 1).

    A game compiles dozens of these (Minas Tirith 80: 1.4 s of every command's start, measured
    by cProfile on a warm ``play``), so each is kept on disk beside the compiled kernels
    (``_table_cache``), keyed by its arguments and this file's source: an edit here computes
    them again."""
    args = (rules_code(rules), int(max_attackers), int(max_defenders), int(attack_bonus),
            int(defence_bonus), bool(good_attacks), bool(witch_king))
    path = _table_cache(args)
    if path is not None:
        try:
            W = np.load(path, allow_pickle=False)
            if W.shape == (max_attackers + 1, max_defenders + 1):
                return W
        except (OSError, ValueError):
            pass        # missing or unreadable: compute it (and write it again)
    W = _win_table(rules, max_attackers, max_defenders, attack_bonus, defence_bonus, good_attacks,
                   witch_king)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as f:
                np.save(f, W, allow_pickle=False)
            os.replace(tmp, path)
        except OSError:
            pass        # a read-only cache: compute it each time
    return W


@lru_cache(maxsize=1)
def _source_hash() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def _table_cache(args: tuple) -> Path | None:
    """Where the win table of ``args`` is kept: under the compiled kernels' cache directory
    (``lotr_sim._numba.cache.cache_root``), or None without one."""
    from lotr_sim._numba.cache import cache_root
    root = cache_root()
    if not root:
        return None
    key = hashlib.sha256(repr(args).encode()).hexdigest()[:20]
    return Path(root) / "exact-tables" / _source_hash() / f"win-{key}.npy"


def _win_table(rules: str, max_attackers: int, max_defenders: int, attack_bonus: int = 0,
               defence_bonus: int = 0, good_attacks: bool = True, witch_king: bool = False
               ) -> np.ndarray:
    """``win_table`` computed (no cache)."""
    code = rules_code(rules)
    home = 0 if code == 2 else 1
    W = np.zeros((max_attackers + 1, max_defenders + 1))
    W[:, 0] = 1.0
    for a in range(home + 1, max_attackers + 1):
        for d in range(1, max_defenders + 1):
            ad, dd = _dice(code, a, d)
            law = roll_law(ad, dd, attack_bonus, defence_bonus)
            w = 0.0
            for (la, ld, s_a, s_d) in zip(*np.nonzero(law)):
                q = law[la, ld, s_a, s_d]
                na, nd = a - la, d - ld
                if code == 2 and nd > 0 and na > home:
                    good6, evil6 = (s_a, s_d) if good_attacks else (s_d, s_a)
                    if good6:
                        w += q if good_attacks else 0.0
                        continue
                    if witch_king and evil6:
                        w += 0.0 if good_attacks else q
                        continue
                if nd == 0:
                    w += q
                elif na > home:
                    w += q * W[na, nd]
            W[a, d] = w
    W[: home + 1, 1:] = 0.0
    return W
