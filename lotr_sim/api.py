"""The public Python API of lotr-sim (what the CLI and notebooks use).

Every function takes a game by registry name (``"minas-tirith"``) or a ``Game`` object and
works for any game through the ``Game`` seam only. Parameters are given as ``{"name": value}``
mappings or ``["name=value", ...]`` lists. Players are given per side or seat, by the game's
own names (``Game.policy_keys``): as keywords (``good="greedy"``; ``frodo="racer"`` in The
Search; ``p2="greedy"`` for a LOTR Risk seat) or as a mapping ``policies={"sam": "racer"}``;
a name the game does not have is one ``ConfigError`` line.

>>> from lotr_sim import api
>>> r = api.run_games("minas-tirith", games=10_000, seed=1)
>>> r.summary["good_win_rate"], r.summary["good_ci95"]
>>> s = api.sweep("minas-tirith", params={"leader_bonus": [0, 1, 2]}, games=4000, out="reports/lb",
...               run=api.RunOptions(threads=2))
>>> s.results[["label", "rate_good", "lo_good", "hi_good", "delta_good"]]
>>> api.compare("minas-tirith", {"leave_one_behind": True}, {"leave_one_behind": False})
>>> api.balance("minas-tirith", "banner_defence_bonus", "0:3")

Results are frozen dataclasses with documented fields and ``to_dict()`` (the JSON the CLI's
``--json`` prints); ``res["field"]`` reads a field too. They are importable from here:

* ``RunResult`` (``run_games``): ``summary``, ``games`` (one row per game), ``out``;
* ``SweepResult`` (``sweep``, ``skill``): ``results`` (one row per point), ``out``,
  ``manifest``, ``points``, ``verdict``;
* ``CompareResult`` (``compare``): ``decision``, ``verdict``, ``delta`` and ``delta_ci95``,
  both rates with intervals, ``games``, the ``test`` state;
* ``BalanceResult`` (``balance``): ``evaluated`` values, ``bracket``, ``bracket_delta``,
  ``estimate`` and ``interval``, ``message``;
* ``FixResult`` (``fix``): ``fixes`` best first (each with ``set``, ``good``, ``adapted``,
  ``search``), ``closest``, ``played``, ``message``;
* ``TuneResult`` (``tune``), ``LearnResult`` (``learn``): the weights file and the rounds;
* ``PopulationResult`` (``fictitious_play``): each side's population, their payoff matrix
  and the least exploitable pair;
* ``TilesResult`` (``tiles``), ``FellowshipResult`` (``fellowship``): the analyses' tables,
  laws and plots.

Statistics (see ``lotr_sim.stats`` for the formulas): Wilson score intervals
for win rates, t intervals for paired per-game differences (common random numbers: game i
of every variant uses random stream i), and ``compare``'s three-way sequential test on the
paired differences (``lotr_sim.experiments.sequential``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from lotr_sim.errors import ConfigError, LotrSimError

if TYPE_CHECKING:  # the result classes are re-exported lazily (see __getattr__)
    from lotr_sim.games.lotr_risk.fellowship.analysis import FellowshipResult
    from lotr_sim.games.the_search.tiles import TilesResult
    from lotr_sim.games.lotr_risk.fellowship.exact import FellowshipTrack
    from lotr_sim.experiments.compare import BalanceResult, CompareResult
    from lotr_sim.experiments.learn import LearnResult
    from lotr_sim.experiments.run import RunResult
    from lotr_sim.experiments.sweep import SweepResult
    from lotr_sim.experiments.tune import TuneResult
    from lotr_sim.experiments.population import PopulationResult
    from lotr_sim.experiments.fix import FixResult

#: The result classes, by name: the module that defines each (imported on first use).
_RESULTS = {
    "RunResult": "lotr_sim.experiments.run",
    "SweepResult": "lotr_sim.experiments.sweep",
    "CompareResult": "lotr_sim.experiments.compare",
    "BalanceResult": "lotr_sim.experiments.compare",
    "TuneResult": "lotr_sim.experiments.tune",
    "PopulationResult": "lotr_sim.experiments.population",
    "FixResult": "lotr_sim.experiments.fix",
    "LearnResult": "lotr_sim.experiments.learn",
    "TilesResult": "lotr_sim.games.the_search.tiles",
    "FellowshipResult": "lotr_sim.games.lotr_risk.fellowship.analysis",
}

__all__ = ["get_game", "run_games", "sweep", "sweep_spec", "skill", "tune", "fictitious_play", "learn", "compare", "balance", "fix",
           "load_results", "report", "export_csv", "fellowship", "tiles", "replay_html", "RunOptions", "StopRule",
           *_RESULTS]


def _setup_lines(func):
    """Run an API function with each set-up that departs from the rulebook shown as one line
    ``lotr-sim: warning: ...`` on stderr (``games.base.setup_warnings_printed``), as the CLI
    shows it, rather than as a Python warning with a source path (in a notebook too)."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from lotr_sim.games.base import setup_warnings_printed
        with setup_warnings_printed():
            return func(*args, **kwargs)
    return wrapper


def get_game(game):
    """A ``Game`` object from a registry name (or the object itself)."""
    if isinstance(game, str):
        from lotr_sim.games.registry import get_game as _get
        return _get(game)
    return game


