"""The Fellowship's journey (LR-10) as ``api.fellowship`` and ``lotr-sim fellowship`` give it:
the exact law of the track (``exact`` beside this module) beside Monte Carlo journeys of the
jitted kernel (``kernel``), with intervals, the mean's z-score and a chi-square test; and,
from ``FellowshipResult.to_dict()`` (what ``lotr-sim fellowship --json`` prints), the turns
worth a table row of their own and a bar chart of both laws."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lotr_sim._result import Result
from lotr_sim.errors import ConfigError
from lotr_sim.games.lotr_risk.fellowship.exact import FellowshipLaw, FellowshipTrack, RoundsLaw, fellowship_law, rounds_law

#: Journeys simulated per chunk: memory is bounded by this, not by ``games``.
CHUNK = 1_000_000
#: Expected count a chi-square bin needs; the upper tail is pooled into the last bin.
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class FellowshipResult(Result):
    """The exact law of the Fellowship's journey (turns and rounds) and, when ``games`` > 0,
    its Monte Carlo estimate.

    Attributes
    ----------
    track : FellowshipTrack
        The path, its die territories and the roll (LR-10).
    law : FellowshipLaw
        The exact law of the player turns until the Ring leaves the path.
    rounds : RoundsLaw
        The exact law of the game's length in rounds for ``players`` players.
    games : int
        Monte Carlo journeys played (0: exact only).
    seed : int
        Journey i used stream (seed, i).
    counts : numpy.ndarray or None
        ``counts[t]``: journeys that took t player turns (None without Monte Carlo).
    mc : dict or None
        The Monte Carlo summary: counts by number of turns with 95% Wilson intervals and
        z-scores, the mean with its 95% interval and z-score against the exact mean, and a
        chi-square test of the whole distribution (bins pooled so every expected count is
        at least 5).
    """

    track: FellowshipTrack
    law: FellowshipLaw
    rounds: RoundsLaw
    games: int
    seed: int
    counts: np.ndarray | None = None
    mc: dict[str, Any] | None = None

    @property
    def players(self) -> int:
        return self.rounds.players

    def plot(self, path: str | None = None):
        """Bar chart of the exact law beside the Monte Carlo one (a matplotlib ``Figure``,
        shown inline in a notebook; written as PNG when ``path`` is given)."""
        return plot_fellowship(self.to_dict(), path)

    def to_dict(self) -> dict:
        """JSON-able: ``track``, ``players``, ``exact`` (``mean``, ``distribution`` by number
        of turns, ``rounds``) and ``monte_carlo`` (the same, with intervals and tests)."""
        ex = self.law.as_dict()
        ex["rounds"] = self.rounds.as_dict()
        out = {"track": self.track.as_dict(), "players": self.players, "exact": ex}
        if self.mc is not None:
            out["monte_carlo"] = self.mc
        return out


def _mc_summary(law: FellowshipLaw, rounds: RoundsLaw, counts: np.ndarray, games: int,
                seed: int) -> dict:
    from scipy.special import chdtrc  # = scipy.stats.chi2.sf(x, df); scipy.stats is slow to import

    from lotr_sim.stats import wilson, z_score, z_value

    t = np.arange(len(counts))
    total = int(counts.sum())
    if total != games:
        raise RuntimeError(f"fellowship: {total} journeys counted for {games} played")
    s1 = sum(int(c) * int(k) for k, c in zip(t, counts))
    s2 = sum(int(c) * int(k) * int(k) for k, c in zip(t, counts))
    mean = s1 / total
    var = (s2 - total * mean * mean) / (total - 1) if total > 1 else 0.0
    half = z_value() * math.sqrt(max(var, 0.0) / total)
    mean_z = (mean - float(law.mean)) / math.sqrt(float(law.variance) / total) if law.variance else (
        0.0 if mean == float(law.mean) else math.inf)
    dist = {}
    for k in range(min(law.t_min, len(counts)), max(law.t_max, len(counts) - 1) + 1):
        c = int(counts[k]) if k < len(counts) else 0
        if c == 0 and not law.t_min <= k <= law.t_max:
            continue
        lo, hi = wilson(c, total)
        dist[str(k)] = {"p": c / total, "ci95": [lo, hi], "z": z_score(c, total, law.prob(k))}
    # chi-square over bins t_min .. last-1 and a pooled bin ">= last" (expected >= MIN_EXPECTED)
    full = np.zeros(max(len(counts), law.t_max + 1), np.int64)
    full[:len(counts)] = counts
    nb = len(law.pmf)
    while nb > 1 and (law.pmf[nb - 1:].sum() + law.tail) * total < MIN_EXPECTED:
        nb -= 1
    obs = np.append(full[law.t_min:law.t_min + nb - 1], full[law.t_min + nb - 1:].sum()).astype(np.float64)
    e = law.pmf[:nb - 1] * total
    e = np.append(e, total - e.sum())
    impossible = int(full[:law.t_min].sum())   # fewer turns than the path allows: a kernel bug
    if impossible:
        chi2 = math.inf
    else:
        chi2 = float((((obs - e) ** 2) / e).sum()) if nb > 1 else 0.0
    df = nb - 1
    k = rounds.players
    rc = np.bincount((np.arange(1, len(full)) - 1) // k + 1, weights=full[1:])
    return {
        "games": games, "seed": seed, "mean": mean, "mean_ci95": [mean - half, mean + half],
        "mean_z": mean_z, "sd": math.sqrt(max(var, 0.0)), "distribution": dist,
        "max_abs_z": max((abs(v["z"]) for t_, v in dist.items()
                          if law.prob(int(t_)) * total >= MIN_EXPECTED), default=0.0),
        "chi2": chi2, "chi2_df": df, "chi2_p": float(chdtrc(df, chi2)) if df > 0 else 1.0,
        "chi2_bins": {"first": law.t_min, "pooled_from": law.t_min + nb - 1},
        "impossible": impossible,
        "rounds": {"mean": float(np.dot(np.arange(len(rc)), rc)) / total,
                   "distribution": {str(r): float(c) / total for r, c in enumerate(rc) if c > 0}},
    }


def fellowship_result(track: FellowshipTrack, games: int = 100_000, seed: int = 1, players: int = 2,
                      threads: int | None = None) -> FellowshipResult:
    """The exact law of ``track`` and ``games`` Monte Carlo journeys (journey i on stream
    (seed, i), in chunks of ``CHUNK``); ``games = 0`` gives the exact law only. ``games`` is
    a whole number of at least 0 and ``threads`` None or a thread count, as
    ``api.fellowship`` checks them for a user (a bad seed or player count is one error here)."""
    from lotr_sim.kernels.rng import check_seed

    games = int(games)
    if games < 0:
        raise ValueError(f"games must be 0 or more, got {games}")
    check_seed(seed)
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 2 <= players <= 4:
        raise ConfigError(f"--players must be 2, 3 or 4 (LR-2.2, LR-2.3), got {players!r}")
    law = fellowship_law(track)
    rl = rounds_law(law, int(players))
    if games == 0:
        return FellowshipResult(track, law, rl, games, int(seed))
    from lotr_sim.games.lotr_risk.fellowship.kernel import simulate_fellowship

    counts = np.zeros(law.t_max + 1, np.int64)
    for first in range(0, games, CHUNK):
        turns = simulate_fellowship(track, min(CHUNK, games - first), seed, threads, first=first)
        c = np.bincount(turns)
        if len(c) > len(counts):
            counts = np.concatenate([counts, np.zeros(len(c) - len(counts), np.int64)])
        counts[:len(c)] += c
    return FellowshipResult(track, law, rl, games, int(seed), counts, _mc_summary(law, rl, counts, games, int(seed)))


# --- the table's rows and the bar chart -----------------------------------------------------
#: Table rows: every number of turns until the exact upper tail is below this; the rest pooled.
SHOW_TAIL = 1e-4


def shown_turns(ex: dict) -> tuple[list[int], int | None]:
    """The turns given a row of their own, and the first turn of the pooled last row."""
    dist = {int(t): p for t, p in ex["distribution"].items()}
    ts = sorted(dist)
    left = 1.0
    rows = []
    for t in ts:
        rows.append(t)
        left -= dist[t]
        if left < SHOW_TAIL:
            break
    nxt = rows[-1] + 1
    return rows, (nxt if nxt <= ts[-1] else None)


def plot_fellowship(rep: dict, path: Path | None = None):
    """Bar chart of the exact (and Monte Carlo) law of the number of turns; returns the Figure
    (saved, headless, when ``path`` is given)."""
    from lotr_sim._figure import new_figure, save_figure

    ex, mc = rep["exact"], rep.get("monte_carlo")
    rows, _ = shown_turns(ex)
    t = np.array(rows)
    pe = np.array([ex["distribution"][str(k)] for k in rows])
    fig = new_figure((9, 4))
    ax = fig.subplots()
    w = 0.4 if mc else 0.8
    ax.bar(t - (w / 2 if mc else 0), pe, width=w, label="exact")
    if mc:
        pm = np.array([mc["distribution"].get(str(k), {"p": 0.0})["p"] for k in rows])
        lo = np.array([mc["distribution"].get(str(k), {"ci95": [0, 0]})["ci95"][0] for k in rows])
        hi = np.array([mc["distribution"].get(str(k), {"ci95": [0, 0]})["ci95"][1] for k in rows])
        ax.bar(t + w / 2, pm, width=w, label=f"Monte Carlo ({mc['games']:,})",
               yerr=np.vstack([np.clip(pm - lo, 0, None), np.clip(hi - pm, 0, None)]), capsize=2)
    ax.set_xlabel("player turns until the Ring leaves the path")
    ax.set_ylabel("probability")
    ax.set_xticks(t)
    ax.legend()
    tr = rep["track"]
    fig.suptitle(f"Fellowship (LR-10): {len(tr['names'])} territories, {sum(tr['marked'])} die territories, "
                 f"roll above {tr['roll_above']}; mean {ex['mean']:.3f} turns")
    if path is not None:
        save_figure(fig, path)
    return fig
