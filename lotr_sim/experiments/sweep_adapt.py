"""The sweep's "after adaptation" figure for its largest levers.

A lever's paired change in a sweep is measured with the default players, whose weights were
tuned under the rulebook's rules: it is the lever's effect on players who have not adapted to
it. For its ``spec.adapt_levers`` largest levers (ranked as the verdict ranks them: the swept
value with the largest |paired change| of Good's win rate, one per parameter) a sweep also
measures the change after the players adapt:

1. *Adapt* (``experiments.adapt.adapt``): both sides' default weights are re-tuned on the
   lever's rules, warm-started from them (``adapt_generations`` x ``adapt_games``; the tune
   runs in ``adapt/<lever>/`` inside the sweep's folder), and each side keeps its re-tuned
   weights only where they beat its default weights on ``adapt_check_games`` paired games
   (game indices from ``FRESH_KEEP``).
2. *Measure*: Good's win rate with the adapted players under the lever minus Good's win rate
   with the default players under the default rules, on the same games (indices from
   ``FRESH_FIGURE``: no other measurement of the sweep uses them), with the paired 95%
   interval the sweep's levers stop on (``sequential.paired_interval``). The games are played
   in batches, as the sweep plays its levers (``sweep.next_targets``), until the interval's
   half-width meets the sweep's lever goal (``paired_precision``, else ``precision``) or the
   sweep's cap per point (``max_games``); a sweep of a fixed ``games`` plays that many. A lever
   where neither side's re-tuned weights did better has no figure: its players are the
   default ones, whose change the sweep has measured.

Not adapted, with a one-line note saying why: a game without tunable weights, baseline
players its weight table does not play (the search player and the other generic players), a
grid sweep (its levers are cells, full rule sets: ``lotr-sim fix`` checks a rule set with
adapted players) and a sweep without a rule lever (pairings only, or only players swept: a
players dimension changes the players themselves, so it is never adapted to). A skill run
(``command == "skill"``) is never adapted.

Everything is kept as soon as it is played: each tune's state in its folder, the keep checks'
winner counts per chunk and each finished adaptation in ``adapt/state.json``, the figure's
games as chunk files in ``adapt/figure/``. A sweep interrupted here (Ctrl-C) and resumed
continues where it stopped, and a resumed or extended sweep never redoes a finished
adaptation: only the games a new goal or a new lever needs are played. Everything follows
from the sweep's seed, whatever the threads or chunks.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Mapping

import numpy as np

from lotr_sim.errors import Interrupted

#: The folder of the adaptations inside a sweep's folder.
ADAPT_DIR = "adapt"
#: Its state: the keep checks' counts and every finished adaptation.
STATE = "state.json"
#: First game index of the adaptations' keep checks: beyond any sweep point's games.
FRESH_KEEP = 10 ** 12
#: First game index of the "after adaptation" figure's games.
FRESH_FIGURE = 2 * 10 ** 12
#: The figure store's point of the default players under the default rules (a lever's
#: adapted games are stored under its sweep point's index, never 0).
BASE = 0


def _folder_name(label: str) -> str:
    """A lever's folder under ``adapt/``: its label with anything unsafe in a file name replaced."""
    return re.sub(r"[^A-Za-z0-9_.=,+-]", "_", label)


def _players_key(pols: Mapping[str, str]) -> str:
    return hashlib.sha1(json.dumps(dict(pols), sort_keys=True).encode()).hexdigest()[:16]