def side_policies(game, policies: Mapping[str, str | None] | None = None, /,
                  **sides: str | None) -> dict[str, str]:
    """The players asked for, ``{side or seat: player}``: ``policies`` updated with the keyword
    ``sides``, both keyed by the game's own side and seat names (``Game.policy_keys``:
    good/evil; frodo/sam in The Search; a LOTR Risk seat p1..p4). A keyword side given as None
    keeps the mapping's player; a side with none is left to the game's default. A name the game does not have is one ``ConfigError`` line
    naming the game's sides; the players themselves are checked where they are used
    (``Game.check_policies``)."""
    g = get_game(game)
    given = dict(policies or {})
    given.update((k, v) for k, v in sides.items() if v is not None or k not in given)
    unknown = [k for k in given if k not in g.policy_keys]
    if unknown:
        from lotr_sim.config import closest
        k = unknown[0]
        what = ("side or seat", "sides and seats") if g.seat_keys else ("side", "sides")
        raise ConfigError(f"game '{g.name}' has no {what[0]} '{k}' ({what[1]}: {', '.join(g.policy_keys)})"
                          f"{closest(k, g.policy_keys)}")
    return {str(k): v for k, v in given.items() if v is not None}


@dataclass(frozen=True)
class RunOptions:
    """How a sweep is carried out: where it runs, what it shows and writes beside its
    results. No option here changes a result.

    Attributes
    ----------
    threads : int or None
        Worker threads on this machine (default: every core).
    scheduler : str or None
        A Dask scheduler ``tcp://HOST:PORT`` to run the chunks on.
    cluster : str or None
        ``"local"``: start a Dask LocalCluster.
    workers : int or None
        Workers of ``cluster="local"``.
    connect_timeout : float
        Seconds to reach the scheduler.
    progress : bool
        Show progress on stderr.
    report : bool
        Build ``report.md``/``report.html`` and the plots when the run is done.
    save_games : bool
        Also write ``games.parquet`` (one row per game).
    max_points : int or None
        Refuse a new sweep of more points than this before any is built (default: no limit).
    """

    threads: int | None = None
    scheduler: str | None = None
    cluster: str | None = None
    workers: int | None = None
    connect_timeout: float = 5.0
    progress: bool = False
    report: bool = True
    save_games: bool = False
    max_points: int | None = None


@dataclass(frozen=True)
class StopRule:
    """How many games each point of a sweep plays, beyond a fixed ``games``: one of
    ``precision`` and ``paired_precision`` (see ``sweep``), with their cap and chunk.

    Attributes
    ----------
    precision : float or None
        Batches until every point's own 95% half-width is at most this.
    paired_precision : float or None
        Batches until every lever's paired change against the baseline is known to ± this.
    baseline_precision : float or None
        With ``paired_precision``: the baseline's own rate to ± this (default the same).
    pairings_precision : float or None
        With ``paired_precision``: each pairing's rate to ± this (default twice it).
    max_games : int or None
        The most games a point plays in either mode.
    chunk : int or None
        Games per chunk, the unit of work and of resuming (default 2000).
    """

    precision: float | None = None
    paired_precision: float | None = None
    baseline_precision: float | None = None
    pairings_precision: float | None = None
    max_games: int | None = None
    chunk: int | None = None


_RUN_FIELDS = tuple(f.name for f in dataclasses.fields(RunOptions))
_STOP_FIELDS = tuple(f.name for f in dataclasses.fields(StopRule))


def _split_options(game, func: str, options: Mapping[str, Any], stop: StopRule | None,
                   run: RunOptions | None) -> tuple[StopRule, RunOptions, dict[str, str]]:
    """Keyword ``options`` of ``sweep``/``sweep_spec`` sorted into the ``StopRule``, the
    ``RunOptions`` (either given as a keyword overrides the object's field) and the sides'
    players; anything else is one ``ConfigError`` line."""
    stop_kw = {k: v for k, v in options.items() if k in _STOP_FIELDS}
    run_kw = {k: v for k, v in options.items() if k in _RUN_FIELDS}
    rest = {k: v for k, v in options.items() if k not in stop_kw and k not in run_kw}
    g = get_game(game)
    bad = [k for k in rest if k not in g.policy_keys]
    if bad:
        what = ("side or seat", "sides and seats") if g.seat_keys else ("side", "sides")
        raise ConfigError(f"{func}() got an unknown argument '{bad[0]}': no option and game '{g.name}' has no "
                          f"{what[0]} '{bad[0]}' ({what[1]}: {', '.join(g.policy_keys)})")
    return (dataclasses.replace(stop or StopRule(), **stop_kw),
            dataclasses.replace(run or RunOptions(), **run_kw), rest)


@_setup_lines
def run_games(game, games: int = 10_000, seed: int = 1, policies: Mapping[str, str] | None = None,
              sets: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
              threads: int | None = None, out: str | Path | None = None, trace: str | Path | None = None,
              progress: bool = False, *, scheduler: str | None = None, cluster: str | None = None,
              keep_games: bool | None = None, force: bool = False, **sides: str) -> "RunResult":
    """Play games ``0..games-1`` of one configuration (game i uses stream (seed, i)).
    ``sides`` give players by the game's side or seat names (``good="greedy"``,
    ``frodo="racer"``), over ``policies``.

    Returns a ``RunResult`` with ``summary`` (games, wins{outcome}, ``<outcome>_win_rate``,
    ``<outcome>_ci95`` Wilson 95% intervals, reasons{...}, rounds/turns means and quantiles,
    points per side, timing) and ``games``: a DataFrame, one row per game, whose ``winner``
    and ``reason`` are pandas Categoricals with the game's labels (``"good"``, ``"city"``...).
    Memory does not grow with ``games``: the frame is kept only up to 1,000,000 games
    unless ``keep_games=True`` (``None`` beyond that; ``keep_games=False`` never keeps it).
    ``out`` writes ``games.parquet`` (chunk by chunk) and ``summary.json``, refusing a
    folder that holds an earlier run unless ``force``; ``trace`` writes every game's event
    trace as JSON Lines (via ``Game.play``; at most 100,000 games). ``games`` is at most 10**15.
    """
    from lotr_sim.experiments.run import run_games as _run
    g = get_game(game)
    return _run(g, games, seed, side_policies(g, policies, **sides), sets, config, threads, out, trace,
                progress, scheduler=scheduler, cluster=cluster, keep_games=keep_games, force=force)


