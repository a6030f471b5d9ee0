"""``run``: N games of one configuration, summarised (and optionally saved, or traced).

Memory does not grow with the number of games: chunks of games are folded into a ``Tally``
(lotr_sim.experiments.tally) as they finish and dropped; ``games.parquet`` (with ``out``) is
written chunk by chunk with a pyarrow ``ParquetWriter``; the per-game frame of the Python API
is kept only up to ``KEEP_GAMES_MAX`` games (or when asked for). A run of a billion games is
only long: progress with ETA, and Ctrl-C keeps the games finished so far (with ``out``).
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from lotr_sim._json import json_default
from lotr_sim._result import Result
from lotr_sim.errors import Interrupted, LotrSimError
from lotr_sim.experiments.aggregate import seat_info, summarize_tally
from lotr_sim.experiments.backends import check_threads, make_backend
from lotr_sim.experiments.progress import make_progress, warm_up
from lotr_sim.experiments.store import ensure_writable_dir, file_mode, folder_lock, now_iso, refuse_other_output
from lotr_sim.experiments.tally import Tally

#: The most games one run may ask for (far beyond any useful run: 10**15 games take
#: ~2 million years at 47 M games/h; below 2**53, so every count is exact everywhere).
MAX_GAMES = 10**15
#: ``RunResult.games`` (one row per game, in memory) is kept up to this many games by default.
KEEP_GAMES_MAX = 1_000_000
#: ``trace`` replays every game in Python: at most this many games.
TRACE_MAX = 100_000
#: Rows per row group of games.parquet (the writer buffers at most this many rows).
ROW_GROUP = 1 << 20
#: Files a run writes in its ``out`` folder; their presence marks an earlier run's folder.
RUN_FILES = ("games.parquet", "summary.json")


@dataclass(frozen=True)
class RunResult(Result):
    """What ``run_games`` returns: one configuration's games and their summary.

    Attributes
    ----------
    summary : dict
        What ``summary.json`` holds and ``lotr-sim run --json`` prints: ``games``,
        ``wins`` by outcome, ``<outcome>_win_rate`` with its Wilson ``<outcome>_ci95``,
        ``reasons``, rounds and turns (means, quantiles), points per side, the run's
        seed, policies, parameters, config hash and timing.
    games : pandas.DataFrame or None
        One row per game (``winner``/``reason`` as Categoricals with the game's labels);
        None when the run was too long to keep it (``keep_games``).
    out : Path or None
        The folder holding ``games.parquet`` and ``summary.json``, when written.
    extra : dict
        Further data a caller attaches (empty from ``run_games``).
    """

    summary: dict[str, Any]
    games: Any = None
    out: Path | None = None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The summary (JSON-able): what ``lotr-sim run --json`` prints."""
        return dict(self.summary)


def check_count(name: str, n: Any, lo: int = 1, hi: int | None = None) -> int:
    """``n`` as an int in ``lo .. hi`` (whole numbers only); one error line otherwise."""
    bad = n is None or isinstance(n, bool)
    if not bad and not isinstance(n, (int, np.integer)):
        bad = not (isinstance(n, float) and n.is_integer())
    if bad:
        raise LotrSimError(f"{name} must be a whole number, got {n!r}")
    n = int(n)
    if n < lo:
        raise LotrSimError(f"{name} must be at least {lo}, got {n}")
    if hi is not None and n > hi:
        raise LotrSimError(f"{name} must be at most {hi:,}" + (" (1e15, the largest run lotr-sim accepts)"
                                                              if hi == MAX_GAMES else "") + f", got {n}")
    return n


def iter_split(first: int, n: int, chunk: int) -> Iterator[tuple[int, int]]:
    """``[first, first+n)`` cut at multiples of ``chunk``, lazily (any n, constant memory)."""
    a, b = first, first + n
    while a < b:
        e = min(b, (a // chunk + 1) * chunk)
        yield a, e - a
        a = e


def split(first: int, n: int, chunk: int) -> list[tuple[int, int]]:
    """``[first, first+n)`` cut at multiples of ``chunk``."""
    return list(iter_split(first, n, chunk))


def games_frame(game, cols: Mapping[str, np.ndarray]):
    """Per-game columns as a DataFrame whose ``winner`` and ``reason`` are pandas
    Categoricals with the game's labels (``game.outcomes`` / ``game.reasons``)."""
    import pandas as pd
    df = pd.DataFrame(dict(cols))
    df["winner"] = pd.Categorical.from_codes(df["winner"].astype(int), list(game.outcomes))
    df["reason"] = pd.Categorical.from_codes(df["reason"].astype(int), list(game.reasons))
    return df


def _parquet_table(game, cols: Mapping[str, np.ndarray]):
    """games.parquet rows: the integer codes (as always) plus ``winner_label``/``reason_label``."""
    import pandas as pd
    import pyarrow as pa
    df = pd.DataFrame(dict(cols))
    df["winner_label"] = pd.Categorical.from_codes(df["winner"].astype(int), list(game.outcomes))
    df["reason_label"] = pd.Categorical.from_codes(df["reason"].astype(int), list(game.reasons))
    return pa.Table.from_pandas(df, preserve_index=False)


class GamesWriter:
    """games.parquet written chunk by chunk into a temp file beside the target, so that a
    reader never sees a half file: ``add`` buffers a chunk (at most ``ROW_GROUP`` rows are
    held), ``finish(upto)`` writes the games ``< upto``, fsyncs and returns the temp path,
    ``abort`` removes the temp file."""

    def __init__(self, game, path: Path):
        import pandas  # noqa: F401 - imported before the run, not inside its first chunk
        import pyarrow.parquet  # noqa: F401
        self.game = game
        self.path = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-games-", suffix=".parquet", dir=self.path.parent)
        os.close(fd)
        self.tmp = Path(tmp)
        self._writer = None
        self._buf: list = []
        self._rows = 0

    def _flush(self, upto: int | None = None) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
        if not self._buf:
            return
        t = pa.concat_tables(self._buf)
        self._buf, self._rows = [], 0
        if upto is not None:
            t = t.filter(pc.less(t["game"], upto))
        if t.num_rows == 0 and self._writer is not None:
            return
        if self._writer is None:
            self._writer = pq.ParquetWriter(str(self.tmp), t.schema)
        self._writer.write_table(t)

    def add(self, cols: Mapping[str, np.ndarray]) -> None:
        if self._rows >= ROW_GROUP:      # rows of earlier, already counted chunks only
            self._flush()
        t = _parquet_table(self.game, cols)
        self._buf.append(t)
        self._rows += t.num_rows

    def finish(self, upto: int) -> Path:
        self._flush(upto)
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        with open(self.tmp, "rb") as f:
            os.fsync(f.fileno())
        return self.tmp

    def abort(self) -> None:
        try:
            if self._writer is not None:
                self._writer.close()
        except Exception:  # noqa: BLE001 - a full disk may refuse the footer; the file goes anyway
            pass
        self._writer = None
        self._buf = []
        try:
            self.tmp.unlink()
        except OSError:
            pass


def _check_out_folder(out: Path, force: bool) -> None:
    """Refuse to write over an earlier run (unless ``force``) or into another command's
    folder (a sweep's, a tune run's, ...: even with ``force``)."""
    refuse_other_output(out, "run")
    if out.exists() and not out.is_dir():
        raise LotrSimError(f"cannot write to output folder {out}: it is a file")
    old = [f for f in RUN_FILES if (out / f).exists()]
    if old and not force:
        raise LotrSimError(f"output folder {out} already holds an earlier run ({', '.join(old)}); "
                           f"use --force to replace it or choose another --out")


def _missing_dirs(path: Path) -> list[Path]:
    """``path`` and its parents that do not exist yet, deepest first."""
    out = []
    p = Path(os.path.abspath(path))
    while not p.exists():
        out.append(p)
        if p.parent == p:
            break
        p = p.parent
    return out


def _remove_dirs(dirs: list[Path]) -> None:
    for d in dirs:                      # deepest first; only if still empty
        try:
            d.rmdir()
        except OSError:
            break


def _disk_error(path: Path, e: OSError) -> LotrSimError:
    why = e.strerror or str(e) or type(e).__name__
    if e.errno == errno.ENOSPC or "No space" in str(e):
        why = "no space left on device"
    return LotrSimError(f"cannot write {path}: {why}; nothing was saved")


def run_games(game, games: int, seed: int = 1, policies: Mapping[str, str] | None = None,
              overrides: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
              threads: int | None = None, out: str | Path | None = None, trace: str | Path | None = None,
              progress: bool = False, chunk: int | None = None, scheduler: str | None = None,
              cluster: str | None = None, keep_games: bool | None = None, force: bool = False) -> RunResult:
    """Play games ``0..games-1`` (see ``lotr_sim.api.run_games``). ``keep_games``: keep the
    per-game frame in memory (default: when ``games <= KEEP_GAMES_MAX``); ``force``: replace
    an earlier run's files in ``out``."""
    from lotr_sim.kernels.rng import check_seed
    games = check_count("--games", games, 1, MAX_GAMES)
    check_seed(seed)  # a SeedError is a LotrSimError: one error line
    check_threads(threads)
    if chunk is not None:
        chunk = check_count("chunk", chunk, 1, 10_000_000)
    pol = game.check_policies(policies)
    cfg = game.load(config, overrides)
    outp = Path(out) if out is not None else None
    if outp is not None:
        _check_out_folder(outp, force)
    if trace is not None:
        if games > TRACE_MAX:
            raise LotrSimError(f"--trace replays every game: at most {TRACE_MAX} games, got {games}")
        tp = Path(trace)
        if tp.parent and not tp.parent.exists():
            raise LotrSimError(f"cannot write trace file {tp}: folder {tp.parent} does not exist")
        if tp.is_dir():
            raise LotrSimError(f"cannot write trace file {tp}: it is a folder")
    if keep_games is None:
        keep_games = games <= KEEP_GAMES_MAX
    compiled = game.compile(cfg)
    game.seat_policies(compiled, pol)   # a seat this configuration lacks (p3 with 2 players): one line
    chunk = chunk or max(1000, min(50_000, games // 20 or 1))
    started = now_iso()
    warm_up(game, compiled, pol, seed, progress, timed=True)  # so the rate excludes a first-run compile
    created: list[Path] = []
    writer = None
    if outp is not None:
        created = _missing_dirs(outp)
    try:
        with contextlib.ExitStack() as held:
            if outp is not None:
                ensure_writable_dir(outp)
                held.enter_context(folder_lock(outp, "run"))
                _check_out_folder(outp, force)      # again, now that no other process writes there
                try:
                    writer = GamesWriter(game, outp / "games.parquet")
                except OSError as e:
                    raise _disk_error(outp / "games.parquet", e) from None
            res = _play(game, games, seed, pol, cfg, compiled, threads, scheduler, cluster, chunk, progress,
                        keep_games, writer, outp, trace, started)
    except BaseException:
        if writer is not None:
            writer.abort()
        _remove_dirs(created)
        raise
    return res


def _play(game, games, seed, pol, cfg, compiled, threads, scheduler, cluster, chunk, progress, keep_games,
          writer, outp, trace, started) -> RunResult:
    pending: dict[int, dict] = {}      # chunks finished out of order (Dask), at most its window
    kept: list[dict] = []
    # (tally of games 0..k-1, k): replaced by one assignment, so Ctrl-C never splits it
    state = (Tally.empty(game), 0)
    interrupted = False
    t0 = time.perf_counter()
    with make_progress(progress, f"{game.name}", games) as bar, \
            make_backend(threads, scheduler, cluster) as be:
        def done(task, cols):
            nonlocal state
            pending[task[1]] = cols
            while state[1] in pending:
                c = pending.pop(state[1])
                if keep_games:
                    kept.append(c)
                if writer is not None:
                    try:
                        writer.add(c)
                    except OSError as e:
                        raise _disk_error(writer.path, e) from None
                t = Tally.from_dict(state[0].to_dict())
                t.add(c)
                state = (t, state[1] + len(c["game"]))
            bar.advance(task[2])
        try:
            be.run(game, {0: compiled}, {0: pol}, seed,
                   ((0, a, n) for a, n in iter_split(0, games, chunk)), None, done)
        except KeyboardInterrupt:
            interrupted = True
    elapsed = time.perf_counter() - t0
    tally, k = state
    if interrupted and outp is None:
        raise Interrupted(f"interrupted after {k} of {games} games; nothing saved "
                          f"(use --out DIR to keep finished games, or `lotr-sim sweep` to resume)")
    if interrupted and k == 0:
        raise Interrupted(f"interrupted before the first chunk of games finished; nothing saved in {outp}")
    summary = summarize_tally(game, tally, seats=seat_info(game, compiled, pol))
    summary["notes"] = list(game.notes)
    summary.update(game=game.name, seed=seed, policies=pol, params=cfg.params, config_hash=cfg.hash,
                   elapsed_s=elapsed, games_per_second=k / elapsed if elapsed > 0 else None,
                   started=started, finished=now_iso(), complete=not interrupted,
                   games_requested=games)
    df = None
    if keep_games and kept:
        cols = {c: np.concatenate([p[c] for p in kept]) for c in kept[0]}
        cols = {c: v[:k] for c, v in cols.items()}       # chunks are whole: rows 0..k-1
        df = games_frame(game, cols)
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
            try:
                Path(trace).unlink()
            except OSError:
                pass
            raise LotrSimError(f"cannot write trace file {trace}: {e.strerror or e}") from None
        summary["trace"] = dict(file=str(trace), events=n_ev)
    if outp is not None:
        _save(writer, outp, summary, k)
    res = RunResult(summary=summary, games=df, out=outp)
    if interrupted:
        raise Interrupted(f"interrupted after {k} of {games} games; the finished games and a "
                          f"summary marked incomplete are saved in {outp}")
    return res


def _save(writer: GamesWriter, outp: Path, summary: dict, k: int) -> None:
    """Both files complete in temp files first, then renamed into place: never one without
    the other, never a half file."""
    spath = outp / "summary.json"
    stmp = None
    try:
        gtmp = writer.finish(k)
        fd, stmp = tempfile.mkstemp(prefix=".tmp-summary-", suffix=".json", dir=outp)
        with os.fdopen(fd, "wb") as f:
            f.write((json.dumps(summary, indent=2, default=json_default) + "\n").encode())
            f.flush()
            os.fsync(f.fileno())
        for p in (gtmp, stmp):
            os.chmod(p, file_mode())
        os.replace(gtmp, outp / "games.parquet")
        os.replace(stmp, spath)
    except OSError as e:
        if stmp is not None:
            try:
                os.unlink(stmp)
            except OSError:
                pass
        raise _disk_error(outp, e) from None