def candidates(game, spec, results, command: str = "sweep") -> tuple[list[str], str | None]:
    """The labels of the levers to adapt to, largest first (at most ``spec.adapt_levers``),
    and a one-line note when the sweep adapts to none although asked to (None when not
    asked: ``adapt_levers`` 0 or a skill run)."""
    k = int(getattr(spec, "adapt_levers", 0) or 0)
    if k <= 0 or command == "skill" or spec.gain_precision is not None:
        return [], None
    from lotr_sim.games.players import is_generic
    table = game.policy_table
    if table is None:
        return [], f"After adaptation: not measured (game '{game.name}' has no tunable weights)."
    if spec.grid:
        return [], ("After adaptation: not measured for a grid sweep (its levers are cells, full rule "
                    f"sets: lotr-sim fix --game {game.name} checks a rule set with adapted players).")
    base = results[results["point"] == 0].iloc[0]
    pols = json.loads(base["policies"]) if isinstance(base["policies"], str) else dict(base["policies"])
    players = [pols.get(s) for s in game.sides]
    if any(p is None or is_generic(p) or not table.knows(p) for p in players):
        shown = ", ".join(f"{s}={pols.get(s, '?')}" for s in game.sides)
        return [], f"After adaptation: not measured (the baseline players, {shown}, have no tunable weights)."
    from lotr_sim.experiments.verdict import levers
    ranked = [x for x in levers(results, game.outcomes[0]) if x["param"] not in game.policy_keys]
    if not ranked:
        return [], "After adaptation: not measured (no rule parameter swept)."
    return [str(x["label"]) for x in ranked[:k]], None


def figure_goal(spec) -> tuple[float | None, int]:
    """``(goal, cap)`` of the figure's games: the half-width its paired interval is played to
    (the sweep's lever goal: ``paired_precision``, else ``precision``; None for a fixed
    ``games``) and the most games it plays (``max_games``; a fixed ``games``)."""
    if spec.paired_precision is not None:
        return float(spec.paired_precision), int(spec.max_games)
    if spec.precision is not None:
        return float(spec.precision), int(spec.max_games)
    n = int(spec.games) if spec.max_games is None else min(int(spec.games), int(spec.max_games))
    return None, n


class _State:
    """``adapt/state.json``: the keep checks' winner counts per chunk and every finished
    adaptation, written atomically (at most every 2 s while games are played)."""

    def __init__(self, root: Path):
        self.path = root / STATE
        try:
            self.d = json.loads(self.path.read_text()) if self.path.is_file() else {}
        except (OSError, ValueError):
            self.d = {}       # unreadable: its work is played again, on the same games
        self.d.setdefault("counts", {})
        self.d.setdefault("adapted", {})
        self._last = 0.0

    def save(self, force: bool = False) -> None:
        from lotr_sim.experiments.store import atomic_write_json
        now = time.monotonic()
        if force or now - self._last > 2.0:
            atomic_write_json(self.path, self.d)
            self._last = now


def _adapt_one(game, spec, point, compiled, be, root: Path, state: _State, start: dict, threads,
               progress: bool, played: list) -> dict:
    """``experiments.adapt.adapt`` on one lever's rules; the result as stored in the state."""
    from lotr_sim.experiments.adapt import adapt
    from lotr_sim.experiments.progress import make_progress
    from lotr_sim.experiments.run import split
    counts = state.d["counts"]
    chunk = int(spec.chunk)
    with make_progress(progress, f"keep checks {point.label}", 3 * int(spec.adapt_check_games)) as bar:

        def wins(pols: Mapping[str, str], first: int, n: int) -> tuple[int, int]:
            pkey = _players_key(pols)
            total, todo = 0, []
            for a, m in split(first, n, chunk):
                key = f"{point.label}|{pkey}|{a}|{m}"
                if key in counts:
                    total += int(counts[key])
                    bar.advance(m)
                else:
                    todo.append((key, a, m))
            if todo:
                keys = {(a, m): key for key, a, m in todo}

                def done(task, cols):
                    nonlocal total
                    w = int(np.count_nonzero(cols["winner"] == 0))
                    counts[keys[(task[1], task[2])]] = w
                    total += w
                    played[0] += task[2]
                    bar.advance(task[2])
                    state.save()
                be.run(game, {0: compiled}, {0: dict(pols)}, spec.seed, [(0, a, m) for _, a, m in todo],
                       ["winner"], done)
            return total, n

        folder = root / _folder_name(point.label)
        res = adapt(game, {**spec.base_sets, **point.sets}, wins, start=start, folder=folder,
                    config=spec.config, seed=spec.seed, generations=spec.adapt_generations,
                    games=spec.adapt_games, check_games=spec.adapt_check_games, first=FRESH_KEEP,
                    threads=threads, progress=progress)
    played[0] += int(res.tune["games_played"])
    out = res.to_dict()
    out["tune"]["folder"] = f"{ADAPT_DIR}/{folder.name}"
    return out


