"""``sweep``: many configurations (points) of one game, paired by common random numbers.

Every point plays games ``0..n-1`` with streams ``(seed, 0..n-1)``. Work is cut into chunks
aligned at multiples of ``spec.chunk`` games; each finished chunk is written atomically to
``chunks/``, so a killed sweep resumed with ``--resume DIR`` re-runs exactly the missing
chunks. ``--resume DIR`` with another stopping rule (``--games N``, ``--precision``,
``--paired-precision``; ``resume_spec``) extends a finished sweep instead: the games on disk
are kept and only those missing are played (``missing``), game i still on stream i, so the
result is the one a fresh run with the new rule gives; any other changed option is refused
in one line naming it (``spec_difference``). With ``precision`` the sweep runs in batches: after each batch, every point whose
Wilson 95% half-width on the first outcome's rate (Good's win rate) is above ``precision``
gets more games (up to ``max_games``). The batch targets are a pure function of the games
already played, so a resumed sweep replays the same decisions and ends with the same result.

With ``paired_precision`` (the default sweep's mode) the batches aim at what each point is
for (``point_goals``): the baseline plays until the 95% Wilson half-width of its own rate of
the first outcome is at most ``baseline_precision``; every lever (a one-at-a-time or grid
point) until the Bonett-Price 95% interval of its paired change against the baseline
(``sequential.paired_interval``, over their common games) is at most ``paired_precision``
wide either side; every pairing (the baseline rules under other players: ``varied ==
"pairings"``, not paired on a common policy) until its own rate's half-width is at most
``pairings_precision``. A point stops as soon as its goal is met, or at ``max_games``. After
each batch a point short of its goal is given the games its variance estimate says it needs
(0.9 x that while they are over twice what it has, to estimate again from more games; at
least ``1.02 x`` what it has, in hundreds), and the baseline is extended to
the largest lever target, so that every lever's games have a baseline game to pair with
(``next_targets``). The targets are a function of the winner counts of whole batches only:
the same with any thread count, on Dask, and after ``--resume``. Every row then states its
``games``, ``precision_on`` (``rate`` or ``paired``), the achieved ``half_width``, its
``target_half_width`` and ``precision_met``; the manifest's ``precision`` repeats them.

Memory does not grow with the number of games: tasks are generated lazily, and both the
precision loop and the final rows read the chunk files one at a time, folding them into a
``Tally`` per point and a ``PairTally`` against the baseline chunk of the same game range
(``tally_point``); ``games.parquet`` is written chunk by chunk. A sweep whose chunk files
cannot fit the free disk is refused up front (``check_disk``), so a huge run is only long.
With ``pairings`` the baseline rules are also played under every pairing of the game's
policies; the verdict (``experiments.verdict``) is returned in ``SweepResult.verdict``. A
pairing equal to a point already swept (a players dimension, one at a time or in a grid) is not
played again: that point's row (``baseline_rules`` true) is its cell in the pairings table. In
paired mode such a point keeps its lever's goal (its paired change against the baseline).
"""
from __future__ import annotations

import contextlib
import math
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from lotr_sim._result import Result
from lotr_sim.config import config_hash
from lotr_sim.errors import Interrupted, LotrSimError
from lotr_sim.experiments.aggregate import point_row_tally, seat_info
from lotr_sim.experiments.backends import check_threads, common_columns, make_backend
from lotr_sim.experiments.progress import make_progress, warm_up
from lotr_sim.experiments.run import iter_split
from lotr_sim.experiments.spec import SweepSpec, build_points, check_spec, count_points
from lotr_sim.experiments.store import run_kind
from lotr_sim.stats import games_for_half_width, wilson_half_width, z_value
from lotr_sim.experiments.store import (BYTES_PER_CHUNK_FILE, Store, _atomic_target, atomic_write_parquet,
                                        ensure_writable_dir, folder_lock, machine_info, now_iso,
                                        probe_writable, refuse_other_output)
from lotr_sim.experiments.sequential import paired_interval
from lotr_sim.experiments.tally import PairTally, Tally
from lotr_sim.experiments.verdict import check_target, verdict

RATE, PAIRED = "rate", "paired"          # what a point's games must pin down (paired mode)
GAIN = "gain"                            # skill's sequential mode: the judge's paired gain
#: The most points the CLI runs without ``--yes`` (a grid multiplies its values' counts).
MAX_POINTS = 1000
#: Above this many points, preparing them (each one's rules loaded and compiled) gets a bar.
PREPARE_BAR = 200


