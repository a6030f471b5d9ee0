"""Public API for single battles and bombardments: exact laws next to Monte Carlo.

``battle_report`` and ``bombard_report`` are what ``lotr-sim battle`` / ``lotr-sim bombard``
print; notebooks can call them directly.
"""
from __future__ import annotations

import numpy as np

from lotr_sim.errors import LotrSimError
from lotr_sim.stats import wilson, z_score


def battle_report(rules: str, attackers: int, defenders: int, attack_bonus: int = 0,
                  defence_bonus: int = 0, good: str = "attacker", witch_king: bool = False,
                  stop_at: int = 0, games: int = 100_000, seed: int = 1) -> dict:
    """Exact law of a battle fought to the end, and (``games`` > 0) its Monte Carlo
    estimate with a 95% Wilson interval and a z-score against the exact value."""
    from lotr_sim.exact.battle import OUTCOMES, battle_law
    from lotr_sim.kernels.combat import check_battle, simulate_battles

    check_battle(rules, attackers, defenders, attack_bonus, defence_bonus, stop_at)
    if good not in ("attacker", "defender"):
        raise LotrSimError(f"--good must be 'attacker' or 'defender', got '{good}'")
    if rules != "minas-tirith" and (witch_king or good != "attacker"):
        raise LotrSimError("--witch-king and --good apply only to --rules minas-tirith (MT-7.5)")
    if games < 0:
        raise LotrSimError(f"--games must be 0 or more, got {games}")
    good_attacks = good == "attacker"
    law = battle_law(rules, attackers, defenders, attack_bonus, defence_bonus,
                     good_attacks, witch_king, stop_at)
    out = {
        "battle": dict(rules=rules, attackers=attackers, defenders=defenders,
                       attack_bonus=attack_bonus, defence_bonus=defence_bonus, good=good,
                       witch_king=witch_king, stop_at=stop_at),
        "exact": law.summary(),
    }
    out["exact"]["attacker_survivors"] = law.attacker_survivors.tolist()
    out["exact"]["defender_survivors"] = law.defender_survivors.tolist()
    if games > 0:
        r = simulate_battles(rules, attackers, defenders, games, seed, 0, attack_bonus,
                             defence_bonus, good_attacks, witch_king, stop_at)
        oc = np.bincount(r["outcome"], minlength=4)
        wins = int(oc[0] + oc[3])
        p_exact = out["exact"]["attacker_wins"]
        out["monte_carlo"] = {
            "games": games,
            "seed": seed,
            "attacker_wins": wins / games,
            "ci95": list(wilson(wins, games)),
            "z": z_score(wins, games, p_exact),
            "outcomes": {k: int(v) / games for k, v in zip(OUTCOMES, oc)},
            "attacker_survivors_mean": float(r["attackers_left"].mean()),
            "defender_survivors_mean": float(r["defenders_left"].mean()),
            "rolls_mean": float(r["rolls"].mean()),
            "attacker_survivors": (np.bincount(r["attackers_left"], minlength=attackers + 1)
                                   / games).tolist(),
            "defender_survivors": (np.bincount(r["defenders_left"], minlength=defenders + 1)
                                   / games).tolist(),
        }
    return out


def bombard_report(shooters: int, evil_at_banner: bool = False, divisor: int = 2,
                   games: int = 100_000, seed: int = 1) -> dict:
    """Exact hit law of a bombardment (MT-7.2) and its Monte Carlo estimate."""
    from lotr_sim.exact.bombard import bombard_dice, bombard_law
    from lotr_sim.kernels.combat import simulate_bombardments

    if games < 0:
        raise LotrSimError(f"--games must be 0 or more, got {games}")
    dice = bombard_dice(shooters, evil_at_banner, divisor)
    law = bombard_law(shooters, evil_at_banner, divisor)
    out = {"bombard": dict(shooters=shooters, evil_at_banner=evil_at_banner, divisor=divisor,
                           dice=dice),
           "exact": {"hits": law.tolist(), "hits_mean": dice / 6.0,
                     "p_at_least_one": float(1 - law[0])}}
    if games > 0:
        hits = simulate_bombardments(shooters, games, seed, evil_at_banner, divisor)
        k = int((hits > 0).sum())
        out["monte_carlo"] = {
            "games": games, "seed": seed,
            "hits": (np.bincount(hits, minlength=dice + 1) / games).tolist(),
            "hits_mean": float(hits.mean()),
            "p_at_least_one": k / games,
            "ci95": list(wilson(k, games)),
            "z": z_score(k, games, float(1 - law[0])),
        }
    return out