def _kept_players(a: Mapping) -> bool:
    return any(a["kept"].values())


def _figure(game, spec, points_by_label: dict, base_point, compiled: dict, be, root: Path, adapted: dict,
            labels: list[str], progress: bool, played: list) -> dict[str, dict]:
    """The figure of every lever in ``labels`` whose adapted players differ from the default
    ones, played together in batches (module docstring, step 2)."""
    from lotr_sim.experiments.progress import make_progress
    from lotr_sim.experiments.run import iter_split
    from lotr_sim.experiments.sequential import paired_interval
    from lotr_sim.experiments.store import Store
    from lotr_sim.experiments.sweep import PAIRED, _Winners, _round_up, half_width, missing, next_targets
    from lotr_sim.experiments.tally import PairTally
    from lotr_sim.stats import games_for_half_width
    ids = {points_by_label[lab].index: lab for lab in labels if _kept_players(adapted[lab])}
    if not ids:
        return {}
    store = Store(root / "figure")
    store.chunks.mkdir(parents=True, exist_ok=True)
    store.clean_temp()
    goal, cap = figure_goal(spec)
    comp = {BASE: compiled[base_point.index], **{i: compiled[i] for i in ids}}
    pols = {BASE: dict(base_point.policies), **{i: dict(adapted[lab]["players"]) for i, lab in ids.items()}}
    first = cap if goal is None else min(cap, max(_round_up(games_for_half_width(goal) / 8), 100))
    targets = {i: first for i in ids}
    goals = {i: (PAIRED, goal) for i in ids}
    done_upto = {i: 0 for i in [BASE, *ids]}
    counts: dict[int, tuple[int, int, int, int]] = {}
    with make_progress(progress, "after adaptation", first * (len(ids) + 1)) as bar:
        while True:
            want = {BASE: max(targets.values()), **targets}
            bar.set_total(sum(want.values()))
            have = {pt: [(a, n) for a, n, _ in lst] for pt, lst in store.chunk_index().items()}
            tasks = []
            for pt in want:
                for a, n in iter_split(done_upto[pt], want[pt] - done_upto[pt], int(spec.chunk)):
                    parts = missing(FRESH_FIGURE + a, n, have.get(pt, []))
                    bar.advance(n - sum(m for _, m in parts))
                    tasks += [(pt, f, m) for f, m in parts]
            tasks.sort(key=lambda t: (t[1], t[0]))

            def on_done(task, cols):
                store.write_chunk(task[0], task[1], task[2], cols)
                played[0] += task[2]
                bar.advance(task[2])
            be.run(game, comp, pols, spec.seed, tasks, ["game", "winner"], on_done)
            done_upto = dict(want)
            for i in ids:
                pair, k = PairTally(), 0
                base = _Winners(store, BASE, FRESH_FIGURE + targets[i], start=FRESH_FIGURE)
                for _, cols in store.iter_games(i, upto=FRESH_FIGURE + targets[i], columns=["winner"],
                                                start=FRESH_FIGURE):
                    w = cols["winner"]
                    pair.add(w, base.take(w.size))
                    k += int(np.count_nonzero(w == 0))
                counts[i] = (pair.n, k, pair.n10, pair.n01)
            if goal is None:
                break
            nxt = next_targets(goals, targets, counts, cap)
            nxt = {i: nxt[i] for i in ids}
            if nxt == targets:
                break
            targets = nxt
    base_k = 0
    for _, cols in store.iter_games(BASE, upto=FRESH_FIGURE + max(targets.values()), columns=["winner"],
                                    start=FRESH_FIGURE):
        base_k += int(np.count_nonzero(cols["winner"] == 0))
    n_base = max(targets.values())
    out = {}
    for i, lab in ids.items():
        n, k, n10, n01 = counts[i]
        lo, hi = paired_interval(n, n10, n01)
        h = half_width(PAIRED, n, k, n10, n01)
        out[lab] = dict(delta=(n10 - n01) / n, lo=lo, hi=hi, games=n, n10=n10, n01=n01, rate=k / n,
                        base_rate=base_k / n_base, base_games=n_base, half_width=h, goal=goal, max_games=cap,
                        met=bool(goal is not None and h <= goal), first_game=FRESH_FIGURE)
    return out


