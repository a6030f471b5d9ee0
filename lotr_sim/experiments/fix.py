"""``fix``: the smallest rule change that brings Good's win rate to parity, checked with
players that adapt to it.

The levers are rule parameters (by default the game's sweep levers,
``configs/sweeps/<game>.toml``), each with the values it may take (``Param`` choices, a
short integer range, or the sweep file's list). A *rule set* changes some levers away from
the rulebook default. Its *cost* is the sum over its changed levers of the departure from
the default: the normalised distance for a number (``|v - default| / (max - min)`` over the
lever's values), one per step along the listed values for a choice, times the lever's
weight; a designer can give a weight per lever or a cost per value in the sweep file::

    [fix.cost]
    retreat_trigger = { off = 3, modified6 = 1 }   # cost of each value
    leader_bonus = 2                               # weight on the normalised distance

Search, within a budget of games:

1. *Screen* the baseline and every single-lever change on ``games`` paired games (game i of
   every rule set uses stream (seed, i): common random numbers, so the rule sets are
   compared on the same dice).
2. For two and then three levers: every combination when they all fit in that size's share
   of the budget (half of what is left for two levers, the rest for three); otherwise fit a
   response model (a ridge-regularised logistic regression of Good's win on the one-hot
   lever values: main effects, and a term for each pair of values already played together)
   on every rule set played so far and play next the cheapest combinations it predicts
   within ``MODEL_TOL`` of the target (refitting after each batch; when none is, a few
   batches of the nearest), until that size's share is spent or ``top`` fixes of that size
   are found.
3. *Refine*: a rule set whose screening interval meets the ±``tol`` band is extended on the
   same streams to ``confirm_games``; it is a fix when its rate is then within ±``tol``.
4. *Final check* of each reported fix on fresh streams (games from ``FRESH``):
   ``final_games`` games; ``confirmed`` when its 95% interval lies within ±``final_tol``.

Then each reported fix is re-checked with players adapted to its rules (``adapt``): both
sides' default weights warm-started and tuned for a few generations on the fixed rules, each
side's kept only where it beats its start weights on paired games (``experiments.adapt``),
Good's rate with the adapted players on fresh games, and the search
player against the adapted players on a few games per side. A fix *holds* when Good's rate
after adaptation stays within ±``hold_tol`` of the target.

Every game played is kept in ``fix-state.json`` (counts by rule set and game range) as soon
as it is played, so an interrupted run resumes (``resume``) by replaying the same decisions
from the stored counts: the result is the same as an uninterrupted run's. Everything
follows from ``seed`` whatever the threads.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import math
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim._result import Result
from lotr_sim.errors import ConfigError, Interrupted, LotrSimError
from lotr_sim.experiments.adapt import rate as _rate
from lotr_sim.experiments.verdict import fmt_points

#: First game index of the final checks: streams no screening or refining ever uses.
FRESH = 1_000_000_000
#: First game index of the adapted players' checks.
FRESH_ADAPT = 2_000_000_000
#: First game index of the search player's checks.
FRESH_SEARCH = 3_000_000_000
#: First game index of the adaptation's keep checks (``experiments.adapt``).
FRESH_KEEP = 4_000_000_000
#: A combination is played when the model predicts it this close to the target.
MODEL_TOL = 0.04
#: Batches of the nearest predictions played when none is within ``MODEL_TOL`` (and the
#: nearest within twice it), per number of levers.
PROBES = 3
#: Rule sets played between two fits of the model.
BATCH = 4
#: A search player's gain over the adapted players beyond this (and beyond chance: its 95%
#: interval excludes the adapted players' rate) is flagged beside a fix.
SEARCH_FLAG = 0.05
#: The largest integer range taken whole from a parameter's bounds.
INT_RANGE_MAX = 12
STATE = "fix-state.json"


@dataclass(frozen=True)
class Lever:
    """One rule parameter the search may change: its values and the cost of each."""

    name: str
    default: Any
    values: tuple
    costs: dict

    def cost(self, value: Any) -> float:
        return float(self.costs[_canon(value)])


@dataclass(frozen=True)
class FixResult(Result):
    """What ``fix`` returns: the smallest rule changes found that balance the game.

    Attributes
    ----------
    game : str
        The game's registry name.
    outcome : str
        The side whose win rate is balanced (the game's first outcome: Good; Frodo).
    target : float
        The parity target of that rate.
    tol : float
        A fix's rate is within ±``tol`` of the target (default 0.01).
    fixes : list of dict
        Best first (fewest levers changed, then cost): ``set`` (parameter -> value),
        ``levers``, ``cost``, ``screen`` (the paired games that found it), ``good`` (Good's
        rate and 95% interval with the default players on fresh games, ``confirmed``),
        ``adapted`` (the same with both sides' players adapted to the rules, ``holds``;
        None when not run) and ``search`` (the search player against the adapted players).
    closest : list of dict
        For each number of levers with no fix: the rule set of that many changes played
        closest to the target.
    baseline : dict
        Good's rate under the default rules (screening games).
    levers : list of dict
        Each lever's default, values and costs.
    played : list of dict
        Every rule set played: ``set``, ``levers``, ``cost``, ``rate``, ``lo``, ``hi``, ``games``.
    games_played : int
        Games played in this run and the stored ones it reused.
    games_reused : int
        Of those, the games a resumed run read from ``fix-state.json`` instead of playing.
    elapsed_s : float
        Wall time of this run, in seconds.
    settings : dict
        The search's settings (seed, games, budget, adaptation budget...).
    message : str
        The answer in one sentence.
    out : Path or None
        The report folder.
    """

    game: str
    outcome: str
    target: float
    tol: float
    fixes: list
    closest: list
    baseline: dict
    levers: list
    played: list
    games_played: int
    games_reused: int
    elapsed_s: float
    settings: dict
    message: str
    out: Path | None = None
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``lotr-sim fix --json`` prints: ``fixes`` first."""
        d = super().to_dict()
        d["out"] = str(self.out) if self.out is not None else None
        return {"fixes": d.pop("fixes"), **d}


def _canon(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v)) if abs(v) < 1e15 else str(v)
    return str(v)


