"""``tune``: search a game's heuristic weights (``games.weights.PolicyTable``) by self-play.

CMA-ES (the ``cma`` package) searches the tunable weights, scaled to [0, 1] by each weight's
range and started from greedy's. Generation ``g`` asks CMA-ES for ``popsize`` candidates and
adds two more: the search distribution's mean and the best weights so far (the incumbent).
Each plays every opponent of the pool (greedy and the incumbent) on each side it tunes, games
``g*games .. g*games+games-1`` of the seed: every candidate plays the same games (common
random numbers), so the ranking within a generation is paired, and each generation plays
fresh games, so the weights are not fitted to one set of deals. A candidate's score is the
mean, over opponents and sides, of its side's share of games won (draws count half).
After the generation the mean replaces the incumbent when it scored more against the pool's
fixed opponents (every one but ``best``; greedy alone in the default pool) on the same games.

The scope can be narrowed: ``sides`` tunes one side's weights while the others keep those of
a ``start`` player (``--sides good --start tuned`` improves Good on top of the shipped
weights), and ``opponents`` replaces the pool (``--opponents greedy,tuned``: fixed opponents,
``best`` standing for the incumbent), optionally weighted (``opponent_weights``, one per
fixed opponent: a candidate's score is then the weighted mean over them, as a mixed
strategy's payoff; ``tune --rounds --against nash`` tunes against an equilibrium mixture this
way). Tuning the sides one at a time gives each side's
weights their own signal: scored together, a side whose weights gain little is lost in the
other side's noise (measured in LOTR Risk: docs/players.md, "Tuned players").

The candidates play as inline-weight players (``weights:SIDE=...``), so the local threads
and the Dask backends run them like any other player, and a result is bit-identical
whatever the backend or thread count. After every generation the state (CMA-ES with its own
random generator, the incumbent, the history) is written atomically to ``state.pkl``: a
killed run resumed with ``--resume DIR`` continues from the last finished generation and
ends with the same weights as an uninterrupted run. The result is ``tuned.toml`` (the
incumbent, with provenance: seed, generations, games, its final score against greedy with
Wilson intervals, the rules hash) which ``--policy SIDE=tuned:FILE`` reads; copied to
``configs/tuned/<game>.toml`` it becomes the built-in player ``tuned``.
"""
from __future__ import annotations

import contextlib
import json
import pickle
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim._result import Result
from lotr_sim.errors import Interrupted, LotrSimError
from lotr_sim.experiments.backends import make_backend
from lotr_sim.experiments.progress import make_progress, warm_up
from lotr_sim.experiments.run import check_count, iter_split
from lotr_sim.experiments.store import (atomic_write_bytes, atomic_write_json, ensure_writable_dir,
                                        folder_lock, machine_info, now_iso, refuse_other_output)
from lotr_sim.stats import wilson

STATE = "state.pkl"
RESULT = "tuned.toml"


class _Randn:
    """CMA-ES's normal draws from its own generator (picklable with the strategy), so a
    resumed run draws what an uninterrupted one would have."""

    def __init__(self, seed: int):
        self.gen = np.random.default_rng([int(seed), 0x7475_6E65])

    def __call__(self, *shape: int) -> np.ndarray:
        return self.gen.standard_normal(shape)


