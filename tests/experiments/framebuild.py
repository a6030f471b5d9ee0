"""Hand-made sweep results frames (the columns of results.parquet) for the verdict, table
and plot tests: every rate, interval and paired Δ is computed from counts given here."""
from __future__ import annotations

import json

import pandas as pd

from lotr_sim.stats import paired_diff_from_counts, wilson

OUTCOMES = ["good", "evil", "draw"]
REASONS = ["leaders", "city", "deck"]


def row(point, label, varied, dims, games, wins, delta=(0, 0), sets=None, policies=None,
        reasons=(0.2, 0.3, 0.5), rounds_hist=(0, 1, 2, 3, 2, 1), precision_met=None):
    """One results row; ``wins`` = (good, evil, draw) counts; ``delta`` = (n10, n01) paired
    counts against the baseline over ``games`` games."""
    r = dict(point=point, label=label, varied=varied, value=label.split("=")[-1] if "=" in label else "",
             params=json.dumps(sets or {}, sort_keys=True),
             policies=json.dumps(policies or {"good": "greedy", "evil": "greedy"}, sort_keys=True),
             games=games)
    for o, k in zip(OUTCOMES, wins):
        lo, hi = wilson(k, games)
        r[f"wins_{o}"], r[f"rate_{o}"], r[f"lo_{o}"], r[f"hi_{o}"] = k, k / games, lo, hi
    d = paired_diff_from_counts(games, *delta) if point else paired_diff_from_counts(games, 0, 0)
    r["delta_good"], r["delta_good_lo"], r["delta_good_hi"] = d.mean, d.lo, d.hi
    r["paired_games"] = games
    r["rounds_mean"] = 3.0
    for q in ("q05", "q25", "q50", "q75", "q95"):
        r[f"rounds_{q}"] = 3.0
    r["turns_mean"] = 6.0
    for name, share in zip(REASONS, reasons):
        r[f"reason_{name}"] = share
    r["points_good_mean"] = 1.0
    r["points_evil_mean"] = 1.0
    r["rounds_hist"] = list(rounds_hist)
    if precision_met is not None:
        r["precision_met"] = precision_met
    r["dims"] = json.dumps(dims, sort_keys=True)
    return r


def frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows)


MANIFEST = dict(game="fake", outcomes=OUTCOMES, reasons=REASONS, sides=["good", "evil"],
                policies={"baseline": {"good": "greedy", "evil": "greedy"}})