def set_key(changes: Mapping[str, Any]) -> str:
    """A rule set as text, ``a=1,b=off`` in the levers' order given (``""``: the defaults)."""
    return ",".join(f"{k}={_canon(v)}" for k, v in changes.items())


# --- levers -------------------------------------------------------------------------------

def _param_values(p, given: Sequence[Any] | None) -> list[Any]:
    """The values a lever may take: ``given``, else the parameter's choices, else its whole
    integer range when short; the default is always among them."""
    if given:
        vals = [p.coerce(v) for v in given]
    elif p.kind == "bool":
        vals = [False, True]
    elif p.kind == "choice":
        vals = list(p.choices)
    elif p.kind == "int" and p.lo is not None and p.hi is not None and p.hi - p.lo <= INT_RANGE_MAX:
        vals = list(range(int(p.lo), int(p.hi) + 1))
    else:
        raise ConfigError(f"--param {p.name}: give its values (name=v1,v2,... or name=a:b); "
                          f"its range {p.allowed()} is too wide to take whole")
    if p.default not in vals:
        vals.append(p.default)
    if p.kind in ("int", "float"):
        vals = sorted(set(vals))
    else:
        vals = list(dict.fromkeys(vals))
    return vals


def _default_costs(p, vals: list[Any], weight: float) -> dict[str, float]:
    if p.kind in ("int", "float"):
        span = (max(vals) - min(vals)) or 1
        return {_canon(v): weight * abs(v - p.default) / span for v in vals}
    i0 = vals.index(p.default)
    return {_canon(v): weight * abs(i - i0) for i, v in enumerate(vals)}


def make_levers(game, params: Sequence[str] | Mapping[str, Any] | None, sweep_file: str | Path | None,
                base_params: Mapping[str, Any]) -> tuple[list[Lever], dict, dict]:
    """The levers: ``params`` (``["name", "name=v1,v2", "name=a:b"]`` or a mapping; a bare name
    takes the parameter's own range) or the sweep file's ``[params]``; with their costs from
    the sweep file's ``[fix.cost]``. Returns the levers, the sweep file's contents and the base
    rule parameters (the file's ``[set]`` under ``base_params``)."""
    from lotr_sim.config import closest
    from lotr_sim.experiments.spec import default_sweep_file, load_sweep_file, parse_param
    file_d: dict = {}
    path = Path(sweep_file) if sweep_file is not None else default_sweep_file(game.name)
    if sweep_file is not None or path.is_file():
        file_d = load_sweep_file(path)
        if file_d.get("game", game.name) != game.name:
            raise LotrSimError(f"sweep file {path} is for game '{file_d['game']}', not '{game.name}'")
    table = {p.name: p for p in game.params()}
    wanted: list[tuple[str, list | None]] = []
    if params:
        items = params.items() if isinstance(params, Mapping) else None
        if items is not None:
            wanted = [(k, list(v) if isinstance(v, (list, tuple)) else [v]) for k, v in items]
        else:
            for text in params:
                if "=" in text:
                    wanted.append(parse_param(text))
                else:
                    wanted.append((text.strip().replace("-", "_"), None))
    else:
        wanted = [(n, list(v)) for n, v in file_d.get("dims", [])]
    if not wanted:
        raise LotrSimError(f"no levers: give --param NAME (no sweep file {path} for game '{game.name}')")
    base_params = {**dict(file_d.get("set", {})), **dict(base_params)}
    fix_d = file_d.get("fix", {})
    costs_d = fix_d.get("cost", {}) if isinstance(fix_d, dict) else {}
    if not isinstance(costs_d, dict):
        raise ConfigError(f"sweep file {path}: [fix.cost] must be a table of parameter = weight or {{value = cost}}")
    levers = []
    seen = set()
    for name, given in wanted:
        if name in game.policy_keys:
            raise ConfigError(f"--param {name}: fix changes rule parameters, not players")
        if name not in table:
            raise ConfigError(f"unknown parameter '{name}' of game '{game.name}'{closest(name, table)}")
        if name in seen:
            raise ConfigError(f"--param {name} is given twice; give it once")
        seen.add(name)
        p = table[name]
        default = p.coerce(base_params.get(name, p.default)) if name in base_params else p.default
        p_eff = type(p)(**{**p.__dict__, "default": default})
        vals = _param_values(p_eff, given)
        c = costs_d.get(name, 1.0)
        if isinstance(c, dict):
            costs = _default_costs(p_eff, vals, 1.0)
            for k, v in c.items():
                kk = _canon(p.coerce(k))
                if kk not in costs:
                    raise ConfigError(f"sweep file {path}: fix.cost.{name}: {k!r} is not one of its values "
                                      f"({', '.join(costs)})")
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                    raise ConfigError(f"sweep file {path}: fix.cost.{name}.{k} must be a number >= 0")
                costs[kk] = float(v)
        elif isinstance(c, bool) or not isinstance(c, (int, float)) or c <= 0:
            raise ConfigError(f"sweep file {path}: fix.cost.{name} must be a number > 0 or a table of value costs")
        else:
            costs = _default_costs(p_eff, vals, float(c))
        if len(vals) < 2:
            raise ConfigError(f"--param {name}: needs a value other than its default {_canon(default)}")
        levers.append(Lever(name=name, default=default, values=tuple(vals), costs=costs))
    unknown = [k for k in costs_d if k not in table]
    if unknown:
        raise ConfigError(f"sweep file {path}: fix.cost.{unknown[0]}: no such parameter"
                          f"{closest(unknown[0], table)}")
    return levers, file_d, base_params


