"""Players adapted to a changed rule set: the default players' weights re-tuned a little on
the new rules, kept per side only where they play the new rules better.

A lever's effect measured with the default players is its effect on players still playing
the old game: the shipped weights were tuned under the rulebook's rules. ``adapt`` gives the
players a chance to adapt before the effect is judged:

1. *Tune* both sides' weights on the changed rules (``experiments.tune``), warm-started from
   the default player's weights, against those weights and the best so far
   (``generations`` x ``games`` paired games per candidate, opponent and side).
2. *Keep* a side's tuned weights only when they do better than its start weights against the
   other side's start weights on ``check_games`` paired games (same streams for both):
   a short tune can also make a side worse, and a worse player is no adaptation. Both sides
   are judged by Good's win rate (the game's first outcome): Good's side keeps the weights
   that raise it, every other side the weights that lower it.
3. The adapted pairing (each side's kept player) is what callers measure the rule set with;
   ``first_only`` is Good's rate when only Good adapts (its check in step 2).

Everything follows from ``seed``: the tune's streams, and the checks on game indices from
``first`` (callers pass a range no other measurement uses).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from lotr_sim._result import Result

#: ``wins(policies, first, n) -> (wins of the first outcome, games)`` on games first..first+n-1.
WinsFn = Callable[[Mapping[str, str], int, int], "tuple[int, int]"]


@dataclass(frozen=True)
class Adaptation(Result):
    """The players adapted to one rule set.

    Attributes
    ----------
    players : dict
        Side -> the player to play after adaptation: the tuned weights (``weights:...``)
        where they were kept, else the start player.
    kept : dict
        Side -> whether the tuned weights were kept.
    checks : dict
        Side -> the keep check: ``tuned`` and ``start`` (Good's win rate and 95% interval
        with that side playing the tuned or the start weights, the other sides the start
        weights, on the same ``games`` games). A side whose tuned weights are its start
        weights has no check (and is not kept).
    first_only : dict or None
        Good's rate when only Good adapts (its kept player against the other sides' start
        weights); None when Good's tuned weights were not kept (then it is the start rate).
    tune : dict
        ``start``, ``generations``, ``games`` (per candidate, opponent and side),
        ``games_played`` (by the tune), ``folder`` (its run folder) and ``player`` (the
        tuned weights, kept or not).
    """

    players: dict
    kept: dict
    checks: dict
    first_only: dict | None
    tune: dict


def rate(w: int, n: int) -> dict[str, Any]:
    """Win rate ``w / n`` with its 95% Wilson interval and the games."""
    from lotr_sim.stats import wilson
    lo, hi = wilson(w, n)
    return {"rate": w / n, "lo": float(lo), "hi": float(hi), "games": int(n)}


def adapt(game, sets: Mapping[str, Any], wins: WinsFn, *, start: Mapping[str, str], folder: Path,
          config: str | None = None, seed: int = 1, generations: int = 8, games: int = 300,
          check_games: int = 5000, first: int = 0, threads: int | None = None,
          progress: bool = False, known: Mapping[str, Any] | None = None,
          dask: Mapping[str, Any] | None = None) -> Adaptation | None:
    """Adapt the players ``start`` (side -> player, the default pairing) to the rules
    ``sets`` (the full parameter overrides the changed game is loaded with); ``wins`` plays
    games of those rules (see ``WinsFn``). The tune runs in ``folder`` and resumes from it
    when it holds an unfinished one; ``known`` (a previous call's ``tune`` dict) skips it;
    ``dask`` (``scheduler``, ``cluster``, ``workers``) runs it on Dask. None when the game has
    no tunable weights."""
    table = game.policy_table
    if table is None:
        return None
    sides = list(game.sides)
    base = start.get(sides[0], table.base)
    if known is None:
        from lotr_sim.experiments.tune import STATE as TUNE_STATE
        from lotr_sim.experiments.tune import tune
        folder = Path(folder)
        again = (folder / TUNE_STATE).exists()
        r = tune(game, config=config, sets=dict(sets), seed=int(seed), generations=int(generations),
                 games=int(games), final_games=max(10, int(games)), threads=threads,
                 out=None if again else folder, resume=folder if again else None,
                 progress=progress, start=base, opponents=(base, "best"), **dict(dask or {}))
        known = {"start": base, "generations": int(generations), "games": int(games),
                 "games_played": int(r.manifest.get("last_run", {}).get("games_played", 0)),
                 "folder": Path(folder).name, "player": r.name}
    tuned = known["player"]
    fixed = {s: start.get(s, base) for s in sides}
    # a side whose tune never left its start weights has nothing to check
    moved = {s: not np.array_equal(table.rows(tuned)[s], table.rows(fixed[s])[s]) for s in sides}
    players, kept, checks = dict(fixed), {s: False for s in sides}, {}
    first_only = None
    if not any(moved.values()):
        return Adaptation(players=players, kept=kept, checks=checks, first_only=None, tune=dict(known))
    w0, n0 = wins(fixed, first, check_games)
    for i, s in enumerate(sides):
        if not moved[s]:
            continue
        w1, n1 = wins({**fixed, s: tuned}, first, check_games)
        better = w1 > w0 if i == 0 else w1 < w0
        kept[s] = bool(better)
        players[s] = tuned if better else fixed[s]
        checks[s] = {"tuned": rate(w1, n1), "start": rate(w0, n0)}
        if i == 0 and better:
            first_only = rate(w1, n1)
    return Adaptation(players=players, kept=kept, checks=checks, first_only=first_only, tune=dict(known))
