"""``sweep``: many configurations (points) of one game, paired by common random numbers.

Every point plays games ``0..n-1`` with streams ``(seed, 0..n-1)``. Work is cut into chunks
aligned at multiples of ``spec.chunk`` games; each finished chunk is written atomically to
``chunks/``, so a killed sweep resumed with ``--resume DIR`` re-runs exactly the missing
chunks. With ``precision`` the sweep runs in batches: after each batch, every point whose
Wilson 95% half-width on the first outcome's rate (Good's win rate) is above ``precision``
gets more games (up to ``max_games``). The batch targets are a pure function of the games
already played, so a resumed sweep replays the same decisions and ends with the same result.
"""
from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from lotr_sim.config import config_hash
from lotr_sim.errors import Interrupted, LotrSimError
from lotr_sim.experiments.aggregate import point_row
from lotr_sim.experiments.backends import common_columns, make_backend
from lotr_sim.experiments.progress import make_progress, warm_up
from lotr_sim.experiments.run import split
from lotr_sim.experiments.spec import SweepSpec, build_points
from lotr_sim.experiments.stats import games_for_half_width, wilson_half_width, z_value
from lotr_sim.experiments.store import Store, atomic_write_parquet, ensure_writable_dir, machine_info, now_iso


@dataclass
class SweepResult:
    results: Any            # pandas DataFrame, one row per point
    out: Path
    manifest: dict
    points: list


def default_out(game_name: str) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("reports") / game_name / stamp


def _round_up(x: float, m: int = 100) -> int:
    return int(math.ceil(x / m) * m)


def spec_hash(spec: SweepSpec, cfgs: dict, points) -> str:
    return config_hash(dict(spec=spec.as_dict(),
                            points=[[p.label, cfgs[p.index].hash, p.policies] for p in points]))


def run_sweep(game, spec: SweepSpec | None = None, out: str | Path | None = None,
              threads: int | None = None, scheduler: str | None = None, cluster: str | None = None,
              workers: int | None = None, save_games: bool = False, progress: bool = False,
              resume: str | Path | None = None, report: bool = True,
              connect_timeout: float = 5.0) -> SweepResult:
    from lotr_sim import __version__
    from lotr_sim.kernels.rng import check_seed

    if resume is not None:
        store = Store(Path(resume))
        manifest = store.read_manifest()
        if manifest.get("kind") != "sweep":
            raise LotrSimError(f"resume folder {resume} does not hold a sweep")
        if manifest.get("game") != game.name:
            raise LotrSimError(f"resume folder {resume} holds a sweep of game '{manifest.get('game')}', "
                               f"not '{game.name}'")
        old = SweepSpec.from_dict(manifest["spec"])
        spec = spec or old
    if spec is None:
        raise LotrSimError("no sweep specification")
    if spec.game != game.name:
        raise LotrSimError(f"sweep is for game '{spec.game}', not '{game.name}'")
    try:
        check_seed(spec.seed)
    except ValueError as e:
        raise LotrSimError(str(e)) from None
    if spec.games is None and spec.precision is None:
        raise LotrSimError("give --games N or --precision P")
    if spec.games is not None and spec.games < 1:
        raise LotrSimError(f"--games must be at least 1, got {spec.games}")
    if spec.precision is not None and not (0 < spec.precision < 0.5):
        raise LotrSimError(f"--precision must be in (0, 0.5), got {spec.precision}")
    if spec.chunk < 1:
        raise LotrSimError(f"--chunk must be at least 1, got {spec.chunk}")
    if spec.precision is not None and spec.max_games is None:
        spec.max_games = 4 * games_for_half_width(spec.precision)
    if spec.max_games is not None and spec.max_games < 1:
        raise LotrSimError(f"--max-games must be at least 1, got {spec.max_games}")

    points, cfgs = build_points(game, spec)
    shash = spec_hash(spec, cfgs, points)
    if resume is not None and manifest.get("spec_hash") != shash:
        raise LotrSimError(f"resume folder {resume} was made with another configuration "
                           f"(hash {manifest.get('spec_hash')} there, {shash} now); "
                           f"start a new sweep or resume without changing options")
    if resume is None and out is not None:
        if (Path(out) / "manifest.json").exists():
            raise LotrSimError(f"output folder {out} already holds results; use --resume {out} "
                               f"to continue it or choose another --out")
        ensure_writable_dir(Path(out))
    stack = contextlib.ExitStack()
    be = stack.enter_context(make_backend(threads, scheduler, cluster, workers, connect_timeout))
    with stack:
        return _run(game, spec, points, cfgs, shash, be, out, save_games, progress, resume,
                    manifest if resume is not None else None, report, threads, scheduler, cluster)