def combos(levers: Sequence[Lever], k: int) -> list[dict[str, Any]]:
    """Every rule set changing exactly ``k`` levers away from their defaults."""
    out = []
    for group in itertools.combinations(levers, k):
        choices = [[v for v in lv.values if v != lv.default] for lv in group]
        for vals in itertools.product(*choices):
            out.append({lv.name: v for lv, v in zip(group, vals)})
    return out


def set_cost(levers: Mapping[str, Lever], changes: Mapping[str, Any]) -> float:
    return float(sum(levers[k].cost(v) for k, v in changes.items()))


# --- the response model -----------------------------------------------------------------------

class ResponseModel:
    """Ridge-regularised logistic regression of a win on one-hot lever values (main
    effects) plus a term for each pair of changed values played together, fitted by Newton's
    method on binomial counts (wins of n games per rule set). A pair never played together
    has no term: its prediction is additive on the logit scale."""

    def __init__(self, levers: Sequence[Lever], l2: float = 1.0):
        self.columns: list = [(lv.name, _canon(v)) for lv in levers for v in lv.values if v != lv.default]
        self.index = {c: i + 1 for i, c in enumerate(self.columns)}
        self.l2 = float(l2)
        self.beta = np.zeros(len(self.columns) + 1)

    @staticmethod
    def _pairs(s: Mapping[str, Any]) -> list[tuple]:
        items = sorted((k, _canon(v)) for k, v in s.items())
        return list(itertools.combinations(items, 2))

    def design(self, sets: Sequence[Mapping[str, Any]]) -> np.ndarray:
        x = np.zeros((len(sets), len(self.columns) + 1))
        x[:, 0] = 1.0
        for r, s in enumerate(sets):
            for c in [(k, _canon(v)) for k, v in s.items()] + self._pairs(s):
                j = self.index.get(c)
                if j is not None:
                    x[r, j] = 1.0
        return x

    def fit(self, sets: Sequence[Mapping[str, Any]], wins: np.ndarray, n: np.ndarray) -> "ResponseModel":
        for s in sets:
            for c in self._pairs(s):
                if c not in self.index:
                    self.columns.append(c)
                    self.index[c] = len(self.columns)
        x = self.design(sets)
        wins = np.asarray(wins, float)
        n = np.asarray(n, float)
        pen = np.full(x.shape[1], self.l2)
        pen[0] = 0.0
        b = np.zeros(x.shape[1])
        b[0] = math.log((wins.sum() + 0.5) / (n.sum() - wins.sum() + 0.5))
        for _ in range(50):
            p = 1.0 / (1.0 + np.exp(-(x @ b)))
            g = x.T @ (wins - n * p) - pen * b
            h = (x * (n * p * (1 - p))[:, None]).T @ x + np.diag(pen) + 1e-9 * np.eye(x.shape[1])
            step = np.linalg.solve(h, g)
            b = b + step
            if np.max(np.abs(step)) < 1e-9:
                break
        self.beta = b
        return self

    def predict(self, sets: Sequence[Mapping[str, Any]]) -> np.ndarray:
        if not sets:
            return np.zeros(0)
        return 1.0 / (1.0 + np.exp(-(self.design(sets) @ self.beta)))


# --- playing rule sets --------------------------------------------------------------------------

