"""Sweep specifications: ``--param`` parsing, ranges, sweep files, points.

A *dimension* is a rule parameter of the game or a side's policy (``good=random,greedy``:
a dimension named after one of ``Game.sides``). One-at-a-time sweeps vary each dimension
alone around the baseline (defaults + ``--set`` + ``--good/--evil``); ``--grid`` runs the
full factorial. Point 0 is always the baseline; every point plays games ``0..n-1`` with
streams ``0..n-1`` (common random numbers).
"""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from lotr_sim.config import closest, load_toml, parse_assignment
from lotr_sim.errors import ConfigError


@dataclass
class Point:
    index: int
    label: str
    varied: str                      # dimension name, "baseline" or "grid"
    value: str                       # the varied value as text ("" for baseline)
    sets: dict[str, Any]             # rule parameter overrides of this point (beyond base)
    policies: dict[str, str]         # full policy assignment
    # also a cell of the pairings table: a pairing equal to this point (the baseline, a
    # players point or a grid cell on the baseline rules) is not played again
    pairing: bool = False

    def as_dict(self) -> dict:
        d = dict(index=self.index, label=self.label, varied=self.varied, value=self.value,
                 sets=self.sets, policies=self.policies)
        if self.pairing:
            d["pairing"] = True
        return d


#: The adaptation's budget per lever unless the sweep file says otherwise (``SweepSpec``).
ADAPT_BUDGET = dict(adapt_generations=8, adapt_games=300, adapt_check_games=5000)
#: The least each of ``adapt_levers`` and the budget may be (the tune plays at least 10 games).
ADAPT_MIN = dict(adapt_levers=0, adapt_generations=1, adapt_games=10, adapt_check_games=10)


@dataclass
class SweepSpec:
    """Everything that decides a sweep's results (hashed for ``--resume``)."""

    game: str
    dims: list[tuple[str, list[Any]]]
    grid: bool = False
    base_sets: dict[str, Any] = field(default_factory=dict)
    policies: dict[str, str] = field(default_factory=dict)
    config: str | None = None
    seed: int = 1
    games: int | None = None
    precision: float | None = None
    max_games: int | None = None
    chunk: int = 2000
    # sequential allocation on paired targets (``sweep`` module docstring): the 95% half-width
    # of every lever's paired change v the baseline, of the baseline's own rate, and of each
    # pairing's own rate; the mode is on when ``paired_precision`` is set
    paired_precision: float | None = None
    baseline_precision: float | None = None
    pairings_precision: float | None = None
    # also play the baseline under every pairing of policies: True for the game's built-in
    # players (random and the heuristics), or a list of player names (``skill`` adds search)
    pairings: bool | list[str] = False
    # skill's sequential mode (``sweep`` module docstring): every pairing with the judge on one
    # side and one player P on the others plays until the 95% half-width of the judge's paired
    # gain there over P v P is at most ``gain_precision``; ``judge`` names that player
    gain_precision: float | None = None
    judge: str | None = None
    # the "after adaptation" figure (``experiments.sweep_adapt``): the players adapted to the
    # ``adapt_levers`` largest levers (0: none), each tune ``adapt_generations`` x
    # ``adapt_games``, each side's re-tuned weights kept where they win ``adapt_check_games``
    # paired games
    adapt_levers: int = 0
    adapt_generations: int = ADAPT_BUDGET["adapt_generations"]
    adapt_games: int = ADAPT_BUDGET["adapt_games"]
    adapt_check_games: int = ADAPT_BUDGET["adapt_check_games"]

    def as_dict(self) -> dict:
        d = dict(game=self.game, dims=[[n, list(v)] for n, v in self.dims], grid=self.grid,
                 base_sets=self.base_sets, policies=self.policies, config=self.config,
                 seed=self.seed, games=self.games, precision=self.precision,
                 max_games=self.max_games, chunk=self.chunk)
        if self.pairings:  # only when set, so folders written before the key resume unchanged
            d["pairings"] = True if self.pairings is True else list(self.pairings)
        if self.paired_precision is not None:   # likewise
            d.update(paired_precision=self.paired_precision, baseline_precision=self.baseline_precision,
                     pairings_precision=self.pairings_precision)
        if self.gain_precision is not None:    # likewise
            d.update(gain_precision=self.gain_precision)
        if self.judge is not None:
            d.update(judge=self.judge)
        if self.adapt_levers:                  # likewise
            d.update(adapt_levers=self.adapt_levers)
        d.update({k: getattr(self, k) for k, v in ADAPT_BUDGET.items() if getattr(self, k) != v})
        return d

    @classmethod
    def from_dict(cls, d: Mapping) -> "SweepSpec":
        d = dict(d)
        d["dims"] = [(n, list(v)) for n, v in d["dims"]]
        return cls(**d)


