"""``tune --rounds``: fictitious play inside the weight family, and each side's least
exploitable member.

One tune (``experiments.tune``) with a fixed opponent is a best response inside the weight
family. Alternating such answers need not settle: a Good tuned against one Evil exploits it,
the next Evil exploits that Good, and the last pair says more about the order of the tunes
than about the game. Fictitious play tunes each side in turn against *every* weights the
other side has had so far (the tune's opponent pool, scored as the mean), so each new member
has to hold against the whole population, not only its latest rival.

After ``rounds`` rounds (a round tunes the first side, then the second), every member of
the first side plays every member of the second on the same fresh games (common random
numbers), games ``matrix_first .. matrix_first+matrix_games-1``: the payoff matrix, the
first side's share of games won (draws half). Each side's pick is its maximin member: the
first side's row whose worst score is highest, the second side's column whose worst (the
first side's best) is lowest. Reported with it: the matrix's zero-sum value and optimal
mixtures (a linear programme), and the picked pair's exploitability inside the population
(how much the other side's best member gains against each pick, in points).

Two-sided games with one tuned row per side (Minas Tirith, The Search). Each tune runs in its
own subfolder, ``round<k>-<side>``; a killed run resumed with ``resume`` reads every finished
tune's ``tuned.toml``, resumes the unfinished one and goes on, so it ends where an
uninterrupted run would.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim._result import Result
from lotr_sim.errors import Interrupted, LotrSimError
from lotr_sim.experiments.backends import make_backend
from lotr_sim.experiments.progress import make_progress
from lotr_sim.experiments.run import check_count
from lotr_sim.experiments.store import (atomic_write_json, ensure_writable_dir, folder_lock, now_iso,
                                        read_manifest_file, refuse_other_output)
from lotr_sim.experiments.tune import RESULT, STATE, _score_games, tune

MANIFEST = "population.json"
#: The payoff matrix's games start here, far from the tunes' own games (0 .. generations*games).
MATRIX_FIRST = 7_000_000


@dataclass(frozen=True)
class PopulationResult(Result):
    """What ``fictitious_play`` returns.

    Attributes
    ----------
    sides : tuple of str
        The two sides, in the table's order; the matrix holds the first side's score.
    members : dict of str to list of numpy.ndarray
        Each side's population: the start's row, then one row per round.
    matrix : numpy.ndarray
        ``matrix[i, j]``: the first side's share of games won (draws half) with its member
        ``i`` against the second side's member ``j``, on the same ``matrix_games`` games.
    pick : dict of str to int
        Each side's maximin member (its index in ``members``).
    rows : dict of str to numpy.ndarray
        The picked pair's rows; ``name`` plays them and ``path`` (``tuned.toml``) holds them.
    name : str
        The picked pair as an inline player name (``weights:...``).
    path : Path
        ``tuned.toml`` of the picked pair, with provenance.
    value : float
        The zero-sum value of the matrix (the first side's score under optimal mixtures).
    mixtures : dict of str to numpy.ndarray
        Each side's optimal mixture over its members.
    exploit : dict of str to float
        Points the side's best member gains over its pick against the other side's pick.
    matrix_games : int
        Games per cell of the matrix.
    out : Path
        The run's folder.
    """

    sides: tuple[str, str]
    members: dict[str, list[np.ndarray]]
    matrix: np.ndarray
    pick: dict[str, int]
    rows: dict[str, np.ndarray]
    name: str
    path: Path
    value: float
    mixtures: dict[str, np.ndarray]
    exploit: dict[str, float]
    matrix_games: int
    out: Path
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """The first side's score with the picked pair."""
        return float(self.matrix[self.pick[self.sides[0]], self.pick[self.sides[1]]])

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the matrix, picks, value, mixtures and exploitability."""
        return dict(out=str(self.out), file=str(self.path), player=f"tuned:{self.path}",
                    sides=list(self.sides), matrix=self.matrix.tolist(), pick=dict(self.pick),
                    score=self.score, value=self.value,
                    mixtures={s: m.tolist() for s, m in self.mixtures.items()},
                    exploit=dict(self.exploit), matrix_games=self.matrix_games)


def zero_sum(matrix: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The value of the zero-sum game whose row player maximises ``matrix`` and both optimal
    mixtures (row player's, column player's), by linear programming."""
    from scipy.optimize import linprog
    m = np.asarray(matrix, dtype=float)
    r, c = m.shape
    # rows: max v s.t. x^T m[:, j] >= v for every j, sum x = 1, x >= 0
    a = linprog(np.r_[np.zeros(r), -1.0], A_ub=np.c_[-m.T, np.ones(c)], b_ub=np.zeros(c),
                A_eq=np.r_[np.ones(r), 0.0][None], b_eq=[1.0],
                bounds=[(0, None)] * r + [(None, None)], method="highs")
    b = linprog(np.r_[np.zeros(c), 1.0], A_ub=np.c_[m, -np.ones(r)], b_ub=np.zeros(r),
                A_eq=np.r_[np.ones(c), 0.0][None], b_eq=[1.0],
                bounds=[(0, None)] * c + [(None, None)], method="highs")
    if not (a.success and b.success):      # pragma: no cover - a finite matrix always has a value
        raise LotrSimError("the payoff matrix's zero-sum solution failed: " + (a.message or b.message))
    x = np.clip(a.x[:r], 0.0, None)
    y = np.clip(b.x[:c], 0.0, None)
    return float(-a.fun), x / x.sum(), y / y.sum()


def maximin(matrix: np.ndarray) -> tuple[int, int]:
    """The row whose worst entry is highest and the column whose highest entry is lowest
    (ties: the later member, the one tuned against more of the population)."""
    m = np.asarray(matrix, dtype=float)
    worst_row = m.min(axis=1)
    worst_col = m.max(axis=0)
    i = int(len(worst_row) - 1 - np.argmax(worst_row[::-1]))
    j = int(len(worst_col) - 1 - np.argmin(worst_col[::-1]))
    return i, j


def fictitious_play(game, rounds: int = 4, seed: int = 1, generations: int = 8, games: int = 200,
                    matrix_games: int = 4000, start: str | None = None, popsize: int | None = None,
                    sigma: float = 0.2, config: str | None = None,
                    sets: Sequence[str] | Mapping[str, Any] | None = None, threads: int | None = None,
                    out: str | Path | None = None, resume: str | Path | None = None,
                    scheduler: str | None = None, cluster: str | None = None, workers: int | None = None,
                    progress: bool = False, chunk: int = 2000) -> PopulationResult:
    """Fictitious play in ``game``'s weight family (see the module docstring): ``rounds``
    rounds of one tune per side (``generations`` generations of ``games`` paired games a
    candidate and opponent), started from ``start``'s weights (default the table's base
    player), then the payoff matrix on ``matrix_games`` games a cell, and the maximin pair
    written as ``tuned.toml`` into ``out``."""
    from datetime import datetime

    from lotr_sim import __version__
    from lotr_sim.kernels.rng import check_seed

    table = game.policy_table
    if table is None:
        raise LotrSimError(f"game '{game.name}' has no tunable heuristic weights")
    if len(table.sides) != 2 or table.tie_sides:
        raise LotrSimError(f"--rounds (fictitious play) needs a game with two sides that each have their own "
                           f"weights; {game.name} has {', '.join(table.sides)}")
    with contextlib.ExitStack() as stack:
        if resume is not None:
            outp = Path(resume)
            if not (outp / MANIFEST).is_file():
                refuse_other_output(outp, "tune", "--resume")
                raise LotrSimError(f"{outp} holds no fictitious-play run to resume (no {MANIFEST})")
            stack.enter_context(folder_lock(outp, "tune"))
            man = read_manifest_file(outp / MANIFEST)
            if man.get("game") != game.name:
                raise LotrSimError(f"{outp} is a run of '{man.get('game')}', not '{game.name}'")
            a = man["args"]
            rounds, seed, generations, games = a["rounds"], a["seed"], a["generations"], a["games"]
            matrix_games, start, popsize, sigma = a["matrix_games"], a["start"], a["popsize"], a["sigma"]
            config, sets, chunk = a["config"], a["sets"], a["chunk"]
        else:
            check_seed(seed)
            rounds = check_count("--rounds", rounds, 1, 100)
            generations = check_count("--generations", generations, 1, 10_000)
            games = check_count("--games", games, 10)
            matrix_games = check_count("--final-games", matrix_games, 10)
            start = str(start or table.base)
            if not table.knows(start):
                raise LotrSimError(f"--start: '{start}' is not a player {game.name}'s engine plays "
                                   f"(one of {', '.join(table.names)}, tuned:FILE or weights:...)")
            table.check(start)
            outp = Path(out) if out is not None else (
                Path("reports") / game.name / ("population-" + datetime.now().strftime("%Y%m%d-%H%M%S")))
            refuse_other_output(outp, "tune")
            if (outp / MANIFEST).exists():
                raise LotrSimError(f"output folder {outp} already holds a fictitious-play run; use --resume "
                                   f"{outp} to continue it or choose another --out")
            ensure_writable_dir(outp)
            stack.enter_context(folder_lock(outp, "tune"))
            cfg = game.load(config, sets)
            man = dict(format=1, kind="population", game=game.name, package_version=__version__,
                       rules_hash=cfg.hash, params=cfg.params, started=now_iso(), status="running",
                       args=dict(rounds=int(rounds), seed=int(seed), generations=int(generations),
                                 games=int(games), matrix_games=int(matrix_games), start=start,
                                 popsize=None if popsize is None else int(popsize), sigma=float(sigma),
                                 config=config, chunk=int(chunk),
                                 sets=list(sets) if isinstance(sets, (list, tuple)) else sets))
            atomic_write_json(outp / MANIFEST, man)
        s0, s1 = table.sides
        start_rows = table.rows(start)
        members: dict[str, list[np.ndarray]] = {s: [start_rows[s].copy()] for s in (s0, s1)}

        def member(side: str, i: int) -> str:
            return table.inline_name({side: members[side][i]}, sides=[side])

        t0 = time.perf_counter()
        tune_games = 0
        try:
            for k in range(rounds):
                for side, other in ((s0, s1), (s1, s0)):
                    sub = outp / f"round{k + 1}-{side}"
                    pair = {side: members[side][-1], other: members[other][-1]}
                    opp = [table.inline_name({side: members[side][-1], other: r}) for r in members[other]]
                    if not (sub / RESULT).is_file():
                        kw = dict(resume=sub) if (sub / STATE).is_file() else dict(
                            out=sub, seed=int(seed) + 1000 * k + (0 if side == s0 else 500),
                            generations=generations, games=games, popsize=popsize, sigma=sigma,
                            final_games=max(10, min(games, 200)), sides=[side],
                            start=table.inline_name(pair), opponents=opp, config=config, sets=sets)
                        if progress:
                            print(f"round {k + 1} of {rounds}: {side} against {len(opp)} "
                                  f"{other} weights", flush=True)
                        tune(game, threads=threads, scheduler=scheduler, cluster=cluster, workers=workers,
                             progress=progress, chunk=chunk, **kw)
                    # the file's rows, as a resumed run reads them
                    tw = table.read(sub / RESULT)
                    rows = tw.rows
                    tune_games += int(tw.provenance.get("games", 0))
                    members[side].append(np.asarray(rows[side], dtype=float).copy())
            cfg = game.load(config, sets)
            compiled = game.compile(cfg)
            n0, n1 = len(members[s0]), len(members[s1])
            with make_backend(threads, scheduler, cluster, workers) as be:
                with make_progress(progress, f"matrix {game.name}", n0 * n1 * matrix_games) as bar:
                    sc = _score_games(game, be, compiled, seed, MATRIX_FIRST, matrix_games,
                                      [member(s0, i) for i in range(n0)], [member(s1, j) for j in range(n1)],
                                      [s0], chunk, bar)
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted: every finished tune is saved in {outp}; continue with: "
                              f"lotr-sim tune --game {game.name} --resume {outp}") from None
        matrix = sc[:, :, 0]
        value, x, y = zero_sum(matrix)
        i, j = maximin(matrix)
        exploit = {s0: float(100 * (matrix[:, j].max() - matrix[i, j])),
                   s1: float(100 * (matrix[i, j] - matrix[i, :].min()))}
        rows = {s0: members[s0][i], s1: members[s1][j]}
        prov = dict(method="fictitious play inside the weight family, then each side's maximin member",
                    seed=int(seed), rounds=int(rounds), generations=int(generations), games_per_match=int(games),
                    start=start, matrix_games=int(matrix_games),
                    games=int(tune_games + n0 * n1 * matrix_games), pick=f"{s0} {i}, {s1} {j}",
                    **{f"{s0}_score": round(float(matrix[i, j]), 5)},
                    value=round(value, 5), **{f"{s}_exploit_in_population": round(exploit[s], 2) for s in (s0, s1)},
                    date=now_iso()[:10], package_version=__version__)
        path = table.write(outp / RESULT, rows, cfg.hash, prov, by="lotr-sim tune --rounds")
        man.update(status="finished", finished=now_iso(), matrix=matrix.tolist(), pick={s0: i, s1: j},
                   value=value, mixtures={s0: x.tolist(), s1: y.tolist()}, exploit=exploit,
                   members={s: [r.tolist() for r in v] for s, v in members.items()},
                   last_run=dict(elapsed_s=round(time.perf_counter() - t0, 3)))
        atomic_write_json(outp / MANIFEST, man)
        return PopulationResult(sides=(s0, s1), members=members, matrix=matrix, pick={s0: i, s1: j}, rows=rows,
                                name=table.inline_name(rows), path=path, value=value,
                                mixtures={s0: x, s1: y}, exploit=exploit, matrix_games=int(matrix_games),
                                out=outp, manifest=man)