class Evaluator:
    """Good's wins on games ``first..first+n-1`` of a rule set and players, chunk by chunk,
    each chunk's count stored (``store``) as soon as it is played and reused when asked
    again (a resumed run replays its decisions from them)."""

    def __init__(self, game, config, base_params: Mapping[str, Any], seed: int, backend, chunk: int,
                 store: dict, save, bar):
        self.game, self.config, self.base = game, config, dict(base_params)
        self.seed, self.be, self.chunk = seed, backend, chunk
        self.store, self.save, self.bar = store, save, bar
        self.played = 0         # games played by this process
        self.reused = 0
        self._compiled: dict[str, Any] = {}

    def compiled(self, changes: Mapping[str, Any]):
        key = set_key(changes)
        if key not in self._compiled:
            self._compiled[key] = self.game.compile(self.game.load(self.config, {**self.base, **changes}))
        return self._compiled[key]

    def wins(self, changes: Mapping[str, Any], policies: Mapping[str, str], first: int, n: int) -> tuple[int, int]:
        """(wins of the first outcome, games) on games first..first+n-1."""
        from lotr_sim.experiments.run import split
        pkey = ",".join(f"{k}={v}" for k, v in sorted(policies.items()))
        total = 0
        todo = []
        for a, m in split(first, n, self.chunk):
            k = f"{set_key(changes)}|{pkey}|{a}|{m}"
            if k in self.store:
                total += int(self.store[k])
                self.reused += m
            else:
                todo.append((0, a, m, k))
        if todo:
            comp = {0: self.compiled(changes)}
            keys = {(t[1], t[2]): t[3] for t in todo}

            def done(task, cols):
                nonlocal total
                w = int(np.count_nonzero(cols["winner"] == 0))
                self.store[keys[(task[1], task[2])]] = w
                total += w
                self.played += task[2]
                self.bar.advance(task[2])
                self.save()
            self.be.run(self.game, comp, {0: dict(policies)}, self.seed, [t[:3] for t in todo], ["winner"], done)
        return total, n


# --- the search -------------------------------------------------------------------------------

def _check_rate(name: str, v: Any, lo: float, hi: float) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo < float(v) < hi:
        raise LotrSimError(f"{name} must be a number in ({lo:g}, {hi:g}), got {v!r}")
    return float(v)


