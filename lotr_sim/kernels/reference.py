"""Plain-Python twins of the combat kernels: the same rules and the same random stream
(``PyStream``), so a test can demand bit-identical results and the benchmark can compare
like with like. Slow on purpose: no numba, no numpy in the loop."""
from __future__ import annotations

from lotr_sim.kernels.combat import (ATTACKER_RETREATED, ATTACKER_WON, DEFENDER_HELD,
                                     DEFENDER_RETREATED)
from lotr_sim.kernels.rng import PyStream


def assault_roll_py(st: PyStream, a_dice: int, d_dice: int, a_bonus: int, d_bonus: int):
    v = st.randint(7776)
    digits = []
    for _ in range(5):
        digits.append(v % 6 + 1)
        v //= 6
    att = sorted(digits[:a_dice], reverse=True)
    dfn = sorted(digits[3:3 + d_dice], reverse=True)
    la = ld = 0
    if att[0] + a_bonus > dfn[0] + d_bonus:
        ld += 1
    else:
        la += 1
    if a_dice >= 2 and d_dice >= 2:
        if att[1] > dfn[1]:
            ld += 1
        else:
            la += 1
    return la, ld, att.count(6), dfn.count(6)


def battle_py(st: PyStream, attackers: int, defenders: int, rules: int, stop_at: int = 0,
              a_bonus: int = 0, d_bonus: int = 0, good_attacks: bool = True,
              witch_king: bool = False):
    home = 0 if rules == 2 else 1
    floor = max(home, stop_at)
    a, d, rolls = attackers, defenders, 0
    while a > floor and d > 0:
        ad = min(3, a - home)
        dd = 2 if d >= 2 else 1
        if rules == 1:
            dd = min(dd, ad)
        la, ld, a6, d6 = assault_roll_py(st, ad, dd, a_bonus, d_bonus)
        a -= la
        d -= ld
        rolls += 1
        if rules == 2 and d > 0 and a > home:
            good6, evil6 = (a6, d6) if good_attacks else (d6, a6)
            if good6:
                return (DEFENDER_RETREATED if good_attacks else ATTACKER_RETREATED), a, d, rolls, good6
            if witch_king and evil6:
                return (ATTACKER_RETREATED if good_attacks else DEFENDER_RETREATED), a, d, rolls, evil6
    return (ATTACKER_WON if d == 0 else DEFENDER_HELD), a, d, rolls, 0


def battles_py(seed: int, first: int, n: int, attackers: int, defenders: int, rules: int,
               **kw) -> list[tuple]:
    """Battles first..first+n-1, battle i on stream (seed, i), as (outcome, a, d, rolls)."""
    return [battle_py(PyStream(seed, first + i), attackers, defenders, rules, **kw)[:4]
            for i in range(n)]