@dataclass(frozen=True)
class TuneResult(Result):
    """What ``tune`` returns: the best weights, the file written, the history and the final
    evaluation against greedy.

    Attributes
    ----------
    rows : dict of str to numpy.ndarray
        The best weights, one row per side.
    name : str
        The weights as a player name (``tuned:...``, inline).
    out : Path
        The tune's folder.
    path : Path
        ``tuned.toml`` (weights with provenance): ``policies={"good": f"tuned:{path}"}`` plays it.
    history : list of dict
        One entry per generation.
    final : dict
        The best weights against greedy on every side on fresh games (rates with intervals;
        ``worse`` lists where they did worse than greedy or the start).
    manifest : dict
        ``manifest.json`` of the tune.
    tuned_sides : tuple of str
        The sides whose weights were tuned.
    played_sides : tuple of str
        The sides that play the tuned rows (all, when the sides share one row).
    start : str
        The player whose weights the tune started from.
    """

    rows: dict[str, np.ndarray]
    name: str
    out: Path
    path: Path
    history: list[dict]
    final: dict[str, Any]
    manifest: dict[str, Any] = field(default_factory=dict)
    tuned_sides: tuple[str, ...] = ()
    played_sides: tuple[str, ...] = ()
    start: str = "greedy"

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: ``out``, ``file``, ``player`` (``tuned:FILE``), ``tuned_sides``,
        ``start``, ``worse``, ``final`` and ``history`` (the CLI's ``--json`` adds the weights
        described by name and the ``--policy`` arguments that play them)."""
        return dict(out=str(self.out), file=str(self.path), player=f"tuned:{self.path}",
                    tuned_sides=list(self.tuned_sides), start=self.start,
                    worse=self.final.get("worse", {}), final=self.final, history=self.history)


def _scale(table, sides):
    slots = table.slots(sides)
    lo = np.array([w.lo for _, w in slots])
    hi = np.array([w.hi for _, w in slots])
    return lo, hi


def _score_games(game, be, compiled, seed: int, first: int, n: int, players: Sequence[str],
                 opponents: Sequence[str], sides: Sequence[str], chunk: int, bar) -> np.ndarray:
    """score[i, j, k]: player i's share of games won (draws half) against opponent j, on
    side k, games ``first .. first+n-1``."""
    draw = game.outcomes.index("draw") if "draw" in game.outcomes else -1
    pts, pols, comp = [], {}, {}
    for i, p in enumerate(players):
        for j, o in enumerate(opponents):
            for k, s in enumerate(sides):
                key = len(pts)
                pts.append((i, j, k))
                pol = {x: o for x in game.sides}
                pol[s] = p
                pols[key] = pol
                comp[key] = compiled
    won = np.zeros((len(players), len(opponents), len(sides)))
    tasks = [(key, a, m) for key in range(len(pts)) for a, m in iter_split(first, n, chunk)]

    def on_done(task, cols):
        i, j, k = pts[task[0]]
        w = cols["winner"]
        side = game.sides.index(sides[k])
        won[i, j, k] += float(np.sum(w == side)) + 0.5 * float(np.sum(w == draw) if draw >= 0 else 0.0)
        bar.advance(task[2])

    be.run(game, comp, pols, seed, tasks, ["winner"], on_done)
    return won / n


def final_evaluation(game, compiled, name: str, seed: int, first: int, n: int, be, chunk: int,
                     progress: bool = False, start: str | None = None,
                     judged: Sequence[str] | None = None) -> dict[str, Any]:
    """``name`` against greedy on every side, games ``first .. first+n-1`` (fresh ones, not
    used while tuning): per side its win share with a Wilson 95% interval, greedy's own share
    on that side in the same games (greedy v greedy) and, when the tune started from another
    player, that ``start`` player's share too (``start_rate``; greedy's otherwise).

    ``worse`` names, for each side in ``judged`` (the sides whose weights were tuned), the
    players on those same games that did better than the tuned weights: ``greedy`` and/or the
    start player. A short tune can write weights that lose to where it started."""
    sides = list(game.sides)
    base = game.policy_table.base if game.policy_table is not None else "greedy"
    start = start or base
    players = [name, "greedy"] + ([start] if start != "greedy" else [])
    with make_progress(progress, f"final {game.name}", len(players) * n * len(sides)) as bar:
        sc = _score_games(game, be, compiled, seed, first, n, players, ["greedy"], sides, chunk, bar)
    out: dict[str, Any] = {"games_per_side": int(n), "first_game": int(first), "start": start}
    for k, s in enumerate(sides):
        k_won = int(round(sc[0, 0, k] * n))
        lo, hi = wilson(k_won, n)
        out[s] = {"rate": float(sc[0, 0, k]), "lo": float(lo), "hi": float(hi),
                  "greedy_rate": float(sc[1, 0, k]), "start_rate": float(sc[-1, 0, k])}
    out["mean_gain"] = float(np.mean([out[s]["rate"] - out[s]["greedy_rate"] for s in sides]))
    worse: dict[str, list[str]] = {}
    for s in (judged if judged is not None else sides):
        refs = [("greedy", out[s]["greedy_rate"])] + ([(start, out[s]["start_rate"])] if start != "greedy" else [])
        below = [who for who, rate in refs if out[s]["rate"] < rate]
        if below:
            worse[s] = below
    out["worse"] = worse
    return out


def tune(game, config: str | None = None, sets: Sequence[str] | Mapping[str, Any] | None = None,
         seed: int = 1, generations: int = 30, games: int = 400, popsize: int | None = None,
         sigma: float = 0.2, final_games: int = 2000, threads: int | None = None,
         scheduler: str | None = None, cluster: str | None = None, workers: int | None = None,
         out: str | Path | None = None, resume: str | Path | None = None, progress: bool = False,
         chunk: int = 2000, sides: Sequence[str] | None = None, start: str | None = None,
         opponents: Sequence[str] | None = None,
         opponent_weights: Sequence[float] | None = None) -> TuneResult:
    """Tune ``game``'s heuristic weights by CMA-ES self-play (see the module docstring) and
    write ``tuned.toml`` into ``out`` (default ``reports/<game>/tune-<timestamp>/``).

    ``sides`` tunes only those sides' weights (default: every side), and the candidates play
    only those sides; ``start`` is the player whose weights the search starts from and the
    other sides keep (default greedy; e.g. ``"tuned"`` to improve one side of the shipped
    weights); ``opponents`` is the pool each candidate meets (default ``("greedy", "best")``:
    greedy and the best weights so far; the first must be a fixed player, it decides when the
    search's mean replaces the best); ``opponent_weights`` weighs a pool of fixed opponents
    (one non-negative weight each, not all 0; no ``best`` in the pool)."""
    with contextlib.ExitStack() as stack:     # holds the output folder (folder_lock) to the end
        return _tune(stack, game, config=config, sets=sets, seed=seed, generations=generations, games=games,
                     popsize=popsize, sigma=sigma, final_games=final_games, threads=threads,
                     scheduler=scheduler, cluster=cluster, workers=workers, out=out, resume=resume,
                     progress=progress, chunk=chunk, sides=sides, start=start, opponents=opponents,
                     opponent_weights=opponent_weights)


def _tune(stack: contextlib.ExitStack, game, config, sets, seed, generations, games, popsize, sigma, final_games,
          threads, scheduler, cluster, workers, out, resume, progress, chunk, sides, start,
          opponents, opponent_weights) -> TuneResult:
    """``tune``, the output folder held in ``stack`` (``folder_lock``) from the moment it is known."""
    try:
        import cma
    except ImportError:  # pragma: no cover - a dependency of the package
        raise LotrSimError("lotr-sim tune needs the 'cma' package (pip install cma)") from None
    from lotr_sim import __version__
    from lotr_sim.kernels.rng import check_seed

    table = game.policy_table
    if table is None:
        raise LotrSimError(f"game '{game.name}' has no tunable heuristic weights")
    if resume is not None:
        outp = Path(resume)
        if not (outp / STATE).is_file():
            refuse_other_output(outp, "tune", "--resume")
            raise LotrSimError(f"{outp} holds no tune run to resume (no {STATE})")
        stack.enter_context(folder_lock(outp, "tune"))
        with open(outp / STATE, "rb") as f:
            st = pickle.load(f)
        man = st["manifest"]
        if man.get("game") != game.name:
            raise LotrSimError(f"{outp} is a tune run of '{man.get('game')}', not '{game.name}'")
        a = man["args"]
        config, sets, seed, generations, games = a["config"], a["sets"], a["seed"], a["generations"], a["games"]
        final_games, chunk = a["final_games"], a["chunk"]
        sides, start, opponents = a.get("sides"), a.get("start"), a.get("opponents")
        opponent_weights = a.get("opponent_weights")
    else:
        check_seed(seed)
        generations = check_count("--generations", generations, 1, 10_000)
        games = check_count("--games", games, 10)
        final_games = check_count("--final-games", final_games, 10)
        if popsize is not None:
            popsize = check_count("--popsize", popsize, 2, 1000)
        if not (isinstance(sigma, (int, float)) and 0.0 < float(sigma) <= 1.0):
            raise LotrSimError(f"--sigma must lie in (0, 1] (a share of each weight's range), got {sigma}")
        outp = Path(out) if out is not None else (
            Path("reports") / game.name / ("tune-" + datetime.now().strftime("%Y%m%d-%H%M%S")))
        refuse_other_output(outp, "tune")
        _refuse_finished_tune(outp)
        st = None
    sides, start, pool = _check_scope(game, table, sides, start, opponents)
    pool_w = _pool_weights(pool, opponent_weights)
    play_sides = game.sides if table.tie_sides else sides
    cfg = game.load(config, sets)
    compiled = game.compile(cfg)
    start_rows = table.rows(start)
    lo, hi = _scale(table, sides)
    base = table.vector(start_rows, sides)

    def rows_of(u: np.ndarray) -> dict[str, np.ndarray]:
        return table.from_vector(lo + np.clip(u, 0.0, 1.0) * (hi - lo), sides, start_rows)

    def name_of(u: np.ndarray) -> str:
        return table.inline_name(rows_of(u))

    if st is None:
        ensure_writable_dir(outp)
        stack.enter_context(folder_lock(outp, "tune"))
        _refuse_finished_tune(outp)     # again: another tune there may have saved meanwhile
        u0 = (base - lo) / (hi - lo)
        opts = {"bounds": [0.0, 1.0], "seed": int(seed) % (2 ** 31 - 1) or 1, "randn": _Randn(seed),
                "verbose": -9, "tolfun": 0.0, "tolx": 1e-6}
        if popsize is not None:
            opts["popsize"] = int(popsize)
        es = cma.CMAEvolutionStrategy(list(u0), float(sigma), opts)
        man = dict(format=1, kind="tune", game=game.name, package_version=__version__,
                   rules_hash=cfg.hash, params=cfg.params, started=now_iso(), machine=machine_info(),
                   args=dict(config=config, sets=list(sets) if isinstance(sets, (list, tuple)) else sets,
                             seed=int(seed), generations=int(generations), games=int(games),
                             popsize=int(es.popsize), sigma=float(sigma), final_games=int(final_games),
                             chunk=int(chunk), sides=list(sides), start=start, opponents=list(pool),
                             **({} if opponent_weights is None else dict(opponent_weights=list(pool_w)))),
                   weights=[f"{s}.{w.name}" for s, w in table.slots(sides)], status="running")
        st = dict(es=es, best=u0, history=[], manifest=man, gen=0)
    es = st["es"]
    n_players = int(es.popsize) + 2
    per_gen = n_players * len(pool) * len(play_sides) * games     # at most: the whole pool
    todo = generations - st["gen"]
    t0 = time.perf_counter()
    played = 0
    try:
        with make_backend(threads, scheduler, cluster, workers) as be:
            warm_up(game, compiled, {s: table.base for s in game.sides}, seed, progress)
            with make_progress(progress, f"tune {game.name}", todo * per_gen) as bar:
                while st["gen"] < generations:
                    g = st["gen"]
                    cands = [np.asarray(x) for x in es.ask()]
                    mean = np.asarray(es.mean)
                    players = [name_of(u) for u in cands] + [name_of(mean), name_of(st["best"])]
                    # "best": the incumbent, unless it is still the pool's fixed first opponent
                    opponents, fixed, fw = [], [], []
                    for o, w in zip(pool, pool_w):
                        if o != "best":
                            fixed.append(len(opponents))
                            fw.append(w)
                            opponents.append(o)
                        elif players[-1] != table.inline_name(table.rows(pool[0])):
                            opponents.append(players[-1])
                    fw = np.asarray(fw) / np.sum(fw)
                    # every tuned side plays, both when the sides share one tuned row (tie_sides)
                    sc = _score_games(game, be, compiled, seed, g * games, games, players, opponents,
                                      play_sides, chunk, bar)
                    n_gen = len(players) * len(opponents) * len(play_sides) * games
                    bar.advance(per_gen - n_gen)      # a generation with one opponent ends early
                    played += n_gen
                    st["games_played"] = st.get("games_played", 0) + n_gen
                    # the fixed opponents' weighted mean decides when the mean replaces the best
                    v_fixed = sc[:, fixed, :].mean(axis=2) @ fw
                    score = v_fixed if len(fixed) == len(opponents) else sc.mean(axis=(1, 2))
                    es.tell([list(u) for u in cands], [-float(v) for v in score[:-2]])
                    replaced = bool(v_fixed[-2] > v_fixed[-1])
                    if replaced:
                        st["best"] = mean.copy()
                    st["history"].append(dict(
                        generation=g + 1, first_game=g * games, games=games,
                        best_candidate=float(score[:-2].max()), mean_candidates=float(score[:-2].mean()),
                        mean_v_fixed=float(v_fixed[-2]), best_v_fixed=float(v_fixed[-1]),
                        best_replaced=replaced, sigma=float(es.sigma), best=name_of(st["best"])))
                    st["gen"] = g + 1
                    st["manifest"]["generations_done"] = g + 1
                    atomic_write_bytes(outp / STATE, pickle.dumps(st))
                    _write_history(outp, st["history"])
            best = rows_of(st["best"])
            name = table.inline_name(best)
            final = final_evaluation(game, compiled, name, seed, generations * games, final_games, be,
                                     chunk, progress, start=start, judged=play_sides)
    except KeyboardInterrupt:
        st["manifest"]["status"] = "interrupted"
        atomic_write_json(outp / "manifest.json", st["manifest"])
        raise Interrupted(f"interrupted: {st['gen']} finished generations are saved in {outp}; "
                          f"continue with: lotr-sim tune --game {game.name} --resume {outp}") from None
    man = st["manifest"]
    man.update(status="finished", finished=now_iso(), final=final,
               last_run=dict(games_played=int(played), elapsed_s=round(time.perf_counter() - t0, 3)))
    n_final = 2 if final["start"] == "greedy" else 3
    games_total = st["games_played"] + n_final * final_games * len(game.sides)
    prov = dict(seed=int(seed), generations=int(generations), games_per_match=int(games),
                popsize=int(es.popsize), games=int(games_total), opponents=_pool_text(pool),
                tuned_sides=list(sides), start=start,
                score_v_greedy=round(final["mean_gain"], 5),
                **{f"{s}_v_greedy": round(final[s]["rate"], 5) for s in game.sides},
                **{f"{s}_greedy_v_greedy": round(final[s]["greedy_rate"], 5) for s in game.sides},
                **({f"{s}_start_v_greedy": round(final[s]["start_rate"], 5) for s in game.sides}
                   if final["start"] != "greedy" else {}),
                final_games_per_side=int(final_games), date=now_iso()[:10], package_version=__version__)
    path = table.write(outp / RESULT, best, cfg.hash, prov)
    atomic_write_json(outp / "manifest.json", man)
    atomic_write_bytes(outp / STATE, pickle.dumps(st))
    return TuneResult(rows=best, name=name, out=outp, path=path, history=list(st["history"]),
                      final=final, manifest=man, tuned_sides=tuple(sides), played_sides=tuple(play_sides),
                      start=start)


def _refuse_finished_tune(outp: Path) -> None:
    """A new tune's output folder must not hold a tune run already (its state or result)."""
    if (outp / STATE).exists() or (outp / RESULT).exists():
        raise LotrSimError(f"output folder {outp} already holds a tune run; use --resume {outp} "
                           f"to continue it or choose another --out")


def _check_scope(game, table, sides, start, opponents) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """The sides to tune, the start player and the opponent pool, checked: one LotrSimError
    line naming what is wrong."""
    if sides:
        sides = tuple(dict.fromkeys(str(s) for s in sides))
        bad = [s for s in sides if s not in table.sides]
        if bad:
            raise LotrSimError(f"--sides: no side '{bad[0]}' in {game.name} (sides: {', '.join(table.sides)})")
        if table.tie_sides and sides != table.tuned_sides:
            raise LotrSimError(f"--sides: {game.name}'s sides play one role and share one tuned row; "
                               "tune them together (leave --sides out)")
        sides = tuple(s for s in table.sides if s in sides)   # the table's order
    else:
        sides = table.tuned_sides
    start = str(start or table.base)
    if not table.knows(start):
        raise LotrSimError(f"--start: '{start}' is not a player {game.name}'s engine plays "
                           f"(one of {', '.join(table.names)}, tuned:FILE or weights:...)")
    table.check(start)
    pool = tuple(str(o) for o in (opponents or ("greedy", "best")))
    if not pool or pool[0] == "best":
        raise LotrSimError("--opponents: the first opponent must be a fixed player (e.g. greedy); "
                           "it decides when the search's mean replaces the best weights")
    for o in pool:
        if o != "best" and not table.knows(o):
            raise LotrSimError(f"--opponents: '{o}' is not a player {game.name}'s engine plays "
                               f"(one of {', '.join(table.names)}, tuned:FILE, weights:... or best)")
        if o != "best":
            table.check(o)
    return sides, start, pool


def _pool_weights(pool: Sequence[str], weights: Sequence[float] | None) -> np.ndarray:
    """Each pool entry's weight (1 each by default), checked: one per opponent, non-negative,
    not all 0, and only for a pool of fixed players (``best`` changes every generation)."""
    if weights is None:
        return np.ones(len(pool))
    w = np.asarray([float(x) for x in weights])
    if len(w) != len(pool):
        raise LotrSimError(f"opponent weights: {len(w)} for {len(pool)} opponents")
    if "best" in pool:
        raise LotrSimError("opponent weights weigh fixed opponents only: leave 'best' out of the pool")
    if not np.all(np.isfinite(w)) or (w < 0).any() or w.sum() <= 0:
        raise LotrSimError("opponent weights must be non-negative and not all 0")
    return w


def _pool_text(pool: Sequence[str]) -> str:
    names = ["the best so far" if o == "best" else o for o in pool]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _write_history(outp: Path, history: list[dict]) -> None:
    lines = "".join(json.dumps(h) + "\n" for h in history)
    atomic_write_bytes(outp / "history.jsonl", lines.encode())