def fix(game, params: Sequence[str] | Mapping[str, Any] | None = None, *, sweep_file: str | Path | None = None,
        sets: Sequence[str] | Mapping[str, Any] | None = None, config: str | None = None,
        policies: Mapping[str, str] | None = None, target: float = 0.5, tol: float = 0.01,
        final_tol: float = 0.015, hold_tol: float = 0.02, seed: int = 1, games: int = 2000,
        budget: int = 1_000_000, confirm_games: int = 10_000, final_games: int = 20_000,
        max_levers: int = 3, top: int = 1, adapt: bool = True, tune_generations: int = 8,
        tune_games: int = 300, adapt_games: int = 10_000, search_games: int = 60,
        threads: int | None = None, scheduler: str | None = None, cluster: str | None = None,
        workers: int | None = None, out: str | Path | None = None, resume: str | Path | None = None,
        progress: bool = False, chunk: int = 2000) -> FixResult:
    """Search the levers for the smallest rule changes that bring the first outcome's win
    rate within ±``tol`` of ``target`` (the module docstring); see ``lotr_sim.api.fix``."""
    from lotr_sim.experiments.compare import split_sets
    from lotr_sim.experiments.run import check_count
    from lotr_sim.experiments.store import ensure_writable_dir, folder_lock, now_iso
    from lotr_sim.kernels.rng import check_seed
    t0 = time.perf_counter()
    args = dict(params=list(params) if isinstance(params, (list, tuple)) else params,
                sweep_file=str(sweep_file) if sweep_file is not None else None,
                sets=dict(sets) if isinstance(sets, Mapping) else list(sets or []), config=config,
                policies=dict(policies or {}), target=target, tol=tol, final_tol=final_tol, hold_tol=hold_tol,
                seed=seed, games=games, budget=budget, confirm_games=confirm_games, final_games=final_games,
                max_levers=max_levers, top=top, adapt=adapt, tune_generations=tune_generations,
                tune_games=tune_games, adapt_games=adapt_games, search_games=search_games, chunk=chunk)
    outp: Path | None
    from lotr_sim.experiments.store import refuse_other_output
    if resume is not None:
        outp = Path(resume)
        refuse_other_output(outp, "fix", "--resume")
        try:
            st = json.loads((outp / STATE).read_text())
        except FileNotFoundError:
            raise LotrSimError(f"{outp} holds no fix run to resume (no {STATE})") from None
        except (OSError, ValueError) as e:
            raise LotrSimError(f"cannot read {outp / STATE}: {e}") from None
        if st.get("game") != game.name:
            raise LotrSimError(f"{outp} is a fix run of '{st.get('game')}', not '{game.name}'")
        args = st["args"]
    else:
        outp = Path(out) if out is not None else (
            Path("reports") / game.name / ("fix-" + datetime.now().strftime("%Y%m%d-%H%M%S")))
        refuse_other_output(outp, "fix")
        if (outp / STATE).exists():
            raise LotrSimError(f"output folder {outp} already holds a fix run; use --resume {outp} "
                               f"or choose another --out")
        st = {"game": game.name, "args": args, "store": {}, "adapt": {}, "started": now_iso()}
    a = args
    check_seed(a["seed"])
    target = _check_rate("--target", a["target"], 0.0, 1.0)
    tol = _check_rate("--tol", a["tol"], 0.0, 0.5)
    final_tol = _check_rate("final_tol", a["final_tol"], 0.0, 0.5)
    hold_tol = _check_rate("hold_tol", a["hold_tol"], 0.0, 0.5)
    n_screen = check_count("--games", a["games"], 10)
    budget = check_count("--budget", a["budget"], n_screen)
    confirm = max(check_count("confirm_games", a["confirm_games"], 10), n_screen)
    final_n = check_count("final_games", a["final_games"], 10)
    max_k = check_count("--max-levers", a["max_levers"], 1, 3)
    top = check_count("--top", a["top"], 1, 10)
    ck = check_count("chunk", a["chunk"], 1)
    base_params, base_pols = split_sets(game, a["sets"])
    pols = game.check_policies({**dict(a["policies"] or {}), **base_pols})
    levers, file_d, base_params = make_levers(game, a["params"], a["sweep_file"], base_params)
    if not a["policies"] and not base_pols and file_d.get("policies"):
        pols = game.check_policies(dict(file_d["policies"]))
    game.load(a["config"], base_params)         # bad base --set values: one line before anything runs
    by_name = {lv.name: lv for lv in levers}
    from lotr_sim.experiments.backends import make_backend
    from lotr_sim.experiments.progress import make_progress, warm_up
    outcome = game.outcomes[0]

    with contextlib.ExitStack() as stack:
        ensure_writable_dir(outp)
        stack.enter_context(folder_lock(outp, "fix"))
        state_path = outp / STATE
        last_save = [0.0]

        def save(force: bool = False) -> None:
            from lotr_sim.experiments.store import atomic_write_json
            now = time.monotonic()
            if force or now - last_save[0] > 2.0:
                atomic_write_json(state_path, st)
                last_save[0] = now
        save(True)
        dask = dict(scheduler=scheduler, cluster=cluster, workers=workers)
        be = stack.enter_context(make_backend(threads, **dask))
        bar = stack.enter_context(make_progress(progress, f"fix {game.name}", budget + confirm * 3))
        ev = Evaluator(game, a["config"], base_params, int(a["seed"]), be, ck, st["store"], save, bar)
        warm_up(game, ev.compiled({}), pols, int(a["seed"]), progress)
        try:
            res = _search(game, ev, levers, by_name, pols, target, tol, n_screen, budget, confirm, max_k, top)
            fixes = res["fixes"]
            for f in fixes:
                w, n = ev.wins(f["set"], pols, FRESH, final_n)
                g = _rate(w, n)
                g["confirmed"] = bool(g["lo"] >= target - final_tol and g["hi"] <= target + final_tol)
                f["good"] = g
            notes: list[str] = []
            if a["adapt"]:
                for f in fixes:
                    f["adapted"], f["search"] = _adapt(game, ev, f["set"], pols, a, target, hold_tol, outp,
                                                     st, save, threads, progress, notes, dask)
            else:
                for f in fixes:
                    f["adapted"], f["search"] = None, None
        except (KeyboardInterrupt, Interrupted):     # Interrupted: within an adaptation's tune
            save(True)
            raise Interrupted(f"interrupted: the games played so far are saved in {outp}; continue with: "
                              f"lotr-sim fix --game {game.name} --resume {outp}") from None
        save(True)
    played = res["played"]
    sizes = {f["levers"] for f in fixes}
    closest = [min((r for r in played if r["levers"] == k), key=lambda r: (abs(r["rate"] - target), r["cost"]))
               for k in range(1, max_k + 1) if k not in sizes and any(r["levers"] == k for r in played)]
    msg = _message(outcome, target, tol, fixes, closest, res["baseline"])
    settings = {k: a[k] for k in ("seed", "games", "budget", "confirm_games", "final_games", "max_levers", "top",
                                  "adapt", "tune_generations", "tune_games", "adapt_games", "search_games")}
    settings["policies"] = pols
    settings["base_sets"] = base_params
    result = FixResult(
        game=game.name, outcome=outcome, target=target, tol=tol, fixes=fixes, closest=closest,
        baseline=res["baseline"],
        levers=[{"name": lv.name, "default": lv.default, "values": list(lv.values), "costs": dict(lv.costs)}
                for lv in levers],
        played=played, games_played=ev.played + ev.reused, games_reused=ev.reused, elapsed_s=time.perf_counter() - t0,
        settings=settings, message=msg, out=outp, notes=notes)
    from lotr_sim.experiments.store import atomic_write_json
    atomic_write_json(outp / "fix.json", result.to_dict())
    from lotr_sim.experiments import fixfig     # copied to configs/fixes/<game>.json, every sweep verdict cites it
    fixfig.write(outp / fixfig.FILE, fixfig.figures(result, game.load(a["config"], base_params).hash))
    write_report(result, outp)
    return result