def default_sweep_file(game_name: str) -> Path:
    """``configs/sweeps/<game>.toml``: the sweep a bare ``lotr-sim sweep`` runs."""
    from lotr_sim.experiments.spec import default_sweep_file as _d
    return _d(game_name)


def sweep_spec(game, params: Mapping[str, Sequence] | Sequence[str] | None = None, *, grid: bool | None = None,
               games: int | None = None, seed: int | None = None, policies: Mapping[str, str] | None = None,
               sets: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
               sweep_file: str | Path | None = None, stop: StopRule | None = None,
               adapt_levers: int | None = None, adapt_budget: Mapping[str, int] | None = None,
               **options: Any):
    """Build a ``SweepSpec``. With no ``params`` and no ``sweep_file``, the game's default
    sweep file ``configs/sweeps/<game>.toml`` is used; explicit arguments override the file.
    ``params``: ``{"name": [v1, v2]}`` or ``["name=v1,v2", "name=start:stop:step"]``.
    One stopping rule: ``games``, or ``stop``'s ``precision`` or ``paired_precision`` (see
    ``sweep``); ``adapt_levers`` and ``adapt_budget`` as in ``sweep``; ``options`` are
    ``StopRule`` fields as keywords and side players."""
    from lotr_sim.experiments.spec import make_spec
    g = get_game(game)
    st, run, sides = _split_options(g, "sweep_spec", options, stop, None)
    if run != RunOptions():
        raise ConfigError("sweep_spec() takes no run options (threads, scheduler ...): give them to sweep()")
    return make_spec(g, params, grid, games, st.precision, st.max_games, seed,
                     side_policies(g, policies, **sides), sets, config, st.chunk, sweep_file,
                     st.paired_precision, st.baseline_precision, st.pairings_precision,
                     adapt_levers, adapt_budget)


@_setup_lines
def sweep(game, params: Mapping[str, Sequence] | Sequence[str] | None = None, *, games: int | None = None,
          seed: int | None = None, sets: Sequence[str] | Mapping[str, Any] | None = None,
          policies: Mapping[str, str] | None = None, config: str | None = None, grid: bool | None = None,
          sweep_file: str | Path | None = None, target: str | None = None,
          pairings: bool | list[str] | None = None, out: str | Path | None = None,
          resume: str | Path | None = None, stop: StopRule | None = None, run: RunOptions | None = None,
          adapt_levers: int | None = None, adapt_budget: Mapping[str, int] | None = None,
          **options: Any) -> "SweepResult":
    """Run a sweep (one-at-a-time around the baseline, or ``grid=True`` for the factorial).

    Each point plays games ``0..n-1`` with streams ``0..n-1`` (common random numbers), so
    every point's change against the baseline comes with a paired 95% interval. Output
    folder ``out`` (default ``reports/<game>/<timestamp>/``): ``results.parquet``,
    ``manifest.json``, ``chunks/``, ``report.md``/``report.html`` with ``plots/``, and
    ``games.parquet`` with ``save_games``. ``resume=DIR`` continues a killed sweep, or
    extends a finished one: with another ``games``, ``precision`` or ``paired_precision``
    the games it has are kept and only the missing ones played (game i on stream i, so the
    result is a fresh run's with those options); other arguments must match or be omitted.
    ``target`` is the verdict's parity: ``"good50"`` (Good wins 50% of games, default) or
    ``"equal"`` (Good wins as often as Evil); ``pairings=True`` also plays the baseline under
    every pairing of the game's policies (both default to the sweep file's keys; the default
    Minas Tirith sweep has pairings).

    Games per point: ``games`` (a fixed count), or a ``StopRule``: ``precision`` (batches
    until every point's own 95% half-width is at most this) or ``paired_precision``
    (batches until every lever's paired change against the baseline is known to ± this, the
    baseline's rate to ± ``baseline_precision`` (default the same) and each pairing's rate
    to ± ``pairings_precision`` (default twice it); the default Minas Tirith sweep's mode:
    ±1, ±1, ±2 points); ``max_games`` caps the last two.

    How it runs is ``run``, a ``RunOptions``: ``threads``, Dask (``scheduler``, ``cluster``,
    ``workers``, ``connect_timeout``), ``progress``, ``report``, ``save_games`` and
    ``max_points`` (refuses a new sweep of more points, a large grid, before any is built).

    ``adapt_levers=K`` also measures the K largest levers after the players adapt to them
    (``experiments.sweep_adapt``: both sides' default weights re-tuned to the lever's rules,
    each side's kept where they beat its default weights; then Good's paired change with
    them against the default players under the default rules, in ``verdict["levers"]``'s
    ``adapted``); default: the sweep file's ``adapt_levers`` (the default Minas Tirith sweep:
    3), else 0. ``adapt_budget`` (``generations``, ``games``, ``check_games``: default 8,
    300, 5,000, or the sweep file's ``adapt_*`` keys) is each adaptation's budget. A resumed
    sweep may change ``adapt_levers``; a finished adaptation is never redone.

    ``options``: any field of ``StopRule`` or ``RunOptions`` as a keyword
    (``precision=0.01``, ``threads=2``; it overrides ``stop``'s or ``run``'s), and players by
    the game's side or seat names (``good="greedy"``, ``frodo="racer"``).
    Returns a ``SweepResult`` (``results`` DataFrame, ``out`` folder, ``manifest``,
    ``verdict``: the answer first — who is favoured, by how much, levers, parity values).
    """
    from lotr_sim.experiments.spec import sweep_file_options
    from lotr_sim.experiments.sweep import run_sweep
    from lotr_sim.experiments.verdict import check_target
    g = get_game(game)
    st, ro, sides = _split_options(g, "sweep", options, stop, run)
    pols = side_policies(g, policies, **sides)
    if target is not None:
        target = check_target(target)
    explicit = st != StopRule() or any(x is not None and x != [] and x != {} for x in
                                       (params, grid, games, seed, pols, sets, config, sweep_file,
                                        adapt_levers, adapt_budget))
    spec = None
    if resume is not None and explicit:
        spec = _resumed_spec(g, resume, params=params, grid=grid, games=games, seed=seed, policies=pols,
                             sets=sets, config=config, sweep_file=sweep_file, stop=st,
                             adapt_levers=adapt_levers, adapt_budget=adapt_budget)
        if sweep_file is not None:
            opts = sweep_file_options(g.name, params, sweep_file)
            pairings = opts.get("pairings") if pairings is None else pairings
            target = opts.get("target") if target is None else target
    elif resume is None:
        spec = sweep_spec(g, params, grid=grid, games=games, seed=seed, policies=pols, sets=sets, config=config,
                          sweep_file=sweep_file, stop=st, adapt_levers=adapt_levers, adapt_budget=adapt_budget)
        opts = sweep_file_options(g.name, params, sweep_file)
        pairings = opts.get("pairings") if pairings is None else pairings
        target = opts.get("target") if target is None else target
    res = run_sweep(g, spec, out=out, threads=ro.threads, scheduler=ro.scheduler, cluster=ro.cluster,
                    workers=ro.workers, save_games=ro.save_games, progress=ro.progress, resume=resume,
                    connect_timeout=ro.connect_timeout, target=target, pairings=pairings,
                    max_points=ro.max_points)
    if ro.report:
        _build_report(res.out, progress=ro.progress)
    return res


