"""Turn games into summaries (``run``) and per-point result rows (``sweep``), using only
the game's labels (``outcomes``, ``reasons``, ``sides``). The ``*_tally`` forms work from
mergeable ``Tally``/``PairTally`` statistics (memory independent of the number of games);
the others are thin wrappers over per-game columns."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from lotr_sim.stats import paired_diff_from_counts, wilson
from lotr_sim.experiments.tally import HIST_COLUMNS, PairTally, Tally

QS = (0.05, 0.25, 0.5, 0.75, 0.95)
QNAMES = ("q05", "q25", "q50", "q75", "q95")


def summarize(game, cols: Mapping[str, np.ndarray], conf: float = 0.95) -> dict[str, Any]:
    """The summary of a run from its per-game columns (see ``summarize_tally``)."""
    t = Tally.empty(game)
    t.add(cols)
    return summarize_tally(game, t, conf)


def seat_info(game, compiled, policies: Mapping[str, str] | None) -> list[dict[str, str]]:
    """``[{seat, side, policy}]`` of every seat of a configuration, in seat order."""
    return [dict(seat=s, side=game.sides[game.seat_side(compiled, i)], policy=p)
            for i, (s, p) in enumerate(game.seat_policies(compiled, policies).items())]


def seat_stats(game, tally: Tally, seats: list[dict] | None, conf: float = 0.95) -> list[dict[str, Any]]:
    """Per seat (LR-11.4): games won by the seat (from the ``winner_seat`` column) with a
    Wilson interval, and its mean points (``points_<seat>``). Empty unless the games have a
    ``winner_seat`` column or a side has more than one seat, so one-seat-per-side games
    (Minas Tirith, The Search) show no seat table."""
    if not seats or not (tally.seat_n or len(seats) > len(game.sides)):
        return []
    out = []
    for i, s in enumerate(seats):
        d: dict[str, Any] = dict(s)
        if tally.seat_n:
            k = tally.seat_wins[i] if i < len(tally.seat_wins) else 0
            lo, hi = wilson(k, tally.seat_n, conf)
            d.update(wins=int(k), games=tally.seat_n, win_rate=k / tally.seat_n, ci95=[lo, hi])
        if s["seat"] in tally.points:
            mean, sd = tally.mean_sd(f"points_{s['seat']}")
            d.update(points_mean=mean, points_sd=sd)
        out.append(d)
    return out


def summarize_tally(game, tally: Tally, conf: float = 0.95, seats: list[dict] | None = None) -> dict[str, Any]:
    """The summary of a run: wins and rates per outcome with Wilson intervals, end reasons,
    points and game-length statistics. Keys ``<outcome>_win_rate`` / ``<outcome>_ci95``
    exist for every outcome (``good_win_rate`` for Minas Tirith). With ``seats``
    (``seat_info``) and seat columns in the games: ``seats``, the per-seat rows of
    ``seat_stats``."""
    n = tally.n
    wins = {o: int(k) for o, k in zip(game.outcomes, tally.wins)}
    out: dict[str, Any] = dict(games=n, wins=wins)
    for o, k in wins.items():
        lo, hi = wilson(k, n, conf)
        out[f"{o}_win_rate"] = k / n if n else float("nan")
        out[f"{o}_ci95"] = [lo, hi]
    out["reasons"] = {r: int(c) for r, c in zip(game.reasons, tally.reason_counts)}
    out["reason_shares"] = {r: (c / n if n else float("nan")) for r, c in out["reasons"].items()}
    for key in HIST_COLUMNS:
        if key in tally.hists:
            mean, sd = tally.mean_sd(key)
            out[f"{key}_mean"] = mean
            out[f"{key}_sd"] = sd
            out[f"{key}_quantiles"] = dict(zip(QNAMES, tally.quantiles(key, QS)))
    pts = {}
    for s in game.sides:
        if s in tally.points:
            mean, sd = tally.mean_sd(f"points_{s}")
            pts[s] = dict(mean=mean, sd=sd)
    out["points"] = pts
    st = seat_stats(game, tally, seats, conf)
    if st:
        out["seats"] = st
    return out


def point_row(game, point, df, base_df, conf: float = 0.95) -> dict[str, Any]:
    """One row of results.parquet for a sweep point from its games (``df``) and the
    baseline's (``base_df``), both sorted by game index from game 0 (see ``point_row_tally``)."""
    t = Tally.empty(game)
    t.add({c: df[c].to_numpy() for c in df.columns})
    m = min(len(df), len(base_df))
    pair = PairTally()
    pair.add(df["winner"].to_numpy()[:m], base_df["winner"].to_numpy()[:m])
    return point_row_tally(game, point, t, pair, conf)


def point_row_tally(game, point, tally: Tally, pair: PairTally, conf: float = 0.95,
                    seats: list[dict] | None = None) -> dict[str, Any]:
    """One row of results.parquet for a sweep point: rates with Wilson intervals per outcome,
    the paired delta of the first outcome (e.g. Good) against the baseline over their common
    games (``pair``: this point as A, the baseline as B), game length, end reasons, points."""
    n = tally.n
    row: dict[str, Any] = dict(point=point.index, label=point.label, varied=point.varied,
                               value=point.value,
                               params=_json(point.sets), policies=_json(point.policies), games=n)
    for o, k in zip(game.outcomes, tally.wins):
        lo, hi = wilson(k, n, conf)
        row[f"wins_{o}"] = int(k)
        row[f"rate_{o}"] = k / n if n else float("nan")
        row[f"lo_{o}"] = lo
        row[f"hi_{o}"] = hi
    d = paired_diff_from_counts(pair.n, pair.n10, pair.n01, conf)
    o0 = game.outcomes[0]
    row[f"delta_{o0}"] = d.mean
    row[f"delta_{o0}_lo"] = d.lo
    row[f"delta_{o0}_hi"] = d.hi
    row["paired_games"] = pair.n
    row["rounds_mean"] = tally.mean_sd("rounds")[0]
    for qn, qv in zip(QNAMES, tally.quantiles("rounds", QS)):
        row[f"rounds_{qn}"] = qv
    row["turns_mean"] = tally.mean_sd("turns")[0]
    for r, c in zip(game.reasons, tally.reason_counts):
        row[f"reason_{r}"] = float(c / n) if n else float("nan")
    for s in game.sides:
        if s in tally.points:
            row[f"points_{s}_mean"] = tally.mean_sd(f"points_{s}")[0]
    row["rounds_hist"] = list(tally.hists.get("rounds", [])) if n else []
    st = seat_stats(game, tally, seats, conf)
    if st:
        # one JSON list per point: its seats may differ from another point's (a players sweep)
        row["seats"] = _json(st)
    return row


def _json(d) -> str:
    import json
    return json.dumps(d, sort_keys=True, default=str)