def _search(game, ev: Evaluator, levers, by_name, pols, target, tol, n_screen, budget, confirm, max_k, top) -> dict:
    """Screening, the model's proposals and refining (steps 1-3 of the module docstring)."""
    played: dict[str, dict] = {}
    spent = [0]

    def screen(changes: dict) -> dict:
        key = set_key(changes)
        if key not in played:
            w, n = ev.wins(changes, pols, 0, n_screen)
            spent[0] += n
            r = _rate(w, n)
            played[key] = {"set": dict(changes), "levers": len(changes), "cost": set_cost(by_name, changes),
                           "wins": w, **r}
        return played[key]

    def refine(row: dict) -> bool:
        """Extend a promising rule set to ``confirm`` games; is it then a fix?"""
        if row["lo"] > target + tol or row["hi"] < target - tol:
            return False
        if row["games"] < confirm:
            w, n = ev.wins(row["set"], pols, 0, confirm)
            spent[0] += confirm - row["games"]
            row.update(wins=w, **_rate(w, n))
        return abs(row["rate"] - target) <= tol + 1e-12

    base = screen({})
    fixes: list[dict] = []
    singles = sorted(combos(levers, 1), key=lambda s: (set_cost(by_name, s), set_key(s)))
    for s in singles:
        screen(s)
    for r in sorted((played[set_key(s)] for s in singles), key=lambda r: (r["cost"], abs(r["rate"] - target))):
        if len([f for f in fixes if f["levers"] == 1]) >= top:
            break
        if refine(r):
            fixes.append(r)
    model = ResponseModel(levers)
    for k in range(2, max_k + 1):
        share = budget if k == max_k else spent[0] + (budget - spent[0]) // 2
        pool = combos(levers, k)
        got: list[dict] = []
        probed = 0
        if spent[0] + len(pool) * n_screen <= share:     # all of them fit: play every one
            for s in sorted(pool, key=lambda s: (set_cost(by_name, s), set_key(s))):
                screen(s)
            for r in sorted((played[set_key(s)] for s in pool), key=lambda r: (r["cost"], abs(r["rate"] - target))):
                if len(got) >= top:
                    break
                if refine(r):
                    got.append(r)
        while spent[0] + n_screen <= share and len(got) < top:
            rows = list(played.values())
            model.fit([r["set"] for r in rows], np.array([r["wins"] * n_screen / r["games"] for r in rows]),
                      np.full(len(rows), float(n_screen)))
            todo = [s for s in pool if set_key(s) not in played]
            if not todo:
                break
            pred = model.predict(todo)
            gap = np.abs(pred - target)
            near = [i for i in np.argsort(gap, kind="stable") if gap[i] <= MODEL_TOL]
            if near:
                near.sort(key=lambda i: (set_cost(by_name, todo[i]), gap[i], set_key(todo[i])))
                batch = [todo[i] for i in near[:BATCH]]
            elif probed < PROBES and gap.min() <= 2 * MODEL_TOL:
                probed += 1             # nothing predicted near: try the nearest few
                batch = [todo[i] for i in np.argsort(gap, kind="stable")[:BATCH]]
            else:
                break
            for s in batch:
                if spent[0] + n_screen > share:
                    break
                r = screen(s)
                if refine(r):
                    got.append(r)
                    if len(got) >= top:
                        break
        fixes += sorted(got, key=lambda r: (r["cost"], abs(r["rate"] - target)))[:top]
    out = []
    for r in sorted(fixes, key=lambda r: (r["levers"], r["cost"], abs(r["rate"] - target))):
        out.append({"set": dict(r["set"]), "change": set_key(r["set"]), "levers": r["levers"], "cost": r["cost"],
                    "screen": {k: r[k] for k in ("rate", "lo", "hi", "games")}})
    plays = [{"set": r["set"], "change": set_key(r["set"]) or "(defaults)", "levers": r["levers"],
              "cost": r["cost"], **{k: r[k] for k in ("rate", "lo", "hi", "games")}} for r in played.values()]
    return {"fixes": out, "played": plays,
            "baseline": {k: base[k] for k in ("rate", "lo", "hi", "games")}, "spent": spent[0]}