PRECISION_KEYS = ("paired_precision", "baseline_precision", "pairings_precision")


def paired_targets(paired: float, baseline: float | None = None,
                   pairings: float | None = None) -> tuple[float, float, float]:
    """``(paired, baseline, pairings)`` half-widths of the paired mode: the baseline's own
    rate defaults to the levers' paired target, a pairing's own rate to twice it (the
    pairings show how much the answer depends on the players, a coarser question)."""
    return (paired, paired if baseline is None else baseline,
            min(2 * paired, 0.49) if pairings is None else pairings)


def _num(text: str) -> Decimal:
    try:
        return Decimal(text.strip())
    except InvalidOperation:
        raise ConfigError(f"range bound {text!r} is not a number") from None


def parse_range(name: str, text: str) -> list[Any]:
    """``start:stop[:step]`` (stop included) -> list of numbers. Raises on empty/inverted."""
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise ConfigError(f"--param {name}: range must be start:stop or start:stop:step, got {text!r}")
    start, stop = _num(parts[0]), _num(parts[1])
    step = _num(parts[2]) if len(parts) == 3 else Decimal(1)
    if step <= 0:
        raise ConfigError(f"--param {name}: range step must be positive, got {parts[2] if len(parts) == 3 else step}")
    if stop < start:
        raise ConfigError(f"--param {name}: inverted range {text!r} (start {start} > stop {stop})")
    vals = []
    v = start
    while v <= stop:
        vals.append(v)
        v += step
        if len(vals) > 10000:
            raise ConfigError(f"--param {name}: range {text!r} has more than 10000 values")
    is_int = all(x == x.to_integral_value() for x in (start, step))
    return [int(x) if is_int else float(x) for x in vals]


def parse_param(text: str) -> tuple[str, list[Any]]:
    """``name=v1,v2,...`` or ``name=start:stop:step`` -> (name, values)."""
    name, rhs = parse_assignment(text)
    if not rhs:
        raise ConfigError(f"--param {name}: empty value list")
    if ":" in rhs and "," not in rhs:
        vals = parse_range(name, rhs)
    else:
        vals = [v.strip() for v in rhs.split(",")]
        if any(v == "" for v in vals):
            raise ConfigError(f"--param {name}: empty value in {rhs!r}")
    if not vals:
        raise ConfigError(f"--param {name}: empty range {rhs!r}")
    return name, vals


def load_sweep_file(path) -> dict:
    """A sweep TOML: game, seed, games|precision|paired_precision (+max_games), grid,
    pairings, target, adapt_levers (+ adapt_generations, adapt_games, adapt_check_games),
    [policies], [set], [params]. ``pairings = true`` also plays the baseline under every
    pairing of the game's policies; ``target`` is the verdict's parity (good50 | equal);
    ``paired_precision`` (with ``baseline_precision`` and ``pairings_precision``) is the
    sequential allocation on paired targets; ``adapt_levers = K`` measures the K largest
    levers after the players adapt to them (``experiments.sweep_adapt``)."""
    d = load_toml(path, what="sweep file")
    for k in PRECISION_KEYS + ("precision",):
        if k in d and (isinstance(d[k], bool) or not isinstance(d[k], (int, float)) or not 0 < d[k] < 0.5):
            raise ConfigError(f"sweep file {path}: {k} must be a number in (0, 0.5), got {d[k]!r}")
    if any(k in d for k in PRECISION_KEYS[1:]) and "paired_precision" not in d:
        raise ConfigError(f"sweep file {path}: baseline_precision and pairings_precision need paired_precision")
    if "pairings" in d and not isinstance(d["pairings"], bool) and not (
            isinstance(d["pairings"], list) and d["pairings"] and all(isinstance(x, str) for x in d["pairings"])):
        raise ConfigError(f"sweep file {path}: pairings must be true, false or a list of player names, "
                          f"got {d['pairings']!r}")
    if "target" in d:
        from lotr_sim.experiments.verdict import check_target
        try:
            d["target"] = check_target(d["target"])
        except ConfigError:
            raise
        except Exception as e:
            raise ConfigError(f"sweep file {path}: {e}") from None
    for k, least in ADAPT_MIN.items():
        if k in d and (isinstance(d[k], bool) or not isinstance(d[k], int) or d[k] < least):
            raise ConfigError(f"sweep file {path}: {k} must be a whole number of at least {least}, got {d[k]!r}")
    params = d.get("params", {})
    if not isinstance(params, dict):
        raise ConfigError(f"sweep file {path}: [params] must be a table of name = [values]")
    dims = []
    for name, vals in params.items():
        if isinstance(vals, str):
            dims.append(parse_param(f"{name}={vals}"))
        elif isinstance(vals, list) and vals:
            dims.append((name, list(vals)))
        else:
            raise ConfigError(f"sweep file {path}: params.{name} must be a non-empty list or a range string")
    d["dims"] = dims
    return d