def _resumed_spec(g, resume, *, params, grid, games, seed, policies, sets, config, sweep_file,
                  stop: "StopRule", adapt_levers: int | None = None, adapt_budget: Mapping[str, int] | None = None):
    """The spec of ``sweep(resume=DIR, ...)``: the folder's, with the options given here in
    place of its own. A new stopping rule (``games``, ``precision``, ``paired_precision``)
    extends the sweep; a different parameter, rule or player is refused by ``run_sweep`` in
    one line naming it."""
    from lotr_sim.experiments.spec import SweepSpec
    from lotr_sim.experiments.store import Store
    from lotr_sim.experiments.sweep import resume_spec
    m = Store(Path(resume)).read_manifest()
    try:
        old = SweepSpec.from_dict(m["spec"])
    except (KeyError, TypeError, ValueError):
        raise LotrSimError(f"cannot read {Path(resume) / 'manifest.json'}: corrupt manifest (no valid 'spec')") from None
    if m.get("game") not in (None, g.name):
        raise LotrSimError(f"resume folder {resume} holds a sweep of game '{m.get('game')}', not '{g.name}'")
    # the options not given are the folder's (its swept parameters, not the game's sweep file)
    spec = sweep_spec(g, params if params or sweep_file is not None else dict(old.dims),
                      grid=old.grid if grid is None and not params and sweep_file is None else grid,
                      games=games, seed=seed, policies=policies, sets=sets, config=config,
                      sweep_file=sweep_file, stop=stop, adapt_levers=adapt_levers, adapt_budget=adapt_budget)
    given = set()
    if params or sweep_file is not None:
        given |= {"dims", "grid", "adapt_levers", "adapt_generations", "adapt_games", "adapt_check_games"}
    if adapt_levers is not None:
        given.add("adapt_levers")
    if adapt_budget:
        given |= {f"adapt_{k}" for k in adapt_budget}
    for key, v in (("grid", grid), ("seed", seed), ("policies", policies), ("base_sets", sets),
                   ("config", config), ("chunk", stop.chunk)):
        if v is not None and v != [] and v != {}:
            given.add(key)
    if games is not None or any(getattr(stop, k) is not None for k in
                                ("precision", "paired_precision", "baseline_precision", "pairings_precision")):
        given.add("stop")
        if stop.max_games is None:
            spec.max_games = None       # the cap of the new rule, not the file's or the old one's
    elif stop.max_games is not None:
        given.add("max_games")
    return resume_spec(old, spec, given)


#: skill's sequential mode: the 95% half-width every side's gain is measured to (points / 100),
#: the cap of games per pairing and the chunk (the unit of work and of resuming)
SKILL_HALF_WIDTH = 0.03
SKILL_MAX_GAMES = 4000
SKILL_CHUNK = 50
#: the judge of exploitability: the player whose gains ``skill`` measures
SKILL_JUDGE = "search-wide"


def skill_players(game) -> list[str]:
    """``skill``'s default ladder, weak to strong: random, greedy, the shipped tuned weights
    (when the game has them) and the judge (``search-wide``); a game without a greedy player
    pairs its own players and the judge."""
    g = get_game(game)
    own = list(g.builtin_policies)
    if "random" not in own or "greedy" not in own:
        return own + [SKILL_JUDGE]
    names = ["random", "greedy"]
    if g.policy_table is not None:
        from lotr_sim.games.weights import shipped_path
        if shipped_path(g.name).is_file():
            names.append("tuned")
    return names + [SKILL_JUDGE]


def skill_judge(names: Sequence[str], judge: str | None = None) -> str:
    """The judge of a skill run: ``judge`` when given, else the last player of ``names`` from
    ``lotr_sim.players`` (the search players), else ``SKILL_JUDGE``."""
    from lotr_sim.games.players import is_generic
    if judge is not None:
        return judge
    return next((p for p in reversed(list(names)) if is_generic(p)), SKILL_JUDGE)