def _adapt(game, ev: Evaluator, changes: dict, pols: dict, a: dict, target: float, hold_tol: float, outp: Path,
           st: dict, save, threads, progress, notes: list, dask: Mapping[str, Any]) -> tuple[dict | None, dict | None]:
    """The default players adapted to the fixed rules (``experiments.adapt``: both sides'
    weights tuned a little, warm-started, each kept only where it plays the rules better),
    Good's rate with them on fresh games, and the search player against them."""
    from lotr_sim.experiments.adapt import adapt
    if game.policy_table is None:
        msg = f"game '{game.name}' has no tunable weights: no adaptation"
        if msg not in notes:
            notes.append(msg)
        return None, None
    key = set_key(changes)
    known = st["adapt"].get(key)
    if known is not None and "start" not in known:     # a fix-state.json of an older run
        known = None
    ngames = int(a["adapt_games"])
    res = adapt(game, {**ev.base, **changes}, lambda p, first, n: ev.wins(changes, p, first, n),
                start={s: pols.get(s, game.policy_table.base) for s in game.sides},
                folder=outp / f"adapt-{len(st['adapt']) + 1}" if known is None else outp / known["folder"],
                config=a["config"], seed=int(a["seed"]), generations=int(a["tune_generations"]),
                games=int(a["tune_games"]), check_games=max(10, ngames // 2), first=FRESH_KEEP,
                threads=threads, progress=progress, known=known, dask=dask)
    if known is None:
        st["adapt"][key] = res.tune
        save(True)
    ad = res.players
    w, n = ev.wins(changes, ad, FRESH_ADAPT, ngames)
    adapted = _rate(w, n)
    adapted["holds"] = bool(abs(adapted["rate"] - target) <= hold_tol)
    adapted["players"] = dict(ad)
    adapted["kept"] = dict(res.kept)
    adapted["first_only"] = res.first_only
    adapted["checks"] = res.checks
    adapted["tune"] = dict(res.tune)
    search = None
    ns = int(a["search_games"])
    if ns > 0 and "search" in getattr(game, "policies", ()):
        search = {"games_per_side": ns}
        for side in game.sides[:2]:
            p = dict(ad)
            p[side] = "search"
            w, n = ev.wins(changes, p, FRESH_SEARCH, ns)
            r = _rate(w, n)
            first = side == game.sides[0]
            r["gain"] = (r["rate"] - adapted["rate"]) if first else (adapted["rate"] - r["rate"])
            # beyond chance: the search side's interval excludes the adapted players' rate
            r["significant"] = bool(r["lo"] > adapted["rate"] if first else r["hi"] < adapted["rate"])
            search[f"{side}_search"] = r
        search["flag"] = any(search[f"{s}_search"]["gain"] > SEARCH_FLAG and search[f"{s}_search"]["significant"]
                             for s in game.sides[:2])
    return adapted, search


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _pct_ci(r: Mapping) -> str:
    """A rate with its 95% interval, as the verdict writes it: ``48.6% [47.9%, 49.3%]``."""
    return f"{_pct(r['rate'])} [{_pct(r['lo'])}, {_pct(r['hi'])}]"


def _message(outcome: str, target: float, tol: float, fixes: list, closest: list, base: dict) -> str:
    head = f"{outcome.capitalize()} wins {_pct_ci(base)} under the default rules"
    if fixes:
        f, o = fixes[0], outcome.capitalize()
        g, ad = f["good"], f.get("adapted")
        levers = f"{f['levers']} lever{'s' if f['levers'] > 1 else ''}"
        fresh = f"{o} {_pct_ci(g)} on {g['games']:,} fresh games"
        after = ""
        if ad:
            after = f"; after the players adapt to it {_pct_ci(ad)}: it {'holds' if ad['holds'] else 'does not hold'}"
        if g.get("confirmed"):
            return (f"{head}; the smallest change found that brings it within ±{fmt_points(tol)} of "
                    f"{_pct(target)}: {f['change']} ({levers}, {fresh}){after}.")
        # the screening games put it within tol, the fresh games do not confirm it: say so first
        return (f"{head}; no change is confirmed within ±{fmt_points(tol)} of {_pct(target)}. The best "
                f"candidate, {f['change']} ({levers}), was within it on the search's games but gives {fresh} "
                f"(not confirmed){after}.")
    if closest:
        c = min(closest, key=lambda r: abs(r["rate"] - target))
        return (f"{head}; no rule set within the ranges searched brings it within ±{fmt_points(tol)} of "
                f"{_pct(target)}; the closest played: {c['change']} at {_pct_ci(c)}.")
    return f"{head}; no fix found."


# --- report --------------------------------------------------------------------------------------

def _ci(r: Mapping | None) -> str:
    if not r:
        return "—"
    return f"{100 * r['rate']:.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"


def _kept_text(ad: Mapping | None) -> str:
    """Which sides' adapted weights were kept, and the first side's rate when only it adapts."""
    if not ad or "kept" not in ad:
        return ""
    sides = list(ad["kept"])
    kept = [s for s in sides if ad["kept"][s]]
    if not kept:
        return " (no side's re-tuned weights did better: the default players)"
    t = f" ({' and '.join(kept)} adapted"
    if ad.get("first_only") is not None and len(kept) > 1:
        t += f"; {sides[0]} only: {_ci(ad['first_only'])}"
    return t + ")"


def fix_table(res: FixResult) -> list[list[str]]:
    """The suggested fixes as rows: change, levers, cost, Good's rate with the default players,
    after adaptation, under search (search Good v adapted Evil; adapted Good v search Evil)."""
    rows = []
    for f in res.fixes:
        ad = f.get("adapted")
        se = f.get("search")
        if se:
            s0, s1 = [v for k, v in se.items() if k.endswith("_search")]
            stext = f"{_ci(s0)} / {_ci(s1)}" + (" (search gains > 5 points)" if se["flag"] else "")
        else:
            stext = "—"
        rows.append([f["change"], str(f["levers"]), f"{f['cost']:.2f}",
                     _ci(f.get("good")) + ("" if f.get("good", {}).get("confirmed") else " (not within ±1.5)"),
                     _ci(ad) + ("" if not ad else " holds" if ad["holds"] else " does not hold")
                     + _kept_text(ad), stext])
    return rows


def write_report(res: FixResult, outp: Path) -> list[Path]:
    """``report.md`` and ``report.html`` (and the best pair's picture) in ``outp``."""
    import html

    from lotr_sim.experiments.store import atomic_write_bytes
    o = res.outcome.capitalize()
    head = ["change", "levers", "cost", f"{o} (default players)", f"{o} after adaptation",
            f"{o} under search (search {o} / search other side)"]
    rows = fix_table(res)
    md = [f"# Smallest balancing changes: {res.game}", "", f"**Verdict.** {res.message}", "",
          "## Suggested fixes", ""]
    if rows:
        md += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        md += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        md += ["No rule set within the ranges reaches the target."]
    if res.closest:
        md += ["", "No fix with this many levers; the closest played:", ""]
        md += [f"- {c['levers']} lever{'s' if c['levers'] > 1 else ''}: {c['change']}: {_ci(c)} ({c['games']} games)"
               for c in res.closest]
    s = res.settings
    md += ["", f"Target: {o}'s win rate {100 * res.target:g}% ± {fmt_points(res.tol)}. Fixes are found "
           f"with the default players ({', '.join(f'{k}={v}' for k, v in s['policies'].items())}) on paired "
           f"games (screening {s['games']} games a rule set, refined to {s['confirm_games']}), then checked on "
           f"{s['final_games']} fresh games (\"not within ±1.5\": the 95% interval leaves ±1.5 points).",
           f"Adaptation: both sides' weights warm-started from the default player and tuned "
           f"{s['tune_generations']} generations x {s['tune_games']} games, each side's kept only where it beat "
           f"its start on {max(10, s['adapt_games'] // 2)} paired games, then {s['adapt_games']} fresh games; "
           f"a fix holds when {o} stays within ±2 points. Search: {s['search_games']} games a side "
           f"(small: wide intervals)." if s["adapt"] else "Adaptation: not run.",
           "", f"Games: {res.games_played:,}; {res.elapsed_s:.0f} s.", ""]
    paths = []
    pic = _pair_figure(res, outp)
    if pic is not None:
        md += ["## The best pair", "", f"![best pair]({pic.name})", ""]
        paths.append(pic)
    md += ["## Rule sets played", "", "| change | levers | cost | rate [95% CI] | games |", "|---|---|---|---|---|"]
    for r in sorted(res.played, key=lambda r: (r["levers"], r["cost"], r["change"])):
        md.append(f"| {r['change']} | {r['levers']} | {r['cost']:.2f} | {_ci(r)} | {r['games']} |")
    for n in res.notes:
        md.append(f"\nNote: {n}")
    text = "\n".join(md) + "\n"
    atomic_write_bytes(outp / "report.md", text.encode())
    body = [f"<h1>{html.escape(md[0][2:])}</h1>", f"<p><b>Verdict.</b> {html.escape(res.message)}</p>",
            "<h2>Suggested fixes</h2>"]
    if rows:
        body.append("<table border=1 cellspacing=0 cellpadding=4><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head)
                    + "</tr>" + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
                    + "</table>")
    else:
        body.append("<p>No rule set within the ranges reaches the target.</p>")
    if res.closest:
        body.append("<p>No fix with this many levers; the closest played:</p><ul>"
                    + "".join(f"<li>{c['levers']}: {html.escape(c['change'])}: {html.escape(_ci(c))}</li>"
                              for c in res.closest) + "</ul>")
    if pic is not None:
        body.append(f"<h2>The best pair</h2><img src='{pic.name}' alt='best pair'>")
    body.append("<pre>" + html.escape(text) + "</pre>")
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>fix: "
            f"{html.escape(res.game)}</title></head><body>" + "\n".join(body) + "</body></html>\n")
    atomic_write_bytes(outp / "report.html", page.encode())
    return [outp / "report.md", outp / "report.html", *paths]


def _pair_figure(res: FixResult, outp: Path) -> Path | None:
    """Good's rate over the two levers of the best two-lever fix (the other levers at their
    defaults): the rule sets played, the parity contour, the default framed and the fix
    starred (``reports.plots.best_pair_plot``, which the sweep's suggested fixes draw too)."""
    from lotr_sim.experiments.fixfig import best_pair
    from lotr_sim.reports.plots import best_pair_plot
    pair = best_pair(res)
    if pair is None:
        return None
    path = outp / "best-pair.png"
    best_pair_plot(pair, res.outcome, res.target, path=path)
    return path