def sweep_file_options(game_name: str, params, sweep_file) -> dict:
    """``pairings`` and ``target`` of the sweep file a sweep uses (the given one, or the
    game's default file when no ``params`` are given); ``{}`` when none is used."""
    from pathlib import Path

    from lotr_sim.config import configs_dir
    if sweep_file is None:
        if params:
            return {}
        sweep_file = configs_dir() / "sweeps" / f"{game_name}.toml"
        if not Path(sweep_file).is_file():
            return {}
    d = load_sweep_file(sweep_file)
    return {k: d[k] for k in ("pairings", "target") if k in d}


def _canon(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def default_sweep_file(game_name: str) -> Path:
    """``configs/sweeps/<game>.toml``: the sweep a bare ``lotr-sim sweep`` runs."""
    from lotr_sim.config import configs_dir
    return configs_dir() / "sweeps" / f"{game_name}.toml"


def make_spec(g, params: Mapping[str, Sequence] | Sequence[str] | None = None, grid: bool | None = None,
              games: int | None = None, precision: float | None = None, max_games: int | None = None,
              seed: int | None = None, policies: Mapping[str, str] | None = None,
              sets: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
              chunk: int | None = None, sweep_file: str | Path | None = None,
              paired_precision: float | None = None, baseline_precision: float | None = None,
              pairings_precision: float | None = None, adapt_levers: int | None = None,
              adapt_budget: Mapping[str, int] | None = None) -> SweepSpec:
    """A ``SweepSpec`` for game ``g``: the sweep file (the game's default one when neither
    ``params`` nor ``sweep_file`` is given) merged with the explicit arguments, which win.

    The stopping rule is one of ``games`` (fixed count), ``precision`` (every point's own
    rate) and ``paired_precision`` (the paired mode; ``baseline_precision`` and
    ``pairings_precision`` refine it): an explicit one replaces the file's, and with none
    the file's is used (9,604 games when the file has none either). An explicit
    ``baseline_precision``/``pairings_precision`` alone keeps the file's paired mode.
    ``adapt_levers`` (default the file's, else 0) and ``adapt_budget`` (``generations``,
    ``games``, ``check_games``: over the file's ``adapt_*`` keys) set the "after adaptation"
    figure."""
    from lotr_sim.config import parse_overrides
    from lotr_sim.errors import LotrSimError
    file_d: dict = {}
    if not params and sweep_file is None:
        sweep_file = default_sweep_file(g.name)
        if not Path(sweep_file).is_file():
            raise LotrSimError(f"no --param given and no default sweep file {sweep_file} for game '{g.name}'")
    if sweep_file is not None:
        file_d = load_sweep_file(sweep_file)
        if file_d.get("game", g.name) != g.name:
            raise LotrSimError(f"sweep file {sweep_file} is for game '{file_d['game']}', not '{g.name}'")
    if params:
        if isinstance(params, Mapping):
            dims = [(k, list(v) if isinstance(v, (list, tuple)) else [v]) for k, v in params.items()]
        else:
            dims = [parse_param(p) for p in params]
    else:
        dims = file_d.get("dims", [])
    if not dims:
        raise LotrSimError("nothing to sweep: give at least one --param name=values")
    base_sets = dict(file_d.get("set", {}))
    if isinstance(sets, Mapping):
        base_sets.update(sets)
    else:
        base_sets.update(parse_overrides(sets or []))
    pols = dict(file_d.get("policies", {}))
    pols.update(dict(policies or {}))
    if games is not None and precision is not None:
        raise LotrSimError("give either --games or --precision, not both")
    refine = baseline_precision is not None or pairings_precision is not None
    if paired_precision is not None and (games is not None or precision is not None):
        raise LotrSimError("give one of --games, --precision and --paired-precision")
    if refine and (games is not None or precision is not None):
        raise LotrSimError("--baseline-precision and --pairings-precision go with --paired-precision, "
                           "not with --games or --precision")
    if games is None and precision is None and paired_precision is None:
        if refine or "paired_precision" in file_d:
            paired_precision = file_d.get("paired_precision")
            baseline_precision = baseline_precision if baseline_precision is not None else \
                file_d.get("baseline_precision")
            pairings_precision = pairings_precision if pairings_precision is not None else \
                file_d.get("pairings_precision")
            if paired_precision is None:
                raise LotrSimError("--baseline-precision and --pairings-precision need --paired-precision "
                                   "(here or in the sweep file)")
        else:
            games = file_d.get("games")
            precision = file_d.get("precision")
            if games is None and precision is None:
                games = 9604
    if paired_precision is not None:
        paired_precision, baseline_precision, pairings_precision = paired_targets(
            paired_precision, baseline_precision, pairings_precision)
    return SweepSpec(
        game=g.name, dims=dims, grid=bool(file_d.get("grid", False) if grid is None else grid),
        base_sets=base_sets, policies=pols, config=config or file_d.get("config"),
        seed=int(file_d.get("seed", 1) if seed is None else seed),
        games=games, precision=precision,
        max_games=max_games if max_games is not None else file_d.get("max_games"),
        chunk=int(chunk if chunk is not None else file_d.get("chunk", 2000)),
        paired_precision=paired_precision, baseline_precision=baseline_precision,
        pairings_precision=pairings_precision,
        **adapt_fields(file_d, adapt_levers, adapt_budget))


def adapt_fields(file_d: Mapping[str, Any], levers: int | None, budget: Mapping[str, int] | None) -> dict:
    """The ``SweepSpec``'s adaptation fields: ``levers`` and ``budget`` (keys ``generations``,
    ``games``, ``check_games``) over the sweep file's ``adapt_*`` keys over the defaults; a
    value that is not a whole number of at least its least (``ADAPT_MIN``) is one error line."""
    out = {"adapt_levers": file_d.get("adapt_levers", 0), **{k: file_d.get(k, v) for k, v in ADAPT_BUDGET.items()}}
    if levers is not None:
        out["adapt_levers"] = levers
    for k, v in dict(budget or {}).items():
        if f"adapt_{k}" not in ADAPT_BUDGET:
            raise ConfigError(f"adapt_budget: unknown key '{k}' (keys: generations, games, check_games)")
        out[f"adapt_{k}"] = v
    for k, v in out.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < ADAPT_MIN[k]:
            name = "--adapt" if k == "adapt_levers" else k
            raise ConfigError(f"{name} must be a whole number of at least {ADAPT_MIN[k]}, got {v!r}")
    return out


def pairing_players(game, pairings: bool | list[str]) -> list[str]:
    """The players of a pairings table: the game's built-in ones and ``tuned`` (when the
    game has a weight table) for ``True``, else the given names (each checked against the
    game's players)."""
    if pairings is True:
        own = list(game.builtin_policies)
        if game.policy_table is not None and "tuned" not in own:
            own.append("tuned")
        return own
    names = list(dict.fromkeys(pairings))
    table = game.policy_table
    for p in names:
        if table is not None and table.is_parametric(p):   # tuned:FILE or weights:...
            table.check(p)
            continue
        if p not in game.policies:
            raise ConfigError(f"unknown player '{p}'{closest(p, list(game.policies))} "
                              f"(players of {game.name}: {', '.join(game.policies)})")
    return names


def check_spec(game, spec: SweepSpec) -> tuple[dict[str, str], Any]:
    """Check what every point shares, one clear error on anything wrong: the swept names are
    the game's parameters or seats, each given once, and the baseline's players and rules
    load. Returns the baseline's policies and its loaded config (what ``build_points`` starts
    from), so a sweep can say what it will play before it builds a point."""
    pnames = {p.name for p in game.params()}
    dim_names = [n for n, _ in spec.dims]
    if len(set(dim_names)) != len(dim_names):
        raise ConfigError(f"--param given twice for the same name: {', '.join(dim_names)}")
    for n, _ in spec.dims:
        if n not in pnames and n not in game.policy_keys:
            raise ConfigError(f"unknown parameter '{n}' of game '{game.name}'"
                              f"{closest(n, list(pnames) + list(game.policy_keys))}")
    base_pol = game.check_policies(spec.policies)
    base_cfg = game.load(spec.config, spec.base_sets)
    game.seat_policies(base_cfg, base_pol)
    return base_pol, base_cfg


def count_points(game, spec: SweepSpec) -> int:
    """How many points ``build_points`` makes at most (the baseline, every swept value or grid
    cell, every pairing; a point equal to another is played once, so there may be fewer),
    counted without building any: what a sweep says, or refuses, before its first point."""
    sizes = [len(v) for _, v in spec.dims]
    n = 1 + (math.prod(sizes) if spec.grid and sizes else sum(sizes))
    if spec.pairings:
        n += len(pairing_players(game, spec.pairings)) ** len(game.sides)
    return n


def build_points(game, spec: SweepSpec, tick: Callable[[], None] | None = None,
                 base: tuple[dict[str, str], Any] | None = None) -> tuple[list[Point], dict[str, dict]]:
    """Validate every point against the game (one clear error on anything wrong) and
    return the points plus each point's loaded config (``{label: GameConfig}`` by index).
    ``tick`` is called once per point considered (a progress bar's step); ``base`` is
    ``check_spec``'s result when the caller has it already."""
    base_pol, base_cfg = base if base is not None else check_spec(game, spec)

    def make(sets_pol: dict[str, Any]) -> tuple[dict, dict]:
        sets = {k: v for k, v in sets_pol.items() if k not in game.policy_keys}
        pol = dict(base_pol)
        pol.update({k: str(v) for k, v in sets_pol.items() if k in game.policy_keys})
        pol = game.check_policies(pol)
        return sets, pol

    cfgs: list = [base_cfg]
    points = [Point(0, "baseline", "baseline", "", {}, base_pol)]
    seen = {json.dumps([base_cfg.hash, base_pol], sort_keys=True): points[0]}

    def add(label, varied, value, sets_pol):
        if tick is not None:
            tick()
        sets, pol = make(sets_pol)
        cfg = game.load(spec.config, {**spec.base_sets, **sets})
        game.seat_policies(cfg, pol)   # a seat this point's configuration lacks: one error line
        # canonical values after validation (e.g. "2" -> 2)
        sets = {k: cfg.params[k] for k in sets}
        key = json.dumps([cfg.hash, pol], sort_keys=True)
        if key in seen:
            if varied == "pairings":
                seen[key].pairing = True
            return
        points.append(Point(len(points), label, varied, value, sets, pol))
        seen[key] = points[-1]
        cfgs.append(cfg)

    if spec.grid:
        names = [n for n, _ in spec.dims]
        for combo in itertools.product(*[v for _, v in spec.dims]):
            assign = dict(zip(names, combo))
            label = ",".join(f"{k}={_canon(v)}" for k, v in assign.items())
            add(label, "grid", label, assign)
    else:
        for name, vals in spec.dims:
            for v in vals:
                add(f"{name}={_canon(v)}", name, _canon(v), {name: v})
    if spec.pairings:
        # the baseline rules under every pairing of policies (the baseline's own pairing and
        # any pairing already swept, one at a time or as a grid cell, are not played twice:
        # that point is marked ``pairing`` and the pairings table reads its row)
        sides = list(game.sides)
        names = pairing_players(game, spec.pairings)
        for combo in itertools.product(*[names] * len(sides)):
            assign = dict(zip(sides, combo))
            label = ",".join(f"{k}={v}" for k, v in assign.items())
            add(label, "pairings", label, assign)
    return points, {p.index: c for p, c in zip(points, cfgs)}
