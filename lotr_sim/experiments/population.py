"""``tune --rounds``: fictitious play inside the weight family, and each side's least
exploitable member.

One tune (``experiments.tune``) with a fixed opponent is a best response inside the weight
family. Alternating such answers need not settle: a Good tuned against one Evil exploits it,
the next Evil exploits that Good, and the last pair says more about the order of the tunes
than about the game. Fictitious play tunes each side in turn against *every* weights the
other side has had so far (the tune's opponent pool, scored as the mean), so each new member
has to hold against the whole population, not only its latest rival.

With ``against="nash"`` each tune instead meets the other side's optimal mixture of the
population's payoff matrix so far (its members with weight, scored as the mixture's payoff:
``tune``'s ``opponent_weights``): the double oracle (McMahan, Gordon and Blum 2003; PSRO in
Lanctot et al. 2017). Fictitious play answers the population's uniform average, so an old
member that nobody plays any more weighs as much as the latest; the double oracle answers
what an optimal player of the population would play, so a member that is never in the
equilibrium stops drawing the tunes. Each new member plays every member of the other side on
the matrix's games at once (the cells are the same as the final matrix's: the same games).

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
#: How each round's tune meets the other side's population: every member alike (fictitious
#: play) or the population's equilibrium mixture (the double oracle).
AGAINST = ("all", "nash")
#: A member is in the equilibrium's support when its weight is at least this.
SUPPORT = 1e-3


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
                    progress: bool = False, chunk: int = 2000, against: str = "all") -> PopulationResult:
    """Fictitious play in ``game``'s weight family (see the module docstring): ``rounds``
    rounds of one tune per side (``generations`` generations of ``games`` paired games a
    candidate and opponent), started from ``start``'s weights (default the table's base
    player), each against every member of the other side (``against="all"``) or against the
    other side's equilibrium mixture of the matrix so far (``"nash"``), then the payoff matrix on ``matrix_games`` games a cell, and the maximin pair
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
            against = a.get("against", "all")
        else:
            check_seed(seed)
            if against not in AGAINST:
                raise LotrSimError(f"--against: '{against}' is not one of {', '.join(AGAINST)} (every member "
                                   f"alike, or the population's equilibrium mixture)")
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
                                 config=config, chunk=int(chunk), against=against,
                                 sets=list(sets) if isinstance(sets, (list, tuple)) else sets))
            atomic_write_json(outp / MANIFEST, man)
        s0, s1 = table.sides
        start_rows = table.rows(start)
        members: dict[str, list[np.ndarray]] = {s: [start_rows[s].copy()] for s in (s0, s1)}

        def member(side: str, i: int) -> str:
            return table.inline_name({side: members[side][i]}, sides=[side])

        t0 = time.perf_counter()
        tune_games = 0
        cfg = game.load(config, sets)
        compiled = game.compile(cfg)
        cells = np.zeros((0, 0))

        def extend(cells: np.ndarray) -> np.ndarray:
            """The matrix over every member so far: the cells not played yet, on the matrix's games."""
            n0, n1 = len(members[s0]), len(members[s1])
            h0, h1 = cells.shape
            out_m = np.zeros((n0, n1))
            out_m[:h0, :h1] = cells
            parts = [(range(h0, n0), range(n1)), (range(h0), range(h1, n1))]
            with make_backend(threads, scheduler, cluster, workers) as be:
                todo = sum(len(r) * len(c) for r, c in parts) * matrix_games
                with make_progress(progress and todo > 0, f"matrix {game.name}", todo) as bar:
                    for r, c in parts:
                        if len(r) and len(c):
                            sc = _score_games(game, be, compiled, seed, MATRIX_FIRST, matrix_games,
                                              [member(s0, i) for i in r], [member(s1, j) for j in c],
                                              [s0], chunk, bar)
                            out_m[np.ix_(list(r), list(c))] = sc[:, :, 0]
            return out_m

        try:
            for k in range(rounds):
                for side, other in ((s0, s1), (s1, s0)):
                    sub = outp / f"round{k + 1}-{side}"
                    pair = {side: members[side][-1], other: members[other][-1]}
                    opp = [table.inline_name({side: members[side][-1], other: r}) for r in members[other]]
                    opp_w = None
                    if against == "nash" and not (sub / RESULT).is_file() and not (sub / STATE).is_file():
                        cells = extend(cells)
                        mix = zero_sum(cells)[2 if side == s0 else 1]
                        keep = [i for i in range(len(opp)) if mix[i] >= SUPPORT]
                        opp, opp_w = [opp[i] for i in keep], [float(mix[i]) for i in keep]
                    if not (sub / RESULT).is_file():
                        kw = dict(resume=sub) if (sub / STATE).is_file() else dict(
                            out=sub, seed=int(seed) + 1000 * k + (0 if side == s0 else 500),
                            generations=generations, games=games, popsize=popsize, sigma=sigma,
                            final_games=max(10, min(games, 200)), sides=[side],
                            start=table.inline_name(pair), opponents=opp, opponent_weights=opp_w,
                            config=config, sets=sets)
                        if progress:
                            what = (f"the equilibrium mixture of {len(opp)} {other} weights" if opp_w is not None
                                    else f"{len(opp)} {other} weights")
                            print(f"round {k + 1} of {rounds}: {side} against {what}", flush=True)
                        tune(game, threads=threads, scheduler=scheduler, cluster=cluster, workers=workers,
                             progress=progress, chunk=chunk, **kw)
                    # the file's rows, as a resumed run reads them
                    tw = table.read(sub / RESULT)
                    rows = tw.rows
                    tune_games += int(tw.provenance.get("games", 0))
                    members[side].append(np.asarray(rows[side], dtype=float).copy())
            n0, n1 = len(members[s0]), len(members[s1])
            matrix = extend(cells)
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted: every finished tune is saved in {outp}; continue with: "
                              f"lotr-sim tune --game {game.name} --resume {outp}") from None
        value, x, y = zero_sum(matrix)
        i, j = maximin(matrix)
        exploit = {s0: float(100 * (matrix[:, j].max() - matrix[i, j])),
                   s1: float(100 * (matrix[i, j] - matrix[i, :].min()))}
        rows = {s0: members[s0][i], s1: members[s1][j]}
        method = ("double oracle inside the weight family (each round tunes against the other side's "
                  "equilibrium mixture of the population)" if against == "nash"
                  else "fictitious play inside the weight family")
        prov = dict(method=method + ", then each side's maximin member", against=against,
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