def _run(game, spec, points, cfgs, shash, be, out, save_games, progress, resume, manifest, report,
         threads, scheduler, cluster):
    from lotr_sim import __version__

    if resume is not None:
        store = Store(Path(resume))
        outp = store.root
        ensure_writable_dir(outp)
        store.clean_temp()
        # chunk files of one folder all hold the same columns: keep the first run's choice
        save_games = bool(manifest.get("save_games", False))
        manifest["resumed"] = manifest.get("resumed", []) + [now_iso()]
        manifest["status"] = "running"
    else:
        outp = Path(out) if out is not None else default_out(game.name)
        if (outp / "manifest.json").exists():
            raise LotrSimError(f"output folder {outp} already holds results; use --resume {outp} "
                               f"to continue it or choose another --out")
        store = Store(outp)
        store.create()
        manifest = dict(
            format=1, kind="sweep", game=game.name, package_version=__version__,
            spec=spec.as_dict(), spec_hash=shash, seed=spec.seed,
            policies={p.label: p.policies for p in points},
            config=dict(file=spec.config, base_sets=spec.base_sets,
                        hashes={p.label: cfgs[p.index].hash for p in points},
                        params={p.label: cfgs[p.index].params for p in points}),
            points=[p.as_dict() for p in points],
            games=None, started=now_iso(), finished=None, machine=machine_info(), status="running",
            backend=("dask " + (scheduler or f"cluster={cluster}")) if (scheduler or cluster) else "local",
            threads=threads, save_games=bool(save_games), notes=list(game.notes),
        )
    store.chunks.mkdir(parents=True, exist_ok=True)
    store.write_manifest(manifest)

    compiled = {p.index: game.compile(cfgs[p.index]) for p in points}
    pols = {p.index: p.policies for p in points}
    keep = None if save_games else common_columns(game)

    if spec.precision is None:
        targets = {p.index: int(spec.games) for p in points}
        if spec.max_games is not None:
            targets = {k: min(v, spec.max_games) for k, v in targets.items()}
    else:
        first = min(spec.max_games, max(_round_up(games_for_half_width(spec.precision) / 4), 100))
        targets = {p.index: first for p in points}

    warm_up(game, compiled[points[0].index], pols[points[0].index], spec.seed, progress)
    t0 = time.perf_counter()
    played = 0
    with make_progress(progress, f"sweep {game.name}", sum(targets.values())) as bar:
        done_upto = {p.index: 0 for p in points}
        while True:
            tasks = []
            have = {(pt, a, n) for pt, lst in store.chunk_index().items() for a, n, _ in lst}
            for p in points:
                for a, n in split(done_upto[p.index], targets[p.index] - done_upto[p.index], spec.chunk):
                    if (p.index, a, n) in have:
                        bar.advance(n)
                    else:
                        tasks.append((p.index, a, n))
            tasks.sort(key=lambda t: (t[1], t[0]))

            def on_done(task, cols):
                nonlocal played
                store.write_chunk(task[0], task[1], task[2], cols)
                played += task[2]
                bar.advance(task[2])

            try:
                be.run(game, compiled, pols, spec.seed, tasks, keep, on_done)
            except KeyboardInterrupt:
                manifest["status"] = "interrupted"
                store.write_manifest(manifest)
                saved = sum(len(v) for v in store.chunk_index().values())
                raise Interrupted(f"interrupted: {saved} finished chunks are saved in {outp}; "
                                  f"continue with: lotr-sim sweep --resume {outp}") from None
            done_upto = dict(targets)
            if spec.precision is None:
                break
            grow = {}
            for p in points:
                t = targets[p.index]
                if t >= spec.max_games:
                    continue
                w = store.load_games(p.index, upto=t, columns=["game", "winner"])["winner"].to_numpy()
                k = int(np.count_nonzero(w == 0))
                if float(wilson_half_width(k, t)) <= spec.precision:
                    continue
                phat = min(max(k / t, 0.02), 0.98)
                need = z_value() ** 2 * phat * (1 - phat) / spec.precision ** 2
                grow[p.index] = min(spec.max_games, max(_round_up(need * 1.05), _round_up(t * 1.25)))
            if not grow:
                break
            targets.update(grow)
            bar.set_total(sum(targets.values()))
    elapsed = time.perf_counter() - t0

    import pandas as pd
    base = store.load_games(0, upto=targets[0])
    rows = []
    for p in points:
        df = base if p.index == 0 else store.load_games(p.index, upto=targets[p.index])
        if len(df) != targets[p.index]:
            raise LotrSimError(f"point {p.label}: {len(df)} games on disk, expected {targets[p.index]}")
        row = point_row(game, p, df, base)
        row["dims"] = _json_dims(spec, cfgs[p.index], p)
        rows.append(row)
    results = pd.DataFrame(rows)
    atomic_write_parquet(outp / "results.parquet", results)
    if save_games:
        parts = []
        for p in points:
            g = store.load_games(p.index, upto=targets[p.index])
            g.insert(0, "point", p.index)
            parts.append(g)
        atomic_write_parquet(outp / "games.parquet", pd.concat(parts, ignore_index=True))
    total = int(sum(targets.values()))
    manifest.update(games={p.label: targets[p.index] for p in points}, games_total=total,
                    finished=now_iso(), status="complete",
                    outcomes=list(game.outcomes), reasons=list(game.reasons), sides=list(game.sides),
                    last_run=dict(elapsed_s=elapsed, games_played=played,
                                  games_per_second=(played / elapsed) if elapsed > 0 else None))
    store.write_manifest(manifest)
    if report:
        from lotr_sim.reports.build import build_report
        build_report(outp)
    return SweepResult(results=results, out=outp, manifest=manifest, points=points)


def _json_dims(spec: SweepSpec, cfg, point) -> str:
    """The value of every swept dimension at this point (baseline values included)."""
    import json
    d = {}
    for name, _ in spec.dims:
        d[name] = point.policies[name] if name in point.policies else cfg.params.get(name)
    return json.dumps(d, sort_keys=True, default=str)