def adapt_levers(game, spec, points, compiled: dict, results, be, out: Path, *, threads: int | None = None,
                 progress: bool = False, command: str = "sweep") -> dict | None:
    """Adapt the players to the sweep's largest levers and measure the figure (the module
    docstring). Returns the manifest's ``adaptation``: ``levers`` (one entry per lever
    adapted to, largest first: ``label``, ``param``, the ``adapt`` result's ``players``,
    ``kept``, ``checks``, ``first_only`` and ``tune``, and ``figure``, None where no side
    adapted), ``settings`` (the budget), ``played`` (games played in this run: the tunes'
    generations, the keep checks and the figure; not the tunes' final evaluations),
    ``elapsed_s`` and ``note`` (why none was adapted); None when the sweep does not adapt (``adapt_levers``
    0, a skill run). ``compiled`` holds every point's compiled rules by index."""
    labels, note = candidates(game, spec, results, command)
    if not labels and note is None:
        return None
    goal, cap = figure_goal(spec)
    settings = dict(levers=int(spec.adapt_levers), generations=int(spec.adapt_generations),
                    games=int(spec.adapt_games), check_games=int(spec.adapt_check_games), goal=goal,
                    max_games=cap, first_keep=FRESH_KEEP, first_figure=FRESH_FIGURE)
    if not labels:
        return dict(levers=[], settings=settings, played=0, elapsed_s=0.0, note=note)
    from lotr_sim.experiments.store import ensure_writable_dir
    t0 = time.perf_counter()
    root = ensure_writable_dir(Path(out) / ADAPT_DIR)
    state = _State(root)
    by_label = {p.label: p for p in points}
    base = points[0]
    start = {s: base.policies[s] for s in game.sides}
    played = [0]
    try:
        for j, lab in enumerate(labels):
            if lab in state.d["adapted"]:       # finished in an earlier run: never redone
                continue
            if progress:
                print(f"adapting the players to {lab} (lever {j + 1} of {len(labels)}): tune "
                      f"{spec.adapt_generations} generations x {spec.adapt_games} games, keep checks on "
                      f"{spec.adapt_check_games:,} games", file=sys.stderr, flush=True)
            p = by_label[lab]
            a = _adapt_one(game, spec, p, compiled[p.index], be, root, state, start, threads, progress, played)
            state.d["adapted"][lab] = a
            state.save(True)
        figures = _figure(game, spec, by_label, base, compiled, be, root, state.d["adapted"], labels,
                          progress, played)
    except (KeyboardInterrupt, Interrupted):
        state.save(True)
        raise Interrupted(f"interrupted while adapting the players to the largest levers: the finished "
                          f"work is saved in {out}; continue with: lotr-sim sweep --resume {out}") from None
    state.save(True)
    rows = []
    for lab in labels:
        a = state.d["adapted"][lab]
        rows.append(dict(label=lab, param=by_label[lab].varied, players=a["players"], kept=a["kept"],
                         checks=a["checks"], first_only=a["first_only"], tune=a["tune"],
                         figure=figures.get(lab)))
    return dict(levers=rows, settings=settings, played=int(played[0]),
                elapsed_s=round(time.perf_counter() - t0, 3), note=None)