@_setup_lines
def skill(game, players: Sequence[str] | None = None, games: int | None = None, seed: int | None = None,
          sets: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
          threads: int | None = None, out: str | Path | None = None, resume: str | Path | None = None,
          scheduler: str | None = None, cluster: str | None = None, workers: int | None = None,
          progress: bool = False, chunk: int | None = None, target: str | None = None,
          report: bool = True, connect_timeout: float = 5.0, policies: Mapping[str, str] | None = None,
          half_width: float | None = None, max_games: int | None = None, judge: str | None = None,
          best_response: bool = False, br_generations: int | None = None, br_games: int | None = None,
          br_check_games: int | None = None, **sides: str) -> "SweepResult":
    """How exploitable are the players, and does the verdict hold for stronger play? Play the
    baseline rules (defaults plus ``sets``) under every pairing of ``players`` (default
    ``skill_players``: random, greedy, tuned, the judge ``search-wide``) and give each
    pairing's win rates with intervals. The judge's gain against each player P on each side
    (the judge on that side, P on the others, against P v P on the same games) is measured
    sequentially: batch by batch until the paired 95% interval of each side's gain has a
    half-width of at most ``half_width`` (points / 100, default 0.03), each side stopping on
    its own, at most ``max_games`` games a pairing (default 4,000); the other pairings aim at
    twice that half-width on their own rate. ``games`` instead plays a fixed number of games
    per pairing. The verdict says whether the side favoured under the baseline's players
    (``policies`` and the keyword ``sides`` by the game's side names, default the game's) is
    still favoured with the judge on every seat, and a
    run whose gains are not yet known to the goal says so in its headline. A sweep
    underneath: same folder layout, ``--resume`` (finished chunks are kept; the batch targets
    are a function of the games played, so a resumed or re-chunked run gives the same result)
    and Dask. Returns a ``SweepResult`` whose ``verdict["skill"]`` holds the answer; the
    judge's gains are also written to ``skill.toml`` in the folder (``experiments.skillfig``:
    copied to ``configs/skill/<game>.toml``, every verdict cites them). With ``best_response``
    it also tunes, for each player with a weight family (greedy, tuned), each side's weights
    against it and measures their paired gain on fresh games (``experiments.exploitability``;
    ``br_generations``, ``br_games`` per candidate and generation, ``br_check_games``), written
    beside the judge's gains."""
    from lotr_sim.config import parse_overrides
    from lotr_sim.experiments.spec import SweepSpec, pairing_players
    from lotr_sim.experiments.sweep import run_sweep
    g = get_game(game)
    spec = None
    if resume is None:
        names = list(players) if players else skill_players(g)
        names = pairing_players(g, names)
        judge = skill_judge(names, judge)
        from lotr_sim.games.players import is_generic
        if not is_generic(judge):
            raise LotrSimError(f"--judge must be a search player (a player from lotr_sim.players: "
                               f"search-wide, search, ...), not '{judge}'")
        names = pairing_players(g, names + ([judge] if judge not in names else []))
        if len(names) < 2:
            raise LotrSimError("skill needs at least two players to pair")
        base_sets = dict(sets) if isinstance(sets, Mapping) else parse_overrides(sets or [])
        ck = SKILL_CHUNK if chunk is None else int(chunk)
        if ck < 1:
            raise LotrSimError(f"--chunk must be at least 1, got {ck}")
        if games is not None:
            if int(games) < 1:
                raise LotrSimError(f"--games must be at least 1, got {games}")
            if half_width is not None or max_games is not None:
                raise LotrSimError("give either --games (a fixed number per pairing) or --half-width/--max-games "
                                   "(play until each gain is known to the half-width), not both")
        else:
            hw = SKILL_HALF_WIDTH if half_width is None else float(half_width)
            if not 0 < hw < 0.5:
                raise LotrSimError(f"--half-width must be above 0 and below 50 points, got {100 * hw:g}")
            cap = SKILL_MAX_GAMES if max_games is None else int(max_games)
            if cap < ck:
                raise LotrSimError(f"--max-games {cap:,} is below --chunk {ck:,}: a pairing plays whole chunks; "
                                   f"give --max-games of at least {ck:,}")
        spec = SweepSpec(game=g.name, dims=[], base_sets=base_sets,
                         policies=g.check_policies(side_policies(g, policies, **sides)), config=config,
                         seed=1 if seed is None else int(seed), games=None if games is None else int(games),
                         chunk=ck, pairings=names, judge=judge,
                         gain_precision=None if games is not None else hw,
                         max_games=None if games is not None else cap)
    res = run_sweep(g, spec, out=out, threads=threads, scheduler=scheduler, cluster=cluster,
                    workers=workers, progress=progress, resume=resume,
                    connect_timeout=connect_timeout, target=target, command="skill")
    if report:
        _build_report(res.out, progress=progress)
    from lotr_sim.experiments import skillfig
    base = res.points[0].label
    fig = skillfig.figures(res.verdict or {}, res.manifest, res.manifest["config"]["hashes"][base])
    if fig is not None and best_response:
        from lotr_sim.experiments import exploitability as ex
        kw = {k: v for k, v in (("generations", br_generations), ("games", br_games),
                                ("check_games", br_check_games)) if v is not None}
        spec_d = res.manifest["spec"]
        fig["best_response"] = {
            p: ex.best_response(g, p, seed=int(res.manifest["seed"]), sets=spec_d.get("base_sets") or None,
                                config=spec_d.get("config"), threads=threads,
                                out=Path(res.out) / "best-response", progress=progress, **kw)
            for p in ex.family_players(g, list(fig["players"]))}
    if fig is not None:   # copied to configs/skill/<game>.toml, every verdict can cite it
        skillfig.write(Path(res.out) / skillfig.FILE, fig)
    return res


