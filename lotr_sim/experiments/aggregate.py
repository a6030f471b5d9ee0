"""Turn per-game rows into summaries (``run``) and per-point result rows (``sweep``),
using only the game's labels (``outcomes``, ``reasons``, ``sides``)."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from lotr_sim.experiments.stats import paired_diff_from_counts, quantiles_from_values, wilson

QS = (0.05, 0.25, 0.5, 0.75, 0.95)
QNAMES = ("q05", "q25", "q50", "q75", "q95")


def summarize(game, cols: Mapping[str, np.ndarray], conf: float = 0.95) -> dict[str, Any]:
    """The summary of a run: wins and rates per outcome with Wilson intervals, end reasons,
    points and game-length statistics. Keys ``<outcome>_win_rate`` / ``<outcome>_ci95``
    exist for every outcome (``good_win_rate`` for Minas Tirith)."""
    winner = np.asarray(cols["winner"])
    n = int(winner.size)
    wins = {o: int(np.count_nonzero(winner == i)) for i, o in enumerate(game.outcomes)}
    out: dict[str, Any] = dict(games=n, wins=wins)
    for o, k in wins.items():
        lo, hi = wilson(k, n, conf)
        out[f"{o}_win_rate"] = k / n if n else float("nan")
        out[f"{o}_ci95"] = [lo, hi]
    reason = np.asarray(cols["reason"])
    out["reasons"] = {r: int(np.count_nonzero(reason == i)) for i, r in enumerate(game.reasons)}
    out["reason_shares"] = {r: (c / n if n else float("nan")) for r, c in out["reasons"].items()}
    for key in ("rounds", "turns"):
        if key in cols:
            v = np.asarray(cols[key])
            out[f"{key}_mean"] = float(v.mean()) if n else float("nan")
            out[f"{key}_sd"] = float(v.std(ddof=1)) if n > 1 else float("nan")
            out[f"{key}_quantiles"] = dict(zip(QNAMES, quantiles_from_values(v, QS)))
    pts = {}
    for s in game.sides:
        c = f"points_{s}"
        if c in cols:
            v = np.asarray(cols[c], dtype=np.float64)
            pts[s] = dict(mean=float(v.mean()) if n else float("nan"),
                          sd=float(v.std(ddof=1)) if n > 1 else float("nan"))
    out["points"] = pts
    return out


def point_row(game, point, df, base_df, conf: float = 0.95) -> dict[str, Any]:
    """One row of results.parquet for a sweep point (``df``: its games; ``base_df``: the
    baseline's, for the paired delta on the first outcome, e.g. Good)."""
    n = len(df)
    row: dict[str, Any] = dict(point=point.index, label=point.label, varied=point.varied,
                               value=point.value,
                               params=_json(point.sets), policies=_json(point.policies), games=n)
    winner = df["winner"].to_numpy()
    for i, o in enumerate(game.outcomes):
        k = int(np.count_nonzero(winner == i))
        lo, hi = wilson(k, n, conf)
        row[f"wins_{o}"] = k
        row[f"rate_{o}"] = k / n if n else float("nan")
        row[f"lo_{o}"] = lo
        row[f"hi_{o}"] = hi
    # paired delta of the first outcome vs the baseline, over their common games
    m = min(n, len(base_df))
    x = winner[:m] == 0
    y = base_df["winner"].to_numpy()[:m] == 0
    # both frames are sorted by game index and start at game 0
    n10 = int(np.count_nonzero(x & ~y))
    n01 = int(np.count_nonzero(~x & y))
    d = paired_diff_from_counts(m, n10, n01, conf)
    o0 = game.outcomes[0]
    row[f"delta_{o0}"] = d.mean
    row[f"delta_{o0}_lo"] = d.lo
    row[f"delta_{o0}_hi"] = d.hi
    row["paired_games"] = m
    rounds = df["rounds"].to_numpy()
    row["rounds_mean"] = float(rounds.mean()) if n else float("nan")
    for qn, qv in zip(QNAMES, quantiles_from_values(rounds, QS)):
        row[f"rounds_{qn}"] = qv
    row["turns_mean"] = float(df["turns"].mean()) if n else float("nan")
    reason = df["reason"].to_numpy()
    for i, r in enumerate(game.reasons):
        row[f"reason_{r}"] = float(np.count_nonzero(reason == i) / n) if n else float("nan")
    for s in game.sides:
        c = f"points_{s}"
        if c in df:
            row[f"points_{s}_mean"] = float(df[c].mean()) if n else float("nan")
    row["rounds_hist"] = np.bincount(rounds.astype(np.int64)).tolist() if n else []
    return row


def _json(d) -> str:
    import json
    return json.dumps(d, sort_keys=True, default=str)
