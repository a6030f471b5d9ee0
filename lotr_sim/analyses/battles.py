"""Single battles and bombardments: exact laws next to Monte Carlo.

``battle_report`` and ``bombard_report`` are what ``lotr-sim battle`` / ``lotr-sim bombard``
print, ``plot_survivors`` what ``lotr-sim battle --plot`` draws; notebooks can call them directly.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from lotr_sim.errors import LotrSimError
from lotr_sim.experiments.run import MAX_GAMES, iter_split  # the same bound and cutting as `run`
from lotr_sim.stats import wilson, z_score

#: Battles/bombardments simulated per chunk: memory is bounded by this, not by ``games``.
CHUNK = 1_000_000
#: Units per side a battle may have. Minas Tirith: the most units one side owns (Evil's
#: 40 infantry + 10 crossbowmen + 10 cavalry + 10 creatures, MT-1.2). Classic and LotR Risk
#: cap no army; lotr-sim's bound keeps the exact chain ((a+1)(d+1) states) to seconds.
MAX_UNITS = {"minas-tirith": 70, "classic": 500, "lotr-risk": 500}
_UNITS_WHY = {"minas-tirith": "the most units one side owns: Evil's 70, MT-1.2",
              "classic": "lotr-sim's bound for rules that cap no army: the exact chain grows as "
                         "attackers x defenders",
              "lotr-risk": "lotr-sim's bound for rules that cap no army: the exact chain grows as "
                           "attackers x defenders"}
#: Shooters one side can have: Good's 12 archers + 3 mounted archers (MT-1.1) + the deck's
#: 2 catapults (MT-9.4); Evil has fewer (10 crossbowmen).
MAX_SHOOTERS = 17


def check_games(games, what: str = "--games") -> int:
    """A Monte Carlo count: a whole number in 0 .. MAX_GAMES (0: exact only)."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)):
        raise LotrSimError(f"{what} must be a whole number, got {games!r}")
    if games < 0:
        raise LotrSimError(f"{what} must be 0 or more, got {games}")
    if games > MAX_GAMES:
        raise LotrSimError(f"{what} must be at most {MAX_GAMES:,} (1e15, the largest run lotr-sim "
                           f"accepts), got {games}")
    return int(games)


def _chunks(games: int):
    """Battles ``0..games-1`` in chunks of ``CHUNK`` (battle i always uses stream (seed, i))."""
    return iter_split(0, games, CHUNK)


def battle_report(rules: str, attackers: int, defenders: int, attack_bonus: int = 0,
                  defence_bonus: int = 0, good: str = "attacker", witch_king: bool = False,
                  stop_at: int = 0, games: int = 100_000, seed: int = 1) -> dict:
    """Exact law of a battle fought to the end, and (``games`` > 0) its Monte Carlo
    estimate with a 95% Wilson interval and a z-score against the exact value."""
    from lotr_sim.exact.battle import OUTCOMES, battle_law
    from lotr_sim.kernels.combat import check_battle, simulate_battles

    check_battle(rules, attackers, defenders, attack_bonus, defence_bonus, stop_at)
    for name, v in (("--attackers", attackers), ("--defenders", defenders)):
        if v > MAX_UNITS[rules]:
            raise LotrSimError(f"{name} must be at most {MAX_UNITS[rules]} under {rules} rules "
                               f"({_UNITS_WHY[rules]}), got {v}")
    if good not in ("attacker", "defender"):
        raise LotrSimError(f"--good must be 'attacker' or 'defender', got '{good}'")
    if rules != "minas-tirith" and (witch_king or good != "attacker"):
        raise LotrSimError("--witch-king and --good apply only to --rules minas-tirith (MT-7.5)")
    games = check_games(games)
    from lotr_sim.kernels.rng import check_seed
    check_seed(seed)  # a SeedError is a LotrSimError: one error line
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
        # chunk by chunk (battle i always uses stream (seed, i)): counts accumulate as
        # Python ints, memory is bounded by CHUNK whatever ``games``
        oc = np.zeros(4, np.int64)
        a_left = np.zeros(attackers + 1, np.int64)
        d_left = np.zeros(defenders + 1, np.int64)
        rolls = 0
        with _progress(games, "battles") as bar:
            for first, n in _chunks(games):
                r = simulate_battles(rules, attackers, defenders, n, seed, first, attack_bonus,
                                     defence_bonus, good_attacks, witch_king, stop_at)
                oc += np.bincount(r["outcome"], minlength=4)
                a_left += np.bincount(r["attackers_left"], minlength=attackers + 1)
                d_left += np.bincount(r["defenders_left"], minlength=defenders + 1)
                rolls += int(r["rolls"].sum(dtype=np.int64))
                bar.advance(n)
        wins = int(oc[0] + oc[3])
        p_exact = out["exact"]["attacker_wins"]
        out["monte_carlo"] = {
            "games": games,
            "seed": seed,
            "attacker_wins": wins / games,
            "ci95": list(wilson(wins, games)),
            "z": z_score(wins, games, p_exact),
            "outcomes": {k: int(v) / games for k, v in zip(OUTCOMES, oc)},
            "attacker_survivors_mean": _mean(a_left),
            "defender_survivors_mean": _mean(d_left),
            "rolls_mean": rolls / games,
            "attacker_survivors": (a_left / games).tolist(),
            "defender_survivors": (d_left / games).tolist(),
        }
    return out