@_setup_lines
def tune(game, generations: int = 30, games: int = 400, seed: int = 1, popsize: int | None = None,
         sigma: float = 0.2, final_games: int = 2000, sets: Sequence[str] | Mapping[str, Any] | None = None,
         config: str | None = None, threads: int | None = None, out: str | Path | None = None,
         resume: str | Path | None = None, scheduler: str | None = None, cluster: str | None = None,
         workers: int | None = None, progress: bool = False, sides: Sequence[str] | None = None,
         start: str | None = None, opponents: Sequence[str] | None = None,
         opponent_weights: Sequence[float] | None = None) -> "TuneResult":
    """Tune the game's heuristic weights by CMA-ES self-play against greedy and the best
    weights so far, ``games`` paired games per side and opponent for each candidate of each of
    ``generations`` generations; then the best weights against greedy on every side on
    ``final_games`` fresh games. Writes ``tuned.toml`` (weights with provenance), which
    ``policies={"good": "tuned:PATH"}`` reads. Resumable (``resume``), runs on Dask.
    ``sides`` tunes only those sides (the others keep ``start``'s weights, default greedy's);
    ``opponents`` is the pool (default greedy and the best so far, ``("greedy", "best")``),
    ``opponent_weights`` weighs a pool of fixed players (a mixed strategy's payoff).
    Returns a ``TuneResult`` (``lotr_sim.experiments.tune``)."""
    from lotr_sim.experiments.tune import tune as _tune
    return _tune(get_game(game), config=config, sets=sets, seed=seed, generations=generations, games=games,
                 popsize=popsize, sigma=sigma, final_games=final_games, threads=threads, scheduler=scheduler,
                 cluster=cluster, workers=workers, out=out, resume=resume, progress=progress,
                 sides=sides, start=start, opponents=opponents, opponent_weights=opponent_weights)


def fictitious_play(game, rounds: int = 4, seed: int = 1, generations: int = 8, games: int = 200,
                    matrix_games: int = 4000, start: str | None = None, popsize: int | None = None,
                    sigma: float = 0.2, sets: Sequence[str] | Mapping[str, Any] | None = None,
                    config: str | None = None, threads: int | None = None, out: str | Path | None = None,
                    resume: str | Path | None = None, scheduler: str | None = None,
                    cluster: str | None = None, workers: int | None = None,
                    progress: bool = False, against: str = "all") -> "PopulationResult":
    """Fictitious play inside a two-sided game's weight family: ``rounds`` rounds, each
    tuning every side (``generations`` generations of ``games`` paired games) against every
    weights the other side has had so far (``against="all"``) or against the other side's
    equilibrium mixture of the population's payoff matrix (``against="nash"``: the double
    oracle), from ``start``'s weights; then every member of one
    side against every member of the other on ``matrix_games`` fresh games, and each side's
    maximin member (its least exploitable in the population) written as ``tuned.toml``.
    Resumable (``resume``), runs on Dask. Returns a ``PopulationResult``
    (``lotr_sim.experiments.population``)."""
    from lotr_sim.experiments.population import fictitious_play as _fp
    return _fp(get_game(game), rounds=rounds, seed=seed, generations=generations, games=games,
               matrix_games=matrix_games, start=start, popsize=popsize, sigma=sigma, config=config,
               sets=sets, threads=threads, out=out, resume=resume, scheduler=scheduler, cluster=cluster,
               workers=workers, progress=progress, against=against)


@_setup_lines
def fix(game, params: Mapping[str, Sequence] | Sequence[str] | None = None, *, sweep_file: str | Path | None = None,
        sets: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
        policies: Mapping[str, str] | None = None, target: float = 0.5, tol: float = 0.01, seed: int = 1,
        games: int = 2000, budget: int = 1_000_000, confirm_games: int = 10_000, final_games: int = 20_000,
        max_levers: int = 3, top: int = 1, adapt: bool = True, tune_generations: int = 8, tune_games: int = 300,
        adapt_games: int = 10_000, search_games: int = 60, threads: int | None = None,
        scheduler: str | None = None, cluster: str | None = None, workers: int | None = None,
        out: str | Path | None = None, resume: str | Path | None = None, progress: bool = False,
        **sides: str) -> "FixResult":
    """The smallest rule changes that bring Good's (the first outcome's) win rate within
    ±``tol`` of ``target``, found over several rule parameters at once and re-checked with
    players adapted to them.

    Levers: ``params`` (``["name", "name=v1,v2"]`` or ``{"name": [values]}``; a bare name
    takes the parameter's own range) or the game's sweep file's ``[params]``; costs from its
    ``[fix.cost]``. Screening plays ``games`` paired games a rule set (every single change,
    then the two- and three-lever combinations a logistic response model proposes, within
    ``budget`` games), refines the promising ones to ``confirm_games`` and checks each fix on
    ``final_games`` fresh games. ``adapt`` re-tunes both sides' default weights on each fix's
    rules (``tune_generations`` x ``tune_games``, warm-started) and plays ``adapt_games`` with
    them and ``search_games`` a side with the search player against them. Writes
    ``fix.json``, ``fixes.json`` (``experiments.fixfig``: copied to
    ``configs/fixes/<game>.json``, every sweep verdict on these rules and players suggests
    the fixes), ``report.md``/``report.html`` into ``out`` (default
    ``reports/<game>/fix-<timestamp>/``); ``resume=DIR`` continues an interrupted run.
    Returns a ``FixResult`` (``lotr_sim.experiments.fix``), its ``fixes`` best first."""
    from lotr_sim.experiments.fix import fix as _fix
    g = get_game(game)
    return _fix(g, params, sweep_file=sweep_file, sets=sets, config=config,
                policies=side_policies(g, policies, **sides), target=target, tol=tol, seed=seed, games=games,
                budget=budget, confirm_games=confirm_games, final_games=final_games, max_levers=max_levers,
                top=top, adapt=adapt, tune_generations=tune_generations, tune_games=tune_games,
                adapt_games=adapt_games, search_games=search_games, threads=threads, scheduler=scheduler,
                cluster=cluster, workers=workers, out=out, resume=resume, progress=progress)