@dataclass(frozen=True)
class SweepResult(Result):
    """What ``sweep`` and ``skill`` return: one row per point and the answer.

    Attributes
    ----------
    results : pandas.DataFrame
        One row per point (``results.parquet``): label, games, every outcome's rate with its
        Wilson interval (``rate_good``, ``lo_good``, ``hi_good``), the paired change against
        the baseline (``delta_good``, ``delta_good_lo``, ``delta_good_hi``), rounds and reasons.
    out : Path
        The sweep's folder.
    manifest : dict
        ``manifest.json``: the spec, seed, target, games per point, hashes and the last run.
    points : list
        The points run (``experiments.spec.Point``), the baseline first.
    verdict : dict or None
        The answer first (``experiments.verdict.verdict``): who is favoured, by how much,
        the levers, parity values and, for ``skill``, ``verdict["skill"]``.
    """

    results: Any
    out: Path
    manifest: dict
    points: list
    verdict: dict | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: ``out``, ``verdict``, ``manifest`` (spec hash, target, games per point,
        last run, precision) and ``results`` (one record per point, without the rounds
        histogram): what ``lotr-sim sweep --json`` prints."""
        m = self.manifest
        df = self.results.drop(columns=["rounds_hist"], errors="ignore")
        return dict(out=str(self.out), verdict=self.verdict,
                    manifest=dict(spec_hash=m.get("spec_hash"), target=m.get("target"), games=m.get("games"),
                                  last_run=m.get("last_run"), precision=m.get("precision")),
                    results=df.to_dict(orient="records"))


def default_out(game_name: str) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("reports") / game_name / stamp


def _round_up(x: float, m: int = 100) -> int:
    return int(math.ceil(x / m) * m)


def spec_hash(spec: SweepSpec, cfgs: dict, points) -> str:
    return config_hash(dict(spec=spec.as_dict(),
                            points=[[p.label, cfgs[p.index].hash, p.policies] for p in points]))


#: The fields of a ``SweepSpec`` that say how many games each point plays: a resumed sweep may
#: change them (a finished one is then extended, its games kept), never the others.
STOP_KEYS = ("games", "precision", "max_games", "paired_precision", "baseline_precision",
             "pairings_precision", "gain_precision")
#: A resumed sweep may also adapt to more or fewer levers (no point's games depend on it);
#: the adaptation's budget may not change (a finished adaptation is never redone).
ADAPT_KEYS = ("adapt_levers",)
#: How the one-line refusal names a differing field of the spec.
_OPTION_NAMES = dict(game="the game", dims="the swept parameters (--param)", grid="--grid",
                     base_sets="the rules (--set)", policies="the players", config="--config",
                     seed="--seed", chunk="--chunk", pairings="--pairings", judge="the judge",
                     adapt_generations="the adaptation's tune generations (adapt_generations)",
                     adapt_games="the adaptation's tune games (adapt_games)",
                     adapt_check_games="the adaptation's keep checks (adapt_check_games)")


def resume_spec(old: SweepSpec, new: SweepSpec, given: set[str]) -> SweepSpec:
    """The spec a resumed sweep runs: the folder's (``old``) with the fields in ``given``
    taken from ``new`` (the spec the caller's options make). ``"stop"`` in ``given`` takes
    the whole stopping rule (``STOP_KEYS``: a fixed ``games`` or a precision) from ``new``,
    so ``--resume DIR --games 5000`` extends a finished sweep; any other field taken is then
    checked against the folder's by ``run_sweep`` (``spec_difference``)."""
    import dataclasses
    out = dataclasses.replace(old, dims=[(n, list(v)) for n, v in old.dims])
    for k in given:
        if k == "stop":
            for key in STOP_KEYS:
                setattr(out, key, getattr(new, key))
        else:
            setattr(out, k, getattr(new, k))
    return out


def _shown(key: str, v) -> str:
    if key == "dims":
        return "; ".join(f"{n}={','.join(str(x) for x in vals)}" for n, vals in v) or "none"
    if isinstance(v, dict):
        return ", ".join(f"{k}={x}" for k, x in sorted(v.items())) or "none"
    return "none" if v is None or v is False else str(v)


def spec_difference(old: SweepSpec, new: SweepSpec) -> str | None:
    """The first field, other than the stopping rule (``STOP_KEYS``) and the levers adapted
    to (``ADAPT_KEYS``), in which ``new`` differs from ``old``, as ``"<option>: <old> there,
    <new> now"``; None when they agree."""
    from lotr_sim.experiments.spec import ADAPT_BUDGET
    a, b = old.as_dict(), new.as_dict()
    for key in dict.fromkeys(list(a) + list(b)):
        # the adaptation's budget is in the dict only when it is not the default
        va, vb = a.get(key, ADAPT_BUDGET.get(key)), b.get(key, ADAPT_BUDGET.get(key))
        if key in STOP_KEYS or key in ADAPT_KEYS or va == vb:
            continue
        return f"{_OPTION_NAMES.get(key, key)}: {_shown(key, va)} there, {_shown(key, vb)} now"
    return None


def rules_difference(manifest: dict, points, cfgs: dict) -> str | None:
    """The first point whose rules (configuration hash) are not the folder's (a rules file or
    a default changed since it was written), or a point it does not list; None when all agree."""
    hashes = (manifest.get("config") or {}).get("hashes") or {}
    for p in points:
        if p.label not in hashes:
            return f"point {p.label} is not in it"
        if hashes[p.label] != cfgs[p.index].hash:
            return (f"the rules of point {p.label} (configuration hash {hashes[p.label]} there, "
                    f"{cfgs[p.index].hash} now: a changed rules file or default?)")
    return None


def run_sweep(game, spec: SweepSpec | None = None, out: str | Path | None = None,
              threads: int | None = None, scheduler: str | None = None, cluster: str | None = None,
              workers: int | None = None, save_games: bool = False, progress: bool = False,
              resume: str | Path | None = None,
              connect_timeout: float = 5.0, target: str | None = None,
              pairings: bool | list[str] | None = None, max_points: int | None = None,
              command: str = "sweep") -> SweepResult:
    """Run (or resume) a sweep; see the module docstring. ``target`` is the parity of the
    verdict (``good50``: Good wins 50%, default; ``equal``: Good wins as often as Evil),
    kept in the manifest; ``pairings`` also plays the baseline under every pairing of the
    game's policies (overrides the spec's ``pairings``). ``max_points`` refuses a new sweep
    of more points (the CLI's ``MAX_POINTS`` unless ``--yes``), before any point is built.
    With ``progress`` the first line on stderr says how many points and games it plays.
    ``command`` names the run in the progress bar and the manifest (``"skill"`` for a skill
    run, which is a sweep underneath; a resumed run keeps its manifest's).
    It writes no report: the caller builds one from the folder (``api.sweep``:
    ``lotr_sim.reports.build.build_report``)."""
    from lotr_sim.kernels.rng import check_seed

    target = check_target(target) if target is not None else None

    if resume is not None:
        store = Store(Path(resume))
        refuse_other_output(Path(resume), "sweep", "--resume")
        manifest = store.read_manifest()
        if manifest.get("kind") != "sweep":
            raise LotrSimError(f"resume folder {resume} does not hold a sweep")
        if manifest.get("game") != game.name:
            raise LotrSimError(f"resume folder {resume} holds a sweep of game '{manifest.get('game')}', "
                               f"not '{game.name}'")
        try:
            old = SweepSpec.from_dict(manifest["spec"])
        except (KeyError, TypeError, ValueError):
            raise LotrSimError(f"cannot read {store.manifest_path}: corrupt manifest (no valid 'spec')") from None
        spec = spec or old
        if target is None:
            target = manifest.get("target")
        command = run_kind(manifest)
    if spec is None:
        raise LotrSimError("no sweep specification")
    check_threads(threads, workers)
    if pairings is not None:
        spec.pairings = pairings if isinstance(pairings, (list, tuple)) and pairings else bool(pairings)
        if isinstance(spec.pairings, tuple):
            spec.pairings = list(spec.pairings)
    target = check_target(target)
    if spec.game != game.name:
        raise LotrSimError(f"sweep is for game '{spec.game}', not '{game.name}'")
    check_seed(spec.seed)  # a SeedError is a LotrSimError: one error line
    if spec.gain_precision is not None:
        if spec.games is not None or spec.precision is not None or spec.paired_precision is not None:
            raise LotrSimError("the judge's gain precision is a mode of its own: give no --games, "
                               "--precision or --paired-precision with it")
        g = spec.gain_precision
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0 < g < 0.5:
            raise LotrSimError(f"the gain's half-width must be in (0, 0.5), got {g}")
    elif spec.games is None and spec.precision is None and spec.paired_precision is None:
        raise LotrSimError("give --games N, --precision P or --paired-precision P")
    if spec.games is not None and spec.precision is not None:
        raise LotrSimError("give either --games or --precision, not both")
    if spec.paired_precision is not None and (spec.games is not None or spec.precision is not None):
        raise LotrSimError("give one of --games, --precision and --paired-precision")
    if spec.games is not None and spec.games < 1:
        raise LotrSimError(f"--games must be at least 1, got {spec.games}")
    if spec.precision is not None and not (0 < spec.precision < 0.5):
        raise LotrSimError(f"--precision must be in (0, 0.5), got {spec.precision}")
    if spec.paired_precision is not None:
        from lotr_sim.experiments.spec import paired_targets
        spec.paired_precision, spec.baseline_precision, spec.pairings_precision = paired_targets(
            spec.paired_precision, spec.baseline_precision, spec.pairings_precision)
        for name, v in (("--paired-precision", spec.paired_precision),
                        ("--baseline-precision", spec.baseline_precision),
                        ("--pairings-precision", spec.pairings_precision)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 0.5:
                raise LotrSimError(f"{name} must be in (0, 0.5), got {v}")
    if spec.chunk < 1:
        raise LotrSimError(f"--chunk must be at least 1, got {spec.chunk}")
    from lotr_sim.experiments.spec import ADAPT_MIN
    for key, least in ADAPT_MIN.items():
        v = getattr(spec, key)
        if isinstance(v, bool) or not isinstance(v, int) or v < least:
            name = "--adapt" if key == "adapt_levers" else key
            raise LotrSimError(f"{name} must be a whole number of at least {least}, got {v!r}")
    if spec.max_games is None:
        spec.max_games = default_max_games(spec)
    if spec.max_games is not None and spec.max_games < 1:
        raise LotrSimError(f"--max-games must be at least 1, got {spec.max_games}")
    if spec.games is not None and spec.max_games is not None and spec.max_games < spec.games:
        raise LotrSimError(f"--max-games {spec.max_games:,} is below --games {spec.games:,}: every point would "
                           f"play only {spec.max_games:,}; give --games {spec.max_games:,} (--max-games caps "
                           f"--precision and --paired-precision)")

    base = check_spec(game, spec)      # (one error line before the plan line)
    n_max = count_points(game, spec)
    per_point = int(spec.games if spec.max_games is None else
                    spec.max_games if spec.games is None else min(spec.games, spec.max_games))
    every = "" if spec.games is not None else "at most "
    plan = f"{n_max:,} points, {every}{per_point:,} games each ({every}{n_max * per_point:,} games)"
    if resume is None and max_points is not None and n_max > max_points:
        raise LotrSimError(f"this sweep has {plan} (more than {max_points:,} points); give --yes to run it, "
                           f"or fewer --param values")
    # the plan line: once every point is checked (a bad value is then the only line), but
    # before preparing a sweep large enough to take a while
    large = n_max > PREPARE_BAR
    if progress and large:
        print(f"{command} {game.name}: {plan}", file=sys.stderr, flush=True)
    with make_progress(progress and large, f"preparing {n_max:,} points", n_max) as bar:
        points, cfgs = build_points(game, spec, tick=lambda: bar.advance(1), base=base)
    if progress and not large:
        print(f"{command} {game.name}: {plan}", file=sys.stderr, flush=True)
    shash = spec_hash(spec, cfgs, points)
    if resume is not None and manifest.get("spec_hash") != shash:
        diff = spec_difference(old, spec) or rules_difference(manifest, points, cfgs)
        if diff is not None:
            raise LotrSimError(f"resume folder {resume} was made with another configuration: {diff}; "
                               f"start a new sweep (--out), or resume changing only how many games "
                               f"(--games, --precision, --paired-precision, --max-games)")
    if resume is None and out is None:
        out = default_out(game.name)
    if resume is None:
        refuse_other_output(Path(out), "sweep")
        probe_writable(Path(out))
    check_disk(Store(Path(resume if resume is not None else out)), spec, points,
               bool(manifest.get("save_games")) if resume is not None else save_games)
    if resume is None and out is not None:
        if (Path(out) / "manifest.json").exists():
            raise LotrSimError(f"output folder {out} already holds results; use --resume {out} "
                               f"to continue it or choose another --out")
        ensure_writable_dir(Path(out))
    stack = contextlib.ExitStack()
    be = stack.enter_context(make_backend(threads, scheduler, cluster, workers, connect_timeout))
    with stack:
        return _run(game, spec, points, cfgs, shash, be, out, save_games, progress, resume,
                    manifest if resume is not None else None, threads, scheduler, cluster, target, command)


def default_max_games(spec: SweepSpec) -> int | None:
    """The cap per point when none is given: 4 x the games the smallest half-width asked for
    needs at p = 0.5 (``--precision``, or the paired mode's three targets; 38,416 for
    ±1 point); None for a fixed ``--games``."""
    if spec.precision is not None:
        return 4 * games_for_half_width(spec.precision)
    if spec.paired_precision is not None:
        return 4 * games_for_half_width(min(spec.paired_precision, spec.baseline_precision or 1,
                                            spec.pairings_precision or 1))
    if spec.gain_precision is not None:
        return 4 * games_for_half_width(spec.gain_precision)
    return None


def check_disk(store: Store, spec: SweepSpec, points, save_games: bool) -> None:
    """Refuse, in one line, a sweep whose chunk files cannot fit the free disk."""
    import shutil
    sequential = spec.precision is not None or spec.paired_precision is not None or spec.gain_precision is not None
    per_point = spec.max_games if sequential else \
        min(spec.games, spec.max_games) if spec.max_games is not None else spec.games
    on_disk = sum(n for lst in store.chunk_index().values() for _, n, _ in lst)
    games = max(len(points) * int(per_point) - on_disk, 0)
    if games == 0:
        return
    files = len(points) * math.ceil(int(per_point) / spec.chunk)
    need = games * store.bytes_per_game() * (2 if save_games else 1) + files * BYTES_PER_CHUNK_FILE
    where = store.root
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free
    if need > free:
        raise LotrSimError(f"this sweep needs about {_size(need)} of chunk files ({len(points)} "
                           f"point{'s' if len(points) != 1 else ''} x "
                           f"{int(per_point):,} games) but {store.root} has {_size(free)} free; "
                           f"use fewer --games or another --out")


def _size(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if b < 1000 or unit == "PB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1000
    return f"{b:.1f} PB"


def missing(a: int, n: int, have: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts ``(first, n)`` of the games ``a..a+n-1`` that no chunk ``(first, n)`` in
    ``have`` holds, in order."""
    out, at, end = [], a, a + n
    for f, m in sorted(have):
        if f + m <= at or f >= end:
            continue
        if f > at:
            out.append((at, f - at))
        at = max(at, f + m)
        if at >= end:
            break
    if at < end:
        out.append((at, end - at))
    return out


def _tasks(points, done_upto: dict, targets: dict, chunk: int, have: dict, bar):
    """The missing chunks ``(point, first, n)`` of this batch, ordered by first game then
    point, generated lazily. Games already on disk (``have``: every point's chunk files as
    ``(first, n)``) are not played again, only counted on the progress bar: a killed sweep
    plays its missing chunks, and an extended one (more games, another precision) the games
    past those it has, cut where its chunk files end."""
    import heapq

    def of(pt):
        for a, n in iter_split(done_upto[pt], targets[pt] - done_upto[pt], chunk):
            yield a, pt, n

    for a, pt, n in heapq.merge(*[of(p.index) for p in points]):
        parts = missing(a, n, have.get(pt, []))
        bar.advance(n - sum(m for _, m in parts))
        for f, m in parts:
            yield (pt, f, m)


class _Winners:
    """The winner column of a point's games ``start..upto-1`` in order, served ``take(n)`` at
    a time from its chunk files (memory: one chunk)."""

    def __init__(self, store: Store, point: int, upto: int, start: int = 0):
        self._it = store.iter_games(point, upto=upto, columns=["winner"], start=start)
        self._buf = np.empty(0, dtype=np.int8)

    def take(self, n: int) -> np.ndarray:
        parts, have = [self._buf], self._buf.size
        while have < n:
            nxt = next(self._it, None)
            if nxt is None:
                break
            parts.append(nxt[1]["winner"])
            have += parts[-1].size
        buf = np.concatenate(parts) if len(parts) > 1 else parts[0]
        out, self._buf = buf[:n], buf[n:]
        return out


def tally_point(game, store: Store, point: int, upto: int, base_upto: int) -> tuple[Tally, PairTally]:
    """A point's ``Tally`` over games ``0..upto-1`` and its ``PairTally`` against the
    baseline (point 0, games ``0..base_upto-1``) over their common games, read chunk file by
    chunk file (memory does not grow with the number of games)."""
    t, pair = Tally.empty(game), PairTally()
    base = _Winners(store, 0, base_upto)
    for _, cols in store.iter_games(point, upto=upto):   # refuses gaps between chunk files
        t.add(cols)
        w = cols["winner"]
        b = base.take(w.size)
        if b.size:
            pair.add(w[:b.size], b)
    return t, pair


def point_goals(spec: SweepSpec, points) -> dict[int, tuple[str, float]]:
    """Paired mode: ``{point index: (what, half-width)}``, ``what`` being ``"rate"`` (the
    point's own rate of the first outcome: the baseline and the pairings) or ``"paired"``
    (its paired change against the baseline: every other point)."""
    goals = {}
    for p in points:
        if p.index == 0:
            goals[p.index] = (RATE, float(spec.baseline_precision))
        elif p.varied == "pairings":
            goals[p.index] = (RATE, float(spec.pairings_precision))
        else:
            goals[p.index] = (PAIRED, float(spec.paired_precision))
    return goals


def judge_of(spec: SweepSpec, points) -> str | None:
    """The player whose gains a pairings table measures (``spec.judge``; else the first
    player from ``lotr_sim.players`` that holds a seat at some point, as ``verdict`` picks
    it), or None when the sweep has no pairings or no such player."""
    if not spec.pairings:
        return None
    if spec.judge is not None:
        return spec.judge
    from lotr_sim.games.players import PLAYERS
    played = {p for pt in points for p in pt.policies.values()}
    return next((p for p in PLAYERS if p in played), None)


def gain_refs(game, points, cfgs, judge: str | None) -> dict[int, tuple[int, int]]:
    """``{point: (reference point, outcome)}`` for every point where ``judge`` holds one side
    and one other player P every other side, on the same rules as the point where P holds
    every side: the judge's gain there is the paired difference of that side's wins
    (``outcome``: the side's own outcome) between the two points, which play the same games."""
    if judge is None:
        return {}
    sides = list(game.sides)
    where = {}
    for p in points:
        players = {p.policies.get(x) for x in sides}
        if len(players) == 1:
            where.setdefault((cfgs[p.index].hash, players.pop()), p.index)
    out = {}
    for p in points:
        held = [x for x in sides if p.policies.get(x) == judge]
        others = {p.policies.get(x) for x in sides if x not in held}
        if len(held) != 1 or len(others) != 1:
            continue
        ref = where.get((cfgs[p.index].hash, others.pop()))
        if ref is not None and sides.index(held[0]) < len(game.outcomes):
            out[p.index] = (ref, sides.index(held[0]))
    return out


def gain_goals(spec: SweepSpec, points, refs: dict[int, tuple[int, int]]) -> dict[int, tuple[str, float]]:
    """Skill's sequential mode: ``{point: (what, half-width)}``: the judge's gain points
    (``refs``) aim at ``spec.gain_precision`` on their paired gain; every other pairing at
    twice that on its own rate (what the pairings table and the ladder show); a reference
    point plays at least as many games as the gains that pair with it (``cover_refs``)."""
    g = float(spec.gain_precision)
    return {p.index: (GAIN, g) if p.index in refs else (RATE, min(2 * g, 0.49)) for p in points}


def cover_refs(targets: dict[int, int], refs: dict[int, tuple[int, int]] | None) -> dict[int, int]:
    """Extend every reference point to the largest target of the gains paired with it."""
    if not refs:
        return targets
    out = dict(targets)
    for i, (r, _) in refs.items():
        if out[i] > out[r]:
            out[r] = out[i]
    return out


def half_width(what: str, n: int, k: int, n10: int, n01: int) -> float:
    """The 95% half-width a paired-mode goal is about: Wilson's on ``k`` first-outcome wins
    in ``n`` games (``"rate"``), or Bonett-Price's on the paired change from ``n`` common
    games, ``n10`` won only by the point and ``n01`` only by the baseline (``"paired"``)."""
    if what == RATE:
        return float(wilson_half_width(k, n))
    lo, hi = paired_interval(n, n10, n01)
    return (hi - lo) / 2.0


def first_targets(goals: dict[int, tuple[str, float]], max_games: int) -> dict[int, int]:
    """The first batch: an eighth of the games a half-width needs at p = 0.5 (in hundreds,
    at least 100, at most ``max_games``); the baseline has at least every lever's games."""
    t = {i: min(max_games, max(_round_up(games_for_half_width(h) / 8), 100)) for i, (_, h) in goals.items()}
    return _cover_levers(t, goals)


def _cover_levers(targets: dict[int, int], goals: dict[int, tuple[str, float]]) -> dict[int, int]:
    """Extend the baseline (point 0) to the largest lever target, so that every lever game
    has its baseline game to pair with."""
    top = max((t for i, t in targets.items() if goals[i][0] == PAIRED), default=0)
    if top > targets.get(0, 0):
        targets = {**targets, 0: top}
    return targets


def next_targets(goals: dict[int, tuple[str, float]], targets: dict[int, int],
                 counts: dict[int, tuple[int, int, int, int]], max_games: int,
                 early: float = 0.9, margin: float = 1.0, growth: float = 1.02,
                 refs: dict[int, tuple[int, int]] | None = None) -> dict[int, int]:
    """The targets of the next batch from the counts of the games played so far (a pure
    function of them): ``counts[i] = (n, k, n10, n01)``, ``n`` the games counted (for a
    lever: the ones it shares with the baseline), ``k`` its first-outcome wins, ``n10``/
    ``n01`` won by the point only / by the baseline only. A point whose half-width is within
    its goal, or which has ``max_games``, keeps its target; another is aimed at the games its
    variance estimate needs: ``early x`` that while the need is over twice what it has (an
    estimate from few games is rough: stopping short and estimating again from many more
    wastes fewer games than overshooting), ``margin x`` after, at least ``growth x`` what it
    has (in hundreds, at most ``max_games``); the baseline then covers every lever
    (``_cover_levers``). Returns the whole new target map (equal to ``targets`` when every
    point is done). The defaults played the fewest games in simulations of the default
    sweep's points (about 2% above the games the goals need, against 4% for 1.02 x at once).
    In skill's sequential mode (``refs``: the judge's gain points and their references) a gain
    point's counts are its paired counts against its reference, and each reference then covers
    its gains (``cover_refs``)."""
    z2 = z_value() ** 2
    new = dict(targets)
    for i, (what, goal) in goals.items():
        n, k, n10, n01 = counts[i]
        t = targets[i]
        if t >= max_games or n == 0 or half_width(what, n, k, n10, n01) <= goal:
            continue
        if what == RATE:
            p = min(max(k / n, 0.02), 0.98)
            var = p * (1 - p)
        else:                                  # the Bonett-Price variance of the paired change
            qp, qm = (n10 + 1) / (n + 2), (n01 + 1) / (n + 2)
            var = max(qp + qm - (qp - qm) ** 2, 1e-4)
        need = z2 * var / goal ** 2
        aim = need * (early if need > 2 * t else margin)
        new[i] = min(max_games, max(_round_up(aim), _round_up(t * growth)))
    return cover_refs(_cover_levers(new, goals), refs)


def gain_pair(winner_a: np.ndarray, winner_b: np.ndarray, outcome: int = 0) -> PairTally:
    """The paired counts of ``outcome`` (a side's wins) on the same games under A and B."""
    pair = PairTally()
    a, b = np.asarray(winner_a), np.asarray(winner_b)
    if outcome:     # PairTally counts outcome 0: relabel so that ``outcome`` is 0
        a, b = np.where(a == outcome, 0, 1), np.where(b == outcome, 0, 1)
    pair.add(a, b)
    return pair


def tally_gain(store: Store, point: int, upto: int, ref: int, ref_upto: int, outcome: int) -> PairTally:
    """A gain point's paired counts of ``outcome`` against its reference over their common
    games (chunk file by chunk file)."""
    pair, base = PairTally(), _Winners(store, ref, ref_upto)
    for _, cols in store.iter_games(point, upto=upto, columns=["winner"]):
        w = cols["winner"]
        b = base.take(w.size)
        if b.size:
            p = gain_pair(w[:b.size], b, outcome)
            pair.merge(p)
    return pair


class _PairCounts:
    """Winner counts of every point over its games ``0..targets[i]-1``, and for a lever the
    paired counts against the baseline's same games, brought up to date batch by batch
    (reads only the games added since the last batch; memory: one chunk)."""

    def __init__(self, store: Store, goals: dict[int, tuple[str, float]],
                 refs: dict[int, tuple[int, int]] | None = None):
        self.store, self.goals = store, goals
        self.refs = refs or {}                            # gain point -> (reference, outcome)
        self.c = {i: [0, 0, 0, 0] for i in goals}        # n, k, n10, n01

    def update(self, targets: dict[int, int]) -> dict[int, tuple[int, int, int, int]]:
        for i, (what, _) in self.goals.items():
            c = self.c[i]
            ref, o = self.refs.get(i, (0, 0))
            upto = targets[i] if what == RATE else min(targets[i], targets[ref])
            if upto <= c[0]:
                continue
            base = _Winners(self.store, ref, upto, start=c[0]) if what != RATE else None
            for _, cols in self.store.iter_games(i, upto=upto, columns=["winner"], start=c[0]):
                w = cols["winner"]
                c[1] += int(np.count_nonzero(w == 0))
                if base is not None:
                    pair = gain_pair(w, base.take(w.size), o)
                    c[2] += pair.n10
                    c[3] += pair.n01
            c[0] = upto
        return {i: (c[0], c[1], c[2], c[3]) for i, c in self.c.items()}


def _run(game, spec, points, cfgs, shash, be, out, save_games, progress, resume, manifest,
         threads, scheduler, cluster, target="good50", command="sweep"):
    """``_run_locked`` with the output folder held for this process (``folder_lock``): a
    second sweep on the same folder is refused before it touches anything there."""
    outp = Path(resume) if resume is not None else Path(out) if out is not None else default_out(game.name)
    ensure_writable_dir(outp)
    with folder_lock(outp, "sweep"):
        return _run_locked(game, spec, points, cfgs, shash, be, outp if resume is None else None, save_games,
                           progress, resume, manifest, threads, scheduler, cluster, target, command)


def _run_locked(game, spec, points, cfgs, shash, be, out, save_games, progress, resume, manifest,
                threads, scheduler, cluster, target="good50", command="sweep"):
    from lotr_sim import __version__

    if resume is not None:
        store = Store(Path(resume))
        outp = store.root
        store.clean_temp()
        # chunk files of one folder all hold the same columns: keep the first run's choice
        save_games = bool(manifest.get("save_games", False))
        manifest["resumed"] = manifest.get("resumed", []) + [now_iso()]
        manifest["status"] = "running"
        # a resume may change the stopping rule only (``spec_difference``): keep the one run
        manifest["spec"], manifest["spec_hash"] = spec.as_dict(), shash
    else:
        outp = Path(out) if out is not None else default_out(game.name)
        if (outp / "manifest.json").exists():
            raise LotrSimError(f"output folder {outp} already holds results; use --resume {outp} "
                               f"to continue it or choose another --out")
        store = Store(outp)
        store.create()
        manifest = dict(
            format=1, kind="sweep", command=command, game=game.name, package_version=__version__,
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
    manifest["target"] = target
    store.chunks.mkdir(parents=True, exist_ok=True)
    store.write_manifest(manifest)

    compiled = {}
    with make_progress(progress and len(points) > PREPARE_BAR, f"compiling {len(points):,} points",
                       len(points)) as bar:
        for p in points:
            compiled[p.index] = game.compile(cfgs[p.index])
            bar.advance(1)
    pols = {p.index: p.policies for p in points}
    keep = None if save_games else common_columns(game)

    judge = judge_of(spec, points)
    refs = gain_refs(game, points, cfgs, judge)      # the judge's gains: measured in every mode
    goals = point_goals(spec, points) if spec.paired_precision is not None else None
    seq_refs = None
    if spec.gain_precision is not None:
        goals, seq_refs = gain_goals(spec, points, refs), refs
    if goals is not None:
        targets = cover_refs(first_targets(goals, spec.max_games), seq_refs)
        pair_counts = _PairCounts(store, goals, seq_refs)
    elif spec.precision is None:
        targets = {p.index: int(spec.games) for p in points}
        if spec.max_games is not None:
            targets = {k: min(v, spec.max_games) for k, v in targets.items()}
    else:
        first = min(spec.max_games, max(_round_up(games_for_half_width(spec.precision) / 4), 100))
        targets = {p.index: first for p in points}

    warm_up(game, compiled[points[0].index], pols[points[0].index], spec.seed, progress)
    t0 = time.perf_counter()
    played = 0
    counted = {p.index: (0, 0) for p in points}    # precision: (games counted, outcome-0 wins)
    with make_progress(progress, f"{command} {game.name}", sum(targets.values())) as bar:
        done_upto = {p.index: 0 for p in points}
        while True:
            have = {pt: [(a, n) for a, n, _ in lst] for pt, lst in store.chunk_index().items()}

            def on_done(task, cols):
                nonlocal played
                store.write_chunk(task[0], task[1], task[2], cols)
                played += task[2]
                bar.advance(task[2])

            try:
                be.run(game, compiled, pols, spec.seed,
                       _tasks(points, dict(done_upto), dict(targets), spec.chunk, have, bar), keep, on_done)
            except KeyboardInterrupt:
                manifest["status"] = "interrupted"
                store.write_manifest(manifest)
                saved = sum(len(v) for v in store.chunk_index().values())
                how = manifest.get("command") or "sweep"     # skill runs a sweep underneath
                raise Interrupted(f"interrupted: {saved} finished chunks are saved in {outp}; "
                                  f"continue with: lotr-sim {how} --game {game.name} --resume {outp}") from None
            done_upto = dict(targets)
            if goals is not None:
                nxt = next_targets(goals, targets, pair_counts.update(targets), spec.max_games, refs=seq_refs)
                if nxt == targets:
                    break
                targets = nxt
                bar.set_total(sum(targets.values()))
                continue
            if spec.precision is None:
                break
            grow = {}
            for p in points:
                t = targets[p.index]
                if t >= spec.max_games:
                    continue
                c, k = counted[p.index]
                for _, cols in store.iter_games(p.index, upto=t, columns=["winner"], start=c):
                    k += int(np.count_nonzero(cols["winner"] == 0))
                counted[p.index] = (t, k)
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
    rows = []
    for p in points:
        tally, pair = tally_point(game, store, p.index, targets[p.index], targets[0])
        if tally.n != targets[p.index]:
            raise LotrSimError(f"point {p.label}: {tally.n} games on disk, expected {targets[p.index]}")
        row = point_row_tally(game, p, tally, pair, seats=seat_info(game, compiled[p.index], p.policies))
        if spec.precision is not None:
            row["precision_met"] = bool(float(wilson_half_width(tally.wins[0], tally.n)) <= spec.precision)
        gain = None
        if p.index in refs:
            ref, o = refs[p.index]
            gain = tally_gain(store, p.index, targets[p.index], ref, targets[ref], o)
            row.update(gain_ref=points[ref].label, gain_side=game.sides[o], gain_n=gain.n,
                       gain_n10=gain.n10, gain_n01=gain.n01)
        if goals is not None:
            what, goal = goals[p.index]
            h = half_width(what, tally.n, tally.wins[0], 0, 0) if what == RATE else \
                half_width(what, gain.n, 0, gain.n10, gain.n01) if what == GAIN else \
                half_width(what, pair.n, 0, pair.n10, pair.n01)
            row.update(precision_on=what, half_width=h, target_half_width=goal, precision_met=bool(h <= goal))
        row["dims"] = _json_dims(spec, cfgs[p.index], p)
        # on the baseline's rules (a cell of the pairings table when its players are a pairing:
        # a grid cell equal to a pairing is played once, here, and read by both)
        row["baseline_rules"] = bool(cfgs[p.index].hash == cfgs[0].hash)
        row["pairing"] = bool(p.pairing or p.varied == "pairings")
        rows.append(row)
    results = pd.DataFrame(rows)
    atomic_write_parquet(outp / "results.parquet", results)
    if save_games:
        _write_games(store, points, targets, outp / "games.parquet")
    total = int(sum(targets.values()))
    if goals is not None:
        manifest["precision"] = precision_summary(results, spec)
    # the players adapted to the largest levers (``experiments.sweep_adapt``), after the points
    from lotr_sim.experiments.sweep_adapt import adapt_levers
    try:
        adaptation = adapt_levers(game, spec, points, compiled, results, be, outp, threads=threads,
                                  progress=progress, command=command)
    except Interrupted:
        manifest["status"] = "interrupted"
        store.write_manifest(manifest)
        raise
    manifest.pop("adaptation", None)
    if adaptation is not None:
        manifest["adaptation"] = adaptation
    manifest.update(games={p.label: targets[p.index] for p in points}, games_total=total,
                    finished=now_iso(), status="complete",
                    outcomes=list(game.outcomes), reasons=list(game.reasons), sides=list(game.sides),
                    last_run=dict(elapsed_s=elapsed, games_played=played,
                                  games_per_second=(played / elapsed) if elapsed > 0 else None))
    store.write_manifest(manifest)
    return SweepResult(results=results, out=outp, manifest=manifest, points=points,
                       verdict=verdict(results, manifest))


def precision_summary(results, spec: SweepSpec) -> dict:
    """The manifest's ``precision`` in paired mode: the targets, the cap, and every point's
    games and achieved half-width; ``largest`` holds the baseline's half-width and the
    largest of the levers' (paired) and of the pairings' (own rate)."""
    pts = {str(r["label"]): dict(on=str(r["precision_on"]), games=int(r["games"]),
                                 half_width=float(r["half_width"]), target=float(r["target_half_width"]),
                                 met=bool(r["precision_met"])) for _, r in results.iterrows()}
    kinds = {"baseline": results["point"] == 0, "levers": results["precision_on"] == PAIRED,
             "pairings": (results["varied"] == "pairings") & (results["precision_on"] == RATE),
             "gains": results["precision_on"] == GAIN}
    largest = {k: float(results.loc[m, "half_width"].max()) if m.any() else None for k, m in kinds.items()}
    if spec.gain_precision is not None:
        return dict(mode="gain", gain=spec.gain_precision, max_games=spec.max_games, largest=largest, points=pts)
    return dict(mode="paired", baseline=spec.baseline_precision, paired=spec.paired_precision,
                pairings=spec.pairings_precision, max_games=spec.max_games, largest=largest, points=pts)


def _write_games(store: Store, points, targets, path: Path) -> None:
    """``games.parquet`` (one row per game, a ``point`` column first) written chunk file by
    chunk file (memory: one chunk)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    with _atomic_target(path, suffix=".parquet") as tmp:
        writer = None
        try:
            for p in points:
                for _, cols in store.iter_games(p.index, upto=targets[p.index]):
                    cols = {"point": np.full(len(cols["game"]), p.index, dtype=np.int64), **cols}
                    tab = pa.table(cols)
                    if writer is None:
                        writer = pq.ParquetWriter(tmp, tab.schema)
                    writer.write_table(tab.cast(writer.schema))
        finally:
            if writer is not None:
                writer.close()


def _json_dims(spec: SweepSpec, cfg, point) -> str:
    """The value of every swept dimension at this point (baseline values included)."""
    import json
    d = {}
    for name, _ in spec.dims:
        d[name] = point.policies[name] if name in point.policies else cfg.params.get(name)
    return json.dumps(d, sort_keys=True, default=str)