def _mean(hist: np.ndarray) -> float:
    """Mean of the values whose histogram is ``hist`` (exact integer sums)."""
    n = int(hist.sum())
    return sum(i * int(c) for i, c in enumerate(hist)) / n


def _progress(total: int, what: str):
    """A progress bar (with ETA) on stderr for calls long enough to need one: more than one
    chunk, stderr a terminal. Otherwise nothing."""
    import sys

    from lotr_sim.experiments.progress import make_progress
    show = total > CHUNK and sys.stderr.isatty()
    return make_progress(show, what, total)


def bombard_report(shooters: int, evil_at_banner: bool = False, divisor: int = 2,
                   games: int = 100_000, seed: int = 1) -> dict:
    """Exact hit law of a bombardment (MT-7.2) and its Monte Carlo estimate."""
    from lotr_sim.exact.bombard import bombard_law
    from lotr_sim.kernels.combat import bombard_dice, simulate_bombardments

    if shooters > MAX_SHOOTERS:
        raise LotrSimError(f"--shooters must be at most {MAX_SHOOTERS} (every ranged unit one side owns: "
                           f"Good's 12 archers and 3 mounted archers, MT-1.1, and the 2 catapults, "
                           f"MT-9.4), got {shooters}")
    if divisor > MAX_SHOOTERS:
        raise LotrSimError(f"--divisor must be at most {MAX_SHOOTERS}, got {divisor}")
    games = check_games(games)
    from lotr_sim.kernels.rng import check_seed
    check_seed(seed)  # a SeedError is a LotrSimError: one error line
    dice = bombard_dice(shooters, evil_at_banner, divisor)
    law = bombard_law(dice)
    out = {"bombard": dict(shooters=shooters, evil_at_banner=evil_at_banner, divisor=divisor,
                           dice=dice),
           "exact": {"hits": law.tolist(), "hits_mean": dice / 6.0,
                     "p_at_least_one": float(1 - law[0])}}
    if games > 0:
        counts = np.zeros(dice + 1, np.int64)
        with _progress(games, "bombardments") as bar:
            for first, n in _chunks(games):
                hits = simulate_bombardments(shooters, n, seed, evil_at_banner, divisor, first)
                counts += np.bincount(hits, minlength=dice + 1)
                bar.advance(n)
        k = games - int(counts[0])
        out["monte_carlo"] = {
            "games": games, "seed": seed,
            "hits": (counts / games).tolist(),
            "hits_mean": _mean(counts),
            "p_at_least_one": k / games,
            "ci95": list(wilson(k, games)),
            "z": z_score(k, games, float(1 - law[0])),
        }
    return out


def plot_survivors(rep: dict, path: Path | None = None):
    """Exact (and Monte Carlo) survivor distributions; returns the Figure (saved when ``path``)."""
    from lotr_sim.reports.plots import new_figure, save_figure

    ex, mc, b = rep["exact"], rep.get("monte_carlo"), rep["battle"]
    fig = new_figure((10, 4))
    axes = fig.subplots(1, 2)
    for ax, side in zip(axes, ("attacker", "defender")):
        p = np.array(ex[f"{side}_survivors"])
        k = np.arange(len(p))
        w = 0.4 if mc else 0.8
        ax.bar(k - (w / 2 if mc else 0), p, width=w, label="exact")
        if mc:
            ax.bar(k + w / 2, mc[f"{side}_survivors"], width=w, label=f"Monte Carlo ({mc['games']:,})")
        ax.set_xlabel(f"{side} units left")
        ax.set_ylabel("probability")
        ax.set_xticks(k)
        ax.legend()
    fig.suptitle(f"{b['rules']}: {b['attackers']} v {b['defenders']} "
                 f"(+{b['attack_bonus']}/+{b['defence_bonus']}); P(attacker takes) = {ex['attacker_wins']:.3f}")
    if path is not None:
        save_figure(fig, path)
    return fig