@_setup_lines
def learn(game, iterations: int = 3, games: int = 100, budget: int = 1024, check_games: int = 20_000,
          start: str = "tuned", l2: float = 1.0, chunk: int = 10, seed: int = 1,
          sets: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
          threads: int | None = None, out: str | Path | None = None, resume: str | Path | None = None,
          progress: bool = False, target: str = "choice", extend_to: int | None = None,
          sides: Sequence[str] | None = None, states: str = "search") -> "LearnResult":
    """Learn a fast player from a wide search's decisions (expert iteration): ``iterations``
    rounds of ``games`` search games a side (``budget`` playouts a decision) against the current
    player (first ``start``), a conditional-logit fit of the learned term's weights on all the
    data so far, and a paired check on ``check_games`` games a side; stops when a round gains
    nothing. ``target`` is what the fit follows: the search's chosen rows (``"choice"``) or its
    playouts' values of every row (``"value"``); ``extend_to`` raises a resumed run's rounds;
    ``sides`` learns only those sides (default every side); ``states="player"`` plays the search
    games with the current player's choices, the search only labelling them (its gain is then not
    measured). Writes ``learned.toml`` (``policies={"good": "tuned:PATH"}`` plays it). Returns a
    ``LearnResult`` (``lotr_sim.experiments.learn``)."""
    from lotr_sim.experiments.learn import learn as _learn
    return _learn(get_game(game), config=config, sets=sets, seed=seed, iterations=iterations, games=games,
                  check_games=check_games, budget=budget, start=start, l2=l2, chunk=chunk, threads=threads,
                  out=out, resume=resume, progress=progress, target=target, extend_to=extend_to, sides=sides,
                  states=states)


@_setup_lines
def compare(game, a: Sequence[str] | Mapping[str, Any], b: Sequence[str] | Mapping[str, Any],
            sets=None, policies: Mapping[str, str] | None = None, config: str | None = None,
            seed: int = 1, alpha: float = 0.05, beta: float = 0.05, p0: float | None = None,
            p1: float | None = None, delta: float | None = None, max_games: int = 200_000,
            min_games: int = 100, threads: int | None = None, paired: bool = True, progress: bool = False,
            scheduler: str | None = None, cluster: str | None = None, **sides: str) -> "CompareResult":
    """Does variant ``a`` move Good's win rate against variant ``b`` by at least ``delta``
    (default 0.02) either way, or not? ``a``/``b`` are parameter or ``good``/``evil`` policy
    assignments (a side by the game's name: ``good=``, ``frodo=``); ``policies`` and the
    keyword ``sides`` give both variants' players; games are paired (game i of both uses stream i) and a three-way sequential
    test on the paired win/no-win differences (two trinomial GSPRTs combined Sobel-Wald style,
    ``lotr_sim.experiments.sequential``) stops as soon as it can answer and the printed
    interval agrees. ``p0``/``p1`` are refused (kept for a clear message).

    Returns a ``CompareResult``: ``decision`` (``"raises"``/``"lowers"``/``"no_change"``/None when undecided
    within ``max_games``), ``verdict`` (the sentence), ``delta`` (Good's win rate under A minus
    under B) with its Bonett-Price ``delta_ci95``, ``games`` used, both rates with Wilson
    intervals and the ``test`` state.
    """
    from lotr_sim.experiments.compare import compare as _cmp
    g = get_game(game)
    return _cmp(g, a, b, sets, side_policies(g, policies, **sides), config, seed, alpha, beta, p0, p1, delta,
                max_games, min_games=min_games, threads=threads, paired=paired, progress=progress,
                scheduler=scheduler, cluster=cluster)


@_setup_lines
def balance(game, param: str, range: str, target: float | str = 0.5, games: int = 4000, sets=None,
            policies: Mapping[str, str] | None = None, config: str | None = None, seed: int = 1,
            tol: float | None = None, max_steps: int = 12, threads: int | None = None,
            progress: bool = False, scheduler: str | None = None, cluster: str | None = None,
            **sides: str) -> "BalanceResult":
    """Find where Good's (the first outcome's) win rate crosses ``target`` as ``param``
    goes over ``range`` ("a:b"), by bisection on paired runs. ``target`` is a rate in (0, 1)
    or ``"equal"`` (Good wins as often as Evil); the result's ``parity`` says which. Returns a
    ``BalanceResult``: the bracketing values with their rates and intervals, the paired change between them, an
    interpolated estimate and its interval. Players: ``policies`` and the keyword ``sides``
    by the game's side names."""
    from lotr_sim.experiments.compare import balance as _bal
    g = get_game(game)
    return _bal(g, param, range, None, target, games, sets, side_policies(g, policies, **sides), config, seed,
                tol, max_steps, threads, scheduler, cluster, progress)


def load_results(folder: str | Path):
    """``(results DataFrame, manifest dict)`` of a sweep folder."""
    from lotr_sim.reports.build import load_results as _load
    return _load(folder)


def report(folder: str | Path, target: str | None = None, progress: bool = False) -> dict:
    """Rebuild ``report.md``/``report.html`` (verdict first) and the plots of a sweep folder
    from its Parquet. ``target`` (``good50``/``equal``) other than the parity kept in its
    manifest writes ``report-<target>.md``/``.html`` beside the sweep's report instead.
    ``progress`` shows each stage on stderr."""
    return _build_report(folder, target, progress)


def _build_report(folder: str | Path, target: str | None = None, progress: bool = False) -> dict:
    """The report of a sweep folder (``reports.build.build_report``). ``sweep`` and ``skill``
    build theirs here once the sweep is done: the experiments do not know the reports."""
    from lotr_sim.reports.build import build_report
    return build_report(folder, target, progress)


