"""``run``: N games of one configuration, summarised (and optionally saved, or traced)."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim._json import json_default
from lotr_sim.errors import Interrupted, LotrSimError
from lotr_sim.experiments.aggregate import summarize
from lotr_sim.experiments.backends import make_backend
from lotr_sim.experiments.progress import make_progress, warm_up
from lotr_sim.experiments.store import atomic_write_json, atomic_write_parquet, ensure_writable_dir, now_iso


@dataclass
class RunResult:
    summary: dict[str, Any]
    games: Any = None                  # pandas DataFrame, one row per game
    out: Path | None = None
    extra: dict = field(default_factory=dict)


def check_count(name: str, n: int, lo: int = 1) -> int:
    if n is None or int(n) < lo:
        raise LotrSimError(f"{name} must be at least {lo}, got {n}")
    return int(n)


def split(first: int, n: int, chunk: int) -> list[tuple[int, int]]:
    """``[first, first+n)`` cut at multiples of ``chunk``."""
    out = []
    a, b = first, first + n
    while a < b:
        e = min(b, (a // chunk + 1) * chunk)
        out.append((a, e - a))
        a = e
    return out


def run_games(game, games: int, seed: int = 1, policies: Mapping[str, str] | None = None,
              overrides: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
              threads: int | None = None, out: str | Path | None = None, trace: str | Path | None = None,
              progress: bool = False, chunk: int | None = None, scheduler: str | None = None,
              cluster: str | None = None) -> RunResult:
    from lotr_sim.kernels.rng import check_seed
    import pandas as pd
    games = check_count("--games", games)
    try:
        check_seed(seed)
    except ValueError as e:
        raise LotrSimError(str(e)) from None
    pol = game.check_policies(policies)
    cfg = game.load(config, overrides)
    if out is not None:
        ensure_writable_dir(Path(out))
    if trace is not None:
        tp = Path(trace)
        if tp.parent and not tp.parent.exists():
            raise LotrSimError(f"cannot write trace file {tp}: folder {tp.parent} does not exist")
    compiled = game.compile(cfg)
    chunk = chunk or max(1000, min(50_000, games // 20 or 1))
    started = now_iso()
    warm_up(game, compiled, pol, seed, progress)  # so the rate excludes a first-run compile
    t0 = time.perf_counter()
    parts: dict[int, dict] = {}
    interrupted = False
    with make_progress(progress, f"{game.name}", games) as bar, \
            make_backend(threads, scheduler, cluster) as be:
        def done(task, cols):
            parts[task[1]] = cols
            bar.advance(task[2])
        try:
            be.run(game, {0: compiled}, {0: pol}, seed,
                   [(0, a, n) for a, n in split(0, games, chunk)], None, done)
        except KeyboardInterrupt:
            interrupted = True
    elapsed = time.perf_counter() - t0
    # the finished games 0..k-1 (chunks finish in order of their first game, but be safe)
    firsts, k = sorted(parts), 0
    while k in parts:
        k += len(parts[k]["game"])
    if interrupted and (out is None or k == 0):
        raise Interrupted(f"interrupted after {k} of {games} games; nothing saved "
                          f"(use --out DIR to keep finished games, or `lotr-sim sweep` to resume)")
    keys = list(parts[0].keys())
    cols = {c: np.concatenate([parts[a][c] for a in firsts if a < k]) for c in keys}
    summary = summarize(game, cols)
    summary["notes"] = list(game.notes)
    summary.update(game=game.name, seed=seed, policies=pol, params=cfg.params, config_hash=cfg.hash,
                   elapsed_s=elapsed, games_per_second=k / elapsed if elapsed > 0 else None,
                   started=started, finished=now_iso(), complete=not interrupted,
                   games_requested=games)
    df = pd.DataFrame(cols)
    res = RunResult(summary=summary, games=df)
    if trace is not None and not interrupted:
        n_ev = 0
        try:
            with open(trace, "w") as f:
                for i in range(games):
                    _, events = game.play(compiled, pol, seed, i)
                    for ev in events:
                        f.write(json.dumps(ev, default=json_default) + "\n")
                        n_ev += 1
        except OSError as e:
            raise LotrSimError(f"cannot write trace file {trace}: {e.strerror or e}") from None
        summary["trace"] = dict(file=str(trace), events=n_ev)
    if out is not None:
        outp = Path(out)
        gdf = df.copy()
        gdf["winner_label"] = pd.Categorical.from_codes(gdf["winner"].astype(int), list(game.outcomes))
        gdf["reason_label"] = pd.Categorical.from_codes(gdf["reason"].astype(int), list(game.reasons))
        atomic_write_parquet(outp / "games.parquet", gdf)
        atomic_write_json(outp / "summary.json", summary)
        res.out = outp
    if interrupted:
        raise Interrupted(f"interrupted after {k} of {games} games; the finished games and a "
                          f"summary marked incomplete are saved in {out}")
    return res