def export_csv(folder: str | Path) -> Path:
    """Write ``results.csv`` (the results table, one row per point) beside a sweep folder's
    ``results.parquet``; returns its path."""
    from lotr_sim.reports.build import export_csv as _export
    return _export(folder)


@_setup_lines
def fellowship(config: str | None = None, sets: Sequence[str] | Mapping[str, Any] = (),
               games: int = 100_000, seed: int = 1, track: "FellowshipTrack | None" = None,
               players: int = 2, threads: int | None = None) -> "FellowshipResult":
    """The LOTR Risk Fellowship's journey without cards (LR-10): the exact law of the player
    turns until the Ring leaves the Dead Marshes (and of the game's length in rounds for
    ``players`` players), beside ``games`` Monte Carlo journeys (journey i on stream
    (seed, i); 0: exact only) with intervals, the mean's z-score and a chi-square test.

    The track is ``track`` or, without it, the LOTR Risk game's: its config (``config``
    TOML, ``sets`` overrides such as ``["fellowship_roll_above=4"]``) through
    ``Game.fellowship_track``. ``FellowshipResult.to_dict()`` is what ``lotr-sim fellowship
    --json`` prints; the formulas are in ``lotr_sim.games.lotr_risk.fellowship.exact``, the Monte
    Carlo and its tests in ``lotr_sim.games.lotr_risk.fellowship.analysis``.
    """
    from lotr_sim.analyses.battles import check_games
    from lotr_sim.experiments.backends import check_threads
    from lotr_sim.games.lotr_risk.fellowship.analysis import fellowship_result
    from lotr_sim.games.lotr_risk.fellowship.exact import FellowshipTrack
    games = check_games(games)
    check_threads(threads)
    if track is None:
        g = get_game("lotr-risk")
        if not hasattr(g, "fellowship_track"):
            raise LotrSimError(f"the {g.name} game does not expose its Fellowship track (fellowship_track)")
        cfg = g.load(config, sets or None)
        track = g.fellowship_track(cfg)
    elif config is not None or sets:
        raise ConfigError("give either a track or a config/--set for the LOTR Risk game, not both")
    if not isinstance(track, FellowshipTrack):
        raise ConfigError(f"track must be a FellowshipTrack, got {type(track).__name__}")
    return fellowship_result(track, games, seed, players, threads)


@_setup_lines
def tiles(games: int = 2000, seed: int = 1, config: str | None = None,
          sets: Sequence[str] | Mapping[str, Any] | None = None, policies: Mapping[str, str] | None = None,
          threads: int | None = None, out: str | Path | None = None, force: bool = False,
          **sides: str) -> "TilesResult":
    """The Search's tile-draw outcomes (what ``lotr-sim tiles`` prints): play games
    ``0..games-1`` (game i on stream (seed, i)) of the tile catalogue and placing rules given
    by ``config``/``sets`` (TS-1.2, TS-3) with ``policies`` (``{"frodo": ..., "sam": ...}``,
    or as keywords ``frodo=..., sam=...``; default the game's players, tuned v tuned), and report the share of turns with an unplaceable hand (TS-3.4),
    neutral tiles per game, where Mount Doom ends up (6 x 8, TS-5.3) and its distance from the
    Shire, token sites per colour (TS-4.3), tokens never collected and phase lengths (TS-5),
    each with a 95% interval over games.

    Returns a ``TilesResult``: ``table`` (DataFrame: quantity, value, lo, hi), ``doom_heat``
    (6 x 8 DataFrame, share of games), ``neutral_tiles``, ``text()`` (the CLI's text),
    ``heatmap()`` and ``figures()`` (``matplotlib.figure.Figure`` objects, no pyplot state).
    ``out`` writes ``report.json``, ``summary.csv``, ``doom_heat.csv`` and the plots there,
    refusing a folder with files in it unless ``force``.
    """
    from lotr_sim.errors import ConfigError
    from lotr_sim.games.the_search.tiles import TilesResult, tile_report, write
    from lotr_sim.kernels.rng import check_seed
    import operator
    try:
        n = -1 if isinstance(games, bool) else operator.index(games)
    except TypeError:
        n = -1
    if n < 1:
        raise ConfigError(f"games must be a whole number of at least 1, got {games!r}")
    g = get_game("the-search")
    seed = check_seed(seed)
    pols = g.check_policies(side_policies(g, policies, **sides))
    comp = g.compile(g.load(config, sets))
    if out is not None:
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise LotrSimError(f"{out} is not a folder")
        from lotr_sim.experiments.store import probe_writable, refuse_other_output
        refuse_other_output(out, "tiles")
        if out.exists() and any(out.iterdir()) and not force:
            raise LotrSimError(f"{out} is not empty (use --force to replace its files)")
        probe_writable(out)
    rep = tile_report(g, comp, pols, seed, n, threads)
    try:
        paths = write(rep, out) if out is not None else []
    except OSError as e:
        raise LotrSimError(f"cannot write to output folder {out}: {e.strerror or e}") from None
    return TilesResult(rep, out, paths)


def replay_html(trace_path: str | Path, out: str | Path, index: int | None = None) -> dict:
    """Write one traced game (``lotr-sim play --trace``, ``run --trace``; ``index`` picks a game
    of a trace of several, the first by default) as a self-contained HTML page that steps
    through it on a picture of the board. Returns ``path``, ``steps``, ``bytes``, ``seconds``.
    A trace of another trace version or a broken file is one ``LotrSimError`` line."""
    from lotr_sim.replay import replay_html as _replay
    return _replay(trace_path, out, index)


def __getattr__(name: str) -> Any:  # lazy re-exports of the result classes
    if name in _RESULTS:
        import importlib
        return getattr(importlib.import_module(_RESULTS[name]), name)
    raise AttributeError(f"module 'lotr_sim.api' has no attribute '{name}'")
